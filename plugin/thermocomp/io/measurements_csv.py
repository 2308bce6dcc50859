"""Laser-tracker measurements as CSV: what ``thermocomp calibrate`` reads.

One line per measurement; every column names its meaning and unit::

    time_min,q1_deg,q2_deg,q3_deg,q4_deg,q5_deg,q6_deg,x_mm,y_mm,z_mm[,orientation][,temp1_C,...][,name]
    0,0,10,-5,0,30,0,612.31,0.02,700.55
    30,45,-20,10,30,45,90,412.83,410.12,312.90

- ``time_min``: working time since the cold start [min], >= 0 (required);
- ``q1_deg`` .. ``qn_deg`` (or ``_rad``): the controller's joint angles (required);
- ``x_mm, y_mm, z_mm`` (or ``_m``): the measured TCP position in the
  tracker's frame, which is the world frame unless the calibration
  estimates it (``--estimate-base``) (required);
- optionally one orientation group with the columns and conventions of
  targets (:mod:`thermocomp.io.targets_csv`: ``euler_xyz_{a,b,c}_deg``,
  ``quat_w..``, ``rotvec_{x,y,z}_rad``), when the tracker measures orientation;
- optionally ``temp1_C`` .. ``tempk_C``: temperatures [deg C] (consecutive from 1);
- optionally ``name``: a label (ignored by the fit).

Lines starting with ``#`` are comments. Errors name the file, the line and
the column. The header and the cells are parsed by the targets reader
(one parser for positions, orientations, joints and times).
"""

from __future__ import annotations

import re

import numpy as np

from thermocomp._typing import PathLike
from thermocomp.errors import InputError
from thermocomp.io.atomic import atomic_open
from thermocomp.io.csvtext import header_and_rows, header_names, parse_floats
from thermocomp.io.measurements import Measurements
from thermocomp.io.targets_csv import _ORIENTATION_GROUPS, _convert, _layout, _program

_TEMP_RE = re.compile(r"temp([1-9][0-9]*)_C")
COLUMNS_HELP = ("time_min, q1_deg..qn_deg, x_mm,y_mm,z_mm, optionally an orientation group as in targets "
                "(euler_xyz_{a,b,c}_deg | quat_w,quat_x,quat_y,quat_z | rotvec_{x,y,z}_rad), temp1_C.., name")


#: The most measurements a file may hold: calibration's Jacobian has three rows (six with orientations) per
#: measurement and a column per table parameter; 2 million tracker rows ran out of memory.
MAX_MEASUREMENTS = 100_000


def read_measurements_csv(path: PathLike, n_joints: int | None = None) -> Measurements:
    """Read tracker measurements (see the module docstring); SI from here on.

    Parameters
    ----------
    n_joints
        The robot's joint count: ``q1..qn`` must match it.

    Raises
    ------
    InputError
        Located at file, line and column.
    """
    src = str(path)
    header_line, header, rows = header_and_rows(path, f"empty file: expected a header with {COLUMNS_HELP}")
    names = header_names(header)
    temps = [(int(m[1]), i) for i, h in enumerate(names) if (m := _TEMP_RE.fullmatch(h))]
    temps.sort()
    for k, (number, i) in enumerate(temps):
        if number != k + 1:
            raise InputError(f"expected temperature columns temp1_C..temp{len(temps)}_C consecutive from 1, "
                             f"got temp{number}_C", path=src, row=header_line, column=names[i])
    temp_index = [i for _, i in temps]
    keep = [i for i in range(len(names)) if i not in set(temp_index)]
    sub = [names[i] for i in keep]
    for required in ("time_min", "x_mm"):
        if required not in sub and not (required == "x_mm" and "x_m" in sub):
            raise InputError(f"missing column {required!r}: expected {COLUMNS_HELP}", path=src, row=header_line,
                             column=required)
    if not any(re.fullmatch(r"q1_(deg|rad)", c) for c in sub):
        raise InputError(f"missing joint columns q1_deg..: expected {COLUMNS_HELP}", path=src, row=header_line,
                         column="q1_deg")
    oriented = any(pattern.fullmatch(c) for c in sub for pattern, _, _ in _ORIENTATION_GROUPS.values())
    layout = _layout(sub, src, header_line, None if oriented else np.eye(3), n_joints)
    temp_columns = [names[i] for i in temp_index]
    lines, kept, stop = [], [], None
    for line, cells in rows:
        if len(lines) == MAX_MEASUREMENTS:
            stop = InputError(f"expected at most {MAX_MEASUREMENTS:,} measurements (a tracker campaign takes "
                              "hundreds to thousands), got more", path=src, row=line)
            break
        if len(cells) != len(names):
            column = names[len(cells)] if len(cells) < len(names) else str(len(names) + 1)
            stop = InputError(f"expected {len(names)} cells ({','.join(names)}), got {len(cells)}", path=src,
                              row=line, column=column)
            break
        lines.append(line)
        kept.append(cells)
    if not lines and stop is None:
        raise InputError("expected at least one measurement after the header, got none", path=src)
    # The rows' target cells at once (targets_csv's one conversion), then each row's temperatures: the
    # first problem in file order, a row's target cells before its temperatures.
    by_column = [list(column) for column in zip(*kept)] if kept else [[] for _ in names]
    sub_columns = [by_column[i] for i in keep]
    label_cells = None if layout.name_index is None else sub_columns[layout.name_index]
    labels, values, first, error = _convert(layout, src, np.array(lines, dtype=np.int64), label_cells,
                                            [sub_columns[i] for i in layout.value_index])
    temperature = [parse_floats(cells, temp_index, temp_columns, src, line)
                   for line, cells in zip(lines[:first], kept[:first])]
    if error is not None or stop is not None:
        raise error if error is not None else stop
    program = _program(layout, src, labels, values, np.array(lines))
    return Measurements(
        q=program.q_reference, p_tracker_tcp=program.p_world_tcp, minute=program.time_min,
        R_tracker_tcp=program.R_world_tcp if oriented else None,
        temperature_C=np.array(temperature) if temp_index else None,
        line=np.array(lines), source=src,
    )


def write_measurements_csv(meas: Measurements, path: PathLike) -> None:
    """Write measurements (positions, joints, minutes; orientation as ``quat_w..``; temperatures) atomically."""
    from thermocomp.geometry.rotations import quat_wxyz_from_matrix

    n = meas.n_joints
    header = ["time_min", *[f"q{j + 1}_deg" for j in range(n)], "x_mm", "y_mm", "z_mm"]
    blocks = [meas.minute[:, None], np.degrees(meas.q), meas.p_tracker_tcp * 1e3]
    if meas.R_tracker_tcp is not None:
        header += ["quat_w", "quat_x", "quat_y", "quat_z"]
        blocks.append(quat_wxyz_from_matrix(meas.R_tracker_tcp))
    if meas.temperature_C is not None:
        header += [f"temp{k + 1}_C" for k in range(meas.temperature_C.shape[1])]
        blocks.append(meas.temperature_C)
    table = np.hstack(blocks)
    with atomic_open(path, newline="") as handle:
        handle.write(",".join(header) + "\n")
        for row in table:
            handle.write(",".join(repr(float(v)) for v in row) + "\n")


__all__ = ["COLUMNS_HELP", "MAX_MEASUREMENTS", "read_measurements_csv", "write_measurements_csv"]
