"""Forward kinematics and the geometric Jacobian of a :class:`KinematicModel`.

Seed 002, Eqs. 18-22 (the extended forward geometric model). Batch form is
the only form: a single configuration is a batch of shape ``()``.
"""

from __future__ import annotations

import numpy as np

from thermocomp._typing import ArrayLike, FloatArray
from thermocomp.geometry.rotations import skew
from thermocomp.kinematics.model import KinematicModel


def _walk(model: KinematicModel, q: ArrayLike, jacobian: bool):
    chain = model.chain
    theta = chain.theta_from_q(np.asarray(q, dtype=float))
    batch = np.broadcast_shapes(theta.shape[:-1], model.batch_shape)
    K = skew(chain.axis)  # (n, 3, 3)
    K2 = K @ K
    R = np.broadcast_to(model.R_base, batch + (3, 3))
    p = np.broadcast_to(model.p_base, batch + (3,))
    n = chain.n_joints
    if jacobian:
        origins = np.empty(batch + (n, 3))
        axes = np.empty(batch + (n, 3))
    for i in range(n):
        p = p + np.einsum("...ij,...j->...i", R, model.p_joint[..., i, :])
        R = R @ model.R_joint[..., i, :, :]
        if jacobian:
            origins[..., i, :] = p
            axes[..., i, :] = R @ chain.axis[i]
        s = np.sin(theta[..., i])[..., None, None]
        c = np.cos(theta[..., i])[..., None, None]
        # R @ Rot(a, theta) with Rot = I + sin K + (1 - cos) K^2 (Rodrigues)
        R = R + s * (R @ K[i]) + (1.0 - c) * (R @ K2[i])
    p = p + np.einsum("...ij,...j->...i", R, model.p_tool)
    R = R @ model.R_tool
    if not jacobian:
        return R, p, None
    J = np.empty(batch + (6, n))
    J[..., :3, :] = np.swapaxes(np.cross(axes, p[..., None, :] - origins), -1, -2)
    J[..., 3:, :] = np.swapaxes(axes, -1, -2)
    J *= chain.sign  # d theta / d q
    return R, p, J


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
    R, p, _ = _walk(model, q, jacobian=False)
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
    return _walk(model, q, jacobian=True)
