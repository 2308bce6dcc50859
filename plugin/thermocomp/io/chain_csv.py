"""The table form of a robot (seed 002, Table 7) as CSV: reader and writer.

One row per frame, in chain order: ``base``, then joints ``1``..``n``, then
``tool``. Columns (units in the names; docs/conventions.md)::

    row,name,px_mm,py_mm,pz_mm,axis_x,axis_y,axis_z,rx_deg,ry_deg,rz_deg,
    sign,offset_deg,lower_deg,upper_deg,velocity_deg_s,home_deg

``px..pz`` is the translation from the previous frame in the base-oriented
frame of the zero pose. Joint rows give ``axis`` (a unit vector) and leave
``rx..rz`` empty; the base and tool rows give their fixed orientation as
Euler xyz angles (``R = Rx @ Ry @ Rz``) and leave the joint columns empty.
``velocity_deg_s`` may be empty (unknown: no speed check). Lines starting
with ``#`` are comments (provenance).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from thermocomp._typing import PathLike
from thermocomp.errors import InputError
from thermocomp.geometry.rotations import euler_xyz_from_matrix, matrix_from_euler_xyz, transform
from thermocomp.io.atomic import atomic_write_text
from thermocomp.io.csvtext import check_header, header_and_rows, parse_float
from thermocomp.robot.chain import MAX_ANGLE, MAX_LENGTH, MIN_SPEED, Chain

COLUMNS = [
    "row", "name", "px_mm", "py_mm", "pz_mm", "axis_x", "axis_y", "axis_z",
    "rx_deg", "ry_deg", "rz_deg", "sign", "offset_deg", "lower_deg", "upper_deg",
    "velocity_deg_s", "home_deg",
]
_JOINT_COLUMNS = ["axis_x", "axis_y", "axis_z", "sign", "offset_deg", "lower_deg", "upper_deg"]


def check_robot_cell(x: float, column: str, src: str, line: int) -> None:
    """A robot CSV cell (table form or DH) within a robot's bounds (:data:`thermocomp.robot.chain.MAX_LENGTH`,
    ``MAX_ANGLE``, ``MIN_SPEED``), by its column: ``*_mm`` lengths, ``lower_deg``/``upper_deg`` limits,
    ``velocity_deg_s`` (NaN, an empty cell, passes); refused at the cell, as the chain itself would refuse
    it without the line."""
    if column.endswith("_mm") and abs(x) > MAX_LENGTH * 1000.0:
        raise InputError(f"expected a length of magnitude at most {MAX_LENGTH * 1000.0:g} mm, got {x:g}", path=src,
                         row=line, column=column)
    if column in ("lower_deg", "upper_deg") and abs(x) > math.degrees(MAX_ANGLE):
        raise InputError(f"expected a limit of magnitude at most {math.degrees(MAX_ANGLE):.6g} deg ({MAX_ANGLE:g} rad), "
                         f"got {x:g}", path=src, row=line, column=column)
    if column == "velocity_deg_s" and x < math.degrees(MIN_SPEED):  # (NaN: empty, unknown speed)
        raise InputError(f"expected a positive speed, at least {math.degrees(MIN_SPEED):.3g} deg/s, got {x:g}", path=src,
                         row=line, column=column)


def read_chain_csv(path: PathLike, name: str | None = None) -> Chain:
    """Read a robot in table form.

    Parameters
    ----------
    path
        CSV file in the form of this module's docstring.
    name
        Robot name; defaults to the file's stem.

    Raises
    ------
    InputError
        Naming file, line and column of the first problem.
    """
    src = str(path)
    header_line, header, rest = header_and_rows(path, "expected a header and rows, got an empty file")
    body = list(rest)
    idx = check_header(header, COLUMNS[:11] + _JOINT_COLUMNS[3:], ["velocity_deg_s", "home_deg"], src, header_line)
    if len(body) < 3:
        raise InputError(f"expected a base row, at least one joint row and a tool row, got {len(body)} row(s)", path=src)

    for line, cells in body:  # a cell beyond the header would be dropped unread
        if len(cells) > len(header):
            raise InputError(f"expected {len(header)} cells, got {len(cells)}", path=src, row=line,
                             column=str(len(header) + 1))

    def cell(line: int, cells: list[str], col: str) -> str:
        i = idx.get(col)
        if i is None:
            return ""
        if i >= len(cells):
            raise InputError(f"expected {len(header)} cells, got {len(cells)}", path=src, row=line, column=col)
        return cells[i]

    def num(line: int, cells: list[str], col: str, empty: bool = False) -> float:
        x = parse_float(cell(line, cells, col), src, line, col, allow_empty=empty)
        check_robot_cell(x, col, src, line)
        return x

    def length(line: int, cells: list[str], col: str) -> float:
        """A translation [m] from its cell [mm]."""
        return num(line, cells, col) / 1000.0  # / 1000 (not * 1e-3) gives the double nearest the typed millimetres

    def fixed_frame(line: int, cells: list[str], label: str) -> np.ndarray:
        if cell(line, cells, "row").strip() != label:
            raise InputError(f"expected row {label!r} here, got {cell(line, cells, 'row')!r}", path=src, row=line, column="row")
        p = np.array([length(line, cells, c) for c in ("px_mm", "py_mm", "pz_mm")])
        euler = np.radians([num(line, cells, c) for c in ("rx_deg", "ry_deg", "rz_deg")])
        return transform(matrix_from_euler_xyz(euler), p)

    T_world_base = fixed_frame(*body[0], "base")
    T_last_tcp = fixed_frame(*body[-1], "tool")
    names, p, axis, sign, offset, lower, upper, velocity, home = ([] for _ in range(9))
    for k, (line, cells) in enumerate(body[1:-1], start=1):
        label = cell(line, cells, "row").strip()
        if label != str(k):
            raise InputError(f"expected joint row {k}, got {label!r}", path=src, row=line, column="row")
        names.append(cell(line, cells, "name").strip() or f"joint{k}")
        if names[-1] in names[:-1]:
            raise InputError(f"joint name {names[-1]!r} is already the name of joint {names.index(names[-1]) + 1}: "
                             "names must be unique", path=src, row=line, column="name")
        p.append([length(line, cells, c) for c in ("px_mm", "py_mm", "pz_mm")])
        a = np.array([num(line, cells, c) for c in ("axis_x", "axis_y", "axis_z")])
        if abs(np.linalg.norm(a) - 1.0) > 1e-6:
            raise InputError(f"expected a unit axis, got {a.tolist()} (norm {np.linalg.norm(a):.6g})",
                             path=src, row=line, column="axis_x")
        axis.append(a)
        s = num(line, cells, "sign")
        if s not in (1.0, -1.0):
            raise InputError(f"expected sign +1 or -1, got {s:g}", path=src, row=line, column="sign")
        sign.append(s)
        offset.append(math.radians(num(line, cells, "offset_deg")))
        lo, hi = num(line, cells, "lower_deg"), num(line, cells, "upper_deg")
        if lo >= hi:
            raise InputError(f"expected lower_deg < upper_deg, got {lo:g} >= {hi:g}", path=src, row=line, column="lower_deg")
        lower.append(math.radians(lo))
        upper.append(math.radians(hi))
        v = num(line, cells, "velocity_deg_s", empty=True)
        velocity.append(math.inf if math.isnan(v) else math.radians(v))
        h = num(line, cells, "home_deg", empty=True)
        if not math.isnan(h) and not lo <= h <= hi:  # (the chain refuses it too, without the line)
            raise InputError(f"expected the home angle within the joint's limits {lo:g} .. {hi:g} deg, got {h:g}",
                             path=src, row=line, column="home_deg")
        home.append(0.0 if math.isnan(h) else math.radians(h))
    try:
        return Chain(
            name=name or Path(path).stem,
            joint_names=tuple(names),
            p=np.array(p), axis=np.array(axis), sign=np.array(sign), offset=np.array(offset),
            lower=np.array(lower), upper=np.array(upper), velocity=np.array(velocity),
            T_world_base=T_world_base, T_last_tcp=T_last_tcp, home=np.array(home),
        )
    except InputError as exc:  # what the chain itself refuses, located in this file
        raise InputError(exc.message, path=src) from None


def _fmt(x: float) -> str:
    return "" if not math.isfinite(x) else repr(float(x))


def _shortest(value: float, to_file, from_file) -> str:
    """The shortest decimal in file units that reads back exactly as ``value`` (SI)."""
    if not math.isfinite(value):
        return ""
    for digits in range(1, 18):
        candidate = float(f"{to_file(value):.{digits}g}")
        if from_file(candidate) == value:
            return repr(candidate)
    return repr(float(to_file(value)))  # float(): numpy 2 reprs np.float64 as 'np.float64(...)'


def _fmt_mm(metres: float) -> str:
    """Millimetres that read back (``/ 1000``) as exactly ``metres``."""
    return _shortest(metres, lambda v: v * 1000.0, lambda v: v / 1000.0)


def _fmt_deg(radians: float) -> str:
    """Degrees that read back (``math.radians``) as exactly ``radians``."""
    return _shortest(radians, math.degrees, math.radians)


def chain_csv_text(chain: Chain, comments: tuple[str, ...] = ()) -> str:
    """The table form of ``chain`` as CSV text, in the shortest decimals that read back exactly."""
    lines = [f"# {c}" for c in comments] + [",".join(COLUMNS)]

    def frame_row(label: str, T: np.ndarray) -> str:
        e = euler_xyz_from_matrix(T[:3, :3])
        return ",".join([label, label, *map(_fmt_mm, T[:3, 3]), "", "", "", *map(_fmt_deg, e), "", "", "", "", "", ""])

    lines.append(frame_row("base", chain.T_world_base))
    for k in range(chain.n_joints):
        lines.append(",".join([
            str(k + 1), chain.joint_names[k], *map(_fmt_mm, chain.p[k]), *map(_fmt, chain.axis[k]),
            "", "", "", _fmt(chain.sign[k]), _fmt_deg(chain.offset[k]),
            _fmt_deg(chain.lower[k]), _fmt_deg(chain.upper[k]),
            _fmt_deg(chain.velocity[k]), _fmt_deg(chain.home[k]),
        ]))
    lines.append(frame_row("tool", chain.T_last_tcp))
    return "\n".join(lines) + "\n"


def write_chain_csv(chain: Chain, path: PathLike, comments: tuple[str, ...] = ()) -> None:
    """Write ``chain`` in table form to ``path`` (atomically: temporary file, then rename)."""
    atomic_write_text(path, chain_csv_text(chain, comments))


__all__ = ["COLUMNS", "chain_csv_text", "read_chain_csv", "write_chain_csv"]
