"""A robot in a CoppeliaSim scene: read it as a :class:`Chain`, deform it for display, restore it.

CoppeliaSim's conventions (docs/coppeliasim.md):

- a pose from ``sim.getObjectPose`` is ``[x, y, z, qx, qy, qz, qw]`` (quaternion
  **x, y, z, w**); positions in metres, angles in radians. Every pose is read
  with ``sim.getObjectPose`` (the matrix and Euler functions are legacy in
  4.10); the calls that changed between versions go through ``session.api``
  (:mod:`thermocomp.simulators.coppeliasim.api`);
- Euler angles ``(alpha, beta, gamma)``: ``R = Rx(alpha) Ry(beta) Rz(gamma)``;
- a joint object's own pose is its *base* frame, its z axis the joint axis;
  its children hang on its *moving* frame (base frame turned by the joint
  position about z); a pose relative to a joint is relative to its moving frame.

The chain is read without moving the robot: the pose of joint ``i`` relative
to the moving frame of joint ``i - 1`` (``sim.getObjectPose(J_i, J_{i-1})``)
does not depend on any joint position, so the zero pose is composed from those.
"""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from thermocomp._typing import ArrayLike, FloatArray
from thermocomp.geometry.rotations import rot_axis, rot_z, transform
from thermocomp.kinematics.model import KinematicModel
from thermocomp.robot.chain import Chain
from thermocomp.simulators.coppeliasim.api import pose_xyzw_from_T
from thermocomp.simulators.coppeliasim.connection import SceneError, Session

#: Limits given to a cyclic (unlimited) CoppeliaSim joint [rad]; the same as
#: thermocomp gives a URDF "continuous" joint (docs/conventions.md).
CYCLIC_LIMIT = 4.0 * np.pi

#: A model's tool frame counts as the nominal one (no tip object needed to show
#: it) when it differs by less than this [m] / [rad]: round-off only.
TOOL_UNCHANGED_TOL = 1e-12


@dataclass(frozen=True, eq=False)
class SceneRobot:
    """A serial arm of revolute joints found in a CoppeliaSim scene.

    Attributes
    ----------
    chain
        The robot in table form (seed 002, Table 7), SI, world frame; ``sign``
        +1 and ``offset`` 0 on every joint: controller angles are CoppeliaSim
        joint positions. ``T_world_base`` is the base object's pose.
    base, joints, tip
        CoppeliaSim handles; ``tip`` is ``None`` when the TCP is the last
        joint's moving frame.
    base_path
        The base's object path, for messages.
    R_world_joint
        World orientation of every joint object at the zero pose, ``(n, 3, 3)``
        (the input of the authors' scene convention).
    C_joint
        Orientation of each joint object in its base-oriented table-form joint
        frame, ``(n, 3, 3)``: constant, deformed or not.
    """

    chain: Chain
    base: int
    joints: tuple[int, ...]
    tip: int | None
    base_path: str
    R_world_joint: FloatArray
    C_joint: FloatArray

    @property
    def handles(self) -> tuple[int, ...]:
        """Every object whose pose the plugin changes: the joints, then the tip."""
        return self.joints + (() if self.tip is None else (self.tip,))


def get_object(session: Session, path: str, what: str = "object") -> int:
    """Handle of the object at ``path`` (``sim.getObject(path, {noError = true})``)."""
    if not isinstance(path, str) or not path.startswith(("/", ".", ":")):
        raise SceneError(f"{what}: expected a CoppeliaSim object path such as /IRB140, got {path!r}")
    handle = session.call("getObject", path, {"noError": True})
    if handle is None or handle < 0:
        raise SceneError(f"{what}: the scene in {session.describe()} has no object at {path!r}")
    return int(handle)


#: Most joints under a robot's base in a scene: an arm's 6 or 7, its external axes, its tool's fingers make tens.
#: Reading asks the server for each joint's ancestors, pose, limits and position (a round trip each): a chain of 300
#: joints took 45 s, one of 3,000 hours, without a word.
MAX_SCENE_JOINTS = 100


def _joint_ancestors(session: Session, handle: int, joint_set: set[int], stop: int,
                     parents: dict[int, int]) -> tuple[int | None, bool]:
    """The nearest ancestor of ``handle`` that is a joint (of the whole scene), and whether ``stop`` is an ancestor.
    ``parents`` (object handle: its parent's) holds the parents asked for so far: each is asked once per reading, so
    the walks of every joint up to the base cost the tree's depth in round trips, not its square."""

    def parent(h: int) -> int:
        if h not in parents:
            parents[h] = session.api.parent(h)
        return parents[h]

    nearest: int | None = None
    current = parent(handle)
    while current != -1:
        if current == stop:
            return nearest, True
        if nearest is None and current in joint_set:
            nearest = current
        current = parent(current)
    return nearest, False


