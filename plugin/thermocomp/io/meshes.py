"""Mesh files: reading STL, OBJ and COLLADA (DAE) with trimesh, writing binary STL, and finding a robot's meshes.

Readers return plain validated data (:class:`MeshData`, :class:`MeshRef`);
the mass properties are computed elsewhere (:mod:`thermocomp.inertia`).

Units are never guessed. STL and OBJ carry no unit, so every reader takes
``metres_per_unit`` (``1.0`` for metres, ``0.001`` for millimetres:
:func:`metres_per_unit_from_name`). A COLLADA file states its unit
(``<asset><unit meter="..."/>``, default 1 m) and its up axis; the unit must
agree with the one given and the up axis must be ``Z_UP`` (trimesh ignores
both, so a disagreement would silently scale or turn the mesh). A URDF's
``<mesh scale="s s s"/>`` is its statement of the unit (URDF default 1: metres).

Where a robot's meshes come from, and the frame each is in (every mesh ends
up placed in a link frame of docs/conventions.md by ``T_link_mesh``, the pose
of the mesh file's frame in the link frame):

* a folder of files named after the links: ``base.stl``, ``link1.stl`` ..
  (or ``.obj``, ``.dae``), already in the link frames (:func:`mesh_refs_from_folder`);
* a mesh map, a CSV naming each link's file(s) in a folder and their pose
  (:func:`read_mesh_map`);
* a URDF whose links carry ``<visual>`` or ``<collision>`` meshes
  (:func:`read_urdf_meshes`; the mapping of URDF link frames onto the
  robot's link frames is done by :mod:`thermocomp.inertia.robot`).

Optional dependency: COLLADA needs ``pycollada`` (``pip install pycollada``),
imported only when a ``.dae`` file is read.
"""

from __future__ import annotations

import itertools
import math
import re
import stat
import struct
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlparse

import numpy as np

from thermocomp._typing import ArrayLike, FloatArray, PathLike
from thermocomp.errors import InputError
from thermocomp.geometry.checks import check_array, check_transform
from thermocomp.geometry.rotations import invert_transform, matrix_from_euler_xyz, transform
from thermocomp.io.atomic import atomic_write_bytes
from thermocomp.io.csvtext import check_header, header_and_rows, parse_float
from thermocomp.io.files import MAX_DESCRIPTION_BYTES, is_file, read_input_bytes
from thermocomp.io.job import file_kind
from thermocomp.io.urdf import Urdf, origin_transform, parse_urdf, urdf_chain, urdf_chain_ends
from thermocomp.io.xml_values import line_of
from thermocomp.robot.chain import MAX_LENGTH, Chain

#: Mesh units by name: metres per mesh unit.
UNITS: dict[str, float] = {"m": 1.0, "mm": 1e-3}
#: File types read by :func:`read_mesh`.
MESH_SUFFIXES = (".stl", ".obj", ".dae")
#: The largest mesh file read [bytes]. A robot link's CAD export is a few MB (the GoFa's ROS-Industrial
#: meshes: at most 3 MB); a 4 GB mesh ran out of memory in trimesh (issue 28).
MAX_MESH_BYTES = 512 * 2**20
#: Columns of a mesh map (:func:`read_mesh_map`).
MESH_MAP_COLUMNS = ["link", "mesh", "x_mm", "y_mm", "z_mm", "rx_deg", "ry_deg", "rz_deg"]
#: Relative agreement required between a COLLADA file's declared unit (or a
#: URDF mesh scale) and the unit given: both are typed decimal numbers
#: (``0.001``), so they agree to round-off or not at all.
UNIT_MATCH_RTOL = 1e-9
#: The smallest extent a mesh may span [m] (its bounding box's largest side): a micrometre is below any robot link,
#: tool or cell part; a unit given wrong by many orders of magnitude (a scale of 1e-30) made links of no volume whose
#: masses and inertias were round-off. (A unit wrong by 1000 is the inertia report's implausible-density warning.)
MIN_EXTENT = 1e-6


