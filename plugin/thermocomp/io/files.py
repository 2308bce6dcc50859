"""Opening input files: the operating system's refusals as :class:`~thermocomp.errors.InputError`.

Every reader opens its file through here, so a missing file, a directory
or an unreadable file gives the same message, naming the file, whatever
its format.
"""

from __future__ import annotations

import io
import os
import re
import select
import stat
from pathlib import Path
from typing import BinaryIO

from thermocomp._typing import PathLike
from thermocomp.errors import InputError

#: Seconds a FIFO given as an input (``--targets <(make_targets)``, ``mkfifo``) may stay silent before the
#: run gives up on it: with no writer, opening it waited for ever.
FIFO_WAIT_S = 30.0

#: Most bytes a robot program or a module of its task may hold, checked before it is read.
MAX_PROGRAM_BYTES = 256 * 2**20
#: Most bytes one line of a robot program may hold, checked before it is read: some 450 times the longest line of
#: the 960 real programs of the corpus (2,289 bytes), room for a generator's whole array of robtargets on one line
#: (6,000 of them are 360 KB); the readers' parser takes 10-25 us a token, so a line at the bound (half a million
#: numbers) reads in some 15 s of CPU and 600 MB, and a 10 MB one, which would take minutes and gigabytes, is refused.
#: A line of a CSV file has the same bound (io/csvtext.CsvLines: a row is some numbers and a name).
MAX_LINE_BYTES = 2**20
#: The most a FIFO given as an input is read before it is refused [bytes].
MAX_FIFO_BYTES = 4 * MAX_PROGRAM_BYTES
#: Most bytes a description read whole may hold (a URDF, a package.xml, a scene or time-law TOML): real ones are
#: some kilobytes to a few hundred; a file of gigabytes was read whole, and an XML tree takes ten times its size.
MAX_DESCRIPTION_BYTES = 16 * 2**20

#: A CR not followed by LF: a line end of classic Mac OS.
_LONE_CR = re.compile(rb"\r(?!\n)")
#: A control character no program text holds (tab, LF, VT, FF and CR aside).
_CONTROL = re.compile(rb"[\x00-\x08\x0e-\x1f\x7f]")

#: What each FIFO read so far gave, by (device, inode): several readers open one robot file (its chain, its
#: inertials, its meshes), and a FIFO's content comes once (a second open waited for a writer that had gone).
_FIFO_CONTENT: dict[tuple[int, int], bytes] = {}


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
        st = os.stat(path)
        if stat.S_ISFIFO(st.st_mode):
            key = (st.st_dev, st.st_ino)
            if key not in _FIFO_CONTENT:
                _FIFO_CONTENT[key] = _read_fifo(path, src)
            return io.BytesIO(_FIFO_CONTENT[key])
        return Path(path).open("rb")
    except FileNotFoundError as exc:
        raise InputError("file not found", path=src) from exc
    except IsADirectoryError as exc:
        raise InputError(f"expected {'a' if kind is None else f'a {kind}'} file, got a directory", path=src) from exc
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", path=src) from exc