def read_robot(
    session: Session,
    base_path: str,
    *,
    tip_path: str | None = None,
    joint_paths: Sequence[str] | None = None,
    home: ArrayLike | None = None,
    name: str | None = None,
) -> SceneRobot:
    """Read a serial arm of revolute joints from the scene.

    Parameters
    ----------
    session
        A connection (:func:`connect`).
    base_path
        Object path of the robot's base, e.g. ``"/IRB140"``; its pose is ``T_world_base``.
    tip_path
        Object path of the TCP (a dummy under the last joint); default: the
        last joint's moving frame.
    joint_paths
        The joints in chain order; default: every joint in the base's tree,
        which must then form one serial chain.
    home
        Home configuration [rad], ``(n,)``; default: the joint positions the
        scene holds now (if within the limits), else zeros.
    name
        Robot name; default the base's alias.

    Raises
    ------
    SceneError
        No object at a path, no joints, a joint that is not revolute, joints
        on several branches, a tip that does not hang under the last joint.
    """
    world = session.const("handle_world")
    base = get_object(session, base_path, "robot base")
    check_not_left_deformed(session, base, base_path)  # a deformed scene is not the nominal robot
    # The joints below the base: the only ones that can stand between a joint and the base
    # (the walk up from a joint stops at the base).
    tree_joints = session.api.joints_in_tree(base)
    if len(tree_joints) > MAX_SCENE_JOINTS:
        raise SceneError(f"{base_path!r} (--robot-path): expected at most {MAX_SCENE_JOINTS} joints under a robot's "
                         f"base (an arm's, its external axes' and its tool's), got {len(tree_joints):,}")
    joint_set = set(tree_joints)
    parents: dict[int, int] = {}
    if joint_paths is not None:
        joints = [get_object(session, p, f"joint {k + 1}") for k, p in enumerate(joint_paths)]
    else:
        joints = tree_joints
    if not joints:
        raise SceneError(f"no joints under {base_path!r}: expected the base of a robot arm")
    nearest: dict[int, int | None] = {}
    for j in joints:
        parent_joint, under_base = _joint_ancestors(session, j, joint_set, base, parents)
        if not under_base:
            raise SceneError(f"joint {session.call('getObjectAlias', j, 2)!r} is not under the base {base_path!r}")
        nearest[j] = parent_joint
    # Chain order: each joint's nearest joint ancestor is the previous joint.
    firsts = [j for j in joints if nearest[j] is None]
    children: dict[int, list[int]] = {}
    for j in joints:
        if nearest[j] is not None:
            children.setdefault(nearest[j], []).append(j)
    alias = {j: str(session.call("getObjectAlias", j, -1)) for j in joints}
    if len(firsts) != 1 or any(len(c) > 1 for c in children.values()) or any(
        nearest[j] is not None and nearest[j] not in alias for j in joints
    ):
        branches = {alias[j]: (None if nearest[j] is None else session.call("getObjectAlias", nearest[j], -1))
                    for j in joints}
        raise SceneError(
            f"the joints under {base_path!r} do not form one serial chain (joint: the joint it hangs under: "
            f"{branches}); give the arm's joints in order (--joints), e.g. to leave out a gripper"
        )
    order = [firsts[0]]
    while order[-1] in children:
        order.append(children[order[-1]][0])
    if joint_paths is not None and order != joints:
        raise SceneError(f"the joints {list(joint_paths)} are not in chain order (base to tip)")
    for j in order:
        if not session.api.is_revolute(j):
            raise SceneError(f"joint {alias[j]!r} of {base_path!r} is not revolute: thermocomp models revolute arms")
    n = len(order)
    # Zero pose: compose the joint-to-joint poses, each relative to the previous joint's moving frame.
    T_world_base = session.api.matrix(base, world)
    T_world_joint = np.empty((n, 4, 4))
    T_world_joint[0] = session.api.matrix(order[0], world)
    for i in range(1, n):
        X = session.api.matrix(order[i], order[i - 1])
        T_world_joint[i] = T_world_joint[i - 1] @ X
    tip = None
    T_last_moving_tip = np.eye(4)
    if tip_path is not None:
        tip = get_object(session, tip_path, "tip")
        tip_parent, under = _joint_ancestors(session, tip, joint_set, base, parents)
        if not under or tip_parent != order[-1]:
            raise SceneError(f"the tip {tip_path!r} must hang under the last joint {alias[order[-1]]!r} of {base_path!r}")
        T_last_moving_tip = session.api.matrix(tip, order[-1])
    R_base = T_world_base[:3, :3]
    origins = T_world_joint[:, :3, 3]
    previous = np.vstack([T_world_base[None, :3, 3], origins[:-1]])
    p = (origins - previous) @ R_base  # R_base.T @ (o_i - o_{i-1}), row-wise
    C = np.swapaxes(R_base, -1, -2) @ T_world_joint[:, :3, :3]
    axis = C[:, :, 2]
    T_world_tip = T_world_joint[-1] @ T_last_moving_tip
    T_last_tcp = transform(R_base.T @ T_world_tip[:3, :3], R_base.T @ (T_world_tip[:3, 3] - origins[-1]))
    lower, upper = np.empty(n), np.empty(n)
    for i, j in enumerate(order):
        cyclic, interval = session.call("getJointInterval", j)
        lower[i], upper[i] = (-CYCLIC_LIMIT, CYCLIC_LIMIT) if cyclic else (interval[0], interval[0] + interval[1])
    current = np.array([float(session.call("getJointPosition", j)) for j in order])
    if home is None:
        home = current if np.all((current >= lower) & (current <= upper)) else np.zeros(n)
    names = [alias[j] for j in order]
    if len(set(names)) != n:
        names = [f"{a}{i + 1}" for i, a in enumerate(names)]
    base_alias = str(session.call("getObjectAlias", base, -1))
    chain = Chain(
        name=name or base_alias,
        joint_names=tuple(names),
        p=p,
        axis=axis,
        sign=np.ones(n),
        offset=np.zeros(n),
        lower=lower,
        upper=upper,
        velocity=np.full(n, np.inf),
        T_world_base=T_world_base,
        T_last_tcp=T_last_tcp,
        home=home,
    )
    return SceneRobot(chain=chain, base=base, joints=tuple(order), tip=tip, base_path=base_path,
                      R_world_joint=T_world_joint[:, :3, :3].copy(), C_joint=C)


