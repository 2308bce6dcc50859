"""Three classes of programs the readers refused or wrote wrongly, written from the manuals' syntax (ABB,
"Technical reference manual - RAPID Instructions, Functions and Data types": an array assigned whole from an
aggregate; UR, "The URScript Programming Language": ``get_inverse_kin(x, qnear, maxPositionError,
maxOrientationError, tcp)``), not from any fetched program.

- RAPID ``height := [3, 0, 0];`` of a ``VAR num height{3}``: a whole array given constants was taken as changed at
  run time, so a motion reading one of its elements was refused. It is followed as an element's assignment is; an
  aggregate of another size is an error the controller also gives.
- URScript ``get_inverse_kin(x, qnear)`` with ``qnear`` (and the largest errors) positional, as the manual lists
  them, was refused ("only a pose and qnear are followed"); a joint position ``get_inverse_kin`` gives of a known
  pose passed to a function (``go(q)``, ``go(get_inverse_kin(p))``) was refused as known only while running.
- UR's ``optimovej``/``optimovel`` (SW 5.21: ``movej``/``movel`` whose ``a`` and ``v`` are fractions of the
  robot's limits) were passed over as functions "thermocomp does not know", assuming they move nothing: their
  targets were left uncompensated. They are motions now; the manual's functions that move nothing and were missing
  (``motion_version_set``, ``tool_wrench_limit_disable``, ...) no longer refuse a motionless preamble.
- RAPID ``%"rPath" + NumToStr(n, 0)%`` (a late-bound call whose routine is known only while running, often in a
  module ``Load``-ed while running) in a task with no motion of its own was written back "unchanged" with a note:
  its routine's motions were never seen. It is refused, as it is beside motions.
- A function called with different poses whose motion moves to ``get_inverse_kin`` of a pose assigned in an earlier
  statement (``local q = get_inverse_kin(above)`` then ``movej(q)``) was written as a table read by that statement
  but walked by a counter advanced at the motion, after the read: each call moved to another call's target (the
  first to none). Such a text is now refused naming the call, as a loop's pass-varying one is; written inside the
  motion it is a table and every call reaches its target.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_programs_rapid_cell import _check_compensated, _module
from test_programs_ucall import DOWN, _check, _poses

from thermocomp import load_robot
from thermocomp.errors import InputError
from thermocomp.geometry.rotations import transform
from thermocomp.programs import read_program

UP = transform(np.eye(3), [0.0, 0.0, 0.003])  # (Offs(a, 0, 0, 3): 3 mm up in the work object, here the base)


# ----- RAPID: an array assigned whole


def test_a_num_array_assigned_whole_from_constants_is_followed(tmp_path, rng):
    """``height := [3, 0, 0];`` then ``MoveL Offs(a, 0, 0, height{1})``: the motion goes 3 mm above ``a``, not the
    declared 1 mm; it is compensated and reached on the warm robot."""
    src, T = _module(load_robot("irb140"), rng,
                     "    height := [3, 0, 0];\n    MoveL Offs(a, 0, 0, height{1}), v100, fine, tGrip;\n"
                     "    MoveL b, v100, fine, tGrip;\n", decl="  VAR num height{3} := [1, 2, 3];\n")
    _check_compensated(tmp_path, src, [UP @ T["a"], T["b"]], rng)


def test_a_robtarget_array_assigned_whole_is_written_where_the_aggregate_is(tmp_path, rng):
    """``pts := [a_literal, b_literal];`` of a ``VAR robtarget pts{2}`` declared with other values: the motions to
    ``pts{1}``, ``pts{2}`` go to the assigned targets, whose texts (in the assignment) are the ones corrected; the
    declaration is read nowhere after and stays."""
    chain = load_robot("irb140")
    src, T = _module(chain, rng, "    MoveL c, v100, fine, tGrip;\n")
    literal = {n: src.split(f"CONST robtarget {n}:=", 1)[1].split(";", 1)[0] for n in "abc"}
    src = src.replace("    MoveL c,", f"    pts := [{literal['a']}, {literal['b']}];\n"
                                      "    MoveL pts{2}, v100, fine, tGrip;\n    MoveL pts{1}, v100, fine, tGrip;\n"
                                      "    MoveL c,")
    src = src.replace("  PROC main()", f"  VAR robtarget pts{{2}} := [{literal['c']}, {literal['c']}];\n  PROC main()")
    _check_compensated(tmp_path, src, [T["b"], T["a"], T["c"]], rng)


@pytest.mark.parametrize("value", ["[3, 0]", "[[3, 0, 0]]", "[3, 0, 0, 0]"])
def test_an_aggregate_of_another_size_is_an_error_naming_its_line(tmp_path, value):
    """The controller refuses an aggregate whose size is not the array's: an error at the assignment's line."""
    path = tmp_path / "cell.mod"
    path.write_text("MODULE cell\n  CONST robtarget p := [[500,0,600],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]];\n"
                    "  VAR num height{3} := [1, 2, 3];\n  PROC main()\n"
                    f"    height := {value};\n    MoveL Offs(p, 0, 0, height{{1}}), v100, fine, tool0;\n"
                    "  ENDPROC\nENDMODULE\n")
    with pytest.raises(InputError, match=r"line 5: height\{3\}: expected 3 elements at dimension 1") as info:
        read_program(path)
    assert str(path) in str(info.value)


def test_an_array_assigned_in_a_branch_on_an_input_stays_refused(tmp_path, rng):
    """An aggregate given inside ``IF DInput(...)``: one path gives it, the other not, so its value at the motion
    is not known: refused naming the assignment's line (data, not control flow, decide)."""
    src, _ = _module(load_robot("irb140"), rng,
                     "    IF DInput(di1) = 1 THEN\n      height := [5, 5, 5];\n    ENDIF\n"
                     "    MoveL Offs(a, 0, 0, height{1}), v100, fine, tGrip;\n", decl="  VAR num height{3} := [1, 2, 3];\n")
    path = tmp_path / "cell.mod"
    path.write_text(src)
    [finding] = read_program(path).unsupported
    line = src.splitlines().index("      height := [5, 5, 5];") + 1
    assert finding.line == line + 2 and f"line {line} gives it a value inside the IF" in finding.message


