"""URScript scripts the reader must not compensate in silence where the written script would not do on the
controller what the original did: each is refused naming the data and its line.

The pose the robot stands at (``get_actual_tcp_pose()`` after a motion that stops at a known target) is, in the
compensated script, the corrected target the controller computes from its joints, not the target written. A motion
reading it is written with its absolute corrected target (tests/test_programs_urscript_polyscope.py); a condition
reading it would be decided on the controller from the corrected target, perhaps the other way: refused.
"""

from __future__ import annotations

import numpy as np
import pytest
from program_builders import random_configurations, ur_pose_text

from thermocomp import fk, load_robot, nominal_model
from thermocomp.errors import InputError
from thermocomp.geometry.rotations import transform
from thermocomp.programs import read_program


def _poses(rng, count):
    chain = load_robot("ur5")
    R, p = fk(nominal_model(chain), random_configurations(chain, rng, count))
    return [ur_pose_text(T) for T in transform(R, p) @ transform(np.eye(3), [0.0, 0.0, 0.15])]


@pytest.mark.parametrize(("check", "line"), [
    ("  if point_dist(get_actual_tcp_pose(), {a}) < 0.0001:\n", 4),  # (read in the condition itself)
    ("  here = get_actual_tcp_pose()\n  d = point_dist(here, {a})\n  if d < 0.0001:\n", 6),  # (through variables)
    ("  here = get_actual_tcp_pose()\n  q = [0, 0]\n  q[1] = here[2] - {a}[2]\n  if q[1] < 0.0001:\n", 7),  # (an element)
    ("  def at_a():\n    return point_dist(get_forward_kin(), {a}) < 0.0001\n  end\n  if at_a():\n", 5),  # (a function)
])
def test_a_condition_reading_the_pose_the_robot_stands_at_is_refused(tmp_path, rng, check, line):
    a, b, c = _poses(rng, 3)
    path = tmp_path / "p.script"
    path.write_text(f"def prog():\n  set_tcp(p[0, 0, 0.15, 0, 0, 0])\n  movel({a}, a=1.2, v=0.25)\n"
                    + check.format(a=a) + f"    movel({b})\n  else:\n    movel({c})\n  end\nend\n")
    with pytest.raises(InputError, match=r"the pose the robot stands at") as error:
        read_program(path)
    assert f"line {line}:" in str(error.value) and "at line 3)" in str(error.value)


def test_a_parameter_computed_from_the_pose_the_robot_stands_at_is_refused_where_it_decides(tmp_path, rng):
    a, b, c = _poses(rng, 3)
    path = tmp_path / "p.script"
    path.write_text(f"def prog():\n  set_tcp(p[0, 0, 0.15, 0, 0, 0])\n  def go(d):\n    if d < 0.0001:\n      movel({b})\n"
                    f"    else:\n      movel({c})\n    end\n  end\n  movel({a})\n  go(point_dist(get_actual_tcp_pose(), {a}))\n"
                    "end\n")
    with pytest.raises(InputError, match=r"line 4: d \(computed from the pose the robot stands at after the motion at "
                                         r"line 10\) decides a condition"):
        read_program(path)


def test_the_pose_the_robot_stands_at_still_gives_a_motion_its_target(tmp_path, rng):
    a, b = _poses(rng, 2)
    path = tmp_path / "p.script"
    path.write_text(f"def prog():\n  set_tcp(p[0, 0, 0.15, 0, 0, 0])\n  movel({a})\n  here = get_actual_tcp_pose()\n"
                    f"  movel({b})\n  movel(pose_trans(here, p[0, 0, -0.02, 0, 0, 0]))\nend\n")
    points = read_program(path).points
    np.testing.assert_allclose(points[2].T_world_tcp, points[0].T_world_tcp @ transform(np.eye(3), [0, 0, -0.02]),
                               atol=1e-9)
