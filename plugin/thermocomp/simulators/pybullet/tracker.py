"""The simulated laser tracker: where PyBullet puts the TCP of the deformed robot.

For every row (minute, target) of a compensated program, the deformed robot
of that minute is loaded in PyBullet (from the regenerated URDF) and posed
twice: with the program's nominal angles (what the warm robot does without
compensation) and with the corrected angles. The TCP poses PyBullet reports
(double precision, :meth:`RobotBody.tcp_pose`) and their distance to the
target are the measurement. It uses PyBullet's forward kinematics, not
thermocomp's, so it checks the core independently (seed 002, Section 4).

Frames: world. Units: metres and radians inside; the CSV in millimetres and
degrees, orientation columns in the program's convention (docs/conventions.md).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from thermocomp._typing import FloatArray, PathLike
from thermocomp.compensation.compensate import CompensationChunk
from thermocomp.compensation.targets import Targets
from thermocomp.deformation.table import DeformationTable
from thermocomp.errors import InputError
from thermocomp.geometry.rotations import rotation_angle
from thermocomp.io.atomic import atomic_open
from thermocomp.io.results_csv import orientation_columns, orientation_values, quote_name
from thermocomp.kinematics.ik import Status
from thermocomp.robot.chain import Chain
from thermocomp.simulators.pybullet.client import Client
from thermocomp.simulators.pybullet.robot import DeformedRobot, RobotBody


@dataclass(frozen=True, eq=False)
class TrackerMeasurement:
    """What PyBullet measured for each row of a compensated program (world frame, SI).

    Attributes
    ----------
    names
        Target names of the program; ``target`` indexes them.
    orientation_convention
        The program's orientation convention (for the CSV columns).
    minute, fraction
        Row time [min] and share of the table applied, ``(r,)``.
    target
        Target index per row, ``(r,)``.
    status, nominal_status
        Compensation status of the row and of its nominal solution (``Status`` values), ``(r,)``.
    q, q_nominal
        Corrected and nominal controller angles [rad], ``(r, n)``.
    R_target, p_target
        Target pose, ``(r, 3, 3)`` and ``(r, 3)`` [m].
    R_nominal, p_nominal
        TCP pose PyBullet reports for the deformed robot at ``q_nominal``;
        NaN where the nominal solution failed.
    R_corrected, p_corrected
        The same at ``q``; NaN where the compensation failed.
    predicted_nominal_distance
        The core's prediction of the uncompensated miss [m], ``(r,)``
        (:attr:`CompensationChunk.uncompensated_deviation`).
    reload_seconds
        Duration of each reload of the deformed robot [s].
    """

    names: tuple[str, ...]
    orientation_convention: str
    minute: FloatArray
    fraction: FloatArray
    target: np.ndarray
    status: np.ndarray
    nominal_status: np.ndarray
    q: FloatArray
    q_nominal: FloatArray
    R_target: FloatArray
    p_target: FloatArray
    R_nominal: FloatArray
    p_nominal: FloatArray
    R_corrected: FloatArray
    p_corrected: FloatArray
    predicted_nominal_distance: FloatArray
    reload_seconds: list[float] = field(default_factory=list)

    @property
    def n_rows(self) -> int:
        return int(self.minute.size)

    @property
    def nominal_distance(self) -> FloatArray:
        """``|p_nominal - p_target|`` [m], ``(r,)``: the uncompensated miss, as measured."""
        return np.linalg.norm(self.p_nominal - self.p_target, axis=1)

    @property
    def corrected_distance(self) -> FloatArray:
        """``|p_corrected - p_target|`` [m], ``(r,)``: the compensated miss, as measured."""
        return np.linalg.norm(self.p_corrected - self.p_target, axis=1)

    @property
    def nominal_angle(self) -> FloatArray:
        """Angle [rad] between the measured and the target orientation, nominal angles, ``(r,)``; NaN if failed."""
        return _angle_between(self.R_nominal, self.R_target)

    @property
    def corrected_angle(self) -> FloatArray:
        """Angle [rad] between the measured and the target orientation, corrected angles, ``(r,)``; NaN if failed."""
        return _angle_between(self.R_corrected, self.R_target)

    def text(self) -> str:
        """A few lines: the largest misses with and without compensation, and the core's prediction."""
        ok = self.status == Status.CONVERGED
        nom = self.nominal_status == Status.CONVERGED
        lines = [f"PyBullet (simulated laser tracker): {self.n_rows:,} rows, {int(ok.sum()):,} compensated"]
        if nom.any():
            d, pred = self.nominal_distance[nom], self.predicted_nominal_distance[nom]
            lines.append(
                f"  without compensation: the TCP misses by up to {d.max() * 1e3:.6g} mm (mean {d.mean() * 1e3:.4g} mm), "
                f"{np.degrees(self.nominal_angle[nom].max()):.4g} deg; the core predicted {pred.max() * 1e3:.6g} mm "
                f"(largest difference {np.abs(d - pred).max() * 1e3:.2g} mm)")
        if ok.any():
            lines.append(
                f"  with compensation:    the TCP is within {self.corrected_distance[ok].max() * 1e3:.3g} mm and "
                f"{np.degrees(self.corrected_angle[ok].max()):.3g} deg of the targets")
        if self.reload_seconds:
            lines.append(f"  deformed robot reloaded {len(self.reload_seconds)} times, "
                         f"{np.median(self.reload_seconds) * 1e3:.2f} ms each (median)")
        return "\n".join(lines)


