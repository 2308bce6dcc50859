"""A simulated tracker campaign: PyBullet measures the TCP of the warm robot at given poses and minutes.

The deformed robot of each minute (its table scaled by the time law's
fraction) is loaded in PyBullet from the regenerated URDF, put at each
configuration, and the TCP pose PyBullet reports (double precision,
:meth:`RobotBody.tcp_pose`; PyBullet's kinematics, not thermocomp's) is
taken to the tracker frame and given the tracker's noise. This is what a
laser tracker would record, with a known truth to test calibration against.

Frames: the robot's world; the result in the tracker frame
(``T_tracker_world`` applied). SI inside.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from thermocomp._typing import ArrayLike, FloatArray, PathLike
from thermocomp.app.prepare import robot_and_table
from thermocomp.deformation.table import DeformationTable
from thermocomp.errors import ConfigurationError, InputError
from thermocomp.geometry.checks import check_array, check_transform
from thermocomp.geometry.rotations import matrix_from_rotvec
from thermocomp.io.job import Job
from thermocomp.io.measurements import Measurements
from thermocomp.io.robot_files import RobotFileOptions
from thermocomp.robot.chain import Chain
from thermocomp.simulators.pybullet.cell import work_directory
from thermocomp.simulators.pybullet.client import connect
from thermocomp.simulators.pybullet.robot import DeformedRobot


def measure_poses(chain: Chain, table: DeformationTable, q: ArrayLike, fractions: ArrayLike, *,
                  composition: str = "table", workdir: PathLike | None = None) -> tuple[FloatArray, FloatArray]:
    """World TCP poses PyBullet reports for the deformed robot, no noise.

    Parameters
    ----------
    q
        Controller angles [rad], ``(m, n)``.
    fractions
        Share of ``table`` applied at each configuration, ``(m,)``.

    Returns
    -------
    R_world_tcp : ndarray, shape ``(m, 3, 3)``
    p_world_tcp : ndarray, shape ``(m, 3)`` [m]
    """
    q = check_array(q, (None, chain.n_joints), "configurations")
    fractions = check_array(np.broadcast_to(np.asarray(fractions, dtype=float), (q.shape[0],)), (q.shape[0],),
                            "fractions")
    R, p = np.empty((q.shape[0], 3, 3)), np.empty((q.shape[0], 3))
    with connect("direct") as client, work_directory(workdir) as work:
        robot = DeformedRobot(client, chain, table, work, composition=composition, rgba=None, name="campaign")
        try:
            values, group = np.unique(fractions, return_inverse=True)
            for k, value in enumerate(values.tolist()):
                body = robot.show(value)
                for i in np.flatnonzero(group == k).tolist():
                    body.set_q(q[i])
                    R[i], p[i] = body.tcp_pose()
        finally:
            robot.remove()
    return R, p


def simulate_measurements(
    chain: Chain,
    table: DeformationTable,
    q: ArrayLike,
    minutes: ArrayLike,
    fraction_at: Callable[[FloatArray], FloatArray],
    *,
    T_tracker_world: ArrayLike | None = None,
    position_noise: float = 0.0,
    orientation_noise: float | None = None,
    rng: np.random.Generator | None = None,
    temperature_C: ArrayLike | None = None,
    composition: str = "table",
    workdir: PathLike | None = None,
) -> Measurements:
    """A tracker's measurements of the warm robot, simulated by PyBullet.

    Parameters
    ----------
    chain, table
        The robot and its hidden full table (the truth).
    q
        Controller angles [rad] of the measured poses, ``(m, n)``.
    minutes
        Minute of each measurement ``(m,)`` [min].
    fraction_at
        The hidden time law: minutes ``(m,)`` -> share of the table ``(m,)``
        (e.g. ``LinearRamp(180).fraction``).
    T_tracker_world
        Where the tracker is: its frame's pose with respect to the world, as
        ``T_tracker_world`` ``(4, 4)`` (positions are reported in the tracker frame);
        default the world frame.
    position_noise
        Standard deviation of the tracker's noise per coordinate [m], >= 0.
    orientation_noise
        Standard deviation of the orientation noise per axis [rad]; ``None``:
        position only (most trackers without a 6-D probe).
    rng
        Generator of the noise (required when any noise is asked for).
    temperature_C
        Temperatures to attach ``(m, k)`` [deg C], or ``None``.
    """
    minutes = check_array(np.atleast_1d(minutes), (None,), "minutes")
    q = check_array(q, (minutes.size, chain.n_joints), "configurations")
    T = np.eye(4) if T_tracker_world is None else check_transform(T_tracker_world, "T_tracker_world")
    if position_noise < 0 or (orientation_noise is not None and orientation_noise < 0):
        raise ConfigurationError(f"noise (--noise-mm, --orientation-noise-deg): expected standard deviations >= 0, got "
                                 f"{position_noise * 1e3:g} mm, "
                                 f"{'none' if orientation_noise is None else f'{np.degrees(orientation_noise):g} deg'}")
    noisy = position_noise > 0 or bool(orientation_noise)
    if noisy and rng is None:
        raise ConfigurationError("noise: give rng=numpy.random.default_rng(seed) to draw the tracker's noise")
    fractions = np.asarray(fraction_at(minutes), dtype=float)
    R_world, p_world = measure_poses(chain, table, q, fractions, composition=composition, workdir=workdir)
    p = p_world @ T[:3, :3].T + T[:3, 3]
    if position_noise > 0:
        p = p + rng.normal(scale=position_noise, size=p.shape)
    R = None
    if orientation_noise is not None:
        R = T[:3, :3] @ R_world
        if orientation_noise > 0:
            R = matrix_from_rotvec(rng.normal(scale=orientation_noise, size=(q.shape[0], 3))) @ R
    return Measurements(q=q, p_tracker_tcp=p, minute=minutes, R_tracker_tcp=R,
                        temperature_C=temperature_C, source="PyBullet (simulated tracker)")




# --- file-level entry points (``thermocomp track``) -------------------------------------------


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


def run_campaign(robot: str | PathLike, deformation: PathLike, out: PathLike, law, *, poses: int, minutes: ArrayLike,
                 per_minute: int | None = None, noise_mm: float = 0.0, orientation_noise_deg: float | None = None,
                 tracker_pose_mm_deg: ArrayLike | None = None, seed: int = 0, composition: str = "table",
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
    the distance to the targets the compensation aimed at. ``law_file`` as
    and ``robot_options`` as in :func:`run_campaign`; every file is declared in one
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


__all__ = ["Campaign", "measure_poses", "measure_results", "read_compensated_rows", "run_campaign",
           "simulate_measurements", "tracker_transform"]
