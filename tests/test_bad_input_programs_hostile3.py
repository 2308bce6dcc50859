"""Hostile uses of ``compensate --program`` left by the second adversarial run, each a sample of a class, through the
real command line (tests/test_bad_input.py's ``case``, ``refused`` and ``run_cli``). The programs are written from
the manuals' syntax (ABB "Technical reference manual - RAPID kernel": modules, ``LOCAL`` data and their scope; UR
"The URScript Programming Language" and PolyScope's ``$ n "label"`` step lines).
"""

from __future__ import annotations

import os

import pytest
from test_bad_input import case, refused, run_cli  # noqa: F401  (fixture)

from thermocomp.app import compensate as batch
from thermocomp.cli.common import EXIT_INPUT, EXIT_OK

POINT = "[[500,0,500],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]]"
OTHER = "[[600,0,450],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]]"
PROGRAM = f"MODULE M\nCONST robtarget p:={POINT};\nPROC main()\n  MoveL p,v100,z1,tool0;\nENDPROC\nENDMODULE\n"
RAPID = ["compensate", "--robot", "irb140", "--deformation", "d.csv", "--at-minute", "60", "--no-progress"]
UR = ["compensate", "--robot", "ur5", "--deformation", "d.csv", "--at-minute", "60", "--no-progress"]


@pytest.mark.parametrize(("name", "data", "words"), [
    # each was "RAPID syntax: unexpected end of file (column 1)", or for a URScript an empty file written back
    ("p.mod", b"", ["p.mod, line 1, column 1", "the RAPID module is empty (0 bytes)"]),
    ("p.mod", b"\xef\xbb\xbf", ["holds only a byte-order mark:"]),
    ("p.modx", b"\xef\xbb\xbf \r\n\t\n", ["holds only a byte-order mark and white space"]),
    ("p.script", b"", ["p.script, line 1, column 1", "the URScript is empty (0 bytes)"]),
    ("p.script", b"\n \n", ["the URScript holds only white space"]),
    # a module of comments only: a RAPID file holds at least one module
    ("p.mod", b"! a note\n\n  ! another\n", ["p.mod, line", "RAPID syntax: the file holds no statement, only "
                                                "comments and white space"]),
])
def test_a_program_with_no_text_is_refused_as_empty(case, capsys, name, data, words):
    (case / name).write_bytes(data)
    robot = RAPID if name.endswith(("mod", "modx")) else UR
    refused(case, capsys, [*robot, "--program", name, "--out", "o" + name[1:]], EXIT_INPUT, *words)


def test_an_empty_module_of_the_task_is_refused_naming_it(case, capsys):
    (case / "p.mod").write_text(PROGRAM)
    (case / "m2.mod").write_bytes(b"\xef\xbb\xbf")
    refused(case, capsys, [*RAPID, "--program", "p.mod", "--module", "m2.mod", "--out", "o.mod"], EXIT_INPUT,
            "m2.mod, line 1, column 1", "RAPID module (--module) holds only a byte-order mark")


@pytest.mark.parametrize(("module", "text"), [
    # the deformation table given as a module: it was "RAPID syntax: unexpected '#'" at its first line
    ("d.csv", None),
    ("g.script", "def g():\n  sleep(1)\nend\n"),
    ("notes.txt", "MODULE N\nENDMODULE\n"),
])
def test_a_module_that_is_no_rapid_file_is_refused_by_its_name(case, capsys, module, text):
    (case / "p.mod").write_text(PROGRAM)
    if text is not None:
        (case / module).write_text(text)
    refused(case, capsys, [*RAPID, "--program", "p.mod", "--module", module, "--out", "o.mod"], EXIT_INPUT,
            "--module: expected a RAPID module ending in .mod, .modx, .prg, .sys", f"got {module!r}")


