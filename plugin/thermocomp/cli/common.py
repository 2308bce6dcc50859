"""What every subcommand shares: exit statuses and the help formatter."""

from __future__ import annotations

import argparse

EXIT_OK, EXIT_INPUT, EXIT_FAILED_ROWS, EXIT_INTERRUPTED = 0, 1, 2, 130


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
