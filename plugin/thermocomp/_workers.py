"""Worker processes that end with the process that started them (a batch's ``--jobs N``).

A batch killed hard (SIGKILL, as the out-of-memory killer does) cannot stop its
workers: without this they ran on without a parent, some 300 MB each, and kept
multiprocessing's resource tracker alive with them (issue 38). Standard library only.

:func:`end_with_parent` is the pool's initializer: on Linux the kernel sends the
worker SIGKILL when its parent ends (``prctl(PR_SET_PDEATHSIG)``); elsewhere a
thread watches the parent's process id. SIGKILL, not SIGTERM: a worker in a task
turns SIGTERM into Ctrl-C (its job's cleanup), hands the interrupt back to a parent
that is gone, and then waits for the next task for ever (it holds both ends of
the pool's call queue, so the read never ends). Whatever the batch and its
workers had staged carries the batch's process id
(:func:`owner_pid`) and is removed by the next run that writes
in that folder (:func:`thermocomp.io.job.remove_stale_temporaries`).
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time

#: ``PR_SET_PDEATHSIG`` of ``<linux/prctl.h>``.
_PR_SET_PDEATHSIG = 1
#: Seconds between two looks at the parent's process id where the kernel cannot be asked to tell.
WATCH_PERIOD_S = 0.5


#: The process a worker works for (:func:`end_with_parent`); empty in any other process.
_OWNER: list[int] = []


def owner_pid() -> int:
    """The process whose run this process's temporaries belong to, written in their names: this process, or in a
    batch's worker the batch's own process, which adopts and commits what the worker writes
    (:func:`thermocomp.io.job.remove_stale_temporaries` removes those whose owner no longer runs)."""
    return _OWNER[0] if _OWNER else os.getpid()


def end_with_parent(parent_pid: int) -> None:
    """Make this process end (SIGKILL) when process ``parent_pid``, its parent, ends; name its temporaries after it.

    Call it first thing in a worker (a pool's ``initializer``). If the parent has already gone, this
    process ends now.
    """
    _OWNER[:] = [int(parent_pid)]
    if not _ask_the_kernel():
        threading.Thread(target=_watch, args=(parent_pid,), name="end-with-parent", daemon=True).start()
    if os.getppid() != parent_pid:  # the parent ended before the kernel was asked
        os.kill(os.getpid(), signal.SIGKILL)


def end_with_parent_process() -> None:
    """Ask the kernel (Linux) to end this process with SIGKILL when its parent ends; elsewhere nothing.

    For a child that runs no Python of ours to watch (a ``subprocess`` ``preexec_fn``: the xacro expansion)."""
    _ask_the_kernel()


def _ask_the_kernel() -> bool:
    """``prctl(PR_SET_PDEATHSIG, SIGKILL)``; whether the kernel took it (Linux only)."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _watch(parent_pid: int) -> None:
    while os.getppid() == parent_pid:
        time.sleep(WATCH_PERIOD_S)
    os.kill(os.getpid(), signal.SIGKILL)


__all__ = ["WATCH_PERIOD_S", "end_with_parent", "end_with_parent_process", "owner_pid"]
