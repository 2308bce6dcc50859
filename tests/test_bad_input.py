"""Bad input, hostile outputs and faults through the real command line (issue 9).

Each case runs ``thermocomp.cli.main.main([...])`` in a temporary folder of
its own and checks: the exit status, that the message names the file, line
or option, that no traceback is printed, that every file there before is
byte for byte the same afterwards, and that no temporary is left.
"""

from __future__ import annotations

import errno
import hashlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from coppeliasim_fake.fixtures import fake_irb140  # noqa: F401  (fixture)
from helpers import REPO

from thermocomp.cli.common import EXIT_FAILED_ROWS, EXIT_INPUT, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE
from thermocomp.cli.main import main
from thermocomp.errors import InputError
from thermocomp.io.job import TEMPORARY_PREFIX

EXAGGERATED = REPO / "deformations" / "exaggerated.csv"
TARGETS_HEADER = "name,x_mm,y_mm,z_mm,euler_xyz_a_deg,euler_xyz_b_deg,euler_xyz_c_deg\n"
TARGETS = TARGETS_HEADER + "P1,641,21,473,0,90,0\nP2,536,235,281,0,90,0\n"


def snapshot(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` (names relative) and the SHA-256 of its bytes; FIFOs by name only."""
    found = {}
    for path in sorted(folder.rglob("*")):
        if path.is_fifo():
            found[str(path.relative_to(folder))] = "fifo"
        elif path.is_file():
            found[str(path.relative_to(folder))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


@pytest.fixture
def case(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A folder with t.csv (targets) and d.csv (deformation), the working directory of the run."""
    (tmp_path / "t.csv").write_text(TARGETS)
    (tmp_path / "d.csv").write_bytes(EXAGGERATED.read_bytes())
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run_cli(capsys, argv: list[str]) -> tuple[int, str, str]:
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:  # the parser's refusals
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def refused(case: Path, capsys, argv: list[str], code: int, *words: str) -> str:
    """Run ``argv``; assert the status, the words in the message, no traceback, nothing changed or left."""
    before = snapshot(case)
    got, out, err = run_cli(capsys, argv)
    assert got == code, err
    for word in words:
        assert word in err, f"{word!r} not in {err!r}"
    assert "Traceback" not in err + out
    assert "wrote" not in out + err
    assert snapshot(case) == before
    assert not [p for p in case.rglob(f"{TEMPORARY_PREFIX}*")]
    return err


COMPENSATE = ["compensate", "--deformation", "d.csv", "--targets", "t.csv", "--static"]


# --- 1. an output that is an input, or another output, or not a regular file -------------------------------


@pytest.mark.parametrize(("extra", "words"), [
    (["--out", "o.csv", "--plot", "t.csv"], ["--plot t.csv", "would overwrite the input", "--targets"]),
    (["--out", "o.csv", "--plot", "o.csv"], ["--plot o.csv", "the same file as --out"]),
    (["--out", "d.csv"], ["--out d.csv", "would overwrite the input", "--deformation"]),
    (["--out", "./sub/../t.csv"], ["would overwrite the input"]),
    (["--out", "o.csv", "--convention", "authors-coppeliasim", "--plot", "d.csv"], ["--plot d.csv"]),
    (["--out", "nodir/o.csv"], ["--out nodir/o.csv", "does not exist"]),
    (["--out", "o.csv", "--plot", "nodir/p.png"], ["--plot", "does not exist"]),
])
def test_compensate_refuses_bad_outputs_before_any_work(case, capsys, extra, words):
    (case / "sub").mkdir()
    refused(case, capsys, [*COMPENSATE, *extra], EXIT_INPUT, *words)


def test_an_output_hard_linked_or_symlinked_to_an_input_is_refused(case, capsys):
    os.link(case / "t.csv", case / "hard.csv")
    (case / "soft.csv").symlink_to(case / "d.csv")
    refused(case, capsys, [*COMPENSATE, "--out", "hard.csv"], EXIT_INPUT, "would overwrite the input")
    refused(case, capsys, [*COMPENSATE, "--out", "o.csv", "--plot", "soft.csv"], EXIT_INPUT, "--plot soft.csv")


@pytest.mark.parametrize("target", ["existing", "missing"])
@pytest.mark.parametrize("option", ["--out", "--plot"])
def test_an_output_that_is_a_symbolic_link_is_refused_and_its_target_untouched(case, capsys, target, option):
    """--out link.csv with link.csv -> victim.csv replaced victim.csv, and a dangling link created a file in
    another folder (issue 28): every output option refuses a link, naming itself; the linked file is as it was."""
    other = case / "other"
    other.mkdir()
    if target == "existing":
        (other / "victim.csv").write_text("precious\n")
    (case / "link.csv").symlink_to(other / "victim.csv")
    outputs = {"--out": ["--out", "link.csv"], "--plot": ["--out", "o.csv", "--plot", "link.csv"]}[option]
    refused(case, capsys, [*COMPENSATE, *outputs], EXIT_INPUT, "link.csv", "cannot write through a symbolic link")
    assert sorted(p.name for p in other.iterdir()) == (["victim.csv"] if target == "existing" else [])


def test_every_conflict_is_named_at_once(case, capsys):
    err = refused(case, capsys, [*COMPENSATE, "--out", "t.csv", "--plot", "d.csv"], EXIT_INPUT)
    assert "2 outputs cannot be written" in err and "--out t.csv" in err and "--plot d.csv" in err


def test_a_fifo_or_a_directory_is_not_replaced(case, capsys):
    os.mkfifo(case / "fifo.csv")
    (case / "dir.csv").mkdir()
    refused(case, capsys, [*COMPENSATE, "--out", "fifo.csv"], EXIT_INPUT, "--out fifo.csv", "a FIFO")
    refused(case, capsys, [*COMPENSATE, "--out", "dir.csv"], EXIT_INPUT, "--out dir.csv", "a directory")
    assert (case / "fifo.csv").is_fifo()


def test_robot_export_and_convention_never_write_over_their_inputs(case, capsys):
    refused(case, capsys, ["robot", "export", "irb140", "--deformation", "d.csv", "--out", "d.csv"], EXIT_INPUT,
            "--out d.csv", "would overwrite the input")
    refused(case, capsys, ["coppeliasim", "convention", "--deformation", "d.csv", "--out", "d.csv"], EXIT_INPUT,
            "--out d.csv", "would overwrite the input")


def test_report_is_checked_like_an_output_and_never_appended_to(case, capsys, fake_irb140):
    scene = ["--host", "127.0.0.1", "--port", fake_irb140.port, "--timeout-s", "2", "--robot-path", "/IRB140",
             "--tip", "/IRB140/tip"]
    refused(case, capsys, ["coppeliasim", "compensate", *scene, "--deformation", "d.csv", "--targets", "t.csv",
                           "--out", "o.csv", "--report", "t.csv", "--static"], EXIT_INPUT, "--report t.csv")
    refused(case, capsys, ["coppeliasim", "compensate", *scene, "--deformation", "d.csv", "--targets", "t.csv",
                           "--out", "o.csv", "--report", "o.csv", "--static"], EXIT_INPUT, "the same file as --report")
    refused(case, capsys, ["coppeliasim", "info", "--port", fake_irb140.port, "--report", "nodir/x"], EXIT_INPUT,
            "--report nodir/x", "does not exist")
    (case / "r.txt").write_text("an earlier report\n")
    code, _, err = run_cli(capsys, ["coppeliasim", "info", "--port", fake_irb140.port, "--report", "r.txt"])
    assert code == EXIT_OK, err
    assert "an earlier report" not in (case / "r.txt").read_text() and "CoppeliaSim" in (case / "r.txt").read_text()


def test_coppeliasim_compensate_never_writes_over_its_targets(case, capsys, fake_irb140):
    """The scene path hands objects on; the job still knows the files they came from."""
    refused(case, capsys, ["compensate", "--simulator", "coppeliasim", "--coppeliasim-port", fake_irb140.port,
                           "--deformation", "d.csv", "--targets", "t.csv", "--out", "t.csv", "--static"],
            EXIT_INPUT, "--out t.csv", "would overwrite the input")


def test_sim_outputs_are_checked_against_each_other_and_the_inputs(case, capsys):
    refused(case, capsys, ["sim", "--robot", "irb140", "--no-scene", "--deformation", "d.csv", "--targets", "t.csv",
                           "--static", "--headless", "--out", "m.csv", "--collisions", "--collisions-out", "t.csv"],
            EXIT_INPUT, "--collisions-out t.csv", "would overwrite the input")


# --- 2. all or nothing: failures, full disks, failed renames --------------------------------------------------


@pytest.mark.slow
def test_nothing_to_plot_writes_no_results_either(case, capsys):
    """Every row fails (the target is out of reach): --allow-failures would write the results, but the plot
    has nothing to draw, so neither is written."""
    (case / "far.csv").write_text(TARGETS_HEADER + "FAR,5000,0,500,0,90,0\n")
    refused(case, capsys, [*COMPENSATE[:4], "far.csv", "--static", "--out", "o.csv", "--plot", "p.png",
                           "--allow-failures", "--starts", "1"], EXIT_INPUT, "--plot", "nothing to plot")


def test_failed_rows_exit_2_and_never_say_wrote(case, capsys):
    (case / "far.csv").write_text(TARGETS_HEADER + "FAR,5000,0,500,0,90,0\n")
    refused(case, capsys, [*COMPENSATE[:4], "far.csv", "--static", "--out", "o.csv", "--starts", "1"], EXIT_FAILED_ROWS,
            "could not be compensated", "Nothing was written")


def test_a_full_disk_is_a_located_message_and_leaves_nothing(case, capsys, monkeypatch):
    from thermocomp.io import results_csv

    def full(self, chunk, names):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(results_csv.ResultsWriter, "write", full)
    (case / "o.csv").write_text("earlier\n")
    refused(case, capsys, [*COMPENSATE, "--out", "o.csv"], EXIT_INPUT, "--out o.csv", "No space left on device")


@pytest.mark.parametrize("failing", ["first", "last"])
def test_a_full_disk_in_the_background_write_is_a_located_message_too(case, capsys, monkeypatch, failing):
    """The results' blocks are written from a second thread while the work goes on; the disk filling up at the
    first block (seen at the next one) or at the last (seen when the writer closes) is the same message."""
    from concurrent.futures import ThreadPoolExecutor

    from thermocomp.io import results_csv

    calls = []

    class Full(ThreadPoolExecutor):
        def submit(self, fn, *args):
            calls.append(1)
            if failing == "first" and len(calls) == 1 or failing == "last":
                def fn(*_):
                    raise OSError(errno.ENOSPC, "No space left on device")
            return super().submit(fn, *args)

    monkeypatch.setattr(results_csv, "ThreadPoolExecutor", Full)
    (case / "o.csv").write_text("earlier\n")
    refused(case, capsys, [*COMPENSATE, "--out", "o.csv"], EXIT_INPUT, "--out o.csv", "No space left on device")
    assert calls


def test_a_failed_rename_restores_the_earlier_outputs(case, capsys, monkeypatch):
    (case / "o.csv").write_text("earlier results\n")
    (case / "p.png").write_bytes(b"earlier plot")
    real = os.replace

    def refuse_plot(src, dst):  # as an immutable p.png refuses
        if Path(dst).name == "p.png":
            raise PermissionError(errno.EPERM, "Operation not permitted")
        return real(src, dst)

    monkeypatch.setattr(os, "replace", refuse_plot)
    refused(case, capsys, [*COMPENSATE, "--out", "o.csv", "--plot", "p.png"], EXIT_INPUT, "--plot p.png",
            "Operation not permitted")


def test_a_250_character_output_name_works(case, capsys):
    name = "o" * 246 + ".csv"
    code, out, err = run_cli(capsys, [*COMPENSATE, "--out", name])
    assert code == EXIT_OK, err
    assert (case / name).read_text().startswith("minute,target,status") and f"wrote {name}" in out
    assert not list(case.glob(f"{TEMPORARY_PREFIX}*"))


# --- 3. sizes bounded and checked up front, naming the option -----------------------------------------------


@pytest.mark.parametrize(("extra", "code", "words"), [
    (["--minutes", "0:inf"], EXIT_USAGE, ["--minutes", "finite"]),
    (["--minutes", "0:1e12"], EXIT_USAGE, ["--minutes", "at most 1,000,000"]),
    (["--minutes", "6_41"], EXIT_USAGE, ["--minutes"]),
    (["--starts", "10000000"], EXIT_USAGE, ["--starts", "to 10000"]),
    (["--seed", "-1"], EXIT_USAGE, ["--seed", "expected a seed >= 0"]),
    (["--position-tol-mm", "nan"], EXIT_USAGE, ["--position-tol-mm"]),
    # looser than the deformation: every uncompensated row would read "converged"
    (["--position-tol-mm", "1e308"], EXIT_USAGE, ["--position-tol-mm", "at most 1 mm"]),
    (["--orientation-tol-deg", "5"], EXIT_USAGE, ["--orientation-tol-deg", "at most 1 deg"]),
    (["--stabilisation-min", "inf"], EXIT_USAGE, ["--stabilisation-min"]),
    (["--starts", "6_41"], EXIT_USAGE, ["--starts", "invalid int value: '6_41'"]),
    (["--stabilisation-min", "\u0663"], EXIT_USAGE, ["--stabilisation-min"]),
    (["--bogus"], EXIT_USAGE, ["unrecognized arguments"]),
])
def test_option_values_are_bounded_and_usage_errors_have_their_own_status(case, capsys, extra, code, words):
    argv = [a for a in COMPENSATE if a != "--static"] if "--stabilisation-min" in extra else COMPENSATE
    refused(case, capsys, [*argv, "--out", "o.csv", *extra], code, *words)


def test_rows_times_minutes_are_bounded(case, capsys):
    from thermocomp.compensation.compensate import MAX_ROWS

    many = TARGETS_HEADER + "".join(f"P{k},641,{k % 100},473,0,90,0\n" for k in range(200))
    (case / "many.csv").write_text(many)
    minutes = MAX_ROWS // 200 + 1
    refused(case, capsys, ["compensate", "--deformation", "d.csv", "--targets", "many.csv", "--out", "o.csv",
                           "--minutes", f"0:{minutes - 1}"], EXIT_INPUT, "--minutes", "rows")


def test_sizes_of_other_commands(case, capsys):
    refused(case, capsys, ["coppeliasim", "convention", "--deformation", "d.csv", "--configurations", "1000000000"],
            EXIT_USAGE, "--configurations", "to 100000")
    refused(case, capsys, ["coppeliasim", "convention", "--deformation", "d.csv", "--seed", "-1"], EXIT_USAGE, "--seed")
    refused(case, capsys, ["track", "--deformation", "d.csv", "--out", "m.csv", "--seed", "-1"], EXIT_USAGE, "--seed")
    calibrate = ["calibrate", "--measurements", "t.csv", "--out", "c.csv", "--report", "r.txt", "--suggest"]
    refused(case, capsys, [*calibrate, "5", "--candidates", "1000000000"], EXIT_USAGE, "--candidates", "to 100000")
    refused(case, capsys, [*calibrate, "1000000000"], EXIT_USAGE, "--suggest", "to 10000")
    refused(case, capsys, [*calibrate, "500", "--candidates", "300"], EXIT_INPUT, "--suggest", "at most --candidates")
    # both within their ranges, but 10,000 greedy steps over 100,000 candidates ran for hours
    refused(case, capsys, [*calibrate, "10000", "--candidates", "100000"], EXIT_INPUT, "--suggest and --candidates",
            "10,000 x 100,000")
    refused(case, capsys, ["track", "--deformation", "d.csv", "--out", "m.csv", "--noise-mm", "nan"], EXIT_USAGE,
            "--noise-mm")
    # a campaign's poses and measurements: --poses 10000000 grew past 3 GB in two minutes (issue 9 follow-up run)
    refused(case, capsys, ["track", "--deformation", "d.csv", "--out", "m.csv", "--poses", "10000000"], EXIT_USAGE,
            "--poses", "to 1000000")
    refused(case, capsys, ["track", "--deformation", "d.csv", "--out", "m.csv", "--poses", "30", "--minutes",
                           "0:99999"], EXIT_INPUT, "--per-minute x --minutes", "3,000,000 measurements")
    refused(case, capsys, ["sim", "--robot", "irb140", "--no-scene", "--deformation", "d.csv", "--targets", "t.csv",
                           "--screenshot", "s.png", "--size", "100000", "100000"], EXIT_USAGE, "--size")
    refused(case, capsys, ["robot", "export", "irb140", "--deformation", "d.csv", "--fraction", "nan", "--out",
                           "r.urdf"], EXIT_USAGE, "--fraction")


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
@pytest.mark.parametrize("argv", [
    [*COMPENSATE[:COMPENSATE.index("--targets")], "--targets", "/dev/zero", "--out", "o.csv"],
    ["calibrate", "--measurements", "/dev/zero", "--out", "c.csv", "--report", "r.txt"],
    ["sim", "--robot", "irb140", "--deformation", "d.csv", "--targets", "t.csv", "--static", "--scene", "/dev/zero",
     "--screenshot", "s.png"],
])
def test_a_device_as_an_input_is_refused_before_it_is_read(case, capsys, argv):
    option = argv[argv.index("/dev/zero") - 1]
    refused(case, capsys, argv, EXIT_INPUT, f"{option} /dev/zero: expected a file to read, got a device")


def test_a_huge_joint_index_in_a_header_is_refused_at_once(case, capsys):
    (case / "q.csv").write_text("name,x_mm,y_mm,z_mm,q999999999_deg\nA,641,21,473,0\n")
    refused(case, capsys, [*COMPENSATE[:4], "q.csv", "--static", "--out", "o.csv", "--orientation-euler-xyz-deg",
                           "0", "90", "0"], EXIT_INPUT, "q.csv, line 1, column 'q999999999_deg'")


# --- 4. located messages for what a reader cannot take --------------------------------------------------------


@pytest.mark.parametrize(("text", "where"), [
    (TARGETS_HEADER + "P1,6_41,21,473,0,90,0\n", "line 2, column 'x_mm'"),
    (TARGETS_HEADER + "P1,\u0666\u0664\u0661,21,473,0,90,0\n", "line 2, column 'x_mm'"),
])
def test_python_only_numbers_are_not_numbers(case, capsys, text, where):
    (case / "bad.csv").write_text(text)
    refused(case, capsys, [*COMPENSATE[:4], "bad.csv", "--static", "--out", "o.csv"], EXIT_INPUT, f"bad.csv, {where}")


def test_reference_angles_outside_the_limits_are_refused(case, capsys):
    header = TARGETS_HEADER.rstrip("\n") + ",q1_deg,q2_deg,q3_deg,q4_deg,q5_deg,q6_deg\n"
    (case / "ref.csv").write_text(header + "P1,641,21,473,0,90,0,0,30,10,0,50,0\nP2,536,235,281,0,90,0,900,30,10,0,50,0\n")
    refused(case, capsys, [*COMPENSATE[:4], "ref.csv", "--static", "--out", "o.csv"], EXIT_INPUT,
            "ref.csv, line 3, column 'q1_deg'", "900")


def test_a_scene_with_a_huge_number_or_a_long_file_name(case, capsys):
    cell = (REPO / "scenes" / "irb140_paper_cell.toml").read_text()
    (case / "big.toml").write_text(cell.replace("size_mm = [1400", "size_mm = [" + "9" * 400, 1))
    (case / "long.toml").write_text(cell.replace('model = "irb140"', 'model = "' + "r" * 300 + '.urdf"', 1))
    for scene, words in (("big.toml", ["big.toml, line", "size_mm"]), ("long.toml", ["long.toml, line", "model"])):
        refused(case, capsys, ["sim", "--scene", scene, "--deformation", "d.csv", "--targets", "t.csv", "--static",
                               "--headless", "--out", "m.csv"], EXIT_INPUT, *words)


def play_args(server, results: str) -> list[str]:
    return ["coppeliasim", "play", "--host", "127.0.0.1", "--port", server.port, "--timeout-s", "2",
            "--robot-path", "/IRB140", "--tip", "/IRB140/tip", "--results", results, "--dwell-s", "0"]


RESULTS_HEADER = "minute,target,status,near_singular,q1_deg,q2_deg,q3_deg,q4_deg,q5_deg,q6_deg\n"


@pytest.mark.parametrize(("content", "words"), [
    (None, ["missing.csv", "file not found"]),
    ("dir", ["dir.csv", "directory"]),
    (RESULTS_HEADER.encode() + b"0,P1,converged,0,1,2,3,4,\xff,6\n", ["line 2", "UTF-8"]),
    (RESULTS_HEADER.encode() + b"0,P1,converged,0,1,2,3\n", ["line 2", "cells"]),
    (RESULTS_HEADER.encode() + b"0,P1,converged,0,nan,2,3,4,5,6\n", ["line 2", "q1_deg"]),
    (RESULTS_HEADER.encode() + b"0,P1,converged,0,1e300,2,3,4,5,6\n", ["line 2", "q1_deg"]),
    (RESULTS_HEADER.encode() + b"0,P1,converged,0,900,2,3,4,5,6\n", ["line 2", "q1_deg", "limits"]),
])
def test_play_refuses_results_it_cannot_send(case, capsys, fake_irb140, content, words):
    name = "missing.csv" if content is None else "dir.csv" if content == "dir" else "r.csv"
    if content == "dir":
        (case / name).mkdir()
    elif content is not None:
        (case / name).write_bytes(content)
    before = [(h, o.position) for h, o in sorted(fake_irb140.scene.objects.items())]
    refused(case, capsys, play_args(fake_irb140, name), EXIT_INPUT, *words)
    assert [(h, o.position) for h, o in sorted(fake_irb140.scene.objects.items())] == before  # nothing was sent


def test_inertia_reads_a_latin1_ascii_stl_and_a_flat_mesh_with_convex_hull(case, capsys):
    """trimesh's undeclared imports (charset-normalizer, networkx) are declared: a result, not a traceback."""
    import trimesh

    folder = case / "meshes"
    folder.mkdir()
    for name in ("base", *(f"link{k}" for k in range(1, 7))):
        trimesh.creation.box(extents=(0.05, 0.05, 0.05)).export(folder / f"{name}.stl", file_type="stl_ascii")
    text = (folder / "link5.stl").read_bytes().replace(b"solid", b"solid caf\xe9", 1)  # read before link6
    (folder / "link5.stl").write_bytes(text)
    flat = trimesh.Trimesh(vertices=[[0, 0, 0], [0.1, 0, 0], [0, 0.1, 0], [0.1, 0.1, 0]], faces=[[0, 1, 2], [1, 3, 2]])
    flat.export(folder / "link6.stl")
    refused(case, capsys, ["inertia", "--robot", "irb140", "--meshes", folder, "--units", "m", "--total-mass", "98",
                           "--fallback", "convex_hull"], EXIT_INPUT, "link6.stl", "encloses volume")
    (folder / "link6.stl").write_bytes((folder / "link4.stl").read_bytes())
    code, out, err = run_cli(capsys, ["inertia", "--robot", "irb140", "--meshes", folder, "--units", "m",
                                      "--total-mass", "98", "--fallback", "convex_hull"])
    assert code == EXIT_OK and "Traceback" not in err, err
    assert "link5" in out


# --- 5. what is written is what was checked -------------------------------------------------------------------


def test_rows_reported_converged_reach_their_targets_with_the_angles_as_written(case, capsys):
    """At a tolerance of 1e-12 m the 12th digit of an angle in degrees matters (a 1 km deformation does the
    same at 1e-9 m): every row the file calls converged must reach its target with the file's own angles."""
    import csv

    from thermocomp.deformation.apply import deformed_model
    from thermocomp.io.deformation_csv import read_deformation_csv
    from thermocomp.io.robots import load_robot
    from thermocomp.io.targets_csv import read_targets_csv
    from thermocomp.kinematics.fk import fk
    from thermocomp.kinematics.ik import pose_error

    targets = REPO / "examples" / "targets_random50.csv"
    tol_m = 1e-12
    code, out, err = run_cli(capsys, ["compensate", "--deformation", "d.csv", "--targets", targets, "--static",
                                      "--position-tol-mm", tol_m * 1e3, "--orientation-tol-deg", np.degrees(tol_m),
                                      "--allow-failures", "--out", "o.csv"])
    assert code == EXIT_OK, err
    with (case / "o.csv").open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    converged = [r for r in rows if r["status"] == "converged"]
    assert f"{len(converged)} converged" in out
    assert 0 < len(converged) < len(rows)  # the written precision cannot carry every row at this tolerance
    chain = load_robot("irb140")
    model = deformed_model(chain, read_deformation_csv(case / "d.csv", n_joints=6), 1.0)
    program = read_targets_csv(targets, n_joints=6)
    index = [program.names.index(r["target"]) for r in converged]
    q_file = np.radians([[float(r[f"q{j}_deg"]) for j in range(1, 7)] for r in converged])
    R_file, p_file = fk(model, q_file)
    miss = pose_error(program.R_world_tcp[index], program.p_world_tcp[index], R_file, p_file)
    assert np.linalg.norm(miss[:, :3], axis=1).max() <= tol_m
    assert np.linalg.norm(miss[:, 3:], axis=1).max() <= tol_m


# --- 6. interrupted runs leave nothing (subprocess: real signals) -----------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("signame", ["SIGTERM", "SIGHUP", "SIGQUIT"])
def test_sim_killed_mid_run_leaves_nothing(tmp_path, signame):
    """sim --headless under kill / a closed terminal: exit 130, no output, no temporary, no work folder."""
    work = tmp_path / "tmp"
    work.mkdir()
    (tmp_path / "m.csv").write_text("earlier measurement\n")
    targets = REPO / "examples" / "targets_random50.csv"
    env = {**os.environ, "TMPDIR": str(work)}
    proc = subprocess.Popen([sys.executable, "-m", "thermocomp", "sim", "--robot", "irb140", "--no-scene",
                             "--deformation", str(EXAGGERATED), "--targets", str(targets), "--minutes", "0:2000",
                             "--stabilisation-min", "2000", "--headless", "--out", str(tmp_path / "m.csv")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path)
    deadline = time.monotonic() + 120
    # Signal once the measurement has begun (files in the work folder): every module is imported by then
    # (a signal inside Python's import machinery is swallowed by the interpreter, whatever a program does).
    while time.monotonic() < deadline and proc.poll() is None and not any(p.is_file() for p in work.rglob("*")):
        time.sleep(0.05)
    proc.send_signal(getattr(signal, signame))
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == EXIT_INTERRUPTED, err
    assert "Traceback" not in err
    assert list(work.iterdir()) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.csv", "tmp"]
    assert (tmp_path / "m.csv").read_text() == "earlier measurement\n"


def test_program_outputs_go_through_the_same_checks_and_the_plot_with_them(case, capsys):
    """compensate --program: the plot is one of the outputs written all or none, never an input."""
    (case / "p.mod").write_bytes((REPO / "examples" / "rapid_program.mod").read_bytes())
    program = ["compensate", "--program", "p.mod", "--deformation", "d.csv", "--static"]
    refused(case, capsys, [*program, "--out", "o.mod", "--plot", "p.mod"], EXIT_INPUT, "overwrite the input")
    refused(case, capsys, [*program, "--out", "o.mod", "--plot", "nodir/p.png"], EXIT_INPUT, "folder does not exist")
    code, out, err = run_cli(capsys, [*program, "--out", "o.mod", "--plot", "p.png"])
    assert code == EXIT_OK, err
    assert (case / "o.mod").is_file() and (case / "p.png").read_bytes().startswith(b"\x89PNG") and "wrote p.png" in out


@pytest.mark.parametrize("value", ["1e300", "-2e12"])
def test_numbers_no_robot_quantity_reaches_are_located(case, capsys, value):
    """1e300 in a cell passed as finite, then overflowed (NaN torques, an SVD that did not converge)."""
    from thermocomp.io.recording_csv import read_recording_csv

    rows = EXAGGERATED.read_text().splitlines()
    header = next(i for i, r in enumerate(rows) if r.startswith("row,") or r.startswith("Dx"))
    cells = rows[header + 2].split(",")
    cells[-1] = value
    rows[header + 2] = ",".join(cells)
    (case / "d.csv").write_text("\n".join(rows) + "\n")
    refused(case, capsys, [*COMPENSATE, "--out", "o.csv"], EXIT_INPUT, f"d.csv, line {header + 3}, column 'Doz'",
            "magnitude at most 1e+12")
    (case / "rec.csv").write_text(f"time_s,q1_rad,tau1_Nm\n0,0,0\n0.1,{value},0\n0.2,0,0\n")
    with pytest.raises(InputError, match=r"rec\.csv, line 3, column 'q1_rad'.*magnitude"):
        read_recording_csv(case / "rec.csv")


def test_a_robot_file_naming_two_joints_alike_is_located(tmp_path, capsys, monkeypatch):
    """A robot CSV whose joints 2 and 5 share a name: file, line and column 'name', exit 1, nothing written
    (the chain's own check had no file to name; found by the fuzz test of the robot reader)."""
    case = tmp_path / "case"
    case.mkdir()
    lines = (REPO / "robots" / "irb140" / "chain.csv").read_text().splitlines()
    header_at = next(i for i, line in enumerate(lines) if line.startswith("row,"))
    header = lines[header_at].split(",")
    row5 = header_at + 1 + 5  # after the base row: joint rows 1..6
    cells = lines[row5].split(",")
    cells[header.index("name")] = lines[header_at + 1 + 2].split(",")[header.index("name")]
    lines[row5] = ",".join(cells)
    (case / "robot.csv").write_text("\n".join(lines) + "\n")
    (case / "d.csv").write_bytes(EXAGGERATED.read_bytes())
    (case / "t.csv").write_text(TARGETS)
    monkeypatch.chdir(case)
    err = refused(case, capsys, [*COMPENSATE, "--robot", "robot.csv", "--out", "o.csv"], EXIT_INPUT, "robot.csv",
                  f"line {row5 + 1}", "'name'")
    assert "already the name of joint 2" in err


def test_a_dh_table_whose_limits_leave_out_home_names_its_file(tmp_path, capsys, monkeypatch):
    """A DH table whose joint 1 limits exclude the home angle 0: exit 1 naming the file (found by the fuzz test
    of the DH reader: the chain's own check had no file to name)."""
    case = tmp_path / "case"
    case.mkdir()
    (case / "ur5_dh.csv").write_text("joint,a_mm,alpha_deg,d_mm,theta_offset_deg,lower_deg,upper_deg\n"
                                     "1,0,90,89.159,0,-360,-1\n2,-425,0,0,0,-360,360\n3,-392.25,0,0,0,-360,360\n"
                                     "4,0,90,109.15,0,-360,360\n5,0,-90,94.65,0,-360,360\n6,0,0,82.3,0,-360,360\n")
    (case / "d.csv").write_bytes(EXAGGERATED.read_bytes())
    (case / "t.csv").write_text(TARGETS)
    monkeypatch.chdir(case)
    refused(case, capsys, [*COMPENSATE, "--robot", "ur5_dh.csv", "--out", "o.csv"], EXIT_INPUT, "ur5_dh.csv",
            "home angle")


@pytest.mark.parametrize("body", [
    '<xacro:include filename="s.xacro"/>',                                             # includes itself
    '<xacro:macro name="m" params=""><xacro:m/></xacro:macro><xacro:m/>',              # calls itself
])
def test_a_xacro_that_recurses_forever_is_a_message_not_a_traceback(case, capsys, body):
    """Found by the issue 9 follow-up adversarial run: xacro's RecursionError came out as a traceback."""
    pytest.importorskip("xacro", reason="xacro is a dependency of thermocomp (pip install -e .)")
    (case / "s.xacro").write_text(f'<robot xmlns:xacro="http://www.ros.org/wiki/xacro" name="s">{body}</robot>')
    refused(case, capsys, ["robot", "show", "s.xacro"], EXIT_INPUT, "s.xacro", "unbounded recursion")
