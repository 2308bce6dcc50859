"""The command line through its real entry points: results, bad input, failures, interruption.

Every bad input must give a message naming what is wrong (file, line, column
where there is one), a non-zero exit, and no output file.
"""

from __future__ import annotations

import csv
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import REPO

from thermocomp.cli.main import EXIT_FAILED_ROWS, EXIT_INPUT, EXIT_INTERRUPTED, EXIT_OK, main

TARGETS = REPO / "examples" / "targets_random50.csv"
EXAGGERATED = REPO / "deformations" / "exaggerated.csv"


def run(args, tmp_path, capsys):
    out = tmp_path / "out.csv"
    code = main(["compensate", *args, "--out", str(out)])
    captured = capsys.readouterr()
    return code, out, captured.out, captured.err


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def read_results(path):
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def test_static_case_writes_every_row_within_bounds(tmp_path, capsys):
    code, out, stdout, _ = run(["--deformation", str(EXAGGERATED), "--targets", str(TARGETS), "--static"], tmp_path, capsys)
    assert code == EXIT_OK
    rows = read_results(out)
    assert len(rows) == 50 and {r["status"] for r in rows} == {"converged"}
    assert max(float(r["dev_pos_mm"]) for r in rows) <= 1e-6
    assert max(float(r["dev_angle_deg"]) for r in rows) <= 1e-6
    assert min(float(r["uncomp_dev_pos_mm"]) for r in rows) > 1.0  # the uncompensated robot misses by mm
    assert "10,050" not in stdout and "50 rows" in stdout


def test_minutes_option_and_time_law(tmp_path, capsys):
    code, out, _, _ = run(["--deformation", str(EXAGGERATED), "--targets", str(TARGETS), "--minutes", "0:100:50",
                           "--stabilisation-min", "100"], tmp_path, capsys)
    assert code == EXIT_OK
    rows = read_results(out)
    assert [r["minute"] for r in rows[::50]] == ["0", "50", "100"]
    # minute 0: cold robot, the corrected angles are the program's own
    assert all(abs(float(r["q1_deg"]) - float(r["nominal_q1_deg"])) < 1e-9 for r in rows[:50])


def test_position_only_targets_need_an_orientation(tmp_path, capsys):
    cube = write(tmp_path, "cube.csv", ",X,Y,Z\nP1,400,100,400\nP2,450,0,450\n")
    code, out, _, err = run(["--deformation", str(EXAGGERATED), "--targets", str(cube), "--static"], tmp_path, capsys)
    assert code == EXIT_INPUT and not out.exists()
    assert "cube.csv" in err and "orientation" in err
    code, out, _, _ = run(["--deformation", str(EXAGGERATED), "--targets", str(cube), "--static",
                           "--orientation-euler-xyz-deg", "0", "90", "0"], tmp_path, capsys)
    assert code == EXIT_OK and len(read_results(out)) == 2


@pytest.mark.parametrize(
    "targets_text, expected",
    [
        (",X,Y,Z,RX,RY\nP1,400,0,400,0,90\n", ["targets.csv", "RX"]),
        (",X,Y,Z,RX,RY,RZ,EXTRA\nP1,400,0,400,0,90,0,1\n", ["targets.csv", "EXTRA"]),
        (",X,Y,Z,RX,RY,RZ\nP1,400,abc,400,0,90,0\n", ["targets.csv", "line 2", "'Y'", "abc"]),
        (",X,Y,Z,RX,RY,RZ\nP1,400,0,400,0,90,0\nP2,nan,0,400,0,90,0\n", ["targets.csv", "line 3", "'X'"]),
        (",X,Y,Z,RX,RY,RZ\nP1,400,0,inf,0,90,0\n", ["targets.csv", "line 2", "'Z'"]),
        (",X,Y,Z,RX,RY,RZ\nP1,400,0,400,0,90,0\nP1,410,0,400,0,90,0\n", ["targets.csv", "line 3", "P1"]),
        ("", ["targets.csv", "empty"]),
        (",X,Y,Z,RX,RY,RZ\n", ["targets.csv"]),
    ],
    ids=["missing-column", "extra-column", "not-a-number", "nan", "infinity", "duplicate-name", "empty", "header-only"],
)
def test_bad_targets(tmp_path, capsys, targets_text, expected):
    targets = write(tmp_path, "targets.csv", targets_text)
    code, out, _, err = run(["--deformation", str(EXAGGERATED), "--targets", str(targets)], tmp_path, capsys)
    assert code == EXIT_INPUT, err
    assert not out.exists()
    for word in expected:
        assert word in err, f"{word!r} not in {err!r}"


