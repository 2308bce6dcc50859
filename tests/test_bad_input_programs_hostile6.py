"""Hostile uses of ``compensate --program`` found by the sixth adversarial run, each a sample of a class. The programs
are written from the manuals' syntax (ABB "Technical reference manual - RAPID Instructions, Functions and Data
types": MODULE, PROC, IF/TEST/WHILE, CONST robtarget, Offs, MoveL, AInput, CRobT, Incr; UR "The URScript
Programming Language": def, if/while, global, movel, get_analog_in).
"""

from __future__ import annotations

import pytest
from test_bad_input import case, refused, run_cli  # noqa: F401  (fixture)

from thermocomp.cli.common import EXIT_INPUT
from thermocomp.errors import InputError
from thermocomp.programs.rapid import rapid_program_from_text
from thermocomp.programs.urscript import urscript_program_from_text

POINT = "[[500,0,500],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]]"
RAPID = ["compensate", "--robot", "irb140", "--deformation", "d.csv", "--at-minute", "60", "--no-progress"]


# ----- a refusal under a construct not resolved names the statement that changes the datum, not the construct

#: A construct whose course is known only while running (line 5), the datum ``n`` changed inside it at line 6 to a
#: value known only while running, and a motion reading ``n`` at line 7 (inside) or 8 (after).
_CHANGED_INSIDE = {
    "if": "  IF DInput(di1)=1 THEN\n    n:=AInput(ai1);\n    MoveL Offs(p,n,0,0),v100,z1,tool0;\n  ENDIF\n",
    "while": "  WHILE DInput(di1)=1 DO\n    n:=n+AInput(ai1);\n    MoveL Offs(p,n,0,0),v100,z1,tool0;\n  ENDWHILE\n",
    "test": "  TEST DInput(di1)\n  CASE 1:\n    Incr n;\n  ENDTEST\n  MoveL Offs(p,n,0,0),v100,z1,tool0;\n",
    "if after": "  IF DInput(di1)=1 THEN\n    n:=AInput(ai1);\n  ENDIF\n  MoveL Offs(p,n,0,0),v100,z1,tool0;\n",
    "if in while": "  WHILE DInput(di2)=1 DO\n  IF DInput(di1)=1 THEN\n    n:=AInput(ai1);\n  ENDIF\n  ENDWHILE\n"
                   "  MoveL Offs(p,n,0,0),v100,z1,tool0;\n",
}


@pytest.mark.parametrize("construct", sorted(_CHANGED_INSIDE))
def test_a_motion_refused_under_an_unresolved_construct_names_the_line_that_changes_its_data(construct):
    """The data a construct not resolved may assign were marked changed from the construct's start, and a later
    assignment inside it kept that mark: the refusal named the IF's (WHILE's, TEST's) line, not the assignment's.
    It names the statement that changes the datum."""
    body = _CHANGED_INSIDE[construct]
    text = f"MODULE M\nCONST robtarget p:={POINT};\nVAR num n:=0;\nPROC main()\n{body}ENDPROC\nENDMODULE\n"
    prog = rapid_program_from_text(text, "m.mod")
    lines = text.splitlines()
    changed = next(k for k, line in enumerate(lines, 1) if k > 4 and ("n:=" in line or "Incr" in line))
    motion = next(k for k, line in enumerate(lines, 1) if "MoveL" in line)
    found = [f for f in prog.unsupported if f.message.startswith("n is changed at run time")]
    assert len(found) == 1, prog.unsupported
    assert found[0].line == motion
    assert f"(line {changed}, column 5)" in found[0].message, found[0].message


def test_a_datum_a_loop_assigns_after_reading_it_names_the_loop(case, capsys):
    """A read before the loop's own assignment (the pass before gave the value) names that assignment and the loop,
    from whose start the value differs: the CLI refuses naming the motion's line, the assignment's and the WHILE's."""
    (case / "w.mod").write_text(f"MODULE M\nCONST robtarget p:={POINT};\nVAR num n:=0;\nPROC main()\n"
                                "  WHILE DInput(di1)=1 DO\n    MoveL Offs(p,n,0,0),v100,z1,tool0;\n"
                                "    n:=n+AInput(ai1);\n  ENDWHILE\nENDPROC\nENDMODULE\n")
    refused(case, capsys, [*RAPID, "--program", "w.mod", "--out", "o.mod"], EXIT_INPUT,
            "w.mod:6:18: n is changed at run time (line 7, column 5, inside the WHILE at line 5, whose passes are")


def test_a_function_called_in_a_construct_passed_over_is_named_by_its_line():
    """A URScript ``if`` on an input that only calls a function assigning a global is passed over; a later motion
    reading the global was refused saying "a function called in a construct not followed" without a line."""
    text = ("def p():\n  global i = 0\n  def f():\n    global i = get_analog_in(1)\n  end\n"
            "  if get_digital_in(0):\n    f()\n  end\n  movel(p[0.1*i,0.1,0.4,0,3.14,0])\nend\n")
    prog = urscript_program_from_text(text, "p.script")
    assert [(f.line, f.column) for f in prog.unsupported] == [(9, 15)]
    assert "construct not followed at line 6 may change it" in prog.unsupported[0].message


