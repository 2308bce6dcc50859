"""Data the routines of the RAPID base write, and conditions decided by one evaluator (ABB, "Technical reference
manual - RAPID Instructions, Functions and Data types"): a call changes exactly the arguments its ``INOUT``/``VAR``
parameters name (``StrToVal``'s value, ``UnpackRawBytes``' value, ``WaitDI``'s ``\\TimeFlag``, not its inputs), a
routine of the task what its summary says; ``IF``, ``TEST`` and ``WHILE`` are decided by the values the file gives
before running and by nothing the task changes while running. Programs written from the manual's syntax."""

from __future__ import annotations

import numpy as np
import pytest
from test_programs_rapid_expressions import _offsets, _read

from thermocomp.errors import InputError

#: Picks an offset by a datum ``code``: 10 mm when it is 0, 20 mm else.
_CHOICE = "    IF code = 0 THEN\n      dx := 10;\n    ELSE\n      dx := 20;\n    ENDIF\n"
_MOVE = "    MoveL Offs(p, dx, 0, 0), v100, fine, tool0;\n"
_DATA = "  VAR num code;\n  VAR num dx := 5;\n  VAR bool ok;\n  VAR string s := \"5\";\n"


def _refused(prog) -> list[tuple[int, str]]:
    return [(u.line, u.message) for u in prog.unsupported]


def test_a_local_datum_a_function_reads_into_is_not_its_declared_value(tmp_path):
    """``StrToVal(s, n)`` gives the routine's own ``n`` its value while running: a motion reading ``n`` is refused
    naming ``n`` and the line that reads into it (it moved by n's declared 0, silently)."""
    prog = _read(tmp_path, "    VAR num n;\n    ok := StrToVal(s, n);\n    MoveL Offs(p, n, 0, 0), v100, fine, tool0;\n",
                 _DATA)
    assert _refused(prog) == [(10, "n is changed at run time (line 9, column 5); its value at this motion is not known")]


@pytest.mark.parametrize(("reads", "condition"), [
    ("    SocketReceive sock \\Str:=text;\n    ok := StrToVal(text, code);\n", "code = 0"),
    ("    WaitDI di1, 1 \\MaxTime:=2 \\TimeFlag:=late;\n", "NOT late"),
    ("    UnpackRawBytes raw, 1, code \\Float4;\n", "code = 0"),
    ("    TPReadNum code, \"Which part?\";\n", "code = 0"),
])
def test_an_if_on_a_datum_an_instruction_writes_is_left_to_running(tmp_path, reads, condition):
    """The IF on ``code`` (``late``) is not decided by its declared 0 (FALSE): both branches are followed and the
    offset they leave differs, so the motion is refused naming ``dx`` and the IF."""
    decl = _DATA + "  VAR socketdev sock;\n  VAR string text;\n  VAR bool late;\n  VAR rawbytes raw;\n"
    prog = _read(tmp_path, reads + _CHOICE.replace("code = 0", condition) + _MOVE, decl)
    at = 12 + reads.count("\n")  # (the IF's line: after the module's 10 lines of data and main's first line)
    assert [line for line, message in _refused(prog) if "dx is changed at run time" in message
            and f"inside the IF at line {at}" in message] == [at + 5], _refused(prog)


def test_an_instruction_leaves_the_arguments_it_only_reads_as_they_were(tmp_path):
    """``UnpackRawBytes RawData, StartIndex, Value``: only ``Value`` is written. ``start`` keeps its value (a
    motion offset by it is compensated); ``code`` is refused naming the instruction's line."""
    decl = _DATA + "  VAR rawbytes raw;\n  VAR num start := 30;\n"
    prog = _read(tmp_path, "    UnpackRawBytes raw, start, code \\Float4;\n"
                           "    MoveL Offs(p, start, 0, 0), v100, fine, tool0;\n"
                           "    MoveL Offs(p, code, 0, 0), v100, fine, tool0;\n", decl)
    assert _refused(prog) == [(12, "code is changed at run time (line 10, column 5); its value at this motion is not "
                                   "known")]
    np.testing.assert_allclose(_offsets(prog), [[30.0, 0.0, 0.0]])


