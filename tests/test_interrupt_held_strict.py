"""A termination signal that lands between a temporary file's creation and its recording for removal.

The slow test ``test_interrupted_run_leaves_no_output`` signals the run the moment its first ``.tc-`` file appears:
on an idle machine the interrupt sometimes landed inside :func:`thermocomp.io.job.temporary_beside`, after
``mkstemp`` made the file and before the job recorded it, and the run ended "interrupted" (exit 130) with the file
left beside its outputs. Here the signal is sent at exactly that point, every time.
"""

from __future__ import annotations

import os
import signal
import tempfile

import pytest

from thermocomp._signals import held, interrupt_on_termination
from thermocomp.io import job as job_module
from thermocomp.io.job import TEMPORARY_PREFIX, Job


def test_a_signal_inside_held_is_raised_as_it_ends():
    steps = []
    with pytest.raises(KeyboardInterrupt, match="terminated by SIGTERM"), interrupt_on_termination():
        with held():
            os.kill(os.getpid(), signal.SIGTERM)
            steps.extend(range(1000))  # (bytecodes: a handler that raised would have stopped here)
            steps.append("done")
        steps.append("after")  # pragma: no cover (not reached)
    assert steps[-1] == "done"


def test_an_interrupt_right_after_a_temporary_is_made_leaves_no_file(tmp_path, monkeypatch):
    made = tempfile.mkstemp

    def mkstemp_then_signal(*args, **kwargs):
        fd_name = made(*args, **kwargs)
        os.kill(os.getpid(), signal.SIGTERM)  # Python runs the handler at the next bytecode: still inside
        return fd_name

    monkeypatch.setattr(job_module.tempfile, "mkstemp", mkstemp_then_signal)
    out = tmp_path / "out.csv"
    with pytest.raises(KeyboardInterrupt), interrupt_on_termination(), Job() as job:
        job.output(out, "--out")
        job.check()
        with job.open(out) as handle:
            handle.write("never\n")  # pragma: no cover
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(TEMPORARY_PREFIX)]
    assert not out.exists()
