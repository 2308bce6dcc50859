"""The scope of names in a RAPID task, from ABB's "Technical reference manual - RAPID overview" ("Basic
characteristics": "Routine scope", "Data scope") and the "RAPID kernel" ("Scope rules"), not from any program:

- global data and routines (declared without ``LOCAL``) are seen by every module of the task; ``TASK PERS`` data
  too (task scope: all modules of this task);
- a ``LOCAL`` datum or routine is seen only in the module that declares it, and there it hides a global datum or
  routine of its name; elsewhere that global one is seen;
- a routine's own data and parameters are seen only in it, and hide the module's and the task's of their name;
- a name is looked up routine -> module -> task; two objects of one name in one scope (two globals of the task, in
  two modules, or two of one module) are an error the controller refuses: the reader names file, line and column.

The modules of a task may stand in one file (a ``.prg``, a RobotStudio backup) or in several (``--module FILE``):
the rules are the same. Each target here sits at a distinct x (mm), so a motion read through the wrong declaration
moves to a wrong x, which the tests see.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_bad_input import run_cli

from thermocomp.errors import InputError
from thermocomp.programs import read_program
from thermocomp.programs.rapid import RapidOptions


def _target(name: str, x: int, storage: str = "CONST", local: bool = False) -> str:
    return (f"  {'LOCAL ' if local else ''}{storage} robtarget {name}:=[[{x},0,400],[0,0,1,0],[0,0,0,0],"
            "[9E+09,9E+09,9E+09,9E+09,9E+09,9E+09]];\n")


def _module(name: str, *items: str) -> str:
    return f"MODULE {name}\n{''.join(items)}ENDMODULE\n"


def _proc(name: str, *statements: str, local: bool = False) -> str:
    return f"  {'LOCAL ' if local else ''}PROC {name}()\n" + "".join(f"    {s}\n" for s in statements) + "  ENDPROC\n"


def _move(target: str = "x") -> str:
    return f"MoveL {target}, v100, fine, tool0;"


def _xs(prog) -> list[float]:
    """The x (mm) of each point the program moves through, in the order its cycle runs them."""
    assert prog.unsupported == (), [f.message for f in prog.unsupported]
    return [round(float(p.T_world_tcp[0, 3]) * 1e3, 6) for p in prog.points]


def _read(tmp_path, *modules: str, split: bool = False, suffix: str = ".prg"):
    """Read ``modules`` (texts) as one task: one file (``split`` False) or the first the program and each other its
    own ``--module`` file."""
    if not split:
        path = tmp_path / f"task{suffix}"
        path.write_text("".join(modules))
        return read_program(path)
    paths = [tmp_path / f"m{i}.mod" for i in range(len(modules))]
    for path, text in zip(paths, modules):
        path.write_text(text)
    return read_program(paths[0], rapid=RapidOptions(modules=tuple(map(str, paths[1:]))))


STORAGES = ["CONST", "VAR", "PERS"]


# ----- a LOCAL datum hides a global one of its name in its module only

@pytest.mark.parametrize("storage", STORAGES)
@pytest.mark.parametrize(("local_in", "order", "split"), [  # (split: the program, main's module, is the first file)
    ("B", "BM", False), ("B", "MB", False), ("M", "BM", False), ("M", "MB", False), ("B", "MB", True),
    ("M", "MB", True)])
def test_a_local_datum_is_its_modules_and_the_global_one_everyone_elses(tmp_path, storage, local_in, order, split):
    """The sample of issue 35 (``two.prg``): B's ``LOCAL x`` beside M's global ``x`` was refused as "x is declared
    twice in the module" (one file) or where B read it (a --module): B moves to its own ``x``, M to its own, which
    ever of the two is ``LOCAL`` and whichever module is read first."""
    b = _module("B", _target("x", 450, storage, local=local_in == "B"), _proc("rb", _move()))
    m = _module("M", _target("x", 500, storage, local=local_in == "M"), _proc("main", "rb;", _move()))
    modules = {"B": b, "M": m}
    assert _xs(_read(tmp_path, *(modules[name] for name in order), split=split)) == [450, 500]


@pytest.mark.parametrize("storage", STORAGES)
@pytest.mark.parametrize("split", [False, True])
def test_two_modules_own_local_data_of_one_name_are_two_data(tmp_path, storage, split):
    """``ab.prg``: ``LOCAL x`` in A and in B, each routine moves to its own module's (a .prg read A's for both: the
    KeyError class of issue 35, or "declared twice")."""
    a = _module("A", _target("x", 400, storage, local=True), _proc("ra", _move()))
    b = _module("B", _target("x", 450, storage, local=True), _proc("rb", _move()))
    m = _module("M", _proc("main", "ra;", "rb;", "ra;"))
    assert _xs(_read(tmp_path, m, a, b, split=split)) == [400, 450, 400]


@pytest.mark.parametrize("split", [False, True])
def test_two_local_data_and_a_global_of_one_name_each_module_its_own(tmp_path, split):
    """``task.prg``: A's and B's ``LOCAL x`` and M's global ``x``; a module with none of its own (N) sees M's."""
    a = _module("A", _target("x", 400, local=True), _proc("ra", _move()))
    b = _module("B", _target("x", 450, "VAR", local=True), _proc("rb", _move()))
    n = _module("N", _proc("rn", _move()))
    m = _module("M", _target("x", 500, "PERS"), _proc("main", "ra;", "rb;", _move(), "rn;"))
    assert _xs(_read(tmp_path, m, a, b, n, split=split)) == [400, 450, 500, 500]


def test_a_local_datum_assigned_in_its_module_leaves_the_global_one_as_it_was(tmp_path):
    """An assignment to B's own ``VAR x`` changes that one: M's global ``x`` still holds its declared value."""
    b = _module("B", _target("x", 450, "VAR", local=True), _target("y", 420),
                _proc("rb", "x := y;", _move()))
    m = _module("M", _target("x", 500, "VAR"), _proc("main", "rb;", _move()))
    assert _xs(_read(tmp_path, m, b)) == [420, 500]


def test_a_local_datum_read_by_its_modules_declarations_is_its_own(tmp_path):
    """A module datum's value reading ``x`` reads the module's own ``x`` (``Offs(x, 0, 0, 0)``), even where a
    later module of the file declares a global ``x``."""
    b = _module("B", _target("x", 450, local=True),
                "  LOCAL CONST robtarget y:=Offs(x, 5, 0, 0);\n", _proc("rb", _move("y")))
    m = _module("M", _target("x", 500), "  CONST robtarget z:=Offs(x, 7, 0, 0);\n", _proc("main", "rb;", _move("z")))
    assert _xs(_read(tmp_path, b, m)) == [455, 507]


@pytest.mark.parametrize("split", [False, True])
def test_a_declaration_reading_a_global_of_a_module_read_after_it_gets_its_value(tmp_path, split):
    """The controller knows every module's data at once: A's ``y := Offs(x, 5, 0, 0)`` reads M's global ``x``, which
    a later module of the file declares (in one file ``y`` had no value: the modules were read in order once)."""
    a = _module("A", "  CONST robtarget y:=Offs(x, 5, 0, 0);\n", _proc("ra", _move("y")))
    m = _module("M", _target("x", 500), _proc("main", "ra;", _move()))
    assert _xs(_read(tmp_path, *([m, a] if split else [a, m]), split=split)) == [505, 500]


@pytest.mark.parametrize("split", [False, True])
def test_another_modules_local_datum_is_seen_nowhere_else(tmp_path, split):
    """M reads ``x``, which only B declares, ``LOCAL``: no reference the controller links; the read is refused
    naming B's declaration, never moved to B's target."""
    b = _module("B", _target("x", 450, local=True), _proc("rb", _move()))
    m = _module("M", _proc("main", "rb;", _move()))
    path, options = _paths(tmp_path, m, b, split)
    prog = read_program(path, rapid=options)
    assert [f.line for f in prog.unsupported] == [4 if split else 10]
    assert "x is declared LOCAL in" in prog.unsupported[0].message
    assert [m.line for m in prog.motions] == [4]


def _paths(tmp_path, main: str, other: str, split: bool):
    if not split:
        path = tmp_path / "task.prg"
        path.write_text(other + main)
        return path, None
    (tmp_path / "main.mod").write_text(main)
    (tmp_path / "other.mod").write_text(other)
    return tmp_path / "main.mod", RapidOptions(modules=(str(tmp_path / "other.mod"),))


def test_a_task_pers_is_seen_by_every_module_of_the_task(tmp_path):
    """``TASK PERS`` has task scope: M reads A's as any global datum."""
    a = _module("A", "  TASK PERS robtarget x:=[[430,0,400],[0,0,1,0],[0,0,0,0],"
                     "[9E+09,9E+09,9E+09,9E+09,9E+09,9E+09]];\n", _proc("ra", _move()))
    m = _module("M", _proc("main", "ra;", _move()))
    assert _xs(_read(tmp_path, a, m)) == [430, 430]