# --- joints and the tip -------------------------------------------------------------

def joint_positions(session: Session, robot: SceneRobot) -> FloatArray:
    """The scene's joint positions [rad], ``(n,)`` (= controller angles of ``robot.chain``)."""
    return np.array([float(session.call("getJointPosition", j)) for j in robot.joints])


def set_joint_positions(session: Session, robot: SceneRobot, q: ArrayLike) -> None:
    """Set the scene's joints to controller angles ``q`` [rad], ``(n,)``."""
    theta = robot.chain.theta_from_q(np.asarray(q, dtype=float))
    if theta.shape != (robot.chain.n_joints,):
        raise SceneError(f"expected {robot.chain.n_joints} joint angles, got shape {theta.shape}")
    for j, value in zip(robot.joints, theta):
        session.call("setJointPosition", j, float(value))


def read_tip(session: Session, robot: SceneRobot) -> FloatArray:
    """``T_world_tcp`` ``(4, 4)`` as CoppeliaSim computes it.

    With a tip object: its world matrix. Without: the last joint's world matrix
    (its base frame) turned by its joint position about z (its moving frame).
    """
    world = session.const("handle_world")
    if robot.tip is not None:
        return session.api.matrix(robot.tip, world)
    last = robot.joints[-1]
    T = session.api.matrix(last, world)
    T[:3, :3] = T[:3, :3] @ rot_z(float(session.call("getJointPosition", last)))
    return T


# --- saving and restoring the nominal scene ------------------------------------------------

@dataclass(frozen=True)
class SceneState:
    """Parent-relative poses of the joints and the tip, and the joint positions, as read."""

    poses: tuple[tuple[float, ...], ...]
    positions: tuple[float, ...]


def save_state(session: Session, robot: SceneRobot) -> SceneState:
    """Read what :func:`restore_state` puts back (``sim.getObjectPose(h, sim.handle_parent)``)."""
    parent = session.const("handle_parent")
    poses = tuple(tuple(float(v) for v in session.call("getObjectPose", h, parent)) for h in robot.handles)
    return SceneState(poses=poses, positions=tuple(joint_positions(session, robot)))


def restore_state(session: Session, robot: SceneRobot, state: SceneState) -> None:
    """Put the saved parent-relative poses and joint positions back."""
    _put_back(session, robot.handles, state.poses, state.positions)


