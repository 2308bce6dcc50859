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

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from thermocomp._typing import ArrayLike, FloatArray, PathLike
from thermocomp.app.prepare import robot_and_table
from thermocomp.errors import ConfigurationError, InputError
from thermocomp.geometry.checks import check_array
from thermocomp.io.job import Job
from thermocomp.io.measurements import Measurements
from thermocomp.io.robot_files import RobotFileOptions
from thermocomp.simulators.pybullet.campaign import simulate_measurements


@dataclass(frozen=True, eq=False)
class Campaign:
    """What :func:`run_campaign` or :func:`measure_results` measured.

    Attributes
    ----------
    measurements
        As written (tracker frame, SI).
    target_distance
        ``(m,)`` [m]: for :func:`measure_results`, how far the measured TCP is
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


def run_campaign(robot: str | PathLike, deformation: PathLike, out: PathLike, law, *, poses: int,
                 minutes: ArrayLike, per_minute: int | None = None, noise_mm: float = 0.0,
                 orientation_noise_deg: float | None = None, tracker_pose_mm_deg: ArrayLike | None = None,
                 seed: int = 0, composition: str = "table",
                 law_file: PathLike | None = None, robot_options: RobotFileOptions | None = None) -> Campaign:
    """Simulate a tracker campaign on the warm robot and write the measurements CSV.

    ``poses`` random configurations within 80 % of the joint limits (seeded
    by ``seed``); at every minute of ``minutes`` the tracker measures
    ``per_minute`` of them (default: all), drawn without repetition.
    ``law`` is the hidden time law (``fraction(minute)``), or ``law_file``
    names it (a law file, or the table it sits beside: ``--time-law``). A
    ``.urdf`` / ``.xacro`` robot is read with ``robot_options``
    (:mod:`thermocomp.io.robot_files`).
    Every file is declared in one :class:`~thermocomp.io.job.Job` and the
    output checked before any work (docs/jobs.md).
    """
    from thermocomp.io.measurements_csv import write_measurements_csv

    with Job() as job:
        _declare(job, robot, deformation, law_file)
        out = job.output(out, "--out")
        job.check()  # before any work
        law = _law(law, law_file)
        bound = robot_and_table(robot, deformation, job=job, robot_options=robot_options)
        chain, table = bound.chain, bound.table
        minutes = check_array(np.atleast_1d(minutes), (None,), "minutes")
        per_minute = poses if per_minute is None else per_minute
        if not (poses >= 1 and 1 <= per_minute <= poses):
            raise ConfigurationError(f"poses and per_minute (--poses, --per-minute): expected 1 <= per_minute <= poses, "
                                     f"got {per_minute}, {poses}")
        if poses > MAX_MEASUREMENTS or per_minute * minutes.size > MAX_MEASUREMENTS:
            raise ConfigurationError(f"--poses, --per-minute x --minutes: expected at most {MAX_MEASUREMENTS:,} poses "
                                     f"and measurements, got {poses:,} poses and {per_minute * minutes.size:,} "
                                     "measurements")
        rng = np.random.default_rng(seed)
        pool = rng.uniform(0.8 * chain.lower, 0.8 * chain.upper, size=(poses, chain.n_joints))
        q = np.vstack([pool[rng.choice(poses, per_minute, replace=False)] for _ in minutes])
        meas = simulate_measurements(
            chain, table, q, np.repeat(minutes, per_minute), law.fraction,
            T_tracker_world=tracker_transform(tracker_pose_mm_deg), position_noise=noise_mm * 1e-3,
            orientation_noise=None if orientation_noise_deg is None else float(np.radians(orientation_noise_deg)),
            rng=rng, composition=composition)
        job.write_with(out, lambda p: write_measurements_csv(meas, p))
        written = job.commit()
    return Campaign(meas, None, Path(out), tuple(written))


def read_compensated_rows(path: PathLike, n_joints: int) -> tuple[FloatArray, FloatArray, FloatArray, np.ndarray]:
    """Converged rows of a results CSV: minutes ``(r,)``, corrected angles [rad] ``(r, n)``,
    the reached (target) positions [m] ``(r, 3)`` and the file lines ``(r,)``."""
    from thermocomp.io.csvtext import check_header, header_and_rows, parse_floats

    src = str(path)
    line, header, rows = header_and_rows(path, "expected a results CSV (thermocomp compensate --out), got an empty file")
    wanted = ["minute", "status", *[f"q{j + 1}_deg" for j in range(n_joints)], "reached_x_mm", "reached_y_mm",
              "reached_z_mm"]
    names = [h.strip() for h in header]
    index = check_header(header, wanted, [n for n in names if n not in wanted], src, line)
    numeric = [c for c in wanted if c != "status"]
    values, lines = [], []
    for number, cells in rows:
        if len(cells) != len(names):
            raise InputError(f"expected {len(names)} cells, got {len(cells)}", path=src, row=number)
        if cells[index["status"]].strip() != "converged":
            continue
        values.append(parse_floats(cells, [index[c] for c in numeric], numeric, src, number))
        lines.append(number)
    if not values:
        raise InputError("no converged rows to measure", path=src)
    v = np.array(values)
    return v[:, 0], np.radians(v[:, 1:1 + n_joints]), v[:, 1 + n_joints:] / 1e3, np.array(lines)


def measure_results(robot: str | PathLike, deformation: PathLike, results: PathLike, out: PathLike, law, *,
                    noise_mm: float = 0.0, seed: int = 0, composition: str = "table",
                    law_file: PathLike | None = None, robot_options: RobotFileOptions | None = None) -> Campaign:
    """Measure a compensated program again on the (truly) warm robot: the closed loop's last step.

    Every converged row of ``results`` (``thermocomp compensate --out``) is
    played at its minute on the robot deformed by ``deformation`` under
    ``law`` (the truth, not the identified table), and the TCP is measured
    (world frame, optional noise). Writes the measurements CSV and returns
    the distance to the targets the compensation aimed at. ``law_file`` and
    ``robot_options`` as in :func:`run_campaign`; every file is declared in one
    :class:`~thermocomp.io.job.Job`, checked before any work.
    """
    from thermocomp.io.measurements_csv import write_measurements_csv

    with Job() as job:
        _declare(job, robot, deformation, law_file)
        job.input(results, "--results")
        out = job.output(out, "--out")
        job.check()  # before any work
        law = _law(law, law_file)
        bound = robot_and_table(robot, deformation, job=job, robot_options=robot_options)
        chain, table = bound.chain, bound.table
        minutes, q, p_target, lines = read_compensated_rows(results, chain.n_joints)
        rng = np.random.default_rng(seed)
        meas = simulate_measurements(chain, table, q, minutes, law.fraction, position_noise=noise_mm * 1e-3,
                                     rng=rng, composition=composition)
        meas = Measurements(q=meas.q, p_tracker_tcp=meas.p_tracker_tcp, minute=meas.minute, line=lines,
                            source=str(results))
        job.write_with(out, lambda p: write_measurements_csv(meas, p))
        written = job.commit()
    return Campaign(meas, np.linalg.norm(meas.p_tracker_tcp - p_target, axis=1), Path(out), tuple(written))


def run_track(robot: str | PathLike, deformation: PathLike, out: PathLike, law, *, results: PathLike | None = None,
              poses: int = 30, minutes: ArrayLike = (200.0,), per_minute: int | None = None, noise_mm: float = 0.0,
              orientation_noise_deg: float | None = None, tracker_pose_mm_deg: ArrayLike | None = None, seed: int = 0,
              law_file: PathLike | None = None, robot_options: RobotFileOptions | None = None) -> Campaign:
    """``thermocomp track``: :func:`measure_results` when ``results`` is given, else :func:`run_campaign`.

    The options that only a campaign takes are refused with ``results``,
    before any file is read.

    Raises
    ------
    ConfigurationError
        ``tracker_pose_mm_deg`` or ``orientation_noise_deg`` given with ``results``.
    """
    if results is not None:
        if tracker_pose_mm_deg is not None or orientation_noise_deg is not None:
            raise ConfigurationError("--tracker-pose and --orientation-noise-deg are for a campaign, not --results")
        return measure_results(robot, deformation, results, out, law, noise_mm=noise_mm,
                               seed=seed, law_file=law_file, robot_options=robot_options)
    return run_campaign(robot, deformation, out, law, poses=poses, minutes=minutes,
                        per_minute=per_minute, noise_mm=noise_mm, orientation_noise_deg=orientation_noise_deg,
                        tracker_pose_mm_deg=tracker_pose_mm_deg, seed=seed, law_file=law_file,
                        robot_options=robot_options)


__all__ = ["MAX_MEASUREMENTS", "Campaign", "measure_results", "read_compensated_rows", "run_campaign",
           "run_track", "tracker_transform"]
