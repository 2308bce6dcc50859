"""Paths through RAPID constructs not resolved before running (``IF``/``TEST``/``WHILE`` on run-time data): their
joins are work the statement bound counts, and what they leave changed is marked in the order the file names it.

Programs written from ABB's "RAPID Instructions, Functions and Data types" syntax.
"""

from __future__ import annotations

import pytest

import thermocomp.programs.calls as calls
import thermocomp.programs.rapid_flow as rapid_flow
from thermocomp.errors import InputError
from thermocomp.programs.rapid import rapid_program_from_text

_ROBTARGET = "[[{x},{y},{z}],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]]"


def _state_machine(cases: int, passes: int) -> str:
    """A ``TEST`` on a run-time state with ``cases`` cases, each giving its own target a value and moving to it,
    inside a ``FOR`` of ``passes`` passes: every pass joins ``cases`` paths of ``cases`` data each."""
    out = ["MODULE M", "  VAR num state := 0;"]
    out += [f"  VAR robtarget t{k} := {_ROBTARGET.format(x=400 + k, y=0, z=400)};" for k in range(cases)]
    out += ["  PROC main()", f"    FOR i FROM 1 TO {passes} DO", "      state := DInput(di1);", "      TEST state"]
    for k in range(cases):
        out += [f"      CASE {k}:", f"        t{k}.trans.x := {500 + k};", f"        MoveL t{k}, v100, fine, tool0;"]
    out += ["      ENDTEST", "    ENDFOR", "  ENDPROC", "ENDMODULE", ""]
    return "\n".join(out)


def test_the_joins_of_a_test_of_many_cases_in_a_for_count_against_the_statement_bound(monkeypatch):
    """60 cases, 10 passes: some 1,200 statements run, but 10 joins of 61 paths of 60 data each (36,600 data
    joined, DATA_PER_STATEMENT a statement): past a bound of 2,000 the module is refused at the TEST, naming the
    bound; within the default bound it is read."""
    text = _state_machine(cases=60, passes=10)
    read = rapid_program_from_text(text, "cases.mod")
    assert read.extra["statements_run"] > 60 * 61 * 10 // rapid_flow.DATA_PER_STATEMENT
    monkeypatch.setattr(calls, "MAX_STATEMENTS_RUN", 2_000)
    monkeypatch.setattr(calls, "STATEMENTS_PER_LINE", 0)
    with pytest.raises(InputError) as refusal:
        rapid_program_from_text(text, "cases.mod")
    test_line = text.splitlines().index("      TEST state") + 1
    assert refusal.value.row == test_line and "more than 2,000 statements" in str(refusal.value)
    assert "paths through its conditions joined" in str(refusal.value)


def test_what_a_loop_of_run_time_count_changes_is_refused_naming_the_line_inside_it():
    """A cycle reads eight data, then a WHILE on an input assigns them (in the order z, y, ..., s): the next cycle's
    motion reads what that loop left, refused naming the first datum it reads and the line inside the loop that
    assigns it (not the WHILE's); the same message whatever the hash seed."""
    names = ["z", "y", "x", "w", "v", "u", "t", "s"]
    text = ("MODULE M\n"
            f"  CONST robtarget p10 := {_ROBTARGET.format(x=500, y=0, z=400)};\n"
            + "".join(f"  VAR num {n} := 0;\n" for n in names)
            + "  PROC main()\n    MoveL Offs(p10, s + t + u, v + w + x, y + z), v100, fine, tool0;\n"
            "    WHILE DInput(di1) = 1 DO\n" + "".join(f"      {n} := {n} + 1;\n" for n in names)
            + "    ENDWHILE\n  ENDPROC\nENDMODULE\n")
    prog = rapid_program_from_text(text, "order.mod")
    assert [(f.line, f.message) for f in prog.unsupported] == [(12, "s is changed at run time (line 21, column 7; "
                                                                "it differs from cycle to cycle); its "
                                                                "value at this motion is not known")]


