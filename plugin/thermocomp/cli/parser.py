"""The parser classes of the command line, standard library only: ``thermocomp --help`` needs no more.

:class:`ArgumentParser` (usage errors exit with :data:`~thermocomp.cli.exit_status.EXIT_USAGE`, plain ASCII
numbers), :class:`HelpFormatter` and :func:`seed_arg`. What a command's options share beyond these, with the
library's defaults, is :mod:`thermocomp.cli.common`.
"""

from __future__ import annotations

import argparse
import math
import sys
from typing import NoReturn

from thermocomp.cli.exit_status import EXIT_USAGE


def plain_number(text: str, kind: type) -> float | int:
    """``kind(text)`` for ASCII text without ``_`` (``6_41`` and other scripts' digits are typing errors).

    Floats must be finite: no option of a command means "not a number" or "infinitely many".
    """
    from thermocomp.io.csvtext import number_text

    if not number_text(text):
        raise ValueError(text)
    value = kind(text)
    if kind is float and not math.isfinite(value):
        raise ValueError(text)
    return value


def seed_arg(text: str) -> int:
    """A random seed: a plain non-negative integer (numpy's generators take no other)."""
    value = plain_number(text, int)
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a seed >= 0, got {text}")
    return int(value)


class ArgumentParser(argparse.ArgumentParser):
    """``argparse.ArgumentParser`` whose usage errors exit with :data:`EXIT_USAGE` (subparsers inherit it).

    Options of ``type=float`` and ``type=int`` read plain ASCII numbers only
    (no ``6_41``, no digits of other scripts), as the file readers do.
    """

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.register("type", float, lambda text: plain_number(text, float))
        self.register("type", int, lambda text: plain_number(text, int))

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Append ``(default: ...)`` only where it says something.

    Not for required options, for defaults of ``None``, ``False`` or an empty
    list (flags and unset options), nor where the help text already names its
    default in words.
    """

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if action.required or action.default in (None, False, [], argparse.SUPPRESS) or "default" in text:
            return text
        return super()._get_help_string(action)