@pytest.mark.parametrize(
    "table_text, expected",
    [
        ("Dx,Dy,Dz,Dox,Doy,Doz\n" + "1,1,1,1,1,1\n" * 5, ["deformation.csv", "6", "5"]),
        ("Dx,Dy,Dz,Dox,Doy\n" + "1,1,1,1,1\n" * 6, ["deformation.csv", "Doz"]),
        ("Dx,Dy,Dz,Dox,Doy,Doz\n" + "1,1,1,1,1,1\n" * 3 + "1,x,1,1,1,1\n" + "1,1,1,1,1,1\n" * 2,
         ["deformation.csv", "line 5", "'Dy'"]),
    ],
    ids=["wrong-row-count", "missing-column", "not-a-number"],
)
def test_bad_deformation_tables(tmp_path, capsys, table_text, expected):
    table = write(tmp_path, "deformation.csv", table_text)
    code, out, _, err = run(["--deformation", str(table), "--targets", str(TARGETS)], tmp_path, capsys)
    assert code == EXIT_INPUT and not out.exists()
    for word in expected:
        assert word in err, f"{word!r} not in {err!r}"


def test_output_that_cannot_be_written(tmp_path, capsys):
    code = main(["compensate", "--deformation", str(EXAGGERATED), "--targets", str(TARGETS), "--static",
                 "--out", str(tmp_path / "no" / "such" / "folder" / "out.csv")])
    err = capsys.readouterr().err
    assert code == EXIT_INPUT and "folder does not exist" in err


def test_output_may_not_overwrite_an_input(tmp_path, capsys):
    copy = write(tmp_path, "targets.csv", TARGETS.read_text())
    before = copy.read_text()
    code = main(["compensate", "--deformation", str(EXAGGERATED), "--targets", str(copy), "--static", "--out", str(copy)])
    assert code == EXIT_INPUT and "overwrite" in capsys.readouterr().err
    assert copy.read_text() == before


def _with_unreachable(tmp_path):
    lines = TARGETS.read_text().splitlines()
    header_at = next(i for i, line in enumerate(lines) if line.startswith("name,"))
    lines[header_at + 4] = "P4,2000,0,400,0,90,0"  # 2 m out: beyond the IRB140's reach
    return write(tmp_path, "targets.csv", "\n".join(lines) + "\n")


def test_unreachable_target_fails_the_run_without_output(tmp_path, capsys):
    targets = _with_unreachable(tmp_path)
    code, out, _, err = run(["--deformation", str(EXAGGERATED), "--targets", str(targets), "--static"], tmp_path, capsys)
    assert code == EXIT_FAILED_ROWS and not out.exists()
    assert "P4" in err and "unreachable" in err and "--allow-failures" in err


def test_unreachable_target_is_reported_in_its_row_when_allowed(tmp_path, capsys):
    targets = _with_unreachable(tmp_path)
    code, out, _, _ = run(["--deformation", str(EXAGGERATED), "--targets", str(targets), "--static", "--allow-failures"],
                          tmp_path, capsys)
    assert code == EXIT_OK
    rows = read_results(out)
    bad = [r for r in rows if r["target"] == "P4"]
    assert len(bad) == 1 and bad[0]["status"] == "unreachable" and bad[0]["q1_deg"] == ""
    good = [r for r in rows if r["target"] != "P4"]
    assert len(good) == 49 and all(r["status"] == "converged" for r in good)


@pytest.mark.slow
def test_results_written_in_small_format_blocks_are_the_same_file(tmp_path, capsys, monkeypatch):
    """Formatting a chunk block by block (failed rows included) gives the bytes of one block."""
    from thermocomp.io import results_csv

    targets = _with_unreachable(tmp_path)
    args = ["--deformation", str(EXAGGERATED), "--targets", str(targets), "--minutes", "0,100,200", "--allow-failures"]
    code, out, _, _ = run(args, tmp_path, capsys)
    assert code == EXIT_OK
    whole = out.read_bytes()
    monkeypatch.setattr(results_csv, "FORMAT_BLOCK_ROWS", 7)
    code, out, _, _ = run(args, tmp_path, capsys)
    assert code == EXIT_OK
    assert out.read_bytes() == whole and whole.count(b"unreachable") == 3


