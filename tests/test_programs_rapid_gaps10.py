"""Gaps the tenth held-out gathering of real programs showed in the RAPID reader (issue 35), each tested from the
syntax of ABB's "Technical reference manual - RAPID kernel" and "RAPID Instructions, Functions and Data types",
not from the gathered texts.

1. Mutually exclusive optional parameters ("Parameter declarations": ``PROC p(num n, \\switch on | switch off)``;
   every alternative of the group is optional, at most one is given). The reader took an alternative after ``|``
   for a required parameter and refused every call of it: a pick-and-place demo's ``PerformMatrixOperation
   0,\\pick;`` was refused with "takes 2 argument(s) (nPositionIndex, place), got 1".
"""

from __future__ import annotations

import numpy as np
import pytest

from thermocomp.errors import InputError
from thermocomp.programs import read_program

_TARGET = "[[400,0,400],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]]"


def _exclusive_options_module(params: str, calls: str) -> str:
    """``main`` runs ``calls``; ``op`` moves to ``p`` offset by ``n`` along x, 50 mm higher when ``pick`` is given."""
    return ("MODULE m\n"
            f"    CONST robtarget p := {_TARGET};\n"
            f"    PROC op({params})\n"
            "        IF Present(pick) THEN\n"
            "            MoveL Offs(p, n, 0, 50), v100, fine, tool0;\n"
            "        ELSE\n"
            "            MoveL Offs(p, n, 0, 0), v100, fine, tool0;\n"
            "        ENDIF\n"
            "    ENDPROC\n"
            "    PROC main()\n"
            f"{calls}"
            "    ENDPROC\n"
            "ENDMODULE\n")


@pytest.mark.parametrize("params", [
    "num n, \\switch pick | switch place",
    "num n,\\switch pick|switch place",          # (as written without spaces)
    "num n \\switch pick | switch place",        # (the comma before an optional parameter left out)
])
def test_mutually_exclusive_optional_parameters_are_each_optional(tmp_path, params):
    """``op 10, \\pick;`` and ``op 20, \\place;`` both call ``op`` with one required argument: each motion's target
    is the offset its call gives (x 410 mm at z 450 mm, then x 420 mm at z 400 mm)."""
    path = tmp_path / "exclusive.mod"
    path.write_text(_exclusive_options_module(params, "        op 10, \\pick;\n        op 20, \\place;\n"))
    prog = read_program(path)
    assert prog.unsupported == ()
    assert [m.line for m in prog.motions] == [5, 7]
    np.testing.assert_allclose([m.points[-1].T_world_tcp[:3, 3] for m in prog.motions],
                               [[0.41, 0, 0.45], [0.42, 0, 0.4]], atol=1e-12)


def test_a_call_of_an_alternative_the_routine_does_not_declare_is_still_refused(tmp_path):
    """The alternatives are the routine's optional parameters, no others: ``\\drop`` is RAPID's error, at its call."""
    path = tmp_path / "unknown_option.mod"
    path.write_text(_exclusive_options_module("num n, \\switch pick | switch place", "        op 10, \\drop;\n"))
    with pytest.raises(InputError, match=r"op has no optional parameter \\drop") as caught:
        read_program(path)
    assert "line 11" in str(caught.value)
