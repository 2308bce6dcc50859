"""Shared helpers of the CSV readers: located parsing of numbers and headers.

Line numbers are 1-based file lines (the header is the first non-comment
line), so a message points at what an editor shows.
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import numpy as np

from thermocomp._typing import FloatArray, PathLike
from thermocomp.errors import InputError
from thermocomp.io.files import MAX_LINE_BYTES, open_input

#: What ends a line, as editors and spreadsheets end it: a newline, a carriage return, or both. Not the form feed, the
#: vertical tab, the separators ``\x1c``-``\x1e``, NEL or U+2028/U+2029 that :meth:`str.splitlines` ends one at too:
#: a form feed in a comment made the comment's second half the header, and every line number after it one too many.
LINE_END = re.compile(r"\r\n?|\n")
#: Raw lines read at a time by :func:`iter_rows`.
_ROWS_BLOCK = 256
#: Bytes :meth:`CsvLines.read` reads from the file at a time (about what the lines asked for need, by their
#: length so far, within these bounds), and the line length it assumes before the first line.
_READ_BYTES_MIN = 4096
_READ_BYTES_MAX = 1 << 20
_FIRST_LINE_BYTES = 128

#: Bytes that send a block of lines to the row-by-row path of :class:`CsvLines`: quotes and comment marks
#: (searched for), DEL, and every control byte but the newline (counted, with the newlines, among the bytes
#: below a space).
_NOT_PLAIN_MARKS = (b'"', b"#", b"\x7f")


class RawLines:
    """Consecutive raw lines of a file as one block of bytes: ``data`` holds ``len(self)`` lines, each ending in
    ``\n`` (but the file's last line when the file does not end in one)."""

    __slots__ = ("data", "count")

    def __init__(self, data: bytes, count: int) -> None:
        self.data = data
        self.count = count

    def __len__(self) -> int:
        return self.count

    def __iter__(self) -> Iterator[bytes]:
        """The lines, each with its ``\n``: the pieces of the file split where iterating over it splits."""
        return iter(io.BytesIO(self.data))


def _newline_ends(data: bytes) -> np.ndarray:
    """The offset just after each ``\n`` of ``data`` (numpy's vectorised search: ``bytes.count`` and ``find`` go a
    byte at a time)."""
    return np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 0x0A) + 1