# ----- a syntax error where the grammar takes one sign only names that sign

@pytest.mark.parametrize(("text", "line", "column", "hint"), [
    ("def p()\n  movel(p[0.3,0.1,0.4,0,3.14,0])\nend\n", 1, 8, "':' is expected here (a def, thread, if"),
    ("def p():\n  if True\n    x = 1\n  end\nend\n", 2, 10, "':' is expected here"),
    ("def p():\n  while True\n    sync()\n  end\nend\n", 2, 13, "':' is expected here"),
    ("thread t()\n  sync()\nend\n", 1, 11, "':' is expected here"),
    ("def p():\n  if True:\n    x = 1\n  else\n    x = 2\n  end\nend\n", 4, 7, "':' is expected here"),
    ("def p():\n  x = (1\n  y = 2\nend\n", 3, 3, "')' is expected here"),
])
def test_a_line_missing_its_colon_or_bracket_names_the_sign(text, line, column, hint):
    """A ``def``/``if``/``while``/``else`` line without its ``:`` was refused as "unexpected end of line" with no
    word of what was missing; where the grammar takes one sign only next, the message names it."""
    with pytest.raises(InputError) as info:
        urscript_program_from_text(text, "p.script")
    assert info.value.row == line
    assert "URScript syntax: unexpected " in info.value.message and f"(column {column}): {hint}" in info.value.message


def test_a_syntax_error_where_several_signs_may_follow_names_none(case, capsys):
    """Where more than one token may follow, no sign is named (the hint would guess): the CLI refuses with the line,
    the column and nothing written."""
    (case / "p.script").write_text("def p():\n  x = foo(1 2)\nend\n")
    err = refused(case, capsys, ["compensate", "--robot", "ur5", "--deformation", "d.csv", "--at-minute", "60",
                                 "--no-progress", "--program", "p.script", "--out", "o.script"], EXIT_INPUT,
                  "p.script, line 2: URScript syntax: unexpected '2' (column 13)")
    assert "is expected here" not in err


# ----- comment lines cost no token each

def test_a_run_of_rapid_comment_lines_is_one_ignored_token():
    """Each comment line was two tokens of lark's lexer (the comment, then the line break), ignored one by one: a
    module of a million comment lines read for 15 s. White space and comments between two tokens are one."""
    from thermocomp.programs.rapid import rapid_parser

    for n in (10, 2000):
        text = (f"MODULE M\nCONST robtarget p:={POINT};\n" + "  ! a comment\n\n" * n
                + "PROC main()\n  MoveL p,v100,z1,tool0;\nENDPROC\nENDMODULE\n")
        tokens = list(rapid_parser().lex(text, dont_ignore=True))
        assert len(tokens) < 40, (n, len(tokens))
        assert rapid_program_from_text(text, "m.mod").motions[0].statement.line == 2 * n + 4


def test_urscript_comment_lines_do_not_count_against_the_token_bound(monkeypatch):
    """Each URScript comment line was a line-end token counted against the readers' bound (1,000,000): a script of
    a million comment lines was refused as too many tokens. The comment lines between two lines of code are one
    line end; the bound, lowered here to 500, still stops a script of many statements."""
    from thermocomp.programs import grammars

    monkeypatch.setattr(grammars, "MAX_TOKENS", 500)
    text = "def p():\n" + "  # a comment\n  ### another\n" * 2000 + "  movel(p[0.3,0.1,0.4,0,3.14,0])\nend\n"
    assert [m.statement.line for m in urscript_program_from_text(text, "p.script").motions] == [4002]
    with pytest.raises(InputError, match="more than 500 tokens"):
        urscript_program_from_text("def p():\n" + "  x = 1\n" * 300 + "end\n", "p.script")


# ----- a failed commit names its output without resolving every output's path again

def test_a_refused_rename_names_its_output_without_a_scan_of_every_output(tmp_path, monkeypatch):
    """``Job.commit``'s error path found the label of the output whose rename failed by resolving the destination
    of every output declared (a batch's or a task's hundreds): it is kept as each output is staged."""
    import os
    from pathlib import Path

    from thermocomp.io import job as jobs

    real_replace, real_destination, resolved = os.replace, jobs.destination, []

    def refuse_last(src, dst):  # as an immutable file refuses
        if Path(dst).name == "o39.mod":
            raise PermissionError(1, "Operation not permitted")
        return real_replace(src, dst)

    with pytest.raises(InputError, match=r"--out39 .*o39\.mod: cannot write: Operation not permitted"):
        with jobs.Job() as job:
            outs = [job.output(tmp_path / f"o{k}.mod", f"--out{k}") for k in range(40)]
            job.check()
            for out in outs:
                job.write_text(out, "MODULE M\nENDMODULE\n")
            monkeypatch.setattr(jobs, "destination", lambda path: resolved.append(path) or real_destination(path))
            monkeypatch.setattr(os, "replace", refuse_last)
            job.commit()
    monkeypatch.undo()
    assert list(tmp_path.iterdir()) == []
    assert len(resolved) <= 40, len(resolved)  # (the outputs' check once; the error path resolved all 40 again)


