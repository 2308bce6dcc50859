"""Seed 001's payload rule of change, seed 003's payload identification, torque-error collision detection and
feed-forward torques, on PyBullet with a known truth."""

from __future__ import annotations

import numpy as np
import pytest
from dynamics_truth import write_robot_urdf
from helpers import simulated_robot, urdf_parameters_of

from thermocomp.dynamics.collision import CollisionOptions, detect_collisions, torque_error_filter
from thermocomp.dynamics.excitation import ExcitationOptions, design_excitation
from thermocomp.dynamics.feedforward import feedforward_torques
from thermocomp.dynamics.friction import SEED000_TABLE_III
from thermocomp.dynamics.payload import identify_payload, payload_parameters, with_payload
from thermocomp.dynamics.regressor import regressor
from thermocomp.dynamics.simulate import DriveOptions
from thermocomp.inertia.builtin import builtin_inertials
from thermocomp.io.recording_csv import Recording
from thermocomp.io.robots import load_robot
from thermocomp.io.urdf import LinkContent, urdf_text

pytest.importorskip("pybullet", reason="pybullet is a dependency of thermocomp (pip install -e .)")

#: A 2 kg tool, its centre of mass 40 mm off the flange axis and 80 mm out, a tensor not aligned with the flange.
PAYLOAD_MASS = 2.0
PAYLOAD_COM = np.array([0.04, -0.01, 0.08])
PAYLOAD_INERTIA = np.array([[0.004, 0.0005, 0.0], [0.0005, 0.006, -0.0003], [0.0, -0.0003, 0.003]])


def urdf_with_tool(name, path, payload: bool):
    """The built-in robot with its CAD inertials, the tool (or the 1 g placeholder) on the ``tcp`` link."""
    links = {link.link: LinkContent(mass=link.mass, com=link.com, inertia=link.inertia)
             for link in builtin_inertials(name).links}
    if payload:
        links["tcp"] = LinkContent(mass=PAYLOAD_MASS, com=PAYLOAD_COM, inertia=PAYLOAD_INERTIA)
    path.write_text(urdf_text(load_robot(name), links=links))
    return path


@pytest.mark.parametrize("name", ["gofa", "ur5"])
def test_rule_of_change_matches_pybullet_with_the_tool(name, tmp_path, rng):
    """Seed 001: adding the payload changes only the last link's parameters, by addition in its frame."""
    bare = urdf_parameters_of(write_robot_urdf(name, builtin_inertials(name), tmp_path / "bare.urdf"))
    chain = bare.chain
    tool = payload_parameters(PAYLOAD_MASS, PAYLOAD_COM, PAYLOAD_INERTIA, chain.T_last_tcp)
    # The bare URDF's tcp placeholder (1 g) is replaced by the tool.
    pi = with_payload(bare.parameters - np.concatenate([np.zeros(50), bare.attached[-10:]]), tool)
    n = chain.n_joints
    q, qd, qdd = rng.uniform(-2, 2, (10, n)), rng.normal(0, 1, (10, n)), rng.normal(0, 3, (10, n))
    with simulated_robot(urdf_with_tool(name, tmp_path / "tool.urdf", True), gravity=(0.0, 0.0, -9.81)) as robot:
        want = robot.rigid_torques(q, qd, qdd)
    got = regressor(chain, q, qd, qdd, gravity=(0.0, 0.0, -9.81)) @ pi
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-9 * np.max(np.abs(want)))
    assert np.array_equal(pi[:50], bare.parameters[:50])  # links 1..5 untouched


