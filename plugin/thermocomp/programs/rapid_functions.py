"""RAPID's arithmetic functions of known values, as the RAPID reference manual (ABB, "Technical reference manual -
RAPID Instructions, Functions and Data types") defines them: ``Abs``, ``Sqrt``, ``Pow``, ``Exp``, ``Sin``,
``Cos``, ``Tan``, ``ASin``, ``ACos``, ``ATan``, ``ATan2``, ``Round``, ``Trunc``, ``OrientZYX``, ``EulerZYX``,
``NOrient``, ``PoseMult``, ``PoseInv``, ``PoseVect``, ``Distance``, ``VectMagn``, ``DotProd``.

Units as RAPID writes them: angles in degrees, positions in mm, orientations as quaternions ``[q1, q2, q3, q4]``
(scalar first), a pose as ``[[x, y, z], [q1, q2, q3, q4]]``. Whatever a function needs beyond the values (an
argument of the wrong kind, a value outside its domain) is a :class:`FunctionError` with RAPID's wording; the
reader turns it into a refusal naming the call.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from thermocomp.geometry.rotations import euler_zyx_from_matrix, matrix_from_quat_wxyz, quat_wxyz_from_matrix, rot_x, rot_y, rot_z

#: The functions evaluated here, by lower-case name.
FUNCTIONS: frozenset[str] = frozenset((
    "abs", "sqrt", "pow", "exp", "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "round", "trunc",
    "orientzyx", "eulerzyx", "norient", "posemult", "poseinv", "posevect", "distance", "vectmagn", "dotprod"))


class FunctionError(ValueError):
    """A function's arguments are not what RAPID takes (kind, count, domain)."""


def _num(value: object, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, float):
        raise FunctionError(f"{what}: expected a num")
    return value


def _vector(value: object, size: int, what: str) -> np.ndarray:
    if not (isinstance(value, list) and len(value) == size and all(isinstance(v, float) for v in value)):
        raise FunctionError(f"{what}: expected {size} numbers")
    return np.asarray(value, dtype=float)


def _pose(value: object, what: str) -> tuple[np.ndarray, np.ndarray]:
    """A pose's position (mm) and rotation matrix."""
    if not (isinstance(value, list) and len(value) == 2):
        raise FunctionError(f"{what}: expected a pose [[x, y, z], [q1, q2, q3, q4]]")
    return _vector(value[0], 3, what), _rotation(value[1], what)


def _rotation(value: object, what: str) -> np.ndarray:
    q = _vector(value, 4, what)
    if not np.linalg.norm(q) > 0:
        raise FunctionError(f"{what}: expected an orientation, got a zero quaternion")
    return matrix_from_quat_wxyz(q)


def _orient(matrix: np.ndarray) -> list[float]:
    return [float(v) for v in quat_wxyz_from_matrix(matrix)]


def _rounded(value: float, decimals: float, truncate: bool) -> float:
    """``Round``/``Trunc``: to ``decimals`` decimals (halves away from zero, as RAPID rounds)."""
    if decimals != int(decimals) or not 0 <= decimals <= 15:
        raise FunctionError(f"\\Dec: expected a whole number of decimals within 0..15, got {decimals:g}")
    scale = 10.0 ** int(decimals)
    magnitude = math.floor(abs(value) * scale + (0.0 if truncate else 0.5)) / scale
    return math.copysign(magnitude, value) if magnitude else 0.0


def _within(low: float, high: float, function: Callable[[float], float]) -> Callable[[float], float]:
    """``function`` of an argument within ``low..high`` (``high`` infinite: at least ``low``), else RAPID's error."""
    def checked(x: float) -> float:
        if not low <= x <= high:
            bound = f"within {low:g}..{high:g}" if high < math.inf else f"of at least {low:g}"
            raise FunctionError(f"expected a value {bound}, got {x:g}")
        return function(x)
    return checked