class CsvLines:
    """A CSV file read in blocks of raw lines, each block parsed row by row or handed over plain.

    :meth:`rows` is the precise path: decoding, line splitting, comments and
    quoting exactly as :func:`iter_rows` describes, with every error located.
    :meth:`plain` recognises a block that needs none of that (ASCII without
    quotes, ``#`` or control characters other than the newline ending each
    line), so a caller can parse it at once with a vectorised parser and
    :meth:`skip` it, coming back to :meth:`rows` only when that parser
    rejects something. Either way the line numbers advance alike. Use as a
    context manager.

    The file is read about a block at a time (by the lines' length so far)
    and a block is cut after its last line's newline (the bytes after it wait
    for the next block): no object per line on the plain path.

    Raises :class:`InputError` naming the file when it cannot be opened.
    """

    def __init__(self, path: PathLike) -> None:
        p = Path(path)
        self.src = str(p)
        self._handle = open_input(p)  # read a block at a time: a targets file can be large
        self._rest = b""  # bytes read from the file after the last block's lines
        self._seen_bytes = 0  # bytes and lines of the blocks read so far
        self._seen_lines = 0
        #: File lines consumed so far (the next line is ``number + 1``).
        self.number = 0
        self._offset = 0
        self._encoding = "utf-8-sig"  # a byte-order mark is dropped at the start of the file only

    def __enter__(self) -> CsvLines:
        return self

    def __exit__(self, *exc: object) -> None:
        self._handle.close()

    def read(self, count: int) -> RawLines:
        """The next ``count`` raw lines (fewer at the end of the file), each with its ``\n``."""
        parts: list[bytes] = []
        found = 0
        data, self._rest = self._rest, b""
        tail = 0  # bytes of the line being read, before data
        while True:
            if data:
                tail = self._check_lines(data, tail, parts)
                ends = _newline_ends(data)
                lines = ends.size
                if found + lines >= count:
                    end = int(ends[count - found - 1])
                    parts.append(data[:end])
                    self._rest = data[end:]
                    found = count
                    break
                parts.append(data)
                found += lines
            data = self._handle.read(self._read_size(count - found))
            if not data:
                if parts and not parts[-1].endswith(b"\n"):
                    found += 1  # the file's last line, without a newline
                break
        block = b"".join(parts)
        self._seen_bytes += len(block)
        self._seen_lines += found
        return RawLines(block, found)

    def _check_lines(self, data: bytes, tail: int, parts: list[bytes]) -> int:
        """Refuse a line of more than :data:`MAX_LINE_BYTES` in ``data`` (read after the lines ``parts`` of this
        block and ``tail`` bytes of its first line): a cell of megabytes copied into every row of an output (a name,
        once a minute), or a file of gigabytes without a line end read whole. A carriage return alone ends a line
        too, as :data:`LINE_END` reads it. Returns the bytes of the last line of ``data``, not ended."""
        codes = np.frombuffer(data, dtype=np.uint8)
        ends = np.flatnonzero((codes == 0x0A) | (codes == 0x0D))
        lengths = np.diff(ends, prepend=-1 - tail) - 1
        unended = len(data) - 1 - int(ends[-1]) if ends.size else tail + len(data)
        if max(int(lengths.max()) if lengths.size else 0, unended) > MAX_LINE_BYTES:
            k = int(np.argmax(lengths > MAX_LINE_BYTES)) if lengths.size and lengths.max() > MAX_LINE_BYTES else None
            before = b"".join(parts) + (data[:ends[k]] if k is not None else data)
            line = self._seen_lines + len(before.splitlines())  # (the long line is the last, cut before its end)
            raise InputError(f"the line holds more than {MAX_LINE_BYTES:,} bytes: expected at most {MAX_LINE_BYTES:,} "
                             "a line (1 MiB: a CSV row is some numbers and a name)", path=self.src, row=line,
                             column=MAX_LINE_BYTES + 1)
        return unended

    def _read_size(self, lines: int) -> int:
        """Bytes to read for about ``lines`` more lines: their length so far, a sixteenth more, within bounds."""
        per_line = self._seen_bytes / self._seen_lines if self._seen_lines else _FIRST_LINE_BYTES
        return int(min(max(lines * per_line * 17 / 16, _READ_BYTES_MIN), _READ_BYTES_MAX))

    def plain(self, raw: RawLines) -> bytes | None:
        """The lines of ``raw`` (with Windows line ends, ``\r\n``, turned into ``\n``) when every one is plain:
        ASCII without quotes, ``#`` or control characters; else None.

        Then each raw line is one file line (the next is ``number + 1``) and its
        cells are its comma-separated pieces, without the final newline.
        Blank lines are plain too; a caller's cell-count check finds them.
        """
        text = raw.data
        if b"\r" in text:  # (the search is a memchr, the replace a copy) a carriage return elsewhere stays: refused
            text = text.replace(b"\r\n", b"\n")
        if not text.isascii() or any(mark in text for mark in _NOT_PLAIN_MARKS):
            return None
        below_space = np.count_nonzero(np.frombuffer(text, dtype=np.uint8) < 0x20)
        newlines = len(raw) - (bool(raw.data) and not raw.data.endswith(b"\n"))  # (a file's last line may have none)
        return text if below_space == newlines else None

    def skip(self, raw: RawLines) -> None:
        """Count plain lines ``raw`` as consumed (a caller parsed them)."""
        self.number += len(raw)
        self._offset += len(raw.data)
        self._encoding = "utf-8"

    def rows(self, raw: RawLines) -> Iterator[tuple[int, list[str]]]:
        """``(line_number, cells)`` of the lines in ``raw``, skipping blank and ``#`` lines (see :func:`iter_rows`)."""
        src = self.src
        for piece_bytes in raw:
            try:
                piece = piece_bytes.decode(self._encoding)
            except UnicodeDecodeError as exc:
                raise InputError(
                    f"expected UTF-8 text, got undecodable byte at offset {self._offset + exc.start}",
                    path=src,
                    row=self.number + 1,
                ) from exc
            self._offset += len(piece_bytes)
            self._encoding = "utf-8"
            lines = LINE_END.split(piece)
            for line in lines[:-1] if lines[-1] == "" else lines:  # (the piece's own line end ends no other line)
                self.number += 1
                number = self.number
                if not line.strip() or line.lstrip().startswith("#"):
                    continue
                if '"' not in line:
                    # Without quotes the csv module splits at every comma: the same, faster.
                    yield number, line.split(",")
                    continue
                try:
                    cells = next(csv.reader([line], strict=True))
                except csv.Error as exc:
                    raise InputError(
                        f"expected one CSV record, got {line[:80]!r} ({exc})", path=src, row=number
                    ) from exc
                yield number, cells