def metres_per_unit_from_name(units: str) -> float:
    """Metres per mesh unit from a unit name (:data:`UNITS`: ``"m"``, ``"mm"``)."""
    try:
        return UNITS[units]
    except KeyError:
        raise InputError(f"mesh units: expected one of {', '.join(UNITS)}, got {units!r}") from None


def _check_scale(metres_per_unit: float, what: str) -> float:
    x = float(metres_per_unit)
    if not (math.isfinite(x) and x > 0):
        raise InputError(f"{what}: expected metres per mesh unit > 0, got {metres_per_unit!r}")
    return x


@dataclass(frozen=True, eq=False)
class MeshData:
    """A triangle mesh read from a file, in metres, in the file's own frame.

    Attributes
    ----------
    vertices
        ``(n, 3)`` [m]: file coordinates times ``metres_per_unit``.
    faces
        ``(m, 3)`` vertex indices (int64); corners are as in the file
        (identical vertices are merged by the inertia core, not here).
    path
        The file read.
    metres_per_unit
        The scale that was applied.
    """

    vertices: FloatArray
    faces: np.ndarray
    path: str
    metres_per_unit: float


def _dae_asset(path: Path) -> tuple[float, str]:
    """``(metres per unit, up axis)`` declared by a COLLADA file (defaults 1.0, ``Y_UP`` per the spec)."""
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as exc:
        raise InputError(f"expected COLLADA XML, got: {exc}", path=str(path)) from exc
    meter, up = 1.0, "Y_UP"  # COLLADA 1.4 defaults
    asset = next((e for e in root if e.tag.split("}")[-1] == "asset"), None)
    if asset is not None:
        for e in asset:
            tag = e.tag.split("}")[-1]
            if tag == "unit" and e.get("meter") is not None:
                try:
                    meter = float(e.get("meter", ""))
                except ValueError:
                    raise InputError(f"<unit meter>: expected a number, got {e.get('meter')!r}", path=str(path)) from None
                if not (math.isfinite(meter) and meter > 0):  # (nan or inf passed the check against the given unit)
                    raise InputError(f"<unit meter>: expected a finite number > 0 (metres per unit), got "
                                     f"{e.get('meter')!r}", path=str(path))
            elif tag == "up_axis" and e.text:
                up = e.text.strip()
    _check_float_arrays(root, path)
    return meter, up


_FLOAT_ARRAY = re.compile(rb"<(?:[\w.-]+:)?float_array\b")


def _check_float_arrays(root: ET.Element, path: Path) -> None:
    """Every ``<float_array>`` (a COLLADA file's vertex coordinates, normals ...) holds finite numbers: pycollada
    read ``nan`` and ``inf`` as 0, a mesh silently other than the file's. Errors name the element's line."""
    for k, element in enumerate(e for e in root.iter() if isinstance(e.tag, str) and e.tag.split("}")[-1] == "float_array"):
        words = (element.text or "").split()
        try:
            values = np.array(words, dtype=float)
            bad = next((w for w, v in zip(words, values) if not math.isfinite(v)), None)
        except ValueError:
            bad = next(w for w in words if not _is_float(w))
        if bad is not None:
            found = list(itertools.islice(_FLOAT_ARRAY.finditer(path.read_bytes()), k + 1))
            line = found[k].string.count(b"\n", 0, found[k].start()) + 1 if len(found) > k else None
            raise InputError(f"<float_array id={element.get('id')!r}>: expected finite numbers, got {bad[:40]!r}",
                             path=str(path), row=line)


def _is_float(word: str) -> bool:
    try:
        float(word)
    except ValueError:
        return False
    return True