def _put_back(session: Session, handles: Sequence[int], poses: Sequence[Sequence[float]],
              positions: Sequence[float | None]) -> None:
    """Set each object's parent-relative pose, then the joint positions (``None``: not a joint).

    ``positions`` may be shorter than ``handles`` (the joints come first).
    Serves both the in-process restore and ``coppeliasim restore``.
    """
    parent = session.const("handle_parent")
    for h, pose in zip(handles, poses):
        session.call("setObjectPose", h, [float(v) for v in pose], parent)
    for h, q in zip(handles, positions):
        if q is not None:
            session.call("setJointPosition", h, float(q))


# --- the nominal poses kept in the scene, for a restore after a crash ------------------------

#: Tag of the custom data block on the robot's base (``sim.writeCustomDataBlock`` before 4.10,
#: the buffer property ``customData.thermocomp.nominal`` from 4.10: ``session.api.write_data``)
#: that holds the nominal parent-relative poses and joint positions while
#: thermocomp has the robot deformed. Present only while deformed: a run that
#: ends cleanly removes it; one that was killed leaves it for ``restore``.
NOMINAL_TAG = "thermocomp.nominal"
NOMINAL_FORMAT = "thermocomp.nominal/1"

#: Two parent-relative poses count as the same when no number (metres,
#: quaternion components) differs by more than this: CoppeliaSim's own
#: round-off when a pose is set and read back, far below any deformation shown.
NOMINAL_MATCH_TOL = 1e-9


def _object_path(session: Session, handle: int) -> str:
    return str(session.call("getObjectAlias", handle, 2))


def read_saved_nominal(session: Session, base: int) -> dict | None:
    """The nominal state a thermocomp run saved on the base (custom data :data:`NOMINAL_TAG`), or ``None``.

    Returns
    -------
    dict or None
        ``{"format", "objects": [{"path", "pose" (7 numbers, parent-relative,
        quaternion x, y, z, w), "position" (joint position [rad] or None)}]}``.

    Raises
    ------
    SceneError
        The block is not thermocomp's, or an entry lacks its path, its 7 pose
        numbers or a numeric position (a corrupt block restores nothing).
    """
    data = session.api.read_data(base, NOMINAL_TAG)  # None also for the '' the real server sends
    if data is None:
        return None
    try:
        saved = json.loads(data.decode("utf-8"))
    except ValueError as exc:
        raise SceneError(f"the {NOMINAL_TAG!r} data on the robot base is not thermocomp's ({exc})") from exc
    if not isinstance(saved, dict) or saved.get("format") != NOMINAL_FORMAT or not isinstance(saved.get("objects"), list):
        raise SceneError(f"the {NOMINAL_TAG!r} data on the robot base is not in the format {NOMINAL_FORMAT!r}")
    for k, entry in enumerate(saved["objects"]):
        _check_saved_entry(entry, k)
    return saved


def _finite_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _check_saved_entry(entry, k: int) -> None:
    """Raise :class:`SceneError` unless ``entry`` is a saved object as :func:`_write_saved_nominal` writes it."""
    what = f"the {NOMINAL_TAG!r} data on the robot base is corrupt: object {k + 1}"
    if not isinstance(entry, dict):
        raise SceneError(f"{what}: expected a table with path, pose and position, got {entry!r}")
    path = entry.get("path")
    if not isinstance(path, str) or not path:
        raise SceneError(f"{what}: expected an object path 'path' such as /IRB140/joint, got {path!r}")
    pose = entry.get("pose")
    if not (isinstance(pose, list) and len(pose) == 7 and all(_finite_number(v) for v in pose)):
        raise SceneError(f"{what} ({path}): expected a 'pose' of 7 finite numbers (x, y, z, qx, qy, qz, qw), "
                         f"got {pose!r}")
    position = entry.get("position")
    if position is not None and not _finite_number(position):
        raise SceneError(f"{what} ({path}): expected a joint 'position' [rad] (a finite number) or null, "
                         f"got {position!r}")


def _write_saved_nominal(session: Session, robot: SceneRobot, state: SceneState) -> None:
    positions = list(state.positions) + [None] * (len(robot.handles) - len(robot.joints))
    objects = [{"path": _object_path(session, h), "handle": h, "pose": list(pose), "position": q}
               for h, pose, q in zip(robot.handles, state.poses, positions)]
    text = json.dumps({"format": NOMINAL_FORMAT, "objects": objects})  # floats round-trip exactly
    session.api.write_data(robot.base, NOMINAL_TAG, text.encode("utf-8"))


