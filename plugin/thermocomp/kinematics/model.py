"""The kinematic model FK and IK run on: fixed frames between joint rotations.

Seed 002, Eq. 22: ``T_end = (TC_0 R_0)(TC_1 R_1) ... (TC_n R_n)``. Here the
base, each joint and the tool contribute a fixed transform (the nominal
translation, the thermal translation and angular deviations, see
:mod:`thermocomp.deformation.apply`), and each joint adds its own rotation::

    T_world_tcp = F_base @ (F_1 @ Rot(a_1, theta_1)) @ ... @ (F_n @ Rot(a_n, theta_n)) @ F_tool

Every array may carry a leading batch shape ``(...)``, so one model holds the
robot at many minutes at once (e.g. ``(201,)`` for the transient case).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from thermocomp._typing import FloatArray
from thermocomp.robot.chain import Chain


@dataclass(frozen=True, eq=False)
class KinematicModel:
    """Fixed frames of a (possibly deformed) chain, batch-aware.

    Parameters
    ----------
    chain
        The nominal chain: axes, signs, offsets and limits come from it.
    R_base, p_base
        ``F_base``: pose of the first joint's parent frame in the world,
        shapes ``(..., 3, 3)`` and ``(..., 3)`` [m].
    R_joint, p_joint
        ``F_i``: fixed transform before joint ``i``'s rotation,
        shapes ``(..., n, 3, 3)`` and ``(..., n, 3)`` [m].
    R_tool, p_tool
        ``F_tool``: pose of the TCP in the last joint frame,
        shapes ``(..., 3, 3)`` and ``(..., 3)`` [m].
    """

    chain: Chain
    R_base: FloatArray
    p_base: FloatArray
    R_joint: FloatArray
    p_joint: FloatArray
    R_tool: FloatArray
    p_tool: FloatArray

    @property
    def nominal_rotations(self) -> bool:
        """True when every ``R_joint`` is the identity (no angular deviations): FK skips them."""
        cached = self.__dict__.get("_nominal_rotations")
        if cached is None:
            last = self.R_joint.reshape((-1,) + self.R_joint.shape[-3:])[-1:]  # the last robot of a batch first:
            cached = bool(np.all(last == np.eye(3)) and np.all(self.R_joint == np.eye(3)))  # a deformed one ends it
            object.__setattr__(self, "_nominal_rotations", cached)
        return cached

    @property
    def batch_shape(self) -> tuple[int, ...]:
        """Leading batch shape of the frames (``()`` for a single robot)."""
        return self.p_joint.shape[:-2]

    def take(self, index: np.ndarray) -> KinematicModel:
        """The models selected by ``index`` along a 1-D batch axis."""
        taken = KinematicModel(
            self.chain,
            self.R_base[index], self.p_base[index],
            self.R_joint[index], self.p_joint[index],
            self.R_tool[index], self.p_tool[index],
        )
        if "_nominal_rotations" in self.__dict__:  # a selection of identities is identities: no new check
            object.__setattr__(taken, "_nominal_rotations", self.__dict__["_nominal_rotations"])
        return taken


def nominal_model(chain: Chain) -> KinematicModel:
    """The undeformed chain as a :class:`KinematicModel` (no batch shape)."""
    n = chain.n_joints
    return KinematicModel(
        chain,
        R_base=chain.T_world_base[:3, :3].copy(),
        p_base=chain.T_world_base[:3, 3].copy(),
        R_joint=np.broadcast_to(np.eye(3), (n, 3, 3)).copy(),
        p_joint=chain.p.copy(),
        R_tool=chain.T_last_tcp[:3, :3].copy(),
        p_tool=chain.T_last_tcp[:3, 3].copy(),
    )