@pytest.mark.parametrize("m_reads", [True, False])
def test_a_local_datum_a_cycle_changes_is_not_taken_for_the_global_one_from_cycle_to_cycle(tmp_path, m_reads):
    """B's own ``n`` is 0 in the first cycle and 20 in every later one (``n := 20`` after the motion reading it), M's
    global ``n`` 0 always: B's motion is refused as changed from cycle to cycle, never compensated at 0 (the first
    cycle's only); M's, where it reads its own, is refused or at its own 0, never at B's 20."""
    b = _module("B", "  LOCAL VAR num n := 0;\n", _target("q", 450),
                _proc("rb", _move("Offs(q, n, 0, 0)"), "n := 20;"))
    m = _module("M", "  VAR num n := 0;\n", _target("p", 500),
                _proc("main", "rb;", *([_move("Offs(p, n, 0, 0)")] if m_reads else [])))
    prog = _read(tmp_path, m, b)
    assert [(f.line, "differs from cycle to cycle" in f.message) for f in prog.unsupported][:1] == [(12 + m_reads, True)]
    assert all(round(float(p.T_world_tcp[0, 3]) * 1e3, 6) == 500 for p in prog.points)


# ----- a routine's own data hide the module's and the task's

@pytest.mark.parametrize("storage", ["CONST", "VAR", "PERS"])
def test_a_routines_own_datum_hides_the_modules_and_a_local_one(tmp_path, storage):
    own = "VAR robtarget x:=[[410,0,400],[0,0,1,0],[0,0,0,0],[9E+09,9E+09,9E+09,9E+09,9E+09,9E+09]];"
    b = _module("B", _target("x", 450, storage, local=True), _proc("rb", own, _move()), _proc("rc", _move()))
    m = _module("M", _target("x", 500, storage), _proc("main", "rb;", "rc;", _move()))
    assert _xs(_read(tmp_path, m, b)) == [410, 450, 500]


