"""Termination signals turned into ``KeyboardInterrupt``, installed before anything heavy is imported.

Standard library only: the command line (:mod:`thermocomp.cli.main`) enters
:func:`interrupt_on_termination` before it imports numpy, numba and the
commands, so a SIGTERM, SIGHUP, SIGQUIT or Ctrl-C during the first second of a run
(while those imports run) ends it as one later does: the message
"interrupted" and exit status 130, no traceback, nothing written.
:class:`thermocomp.io.job.Job` reads :data:`_TERMINATED` before it commits.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Iterator
from typing import Any

#: The signals that end a run as Ctrl-C does: kill's SIGTERM, a closed terminal's SIGHUP, and Ctrl-\'s SIGQUIT
#: (whose default, a core dump, left a partial temporary file beside an output: issue 28).
TERMINATION_SIGNALS = ("SIGTERM", "SIGHUP", "SIGQUIT")


@contextlib.contextmanager
def interrupt_on_termination() -> Iterator[None]:
    """Turn SIGTERM, SIGHUP, SIGQUIT and Ctrl-C into ``KeyboardInterrupt`` for the block, and remember them (main thread only).

    A run ended with ``kill`` (or by closing its terminal) then cleans up
    exactly as on Ctrl-C: temporaries are removed, a simulator scene is
    restored. A second signal while that cleanup runs is ignored, so it
    cannot cut the cleanup short (SIGKILL still ends the process).

    The signal is also recorded (:data:`_TERMINATED`): a ``KeyboardInterrupt``
    raised where Python cannot pass it on (inside a ctypes callback, such as
    numba's compiler on a first run, a ``__del__``, a garbage-collector
    callback) is lost, so :meth:`Job.commit` refuses to commit after any
    recorded signal, and such a lost interrupt (or an object it left half
    built failing in its ``__del__``) is not printed as an "Exception
    ignored" traceback. Ctrl-C is taken over only where Python's
    own handler is in place (an ignored SIGINT stays ignored). After a
    signal, such failures stay unprinted once the block is left too.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _STARTED.append(True)
    numbers = [getattr(signal, n) for n in TERMINATION_SIGNALS if hasattr(signal, n)]
    if signal.getsignal(signal.SIGINT) in (signal.default_int_handler, _before_start):
        numbers.append(signal.SIGINT)

    def handler(signum: int, frame: object) -> None:
        if _TERMINATED:
            return
        _TERMINATED.append(signum)
        if _HELD:  # inside held(): raised as it ends
            return
        if _in_compiled_code_loader(frame):  # raised at the run's next check (raise_if_terminated)
            sys.stderr.write("thermocomp: interrupted; stopping as soon as the compiled code it is loading is in place "
                             "(a first run's compilation can take up to a minute)\n")
            return
        raise KeyboardInterrupt(_termination_text())

    def unraisable(info: Any) -> None:
        if _TERMINATED:
            # a recorded signal that landed where it could not be raised (Job.commit still sees it), or what it
            # left behind: an object it interrupted while being built failing in its __del__ (llvmlite's)
            return
        previous_hook(info)

    previous_hook = sys.unraisablehook
    previous = {n: signal.signal(n, handler) for n in numbers}
    sys.unraisablehook = unraisable
    try:
        yield
    finally:
        for n, h in previous.items():
            signal.signal(n, h)
        # After a signal the run is over, but what it left half built may still fail in a __del__ until the
        # process ends (llvmlite's "Exception ignored in ObjectRef.__del__", after the "interrupted" line): the
        # silence stays.
        sys.unraisablehook = previous_hook if not _TERMINATED else _silent
        _TERMINATED.clear()


@contextlib.contextmanager
def held() -> Iterator[None]:
    """Within: a termination signal is recorded, and its ``KeyboardInterrupt`` raised as the block ends, not inside it.

    For a step that must not be cut in two: a temporary file created and recorded for its cleanup
    (:meth:`thermocomp.io.job.Job.temporary`). An interrupt between the two left the file behind: the run ended
    "interrupted", exit 130, with a ``.tc-`` file beside its outputs (the slow test
    ``test_interrupted_run_leaves_no_output`` signals the moment that file appears, and failed so about once
    in 12 runs on an idle machine).
    """
    _HELD.append(True)
    try:
        yield
    finally:
        _HELD.pop()
    if not _HELD:
        raise_if_terminated()


#: Packages whose Python code hands LLVM's objects over between owners (numba's compiler and its cache loader,
#: llvmlite): see :func:`_in_compiled_code_loader`.
_LLVM_DRIVERS = ("numba", "llvmlite")


