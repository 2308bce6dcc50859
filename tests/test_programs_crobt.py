"""RAPID ``CRobT()`` and ``CJointT()``: where the robot stands, read by a motion (issue 35, item 2).

Written from ABB's RAPID reference ("Technical reference manual - RAPID Instructions, Functions and Data types":
``CRobT([\\TaskRef]|[\\TaskName] [\\Tool] [\\WObj])`` reads the current position, in the tool and work object given,
else the active ones (the last motion's); ``CJointT()`` the current joints; a zone point is passed on a corner path,
``fine`` stops there; ``\\Conc`` runs the statements after a motion while it moves), not copied from any program.
Where the motion before, in the same sequence, goes to a known target and stops there, the value is that target: the
motion reading it is compensated from it and written with its absolute corrected target, which the warm robot
(FK of the deformed model) takes to the intended pose; anywhere else it is refused naming the line and why.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import run_program
from test_programs_rapid import small_table
from test_programs_rapid_cell import T_GRIP, _check_compensated, _module, _reached

from thermocomp import load_robot
from thermocomp.compensation.compensate import CompensationOptions
from thermocomp.deformation.timelaw import Static
from thermocomp.errors import InputError
from thermocomp.geometry.rotations import transform
from thermocomp.programs import read_program
from thermocomp.tolerances import IK_POSITION_TOL

#: A work object turned 30 degrees about the world's z and moved (100, -50, 20) mm.
WTABLE = "  PERS wobjdata wTable := [FALSE,TRUE,\"\",[[100,-50,20],[0.96592583,0,0,0.25881905]],[[0,0,0],[1,0,0,0]]];\n"
W = transform(np.array([[np.cos(np.pi / 6), -np.sin(np.pi / 6), 0.0], [np.sin(np.pi / 6), np.cos(np.pi / 6), 0.0],
                        [0.0, 0.0, 1.0]]), [0.100, -0.050, 0.020])


def _up(T, mm: float):
    """``T`` moved ``mm`` along the world's z (Offs in wobj0, or in ``wTable``, whose z is the world's)."""
    return transform(np.eye(3), [0.0, 0.0, mm * 1e-3]) @ T


@pytest.mark.parametrize("expression, tool, wobj, want", [
    ("Offs(CRobT(\\Tool:=tGrip \\WObj:=wTable), 0, 0, 50)", "tGrip", "wTable", lambda T: _up(T, 50)),
    ("Offs(CRobT(), 0, 0, 50)", "tGrip", "wTable", lambda T: _up(T, 50)),  # (the active tool and work object)
    ("Offs(CRobT(\\Tool:=tool0 \\WObj:=wobj0), 0, 0, 50)", "tool0", None,
     lambda T: _up(T @ np.linalg.inv(T_GRIP), 50)),  # (another tool and work object than the motion's)
    ("RelTool(CRobT(\\Tool:=tGrip), 0, 0, -40)", "tGrip", "wTable", lambda T: T @ transform(np.eye(3), [0, 0, -0.04])),
])
def test_a_relative_move_from_crobt_after_a_fine_stop_is_written_absolute_and_reaches(tmp_path, rng, expression, tool,
                                                                                      wobj, want):
    chain = load_robot("irb140")
    on = "\\WObj:=wTable"
    src, T = _module(chain, rng, f"    MoveJ a, v200, fine, tGrip{on};\n"
                                 f"    MoveL {expression}, v200, fine, {tool}{'' if wobj is None else on};\n"
                                 f"    MoveL b, v200, z10, tGrip{on};\n", decl=WTABLE)
    T = {k: W @ v for k, v in T.items()}  # (the targets are written in wTable)
    report = _check_compensated(tmp_path, src, [T["a"], want(T["a"]), T["b"]], rng)
    assert any("CRobT() is the target of the MoveJ at line" in n for n in report.notes)
    assert "CRobT" not in (tmp_path / "cell_out.mod").read_text()  # (the relative expression replaced)


def test_a_target_assigned_from_crobt_with_a_component_changed_reaches(tmp_path, rng):
    chain = load_robot("irb140")
    src, T = _module(chain, rng, "    MoveL b, v200, fine, tGrip;\n"
                                 "    pUp := CRobT(\\Tool:=tGrip \\WObj:=wobj0);\n"
                                 "    pUp.trans.z := pUp.trans.z + 50;\n"
                                 "    MoveL pUp, v200, fine, tGrip;\n"
                                 "    MoveL c, v200, fine, tGrip;\n", decl="  VAR robtarget pUp;\n")
    _check_compensated(tmp_path, src, [T["b"], _up(T["b"], 50), T["c"]], rng)


def test_the_relative_form_kept_would_miss_what_the_absolute_one_reaches(tmp_path, rng):
    """The class's reason: the written relative expression reads the corrected target the robot stopped at, and moves
    by its correction a second time (measured on the same program, the expression put back)."""
    chain = load_robot("irb140")
    src, T = _module(chain, rng, "    MoveJ a, v200, fine, tGrip;\n    MoveL Offs(CRobT(), 0, 0, 50), v200, fine, tGrip;\n")
    path, out = tmp_path / "cell.mod", tmp_path / "cell_out.mod"
    path.write_text(src)
    table = small_table(rng)
    run_program("irb140", table, path, out, options=CompensationOptions(time_law=Static()))
    written = out.read_text()
    start = written.index("MoveL [[")
    relative = written[:start] + "MoveL Offs(CRobT(), 0, 0, 50)" + written[written.index(", v200", start):]
    (tmp_path / "relative.mod").write_text(relative)
    miss = [np.linalg.norm(_reached(chain, table, p)[1, :3, 3] - _up(T["a"], 50)[:3, 3]) for p in (
        out, tmp_path / "relative.mod")]
    assert miss[0] < 1e-6 + 10 * IK_POSITION_TOL < 1e-5 < miss[1]


@pytest.mark.parametrize("main, line, why", [
    ("    MoveJ a, v200, z10, tGrip;\n    MoveL Offs(CRobT(), 0, 0, 50), v200, fine, tGrip;\n", 1,
     "the MoveJ at line {0} before it ends in zone z10, not at a stop point"),
    ("    MoveJ a, v200, fine, tGrip\\Conc;\n    MoveL Offs(CRobT(), 0, 0, 50), v200, fine, tGrip;\n", 1,
     "the MoveJ at line {0} before it runs with \\\\Conc"),
    ("    MoveAbsJ jHome, v200, fine, tGrip;\n    MoveL Offs(CRobT(), 0, 0, 50), v200, fine, tGrip;\n", 1,
     "the MoveAbsJ at line {0} before it goes to a joint target"),
    ("    MoveL Offs(CRobT(), 0, 0, 50), v200, fine, tGrip;\n", 0, "no motion comes before it in its sequence"),
    ("    MoveJ a, v200, fine, tGrip;\n    IF DInput(di1) = 1 THEN\n"
     "      MoveL Offs(CRobT(), 0, 0, 50), v200, fine, tGrip;\n    ENDIF\n", 2, "no motion comes before it"),
    ("    MoveJ a, v200, fine, tGrip;\n    IF DInput(di1) = 1 THEN\n      MoveL b, v200, fine, tGrip;\n    ENDIF\n"
     "    MoveL Offs(CRobT(), 0, 0, 50), v200, fine, tGrip;\n", 4, "no motion comes before it"),
    ("    MoveJ a, v200, fine, tGrip;\n    FOR i FROM 1 TO 3 DO\n"
     "      MoveL Offs(CRobT(), 0, 0, 10), v200, fine, tGrip;\n    ENDFOR\n", 2, "no motion comes before it"),
    ("    MoveJ a, v200, fine, tGrip;\n  again:\n    MoveL Offs(CRobT(), 0, 0, 10), v200, fine, tGrip;\n"
     "    IF DInput(di1) = 1 GOTO again;\n", 2, "no motion comes before it"),
    ("    MoveJ a, v200, fine, tGrip;\n    MoveL Offs(CRobT(\\TaskName:=\"T_ROB2\"), 0, 0, 10), v200, fine, tGrip;\n",
     1, "CRobT with \\\\TaskName is not followed"),
    ("    MoveJ a, v200, z10, tGrip;\n    pUp := CRobT();\n    pUp.trans.z := pUp.trans.z + 50;\n"
     "    MoveL pUp, v200, fine, tGrip;\n", 3, "pUp is changed at run time \\(line {1}, column 5: CRobT\\(\\) at line {1} "
     "is where the robot stands, not known before running: the MoveJ at line {0} before it ends in zone z10"),
    ("    MoveJ a, v200, fine, tGrip;\n    jNow := CJointT();\n    MoveAbsJ jNow, v200, fine, tGrip;\n", 2,
     "jNow is changed at run time .*the MoveJ at line {0} before it goes to a robtarget"),
])
def test_where_the_robot_stands_is_refused_where_it_is_known_only_while_running(tmp_path, rng, main, line, why):
    """``line``: of the refusal, counted from main's first statement, as the lines ``why`` names (``{k}``)."""
    chain = load_robot("irb140")
    src, _ = _module(chain, rng, main, decl="  VAR robtarget pUp;\n  VAR jointtarget jNow;\n"
                                            "  CONST jointtarget jHome := [[0,0,0,0,30,0],[9E9,9E9,9E9,9E9,9E9,9E9]];\n")
    first = src.split("\n").index("  PROC main()") + 2
    line, why = first + line, why.format(first, first + 1)
    path = tmp_path / "cell.mod"
    path.write_text(src)
    assert read_program(path).unsupported[0].line == line
    with pytest.raises(InputError, match=f"cell.mod:{line}:.*{why}"):
        run_program("irb140", small_table(rng), path, tmp_path / "out.mod")


