"""Joint PI controllers (seed 000, Step 4, Eq. 7 and Table IV) as CSV: reader and writer.

Form, one row per joint, joints ``1`` .. ``n`` in order (what ``thermocomp
identify --step 4 --out`` writes, and what ``thermocomp simulate-recording
--controllers`` reads)::

    joint,Kp_Nm_per_rad_s,Ti_s,setpoint_rad,nrmse_fit_percent
    1,15562.0,0.2565,0.0,91.7

``K_p`` [N m / (rad s)] and ``T_i`` [s] of ``tau_m(s) / E(s) = K_p (1 + T_i
s) / s``; the set point [rad] and the fit of Step 4 [%] are optional when
reading. Lines starting with ``#`` are comments.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from thermocomp._typing import FloatArray, PathLike
from thermocomp.dynamics.controller import PIEstimate
from thermocomp.errors import InputError
from thermocomp.io.atomic import atomic_open
from thermocomp.io.csvtext import check_header, iter_rows, parse_floats

REQUIRED = ("joint", "Kp_Nm_per_rad_s", "Ti_s")
OPTIONAL = ("setpoint_rad", "nrmse_fit_percent")


def read_controllers_csv(path: PathLike, n_joints: int | None = None) -> tuple[FloatArray, FloatArray]:
    """``(Kp, Ti)``, each ``(n,)``, of a controllers CSV; errors name the file, line and column."""
    src = str(path)
    rows = iter_rows(path)
    first = next(rows, None)
    if first is None:
        raise InputError(f"expected a header {','.join(REQUIRED)}, got an empty file", path=src)
    line, header = first
    index = check_header(header, list(REQUIRED), list(OPTIONAL), src, line)
    values = []
    for number, cells in rows:
        if len(cells) != len(header):
            raise InputError(f"expected {len(header)} cells, got {len(cells)}", path=src, row=number)
        joint = cells[index["joint"]].strip()
        if joint != str(len(values) + 1):
            raise InputError(f"expected joint {len(values) + 1} (rows in joint order), got {joint!r}",
                             path=src, row=number, column="joint")
        cols = list(REQUIRED[1:])
        row = parse_floats(cells, [index[c] for c in cols], cols, src, number)
        for c, v in zip(cols, row):
            if not v > 0:
                raise InputError(f"expected a value > 0, got {v!r}", path=src, row=number, column=c)
        values.append(row)
    if not values:
        raise InputError("expected one row per joint, got none", path=src)
    if n_joints is not None and len(values) != n_joints:
        raise InputError(f"expected {n_joints} joint rows, got {len(values)}", path=src)
    a = np.array(values)
    return a[:, 0], a[:, 1]


def write_controllers_csv(path: PathLike, estimates: Sequence[PIEstimate], comments: tuple[str, ...] = ()) -> None:
    """Write Step 4's estimates, one row per joint (``repr`` precision), atomically."""
    lines = [f"# {c}" for c in comments] + [",".join(REQUIRED + OPTIONAL)]
    lines += [f"{e.joint + 1},{e.Kp!r},{e.Ti!r},{e.setpoint!r},{e.fit_percent!r}" for e in estimates]
    with atomic_open(path) as fh:
        fh.write("\n".join(lines) + "\n")


__all__ = ["OPTIONAL", "REQUIRED", "read_controllers_csv", "write_controllers_csv"]