def _in_compiled_code_loader(frame: Any) -> bool:
    """Whether the main thread was running numba's or llvmlite's own Python code when the signal came (``frame``,
    the handler's, and its callers).

    An interrupt raised there can land between two statements that must not be cut in two: llvmlite gives an LLVM
    module to an execution engine (a native call) and then records that the engine owns it; cut between them, the
    module's Python object disposed of the module the engine still owned when it was collected, as the interrupted
    run unwound, and the process died of SIGSEGV in ``LLVMContext::removeModule`` after "interrupted" (the slow test
    ``test_interrupted_run_leaves_no_output`` signals the moment the run opens its output, as the compiled engine
    loads: about 1 run in 12; the kernel's log named the function). Such a signal is recorded and raised at the
    run's next check (:func:`raise_if_terminated`: a progress step, the commit), not inside the loader.
    """
    while frame is not None:
        if frame.f_globals.get("__name__", "").partition(".")[0] in _LLVM_DRIVERS:
            return True
        frame = frame.f_back
    return False


def raise_if_terminated() -> None:
    """Raise the ``KeyboardInterrupt`` of a termination signal that was recorded but lost (see
    :func:`interrupt_on_termination`): :meth:`Job.commit` calls this before it names any output, and long work
    on the main thread as it reports progress, so such a run ends within a progress step instead of running on
    to its end and being refused at the commit."""
    if _TERMINATED:
        raise KeyboardInterrupt(_termination_text())


def exit_on_signals_until_started() -> None:
    """The console script's first act: SIGINT and :data:`TERMINATION_SIGNALS` end the process at once, with one line, until
    :func:`interrupt_on_termination` takes them over.

    Before that, the command line is only loading its modules and nothing is open or written, so there is
    nothing to clean up; without this, Ctrl-C there printed Python's ``KeyboardInterrupt`` traceback and SIGTERM
    ended the run "killed by SIGTERM" instead of exit status 130 (issue 9's adversarial runs). The signals are
    taken as :func:`interrupt_on_termination` takes them: :data:`TERMINATION_SIGNALS` always, Ctrl-C only where Python's
    own handler is in place (a background job's ignored SIGINT stays ignored).
    """
    for name in TERMINATION_SIGNALS:  # taken over as interrupt_on_termination takes them (nohup's SIGHUP too)
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), _before_start)
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _before_start)


def _before_start(signum: int, frame: object) -> None:
    if _STARTED:
        # the run's own block is over and its outcome decided (thermocomp.cli.main.run ignores signals from here)
        return
    why = "" if signum == signal.SIGINT else f" (terminated by {signal.Signals(signum).name})"
    with contextlib.suppress(OSError):
        os.write(2, f"\nthermocomp: interrupted{why}; no output was written\n".encode())
    os._exit(_EXIT_INTERRUPTED)


def _silent(info: Any) -> None:
    """An unraisable exception after a termination signal: not printed (see :func:`interrupt_on_termination`)."""


#: The termination signal received inside :func:`interrupt_on_termination`, if any. The handler's
#: ``KeyboardInterrupt`` can be lost when the signal lands inside code that swallows exceptions
#: (a ``__del__``, a garbage-collector callback, an import): :meth:`Job.commit` reads this too, so a
#: terminated run never gives its outputs their names, even if the work ran on to the end.
_TERMINATED: list[int] = []
#: One entry per :func:`held` block being run (a signal inside is raised as the outermost one ends).
_HELD: list[bool] = []
#: Whether :func:`interrupt_on_termination` was entered (from then on the run handles its signals itself).
_STARTED: list[bool] = []
#: The command line's status for an interrupted run (thermocomp.cli.exit_status.EXIT_INTERRUPTED).
_EXIT_INTERRUPTED = 130


def _termination_text() -> str:
    """What ended the run, for the message ("" for Ctrl-C: the user knows)."""
    return "" if _TERMINATED[0] == signal.SIGINT else f"terminated by {signal.Signals(_TERMINATED[0]).name}"


def terminated() -> bool:
    """Whether a signal was received inside :func:`interrupt_on_termination` (its interrupt may have been lost
    or wrapped in another exception)."""
    return bool(_TERMINATED)


def termination_text() -> str:
    """What ended the run, for the message ("" for Ctrl-C, or when no signal was received)."""
    return _termination_text() if _TERMINATED else ""


__all__ = ["TERMINATION_SIGNALS", "exit_on_signals_until_started", "held", "interrupt_on_termination", "terminated",
           "termination_text"]