def _check_stl(path: Path) -> None:
    """An STL is binary (80-byte header, count, 50 bytes per triangle) or ASCII text starting with ``solid``."""
    size = path.stat().st_size
    with path.open("rb") as handle:
        head = handle.read(4096)
    if size >= 84 and size == 84 + 50 * struct.unpack("<I", head[80:84])[0]:
        return
    # The name after 'solid' is free text (a CAD tool may write 'solid café' in Latin-1): test the bytes.
    if not head.lstrip().lower().startswith(b"solid"):
        raise InputError(f"expected a binary STL (84 + 50 bytes per triangle) or an ASCII STL ('solid ...'), "
                         f"got {size} bytes that are neither", path=str(path))
    if size >= 84 and b"\0" in head:  # a binary STL whose header begins 'solid' (CAD tools write it), cut short
        count = struct.unpack("<I", head[80:84])[0]
        raise InputError(f"a binary STL (its header begins 'solid', but ASCII text has no NUL byte) whose count says "
                         f"{count:,} triangles ({84 + 50 * count:,} bytes), got {size:,} bytes: the file is cut short "
                         "or its count is wrong", path=str(path))


#: A face (``f``) of an OBJ with a vertex index 0: OBJ counts vertices from 1 (or from the end, negative), and trimesh
#: took 0 for the last vertex, a mesh silently other than the file's.
_OBJ_FACE_ZERO = re.compile(rb"^[ \t]*f[ \t][^\n#]*?(?<![^ \t])0(?=[/ \t\r\n]|$)", re.M)


#: Most vertices of one OBJ face (``f``). trimesh triangulates a polygon as a fan, a triangle a vertex (right only
#: for a convex one): a line of a million indices (2 MB) was a million triangles and 82 s of work before the
#: mesh's message. CAD exports write triangles, or polygons of tens of vertices (a cylinder's cap).
MAX_OBJ_FACE_VERTICES = 4096
_OBJ_WORD = re.compile(rb"[^ \t\r]+")


def _check_obj(path: Path) -> None:
    data = path.read_bytes()
    found = _OBJ_FACE_ZERO.search(data)
    if found is not None:
        raise InputError("expected face vertex indices from 1 (OBJ counts from 1), got 0", path=str(path),
                         row=found.string.count(b"\n", 0, found.start()) + 1)
    ends = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 0x0A)
    starts, stops = np.concatenate([[0], ends + 1]), np.concatenate([ends, [len(data)]])
    for k in np.flatnonzero(stops - starts > 2 * MAX_OBJ_FACE_VERTICES).tolist():  # (a vertex: 2 bytes at least)
        words = list(itertools.islice(_OBJ_WORD.finditer(data, int(starts[k]), int(stops[k])),
                                      MAX_OBJ_FACE_VERTICES + 2))
        if words and words[0].group() == b"f" and len(words) == MAX_OBJ_FACE_VERTICES + 2:
            raise InputError(f"expected a face of at most {MAX_OBJ_FACE_VERTICES:,} vertices (a CAD export writes "
                             f"triangles, or polygons of tens of vertices), got more", path=str(path), row=k + 1,
                             column=words[-1].start() - int(starts[k]) + 1)


def _check_obj_indices(path: Path) -> None:
    """An :class:`InputError` at the first OBJ face vertex index beyond the file's vertices (either way: negative
    indices count from the end), its line and column; trimesh's IndexError named neither. Run only when trimesh
    failed so: a Python pass over every face."""
    data = path.read_bytes()
    vertices = len(re.findall(rb"^[ \t]*v[ \t]", data, re.M))
    for face in re.finditer(rb"^([ \t]*f[ \t])([^\n#]*)", data, re.M):
        for word in _OBJ_WORD.finditer(face.group(2)):
            index = word.group().split(b"/")[0]
            if index.lstrip(b"-").isdigit() and not 1 <= abs(int(index)) <= vertices:
                raise InputError(f"expected face vertex indices within the file's {vertices:,} vertices, got "
                                 f"{index.decode()}", path=str(path), row=data.count(b"\n", 0, face.start()) + 1,
                                 column=face.end(1) - face.start() + word.start() + 1)


def check_mesh_file(path: Path) -> None:
    """A mesh file is a regular file of at most :data:`MAX_MESH_BYTES` (an :class:`InputError` naming it)."""
    try:
        st = path.stat()
    except FileNotFoundError:
        raise InputError("mesh file not found", path=str(path)) from None
    except OSError as exc:
        raise InputError(f"cannot read the mesh: {exc.strerror}", path=str(path)) from exc
    if not stat.S_ISREG(st.st_mode):
        raise InputError(f"expected a mesh file, got {file_kind(st.st_mode)}", path=str(path))
    if st.st_size > MAX_MESH_BYTES:
        raise InputError(f"expected a mesh file of at most {MAX_MESH_BYTES // 2**20} MiB, got {st.st_size:,} bytes (a "
                         "robot link needs far fewer triangles: decimate the mesh)", path=str(path))


