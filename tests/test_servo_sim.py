"""The simulated UR5 velocity servo (PyBullet) and the ``servo`` commands (seed 004).

Fast: the servo's delay as set, the URScript program's multi-sine re-evaluated from its own text, the RTDE
reader, bad input. Slow (``make test-all``): identification of the simulated UR5 and the thesis's orderings
(Tables 4-1, 6-1, 6-2, 6-4) and the warm robot's print error with nominal and compensated references.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from thermocomp.cli.exit_status import EXIT_INPUT
from thermocomp.cli.main import main
from thermocomp.errors import InputError
from thermocomp.io.robots import load_robot
from thermocomp.printing.identification import IdentificationOptions, experiment, layout
from thermocomp.printing.multisine import MultisineOptions, multisine
from thermocomp.printing.rtde_csv import read_rtde_text
from thermocomp.printing.servo_sim import ServoOptions

pytest.importorskip("pybullet")

QUIET = dict(position_noise_rad=0.0, velocity_noise_rad_s=0.0, acceleration_noise_rad_s2=0.0,
             missed_command_probability=0.0)


@pytest.mark.parametrize("delay", [0, 4, 7])
def test_the_simulated_servo_answers_a_command_after_the_delay_it_was_given(delay):
    from thermocomp.app.servo import start_configuration
    from thermocomp.inertia.builtin import builtin_link_contents
    from thermocomp.printing.servo_sim import ServoSimulator

    chain = load_robot("ur5")
    u = np.zeros((20, 6))
    u[5:, 1] = 0.1
    options = ServoOptions(delay_samples=delay, **QUIET)
    with ServoSimulator(chain, builtin_link_contents("ur5", meshes=False), start_configuration(chain), options) as sim:
        record = sim.run(u)
    moved = np.abs(record.qd[:, 1]) > 1e-5
    assert not np.any(moved[:5 + delay + 1])  # u[5] acts from sample 5 + d: its speed shows at 5 + d + 1
    assert moved[5 + delay + 1]
    assert record.qd[-1, 1] > 0.02


def test_servo_options_are_checked():
    from thermocomp.errors import ConfigurationError

    with pytest.raises(ConfigurationError, match="delay_samples"):
        ServoOptions(delay_samples=-1)
    with pytest.raises(ConfigurationError, match="delay_samples: expected an integer"):
        ServoOptions(delay_samples=2.5)
    with pytest.raises(ConfigurationError, match="bandwidth_rad_s"):
        ServoOptions(bandwidth_rad_s=0.0)


def _script_lists(text: str) -> dict[str, list[float]]:
    return {name: [float(v) for v in values.split(",")]
            for name, values in re.findall(r"^  (F|PHASE_EST|PHASE_VAL) = \[([^\]]*)\]", text, re.M)}


def test_servo_excite_writes_the_experiment_as_speedj_and_its_multisine_is_the_identifications(tmp_path, capsys):
    out = tmp_path / "excite.script"
    assert main(["servo", "excite", "--robot", "ur5", "--out", str(out)]) == 0
    text = out.read_text()
    assert text.count("tc_multisine(") == 2 * 6 + 1 and "speedj(qd, ACC, T)" in text and "T = 0.008" in text
    lists = _script_lists(text)
    scale = float(re.search(r"tc_multisine\(0, \d+, PHASE_EST, ([^)]+)\)", text)[1])
    samples = int(re.search(r"tc_multisine\(0, (\d+), PHASE_EST", text)[1])
    i = np.arange(samples)[:, None]
    # the program's own formula, evaluated here, is the multi-sine the identification expects
    on_robot = scale * np.sin(2 * math.pi * np.array(lists["F"]) * i * 0.008 + np.array(lists["PHASE_EST"])).sum(axis=1)
    np.testing.assert_allclose(on_robot, multisine(MultisineOptions(), 125.0), atol=1e-12)
    assert "wrote" in capsys.readouterr().out


def test_servo_excite_refuses_a_start_pose_the_experiment_would_leave_the_limits_from(tmp_path, capsys):
    out = tmp_path / "excite.script"
    status = main(["servo", "excite", "--out", str(out), "--start-deg", "0", "-90", "179", "-90", "-90", "0"])
    assert status == 1
    assert "joint 3 would move" in capsys.readouterr().err
    assert not out.exists()


def _rtde_text(u: np.ndarray, q: np.ndarray, qd: np.ndarray, sep: str = " ") -> str:
    n = u.shape[1]
    header = (["timestamp"] + [f"target_qd_{j}" for j in range(n)] + [f"actual_q_{j}" for j in range(n)]
              + [f"actual_qd_{j}" for j in range(n)] + ["safety_mode"])
    rows = [sep.join(header)]
    for k in range(u.shape[0]):
        rows.append(sep.join(repr(float(v)) for v in [1000.0 + k * 0.008, *u[k], *q[k], *qd[k], 1.0]))
    return "\n".join(rows) + "\n"


def test_the_rtde_reader_finds_the_experiment_in_a_longer_recording():
    options = IdentificationOptions(multisine=MultisineOptions(period_s=8.0, periods=2))
    u = experiment(options, 125.0, 6)
    lead = 300  # the robot was recording before the program started
    full_u = np.vstack([np.zeros((lead, 6)), u, np.zeros((50, 6))])
    q = np.cumsum(full_u, axis=0) * 0.008
    text = _rtde_text(full_u, q, full_u * 0.5)
    got_u, got_q, got_qd = read_rtde_text(text, "rec.csv", 6, 125.0, u.shape[0], layout(options, 125.0).step)
    np.testing.assert_array_equal(got_u, u)
    np.testing.assert_array_equal(got_qd, 0.5 * u)
    with pytest.raises(InputError, match="median step"):
        read_rtde_text(text, "rec.csv", 6, 500.0, u.shape[0], layout(options, 125.0).step)
    with pytest.raises(InputError, match="rec.csv.*target_qd_3"):
        read_rtde_text(text.replace("target_qd_3", "target_qd_x"), "rec.csv", 6, 125.0, u.shape[0], 125)


def test_servo_track_with_a_missing_models_file_fails_naming_it_and_writes_nothing(tmp_path, capsys):
    out = tmp_path / "results.csv"
    status = main(["servo", "track", "--models", str(tmp_path / "none.toml"), "--path", "line:x", "--speed-mm-s", "10",
                   "--out", str(out)])
    assert status == 1
    assert "none.toml" in capsys.readouterr().err
    assert not out.exists()


def test_servo_track_refuses_a_warm_robots_options_without_its_table_before_opening_a_file(tmp_path, capsys):
    """The job (app.servo.ServoTrackJob) refuses them when the command makes it: the models file is never read."""
    out = tmp_path / "results.csv"
    for warm in (["--stabilisation-min", "100"], ["--minute", "20"], ["--time-law", f"from:{tmp_path / 'no.toml'}"]):
        status = main(["servo", "track", "--models", str(tmp_path / "none.toml"), "--path", "line:x", "--speed-mm-s",
                       "10", "--out", str(out), *warm])
        assert status == EXIT_INPUT
        err = capsys.readouterr().err
        assert "--stabilisation-min, --time-law and --minute need --deformation" in err and "none.toml" not in err
        assert not out.exists()


def test_servo_excite_refuses_a_start_pose_of_another_joint_count_naming_it(tmp_path, capsys):
    out = tmp_path / "excite.script"
    assert main(["servo", "excite", "--out", str(out), "--start-deg", "0", "-90", "90", "-90", "-90"]) == EXIT_INPUT
    assert "--start-deg: expected 6 angles, one per joint, got 5" in capsys.readouterr().err
    assert not out.exists()


def test_servo_identify_with_a_recording_of_other_columns_fails_naming_the_file(tmp_path, capsys):
    rec = tmp_path / "rec.csv"
    rec.write_text("timestamp,actual_q_0\n0.0,1.0\n")
    out = tmp_path / "servo.toml"
    assert main(["servo", "identify", "--recording", str(rec), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert "rec.csv" in err and "target_qd_0" in err
    assert not out.exists()


@pytest.mark.slow
def test_servo_identify_reads_an_rtde_recording_of_the_experiment(tmp_path, capsys):
    """A known linear servo (no PyBullet) recorded as RTDE would: the models and the delay come back."""
    from scipy.signal import cont2discrete, tf2ss

    from thermocomp.printing.identification import with_angle
    from thermocomp.printing.models_toml import models_from_toml_text
    from thermocomp.printing.servo_sim import LinearServo

    chain = load_robot("ur5")
    A, B, C, _, _ = cont2discrete(tf2ss([14.0, 100.0], [1.0, 14.0, 100.0]), 0.008)
    truth = with_angle(A, B, C, 0.008)
    u = experiment(IdentificationOptions(), 125.0, 6)
    lead = np.zeros((200, 6))
    with LinearServo(chain, (truth,) * 6, np.zeros(6), ServoOptions(delay_samples=3, missed_command_probability=0.0),
                     np.random.default_rng(5)) as servo:
        record = servo.run(np.vstack([lead, u]))
    rec = tmp_path / "rtde.csv"
    rec.write_text(_rtde_text(record.u, record.q[:-1], record.qd[:-1], sep=","))
    out = tmp_path / "servo.toml"
    assert main(["servo", "identify", "--recording", str(rec), "--out", str(out)]) == 0
    models, robot = models_from_toml_text(out.read_text(), str(out), chain.joint_names)
    assert robot == "ur5" and models.delay_samples == 3
    assert all(j.vaf_pct >= 99.0 for j in models.joints)
    assert "rtde.csv" in capsys.readouterr().out


def test_servo_identify_refuses_the_recording_of_another_experiment(tmp_path, capsys):
    u = 3.0 * experiment(IdentificationOptions(), 125.0, 6)  # three times the peak speed
    rec = tmp_path / "rtde.csv"
    rec.write_text(_rtde_text(u, np.zeros_like(u), u))
    out = tmp_path / "servo.toml"
    assert main(["servo", "identify", "--recording", str(rec), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert "rtde.csv" in err and "differ" in err
    assert not out.exists()


# --- slow: the thesis's tables on the simulated UR5 ----------------------------------------------------------


@pytest.fixture(scope="module")
def identified(tmp_path_factory):
    folder = tmp_path_factory.mktemp("servo")
    out, report = folder / "servo.toml", folder / "id.txt"
    assert main(["servo", "identify", "--out", str(out), "--report", str(report)]) == 0
    return out, report.read_text()


@pytest.mark.slow
def test_identify_the_simulated_ur5_every_chosen_model_above_95_percent(identified):
    from thermocomp.printing.models_toml import models_from_toml_text

    chain = load_robot("ur5")
    models, _ = models_from_toml_text(identified[0].read_text(), "servo.toml", chain.joint_names)
    assert all(j.vaf_pct >= 95.0 for j in models.joints)
    assert models.delay_samples in (4, 5)  # set 4; noise hides the first sample's answer (thesis, Figure 4-3: 5)
    # Table 4-1's shape: order 2 (the angle's integrator and one speed state) far below order 3, flat above
    assert np.all(models.vaf_table[:, 0] < 95.0) and np.all(models.vaf_table[:, 1] > 98.0)
    assert np.all(models.vaf_table[:, 0] < models.vaf_table[:, 1] - 3.0)
    assert all(j.order >= 3 for j in models.joints)
    assert "Table 4-1" in identified[1] and "Table 4-2" in identified[1]


def _results(path) -> dict:
    rows = {}
    for line in path.read_text().splitlines()[1:]:
        controller, speed, route, erms, sigma, runs, reference = line.split(",")
        rows[(controller, float(speed), route, reference)] = float(erms)
    return rows


@pytest.mark.slow
def test_on_the_simulated_ur5_the_controllers_rank_as_in_table_6_4(identified, tmp_path):
    out = tmp_path / "results.csv"
    assert main(["servo", "track", "--models", str(identified[0]), "--path", "line:x", "--speed-mm-s", "10",
                 "--controller", "mpc-iio", "mpc-io", "pid", "none", "--runs", "2", "--out", str(out)]) == 0
    erms = {c: v for (c, _, _, _), v in _results(out).items()}
    assert erms["mpc-iio"] < erms["mpc-io"] < erms["pid"] < erms["none"]
    assert erms["mpc-iio"] < 100.0  # the thesis's requirement [um]


@pytest.mark.slow
def test_on_the_simulated_ur5_the_error_grows_with_speed_as_in_table_6_1(identified, tmp_path):
    out = tmp_path / "results.csv"
    assert main(["servo", "track", "--models", str(identified[0]), "--path", "line:x", "--speed-mm-s", "2.5", "10",
                 "40", "--controller", "mpc-iio", "--runs", "2", "--out", str(out)]) == 0
    erms = {s: v for (_, s, _, _), v in _results(out).items()}
    # the commands the PC loop misses cost a sample of the speed each (Section 8-2): the error grows with speed,
    # less than proportionally (the noise floor), as in the thesis (27.9, 69.3, 130.5 um)
    assert erms[2.5] < erms[10.0] < erms[40.0] < 16.0 * erms[2.5]


@pytest.mark.slow
def test_on_the_simulated_ur5_the_error_is_smallest_along_z_as_in_table_6_2(identified, tmp_path):
    out = tmp_path / "results.csv"
    assert main(["servo", "track", "--models", str(identified[0]), "--path", "line:x", "line:y", "line:z",
                 "--speed-mm-s", "10", "--controller", "mpc-iio", "--runs", "2", "--out", str(out)]) == 0
    erms = {p: v for (_, _, p, _), v in _results(out).items()}
    # the error lies along the path; along z (the head's axis) it moves the nozzle, not where the drop lands
    assert erms["line:z"] < min(erms["line:x"], erms["line:y"])


@pytest.mark.slow
def test_a_warm_robot_prints_closer_with_compensated_references(identified, tmp_path):
    table = tmp_path / "warm.csv"
    table.write_text("Dx,Dy,Dz,Dox,Doy,Doz\n" + "0.1,0.1,0.1,0.05,0.05,0.05\n" * 6)
    out = tmp_path / "results.csv"
    assert main(["servo", "track", "--models", str(identified[0]), "--path", "line:x", "--speed-mm-s", "10",
                 "--controller", "mpc-iio", "--deformation", str(table), "--out", str(out)]) == 0
    erms = {r: v for (_, _, _, r), v in _results(out).items()}
    assert erms["compensated"] < 0.5 * erms["nominal"]


@pytest.mark.slow
def test_servo_track_shows_progress_over_every_simulated_sample_and_the_results_do_not_change(identified, tmp_path,
                                                                                               capsys):
    """A print campaign (4 controllers x 10 runs, docs/printing.md) ran for minutes with nothing on the screen.
    The bar counts the servo samples of every row and run, and ends at the total of the paths' samples."""
    from thermocomp.kinematics.fk import fk
    from thermocomp.kinematics.model import nominal_model
    from thermocomp.printing.paths import line_path

    common = ["servo", "track", "--models", str(identified[0]), "--path", "line:x", "line:z", "--speed-mm-s", "40",
              "--controller", "pid", "none", "--runs", "2"]
    assert main([*common, "--out", str(tmp_path / "quiet.csv"), "--no-progress"]) == 0
    quiet_err = capsys.readouterr().err
    assert main([*common, "--out", str(tmp_path / "shown.csv"), "--progress"]) == 0
    err = capsys.readouterr().err
    assert "samples" not in quiet_err
    chain = load_robot("ur5")
    R_home, _ = fk(nominal_model(chain), chain.home)
    per_run = sum(len(line_path(p, 40.0, 125.0, R_home).t) for p in ("line:x", "line:z"))
    total = per_run * 2 * 2  # controllers, runs
    last = [m.groups() for m in re.finditer(r"tracking \[[#.]+\] ([\d,]+)/([\d,]+) samples", err)][-1]
    assert last == (f"{total:,}", f"{total:,}")
    assert (tmp_path / "shown.csv").read_bytes() == (tmp_path / "quiet.csv").read_bytes()
