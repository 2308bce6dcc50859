"""--allow-failures on a routine called with different targets whose approach reads its parameter through an offset.

Written from ABB's RAPID syntax ("Technical reference manual - RAPID Instructions, Functions and Data types":
``PROC`` with parameters, ``VAR``, ``:=``, ``Offs``) and UR's URScript manual (``def`` with parameters, ``local``,
``global``, ``pose_trans``), not from any fetched program: the pick routine of hand-written programs, an approach
computed from the parameter (inline, ``Offs(p, 0, 0, h)`` / ``pose_trans(p, off)``, or a local assigned from it,
RAPID's also through a second datum in a routine the parameter is passed on to) then the parameter itself, called
with two targets (declared, or written at the call site). The approach differs
from call to call: a table of corrected targets, the declarations passed rewritten there (docs/programs.md). One
call's approach out of reach: the table is not written, so its motion reads the declarations passed as written; they
stay as written too, and so does every motion that reads them (the report names each). Read back, every motion the
report does not name reaches its programmed pose on the warm robot (within the core's tolerance), and every one it
names is written as it was (byte for byte) and reads the same nominal pose: nothing it reads changed; its row in the
report says "left as written", not "ok". Without --allow-failures nothing is written (exit status 2); with it the
program is written (exit status 0, as ``--help`` says).
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from helpers import run_program
from program_builders import ur_pose_text
from test_programs_rapid import controller_joints, small_table
from test_programs_rapid_cell import ZERO, _module
from test_programs_ucall import _poses
from test_programs_ucall import _reached as _ur_reached

from thermocomp import deformed_model, fk, load_robot
from thermocomp.app.jobs import CompensationFailed
from thermocomp.cli.main import EXIT_FAILED_ROWS, EXIT_OK, main
from thermocomp.compensation.compensate import CompensationOptions
from thermocomp.deformation.timelaw import Static
from thermocomp.geometry.rotations import transform
from thermocomp.io.deformation_csv import write_deformation_csv
from thermocomp.programs import read_program
from thermocomp.tolerances import IK_POSITION_TOL

TOLERANCE = 1e-6 + 10 * IK_POSITION_TOL
PICK = "  PROC pick(robtarget p, num h)\n"
RAPID_ROUTINES = {  # pick, its approach h mm above its target
    "inline": PICK + "    MoveL Offs(p, 0, 0, h), v500, z10, tGrip;\n    MoveL p, v100, fine, tGrip;\n  ENDPROC\n",
    "local": PICK + "    VAR robtarget q;\n    q := Offs(p, 0, 0, h);\n    MoveJ q, v500, z10, tGrip;\n"
                    "    MoveL p, v100, fine, tGrip;\n    MoveL q, v500, z10, tGrip;\n  ENDPROC\n",
    "passed on": PICK + "    go p, h;\n  ENDPROC\n  PROC go(robtarget t, num h)\n    VAR robtarget q;\n"
                        "    VAR robtarget r;\n    r := Offs(t, 0, 0, h);\n    q := r;\n    MoveL q, v500, z10, tGrip;\n"
                        "    MoveL t, v100, fine, tGrip;\n  ENDPROC\n",
}
UR_APPROACH = {
    "inline": "    movel(pose_trans(p, off), a=1.2, v=0.25)\n",
    "local": "    local q = pose_trans(p, off)\n    movel(q, a=1.2, v=0.25)\n",
}


def _rapid(rng, form: str, far: bool) -> str:
    """``pick a`` then ``pick b``, ``b``'s approach 3 m up where ``far`` (out of reach), ``a`` read in main too."""
    main = (f"    MoveL c, v100, fine, tGrip;\n    pick a, 50;\n    pick b, {3000 if far else 40};\n"
            "    MoveL a, v100, fine, tGrip;\n")
    return _module(load_robot("irb140"), rng, main, RAPID_ROUTINES[form])[0]


def _urscript(rng, form: str, far: bool, declared: bool) -> str:
    """``go`` with two poses (``declared``: the first a global's), the second's approach 3 m back where ``far``."""
    T = _poses(rng, 3)
    first = "g" if declared else ur_pose_text(T[0])
    return ("def prog():\n  set_tcp(p[0, 0, 0.1, 0, 0, 0])\n" + f"  global g = {ur_pose_text(T[0])}\n"
            + "  def go(p, off=p[0, 0, -0.05, 0, 0, 0]):\n" + UR_APPROACH[form] + "    movel(p, a=1.2, v=0.25)\n"
            + f"  end\n  movel({ur_pose_text(T[2])}, a=1.2, v=0.25)\n  go({first})\n"
            + f"  go({ur_pose_text(T[1])}, p[0, 0, {-3 if far else -0.04}, 0, 0, 0])\n"
            + ("  movel(g, a=1.2, v=0.25)\n" if declared else "") + "end\n")


def _reached(robot: str, table, path, out) -> np.ndarray:
    """The TCP poses ``(n, 4, 4)`` the warm robot reaches on the written program's targets (NaN where the
    controller finds no joints)."""
    chain = load_robot(robot)
    if robot != "irb140":
        return _ur_reached(path, out, table)
    written = read_program(out)
    q, status = controller_joints(chain, written)
    R, p = fk(deformed_model(chain, table, 1.0), q)
    reached = transform(R, p) @ np.stack([pt.T_flange_tcp for pt in written.points])
    reached[np.asarray(status) != 0] = np.nan
    return reached


