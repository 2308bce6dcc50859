"""``python -m thermocomp``: the command line."""

from thermocomp.cli.main import run

run()
