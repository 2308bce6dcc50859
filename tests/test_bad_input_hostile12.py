"""Hostile input found by the twelfth adversarial run (hostile12_attack.py), each test a class: many laser-tracker
measurements (within the stated bound of 100,000) held memory quadratic in their count; a file name a robot file,
a mesh map or a scene gives that is longer than the file system allows was an OSError naming the name alone, not the
file and line that gave it; a RAPID module's routines no cycle runs cost the uses of its names times their number
(20,000 of them read in 42 s, 100,000 in more than 5 minutes); an output whose folder was removed while the run
worked was named by its resolved path, not by its option and the name given; the CoppeliaSim add-on's request file,
an input, was overwritten by the run's log when its ``--report`` named it; URScript functions defined one inside
another cost the square of their depth (20,000 did not end in 5 minutes): past 32 they are refused; the sweep of
stale temporaries removed a user's files named ``.tc-<a number>-...``, the run's own input included.
"""

from __future__ import annotations

import cProfile
import os
import pstats
import re
import subprocess
import sys
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from test_bad_input import case, refused  # noqa: F401  (fixture)

from thermocomp.io.robots import robot_dir

# ----- calibrate: the identifiability analysis of N measurements holds memory of N, not N^2


def test_the_identifiability_of_many_measurements_holds_no_square_matrix_of_them():
    """5,000 measurements (15,000 rows of the Jacobian) took 9 minutes and 3.7 GB, and 20,000 ran out of memory: the
    SVD of the candidates' columns made U of (N, N), of which nothing is read. Its peak is now within a few times the
    Jacobian's own size, whatever N; the singular values and the identifiable directions are the same."""
    from thermocomp.calibration.identifiability import analyse

    rng = np.random.default_rng(12)
    n, z = 3000, 8
    A = rng.standard_normal((n, z))
    A[:, 7] = A[:, 5] + A[:, 6]  # (one combination the poses cannot tell apart: rank 7)
    tracemalloc.start()
    try:
        found = analyse(A, np.arange(2, z), np.arange(2), np.ones(z), 1e-9)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20 * A.nbytes  # (U of (N, N) alone is 375 times A's size here)
    C = A[:, 2:] - A[:, :2] @ np.linalg.lstsq(A[:, :2], A[:, 2:], rcond=None)[0]
    assert found.rank == 5
    np.testing.assert_allclose(found.singular_values[:5], np.linalg.svd(C, compute_uv=False)[:5], rtol=1e-10)
    assert found.V_identifiable.shape == (6, 5)


# ----- a file name a file gives, longer than the file system allows (ENAMETOOLONG), is named at its line

LONG = "x" * 300  # (past NAME_MAX, 255 bytes: stat() refuses the name itself)


def _urdf_with_a_long_mesh(case: Path, capsys) -> int:
    """irb140 as a URDF whose first mesh is named ``LONG``; the line of that mesh."""
    from test_bad_input import run_cli

    assert run_cli(capsys, ["robot", "export", "irb140", "--with-meshes", "--out", "r.urdf"])[0] == 0
    text = (case / "r.urdf").read_text()
    first = re.search(r'filename="([^"]*)"', text)
    (case / "r.urdf").write_text(text.replace(first.group(1), f"{LONG}.stl"))
    return text.count("\n", 0, first.start()) + 1


def test_a_urdf_mesh_name_too_long_is_named_at_its_line(case, capsys):
    """It was "thermocomp: error: xxx...xxx.stl: File name too long" (the OSError of Path.is_file, by the command
    line's last resort), naming no robot file and no line."""
    line = _urdf_with_a_long_mesh(case, capsys)
    refused(case, capsys, ["robot", "export", "r.urdf", "--with-meshes", "--out", "o.urdf"], 1,
            f"r.urdf, line {line}: link 'base': mesh file", "not found")


