"""A comment inside a motion target's text is kept when the target is rewritten (RAPID ``!``, URScript ``#``).

The rule is "the same program with only the motion targets changed, every other byte kept": a target written
back in its own form keeps its layout byte for byte but for its numbers; one written in another form (a joint
target in place of a robtarget, a MoveC as two MoveAbsJ) keeps its comments, each on a line of its own.
"""

from __future__ import annotations

import re

import pytest
from helpers import REPO, run_program

from thermocomp.compensation.compensate import CompensationOptions
from thermocomp.deformation.timelaw import Static
from thermocomp.programs import ProgramOptions, read_program
from thermocomp.programs.writer import NUMBER

TABLE = REPO / "deformations" / "exaggerated.csv"

RAPID = """MODULE M
  CONST robtarget p1 := [[500,0,400], ! approach, above the part
   [0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]];
  CONST robtarget pv := [[550,50,400],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]];
  PROC main()
    MoveL p1, v100, z10, tool0;
    MoveL [[450,50,400],[0,0,1,0],[0,0,0,0], ! inline, measured 2026-11-20
       [9E9,9E9,9E9,9E9,9E9,9E9]], v100, z10, tool0;
    MoveC pv, [[500,100,400], ! arc end
       [0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]], v100, z10, tool0;
  ENDPROC
ENDMODULE
"""

URSCRIPT = """def f():
  global wp = p[0.4, -0.1, # x and y of the fixture
    0.3, 0, 3.14159, 0]
  movel(wp, a=1.2, v=0.25)
  movel(p[0.45, -0.05, # inline
     0.3, 0, 3.14159, 0], a=1.2, v=0.25)
end
"""


def _uncommented(text: str, comment: str) -> str:
    """The same program with every comment inside a target removed and its line joined to the next."""
    return re.sub(rf" *{re.escape(comment)}[^\n]*\n\s*", "", text)


def _skeleton(text: str) -> str:
    return NUMBER.sub("#", text)


def _compensated(tmp_path, name: str, text: str, output: str = "filtered") -> str:
    path, out = tmp_path / name, tmp_path / f"out_{name}"
    path.write_text(text)
    robot = "irb140" if name.endswith(".mod") else "ur5"
    run_program(robot, TABLE, path, out, options=CompensationOptions(time_law=Static()),
                       program_options=ProgramOptions(output=output))
    return out.read_text()


@pytest.mark.parametrize(("name", "text", "comment"), [("p.mod", RAPID, "!"), ("p.script", URSCRIPT, "#")])
def test_a_comment_inside_a_target_is_kept_and_only_the_numbers_change(tmp_path, name, text, comment):
    got = _compensated(tmp_path, name, text)
    plain = _compensated(tmp_path, "plain" + name[1:], _uncommented(text, comment))
    assert got != text
    assert _skeleton(got) == _skeleton(text)  # every byte but the numbers kept, comments and line breaks included
    assert NUMBER.findall(_uncommented(got, comment)) == NUMBER.findall(plain)  # the numbers as without comments


@pytest.mark.parametrize(("name", "text", "comment"), [("p.mod", RAPID, "!"), ("p.script", URSCRIPT, "#")])
def test_a_target_written_in_another_form_keeps_its_comments(tmp_path, name, text, comment):
    got = _compensated(tmp_path, name, text, "joints")
    plain = _compensated(tmp_path, "plain" + name[1:], _uncommented(text, comment), "joints")
    for line in re.findall(rf"{re.escape(comment)}[^\n]*", text):
        assert line in got
    assert NUMBER.findall(_uncommented(got, comment)) == NUMBER.findall(plain)
    (tmp_path / f"back{name[1:]}").write_text(got)
    read_program(tmp_path / f"back{name[1:]}")  # still a program the reader (and so the controller) reads


def test_the_writer_finds_every_commented_target_however_many_comments_there_are():
    from thermocomp.programs.writer import Edit, apply_edits

    line = "MoveL [[1,2,3], ! c\n [4]], v;\n"
    plain = "MoveL [[1,2,3],[4]], v; ! after\n"
    for lines in ([plain] * 9 + [line], [line] * 10, [plain, line] * 5):  # few comments, many, alternating
        text = "! head\n" + "".join(lines)
        starts = [text.index("[[", i) for i in (m for m in range(len(text)) if text.startswith("MoveL", m))]
        ends = [text.index("]],", a) + 2 for a in starts]
        got = apply_edits(text, [Edit(a, b, "[[7,8,9],[6]]") for a, b in zip(starts, ends)], "m.mod", "!").decode("latin-1")
        assert got == text.replace("1,2,3", "7,8,9").replace("[4]", "[6]")
