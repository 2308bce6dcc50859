"""RAPID's functions of known values (``Offs``, ``RelTool``, arithmetic, orientations and poses, strings: the list is
:data:`FUNCTIONS`), as ABB's "Technical reference manual - RAPID Instructions, Functions and Data types" defines them.

Units as RAPID writes them: angles in degrees, positions in mm, orientations as quaternions ``[q1, q2, q3, q4]``
(scalar first), a pose as ``[[x, y, z], [q1, q2, q3, q4]]``. Arguments a function does not take (of the wrong kind,
outside its domain) are a :class:`FunctionError`, which the reader turns into a refusal naming the call; an argument
of a record kind comes of that record's shape (the reader's one check of a record, at the argument).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from thermocomp.geometry.rotations import euler_zyx_from_matrix, matrix_from_quat_wxyz, quat_wxyz_from_matrix, rot_x, rot_y, rot_z

#: Largest magnitude of a RAPID ``num`` (single precision, IEEE 754 binary32).
NUM_MAX = float(np.finfo(np.float32).max)

#: Largest magnitude of an integer a ``num`` holds exactly (2^23: its 24-bit significand): every integer a RAPID
#: instruction or type takes (confdata, array sizes and indices, ``DIV``/``MOD`` operands, ``DnumToNum \Integer``)
#: is checked against it.
INT_MAX = 2 ** 23


class FunctionError(ValueError):
    """A function's arguments are not what RAPID takes (kind, count, domain)."""


def _arg(kind: str, value: object, what: str) -> object:
    """An argument of ``kind`` as the function takes it (a ``whole`` an int, a ``pos`` an array [mm], an ``orient`` a
    rotation matrix, a ``pose`` both); a :class:`FunctionError` naming ``what`` where it is not of that kind."""
    if kind in ("num", "whole"):
        if isinstance(value, bool) or not isinstance(value, float):
            raise FunctionError(f"{what}: expected a num")
        if kind == "whole" and value != int(value):
            raise FunctionError(f"{what}: expected a whole number, got {value:g}")
        return int(value) if kind == "whole" else value
    if kind == "string" and not isinstance(value, str):
        raise FunctionError(f"{what}: expected a string")
    if kind == "pos":
        return np.asarray(value, dtype=float)
    if kind == "orient":
        if not np.linalg.norm(q := np.asarray(value, dtype=float)) > 0:
            raise FunctionError(f"{what}: expected an orientation, got a zero quaternion")
        return matrix_from_quat_wxyz(q)
    if kind == "pose":
        return _arg("pos", value[0], what), _arg("orient", value[1], what)  # type: ignore[index]
    return value  # (a string, a robtarget, any)


def _orient(matrix: np.ndarray) -> list[float]:
    return quat_wxyz_from_matrix(matrix).tolist()


def _rounded(value: float, dec: object = 0.0, truncate: bool = False) -> float:
    """``Round``/``Trunc``: to ``\\Dec`` decimals (halves away from zero, as RAPID rounds)."""
    decimals = _arg("num", dec, "\\Dec")
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


def _euler(rotation: np.ndarray, **axis: None) -> float:
    """``EulerZYX(\\X | \\Y | \\Z, Rotation)``: one angle of the rotation about z, then the new y, then the new x."""
    if len(axis) != 1:
        raise FunctionError("expected one of \\X, \\Y or \\Z")
    return math.degrees(float(euler_zyx_from_matrix(rotation)["zyx".index(next(iter(axis)))]))


def _reltool(point: list, dx: float, dy: float, dz: float, rx: float = 0.0, ry: float = 0.0, rz: float = 0.0
             ) -> list:
    """``RelTool(Point, Dx, Dy, Dz [\\Rx] [\\Ry] [\\Rz])``: moved along the tool's axes, then turned about them (x,
    then the new y, then the new z)."""
    R = matrix_from_quat_wxyz(point[1])
    turned = R @ rot_x(math.radians(_arg("num", rx, "\\Rx"))) @ rot_y(math.radians(_arg("num", ry, "\\Ry"))) \
        @ rot_z(math.radians(_arg("num", rz, "\\Rz")))
    return [(np.asarray(point[0]) + R @ np.array([dx, dy, dz])).tolist(), _orient(turned), *point[2:]]


def _position(text: str, position: int, last: int = 0) -> int:
    """``position`` (RAPID counts characters from 1) checked within ``text``: 1 to its length plus ``last``."""
    if not 1 <= position <= len(text) + last:
        raise FunctionError(f"character position {position} outside a string of {len(text)} characters")
    return position - 1


