"""The ``thermocomp`` command line: each subcommand is one library call.

``main(argv=None) -> int`` returns the exit status: 0 success, 1 bad input
or option, 2 rows that could not be compensated, 130 interrupted. Each
subcommand lives in its own module with ``register(subparsers)``, which sets
``handler``; :data:`COMMANDS` lists them.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from thermocomp.cli.common import EXIT_FAILED_ROWS, EXIT_INPUT, EXIT_INTERRUPTED, EXIT_OK
from thermocomp.errors import ConfigurationError, ThermocompError

#: Modules of the subcommands, in the order ``--help`` lists them.
COMMANDS = (
    "thermocomp.cli.compensate",
    "thermocomp.cli.robot",
    "thermocomp.cli.inertia",
    "thermocomp.cli.coppeliasim",
    "thermocomp.cli.sim",
    "thermocomp.cli.calibrate",
    "thermocomp.cli.track",
)

__all__ = ["EXIT_FAILED_ROWS", "EXIT_INPUT", "EXIT_INTERRUPTED", "EXIT_OK", "build_parser", "main", "run"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="thermocomp",
        description="Thermal-deformation compensation of industrial robots (seed 002 method).",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in COMMANDS:
        importlib.import_module(module).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with ``argv`` (default ``sys.argv[1:]``); return the exit status."""
    args = build_parser().parse_args(argv)
    try:
        return args.handler(args)
    except (ThermocompError, ConfigurationError) as exc:
        print(f"thermocomp: error: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except KeyboardInterrupt:
        print("\nthermocomp: interrupted; no output was written", file=sys.stderr)
        return EXIT_INTERRUPTED


def run() -> None:
    """Console-script entry point."""
    sys.exit(main())


if __name__ == "__main__":
    run()
