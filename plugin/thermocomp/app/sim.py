"""``thermocomp sim``: one job, the work, then every file at once; PyBullet does the simulating.

:func:`prepare` declares the run's files in a :class:`~thermocomp.io.job.Job`
(docs/jobs.md) and reads the inputs (:func:`load_setup`);
every output is checked against every input, the files the scene names
included, before any work. :func:`run_batch` then compensates, measures in
PyBullet, checks collisions and renders as asked, and commits all outputs
together: a failure (or Ctrl-C, SIGTERM, SIGHUP) leaves none of them, and
the work folder of generated meshes is removed either way.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from thermocomp._typing import FloatArray, PathLike
from thermocomp.app.jobs import CompensationJob, file_of
from thermocomp.app.prepare import robot_and_table
from thermocomp.app.program import check_program_frame, check_program_robot, program_targets
from thermocomp.app.targets import CompensationReport, compensate_targets
from thermocomp.compensation.compensate import CompensationOptions
from thermocomp.compensation.targets import Targets
from thermocomp.deformation.table import DeformationTable
from thermocomp.errors import ConfigurationError, InputError
from thermocomp.io.job import Job
from thermocomp.io.robot_files import RobotFileOptions
from thermocomp.io.robots import is_builtin, robot_file
from thermocomp.io.scene_file import EMPTY_SCENE, Scene, read_mesh_map, read_scene
from thermocomp.io.targets_csv import read_targets_csv
from thermocomp.simulators.magnification import check_magnification
from thermocomp.simulators.pybullet import cell as sim
from thermocomp.simulators.pybullet.render import check_picture_size
from thermocomp.simulators.pybullet.tracker import TrackerMeasurement, write_tracker_csv

#: Picture size of a screenshot when none is given [px].
DEFAULT_SIZE = (960, 720)


@dataclass(frozen=True)
class SimOptions:
    """The options of one ``thermocomp sim`` run that need no file; their combinations checked once, here.

    Attributes
    ----------
    targets, program
        The played input: a targets CSV or a robot program (one of the two).
    orientation_given
        ``--orientation-euler-xyz-deg`` was given (it serves position-only targets).
    headless, out
        Play in PyBullet DIRECT and write the measurement CSV (both or neither).
    screenshot, size
        A picture (``.png``) and its size ``(width, height)`` [px]; ``None``: :data:`DEFAULT_SIZE`.
    minute, magnification
        The deformation shown in the picture or at the GUI's start [min], [-]; ``None``: the default.
    collisions, collisions_out, clearance_mm
        The collision check, its CSV and its clearance [mm] (>= 0).

    Raises
    ------
    ConfigurationError
        An option out of range, one that would have no effect, or a combination that cannot run, naming the
        options as the user typed them.
    """

    targets: PathLike | None = None
    program: PathLike | None = None
    orientation_given: bool = False
    headless: bool = False
    out: PathLike | None = None
    screenshot: PathLike | None = None
    size: tuple[int, int] | None = None
    minute: float | None = None
    magnification: float | None = None
    collisions: bool = False
    collisions_out: PathLike | None = None
    clearance_mm: float | None = None

    def __post_init__(self) -> None:
        if (self.targets is None) == (self.program is None):
            raise ConfigurationError("expected --targets CSV or --program FILE (one of the two)")
        if self.program is not None and self.orientation_given:
            raise ConfigurationError("--orientation-euler-xyz-deg serves position-only --targets; a program's "
                                     "targets carry their orientation")
        if self.out and not self.headless:
            raise ConfigurationError("--out is the measurement of --headless; add --headless")
        if self.headless and not self.out:
            raise ConfigurationError("--headless writes its measurement to --out CSV; give --out")
        if self.collisions_out and not self.collisions:
            raise ConfigurationError("--collisions-out needs --collisions")
        if self.clearance_mm is not None:
            if not self.collisions:
                raise ConfigurationError("--clearance-mm sets the clearance of --collisions; add --collisions")
            if not (math.isfinite(self.clearance_mm) and self.clearance_mm >= 0):
                raise ConfigurationError(f"--clearance-mm: expected a distance >= 0 mm, got {self.clearance_mm:g}")
        if self.size is not None:
            if not self.screenshot:
                raise ConfigurationError("--size is the picture size of --screenshot; add --screenshot")
            check_picture_size(*self.size)
        for flag, value in (("--minute", self.minute), ("--magnification", self.magnification)):
            if value is not None and not (self.screenshot or self.gui):
                raise ConfigurationError(f"{flag} sets the deformation shown in a picture (--screenshot) or the GUI; "
                                         "it has no effect on --headless or --collisions")
        if self.magnification is not None:
            check_magnification(self.magnification, "--magnification")
        if self.minute is not None and not math.isfinite(self.minute):
            raise ConfigurationError(f"--minute: expected a finite minute, got {self.minute:g}")
        if self.screenshot and Path(self.screenshot).suffix.lower() != ".png":
            # only the suffix here: the job checks the path (folder, type, inputs) naming --screenshot
            raise ConfigurationError(f"--screenshot {self.screenshot}: expected a picture path ending in .png")

    @property
    def gui(self) -> bool:
        """Whether the GUI opens: no headless measurement, no picture, no collision check asked for."""
        return not (self.headless or self.screenshot or self.collisions)

    def outputs(self) -> BatchOutputs:
        """What the display-less run produces (:func:`run_batch`)."""
        return BatchOutputs(out=self.out, collisions=self.collisions, collisions_out=self.collisions_out,
                            clearance=0.0 if self.clearance_mm is None else self.clearance_mm * 1e-3,
                            screenshot=self.screenshot, size=DEFAULT_SIZE if self.size is None else tuple(self.size),
                            minute=self.minute, magnification=self.magnification)


def shipped_scene(robot: str | None, scene: PathLike | None, no_scene: bool) -> tuple[str | None, str | None, str | None]:
    """The scene to load: ``scene``, else a built-in robot's shipped cell, else none.

    Returns
    -------
    scene : str or None
        The scene file, or ``None`` (the robot alone; a missing robot is said by :func:`load_setup`).
    said : str or None
        The line saying which shipped cell was taken (for stdout), or ``None``.
    note : str or None
        The note that the shipped cell is not part of this install (for stderr), or ``None``.
    """
    from thermocomp.io.robots import BUILTIN_ROBOTS
    from thermocomp.io.scene_file import BUILTIN_SCENES, builtin_scene

    if scene is not None or no_scene:
        return None if scene is None else str(scene), None, None
    if robot is None or robot not in BUILTIN_ROBOTS:
        return None, None, None
    found = builtin_scene(robot)
    if found is None:
        return None, None, (f"the {robot} cell (scenes/{BUILTIN_SCENES[robot]}) is not part of this install; "
                            "showing the robot alone (give --scene FILE, or --no-scene to silence this)")
    return str(found), f"scene: {found} (the {robot}'s shipped cell; --scene FILE or --no-scene to change)", None


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


@dataclass(frozen=True)
class SimInputs:
    """The inputs of a simulation (``thermocomp sim``), checked once when made.

    Parameters
    ----------
    robot
        Built-in name (``irb140``, ``gofa``, ``ur5``) or a robot file; ``None``
        takes the scene's ``[robot] model``.
    deformation
        The paper's deformation CSV [mm, deg] or a table.
    targets
        Targets CSV (world frame) or a :class:`Targets`.
    program
        Instead of ``targets``: a robot program (RAPID, URScript), its motion targets in execution order
        (:func:`thermocomp.app.program.program_targets`): the points the controller goes to, with
        the configuration it takes.
    scene
        Scene file (docs/scenes.md) or a scene; ``None``: the robot alone.
    meshes
        A mesh map file (the user's CAD); overrides the scene's.
    options
        Compensation settings (time law, minutes).
    fixed_orientation
        ``R_world_tcp`` ``(3, 3)`` for position-only target files.
    robot_options
        How a ``.urdf`` / ``.xacro`` robot file is read: base and tip links,
        xacro arguments, ROS package folders.

    Raises
    ------
    ConfigurationError
        Neither or both of ``targets`` and ``program``.
    """

    robot: str | None
    deformation: PathLike | DeformationTable
    targets: PathLike | Targets | None = None
    program: PathLike | None = None
    scene: PathLike | Scene | None = None
    meshes: PathLike | None = None
    options: CompensationOptions | None = None
    fixed_orientation: FloatArray | None = None
    robot_options: RobotFileOptions | None = None

    def __post_init__(self) -> None:
        if (self.targets is None) == (self.program is None):
            raise ConfigurationError("expected targets or a robot program (--targets or --program), one of the two")


def load_setup(inputs: SimInputs) -> sim.SimSetup:
    """Read and check the inputs of a simulation.

    Raises
    ------
    InputError
        Any reader's located error; no robot named; a robot that differs
        from the one the scene is made for.
    """
    robot, deformation, targets, program = inputs.robot, inputs.deformation, inputs.targets, inputs.program
    scene, meshes, options = inputs.scene, inputs.meshes, inputs.options
    fixed_orientation, robot_options = inputs.fixed_orientation, inputs.robot_options
    scene_ = scene if isinstance(scene, Scene) else (EMPTY_SCENE if scene is None else read_scene(scene))
    wanted = scene_.robot.model
    if robot is None:
        if wanted is None:
            raise InputError("no robot given: name one (--robot) or use a scene whose [robot] has a model",
                             path=None if scene is None else scene_.source)
        robot = wanted
    elif wanted is not None and not _same_robot(robot, wanted):
        raise InputError(f"the scene is made for the robot {wanted!r}, got {robot!r}; choose a scene for that "
                         "robot or leave the robot out to take the scene's", path=scene_.source)
    bound = robot_and_table(robot, deformation, robot_options=robot_options, options=options, place=scene_.place)
    if program is not None:
        check_program_robot(bound, program, robot)  # (a RAPID program on a UR arm, a URScript on an ABB one)
    check_program_frame(bound.description, program)  # (a URScript program on a UR robot file: its base frame)
    chain, table = bound.chain, bound.table
    if program is not None:
        played = program_targets(chain, program, bound.options)
    elif isinstance(targets, Targets):
        played = targets
    else:
        played = read_targets_csv(targets, fixed_orientation=fixed_orientation, n_joints=chain.n_joints)
    mesh_map = read_mesh_map(meshes) if meshes is not None else scene_.robot.meshes
    return sim.SimSetup(chain=chain, robot=str(robot), table=table, program=played, scene=scene_,
                    options=CompensationOptions() if options is None else options, mesh_map=mesh_map,
                    robot_options=robot_options)




def _same_robot(a: str, b: str) -> bool:
    if is_builtin(a) or is_builtin(b):
        return a == b
    return Path(a).resolve() == Path(b).resolve()




def compensate_setup(setup: sim.SimSetup, *, allow_failures: bool = False,
                     progress: Callable[[int, int], None] | None = None) -> CompensationReport:
    """Run the core compensation (:func:`thermocomp.app.targets.compensate_targets`) and keep every row.

    Returns
    -------
    thermocomp.app.targets.CompensationReport
        With ``chunks`` (every row) and ``target_names``.

    Raises
    ------
    thermocomp.app.jobs.CompensationFailed
        Rows failed and ``allow_failures`` is False.
    """
    job = CompensationJob(setup.chain, setup.table, targets=setup.program, options=setup.options,
                          allow_failures=allow_failures, keep_results=True)
    return compensate_targets(job, progress=progress)


def compensate_for_gui(setup: sim.SimSetup) -> CompensationReport:
    """The GUI's 'run compensation' button: every row kept, failed rows shown rather than refused."""
    return compensate_setup(setup, allow_failures=True)


def measure(setup: sim.SimSetup, out: PathLike | None = None, *, report: CompensationReport | None = None,
            allow_failures: bool = False, progress: Callable[[int, int], None] | None = None,
            workdir: PathLike | None = None) -> tuple[TrackerMeasurement, CompensationReport]:
    """Compensate (unless ``report`` is given), play in PyBullet DIRECT, write the measurement CSV.

    Parameters
    ----------
    setup
        The inputs.
    out
        CSV of the measurement (:func:`~thermocomp.simulators.pybullet.tracker.write_tracker_csv`); ``None``: write nothing.
    report
        A :class:`thermocomp.app.targets.CompensationReport` with chunks, to reuse.
    progress
        Called as ``progress(rows_done, rows_total)`` by the compensation
        (when it runs here) and by the measurement.
    workdir
        Folder for the generated URDFs (:func:`~thermocomp.simulators.pybullet.cell.work_directory`).

    Returns
    -------
    measurement : thermocomp.simulators.pybullet.tracker.TrackerMeasurement
    report : thermocomp.app.targets.CompensationReport
    """
    with Job() as job:
        job.inputs(setup.input_files())
        if out is not None:
            job.output(out)
        job.check()  # before any work
        if report is None:
            report = compensate_setup(setup, allow_failures=allow_failures, progress=progress)
        measurement = sim.measure_compensated(setup, report, progress=progress, workdir=workdir)
        if out is not None:
            job.write_with(out, lambda path: write_tracker_csv(measurement, path))
        job.commit()
    return measurement, report


def prepare(job: Job, inputs: SimInputs, outputs: dict[str, PathLike | None]) -> sim.SimSetup:
    """Declare the inputs and ``outputs`` (by option) in ``job``, check them, read the inputs, check again.

    The second check covers the files only the inputs name (the scene's
    robot file, mesh maps, meshes), still before any work.
    """
    job.input(robot_file(inputs.robot), "--robot")
    job.input(file_of(inputs.deformation), "--deformation")
    job.input(file_of(inputs.targets), "--targets")
    job.input(inputs.program, "--program")
    job.input(file_of(inputs.scene), "--scene")
    job.input(inputs.meshes, "--meshes")
    job.input(None if inputs.options is None else inputs.options.time_law_file, "--time-law")
    for option, path in outputs.items():
        job.output(path, option)
    job.check()
    setup = load_setup(inputs)
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

    minute = None if outputs.minute is None else setup.check_minute(outputs.minute)
    hits = 0
    notes: list[str] = []
    with sim.work_directory() as work:  # the meshes generated for the collision check are reused by the picture
        report = None
        if outputs.out is not None or outputs.collisions:
            report = compensate_setup(setup, allow_failures=allow_failures, progress=progress("compensating"))
            echo(report.text())
        if outputs.out is not None:
            measurement = sim.measure_compensated(setup, report, workdir=work, progress=progress("measuring in PyBullet"))
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
