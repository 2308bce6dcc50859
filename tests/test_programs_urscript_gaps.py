"""URScript the held-out trial found slow (issue 35, item 5): the joins of paths, tested from the URScript manual.

A PolyScope export with URCaps' preambles defines hundreds of globals, and the reader joins the paths of every
``if`` and ``while`` whose course is known only while running: after a join a variable keeps its value where every
path gives it the same one and is known only while running otherwise. The join now compares only the variables a
path rebound; these tests hold it to the definition (an independent implementation over generated scopes) and to
the language (``if`` on an input, URScript manual "Flow of control").
"""

from __future__ import annotations

import numpy as np
import pytest

from thermocomp.programs import read_program
from thermocomp.programs.urscript_values import Binding, State, merge_scopes, same_state


def _merge_by_definition(scopes: list[dict], why: str) -> dict:
    """Every variable of every path: its binding where all paths hold an equal value (the same literal), else a
    binding known only while running (the first path's reason when one had it)."""
    out = {}
    for name in set().union(*scopes):
        bs = [s.get(name) for s in scopes]
        if all(b is not None for b in bs) and all(
                np.array_equal(b.value, bs[0].value) if isinstance(b.value, np.ndarray) or isinstance(bs[0].value,
                                                                                                      np.ndarray)
                else (type(b.value) is type(bs[0].value) and b.value == bs[0].value) for b in bs) \
                and all(b.literal is bs[0].literal for b in bs):
            out[name] = bs[0].value if bs[0].value is not None else ("unknown", bs[0].why)  # (all unknown alike)
        else:
            unknown = next((b for b in bs if b is not None and b.value is None and b.why), None)
            out[name] = ("unknown", unknown.why if unknown else why)
    return out


def _values(scope: dict) -> dict:
    return {k: (("unknown", b.why) if b.value is None else b.value) for k, b in scope.items()}


def _paths(rng, n_names: int, n_paths: int) -> list[dict]:
    """Copies of one scope (as the walker's snapshots are), each path rebinding, adding or dropping a few names,
    with an equal value, another value, a pose array or a value known only while running."""
    base = {f"v{i}": Binding(float(i), None, f"v{i}") for i in range(n_names)}
    base["pose"] = Binding(np.arange(6.0), None, "pose")
    paths = []
    for _ in range(n_paths):
        scope = dict(base)
        for name in rng.choice(sorted(base), size=rng.integers(0, 4), replace=False):
            kind = rng.integers(0, 5)
            if kind == 0:
                scope[name] = Binding(base[name].value if name != "pose" else np.arange(6.0), None, name)  # equal
            elif kind == 1:
                scope[name] = Binding(-1.0, None, name)
            elif kind == 2:
                scope[name] = Binding(None, None, name, f" (line {rng.integers(1, 99)} reads an input)")
            elif kind == 3:
                del scope[name]
            else:
                scope[f"new{rng.integers(0, 3)}"] = Binding(7.0, None, "new")
        paths.append(scope)
    return paths


@pytest.mark.parametrize("seed", range(40))
def test_a_join_keeps_exactly_the_variables_every_path_agrees_on(seed):
    rng = np.random.default_rng(seed)
    scopes = _paths(rng, n_names=int(rng.integers(1, 300)), n_paths=int(rng.integers(1, 4)))
    got = merge_scopes(scopes, " (the paths differ)")
    want = _merge_by_definition(scopes, " (the paths differ)")
    assert got.keys() == want.keys()
    for name, value in want.items():
        g = _values(got)[name]
        assert (np.array_equal(g, value) if isinstance(value, np.ndarray) else g == value), name


@pytest.mark.parametrize("seed", range(20))
def test_two_states_are_the_same_exactly_when_every_variable_is(seed):
    rng = np.random.default_rng(seed)
    a, b = _paths(rng, n_names=int(rng.integers(1, 200)), n_paths=2)
    want = a.keys() == b.keys() and all(
        np.array_equal(a[k].value, b[k].value) if isinstance(a[k].value, np.ndarray) else
        (type(a[k].value) is type(b[k].value) and a[k].value == b[k].value) for k in a) \
        and all(a[k].literal is b[k].literal for k in a)
    assert same_state(State(a, {}, None, ""), State(b, {}, None, "")) == want
    assert same_state(State(a, {}, None, ""), State(dict(a), {}, None, ""))


_PREAMBLE = "".join(f"  global g{i} = {i}\n" for i in range(400))


_Q = "[0, -1.57, 1.57, -1.57, -1.57, 0]"


def _program(branch_a: str, branch_b: str) -> str:
    """A program in the manual's syntax after a preamble of 400 globals: ``if`` on a digital input (known only
    while running) whose branches move (so both are followed and their paths joined) and assign ``x``, then a
    motion reading ``x``."""
    return ("def prog():\n" + _PREAMBLE
            + "  x = 0.3\n  if get_standard_digital_in(0):\n"
            + f"    movej({_Q})\n    x = {branch_a}\n  else:\n    movej({_Q})\n    x = {branch_b}\n  end\n"
            + "  movel(p[x, -0.2, 0.4, 0, 3.14159, 0], a=1.2, v=0.25)\nend\n")


def test_a_variable_both_branches_give_one_value_is_known_after_the_if(tmp_path):
    path = tmp_path / "p.script"
    path.write_text(_program("0.35", "0.35"))
    prog = read_program(path)
    assert prog.unsupported == ()
    np.testing.assert_allclose(prog.points[-1].T_world_tcp[:3, 3], [0.35, -0.2, 0.4], atol=1e-12)


def test_a_variable_the_branches_give_different_values_is_refused_naming_it(tmp_path):
    src = _program("0.35", "0.25")
    path = tmp_path / "p.script"
    path.write_text(src)
    prog = read_program(path)
    line = src[:src.index("movel")].count("\n") + 1
    assert [f.line for f in prog.unsupported] == [line]
    assert prog.unsupported[0].message.startswith("the value of x is not known before running")
