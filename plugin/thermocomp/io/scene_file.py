"""Scene files: a robot cell described in a small declarative TOML file (docs/scenes.md).

A scene places the robot in the cell and lists the static objects around it
(a table, a print bed, a workpiece, fixtures). The PyBullet adapter
(:mod:`thermocomp.simulators.pybullet`) reads it; the CoppeliaSim side reads
the same file via this module's public readers. A *mesh map* (a second, smaller TOML form) says which
mesh files give a robot's links their shape, in which unit and where.

File conventions (the file boundary of docs/conventions.md):

* lengths in millimetres (keys ending ``_mm``), angles in degrees (``_deg``);
* orientations as CoppeliaSim Euler angles ``euler_xyz_deg = [a, b, c]``,
  ``R = Rx(a) @ Ry(b) @ Rz(c)`` (the paper's convention, one for every file);
* a pose ``xyz_mm`` / ``euler_xyz_deg`` of an object is the pose of the
  object's own frame in the cell's world frame, ``T_world_object``; the
  world frame is the frame of the targets and of every result;
* mesh coordinates carry a stated unit (``mesh_unit = "m"`` or ``"mm"``):
  STL has none, and thermocomp never guesses one;
* relative file paths are relative to the file that names them.

Everything returned is SI (metres, radians) and validated: a reader error
names the file, the line of the offending key (or of its table) and says
what was expected and what came.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from thermocomp._data import data_folder
from thermocomp._typing import FloatArray, PathLike
from thermocomp.errors import InputError
from thermocomp.geometry.rotations import matrix_from_euler_xyz, transform
from thermocomp.io.files import MAX_DESCRIPTION_BYTES, is_dir, is_file, read_input_bytes
from thermocomp.io.meshes import UNITS, metres_per_unit_from_name
from thermocomp.io.robots import BUILTIN_NAMES, is_builtin
from thermocomp.io.toml_text import load_toml
from thermocomp.robot.chain import Chain

#: Format versions this reader understands (top-level key ``thermocomp_scene``).
SCENE_FORMAT_VERSIONS = (1,)
#: Format versions of mesh maps (top-level key ``thermocomp_meshes``).
MESH_MAP_FORMAT_VERSIONS = (1,)

#: Shapes a scene object can have and the size keys each needs.
SHAPES: Mapping[str, tuple[str, ...]] = {
    "box": ("size_mm",),
    "cylinder": ("radius_mm", "length_mm"),
    "sphere": ("radius_mm",),
    "mesh": ("file", "mesh_unit"),
}
#: What an object is for; it sets the default colour and tells a simulator
#: how to show it. Every role takes part in collision checks unless
#: ``collide = false``.
ROLES = ("table", "print_bed", "workpiece", "fixture", "obstacle")
#: Default colours (r, g, b, a in 0..1) per role.
ROLE_RGBA: Mapping[str, tuple[float, float, float, float]] = {
    "table": (0.62, 0.52, 0.40, 1.0),
    "print_bed": (0.20, 0.22, 0.25, 1.0),
    "workpiece": (0.35, 0.55, 0.80, 1.0),
    "fixture": (0.55, 0.55, 0.58, 1.0),
    "obstacle": (0.80, 0.25, 0.25, 1.0),
}
#: Metres per mesh unit, by name: the mesh readers' own table.
MESH_UNITS: Mapping[str, float] = UNITS
#: Mesh file types a scene or mesh map can name: those PyBullet loads as
#: collision shapes (its ``createCollisionShape`` and URDF loader read STL and
#: Wavefront OBJ; :data:`thermocomp.io.meshes.MESH_SUFFIXES` adds COLLADA,
#: which only the inertia reader takes).
SCENE_MESH_SUFFIXES = (".stl", ".obj")
#: Object names a scene accepts: letters, digits, ``_`` and ``-``. A simulator
#: names its objects after them (a CoppeliaSim alias, which refuses ``/``,
#: ``:``, ``#``, brackets and spaces), so a name that one of them refuses is
#: caught here, before anything is built.
OBJECT_NAME = re.compile(r"^[A-Za-z0-9_-]+$")
#: Links of a robot a mesh map can name: ``base`` and ``link1`` .. ``linkn``
#: (the links of :func:`thermocomp.io.urdf.urdf_text`).
_LINK_NAME = re.compile(r"^(base|link[1-9][0-9]*)$")


# --- plain data returned by the readers ---------------------------------------------


@dataclass(frozen=True, eq=False)
class LinkMesh:
    """The meshes that give one robot link its shape.

    Parameters
    ----------
    link
        URDF link name: ``base`` or ``link1`` .. ``linkn``.
    visual, collision
        Absolute mesh paths, or ``None``.
    T_link_mesh
        Pose of the mesh's own frame in the link frame, ``(4, 4)``, metres.
        Link frames are the table form's joint frames (base-oriented at the
        zero pose, origin on the joint axis; docs/conventions.md).
    scale
        Metres per mesh unit (``1.0`` for metres, ``0.001`` for millimetres).
    """

    link: str
    visual: Path | None
    collision: Path | None
    T_link_mesh: FloatArray = field(default_factory=lambda: np.eye(4))
    scale: float = 1.0


@dataclass(frozen=True, eq=False)
class MeshMap:
    """Which mesh files shape which links of a robot (a user's CAD, for example).

    Parameters
    ----------
    links
        By link name (``base``, ``link1`` ..); links not named get no mesh.
    robot
        Robot the map is made for (a built-in name or a free label), or ``None``.
    source
        The file it was read from.
    """

    links: Mapping[str, LinkMesh]
    robot: str | None = None
    source: str = "<memory>"

    def files(self) -> tuple[Path, ...]:
        """Every file the map was read from or names: the map itself (if read from a file) and its meshes."""
        found = [Path(self.source)] if Path(self.source).is_file() else []
        for mesh in self.links.values():
            found.extend(p for p in (mesh.visual, mesh.collision) if p is not None)
        return tuple(dict.fromkeys(found))


@dataclass(frozen=True, eq=False)
class SceneObject:
    """A static object of the cell, SI units.

    Parameters
    ----------
    name
        Unique within the scene.
    role
        One of :data:`ROLES`.
    shape
        One of :data:`SHAPES`.
    T_world_object
        Pose of the object frame in the world frame, ``(4, 4)`` [m]. A box,
        cylinder and sphere are centred on it; a cylinder's axis is its z
        axis; a mesh's coordinates are in it.
    size
        Box: full extents along the object's x, y, z [m], ``(3,)``; else ``None``.
    radius
        Cylinder and sphere radius [m]; else ``None``.
    length
        Cylinder length along its z axis [m]; else ``None``.
    mesh_file
        Mesh: absolute path; else ``None``.
    mesh_scale
        Metres per mesh unit (mesh only; 1.0 otherwise).
    rgba
        Colour, four values in 0..1.
    collide
        Whether collision checks include the object.
    line
        Line of the object's ``[[object]]`` header in the file, for messages.
    """

    name: str
    role: str
    shape: str
    T_world_object: FloatArray
    size: FloatArray | None = None
    radius: float | None = None
    length: float | None = None
    mesh_file: Path | None = None
    mesh_scale: float = 1.0
    rgba: tuple[float, float, float, float] = (0.6, 0.6, 0.6, 1.0)
    collide: bool = True
    line: int | None = None


@dataclass(frozen=True, eq=False)
class RobotPlacement:
    """Where the robot stands and what it is made of.

    Parameters
    ----------
    model
        Built-in robot name, or an absolute path of a robot file; ``None``
        when the scene fits any robot.
    T_world_robot
        Pose, in the cell's world frame, of the robot's own world frame (its
        base frame for the built-in robots), ``(4, 4)`` [m].
    mount
        Name of the object the robot stands on, or ``None``. Contacts of the
        robot's ``base`` and ``link1`` with it are expected (link 1 turns on
        the base about joint 1) and are not reported as collisions.
    meshes
        Mesh map of the robot's links, or ``None`` (built-in envelopes).
    """

    model: str | None = None
    T_world_robot: FloatArray = field(default_factory=lambda: np.eye(4))
    mount: str | None = None
    meshes: MeshMap | None = None


@dataclass(frozen=True, eq=False)
class Scene:
    """A robot cell: the robot's placement and the static objects around it.

    Parameters
    ----------
    name, description
        For display.
    robot
        The robot's placement.
    objects
        Static objects, names unique.
    source
        The file it was read from.
    """

    name: str
    robot: RobotPlacement
    objects: tuple[SceneObject, ...] = ()
    description: str = ""
    source: str = "<memory>"

    def object(self, name: str) -> SceneObject:
        """The object called ``name``; :class:`KeyError` if there is none."""
        for obj in self.objects:
            if obj.name == name:
                return obj
        raise KeyError(name)

    def files(self) -> tuple[Path, ...]:
        """Every file the scene was read from or names (its inputs), without repeats.

        The scene file itself, its robot file (``[robot] model`` when not a
        built-in), its mesh map and that map's meshes, and the mesh files of
        its objects. A writer refuses to write over any of them.
        """
        found = [Path(self.source)] if Path(self.source).is_file() else []
        if self.robot.model is not None and not is_builtin(self.robot.model):
            found.append(Path(self.robot.model))
        if self.robot.meshes is not None:
            found.extend(self.robot.meshes.files())
        found.extend(obj.mesh_file for obj in self.objects if obj.mesh_file is not None)
        return tuple(dict.fromkeys(found))

    def place(self, chain: Chain) -> Chain:
        """``chain`` standing where the scene puts the robot.

        Returns a copy with ``T_world_base = T_world_robot @ chain.T_world_base``.
        """
        return chain.replace(T_world_base=self.robot.T_world_robot @ chain.T_world_base)


#: A scene with nothing but the robot at the world origin.
EMPTY_SCENE = Scene(name="empty", robot=RobotPlacement(), source="<no scene>")

#: The shipped cell of each built-in robot, a file name in the repository's ``scenes/``.
BUILTIN_SCENES: Mapping[str, str] = {
    "irb140": "irb140_paper_cell.toml",
    "gofa": "gofa_cell.toml",
    "ur5": "ur5_print_bed.toml",
}


def scenes_dir() -> Path | None:
    """Folder of the shipped scenes, or ``None`` when this install has none.

    An installed wheel ships them as ``thermocomp/_scenes``; a source
    checkout has them in the repository's top-level ``scenes/``
    (:func:`thermocomp._data.data_folder`).
    """
    folder = data_folder("scenes")
    return folder if folder.is_dir() else None


def builtin_scene(robot: str) -> Path | None:
    """The shipped scene file of a built-in robot (:data:`BUILTIN_SCENES`).

    Returns ``None`` for a robot that is not built in, or when the scene file
    is not part of this install (:func:`scenes_dir`).
    """
    name = BUILTIN_SCENES.get(robot)
    folder = scenes_dir()
    if name is None or folder is None or not (folder / name).is_file():
        return None
    return folder / name


class _Reader:
    """Typed, located access to the values of one TOML file."""

    def __init__(self, path: PathLike, kind: str) -> None:
        self.path = Path(path)
        self.src = str(path)
        data = read_input_bytes(path, kind, MAX_DESCRIPTION_BYTES)
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise InputError(f"expected UTF-8 text, got undecodable byte at offset {exc.start}", path=self.src) from exc
        self.doc, self.where = load_toml(text, self.src, f"expected a TOML {kind} file")

    def error(self, message: str, line: int | None) -> InputError:
        return InputError(message, path=self.src, row=line)

    def resolve(self, text: str) -> Path:
        """A path from the file, relative to the file's folder unless absolute."""
        p = Path(text).expanduser()
        return p if p.is_absolute() else (self.path.parent / p).resolve()


