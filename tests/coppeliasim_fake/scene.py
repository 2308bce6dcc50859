"""An in-memory CoppeliaSim scene and the subset of ``sim`` the plugin uses.

Semantics follow CoppeliaSim's documented API (the regular API pages of
``sim.getObjectMatrix``, ``sim.setObjectPose``, ``sim.getJointInterval`` ...):

- every object stores its pose relative to its parent (``Pose``: position and
  quaternion x, y, z, w), like CoppeliaSim's local transformation;
- a joint's own pose is its *base* frame; its children hang on its *moving*
  frame, the base frame turned about the joint's z axis by the joint position;
- ``relativeToObjectHandle``: ``sim.handle_world`` (-1), ``sim.handle_parent``
  (-11), or an object handle (a joint's moving frame when it is a joint);
- setters take ``(handle, value, relativeTo = sim.handle_world)`` (CoppeliaSim
  4.5 and later) and, like CoppeliaSim, also the older ``(handle, relativeTo, value)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from coppeliasim_fake.spatial import (
    Pose,
    euler_from_matrix,
    matrix_from_euler,
    matrix_from_q,
    q_about_z,
    q_from_matrix,
)

HANDLE_WORLD = -1
HANDLE_ALL = -2
HANDLE_PARENT = -11
HANDLE_SCENE = -12
OBJECT_SHAPE = 0
OBJECT_JOINT = 1
OBJECT_DUMMY = 4
JOINT_REVOLUTE = 10
JOINT_PRISMATIC = 11
INTPARAM_PROGRAM_FULL_VERSION = 39

HANDLE_APP = -13

#: Constants published through ``zmqRemoteApi.info('sim')`` (values as CoppeliaSim's). The names
#: CoppeliaSim moved to its legacy table (``sim1``) at the 4.10 development head are in
#: :data:`LEGACY_CONSTANTS`; their new names in :data:`CURRENT_CONSTANTS`.
CONSTANTS = {
    "handle_world": HANDLE_WORLD,
    "handle_all": HANDLE_ALL,
    "handle_parent": HANDLE_PARENT,
    "handle_scene": HANDLE_SCENE,
    "object_shape_type": OBJECT_SHAPE,
    "object_joint_type": OBJECT_JOINT,
    "object_dummy_type": OBJECT_DUMMY,
    "joint_revolute_subtype": JOINT_REVOLUTE,
    "joint_prismatic_subtype": JOINT_PRISMATIC,
    "intparam_program_full_version": INTPARAM_PROGRAM_FULL_VERSION,
    "primitiveshape_plane": 1,
    "primitiveshape_disc": 2,
    "primitiveshape_cuboid": 3,
    "primitiveshape_spheroid": 4,
    "primitiveshape_cylinder": 5,
    "colorcomponent_ambient_diffuse": 0,
}
#: Constants only the legacy table has at the 4.10 development head (coppeliaSimLib master,
#: sourceCode/interfaces/luaScriptFunctions.cpp: ``{"sim1.object_joint_type", ...}`` etc.).
LEGACY_CONSTANTS = frozenset({
    "object_shape_type", "object_joint_type", "object_dummy_type", "joint_revolute_subtype",
    "joint_prismatic_subtype", "intparam_program_full_version", "colorcomponent_ambient_diffuse",
})
#: Constants of the current API (4.10: ``sim.sceneobject_joint``, ``sim.joint_revolute``,
#: ``sim.handle_app``, ``sim.materialcomponent_diffuse``), same values as the legacy names.
CURRENT_CONSTANTS = {
    "handle_app": HANDLE_APP,
    "sceneobject_shape": OBJECT_SHAPE,
    "sceneobject_joint": OBJECT_JOINT,
    "sceneobject_dummy": OBJECT_DUMMY,
    "joint_revolute": JOINT_REVOLUTE,
    "joint_prismatic": JOINT_PRISMATIC,
    "materialcomponent_diffuse": 0,
}

#: ``sim`` functions of the 4.6-era API that the 4.10 development head keeps only in its legacy
#: table (``sim1.*`` in coppeliaSimLib master's luaScriptFunctions.cpp; ``require 'sim'`` = sim-1
#: merges them back in, ``require 'sim-2'`` has none of them). readCustomDataBlock /
#: writeCustomDataBlock: C API until 4.6, Lua wrappers from 4.7 (zmqRemoteApi's server add-on
#: defines ``sim.readCustomDataBlock`` over ``sim.readCustomStringData``).
LEGACY_FUNCTIONS = frozenset({
    "getObjectMatrix", "setObjectMatrix", "getObjectOrientation", "setObjectOrientation", "getInt32Param",
    "readCustomDataBlock", "writeCustomDataBlock", "getObjectsInTree", "getObjectParent",
})
#: Functions of the properties API, absent before 4.8 (getBufferProperty & co., coppeliaSimLib
#: coppeliasim-v4.8.0-rev0) or before the 4.10 development head (getHandleProperty,
#: getHandleArrayProperty; properties ``parent`` and ``children``).
PROPERTY_FUNCTIONS = frozenset({
    "getBufferProperty", "setBufferProperty", "removeProperty", "getIntProperty", "getHandleProperty",
    "getHandleArrayProperty",
})
#: Prefix of custom data in the properties API (coppeliaSimLib ``CUSTOMDATAPREFIX``).
CUSTOM_DATA_PREFIX = "customData."
#: Default aliases of new primitive shapes, by primitive type (as CoppeliaSim names them).
PRIMITIVE_ALIASES = {1: "Plane", 2: "Disc", 3: "Cuboid", 4: "Sphere", 5: "Cylinder"}


class SimError(Exception):
    """A ``sim`` function refused its arguments (sent back as the reply's ``err``)."""


@dataclass
class SceneObject:
    handle: int
    alias: str
    kind: int
    parent: int | None
    local: Pose = field(default_factory=Pose)
    joint_type: int | None = None
    position: float = 0.0
    cyclic: bool = False
    interval: tuple[float, float] = (-math.pi, 2 * math.pi)  # (min, range) [rad]
    children: list[int] = field(default_factory=list)
    custom: dict[str, bytes] = field(default_factory=dict)  # custom data blocks by tag
    primitive: tuple[int, tuple[float, ...]] | None = None  # (type, full sizes [m]) of a primitive shape
    color: tuple[float, float, float] | None = None  # ambient-diffuse colour of a shape


class Scene:
    """Objects by handle; handles start at 10 like a fresh CoppeliaSim scene's do not matter."""

    def __init__(self, version: int = 4090006) -> None:
        self.objects: dict[int, SceneObject] = {}
        self.roots: list[int] = []
        self.version = version
        self.custom: dict[str, bytes] = {}  # custom data blocks of the scene (sim.handle_scene)
        self._next = 10

    # -- building ---------------------------------------------------------------
    def add(self, alias: str, kind: int, parent: int | None = None, *, T_world=None, joint_type=None,
            cyclic: bool = False, interval: tuple[float, float] | None = None) -> int:
        """Add an object; ``T_world`` = ``(p, R)`` places it in the world at the current configuration."""
        h = self._next
        self._next += 1
        obj = SceneObject(h, alias, kind, parent, joint_type=joint_type, cyclic=cyclic)
        if interval is not None:
            obj.interval = interval
        self.objects[h] = obj
        (self.objects[parent].children if parent is not None else self.roots).append(h)
        if T_world is not None:
            p, R = T_world
            self.set_pose(h, Pose(p, q_from_matrix(R)), HANDLE_WORLD)
        return h

    # -- frames -----------------------------------------------------------------
    def obj(self, h) -> SceneObject:
        if not isinstance(h, int) or isinstance(h, bool) or h not in self.objects:
            raise SimError(f"Object does not exist: handle {h!r}")
        return self.objects[h]

    def world(self, h: int) -> Pose:
        """The object's own frame in the world (a joint's base frame)."""
        obj = self.obj(h)
        return self.child_frame(obj.parent) * obj.local

    def child_frame(self, h: int | None) -> Pose:
        """The frame children of ``h`` hang on (a joint's moving frame); world for ``None``."""
        if h is None:
            return Pose()
        obj = self.obj(h)
        frame = self.world(h)
        if obj.kind == OBJECT_JOINT:
            frame = frame * Pose(q=q_about_z(obj.position))
        return frame

    def reference(self, h: int, rel) -> Pose:
        if rel == HANDLE_WORLD:
            return Pose()
        if rel == HANDLE_PARENT:
            return self.child_frame(self.obj(h).parent)
        return self.child_frame(self.obj(rel).handle)

    def get_pose(self, h: int, rel) -> Pose:
        if rel == HANDLE_PARENT:  # the stored local pose itself, bit for bit
            local = self.obj(h).local
            return Pose(local.p.copy(), local.q.copy())
        return self.reference(h, rel).inverse() * self.world(h)

    def set_pose(self, h: int, pose: Pose, rel) -> None:
        obj = self.obj(h)
        if rel == HANDLE_PARENT:
            obj.local = Pose(pose.p.copy(), pose.q.copy())
            return
        world = self.reference(h, rel) * pose
        obj.local = self.child_frame(obj.parent).inverse() * world

    def descendants(self, h: int) -> list[int]:
        out = []
        for c in self.objects[h].children:
            out.append(c)
            out.extend(self.descendants(c))
        return out

    def resolve(self, path: str) -> int:
        """CoppeliaSim object paths in their common forms: ``/alias`` (unique in the scene) or
        ``/a/b/c`` (``b`` a child of ``a``, or, failing that, its first descendant with that alias)."""
        if not isinstance(path, str) or not path.startswith("/"):
            raise SimError(f"invalid object path: {path!r}")
        parts = [p for p in path.split("/") if p]
        if not parts:
            raise SimError(f"invalid object path: {path!r}")
        first = [h for h, o in self.objects.items() if o.alias == parts[0]]
        roots = [h for h in self.roots if self.objects[h].alias == parts[0]]
        if len(roots) == 1:
            current = roots[0]
        elif len(first) == 1:
            current = first[0]
        else:
            raise SimError(f"object does not exist: {path}")
        for name in parts[1:]:
            direct = [c for c in self.objects[current].children if self.objects[c].alias == name]
            deep = [c for c in self.descendants(current) if self.objects[c].alias == name]
            if direct:
                current = direct[0]
            elif deep:
                current = deep[0]
            else:
                raise SimError(f"object does not exist: {path}")
        return current


def _reorder(args: list, n_value: int) -> tuple:
    """``(handle, value, rel)`` from either argument order (CoppeliaSim accepts both)."""
    if len(args) >= 3 and isinstance(args[1], (int, float)) and isinstance(args[2], (list, tuple)):
        return args[0], args[2], args[1]
    h = args[0]
    value = args[1]
    rel = args[2] if len(args) > 2 else HANDLE_WORLD
    if not isinstance(value, (list, tuple)) or len(value) != n_value:
        raise SimError(f"expected {n_value} numbers, got {value!r}")
    return h, value, rel


class FakeSim:
    """The ``sim`` functions, by name. Each takes the request's ``args`` list and returns a list."""

    def __init__(self, scene: Scene) -> None:
        self.scene = scene

    def names(self) -> list[str]:
        return [n for n in dir(self) if not n.startswith("_") and n not in ("names", "scene", "call")]

    def call(self, name: str, args: list) -> list:
        if name not in self.names():
            raise KeyError(name)
        return getattr(self, name)(*args)

    # -- objects -----------------------------------------------------------------
    def getObject(self, path, options=None):
        options = options or {}
        try:
            return [self.scene.resolve(path)]
        except SimError:
            if options.get("noError"):
                return [-1]
            raise

    def getObjectsInTree(self, base, objectType=HANDLE_ALL, options=0):
        s = self.scene
        if base == HANDLE_SCENE:
            tree = [h for r in s.roots for h in [r, *s.descendants(r)]]
        else:
            s.obj(base)
            tree = [base, *s.descendants(base)]
            if options & 1:
                tree = tree[1:]
        if options & 2:
            tree = list(s.roots if base == HANDLE_SCENE else s.objects[base].children)
        if objectType != HANDLE_ALL:
            tree = [h for h in tree if s.objects[h].kind == objectType]
        return [tree]

    def getObjectParent(self, h):
        parent = self.scene.obj(h).parent
        return [-1 if parent is None else parent]

    def getObjectAlias(self, h, options=-1):
        obj = self.scene.obj(h)
        if options == -1:
            return [obj.alias]
        if options == 2:
            names = []
            current: int | None = h
            while current is not None:
                names.append(self.scene.objects[current].alias)
                current = self.scene.objects[current].parent
            return ["/" + "/".join(reversed(names))]
        raise SimError(f"alias option {options!r} is not supported by the fake")

    def isHandle(self, h):
        return [isinstance(h, int) and not isinstance(h, bool) and h in self.scene.objects]

    def getObjectType(self, h):
        return [self.scene.obj(h).kind]

    # -- joints -------------------------------------------------------------------
    def _joint(self, h) -> SceneObject:
        obj = self.scene.obj(h)
        if obj.kind != OBJECT_JOINT:
            raise SimError(f"object {h} is not a joint")
        return obj

    def getJointType(self, h):
        return [self._joint(h).joint_type]

    def getJointInterval(self, h):
        j = self._joint(h)
        return [j.cyclic, [j.interval[0], j.interval[1]]]

    def getJointPosition(self, h):
        return [self._joint(h).position]

    def setJointPosition(self, h, position):
        self._joint(h).position = float(position)
        return []

    # -- poses ----------------------------------------------------------------------
    def getObjectMatrix(self, h, rel=HANDLE_WORLD):
        return [self.scene.get_pose(h, rel).matrix12()]

    def setObjectMatrix(self, *args):
        h, m, rel = _reorder(list(args), 12)
        self.scene.set_pose(h, Pose.from_matrix12(m), rel)
        return []

    def getObjectPose(self, h, rel=HANDLE_WORLD):
        return [self.scene.get_pose(h, rel).pose7()]

    def setObjectPose(self, *args):
        h, v, rel = _reorder(list(args), 7)
        self.scene.set_pose(h, Pose.from_pose7(v), rel)
        return []

    def getObjectPosition(self, h, rel=HANDLE_WORLD):
        return [[float(v) for v in self.scene.get_pose(h, rel).p]]

    def setObjectPosition(self, *args):
        h, v, rel = _reorder(list(args), 3)
        pose = self.scene.get_pose(h, rel)
        self.scene.set_pose(h, Pose(v, pose.q), rel)
        return []

    def getObjectOrientation(self, h, rel=HANDLE_WORLD):
        return [euler_from_matrix(matrix_from_q(self.scene.get_pose(h, rel).q))]

    def setObjectOrientation(self, *args):
        h, v, rel = _reorder(list(args), 3)
        pose = self.scene.get_pose(h, rel)
        self.scene.set_pose(h, Pose(pose.p, q_from_matrix(matrix_from_euler(*v))), rel)
        return []

    def getObjectQuaternion(self, h, rel=HANDLE_WORLD):
        return [[float(v) for v in self.scene.get_pose(h, rel).q]]

    def setObjectQuaternion(self, *args):
        h, v, rel = _reorder(list(args), 4)
        pose = self.scene.get_pose(h, rel)
        self.scene.set_pose(h, Pose(pose.p, np.asarray(v, dtype=float) / np.linalg.norm(v)), rel)
        return []

    # -- custom data (sim.writeCustomDataBlock / sim.readCustomDataBlock, CoppeliaSim 4.6 and later) --
    def writeCustomDataBlock(self, h, tag, data):
        """Store ``data`` under ``tag`` on the object (saved with the scene); empty data removes the tag."""
        obj = self.scene.obj(h) if h != HANDLE_SCENE else None
        if not isinstance(tag, str) or not tag:
            raise SimError(f"invalid tag name {tag!r}")
        if not isinstance(data, (str, bytes, bytearray)):
            raise SimError(f"expected a buffer or string, got {type(data).__name__}")
        raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
        store = obj.custom if obj is not None else self.scene.custom
        if raw:
            store[tag] = raw
        else:
            store.pop(tag, None)
        return []

    def readCustomDataBlock(self, h, tag):
        """The buffer stored under ``tag`` (bytes, as CoppeliaSim sends a Lua buffer); an empty one when
        there is none: the ZMQ remote API server wraps the function so that it "always returns a string"
        (zmqRemoteApi, addOns/ZMQ remote API server.lua, 4.6.0 to master: ``if retVal == nil then
        retVal = '' end``), never nil."""
        store = self.scene.obj(h).custom if h != HANDLE_SCENE else self.scene.custom
        return [store.get(tag, b"")]

    # -- properties (CoppeliaSim 4.8 and later; handle properties: 4.10 development head) ------------
    def _custom_tag(self, name) -> str:
        if not isinstance(name, str) or not name.startswith(CUSTOM_DATA_PREFIX) or name == CUSTOM_DATA_PREFIX:
            raise SimError(f"'{name}' property is unknown.")
        return name[len(CUSTOM_DATA_PREFIX):]

    def _store(self, target):
        if target == HANDLE_SCENE:
            return self.scene.custom
        return self.scene.obj(target).custom

    @staticmethod
    def _no_error(options) -> bool:
        return isinstance(options, dict) and bool(options.get("noError"))

    def getBufferProperty(self, target, name, options=None):
        """``customData.<tag>`` as bytes; nil with ``{noError = true}`` when absent, else an error."""
        store = self._store(target)
        tag = self._custom_tag(name)
        if tag not in store:
            if self._no_error(options):
                return [None]
            raise SimError(f"'{name}' property is unknown.")
        return [store[tag]]

    def setBufferProperty(self, target, name, value, options=None):
        if not isinstance(value, (str, bytes, bytearray)):
            raise SimError(f"expected a buffer, got {type(value).__name__}")
        self._store(target)[self._custom_tag(name)] = value.encode("utf-8") if isinstance(value, str) else bytes(value)
        return []

    def removeProperty(self, target, name, options=None):
        store = self._store(target)
        tag = self._custom_tag(name)
        if tag not in store:
            if self._no_error(options):
                return []
            raise SimError(f"'{name}' property is unknown.")
        del store[tag]
        return []

    def getIntProperty(self, target, name, options=None):
        if target == HANDLE_APP and name == "productVersionNb" and self.scene.version >= 4100000:
            return [self.scene.version]
        if self._no_error(options):
            return [None]
        raise SimError(f"'{name}' property is unknown.")

    def getHandleProperty(self, target, name, options=None):
        if name == "parent":
            parent = self.scene.obj(target).parent
            return [-1 if parent is None else parent]
        if self._no_error(options):
            return [None]
        raise SimError(f"'{name}' property is unknown.")

    def getHandleArrayProperty(self, target, name, options=None):
        if name == "children":
            return [list(self.scene.obj(target).children)]
        if self._no_error(options):
            return [None]
        raise SimError(f"'{name}' property is unknown.")

    # -- creating and removing objects (sim.createPrimitiveShape, sim.createDummy, sim.removeObjects,
    #    sim.setObjectAlias, sim.setObjectParent, sim.setShapeColor) ---------------------------------------------
    def createPrimitiveShape(self, primitiveType, sizes, options=0):
        """A new shape at the world origin; sizes are full extents [m] (a cylinder's x, y: its diameter)."""
        if primitiveType not in PRIMITIVE_ALIASES:
            raise SimError(f"invalid primitive type {primitiveType!r}")
        if not isinstance(sizes, (list, tuple)) or len(sizes) != 3 or any(float(v) <= 0 for v in sizes):
            raise SimError(f"expected 3 positive sizes, got {sizes!r}")
        h = self.scene.add(PRIMITIVE_ALIASES[primitiveType], OBJECT_SHAPE, None)
        self.scene.objects[h].primitive = (primitiveType, tuple(float(v) for v in sizes))
        return [h]

    def createDummy(self, size):
        return [self.scene.add("Dummy", OBJECT_DUMMY, None)]

    def removeObjects(self, handles, delayedRemoval=False):
        """Remove the objects (sim.removeObjects); a removed object's children move to its parent, kept in place."""
        s = self.scene
        if not isinstance(handles, (list, tuple)):
            raise SimError(f"expected a list of handles, got {handles!r}")
        for h in handles:
            s.obj(h)
        for h in dict.fromkeys(handles):
            obj = s.objects[h]
            for c in list(obj.children):
                self.setObjectParent(c, HANDLE_WORLD if obj.parent is None else obj.parent, True)
            (s.objects[obj.parent].children if obj.parent is not None else s.roots).remove(h)
            del s.objects[h]
        return []

    def setObjectAlias(self, h, alias):
        if not isinstance(alias, str) or not alias or any(c in alias for c in "/:#[]"):
            raise SimError(f"invalid alias {alias!r}")
        self.scene.obj(h).alias = alias
        return []

    def setObjectParent(self, h, parent, keepInPlace=True):
        s = self.scene
        obj = s.obj(h)
        if parent != HANDLE_WORLD:
            s.obj(parent)
            if parent == h or parent in s.descendants(h):
                raise SimError("an object cannot become its own descendant")
        world = s.world(h)
        (s.objects[obj.parent].children if obj.parent is not None else s.roots).remove(h)
        obj.parent = None if parent == HANDLE_WORLD else parent
        (s.objects[obj.parent].children if obj.parent is not None else s.roots).append(h)
        if keepInPlace:
            s.set_pose(h, world, HANDLE_WORLD)
        return []

    def setShapeColor(self, h, colorName, colorComponent, rgbData):
        obj = self.scene.obj(h)
        if obj.kind != OBJECT_SHAPE:
            raise SimError(f"object {h} is not a shape")
        if colorName is not None or colorComponent != CONSTANTS["colorcomponent_ambient_diffuse"]:
            raise SimError("the fake sets the ambient-diffuse colour of the whole shape only")
        if len(rgbData) != 3 or not all(0.0 <= float(v) <= 1.0 for v in rgbData):
            raise SimError(f"expected 3 colour values in 0..1, got {rgbData!r}")
        obj.color = tuple(float(v) for v in rgbData)
        return []

    # -- parameters -------------------------------------------------------------------
    def getInt32Param(self, param):
        if param == INTPARAM_PROGRAM_FULL_VERSION:
            return [self.scene.version]
        raise SimError(f"unknown parameter {param!r}")