def _str_part(text: str, position: int, length: int) -> str:
    """``StrPart(Str, ChPos, Len)``: ``Len`` characters from ``ChPos`` on, all within the string."""
    start = _position(text, position, 1)
    if not 0 <= length <= len(text) - start:
        raise FunctionError(f"{length} characters from position {position} of a string of {len(text)}")
    return text[start:start + length]


def _str_find(text: str, position: int, chars: str, **notinset: None) -> float:
    """``StrFind(Str, ChPos, Set [\\NotInSet])``: the first position from ``ChPos`` on of a character in ``Set``
    (not in it), the string's length plus one if none."""
    start = _position(text, position, 1)
    found = (k for k in range(start, len(text)) if (text[k] in chars) != bool(notinset))
    return float(next(found, len(text)) + 1)


def _str_map(text: str, source: str, target: str) -> str:
    """``StrMap(Str, FromMap, ToMap)``: each character of ``FromMap`` replaced by the one at its place in ``ToMap``."""
    if len(source) != len(target):
        raise FunctionError(f"FromMap has {len(source)} characters, ToMap {len(target)}")
    return text.translate({ord(a): b for a, b in reversed(list(zip(source, target)))})  # (the first one counts)


def _str_order(first: str, second: str, order: str) -> bool:
    """``StrOrder(Str1, Str2, Order)``: whether ``Str1`` comes before ``Str2``, the characters of ``Order`` first in
    its order, the others after them in their ISO 8859-1 order."""
    def rank(text: str) -> list[tuple[int, int]]:
        return [(0, order.index(c)) if c in order else (1, ord(c)) for c in text]
    return rank(first) < rank(second)


def _num_to_str(value: float, decimals: int, **exp: None) -> str:
    """``NumToStr(Val, Dec [\\Exp])``: ``Val`` with ``Dec`` decimals (rounded as ``Round``), or in exponent form."""
    if not 0 <= decimals <= 15:
        raise FunctionError(f"expected 0..15 decimals, got {decimals}")
    return f"{value:.{decimals}E}" if exp else f"{_rounded(value, float(decimals)):.{decimals}f}"


def _val_to_str(value: object) -> str:
    """``ValToStr(Val)``: a value as RAPID writes it (numbers with 6 significant digits, TRUE/FALSE, records and
    arrays bracketed); at most 80 characters, what a string holds."""
    def text(v: object, inner: bool) -> str:
        if isinstance(v, list):
            return "[" + ",".join(text(item, True) for item in v) + "]"
        if isinstance(v, bool):
            return "TRUE" if v else "FALSE"
        if isinstance(v, str):
            return f'"{v}"' if inner else v
        return f"{v:.6g}".upper()
    written = text(value, False)
    if len(written) > 80:
        raise FunctionError(f"the value is written in {len(written)} characters, more than a string's 80")
    return written


def _dnum_to_num(value: float, **integer: None) -> float:
    """``DnumToNum(Value [\\Integer])``: a dnum as a num; with ``\\Integer`` a whole number a num holds exactly
    (:data:`INT_MAX`), else the controller stops on an argument error."""
    if integer and not (value == round(value) and abs(value) <= INT_MAX):
        raise FunctionError(f"\\Integer: {value:g} is not a whole number within +-{INT_MAX}")
    if abs(value) > NUM_MAX:
        raise FunctionError(f"{value:g} is beyond what a num holds")
    return value


