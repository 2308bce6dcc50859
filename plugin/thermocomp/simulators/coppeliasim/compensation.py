"""Check a compensated program in CoppeliaSim's scene.

The solve is thermocomp's own (:func:`thermocomp.app.coppeliasim.compensate_in_scene`
runs :func:`thermocomp.app.targets.compensate_targets`, never simIK). The check shows the deformed robot in the scene, sets the
compensated joint angles, reads back the TCP pose CoppeliaSim computes, and
compares it with the target and with thermocomp's own prediction (the
deformed model's forward kinematics). The scene is restored afterwards.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from thermocomp._typing import FloatArray
from thermocomp.compensation.compensate import CompensationChunk, CompensationOptions
from thermocomp.compensation.targets import Targets
from thermocomp.deformation.apply import deformed_model
from thermocomp.deformation.table import DeformationTable
from thermocomp.deformation.timelaw import TablePerMinute
from thermocomp.geometry.rotations import rotation_angle
from thermocomp.kinematics.fk import fk_matrix
from thermocomp.kinematics.ik import Status
from thermocomp.kinematics.model import KinematicModel, nominal_model
from thermocomp.simulators.coppeliasim.connection import Session
from thermocomp.simulators.coppeliasim.scene import (
    SceneRobot,
    deformation_shown,
    read_tip,
    set_joint_positions,
)


@dataclass(frozen=True)
class SceneCheck:
    """TCP poses CoppeliaSim computed, against targets and against thermocomp's forward kinematics.

    Attributes
    ----------
    minute
        Minute of each checked row [min], ``(r,)``.
    target
        Target names, ``r`` entries.
    T_world_tcp_scene
        What CoppeliaSim computed, ``(r, 4, 4)``, world frame [m].
    position_to_target, angle_to_target
        Distance [m] and angle [rad] from the target, ``(r,)``.
    position_to_model, angle_to_model
        Distance [m] and angle [rad] from thermocomp's prediction, ``(r,)``.
    """

    minute: FloatArray
    target: tuple[str, ...]
    T_world_tcp_scene: FloatArray
    position_to_target: FloatArray
    angle_to_target: FloatArray
    position_to_model: FloatArray
    angle_to_model: FloatArray

    @property
    def n_rows(self) -> int:
        return int(self.minute.shape[0])

    def text(self) -> str:
        """Two lines in mm and degrees."""
        if self.n_rows == 0:
            return "scene check: no converged rows to check"
        mm, deg = 1e3, np.degrees(1.0)
        minutes = np.unique(self.minute)
        where = f"minute {minutes[0]:g}" if minutes.size == 1 else f"{minutes.size} minutes"
        return "\n".join([
            f"scene check ({self.n_rows} rows, {where}): TCP read back from CoppeliaSim vs target: "
            f"max {self.position_to_target.max() * mm:.3g} mm, {self.angle_to_target.max() * deg:.3g} deg",
            f"  vs thermocomp's forward kinematics of the deformed robot: max "
            f"{self.position_to_model.max() * mm:.3g} mm, {self.angle_to_model.max() * deg:.3g} deg",
        ])


def check_poses(
    session: Session,
    robot: SceneRobot,
    model: KinematicModel,
    q: FloatArray,
    R_target: FloatArray | None = None,
    p_target: FloatArray | None = None,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Show ``model``, set each configuration, read the TCP back; restore the scene.

    Parameters
    ----------
    model
        One (unbatched) kinematic model to show, e.g. the deformed robot.
    q
        Controller angles [rad], ``(r, n)``.
    R_target, p_target
        Optional targets, ``(r, 3, 3)`` and ``(r, 3)`` [m], world frame.

    Returns
    -------
    T_scene : ndarray, shape ``(r, 4, 4)``
        TCP poses CoppeliaSim computed.
    to_model : ndarray, shape ``(r, 2)``
        Distance [m] and angle [rad] from ``fk(model, q)``.
    to_target : ndarray, shape ``(r, 2)``
        Distance [m] and angle [rad] from the targets (NaN without targets).
    """
    q = np.atleast_2d(np.asarray(q, dtype=float))
    T_model = fk_matrix(model, q)
    T_scene = np.empty_like(T_model)
    with deformation_shown(session, robot, model):
        for k, q_row in enumerate(q):
            set_joint_positions(session, robot, q_row)
            T_scene[k] = read_tip(session, robot)
    to_model = np.stack([
        np.linalg.norm(T_scene[:, :3, 3] - T_model[:, :3, 3], axis=-1),
        rotation_angle(T_scene[:, :3, :3] @ np.swapaxes(T_model[:, :3, :3], -1, -2)),
    ], axis=-1)
    to_target = np.full_like(to_model, np.nan)
    if R_target is not None and p_target is not None:
        to_target = np.stack([
            np.linalg.norm(T_scene[:, :3, 3] - p_target, axis=-1),
            rotation_angle(T_scene[:, :3, :3] @ np.swapaxes(R_target, -1, -2)),
        ], axis=-1)
    return T_scene, to_model, to_target


