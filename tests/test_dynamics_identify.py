"""Identification on recordings of a simulated robot whose truth is known (seeds 001 and 003).

The truth: a built-in robot's CAD inertials (seed 000, Step 1) with link
masses and inertias scaled by known factors (:data:`dynamics_truth.LAMBDA`),
seed 000 Table III's friction (Coulomb, viscous and Stribeck), drives with
0.5 N m of Gaussian torque noise quantised to 0.01 N m, all in PyBullet. The
identification starts from the unperturbed CAD URDF.
"""

from __future__ import annotations

import numpy as np
import pytest
from dynamics_truth import cad_and_truth

from thermocomp.dynamics.excitation import Excitation, ExcitationOptions, design_excitation
from thermocomp.dynamics.friction import SEED000_TABLE_III
from thermocomp.dynamics.identify import identify
from thermocomp.dynamics.parameters import is_consistent
from thermocomp.dynamics.report import check_torques, report_text
from thermocomp.dynamics.simulate import DriveOptions, SimulatedRobot
from thermocomp.io.urdf_inertials import read_urdf_parameters, urdf_with_parameters

pytest.importorskip("pybullet", reason="pybullet is a dependency of thermocomp (pip install -e .)")

RATE = 25.0  # Hz: the excitations stay below 0.3 Hz; torques hold their low harmonics
DURATION = 60.0
NOISE = 0.5  # N m
DRIVES = DriveOptions(torque_noise=(NOISE,), torque_resolution=0.01)


@pytest.fixture(scope="module", params=["gofa", "ur5"])
def setup(request, tmp_path_factory):
    name = request.param
    cad, truth = cad_and_truth(name, tmp_path_factory.mktemp(name))
    robot = SimulatedRobot(truth, SEED000_TABLE_III, DRIVES, rng=np.random.default_rng(7))
    excitation = design_excitation(robot.chain, ExcitationOptions(duration=DURATION))
    t = excitation.times(RATE)
    yield name, cad, truth, robot, excitation, t
    robot.close()


def test_base_parameters_recovered_within_the_noise(setup):
    """Exact speeds and accelerations in the file: the only error is the torque noise, so the WLS estimate must
    lie within a few of its own standard deviations of the truth's base parameters."""
    name, cad, truth, robot, excitation, t = setup
    recording = robot.record(t, *excitation.states(t), with_derivatives=True)
    info = read_urdf_parameters(cad)
    result = identify(robot.chain, recording, info.parameters, attached=info.attached)
    pi_true = read_urdf_parameters(truth).parameters
    z = (result.base_values - result.base.base_from_standard(pi_true)) / result.base_std
    # 36 estimates of N(0, 1) errors: |z| < 5 fails by chance with probability 2e-5.
    assert np.max(np.abs(z)) < 5.0, result.base.combinations()[int(np.argmax(np.abs(z)))]
    # The per-joint weights are the noise: about 0.5 N m (quantisation adds 0.003).
    np.testing.assert_allclose(result.sigma, NOISE, rtol=0.1)
    # Coulomb and viscous friction of Table III (Stribeck is invisible above the speed threshold).
    np.testing.assert_allclose(result.friction_values[0::2], SEED000_TABLE_III.Fc[:6],
                               atol=5 * result.friction_std[0::2].max())
    np.testing.assert_allclose(result.friction_values[1::2], SEED000_TABLE_III.Fv[:6],
                               atol=5 * result.friction_std[1::2].max())
    # A wrong model cannot pass: the CAD parameters are many standard deviations off.
    z_cad = (result.base.base_from_standard(read_urdf_parameters(cad).parameters)
             - result.base.base_from_standard(pi_true)) / result.base_std
    assert np.max(np.abs(z_cad)) > 10.0


