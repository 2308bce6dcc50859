"""The job of a robot program: RAPID or URScript in, the same program with corrected targets out, and a report.

:func:`compensate_program` is the one library call behind ``thermocomp
compensate --program``: it declares and checks the files (:func:`thermocomp.app.jobs.run_job`), reads the
program (:func:`~thermocomp.programs.read.read_checked`), finds the nominal configuration of every point
(:mod:`~thermocomp.programs.compensate`), estimates when each motion runs (:mod:`~thermocomp.programs.timing`),
compensates the points with the core (:func:`thermocomp.compensation.compensate`), writes the program
(:mod:`~thermocomp.programs.compensate`, :mod:`~thermocomp.programs.passes`), checks it
(:mod:`~thermocomp.programs.feasibility`) and reports. Every output is written all or none. docs/programs.md.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from thermocomp._gc import paused
from thermocomp._typing import PathLike
from thermocomp.app.jobs import CompensationFailed, CompensationJob, Declared, Report, file_of, run_job
from thermocomp.app.prepare import RobotAndTable
from thermocomp.compensation.compensate import (
    CompensationChunk,
    CompensationOptions,
    CompensationSummary,
    ProgressCallback,
    _phase_progress,
    announce_phase,
)
from thermocomp.compensation.targets import Targets
from thermocomp.errors import ConfigurationError, InputError
from thermocomp.io.files import read_input_bytes
from thermocomp.io.job import Job
from thermocomp.io.results_csv import results_writer
from thermocomp.io.robot_files import RobotDescription, controller_base_beside
from thermocomp.kinematics.ik import Status
from thermocomp.programs.calls import motion_lines, recount_unresolved
from thermocomp.programs.compensate import (
    check_joint_targets_within_limits,
    keep_joint_targets,
    nominal_configurations,
    point_names,
    point_poses,
    rounding_bound,
    solve,
    timed_targets,
    write_program,
)
from thermocomp.programs.feasibility import Lazy, MotionRow
from thermocomp.programs.model import tcp_poses
from thermocomp.programs.options import ProgramOptions
from thermocomp.programs.read import language_of, read_checked, suffixes_of
from thermocomp.programs.timing import Timing, estimate_timing
from thermocomp.programs.writer import spans_other_files
from thermocomp.robot.chain import Chain

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
    #: The files the run wrote, once they are all committed (:func:`thermocomp.app.jobs.run_job`).
    written: list[Path] = field(default_factory=list)
    #: The task's other modules written beside the program (targets changed there): path, bytes, the module.
    modules_written: list[tuple[Path, int, str]] = field(default_factory=list)

    def closing_lines(self) -> list[str]:
        return [] if self.plot is None else [f"wrote {self.plot}"]

    def warnings(self) -> list[str]:
        out = [f"{len(self.unsupported)} construct(s) left as written, not compensated"] if self.unsupported else []
        if not self.n_motions and not self.unsupported:  # (a gripper's or an I/O program: docs/programs.md, "No motion")
            out.append(f"no motion found in {self.program}: nothing to compensate"
                       + (f"; written back unchanged to {self.out}" if self.out is not None else ""))
        return out

    def failure_text(self) -> str:
        lines = [f"{len(self.failed)} point(s) of {self.program} could not be compensated:"]
        lines += [f"  {f}" for f in self.failed[:20]]
        if len(self.failed) > 20:
            lines.append(f"  ... and {len(self.failed) - 20} more")
        lines.append("Nothing was written. Rerun with --allow-failures to write the program with those points as "
                     "each line says.")
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
        if self.n_points:  # (a program without motion writes no number)
            lines.append(
                f"rounding of the written numbers (32-bit, as the controller stores them): up to "
                f"{self.rounding_position * 1e3:.3g} mm and {np.degrees(self.rounding_angle):.3g} deg at the TCP "
                f"(bound at the program's reach {self.reach * 1e3:.0f} mm: {self.rounding_bound * 1e3:.3g} mm)"
            )
        if self.output == "joints":
            lines.append("note: joint targets change the interpolation of linear and circular moves (MoveL/MoveC, "
                         "movel/movep/movec): the robot moves joint-interpolated between the targets")
        for title, items in (("unsupported (left as written)", self.unsupported), ("notes", self.notes),
                             ("failed", self.failed), ("feasibility", self.feasibility)):
            if items:
                lines.append(f"{title}:")
                lines += [f"  {x}" for x in items[:50]]
                if len(items) > 50:
                    lines.append(f"  ... and {len(items) - 50} more")
        if self.phase_seconds:
            lines.append("phases: " + ", ".join(f"{k} {v:.2f} s" for k, v in self.phase_seconds.items()))
        if self.out is not None:
            lines.append(f"wrote {self.out} ({self.written_bytes:,} bytes)")
        lines += [f"wrote {path} ({n:,} bytes): a module of the task whose targets changed"
                  for path, n, _ in self.modules_written]
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


def compensate_program(job: CompensationJob, *, progress: ProgressCallback | None = None,
                       within: Job | None = None) -> ProgramReport:
    """Compensate the robot program of ``job`` and write it to ``job.out``.

    Parameters
    ----------
    job
        The run (:class:`~thermocomp.app.jobs.CompensationJob` with ``program``): the robot (built-in name or robot
        file; its tool row must be the flange, the program's tooldata / ``set_tcp`` is the tool; a ``.urdf`` /
        ``.xacro`` read with ``robot_options``), the deformation table, the RAPID or URScript ``program`` (format
        from the extension), ``out`` (same language; ``None`` writes nothing), ``options`` (time law and solver;
        ``minutes`` is not used: the time form is in ``program_options``), ``program_options`` (output form, time
        form, timing, unsupported constructs), ``allow_failures`` (failed points keep their text, the report
        lists them), and the other outputs: ``results`` (one row per solve, as the CSV path), ``report`` (text,
        and ``<report stem>.csv`` one row per motion), ``plot`` (PNG of the errors and corrections per minute).
    progress
        Called as ``progress(rows_done, rows_total)``.
    within
        The :class:`~thermocomp.io.job.Job` of a larger run, which then commits; default a job of its own
        (:func:`thermocomp.app.jobs.run_job`).

    Raises
    ------
    ConfigurationError
        ``job`` is a targets job.
    InputError
        Bad input or an unsupported construct with ``unsupported="refuse"``
        (every one named with file, line and column); nothing written.
    CompensationFailed
        Points failed and ``allow_failures`` is False; nothing written.
    """
    if job.program is None:
        raise ConfigurationError("compensate_program: expected a job with a program, got a targets job "
                                 "(thermocomp.app.compensate.run_compensation runs either)")
    program, out, program_options, allow_failures = job.program, job.out, job.program_options, job.allow_failures
    results, report, plot = job.results, job.report, job.plot
    popts = ProgramOptions() if program_options is None else program_options
    language = language_of(program) if isinstance(program, (str, Path)) else None
    if out is not None and language is not None and Path(out).suffix.lower() not in suffixes_of(language):
        raise InputError(f"--out: the output must be in the program's language: expected an extension among "
                         f"{', '.join(suffixes_of(language))}, got {Path(out).suffix!r}", path=str(out))
    outputs = ProgramOutputs(out=None if out is None else Path(out), results=results, report=report, plot=plot,
                             modules=popts.rapid.modules)

    def work(files: Job, bound: RobotAndTable) -> ProgramReport:
        check_program_robot(bound, program, job.robot)
        check_program_frame(bound.description, program)
        with paused():  # the program's objects live as long as the job (thermocomp._gc)
            rep, writes = _compensate_program(bound, program, popts, outputs, allow_failures, progress)
        # a module whose targets changed is declared now (an unchanged one is no output): the commit checks it
        # against every input and output, naming both, before any file is renamed into place
        for dest, _, module in rep.modules_written:  # (a name derived, not given: a file there not a copy of
            # the module, the user's own, is refused, not replaced; a rerun's copy begins as the module does)
            files.derived_output(dest, f"--out (for --module {module})", module_head(module),
                                 f"a compensated copy of {Path(module).name}")
        for dest, write in writes:
            files.write_with(dest, write)
        return rep

    files = Declared(inputs=[(file_of(program), "--program"), *((m, "--module") for m in popts.rapid.modules)],
                     outputs=[(out, "--out"), (results, "--results"), (report, "--program-report"),
                              (outputs.report_csv, "--program-report (its CSV)", REPORT_CSV_HEAD.encode(),
                               "a program report CSV"),
                              (plot, "--plot")])
    return run_job(job, work, files, within=within)


def module_head(module: PathLike) -> bytes:
    """The first bytes of a module of the task up to its first line end or bracket (at most 200): what every
    compensated copy of it begins with, its targets being written inside brackets after them."""
    head = read_input_bytes(module, "RAPID module (--module)")[:200]
    ends = [k for k in (head.find(b"\n"), head.find(b"[")) if k >= 0]
    return head[:min(ends) + 1] if ends else head


#: The links of a Universal Robots arm in ur_description (each after the description's ``tf_prefix``, if any).
_UR_LINKS = ("shoulder_link", "upper_arm_link", "forearm_link", "wrist_1_link", "wrist_2_link", "wrist_3_link")
#: What an ABB robot's name holds (the built-in ``irb140``, ``gofa``; ROS-Industrial's ``abb_irb2400``,
#: ``abb_crb15000_5_95``): the word at the start of a name or after ``_``/``-``.
_ABB_NAME = re.compile(r"(?:^|[_\-])(?:abb|irb|crb|gofa|yumi)", re.IGNORECASE)
#: The language each maker's controller runs, and what the reader takes from that maker for its programs.
_LANGUAGE_OF = {"ABB": ("rapid", "RAPID", "its robtargets' confdata (cf1, cf4, cf6, cfx) are an ABB arm's"),
                "Universal Robots": ("urscript", "URScript", "its poses are in a UR controller's base frame")}


def robot_maker(chain: Chain, description: RobotDescription | None) -> str | None:
    """``"ABB"`` or ``"Universal Robots"`` where the robot says so (a built-in robot's name; a robot file with the
    links of ur_description, or whose robot or file name is an ABB model's); None for any other (a table CSV, another
    maker's description: the user's choice, taken as given)."""
    if description is not None:
        links = description.parsed.links
        prefixes = {name[:-len(_UR_LINKS[0])] for name in links if name.endswith(_UR_LINKS[0])}
        if any(all(f"{prefix}{link}" in links for link in _UR_LINKS) for prefix in prefixes):
            return "Universal Robots"
        names = (description.parsed.root.get("name", ""), description.source.stem)
    else:
        names = (chain.name,)
    if any(name.lower().startswith("ur") and name[2:3].isdigit() for name in names):
        return "Universal Robots"
    return "ABB" if any(_ABB_NAME.search(name) for name in names) else None


def check_program_robot(bound: RobotAndTable, program: object, robot: object) -> None:
    """Refuse a RAPID program on a Universal Robots arm, or a URScript program on an ABB one (:func:`robot_maker`).

    A program runs on its maker's controller: compensated on another maker's arm, a RAPID program would be solved
    with ABB's configuration rules on an arm that has none of them, a URScript program with UR's base frame on an
    arm whose controller has another; neither can run there. Refused before any output, naming the robot, its
    maker and the program's language.

    Raises
    ------
    InputError
        Naming ``--robot`` as given and the program.
    """
    if not isinstance(program, (str, Path)):
        return
    maker = robot_maker(bound.chain, bound.description)
    language = language_of(program)
    if maker is None or _LANGUAGE_OF[maker][0] == language:
        return
    wanted = next(m for m, (lang, _, _) in _LANGUAGE_OF.items() if lang == language)
    _, name, why = _LANGUAGE_OF[wanted]
    raise InputError(f"--robot {robot}: a {name} program runs on {wanted}'{'' if wanted.endswith('s') else 's'} controller "
                     f"({why}); this robot is "
                     f"{'an' if maker == 'ABB' else 'a'} {maker} arm, whose controller runs {_LANGUAGE_OF[maker][1]}: "
                     "give the robot the program is written for", path=str(program))


def check_program_frame(description: RobotDescription | None, program: object) -> None:
    """Refuse a URScript ``program`` on a ROS-Industrial UR robot file read in its root frame, without ``--base-link``.

    A URScript pose is in the UR controller's base frame, which a ROS-Industrial UR description
    (``ur_description``) names ``base`` (``<prefix>base`` with a ``tf_prefix``: ``left_base`` of a dual-arm
    cell): its ``base_link`` turned by pi about z. Without ``--base-link`` the chain's base is the root, and every
    target would be turned by 180 deg about the base axis in silence
    (:func:`thermocomp.io.robot_files.controller_base_beside`). A ``--base-link`` given, any link, is the user's
    decision; a built-in robot or a table-form CSV (``description`` None) is in the controller's frame already
    (docs/robot_files.md). ``description``: the robot file as the run read it (``RobotAndTable.description``).

    Raises
    ------
    InputError
        Naming ``--base-link``, the robot file, the controller's base link and why.
    """
    if description is None or not isinstance(program, (str, Path)) or \
            Path(program).suffix.lower() not in suffixes_of("urscript"):
        return
    beside = controller_base_beside(description)
    if beside is None:
        return
    link, base, angle = beside
    raise InputError(
        f"--base-link: expected one for a URScript program on a robot file with a link {link!r}: the program's poses "
        f"are in the UR controller's base frame, which a ROS-Industrial UR description names {link!r} (fixed to "
        f"{base!r}, turned by {np.degrees(angle):.4g} deg); without --base-link the base is {base!r} and every "
        f"target would be turned by {np.degrees(angle):.4g} deg; give --base-link {link} (the controller's frame), "
        f"or --base-link {base} to keep {base!r} on purpose", path=str(description.source))


@dataclass(frozen=True)
class ProgramOutputs:
    """The files a program's compensation writes (``None``: not written): the program, the results CSV, the
    report (text, and its CSV beside it), the plot."""

    out: Path | None = None
    results: PathLike | None = None
    report: PathLike | None = None
    plot: PathLike | None = None
    #: The RAPID task's other modules (``--module``): each one whose targets change is written beside ``out``.
    modules: tuple[str, ...] = ()

    @property
    def report_csv(self) -> Path | None:
        """The report's CSV: the report's name with ``.csv``."""
        return None if self.report is None else Path(self.report).with_suffix(".csv")

    def module_out(self, module: PathLike) -> Path:
        """Where a module of the task whose targets changed is written: beside ``out``, named ``<out stem>.<module
        file name>`` (``cell_comp.mod`` and ``Kruvimine.modx``: ``cell_comp.Kruvimine.modx``)."""
        assert self.out is not None
        return self.out.with_name(f"{self.out.stem}.{Path(module).name}")


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
    prog = read_checked(program, popts, phases.bar)
    if popts.indexed_minutes is not None and spans_other_files(prog):
        raise ConfigurationError(f"--time-indexed: expected motions and targets in the program's own file, got "
                                 f"some in its other modules ({', '.join(p for p, _ in prog.modules)}): the tables "
                                 "of corrections are written in one file; compensate for one minute instead")
    m = len(prog.run.text)
    poses = point_poses(chain, prog)
    phases.end("reading", m, then="nominal configurations")
    q_nominal, nominal_status = nominal_configurations(chain, prog, poses, options)
    phases.end("nominal configurations", m)
    timing = estimate_timing(chain, prog, poses.T_world_tcp, q_nominal, cycles=popts.cycles,
                             duration_min=popts.duration_min, cycle_time_s=popts.cycle_time_s)
    phases.end("timing", then="solving")
    # joint targets are home and via positions: left as written unless asked (ProgramOptions.joint_targets)
    kept = poses.is_joint if popts.joint_targets == "keep" else np.zeros(m, dtype=bool)
    if popts.joint_targets == "compensate":
        check_joint_targets_within_limits(chain, prog, poses.is_joint, q_nominal)
    rows = np.flatnonzero(~kept)  # the core's points
    core_program, run_options, time_form = timed_targets(prog, poses, q_nominal, timing, options, popts, rows)
    solved = solve(chain, table, core_program, run_options, q_nominal, nominal_status, rows,
                    indexed=popts.indexed_minutes is not None, keep_chunks=outputs.results is not None,
                    progress=progress)
    joint_notes = keep_joint_targets(chain, prog, poses, q_nominal, kept, solved)
    rep = ProgramReport(program=prog.path, language=prog.language, robot=chain.name, deformation=table.source,
                        output=popts.output, time_form=time_form, out=outputs.out, n_motions=len(prog.run.instruction),
                        n_points=m, n_changed_texts=0, summary=solved.summary, timing=timing, plot=outputs.plot)
    rep.unsupported = [prog.where(f) for f in prog.unsupported]
    notes = list(prog.notes)
    if kept.any():  # (a joint target left as written is not compensated under its condition either)
        lines = motion_lines([prog.run])
        notes, _ = recount_unresolved(notes, prog.extra.get("unresolved", {}),
                                      {lines[i] for i in prog.run.row_of_points()[~kept].tolist()})
    rep.notes = list(dict.fromkeys([prog.where(f) for f in notes] + joint_notes))  # (once: not once a pass)
    run = prog.run
    failed = np.flatnonzero(solved.status != Status.CONVERGED)
    def where(i: int) -> str:
        return f"{prog.files[run.file[run.row_of_points()[i]]][0]}:{run.argument[i, 2]}:{run.argument[i, 3]}"

    rep.failed = [f"{where(i)}: {Status(int(solved.status[i])).label} (its target left as written)" for i in failed]
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
    written = write_program(chain, prog, poses, solved.q_checked, solved.status, popts.output, tcp=(R_tcp, p_tcp),
                            minutes=solved.minutes if popts.indexed_minutes is not None else None)
    rep.notes = list(dict.fromkeys(rep.notes + written.notes))
    if written.left.size:  # (their motions run as written: not "ok")
        rep.rows = _left_rows(rep.rows, frozenset(run.row_of_points()[written.left].tolist()))
    rep.n_changed_texts = written.n_changed
    rep.rounding_position, rep.rounding_angle = written.rounding
    rep.reach = float(np.max(np.linalg.norm(poses.T_world_tcp[:, :3, 3] - chain.T_world_base[:3, 3], axis=1),
                             initial=0.0))  # (0 for a program without motion)
    rep.rounding_bound = rounding_bound(rep.reach)
    if written.failed:  # (a call-site text holding another motion's target: theirs miss, exit status 2)
        rep.failed += [f"{where(i)}: {why}" for i, why in written.failed.items()]
        rep.rows = _left_rows(rep.rows, frozenset(run.row_of_points()[list(written.failed)].tolist()), "failed")
        if not allow_failures:
            rep.out = None
            raise CompensationFailed(rep)
    rep.written_bytes = len(written.data)
    module_data = [(outputs.module_out(path), data, path)
                   for (path, _), data in zip(prog.modules, written.modules)
                   if data is not None and outputs.out is not None]
    rep.modules_written = [(dest, len(data), path) for dest, data, path in module_data]
    phases.end("writing", m)
    rep.phase_seconds = {k: phases.seconds[k] for k in PHASES}
    writes = _writes(rep, written.data, solved.chunks, () if core_program is None else core_program.names,
                     chain.n_joints, outputs)
    return rep, writes + [(path, functools.partial(_write_bytes, data=data)) for path, data, _ in module_data]


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
    prog = read_checked(program, ProgramOptions(), None)
    poses = point_poses(chain, prog)
    q_nominal, _ = nominal_configurations(chain, prog, poses, options)
    return Targets(names=point_names(prog), R_world_tcp=poses.T_world_flange[:, :3, :3],
                   p_world_tcp=poses.T_world_flange[:, :3, 3], q_reference=q_nominal, source=prog.path)


def _left_rows(rows: Sequence[MotionRow], motions: frozenset[int], status: str = "left as written"
               ) -> Sequence[MotionRow]:
    """``rows`` with the ``status`` of each motion in ``motions`` (0-based) that was compensated."""
    return Lazy(lambda: [dataclasses.replace(r, status=status) if r.motion - 1 in motions and
                         r.status == "ok" else r for r in rows], len(rows))


def _write_bytes(path: Path, data: bytes) -> None:
    Path(path).write_bytes(data)


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
        from thermocomp.app.plotting import plot_png

        png = plot_png(rep.summary, title=rep.program, where="--plot")
        writes.append((outputs.plot, lambda path: Path(path).write_bytes(png)))
    return writes


__all__ = ["PHASES", "REPORT_CSV_HEAD", "ProgramOutputs", "ProgramReport", "check_program_frame", "check_program_robot",
           "compensate_program", "program_targets"]
