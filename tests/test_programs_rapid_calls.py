"""RAPID routines called with arguments (``PROC pick(robtarget p, PERS tooldata t)``): followed per call.

Each call binds its arguments: a target passed by name is written back in
its declaration (when the routine uses the parameter only as a motion's
point), any other argument is evaluated in the caller and written where the
routine uses it. One written text serves every call: a routine whose own
text would need another target on another call is named with the call's
line (and with ``--unsupported keep`` all of those motions stay as written).
The written programs are checked by reading the text back and running the
deformed robot's FK on what the controller would do with it.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import run_program
from program_builders import random_configurations, robtarget_text
from test_programs_rapid import controller_joints, small_table

from thermocomp import DeformationTable, deformed_model, fk, load_robot, nominal_model
from thermocomp.compensation.compensate import CompensationOptions
from thermocomp.deformation.timelaw import Static
from thermocomp.errors import InputError
from thermocomp.geometry.rotations import transform
from thermocomp.kinematics.confdata import confdata_from_q
from thermocomp.programs import ProgramOptions, read_program
from thermocomp.tolerances import IK_POSITION_TOL

TOOL = "  PERS tooldata grip := [TRUE,[[0,0,120],[1,0,0,0]],[1,[0,0,50],[1,0,0,0],0,0,0]];\n"
T_GRIP = transform(np.eye(3), [0.0, 0.0, 0.120])


def _module(chain, rng, main: str, routines: str, names: str = "abc"):
    """Targets ``names`` at random configurations (poses known), the tool ``grip``, ``main`` and ``routines``."""
    q = random_configurations(chain, rng, len(names))
    R, p = fk(nominal_model(chain), q)
    T = transform(R, p) @ T_GRIP
    cf = confdata_from_q(nominal_model(chain), q)
    decl = "".join(f"  CONST robtarget {n}:=" + robtarget_text(T[i], cf[i]) + ";\n" for i, n in enumerate(names))
    src = "MODULE m\n" + decl + TOOL + "  PROC main()\n" + main + "  ENDPROC\n" + routines + "ENDMODULE\n"
    return src, dict(zip(names, T))


PICK = "  PROC pick(robtarget p, PERS tooldata t)\n    MoveL p, v100, fine, t;\n  ENDPROC\n"


def _compensated(tmp_path, src, table, **options):
    """``src`` written as p.mod and compensated with ``table`` (the full table, static) into p_out.mod."""
    path, out = tmp_path / "p.mod", tmp_path / "p_out.mod"
    path.write_text(src)
    run_program("irb140", table, path, out, options=CompensationOptions(time_law=Static()), **options)
    return out


def _reached(chain, table, path):
    """World TCP poses the warm robot reaches running the written program (its points in order)."""
    written = read_program(path)
    q, status = controller_joints(chain, written)
    assert np.all(status == 0)
    R, p = fk(deformed_model(chain, table, 1.0), q)
    return transform(R, p) @ np.stack([pt.T_flange_tcp for pt in written.points])


def test_each_call_binds_its_own_targets_and_tool(tmp_path, rng):
    chain = load_robot("irb140")
    src, T = _module(chain, rng, "    pick a, grip;\n    pick b, grip;\n    MoveJ c, v100, fine, grip;\n"
                                 "    pick c, grip;\n", PICK)
    path = tmp_path / "p.mod"
    path.write_text(src)
    prog = read_program(path)
    assert prog.unsupported == ()
    got = np.stack([pt.T_world_tcp for pt in prog.points])
    np.testing.assert_allclose(got, np.stack([T["a"], T["b"], T["c"], T["c"]]), atol=1e-12)
    assert all(np.allclose(pt.T_flange_tcp, T_GRIP) for pt in prog.points)
    # zero table: byte-identical; a warm table: each declaration written back, the routine untouched
    out = tmp_path / "p_out.mod"
    run_program("irb140", DeformationTable.from_mm_deg(np.zeros((6, 6))), path, out)
    assert out.read_text() == src
    table = small_table(rng)
    run_program("irb140", table, path, out, options=CompensationOptions(time_law=Static()))
    text = out.read_text()
    assert text[text.index("  PROC main()"):] == src[src.index("  PROC main()"):]
    reached = _reached(chain, table, out)
    want = np.stack([T["a"], T["b"], T["c"], T["c"]])
    assert np.max(np.linalg.norm(reached[:, :3, 3] - want[:, :3, 3], axis=1)) < 1e-6 + 10 * IK_POSITION_TOL


def test_an_expression_argument_is_written_where_the_routine_uses_it(tmp_path, rng):
    """``pick Offs(a, 0, 0, 20), grip``: the routine's ``p`` holds that call's corrected target."""
    chain = load_robot("irb140")
    src, T = _module(chain, rng, "    pick Offs(a, 0, 0, 20), grip;\n    MoveJ b, v100, fine, grip;\n", PICK)
    table = small_table(rng)
    out = _compensated(tmp_path, src, table)
    assert "    MoveL [[" in out.read_text()  # written at the routine's use of p
    want = T["a"].copy()
    want[2, 3] += 0.020
    reached = _reached(chain, table, out)
    assert np.linalg.norm(reached[0, :3, 3] - want[:3, 3]) < 1e-6 + 10 * IK_POSITION_TOL


APPROACH = ("  PROC pick(robtarget p, PERS tooldata t)\n    MoveL Offs(p, 0, 0, 50), v500, z10, t;\n"
            "    MoveL p, v100, fine, t;\n  ENDPROC\n")


def test_a_routine_whose_own_text_needs_another_target_per_call_is_named_at_the_call(tmp_path, rng):
    """``MoveL p`` reading a and b, whose declarations stay as written (``RelTool`` of them in main reads them
    too), is written at the motion: one text, two calls with two targets need two: refused at the second call (a
    text at the motion only once the declarations are decided is no per-pass table, tests/test_programs_percall.py);
    kept as written on request (both calls' motions, so no call runs the other's)."""
    chain = load_robot("irb140")
    main = ("    pick a, grip;\n    pick b, grip;\n    MoveJ c, v100, fine, grip;\n"
            "    MoveL RelTool(a, 0, 0, -50), v100, fine, grip;\n    MoveL RelTool(b, 0, 0, -50), v100, fine, grip;\n")
    src, T = _module(chain, rng, main, "  PROC pick(robtarget p, PERS tooldata t)\n    MoveL p, v100, fine, t;\n"
                     "  ENDPROC\n")
    path = tmp_path / "p.mod"
    path.write_text(src)
    out = tmp_path / "p_out.mod"
    with pytest.raises(InputError) as info:
        run_program("irb140", small_table(rng), path, out, options=CompensationOptions(time_law=Static()))
    line = src.splitlines().index("    pick b, grip;") + 1
    assert info.value.row == line and "another target on this call of pick" in str(info.value)
    assert not out.exists()
    report = run_program("irb140", small_table(rng), path, out, options=CompensationOptions(time_law=Static()),
                                program_options=ProgramOptions(unsupported="keep"))
    text = out.read_text()
    assert text[text.index("  PROC pick("):] == src[src.index("  PROC pick("):]  # pick's motion as written
    assert text != src and text.count("CONST robtarget") == 3  # c written back in its declaration
    for name in "ab":  # the calls read a and b as written
        line = next(x for x in src.splitlines() if x.startswith(f"  CONST robtarget {name}:="))
        assert line in text.splitlines()
    assert len(report.unsupported) == 1 and sum(report.summary.status_counts.values()) == 3  # MoveJ c, the RelTools


def test_the_same_target_on_every_call_is_followed_offsets_included(tmp_path, rng):
    chain = load_robot("irb140")
    src, T = _module(chain, rng, "    pick a, grip;\n    MoveJ b, v100, fine, grip;\n    pick a, grip;\n", APPROACH)
    table = small_table(rng)
    out = _compensated(tmp_path, src, table)
    above = T["a"].copy()
    above[2, 3] += 0.050
    want = np.stack([above, T["a"], T["b"], above, T["a"]])
    reached = _reached(chain, table, out)
    assert np.max(np.linalg.norm(reached[:, :3, 3] - want[:, :3, 3], axis=1)) < 1e-6 + 10 * IK_POSITION_TOL


@pytest.mark.parametrize(("call", "words"), [
    ("    pick a;\n", "takes 2 argument(s)"),
    ("    pick a, grip, grip;\n", "takes 2 argument(s)"),
    ("    pick a, grip \\Speed:=v100;\n", "no optional parameter"),
    ("    pick grip, a;\n", "parameter p is a robtarget"),
])
def test_a_call_the_controller_would_refuse_is_an_error_at_its_line(tmp_path, rng, call, words):
    chain = load_robot("irb140")
    src, _ = _module(chain, rng, call, PICK)
    path = tmp_path / "p.mod"
    path.write_text(src)
    with pytest.raises(InputError) as info:
        read_program(path)
    assert info.value.row == src.splitlines().index(call.rstrip("\n")) + 1 and words in str(info.value)


def test_joint_output_of_one_routine_for_two_targets_is_refused_not_mixed_up(tmp_path, rng):
    """``--program-output joints`` must write a jointtarget at the routine's ``p``: one text, two calls with two
    targets: refused naming the line (never one call's joints run by the other)."""
    chain = load_robot("irb140")
    src, _ = _module(chain, rng, "    pick a, grip;\n    pick b, grip;\n", PICK)
    path = tmp_path / "p.mod"
    path.write_text(src)
    out = tmp_path / "p_out.mod"
    with pytest.raises(InputError) as info:
        run_program("irb140", small_table(rng), path, out, options=CompensationOptions(time_law=Static()),
                           program_options=ProgramOptions(output="joints"))
    assert info.value.row == src.splitlines().index("    MoveL p, v100, fine, t;") + 1
    assert not out.exists()


def test_data_a_statement_not_followed_may_change_is_not_known_after_it(tmp_path, rng):
    """``p := ...`` inside an IF (whose condition is known only while running) or inside a routine given ``p`` by
    reference: a later motion to p cannot be compensated from p's declared value (it would be silently wrong with
    --unsupported keep)."""
    chain = load_robot("irb140")
    src, T = _module(chain, rng, "    MoveJ a, v100, fine, grip;\n    IF reg1 > 0 THEN\n      a := Offs(b, 0, 0, 10);\n"
                                 "    ENDIF\n    MoveL a, v100, fine, grip;\n    shift b;\n    MoveL b, v100, fine, grip;\n"
                                 "    MoveL c, v100, fine, grip;\n",
                     "  PROC shift(INOUT robtarget x)\n    x := Offs(x, 0, 0, 5);\n  ENDPROC\n")
    src = src.replace("MODULE m\n", "MODULE m\n  PERS num reg1 := 0;\n").replace("CONST robtarget a", "VAR robtarget a") \
        .replace("CONST robtarget b", "VAR robtarget b")  # (reg1: the operator's register, a PERS as in user.sys)
    path = tmp_path / "p.mod"
    path.write_text(src)
    prog = read_program(path)
    lines = src.splitlines()
    found = {f.line: f.message for f in prog.unsupported}
    assert found.keys() == {lines.index("    MoveJ a, v100, fine, grip;") + 1,  # the next cycle's a may differ
                            lines.index("    MoveL a, v100, fine, grip;") + 1,
                            lines.index("    MoveL b, v100, fine, grip;") + 1}  # (``a := Offs(b ...)``, no motion)
    given = lines.index("      a := Offs(b, 0, 0, 10);") + 1
    assert found[lines.index("    MoveJ a, v100, fine, grip;") + 1].startswith(
        f"a is changed at run time (line {given}, column 7; it differs from cycle to cycle)")
    assert [n.line for n in prog.notes if "not resolved" in n.message] == [lines.index("    IF reg1 > 0 THEN") + 1]
    assert "a is changed at run time" in found[lines.index("    MoveL a, v100, fine, grip;") + 1]
    assert "b is changed at run time" in found[lines.index("    MoveL b, v100, fine, grip;") + 1]
    np.testing.assert_allclose([p.T_world_tcp for p in prog.points], [T["c"]], atol=1e-12)


def _pallet(chain, rng):
    """A palletizing module: pick, three places in a robtarget array, two homes in a jointtarget array."""
    q = random_configurations(chain, rng, 6)
    R, p = fk(nominal_model(chain), q)
    T = transform(R, p) @ T_GRIP
    cf = confdata_from_q(nominal_model(chain), q)
    places = ",\n".join("        " + robtarget_text(T[i], cf[i]) for i in (1, 2, 3)).replace(",\n", ", ! first\n", 1)
    homes = ",".join(f"[[{','.join(f'{x:.6f}' for x in np.degrees(q[i]))}],[9E+09,9E+09,9E+09,9E+09,9E+09,9E+09]]"
                     for i in (4, 5))
    src = ("MODULE pallet\n" + TOOL + "  CONST robtarget pick:=" + robtarget_text(T[0], cf[0]) + ";\n"
           "  CONST robtarget place{3}:=[\n" + places + "];\n  CONST jointtarget homes{2}:=[" + homes + "];\n"
           "  PROC main()\n    MoveAbsJ homes{1}, v1000, z50, grip;\n    FOR i FROM 1 TO 3 DO\n"
           "      MoveJ pick, v1000, z50, grip;\n      MoveL place{i}, v500, fine, grip;\n    ENDFOR\n"
           "    MoveAbsJ homes{2}, v1000, fine, grip;\n  ENDPROC\nENDMODULE\n")
    return src, T, np.radians(np.round(np.degrees(q), 6))


def test_arrays_of_targets_are_followed_element_by_element(tmp_path, rng):
    """``place{i}`` in a FOR loop reads element i; the compensated program writes each element back in place."""
    chain = load_robot("irb140")
    src, T, q = _pallet(chain, rng)
    path = tmp_path / "pallet.mod"
    path.write_text(src)
    prog = read_program(path)
    assert prog.unsupported == ()
    assert len(prog.points) == 8
    np.testing.assert_allclose(prog.points[0].q, q[4], atol=1e-12)
    np.testing.assert_allclose(prog.points[7].q, q[5], atol=1e-12)
    got = np.stack([pt.T_world_tcp for pt in prog.points[1:7]])
    np.testing.assert_allclose(got, T[[0, 1, 0, 2, 0, 3]], atol=1e-12)
    out = tmp_path / "pallet_out.mod"
    run_program("irb140", DeformationTable.from_mm_deg(np.zeros((6, 6))), path, out)
    assert out.read_text() == src
    table = small_table(rng)
    run_program("irb140", table, path, out, options=CompensationOptions(time_law=Static()),
                       program_options=ProgramOptions(joint_targets="compensate"))
    text = out.read_text()
    assert text[text.index("  PROC main()"):] == src[src.index("  PROC main()"):] and "]], ! first\n" in text
    written = read_program(out)
    q_ctrl, status = controller_joints(chain, written)
    assert np.all(status == 0)
    R, p = fk(deformed_model(chain, table, 1.0), q_ctrl)
    reached = transform(R, p) @ np.stack([pt.T_flange_tcp for pt in written.points])
    want = np.concatenate([fk_tcp(chain, q[4])[None], T[[0, 1, 0, 2, 0, 3]], fk_tcp(chain, q[5])[None]])
    assert np.max(np.linalg.norm(reached[:, :3, 3] - want[:, :3, 3], axis=1)) < 1e-6 + 10 * IK_POSITION_TOL


def test_an_array_of_two_dimensions_of_targets_and_of_names_is_followed(tmp_path, rng):
    """``CONST robtarget grid{2,2} := [[a, b], [c, d]]`` (an aggregate of declared names, as RobotStudio users write
    it) and ``grid{i, j}`` in nested FOR loops: each element is read, the order is the loops', and a zero table gives
    the module back byte for byte; a compensated one reaches every target."""
    chain = load_robot("irb140")
    q = random_configurations(chain, rng, 4)
    R, p = fk(nominal_model(chain), q)
    T = transform(R, p) @ T_GRIP
    cf = confdata_from_q(nominal_model(chain), q)
    decl = "".join(f"  CONST robtarget {n}:=" + robtarget_text(T[k], cf[k]) + ";\n" for k, n in enumerate("abcd"))
    src = ("MODULE grid\n" + TOOL + decl + "  CONST robtarget grid{2, 2} := [[a, b],\n    [c, d]];\n"
           "  PROC main()\n    FOR i FROM 1 TO 2 DO\n      FOR j FROM 1 TO 2 DO\n"
           "        MoveL grid{i, j}, v500, fine, grip;\n      ENDFOR\n    ENDFOR\n  ENDPROC\nENDMODULE\n")
    path = tmp_path / "grid.mod"
    path.write_text(src)
    prog = read_program(path)
    assert prog.unsupported == ()
    np.testing.assert_allclose(np.stack([pt.T_world_tcp for pt in prog.points]), T, atol=1e-12)
    out = tmp_path / "grid_out.mod"
    run_program("irb140", DeformationTable.from_mm_deg(np.zeros((6, 6))), path, out)
    assert out.read_text() == src
    table = small_table(rng)
    run_program("irb140", table, path, out, options=CompensationOptions(time_law=Static()))
    written = read_program(out)
    q_ctrl, status = controller_joints(chain, written)
    assert np.all(status == 0) and out.read_text() != src
    R, p = fk(deformed_model(chain, table, 1.0), q_ctrl)
    reached = transform(R, p) @ np.stack([pt.T_flange_tcp for pt in written.points])
    assert np.max(np.linalg.norm(reached[:, :3, 3] - T[:, :3, 3], axis=1)) < 1e-6 + 10 * IK_POSITION_TOL


def fk_tcp(chain, q):
    R, p = fk(nominal_model(chain), q)
    return transform(R, p) @ T_GRIP


@pytest.mark.parametrize(("change", "words"), [
    (("MoveL place{i}", "MoveL place{i + 1}"), "index 4 outside place{1..3}"),
    (("CONST robtarget place{3}", "CONST robtarget place{4}"), "expected 4 elements"),
    (("MoveAbsJ homes{1}", "MoveAbsJ homes{1, 1}"), "homes has 1 dimension"),
])
def test_an_array_use_it_cannot_follow_is_named_with_its_line(tmp_path, rng, change, words):
    chain = load_robot("irb140")
    src, _, _ = _pallet(chain, rng)
    src = src.replace(*change)
    path = tmp_path / "pallet.mod"
    path.write_text(src)
    with pytest.raises(InputError, match=words.replace("{", r"\{").replace("}", r"\}").replace(".", r"\.")):
        read_program(path)


GRIPPER = ("  PROC grip_open()\n    VAR num tries := 0;\n    SetDO doGrip, 0;\n"
           "    WHILE DInput(diOpen) = 0 AND tries < 10 DO\n      WaitTime 0.1;\n      Incr tries;\n    ENDWHILE\n"
           "  ENDPROC\n  PROC grip_close(num force)\n    IF force > 10 THEN\n      SetAO aoForce, force;\n    ENDIF\n"
           "    SetDO doGrip, 1;\n  ENDPROC\n")


@pytest.mark.parametrize(("routines", "motions", "refused"), [
    (GRIPPER, 3, ""),
    (GRIPPER.replace("      WaitTime 0.1;\n", "      MoveL c, v100, fine, grip;\n"), 4, ""),  # it moves: c is constant
    # (a given in the WHILE: MoveL a after it refused, and MoveJ a before it too, which the next cycle runs with it)
    (GRIPPER.replace("      Incr tries;\n", "      a := Offs(c, 0, 0, 5);\n"), 1, "a is changed at run time"),
    (GRIPPER.replace("      SetAO aoForce, force;\n", "      VelSet 50, 500;\n"), 3, ""),  # (speeds: timing only)
    (GRIPPER.replace("      SetAO aoForce, force;\n", "      other force;\n"), 3, ""),  # one found nowhere: passed over
])
def test_a_routine_that_branches_has_its_constant_targets_compensated(tmp_path, rng, routines, motions, refused):
    """A gripper routine's WHILE and IF (conditions known only while running) are followed once, in written order:
    a motion inside to a constant target is compensated; data they assign is known only while running after them
    (a motion reading it is refused, naming it); a call of a routine found nowhere is passed over (what it is passed,
    the routine's parameter, read by no motion)."""
    chain = load_robot("irb140")
    src, T = _module(chain, rng, "    MoveJ a, v100, fine, grip;\n    grip_open;\n    MoveL b, v100, fine, grip;\n"
                                 "    grip_close 20;\n    MoveL a, v100, fine, grip;\n", routines)
    src = src.replace("CONST robtarget a", "VAR robtarget a")
    path = tmp_path / "g.mod"
    path.write_text(src)
    prog = read_program(path)
    assert len(prog.motions) == motions
    unresolved = {n.line for n in prog.notes if "not resolved before running" in n.message}
    # (IF force > 10: decided by the call's argument, 20: its branch runs, as on the controller)
    assert unresolved == {src.splitlines().index("    WHILE DInput(diOpen) = 0 AND tries < 10 DO") + 1}
    if refused:
        assert prog.unsupported and refused in prog.unsupported[0].message
        return
    assert prog.unsupported == ()
    out = tmp_path / "g_out.mod"
    run_program("irb140", small_table(rng), path, out, options=CompensationOptions(time_law=Static()))
    text = out.read_text()
    if motions == 3:  # nothing in the routines to write
        assert text[text.index("  PROC grip_open()"):] == src[src.index("  PROC grip_open()"):]
    else:
        declared_c = next(x for x in src.splitlines() if "robtarget c:=" in x)
        assert declared_c not in text.splitlines()  # c, reached inside the WHILE, is compensated


def _robodk(chain, rng):
    """A module as RoboDK writes it for the IRB140: tool, work object and speed assigned before the motions."""
    q = random_configurations(chain, rng, 3)
    R, p = fk(nominal_model(chain), q)
    wobj = transform(np.eye(3), [0.4, 0.0, 0.0])
    T_in_wobj = np.linalg.inv(wobj) @ transform(R, p) @ T_GRIP
    cf = confdata_from_q(nominal_model(chain), q)
    targets = [robtarget_text(T_in_wobj[i], cf[i]).rsplit(",[9E+09", 1)[0] + ",rdkExtax]" for i in range(3)]
    src = ("MODULE MOD_Prog1\n\n"
           "PERS wobjdata rdkWObj := [FALSE, TRUE, \"\", [[0,0,0],[1,0,0,0]],[[0,0,0],[1,0,0,0]]];\n"
           "PERS tooldata rdkTool := [TRUE,[[0,0,0],[1,0,0,0]],[3,[0,0,200],[1,0,0,0],0,0,0.005]];\n"
           "VAR speeddata rdkSpeed := [500,500,5000,1000];\n"
           "VAR zonedata rdkZone := [FALSE,0.3,0.3,0.3,0.03,0.3,0.03];\n"
           "VAR extjoint rdkExtax := [9E9,9E9,9E9,9E9,9E9,9E9];\n\nPROC main()\n"
           "    !Program generated by RoboDK for ABB IRB 140\n    ConfJ \\On;\n    ConfL \\Off;\n"
           "    rdkTool := [TRUE,[[0,0,120],[1,0,0,0]],[3,[0,0,200],[1,0,0,0],0,0,0.005]];\n"
           "    rdkWObj := [FALSE, TRUE, \"\", [[400,0,0],[1,0,0,0]],[[0,0,0],[1,0,0,0]]];\n"
           "    rdkSpeed := [500,500,5000,1000];\n"
           f"    MoveJ {targets[0]},rdkSpeed,rdkZone,rdkTool,\\WObj:=rdkWObj;\n"
           "    rdkSpeed := [100,500,5000,1000];\n"
           f"    MoveL {targets[1]},rdkSpeed,rdkZone,rdkTool,\\WObj:=rdkWObj;\n"
           f"    MoveL {targets[2]},rdkSpeed,rdkZone,rdkTool,\\WObj:=rdkWObj;\n"
           "ENDPROC\nENDMODULE\n")
    return src, transform(R, p) @ T_GRIP


def test_a_robodk_module_assigns_tool_work_object_and_speed_before_its_motions(tmp_path, rng):
    """``rdkTool := ...;`` then ``MoveL ..., rdkTool``: followed in order, the motions use the values assigned
    (RoboDK's RAPID was refused whole: "rdkTool is changed at run time")."""
    chain = load_robot("irb140")
    src, T = _robodk(chain, rng)
    path = tmp_path / "rdk.mod"
    path.write_text(src)
    prog = read_program(path)
    assert prog.unsupported == ()
    np.testing.assert_allclose(np.stack([pt.T_world_tcp for pt in prog.points]), T, atol=1e-9)
    assert all(np.allclose(pt.T_flange_tcp, T_GRIP) for pt in prog.points)
    assert [m.tcp_speed for m in prog.motions] == [0.5, 0.1, 0.1]
    out = tmp_path / "rdk_out.mod"
    run_program("irb140", DeformationTable.from_mm_deg(np.zeros((6, 6))), path, out)
    assert out.read_text() == src
    table = small_table(rng)
    out = _compensated(tmp_path, src, table)
    reached = _reached(chain, table, out)
    assert np.max(np.linalg.norm(reached[:, :3, 3] - T[:, :3, 3], axis=1)) < 1e-6 + 10 * IK_POSITION_TOL


@pytest.mark.parametrize(("change", "words"), [
    (("    rdkTool := [TRUE,[[0,0,120]", "    MoveJ c, v100, fine, rdkTool;\n    rdkTool := [TRUE,[[0,0,120]"),
     "rdkTool is changed at run time"),  # the next cycle would run MoveJ c with the other tool
    # a speed known only while running changes the times, not the targets: noted, the motions compensated
    (("    rdkSpeed := [100,500,5000,1000];", "    rdkSpeed := CSpeedOverride();"), "taken as v1000 for the timing"),
])
def test_an_assignment_it_cannot_follow_for_every_cycle_is_named(tmp_path, rng, change, words):
    chain = load_robot("irb140")
    src, _ = _robodk(chain, rng)
    src = src.replace(*change).replace("PERS wobjdata", "CONST robtarget c:=" + robtarget_text(
        transform(np.eye(3), [0.5, 0, 0.5]) @ transform(np.diag([1.0, -1.0, -1.0]), [0, 0, 0]), [0, 0, 0, 0])
        + ";\nPERS wobjdata")
    path = tmp_path / "rdk.mod"
    path.write_text(src)
    prog = read_program(path)
    found = prog.notes if "timing" in words else prog.unsupported
    assert any(words in f.message for f in found), [f.message for f in prog.unsupported]
    if "timing" in words:
        assert prog.unsupported == () and any("rdkSpeed is changed at run time" in f.message for f in found)


def test_a_speed_a_cycle_changes_after_reading_it_changes_times_not_targets(tmp_path, rng):
    """rdkSpeed read by the first motion, then given another value: the next cycle runs slower or faster, at the
    same targets, so the module is followed (a tool changed so is refused: the test above)."""
    chain = load_robot("irb140")
    src, T = _robodk(chain, rng)
    src = src.replace("    rdkSpeed := [500,500,5000,1000];\n", "")
    path = tmp_path / "rdk.mod"
    path.write_text(src)
    prog = read_program(path)
    assert prog.unsupported == () and [m.tcp_speed for m in prog.motions] == [0.5, 0.1, 0.1]
