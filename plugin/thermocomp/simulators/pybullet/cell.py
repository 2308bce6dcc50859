"""A robot cell in PyBullet: the scene, the deformed robot and its ghost, from a :class:`SimSetup`.

:func:`thermocomp.app.sim.load_setup` reads and validates everything a
simulation needs (robot, deformation table, targets, scene, meshes) into a
:class:`SimSetup`, and :func:`thermocomp.app.sim.compensate_setup` solves it
(the ``thermocomp sim`` job is :mod:`thermocomp.app.sim`). What PyBullet does
with them is one call each here:

* :func:`measure_compensated`: play the compensated program in PyBullet
  DIRECT and return what the simulator measured;
* :func:`check_collisions`: the corrected program against the robot itself
  and the cell;
* :func:`save_screenshot` (``--screenshot``): a TinyRenderer picture;

and :func:`thermocomp.simulators.pybullet.gui.run_gui` opens the GUI.
"""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol

import numpy as np

from thermocomp._typing import FloatArray, PathLike
from thermocomp.compensation.compensate import CompensationChunk, CompensationOptions
from thermocomp.compensation.targets import Targets
from thermocomp.deformation.table import DeformationTable
from thermocomp.errors import ConfigurationError
from thermocomp.io.job import Job
from thermocomp.io.robot_files import RobotFileOptions
from thermocomp.io.robots import BUILTIN_ROBOTS, robot_file
from thermocomp.io.scene_file import (
    EMPTY_SCENE,
    MeshMap,
    Scene,
)
from thermocomp.kinematics.model import nominal_model
from thermocomp.robot.chain import Chain
from thermocomp.simulators.magnification import MAGNIFICATION_RANGE, check_magnification
from thermocomp.simulators.pybullet.client import Client, connect
from thermocomp.simulators.pybullet.collision import (
    CollisionOptions,
    CollisionReport,
    check_program_collisions,
)
from thermocomp.simulators.pybullet.geometry import RobotGeometry, robot_file_geometry, robot_geometry
from thermocomp.simulators.pybullet.render import (
    Camera,
    camera_framing,
    check_picture_size,
    check_png_path,
    render_cell,
    scene_points,
    with_legend,
    write_png,
)
from thermocomp.simulators.pybullet.robot import (
    GHOST_RGBA,
    DeformedRobot,
    RobotBody,
    load_model,
    unique_urdf_path,
)
from thermocomp.simulators.pybullet.scene import SceneBodies, load_scene
from thermocomp.simulators.pybullet.tracker import (
    TrackerMeasurement,
    measure_program,
)


class Compensated(Protocol):
    """A compensation's rows, as :class:`thermocomp.app.targets.CompensationReport` holds them."""

    chunks: Sequence[CompensationChunk]


#: Radius of the target markers in pictures [m].
TARGET_MARKER_RADIUS = 0.006
#: Colour of the target markers.
TARGET_RGBA = (0.85, 0.1, 0.1, 1.0)


