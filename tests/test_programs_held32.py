"""The class of wrong refusals held-out-32 showed, tested as a class from the RAPID manual's rules: a label that no
``GOTO`` of its routine names is only a name.

RAPID Instructions, GOTO: "It is only possible to transfer program execution to a label within the same routine";
RAPID kernel, labels: a label names a place in a routine for its ``GOTO`` instructions. The reader took every label
for a place a ``GOTO`` may reach from anywhere in the routine, so that whatever the routine assigns was changed from
the label on. A PickVision cell's test version keeps ``TAKE_NEW_PLATE:`` after the ``GOTO`` that jumped to it was
deleted, and switches its gripper tool ``tGripper := tGripperMutter`` further on: every motion after the label with
``tGripper`` was refused as "tGripper is changed at run time (line 91 ...)", the label's line. A label no ``GOTO`` of
its routine (its ERROR handler included) names is now passed over; a label one names still makes what the routine
assigns changed from there on.
"""

from __future__ import annotations

import pytest
from program_builders import read_main_module, xyz_mm

_P10 = "[[500,0,400],[0,0,1,0],[0,0,0,0],[9E+09,9E+09,9E+09,9E+09,9E+09,9E+09]]"
_DATA = (f"    CONST robtarget p10 := {_P10};\n"
         "    PERS tooldata tA := [TRUE,[[0,0,100],[1,0,0,0]],[1,[0,0,1],[1,0,0,0],0,0,0]];\n"
         "    PERS tooldata tB := [TRUE,[[0,0,150],[1,0,0,0]],[1,[0,0,1],[1,0,0,0],0,0,0]];\n"
         "    PERS tooldata tCur := [TRUE,[[0,0,100],[1,0,0,0]],[1,[0,0,1],[1,0,0,0],0,0,0]];\n")


def _module(main: str, more: str = "") -> str:
    return f"MODULE MainModule\n{_DATA}    PROC main()\n{main}    ENDPROC\n{more}ENDMODULE\n"


# Each: a tool switched by assignments around a label no GOTO names, in main, in a called routine, or in a routine
# whose other label a GOTO names (IF ... GOTO past a part).
@pytest.mark.parametrize(("main", "more"), [
    ("        tCur := tA;\n        MoveL p10, v100, fine, tCur;\n        again:\n"
     "        MoveL Offs(p10,0,0,10), v100, fine, tCur;\n        tCur := tB;\n"
     "        MoveL Offs(p10,0,0,20), v100, fine, tCur;\n", ""),
    ("        tCur := tA;\n        pick;\n",
     "    PROC pick()\n        take_next:\n        MoveL Offs(p10,0,0,10), v100, fine, tCur;\n        tCur := tB;\n"
     "        MoveL Offs(p10,0,0,20), v100, fine, tCur;\n    ENDPROC\n"),
    ("        VAR bool skip;\n        tCur := tA;\n        unused:\n        MoveL Offs(p10,0,0,10), v100, fine, tCur;\n"
     "        IF skip GOTO done;\n        tCur := tB;\n        MoveL Offs(p10,0,0,20), v100, fine, tCur;\n"
     "        done:\n", ""),
], ids=["in main", "in a called PROC", "beside a label a GOTO names"])
def test_a_label_no_goto_names_changes_nothing(tmp_path, main, more):
    prog = read_main_module(tmp_path, _module(main, more))
    assert prog.unsupported == (), prog.unsupported
    assert xyz_mm(prog)[-1] == [500, 0, 420]


# The class's bounds: a label a GOTO of its routine names, from its body (after or before it) or from its ERROR
# handler, may be reached with other values: what the routine assigns is still changed from the label on.
@pytest.mark.parametrize("main", [
    "        tCur := tA;\n        again:\n        MoveL p10, v100, fine, tCur;\n        tCur := tB;\n"
    "        IF DInput(di1) = 1 GOTO again;\n",
    "        tCur := tA;\n        IF DInput(di1) = 1 GOTO later;\n        tCur := tB;\n        later:\n"
    "        MoveL p10, v100, fine, tCur;\n",
    "        tCur := tA;\n        again:\n        MoveL p10, v100, fine, tCur;\n    ERROR\n        tCur := tB;\n"
    "        GOTO again;\n",
], ids=["a GOTO after it", "a GOTO before it", "a GOTO in the ERROR handler"])
def test_a_label_a_goto_names_still_changes_what_the_routine_assigns(tmp_path, main):
    prog = read_main_module(tmp_path, _module(main))
    assert len(prog.unsupported) == 1, prog.unsupported
    assert prog.unsupported[0].message.startswith("tCur is changed at run time"), prog.unsupported[0].message