def read_mesh(path: PathLike, metres_per_unit: float) -> MeshData:
    """Read a triangle mesh (STL, OBJ or COLLADA) and scale it to metres.

    Parameters
    ----------
    path
        ``.stl`` (binary or ASCII), ``.obj`` or ``.dae`` file. Several bodies
        in one file are concatenated (COLLADA node transforms applied).
    metres_per_unit
        Metres per file unit (``1.0``, ``0.001``, ...), given, never guessed.

    Raises
    ------
    InputError
        Naming the file: missing, not a regular file, larger than
        :data:`MAX_MESH_BYTES`, unsupported type, unreadable, no
        triangles, a vertex coordinate not finite or beyond ``MAX_LENGTH`` (1 km), a mesh
        spanning less than :data:`MIN_EXTENT` (1 um),
        a COLLADA unit that disagrees with ``metres_per_unit`` or an up axis
        other than ``Z_UP``, or ``pycollada`` missing for ``.dae``.
    """
    p = Path(path)
    src = str(p)
    scale = _check_scale(metres_per_unit, src)
    suffix = p.suffix.lower()
    if suffix not in MESH_SUFFIXES:
        raise InputError(f"expected a mesh file ({', '.join(MESH_SUFFIXES)}), got {suffix or 'no suffix'!r}", path=src)
    check_mesh_file(p)
    if suffix == ".stl":
        _check_stl(p)
    if suffix == ".obj":
        _check_obj(p)
    if suffix == ".dae":
        try:
            import collada  # noqa: F401  (trimesh's COLLADA loader needs it)
        except ModuleNotFoundError:
            raise InputError("reading COLLADA (.dae) needs pycollada: pip install pycollada "
                             "(or convert the mesh to STL or OBJ)", path=src) from None
        declared, up = _dae_asset(p)
        if abs(declared - scale) > UNIT_MATCH_RTOL * max(declared, scale):
            raise InputError(f"the file declares {declared:g} m per unit (<unit meter>), but {scale:g} m per unit "
                             "was given; give the file's unit", path=src)
        if up != "Z_UP":
            raise InputError(f"expected <up_axis> Z_UP (as ROS and URDF tools read meshes), got {up}; "
                             "re-export the mesh with Z up", path=src)
    import trimesh

    try:
        mesh = trimesh.load_mesh(str(p), process=False, resolver=_NoFiles())
    except (ValueError, KeyError, IndexError, struct.error, OSError, NotImplementedError) as exc:
        if suffix == ".obj" and isinstance(exc, IndexError):
            _check_obj_indices(p)
        raise InputError(f"cannot read the mesh: {exc}", path=src) from exc
    except AttributeError:  # (trimesh's COLLADA loader on a file of no <scene>)
        raise InputError("cannot read the mesh: expected a COLLADA <scene> of geometry, got none", path=src) from None
    except MemoryError:
        raise InputError(f"cannot read the mesh: it needs more memory than this machine has "
                         f"({p.stat().st_size / 2**20:.0f} MiB of file)", path=src) from None
    if isinstance(mesh, trimesh.Scene):
        mesh = mesh.to_geometry()
    faces = np.asarray(getattr(mesh, "faces", np.empty((0, 3))), dtype=np.int64)
    if faces.ndim != 2 or len(faces) == 0:
        raise InputError("expected triangles, got none", path=src)
    vertices = np.asarray(mesh.vertices, dtype=float) * scale
    if not np.all(np.isfinite(vertices)):
        raise InputError("expected finite vertex coordinates, got NaN or infinity", path=src)
    if not np.all(np.abs(vertices) <= MAX_LENGTH):  # (1e200 overflowed in the mass properties, naming no file)
        raise InputError(f"expected vertex coordinates of magnitude at most {MAX_LENGTH:g} m, got "
                         f"{np.abs(vertices).max():.3g} m", path=src)
    extent = float(np.ptp(vertices, axis=0).max())
    if extent < MIN_EXTENT:
        raise InputError(f"the mesh spans {extent:.3g} m at {scale:g} m per unit, less than {MIN_EXTENT:g} m: "
                         "check its unit (metres per mesh unit, a URDF's mesh scale)", path=src)
    return MeshData(vertices=vertices, faces=faces, path=src, metres_per_unit=scale)


