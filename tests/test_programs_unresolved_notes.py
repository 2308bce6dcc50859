"""The note on a construct not resolved before running counts only the motions compensated (issue 35, item 2:
"the report lists the motions compensated under conditions the reader did not resolve").

A motion under an IF/TEST/WHILE on an input is compensated each time in the written order of the cycle, and the
construct's note names its lines. When the same motion is refused after the note was made (its passes are more
than a table holds, :data:`.passes.MAX_PASSES`, lowered here to keep the programs short), the motion stays as
written and the note must say so, not that it is compensated; a motion refused where it stands (its work object
differs from path to path) is not named either. Each motion is named once, however many runs it has. Checked in
both languages against the motions the program model keeps.
"""

from __future__ import annotations

import re

import pytest
from helpers import run_program

from thermocomp.programs import passes, read_program
from thermocomp.programs.options import ProgramOptions

P0 = "[[500,0,400],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]]"
P1 = "[[450,50,350],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]]"
TA = "[TRUE,[[0,0,100],[1,0,0,0]],[1,[0,0,50],[1,0,0,0],0,0,0]]"
TB = "[TRUE,[[0,0,200],[1,0,0,0]],[1,[0,0,50],[1,0,0,0],0,0,0]]"
RAPID_HEAD = (f"MODULE M\n  CONST robtarget p0 := {P0};\n  CONST robtarget p1 := {P1};\n"
              f"  PERS tooldata tA := {TA};\n  PERS tooldata tB := {TB};\n")


def _rapid(main: str, routines: str = "") -> str:
    return RAPID_HEAD + "  PROC main()\n" + main + "  ENDPROC\n" + routines + "ENDMODULE\n"


def _read(tmp_path, text: str, name: str):
    path = tmp_path / name
    path.write_text(text)
    return read_program(path), text.splitlines()


def _line(lines: list[str], start: str, nth: int = 0) -> int:
    return [i + 1 for i, line in enumerate(lines) if line.strip().startswith(start)][nth]


def _note_at(prog, line: int) -> str:
    found = [n.message for n in prog.notes if n.line == line and "not resolved before running" in n.message]
    assert len(found) == 1, prog.notes
    return found[0]


def _counted(note: str) -> tuple[list[int], int]:
    """The lines the note says are compensated, and the runs it says stay as written."""
    named = re.search(r"its \d+ motion\(s\) \(line ([\d, ]+)\) are compensated", note)
    kept = re.search(r"left as written: (\d+) of its motion\(s\)", note)
    return ([int(x) for x in named.group(1).split(", ")] if named else []), (int(kept.group(1)) if kept else 0)


@pytest.fixture
def small_tables(monkeypatch):
    monkeypatch.setattr(passes, "MAX_PASSES", 3)


