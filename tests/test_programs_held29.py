"""The class of wrong refusals held-out-29 showed, tested as a class from the RAPID manual's rules: a TRAP that only
stops, clears, keeps or resumes the path, or restarts the cycle, moves nothing.

RAPID (technical reference, instructions ``StopMove``, ``ClearPath``, ``StartMove``, ``StorePath``, ``RestoPath``,
``ExitCycle``; the "interrupts" chapter): the usual stop-button interrupt connects a TRAP that halts the robot
(``StopMove``), removes the rest of the path it was running (``ClearPath``), lets it move again (``StartMove``) and
starts the cycle over (``ExitCycle``), or keeps the path and takes it up again (``StorePath`` ... ``RestoPath``). Such a
TRAP cuts the program's own motions short; it adds no motion, so every point the program writes is still a point of
one of its own motion instructions. The reader took these instructions as motions of the TRAP and refused every such
program (``CONNECT (an interrupt) runs TRAP trap_stop, which holds ClearPath at line ..``), while a TRAP that moves
nothing was already followed (what it assigns known only while running from the ``CONNECT`` on). A TRAP that moves
the robot between them (``StorePath; MoveL pSafe, ...; RestoPath;``) still runs a motion at a time known only while
running and stays refused; so do these instructions outside a TRAP, where they are followed as before. A motion a
``ClearPath`` cuts short stops anywhere and the program goes on: after such a TRAP is connected, ``CRobT()`` (where the
robot stands, otherwise the target of the stop point before it) is known only while running.
"""

from __future__ import annotations

import pytest
from program_builders import read_main_module, xyz_mm

_P10 = "[[400,0,400],[0,0,1,0],[0,0,0,0],[9E+09,9E+09,9E+09,9E+09,9E+09,9E+09]]"
_P20 = "[[450,50,300],[0,0,1,0],[0,0,0,0],[9E+09,9E+09,9E+09,9E+09,9E+09,9E+09]]"


def _module(trap: str, connect: str = "ISignalDI diStop, 1, irStop;") -> str:
    return f"""MODULE MainModule
    CONST robtarget p10:={_P10};
    CONST robtarget p20:={_P20};
    VAR intnum irStop;
    PERS bool bStopped:=FALSE;
    PROC main()
        IDelete irStop;
        CONNECT irStop WITH trStop;
        {connect}
        MoveL p10, v100, fine, tool0;
        MoveL Offs(p20, 0, 0, 50), v100, z10, tool0;
        MoveL p20, v100, fine, tool0;
    ENDPROC
    TRAP trStop
{trap}
    ENDTRAP
ENDMODULE
"""


# Each: a TRAP of the manual's stop and resume forms, connected to a signal or a timer, its path instructions with
# and without the others around them (an assignment, a message, IDelete, an IF).
@pytest.mark.parametrize(("trap", "connect"), [
    ("        StopMove;\n        ClearPath;\n        StartMove;\n        bStopped := TRUE;\n        ExitCycle;",
     "ISignalDI diStop, 1, irStop;"),
    ("        StopMove;\n        StorePath;\n        TPWrite \"paused\";\n        RestoPath;\n        StartMove;",
     "ISignalDI diStop, 1, irStop;"),
    ("        StopMove;\n        ClearPath;\n        StartMove;", "ISignalDO doStop, 1, irStop;"),
    ("        IDelete irStop;\n        ExitCycle;", "ITimer 5, irStop;"),
    ("        IF bStopped THEN\n            ClearPath;\n            StartMove;\n        ENDIF\n        bStopped := TRUE;",
     "ISignalDI \\Single, diStop, 1, irStop;"),
], ids=["stop, clear, restart the cycle", "keep and resume the path", "clear on an output", "a timer restarting",
        "clear under a condition"])
def test_a_trap_that_stops_clears_or_resumes_the_path_moves_nothing(tmp_path, trap, connect):
    prog = read_main_module(tmp_path, _module(trap, connect))
    assert prog.unsupported == (), prog.unsupported
    assert xyz_mm(prog) == [[400, 0, 400], [450, 50, 350], [450, 50, 300]]
    assert any("TRAP trStop moves nothing" in note.message for note in prog.notes), prog.notes


# The class's bounds: a TRAP that moves the robot between its path instructions is still refused at the CONNECT,
# naming the motion and its line; a ClearPath run by the program itself (not by a TRAP) is still not followed.
def test_a_trap_that_moves_between_storepath_and_restopath_is_still_refused(tmp_path):
    trap = ("        StopMove;\n        StorePath;\n        MoveL p10, v100, fine, tool0;\n        RestoPath;\n"
            "        StartMove;")
    prog = read_main_module(tmp_path, _module(trap))
    assert len(prog.unsupported) == 1, prog.unsupported
    message = prog.unsupported[0].message
    assert "CONNECT (an interrupt) runs TRAP trStop, which holds MoveL at line 17" in message, message


def test_a_clearpath_the_program_runs_itself_is_still_not_followed(tmp_path):
    text = _module("        bStopped := TRUE;").replace("        MoveL p20, v100, fine, tool0;\n",
                                                         "        ClearPath;\n        MoveL p20, v100, fine, tool0;\n")
    prog = read_main_module(tmp_path, text)
    assert any("ClearPath" in u.message for u in prog.unsupported), prog.unsupported


def test_where_the_robot_stands_is_not_known_once_a_trap_may_clear_the_path(tmp_path):
    text = _module("        StopMove;\n        ClearPath;\n        StartMove;").replace(
        "        MoveL Offs(p20, 0, 0, 50), v100, z10, tool0;\n",
        "        MoveL Offs(CRobT(), 0, 0, 50), v100, fine, tool0;\n")
    prog = read_main_module(tmp_path, text)
    assert len(prog.unsupported) == 1, prog.unsupported
    message = prog.unsupported[0].message
    assert "CRobT() at line 11 is where the robot stands, not known before running: TRAP trStop connected at line 8" \
        in message, message
