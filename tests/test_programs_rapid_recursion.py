"""RAPID recursion through the same arguments (issue 35: every program reads within its bound, refused for its data).

"Technical reference manual - RAPID kernel", "Routines": a routine may call itself, directly or through others, with
arguments like any call. A pendant menu often does: ``PROC Menu(string call)`` asks the operator (``TPReadFK``) and
calls ``Menu call`` again from a case and from its end. Its third call with the arguments of two calls being run reads
what the second did, as a parameterless recursion's does: it is followed twice on the path, not 32 deep (whose paths,
two recursions a level, ran past the reading bound). A recursion whose arguments change (``Descend n - 1``) is still
followed call by call (tests/test_programs_rapid_gaps3.py).
"""

from __future__ import annotations

import pytest
from program_builders import read_module

_HEAD = ("MODULE cell\n"
         "  CONST robtarget p10 := [[500,0,600],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]];\n"
         "  CONST robtarget p20 := [[450,100,550],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]];\n"
         "  PERS tooldata tPen := [TRUE,[[0,0,100],[1,0,0,0]],[1,[0,0,50],[1,0,0,0],0,0,0]];\n"
         "  VAR num answer := 0;\n"
         "  VAR num nStep := 0;\n")


def _menu(argument_type: str, argument: str, step: str = "") -> str:
    """A menu routine calling itself with its own argument from a case and from its end (two recursions a level),
    ``step`` run before its first motion."""
    return (f"  PROC Menu({argument_type} call)\n"
            "    TPReadFK answer, \"\", \"PICK\", \"HOME\", \"\", \"\", \"\";\n"
            f"{step}"
            "    TEST answer\n"
            "    CASE 1:\n"
            "      MoveL Offs(p10, nStep, 0, 0), v100, fine, tPen;\n"  # line 11 with no step
            "      Menu call;\n"
            "    CASE 2:\n"
            "      MoveJ p20, v500, z10, tPen;\n"
            "    ENDTEST\n"
            "    Menu call;\n"
            "  ENDPROC\n"
            f"  PROC main()\n    Menu {argument};\n  ENDPROC\n")


@pytest.mark.parametrize(("argument_type", "argument"), [("string", "\"internal call\""), ("num", "3"),
                                                           ("bool", "TRUE"), ("pos", "[1, 2, 3]")])
def test_a_recursion_repeating_its_arguments_is_followed_twice_and_compensated(tmp_path, argument_type, argument):
    """Its targets are constants: the program is compensated (before, reading it ran past its statement bound), and a
    note says the recursion was followed twice."""
    prog = read_module(tmp_path, _HEAD, _menu(argument_type, argument))
    assert prog.unsupported == (), prog.unsupported
    assert {point.text.line for point in prog.points} == {11, 3}  # (Offs(p10, ...) written there, p20 declared)
    assert any("Menu calls itself again (recursion): followed twice" in note.message for note in prog.notes), \
        prog.notes


def test_a_recursion_repeating_its_arguments_whose_motion_reads_a_counter_is_refused_naming_it(tmp_path):
    """Same arguments, but each call moves 1 mm further (``nStep := nStep + 1``): the motion's data differ from call
    to call, so it is refused naming the counter, as for a parameterless recursion."""
    prog = read_module(tmp_path, _HEAD, _menu("string", "\"a\"", step="    nStep := nStep + 1;\n"))
    assert prog.unsupported, "a motion that moves 1 mm further on every call was compensated"
    assert any("nStep" in finding.message for finding in prog.unsupported), prog.unsupported


def test_a_recursion_with_another_argument_each_call_is_not_cut_after_two(tmp_path):
    """``Menu`` called again (from its case only) with ``call + 1``: every call is another; each is followed until
    the depth bound, none cut as a repeat (the refusal names the nesting, not a silent cut)."""
    body = _menu("num", "1").replace("    ENDTEST\n    Menu call;\n", "    ENDTEST\n").replace("Menu call;",
                                                                                            "Menu call + 1;")
    prog = read_module(tmp_path, _HEAD, body)
    assert not any("calls itself again" in note.message for note in prog.notes), prog.notes
    assert any("nested more than 32 deep" in finding.message for finding in prog.unsupported), prog.unsupported
