"""``thermocomp sim`` without a display: one job, the work, then every file at once.

:func:`prepare` declares the run's files in a :class:`~thermocomp.io.job.Job`
(docs/jobs.md) and reads the inputs (:func:`~thermocomp.simulators.pybullet.cell.load_setup`);
every output is checked against every input, the files the scene names
included, before any work. :func:`run_batch` then compensates, measures in
PyBullet, checks collisions and renders as asked, and commits all outputs
together: a failure (or Ctrl-C, SIGTERM, SIGHUP) leaves none of them, and
the work folder of generated meshes is removed either way.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from thermocomp._typing import FloatArray, PathLike
from thermocomp.compensation.compensate import CompensationOptions
from thermocomp.io.job import Job
from thermocomp.io.robot_files import RobotFileOptions
from thermocomp.io.robots import robot_file
from thermocomp.simulators.pybullet import cell as sim

#: Picture size of a screenshot when none is given [px].
DEFAULT_SIZE = (960, 720)


@dataclass(frozen=True)
class BatchOutputs:
    """What a display-less run produces; paths are ``None`` when not asked for.

    Attributes
    ----------
    out
        Measurement CSV of the headless run (``--out``; implies the measurement).
    collisions
        Check the corrected program for collisions (``--collisions``).
    collisions_out
        CSV of every flagged pair (``--collisions-out``).
    clearance
        Pairs closer than this are flagged too [m], >= 0.
    screenshot
        PNG of the cell (``--screenshot``).
    size
        Picture size ``(width, height)`` [px].
    minute, magnification
        Deformation shown in the picture; ``None``: the program's last minute, and the magnification the GUI
        opens with (:func:`~thermocomp.simulators.pybullet.cell.automatic_magnification`).
    """

    out: PathLike | None = None
    collisions: bool = False
    collisions_out: PathLike | None = None
    clearance: float = 0.0
    screenshot: PathLike | None = None
    size: tuple[int, int] = DEFAULT_SIZE
    minute: float | None = None
    magnification: float | None = None

    def declared(self) -> dict[str, PathLike | None]:
        """The output files by option."""
        return {"--out": self.out, "--collisions-out": self.collisions_out, "--screenshot": self.screenshot}


def prepare(job: Job, robot: str | None, deformation: PathLike, targets: PathLike | None, *, scene: PathLike | None,
            meshes: PathLike | None, options: CompensationOptions, fixed_orientation: FloatArray | None,
            outputs: dict[str, PathLike | None], robot_options: RobotFileOptions | None = None,
            program: PathLike | None = None) -> sim.SimSetup:
    """Declare the inputs and ``outputs`` (by option) in ``job``, check them, read the inputs, check again.

    The second check covers the files only the inputs name (the scene's
    robot file, mesh maps, meshes), still before any work.
    """
    job.input(robot_file(robot), "--robot")
    job.input(deformation, "--deformation")
    job.input(targets, "--targets")
    job.input(program, "--program")
    job.input(scene, "--scene")
    job.input(meshes, "--meshes")
    job.input(options.time_law_file, "--time-law")
    for option, path in outputs.items():
        job.output(path, option)
    job.check()
    setup = sim.load_setup(robot, deformation, targets, program=program, scene=scene, meshes=meshes, options=options,
                           fixed_orientation=fixed_orientation, robot_options=robot_options)
    job.inputs(setup.input_files(), "a file the inputs name")
    job.check()
    return setup


def run_batch(job: Job, setup: sim.SimSetup, outputs: BatchOutputs, *, allow_failures: bool = False,
              echo: Callable[[str], None] = print,
              progress: Callable[[str], Callable[[int, int], None] | None] = lambda label: None) -> int:
    """Compensate, measure, check collisions and render as ``outputs`` asks; commit every file at the end.

    ``echo`` prints each summary; ``progress(label)`` makes a progress
    callback per stage. Returns the number of flagged collision pairs.

    Raises
    ------
    thermocomp.app.jobs.CompensationFailed
        Rows failed and ``allow_failures`` is False (nothing written).
    """
    from thermocomp.simulators.pybullet.collision import CollisionOptions, write_collision_csv
    from thermocomp.simulators.pybullet.render import write_png
    from thermocomp.simulators.pybullet.tracker import write_tracker_csv

    minute = None if outputs.minute is None else setup.check_minute(outputs.minute)
    hits = 0
    notes: list[str] = []
    with sim.work_directory() as work:  # the meshes generated for the collision check are reused by the picture
        report = None
        if outputs.out is not None or outputs.collisions:
            report = sim.compensate_setup(setup, allow_failures=allow_failures, progress=progress("compensating"))
            echo(report.text())
        if outputs.out is not None:
            measurement, _ = sim.measure(setup, None, report=report, workdir=work,
                                         progress=progress("measuring in PyBullet"))
            echo(measurement.text())
            job.write_with(outputs.out, lambda path: write_tracker_csv(measurement, path))
        if outputs.collisions:
            found = sim.check_collisions(setup, report, CollisionOptions(clearance=outputs.clearance), workdir=work,
                                         progress=progress("checking collisions"))
            echo(found.text())
            hits = found.n_hits
            if outputs.collisions_out is not None:
                job.write_with(outputs.collisions_out, lambda path: write_collision_csv(found, path))
        if outputs.screenshot is not None:
            width, height = outputs.size
            rgb, shot = sim.render_screenshot(setup, minute=minute, magnification=outputs.magnification, width=width,
                                              height=height, workdir=work)
            job.write_with(outputs.screenshot, lambda path: write_png(path, rgb))
            notes.append(f" (minute {shot.minute:.12g}, magnification {shot.magnification:g}; {shot.geometry})")
        written = job.commit()
    for path in written:
        echo(f"wrote {path}{notes[0] if notes and str(path) == str(outputs.screenshot) else ''}")
    return hits
