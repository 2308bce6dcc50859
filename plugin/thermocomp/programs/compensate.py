"""Compensate a robot program's points: its targets and nominal configurations (:func:`point_poses`,
:func:`nominal_configurations`), the core's targets at the time form's minutes (:func:`timed_targets`), their
compensation (:func:`solve`) and the program written (:func:`write_program`). The job around these steps is
:func:`thermocomp.app.program.compensate_program`. docs/programs.md.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from thermocomp._typing import FloatArray
from thermocomp.compensation.compensate import (
    CompensationChunk,
    CompensationOptions,
    CompensationSummary,
    ProgressCallback,
    compensate,
    nominal_solutions,
)
from thermocomp.compensation.targets import Targets
from thermocomp.deformation.table import DeformationTable
from thermocomp.deformation.timelaw import Static
from thermocomp.errors import ConfigurationError, InputError
from thermocomp.geometry.rotations import (
    invert_transform,
    matrix_from_rotvec,
    quat_wxyz_from_matrix,
    rotation_angle,
    rotvec_from_matrix,
    transform,
)
from thermocomp.geometry.vectors import row_max_abs, row_norms
from thermocomp.kinematics.confdata import confdata_from_q, near_configuration, quadrants, to_quadrants
from thermocomp.kinematics.fk import fk
from thermocomp.kinematics.ik import IKResult, Status, pose_errors, turns
from thermocomp.kinematics.model import nominal_model
from thermocomp.kinematics.seeding import solve_nominal_configuration, solve_path
from thermocomp.programs import calls, passes
from thermocomp.programs import writer as w
from thermocomp.programs.model import (
    _KIND_CODE,
    ABSOLUTE_JOINT,
    CIRCULAR,
    RobotProgram,
    target_of_world,
)
from thermocomp.programs.options import MAX_INDEXED_ENTRIES, ProgramOptions
from thermocomp.programs.timing import Timing
from thermocomp.robot.chain import Chain
from thermocomp.tolerances import IK_ORIENTATION_TOL, IK_POSITION_TOL


@dataclass(frozen=True, eq=False)
class PointPoses:
    """Every point of a program, in execution order, as arrays (world frame, SI)."""

    T_world_tcp: FloatArray  # (m, 4, 4)
    T_world_flange: FloatArray  # (m, 4, 4)
    q_given: FloatArray  # (m, n), nan where the point is Cartesian
    is_joint: np.ndarray  # (m,)
    T_flange_tcp: FloatArray  # (m, 4, 4): each point's tool


def point_poses(chain: Chain, prog: RobotProgram) -> PointPoses:
    """The TCP and flange targets of the program's points (its :attr:`~RobotProgram.run`); joint targets
    through the nominal FK with their tool."""
    run = prog.run
    m, n = len(run.text), chain.n_joints
    is_joint = run.q_len > 0
    wrong = np.flatnonzero(is_joint & (run.q_len != n))
    if wrong.size:
        i = int(wrong[0])
        raise InputError(f"a joint target of {run.q_len[i]} joints, {chain.name} has {n}", row=int(run.argument[i, 2]))
    q_given = np.full((m, n), np.nan)
    if np.any(is_joint):
        q_given[is_joint] = run.q[is_joint, :n]
    tools = prog.frame_table(1)
    T_flange_tcp = tools[run.frame]
    # the program's world is the robot base (a robot at the world's origin: the run's own array, read only)
    T_world_tcp = run.T_world_tcp if np.array_equal(chain.T_world_base, np.eye(4)) \
        else chain.T_world_base @ run.T_world_tcp
    if np.any(is_joint):
        T_world_tcp = np.array(T_world_tcp)
        R, pos = fk(nominal_model(chain), q_given[is_joint])
        T_world_tcp[is_joint] = transform(R, pos) @ T_flange_tcp[is_joint]
    T_world_flange = T_world_tcp @ invert_transform(tools)[run.frame]  # (each tool inverted once)
    return PointPoses(T_world_tcp, T_world_flange, q_given, is_joint, T_flange_tcp)


def nominal_configurations(chain: Chain, program: RobotProgram, poses: PointPoses,
                           options: CompensationOptions) -> tuple[FloatArray, np.ndarray]:
    """Nominal joint angles of every point and their status, ``(m, n)`` and ``(m,)``.

    Joint targets keep their joints. Cartesian targets continue from the point before (as the controller moves);
    RAPID points then must match their confdata (else they are searched in that configuration, nearest home),
    unless the controller ignores it (:func:`confdata_free`).
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
    for a, b in zip(np.r_[0, cuts + 1].tolist(), np.r_[cuts, m].tolist()):
        if b <= a:
            continue
        q_start = q[a - 1] if a > 0 else solve_nominal_configuration(model, T[:1, :3, :3], T[:1, :3, 3],
                                                                     chain.home[None], **kwargs).q[0]
        part = solve_path(model, T[a:b, :3, :3], T[a:b, :3, 3], q_start, measure_singularity=False, **kwargs)
        q[a:b], status[a:b] = part.q, part.status  # (the joints and statuses: no singular values needed)
    if program.language == "rapid":
        cartesian = np.flatnonzero(~joint)
        bound = cartesian[~confdata_free(program)[cartesian]]  # (the others: the continuation, as the controller)
        wanted = program.run.confdata[bound].astype(int)
        ok = near_configuration(model, q[bound], wanted) & (status[bound] == Status.CONVERGED)
        turned = bound[ok][np.flatnonzero(np.any(quadrants(q[bound[ok]]) != wanted[ok, :3], axis=1))]
        q[turned] = to_quadrants(q[turned], program.run.confdata[turned].astype(int))  # (whole turns)
        redo = bound[~ok]
        if redo.size:
            prog = Targets(names=tuple(str(i) for i in redo), R_world_tcp=T[redo, :3, :3], p_world_tcp=T[redo, :3, 3],
                           q_reference=np.tile(chain.home, (redo.size, 1)), confdata=wanted[~ok])
            found = nominal_solutions(chain, prog, options, near_quadrants=True)
            q[redo], status[redo] = found.q, found.status
        inside = chain.within_limits(q[cartesian])
        status[cartesian] = np.where((status[cartesian] == Status.CONVERGED) & ~inside, np.int8(Status.JOINT_LIMIT),
                                     status[cartesian])
    return q, status


