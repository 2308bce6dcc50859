"""Hostile uses of ``compensate --program`` left by the third adversarial run and found by the fourth's fuzzing, each a
sample of a class, through the real command line (tests/test_bad_input.py's ``case``, ``refused`` and ``run_cli``).
The programs are written from the manuals' syntax (ABB "Technical reference manual - RAPID kernel": modules, FOR,
MoveAbsJ with a jointtarget; UR "The URScript Programming Language": while, movej of a joint list).
"""

from __future__ import annotations

import os
import random
import re
import sys

import pytest
from test_bad_input import case, refused, run_cli  # noqa: F401  (fixture)

from thermocomp.cli.common import EXIT_INPUT, EXIT_OK
from thermocomp.errors import ConfigurationError, InputError
from thermocomp.programs import read
from thermocomp.programs.rapid import RapidOptions

POINT = "[[500,0,500],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]]"
PROGRAM = f"MODULE M\nCONST robtarget p:={POINT};\nPROC main()\n  MoveL p,v100,z1,tool0;\nENDPROC\nENDMODULE\n"
RAPID = ["compensate", "--robot", "irb140", "--deformation", "d.csv", "--at-minute", "60", "--no-progress"]
UR = ["compensate", "--robot", "ur5", "--deformation", "d.csv", "--at-minute", "60", "--no-progress"]


@pytest.mark.parametrize(("program", "extra", "shown"), [
    # each was compensated, its name printed raw in the report's lines and notes ("a" on one line, "b.mod:4:9:
    # confdata ..." on the next); an escape sequence in a name rewrote the terminal
    ("a\nb.mod", ["--out", "o.mod"], "--program a\\nb.mod: the file name holds the control character '\\n'"),
    ("c\x1b[31mX.mod", ["--out", "o.mod"], "--program c\\x1b[31mX.mod: the file name holds the control character"),
    ("p.mod", ["--out", "o\tx.mod"], "--out o\\tx.mod: the file name holds the control character '\\t'"),
    ("p.mod", ["--module", "m\r.mod", "--out", "o.mod"], "--module m\\r.mod: the file name holds the control"),
    ("p.mod", ["--out", os.fsdecode(b"o\xe9.mod")], "--out o\\xe9.mod: the file name holds byte 0xe9"),
])
def test_a_file_name_holding_a_control_character_is_refused_by_its_option_and_shown_escaped(case, capsys, program,
                                                                                             extra, shown):
    (case / program).write_text(PROGRAM)
    (case / "m\r.mod").write_text("MODULE M2\nENDMODULE\n")
    err = refused(case, capsys, [*RAPID, "--program", program, *extra], EXIT_INPUT, shown, "rename the file")
    assert err.count("\n") == 1 and "\x1b" not in err and "\t" not in err


def test_a_batch_folder_holding_a_name_with_a_line_break_is_refused_before_any_work(case, capsys):
    (case / "in").mkdir()
    (case / "out").mkdir()
    (case / "in" / "a.mod").write_text(PROGRAM)
    (case / "in" / "q\nr.mod").write_text(PROGRAM)
    refused(case, capsys, [*RAPID, "--program", "in", "--out-dir", "out"], EXIT_INPUT,
            "--program in/q\\nr.mod: the file name holds the control character '\\n'")


@pytest.mark.parametrize(("name", "text", "robot", "written"), [
    ("p.mod", "MODULE M\nCONST jointtarget home:=[[0,0,0,0,30,0],[9E9,9E9,9E9,9E9,9E9,9E9]];\n"
              f"CONST robtarget p:={POINT};\nPROC main()\n  FOR i FROM 1 TO 3 DO\n    MoveAbsJ home,v100,z1,tool0;\n"
              "    MoveL p,v100,z1,tool0;\n  ENDFOR\nENDPROC\nENDMODULE\n", RAPID, "p.mod:6:14: MoveAbsJ joint"),
    ("p.script", "def p():\n  i = 0\n  while (i < 3):\n    movej([0,-1.57,1.57,0,1.57,0], a=1, v=0.5)\n"
                 "    movel(p[0.4,0,0.4,0,3.14,0], a=1, v=0.2)\n    i = i + 1\n  end\nend\n", UR,
     "p.script:4:11: movej joint"),
])
def test_a_note_on_a_text_run_in_every_pass_of_a_loop_is_given_once(case, capsys, name, text, robot, written):
    """A joint target (and a robtarget written with other confdata) in a FOR of 3 passes: each note was printed
    three times, and the count said "3 joint target(s) left as written" of the one written."""
    (case / name).write_text(text)
    code, out, err = run_cli(capsys, [*robot, "--program", name, "--out", "o" + name[1:]])
    assert code == EXIT_OK, err
    notes = out[out.index("notes:"):out.index("phases:")].splitlines()
    assert len(notes) == len(set(notes))
    assert sum(written in line for line in notes) == 1
    assert sum(line.startswith("  1 joint target(s) left as written") for line in notes) == 1
    if name.endswith(".mod"):
        assert sum("p.mod:7:11: confdata written" in line for line in notes) == 1


