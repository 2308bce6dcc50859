"""TOML files read with the places of their keys, for errors that name the line and column of a value.

Every TOML file thermocomp reads (a scene or mesh map, a time law, the servo models) is read here:
:func:`load_toml` gives its values and a :class:`TomlPlaces` of it. ``tomllib`` locates a syntax
error (line and column) but returns values without positions, so a value of the wrong type, out of range
or a missing key was named by the file alone; :class:`TomlPlaces` finds where a key's value is by a
light scan of the text.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from thermocomp.errors import InputError


def _tomllib():
    """``tomllib``, imported when a file is read."""
    import tomllib

    return tomllib


def load_toml(text: str, src: str, what: str = "not valid TOML") -> tuple[dict[str, Any], TomlPlaces]:
    """The values of the TOML ``text`` (the file ``src``) and the places of its keys.

    Raises
    ------
    InputError
        ``"{what}: {tomllib's message}"`` at the line and column of a syntax error; arrays or tables
        nested too deeply for ``tomllib`` (which reads them recursively).
    """
    tomllib = _tomllib()
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        where = re.search(r"line (\d+), column (\d+)", str(exc))
        raise InputError(f"{what}: {exc}", path=src, row=int(where[1]) if where else None,
                         column=int(where[2]) if where else None) from None
    except RecursionError:
        raise InputError("not valid TOML: arrays or tables nested too deeply to read (a file of values nests some "
                         "levels, not hundreds)", path=src) from None
    return data, TomlPlaces(text)


class TomlPlaces:
    """Lines of table headers and keys in a TOML text, and the column each key's value starts at.

    The ``k``-th ``[header]`` or ``[[header]]`` line, then the ``key =`` lines below it up to the next
    header. Lines inside a multi-line array, inline table or string are skipped (``  [3, 4]]`` ending a
    matrix is no header). A dotted key (``a.b = 1``) or a key of an inline table is not found: its
    table's header line stands for it. The text is scanned on the first question (a file read without
    an error is not scanned).
    """

    _HEADER = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
    _KEY = re.compile(r"""^\s*(["']?)([A-Za-z0-9_.-]+)\1\s*=\s*""")
    #: What opens or closes a value over lines: brackets, and strings (whose brackets do not count).
    _TOKEN = re.compile(r'"""|\'\'\'|"(?:[^"\\]|\\.)*"|\'[^\']*\'|#|[\[\]{}]')

    def __init__(self, text: str) -> None:
        self._text = text

    @functools.cached_property
    def _scan(self) -> tuple[list[tuple[str, int]], list[tuple[str, int, int, int]]]:
        headers: list[tuple[str, int]] = []  # (dotted name, line)
        keys: list[tuple[str, int, int, int]] = []  # (key, line, value's column, index of its header, -1 at top)
        depth, open_string = 0, None
        for number, line in enumerate(self._text.split("\n"), start=1):  # (TOML's line ends, not splitlines')
            start = 0
            if depth == 0 and open_string is None:
                m = self._HEADER.match(line)
                if m:
                    headers.append((m.group(1).replace(" ", ""), number))
                    continue
                k = self._KEY.match(line)
                if k:
                    keys.append((k.group(2), number, k.end() + 1, len(headers) - 1))
                    start = k.end()
            depth, open_string = self._carry(line, start, depth, open_string)
        return headers, keys

    def _carry(self, line: str, start: int, depth: int, open_string: str | None) -> tuple[int, str | None]:
        """The bracket depth and the open multi-line string after ``line`` (from ``start``)."""
        at = start
        while at < len(line):
            if open_string is not None:
                end = line.find(open_string, at)
                if end < 0:
                    return depth, open_string
                at, open_string = end + 3, None
                continue
            token = self._TOKEN.search(line, at)
            if token is None or token.group() == "#":
                break
            text = token.group()
            if text in ('"""', "'''"):
                open_string = text
            elif text in "[{":
                depth += 1
            elif text in "]}":
                depth = max(depth - 1, 0)
            at = token.end()
        return depth, open_string

    def table(self, name: str, occurrence: int = 0) -> tuple[int, int | None]:
        """(header index, line) of the ``occurrence``-th ``[name]`` / ``[[name]]``; (-2, None) if absent."""
        seen = 0
        for index, (header, line) in enumerate(self._scan[0]):
            if header == name:
                if seen == occurrence:
                    return index, line
                seen += 1
        return -2, None

    def place(self, table: str | None, key: str, occurrence: int = 0) -> tuple[int | None, int | None]:
        """(line, column of the value) of ``key`` under the ``occurrence``-th ``[table]`` (``None``: the top
        level); a key not found (missing, dotted, in an inline table): its table's header line, no column (at
        the top level: neither)."""
        index, header_line = (-1, None) if table is None else self.table(table, occurrence)
        for name, line, column, under in self._scan[1]:
            if under == index and name == key:
                return line, column
        return header_line, None

    def key(self, table: str | None, key: str, occurrence: int = 0) -> int | None:
        """Line of ``key`` (:meth:`place`)."""
        return self.place(table, key, occurrence)[0]

    def error(self, message: str, src: str, key: str, table: str | None = None, occurrence: int = 0) -> InputError:
        """An :class:`InputError` of ``src`` at ``key``'s value (:meth:`place`)."""
        row, column = self.place(table, key, occurrence)
        return InputError(message, path=src, row=row, column=column)


__all__ = ["TomlPlaces", "load_toml"]
