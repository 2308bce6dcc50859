"""Static joint torques from link masses and centres of mass (the gravity term ``g(q)`` of seed 000, Eq. 2).

Pure core. At rest (``qd = qdd = 0``) the torque a joint must deliver to hold
the robot is the gravity term; seed 000, Step 2 reads the correction factors
``lambda_k`` from such static torques. Batch form first: ``q`` may have any
leading shape.
"""

from __future__ import annotations

import numpy as np

from thermocomp._typing import ArrayLike, FloatArray
from thermocomp.errors import InputError
from thermocomp.geometry.rotations import rot_axis
from thermocomp.inertia.links import RobotInertials
from thermocomp.kinematics.fk import joint_frames
from thermocomp.kinematics.model import KinematicModel

#: Standard gravity in the world frame [m/s^2]: world z points up
#: (docs/conventions.md; the built-in robots stand on the floor).
STANDARD_GRAVITY = (0.0, 0.0, -9.80665)


def link_poses(model: KinematicModel, q: ArrayLike) -> tuple[FloatArray, FloatArray]:
    """World poses of the link frames ``link1`` .. ``linkn`` and ``tcp`` at ``q``.

    Link ``k``'s frame is joint ``k``'s frame after its rotation (the URDF
    link frame of :func:`thermocomp.io.urdf.urdf_text`); seed 002, Eq. 22.

    Parameters
    ----------
    model
        A single model (batch shape ``()``).
    q
        Controller angles [rad], ``(..., n)``.

    Returns
    -------
    R_world_link : ndarray, shape ``(..., n + 1, 3, 3)``
    p_world_link : ndarray, shape ``(..., n + 1, 3)`` [m]
        Index ``k - 1`` is link ``k``; the last index is ``tcp``.
    """
    if model.batch_shape != ():
        raise InputError(f"expected a single robot model, got a batch of shape {model.batch_shape}")
    chain = model.chain
    theta = chain.theta_from_q(np.asarray(q, dtype=float))
    n = chain.n_joints
    batch = theta.shape[:-1]
    R = np.broadcast_to(model.R_base, batch + (3, 3))
    p = np.broadcast_to(model.p_base, batch + (3,))
    Rs, ps = [], []
    for i in range(n):
        p = p + R @ model.p_joint[i]
        R = R @ model.R_joint[i] @ rot_axis(chain.axis[i], theta[..., i])
        Rs.append(R)
        ps.append(p)
    ps.append(p + R @ model.p_tool)
    Rs.append(R @ model.R_tool)
    return np.stack(Rs, axis=-3), np.stack(ps, axis=-2)


def gravity_torques(
    model: KinematicModel,
    q: ArrayLike,
    inertials: RobotInertials,
    *,
    gravity: ArrayLike = STANDARD_GRAVITY,
    tcp_mass: float = 0.0,
    tcp_com: ArrayLike = (0.0, 0.0, 0.0),
) -> FloatArray:
    """Joint torques that hold the robot still at ``q`` against gravity.

    ``tau_i = -a_i . sum_{k >= i} (c_k - o_i) x (m_k g)`` over the links
    ``k`` moved by joint ``i`` (and the ``tcp`` load), with ``o_i`` and
    ``a_i`` joint ``i``'s world origin and axis
    (:func:`thermocomp.kinematics.fk.joint_frames`) and ``c_k`` link ``k``'s
    world centre of mass. The base's mass moves with no joint.

    Parameters
    ----------
    model
        A single model (batch shape ``()``).
    q
        Controller angles [rad], ``(..., n)``.
    inertials
        Link masses [kg] and centres of mass [m, link frames]; links named
        ``link1`` .. ``linkn`` are used (others ignored, missing ones count as massless).
    gravity
        Gravity in the world frame [m/s^2], ``(3,)``.
    tcp_mass, tcp_com
        A load at the ``tcp`` link [kg], its centre of mass in the tcp frame [m].

    Returns
    -------
    tau : ndarray, shape ``(..., n)`` [N m]
        About the model angles' positive sense times ``sign``: conjugate to
        controller angles ``q`` (equal to model angles for the built-ins).
    """
    chain = model.chain
    n = chain.n_joints
    g = np.asarray(gravity, dtype=float)
    R, p = link_poses(model, q)
    origins, axes = joint_frames(model, q)
    masses = np.zeros(n + 1)
    coms = np.zeros((n + 1, 3))
    for k in range(n):
        name = f"link{k + 1}"
        if name in inertials.names:
            masses[k] = inertials[name].mass
            coms[k] = inertials[name].com
    masses[n] = tcp_mass
    coms[n] = np.asarray(tcp_com, dtype=float)
    c_world = p + np.einsum("...kij,kj->...ki", R, coms)  # (..., n + 1, 3)
    force = masses[:, None] * g  # (n + 1, 3)
    tau = np.empty(origins.shape[:-1])
    for i in range(n):
        arm = c_world[..., i:, :] - origins[..., i, None, :]
        moment = np.cross(arm, force[i:]).sum(axis=-2)
        tau[..., i] = -np.einsum("...j,...j->...", axes[..., i, :], moment)
    return tau * chain.sign


__all__ = ["STANDARD_GRAVITY", "gravity_torques", "link_poses"]
