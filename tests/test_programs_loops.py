"""Motions whose target differs from pass to pass of a loop whose count the file fixes (issue 35, item 2).

Written from ABB's RAPID syntax ("Technical reference manual - RAPID Instructions, Functions and Data types":
``FOR``, ``Offs``, ``:=`` on ``num`` data, routine calls), not from any fetched program: a pick-and-place grid whose
offsets are counters stepped by CONST increments in nested FOR loops and reset within the cycle, and a target that
depends on the FOR counter alone. Each pass's target is known before the program runs, so each pass is compensated;
the written program holds a table of corrected targets per such motion and a counter advanced before it
(:mod:`thermocomp.programs.passes`). A zero table gives the program back byte for byte, and the written tables,
walked as the controller walks them, take the warm robot (FK of the deformed model) to every pass's programmed
pose. A motion whose passes are known only while running, or whose passes pass the bound, stays refused with its
line.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from helpers import run_program
from program_builders import random_configurations, ur_pose_text
from test_programs_rapid import small_table
from test_programs_rapid_cell import ZERO, _module, _reached

from thermocomp import deformed_model, fk, load_robot, nominal_model
from thermocomp.compensation.compensate import CompensationOptions
from thermocomp.deformation.timelaw import Static
from thermocomp.errors import InputError
from thermocomp.geometry.rotations import transform
from thermocomp.kinematics.ik import solve_ik
from thermocomp.programs import ProgramOptions, passes, read_program
from thermocomp.programs.compensate import nominal_configurations, point_poses
from thermocomp.tolerances import IK_POSITION_TOL

STEP_MM = 12.0
UR_TCP = transform(np.eye(3), [0.0, 0.0, 0.1])


def _offs(T, x_mm, y_mm, z_mm):
    """RAPID ``Offs(p, x, y, z)`` [mm] of a pose in wobj0: a translation in the world frame."""
    return transform(np.eye(3), np.array([x_mm, y_mm, z_mm]) * 1e-3) @ T


GRID_MAIN = ("    FOR row FROM 0 TO 1 DO\n"
             "      FOR col FROM 0 TO 2 DO\n"
             "        place TRUE;\n"
             "        nX := nX + nStepX;\n"
             "      ENDFOR\n"
             "      nY := nY + nStepY;\n"
             "      nX := 0;\n"
             "    ENDFOR\n"
             "    nY := 0;\n"
             "    FOR k FROM 1 TO 3 DO\n"
             "      MoveL Offs(b, 0, 0, k * 5), v100, fine, tGrip;\n"
             "    ENDFOR\n")
GRID_ROUTINES = ("  PROC place(bool bGrip)\n"
                 "    MoveJ Offs(a, nX, nY, 20), v500, z10, tGrip;\n"
                 "    MoveL Offs(a, nX, nY, 0), v100, fine, tGrip;  ! at the peg\n"
                 "    IF bGrip SetDO doGrip, 1;\n"
                 "  ENDPROC\n")
GRID_DATA = (f"  CONST num nStepX := {STEP_MM:g};\n  CONST num nStepY := {-STEP_MM:g};\n"
             "  VAR num nX := 0;\n  VAR num nY := 0;\n")


def _zero_then_warm(robot: str, path, out, rng):
    """Run ``path`` with a zero table (asserting ``out`` is the input byte for byte), then with a small warm table
    at a static minute; the warm table and that run's report."""
    run_program(robot, ZERO, path, out)
    assert out.read_bytes() == path.read_bytes()
    table = small_table(rng)
    return table, run_program(robot, table, path, out, options=CompensationOptions(time_law=Static()))