_NUM_FUNCTIONS: dict[str, tuple[int, Callable[..., float]]] = {
    "abs": (1, abs),
    "sqrt": (1, _within(0, math.inf, math.sqrt)),
    "pow": (2, math.pow),  # (a negative base to a fractional power: a domain error, not a complex number)
    "exp": (1, math.exp),
    "sin": (1, lambda a: math.sin(math.radians(a))),
    "cos": (1, lambda a: math.cos(math.radians(a))),
    "tan": (1, lambda a: math.tan(math.radians(a))),
    "asin": (1, _within(-1, 1, lambda x: math.degrees(math.asin(x)))),
    "acos": (1, _within(-1, 1, lambda x: math.degrees(math.acos(x)))),
    "atan": (1, lambda x: math.degrees(math.atan(x))),
    "atan2": (2, lambda y, x: math.degrees(math.atan2(y, x))),
}


def evaluate_function(key: str, args: Sequence[object], switches: Mapping[str, object | None]
                      ) -> tuple[object, str]:
    """The value and RAPID type of function ``key`` (one of :data:`FUNCTIONS`, lower case) called with the
    evaluated positional ``args`` and optional arguments ``switches`` (name, lower case -> value, None for a
    switch).

    Raises
    ------
    FunctionError
        The arguments are not what the function takes, or a value is outside its domain.
    """
    unknown = sorted(set(switches) - ({"dec"} if key in ("round", "trunc") else {"x", "y", "z"}
                                      if key == "eulerzyx" else set()))
    if unknown:
        raise FunctionError(f"no optional argument \\{unknown[0]}")
    if key in _NUM_FUNCTIONS:
        count, function = _NUM_FUNCTIONS[key]
        if len(args) != count:
            raise FunctionError(f"expected {count} argument(s), got {len(args)}")
        try:
            value = float(function(*(_num(a, f"argument {i + 1}") for i, a in enumerate(args))))
        except (OverflowError, ZeroDivisionError, ValueError) as exc:
            raise FunctionError(str(exc)) from None
        if not math.isfinite(value):
            raise FunctionError("the result is not a finite number")
        return value, "num"
    if key in ("round", "trunc"):
        if len(args) != 1:
            raise FunctionError(f"expected 1 argument, got {len(args)}")
        decimals = _num(switches["dec"], "\\Dec") if "dec" in switches else 0.0
        return _rounded(_num(args[0], "argument 1"), decimals, key == "trunc"), "num"
    return _geometry(key, args, switches)


def _geometry(key: str, args: Sequence[object], switches: Mapping[str, object | None]) -> tuple[object, str]:
    counts = {"orientzyx": 3, "eulerzyx": 1, "norient": 1, "posemult": 2, "poseinv": 1, "posevect": 2,
              "distance": 2, "vectmagn": 1, "dotprod": 2}
    if len(args) != counts[key]:
        raise FunctionError(f"expected {counts[key]} argument(s), got {len(args)}")
    if key in ("distance", "vectmagn", "dotprod"):  # (pos arguments, mm)
        vectors = [_vector(a, 3, f"argument {i + 1}") for i, a in enumerate(args)]
        if key == "dotprod":
            return float(vectors[0] @ vectors[1]), "num"
        return float(np.linalg.norm(vectors[0] - (vectors[1] if key == "distance" else 0.0))), "num"
    if key == "orientzyx":  # (rotation about z, then the new y, then the new x)
        z, y, x = (math.radians(_num(a, f"argument {i + 1}")) for i, a in enumerate(args))
        return _orient(rot_z(z) @ rot_y(y) @ rot_x(x)), "orient"
    if key == "eulerzyx":
        axes = [k for k in ("x", "y", "z") if k in switches]
        if len(axes) != 1:
            raise FunctionError("expected one of \\X, \\Y or \\Z")
        r = _rotation(args[0], "Rotation")
        angle = euler_zyx_from_matrix(r)["zyx".index(axes[0])]
        return math.degrees(float(angle)), "num"
    if key == "norient":
        return _orient(_rotation(args[0], "Rotation")), "orient"
    if key == "poseinv":
        p, r = _pose(args[0], "Pose")
        return [[float(v) for v in -(r.T @ p)], _orient(r.T)], "pose"
    if key == "posemult":
        p1, r1 = _pose(args[0], "Pose1")
        p2, r2 = _pose(args[1], "Pose2")
        return [[float(v) for v in p1 + r1 @ p2], _orient(r1 @ r2)], "pose"
    p, r = _pose(args[0], "Pose")  # posevect
    return [float(v) for v in p + r @ _vector(args[1], 3, "Pos")], "pos"
