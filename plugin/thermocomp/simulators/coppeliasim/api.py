"""Which ``sim`` calls the adapter makes: one choice per connection, from the server's version.

CoppeliaSim's API moved between 4.6 and 4.10 (checked in CoppeliaRobotics'
sources; docs/coppeliasim.md, "API generations"):

- ``sim.readCustomDataBlock`` / ``writeCustomDataBlock`` are C API functions up
  to 4.6 (coppeliaSimLib coppeliasim-v4.6.0-rev18); from 4.7 they survive only
  as Lua wrappers over ``readCustomStringData`` (lua deprecated/old.lua, and
  the ZMQ server add-on's own ``sim.readCustomDataBlock``, which returns ``''``,
  never nil, for a missing block). The properties API (``sim.getBufferProperty``,
  ``setBufferProperty``, ``removeProperty``; custom data under the
  ``customData.`` prefix) exists from 4.8 (coppeliasim-v4.8.0-rev0).
- At the 4.10 development head (coppeliaSimLib master, simConst.h "4.10.0
  rev 5"), ``getObjectMatrix``, ``get/setObjectOrientation``,
  ``getInt32Param``, ``getStringParam``, ``getNamedStringParam``, the custom
  data functions, ``getObjectsInTree`` and ``getObjectParent`` are registered
  as ``sim1.*`` (the legacy table): ``require 'sim'`` (= sim-1, lua/sim.lua)
  still merges them in, ``require 'sim-2'`` does not have them. Their
  replacements there: ``sim.getObjectPose``, the properties ``customData.<tag>``,
  ``parent`` (handle) and ``children`` (handle array) of a scene object, and
  ``app.productVersionNb`` (``sim.getIntProperty(sim.handle_app,
  'productVersionNb')``, as simPlusPlus-2's ``programVersion()`` reads it).

So the adapter

- uses the server's ``sim`` as loaded, requiring ``sim`` only when none is
  (``zmqRemoteApi.require`` sets the *server's* global ``sim`` for every
  client, ``_G[vname] = require(name)``: requiring it would swap sim-1 and
  sim-2 under the user's own scripts connected to the same CoppeliaSim), and
  works with either;
- reads poses with ``sim.getObjectPose`` / ``setObjectPose`` on every version
  (they exist from 4.5), computing matrices and CoppeliaSim Euler angles itself;
- chooses, once, between :class:`LegacyApi` (before 4.10) and
  :class:`CurrentApi` (4.10 and later) for custom data, the object tree and the
  constants that moved.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np

from thermocomp._typing import ArrayLike, FloatArray
from thermocomp.deformation.coppeliasim_convention import coppeliasim_euler_from_matrix
from thermocomp.geometry.rotations import (
    matrix_from_euler_xyz,
    matrix_from_quat_wxyz,
    quat_wxyz_from_matrix,
    transform,
)


class Session(Protocol):
    """What the adapter calls on a connection (:class:`thermocomp.simulators.coppeliasim.connection.Session`,
    which builds the adapter: named here, not imported, so the two modules do not import each other)."""

    def call(self, name: str, *args: Any) -> Any: ...

    def has(self, name: str) -> bool: ...

    def const(self, name: str, *older: str) -> Any: ...

#: ``sim.intparam_program_full_version`` (major * 1000000 + minor * 10000 + patch * 100 + revision)
#: from which the adapter uses the current API: 4.10.0 rev 0.
CURRENT_API_FROM = 4_10_00_00

#: Prefix of an object's custom data in the properties API (coppeliaSimLib ``CUSTOMDATAPREFIX``).
CUSTOM_DATA_PREFIX = "customData."


def version_text(full_version: int) -> str:
    """CoppeliaSim's ``sim.intparam_program_full_version`` (e.g. 4090006) as ``"4.9.0 rev 6"``."""
    v = int(full_version)
    return f"{v // 1000000}.{v // 10000 % 100}.{v // 100 % 100} rev {v % 100}"


def T_from_pose_xyzw(pose: ArrayLike) -> FloatArray:
    """``(4, 4)`` transform from a CoppeliaSim pose ``[x, y, z, qx, qy, qz, qw]`` (quaternion x, y, z, w)."""
    v = np.asarray(pose, dtype=float)
    if v.shape != (7,):
        raise ValueError(f"expected a CoppeliaSim pose of 7 numbers, got {pose!r}")
    return transform(matrix_from_quat_wxyz([v[6], v[3], v[4], v[5]]), v[:3])


def pose_xyzw_from_T(T: ArrayLike) -> list[float]:
    """CoppeliaSim pose ``[x, y, z, qx, qy, qz, qw]`` of a ``(4, 4)`` transform."""
    T = np.asarray(T, dtype=float)
    w, x, y, z = quat_wxyz_from_matrix(T[:3, :3])
    return [float(v) for v in (*T[:3, 3], x, y, z, w)]


def _text_or_none(data) -> bytes | None:
    """A custom data block as bytes; ``None`` for nil or the empty string the server sends for "none"."""
    if data is None or len(data) == 0:
        return None
    return data.encode("utf-8") if isinstance(data, str) else bytes(data)


