"""The frame of a compensation job: open the job, bind robot and table, run, report.

Both sources of ``thermocomp compensate`` go through :func:`run_job`: a targets
CSV (:func:`thermocomp.app.targets.run_compensation`) and a robot program
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

from thermocomp._typing import PathLike
from thermocomp.app.prepare import RobotAndTable, robot_and_table
from thermocomp.compensation.compensate import CompensationOptions
from thermocomp.deformation.table import DeformationTable
from thermocomp.errors import ThermocompError
from thermocomp.io.job import Job
from thermocomp.io.robot_files import RobotFileOptions
from thermocomp.io.robots import robot_file
from thermocomp.robot.chain import Chain


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


def run_job(robot: str | PathLike | Chain, deformation: PathLike | DeformationTable,
            work: Callable[[Job, RobotAndTable], Report], files: Declared, *,
            options: CompensationOptions | None = None, robot_options: RobotFileOptions | None = None,
            convention: str = "table", joint_objects: PathLike | None = None, job: Job | None = None) -> Report:
    """Open the job, declare and check ``files``, bind robot and table, run ``work(job, bound)``, commit.

    Parameters
    ----------
    robot, deformation, options, robot_options, convention, joint_objects
        As :func:`thermocomp.app.prepare.robot_and_table` (the robot file, the
        table file, ``--joint-objects`` and ``--time-law`` are declared as
        inputs).
    work
        The source's own work: reads its input, solves, writes its outputs
        into the job (:meth:`~thermocomp.io.job.Job.open`,
        :meth:`~thermocomp.io.job.Job.write_with`) and returns its report.
    files
        The source's own inputs and outputs.
    job
        The :class:`~thermocomp.io.job.Job` of a larger run, which then
        commits; default a job of its own, committed here (the report's
        ``written`` then lists what it wrote).

    Raises
    ------
    InputError
        A file that cannot be read or written (naming its option), before any work; nothing is written.
    CompensationFailed
        From ``work``: nothing is written.
    """
    options = CompensationOptions() if options is None else options
    own = job is None
    job = Job() if job is None else job
    with job if own else contextlib.nullcontext(job):
        job.input(robot_file(robot), "--robot")
        job.input(file_of(deformation), "--deformation")
        for path, option in files.inputs:
            job.input(path, option)
        job.input(joint_objects, "--joint-objects")
        job.input(options.time_law_file, "--time-law")
        for output in files.outputs:
            # (path, option), or (path, option, begins, kind) for a name the user did not give: a file there that
            # this option did not write is refused, not replaced
            job.output(*output) if len(output) == 2 else job.derived_output(*output)
        job.check()
        bound = robot_and_table(robot, deformation, job=job, robot_options=robot_options, options=options,
                                convention=convention, joint_objects=joint_objects)
        report = work(job, bound)
        if own:
            report.written = job.commit()
    return report


__all__ = ["CompensationFailed", "Declared", "Report", "file_of", "run_job"]
