"""RAPID reader defects, each a class written from ABB's manuals' syntax, not from any program:

- **A FUNC runs its statements until a RETURN** ("Technical reference manual - RAPID overview", "Routine
  termination": "The evaluation of a function must be terminated by a RETURN instruction"; "RAPID kernel",
  functions): its body may hold ``IF``, ``TEST``, ``FOR`` and ``WHILE``. Its value is known where every datum it
  reads is: a branch the file decides runs alone; a condition decided only while running runs every branch, and the
  value is known only where each path returns the same one, else the refusal names the FUNC, the condition's line
  and what it reads (the palletizing cell of held-out 29, ``Odloz(n, p)``: ``IF n < 2 THEN ... ELSE ... ENDIF``).
- **A FUNC's INOUT, VAR and PERS parameters** (RAPID overview, "Function calls": "The called function gains full
  (read/write) access to the argument"): a FUNC that assigns one is evaluated, and the caller's datum is changed as
  a PROC's assignment to such a parameter changes it.
- **A ``VAR jointtarget`` declared without a value** starts at zeros ("RAPID kernel", "Variable declarations": a
  variable without an initial value is given the type's zero value): a ``MoveAbsJ`` to it compensated is written
  inline with the external axes its value holds, not ``9E+09``.
- **A routine hides the instruction of its name** (RAPID overview, "Routine scope": "Within its scope, a routine
  hides instructions and predefined routines and data with the same name"): a user ``PROC WaitTime``, ``VelSet`` or
  ``MoveL`` is what a call of that name runs, in the reader's walk and in its summary of what a routine does.

Each target sits at a distinct x (mm), so a motion read through a wrong value moves to a wrong x, which the tests see.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import run_program
from test_programs_func_assign import _REST, _move, _xs

from thermocomp import DeformationTable
from thermocomp.compensation.compensate import CompensationOptions
from thermocomp.deformation.timelaw import Static
from thermocomp.programs import ProgramOptions, read_program
from thermocomp.programs.rapid import RapidOptions, read_rapid


def _program(tmp_path, *statements: str, declared: str = "", routines: str = ""):
    """A module with ``base`` at x = 500 mm, the ``declared`` data and ``routines``; ``main`` runs ``statements``."""
    path = tmp_path / "task.mod"
    path.write_text("MODULE M\n"
                    f"  CONST robtarget base:=[[500,0,400],{_REST};\n"
                    f"  VAR robtarget p:=[[200,0,400],{_REST};\n"
                    f"{declared}{routines}"
                    "  PROC main()\n" + "".join(f"    {s}\n" for s in statements) + "  ENDPROC\nENDMODULE\n")
    return read_program(path)


def _func(name: str, params: str, *body: str) -> str:
    return f"  FUNC robtarget {name}({params})\n" + "".join(f"    {s}\n" for s in body) + "  ENDFUNC\n"


# ----- a FUNC whose body holds control flow
_PLACED = _func("placed", "num n", "IF n < 2 THEN", "  RETURN Offs(base, 10, 0, 0);", "ELSEIF n = 2 THEN",
                "  RETURN Offs(base, 20, 0, 0);", "ENDIF", "RETURN Offs(base, 30, 0, 0);")


def test_a_func_returns_through_an_if_on_its_parameter(tmp_path):
    """``IF n < 2 ... ELSEIF n = 2 ... ENDIF RETURN``: the branch the argument decides returns; a FOR counter passed
    in decides it pass by pass."""
    prog = _program(tmp_path, _move("placed(1)"), _move("placed(2)"), _move("placed(7)"),
                    "FOR i FROM 1 TO 3 DO", "  " + _move("placed(i)"), "ENDFOR", routines=_PLACED)
    assert _xs(prog) == [510.0, 520.0, 530.0, 510.0, 520.0, 530.0]


def test_a_func_assigns_in_the_branches_of_an_if_then_returns(tmp_path):
    """The corpus's form: each branch gives a module datum a value, the RETURN after the ``ENDIF`` reads it; the
    datum holds it after the call, as a PROC's assignment leaves it."""
    routine = _func("put", "num n, robtarget start", "IF n < 2 THEN", "  p := Offs(start, n * 10, 0, 0);", "ELSE",
                    "  p := Offs(start, n * 20, 0, 0);", "ENDIF", "RETURN p;")
    prog = _program(tmp_path, "FOR i FROM 1 TO 3 DO", "  p := put(i, base);", "  " + _move("p"), "ENDFOR",
                    routines=routine)
    assert _xs(prog) == [510.0, 540.0, 560.0]


