"""Exit statuses shared by every subcommand."""

EXIT_OK, EXIT_INPUT, EXIT_FAILED_ROWS, EXIT_INTERRUPTED = 0, 1, 2, 130