@pytest.mark.parametrize("argv", [
    ["compensate", "--robot", "r.urdf", "--deformation", "d.csv", "--static", "--targets", "t.csv", "--out", "o.csv"],
    ["sim", "--robot", "r.urdf", "--no-scene", "--headless", "--deformation", "d.csv", "--static", "--targets", "t.csv",
     "--out", "o.csv"],
])
def test_a_urdf_mesh_name_too_long_is_no_file_where_meshes_are_not_read(case, capsys, argv):
    """A command that does not read the robot's meshes runs, as with a mesh file that is not there (it declares those
    that exist as inputs, never to be written over): both stopped at that OSError."""
    from test_bad_input import run_cli

    _urdf_with_a_long_mesh(case, capsys)
    code, out, err = run_cli(capsys, argv)
    assert (code, err) == (0, "")
    assert (case / "o.csv").stat().st_size > 0


def test_a_mesh_map_csv_name_too_long_is_named_at_its_row(case, capsys):
    meshes = case / "m"
    meshes.mkdir()
    for mesh in (robot_dir("irb140") / "meshes").iterdir():
        (meshes / mesh.name).write_bytes(mesh.read_bytes())
    (case / "map.csv").write_text(f"link,mesh,x_mm,y_mm,z_mm,rx_deg,ry_deg,rz_deg\nbase,{LONG}.stl,0,0,0,0,0,0\n")
    refused(case, capsys, ["inertia", "--robot", "irb140", "--meshes", "m", "--units", "m", "--total-mass", "98",
                           "--mesh-map", "map.csv"], 1, "map.csv, line 2, column 'mesh': mesh file", "not found")


def test_a_mesh_map_toml_folder_name_too_long_is_named_at_its_line(case, capsys):
    (case / "mm.toml").write_text(f'thermocomp_meshes = 1\nmesh_unit = "m"\ndir = "{LONG}"\n[links.base]\n'
                                  'visual = "x.stl"\n')
    refused(case, capsys, ["sim", "--robot", "irb140", "--no-scene", "--meshes", "mm.toml", "--headless", "--deformation",
                           "d.csv", "--static", "--targets", "t.csv", "--out", "o.csv"], 1,
            "mm.toml, line 3, column 7: mesh map dir: expected an existing folder")


# ----- RAPID: the routines no cycle runs cost what they hold, not their number times the uses of the module's names


def _calls_to_read(path: Path) -> int:
    """The Python function calls (and generator steps) :func:`read_program` makes to read ``path``, read once before."""
    from thermocomp.programs.read import read_program

    read_program(path)  # (the grammar and the lazy imports made before counting)
    profile = cProfile.Profile()
    profile.enable()
    try:
        read_program(path)
    finally:
        profile.disable()
    return pstats.Stats(profile).total_calls


def test_a_rapid_module_of_routines_no_cycle_runs_reads_in_work_linear_in_them(tmp_path):
    """Each use of a name was tested against every routine no cycle runs (is it a CONST read in one?): work of the uses
    times the routines, 42 s for 20,000 routines of one motion each, more than 5 minutes for 100,000 (a module of 6
    MB, within every stated bound). Counted in function calls, not timed: twice the routines, twice the work."""
    target = "[[500,0,500],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]]"
    counts = []
    for n in (500, 1000):
        routines = "".join(f"  PROC r{k}()\n    MoveL p, v100, fine, tool0;\n  ENDPROC\n" for k in range(n))
        path = tmp_path / f"m{n}.mod"
        path.write_text(f"MODULE M\n  CONST robtarget p:={target};\n  PROC main()\n    MoveL p, v100, fine, tool0;\n"
                        f"  ENDPROC\n{routines}ENDMODULE\n")
        counts.append(_calls_to_read(path))
    assert counts[1] / counts[0] < 2.2  # (it was 2.47 here, the ratio growing with the routines)


# ----- an output whose folder goes away while the run works is named by its option, as given


def test_an_output_whose_folder_is_removed_during_the_run_is_named_by_its_option(tmp_path, monkeypatch):
    """It was "/tmp/.../sub/o.mod: cannot write: No such file or directory" (the temporary's folder, resolved), from
    a folder removed after the outputs were checked and before the first was written."""
    from thermocomp.errors import InputError
    from thermocomp.io.job import Job

    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()
    with Job() as job:
        job.output("sub/o.mod", "--out")
        job.check()
        (tmp_path / "sub").rmdir()
        with pytest.raises(InputError) as info:
            job.write_text(Path("sub/o.mod"), "MODULE M\nENDMODULE\n")
    assert str(info.value) == "--out sub/o.mod: cannot write: No such file or directory"
    assert list(tmp_path.iterdir()) == []