@pytest.mark.parametrize("second", ["b", "a"])
def test_a_routine_reading_crobt_called_after_two_stops_gets_a_target_a_call(tmp_path, rng, second):
    """Called after two different stops, its motion's text needs one absolute target a call: a table of one entry a
    call (docs/programs.md); after the same stop twice, one target."""
    chain = load_robot("irb140")
    src, T = _module(chain, rng, f"    MoveL a, v200, fine, tGrip;\n    Lift;\n    MoveL {second}, v200, fine, tGrip;\n"
                                 "    Lift;\n", routines="  PROC Lift()\n"
                                 "    MoveL Offs(CRobT(\\Tool:=tGrip), 0, 0, 50), v200, fine, tGrip;\n  ENDPROC\n")
    path, out = tmp_path / "cell.mod", tmp_path / "cell_out.mod"
    path.write_text(src)
    table = small_table(rng)
    report = run_program("irb140", table, path, out, options=CompensationOptions(time_law=Static()))
    reached = _reached(chain, table, out)
    want = [T["a"], _up(T["a"], 50), T[second], _up(T[second], 50)]
    assert np.max(np.linalg.norm(reached[:, :3, 3] - np.stack(want)[:, :3, 3], axis=1)) < 1e-6 + 10 * IK_POSITION_TOL
    assert ("tcPassT1{2}" in out.read_text()) == (second == "b")
    first = src.split("\n").index("  PROC main()") + 2
    assert any(f"the calls of Lift at lines {first + 1}, {first + 3}" in n for n in report.notes) == (second == "b")


