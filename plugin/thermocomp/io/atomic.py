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
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import IO

from thermocomp._typing import PathLike
from thermocomp.errors import InputError
from thermocomp.io.job import Job, new_file_mode, same_file, temporary_beside


def check_not_input(output: PathLike, inputs: list[PathLike]) -> None:
    """Refuse an output path that is one of the inputs (never overwrite an input).

    The same file by resolved path, or by device and inode (symlinks and
    hard links followed): :func:`thermocomp.io.job.same_file`. A command
    declares its files in a :class:`~thermocomp.io.job.Job` instead, which
    checks this and more with every option named (docs/jobs.md).
    """
    for item in inputs:
        if same_file(output, item):
            raise InputError(f"output would overwrite the input {item}; choose another output path", path=str(output))


def check_destination(path: PathLike) -> Path:
    """Check that ``path`` can be the destination of an atomic write, before anything is computed.

    Returns ``path`` as a :class:`~pathlib.Path`.

    Raises
    ------
    InputError
        Naming ``path``: it is a directory, a FIFO, a device (anything but a
        regular file or a new name), its folder does not exist or is not
        writable (a :class:`~thermocomp.io.job.Job`'s check of one output).
    """
    dest = Path(path)
    job = Job()
    job.output(dest)
    found = job.conflicts()
    if found:
        message = found[0].split(": ", 1)[1] if found[0].startswith(f"{dest}: ") else found[0]
        if "got a directory" in message:
            message = "cannot write: expected a file path, got a directory"
        raise InputError(message, path=str(dest))
    return dest


def _publish(tmp: PathLike, dest: Path) -> None:
    """Give the finished temporary file ``tmp`` a new file's mode and rename it to ``dest``."""
    os.chmod(tmp, new_file_mode())  # mkstemp makes 0600; a result file is as readable as any other
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
    tmp = temporary_beside(dest)  # a short name: an output name as long as the file system allows works
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_TRUNC)
        yield fd
        _publish(tmp, dest)
    except BaseException:
        _remove_all([tmp])  # cleanup only: the exception is re-raised unchanged
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
    """Write several outputs all or none (a :class:`~thermocomp.io.job.Job` without options).

    ``writes`` holds ``(destination, write)`` pairs; ``write(path)`` writes
    the output to ``path`` (a temporary name with the destination's suffix,
    so writers that check it accept it). If any write fails, every
    temporary file is removed and no destination is touched; if a rename
    fails, the outputs already renamed get their earlier content back.

    Raises
    ------
    InputError
        Naming a destination that cannot be written; exceptions of the
        writers pass unchanged.
    """
    with Job() as job:
        for dest, _ in writes:
            job.output(check_destination(dest))
        job.check()
        for dest, write in writes:
            job.write_with(Path(dest), write)
        job.commit()