def test_a_parameter_hides_a_local_datum_of_its_name(tmp_path):
    b = _module("B", _target("x", 450, local=True), _target("q", 440),
                "  PROC go(robtarget x)\n    MoveL x, v100, fine, tool0;\n  ENDPROC\n")
    m = _module("M", _proc("main", "go q;", "go Offs(q, 3, 0, 0);"))
    assert _xs(_read(tmp_path, m, b)) == [440, 443]


# ----- routines: a LOCAL routine hides a global one of its name in its module only

@pytest.mark.parametrize("split", [False, True])
def test_a_local_proc_is_its_modules_and_the_global_one_everyone_elses(tmp_path, split):
    """A's ``LOCAL PROC go`` beside M's global ``go``: A's calls run A's, M's and N's run M's (the program's LOCAL
    routine beside a module's global one was refused as "which of the two each call there runs is not followed")."""
    a = _module("A", _target("pa", 400), _proc("go", _move("pa"), local=True), _proc("ra", "go;"))
    n = _module("N", _proc("rn", "go;"))
    m = _module("M", _target("pm", 500), _proc("go", _move("pm")), _proc("main", "ra;", "go;", "rn;"))
    assert _xs(_read(tmp_path, m, a, n, split=split)) == [400, 500, 500]


@pytest.mark.parametrize("split", [False, True])
def test_two_modules_local_procs_of_one_name_each_run_by_its_own_module(tmp_path, split):
    """Each module's ``go_home`` moves to its own ``home``: a call was refused at both calls, as a LOCAL PROC of
    two modules, or (in one file) refused as declared in two modules."""
    one = _module("One", _target("home", 480, local=True), _proc("go_home", _move("home"), local=True),
                  _proc("run_a", "go_home;"))
    two = _module("Two", _target("home", 420, local=True), _proc("go_home", _move("home"), local=True),
                  _proc("run_b", "go_home;"))
    m = _module("M", _proc("main", "run_a;", "run_b;", "run_a;"))
    assert _xs(_read(tmp_path, m, one, two, split=split)) == [480, 420, 480]


