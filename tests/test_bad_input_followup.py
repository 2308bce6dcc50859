"""Findings of the second fresh adversarial run of issue 9, one test per class.

Each case runs the real command line (in-process where the behaviour allows)
in a temporary folder of its own, with the checks of test_bad_input.py: the
exit status, the message naming the file or option, no traceback, every file
there before byte for byte the same, no temporary left.
"""

from __future__ import annotations

import pytest
from coppeliasim_fake.fixtures import fake_irb140  # noqa: F401  (fixture)
from helpers import simulated_robot
from test_bad_input import case, refused, run_cli, snapshot  # noqa: F401  (fixture)

from thermocomp.cli.common import EXIT_INPUT, EXIT_USAGE
from thermocomp.deformation.timelaw import LinearRamp
from thermocomp.io.timelaw_file import write_time_law

LAW_RUNS = [
    ["compensate", "--robot", "irb140", "--targets", "t.csv", "--minutes", "0:10:5"],
    ["sim", "--robot", "irb140", "--no-scene", "--targets", "t.csv", "--minutes", "0", "--headless"],
]


@pytest.mark.parametrize("argv", LAW_RUNS, ids=["compensate", "sim"])
@pytest.mark.parametrize("out", ["d.law.toml", "./d.law.toml", "d.law.toml/"])
def test_no_output_lands_on_the_time_law_file(case, capsys, argv, out):
    """--time-law from:d.csv reads d.law.toml: an input, never an output (compensate replaced it, exit 0)."""
    write_time_law(LinearRamp(120.0), case / "d.law.toml", "d.csv")
    words = ("d.law.toml", "--time-law") if not out.endswith("/") else ("d.law.toml/", "folder name")
    refused(case, capsys, [*argv, "--deformation", "d.csv", "--time-law", "from:d.csv", "--out", out], EXIT_INPUT,
            *words)


def test_no_output_of_a_scene_run_lands_on_the_time_law_file(case, capsys, fake_irb140):
    write_time_law(LinearRamp(120.0), case / "d.law.toml", "d.csv")
    refused(case, capsys, ["compensate", "--deformation", "d.csv", "--time-law", "from:d.csv", "--targets", "t.csv",
                           "--minutes", "0", "--simulator", "coppeliasim", "--coppeliasim-port", fake_irb140.port,
                           "--robot-path", "/IRB140", "--tip", "/IRB140/tip", "--out", "d.law.toml"], EXIT_INPUT,
            "--out d.law.toml", "--time-law")


def test_a_minute_the_convention_does_not_use_is_refused(case, capsys):
    """coppeliasim convention --minute: the static convention has no minute (it was ignored); none is negative."""
    base = ["coppeliasim", "convention", "--deformation", "d.csv", "--configurations", "10", "--out", "o.csv"]
    refused(case, capsys, [*base, "--static", "--minute", "5"], EXIT_INPUT, "--minute 5", "--stabilisation-min")
    refused(case, capsys, [*base, "--minute", "5"], EXIT_INPUT, "--minute 5")
    refused(case, capsys, [*base, "--stabilisation-min", "100", "--minute", "-1"], EXIT_USAGE, "--minute", "-1")


@pytest.mark.parametrize("pose", ["1000,0,0,0,0,0", "0,0,0,0,0,-500"])
def test_a_pose_outside_the_limits_is_refused_as_given(case, capsys, pose):
    """excite --experiment constant-speed --pose-deg 1000: clipped to 180, then quoted as the sweep 170 .. 190."""
    joint, value = (1, "1000") if pose.startswith("1000") else (6, "-500")
    refused(case, capsys, ["excite", "--robot", "irb140", "--experiment", "constant-speed", "--pose-deg", pose,
                           "--speeds-deg-s", "10", "--span-deg", "20", "--out", "o.csv"], EXIT_INPUT,
            "--pose-deg", f"joint {joint}", f"got {value}")


def test_a_fifo_nobody_writes_to_is_a_message_not_a_hang(case, capsys, monkeypatch):
    """A FIFO given as an input with no writer blocked the run for ever (open() waits for a writer)."""
    import os
    import threading

    from thermocomp.io import files

    monkeypatch.setattr(files, "FIFO_WAIT_S", 0.3)
    os.mkfifo(case / "fifo.csv")
    done = []
    worker = threading.Thread(target=lambda: done.append(refused(
        case, capsys, ["compensate", "--deformation", "d.csv", "--targets", "fifo.csv", "--static", "--out", "o.csv"],
        EXIT_INPUT, "fifo.csv", "FIFO")), daemon=True)
    worker.start()
    worker.join(60)
    if worker.is_alive():  # unblock the stuck open() so that the test process can end
        with open(case / "fifo.csv", "wb"):
            pass
        pytest.fail("the run waited for a writer for ever")
    assert done