class _NoFiles:
    """trimesh's resolver of the files a mesh names (an OBJ's ``mtllib``, a COLLADA image): none is read. Their
    materials are not geometry, and a stranger's mesh naming a FIFO or ``/dev/stdin`` waited for ever."""

    def get(self, name: str) -> bytes:
        raise OSError(f"a file a mesh names is not read: {name}")

    __getitem__ = get


def stl_bytes(vertices: ArrayLike, faces: ArrayLike, header: str = "") -> bytes:
    """Binary STL of a triangle mesh (float32 coordinates, outward normals from the corner order).

    Parameters
    ----------
    vertices
        ``(n, 3)`` in the unit the file should have (metres for thermocomp's meshes).
    faces
        ``(m, 3)`` vertex indices, counter-clockwise seen from outside.
    header
        Up to 80 ASCII characters (it must not start with ``solid``).
    """
    v = check_array(vertices, (None, 3), "STL vertices")
    f = np.asarray(faces, dtype=np.int64)
    text = header.encode("ascii")[:80]
    if text.lower().startswith(b"solid"):
        raise InputError("STL header: a binary STL header must not start with 'solid'")
    tri = v[f].astype(np.float32)
    n = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]).astype(np.float64)
    norm = np.linalg.norm(n, axis=1, keepdims=True)
    n = np.divide(n, norm, out=np.zeros_like(n), where=norm > 0)
    record = np.zeros(len(f), dtype=[("n", "<f4", 3), ("v", "<f4", (3, 3)), ("attr", "<u2")])
    record["n"] = n
    record["v"] = tri
    return text.ljust(80, b" ") + struct.pack("<I", len(f)) + record.tobytes()


def write_stl(path: PathLike, vertices: ArrayLike, faces: ArrayLike, header: str = "") -> None:
    """Write :func:`stl_bytes` to ``path`` atomically (:func:`thermocomp.io.atomic.atomic_write_bytes`)."""
    atomic_write_bytes(path, stl_bytes(vertices, faces, header))


# --- where a robot's meshes are ---------------------------------------------------------


@dataclass(frozen=True, eq=False)
class MeshRef:
    """One mesh file of a link and where it sits.

    Attributes
    ----------
    link
        The link it belongs to: ``base``, ``link1`` .. ``linkn`` (the link
        frames of docs/conventions.md), or a URDF link name before mapping.
    path
        The mesh file.
    T_link_mesh
        Pose of the mesh file's frame in the link frame, ``(4, 4)`` [m].
    metres_per_unit
        Metres per mesh-file unit.
    """

    link: str
    path: Path
    T_link_mesh: FloatArray
    metres_per_unit: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "T_link_mesh", check_transform(self.T_link_mesh, f"{self.path} T_link_mesh"))
        object.__setattr__(self, "metres_per_unit", _check_scale(self.metres_per_unit, str(self.path)))


def _check_folder(folder: PathLike) -> Path:
    d = Path(folder)
    if not d.is_dir():
        raise InputError("expected a folder of mesh files, got " + ("a file" if d.exists() else "nothing"), path=str(d))
    return d


