"""The deformed robot: a chain plus a (scaled) deformation table.

Seed 002, Eqs. 18-21 and Tables 6-7, in the form the issue and
docs/conventions.md fix: for each row (base, joint 1..n, tool), starting from
the previous frame,

1. translate by the nominal translation plus the thermal one, ``p + dp``;
2. rotate by the angular deviations, ``Rx(dox) @ Ry(doy) @ Rz(doz)``;
3. then apply the joint's own rotation (or the base's / tool's fixed one).

A zero table gives the nominal chain exactly (the deviation rotations are
then identity matrices and ``p + 0 == p`` in floating point).
"""

from __future__ import annotations

import numpy as np

from thermocomp._typing import ArrayLike
from thermocomp.deformation.table import DeformationTable
from thermocomp.geometry.rotations import matrix_from_euler_xyz
from thermocomp.kinematics.model import KinematicModel
from thermocomp.robot.chain import Chain


def deformed_model(chain: Chain, table: DeformationTable, fraction: ArrayLike = 1.0) -> KinematicModel:
    """Kinematic model of ``chain`` deformed by ``fraction`` times ``table``.

    Parameters
    ----------
    chain
        Nominal robot.
    table
        Deformation table with one row per joint of ``chain``.
    fraction
        Share of the full table applied, shape ``B`` (``()`` or ``(m,)``);
        e.g. :meth:`LinearRamp.fraction` of the minutes of a program.

    Returns
    -------
    KinematicModel
        With batch shape ``B``.
    """
    table.check_matches(chain.n_joints, chain.name)
    s = np.asarray(fraction, dtype=float)[..., None, None]  # (..., 1, 1)
    rows = table.rows() * s  # (..., n + 2, 6)
    R_dev = matrix_from_euler_xyz(rows[..., 3:])  # Rx @ Ry @ Rz of the deviations
    dp = rows[..., :3]
    R_base_nom = chain.T_world_base[:3, :3]
    R_tool_nom = chain.T_last_tcp[:3, :3]
    return KinematicModel(
        chain,
        R_base=R_dev[..., 0, :, :] @ R_base_nom,
        p_base=chain.T_world_base[:3, 3] + dp[..., 0, :],
        R_joint=R_dev[..., 1:-1, :, :],
        p_joint=chain.p + dp[..., 1:-1, :],
        R_tool=R_dev[..., -1, :, :] @ R_tool_nom,
        p_tool=chain.T_last_tcp[:3, 3] + dp[..., -1, :],
    )
