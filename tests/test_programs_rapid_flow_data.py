"""RAPID data that a condition or loop decided only while running gives a value (issue 35, item 2).

Written from the RAPID reference manual's syntax (IF/ELSE, TEST/CASE/DEFAULT, WHILE, ``CONNECT ... WITH``,
``ITimer``, ``IDelete``, FUNC and PROC declarations): each datum assigned in a branch the file cannot decide has
one value per path. A motion that runs with another value of it on another path (a routine called from two
branches that set its work object; a read after the join) is refused naming the datum, the line of the assignment
and the line of the motion; a value every path gives, or a branch the file decides, is still compensated. The
poses the reader gives are checked against the frames computed here from the written numbers.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import run_program
from program_builders import pose_of_text, random_configurations, robtarget_text
from test_programs_rapid import controller_joints, small_table

from thermocomp import deformed_model, fk, load_robot, nominal_model
from thermocomp.compensation.compensate import CompensationOptions
from thermocomp.deformation.timelaw import Static
from thermocomp.errors import InputError
from thermocomp.geometry.rotations import transform
from thermocomp.kinematics.confdata import confdata_from_q
from thermocomp.programs import read_program
from thermocomp.tolerances import IK_POSITION_TOL

A = "[[400,100,300],[0,0,1,0],[0,0,0,0],[9E+09,9E+09,9E+09,9E+09,9E+09,9E+09]]"
B = "[[450,-80,350],[0,0,1,0],[0,-1,0,0],[9E+09,9E+09,9E+09,9E+09,9E+09,9E+09]]"
F0, F1, F2 = "[[0,0,0],[1,0,0,0]]", "[[100,50,20],[1,0,0,0]]", "[[-60,30,10],[0.707106781,0,0,0.707106781]]"
T0 = "[TRUE,[[0,0,100],[1,0,0,0]],[1,[0,0,50],[1,0,0,0],0,0,0]]"
T1 = "[TRUE,[[0,0,150],[1,0,0,0]],[1,[0,0,50],[1,0,0,0],0,0,0]]"


def wobj(frame: str) -> str:
    return f'[FALSE,TRUE,"",{frame},[[0,0,0],[1,0,0,0]]]'


HEAD = (f"MODULE m\n  CONST robtarget a:={A};\n  CONST robtarget b:={B};\n  PERS wobjdata wob:={wobj(F0)};\n"
        f"  PERS tooldata t:={T0};\n  VAR robtarget p:={A};\n  VAR num d:=0;\n  VAR speeddata s:=[100,500,5000,1000];\n"
        "  VAR num nMode:=0;\n")


def _read(tmp_path, body: str, routines: str = "", head: str = HEAD):
    src = head + "  PROC main()\n" + body + "  ENDPROC\n" + routines + "ENDMODULE\n"
    path = tmp_path / "m.mod"
    path.write_text(src)
    return read_program(path), src.splitlines()


def _line(lines: list[str], text: str, after: int = 0) -> int:
    return next(i + 1 for i, line in enumerate(lines) if i >= after and line.strip() == text.strip())


DRAW = "  PROC draw()\n    MoveL a, v100, fine, t\\WObj:=wob;\n  ENDPROC\n"


@pytest.mark.parametrize(("body", "routines", "datum", "assigned"), [
    # the work object a routine's motions use, set by two IFs on inputs (the held-out trial's drawing lab)
    (f"    IF DInput(di1) = 1 THEN\n      wob := {wobj(F1)};\n      draw;\n    ENDIF\n"
     f"    IF DInput(di2) = 1 THEN\n      wob := {wobj(F2)};\n      draw;\n    ENDIF\n", DRAW, "wob",
     [f"      wob := {wobj(F1)};", f"      wob := {wobj(F2)};"]),
    # the tool, set in an IF and its ELSE
    (f"    IF DInput(di1) = 1 THEN\n      t := {T1};\n      draw;\n    ELSE\n      t := {T0};\n      draw;\n    ENDIF\n",
     DRAW, "t", [f"      t := {T1};"]),
    # a robtarget, set in the cases of a TEST on a mode read from the operator
    ("    TPReadNum nMode, \"mode?\";\n    TEST nMode\n    CASE 1:\n      p := Offs(a, 0, 0, 10);\n      go;\n"
     "    CASE 2:\n      p := Offs(a, 0, 0, 20);\n      go;\n    ENDTEST\n",
     "  PROC go()\n    MoveL p, v100, fine, t;\n  ENDPROC\n", "p",
     ["      p := Offs(a, 0, 0, 10);", "      p := Offs(a, 0, 0, 20);"]),
    # an Offs argument, before a WHILE on an input and in its body
    ("    go;\n    WHILE DInput(di1) = 1 DO\n      d := 5;\n      go;\n    ENDWHILE\n",
     "  PROC go()\n    MoveL Offs(a, 0, 0, d), v100, fine, t;\n  ENDPROC\n", "d", ["      d := 5;"]),
], ids=["wobj-two-ifs", "tool-if-else", "robtarget-test", "offs-while"])
def test_a_motion_run_with_another_value_on_another_path_is_refused_naming_the_data(
        tmp_path, body, routines, datum, assigned):
    prog, lines = _read(tmp_path, body, routines)
    motion = next(i + 1 for i, line in enumerate(lines) if line.lstrip().startswith("MoveL"))
    found = [f for f in prog.unsupported if f.line == motion and "on another path" in f.message]
    assert len(found) == 1, prog.unsupported  # (with, for d, the next cycle's read: check_cycles)
    message = found[0].message
    assert f"a different {datum} on another path" in message
    for text in assigned:
        assert f"line {_line(lines, text)} (inside the" in message
    assert all(m.line != motion for m in prog.motions)  # (left as written)
    # the constructs' notes count only the motions compensated: here none, the refused runs stay as written
    notes = [f.message for f in prog.notes if "not resolved before running" in f.message]
    assert notes and all("left as written: " in n and "are compensated" not in n for n in notes), notes


def test_after_the_join_a_datum_with_more_than_one_value_is_refused_naming_its_assignment(tmp_path):
    """After an IF without ELSE on an input, the work object has the declared value or the branch's: a motion
    reading it is refused at its line naming the datum and the assignment."""
    body = (f"    MoveL b, v100, fine, t;\n    IF DInput(di1) = 1 THEN\n      wob := {wobj(F1)};\n    ENDIF\n"
            "    MoveL a, v100, fine, t\\WObj:=wob;\n")
    prog, lines = _read(tmp_path, body)
    motion, assign = _line(lines, "    MoveL a, v100, fine, t\\WObj:=wob;"), _line(lines, f"wob := {wobj(F1)};")
    found = {f.line: f.message for f in prog.unsupported}
    assert list(found) == [motion]
    assert f"wob is changed at run time: line {assign} gives it a value inside the IF at line {assign - 1}" \
        in found[motion]
    np.testing.assert_allclose([pt.T_world_tcp for pt in prog.points], [pose_of_text(B)], atol=1e-12)


def _tcp(tool: str) -> np.ndarray:
    return pose_of_text(tool[6:tool.index("]],") + 2])


@pytest.mark.parametrize("branches", [
    f"    IF DInput(di1) = 1 THEN\n      wob := {wobj(F1)};\n    ELSE\n      wob := {wobj(F1)};\n    ENDIF\n",
    f"    TEST nMode\n    CASE 1:\n      wob := {wobj(F1)};\n    DEFAULT:\n      wob := {wobj(F1)};\n    ENDTEST\n",
    f"    wob := {wobj(F1)};\n    IF DInput(di1) = 1 THEN\n      wob := {wobj(F1)};\n    ENDIF\n",  # (as before it)
    f"    IF nMode = 0 THEN\n      wob := {wobj(F1)};\n    ELSE\n      wob := {wobj(F2)};\n    ENDIF\n",  # decided
    f"    wob := {wobj(F1)};\n    WHILE DInput(di1) = 1 DO\n      wob := {wobj(F1)};\n    ENDWHILE\n",
], ids=["if-else", "test-default", "if-as-before", "decided", "while-as-before"])
def test_one_value_on_every_path_or_a_branch_the_file_decides_is_compensated(tmp_path, branches):
    prog, _ = _read(tmp_path, branches + "    MoveL a, v100, fine, t\\WObj:=wob;\n",
                    head=HEAD.replace("VAR num nMode:=0", "CONST num nMode:=0"))
    assert prog.unsupported == ()
    frame = pose_of_text(F1)
    np.testing.assert_allclose(prog.points[0].T_world_frame, frame, atol=1e-12)
    np.testing.assert_allclose(prog.points[0].T_world_tcp, frame @ pose_of_text(A), atol=1e-12)


def test_a_routine_run_in_two_branches_with_one_value_is_compensated_and_speeds_may_differ(tmp_path):
    """The drawing lab's shape with the same work object in both IFs, and a speed set differently in each: the
    speed changes the time, not a target."""
    body = (f"    IF DInput(di1) = 1 THEN\n      wob := {wobj(F1)};\n      s := v200;\n      draw;\n    ENDIF\n"
            f"    IF DInput(di2) = 1 THEN\n      wob := {wobj(F1)};\n      s := v500;\n      draw;\n    ENDIF\n")
    prog, _ = _read(tmp_path, body, DRAW.replace("v100", "s"))
    assert prog.unsupported == ()
    np.testing.assert_allclose([pt.T_world_tcp for pt in prog.points], [pose_of_text(F1) @ pose_of_text(A)] * 2,
                               atol=1e-12)
    assert [m.tcp_speed for m in prog.motions] == pytest.approx([0.2, 0.5])


def test_an_else_branch_does_not_read_the_if_branchs_value_as_its_own(tmp_path):
    """The work object set in the IF branch: the ELSE branch's motion runs with the value before the IF, or (the
    next cycle) the IF branch's: refused naming the assignment (the walk once read the IF branch's value there);
    the IF branch's own motion is compensated in its frame."""
    body = (f"    IF DInput(di1) = 1 THEN\n      wob := {wobj(F2)};\n      MoveL a, v100, fine, t\\WObj:=wob;\n"
            "    ELSE\n      MoveL b, v100, fine, t\\WObj:=wob;\n    ENDIF\n")
    prog, lines = _read(tmp_path, body)
    assign = _line(lines, f"      wob := {wobj(F2)};")
    assert [(f.line, f"wob is changed at run time: line {assign} gives it a value inside the IF at line {assign - 1}"
             in f.message) for f in prog.unsupported] == [(_line(lines, "      MoveL b, v100, fine, t\\WObj:=wob;"), True)]
    np.testing.assert_allclose([pt.T_world_tcp for pt in prog.points], [pose_of_text(F2) @ pose_of_text(A)],
                               atol=1e-12)