def mesh_refs_from_folder(folder: PathLike, link_names: Sequence[str], metres_per_unit: float) -> list[MeshRef]:
    """One mesh per link from files named after the links (``base.stl``, ``link1.stl`` ...), in the link frames.

    Raises
    ------
    InputError
        Naming the folder: a link without a file (listing the names
        expected), or a link with files of several types.
    """
    d = _check_folder(folder)
    refs = []
    missing = []
    for link in link_names:
        found = [d / f"{link}{s}" for s in MESH_SUFFIXES if is_file(d / f"{link}{s}")]
        found += [q for q in d.glob(f"{link}.*") if q.suffix.lower() in MESH_SUFFIXES and q not in found]
        if not found:
            missing.append(link)
        elif len(found) > 1:
            raise InputError(f"link {link!r}: expected one mesh file, got {sorted(q.name for q in found)}", path=str(d))
        else:
            refs.append(MeshRef(link, found[0], np.eye(4), metres_per_unit))
    if missing:
        raise InputError(
            f"expected a mesh file per link named <link>{'|'.join(MESH_SUFFIXES)}, got none for {', '.join(missing)} "
            f"(the folder has {sorted(q.name for q in d.iterdir() if q.suffix.lower() in MESH_SUFFIXES) or 'no mesh files'}); "
            "for other names give a mesh map",
            path=str(d),
        )
    return refs


def read_mesh_map(path: PathLike, folder: PathLike, link_names: Sequence[str], metres_per_unit: float) -> list[MeshRef]:
    """The meshes of a robot from a mesh map: which file belongs to which link, and its pose.

    A mesh map is a CSV (``#`` lines are comments, for provenance)::

        link,mesh,x_mm,y_mm,z_mm,rx_deg,ry_deg,rz_deg
        link1,link_1.stl,0,0,77.5,0,0,0

    One row per mesh file (a link may have several, a file appears once); ``mesh`` is relative to
    ``folder``; ``x..z`` [mm] and ``rx..rz`` [deg] give ``T_link_mesh``, the
    pose of the mesh file's frame in the link frame, rotation ``R = Rx @ Ry
    @ Rz`` (Euler xyz as in the robot tables, docs/conventions.md).

    Raises
    ------
    InputError
        Naming file, line and column: bad header or numbers, an unknown link,
        a missing mesh file, a file listed twice (it would be counted twice),
        or a link without any row.
    """
    src = str(path)
    d = _check_folder(folder)
    header_line, header, rest = header_and_rows(path, "expected a header and rows, got an empty file")
    body = list(rest)
    idx = check_header(header, MESH_MAP_COLUMNS, [], src, header_line)
    refs = []
    first_line: dict[tuple[int, int], tuple[int, str]] = {}  # each file's first row and link: a file is listed once
    for line, cells in body:
        if len(cells) != len(header):
            raise InputError(f"expected {len(header)} cells, got {len(cells)}", path=src, row=line)
        link = cells[idx["link"]].strip()
        if link not in link_names:
            raise InputError(f"expected a link among {', '.join(link_names)}, got {link!r}", path=src, row=line, column="link")
        mesh = d / cells[idx["mesh"]].strip()
        if not is_file(mesh):
            raise InputError(f"mesh file {str(mesh)!r} not found", path=src, row=line, column="mesh")
        found = mesh.stat()
        key = (found.st_dev, found.st_ino)  # (one file by any name: a link, a hard link)
        if key in first_line:
            earlier, earlier_link = first_line[key]
            raise InputError(f"mesh file {cells[idx['mesh']].strip()!r} is already listed on line {earlier} "
                             f"(link {earlier_link}); a file is one solid and is counted once (a part that occurs "
                             "twice needs a file per occurrence)", path=src, row=line, column="mesh")
        first_line[key] = (line, link)
        # / 1000 (not * 1e-3) gives the double nearest the typed millimetres
        xyz = [parse_float(cells[idx[c]], src, line, c) / 1000.0 for c in ("x_mm", "y_mm", "z_mm")]
        rpy = [math.radians(parse_float(cells[idx[c]], src, line, c)) for c in ("rx_deg", "ry_deg", "rz_deg")]
        refs.append(MeshRef(link, mesh, transform(matrix_from_euler_xyz(rpy), xyz), metres_per_unit))
    missing = [name for name in link_names if name not in {r.link for r in refs}]
    if missing:
        raise InputError(f"expected at least one mesh for every link, got none for {', '.join(missing)}", path=src)
    return refs