def confdata_free(program: RobotProgram) -> np.ndarray:
    """``(m,)`` True for each point whose motion ran with its confdata ignored (RAPID ``ConfL \\Off``, ``ConfJ
    \\Off``: the configuration nearest the robot's joints, ABB "RAPID Instructions", ConfL)."""
    run = program.run
    free = program.extra.get("confdata_free", frozenset())
    return np.repeat(np.isin(run.statement[:, 0], np.fromiter(free, dtype=np.int64, count=len(free))), run.n_points)


def timed_targets(prog: RobotProgram, poses: PointPoses, q_nominal: FloatArray, timing: Timing,
                   options: CompensationOptions, popts: ProgramOptions, rows: np.ndarray
                   ) -> tuple[Targets | None, CompensationOptions, str]:
    """The core's program of the flange targets of the points ``rows`` (None if there are none) at the minutes of
    ``popts``'s time form, the options to solve it with, and the time form's description."""
    run = prog.run
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
        options, minute = replace(options, minutes=minutes), None
    elif popts.timed:
        minute = timing.point_minutes(0)
        time_form = (f"timed: each motion compensated at its estimated minute (0 to {minute.max(initial=0.0):.4g} min); "
                     f"{time_law.describe()}")
    elif popts.at_minute is not None:
        minute = np.full(m, popts.at_minute)
        time_form = f"snapshot at minute {popts.at_minute:g}; {time_law.describe()}"
    else:
        at = 0.0 if isinstance(time_law, Static) else float(time_law.stabilisation_min)
        minute = np.full(m, at)
        time_form = ("snapshot of the full table (static)" if isinstance(time_law, Static)
                     else f"snapshot of the stabilised robot (minute {at:g}, the full table); {time_law.describe()}")
    return Targets(**flange, time_min=None if minute is None else minute[rows]) if len(rows) else None, options, time_form


def point_names(prog: RobotProgram) -> tuple[str, ...]:
    """The name of each point in the results: its place in the program, its line, and its declared name."""
    run = prog.run
    return tuple([f"{i}:line{line}:{name}" if name else f"{i}:line{line}"
                  for i, line, name in zip(range(1, len(run.text) + 1), run.argument[:, 2].tolist(),
                                           run.name_of_point)])


@dataclass(frozen=True, eq=False)
class Solved:
    """The compensated versions of a program's points (one per minute written, or the snapshot), with the nominal
    robot's flange poses at their joints."""

    minutes: FloatArray  # (k,): the minutes written, or [0] for the snapshot
    q_checked: FloatArray  # (k, m, n)
    R_checked: FloatArray  # (k, m, 3, 3)
    p_checked: FloatArray  # (k, m, 3)
    status: np.ndarray  # (m,): the first failure of each point over the versions, else CONVERGED
    summary: CompensationSummary
    chunks: list[CompensationChunk]  # kept only for the results CSV


