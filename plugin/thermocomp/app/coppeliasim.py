"""The actions of ``thermocomp coppeliasim`` (and ``compensate --simulator coppeliasim``), one function each.

Each action takes its options object (where, which robot of the scene, and one frozen dataclass of what to do,
checked when it is made: :class:`FkCheck`, :class:`Showing`, :class:`SceneCompensation`, :class:`Playing`,
:class:`ConventionComparison`) and the run's :class:`~thermocomp.io.job.Job`
(docs/jobs.md): it declares its input files and outputs there, which are
checked before CoppeliaSim is contacted or anything is computed, prints
through :meth:`Job.echo` (so ``--report`` holds the same text) and commits
its outputs when the work, the scene check included, has succeeded. The
command line only parses and calls (:mod:`thermocomp.cli.coppeliasim`); what
talks to CoppeliaSim is :mod:`thermocomp.simulators.coppeliasim`.
"""

from __future__ import annotations

import contextlib
import math
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from thermocomp._typing import FloatArray, PathLike
from thermocomp.app.jobs import CompensationJob
from thermocomp.app.prepare import bind_law, bind_table, robot_and_table
from thermocomp.app.targets import CompensationReport, compensate_targets
from thermocomp.compensation.compensate import CompensationOptions, ProgressCallback
from thermocomp.compensation.targets import Targets
from thermocomp.deformation.table import DeformationTable
from thermocomp.deformation.timelaw import LinearRamp, Static, TimeLaw
from thermocomp.errors import ConfigurationError, InputError
from thermocomp.io.job import Job
from thermocomp.io.results_rows import ConvergedRows
from thermocomp.io.robot_files import RobotFileOptions
from thermocomp.io.robots import robot_file
from thermocomp.simulators.coppeliasim.compensation import SceneCheck, check_in_scene
from thermocomp.simulators.coppeliasim.connection import Session
from thermocomp.simulators.coppeliasim.scene import SceneRobot
from thermocomp.simulators.magnification import check_magnification

#: Most random configurations ``check --configurations`` and ``convention --configurations`` take: each is a
#: few kB of work, and a scene round trip for ``check``; more says nothing new.
MAX_CONFIGURATIONS = 100_000


@dataclass(frozen=True)
class Address:
    """Where CoppeliaSim's ZMQ remote API listens, and the options that set it (named when unreachable)."""

    host: str
    port: int
    timeout_s: float
    options: tuple[str, str] = ("--host", "--port")
    #: Say which CoppeliaSim was reached (several instances listen on 23000, 23001, ...) on stderr and in the log.
    announce: bool = True

    def __post_init__(self) -> None:
        if not 0 < self.port < 65536:
            raise ConfigurationError(f"{self.options[1]}: expected a TCP port 1 to 65535, got {self.port}")
        if not (math.isfinite(self.timeout_s) and self.timeout_s > 0):
            raise ConfigurationError(f"--timeout-s: expected seconds > 0, got {self.timeout_s!r}")


@dataclass(frozen=True)
class RobotInScene:
    """Which robot of the scene: its base, its TCP object, and optionally its joints (object paths)."""

    robot_path: str = "/IRB140"
    tip: str | None = None
    joints: tuple[str, ...] | None = None

    @classmethod
    def from_text(cls, robot_path: str, tip: str | None, joints: str | None) -> RobotInScene:
        """``joints`` as the command line gives it: comma-separated object paths, or ``None``."""
        paths = None if joints is None else tuple(j.strip() for j in joints.split(",") if j.strip())
        return cls(robot_path, tip, paths)


@contextlib.contextmanager
def _connect(address: Address, job: Job) -> Iterator:
    from thermocomp.simulators.coppeliasim import CoppeliaSimUnreachable, connect

    job.check_inputs_exist()  # a missing file is that, not the connection that failed first
    try:
        session = connect(address.host, address.port, address.timeout_s)
    except CoppeliaSimUnreachable as exc:
        host_option, port_option = address.options
        raise CoppeliaSimUnreachable(f"{exc} Options: {host_option} (now {address.host}), {port_option} "
                                     f"(now {address.port}).") from exc
    with session:
        if address.announce:  # on stderr, so that stdout stays the action's output (read-robot's CSV)
            print(f"connected to {session.describe()}", file=sys.stderr, flush=True)
            job.note(f"connected to {session.describe()}")
        yield session


