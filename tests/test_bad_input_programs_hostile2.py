"""Hostile uses of ``compensate --program`` found by a second adversarial run (mutated real programs, options that
fight each other, outputs that alias inputs): each class that failed is a test here, through the real command line
(tests/test_bad_input.py's ``case``, ``refused`` and ``run_cli``).
"""

from __future__ import annotations

import os
import signal

import pytest
from test_bad_input import case, refused, run_cli  # noqa: F401  (fixture)

from thermocomp.cli.common import EXIT_INPUT, EXIT_OK

POINT = "[[500,0,500],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]]"
MODULE = f"MODULE M2\nCONST robtarget q:={POINT};\nPROC g()\n  MoveL q,v100,z1,tool0;\nENDPROC\nENDMODULE\n"
#: A program whose motions are in its own module and in MODULE's routine g (whose target then changes there).
PROGRAM = f"MODULE M\nCONST robtarget p:={POINT};\nPROC main()\n  MoveL p,v100,z1,tool0;\n  g;\nENDPROC\nENDMODULE\n"
BATCH = ["compensate", "--robot", "irb140", "--deformation", "d.csv", "--at-minute", "60", "--no-progress"]


def test_a_batch_whose_programs_change_a_module_writes_each_copy_beside_its_program(case, capsys):
    """``--program DIR --module m2.mod --out-dir OUT``: a program whose targets in m2.mod change writes
    ``OUT/<program>.m2.mod``, a name the batch never declared: the run ended in a traceback (ValueError: not
    declared with Job.output) with nothing written. Each copy is now written, and one over a file of the user's
    own is refused before any work, naming it."""
    (case / "in").mkdir()
    (case / "out").mkdir()
    for name in ("a.mod", "b.mod"):
        (case / "in" / name).write_text(PROGRAM)
    (case / "m2.mod").write_text(MODULE)
    argv = [*BATCH, "--program", "in", "--module", "m2.mod", "--out-dir", "out"]
    code, out, err = run_cli(capsys, argv)
    assert code == EXIT_OK, err
    assert sorted(p.name for p in (case / "out").iterdir()) == ["a.m2.mod", "a.mod", "b.m2.mod", "b.mod"]
    copy = (case / "out" / "a.m2.mod").read_text()
    assert copy.startswith("MODULE M2\n") and copy != MODULE and copy == (case / "out" / "b.m2.mod").read_text()
    for name in ("a.m2.mod", "a.mod", "b.m2.mod", "b.mod"):
        (case / "out" / name).unlink()
    (case / "out" / "b.m2.mod").write_text("my notes\n")
    refused(case, capsys, argv, EXIT_INPUT, "--out-dir (for --module m2.mod)", "b.m2.mod",
            "not a compensated copy of m2.mod")


def test_one_program_named_twice_through_a_link_is_compensated_once(case, capsys):
    """``--program in/p.mod link/p.mod`` (``link`` a link to ``in``): one file, and one output name; it was
    compensated twice onto one output and counted as two programs written."""
    (case / "in").mkdir()
    (case / "out").mkdir()
    (case / "in" / "p.mod").write_text(PROGRAM.replace("  g;\n", ""))
    os.symlink("in", case / "link")
    code, out, err = run_cli(capsys, [*BATCH, "--program", "in/p.mod", "link/p.mod", "--out-dir", "out"])
    assert code == EXIT_OK, err
    assert "1 program(s): 1 ok" in out and "link/p.mod" not in out
    assert [p.name for p in (case / "out").iterdir()] == ["p.mod"]


ROUTINES = (f"MODULE M\nCONST robtarget p:={POINT};\nPROC main()\n  k 1;\nENDPROC\nPROC k(num x)\n"
            "  MoveL Offs(p,x,0,0),v100,z1,tool0;\nENDPROC\nFUNC num f()\n  MoveL p,v100,z1,tool0;\n  RETURN 1;\n"
            "ENDFUNC\nTRAP t\n  MoveL p,v100,z1,tool0;\nENDTRAP\nENDMODULE\n")


