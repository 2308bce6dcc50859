"""The class of wrong refusals a probe of held-out-28 showed (held-out-28's own 22 real programs were all read as
classed), tested as a class from the RAPID manual's rules: a CONST passed to a function found nowhere is not changed.

RAPID kernel, parameter modes: an argument bound to a ``VAR``, ``PERS`` or ``INOUT`` parameter is passed by
reference, and RAPID refuses a CONST there (a reference error when the module is loaded); a function's ``IN``
parameters are its own copies. So whatever a function the reader cannot find does (a predefined one it does not know,
``MirPos``, or a ``FUNC`` of a module not given), it cannot change a CONST passed to it. The reader already kept a
CONST passed to a *procedure* found nowhere, but took every datum passed to a *function* found nowhere as changed from
there on, a CONST too: ``pm := MirPos(p0, mirror);`` made the constant ``p0`` "changed at run time" and every motion to
it, before (in the next cycle) and after, was refused, though its value is the declared one wherever it is read.
A ``VAR`` or ``PERS`` passed so stays changed (the function may write it).
"""

from __future__ import annotations

import pytest
from program_builders import read_main_module, xyz_mm

_P0 = "[[400,0,400],[0,0,1,0],[0,0,0,0],[9E+09,9E+09,9E+09,9E+09,9E+09,9E+09]]"
_P1 = "[[450,50,300],[0,0,1,0],[0,0,0,0],[9E+09,9E+09,9E+09,9E+09,9E+09,9E+09]]"


def _module(body: str, declarations: str = "") -> str:
    return f"""MODULE MainModule
    CONST robtarget p0:={_P0};
    CONST num nLift:=50;
    {declarations}
    VAR robtarget pm;
    VAR num d;
    VAR bool ok;
    PROC main()
        MoveL p0, v100, fine, tool0;
{body}
        MoveL Offs(p0, 0, 0, nLift), v100, fine, tool0;
    ENDPROC
ENDMODULE
"""


# Each: a function found nowhere given a CONST (whole, a component, among other arguments, in a condition, nested in
# an evaluated function's argument), its result used by no motion.
@pytest.mark.parametrize("body", [
    "        pm := MirPos(p0, [[0,0,0],[1,0,0,0]]);",  # a predefined function thermocomp does not evaluate
    "        pm := MirPos(p0, [[0,0,0],[1,0,0,0]] \\WObj:=wobj0);",
    "        d := CellDistance(p0.trans, nLift);",  # a FUNC of a module not given, a component and a num
    "        IF InZone(p0, nLift) THEN\n            TPWrite \"in the zone\";\n        ENDIF",
    "        ok := CheckReach(p0) AND CheckReach(Offs(p0, 0, 0, nLift));",
    "        d := Abs(Scaled(nLift, 2));",  # inside an evaluated function's argument
], ids=["MirPos", "MirPos with WObj", "a component and a num", "in an IF's condition", "twice, through Offs",
        "nested"])
def test_a_const_passed_to_a_function_found_nowhere_keeps_its_declared_value(tmp_path, body):
    prog = read_main_module(tmp_path, _module(body))
    assert prog.unsupported == (), prog.unsupported
    assert xyz_mm(prog) == [[400, 0, 400], [400, 0, 450]]


# The class's bound: a VAR or a PERS passed to a function found nowhere may be written by it (a FUNC may take INOUT,
# VAR or PERS parameters): the motions reading it after the call, and in the next cycle before it, are refused,
# naming the datum and the call's line.
@pytest.mark.parametrize(("storage", "body"), [
    ("VAR", "        pm := MirPos(pVar, [[0,0,0],[1,0,0,0]]);"),
    ("PERS", "        d := CellDistance(pVar.trans, 50);"),
])
def test_a_variable_passed_to_a_function_found_nowhere_is_still_changed(tmp_path, storage, body):
    text = _module(body + "\n        MoveL pVar, v100, fine, tool0;", f"{storage} robtarget pVar:={_P1};")
    prog = read_main_module(tmp_path, text)
    assert len(prog.unsupported) == 1, prog.unsupported
    assert "pVar is changed at run time (line 10, column 9" in prog.unsupported[0].message