@dataclass(frozen=True, eq=False)
class SimSetup:
    """Validated inputs of a simulation.

    Attributes
    ----------
    chain
        The robot, standing where the scene puts it (``T_world_base``
        includes the scene's placement).
    robot
        The robot as given: a built-in name or a robot file path.
    table
        Full deformation table, SI.
    program
        Targets in the world frame.
    scene
        The cell (:data:`~thermocomp.io.scene_file.EMPTY_SCENE` when none).
    options
        Time law, minutes and solver settings of the compensation.
    mesh_map
        The user's link meshes, or ``None`` (built-in envelopes or primitives).
    robot_options
        How a ``.urdf`` / ``.xacro`` robot file was read (:mod:`thermocomp.io.robot_files`).
    """

    chain: Chain
    robot: str
    table: DeformationTable
    program: Targets
    scene: Scene = EMPTY_SCENE
    options: CompensationOptions = field(default_factory=CompensationOptions)
    mesh_map: MeshMap | None = None
    robot_options: RobotFileOptions | None = None

    @property
    def minutes(self) -> FloatArray:
        """The program's minutes [min]: the targets' own times, or the options' grid, sorted and distinct."""
        if self.program.time_min is not None:
            return np.unique(self.program.time_min)
        return np.asarray(self.options.minutes, dtype=float)

    def fraction(self, minute: float) -> float:
        """Share of the table applied at ``minute`` [min] (the options' time law)."""
        return float(self.options.time_law.fraction(minute))

    def input_files(self) -> tuple[Path, ...]:
        """Every file this setup was read from: robot, deformation, targets, scene and all it names, meshes.

        Outputs are checked against this list before anything is written
        (:func:`check_outputs`), so no input is ever overwritten.
        """
        from thermocomp.io.robot_files import robot_file_inputs

        found: list[Path] = []
        path = robot_file(self.robot)
        if path is not None:
            found.append(path)
        found.extend(robot_file_inputs(self.robot, self.robot_options))  # a xacro's includes, the file's meshes
        found.extend(Path(str(p)) for p in (self.table.source, self.program.source) if p is not None)
        found.extend(self.scene.files())
        if self.mesh_map is not None:
            found.extend(self.mesh_map.files())
        return tuple(p for p in dict.fromkeys(found) if p.is_file())

    def check_minute(self, minute: float) -> float:
        """``minute`` [min] if it lies within the program's minutes, else :class:`ConfigurationError`."""
        first, last = float(self.minutes[0]), float(self.minutes[-1])
        if not (np.isfinite(minute) and first <= minute <= last):
            raise ConfigurationError(f"minute: expected a minute of the program, {first:.12g} to {last:.12g}, "
                                     f"got {minute:.12g}")
        return float(minute)

    def geometry(self, cache_dir: PathLike) -> RobotGeometry:
        """The robot's link meshes: a mesh map, else a robot file's own meshes, else built-in envelopes, else primitives.

        Generated files (primitives, convex pieces, OBJ copies of COLLADA visuals) go to ``cache_dir``.
        """
        from thermocomp.io.robot_files import ROBOT_FILE_SUFFIXES

        if self.mesh_map is None and Path(self.robot).suffix.lower() in ROBOT_FILE_SUFFIXES:
            found = robot_file_geometry(self.chain, self.robot, cache_dir, self.robot_options)
            if found is not None:
                return found
        builtin = self.robot if self.robot in BUILTIN_ROBOTS else None
        return robot_geometry(self.chain, cache_dir, robot=builtin, mesh_map=self.mesh_map)


def check_outputs(setup: SimSetup | None, outputs: Sequence[PathLike], *, inputs: Sequence[PathLike] = ()) -> None:
    """Refuse outputs that cannot be written, before any work (a :class:`~thermocomp.io.job.Job`'s check).

    Each output's folder must exist and be writable; no output may be one
    of the setup's inputs (:meth:`SimSetup.input_files`) or of ``inputs``,
    nor the same file as another output, nor anything but a regular file.

    Raises
    ------
    InputError
        Naming each output and what is wrong with it.
    """
    job = Job()
    job.inputs(inputs)
    if setup is not None:
        job.inputs(setup.input_files())
    for output in outputs:
        job.output(output)
    job.check()


#: The GUI opens with the deformation magnified so that it moves the TCP of the robot at home by about this
#: share of the robot's reach (about 40 mm on an IRB140): at magnification 1 a real thermal deformation
#: (tenths of a millimetre) is invisible, the ghost hidden inside the robot. Seed 002's Figure 12 magnified
#: "up to 1000 times".
VISIBLE_SHARE = 0.05


def display_magnification(setup: SimSetup, minute: float) -> float:
    """The magnification at which the deformation at ``minute`` shows: :data:`VISIBLE_SHARE` of the reach.

    The TCP of the robot at its home configuration moves by ``d`` [m] between
    the nominal robot and the robot deformed at ``minute`` (seed 002,
    Eqs. 18-22); the magnification is ``VISIBLE_SHARE * reach / d``, rounded
    down to 1, 2 or 5 times a power of ten and kept within
    :data:`MAGNIFICATION_RANGE` (1 when nothing is deformed). ``reach`` is the
    length of the chain at its zero pose, joint to joint to the TCP.
    """
    from thermocomp.deformation.apply import deformed_model
    from thermocomp.kinematics.fk import fk
    from thermocomp.kinematics.model import nominal_model

    chain = setup.chain
    lo, hi = MAGNIFICATION_RANGE
    _, p_nominal = fk(nominal_model(chain), chain.home)
    _, p_deformed = fk(deformed_model(chain, setup.table, setup.fraction(minute), setup.options.composition), chain.home)
    shift = float(np.linalg.norm(p_deformed - p_nominal))
    reach = float(np.linalg.norm(chain.p, axis=1).sum() + np.linalg.norm(chain.T_last_tcp[:3, 3]))
    if shift <= 0.0:
        return lo
    wanted = VISIBLE_SHARE * reach / shift
    decade = 10.0 ** np.floor(np.log10(wanted))
    nice = max(step * decade for step in (1.0, 2.0, 5.0) if step * decade <= wanted)
    return float(np.clip(nice, lo, hi))


