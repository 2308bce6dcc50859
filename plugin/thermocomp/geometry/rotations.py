"""Rotations and homogeneous transforms, singular and batch forms side by side.

Conventions (docs/conventions.md): right-handed frames, active rotations,
column vectors. ``T_a_b`` is the pose of frame b in frame a, so
``T_a_c = T_a_b @ T_b_c``. Quaternions are w-first (``quat_wxyz``) as in
ABB RAPID robtargets. Euler "xyz" is CoppeliaSim's convention:
``R = Rx(alpha) @ Ry(beta) @ Rz(gamma)`` (intrinsic x, y', z'').
Every function accepts a leading batch shape ``(...)``.
"""

from __future__ import annotations

import numpy as np

from thermocomp._typing import ArrayLike, FloatArray
from thermocomp.geometry.vectors import row_norms

#: ``cos(b)`` below which Euler xyz angles count as gimbal-locked (``a = 0``):
#: a tenth of the IK orientation tolerance, so the choice is invisible to it.
GIMBAL_LOCK_COS = 1e-10


def rot_x(angle: ArrayLike) -> FloatArray:
    """Rotation about x by ``angle`` [rad]; shape ``(..., 3, 3)``."""
    return rot_axis(np.array([1.0, 0.0, 0.0]), angle)


def rot_y(angle: ArrayLike) -> FloatArray:
    """Rotation about y by ``angle`` [rad]; shape ``(..., 3, 3)``."""
    return rot_axis(np.array([0.0, 1.0, 0.0]), angle)


def rot_z(angle: ArrayLike) -> FloatArray:
    """Rotation about z by ``angle`` [rad]; shape ``(..., 3, 3)``."""
    return rot_axis(np.array([0.0, 0.0, 1.0]), angle)


def skew(v: ArrayLike) -> FloatArray:
    """Cross-product matrix of ``v`` (shape ``(..., 3)``): ``skew(v) @ u == v x u``."""
    v = np.asarray(v, dtype=float)
    zero = np.zeros(v.shape[:-1])
    return np.stack(
        [
            np.stack([zero, -v[..., 2], v[..., 1]], axis=-1),
            np.stack([v[..., 2], zero, -v[..., 0]], axis=-1),
            np.stack([-v[..., 1], v[..., 0], zero], axis=-1),
        ],
        axis=-2,
    )


def rot_axis(axis: ArrayLike, angle: ArrayLike) -> FloatArray:
    """Rotation by ``angle`` [rad] about the unit vector ``axis`` (Rodrigues).

    Parameters
    ----------
    axis
        Unit rotation axis, shape ``(..., 3)``.
    angle
        Angle [rad], shape ``(...)``; broadcast against ``axis[..., 0]``.

    Returns
    -------
    R : ndarray, shape ``(..., 3, 3)``
    """
    axis = np.asarray(axis, dtype=float)
    angle = np.asarray(angle, dtype=float)
    K = skew(axis)
    s = np.sin(angle)[..., None, None]
    c = np.cos(angle)[..., None, None]
    return np.eye(3) + s * K + (1.0 - c) * (K @ K)


def matrix_from_euler_xyz(angles: ArrayLike) -> FloatArray:
    """``R = Rx(a) @ Ry(b) @ Rz(c)`` from ``angles = (a, b, c)`` [rad], shape ``(..., 3)``.

    This is CoppeliaSim's (alpha, beta, gamma) convention and the orientation
    of the paper's target tables (seed 002, Table 12). Written out entry by
    entry: the batch fast path of every deformed model.
    """
    angles = np.asarray(angles, dtype=float)
    ca, cb, cc = np.cos(angles[..., 0]), np.cos(angles[..., 1]), np.cos(angles[..., 2])
    sa, sb, sc = np.sin(angles[..., 0]), np.sin(angles[..., 1]), np.sin(angles[..., 2])
    R = np.empty(angles.shape[:-1] + (3, 3))
    R[..., 0, 0] = cb * cc
    R[..., 0, 1] = -cb * sc
    R[..., 0, 2] = sb
    R[..., 1, 0] = ca * sc + sa * sb * cc
    R[..., 1, 1] = ca * cc - sa * sb * sc
    R[..., 1, 2] = -sa * cb
    R[..., 2, 0] = sa * sc - ca * sb * cc
    R[..., 2, 1] = sa * cc + ca * sb * sc
    R[..., 2, 2] = ca * cb
    return R


