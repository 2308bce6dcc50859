"""Write results completely or not at all (DEVELOPERS.md): temporary file, then rename.

The temporary file lives beside the destination (same file system, so the
rename is atomic) and is removed if anything fails, including Ctrl-C. An
output path equal to an input path is refused by the callers that know
their inputs (:func:`check_not_input`).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from thermocomp._typing import PathLike
from thermocomp.errors import InputError


def check_not_input(output: PathLike, inputs: list[PathLike]) -> None:
    """Refuse an output path that is one of the inputs (never overwrite an input)."""
    out = Path(output)
    for item in inputs:
        src = Path(item)
        if out.exists() and src.exists() and out.samefile(src) or out.resolve() == src.resolve():
            raise InputError(f"output would overwrite the input {src}; choose another output path", path=str(out))


@contextlib.contextmanager
def atomic_open(path: PathLike, newline: str | None = "") -> Iterator[IO[str]]:
    """Open a temporary text file beside ``path``; rename it to ``path`` on success.

    On any exception (or KeyboardInterrupt) the temporary file is deleted and
    ``path`` is left as it was.
    """
    dest = Path(path)
    directory = dest.parent if str(dest.parent) else Path(".")
    if not directory.is_dir():
        raise InputError("cannot write: the folder does not exist", path=str(dest))
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise InputError(f"cannot write: {exc.strerror}", path=str(dest)) from exc
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline=newline) as handle:
            yield handle
        os.chmod(tmp, _new_file_mode())  # mkstemp makes 0600; a result file is as readable as any other
        os.replace(tmp, dest)
    except BaseException:
        # Cleanup only: the exception is re-raised unchanged.
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _new_file_mode() -> int:
    """The mode ``open()`` would give a new file: 0666 less the process umask."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def atomic_write_text(path: PathLike, text: str) -> None:
    """Write ``text`` to ``path`` atomically."""
    with atomic_open(path) as handle:
        handle.write(text)