#: How far [m] a link of the magnified robot may reach below the plane the robot stands on (or below the real
#: robot's own lowest point at the same pose, where that is lower): PyBullet's AABB margin is some millimetres.
BELOW_PLANE_SLACK = 1e-3


def support_plane_z(setup: SimSetup) -> float:
    """Height [m] of the plane the robot stands on: its base's (the floor, or the table of its cell's mount)."""
    return float(setup.chain.T_world_base[2, 3])


def program_configurations(setup: SimSetup) -> tuple[FloatArray, np.ndarray]:
    """The nominal joints of every target ``(m, n)`` [rad] (the program's, as the controller takes them) and
    which converged ``(m,)`` (:func:`thermocomp.compensation.compensate.nominal_solutions`)."""
    from thermocomp.compensation.compensate import nominal_solutions
    from thermocomp.kinematics.ik import Status

    found = nominal_solutions(setup.chain, setup.program, setup.options)
    return found.q, found.status == Status.CONVERGED


def largest_deviation(setup: SimSetup, minute: float, q: FloatArray, ok: np.ndarray) -> float:
    """The largest TCP miss [m] of the uncompensated program at ``minute``: the nominal joints ``q`` ``(m, n)``
    of the targets where ``ok`` on the robot deformed at that minute (seed 002, Eqs. 18-22), against the targets."""
    from thermocomp.deformation.apply import deformed_model
    from thermocomp.kinematics.fk import fk

    if not np.any(ok):
        return float("nan")
    model = deformed_model(setup.chain, setup.table, setup.fraction(minute), setup.options.composition)
    _, p = fk(model, q[ok])
    return float(np.linalg.norm(p - setup.program.p_world_tcp[ok], axis=1).max())


def lowest_link_z(body: RobotBody, q_rows: FloatArray) -> FloatArray:
    """The lowest point [m] of the links that move (``link1`` .. ``tcp``, not the base) of ``body`` at each
    configuration ``(k, n)``: the least z of their PyBullet AABBs, ``(k,)``."""
    pb, cid = body.client.pb, body.client.id
    links = [index for name, index in body.link_index.items() if name not in ("world", "base")]
    lowest = np.empty(len(q_rows))
    for k, q in enumerate(q_rows):
        body.set_q(q)
        lowest[k] = min(pb.getAABB(body.body, link, physicsClientId=cid)[0][2] for link in links)
    return lowest


def magnification_ladder(magnification: float) -> list[float]:
    """``magnification`` and the values 1, 2, 5 times a power of ten below it, down to 1, largest first."""
    lo, _ = MAGNIFICATION_RANGE
    steps = [step * 10.0 ** k for k in range(0, 4) for step in (1.0, 2.0, 5.0)]
    return [float(magnification)] + sorted((x for x in steps if lo <= x < magnification), reverse=True)


