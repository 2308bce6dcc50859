"""What ``thermocomp compensate`` runs: one source (a targets CSV or a robot program), or many programs.

:func:`run_compensation` runs one :class:`~thermocomp.app.jobs.CompensationJob` (every option, its combinations
checked once): the one call of the command line and of the Python API for both sources. A targets CSV goes to
:func:`thermocomp.app.targets.compensate_targets`, a robot program to
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
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from thermocomp._typing import PathLike
from thermocomp._workers import end_with_parent
from thermocomp.app.jobs import CompensationFailed, CompensationJob, Report, file_of
from thermocomp.app.targets import compensate_targets
from thermocomp.compensation.compensate import ProgressCallback
from thermocomp.errors import ConfigurationError, InputError, ThermocompError
from thermocomp.io.job import Job
from thermocomp.io.robots import robot_file

if TYPE_CHECKING:  # the programs' modules (lark, the grammars) load with a program's run only
    from thermocomp.app.program import ProgramReport


def run_compensation(job: CompensationJob, progress: ProgressCallback | None = None) -> Report:
    """Run ``job``: its targets through :func:`~thermocomp.app.targets.compensate_targets`, or its program through
    :func:`~thermocomp.app.program.compensate_program`; ``progress(rows_done, rows_total)`` hears of the rows.

    The one call of ``thermocomp compensate`` and of the Python API (:func:`thermocomp.run_compensation`)::

        import thermocomp
        job = thermocomp.CompensationJob("irb140", "deformations/exaggerated.csv",
                                         targets="examples/targets_random50.csv", out="compensated.csv")
        print(thermocomp.run_compensation(job).text())

    Raises
    ------
    InputError, CompensationFailed
        As the source's function: nothing is written.
    """
    if job.program is None:
        return compensate_targets(job, progress=progress)
    from thermocomp.app.program import compensate_program  # (lark, the grammars: a program's run only)

    return compensate_program(job, progress=progress)


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


def compensate_programs(job: CompensationJob, programs: list[PathLike], out_dir: PathLike, *,
                        jobs: int = 1) -> list[ProgramOutcome]:
    """Compensate every program of ``programs`` (files, or folders of them) into ``out_dir``, under its own name.

    Each program is compensated as :func:`~thermocomp.app.program.compensate_program` does, all or none: one that
    fails or is refused is not written, and the others still are. Every output is checked before any work
    (never over an input, never two programs to one name); the programs written appear together at the end
    (an interrupted run writes none).

    Parameters
    ----------
    job
        The options of every program (robot, deformation, options, program options, allow_failures, robot
        options): each program runs as ``job`` with its own ``program`` and ``out`` (``job``'s own are not
        used; its other outputs must be ``None``).
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
    if job.program is None or any(v is not None for v in (job.results, job.report, job.plot)):
        raise ConfigurationError("compensate_programs: expected the job of a program with no output of its own "
                                 "(--results, --program-report, --plot), which the batch's summary replaces")
    if not (isinstance(jobs, int) and 1 <= jobs <= 1024):
        raise ConfigurationError(f"--jobs: expected a number of processes from 1 to 1024, got {jobs!r}")
    folder = Path(out_dir)
    if not folder.is_dir():
        raise InputError("--out-dir: expected an existing folder", path=str(folder))
    by_name: dict[str, Path] = {}
    for path in program_files(programs):
        if path.name in by_name and not os.path.samefile(by_name[path.name], path):
            raise InputError(f"--program: {by_name[path.name]} and {path} would both be written as "
                             f"{folder / path.name}; compensate them into separate folders", path=str(path))
        by_name.setdefault(path.name, path)  # (one file named twice, through a link: compensated once)
    files = list(by_name.values())
    outs = [folder / p.name for p in files]
    # one job per program, as a worker process receives it
    tasks = [replace(job, program=path, out=out) for path, out in zip(files, outs)]
    options = job.options
    from thermocomp.app.program import ProgramOutputs, module_head

    modules = () if job.program_options is None else job.program_options.rapid.modules
    with Job() as run:
        run.input(robot_file(job.robot), "--robot")
        run.input(file_of(job.deformation), "--deformation")
        run.inputs(files, "--program")
        run.inputs(modules, "--module")
        run.input(None if options is None else options.time_law_file, "--time-law")
        for out in outs:
            run.output(out, "--out-dir")
            for module in modules:  # where a program's module whose targets change is written (a derived name)
                run.derived_output(ProgramOutputs(out=out).module_out(module), f"--out-dir (for --module {module})",
                                   module_head(module), f"a compensated copy of {Path(module).name}")
        run.check()
        if jobs == 1 or len(tasks) == 1:
            outcomes = []
            for task in tasks:
                outcome, staged = _compensate_one(task)
                run.adopt(staged)
                outcomes.append(outcome)
        else:
            outcomes = _in_processes(run, tasks, jobs)
        run.commit()
    return outcomes