def test_a_function_that_reads_its_arguments_does_not_make_them_changeable(tmp_path):
    """``CalcJointT(Rob_target, Tool)`` writes only ``\\ErrorNumber``: the IF on the target it is given is decided by
    the target's value (the ELSE: 20 mm), where any argument of a function not evaluated used to count as written
    (``tool0`` too)."""
    decl = "  VAR robtarget q := [[300,0,500],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]];\n  VAR jointtarget jt;\n" \
           "  VAR num dx := 5;\n"
    prog = _read(tmp_path, "    jt := CalcJointT(q, tool0);\n    IF q.trans.x > 400 THEN\n      dx := 10;\n"
                           "    ELSE\n      dx := 20;\n    ENDIF\n" + _MOVE, decl)
    assert prog.unsupported == ()
    np.testing.assert_allclose(_offsets(prog), [[20.0, 0.0, 0.0]])


def test_a_func_of_the_task_writes_what_its_summary_says(tmp_path):
    """``parse(text, INOUT num v)`` reads into its parameter: the datum passed there is changed at run time where
    the call runs (the task's own summary of the FUNC, not the declared value)."""
    func = "  FUNC bool parse(string t, INOUT num v)\n    RETURN StrToVal(t, v);\n  ENDFUNC\n"
    prog = _read(tmp_path, "    ok := parse(s, code);\n    MoveL Offs(p, code, 0, 0), v100, fine, tool0;\n",
                 _DATA + func)
    assert (12, "code is changed at run time (line 11, column 5); its value at this motion is not known") in \
        _refused(prog)
    assert not [message for _, message in _refused(prog) if message.startswith("s ")]  # (only read: not written)


# ----- TEST and WHILE decided as an IF is

_CHARS = ("    FOR i FROM 1 TO StrLen(word) DO\n      c := StrPart(word, i, 1);\n      TEST c\n"
          "      CASE \"a\", \"b\":\n        MoveL Offs(p, 10 * i, 0, 0), v100, fine, tool0;\n"
          "      CASE \" \":\n        MoveL Offs(p, 0, 10 * i, 0), v100, fine, tool0;\n"
          "      DEFAULT:\n        MoveL Offs(p, 0, 0, 10 * i), v100, fine, tool0;\n      ENDTEST\n    ENDFOR\n")


def test_a_test_on_characters_of_a_known_string_runs_one_case_a_pass(tmp_path):
    """``FOR i FROM 1 TO StrLen(word)``, ``TEST StrPart(word, i, 1)``: each pass runs the case of its character
    (the first listing it; DEFAULT for the others), as the controller does."""
    prog = _read(tmp_path, "    VAR num i;\n    VAR string c;\n" + _CHARS, "  CONST string word := \"ab x\";\n")
    assert prog.unsupported == ()
    assert not [n for n in prog.notes if "not resolved before running" in n.message]
    np.testing.assert_allclose(_offsets(prog), [[10, 0, 0], [20, 0, 0], [0, 30, 0], [0, 0, 40]])


def test_a_test_on_a_string_received_while_running_is_not_decided(tmp_path):
    """The same loop over a string received from a socket: its length is known only while running, its cases are
    each followed once (the motions' offsets read the counter of a loop of unknown count: refused naming it and the
    FOR), none decided by the declared empty string."""
    prog = _read(tmp_path, "    VAR num i;\n    VAR string c;\n    SocketReceive sock \\Str:=word;\n" + _CHARS,
                 "  VAR string word;\n  VAR socketdev sock;\n")
    assert _refused(prog) == [(line, "i is changed at run time (the counter of the FOR at line 9, whose passes are "
                                     "known only while running); its value at this motion is not known")
                              for line in (13, 15, 17)]
    assert {9, 11} <= {n.line for n in prog.notes if "not resolved before running" in n.message}  # (FOR, TEST)


