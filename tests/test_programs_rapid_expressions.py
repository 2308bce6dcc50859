"""RAPID's priority between operators (ABB, "Technical reference manual - RAPID kernel", "Priority between
operators"): ``* / DIV MOD`` bind tighter than ``+ -``, which bind tighter than the comparisons ``< <= = >= > <>``,
then ``AND``, then ``OR`` and ``XOR``; operators of one level apply from left to right; ``NOT`` applies to the
comparison it precedes. One program per operator class whose value depends on the priority, read through what the
reader takes: a target's offset, the branch an ``IF`` runs, the passes of a ``FOR``, or a refusal."""

from __future__ import annotations

import numpy as np
import pytest

from thermocomp.errors import InputError
from thermocomp.programs import read_program

#: The target every motion offsets (mm; world frame, tool0, wobj0).
_P = np.array([500.0, 0.0, 600.0])


def _read(tmp_path, body: str, decl: str = ""):
    path = tmp_path / "cell.mod"
    path.write_text("MODULE cell\n  CONST robtarget p := [[500,0,600],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]];\n"
                    f"{decl}  PROC main()\n{body}  ENDPROC\nENDMODULE\n")
    return read_program(path)


def _offsets(prog) -> np.ndarray:
    """Each point's offset from ``p`` [mm]."""
    return np.round(np.stack([q.T_world_tcp[:3, 3] * 1e3 for q in prog.points]) - _P, 9)


@pytest.mark.parametrize(("expression", "want"), [
    ("2 + 3 * 4", 14.0),  # * before +; left to right would give 20
    ("20 - 12 / 4 / 3", 19.0),  # / before -, and / from left to right (8 / 4 / 2 = 1, not 4)
    ("3 + 17 DIV 5 * 2", 9.0),  # DIV and * one level, left to right: (17 DIV 5) * 2
    ("1 + 17 MOD 5 - 1", 2.0),  # MOD before + -
    ("10 - 4 - 3", 3.0),  # - from left to right (not 10 - (4 - 3))
    ("-2 * 3 + 10", 4.0),  # a sign applies to the operand it precedes
    ("2 * (3 + 4)", 14.0),  # brackets first
])
def test_arithmetic_follows_rapids_priority_and_order(tmp_path, expression, want):
    """``* / DIV MOD`` before ``+ -``, each level from left to right: the target's offset is the value RAPID gives."""
    prog = _read(tmp_path, f"    MoveL Offs(p, 0, 0, {expression}), v100, fine, tool0;\n")
    assert prog.unsupported == ()
    np.testing.assert_allclose(_offsets(prog), [[0.0, 0.0, want]], atol=1e-9)


@pytest.mark.parametrize(("condition", "want"), [
    ("1 + 2 * 3 = 7", True),  # arithmetic before the comparison ((1 + 2) * 3 = 9)
    ("two + 1 > 2", True),  # + before >: 2 + (1 > 2) would be a number plus a bool
    ("1 < 2 AND 3 >= 4", False),  # comparisons before AND
    ("two <> 2 OR 1 <= 1", True),  # comparisons before OR
    ("TRUE OR TRUE AND FALSE", True),  # AND before OR ((TRUE OR TRUE) AND FALSE is FALSE)
    ("TRUE XOR TRUE AND FALSE", True),  # AND before XOR ((TRUE XOR TRUE) AND FALSE is FALSE)
    ("FALSE AND FALSE OR TRUE", True),  # ... and after it
    ("TRUE XOR TRUE OR TRUE", True),  # OR and XOR one level, left to right (TRUE XOR (TRUE OR TRUE) is FALSE)
    ("NOT two = 3", True),  # NOT applies to the comparison: NOT (two = 3)
    ("NOT yes AND yes", False),  # ... and binds tighter than AND: (NOT yes) AND yes
    ("\"ab\" + \"c\" = \"abc\"", True),  # + joins strings before the comparison
])
def test_an_if_runs_the_branch_rapids_priority_selects(tmp_path, condition, want):
    """A condition on constants runs one branch, chosen by the value RAPID gives it (the other is not read)."""
    body = (f"    IF {condition} THEN\n      MoveL Offs(p, 1, 0, 0), v100, fine, tool0;\n    ELSE\n"
            "      MoveL Offs(p, 2, 0, 0), v100, fine, tool0;\n    ENDIF\n")
    prog = _read(tmp_path, body, "  CONST num two := 2;\n  CONST bool yes := TRUE;\n")
    assert prog.unsupported == () and prog.notes == ()
    np.testing.assert_allclose(_offsets(prog), [[1.0 if want else 2.0, 0.0, 0.0]], atol=1e-9)