def _read_robot(session, which: RobotInScene):
    from thermocomp.simulators.coppeliasim import read_robot

    return read_robot(session, which.robot_path, tip_path=which.tip, joint_paths=which.joints)


def check_configurations(count: int, option: str = "--configurations") -> int:
    """``count`` if 1 to :data:`MAX_CONFIGURATIONS`, else a :class:`ConfigurationError` naming ``option``."""
    if not 1 <= count <= MAX_CONFIGURATIONS:
        raise ConfigurationError(f"{option}: expected 1 to {MAX_CONFIGURATIONS:,} configurations, got {count:,}")
    return int(count)


def check_seed(seed: int, option: str = "--seed") -> int:
    """``seed`` if it can seed :func:`numpy.random.default_rng` (0 to 2**63 - 1), else a named error."""
    if not 0 <= seed < 2**63:
        raise ConfigurationError(f"{option}: expected a whole number from 0 to 2**63 - 1, got {seed}")
    return int(seed)


def _finite(value: float, option: str, *, low: float = 0.0) -> float:
    """``value`` if finite and >= ``low``, else a :class:`ConfigurationError` naming ``option``."""
    if not (math.isfinite(value) and value >= low):
        raise ConfigurationError(f"{option}: expected a finite number >= {low:g}, got {value!r}")
    return float(value)


def info(address: Address, job: Job) -> None:
    """Connect and echo CoppeliaSim's version and protocol."""
    job.check()
    with _connect(address, job) as session:
        job.echo(session.describe())


def read_robot_table(address: Address, which: RobotInScene, out: PathLike | None, job: Job, *,
                     joint_objects_out: PathLike | None = None) -> None:
    """Echo (or write to ``out``) the scene robot in table form (seed 002, Table 7).

    ``joint_objects_out``: also write the joint objects' world orientations at
    the zero pose (what ``compensate --convention authors-coppeliasim
    --joint-objects`` needs for this robot).
    """
    from thermocomp.io.chain_csv import chain_csv_text
    from thermocomp.io.scene_joints_csv import scene_joints_csv_text

    out = job.output(out, "--out")
    joint_objects_out = job.output(joint_objects_out, "--joint-objects-out")
    job.check()
    with _connect(address, job) as session:
        robot = _read_robot(session, which)
    comments = (f"{robot.chain.name} read from the CoppeliaSim scene ({which.robot_path}), table form of seed 002, "
                "Table 7",)
    text = chain_csv_text(robot.chain, comments=comments)
    if out is not None:
        job.write_text(out, text)
    if joint_objects_out is not None:
        job.write_text(joint_objects_out, scene_joints_csv_text(robot.R_world_joint, comments=(
            f"joint objects of {robot.chain.name} at the zero pose, read from the CoppeliaSim scene "
            f"({which.robot_path}): world orientation, CoppeliaSim Euler angles (R = Rx Ry Rz) [deg]",)))
    written = job.commit()
    if out is None:
        print(text, end="")
    for path in written:  # on stderr when stdout carries the CSV
        print(f"wrote {path}", file=sys.stdout if out is not None else sys.stderr)


@dataclass(frozen=True)
class FkCheck:
    """``coppeliasim check``: ``configurations`` random configurations (seeded by ``seed``); ``compare``: also
    compare the scene robot with this robot (built-in name or robot file, a ``.urdf`` / ``.xacro`` read with
    ``robot_options``)."""

    configurations: int = 20
    seed: int = 0
    compare: str | None = None
    robot_options: RobotFileOptions | None = None

    def __post_init__(self) -> None:
        check_configurations(self.configurations)
        check_seed(self.seed)


