"""A text progress bar for long runs, drawn on a stream (stderr by default)."""

from __future__ import annotations

import sys
import time
from typing import TextIO

#: Seconds between two redraws of the bar (it moves at least once a second while rows are reported).
REDRAW_SECONDS = 0.2


class ProgressBar:
    """Callable ``(done, total)`` that redraws one line at most every :data:`REDRAW_SECONDS`.

    The line shows rows done, rows per second and the time left. A run with
    phases (:func:`thermocomp.compensation.compensate.announce_phase`) calls
    :meth:`phase` as each starts: the bar then restarts with the phase's name.

    Parameters
    ----------
    label
        Text before the bar (the label of the main phase, solving).
    stream
        Where to draw; nothing is drawn when ``enabled`` is False.
    """

    def __init__(self, label: str, stream: TextIO | None = None, enabled: bool = True) -> None:
        self.label = label
        self.main_label = label
        self.stream = sys.stderr if stream is None else stream
        self.enabled = enabled
        self._start = time.perf_counter()
        self._last = 0.0
        self._open = False  # a line is drawn and not yet ended

    def phase(self, name: str, total: int | None) -> None:
        """A new phase starts (``total`` rows, or None if not known yet): end the line, restart the clock."""
        self._end_line()
        self.label = self.main_label if name == "solving" else name
        self._start = time.perf_counter()
        self._last = 0.0

    def _end_line(self) -> None:
        if self._open and self.enabled:
            self.stream.write("\n")
            self.stream.flush()
        self._open = False

    def __call__(self, done: int, total: int | None) -> None:
        if not self.enabled:
            return
        now = time.perf_counter()
        finished = total is not None and done >= total
        if not finished and now - self._last < REDRAW_SECONDS:
            return
        self._last = now
        elapsed = now - self._start
        rate = done / elapsed if elapsed > 0 else float("nan")
        if total:
            share = done / total
            width = 30
            filled = int(round(share * width))
            left = (total - done) / rate if rate > 0 else float("nan")
            text = (f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] {done:,}/{total:,} rows, "
                    f"{rate:,.0f} rows/s, {elapsed:5.1f} s elapsed, {left:5.1f} s left")
        else:
            text = f"\r{self.label}: {done:,} rows, {rate:,.0f} rows/s, {elapsed:5.1f} s elapsed"
        self.stream.write(text)
        self._open = True
        if finished:
            self._end_line()
        self.stream.flush()