# ----- URScript: get_inverse_kin as the manual writes it

HEAD = "def prog():\n  set_tcp(p[0, 0, 0.1, 0, 0, 0])\n"


def _pose(T) -> str:
    from program_builders import ur_pose_text
    return ur_pose_text(T)


@pytest.mark.parametrize("call", ["get_inverse_kin(a, qn)", "get_inverse_kin(a, qn, 1e-10)",
                                  "get_inverse_kin(a, qn, 1e-10, 1e-10)",
                                  "get_inverse_kin(a, qn, maxOrientationError=1e-10)"])
def test_qnear_and_the_errors_may_be_positional(tmp_path, rng, call):
    """The manual's order ``(x, qnear, maxPositionError, maxOrientationError)``: positional or by keyword, the
    motion's target is the pose ``a``, written where ``a`` is."""
    T = _poses(rng, 2)
    src = (HEAD + f"  a = {_pose(T[0])}\n  qn = [0, -1.57, 1.57, -1.57, -1.57, 0]\n"
           f"  movej({call}, a=1.2, v=0.5)\n  q = {call}\n  movej(q, a=1.2, v=0.5)\n"
           f"  movel({_pose(T[1])}, a=1.2, v=0.25)\nend\n")
    text, _ = _check(tmp_path, rng, src, [T[0], T[0], T[1]])
    assert f"  movej({call}, a=1.2, v=0.5)" in text


@pytest.mark.parametrize("call", ["get_inverse_kin(a, qn, 1e-10, 1e-10, tcp=p[0, 0, 0.2, 0, 0, 0])",
                                  "get_inverse_kin(a, qn, 1e-10, 1e-10, p[0, 0, 0.2, 0, 0, 0])",
                                  "get_inverse_kin(a, qn, qnear=qn)"])
