"""Play a compensated program in the scene: the corrected joint angles, target by target."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from thermocomp._typing import FloatArray, PathLike
from thermocomp.errors import ConfigurationError, InputError
from thermocomp.io.csvtext import header_and_rows, parse_float, parse_floats
from thermocomp.kinematics.model import KinematicModel
from thermocomp.simulators.coppeliasim.connection import Session
from thermocomp.simulators.coppeliasim.scene import (
    SceneRobot,
    preserved,
    set_joint_positions,
    show_model,
)


@dataclass(frozen=True)
class PlayedRows:
    """Rows of a results file to play: converged rows of one minute, in file order.

    Attributes
    ----------
    minute
        The minute played [min].
    target
        Target names, ``r`` entries.
    q
        Compensated controller angles [rad], ``(r, n)``.
    lines
        File line of each row (the header is line 1).
    """

    minute: float
    target: tuple[str, ...]
    q: FloatArray
    lines: tuple[int, ...]


def read_results_rows(path: PathLike, n_joints: int, minute: float | None = None) -> PlayedRows:
    """The converged rows of ``minute`` (default: the last minute in the file) of a results CSV.

    Reads the columns ``minute``, ``target``, ``status`` and ``q1_deg``..``qn_deg``
    written by ``thermocomp compensate`` (docs/conventions.md, "Results").

    Raises
    ------
    InputError
        Located at the file, line and column: a file that cannot be read,
        is not UTF-8, lacks a column, has a short row or a cell that is not
        a finite number; no converged row of ``minute``.
    """
    src = str(path)
    wanted = ["minute", "target", "status", *[f"q{j + 1}_deg" for j in range(n_joints)]]
    rows: list[tuple[int, float, str, list[float]]] = []
    header_line, header, records = header_and_rows(path, "expected a results CSV header, got an empty file")
    index = {name.strip(): k for k, name in enumerate(header)}
    if len(index) < len(header):  # a name given twice: one of its columns would be read, the other ignored
        names = [name.strip() for name in header]
        twice = next(n for k, n in enumerate(names) if n in names[:k])
        raise InputError(f"duplicate column {twice!r}", path=src, row=header_line, column=twice)
    missing = [w for w in wanted if w not in index]
    if missing:
        raise InputError(f"expected the results columns {', '.join(wanted)}; missing {', '.join(missing)}",
                         path=src, row=header_line, column=missing[0])
    q_columns = wanted[3:]
    for number, cells in records:
        if len(cells) != len(header):
            raise InputError(f"expected {len(header)} cells as in the header, got {len(cells)}", path=src,
                             row=number)
        if cells[index["status"]].strip() != "converged":
            continue
        row_minute = parse_float(cells[index["minute"]], src, number, "minute")
        q = parse_floats(cells, [index[c] for c in q_columns], q_columns, src, number)
        rows.append((number, row_minute, cells[index["target"]], q))
    if not rows:
        raise InputError("no converged rows to play", path=src)
    minutes = sorted({r[1] for r in rows})
    chosen = minutes[-1] if minute is None else float(minute)
    if chosen not in minutes:
        raise InputError(f"no converged rows at minute {chosen:g}; the file has minutes {minutes[0]:g}..{minutes[-1]:g}",
                         path=src)
    picked = [r for r in rows if r[1] == chosen]
    return PlayedRows(minute=chosen, target=tuple(r[2] for r in picked),
                      q=np.radians(np.array([r[3] for r in picked])), lines=tuple(r[0] for r in picked))


def play(
    session: Session,
    robot: SceneRobot,
    q: FloatArray,
    *,
    model: KinematicModel | None = None,
    dwell_s: float = 0.5,
    on_row: Callable[[int], None] | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> None:
    """Set the joints to each row of ``q`` [rad] ``(r, n)`` in turn, ``dwell_s`` seconds apart.

    With ``model``, the deformed robot is shown while playing. The scene is
    restored at the end, also on errors and Ctrl-C.
    """
    if not dwell_s >= 0:
        raise ConfigurationError(f"dwell: expected seconds >= 0, got {dwell_s!r}")
    q = np.atleast_2d(np.asarray(q, dtype=float))
    with preserved(session, robot):
        if model is not None:
            show_model(session, robot, model)
        for k, row in enumerate(q):
            set_joint_positions(session, robot, row)
            if on_row is not None:
                on_row(k)
            sleep(dwell_s)
