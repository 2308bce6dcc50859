"""The job of a targets CSV: files in, the results CSV (and a plot) out, a report.

:func:`compensate_targets` runs a :class:`~thermocomp.app.jobs.CompensationJob` whose source is targets (the
work behind ``thermocomp compensate --targets``); it composes the readers, the pure core
(:func:`thermocomp.compensation.compensate`) and the chunked, atomic results writer, through
:func:`thermocomp.app.jobs.run_job`. From Python, :func:`thermocomp.run_compensation` runs either source::

    import thermocomp
    job = thermocomp.CompensationJob("irb140", "deformations/exaggerated.csv",
                                     targets="examples/targets_random50.csv", out="compensated.csv")
    print(thermocomp.run_compensation(job).text())
"""

from __future__ import annotations

import itertools
import queue
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from thermocomp._typing import FloatArray, PathLike
from thermocomp.app.jobs import CompensationFailed, CompensationJob, Declared, Report, file_of, run_job
from thermocomp.app.prepare import RobotAndTable
from thermocomp.compensation.compensate import (
    MAX_KEPT_ROWS,
    MAX_ROWS,
    CompensationChunk,
    CompensationOptions,
    CompensationSummary,
    NominalMemo,
    ProgressCallback,
    announce_phase,
    compensate,
)
from thermocomp.compensation.targets import Targets
from thermocomp.errors import ConfigurationError, InputError
from thermocomp.io.job import Job
from thermocomp.io.results_csv import ResultsWriter
from thermocomp.io.targets_csv import iter_targets_csv, read_targets_frame
from thermocomp.robot.chain import Chain
from thermocomp.tolerances import NEAR_SINGULAR_SIGMA


@dataclass
class CompensationReport(Report):
    """What the compensation of targets did: counts, extremes, timing, and where it wrote."""

    robot: str
    deformation_source: str
    targets_source: str
    time_law: str
    n_targets: int
    summary: CompensationSummary
    options: CompensationOptions
    out: Path | None = None
    #: The files the run wrote (results, plot), once they are all written; empty when it wrote none.
    written: list[Path] = field(default_factory=list)
    #: With ``keep_results``: every chunk, ``target`` indexing ``target_names``.
    chunks: list[CompensationChunk] = field(default_factory=list)
    target_names: list[str] = field(default_factory=list)
    #: Wall time of the whole call [s] (the phases are in ``summary.phase_seconds``).
    wall_seconds: float = 0.0
    #: Orientation convention of the targets (and of the results' poses), and the robot's joints.
    orientation_convention: str = "euler_xyz"
    n_joints: int = 6

    def frame(self):
        """The results as a :class:`pandas.DataFrame`: one row per (minute, target), the results CSV's columns.

        Needs the kept results (``keep_results``, the default without ``out``).
        Units as in the CSV (mm, degrees, names carry them); a failed row has
        NaN where the CSV leaves cells empty; ``target`` holds names.
        """
        try:
            import pandas as pd
        except ImportError as exc:  # pandas is a dependency; a trimmed install may lack it
            raise ConfigurationError("report.frame() needs pandas: pip install pandas") from exc
        from thermocomp.io.results_csv import chunk_columns, header

        if not self.chunks and self.summary.n_rows:
            raise ConfigurationError("report.frame() needs the results: run with keep_results=True")
        names = tuple(self.target_names)
        parts = [chunk_columns(chunk, names, self.orientation_convention) for chunk in self.chunks]
        columns = header(self.n_joints, self.orientation_convention)
        if not parts:
            return pd.DataFrame(columns=columns)
        return pd.DataFrame({c: np.concatenate([part[c] for part in parts]) for c in columns})

    def failure_text(self) -> str:
        s = self.summary
        lines = [f"{s.n_failed} of {s.n_rows} rows could not be compensated:"]
        for minute, name, label in s.failed_rows[:20]:
            lines.append(f"  minute {minute:g}, target {name}: {label}")
        if s.n_failed > 20:
            lines.append(f"  ... and {s.n_failed - 20} more")
        lines.append("Nothing was written. Rerun with --allow-failures (allow_failures=True) "
                     "to write the file with the failed rows marked by their status.")
        return "\n".join(lines)

    def headline(self) -> str:
        """One line: robot, deformation, time law, targets."""
        return (f"{self.robot}: {self.deformation_source} ({self.time_law}), "
                f"{self.targets_source}, {self.summary.n_rows:,} rows")

    def text(self) -> str:
        """A summary in the shape of the paper's Tables 13, 15, 17, 18."""
        s = self.summary
        tol = self.options.ik
        lines = [
            f"robot {self.robot}; deformation {self.deformation_source} ({self.time_law}); "
            f"targets {self.targets_source}: {s.n_rows:,} rows",
            "status: " + ", ".join(f"{v:,} {k}" for k, v in s.status_counts.items())
            + f"; {s.near_singular:,} near a singularity (smallest Jacobian singular value < {NEAR_SINGULAR_SIGMA:g})",
        ]
        if np.all(np.isfinite(s.deviation_min)):
            lines += [
                "deviation of the compensated program (converged rows), reached minus target:",
                f"  {'':4} {'dX [mm]':>11} {'dY [mm]':>11} {'dZ [mm]':>11} {'dRx [deg]':>11} {'dRy [deg]':>11} {'dRz [deg]':>11}",
                "  min  " + " ".join(f"{v:11.3g}" for v in _file_units(s.deviation_min)),
                "  max  " + " ".join(f"{v:11.3g}" for v in _file_units(s.deviation_max)),
                f"  largest: {s.max_position_error * 1e3:.3g} mm, {np.degrees(s.max_orientation_error):.3g} deg "
                f"(solver tolerance {tol.position_tol * 1e3:g} mm, {np.degrees(tol.orientation_tol):.3g} deg)",
            ]
        lines.append(
            f"uncompensated program: the deformed robot misses by up to {s.uncompensated_max_position * 1e3:.4g} mm "
            f"and {np.degrees(s.uncompensated_max_angle):.4g} deg"
        )
        lines.append(
            f"solver: {s.solver_seconds:.3f} s for {s.n_rows:,} solves ({s.microseconds_per_solve:.1f} us per solve)"
        )
        lines.append("time: " + ", ".join(f"{name} {seconds:.3f} s" for name, seconds in s.phase_seconds.items())
                     + f"; whole run {self.wall_seconds:.3f} s")
        lines.append("paper (seed 002): static case about +-0.01 mm and 0.02 deg; transient case about 0.2 mm "
                     "and 0.1 deg, 3 min 42 s")
        lines += [f"wrote {path}" for path in self.written]
        return "\n".join(lines)