class SimApi:
    """The calls every generation shares; subclasses choose the ones that moved.

    Bound to one :class:`~thermocomp.simulators.coppeliasim.connection.Session`.
    """

    #: Shown in ``Session.describe()``.
    name = ""

    def __init__(self, session: Session) -> None:
        self.session = session

    # -- poses (sim.getObjectPose / setObjectPose, 4.5 and later) ----------------------------
    def matrix(self, handle: int, relative_to: int) -> FloatArray:
        """``(4, 4)`` pose of ``handle`` relative to ``relative_to`` (``sim.getObjectPose``)."""
        return T_from_pose_xyzw(self.session.call("getObjectPose", handle, relative_to))

    def euler(self, handle: int, relative_to: int) -> FloatArray:
        """CoppeliaSim Euler angles ``(alpha, beta, gamma)`` [rad] of the object, as
        ``sim.getObjectOrientation`` reads them (gimbal-lock branch included)."""
        return coppeliasim_euler_from_matrix(self.matrix(handle, relative_to)[:3, :3])

    def set_euler(self, handle: int, euler: ArrayLike, relative_to: int) -> None:
        """Set the object's orientation from CoppeliaSim Euler angles (``R = Rx Ry Rz``), keeping its position."""
        T = self.matrix(handle, relative_to)
        T[:3, :3] = matrix_from_euler_xyz(np.asarray(euler, dtype=float))
        self.session.call("setObjectPose", handle, pose_xyzw_from_T(T), relative_to)

    # -- what moved between generations --------------------------------------------------------
    def read_data(self, handle: int, tag: str) -> bytes | None:
        """The custom data block ``tag`` of an object, ``None`` when it has none."""
        raise NotImplementedError

    def write_data(self, handle: int, tag: str, data: bytes) -> None:
        """Store ``data`` (non-empty) as the custom data block ``tag`` of an object (saved with the scene)."""
        raise NotImplementedError

    def remove_data(self, handle: int, tag: str) -> None:
        """Remove the custom data block ``tag`` (nothing happens when there is none)."""
        raise NotImplementedError

    def parent(self, handle: int) -> int:
        """The object's parent handle, -1 at the scene's root."""
        raise NotImplementedError

    def joints_in_tree(self, base: int) -> list[int]:
        """Every joint below ``base`` (not ``base`` itself), depth first."""
        raise NotImplementedError

    def is_revolute(self, joint: int) -> bool:
        """Whether a joint is revolute (``sim.getJointType``)."""
        return self.session.call("getJointType", joint) == self.session.const("joint_revolute", "joint_revolute_subtype")


class LegacyApi(SimApi):
    """CoppeliaSim 4.6 to 4.9: custom data blocks, ``getObjectParent``, ``getObjectsInTree``."""

    name = "4.6-era sim API"

    def read_data(self, handle: int, tag: str) -> bytes | None:
        # The ZMQ server's wrapper returns '' (not nil) for a missing block.
        return _text_or_none(self.session.call("readCustomDataBlock", handle, tag))

    def write_data(self, handle: int, tag: str, data: bytes) -> None:
        self.session.call("writeCustomDataBlock", handle, tag, data)

    def remove_data(self, handle: int, tag: str) -> None:
        self.session.call("writeCustomDataBlock", handle, tag, b"")  # empty data removes the tag

    def parent(self, handle: int) -> int:
        return int(self.session.call("getObjectParent", handle))

    def joints_in_tree(self, base: int) -> list[int]:
        return [int(h) for h in self.session.call("getObjectsInTree", base, self.session.const("object_joint_type"), 1)]


class CurrentApi(SimApi):
    """CoppeliaSim 4.10 and later: properties for custom data and (where the server has handle
    properties, the 4.10 development head) for the object tree."""

    name = "4.10 properties API"

    def __init__(self, session: Session) -> None:
        super().__init__(session)
        # 4.10.0 as released (May 2025) has no handle properties yet; its getObjectParent and
        # getObjectsInTree are regular functions then. Decided here, once.
        self.handle_properties = session.has("getHandleProperty") and session.has("getHandleArrayProperty")

    def read_data(self, handle: int, tag: str) -> bytes | None:
        return _text_or_none(self.session.call("getBufferProperty", handle, CUSTOM_DATA_PREFIX + tag, {"noError": True}))

    def write_data(self, handle: int, tag: str, data: bytes) -> None:
        self.session.call("setBufferProperty", handle, CUSTOM_DATA_PREFIX + tag, data)

    def remove_data(self, handle: int, tag: str) -> None:
        self.session.call("removeProperty", handle, CUSTOM_DATA_PREFIX + tag, {"noError": True})

    def parent(self, handle: int) -> int:
        if not self.handle_properties:
            return int(self.session.call("getObjectParent", handle))
        parent = self.session.call("getHandleProperty", handle, "parent")
        return -1 if parent is None else int(parent)

    def joints_in_tree(self, base: int) -> list[int]:
        joint_type = self.session.const("sceneobject_joint", "object_joint_type")
        if not self.handle_properties:
            return [int(h) for h in self.session.call("getObjectsInTree", base, joint_type, 1)]
        found: list[int] = []
        stack = [int(h) for h in reversed(self.session.call("getHandleArrayProperty", base, "children"))]
        while stack:
            h = stack.pop()
            if self.session.call("getObjectType", h) == joint_type:
                found.append(h)
            stack.extend(int(c) for c in reversed(self.session.call("getHandleArrayProperty", h, "children")))
        return found


def choose_api(session: Session, full_version: int) -> SimApi:
    """The calls to use with a server of version ``full_version`` (``sim.intparam_program_full_version``)."""
    return CurrentApi(session) if int(full_version) >= CURRENT_API_FROM else LegacyApi(session)


def read_full_version(session: Session) -> int:
    """The server's full version number (e.g. 4090006 for 4.9.0 rev 6), read once at connection.

    ``sim.getIntProperty(sim.handle_app, 'productVersionNb', {noError = true})`` where the server has
    the properties API (4.8 on; the property itself from 4.10, nil before), else
    ``sim.getInt32Param(sim.intparam_program_full_version)`` (4.6 to 4.9).
    """
    if session.has("getIntProperty"):
        version = session.call("getIntProperty", session.const("handle_app"), "productVersionNb", {"noError": True})
        if version is not None:
            return int(version)
    return int(session.call("getInt32Param", session.const("intparam_program_full_version")))
