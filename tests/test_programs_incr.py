"""RAPID's instructions that assign (issue 35: "robot programs read as a language").

``Incr reg1;`` adds 1 to a num or dnum, ``Decr reg1;`` subtracts 1, ``Add reg1, 3;`` adds a value, ``Clear reg1;``
sets 0 (ABB, "Technical reference manual - RAPID Instructions, Functions and Data types"). Each is the assignment
it names (``reg1 := reg1 + 1;``) and is followed as one wherever it stands: in a FOR loop, in a WHILE whose passes
the file fixes, at the top of the entry routine, from cycle to cycle. A motion reading the counter is compensated
at each of its values (its written targets take the warm robot, FK of the deformed model, to the programmed poses);
where the counter is truly known only while running (stepped under an input) the motion is refused naming it.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_programs_loops import _check_compensated as _check_tables
from test_programs_loops import _offs
from test_programs_rapid_cell import _check_compensated, _module

from thermocomp import load_robot
from thermocomp.programs.rapid import RapidOptions, rapid_program_from_text, read_rapid

#: Each instruction, the assignment it is (of ``n``), and the step it makes from ``n`` (its value after).
STEPS = {
    "Incr n;": lambda n: n + 1,
    "Decr n;": lambda n: n - 1,
    "Add n, 3;": lambda n: n + 3,
    "Add n, -2 * 2;": lambda n: n - 4,
    "Clear n;": lambda n: 0,
}
MOVE = "MoveL Offs(a, 10 * n, 0, 0), v100, fine, tGrip;"
DECL = "  VAR num n := 1;\n"


def _values(step, start: float, count: int) -> list[float]:
    """The counter's values after each of ``count`` steps from ``start``."""
    values = []
    for _ in range(count):
        start = step(start)
        values.append(start)
    return values


@pytest.mark.parametrize("instruction", list(STEPS))
def test_an_assigning_instruction_in_a_for_loop_steps_the_target_pass_by_pass(tmp_path, rng, instruction):
    main = f"    FOR i FROM 1 TO 3 DO\n      {instruction}\n      {MOVE}\n    ENDFOR\n    n := 1;\n"
    src, T = _module(load_robot("irb140"), rng, main, decl=DECL)
    want = [_offs(T["a"], 10 * v, 0, 0) for v in _values(STEPS[instruction], 1, 3)]
    if len({float(w[0, 3]) for w in want}) == 1:  # (Clear: one target every pass, no table)
        _check_compensated(tmp_path, src, want, rng)
    else:
        _check_tables(tmp_path, src, want, rng)


@pytest.mark.parametrize("instruction", ["Incr n;", "Add n, 3;"])
def test_an_assigning_instruction_counts_a_while_whose_passes_the_file_fixes(tmp_path, rng, instruction):
    main = f"    n := 1;\n    WHILE n < 6 DO\n      {MOVE}\n      {instruction}\n    ENDWHILE\n"
    src, T = _module(load_robot("irb140"), rng, main, decl=DECL)
    values = [1.0]
    while (after := STEPS[instruction](values[-1])) < 6:
        values.append(after)
    _check_tables(tmp_path, src, [_offs(T["a"], 10 * v, 0, 0) for v in values], rng)


def test_decr_counts_a_while_down(tmp_path, rng):
    main = f"    n := 3;\n    WHILE n > 0 DO\n      {MOVE}\n      Decr n;\n    ENDWHILE\n"
    src, T = _module(load_robot("irb140"), rng, main, decl=DECL)
    _check_tables(tmp_path, src, [_offs(T["a"], 10 * v, 0, 0) for v in (3, 2, 1)], rng)


@pytest.mark.parametrize("instruction", list(STEPS))
def test_an_assigning_instruction_at_the_top_gives_the_motion_its_value(tmp_path, rng, instruction):
    """Run once before the motion, reset after it: each cycle moves to the same point, the stepped one."""
    main = f"    {instruction}\n    {MOVE}\n    n := 1;\n"
    src, T = _module(load_robot("irb140"), rng, main, decl=DECL)
    report = _check_compensated(tmp_path, src, [_offs(T["a"], 10 * STEPS[instruction](1), 0, 0)], rng)
    assert not any("next cycle" in note for note in report.notes)


