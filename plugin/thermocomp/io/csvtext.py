"""Shared helpers of the CSV readers: located parsing of numbers and headers.

Line numbers are 1-based file lines (the header is the first non-comment
line), so a message points at what an editor shows.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Iterator
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
