"""What ``thermocomp compensate`` runs: one source (a targets CSV or a robot program), or many programs.

:func:`compensate_source` runs one :class:`CompensationJob` (every option, its combinations checked once):
the one call of the command line for both sources. A targets CSV goes to
:func:`thermocomp.app.targets.run_compensation`, a robot program to
:func:`thermocomp.app.program.compensate_program`; both run
through the application layer (:func:`thermocomp.app.jobs.run_job`) and
return a :class:`~thermocomp.app.jobs.Report`.

:func:`compensate_programs` compensates many programs into one folder
(``--program a.mod b.mod ... --out-dir DIR``), over ``jobs`` processes: each
program is checked and written all or none under its own name, and the
programs that succeed are committed together at the end, so an interrupted
run leaves nothing (docs/jobs.md).
"""

from __future__ import annotations

import concurrent.futures
import multiprocessing
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from thermocomp._typing import FloatArray, PathLike
from thermocomp._workers import end_with_parent
from thermocomp.app.jobs import CompensationFailed, Report, file_of
from thermocomp.app.targets import run_compensation
from thermocomp.compensation.compensate import CompensationOptions, ProgressCallback
from thermocomp.deformation.table import DeformationTable
from thermocomp.errors import ConfigurationError, InputError, ThermocompError
from thermocomp.io.job import Job
from thermocomp.io.robot_files import RobotFileOptions
from thermocomp.io.robots import robot_file
from thermocomp.robot.chain import Chain

if TYPE_CHECKING:  # the programs' modules (lark, the grammars) load with a program's run only
    from thermocomp.app.program import ProgramReport
    from thermocomp.programs.options import ProgramOptions


@dataclass(frozen=True)
class CompensationJob:
    """One run of ``thermocomp compensate``: a targets CSV or a robot program, with every option, checked once.

    The combinations of options are checked here, when the job is made, and nowhere else: the command line
    builds a job from what it parsed, the Python API from its arguments.

    Parameters
    ----------
    robot
        Built-in name, robot file, or a :class:`Chain`.
    deformation
        The paper's deformation CSV or a :class:`DeformationTable`.
    targets, program
        The source: a targets CSV (or a :class:`~thermocomp.compensation.targets.Targets`), or a RAPID /
        URScript program. Exactly one.
    out
        The results CSV (targets) or the compensated program; ``None`` writes nothing.
    options
        Time law, solver settings; ``minutes`` serves targets only (the program's time form is in
        ``program_options``).
    minutes_given
        Whether the minutes were asked for (``--minutes``): refused with a program.
    program_options, results, report
        A program's own options and outputs (:class:`~thermocomp.programs.options.ProgramOptions`, the results
        CSV, the program report).
    convention, joint_objects, fixed_orientation
        Targets only: the authors' CoppeliaSim convention and its joint objects, the orientation of
        position-only targets ``(3, 3)``.
    allow_failures, plot, robot_options
        As :func:`thermocomp.app.targets.run_compensation` and :func:`thermocomp.app.program.compensate_program`.

    Raises
    ------
    ConfigurationError
        Neither or both sources, or an option of the other source (naming the options as typed).
    """

    robot: str | PathLike | Chain
    deformation: PathLike | DeformationTable
    targets: PathLike | None = None
    program: PathLike | None = None
    out: PathLike | None = None
    options: CompensationOptions | None = None
    minutes_given: bool = False
    program_options: ProgramOptions | None = None
    results: PathLike | None = None
    report: PathLike | None = None
    convention: str = "table"
    joint_objects: PathLike | None = None
    fixed_orientation: FloatArray | None = None
    allow_failures: bool = False
    plot: PathLike | None = None
    robot_options: RobotFileOptions | None = None

    def __post_init__(self) -> None:
        if self.program is not None:
            misplaced = [flag for flag, used in (("--targets", self.targets is not None),
                                                 ("--minutes", self.minutes_given),
                                                 ("--convention", self.convention != "table"),
                                                 ("--joint-objects", self.joint_objects is not None),
                                                 ("--orientation-euler-xyz-deg", self.fixed_orientation is not None))
                         if used]
            if misplaced:
                raise ConfigurationError(f"{', '.join(misplaced)} cannot be combined with --program (the program gives "
                                         "the targets; --at-minute, --timed or --time-indexed give the time)")
            return
        if self.targets is None:
            raise ConfigurationError("one of --targets or --program is required")
        misplaced = [flag for flag, used in (("--program-output etc.", self.program_options is not None),
                                             ("--results", self.results is not None),
                                             ("--program-report", self.report is not None)) if used]
        if misplaced:
            raise ConfigurationError(f"{', '.join(misplaced)}: expected with --program only")


