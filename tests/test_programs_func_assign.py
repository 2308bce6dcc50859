"""A RAPID ``FUNC`` that gives a module datum a value, from ABB's "Technical reference manual - RAPID overview"
("Functions": a function may hold any statement, and "Data scope": a routine reads and writes the data of its
module) and the "RAPID kernel" (a function call is evaluated once, where the statement holding it runs), not from any
program (held-out-29's ``KOD_ROB1.mod`` met it: ``TempTarget := Offs(PozycjaBazowa, ...); RETURN TempTarget;``):

- the value the function returns is the target of a motion, as any function's;
- the module datum holds the value after the call, as a PROC's assignment leaves it: a later motion to it moves there;
  called again with other arguments, it holds the new one; called in a FOR of a count the file fixes, each pass's;
- a ``PERS`` is given its value the same way;
- called in a branch of an ``IF`` on an input, the datum's value after the ``IF`` is known only while running: a
  motion to it is refused, naming the assignment's line and the ``IF``;
- a value the function gives from data known only while running is refused, naming that data.

Each target sits at a distinct x (mm), so a motion read through a wrong value moves to a wrong x, which the tests see.
"""

from __future__ import annotations

import pytest

from thermocomp.programs import read_program

_REST = "[0,0,1,0],[0,0,0,0],[9E+09,9E+09,9E+09,9E+09,9E+09,9E+09]]"


def _program(tmp_path, *statements: str, storage: str = "VAR", declared: str = "", func: str = ""):
    """A module whose FUNC ``shifted(dx)`` gives its datum ``tmp`` (``storage``) ``base`` moved ``dx`` mm along x and
    returns it; ``main`` runs ``statements``."""
    path = tmp_path / "task.mod"
    path.write_text(
        "MODULE M\n"
        f"  CONST robtarget base:=[[500,0,400],{_REST};\n"
        f"  {storage} robtarget tmp:=[[100,0,400],{_REST};\n"
        f"  VAR robtarget p:=[[200,0,400],{_REST};\n"
        f"{declared}"
        + (func or "  FUNC robtarget shifted(num dx)\n"
                   "    tmp := Offs(base, dx, 0, 0);\n"
                   "    RETURN tmp;\n"
                   "  ENDFUNC\n")
        + "  PROC main()\n" + "".join(f"    {s}\n" for s in statements) + "  ENDPROC\nENDMODULE\n")
    return read_program(path)


def _xs(prog) -> list[float]:
    """The x (mm) of each point the program moves through, in the order its cycle runs them."""
    assert prog.unsupported == (), [f.message for f in prog.unsupported]
    return [round(float(p.T_world_tcp[0, 3]) * 1e3, 6) for p in prog.points]


def _move(target: str) -> str:
    return f"MoveL {target}, v100, fine, tool0;"


@pytest.mark.parametrize("storage", ["VAR", "PERS"])
def test_the_returned_value_is_the_target_and_the_datum_holds_it_after_the_call(tmp_path, storage):
    """``MoveL shifted(20)`` moves to base + 20 mm and ``tmp`` holds that value after it (it was 100 mm before); a
    second call with 50 mm, taken by an assignment, leaves both ``p`` and ``tmp`` at 550 mm (every cycle alike: the
    first read of ``tmp`` follows its first call)."""
    prog = _program(tmp_path, _move("shifted(20)"), _move("tmp"), "p := shifted(50);", _move("p"), _move("tmp"),
                    storage=storage)
    assert _xs(prog) == [520.0, 520.0, 550.0, 550.0]


def test_a_call_in_an_offs_gives_the_datum_its_value_once(tmp_path):
    """A FUNC that counts its calls (``n := n + 1``), called once in a motion's ``Offs``: ``n`` is 1 after it, however
    often the reader reads that motion's parts (the RAPID kernel evaluates the call once; ``n := 0`` first, so every
    cycle counts alike)."""
    prog = _program(tmp_path, "n := 0;", _move("Offs(counted(), n * 10, 0, 0)"), _move("Offs(base, n * 100, 0, 0)"),
                    declared="  VAR num n := 0;\n",
                    func="  FUNC robtarget counted()\n    n := n + 1;\n    RETURN base;\n  ENDFUNC\n")
    assert _xs(prog) == [510.0, 600.0]