def forget_saved_nominal(session: Session, base: int) -> None:
    """Remove the saved nominal state from the base."""
    session.api.remove_data(base, NOMINAL_TAG)


def _saved_handles(session: Session, saved: dict) -> list[int]:
    """The saved objects' handles: the saved handle while it still has the saved path (same
    CoppeliaSim session; a path alone can be ambiguous), else the object at the path."""
    handles = []
    for entry in saved["objects"]:
        kept = entry.get("handle")
        if isinstance(kept, int) and session.call("isHandle", kept) and _object_path(session, kept) == entry["path"]:
            handles.append(kept)
            continue
        handle = session.call("getObject", entry["path"], {"noError": True})
        if handle is None or handle < 0:
            raise SceneError(f"the saved nominal pose names {entry['path']!r}, which the scene no longer has")
        handles.append(int(handle))
    return handles


def saved_nominal_matches(session: Session, saved: dict) -> bool:
    """Whether the scene holds the saved nominal poses now (to :data:`NOMINAL_MATCH_TOL`)."""
    parent = session.const("handle_parent")
    for h, entry in zip(_saved_handles(session, saved), saved["objects"]):
        now = np.asarray(session.call("getObjectPose", h, parent), dtype=float)
        pose = np.asarray(entry["pose"], dtype=float)
        # q and -q are the same rotation
        if min(np.max(np.abs(now - pose)), np.max(np.abs(now - np.r_[pose[:3], -pose[3:]]))) > NOMINAL_MATCH_TOL:
            return False
    return True


def check_not_left_deformed(session: Session, base: int, base_path: str) -> None:
    """Raise :class:`SceneError` if an earlier run left the robot deformed (its saved nominal differs)."""
    saved = read_saved_nominal(session, base)
    if saved is not None and not saved_nominal_matches(session, saved):
        raise SceneError(
            f"the robot at {base_path!r} is still deformed by an earlier thermocomp run that did not end cleanly "
            f"(its nominal poses are saved in the scene); put it back with 'thermocomp coppeliasim restore "
            f"--robot-path {base_path}' (or accept the scene as it is with 'restore --forget')"
        )


def restore_saved_nominal(session: Session, base_path: str, *, forget_only: bool = False) -> int | None:
    """Put back the nominal state a thermocomp run saved on the robot's base, and remove it.

    Parameters
    ----------
    base_path
        Object path of the robot's base.
    forget_only
        Remove the saved state without restoring (accept the scene as nominal).

    Returns
    -------
    int or None
        How many objects were restored (0 with ``forget_only``); ``None`` when
        nothing was saved (the last run ended cleanly).
    """
    base = get_object(session, base_path, "robot base")
    saved = read_saved_nominal(session, base)
    if saved is None:
        return None
    if not forget_only:
        entries = saved["objects"]
        _put_back(session, _saved_handles(session, saved), [e["pose"] for e in entries],
                  [e.get("position") for e in entries])
    forget_saved_nominal(session, base)
    return 0 if forget_only else len(saved["objects"])


@contextlib.contextmanager
def preserved(session: Session, robot: SceneRobot) -> Iterator[SceneState]:
    """Save the robot's scene state, and restore it on leaving, also on errors and Ctrl-C.

    The state is also written into the scene (custom data :data:`NOMINAL_TAG`
    on the base) and removed after restoring, so that ``thermocomp
    coppeliasim restore`` can put the robot back if this process is killed
    before it restores. A scene that still holds another run's saved state
    that it no longer matches is refused (:func:`check_not_left_deformed`).

    One block per robot at a time: it does not nest (the inner block would
    take the outer one's deformed scene for a killed run's). Inside the
    block, call :func:`show_model` as often as needed.
    """
    check_not_left_deformed(session, robot.base, robot.base_path)
    state = save_state(session, robot)
    _write_saved_nominal(session, robot, state)
    try:
        yield state
    finally:
        restore_state(session, robot, state)
        forget_saved_nominal(session, robot.base)


# --- showing a deformed model ---------------------------------------------------------------

