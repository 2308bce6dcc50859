"""The closed loop: measure (PyBullet tracker) -> calibrate -> compensate -> measure again.

From Python and from the command line, on the three built-in robots: the
compensated program, played on the *truly* deformed robot in PyBullet,
reaches its targets to the level of the tracker's noise, where the
uncompensated one misses by tenths of a millimetre.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_calibration import random_poses, random_table, tracker_pose

from thermocomp import CompensationOptions, DeformationTable, deformed_model, fk, load_robot
from thermocomp.calibration.identify import CalibrationOptions
from thermocomp.calibration.timefit import TimeFitOptions, calibrate
from thermocomp.calibration.validate import validate
from thermocomp.cli.main import main
from thermocomp.compensation.compensate import compensate
from thermocomp.compensation.targets import Targets
from thermocomp.deformation.thermal_laws import FirstOrder
from thermocomp.deformation.timelaw import Static
from thermocomp.io.deformation_csv import read_deformation_csv, write_deformation_csv
from thermocomp.io.measurements_csv import read_measurements_csv
from thermocomp.io.targets_csv import write_targets_csv
from thermocomp.io.timelaw_file import read_time_law
from thermocomp.kinematics.ik import Status
from thermocomp.simulators.pybullet.campaign import measure_poses, simulate_measurements

SIGMA = 2e-5  # 0.02 mm


def _targets(chain, rng, m):
    """Reachable targets: the nominal robot's TCP at random configurations (kept as reference joints)."""
    q = rng.uniform(0.5 * chain.lower, 0.5 * chain.upper, size=(m, chain.n_joints))  # away from limits
    R, p = fk(deformed_model(chain, DeformationTable.zero(chain.n_joints)), q)
    return Targets(names=tuple(f"T{i}" for i in range(m)), R_world_tcp=R, p_world_tcp=p, q_reference=q)


def test_python_loop_first_order_law_gofa():
    rng = np.random.default_rng(2026)
    chain = load_robot("gofa")
    truth, law = random_table(chain, rng, 1e-4, 3e-4), FirstOrder(40.0)
    minutes = np.arange(0.0, 201.0, 25.0)
    poses = random_poses(chain, rng, 24)
    q = np.vstack([poses[rng.choice(24, 8, replace=False)] for _ in minutes])
    meas = simulate_measurements(chain, truth, q, np.repeat(minutes, 8), law.fraction, T_tracker_world=tracker_pose(),
                                 position_noise=SIGMA, rng=rng)
    cal = calibrate(chain, meas, CalibrationOptions(position_sigma=SIGMA, estimate_base=True),
                    TimeFitOptions("first-order"))
    # Compensate a program the fit never saw with the identified table and law, at three minutes.
    program = _targets(chain, rng, 6)
    options = CompensationOptions(time_law=cal.law, minutes=(30.0, 90.0, 180.0))
    chunks = list(compensate(chain, cal.fit.table, program, options))
    rows_q = np.vstack([c.q for c in chunks])
    rows_minute = np.concatenate([c.minute for c in chunks])
    target = np.concatenate([c.target for c in chunks])
    assert all(np.all(c.status == Status.CONVERGED) for c in chunks)
    # Measure again: PyBullet plays the corrected and the nominal angles on the truly warm robot.
    _, p_comp = measure_poses(chain, truth, rows_q, law.fraction(rows_minute))
    _, p_uncomp = measure_poses(chain, truth, program.q_reference[target], law.fraction(rows_minute))
    after = np.linalg.norm(p_comp - program.p_world_tcp[target], axis=1)
    before = np.linalg.norm(p_uncomp - program.p_world_tcp[target], axis=1)
    assert np.median(before) > 0.1e-3  # the warm robot misses by tenths of a millimetre
    assert after.max() < 3 * SIGMA  # compensated: at the level of the tracker's noise
    # validate() on held-out measurements says the same without a second compensation.
    held = simulate_measurements(chain, truth, random_poses(chain, rng, 6), np.full(6, 120.0), law.fraction,
                                 T_tracker_world=tracker_pose(), position_noise=SIGMA, rng=rng)
    v = validate(chain, cal, held)
    assert np.median(v.before) > 0.1e-3 and np.sqrt(np.mean(v.after**2)) < 2 * np.sqrt(3) * SIGMA


