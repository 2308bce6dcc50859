"""The class of wrong refusals found on held-out-33 (real URScript programs gathered after the reader was written),
tested as a class from the manual's syntax: a motion a thread makes from where the robot stands, in a thread the
program starts and then waits for, as PolyScope writes a Direction node.

URScript manual: ``run T()`` starts the thread ``T`` at once, beside the program; ``join h`` waits until the thread
``h`` ends. ``get_target_waypoint()`` "returns the target waypoint of the active move ... It returns the target tcp
pose, if no motion is active". PolyScope writes a Direction node ("move 3 mm along the base's x") as a thread whose
motion goes to ``calculate_point_to_move_towards(feature, direction, distance)``, a function of the exported file
returning ``pose_add(get_target_waypoint(), ...)``; the program runs it after a motion that stops at a known target
and waits in a ``while`` that moves nothing until it may ``join`` it (a fork of the WRS2020 assembly cell's export,
held-out-33). The reader followed every thread as a sequence of its own, at whose start where the robot stands is not
known, and did not take ``get_target_waypoint()`` for the pose the robot stands at: the motion was refused ("the value
of towardsPos is not known before running ... calculate_point_to_move_towards(...), known only while running").
A thread the program does not wait for, one the program moves beside, and a start after a blended motion stay
refused.
"""

from __future__ import annotations

import pytest
from test_programs_held25 import _compensate, _numbers_of_motions

_HEAD = """def prog():
  set_tcp(p[0, 0, 0.1, 0, 0, 0])
  def towards(feature, direction, distance):
    local n=normalize([direction[0], direction[1], direction[2]])
    local d=p[n[0] * distance, n[1] * distance, n[2] * distance, 0, 0, 0]
    return pose_add({standing}, pose_sub(pose_trans(feature, d), feature))
  end
  movel(p[0.40, -0.20, 0.30, 0, 3.1416, 0], a=1.2, v=0.25{blend})
  global flag=0
  thread Direction_1():
    enter_critical
    flag = 1
    local towardsPos=towards(p[0, 0, 0, 0, 0, 0], [1.0, 0.0, 0.0], 0.003)
    movel(towardsPos, a=0.01, v=0.01)
    flag = 2
    exit_critical
  end
  flag = 0
  h = run Direction_1()
"""
_WAIT = """  while (True):
    sleep(1.0E-10)
    if (flag > 1):
      join h
      break
    end
    sync()
  end
"""
_UNTIL = _WAIT.replace("  while (True):\n", "  while (True):\n    if (get_standard_digital_in(0)):\n      kill h\n"
                                               "      stopl(1.2)\n      break\n    end\n")
_END = "  movel(p[0.40, -0.20, 0.30, 0, 3.1416, 0], a=1.2, v=0.25)\nend\nprog()\n"


# Each: a Direction node of the manual's ways to read where the robot stands, waited for by a plain wait and by an
# Until (expression) node's wait (killed on an input, else joined).
@pytest.mark.parametrize("standing", ["get_target_waypoint()", "get_target_tcp_pose()", "get_actual_tcp_pose()"])
@pytest.mark.parametrize("wait", [_WAIT, _UNTIL], ids=["joined", "until an input"])
def test_a_thread_waited_for_moves_from_where_the_robot_stands(tmp_path, standing, wait):
    written = _compensate(tmp_path, _HEAD.format(standing=standing, blend="") + wait + _END)
    assert "movel(towardsPos" not in written, written  # (written with its absolute corrected target)
    grasp, towards, back = (m for m in _numbers_of_motions(written) if len(m) >= 6)
    assert grasp[:6] == back[:6] and grasp[:3] != [0.40, -0.20, 0.30]
    assert abs(towards[0] - grasp[0] - 0.003) < 1e-3 and abs(towards[1] - grasp[1]) < 1e-3, (grasp, towards)


def test_get_target_waypoint_after_a_stopping_motion_is_its_target(tmp_path):
    written = _compensate(tmp_path, "def prog():\n  movel(p[0.40, -0.20, 0.30, 0, 3.1416, 0], a=1.2, v=0.25)\n"
                                    "  movel(pose_add(get_target_waypoint(), p[0, 0, 0.05, 0, 0, 0]), a=1.2, v=0.25)\n"
                                    "end\nprog()\n")
    first, second = _numbers_of_motions(written)
    assert "get_target_waypoint" not in written and abs(second[2] - first[2] - 0.05) < 1e-3, written


# The class's bounds: where the thread starts beside a program that goes on (no wait, or a wait that moves), or after
# a motion that blends, where the robot stands is not known; the refusal names the motion and why.
@pytest.mark.parametrize("text", [
    _HEAD.format(standing="get_target_waypoint()", blend="") + _END,
    _HEAD.format(standing="get_target_waypoint()", blend="") + _WAIT.replace(
        "    sync()\n", "    movel(p[0.40, -0.20, 0.35, 0, 3.1416, 0], a=1.2, v=0.25)\n") + _END,
    _HEAD.format(standing="get_target_waypoint()", blend=", r=0.01") + _WAIT + _END,
], ids=["not waited for", "a wait that moves", "after a blend"])
def test_a_thread_not_waited_for_or_after_a_blend_is_refused(tmp_path, text):
    from thermocomp.programs import read_program

    path = tmp_path / "a.script"
    path.write_text(text)
    (refused,) = read_program(path).unsupported
    assert (refused.line, refused.column) == (14, 11), refused
    assert refused.message == ("the value of towardsPos is not known before running (line 13 gives it the value of "
                               "towards(...), known only while running)"), refused.message
