"""The class the eighteenth held-out gathering of real programs showed in the URScript reader (issue 35), written
from the URScript manual's syntax, not from the gathered texts: a joint position that ``get_inverse_kin`` gives of
a pose known before running, held in a variable and then moved to (a chess cell's ``target_q =
get_inverse_kin(target_pose)`` then ``movej(target_q)``, as a generator fills it in). The reader followed the call
written inside the motion (``movej(get_inverse_kin(x, qnear=...))``, PolyScope's form) but refused the variable as a
value known only while running.

The manual: ``get_inverse_kin(x, qnear, maxPositionError, maxOrientationError, tcp)``, "Inverse kinematic
transformation (tool space -> joint space)" with the active TCP; the motion goes to the joints the controller
computes of the pose ``x``, so the pose is the target, written where it is written, with the tool in effect where
``get_inverse_kin`` runs.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import run_program
from program_builders import random_configurations, ur_pose_text
from test_programs_urscript_calls import TCP, _reached, small_table

from thermocomp import DeformationTable, deformed_model, fk, load_robot, nominal_model
from thermocomp.compensation.compensate import CompensationOptions
from thermocomp.deformation.timelaw import Static
from thermocomp.errors import InputError
from thermocomp.geometry.rotations import transform
from thermocomp.programs import ProgramOptions, read_program
from thermocomp.tolerances import IK_POSITION_TOL


def _poses(rng, n: int = 2):
    chain = load_robot("ur5")
    q = random_configurations(chain, rng, n)
    R, p = fk(nominal_model(chain), q)
    return transform(R, p) @ TCP, q


def _joints(q) -> str:
    return "[" + ", ".join(f"{x:.6f}" for x in q) + "]"


def _write(tmp_path, text: str, name: str = "p.script"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_a_variable_get_inverse_kin_gives_of_a_known_pose_is_moved_to_that_pose(tmp_path, rng):
    """``q = get_inverse_kin(pose, qnear=[...])`` and ``q = get_inverse_kin(p[...])`` (the manual's keyword qnear, or
    none: the solution nearest where the arm stands), then ``movej(q)``: each motion's target is the pose. Zero
    deformation gives the script back byte for byte; a deformation changes only the poses' texts (the variable's
    declaration, the literal in the call), and the warm robot reaches the targets."""
    T, q = _poses(rng)
    src = ("def prog():\n  set_tcp(p[0, 0, 0.15, 0, 0, 0])\n"
           f"  target = {ur_pose_text(T[0])}\n"
           f"  q1 = get_inverse_kin(target, qnear={_joints(q[0])})\n"
           "  movej(q1, a=1.0, v=0.8)\n"
           f"  q2 = get_inverse_kin({ur_pose_text(T[1])})\n"
           "  movej(q2)\n"
           "end\nprog()\n")
    path = _write(tmp_path, src)
    prog = read_program(path)
    assert prog.unsupported == ()
    assert [(m.instruction, m.line) for m in prog.motions] == [("movej", 5), ("movej", 7)]
    np.testing.assert_allclose(np.stack([pt.T_world_tcp for pt in prog.points]), T, atol=1e-9)
    np.testing.assert_allclose(prog.points[0].T_flange_tcp, TCP, atol=1e-12)
    out = tmp_path / "p_out.script"
    run_program("ur5", DeformationTable.from_mm_deg(np.zeros((6, 6))), path, out)
    assert out.read_bytes() == src.encode()
    table = small_table(rng)
    run_program("ur5", table, path, out, options=CompensationOptions(time_law=Static()))
    written, lines = out.read_text().splitlines(), src.splitlines()
    assert [i + 1 for i, (a, b) in enumerate(zip(lines, written)) if a != b] == [3, 6]
    assert written[3] == lines[3] and written[5].startswith("  q2 = get_inverse_kin(p[")
    reached = _reached(table, out, q)
    assert np.max(np.linalg.norm(reached[:, :3, 3] - T[:, :3, 3], axis=1)) < 1e-6 + 10 * IK_POSITION_TOL


def test_the_tool_is_the_one_in_effect_where_get_inverse_kin_runs(tmp_path, rng):
    """``get_inverse_kin`` computes with the active TCP: a ``set_tcp`` between it and the motion does not change
    the joints the motion goes to. The point carries the tool of the call; the same pose moved to with ``movel``
    after the ``set_tcp`` is another target, written at its own argument (the declaration serves neither)."""
    T, q = _poses(rng, 1)
    src = ("def prog():\n  set_tcp(p[0, 0, 0.15, 0, 0, 0])\n"
           f"  target = {ur_pose_text(T[0])}\n  q1 = get_inverse_kin(target)\n"
           "  set_tcp(p[0, 0, 0.25, 0, 0, 0])\n  movej(q1)\n  movel(target)\nend\nprog()\n")
    path = _write(tmp_path, src)
    prog = read_program(path)
    assert prog.unsupported == ()
    np.testing.assert_allclose([pt.T_flange_tcp[2, 3] for pt in prog.points], [0.15, 0.25], atol=1e-12)
    out = tmp_path / "p_out.script"
    table = small_table(rng)
    run_program("ur5", table, path, out, options=CompensationOptions(time_law=Static()))
    written = out.read_text().splitlines()
    assert written[2] == src.splitlines()[2]  # (two tools read the declaration: each text at its argument)
    assert written[3].startswith("  q1 = get_inverse_kin(p[") and written[6].startswith("  movel(p[")
    chain = load_robot("ur5")
    first = read_program(out).points[0]
    flange = first.T_world_tcp @ np.linalg.inv(first.T_flange_tcp)
    from thermocomp.kinematics.ik import solve_ik

    result = solve_ik(nominal_model(chain), flange[None, :3, :3], flange[None, :3, 3], q)
    R, p = fk(deformed_model(chain, table, 1.0), result.q)
    assert np.linalg.norm((transform(R, p) @ TCP)[0, :3, 3] - T[0, :3, 3]) < 1e-6 + 10 * IK_POSITION_TOL


def test_joints_form_writes_the_joints_where_get_inverse_kin_stood(tmp_path, rng):
    """``--program-output joints``: the call is replaced by the joints the nominal controller needs, at the
    assignment (``q1 = [...]``); the motion reads the variable as written. The warm robot at those joints reaches
    the target."""
    T, q = _poses(rng, 1)
    src = (f"def prog():\n  set_tcp(p[0, 0, 0.15, 0, 0, 0])\n  q1 = get_inverse_kin({ur_pose_text(T[0])}, "
           f"qnear={_joints(q[0])})\n  movej(q1, a=1.0, v=0.8)\nend\nprog()\n")
    path = _write(tmp_path, src)
    out = tmp_path / "p_out.script"
    table = small_table(rng)
    run_program("ur5", table, path, out, options=CompensationOptions(time_law=Static()),
                program_options=ProgramOptions(output="joints"))
    written = out.read_text().splitlines()
    assert written[3] == "  movej(q1, a=1.0, v=0.8)" and written[2].startswith("  q1 = [")
    joints = np.array([float(x) for x in written[2].split("[", 1)[1].rstrip("]").split(",")])
    R, p = fk(deformed_model(load_robot("ur5"), table, 1.0), joints[None])
    assert np.linalg.norm((transform(R, p) @ TCP)[0, :3, 3] - T[0, :3, 3]) < 1e-6 + 10 * IK_POSITION_TOL


def test_what_stays_known_only_while_running(tmp_path, rng):
    """Refused as before, naming the motion's line and the value: the pose the robot stands at after a motion
    (``get_actual_tcp_pose()``: followed in the motion itself only), a variable the branches of an input give
    different poses, and the variable read as anything but a motion's target (its element in arithmetic)."""
    T, _ = _poses(rng)
    a, b = ur_pose_text(T[0]), ur_pose_text(T[1])
    cases = {
        "stands": (f"def prog():\n  movel({a})\n  q = get_inverse_kin(get_actual_tcp_pose())\n  movej(q)\nend\n"
                   "prog()\n", 4, "q"),
        "branches": (f"def prog():\n  if get_digital_in(0):\n    q = get_inverse_kin({a})\n  else:\n"
                     f"    q = get_inverse_kin({b})\n  end\n  movej(q)\nend\nprog()\n", 7, "q"),
        "element": (f"def prog():\n  q = get_inverse_kin({a})\n  j = q[0] + 0.1\n"
                    "  movej([j, -1.57, 1.57, -1.57, -1.57, 0])\nend\nprog()\n", 4, "j"),
    }
    for name, (src, line, datum) in cases.items():
        prog = read_program(_write(tmp_path, src, f"{name}.script"))
        assert [u.line for u in prog.unsupported] == [line], name
        assert f"the value of {datum} is not known before running" in prog.unsupported[0].message, name