def magnification_within_cell(setup: SimSetup, magnification: float, *, workdir: PathLike | None = None) -> float:
    """The largest of :func:`magnification_ladder` (``magnification``) at which no moving link of the magnified
    robot goes below the plane it stands on (:func:`support_plane_z`) at any configuration of the program (home
    and every target's nominal joints) and any of its minutes.

    A magnified deformation tilts the links (tens of degrees at x20 with a degree per joint): the magnified
    robot dived through the table of its cell. Checked in PyBullet (DIRECT) on the link AABBs of the robot's
    meshes, against the real robot's (magnification 1) at the same pose, which may itself reach below the
    plane (then that is the bound), with :data:`BELOW_PLANE_SLACK`.
    """
    if check_magnification(magnification) <= 1.0:
        return 1.0  # the real robot
    q, ok = program_configurations(setup)
    q_rows = np.vstack([setup.chain.home[None], q[ok]])
    fraction = max(setup.fraction(float(m)) for m in setup.minutes)
    plane = support_plane_z(setup)
    with connect("direct") as client, work_directory(workdir) as work:
        robot = DeformedRobot(client, setup.chain, setup.table, work, setup.geometry(work / "meshes"),
                              composition=setup.options.composition, rgba=None, name="cap")
        bound = np.minimum(lowest_link_z(robot.show(fraction, 1.0), q_rows), plane) - BELOW_PLANE_SLACK
        for candidate in magnification_ladder(magnification):
            if candidate <= 1.0 or np.all(lowest_link_z(robot.show(fraction, candidate), q_rows) >= bound):
                return candidate
    return 1.0


def magnification_warning(setup: SimSetup, magnification: float, option: str = "--magnification", *,
                          workdir: PathLike | None = None) -> str | None:
    """What is wrong with an explicit ``magnification`` that drives the robot through the plane it stands on (its
    cell's table or the floor) along the program, naming ``option``, the value and the cap the automatic choice
    would use (:func:`magnification_within_cell`); ``None`` when it stays above. The value is taken as given: a
    display magnification only changes the picture."""
    cap = magnification_within_cell(setup, check_magnification(magnification, option), workdir=workdir)
    if cap >= magnification:
        return None
    return (f"{option} {magnification:g}: the magnified robot goes below the plane it stands on (its cell's table "
            f"or the floor) along the program; the automatic magnification is capped at {cap:g} for this robot, "
            "cell and program")


def automatic_magnification(setup: SimSetup, minute: float, *, workdir: PathLike | None = None) -> float:
    """The magnification a picture and the GUI open with: :func:`display_magnification` at ``minute``, within the
    cell (:func:`magnification_within_cell`)."""
    return magnification_within_cell(setup, display_magnification(setup, minute), workdir=workdir)


class Cell:
    """The scene, the deformed robot and (optionally) the nominal ghost in one PyBullet client.

    Parameters
    ----------
    setup
        The inputs.
    client
        An open connection (DIRECT or GUI).
    workdir
        Folder for regenerated URDFs and generated meshes (created if missing).
    ghost
        Also load the nominal robot as a translucent ghost that collides with nothing.
    """

    def __init__(self, setup: SimSetup, client: Client, workdir: PathLike, *, ghost: bool = True) -> None:
        self.setup = setup
        self.client = client
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.geometry = setup.geometry(self.workdir / "meshes")
        self.scene: SceneBodies = load_scene(client, setup.scene)
        self.robot = DeformedRobot(client, setup.chain, setup.table, self.workdir, self.geometry,
                                   composition=setup.options.composition)
        self.ghost: RobotBody | None = None
        if ghost:
            self.ghost = load_model(client, nominal_model(setup.chain), unique_urdf_path(self.workdir, "ghost"),
                                    self.geometry, cached_graphics=client.gui)
            self.ghost.set_rgba(GHOST_RGBA)
            self.ghost.disable_collisions()
            self.ghost.set_q(setup.chain.home)
        self.markers: list[int] = []

    def set_q(self, q: FloatArray) -> None:
        """Pose the deformed robot and the ghost at controller angles ``q`` [rad] ``(n,)``."""
        self.robot.set_q(q)
        if self.ghost is not None:
            self.ghost.set_q(q)

    def add_target_markers(self) -> None:
        """Small spheres at the targets (visible in TinyRenderer pictures, unlike debug lines)."""
        pb, cid = self.client.pb, self.client.id
        shape = pb.createVisualShape(pb.GEOM_SPHERE, radius=TARGET_MARKER_RADIUS, rgbaColor=list(TARGET_RGBA),
                                     physicsClientId=cid)
        positions = self.setup.program.p_world_tcp.tolist()
        made = pb.createMultiBody(baseMass=0.0, baseVisualShapeIndex=shape, batchPositions=positions,
                                  physicsClientId=cid)
        self.markers = list(made) if isinstance(made, (list, tuple)) else [made]

    def framing_points(self) -> FloatArray:
        """Points a picture must show [m] ``(k, 3)``: every body's bounding box and the targets."""
        return np.vstack([scene_points(self.client), self.setup.program.p_world_tcp])

    def close(self) -> None:
        """Remove the robots and markers (the scene's bodies and the client belong to the caller)."""
        self.robot.remove()
        if self.ghost is not None:
            self.ghost.remove()
            self.ghost = None
        for marker in self.markers:
            self.client.pb.removeBody(marker, physicsClientId=self.client.id)
        self.markers = []


