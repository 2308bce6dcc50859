"""``python -m thermocomp``: the command line."""

from thermocomp._console import run

run()
