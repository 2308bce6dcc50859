"""Exceptions of thermocomp.

Every error raised on user input says what was expected and what came, and
where it came from (file, row, column) when there is a file.
"""

from __future__ import annotations

from dataclasses import dataclass


class ThermocompError(Exception):
    """Base class of every error thermocomp raises on purpose."""


@dataclass
class InputError(ThermocompError):
    """Invalid user input, located as precisely as possible.

    Parameters
    ----------
    message
        What was expected and what came.
    path
        The file the input came from, if any.
    row
        1-based line number in the file (the header is line 1), if known.
    column
        Column name (a CSV header cell, shown quoted) or 1-based character
        column (an int, as in a program's text), if known.
    """

    message: str
    path: str | None = None
    row: int | None = None
    column: str | int | None = None

    def __post_init__(self) -> None:
        super().__init__(str(self))

    def __str__(self) -> str:
        where = []
        if self.path is not None:
            where.append(str(self.path))
        if self.row is not None:
            where.append(f"line {self.row}")
        if self.column is not None:
            where.append(f"column {self.column}" if isinstance(self.column, int) else f"column {self.column!r}")
        prefix = ", ".join(where)
        return f"{prefix}: {self.message}" if prefix else self.message


#: Longest run of digits a message echoes whole: a value typed or read with more (a 309-digit integer) is shown
#: by its first digits and its length.
MAX_ECHOED_DIGITS = 40


def capped(text: str) -> str:
    """``text`` with every run of more than :data:`MAX_ECHOED_DIGITS` digits (or hexadecimal digits after ``0x``) cut
    (``12345... (309 digits)``) and every control character but the line break and the tab escaped (``\\x00``,
    ``\\x1b``: a NUL or a terminal's escape sequence read from a file is shown, not sent to the terminal)."""
    import re

    text = re.sub(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", lambda m: f"\\x{ord(m.group()):02x}", text)
    text = re.sub(rf"(?<=0[xX])[0-9A-Fa-f]{{{MAX_ECHOED_DIGITS + 1},}}",  # (a hexadecimal literal's)
                  lambda m: f"{m.group()[:20]}... ({len(m.group())} hexadecimal digits)", text)
    return re.sub(rf"\d{{{MAX_ECHOED_DIGITS + 1},}}",
                  lambda m: f"{m.group()[:20]}... ({len(m.group())} digits)", text)


class ConfigurationError(ThermocompError):
    """An option or argument outside its documented range."""
