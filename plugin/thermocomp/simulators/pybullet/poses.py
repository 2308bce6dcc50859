"""Which joint configurations a robot can hold in place: above the floor and clear of itself (seed 000, Step 2).

Step 2's static poses are drawn at random within the joint limits and kept
for the conditioning of their formulas (:mod:`thermocomp.dynamics.static_step`);
a pose the robot cannot take (its wrist below the plane it stands on, a link
through another) is no experiment. :func:`free_poses` poses the robot's
collision geometry in PyBullet (the robot file's own meshes, the built-in
envelopes, else primitives about the chain: :mod:`thermocomp.simulators.pybullet.geometry`)
and keeps a pose when

* no link but ``base`` and ``link1`` (which stand on it by design) comes
  within ``clearance`` of the **floor**, the base frame's ``z = 0`` plane
  (a box below it);
* no two non-adjacent links come within ``clearance`` of each other; pairs
  already within it at the home configuration touch by design near a joint
  (the primitive stand-ins about a short link always do) and are not checked
  (:mod:`thermocomp.simulators.pybullet.collision`).
"""

from __future__ import annotations

import contextlib
import tempfile
from pathlib import Path

import numpy as np

from thermocomp._typing import ArrayLike, PathLike
from thermocomp.geometry.rotations import quat_wxyz_from_matrix
from thermocomp.kinematics.model import nominal_model
from thermocomp.robot.chain import Chain

#: Half the side and the thickness [m] of the floor box: far beyond any arm's reach.
FLOOR_HALF_SIZE = 50.0
FLOOR_THICKNESS = 1.0


class PoseCheck:
    """A robot's collision geometry loaded in PyBullet: calling it with poses ``(m, n)`` [rad] gives ``(m,)``
    booleans, True where the pose keeps the robot above the floor and clear of itself (module docstring).

    A context manager (the PyBullet connection and the generated files live until it closes).

    Parameters
    ----------
    chain
        The robot; the floor is its base frame's ``z = 0`` plane.
    robot
        A built-in robot name or a ``.urdf`` / ``.xacro`` file, for its meshes (none: primitives about the chain).
    robot_options
        How a robot file is read (:class:`thermocomp.io.robot_files.RobotFileOptions`).
    clearance
        Distance [m] every checked pair keeps, >= 0.
    """

    def __init__(self, chain: Chain, *, robot: str | PathLike | None = None, robot_options=None,
                 clearance: float = 0.0) -> None:
        from thermocomp.io.robot_files import ROBOT_FILE_SUFFIXES
        from thermocomp.io.robots import BUILTIN_ROBOTS
        from thermocomp.simulators.pybullet.client import open_client
        from thermocomp.simulators.pybullet.collision import (
            close_by_design,
            collision_geometry,
            self_pairs,
        )
        from thermocomp.simulators.pybullet.geometry import robot_file_geometry, robot_geometry
        from thermocomp.simulators.pybullet.robot import load_model

        self.chain = chain
        self.clearance = clearance
        self._folder = tempfile.TemporaryDirectory(prefix="thermocomp-poses-")
        self._client = open_client()
        with contextlib.ExitStack() as undo:  # a failed setup closes what it opened
            undo.callback(self.close)
            folder = self._folder.name
            geometry = None
            if robot is not None and Path(str(robot)).suffix.lower() in ROBOT_FILE_SUFFIXES:
                geometry = robot_file_geometry(chain, robot, folder, robot_options)
            if geometry is None:
                geometry = robot_geometry(chain, folder, robot=str(robot) if str(robot) in BUILTIN_ROBOTS else None)
            geometry = collision_geometry(geometry)
            self.source = geometry.source
            self._body = load_model(self._client, nominal_model(chain), Path(folder) / "robot.urdf", geometry)
            pairs = self_pairs(chain, geometry)
            close = close_by_design(self._body, chain, pairs, clearance)
            self._pairs = [pair for pair in pairs if pair not in close]
            pb, cid = self._client.pb, self._client.id
            box = pb.createCollisionShape(pb.GEOM_BOX, halfExtents=[FLOOR_HALF_SIZE, FLOOR_HALF_SIZE,
                                                                    FLOOR_THICKNESS / 2], physicsClientId=cid)
            T = chain.T_world_base
            w, x, y, z = quat_wxyz_from_matrix(T[:3, :3])
            self._floor = pb.createMultiBody(baseMass=0, baseCollisionShapeIndex=box,
                                             basePosition=(T[:3, 3] - T[:3, 2] * FLOOR_THICKNESS / 2).tolist(),
                                             baseOrientation=[x, y, z, w], physicsClientId=cid)
            undo.pop_all()

    def __call__(self, poses: ArrayLike) -> np.ndarray:
        from thermocomp.simulators.pybullet.collision import check_configuration

        poses = np.atleast_2d(np.asarray(poses, dtype=float))
        free = np.ones(poses.shape[0], dtype=bool)
        for i, q in enumerate(poses):
            self._body.set_q(q)
            free[i] = not check_configuration(self._body, self._pairs, {"floor": self._floor}, "floor", self.clearance)
        return free

    def close(self) -> None:
        """Disconnect and remove the generated files."""
        self._client.close()
        self._folder.cleanup()

    def __enter__(self) -> PoseCheck:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = ["FLOOR_HALF_SIZE", "FLOOR_THICKNESS", "PoseCheck"]