def test_a_condition_of_mixed_kinds_is_left_to_running(tmp_path):
    """``TRUE = 1`` compares a bool with a number: no value the file decides, so both branches are followed and the
    ``IF`` is noted as not resolved."""
    body = ("    IF TRUE = 1 THEN\n      MoveL Offs(p, 1, 0, 0), v100, fine, tool0;\n    ELSE\n"
            "      MoveL Offs(p, 2, 0, 0), v100, fine, tool0;\n    ENDIF\n")
    prog = _read(tmp_path, body)
    np.testing.assert_allclose(_offsets(prog)[:, 0], [1.0, 2.0], atol=1e-9)
    assert any("not resolved" in n.message for n in prog.notes)


def test_a_for_loop_counts_to_the_value_rapids_priority_gives(tmp_path):
    """``FOR i FROM 1 TO 1 + 8 DIV 4 * 2 DO``: 5 passes (left to right without priority: 4 passes of 1..4)."""
    body = "    FOR i FROM 1 TO 1 + 8 DIV 4 * 2 DO\n      MoveL Offs(p, 0, i * 10 - 10, 0), v100, fine, tool0;\n    ENDFOR\n"
    prog = _read(tmp_path, body)
    assert prog.unsupported == ()
    np.testing.assert_allclose(_offsets(prog)[:, 1], [0.0, 10.0, 20.0, 30.0, 40.0], atol=1e-9)


def test_data_take_the_value_of_comparisons_and_logic(tmp_path):
    """A ``bool`` declared as a condition holds its value: the ``IF`` reading it is decided."""
    decl = "  CONST bool wide := 3 * 2 > 5 AND NOT 1 = 1 OR 2 + 2 = 4;\n"
    body = ("    IF wide THEN\n      MoveL Offs(p, 1, 0, 0), v100, fine, tool0;\n    ELSE\n"
            "      MoveL Offs(p, 2, 0, 0), v100, fine, tool0;\n    ENDIF\n")
    prog = _read(tmp_path, body, decl)
    assert prog.unsupported == () and prog.notes == ()
    np.testing.assert_allclose(_offsets(prog), [[1.0, 0.0, 0.0]], atol=1e-9)


@pytest.mark.parametrize(("expression", "words"), [
    ("5 - 7 MOD 2.5", ["MOD operand", "2.5"]),  # MOD of the operand it binds (7 MOD 2.5), not of (5 - 7)
    ("1E38 * 10 - 1E38", ["out of range"]),  # * first: 1E39 is beyond a num before the - is reached
])
def test_a_value_rapid_cannot_hold_is_refused_where_the_priority_puts_it(tmp_path, expression, words):
    with pytest.raises(InputError) as info:
        _read(tmp_path, f"    MoveL Offs(p, 0, 0, {expression}), v100, fine, tool0;\n")
    assert all(w in str(info.value) for w in words) and "line 4" in str(info.value)


def test_a_datum_a_function_reads_into_is_known_only_while_running(tmp_path):
    """``StrToVal(s, code)`` gives ``code`` its value while running (its second argument is INOUT, RAPID
    "Functions"): an IF on ``code`` is not decided by ``code``'s declaration (it was: the default 0 chose
    the first branch and its target was compensated), so ``dx`` is refused as changed at run time."""
    choice = "    IF code = 0 THEN\n      dx := 10;\n    ELSE\n      dx := 20;\n    ENDIF\n"
    prog = _read(tmp_path, "    ok := StrToVal(s, code);\n" + choice + "    MoveL Offs(p, dx, 0, 0), v100, fine, tool0;\n",
                 "  VAR num code;\n  VAR num dx := 5;\n  VAR bool ok;\n  VAR string s := \"5\";\n")
    assert [u for u in prog.unsupported if "dx" in u.message], prog.points


def test_a_parameter_passed_a_datum_known_only_while_running_does_not_decide_an_if(tmp_path):
    """``place code`` passes ``code`` (read into by ``StrToVal``) by reference: an IF on the parameter is an IF on
    ``code``, decided only while running (it was decided by ``code``'s declaration, and ``p`` moved to silently):
    the call is refused naming ``code`` and the line that reads into it."""
    routine = ("  PROC place(num shape)\n    IF shape = 0 THEN\n      dx := 10;\n    ELSE\n      dx := 20;\n    ENDIF\n"
               "    MoveL Offs(p, dx, 0, 0), v100, fine, tool0;\n  ENDPROC\n")
    prog = _read(tmp_path, "    ok := StrToVal(s, code);\n    place code;\n",
                 "  VAR num code;\n  VAR num dx := 5;\n  VAR bool ok;\n  VAR string s := \"5\";\n" + routine)
    assert [(u.line, u.message) for u in prog.unsupported] == [
        (17, "code is changed at run time (line 16, column 5); its value at this motion is not known")], prog.points
    constant = _read(tmp_path, "    place two;\n", "  CONST num two := 2;\n  VAR num dx := 5;\n" + routine)
    assert constant.unsupported == ()  # (a CONST passed: the IF is decided, the ELSE branch runs)
    np.testing.assert_allclose(_offsets(constant), [[20.0, 0.0, 0.0]], atol=1e-9)