def test_a_func_returns_through_a_test_a_for_and_a_while(tmp_path):
    """``TEST`` of its parameter (a case of two values, a ``DEFAULT``), a ``FOR`` whose bounds it gives and a
    ``WHILE`` counted by its own data: each followed as the walker follows them in a PROC."""
    routines = (
        _func("tested", "num n", "VAR num dx;", "TEST n", "CASE 1:", "  dx := 10;", "CASE 2, 3:", "  dx := 20;",
              "DEFAULT:", "  dx := 30;", "ENDTEST", "RETURN Offs(base, dx, 0, 0);")
        + _func("summed", "num n", "VAR num dx := 0;", "FOR k FROM 1 TO n DO", "  dx := dx + 5;", "ENDFOR",
                "RETURN Offs(base, dx, 0, 0);")
        + _func("counted", "num n", "VAR num k := 0;", "WHILE k < n DO", "  k := k + 1;", "ENDWHILE",
                "RETURN Offs(base, k * 100, 0, 0);"))
    prog = _program(tmp_path, _move("tested(1)"), _move("tested(3)"), _move("tested(9)"), _move("summed(4)"),
                    _move("counted(3)"), routines=routines)
    assert _xs(prog) == [510.0, 520.0, 530.0, 520.0, 800.0]


def test_a_condition_known_only_while_running_gives_a_value_where_every_path_returns_it(tmp_path):
    """``IF mode = 1`` on a PERS (the operator may change it): both paths return ``base``, so the value is known;
    where they return different values the motion is refused naming the FUNC, the IF's line and ``mode`` (through the
    datum an assignment gives it, too)."""
    routines = (_func("same", "", "IF mode = 1 THEN", "  RETURN base;", "ENDIF", "RETURN base;")
                + _func("differs", "", "IF mode = 1 THEN", "  RETURN Offs(base, 10, 0, 0);", "ENDIF", "RETURN base;"))
    declared = "  PERS num mode := 1;\n"
    assert _xs(_program(tmp_path, _move("same()"), declared=declared, routines=routines)) == [500.0]
    prog = _program(tmp_path, _move("differs()"), declared=declared, routines=routines)
    said = ("function differs returns another value on another path: the IF at line 12 (reading mode) is decided only "
            "while running")
    assert [f.message for f in prog.unsupported] == [said]
    prog = _program(tmp_path, "p := differs();", _move("p"), declared=declared, routines=routines)  # (said at p's read)
    assert [f.message for f in prog.unsupported] == [f"p is changed at run time (line 18, column 5: {said}); its value "
                                                     "at this motion is not known"]


def test_another_modules_func_runs_in_its_module(tmp_path):
    """A FUNC of another module of the task (``--module``) reads its module's ``LOCAL`` data ("Scope rules") and its
    IF decided only while running is noted in its own file."""
    other = tmp_path / "other.mod"
    other.write_text("MODULE other\n  LOCAL CONST num k := 30;\n  PERS num mode := 1;\n"
                     + _func("pick", "robtarget b", "IF mode = 1 THEN", "  RETURN Offs(b, k, 0, 0);", "ENDIF",
                             "RETURN Offs(b, k, 0, 0);") + "ENDMODULE\n")
    path = tmp_path / "cell.mod"
    path.write_text(f"MODULE M\n  CONST robtarget base:=[[500,0,400],{_REST};\n  PROC main()\n"
                    f"    {_move('pick(base)')}\n  ENDPROC\nENDMODULE\n")
    prog = read_rapid(path, options=RapidOptions(modules=(str(other),)))
    assert _xs(prog) == [530.0]
    assert [(n.file, n.line) for n in prog.notes if n.message.startswith("IF: not resolved")] == [(1, 5)]


