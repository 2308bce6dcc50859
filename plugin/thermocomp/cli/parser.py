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
        from thermocomp.errors import capped

        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {capped(message)}\n")  # (no 309-digit number echoed whole)

    def parse_known_args(self, args=None, namespace=None):  # type: ignore[override]
        from thermocomp.cli.option_ranges import TYPED, remember_options

        if " " not in self.prog:
            TYPED.clear()  # a new command line: only its own command's options
        _check_ranges(self)  # each numeric option checked against its range (cli/option_ranges.py), as typed
        remember_options(self._actions)  # so that a library's error names the option as typed (cli.main)
        self._check_given_once(sys.argv[1:] if args is None else list(args))
        return super().parse_known_args(args, namespace)

    def _check_given_once(self, args: list[str]) -> None:
        """Refuse an option of one value given twice (``--out a.mod --out b.mod``, ``--program p/b.mod --program
        q/b.mod``): argparse kept the last silently, so a program given first was never compensated."""
        seen: set[str] = set()
        for text in args:
            if text == "--":
                break
            action = self._option_string_actions.get(text.split("=", 1)[0]) if text.startswith("-") else None
            if type(action) is argparse._StoreAction:
                if action.dest in seen:
                    self.error(f"argument {text.split('=', 1)[0]}: given twice (only the last would count); give it "
                               "once" + (", with every value after it" if action.nargs in ("+", "*") else ""))
                seen.add(action.dest)


def _check_ranges(parser: argparse.ArgumentParser) -> None:
    """Wrap the type of each of ``parser``'s numeric options (once) to refuse a value out of its range."""
    from thermocomp.cli.option_ranges import range_of, unit_of

    command = parser.prog.split(" ", 1)[1] if " " in parser.prog else ""
    for action in parser._actions:
        if action.option_strings and action.type is not None and not isinstance(action.type, _InRange):
            bounds = range_of(command, action.option_strings)
            if bounds is not None:
                action.type = _InRange(parser._registry_get("type", action.type, action.type), bounds,
                                       unit_of(action.option_strings[-1]), getattr(action.type, "__name__", "number"))


class _InRange:
    """An option's type, then its range: an ``ArgumentTypeError`` (argparse names the option) when out of it."""

    def __init__(self, convert, bounds, unit: str, name: str) -> None:
        self.convert, self.bounds, self.unit = convert, bounds, unit
        self.__name__ = name  # argparse's "invalid float value: 'nan'" for what is no number at all

    def __call__(self, text: str):
        from thermocomp.cli.option_ranges import numbers_in

        value = self.convert(text)
        if not all(self.bounds.holds(v) for v in numbers_in(value)):  # (bounds read here: some are the library's)
            raise argparse.ArgumentTypeError(f"expected {self.bounds.text()}{f' {self.unit}' if self.unit else ''}, "
                                             f"got {text}")
        return value


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
