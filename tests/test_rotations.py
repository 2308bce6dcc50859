"""Quaternions from rotation matrices (geometry.rotations.quat_wxyz_from_matrix) against scipy's Rotation.

Shepperd's method takes one of four formulas per row, by the largest diagonal combination; a batch mixes
them, and each row's quaternion must not depend on the other rows of its batch.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from thermocomp.geometry.rotations import matrix_from_quat_wxyz, quat_wxyz_from_matrix


def _scipy_wxyz(R: np.ndarray) -> np.ndarray:
    xyzw = Rotation.from_matrix(R).as_quat()
    q = np.concatenate([xyzw[:, 3:], xyzw[:, :3]], axis=1)
    return q * np.where(q[:, :1] < 0, -1.0, 1.0)


def test_random_rotations_match_scipy():
    R = Rotation.random(5000, random_state=4).as_matrix()
    q = quat_wxyz_from_matrix(R)
    assert np.all(q[:, 0] >= 0)
    assert np.allclose(q, _scipy_wxyz(R), atol=1e-12)


@pytest.mark.parametrize("axis", [None, 0, 1, 2])
def test_each_formula_near_its_half_turn(axis):
    """Rotations near the identity (w largest) and near half turns about x, y, z (x, y or z largest)."""
    rng = np.random.default_rng(5)
    small = Rotation.from_rotvec(rng.normal(scale=0.2, size=(200, 3)))
    base = Rotation.identity() if axis is None else Rotation.from_rotvec(np.pi * np.eye(3)[axis])
    R = (base * small).as_matrix()
    q = quat_wxyz_from_matrix(R)
    largest = np.argmax(np.abs(q), axis=1)
    assert np.all(largest == (0 if axis is None else axis + 1))  # the case this test is about
    assert np.allclose(q, _scipy_wxyz(R), atol=1e-12)
    assert np.allclose(matrix_from_quat_wxyz(q), R, atol=1e-12)


def test_a_row_does_not_depend_on_its_batch():
    R = Rotation.random(400, random_state=6).as_matrix()
    whole = quat_wxyz_from_matrix(R)
    one_by_one = np.array([quat_wxyz_from_matrix(r) for r in R])
    assert np.array_equal(whole, one_by_one)  # bit for bit
    assert quat_wxyz_from_matrix(R.reshape(20, 20, 3, 3)).shape == (20, 20, 4)
    assert np.array_equal(quat_wxyz_from_matrix(R.reshape(20, 20, 3, 3)).reshape(400, 4), whole)
    assert quat_wxyz_from_matrix(np.zeros((0, 3, 3))).shape == (0, 4)
    assert np.array_equal(quat_wxyz_from_matrix(np.eye(3)), [1.0, 0.0, 0.0, 0.0])
