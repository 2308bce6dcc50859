"""The paper authors' CoppeliaSim scene convention, converted to the table form.

The published numbers of seed 002 came from a CoppeliaSim scene and script
that did not apply a deformation table as the paper's equations read
(docs/coppeliasim.md, "The authors' scene convention"). With every joint at
zero, for joints ``1..n`` in order, the script

1. added ``(Dx, Dy, Dz)`` to the joint object's position **in the world frame**;
2. read the joint object's world Euler angles back from its current
   orientation (CoppeliaSim's ``alpha, beta, gamma``, ``R = Rx Ry Rz``, see
   :func:`coppeliasim_euler_from_matrix`), added ``(Dox, Doy, Doz)`` and set
   the orientation from the sums;

and every object below a joint in the scene hierarchy (the later joints,
links and the tip) followed it rigidly. In the transient case it did this
once per minute with ``D / T`` on top of the already deformed robot.

A joint object's z axis is its rotation axis, so adding Euler angles is a
different rotation for each joint; for joints whose axis is the world x axis
(``beta = 90 deg``) the read-back sits at CoppeliaSim's gimbal-lock branch,
which is not an exact inverse, so even the read-back moves the joint.

:func:`authors_deformation_table` replays that procedure in double precision
and returns the equivalent table-form :class:`DeformationTable` (per joint: the
translation and the ``Rx Ry Rz`` deviation of seed 002's Tables 6-7, see
docs/conventions.md), so that :func:`thermocomp.deformation.deformed_model`
with ``composition="table"`` gives exactly the robot the authors' scene held.
Any rigid displacement of a joint frame has that form, so a table always
exists; the incremental (per-minute) law is not a scaled table, though: each
minute has its own table (:func:`authors_deformation_tables`).

Pure numpy: no simulator, no files, no printing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from thermocomp._typing import ArrayLike, FloatArray
from thermocomp.deformation.apply import deformed_model
from thermocomp.deformation.table import DeformationTable
from thermocomp.deformation.timelaw import LinearRamp, Static, TimeLaw
from thermocomp.errors import ConfigurationError, InputError
from thermocomp.geometry.checks import check_array, check_rotation
from thermocomp.geometry.rotations import (
    euler_xyz_from_matrix,
    invert_transform,
    matrix_from_euler_xyz,
    rotation_angle,
    transform,
)
from thermocomp.kinematics.fk import fk
from thermocomp.kinematics.model import nominal_model
from thermocomp.robot.chain import Chain

#: CoppeliaSim reads Euler angles on its gimbal-lock branch when
#: ``|R[0, 2]| >= COPPELIASIM_GIMBAL_R02`` (its ``C3X3Matrix::getEulerAngles``,
#: as the CoppeliaSim issue quotes it). This is CoppeliaSim's constant, not a
#: tolerance of ours: reproducing the authors' numbers needs the same branch.
COPPELIASIM_GIMBAL_R02 = 0.999995

#: World Euler angles (CoppeliaSim alpha, beta, gamma, ``R = Rx Ry Rz``) [deg] of
#: the joint objects of the authors' IRB140 scene at the zero pose, joints 1..6
#: (the CoppeliaSim issue). Their z axes are the joint axes +Z, +Y, +Y, +X, +Y, +X.
AUTHORS_IRB140_JOINT_EULER_DEG = (
    (0.0, 0.0, 0.0),
    (-90.0, 0.0, -90.0),
    (-90.0, 0.0, -90.0),
    (0.0, 90.0, 180.0),
    (-90.0, 0.0, -90.0),
    (0.0, 90.0, 0.0),
)

#: Largest angle [rad] between a joint object's z axis and the chain's joint
#: axis (both in the world at the zero pose) accepted as "the same axis".
#: Orientations typed in degrees with 6 significant digits are within 1e-7;
#: a wrong Euler triple is off by tenths of a radian.
SCENE_AXIS_TOL = 1e-6


def coppeliasim_euler_from_matrix(R: ArrayLike) -> FloatArray:
    """CoppeliaSim's read-back of Euler angles ``(alpha, beta, gamma)`` [rad] from ``R``.

    ``beta = asin(R02)``, ``alpha = atan2(-R12, R22)``, ``gamma = atan2(-R01, R00)``,
    except at gimbal lock (``|R02| >= COPPELIASIM_GIMBAL_R02``), where
    CoppeliaSim returns ``alpha = 0`` and ``gamma = atan2(R10, R11)``.

    Unlike :func:`thermocomp.geometry.rotations.euler_xyz_from_matrix` (exact
    to round-off everywhere), the gimbal-lock branch does not rebuild ``R``
    unless ``|R02|`` is exactly 1: ``Rx(alpha) Ry(beta) Rz(gamma)`` of the result
    differs from ``R`` by up to about 0.2 degree. That is what CoppeliaSim (and
    so the authors' script) does.

    Parameters
    ----------
    R
        Rotation matrices, shape ``(..., 3, 3)``.

    Returns
    -------
    ndarray, shape ``(..., 3)``
        ``(alpha, beta, gamma)`` [rad], ``beta`` in ``[-pi/2, pi/2]``.
    """
    R = np.asarray(R, dtype=float)
    r02 = R[..., 0, 2]
    beta = np.arcsin(np.clip(r02, -1.0, 1.0))
    lock = np.abs(r02) >= COPPELIASIM_GIMBAL_R02
    alpha = np.where(lock, 0.0, np.arctan2(-R[..., 1, 2], R[..., 2, 2]))
    gamma = np.where(lock, np.arctan2(R[..., 1, 0], R[..., 1, 1]), np.arctan2(-R[..., 0, 1], R[..., 0, 0]))
    return np.stack([alpha, beta, gamma], axis=-1)


#: The built-in robots whose joint objects are known (``irb140``: :data:`AUTHORS_IRB140_JOINT_EULER_DEG`;
#: ``irb140-paper-scene``: its file, :data:`thermocomp.io.robots.BUILTIN_JOINT_OBJECTS`, read by the application).
AUTHORS_SCENE_ROBOTS = ("irb140", "irb140-paper-scene")


def joint_object_orientations(chain: Chain, R_world_joint: ArrayLike | None = None) -> FloatArray:
    """World orientations of the scene's joint objects at the zero pose, validated.

    Parameters
    ----------
    chain
        The nominal robot (its zero pose is where the authors' script worked;
        every ``offset`` must be 0 and every ``sign`` +1, so that controller zero
        is the scene's zero).
    R_world_joint
        Shape ``(n, 3, 3)``: the rotation of each joint object in the world at
        the zero pose (a robot read from a CoppeliaSim scene brings its own:
        :attr:`thermocomp.simulators.coppeliasim.SceneRobot.R_world_joint`).
        ``None``: the authors' IRB140 scene, for a robot named ``irb140``
        (:data:`AUTHORS_IRB140_JOINT_EULER_DEG`). A built-in scene robot's own joint objects
        (``irb140-paper-scene``: :data:`thermocomp.io.robots.BUILTIN_JOINT_OBJECTS`) are read and passed by the
        application (:func:`thermocomp.app.prepare.bind_law`): the core reads no file.

    Returns
    -------
    ndarray, shape ``(n, 3, 3)``

    Raises
    ------
    InputError
        Wrong shape, not rotations, or a joint object's z axis that is not the
        chain's joint axis.
    """
    n = chain.n_joints
    if R_world_joint is None:
        if chain.name != "irb140":
            raise InputError(
                f"robot {chain.name!r}: the authors' scene convention needs the world orientation of every "
                f"joint object at the zero pose; built in only for {', '.join(AUTHORS_SCENE_ROBOTS)} "
                "(the authors' scene). Read the robot "
                "from your CoppeliaSim scene ('thermocomp coppeliasim read-robot --out ROBOT.csv "
                "--joint-objects-out JOINTS.csv', then --robot ROBOT.csv --joint-objects JOINTS.csv), or pass "
                "R_world_joint (n, 3, 3)"
            )
        R_world_joint = matrix_from_euler_xyz(np.radians(AUTHORS_IRB140_JOINT_EULER_DEG))
    R = check_array(R_world_joint, (n, 3, 3), f"{chain.name} joint object orientations")
    if np.any(chain.offset != 0.0) or np.any(chain.sign != 1.0):
        raise InputError(
            f"robot {chain.name!r}: the authors' convention works at the scene's zero pose; expected every "
            f"joint sign +1 and offset 0, got signs {chain.sign.tolist()} and offsets [deg] "
            f"{np.degrees(chain.offset).tolist()}"
        )
    R_world_base = chain.T_world_base[:3, :3]
    for i in range(n):
        check_rotation(R[i], f"{chain.name} joint {i + 1} object orientation")
        z_world = R[i][:, 2]
        axis_world = R_world_base @ chain.axis[i]
        angle = float(np.arctan2(np.linalg.norm(np.cross(z_world, axis_world)), z_world @ axis_world))
        if angle > SCENE_AXIS_TOL:
            raise InputError(
                f"{chain.name} joint {i + 1}: expected the joint object's z axis along the joint axis "
                f"{np.round(axis_world, 9).tolist()} (world), got {np.round(z_world, 9).tolist()} "
                f"({np.degrees(angle):.6g} deg apart)"
            )
    return R


def zero_pose_joint_objects(chain: Chain, R_world_joint: FloatArray) -> tuple[FloatArray, FloatArray]:
    """World poses of the joint objects and of the tip at the nominal zero pose.

    Returns
    -------
    T_world_joint : ndarray, shape ``(n, 4, 4)``
        Joint object ``i`` at the world origin of joint ``i``, rotated by ``R_world_joint[i]``.
    T_world_tip : ndarray, shape ``(4, 4)``
        The TCP (``T_last_tcp`` after the last joint's base-oriented frame).
    """
    R_world_base = chain.T_world_base[:3, :3]
    origins = chain.T_world_base[:3, 3] + np.cumsum(chain.p, axis=0) @ R_world_base.T  # (n, 3)
    T_world_joint = transform(R_world_joint, origins)
    T_world_tip = transform(R_world_base, origins[-1]) @ chain.T_last_tcp
    return T_world_joint, T_world_tip


def _apply_increment(T_world_joint: FloatArray, T_world_tip: FloatArray, rows: FloatArray) -> None:
    """One pass of the authors' script over joints 1..n (in place), ``rows`` (n, 6) SI."""
    n = T_world_joint.shape[0]
    for i in range(n):
        old = T_world_joint[i].copy()
        new = np.eye(4)
        new[:3, 3] = old[:3, 3] + rows[i, :3]  # position += (Dx, Dy, Dz), world frame
        euler = coppeliasim_euler_from_matrix(old[:3, :3])  # what sim.getObjectOrientation returns
        new[:3, :3] = matrix_from_euler_xyz(euler + rows[i, 3:])  # sim.setObjectOrientation(euler + D)
        # Children follow: every later joint and the tip keep their pose relative to joint i.
        inv_old = invert_transform(old)
        for j in range(i + 1, n):
            T_world_joint[j] = new @ (inv_old @ T_world_joint[j])
        T_world_tip[...] = new @ (inv_old @ T_world_tip)
        T_world_joint[i] = new


def authors_scene_poses(
    chain: Chain, rows: ArrayLike, passes: int = 1, R_world_joint: ArrayLike | None = None
) -> tuple[FloatArray, FloatArray]:
    """World poses of the joint objects and the tip after the authors' script, at the zero pose.

    Parameters
    ----------
    rows
        ``(n, 6)`` per joint: ``(Dx, Dy, Dz)`` [m] added to the world position,
        ``(Dox, Doy, Doz)`` [rad] added to the world Euler angles read back.
    passes
        How many passes over joints 1..n (the incremental law: one per minute).

    Returns
    -------
    T_world_joint : ndarray, shape ``(n, 4, 4)``
    T_world_tip : ndarray, shape ``(4, 4)``
    """
    rows = check_array(rows, (chain.n_joints, 6), "authors' table rows")
    if passes < 0:
        raise ConfigurationError(f"passes: expected >= 0, got {passes}")
    R_world_joint = joint_object_orientations(chain, R_world_joint)
    T_world_joint, T_world_tip = zero_pose_joint_objects(chain, R_world_joint)
    for _ in range(passes):
        _apply_increment(T_world_joint, T_world_tip, rows)
    return T_world_joint, T_world_tip


def _table_from_scene(chain: Chain, R_world_joint: FloatArray, T_world_joint: FloatArray,
                      source: str) -> DeformationTable:
    """Table-form rows that rebuild the scene poses ``T_world_joint`` (n, 4, 4) (and so the tip's)."""
    n = chain.n_joints
    R_world_base = chain.T_world_base[:3, :3]
    # C_i: the joint object's orientation in the base-oriented joint frame (constant).
    C = np.swapaxes(R_world_base, -1, -2) @ R_world_joint  # (n, 3, 3)
    joints = np.empty((n, 6))
    W_prev = chain.T_world_base
    for i in range(n):
        W = T_world_joint[i] @ transform(C[i].T)  # the (deformed) base-oriented frame of joint i
        F = invert_transform(W_prev) @ W  # = Trans(p_i + D_i) @ Rx Ry Rz(deviation)
        joints[i, :3] = F[:3, 3] - chain.p[i]
        joints[i, 3:] = euler_xyz_from_matrix(F[:3, :3])
        W_prev = W
    # The tip follows the last joint rigidly and the script never moves it on its
    # own, so the tool row is exactly zero (computing it would give round-off).
    return DeformationTable(joints=joints, source=source)


#: Longest stabilisation time [min] of the authors' incremental law: their script deforms the scene once a
#: minute, so T bounds the passes of one table (10,000 passes: about 2.5 s; 1e308 ran for ever).
MAX_AUTHORS_MINUTES = 10_000


def _increments(law: TimeLaw, minute: float) -> tuple[int, float]:
    """``(k, scale)``: the script applied ``scale * D`` ``k`` times by ``minute``."""
    if isinstance(law, Static):
        return 1, 1.0
    if isinstance(law, LinearRamp):
        T = law.stabilisation_min
        if T > MAX_AUTHORS_MINUTES:  # one pass of the script per minute: 1e308 ran for ever
            raise ConfigurationError(
                f"the authors' incremental law deforms the scene once per minute; expected a stabilisation time "
                f"T (--stabilisation-min) of at most {MAX_AUTHORS_MINUTES:,} minutes, got {T:g}"
            )
        if T != np.floor(T):
            raise ConfigurationError(
                f"the authors' incremental law adds D/T once per minute; expected a whole number of minutes "
                f"for the stabilisation time T, got {T:g}"
            )
        if not (np.isfinite(minute) and minute >= 0 and minute == np.floor(minute)):
            raise ConfigurationError(
                f"the authors' incremental law deforms the scene once per whole minute; expected a whole "
                f"minute >= 0, got {minute!r}"
            )
        return int(min(minute, T)), 1.0 / T
    raise ConfigurationError(f"time law: expected Static or LinearRamp, got {law!r}")


def authors_deformation_tables(
    chain: Chain,
    table: DeformationTable,
    minutes: ArrayLike,
    law: TimeLaw | None = None,
    R_world_joint: ArrayLike | None = None,
) -> list[DeformationTable]:
    """The table-form equivalents of the authors' scene at several minutes.

    Parameters
    ----------
    chain
        Nominal robot (sign +1 and offset 0 on every joint).
    table
        The authors' table: per joint ``(Dx, Dy, Dz)`` [m] added to the joint
        object's world position and ``(Dox, Doy, Doz)`` [rad] added to its world
        Euler angles. Base and tool rows must be zero (the script had none).
    minutes
        Minutes [min], shape ``(m,)``. With :class:`LinearRamp` ``(T)``: whole
        minutes; at minute ``t`` the script has added ``D / T`` ``min(t, T)``
        times, each time on top of the deformed scene (the paper's transient
        case). With :class:`Static`: the full table applied once, every minute.
    law
        :class:`Static` (one-shot) or :class:`LinearRamp` (incremental per
        minute); default ``LinearRamp(200)``, the paper's transient case.
    R_world_joint
        World orientations of the joint objects at the zero pose, ``(n, 3, 3)``;
        default the authors' IRB140 scene (see :func:`joint_object_orientations`).

    Returns
    -------
    list of DeformationTable
        One per minute, SI; with ``deformed_model(chain, t, composition="table")``
        each rebuilds the scene's joint objects and tip exactly (to round-off).
    """
    law = LinearRamp(200.0) if law is None else law
    table.check_matches(chain.n_joints, chain.name)
    if np.any(table.base != 0.0) or np.any(table.tool != 0.0):
        raise InputError("the authors' scene convention moves joint objects only; expected zero base and tool rows",
                         path=table.source)
    R_world_joint = joint_object_orientations(chain, R_world_joint)
    minutes = np.atleast_1d(np.asarray(minutes, dtype=float))
    plan = [_increments(law, float(t)) for t in minutes]
    scale = plan[0][1] if plan else 1.0
    order = np.argsort([k for k, _ in plan], kind="stable")
    T_world_joint, T_world_tip = zero_pose_joint_objects(chain, R_world_joint)
    rows = table.joints * scale
    done = 0
    out: list[DeformationTable | None] = [None] * len(plan)
    for index in order:
        k = plan[index][0]
        while done < k:
            _apply_increment(T_world_joint, T_world_tip, rows)
            done += 1
        what = "static" if isinstance(law, Static) else f"minute {minutes[index]:g}, {k} x D/{1 / scale:g}"
        out[index] = _table_from_scene(chain, R_world_joint, T_world_joint,
                                       f"{table.source} (authors' CoppeliaSim convention, {what})")
    return out  # type: ignore[return-value]


def authors_deformation_table(
    chain: Chain,
    table: DeformationTable,
    minute: float | None = None,
    law: TimeLaw | None = None,
    R_world_joint: ArrayLike | None = None,
) -> DeformationTable:
    """The table-form equivalent of the authors' scene at one minute.

    With :class:`Static` (default) the full table applied once (the paper's
    static case; ``minute`` is ignored). With :class:`LinearRamp` ``(T)`` the
    incremental law at the whole ``minute`` (see :func:`authors_deformation_tables`).
    """
    law = Static() if law is None else law
    if minute is None:
        if not isinstance(law, Static):
            raise ConfigurationError("the authors' incremental law needs a minute")
        minute = 0.0
    return authors_deformation_tables(chain, table, [minute], law, R_world_joint)[0]


@dataclass(frozen=True, eq=False)
class AuthorsIncrements:
    """The authors' incremental scene law as a time law: ``D / T`` added once per whole minute.

    Not a fraction of one table: at minute ``t`` the script has added
    ``D / T`` ``min(t, T)`` times, each on top of the deformed scene, so every
    minute is its own table-form table (:meth:`tables`), applied in full
    (:class:`~thermocomp.deformation.timelaw.TablePerMinute`). Checked when
    made, before any solving: the joint-object orientations, the zero base
    and tool rows, and a whole number of minutes ``T``.

    Parameters
    ----------
    chain
        Nominal robot.
    table
        The authors' table (SI), as :func:`authors_deformation_tables` reads it.
    ramp
        :class:`LinearRamp` ``(T)``, ``T`` a whole number of minutes.
    R_world_joint
        Joint-object orientations at the zero pose ``(n, 3, 3)``; ``None``: the
        authors' IRB140 scene (built in for irb140 only).
    """

    chain: Chain
    table: DeformationTable
    ramp: LinearRamp
    R_world_joint: FloatArray | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "R_world_joint", joint_object_orientations(self.chain, self.R_world_joint))
        authors_deformation_tables(self.chain, self.table, [0.0], self.ramp, self.R_world_joint)

    def fraction(self, minute: ArrayLike) -> FloatArray:
        """1.0 at every ``minute``: each minute's own table applies in full."""
        return np.ones_like(np.asarray(minute, dtype=float))

    def tables(self, minutes: Sequence[float]) -> list[DeformationTable]:
        """The table-form table of each of ``minutes`` (whole minutes >= 0), in one pass over them."""
        return authors_deformation_tables(self.chain, self.table, minutes, self.ramp, self.R_world_joint)

    def describe(self) -> str:
        return (f"the authors' CoppeliaSim law: D/{self.ramp.stabilisation_min:g} added each whole minute, "
                "one table per minute")


def authors_law(
    chain: Chain, table: DeformationTable, law: TimeLaw, R_world_joint: ArrayLike | None = None
) -> tuple[DeformationTable, TimeLaw | AuthorsIncrements]:
    """The authors' scene convention under ``law``: the ``(table, time law)`` a compensation takes.

    :class:`Static`: the table-form equivalent of the one-shot scene
    (:func:`authors_deformation_table`) with :class:`Static`.
    :class:`LinearRamp` ``(T)``: the authors' table itself (named in reports)
    with :class:`AuthorsIncrements`, a different table every minute. Checked
    here, before any solving (see :class:`AuthorsIncrements`).
    """
    R_world_joint = joint_object_orientations(chain, R_world_joint)
    if isinstance(law, Static):
        return authors_deformation_table(chain, table, None, law, R_world_joint), law
    if not isinstance(law, LinearRamp):
        raise ConfigurationError(f"time law: expected Static or LinearRamp, got {law!r}")
    return table, AuthorsIncrements(chain, table, law, R_world_joint)


@dataclass(frozen=True)
class ConventionDifference:
    """How far the authors' scene and the paper's model (seed 002, Tables 6-7) put the TCP apart.

    Attributes
    ----------
    robot, source, law
        What was compared (for the text).
    n_configurations
        Random configurations within the joint limits, plus the home configuration.
    position, angle
        Per configuration ``(k,)``: distance [m] and angle [rad] between the TCP
        of the authors' scene and the TCP of the paper's model.
    position_paper, position_authors
        Per configuration ``(k,)``: how far each deformed robot moves the TCP
        from the nominal robot [m] (the thermal error itself).
    authors_table
        The table-form equivalent of the authors' scene.
    """

    robot: str
    source: str
    law: str
    n_configurations: int
    position: FloatArray
    angle: FloatArray
    position_paper: FloatArray
    position_authors: FloatArray
    authors_table: DeformationTable

    def text(self) -> str:
        """A few lines in mm and degrees."""
        mm, deg = 1e3, np.degrees(1.0)
        return "\n".join([
            f"{self.robot}, {self.source} ({self.law}), {self.n_configurations} configurations within the limits:",
            f"  authors' scene vs paper's model (seed 002, Tables 6-7): TCP position differs by "
            f"{np.median(self.position) * mm:.4g} mm (median), {self.position.max() * mm:.4g} mm (max); "
            f"orientation by {np.median(self.angle) * deg:.4g} deg (median), {self.angle.max() * deg:.4g} deg (max)",
            f"  thermal error itself (deformed vs nominal TCP): paper's model {np.median(self.position_paper) * mm:.4g} mm "
            f"median, {self.position_paper.max() * mm:.4g} mm max; authors' scene "
            f"{np.median(self.position_authors) * mm:.4g} mm median, {self.position_authors.max() * mm:.4g} mm max",
        ])


def convention_difference(
    chain: Chain,
    table: DeformationTable,
    minute: float | None = None,
    law: TimeLaw | None = None,
    R_world_joint: ArrayLike | None = None,
    n_configurations: int = 2000,
    seed: int = 0,
) -> ConventionDifference:
    """Measure the authors' scene against the paper's model on random configurations.

    The paper's model is ``deformed_model(chain, table, law.fraction(minute))``
    (composition ``"table"``); the authors' is
    ``deformed_model(chain, authors_deformation_table(...))``.

    Parameters
    ----------
    n_configurations
        Random configurations, uniform within the joint limits (``numpy``
        generator seeded with ``seed``); the home configuration is added.
    """
    law = Static() if law is None else law
    if n_configurations < 0:
        raise ConfigurationError(f"n_configurations: expected >= 0, got {n_configurations}")
    authors = authors_deformation_table(chain, table, minute, law, R_world_joint)
    fraction = 1.0 if isinstance(law, Static) else float(law.fraction(0.0 if minute is None else minute))
    rng = np.random.default_rng(seed)
    q = rng.uniform(chain.lower, chain.upper, size=(n_configurations, chain.n_joints))
    q = np.vstack([chain.home[None], q])
    _, p_n = fk(nominal_model(chain), q)
    R_p, p_p = fk(deformed_model(chain, table, fraction), q)
    R_a, p_a = fk(deformed_model(chain, authors), q)
    law_text = "static" if isinstance(law, Static) else f"incremental per minute, minute {minute:g} of {law.describe()}"
    return ConventionDifference(
        robot=chain.name,
        source=table.source,
        law=law_text,
        n_configurations=int(q.shape[0]),
        position=np.linalg.norm(p_a - p_p, axis=-1),
        angle=rotation_angle(R_a @ np.swapaxes(R_p, -1, -2)),
        position_paper=np.linalg.norm(p_p - p_n, axis=-1),
        position_authors=np.linalg.norm(p_a - p_n, axis=-1),
        authors_table=authors,
    )