def test_a_test_on_a_parameter_passed_data_read_while_running_is_not_decided(tmp_path):
    """``place code`` where ``StrToVal`` reads into ``code``: a TEST on the parameter is a TEST on ``code``."""
    routine = ("  PROC place(num shape)\n    TEST shape\n    CASE 0:\n      dx := 10;\n    DEFAULT:\n      dx := 20;\n"
               "    ENDTEST\n" + _MOVE + "  ENDPROC\n")
    constant = _read(tmp_path, "    place two;\n", "  CONST num two := 2;\n  VAR num dx := 5;\n" + routine)
    assert constant.unsupported == ()  # (a CONST passed: decided, DEFAULT runs)
    np.testing.assert_allclose(_offsets(constant), [[20.0, 0.0, 0.0]])
    changed = _read(tmp_path, "    place code;\n    ok := StrToVal(s, code);\n", _DATA + routine)
    assert [line for line, message in _refused(changed) if "dx is changed at run time" in message] == [14]


def test_a_while_whose_condition_is_false_runs_nothing(tmp_path):
    """``WHILE n > 0`` with the routine's own ``n`` 0: its body never runs (its motion is not followed); on a datum
    read while running it is followed as a loop of unknown count, noted."""
    loop = "    WHILE n > 0 DO\n      MoveL Offs(p, 10, 0, 0), v100, fine, tool0;\n      n := n - 1;\n    ENDWHILE\n"
    after = "    MoveL Offs(p, 0, 0, 5), v100, fine, tool0;\n"
    skipped = _read(tmp_path, "    VAR num n := 0;\n" + loop + after)
    assert skipped.unsupported == () and not [n for n in skipped.notes if "not resolved" in n.message]
    np.testing.assert_allclose(_offsets(skipped), [[0, 0, 5]])
    read = _read(tmp_path, "    VAR num n := 0;\n    ok := StrToVal(s, n);\n" + loop + after, _DATA)
    assert [n.line for n in read.notes if "not resolved before running" in n.message] == [10]
    np.testing.assert_allclose(_offsets(read), [[10, 0, 0], [0, 0, 5]])


@pytest.mark.parametrize("value", ["m", "n"])
def test_a_test_of_many_cases_in_a_long_loop_is_bounded(tmp_path, value):
    """A TEST of 500 empty cases in a FOR of 1,000 passes: each case value tested (``m``, decided: no case holds
    it) or each path joined (``n``, changed while running) counts as a statement run, so the reading ends with a
    refusal at the statement bound instead of running half a million cases."""
    cases = "".join(f"      CASE {k}:\n" for k in range(1, 501))
    body = f"    Incr n;\n    FOR i FROM 1 TO 1000 DO\n      TEST {value} + 0 * i\n{cases}      ENDTEST\n    ENDFOR\n"
    with pytest.raises(InputError, match="reading runs more than"):
        _read(tmp_path, body + "    MoveL p, v100, fine, tool0;\n", "  VAR num n := 0;\n  VAR num m := 5000;\n")


def test_the_size_of_an_array_the_task_changes_decides_an_if(tmp_path):
    """``Dim(a, 1)`` reads ``a``'s declaration, not its values: the IF is decided though the task changes an element
    of ``a`` while running (``StrToVal`` reads into it)."""
    prog = _read(tmp_path, "    ok := StrToVal(s, a{2});\n    IF Dim(a, 1) = 3 THEN\n      dx := 10;\n    ELSE\n"
                           "      dx := 20;\n    ENDIF\n" + _MOVE, _DATA + "  VAR num a{3};\n")
    assert prog.unsupported == ()
    np.testing.assert_allclose(_offsets(prog), [[10.0, 0.0, 0.0]])