# (program text, file name, the construct's first word, the motion compensated, the motion refused, the motions the
# note says stay as written)
CASES = {
    "rapid-if-for-too-many-passes": (
        _rapid("    IF DInput(di1) = 1 THEN\n      MoveL p1, v100, fine, tA;\n      FOR i FROM 1 TO 4 DO\n"
               "        MoveL Offs(p0, 10 * i, 0, 0), v100, fine, tA;\n      ENDFOR\n    ENDIF\n"),
        "m.mod", "IF", "MoveL p1", "MoveL Offs", 1),
    "rapid-test-while-too-many-passes": (
        _rapid("    TEST GOutput(go1)\n    CASE 2:\n      n := 0;\n      WHILE n < 5 DO\n"
               "        MoveL Offs(p0, 0, 10 * n, 0), v100, fine, tA;\n        n := n + 1;\n      ENDWHILE\n"
               "      MoveL p1, v100, fine, tA;\n    ENDTEST\n").replace("  PROC main", "  VAR num n := 0;\n  PROC main"),
        "m.mod", "TEST", "MoveL p1", "MoveL Offs", 1),
    "rapid-work-object-set-on-one-path": (
        _rapid("    IF DInput(di1) = 1 THEN\n      MoveL p1, v100, fine, tA;\n      IF DInput(di2) = 1 THEN\n"
               "        wob := [FALSE,TRUE,\"\",[[100,0,0],[1,0,0,0]],[[0,0,0],[1,0,0,0]]];\n      ENDIF\n"
               "      MoveL p0, v100, fine, tA\\WObj:=wob;\n    ENDIF\n"
               ).replace("  PROC main", "  PERS wobjdata wob := [FALSE,TRUE,\"\",[[0,0,0],[1,0,0,0]],"
                                       "[[0,0,0],[1,0,0,0]]];\n  PROC main"),
        "m.mod", "IF", "MoveL p1", "MoveL p0", 0),
    "urscript-if-while-too-many-passes": (
        "def prog():\n  if get_standard_digital_in(0):\n    movel(p[0.45, 0.05, 0.35, 0, 3.14, 0], a=1, v=0.2)\n"
        "    i = 0\n    while i < 4:\n      movel(p[0.4, 0.01 * i, 0.3, 0, 3.14, 0], a=1, v=0.2)\n      i = i + 1\n"
        "    end\n  end\nend\n",
        "p.script", "if", "movel(p[0.45", "movel(p[0.4,", 1),
    "urscript-while-on-input-too-many-passes": (
        "def prog():\n  while get_standard_digital_in(1):\n    k = 0\n    while k < 6:\n"
        "      movel(p[0.4, 0.01 * k, 0.3, 0, 3.14, 0], a=1, v=0.2)\n      k = k + 1\n    end\n"
        "    movel(p[0.45, 0.05, 0.35, 0, 3.14, 0], a=1, v=0.2)\n  end\nend\n",
        "p.script", "while", "movel(p[0.45", "movel(p[0.4,", 1),
}


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_the_note_counts_only_the_motions_compensated(tmp_path, small_tables, case):
    text, name, word, kept_start, refused_start, runs = CASES[case]
    prog, lines = _read(tmp_path, text, name)
    construct = _line(lines, word)
    kept, refused = _line(lines, kept_start), _line(lines, refused_start)
    followed = {m.line for m in prog.motions}
    assert kept in followed and refused not in followed  # (what the model keeps: the refused motion left as written)
    assert any(f.line == refused or f.line < construct for f in prog.unsupported), prog.unsupported
    note = _note_at(prog, construct)
    named, stay = _counted(note)
    assert named == [kept], note
    assert stay == runs, note
    assert note.startswith(f"{word}: not resolved before running")


def test_a_construct_whose_motions_are_all_refused_says_none_is_compensated(tmp_path, small_tables):
    text = _rapid("    IF DInput(di1) = 1 THEN\n      FOR i FROM 1 TO 4 DO\n"
                  "        MoveL Offs(p0, 10 * i, 0, 0), v100, fine, tA;\n      ENDFOR\n    ENDIF\n")
    prog, lines = _read(tmp_path, text, "m.mod")
    note = _note_at(prog, _line(lines, "IF"))
    assert "no motion under it is compensated" in note and _counted(note) == ([], 1), note
    assert not prog.motions


def test_with_nothing_refused_the_note_names_every_motion(tmp_path):
    """The same programs within the table's size: every motion compensated, the note unchanged by the recount."""
    text = _rapid("    IF DInput(di1) = 1 THEN\n      MoveL p1, v100, fine, tA;\n      FOR i FROM 1 TO 4 DO\n"
                  "        MoveL Offs(p0, 10 * i, 0, 0), v100, fine, tA;\n      ENDFOR\n    ENDIF\n")
    prog, lines = _read(tmp_path, text, "m.mod")
    note = _note_at(prog, _line(lines, "IF"))
    offs = _line(lines, "MoveL Offs")
    assert _counted(note) == ([_line(lines, "MoveL p1"), offs], 0), note
    assert not prog.unsupported


@pytest.mark.parametrize("joint_targets", ["keep", "compensate"])
def test_a_joint_target_left_as_written_is_not_counted_as_compensated_in_the_report(tmp_path, joint_targets):
    """``--joint-targets keep`` (the default) leaves a joint target under the IF as written: the report's note on the
    IF names only the Cartesian motion; with ``compensate`` it names both."""
    path = tmp_path / "p.script"
    path.write_text("def prog():\n  if get_standard_digital_in(0):\n    movej([0.1, -1.5, 1.5, -1.57, -1.57, 0], a=1, v=1)\n"
                    "    movel(p[0.4, 0.1, 0.3, 0, 3.14, 0], a=1, v=0.2)\n  end\nend\n")
    report = run_program("ur5", "deformations/exaggerated.csv", path, tmp_path / "out.script",
                         program_options=ProgramOptions(joint_targets=joint_targets))
    notes = [n for n in report.notes if n.startswith(f"{path}:2:3: if: not resolved before running")]
    assert len(notes) == 1, report.notes
    assert _counted(notes[0]) == (([4], 1) if joint_targets == "keep" else ([3, 4], 0)), notes[0]