@pytest.mark.parametrize("loop", [False, True], ids=["main-cycle", "while-true"])
@pytest.mark.parametrize("instruction", ["Incr n;", "Decr n;", "Add n, 3;"])
def test_an_index_an_instruction_steps_and_a_cycle_wraps_is_compensated(tmp_path, rng, instruction, loop):
    """The counter stepped every pass and wrapped at the cycle's end (``IF n > 3 Clear n;``): each cycle moves
    through the same points, the first's (the module is read again from the value the first cycle leaves)."""
    wrap = {"Incr n;": "IF n >= 3 Clear n;", "Decr n;": "IF n <= -3 Clear n;", "Add n, 3;": "IF n >= 9 Clear n;"}
    body = f"FOR i FROM 1 TO 3 DO\n  {instruction}\n  {MOVE}\nENDFOR\n{wrap[instruction]}\n"
    main = "    WHILE TRUE DO\n" + "".join(f"      {line}\n" for line in body.splitlines()) + "    ENDWHILE\n" \
        if loop else "".join(f"    {line}\n" for line in body.splitlines())
    src, T = _module(load_robot("irb140"), rng, main, decl="  VAR num n := 0;\n")
    report = _check_tables(tmp_path, src, [_offs(T["a"], 10 * v, 0, 0) for v in _values(STEPS[instruction], 0, 3)],
                           rng)
    assert not any("next cycle" in note for note in report.notes)


@pytest.mark.parametrize("loop", [False, True], ids=["main-cycle", "while-true"])
@pytest.mark.parametrize("instruction", ["Incr n;", "Decr n;", "Add n, 3;"])
def test_a_target_an_instruction_steps_from_cycle_to_cycle_is_refused_naming_it(rng, instruction, loop):
    """Never wrapped: each cycle moves to another point; refused at the motion naming ``n`` and the instruction."""
    main = f"    {MOVE}\n    {instruction}\n"
    main = "    WHILE TRUE DO\n  " + main.replace("\n    ", "\n      ") + "    ENDWHILE\n" if loop else main
    src, _ = _module(load_robot("irb140"), rng, main, decl=DECL)
    lines = src.splitlines()
    motion = next(k for k, text in enumerate(lines, 1) if MOVE in text)
    given = next(k for k, text in enumerate(lines, 1) if instruction in text)
    refused = rapid_program_from_text(src, "cell.mod").unsupported
    assert [(f.line, f.message.split(" (")[0]) for f in refused] == [(motion, "n is changed at run time")]
    assert f"(line {given}, column {lines[given - 1].index(instruction) + 1}" in refused[0].message
    assert "from cycle to cycle" in refused[0].message


@pytest.mark.parametrize("instruction", list(STEPS))
def test_an_instruction_under_an_input_leaves_the_counter_known_only_while_running(rng, instruction):
    """``IF DInput(di1) = 1 THEN Incr n; ENDIF``: whether it steps is known only while running: a motion reading
    the counter in a FOR is refused at its line naming ``n`` (a motion before it, compensated)."""
    main = (f"    FOR i FROM 1 TO 3 DO\n      MoveJ b, v500, z10, tGrip;\n      IF DInput(di1) = 1 THEN\n"
            f"        {instruction}\n      ENDIF\n      {MOVE}\n    ENDFOR\n    n := 1;\n")
    src, _ = _module(load_robot("irb140"), rng, main, decl=DECL)
    motion = next(k for k, text in enumerate(src.splitlines(), 1) if MOVE in text)
    refused = rapid_program_from_text(src, "cell.mod").unsupported
    assert [f.line for f in refused] == [motion]
    assert refused[0].message.startswith("n is changed at run time")