def test_cjointt_after_a_moveabsj_is_its_joints(tmp_path, rng):
    chain = load_robot("irb140")
    src, _ = _module(chain, rng, "    MoveAbsJ jHome, v200, fine, tGrip;\n    jNow := CJointT();\n"
                                 "    jNow.robax.rax_1 := jNow.robax.rax_1 + 10;\n    MoveAbsJ jNow, v200, fine, tGrip;\n",
                     decl="  VAR jointtarget jNow;\n"
                          "  CONST jointtarget jHome := [[5,0,10,0,30,0],[9E9,9E9,9E9,9E9,9E9,9E9]];\n")
    path = tmp_path / "cell.mod"
    path.write_text(src)
    prog = read_program(path)
    assert not prog.unsupported
    np.testing.assert_allclose(np.degrees(prog.points[1].q), [15, 0, 10, 0, 30, 0], atol=1e-12)


_ASSIGNED = "    pUp := {};\n    IF pUp.trans.z > -1000 THEN\n      MoveL a, v200, fine, tGrip;\n    ENDIF\n"
_PASSED = "    Decide {};\n"
_DECIDE = ("  PROC Decide(robtarget here)\n    IF here.trans.z > -1000 THEN\n      MoveL a, v200, fine, tGrip;\n"
           "    ENDIF\n  ENDPROC\n")


@pytest.mark.parametrize("body, given, decided", [
    (_ASSIGNED, "CRobT()", False), (_ASSIGNED, "b", True),  # (assigned, then read by the condition)
    (_PASSED, "CRobT()", False), (_PASSED, "Offs(CRobT(), 0, 0, 10)", False), (_PASSED, "b", True),  # (a parameter)
])
def test_a_condition_reading_where_the_robot_stands_is_decided_only_while_running(tmp_path, rng, body, given, decided):
    """The controller reads the corrected target there, assigned or passed to a routine's parameter: the condition
    could go the other way."""
    chain = load_robot("irb140")
    src, _ = _module(chain, rng, "    MoveL b, v200, fine, tGrip;\n" + body.format(given),
                     routines=_DECIDE if body is _PASSED else "", decl="  VAR robtarget pUp;\n")
    path = tmp_path / "cell.mod"
    path.write_text(src)
    prog = read_program(path)
    assert not prog.unsupported
    assert any(n.message.startswith("IF: not resolved") for n in prog.notes) != decided


@pytest.mark.parametrize("moves, refused", [(True, True), (False, False)])
def test_urscript_after_an_if_of_unknown_course_that_moves_the_pose_the_robot_stands_at_is_not_known(tmp_path, moves,
                                                                                                    refused):
    """The same rule in URScript: the path that skips the branch stands at the motion before the ``if``, the other at
    the branch's (a branch that moves nothing leaves it where it was)."""
    branch = "    movel(p[0.45, -0.1, 0.3, 0, 3.14, 0], a=1.2, v=0.25, r=0)\n" if moves else "    sleep(0.1)\n"
    path = tmp_path / "prog.script"
    path.write_text("def prog():\n  set_tcp(p[0, 0, 0.1, 0, 0, 0])\n"
                    "  movel(p[0.4, -0.1, 0.3, 0, 3.14, 0], a=1.2, v=0.25, r=0)\n"
                    f"  if read_input_boolean_register(0):\n{branch}  end\n"
                    "  movel(pose_trans(get_actual_tcp_pose(), p[0, 0, -0.03, 0, 0, 0]), a=1.2, v=0.25)\nend\n")
    prog = read_program(path)
    assert [f.line for f in prog.unsupported] == ([7] if refused else [])
    if refused:
        assert "after a construct of course known only while running that moves" in prog.unsupported[0].message
    else:
        np.testing.assert_allclose(prog.points[-1].T_world_tcp[:3, 3], [0.4, -0.1, 0.33], atol=1e-4)
