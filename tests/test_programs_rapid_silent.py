"""RAPID programs the reader once took at values the controller does not give (silent wrong compensations): each is
now refused naming the datum and the line, or written at the value the controller reads.

Programs written from ABB's "RAPID Instructions, Functions and Data types" syntax.
"""

from __future__ import annotations

import pytest

from thermocomp.programs.rapid import rapid_program_from_text

_ROBTARGET = "[[{x},0,400],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]]"


def _module(declare: str, body: str) -> str:
    return (f"MODULE M\n  CONST robtarget q := {_ROBTARGET.format(x=500)};\n{declare}\n  PROC main()\n"
            f"{body}  ENDPROC\nENDMODULE\n")


def _refusals(text: str) -> list[tuple[int, str]]:
    prog = rapid_program_from_text(text, "silent.mod")
    return [(f.line, f.message) for f in prog.unsupported]


@pytest.mark.parametrize("declare, give, read", [
    ("  VAR pose p;", "p := [[10,0,0],[1,0,0,0]];", "p.trans.x"),
    ("  VAR robtarget p;", "p := Offs(q, 10, 0, 0);", "p.trans.x - 500"),
])
def test_a_part_read_of_data_a_path_leaves_without_a_value_is_refused(declare, give, read):
    """``p`` (a pose or robtarget, no value declared) is given one only inside an IF on an input: the path skipping
    it leaves all its parts zero. A motion reading ``p`` whole stops there (a zero quaternion), but ``p.trans.x``
    is a number the controller reads as 0 (the motion goes to x 500), not only 10 (x 510): refused at the read,
    naming ``p`` and the IF's line (it was written at x 510 only)."""
    body = (f"    IF DInput(di1) = 1 THEN\n      {give}\n    ENDIF\n"
            f"    MoveL Offs(q, {read}, 0, 0), v100, fine, tool0;\n")
    refused = _refusals(_module(declare, body))
    assert len(refused) == 1 and refused[0][0] == 8
    assert refused[0][1].startswith("p has no value on a path through the IF at line 5")


def test_a_state_machine_case_reading_a_part_another_case_gives_is_refused():
    """Case 2 reads ``t.trans.x`` of a robtarget only case 1 gives: a cycle running case 2 first reads 0 there."""
    body = ("    TEST DInput(di1)\n    CASE 1:\n      t := Offs(q, 10, 0, 0);\n"
            "    CASE 2:\n      MoveL Offs(q, t.trans.x - 500, 0, 0), v100, fine, tool0;\n    ENDTEST\n")
    refused = _refusals(_module("  VAR robtarget t;", body))
    assert [line for line, _ in refused] == [9] and refused[0][1].startswith("t has no value on a path through the TEST")


@pytest.mark.parametrize("declare, local", [("  VAR robtarget t;", ""), ("", "    VAR robtarget t;\n")])
def test_a_production_loop_moving_to_a_target_it_shifts_every_pass_is_refused(declare, local):
    """``t := q`` runs once, before the production loop (``WHILE TRUE`` ending ``main``); each pass shifts ``t`` by
    10 mm and moves there: 510, 520, ... on the controller. The module's ``t`` and ``main``'s own (which lives as
    long as the loop) alike: refused at the motion, naming the shift, not written at 510 for every pass."""
    body = (f"{local}    t := q;\n    WHILE TRUE DO\n      t.trans.x := t.trans.x + 10;\n"
            "      MoveL t, v100, fine, tool0;\n    ENDWHILE\n")
    refused = _refusals(_module(declare, body))
    line = 7 + bool(local)
    assert refused == [(line + 1, f"t is changed at run time (line {line}, column 7; it differs from cycle to cycle); "
                                  "its value at this motion is not known")]


def test_a_production_loop_setting_a_target_before_it_once_is_compensated():
    """The same loop without the shift: ``d`` set once before the loop, read every pass at one value (510)."""
    body = "    d := 10;\n    WHILE TRUE DO\n      MoveL Offs(q, d, 0, 0), v100, fine, tool0;\n    ENDWHILE\n"
    prog = rapid_program_from_text(_module("  VAR num d := 0;", body), "once.mod")
    assert prog.unsupported == ()
    assert [round(float(m.points[-1].T_world_tcp[0, 3]) * 1000, 6) for m in prog.motions] == [510.0]


def test_a_routines_own_data_a_for_loop_changes_keep_their_values_after_it():
    """``k``, ``main``'s own, is shifted 5 mm in each of two passes and moved to: 505, 510, then 510 after the loop
    (a pass's changes once stayed in that pass: 505, 505, 500)."""
    body = ("    VAR num k := 0;\n    FOR i FROM 1 TO 2 DO\n      k := k + 5;\n"
            "      MoveL Offs(q, k, 0, 0), v100, fine, tool0;\n    ENDFOR\n    MoveL Offs(q, k, 0, 0), v100, fine, tool0;\n")
    prog = rapid_program_from_text(_module("", body), "for.mod")
    assert prog.unsupported == ()
    assert [round(float(m.points[-1].T_world_tcp[0, 3]) * 1000, 6) for m in prog.motions] == [505.0, 510.0, 510.0]


def test_a_production_loop_counting_in_a_for_loop_is_refused():
    """``main``'s ``k`` grows by 2 in a FOR inside the production loop: 502, 504, ... on the controller."""
    body = ("    VAR num k := 0;\n    WHILE TRUE DO\n      FOR i FROM 1 TO 2 DO\n        k := k + 1;\n      ENDFOR\n"
            "      MoveL Offs(q, k, 0, 0), v100, fine, tool0;\n    ENDWHILE\n")
    assert _refusals(_module("", body)) == [
        (10, "k is changed at run time (line 8, column 9; it differs from cycle to cycle); its value "
             "at this motion is not known")]


