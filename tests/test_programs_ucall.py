"""A URScript function called with different poses whose motions read its parameter in more than one way.

Written from UR's URScript manual (``def`` with parameters and a default, ``local``, ``global``, ``pose_trans``,
``pose_add``, ``while``, ``thread``/``run``/``join``), not from any fetched program: the pick-and-place function of
hand-written scripts, ``movel`` to an approach computed from the parameter (``pose_trans(p, ...)``, ``pose_add``, a
``local`` built from it) and then ``movel(p)``, called with poses written at the call sites. One written pose at a
call site cannot give both motions their corrected targets (the deformation is not rigid), so, as RAPID's
``Offs(p, ...)`` of a declared target, the expression at the motion is the motion's own text, written as a table
walked call by call where the calls need it differently (docs/programs.md, "Targets that differ from pass to
pass"), and the call site's pose stays the text of the motion that reads the parameter itself. A zero table gives
the program back byte for byte; the written program, read back and run through the warm robot (FK of the deformed
model on the nominal IK of its targets), reaches every call's programmed poses.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import run_program
from program_builders import random_configurations, ur_pose_text
from test_programs_loops import UR_TCP, _zero_then_warm
from test_programs_rapid import small_table

from thermocomp import deformed_model, fk, load_robot, nominal_model
from thermocomp.compensation.compensate import CompensationOptions
from thermocomp.deformation.timelaw import Static
from thermocomp.errors import InputError
from thermocomp.geometry.rotations import transform
from thermocomp.kinematics.ik import solve_ik
from thermocomp.programs import read_program
from thermocomp.programs.compensate import nominal_configurations, point_poses
from thermocomp.tolerances import IK_POSITION_TOL

TOLERANCE = 1e-6 + 10 * IK_POSITION_TOL
DOWN = transform(np.eye(3), [0.0, 0.0, -0.05])  # (pose_trans(p, p[0, 0, -0.05, 0, 0, 0]): along the tool's z)


def _poses(rng, n: int) -> list[np.ndarray]:
    chain = load_robot("ur5")
    R, p = fk(nominal_model(chain), random_configurations(chain, rng, n))
    return [transform(R[k], p[k]) @ UR_TCP for k in range(n)]


def _reached(path, out, table) -> np.ndarray:
    """The TCP poses ``(n, 4, 4)`` the warm robot reaches on the written program's targets, read back."""
    chain = load_robot("ur5")
    T = np.stack([pt.T_world_tcp @ np.linalg.inv(pt.T_flange_tcp) for pt in read_program(out).points])
    original = read_program(path)
    q_near = nominal_configurations(chain, original, point_poses(chain, original), CompensationOptions())[0]
    R, p = fk(deformed_model(chain, table, 1.0), solve_ik(nominal_model(chain), T[:, :3, :3], T[:, :3, 3], q_near).q)
    return transform(R, p) @ UR_TCP


def _check(tmp_path, rng, src: str, want: list[np.ndarray]) -> tuple[str, object]:
    path, out = tmp_path / "cell.script", tmp_path / "cell_out.script"
    path.write_text(src)
    assert read_program(path).unsupported == ()
    table, report = _zero_then_warm("ur5", path, out, rng)
    reread = read_program(out)
    assert not reread.unsupported and len(reread.points) == len(want)
    reached = _reached(path, out, table)
    assert np.max(np.linalg.norm(reached[:, :3, 3] - np.stack(want)[:, :3, 3], axis=1)) < TOLERANCE
    return out.read_text(), report


APPROACHES = {  # the approach as written in the function, the call's pose -> the approach pose
    "inline": ("    movel(pose_trans(p, p[0, 0, -0.05, 0, 0, 0]), a=1.2, v=0.25)\n", lambda T: T @ DOWN),
    "pose_add": ("    movel(pose_add(p, p[0, 0, 0.04, 0, 0, 0]), a=1.2, v=0.25)\n",
                 lambda T: transform(np.eye(3), [0.0, 0.0, 0.04]) @ T),  # (moved in the base frame)
    "local": ("    local q = pose_trans(p, p[0, 0, -0.05, 0, 0, 0])\n    movel(q, a=1.2, v=0.25)\n",
              lambda T: T @ DOWN),
}