# ----- a program in UTF-16 or UTF-32 without a byte-order mark is named as such, not as binary data

@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be", "utf-32-le"])
@pytest.mark.parametrize(("name", "robot", "text"), [
    ("p.mod", "irb140", f"MODULE M\nCONST robtarget p:={POINT};\nPROC main()\n  MoveL p,v100,z1,tool0;\nENDPROC\n"
                        "ENDMODULE\n"),
    ("p.script", "ur5", "def p():\n  movel(p[0.3,0.1,0.4,0,3.14,0])\nend\n"),
])
def test_a_program_in_utf16_or_utf32_without_a_mark_is_named_so(case, capsys, encoding, name, robot, text):
    """Saved as UTF-16 or UTF-32 without a byte-order mark (Windows editors' "Unicode" with the mark dropped), a
    program was refused as binary data ("byte 0x00 at column 2"): it is named as that encoding, line 1, column 1."""
    (case / name).write_bytes(text.encode(encoding))
    refused(case, capsys, ["compensate", "--robot", robot, "--deformation", "d.csv", "--at-minute", "60",
                           "--no-progress", "--program", name, "--out", "o" + name[1:]], EXIT_INPUT,
            f"{name}, line 1, column 1: the ", "is UTF-16 or UTF-32 encoded (every other byte is 0): save it as ASCII "
            "or UTF-8")


# ----- PolyScope's step lines between motions do not split a run of plain motions

def _stepped(n: int, label: str = "Waypoint_{k}") -> str:
    """A PolyScope-style program: a step line (``$ k "label"``) before each of ``n`` plain motions."""
    return ("def prog():\n  set_tcp(p[0,0,0.1,0,0,0])\n" + "".join(
        f'  $ {k} "{label.format(k=k)}"\n  movel(p[.{300 + k % 50},.1,.4,0,3.14,0], a=1.2, v=0.25)\n'
        for k in range(n)) + "end\n")


def test_step_lines_between_motions_keep_one_run_read_as_the_general_rules_read_it():
    """Each ``$`` line ended the run of plain motions before it: a PolyScope export of 1,000 waypoints was 1,000
    runs of one motion, each split on its own (0.56 s of CPU against 0.014 s for the same motions without the
    step lines). A step line does nothing: it is part of the gap between a run's motions, and the motions read
    are those the general rules read, statement by statement."""
    from program_builders import assert_same_steps, general_rules_form

    text = _stepped(300, 'Way,point (#{k}) [x] = p[1,2]')
    from thermocomp.programs.urscript import parse_urscript_text

    assert len(list(parse_urscript_text(text, "s.script").find_data("moves"))) == 1  # (one run: it was 300)
    prog = urscript_program_from_text(text, "s.script")
    assert [m.statement.line for m in prog.motions] == list(range(4, 604, 2))
    assert_same_steps(prog, urscript_program_from_text(general_rules_form(text, "urscript"), "s.script"))


@pytest.mark.parametrize("line", ['  $ -1 "MoveJ"', '  $ 3', '  $ 3 "MoveJ', '  $ "MoveJ"'])
def test_a_step_line_the_grammar_refuses_is_still_refused_between_motions(line):
    """What the grammar's ``step`` does not take (a signed number, no label, an open string, no number) is no gap
    of a run: between two motions it is a syntax error on its line, as anywhere."""
    motion = "  movel(p[.3,.1,.4,0,3.14,0])\n"
    with pytest.raises(InputError) as info:
        urscript_program_from_text(f"def prog():\n{motion}{line}\n{motion}end\n", "s.script")
    assert info.value.row == 3 and "URScript syntax" in info.value.message


def test_a_motion_read_in_several_passes_under_an_unresolved_construct_is_refused_once():
    """A FOR unrolled inside a routine called under an IF on an input: its first pass reads the datum with the IF's
    mark, a later pass after the assignment inside the loop. Each motion is refused once, for its datum, by the
    first refusal (two messages of one motion and datum doubled the count of constructs named)."""
    text = (f"MODULE M\nCONST robtarget p:={POINT};\nVAR num off:=0;\nVAR num n:=0;\nPROC main()\n"
            "  IF DInput(di1)=1 THEN\n    weld;\n  ENDIF\nENDPROC\nPROC weld()\n  FOR j FROM 1 TO 3 DO\n"
            "    MoveL Offs(p,off,0,0),v100,fine,tool0;\n    Incr n;\n    off:=n*10;\n"
            "    MoveL Offs(p,off,50,0),v100,fine,tool0;\n  ENDFOR\nENDPROC\nENDMODULE\n")
    prog = rapid_program_from_text(text, "m.mod")
    assert [(f.line, f.message.split(" (")[1][:7]) for f in prog.unsupported] == [(12, "line 7,"), (15, "line 14")]
