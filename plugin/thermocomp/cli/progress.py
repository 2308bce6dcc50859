"""A text progress bar for long runs, drawn on a stream (stderr by default)."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class ProgressBar:
    """Callable ``(done, total)`` that redraws one line at most every 0.2 s.

    Parameters
    ----------
    label
        Text before the bar.
    stream
        Where to draw; nothing is drawn when ``enabled`` is False.
    """

    def __init__(self, label: str, stream: TextIO | None = None, enabled: bool = True) -> None:
        self.label = label
        self.stream = sys.stderr if stream is None else stream
        self.enabled = enabled
        self._start = time.perf_counter()
        self._last = 0.0

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        now = time.perf_counter()
        if done < total and now - self._last < 0.2:
            return
        self._last = now
        share = done / total if total else 1.0
        width = 30
        filled = int(round(share * width))
        elapsed = now - self._start
        eta = elapsed / share - elapsed if share > 0 else float("nan")
        self.stream.write(
            f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] {done:,}/{total:,} rows"
            f" {elapsed:5.1f} s elapsed, {eta:5.1f} s left"
        )
        if done >= total:
            self.stream.write("\n")
        self.stream.flush()