def test_a_func_that_reaches_no_return_or_loops_past_the_bound_is_refused(tmp_path):
    """A path that ends without RETURN is an execution error ("Routine termination"); a WHILE of a FUNC is followed
    at most :data:`.calls.MAX_QUIET_WORK` statements (a FOR that many is followed once, its data not known after)."""
    routines = (_func("none", "num n", "IF n > 1 THEN", "  RETURN base;", "ENDIF")
                + _func("long", "", "VAR num k := 0;", "WHILE k < 1E6 DO", "  k := k + 1;", "ENDWHILE", "RETURN base;"))
    prog = _program(tmp_path, _move("none(0)"), _move("long()"), routines=routines)
    assert [f.message for f in prog.unsupported] == [
        "function none ends without RETURN", "WHILE in function long runs more than 20,000 statements: not followed"]


def test_a_func_of_a_record_kind_gives_a_target_its_parts(tmp_path):
    """FUNCs that return a ``pos`` (``pos + pos``), an ``orient`` (``OrientZYX``), a ``pose`` (one part given in an
    ``IF``) and a whole ``robtarget`` built from them (RAPID kernel: a function returns a value of any data type):
    each part a target takes from them is the one computed."""
    routines = (
        "  FUNC pos shift(num n)\n    VAR pos d;\n    d.x := n * 10;\n    RETURN d + [0, 5, 0];\n  ENDFUNC\n"
        "  FUNC orient turned(num a)\n    RETURN OrientZYX(a, 0, 180);\n  ENDFUNC\n"
        "  FUNC pose frame(num n)\n    VAR pose f := [[0,0,0],[1,0,0,0]];\n    IF n > 1 THEN\n"
        "      f.trans := [n, 0, 0];\n    ENDIF\n    RETURN f;\n  ENDFUNC\n"
        + _func("at", "num n", "VAR robtarget t;", "t := base;", "t.trans := base.trans + shift(n);", "RETURN t;"))
    prog = _program(tmp_path, "p := base;", "p.trans := p.trans + shift(2);", _move("p"), "p.rot := turned(90);",
                    _move("p"), _move("at(3)"), "p.trans := frame(4).trans + base.trans;", _move("p"),
                    routines=routines)
    assert _xs(prog) == [520.0, 520.0, 530.0, 504.0]
    assert [round(float(p.T_world_tcp[1, 3]) * 1e3, 6) for p in prog.points] == [5.0, 5.0, 5.0, 0.0]
    assert not np.allclose(prog.points[1].T_world_tcp[:3, :3], prog.points[0].T_world_tcp[:3, :3])


# ----- a FUNC's INOUT, VAR and PERS parameters
@pytest.mark.parametrize("mode", ["INOUT", "VAR"])
def test_a_func_that_assigns_a_by_reference_parameter_is_evaluated_and_changes_the_callers_datum(tmp_path, mode):
    """``FUNC robtarget next(INOUT num count)`` adds 1 to the caller's ``count`` and returns a value that does not
    read it: the motion to its value is compensated; ``count`` is changed from then on (as by a PROC), so a motion
    reading it is refused naming the assignment (``n := 0`` first: every cycle calls it alike)."""
    routine = _func("next", f"{mode} num count", "count := count + 1;", "RETURN Offs(base, 10, 0, 0);")
    declared = "  VAR num n := 0;\n"
    assert _xs(_program(tmp_path, "n := 0;", _move("next(n)"), declared=declared, routines=routine)) == [510.0]
    prog = _program(tmp_path, "n := 0;", _move("next(n)"), _move("Offs(base, n, 0, 0)"), declared=declared,
                    routines=routine)
    assert len(prog.unsupported) == 1 and prog.unsupported[0].message.startswith("n is changed at run time (line 6")


