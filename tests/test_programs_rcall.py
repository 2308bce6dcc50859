"""A RAPID routine called with different targets whose approach is a datum computed from its parameter.

Written from ABB's RAPID syntax ("Technical reference manual - RAPID Instructions, Functions and Data types":
``PROC`` with parameters, ``VAR``/``PERS`` data, ``:=``, ``Offs``, ``RelTool``, ``FOR``, ``TPWrite``), not from any
fetched program: the pick routine of hand-written modules, ``q := Offs(p, 0, 0, 50);`` (or ``RelTool``) then
``MoveJ q``, ``MoveL p``, ``MoveL q``, called with targets declared in the module. The motions reading ``q`` are
the motion's own text, a table walked call by call (docs/programs.md, "Routines called with arguments"), so ``q``
is read nowhere else and its value reads ``p`` no more: ``MoveL p`` reads the declarations passed, rewritten there.
A ``q`` read elsewhere too (printed, passed on), or a ``PERS`` (its value outlives the routine), keeps reading
``p``: one written declaration cannot serve the approach and the target, and the call stays refused naming the
motion and the call. A zero table gives the program back byte for byte; the written program, read back and run
through the warm robot (FK of the deformed model on the controller's IK of its targets), reaches every call's
programmed poses.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import run_program
from test_programs_loops import _offs, _zero_then_warm
from test_programs_rapid import small_table
from test_programs_rapid_cell import _module, _reached

from thermocomp import load_robot
from thermocomp.compensation.compensate import CompensationOptions
from thermocomp.deformation.timelaw import Static
from thermocomp.errors import InputError
from thermocomp.geometry.rotations import transform
from thermocomp.programs import read_program
from thermocomp.tolerances import IK_POSITION_TOL

TOLERANCE = 1e-6 + 10 * IK_POSITION_TOL
UP = "Offs(p, 0, 0, 50)"
BACK = "RelTool(p, 0, 0, -50)"  # (along the tool's z: the pose times a translation on the right)
LIFTS = {UP: lambda T: _offs(T, 0, 0, 50), BACK: lambda T: T @ transform(np.eye(3), [0.0, 0.0, -0.05])}


def _pick(value: str, local: str = "    VAR robtarget q;\n", extra: str = "") -> str:
    return ("  PROC pick(robtarget p)\n" + local + f"    q := {value};\n    MoveJ q, v500, z10, tGrip;\n" + extra
            + "    MoveL p, v100, fine, tGrip;\n    MoveL q, v500, z10, tGrip;\n  ENDPROC\n")


def _check(tmp_path, rng, src: str, want: list[np.ndarray]):
    path, out = tmp_path / "cell.mod", tmp_path / "cell_out.mod"
    path.write_text(src)
    assert read_program(path).unsupported == ()
    table, report = _zero_then_warm("irb140", path, out, rng)
    reached = _reached(load_robot("irb140"), table, out)
    assert len(reached) == len(want)
    assert np.max(np.linalg.norm(reached[:, :3, 3] - np.stack(want)[:, :3, 3], axis=1)) < TOLERANCE
    return out.read_text(), report


@pytest.mark.parametrize(("value", "module_datum"), [(UP, False), (BACK, False), (UP, True)])
def test_the_approach_datum_is_a_table_and_the_declarations_passed_are_rewritten(tmp_path, rng, value, module_datum):
    """A local ``VAR`` or a module ``VAR`` (the task's own: read only by these motions) given the approach."""
    chain = load_robot("irb140")
    local = "" if module_datum else "    VAR robtarget q;\n"
    decl = "  VAR robtarget q;\n" if module_datum else ""
    src, T = _module(chain, rng, "    pick a;\n    pick b;\n", _pick(value, local), decl=decl)
    lift = LIFTS[value]
    written, report = _check(tmp_path, rng, src, [lift(T["a"]), T["a"], lift(T["a"]),
                                                  lift(T["b"]), T["b"], lift(T["b"])])
    assert "    MoveJ tcPassT1{tcPassN1}, v500, z10, tGrip;\n" in written and "MOD 2 + 1;" in written
    assert f"    q := {value};\n" in written and "    MoveL p, v100, fine, tGrip;\n" in written
    for name in "ab":  # (read from their declarations, written there)
        old = next(line for line in src.splitlines() if line.startswith(f"  CONST robtarget {name}:="))
        assert old not in written and f"  CONST robtarget {name}:=" in written
    assert report.n_changed_texts == 4  # the two tables and the two declarations
    assert any("the calls of pick at lines" in n for n in report.notes)


def test_called_in_a_loop_and_from_two_routines(tmp_path, rng):
    """The loop's two passes and another routine's call: every run of each approach motion an entry of its table."""
    chain = load_robot("irb140")
    other = "  PROC other()\n    pick b;\n  ENDPROC\n"
    src, T = _module(chain, rng, "    FOR i FROM 1 TO 2 DO\n      pick a;\n    ENDFOR\n    other;\n",
                     _pick(UP) + other)
    up = LIFTS[UP]
    written, _ = _check(tmp_path, rng, src, [up(T["a"]), T["a"], up(T["a"])] * 2 + [up(T["b"]), T["b"], up(T["b"])])
    assert written.count("MOD 3 + 1;") == 2


def test_one_call_writes_the_approach_at_its_motions(tmp_path, rng):
    """A single call needs no table: each motion's one target is written at the motion, as before."""
    chain = load_robot("irb140")
    src, T = _module(chain, rng, "    pick a;\n", _pick(UP))
    up = LIFTS[UP]
    written, _ = _check(tmp_path, rng, src, [up(T["a"]), T["a"], up(T["a"])])
    assert "tcPass" not in written and "    q := Offs(p, 0, 0, 50);\n    MoveJ [[" in written
    assert "    MoveL [[" in written and written.count(", v500, z10, tGrip;") == 2  # (each at its motion)


@pytest.mark.parametrize(("local", "extra", "decl"), [
    ("    VAR robtarget q;\n", '    TPWrite "z", \\Num:=q.trans.z;\n', ""),  # (read by what is not a motion)
    ("    VAR robtarget q;\n", "    go q;\n", ""),  # (passed on to another routine)
    ("", "", "  PERS robtarget q := [[0,0,0],[1,0,0,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]];\n"),
])
def test_an_approach_datum_read_elsewhere_or_persistent_stays_refused(tmp_path, rng, local, extra, decl):
    chain = load_robot("irb140")
    go = "  PROC go(robtarget t)\n    MoveL t, v100, z10, tGrip;\n  ENDPROC\n"
    src, _ = _module(chain, rng, "    pick a;\n    pick b;\n", _pick(UP, local, extra) + go, decl=decl)
    path, out = tmp_path / "cell.mod", tmp_path / "cell_out.mod"
    path.write_text(src)
    line = src.splitlines().index("    pick b;") + 1
    motion = src.splitlines().index("    MoveL p, v100, fine, tGrip;") + 1
    found = read_program(path).unsupported
    assert [(f.line, f.column) for f in found] == [(line, 5)]
    assert f"MoveL at line {motion} needs another target on this call of pick" in found[0].message
    with pytest.raises(InputError, match="one written target cannot serve every call"):
        run_program("irb140", small_table(rng), path, out, options=CompensationOptions(time_law=Static()))
    assert not out.exists()


def test_an_approach_passed_through_a_second_datum(tmp_path, rng):
    """``r := Offs(p, ...); q := r;``: ``q`` read only by the tables, ``r`` then only by ``q``'s value."""
    chain = load_robot("irb140")
    src, T = _module(chain, rng, "    pick a;\n    pick b;\n",
                     _pick("r", "    VAR robtarget q;\n    VAR robtarget r;\n    r := Offs(p, 0, 0, 50);\n"))
    up = LIFTS[UP]
    written, report = _check(tmp_path, rng, src, [up(T["a"]), T["a"], up(T["a"]), up(T["b"]), T["b"], up(T["b"])])
    assert report.n_changed_texts == 4 and "    r := Offs(p, 0, 0, 50);\n    q := r;\n" in written
