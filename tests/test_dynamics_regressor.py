"""The inverse dynamic model linear in the standard parameters (seed 001), against PyBullet, and its base parameters.

PyBullet's ``calculateInverseDynamics`` (an independent recursive Newton-Euler
implementation) on the URDFs thermocomp writes is the oracle for
``tau = Y(q, qd, qdd) pi``. Both sides compute in double precision from the
same doubles; PyBullet diagonalises each inertia tensor when it loads a file
(docs/inertia.md), which leaves about 1e-12 of the torque: 1e-9 keeps three
orders of margin, while a wrong sign, frame or lever arm is off by percent.
"""

from __future__ import annotations

import numpy as np
import pytest
from dynamics_truth import write_robot_urdf
from helpers import urdf_parameters_of

from thermocomp.dynamics.base_params import base_parameters, random_states
from thermocomp.dynamics.parameters import (
    inertial_from_parameters,
    is_consistent,
    link_parameters,
    pseudo_inertia,
    robot_parameters,
)
from thermocomp.dynamics.regressor import regressor
from thermocomp.dynamics.urdf_parameters import urdf_with_parameters
from thermocomp.errors import InputError
from thermocomp.inertia.builtin import builtin_inertials
from thermocomp.inertia.checks import check_inertia_tensor
from thermocomp.io.robots import BUILTIN_ROBOTS, load_robot
from thermocomp.io.urdf import PLACEHOLDER_INERTIA, PLACEHOLDER_MASS

p = pytest.importorskip("pybullet", reason="pybullet is a dependency of thermocomp (pip install -e .)")

TORQUE_RTOL = 1e-9
G = (0.0, 0.0, -9.81)


def cad_parameters(name: str) -> np.ndarray:
    """The built-in CAD inertials as standard parameters, with the written URDF's 1 g placeholder at the tcp."""
    chain = load_robot(name)
    return robot_parameters(builtin_inertials(name), chain.n_joints, tcp_mass=PLACEHOLDER_MASS,
                            tcp_inertia=PLACEHOLDER_INERTIA * np.eye(3), T_last_tcp=chain.T_last_tcp)


@pytest.mark.parametrize("name", BUILTIN_ROBOTS)
def test_regressor_equals_pybullet_inverse_dynamics(name, tmp_path, rng):
    chain = load_robot(name)
    urdf = write_robot_urdf(name, builtin_inertials(name), tmp_path / "robot.urdf")
    cid = p.connect(p.DIRECT)
    try:
        p.setGravity(*G, physicsClientId=cid)
        body = p.loadURDF(str(urdf), useFixedBase=True, flags=p.URDF_USE_INERTIA_FROM_FILE, physicsClientId=cid)
        n = chain.n_joints
        q = rng.uniform(chain.lower, chain.upper, (12, n))
        qd = rng.normal(0.0, 2.0, (12, n))
        qdd = rng.normal(0.0, 5.0, (12, n))
        tau = regressor(chain, q, qd, qdd, gravity=G) @ cad_parameters(name)
        want = np.array([p.calculateInverseDynamics(body, a.tolist(), b.tolist(), c.tolist(), physicsClientId=cid)
                         for a, b, c in zip(q, qd, qdd)])
    finally:
        p.disconnect(cid)
    scale = float(np.max(np.abs(want)))
    assert scale > 10.0  # not vacuous
    np.testing.assert_allclose(tau, want, rtol=0, atol=TORQUE_RTOL * scale)


def test_regressor_is_block_upper_triangular(rng):
    chain = load_robot("gofa")
    Y = regressor(chain, *random_states(chain, 20, rng))
    for i in range(chain.n_joints):
        assert np.all(Y[:, i, :10 * i] == 0.0)  # seed 001, slide 5: joint i sees links i..n only
        assert np.any(Y[:, i, 10 * i:] != 0.0)


def test_regressor_rejects_wrong_shapes():
    chain = load_robot("ur5")
    with pytest.raises(InputError, match=r"expected finite values of shape \(N, 6\)"):
        regressor(chain, np.zeros((3, 5)), np.zeros((3, 5)), np.zeros((3, 5)))


@pytest.mark.parametrize("name", ["gofa", "ur5"])
def test_base_parameters_reproduce_the_torques_and_do_not_depend_on_the_samples(name, rng):
    chain = load_robot(name)
    base = base_parameters(chain, np.random.default_rng(1))
    other = base_parameters(chain, np.random.default_rng(2))
    assert np.array_equal(base.independent, other.independent)
    np.testing.assert_allclose(base.beta, other.beta, rtol=0, atol=1e-9)
    # Khalil and Dombre: a general 6R arm without friction has 36 base parameters.
    assert base.n_base == 36
    # Fresh states: Y pi == Y_b pi_base for any pi.
    Y = regressor(chain, *random_states(chain, 50, rng))
    pi = rng.normal(0.0, 1.0, 60)
    np.testing.assert_allclose(base.columns(Y) @ base.base_from_standard(pi), Y @ pi, rtol=0,
                               atol=1e-9 * np.max(np.abs(Y @ pi)))
    # Joint 1 is vertical: link 1's mass and first moments never appear.
    assert {"link1.m", "link1.mcx", "link1.mcy", "link1.mcz"} <= set(base.unidentifiable)
    assert len(base.combinations()) == 36


def test_ur5_regrouping_names_the_upper_arm_length():
    base = base_parameters(load_robot("ur5"), np.random.default_rng(0))
    lines = base.combinations()
    # m_j of the links beyond joint 3 regroup onto link2's first moment through the 425 mm upper arm.
    row = next(line for line in lines if line.startswith("link2.mcx"))
    assert "- 0.425 link3.m" in row and "- 0.425 link6.m" in row
    assert any(line.startswith("link2.Iyy + 0.180625 link3.m") for line in lines)  # 0.425^2


def test_pseudo_inertia_is_positive_definite_exactly_for_physical_links(rng):
    for _ in range(200):
        mass = rng.uniform(0.1, 5.0)
        com = rng.uniform(-0.2, 0.2, 3)
        moments = rng.uniform(0.0, 0.1, 3)
        R = np.linalg.qr(rng.normal(size=(3, 3)))[0]
        I = R @ np.diag(moments) @ R.T
        try:
            check_inertia_tensor(I, "I")
            physical = True
        except InputError:
            physical = False
        assert is_consistent(link_parameters(mass, com, I)) == physical
        if physical:
            back = inertial_from_parameters(link_parameters(mass, com, I), "link")
            np.testing.assert_allclose(back.inertia, I, rtol=0, atol=1e-12)
            np.testing.assert_allclose(back.com, com, rtol=0, atol=1e-15)
    assert np.linalg.eigvalsh(pseudo_inertia(link_parameters(1.0, [0, 0, 0], np.diag([0.1, 0.1, 0.3]))))[0] < 0


@pytest.mark.parametrize("name", ["gofa", "ur5"])
def test_urdf_parameters_round_trip(name, tmp_path):
    urdf = write_robot_urdf(name, builtin_inertials(name), tmp_path / "robot.urdf")
    info = urdf_parameters_of(urdf)
    np.testing.assert_allclose(info.parameters, cad_parameters(name), rtol=0, atol=1e-15)
    changed = info.parameters * 1.2
    out = tmp_path / "changed.urdf"
    out.write_text(urdf_with_parameters(info, changed))
    np.testing.assert_allclose(urdf_parameters_of(out).parameters, changed, rtol=0, atol=1e-14)