@contextlib.contextmanager
def work_directory(workdir: PathLike | None = None) -> Iterator[Path]:
    """``workdir`` (created if missing), or a temporary folder removed afterwards when it is ``None``.

    One run shares one folder (``thermocomp sim`` passes the same one to
    :func:`measure`, :func:`check_collisions` and :func:`render_screenshot`),
    so the meshes generated under its ``meshes/`` (primitive envelopes,
    convex pieces; named by a hash of what they are made from) are built
    once and reused.
    """
    if workdir is not None:
        folder = Path(workdir)
        folder.mkdir(parents=True, exist_ok=True)
        yield folder
        return
    with tempfile.TemporaryDirectory(prefix="thermocomp_sim_") as work:
        yield Path(work)


def measure_compensated(setup: SimSetup, report: Compensated, *, progress: Callable[[int, int], None] | None = None,
                        workdir: PathLike | None = None) -> TrackerMeasurement:
    """Play the rows of a compensation (``report.chunks``) in PyBullet DIRECT: what the simulated tracker measures.

    ``progress`` is called as ``progress(rows_done, rows_total)``; ``workdir``
    holds the generated URDFs (:func:`work_directory`). The job that
    compensates first and writes the CSV is :func:`thermocomp.app.sim.measure`.
    """
    with connect("direct") as client, work_directory(workdir) as work:
        return measure_program(client, setup.chain, setup.table, setup.program, report.chunks, work,
                               composition=setup.options.composition, progress=progress)


def check_collisions(setup: SimSetup, report: Compensated, options: CollisionOptions | None = None, *,
                     progress: Callable[[int, int], None] | None = None,
                     workdir: PathLike | None = None) -> CollisionReport:
    """Check the corrected configurations of ``report`` against the robot itself and the scene (DIRECT).

    ``progress`` is called as ``progress(rows_done, rows_total)``; ``workdir``
    holds the generated files (:func:`work_directory`).
    """
    with connect("direct") as client, work_directory(workdir) as work:
        geometry = setup.geometry(work / "meshes")
        bodies = load_scene(client, setup.scene)
        return check_program_collisions(client, setup.chain, setup.table, setup.program.names, report.chunks,
                                        geometry, bodies, work, options=options,
                                        composition=setup.options.composition, progress=progress)


@dataclass(frozen=True)
class Screenshot:
    """What :func:`save_screenshot` (or :func:`render_screenshot`) drew.

    Attributes
    ----------
    path
        The PNG; ``None`` until it is written (:func:`render_screenshot`).
    camera
        The camera used.
    minute, magnification
        Deformation shown.
    robot_pixels
        Pixels where the deformed robot is seen.
    geometry
        Where the robot's meshes came from.
    reload_seconds
        Duration of loading the deformed robot [s].
    deviation
        The largest TCP miss [m] of the uncompensated program at ``minute`` (:func:`largest_deviation`).
    legend
        The lines written in the picture's upper left corner: robot, program, minute, magnification, largest
        deviation (empty without a legend).
    """

    path: Path | None
    camera: Camera
    minute: float
    magnification: float
    robot_pixels: int
    geometry: str
    reload_seconds: float
    deviation: float = float("nan")
    legend: tuple[str, ...] = ()


