"""Write results completely or not at all (DEVELOPERS.md): temporary file, then rename.

The temporary file lives beside the destination (same file system, so the
rename is atomic) and is removed if anything fails, including Ctrl-C. An
output path equal to an input path is refused by the callers that know
their inputs (:func:`check_not_input`). A destination that cannot be written
(a directory, a folder that does not exist, no permission) is an
:class:`~thermocomp.errors.InputError` naming it; :func:`check_destination`
lets a command check its output path before it computes.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable, Iterator, Sequence
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


def check_destination(path: PathLike) -> Path:
    """Check that ``path`` can be the destination of an atomic write, before anything is computed.

    Returns ``path`` as a :class:`~pathlib.Path`.

    Raises
    ------
    InputError
        Naming ``path``: it is a directory, or its folder does not exist.
        (Permissions show only when writing: :func:`atomic_open`.)
    """
    dest = Path(path)
    if dest.is_dir():
        raise InputError("cannot write: expected a file path, got a directory", path=str(dest))
    if not dest.parent.is_dir():  # a bare file name's parent is Path(".")
        raise InputError("cannot write: the folder does not exist", path=str(dest))
    return dest


def _temporary_beside(dest: Path, suffix: str) -> tuple[int, str]:
    """A new temporary file in ``dest``'s folder (same file system, so renaming it is atomic): ``(fd, name)``."""
    try:
        return tempfile.mkstemp(prefix=f".{dest.name}.", suffix=suffix, dir=dest.parent)
    except OSError as exc:
        raise InputError(f"cannot write: {exc.strerror}", path=str(dest)) from exc


def _publish(tmp: PathLike, dest: Path) -> None:
    """Give the finished temporary file ``tmp`` a new file's mode and rename it to ``dest``."""
    os.chmod(tmp, _new_file_mode())  # mkstemp makes 0600; a result file is as readable as any other
    try:
        os.replace(tmp, dest)
    except OSError as exc:  # e.g. a directory made at ``dest`` meanwhile, or a read-only destination
        raise InputError(f"cannot write: {exc.strerror}", path=str(dest)) from exc


def _remove_all(paths: list[Path]) -> None:
    for path in paths:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


@contextlib.contextmanager
def _atomic_fd(path: PathLike) -> Iterator[int]:
    """A temporary file beside ``path`` (its descriptor); renamed to ``path`` when the block succeeds."""
    dest = check_destination(path)
    fd, tmp = _temporary_beside(dest, ".tmp")
    try:
        yield fd
        _publish(tmp, dest)
    except BaseException:
        _remove_all([Path(tmp)])  # cleanup only: the exception is re-raised unchanged
        raise


@contextlib.contextmanager
def atomic_open(path: PathLike, newline: str | None = "") -> Iterator[IO[str]]:
    """Open a temporary text file beside ``path``; rename it to ``path`` on success.

    On any exception (or KeyboardInterrupt) the temporary file is deleted and
    ``path`` is left as it was.

    Raises
    ------
    InputError
        Naming ``path`` when it cannot be written (:func:`check_destination`,
        or the rename fails); exceptions raised inside the block pass unchanged.
    """
    with _atomic_fd(path) as fd:
        with os.fdopen(fd, "w", encoding="utf-8", newline=newline) as handle:
            yield handle


def _new_file_mode() -> int:
    """The mode ``open()`` would give a new file: 0666 less the process umask."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def atomic_write_text(path: PathLike, text: str) -> None:
    """Write ``text`` to ``path`` atomically."""
    with atomic_open(path) as handle:
        handle.write(text)


def atomic_write_bytes(path: PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (binary files, e.g. STL)."""
    with _atomic_fd(path) as fd:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)


def atomic_write_all(writes: Sequence[tuple[PathLike, Callable[[Path], object]]]) -> None:
    """Write several outputs all or none: each to a temporary file beside it, then rename them all.

    ``writes`` holds ``(destination, write)`` pairs; ``write(path)`` writes
    the output to ``path`` (a temporary name with the destination's suffix,
    so writers that check it accept it). If any write fails, every
    temporary file is removed and no destination is touched; if a rename
    fails (the disk changed under us), the outputs already renamed are
    removed too, so a run never leaves some of its outputs behind.

    Raises
    ------
    InputError
        Naming a destination that cannot be written; exceptions of the
        writers pass unchanged.
    """
    staged: list[tuple[Path, Path]] = []  # (temporary, destination)
    renamed: list[Path] = []
    try:
        for dest, write in writes:
            dest = check_destination(dest)
            fd, tmp = _temporary_beside(dest, f".part{dest.suffix}")
            os.close(fd)
            staged.append((Path(tmp), dest))
            write(Path(tmp))
        for tmp, dest in staged:
            _publish(tmp, dest)
            renamed.append(dest)
    except BaseException:
        _remove_all([tmp for tmp, _ in staged] + renamed)  # cleanup only: the exception is re-raised unchanged
        raise
