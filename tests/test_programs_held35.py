"""The class of wrong refusals found on held-out-35 (real URScript programs gathered after the reader was written),
tested as a class from the manual's syntax: a function whose motion reads a variable the function assigns from its
parameters, called with different arguments.

URScript manual, "Scoping rules": a variable assigned inside a function without a qualifier is the global of that
name if there is one, else local to the function (``local`` makes it local whatever the globals); a function's
parameters are local. A student's item sorter sent ``def moveto(x, y, z = 0):`` whose body computes ``p_target =
p[x*SEP, -0.45 + y*SEP, 0.25 + z*SEP, d2r(180), 0, 0]`` and runs ``movej(get_inverse_kin(p_target))``, called six
times with other boxes (held-out-35). The reader knew every call's target but kept the target's text at the
assignment, one text for six values, and the writer refused the program ("the motion target at line 14, column 31
is run more than once with different corrections ... one text cannot hold them"). A loop's pass that assigns such a
variable was already tabled at the motion's name; so are now the calls of a function: each call's corrected target
a table walked by a counter advanced at the motion, the assignment left as written. A single call still writes its
target where the variable is given it.
"""

from __future__ import annotations

import pytest
from test_programs_held25 import _compensate, _numbers_of_motions

_CALLS = """def prog():
  set_tcp(p[0, 0, 0.1, 0, 0, 0])
  def moveto(x, y, z = 0):
    {assign}
    {motion}
  end
  moveto(4, 2)
  moveto(4, 2, -1)
  moveto(3, 1)
end
prog()
"""
_POSE = "p[x * 0.1, -0.45 + y * 0.1, 0.25 + z * 0.1, 0, 3.1416, 0]"


@pytest.mark.parametrize("assign", [f"p_t = {_POSE}", f"local p_t = {_POSE}"], ids=["free", "local"])
@pytest.mark.parametrize("motion", ["movel(p_t, a=1.2, v=0.25)", "movej(get_inverse_kin(p_t), a=1.2, v=0.25)"],
                         ids=["movel", "movej of get_inverse_kin"])
def test_a_variable_a_function_assigns_from_its_parameters_is_tabled_call_by_call(tmp_path, assign, motion):
    written = _compensate(tmp_path, _CALLS.format(assign=assign, motion=motion))
    inline = _compensate(tmp_path, _CALLS.format(assign="", motion=motion.replace("p_t", _POSE)), "inline.script")
    assert f"  {assign}\n" in written and "tc_pass_t1[tc_pass_n1]" in written, written  # (assignment as written)
    (table,) = [n for n in _numbers_of_motions(written) if len(n) == 18]  # (three calls, one target each)
    assert table == [n for n in _numbers_of_motions(inline) if len(n) == 18][0]
    wanted = [0.40, -0.25, 0.25, 0.40, -0.25, 0.15, 0.30, -0.35, 0.25]  # (each call's x, y, z, corrected by mm)
    assert all(abs(a - b) < 0.01 for a, b in zip(table[0:3] + table[6:9] + table[12:15], wanted)), table


def test_a_single_call_writes_its_target_where_the_variable_is_assigned(tmp_path):
    written = _compensate(tmp_path, _CALLS.format(assign=f"p_t = {_POSE}", motion="movel(p_t, a=1.2, v=0.25)")
                          .replace("  moveto(4, 2, -1)\n  moveto(3, 1)\n", ""))
    assert "tc_pass" not in written and "movel(p_t, a=1.2, v=0.25)" in written, written
    assert "x * 0.1" not in written, written  # (the corrected pose written in the assignment)