def render_screenshot(setup: SimSetup, *, minute: float | None = None, magnification: float | None = None,
                      q: FloatArray | None = None, ghost: bool = True, targets: bool = True,
                      camera: Camera | None = None, width: int = 960, height: int = 720,
                      workdir: PathLike | None = None, legend: bool = True) -> tuple[np.ndarray, Screenshot]:
    """The picture of :func:`save_screenshot`, not written: ``(rgb (height, width, 3) uint8, what was drawn)``.

    Parameters are those of :func:`save_screenshot` (without ``path``).
    """
    minute = float(setup.minutes[-1]) if minute is None else setup.check_minute(float(minute))
    if magnification is not None:
        check_magnification(magnification)
    check_picture_size(width, height)
    q = setup.chain.home if q is None else np.asarray(q, dtype=float)
    with work_directory(workdir) as work:
        if magnification is None:
            magnification = automatic_magnification(setup, minute, workdir=work)
        deviation = largest_deviation(setup, minute, *program_configurations(setup)) if legend else float("nan")
        with connect("direct") as client:
            cell = Cell(setup, client, work, ghost=ghost)
            cell.set_q(q)
            body = cell.robot.show(setup.fraction(minute), magnification)
            if targets:
                cell.add_target_markers()
            cam = camera if camera is not None else camera_framing(client, cell.framing_points(), width=width,
                                                                   height=height)
            rgb, seg = render_cell(client, cam, ghost=cell.ghost)
            shot = Screenshot(path=None, camera=cam, minute=minute, magnification=magnification,
                              robot_pixels=int(np.count_nonzero(seg == body.body)), geometry=cell.geometry.source,
                              reload_seconds=cell.robot.reload_seconds[-1], deviation=deviation)
    if not legend:
        return rgb, shot
    lines = legend_lines(setup, shot)
    return with_legend(rgb, lines), replace(shot, legend=lines)


def legend_lines(setup: SimSetup, shot: Screenshot) -> tuple[str, ...]:
    """What a picture says about itself, as the GUI's text does: robot, program, minute, magnification, and the
    largest deviation of the uncompensated program at that minute."""
    program = Path(setup.program.source).name if setup.program.source else f"{setup.program.n_targets} targets"
    deviation = "n/a" if not np.isfinite(shot.deviation) else f"{shot.deviation * 1e3:.4g} mm"
    return (f"robot {setup.chain.name}; program {program}",
            f"minute {shot.minute:g}; deformation magnified x{shot.magnification:g} (display only)",
            f"largest deviation without compensation: {deviation}")


def save_screenshot(setup: SimSetup, path: PathLike, *, minute: float | None = None,
                    magnification: float | None = None, q: FloatArray | None = None, ghost: bool = True,
                    targets: bool = True, camera: Camera | None = None, width: int = 960, height: int = 720,
                    workdir: PathLike | None = None, legend: bool = True) -> Screenshot:
    """A TinyRenderer picture of the cell with the deformed robot (no display needed).

    Parameters
    ----------
    setup
        The inputs.
    path
        PNG to write (completely or not at all).
    minute
        Minute of the deformation shown [min], within the program's minutes;
        default the program's last.
    magnification
        Display factor of the deformation (1 to 1000); default :func:`automatic_magnification`: the GUI's,
        without a link going below the plane the robot stands on.
    q
        Controller angles [rad] ``(n,)``; default the robot's home configuration.
    ghost
        Draw the nominal robot translucent over the deformed one.
    targets
        Mark the targets with small red spheres.
    camera
        Default: framing the robot's reach, the scene and the targets.
    width, height
        Picture size [px] of the default camera, at least
        :data:`~thermocomp.simulators.pybullet.render.MIN_PICTURE_PX`.
    workdir
        Folder for the generated files (:func:`work_directory`).
    legend
        Write :func:`legend_lines` in the picture's upper left corner.

    Raises
    ------
    ConfigurationError
        A minute outside the program, a magnification outside 1..1000, a
        picture size too small; checked before anything is loaded.
    InputError
        ``path`` not a ``.png`` in an existing folder, or one of the setup's
        inputs; checked before anything is rendered.
    """
    check_png_path(path)
    check_outputs(setup, [path])
    rgb, shot = render_screenshot(setup, minute=minute, magnification=magnification, q=q, ghost=ghost,
                                  targets=targets, camera=camera, width=width, height=height, workdir=workdir,
                                  legend=legend)
    return replace(shot, path=write_png(path, rgb))


__all__ = [
    "VISIBLE_SHARE",
    "Cell",
    "Compensated",
    "Screenshot",
    "SimSetup",
    "check_collisions",
    "automatic_magnification",
    "check_outputs",
    "display_magnification",
    "largest_deviation",
    "legend_lines",
    "magnification_warning",
    "magnification_within_cell",
    "measure_compensated",
    "render_screenshot",
    "save_screenshot",
    "work_directory",
]