def test_another_tcp_or_qnear_twice_is_still_refused(tmp_path, rng, call):
    """A ``tcp`` (the joints of another TCP at the pose) is not followed; neither is ``qnear`` given twice."""
    T = _poses(rng, 1)
    path = tmp_path / "cell.script"
    path.write_text(HEAD + f"  a = {_pose(T[0])}\n  qn = [0, -1.57, 1.57, -1.57, -1.57, 0]\n"
                    f"  movej({call}, a=1.2, v=0.5)\nend\n")
    [finding] = read_program(path).unsupported
    assert finding.line == 5 and finding.message.startswith("get_inverse_kin: only a pose, qnear")


@pytest.mark.parametrize("argument", ["q", "get_inverse_kin(b)"])
def test_a_joint_position_of_a_known_pose_passed_to_a_function_is_moved_to_that_pose(tmp_path, rng, argument):
    """``def go(q): movej(q) end``, called with a variable ``get_inverse_kin`` gave and with the call itself: each
    motion goes to its pose; the poses' texts are the ones written, and every call reaches its own."""
    T = _poses(rng, 3)
    src = (HEAD + "  def go(q, v=0.5):\n    movej(q, a=1.2, v=v)\n  end\n"
           f"  a = {_pose(T[0])}\n  b = {_pose(T[1])}\n  q = get_inverse_kin(a)\n  go(q)\n"
           f"  go({argument}, v=0.3)\n  movel({_pose(T[2])}, a=1.2, v=0.25)\nend\n")
    _check(tmp_path, rng, src, [T[0], T[0] if argument == "q" else T[1], T[2]])


def test_a_per_call_target_read_before_its_motion_is_refused_not_written_wrongly(tmp_path, rng):
    """``local qa = get_inverse_kin(pose_trans(t, down))`` then ``movej(qa)``, called with two poses: a table read
    in the assignment would be walked by a counter the motion advances after it (each call would move to another
    call's target), so the reader refuses it naming the second call; nothing is written."""
    T = _poses(rng, 2)
    src = (HEAD + "  def approach(t):\n    local qa = get_inverse_kin(pose_trans(t, p[0, 0, -0.05, 0, 0, 0]))\n"
           "    movej(qa, a=1.2, v=0.5)\n    movel(t, a=1.2, v=0.25)\n  end\n"
           f"  approach({_pose(T[0])})\n  approach({_pose(T[1])})\nend\n")
    path = tmp_path / "cell.script"
    path.write_text(src)
    [finding] = read_program(path).unsupported
    assert finding.line == 9 and finding.message == (
        "movej at line 5 needs another target on this call of approach than on an earlier one: one written target "
        "cannot serve every call")


def test_the_same_target_written_inside_the_motion_is_a_table_every_call_reaches(tmp_path, rng):
    """``movej(get_inverse_kin(pose_trans(t, down)))``: the text is the motion's own, a table walked call by call
    (the counter advances before the motion that reads it); every call reaches its approach and its target."""
    T = _poses(rng, 2)
    src = (HEAD + "  def approach(t):\n    movej(get_inverse_kin(pose_trans(t, p[0, 0, -0.05, 0, 0, 0])), a=1.2, v=0.5)\n"
           "    movel(t, a=1.2, v=0.25)\n  end\n"
           f"  approach({_pose(T[0])})\n  approach({_pose(T[1])})\nend\n")
    text, _ = _check(tmp_path, rng, src, [T[0] @ DOWN, T[0], T[1] @ DOWN, T[1]])
    assert "get_inverse_kin(tc_pass_t1[tc_pass_n1])" in text


# ----- URScript: optimovej and optimovel are motions; the manual's quiet functions are known


