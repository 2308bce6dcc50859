"""Gaps the ninth held-out gathering of real programs showed in the URScript reader (issue 35), each written
from the URScript manual's syntax, not from the gathered texts: ``def``, ``thread``, ``if``, ``elif``, ``else``,
``while``, ``return``, ``global``, ``local`` and ``end`` are words of the language, never a variable's name; a
statement continues on the next line after ``=`` or an operator (thermocomp reads a value written on the next
line), but a keyword there starts a new statement, and a file whose value is missing is what the controller
refuses too."""

from __future__ import annotations

import pytest

from thermocomp.errors import InputError
from thermocomp.programs import read_program

_MOVE = "  movej([0, -1.57, 0, -1.57, 0, 0], a=1.4, v=1.05)\n"


def _motion_lines(tmp_path, text: str) -> list[int]:
    """The lines of the motions read from ``text``, which must hold nothing the reader cannot follow."""
    path = tmp_path / "prog.script"
    path.write_text(text)
    prog = read_program(path)
    assert prog.unsupported == ()
    return [m.statement.line for m in prog.motions]


@pytest.mark.parametrize(("text", "line", "word"), [
    # a variable declared with its value left to a code generator (the value is a comment): the next
    # declaration's keyword is not the missing value
    ("def prog():\n  global offset = # filled in by the host\n  global gain = 2\n" + _MOVE + "end\n", 3, "global"),
    ("def prog():\n  local n = \n  local m = 1\n" + _MOVE + "end\n", 3, "local"),
    # an operator at a line end continues the expression, but not into the block's end
    ("def prog():\n  x = 1 +\nend\n", 3, "end"),
    ("def prog():\n  while True:\n    y = 2 *\n  end\nend\n", 4, "end"),
    # a keyword is never a value, wherever it stands
    ("x = return\n" + _MOVE, 1, "return"),
    ("def prog():\n  z = [1, while]\nend\n", 2, "while"),
])
def test_a_keyword_where_a_value_is_missing_is_refused_at_its_line(tmp_path, text, line, word):
    (tmp_path / "missing_value.script").write_text(text)
    with pytest.raises(InputError, match=f"URScript syntax: unexpected '{word}'") as info:
        read_program(tmp_path / "missing_value.script")
    assert info.value.row == line


def test_a_value_on_the_next_line_and_one_line_blocks_are_still_read(tmp_path):
    """What the continuation is for stays read: a list written on the lines after ``=``, ``a +`` then ``b``,
    and blocks closed by ``end`` on their own line (``if c: x = 1 end``)."""
    text = ("def prog():\n"
            "  global home =\n"
            "    [0, -1.57, 0,\n"
            "     -1.57, 0, 0]\n"
            "  z = 0.1 +\n"
            "    0.2\n"
            "  if z > 0: z = z + 0.1 end\n"
            "  movej(home, a=1.4, v=1.05)\n"
            "  movel(p[0.4, 0.1, z, 0, 3.14, 0], a=1.2, v=0.25)\n"
            "end\n")
    assert _motion_lines(tmp_path, text) == [8, 9]


@pytest.mark.parametrize("call", [
    "force_mode_set_damping(0.005)",           # manual: force mode's damping, a setting
    "force_mode_set_gain_scaling(1.5)",        # manual: force mode's gain, a setting
    "ft_rtde_input_enable(True, sensor_mass=0.5, sensor_measuring_offset=[0.0, 0.0, 0.05], "
    "sensor_cog=[0.0, 0.0, 0.02])",            # manual: an external F/T sensor's values from RTDE
    "reset_revolution_counter(qNear=[0.0, -1.57, 1.57, -1.57, -1.57, 0.0])",  # manual: a setting of the joints' turns
    "protective_stop()",                       # manual: the robot stops, as it does at halt
])
def test_a_setting_of_the_manual_that_moves_nothing_is_passed_over(tmp_path, call):
    """Built-ins of the manual that set something or stop the robot, with no target: the motions around them are
    read and compensated (they were refused as calls that could move the robot)."""
    text = ("def prog():\n"
            f"  {call}\n"
            "  movej([0, -1.57, 1.57, -1.57, -1.57, 0], a=1.4, v=1.05)\n"
            "  movel(p[0.4, 0.1, 0.3, 0, 3.14, 0], a=1.2, v=0.25)\n"
            "end\n")
    assert _motion_lines(tmp_path, text) == [3, 4]


def test_an_unknown_call_is_named_as_one_found_nowhere(tmp_path):
    """The names are the manual's, not a prefix: a call of a function neither of the file nor of the manual that
    starts the same way is one found nowhere (passed over, a note naming it and its line); the manual's are not."""
    path = tmp_path / "unknown.script"
    path.write_text("def prog():\n  force_mode_set_target(1)\n  force_mode_set_damping(0.005)\n"
                    "  movel(p[0.4, 0.1, 0.3, 0, 3.14, 0], a=1.2, v=0.25)\nend\n")
    prog = read_program(path)
    assert prog.unsupported == ()
    assert [(n.line, n.message.split()[0]) for n in prog.notes if "neither a function" in n.message] == [
        (2, "force_mode_set_target")]