def _check_compensated(tmp_path, src, want, rng):
    """Zero table: byte for byte; a warm table: the program's text changes only in its targets' texts (each per-pass
    text now reads its table) and by the tables and counters inserted, and every pass is reached."""
    chain = load_robot("irb140")
    path, out = tmp_path / "cell.mod", tmp_path / "cell_out.mod"
    path.write_text(src)
    table, report = _zero_then_warm("irb140", path, out, rng)
    written = out.read_text()
    header = src.index("\n") + 1  # the block of declarations stands between the MODULE line and the module's own
    assert written[:header] == src[:header] and written[header:].startswith("  ! thermocomp: ")
    block = written[header:written.index(src[header:src.index("\n", header) + 1])]
    assert re.fullmatch(r"(  !.*\n)+(  LOCAL (VAR num \w+ := 0|CONST robtarget \w+\{\d+\}:=\n[^;]*);\n)+", block)
    kept = re.sub(r"[ \t]*tcPassN\d+ := (tcPassN\d+ MOD \d+ \+ 1|0);\n", "", written.replace(block, "", 1))
    for a, b in sorted(read_program(path).extra["per_pass"], reverse=True):  # (a and b are read only by Offs)
        src = src[:a] + "<T>" + src[b:]
    assert re.sub(r"tcPassT\d+\{tcPassN\d+\}", "<T>", kept) == src
    reached = _reached(chain, table, out)
    assert len(reached) == len(want)
    assert np.max(np.linalg.norm(reached[:, :3, 3] - np.stack(want)[:, :3, 3], axis=1)) < 1e-6 + 10 * IK_POSITION_TOL
    return report


def _grid_want(T):
    want = []
    for row in range(2):
        for col in range(3):
            want += [_offs(T["a"], col * STEP_MM, -row * STEP_MM, 20), _offs(T["a"], col * STEP_MM, -row * STEP_MM, 0)]
    return want + [_offs(T["b"], 0, 0, 5 * k) for k in (1, 2, 3)]


def test_a_grid_of_counters_stepped_in_fixed_loops_is_compensated_pass_by_pass(tmp_path, rng):
    chain = load_robot("irb140")
    src, T = _module(chain, rng, GRID_MAIN, GRID_ROUTINES, decl=GRID_DATA)
    report = _check_compensated(tmp_path, src, _grid_want(T), rng)
    assert report.n_changed_texts == 3  # three tables: the two motions of place, the MoveL of the last loop
    written = (tmp_path / "cell_out.mod").read_text()
    assert written.count("MOD 6 + 1;") == 2 and written.count("MOD 3 + 1;") == 1
    assert "LOCAL CONST robtarget tcPassT1{6}:=" in written or "LOCAL CONST robtarget tcPassT2{6}:=" in written
    assert "! at the peg" in written
    notes = "\n".join(report.notes)
    assert "differ from pass to pass" in notes and "written order of the cycle" in notes


def test_each_pass_is_timed_at_its_own_minute(tmp_path, rng):
    """--timed: each pass is a point of its own, at its place in the cycle's written order."""
    chain = load_robot("irb140")
    src, _ = _module(chain, rng, GRID_MAIN, GRID_ROUTINES, decl=GRID_DATA)
    path, out = tmp_path / "cell.mod", tmp_path / "cell_out.mod"
    path.write_text(src)
    report = run_program("irb140", "deformations/exaggerated.csv", path, out,
                                program_options=ProgramOptions(timed=True))
    minutes = [row.minute_first for row in report.rows]
    assert len(minutes) == 15 and np.all(np.diff(minutes) > 0)


def test_the_grid_on_an_input_stays_refused_naming_the_counters_it_changes(tmp_path, rng):
    """The loops under the IF run whole or not at all (tests/test_programs_condloop.py); the grid's counters, which
    the IF's body changes, are not known at the motions that read them."""
    chain = load_robot("irb140")
    main = "    IF DInput(diStart) = 1 THEN\n" + GRID_MAIN + "    ENDIF\n"
    src, _ = _module(chain, rng, main, GRID_ROUTINES, decl=GRID_DATA)
    path = tmp_path / "cell.mod"
    path.write_text(src)
    with pytest.raises(InputError) as info:
        run_program("irb140", "deformations/exaggerated.csv", path, tmp_path / "out.mod")
    message = str(info.value)
    assert "nX is changed at run time" in message and "nY is changed at run time" in message
    assert "cell.mod" in message and "differs from pass to pass" not in message
    assert not (tmp_path / "out.mod").exists()


