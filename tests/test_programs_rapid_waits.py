"""``WaitUntil`` (ABB, "Technical reference manual - RAPID Instructions, Functions and Data types": ``WaitUntil
[\\InPos] Cond [\\MaxTime] [\\TimeFlag]``, "used to wait until a logical condition is met") waits for data that
something other than the waiting path changes: another task (a PERS shared with a socket task), a TRAP, the
operator. The data its condition reads are therefore known only while running from the wait on (held-out-16: a
vision cell cleared a PERS string, waited for the socket task to fill it, then searched it; the reader took the
cleared value and called the program's ``StrFind`` on it an error).

Tests written from the manual's syntax: a motion that reads such data after the wait is refused naming it and the
wait's line; an expression on it that would fail on the declared value is not evaluated; a CONST in the condition
stays known; a motion that reads none of it is compensated.
"""

from __future__ import annotations

from thermocomp.programs import read_program

_HEAD = ("MODULE cell\n"
         "  PERS string SocketStr := \"\";\n"
         "  PERS num nX := 0;\n"
         "  CONST num nLimit := 10;\n"
         "  VAR num nFind;\n"
         "  CONST robtarget p1 := [[500,0,500],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]];\n"
         "  PROC main()\n")


def _read(tmp_path, *body: str):
    path = tmp_path / "cell.mod"
    path.write_text(_HEAD + "".join(f"    {line}\n" for line in body) + "  ENDPROC\nENDMODULE\n")
    return read_program(path)


def test_a_motion_reading_what_a_waituntil_waits_on_is_refused_naming_it_and_the_wait(tmp_path):
    prog = _read(tmp_path, "nX := 0;", "WaitUntil nX > 0 AND nX < nLimit;",
                 "MoveL Offs(p1, nX, 0, 0), v100, fine, tool0;")
    wait = _HEAD.count("\n") + 2  # (the body's second line)
    assert [(f.line, f.message) for f in prog.unsupported] == [
        (wait + 1, f"nX is changed at run time (line {wait}, column 5); its value at this motion is not known")]
    assert not len(prog.run.text)


def test_what_a_waituntil_waits_on_is_not_evaluated_from_its_declared_value(tmp_path):
    """The cleared string is not searched as if the wait had not happened; the constant motion is compensated."""
    prog = _read(tmp_path, 'SocketStr := "";', 'WaitUntil SocketStr <> "";', 'nFind := StrFind(SocketStr, 2, ",");',
                 "MoveL p1, v100, fine, tool0;")
    assert prog.unsupported == () and len(prog.run.text) == 1


def test_a_waituntil_changes_nothing_a_motion_reads_when_it_waits_on_other_data(tmp_path):
    prog = _read(tmp_path, "WaitUntil nX > nLimit;", "MoveL Offs(p1, nLimit, 0, 0), v100, fine, tool0;")
    assert prog.unsupported == () and len(prog.run.text) == 1