def iter_rows(path: PathLike) -> Iterator[tuple[int, list[str]]]:
    """Yield ``(line_number, cells)`` of a CSV file, skipping blank and ``#`` lines, block by block.

    Memory stays bounded by a few hundred lines, whatever the file's size (for
    million-row toolpaths; a file whose lines all end in a bare ``\\r`` is
    one long piece). Lines end at a newline, a carriage return or both
    (:data:`LINE_END`): the file is read in newline-terminated pieces and
    each piece is split at its carriage returns. A
    malformed quoted cell (``"abc`` without its closing quote, ``"ab"c``) is
    an error.

    Raises :class:`InputError` naming the file when it cannot be opened, and
    the file and line when a line is not UTF-8 or not one CSV record. Being
    a generator, it raises when iterated, not when called.
    """
    with CsvLines(path) as lines:
        while raw := lines.read(_ROWS_BLOCK):
            yield from lines.rows(raw)


def header_and_rows(path: PathLike, empty: str) -> tuple[int, list[str], Iterator[tuple[int, list[str]]]]:
    """The opening of every CSV reader: the header's line and cells, and the rows below it (:func:`iter_rows`).

    Raises :class:`InputError` naming the file with the reader's own message ``empty`` for a file without a
    line (blank and ``#`` lines only), and as :func:`iter_rows` does when the file cannot be opened or its first
    line read.
    """
    rows = iter_rows(path)
    first = next(rows, None)
    if first is None:
        raise InputError(empty, path=str(path))
    line, header = first
    return line, header, rows


#: What may stand beside a number or a column's name in a cell: spaces and tabs. :class:`float` and
#: :meth:`str.strip` also drop the vertical tab, the form feed, ``\x1c``-``\x1f``, NEL, NBSP and the other Unicode
#: spaces: a control character or an invisible space there is a damaged file, not a blank.
CELL_BLANKS = " \t"
#: Characters no number holds: the control characters but the tab (a blank) and DEL.
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")


def number_text(cell: str) -> bool:
    """Whether ``cell`` may be a number of a file: ASCII without ``_`` or control characters (but the tab).

    :class:`float` also reads ``6_41`` (641, Python's digit grouping),
    digits of other scripts (``"\u0663"``, 3) and a number beside a form
    feed or a vertical tab (``"\\x0c641"``, read as whitespace); no
    spreadsheet or controller writes any of them, so they are typing errors
    or damage rather than numbers.
    """
    return cell.isascii() and "_" not in cell and _CONTROL.search(cell) is None


#: Largest magnitude a cell may hold, in its column's unit (mm, deg, rad, s, N m, kg m^2, ...): no robot
#: quantity comes near it, and squares of larger values (least squares, norms) lose all precision or
#: overflow (1e300 gave NaN torques and an SVD that did not converge).
MAX_CELL = 1e12


def parse_float(text: str, path: str, line: int, column: str, *, allow_empty: bool = False) -> float:
    """A finite float of magnitude at most :data:`MAX_CELL` from a cell, or an :class:`InputError` at (path, line, column).

    An empty cell gives ``nan`` when ``allow_empty``. ASCII only, without
    ``_`` or control characters (:func:`number_text`); only spaces and tabs
    around the number are blanks (:data:`CELL_BLANKS`).
    """
    cell = text.strip(CELL_BLANKS)
    if cell == "":
        if allow_empty:
            return math.nan
        raise InputError("expected a number, got an empty cell", path=path, row=line, column=column)
    try:
        if not number_text(cell):
            raise ValueError(cell)
        value = float(cell)
    except ValueError:
        raise InputError(f"expected a number, got {cell!r}", path=path, row=line, column=column) from None
    if not math.isfinite(value):
        raise InputError(f"expected a finite number, got {cell!r}", path=path, row=line, column=column)
    if abs(value) > MAX_CELL:
        raise InputError(f"expected a number of magnitude at most {MAX_CELL:g} (in the column's unit), got {cell!r}",
                         path=path, row=line, column=column)
    return value