def test_optimovej_and_optimovel_are_compensated_as_movej_and_movel(tmp_path, rng):
    """Their targets are corrected where they are written and reached on the warm robot; ``a``/``v`` fractions
    of the limits are not taken as speeds (no joint-speed finding from them)."""
    T = _poses(rng, 3)
    src = (HEAD + "  motion_version_set(2)\n  jerk_gain_scaling_set(0.5)\n"
           f"  a = {_pose(T[0])}\n  optimovej(get_inverse_kin(a), a=0.4, v=0.6)\n"
           f"  optimovel({_pose(T[1])}, 0.3, 0.3, 0)\n  movel({_pose(T[2])}, a=1.2, v=0.25)\nend\n")
    text, report = _check(tmp_path, rng, src, [T[0], T[1], T[2]])
    assert not any("optimove" in n or "motion_version_set" in n for n in report.notes)
    assert [r.instruction for r in report.rows] == ["optimovej", "optimovel", "movel"]
    assert not any("joint speed" in f for r in report.rows[:2] for f in r.findings)


@pytest.mark.parametrize("call", ["motion_version_set(2)", "tool_wrench_limit_disable()", "servostop()"])
def test_a_motionless_preamble_calling_a_quiet_function_of_the_manual_is_written_back(tmp_path, call):
    """A PolyScope preamble with no motion (the External Control URCap's) calling a function of the manual that
    moves nothing: no motion to compensate, the script written back byte for byte (not refused as a call of a
    function found nowhere)."""
    from helpers import run_program
    from test_programs_rapid_cell import ZERO

    path, out = tmp_path / "pre.script", tmp_path / "pre_out.script"
    path.write_text(f"def unnamed():\n  set_tool_voltage(0)\n  {call}\n  textmsg(\"ready\")\nend\n")
    report = run_program("ur5", ZERO, path, out)
    assert report.n_points == 0 and out.read_bytes() == path.read_bytes()


# ----- RAPID: a late-bound call of a routine known only while running


def _late(tmp_path, call: str, moves: bool, loads: bool):
    path = tmp_path / "cell.mod"
    motion = "    MoveJ p10, v100, fine, tool0;\n" if moves else ""
    load = "    Load \\Dynamic, \"HOME:/part.mod\";\n" if loads else ""
    path.write_text("MODULE cell\n  CONST robtarget p10 := [[500,0,500],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]];\n"
                    "  VAR string sRoutine;\n  PROC main()\n    VAR num nType;\n    nType := AInput(aiType);\n"
                    f"    sRoutine := \"rPath\" + NumToStr(nType, 0);\n{load}{motion}    {call}\n  ENDPROC\n"
                    "  PROC rLog()\n    TPWrite \"log\";\n  ENDPROC\nENDMODULE\n")
    return path, 8 + moves + loads


@pytest.mark.parametrize("call", ['%"rPath" + NumToStr(nType, 0)%;', '%"PartModule:main"%;'])
@pytest.mark.parametrize(("moves", "loads"), [(False, False), (True, False), (False, True)])
def test_a_late_bound_call_of_a_routine_the_task_may_not_hold_is_refused(tmp_path, call, moves, loads):
    """Its routine may be in a module not given or loaded while running, which may move: refused naming the call's
    line and column, nothing written, where the task moves (its motions are compensated around a call not followed),
    where it loads modules (``Load``), where no routine of the task matches the name's text (``"rPath" + ...``,
    ``"PartModule:main"``)."""
    from helpers import run_program
    from test_programs_rapid_cell import ZERO

    path, line = _late(tmp_path, call, moves, loads)
    out = tmp_path / "cell_out.mod"
    with pytest.raises(InputError, match="a late-bound call .* known only while running is not followed") as info:
        run_program("irb140", ZERO, path, out)
    assert info.value.row == line and info.value.column == 5 and not out.exists()


@pytest.mark.parametrize(("call", "loads", "kept"), [
    ('%"rJob" + NumToStr(nType, 0)%;', False, True), ('%"r" + sJob + "_Config"%;', False, True),
    ('%"rJob" + NumToStr(nType, 0)%;', True, False), ('%"r" + sJob + "_Setup"%;', False, False),
    ("%sJob%;", False, True), ("%sJob%;", True, False)])
