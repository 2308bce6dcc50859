"""A gap the seventh held-out gathering of real programs showed in the RAPID reader (issue 35), tested from the
syntax of ABB's "Technical reference manual - RAPID kernel" ("Function call": a FUNC may be called in any
expression; "WaitUntil": its argument is a ``bool`` expression; ``IF``, ``WHILE`` and ``TEST`` decide on one), not
from the gathered text.

The gathered program (a school cell's socket server) waits with ``WaitUntil 0 = tcpServer();``: the FUNC accepts a
client and, by the client's address, calls the routines that move the robot. The reader refused a FUNC that moves
only where an assignment called it, so it compensated the one motion before the wait and wrote the program as if
the robot moved nowhere else.
"""

from __future__ import annotations

import pytest

from thermocomp.programs import read_program

MOVER = ("    FUNC num serve()\n"
         "        MoveL p1, v100, fine, tool0;\n"
         "        RETURN 0;\n"
         "    ENDFUNC\n")
QUIET = ("    FUNC num quiet()\n"
         "        RETURN 0;\n"
         "    ENDFUNC\n")
#: the FUNC moves through a procedure it calls, as the gathered server does
INDIRECT = ("    PROC fetch()\n"
            "        MoveL p1, v100, fine, tool0;\n"
            "    ENDPROC\n"
            "    FUNC num serve()\n"
            "        fetch;\n"
            "        RETURN 0;\n"
            "    ENDFUNC\n")


def _module(routines: str, main_body: str) -> str:
    return ("MODULE m\n"
            "    CONST robtarget p0 := [[400,0,500],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]];\n"
            "    CONST robtarget p1 := [[420,50,480],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]];\n"
            "    VAR num n := 0;\n"
            + routines +
            "    PROC main()\n"
            "        MoveJ p0, v100, fine, tool0;\n"
            + main_body +
            "    ENDPROC\n"
            "ENDMODULE\n")


@pytest.mark.parametrize(("routines", "statement"), [
    (MOVER, "        WaitUntil 0 = serve();\n"),
    (INDIRECT, "        WaitUntil serve() = 0;\n"),
    (MOVER, "        IF serve() = 0 THEN\n            n := 1;\n        ENDIF\n"),
    (MOVER, "        WHILE serve() > 0 DO\n            n := n + 1;\n        ENDWHILE\n"),
    (MOVER, "        TEST serve()\n        CASE 0:\n            n := 1;\n        ENDTEST\n"),
    (MOVER, "        TPWrite \"left \" \\Num:=serve();\n"),
])
def test_a_func_that_moves_the_robot_is_refused_wherever_an_expression_calls_it(tmp_path, routines, statement):
    """The statement calling it (its line: 7 lines of data and routines above main) is named with the motion."""
    path = tmp_path / "server.mod"
    path.write_text(_module(routines, statement))
    prog = read_program(path)
    assert len(prog.unsupported) == 1, prog.unsupported
    finding = prog.unsupported[0]
    assert "a motion inside FUNC serve, called in an expression here, is followed only where an assignment takes " \
        "its value (x := serve(...);)" in finding.message and "MoveL at line" in finding.message
    assert finding.line == 5 + routines.count("\n") + 2


@pytest.mark.parametrize("statement", ["        WaitUntil 0 = quiet();\n",
                                       "        IF quiet() = 0 THEN\n            MoveL p1, v100, fine, tool0;\n"
                                       "        ENDIF\n"])
def test_a_func_that_does_not_move_is_still_called_in_a_condition(tmp_path, statement):
    path = tmp_path / "quiet.mod"
    path.write_text(_module(QUIET, statement))
    prog = read_program(path)
    assert prog.unsupported == ()
    assert len(prog.motions) == 1 + statement.count("MoveL")


def test_a_moving_func_in_a_branch_the_file_never_takes_is_not_refused(tmp_path):
    """Only the condition of the statement run is looked at, not the bodies it holds: an assignment calling the
    FUNC in a branch decided false is never run (its own statement would be refused if it were)."""
    statement = "        IF FALSE THEN\n            n := serve();\n        ENDIF\n        IF FALSE n := serve();\n"
    path = tmp_path / "branch.mod"
    path.write_text(_module(MOVER, statement))
    prog = read_program(path)
    assert prog.unsupported == () and len(prog.motions) == 1
