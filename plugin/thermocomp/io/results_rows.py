"""The converged rows of a results CSV (``thermocomp compensate --out``), read back: one reader for every job that
plays or measures a compensated program (``coppeliasim play``, ``track --results``).

Reads the columns ``minute``, ``target``, ``status``, ``q1_deg``..``qn_deg`` and, when asked, ``reached_x_mm``..
``reached_z_mm`` (docs/conventions.md, "Results"); other columns are allowed and skipped, as are the rows whose
status is not ``converged``. SI out: radians, metres.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from thermocomp._typing import FloatArray, PathLike
from thermocomp.errors import InputError
from thermocomp.io.csvtext import check_header, header_and_rows, header_names, parse_floats

#: The reached position's columns [mm].
REACHED_COLUMNS = ("reached_x_mm", "reached_y_mm", "reached_z_mm")


@dataclass(frozen=True, eq=False)
class ConvergedRows:
    """The converged rows of a results CSV, in file order.

    Attributes
    ----------
    minute
        ``(r,)`` [min].
    target
        Target names, ``r`` entries.
    q
        ``(r, n)`` compensated controller angles [rad].
    p_reached
        ``(r, 3)`` the reached position in the world frame [m] (what the compensation aimed at, within its
        tolerance), or ``None`` when not asked for.
    lines
        ``(r,)`` the file line of each row (the header's is the first line that is not a comment).
    source
        The file read.
    """

    minute: FloatArray
    target: tuple[str, ...]
    q: FloatArray
    p_reached: FloatArray | None
    lines: np.ndarray
    source: str

    def at_minute(self, minute: float) -> ConvergedRows:
        """The rows of ``minute`` only."""
        keep = self.minute == minute
        return ConvergedRows(self.minute[keep], tuple(t for t, k in zip(self.target, keep) if k), self.q[keep],
                             None if self.p_reached is None else self.p_reached[keep], self.lines[keep], self.source)


def read_converged_rows(path: PathLike, n_joints: int, *, reached: bool = False) -> ConvergedRows:
    """The converged rows of the results CSV ``path`` for a robot of ``n_joints`` joints (possibly none).

    Raises
    ------
    InputError
        Located at the file, line and column: a file that cannot be read, is not UTF-8 or is empty, a column
        missing or given twice, a row of another cell count than the header, a cell that is not a finite number.
    """
    src = str(path)
    line, header, records = header_and_rows(path, "expected a results CSV (thermocomp compensate --out), got an "
                                                  "empty file")
    numeric = ["minute", *[f"q{j + 1}_deg" for j in range(n_joints)], *(REACHED_COLUMNS if reached else ())]
    wanted = ["target", "status", *numeric]
    names = header_names(header)
    index = check_header(header, wanted, [n for n in names if n not in wanted], src, line)
    values, targets, lines = [], [], []
    for number, cells in records:
        if len(cells) != len(names):
            raise InputError(f"expected {len(names)} cells as in the header, got {len(cells)}", path=src, row=number)
        if cells[index["status"]].strip() != "converged":
            continue
        values.append(parse_floats(cells, [index[c] for c in numeric], numeric, src, number))
        targets.append(cells[index["target"]])
        lines.append(number)
    v = np.array(values, dtype=float).reshape(len(values), len(numeric))
    return ConvergedRows(minute=v[:, 0], target=tuple(targets), q=np.radians(v[:, 1:1 + n_joints]),
                         p_reached=v[:, 1 + n_joints:] / 1e3 if reached else None, lines=np.array(lines, dtype=int),
                         source=src)


__all__ = ["REACHED_COLUMNS", "ConvergedRows", "read_converged_rows"]
