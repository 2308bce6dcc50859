"""Compensate a program's points: the core's targets at the time form's minutes, solved, collected per version.

:func:`timed_targets` gives the core's :class:`~thermocomp.compensation.program.Program` of the flange targets at
the minutes of the time form (a snapshot, ``--timed``, ``--time-indexed``); :func:`solve` compensates it with the
core (:func:`thermocomp.compensation.compensate`) into one version of every point per minute written
(:class:`Solved`); :func:`keep_joint_targets` leaves the joint targets as written. The job that reads and writes
the files is :func:`thermocomp.app.program.compensate_program`. docs/programs.md.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from thermocomp._typing import FloatArray
from thermocomp.compensation.compensate import (
    CompensationChunk,
    CompensationOptions,
    CompensationSummary,
    ProgressCallback,
    compensate,
)
from thermocomp.compensation.program import Program
from thermocomp.deformation.table import DeformationTable
from thermocomp.deformation.timelaw import Static
from thermocomp.errors import ConfigurationError
from thermocomp.kinematics.fk import fk
from thermocomp.kinematics.ik import IKResult, Status
from thermocomp.kinematics.model import nominal_model
from thermocomp.programs.model import (
    RobotProgram,
)
from thermocomp.programs.options import MAX_INDEXED_ENTRIES, ProgramOptions
from thermocomp.programs.points import PointPoses, point_names
from thermocomp.programs.timing import Timing
from thermocomp.robot.chain import Chain


def timed_targets(prog: RobotProgram, poses: PointPoses, q_nominal: FloatArray, timing: Timing,
                   options: CompensationOptions, popts: ProgramOptions, rows: np.ndarray
                   ) -> tuple[Program | None, CompensationOptions, str]:
    """The core's program of the flange targets of the points ``rows`` (None if there are none) at the minutes of
    ``popts``'s time form, the options to solve it with, and the time form's description."""
    run = prog.columns.run
    m = len(run.text)
    time_law = options.time_law
    names = point_names(prog)
    flange = dict(names=tuple(names[i] for i in rows.tolist()) if len(rows) < m else names,
                  R_world_tcp=poses.T_world_flange[rows, :3, :3], p_world_tcp=poses.T_world_flange[rows, :3, 3],
                  q_reference=q_nominal[rows], source=prog.path)
    if popts.indexed_minutes is not None:
        if isinstance(time_law, Static):
            raise ConfigurationError("--time-indexed follows the time law: it cannot be combined with --static")
        minutes = tuple(float(x) for x in popts.indexed_minutes)
        if len(minutes) * m > MAX_INDEXED_ENTRIES:
            raise ConfigurationError(
                f"--time-indexed: {len(minutes):,} sets x {m:,} points = {len(minutes) * m:,} table entries (at most "
                f"{MAX_INDEXED_ENTRIES:,}, some {MAX_INDEXED_ENTRIES // 10_000} MB of program text): choose a larger "
                f"step (at least {(minutes[-1] if len(minutes) > 1 else 1.0) * m / MAX_INDEXED_ENTRIES:.3g} min)")
        time_form = (f"time-indexed program: corrections every {minutes[1] - minutes[0] if len(minutes) > 1 else 0:g} "
                     f"min from 0 to {minutes[-1]:g} min ({len(minutes)} sets), picked from the controller's clock; "
                     f"{time_law.describe()}")
        return Program(**flange) if len(rows) else None, replace(options, minutes=minutes), time_form
    if popts.timed:
        minute = timing.point_minutes(0)
        time_form = (f"timed: each motion compensated at its estimated minute (0 to {minute.max():.4g} min); "
                     f"{time_law.describe()}")
    elif popts.at_minute is not None:
        minute = np.full(m, popts.at_minute)
        time_form = f"snapshot at minute {popts.at_minute:g}; {time_law.describe()}"
    else:
        at = 0.0 if isinstance(time_law, Static) else float(time_law.stabilisation_min)
        minute = np.full(m, at)
        time_form = ("snapshot of the full table (static)" if isinstance(time_law, Static)
                     else f"snapshot of the stabilised robot (minute {at:g}, the full table); {time_law.describe()}")
    return Program(**flange, time_min=minute[rows]) if len(rows) else None, options, time_form


@dataclass(frozen=True, eq=False)
class Solved:
    """The compensated versions of a program's points: one per minute written (a time-indexed program), or the
    snapshot; with the nominal robot's flange poses at their joints (the chunks' filtered poses)."""

    minutes: FloatArray  # (k,): the minutes written, or [0] for the snapshot
    q_checked: FloatArray  # (k, m, n)
    R_checked: FloatArray  # (k, m, 3, 3)
    p_checked: FloatArray  # (k, m, 3)
    status: np.ndarray  # (m,): the first failure of each point over the versions, else CONVERGED
    summary: CompensationSummary
    chunks: list[CompensationChunk]  # kept only for the results CSV


def solve(chain: Chain, table: DeformationTable, core_program: Program | None, run_options: CompensationOptions,
           q_nominal: FloatArray, nominal_status: np.ndarray, rows: np.ndarray, *, indexed: bool, keep_chunks: bool,
           progress: ProgressCallback | None) -> Solved:
    """Compensate ``core_program``, the points ``rows`` of the program (None: none); each chunk is taken in as it
    comes, and kept only for the results CSV (a program's chunks hold a kilobyte a point)."""
    m = len(q_nominal)
    names = () if core_program is None else core_program.names
    minutes = np.asarray(run_options.minutes) if indexed else np.zeros(1)
    q_checked = np.empty((len(minutes), m, chain.n_joints))
    R_checked, p_checked = np.empty((len(minutes), m, 3, 3)), np.empty((len(minutes), m, 3))
    status = np.where(nominal_status != Status.CONVERGED, nominal_status, 0).astype(np.int8)
    summary = CompensationSummary()
    chunks: list[CompensationChunk] = []
    r = len(rows)
    known = IKResult(q=q_nominal[rows], status=nominal_status[rows].astype(np.int8), position_error=np.full(r, np.nan),
                     orientation_error=np.full(r, np.nan), iterations=np.zeros(r, dtype=np.int64),
                     sigma_min=np.full(r, np.nan))  # found before: not solved again
    for chunk in () if core_program is None else compensate(chain, table, core_program, run_options, progress,
                                                             nominal=known):
        summary.add(chunk, names)
        version = np.searchsorted(minutes, chunk.minute) if indexed else 0
        target = rows[chunk.target]
        q_checked[version, target] = chunk.q
        R_checked[version, target] = chunk.R_filtered
        p_checked[version, target] = chunk.p_filtered
        bad = chunk.status != Status.CONVERGED
        status[target[bad]] = np.where(status[target[bad]] == 0, chunk.status[bad], status[target[bad]])
        if keep_chunks:
            chunks.append(chunk)
        del chunk  # (its memory is the next chunk's)
    return Solved(minutes, q_checked, R_checked, p_checked, status, summary, chunks)


def keep_joint_targets(chain: Chain, prog: RobotProgram, poses: PointPoses, q_nominal: FloatArray, kept: np.ndarray,
                        solved: Solved) -> list[str]:
    """Joint targets left as written in ``solved`` (their joints and nominal flange poses in every version): those
    ``kept`` ``(m,)`` by the default policy, and compensated ones that could not be (no failure then: a joint
    position the robot reaches as written). The report's notes on them."""
    unsolved = poses.is_joint & ~kept & (solved.status != Status.CONVERGED)
    written = kept | unsolved
    if not written.any():
        return []
    R, p = fk(nominal_model(chain), q_nominal[written])
    solved.q_checked[:, written], solved.R_checked[:, written], solved.p_checked[:, written] = q_nominal[written], R, p
    run = prog.columns.run
    instruction = np.repeat(np.arange(len(run.instruction)), run.n_points)
    notes = [f"{int(kept.sum())} joint target(s) left as written (joint positions: home and via poses); "
             "--joint-targets compensate compensates them"] if kept.any() else []
    for i in np.flatnonzero(written).tolist():
        why = ("joint target left as written" if kept[i] else
               f"joint target could not be compensated ({Status(int(solved.status[i])).label}): left as written")
        notes.append(f"{prog.path}:{run.argument[i, 2]}:{run.argument[i, 3]}: {run.instruction[int(instruction[i])]} "
                     f"{why}")
    solved.status[unsolved] = Status.CONVERGED
    return notes