@pytest.mark.parametrize("split", [False, True])
def test_two_modules_local_funcs_of_one_name_each_evaluated_in_its_own_module(tmp_path, split):
    """``Offs(p, shift(), 0, 0)`` in two modules each with its own ``LOCAL FUNC num shift()`` (40 and -60 mm), and a
    global ``shift`` (7 mm) the main module reads: each its own (two modules' LOCAL FUNCs were refused)."""
    def lib(name: str, shift: int) -> str:
        return _module(name, f"  LOCAL FUNC num shift()\n    RETURN {shift};\n  ENDFUNC\n",
                       _proc(f"run_{name}", _move("Offs(p, shift(), 0, 0)")))
    m = _module("M", _target("p", 500), "  FUNC num shift()\n    RETURN 7;\n  ENDFUNC\n",
                _proc("main", "run_a;", "run_b;", _move("Offs(p, shift(), 0, 0)")))
    assert _xs(_read(tmp_path, m, lib("a", 40), lib("b", -60), split=split)) == [540, 440, 507]


def test_a_local_proc_not_run_is_named_though_another_modules_of_its_name_runs(tmp_path):
    """Only A's ``LOCAL PROC go`` runs: B's, of the same name, is not run, and the note naming the routines not run
    names it at its own line (a routine counted as run by its name alone was not)."""
    a = _module("A", _target("pa", 400), _proc("go", _move("pa"), local=True), _proc("ra", "go;"))
    b = _module("B", _target("pb", 450), _proc("go", _move("pb"), local=True))
    m = _module("M", _proc("main", "ra;"))
    prog = _read(tmp_path, m, a, b)
    assert _xs(prog) == [400]
    assert [n.line for n in prog.notes if "PROC go is not run from the entry routine" in n.message] == [17]


def test_a_call_of_another_modules_local_proc_is_refused_naming_it(tmp_path):
    """M calls ``go``, a ``LOCAL PROC`` of A only: the controller does not link the call; refused there, never
    followed into A's routine."""
    a = _module("A", _target("pa", 400), _proc("go", _move("pa"), local=True))
    m = _module("M", _target("pm", 500), _proc("main", _move("pm"), "go;"))
    prog = _read(tmp_path, m, a)
    assert [f.line for f in prog.unsupported] == [5]
    assert "go is a LOCAL PROC of another module of the task (line 10)" in prog.unsupported[0].message
    assert [p.T_world_tcp[0, 3] * 1e3 for p in prog.points] == pytest.approx([500])


# ----- what the controller refuses: two of one name in one scope