def _compensate_one(task: CompensationJob) -> tuple[ProgramOutcome, dict[Path, Path]]:
    """Compensate one program into its own job; its outcome, and its written temporaries for the batch's job."""
    from thermocomp.app.program import compensate_program

    program, out = Path(task.program), Path(task.out)
    with Job() as run:
        try:
            report = compensate_program(task, within=run)
        except CompensationFailed as exc:
            return ProgramOutcome(program, out, "failed", _portable(exc.report), str(exc)), {}
        except ThermocompError as exc:
            return ProgramOutcome(program, out, "refused", None, str(exc)), {}
        report.written = [out]
        return ProgramOutcome(program, out, "ok", _portable(report)), run.hand_over()


def _portable(report: ProgramReport) -> ProgramReport:
    """``report`` with its per-motion rows built (they are built when first read): it crosses processes."""
    report.rows = list(report.rows)
    return report


def _in_processes(job: Job, tasks: list[CompensationJob], jobs: int) -> list[ProgramOutcome]:
    """The tasks over ``jobs`` worker processes, their written temporaries adopted by ``job`` as they come back.

    On an error the tasks not started are cancelled and the running ones finish, so that every temporary is known
    to ``job``, which then removes them all. On an interrupt (Ctrl-C, or SIGTERM to this process alone) the running
    ones are interrupted too: each worker gets SIGTERM, which its task turns into Ctrl-C (its own job removes what
    it staged), instead of the batch waiting for programs that may take minutes.
    """
    context = multiprocessing.get_context("spawn")  # (fork copies numba's and BLAS's threads mid-state)
    others = set(multiprocessing.active_children())
    # the workers end with this process, even killed hard (their temporaries carry its id: the next run removes them)
    with concurrent.futures.ProcessPoolExecutor(max_workers=min(jobs, len(tasks)), mp_context=context,
                                                initializer=end_with_parent, initargs=(os.getpid(),)) as pool:
        futures = [pool.submit(_in_worker, task) for task in tasks]
        # the pool's workers (a spawning pool starts one per task submitted, up to its size): interrupted below
        workers = [p for p in multiprocessing.active_children() if p not in others]
        adopted: set[int] = set()
        try:
            outcomes = []
            for k, future in enumerate(futures):
                outcome, staged = future.result()
                job.adopt(staged)
                adopted.add(k)
                outcomes.append(outcome)
            return outcomes
        except BaseException as exc:
            pool.shutdown(wait=False, cancel_futures=True)
            if isinstance(exc, KeyboardInterrupt):
                for worker in workers:
                    if worker.is_alive():
                        worker.terminate()
            pool.shutdown(wait=True)
            for k, future in enumerate(futures):
                if k not in adopted and future.done() and not future.cancelled() and future.exception() is None:
                    job.adopt(future.result()[1])  # removed with the job's other temporaries
            raise


def _in_worker(task: CompensationJob) -> tuple[ProgramOutcome, dict[Path, Path]]:
    """:func:`_compensate_one` in a worker process, which turns SIGTERM and SIGHUP into Ctrl-C as the command line
    does: its job then removes its temporaries."""
    from thermocomp.io.job import interrupt_on_termination

    with interrupt_on_termination():
        return _compensate_one(task)


__all__ = ["STATUSES", "CompensationJob", "ProgramOutcome", "compensate_programs", "program_files",
           "run_compensation"]
