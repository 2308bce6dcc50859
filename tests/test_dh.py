"""DH parameters to table form (thermocomp.robot.dh) against independent DH products.

The oracle multiplies the DH link matrices written out here with numpy's own
sin and cos, so it shares no code with the conversion.
"""

from __future__ import annotations

import numpy as np
import pytest

from thermocomp.errors import InputError
from thermocomp.io.robots import load_robot
from thermocomp.kinematics.fk import fk_matrix
from thermocomp.kinematics.model import nominal_model
from thermocomp.robot.dh import chain_from_dh

#: FK agreement of two exact descriptions [m] and [1] (matrix entries): a
#: 6-joint product of 4x4 matrices on a ~1 m robot accumulates ~1e-15 of
#: round-off; 1e-12 leaves a thousandfold margin and catches any modelling slip.
EXACT = 1e-12


def standard_dh(a, alpha, d, theta):
    """``Rz(theta) Tz(d) Tx(a) Rx(alpha)``, written out."""
    ct, st, ca, sa = np.cos(theta), np.sin(theta), np.cos(alpha), np.sin(alpha)
    return np.array([
        [ct, -st * ca, st * sa, a * ct],
        [st, ct * ca, -ct * sa, a * st],
        [0.0, sa, ca, d],
        [0.0, 0.0, 0.0, 1.0],
    ])


def modified_dh(a, alpha, d, theta):
    """``Rx(alpha) Tx(a) Rz(theta) Tz(d)`` (Craig), written out."""
    ct, st, ca, sa = np.cos(theta), np.sin(theta), np.cos(alpha), np.sin(alpha)
    return np.array([
        [ct, -st, 0.0, a],
        [st * ca, ct * ca, -sa, -sa * d],
        [st * sa, ct * sa, ca, ca * d],
        [0.0, 0.0, 0.0, 1.0],
    ])


def dh_fk(a, alpha, d, offset, q, modified, T_world_base=None, T_flange_tcp=None):
    link = modified_dh if modified else standard_dh
    T_flange_tcp = np.eye(4) if T_flange_tcp is None else T_flange_tcp
    T = np.eye(4) if T_world_base is None else T_world_base.copy()
    for i in range(len(a)):
        T = T @ link(a[i], alpha[i], d[i], q[i] + offset[i])
    return T @ T_flange_tcp


def random_transform(rng: np.random.Generator) -> np.ndarray:
    Q, R = np.linalg.qr(rng.normal(size=(3, 3)))
    Q = Q * np.sign(np.diag(R))
    if np.linalg.det(Q) < 0:
        Q[:, 0] = -Q[:, 0]
    T = np.eye(4)
    T[:3, :3] = Q
    T[:3, 3] = rng.uniform(-0.5, 0.5, 3)
    return T


@pytest.mark.parametrize("modified", [False, True], ids=["standard", "modified"])
@pytest.mark.parametrize("seed", range(5))
def test_fk_equals_product_of_dh_matrices(modified: bool, seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 8))
    a, d = rng.uniform(-0.5, 0.5, n), rng.uniform(-0.5, 0.5, n)
    alpha = rng.choice([0.0, np.pi / 2, -np.pi / 2, np.pi, 0.3, -1.1], n)
    offset = rng.uniform(-np.pi, np.pi, n)
    T_world_base, T_flange_tcp = random_transform(rng), random_transform(rng)
    chain = chain_from_dh(
        a, alpha, d, offset, modified=modified, name="random", lower=np.full(n, -4.0), upper=np.full(n, 4.0),
        T_world_base=T_world_base, T_flange_tcp=T_flange_tcp,
    )
    q = rng.uniform(-4.0, 4.0, (50, n))
    ours = fk_matrix(nominal_model(chain), q)
    oracle = np.array([dh_fk(a, alpha, d, offset, qk, modified, T_world_base, T_flange_tcp) for qk in q])
    np.testing.assert_allclose(ours, oracle, rtol=0, atol=EXACT)


def test_offsets_fold_into_zero_pose() -> None:
    """Model angles are controller angles: offsets become geometry, not ``Chain.offset``."""
    chain = chain_from_dh([0.1, 0.2], [0.0, 0.0], [0.0, 0.0], [np.pi / 2, 0.0], name="planar", lower=[-1, -1], upper=[1, 1])
    np.testing.assert_array_equal(chain.offset, 0.0)
    np.testing.assert_array_equal(chain.sign, 1.0)
    # joint 1 turned by its 90 deg offset: joint 2 sits 0.1 m along +y at q = 0
    np.testing.assert_allclose(chain.p[1], [0.0, 0.1, 0.0], atol=0)


def test_right_angles_give_exact_zeros() -> None:
    """A UR5 (twists of +-pi/2) gets exact 0 and +-1 axes, not 6e-17."""
    chain = load_robot("ur5")
    assert set(np.unique(chain.axis)) <= {-1.0, 0.0, 1.0}


def test_irb140_dh_equals_builtin_table() -> None:
    """ABB's IRB140 DH (352, 70, 360, 380, 65 mm; theta2 offset -90 deg) is the paper's table.

    The DH flange frame differs from ABB's tool0 by a half turn about its z.
    """
    pi = np.pi
    T_flange_tool0 = np.diag([-1.0, -1.0, 1.0, 1.0])
    table = load_robot("irb140")
    dh = chain_from_dh(
        [0.070, 0.360, 0.0, 0.0, 0.0, 0.0], [-pi / 2, 0.0, -pi / 2, pi / 2, -pi / 2, 0.0],
        [0.352, 0.0, 0.0, 0.380, 0.0, 0.065], [0.0, -pi / 2, 0.0, 0.0, 0.0, 0.0],
        name="irb140_dh", lower=table.lower, upper=table.upper, T_flange_tcp=T_flange_tool0,
    )
    np.testing.assert_array_equal(dh.axis, table.axis)
    q = np.random.default_rng(7).uniform(table.lower, table.upper, (100, 6))
    np.testing.assert_allclose(fk_matrix(nominal_model(dh), q), fk_matrix(nominal_model(table), q), rtol=0, atol=EXACT)


def test_defaults_and_names() -> None:
    chain = chain_from_dh([0.0, 0.3], [0.0, 0.0], [0.1, 0.0], [0.0, 0.0], name="two", lower=[-1, -1], upper=[1, 1])
    assert chain.joint_names == ("joint1", "joint2")
    assert np.all(np.isinf(chain.velocity))
    np.testing.assert_array_equal(chain.home, 0.0)


def test_mismatched_lengths_are_an_error() -> None:
    with pytest.raises(InputError, match="alpha"):
        chain_from_dh([0.0, 0.3], [0.0], [0.1, 0.0], [0.0, 0.0], name="bad", lower=[-1, -1], upper=[1, 1])


def test_non_rigid_tool_is_an_error() -> None:
    with pytest.raises(InputError, match="T_flange_tcp"):
        chain_from_dh([0.3], [0.0], [0.1], [0.0], name="bad", lower=[-1], upper=[1], T_flange_tcp=2 * np.eye(4))