def parse_floats(
    cells: Sequence[str], indices: Sequence[int], columns: Sequence[str], path: str, line: int
) -> list[float]:
    """Finite floats from ``cells[i]`` for ``i`` in ``indices``: the fast path of :func:`parse_float`.

    Accepts and rejects exactly what :func:`parse_float` does (``float`` ignores
    surrounding whitespace as ``parse_float``'s ``strip`` does); on the first
    bad cell the error is :func:`parse_float`'s, located at ``(path, line,
    columns[k])``. ``cells`` must have every index (callers check the count).
    """
    try:
        values = [float(cells[i]) for i in indices]
    except ValueError:
        values = []
    if (len(values) != len(indices) or not all(map(math.isfinite, values)) or max(map(abs, values), default=0.0) > MAX_CELL
            or not number_text("".join([cells[i] for i in indices]))):
        # Slow path only to locate and word the error.
        return [parse_float(cells[i], path, line, col) for i, col in zip(indices, columns)]
    return values


def joint_rows(path: PathLike, required: tuple[str, ...], optional: tuple[str, ...] = (),
               n_joints: int | None = None, check: Callable[[int, list[float]], None] | None = None, *,
               read_optional: bool = False) -> FloatArray:
    """The values of a per-joint table (a ``joint`` column, 1..n in order, then the numbers of ``required[1:]``).

    Returns ``(n, len(required) - 1)``, in the order of ``required[1:]``; with ``read_optional``,
    ``(n, len(required) - 1 + len(optional))``, the optional columns after the required ones, ``nan`` where the
    file does not have the column. ``check(line, values)`` is each table's
    own check of a row, called as the row is read. Errors name the file, line and column: an empty file, a bad
    header, a row of another length, a joint out of order, a cell that is not a number, no rows, or not
    ``n_joints`` rows.
    """
    src = str(path)
    line, header, rows = header_and_rows(path, f"expected a header {','.join(required)}, got an empty file")
    index = check_header(header, list(required), list(optional), src, line)
    columns = list(required[1:]) + ([c for c in optional if c in index] if read_optional else [])
    found: list[list[float]] = []
    for number, cells in rows:
        if len(cells) != len(header):
            raise InputError(f"expected {len(header)} cells, got {len(cells)}", path=src, row=number)
        joint = cells[index["joint"]].strip(CELL_BLANKS)
        if joint != str(len(found) + 1):
            raise InputError(f"expected joint {len(found) + 1} (rows in joint order), got {joint!r}",
                             path=src, row=number, column="joint")
        values = parse_floats(cells, [index[c] for c in columns], columns, src, number)
        if check is not None:
            check(number, values)
        found.append(values)
    if not found:
        raise InputError("expected one row per joint, got none", path=src)
    if n_joints is not None and len(found) != n_joints:
        raise InputError(f"expected {n_joints} joint rows, got {len(found)}", path=src)
    out = np.array(found)
    if read_optional:
        full = np.full((out.shape[0], len(required) - 1 + len(optional)), np.nan)
        full[:, [list(required[1:] + optional).index(c) for c in columns]] = out
        return full
    return out


def header_names(header: list[str]) -> list[str]:
    """The column names of a header's cells, without the blanks around them (:data:`CELL_BLANKS`)."""
    return [h.strip(CELL_BLANKS) for h in header]


def check_header(header: list[str], required: list[str], optional: list[str], path: str, line: int) -> dict[str, int]:
    """Map column names to indices; unknown, missing or duplicate columns are located errors.

    A misspelt column is both unknown and missing: the message names both,
    and the error's column is the unknown one (where the typo is).
    """
    names = header_names(header)
    seen: dict[str, int] = {}
    for i, name in enumerate(names):
        if name in seen:
            raise InputError(f"duplicate column {name!r}", path=path, row=line, column=name or str(i + 1))
        seen[name] = i
    missing = [c for c in required if c not in seen]
    unknown = [c for c in names if c not in required and c not in optional]
    if missing or unknown:
        parts = []
        if unknown:
            parts.append(f"unknown column(s) {', '.join(repr(c) for c in unknown)}")
        if missing:
            parts.append(f"missing column(s) {', '.join(missing)}")
        expected = ", ".join(required) + (f" and optionally {', '.join(optional)}" if optional else "")
        column = (unknown[0] or str(names.index(unknown[0]) + 1)) if unknown else missing[0]
        raise InputError(f"{'; '.join(parts)}; expected columns {expected}", path=path, row=line, column=column)
    return seen