@pytest.mark.parametrize("form", sorted(APPROACHES))
def test_the_approach_is_a_table_call_by_call_and_the_call_site_pose_stays_the_direct_motions(tmp_path, rng, form):
    approach, lift = APPROACHES[form]
    T = _poses(rng, 2)
    src = ("def prog():\n  set_tcp(p[0, 0, 0.1, 0, 0, 0])\n  def go(p):\n" + approach
           + "    movel(p, a=1.2, v=0.25)\n  end\n"
           + f"  go({ur_pose_text(T[0])})\n  go({ur_pose_text(T[1])})\nend\n")
    written, report = _check(tmp_path, rng, src, [lift(T[0]), T[0], lift(T[1]), T[1]])
    assert "    tc_pass_n1 = (tc_pass_n1 + 1) % 2\n    movel(tc_pass_t1[tc_pass_n1], a=1.2, v=0.25)\n" in written
    assert "    movel(p, a=1.2, v=0.25)\n  end\n" in written  # (read from the call sites, written there)
    calls = written[written.index("  end\n  go(") + 6:].splitlines()[:2]
    assert calls[0].startswith("  go(p[") and calls[0] != f"  go({ur_pose_text(T[0])})"
    assert report.n_changed_texts == 3  # the table and the two call sites
    assert any("the calls of go at lines 7, 8" in n or "the calls of go at lines 8, 9" in n for n in report.notes)


def test_called_in_a_loop_from_two_places_with_a_global_and_a_default(tmp_path, rng):
    """The loop's two passes run the same call (one entry each), the later calls their own pose, a global's or a
    default offset: every run of the approach is an entry of one table, each reaching its pose."""
    T = _poses(rng, 3)
    src = ("def prog():\n  set_tcp(p[0, 0, 0.1, 0, 0, 0])\n"
           f"  global g = {ur_pose_text(T[2])}\n"
           "  def go(p, off=p[0, 0, 0.03, 0, 0, 0]):\n    movel(pose_add(p, off), a=1.2, v=0.25)\n"
           "    movel(p, a=1.2, v=0.25)\n  end\n"
           f"  i = 0\n  while i < 2:\n    go({ur_pose_text(T[0])})\n    i = i + 1\n  end\n"
           f"  go({ur_pose_text(T[1])}, p[0, 0, 0.05, 0, 0, 0])\n  go(g)\nend\n")
    up = [transform(np.eye(3), [0.0, 0.0, z]) for z in (0.03, 0.05)]
    written, _ = _check(tmp_path, rng, src, [up[0] @ T[0], T[0], up[0] @ T[0], T[0], up[1] @ T[1], T[1],
                                            up[0] @ T[2], T[2]])
    assert "    movel(tc_pass_t1[tc_pass_n1], a=1.2, v=0.25)\n" in written and "% 4\n" in written
    assert "  global g = p[" in written and f"  global g = {ur_pose_text(T[2])}" not in written


def test_one_call_writes_the_approach_at_its_motion(tmp_path, rng):
    """A single call: each motion's target is one, the approach written at its motion (no table)."""
    T = _poses(rng, 1)
    src = ("def prog():\n  set_tcp(p[0, 0, 0.1, 0, 0, 0])\n  def go(p):\n" + APPROACHES["inline"][0]
           + f"    movel(p, a=0.5, v=0.05)\n  end\n  go({ur_pose_text(T[0])})\nend\n")
    written, _ = _check(tmp_path, rng, src, [T[0] @ DOWN, T[0]])
    assert "tc_pass" not in written and "pose_trans" not in written


def test_calls_in_a_thread_stay_refused_naming_the_line(tmp_path, rng):
    T = _poses(rng, 2)
    src = ("def prog():\n  set_tcp(p[0, 0, 0.1, 0, 0, 0])\n  def go(p):\n" + APPROACHES["inline"][0]
           + "    movel(p, a=1.2, v=0.25)\n  end\n"
           + f"  thread t():\n    go({ur_pose_text(T[0])})\n    go({ur_pose_text(T[1])})\n  end\n"
           + "  h = run t()\n  join h\nend\n")
    path, out = tmp_path / "cell.script", tmp_path / "cell_out.script"
    path.write_text(src)
    assert any(f.line == 4 and "known only while running" in f.message for f in read_program(path).unsupported)
    with pytest.raises(InputError, match="known only while running"):
        run_program("ur5", small_table(rng), path, out, options=CompensationOptions(time_law=Static()))
    assert not out.exists()
