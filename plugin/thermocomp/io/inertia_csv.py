"""Inertia data files: link inertials (``robots/<name>/inertia.csv``) and correction factors.

Readers return plain data (arrays, names, the line of each row); writers write atomically. What the values mean
(a positive mass, a physically valid tensor) is the inertia feature's to check, when it builds its
:class:`~thermocomp.inertia.links.RobotInertials` (:func:`thermocomp.inertia.links.robot_inertials_from_rows`,
located at the row's line). Units are in the column names (docs/conventions.md): positions in millimetres,
masses in kilograms, inertias in kg m^2, volumes in cm^3. Lines starting with ``#`` are comments (provenance).

Link inertials::

    link,mass_kg,com_x_mm,com_y_mm,com_z_mm,ixx_kg_m2,iyy_kg_m2,izz_kg_m2,ixy_kg_m2,ixz_kg_m2,iyz_kg_m2,volume_cm3,method
    base,4.93,...

One row per link (``base``, ``link1`` ..), in chain order; the centre of
mass in the link frame, the tensor about it in the link axes (``ixy`` is
the tensor element, ``-integral x y dm``, as in URDF).

Correction factors (seed 000, Step 2, Eq. 9)::

    link,lambda
    1,1.03

``link`` is a link name (``base``, ``link1`` ..) or the paper's link number
``k`` (0 for the base).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from thermocomp._typing import FloatArray, PathLike
from thermocomp.errors import InputError
from thermocomp.io.atomic import atomic_write_text
from thermocomp.io.csvtext import check_header, header_and_rows, parse_float

INERTIA_COLUMNS = [
    "link", "mass_kg", "com_x_mm", "com_y_mm", "com_z_mm",
    "ixx_kg_m2", "iyy_kg_m2", "izz_kg_m2", "ixy_kg_m2", "ixz_kg_m2", "iyz_kg_m2",
]
INERTIA_OPTIONAL = ["volume_cm3", "method"]
CORRECTION_COLUMNS = ["link", "lambda"]


@dataclass(frozen=True, eq=False)
class InertiaRows:
    """The rows of a link inertials file, as written (SI), not yet checked as physics.

    Attributes
    ----------
    links
        Link names, one per row, in the file's order (no name twice).
    mass
        ``(n,)`` [kg].
    com
        ``(n, 3)`` centre of mass in the link frame [m].
    inertia
        ``(n, 3, 3)`` tensor about the centre of mass in the link axes [kg m^2] (symmetric as written).
    volume
        ``(n,)`` [m^3]; 0 where the file gives none.
    method
        Per row, how the values were obtained (``""`` where the file gives none).
    lines
        ``(n,)`` the file line of each row (0 for rows made in memory).
    source
        The file read (``""`` for rows made in memory).
    """

    links: tuple[str, ...]
    mass: FloatArray
    com: FloatArray
    inertia: FloatArray
    volume: FloatArray
    method: tuple[str, ...]
    lines: np.ndarray
    source: str = ""


def read_inertia_csv(path: PathLike) -> InertiaRows:
    """Read link inertials (module docstring) as plain rows.

    Raises
    ------
    InputError
        Naming file, line and column: a cell count, a number, a link given twice; naming the file: no rows.
    """
    src = str(path)
    header_line, header, rest = header_and_rows(path, "expected a header and rows, got an empty file")
    idx = check_header(header, INERTIA_COLUMNS, INERTIA_OPTIONAL, src, header_line)
    names: list[str] = []
    values: list[list[float]] = []
    methods: list[str] = []
    lines: list[int] = []
    seen: dict[str, int] = {}  # link name -> its line
    for line, cells in rest:
        if len(cells) != len(header):
            raise InputError(f"expected {len(header)} cells, got {len(cells)}", path=src, row=line)
        name = cells[idx["link"]].strip()
        if name in seen:
            raise InputError(f"link {name!r} is already given on line {seen[name]}: one row per link", path=src,
                             row=line, column="link")
        seen[name] = line
        row = [parse_float(cells[idx[c]], src, line, c) for c in INERTIA_COLUMNS[1:]]
        row.append(parse_float(cells[idx["volume_cm3"]], src, line, "volume_cm3") if "volume_cm3" in idx else 0.0)
        names.append(name)
        values.append(row)
        methods.append(cells[idx["method"]].strip() if "method" in idx else "")
        lines.append(line)
    if not names:
        raise InputError("expected one row per link, got none", path=src)
    v = np.array(values)
    ixx, iyy, izz, ixy, ixz, iyz = (v[:, k] for k in range(4, 10))
    inertia = np.stack([np.stack([ixx, ixy, ixz], -1), np.stack([ixy, iyy, iyz], -1), np.stack([ixz, iyz, izz], -1)],
                       axis=1)
    return InertiaRows(links=tuple(names), mass=v[:, 0], com=v[:, 1:4] / 1000.0, inertia=inertia,
                       volume=v[:, 10] * 1e-6, method=tuple(methods), lines=np.array(lines), source=src)


def _g(x: float) -> str:
    return f"{x:.10g}"


def inertia_csv_text(rows: InertiaRows, comments: Sequence[str] = ()) -> str:
    """The text of :func:`write_inertia_csv` (10 significant digits)."""
    lines = [f"# {c}" for c in comments]
    lines.append(",".join(INERTIA_COLUMNS + INERTIA_OPTIONAL))
    for k, link in enumerate(rows.links):
        I = rows.inertia[k]
        values = [rows.mass[k], *(rows.com[k] * 1000.0), I[0, 0], I[1, 1], I[2, 2], I[0, 1], I[0, 2], I[1, 2],
                  rows.volume[k] * 1e6]
        lines.append(",".join([link] + [_g(float(v) + 0.0) for v in values] + [rows.method[k]]))
    return "\n".join(lines) + "\n"


def write_inertia_csv(rows: InertiaRows, path: PathLike, comments: Sequence[str] = ()) -> None:
    """Write link inertials (module docstring) atomically, with ``comments`` as ``#`` lines."""
    atomic_write_text(path, inertia_csv_text(rows, comments))


