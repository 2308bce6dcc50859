"""The ``thermocomp`` command line: each subcommand is one library call.

``main(argv=None) -> int`` returns the exit status: 0 success, 1 bad input
or option value, 2 rows that could not be compensated (or collisions found),
64 an option the parser refused (raised as ``SystemExit(64)``), 130
interrupted (Ctrl-C, SIGTERM, SIGHUP, SIGQUIT). Each subcommand lives in its own
module with ``register(subparsers)``, which sets ``handler``; :data:`COMMANDS`
lists them. Commands declare their files in a
:class:`~thermocomp.io.job.Job` (docs/jobs.md).
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import signal
import sys
from collections.abc import Sequence

# Standard library only up to main(): the signal handlers are in place before numpy, numba and the commands load.
from thermocomp._signals import TERMINATION_SIGNALS, interrupt_on_termination, terminated, termination_text
from thermocomp.cli.exit_status import EXIT_FAILED_ROWS, EXIT_INPUT, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE
from thermocomp.cli.progress import stop_all
from thermocomp.errors import ConfigurationError, ThermocompError, capped

#: The subcommands and their modules, in the order ``--help`` lists them. A run imports only its command's
#: module (and the library it needs); ``thermocomp --help`` imports none (:data:`SUMMARIES`).
COMMANDS = {
    "compensate": "thermocomp.cli.compensate",
    "robot": "thermocomp.cli.robot",
    "inertia": "thermocomp.cli.inertia",
    "excite": "thermocomp.cli.excite",
    "simulate-recording": "thermocomp.cli.simulate_recording",
    "identify": "thermocomp.cli.identify",
    "feedforward": "thermocomp.cli.feedforward",
    "collisions": "thermocomp.cli.collisions",
    "coppeliasim": "thermocomp.cli.coppeliasim",
    "sim": "thermocomp.cli.sim",
    "calibrate": "thermocomp.cli.calibrate",
    "track": "thermocomp.cli.track",
    "servo": "thermocomp.cli.servo",
}

#: Each command's line in ``thermocomp --help``: the one place it is written (a command's module adds its parser
#: without it; :class:`_Subcommands` gives it). A command missing here is imported for ``--help``.
SUMMARIES = {
    "compensate": "corrected joint angles for every target and minute of a program",
    "robot": "show or export a robot model",
    "inertia": "link masses, centres of mass and inertias from meshes (seed 000, Step 1)",
    "excite": "design an excitation trajectory for dynamic identification (seed 003)",
    "simulate-recording": "record joint torques of a trajectory on a simulated robot with known truth",
    "identify": "identify link inertials and joint friction from recorded torques (seeds 001, 003)",
    "feedforward": "feed-forward joint torques of a trajectory with an identified model",
    "collisions": "flag collisions by the torque error of an identified model (seed 003)",
    "coppeliasim": "work with a running CoppeliaSim (ZMQ remote API) and its add-on",
    "sim": "the deformed robot in PyBullet: GUI, headless measurement, picture, collision check",
    "calibrate": "identify a deformation table (and its time law) from laser-tracker measurements",
    "track": "simulated laser tracker (PyBullet): measure the warm robot for calibrate, or a compensated program",
    "servo": "velocity-servo robot (seed 004): identification program, subspace identification, MPC tracking",
}

__all__ = ["COMMANDS", "EXIT_FAILED_ROWS", "EXIT_INPUT", "EXIT_INTERRUPTED", "EXIT_OK", "EXIT_USAGE", "SUMMARIES",
           "build_parser", "main", "run"]


class _Subcommands(argparse._SubParsersAction):
    """The subcommands' action: a command's parser gets its line of :data:`SUMMARIES` as its help."""

    def add_parser(self, name: str, **kwargs) -> argparse.ArgumentParser:
        if name in SUMMARIES:
            kwargs.setdefault("help", SUMMARIES[name])
        return super().add_parser(name, **kwargs)


def build_parser(command: str | None = None, *, overview: bool = False) -> argparse.ArgumentParser:
    """The command line's parser: with every subcommand, or with ``command``'s alone when it is one of
    :data:`COMMANDS` (a run then does not import the other commands' libraries: SciPy's signal processing,
    the simulators, about 2 s of CPU).

    ``overview=True`` (what ``thermocomp --help`` and a name that is not a command get): every command by its
    name and line of :data:`SUMMARIES` only, no command's module imported, no option of theirs built.
    """
    from thermocomp.cli.parser import ArgumentParser  # standard library only

    parser = ArgumentParser(
        prog="thermocomp",
        description="Thermal-deformation compensation of industrial robots (seed 002 method).",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", action=_Subcommands)
    for name, module in COMMANDS.items():
        if command in COMMANDS and command != name:
            continue
        if overview and command not in COMMANDS and name in SUMMARIES:
            sub.add_parser(name)
        else:
            importlib.import_module(module).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with ``argv`` (default ``sys.argv[1:]``); return the exit status."""
    try:
        # SIGTERM, SIGHUP and SIGQUIT end a run as Ctrl-C does: every temporary removed, a scene restored. Entered
        # before the commands are imported (the first second of a run), so a signal then ends it the same way.
        with interrupt_on_termination():
            try:
                argv = sys.argv[1:] if argv is None else list(argv)
                args = build_parser(argv[0] if argv else None, overview=True).parse_args(argv)
                return args.handler(args)
            except Exception:
                # a signal's interrupt raised inside an import or a class body comes out wrapped (numpy's
                # ImportError "PyCapsule_Import could not import module datetime", a RuntimeError of
                # __set_name__): after a recorded signal, whatever ended the run is the interruption
                if terminated():
                    raise KeyboardInterrupt(termination_text()) from None
                raise
            finally:
                stop_all()  # the progress lines end before the run's last words
    except (ThermocompError, ConfigurationError) as exc:
        from thermocomp.cli.option_ranges import named_as_typed

        # the option as typed, not the library's field ('duration' for --duration-s); no 309-digit number whole
        text = named_as_typed(str(exc)) if isinstance(exc, ConfigurationError) else str(exc)  # (a file's: its path)
        print(f"thermocomp: error: {capped(text)}", file=sys.stderr)
        return EXIT_INPUT
    except KeyboardInterrupt as exc:
        why = f" ({exc})" if str(exc) else ""
        print(f"\nthermocomp: interrupted{why}; no output was written", file=sys.stderr)
        return EXIT_INTERRUPTED
    except MemoryError:  # past every stated bound (docs/jobs.md), what is left is this machine's size
        print("thermocomp: error: out of memory: the inputs need more memory than this machine has; no output was "
              "written (docs/jobs.md lists each input's size bound)", file=sys.stderr)
        return EXIT_INPUT
    except OSError as exc:  # the operating system refused a file a reader or writer did not name itself
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"thermocomp: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return EXIT_INPUT