class _Table:
    """One TOML table with its location: typed getters that raise located errors."""

    def __init__(self, reader: _Reader, values: Any, label: str, table: str | None, occurrence: int = 0) -> None:
        self.r = reader
        self.label = label
        self.table = table
        self.occurrence = occurrence
        line = None if table is None else reader.where.table(table, occurrence)[1]
        if not isinstance(values, dict):
            raise reader.error(f"{label}: expected a table of keys, got {type(values).__name__}", line)
        self.values = values
        self.line = line

    def fail(self, key: str, message: str) -> InputError:
        return self.r.where.error(f"{self.label} {key}: {message}", self.r.src, key, self.table, self.occurrence)

    def check_keys(self, allowed: tuple[str, ...]) -> None:
        for key in self.values:
            if key not in allowed:
                raise self.fail(key, f"unknown key; expected one of {', '.join(allowed)}")

    def has(self, key: str) -> bool:
        return key in self.values

    def require(self, key: str) -> Any:
        if key not in self.values:
            raise self.r.error(f"{self.label}: expected the key {key!r}, got none", self.line)
        return self.values[key]

    def string(self, key: str, default: str | None = None, *, required: bool = False) -> str | None:
        if required:
            self.require(key)
        if key not in self.values:
            return default
        value = self.values[key]
        if not isinstance(value, str) or not value.strip():
            raise self.fail(key, f"expected a non-empty string, got {value!r}")
        return value

    def boolean(self, key: str, default: bool) -> bool:
        value = self.values.get(key, default)
        if not isinstance(value, bool):
            raise self.fail(key, f"expected true or false, got {value!r}")
        return value

    def number(self, key: str, *, positive: bool = False, required: bool = False, default: float | None = None) -> float | None:
        if required:
            self.require(key)
        if key not in self.values:
            return default
        value = self.values[key]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not _finite(value):
            raise self.fail(key, f"expected a finite number, got {_short(value)}")
        if positive and value <= 0:
            raise self.fail(key, f"expected a number > 0, got {value!r}")
        return float(value)

    def numbers(self, key: str, count: int, *, positive: bool = False, within: tuple[float, float] | None = None,
                default: tuple[float, ...] | None = None) -> FloatArray:
        if key not in self.values:
            if default is None:
                self.require(key)
            return np.array(default, dtype=float)
        value = self.values[key]
        ok = (isinstance(value, list) and len(value) == count
              and all(not isinstance(v, bool) and isinstance(v, (int, float)) and _finite(v) for v in value))
        if not ok:
            raise self.fail(key, f"expected a list of {count} finite numbers, got {_short(value)}")
        arr = np.array(value, dtype=float)
        if positive and np.any(arr <= 0):
            raise self.fail(key, f"expected {count} numbers > 0, got {value!r}")
        if within is not None and np.any((arr < within[0]) | (arr > within[1])):
            raise self.fail(key, f"expected {count} numbers in [{within[0]:g}, {within[1]:g}], got {value!r}")
        return arr

    def pose(self, xyz_key: str = "xyz_mm", euler_key: str = "euler_xyz_deg") -> FloatArray:
        """``T`` ``(4, 4)`` [m] from ``xyz_mm`` and CoppeliaSim ``euler_xyz_deg`` (both optional, zero)."""
        xyz = self.numbers(xyz_key, 3, default=(0.0, 0.0, 0.0)) / 1000.0
        euler = np.radians(self.numbers(euler_key, 3, default=(0.0, 0.0, 0.0)))
        return transform(matrix_from_euler_xyz(euler), xyz)

    def file(self, key: str, *, required: bool = False) -> Path | None:
        text = self.string(key, required=required)
        if text is None:
            return None
        path = self.r.resolve(text)
        if not is_file(path):
            raise self.fail(key, f"expected an existing file, got {text!r} (resolved to {path})")
        return path

    def mesh_unit(self, key: str = "mesh_unit", default: str | None = None) -> float:
        unit = self.string(key, default)
        if unit is None:
            raise self.r.error(
                f"{self.label}: expected the key {key!r} (\"m\" or \"mm\"): mesh files carry no unit and "
                "thermocomp does not guess one", self.line)
        try:
            return metres_per_unit_from_name(unit)
        except InputError:  # the same refusal, located at the key
            raise self.fail(key, f"expected one of {', '.join(repr(u) for u in UNITS)}, got {unit!r}") from None