def test_a_counter_read_from_an_input_stays_refused_naming_it(tmp_path, rng):
    chain = load_robot("irb140")
    main = ("    FOR k FROM 1 TO 3 DO\n      nX := AInput(aiShift);\n"
            "      MoveL Offs(b, nX, 0, 0), v100, fine, tGrip;\n    ENDFOR\n")
    src, _ = _module(chain, rng, main, decl=GRID_DATA)
    path = tmp_path / "cell.mod"
    path.write_text(src)
    with pytest.raises(InputError) as info:
        run_program("irb140", "deformations/exaggerated.csv", path, tmp_path / "out.mod")
    assert "nX" in str(info.value)


def test_passes_beyond_the_bound_are_refused_naming_the_line_and_the_bound(tmp_path, rng, monkeypatch):
    monkeypatch.setattr(passes, "MAX_PASSES", 2)
    chain = load_robot("irb140")
    src, _ = _module(chain, rng, "    FOR k FROM 1 TO 3 DO\n      MoveL Offs(b, 0, 0, k), v100, fine, tGrip;\n"
                                 "    ENDFOR\n")
    path = tmp_path / "cell.mod"
    path.write_text(src)
    prog = read_program(path)
    line = src.splitlines().index("      MoveL Offs(b, 0, 0, k), v100, fine, tGrip;") + 1
    assert [(f.line, "in 3 passes: more than 2" in f.message) for f in prog.unsupported] == [(line, True)]


@pytest.mark.parametrize("form", [dict(output="joints"), dict(indexed_minutes=(0.0, 100.0, 200.0))])
def test_forms_without_tables_are_refused_naming_the_line(tmp_path, rng, form):
    chain = load_robot("irb140")
    src, _ = _module(chain, rng, "    FOR k FROM 1 TO 3 DO\n      MoveL Offs(b, 0, 0, k), v100, fine, tGrip;\n"
                                 "    ENDFOR\n")
    path = tmp_path / "cell.mod"
    path.write_text(src)
    with pytest.raises(InputError, match="differs from pass to pass"):
        run_program("irb140", "deformations/exaggerated.csv", path, tmp_path / "out.mod",
                           program_options=ProgramOptions(**form))


# ----- URScript: a while whose count the file fixes (the manual's "while", "pose_trans", PolyScope's counters)

UR_LOOP = ("def grid():\n"
           "  set_tcp(p[0, 0, 0.1, 0, 0, 0])\n"
           "  movej({a}, a=1.2, v=0.5)\n"
           "  i = 0\n"
           "  while (i < 4):\n"
           "    movel(pose_trans({a}, p[i * 0.01, 0, 0, 0, 0, 0]), a=1.2, v=0.25)  # row\n"
           "    sleep(0.1) movel(pose_trans({b}, p[0, 0, -0.01 * i, 0, 0, 0]))\n"
           "    i = i + 1\n"
           "  end\n"
           "end\n")


def _ur_grid(rng):
    chain = load_robot("ur5")
    R, p = fk(nominal_model(chain), random_configurations(chain, rng, 2))
    T = [transform(R[k], p[k]) @ UR_TCP for k in range(2)]
    src = UR_LOOP.format(a=ur_pose_text(T[0]), b=ur_pose_text(T[1]))
    want = [T[0]]
    for i in range(4):
        want += [T[0] @ transform(np.eye(3), [i * 0.01, 0, 0]), T[1] @ transform(np.eye(3), [0, 0, -0.01 * i])]
    return src, want


