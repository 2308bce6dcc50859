"""Friction tables (seed 000, Eq. 3 and Table III) as CSV: reader and writer.

Form, one row per joint, joints ``1`` .. ``n`` in order::

    joint,Fc_Nm,Fv_Nm_s_per_rad,Fs_Nm,vs_rad_s
    1,8.5,3.43775,9.5,0.00872665

``Fc`` Coulomb [N m], ``Fv`` viscous [N m s/rad], ``Fs`` static [N m], ``vs``
Stribeck speed [rad/s]. Lines starting with ``#`` are comments. The reader gives the four columns
(:class:`FrictionColumns`); the dynamics builds its :class:`thermocomp.dynamics.friction.FrictionTable` from them
(``FrictionTable(*columns)``), and the writer takes either.
"""

from __future__ import annotations

from typing import NamedTuple

from thermocomp._typing import FloatArray, PathLike
from thermocomp.errors import InputError
from thermocomp.io.atomic import atomic_open
from thermocomp.io.csvtext import joint_rows

COLUMNS = ("joint", "Fc_Nm", "Fv_Nm_s_per_rad", "Fs_Nm", "vs_rad_s")


class FrictionColumns(NamedTuple):
    """A friction file's columns, SI, ``(n,)`` each: Coulomb [N m], viscous [N m s/rad], static [N m], Stribeck
    speed [rad/s] (the order of :class:`thermocomp.dynamics.friction.FrictionTable`'s fields)."""

    Fc: FloatArray
    Fv: FloatArray
    Fs: FloatArray
    vs: FloatArray


def read_friction_csv(path: PathLike, n_joints: int | None = None) -> FrictionColumns:
    """Read a friction table's columns; errors name the file, line and column."""
    def friction_row(number: int, row: list[float]) -> None:
        for c, v in zip(COLUMNS[1:], row):
            if v < 0:
                raise InputError(f"expected a value >= 0, got {v!r}", path=str(path), row=number, column=c)
        if row[2] != row[0] and row[3] <= 0:
            raise InputError(f"expected vs_rad_s > 0 when Fs_Nm != Fc_Nm, got {row[3]!r}", path=str(path),
                             row=number, column="vs_rad_s")

    a = joint_rows(path, COLUMNS, (), n_joints, friction_row)
    return FrictionColumns(Fc=a[:, 0], Fv=a[:, 1], Fs=a[:, 2], vs=a[:, 3])


def friction_csv_text(table: FrictionColumns, comments: tuple[str, ...] = ()) -> str:
    """The CSV text of ``table`` (anything with ``Fc``, ``Fv``, ``Fs``, ``vs``; ``repr`` precision)."""
    lines = [f"# {c}" for c in comments] + [",".join(COLUMNS)]
    for j in range(len(table.Fc)):
        lines.append(",".join([str(j + 1)] + [repr(float(x[j])) for x in (table.Fc, table.Fv, table.Fs, table.vs)]))
    return "\n".join(lines) + "\n"


def write_friction_csv(path: PathLike, table: FrictionColumns, comments: tuple[str, ...] = ()) -> None:
    """Write ``table`` atomically."""
    with atomic_open(path) as fh:
        fh.write(friction_csv_text(table, comments))


__all__ = ["COLUMNS", "FrictionColumns", "friction_csv_text", "read_friction_csv", "write_friction_csv"]
