"""RAPID data read by the walker (ABB, "Technical reference manual - RAPID kernel", "Data" and "Expressions"): a part
of an element of a two-dimensional array given a value, an assignment to a part a datum does not have, and the
operands a sign or ``NOT`` takes. Each program is read through what the reader takes: a target or a refusal naming
the line."""

from __future__ import annotations

import numpy as np

from thermocomp.programs import read_program

_P = "[[500,0,600],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]]"


def _read(tmp_path, decl: str, body: str):
    path = tmp_path / "cell.mod"
    path.write_text(f"MODULE cell\n{decl}  PROC main()\n{body}  ENDPROC\nENDMODULE\n")
    return read_program(path)


def test_a_part_of_an_element_of_a_two_dimensional_array_is_given_its_value(tmp_path):
    """``grid{2, 1}.trans.x := 550;`` changes that element's x alone: the motion to it runs 50 mm further in x, the
    motion to another element where it was written."""
    prog = _read(tmp_path, f"  VAR robtarget grid{{2, 2}} := [[{_P}, {_P}], [{_P}, {_P}]];\n",
                 "    grid{2, 1}.trans.x := 550;\n    MoveL grid{2, 1}, v100, fine, tool0;\n"
                 "    MoveL grid{1, 2}, v100, fine, tool0;\n")
    assert prog.unsupported == ()
    reached = np.stack([q.T_world_tcp[:3, 3] * 1e3 for q in prog.points])
    np.testing.assert_allclose(reached, [[550.0, 0.0, 600.0], [500.0, 0.0, 600.0]], atol=1e-6)


def test_an_assignment_to_a_part_a_datum_does_not_have_leaves_it_to_running(tmp_path):
    """``n.x := 2;`` of a ``num``: not followed, so ``n`` is changed at run time from that line, and the motion that
    reads it is refused naming the assignment."""
    prog = _read(tmp_path, f"  CONST robtarget p := {_P};\n  VAR num n := 1;\n",
                 "    n.x := 2;\n    MoveL Offs(p, n, 0, 0), v100, fine, tool0;\n")
    assert [(u.line, u.message) for u in prog.unsupported] == [
        (6, "n is changed at run time (line 5, column 5); its value at this motion is not known")]


def test_a_sign_takes_a_number_and_not_a_bool(tmp_path):
    """``-flag`` is not a RAPID value (a sign before a bool): the motion that reads it is refused at its line and
    column, the next one is taken."""
    prog = _read(tmp_path, f"  CONST robtarget p := {_P};\n  CONST bool flag := TRUE;\n",
                 "    MoveL Offs(p, -flag, 0, 0), v100, fine, tool0;\n    MoveL Offs(p, 0, 0, -5), v100, fine, tool0;\n")
    assert [(u.line, u.column, u.message) for u in prog.unsupported] == [
        (5, 19, "a sign before a value that is not a number")]
    np.testing.assert_allclose(prog.points[-1].T_world_tcp[:3, 3] * 1e3, [500.0, 0.0, 595.0], atol=1e-6)


def test_not_takes_a_bool_and_not_a_number(tmp_path):
    """``IF NOT flag`` of a bool is decided (its branch is not read); ``IF NOT n`` of a number is no RAPID value: the
    IF is left to running (a note at its line) and its motion compensated."""
    decl = f"  CONST robtarget p := {_P};\n  CONST bool flag := TRUE;\n  CONST num n := 1;\n"
    branch = "      MoveL p, v100, fine, tool0;\n    ENDIF\n"
    decided = _read(tmp_path, decl, "    IF NOT flag THEN\n" + branch)
    assert len(decided.points) == 0 and decided.notes == () and decided.unsupported == ()
    left = _read(tmp_path, decl, "    IF NOT n THEN\n" + branch)
    assert [(n.line, n.message.startswith("IF: not resolved")) for n in left.notes] == [(6, True)]
    assert left.unsupported == ()
    assert len(left.points) == 1