def check_fk(address: Address, which: RobotInScene, check: FkCheck, job: Job) -> None:
    """Compare CoppeliaSim's TCP with thermocomp's forward kinematics on random configurations."""
    from thermocomp.app.prepare import load_chain
    from thermocomp.kinematics.fk import fk_matrix
    from thermocomp.kinematics.model import nominal_model
    from thermocomp.simulators.coppeliasim import check_nominal_fk

    configurations, seed, compare = check.configurations, check.seed, check.compare
    job.input(robot_file(compare, "--compare"), "--compare")
    job.check()
    other = None if compare is None else load_chain(compare, check.robot_options, job=job)
    with _connect(address, job) as session:
        robot = _read_robot(session, which)
        chain = robot.chain
        q = np.random.default_rng(seed).uniform(chain.lower, chain.upper, size=(configurations, chain.n_joints))
        d = check_nominal_fk(session, robot, q)
    job.echo(f"{session.describe()}; robot {chain.name} ({chain.n_joints} joints)")
    job.echo(f"CoppeliaSim's TCP vs thermocomp's forward kinematics, {len(q)} configurations: max "
             f"{d[:, 0].max() * 1e3:.3g} mm, {np.degrees(d[:, 1].max()):.3g} deg")
    if other is not None:
        if other.n_joints != chain.n_joints:
            raise InputError(f"--compare: expected a robot with {chain.n_joints} joints like the scene's, "
                             f"got {other.name} with {other.n_joints}")
        T_a = fk_matrix(nominal_model(chain), q)
        T_b = fk_matrix(nominal_model(other), q)
        job.echo(f"scene robot vs {other.name}: max {np.abs(T_a[:, :3, 3] - T_b[:, :3, 3]).max() * 1e3:.3g} mm "
                 "apart on the same configurations")


@dataclass(frozen=True)
class SceneLaw:
    """How the table is applied in the scene: the time law, the convention (``"table"`` or ``"authors"``) and
    the law file the time law was read from (``--time-law from:FILE``, an input of the run), if any."""

    time_law: TimeLaw
    convention: str = "table"
    file: str | None = None

    def __post_init__(self) -> None:
        if self.convention not in ("table", "authors"):
            raise ConfigurationError(f"--convention: expected 'table' or 'authors', got {self.convention!r}")

    def table_at(self, chain, table: DeformationTable, minute: float | None,
                 R_world_joint=None) -> tuple[DeformationTable, float]:
        """The table (table form) to apply at ``minute`` and the share of it.

        ``minute`` ``None``: the full table (the stabilisation minute of a
        ramp). ``R_world_joint``: the scene robot's joint-object orientations
        at the zero pose, for the authors' convention.
        """
        from thermocomp.deformation.coppeliasim_convention import authors_deformation_table

        law = self.time_law
        if minute is None:
            minute = 0.0 if isinstance(law, Static) else getattr(law, "stabilisation_min", 0.0)
        minute = _finite(minute, "--minute")
        if self.convention == "authors":
            return authors_deformation_table(chain, table, minute, law, R_world_joint), 1.0
        return table, float(law.fraction(minute))


@dataclass(frozen=True)
class Showing:
    """``coppeliasim show``: the table ``deformation`` under ``law`` at ``minute`` (``None``: the full table),
    magnified, held ``hold_s`` seconds or until ``until_file`` exists."""

    deformation: PathLike
    law: SceneLaw
    minute: float | None = None
    magnification: float = 1.0
    hold_s: float = 10.0
    until_file: PathLike | None = None

    def __post_init__(self) -> None:
        check_magnification(self.magnification, "--magnification")  # (1e308 placed the joint objects 1e305 m away)
        _finite(self.hold_s, "--hold-s")


def show(address: Address, which: RobotInScene, showing: Showing, job: Job) -> None:
    """Show the deformed robot for ``hold_s`` seconds (or until ``until_file`` exists), then restore the scene."""
    from thermocomp.deformation.apply import deformed_model
    from thermocomp.simulators.coppeliasim import deformation_shown

    deformation, law, minute, magnification = showing.deformation, showing.law, showing.minute, showing.magnification
    hold_s, until_file = showing.hold_s, showing.until_file
    job.input(deformation, "--deformation")
    job.check()
    with _connect(address, job) as session:
        robot = _read_robot(session, which)
        table_file = bind_table(robot.chain, deformation)
        table, fraction = law.table_at(robot.chain, table_file, minute, robot.R_world_joint)
        model = deformed_model(robot.chain, table, fraction * magnification)
        with deformation_shown(session, robot, model):
            job.echo(f"showing {table.source} x {magnification:g} on {robot.chain.name}; "
                     f"restoring after {hold_s:g} s or on Ctrl-C")
            deadline = time.monotonic() + hold_s
            stop = None if until_file is None else Path(until_file)
            while time.monotonic() < deadline and not (stop is not None and stop.exists()):
                time.sleep(0.1)
        job.echo("restored the nominal scene")


