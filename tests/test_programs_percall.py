"""Motions whose text, written at the motion, differs from call to call of its routine (issue 35, item 2).

Written from ABB's RAPID syntax ("Technical reference manual - RAPID Instructions, Functions and Data types":
``PROC`` with parameters, procedure calls, ``Offs``, ``RelTool``, ``:=`` on ``robtarget`` data, ``WHILE TRUE``)
and UR's URScript manual (``def`` with parameters, ``pose_trans``, ``global``), not from any fetched program: a
pick routine called with two targets, whose approach ``Offs(p, 0, 0, 50)`` is one text that the two calls need
with two targets. Each call's target is known before the program runs, so each call is compensated and the text
written as a table of corrected targets walked by a counter, the mechanism of a loop's passes
(:mod:`thermocomp.programs.passes`). A zero table gives the program back byte for byte; the written tables, walked
as the controller walks them, take the warm robot (FK of the deformed model) to every call's programmed pose. A
motion run beyond the bound stays refused with its line; calls known only while running, or run both before the
production loop and in it, are indexed by call (test_programs_callsites.py).
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from helpers import run_program
from program_builders import random_configurations, ur_pose_text
from test_programs_loops import UR_TCP, _offs, _zero_then_warm
from test_programs_rapid_cell import _module, _reached

from thermocomp import deformed_model, fk, load_robot, nominal_model
from thermocomp.compensation.compensate import CompensationOptions
from thermocomp.errors import InputError
from thermocomp.geometry.rotations import transform
from thermocomp.kinematics.ik import solve_ik
from thermocomp.programs import ProgramOptions, passes, read_program
from thermocomp.programs.compensate import nominal_configurations, point_poses
from thermocomp.tolerances import IK_POSITION_TOL

PICK = ("  PROC Pick(robtarget p)\n"
        "    MoveJ {approach}, v100, z10, tGrip;  ! above\n"
        "    MoveL p, v100, fine, tGrip;\n"
        "    WaitTime 0.1;\n"  # (a wait the call runs: a step without a target)
        "  ENDPROC\n")
TWO_CALLS = "    Pick a;\n    Pick b;\n"
TOLERANCE = 1e-6 + 10 * IK_POSITION_TOL


def _line(src: str, text: str) -> int:
    return next(k for k, line in enumerate(src.splitlines(), 1) if text in line)


def _rapid(tmp_path, rng, main: str = TWO_CALLS, approach: str = "Offs(p, 0, 0, 50)", routines: str = PICK,
           decl: str = ""):
    chain = load_robot("irb140")
    src, T = _module(chain, rng, main, routines.format(approach=approach), decl=decl)
    path = tmp_path / "cell.mod"
    path.write_text(src)
    return src, T, path


def _check_reached(tmp_path, src, path, want, rng):
    """Zero table: byte for byte; a warm table: each call's motion reaches its own programmed pose."""
    out = tmp_path / "cell_out.mod"
    table, report = _zero_then_warm("irb140", path, out, rng)
    reached = _reached(load_robot("irb140"), table, out)
    assert len(reached) == len(want)
    assert np.max(np.linalg.norm(reached[:, :3, 3] - np.stack(want)[:, :3, 3], axis=1)) < TOLERANCE
    return report, out.read_text()


@pytest.mark.parametrize("approach, lift", [
    ("Offs(p, 0, 0, 50)", lambda T: _offs(T, 0, 0, 50)),
    ("RelTool(p, 0, 0, -50)", lambda T: T @ transform(np.eye(3), [0.0, 0.0, -0.050])),  # (in the tool's frame)
])
def test_an_expression_at_the_motion_that_calls_need_differently_is_compensated_call_by_call(
        tmp_path, rng, approach, lift):
    src, T, path = _rapid(tmp_path, rng, approach=approach)
    report, written = _check_reached(tmp_path, src, path, [lift(T["a"]), T["a"], lift(T["b"]), T["b"]], rng)
    assert written.count("tcPassN1 := tcPassN1 MOD 2 + 1;\n") == 1 and "LOCAL CONST robtarget tcPassT1{2}:=" in written
    assert "    MoveJ tcPassT1{tcPassN1}, v100, z10, tGrip;  ! above\n" in written
    assert "    MoveL p, v100, fine, tGrip;\n" in written  # a and b written in their declarations
    assert report.n_changed_texts == 3  # the table, a, b
    note = next(n for n in report.notes if "differ from call to call" in n)
    assert f"the calls of Pick at lines {_line(src, 'Pick a;')}, {_line(src, 'Pick b;')}" in note
    assert f"motion(s) at line {_line(src, 'MoveJ ')}" in note and "each call is compensated" in note
    assert "written as a table" in note


