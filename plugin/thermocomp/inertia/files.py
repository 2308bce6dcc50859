"""Inertia data files: link inertials (``robots/<name>/inertia.csv``) and correction factors.

Readers return validated plain data; writers write atomically. Units are in
the column names (docs/conventions.md): positions in millimetres, masses in
kilograms, inertias in kg m^2, volumes in cm^3. Lines starting with ``#``
are comments (provenance).

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

from collections.abc import Sequence

import numpy as np

from thermocomp._typing import PathLike
from thermocomp.errors import InputError
from thermocomp.inertia.checks import check_positive
from thermocomp.inertia.links import LinkInertial, RobotInertials
from thermocomp.io.atomic import atomic_write_text
from thermocomp.io.csvtext import check_header, header_and_rows, parse_float

INERTIA_COLUMNS = [
    "link", "mass_kg", "com_x_mm", "com_y_mm", "com_z_mm",
    "ixx_kg_m2", "iyy_kg_m2", "izz_kg_m2", "ixy_kg_m2", "ixz_kg_m2", "iyz_kg_m2",
]
INERTIA_OPTIONAL = ["volume_cm3", "method"]
CORRECTION_COLUMNS = ["link", "lambda"]


def read_inertia_csv(path: PathLike, robot: str = "") -> RobotInertials:
    """Read link inertials (module docstring); every tensor is checked (SPD, triangle inequality).

    Raises
    ------
    InputError
        Naming file, line and column.
    """
    src = str(path)
    header_line, header, rest = header_and_rows(path, "expected a header and rows, got an empty file")
    body = list(rest)
    idx = check_header(header, INERTIA_COLUMNS, INERTIA_OPTIONAL, src, header_line)
    links = []
    seen: dict[str, int] = {}  # link name -> its line
    for line, cells in body:
        if len(cells) != len(header):
            raise InputError(f"expected {len(header)} cells, got {len(cells)}", path=src, row=line)
        name = cells[idx["link"]].strip()
        if name in seen:
            raise InputError(f"link {name!r} is already given on line {seen[name]}: one row per link", path=src,
                             row=line, column="link")
        seen[name] = line

        def num(col: str, cells: list[str] = cells, line: int = line) -> float:
            return parse_float(cells[idx[col]], src, line, col)

        ixx, iyy, izz, ixy, ixz, iyz = (num(c) for c in INERTIA_COLUMNS[5:])
        try:
            links.append(LinkInertial(
                link=cells[idx["link"]].strip(),
                mass=num("mass_kg"),
                com=np.array([num("com_x_mm"), num("com_y_mm"), num("com_z_mm")]) / 1000.0,
                inertia=np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]]),
                volume=num("volume_cm3") * 1e-6 if "volume_cm3" in idx else 0.0,
                method=cells[idx["method"]].strip() if "method" in idx else "",
                source=src,
            ))
        except InputError as exc:
            raise InputError(exc.message, path=src, row=line) from exc
    if not links:
        raise InputError("expected one row per link, got none", path=src)
    try:
        return RobotInertials(robot=robot, links=tuple(links), total_mass=sum(x.mass for x in links))
    except InputError as exc:  # what the set of links itself refuses, located in this file
        raise InputError(exc.message, path=src) from None


def _g(x: float) -> str:
    return f"{x:.10g}"


def inertia_csv_text(inertials: RobotInertials, comments: Sequence[str] = ()) -> str:
    """The text of :func:`write_inertia_csv` (10 significant digits)."""
    lines = [f"# {c}" for c in comments]
    lines.append(",".join(INERTIA_COLUMNS + INERTIA_OPTIONAL))
    for x in inertials.links:
        I = x.inertia
        values = [x.mass, *(x.com * 1000.0), I[0, 0], I[1, 1], I[2, 2], I[0, 1], I[0, 2], I[1, 2], x.volume * 1e6]
        lines.append(",".join([x.link] + [_g(v + 0.0) for v in values] + [x.method]))
    return "\n".join(lines) + "\n"


def write_inertia_csv(inertials: RobotInertials, path: PathLike, comments: Sequence[str] = ()) -> None:
    """Write link inertials (module docstring) atomically, with ``comments`` as ``#`` lines."""
    atomic_write_text(path, inertia_csv_text(inertials, comments))


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
    body = list(rest)
    idx = check_header(header, CORRECTION_COLUMNS, [], src, header_line)
    out: dict[str, float] = {}
    for line, cells in body:
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
        try:
            out[name] = check_positive(value, "lambda", "1")
        except InputError as exc:
            raise InputError(exc.message, path=src, row=line, column="lambda") from exc
    if not out:
        raise InputError("expected a row per corrected link after the header, got none: the file corrects nothing "
                         "(leave out --corrections for lambda = 1 everywhere)", path=src)
    return out


__all__ = [
    "CORRECTION_COLUMNS",
    "INERTIA_COLUMNS",
    "inertia_csv_text",
    "read_corrections_csv",
    "read_inertia_csv",
    "write_inertia_csv",
]
