"""Forward kinematics and the geometric Jacobian of a :class:`KinematicModel`.

Seed 002, Eqs. 18-22 (the extended forward geometric model). Batch form is
the only form: a single configuration is a batch of shape ``()``.
"""

from __future__ import annotations

import numpy as np

from thermocomp._typing import ArrayLike, FloatArray
from thermocomp.geometry.rotations import skew
from thermocomp.kinematics.dispatch import runs_compiled
from thermocomp.kinematics.model import KinematicModel


def _principal_axis(axis: FloatArray) -> tuple[int, float] | None:
    """``(k, sign)`` when ``axis`` is exactly +-e_k, else None."""
    nonzero = np.flatnonzero(axis)
    if nonzero.size == 1 and abs(axis[nonzero[0]]) == 1.0:
        return int(nonzero[0]), float(axis[nonzero[0]])
    return None


def _rotate_about(R: FloatArray, axis: FloatArray, s: FloatArray, c: FloatArray) -> FloatArray:
    """``R @ Rot(axis, theta)`` given ``s = sin(theta)``, ``c = cos(theta)`` of shape ``(...)``.

    For a principal axis (most industrial joints) only two columns of ``R``
    mix, which is several times faster than a batched 3x3 product.
    """
    principal = _principal_axis(axis)
    if principal is None:
        K = skew(axis)
        rot = np.eye(3) + s[..., None, None] * K + (1.0 - c[..., None, None]) * (K @ K)
        return R @ rot
    k, sign = principal
    i, j = (k + 1) % 3, (k + 2) % 3  # right-handed: e_i x e_j = e_k
    s = sign * s
    out = np.empty(np.broadcast_shapes(R.shape, s.shape + (3, 3)))
    out[..., :, k] = R[..., :, k]
    out[..., :, i] = c[..., None] * R[..., :, i] + s[..., None] * R[..., :, j]
    out[..., :, j] = c[..., None] * R[..., :, j] - s[..., None] * R[..., :, i]
    return out


def _axis_in_world(R: FloatArray, axis: FloatArray) -> FloatArray:
    """``R @ axis`` ``(..., 3)``; for a principal axis, the column of ``R`` it picks (the same values)."""
    principal = _principal_axis(axis)
    if principal is None:
        return R @ axis
    k, sign = principal
    return R[..., :, k] if sign > 0 else -R[..., :, k]


def _cross(a: FloatArray, b: FloatArray) -> FloatArray:
    """``a x b`` over the last axis, broadcast: the formula of :func:`numpy.cross`, without its
    moving of axes (about twice as fast on ``(m, n, 3)`` batches)."""
    out = np.empty(np.broadcast_shapes(a.shape, b.shape))
    out[..., 0] = a[..., 1] * b[..., 2] - a[..., 2] * b[..., 1]
    out[..., 1] = a[..., 2] * b[..., 0] - a[..., 0] * b[..., 2]
    out[..., 2] = a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]
    return out


def _walk(model: KinematicModel, q: ArrayLike, jacobian: bool):
    """Compose ``F_base (F_1 Rot_1) ... (F_n Rot_n) F_tool``, keeping joint origins and axes."""
    chain = model.chain
    theta = chain.theta_from_q(np.asarray(q, dtype=float))
    batch = np.broadcast_shapes(theta.shape[:-1], model.batch_shape)
    R = np.broadcast_to(model.R_base, batch + (3, 3))
    p = np.broadcast_to(model.p_base, batch + (3,))
    n = chain.n_joints
    if jacobian:
        origins = np.empty(batch + (n, 3))
        axes = np.empty(batch + (n, 3))
    sin, cos = np.sin(theta), np.cos(theta)
    for i in range(n):
        p = p + np.einsum("...ij,...j->...i", R, model.p_joint[..., i, :])
        if not model.nominal_rotations:
            R = R @ model.R_joint[..., i, :, :]
        if jacobian:
            origins[..., i, :] = p
            axes[..., i, :] = _axis_in_world(R, chain.axis[i])
        R = _rotate_about(R, chain.axis[i], sin[..., i], cos[..., i])
    p = p + np.einsum("...ij,...j->...i", R, model.p_tool)
    R = R @ model.R_tool
    if not jacobian:
        return R, p, None
    return R, p, (origins, axes)