@pytest.mark.parametrize(("entry", "words"), [
    # a PROC with a parameter was run with it unbound: "x is not declared in this module (a datum of another
    # module ...)", a wrong diagnosis; the controller starts a routine with no argument
    ("k", ["b.mod, line 6, column 1", "--entry k: expected a PROC that runs with no argument", "(x)"]),
    # a FUNC, a TRAP or a PROC of a --module was "none of that name"
    ("f", ["b.mod", "--entry f", "got FUNC f (its PROCs: main, k)"]),
    ("t", ["--entry t", "got TRAP t"]),
    ("g", ["--entry g", "got PROC g of m2.mod"]),
    ("nothere", ["--entry nothere", "got none of that name"]),
])
def test_an_entry_that_is_no_routine_a_cycle_can_start_says_what_it_names(case, capsys, entry, words):
    (case / "b.mod").write_text(ROUTINES)
    (case / "m2.mod").write_text(MODULE)
    refused(case, capsys, [*BATCH, "--program", "b.mod", "--module", "m2.mod", "--out", "o.mod", "--entry", entry],
            EXIT_INPUT, *words)


@pytest.mark.parametrize(("files", "modules", "where"), [
    # two MODULEs of one name in one file (a .prg): both were read as one task
    ({"b.prg": PROGRAM + MODULE.replace("M2", "M")}, [], "b.prg, line 8, column 8"),
    # a --module whose MODULE has the program's name, or two --module files of one MODULE name
    ({"b.mod": PROGRAM, "m2.mod": MODULE.replace("MODULE M2", "MODULE m")}, ["m2.mod"], "m2.mod, line 1, column 8"),
    ({"b.mod": PROGRAM, "m2.mod": MODULE, "m3.mod": "MODULE M2\nPROC k()\nENDPROC\nENDMODULE\n"},
     ["m2.mod", "m3.mod"], "m3.mod, line 1, column 8"),
])
def test_two_modules_of_one_name_in_a_task_are_refused_at_the_second(case, capsys, files, modules, where):
    """The controller loads no module of a name the task already has; the reader took both (and compensated)."""
    for name, text in files.items():
        (case / name).write_text(text)
    program = next(iter(files))
    refused(case, capsys, [*BATCH, "--program", program, *(a for m in modules for a in ("--module", m)),
                           "--out", "o" + program[1:]], EXIT_INPUT, where, "is declared twice in the task")


def test_an_aggregate_of_number_lists_with_an_expression_at_its_end_is_lexed_in_linear_time(case, capsys):
    """``[[10,200,10,200], ... 40 of them ..., [10,200,10,Abs(200)]]``: the one-token form of an aggregate of plain
    numbers fails at ``Abs``, and each list of numbers before it was tried as two terminals: 2^40 ways, the lexer
    hung (found by mutating a gantry's speeddata table). Now read, element by element, in well under a second."""
    rows = ",".join(["[10,200,10,200]"] * 40 + ["[10,200,10,Abs(200)]"])
    (case / "b.mod").write_text(PROGRAM.replace("  g;\n", "").replace(
        "CONST robtarget p", f"TASK PERS speeddata vw{{41}}:=[{rows}];\nCONST robtarget p").replace(
        "v100", "vw{41}"))
    def hung(*_):
        raise TimeoutError("the lexer took more than 30 s of CPU (2^40 tries: hours)")

    before = signal.signal(signal.SIGVTALRM, hung)
    signal.setitimer(signal.ITIMER_VIRTUAL, 30)  # (CPU time: a loaded machine's wall clock is no bound)
    try:
        code, out, err = run_cli(capsys, [*BATCH, "--program", "b.mod", "--out", "o.mod"])
    finally:
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)
        signal.signal(signal.SIGVTALRM, before)
    assert code == EXIT_OK, err