def test_a_routine_named_like_the_instruction_is_called_not_assigned(rng):
    """A task's own ``PROC Incr(num x)`` (it moves to ``b``) is the routine the call runs, not the instruction:
    ``n`` keeps its value, the motion after it goes to ``Offs(a, 10, 0, 0)``."""
    routines = "  PROC Incr(num x)\n    MoveJ b, v500, z10, tGrip;\n  ENDPROC\n"
    src, T = _module(load_robot("irb140"), rng, f"    Incr n;\n    {MOVE}\n", routines=routines, decl=DECL)
    prog = rapid_program_from_text(src, "cell.mod")
    assert prog.unsupported == ()
    shifts = [float(p.T_world_tcp[0, 3] - T[k][0, 3]) * 1000 for p, k in zip(prog.points, "ba")]
    assert len(prog.points) == 2 and np.allclose(shifts, [0, 10], atol=1e-3)


@pytest.mark.parametrize("through", [
    ("    off := n * 10;\n", "off"),
    ("    k := n MOD 4;\n    off := k * 10;\n", "off"),
    ("    off := n * 10;\n    q := Offs(a, off, 0, 0);\n", "q"),
])
def test_a_datum_given_from_a_counter_the_cycle_carries_is_refused_naming_its_assignment_and_the_counter(
        rng, through):
    """``Incr n; off := n * 10; MoveL Offs(a, off, ...)``: the motion reads ``off``, given in this cycle from ``n``,
    which differs from cycle to cycle: refused naming ``off``, its own assignment's line, and ``n`` behind it
    (through any number of data given from one another)."""
    statements, datum = through
    move = "    MoveL Offs(a, off, 0, 0), v100, fine, tGrip;\n" if datum == "off" else "    MoveL q, v100, fine, tGrip;\n"
    decl = DECL + "  VAR num k := 0;\n  VAR num off := 0;\n  VAR robtarget q;\n"
    src, _ = _module(load_robot("irb140"), rng, "    Incr n;\n" + statements + move, decl=decl)
    lines = src.splitlines()
    given = next(k for k, text in enumerate(lines, 1) if text.startswith(f"    {datum} :="))
    refused = rapid_program_from_text(src, "cell.mod").unsupported
    assert [f.line for f in refused] == [len(lines) - 2]
    assert refused[0].message == (f"{datum} is changed at run time (line {given}, column 5; given from n, which "
                                  "differs from cycle to cycle); its value at this motion is not known")


def test_an_instruction_counts_a_goto_loop_the_file_fixes(tmp_path, rng):
    """``n := 0; again: MoveL Offs(a, 10 * n, ...); Incr n; IF n < 3 GOTO again;``: the loop the label and its
    ``IF ... GOTO`` make is counted by the file, followed pass by pass as with ``n := n + 1;``."""
    main = f"    n := 0;\n  again:\n    {MOVE}\n    Incr n;\n    IF n < 3 GOTO again;\n"
    src, T = _module(load_robot("irb140"), rng, main, decl=DECL)
    _check_tables(tmp_path, src, [_offs(T["a"], 10 * v, 0, 0) for v in (0, 1, 2)], rng)


# ----- a FUNC that moves, its value assigned (RAPID kernel, "Function call": a FUNC may hold any instruction)

GO = ("  FUNC num go(robtarget t, num dz)\n    MoveL Offs(t, 0, 0, dz), v100, fine, tGrip;\n    RETURN dz;\n"
      "  ENDFUNC\n")


def test_a_func_that_moves_is_run_as_a_call_where_an_assignment_takes_its_value(tmp_path, rng):
    """``n := go(a, 20);`` then ``n := go(b, 0);``: the FUNC's motion is followed as a call's, each run with its
    arguments (a table of the two calls' corrected targets at the one motion)."""
    main = "    n := go(a, 20);\n    n := go(b, 0);\n"
    src, T = _module(load_robot("irb140"), rng, main, routines=GO, decl=DECL)
    _check_tables(tmp_path, src, [_offs(T["a"], 0, 0, 20), T["b"]], rng)


