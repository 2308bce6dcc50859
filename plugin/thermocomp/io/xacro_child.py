"""One xacro expansion in a process of its own, for :func:`thermocomp.io.robot_files.expand_xacro`.

The parent bounds this process in time and memory: a xacro file's ``${...}``
expressions, evaluated by :mod:`thermocomp.io.xacro_expressions` (never as
Python), could still compute for long or build a large text. The request comes as JSON on standard
input (``path``, ``args``, ``packages``, ``search_path``, ``env``); the reply goes as
JSON on standard output: ``{"text", "included"}``, or ``{"error": {message,
path, row, column}}`` for a refusal (an :class:`~thermocomp.errors.InputError`).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main() -> int:
    from thermocomp.errors import InputError
    from thermocomp.io import robot_files
    from thermocomp.io.robot_files import XACRO_MEMORY_BYTES, expand_xacro_here

    robot_files._STAGES.append(True)  # say on stderr what it does: a time-out names it

    request = json.load(sys.stdin)
    path = Path(request["path"])
    try:
        text, included = expand_xacro_here(path, request["args"],
                                           {k: Path(v) for k, v in request["packages"].items()},
                                           tuple(Path(p) for p in request["search_path"]), with_includes=True,
                                           env=request["env"])
        reply = {"text": text, "included": [str(f) for f in included]}
    except InputError as exc:
        reply = {"error": {"message": exc.message, "path": exc.path, "row": exc.row, "column": exc.column}}
    except MemoryError:
        reply = {"error": {"message": f"xacro: the expansion needs more than {XACRO_MEMORY_BYTES / 2**30:g} GiB of "
                                      "memory (an expression that no robot description needs?)", "path": str(path)}}
    json.dump(reply, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