def test_a_by_reference_parameter_assigned_outside_a_statement_run_is_not_evaluated(tmp_path):
    """In a condition the FUNC's assignment would change the caller's datum where the walker does not run a
    statement: the FUNC is not evaluated there (as one that gives a module datum a value), the IF followed both ways."""
    routine = _func("bump", "INOUT num count", "count := count + 1;", "RETURN base;").replace(
        "FUNC robtarget", "FUNC num").replace("RETURN base", "RETURN count")
    prog = _program(tmp_path, "IF bump(n) > 0 THEN", "  " + _move("base"), "ENDIF", declared="  VAR num n := 0;\n",
                    routines=routine)
    assert _xs(prog) == [500.0]


# ----- MoveAbsJ of a VAR jointtarget declared without a value
def test_a_jointtarget_declared_without_a_value_is_written_with_the_external_axes_it_holds(tmp_path):
    """``VAR jointtarget j;`` holds zeros; ``k`` is given two joints and its first external axis by parts:
    compensated, each is written inline with the external axes of its value (``[0,0,0,0,0,0]``, ``[250,0,...]``),
    which the written program reads back."""
    path = tmp_path / "m.mod"
    path.write_text("MODULE M\n  VAR jointtarget j;\n  VAR jointtarget k;\n  PROC main()\n"
                    "    k.robax.rax_2 := 10;\n    k.robax.rax_5 := 30;\n    k.extax.eax_a := 250;\n"
                    "    MoveAbsJ j, v100, fine, tool0;\n    MoveAbsJ k, v100, fine, tool0;\n  ENDPROC\nENDMODULE\n")
    out = tmp_path / "o.mod"
    table = DeformationTable.from_mm_deg([[0.03, -0.02, 0.05, 0.004, 0.0, -0.003]] * 6)
    run_program("irb140", table, path, out, options=CompensationOptions(time_law=Static()),
                program_options=ProgramOptions(joint_targets="compensate"))
    written = read_program(out)
    assert [p.extax for p in written.points] == ["[0,0,0,0,0,0]", "[250,0,0,0,0,0]"]
    assert np.abs(np.degrees(written.points[1].q) - [0, 10, 0, 0, 30, 0]).max() < 1.0  # (compensated, near k)


# ----- a routine named like an instruction
def test_a_user_routine_named_like_an_instruction_is_what_its_call_runs(tmp_path):
    """``PROC WaitTime(num t)`` moves ``t`` mm along x (no wait step: the instruction is hidden), ``PROC VelSet``
    records nothing of the instruction's, and ``PROC MoveL`` (the motion instruction's parameters) moves 50 mm
    above its target, also where ``WaitTime`` calls it: each call runs the user's routine, and the routine's summary
    (its motions) agrees."""
    routines = ("  PROC WaitTime(num t)\n    MoveL Offs(base, t, 0, 0), v100, fine, tool0;\n  ENDPROC\n"
                "  PROC VelSet(num o, num m)\n    MoveJ Offs(base, o, 0, 0), v100, fine, tool0;\n  ENDPROC\n"
                "  PROC MoveL(robtarget dest, speeddata v, zonedata z, PERS tooldata t)\n"
                "    MoveJ Offs(dest, 0, 0, 50), v, z, t;\n  ENDPROC\n")
    prog = _program(tmp_path, "WaitTime 10;", "VelSet 20, 100;", _move("Offs(base, 30, 0, 0)"), routines=routines)
    assert _xs(prog) == [510.0, 520.0, 530.0]
    assert [round(float(p.T_world_tcp[2, 3]) * 1e3, 6) for p in prog.points] == [450.0, 400.0, 450.0]
    assert not [s for s in prog.steps if not hasattr(s, "motions")]  # (no Wait step)
