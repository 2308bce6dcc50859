"""A text progress bar for long runs, drawn on a stream (stderr by default)."""

from __future__ import annotations

import sys
import threading
import time
import weakref
from typing import TextIO

from thermocomp._signals import raise_if_terminated

#: Seconds between two redraws of the bar (it moves at least once a second while rows are reported).
REDRAW_SECONDS = 0.2
#: A phase with nothing reported for this long is redrawn anyway (its elapsed time moves): a first run
#: compiling the solver's kernels, a long file being read.
HEARTBEAT_SECONDS = 1.0

#: Every bar with a phase open, so the command line can stop them all when a run ends (:func:`stop_all`).
_OPEN: weakref.WeakSet[ProgressBar] = weakref.WeakSet()


class ProgressBar:
    """Callable ``(done, total)`` that redraws one line at most every :data:`REDRAW_SECONDS`.

    The line shows rows done, rows per second and the time left. A run with
    phases (:func:`thermocomp.compensation.compensate.announce_phase`) calls
    :meth:`phase` as each starts: the bar then restarts with the phase's name.
    While a phase is open and nothing is reported for
    :data:`HEARTBEAT_SECONDS`, a thread redraws the line, so its elapsed time
    moves at least once a second whatever the work is doing.

    Parameters
    ----------
    label
        Text before the bar (the label of the main phase, solving).
    stream
        Where to draw; nothing is drawn when ``enabled`` is False.
    unit
        What is counted ("rows" of a compensation, "samples" of a servo simulation).
    """

    def __init__(self, label: str, stream: TextIO | None = None, enabled: bool = True, unit: str = "rows") -> None:
        self.label = label
        self.unit = unit
        self.main_label = label
        self.main_unit = unit
        self.stream = sys.stderr if stream is None else stream
        self.enabled = enabled
        self._start = time.perf_counter()
        self._last = 0.0
        self._open = False  # a line is drawn and not yet ended
        self._state: tuple[int, int | None] | None = None  # the open phase's last (done, total)
        self._lock = threading.Lock()
        self._beat: threading.Thread | None = None

    def phase(self, name: str, total: int | None, unit: str | None = None) -> None:
        """A new phase starts (``total`` rows, or None if not known yet; counted in ``unit``, default the bar's):
        end the line, restart the clock."""
        with self._lock:
            self._end_line()
            self.label = self.main_label if name == "solving" else name
            self.unit = self.main_unit if unit is None else unit
            self._start = time.perf_counter()
            self._last = 0.0
            self._opened((0, total))

    def stop(self) -> None:
        """The run ended (or failed): end the line and draw no more."""
        with self._lock:
            self._state = None
            self._end_line()

    def _opened(self, state: tuple[int, int | None]) -> None:
        if not self.enabled:
            return
        self._state = state
        _OPEN.add(self)
        if self._beat is None or not self._beat.is_alive():
            self._beat = threading.Thread(target=self._heartbeat, name="progress", daemon=True)
            self._beat.start()

    def _heartbeat(self) -> None:
        while True:
            time.sleep(HEARTBEAT_SECONDS / 4)
            with self._lock:
                if self._state is None:
                    return
                if time.perf_counter() - max(self._last, self._start) >= HEARTBEAT_SECONDS:
                    try:
                        self._draw(*self._state)
                    except (ValueError, OSError):  # the stream was closed under the run: draw no more
                        self._state = None
                        return

    def note(self, text: str) -> None:
        """Print ``text`` on a line of its own (the bar, if drawn, goes on below it); always printed."""
        with self._lock:
            self._end_line()
            print(text, file=self.stream, flush=True)

    def _end_line(self) -> None:
        if self._open and self.enabled:
            self.stream.write("\n")
            self.stream.flush()
        self._open = False

    def __call__(self, done: int, total: int | None) -> None:
        if threading.current_thread() is threading.main_thread():  # a worker's step leaves it to the main thread
            raise_if_terminated()
        if not self.enabled:
            return
        with self._lock:
            now = time.perf_counter()
            finished = total is not None and done >= total
            if finished:
                self._state = None
            else:
                self._opened((done, total))
            if not finished and now - self._last < REDRAW_SECONDS:
                return
            self._draw(done, total)
            if finished:
                self._end_line()

    def _draw(self, done: int, total: int | None) -> None:
        now = time.perf_counter()
        self._last = now
        elapsed = now - self._start
        rate = done / elapsed if elapsed > 0 else float("nan")
        if total:
            share = done / total
            width = 30
            filled = int(round(share * width))
            left = (total - done) / rate if rate > 0 else float("nan")
            text = (f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] {done:,}/{total:,} {self.unit}, "
                    f"{rate:,.0f} {self.unit}/s, {elapsed:5.1f} s elapsed, {left:5.1f} s left")
        else:
            text = f"\r{self.label}: {done:,} {self.unit}, {rate:,.0f} {self.unit}/s, {elapsed:5.1f} s elapsed"
        self.stream.write(text)
        self._open = True
        self.stream.flush()


def stop_all() -> None:
    """Stop every bar with a phase open (the command line calls it as a run ends, however it ends)."""
    for bar in list(_OPEN):
        bar.stop()


__all__ = ["HEARTBEAT_SECONDS", "REDRAW_SECONDS", "ProgressBar", "stop_all"]