@dataclass(frozen=True)
class SceneCompensation:
    """``coppeliasim compensate`` (and ``compensate --simulator coppeliasim``): the targets CSV compensated on the
    scene's robot under ``law`` at ``minutes``, the rows of ``check_minutes`` (default the last minute) replayed in
    the scene, the results CSV ``out``. ``solver``: the ``ik``, ``starts`` and ``seed`` fields of
    :class:`CompensationOptions`; ``fixed_orientation`` ``(3, 3)`` for position-only targets."""

    deformation: PathLike
    targets: PathLike
    out: PathLike
    law: SceneLaw
    minutes: tuple[float, ...]
    check_minutes: tuple[float, ...] | None = None
    fixed_orientation: FloatArray | None = None
    solver: dict | None = None
    allow_failures: bool = False

    def options(self) -> CompensationOptions:
        """The solve's options (the time law and minutes the scene's convention then binds)."""
        return CompensationOptions(time_law=self.law.time_law, minutes=tuple(self.minutes), **(self.solver or {}))

    def __post_init__(self) -> None:
        self.options()  # the minutes and the solver's settings, checked when the job is made


def compensate(address: Address, which: RobotInScene, scene: SceneCompensation, job: Job, *,
               progress: ProgressCallback | None = None) -> None:
    """Compensate a program on the scene's robot, replay it in the scene, then write the results.

    The results appear only after the scene check has run (one commit). ``progress(rows_done, rows_total)``
    hears of the rows. Raises :class:`~thermocomp.app.jobs.CompensationFailed` as
    :func:`thermocomp.app.targets.compensate_targets` does (nothing written).
    """
    from thermocomp.io.targets_csv import read_targets_csv

    deformation, targets, law = scene.deformation, scene.targets, scene.law
    job.input(deformation, "--deformation")
    job.input(targets, "--targets")
    job.input(law.file, "--time-law")
    out = job.output(scene.out, "--out")
    job.check()
    options = scene.options()
    with _connect(address, job) as session:
        robot = _read_robot(session, which)
        program = read_targets_csv(targets, fixed_orientation=scene.fixed_orientation, n_joints=robot.chain.n_joints)
        # the authors' convention with the scene's own joint-object orientations (a ramp: each minute its table)
        table, options = bind_law(robot.chain, bind_table(robot.chain, deformation), options,
                                  "authors-coppeliasim" if law.convention == "authors" else "table",
                                  robot.R_world_joint)
        report, check = compensate_in_scene(session, robot, table, program, options=options, out=out,
                                            allow_failures=scene.allow_failures, check_minutes=scene.check_minutes,
                                            progress=progress, job=job)
    report.written = job.commit()
    job.echo(report.text())
    job.echo(check.text())


def compensate_in_scene(
    session: Session,
    robot: SceneRobot,
    table: DeformationTable,
    program: Targets,
    *,
    options: CompensationOptions | None = None,
    out=None,
    allow_failures: bool = False,
    check_minutes: Sequence[float] | None = None,
    progress: ProgressCallback | None = None,
    job: Job | None = None,
) -> tuple[CompensationReport, SceneCheck]:
    """Compensate ``program`` on the scene's robot, then replay it in the scene.

    Parameters
    ----------
    table
        Full deformation table (table form; for the authors' scene convention
        convert first with
        :func:`thermocomp.deformation.coppeliasim_convention.authors_deformation_table`).
    program
        Targets in the world frame.
    options, out, allow_failures
        As :func:`thermocomp.app.targets.compensate_targets`. A time law with a
        table per minute (the authors' incremental law,
        :class:`~thermocomp.deformation.coppeliasim_convention.AuthorsIncrements`)
        shows each checked minute's own table.
    check_minutes
        Minutes whose converged rows are replayed in the scene; default the
        last minute of ``options.minutes`` (every row for a timed program).
    progress
        Called as ``progress(rows_done, rows_total)`` while solving.
    job
        The run's :class:`~thermocomp.io.job.Job`: ``out`` is written into it
        and appears only when the caller commits, after the scene check;
        default a job of its own, committed once the check has run.

    Returns
    -------
    report
        The compensation (``report.chunks`` holds every row).
    check
        What CoppeliaSim computed for the replayed rows.
    """
    options = CompensationOptions() if options is None else options
    own = job is None
    job = Job() if job is None else job
    with job if own else contextlib.nullcontext(job):
        report = compensate_targets(CompensationJob(robot.chain, table, targets=program, out=out, options=options,
                                                    allow_failures=allow_failures, keep_results=True),
                                    progress=progress, within=job)
        check = check_in_scene(session, robot, table, program, options, report.chunks, check_minutes)
        if own:
            report.written = job.commit()
    return report, check


