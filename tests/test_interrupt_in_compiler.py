"""A termination signal that lands while numba or llvmlite code runs on the main thread (the compiled engine loading).

llvmlite gives an LLVM module to its execution engine and records the engine's ownership in the next statement; an
interrupt raised between the two left the module's Python object to dispose of a module the engine owned, and the
interrupted run died of SIGSEGV in ``LLVMContext::removeModule`` as it unwound (the slow
``test_interrupted_run_leaves_no_output``, about 1 run in 12). Such a signal is recorded, not raised inside that
code: the run raises it at its next check (:func:`thermocomp._signals.raise_if_terminated`).
"""

from __future__ import annotations

import os
import signal

import pytest

from thermocomp._signals import interrupt_on_termination, raise_if_terminated

#: A stand-in for llvmlite's ``ExecutionEngine.add_module``: the hand-over, then its record; the signal comes
#: between them (Python runs the handler at the next bytecode of this function).
LOADER = """
def add_module(steps):
    os.kill(os.getpid(), signal.SIGTERM)
    steps.extend(range(1000))
    steps.append("owned")
"""


def _loader(module_name: str):
    namespace = {"__name__": module_name, "os": os, "signal": signal}
    exec(LOADER, namespace)  # noqa: S102 -- a function whose frames carry ``module_name`` as their module
    return namespace["add_module"]


@pytest.mark.parametrize("module_name", ["llvmlite.binding.executionengine", "numba.core.codegen"])
def test_a_signal_inside_the_compiled_code_loader_is_raised_at_the_next_check(module_name, capsys):
    add_module = _loader(module_name)
    steps: list = []
    with pytest.raises(KeyboardInterrupt, match="terminated by SIGTERM"), interrupt_on_termination():
        add_module(steps)
        steps.append("returned")
        raise_if_terminated()
        steps.append("after")  # pragma: no cover (not reached)
    assert steps[-2:] == ["owned", "returned"]
    assert "stopping as soon as the compiled code" in capsys.readouterr().err  # (the user sees the signal taken)


def test_a_signal_elsewhere_is_raised_where_it_lands():
    add_module = _loader("thermocomp.kinematics.fake")
    steps: list = []
    with pytest.raises(KeyboardInterrupt, match="terminated by SIGTERM"), interrupt_on_termination():
        add_module(steps)
    assert "owned" not in steps