def test_a_urscript_while_of_fixed_count_is_compensated_pass_by_pass(tmp_path, rng):
    chain = load_robot("ur5")
    src, want = _ur_grid(rng)
    path, out = tmp_path / "grid.script", tmp_path / "grid_out.script"
    path.write_text(src)
    table, report = _zero_then_warm("ur5", path, out, rng)
    assert report.n_changed_texts == 3  # the movej's pose, the two tables
    written = out.read_text()
    assert written.count("% 4\n") == 1 and written.count("% 4 movel(") == 1 and "# row" in written
    kept = re.sub(r"  (#.*|global tc_pass_[nt]\d+ = .*)\n", "", written, count=5)
    kept = re.sub(r"^[ \t]*tc_pass_n\d+ = (\(tc_pass_n\d+ \+ 1\) % 4|-1)\n", "", kept, flags=re.MULTILINE)
    kept = re.sub(r"tc_pass_n\d+ = \(tc_pass_n\d+ \+ 1\) % 4 ", "", kept)
    kept = re.sub(r"tc_pass_t\d+\[tc_pass_n\d+\]", "<T>", kept)
    marked = src
    for a, b in sorted(read_program(path).extra["per_pass"], reverse=True):
        marked = marked[:a] + "<T>" + marked[b:]
    assert kept.split("\n")[3:] == marked.split("\n")[3:]  # (the movej's pose, line 3, is written inline)
    reread = read_program(out)
    assert not reread.unsupported and len(reread.motions) == 9
    assert_ur_reached(chain, table, path, reread, want)


def assert_ur_reached(chain, table, path, reread, want) -> None:
    """The written URScript program read back (``reread``), solved on the nominal robot from the configurations of
    the input ``path`` and moved on the warm one (``table`` at its minute 1): its TCP reaches each pose of ``want``."""
    T = np.stack([pt.T_world_tcp @ np.linalg.inv(pt.T_flange_tcp) for pt in reread.points])
    q_near = nominal_configurations(chain, read_program(path), point_poses(chain, read_program(path)),
                                    CompensationOptions())[0]
    result = solve_ik(nominal_model(chain), T[:, :3, :3], T[:, :3, 3], q_near)
    R, p = fk(deformed_model(chain, table, 1.0), result.q)
    reached = transform(R, p) @ UR_TCP
    assert np.max(np.linalg.norm(reached[:, :3, 3] - np.stack(want)[:, :3, 3], axis=1)) < 1e-6 + 10 * IK_POSITION_TOL


def test_a_urscript_counter_from_an_input_stays_refused_naming_it(tmp_path, rng):
    src, _ = _ur_grid(rng)
    src = src.replace("  i = 0\n", "  i = read_input_integer_register(0)\n")
    path = tmp_path / "grid.script"
    path.write_text(src)
    with pytest.raises(InputError, match="read_input_integer_register"):
        run_program("ur5", "deformations/exaggerated.csv", path, tmp_path / "out.script")


# ----- URScript: relative waypoints, as PolyScope writes them (the manual's pose_trans, pose_add, pose_sub)

def _relative_script(rng, blend: str = "0"):
    chain = load_robot("ur5")
    R, p = fk(nominal_model(chain), random_configurations(chain, rng, 2))
    T = [transform(R[k], p[k]) @ UR_TCP for k in range(2)]
    up = transform(np.eye(3), [0.0, 0.0, -0.03])
    src = ("def relative():\n"
           "  set_tcp(p[0, 0, 0.1, 0, 0, 0])\n"
           f"  movel({ur_pose_text(T[0])}, a=1.2, v=0.25, r={blend})\n"
           "  sleep(0.2)\n"
           "  movel(pose_trans(get_actual_tcp_pose(), p[0, 0, -0.03, 0, 0, 0]), a=1.2, v=0.25)\n"
           f"  movej({ur_pose_text(T[1])}, a=1.4, v=1.05, t=0, r=0)\n"
           f"  global wp = pose_add(get_forward_kin(), pose_sub({ur_pose_text(T[0])}, {ur_pose_text(T[1])}))\n"
           "  movel(wp, a=1.2, v=0.25)\n"
           "end\n")
    # pose_add(a, b): positions added, rotations multiplied; pose_sub(a, b) its inverse: pose_add(pose_sub(a, b), b) = a
    sub = transform(T[0][:3, :3] @ T[1][:3, :3].T, T[0][:3, 3] - T[1][:3, 3])
    added = transform(T[1][:3, :3] @ sub[:3, :3], T[1][:3, 3] + sub[:3, 3])
    return src, [T[0], T[0] @ up, T[1], added]


