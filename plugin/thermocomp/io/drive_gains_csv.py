"""Drive gains (joint torque per motor current) as CSV: reader and writer.

Form, one row per joint, joints ``1`` .. ``n`` in order::

    joint,gain_Nm_per_A
    1,10.34

``gain_Nm_per_A`` [N m/A]: the joint torque a motor current of 1 A gives (seed 003's torque factor times the
gear ratio), as ``thermocomp identify --drive-gains`` writes it. Lines starting with ``#`` are comments.
"""

from __future__ import annotations

import numpy as np

from thermocomp._typing import FloatArray, PathLike
from thermocomp.errors import InputError
from thermocomp.io.atomic import atomic_open
from thermocomp.io.csvtext import joint_rows

COLUMNS = ("joint", "gain_Nm_per_A")
#: The gains a drive can have [N m/A]: a motor's torque constant (some 0.01 to 2 N m/A) times its gear ratio (some
#: 10 to 300), with a wide margin either way. Beyond it a gain is a slip (1e-300 made a joint's torques vanish, and the
#: identification ended with a report of nonsense).
GAIN_RANGE = (1e-3, 1e5)


def read_drive_gains_csv(path: PathLike, n_joints: int | None = None) -> FloatArray:
    """The gains ``(n,)`` [N m/A]; errors name the file, line and column (a gain must be > 0, within
    :data:`GAIN_RANGE`)."""
    def positive(number: int, row: list[float]) -> None:
        if not row[0] > 0:
            raise InputError(f"expected a gain > 0 N m/A, got {row[0]!r}", path=str(path), row=number,
                             column=COLUMNS[1])
        if not GAIN_RANGE[0] <= row[0] <= GAIN_RANGE[1]:
            raise InputError(f"expected a gain from {GAIN_RANGE[0]:g} to {GAIN_RANGE[1]:g} N m/A (a motor's torque "
                             f"constant times its gear ratio), got {row[0]!r}", path=str(path), row=number,
                             column=COLUMNS[1])

    return joint_rows(path, COLUMNS, (), n_joints, positive)[:, 0]


def write_drive_gains_csv(path: PathLike, gains: FloatArray, comments: tuple[str, ...] = ()) -> None:
    """Write ``gains`` ``(n,)`` [N m/A] atomically (``repr`` precision)."""
    lines = [f"# {c}" for c in comments] + [",".join(COLUMNS)]
    lines += [f"{j + 1},{float(g)!r}" for j, g in enumerate(np.asarray(gains, dtype=float))]
    with atomic_open(path) as fh:
        fh.write("\n".join(lines) + "\n")


__all__ = ["COLUMNS", "GAIN_RANGE", "read_drive_gains_csv", "write_drive_gains_csv"]
