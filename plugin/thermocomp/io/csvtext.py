"""Shared helpers of the CSV readers: located parsing of numbers and headers.

Line numbers are 1-based file lines (the header is the first non-comment
line), so a message points at what an editor shows.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Iterator, Sequence
from pathlib import Path

from thermocomp._typing import PathLike
from thermocomp.errors import InputError


def read_rows(path: PathLike) -> Iterator[tuple[int, list[str]]]:
    """Yield ``(line_number, cells)`` of a CSV file, skipping blank and ``#`` lines.

    Raises :class:`InputError` naming the file when it cannot be read or is
    not text.
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8-sig")
    except FileNotFoundError as exc:
        raise InputError("file not found", path=str(p)) from exc
    except IsADirectoryError as exc:
        raise InputError("expected a file, got a directory", path=str(p)) from exc
    except UnicodeDecodeError as exc:
        raise InputError(f"expected UTF-8 text, got undecodable byte at offset {exc.start}", path=str(p)) from exc
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", path=str(p)) from exc
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        yield number, next(csv.reader([line]))


def iter_rows(path: PathLike) -> Iterator[tuple[int, list[str]]]:
    """Streaming form of :func:`read_rows`: the same rows and line numbers, read line by line.

    Memory stays bounded by the longest line, whatever the file's size (for
    million-row toolpaths; a file whose lines all end in a bare ``\\r`` is
    one long piece). Lines end where :meth:`str.splitlines` ends them,
    exactly as in :func:`read_rows` (``\\n``, ``\\r\\n``, ``\\r``, ...): the
    file is read in ``\\n``-terminated pieces and each piece is split further,
    which gives the same lines because no other line boundary spans a ``\\n``.
    One difference: a malformed quoted cell (``"abc`` without its closing
    quote, ``"ab"c``) is an error here, where :func:`read_rows` repairs it
    silently.

    Raises :class:`InputError` naming the file when it cannot be opened, and
    the file and line when a line is not UTF-8 or not one CSV record. Being
    a generator, it raises when iterated, not when called.
    """
    p = Path(path)
    src = str(p)
    try:
        handle = p.open("rb")
    except FileNotFoundError as exc:
        raise InputError("file not found", path=src) from exc
    except IsADirectoryError as exc:
        raise InputError("expected a file, got a directory", path=src) from exc
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", path=src) from exc
    with handle:
        number = 0
        offset = 0
        encoding = "utf-8-sig"  # a byte-order mark is dropped at the start of the file only
        for raw in handle:
            try:
                piece = raw.decode(encoding)
            except UnicodeDecodeError as exc:
                raise InputError(
                    f"expected UTF-8 text, got undecodable byte at offset {offset + exc.start}",
                    path=src,
                    row=number + 1,
                ) from exc
            offset += len(raw)
            encoding = "utf-8"
            for line in piece.splitlines():
                number += 1
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


def parse_float(text: str, path: str, line: int, column: str, *, allow_empty: bool = False) -> float:
    """A finite float from a cell, or an :class:`InputError` at (path, line, column).

    An empty cell gives ``nan`` when ``allow_empty``.
    """
    cell = text.strip()
    if cell == "":
        if allow_empty:
            return math.nan
        raise InputError("expected a number, got an empty cell", path=path, row=line, column=column)
    try:
        value = float(cell)
    except ValueError:
        raise InputError(f"expected a number, got {cell!r}", path=path, row=line, column=column) from None
    if not math.isfinite(value):
        raise InputError(f"expected a finite number, got {cell!r}", path=path, row=line, column=column)
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
    if len(values) != len(indices) or not all(map(math.isfinite, values)):
        # Slow path only to locate and word the error.
        return [parse_float(cells[i], path, line, col) for i, col in zip(indices, columns)]
    return values


def check_header(header: list[str], required: list[str], optional: list[str], path: str, line: int) -> dict[str, int]:
    """Map column names to indices; unknown, missing or duplicate columns are errors."""
    names = [h.strip() for h in header]
    seen: dict[str, int] = {}
    for i, name in enumerate(names):
        if name in seen:
            raise InputError(f"duplicate column {name!r}", path=path, row=line, column=name)
        seen[name] = i
    missing = [c for c in required if c not in seen]
    if missing:
        raise InputError(
            f"missing column(s) {', '.join(missing)}; expected columns {', '.join(required)}"
            + (f" and optionally {', '.join(optional)}" if optional else "")
            + f", got {', '.join(names)}",
            path=path,
            row=line,
        )
    unknown = [c for c in names if c not in required and c not in optional]
    if unknown:
        raise InputError(
            f"unknown column(s) {', '.join(unknown)}; expected {', '.join(required + optional)}",
            path=path,
            row=line,
            column=unknown[0],
        )
    return seen