def test_relative_waypoints_after_a_stop_are_written_with_their_absolute_corrected_targets(tmp_path, rng):
    chain = load_robot("ur5")
    src, want = _relative_script(rng)
    np.testing.assert_allclose(want[3][:3, 3], want[0][:3, 3], atol=1e-12)  # (back to the first position)
    path, out = tmp_path / "relative.script", tmp_path / "relative_out.script"
    path.write_text(src)
    prog = read_program(path)
    assert not prog.unsupported
    got = np.stack([pt.T_world_tcp for pt in prog.points])
    np.testing.assert_allclose(got, np.stack(want), atol=1e-12)
    table, report = _zero_then_warm("ur5", path, out, rng)
    assert sum("reached without blend" in n for n in report.notes) == 2
    written = out.read_text()
    assert "get_actual_tcp_pose" not in written and "movel(p[" in written.splitlines()[4]
    reread = read_program(out)
    T = np.stack([pt.T_world_tcp @ np.linalg.inv(pt.T_flange_tcp) for pt in reread.points])
    q_near = nominal_configurations(chain, prog, point_poses(chain, prog), CompensationOptions())[0]
    result = solve_ik(nominal_model(chain), T[:, :3, :3], T[:, :3, 3], q_near)
    R, p = fk(deformed_model(chain, table, 1.0), result.q)
    reached = transform(R, p) @ UR_TCP
    assert np.max(np.linalg.norm(reached[:, :3, 3] - np.stack(want)[:, :3, 3], axis=1)) < 1e-6 + 10 * IK_POSITION_TOL


@pytest.mark.parametrize(("change", "why"), [
    (("r=0)\n  sleep", "r=0.02)\n  sleep"), "blends"),
    (("  movel(pose_trans", "  while (True):\n  movel(pose_trans"), "no motion comes before it in its sequence"),
])
def test_relative_waypoints_the_file_does_not_fix_are_refused_naming_line_and_why(tmp_path, rng, change, why):
    src, _ = _relative_script(rng)
    src = src.replace(*change)
    if "while" in change[1]:
        src = src.replace("  movel(wp, a=1.2, v=0.25)\n", "  movel(wp, a=1.2, v=0.25)\n  end\n")
    path = tmp_path / "relative.script"
    path.write_text(src)
    prog = read_program(path)
    line = next(k for k, text in enumerate(src.splitlines(), 1) if "get_actual_tcp_pose" in text)
    assert prog.unsupported[0].line == line and why in prog.unsupported[0].message


def test_passes_both_before_the_production_loop_and_in_it_are_refused(tmp_path, rng):
    """``WHILE TRUE`` ending main repeats its body every cycle; what stands before it runs once: one table walked by
    one counter cannot serve a motion run in both. (The routine called with the counter, ``lift k;``, is compensated:
    each call sets its index from the counter, tests/test_programs_callsites2.py.)"""
    chain = load_robot("irb140")
    main = ("    FOR k FROM 1 TO 2 DO\n      nLift := k;\n      lift;\n    ENDFOR\n"
            "    WHILE TRUE DO\n      FOR k FROM 1 TO 3 DO\n        nLift := k;\n        lift;\n      ENDFOR\n"
            "    ENDWHILE\n")
    src, _ = _module(chain, rng, main, "  PROC lift()\n    MoveL Offs(b, 0, 0, 5 * nLift), v100, fine, tGrip;\n"
                                       "  ENDPROC\n", decl="  VAR num nLift := 0;\n")
    path = tmp_path / "cell.mod"
    path.write_text(src)
    prog = read_program(path)
    line = src.splitlines().index("    MoveL Offs(b, 0, 0, 5 * nLift), v100, fine, tGrip;") + 1
    assert [(f.line, "both before the loop" in f.message) for f in prog.unsupported] == [(line, True)]
    only_in = src.replace("    FOR k FROM 1 TO 2 DO\n      nLift := k;\n      lift;\n    ENDFOR\n", "")
    path.write_text(only_in)
    taken = read_program(path)
    assert not taken.unsupported and len(taken.extra["per_pass"]) == 1 and len(taken.motions) == 3