def solve(chain: Chain, table: DeformationTable, core_program: Targets | None, run_options: CompensationOptions,
           q_nominal: FloatArray, nominal_status: np.ndarray, rows: np.ndarray, *, indexed: bool, keep_chunks: bool,
           progress: ProgressCallback | None) -> Solved:
    """Compensate ``core_program``, the points ``rows`` of the program (None: none); the chunks are kept only for
    the results CSV."""
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


def check_joint_targets_within_limits(chain: Chain, prog: RobotProgram, is_joint: np.ndarray,
                                      q_nominal: FloatArray) -> None:
    """Refuse a joint target to be compensated outside a joint's limits, naming its line and column, the joint and
    its limits."""
    q = q_nominal[is_joint]
    bad = (q < chain.lower - 1e-9) | (q > chain.upper + 1e-9)
    if not bad.any():
        return
    k, j = (int(v) for v in np.argwhere(bad)[0])
    i = int(np.flatnonzero(is_joint)[k])
    run = prog.run
    deg = 180.0 / np.pi  # (every joint of a chain is revolute)
    raise InputError(f"{run.instruction[int(run.row_of_points()[i])]}: a joint target outside joint {j + 1}'s "
                     f"limits {chain.lower[j] * deg:g} .. {chain.upper[j] * deg:g} deg: {q[k, j] * deg:g} deg; "
                     "--joint-targets compensate compensates only positions the robot can take "
                     f"({int(bad.any(axis=1).sum())} such joint target(s))",
                     path=str(prog.path), row=int(run.argument[i, 2]), column=int(run.argument[i, 3]))


def keep_joint_targets(chain: Chain, prog: RobotProgram, poses: PointPoses, q_nominal: FloatArray, kept: np.ndarray,
                        solved: Solved) -> list[str]:
    """Leave joint targets as written in ``solved``: those ``kept`` ``(m,)``, and those that could not be
    compensated (no failure then). The report's notes on them."""
    unsolved = poses.is_joint & ~kept & (solved.status != Status.CONVERGED)
    written = kept | unsolved
    if not written.any():
        return []
    R, p = fk(nominal_model(chain), q_nominal[written])
    solved.q_checked[:, written], solved.R_checked[:, written], solved.p_checked[:, written] = q_nominal[written], R, p
    run = prog.run
    instruction = run.row_of_points()
    texts = {(int(run.file[instruction[i]]), int(run.argument[i, 0])) for i in np.flatnonzero(kept).tolist()}
    notes = [f"{len(texts)} joint target(s) left as written (joint positions: home and via poses); "
             "--joint-targets compensate compensates them"] if kept.any() else []
    for i in np.flatnonzero(written).tolist():  # (a text run by several passes or calls: one note, app/program.py)
        why = ("joint target left as written" if kept[i] else
               f"joint target could not be compensated ({Status(int(solved.status[i])).label}): left as written")
        notes.append(f"{prog.files[int(run.file[instruction[i]])][0]}:{run.argument[i, 2]}:{run.argument[i, 3]}: "
                     f"{run.instruction[int(instruction[i])]} {why}")
    solved.status[unsolved] = Status.CONVERGED
    return notes


def confdata_notes(prog: RobotProgram, points: np.ndarray, written: np.ndarray) -> list[str]:
    """A line for each written robtarget whose confdata differs from the program's: where, and why."""
    run = prog.run
    line, column = (pc.cast(pa.array(run.argument[points, k]), pa.string()) for k in (2, 3))
    why = pc.if_else(pa.array(confdata_free(prog)[points]),
                     "its motion runs under ConfL \\Off or ConfJ \\Off, where the controller ignores confdata: "
                     "written from the solution nearest the motion before",
                     "the corrected joints lie in another quadrant (cf1, cf4, cf6) or wrist configuration (cfx) than "
                     "the program's")
    paths = pa.array([path for path, _ in prog.files]).take(pa.array(run.file[run.row_of_points()][points]))
    return pc.binary_join_element_wise(paths, ":", line, ":", column, ": confdata written [",
                                       w.confdata_texts(written), "], read [",
                                       w.confdata_texts(run.confdata[points]), "]: ", why, "").to_pylist()


