"""Opening input files: the operating system's refusals as :class:`~thermocomp.errors.InputError`.

Every reader opens its file through here, so a missing file, a directory
or an unreadable file gives the same message, naming the file, whatever
its format.
"""

from __future__ import annotations

from pathlib import Path
from typing import BinaryIO

from thermocomp._typing import PathLike
from thermocomp.errors import InputError


def open_input(path: PathLike, kind: str | None = None) -> BinaryIO:
    """Open ``path`` for reading bytes (the caller closes it).

    Parameters
    ----------
    kind
        What the file should be, for the message about a directory
        (``"URDF"``: "expected a URDF file, got a directory").

    Raises
    ------
    InputError
        Naming ``path``: not found, a directory, or not readable.
    """
    src = str(path)
    try:
        return Path(path).open("rb")
    except FileNotFoundError as exc:
        raise InputError("file not found", path=src) from exc
    except IsADirectoryError as exc:
        raise InputError(f"expected {'a' if kind is None else f'a {kind}'} file, got a directory", path=src) from exc
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", path=src) from exc


def read_input_bytes(path: PathLike, kind: str | None = None) -> bytes:
    """The whole content of ``path``; errors as :func:`open_input`, and a failed read names the file too."""
    with open_input(path, kind) as handle:
        try:
            return handle.read()
        except OSError as exc:
            raise InputError(f"cannot read: {exc.strerror}", path=str(path)) from exc


def is_file(path: PathLike) -> bool:
    """Whether ``path`` is an existing regular file; ``False`` also for a name the system refuses (too long)."""
    try:
        return Path(path).is_file()
    except OSError:
        return False


__all__ = ["is_file", "open_input", "read_input_bytes"]