def test_a_fifo_with_a_writer_is_read(case, capsys):
    """... and a FIFO whose writer starts late is still read whole (--targets <(slow_command))."""
    import os
    import threading
    import time

    os.mkfifo(case / "fifo.csv")
    targets = (case / "t.csv").read_bytes()

    def writer():
        time.sleep(0.5)
        with open(case / "fifo.csv", "wb") as handle:
            handle.write(targets[:40])
            handle.flush()
            time.sleep(0.3)
            handle.write(targets[40:])

    threading.Thread(target=writer, daemon=True).start()
    from test_bad_input import run_cli

    code, out, err = run_cli(capsys, ["compensate", "--deformation", "d.csv", "--targets", "fifo.csv", "--static",
                                      "--out", "o.csv"])
    assert code == 0, err
    assert len((case / "o.csv").read_text().splitlines()) == 3  # header and the two targets


def test_a_sweep_leaving_the_limits_names_its_options(case, capsys):
    refused(case, capsys, ["excite", "--robot", "irb140", "--experiment", "constant-speed", "--pose-deg",
                           "0,0,0,0,0,-400", "--speeds-deg-s", "10", "--span-deg", "20", "--out", "o.csv"], EXIT_INPUT,
            "joint 6", "--pose-deg", "--span-deg")


def test_option_values_out_of_range_name_their_option(case, capsys):
    """The message names the option as typed (it said 'cutoff: ...', 'poses and per_minute: ...')."""
    refused(case, capsys, ["track", "--deformation", "d.csv", "--static", "--poses", "5", "--per-minute", "1000000000",
                           "--out", "o.csv"], EXIT_USAGE, "--per-minute")
    from thermocomp.dynamics.filtering import lowpass
    from thermocomp.errors import ConfigurationError

    with pytest.raises(ConfigurationError, match="--cutoff-hz"):
        lowpass([[0.0]] * 10, 100.0, 1e300)


@pytest.mark.parametrize(("argv", "option"), [
    (["excite", "--robot", "irb140", "--range-fraction", "1e-320", "--out", "o.csv"], "--range-fraction"),
    (["excite", "--robot", "irb140", "--range-fraction", "0.001", "--out", "o.csv"], "--range-fraction"),
])
def test_a_range_fraction_too_small_for_a_design_is_refused(case, capsys, argv, option):
    """--range-fraction 1e-320 ended in an OverflowError traceback; 1e-4 designed for 9 minutes."""
    refused(case, capsys, argv, EXIT_USAGE, option)


@pytest.mark.parametrize(("argv", "option"), [
    (["excite", "--robot", "irb140", "--frequencies-hz", "0.1,0.13,0.17,0.19,\u0661\u0662,0.29", "--out", "o.csv"],
     "--frequencies-hz"),
    (["excite", "--robot", "irb140", "--experiment", "constant-speed", "--speeds-deg-s", "1_0", "--out", "o.csv"],
     "--speeds-deg-s"),
    (["excite", "--robot", "irb140", "--experiment", "constant-speed", "--pose-deg", "nan,0,0,0,0,0", "--out", "o.csv"],
     "--pose-deg"),
    (["calibrate", "--measurements", "t.csv", "--out", "o.csv", "--report", "o.txt", "--time-law", "first-order",
      "--heat-on", "\u0661:5"], "--heat-on"),
])
def test_comma_lists_and_intervals_take_plain_numbers_only(case, capsys, argv, option):
    """Other scripts' digits, 1_0 and nan in list options were read as numbers (float() takes them)."""
    from thermocomp.cli.common import EXIT_USAGE

    before = snapshot(case)
    code, _, err = run_cli(capsys, argv)
    assert code in (EXIT_INPUT, EXIT_USAGE) and option in err and "Traceback" not in err
    assert snapshot(case) == before


def test_a_cutoff_too_low_for_any_recording_is_refused_naming_it():
    """identify --cutoff-hz 1e-320: the filter's edge in samples overflowed (OverflowError traceback)."""
    from thermocomp.dynamics.filtering import edge_samples
    from thermocomp.errors import ConfigurationError

    assert edge_samples(100.0, 10.0) == 30  # EDGE_PERIODS = 3 periods of 10 Hz at 100 Hz
    with pytest.raises(ConfigurationError, match="--cutoff-hz"):
        edge_samples(100.0, 1e-320)


