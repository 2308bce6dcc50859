"""Programs as offline-programming tools write them: their statement forms read by the bulk lane, fast.

Generators (RoboDK posts, RobotStudio paths, Grasshopper plugins) write thousands of motion statements of one
shape. Each form valid by the languages' manuals must read as the general rules read it and, where it is a
plain motion, in the bulk lane (one ``MOVES`` token for the run), so a 10,000-line program reads in seconds.
The programs here are written from the manuals' syntax, not taken from any collection.
"""

from __future__ import annotations

import numpy as np
from program_builders import assert_same_steps, general_rules_form

from thermocomp.programs.rapid import parse_rapid_text, rapid_program_from_text

_HEAD = ("MODULE m\n"
         "  PERS tooldata tPen:=[TRUE,[[0,0,100],[1,0,0,0]],[1,[0,0,1],[1,0,0,0],0,0,0]];\n"
         "  PERS wobjdata wPaper:=[FALSE,TRUE,\"\",[[400,0,200],[1,0,0,0]],[[0,0,0],[1,0,0,0]]];\n"
         "  PROC main()\n")
_TAIL = "  ENDPROC\nENDMODULE\n"


def _moves(tool_wobj: str, count: int) -> str:
    """``count`` MoveL statements of inline robtargets on a circle, the tool and work object written as
    ``tool_wobj``."""
    a = np.arange(count) / 50
    return "".join(f"    MoveL [[{100 * np.cos(t):.3f},{100 * np.sin(t):.3f},0],[0,1,0,0],[0,0,0,0],"
                   f"[9E9,9E9,9E9,9E9,9E9,9E9]],v100,z1,{tool_wobj};\n" for t in a)


def test_an_optional_argument_after_a_comma_reads_in_the_bulk_lane():
    """RAPID kernel ("Procedure call", argument lists): an optional argument follows a required one either
    directly (``tPen\\WObj:=wPaper``) or after a comma (``tPen,\\WObj:=wPaper``, as RoboDK's ABB post writes
    every motion). Both forms are one ``MOVES`` run and give the general rules' program, point for point."""
    for tool_wobj in ("tPen,\\WObj:=wPaper", "tPen ,  \\WObj:=wPaper", "tPen\\WObj:=wPaper"):
        text = _HEAD + _moves(tool_wobj, 40) + _TAIL
        assert sum(1 for _ in parse_rapid_text(text, "m.mod").find_data("moves")) == 1, tool_wobj
        fast = rapid_program_from_text(text, "m.mod")
        plain = rapid_program_from_text(general_rules_form(text), "m.mod")
        assert_same_steps(fast, plain)
        assert len(fast.motions) == 40
        # the tool and work object are read [m]: the frame is the work object's, the TCP the tool's
        first = fast.motions[0].points[0]
        np.testing.assert_allclose(first.T_world_frame[:3, 3], [0.4, 0, 0.2])
        np.testing.assert_allclose(first.T_flange_tcp[:3, 3], [0, 0, 0.1])
        np.testing.assert_allclose(first.T_world_tcp[:3, 3], [0.5, 0, 0.2], atol=1e-12)