def _named(report, path) -> set[int]:
    """The lines of the motions the report says are not compensated: failed, or left as written."""
    said = [*report.failed, *(n for n in report.notes if "left as written" in n)]
    return {int(re.match(r"(\d+):", s.removeprefix(f"{path}:")).group(1)) for s in said}


def _check(tmp_path, rng, robot: str, src: str, far: bool) -> tuple[str, set[int]]:
    """Zero table: the program back byte for byte; a warm table: refused without --allow-failures where a point
    fails; with it, each motion reaches its pose or, named by the report, is written as it was and reads the same
    nominal pose. The written text and the lines named."""
    path = tmp_path / ("cell.mod" if robot == "irb140" else "cell.script")
    out = path.with_name("out" + path.suffix)
    path.write_text(src)
    assert read_program(path).unsupported == () and len(read_program(path).extra["per_pass"]) >= 1
    run_program(robot, ZERO, path, out, allow_failures=True)
    assert out.read_bytes() == path.read_bytes()
    out.unlink()
    table, options = small_table(rng), CompensationOptions(time_law=Static())
    if far:
        with pytest.raises(CompensationFailed, match="could not be compensated"):
            run_program(robot, table, path, out, options=options)
        assert not out.exists()
    report = run_program(robot, table, path, out, allow_failures=True, options=options)
    assert bool(report.failed) == far
    written, named = out.read_text(), _named(report, path)
    original, back = read_program(path).points, read_program(out).points
    assert len(back) == len(original)
    reached = _reached(robot, table, path, out)
    for k, (old, new) in enumerate(zip(original, back)):
        if old.argument.line in named:  # (no table written: the lines stay where they were)
            assert src.splitlines()[old.argument.line - 1] == written.splitlines()[new.argument.line - 1]
            assert src[old.text.start:old.text.end] == written[new.text.start:new.text.end]
            assert np.array_equal(new.T_world_tcp, old.T_world_tcp)
        else:
            assert np.linalg.norm(reached[k, :3, 3] - old.T_world_tcp[:3, 3]) < TOLERANCE
    assert written != src
    failed = {int(re.match(r"(\d+):", s.removeprefix(f"{path}:")).group(1)) for s in report.failed}
    for row in report.rows:  # (the report's rows say the same: a motion left as written is not "ok")
        if row.line in failed and row.status not in ("ok", "left as written"):
            continue  # (a point that failed: its status)
        assert row.status == ("left as written" if row.line in named else "ok"), row
    return written, named


def _at(src: str, start: str, after: str = "") -> set[int]:
    """The lines (1-based) of ``src`` starting with ``start`` after the first starting with ``after``."""
    lines = src.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith(after))
    return {i + 1 for i in range(first, len(lines)) if lines[i].startswith(start)}


@pytest.mark.parametrize("far", [False, True])
@pytest.mark.parametrize("form", sorted(RAPID_ROUTINES))
def test_rapid_an_approach_out_of_reach_leaves_what_it_reads_as_written(tmp_path, rng, form, far):
    src = _rapid(rng, form, far)
    written, named = _check(tmp_path, rng, "irb140", src, far)
    # far: every motion of pick (the approach reads a and b, the table not written) and MoveL a in main
    assert named == (_at(src, "    Move", "  PROC pick") | _at(src, "    MoveL a,") if far else set())
    for name in "ab":
        declaration = next(line for line in src.splitlines() if line.startswith(f"  CONST robtarget {name}:="))
        assert (declaration in written.splitlines()) == far
    assert ("tcPassT1{tcPassN1}" in written) != far


@pytest.mark.parametrize("declared", [False, True])
@pytest.mark.parametrize("far", [False, True])
@pytest.mark.parametrize("form", sorted(UR_APPROACH))
def test_urscript_an_approach_out_of_reach_leaves_what_it_reads_as_written(tmp_path, rng, form, far, declared):
    src = _urscript(rng, form, far, declared)
    written, named = _check(tmp_path, rng, "ur5", src, far)
    assert named == (_at(src, "    movel(") | _at(src, "  movel(g,") if far else set())
    passed = [line for line in src.splitlines() if line.startswith(("  go(p[", "  global g" if declared else "  go("))]
    assert len(passed) == 2 and all((line in written.splitlines()) == far for line in passed)
    assert ("tc_pass_t1[tc_pass_n1]" in written) != far


def test_the_command_line_refuses_by_default_and_writes_with_allow_failures(tmp_path, rng, capsys):
    """The same program and table through ``thermocomp compensate``: exit status 2 and nothing written, then, with
    --allow-failures, exit status 0 and the bytes the library writes."""
    src = _rapid(rng, "inline", True)
    path, out, library = tmp_path / "cell.mod", tmp_path / "out.mod", tmp_path / "library.mod"
    path.write_text(src)
    table, csv = small_table(rng), tmp_path / "table.csv"
    write_deformation_csv(table, csv)
    args = ["compensate", "--robot", "irb140", "--deformation", str(csv), "--static", "--program", str(path),
            "--out", str(out)]
    assert main(args) == EXIT_FAILED_ROWS and not out.exists()
    assert "could not be compensated" in capsys.readouterr().err
    assert main([*args, "--allow-failures"]) == EXIT_OK
    run_program("irb140", table, path, library, allow_failures=True, options=CompensationOptions(time_law=Static()))
    assert out.read_bytes() == library.read_bytes() != path.read_bytes()