@pytest.mark.parametrize(("modules", "where", "words"), [
    # two global data of one name in two modules of one file
    ([_module("A", _target("x", 400)), _module("M", _target("x", 500), _proc("main", _move()))],
     ("line 5", "(column 19)"), "x is declared in two modules of the task: {path} (line 2) and here"),
    # two PERS, one of them TASK PERS: both of task scope
    ([_module("A", "  TASK PERS num n:=1;\n"), _module("M", "  PERS num n:=2;\n", _proc("main", _move("p")))],
     ("line 5", "(column 12)"), "n is declared in two modules of the task: {path} (line 2) and here"),
    # a LOCAL and a global datum of one name in one module
    ([_module("M", _target("x", 400, local=True), _target("x", 500), _proc("main", _move()))],
     ("line 3", "(column 19)"), "x is declared twice in the module (first at line 2)"),
    # two global PROCs of one name in two modules of one file
    ([_module("A", _proc("go", "WaitTime 1;")), _module("M", _proc("go", "WaitTime 2;"), _proc("main", "go;"))],
     ("line 7",), "PROC go is declared in two modules of the task: {path} (line 2) and here"),
    # a LOCAL PROC and a global FUNC of one name in one module
    ([_module("M", _proc("go", "WaitTime 1;", local=True), "  FUNC num go()\n    RETURN 1;\n  ENDFUNC\n",
              _proc("main", "WaitTime 1;"))], ("line 5, column 12",),
     "FUNC go has the name of PROC go (line 2) in the same module"),
])
@pytest.mark.parametrize("suffix", [".prg", ".mod"])
def test_two_objects_of_one_name_in_one_scope_are_refused_naming_file_line_column(tmp_path, modules, where, words,
                                                                                   suffix):
    path = tmp_path / f"task{suffix}"
    path.write_text("".join(modules))
    with pytest.raises(InputError) as err:
        read_program(path)
    assert str(err.value).startswith(f"{path}, {where[0]}") and all(w in str(err.value) for w in where), \
        str(err.value)
    assert words.format(path=path) in err.value.message, err.value.message


def test_two_globals_in_a_program_and_its_module_file_are_refused_naming_both_files(tmp_path):
    a = _module("A", _target("x", 400))
    m = _module("M", _target("x", 500), _proc("main", _move()))
    with pytest.raises(InputError) as err:
        _read(tmp_path, m, a, split=True)
    assert (err.value.path, err.value.row) == (str(tmp_path / "m0.mod"), 2)
    assert f"x is declared in two modules of the task: {tmp_path / 'm1.mod'} (line 2) and here" in err.value.message


# ----- through the command line: the file written

def test_the_issue_35_sample_is_compensated_each_target_from_its_own_declaration(tmp_path, capsys):
    """``two.prg`` compensated: both declarations of ``x`` written, each near its own x (a deformation of a few
    mm), the rest of the file byte for byte."""
    text = (_module("B", _target("x", 450, local=True), _proc("rb", _move()))
            + _module("M", _target("x", 500), _proc("main", "rb;", _move())))
    (tmp_path / "two.prg").write_text(text)
    deformation = Path(__file__).parents[1] / "deformations" / "exaggerated.csv"
    code, out, err = run_cli(capsys, ["compensate", "--robot", "irb140", "--deformation", str(deformation),
                                      "--program", str(tmp_path / "two.prg"), "--out", str(tmp_path / "out.prg")])
    assert code == 0, err
    written = (tmp_path / "out.prg").read_text().splitlines()
    xs = [float(line.split("x:=[[", 1)[1].split(",", 1)[0]) for line in written if "x:=[[" in line]
    assert len(xs) == 2 and abs(xs[0] - 450) < 15 and abs(xs[1] - 500) < 15 and abs(xs[1] - xs[0] - 50) < 5
    assert [line for line in written if "x:=[[" not in line] == [
        line for line in text.splitlines() if "x:=[[" not in line]