# ----- coppeliasim addon-run: the request file is an input of the run it asks for


@pytest.mark.parametrize(("options", "words"), [
    (["--timeout-s", "1"], ["the following arguments are required: --deformation"]),  # (argparse refuses the request)
    (["--timeout-s", "1", "--deformation", "d.csv"], ["--report r.txt: would overwrite the input r.txt (REQUEST)"]),
])
def test_an_addon_request_whose_report_is_the_request_is_not_written_over(case, capsys, options, words):
    """Both wrote the run's log (its error) over the request: an output onto an input."""
    (case / "r.txt").write_text("\n".join(["thermocomp-addon-request/1", "coppeliasim", "show", "--port", "1", *options,
                                           "--report", "r.txt"]) + "\n")
    refused(case, capsys, ["coppeliasim", "addon-run", "r.txt"], 1, *words)


# ----- URScript: functions defined one inside another are followed 32 deep, and refused past it at the deepest


def _nested_functions(depth: int, kind: str = "def") -> str:
    """A script whose program function holds ``depth - 1`` functions, each inside the one before."""
    inner = "".join(f"  {kind} f{k}():\n" for k in range(depth - 1))
    return (f"def prog():\n{inner}  sleep(1)\n" + "  end\n" * (depth - 1) +
            "  movel(p[-.45, -.15, .2, 3.14159265359, 0, 0], a=1.2, v=0.25)\nend\n")


@pytest.mark.parametrize("kind", ["def", "thread"])
def test_urscript_functions_nested_past_the_bound_are_refused_at_the_deepest(kind):
    """2,000 nested took 38 s, 20,000 did not end in 5 minutes (each function's summary walked every function inside
    it): a bound, stated (docs/programs.md), refused at the function past it; one at the bound reads."""
    from thermocomp.errors import InputError
    from thermocomp.programs.urscript import MAX_FUNCTION_DEPTH, urscript_program_from_text

    assert len(urscript_program_from_text(_nested_functions(MAX_FUNCTION_DEPTH, kind), "p.script").run.text) == 1
    with pytest.raises(InputError) as info:
        urscript_program_from_text(_nested_functions(5000, kind), "p.script")
    deepest = MAX_FUNCTION_DEPTH  # (f0 is the second function: prog holds it)
    assert str(info.value) == (f"p.script, line {deepest + 1}, column 3: function f{deepest - 1} is defined "
                               f"{deepest + 1} deep, inside {deepest} others: the reader follows functions at most "
                               f"{deepest} deep")


# ----- the sweep of stale temporaries removes only names thermocomp makes, never an input of the run


def test_the_sweep_of_stale_temporaries_leaves_a_users_files_and_the_runs_inputs(case, capsys):
    """``--targets .tc-424242-t.csv`` was removed by the run's own sweep before it was read ("file not found"), and
    ``.tc-424242-notes.txt`` beside the output with it: any name of the prefix and a number whose process was gone.
    A temporary's whole name is matched now, and no input is removed whatever its name (one named exactly as a
    temporary is: the targets here)."""
    from test_bad_input import run_cli

    from thermocomp.io.job import TEMPORARY_PREFIX

    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    users = case / f"{TEMPORARY_PREFIX}{gone.pid}-t.csv"
    notes = case / f"{TEMPORARY_PREFIX}{gone.pid}-notes.txt"
    shaped = case / f"{TEMPORARY_PREFIX}{gone.pid}-abcdefgh.csv"  # (the input, named as a temporary is)
    stale = case / f"{TEMPORARY_PREFIX}keep-{gone.pid}-abc_e9gh.csv"  # (what a run killed hard leaves)
    for path in (users, notes, stale):
        path.write_text("mine\n")
    shaped.write_bytes((case / "t.csv").read_bytes())
    code, out, err = run_cli(capsys, ["compensate", "--deformation", "d.csv", "--targets", shaped.name, "--static",
                                      "--out", "o.csv"])
    assert (code, err) == (0, "")
    assert users.read_text() == notes.read_text() == "mine\n" and shaped.exists() and not stale.exists()
    assert os.path.getsize(case / "o.csv") > 0