def euler_xyz_from_matrix(R: ArrayLike) -> FloatArray:
    """Inverse of :func:`matrix_from_euler_xyz`: ``(a, b, c)`` [rad] with ``b`` in [-pi/2, pi/2].

    ``b = atan2(R02, hypot(R12, R22))`` and ``a = atan2(-R12, R22)``; then
    ``c`` is read from ``Ry(b)^T Rx(a)^T R``, so that near gimbal lock, where
    ``a`` and ``c`` are individually ill-defined, any error of ``a`` is taken
    up by ``c`` and the angles still rebuild ``R`` to round-off.

    Within :data:`GIMBAL_LOCK_COS` of the lock (``cos b`` below it), where
    ``a`` would only reflect round-off, this returns ``a = 0``: the rebuilt
    rotation is then off by at most ``pi * GIMBAL_LOCK_COS`` (3e-10 rad),
    and a target typed as (0, 90, 0) reads back as (0, 90, 0), not as an
    equivalent (-151, 90, 151).
    """
    R = np.asarray(R, dtype=float)
    cos_b = np.hypot(R[..., 1, 2], R[..., 2, 2])
    b = np.arctan2(R[..., 0, 2], cos_b)
    a = np.where(cos_b > GIMBAL_LOCK_COS, np.arctan2(-R[..., 1, 2], R[..., 2, 2]), 0.0)
    # M = (Rx(a) Ry(b))^T R = Rz(c) up to round-off; its entries (1, 0) and (0, 0) written out
    ca, sa, cb, sb = np.cos(a), np.sin(a), np.cos(b), np.sin(b)
    r00, r10, r20 = R[..., 0, 0], R[..., 1, 0], R[..., 2, 0]
    c = np.arctan2(ca * r10 + sa * r20, cb * r00 + sb * (sa * r10 - ca * r20))
    return np.stack([a, b, c], axis=-1)


def euler_zyx_from_matrix(R: ArrayLike) -> FloatArray:
    """``(z, y, x)`` [rad] with ``R = Rz(z) @ Ry(y) @ Rx(x)``, ``y`` in [-pi/2, pi/2]; shape ``(..., 3)``.

    The one ZYX convention of the vendors' languages (docs/conventions.md): intrinsic rotations about z, then
    the new y, then the new x, which is the fixed-axis roll-pitch-yaw ``(x, y, z)`` that URScript's
    ``rotvec2rpy`` returns as ``[x, y, z]`` and RAPID's ``EulerZYX`` reads one angle of (scipy:
    ``Rotation.as_euler("ZYX")``, or ``as_euler("xyz")`` reversed).

    ``y = atan2(-R20, hypot(R00, R10))`` and ``z = atan2(R10, R00)``; then ``x`` is read from
    ``Rz(z)^T R = Ry(y) Rx(x)``, so that near gimbal lock any error of ``z`` is taken up by ``x`` and the angles
    still rebuild ``R`` to round-off. Within :data:`GIMBAL_LOCK_COS` of the lock (``cos y`` below it) ``z = 0``,
    as :func:`euler_xyz_from_matrix` does with its first angle.
    """
    R = np.asarray(R, dtype=float)
    cos_y = np.hypot(R[..., 0, 0], R[..., 1, 0])
    y = np.arctan2(-R[..., 2, 0], cos_y)
    z = np.where(cos_y > GIMBAL_LOCK_COS, np.arctan2(R[..., 1, 0], R[..., 0, 0]), 0.0)
    # row 1 of N = Rz(z)^T R = Ry(y) Rx(x) is (0, cos x, -sin x)
    cz, sz = np.cos(z), np.sin(z)
    x = np.arctan2(sz * R[..., 0, 2] - cz * R[..., 1, 2], cz * R[..., 1, 1] - sz * R[..., 0, 1])
    return np.stack([z, y, x], axis=-1)


def matrix_from_quat_wxyz(q: ArrayLike) -> FloatArray:
    """Rotation matrix from a unit quaternion ``(w, x, y, z)``, shape ``(..., 4)``.

    The quaternion is normalised; callers validate its norm first
    (:func:`thermocomp.geometry.checks.check_quat_wxyz`).
    """
    q = np.asarray(q, dtype=float)
    q = q / np.linalg.norm(q, axis=-1, keepdims=True)
    w, x, y, z = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    return np.stack(
        [
            np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], axis=-1),
            np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], axis=-1),
            np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], axis=-1),
        ],
        axis=-2,
    )


#: Shepperd's method: for two quaternion components (w, x, y, z = 0..3), the matrix entries ``(a, b)`` and
#: ``(c, d)`` whose difference (a pair with w) or sum (the others) is 4 times their product.
_SHEPPERD_PAIRS = {(0, 1): (2, 1, 1, 2), (0, 2): (0, 2, 2, 0), (0, 3): (1, 0, 0, 1),
                   (1, 2): (0, 1, 1, 0), (1, 3): (0, 2, 2, 0), (2, 3): (1, 2, 2, 1)}


