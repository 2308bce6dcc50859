"""Compensate a robot program file: RAPID or URScript in, the same program with corrected targets out.

:func:`compensate_program` is the one library call behind ``thermocomp
compensate --program``: read the program (:mod:`~thermocomp.programs.rapid`,
:mod:`~thermocomp.programs.urscript`), find the nominal configuration of
every point, estimate when each motion runs (:mod:`~thermocomp.programs.timing`),
compensate the points with the core (:func:`thermocomp.compensation.compensate`),
write the program (:mod:`~thermocomp.programs.writer`,
:mod:`~thermocomp.programs.indexed`), check it (:mod:`~thermocomp.programs.feasibility`)
and report. Every output is written all or none. docs/programs.md.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from thermocomp._gc import paused
from thermocomp._typing import FloatArray, PathLike
from thermocomp.application import CompensationFailed, Declared, Report, file_of, run_job
from thermocomp.compensation.compensate import (
    CompensationChunk,
    CompensationOptions,
    CompensationSummary,
    ProgressCallback,
    _phase_progress,
    announce_phase,
    compensate,
    nominal_solutions,
)
from thermocomp.compensation.targets import Targets
from thermocomp.deformation.table import DeformationTable
from thermocomp.deformation.timelaw import Static, TimeLaw
from thermocomp.errors import ConfigurationError, InputError
from thermocomp.geometry.rotations import (
    invert_transform,
    matrix_from_rotvec,
    quat_wxyz_from_matrix,
    rotvec_from_matrix,
    transform,
)
from thermocomp.geometry.vectors import row_max_abs, row_norms
from thermocomp.io.job import Job
from thermocomp.io.results_csv import results_writer
from thermocomp.io.robot_files import RobotFileOptions
from thermocomp.kinematics.confdata import confdata_from_q, quadrants, to_quadrants
from thermocomp.kinematics.fk import fk
from thermocomp.kinematics.ik import IKResult, Status, pose_errors, turns
from thermocomp.kinematics.model import nominal_model
from thermocomp.kinematics.seeding import solve_nominal_configuration, solve_path
from thermocomp.prepare import RobotAndTable
from thermocomp.programs import writer as w
from thermocomp.programs.feasibility import MotionRow
from thermocomp.programs.model import (
    _KIND_CODE,
    ABSOLUTE_JOINT,
    CIRCULAR,
    LINEAR,
    Finding,
    Motion,
    MotionRun,
    Point,
    ProgramColumns,
    RobotProgram,
    Span,
    tcp_poses,
)
from thermocomp.programs.rapid import RapidOptions
from thermocomp.programs.timing import MAX_MINUTES, Timing, TimingOptions, estimate_timing
from thermocomp.robot.chain import Chain

OUTPUT_FORMS = ("filtered", "joints")
#: File extensions read as URScript.
URSCRIPT_SUFFIXES = (".script", ".urscript")
UNSUPPORTED_CHOICES = ("refuse", "keep")
JOINT_TARGET_CHOICES = ("keep", "compensate")


@dataclass(frozen=True)
class ProgramOptions:
    """What to write and for which time.

    Parameters
    ----------
    output
        ``"filtered"`` (default): every target becomes the pose the nominal
        controller must be given so the warm robot reaches the true target
        (RAPID confdata from the corrected joints); ``"joints"``: every
        target becomes a joint target (``MoveAbsJ`` / ``movej``).
    at_minute
        Snapshot: the program compensated for this minute [min]. ``None``
        and no other time form: the full table (the stabilised robot).
    timed
        Each motion compensated at the minute the timing estimate gives it
        (one cycle: a long single run such as a print).
    indexed_minutes
        Time-indexed program: corrections for each of these minutes [min],
        picked from the controller's clock while it runs (:mod:`~thermocomp.programs.indexed`).
    timing
        Cycles, duration, measured cycle time.
    unsupported
        ``"refuse"`` (default): a construct that cannot be followed stops
        the run, nothing written; ``"keep"``: it is left as written, with a warning.
    rapid
        How a RAPID program is read: the task's other modules, the entry routine, external routines, the
        bound on unrolled motions (:class:`~thermocomp.programs.rapid.RapidOptions`; the bound applies to
        URScript too).
    joint_targets
        ``"keep"`` (default): joint targets (``MoveAbsJ``, URScript ``movej``
        of a joint list: home and via positions) are left as written and
        listed in the report; ``"compensate"``: compensated as the other
        targets (their pose is the nominal FK of their joints); one that
        cannot be (UR's home at full stretch with a growing arm) is then
        left as written with a note instead of failing the program.
    """

    output: str = "filtered"
    at_minute: float | None = None
    timed: bool = False
    indexed_minutes: tuple[float, ...] | None = None
    timing: TimingOptions = TimingOptions()
    unsupported: str = "refuse"
    rapid: RapidOptions = RapidOptions()
    joint_targets: str = "keep"

    def __post_init__(self) -> None:
        if self.joint_targets not in JOINT_TARGET_CHOICES:
            raise ConfigurationError(f"--joint-targets: expected one of {JOINT_TARGET_CHOICES}, got "
                                     f"{self.joint_targets!r}")
        if self.output not in OUTPUT_FORMS:
            raise ConfigurationError(f"--program-output: expected one of {OUTPUT_FORMS}, got {self.output!r}")
        if self.unsupported not in UNSUPPORTED_CHOICES:
            raise ConfigurationError(f"--unsupported: expected one of {UNSUPPORTED_CHOICES}, got {self.unsupported!r}")
        forms = [self.at_minute is not None, self.timed, self.indexed_minutes is not None]
        if sum(forms) > 1:
            raise ConfigurationError("choose one time form: --at-minute, --timed or --time-indexed")
        if self.at_minute is not None and not (np.isfinite(self.at_minute) and 0 <= self.at_minute <= MAX_MINUTES):
            raise ConfigurationError(f"--at-minute: expected a minute from 0 to {MAX_MINUTES:g}, got {self.at_minute:g}")
        if self.indexed_minutes is not None:
            m = np.asarray(self.indexed_minutes, dtype=float)
            if m.size < 1 or m[0] != 0 or np.any(np.diff(m) <= 0):
                raise ConfigurationError("--time-indexed: expected increasing minutes starting at 0")
            if np.any(np.abs(np.diff(m) - (m[1] - m[0])) > 1e-9) if m.size > 1 else False:
                raise ConfigurationError("--time-indexed: expected evenly spaced minutes (the program computes "
                                         "the index from the clock)")
        if self.timed and (self.timing.cycles > 1 or self.timing.duration_min is not None):
            raise ConfigurationError("--timed compensates each motion once, at its own minute: it needs one cycle "
                                     "(for repeated cycles use --time-indexed)")


#: Most correction sets a time-indexed program may carry (200 minutes at one set every 0.02 min).
MAX_INDEXED_SETS = 10_000
#: Most entries (sets x points) of a time-indexed program's tables: some 100 bytes each in the file.
MAX_INDEXED_ENTRIES = 2_000_000


def _round_up(value: float, digits: int = 3) -> float:
    """``value`` rounded up to ``digits`` significant digits (a suggested bound must itself pass it)."""
    scale = 10.0 ** (np.floor(np.log10(value)) - digits + 1)
    return float(np.ceil(value / scale * (1 - 1e-12)) * scale)


def indexed_minutes(step_min: float, time_law: TimeLaw) -> tuple[float, ...]:
    """The minutes of a time-indexed program: every ``step_min`` from 0 to the time law's stabilisation.

    Raises
    ------
    ConfigurationError
        ``step_min`` not a positive number, a static law (nothing changes
        with time), or more than :data:`MAX_INDEXED_SETS` sets (naming the
        smallest step that fits).
    """
    if not (np.isfinite(step_min) and step_min > 0):
        raise ConfigurationError(f"--time-indexed: expected a step > 0 minutes, got {step_min:g}")
    if isinstance(time_law, Static):
        raise ConfigurationError("--time-indexed follows the time law: it cannot be combined with --static")
    end = float(time_law.stabilisation_min)
    if end / step_min > MAX_INDEXED_SETS - 1:
        raise ConfigurationError(
            f"--time-indexed {step_min:g}: {end / step_min + 1:,.0f} correction sets up to minute {end:g} "
            f"({time_law.describe()}); at most {MAX_INDEXED_SETS:,}: choose a step of at least "
            f"{_round_up(end / (MAX_INDEXED_SETS - 1)):g} min")
    count = int(np.floor(end / step_min + 1e-9)) + 1
    return tuple(float(k * step_min) for k in range(count))


#: The phases of :func:`compensate_program`, as :attr:`ProgramReport.phase_seconds` lists them.
PHASES = ("reading", "nominal configurations", "timing", "solving", "checks", "writing")


@dataclass
class ProgramReport(Report):
    """What :func:`compensate_program` did."""

    program: str
    language: str
    robot: str
    deformation: str
    output: str
    time_form: str
    out: Path | None
    n_motions: int
    n_points: int
    n_changed_texts: int
    summary: CompensationSummary
    timing: Timing
    rounding_position: float = 0.0
    rounding_angle: float = 0.0
    rounding_bound: float = 0.0
    reach: float = 0.0
    written_bytes: int = 0
    rows: Sequence[MotionRow] = field(default_factory=list)
    unsupported: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    feasibility: list[str] = field(default_factory=list)
    #: Wall time of each phase [s], in order: reading the program, nominal configurations, timing, solving,
    #: checks (feasibility), writing (the program's text; the files are committed after).
    phase_seconds: dict[str, float] = field(default_factory=dict)
    #: The plot asked for (``--plot``), as given.
    plot: PathLike | None = None
    #: The files the run wrote, once they are all committed (:func:`thermocomp.application.run_job`).
    written: list[Path] = field(default_factory=list)

    def closing_lines(self) -> list[str]:
        return [] if self.plot is None else [f"wrote {self.plot}"]

    def warnings(self) -> list[str]:
        return [f"{len(self.unsupported)} construct(s) left as written, not compensated"] if self.unsupported else []

    def failure_text(self) -> str:
        lines = [f"{len(self.failed)} point(s) of {self.program} could not be compensated:"]
        lines += [f"  {f}" for f in self.failed[:20]]
        if len(self.failed) > 20:
            lines.append(f"  ... and {len(self.failed) - 20} more")
        lines.append("Nothing was written. Rerun with --allow-failures to write the program with those targets "
                     "left as they were.")
        return "\n".join(lines)

    def text(self) -> str:
        t = self.timing
        s = self.summary
        lines = [
            f"{self.language} program {self.program}: {self.n_motions} motions, {self.n_points} points; robot "
            f"{self.robot}; deformation {self.deformation}",
            f"time: {self.time_form}",
            f"timing estimate: cycle {t.estimated_cycle_s:.3g} s"
            + (f", rescaled to {t.cycle_s:.6g} s" if t.cycle_s != t.estimated_cycle_s else "")
            + f"; {t.cycles} cycle(s), {t.total_min:.4g} min",
            f"output: {self.output}; {self.n_changed_texts} target text(s) changed",
        ]
        if s.n_rows:
            lines.append(f"solves: {s.n_rows:,}, " + ", ".join(f"{v:,} {k}" for k, v in s.status_counts.items() if v)
                         + f"; largest residual {s.max_position_error * 1e3:.3g} mm, "
                         f"{np.degrees(s.max_orientation_error):.3g} deg")
            lines.append(f"uncompensated, the deformed robot would miss by up to {s.uncompensated_max_position * 1e3:.4g} mm"
                         f" and {np.degrees(s.uncompensated_max_angle):.4g} deg")
        lines.append(
            f"rounding of the written numbers (32-bit, as the controller stores them): up to "
            f"{self.rounding_position * 1e3:.3g} mm and {np.degrees(self.rounding_angle):.3g} deg at the TCP "
            f"(bound at the program's reach {self.reach * 1e3:.0f} mm: {self.rounding_bound * 1e3:.3g} mm)"
        )
        if self.output == "joints":
            lines.append("note: joint targets change the interpolation of linear and circular moves (MoveL/MoveC, "
                         "movel/movep/movec): the robot moves joint-interpolated between the targets")
        for title, items in (("unsupported (left as written)", self.unsupported), ("notes", self.notes),
                             ("failed (left as written)", self.failed), ("feasibility", self.feasibility)):
            if items:
                lines.append(f"{title}:")
                lines += [f"  {x}" for x in items[:50]]
                if len(items) > 50:
                    lines.append(f"  ... and {len(items) - 50} more")
        if self.phase_seconds:
            lines.append("phases: " + ", ".join(f"{k} {v:.2f} s" for k, v in self.phase_seconds.items()))
        if self.out is not None:
            lines.append(f"wrote {self.out} ({self.written_bytes:,} bytes)")
        return "\n".join(lines)

    def csv_text(self) -> str:
        """One row per motion: motion, source line, minute, what changed and by how much, findings."""
        out = [REPORT_CSV_HEAD]
        for r in self.rows:
            findings = "; ".join(r.findings).replace('"', '""')
            out.append(f"{r.motion},{r.instruction},{r.line},{r.minute_first:.6g},{r.minute_last:.6g},"
                       f"{r.change_mm:.6g},{r.change_deg:.6g},{r.joint_change_deg:.6g},{r.status},\"{findings}\"")
        return "\n".join(out) + "\n"


#: The first line of the program report's CSV (``report.csv`` beside ``--program-report report.txt``).
REPORT_CSV_HEAD = ("motion,instruction,line,minute_first,minute_last,change_mm,change_deg,joint_change_deg,status,"
                   "findings")


def read_program(path: PathLike, progress: ProgressCallback | None = None,
                 rapid: RapidOptions | None = None) -> RobotProgram:
    """Read a RAPID (``.mod``, ``.modx``, ``.prg``, ``.sys``) or URScript (``.script``, ``.urscript``) file.

    ``progress(motions, None)`` hears of a long RAPID module's motions as they are followed; ``rapid``: the
    task's other modules, entry routine, external routines (:class:`~thermocomp.programs.rapid.RapidOptions`).
    """
    from thermocomp.programs.rapid import RAPID_SUFFIXES, read_rapid

    suffix = Path(path).suffix.lower()
    try:
        if suffix in RAPID_SUFFIXES:
            return read_rapid(path, progress, rapid)
        if suffix in URSCRIPT_SUFFIXES:
            from thermocomp.programs.urscript import read_urscript

            options = RapidOptions() if rapid is None else rapid
            return read_urscript(path, options.max_motions, options.modules)
    except RecursionError:  # the readers evaluate nested expressions recursively: Offs(Offs(...)) 2000 deep
        raise InputError("an expression or a value nested too deeply to follow (thousands of levels of "
                         "brackets or calls)", path=str(path)) from None
    raise InputError(f"expected a robot program ending in {', '.join(RAPID_SUFFIXES + URSCRIPT_SUFFIXES)}, "
                     f"got {Path(path).name!r}", path=str(path))


def _suffixes_of(language: str) -> tuple[str, ...]:
    from thermocomp.programs.rapid import RAPID_SUFFIXES

    return RAPID_SUFFIXES if language == "rapid" else URSCRIPT_SUFFIXES


def _language_of(path: PathLike) -> str:
    """``"rapid"`` or ``"urscript"`` from the program's extension (any other is refused, naming ``--program``)."""
    from thermocomp.programs.rapid import RAPID_SUFFIXES

    suffix = Path(path).suffix.lower()
    if suffix not in RAPID_SUFFIXES + URSCRIPT_SUFFIXES:
        raise InputError(f"--program: expected a robot program ending in {', '.join(RAPID_SUFFIXES + URSCRIPT_SUFFIXES)}"
                         f", got {Path(path).name!r}", path=str(path))
    return "rapid" if suffix in RAPID_SUFFIXES else "urscript"


@dataclass(frozen=True, eq=False)
class PointPoses:
    """Every point of a program, in execution order, as arrays (world frame, SI)."""

    T_world_tcp: FloatArray  # (m, 4, 4)
    T_world_flange: FloatArray  # (m, 4, 4)
    q_given: FloatArray  # (m, n), nan where the point is Cartesian
    is_joint: np.ndarray  # (m,)
    T_flange_tcp: FloatArray  # (m, 4, 4): each point's tool


def point_poses(chain: Chain, points: ProgramColumns | tuple[Point, ...]) -> PointPoses:
    """The TCP and flange targets of the program's points (its :attr:`~RobotProgram.columns`, or the points);
    joint targets through the nominal FK with their tool."""
    cols = points if isinstance(points, ProgramColumns) else \
        ProgramColumns.of((MotionRun.of_motions([Motion("", LINEAR, tuple(points), _NO_SPAN, _NO_SPAN)]),))
    run = cols.run
    m, n = len(run.text), chain.n_joints
    is_joint = run.q_len > 0
    wrong = np.flatnonzero(is_joint & (run.q_len != n))
    if wrong.size:
        i = int(wrong[0])
        raise InputError(f"a joint target of {run.q_len[i]} joints, {chain.name} has {n}", row=int(run.argument[i, 2]))
    q_given = np.full((m, n), np.nan)
    if np.any(is_joint):
        q_given[is_joint] = run.q[is_joint, :n]
    T_flange_tcp = cols.T_flange_tcp if m else np.zeros((0, 4, 4))
    cartesian = ~is_joint
    at_base = np.array_equal(chain.T_world_base, np.eye(4))
    if at_base and not np.any(is_joint):
        T_world_tcp = run.T_world_tcp  # (read only, as the run's)
    else:
        T_world_tcp = np.empty((m, 4, 4))
    if np.any(cartesian) and T_world_tcp is not run.T_world_tcp:  # the program's world is the robot base
        T_world_tcp[cartesian] = run.T_world_tcp[cartesian] if at_base \
            else chain.T_world_base @ run.T_world_tcp[cartesian]  # (the identity's product: the same bits)
    if np.any(is_joint):
        R, pos = fk(nominal_model(chain), q_given[is_joint])
        T_world_tcp[is_joint] = transform(R, pos) @ T_flange_tcp[is_joint]
    tools_inverse = invert_transform(cols.frame_table(1))[run.frame] if run.frames and m \
        else invert_transform(T_flange_tcp)  # (each tool inverted once)
    T_world_flange = T_world_tcp @ tools_inverse
    return PointPoses(T_world_tcp, T_world_flange, q_given, is_joint, T_flange_tcp)


_NO_SPAN = Span(0, 0, 0, 0)


def nominal_configurations(chain: Chain, program: RobotProgram, poses: PointPoses,
                           options: CompensationOptions) -> tuple[FloatArray, np.ndarray]:
    """Nominal joint angles of every point and their status, ``(m, n)`` and ``(m,)``.

    Joint targets keep their joints. Cartesian targets continue along the
    program from the point before (as the controller moves); RAPID points
    then must match their confdata (else they are searched in that
    configuration, nearest home), UR points take the continuation (UR's
    controller picks the solution nearest the current joints), and so do
    RAPID points whose confdata the controller ignores (run under
    ``ConfL \\Off`` or ``ConfJ \\Off``: :func:`confdata_free`).
    """
    model = nominal_model(chain)
    T = poses.T_world_flange
    m = T.shape[0]
    kwargs = dict(starts=options.starts, seed=options.seed, options=options.ik)
    q = np.empty((m, chain.n_joints))
    status = np.zeros(m, dtype=np.int8)
    joint = poses.is_joint
    q[joint] = poses.q_given[joint]
    # the pieces between joint targets continue from the joint target before them
    cuts = np.flatnonzero(joint)
    starts = np.r_[0, cuts + 1]
    ends = np.r_[cuts, m]
    for a, b in zip(starts.tolist(), ends.tolist()):
        if b <= a:
            continue
        if a > 0:
            q_start = q[a - 1]
        else:
            first = solve_nominal_configuration(model, T[:1, :3, :3], T[:1, :3, 3], chain.home[None], **kwargs)
            q_start = first.q[0]
        part = solve_path(model, T[a:b, :3, :3], T[a:b, :3, 3], q_start, measure_singularity=False, **kwargs)
        q[a:b], status[a:b] = part.q, part.status  # (the joints and statuses: no singular values needed)
    if program.language == "rapid":
        cartesian = np.flatnonzero(~joint)
        bound = cartesian[~confdata_free(program)[cartesian]]  # (the others: the continuation, as the controller)
        wanted = program.columns.run.confdata[bound].astype(int)
        ok = near_configuration(model, q[bound], wanted) & (status[bound] == Status.CONVERGED)
        turned = bound[ok][np.flatnonzero(np.any(quadrants(q[bound[ok]]) != wanted[ok, :3], axis=1))]
        q[turned] = to_quadrants(q[turned], program.columns.run.confdata[turned].astype(int))  # (whole turns)
        redo = bound[~ok]
        if redo.size:
            prog = Targets(names=tuple(str(i) for i in redo), R_world_tcp=T[redo, :3, :3], p_world_tcp=T[redo, :3, 3],
                           q_reference=np.tile(chain.home, (redo.size, 1)), confdata=wanted[~ok])
            found = nominal_solutions(chain, prog, options)
            q[redo], status[redo] = found.q, found.status
        inside = chain.within_limits(q[cartesian])
        status[cartesian] = np.where((status[cartesian] == Status.CONVERGED) & ~inside, np.int8(Status.JOINT_LIMIT),
                                     status[cartesian])
    return q, status


def confdata_free(program: RobotProgram) -> np.ndarray:
    """``(m,)`` True for each point whose motion ran with its confdata ignored (RAPID ``ConfL \\Off`` for linear
    and circular moves, ``ConfJ \\Off`` for joint moves: the controller takes the configuration nearest the
    robot's joints, ABB "RAPID Instructions", ConfL)."""
    run = program.columns.run
    free = program.extra.get("confdata_free", frozenset())
    if not free:
        return np.zeros(len(run.text), dtype=bool)
    return np.repeat(np.isin(run.statement[:, 0], np.fromiter(free, dtype=np.int64, count=len(free))), run.n_points)


def near_configuration(model, q: FloatArray, wanted: np.ndarray) -> np.ndarray:
    """True where ``q`` ``(m, 6)`` has the programmed ``cfx`` and axes 1, 4, 6 within one quadrant of ``wanted``.

    A robtarget derived with ``Offs`` or ``RelTool`` keeps the confdata of the
    point it starts from, though a tool rotation may move axis 6 into the
    next quadrant; the solution nearest the program's path is then the one
    meant. Whole turns are compared modulo 4 quadrants.
    """
    got = confdata_from_q(model, q)
    step = (got[:, :3] - wanted[:, :3]) % 4
    return (got[:, 3] == wanted[:, 3]) & np.all((step <= 1) | (step == 3), axis=1)


def compensate_program(
    robot: str | Chain,
    deformation: PathLike | DeformationTable,
    program: PathLike,
    out: PathLike | None = None,
    *,
    options: CompensationOptions | None = None,
    program_options: ProgramOptions | None = None,
    allow_failures: bool = False,
    results: PathLike | None = None,
    report: PathLike | None = None,
    progress: ProgressCallback | None = None,
    robot_options: RobotFileOptions | None = None,
    plot: PathLike | None = None,
    job: Job | None = None,
) -> ProgramReport:
    """Compensate the robot program ``program`` and write it to ``out``.

    Parameters
    ----------
    robot
        Built-in name or robot file; its tool row must be the flange (the
        program's tooldata / ``set_tcp`` is the tool); a ``.urdf`` / ``.xacro`` file is read with
        ``robot_options`` (:mod:`thermocomp.io.robot_files`).
    deformation
        The paper's deformation CSV or a :class:`DeformationTable`.
    program
        RAPID or URScript file (format from the extension).
    out
        The compensated program (same language); ``None`` writes nothing.
    options
        Time law and solver settings (``minutes`` is not used: the time form is in ``program_options``).
    program_options
        Output form, time form, timing, what to do with unsupported constructs.
    allow_failures
        Write even if some points fail (they keep their text, the report lists them).
    results
        Also write the results CSV (one row per solve, as the CSV path).
    report
        Also write the program report: ``<report>`` as text and ``<report stem>.csv`` one row per motion.
    plot
        Also draw the errors and corrections per minute as PNG
        (:func:`thermocomp.plotting.plot_png`), written with the other outputs, all or none.
    job
        The :class:`~thermocomp.io.job.Job` of a larger run, which then commits; default a job of its own
        (:func:`thermocomp.application.run_job`).

    Raises
    ------
    InputError
        Bad input or an unsupported construct with ``unsupported="refuse"``
        (every one named with file, line and column); nothing written.
    CompensationFailed
        Points failed and ``allow_failures`` is False; nothing written.
    """
    popts = ProgramOptions() if program_options is None else program_options
    language = _language_of(program) if isinstance(program, (str, Path)) else None
    if out is not None and language is not None and Path(out).suffix.lower() not in _suffixes_of(language):
        raise InputError(f"--out: the output must be in the program's language: expected an extension among "
                         f"{', '.join(_suffixes_of(language))}, got {Path(out).suffix!r}", path=str(out))
    outputs = ProgramOutputs(out=None if out is None else Path(out), results=results, report=report, plot=plot)

    def work(job: Job, bound: RobotAndTable) -> ProgramReport:
        with paused():  # the program's objects live as long as the job (thermocomp._gc)
            rep, writes = _compensate_program(bound, program, popts, outputs, allow_failures, progress)
        for dest, write in writes:
            job.write_with(dest, write)
        return rep

    files = Declared(inputs=[(file_of(program), "--program"), *((m, "--module") for m in popts.rapid.modules)],
                     outputs=[(out, "--out"), (results, "--results"), (report, "--program-report"),
                              (outputs.report_csv, "--program-report (its CSV)", REPORT_CSV_HEAD.encode(),
                               "a program report CSV"),
                              (plot, "--plot")])
    return run_job(robot, deformation, work, files, options=options, robot_options=robot_options, job=job)


@dataclass(frozen=True)
class ProgramOutputs:
    """The files a program's compensation writes (``None``: not written): the program, the results CSV, the
    report (text, and its CSV beside it), the plot."""

    out: Path | None = None
    results: PathLike | None = None
    report: PathLike | None = None
    plot: PathLike | None = None

    @property
    def report_csv(self) -> Path | None:
        """The report's CSV: the report's name with ``.csv``."""
        return None if self.report is None else Path(self.report).with_suffix(".csv")


class _Phases:
    """The wall time of each phase of :func:`compensate_program` (:data:`PHASES`), and the progress bar's phase."""

    def __init__(self, progress: ProgressCallback | None) -> None:
        self.seconds: dict[str, float] = {}
        self.clock = time.perf_counter()
        self.progress = progress
        self.bar = _phase_progress(progress)  # a bar that knows phases (the CLI's --progress), else None

    def start(self, name: str) -> None:
        announce_phase(self.progress, name, None)

    def end(self, name: str, done: int | None = None, then: str | None = None) -> None:
        """Phase ``name`` ended (``done`` rows, drawn as finished), ``then`` starts."""
        now = time.perf_counter()
        self.seconds[name] = self.seconds.get(name, 0.0) + now - self.clock
        self.clock = now
        if self.bar is not None and done is not None:
            self.bar(done, done)
        if then is not None:
            self.start(then)


def _compensate_program(bound: RobotAndTable, program: PathLike, popts: ProgramOptions, outputs: ProgramOutputs,
                        allow_failures: bool, progress: ProgressCallback | None):
    """The work of :func:`compensate_program`: returns the report and ``(destination, write)`` pairs."""
    chain, table, options = bound.chain, bound.table, bound.options
    phases = _Phases(progress)
    phases.start("reading")
    prog = _read_checked(program, popts, phases.bar)
    m = len(prog.columns.run.text)
    poses = point_poses(chain, prog.columns)
    phases.end("reading", m, then="nominal configurations")
    q_nominal, nominal_status = nominal_configurations(chain, prog, poses, options)
    phases.end("nominal configurations", m)
    timing = estimate_timing(chain, prog, poses.T_world_tcp, q_nominal, popts.timing)
    phases.end("timing", then="solving")
    # joint targets are home and via positions: left as written unless asked (ProgramOptions.joint_targets)
    kept = poses.is_joint if popts.joint_targets == "keep" else np.zeros(m, dtype=bool)
    rows = np.flatnonzero(~kept)  # the core's points
    core_program, run_options, time_form = _timed_program(prog, poses, q_nominal, timing, options, popts, rows)
    solved = _solve(chain, table, core_program, run_options, q_nominal, nominal_status, rows,
                    indexed=popts.indexed_minutes is not None, keep_chunks=outputs.results is not None,
                    progress=progress)
    joint_notes = _keep_joint_targets(chain, prog, poses, q_nominal, kept, solved)
    rep = ProgramReport(program=prog.path, language=prog.language, robot=chain.name, deformation=table.source,
                        output=popts.output, time_form=time_form, out=outputs.out, n_motions=len(prog.columns.run.instruction),
                        n_points=m, n_changed_texts=0, summary=solved.summary, timing=timing, plot=outputs.plot)
    rep.unsupported = [f.text(prog.path) for f in prog.unsupported]
    rep.notes = [f.text(prog.path) for f in prog.notes] + joint_notes
    run = prog.columns.run
    failed = np.flatnonzero(solved.status != Status.CONVERGED)
    rep.failed = [f"{prog.path}:{run.argument[i, 2]}:{run.argument[i, 3]}: "
                  f"{Status(int(solved.status[i])).label}" for i in failed]
    if failed.size and not allow_failures:
        rep.out = None  # nothing is written: its text must not say "wrote"
        raise CompensationFailed(rep)

    from thermocomp.programs import feasibility

    # the TCP poses of the versions, which the checks and the snapshot writer both read
    R_tcp, p_tcp = tcp_poses(solved.R_checked, solved.p_checked, poses.T_flange_tcp)
    phases.end("solving", then="checks")  # (collecting the chunks' joints)
    rep.rows, rep.feasibility = feasibility.check_program(chain, prog, poses, q_nominal, solved.q_checked, timing,
                                                          solved.status, linear_form=popts.output == "filtered",
                                                          tcp=(R_tcp, p_tcp))
    phases.end("checks", len(run.instruction), then="writing")
    if popts.indexed_minutes is not None:
        from thermocomp.programs import indexed

        written = indexed.write_indexed(chain, prog, poses, solved.q_checked, solved.minutes, solved.status,
                                        popts.output, tcp=(R_tcp, p_tcp))
    else:
        written = write_snapshot(chain, prog, poses, solved.q_checked[0], solved.status, popts.output,
                                 tcp=(R_tcp[0], p_tcp[0]))
        rep.notes += confdata_notes(prog, *written.confdata_changed)
    rep.n_changed_texts = written.n_changed
    rep.rounding_position, rep.rounding_angle = written.rounding
    rep.reach = float(np.max(np.linalg.norm(poses.T_world_tcp[:, :3, 3] - chain.T_world_base[:3, 3], axis=1)))
    rep.rounding_bound = rounding_bound(rep.reach)
    rep.written_bytes = len(written.data)
    phases.end("writing", m)
    rep.phase_seconds = {k: phases.seconds[k] for k in PHASES}
    return rep, _writes(rep, written.data, solved.chunks, () if core_program is None else core_program.names,
                        chain.n_joints, outputs)


def _read_checked(program: PathLike, popts: ProgramOptions, bar: ProgressCallback | None) -> RobotProgram:
    """The program as read, refused (nothing written) when it has an unsupported construct and ``popts`` refuses
    them, when it runs no motion, or when its motions have no joints form and ``popts`` asks for it."""
    prog = read_program(program, bar, popts.rapid)
    if prog.unsupported and popts.unsupported == "refuse":
        listed = "\n".join("  " + f.text(prog.path) for f in prog.unsupported)
        first = prog.unsupported[0]
        raise InputError(f"{len(prog.unsupported)} construct(s) cannot be followed exactly:\n{listed}\n"
                         "Nothing was written. Rerun with --unsupported keep to leave them as written "
                         "(their motions are then not compensated).", path=prog.path, row=first.line,
                         column=first.column)
    if not len(prog.columns.run.text):
        unrun = "; ".join(f"{name}: {n} motions, not called from {' and '.join(prog.entry) or 'the entry'}; rerun "
                          f"with --entry {name}" for name, n in prog.extra.get("unrun", ()))
        raise InputError(f"no motion to compensate was found: {' and '.join(prog.entry) or 'the entry routine'} "
                         f"runs none{'; ' + unrun if unrun else ''}", path=prog.path)
    if popts.output == "joints":
        _check_joints_form(prog)
    return prog


def _timed_program(prog: RobotProgram, poses: PointPoses, q_nominal: FloatArray, timing: Timing,
                   options: CompensationOptions, popts: ProgramOptions, rows: np.ndarray
                   ) -> tuple[Targets | None, CompensationOptions, str]:
    """The core's program of the flange targets of the points ``rows`` (None if there are none) at the minutes of
    ``popts``'s time form, the options to solve it with, and the time form's description."""
    run = prog.columns.run
    m = len(run.text)
    time_law = options.time_law
    names = _point_names(prog)
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
        return Targets(**flange) if len(rows) else None, replace(options, minutes=minutes), time_form
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
    return Targets(**flange, time_min=minute[rows]) if len(rows) else None, options, time_form


def _point_names(prog: RobotProgram) -> tuple[str, ...]:
    """The name of each point in the results: its place in the program, its line, and its declared name."""
    run = prog.columns.run
    return tuple([f"{i}:line{line}:{name}" if name else f"{i}:line{line}"
                  for i, line, name in zip(range(1, len(run.text) + 1), run.argument[:, 2].tolist(),
                                           run.name_of_point)])


def program_targets(chain: Chain, program: PathLike, options: CompensationOptions | None = None) -> Targets:
    """The motion targets of a robot program as the core's :class:`Targets`, in execution order (one cycle).

    Each point is its flange target in the world frame (the program's tool taken off, the robot standing
    where ``chain.T_world_base`` puts it), with the nominal configuration the controller takes
    (:func:`nominal_configurations`) as its reference joints, named as in the results CSV of
    :func:`compensate_program`. What ``thermocomp sim --program`` plays.

    Raises
    ------
    InputError
        As :func:`compensate_program` reading the program (an unsupported construct refused, no motion).
    """
    options = CompensationOptions() if options is None else options
    prog = _read_checked(program, ProgramOptions(), None)
    poses = point_poses(chain, prog.columns)
    q_nominal, _ = nominal_configurations(chain, prog, poses, options)
    return Targets(names=_point_names(prog), R_world_tcp=poses.T_world_flange[:, :3, :3],
                   p_world_tcp=poses.T_world_flange[:, :3, 3], q_reference=q_nominal, source=prog.path)


@dataclass(frozen=True, eq=False)
class _Solved:
    """The compensated versions of a program's points: one per minute written (a time-indexed program), or the
    snapshot; with the nominal robot's flange poses at their joints (the chunks' filtered poses)."""

    minutes: FloatArray  # (k,): the minutes written, or [0] for the snapshot
    q_checked: FloatArray  # (k, m, n)
    R_checked: FloatArray  # (k, m, 3, 3)
    p_checked: FloatArray  # (k, m, 3)
    status: np.ndarray  # (m,): the first failure of each point over the versions, else CONVERGED
    summary: CompensationSummary
    chunks: list[CompensationChunk]  # kept only for the results CSV


def _solve(chain: Chain, table: DeformationTable, core_program: Targets | None, run_options: CompensationOptions,
           q_nominal: FloatArray, nominal_status: np.ndarray, rows: np.ndarray, *, indexed: bool, keep_chunks: bool,
           progress: ProgressCallback | None) -> _Solved:
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
    return _Solved(minutes, q_checked, R_checked, p_checked, status, summary, chunks)


def _keep_joint_targets(chain: Chain, prog: RobotProgram, poses: PointPoses, q_nominal: FloatArray, kept: np.ndarray,
                        solved: _Solved) -> list[str]:
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


def _writes(rep: ProgramReport, data: bytes | np.ndarray, chunks: list[CompensationChunk], names: tuple[str, ...],
            n_joints: int, outputs: ProgramOutputs) -> list[tuple[PathLike, Callable[[Path], object]]]:
    """``(destination, write)`` of every output asked for: all drawn before any is written, so all appear
    together or none (docs/jobs.md)."""
    writes: list[tuple[PathLike, Callable[[Path], object]]] = []
    if outputs.out is not None:
        writes.append((outputs.out, lambda path: Path(path).write_bytes(data)))
    if outputs.results is not None:
        def write_results(path: Path) -> None:
            convention = "quat_wxyz" if rep.language == "rapid" else "rotvec"
            with results_writer(path, n_joints, convention) as handle:
                for chunk in chunks:
                    handle.write(chunk, names)
        writes.append((outputs.results, write_results))
    if outputs.report is not None:
        writes.append((outputs.report, lambda path: Path(path).write_text(rep.text() + "\n", encoding="utf-8")))
        writes.append((outputs.report_csv, lambda path: Path(path).write_text(rep.csv_text(), encoding="utf-8")))
    if outputs.plot is not None:
        from thermocomp.plotting import plot_png

        png = plot_png(rep.summary, title=rep.program, where="--plot")
        writes.append((outputs.plot, lambda path: Path(path).write_bytes(png)))
    return writes


def confdata_notes(prog: RobotProgram, points: np.ndarray, written: np.ndarray) -> list[str]:
    """A line for each written robtarget whose confdata differs from the program's: where, and why (written by
    arrow: a toolpath program has thousands)."""
    run = prog.columns.run
    line, column = (pc.cast(pa.array(run.argument[points, k]), pa.string()) for k in (2, 3))
    why = pc.if_else(pa.array(confdata_free(prog)[points]),
                     "its motion runs under ConfL \\Off or ConfJ \\Off, where the controller ignores confdata: "
                     "written from the solution nearest the motion before",
                     "the corrected joints lie in another quadrant (cf1, cf4, cf6) or wrist configuration (cfx) than "
                     "the program's")
    return pc.binary_join_element_wise(f"{prog.path}:", line, ":", column, ": confdata written [",
                                       w.confdata_texts(written), "], read [",
                                       w.confdata_texts(run.confdata[points]), "]: ", why, "").to_pylist()


def rounding_bound(reach: float) -> float:
    """Largest TCP position error [m] of writing x, y, z in mm as 32-bit floats at ``reach`` [m]: half a unit
    in the last place per coordinate, ``sqrt(3) / 2 * ulp``."""
    return float(np.sqrt(3.0) / 2.0 * np.spacing(np.float32(reach * 1e3)) * 1e-3)


def _check_joints_form(prog: RobotProgram) -> None:
    if prog.language == "rapid":
        from thermocomp.programs.rapid import MOTIONS

        run = prog.columns.run
        process = [i for i, name in enumerate(run.instruction) if name.lower() not in MOTIONS]
        if process:
            i = process[0]
            raise InputError(f"{run.instruction[i]} has no joint form (its process arguments belong to a "
                             "Cartesian move): --program-output joints cannot write it (use --program-output "
                             "filtered)", path=prog.path, row=int(run.statement[i, 2]),
                             column=int(run.statement[i, 3]))
    if prog.language == "urscript":
        bad = np.flatnonzero(prog.columns.run.kind == _KIND_CODE[CIRCULAR])
        if bad.size:
            raise InputError("movec has no joint form: --program-output joints cannot write it "
                             "(use --program-output filtered)", path=prog.path,
                             row=int(prog.columns.run.statement[bad[0], 2]))


@dataclass(frozen=True)
class Written:
    """A written program (its latin-1 bytes as the file will hold them), how many target texts changed, and the
    rounding the text leaves."""

    data: bytes
    n_changed: int
    rounding: tuple[float, float]  # largest TCP position [m] and orientation [rad] error of the written numbers
    #: The points (indices) whose written robtarget carries other confdata than the program's, and that confdata.
    confdata_changed: tuple[np.ndarray, np.ndarray] = (np.zeros(0, dtype=np.int64), np.zeros((0, 4), dtype=np.int64))

    @property
    def text(self) -> str:
        return self.data.decode("latin-1")


def write_snapshot(chain: Chain, prog: RobotProgram, poses: PointPoses, q: FloatArray, status: np.ndarray,
                   output: str, tcp: tuple[FloatArray, FloatArray] | None = None) -> Written:
    """The program with each point's text replaced by its compensated value (one minute).

    ``tcp``: the nominal robot's TCP poses at ``q`` (world frame: :func:`tcp_poses` of ``fk(nominal_model(chain),
    q)``), where the caller has them (from the compensation's filtered poses).
    """
    nominal = nominal_model(chain)
    cols = prog.columns
    extax_of = cols.run.extax
    R_tcp, p_tcp = tcp_poses(*fk(nominal, q), poses.T_flange_tcp) if tcp is None else tcp
    at_base = np.array_equal(chain.T_world_base, np.eye(4))  # (the program's world frame is the robot base)
    conf = confdata_from_q(nominal, q) if prog.language == "rapid" and chain.n_joints == 6 else None
    rapid = prog.language == "rapid"
    m = len(extax_of)
    ok = status == Status.CONVERGED
    is_joint = poses.is_joint
    joint_text = ok & (is_joint | (output == "joints"))
    pose_text = ok & ~joint_text
    # what changed, in batch: joints against the written ones, poses against the program's (its world frame)
    changed = np.zeros(m, dtype=bool)
    changed[joint_text & ~is_joint] = True
    jt = np.flatnonzero(joint_text & is_joint)
    changed[jt] = row_max_abs(q[jt] - poses.q_given[jt]) > w.KEEP_ANGLE
    pt = np.flatnonzero(pose_text)
    miss = pose_errors(R_tcp[pt], p_tcp[pt], poses.T_world_tcp[pt, :3, :3], poses.T_world_tcp[pt, :3, 3])  # (world)
    changed[pt] = (row_norms(miss[:, :3]) > w.KEEP_POSITION) | (row_norms(miss[:, 3:]) > w.KEEP_ANGLE)
    written_at: list[np.ndarray] = []  # the points given a text, and their texts, in that order
    texts: list[pa.StringArray] = []
    error_position, error_angle = [0.0], [0.0]
    # joint texts
    jw = np.flatnonzero(joint_text & changed)
    if jw.size:
        shown = np.degrees(q[jw]) if rapid else q[jw]
        written_at.append(jw)
        texts.append(w.jointtarget_texts(shown, [extax_of[i] for i in jw.tolist()]) if rapid
                     else w.list_texts(shown, "["))
        back = w.stored_singles(shown)
        q_back = np.radians(back) if rapid else back
        R_a, p_a = fk(nominal, q[jw])
        R_b, p_b = fk(nominal, q_back)
        error_position.append(float(row_norms(p_b - p_a).max()))
        error_angle.append(_largest_turn(R_a, R_b))
    # pose texts
    pw = np.flatnonzero(pose_text & changed)
    if pw.size:
        # in each point's work object: each frame inverted once, and no product where every frame is the world's
        # (the identity's product gives the same bits)
        frames = cols.frame_table(0)
        in_world = all(np.array_equal(frames[f], np.eye(4)) for f in np.unique(cols.run.frame[pw]).tolist())
        if in_world and at_base:
            R_frame, p_frame = R_tcp[pw], p_tcp[pw]
        else:  # in the program's world frame, the robot base (docs/conventions.md), then in the work object
            T_world_tcp = transform(R_tcp[pw], p_tcp[pw])
            T_world_tcp = T_world_tcp if at_base else invert_transform(chain.T_world_base) @ T_world_tcp
            T_frame = T_world_tcp if in_world else invert_transform(frames)[cols.run.frame[pw]] @ T_world_tcp
            R_frame, p_frame = T_frame[:, :3, :3], T_frame[:, :3, 3]
        if rapid:
            quat = w.quat_in_hemisphere(quat_wxyz_from_matrix(R_frame), cols.run.quat[pw])
            shown = np.hstack([p_frame * 1e3, quat])
            texts.append(w.robtarget_texts(shown, conf[pw], [extax_of[i] for i in pw.tolist()]))
            back = w.stored_singles(shown)
            from thermocomp.programs.rapid import transforms_from_poses

            T_back = transforms_from_poses(back)  # (as the reader reads the written robtargets)
            R_back, p_back = T_back[:, :3, :3], T_back[:, :3, 3]
        else:
            shown = np.hstack([p_frame, rotvec_from_matrix(R_frame)])
            texts.append(w.list_texts(shown, "p["))
            back = w.stored_singles(shown)
            R_back = matrix_from_rotvec(back[:, 3:])
            p_back = back[:, :3]
        error_position.append(float(row_norms(p_back - p_frame).max()))
        error_angle.append(_largest_turn(R_frame, R_back))
        written_at.append(pw)
    conf_changed = (np.zeros(0, dtype=np.int64), np.zeros((0, 4), dtype=np.int64))
    if rapid and conf is not None and pw.size:
        differs = pw[cols.run.has_confdata[pw] & np.any(conf[pw] != cols.run.confdata[pw], axis=1)]
        conf_changed = (differs, conf[differs])
    written = np.concatenate(written_at) if written_at else np.zeros(0, dtype=np.int64)
    new = pa.concat_arrays(texts) if texts else pa.array([], pa.string())
    if output != "joints" and cols.plain:  # each point its own inline text: each writes its text (w.place_values)
        spans = cols.run.text[written]
        data = w.apply_edits(prog.text, w.Edits(spans[:, 0], spans[:, 1], new), prog.path,
                             w.COMMENT_STARTS[prog.language])
        return Written(data, len(new), (max(error_position), max(error_angle)), conf_changed)
    values: list[str | None] = [None] * m
    for i, text in zip(written.tolist(), new.to_pylist()):
        values[i] = text
    if output == "joints" and cols.plain:
        data, n_changed = _joints_form_spliced(prog, values, ok, is_joint)
        if data is not None:
            return Written(data, n_changed, (max(error_position), max(error_angle)))
    points = prog.points
    at_argument = (~is_joint).tolist() if output == "joints" else [False] * m
    edits: list[w.Edit] = []
    if output == "joints":
        first = 0
        for motion in prog.motions:
            own = slice(first, first + len(motion.points))
            first += len(motion.points)
            if motion.kind != ABSOLUTE_JOINT and not all(p.is_joint for p in motion.points) and np.all(ok[own]):
                edits.extend(_joint_instruction_edits(prog, motion))
    # a MoveC in joints form is rewritten as a whole statement; its points' own edits are dropped
    whole = {(mo.statement.start, mo.statement.end) for mo in prog.motions
             if output == "joints" and mo.kind == CIRCULAR}
    # a joint target replaces the whole argument (UR: get_inverse_kin(pose, qnear=...) becomes the joint list)
    placed = [replace(p, argument=p.whole_argument, text=p.whole_argument)
              if at_argument[i] and p.whole_argument is not None else p for i, p in enumerate(points)] \
        if output == "joints" else list(points)
    point_edits = w.place_values(placed, values, prog.path, at_argument=at_argument)
    point_edits = [e for e in point_edits if not any(a <= e.start and e.end <= b for a, b in whole)]
    if whole:
        edits = [e for e in edits if (e.start, e.end) in whole or not any(a <= e.start < b for a, b in whole)]
        edits += _movec_statements(prog, points, values, whole)
    all_edits = point_edits + edits
    data = w.apply_edits(prog.text, all_edits, prog.path, w.COMMENT_STARTS[prog.language])
    n_changed = len({(e.start, e.end) for e in point_edits}) + len(whole)
    return Written(data, n_changed, (max(error_position), max(error_angle)), conf_changed)


def _joints_form_spliced(prog: RobotProgram, values: list[str | None], ok: np.ndarray, is_joint: np.ndarray
                         ) -> tuple[bytes | None, int]:
    """The joints form of a program whose every point is its own inline text (:attr:`ProgramColumns.plain`), from
    its columns: each Cartesian motion whose points all converged renamed ``MoveAbsJ`` / ``movej`` and every
    point's value written at its argument (:func:`w.apply_edits`), as the general rules below write it; ``(bytes,
    points written)``, or ``(None, 0)`` for a RAPID ``MoveC`` (rewritten as two statements by those rules)."""
    run = prog.columns.run
    rapid = prog.language == "rapid"
    if rapid and np.any(run.kind == _KIND_CODE[CIRCULAR]):
        return None, 0
    new = "MoveAbsJ" if rapid else "movej"
    first = np.cumsum(run.n_points) - run.n_points
    renamed = ((run.kind != _KIND_CODE[ABSOLUTE_JOINT]) & ~np.logical_and.reduceat(is_joint, first)
               & np.logical_and.reduceat(ok, first) & (np.asarray(run.instruction) != new))
    named = np.flatnonzero(renamed)
    written = [i for i, v in enumerate(values) if v is not None]
    starts = np.concatenate([run.name[named, 0], run.argument[written, 0]])
    ends = np.concatenate([run.name[named, 1], run.argument[written, 1]])
    texts = [new] * named.size + [values[i] for i in written]
    return w.apply_edits(prog.text, w.Edits(starts, ends, texts), prog.path,
                         w.COMMENT_STARTS[prog.language]), len(written)


def _largest_turn(R_from: FloatArray, R_to: FloatArray) -> float:
    """The largest angle [rad] of the rotations ``R_to R_from^T`` ``(r, 3, 3)`` each (0 for none)."""
    return float(row_norms(turns(R_from, R_to)).max()) if len(R_from) else 0.0




def _joint_instruction_edits(prog: RobotProgram, motion: Motion) -> list[w.Edit]:
    """The instruction name of a Cartesian move in joints form: ``MoveAbsJ`` / ``movej``."""
    if motion.kind == CIRCULAR and prog.language == "rapid":
        return []
    new = "MoveAbsJ" if prog.language == "rapid" else "movej"
    if motion.instruction == new:
        return []
    return [w.Edit(motion.name.start, motion.name.end, new)]


def _movec_statements(prog: RobotProgram, points, values, whole) -> list[w.Edit]:
    """A RAPID ``MoveC via, to, rest`` in joints form: ``MoveAbsJ via, rest`` and ``MoveAbsJ to, rest``."""
    edits = []
    index = {id(p): i for i, p in enumerate(points)}
    for motion in prog.motions:
        if (motion.statement.start, motion.statement.end) not in whole:
            continue
        via, to = motion.points
        v_text, t_text = values[index[id(via)]], values[index[id(to)]]
        if v_text is None or t_text is None:
            continue
        text = prog.text
        prefix = text[motion.name.end:via.argument.start]
        rest = text[to.argument.end:motion.statement.end]
        line_start = text.rfind("\n", 0, motion.statement.start) + 1
        indent = "".join(ch for ch in text[line_start:motion.statement.start] if ch in " \t")
        new = f"MoveAbsJ{prefix}{v_text}{rest}{prog.newline}{indent}MoveAbsJ{prefix}{t_text}{rest}"
        edits.append(w.Edit(motion.statement.start, motion.statement.end, new))
    return edits


__all__ = ["REPORT_CSV_HEAD", "ProgramOptions", "ProgramOutputs", "ProgramReport", "compensate_program",
           "program_targets", "read_program", "Finding"]
