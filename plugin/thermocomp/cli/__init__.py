"""The ``thermocomp`` command line."""

from thermocomp.cli.main import build_parser, main

__all__ = ["build_parser", "main"]