def quat_wxyz_from_matrix(R: ArrayLike) -> FloatArray:
    """Unit quaternion ``(w, x, y, z)`` with ``w >= 0`` from a rotation matrix ``(..., 3, 3)``."""
    R = np.asarray(R, dtype=float)
    shape = R.shape[:-2]
    R = R.reshape(-1, 3, 3)
    # Shepperd's method: pick the largest of the four diagonal combinations (4 times a component squared)
    m00, m11, m22 = R[:, 0, 0], R[:, 1, 1], R[:, 2, 2]
    cand = np.stack([1 + m00 + m11 + m22, 1 + m00 - m11 - m22, 1 - m00 + m11 - m22, 1 - m00 - m11 + m22], axis=-1)
    k = np.argmax(cand, axis=-1)
    q = np.empty((len(R), 4))
    for i in np.unique(k).tolist():  # the rows of each combination, with only its own formulas
        at = slice(None) if np.all(k == i) else np.flatnonzero(k == i)
        Ri = R[at]
        s = 2.0 * np.sqrt(cand[at, i])  # 4 times component i
        for j in range(4):
            if j == i:
                q[at, j] = s / 4
                continue
            a, b, c, d = _SHEPPERD_PAIRS[min(i, j), max(i, j)]
            q[at, j] = (Ri[:, a, b] - Ri[:, c, d] if 0 in (i, j) else Ri[:, a, b] + Ri[:, c, d]) / s
    return (q * np.where(q[:, :1] < 0, -1.0, 1.0)).reshape(shape + (4,))


def matrix_from_rotvec(v: ArrayLike) -> FloatArray:
    """Rotation matrix from a rotation vector (axis times angle [rad]), shape ``(..., 3)``.

    This is UR's (RX, RY, RZ) orientation convention.
    """
    v = np.asarray(v, dtype=float)
    angle = row_norms(v)
    safe = np.where(angle > 0, angle, 1.0)
    axis = np.where((angle > 0)[..., None], v / safe[..., None], np.array([0.0, 0.0, 1.0]))
    return rot_axis(axis, angle)


def rotvec_from_matrix(R: ArrayLike) -> FloatArray:
    """Rotation vector (axis times angle, angle in [0, pi]) of ``R``, shape ``(..., 3)``.

    Accurate at every angle: ``v = vee(R - R^T) = 2 sin(angle) axis`` and
    ``angle = atan2(|v| / 2, (trace - 1) / 2)`` away from pi; near pi, where
    ``v`` vanishes, the quaternion of :func:`quat_wxyz_from_matrix` is used.
    """
    R = np.asarray(R, dtype=float)
    v = np.stack([R[..., 2, 1] - R[..., 1, 2], R[..., 0, 2] - R[..., 2, 0], R[..., 1, 0] - R[..., 0, 1]], axis=-1)
    half_norm = 0.5 * row_norms(v)  # sin(angle)
    cos_angle = 0.5 * (R[..., 0, 0] + R[..., 1, 1] + R[..., 2, 2] - 1.0)
    angle = np.arctan2(half_norm, cos_angle)
    # angle / (2 sin angle) -> 1/2 as angle -> 0 (the error of the series is angle^2 / 12)
    scale = np.where(half_norm > 1e-8, angle / np.maximum(2.0 * half_norm, 1e-300), 0.5 + angle * angle / 12.0)
    out = v * scale[..., None]
    near_pi = cos_angle < -0.9
    if np.any(near_pi):
        q = quat_wxyz_from_matrix(R[near_pi])
        n = np.linalg.norm(q[..., 1:], axis=-1)
        out[near_pi] = q[..., 1:] * (2.0 * np.arctan2(n, q[..., 0]) / n)[..., None]
    return out


def rotation_angle(R: ArrayLike) -> FloatArray:
    """Angle [rad] in [0, pi] of the rotation ``R``, shape ``(...)``; exact near 0."""
    return row_norms(rotvec_from_matrix(R))


def transform(R: ArrayLike | None = None, p: ArrayLike | None = None) -> FloatArray:
    """Homogeneous transform ``(..., 4, 4)`` from a rotation ``(..., 3, 3)`` and a translation ``(..., 3)``."""
    R = np.eye(3) if R is None else np.asarray(R, dtype=float)
    p = np.zeros(3) if p is None else np.asarray(p, dtype=float)
    shape = np.broadcast_shapes(R.shape[:-2], p.shape[:-1])
    T = np.zeros(shape + (4, 4))
    T[..., :3, :3] = R
    T[..., :3, 3] = p
    T[..., 3, 3] = 1.0
    return T


def invert_transform(T: ArrayLike) -> FloatArray:
    """Inverse of a rigid transform ``(..., 4, 4)``: ``T_b_a`` from ``T_a_b``."""
    T = np.asarray(T, dtype=float)
    R = T[..., :3, :3]
    Rt = np.swapaxes(R, -1, -2)
    return transform(Rt, -(Rt @ T[..., :3, 3:4])[..., 0])
