"""What a RAPID routine may do is found by one analysis, following calls as the walker runs them.

A PROC of the module named like an instruction of the RAPID base (``Close``, a file instruction) is the routine the
controller runs for that call (the module's routine hides the predefined one, RAPID kernel, "Scope rules"): its
motion is followed, so the routine calling it moves the robot, and a statement that routine cannot follow is
refused, not passed over as inside a routine that moves nothing.
"""

from __future__ import annotations

from thermocomp.programs.rapid import rapid_program_from_text

POINT = "[[500,{y},500],[0,0,1,0],[0,0,0,0],[9E+09,9E+09,9E+09,9E+09,9E+09,9E+09]]"


def _module(close_body: str) -> str:
    return "\n".join([
        "MODULE M",
        f"  CONST robtarget p10:={POINT.format(y=0)};",
        f"  CONST robtarget p20:={POINT.format(y=100)};",
        "  PROC main()",
        "    MoveL p10, v100, fine, tool0;",
        "    Grip;",
        "  ENDPROC",
        "  PROC Grip()",
        "    Close;",
        "    TRYNEXT;",
        "  ENDPROC",
        "  PROC Close()",
        f"    {close_body}",
        "  ENDPROC",
        "ENDMODULE",
        "",
    ])


def test_a_proc_named_like_an_instruction_is_the_routine_that_runs():
    moving = rapid_program_from_text(_module("MoveL p20, v100, fine, tool0;"), "m.mod")
    assert [m.line for m in moving.motions] == [5, 13]  # (Close's motion followed)
    assert [(f.line, f.message) for f in moving.unsupported] == [
        (10, "TRYNEXT is not followed (its outcome or count is not known before running)")]
    assert not any("passed over" in n.message for n in moving.notes)
    quiet = rapid_program_from_text(_module("WaitTime 0.5;"), "m.mod")  # (moves nothing: passed over with a note)
    assert not quiet.unsupported
    assert any(n.line == 10 and "passed over: Grip moves nothing" in n.message for n in quiet.notes)
