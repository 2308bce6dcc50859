"""Gaps the fourteenth held-out gathering of real programs (RAPID and URScript, issue 35) showed in the readers,
each tested from the syntax of ABB's "Technical reference manual - RAPID overview"/"RAPID kernel", not from the
gathered texts.

1. A RAPID file holds modules ("Program modules": a module is written ``MODULE module_name`` ... ``ENDMODULE``, and
   data and routines are declared inside it). Routines pasted alone, as course exercises are shared on paste
   sites (held-out-14: three RobotStudio exercises whose ``PROC main()``/``PROC rutina3()`` start the file), were
   refused as ``unexpected 'PROC'`` with no word of why a routine may not stand there: the refusal now says the
   file starts outside any module. A module whose text is whole is read as before.
"""

from __future__ import annotations

import pytest

from thermocomp.errors import InputError
from thermocomp.programs import read_program

_ROUTINE = ("PROC main()\n"
            "    MoveL p10, v100, fine, tool0;\n"
            "ENDPROC\n")
_TARGET = "CONST robtarget p10 := [[500,0,400],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]];\n"


@pytest.mark.parametrize(("text", "line"), [(_ROUTINE, 1), (_TARGET + _ROUTINE, 1), ("! a note\n\n" + _ROUTINE, 3)],
                         ids=["routine", "declaration", "after-comments"])
def test_a_routine_or_declaration_outside_any_module_is_refused_saying_so(tmp_path, text, line):
    """The first statement of a file is not inside ``MODULE ... ENDMODULE``: refused at its line, naming the
    module the manual asks for."""
    path = tmp_path / "pasted.mod"
    path.write_text(text)
    with pytest.raises(InputError, match=r"unexpected '(PROC|CONST)' \(column 1\): RAPID code is written in modules "
                                         r"\(MODULE name \.\.\. ENDMODULE\), and the file starts outside any") as caught:
        read_program(path)
    assert f"line {line}:" in str(caught.value)


def test_the_same_routine_inside_its_module_is_read(tmp_path):
    """Wrapped in a module, the routine is read: one motion, to p10, at its line."""
    path = tmp_path / "whole.mod"
    path.write_text("MODULE pasted\n" + _TARGET + _ROUTINE + "ENDMODULE\n")
    prog = read_program(path)
    assert [m.line for m in prog.motions] == [4]
    assert prog.motions[0].points[-1].T_world_tcp[:3, 3].tolist() == pytest.approx([0.5, 0.0, 0.4])


def test_an_error_after_a_whole_module_says_nothing_of_modules(tmp_path):
    """A stray ``ENDMODULE`` after a whole module is a plain syntax error at its line: the file did not start
    outside a module."""
    path = tmp_path / "stray.mod"
    path.write_text("MODULE m\n" + _TARGET + _ROUTINE + "ENDMODULE\nENDMODULE\n")
    with pytest.raises(InputError, match=r"line 7\b.*unexpected 'ENDMODULE'") as caught:
        read_program(path)
    assert "outside any" not in str(caught.value)