def test_the_authors_law_refuses_a_stabilisation_time_it_cannot_play(case, capsys):
    """coppeliasim convention --stabilisation-min 1e308 applied the script's pass once a minute for ever."""
    from thermocomp.deformation.coppeliasim_convention import MAX_AUTHORS_MINUTES, authors_deformation_table
    from thermocomp.errors import ConfigurationError
    from thermocomp.io.deformation_csv import read_deformation_csv
    from thermocomp.io.robots import load_robot

    chain = load_robot("irb140")
    table = read_deformation_csv(case / "d.csv")
    authors_deformation_table(chain, table, 5.0, LinearRamp(float(MAX_AUTHORS_MINUTES)))  # the longest it plays
    with pytest.raises(ConfigurationError, match="--stabilisation-min"):
        authors_deformation_table(chain, table, 5.0, LinearRamp(1e308))
    refused(case, capsys, ["coppeliasim", "convention", "--deformation", "d.csv", "--configurations", "10",
                           "--stabilisation-min", "1e308"], EXIT_USAGE, "--stabilisation-min")


def test_a_negative_tracker_noise_names_its_option(case, capsys):
    refused(case, capsys, ["track", "--deformation", "d.csv", "--static", "--poses", "5", "--orientation-noise-deg",
                           "-1", "--out", "o.csv"], EXIT_USAGE, "--orientation-noise-deg")


def test_a_urdf_with_cr_line_ends_simulates_as_the_same_file_with_lf(case, capsys):
    """simulate-recording --truth with CR line ends: read by thermocomp, refused by PyBullet (a traceback). PyBullet
    now loads the copy thermocomp writes of what it read, so the file is the same robot."""
    from dynamics_truth import cad_and_truth

    _, truth = cad_and_truth("irb140", case)
    (case / "cr.urdf").write_bytes(truth.read_bytes().replace(b"\n", b"\r"))
    assert run_cli(capsys, ["excite", "--robot", "irb140", "--duration-s", "3", "--rate-hz", "20",
                            "--out", "traj.csv"])[0] == 0
    for urdf in ("cr.urdf", truth.name):
        assert run_cli(capsys, ["simulate-recording", "--truth", urdf, "--trajectory", "traj.csv", "--seed", "1",
                                "--out", f"{urdf}.csv"])[0] == 0
    assert (case / "cr.urdf.csv").read_text().splitlines()[1:] == (case / f"{truth.name}.csv").read_text().splitlines()[1:]


def test_install_addon_goes_through_the_job(case, capsys):
    """install-addon: a FIFO as addOns/thermocomp.lua blocked for ever, and a user's thermocomp.lua.tmp was replaced
    and then renamed away (the fixed temporary name); both are refused or kept now."""
    import os

    addons = case / "CS" / "addOns"
    addons.mkdir(parents=True)
    (case / "CS" / "lua").mkdir()
    os.mkfifo(addons / "thermocomp.lua")
    refused(case, capsys, ["coppeliasim", "install-addon", "--coppeliasim-dir", "CS", "--force"], EXIT_INPUT,
            "--coppeliasim-dir", "FIFO")
    (addons / "thermocomp.lua").unlink()
    (addons / "thermocomp.lua.tmp").write_text("-- a user's own file\n")
    code, out, err = run_cli(capsys, ["coppeliasim", "install-addon", "--coppeliasim-dir", "CS"])
    assert code == 0, err
    assert (addons / "thermocomp.lua.tmp").read_text() == "-- a user's own file\n"
    assert sorted(p.name for p in addons.iterdir()) == ["thermocomp.lua", "thermocomp.lua.tmp"]


def test_a_log_that_fails_after_the_commit_is_a_warning(case, capsys, monkeypatch):
    """coppeliasim compensate --report on a full disk: the results were committed, then the log's last rewrite
    failed and the run exited 1 (README: exit 1 writes nothing) with the results written."""
    import errno
    import os

    from thermocomp.io import job as job_module
    from thermocomp.io.job import Job

    with Job() as job:
        job.log(case / "r.txt")
        out = job.output(case / "o.csv", "--out")
        job.check()
        job.echo("first line")
        job.write_text(out, "results\n")
        assert job.commit() == [case / "o.csv"]

        def full(src, dst):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        monkeypatch.setattr(job_module.os, "replace", full)
        job.echo("the report after the commit")
    err = capsys.readouterr().err
    assert "r.txt" in err and "warning" in err and "Traceback" not in err
    assert (case / "o.csv").read_text() == "results\n"
    assert (case / "r.txt").read_text() == "first line\n"
    assert sorted(p.name for p in case.iterdir()) == ["d.csv", "o.csv", "r.txt", "t.csv"]  # no temporary left


