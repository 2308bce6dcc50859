"""PyBullet's pose encodings to and from thermocomp's (pure numpy; no PyBullet import).

**PyBullet quaternions are ``(x, y, z, w)``** (scalar last), thermocomp's are
``(w, x, y, z)`` (docs/conventions.md); every conversion says which order it
takes in its name. PyBullet positions are metres in the world frame, like
thermocomp's. PyBullet's Euler helpers are not used anywhere in the adapter.
"""

from __future__ import annotations

import numpy as np

from thermocomp._typing import ArrayLike, FloatArray
from thermocomp.geometry.rotations import (
    matrix_from_quat_wxyz,
    quat_wxyz_from_matrix,
    transform,
)


def quat_wxyz_from_xyzw(quat_xyzw: ArrayLike) -> FloatArray:
    """``(w, x, y, z)`` from PyBullet's ``(x, y, z, w)``, shape ``(..., 4)``."""
    q = np.asarray(quat_xyzw, dtype=float)
    return np.concatenate([q[..., 3:], q[..., :3]], axis=-1)


def quat_xyzw_from_wxyz(quat_wxyz: ArrayLike) -> FloatArray:
    """PyBullet's ``(x, y, z, w)`` from ``(w, x, y, z)``, shape ``(..., 4)``."""
    q = np.asarray(quat_wxyz, dtype=float)
    return np.concatenate([q[..., 1:], q[..., :1]], axis=-1)


def matrix_from_quat_xyzw(quat_xyzw: ArrayLike) -> FloatArray:
    """Rotation matrix ``(..., 3, 3)`` from a PyBullet quaternion ``(x, y, z, w)`` ``(..., 4)``."""
    return matrix_from_quat_wxyz(quat_wxyz_from_xyzw(quat_xyzw))


def quat_xyzw_from_matrix(R: ArrayLike) -> FloatArray:
    """PyBullet quaternion ``(x, y, z, w)`` ``(..., 4)`` of a rotation matrix ``(..., 3, 3)``."""
    return quat_xyzw_from_wxyz(quat_wxyz_from_matrix(R))


def T_from_pybullet_pose(position: ArrayLike, quat_xyzw: ArrayLike) -> FloatArray:
    """Homogeneous transform ``(4, 4)`` from a PyBullet pose: position [m] ``(3,)`` and ``(x, y, z, w)``."""
    return transform(matrix_from_quat_xyzw(quat_xyzw), np.asarray(position, dtype=float))


def pybullet_pose_from_T(T: ArrayLike) -> tuple[list[float], list[float]]:
    """PyBullet's ``(position [m], quaternion (x, y, z, w))`` as lists, from ``T`` ``(4, 4)``."""
    T = np.asarray(T, dtype=float)
    return T[:3, 3].tolist(), quat_xyzw_from_matrix(T[:3, :3]).tolist()


__all__ = [
    "T_from_pybullet_pose",
    "matrix_from_quat_xyzw",
    "pybullet_pose_from_T",
    "quat_wxyz_from_xyzw",
    "quat_xyzw_from_matrix",
    "quat_xyzw_from_wxyz",
]
