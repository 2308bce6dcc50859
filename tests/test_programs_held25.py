"""The class of wrong refusals found on held-out-25 (real URScript programs gathered after the reader was written),
tested as a class from the manual's syntax: a ``while`` counted up to the length of a list known before running.

URScript manual, module urmath: ``length(v)`` and ``get_list_length(v)`` return the number of entries of a list;
UR's own external_control script writes the same as a list's method, ``mass_calc_history.length()``. A teaching
program of held-out-25 converts its degree literals with ``def q2r(q): i = 0  while (i < q.length()): q[i] =
d2r(q[i]) ...  return q`` and moves to ``movej(q2r(Waypoint_home_wrist_hor_q))``. The list is known before running,
so is its length, so is each pass; the reader evaluated neither ``length`` nor the method, followed the loop as one
of unknown count, and refused the motion ("the value q2r(...) returns is not known before running: the value of q is
not known before running (line 52 may change it, in a construct not followed)"). A list known only while running
keeps its loop refused.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from helpers import run_program
from test_programs_urscript_calls import small_table

from thermocomp.compensation.compensate import CompensationOptions
from thermocomp.deformation.timelaw import Static
from thermocomp.errors import InputError

_STATIC = CompensationOptions(time_law=Static())


def _compensate(tmp_path, text: str, name: str = "a.script") -> str:
    path = tmp_path / name
    path.write_text(text)
    out = tmp_path / f"out_{name}"
    run_program("ur5", small_table(np.random.default_rng(25)), path, out, options=_STATIC)
    return out.read_text()


def _numbers_of_motions(written: str) -> list[list[float]]:
    """The numbers of each motion line and table line of the written program, in order (what compensation wrote)."""
    lines = [ln for ln in written.splitlines() if re.match(r"\s*(movel|movej)\(", ln) or "tc_pass_t" in ln]
    return [[float(x) for x in re.findall(r"-?\d+\.\d+(?:[eE][-+]?\d+)?", ln)] for ln in lines]


_GRID = """def prog():
  set_tcp(p[0, 0, 0.1, 0, 0, 0])
  xs = [0.40, 0.45, 0.50]
  i = 0
  while i < {bound}:
    movel(p[xs[i], -0.2, 0.3, 0, 3.1416, 0], a=1.2, v=0.25)
    i = i + 1
  end
end
prog()
"""


@pytest.mark.parametrize("bound", ["length(xs)", "get_list_length(xs)", "xs.length()"])
def test_a_while_counted_to_a_known_lists_length_is_followed_as_the_literal_count(tmp_path, bound):
    literal = _compensate(tmp_path, _GRID.format(bound="3"), "literal.script")
    written = _compensate(tmp_path, _GRID.format(bound=bound))
    assert _numbers_of_motions(written) == _numbers_of_motions(literal)
    assert sum(len(n) for n in _numbers_of_motions(written)) >= 3 * 6  # (a table of the three passes' targets)


_CONVERT = """def prog():
  set_tcp(p[0, 0, 0.1, 0, 0, 0])
  def mm2p(q):
    i = 0
    while (i < {bound}):
      q[i] = q[i] / 1000
      i = i + 1
    end
    return p[q[0], q[1], q[2], 0, 3.1416, 0]
  end
  pick = [420.0, -180.0, 260.0]
  movel(mm2p(pick), a=1.2, v=0.25)
  movel(pose_add(mm2p(pick), p[0, 0, 0.05, 0, 0, 0]), a=1.2, v=0.25)
end
prog()
"""


@pytest.mark.parametrize("bound", ["length(q)", "get_list_length(q)", "q.length()"])
def test_a_function_converting_a_list_it_is_passed_by_value_gives_the_same_value_each_call(tmp_path, bound):
    literal = _compensate(tmp_path, _CONVERT.format(bound="3"), "literal.script")
    written = _compensate(tmp_path, _CONVERT.format(bound=bound))
    numbers = _numbers_of_motions(written)
    assert numbers == _numbers_of_motions(literal)
    assert len(numbers) == 2 and abs(numbers[1][0] - numbers[0][0]) < 0.01  # (by value: pick stays in mm, b == a)


def test_a_list_known_only_while_running_keeps_its_loop_refused(tmp_path):
    text = _GRID.format(bound="length(xs)").replace("xs = [0.40, 0.45, 0.50]", "xs = get_actual_joint_positions()")
    with pytest.raises(InputError, match=r"not known before running"):
        _compensate(tmp_path, text)


def test_the_length_an_object_outside_the_robot_gives_keeps_its_loop_refused(tmp_path):
    text = _GRID.format(bound="rpc.length()")
    with pytest.raises(InputError, match=r"the value of i is not known before running"):
        _compensate(tmp_path, text)