def test_wrist_singular_target_is_solved_and_flagged(tmp_path, capsys):
    """At the IRB140's home pose joints 4 and 6 align (joint 5 at 0): a wrist singularity."""
    targets = write(tmp_path, "targets.csv",
                    "name,x_mm,y_mm,z_mm,euler_xyz_a_deg,euler_xyz_b_deg,euler_xyz_c_deg,q1_deg,q2_deg,q3_deg,q4_deg,q5_deg,q6_deg\n"
                    "home,515,0,712,0,90,0,0,0,0,0,0,0\n")
    code, out, stdout, _ = run(["--deformation", str(REPO / "deformations" / "zero.csv"), "--targets", str(targets),
                                "--static"], tmp_path, capsys)
    assert code == EXIT_OK
    row = read_results(out)[0]
    assert row["status"] == "converged" and row["near_singular"] == "1"
    assert "1 near a singularity" in stdout


def test_help_names_every_option_with_units(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["compensate", "--help"])
    assert exc.value.code == 0
    text = capsys.readouterr().out
    for word in ["--robot", "--deformation", "--targets", "--out", "--static", "--stabilisation-min", "--minutes",
                 "--orientation-euler-xyz-deg", "--allow-failures", "mm", "deg"]:
        assert word in text


@pytest.mark.parametrize("command", [["compensate"], ["robot", "export"], ["inertia"], ["sim"],
                                     ["coppeliasim", "compensate"], ["coppeliasim", "show"]])
def test_help_states_defaults_once_and_only_real_ones(capsys, command):
    with pytest.raises(SystemExit) as exc:
        main([*command, "--help"])
    assert exc.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "(default: None)" not in text
    assert not re.search(r"\(default:[^)]*\) \(default:", text)


