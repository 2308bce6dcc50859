"""What ``thermocomp compensate`` runs: one source (a targets CSV or a robot program), or many programs.

:func:`compensate_source` is the one call of the command line for both
sources: a targets CSV goes to :func:`thermocomp.pipeline.run_compensation`,
a robot program to :func:`thermocomp.programs.compensate_program`; both run
through the application layer (:func:`thermocomp.application.run_job`) and
return a :class:`~thermocomp.application.Report`.

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
from thermocomp.application import CompensationFailed, Report, file_of
from thermocomp.compensation.compensate import CompensationOptions, ProgressCallback
from thermocomp.deformation.table import DeformationTable
from thermocomp.errors import ConfigurationError, InputError, ThermocompError
from thermocomp.io.job import Job
from thermocomp.io.robot_files import RobotFileOptions
from thermocomp.pipeline import run_compensation
from thermocomp.robot.builtin import robot_file
from thermocomp.robot.chain import Chain

if TYPE_CHECKING:  # the programs' modules (lark, the grammars) load with a program's run only
    from thermocomp.programs.compensate import ProgramOptions, ProgramReport


def compensate_source(robot: str | PathLike | Chain, deformation: PathLike | DeformationTable, *,
                      targets: PathLike | None = None, program: PathLike | None = None, out: PathLike | None = None,
                      options: CompensationOptions | None = None, program_options: ProgramOptions | None = None,
                      allow_failures: bool = False, plot: PathLike | None = None, results: PathLike | None = None,
                      report: PathLike | None = None, progress: ProgressCallback | None = None,
                      robot_options: RobotFileOptions | None = None, convention: str = "table",
                      joint_objects: PathLike | None = None, fixed_orientation: FloatArray | None = None) -> Report:
    """Compensate ``targets`` (a CSV) or ``program`` (RAPID, URScript): exactly one of the two.

    ``program_options``, ``results`` and ``report`` serve a program; ``convention``, ``joint_objects`` and
    ``fixed_orientation`` serve targets. The other parameters are those of
    :func:`~thermocomp.pipeline.run_compensation` and :func:`~thermocomp.programs.compensate_program`.

    Raises
    ------
    ConfigurationError
        Neither or both sources, or an option of the other source.
    InputError, CompensationFailed
        As the source's function: nothing is written.
    """
    if (targets is None) == (program is None):
        raise ConfigurationError("one of --targets or --program is required")
    if program is None:
        misplaced = [flag for flag, used in (("--program-output etc.", program_options is not None),
                                             ("--results", results is not None),
                                             ("--program-report", report is not None)) if used]
        if misplaced:
            raise ConfigurationError(f"{', '.join(misplaced)}: expected with --program only")
        return run_compensation(robot, deformation, targets, out, plot=plot, options=options,
                                fixed_orientation=fixed_orientation, allow_failures=allow_failures, progress=progress,
                                convention=convention, robot_options=robot_options, joint_objects=joint_objects)
    misplaced = [flag for flag, used in (("--convention", convention != "table"),
                                         ("--joint-objects", joint_objects is not None),
                                         ("--orientation-euler-xyz-deg", fixed_orientation is not None)) if used]
    if misplaced:
        raise ConfigurationError(f"{', '.join(misplaced)} cannot be combined with --program (the program gives the "
                                 "targets; --at-minute, --timed or --time-indexed give the time)")
    from thermocomp.programs.compensate import compensate_program

    return compensate_program(robot, deformation, program, out, options=options, program_options=program_options,
                              allow_failures=allow_failures, results=results, report=report, progress=progress,
                              robot_options=robot_options, plot=plot)



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
        A folder holding no robot program (naming ``--program``).
    """
    from thermocomp.programs.compensate import URSCRIPT_SUFFIXES
    from thermocomp.programs.rapid import RAPID_SUFFIXES

    suffixes = RAPID_SUFFIXES + URSCRIPT_SUFFIXES  # a folder's robot programs, by extension
    found: list[Path] = []
    for item in programs:
        path = Path(item)
        if path.is_dir():
            inside = sorted(p for p in path.iterdir() if p.is_file() and p.suffix.lower() in suffixes)
            if not inside:
                raise InputError(f"--program: expected robot programs ({', '.join(suffixes)}) in the folder, "
                                 "found none", path=str(path))
            found += inside
        else:
            found.append(path)
    return found


def compensate_programs(robot: str | PathLike, deformation: PathLike, programs: list[PathLike], out_dir: PathLike, *,
                        options: CompensationOptions | None = None, program_options: ProgramOptions | None = None,
                        allow_failures: bool = False, robot_options: RobotFileOptions | None = None,
                        jobs: int = 1) -> list[ProgramOutcome]:
    """Compensate every program of ``programs`` (files, or folders of them) into ``out_dir``, under its own name.

    Each program is compensated as :func:`~thermocomp.programs.compensate_program` does, all or none: one that
    fails or is refused is not written, and the others still are. Every output is checked before any work
    (never over an input, never two programs to one name); the programs written appear together at the end
    (an interrupted run writes none).

    Parameters
    ----------
    robot, deformation, options, program_options, allow_failures, robot_options
        As :func:`~thermocomp.programs.compensate_program`, for every program.
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
    from thermocomp.programs.compensate import compensate_program

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
    with concurrent.futures.ProcessPoolExecutor(max_workers=min(jobs, len(tasks)), mp_context=context) as pool:
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


__all__ = ["STATUSES", "ProgramOutcome", "compensate_programs", "compensate_source", "program_files"]
