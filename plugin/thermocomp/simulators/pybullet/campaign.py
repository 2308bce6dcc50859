"""A simulated tracker campaign: PyBullet measures the TCP of the warm robot at given poses and minutes.

The deformed robot of each minute (its table scaled by the time law's
fraction) is loaded in PyBullet from the regenerated URDF, put at each
configuration, and the TCP pose PyBullet reports (double precision,
:meth:`RobotBody.tcp_pose`; PyBullet's kinematics, not thermocomp's) is
taken to the tracker frame and given the tracker's noise. This is what a
laser tracker would record, with a known truth to test calibration against.
The ``thermocomp track`` job (files in, measurements CSV out) is
:mod:`thermocomp.app.track`.

Frames: the robot's world; the result in the tracker frame
(``T_tracker_world`` applied). SI inside.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from thermocomp._typing import ArrayLike, FloatArray, PathLike
from thermocomp.deformation.table import DeformationTable
from thermocomp.errors import ConfigurationError
from thermocomp.geometry.checks import check_array, check_transform
from thermocomp.geometry.rotations import matrix_from_rotvec
from thermocomp.io.measurements import Measurements
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


__all__ = ["measure_poses", "simulate_measurements"]
