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


def iter_rows(path: PathLike) -> Iterator[tuple[int, list[str]]]:
    """Yield ``(line_number, cells)`` of a CSV file, skipping blank and ``#`` lines, line by line.

    Memory stays bounded by the longest line, whatever the file's size (for
    million-row toolpaths; a file whose lines all end in a bare ``\\r`` is
    one long piece). Lines end where :meth:`str.splitlines` ends them
    (newline, carriage return and the rest): the file is read in
    newline-terminated pieces and each piece is split further, which gives
    the same lines because no other line boundary spans a newline. A
    malformed quoted cell (``"abc`` without its closing quote, ``"ab"c``) is
    an error.

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
    """Map column names to indices; unknown, missing or duplicate columns are located errors.

    A misspelt column is both unknown and missing: the message names both,
    and the error's column is the unknown one (where the typo is).
    """
    names = [h.strip() for h in header]
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