def _read_fifo(path: PathLike, src: str) -> bytes:
    """Read a FIFO whole: opened without waiting for a writer, then at most :data:`FIFO_WAIT_S` for its first byte.

    Opened for reading without ``O_NONBLOCK``, a FIFO nobody writes to blocks
    the run for ever (and a signal cannot end it cleanly).
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        poller = select.poll()
        poller.register(fd, select.POLLIN | select.POLLHUP)
        if not poller.poll(FIFO_WAIT_S * 1000):
            raise InputError(f"a FIFO nothing was written to in {FIFO_WAIT_S:g} s: give a file, or start its writer",
                             path=src)
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(MAX_FIFO_BYTES + 1)
        if len(data) > MAX_FIFO_BYTES:  # (a writer that never stops would fill the memory)
            raise InputError(f"a FIFO that gave more than {MAX_FIFO_BYTES:,} bytes (4 x the 256 MiB a program may "
                             "hold): give a file, or a writer that ends", path=src)
        return data
    finally:
        os.close(fd)


def read_input_bytes(path: PathLike, kind: str | None = None, max_bytes: int | None = None,
                     why: str = "a description is some kilobytes") -> bytes:
    """The whole content of ``path``, of at most ``max_bytes`` if given (``why``: what such a file holds, for the
    message); errors as :func:`open_input`, and a failed read or a file past ``max_bytes`` names the file too."""
    with open_input(path, kind) as handle:
        try:
            data = handle.read() if max_bytes is None else handle.read(max_bytes + 1)
        except OSError as exc:
            raise InputError(f"cannot read: {exc.strerror}", path=str(path)) from exc
    if max_bytes is not None and len(data) > max_bytes:
        raise InputError(f"the {kind or 'file'} holds more than {max_bytes:,} bytes: expected at most "
                         f"{max_bytes // 2**20} MiB ({why})", path=str(path))
    return data


def read_program_text(path: PathLike, kind: str) -> str:
    """A robot program's text, decoded as ISO-8859-1 (every byte one character, so spans are byte offsets and
    every byte is written back as it was read): :func:`read_program_bytes`, decoded."""
    return read_program_bytes(path, kind).decode("latin-1")


def read_program_bytes(path: PathLike, kind: str) -> bytes:
    """A robot program's bytes, checked to be a text of one byte a character, of at most :data:`MAX_PROGRAM_BYTES`.

    A text in UTF-16 or UTF-32 (a byte-order mark) or with line ends of CR alone (classic Mac OS) would
    otherwise be refused as a syntax error at its first character or its last line; neither is what
    RobotStudio, the FlexPendant or PolyScope write, and both are named here, as is a file with no text (empty,
    or only a byte-order mark and white space).
    """
    try:
        size = os.stat(path).st_size
    except OSError:  # (the read names what is wrong)
        size = 0
    if size > MAX_PROGRAM_BYTES:
        raise InputError(f"the {kind} holds {size:,} bytes: expected at most {MAX_PROGRAM_BYTES:,} (256 MiB: some "
                         "2,000,000 motions, --max-motions' bound, at 128 bytes each)", path=str(path))
    data = read_input_bytes(path, kind)
    body = data.removeprefix(b"\xef\xbb\xbf")
    if not body.strip():  # (a failed copy or save: the reader's message was "unexpected end of file")
        what = "is empty (0 bytes)" if not data else "holds only " + " and ".join(
            (["a byte-order mark"] if body != data else []) + (["white space"] if body else []))
        raise InputError(f"the {kind} {what}: expected a program's text", path=str(path), row=1, column=1)
    head = data[:256 - len(data[:256]) % 2]  # (ASCII text in UTF-16 or UTF-32 without a mark: a 0 every other byte)
    unmarked = len(head) >= 4 and not (any(head[0::2]) and any(head[1::2]))
    if unmarked or data.startswith((b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")):
        how = "every other byte is 0" if unmarked else "a byte-order mark"
        raise InputError(f"the {kind} is UTF-16 or UTF-32 encoded ({how}): save it as ASCII or UTF-8",
                         path=str(path), row=1, column=1)
    if len(data) > MAX_LINE_BYTES:
        import numpy as np

        ends = np.concatenate([[-1], np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 10), [len(data)]])
        longest = int(np.argmax(np.diff(ends)))
        if ends[longest + 1] - ends[longest] - 1 > MAX_LINE_BYTES:
            raise InputError(f"the {kind}'s line holds {int(ends[longest + 1] - ends[longest] - 1):,} bytes: expected "
                             f"at most {MAX_LINE_BYTES:,} a line (1 MiB: a program's statements are short, and a "
                             "longer line takes minutes and gigabytes to read)", path=str(path), row=longest + 1,
                             column=MAX_LINE_BYTES + 1)
    lone = _LONE_CR.search(data)  # (lines ending in CR alone, one line to the reader: every line and column wrong)
    binary = None if lone is None else _CONTROL.search(data)
    if binary is not None:  # (a binary file, or a byte of one in CR-ended lines: named where an editor shows it)
        at = binary.start()
        column = at - max(data.rfind(b"\n", 0, at), data.rfind(b"\r", 0, at))
        raise InputError(f"not {kind.split()[0]} text: byte 0x{data[at]:02x} at column {column} is binary data (an "
                         "encrypted or binary file cannot be read)", path=str(path),
                         row=data.count(b"\n", 0, at) + data.count(b"\r", 0, at) - data.count(b"\r\n", 0, at) + 1)
    if lone is not None:
        start = lone.start()
        which = "'s lines end" if b"\n" not in data else " has a line ending"
        raise InputError(f"the {kind}{which} in CR alone (classic Mac OS): expected LF or CR LF line ends",
                         path=str(path), row=data.count(b"\n", 0, start) + 1,
                         column=start - data.rfind(b"\n", 0, start))
    return data


#: A control character (C0, DEL, C1: a line break, a tab, an escape sequence) in a file name.
_CONTROL_IN_NAME = re.compile("[\x00-\x1f\x7f-\x9f]")


def check_file_name(path: PathLike, option: str = "") -> None:
    """Refuse a file name that no message can print as it is: bytes of another encoding than the system's (which
    Python keeps as lone surrogates), or a control character (a line break split the messages, the report's notes
    and its CSV rows that name the file; an escape sequence rewrote the terminal). The name is shown escaped,
    after ``option`` (the option that gave it, if any)."""
    name = str(path)
    try:
        name.encode("utf-8")
    except UnicodeEncodeError as exc:
        byte = ord(name[exc.start]) - 0xDC00  # (the byte os.fsdecode kept as a lone surrogate)
        problem = f"byte 0x{byte:02x}, which is no character of UTF-8 text (a name written in another encoding)"
    else:
        control = _CONTROL_IN_NAME.search(name)
        if control is None:
            return
        problem = f"the control character {control.group()!r} (U+{ord(control.group()):04X}), which no message prints"
    shown = _CONTROL_IN_NAME.sub(lambda m: repr(m.group())[1:-1], name.encode("utf-8", "surrogateescape").decode(
        "utf-8", "backslashreplace"))
    raise InputError(f"the file name holds {problem}: rename the file", path=f"{option} {shown}" if option else shown)


def is_file(path: PathLike) -> bool:
    """Whether ``path`` is an existing regular file; ``False`` also for a name the system refuses (too long).

    For names a file gives (a URDF's mesh, a mesh map's): ``Path.is_file`` raises on a name longer than the file
    system allows (ENAMETOOLONG), an ``OSError`` the command line could name only by the path, not the line."""
    try:
        return Path(path).is_file()
    except OSError:
        return False


def is_dir(path: PathLike) -> bool:
    """Whether ``path`` is an existing folder; ``False`` also for a name the system refuses (as :func:`is_file`)."""
    try:
        return Path(path).is_dir()
    except OSError:
        return False


__all__ = ["MAX_DESCRIPTION_BYTES", "MAX_LINE_BYTES", "MAX_PROGRAM_BYTES", "check_file_name", "is_dir", "is_file", "open_input",
           "read_input_bytes", "read_program_bytes", "read_program_text"]