TRAP = ("  TRAP tick\n    nCount := nCount + 1;\n    IDelete tickInt;\n    CONNECT tickInt WITH tick;\n"
        "    ITimer 0.1, tickInt;\n  ENDTRAP\n")
TIMER = "    CONNECT tickInt WITH tick;\n    ITimer 0.1, tickInt;\n"


def test_a_timer_trap_that_connects_itself_again_and_moves_nothing_does_not_stop_compensation(tmp_path):
    head = HEAD + "  VAR intnum tickInt;\n  VAR num nCount:=0;\n"
    prog, lines = _read(tmp_path, TIMER + "    MoveL a, v100, fine, t;\n    MoveL b, v100, fine, t;\n", TRAP, head)
    assert prog.unsupported == ()
    assert len(prog.motions) == 2
    assert any("TRAP tick moves nothing" in n.message and n.line == _line(lines, "    CONNECT tickInt WITH tick;")
               for n in prog.notes)
    # data the TRAP writes that a motion reads: run-time data, named
    prog, lines = _read(tmp_path, TIMER + "    MoveL Offs(a, 0, 0, nCount), v100, fine, t;\n", TRAP, head)
    assert [(f.line, "nCount is changed at run time" in f.message) for f in prog.unsupported] == \
        [(_line(lines, "    MoveL Offs(a, 0, 0, nCount), v100, fine, t;"), True)]
    # a TRAP that moves (or connects one that does) stays refused
    moving = TRAP.replace("    IDelete", "    MoveL b, v100, fine, t;\n    IDelete")
    prog, lines = _read(tmp_path, TIMER + "    MoveL a, v100, fine, t;\n", moving, head)
    assert [f.line for f in prog.unsupported] == [_line(lines, "    CONNECT tickInt WITH tick;")]
    assert "MoveL at line" in prog.unsupported[0].message