def test_a_for_loop_changing_an_inout_parameter_changes_the_data_passed():
    """``bump`` adds 1 three times to its INOUT ``a`` in a FOR loop: the caller's ``k`` is 3 after it, not 0 (it was
    written at x 500); a parameter a routine assigns is changed at run time for its caller, as outside a FOR."""
    text = (f"MODULE M\n  CONST robtarget q := {_ROBTARGET.format(x=500)};\n  PROC bump(INOUT num a)\n"
            "    FOR i FROM 1 TO 3 DO\n      a := a + 1;\n    ENDFOR\n  ENDPROC\n  PROC main()\n    VAR num k := 0;\n"
            "    bump k;\n    MoveL Offs(q, k, 0, 0), v100, fine, tool0;\n  ENDPROC\nENDMODULE\n")
    assert _refusals(text) == [(11, "k is changed at run time (line 5, column 7); its value at this motion is not "
                                    "known")]


@pytest.mark.parametrize("condition", ["IF 0.1 + 0.2 = 0.3 THEN", "IF 16777216 + 1 = 16777216 THEN",
                                       "IF 0.1 * 3 <> 0.3 THEN"])
def test_a_condition_on_decimals_the_controller_rounds_otherwise_is_not_decided(condition):
    """RAPID's num holds 32 bits: ``0.1 + 0.2 = 0.3`` is TRUE there (FALSE in 64), ``16777216 + 1`` is 16777216. Such
    a condition was decided as 64 bits give it (x 520 written, where the controller goes to 510): now it is known
    only while running, and ``d`` after it is refused naming the assignment inside."""
    body = (f"    {condition}\n      d := 10;\n    ELSE\n      d := 20;\n    ENDIF\n"
            "    MoveL Offs(q, d, 0, 0), v100, fine, tool0;\n")
    refused = _refusals(_module("  VAR num d := 0;", body))
    assert [line for line, _ in refused] == [10] and refused[0][1].startswith("d is changed at run time: line 6")


def test_a_test_case_equal_only_in_32_bits_is_not_decided():
    """``TEST s`` with ``s`` = 0.1 + 0.2 and ``CASE 0.3``: equal in 32 bits (the controller runs that case)."""
    body = ("    TEST s\n    CASE 0.3:\n      d := 10;\n    DEFAULT:\n      d := 20;\n    ENDTEST\n"
            "    MoveL Offs(q, d, 0, 0), v100, fine, tool0;\n")
    refused = _refusals(_module("  VAR num d := 0;\n  CONST num s := 0.1 + 0.2;", body))
    assert [line for line, _ in refused] == [12] and "inside the TEST at line 6" in refused[0][1]


def test_a_condition_on_decimals_both_roundings_agree_on_is_decided():
    """``1 / 3 * 3 = 1`` holds in 32 and 64 bits: decided, the motion written at x 510 only."""
    body = "    IF 1 / 3 * 3 = 1 THEN\n      d := 10;\n    ENDIF\n    MoveL Offs(q, d, 0, 0), v100, fine, tool0;\n"
    prog = rapid_program_from_text(_module("  VAR num d := 0;", body), "decided.mod")
    assert prog.unsupported == ()
    assert [round(float(m.points[-1].T_world_tcp[0, 3]) * 1000, 6) for m in prog.motions] == [510.0]


@pytest.mark.parametrize("raising", ["    IF DInput(di1) = 1 RAISE e;\n", "    z := 1 / DInput(di1);\n"])
def test_data_an_error_handler_changes_are_changed_at_run_time(raising):
    """An error known only while running (RAISE on an input, a division by an input) runs the ERROR handler, which
    shifts ``t`` 10 mm and goes on (TRYNEXT): the motion then goes to x 510, not only 500 (it was written at 500):
    refused naming ``t``."""
    text = (f"MODULE M\n  CONST robtarget q := {_ROBTARGET.format(x=500)};\n"
            f"  VAR robtarget t := {_ROBTARGET.format(x=500)};\n  VAR errnum e := -1;\n  VAR num z := 0;\n"
            f"  PROC main()\n{raising}    MoveL t, v100, fine, tool0;\n  ERROR\n    t := Offs(q, 10, 0, 0);\n"
            "    TRYNEXT;\n  ENDPROC\nENDMODULE\n")
    refused = _refusals(text)
    assert [line for line, _ in refused] == [8] and refused[0][1].startswith("t is changed at run time (line 10")


def test_a_routine_s_own_data_its_error_handler_changes_are_changed_at_run_time():
    """The same with ``t`` declared in the routine: the handler runs in the routine's scope, so the motion after
    the division by an input goes to x 510 once the error was raised (it was written at 500)."""
    text = (f"MODULE M\n  CONST robtarget q := {_ROBTARGET.format(x=500)};\n  PROC main()\n"
            f"    VAR robtarget t := {_ROBTARGET.format(x=500)};\n    VAR num z := 0;\n"
            "    z := 1 / DInput(di1);\n    MoveL t, v100, fine, tool0;\n  ERROR\n    t := Offs(q, 10, 0, 0);\n"
            "    TRYNEXT;\n  ENDPROC\nENDMODULE\n")
    refused = _refusals(text)
    assert [line for line, _ in refused] == [7] and refused[0][1].startswith("t is changed at run time (line 9")