def _file_units(v: FloatArray) -> FloatArray:
    return np.concatenate([v[:3] * 1e3, np.degrees(v[3:])])


def _programs(targets: PathLike | Targets, chain: Chain, fixed_orientation, chunk_rows: int,
              reading: ProgressCallback | None = None) -> Iterator[Targets]:
    """Targets chunks: one whole program when it has no time column, else streamed chunks."""
    if isinstance(targets, Targets):
        yield targets
        return
    if hasattr(targets, "columns") and hasattr(targets, "iloc"):  # a pandas DataFrame
        yield read_targets_frame(targets, fixed_orientation=fixed_orientation, n_joints=chain.n_joints)
        return
    stream = iter_targets_csv(targets, chunk_rows, fixed_orientation=fixed_orientation, n_joints=chain.n_joints)
    first = next(stream)
    if first.time_min is not None:
        yield from itertools.chain([first], stream)
        return
    rest = []
    for piece in stream:  # a program without times is solved whole: read all of it first
        rest.append(piece)
        if reading is not None:
            reading(first.n_targets + sum(p.n_targets for p in rest), None)
    if not rest:
        yield first
        return
    parts = [first, *rest]
    yield Targets(
        names=tuple(itertools.chain.from_iterable(p.names for p in parts)),
        R_world_tcp=np.concatenate([p.R_world_tcp for p in parts]),
        p_world_tcp=np.concatenate([p.p_world_tcp for p in parts]),
        q_reference=None if first.q_reference is None else np.concatenate([p.q_reference for p in parts]),
        orientation_convention=first.orientation_convention,
        source=first.source,
        lines=None if first.lines is None else np.concatenate([p.lines for p in parts]),
    )


#: Slack of the reference-joint limit check [rad]: a limit written in degrees to a few digits.
REFERENCE_LIMIT_SLACK = 1e-9