MODULE_LOOP = f"MODULE M3\nCONST robtarget q:={POINT};\nPROC g()\n  FOR i FROM 1 TO 3 DO\n" \
              "    MoveL Offs(q,i*10,0,0),v100,z1,tool0;\n  ENDFOR\nENDPROC\nENDMODULE\n"
MODULE_CALLED = f"MODULE M3\nCONST robtarget q:={POINT};\nPROC g(num d)\n  MoveL Offs(q,d,0,0),v100,z1,tool0;\n" \
                "ENDPROC\nENDMODULE\n"


@pytest.mark.parametrize(("module", "calls", "where", "entries"), [
    (MODULE_LOOP, "  g;\n", "m3.mod:4:3: FOR", 3),
    (MODULE_CALLED, "  g 10;\n  g 20;\n", "the calls of g", 2),
])
def test_a_table_of_targets_in_another_module_is_written_in_that_module(case, capsys, module, calls, where, entries):
    """A target that differs from pass to pass (a FOR in the module) or from call to call (a routine of the module
    called with other offsets): it was solved, then refused by the writer; then listed by the reader as a construct
    it cannot follow, "in the program's own module only". Its table and counter are now declared LOCAL in the
    module of its motion, which reads them; the program's module gets none."""
    (case / "p.mod").write_text(PROGRAM.replace("ENDPROC", calls + "ENDPROC"))
    (case / "m3.mod").write_text(module)
    code, out, err = run_cli(capsys, [*RAPID, "--program", "p.mod", "--module", "m3.mod", "--out", "o.mod"])
    assert code == EXIT_OK, err
    assert where in out
    written = (case / "o.m3.mod").read_text()
    assert "  LOCAL VAR num tcPassN1 := 0;" in written and f"  LOCAL CONST robtarget tcPassT1{{{entries}}}:=" in written
    assert f"tcPassN1 := tcPassN1 MOD {entries} + 1;" in written and "MoveL tcPassT1{tcPassN1}," in written
    assert "tcPass" not in (case / "o.mod").read_text()


@pytest.mark.parametrize("form", [["--program-output", "joints"], ["--time-indexed", "10"]])
def test_a_form_that_writes_no_table_refuses_one_in_another_module_naming_its_file(case, capsys, form):
    """The joints form and a time-indexed program write no table of corrected targets: a target of another module
    that differs from pass to pass is refused before any work, naming that module's file and line (it was taken for
    the program's: a per-pass text of another module was not found there)."""
    (case / "p.mod").write_text(PROGRAM.replace("ENDPROC", "  g;\nENDPROC"))
    (case / "m3.mod").write_text(MODULE_LOOP)
    argv = [a for a in RAPID if a not in ("--at-minute", "60")] if form[0] == "--time-indexed" else RAPID
    refused(case, capsys, [*argv, "--program", "p.mod", "--module", "m3.mod", "--out", "o.mod", *form], EXIT_INPUT,
            "m3.mod, line 5: the motion target at line 5 differs from pass to pass", form[0])


def test_the_modules_are_checked_in_time_linear_in_their_number(case, monkeypatch):
    """``_check_modules`` compared each --module with every earlier one (same_file: two realpaths and two stats a
    pair): 800 modules took 5 s of CPU before reading began. Each file's identity is now taken once."""
    names = [f"m{k}.mod" for k in range(300)]
    for name in ["p.mod", *names]:
        (case / name).write_text("MODULE X\nENDMODULE\n")
    calls = []
    real = os.path.realpath
    monkeypatch.setattr(os.path, "realpath", lambda path: calls.append(path) or real(path))
    read._check_modules("p.mod", tuple(names))
    assert len(calls) == 301
    os.link(case / "m7.mod", case / "again.mod")
    with pytest.raises(Exception, match="--module again.mod: the same file as --module m7.mod"):
        read._check_modules("p.mod", (*names, "again.mod"))


def _nested(depth: int) -> str:
    """A RAPID module assigning a function call nested ``depth`` deep (``Abs(Abs(...))``), then moving."""
    return PROGRAM.replace("PROC main()\n", f"VAR num x;\nPROC main()\n  x := {'Abs(' * depth}1{')' * depth};\n")


def _from_depth(frames: int, call):
    return call() if frames == 0 else _from_depth(frames - 1, call)