def test_a_table_whose_passes_failed_in_part_is_left_as_written_and_the_report_says_so(tmp_path, rng):
    """--allow-failures: a per-pass motion with one pass out of reach (2 m along x) keeps its written text in every
    pass (a table is written whole or not at all); the report names its line and how many passes failed."""
    chain = load_robot("irb140")
    main = ("    FOR k FROM 0 TO 2 DO\n"
            "      MoveL Offs(b, k * k * 1000, 0, 0), v100, fine, tGrip;\n"
            "    ENDFOR\n")
    src, _ = _module(chain, rng, main)
    path, out = tmp_path / "cell.mod", tmp_path / "cell_out.mod"
    path.write_text(src)
    report = run_program("irb140", small_table(rng), path, out, allow_failures=True,
                         options=CompensationOptions(time_law=Static()))
    line = src[:src.index("MoveL Offs(b")].count("\n") + 1
    assert report.failed and all(f":{line}:" in f for f in report.failed)
    notes = [n for n in report.notes if "of its 3 passes could not be compensated" in n]
    assert len(notes) == 1 and f"cell.mod:{line}:" in notes[0] and "left as written" in notes[0]
    assert "MoveL Offs(b, k * k * 1000, 0, 0)" in out.read_text() and "tcPass" not in out.read_text()


@pytest.mark.parametrize("reach", [10, 1000])
def test_a_target_a_table_reads_is_rewritten_only_when_the_table_is_written(tmp_path, rng, reach):
    """``MoveL b`` and, in a loop, ``MoveL Offs(b, k * k * reach, 0, 0)``: the table replaces the text that reads ``b``,
    so ``b`` alone is written in its declaration, and every point reached by the warm robot. With one pass out of reach
    (--allow-failures) the table is not written and its text, left as written, reads ``b``: ``b`` is then kept as
    written too (else those passes would move by ``b``'s correction), and the report names it."""
    chain = load_robot("irb140")
    main = ("    MoveL b, v100, fine, tGrip;\n"
            "    FOR k FROM 0 TO 2 DO\n"
            f"      MoveL Offs(b, k * k * {reach}, 0, 0), v100, fine, tGrip;\n"
            "    ENDFOR\n")
    src, _ = _module(chain, rng, main)
    path, out = tmp_path / "cell.mod", tmp_path / "cell_out.mod"
    path.write_text(src)
    table = small_table(rng)
    report = run_program("irb140", table, path, out, allow_failures=True, options=CompensationOptions(time_law=Static()))
    declaration = next(line for line in src.splitlines() if " b:=" in line or " b :=" in line)
    written = out.read_text()
    if reach == 1000:
        assert report.failed and "tcPass" not in written and declaration in written.splitlines()
        line = src[:src.index("    MoveL b,")].count("\n") + 1
        assert any(f"cell.mod:{line}:" in n and "(b) is left as written" in n for n in report.notes)
        assert not any("confdata written" in n and f"cell.mod:{line}:" in n for n in report.notes)
    else:
        assert not report.failed and "tcPass" in written and declaration not in written.splitlines()
        prog = read_program(path)
        want = transform(*fk(nominal_model(chain), nominal_configurations(
            chain, prog, point_poses(chain, prog), CompensationOptions())[0])) \
            @ np.stack([pt.T_flange_tcp for pt in prog.points])
        got = _reached(chain, table, out)
        assert np.abs(got[:, :3, 3] - want[:, :3, 3]).max() < 1e-6 + 10 * IK_POSITION_TOL
