"""Gaps the sixth held-out gathering of real programs showed in the URScript reader (issue 35), each written
from the URScript manual's syntax (a ``def``, ``thread``, ``if`` or ``while`` block ends with ``end``), not
from the gathered texts."""

from __future__ import annotations

import pytest
from program_builders import refusal_of

from thermocomp.errors import InputError
from thermocomp.programs import read_program


@pytest.mark.parametrize(("text", "line", "still_open"), [
    # a script exported with its closing end cut off: the def opened at line 1 is named, not only the file's end
    ("def gripper():\n  textmsg(\"a\")\n  sleep(0.5)\n", 3, "def gripper (line 1) is not closed"),
    ("thread watch():\n  while True:\n    sync()\n  end\n", 4, "thread watch (line 1) is not closed"),
    # the innermost block left open, not the def around it (an if closed by its end does not count)
    ("def p():\n  if True: sleep(1) end\n  while True:\n    if False:\n      sleep(1)\n    end\n", 6,
     "while (line 3) is not closed"),
    ("def p():\n  if True:\n    sleep(1)\n  elif False:\n    sleep(2)\n  else:\n    sleep(3)\n", 7,
     "if (line 2) is not closed"),
    # a bracket left open inside a def is the innermost: it is named instead of the def
    ("def p():\n  movel(p[.4, .1, .3, 0, 3.14, 0]\n", 2, "'(' (line 2) is not closed"),
])
def test_a_file_that_ends_inside_a_block_names_the_block_and_its_line(tmp_path, text, line, still_open):
    refusal = refusal_of(tmp_path / "cut.script", text)
    assert refusal.row == line and "unexpected end of file" in str(refusal) and str(refusal).endswith(still_open)


def test_an_unexpected_token_inside_a_block_names_no_block(tmp_path):
    """Only a file that ends inside a block names it: a stray word is the error itself."""
    path = tmp_path / "stray.script"
    path.write_text("def p():\n  sleep(1)\n  x = = 1\nend\n")
    with pytest.raises(InputError) as info:
        read_program(path)
    assert info.value.row == 3 and "is not closed" not in str(info.value)


def test_a_backslash_in_a_string_is_a_character_not_an_escape(tmp_path):
    """``"\\"`` is a one-character string (a string holds no escape; a quote cannot be written in one), as Universal
    Robots' own URCap scripts use it: the rest of the line is code, and the motion after it is read."""
    text = ("def prog():\n"
            "  s = \"a\\b\"\n"
            "  if (str_at(s, 1) == \"\\\"): textmsg(\"backslash at 1\") end\n"
            "  movel(p[0.4, 0.1, 0.3, 0, 3.14, 0], a=1.2, v=0.25)\n"
            "end\n")
    path = tmp_path / "backslash.script"
    path.write_text(text)
    prog = read_program(path)
    assert prog.unsupported == ()
    assert [m.statement.line for m in prog.motions] == [4]


@pytest.mark.parametrize(("statement", "column"), [("pause", 8), ("if True", 10), ("global", 9)])
def test_a_statement_cut_at_its_line_end_names_the_end_of_line_not_the_newline_characters(tmp_path, statement,
                                                                                           column):
    """``pause`` is no URScript statement (``halt`` is): the error names the end of the line where the statement is
    cut, not the whitespace token the parser found there (``'\\n\\n      '``)."""
    path = tmp_path / "cut_line.script"
    path.write_text(f"def p():\n  {statement}\n\n  movel(p[.4, .1, .3, 0, 3.14, 0])\nend\n")
    with pytest.raises(InputError) as info:
        read_program(path)
    assert f"line 2: URScript syntax: unexpected end of line (column {column})" in str(info.value) or (
        statement == "pause" and "line 2, column 3: URScript syntax: pause is no statement and no variable of the "
        "script" in str(info.value))  # (a name alone is a statement: tests/test_programs_defects.py)
