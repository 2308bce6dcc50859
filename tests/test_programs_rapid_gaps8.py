"""Gaps the eighth held-out gathering of real programs showed in the RAPID reader (issue 35), each tested from the
syntax of ABB's "Technical reference manual - RAPID kernel" and "RAPID Instructions, Functions and Data types",
not from the gathered texts.

1. A FOR loop whose bound reads data the program changes before the loop ("FOR": ``FOR i FROM 0 TO n{k} DO``; its
   bounds are evaluated when the loop starts). The reader counted every loop's passes before following anything,
   with the data's declared values, and refused the program for an error those stale values gave: a server that
   splits a received number into ``tens`` (declared ``VAR num tens := -1``) and loops ``FOR i FROM 0 TO
   lenghts{tens + 1}`` under ``IF tens <> -1`` was refused with "index 0 outside lenghts{1..10}", an index the
   controller never reads.
"""

from __future__ import annotations

import pytest

from thermocomp.errors import InputError
from thermocomp.programs import read_program

_HEAD = ("MODULE m\n"
         "    CONST robtarget p := [[500,0,500],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]];\n"
         "    CONST num counts{3} := [1, 2, 3];\n"
         "    VAR num tens := -1;\n"
         "    VAR num answer;\n")


def _stale_bound_module(loop_bound: str, guard: str) -> str:
    """``main`` reads a number from the operator, may give ``tens`` a value from it, then loops to ``loop_bound``."""
    return (_HEAD +
            "    PROC main()\n"
            "        TPReadNum answer, \"count?\";\n"
            "        IF answer > 9 THEN\n"
            "            tens := Trunc(answer / 10);\n"
            "        ENDIF\n"
            f"        IF {guard} THEN\n"
            f"            FOR i FROM 0 TO {loop_bound} DO\n"
            "                MoveJ p, v100, z10, tool0;\n"
            "            ENDFOR\n"
            "        ENDIF\n"
            "    ENDPROC\n"
            "ENDMODULE\n")


@pytest.mark.parametrize(("loop_bound", "guard"), [
    ("counts{tens + 1}", "tens <> -1"),          # (the declared -1 gives index 0)
    ("counts{tens + 5}", "tens > 0"),            # (index 4 of 3)
])
def test_a_for_bound_is_not_judged_by_values_the_program_changes_before_the_loop(tmp_path, loop_bound, guard):
    """The loop's count is known only while running: its motion (one constant target) is followed once, and no
    error of the declared value is raised."""
    path = tmp_path / "stale.mod"
    path.write_text(_stale_bound_module(loop_bound, guard))
    prog = read_program(path)
    assert prog.unsupported == ()
    assert [m.line for m in prog.motions] == [13]


def test_a_for_bound_that_is_wrong_for_the_data_it_runs_with_is_still_refused_at_its_line(tmp_path):
    """Where the loop runs with the declared value (nothing changes it), the index error is the program's: refused
    naming the loop's line."""
    path = tmp_path / "wrong.mod"
    path.write_text(_HEAD +
                    "    PROC main()\n"
                    "        FOR i FROM 0 TO counts{tens + 1} DO\n"
                    "            MoveJ p, v100, z10, tool0;\n"
                    "        ENDFOR\n"
                    "    ENDPROC\n"
                    "ENDMODULE\n")
    with pytest.raises(InputError, match=r"index 0 outside counts\{1\.\.3\}") as caught:
        read_program(path)
    assert "line 7" in str(caught.value)
