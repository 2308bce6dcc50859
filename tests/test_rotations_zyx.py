"""The one ZYX Euler convention (geometry.rotations.euler_zyx_from_matrix) against scipy's Rotation, and the two
vendor functions that read it (RAPID's ``EulerZYX``, URScript's ``rotvec2rpy``) through it.

scipy is the oracle: ``as_euler("ZYX")`` (intrinsic z, y', x'') is ``(z, y, x)``, and ``as_euler("xyz")`` (fixed
axes, roll-pitch-yaw) is the same three angles reversed. Near gimbal lock the individual angles are ill-defined:
there the angles must rebuild the rotation and ``y`` must match.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from thermocomp.geometry.rotations import euler_zyx_from_matrix, rot_x, rot_y, rot_z


def _rebuilt(zyx: np.ndarray) -> np.ndarray:
    return np.stack([rot_z(z) @ rot_y(y) @ rot_x(x) for z, y, x in zyx])


def test_random_rotations_match_scipy_both_ways_of_naming_them():
    R = Rotation.random(4000, random_state=11).as_matrix()
    zyx = euler_zyx_from_matrix(R)
    assert zyx.shape == (4000, 3)
    np.testing.assert_allclose(zyx, Rotation.from_matrix(R).as_euler("ZYX"), atol=1e-10)
    np.testing.assert_allclose(zyx[:, ::-1], Rotation.from_matrix(R).as_euler("xyz"), atol=1e-10)
    assert np.all(np.abs(zyx[:, 1]) <= math.pi / 2)


@pytest.mark.parametrize("cos_y", [1e-3, 1e-7, 1e-9, 1e-12, 0.0])
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_near_and_at_gimbal_lock_the_angles_rebuild_the_rotation(cos_y, sign):
    """``y`` = +-90 deg minus a little: ``z`` and ``x`` share one rotation about the same axis; the angles must
    still rebuild ``R`` to round-off, and ``y`` is scipy's."""
    rng = np.random.default_rng(5)
    y = sign * math.acos(cos_y)
    zyx_in = np.column_stack([rng.uniform(-math.pi, math.pi, 200), np.full(200, y),
                              rng.uniform(-math.pi, math.pi, 200)])
    R = _rebuilt(zyx_in)
    zyx = euler_zyx_from_matrix(R)
    np.testing.assert_allclose(_rebuilt(zyx), R, atol=1e-9)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy warns of the lock (it then sets its third angle to 0)
        scipy_zyx = Rotation.from_matrix(R).as_euler("ZYX")
    np.testing.assert_allclose(zyx[:, 1], scipy_zyx[:, 1], atol=1e-6)
    np.testing.assert_allclose(_rebuilt(scipy_zyx), R, atol=1e-6)  # (scipy's own, as a check of the check)
    if cos_y < 1e-10:
        assert np.all(zyx[:, 0] == 0.0)  # z = 0 at the lock: x takes the rotation


def test_rapid_eulerzyx_of_random_orientations_is_scipys_zyx():
    """RAPID's ``EulerZYX(\\Z|\\Y|\\X, orient)`` [deg] of random unit quaternions (w first) is scipy's
    ``as_euler("ZYX", degrees=True)``, angle by angle."""
    from thermocomp.programs.rapid_functions import evaluate_function

    rotations = Rotation.random(50, random_state=3)
    xyzw = rotations.as_quat()
    want = rotations.as_euler("ZYX", degrees=True)
    for q, angles in zip(xyzw, want):
        orient = [float(q[3]), float(q[0]), float(q[1]), float(q[2])]
        got = [evaluate_function("eulerzyx", [orient], {axis: None})[0] for axis in ("z", "y", "x")]
        np.testing.assert_allclose(got, angles, atol=1e-9)
