"""The deformed robot: a chain plus a (scaled) deformation table.

Seed 002, Eqs. 18-21 and Tables 6-7, in the form the issue and
docs/conventions.md fix: for each row (base, joint 1..n, tool), starting from
the previous frame,

1. translate by the nominal translation plus the thermal one, ``p + dp``;
2. rotate by the angular deviations, ``Rx(dox) @ Ry(doy) @ Rz(doz)``;
3. then apply the joint's own rotation (or the base's / tool's fixed one).

A zero table gives the nominal chain exactly (the deviation rotations are
then identity matrices and ``p + 0 == p`` in floating point).

The paper's Eq. 21, written out, orders the same operations differently:
translate by ``D``, rotate by the deviations, then translate by ``p``, so
that the segment is turned with the joint (translation ``R_dev @ p + D``).
That reading is available as ``composition="eq21"``; docs/conventions.md
measures the difference (0.1 mm at the TCP for the paper's measured table).
"""

from __future__ import annotations

import numpy as np

from thermocomp._typing import ArrayLike, FloatArray
from thermocomp.deformation.table import DeformationTable
from thermocomp.errors import ConfigurationError
from thermocomp.geometry.rotations import matrix_from_euler_xyz
from thermocomp.kinematics.dispatch import runs_compiled
from thermocomp.kinematics.model import KinematicModel
from thermocomp.robot.chain import Chain

#: Ways to compose a deformation row with the nominal translation.
COMPOSITIONS = ("table", "eq21")


def deformed_model(
    chain: Chain, table: DeformationTable, fraction: ArrayLike = 1.0, composition: str = "table"
) -> KinematicModel:
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
    if composition not in COMPOSITIONS:
        raise ConfigurationError(f"composition: expected one of {COMPOSITIONS}, got {composition!r}")
    p_nominal = np.vstack([chain.T_world_base[:3, 3], chain.p, chain.T_last_tcp[:3, 3]])  # (n + 2, 3)
    fraction = np.asarray(fraction, dtype=float)
    if composition == "table" and fraction.ndim == 1 and runs_compiled(fraction.size):
        return _deformed_compiled(chain, table, fraction, p_nominal)
    s = fraction[..., None, None]  # (..., 1, 1)
    rows = table.rows() * s  # (..., n + 2, 6)
    R_dev = matrix_from_euler_xyz(rows[..., 3:])  # Rx @ Ry @ Rz of the deviations
    dp = rows[..., :3]
    if composition == "eq21":
        p_rows = np.einsum("...ij,...j->...i", R_dev, p_nominal) + dp
    else:
        p_rows = p_nominal + dp
    return KinematicModel(
        chain,
        R_base=R_dev[..., 0, :, :] @ chain.T_world_base[:3, :3],
        p_base=p_rows[..., 0, :],
        R_joint=R_dev[..., 1:-1, :, :],
        p_joint=p_rows[..., 1:-1, :],
        R_tool=R_dev[..., -1, :, :] @ chain.T_last_tcp[:3, :3],
        p_tool=p_rows[..., -1, :],
    )


def _deformed_compiled(chain: Chain, table: DeformationTable, fraction: FloatArray,
                       p_nominal: FloatArray) -> KinematicModel:
    """:func:`deformed_model` (``composition="table"``) of a 1-D ``fraction`` in the compiled engine
    (:func:`thermocomp.kinematics.engine.deformed_block`, the same frames by the same arithmetic, row by row)."""
    from thermocomp.kinematics import engine

    m, n = fraction.size, chain.n_joints
    R_base, p_base = np.empty((m, 3, 3)), np.empty((m, 3))
    R_joint, p_joint = np.empty((m, n, 3, 3)), np.empty((m, n, 3))
    R_tool, p_tool = np.empty((m, 3, 3)), np.empty((m, 3))
    engine.run_blocks(engine.deformed_block, m, *(engine.c_array(a) for a in (
        table.rows(), fraction, p_nominal, chain.T_world_base[:3, :3], chain.T_last_tcp[:3, :3])),
        R_base, p_base, R_joint, p_joint, R_tool, p_tool)
    return KinematicModel(chain, R_base=R_base, p_base=p_base, R_joint=R_joint, p_joint=p_joint, R_tool=R_tool,
                          p_tool=p_tool)
