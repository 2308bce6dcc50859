"""Friction: seed 000's Eq. 3 model, its CSV, and Step 3 (symmetric constant-speed runs, Eqs. 10-12) on a
simulated robot whose friction is seed 000's Table III."""

from __future__ import annotations

import math

import numpy as np
import pytest
from dynamics_truth import cad_and_truth
from helpers import assert_located, simulated_robot

from thermocomp.dynamics.friction import SEED000_TABLE_III, FrictionTable, friction_from_constant_speed
from thermocomp.dynamics.friction_runs import ConstantSpeedOptions, constant_speed_trajectory, friction_from_recording
from thermocomp.dynamics.simulate import DriveOptions
from thermocomp.errors import InputError
from thermocomp.io.friction_csv import read_friction_csv, write_friction_csv
from thermocomp.io.robots import load_robot

pytest.importorskip("pybullet", reason="pybullet is a dependency of thermocomp (pip install -e .)")

#: Speeds through the Stribeck region (vs = 0.5 deg/s) and beyond, a 20 deg sweep, 50 Hz.
RUNS = ConstantSpeedOptions(speeds=tuple(math.radians(v) for v in (0.25, 0.5, 1, 2, 5, 10, 20, 40)),
                            span=math.radians(20), acceleration=math.radians(400), rate=50.0)


def test_eq3_model_values():
    t = SEED000_TABLE_III
    v = np.array([1e-9, t.vs[0], 1.0])[:, None] * np.ones(6)
    tau = t.torque(v)
    np.testing.assert_allclose(tau[0], t.Fs, rtol=1e-9)  # breakaway at rest
    np.testing.assert_allclose(tau[1], t.Fc + (t.Fs - t.Fc) / math.e + t.Fv * t.vs, rtol=1e-12)
    np.testing.assert_allclose(tau[2], t.Fc + t.Fv * 1.0, rtol=1e-12)  # exp(-(1/0.0087)^2) = 0
    np.testing.assert_array_equal(t.torque(-v), -tau)  # odd (Eq. 11's premise)
    assert np.all(t.torque(np.zeros(6)) == 0.0)


def test_friction_csv_round_trip_and_located_errors(tmp_path):
    path = tmp_path / "friction.csv"
    write_friction_csv(path, SEED000_TABLE_III)
    back = read_friction_csv(path, 6)
    for k in ("Fc", "Fv", "Fs", "vs"):
        np.testing.assert_array_equal(getattr(back, k), getattr(SEED000_TABLE_III, k))
    path.write_text("joint,Fc_Nm,Fv_Nm_s_per_rad,Fs_Nm,vs_rad_s\n1,1,0.1,2,0.01\n2,1,-0.1,1,0\n")
    with pytest.raises(InputError) as exc:
        read_friction_csv(path)
    assert_located(exc.value, path, 3, "Fv_Nm_s_per_rad")
    path.write_text("joint,Fc_Nm,Fv_Nm_s_per_rad,Fs_Nm,vs_rad_s\n1,1,0.1,2,0\n")
    with pytest.raises(InputError, match="vs_rad_s > 0 when Fs_Nm != Fc_Nm"):
        read_friction_csv(path)


def test_eq12_fit_is_exact_without_noise():
    v = np.radians([0.25, 0.5, 1, 2, 5, 10, 20])
    gravity_and_coriolis = 12.3 + 0.4 * v**2  # even in v: cancels (Eq. 11)
    tf = SEED000_TABLE_III.torque(np.outer(v, np.ones(6)))[:, 2]
    fit = friction_from_constant_speed(v, gravity_and_coriolis + tf, gravity_and_coriolis - tf)
    assert (fit.Fc, fit.Fv, fit.Fs, fit.vs) == pytest.approx(
        (SEED000_TABLE_III.Fc[2], SEED000_TABLE_III.Fv[2], SEED000_TABLE_III.Fs[2], SEED000_TABLE_III.vs[2]), rel=1e-6)


@pytest.mark.parametrize("name, pose_deg", [("gofa", (0, 20, -40, 0, 30, 0)), ("ur5", (0, -60, 60, -60, 30, 0))])
def test_step3_returns_the_friction_table(name, pose_deg, tmp_path):
    _, truth = cad_and_truth(name, tmp_path)
    drives = DriveOptions(torque_noise=(0.5,), torque_resolution=0.01)
    with simulated_robot(truth, SEED000_TABLE_III, drives, rng=np.random.default_rng(11)) as robot:
        plan = constant_speed_trajectory(robot.chain, np.radians(pose_deg), options=RUNS)
        recording = robot.record(plan.time, plan.q, plan.qd, plan.qdd, with_derivatives=True)
    step = friction_from_recording(recording)
    table = step.table
    assert all(fit is not None and fit.speeds.size == 8 for fit in step.fits)
    # 0.5 N m noise averaged over the slow runs' thousands of samples: Coulomb and static to 1 %;
    # the viscous slope rests on the fast runs' tens of samples: 10 %; the Stribeck speed 20 %.
    np.testing.assert_allclose(table.Fc, SEED000_TABLE_III.Fc, rtol=0.01)
    np.testing.assert_allclose(table.Fs, SEED000_TABLE_III.Fs, rtol=0.01)
    np.testing.assert_allclose(table.Fv, SEED000_TABLE_III.Fv, rtol=0.10)
    np.testing.assert_allclose(table.vs, SEED000_TABLE_III.vs, rtol=0.20)
    assert "Eqs. 10-12" in step.text()


def test_step3_needs_speeds():
    rec = constant_speed_trajectory(load_robot("gofa"), np.zeros(6), joints=[0], options=RUNS)
    bare = type(rec)(time=rec.time, q=rec.q, tau=rec.tau)
    with pytest.raises(InputError, match="expected speeds"):
        friction_from_recording(bare)
    assert isinstance(friction_from_recording(rec).table, FrictionTable)