def test_identification_from_positions_predicts_an_unseen_trajectory(setup, tmp_path):
    """Positions and torques only: filtered, differentiated, identified; the consistent model written to a URDF
    predicts a second trajectory within a few percent, and PyBullet loads the URDF with the same dynamics."""
    name, cad, truth, robot, excitation, t = setup
    recording = robot.record(t, *excitation.states(t))
    info = read_urdf_parameters(cad)
    result = identify(robot.chain, recording, info.parameters, attached=info.attached)
    own = check_torques(result, recording, data=result.data, mask=result.mask)
    assert own.success, report_text(result, own)
    # Friction from the unfiltered torques: Table III's Coulomb and viscous (Stribeck is below the speed threshold).
    np.testing.assert_allclose(result.friction.Fc, SEED000_TABLE_III.Fc, rtol=0.05)
    np.testing.assert_allclose(result.friction.Fv, SEED000_TABLE_III.Fv, rtol=0.05)
    assert all(is_consistent(pi) for pi in result.parameters.reshape(-1, 10))
    # An unseen motion: other amplitudes, speeds and phases.
    other = design_excitation(robot.chain, ExcitationOptions(duration=30.0, range_fraction=0.6, speed_fraction=0.6))
    t2 = other.times(RATE) + 1.7
    states = other.states(t2)
    truth_tau = robot.true_torques(*states)
    predicted = result.predict(*states)
    nrmse = np.sqrt(np.mean((predicted - truth_tau) ** 2, axis=0)) / np.ptp(truth_tau, axis=0)
    assert np.all(nrmse < 0.03), nrmse
    # The identified URDF: input URDF with the consistent inertials; PyBullet agrees with our model.
    out = tmp_path / "identified.urdf"
    out.write_text(urdf_with_parameters(read_urdf_parameters(cad), result.parameters))
    with SimulatedRobot(out) as identified:
        rigid = identified.rigid_torques(*states)
    np.testing.assert_allclose(rigid, result.predict(*states) - result.friction.torque(states[1]), rtol=0,
                               atol=1e-9 * np.max(np.abs(rigid)))


def test_too_slow_recording_fails_with_the_seed_diagnosis(setup):
    name, cad, truth, robot, excitation, t = setup
    slow = design_excitation(robot.chain, ExcitationOptions(duration=DURATION, speed_fraction=0.1))
    recording = robot.record(t, *slow.states(t))
    info = read_urdf_parameters(cad)
    result = identify(robot.chain, recording, info.parameters, attached=info.attached)
    check = check_torques(result, recording, data=result.data, mask=result.mask)
    assert not check.success
    assert "too slow" in check.causes
    assert "Identification FAILED" in report_text(result, check)


def test_too_short_recording_fails_with_the_seed_diagnosis(setup):
    name, cad, truth, robot, excitation, t = setup
    short = Excitation(excitation.centre, excitation.amplitude, excitation.frequency, 8.0, excitation.check)
    ts = short.times(RATE)
    recording = robot.record(ts, *short.states(ts))
    info = read_urdf_parameters(cad)
    result = identify(robot.chain, recording, info.parameters, attached=info.attached)
    check = check_torques(result, recording, data=result.data, mask=result.mask)
    assert not check.success
    assert "too short" in check.causes
    assert any(d.startswith("too short: joint 1 completes") for d in check.diagnosis)


def test_step5_with_step3_friction_held_fixed(setup):
    """Seed 000, Step 5: the inertial parameters by least squares with the friction (Step 3's table) fixed."""
    name, cad, truth, robot, excitation, t = setup
    recording = robot.record(t, *excitation.states(t), with_derivatives=True)
    info = read_urdf_parameters(cad)
    result = identify(robot.chain, recording, info.parameters, attached=info.attached, friction=SEED000_TABLE_III)
    z = (result.base_values - result.base.base_from_standard(read_urdf_parameters(truth).parameters)) / result.base_std
    assert np.max(np.abs(z)) < 5.0
    assert result.friction is SEED000_TABLE_III
    own = check_torques(result, recording, data=result.data, mask=result.mask)
    assert "held fixed" in report_text(result, own)


def test_small_region_overlap_and_saturation_are_named(setup):
    """Seed 003's other causes in one recording: joint 1 swings a tenth of its range, joints 2 and 3 share a
    frequency, and joint 2's drive saturates."""
    name, cad, truth, robot, excitation, t = setup
    f = excitation.frequency.copy()
    f[2] = f[1]
    amplitude = excitation.amplitude.copy()
    amplitude[0] = 0.1 * amplitude[0]
    motion = Excitation(excitation.centre, amplitude, f, excitation.duration, excitation.check)
    states = motion.states(t)
    peak = np.max(np.abs(robot.true_torques(*states)), axis=0)
    limits = np.full(6, np.inf)
    limits[1] = 0.8 * peak[1]
    with SimulatedRobot(truth, SEED000_TABLE_III, DriveOptions(torque_noise=(NOISE,), torque_resolution=0.01,
                                                              torque_limit=tuple(limits)),
                        rng=np.random.default_rng(2)) as clipped:
        recording = clipped.record(t, *states)
    info = read_urdf_parameters(cad)
    result = identify(robot.chain, recording, info.parameters, attached=info.attached)
    check = check_torques(result, recording, data=result.data, mask=result.mask)
    assert not check.success
    assert {"too small a region", "overlapping frequencies", "saturated torques"} <= set(check.causes), check.diagnosis
    assert any(d.startswith("saturated torques: joint 2") for d in check.diagnosis)
    assert any("joints 2 and 3" in d for d in check.diagnosis if d.startswith("overlapping"))
    assert any(d.startswith("too small a region: joint 1") for d in check.diagnosis)