def rounding_bound(reach: float) -> float:
    """Largest TCP position error [m] of writing x, y, z in mm as 32-bit floats at ``reach`` [m]: half a unit
    in the last place per coordinate, ``sqrt(3) / 2 * ulp``."""
    return float(np.sqrt(3.0) / 2.0 * np.spacing(np.float32(reach * 1e3)) * 1e-3)


@dataclass(frozen=True)
class Written:
    """A written program (its latin-1 bytes), how many target texts changed, the rounding the text leaves, the
    report's notes, and each other module of the task: its bytes, ``None`` where unchanged."""

    data: bytes
    n_changed: int
    rounding: tuple[float, float]  # largest TCP position [m] and orientation [rad] error of the written numbers
    notes: list[str] = field(default_factory=list)
    modules: tuple[bytes | None, ...] = ()
    #: The points compensated whose correction is not written (a per-pass table not written whole, or one they read):
    #: their motions run as written.
    left: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.intp))
    #: The points whose call-site text holds another motion's target (:func:`share_texts`): why each misses.
    failed: dict[int, str] = field(default_factory=dict)


def write_program(chain: Chain, prog: RobotProgram, poses: PointPoses, q: FloatArray, status: np.ndarray,
                  output: str, tcp: tuple[FloatArray, FloatArray], minutes: FloatArray | None = None) -> Written:
    """The program with each point's text replaced by its compensated value: for one minute, or, given ``minutes``,
    by a lookup in its table of one correction a minute picked from the controller's clock
    (:func:`.passes.clock_edits`). Targets in the task's other modules are written there.

    Parameters
    ----------
    q
        Corrected joints [rad] of each version (the snapshot, or each minute) and point, ``(K, m, n)``.
    status
        Per point, ``(m,)``: failed points keep their text.
    output
        ``"filtered"`` or ``"joints"``.
    tcp
        The nominal robot's TCP poses at ``q`` (world frame), ``(K, m, 3, 3)`` and ``(K, m, 3)`` [m].
    minutes
        A time-indexed program's grid [min], ``(K,)``, evenly spaced from 0; ``None``: a snapshot (``K`` = 1).
    """
    if minutes is not None and output == "joints" and np.any(prog.run.kind == _KIND_CODE[CIRCULAR]):
        raise InputError("a time-indexed program in joint form cannot hold circular moves; use "
                         "--program-output filtered", path=prog.path)
    task = w.task_view(prog) if w.spans_other_files(prog) else prog  # (the task as one text)
    tabled = passes.groups(task)
    run = task.run
    m = len(run.text)
    # the points that change in any version (past KEEP_POSITION, KEEP_ANGLE; a Cartesian point written as joints
    # always; a per-pass text whole or not at all), written as joints (jw) or as poses (pw), and their texts
    ok = status == Status.CONVERGED
    joint_text = ok & (poses.is_joint | (output == "joints"))
    jt, pt = np.flatnonzero(joint_text & poses.is_joint), np.flatnonzero(ok & ~joint_text)
    changed = joint_text & ~poses.is_joint
    for q_k, R_k, p_k in zip(q, *tcp):
        changed[jt] |= row_max_abs(q_k[jt] - poses.q_given[jt]) > w.KEEP_ANGLE
        miss = pose_errors(R_k[pt], p_k[pt], poses.T_world_tcp[pt, :3, :3], poses.T_world_tcp[pt, :3, 3])
        changed[pt] |= (row_norms(miss[:, :3]) > w.KEEP_POSITION) | (row_norms(miss[:, 3:]) > w.KEEP_ANGLE)
    wanted = ok & changed  # (before a per-pass text is taken whole or not at all)
    for idx in tabled.values():
        changed[idx] = bool(changed[idx].any() and ok[idx].all())
    jw, pw = np.flatnonzero(joint_text & changed), np.flatnonzero(~joint_text & changed)
    versions = [_texts(chain, task, q_k, tcp_k, jw, pw) for q_k, tcp_k in zip(q, zip(*tcp))]
    written = np.concatenate([jw, pw])
    new, _, conf = versions[0]
    rounding = np.max([version_rounding for _, version_rounding, _ in versions], axis=0)
    if minutes is None:
        at = np.full(m, -1)
        at[written] = np.arange(len(written))
        values = new.take(pa.array(at, mask=at < 0))  # (each point's new text in columns; null: unchanged)
        at_argument = ~poses.is_joint if output == "joints" else np.zeros(m, dtype=bool)
        form = ("--program-output joints writes their joints at the motion, which every call runs (a declared "
                "target cannot hold joints), and they need different joints there: use --program-output filtered")
        extra: list[w.Edit] = []
    else:
        lookups: list[str | None] = [None] * m
        extra = passes.clock_edits(task, written, joint_text, [texts for texts, _, _ in versions], lookups, minutes)
        call_site = task.extra.get("call_site") or {}  # (its table is named at the call site, where its text is)
        at_argument = np.array([v is not None and i not in call_site for i, v in enumerate(lookups)], dtype=bool)
        form = ("--time-indexed writes their tables' lookups at the motion, which every call runs (a declaration "
                "holds one value), and they need different tables there: compensate for one minute instead "
                "(--at-minute or --timed)")
        values = pa.array(lookups, pa.string())
    values, failed = share_texts(task, values, ok & ~joint_text & (minutes is None), lambda at: calls.text_poses(
        task, at, *_in_frames(chain, task, at, tcp[0][0][at], tcp[1][0][at])))
    tables, kept = [], []
    if tabled:  # (per-pass texts: their runs' values become their tables' lookups)
        lookups = values.to_pylist()
        tables, kept = passes.table_edits(task, tabled, lookups, poses.is_joint, ok)
        values = pa.array(lookups, pa.string())
    unchanged = values.is_null().to_numpy(zero_copy_only=False)
    differs = np.flatnonzero(run.has_confdata[pw] & np.any(conf != run.confdata[pw], axis=1) & ~unchanged[pw]
                             & (minutes is None))  # (a target kept as written has no confdata written either)
    point_edits = place_texts(task, values, at_argument, form, inline=minutes is not None)
    wanted &= unchanged
    data, n_changed = apply_form(task, point_edits + w.Edits.of(tables + extra), len(point_edits.start), output, ok,
                                 poses.is_joint, (written, new))
    data, modules = (data, ()) if task is prog else w.split(data, prog)
    notes = confdata_notes(prog, pw[differs], conf[differs]) + kept
    return Written(data, len(written) if minutes is not None else n_changed, (float(rounding[0]), float(rounding[1])),
                   notes, modules, np.flatnonzero(wanted), failed)