def read_corrections_csv(path: PathLike, link_names: Sequence[str]) -> dict[str, float]:
    """Correction factors ``lambda_k`` per link (seed 000, Eq. 9) from a CSV (module docstring).

    Parameters
    ----------
    link_names
        The robot's links (``base``, ``link1`` ..); a row may name one, or
        give its number ``k`` (0 = base).

    Raises
    ------
    InputError
        Naming file, line and column: unknown link, a link given twice, a
        factor that is not a number > 0; naming the file: no rows (a file
        that corrects nothing).
    """
    src = str(path)
    header_line, header, rest = header_and_rows(path, "expected a header and rows, got an empty file")
    idx = check_header(header, CORRECTION_COLUMNS, [], src, header_line)
    out: dict[str, float] = {}
    for line, cells in rest:
        if len(cells) != len(header):
            raise InputError(f"expected {len(header)} cells, got {len(cells)}", path=src, row=line)
        label = cells[idx["link"]].strip()
        # ASCII digits only: str.isdigit() also accepts '²' or '٣', which int() refuses or reads otherwise.
        is_number = label.isascii() and label.isdigit()
        name = link_names[int(label)] if is_number and int(label) < len(link_names) else label
        if name not in link_names:
            raise InputError(f"expected a link among {', '.join(link_names)} or 0..{len(link_names) - 1}, got {label!r}",
                             path=src, row=line, column="link")
        if name in out:
            raise InputError(f"link {name!r} is given twice", path=src, row=line, column="link")
        value = parse_float(cells[idx["lambda"]], src, line, "lambda")
        if not (math.isfinite(value) and value > 0):
            raise InputError(f"lambda: expected a finite number > 0 [1], got {value!r}", path=src, row=line,
                             column="lambda")
        out[name] = value
    if not out:
        raise InputError("expected a row per corrected link after the header, got none: the file corrects nothing "
                         "(leave out --corrections for lambda = 1 everywhere)", path=src)
    return out


__all__ = [
    "CORRECTION_COLUMNS",
    "INERTIA_COLUMNS",
    "InertiaRows",
    "inertia_csv_text",
    "read_corrections_csv",
    "read_inertia_csv",
    "write_inertia_csv",
]