def compensate_source(job: CompensationJob, progress: ProgressCallback | None = None) -> Report:
    """Run ``job``: its targets through :func:`~thermocomp.app.targets.run_compensation`, or its program through
    :func:`~thermocomp.app.program.compensate_program`; ``progress(rows_done, rows_total)`` hears of the rows.

    Raises
    ------
    InputError, CompensationFailed
        As the source's function: nothing is written.
    """
    if job.program is None:
        return run_compensation(job.robot, job.deformation, job.targets, job.out, plot=job.plot, options=job.options,
                                fixed_orientation=job.fixed_orientation, allow_failures=job.allow_failures,
                                progress=progress, convention=job.convention, robot_options=job.robot_options,
                                joint_objects=job.joint_objects)
    from thermocomp.app.program import compensate_program  # (lark, the grammars: a program's run only)

    return compensate_program(job.robot, job.deformation, job.program, job.out, options=job.options,
                              program_options=job.program_options, allow_failures=job.allow_failures,
                              results=job.results, report=job.report, progress=progress,
                              robot_options=job.robot_options, plot=job.plot)



#: The statuses of a program of a batch, from best to worst.
STATUSES = ("ok", "failed", "refused")


@dataclass
class ProgramOutcome:
    """What became of one program of :func:`compensate_programs`.

    Attributes
    ----------
    program
        The program as found (a path given, or a file of a folder given).
    out
        Its compensated program in the output folder (written when ``status`` is ``"ok"``).
    status
        ``"ok"`` (written), ``"failed"`` (points could not be compensated; nothing written) or ``"refused"``
        (bad input, an unsupported construct; nothing written): :data:`STATUSES`, best first.
    report
        The program's report (``None`` when it was refused before one was made).
    message
        Why it failed or was refused (``""`` when ok).
    """

    program: Path
    out: Path
    status: str
    report: ProgramReport | None = None
    message: str = ""

    @property
    def motions(self) -> int | None:
        return None if self.report is None else self.report.n_motions

    @property
    def compensated(self) -> int | None:
        """Points compensated (converged; failed points keep their text)."""
        return None if self.report is None else self.report.n_points - len(self.report.failed)

    @property
    def findings(self) -> int | None:
        """Feasibility findings and constructs left as written."""
        return None if self.report is None else len(self.report.feasibility) + len(self.report.unsupported)


def summary_table(outcomes: list[ProgramOutcome]) -> str:
    """One line per program: program, motions, compensated (points), findings, status; then a count per status."""
    head = ("program", "motions", "compensated", "findings", "status")
    rows = [(str(o.program), *("-" if v is None else str(v) for v in (o.motions, o.compensated, o.findings)),
             o.status if o.status == "ok" or o.report is None else f"{o.status}: {len(o.report.failed)} point(s)")
            for o in outcomes]
    width = [max(len(r[k]) for r in [head, *rows]) for k in range(len(head))]
    lines = ["  ".join(c.ljust(w) if k in (0, 4) else c.rjust(w) for k, (c, w) in enumerate(zip(r, width))).rstrip()
             for r in [head, *rows]]
    counts = ", ".join(f"{sum(o.status == s for o in outcomes)} {s}" for s in STATUSES)
    written = sum(o.status == "ok" for o in outcomes)
    return "\n".join([*lines, f"{len(outcomes)} program(s): {counts}; {written} written"])


