"""The command line's progress bar (cli/progress.py): it moves at least once a second in every open phase.

A phase can run a long time without reporting rows (a first run compiling the solver's kernels, a long
file being parsed): the bar's own heartbeat redraws its elapsed time meanwhile, and stops with the run.
"""

from __future__ import annotations

import io
import re
import signal
import threading
import time

import pytest

import thermocomp.cli.progress as progress_module
from thermocomp import _signals
from thermocomp.cli.progress import ProgressBar, stop_all


def _elapsed(text: str) -> list[float]:
    return [float(x) for x in re.findall(r"([\d.]+) s elapsed", text)]


def test_a_silent_phase_is_redrawn_with_its_elapsed_time_until_it_reports(monkeypatch):
    monkeypatch.setattr(progress_module, "HEARTBEAT_SECONDS", 0.1)
    stream = io.StringIO()
    bar = ProgressBar("compensating", stream=stream)
    bar.phase("reading", None)
    time.sleep(0.65)
    shown = _elapsed(stream.getvalue())
    assert len(shown) >= 3 and shown == sorted(shown) and shown[-1] >= 0.3  # moving, nothing reported
    assert stream.getvalue().startswith("\rreading: 0 rows")
    bar(10, 10)  # the phase ends: the line is finished, the heartbeat stops
    text = stream.getvalue()
    assert "10/10 rows" in text.rsplit("\r", 1)[1] and text.endswith("\n")
    time.sleep(0.35)
    assert stream.getvalue() == text


def test_stop_all_ends_every_open_bar_before_the_run_s_last_words(monkeypatch):
    monkeypatch.setattr(progress_module, "HEARTBEAT_SECONDS", 0.1)
    stream = io.StringIO()
    bar = ProgressBar("compensating", stream=stream)
    bar.phase("solving", 1000)
    bar(10, 1000)
    time.sleep(0.3)
    stop_all()
    text = stream.getvalue()
    assert text.endswith("\n") and "compensating [" in text
    time.sleep(0.35)
    assert stream.getvalue() == text  # nothing drawn after the end


def test_a_disabled_bar_draws_nothing_and_starts_no_thread(monkeypatch):
    monkeypatch.setattr(progress_module, "HEARTBEAT_SECONDS", 0.05)
    stream = io.StringIO()
    bar = ProgressBar("compensating", stream=stream, enabled=False)
    bar.phase("reading", None)
    bar(5, 10)
    time.sleep(0.2)
    assert stream.getvalue() == "" and bar._beat is None


def test_a_signal_whose_interrupt_was_lost_ends_the_work_at_its_next_progress_step(monkeypatch):
    """A termination signal landing where Python swallows its KeyboardInterrupt (a __del__, a C callback) is only
    recorded; a 2000-minute sim then ran on for minutes before its commit refused. Every progress step, shown or
    not, raises the recorded interrupt on the main thread; a worker thread's step leaves it to the main thread."""
    for enabled in (True, False):
        bar = ProgressBar("compensating", stream=io.StringIO(), enabled=enabled)
        bar.phase("solving", 100)
        bar(10, 100)
        monkeypatch.setattr(_signals, "_TERMINATED", [signal.SIGTERM])
        raised = []
        worker = threading.Thread(target=lambda: raised.append(bar(20, 100)))  # noqa: B023
        worker.start()
        worker.join()
        assert raised == [None]
        with pytest.raises(KeyboardInterrupt, match="SIGTERM"):
            bar(30, 100)
        monkeypatch.setattr(_signals, "_TERMINATED", [])
        bar(100, 100)
        bar.stop()