def _angle_between(R: FloatArray, R_target: FloatArray) -> FloatArray:
    """``rotation_angle(R @ R_target.T)`` for the rows of ``R`` that are not NaN, NaN elsewhere."""
    out = np.full(R.shape[0], np.nan)
    valid = np.all(np.isfinite(R), axis=(1, 2))
    out[valid] = rotation_angle(R[valid] @ np.swapaxes(R_target[valid], -1, -2))
    return out


def _tcp_poses(body: RobotBody, raw: FloatArray) -> tuple[FloatArray, FloatArray]:
    """TCP poses from raw inertial states ``(r, 7)`` (position, quaternion x, y, z, w); NaN rows stay NaN."""
    measured = np.all(np.isfinite(raw), axis=1)
    R, p = np.full((raw.shape[0], 3, 3), np.nan), np.full((raw.shape[0], 3), np.nan)
    if measured.any():
        R[measured], p[measured] = body.tcp_poses_from_inertial(raw[measured, :3], raw[measured, 3:])
    return R, p


def _concat(chunks: Sequence[CompensationChunk], name: str) -> np.ndarray:
    return np.concatenate([getattr(c, name) for c in chunks])


def measure_program(client: Client, chain: Chain, table: DeformationTable, program: Targets,
                    chunks: Sequence[CompensationChunk], workdir: PathLike, *,
                    composition: str = "table",
                    progress: Callable[[int, int], None] | None = None) -> TrackerMeasurement:
    """Play a compensated program on the deformed robot in PyBullet and measure the TCP.

    Parameters
    ----------
    client
        A PyBullet connection (DIRECT is enough; nothing is drawn).
    chain, table, composition
        The robot (placed in the world), its full deformation table and how
        rows compose, as given to the compensation.
    program
        The program that was compensated (targets in the world frame).
    chunks
        The compensation's results (:func:`thermocomp.compensation.compensate`
        or ``CompensationReport.chunks``), ``target`` indexing ``program``.
    workdir
        Folder for the regenerated URDF.
    progress
        Called as ``progress(rows_done, rows_total)`` after each minute's rows.

    Returns
    -------
    TrackerMeasurement
        One row per compensation row, in the same order.
    """
    if not chunks:
        raise InputError("expected compensation results to measure, got none")
    target = _concat(chunks, "target")
    if target.max() >= program.n_targets:
        raise InputError(f"results index target {int(target.max())}, the program has {program.n_targets} targets",
                         path=program.source)
    fraction = _concat(chunks, "fraction")
    status, nominal_status = _concat(chunks, "status"), _concat(chunks, "nominal_status")
    q, q_nominal = _concat(chunks, "q"), _concat(chunks, "q_nominal")
    r = target.size
    # Raw inertial-frame poses (position, quaternion x, y, z, w), NaN where not measured;
    # converted to TCP poses at once after the loop (the batch fast path).
    raw_nominal, raw_corrected = np.full((r, 7), np.nan), np.full((r, 7), np.nan)
    robot = DeformedRobot(client, chain, table, workdir, composition=composition, rgba=None, name="tracker")
    try:
        values, group = np.unique(fraction, return_inverse=True)
        done = 0
        for k, value in enumerate(values.tolist()):
            body = robot.show(value)
            rows = np.flatnonzero(group == k).tolist()
            for i in rows:
                if nominal_status[i] == Status.CONVERGED:
                    body.set_q(q_nominal[i])
                    position, quat_xyzw = body.tcp_inertial_state()
                    raw_nominal[i] = (*position, *quat_xyzw)
                if status[i] == Status.CONVERGED:
                    body.set_q(q[i])
                    position, quat_xyzw = body.tcp_inertial_state()
                    raw_corrected[i] = (*position, *quat_xyzw)
            done += len(rows)
            if progress is not None:
                progress(done, r)
        # Every reload writes the same tcp inertial, so the last body converts them all.
        R_nominal, p_nominal = _tcp_poses(body, raw_nominal)
        R_corrected, p_corrected = _tcp_poses(body, raw_corrected)
    finally:
        robot.remove()
    udev = _concat(chunks, "uncompensated_deviation")
    return TrackerMeasurement(
        names=program.names, orientation_convention=program.orientation_convention,
        minute=_concat(chunks, "minute"), fraction=fraction, target=target, status=status,
        nominal_status=nominal_status, q=q, q_nominal=q_nominal,
        R_target=program.R_world_tcp[target], p_target=program.p_world_tcp[target],
        R_nominal=R_nominal, p_nominal=p_nominal, R_corrected=R_corrected, p_corrected=p_corrected,
        predicted_nominal_distance=np.linalg.norm(udev[:, :3], axis=1),
        reload_seconds=list(robot.reload_seconds),
    )


