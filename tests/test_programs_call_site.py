"""Targets written at the call site of a routine (``input [[...], ...];``, ``go(p[...])``): compensated there.

A routine's parameter bound to a target literal at the call site is that call's target, known before the run and
written once per call, where the call is: the writer changes the call-site literal so that the routine's expression
(the parameter itself, ``Offs``/``RelTool`` of it, ``pose_trans``/``pose_add`` of it) gives the corrected target
(thermocomp.programs.calls). Written programs are read back and run through the warm robot's FK on the joints the
controller takes; a zero table gives every input back byte for byte; only the call-site literals change. Where
motions read one call-site literal needing different values, the refusal names its line and column and each motion.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from helpers import run_program
from program_builders import random_configurations, robtarget_text, ur_pose_text
from test_programs_rapid import small_table
from test_programs_rapid_cell import T_GRIP, TOOL, ZERO, _outside_targets, _reached
from test_programs_urscript_calls import _reached as _ur_reached  # (its TCP: 150 mm, UR_TCP)

from thermocomp import fk, load_robot, nominal_model
from thermocomp.compensation.compensate import CompensationOptions
from thermocomp.deformation.timelaw import LinearRamp, Static
from thermocomp.errors import InputError
from thermocomp.geometry.rotations import matrix_from_rotvec, transform
from thermocomp.kinematics.confdata import confdata_from_q
from thermocomp.programs import ProgramOptions, read_program
from thermocomp.tolerances import IK_POSITION_TOL

WARM = CompensationOptions(time_law=Static())
RAMP, INDEXED = CompensationOptions(time_law=LinearRamp(200.0)), ProgramOptions(indexed_minutes=(0.0, 100.0, 200.0))
UR_TCP = transform(np.eye(3), [0.0, 0.0, 0.15])


def _literals(rng, n: int) -> tuple[list[str], np.ndarray]:
    """``n`` robtarget literals at random IRB140 configurations (tool tGrip) and their TCP poses ``(n, 4, 4)``."""
    chain = load_robot("irb140")
    q = random_configurations(chain, rng, n)
    R, p = fk(nominal_model(chain), q)
    T = transform(R, p) @ T_GRIP
    cf = confdata_from_q(nominal_model(chain), q)
    return [robtarget_text(T[i], cf[i]) for i in range(n)], T


def _rapid(tmp_path, main: str, routines: str, decl: str = "") -> tuple:
    src = "MODULE cell\n" + TOOL + decl + "  PROC main()\n" + main + "  ENDPROC\n" + routines + "ENDMODULE\n"
    path, out = tmp_path / "cell.mod", tmp_path / "cell_out.mod"
    path.write_text(src)
    return src, path, out


def _compensated(robot: str, path, out, rng):
    """Zero table: the input byte for byte; a warm table: the report, the table, and the targets as first read."""
    run_program(robot, ZERO, path, out)
    assert out.read_bytes() == path.read_bytes()
    table = small_table(rng)
    report = run_program(robot, table, path, out, options=WARM)
    return report, table, np.stack([pt.T_world_tcp for pt in read_program(path).points])


def _close(reached, want):
    assert len(reached) == len(want)
    assert np.max(np.linalg.norm(reached[:, :3, 3] - want[:, :3, 3], axis=1)) < 1e-6 + 10 * IK_POSITION_TOL


def _call_site_spans(path) -> set[tuple[int, int]]:
    return {(pt.text.start, pt.text.end) for pt in read_program(path).points}


def test_rapid_targets_written_at_call_sites_are_written_there_nested_looped_optional_and_named(tmp_path, rng):
    lit, T = _literals(rng, 5)
    split = lit[2].replace("],[", "],  ! the orientation\n      [", 1)  # (a comment and a line break inside)
    main = (f"    input {lit[0]};\n"
            f"    FOR k FROM 1 TO 2 DO\n      outer {lit[1]};\n    ENDFOR\n"
            f"    input {split};\n"
            f"    opt \\via:={lit[3]};\n    opt;\n"
            "    input pNamed;\n")
    routines = ("  PROC input(robtarget position)\n    MoveJ position, v1000, fine, tGrip;\n  ENDPROC\n"
                "  PROC outer(robtarget p)\n    input p;\n  ENDPROC\n"
                "  PROC opt(\\robtarget via)\n    IF Present(via) MoveL via, v100, fine, tGrip;\n  ENDPROC\n")
    src, path, out = _rapid(tmp_path, main, routines, f"  CONST robtarget pNamed := {lit[4]};\n")
    prog = read_program(path)
    assert prog.unsupported == ()
    spans = [(pt.text.start, pt.text.end) for pt in prog.points]
    assert [src[a:b] for a, b in spans] == [lit[0], lit[1], lit[1], split, lit[3], lit[4]]
    report, table, want = _compensated("irb140", path, out, rng)
    assert report.n_changed_texts == 5
    written = out.read_text()
    assert _outside_targets(out) == _outside_targets(path)
    assert "! the orientation\n" in written and "PROC input(robtarget position)\n    MoveJ position," in written
    _close(_reached(load_robot("irb140"), table, out), want)
    np.testing.assert_allclose(want[[0, 1, 3, 4, 5]], T[[0, 1, 2, 3, 4]], atol=1e-6)


def test_rapid_offs_and_reltool_of_a_call_site_target_are_solved_back_to_the_call_site(tmp_path, rng):
    lit, T = _literals(rng, 3)
    main = f"    above {lit[0]};\n    above {lit[1]};\n    turned {lit[2]};\n"
    routines = ("  PROC above(robtarget position)\n    MoveJ Offs(position, 0, 0, 30), v1000, fine, tGrip;\n"
                "  ENDPROC\n"
                "  PROC turned(robtarget t)\n    MoveL RelTool(Offs(t, 5, 0, 0), 0, 0, -20 \\Rz:=15), v100, fine, tGrip;\n"
                "  ENDPROC\n")
    src, path, out = _rapid(tmp_path, main, routines)
    report, table, want = _compensated("irb140", path, out, rng)
    np.testing.assert_allclose(want[0][:3, 3], T[0][:3, 3] + [0, 0, 0.030], atol=1e-9)  # (Offs: in wobj0, the world)
    assert report.n_changed_texts == 3
    assert _outside_targets(out) == _outside_targets(path)
    assert "Offs(position, 0, 0, 30)" in out.read_text()
    _close(_reached(load_robot("irb140"), table, out), want)


@pytest.mark.parametrize("second", ["MoveJ Offs(position,0,0,50), v1000, fine, tGrip",
                                    "MoveJ position, v1000, fine, tGrip;\n    MoveL position, v100, fine, tool0"])
def test_rapid_a_call_site_target_no_motion_or_two_disagreeing_read_as_itself_is_refused_naming_it(tmp_path, rng,
                                                                                                   second):
    """Read only through offsets, or as itself by motions needing different values (two tools): refused. (Read as
    itself by one motion: that motion's value, tests/test_programs_defects.py.)"""
    lit, _ = _literals(rng, 2)
    main = f"    input {lit[0]};\n    input {lit[1]};\n"
    routines = (f"  PROC input(robtarget position)\n    MoveJ Offs(position,0,0,100), v1000, fine, tGrip;\n"
                f"    {second};\n  ENDPROC\n")
    src, path, out = _rapid(tmp_path, main, routines)
    run_program("irb140", ZERO, path, out)  # (zero: both need the literal as written)
    assert out.read_bytes() == path.read_bytes()
    out.unlink()
    with pytest.raises(InputError) as err:
        run_program("irb140", small_table(rng), path, out, options=WARM)
    column = src.split("\n")[3].index("[") + 1
    assert f"line 4, column {column} (an argument of a call)" in str(err.value)
    assert "MoveJ at line 8 through Offs and by MoveJ at line 9 " in str(err.value)
    assert re.search(r"need written values [\d.e-]+ mm and [\d.e-]+ deg apart", str(err.value))
    assert not out.exists()


def test_rapid_time_indexed_call_site_targets_read_their_table_at_the_call_site(tmp_path, rng):
    lit, _ = _literals(rng, 2)
    main = f"    above {lit[0]};\n    above {lit[1]};\n"
    routines = "  PROC above(robtarget position)\n    MoveJ Offs(position, 0, 0, 30), v1000, fine, tGrip;\n  ENDPROC\n"
    src, path, out = _rapid(tmp_path, main, routines)
    run_program("irb140", small_table(rng), path, out, options=RAMP, program_options=INDEXED)
    written = out.read_text()
    assert "    above tcR1{tcIdx()};\n    above tcR2{tcIdx()};\n" in written
    assert "MoveJ Offs(position, 0, 0, 30), v1000" in written


def _ur(rng, n: int):
    chain = load_robot("ur5")
    q = random_configurations(chain, rng, n)
    R, p = fk(nominal_model(chain), q)
    return transform(R, p) @ UR_TCP, q


def test_urscript_poses_written_at_call_sites_keyword_nested_looped_and_through_pose_functions(tmp_path, rng):
    T, q = _ur(rng, 6)
    pose = [ur_pose_text(t) for t in T]
    split = pose[2].replace(", ", ",  # x, y\n    ", 1)
    framed = ur_pose_text(np.linalg.inv(transform(matrix_from_rotvec([0, 0, 0.05]), [0.01, -0.02, 0.005])) @ T[5])
    src = ("def prog():\n  set_tcp(p[0, 0, 0.15, 0, 0, 0])\n"
           "  def go(target, speed=0.25):\n    movel(target, a=1.2, v=speed)\n  end\n"
           "  def outer(t):\n    go(t)\n  end\n"
           "  def above(t):\n    movel(pose_trans(t, p[0, 0, -0.02, 0, 0, 0]), a=1.2, v=0.25)\n  end\n"
           "  def lifted(t):\n    movel(pose_add(t, p[0, 0, 0.01, 0, 0, 0.1]), a=1.2, v=0.25)\n  end\n"
           "  def framed(t):\n    movel(pose_trans(frame, t), a=1.2, v=0.25)\n  end\n"
           f"  go({pose[0]})\n"
           f"  i = 0\n  while i < 2:\n    outer({pose[1]})\n    i = i + 1\n  end\n"
           f"  go(speed=0.1, target={split})\n"
           f"  above({pose[3]})\n  lifted({pose[4]})\n"
           f"  frame = p[0.01, -0.02, 0.005, 0, 0, 0.05]\n  framed({framed})\nend\n")
    path, out = tmp_path / "p.script", tmp_path / "p_out.script"
    path.write_text(src)
    assert read_program(path).unsupported == ()
    assert [src[a:b] for a, b in sorted(_call_site_spans(path))] == [pose[0], pose[1], split, pose[3], pose[4], framed]
    report, table, want = _compensated("ur5", path, out, rng)
    assert report.n_changed_texts == 6
    written = out.read_text()
    assert "# x, y\n" in written and "movel(pose_trans(t, p[0, 0, -0.02, 0, 0, 0])" in written
    kept = src
    for a, b in sorted(_call_site_spans(path), reverse=True):
        kept = kept[:a] + kept[b:]
    cut = written
    for a, b in sorted(_call_site_spans(out), reverse=True):
        cut = cut[:a] + cut[b:]
    assert cut == kept
    _close(_ur_reached(table, out, q[[0, 1, 1, 2, 3, 4, 5]]), want)


def test_urscript_time_indexed_call_site_pose_reads_its_table_at_the_call_site(tmp_path, rng):
    T, _ = _ur(rng, 2)
    src = ("def prog():\n  set_tcp(p[0, 0, 0.15, 0, 0, 0])\n  def go(t):\n    movel(t, a=1.2, v=0.25)\n  end\n"
           f"  go({ur_pose_text(T[0])})\n  go({ur_pose_text(T[1])})\nend\n")
    path, out = tmp_path / "p.script", tmp_path / "p_out.script"
    path.write_text(src)
    run_program("ur5", small_table(rng), path, out, options=RAMP, program_options=INDEXED)
    assert "  go(tc_pose(tc_p1))\n  go(tc_pose(tc_p2))\n" in out.read_text()


def test_joint_targets_at_call_sites_are_read_where_they_are_written(tmp_path):
    rapid = tmp_path / "j.mod"
    rapid.write_text("MODULE m\n  PROC main()\n    home [[0,0,0,0,30,0],[9E+09,9E+09,9E+09,9E+09,9E+09,9E+09]];\n"
                     "  ENDPROC\n  PROC home(jointtarget j)\n    MoveAbsJ j, v1000, fine, tool0;\n  ENDPROC\nENDMODULE\n")
    ur = tmp_path / "j.script"
    ur.write_text("def prog():\n  def joints(q):\n    movej(q, a=1.4, v=1.05)\n  end\n"
                  "  joints([0, -1.57, 1.57, -1.57, -1.57, 0])\nend\n")
    for path, literal in ((rapid, "[[0,0,0,0,30,0],[9E+09,9E+09,9E+09,9E+09,9E+09,9E+09]]"),
                          (ur, "[0, -1.57, 1.57, -1.57, -1.57, 0]")):
        prog = read_program(path)
        (pt,) = prog.points
        assert prog.text[pt.text.start:pt.text.end] == literal and pt.text != pt.argument
        assert prog.extra["call_site"] == {0: "as its target"}


def test_rapid_one_call_site_reached_by_passes_needing_it_different_is_refused_naming_it(tmp_path, rng):
    lit, _ = _literals(rng, 1)
    tools = "[TRUE,[[0,0,100],[1,0,0,0]],[1,[0,0,50],[1,0,0,0],0,0,0]],[TRUE,[[0,0,160],[1,0,0,0]],[1,[0,0,50],[1,0,0,0],0,0,0]]"
    main = f"    FOR k FROM 1 TO 2 DO\n      input {lit[0]}, tools{{k}};\n    ENDFOR\n"
    routines = "  PROC input(robtarget position, PERS tooldata t)\n    MoveJ position, v1000, fine, t;\n  ENDPROC\n"
    src, path, out = _rapid(tmp_path, main, routines, f"  PERS tooldata tools{{2}} := [{tools}];\n")
    with pytest.raises(InputError) as err:
        run_program("irb140", small_table(rng), path, out, options=WARM)
    column = src.split("\n")[5].index("[") + 1
    assert f"line 6, column {column} (an argument of a call) is read by MoveJ at line 10 as its target" in str(err.value)
    assert not out.exists()


def test_urscript_pose_add_with_the_call_site_pose_second_is_solved_back_to_the_call_site(tmp_path, rng):
    """``pose_add(d, t)`` turns ``t``'s orientation in the frame's axes (``R = dR @ R_t``, URScript manual): the
    literal written at each call gives each motion its corrected target, orientation included (a correction
    undone as if turned in the target's own axes would miss by the correction turned through ``dR``)."""
    T, q = _ur(rng, 2)
    d = transform(matrix_from_rotvec([0.0, 0.0, 0.6]), [0.0, 0.0, 0.01])
    inner = [np.linalg.inv(d[:3, :3]) @ t[:3, :3] for t in T]  # (the literals that give T through pose_add(d, .))
    lit = [ur_pose_text(transform(r, t[:3, 3] - d[:3, 3])) for r, t in zip(inner, T)]
    src = ("def prog():\n  set_tcp(p[0, 0, 0.15, 0, 0, 0])\n"
           f"  def lifted(t):\n    movel(pose_add({ur_pose_text(d)}, t), a=1.2, v=0.25)\n  end\n"
           f"  lifted({lit[0]})\n  lifted({lit[1]})\nend\n")
    path, out = tmp_path / "p.script", tmp_path / "p_out.script"
    path.write_text(src)
    assert read_program(path).unsupported == ()
    report, table, want = _compensated("ur5", path, out, rng)
    assert report.n_changed_texts == 2 and "movel(pose_add(p[" in out.read_text()
    reached = _ur_reached(table, out, q)
    _close(reached, want)
    turned = np.einsum("kji,kjl->kil", reached[:, :3, :3], want[:, :3, :3])
    assert np.max(np.arccos(np.clip((np.trace(turned, axis1=1, axis2=2) - 1) / 2, -1, 1))) < 1e-6


@pytest.mark.parametrize("read", ["pose_add(d, t)", "pose_add(t, d)", "pose_trans(t, d)", "pose_trans(d, t)",
                                  "pose_sub(t, d)", "pose_trans(d, pose_add(t, d))"])
def test_urscript_how_a_motion_reads_a_call_site_pose_is_said_in_words_for_every_function(tmp_path, read):
    """What a refusal says of each motion reading a call site's pose (``extra["call_site"]``) is the functions it
    reads it through, in words, also where one turns it (``pose_add(d, t)``: a third matrix, which was said in
    its place as an array)."""
    path = tmp_path / "p.script"
    path.write_text("def prog():\n  set_tcp(p[0, 0, 0.15, 0, 0, 0])\n  def lifted(t):\n"
                    f"    d = p[0, 0, 0.01, 0, 0, 0.6]\n    movel({read}, a=1.2, v=0.25)\n  end\n"
                    "  lifted(p[0.4, 0.1, 0.3, 3.1, 0.1, 0])\n  lifted(p[0.4, 0.2, 0.3, 3.1, 0.1, 0])\nend\n")
    prog = read_program(path)
    names = re.findall(r"pose_\w+", read)
    assert prog.extra["call_site"] == dict.fromkeys((0, 1), "through " + " of ".join(names))


@pytest.mark.parametrize("form", ["indexed", "joints"])
def test_named_data_passed_to_a_routine_are_refused_naming_them_where_the_form_writes_at_the_motion(
        tmp_path, rng, form):
    """``go p10; go p20;`` with ``PROC go(robtarget p) MoveL p``: the time-indexed program writes a table lookup and
    the joints form a joint target at the motion, which both calls run; the refusal names the motion, both data
    (their declarations' lines) and the routine, and writes nothing. A snapshot writes each declaration."""
    lit, _ = _literals(rng, 2)
    decl = f"  CONST robtarget p10 := {lit[0]};\n  CONST robtarget p20 := {lit[1]};\n"
    routines = "  PROC go(robtarget p)\n    MoveL p, v100, fine, tGrip;\n  ENDPROC\n"
    src, path, out = _rapid(tmp_path, "    go p10;\n    go p20;\n", routines, decl)
    lines = src.split("\n")
    line = lines.index("    MoveL p, v100, fine, tGrip;") + 1
    assert run_program("irb140", small_table(rng), path, out, options=WARM).n_changed_texts == 2
    out.unlink()
    options, popts = ((RAMP, INDEXED) if form == "indexed"
                      else (WARM, ProgramOptions(output="joints")))
    with pytest.raises(InputError) as err:
        run_program("irb140", small_table(rng), path, out, options=options, program_options=popts)
    decls = [lines.index(d) + 1 for d in decl.rstrip("\n").split("\n")]
    assert (f"MoveL at line {line}, column 11 reads p10 (line {decls[0]}) and p20 (line {decls[1]}) through a "
            "parameter of go, passed by its calls: ") in str(err.value)
    assert ("--time-indexed" if form == "indexed" else "--program-output joints") in str(err.value)
    assert not out.exists()
