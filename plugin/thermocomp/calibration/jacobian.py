"""The Jacobian of the TCP pose with respect to the deformation table (seed 002, Eqs. 18-22).

The deformed robot is (docs/conventions.md, "Deformation tables")::

    T_world_tcp = F_base · Π_i [F_i · Rot(axis_i, theta_i)] · F_tool,
    F_k = Trans(p_k + D_k) · Rx(Dox_k) Ry(Doy_k) Rz(Doz_k)           (composition "table")
    F_k = Trans(D_k) · Rx Ry Rz · Trans(p_k)                           (composition "eq21")

with ``s · D`` applied at a fraction ``s`` of the table
(:func:`thermocomp.deformation.deformed_model`). For a row ``k`` starting
from the frame ``W_k`` (rotation ``R_W``, origin ``o_W`` in the world), a
change of its translation ``D_k`` moves the TCP by ``R_W dD`` and leaves its
orientation alone; a change of its deviation angles turns everything after
the row about the point ``c_k = o_W + R_W (p_k + D_k)`` (``o_W + R_W D_k``
for Eq. 21) with the world angular velocity ``R_W [e_x, Rx e_y, Rx Ry e_z]``
(intrinsic x-y-z), so the TCP moves by ``omega x (p_tcp - c_k)``.

Parameters are ordered row by row in chain order (base, joints 1..n, tool),
six per row: ``Dx, Dy, Dz`` [m], ``Dox, Doy, Doz`` [rad] (:func:`parameter_names`).
Pure numpy; batch over configurations.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from thermocomp._typing import ArrayLike, FloatArray
from thermocomp.deformation.apply import COMPOSITIONS
from thermocomp.deformation.table import DeformationTable
from thermocomp.errors import ConfigurationError
from thermocomp.geometry.rotations import matrix_from_euler_xyz, rot_axis, rot_x, rot_y
from thermocomp.robot.chain import Chain

#: The six parameters of a table row, in file order (docs/conventions.md).
ROW_PARAMETERS = ("Dx", "Dy", "Dz", "Dox", "Doy", "Doz")


def row_names(n_joints: int) -> tuple[str, ...]:
    """Row labels in chain order: ``base``, ``1`` .. ``n``, ``tool`` (the deformation CSV's ``row`` column)."""
    return ("base", *[str(i + 1) for i in range(n_joints)], "tool")


def parameter_names(n_joints: int) -> tuple[str, ...]:
    """Names of the ``6 (n + 2)`` table parameters in Jacobian column order, e.g. ``"3.Doy"``."""
    return tuple(f"{row}.{name}" for row in row_names(n_joints) for name in ROW_PARAMETERS)


@dataclass(frozen=True, eq=False)
class PoseJacobian:
    """TCP pose of the deformed robot and its derivative with respect to the table.

    Attributes
    ----------
    R_world_tcp : ndarray, shape ``(m, 3, 3)``
    p_world_tcp : ndarray, shape ``(m, 3)`` [m]
    J : ndarray, shape ``(m, 6, 6 (n + 2))``
        Rows 0-2: TCP position [m per unit parameter]; rows 3-5: world-frame
        small rotation of the TCP [rad per unit parameter]. Columns: the full
        table's parameters (:func:`parameter_names`); at a fraction ``s`` the
        robot sees ``s`` times the table, so the columns carry the factor ``s``.
    J_applied : ndarray, shape ``(m, 6, 6 (n + 2))``
        The same with respect to the applied (scaled) rows ``s · D``: what a
        change of the fraction needs (``d pose / d s = J_applied @ D``).
    """

    R_world_tcp: FloatArray
    p_world_tcp: FloatArray
    J: FloatArray
    J_applied: FloatArray


def _euler_rate_axes(angles: FloatArray) -> FloatArray:
    """Angular-velocity axes of intrinsic ``Rx(a) Ry(b) Rz(c)`` per unit rate of ``a, b, c``, as columns.

    ``angles`` ``(..., 3)`` [rad]; returns ``(..., 3, 3)`` in the row's start frame:
    ``[e_x, Rx(a) e_y, Rx(a) Ry(b) e_z]``.
    """
    Rx = rot_x(angles[..., 0])
    Rxy = Rx @ rot_y(angles[..., 1])
    return np.stack([np.broadcast_to(np.array([1.0, 0.0, 0.0]), angles.shape), Rx[..., :, 1], Rxy[..., :, 2]],
                    axis=-1)


def pose_jacobian(
    chain: Chain, table: DeformationTable, q: ArrayLike, fraction: ArrayLike = 1.0, composition: str = "table"
) -> PoseJacobian:
    """TCP pose and its Jacobian with respect to every table parameter, batch over configurations.

    Implements the derivative of seed 002's extended FK (Eq. 22 with the
    rows of Tables 6-7) analytically, walking the chain once: the same
    frames :func:`thermocomp.kinematics.fk.fk` composes for
    ``deformed_model(chain, table, fraction, composition)``.

    Parameters
    ----------
    chain
        Nominal robot, ``n`` joints.
    table
        The full table (SI) at which to evaluate, ``n`` joint rows.
    q
        Controller angles [rad], shape ``(m, n)``.
    fraction
        Share of the table applied per configuration, shape ``()`` or ``(m,)``.
    composition
        ``"table"`` (default) or ``"eq21"``, as in :func:`deformed_model`.

    Returns
    -------
    PoseJacobian
        Poses in the world frame; ``J`` of shape ``(m, 6, 6 (n + 2))``.
    """
    if composition not in COMPOSITIONS:
        raise ConfigurationError(f"composition: expected one of {COMPOSITIONS}, got {composition!r}")
    table.check_matches(chain.n_joints, chain.name)
    q = np.atleast_2d(np.asarray(q, dtype=float))
    m, n = q.shape
    if n != chain.n_joints:
        raise ConfigurationError(f"q: expected {chain.n_joints} joint angles per row, got {n}")
    s = np.broadcast_to(np.asarray(fraction, dtype=float), (m,))
    rows = table.rows()[None] * s[:, None, None]  # (m, n + 2, 6) applied rows
    R_dev = matrix_from_euler_xyz(rows[..., 3:])  # (m, n + 2, 3, 3)
    rate_axes = _euler_rate_axes(rows[..., 3:])  # (m, n + 2, 3, 3)
    p_nominal = np.vstack([chain.T_world_base[:3, 3], chain.p, chain.T_last_tcp[:3, 3]])  # (n + 2, 3)
    theta = chain.theta_from_q(q)  # (m, n)

    k_rows = n + 2
    R_W = np.empty((m, k_rows, 3, 3))  # start frame of each row
    pivot = np.empty((m, k_rows, 3))  # point the row's deviation turns about
    R = np.broadcast_to(np.eye(3), (m, 3, 3))
    o = np.zeros((m, 3))
    for k in range(k_rows):
        R_W[:, k], dp = R, rows[:, k, :3]
        if composition == "eq21":
            t = np.einsum("mij,j->mi", R_dev[:, k], p_nominal[k]) + dp
            pivot[:, k] = o + np.einsum("mij,mj->mi", R, dp)
        else:
            t = p_nominal[k] + dp
            pivot[:, k] = o + np.einsum("mij,mj->mi", R, t)
        o = o + np.einsum("mij,mj->mi", R, t)
        R = R @ R_dev[:, k]
        if k == 0:
            R = R @ chain.T_world_base[:3, :3]
        elif k <= n:
            R = R @ rot_axis(chain.axis[k - 1], theta[:, k - 1])
        else:
            R = R @ chain.T_last_tcp[:3, :3]

    J = np.zeros((m, 6, 6 * k_rows))
    omega = R_W @ rate_axes  # (m, k, 3, 3): world axes as columns
    lever = o[:, None, :] - pivot  # (m, k, 3)
    for k in range(k_rows):
        J[:, :3, 6 * k:6 * k + 3] = R_W[:, k]
        w = omega[:, k]  # (m, 3, 3)
        J[:, :3, 6 * k + 3:6 * k + 6] = np.cross(w, lever[:, k, :, None], axisa=1, axisb=1, axisc=1)
        J[:, 3:, 6 * k + 3:6 * k + 6] = w
    return PoseJacobian(R_world_tcp=R, p_world_tcp=o, J=J * s[:, None, None], J_applied=J)


__all__ = ["ROW_PARAMETERS", "PoseJacobian", "parameter_names", "pose_jacobian", "row_names"]