def test_the_value_a_moving_func_returns_is_known_only_while_running(rng):
    """Its RETURN value is not evaluated: a motion reading the datum assigned is refused naming that assignment."""
    main = f"    n := go(a, 20);\n    {MOVE}\n"
    src, T = _module(load_robot("irb140"), rng, main, routines=GO, decl=DECL)
    lines = src.splitlines()
    prog = rapid_program_from_text(src, "cell.mod")
    given = lines.index("    n := go(a, 20);") + 1
    assert [(f.line, f.message) for f in prog.unsupported] == [
        (given + 1, f"n is changed at run time (line {given}, column 5); its value at this motion is not known")]
    assert np.allclose(prog.points[0].T_world_tcp, _offs(T["a"], 0, 0, 20), atol=1e-9)


@pytest.mark.parametrize("statement", ["    IF go(a, 20) > 0 THEN\n      n := 1;\n    ENDIF\n",
                                       "    n := go(a, 20) + 1;\n", "    TPWrite \"z\" \\Num:=go(a, 20);\n"])
def test_a_func_that_moves_elsewhere_in_an_expression_is_refused_naming_it_and_its_motion(rng, statement):
    src, _ = _module(load_robot("irb140"), rng, statement, routines=GO, decl=DECL)
    lines = src.splitlines()
    prog = rapid_program_from_text(src, "cell.mod")
    motion = next(k for k, text in enumerate(lines, 1) if "MoveL Offs(t" in text)
    assert [(f.line, f.message) for f in prog.unsupported] == [(
        lines.index(statement.splitlines()[0]) + 1,
        f"MoveL at line {motion}: a motion inside FUNC go, called in an expression here, is followed only where an "
        "assignment takes its value (x := go(...);)")]


def test_a_refusal_inside_another_modules_func_names_that_module(tmp_path, rng):
    """A FUNC of another module of the task, evaluated from this one's expression, that holds a statement not
    followed: the refusal stands at that statement in its own file (it named the line of the other module as this
    one's, a line this file may not have)."""
    other = tmp_path / "other.mod"
    other.write_text("MODULE other\n  FUNC num shift()\n    ConfL \\Off;\n    RETURN 10;\n  ENDFUNC\nENDMODULE\n")
    src, _ = _module(load_robot("irb140"), rng, "    MoveL Offs(a, shift(), 0, 0), v100, fine, tGrip;\n")
    path = tmp_path / "cell.mod"
    path.write_text(src)
    prog = read_rapid(path, options=RapidOptions(modules=(str(other),)))
    assert [(f.file, f.line, f.column) for f in prog.unsupported] == [(1, 3, 5)]
    assert prog.unsupported[0].message.startswith("function shift is not evaluated: it calls ConfL")


@pytest.mark.parametrize("assigned_in", ["other", "cell"])
def test_a_datum_changed_at_run_time_read_in_another_modules_func_is_refused_in_that_module(tmp_path, assigned_in):
    """The refusal of a motion whose target a FUNC of another module builds from run-time data stands at the datum's
    place in the FUNC's own file, and the assignment it names is located in its own file (it named this file with
    the other file's line and column)."""
    read_x = '    TPReadNum x, "x?";\n'
    (tmp_path / "other.mod").write_text(
        "MODULE other\n  CONST robtarget p0 := [[500,0,500],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]];\n"
        "  VAR num x := 0;\n  FUNC robtarget got()\n" + (read_x if assigned_in == "other" else "")
        + "    RETURN Offs(p0, x, 0, 0);\n  ENDFUNC\nENDMODULE\n")
    (tmp_path / "cell.mod").write_text("MODULE cell\n  PROC main()\n" + (read_x if assigned_in == "cell" else "")
                                       + "    MoveL got(), v100, fine, tool0;\n  ENDPROC\nENDMODULE\n")
    prog = read_rapid(tmp_path / "cell.mod", options=RapidOptions(modules=(str(tmp_path / "other.mod"),)))
    line = 6 if assigned_in == "other" else 5
    assert [(prog.files[f.file][0], f.line, f.column) for f in prog.unsupported] == [(str(tmp_path / "other.mod"),
                                                                                       line, 21)]
    at = "line 5, column 5" if assigned_in == "other" else f"{tmp_path / 'cell.mod'}:3:5"
    assert prog.unsupported[0].message == f"x is changed at run time ({at}); its value at this motion is not known"