def place_texts(prog: RobotProgram, values: pa.StringArray, at_argument: np.ndarray, form: str, *,
                inline: bool = False) -> w.Edits:
    """The edits writing ``values`` ``(m,)`` (each point's new text; null: unchanged).

    Points sharing a text write it there when they all get the same value and none is ``at_argument`` ``(m,)``;
    otherwise each writes its value at its argument (its whole argument, :attr:`~.model.Point.whole_argument`; with
    ``inline``, its text too). Refused: a parameter given different values by the points ``at_argument`` (``form``
    saying why they are written there), a span needing two values, or a point then running another's value. In
    columns: a program whose points each have their own text costs no loop over its points.
    """
    run = prog.run
    motion_of = run.row_of_points()
    new = values.dictionary_encode()
    code = new.indices.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64)  # (-1: None)
    texts, arguments = run.text.copy(), run.argument.copy()  # (m, 4) Span rows, those at their argument moved
    given = np.flatnonzero(at_argument)
    whole = [i for i in given.tolist() if run.whole_argument[i] is not None]
    texts[whole] = arguments[whole] = np.array([run.whole_argument[i] for i in whole]).reshape(-1, 4)
    if inline:
        texts[given] = arguments[given]
    # each parameter's first point: the one the others given there must agree with
    _, first, inverse = np.unique(np.stack([run.file[motion_of[given]], run.argument[given, 0]], axis=1), axis=0,
                                  return_index=True, return_inverse=True)
    j_of = given[first[inverse.reshape(-1)]]
    clash = np.flatnonzero((code[given] != code[j_of]) & (run.text[given, 0] != run.argument[given, 0]))
    if clash.size:
        i, j = int(given[clash[0]]), int(j_of[clash[0]])
        file = int(run.file[motion_of[i]])
        routine = re.findall(r"\b(?:PROC|FUNC|TRAP|def)\s+(\w+)", prog.files[file][1][:run.argument[i, 0]],
                             flags=re.IGNORECASE)
        names = [f"{run.name_of_point[k] or 'the target'} (line {run.text[k, 2]})" for k in (j, i)]
        data = names[0] if names[0] == names[1] else " and ".join(names)
        line, column = (int(x) for x in run.argument[i, 2:4])
        raise InputError(f"{run.instruction[motion_of[i]]} at line {line}, column {column} reads {data} through a "
                         f"parameter of {routine[-1] if routine else 'its routine'}, passed by its calls: {form}",
                         path=prog.files[file][0], row=line, column=column)
    # each span as one number (start, end); a text's points in the order its first is met, and in order
    size = int(max(texts[:, 1].max(initial=0), arguments[:, 1].max(initial=0))) + 1
    text_key, argument_key = texts[:, 0] * size + texts[:, 1], arguments[:, 0] * size + arguments[:, 1]
    _, met, group = np.unique(text_key, return_index=True, return_inverse=True)
    low, high = np.full(len(met), np.iinfo(np.int64).max), np.full(len(met), -2)
    np.minimum.at(low, group, code)
    np.maximum.at(high, group, code)
    shared = (low == high) & (np.bincount(group, weights=at_argument, minlength=len(met)) == 0)
    writers = np.flatnonzero(code >= 0)
    writers = writers[np.lexsort((writers, met[group[writers]]))]
    # each span written: the value of its first writer (a second is a clash, below)
    span_key, first = np.unique(np.where(shared[group], text_key, argument_key)[writers], return_index=True)
    span_code = code[writers[first]]
    running = np.full(len(code), -1)
    for keys in (text_key, argument_key):  # (a point runs the value at its argument, else at its text)
        k = np.minimum(np.searchsorted(span_key, keys), max(len(span_key) - 1, 0))
        hit = span_key[k] == keys if len(span_key) else np.zeros(len(keys), dtype=bool)
        running[hit] = span_code[k[hit]]
    wrong = np.flatnonzero(running != code)
    if wrong.size:
        line, column = (int(x) for x in arguments[wrong[0], 2:4])
        raise InputError(f"the motion target at line {line}, column {column} is run more than "
                         "once with different corrections (a routine called at different minutes, or with "
                         "different tools or work objects); one text cannot hold them", path=prog.path, row=line)
    return w.Edits(span_key // size, span_key % size, new.dictionary.take(pa.array(span_code, pa.int64())))


def apply_form(prog: RobotProgram, edits: w.Edits, n_changed: int, output: str, ok: np.ndarray, is_joint: np.ndarray,
               texts: tuple[np.ndarray, pa.StringArray]) -> tuple[bytes, int]:
    """The program's bytes with the points' ``edits`` in the ``output`` form, and how many texts they change.

    The joints form: each Cartesian motion whose points all converged (``ok`` ``(m,)``) renamed ``MoveAbsJ`` /
    ``movej``, and each ``MoveC via, to, rest`` rewritten as ``MoveAbsJ via, rest`` and ``MoveAbsJ to, rest`` from
    its points' ``texts`` (``(points written, their texts)``).
    """
    if output == "joints":
        value = dict(zip(texts[0].tolist(), texts[1].to_pylist()))
        run, text, new = prog.run, prog.text, "MoveAbsJ" if prog.language == "rapid" else "movej"
        first = run.first_points()
        circular = run.kind == _KIND_CODE[CIRCULAR]
        renamed = np.flatnonzero((run.kind != _KIND_CODE[ABSOLUTE_JOINT]) & ~circular
                                 & ~np.logical_and.reduceat(is_joint, first) & np.logical_and.reduceat(ok, first)
                                 & (np.asarray(run.instruction) != new)) if first.size else first
        wholes = np.unique(run.statement[circular, :2], axis=0)  # (sorted, and no two overlap)
        k = np.searchsorted(wholes[:, 0], edits.start, side="right") - 1
        outside = (k < 0) | (edits.end > wholes[np.maximum(k, 0), 1]) if wholes.size else np.ones(len(edits.start), bool)
        kept = edits.take(np.flatnonzero(outside))
        n_changed = len({(a, b) for a, b in zip(kept.start.tolist(), kept.end.tolist())}) + len(wholes)
        more = [w.Edit(int(a), int(b), new) for a, b in run.name[renamed, :2].tolist()]
        for r in np.flatnonzero(circular).tolist():
            via, to = int(first[r]), int(first[r]) + 1
            if via in value and to in value:
                start, name_end, end = int(run.statement[r, 0]), int(run.name[r, 1]), int(run.statement[r, 1])
                prefix, rest = text[name_end:run.argument[via, 0]], text[run.argument[to, 1]:end]
                line_start = text.rfind("\n", 0, start) + 1
                indent = "".join(ch for ch in text[line_start:start] if ch in " \t")
                more.append(w.Edit(start, end, f"{new}{prefix}{value[via]}{rest}{prog.newline}{indent}"
                                                f"{new}{prefix}{value[to]}{rest}"))
        edits = kept + w.Edits.of(more)
    return w.apply_edits(prog.text, edits, prog.path, w.COMMENT_STARTS[prog.language]), n_changed


def _texts(chain: Chain, prog: RobotProgram, q: FloatArray, tcp: tuple[FloatArray, FloatArray], jw: np.ndarray,
           pw: np.ndarray) -> tuple[pa.StringArray, tuple[float, float], np.ndarray]:
    """The texts of the points ``jw`` as joints ``q`` ``(m, n)`` [rad], then of ``pw`` as the TCP poses ``tcp``
    (world, ``(m, 3, 3)``, ``(m, 3)`` [m]) in their frames; the largest TCP position [m] and orientation [rad]
    error their 32-bit numbers leave; the RAPID confdata ``(len(pw), 4)`` (zeros in URScript)."""
    run, rapid, nominal = prog.run, prog.language == "rapid", nominal_model(chain)
    texts, error_position, error_angle = [pa.array([], pa.string())], [0.0], [0.0]
    if jw.size:
        shown = np.degrees(q[jw]) if rapid else q[jw]
        texts.append(w.jointtarget_texts(shown, [run.extax[i] for i in jw.tolist()]) if rapid
                     else w.list_texts(shown, "["))
        back = w.stored_singles(shown)
        R_a, p_a = fk(nominal, q[jw])
        R_b, p_b = fk(nominal, np.radians(back) if rapid else back)
        error_position.append(float(row_norms(p_b - p_a).max()))
        error_angle.append(float(row_norms(turns(R_a, R_b)).max()))
    conf = np.zeros((pw.size, 4), dtype=np.int64)
    if pw.size:
        R_target, p_target = _in_frames(chain, prog, pw, tcp[0][pw], tcp[1][pw])
        R_frame, p_frame = calls.text_poses(prog, pw, R_target, p_target)  # (a call site's target read through Offs)
        if rapid:
            conf = confdata_from_q(nominal, q[pw])
            quat = quat_wxyz_from_matrix(R_frame)
            with np.errstate(invalid="ignore"):  # (each quaternion of the sign the program wrote; none written: NaN)
                quat[np.einsum("ij,ij->i", quat, run.quat[pw]) < 0] *= -1
            shown = np.hstack([p_frame * 1e3, quat])
            texts.append(w.robtarget_texts(shown, conf, [run.extax[i] for i in pw.tolist()]))
            from thermocomp.programs.rapid import transforms_from_poses

            T_back = transforms_from_poses(w.stored_singles(shown))  # (as the reader reads the written robtargets)
            R_back, p_back = T_back[:, :3, :3], T_back[:, :3, 3]
        else:
            shown = np.hstack([p_frame, rotvec_from_matrix(R_frame)])
            texts.append(w.list_texts(shown, "p["))
            back = w.stored_singles(shown)
            R_back, p_back = matrix_from_rotvec(back[:, 3:]), back[:, :3]
        R_back, p_back = calls.text_poses(prog, pw, R_back, p_back, back=True)
        error_position.append(float(row_norms(p_back - p_target).max()))
        error_angle.append(float(row_norms(turns(R_target, R_back)).max()))
    return pa.concat_arrays(texts), (max(error_position), max(error_angle)), conf


def _in_frames(chain: Chain, prog: RobotProgram, pw: np.ndarray, R_tcp: FloatArray, p_tcp: FloatArray
               ) -> tuple[FloatArray, FloatArray]:
    """The TCP poses ``R_tcp``, ``p_tcp`` ``(r, 3, 3)``, ``(r, 3)`` of the points ``pw`` (world frame [m]) in each
    point's work object (through the robot base: docs/conventions.md)."""
    frames = prog.frame_table(0)
    held = prog.run.held[pw]
    in_world = not held.any() and all(np.array_equal(frames[f], np.eye(4))
                                      for f in np.unique(prog.run.frame[pw]).tolist())
    at_base = np.array_equal(chain.T_world_base, np.eye(4))
    if in_world and at_base:
        return R_tcp, p_tcp
    T_world_tcp = transform(R_tcp, p_tcp)
    T_world_tcp = T_world_tcp if at_base else invert_transform(chain.T_world_base) @ T_world_tcp
    T_frame = T_world_tcp if in_world else target_of_world(frames, T_world_tcp, held, prog.run.frame[pw])
    return T_frame[:, :3, :3], T_frame[:, :3, 3]


def share_texts(prog: RobotProgram, values: pa.StringArray, posed: np.ndarray,
                poses: Callable[[np.ndarray], tuple[FloatArray, FloatArray]]) -> tuple[pa.StringArray, dict[int, str]]:
    """``values`` ``(m,)`` (each point's new text; null: unchanged) with the points that share a text and need it
    alike given one value: those ``posed`` ``(m,)`` whose written poses (``poses(points)``: ``(k, 3, 3)``, ``(k, 3)``
    [m, the motion's frame]) agree with the first's within ten times the solver's tolerances get the first's value
    (a table indexed by its calls: the first of their call's). The others keep their own, except at a call site:
    the value of the motion that reads it as its target, the others failed (returned: point, why); with no such
    motion or two needing different values, refused, naming it, each motion reading it and how far apart.
    """
    run = prog.run
    how = prog.extra.get("call_site") or {}
    by_call = prog.extra.get("per_call") or {}  # (a table indexed by its calls, passes.settle: one value a call)
    tables = passes.groups(prog) if by_call else {}
    call_of = {i: at for key, called in by_call.items() for i, (at, _, _) in zip(tables[key].tolist(), called)}
    _, text, count = np.unique(run.text_file * (1 << 40) + run.text[:, 0], return_inverse=True, return_counts=True)
    several = np.flatnonzero(count[text] > 1)  # (the points whose text another point has too)
    value = dict(zip(several.tolist(), values.take(pa.array(several, pa.int64())).to_pylist()))
    groups: dict[tuple[int, int | None], list[int]] = {}  # (the texts of several points, as first met)
    for i in several.tolist():
        groups.setdefault((int(text[i]), call_of.get(i)), []).append(i)
    given: dict[int, str | None] = {}  # (the points given another's value: that value)
    failed: dict[int, str] = {}
    for members in groups.values():
        if len({value[i] for i in members}) < 2:
            continue
        alike = [i for i in members if posed[i]]
        if len(alike) > 1:
            R, p = poses(np.array(alike))
            apart = (np.linalg.norm(p - p[:1], axis=1), np.array([rotation_angle(r @ R[0].T) for r in R]))
            near = (apart[0] <= 10 * IK_POSITION_TOL) & (apart[1] <= 10 * IK_ORIENTATION_TOL)
            one = next((value[i] for i in np.asarray(alike)[near].tolist() if value[i] is not None), None)
            for i in np.asarray(alike)[near].tolist():
                value[i] = given[i] = one
        if members[0] not in how or len({value[i] for i in members}) < 2:
            continue
        motions = run.row_of_points()
        line, column = (int(x) for x in run.text[members[0], 2:4])
        direct = [i for i in members if how[i] == "as its target"]
        if len(alike) == len(members) and direct and len({value[i] for i in direct}) == 1:
            # (only targets may change: the text holds the direct read's value; each other read misses by the rest)
            missed = [k for k, i in enumerate(members) if value[i] != value[direct[0]]]
            d, at = members.index(direct[0]), np.array(members)[missed]
            R_got, p_got = calls.text_poses(prog, at, R[[d] * len(at)], p[[d] * len(at)], back=True)
            R_need, p_need = calls.text_poses(prog, at, R[missed], p[missed], back=True)
            for k, i in enumerate(at.tolist()):
                value[i] = given[i] = value[direct[0]]
                failed[i] = (f"{np.linalg.norm(p_got[k] - p_need[k]) * 1e3:.3g} mm and "
                             f"{np.degrees(rotation_angle(R_got[k] @ R_need[k].T)):.3g} deg from its corrected target: "
                             f"it reads the target written at line {line}, column {column} (an argument of a call) "
                             f"{how[i]}, which holds the value {run.instruction[motions[direct[0]]]} at line "
                             f"{run.statement[motions[direct[0]], 2]} reads as its target (only targets may change, "
                             "and this motion reads the same text)")
            continue
        why = (f"they need written values {apart[0].max() * 1e3:.3g} mm and {np.degrees(apart[1].max()):.3g} deg "
               "apart" if len(alike) == len(members) else "they need different written values")
        readers = list(dict.fromkeys(f"{run.instruction[motions[i]]} at line {run.statement[motions[i], 2]} {how[i]}"
                                     for i in members))
        raise InputError(f"the target written at line {line}, column {column} (an argument of a call) is read by "
                         f"{' and by '.join(readers)}: {why}, and one written value cannot give each its corrected "
                         "target (write each target as its own argument)",
                         path=prog.files[int(run.text_file[members[0]])][0], row=line)
    mask = np.zeros(len(values), dtype=bool)
    mask[list(given)] = True
    return pc.replace_with_mask(values, pa.array(mask), pa.array([given[i] for i in np.flatnonzero(mask).tolist()],
                                                                 pa.string())), failed
