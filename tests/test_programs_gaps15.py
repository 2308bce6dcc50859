"""Gaps the fifteenth held-out gathering of real programs (RAPID and URScript, issue 35) showed in the readers,
each tested from the syntax of ABB's "Technical reference manual - RAPID overview"/"RAPID kernel", not from the
gathered texts.

1. A procedure call passes its arguments to the routine's parameters ("Procedure call": ``Routine arg1, arg2;``;
   an ``IN`` parameter gets the argument's value, an ``INOUT``, ``VAR`` or ``PERS`` one the datum itself). A
   routine of the task that moves nothing (a message parser, say) called with data known only while running (a
   string ``SocketReceive`` or the FlexPendant gave) was refused at the call as if a motion read that data
   (held-out-15: an open_abb socket server whose motions moved to another task, refused at
   ``ParseMsg receivedString;`` "its value at this motion is not known"). Such a call is now passed over with a
   note: what the routine changes (the task's data it assigns, the data passed to its ``INOUT``/``VAR``/``PERS``
   parameters) is known only while running from the call on, so a motion that reads it is refused naming it and
   the call's line; a routine that moves the robot is still refused when its arguments are not known.
2. A compact IF ("Compact IF": ``IF condition statement;``, one statement, no ``THEN``) is an IF: a datum one of
   its paths gives a value was refused "inside the COMPACT at line N" (the grammar's rule name), now "inside the
   IF at line N", as for the IF ... THEN ... ENDIF form.
"""

from __future__ import annotations

import pytest

from thermocomp.programs import read_program

_HEAD = ("MODULE server\n"
         "  CONST robtarget p0 := [[500,0,400],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]];\n"
         "  VAR num params{3};\n"
         "  VAR num nParams;\n"
         "  PROC ParseMsg(string msg)\n"
         "    VAR num ind := 1;\n"
         "    WHILE StrMatch(msg, ind, \" \") <= StrLen(msg) DO\n"
         "      ind := StrMatch(msg, ind, \" \") + 1;\n"
         "      Incr nParams;\n"
         "    ENDWHILE\n"
         "    params{1} := nParams;\n"
         "  ENDPROC\n")


def _main(*body: str) -> str:
    return (_HEAD + "  PROC main()\n    VAR string received;\n    VAR num dx := 0;\n"
            "    TPReadFK reg1, \"Which?\", \"one\", \"two\", stEmpty, stEmpty, stEmpty;\n"
            "    received := \"1 2 #\";\n    IF reg1 = 2 received := \"1 2 3 #\";\n"
            + "".join(f"    {line}\n" for line in body) + "  ENDPROC\nENDMODULE\n")


def _read(tmp_path, text: str):
    path = tmp_path / "server.mod"
    path.write_text(text.replace("MODULE server\n", "MODULE server\n  VAR num reg1 := 0;\n"))
    return read_program(path), text.replace("MODULE server\n", "MODULE server\n  VAR num reg1 := 0;\n").splitlines()


def test_a_routine_that_moves_nothing_called_with_run_time_data_is_passed_over(tmp_path):
    """``ParseMsg received;`` with ``received`` chosen on the FlexPendant: the parser moves nothing, so the call is
    passed over with a note at its line, and the motions that read none of what it changes are compensated."""
    prog, lines = _read(tmp_path, _main("ParseMsg received;", "MoveL p0, v100, fine, tool0;",
                                        "MoveL Offs(p0, 0, 50, 0), v100, fine, tool0;"))
    assert prog.unsupported == ()
    assert [m.line for m in prog.motions] == [lines.index("    MoveL p0, v100, fine, tool0;") + 1,
                                              lines.index("    MoveL Offs(p0, 0, 50, 0), v100, fine, tool0;") + 1]
    assert prog.motions[1].points[-1].T_world_tcp[:3, 3].tolist() == pytest.approx([0.5, 0.05, 0.4])
    call = lines.index("    ParseMsg received;") + 1
    notes = [n for n in prog.notes if n.line == call]
    assert len(notes) == 1 and "ParseMsg" in notes[0].message and "received" in notes[0].message
    assert "moves nothing" in notes[0].message