@pytest.mark.parametrize("dx", ["next_dx()", "outer_dx()"])
def test_a_call_in_an_offs_of_a_target_written_at_the_call_site_gives_its_value_once(tmp_path, dx):
    """``go [[500, ...]];`` whose ``MoveL Offs(t, next_dx(), 0, 0)`` is written at the call site (its text read
    again there): ``next_dx`` (``n := n + 10``) runs once, the motion at 510 mm and ``n`` 10 after it; so too
    through ``outer_dx``, a FUNC that returns ``next_dx()``."""
    literal = f"[[500,0,400],{_REST}"
    prog = _program(tmp_path, "n := 0;", f"go {literal};", _move("Offs(base, n, 0, 0)"),
                    declared="  VAR num n := 0;\n",
                    func="  FUNC num next_dx()\n    n := n + 10;\n    RETURN n;\n  ENDFUNC\n"
                         "  FUNC num outer_dx()\n    RETURN next_dx();\n  ENDFUNC\n"
                         f"  PROC go(robtarget t)\n    MoveL Offs(t, {dx}, 0, 0), v100, fine, tool0;\n  ENDPROC\n")
    assert _xs(prog) == [510.0, 510.0]


def test_called_in_a_for_of_a_fixed_count_each_pass_gives_its_value(tmp_path):
    """In ``FOR i FROM 1 TO 3``, ``shifted(i * 10)`` and ``tmp`` after it are base + 10, 20, 30 mm in turn; after the
    loop ``tmp`` holds the last pass's."""
    prog = _program(tmp_path, "FOR i FROM 1 TO 3 DO", _move("shifted(i * 10)"), _move("Offs(tmp, 0, 0, 5)"), "ENDFOR",
                    _move("tmp"))
    assert _xs(prog) == [510.0, 510.0, 520.0, 520.0, 530.0, 530.0, 530.0]


def test_a_for_whose_body_reads_no_counter_runs_the_func_every_pass(tmp_path):
    """A body that does not read the FOR's counter but calls a FUNC changing a module datum (``n := n + 1``) is not
    one pass repeated: the passes move to 510, 520, 530 mm."""
    prog = _program(tmp_path, "n := 0;", "FOR i FROM 1 TO 3 DO", _move("Offs(counted(), n * 10, 0, 0)"), "ENDFOR",
                    declared="  VAR num n := 0;\n",
                    func="  FUNC robtarget counted()\n    n := n + 1;\n    RETURN base;\n  ENDFUNC\n")
    assert _xs(prog) == [510.0, 520.0, 530.0]


def test_called_in_an_if_on_an_input_the_datum_after_it_is_refused_naming_its_line(tmp_path):
    """``IF di1 = 1 THEN p := shifted(30); ENDIF``: after the IF ``tmp`` is 530 mm or still 100 mm, known only while
    running: the motion to it is refused naming line 6 (the FUNC's assignment) and the IF's line; the motion before
    it is compensated."""
    prog = _program(tmp_path, "IF di1 = 1 THEN", "p := shifted(30);", "ENDIF", _move("base"), _move("tmp"))
    assert [round(float(p.T_world_tcp[0, 3]) * 1e3, 6) for p in prog.points] == [500.0]
    [refused] = prog.unsupported
    assert refused.line == 14
    assert refused.message.startswith("tmp is changed at run time: line 6 gives it a value inside the IF at line 10")


def test_a_value_given_from_data_known_only_while_running_is_refused_naming_that_data(tmp_path):
    """``dx := AInput(ai1)`` before the call: the FUNC's ``tmp := Offs(base, dx, 0, 0)`` (line 7) is refused naming
    ``dx`` and its line; ``tmp`` after the call is changed at run time from it."""
    prog = _program(tmp_path, "dx := AInput(ai1);", _move("base"), _move("read_dx()"), _move("tmp"),
                    declared="  VAR num dx := 0;\n",
                    func="  FUNC robtarget read_dx()\n    tmp := Offs(base, dx, 0, 0);\n    RETURN tmp;\n  ENDFUNC\n")
    assert [round(float(p.T_world_tcp[0, 3]) * 1e3, 6) for p in prog.points] == [500.0]
    assert [(f.line, f.message) for f in prog.unsupported] == [
        (7, "dx is changed at run time (line 11, column 5); its value at this motion is not known"),
        (14, "tmp is changed at run time (line 13, column 11); its value at this motion is not known")]


def test_a_func_in_a_condition_giving_module_data_leaves_the_datum_unknown(tmp_path):
    """A FUNC called in an IF's condition is evaluated where the file decides the IF, not where a statement gives
    its value: one that gives a module datum a value is not evaluated there (the IF followed as decided only while
    running), and the datum after it is known only while running (a motion to it refused)."""
    prog = _program(tmp_path, "IF shifted(10).trans.x > 505 THEN", _move("base"), "ENDIF", _move("tmp"))
    assert [round(float(p.T_world_tcp[0, 3]) * 1e3, 6) for p in prog.points] == [500.0]
    assert [(f.line, f.message.split(";")[0]) for f in prog.unsupported] == [
        (13, "tmp is changed at run time (line 10, column 8, inside the IF at line 10, whose outcome is known only "
             "while running)")]
