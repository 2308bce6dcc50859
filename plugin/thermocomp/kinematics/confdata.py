"""ABB configuration data (confdata ``cf1, cf4, cf6, cfx``) of joint solutions.

ABB robtargets name the configuration a pose must be reached in (RAPID
reference, data type ``confdata``):

- ``cf1``, ``cf4``, ``cf6``: the quadrant of axes 1, 4 and 6:
  ``floor(q / 90 deg)`` (quadrant 0 is 0 to 90 deg, -1 is -90 to 0 deg, ...);
- ``cfx`` (0 to 7) = 4 * [wrist centre behind axis 1]
  + 2 * [wrist centre behind the lower arm] + [axis 5 angle negative].

Here the wrist centre is joint 5's origin, "behind axis 1" means behind the
plane through axis 1 facing the arm's forward direction (the base x axis
turned by axis 1), and "behind the lower arm" means on the side of the line
from axis 2 to axis 3 opposite to the forward direction, in the arm's plane.
These definitions fit arms laid out like ABB's 6-axis robots (axis 1
vertical, axes 2 and 3 parallel, axis 5 the wrist bend); docs/conventions.md.
"""

from __future__ import annotations

import numpy as np

from thermocomp._typing import ArrayLike
from thermocomp.geometry.rotations import skew
from thermocomp.kinematics.fk import joint_frames
from thermocomp.kinematics.model import KinematicModel
from thermocomp.tolerances import QUADRANT_BOUNDARY_TOL


def confdata_from_q(model: KinematicModel, q: ArrayLike) -> np.ndarray:
    """``(cf1, cf4, cf6, cfx)`` of controller angles ``q`` ``(m, 6)`` [rad] on ``model``; int ``(m, 4)``."""
    q = np.atleast_2d(np.asarray(q, dtype=float))
    if q.shape[1] != 6:
        raise ValueError(f"confdata is defined for 6-axis robots, got {q.shape[1]} joints")
    quadrant = quadrants(q)
    origins, axes = joint_frames(model, q)
    forward = _forward_direction(model, q)
    wrist = origins[:, 4]
    behind_axis1 = np.einsum("ki,ki->k", wrist - origins[:, 0], forward) < 0
    lower_arm = origins[:, 2] - origins[:, 1]
    side = np.einsum("ki,ki->k", np.cross(lower_arm, wrist - origins[:, 1]), axes[:, 1])
    behind_lower_arm = side < 0
    negative_axis5 = q[:, 4] < 0
    cfx = 4 * behind_axis1 + 2 * behind_lower_arm + negative_axis5
    return np.column_stack([quadrant, cfx]).astype(int)


def _forward_direction(model: KinematicModel, q: np.ndarray) -> np.ndarray:
    """The base x axis turned by axis 1 about its own axis, ``(m, 3)``: the first column of ``R_base @ R_joint[0]
    @ rot_axis(axis[0], theta_1)``, that column of Rodrigues' formula alone (a program's 100,000 rows: no
    ``(m, 3, 3)`` rotation built)."""
    chain = model.chain
    K = skew(chain.axis[0])
    theta = chain.sign[0] * q[:, 0] + chain.offset[0]  # (chain.theta_from_q's first column)
    s, c = np.sin(theta)[:, None], np.cos(theta)[:, None]
    x = np.eye(3)[:, 0] + s * K[:, 0] + (1.0 - c) * (K @ K)[:, 0]  # rot_axis(axis[0], theta_1) @ e_x
    A = model.R_base @ model.R_joint[..., 0, :, :]
    return A[..., :, 0] * x[:, :1] + A[..., :, 1] * x[:, 1:2] + A[..., :, 2] * x[:, 2:]


def same_configuration(model: KinematicModel, q: ArrayLike, wanted: ArrayLike) -> np.ndarray:
    """True where ``q`` ``(..., 6)`` is in configuration ``wanted`` ``(..., 4)`` up to whole turns.

    ``cfx`` must match exactly; the quadrants of axes 1, 4 and 6 modulo 4 (a
    whole turn apart puts the robot in the same place, see :func:`to_quadrants`).
    """
    q = np.asarray(q, dtype=float)
    wanted = np.asarray(wanted)
    shape = q.shape[:-1]
    got = confdata_from_q(model, q.reshape(-1, 6)).reshape(shape + (4,))
    return (got[..., 3] == wanted[..., 3]) & np.all((got[..., :3] - wanted[..., :3]) % 4 == 0, axis=-1)


def near_configuration(model: KinematicModel, q: ArrayLike, wanted: ArrayLike) -> np.ndarray:
    """True where ``q`` ``(..., 6)`` has ``cfx`` of ``wanted`` ``(..., 4)`` and axes 1, 4, 6 within one quadrant of it.

    What an ABB controller moving with ``ConfL \\On`` / ``ConfJ \\On`` holds a robtarget to: a target whose
    axis 4 or 6 lies just across a quadrant border from the written ``cf4``/``cf6`` (a robtarget derived with
    ``Offs`` or ``RelTool`` keeps the confdata of the point it starts from; a work object calibrated after the
    targets were taught turns the wrist by a few degrees) is reached in the configuration meant. Whole turns are
    compared modulo 4 quadrants. An angle within :data:`~thermocomp.tolerances.QUADRANT_BOUNDARY_TOL` of a
    boundary lies in both quadrants it separates: one quadrant of the written one is then up to 90 degrees plus
    that tolerance from it (the quadrants ``cf - 1`` to ``cf + 1``, their ends included).
    """
    q = np.asarray(q, dtype=float)
    wanted = np.asarray(wanted)
    got = confdata_from_q(model, q.reshape(-1, 6)).reshape(q.shape[:-1] + (4,))
    # each angle from the start of the quadrant below the written one, modulo a turn, within 3 quadrants
    start = (wanted[..., :3] - 1) * (np.pi / 2) - QUADRANT_BOUNDARY_TOL
    within = np.mod(q[..., [0, 3, 5]] - start, 2 * np.pi) <= 3 * np.pi / 2 + 2 * QUADRANT_BOUNDARY_TOL
    return (got[..., 3] == wanted[..., 3]) & np.all(within, axis=-1)


def to_quadrants(q: ArrayLike, wanted: ArrayLike) -> np.ndarray:
    """Shift axes 1, 4 and 6 of ``q`` ``(m, 6)`` by whole turns into the quadrants of ``wanted`` ``(m, 4)``.

    Assumes :func:`same_configuration` holds; the caller checks the limits.
    """
    q = np.array(q, dtype=float)
    wanted = np.asarray(wanted)
    q[:, [0, 3, 5]] += 2.0 * np.pi * np.round((wanted[:, :3] - quadrants(q)) / 4.0)
    return q


def quadrants(q: ArrayLike) -> np.ndarray:
    """The quadrants of axes 1, 4 and 6 of ``q`` ``(m, 6)`` [rad] (``cf1, cf4, cf6``), int ``(m, 3)``.

    Angles beyond any joint's range (a ``MoveAbsJ`` of 1e30 deg, left to the limit checks) are clipped to
    +-2**52 quadrants first, so that the cast to int stays defined."""
    turns = np.floor(np.asarray(q, dtype=float)[:, [0, 3, 5]] / (np.pi / 2))
    return np.clip(turns, -(2.0**52), 2.0**52).astype(int)