def read_played_rows(results: PathLike, chain, minute: float | None) -> tuple[float, ConvergedRows]:
    """The converged rows of ``minute`` (default the last minute in the file) of a results CSV, to play: that
    minute and its rows, each within ``chain``'s joint limits (else a located error).

    Raises
    ------
    InputError
        As :func:`thermocomp.io.results_rows.read_converged_rows`; no converged row, or none at ``minute``; an
        angle outside the limits (file, line, column).
    """
    from thermocomp.io.results_rows import read_converged_rows

    every = read_converged_rows(results, chain.n_joints)
    if not every.target:
        raise InputError("no converged rows to play", path=str(results))
    minutes = sorted(set(every.minute.tolist()))
    chosen = minutes[-1] if minute is None else float(minute)
    if chosen not in minutes:
        raise InputError(f"no converged rows at minute {chosen:g}; the file has minutes {minutes[0]:g}..{minutes[-1]:g}",
                         path=str(results))
    rows = every.at_minute(chosen)
    outside = (rows.q < chain.lower) | (rows.q > chain.upper)
    if np.any(outside):
        k, j = np.argwhere(outside)[0]
        raise InputError(f"expected a joint angle within the robot's limits {np.degrees(chain.lower[j]):.6g} to "
                         f"{np.degrees(chain.upper[j]):.6g} deg, got {np.degrees(rows.q[k, j]):.6g}",
                         path=str(results), row=int(rows.lines[k]), column=f"q{j + 1}_deg")
    return chosen, rows


@dataclass(frozen=True)
class Playing:
    """``coppeliasim play``: the rows of ``minute`` (default the last) of the results CSV ``results``, each held
    ``dwell_s`` seconds, on the robot deformed by ``deformation`` under ``law`` (magnified) if given."""

    results: PathLike
    law: SceneLaw
    deformation: PathLike | None = None
    minute: float | None = None
    magnification: float = 1.0
    dwell_s: float = 0.5

    def __post_init__(self) -> None:
        check_magnification(self.magnification, "--magnification")  # (1e308 placed the joint objects 1e305 m away)
        _finite(self.dwell_s, "--dwell-s")
        if self.minute is not None:
            _finite(self.minute, "--minute")


def play(address: Address, which: RobotInScene, playing: Playing, job: Job) -> None:
    """Play the compensated rows of one minute of a results CSV in the scene (deformed by a table if given)."""
    from thermocomp.deformation.apply import deformed_model
    from thermocomp.simulators.coppeliasim.play import play as play_rows

    results, deformation, law, minute = playing.results, playing.deformation, playing.law, playing.minute
    magnification, dwell_s = playing.magnification, playing.dwell_s
    job.input(results, "--results")
    job.input(deformation, "--deformation")
    job.check()
    with _connect(address, job) as session:
        robot = _read_robot(session, which)
        played, rows = read_played_rows(results, robot.chain, minute)
        model = None
        if deformation is not None:
            table_file = bind_table(robot.chain, deformation)
            table, fraction = law.table_at(robot.chain, table_file, played, robot.R_world_joint)
            model = deformed_model(robot.chain, table, fraction * magnification)
            if not isinstance(law.time_law, Static) and law.convention == "table" and fraction == 0.0:
                job.echo(f"note: minute {played:g} of the linear ramp applies none of the table, so the robot "
                         "is shown undeformed; results of 'compensate --static' are played deformed with --static")
        job.echo(f"playing {len(rows.target)} targets of minute {played:g} from {results}")
        play_rows(session, robot, rows.q, model=model, dwell_s=dwell_s,
                  on_row=lambda k: job.echo(f"  {rows.target[k]}"))
        job.echo("restored the nominal scene")