def run() -> None:
    """Console-script entry point."""
    # A run's start-up makes some 120,000 objects that live as long as the process (the modules, numba's
    # registries): at Python's default threshold (a collection every 700 new objects) the collector ran 265
    # times in the README's demo, twice over every object, 0.08 s in all; every 2000, about 100 times and never over
    # all, 0.03 s (docs/speed.md).
    gc.set_threshold(2000, *gc.get_threshold()[1:])
    status = main()
    # The outcome is decided and every output is in place: a signal while the interpreter exits (numba,
    # PyBullet and their threads take up to a second) ended the process "killed by SIGTERM" with every output
    # written (found by the issue 9 follow-up adversarial run). From here on the signals are ignored.
    for name in ("SIGINT", *TERMINATION_SIGNALS):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_IGN)
    if status == EXIT_INTERRUPTED:
        # The interrupt may have landed inside native code (numba's compiler, llvmlite, OpenMP threads) and left
        # its objects half built; finalizing them as Python exits once crashed the process with SIGSEGV after
        # "interrupted" was printed (exit -11, not 130; a CI run). Every temporary is already removed and every
        # earlier output restored: the process ends here, without finalizers (such an object collected before
        # that is not printed either: thermocomp._signals).
        _flush_standard_streams()
        os._exit(status)
    # As Python exits it collects garbage among every object still alive, some 120,000 after a compiled run
    # (numba and its registries): 0.1-0.15 s of the README's demo of 0.8 s (docs/speed.md). Every output is
    # written and closed by now, so the collector is told to leave those objects alone (gc.freeze); the modules
    # are still torn down, and the standard streams flushed, as ever.
    gc.freeze()
    sys.exit(status)


def _flush_standard_streams() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):  # closed, a broken pipe, or None (no console)
            pass


if __name__ == "__main__":
    run()
