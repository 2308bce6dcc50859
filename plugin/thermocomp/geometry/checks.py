"""``check_*`` helpers: coerce to float arrays, check shape, then invariants.

They raise :class:`thermocomp.errors.InputError` saying what was expected and
what came (STYLE.md, practice 5).
"""

from __future__ import annotations

import numpy as np

from thermocomp._typing import ArrayLike, FloatArray
from thermocomp.errors import InputError
from thermocomp.tolerances import QUAT_NORM_TOL, ROTATION_ORTHONORMAL_TOL, UNIT_NORM_TOL


def check_array(value: ArrayLike, shape: tuple[int | None, ...], name: str) -> FloatArray:
    """Return ``value`` as a finite float array of ``shape`` (``None`` matches any length).

    A leading ``...`` is not supported: give the full shape.
    """
    try:
        arr = np.array(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise InputError(f"{name}: expected numbers, got {value!r}") from exc
    if arr.ndim != len(shape) or any(
        want is not None and got != want for got, want in zip(arr.shape, shape)
    ):
        pretty = "(" + ", ".join("n" if s is None else str(s) for s in shape) + ")"
        raise InputError(f"{name}: expected shape {pretty}, got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise InputError(f"{name}: expected finite numbers, got NaN or infinity")
    return arr


def check_unit_vector(value: ArrayLike, name: str) -> FloatArray:
    """A 3-vector of unit length (within :data:`UNIT_NORM_TOL`), returned normalised."""
    v = check_array(value, (3,), name)
    norm = np.linalg.norm(v)
    if abs(norm - 1.0) > UNIT_NORM_TOL:
        raise InputError(f"{name}: expected a unit vector, got {v.tolist()} of norm {norm:.6g}")
    return v / norm


def check_rotation(value: ArrayLike, name: str) -> FloatArray:
    """A proper rotation matrix (orthonormal, determinant +1), shape ``(3, 3)``."""
    R = check_array(value, (3, 3), name)
    err = np.max(np.abs(R @ R.T - np.eye(3)))
    if err > ROTATION_ORTHONORMAL_TOL or np.linalg.det(R) < 0:
        raise InputError(
            f"{name}: expected a rotation matrix (orthonormal, det +1), "
            f"got max |R R^T - I| = {err:.3g}, det = {np.linalg.det(R):.6g}"
        )
    return R


def check_transform(value: ArrayLike, name: str) -> FloatArray:
    """A rigid homogeneous transform, shape ``(4, 4)``, last row ``0 0 0 1``."""
    T = check_array(value, (4, 4), name)
    if not np.array_equal(T[3], [0.0, 0.0, 0.0, 1.0]):
        raise InputError(f"{name}: expected last row [0, 0, 0, 1], got {T[3].tolist()}")
    check_rotation(T[:3, :3], f"{name} rotation")
    return T


def check_quat_wxyz(value: ArrayLike, name: str) -> FloatArray:
    """A unit quaternion ``(w, x, y, z)``, returned normalised."""
    q = check_array(value, (4,), name)
    norm = np.linalg.norm(q)
    if abs(norm - 1.0) > QUAT_NORM_TOL:
        raise InputError(f"{name}: expected a unit quaternion (w, x, y, z), got norm {norm:.6g}")
    return q / norm