def test_a_func_called_as_a_procedure_is_named_a_func(tmp_path):
    routines = "  FUNC num half(num x)\n    RETURN x / 2;\n  ENDFUNC\n"
    with pytest.raises(InputError, match=r"half is a FUNC \(line \d+\); a FUNC cannot be called as a procedure") \
            as info:
        _read(tmp_path, "    half 4;\n    MoveL a, v100, fine, t;\n", routines)
    assert info.value.row == len(HEAD.splitlines()) + 2


def test_a_value_every_branch_gives_is_compensated_and_read_back_through_fk(tmp_path, rng):
    """The joined work object's program, compensated with a warm table: the written targets, run by the warm
    robot, reach the poses the cold program asked for."""
    chain = load_robot("irb140")
    q = random_configurations(chain, rng, 1)
    R, pos = fk(nominal_model(chain), q)
    frame = pose_of_text(F1)
    tcp = _tcp(T0)
    in_frame = np.linalg.inv(frame) @ transform(R, pos)[0] @ tcp
    target = robtarget_text(in_frame, confdata_from_q(nominal_model(chain), q)[0])
    src = (HEAD.replace(f"CONST robtarget a:={A}", f"CONST robtarget a:={target}")
           + "  PROC main()\n"
           + f"    IF DInput(di1) = 1 THEN\n      wob := {wobj(F1)};\n    ELSE\n      wob := {wobj(F1)};\n    ENDIF\n"
           + "    MoveL a, v100, fine, t\\WObj:=wob;\n  ENDPROC\nENDMODULE\n")
    path, out = tmp_path / "m.mod", tmp_path / "m_out.mod"
    path.write_text(src)
    table = small_table(rng)
    run_program("irb140", table, path, out, options=CompensationOptions(time_law=Static()))
    written = read_program(out)
    assert written.unsupported == ()
    joints, status = controller_joints(chain, written)
    assert np.all(status == 0)
    R_w, p_w = fk(deformed_model(chain, table, 1.0), joints)
    reached = transform(R_w, p_w) @ written.points[0].T_flange_tcp
    assert np.linalg.norm(reached[0, :3, 3] - (frame @ in_frame)[:3, 3]) < 1e-6 + 10 * IK_POSITION_TOL  # (written digits)
    assert out.read_text() != src