def program_files(programs: list[PathLike]) -> list[Path]:
    """The programs given: each file as given, each folder's robot programs (by extension, sorted by name).

    Raises
    ------
    InputError
        A folder holding no robot program, or a name with a program's extension that is no regular file (a FIFO,
        a link to a device or to nothing, a folder: they were skipped without a word), naming ``--program``.
    """
    from thermocomp.programs.rapid import RAPID_SUFFIXES
    from thermocomp.programs.read import URSCRIPT_SUFFIXES

    suffixes = RAPID_SUFFIXES + URSCRIPT_SUFFIXES  # a folder's robot programs, by extension
    found: list[Path] = []
    for item in programs:
        path = Path(item)
        if path.is_dir():
            named = [p for p in path.iterdir() if p.suffix.lower() in suffixes]
            odd = [p for p in named if not p.is_file()]
            if odd:
                raise InputError(f"--program: expected robot programs (regular files) in the folder, got "
                                 f"{', '.join(f'{p.name} ({_kind(p)})' for p in sorted(odd)[:5])}"
                                 f"{f' and {len(odd) - 5} more' if len(odd) > 5 else ''}: remove or rename them",
                                 path=str(path))
            inside = sorted(named)
            if not inside:
                raise InputError(f"--program: expected robot programs ({', '.join(suffixes)}) in the folder, "
                                 "found none", path=str(path))
            found += inside
        else:
            found.append(path)
    return found


def _kind(path: Path) -> str:
    """What the name ``path`` is when it is not a regular file, for a message."""
    from thermocomp.io.job import file_kind

    if path.is_symlink():
        target = os.readlink(path)
        return f"a link to {target}" + ("" if path.exists() else ", which does not exist")
    return file_kind(path.stat().st_mode)


def compensate_programs(robot: str | PathLike, deformation: PathLike, programs: list[PathLike], out_dir: PathLike, *,
                        options: CompensationOptions | None = None, program_options: ProgramOptions | None = None,
                        allow_failures: bool = False, robot_options: RobotFileOptions | None = None,
                        jobs: int = 1) -> list[ProgramOutcome]:
    """Compensate every program of ``programs`` (files, or folders of them) into ``out_dir``, under its own name.

    Each program is compensated as :func:`~thermocomp.app.program.compensate_program` does, all or none: one that
    fails or is refused is not written, and the others still are. Every output is checked before any work
    (never over an input, never two programs to one name); the programs written appear together at the end
    (an interrupted run writes none).

    Parameters
    ----------
    robot, deformation, options, program_options, allow_failures, robot_options
        As :func:`~thermocomp.app.program.compensate_program`, for every program.
    programs
        Program files and folders (a folder's files with a robot program's extension).
    out_dir
        An existing folder.
    jobs
        Processes compensating programs at once (1: in this process).

    Returns
    -------
    list of ProgramOutcome
        One per program, in the order given.

    Raises
    ------
    InputError
        A folder with no program, ``out_dir`` not a folder, two programs of one name, an output over an
        input; nothing is written.
    """
    if not (isinstance(jobs, int) and 1 <= jobs <= 1024):
        raise ConfigurationError(f"--jobs: expected a number of processes from 1 to 1024, got {jobs!r}")
    folder = Path(out_dir)
    if not folder.is_dir():
        raise InputError("--out-dir: expected an existing folder", path=str(folder))
    files = program_files(programs)
    outs = [folder / p.name for p in files]
    by_name: dict[str, Path] = {}
    for path in files:
        if path.name in by_name and not os.path.samefile(by_name[path.name], path):
            raise InputError(f"--program: {by_name[path.name]} and {path} would both be written as "
                             f"{folder / path.name}; compensate them into separate folders", path=str(path))
        by_name.setdefault(path.name, path)
    tasks = [_Task(robot, deformation, path, out, options, program_options, allow_failures, robot_options)
             for path, out in dict(zip(files, outs)).items()]
    with Job() as job:
        job.input(robot_file(robot), "--robot")
        job.input(file_of(deformation), "--deformation")
        job.inputs(files, "--program")
        job.input(None if options is None else options.time_law_file, "--time-law")
        for out in outs:
            job.output(out, "--out-dir")
        job.check()
        if jobs == 1 or len(tasks) == 1:
            outcomes = []
            for task in tasks:
                outcome, staged = _compensate_one(task)
                job.adopt(staged)
                outcomes.append(outcome)
        else:
            outcomes = _in_processes(job, tasks, jobs)
        job.commit()
    return outcomes