def model_joint_frames(model: KinematicModel, q: ArrayLike) -> tuple[FloatArray, FloatArray]:
    """World poses of the table-form joint frames (before each joint's rotation) and of the TCP.

    Parameters
    ----------
    model
        A single (unbatched) model.
    q
        Controller angles [rad], ``(n,)``.

    Returns
    -------
    T_world_frame : ndarray, shape ``(n, 4, 4)``
        Joint ``i``'s base-oriented frame of the model (seed 002, Eq. 22: after
        ``F_i``, before ``Rot(axis_i, theta_i)``).
    T_world_tcp : ndarray, shape ``(4, 4)``
    """
    chain = model.chain
    theta = chain.theta_from_q(np.asarray(q, dtype=float))
    n = chain.n_joints
    T = transform(model.R_base, model.p_base)
    frames = np.empty((n, 4, 4))
    for i in range(n):
        T = T @ transform(model.R_joint[i], model.p_joint[i])
        frames[i] = T
        T = T @ transform(rot_axis(chain.axis[i], theta[i]))
    return frames, T @ transform(model.R_tool, model.p_tool)


def show_model(session: Session, robot: SceneRobot, model: KinematicModel) -> None:
    """Move the joint objects (and the tip) to where ``model`` puts them at the scene's joint positions.

    Each joint object's world pose is set in chain order (its descendants follow
    it); afterwards the relative poses between joints are the model's, so
    moving the joints moves the deformed robot. Pair with :func:`preserved`
    (or use :func:`deformation_shown`): this changes the scene.
    """
    if model.batch_shape != ():
        raise SceneError(f"expected one model, got a batch of shape {model.batch_shape}")
    world = session.const("handle_world")
    q = joint_positions(session, robot)
    frames, T_world_tcp = model_joint_frames(model, q)
    if robot.tip is None:
        tool = transform(model.R_tool, model.p_tool)
        if np.max(np.abs(tool - robot.chain.T_last_tcp)) > TOOL_UNCHANGED_TOL:
            raise SceneError(
                f"the deformation moves the tool frame, but {robot.base_path!r} was read without a tip object; "
                "read it with a tip (--tip PATH) to show the tool row"
            )
    for i, j in enumerate(robot.joints):
        session.call("setObjectPose", j, pose_xyzw_from_T(frames[i] @ transform(robot.C_joint[i])), world)
    if robot.tip is not None:
        session.call("setObjectPose", robot.tip, pose_xyzw_from_T(T_world_tcp), world)


@contextlib.contextmanager
def deformation_shown(session: Session, robot: SceneRobot, model: KinematicModel) -> Iterator[None]:
    """Show ``model`` in the scene for the ``with`` block; the nominal scene is restored afterwards.

    Restoring happens also when the block raises or is interrupted (Ctrl-C):
    the parent-relative poses and joint positions read before are set back.
    """
    with preserved(session, robot):
        show_model(session, robot, model)
        yield


# --- the authors' script, literally ---------------------------------------------------------

def apply_authors_script(session: Session, robot: SceneRobot, rows: ArrayLike, passes: int = 1) -> None:
    """Run the paper authors' deformation script on the scene, as they did.

    With the joints at zero, for each pass and joints 1..n in order: add
    ``rows[i, :3]`` [m] to the joint object's world position
    (``sim.getObjectPosition`` / ``sim.setObjectPosition``) and ``rows[i, 3:]``
    [rad] to its world Euler angles (the script's ``sim.getObjectOrientation`` /
    ``sim.setObjectOrientation``, here computed from ``sim.getObjectPose`` the
    way CoppeliaSim reads them, gimbal-lock branch included, and set with
    ``sim.setObjectPose``: the same on every version). Children follow their parents.
    Changes the scene: wrap in :func:`preserved`. The table-form equivalent is
    :func:`thermocomp.deformation.coppeliasim_convention.authors_deformation_table`.

    Parameters
    ----------
    rows
        ``(n, 6)``: ``(Dx, Dy, Dz)`` [m], ``(Dox, Doy, Doz)`` [rad] per joint.
    passes
        How many times (the incremental law: one pass of ``D / T`` per minute).
    """
    rows = np.asarray(rows, dtype=float)
    if rows.shape != (robot.chain.n_joints, 6):
        raise SceneError(f"expected {robot.chain.n_joints} rows of 6 values, got shape {rows.shape}")
    world = session.const("handle_world")
    set_joint_positions(session, robot, np.zeros(robot.chain.n_joints))
    for _ in range(passes):
        for j, row in zip(robot.joints, rows):
            position = np.asarray(session.call("getObjectPosition", j, world), dtype=float)
            session.call("setObjectPosition", j, [float(v) for v in position + row[:3]], world)
            session.api.set_euler(j, session.api.euler(j, world) + row[3:], world)
