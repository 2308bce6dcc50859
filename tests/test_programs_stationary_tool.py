"""RAPID's stationary tool with a work object held by the robot (a drilling cell: the drill stands, the robot holds
the block).

Written from ABB's RAPID reference (tooldata, wobjdata), not copied from any program: ``tooldata`` ``robhold``
FALSE puts ``tframe`` (the stationary TCP) in the world; ``wobjdata`` ``robhold`` TRUE puts ``uframe`` in the
wrist (flange) frame and ``oframe`` in the user frame; a target is in the object frame, and the robot moves so that
the stationary TCP coincides with it: ``T_world_tool = T_world_flange @ T_flange_uframe @ T_uframe_oframe @
T_oframe_target``. A zero table gives the program back byte for byte; on a warm robot the written targets, through
the nominal controller and the deformed robot's FK, bring the block's target point onto the drill; a stationary
tool without a held work object (or the reverse) and a work object moved by a mechanical unit are refused naming
their line.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from helpers import run_program
from program_builders import random_configurations, robtarget_text
from test_programs_rapid import controller_joints, small_table

from thermocomp import DeformationTable, deformed_model, fk, load_robot, nominal_model
from thermocomp.compensation.compensate import CompensationOptions
from thermocomp.deformation.timelaw import Static
from thermocomp.errors import InputError
from thermocomp.geometry.rotations import rotation_angle, transform
from thermocomp.kinematics.confdata import confdata_from_q
from thermocomp.programs import ProgramOptions, read_program
from thermocomp.tolerances import IK_ORIENTATION_TOL, IK_POSITION_TOL

ROBTARGET = re.compile(r"\[\[[^\[\]]*\],\[[^\[\]]*\],\[[^\[\]]*\],\[[^\[\]]*\]\]")
ZERO = DeformationTable.from_mm_deg(np.zeros((6, 6)))


def _matrix(quat):
    """Rotation of a unit quaternion ``(w, x, y, z)``, written out (an independent chain, not the reader's)."""
    w, x, y, z = np.asarray(quat, dtype=float) / np.linalg.norm(quat)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def _T(xyz_mm, quat):
    T = np.eye(4)
    T[:3, :3], T[:3, 3] = _matrix(quat), np.asarray(xyz_mm, dtype=float) / 1e3
    return T


# the drill: its TCP in the world; the block: user frame in the flange, object frame in the user frame
DRILL = ([520.0, -80.0, 450.0], [0.7071068, 0.0, 0.7071068, 0.0])
UFRAME = ([0.0, 0.0, 90.0], [0.9659258, 0.0, 0.0, 0.2588190])
OFRAME = ([25.0, -10.0, 15.0], [0.9961947, 0.0871557, 0.0, 0.0])
T_WORLD_DRILL, T_FLANGE_BLOCK = _T(*DRILL), _T(*UFRAME) @ _T(*OFRAME)


def _pose(xyz_mm, quat) -> str:
    return "[[" + ",".join(f"{v:g}" for v in xyz_mm) + "],[" + ",".join(f"{v:.7f}" for v in quat) + "]]"


DECLARATIONS = (
    f"  PERS tooldata tDrill := [FALSE,{_pose(*DRILL)},[1,[0,0,100],[1,0,0,0],0,0,0]];\n"
    f"  PERS wobjdata wBlock := [TRUE,TRUE,\"\",{_pose(*UFRAME)},{_pose(*OFRAME)}];\n"
    f"  PERS wobjdata wTable := [FALSE,TRUE,\"\",[[600,0,0],[1,0,0,0]],[[0,0,0],[1,0,0,0]]];\n"
    f"  PERS wobjdata wTrack := [TRUE,FALSE,\"STN1\",{_pose(*UFRAME)},[[0,0,0],[1,0,0,0]]];\n"
    "  PERS tooldata tGrip := [TRUE,[[0,0,120],[1,0,0,0]],[1,[0,0,50],[1,0,0,0],0,0,0]];\n"
)


def _holes(chain, rng, count=3):
    """Targets in the block's object frame the drill reaches at random configurations ``q``: ``T_oframe_target =
    inv(T_flange_block) @ inv(T_world_flange) @ T_world_drill``."""
    q = random_configurations(chain, rng, count)
    R, p = fk(nominal_model(chain), q)
    T_target = np.linalg.inv(T_FLANGE_BLOCK) @ np.linalg.inv(transform(R, p)) @ T_WORLD_DRILL
    return T_target, confdata_from_q(nominal_model(chain), q)


def _drilling(chain, rng):
    """A drilling routine: clear of the drill at the joints ``CalcJointT`` computes, approach above each hole
    (Offs), go in along the drill (RelTool), out again; and the targets each point of it has in the object frame,
    in execution order."""
    T, cf = _holes(chain, rng)
    decl = "".join(f"  CONST robtarget pHole{i}:=" + robtarget_text(T[i], cf[i]) + ";\n" for i in range(len(T)))
    body, want = "", []
    for i in range(len(T)):
        above, into = T[i].copy(), T[i] @ transform(np.eye(3), [0.0, 0.0, 0.004])
        above[:3, 3] += [0.0, 0.0, 0.010]  # Offs: in the object frame's axes
        clear = T[i] @ transform(np.eye(3), [0.0, 0.0, -0.015])
        body += (f"    MoveAbsJ CalcJointT(RelTool(pHole{i}, 0, 0, -15), tDrill \\WObj:=wBlock), v500, z10, "
                 "tDrill \\WObj:=wBlock;\n"
                 f"    MoveJ Offs(pHole{i}, 0, 0, 10), v500, z10, tDrill \\WObj:=wBlock;\n"
                 f"    MoveL pHole{i}, v100, fine, tDrill \\WObj:=wBlock;\n"
                 f"    MoveL RelTool(pHole{i}, 0, 0, 4), v20, fine, tDrill \\WObj:=wBlock;\n"
                 f"    MoveL pHole{i}, v100, z1, tDrill\\WObj:=wBlock;\n")
        want += [clear, above, T[i], into, T[i]]
    src = "MODULE drill\n" + DECLARATIONS + decl + "  PROC main()\n" + body + "  ENDPROC\nENDMODULE\n"
    return src, np.stack(want)


def test_one_point_is_the_manuals_chain(tmp_path, rng):
    """The flange pose the reader gives a point equals the explicit chain ``T_world_drill @ inv(T_flange_uframe @
    T_uframe_oframe @ T_oframe_target)``, each factor from its written numbers."""
    target = ([31.5, -12.0, 48.0], [0.9238795, 0.0, 0.3826834, 0.0])
    src = ("MODULE one\n" + DECLARATIONS + "  PROC main()\n    MoveL [" + _pose(*target)[1:-1]
           + ",[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]], v100, fine, tDrill\\WObj:=wBlock;\n  ENDPROC\nENDMODULE\n")
    path = tmp_path / "one.mod"
    path.write_text(src)
    (point,) = read_program(path).points
    want = T_WORLD_DRILL @ np.linalg.inv(_T(*UFRAME) @ _T(*OFRAME) @ _T(*target))
    np.testing.assert_allclose(point.T_world_tcp @ np.linalg.inv(point.T_flange_tcp), want, atol=1e-12)
    # and the stationary TCP lies at the target: the held block's target point in the world is the drill's
    T_world_target = want @ _T(*UFRAME) @ _T(*OFRAME) @ _T(*target)
    np.testing.assert_allclose(T_world_target, T_WORLD_DRILL, atol=1e-12)


def test_drilling_cell_zero_table_byte_for_byte_and_warm_robot_drills_every_hole(tmp_path, rng):
    chain = load_robot("irb140")
    src, want = _drilling(chain, rng)
    path, out = tmp_path / "drill.mod", tmp_path / "drill_out.mod"
    path.write_text(src)
    prog = read_program(path)
    assert prog.unsupported == () and len(prog.points) == len(want)
    assert all(p.held for p in prog.points)
    run_program("irb140", ZERO, path, out)
    assert out.read_bytes() == path.read_bytes()
    table = small_table(rng)
    report = run_program("irb140", table, path, out, options=CompensationOptions(time_law=Static()),
                         program_options=ProgramOptions())
    assert report.n_changed_texts > 0
    written = read_program(out)
    assert written.unsupported == () and all(p.held for p in written.points)
    # only the targets' texts changed: the motions read the same names and the same frames
    assert [m.instruction for m in written.motions] == [m.instruction for m in prog.motions]
    for a, b in zip(written.points, prog.points):
        np.testing.assert_array_equal(a.T_world_frame, b.T_world_frame)
        np.testing.assert_array_equal(a.T_flange_tcp, b.T_flange_tcp)
    # the nominal controller runs the written targets; the warm robot's flange then carries the block so that
    # each programmed hole (the original targets, in the object frame) sits on the drill's TCP
    q, status = controller_joints(chain, written)
    assert np.all(status == 0)
    R, p = fk(deformed_model(chain, table, 1.0), q)
    T_world_hole = transform(R, p) @ T_FLANGE_BLOCK @ want
    pos_err = np.linalg.norm(T_world_hole[:, :3, 3] - T_WORLD_DRILL[:3, 3], axis=1)
    ang_err = rotation_angle(T_world_hole[:, :3, :3] @ T_WORLD_DRILL[:3, :3].T)
    assert pos_err.max() <= 10 * IK_POSITION_TOL + 2 * report.rounding_position + 2 * report.rounding_angle * 0.3
    assert ang_err.max() <= 10 * IK_ORIENTATION_TOL + 2 * report.rounding_angle
    # the program as written would have missed by far more
    R0, p0 = fk(deformed_model(chain, table, 1.0), controller_joints(chain, prog)[0])
    missed = np.linalg.norm((transform(R0, p0) @ T_FLANGE_BLOCK @ want)[:, :3, 3] - T_WORLD_DRILL[:3, 3], axis=1)
    assert missed.max() > 100 * pos_err.max()


MIXED = [
    ("    MoveL pA, v100, fine, tDrill;\n", ["tDrill", "robhold FALSE", "wobj0"]),
    ("    MoveL pA, v100, fine, tDrill \\WObj:=wTable;\n", ["tDrill", "wTable", "robhold FALSE"]),
    ("    MoveL pA, v100, fine, tGrip \\WObj:=wBlock;\n", ["tGrip", "wBlock", "robhold TRUE"]),
    ("    MoveL pA, v100, fine, tDrill \\WObj:=wTrack;\n", ["mechanical unit", "STN1"]),
]


@pytest.mark.parametrize("body,words", MIXED)
def test_a_stationary_tool_needs_a_held_work_object_and_the_reverse(tmp_path, rng, body, words):
    """What the controller stops on (or a work object moved by a mechanical unit) is refused naming the file, the
    line and both data; nothing is written."""
    chain = load_robot("irb140")
    T, cf = _holes(chain, rng, 1)
    head = ("MODULE m\n" + DECLARATIONS + "  CONST robtarget pA:=" + robtarget_text(T[0], cf[0]) + ";\n"
            + "  PROC main()\n")
    path, out = tmp_path / "m.mod", tmp_path / "m_out.mod"
    path.write_text(head + body + "  ENDPROC\nENDMODULE\n")
    line = head.count("\n") + 1
    with pytest.raises(InputError) as info:
        run_program("irb140", ZERO, path, out)
    assert f"{path}:{line}:" in str(info.value) or f"{path}, line {line}" in str(info.value)
    for word in words:
        assert word in str(info.value)
    assert not out.exists()


def test_calc_joint_t_of_an_ordinary_tool_is_its_robtarget(tmp_path, rng):
    """``MoveAbsJ CalcJointT(p, tool)``: the point is ``p`` through ``tool`` (the flange pose the controller's IK
    gets), the whole call the argument a joint target replaces; a switch known only while running is refused."""
    chain = load_robot("irb140")
    q = random_configurations(chain, rng, 1)
    R, p = fk(nominal_model(chain), q)
    T_grip = transform(np.eye(3), [0.0, 0.0, 0.120])
    call = "CalcJointT(pA, tGrip)"
    head = ("MODULE m\n" + DECLARATIONS + "  CONST robtarget pA:=" + robtarget_text(transform(R, p)[0] @ T_grip,
            confdata_from_q(nominal_model(chain), q)[0]) + ";\n  PROC main()\n")
    path = tmp_path / "m.mod"
    path.write_text(head + f"    MoveAbsJ {call}, v100, fine, tGrip;\n  ENDPROC\nENDMODULE\n")
    (point,) = read_program(path).points
    np.testing.assert_allclose(point.T_world_tcp @ np.linalg.inv(point.T_flange_tcp), transform(R, p)[0], atol=1e-9)
    assert not point.held and point.name == "pA"
    text = path.read_text()
    assert text[point.whole_argument.start:point.whole_argument.end] == call
    path.write_text(head + "    MoveAbsJ CalcJointT(pA, tGrip \\UseCurWObjPos), v100, fine, tGrip;\n  ENDPROC\nENDMODULE\n")
    out = tmp_path / "m_out.mod"
    with pytest.raises(InputError) as info:
        run_program("irb140", ZERO, path, out)
    line = head.count("\n") + 1
    assert f"{path}, line {line}" in str(info.value) and "CalcJointT \\UseCurWObjPos" in str(info.value)
    assert not out.exists()


def test_joints_form_of_the_drilling_cell_drills_every_hole(tmp_path, rng):
    """``--program-output joints``: every motion a ``MoveAbsJ`` (a ``CalcJointT`` call replaced whole by its
    joints), and those joints on the warm robot put each hole on the drill."""
    chain = load_robot("irb140")
    src, want = _drilling(chain, rng)
    path, out = tmp_path / "drill.mod", tmp_path / "drill_out.mod"
    path.write_text(src)
    table = small_table(rng)
    run_program("irb140", table, path, out, options=CompensationOptions(time_law=Static()),
                program_options=ProgramOptions(output="joints"))
    written = read_program(out)
    assert "CalcJointT" not in out.read_text() and all(m.instruction == "MoveAbsJ" for m in written.motions)
    q = np.stack([pt.q for pt in written.points])
    R, p = fk(deformed_model(chain, table, 1.0), q)
    T_world_hole = transform(R, p) @ T_FLANGE_BLOCK @ want
    # the core's tolerance plus the rounding of the written joint angles (float32 degrees)
    assert np.linalg.norm(T_world_hole[:, :3, 3] - T_WORLD_DRILL[:3, 3], axis=1).max() < 1e-5


def test_time_indexed_drilling_entries_are_the_snapshots_targets(tmp_path, rng):
    """The time-indexed form writes each held-block target through the same composition as a snapshot: entry k of
    each table is the target text the snapshot at minute k writes."""
    from test_programs_time import _aggregate_texts

    from thermocomp.programs.rapid import rapid_parser

    chain = load_robot("irb140")
    src, _ = _drilling(chain, rng)
    path, indexed = tmp_path / "drill.mod", tmp_path / "indexed.mod"
    path.write_text(src)
    table, minutes = small_table(rng), (0.0, 100.0, 200.0)
    run_program("irb140", table, path, indexed, program_options=ProgramOptions(indexed_minutes=minutes))
    text = indexed.read_text()
    names = sorted(set(re.findall(r"\btcR\d+\b", text)))
    assert names
    for k, minute in enumerate(minutes[1:], start=1):
        snapshot = tmp_path / f"s{k}.mod"
        run_program("irb140", table, path, snapshot, program_options=ProgramOptions(at_minute=minute))
        written = np.array([_numbers(t) for t in ROBTARGET.findall("".join(snapshot.read_text().split()))])
        for name in names:
            entries = _aggregate_texts(text, rapid_parser(), name)
            assert len(entries) == len(minutes)
            # the same float32 values (the two writers may spell one float32 with a digit more or less)
            gap = np.abs(written - _numbers("".join(entries[k].split()))).max(axis=1)
            assert gap.min() < 1e-6 * 600, (name, minute)


def _numbers(robtarget: str) -> np.ndarray:
    """A robtarget text's position [mm], quaternion and confdata, ``(11,)``."""
    return np.array([float(v) for v in re.findall(r"[-+0-9.Ee]+", robtarget)[:11]])
