"""Exit statuses of every command (README, "Exit status"); standard library only, read before anything heavy.

EXIT_FAILED_ROWS: rows that could not be compensated, or collisions flagged
by ``sim --collisions``; EXIT_USAGE: an option the parser refused (sysexits'
EX_USAGE; argparse's own 2 would read as EXIT_FAILED_ROWS).
"""

EXIT_OK, EXIT_INPUT, EXIT_FAILED_ROWS, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 64, 130

__all__ = ["EXIT_FAILED_ROWS", "EXIT_INPUT", "EXIT_INTERRUPTED", "EXIT_OK", "EXIT_USAGE"]