def check_references_within_limits(program: Targets, chain: Chain) -> None:
    """Refuse reference joints (``q1_deg``..) outside ``chain``'s limits, located at the file's line.

    A reference the robot cannot take would seed a configuration it can
    never reach; the file, not the solver, is wrong.

    Raises
    ------
    InputError
        Naming the file, line and joint column of the first angle outside its limits.
    """
    q = program.q_reference
    if q is None:
        return
    outside = (q < chain.lower - REFERENCE_LIMIT_SLACK) | (q > chain.upper + REFERENCE_LIMIT_SLACK)
    if np.any(outside):
        k, j = (int(v) for v in np.argwhere(outside)[0])
        raise InputError(f"reference joint {j + 1}: expected an angle within {chain.name}'s limits "
                         f"{np.degrees(chain.lower[j]):.6g} to {np.degrees(chain.upper[j]):.6g} deg, got "
                         f"{np.degrees(q[k, j]):.6g} deg (target {program.names[k]})",
                         path=program.source, row=program.line_of(k), column=f"q{j + 1}_deg")


def compensate_targets(job: CompensationJob, *, progress: ProgressCallback | None = None,
                       within: Job | None = None) -> CompensationReport:
    """Compensate the targets of ``job`` (a targets CSV, a :class:`Targets` or a DataFrame); write the results CSV
    (and a plot).

    Parameters
    ----------
    job
        The run (:class:`~thermocomp.app.jobs.CompensationJob` with ``targets``): robot, deformation table,
        targets, outputs (``out``, ``plot``), time law and solver (``options``), ``fixed_orientation``,
        ``allow_failures``, ``keep_results``, ``robot_options``, ``convention`` and ``joint_objects``.
    progress
        Called as ``progress(rows_done, rows_total)``.
    within
        The :class:`~thermocomp.io.job.Job` of a larger run, which then
        commits (and declares its own other files); default a job of its
        own, committed here. Either way the inputs and outputs are declared
        and checked (docs/jobs.md) before anything is read.

    Raises
    ------
    ConfigurationError
        ``job`` is a program's.
    InputError
        Bad input, naming file, line and column; an output that is an input
        or cannot be written, naming its option; nothing is written.
    CompensationFailed
        Rows failed and ``allow_failures`` is False; nothing is written.
    """
    if job.targets is None:
        raise ConfigurationError("compensate_targets: expected a job with targets, got a program's "
                                 "(thermocomp.app.compensate.run_compensation runs either)")
    started = time.perf_counter()
    out, plot = job.out, job.plot
    keep = (out is None) if job.keep_results is None else job.keep_results

    def work(files: Job, bound: RobotAndTable) -> CompensationReport:
        report = _compensate_into(files, bound, job.targets, None if out is None else Path(out),
                                  fixed_orientation=job.fixed_orientation, allow_failures=job.allow_failures,
                                  keep=keep, progress=progress)
        if plot is not None:
            from thermocomp.app.plotting import plot_png

            files.write_bytes(plot, plot_png(report.summary, title=report.headline(), where="--plot"))
        return report

    files = Declared(inputs=[(file_of(job.targets), "--targets")], outputs=[(out, "--out"), (plot, "--plot")])
    report = run_job(job, work, files, within=within)
    report.wall_seconds = time.perf_counter() - started
    return report


def _compensate_into(job: Job, bound: RobotAndTable, targets, out: Path | None, *, fixed_orientation,
                     allow_failures: bool, keep: bool, progress: ProgressCallback | None) -> CompensationReport:
    """The work of :func:`compensate_targets`, the results streamed into ``out``'s temporary in ``job``."""
    chain, table, options = bound.chain, bound.table, bound.options
    announce_phase(progress, "reading", None)
    t0 = time.perf_counter()
    programs = _programs(targets, chain, fixed_orientation, options.chunk_rows,
                         progress if getattr(progress, "phase", None) is not None else None)
    first = next(programs)
    reading_first = time.perf_counter() - t0
    if first.time_min is None:  # a grid: every target at every minute, counted before any solving
        rows, limit = first.n_targets * len(options.minutes), MAX_KEPT_ROWS if keep else MAX_ROWS
        if rows > limit:
            raise ConfigurationError(f"--minutes: {first.n_targets:,} targets x {len(options.minutes):,} minutes = "
                                     f"{rows:,} rows; expected at most {limit:,} rows in one run (split the minutes)")
    else:  # streamed: reading, solving and writing take turns, one bar for the rows
        announce_phase(progress, "solving", None)
    report = CompensationReport(
        robot=chain.name,
        deformation_source=table.source,
        targets_source=first.source,
        time_law=options.time_law.describe(),
        n_targets=0,
        summary=CompensationSummary(),
        options=options,
        out=out,
        orientation_convention=first.orientation_convention,
        n_joints=chain.n_joints,
    )

    pieces = _checked(itertools.chain([first], programs), chain)
    phases = report.summary.phase_seconds
    if first.time_min is not None:  # a streamed file
        pieces = _read_ahead(pieces, phases)
    else:
        pieces = _timed(pieces, phases, "reading")

    def run(write) -> None:
        q_previous = None  # a streamed path carries its configuration from piece to piece
        memo = NominalMemo()  # a target met again in a later piece is not solved again
        for program in pieces:
            offset = report.n_targets
            report.n_targets += program.n_targets
            if keep:
                report.target_names.extend(program.names)
            for chunk in compensate(chain, table, program, options, progress, q_previous, memo=memo):
                q_previous = chunk.q_nominal[-1]
                report.summary.add(chunk, program.names)
                t0 = time.perf_counter()
                write(chunk, program.names)
                phases["writing"] += time.perf_counter() - t0
                if keep:
                    report.chunks.append(replace(chunk, target=chunk.target + offset))
        if report.summary.n_failed and not allow_failures:
            raise CompensationFailed(report)

    report.summary.phase_seconds["reading"] += reading_first
    if out is None:
        run(lambda chunk, names: None)
    else:
        with job.open(out) as handle, ResultsWriter(handle, chain.n_joints, first.orientation_convention) as writer:
            run(writer.write)
    return report


