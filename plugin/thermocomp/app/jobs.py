"""The frame of a compensation job: open the job, bind robot and table, run, report.

Both sources of ``thermocomp compensate`` are one :class:`CompensationJob` (every option, checked once) and
go through :func:`run_job`: a targets
CSV (:func:`thermocomp.app.targets.compensate_targets`) and a robot program
(:func:`thermocomp.app.program.compensate_program`). It declares every input and
output in one :class:`~thermocomp.io.job.Job` and checks them before any work
(docs/jobs.md), loads the robot and binds its deformation table and time law
(:func:`thermocomp.app.prepare.robot_and_table`), hands both to the source's own
work, and commits the outputs all or none. Each source's report is a
:class:`Report`; a run whose rows or points failed (and failures were not
allowed) raises the one :class:`CompensationFailed`, carrying that report.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from thermocomp._typing import FloatArray, PathLike
from thermocomp.app.prepare import RobotAndTable, robot_and_table
from thermocomp.compensation.compensate import CompensationOptions
from thermocomp.compensation.targets import Targets
from thermocomp.deformation.table import DeformationTable
from thermocomp.errors import ConfigurationError, ThermocompError
from thermocomp.io.job import Job
from thermocomp.io.robot_files import RobotFileOptions
from thermocomp.io.robots import robot_file
from thermocomp.robot.chain import Chain

if TYPE_CHECKING:  # the programs' modules (lark, the grammars) load with a program's run only
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
        The source: a targets CSV (or a :class:`~thermocomp.compensation.targets.Targets`, or a pandas DataFrame
        with the self-describing columns, :func:`~thermocomp.io.targets_csv.read_targets_frame`), or a RAPID /
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
    allow_failures
        Write the outputs even when some rows or points failed (their status says so).
    plot
        PNG of the errors and corrections per minute (:func:`thermocomp.app.plotting.plot_png`), or ``None``.
    robot_options
        How a ``.urdf`` / ``.xacro`` robot file is read (base and tip links, xacro arguments, ROS packages;
        :mod:`thermocomp.io.robot_files`).
    keep_results
        Targets only: keep every solved chunk in the report (``report.chunks``, ``report.frame()``); default only
        when ``out`` is ``None``.

    Raises
    ------
    ConfigurationError
        Neither or both sources, or an option of the other source (naming the options as typed).
    """

    robot: str | PathLike | Chain
    deformation: PathLike | DeformationTable
    targets: PathLike | Targets | None = None
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
    keep_results: bool | None = None

    def __post_init__(self) -> None:
        if self.program is not None:
            misplaced = [flag for flag, used in (("--targets", self.targets is not None),
                                                 ("--minutes", self.minutes_given),
                                                 ("--convention", self.convention != "table"),
                                                 ("--joint-objects", self.joint_objects is not None),
                                                 ("--orientation-euler-xyz-deg", self.fixed_orientation is not None),
                                             ("keep_results", self.keep_results is not None))
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


class Report:
    """What one compensation run did: the base of :class:`~thermocomp.app.targets.CompensationReport` (targets)
    and :class:`~thermocomp.app.program.ProgramReport` (a robot program).

    Attributes
    ----------
    written
        The files the run wrote, once they are all committed; empty when it wrote none.
    """

    written: list[Path]

    def text(self) -> str:
        """The report as printed (and written by ``--program-report``)."""
        raise NotImplementedError

    def failure_text(self) -> str:
        """What failed, when :class:`CompensationFailed` carries this report."""
        raise NotImplementedError

    def closing_lines(self) -> list[str]:
        """Lines printed after :meth:`text` (standard output)."""
        return []

    def warnings(self) -> list[str]:
        """Warnings printed on standard error after the report."""
        return []


class CompensationFailed(ThermocompError):
    """Some rows (targets) or points (a program) could not be compensated and failures were not allowed; nothing
    was written. ``report`` says what was solved and what failed."""

    def __init__(self, report: Report) -> None:
        self.report = report
        super().__init__(report.failure_text())


@dataclass(frozen=True)
class Declared:
    """The files of one run besides the robot and the table, as ``(path, option)`` pairs (``None`` paths skipped),
    in the order the job declares them; an output under a name the run derived is ``(path, option, begins,
    kind)`` (:meth:`~thermocomp.io.job.Job.derived_output`)."""

    inputs: Sequence[tuple[PathLike | None, str]] = ()
    outputs: Sequence[tuple] = ()


def file_of(source: object) -> PathLike | None:
    """``source`` when it is a path, ``None`` for an object."""
    return source if isinstance(source, (str, Path)) else None


def run_job(job: CompensationJob, work: Callable[[Job, RobotAndTable], Report], files: Declared, *,
            within: Job | None = None) -> Report:
    """Open the run's files, declare and check ``files``, bind robot and table, run ``work(files, bound)``, commit.

    Parameters
    ----------
    job
        The run: its robot, table, options, robot options, convention and joint objects go to
        :func:`thermocomp.app.prepare.robot_and_table` (the robot file, the table file, ``--joint-objects`` and
        ``--time-law`` are declared as inputs).
    work
        The source's own work: reads its input, solves, writes its outputs
        into the :class:`~thermocomp.io.job.Job` (:meth:`~thermocomp.io.job.Job.open`,
        :meth:`~thermocomp.io.job.Job.write_with`) and returns its report.
    files
        The source's own inputs and outputs.
    within
        The :class:`~thermocomp.io.job.Job` of a larger run, which then
        commits; default one of its own, committed here (the report's
        ``written`` then lists what it wrote).

    Raises
    ------
    InputError
        A file that cannot be read or written (naming its option), before any work; nothing is written.
    CompensationFailed
        From ``work``: nothing is written.
    """
    options = CompensationOptions() if job.options is None else job.options
    own = within is None
    run = Job() if within is None else within
    with run if own else contextlib.nullcontext(run):
        run.input(robot_file(job.robot), "--robot")
        run.input(file_of(job.deformation), "--deformation")
        for path, option in files.inputs:
            run.input(path, option)
        run.input(job.joint_objects, "--joint-objects")
        run.input(options.time_law_file, "--time-law")
        for output in files.outputs:
            # (path, option), or (path, option, begins, kind) for a name the user did not give: a file there that
            # this option did not write is refused, not replaced
            run.output(*output) if len(output) == 2 else run.derived_output(*output)
        run.check_inputs_exist()  # (a missing file named with the option that gave it, before any is read)
        run.check()
        bound = robot_and_table(job.robot, job.deformation, job=run, robot_options=job.robot_options,
                                options=options, convention=job.convention, joint_objects=job.joint_objects)
        report = work(run, bound)
        if own:
            report.written = run.commit()
    return report


__all__ = ["CompensationFailed", "CompensationJob", "Declared", "Report", "file_of", "run_job"]
