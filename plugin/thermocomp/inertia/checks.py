"""``check_*`` helpers of the inertia pipeline: coerce, check shape, then physical invariants.

They raise :class:`thermocomp.errors.InputError` saying what was expected and
what came (STYLE.md, practice 5). Tolerances: :mod:`thermocomp.tolerances`.
"""

from __future__ import annotations

import math

import numpy as np

from thermocomp._typing import ArrayLike, FloatArray
from thermocomp.errors import InputError
from thermocomp.geometry.checks import check_array
from thermocomp.tolerances import INERTIA_RTOL, INERTIA_TRIANGLE_RTOL


def check_positive(value: float, name: str, unit: str) -> float:
    """A finite number > 0 (a mass, a density, a scale), returned as ``float``."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{name}: expected a positive number [{unit}], got {value!r}") from None
    if not (math.isfinite(x) and x > 0):
        raise InputError(f"{name}: expected a finite number > 0 [{unit}], got {value!r}")
    return x


def check_inertia_tensor(inertia: ArrayLike, name: str) -> FloatArray:
    """A physically valid inertia tensor about a centre of mass [kg m^2], shape ``(3, 3)``.

    Checks, in this order: finite ``(3, 3)`` floats; symmetric within
    :data:`INERTIA_RTOL` of the trace (returned exactly symmetric); positive
    definite (every principal moment > 0); principal moments satisfying the
    triangle inequality ``I1 + I2 >= I3`` within :data:`INERTIA_TRIANGLE_RTOL`
    of the trace (no mass distribution violates it: ``I1 + I2 - I3 =
    2 * integral of the squared third coordinate``).

    Raises
    ------
    InputError
        Naming ``name`` and the violated property with its numbers.
    """
    I = check_array(inertia, (3, 3), name)
    trace = float(np.trace(I))
    asym = float(np.max(np.abs(I - I.T)))
    if not trace > 0:
        raise InputError(f"{name}: expected a positive trace (positive definite tensor), got trace {trace:.6g} kg m^2")
    if asym > INERTIA_RTOL * trace:
        raise InputError(
            f"{name}: expected a symmetric tensor, got max |I - I^T| = {asym:.3g} kg m^2 "
            f"(> {INERTIA_RTOL:g} of the trace {trace:.6g})"
        )
    I = 0.5 * (I + I.T)
    moments = np.linalg.eigvalsh(I)
    if moments[0] <= 0:
        raise InputError(
            f"{name}: expected a positive definite tensor, got principal moments {moments.tolist()} kg m^2"
        )
    gap = moments[0] + moments[1] - moments[2]
    if gap < -INERTIA_TRIANGLE_RTOL * trace:
        raise InputError(
            f"{name}: expected principal moments satisfying the triangle inequality I1 + I2 >= I3, "
            f"got {moments[0]:.6g} + {moments[1]:.6g} < {moments[2]:.6g} kg m^2"
        )
    return I


__all__ = ["check_inertia_tensor", "check_positive"]