def _checked(programs: Iterator[Targets], chain: Chain) -> Iterator[Targets]:
    """``programs``, each refused when its reference joints are outside ``chain``'s limits
    (:func:`check_references_within_limits`) before the next is read: errors come in file order."""
    for program in programs:
        check_references_within_limits(program, chain)
        yield program


#: Most pieces of a streamed file read ahead of the one being solved (:func:`_read_ahead`): their memory.
READ_AHEAD_PIECES = 1
#: How often a reading thread waiting for room looks whether the run has stopped [s].
_READ_AHEAD_POLL_S = 0.05


def _read_ahead(pieces: Iterator[Targets], phases: dict[str, float]) -> Iterator[Targets]:
    """``pieces``, read on a thread of their own up to :data:`READ_AHEAD_PIECES` ahead of the one being solved;
    the time spent waiting for each is counted as reading.

    Reading (file reads and pyarrow's parse) and solving (the engine's rows) mostly let go of the interpreter
    lock, so the two overlap: while the engine loads, the first piece is read, and later each piece is read
    while the one before is solved. The thread starts a piece only when there is room for it (a piece handed
    over makes room): it does not hold a piece read while it waits, so memory holds the piece being solved and
    the pieces ahead, not one more (at 1,000,000 poses that piece and its parse were some 40 MB of the peak).
    A reading error is raised here, when its piece's turn comes: errors come in file order. When the run stops
    early (an error, an interrupt), the thread stops before its next piece and has ended when this generator
    returns.
    """
    ahead: queue.SimpleQueue = queue.SimpleQueue()  # (never more than READ_AHEAD_PIECES items: see ``room``)
    room = threading.Semaphore(READ_AHEAD_PIECES)
    stop = threading.Event()

    def wait_for_room() -> bool:
        while not stop.is_set():
            if room.acquire(timeout=_READ_AHEAD_POLL_S):
                return True
        return False

    def read() -> None:
        try:
            while wait_for_room():
                piece = next(pieces, None)
                ahead.put((piece, None))
                if piece is None:
                    return
        except BaseException as error:  # noqa: BLE001 -- handed to the solving thread, raised there in its turn
            ahead.put((None, error))
        finally:
            close = getattr(pieces, "close", None)  # (a generator: let go of the piece it is at on this thread)
            if close is not None:
                close()

    reader = threading.Thread(target=read, name="thermocomp-reading", daemon=True)
    reader.start()
    try:
        while True:
            t0 = time.perf_counter()
            piece, error = ahead.get()
            phases["reading"] += time.perf_counter() - t0
            room.release()
            if error is not None:
                raise error
            if piece is None:
                return
            yield piece
    finally:
        stop.set()
        reader.join()


def _timed(items: Iterator[Targets], phases: dict[str, float], name: str) -> Iterator[Targets]:
    """``items``, adding the time each ``next`` takes to ``phases[name]``."""
    while True:
        t0 = time.perf_counter()
        item = next(items, None)
        phases[name] += time.perf_counter() - t0
        if item is None:
            return
        yield item