@dataclass(frozen=True)
class _Task:
    """One program of a batch, as a worker process receives it."""

    robot: str | PathLike
    deformation: PathLike
    program: Path
    out: Path
    options: CompensationOptions | None
    program_options: ProgramOptions | None
    allow_failures: bool
    robot_options: RobotFileOptions | None


def _compensate_one(task: _Task) -> tuple[ProgramOutcome, dict[Path, Path]]:
    """Compensate one program into its own job; its outcome, and its written temporaries for the batch's job."""
    from thermocomp.app.program import compensate_program

    with Job() as job:
        try:
            report = compensate_program(task.robot, task.deformation, task.program, task.out, options=task.options,
                                        program_options=task.program_options, allow_failures=task.allow_failures,
                                        robot_options=task.robot_options, job=job)
        except CompensationFailed as exc:
            return ProgramOutcome(task.program, task.out, "failed", _portable(exc.report), str(exc)), {}
        except ThermocompError as exc:
            return ProgramOutcome(task.program, task.out, "refused", None, str(exc)), {}
        report.written = [task.out]
        return ProgramOutcome(task.program, task.out, "ok", _portable(report)), job.hand_over()


def _portable(report: ProgramReport) -> ProgramReport:
    """``report`` with its per-motion rows built (they are built when first read): it crosses processes."""
    report.rows = list(report.rows)
    return report


def _in_processes(job: Job, tasks: list[_Task], jobs: int) -> list[ProgramOutcome]:
    """The tasks over ``jobs`` worker processes, their written temporaries adopted by ``job`` as they come back.

    On an error or an interrupt the tasks not started are cancelled and the running ones finish, so that every
    temporary is known to ``job``, which then removes them all.
    """
    context = multiprocessing.get_context("spawn")  # (fork copies numba's and BLAS's threads mid-state)
    # the workers end with this process, even killed hard (their temporaries carry its id: the next run removes them)
    with concurrent.futures.ProcessPoolExecutor(max_workers=min(jobs, len(tasks)), mp_context=context,
                                                initializer=end_with_parent, initargs=(os.getpid(),)) as pool:
        futures = [pool.submit(_in_worker, task) for task in tasks]
        adopted: set[int] = set()
        try:
            outcomes = []
            for k, future in enumerate(futures):
                outcome, staged = future.result()
                job.adopt(staged)
                adopted.add(k)
                outcomes.append(outcome)
            return outcomes
        except BaseException:
            pool.shutdown(wait=True, cancel_futures=True)
            for k, future in enumerate(futures):
                if k not in adopted and future.done() and not future.cancelled() and future.exception() is None:
                    job.adopt(future.result()[1])  # removed with the job's other temporaries
            raise


def _in_worker(task: _Task) -> tuple[ProgramOutcome, dict[Path, Path]]:
    """:func:`_compensate_one` in a worker process, which turns SIGTERM and SIGHUP into Ctrl-C as the command line
    does: its job then removes its temporaries."""
    from thermocomp.io.job import interrupt_on_termination

    with interrupt_on_termination():
        return _compensate_one(task)


__all__ = ["STATUSES", "CompensationJob", "ProgramOutcome", "compensate_programs", "compensate_source", "program_files"]
