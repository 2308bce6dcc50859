"""The ``thermocomp`` console script and ``python -m thermocomp``: signals first, then the command line.

Imported by nothing else: the first thing it does, before the command line's modules load, is to make
SIGINT, SIGTERM and SIGHUP end the process with exit status 130 and one line
(:func:`thermocomp._signals.exit_on_signals_until_started`), so a Ctrl-C in the first tens of milliseconds of a
run is not a Python traceback. What Python runs before this module (its own start and ``site``) is outside
any program's reach.
"""

from thermocomp._signals import exit_on_signals_until_started

exit_on_signals_until_started()


def run() -> None:
    """Console-script entry point: :func:`thermocomp.cli.main.run`."""
    from thermocomp.cli.main import run as run_command_line

    run_command_line()