#: The functions evaluated here, by lower-case name: the kinds of their arguments in order (a record kind is a type of
#: :data:`.rapid_data.RECORDS`), the optional arguments each takes, the RAPID type of its value and the function of
#: its arguments read (optional ones by keyword, None for a switch).
FUNCTIONS: dict[str, tuple[tuple[str, ...], tuple[str, ...], str, Callable]] = {
    "offs": (("robtarget", "num", "num", "num"), (), "robtarget",  # (moved along the work object's axes)
             lambda point, dx, dy, dz: [[point[0][0] + dx, point[0][1] + dy, point[0][2] + dz], *point[1:]]),
    "reltool": (("robtarget", "num", "num", "num"), ("rx", "ry", "rz"), "robtarget", _reltool),
    "abs": (("num",), (), "num", abs),
    "sqrt": (("num",), (), "num", _within(0, math.inf, math.sqrt)),
    "pow": (("num", "num"), (), "num", math.pow),  # (a negative base to a fractional power: a domain error)
    "exp": (("num",), (), "num", math.exp),
    "sin": (("num",), (), "num", lambda a: math.sin(math.radians(a))),
    "cos": (("num",), (), "num", lambda a: math.cos(math.radians(a))),
    "tan": (("num",), (), "num", lambda a: math.tan(math.radians(a))),
    "asin": (("num",), (), "num", _within(-1, 1, lambda x: math.degrees(math.asin(x)))),
    "acos": (("num",), (), "num", _within(-1, 1, lambda x: math.degrees(math.acos(x)))),
    "atan": (("num",), (), "num", lambda x: math.degrees(math.atan(x))),
    "atan2": (("num", "num"), (), "num", lambda y, x: math.degrees(math.atan2(y, x))),
    "round": (("num",), ("dec",), "num", _rounded),
    "trunc": (("num",), ("dec",), "num", lambda x, dec=0.0: _rounded(x, dec, truncate=True)),
    "orientzyx": (("num", "num", "num"), (), "orient",  # (about z, then the new y, then the new x)
                  lambda z, y, x: _orient(rot_z(math.radians(z)) @ rot_y(math.radians(y)) @ rot_x(math.radians(x)))),
    "eulerzyx": (("orient",), ("x", "y", "z"), "num", _euler),
    "norient": (("orient",), (), "orient", _orient),
    "poseinv": (("pose",), (), "pose", lambda pose: [(-(pose[1].T @ pose[0])).tolist(), _orient(pose[1].T)]),
    "posemult": (("pose", "pose"), (), "pose", lambda a, b: [(a[0] + a[1] @ b[0]).tolist(), _orient(a[1] @ b[1])]),
    "posevect": (("pose", "pos"), (), "pos", lambda pose, pos: (pose[0] + pose[1] @ pos).tolist()),
    "distance": (("pos", "pos"), (), "num", lambda a, b: float(np.linalg.norm(a - b))),
    "vectmagn": (("pos",), (), "num", lambda a: float(np.linalg.norm(a))),
    "dotprod": (("pos", "pos"), (), "num", lambda a, b: float(a @ b)),
    "strlen": (("string",), (), "num", lambda text: float(len(text))),
    "strpart": (("string", "whole", "whole"), (), "string", _str_part),
    "strfind": (("string", "whole", "string"), ("notinset",), "num", _str_find),
    "strmatch": (("string", "whole", "string"), (), "num",  # (where Pattern first starts; else the length + 1)
                 lambda text, at, pattern: float((text.find(pattern, _position(text, at, 1)) + 1) or len(text) + 1)),
    "strmemb": (("string", "whole", "string"), (), "bool",
                lambda text, position, chars: text[_position(text, position)] in chars),
    "strmap": (("string", "string", "string"), (), "string", _str_map),
    "strorder": (("string", "string", "string"), (), "bool", _str_order),
    "numtostr": (("num", "whole"), ("exp",), "string", _num_to_str),
    "valtostr": (("any",), (), "string", _val_to_str),
    "numtodnum": (("num",), (), "dnum", lambda value: value),
    "dnumtonum": (("num",), ("integer",), "num", _dnum_to_num),
}


def evaluate_function(key: str, args: Sequence[object], switches: Mapping[str, object | None]
                      ) -> tuple[object, str]:
    """The value and RAPID type of function ``key`` (one of :data:`FUNCTIONS`, lower case) called with the
    evaluated positional ``args``, each of a record kind of the shape of that record, and optional arguments
    ``switches`` (name, lower case -> value, None for a switch).

    Raises
    ------
    FunctionError
        The arguments are not what the function takes, or a value is outside its domain.
    """
    kinds, optional, rtype, function = FUNCTIONS[key]
    unknown = sorted(set(switches) - set(optional))
    if unknown:
        raise FunctionError(f"no optional argument \\{unknown[0]}")
    if len(args) != len(kinds):
        raise FunctionError(f"expected {len(kinds)} argument(s), got {len(args)}")
    values = [_arg(kind, a, f"argument {i + 1}") for i, (kind, a) in enumerate(zip(kinds, args))]
    try:
        value = function(*values, **switches)
    except (OverflowError, ZeroDivisionError, ValueError) as exc:
        raise FunctionError(str(exc)) from None
    if rtype == "num" and not math.isfinite(value := float(value)):
        raise FunctionError("the result is not a finite number")
    return value, rtype