@pytest.mark.parametrize("name", ["gofa", "ur5"])
def test_payload_identified_with_the_robot_model_known(name, tmp_path):
    """Seed 003: with the robot's model known, a recording with the payload gives its mass and centre of mass."""
    bare = urdf_parameters_of(write_robot_urdf(name, builtin_inertials(name), tmp_path / "bare.urdf"))
    chain = bare.chain
    ex = design_excitation(chain, ExcitationOptions(duration=60.0))
    t = ex.times(25.0)
    q, qd, qdd = ex.states(t)
    drives = DriveOptions(torque_noise=(0.5,), torque_resolution=0.01)
    with simulated_robot(urdf_with_tool(name, tmp_path / "tool.urdf", True), SEED000_TABLE_III, drives,
                        rng=np.random.default_rng(3)) as robot:
        tau = robot.record(t, q, qd, qdd).tau
    # The known model: the bare robot without its placeholder, and Table III's friction.
    known = bare.parameters - np.concatenate([np.zeros(50), bare.attached[-10:]])
    predicted = regressor(chain, q, qd, qdd) @ known + SEED000_TABLE_III.torque(qd)
    est = identify_payload(chain, q, qd, qdd, tau, predicted, weights=np.full(6, 0.5))
    truth = payload_parameters(PAYLOAD_MASS, PAYLOAD_COM, PAYLOAD_INERTIA, chain.T_last_tcp)
    assert est.identified[:4].all()
    assert abs(est.mass - PAYLOAD_MASS) < 5 * est.std[0] and est.std[0] < 0.05
    np.testing.assert_allclose(est.parameters[1:4], truth[1:4], atol=5 * est.std[1:4].max())
    assert "payload" in est.text()


@pytest.mark.parametrize("name", ["gofa", "ur5"])
def test_collision_flags_an_injected_torque_and_nothing_else(name, tmp_path):
    """Seed 003: measured minus predicted torque above the threshold; a 12 N m push on joint 2 during 0.2 s."""
    urdf = write_robot_urdf(name, builtin_inertials(name), tmp_path / "robot.urdf")
    chain = urdf_parameters_of(urdf).chain
    ex = design_excitation(chain, ExcitationOptions(duration=20.0, speed_fraction=0.5))
    t = ex.times(100.0)
    q, qd, qdd = ex.states(t)
    noise = 0.5
    with simulated_robot(urdf, SEED000_TABLE_III, DriveOptions(torque_noise=(noise,)), rng=np.random.default_rng(9)) as robot:
        measured = robot.record(t, q, qd, qdd).tau
        model = robot.true_torques(q, qd, qdd)  # a perfect identification
    hit = (t >= 7.0) & (t < 7.2)
    measured[hit, 1] += 12.0
    options = CollisionOptions(threshold=(8 * noise,), filter_coefficient=0.5)
    result = detect_collisions(measured, model, qd, options)
    assert result.detected
    first = result.first()
    assert 7.0 <= t[first] <= 7.03  # within three samples of the push
    after = (t >= 7.0) & (t < 7.25)  # the filtered error decays over a few samples after the push
    assert not result.flags[~after].any()  # no false alarm: the filtered noise stays far below 8 sigma
    assert result.flags[hit, 1].sum() > 0.8 * hit.sum()
    # softMC's filter: TE = TEF TE_current + (1 - TEF) TE_previous.
    te = torque_error_filter(np.array([[1.0], [1.0], [0.0]]), 0.5)
    np.testing.assert_allclose(te[:, 0], [0.5, 0.75, 0.375])


@pytest.mark.parametrize("name", ["gofa", "ur5"])
def test_feedforward_torques_of_the_identified_model_equal_pybullet(name, tmp_path):
    urdf = write_robot_urdf(name, builtin_inertials(name), tmp_path / "robot.urdf")
    info = urdf_parameters_of(urdf)
    ex = design_excitation(info.chain, ExcitationOptions(duration=10.0))
    t = ex.times(200.0)
    q, qd, qdd = ex.states(t)
    ff = feedforward_torques(info.chain, info.parameters, SEED000_TABLE_III, Recording(time=t, q=q, tau=np.zeros_like(q)))
    with simulated_robot(urdf, SEED000_TABLE_III) as robot:
        want = robot.true_torques(q, qd, qdd)
    # Central differences of a 200 Hz trajectory are exact to O(dt^2), except the sign of a speed crossing zero
    # (Coulomb friction switches there): compare away from the ends and the reversals.
    keep = np.all(np.abs(qd) > 0.01, axis=1)
    keep[:5] = keep[-5:] = False
    np.testing.assert_allclose(ff.tau[keep], want[keep], rtol=0, atol=0.01 * np.ptp(want))