# --- meshes referenced by a URDF -----------------------------------------------------


@dataclass(frozen=True, eq=False)
class UrdfMesh:
    """A ``<visual>`` or ``<collision>`` mesh of a URDF link, with the link's pose at the zero pose.

    Attributes
    ----------
    urdf_link
        The URDF link carrying the mesh.
    body
        The rigid body of the chain it moves with: 0 for the base (links
        joined to the base link by fixed joints), ``i`` for the child of the
        chain's ``i``-th revolute joint and links fixed to it.
    T_base_link
        Pose of the URDF link frame in the URDF base link frame at the zero
        pose (all joint positions 0), ``(4, 4)`` [m].
    ref
        The mesh file, its pose ``T_link_mesh`` in the URDF link frame
        (``<origin>``), and its scale (metres per unit).
    """

    urdf_link: str
    body: int
    T_base_link: FloatArray
    ref: MeshRef


def _resolve(filename: str, urdf_dir: Path, package_dirs: Mapping[str, PathLike], what: str, src: str,
             row: int | None = None) -> Path:
    url = urlparse(filename)
    if url.scheme == "package":
        if url.netloc not in package_dirs:
            raise InputError(
                f"{what}: mesh {filename!r} is in ROS package {url.netloc!r}, whose folder was not given; "
                f"give it as package_dirs={{{url.netloc!r}: folder}} (command line: --package-path DIR, a folder "
                f"holding it, or ROS_PACKAGE_PATH; for inertia also --package {url.netloc}=FOLDER)",
                path=src, row=row,
            )
        return Path(package_dirs[url.netloc]) / unquote(url.path.lstrip("/"))
    if url.scheme == "file":
        return Path(unquote(url.path))
    if url.scheme and len(url.scheme) > 1:  # (a one-letter scheme is a Windows drive)
        raise InputError(f"{what}: expected a file path, file:// or package:// mesh, got {filename!r}", path=src,
                         row=row)
    p = Path(filename)
    return p if p.is_absolute() else urdf_dir / p


@dataclass(frozen=True, eq=False)
class UrdfMeshes:
    """The meshes of a URDF and the chain they hang on.

    Attributes
    ----------
    chain
        The URDF's serial chain in table form (:func:`thermocomp.io.urdf.read_urdf`
        from the base link to ``tip_link``), in the URDF base link's frame.
    meshes
        Every ``<visual>`` (or ``<collision>``) mesh of the links rigidly
        attached to the base or to a chain link.
    tip_link
        The tip link used.
    """

    chain: Chain
    meshes: tuple[UrdfMesh, ...]
    tip_link: str


