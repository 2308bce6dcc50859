"""The identification campaign as the command line runs it: design, rehearse on a simulated robot, identify.

One function per command (``thermocomp excite``, ``simulate-recording``,
``identify``); each reads its inputs, calls the pure core and writes its
outputs through one job (:class:`thermocomp.io.job.Job`, docs/jobs.md): every
conflict refused before any work, all outputs or none, never over an input. docs/dynamics.md.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from thermocomp._typing import PathLike
from thermocomp.dynamics.excitation import Excitation, ExcitationOptions, design_excitation
from thermocomp.dynamics.friction import FrictionTable
from thermocomp.dynamics.identify import Identification, IdentifyOptions, identify
from thermocomp.dynamics.report import TorqueCheck, check_torques, report_text
from thermocomp.dynamics.urdf_parameters import UrdfParameters
from thermocomp.errors import ConfigurationError, InputError
from thermocomp.io.job import Job
from thermocomp.io.recording_csv import Recording, read_recording_csv, write_recording_csv
from thermocomp.io.robot_files import ROBOT_FILE_SUFFIXES, RobotFileOptions
from thermocomp.io.robots import robot_file
from thermocomp.robot.chain import Chain

#: Largest trajectory a command generates (samples): 2 million rows of 6 joints are about 300 MB of CSV and
#: two hours at 300 Hz, more than an identification campaign records; beyond it the options are refused.
MAX_TRAJECTORY_SAMPLES = 2_000_000


def _check_samples(count: float, options: str) -> None:
    if not count <= MAX_TRAJECTORY_SAMPLES:
        raise ConfigurationError(f"{options}: expected at most {MAX_TRAJECTORY_SAMPLES:,} samples, got {count:,.0f}")


@contextlib.contextmanager
def _job(inputs: dict[str, PathLike | None], outputs: dict[str, PathLike | None],
         robot_files: Iterable[Path] = ()) -> Iterator[Job]:
    """A job with ``inputs`` and ``outputs`` declared by option (files only; ``None`` and built-in names skipped)
    and checked before any work; ``robot_files`` are what a robot file is read from (a xacro's includes)."""
    with Job() as job:
        for option, path in inputs.items():
            if path is not None and Path(path).exists():
                job.input(path, option)
        job.inputs(list(robot_files), "--robot")
        for option, path in outputs.items():
            job.output(path, option)
        job.check()
        yield job


def _commit(job: Job, writes: list[tuple[PathLike, Callable[[Path], object]]]) -> list[Path]:
    """Write every output through ``job`` and publish them all together."""
    for dest, write in writes:
        job.write_with(dest, write)
    return job.commit()


def excitation_report(chain: Chain, excitation: Excitation, rate: float) -> str:
    """What ``thermocomp excite`` prints: per joint the sine's centre, amplitude, frequency, peak speed, cycles."""
    lines = [
        f"Excitation for {chain.name}: {excitation.duration:.6g} s at {rate:.6g} Hz, one sine per joint "
        "q_i(t) = centre_i + amplitude_i sin(2 pi f_i t) (seed 003)",
        f"frequency set: {excitation.check.quality}",
        *[f"  {issue.quality}: {issue.cause}: {issue.text}" for issue in excitation.check.issues],
        "joint  centre_deg  amplitude_deg  frequency_Hz  peak_speed_deg_s  limit_%  range_%  cycles",
    ]
    span = np.minimum(chain.upper - chain.lower, 2 * math.pi)
    for i in range(chain.n_joints):
        limit = chain.velocity[i]
        pct = 100 * excitation.peak_speed[i] / limit if math.isfinite(limit) else math.nan
        lines.append(
            f"{i + 1:>5}  {math.degrees(excitation.centre[i]):>10.4g}  {math.degrees(excitation.amplitude[i]):>13.4g}  "
            f"{excitation.frequency[i]:>12.6g}  {math.degrees(excitation.peak_speed[i]):>16.4g}  {pct:>7.0f}  "
            f"{100 * 2 * excitation.amplitude[i] / span[i]:>7.0f}  {excitation.frequency[i] * excitation.duration:>6.3g}")
    return "\n".join(lines) + "\n"


def run_excite(chain: Chain, options: ExcitationOptions, rate: float, out: PathLike,
               report: PathLike | None = None, inputs: tuple[PathLike, ...] = ()) -> tuple[Excitation, str]:
    """Design an excitation for ``chain``, write its trajectory (``time_s, q, qd, qdd``) and report.

    Returns the excitation and the report text.
    """
    if not (math.isfinite(rate) and rate > 0):
        raise InputError(f"--rate-hz: expected > 0, got {rate!r}")
    _check_samples(options.duration * rate, "--duration-s x --rate-hz")
    with _job({"--robot": robot_file(inputs[0]) if inputs else None}, {"--out": out, "--report": report}) as job:
        excitation = design_excitation(chain, options)
        t = excitation.times(rate)
        q, qd, qdd = excitation.states(t)
        trajectory = Recording(time=t, q=q, tau=np.zeros_like(q), qd=qd, qdd=qdd)
        text = excitation_report(chain, excitation, rate)
        comments = (f"excitation of {chain.name} by thermocomp excite (seed 003): "
                    + ", ".join(f"f{i + 1} = {f:.6g} Hz" for i, f in enumerate(excitation.frequency)),)
        writes = [(out, lambda p: write_recording_csv(p, trajectory, comments, torques=False))]
        if report:
            writes.append((report, lambda p: p.write_text(text, encoding="utf-8")))
        _commit(job, writes)
        return excitation, text


def _friction_table(path: PathLike | None, n: int):
    """The friction CSV ``path`` (``--friction``) as the dynamics' table (friction and armature), or ``None``."""
    from thermocomp.io.friction_csv import read_friction_csv

    return FrictionTable.from_columns(read_friction_csv(path, n)) if path else None


def robot_file_inertials(robot: PathLike, options: RobotFileOptions | None = None, what: str = "(identified)",
                         option: str = "--robot") -> UrdfParameters:
    """The chain and inertials of a ``.urdf`` or ``.xacro`` robot file
    (:func:`~thermocomp.dynamics.urdf_parameters.urdf_parameters` of the file io read); another file or a built-in
    name is refused, naming ``option`` and ``what`` inertials it should carry."""
    from thermocomp.dynamics.urdf_parameters import urdf_parameters
    from thermocomp.io.robot_files import read_robot_description

    expected = f"expected a {' or '.join(ROBOT_FILE_SUFFIXES)} robot file carrying the {what} inertials"
    path = robot_file(robot, option)
    if path is None:
        raise InputError(f"{option}: {expected}, got the built-in robot {str(robot)!r}")
    if path.suffix.lower() not in ROBOT_FILE_SUFFIXES:
        raise InputError(expected, path=str(robot))
    return urdf_parameters(read_robot_description(robot, options))


@dataclass(frozen=True)
class SimulateRecordingJob:
    """Options of :func:`run_simulate_recording` (``thermocomp simulate-recording``): the truth robot file, the
    trajectory, the recording to write, friction, drives, seed."""

    truth: PathLike
    trajectory: PathLike
    out: PathLike
    friction: PathLike | None = None
    drives: object = None
    seed: int | None = None
    with_derivatives: bool = False
    robot_options: RobotFileOptions | None = None


def run_simulate_recording(spec: SimulateRecordingJob) -> Recording:
    """Play ``trajectory`` on PyBullet with the ``truth`` robot file (and friction CSV) and write what the drives
    report; ``robot_options``: its base and tip links, xacro arguments, ROS packages."""
    from thermocomp.dynamics.simulate import DriveOptions, SimulatedRobot

    truth, trajectory, out, friction = spec.truth, spec.trajectory, spec.out, spec.friction
    drives, seed, with_derivatives, robot_options = spec.drives, spec.seed, spec.with_derivatives, spec.robot_options

    description = robot_file_inertials(truth, robot_options, "true", "--truth").description
    with _job({"--truth": truth, "--trajectory": trajectory, "--friction": friction}, {"--out": out},
              description.files()) as job:
        motion = read_recording_csv(trajectory, torques=False)
        if motion.qd is None or motion.qdd is None:
            raise InputError("expected the columns qd<i>_rad_s and qdd<i>_rad_s2 (a trajectory from thermocomp excite)",
                             path=str(trajectory))
        table = _friction_table(friction, motion.n_joints)
        with SimulatedRobot(description, table, drives or DriveOptions(), rng=np.random.default_rng(seed)) as robot:
            if robot.chain.n_joints != motion.n_joints:
                raise InputError(f"expected a trajectory of {robot.chain.n_joints} joints, got {motion.n_joints}",
                                 path=str(trajectory))
            recording = robot.record(motion.time, motion.q, motion.qd, motion.qdd, with_derivatives=with_derivatives)
        comment = (f"simulated by thermocomp simulate-recording: truth {truth}, friction {friction or 'none'}",)
        _commit(job, [(out, lambda p: write_recording_csv(p, recording, comment))])
        return recording


@dataclass(frozen=True)
class SimulateDisturbanceJob:
    """Options of :func:`run_simulate_disturbance` (``thermocomp simulate-recording --controllers``): the truth robot
    file at rest under its PI controllers and a disturbance: pose [rad], duration [s], rate [Hz], amplitude [N m],
    damping [N m s/rad], friction, drives, seed."""

    truth: PathLike
    controllers: PathLike
    out: PathLike
    pose: tuple[float, ...] | None = None
    duration: float = 10.0
    rate: float = 300.0
    amplitude: tuple[float, ...] = (5.0,)
    damping: tuple[float, ...] | None = None
    friction: PathLike | None = None
    drives: object = None
    seed: int | None = None
    robot_options: RobotFileOptions | None = None

    def __post_init__(self) -> None:
        duration, rate = self.duration, self.rate
        if not (math.isfinite(duration) and duration > 0 and math.isfinite(rate) and rate > 0):
            raise ConfigurationError(f"--duration-s, --rate-hz: expected > 0, got {duration!r}, {rate!r}")
        _check_samples(duration * rate, "--duration-s x --rate-hz")


def run_simulate_disturbance(spec: SimulateDisturbanceJob) -> Recording:
    """Seed 000, Step 4's experiment on PyBullet: the ``truth`` robot at rest at ``pose`` [rad] (default: zero within
    the limits), every joint held by its PI controller of ``controllers`` (a controllers CSV) under
    :func:`~thermocomp.dynamics.controller.disturbance_torques` of ``amplitude`` [N m] for ``duration`` [s]; the
    recording (``time_s, q, tau``: motor torques) at ``rate`` [Hz] to ``out``
    (:meth:`~thermocomp.dynamics.simulate.SimulatedRobot.pi_at_rest`)."""
    from thermocomp.dynamics.controller import disturbance_torques
    from thermocomp.dynamics.simulate import DRIVE_DAMPING, DriveOptions, SimulatedRobot
    from thermocomp.io.controllers_csv import read_controllers_csv

    truth, controllers, out, pose = spec.truth, spec.controllers, spec.out, spec.pose
    duration, rate, amplitude, damping = spec.duration, spec.rate, spec.amplitude, spec.damping
    friction, drives, seed, robot_options = spec.friction, spec.drives, spec.seed, spec.robot_options

    info = robot_file_inertials(truth, robot_options, "true", "--truth")
    with _job({"--truth": truth, "--controllers": controllers, "--friction": friction}, {"--out": out},
              info.description.files()) as job:
        chain = info.chain
        n = chain.n_joints
        Kp, Ti = read_controllers_csv(controllers, n)
        table = _friction_table(friction, n)
        with SimulatedRobot(info.description, table, drives or DriveOptions(), rng=np.random.default_rng(seed)) as robot:
            centre = np.clip(np.zeros(n), chain.lower, chain.upper) if pose is None else np.asarray(pose, dtype=float)
            if centre.shape != (n,) or np.any(~np.isfinite(centre) | (centre < chain.lower) | (centre > chain.upper)):
                raise ConfigurationError(f"--pose-deg: expected {n} angles within the joint limits, got "
                                         f"{np.degrees(centre).tolist()}")
            per_joint = DriveOptions().per_joint
            amp = per_joint(tuple(amplitude), n, "--disturbance-nm")
            if np.any(~np.isfinite(amp) | (amp < 0)):
                raise ConfigurationError(f"--disturbance-nm: expected values >= 0 N m, got {amp.tolist()}")
            b = per_joint((DRIVE_DAMPING,) if damping is None else tuple(damping), n, "--drive-damping-nm-s-per-rad")
            recording = robot.pi_at_rest(centre, Kp, Ti, lambda t: disturbance_torques(t, amp), duration, rate,
                                         damping=b)
        comment = (f"simulated by thermocomp simulate-recording: seed 000 Step 4, truth {truth} at rest under a "
                   f"disturbance, controllers {controllers}, friction {friction or 'none'}",)
        _commit(job, [(out, lambda p: write_recording_csv(p, recording, comment))])
        return recording


@dataclass(frozen=True, eq=False)
class IdentifyRun:
    """What ``thermocomp identify`` did: the identification, its checks and the report text."""

    identification: Identification
    own: TorqueCheck
    validation: TorqueCheck | None
    text: str

    @property
    def success(self) -> bool:
        return self.own.success and (self.validation is None or self.validation.success)


def _read_torques(path: PathLike, n: int, gains: PathLike | None) -> Recording:
    """A recording's torques: as recorded, or with ``gains`` (a drive gains CSV, ``--gains``) its motor currents
    ``i<k>_A`` times the gains."""
    if gains is None:
        return read_recording_csv(path, n)
    from thermocomp.io.drive_gains_csv import read_drive_gains_csv

    k = read_drive_gains_csv(gains, n)
    rec = read_recording_csv(path, n, currents=True)
    return Recording(time=rec.time, q=rec.q, tau=rec.current * k, qd=rec.qd, qdd=rec.qdd, source=rec.source,
                     current=rec.current)


@dataclass(frozen=True)
class DriveGainsJob:
    """Options of :func:`run_drive_gains` (``thermocomp identify --drive-gains``): the CAD robot file, the recordings
    without and with the payload, its mass [kg], the outputs."""

    robot: PathLike
    unloaded: PathLike
    loaded: PathLike
    payload_mass: float
    out: PathLike | None = None
    report: PathLike | None = None
    options: IdentifyOptions | None = None
    robot_options: RobotFileOptions | None = None

    def __post_init__(self) -> None:
        if not (math.isfinite(self.payload_mass) and self.payload_mass > 0):
            raise ConfigurationError(f"--payload-mass-kg: expected > 0 kg, got {self.payload_mass!r}")


def run_drive_gains(spec: DriveGainsJob) -> str:
    """Drive gains from two recordings of motor currents, without and with a payload of ``payload_mass`` [kg]
    (:func:`~thermocomp.dynamics.drive_gains.identify_drive_gains`); ``out``: a drive gains CSV. Returns the
    report text."""
    from thermocomp.dynamics.drive_gains import identify_drive_gains
    from thermocomp.io.drive_gains_csv import write_drive_gains_csv

    robot, unloaded, loaded, payload_mass = spec.robot, spec.unloaded, spec.loaded, spec.payload_mass
    out, report, options, robot_options = spec.out, spec.report, spec.options, spec.robot_options

    info = robot_file_inertials(robot, robot_options, "reference (CAD)")
    with _job({"--robot": robot_file(robot), "--recording": unloaded, "--loaded": loaded},
              {"--out": out, "--report": report}, info.description.files()) as job:
        n = info.chain.n_joints
        result = identify_drive_gains(info.chain, read_recording_csv(unloaded, n, currents=True),
                                      read_recording_csv(loaded, n, currents=True), payload_mass, options)
        text = result.text(str(unloaded), str(loaded))
        writes = []
        if out:
            writes.append((out, lambda p: write_drive_gains_csv(p, result.gains, (
                f"identified by thermocomp identify --drive-gains from {unloaded} and {loaded} "
                f"({payload_mass:g} kg payload)",))))
        if report:
            writes.append((report, lambda p: p.write_text(text, encoding="utf-8")))
        _commit(job, writes)
        return text


@dataclass(frozen=True)
class IdentifyJob:
    """Options of :func:`run_identify` (``thermocomp identify``): the reference robot file, the recording, the outputs,
    what to validate on, the friction held fixed, the drive gains."""

    robot: PathLike
    recording: PathLike
    urdf_out: PathLike | None = None
    friction_out: PathLike | None = None
    report: PathLike | None = None
    validate: PathLike | None = None
    options: IdentifyOptions | None = None
    friction: PathLike | None = None
    robot_options: RobotFileOptions | None = None
    gains: PathLike | None = None


def run_identify(spec: IdentifyJob) -> IdentifyRun:
    """Identify from ``recording`` starting from the robot file ``robot`` (``.urdf`` or ``.xacro``, read with
    ``robot_options``); write the identified URDF, friction and report.

    The outputs are written whether the identification succeeds or not (the
    report says which, as softMC's IDNT file does); all or none. With
    ``friction`` (a friction CSV, e.g. Step 3's) the friction is held fixed
    and only the inertial parameters are identified (seed 000, Step 5). With ``gains`` (a drive gains CSV) the
    recordings give motor currents (``i<k>_A``), turned into torques by the gains.
    """
    from thermocomp.dynamics.urdf_parameters import urdf_with_parameters
    from thermocomp.io.friction_csv import write_friction_csv

    robot, recording, urdf_out, friction_out = spec.robot, spec.recording, spec.urdf_out, spec.friction_out
    report, validate, options, friction = spec.report, spec.validate, spec.options, spec.friction
    robot_options, gains = spec.robot_options, spec.gains

    info = robot_file_inertials(robot, robot_options, "reference (CAD)")
    with _job({"--robot": robot_file(robot), "--recording": recording, "--validate": validate, "--friction": friction,
               "--gains": gains},
              {"--urdf-out": urdf_out, "--friction-out": friction_out, "--report": report},
              info.description.files()) as job:
        chain = info.chain
        rec = _read_torques(recording, chain.n_joints, gains)
        fixed = _friction_table(friction, chain.n_joints)
        result = identify(chain, rec, info.parameters, options or IdentifyOptions(), attached=info.attached,
                          friction=fixed)
        own = check_torques(result, rec, data=result.data, mask=result.mask)
        validation = check_torques(result, _read_torques(validate, chain.n_joints, gains)) if validate else None
        text = report_text(result, own, validation, source=str(recording), validation_source=str(validate or ""))
        if info.notes:
            text += "\nnotes on the input URDF:\n" + "\n".join(f"  {note}" for note in info.notes) + "\n"
        writes = []
        if urdf_out:
            urdf_text = urdf_with_parameters(info, result.parameters)
            writes.append((urdf_out, lambda p: p.write_text(urdf_text, encoding="utf-8")))
        if friction_out:
            writes.append((friction_out, lambda p: write_friction_csv(
                p, result.friction, (f"identified by thermocomp identify from {recording} (Coulomb and viscous; Fs = Fc; "
                                     "armature: reflected rotor inertia)" if fixed is None else f"held fixed from {friction}",))))
        if report:
            writes.append((report, lambda p: p.write_text(text, encoding="utf-8")))
        _commit(job, writes)
        return IdentifyRun(result, own, validation, text)


def _reference(robot: PathLike | str, options: RobotFileOptions | None):
    """Chain, reference parameters, fixed bodies' parameters and the files read, of a robot file (its inertials) or a
    built-in robot (its CAD inertials)."""
    from thermocomp.dynamics.parameters import robot_parameters
    from thermocomp.inertia.builtin import builtin_inertials
    from thermocomp.io.robots import load_robot

    path = robot_file(robot)
    if path is None:  # a built-in robot (a variant has no inertials: builtin_inertials says so)
        inertials = builtin_inertials(str(robot))
        chain = load_robot(str(robot))
        return chain, robot_parameters(inertials, chain.n_joints), np.zeros(10 * chain.n_joints), ()
    if path.suffix.lower() not in ROBOT_FILE_SUFFIXES:
        raise InputError(f"expected a built-in robot or a {' or '.join(ROBOT_FILE_SUFFIXES)} robot file carrying the "
                         "reference (CAD) inertials", path=str(robot))
    info = robot_file_inertials(robot, options, "reference (CAD)")
    return info.chain, info.parameters, info.attached, info.description.files()


@dataclass(frozen=True)
class ExperimentJob:
    """Options of :func:`run_experiment` (``thermocomp excite --experiment``): the robot, the experiment, the
    trajectory CSV, its rate [Hz], pose [rad], speeds [rad/s], span, hold [s] and seed."""

    robot: PathLike | str
    experiment: str
    out: PathLike
    rate: float
    report: PathLike | None = None
    pose: tuple[float, ...] | None = None
    speeds: tuple[float, ...] | None = None
    span: float | None = None
    hold: float = 10.0
    seed: int = 0
    robot_options: RobotFileOptions | None = None


def run_experiment(spec: ExperimentJob, *,
                   pose_check: Callable[[Chain], contextlib.AbstractContextManager] | None = None) -> str:
    """The trajectory of seed 000's Step 2 (``static``: poses for the explicit formulas, each held ``hold`` s) or
    Step 3 (``constant-speed``: symmetric runs of each joint about ``pose``); returns the report text.

    ``pose_check(chain)`` (``static`` only, required there) opens the check that a pose stands above the floor and
    clear of the robot itself: a context manager giving a callable ``check(q) -> bool`` with a ``source`` (what
    drew the robot). The command line gives PyBullet's,
    :class:`thermocomp.simulators.pybullet.poses.PoseCheck` (handed down, so that this job loads no simulator).
    """
    from thermocomp.dynamics.friction_runs import ConstantSpeedOptions, constant_speed_trajectory
    from thermocomp.dynamics.static_step import MIN_GRAVITY_TORQUE, plan_static_poses, static_trajectory
    from thermocomp.io.robot_files import robot_file_inputs
    from thermocomp.io.robots import load_robot

    robot, experiment, out, rate = spec.robot, spec.experiment, spec.out, spec.rate
    report, pose, speeds, span = spec.report, spec.pose, spec.speeds, spec.span
    hold, seed, robot_options = spec.hold, spec.seed, spec.robot_options

    if experiment == "static":
        chain, cad, fixed, files = _reference(robot, robot_options)
    else:
        chain, files = load_robot(str(robot), robot_options), robot_file_inputs(robot, robot_options)
    with _job({"--robot": robot_file(robot)}, {"--out": out, "--report": report}, files) as job:
        if experiment == "static":
            if not (math.isfinite(rate) and rate > 0 and math.isfinite(hold) and hold > 0):
                raise ConfigurationError(f"--rate-hz, --hold-s: expected > 0, got {rate!r}, {hold!r}")
            _check_samples(chain.n_joints * hold * rate, "--hold-s x --rate-hz")
            if pose_check is None:
                raise ConfigurationError("the static experiment needs a pose check (pose_check: PyBullet's PoseCheck)")
            with pose_check(chain) as check:
                poses = plan_static_poses(chain, cad, np.random.default_rng(seed), fixed=fixed, admissible=check)
            if not len(poses):  # (every formula left out: an empty trajectory ended in a numpy traceback)
                raise InputError(f"the static experiment: no link's reference (CAD) gravity torque reaches "
                                 f"{MIN_GRAVITY_TORQUE:g} N m on a joint at any candidate pose (links too light to "
                                 f"be seen): nothing to identify", path=None if robot_file(robot) is None else str(robot))
            trajectory = static_trajectory(chain, poses, hold, rate)
            text = (f"Static poses for seed 000 Step 2 ({chain.name}): {len(poses)} poses held {hold:.3g} s each, "
                    f"above the floor and clear of the robot itself (PyBullet, {check.source})\n"
                    + "\n".join("  (" + ", ".join(f"{math.degrees(a):.2f}" for a in p) + ") deg" for p in poses) + "\n")
        elif experiment == "constant-speed":
            defaults = ConstantSpeedOptions()
            options = ConstantSpeedOptions(speeds=speeds or defaults.speeds, span=span or defaults.span, rate=rate)
            _check_samples(chain.n_joints * sum(3 * options.span / v for v in options.speeds) * rate,
                           "--span-deg / --speeds-deg-s x --rate-hz")
            if pose is not None and len(pose) != chain.n_joints:
                raise ConfigurationError(f"--pose-deg: expected {chain.n_joints} angles, one per joint of "
                                         f"{chain.name}, got {len(pose)}")
            centre = np.clip(np.zeros(chain.n_joints), chain.lower, chain.upper) if pose is None else np.asarray(pose)
            outside = ~np.isfinite(centre) | (centre < chain.lower) | (centre > chain.upper)
            if np.any(outside):  # refused as given, not clipped to the limits and then quoted as the sweep's centre
                j = int(np.argmax(outside))
                raise ConfigurationError(f"--pose-deg: joint {j + 1}: expected an angle within its limits "
                                         f"{math.degrees(chain.lower[j]):.6g} .. {math.degrees(chain.upper[j]):.6g} deg, "
                                         f"got {math.degrees(centre[j]):.6g}")
            trajectory = constant_speed_trajectory(chain, centre, options=options)
            text = (f"Constant-speed runs for seed 000 Step 3 ({chain.name}): each joint sweeps +-"
                    f"{math.degrees(options.span) / 2:.3g} deg about ("
                    + ", ".join(f"{math.degrees(a):.1f}" for a in centre) + ") deg at "
                    + ", ".join(f"{math.degrees(v):.3g}" for v in options.speeds) + " deg/s, both ways; "
                    f"{trajectory.duration:.0f} s\n")
        else:
            raise InputError(f"experiment: expected sine, static or constant-speed, got {experiment!r}")
        writes = [(out, lambda p: write_recording_csv(p, trajectory, (text.splitlines()[0],), torques=False))]
        if report:
            writes.append((report, lambda p: p.write_text(text, encoding="utf-8")))
        _commit(job, writes)
        return text


def run_identify_step(step: int, robot: PathLike, recording: PathLike, *, out: PathLike | None = None,
                      report: PathLike | None = None, robot_options: RobotFileOptions | None = None) -> str:
    """Seed 000 Step 2 (``lambda`` CSV ``link,lambda`` for ``thermocomp inertia --corrections``), Step 3
    (friction CSV) or Step 4 (``joint,Kp_Nm_per_rad_s,Ti_s,..`` CSV) from a recording of its experiment; returns
    the report text."""
    from thermocomp.dynamics.friction_runs import friction_from_recording
    from thermocomp.dynamics.static_step import rest_segments, static_corrections
    from thermocomp.io.friction_csv import write_friction_csv

    chain, cad, fixed, files = _reference(robot, robot_options) if step == 2 else (None, None, None, ())
    with _job({"--robot": robot_file(robot), "--recording": recording}, {"--out": out, "--report": report}, files) as job:
        if step == 2:
            rec = read_recording_csv(recording, chain.n_joints)
            poses, tau, stderr = rest_segments(rec)
            result = static_corrections(chain, cad, poses, tau, fixed=fixed, noise=float(stderr.max()))
            text = result.text()

            def write_out(p: Path) -> None:
                lines = ["# seed 000 Step 2 correction factors (thermocomp identify --step 2); links left at 1 omitted",
                         "link,lambda"]
                lines += [f"link{k + 1},{float(result.lambdas[k])!r}" for k in range(chain.n_joints) if result.identified[k]]
                p.write_text("\n".join(lines) + "\n", encoding="utf-8")
        elif step == 4:
            from thermocomp.dynamics.controller import controllers_from_recording, controllers_text

            rec = read_recording_csv(recording)
            estimates = controllers_from_recording(rec.time, rec.q, rec.tau)
            text = controllers_text(estimates)

            def write_out(p: Path) -> None:
                from thermocomp.io.controllers_csv import write_controllers_csv

                write_controllers_csv(p, estimates, (f"seed 000 Step 4 from {recording}",))
        elif step == 3:
            rec = read_recording_csv(recording)
            result3 = friction_from_recording(rec)
            text = result3.text()

            def write_out(p: Path) -> None:
                write_friction_csv(p, result3.table, (f"seed 000 Step 3 from {recording}",))
        else:
            raise InputError(f"step: expected 2, 3 or 4, got {step!r}")
        writes = []
        if out:
            writes.append((out, write_out))
        if report:
            writes.append((report, lambda p: p.write_text(text, encoding="utf-8")))
        _commit(job, writes)
        return text


def run_feedforward(robot: PathLike, trajectory: PathLike, out: PathLike, *, friction: PathLike | None = None,
                    robot_options: RobotFileOptions | None = None) -> Recording:
    """Feed-forward torques (softMC's additive torque command) of ``trajectory`` with the robot file's inertials and
    ``friction``; written as a recording CSV (``time_s, q, tau, qd, qdd``)."""
    from thermocomp.dynamics.feedforward import feedforward_torques

    info = robot_file_inertials(robot, robot_options)
    with _job({"--robot": robot_file(robot), "--trajectory": trajectory, "--friction": friction}, {"--out": out},
              info.description.files()) as job:
        table = _friction_table(friction, info.chain.n_joints)
        motion = read_recording_csv(trajectory, info.chain.n_joints, torques=False)
        result = feedforward_torques(info.chain, info.parameters, table, motion)
        _commit(job, [(out, lambda p: write_recording_csv(p, result, (f"feed-forward torques of {trajectory} with "
                                                                          f"{robot} and friction {friction or 'none'}",)))])
        return result


def _modelled_torques(info, recording: PathLike, friction: PathLike | None):
    """A recording read and prepared (seed 003's filtering), with the torques ``(m, n)`` [N m] that the URDF's model
    and, when given, the friction CSV's drives (friction and armature) predict at its samples."""
    from thermocomp.dynamics.identify import IdentifyOptions, prepare
    from thermocomp.dynamics.regressor import regressor

    table = _friction_table(friction, info.chain.n_joints)
    rec = read_recording_csv(recording, info.chain.n_joints)
    data = prepare(rec, IdentifyOptions())
    predicted = regressor(info.chain, data.q, data.qd, data.qdd) @ info.parameters
    if table is not None:
        predicted = predicted + table.drive_torque(data.qd, data.qdd)
    return rec, data, predicted


def run_collisions(robot: PathLike, recording: PathLike, options, *, friction: PathLike | None = None,
                   out: PathLike | None = None, robot_options: RobotFileOptions | None = None) -> str:
    """Torque-error collision detection (seed 003) on a recording with the URDF's model; returns the report text
    and writes, with ``out``, one row per flagged sample (``time_s``, the joints flagged, their errors [N m])."""
    from thermocomp.dynamics.collision import detect_collisions

    info = robot_file_inertials(robot, robot_options)
    with _job({"--robot": robot_file(robot), "--recording": recording, "--friction": friction}, {"--out": out},
              info.description.files()) as job:
        rec, data, predicted = _modelled_torques(info, recording, friction)
        result = detect_collisions(data.tau_raw, predicted, data.qd, options)
        t = rec.time[data.dropped:data.dropped + data.q.shape[0]]
        rows = np.flatnonzero(result.flags.any(axis=1))
        limits = ", ".join(f"{v:g}" for v in options.threshold)
        lines = [f"Collision detection (seed 003: torque error above TorqueErrorMax {limits} "
                 f"N m, TorqueErrorFilter {options.filter_coefficient:g}, checked above {options.min_speed:g} rad/s): "
                 + (f"{rows.size} samples flagged, first at {t[rows[0]]:.6g} s" if rows.size else "none")]
        for j in range(info.chain.n_joints):
            lines.append(f"  joint {j + 1}: max |TE| {np.max(np.abs(result.error[:, j])):.4g} N m, "
                         f"{int(result.flags[:, j].sum())} samples flagged")
        text = "\n".join(lines) + "\n"
        if out:
            def write(p: Path) -> None:
                body = ["time_s,joints," + ",".join(f"te{j + 1}_Nm" for j in range(info.chain.n_joints))]
                for r in rows:
                    joints = " ".join(str(j + 1) for j in np.flatnonzero(result.flags[r]))
                    body.append(f"{float(t[r])!r},{joints}," + ",".join(repr(float(v)) for v in result.error[r]))
                p.write_text("\n".join(body) + "\n", encoding="utf-8")

            _commit(job, [(out, write)])
        return text


def run_payload(robot: PathLike, recording: PathLike, *, friction: PathLike | None = None,
                urdf_out: PathLike | None = None, report: PathLike | None = None,
                robot_options: RobotFileOptions | None = None) -> str:
    """Seed 003's payload identification with the URDF's (identified) model known; with ``urdf_out``, the URDF
    with the payload added to the last link by seed 001's rule of change. Returns the report text."""
    from thermocomp.dynamics.payload import identify_payload, with_payload
    from thermocomp.dynamics.urdf_parameters import urdf_with_parameters

    info = robot_file_inertials(robot, robot_options)
    with _job({"--robot": robot_file(robot), "--recording": recording, "--friction": friction},
              {"--urdf-out": urdf_out, "--report": report}, info.description.files()) as job:
        rec, data, predicted = _modelled_torques(info, recording, friction)
        est = identify_payload(info.chain, data.q, data.qd, data.qdd, data.tau_raw, predicted)
        text = est.text()
        writes = []
        if urdf_out:
            if not est.identified[:4].all():
                raise InputError("the recording does not determine the payload's mass and centre of mass; "
                                 "record a motion that moves the last links", path=str(recording))
            payload = np.where(est.identified, est.parameters, 0.0)
            urdf_text = urdf_with_parameters(info, with_payload(info.parameters, payload))
            writes.append((urdf_out, lambda p: p.write_text(urdf_text, encoding="utf-8")))
        if report:
            writes.append((report, lambda p: p.write_text(text, encoding="utf-8")))
        _commit(job, writes)
        return text


__all__ = ["IdentifyRun", "excitation_report", "run_drive_gains",
           "robot_file_inertials", "run_excite", "run_experiment", "run_identify",
           "run_identify_step", "run_simulate_disturbance", "run_simulate_recording", "run_feedforward", "run_collisions",
           "run_payload"]
