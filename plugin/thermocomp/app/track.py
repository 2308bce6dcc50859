"""``thermocomp track`` as one library call: a simulated tracker campaign, or a compensated program measured again.

The job declares its files in one :class:`~thermocomp.io.job.Job` (the robot,
the true table, its law file, the results; the measurements CSV), checks them
before any work, reads the robot and the table, has PyBullet measure
(:func:`thermocomp.simulators.pybullet.campaign.simulate_measurements`) and
writes the measurements all or none (docs/jobs.md).

Frames: the robot's world; a campaign's measurements in the tracker frame. SI
inside; files in mm and degrees.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from thermocomp._typing import ArrayLike, FloatArray, PathLike
from thermocomp.app.prepare import robot_and_table
from thermocomp.deformation.timelaw import TimeLaw
from thermocomp.errors import ConfigurationError, InputError
from thermocomp.geometry.checks import check_array
from thermocomp.io.job import Job
from thermocomp.io.measurements import Measurements
from thermocomp.io.robot_files import RobotFileOptions
from thermocomp.simulators.pybullet.campaign import simulate_measurements


@dataclass(frozen=True, eq=False)
class Campaign:
    """What :func:`run_track` measured (a campaign, or a compensated program measured again).

    Attributes
    ----------
    measurements
        As written (tracker frame, SI).
    target_distance
        ``(m,)`` [m]: for a compensated program measured again, how far the measured TCP is
        from the pose the compensation aimed at (``reached_*`` of the results,
        in the world frame); ``None`` for a campaign.
    out
        The measurements CSV.
    written
        The files written (what the job committed).
    """

    measurements: Measurements
    target_distance: FloatArray | None
    out: Path
    written: tuple[Path, ...] = ()

    def text(self) -> str:
        m = self.measurements
        lines = [f"PyBullet (simulated tracker) measured {m.n} poses at minutes {m.minute.min():g} to "
                 f"{m.minute.max():g}"]
        if self.target_distance is not None:
            d = self.target_distance * 1e3
            lines.append(f"  the compensated program reaches its targets within {d.max():.4f} mm "
                         f"(rms {np.sqrt(np.mean(d**2)):.4f} mm) on the simulated warm robot")
        lines += [f"wrote {p}" for p in self.written]
        return "\n".join(lines)


def tracker_transform(pose_mm_deg: ArrayLike | None) -> FloatArray:
    """``T_tracker_world`` from ``(x, y, z)`` [mm] and CoppeliaSim Euler ``(a, b, c)`` [deg] (``R = Rx Ry Rz``)."""
    from thermocomp.geometry.rotations import matrix_from_euler_xyz

    T = np.eye(4)
    if pose_mm_deg is not None:
        v = check_array(pose_mm_deg, (6,), "tracker pose (x, y, z [mm], a, b, c [deg])")
        T[:3, :3], T[:3, 3] = matrix_from_euler_xyz(np.radians(v[3:])), v[:3] / 1e3
    return T


def _declare(job: Job, robot: object, deformation: PathLike, law_file: PathLike | None) -> None:
    """Declare the inputs every ``track`` run reads: the robot file, the true table, the law file."""
    from thermocomp.io.robots import robot_file
    from thermocomp.io.timelaw_file import time_law_path

    job.input(robot_file(robot), "--robot")
    job.input(deformation, "--deformation")
    if law_file is not None:
        job.input(time_law_path(law_file), "--time-law")


def _law(law, law_file: PathLike | None):
    """``law``, or the law read from ``law_file`` when one is given."""
    from thermocomp.io.timelaw_file import read_time_law

    return read_time_law(law_file) if law_file is not None else law


#: Most poses, and most measurements (per minute x minutes), of one campaign: about 5 minutes of PyBullet and
#: 200 MB of CSV (--poses 10000000 grew past 3 GB in two minutes before any check).
MAX_MEASUREMENTS = 1_000_000


@dataclass(frozen=True)
class TrackJob:
    """One run of ``thermocomp track``: a tracker campaign, or a compensated program measured again, every option
    checked once (here, when the job is made).

    Parameters
    ----------
    robot
        Built-in name or robot file (a ``.urdf`` / ``.xacro`` read with ``robot_options``,
        :mod:`thermocomp.io.robot_files`).
    deformation
        The (hidden, true) deformation table CSV.
    out
        The measurements CSV to write.
    law, law_file
        The hidden time law (``fraction(minute)``), or the file that names it (a law file, or the table it sits
        beside: ``--time-law``). Exactly one.
    results
        Measure the converged rows of this results CSV (``thermocomp compensate --out``) instead of a campaign.
    poses, minutes, per_minute
        Campaign: ``poses`` random configurations within 80 % of the joint limits; at every minute of ``minutes``
        [min] the tracker measures ``per_minute`` of them (default all), drawn without repetition.
    noise_mm
        Tracker noise, standard deviation per coordinate [mm].
    orientation_noise_deg, tracker_pose_mm_deg
        Campaign: measure orientation too with this noise [deg]; where the tracker stands, ``(x, y, z)`` [mm] and
        CoppeliaSim Euler ``(a, b, c)`` [deg] (default the world frame).
    seed
        Seed of the poses and the noise.
    composition
        How the table composes with the nominal joint (:class:`~thermocomp.compensation.compensate.CompensationOptions`).

    Raises
    ------
    ConfigurationError
        Neither or both of ``law`` and ``law_file``; a campaign's option with ``results``; counts or noise out of
        range (naming the options as typed).
    """

    robot: str | PathLike
    deformation: PathLike
    out: PathLike
    law: TimeLaw | None = None
    law_file: PathLike | None = None
    results: PathLike | None = None
    poses: int = 30
    minutes: tuple[float, ...] = (200.0,)
    per_minute: int | None = None
    noise_mm: float = 0.0
    orientation_noise_deg: float | None = None
    tracker_pose_mm_deg: tuple[float, ...] | None = None
    seed: int = 0
    composition: str = "table"
    robot_options: RobotFileOptions | None = None

    def __post_init__(self) -> None:
        if (self.law is None) == (self.law_file is None):
            raise ConfigurationError("track: expected a time law or a law file (--time-law), exactly one")
        if not (math.isfinite(self.noise_mm) and self.noise_mm >= 0):
            raise ConfigurationError(f"--noise-mm: expected a finite standard deviation >= 0, got {self.noise_mm!r}")
        if self.orientation_noise_deg is not None and not (math.isfinite(self.orientation_noise_deg)
                                                           and self.orientation_noise_deg >= 0):
            raise ConfigurationError(f"--orientation-noise-deg: expected a finite standard deviation >= 0, got "
                                     f"{self.orientation_noise_deg!r}")
        object.__setattr__(self, "minutes", tuple(float(m) for m in
                                                  check_array(np.atleast_1d(self.minutes), (None,), "minutes")))
        if self.results is not None:
            if self.tracker_pose_mm_deg is not None or self.orientation_noise_deg is not None:
                raise ConfigurationError("--tracker-pose and --orientation-noise-deg are for a campaign, not "
                                         "--results")
            return
        poses, per_minute = self.poses, self.measured_per_minute
        if not (poses >= 1 and 1 <= per_minute <= poses):
            raise ConfigurationError(f"poses and per_minute (--poses, --per-minute): expected 1 <= per_minute <= poses, "
                                     f"got {per_minute}, {poses}")
        if poses > MAX_MEASUREMENTS or per_minute * len(self.minutes) > MAX_MEASUREMENTS:
            raise ConfigurationError(f"--poses, --per-minute x --minutes: expected at most {MAX_MEASUREMENTS:,} poses "
                                     f"and measurements, got {poses:,} poses and {per_minute * len(self.minutes):,} "
                                     "measurements")

    @property
    def measured_per_minute(self) -> int:
        """Poses measured at each minute of a campaign (``per_minute``, default all)."""
        return self.poses if self.per_minute is None else self.per_minute


def _campaign(track: TrackJob) -> Campaign:
    """Simulate a tracker campaign on the warm robot and write the measurements CSV (:func:`run_track` without
    ``results``).

    ``poses`` random configurations within 80 % of the joint limits (seeded
    by ``seed``); at every minute of ``minutes`` the tracker measures
    ``per_minute`` of them (default: all), drawn without repetition.
    Every file is declared in one :class:`~thermocomp.io.job.Job` and the
    output checked before any work (docs/jobs.md).
    """
    from thermocomp.io.measurements_csv import write_measurements_csv

    poses, per_minute, seed = track.poses, track.measured_per_minute, track.seed
    with Job() as job:
        _declare(job, track.robot, track.deformation, track.law_file)
        out = job.output(track.out, "--out")
        job.check()  # before any work
        law = _law(track.law, track.law_file)
        bound = robot_and_table(track.robot, track.deformation, job=job, robot_options=track.robot_options)
        chain, table = bound.chain, bound.table
        minutes = np.array(track.minutes)
        noise_mm, orientation_noise_deg = track.noise_mm, track.orientation_noise_deg
        rng = np.random.default_rng(seed)
        pool = rng.uniform(0.8 * chain.lower, 0.8 * chain.upper, size=(poses, chain.n_joints))
        q = np.vstack([pool[rng.choice(poses, per_minute, replace=False)] for _ in minutes])
        meas = simulate_measurements(
            chain, table, q, np.repeat(minutes, per_minute), law.fraction,
            T_tracker_world=tracker_transform(track.tracker_pose_mm_deg), position_noise=noise_mm * 1e-3,
            orientation_noise=None if orientation_noise_deg is None else float(np.radians(orientation_noise_deg)),
            rng=rng, composition=track.composition)
        job.write_with(out, lambda p: write_measurements_csv(meas, p))
        written = job.commit()
    return Campaign(meas, None, Path(out), tuple(written))


def _measure_results(track: TrackJob) -> Campaign:
    """Measure a compensated program again on the (truly) warm robot: the closed loop's last step.

    Every converged row of ``results`` (``thermocomp compensate --out``) is
    played at its minute on the robot deformed by ``deformation`` under
    its law (the truth, not the identified table), and the TCP is measured
    (world frame, optional noise). Writes the measurements CSV and returns
    the distance to the targets the compensation aimed at (:func:`run_track` with
    ``results``); every file is declared in one :class:`~thermocomp.io.job.Job`, checked before any work.
    """
    from thermocomp.io.measurements_csv import write_measurements_csv
    from thermocomp.io.results_rows import read_converged_rows

    results = track.results
    with Job() as job:
        _declare(job, track.robot, track.deformation, track.law_file)
        job.input(results, "--results")
        out = job.output(track.out, "--out")
        job.check()  # before any work
        law = _law(track.law, track.law_file)
        bound = robot_and_table(track.robot, track.deformation, job=job, robot_options=track.robot_options)
        chain, table = bound.chain, bound.table
        rows = read_converged_rows(results, chain.n_joints, reached=True)
        if not rows.target:
            raise InputError("no converged rows to measure", path=str(results))
        minutes, q, p_target, lines = rows.minute, rows.q, rows.p_reached, rows.lines
        rng = np.random.default_rng(track.seed)
        meas = simulate_measurements(chain, table, q, minutes, law.fraction, position_noise=track.noise_mm * 1e-3,
                                     rng=rng, composition=track.composition)
        meas = Measurements(q=meas.q, p_tracker_tcp=meas.p_tracker_tcp, minute=meas.minute, line=lines,
                            source=str(results))
        job.write_with(out, lambda p: write_measurements_csv(meas, p))
        written = job.commit()
    return Campaign(meas, np.linalg.norm(meas.p_tracker_tcp - p_target, axis=1), Path(out), tuple(written))


def run_track(job: TrackJob) -> Campaign:
    """``thermocomp track``: the converged rows of ``job.results`` measured again on the warm robot, or (without
    ``results``) a tracker campaign; writes the measurements CSV all or none.

    Raises
    ------
    InputError
        A file that cannot be read or written (naming its option), before any work; nothing is written.
    """
    return _campaign(job) if job.results is None else _measure_results(job)


__all__ = ["MAX_MEASUREMENTS", "Campaign", "TrackJob", "run_track", "tracker_transform"]
