"""A (deformed) robot in PyBullet, loaded from the URDF that thermocomp writes.

PyBullet cannot move a joint frame once a body is loaded, so a new minute
or magnification regenerates the URDF (:func:`thermocomp.io.urdf.urdf_text`
of :func:`thermocomp.deformation.deformed_model`) and reloads the body
(:class:`DeformedRobot`). Joint positions are **model angles**
``theta = sign * q + offset`` (the URDF's convention); :meth:`RobotBody.set_q`
takes controller angles ``q`` and converts.

Precision (docs/conventions.md, "PyBullet precision"): ``getLinkState``
gives the link's URDF frame (items 4 and 5) only in single precision
(about 6e-8 m), but its inertial frame (items 0 and 1) in double.
:meth:`RobotBody.tcp_pose` reads items 0 and 1 and undoes the link's local
inertial frame (``getDynamicsInfo`` items 3 and 4: position and ``(x, y, z,
w)`` quaternion), so the TCP pose is double precision whatever inertial the
``tcp`` link carries. (PyBullet diagonalises a full inertia tensor, which
turns the local inertial frame; undoing it covers that too.)
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from thermocomp._typing import ArrayLike, FloatArray, PathLike
from thermocomp.deformation.apply import deformed_model
from thermocomp.deformation.table import DeformationTable
from thermocomp.errors import InputError
from thermocomp.geometry.rotations import invert_transform
from thermocomp.io.urdf import urdf_text
from thermocomp.kinematics.model import KinematicModel
from thermocomp.robot.chain import Chain
from thermocomp.simulators.magnification import check_magnification
from thermocomp.simulators.pybullet.client import Client, paused_rendering
from thermocomp.simulators.pybullet.conversions import (
    T_from_pybullet_pose,
    matrix_from_quat_xyzw,
)
from thermocomp.simulators.pybullet.geometry import NO_GEOMETRY, RobotGeometry

#: Colour of the deformed robot (r, g, b, a).
DEFORMED_RGBA = (0.93, 0.55, 0.15, 1.0)
#: Colour of the nominal robot drawn as a translucent ghost.
GHOST_RGBA = (0.55, 0.62, 0.75, 0.35)
@dataclass
class RobotBody:
    """A robot body in PyBullet loaded from a thermocomp URDF.

    Attributes
    ----------
    client
        The connection.
    body
        PyBullet body unique id.
    chain
        The robot (its ``sign`` and ``offset`` turn controller angles into
        the URDF's model angles).
    link_index
        PyBullet link index by URDF link name: ``world`` is -1 (the root),
        then ``base``, ``link1`` .. ``linkn``, ``tcp``.
    joint_index
        PyBullet joint index of each revolute joint, in chain order.
    T_tcp_inertial
        Pose of the ``tcp`` link's inertial frame in its link frame,
        ``(4, 4)`` [m] (``getDynamicsInfo`` items 3 and 4).
    """

    client: Client
    body: int
    chain: Chain
    link_index: dict[str, int]
    joint_index: tuple[int, ...]
    T_tcp_inertial: FloatArray = field(default_factory=lambda: np.eye(4))

    @property
    def tcp(self) -> int:
        """PyBullet link index of the ``tcp`` link."""
        return self.link_index["tcp"]

    def set_q(self, q: ArrayLike) -> None:
        """Put the joints at controller angles ``q`` [rad], shape ``(n,)`` (zero velocity)."""
        theta = self.chain.theta_from_q(np.asarray(q, dtype=float).reshape(self.chain.n_joints))
        pb, cid = self.client.pb, self.client.id
        for joint, angle in zip(self.joint_index, theta.tolist()):
            pb.resetJointState(self.body, joint, angle, physicsClientId=cid)

    def tcp_inertial_state(self) -> tuple[tuple[float, ...], tuple[float, ...]]:
        """Raw ``getLinkState`` items 0 and 1 of the ``tcp`` link: the world pose of its inertial frame.

        Double precision; position [m] and PyBullet quaternion ``(x, y, z, w)``.
        Collect these in a loop and convert them at once with
        :meth:`tcp_poses_from_inertial` (the batch fast path).
        """
        state = self.client.pb.getLinkState(self.body, self.tcp, computeForwardKinematics=True,
                                            physicsClientId=self.client.id)
        return state[0], state[1]

    def tcp_poses_from_inertial(self, position: ArrayLike, quat_xyzw: ArrayLike) -> tuple[FloatArray, FloatArray]:
        """TCP poses from inertial-frame poses (:meth:`tcp_inertial_state`), batch form.

        ``T_world_tcp = T_world_inertial @ inv(T_tcp_inertial)``.

        Parameters
        ----------
        position
            World positions of the inertial frame [m], ``(..., 3)``.
        quat_xyzw
            Its orientations, PyBullet quaternions ``(x, y, z, w)``, ``(..., 4)``.

        Returns
        -------
        R_world_tcp : ndarray, shape ``(..., 3, 3)``
        p_world_tcp : ndarray, shape ``(..., 3)`` [m]
        """
        R_world_inertial = matrix_from_quat_xyzw(quat_xyzw)
        T_inertial_tcp = invert_transform(self.T_tcp_inertial)
        R = R_world_inertial @ T_inertial_tcp[:3, :3]
        p = np.asarray(position, dtype=float) + R_world_inertial @ T_inertial_tcp[:3, 3]
        return R, p

    def tcp_pose(self) -> tuple[FloatArray, FloatArray]:
        """The TCP pose PyBullet computes, in double precision (see the module docstring).

        Returns
        -------
        R_world_tcp : ndarray, shape ``(3, 3)``
        p_world_tcp : ndarray, shape ``(3,)`` [m]
        """
        return self.tcp_poses_from_inertial(*self.tcp_inertial_state())

    def link_position_single(self, name: str) -> FloatArray:
        """World position [m] ``(3,)`` of a link frame, single precision (for drawing only)."""
        index = self.link_index[name]
        if index < 0:
            pos, _ = self.client.pb.getBasePositionAndOrientation(self.body, physicsClientId=self.client.id)
            return np.array(pos)
        state = self.client.pb.getLinkState(self.body, index, computeForwardKinematics=True,
                                            physicsClientId=self.client.id)
        return np.array(state[4])

    def set_rgba(self, rgba: Sequence[float]) -> None:
        """Colour every visual shape of the body (``changeVisualShape`` ``rgbaColor``)."""
        pb, cid = self.client.pb, self.client.id
        for index in self.link_index.values():
            pb.changeVisualShape(self.body, index, rgbaColor=list(rgba), physicsClientId=cid)

    def disable_collisions(self) -> None:
        """Take the body out of PyBullet's own contact handling (a ghost touches nothing)."""
        pb, cid = self.client.pb, self.client.id
        for index in self.link_index.values():
            pb.setCollisionFilterGroupMask(self.body, index, 0, 0, physicsClientId=cid)

    def remove(self) -> None:
        """Remove the body from the simulation."""
        self.client.pb.removeBody(self.body, physicsClientId=self.client.id)


def load_urdf_body(client: Client, urdf: PathLike, chain: Chain, *, cached_graphics: bool = False) -> RobotBody:
    """Load a URDF written by :func:`thermocomp.io.urdf.write_urdf` as a fixed-base body.

    ``URDF_USE_INERTIA_FROM_FILE`` keeps the inertials where the file puts
    them (PyBullet would otherwise recompute them from the collision shapes).

    Raises
    ------
    InputError
        The file does not hold ``chain``'s joints in order, or lacks a ``tcp`` link.
    """
    pb, cid = client.pb, client.id
    flags = pb.URDF_USE_INERTIA_FROM_FILE | (pb.URDF_ENABLE_CACHED_GRAPHICS_SHAPES if cached_graphics else 0)
    try:
        body = pb.loadURDF(str(urdf), useFixedBase=True, flags=flags, physicsClientId=cid)
    except pb.error as exc:
        raise InputError(f"PyBullet cannot load the URDF: {exc}", path=str(urdf)) from exc
    infos = [pb.getJointInfo(body, j, physicsClientId=cid) for j in range(pb.getNumJoints(body, physicsClientId=cid))]
    link_index = {"world": -1}
    for info in infos:
        link_index[info[12].decode()] = info[0]
    revolute = [info for info in infos if info[2] == pb.JOINT_REVOLUTE]
    names = tuple(info[1].decode() for info in revolute)
    if names != tuple(chain.joint_names) or "tcp" not in link_index:
        pb.removeBody(body, physicsClientId=cid)
        raise InputError(
            f"expected a thermocomp URDF of {chain.name} (revolute joints {', '.join(chain.joint_names)} and a "
            f"'tcp' link), got joints {', '.join(names) or 'none'}", path=str(urdf))
    dyn = pb.getDynamicsInfo(body, link_index["tcp"], physicsClientId=cid)
    return RobotBody(client=client, body=body, chain=chain, link_index=link_index,
                     joint_index=tuple(info[0] for info in revolute),
                     T_tcp_inertial=T_from_pybullet_pose(dyn[3], dyn[4]))


def unique_urdf_path(folder: PathLike, stem: str) -> Path:
    """A URDF path in ``folder`` that no earlier load can have used (PyBullet caches URDFs by path)."""
    return Path(folder) / f"{stem}_{uuid.uuid4().hex[:16]}.urdf"


def check_geometry(client: Client, geometry: RobotGeometry) -> None:
    """Check that PyBullet loads every mesh of a user's mesh map (``geometry.mesh_map_file``).

    PyBullet's URDF loader skips an STL it cannot read without a word (the
    link loses its shape) and fails on other files with "Cannot load URDF
    file", naming neither the mesh nor the map. Each mesh is therefore
    loaded once on its own first (``createCollisionShape``, the shape is
    removed again). Geometry not from a mesh map is generated or shipped
    and is not checked.

    Raises
    ------
    InputError
        Naming the mesh map, the link and the mesh file PyBullet cannot load.
    """
    if geometry.mesh_map_file is None:
        return
    pb, cid = client.pb, client.id
    for link, content in geometry.links.items():
        for kind, mesh in (("collision", content.collision_mesh), ("visual", content.visual_mesh)):
            if mesh is None:
                continue
            try:
                # Loaded as a concave trimesh: only parsed, no hull built (a hull of an
                # empty mesh crashes PyBullet 3.2 instead of raising).
                shape = pb.createCollisionShape(pb.GEOM_MESH, fileName=str(mesh), meshScale=[content.mesh_scale] * 3,
                                                flags=pb.GEOM_FORCE_CONCAVE_TRIMESH,
                                                physicsClientId=cid)
            except pb.error as exc:
                raise InputError(f"[links.{link}] {kind}: PyBullet cannot load the mesh {mesh} ({exc}); expected a "
                                 "readable, non-empty STL or OBJ mesh", path=geometry.mesh_map_file) from exc
            pb.removeCollisionShape(shape, physicsClientId=cid)


def load_model(client: Client, model: KinematicModel, path: PathLike, geometry: RobotGeometry = NO_GEOMETRY,
               *, robot_name: str | None = None, cached_graphics: bool = False) -> RobotBody:
    """Write ``model`` (one robot, batch shape ``()``) as URDF to ``path`` and load it.

    PyBullet caches a loaded URDF by its file name for the life of the
    connection: a second load of the same name gets the first contents even
    when the file changed. Give every different model its own ``path``
    (:func:`unique_urdf_path`).

    Raises
    ------
    InputError
        PyBullet cannot load the URDF; when its meshes come from a mesh map
        the error names the map and the mesh (:func:`check_geometry`), not
        the generated URDF.
    """
    Path(path).write_text(urdf_text(model, robot_name, links=geometry.links), encoding="utf-8")
    try:
        return load_urdf_body(client, path, model.chain, cached_graphics=cached_graphics)
    except InputError:
        check_geometry(client, geometry)  # a mesh map's unloadable mesh is the cause: say which
        raise


class DeformedRobot:
    """The deformed robot, reloaded from a regenerated URDF when its deformation changes.

    Parameters
    ----------
    client
        The connection.
    chain, table
        Nominal robot and full deformation table.
    workdir
        Folder for the regenerated URDFs. Each reload writes a file of a new,
        unique name (PyBullet caches a URDF by its path for the life of the
        connection and would load the first contents again) and deletes the
        previous one.
    geometry
        Link meshes (:data:`~thermocomp.simulators.pybullet.geometry.NO_GEOMETRY`
        for kinematics only: the fastest reload).
    composition
        How a table row composes with the segment (:func:`deformed_model`).
    rgba
        Colour of the body, or ``None`` to keep the file's.

    Notes
    -----
    :meth:`show` applies ``fraction * magnification`` of the table; a
    magnification above 1 is for display only (seed 002, Figure 12): every
    measurement uses magnification 1. In the GUI, rendering is paused
    during a reload, which is what makes a reload take milliseconds rather
    than a redrawn frame per loading step.
    """

    def __init__(self, client: Client, chain: Chain, table: DeformationTable, workdir: PathLike,
                 geometry: RobotGeometry = NO_GEOMETRY, *, composition: str = "table",
                 rgba: Sequence[float] | None = DEFORMED_RGBA, name: str = "deformed") -> None:
        table.check_matches(chain.n_joints, chain.name)
        self.client = client
        self.chain = chain
        self.table = table
        self.geometry = geometry
        self.composition = composition
        self.rgba = None if rgba is None else tuple(rgba)
        self.workdir = Path(workdir)
        self.name = f"{chain.name}_{name}"
        self.path: Path | None = None  # URDF of the loaded body
        self.body: RobotBody | None = None
        self.scale: float | None = None  # fraction * magnification of the loaded body
        self.q: FloatArray = chain.home.copy()
        check_geometry(client, geometry)
        #: Wall-clock seconds of each reload (URDF text, write, remove, load), for reports.
        self.reload_seconds: list[float] = []

    def model(self, fraction: float, magnification: float = 1.0) -> KinematicModel:
        """The deformed model at ``fraction`` of the table times ``magnification``."""
        return deformed_model(self.chain, self.table, fraction * magnification, self.composition)

    def show(self, fraction: float, magnification: float = 1.0) -> RobotBody:
        """Load the robot deformed by ``fraction * magnification`` of the table, unless it already is.

        The joints keep the last angles given to :meth:`set_q`.

        Parameters
        ----------
        fraction
            Share of the full table [-] (a time law's value at a minute).
        magnification
            Display factor in :data:`MAGNIFICATION_RANGE`.
        """
        check_magnification(magnification)
        scale = float(fraction) * float(magnification)
        if self.body is not None and scale == self.scale:
            return self.body
        t0 = time.perf_counter()
        with paused_rendering(self.client):
            if self.body is not None:
                self.body.remove()
                self.body = None
            if self.path is not None:
                self.path.unlink(missing_ok=True)
            self.path = unique_urdf_path(self.workdir, self.name)
            body = load_model(self.client, self.model(fraction, magnification), self.path, self.geometry,
                              cached_graphics=self.client.gui)
            if self.rgba is not None and self.geometry.links:
                body.set_rgba(self.rgba)
            body.set_q(self.q)
        self.body, self.scale = body, scale
        self.reload_seconds.append(time.perf_counter() - t0)
        return body

    def set_q(self, q: ArrayLike) -> None:
        """Controller angles [rad] ``(n,)`` for the loaded body and every later reload."""
        self.q = np.array(q, dtype=float).reshape(self.chain.n_joints)
        if self.body is not None:
            self.body.set_q(self.q)

    def remove(self) -> None:
        """Remove the body, if loaded."""
        if self.body is not None:
            self.body.remove()
            self.body = None
            self.scale = None


__all__ = [
    "DEFORMED_RGBA",
    "GHOST_RGBA",
    "DeformedRobot",
    "RobotBody",
    "check_geometry",
    "load_model",
    "load_urdf_body",
    "unique_urdf_path",
]