def _fifo_writing(path, data: bytes):
    """A FIFO at ``path`` and a thread that writes ``data`` into it once (as ``<(command)`` does)."""
    import os
    import threading

    os.mkfifo(path)

    def writer():
        with open(path, "wb") as handle:
            handle.write(data)

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    return thread


def test_a_robot_file_given_through_a_fifo_is_read_once(case, capsys):
    """excite --robot <(cat robot.urdf): read twice (chain, inertials), the second open waited 30 s for a writer."""
    from dynamics_truth import cad_and_truth

    _, truth = cad_and_truth("irb140", case)
    _fifo_writing(case / "fifo.urdf", truth.read_bytes())
    truth.unlink()
    code, _, err = run_cli(capsys, ["excite", "--robot", "fifo.urdf", "--experiment", "static", "--rate-hz", "20",
                                    "--hold-s", "1", "--seed", "1", "--out", "o.csv"])
    assert code == 0, err
    assert (case / "o.csv").stat().st_size > 0


def test_pybullet_is_never_handed_a_fifo(case, capsys):
    """simulate-recording --truth <(cat truth.urdf): PyBullet opened the drained FIFO again and waited for ever. It
    now loads a copy of what thermocomp read, so the FIFO's robot is the file's."""
    import numpy as np
    from dynamics_truth import cad_and_truth


    _, truth = cad_and_truth("irb140", case)
    _fifo_writing(case / "fifo.urdf", truth.read_bytes())
    q = np.full((1, 6), 0.3)
    with simulated_robot(case / "fifo.urdf", None) as robot, simulated_robot(truth, None) as same:
        np.testing.assert_array_equal(robot.rigid_torques(q, q, q), same.rigid_torques(q, q, q))


@pytest.mark.parametrize("out", ["new.csv/", "t.csv/"])
def test_an_output_name_ending_in_a_slash_is_refused(case, capsys, out):
    """--out new.csv/ wrote a file new.csv (Path() drops the slash); --out t.csv/ said it would overwrite t.csv."""
    refused(case, capsys, ["compensate", "--deformation", "d.csv", "--targets", "t.csv", "--static", "--out", out],
            EXIT_INPUT, f"--out {out}", "folder name")


@pytest.mark.parametrize(("argv", "label"), [
    (["compensate", "--deformation", "d.csv", "--targets", "t.csv", "--static", "--out", "-"], "--out -"),
    (["compensate", "--deformation", "d.csv", "--targets", "t.csv", "--static", "--out", "o.csv", "--plot", "-"],
     "--plot -"),
    (["compensate", "--deformation", "d.csv", "--targets", "-", "--static", "--out", "o.csv"], "--targets -"),
    (["compensate", "--deformation", "-", "--targets", "t.csv", "--static", "--out", "o.csv"], "--deformation -"),
    (["robot", "export", "irb140", "--deformation", "d.csv", "--out", "-"], "--out -"),
    (["track", "--deformation", "d.csv", "--static", "--poses", "5", "--out", "-"], "--out -"),
    (["excite", "--robot", "irb140", "--out", "-"], "--out -"),
])
def test_a_dash_is_not_taken_for_a_file_called_dash(case, capsys, argv, label):
    """--out - wrote a file named '-' (a user means standard output); --targets - looked for one. Refused by name."""
    refused(case, capsys, argv, EXIT_INPUT, label, "'-'", "name the file")


def test_a_program_of_an_unknown_language_is_named_before_its_output(case, capsys):
    """--program weld.txt --out o.mod said the output must end in .script (the language was guessed from .txt)."""
    (case / "weld.txt").write_text("MODULE M\nENDMODULE\n")
    err = refused(case, capsys, ["compensate", "--deformation", "d.csv", "--program", "weld.txt", "--static",
                                 "--out", "o.mod"], EXIT_INPUT, "weld.txt", "--program", ".mod, .modx")
    assert "output must be in the program's language" not in err