def restore(address: Address, robot_path: str, forget: bool, job: Job) -> None:
    """Put back a robot an earlier run left deformed (or forget the saved poses)."""
    from thermocomp.simulators.coppeliasim import restore_saved_nominal

    job.check()
    with _connect(address, job) as session:
        count = restore_saved_nominal(session, robot_path, forget_only=forget)
    if count is None:
        job.echo(f"nothing to restore: no nominal poses saved on {robot_path} (the last run restored it)")
    elif forget:
        job.echo(f"dropped the saved nominal poses of {robot_path}; the scene as it is counts as nominal")
    else:
        job.echo(f"restored the nominal poses of {count} objects of {robot_path}")


def load_scene(address: Address, scene_file: PathLike, robot_path: str | None, job: Job) -> None:
    """Build a scene file's cell in CoppeliaSim and place the robot's base (read before connecting)."""
    from thermocomp.io.scene_file import read_scene
    from thermocomp.simulators.coppeliasim import load_cell

    job.input(scene_file, "scene")
    job.check()
    scene = read_scene(scene_file)  # a bad file touches nothing
    with _connect(address, job) as session:
        loaded = load_cell(session, scene, robot_path)
    job.echo(loaded.text(scene))


@dataclass(frozen=True)
class ConventionComparison:
    """``coppeliasim convention``: the authors' scene convention for ``robot`` (a ``.urdf`` / ``.xacro`` read with
    ``robot_options``) and ``deformation``, static or incremental (``stabilisation_min`` T, at ``minute``, default
    T), compared with the paper's model on ``configurations`` random configurations; the table to ``out`` (or
    standard output)."""

    robot: str
    deformation: PathLike
    stabilisation_min: float | None = None
    minute: float | None = None
    configurations: int = 2000
    seed: int = 0
    out: PathLike | None = None
    robot_options: RobotFileOptions | None = None

    def __post_init__(self) -> None:
        check_configurations(self.configurations)
        check_seed(self.seed)
        if self.minute is not None:  # refused, not ignored: the static convention has no minute
            _finite(self.minute, "--minute")
            if self.stabilisation_min is None:
                raise ConfigurationError(f"--minute {self.minute:g}: the static convention applies the full table "
                                         "once; give --stabilisation-min T for the incremental law's minutes")


def convention(comparison: ConventionComparison, job: Job) -> None:
    """The authors' scene convention as a table-form table (echoed or written to ``out``), and its distance
    from the paper's model on random configurations."""
    from thermocomp.deformation.coppeliasim_convention import convention_difference
    from thermocomp.io.deformation_csv import deformation_csv_text
    from thermocomp.io.robots import builtin_joint_objects

    robot, deformation, out = comparison.robot, comparison.deformation, comparison.out
    stabilisation_min, minute = comparison.stabilisation_min, comparison.minute
    configurations, seed, robot_options = comparison.configurations, comparison.seed, comparison.robot_options
    job.input(robot_file(robot), "--robot")
    job.input(deformation, "--deformation")
    out = job.output(out, "--out")
    job.check()
    bound = robot_and_table(robot, deformation, job=job, robot_options=robot_options)
    chain, table = bound.chain, bound.table
    if stabilisation_min is None:
        law, at = Static(), None
    else:
        law = LinearRamp(stabilisation_min)
        at = stabilisation_min if minute is None else _finite(minute, "--minute")
    # a built-in scene robot's own joint objects (irb140-paper-scene), read here: the core reads no file
    diff = convention_difference(chain, table, at, law, n_configurations=configurations, seed=seed,
                                 R_world_joint=builtin_joint_objects(chain.name, chain.n_joints))
    comments = (f"Table-form equivalent of {table.source} applied with the authors' CoppeliaSim scene convention "
                f"({diff.law}), robot {chain.name}; rows: joints 1..n (docs/coppeliasim.md)",)
    text = deformation_csv_text(diff.authors_table, comments=comments)
    if out is None:
        print(text, end="")
    else:
        job.write_text(out, text)
        for path in job.commit():
            print(f"wrote {path}")
    print(diff.text())


def install(coppeliasim_dir: PathLike, force: bool, job: Job | None = None) -> Path:
    """Copy the add-on into CoppeliaSim's ``addOns/`` folder (an output of ``job``); returns the installed file."""
    from thermocomp.simulators.coppeliasim import install_addon

    return install_addon(coppeliasim_dir, overwrite=force, job=job)