@pytest.mark.parametrize(("modules", "words"), [
    # each was "RAPID: MODULE M is declared twice in the task (first in this file, line 1)"
    (["p.mod"], ["--module p.mod: the program itself (--program p.mod)"]),
    (["link.mod"], ["--module link.mod: the program itself (--program p.mod)"]),
    (["m2.mod", "./m2.mod"], ["--module ./m2.mod: the same file as --module m2.mod; give each module once"]),
])
def test_a_module_that_is_the_program_or_another_module_is_refused_by_the_option(case, capsys, modules, words):
    (case / "p.mod").write_text(PROGRAM)
    (case / "m2.mod").write_text("MODULE M2\nENDMODULE\n")
    os.symlink("p.mod", case / "link.mod")
    refused(case, capsys, [*RAPID, "--program", "p.mod", *(a for m in modules for a in ("--module", m)),
                           "--out", "o.mod"], EXIT_INPUT, *words)


@pytest.mark.parametrize(("line", "column", "number"), [
    ("  $5.4 while True:", 8, "5.4"),  # the label forgotten, the next statement on the step's line
    ("  $ 7", 6, "7"),  # the step's line ends after its number
])
def test_a_step_line_without_its_label_says_what_the_step_takes(case, capsys, line, column, number):
    """It was "URScript syntax: unexpected 'while'", true but not what to write."""
    text = (f'def main():\n  $ 1 "MoveJ"\n  movej([0,-1.57,1.57,0,0,0], a=1, v=1)\n{line}\n  movej([0,-1.2,1.2,0,0,0])\n'
            "  sleep(0.1)\n" + ("  end\n" if "while" in line else "") + "end\n")
    (case / "p.script").write_text(text)
    refused(case, capsys, [*UR, "--program", "p.script", "--out", "o.script"], EXIT_INPUT,
            "p.script, line 4: URScript syntax: unexpected", f"(column {column}): a step line ($ {number}) takes "
            f'its label in quotes next, as PolyScope writes it ($ {number} "MoveJ")')


LOCAL_PROGRAM = (f"MODULE M\nLOCAL CONST robtarget p:={POINT};\nPROC main()\n  MoveL p,v100,z1,tool0;\n{{call}}"
                 "ENDPROC\nENDMODULE\n")
GLOBAL_MODULE = f"MODULE M2\nCONST robtarget p:={OTHER};\nPROC g()\n  MoveJ p,v100,z1,tool0;\nENDPROC\nENDMODULE\n"


def test_a_local_datum_of_the_program_beside_a_modules_global_of_its_name_is_its_own(case, capsys):
    """RAPID scope rules: a LOCAL datum hides a global of its name within its module, so the controller loads a
    program with ``LOCAL CONST robtarget p`` beside a ``--module`` declaring a global ``p``; it was refused as "p is
    declared in two modules of the task". The program's motion reads its own ``p`` (500 mm), compensated."""
    (case / "p.mod").write_text(LOCAL_PROGRAM.format(call=""))
    (case / "m2.mod").write_text(GLOBAL_MODULE)
    code, out, err = run_cli(capsys, [*RAPID, "--program", "p.mod", "--module", "m2.mod", "--out", "o.mod"])
    assert code == EXIT_OK, err
    written = (case / "o.mod").read_text()
    x = float(written.split("p:=[[", 1)[1].split(",", 1)[0])
    assert written != LOCAL_PROGRAM.format(call="") and 480 < x < 520  # (near its own 500 mm, not the global's 600)
    assert not (case / "o.m2.mod").exists()


def test_two_globals_of_one_name_in_two_modules_are_still_refused(case, capsys):
    (case / "p.mod").write_text(LOCAL_PROGRAM.format(call="").replace("LOCAL ", ""))
    (case / "m2.mod").write_text(GLOBAL_MODULE)
    refused(case, capsys, [*RAPID, "--program", "p.mod", "--module", "m2.mod", "--out", "o.mod"], EXIT_INPUT,
            "p.mod, line 2", "p is declared in two modules of the task: m2.mod (line 2)")