@pytest.mark.slow
@pytest.mark.parametrize("robot", ["irb140", "gofa", "ur5"])
def test_command_line_loop(robot, tmp_path, capsys):
    rng = np.random.default_rng(sum(map(ord, robot)))
    chain = load_robot(robot)
    write_deformation_csv(random_table(chain, rng, 1e-4, 3e-4), tmp_path / "truth.csv")
    write_targets_csv(_targets(chain, rng, 5), tmp_path / "targets.csv")
    f = lambda name: str(tmp_path / name)  # noqa: E731
    tracker = ["--tracker-pose", "2500", "-1200", "300", "1", "-2", "28"]
    assert main(["track", "--robot", robot, "--deformation", f("truth.csv"), "--stabilisation-min", "120",
                 "--poses", "20", "--minutes", "0,60,120,150,200", "--noise-mm", "0.02",
                 "--seed", "1", "--out", f("tracker.csv"), *tracker]) == 0
    assert main(["track", "--robot", robot, "--deformation", f("truth.csv"), "--stabilisation-min", "120",
                 "--poses", "8", "--minutes", "90", "--noise-mm", "0.02", "--seed", "2", "--out", f("held.csv"),
                 *tracker]) == 0
    assert main(["calibrate", "--robot", robot, "--measurements", f("tracker.csv"), "--out", f("table.csv"),
                 "--report", f("calibration.txt"), "--estimate-base", "--time-law", "ramp", "--sigma-mm", "0.02",
                 "--validate", f("held.csv"), "--plot", f("held.png"), "--suggest", "3", "--candidates", "60"]) == 0
    report = (tmp_path / "calibration.txt").read_text()
    assert "Not identifiable from these poses" in report and "Validation on 8 held-out measurements" in report
    assert (tmp_path / "held.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    law = read_time_law(tmp_path / "table.csv")
    assert abs(law.stabilisation_min - 120.0) < 0.05 * 120.0
    assert read_deformation_csv(tmp_path / "table.csv", chain.n_joints).n_joints == chain.n_joints
    assert main(["compensate", "--robot", robot, "--deformation", f("table.csv"), "--time-law", f"from:{f('table.csv')}",
                 "--targets", f("targets.csv"), "--minutes", "30,150", "--out", f("compensated.csv"),
                 "--allow-failures"]) == 0
    capsys.readouterr()
    assert main(["track", "--robot", robot, "--deformation", f("truth.csv"), "--stabilisation-min", "120",
                 "--results", f("compensated.csv"), "--out", f("again.csv")]) == 0
    printed = capsys.readouterr().out
    within = float(printed.split("reaches its targets within ")[1].split(" mm")[0])
    rms = float(printed.split("(rms ")[1].split(" mm")[0])
    # The tracker's noise level (a 3-D position: rms sqrt(3) sigma), where the warm robot missed by tenths
    assert rms < np.sqrt(3) * SIGMA * 1e3 and within < 2 * np.sqrt(3) * SIGMA * 1e3, printed
    again = read_measurements_csv(tmp_path / "again.csv", chain.n_joints)
    assert again.n >= 8  # converged rows (a random target may sit where the solver gives up; it is not measured)


def test_calibrate_bad_input_writes_nothing(tmp_path, capsys):
    bad = tmp_path / "tracker.csv"
    bad.write_text("time_min,q1_deg,q2_deg,q3_deg,q4_deg,q5_deg,q6_deg,x_mm,y_mm,z_mm\n0,0,0,0,0,0,0,1,2,x\n")
    code = main(["calibrate", "--robot", "irb140", "--measurements", str(bad), "--out", str(tmp_path / "t.csv"),
                 "--report", str(tmp_path / "r.txt")])
    assert code == 1
    err = capsys.readouterr().err
    assert f"{bad}, line 2, column 'z_mm'" in err and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tracker.csv"]


def test_calibrate_min_norm_with_orientation_from_the_command_line(tmp_path, capsys):
    chain = load_robot("ur5")
    rng = np.random.default_rng(55)
    write_deformation_csv(random_table(chain, rng), tmp_path / "truth.csv")
    f = lambda name: str(tmp_path / name)  # noqa: E731
    assert main(["track", "--robot", "ur5", "--deformation", f("truth.csv"), "--static", "--poses", "25",
                 "--noise-mm", "0.01", "--orientation-noise-deg", "0.001", "--out", f("tracker.csv")]) == 0
    assert main(["calibrate", "--robot", "ur5", "--measurements", f("tracker.csv"), "--out", f("table.csv"),
                 "--report", f("report.txt"), "--fix", "min-norm", "--sigma-mm", "0.01", "--sigma-deg", "0.001"]) == 0
    report = (tmp_path / "report.txt").read_text()
    assert "positions and orientations" in report
    assert "given their minimum-norm value" in report
    rank = int(report.split(" of 48 table parameters identifiable")[0].split()[-1])
    assert rank > 25  # orientation shows more than positions can (the tool's angles among them)
    assert read_time_law(tmp_path / "table.csv") == Static()  # the static fit's law, beside the table


@pytest.mark.parametrize(("extra", "message"), [
    (["--heat-on", "5"], "--heat-on: expected START:STOP"),
    (["--rows", "joints,wrist"], "rows: expected a non-empty subset"),
])
def test_calibrate_bad_options_exit_1_and_write_nothing(tmp_path, capsys, extra, message):
    meas = tmp_path / "tracker.csv"
    meas.write_text("time_min,q1_deg,q2_deg,q3_deg,q4_deg,q5_deg,q6_deg,x_mm,y_mm,z_mm\n0,0,0,0,0,0,0,1,2,3\n")
    code = main(["calibrate", "--measurements", str(meas), "--out", str(tmp_path / "t.csv"),
                 "--report", str(tmp_path / "r.txt"), *extra])
    assert code == 1
    assert message in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tracker.csv"]


def test_calibrate_never_writes_over_its_input(tmp_path, capsys):
    meas = tmp_path / "tracker.csv"
    meas.write_text("time_min,q1_deg,q2_deg,q3_deg,q4_deg,q5_deg,q6_deg,x_mm,y_mm,z_mm\n0,0,0,0,0,0,0,1,2,3\n")
    before = meas.read_bytes()
    assert main(["calibrate", "--measurements", str(meas), "--out", str(tmp_path / "t.csv"),
                 "--report", str(meas)]) == 1
    assert "would overwrite the input" in capsys.readouterr().err
    assert meas.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["tracker.csv"]


_MEAS = "time_min,q1_deg,q2_deg,q3_deg,q4_deg,q5_deg,q6_deg,x_mm,y_mm,z_mm\n0,0,0,0,0,0,0,1,2,3\n"


def _refused(tmp_path, capsys, argv, names):
    """Run ``argv`` (``{name}`` -> a file in tmp_path), expect exit 1, every name in stderr, no file touched or added."""
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    code = main([a.format(d=tmp_path) for a in argv])
    err = capsys.readouterr().err
    assert code == 1, err
    assert "Traceback" not in err
    for name in names:
        assert name in err, err
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before
    return err


@pytest.mark.parametrize(("extra", "names"), [
    # an output on an input: the message names the output's option and the input's
    (["--out", "{d}/tracker.csv", "--report", "{d}/r.txt"], ["--out", "(--measurements)"]),
    (["--out", "{d}/t.csv", "--report", "{d}/r.txt", "--validate", "{d}/held.csv", "--plot", "{d}/held.csv"],
     ["--plot", "(--validate)"]),
    # the law written beside the table lands on an input
    (["--out", "{d}/held.csv", "--report", "{d}/r.txt", "--validate", "{d}/held.law.toml"],
     ["--out (its time law)", "(--validate)"]),
    # (a .toml is no robot file: refused as one before any output is weighed)
    (["--out", "{d}/t.csv", "--report", "{d}/r.txt", "--robot", "{d}/t.law.toml"], ["--robot: unknown robot", "t.law.toml"]),
    # two outputs on one file
    (["--out", "{d}/t.csv", "--report", "{d}/t.csv"], ["--report", "the same file as --out"]),
    (["--out", "{d}/t.csv", "--report", "{d}/r.png", "--plot", "{d}/r.png"], ["--plot", "the same file as --report"]),
    (["--out", "{d}/t.csv", "--report", "{d}/t.law.toml"], ["--report", "the same file as --out (its time law)"]),
    # the law's name is derived, not given: a file there that is no law file is not replaced
    (["--out", "{d}/t.csv", "--report", "{d}/r.txt"], ["--out (its time law)", "t.law.toml", "not a time law file"]),
])
def test_calibrate_conflicts_name_both_options_and_touch_nothing(tmp_path, capsys, extra, names):
    for name in ("tracker.csv", "held.csv", "held.law.toml", "t.law.toml", "r.png"):
        (tmp_path / name).write_text(_MEAS)  # pre-existing files, inputs or not: none may change
    _refused(tmp_path, capsys, ["calibrate", "--measurements", "{d}/tracker.csv", *extra], names)


def test_calibrate_names_every_conflict_at_once(tmp_path, capsys):
    (tmp_path / "tracker.csv").write_text(_MEAS)
    err = _refused(tmp_path, capsys, ["calibrate", "--measurements", "{d}/tracker.csv", "--out", "{d}/tracker.csv",
                                      "--report", "{d}/tracker.csv"], ["--out", "--report", "(--measurements)"])
    assert "outputs cannot be written" in err


@pytest.mark.parametrize(("extra", "names"), [
    (["--out", "{d}/truth.csv"], ["--out", "(--deformation)"]),
    (["--out", "{d}/truth.law.toml", "--time-law", "from:{d}/truth.csv"], ["--out", "(--time-law)"]),
    (["--out", "{d}/res.csv", "--results", "{d}/res.csv"], ["--out", "(--results)"]),
    (["--out", "{d}/robot.urdf", "--robot", "{d}/robot.urdf"], ["--out", "(--robot)"]),
])
def test_track_output_on_an_input_is_refused_naming_both_options(tmp_path, capsys, extra, names):
    write_deformation_csv(DeformationTable.zero(6), tmp_path / "truth.csv")
    (tmp_path / "truth.law.toml").write_text("not read: refused before any work\n")
    (tmp_path / "res.csv").write_text("minute,status\n")
    (tmp_path / "robot.urdf").write_text("<robot/>\n")
    _refused(tmp_path, capsys, ["track", "--deformation", "{d}/truth.csv", *extra], names)