def test_a_late_bound_call_whose_text_pins_the_tasks_own_routines_runs_one_of_them(tmp_path, call, loads, kept):
    """The name's literal parts, in order (``"rJob" + ...``, ``"r" + ... + "_Config"``), match routines of the task,
    none of which moves, and the task loads no module: the call runs one of them (the RAPID reference's late binding
    looks the name up among the task's modules): a task that moves nothing is written back unchanged, the call noted.
    A name with no text of its own (``%sJob%``: a dispatcher task's job read from its client) is taken as one of
    the task's routines where the task loads no module. Where the task loads a module, or no routine matches
    (``"_Setup"``), refused as above."""
    from helpers import run_program
    from test_programs_rapid_cell import ZERO

    load = "    Load \\Dynamic, \"HOME:/part.mod\";\n" if loads else ""
    path = tmp_path / "cell.mod"
    path.write_text("MODULE cell\n  VAR string sJob;\n  PROC main()\n    VAR num nType;\n    nType := AInput(aiType);\n"
                    f"    sJob := NumToStr(nType, 0);\n{load}    {call}\n  ENDPROC\n"
                    "  PROC rJob1()\n    TPWrite \"1\";\n  ENDPROC\n  PROC rA_Config()\n    TPWrite \"A\";\n  ENDPROC\n"
                    "ENDMODULE\n")
    line, out = 7 + loads, tmp_path / "cell_out.mod"
    if kept:
        report = run_program("irb140", ZERO, path, out)
        assert out.read_bytes() == path.read_bytes()
        assert any(f":{line}:5: a late-bound call" in n for n in report.notes)
        return
    with pytest.raises(InputError, match="a late-bound call .* known only while running is not followed") as info:
        run_program("irb140", ZERO, path, out)
    assert info.value.row == line and not out.exists()


@pytest.mark.parametrize(("number", "moves", "line"), [("1", True, None), ("nType", True, 6), ("nType", False, None)])
def test_callbyvar_is_the_late_bound_call_of_its_name_and_number(tmp_path, number, moves, line):
    """``CallByVar "rJob", n;`` calls the procedure ``rJob<n>`` (RAPID Instructions, CallByVar), as
    ``%"rJob" + NumToStr(n, 0)%;``: with ``n`` known, ``rJob1`` runs and its motion is compensated (it was passed over
    as a routine found in no module, its motion left as written); with ``n`` known only while running, refused at its
    line beside motions, and in a task that moves nothing, whose ``rJob`` routines the name pins, noted."""
    from helpers import run_program
    from test_programs_rapid_cell import ZERO

    body = "    MoveJ p10, v100, fine, tool0;\n" if moves else "    TPWrite \"1\";\n"
    path = tmp_path / "cell.mod"
    path.write_text("MODULE cell\n  CONST robtarget p10 := [[500,0,500],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]];\n"
                    "  PROC main()\n    VAR num nType;\n    nType := AInput(aiType);\n"
                    f"    CallByVar \"rJob\", {number};\n  ENDPROC\n  PROC rJob1()\n{body}  ENDPROC\nENDMODULE\n")
    out = tmp_path / "cell_out.mod"
    if line is not None:
        with pytest.raises(InputError, match="a late-bound call .* known only while running is not followed") as info:
            run_program("irb140", ZERO, path, out)
        assert info.value.row == line and not out.exists()
        return
    report = run_program("irb140", ZERO, path, out)
    assert not any("CallByVar is a routine found in no module" in n for n in report.notes)
    if moves:
        prog = read_program(path)
        assert prog.unsupported == () and [m.statement.line for m in prog.motions] == [9]
    else:
        assert out.read_bytes() == path.read_bytes() and any(":6:5: a late-bound call" in n for n in report.notes)
