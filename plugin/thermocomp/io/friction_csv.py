"""Friction tables (seed 000, Eq. 3 and Table III) with each joint's reflected rotor inertia, as CSV: reader and writer.

Form, one row per joint, joints ``1`` .. ``n`` in order::

    joint,Fc_Nm,Fv_Nm_s_per_rad,Fs_Nm,vs_rad_s,armature_kg_m2
    1,8.5,3.43775,9.5,0.00872665,1.2

``Fc`` Coulomb [N m], ``Fv`` viscous [N m s/rad], ``Fs`` static [N m], ``vs``
Stribeck speed [rad/s]; ``armature_kg_m2`` (optional, 0 when absent) the
joint's reflected rotor inertia ``N^2 J_m`` [kg m^2] about the joint axis,
added to the mass matrix's diagonal (seed 000's ``J_m,i``; a URDF has no
field for it). The reader returns plain arrays (:class:`FrictionColumns`);
the dynamics builds its table from them
(:meth:`thermocomp.dynamics.friction.FrictionTable.from_columns`).
Lines starting with ``#`` are comments.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from thermocomp._typing import FloatArray, PathLike
from thermocomp.errors import InputError
from thermocomp.io.atomic import atomic_open
from thermocomp.io.csvtext import joint_rows

#: The required columns.
COLUMNS = ("joint", "Fc_Nm", "Fv_Nm_s_per_rad", "Fs_Nm", "vs_rad_s")

#: The optional columns (written always).
OPTIONAL = ("armature_kg_m2",)

#: The fields, in column order.
KEYS = ("Fc", "Fv", "Fs", "vs", "armature")


class FrictionColumns(NamedTuple):
    """A friction CSV's columns, each ``(n,)``, SI: Coulomb, viscous, static friction, Stribeck speed, armature."""

    Fc: FloatArray
    Fv: FloatArray
    Fs: FloatArray
    vs: FloatArray
    armature: FloatArray


def read_friction_csv(path: PathLike, n_joints: int | None = None) -> FrictionColumns:
    """Read a friction table (armature 0 when the file has no ``armature_kg_m2`` column). Errors name the file,
    line and column."""
    def friction_row(number: int, row: list[float]) -> None:
        for c, v in zip(COLUMNS[1:] + OPTIONAL, row):
            if v < 0:
                raise InputError(f"expected a value >= 0, got {v!r}", path=str(path), row=number, column=c)
        if row[2] != row[0] and row[3] <= 0:
            raise InputError(f"expected vs_rad_s > 0 when Fs_Nm != Fc_Nm, got {row[3]!r}", path=str(path),
                             row=number, column="vs_rad_s")

    a = joint_rows(path, COLUMNS, OPTIONAL, n_joints, friction_row, read_optional=True)
    a[:, 4] = np.nan_to_num(a[:, 4], nan=0.0)
    return FrictionColumns(*(a[:, i].copy() for i in range(len(KEYS))))


def friction_csv_text(table: Any, comments: tuple[str, ...] = ()) -> str:
    """The CSV text (``repr`` precision) of a table with attributes ``Fc, Fv, Fs, vs`` and optionally ``armature``,
    each ``(n,)`` (a :class:`FrictionColumns` or the dynamics' table)."""
    Fc = np.atleast_1d(np.asarray(table.Fc, dtype=float))
    columns = [np.atleast_1d(np.asarray(getattr(table, k, np.zeros_like(Fc)), dtype=float)) for k in KEYS]
    lines = [f"# {c}" for c in comments] + [",".join(COLUMNS + OPTIONAL)]
    for j in range(Fc.size):
        lines.append(",".join([str(j + 1)] + [repr(float(x[j])) for x in columns]))
    return "\n".join(lines) + "\n"


def write_friction_csv(path: PathLike, table: Any, comments: tuple[str, ...] = ()) -> None:
    """Write ``table`` (as :func:`friction_csv_text`) atomically."""
    with atomic_open(path) as fh:
        fh.write(friction_csv_text(table, comments))


__all__ = ["COLUMNS", "KEYS", "FrictionColumns", "OPTIONAL", "friction_csv_text", "read_friction_csv", "write_friction_csv"]