def _format_version(reader: _Reader, key: str, versions: tuple[int, ...], kind: str) -> None:
    value = reader.doc.get(key)
    if value is None:
        raise reader.error(
            f"expected a top-level key {key} = {versions[-1]} (the {kind} format version), got none; "
            "is this a thermocomp " + kind + " file?", None)
    if isinstance(value, bool) or value not in versions:
        raise reader.where.error(f"{key}: expected a format version in {list(versions)}, got {value!r}", reader.src, key)


def _check_mesh_suffix(table: _Table, key: str, path: Path | None) -> Path | None:
    """``path`` if its suffix is one of :data:`SCENE_MESH_SUFFIXES`, else a located error naming it."""
    if path is not None and path.suffix.lower() not in SCENE_MESH_SUFFIXES:
        raise table.fail(key, f"expected a mesh file PyBullet loads ({', '.join(SCENE_MESH_SUFFIXES)}), "
                              f"got {path.name!r} ({path})")
    return path


# --- mesh maps --------------------------------------------------------------------------------

_MESH_MAP_KEYS = ("thermocomp_meshes", "robot", "dir", "mesh_unit", "links")
_LINK_KEYS = ("visual", "collision", "mesh_unit", "xyz_mm", "euler_xyz_deg")


def _finite(value: int | float) -> bool:
    """Whether a TOML number is a finite double (a 400-digit integer is not: ``float`` overflows)."""
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def _short(value: object) -> str:
    """``repr(value)``, cut to 80 characters for a message."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def read_mesh_map(path: PathLike) -> MeshMap:
    """Read a mesh map: which mesh files shape which robot links (docs/scenes.md).

    Form::

        thermocomp_meshes = 1
        robot = "gofa"                  # optional label
        dir = "path/to/meshes"          # optional: folder the file names are relative to
        mesh_unit = "m"                 # "m" or "mm", for every link unless a link says otherwise
        [links.link1]
        visual = "visual/link_1.stl"    # optional
        collision = "collision/link_1.stl"  # optional
        xyz_mm = [0, 85, 0]             # optional: mesh frame origin in the link frame
        euler_xyz_deg = [0, 0, 0]       # optional: mesh frame orientation, R = Rx Ry Rz

    Returns
    -------
    MeshMap
        Paths resolved and checked to exist; poses ``(4, 4)`` in metres.

    Raises
    ------
    InputError
        Naming the file and line: not TOML, a missing format version, an
        unknown key or link name, a missing unit, a missing mesh file.
    """
    reader = _Reader(path, "mesh map")
    _format_version(reader, "thermocomp_meshes", MESH_MAP_FORMAT_VERSIONS, "mesh map")
    top = _Table(reader, reader.doc, "mesh map", None)
    top.check_keys(_MESH_MAP_KEYS)
    robot = top.string("robot")
    base_dir = None
    if top.has("dir"):
        base_dir = reader.resolve(top.string("dir", required=True) or "")
        if not is_dir(base_dir):
            raise top.fail("dir", f"expected an existing folder, got {top.values['dir']!r} (resolved to {base_dir})")
    default_unit = top.string("mesh_unit")
    links_value = top.require("links")
    if not isinstance(links_value, dict) or not links_value:
        raise top.fail("links", "expected [links.<name>] tables (base, link1, ...), got none")
    links: dict[str, LinkMesh] = {}
    for name, value in links_value.items():
        table = _Table(reader, value, f"[links.{name}]", f"links.{name}")
        if not _LINK_NAME.match(name):
            raise reader.error(f"[links.{name}]: expected a link name base, link1, link2, ..., got {name!r}", table.line)
        table.check_keys(_LINK_KEYS)
        files = {}
        for key in ("visual", "collision"):
            text = table.string(key)
            if text is None:
                files[key] = None
                continue
            p = Path(text).expanduser()
            resolved = p if p.is_absolute() else ((base_dir / p) if base_dir is not None else reader.resolve(text))
            if not is_file(resolved):
                raise table.fail(key, f"expected an existing mesh file, got {text!r} (resolved to {resolved})")
            _check_mesh_suffix(table, key, resolved)
            files[key] = resolved
        if files["visual"] is None and files["collision"] is None:
            raise reader.error(f"[links.{name}]: expected a visual or a collision mesh, got neither", table.line)
        scale = table.mesh_unit("mesh_unit", default_unit)
        links[name] = LinkMesh(link=name, visual=files["visual"], collision=files["collision"],
                               T_link_mesh=table.pose(), scale=scale)
    return MeshMap(links=links, robot=robot, source=reader.src)


# --- scenes -------------------------------------------------------------------------------------

_SCENE_KEYS = ("thermocomp_scene", "name", "description", "robot", "object")
_ROBOT_KEYS = ("model", "base_xyz_mm", "base_euler_xyz_deg", "mount", "meshes")
_OBJECT_KEYS = ("name", "role", "shape", "xyz_mm", "euler_xyz_deg", "size_mm", "radius_mm", "length_mm",
                "file", "mesh_unit", "rgba", "collide")


def _scene_object(reader: _Reader, value: Any, k: int) -> SceneObject:
    label = f"[[object]] {k + 1}"
    table = _Table(reader, value, label, "object", k)
    name = table.string("name", required=True)
    assert name is not None
    if not OBJECT_NAME.match(name):
        raise table.fail("name", f"expected letters, digits, '_' or '-' only (it names a simulator object), "
                                 f"got {name!r}")
    table.label = f"[[object]] {name!r}"
    table.check_keys(_OBJECT_KEYS)
    role = table.string("role", required=True)
    if role not in ROLES:
        raise table.fail("role", f"expected one of {', '.join(ROLES)}, got {role!r}")
    shape = table.string("shape", required=True)
    if shape not in SHAPES:
        raise table.fail("shape", f"expected one of {', '.join(SHAPES)}, got {shape!r}")
    for other, needs in SHAPES.items():
        for key in needs:
            if other != shape and key in table.values and key not in SHAPES[shape]:
                raise table.fail(key, f"does not apply to shape {shape!r} (it needs {', '.join(SHAPES[shape])})")
    kwargs: dict[str, Any] = {}
    if shape == "box":
        kwargs["size"] = table.numbers("size_mm", 3, positive=True) / 1000.0
    if shape in ("cylinder", "sphere"):
        kwargs["radius"] = float(table.number("radius_mm", positive=True, required=True)) / 1000.0
    if shape == "cylinder":
        kwargs["length"] = float(table.number("length_mm", positive=True, required=True)) / 1000.0
    if shape == "mesh":
        kwargs["mesh_file"] = _check_mesh_suffix(table, "file", table.file("file", required=True))
        kwargs["mesh_scale"] = table.mesh_unit()
    rgba = tuple(float(v) for v in table.numbers("rgba", 4, within=(0.0, 1.0), default=ROLE_RGBA[role]))
    return SceneObject(
        name=name, role=role, shape=shape, T_world_object=table.pose(), rgba=rgba,  # type: ignore[arg-type]
        collide=table.boolean("collide", True), line=table.line, **kwargs,
    )


def read_scene(path: PathLike) -> Scene:
    """Read a scene file (docs/scenes.md).

    Form::

        thermocomp_scene = 1
        name = "irb140_paper_cell"
        description = "..."

        [robot]
        model = "irb140"              # optional: built-in name or robot file (relative to this file)
        base_xyz_mm = [0, 0, 0]       # optional: robot placement in the cell's world frame
        base_euler_xyz_deg = [0, 0, 0]
        mount = "table"               # optional: the object the robot stands on
        meshes = "my_robot_cad.toml"  # optional: a mesh map (read_mesh_map)

        [[object]]
        name = "table"                # letters, digits, _ and -, unique
        role = "table"                # table, print_bed, workpiece, fixture, obstacle
        shape = "box"                 # box (size_mm), cylinder (radius_mm, length_mm along z),
        size_mm = [1400, 1200, 40]    # sphere (radius_mm), mesh (file, mesh_unit)
        xyz_mm = [300, 50, -20]       # centre (box, cylinder, sphere) or mesh frame, world frame
        euler_xyz_deg = [0, 0, 0]     # CoppeliaSim Euler, R = Rx Ry Rz
        rgba = [0.6, 0.5, 0.4, 1]     # optional: default by role
        collide = true                # optional

    Returns
    -------
    Scene
        SI units, poses ``(4, 4)`` in the world frame, files resolved.

    Raises
    ------
    InputError
        Naming the file and the line of the offending key (or its table):
        not TOML, a missing or unknown format version, an unknown key, a
        missing or ill-typed value, a size that is not positive, an object
        name with other characters than letters, digits, ``_`` and ``-``, a
        duplicate object name, a mount that is not an object, a missing file.
    """
    reader = _Reader(path, "scene")
    _format_version(reader, "thermocomp_scene", SCENE_FORMAT_VERSIONS, "scene")
    top = _Table(reader, reader.doc, "scene", None)
    top.check_keys(_SCENE_KEYS)
    name = top.string("name", default=reader.path.stem) or reader.path.stem
    description = top.string("description", default="") or ""

    objects_value = reader.doc.get("object", [])
    if not isinstance(objects_value, list):
        raise top.fail("object", "expected [[object]] tables, got a single value")
    objects = tuple(_scene_object(reader, value, k) for k, value in enumerate(objects_value))
    first: dict[str, SceneObject] = {}
    for obj in objects:
        if obj.name in first:
            raise reader.error(f"[[object]] {obj.name!r}: the name is taken by the object on line {first[obj.name].line}",
                               obj.line)
        first[obj.name] = obj

    robot = RobotPlacement()
    if "robot" in reader.doc:
        table = _Table(reader, reader.doc["robot"], "[robot]", "robot")
        table.check_keys(_ROBOT_KEYS)
        model = table.string("model")
        if model is not None and not is_builtin(model):
            resolved = reader.resolve(model)
            if not is_file(resolved):
                raise table.fail("model", f"expected a built-in robot ({', '.join(BUILTIN_NAMES)}) or an existing "
                                          f"robot file, got {model!r} (resolved to {resolved})")
            model = str(resolved)
        mount = table.string("mount")
        if mount is not None and mount not in first:
            raise table.fail("mount", f"expected the name of an object of the scene ({', '.join(first) or 'none'}), "
                                      f"got {mount!r}")
        meshes = None
        mesh_file = table.file("meshes")
        if mesh_file is not None:
            meshes = read_mesh_map(mesh_file)
        robot = RobotPlacement(model=model, T_world_robot=table.pose("base_xyz_mm", "base_euler_xyz_deg"),
                               mount=mount, meshes=meshes)
    return Scene(name=name, robot=robot, objects=objects, description=description, source=reader.src)


__all__ = [
    "BUILTIN_SCENES",
    "EMPTY_SCENE",
    "MESH_UNITS",
    "OBJECT_NAME",
    "ROLES",
    "ROLE_RGBA",
    "SCENE_MESH_SUFFIXES",
    "SHAPES",
    "LinkMesh",
    "MeshMap",
    "RobotPlacement",
    "Scene",
    "SceneObject",
    "builtin_scene",
    "read_mesh_map",
    "read_scene",
    "scenes_dir",
]