@pytest.mark.parametrize(("body", "named"), [
    (("ParseMsg received;", "MoveL Offs(p0, params{1}, 0, 0), v100, fine, tool0;"), "params"),
    (("ParseMsg received;", "MoveL Offs(p0, nParams, 0, 0), v100, fine, tool0;"), "nParams"),
], ids=["array-element", "counter"])
def test_a_motion_that_reads_what_the_passed_over_routine_changes_is_refused_naming_the_call(tmp_path, body, named):
    """What ``ParseMsg`` assigns (``params{1}``, ``nParams``) is known only while running after the call: the
    motion reading it is refused naming that datum and the call's line."""
    prog, lines = _read(tmp_path, _main(*body))
    motion = lines.index(f"    {body[1]}") + 1
    found = {f.line: f.message for f in prog.unsupported}
    assert list(found) == [motion]
    call = lines.index("    ParseMsg received;") + 1
    assert f"{named} is changed at run time (line {call}" in found[motion]


def test_an_inout_argument_of_the_passed_over_routine_is_changed_from_the_call_on(tmp_path):
    """``PROC Measure(string msg, INOUT num d)``: the datum passed to ``d`` is the caller's ``dx``, read by the
    motion before the call (known: compensated) and after it (refused naming ``dx`` and the call's line)."""
    text = _main("MoveL Offs(p0, dx, 0, 0), v100, fine, tool0;", "Measure received, dx;",
                 "MoveL Offs(p0, dx, 10, 0), v100, fine, tool0;").replace(
        "  PROC main()", "  PROC Measure(string msg, INOUT num d)\n    d := StrLen(msg);\n  ENDPROC\n  PROC main()")
    prog, lines = _read(tmp_path, text)
    after = lines.index("    MoveL Offs(p0, dx, 10, 0), v100, fine, tool0;") + 1
    found = {f.line: f.message for f in prog.unsupported}
    assert list(found) == [after]
    assert f"dx is changed at run time (line {lines.index('    Measure received, dx;') + 1}" in found[after]


def test_a_routine_that_moves_is_still_refused_when_its_argument_is_known_only_while_running(tmp_path):
    """``PROC Shift(num d)`` holds ``MoveL Offs(p0, d, 0, 0)``: called with ``StrLen(received)`` it moves to a point
    known only while running, so the call is refused naming ``received``, not passed over."""
    text = _main("Shift StrLen(received);").replace(
        "  PROC main()", "  PROC Shift(num d)\n    MoveL Offs(p0, d, 0, 0), v100, fine, tool0;\n  ENDPROC\n"
        "  PROC main()")
    prog, lines = _read(tmp_path, text)
    found = {f.line: f.message for f in prog.unsupported}
    assert list(found) == [lines.index("    Shift StrLen(received);") + 1]
    assert "received is changed at run time" in found[lines.index("    Shift StrLen(received);") + 1]
    assert not any("passed over" in n.message for n in prog.notes)


@pytest.mark.parametrize("assign", ["IF reg1 = 2 p := Offs(p0, 0, 0, 50);",
                                    "IF reg1 = 2 THEN\n      p := Offs(p0, 0, 0, 50);\n    ENDIF"],
                         ids=["compact-if", "if-then"])
def test_a_datum_a_compact_if_may_change_is_refused_naming_the_if(tmp_path, assign):
    """``IF reg1 = 2 p := ...;`` on one path: the motion to ``p`` after it is refused naming the IF and its line,
    the compact form as the ``IF ... THEN ... ENDIF`` one."""
    text = ("MODULE cell\n"
            "  CONST robtarget p0 := [[500,0,400],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]];\n"
            "  VAR num reg1 := 0;\n"
            "  PROC main()\n    VAR robtarget p;\n    p := p0;\n"
            "    TPReadFK reg1, \"Which?\", \"one\", \"two\", stEmpty, stEmpty, stEmpty;\n"
            f"    {assign}\n    MoveL p, v100, fine, tool0;\n  ENDPROC\nENDMODULE\n")
    path = tmp_path / "cell.mod"
    path.write_text(text)
    found = [f.message for f in read_program(path).unsupported]
    assert len(found) == 1 and "p is changed at run time: line " in found[0], found
    assert "inside the IF at line 8," in found[0], found