def read_urdf_meshes(
    path: PathLike,
    kind: str = "visual",
    package_dirs: Mapping[str, PathLike] | None = None,
    tip_link: str | None = None,
    *,
    base_link: str | None = None,
    text: str | Urdf | None = None,
) -> UrdfMeshes:
    """The ``<visual>`` (or ``<collision>``) meshes of a URDF and where each sits at the zero pose.

    The chain runs from ``base_link`` to ``tip_link``, their defaults as
    :func:`thermocomp.io.urdf.urdf_chain` takes them. Every link
    rigidly attached to the base or to a chain link (through fixed joints)
    contributes its meshes to that body.

    Parameters
    ----------
    path
        URDF file (xacro expanded).
    kind
        ``"visual"`` or ``"collision"``.
    package_dirs
        Folder of each ROS package named in ``package://`` mesh URIs.
        Relative file names are relative to the URDF's folder.
    tip_link, base_link
        Ends of the chain (:func:`thermocomp.io.urdf.urdf_chain`).
    text
        The URDF document, when it is not ``path``'s content (a xacro
        file's expansion, :mod:`thermocomp.io.robot_files`), or it read
        (:attr:`~thermocomp.io.robot_files.RobotDescription.parsed`: not read
        again); ``path`` then only names it and places relative mesh file names.

    Raises
    ------
    InputError
        Naming the URDF (and link): a non-mesh geometry, a non-uniform or
        negative scale, a missing mesh file, an unresolved package, a mesh on
        a link that moves with a joint off the chain, an ambiguous tip.
    """
    if kind not in ("visual", "collision"):
        raise InputError(f"mesh kind: expected 'visual' or 'collision', got {kind!r}")
    src = str(path)
    urdf = parse_urdf(read_input_bytes(path, "URDF", MAX_DESCRIPTION_BYTES) if text is None else text, src)  # (the one reading)
    base_link, tip_link = urdf_chain_ends(urdf, src, base_link, tip_link)  # checks the tree, names the file
    package_dirs = {} if package_dirs is None else dict(package_dirs)
    joints = {j.child: (j.name, j.type, j.parent, j.T_parent_joint) for j in urdf.joints}

    def path_to_root(link: str) -> list[tuple[str, str, FloatArray]]:
        out = []
        while link in joints:
            name, kind_, parent, T = joints[link]
            out.append((name, kind_, T))
            link = parent
        return out[::-1]

    chain = urdf_chain(urdf, src, base_link, tip_link)
    T_root_base = np.eye(4)
    for _, _, T in path_to_root(base_link):
        T_root_base = T_root_base @ T
    T_base_root = invert_transform(T_root_base)

    out: list[UrdfMesh] = []
    urdf_dir = Path(path).resolve().parent
    for name, link in urdf.links.items():
        link_elem = link.element
        what = f"link {name!r}"
        elements = link_elem.findall(kind)
        if not elements:
            continue
        steps = path_to_root(name)
        movable = [j for j, k, _ in steps if k != "fixed"]
        if movable != list(chain.joint_names[: len(movable)]):
            on_chain = list(chain.joint_names) + [""] * len(movable)
            off = next(j for j, c in zip(movable, on_chain) if j != c)
            raise InputError(f"{what} has a {kind} mesh but moves with joint {off!r}, which is not on the chain "
                             f"{', '.join(chain.joint_names)}; remove it from the URDF", path=src,
                             row=line_of(link_elem))
        T_root_link = np.eye(4)
        for _, _, T in steps:
            T_root_link = T_root_link @ T
        for element in elements:
            geometry = element.find("geometry")
            mesh = None if geometry is None else geometry.find("mesh")
            if mesh is None or not mesh.get("filename"):
                shapes = [] if geometry is None else [c.tag for c in geometry if isinstance(c.tag, str)]
                shape = f"<{shapes[0]}>" if shapes else "nothing"
                raise InputError(f"{what}: expected <{kind}><geometry><mesh filename=...>, got {shape}; "
                                 "only meshes are supported", path=src, row=line_of(element))
            scale_text = mesh.get("scale", "1 1 1")
            try:
                scale = [float(s) for s in scale_text.split()]
            except ValueError:
                scale = []
            if len(scale) != 3 or not all(math.isfinite(s) and s > 0 for s in scale) or max(scale) != min(scale):
                raise InputError(f"{what}: expected a uniform positive mesh scale 's s s', got {scale_text!r}", path=src,
                                 row=line_of(mesh))
            file = _resolve(mesh.get("filename", ""), urdf_dir, package_dirs, what, src, line_of(mesh))
            if not is_file(file):  # (a name too long for the file system too, not an OSError naming no line)
                raise InputError(f"{what}: mesh file {str(file)!r} not found", path=src, row=line_of(mesh))
            ref = MeshRef(name, file, origin_transform(element.find("origin"), f"{what} <{kind}> <origin>", src),
                          scale[0])
            out.append(UrdfMesh(name, len(movable), T_base_root @ T_root_link, ref))
    return UrdfMeshes(chain, tuple(out), tip_link)


__all__ = [
    "MAX_MESH_BYTES",
    "check_mesh_file",
    "MESH_MAP_COLUMNS",
    "MESH_SUFFIXES",
    "UNITS",
    "MeshData",
    "MeshRef",
    "UrdfMesh",
    "UrdfMeshes",
    "mesh_refs_from_folder",
    "metres_per_unit_from_name",
    "read_mesh",
    "read_mesh_map",
    "read_urdf_meshes",
    "stl_bytes",
    "write_stl",
]