def check_nominal_fk(session: Session, robot: SceneRobot, q: FloatArray) -> FloatArray:
    """Distance [m] and angle [rad] ``(r, 2)`` between CoppeliaSim's TCP and ``fk(nominal, q)``; scene restored."""
    return check_poses(session, robot, nominal_model(robot.chain), q)[1]


def check_in_scene(session: Session, robot: SceneRobot, table: DeformationTable, program: Targets,
                   options: CompensationOptions, chunks: Sequence[CompensationChunk],
                   check_minutes: Sequence[float] | None = None) -> SceneCheck:
    """Replay the converged rows of a compensation (``chunks``) in the scene and compare (scene restored).

    Parameters
    ----------
    table, program, options
        As compensated (:func:`thermocomp.app.coppeliasim.compensate_in_scene`). A time law with a
        table per minute (the authors' incremental law) shows each checked minute's own table.
    chunks
        The solved rows (:attr:`CompensationReport.chunks <thermocomp.app.targets.CompensationReport>`).
    check_minutes
        Minutes whose converged rows are replayed; default the last minute of
        ``options.minutes`` (every row for a timed program).
    """
    per_minute = isinstance(options.time_law, TablePerMinute)
    rows = [(float(c.minute[k]), float(c.fraction[k]), int(c.target[k]), c.q[k])
            for c in chunks for k in range(c.n_rows) if c.status[k] == Status.CONVERGED]
    if program.time_min is None:
        wanted = {float(options.minutes[-1])} if check_minutes is None else {float(m) for m in check_minutes}
        rows = [r for r in rows if r[0] in wanted]
    # Rows sharing a deformed robot are checked together: those sharing a fraction of the table,
    # or, when each minute has its own table (applied in full), those sharing a minute.
    key_of = 0 if per_minute else 1
    keys = sorted({r[key_of] for r in rows})
    if not per_minute:
        tables, fractions = [table] * len(keys), keys
    else:  # all minutes in one call: the authors' law builds them in one pass over the minutes
        tables, fractions = options.time_law.tables(keys), [1.0] * len(keys)
    models = [deformed_model(robot.chain, t, f, options.composition) for t, f in zip(tables, fractions)]
    minutes, T_all, to_model, to_target, names = [], [], [], [], []
    for key, model in zip(keys, models):
        group = [r for r in rows if r[key_of] == key]
        index = np.array([r[2] for r in group])
        T, d_model, d_target = check_poses(session, robot, model, np.array([r[3] for r in group]),
                                           program.R_world_tcp[index], program.p_world_tcp[index])
        minutes += [r[0] for r in group]
        names += [program.names[i] for i in index]
        T_all.append(T)
        to_model.append(d_model)
        to_target.append(d_target)

    def stack(parts, shape):
        return np.concatenate(parts) if parts else np.empty(shape)

    d_model = stack(to_model, (0, 2))
    d_target = stack(to_target, (0, 2))
    return SceneCheck(
        minute=np.array(minutes, dtype=float),
        target=tuple(names),
        T_world_tcp_scene=stack(T_all, (0, 4, 4)),
        position_to_target=d_target[:, 0],
        angle_to_target=d_target[:, 1],
        position_to_model=d_model[:, 0],
        angle_to_model=d_model[:, 1],
    )