def test_a_batch_output_replaced_by_a_link_while_it_runs_is_refused_not_a_traceback(case, capsys, monkeypatch):
    """An output that becomes a link after the batch checked its outputs (another process, between the check and
    the commit): the batch's job looked its temporary up by the link's target and ended in a traceback
    (ValueError: not declared with Job.output). The commit's own check now refuses it, naming the output; nothing
    is written and the file the link points at is untouched."""
    (case / "in").mkdir()
    (case / "out").mkdir()
    (case / "in" / "a.mod").write_text(PROGRAM)
    (case / "elsewhere.mod").write_text("my notes\n")
    one = batch._compensate_one

    def then_a_link(task):
        outcome = one(task)
        os.symlink(case / "elsewhere.mod", case / "out" / "a.mod")
        return outcome

    monkeypatch.setattr(batch, "_compensate_one", then_a_link)
    code, out, err = run_cli(capsys, [*RAPID, "--program", "in", "--out-dir", "out"])
    assert code == EXIT_INPUT, err
    assert "Traceback" not in err and "out/a.mod: cannot write through a symbolic link" in err
    assert [p.name for p in (case / "out").iterdir()] == ["a.mod"] and (case / "out" / "a.mod").is_symlink()
    assert (case / "elsewhere.mod").read_text() == "my notes\n"


LOCAL_FUNC = (f"MODULE M\nCONST robtarget p:={POINT};\nLOCAL FUNC num f()\n  RETURN 20;\nENDFUNC\nPROC main()\n"
              "  MoveL Offs(p,f(),0,0),v100,z1,tool0;\n  g;\nENDPROC\nLOCAL PROC g()\n  WaitTime 1;\nENDPROC\nENDMODULE\n")


@pytest.mark.parametrize("module", [
    # the program's Offs(p, f(), 0, 0) read the module's f (300 mm further) and was compensated so, silently
    "MODULE M2\nFUNC num f()\n  RETURN 300;\nENDFUNC\nPROC g()\n  WaitTime 5;\nENDPROC\nENDMODULE\n",
    # the program's LOCAL PROC g beside the module's global g was "PROC g is declared in two modules of the task"
    "MODULE M2\nPROC g()\n  WaitTime 5;\nENDPROC\nENDMODULE\n",
])
def test_a_local_routine_of_the_program_is_the_one_its_calls_run(case, capsys, module):
    """RAPID scope rules: a LOCAL routine hides a global one of its name within its module. The program with the
    module is compensated as it is alone (the same text written, the same cycle time)."""
    (case / "p.mod").write_text(LOCAL_FUNC)
    (case / "m2.mod").write_text(module)
    argv = [*RAPID, "--program", "p.mod"]
    code, out, err = run_cli(capsys, [*argv, "--out", "alone.mod"])
    assert code == EXIT_OK, err
    code, out, err = run_cli(capsys, [*argv, "--module", "m2.mod", "--out", "o.mod"])
    assert code == EXIT_OK, err
    assert "cycle 1 s" in out
    assert (case / "o.mod").read_bytes() == (case / "alone.mod").read_bytes() != LOCAL_FUNC.encode()


@pytest.mark.parametrize(("program", "module", "words"), [
    # two global FUNCs of one name: the controller loads neither (a PROC's pair was refused, a FUNC's not)
    (LOCAL_FUNC.replace("LOCAL FUNC", "FUNC"), "MODULE M2\nFUNC num f()\n  RETURN 300;\nENDFUNC\nENDMODULE\n",
     ["p.mod, line 3", "FUNC f is declared in two modules of the task: m2.mod (line 2) and here"]),
])
def test_two_global_routines_of_one_name_in_two_modules_are_refused_naming_both(case, capsys, program, module,
                                                                                 words):
    (case / "p.mod").write_text(program)
    (case / "m2.mod").write_text(module)
    refused(case, capsys, [*RAPID, "--program", "p.mod", "--module", "m2.mod", "--out", "o.mod"], EXIT_INPUT, *words)


@pytest.mark.parametrize(("name", "text", "robot"), [
    ("p.mod", PROGRAM, RAPID), ("p.script", "def prog():\n  movel(p[0.4, 0.1, 0.4, 0, 3.14, 0])\nend\n", UR)])
def test_an_entry_that_is_no_name_is_refused_in_words_true_for_either_language(case, capsys, name, text, robot):
    """``--entry ''`` names a routine in both languages (a RAPID PROC, a URScript def): the refusal says so; it said
    "a RAPID routine name" for a URScript too."""
    (case / name).write_text(text)
    refused(case, capsys, [*robot, "--program", name, "--entry", "", "--out", "o" + name[1:]], EXIT_INPUT,
            "--entry: expected a routine name (a RAPID PROC's or a URScript def's", "got ''")