def test_a_target_assigned_before_each_call_is_a_table_at_the_motion(tmp_path, rng):
    """``q := Offs(a, ...); Go q;``: the declaration of q holds no value to write, so q's text is the motion's own
    argument (docs/programs.md, "Assignments in order"), which the calls need differently: a table there."""
    main = "    q := Offs(a, 0, 0, 10);\n    Go q;\n    q := Offs(b, 0, 0, 10);\n    Go q;\n"
    src, T, path = _rapid(tmp_path, rng, main, routines="  PROC Go(robtarget p)\n    MoveL p, v100, fine, tGrip;\n"
                                                        "  ENDPROC\n", decl="  VAR robtarget q;\n")
    report, written = _check_reached(tmp_path, src, path, [_offs(T["a"], 0, 0, 10), _offs(T["b"], 0, 0, 10)], rng)
    assert "    MoveL tcPassT1{tcPassN1}, v100, fine, tGrip;\n" in written
    assert re.search(r"\n    q := Offs\(a, 0, 0, 10\);\n", written)  # (the assignments as written)


def _refusals(path) -> list[tuple[int, str]]:
    return [(f.line, f.message) for f in read_program(path).unsupported]


def test_calls_beyond_the_bound_stay_refused_naming_the_line_and_the_bound(tmp_path, rng, monkeypatch):
    monkeypatch.setattr(passes, "MAX_PASSES", 1)
    src, _, path = _rapid(tmp_path, rng)
    assert any(at == _line(src, "MoveJ Offs(p") and "in 2 passes: more than 1" in m for at, m in _refusals(path))


@pytest.mark.parametrize("form", [dict(output="joints"), dict(indexed_minutes=(0.0, 100.0, 200.0))])
def test_forms_without_tables_are_refused_naming_the_line(tmp_path, rng, form):
    src, _, path = _rapid(tmp_path, rng)
    with pytest.raises(InputError, match="from call to call") as info:
        run_program("irb140", "deformations/exaggerated.csv", path, tmp_path / "out.mod",
                    program_options=ProgramOptions(**form))
    assert info.value.row == _line(src, "MoveJ Offs(p")
    assert not (tmp_path / "out.mod").exists()


# ----- URScript: the manual's def with a parameter, pose_trans of it, two calls with two global poses

UR_PICK = ("def cell():\n"
           "  set_tcp(p[0, 0, 0.1, 0, 0, 0])\n"
           "  global a = {a}\n"
           "  global b = {b}\n"
           "  def pick(p):\n"
           "    movel(pose_trans(p, p[0, 0, -0.05, 0, 0, 0]), a=1.2, v=0.25)  # above\n"
           "    movel(p, a=1.2, v=0.25)\n"
           "  end\n"
           "{calls}"
           "end\n")


def _ur(tmp_path, rng, calls: str = "  pick(a)\n  pick(b)\n"):
    chain = load_robot("ur5")
    R, p = fk(nominal_model(chain), random_configurations(chain, rng, 2))
    T = [transform(R[k], p[k]) @ UR_TCP for k in range(2)]
    src = UR_PICK.format(a=ur_pose_text(T[0]), b=ur_pose_text(T[1]), calls=calls)
    path = tmp_path / "cell.script"
    path.write_text(src)
    up = transform(np.eye(3), [0.0, 0.0, -0.05])
    return src, path, [T[0] @ up, T[0], T[1] @ up, T[1]]


def test_a_urscript_pose_trans_that_calls_need_differently_is_compensated_call_by_call(tmp_path, rng):
    chain = load_robot("ur5")
    src, path, want = _ur(tmp_path, rng)
    out = tmp_path / "cell_out.script"
    table, report = _zero_then_warm("ur5", path, out, rng)
    written = out.read_text()
    assert written.count("    tc_pass_n1 = (tc_pass_n1 + 1) % 2\n") == 1
    assert "    movel(tc_pass_t1[tc_pass_n1], a=1.2, v=0.25)  # above\n" in written
    assert "    movel(p, a=1.2, v=0.25)\n" in written  # a and b written where they are given
    note = next(n for n in report.notes if "differ from call to call" in n)
    assert f"the calls of pick at lines {_line(src, 'pick(a)')}, {_line(src, 'pick(b)')}" in note
    reread = read_program(out)
    assert not reread.unsupported and len(reread.motions) == 4
    T = np.stack([pt.T_world_tcp @ np.linalg.inv(pt.T_flange_tcp) for pt in reread.points])
    original = read_program(path)
    q_near = nominal_configurations(chain, original, point_poses(chain, original), CompensationOptions())[0]
    result = solve_ik(nominal_model(chain), T[:, :3, :3], T[:, :3, 3], q_near)
    R, p = fk(deformed_model(chain, table, 1.0), result.q)
    reached = transform(R, p) @ UR_TCP
    assert np.max(np.linalg.norm(reached[:, :3, 3] - np.stack(want)[:, :3, 3], axis=1)) < TOLERANCE