def _module(declare: str, body: str) -> str:
    return (f"MODULE M\n  CONST robtarget q := {_ROBTARGET.format(x=500, y=0, z=400)};\n  {declare}\n  PROC main()\n"
            f"{body}  ENDPROC\nENDMODULE\n")


def _x_mm(prog) -> list[float]:
    """The x [mm] of each motion's target."""
    return [round(float(m.points[-1].T_world_tcp[0, 3]) * 1000, 6) for m in prog.motions]


def test_a_state_machine_case_reads_the_target_another_case_gives():
    """``t`` has no value until case 1 gives it one: case 2, run in a later cycle, reads that one (a cycle running
    case 2 first stops on the controller), so it is compensated there."""
    body = ("    TEST DInput(di1)\n    CASE 1:\n      t := Offs(q, 10, 0, 0);\n"
            "    CASE 2:\n      MoveL t, v100, fine, tool0;\n    ENDTEST\n")
    prog = rapid_program_from_text(_module("VAR robtarget t;", body), "sm.mod")
    assert prog.unsupported == () and _x_mm(prog) == [510.0]


def test_a_case_reading_a_target_two_earlier_cases_give_differently_is_refused():
    """Cases 1 and 2 give ``t`` 510 and 520 mm; case 3 reads whichever ran last: one written target cannot serve
    both, so its motion is refused naming ``t`` and case 2's assignment (it was compensated at 520)."""
    body = ("    TEST DInput(di1)\n    CASE 1:\n      t := Offs(q, 10, 0, 0);\n    CASE 2:\n"
            "      t := Offs(q, 20, 0, 0);\n    CASE 3:\n      MoveL t, v100, fine, tool0;\n    ENDTEST\n")
    prog = rapid_program_from_text(_module("VAR robtarget t;", body), "sm.mod")
    assert prog.motions == ()
    assert [f.line for f in prog.unsupported] == [11]
    assert prog.unsupported[0].message.startswith("t is changed at run time: line 9 gives it a value inside the TEST")


@pytest.mark.parametrize("construct", ["IF DInput(di1) = 1 THEN", "WHILE DInput(di1) = 1 DO"])
def test_after_a_construct_a_target_only_it_gives_a_value_reads_that_value(construct):
    """Only the IF (or WHILE) gives ``t`` a value: a motion after it reads that one (the path that skips it leaves
    ``t`` without a value, which no motion the controller runs reads). With a declared value, the two differ:
    refused naming the assignment."""
    end = "ENDIF" if construct.startswith("IF") else "ENDWHILE"
    body = f"    {construct}\n      t := Offs(q, 10, 0, 0);\n    {end}\n    MoveL t, v100, fine, tool0;\n"
    prog = rapid_program_from_text(_module("VAR robtarget t;", body), "after.mod")
    assert prog.unsupported == () and _x_mm(prog) == [510.0]
    declared = rapid_program_from_text(_module(f"VAR robtarget t := {_ROBTARGET.format(x=500, y=0, z=400)};", body),
                                       "after.mod")
    assert declared.motions == () and [f.line for f in declared.unsupported] == [8]
    assert "line 6 gives it a value inside the" in declared.unsupported[0].message


def test_a_joint_target_only_an_if_gives_a_value_is_refused_the_other_path_reads_its_zeros():
    """A ``VAR jointtarget`` declared without a value holds zeros, a pose the robot goes to: where only an IF on an
    input gives it a value, the motion after it reads one of two values, so it is refused naming the assignment
    (written at the IF's value, the path that skips the IF would go there instead of to the zeros)."""
    body = ("    IF DInput(di1) = 1 THEN\n      j := [[10, 20, 30, 0, 40, 0], [9E9, 9E9, 9E9, 9E9, 9E9, 9E9]];\n"
            "    ENDIF\n    MoveAbsJ j, v100, fine, tool0;\n")
    prog = rapid_program_from_text(_module("VAR jointtarget j;", body), "joints.mod")
    assert prog.motions == () and [f.line for f in prog.unsupported] == [8]
    assert "line 6 gives it a value inside the IF" in prog.unsupported[0].message