def test_a_target_that_changes_from_pass_to_pass_in_the_assignment_is_refused_at_the_loop(tmp_path, rng):
    """A table of corrected targets walks a counter advanced before the motion statement; a pose read in an
    earlier statement (the assignment) would be read before its counter moves: refused naming the motion and the
    line that changes the variable. Written inside the motion, the same pose is a table (unchanged)."""
    loop = ("def prog():\n  i = 0\n  while i < 3:\n{body}    i = i + 1\n  end\nend\nprog()\n")
    pose = "pose_trans(p[0.3, -0.2, 0.2, 0, 0, 0], p[0.05 * i, 0, 0, 0, 3.14, 0])"
    apart = loop.format(body=f"    q = get_inverse_kin({pose})\n    movej(q)\n")
    with pytest.raises(InputError) as info:
        run_program("ur5", small_table(rng), _write(tmp_path, apart), tmp_path / "o.script",
                    options=CompensationOptions(time_law=Static()))
    assert "movej at line 5: its target changes from pass to pass of this while (it reads q, which the loop " \
           "changes at line 4)" in str(info.value)
    inside = loop.format(body=f"    movej(get_inverse_kin({pose}))\n")
    out = tmp_path / "in.script"
    run_program("ur5", small_table(rng), _write(tmp_path, inside, "inside.script"), out,
                options=CompensationOptions(time_law=Static()))
    assert "tc_pass_t1[tc_pass_n1]" in out.read_text()