@pytest.mark.parametrize("frames", [0, 500])
def test_the_levels_of_nesting_followed_do_not_depend_on_the_callers_stack(tmp_path, frames):
    """docs/programs.md states the levels the readers follow (245 nested function calls); the message said
    "hundreds" and the docs "about a thousand", and the levels fell with the depth of the caller's own stack (a
    library call from deep code refused what the command line read)."""
    path, limit = tmp_path / "p.mod", sys.getrecursionlimit()
    path.write_text(_nested(240))
    prog = _from_depth(frames, lambda: read.read_program(path, None, RapidOptions()))
    assert len(prog.run) == 1
    path.write_text(_nested(400))
    with pytest.raises(InputError, match="some 160 to 430 levels") as refusal:
        _from_depth(frames, lambda: read.read_program(path, None, RapidOptions()))
    assert refusal.value.row is not None and refusal.value.column is not None
    assert sys.getrecursionlimit() == limit


@pytest.mark.parametrize(("name", "text", "line"), [
    # each ran for minutes (the fuzzer's 60 s limit passed) and would hold gigabytes: lark parses a token at a time
    ("p.script", "def p():\n  big = [" + ",".join(["1"] * 600_000) + "]\n  movel(p[0.4,0,0.4,0,3.14,0], a=1, v=0.2)\n"
                 "end\n", 2),
    ("p.mod", PROGRAM.replace("PROC main", "VAR num big{600000}:=[" + ",".join(["1"] * 600_000) + "];\nPROC main"), 3),
])
def test_a_line_longer_than_the_bound_is_refused_before_it_is_read(case, capsys, name, text, line):
    (case / name).write_text(text)
    robot = RAPID if name.endswith(".mod") else UR
    refused(case, capsys, [*robot, "--program", name, "--out", "o" + name[1:]], EXIT_INPUT,
            f"{name}, line {line}, column 1048577: the ", "line holds 1,200,0", "expected at most 1,048,576 a line")


def test_a_line_within_the_bound_is_read(case, capsys):
    """A comment line of 1 MiB (the bound), before the program's own lines: read, and the program compensated."""
    (case / "p.mod").write_text("!" + "x" * (2**20 - 1) + "\n" + PROGRAM)
    code, _, err = run_cli(capsys, [*RAPID, "--program", "p.mod", "--out", "o.mod"])
    assert code == EXIT_OK, err
    assert (case / "o.mod").read_text().startswith("!" + "x" * (2**20 - 1) + "\nMODULE M\n")


RAPID_TASK = (f"MODULE M\nCONST robtarget p:={POINT};\nVAR num n:=0;\nPROC main()\n  MoveJ p,v500,fine,tool0;\n"
              "  FOR i FROM 1 TO 3 DO\n    MoveL Offs(p,i*10,0,0),v100,z10,tool0\\WObj:=wobj0;\n  ENDFOR\n"
              "  IF n = 0 THEN\n    n := n + 1;\n  ELSE\n    WaitTime 0.5;\n  ENDIF\nENDPROC\nENDMODULE\n")
UR_SCRIPT = ("def prog():\n  global n = 0\n  p1 = p[0.4, 0, 0.4, 0, 3.14, 0]\n  movej(p1, a=1.2, v=0.25)\n"
             "  while (n < 3):\n    movel(pose_trans(p1, p[0, 0, 0.01 * n, 0, 0, 0]), a=1, v=0.2)\n    n = n + 1\n"
             "  end\n  if n == 3:\n    textmsg(\"done\")\n  else:\n    sleep(0.5)\n  end\nend\nprog()\n")


@pytest.mark.parametrize(("name", "text"), [("p.mod", RAPID_TASK), ("p.script", UR_SCRIPT)])
def test_mutated_programs_end_in_a_program_or_a_message_within_the_file(tmp_path, name, text):
    """The fuzzer's property on a program of each language: a token deleted, duplicated or swapped with the next, a
    line deleted or duplicated, the text cut short, NUL bytes, CR LF and CR line ends; each read ends in a program or
    an InputError whose line is one of the file's (the third run left "a syntax error at the end of the file naming a
    line past the last"; neither this nor the fuzzer's 1,000 inputs found one on this branch)."""
    rng = random.Random(4)
    tokens = re.findall(r"\w+|:=|\s+|.", text)
    for k in range(18):
        words, lines = list(tokens), text.splitlines(keepends=True)
        i, j = rng.randrange(len(words)), rng.randrange(len(lines))
        mutated = [("".join(words[:i] + words[i + 1:])), "".join(words[:i] + [words[i]] * 2 + words[i + 1:]),
                   "".join(words[:i] + words[i + 1:i + 2] + words[i:i + 1] + words[i + 2:]),
                   "".join(lines[:j] + lines[j + 1:]), "".join(lines[:j + 1] + lines[j:]), text[:rng.randrange(len(text))],
                   text[:i] + "\x00" + text[i:], text.replace("\n", "\r\n"), text.replace("\n", "\r", 1)][k % 9]
        path = tmp_path / f"{k}{name}"
        path.write_bytes(mutated.encode("latin-1"))
        try:
            read.read_program(path)
        except (InputError, ConfigurationError) as exc:
            last = max(1, mutated.count("\n") + (not mutated.endswith("\n")))
            assert getattr(exc, "row", None) is None or 1 <= exc.row <= last, (mutated, exc)
