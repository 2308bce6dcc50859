"""Denavit-Hartenberg tables as CSV, converted to the table form on reading.

The column names say the convention, so a file cannot be read in the wrong one:

- standard (distal) DH: ``joint,a_mm,alpha_deg,d_mm,theta_offset_deg,lower_deg,upper_deg[,velocity_deg_s][,home_deg]``
- modified (Craig) DH: ``joint,a_prev_mm,alpha_prev_deg,d_mm,theta_offset_deg,lower_deg,upper_deg[,...]``
  (``a_prev``, ``alpha_prev`` are ``a_{i-1}``, ``alpha_{i-1}``: the parameters before joint ``i``).

``theta_i = q_i + theta_offset_i``. The base is the DH frame 0 and the TCP
the flange frame ``n``. See :mod:`thermocomp.robot.dh` for the conversion.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from thermocomp._typing import PathLike
from thermocomp.errors import InputError
from thermocomp.io.chain_csv import check_robot_cell
from thermocomp.io.csvtext import check_header, header_and_rows, header_names, parse_float
from thermocomp.robot.chain import Chain
from thermocomp.robot.dh import chain_from_dh

STANDARD = ["joint", "a_mm", "alpha_deg", "d_mm", "theta_offset_deg", "lower_deg", "upper_deg"]
MODIFIED = ["joint", "a_prev_mm", "alpha_prev_deg", "d_mm", "theta_offset_deg", "lower_deg", "upper_deg"]
OPTIONAL = ["velocity_deg_s", "home_deg"]


def is_dh_header(header: list[str]) -> bool:
    """True when a CSV header is a DH table's (either convention)."""
    names = set(header_names(header))
    return "a_mm" in names or "a_prev_mm" in names


def read_dh_csv(path: PathLike, name: str | None = None) -> Chain:
    """Read a DH table (standard or modified, by its columns) as a table-form chain."""
    src = str(path)
    line, header, rest = header_and_rows(path, "expected a header and one row per joint, got an empty file")
    body = list(rest)
    modified = "a_prev_mm" in header_names(header)
    required = MODIFIED if modified else STANDARD
    idx = check_header(header, required, OPTIONAL, src, line)
    if not body:
        raise InputError("expected one row per joint, got only the header", path=src)
    values: dict[str, list[float]] = {c: [] for c in required[1:] + OPTIONAL}
    names = []
    for number, cells in body:
        if len(cells) != len(header):
            raise InputError(f"expected {len(header)} cells, got {len(cells)}", path=src, row=number)
        names.append(cells[idx["joint"]].strip() or f"joint{len(names) + 1}")
        for column in required[1:] + OPTIONAL:
            if column in idx:
                values[column].append(parse_float(cells[idx[column]], src, number, column, allow_empty=column in OPTIONAL))
                check_robot_cell(values[column][-1], column, src, number)
            else:
                values[column].append(math.nan)
        h, lo, hi = values["home_deg"][-1], values["lower_deg"][-1], values["upper_deg"][-1]
        if not math.isnan(h) and not lo <= h <= hi:
            # (the chain refuses it too, without the line)
            raise InputError(f"expected the home angle within the joint's limits {lo:g} .. {hi:g} deg, got {h:g}",
                             path=src, row=number, column="home_deg")
    a_key, alpha_key = (required[1], required[2])
    velocity = np.radians(values["velocity_deg_s"])
    home = np.radians(values["home_deg"])
    try:
        return chain_from_dh(
            np.array(values[a_key]) / 1000.0,
            np.radians(values[alpha_key]),
            np.array(values["d_mm"]) / 1000.0,
            np.radians(values["theta_offset_deg"]),
            modified=modified,
            name=name or Path(path).stem,
            joint_names=tuple(names),
            lower=np.radians(values["lower_deg"]),
            upper=np.radians(values["upper_deg"]),
            velocity=np.where(np.isnan(velocity), np.inf, velocity),
            home=np.where(np.isnan(home), 0.0, home),
        )
    except InputError as exc:  # what the chain itself refuses (limits, home, names), located in this file
        raise InputError(exc.message, path=src) from None