def test_more_option_values_out_of_range_name_their_option(case, capsys):
    """A third adversarial run: --threshold-nm -0 said 'threshold: ...', --speeds-deg-s 0,20 said 'speeds: ...' in
    rad/s, and a fixed orientation beside a file's orientations did not name --orientation-euler-xyz-deg."""
    from thermocomp.dynamics.collision import CollisionOptions
    from thermocomp.dynamics.friction_runs import ConstantSpeedOptions
    from thermocomp.errors import ConfigurationError

    with pytest.raises(ConfigurationError, match="--threshold-nm"):
        CollisionOptions(threshold=(-0.0,))
    with pytest.raises(ConfigurationError, match=r"--speeds-deg-s.*0, 20 deg/s"):
        ConstantSpeedOptions(speeds=(0.0, 0.3490658503988659))
    refused(case, capsys, ["excite", "--robot", "irb140", "--experiment", "constant-speed", "--speeds-deg-s", "0,20",
                           "--span-deg", "20", "--out", "o.csv"], EXIT_USAGE, "--speeds-deg-s")
    (case / "e.csv").write_text("name,x_mm,y_mm,z_mm,euler_xyz_a_deg,euler_xyz_b_deg,euler_xyz_c_deg\nP,500,0,600,0,90,0\n")
    refused(case, capsys, ["compensate", "--deformation", "d.csv", "--targets", "e.csv", "--static", "--out", "o.csv",
                           "--orientation-euler-xyz-deg", "0", "90", "0"], EXIT_INPUT, "--orientation-euler-xyz-deg")


@pytest.mark.parametrize("kind", ["long folder", "link loop"])
@pytest.mark.parametrize("option", ["--out", "--plot"])
def test_an_output_the_system_refuses_to_look_at_names_its_option(case, capsys, kind, option):
    """An output under a folder name too long for the file system, or a link that points at itself, was
    reported as 'ddd.../x.csv: File name too long' or 'loop: Too many levels of symbolic links', without the option
    (an OSError out of the job's checks, or of comparing it with another output): a third adversarial run."""
    name = "d" * 300 + "/x.png" if kind == "long folder" else "loop.png"
    if kind == "link loop":
        (case / "loop.png").symlink_to("loop.png")
    outputs = {"--out": ["--out", name.replace(".png", ".csv") if kind == "long folder" else name, "--plot", "p.png"],
               "--plot": ["--out", "o.csv", "--plot", name]}[option]
    refused(case, capsys, ["compensate", "--deformation", "d.csv", "--targets", "t.csv", "--static", *outputs],
            EXIT_INPUT, option, "cannot write")


@pytest.mark.parametrize(("expression", "words"), [
    ("factorial(10**9)", "a number of more than"),
    ("9**9**9", "a number of more than"),
    ("'x'*10**10", "a text or list longer than"),
])
@pytest.mark.slow
def test_a_xacro_expression_without_bound_is_refused_within_bounds(case, capsys, expression, words):
    """A xacro file with ${9**9**9} ran for ever (the xacro package evaluates its expressions as Python, and no
    signal interrupts one big-integer power: helper-23's adversarial run). A power or a text too large for any robot
    description is refused before it is computed (io/xacro_expressions.py), a factorial by the bits its result would
    have; what the language still allows to run long runs in a process of its own, bounded in time and memory
    (test_hostile_input's xacro macro fan-out)."""
    (case / "bomb.xacro").write_text('<?xml version="1.0"?>\n<robot xmlns:xacro="http://www.ros.org/wiki/xacro" '
                                     f'name="a">\n  <link name="${{{expression}}}"/>\n</robot>\n')
    refused(case, capsys, ["robot", "show", "bomb.xacro"], EXIT_INPUT, "bomb.xacro", "xacro", words)


def test_a_fifo_whose_writer_never_stops_is_refused_at_the_bound(case, capsys, monkeypatch):
    """A FIFO whose writer never ends (``--program <(yes)``) was read until the memory ran out: it is refused past
    :data:`files.MAX_FIFO_BYTES` (lowered here), naming the file, and nothing is written."""
    import os
    import threading

    from thermocomp.io import files

    monkeypatch.setattr(files, "MAX_FIFO_BYTES", 100_000)
    os.mkfifo(case / "fifo.csv")
    stop = threading.Event()

    def writer():
        try:
            with open(case / "fifo.csv", "wb") as handle:
                while not stop.is_set():
                    handle.write(b"0.5,0.1,0.3,0,180,0\n" * 1000)
        except BrokenPipeError:  # (the reader gave up: what the test expects)
            pass

    threading.Thread(target=writer, daemon=True).start()
    try:
        refused(case, capsys, ["compensate", "--deformation", "d.csv", "--targets", "fifo.csv", "--static",
                               "--out", "o.csv"], EXIT_INPUT, "fifo.csv", "more than 100,000 bytes")
    finally:
        stop.set()
    assert not (case / "o.csv").exists()