def _jacobian(chain, p: FloatArray, origins: FloatArray, axes: FloatArray) -> FloatArray:
    n = chain.n_joints
    J = np.empty(p.shape[:-1] + (6, n))
    J[..., :3, :] = np.swapaxes(_cross(axes, p[..., None, :] - origins), -1, -2)
    J[..., 3:, :] = np.swapaxes(axes, -1, -2)
    J *= chain.sign  # d theta / d q
    return J


def fk(model: KinematicModel, q: ArrayLike) -> tuple[FloatArray, FloatArray]:
    """Pose of the TCP in the world frame.

    Parameters
    ----------
    model
        Kinematic model, batch shape ``B`` (may be ``()``).
    q
        Controller joint angles [rad], shape ``(..., n)``, broadcast with ``B``.

    Returns
    -------
    R_world_tcp : ndarray, shape ``(..., 3, 3)``
    p_world_tcp : ndarray, shape ``(..., 3)`` [m]
    """
    q = np.asarray(q, dtype=float)
    if _runs_compiled(model, q):
        return _fk_compiled(model, q)
    R, p, _ = _walk(model, q, jacobian=False)
    return R, p


def _runs_compiled(model: KinematicModel, q: FloatArray) -> bool:
    """A batch of ``(m, n)`` rows (:func:`~thermocomp.kinematics.dispatch.runs_compiled`), on one model or one per
    row: the engine's walk (:mod:`thermocomp.kinematics.engine`, the same products in the same order as
    :func:`_walk`, to round-off)."""
    return q.ndim == 2 and runs_compiled(q.shape[0]) and model.batch_shape in ((), q.shape[:1])


def _fk_compiled(model: KinematicModel, q: FloatArray) -> tuple[FloatArray, FloatArray]:
    from thermocomp.kinematics import engine

    m = q.shape[0]
    R, p = np.empty((m, 3, 3)), np.empty((m, 3))
    engine.run_blocks(engine.fk_block, m, engine.engine_model(model), engine.c_array(q), R, p)
    return R, p


def fk_matrix(model: KinematicModel, q: ArrayLike) -> FloatArray:
    """``T_world_tcp`` as homogeneous matrices ``(..., 4, 4)``; see :func:`fk`."""
    R, p = fk(model, q)
    T = np.zeros(R.shape[:-2] + (4, 4))
    T[..., :3, :3] = R
    T[..., :3, 3] = p
    T[..., 3, 3] = 1.0
    return T


def fk_jacobian(model: KinematicModel, q: ArrayLike) -> tuple[FloatArray, FloatArray, FloatArray]:
    """TCP pose and geometric Jacobian with respect to controller angles.

    Returns
    -------
    R_world_tcp : ndarray, shape ``(..., 3, 3)``
    p_world_tcp : ndarray, shape ``(..., 3)`` [m]
    J : ndarray, shape ``(..., 6, n)``
        Rows 0-2: TCP linear velocity in the world frame [m/rad];
        rows 3-5: angular velocity in the world frame [rad/rad].
    """
    q = np.asarray(q, dtype=float)
    if _runs_compiled(model, q):
        return _fk_jacobian_compiled(model, q)
    R, p, (origins, axes) = _walk(model, q, jacobian=True)
    return R, p, _jacobian(model.chain, p, origins, axes)


def _fk_jacobian_compiled(model: KinematicModel, q: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
    from thermocomp.kinematics import engine

    m, n = q.shape
    R, p, J = np.empty((m, 3, 3)), np.empty((m, 3)), np.empty((m, 6, n))
    engine.run_blocks(engine.fk_jacobian_block, m, engine.engine_model(model), engine.c_array(q), R, p, J)
    return R, p, J


def joint_frames(model: KinematicModel, q: ArrayLike) -> tuple[FloatArray, FloatArray]:
    """World position and rotation axis of every joint at ``q`` (controller angles [rad], ``(..., n)``).

    Returns
    -------
    origins : ndarray, shape ``(..., n, 3)`` [m]
    axes : ndarray, shape ``(..., n, 3)``, unit vectors of the model angles' positive sense
    """
    q = np.asarray(q, dtype=float)
    if _runs_compiled(model, q):
        from thermocomp.kinematics import engine

        m, n = q.shape
        origins, axes = np.empty((m, n, 3)), np.empty((m, n, 3))
        engine.run_blocks(engine.joint_frames_block, m, engine.engine_model(model), engine.c_array(q), origins, axes)
        return origins, axes
    _, _, (origins, axes) = _walk(model, q, jacobian=True)
    return origins, axes
