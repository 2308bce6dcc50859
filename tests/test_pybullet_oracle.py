"""The independent oracle: PyBullet's forward kinematics of our URDF equals our FK.

For each built-in robot, random deformation tables (base, joint and tool rows)
and random configurations within the limits, the deformed model is written
as URDF (thermocomp.io.urdf), loaded in PyBullet, and the TCP link's pose
compared with :func:`thermocomp.kinematics.fk.fk` (seed 002, Eqs. 18-22).
STYLE.md practice 16.

Which PyBullet output is compared (measured with PyBullet 3.2.7):
``getLinkState`` returns the link's inertial frame in double precision
(``linkWorldPosition``/``Orientation``, items 0 and 1) but its URDF link frame
(``worldLinkFramePosition``/``Orientation``, items 4 and 5) rounded through
single precision: 0.515 m comes back as 0.5149999856948853 (float32), the
orientation off by up to ~4e-7 rad. Our URDF puts every inertial frame at its
link frame (``<inertial><origin xyz="0 0 0" rpy="0 0 0"/>``, checked below via
items 2 and 3), so items 0 and 1 *are* the link frame, in double: they are
held to the solver's tolerances. Items 4 and 5 are checked against them to
single precision.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from thermocomp.deformation.apply import deformed_model
from thermocomp.deformation.table import DeformationTable
from thermocomp.geometry.rotations import matrix_from_quat_wxyz, rotation_angle
from thermocomp.io.robots import BUILTIN_ROBOTS, load_robot
from thermocomp.io.urdf import write_urdf
from thermocomp.kinematics.fk import fk
from thermocomp.kinematics.model import nominal_model
from thermocomp.robot.chain import Chain
from thermocomp.tolerances import IK_ORIENTATION_TOL, IK_POSITION_TOL

p = pytest.importorskip("pybullet", reason="pybullet is a dependency of thermocomp (pip install -e .)")

#: Double-precision agreement is the claim: a pose PyBullet computes from our
#: URDF must be as good as one our IK converges to (tolerances.IK_*_TOL).
POSITION_TOL = IK_POSITION_TOL
ORIENTATION_TOL = IK_ORIENTATION_TOL
#: Items 4 and 5 of getLinkState pass through float32: 2^-24 relative on a
#: ~1 m reach is 6e-8 m, and its quaternions carry ~4e-7 rad; 1e-6 bounds both.
SINGLE_PRECISION_TOL = 1e-6

#: Deformation amplitudes: a few millimetres and about a degree, far beyond
#: real thermal drift, so a convention slip shows up as millimetres.
MAX_SHIFT = 3e-3  # [m]
MAX_ANGLE = np.radians(1.0)  # [rad]
N_TABLES = 3
N_CONFIGURATIONS = 25


@pytest.fixture(scope="module")
def client() -> Iterator[int]:
    cid = p.connect(p.DIRECT)
    yield cid
    p.disconnect(physicsClientId=cid)


def random_table(chain: Chain, rng: np.random.Generator) -> DeformationTable:
    def rows(k: int) -> np.ndarray:
        return np.hstack([rng.uniform(-MAX_SHIFT, MAX_SHIFT, (k, 3)), rng.uniform(-MAX_ANGLE, MAX_ANGLE, (k, 3))])

    return DeformationTable(joints=rows(chain.n_joints), base=rows(1)[0], tool=rows(1)[0], source="random")


def matrix_from_pybullet_quat_xyzw(quat_xyzw: tuple[float, float, float, float]) -> np.ndarray:
    """PyBullet quaternions are (x, y, z, w)."""
    x, y, z, w = quat_xyzw
    return matrix_from_quat_wxyz([w, x, y, z])


def pybullet_tcp_poses(client: int, urdf: Path, chain: Chain, q: np.ndarray) -> list[tuple]:
    """``getLinkState`` of the ``tcp`` link at each configuration (controller angles ``q``)."""
    body = p.loadURDF(str(urdf), useFixedBase=True, flags=p.URDF_USE_INERTIA_FROM_FILE, physicsClientId=client)
    try:
        infos = [p.getJointInfo(body, j, physicsClientId=client) for j in range(p.getNumJoints(body, physicsClientId=client))]
        revolute = [info[0] for info in infos if info[2] == p.JOINT_REVOLUTE]
        assert [infos[j][1].decode() for j in revolute] == list(chain.joint_names)
        (tcp,) = [info[0] for info in infos if info[12] == b"tcp"]
        states = []
        for theta in chain.theta_from_q(q):  # the URDF holds model angles
            for joint, angle in zip(revolute, theta):
                p.resetJointState(body, joint, angle, physicsClientId=client)
            states.append(p.getLinkState(body, tcp, computeForwardKinematics=True, physicsClientId=client))
        return states
    finally:
        p.removeBody(body, physicsClientId=client)


def assert_pybullet_matches(client: int, tmp_path: Path, chain: Chain, model, q: np.ndarray) -> None:
    urdf = tmp_path / f"{chain.name}.urdf"
    write_urdf(model, urdf)
    R_ours, p_ours = fk(model, q)
    for k, state in enumerate(pybullet_tcp_poses(client, urdf, chain, q)):
        # Inertial frame at the link frame, so items 0 and 1 are the link frame.
        assert state[2] == (0.0, 0.0, 0.0) and state[3] == (0.0, 0.0, 0.0, 1.0)
        pos, R = np.array(state[0]), matrix_from_pybullet_quat_xyzw(state[1])
        np.testing.assert_allclose(pos, p_ours[k], rtol=0, atol=POSITION_TOL)
        assert rotation_angle(R.T @ R_ours[k]) < ORIENTATION_TOL
        link_pos, link_R = np.array(state[4]), matrix_from_pybullet_quat_xyzw(state[5])
        np.testing.assert_allclose(link_pos, p_ours[k], rtol=0, atol=SINGLE_PRECISION_TOL)
        assert rotation_angle(link_R.T @ R_ours[k]) < SINGLE_PRECISION_TOL


@pytest.mark.parametrize("robot", BUILTIN_ROBOTS)
@pytest.mark.parametrize("seed", range(N_TABLES))
def test_deformed_robot_in_pybullet_equals_our_fk(client: int, tmp_path: Path, robot: str, seed: int) -> None:
    chain = load_robot(robot)
    rng = np.random.default_rng([seed, BUILTIN_ROBOTS.index(robot)])
    model = deformed_model(chain, random_table(chain, rng), fraction=rng.uniform(0.2, 1.0))
    q = rng.uniform(chain.lower, chain.upper, (N_CONFIGURATIONS, chain.n_joints))
    assert_pybullet_matches(client, tmp_path, chain, model, q)


@pytest.mark.parametrize("robot", BUILTIN_ROBOTS)
def test_nominal_robot_in_pybullet_equals_our_fk(client: int, tmp_path: Path, robot: str) -> None:
    chain = load_robot(robot)
    q = np.vstack([np.zeros(chain.n_joints), chain.home,
                   np.random.default_rng(3).uniform(chain.lower, chain.upper, (10, chain.n_joints))])
    assert_pybullet_matches(client, tmp_path, chain, nominal_model(chain), q)


def test_signs_and_offsets_in_pybullet(client: int, tmp_path: Path) -> None:
    """A chain whose controller angles differ from its model angles (sign -1, offsets)."""
    base = load_robot("irb140")
    chain = base.replace(sign=[1.0, -1.0, -1.0, 1.0, -1.0, 1.0], offset=np.radians([10.0, -90.0, 0.0, 5.0, 0.0, -30.0]))
    rng = np.random.default_rng(4)
    model = deformed_model(chain, random_table(chain, rng))
    q = rng.uniform(chain.lower, chain.upper, (N_CONFIGURATIONS, 6))
    assert_pybullet_matches(client, tmp_path, chain, model, q)


@pytest.mark.parametrize("robot", BUILTIN_ROBOTS)
def test_zero_table_is_the_nominal_robot_exactly(robot: str) -> None:
    chain = load_robot(robot)
    zero, nominal = deformed_model(chain, DeformationTable.zero(chain.n_joints)), nominal_model(chain)
    for name in ("R_base", "p_base", "R_joint", "p_joint", "R_tool", "p_tool"):
        assert np.array_equal(getattr(zero, name), getattr(nominal, name)), name
    q = np.random.default_rng(5).uniform(chain.lower, chain.upper, (20, chain.n_joints))
    for a, b in zip(fk(zero, q), fk(nominal, q)):
        assert np.array_equal(a, b)