@pytest.mark.slow
def test_console_script_entry_point(tmp_path):
    out = tmp_path / "out.csv"
    exe = Path(sys.executable).with_name("thermocomp")
    proc = subprocess.run([str(exe), "compensate", "--deformation", str(EXAGGERATED), "--targets", str(TARGETS),
                           "--minutes", "0,200", "--out", str(out)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert len(read_results(out)) == 100


@pytest.mark.slow
@pytest.mark.parametrize("signame", ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"])
def test_interrupted_run_leaves_no_output(tmp_path, signame):
    """Ctrl-C (SIGINT), kill (SIGTERM) or a closed terminal (SIGHUP) during a long run: exit 130, the earlier
    results and plot byte for byte, no temporary file."""
    from thermocomp.io.job import TEMPORARY_PREFIX

    out, plot = tmp_path / "out.csv", tmp_path / "plot.png"
    out.write_text("earlier results\n")
    plot.write_bytes(b"earlier plot")
    proc = subprocess.Popen(
        [sys.executable, "-m", "thermocomp", "compensate", "--deformation", str(EXAGGERATED), "--targets", str(TARGETS),
         "--minutes", "0:20000", "--stabilisation-min", "20000", "--out", str(out), "--plot", str(plot)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        # a test run started in the background inherits an ignored SIGINT; the user's shell gives the default
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 60
    # wait until the run is writing (its temporary file exists), then interrupt
    while time.monotonic() < deadline and not any(p.name.startswith(TEMPORARY_PREFIX) for p in tmp_path.iterdir()):
        time.sleep(0.05)
    proc.send_signal(getattr(signal, signame))
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == EXIT_INTERRUPTED, err
    assert "interrupted" in err and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv", "plot.png"]
    assert out.read_text() == "earlier results\n" and plot.read_bytes() == b"earlier plot"


def test_an_interrupted_run_ends_without_finalizers():
    """An interrupt that lands in native code (numba's compiler, llvmlite, OpenMP threads) can leave objects whose
    finalizers crash as Python exits: a CI run printed "interrupted" and then died of SIGSEGV (exit -11, not
    130). Here an exit handler that crashes stands for such a finalizer: an interrupted run must not reach it,
    and its last words must still be out; a run that ends otherwise finalizes as usual."""
    code = "\n".join([
        "import atexit, importlib, os, signal, sys",
        "cli = importlib.import_module('thermocomp.cli.main')  # the package's attribute 'main' is the function",
        "atexit.register(lambda: os.kill(os.getpid(), signal.SIGSEGV))",
        "cli.main = lambda: (print('last words', end=''), int(sys.argv[1]))[1]",
        "cli.run()",
    ])
    interrupted = subprocess.run([sys.executable, "-c", code, str(EXIT_INTERRUPTED)], capture_output=True, text=True,
                                 timeout=120)
    assert (interrupted.returncode, interrupted.stdout) == (EXIT_INTERRUPTED, "last words")
    finished = subprocess.run([sys.executable, "-c", code, str(EXIT_OK)], capture_output=True, text=True, timeout=120)
    assert finished.returncode == -signal.SIGSEGV  # the handler does run on other exits: the check above can fail


@pytest.mark.slow
@pytest.mark.parametrize("module", ["numpy", "numba", "thermocomp.app.targets", "datetime"])
@pytest.mark.parametrize("signame", ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"])
def test_a_signal_while_the_program_loads_exits_130_without_a_traceback(tmp_path, module, signame):
    """The first second of a run is spent importing numpy, numba and the commands: a signal there (sent, to be
    sure of the moment, as that import starts) ends the run as later: 130, one line, nothing written.
    ``datetime``: numpy's C core imports it and wraps the interrupt in an ImportError ("PyCapsule_Import could
    not import module datetime"), which came out as a traceback and exit 1 (issue 9 follow-up adversarial run)."""
    _assert_interrupted_while_loading(tmp_path, module, signame, ["from thermocomp.cli.main import run", "run()"])


@pytest.mark.parametrize("module", ["thermocomp.cli.main", "thermocomp.errors", "argparse"])
@pytest.mark.parametrize("signame", ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"])
def test_a_signal_before_the_command_line_has_loaded_exits_130_without_a_traceback(tmp_path, module, signame):
    """The console script imports the command line before its handlers exist: Ctrl-C there printed Python's
    KeyboardInterrupt traceback and SIGTERM ended the process killed by the signal (issue 9's adversarial run).
    The script is loaded as pip's wrapper loads it (the installed entry point), the signal sent as the module
    named starts loading."""
    _assert_interrupted_while_loading(tmp_path, module, signame, [
        "from importlib.metadata import entry_points",
        "(script,) = entry_points(group='console_scripts', name='thermocomp')",
        "script.load()()",
    ])


def _assert_interrupted_while_loading(tmp_path, module: str, signame: str, start: list[str]) -> None:
    """Run compensate by the lines ``start``, sending ``signame`` as ``module`` starts loading: exit 130, one line,
    no traceback, the earlier output as it was."""
    out = tmp_path / "out.csv"
    out.write_text("earlier results\n")
    code = "\n".join([
        "import os, signal, sys",
        "def hook(event, args):",
        f"    if event == 'import' and args[0] == {module!r} and not sent:",
        "        sent.append(True)",
        f"        os.kill(os.getpid(), signal.{signame})",
        "sent = []",
        "sys.addaudithook(hook)",
        f"sys.argv = ['thermocomp', 'compensate', '--deformation', {str(EXAGGERATED)!r}, '--targets', "
        f"{str(TARGETS)!r}, '--out', {str(out)!r}]",
        *start,
    ])
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert proc.returncode == EXIT_INTERRUPTED, proc.stderr
    assert "interrupted" in proc.stderr and "Traceback" not in proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv"] and out.read_text() == "earlier results\n"


def test_the_console_scripts_early_exit_ends_once_the_run_has_started():
    """After the run's own block (its outcome decided, outputs committed), a signal must not end it "interrupted;
    no output was written" through the console script's early handler."""
    code = "\n".join([
        "import importlib, os, signal",
        "import thermocomp._console as console",
        "from thermocomp._signals import interrupt_on_termination",
        "cli = importlib.import_module('thermocomp.cli.main')",
        "def finished():",
        "    with interrupt_on_termination():",
        "        pass",
        "    os.kill(os.getpid(), signal.SIGINT)",
        "    print('finished', end='')",
        "    return 0",
        "cli.main = finished",
        "console.run()",
    ])
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert (proc.returncode, proc.stdout) == (EXIT_OK, "finished"), proc.stderr
    assert "interrupted" not in proc.stderr


def test_the_early_exit_status_is_the_interrupted_status():
    from thermocomp import _signals

    assert _signals._EXIT_INTERRUPTED == EXIT_INTERRUPTED


@pytest.mark.slow
@pytest.mark.parametrize("signame", ["SIGINT", "SIGTERM"])
def test_a_signal_after_the_outputs_are_written_keeps_the_exit_status(tmp_path, signame):
    """A signal while the interpreter exits (sent here from an atexit hook) ended a finished run as killed by
    the signal, with its outputs written (issue 9 follow-up adversarial run): the status stays the run's."""
    out = tmp_path / "out.csv"
    code = "\n".join([
        "import atexit, os, signal, sys",
        f"atexit.register(lambda: os.kill(os.getpid(), signal.{signame}))",
        f"sys.argv = ['thermocomp', 'compensate', '--deformation', {str(EXAGGERATED)!r}, '--targets', "
        f"{str(TARGETS)!r}, '--static', '--no-progress', '--out', {str(out)!r}]",
        "from thermocomp.cli.main import run",
        "run()",
    ])
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr and out.exists()