def tracker_header(n_joints: int, convention: str) -> list[str]:
    """Columns of the tracker CSV (units and orientation convention in every name)."""
    def pose(prefix: str) -> list[str]:
        return [f"{prefix}_x_mm", f"{prefix}_y_mm", f"{prefix}_z_mm", *orientation_columns(prefix, convention)]

    return [
        "minute", "target", "status",
        *[f"q{j + 1}_deg" for j in range(n_joints)],
        *[f"nominal_q{j + 1}_deg" for j in range(n_joints)],
        *pose("target"),
        *pose("sim_nominal"), "sim_nominal_dist_mm", "sim_nominal_angle_deg",
        *pose("sim_corrected"), "sim_corrected_dist_mm", "sim_corrected_angle_deg",
        "model_nominal_dist_mm",
    ]


def _cells(values: FloatArray, valid: np.ndarray) -> list[list[str]]:
    text = np.char.mod("%.12g", values)
    text[~valid] = ""
    return text.tolist()


def write_tracker_csv(measurement: TrackerMeasurement, path: PathLike) -> None:
    """Write the measurement as CSV, completely or not at all (temporary file, then rename).

    Numbers, the minute included, carry 12 significant digits, like the
    results CSV of :mod:`thermocomp.io.results_csv`, so a minute reads back
    as the same row of both files.

    One line per row: minute, target, status, the corrected and nominal
    angles [deg], the target pose, the pose PyBullet measured with the
    nominal angles (``sim_nominal_*``) and with the corrected ones
    (``sim_corrected_*``) with their distance [mm] and angle [deg] to the
    target, and the distance the core predicted for the nominal angles
    (``model_nominal_dist_mm``). Cells of failed solutions are empty.
    """
    m = measurement
    conv = m.orientation_convention
    n = m.q.shape[1]
    ok = m.status == Status.CONVERGED
    nom = m.nominal_status == Status.CONVERGED
    every = np.ones(m.n_rows, dtype=bool)

    def pose(R: FloatArray, p: FloatArray, valid: np.ndarray) -> FloatArray:
        out = np.full((m.n_rows, 3 + len(orientation_columns("x", conv))), np.nan)
        if valid.any():
            out[valid] = np.hstack([p[valid] * 1e3, orientation_values(R[valid], conv)])
        return out

    blocks = [
        _cells(np.degrees(m.q), ok),
        _cells(np.degrees(m.q_nominal), nom),
        _cells(pose(m.R_target, m.p_target, every), every),
        _cells(np.column_stack([pose(m.R_nominal, m.p_nominal, nom), m.nominal_distance * 1e3,
                                np.degrees(m.nominal_angle)]), nom),
        _cells(np.column_stack([pose(m.R_corrected, m.p_corrected, ok), m.corrected_distance * 1e3,
                                np.degrees(m.corrected_angle)]), ok),
        _cells(m.predicted_nominal_distance[:, None] * 1e3, nom),
    ]
    with atomic_open(path, newline="") as handle:
        handle.write(",".join(tracker_header(n, conv)) + "\n")
        for i in range(m.n_rows):
            name = quote_name(m.names[int(m.target[i])])
            head = [f"{m.minute[i]:.12g}", name, Status(int(m.status[i])).label]
            handle.write(",".join(head + [c for block in blocks for c in block[i]]) + "\n")


__all__ = ["TrackerMeasurement", "measure_program", "tracker_header", "write_tracker_csv"]
