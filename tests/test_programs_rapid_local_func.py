"""Two modules of the task each with their own ``LOCAL FUNC`` of one name (issue 35: a refusal says its real reason).

ABB, "Technical reference manual - RAPID kernel", "Scope rules": a ``LOCAL`` routine is visible within its module
only, so two modules may each declare ``LOCAL FUNC num shift()``. The reader does not yet tell which one a call in one
of them runs: it refuses the call naming the FUNC as a LOCAL FUNC of two modules (as for a LOCAL PROC,
tests/test_programs_rapid_gaps8.py), where it said "function shift is not evaluated (only ... the task's own
FUNCs)", which denied it was the task's own; and it never compensates with the other module's value.
"""

from __future__ import annotations

import pytest

from thermocomp.programs import read_program
from thermocomp.programs.rapid import RapidOptions


def _library(name: str, shift_mm: int) -> str:
    """A module whose ``run_<name>`` moves to ``Offs(p_<name>, shift(), 0, 0)``, ``shift`` its own LOCAL FUNC."""
    return (f"MODULE Lib_{name}\n"
            f"    CONST robtarget p_{name} := [[500,0,500],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]];\n"
            f"    LOCAL FUNC num shift()\n        RETURN {shift_mm};\n    ENDFUNC\n"   # lines 3-5
            f"    PROC run_{name}()\n"
            f"        MoveL Offs(p_{name}, shift(), 0, 0), v100, fine, tool0;\n"      # line 7
            "    ENDPROC\n"
            "ENDMODULE\n")


@pytest.mark.parametrize("calls", ["run_a;", "run_a;\n        run_b;"])
def test_a_local_func_of_two_modules_is_refused_as_such_at_its_call(tmp_path, calls):
    main, one, two = tmp_path / "main.mod", tmp_path / "one.mod", tmp_path / "two.mod"
    main.write_text(f"MODULE MainMod\n    PROC main()\n        {calls}\n    ENDPROC\nENDMODULE\n")
    one.write_text(_library("a", 40))
    two.write_text(_library("b", -60))
    prog = read_program(main, rapid=RapidOptions(modules=(str(one), str(two))))
    assert prog.unsupported, "a call of a LOCAL FUNC two modules declare was followed to one of them"
    assert {f.line for f in prog.unsupported} == {7}
    for finding in prog.unsupported:
        assert "shift is a LOCAL FUNC of two other modules of the task" in finding.message, finding.message
        assert "not evaluated" not in finding.message, finding.message
