"""Compensate a robot program for thermal deformation (seed 002, Section 4, Fig. 13).

For every row (minute, target) of a program, solve the inverse kinematics of
the robot deformed by the table at that minute, so that the warm robot still
reaches the programmed pose; report what the uncompensated program would
have missed by.

Configuration continuity: each target's configuration is fixed once, on the
nominal robot (its reference joints or the solution nearest home, see
:mod:`thermocomp.kinematics.seeding`). The deformed solutions are then
continued along the deformation: the full table is solved from the nominal
solution (in sub-steps if needed), and every minute is seeded on the line
the curve through the nominal and the table solutions, a predictor of
the continuation that is closer than the previous minute's solution
(quadratic, through the nominal, half-table and full-table solutions). A
target whose solution moved from its predictor by more than
:data:`~thermocomp.tolerances.BRANCH_JUMP` (another branch), or failed, is
re-solved minute by minute from the previous minute's solution.

A time law that gives every minute its own table
(:class:`~thermocomp.deformation.timelaw.TablePerMinute`, e.g. the paper
authors' CoppeliaSim law) has no common
fraction to continue along: the nominal configurations are found once, and
each minute is seeded with the previous minute's solution (the tables change
little from one minute to the next); a target that failed or left its branch
is continued from its nominal solution to that minute's table.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from thermocomp._typing import FloatArray
from thermocomp.compensation.targets import Targets
from thermocomp.deformation.apply import COMPOSITIONS, deformed_model
from thermocomp.deformation.table import DeformationTable
from thermocomp.deformation.timelaw import LinearRamp, TablePerMinute, TimeLaw
from thermocomp.errors import ConfigurationError
from thermocomp.geometry.vectors import row_max_abs, row_norms
from thermocomp.kinematics.confdata import near_configuration, same_configuration, to_quadrants
from thermocomp.kinematics.dispatch import engine_slices
from thermocomp.kinematics.fk import fk
from thermocomp.kinematics.ik import IKOptions, IKResult, Status, job_options, load_engine_for, pose_errors, solve_ik
from thermocomp.kinematics.model import KinematicModel, nominal_model
from thermocomp.kinematics.seeding import DEFAULT_STARTS, solve_multistart, solve_nominal_configuration, solve_path
from thermocomp.robot.chain import Chain
from thermocomp.tolerances import BRANCH_JUMP, NEAR_SINGULAR_SIGMA, WRITTEN_DIGITS

#: Rows solved per chunk: bounds memory on long programs (about 2 kB a row).
DEFAULT_CHUNK_ROWS = 50_000
#: Most minutes one compensation takes (``--minutes``): about two years of minutes; more is a typing error.
MAX_MINUTES = 1_000_000
#: Most multi-start seeds per target (``--starts``): each is a batched IK per target; 48 find every branch.
MAX_STARTS = 10_000
#: Most rows (targets x minutes) of one grid compensation written to a file (a results CSV of ~50 GB).
MAX_ROWS = 100_000_000
#: Most rows kept in memory (``keep_results``: the simulators' paths), each a few hundred bytes.
MAX_KEPT_ROWS = 5_000_000
#: Sub-steps tried, in order, when the full table cannot be reached in one step.
CONTINUATION_STEPS = (4, 16, 64)

#: Failed rows a summary lists one by one (all are counted).
MAX_FAILED_LISTED = 100
#: Rows solved between two progress calls: a fraction of a second at a few
#: microseconds a row, and batches still large enough for numpy to be efficient.
PROGRESS_ROWS = 16_384
#: Nominal solutions remembered across the pieces of a streamed program
#: (:class:`NominalMemo`); bounds its memory on a long path of distinct poses.
MEMO_ENTRIES = 100_000
#: Bits of the hash prefix filter of :class:`NominalMemo` (2**22 flags for at most :data:`MEMO_ENTRIES` keys:
#: a key it does not hold passes the filter with a chance of 2.4 %).
MEMO_FILTER_BITS = 22
_FILTER_SHIFT = np.uint64(64 - MEMO_FILTER_BITS)

ProgressCallback = Callable[[int, int], None]
#: The phases of a run, in order, as :attr:`CompensationSummary.phase_seconds` names them.
PHASES = ("reading", "nominal configurations", "solving", "writing")


def announce_phase(progress: ProgressCallback | None, name: str, total: int | None, unit: str | None = None) -> None:
    """Tell ``progress`` that phase ``name`` starts (``total`` rows, or None if unknown; counted in ``unit``, default
    the callback's own).

    Only a callback with a ``phase(name, total)`` method (such as
    :class:`thermocomp.cli.progress.ProgressBar`) hears of phases; a plain
    ``(done, total)`` function keeps seeing the rows solved, as before.
    """
    phase = getattr(progress, "phase", None)
    if phase is not None:
        if unit is None:
            phase(name, total)
        else:
            phase(name, total, unit)


def _phase_progress(progress: ProgressCallback | None) -> ProgressCallback | None:
    """``progress`` for the rows of a phase other than solving: only callbacks that know phases."""
    return progress if getattr(progress, "phase", None) is not None else None


@dataclass(frozen=True)
class CompensationOptions:
    """Settings of :func:`compensate`.

    Parameters
    ----------
    time_law
        How the table grows with time (:class:`LinearRamp` or :class:`Static`).
    minutes
        Minutes [min] at which every target is solved, when the program has
        no time column; ignored otherwise. Default: 0, 1, ..., 200.
    ik
        Solver tolerances.
    starts
        Multi-start count of the nominal configuration search.
    seed
        Seed of the multi-start spread (results are deterministic).
    chunk_rows
        Rows solved and yielded at a time, >= 1.
    composition
        How a table row composes with the nominal translation: ``"table"``
        (seed 002, Tables 6-7, default) or ``"eq21"`` (seed 002, Eq. 21); see
        :func:`thermocomp.deformation.deformed_model`.
    time_law_file
        The law file ``time_law`` was read from (``--time-law from:FILE``),
        or None: a job declares it as an input, so that no output of the run
        lands on it.
    """

    time_law: TimeLaw = LinearRamp(200.0)
    minutes: tuple[float, ...] = tuple(float(m) for m in range(201))
    ik: IKOptions = IKOptions()
    starts: int = DEFAULT_STARTS
    seed: int = 0
    chunk_rows: int = DEFAULT_CHUNK_ROWS
    composition: str = "table"
    time_law_file: str | None = None

    def __post_init__(self) -> None:
        if self.composition not in COMPOSITIONS:
            raise ConfigurationError(f"composition: expected one of {COMPOSITIONS}, got {self.composition!r}")
        if len(self.minutes) > MAX_MINUTES:
            raise ConfigurationError(f"minutes (--minutes): expected at most {MAX_MINUTES:,}, got {len(self.minutes):,}")
        minutes = np.asarray(self.minutes, dtype=float)
        if minutes.ndim != 1 or minutes.size == 0 or not np.all(np.isfinite(minutes)) or np.any(minutes < 0):
            raise ConfigurationError(f"minutes: expected one or more finite values >= 0, got {self.minutes!r}")
        if np.any(np.diff(minutes) <= 0):
            raise ConfigurationError("minutes: expected strictly increasing values")
        if not 0 <= self.starts <= MAX_STARTS:
            raise ConfigurationError(f"starts (--starts): expected 0 to {MAX_STARTS:,}, got {self.starts:,}")
        if self.seed < 0:
            raise ConfigurationError(f"seed (--seed): expected a whole number >= 0, got {self.seed}")
        if self.chunk_rows < 1:
            raise ConfigurationError(f"chunk_rows: expected >= 1, got {self.chunk_rows}")


@dataclass(frozen=True)
class CompensationChunk:
    """Results of ``r`` consecutive rows (minute-major: all targets of a minute together).

    Attributes
    ----------
    minute, fraction
        Time [min] of each row and the share of the table applied, ``(r,)``.
    target
        Index of the row's target in the program, ``(r,)``.
    q, status, position_error, orientation_error, sigma_min
        Compensated controller angles [rad] ``(r, n)`` and the solve's
        :class:`Status`, residuals [m], [rad] and smallest singular value.
    deviation
        Reached minus target, ``(r, 6)``: position [m] and the world-frame
        rotation vector of ``R_reached @ R_target.T`` [rad].
    R_reached, p_reached
        Pose the deformed robot reaches with ``q`` (world frame), ``(r, 3, 3)``, ``(r, 3)``.
    q_nominal, nominal_status
        The uncompensated program's angles [rad] ``(r, n)`` and their status.
    uncompensated_deviation
        Where the deformed robot goes with ``q_nominal`` minus the target, ``(r, 6)``.
    R_filtered, p_filtered
        Pose the nominal robot reaches with ``q``: the "filtered" target to give a
        controller that only knows the nominal model, ``(r, 3, 3)``, ``(r, 3)``.
    """

    minute: FloatArray
    fraction: FloatArray
    target: np.ndarray
    q: FloatArray
    status: np.ndarray
    position_error: FloatArray
    orientation_error: FloatArray
    sigma_min: FloatArray
    deviation: FloatArray
    R_reached: FloatArray
    p_reached: FloatArray
    q_nominal: FloatArray
    nominal_status: np.ndarray
    uncompensated_deviation: FloatArray
    R_filtered: FloatArray
    p_filtered: FloatArray
    solve_seconds: float = 0.0
    #: Time spent on the nominal configurations of these rows [s] (not in ``solve_seconds``).
    nominal_seconds: float = 0.0

    @property
    def n_rows(self) -> int:
        return int(self.minute.shape[0])


@dataclass
class CompensationSummary:
    """Running totals over all chunks (the paper's Tables 13, 15, 17, 18)."""

    n_rows: int = 0
    status_counts: dict[str, int] = field(default_factory=lambda: {s.label: 0 for s in Status})
    near_singular: int = 0
    deviation_min: FloatArray = field(default_factory=lambda: np.full(6, np.inf))
    deviation_max: FloatArray = field(default_factory=lambda: np.full(6, -np.inf))
    max_position_error: float = 0.0
    max_orientation_error: float = 0.0
    uncompensated_max_position: float = 0.0
    uncompensated_max_angle: float = 0.0
    solver_seconds: float = 0.0
    #: Wall time of each phase [s]: ``reading``, ``nominal configurations``,
    #: ``solving``, ``writing`` (the library fills the middle two, the file
    #: pipeline the others).
    phase_seconds: dict[str, float] = field(default_factory=lambda: {name: 0.0 for name in PHASES})
    failed_rows: list[tuple[float, str, str]] = field(default_factory=list)
    #: Per whole minute (``floor(minute)``): the largest uncompensated position
    #: miss [m] and angle [rad], the largest compensated position and angle
    #: error, then the largest correction ``|q - q_nominal|`` [rad] per joint
    #: (converged rows only). See :meth:`by_minute`.
    _minute_max: dict[int, FloatArray] = field(default_factory=dict, repr=False)

    def add(self, chunk: CompensationChunk, names: tuple[str, ...]) -> None:
        """Count ``chunk``; ``names`` are the target names its ``target`` indices refer to."""
        self.n_rows += chunk.n_rows
        for s in Status:
            self.status_counts[s.label] += int(np.count_nonzero(chunk.status == s))
        self.near_singular += int(np.count_nonzero(chunk.sigma_min < NEAR_SINGULAR_SIGMA))
        ok = chunk.status == Status.CONVERGED
        nominal_ok = chunk.nominal_status == Status.CONVERGED
        # extremes over converged rows (and over rows with a nominal solution), and each row both converged and
        # nominally solved for the table per minute; row by row, then the rows kept (all of them, mostly: no copy)
        converged, solved, both = (_kept(mask) for mask in (ok, nominal_ok, ok & nominal_ok))
        deviation = chunk.deviation[converged]
        self.deviation_min = _fold(self.deviation_min, deviation, smallest=True)
        self.deviation_max = _fold(self.deviation_max, deviation, smallest=False)
        self.max_position_error = max(self.max_position_error, float(_fold(
            np.zeros(1), chunk.position_error[converged, None], smallest=False)[0]))
        self.max_orientation_error = max(self.max_orientation_error, float(_fold(
            np.zeros(1), chunk.orientation_error[converged, None], smallest=False)[0]))
        miss = row_norms(chunk.uncompensated_deviation[:, :3])
        turn = row_norms(chunk.uncompensated_deviation[:, 3:])
        self.uncompensated_max_position = max(self.uncompensated_max_position, float(_fold(
            np.zeros(1), miss[solved, None], smallest=False)[0]))
        self.uncompensated_max_angle = max(self.uncompensated_max_angle, float(_fold(
            np.zeros(1), turn[solved, None], smallest=False)[0]))
        values = np.column_stack([miss, turn, row_norms(chunk.deviation[:, :3]), row_norms(chunk.deviation[:, 3:]),
                                  np.abs(chunk.q - chunk.q_nominal)])[both]
        self._add_minutes(np.floor(chunk.minute[both]).astype(np.int64), values)
        self.solver_seconds += chunk.solve_seconds
        self.phase_seconds["solving"] += chunk.solve_seconds
        self.phase_seconds["nominal configurations"] += chunk.nominal_seconds
        room = max(0, MAX_FAILED_LISTED - len(self.failed_rows))
        for i in np.flatnonzero(~ok)[:room]:
            self.failed_rows.append((float(chunk.minute[i]), names[chunk.target[i]], Status(int(chunk.status[i])).label))

    def _add_minutes(self, minute: np.ndarray, values: FloatArray) -> None:
        """Fold rows (whole minute, values as :meth:`by_minute`'s columns) into the table per minute."""
        if not minute.size:
            return
        if np.any(minute[1:] < minute[:-1]):  # (a timed program's rows come in time order: no sort)
            order = np.argsort(minute, kind="stable")
            minute, values = minute[order], values[order]
        starts = np.flatnonzero(np.r_[True, minute[1:] != minute[:-1]])
        for m, row in zip(minute[starts].tolist(), np.maximum.reduceat(values, starts, axis=0)):
            previous = self._minute_max.get(m)
            self._minute_max[m] = row if previous is None else np.maximum(previous, row)

    def by_minute(self) -> tuple[np.ndarray, FloatArray]:
        """Largest errors and corrections per whole minute, over converged rows.

        Returns
        -------
        minutes : ndarray of int, shape ``(k,)``
        values : ndarray, shape ``(k, 4 + n)``
            Columns: uncompensated position miss [m] and angle [rad],
            compensated position error [m] and angle [rad], then the
            largest ``|q - q_nominal|`` [rad] of each joint.
        """
        minutes = np.array(sorted(self._minute_max), dtype=np.int64)
        if minutes.size == 0:
            return minutes, np.zeros((0, 4))
        return minutes, np.array([self._minute_max[m] for m in minutes.tolist()])

    @property
    def n_failed(self) -> int:
        return self.n_rows - self.status_counts[Status.CONVERGED.label]

    @property
    def microseconds_per_solve(self) -> float:
        return 1e6 * self.solver_seconds / max(self.n_rows, 1)


def _kept(rows: np.ndarray) -> np.ndarray | slice:
    """The boolean ``rows`` as an index: every row (a slice: a view, not a copy) when all are True."""
    return slice(None) if rows.all() else rows


def _fold(extreme: FloatArray, rows: FloatArray, smallest: bool) -> FloatArray:
    """``extreme`` ``(k,)`` folded with the rows ``(r, k)`` one after another, as ``x if x < extreme else extreme``
    (``>`` for the largest): a NaN wins, and of equal values (0.0 and -0.0) the earliest stays."""
    if not len(rows):
        return extreme.copy()
    # the earliest row holding each column's extreme (numpy's arg functions take the first of equal values,
    # 0.0 and -0.0 among them, and the first NaN)
    at = np.argmin(rows, axis=0) if smallest else np.argmax(rows, axis=0)
    first = rows[at, np.arange(rows.shape[1])]
    better = (first < extreme) if smallest else (first > extreme)
    return np.where(better | np.isnan(first), first, extreme)


class NominalMemo:
    """Nominal solutions already found, keyed by the bytes of their problem (:meth:`Targets.distinct_rows`).

    Shared by the pieces of a streamed program, so a target visited again in
    a later piece is not solved again. Holds at most :data:`MEMO_ENTRIES`.
    Lookups are vectorised: the 64-bit hash of each key (found with the keys
    by :meth:`Targets.distinct_rows`) is searched in a sorted array, and a
    hit counts only when the whole key is equal (a hash collision is a miss,
    solved again: never a wrong solution). A bitmap of the hashes' top
    :data:`MEMO_FILTER_BITS` bits (4 MiB of flags) lets a lookup search and compare
    only the keys it may hold: on a path of distinct poses, a few percent.
    """

    def __init__(self, capacity: int = MEMO_ENTRIES) -> None:
        self.capacity = capacity
        self._size = 0
        self._keys: np.ndarray | None = None  # (capacity,) void, the first _size in insertion order
        self._hashes = np.zeros(0, dtype=np.uint64)  # sorted
        self._order = np.zeros(0, dtype=np.int64)  # insertion index of each sorted hash
        self._filter = np.zeros(1 << MEMO_FILTER_BITS, dtype=bool)  # True at the top bits of a hash held
        self._results: IKResult | None = None  # (capacity,) rows, the first _size filled

    def __len__(self) -> int:
        return self._size

    def lookup(self, keys: np.ndarray, hashes: np.ndarray) -> np.ndarray:
        """Memo row of each key ``(k,)`` (``hashes`` ``(k,)`` their hashes), -1 where unknown."""
        found = np.full(keys.size, -1, dtype=np.int64)
        if self._keys is None or keys.size == 0 or keys.dtype != self._keys.dtype:
            return found
        maybe = np.flatnonzero(self._filter[hashes >> _FILTER_SHIFT])
        at = np.minimum(np.searchsorted(self._hashes, hashes[maybe]), self._hashes.size - 1)
        hit = self._hashes[at] == hashes[maybe]
        known, row = maybe[hit], self._order[at[hit]]
        equal = self._keys[row] == keys[known]
        found[known[equal]] = row[equal]
        return found

    def add(self, keys: np.ndarray, hashes: np.ndarray, result: IKResult) -> None:
        """Remember ``result`` (one row per key; ``hashes`` the keys' hashes) while there is room.

        The rows go into arrays of the memo's capacity (allocated once: their pages are only touched as they
        fill), and the new hashes are merged into the sorted ones: linear in the memo's size, where sorting
        everything again made a long path's pieces cost the square of it.
        """
        room = self.capacity - len(self)
        if room <= 0 or keys.size == 0 or (self._keys is not None and keys.dtype != self._keys.dtype):
            return
        k = min(room, keys.size)
        keys, hashes = keys[:k], hashes[:k]
        if self._keys is None:
            self._keys = np.empty(self.capacity, dtype=keys.dtype)
            self._results = IKResult(**{name: np.empty((self.capacity,) + getattr(result, name).shape[1:],
                                                       dtype=getattr(result, name).dtype)
                                        for name in IKResult.__dataclass_fields__})
        base = self._size
        self._keys[base:base + k] = keys
        for name in IKResult.__dataclass_fields__:
            getattr(self._results, name)[base:base + k] = getattr(result, name)[:k]
        self._size = base + k
        self._filter[hashes >> _FILTER_SHIFT] = True
        # the order of a stable sort of (held, new): equal hashes keep the held ones first, the new in their order;
        # each new hash's place in the merged array is its place among the held ones plus the new ones before it
        sort = np.argsort(hashes, kind="stable")
        new = hashes[sort]
        at = np.searchsorted(self._hashes, new, side="right") + np.arange(k)
        held = np.ones(self._hashes.size + k, dtype=bool)
        held[at] = False
        merged_hashes, merged_order = np.empty(held.size, dtype=np.uint64), np.empty(held.size, dtype=np.int64)
        merged_hashes[at], merged_order[at] = new, base + sort
        merged_hashes[held], merged_order[held] = self._hashes, self._order
        self._hashes, self._order = merged_hashes, merged_order

    def take(self, rows: np.ndarray) -> IKResult:
        """The remembered results of memo rows ``rows``."""
        assert self._results is not None
        return _take(self._results, rows)


def _take(result: IKResult, index: np.ndarray) -> IKResult:
    return IKResult(**{name: getattr(result, name)[index] for name in IKResult.__dataclass_fields__})


def _empty_result(m: int, n: int) -> IKResult:
    return IKResult(q=np.empty((m, n)), status=np.empty(m, dtype=np.int8), position_error=np.empty(m),
                    orientation_error=np.empty(m), iterations=np.empty(m, dtype=np.int64), sigma_min=np.empty(m))


def nominal_solutions(
    chain: Chain, program: Targets, options: CompensationOptions, q_previous: FloatArray | None = None,
    memo: NominalMemo | None = None, progress: ProgressCallback | None = None, near_quadrants: bool = False,
) -> IKResult:
    """The program's joint angles on the nominal robot: the configuration of every target.

    Each distinct problem (pose, reference joints, confdata:
    :meth:`Targets.distinct_rows`) is solved once, and not at all when
    ``memo`` knows it; repeated rows share its solution.

    - Targets with ABB confdata take the solution in that configuration
      nearest their reference (or home); none found: ``configuration_not_found``.
      With ``near_quadrants`` (a robot program's robtargets), a target with
      no solution in exactly that configuration takes the one nearest its
      reference whose axes 1, 4 and 6 are within one quadrant of it, with
      the same ``cfx`` (:func:`~thermocomp.kinematics.confdata.near_configuration`,
      the controller's check).
    - Targets with a reference joint vector keep that configuration.
    - A timed program (a path) continues from pose to pose
      (:func:`~thermocomp.kinematics.seeding.solve_path`), starting from
      ``q_previous`` (the pose before this chunk) or, for the first pose, the
      solution nearest the robot's home configuration; a pose seen before
      keeps its first solution.
    - Otherwise every target takes the solution nearest home.

    ``progress``, if given, is called as ``progress(done, total)`` over the
    distinct problems to solve.
    """
    return _nominal_rows(chain, program, *program.distinct_rows(), options, q_previous, memo, progress, near_quadrants)


def _nominal_rows(chain: Chain, program: Targets, first: np.ndarray, inverse: np.ndarray, keys: np.ndarray,
                  hashes: np.ndarray, options: CompensationOptions, q_previous: FloatArray | None, memo: NominalMemo | None,
                  progress: ProgressCallback | None, near_quadrants: bool = False) -> IKResult:
    """:func:`nominal_solutions` given the program's distinct problems (:meth:`Targets.distinct_rows`)."""
    memo = NominalMemo() if memo is None else memo
    known = memo.lookup(keys, hashes)
    new = np.flatnonzero(known < 0)
    result = _empty_result(first.size, chain.n_joints)
    if new.size:
        solved = _nominal_distinct(chain, program.take(first[new]), options, q_previous, progress, near_quadrants)
        _assign(result, new, solved)
        memo.add(keys[new], hashes[new], solved)
    old = np.flatnonzero(known >= 0)
    if old.size:
        _assign(result, old, memo.take(known[old]))
    return _take(result, inverse)


def _nominal_distinct(chain: Chain, program: Targets, options: CompensationOptions, q_previous: FloatArray | None,
                      progress: ProgressCallback | None, near_quadrants: bool = False) -> IKResult:
    """:func:`nominal_solutions` of a program whose rows are distinct problems."""
    model = nominal_model(chain)
    R, p = program.R_world_tcp, program.p_world_tcp
    kwargs = dict(starts=options.starts, seed=options.seed, options=options.ik)
    if program.confdata is not None:
        q_ref = program.q_reference if program.q_reference is not None else np.tile(chain.home, (program.n_targets, 1))
        wanted = program.confdata
        found = solve_multistart(model, R, p, q_ref, **kwargs,
                                 accept=lambda q: same_configuration(model, q, wanted[:, None, :]))
        missed = np.flatnonzero(found.status == Status.CONFIGURATION_NOT_FOUND) if near_quadrants else ()
        if len(missed):
            near = solve_multistart(model, R[missed], p[missed], q_ref[missed], **kwargs,
                                    accept=lambda q: near_configuration(model, q, wanted[missed, None, :]))
            _assign(found, missed, near)
        ok = found.status == Status.CONVERGED
        q = np.where(ok[:, None], to_quadrants(found.q, wanted), found.q)
        status = np.where(ok & ~chain.within_limits(q), np.int8(Status.JOINT_LIMIT), found.status).astype(np.int8)
        return replace(found, q=q, status=status)
    if program.time_min is not None and program.q_reference is None:
        if q_previous is None:
            q_previous = solve_nominal_configuration(model, R[:1], p[:1], chain.home[None], **kwargs).q[0]
        # (the nominal solutions seed the deformed solve; their singular values are not read: not measured)
        return solve_path(model, R, p, q_previous, **kwargs, measure_singularity=False)
    m = program.n_targets
    q_ref = program.q_reference if program.q_reference is not None else np.tile(chain.home, (m, 1))
    result = _empty_result(m, chain.n_joints)
    # a timed program's nominal solutions (a path's, with its reference joints) only seed the deformed solve, as
    # above: their singular values are not read, and not measured
    measure = program.time_min is None
    for start in range(0, m, PROGRESS_ROWS):
        rows = np.arange(start, min(start + PROGRESS_ROWS, m))
        _assign(result, rows, solve_nominal_configuration(model, R[rows], p[rows], q_ref[rows], **kwargs,
                                                          measure_singularity=measure))
        if progress is not None:
            progress(int(rows[-1]) + 1, m)
    return result


ModelAt = Callable[[FloatArray], KinematicModel]


def _continue_to(model_at: ModelAt, fraction: FloatArray, R: FloatArray, p: FloatArray,
                 q_start: FloatArray, ik: IKOptions, model: KinematicModel | None = None,
                 lost: np.ndarray | None = None, measure_singularity: bool = True) -> IKResult:
    """Solve targets at their own ``fraction`` of the table, starting from ``q_start``.

    One step first (on ``model``, when the caller has ``model_at(fraction)``
    already); targets that fail are continued in sub-steps
    (:data:`CONTINUATION_STEPS`), each step warm-started from the last. Rows
    ``lost`` (bool) have no nominal solution and keep its failure whatever
    their deformed solve gives (:func:`_finish_chunk`): they are solved once,
    not continued (84 more solves of a hopeless row took seconds). The
    singular values are measured (``measure_singularity``) at the solutions
    returned only: a predictor's, and the sub-steps' on the way, are not read.
    """
    result = solve_ik(model_at(fraction) if model is None else model, R, p, q_start, ik,
                      measure_singularity=measure_singularity)
    for steps in CONTINUATION_STEPS:
        failed = result.status != Status.CONVERGED
        retry = np.flatnonzero(failed if lost is None else failed & ~lost)
        if retry.size == 0:
            break
        q = q_start[retry]
        for k in range(1, steps + 1):
            step = solve_ik(model_at(fraction[retry] * k / steps), R[retry], p[retry], q, ik,
                            measure_singularity=measure_singularity and k == steps)
            q = step.q
        _assign(result, retry, step)
    return result


def _assign(result: IKResult, index: np.ndarray, part: IKResult) -> None:
    for name in ("q", "status", "position_error", "orientation_error", "iterations", "sigma_min"):
        getattr(result, name)[index] = getattr(part, name)


def compensate(
    chain: Chain,
    table: DeformationTable,
    program: Targets,
    options: CompensationOptions | None = None,
    progress: ProgressCallback | None = None,
    q_previous: FloatArray | None = None,
    *,
    memo: NominalMemo | None = None,
    nominal: IKResult | None = None,
) -> Iterator[CompensationChunk]:
    """Compensate ``program`` on ``chain`` deformed by ``table``; yield result chunks.

    Rows are (minute, target) in minute-major order: every target at every
    minute of ``options.minutes`` when the program has no time column, else
    each target once at its own time, in program order. Failed rows carry their status and are
    never dropped; the caller decides what a failure means.

    Parameters
    ----------
    chain, table
        Nominal robot and its full deformation table (one row per joint).
    program
        Targets in the world frame.
    options
        Time law, minutes, solver settings. A time law with its own table per
        minute (:class:`~thermocomp.deformation.timelaw.TablePerMinute`)
        applies each minute's table in full (rows report fraction 1);
        programs without a time column only.
    progress
        Called as ``progress(rows_done, rows_total)`` after each chunk.
    q_previous
        For a timed program streamed in pieces: the nominal solution of the
        pose before this piece, so the path's configuration carries over.
    memo
        Nominal solutions already known: pass one :class:`NominalMemo` to
        every piece of a streamed program so a repeated target is solved once.
    nominal
        The nominal solution of every row (of every target for a program
        without a time column), where the caller found them its own way (a
        robot program, along its path and with its confdata): not solved,
        nor looked up, again.

    Yields
    ------
    CompensationChunk
        At most ``options.chunk_rows`` rows each (and at most
        :data:`PROGRESS_ROWS` for a timed program, so progress moves).
    """
    options = CompensationOptions() if options is None else options
    table.check_matches(chain.n_joints, chain.name)
    if program.q_reference is not None and program.q_reference.shape[1] != chain.n_joints:
        raise ConfigurationError(
            f"{program.source}: reference joints have {program.q_reference.shape[1]} columns, "
            f"{chain.name} has {chain.n_joints} joints"
        )
    minute_tables = None
    if isinstance(options.time_law, TablePerMinute):
        if program.time_min is not None:
            raise ConfigurationError(f"{program.source}: a deformation with its own table per minute solves every "
                                     "target at the requested minutes; expected targets without a time_min column")
        minute_tables = options.time_law.tables(tuple(float(m) for m in options.minutes))
        if len(minute_tables) != len(options.minutes):
            raise ConfigurationError(f"expected one deformation table per minute ({len(options.minutes)}), "
                                     f"got {len(minute_tables)}")
        for table_at in minute_tables:
            table_at.check_matches(chain.n_joints, chain.name)
    memo = NominalMemo() if memo is None else memo
    solves = program.n_targets if program.time_min is not None else program.n_targets * len(options.minutes)
    # the engine loaded before a phase's clock starts: the phases time the rows' work, not the process's start-up
    load_engine_for(solves)

    def model_at(fraction: FloatArray) -> KinematicModel:
        return deformed_model(chain, table, fraction, options.composition)

    if nominal is not None and nominal.q.shape != (program.n_targets, chain.n_joints):
        raise ConfigurationError(f"{program.source}: {nominal.q.shape[0]} nominal solutions for "
                                 f"{program.n_targets} targets")
    if program.time_min is not None:
        yield from _compensate_timed(chain, model_at, program, options, q_previous, memo, progress, nominal)
        return
    t0 = time.perf_counter()
    announce_phase(progress, "nominal configurations", None)
    if nominal is None:
        nominal = nominal_solutions(chain, program, options, q_previous, memo, _phase_progress(progress))
    nominal_seconds = time.perf_counter() - t0
    announce_phase(progress, "solving", None)
    if minute_tables is not None:
        chunks = _compensate_minute_tables(chain, minute_tables, program, options, nominal, progress)
    else:
        chunks = _compensate_grid(chain, model_at, program, options, nominal, progress)
    for i, chunk in enumerate(chunks):
        yield replace(chunk, nominal_seconds=nominal_seconds) if i == 0 else chunk


def _compensate_grid(chain, model_at, program, options, nominal, progress):
    m = program.n_targets
    minutes = np.asarray(options.minutes, dtype=float)
    fractions = options.time_law.fraction(minutes)
    total = minutes.size * m
    R, p = program.R_world_tcp, program.p_world_tcp
    t0 = time.perf_counter()
    s_max = float(fractions.max())
    # Quadratic predictor of the continuation through s = 0, s_max / 2 and s_max. A grid that the compiled
    # solver will solve anyway solves these few rows with it too (numpy's per-call overhead on 50 rows cost
    # the paper's case a third of its solver time); the choice depends on the job's size alone.
    predictor_ik = job_options(options.ik, total)
    lost = nominal.status != Status.CONVERGED
    full = _continue_to(model_at, np.full(m, s_max), R, p, nominal.q, predictor_ik, lost=lost)
    half = _continue_to(model_at, np.full(m, s_max / 2), R, p, 0.5 * (nominal.q + full.q), predictor_ik, lost=lost)
    setup_seconds = time.perf_counter() - t0
    minutes_per_chunk = max(1, options.chunk_rows // m)
    previous_q = nominal.q  # the configuration before the first requested minute
    done = 0
    for start in range(0, minutes.size, minutes_per_chunk):
        t0 = time.perf_counter()
        block = slice(start, min(start + minutes_per_chunk, minutes.size))
        f = fractions[block]
        k = f.size
        u = (f / s_max if s_max > 0 else np.zeros_like(f))[:, None, None]
        # Lagrange basis on u = 0, 1/2, 1
        seed = ((2 * u - 1) * (u - 1)) * nominal.q + (4 * u * (1 - u)) * half.q + (u * (2 * u - 1)) * full.q
        frac_rows = np.repeat(f, m)
        R_rows, p_rows = np.tile(R, (k, 1, 1)), np.tile(p, (k, 1))
        seed = seed.reshape(k * m, -1)
        # one deformed model per minute, shared by that minute's rows
        models = model_at(f).take(np.repeat(np.arange(k), m))
        result = solve_ik(models, R_rows, p_rows, seed, options.ik)
        result = _repair_continuity(model_at, frac_rows, R_rows, p_rows, seed, result, previous_q, options.ik, lost)
        previous_q = result.q[-m:]
        solve_seconds = time.perf_counter() - t0 + (setup_seconds if start == 0 else 0.0)
        chunk = _finish_chunk(chain, models, np.repeat(minutes[block], m), frac_rows, np.tile(np.arange(m), k),
                              R_rows, p_rows, result, np.tile(nominal.q, (k, 1)), np.tile(nominal.status, k),
                              solve_seconds, options.ik)
        done += chunk.n_rows
        yield chunk
        if progress is not None:
            progress(done, total)


def _stack(models: Sequence[KinematicModel]) -> KinematicModel:
    """Single models ``()`` stacked into one batch ``(k,)``."""
    first = models[0]
    return KinematicModel(first.chain, *(np.stack([getattr(mo, name) for mo in models]) for name in
                                         ("R_base", "p_base", "R_joint", "p_joint", "R_tool", "p_tool")))


def _compensate_minute_tables(chain, tables, program, options, nominal, progress):
    """The grid with its own full table per minute (a :class:`TablePerMinute` law, :func:`compensate`).

    One deformed model per minute, as in :func:`_compensate_grid`. In each
    block of minutes, every :data:`PREDICTOR_STRIDE`-th minute (and the
    last) is continued from the nominal solutions to its table
    (:func:`_continue_to`), and the corrections of the minutes between are
    interpolated by local cubics (:func:`_cubic_weights`), the previous
    block's last minute being a node too; the block is then solved in one
    batch from these seeds. A row that failed or moved more than
    :data:`BRANCH_JUMP` from its seed is continued from its nominal
    solution to its minute's table.
    """
    m = program.n_targets
    minutes = np.asarray(options.minutes, dtype=float)
    total = minutes.size * m
    R, p = program.R_world_tcp, program.p_world_tcp
    minute_models = _stack([deformed_model(chain, t, 1.0, options.composition) for t in tables])

    def from_nominal(j: int, index: np.ndarray) -> IKResult:
        """Targets ``index`` at minute ``j``, continued from their nominal solutions to its table."""
        return _continue_to(lambda f: deformed_model(chain, tables[j], f, options.composition),
                            np.ones(index.size), R[index], p[index], nominal.q[index], options.ik,
                            lost=nominal.status[index] != Status.CONVERGED)

    minutes_per_chunk = max(1, options.chunk_rows // m)
    previous = None  # (minute index, solution (m, n)) of the minute before this block
    done = 0
    for start in range(0, minutes.size, minutes_per_chunk):
        t0 = time.perf_counter()
        stop = min(start + minutes_per_chunk, minutes.size)
        k = stop - start
        R_rows, p_rows = np.tile(R, (k, 1, 1)), np.tile(p, (k, 1))
        # Predictor: corrections at sample minutes, interpolated along the minute index.
        sample = np.unique(np.r_[np.arange(start, stop, PREDICTOR_STRIDE), stop - 1])
        nodes = [] if previous is None else [previous]
        nodes += [(j, from_nominal(j, np.arange(m)).q) for j in sample.tolist()]
        at = np.array([j for j, _ in nodes], dtype=float)
        correction = np.stack([q - nominal.q for _, q in nodes])  # (nodes, m, n)
        window, weights = _cubic_weights(np.arange(start, stop, dtype=float), at)
        seed = (nominal.q + np.einsum("kw,kwmn->kmn", weights, correction[window])).reshape(k * m, -1)
        models = minute_models.take(np.repeat(np.arange(start, stop), m))
        result = solve_ik(models, R_rows, p_rows, seed, options.ik)
        bad = (row_max_abs(result.q - seed) > BRANCH_JUMP) | (result.status != Status.CONVERGED)
        for j in np.unique(np.flatnonzero(bad) // m).tolist():
            targets = np.flatnonzero(bad[j * m:(j + 1) * m])
            _assign(result, j * m + targets, from_nominal(start + j, targets))
        previous = (stop - 1, result.q[-m:])
        chunk = _finish_chunk(chain, models, np.repeat(minutes[start:stop], m), np.ones(k * m),
                              np.tile(np.arange(m), k), R_rows, p_rows, result, np.tile(nominal.q, (k, 1)),
                              np.tile(nominal.status, k), time.perf_counter() - t0, options.ik)
        done += chunk.n_rows
        yield chunk
        if progress is not None:
            progress(done, total)


def _repair_continuity(model_at, frac_rows, R_rows, p_rows, seed, result, previous_q, ik, lost=None):
    """Re-solve, minute by minute from the previous minute, targets that failed or left their branch.

    A solution that moved more than :data:`BRANCH_JUMP` from its predictor
    seed has converged to another configuration (the predictor itself is
    within micro-radians of the continuation); such a target, and one whose
    solve failed, is continued minute by minute from ``previous_q``, the
    solution of the minute before this block, ``(m, n)``. Targets ``lost`` ``(m,)``, which have no
    nominal solution (:func:`_continue_to`), are left as they are.
    """
    m, n = previous_q.shape
    left = row_max_abs(result.q - seed) > BRANCH_JUMP
    bad = (left | (result.status != Status.CONVERGED)).reshape(-1, m)
    if lost is not None:
        bad &= ~lost
    bad_targets = np.flatnonzero(np.any(bad, axis=0))
    if bad_targets.size == 0:
        return result
    q_prev = previous_q[bad_targets]
    for minute in range(bad.shape[0]):
        rows = minute * m + bad_targets
        step = _continue_to(model_at, frac_rows[rows], R_rows[rows], p_rows[rows], q_prev, ik)
        _assign(result, rows, step)
        q_prev = np.where((step.status == Status.CONVERGED)[:, None], step.q, q_prev)
    return result


#: Every this many poses of a timed program, the pose is solved at its own
#: time to predict the corrections of the poses between (:func:`_path_predictor`).
PREDICTOR_STRIDE = 16


def _cubic_weights(x: FloatArray, nodes: FloatArray) -> tuple[np.ndarray, FloatArray]:
    """Local cubic (4-point Lagrange) interpolation at ``x`` ``(m,)`` from increasing ``nodes`` ``(k,)``.

    Each ``x`` uses the four nodes around it (three, two or one when ``k`` is
    that small; the window shifts inwards at the ends), so a kink or a jump
    in the data only disturbs its own neighbourhood (unlike a global spline).

    Returns
    -------
    window : ndarray of int, shape ``(m, w)``
        Indices into ``nodes`` with ``w = min(4, k)``.
    weights : ndarray, shape ``(m, w)``
        Lagrange weights: ``sum(weights * values[window], axis=1)`` interpolates.
    """
    w = min(4, nodes.size)
    left = np.clip(np.searchsorted(nodes, x, side="right") - w // 2, 0, nodes.size - w)
    window = left[:, None] + np.arange(w)
    xj = nodes[window]  # (m, w)
    weights = np.ones(xj.shape)
    for j in range(w):
        for k in range(w):
            if k != j:
                weights[:, j] *= (x - xj[:, k]) / (xj[:, j] - xj[:, k])
    return window, weights


def _path_predictor(model_at: ModelAt, frac: FloatArray, R: FloatArray, p: FloatArray, q_nominal: FloatArray,
                    ik: IKOptions, lost: np.ndarray | None = None) -> FloatArray:
    """Seeds for poses of a path, each at its own fraction of the table, ``(m, n)``.

    The correction ``q - q_nominal`` varies smoothly along a path, with the
    pose and with its time. So every :data:`PREDICTOR_STRIDE`-th pose (and
    the last) is solved at its own fraction of the table, and the
    corrections between are interpolated along the path by local cubics
    (:func:`_cubic_weights`). On a smooth path this predicts the solution to
    about 1e-7 rad, so most poses converge in one Newton step. (Scaling a
    full-table correction by the fraction, as the transient grid's quadratic
    predictor avoids, is off by about 1e-3 rad: the correction is not linear
    in the fraction.) A pose whose prediction is off (a corner, a jump in
    time) still converges from it, the deformation being small; a failed one
    is continued from the nominal solution by :func:`_continue_to`.
    """
    m = frac.shape[0]
    sample = np.unique(np.r_[np.arange(0, m, PREDICTOR_STRIDE), m - 1])
    solved = _continue_to(model_at, frac[sample], R[sample], p[sample], q_nominal[sample], ik,
                          lost=None if lost is None else lost[sample], measure_singularity=False)
    usable = solved.status == Status.CONVERGED
    if not np.any(usable):
        return q_nominal
    correction = solved.q[usable] - q_nominal[sample[usable]]  # (k, n)
    window, weights = _cubic_weights(np.arange(m, dtype=float), sample[usable].astype(float))
    return q_nominal + np.einsum("mw,mwn->mn", weights, correction[window])


#: A timed program whose rows repeat their targets at least this often on
#: average is continued per target along the table's fraction (as a grid),
#: not along the path: its neighbouring rows are different targets.
REPEATS_FOR_TARGET_PREDICTOR = 3


def _target_predictor(model_at: ModelAt, frac: FloatArray, R: FloatArray, p: FloatArray, q_nominal: FloatArray,
                      target: np.ndarray, ik: IKOptions, lost: np.ndarray | None = None) -> FloatArray:
    """Seeds ``(r, n)`` for rows that revisit few targets, each at its own fraction of the table.

    The grid's predictor per distinct target (``target`` ``(r,)`` numbers
    them): each is solved at its largest fraction ``s`` and at ``s / 2``, and
    every row is seeded on the quadratic through the nominal, half and full
    solutions at its own fraction (see :func:`_compensate_grid`). A target
    whose predictor solve failed is seeded with its nominal solution.
    """
    distinct, local = np.unique(target, return_inverse=True)
    k = distinct.size
    first = np.zeros(k, dtype=np.int64)
    first[local[::-1]] = np.arange(local.size)[::-1]  # a row of each distinct target
    s_max = np.zeros(k)
    np.maximum.at(s_max, local, frac)
    q0, Rd, pd = q_nominal[first], R[first], p[first]
    lost = None if lost is None else lost[first]  # (targets with no nominal solution: see _continue_to)
    full = _continue_to(model_at, s_max, Rd, pd, q0, ik, lost=lost, measure_singularity=False)
    half = _continue_to(model_at, s_max / 2, Rd, pd, 0.5 * (q0 + full.q), ik, lost=lost, measure_singularity=False)
    ok = (full.status == Status.CONVERGED) & (half.status == Status.CONVERGED)
    s_row = s_max[local]
    u = np.divide(frac, s_row, out=np.zeros_like(frac), where=s_row > 0)[:, None]
    seed = (((2 * u - 1) * (u - 1)) * q0[local] + (4 * u * (1 - u)) * half.q[local]
            + (u * (2 * u - 1)) * full.q[local])
    return np.where(ok[local][:, None], seed, q_nominal)


def _compensate_timed(chain, model_at, program, options, q_previous, memo, progress, known=None):
    """A program with a time column: each row once at its own time, in slices of :data:`PROGRESS_ROWS` rows
    (:func:`~thermocomp.kinematics.dispatch.engine_slices`).

    Each slice finds its nominal configurations (distinct problems only,
    :class:`NominalMemo` remembering them across slices; or takes the
    caller's, ``known``), then solves the deformed robot from a predictor:
    per target along the fraction when the slice revisits few targets
    (:func:`_target_predictor`), else along the path (:func:`_path_predictor`).
    """
    m = program.n_targets
    _, target_of_row, keys, hashes = program.distinct_rows()
    done = 0
    for start, stop in engine_slices(m, min(options.chunk_rows, PROGRESS_ROWS)):
        idx = np.arange(start, stop)
        t0 = time.perf_counter()
        target = target_of_row[idx]
        distinct, first, local = np.unique(target, return_index=True, return_inverse=True)
        order = np.argsort(first)  # distinct problems in order of first appearance (the path's order)
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        nominal = _take(known, idx) if known is not None else \
            _nominal_rows(chain, program.take(idx), first[order], rank[local], keys[distinct[order]],
                          hashes[distinct[order]], options, q_previous, memo, None)
        q_previous = nominal.q[-1]
        t1 = time.perf_counter()
        minute = program.time_min[idx]
        frac = options.time_law.fraction(minute)
        R, p = program.R_world_tcp[idx], program.p_world_tcp[idx]
        lost = nominal.status != Status.CONVERGED
        if distinct.size * REPEATS_FOR_TARGET_PREDICTOR <= idx.size:
            seed = _target_predictor(model_at, frac, R, p, nominal.q, target, options.ik, lost)
        else:
            seed = _path_predictor(model_at, frac, R, p, nominal.q, options.ik, lost)
        # one robot per row, for the solve and the reached poses (built once per distinct fraction)
        fractions, at = np.unique(frac, return_inverse=True)
        deformed = model_at(frac) if fractions.size * 2 > frac.size else model_at(fractions).take(at.ravel())
        result = _continue_to(model_at, frac, R, p, seed, options.ik, deformed, lost)
        chunk = _finish_chunk(chain, deformed, minute, frac, idx, R, p, result, nominal.q, nominal.status,
                              time.perf_counter() - t1, options.ik)
        chunk = replace(chunk, nominal_seconds=t1 - t0)
        done += chunk.n_rows
        yield chunk
        if progress is not None:
            progress(done, m)


#: ``10.0 ** k`` for every whole ``k`` a scale of :func:`written_angles` can take (``WRITTEN_DIGITS - 1`` minus the
#: decimal exponent of a finite double), by numpy's ``power`` as the element-wise form computes it.
_SCALE_K_LOW = -300
with np.errstate(over="ignore"):
    _SCALES = 10.0 ** np.arange(_SCALE_K_LOW, 341, dtype=float)


def written_angles(q: FloatArray) -> FloatArray:
    """``q`` [rad] as a results file gives it back: degrees to :data:`WRITTEN_DIGITS` significant digits.

    Rounded in binary, so it may differ from parsing the decimal text by an
    ulp of the angle: some 1e-16 rad, far below any tolerance. (The scales
    ``10 ** (WRITTEN_DIGITS - 1 - exponent)`` are looked up, not raised to
    the power row by row: the same values, a twentieth of the time.)
    """
    deg = np.degrees(q)
    with np.errstate(divide="ignore", invalid="ignore"):
        exponent = np.floor(np.log10(np.abs(deg)))
    k = np.where(np.isfinite(exponent), WRITTEN_DIGITS - 1 - exponent, 0.0).astype(np.int64)  # 0: a scale of 1
    scale = _SCALES[k - _SCALE_K_LOW]
    return np.radians(np.round(deg * scale) / scale)


def _misses(miss: FloatArray, ik: IKOptions) -> np.ndarray:
    """Rows whose pose error ``miss`` ``(r, 6)`` (:func:`~thermocomp.kinematics.ik.pose_errors`) exceeds the IK
    tolerances, ``(r,)`` bool."""
    return (row_norms(miss[:, :3]) > ik.position_tol) | (row_norms(miss[:, 3:]) > ik.orientation_tol)


def _finish_chunk(chain, deformed, minute, frac, target, R, p, result, q_nominal, nominal_status,
                  solve_seconds, ik: IKOptions) -> CompensationChunk:
    # A row whose target has no nominal solution keeps the nominal failure: its
    # deformed solve started from a meaningless seed.
    status = np.where(nominal_status != Status.CONVERGED, nominal_status, result.status).astype(np.int8)
    # What the file says is what the robot gets: the reached pose and the deviation are those of the
    # angles as written, and a converged row whose written angles miss the tolerance is not converged
    # (a 1 km deformation moves the TCP by 5e-5 mm per 12th digit of an angle in degrees).
    # A row converged just inside the tolerance may leave it by the rounding (some 1e-12 m): it is solved
    # again to a hundredth of the tolerance first, so only rows the written precision cannot carry fail.
    q = result.q
    R_reached, p_reached = fk(deformed, written_angles(q))
    miss = pose_errors(R, p, R_reached, p_reached)
    off = (status == Status.CONVERGED) & _misses(miss, ik)
    if np.any(off):
        index = np.flatnonzero(off)
        rows = deformed.take(index) if deformed.batch_shape != () else deformed
        tight = replace(ik, position_tol=ik.position_tol / 100, orientation_tol=ik.orientation_tol / 100)
        again = solve_ik(rows, R[index], p[index], q[index], tight)
        q = q.copy()
        q[index] = np.where((again.status == Status.CONVERGED)[:, None], again.q, q[index])
        R_reached, p_reached = fk(deformed, written_angles(q))
        miss = pose_errors(R, p, R_reached, p_reached)
        status[(status == Status.CONVERGED) & _misses(miss, ik)] = Status.NOT_CONVERGED
    result = replace(result, q=q)
    R_uncomp, p_uncomp = fk(deformed, q_nominal)
    R_filtered, p_filtered = fk(nominal_model(chain), result.q)
    return CompensationChunk(
        minute=minute, fraction=frac, target=target, q=result.q, status=status,
        position_error=result.position_error, orientation_error=result.orientation_error,
        sigma_min=result.sigma_min,
        deviation=-miss,
        R_reached=R_reached, p_reached=p_reached,
        q_nominal=q_nominal, nominal_status=nominal_status,
        uncompensated_deviation=-pose_errors(R, p, R_uncomp, p_uncomp),
        R_filtered=R_filtered, p_filtered=p_filtered, solve_seconds=solve_seconds,
    )
