"""The class held-out-34 showed, tested as a class from the RAPID manual's rules: a reserved word is no name where a
name is used either.

RAPID kernel, "Reserved words": a reserved word (IF, FOR, ENDFOR, WHILE, STEP, TO, MOD, ...) is no identifier, and a
procedure call, a function call or a datum in an expression names one. The grammar reads
a word the place does not take as a name (lark's lexer matches what the parser may take there): ``IF c ENDFOR;`` is a
compact ``IF`` calling a routine ``ENDFOR``, ``x := step + 1;`` reads a datum ``step``. Declared names were refused
(rapid_scope); used ones passed, and a YuMi task whose ``IF (k1=1 OR k2=1)`` lacks its ``THEN`` before a ``FOR`` was
refused at the ``FOR``'s ``FROM`` with nothing saying why. A used reserved word is now refused where it stands, and a
syntax error after one read as a name says so; a run of plain motions read in bulk takes no reserved word as a name
(it took none but NOT), so that its statements reach the same refusal.
"""

from __future__ import annotations

import pytest

from thermocomp.errors import InputError
from thermocomp.programs import read_program

_P10 = "[[500,0,400],[0,0,1,0],[0,0,0,0],[9E+09,9E+09,9E+09,9E+09,9E+09,9E+09]]"


def _read(tmp_path, main: str):
    path = tmp_path / "cell.mod"
    path.write_text(f"MODULE cell\n  CONST robtarget p10 := {_P10};\n  VAR num k := 1;\n  PROC main()\n{main}"
                    "  ENDPROC\nENDMODULE\n")  # (main's first line is line 5)
    return read_program(path)


# Each: where a name is used, a reserved word: the compact IF's called routine, a call on its own, a datum in an
# expression, an assignment's target, a function called, a motion's tool (in a run of plain motions, read in bulk).
@pytest.mark.parametrize(("main", "line", "column", "word"), [
    pytest.param("    IF k = 1 ENDFOR;\n    MoveL p10, v100, fine, tool0;\n", 5, 14, "ENDFOR", id="a compact IF's call"),
    pytest.param("    MoveL p10, v100, fine, tool0;\n    Step;\n", 6, 5, "Step", id="a call"),
    pytest.param("    k := step + 1;\n    MoveL p10, v100, fine, tool0;\n", 5, 10, "step", id="a datum in an expression"),
    pytest.param("    Xor := 2;\n    MoveL p10, v100, fine, tool0;\n", 5, 5, "Xor", id="an assignment's target"),
    pytest.param("    k := Mod(5, 2);\n    MoveL p10, v100, fine, tool0;\n", 5, 10, "Mod", id="a function"),
    pytest.param("    MoveL p10, v100, fine, tool0;\n    MoveL p10, v100, fine, Step;\n", 6, 28, "Step",
                 id="a motion's tool"),
])
def test_a_reserved_word_where_a_name_is_used_is_refused(tmp_path, main, line, column, word):
    with pytest.raises(InputError) as caught:
        _read(tmp_path, main)
    assert (caught.value.row, caught.value.column) == (line, column)
    assert f"{word} is a reserved word, not a name" in str(caught.value)


# The class's bounds: names holding a reserved word, TRUE and FALSE (values the grammar reads as names), and a
# compact IF calling a routine are read as before.
@pytest.mark.parametrize("main", [
    "    VAR num Stepper := 2;\n    VAR bool IFace := TRUE;\n    IF IFace AND NOT FALSE k := Stepper;\n"
    "    MoveL p10, v100, fine, tool0;\n",
    "    IF k = 1 MoveL p10, v100, fine, tool0;\n",
], ids=["names holding reserved words, TRUE and FALSE", "a compact IF's motion"])
def test_names_that_are_not_reserved_words_are_read(tmp_path, main):
    assert len(_read(tmp_path, main).points) == 1


def test_a_syntax_error_after_a_reserved_word_read_as_a_name_names_it(tmp_path):
    """An IF whose THEN is missing before a FOR: the FOR is read as a called routine, the error comes at FROM."""
    with pytest.raises(InputError) as caught:
        _read(tmp_path, "    IF (k = 1 OR k = 2)\n      FOR i FROM 1 TO 2 DO\n        MoveL p10, v100, fine, tool0;\n"
                        "      ENDFOR\n")
    assert caught.value.row == 6
    assert "unexpected 'FROM' (column 13): FOR (line 6) is a reserved word, read here as a name" in str(caught.value)
