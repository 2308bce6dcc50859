"""The shape of a robot's links in the simulator: meshes per URDF link.

Four sources, in the order :func:`robot_geometry` tries them:

1. a **mesh map** the user gives (their CAD, :func:`thermocomp.io.scene_file.read_mesh_map`);
2. the meshes of a ``.urdf`` / ``.xacro`` **robot file** (:func:`robot_file_geometry`, which
   :meth:`thermocomp.simulators.pybullet.cell.SimSetup.geometry` tries second: ``package://``
   resolved, COLLADA visuals converted to OBJ, collided as convex pieces);
3. the **built-in envelope meshes** shipped in ``robots/<name>/meshes/``
   (``base.stl``, ``link1.stl`` .. ``link<n>.stl``, metres, in the URDF link
   frames), used when every one of them is present;
4. **primitive envelopes** generated here from the chain itself: per link a
   cylinder from its joint to the next joint (or the TCP) with a sphere
   closing it at the far joint; the base a cylinder from the base origin to
   joint 1. They show the robot and make collision checks possible until
   real meshes exist; they are a stand-in, not the robot's shape.

Link frames are those of :func:`thermocomp.io.urdf.urdf_text`: ``base`` and
``link1`` .. ``linkn``, each the table form's joint frame (base-oriented at
the zero pose, origin on the joint axis; docs/conventions.md).

**Collision shapes.** PyBullet collides a moving link's mesh as its convex
hull. The built-in envelopes are unions of cylinders and boxes, so one hull
over-estimates some links by up to 1.5 times their volume (docs/pybullet.md).
For those and for the primitive stand-ins, :func:`robot_geometry` therefore
gives PyBullet a compound of convex pieces instead
(:func:`convex_slab_pieces`): the mesh is cut into :data:`COLLISION_SLABS`
slabs along the axis that fits best and each slab is replaced by its convex
hull, written as one object of an OBJ file, which PyBullet's URDF loader
turns into one convex child shape per object. Each slab lies inside its
hull, so the pieces still contain the whole mesh: a collision check stays
on the safe side, within 12 % of the mesh's volume instead of 51 %. A user's
mesh map is collided as given.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from thermocomp._typing import FloatArray, PathLike
from thermocomp.errors import InputError
from thermocomp.io.atomic import atomic_write_bytes
from thermocomp.io.scene_file import MeshMap
from thermocomp.io.urdf import LinkContent
from thermocomp.robot.chain import Chain

#: Radius of the primitive envelopes [m] before the per-link limits of
#: :func:`primitive_link_radii`: a 100 mm arm, the size of the IRB140's,
#: GoFa's and UR5's upper arms within a factor 1.5.
PRIMITIVE_RADIUS = 0.05
#: A primitive envelope's radius is at most this share of the distance
#: between the joints it bridges, so that links two apart (which are
#: checked against each other) keep a gap at the zero pose.
PRIMITIVE_RADIUS_SHARE = 0.3
#: Smallest primitive radius [m]: short segments (a wrist) stay visible.
PRIMITIVE_RADIUS_MIN = 0.015
#: Facets around a primitive cylinder or sphere.
PRIMITIVE_SECTIONS = 24
#: Slabs a built-in collision mesh is cut into, each collided as its convex
#: hull. Measured on the built-in envelopes (docs/pybullet.md): 4 slabs
#: leave the pieces at most 1.14 times the mesh volume, 8 at most 1.12, a
#: single hull up to 1.51; PyBullet's GJK on 8 small hulls costs no more
#: than on one larger one.
COLLISION_SLABS = 8


@dataclass(frozen=True, eq=False)
class RobotGeometry:
    """Meshes of a robot's links, ready for :func:`thermocomp.io.urdf.urdf_text`.

    Attributes
    ----------
    links
        Inertials and meshes by URDF link name (``base``, ``link1`` ..);
        the meshes are absolute paths.
    source
        What the meshes are, for messages and reports.
    mesh_map_file
        The mesh map the meshes were named in, or ``None``: where an error
        about one of them points (:func:`thermocomp.simulators.pybullet.robot.check_geometry`).
    touching
        Pairs of links that are not neighbours in the chain but touch by
        construction, so the self-collision check skips them as it skips
        neighbours: the primitive envelopes on both sides of a zero-length
        link (two joints at one point, as URDF chains often have) meet there.
    """

    links: Mapping[str, LinkContent]
    source: str
    mesh_map_file: str | None = None
    touching: frozenset[tuple[str, str]] = frozenset()


#: No meshes at all: the fastest reload, for measurements that need only kinematics.
NO_GEOMETRY = RobotGeometry(links={}, source="no meshes (kinematics only)")


def link_names(chain: Chain) -> list[str]:
    """URDF link names that carry a mesh: ``base``, ``link1`` .. ``linkn``."""
    return ["base"] + [f"link{i + 1}" for i in range(chain.n_joints)]


def builtin_mesh_dir(robot: str) -> Path | None:
    """``robots/<robot>/meshes`` of a built-in robot when it holds every link's mesh, else ``None``.

    The expected files are ``base.stl`` and ``link1.stl`` .. ``link6.stl``
    (all built-in robots have six joints), in metres and URDF link frames.
    """
    from thermocomp.io.robots import BUILTIN_ROBOTS, robot_dir

    if robot not in BUILTIN_ROBOTS:
        return None
    folder = robot_dir(robot) / "meshes"
    names = ["base"] + [f"link{i}" for i in range(1, 7)]
    if all((folder / f"{n}.stl").is_file() for n in names):
        return folder
    return None


def builtin_geometry(robot: str) -> RobotGeometry | None:
    """The built-in envelope meshes of ``robot`` (visual = collision), or ``None`` when absent.

    When the robot also ships its approximate inertials (``robots/<name>/inertia.csv``,
    :func:`thermocomp.inertia.builtin.builtin_link_contents`), the links carry
    them, so PyBullet simulates with them; kinematics is unaffected.
    """
    from thermocomp.io.robots import robot_dir

    folder = builtin_mesh_dir(robot)
    if folder is None:
        return None
    if (robot_dir(robot) / "inertia.csv").is_file():
        from thermocomp.inertia.builtin import builtin_link_contents

        return RobotGeometry(links=builtin_link_contents(robot, meshes=True),
                             source=f"built-in envelope meshes and approximate inertials ({folder.parent})")
    links = {}
    for name in ["base"] + [f"link{i}" for i in range(1, 7)]:
        path = str((folder / f"{name}.stl").resolve())
        links[name] = LinkContent(visual_mesh=path, collision_mesh=path)
    return RobotGeometry(links=links, source=f"built-in envelope meshes ({folder})")


def mesh_map_geometry(mesh_map: MeshMap, chain: Chain) -> RobotGeometry:
    """Link meshes from a user's mesh map; link names must exist on ``chain``."""
    known = set(link_names(chain))
    unknown = sorted(set(mesh_map.links) - known)
    if unknown:
        raise InputError(
            f"mesh map names links {', '.join(unknown)}; {chain.name} has {', '.join(link_names(chain))}",
            path=mesh_map.source,
        )
    links = {
        name: LinkContent(
            visual_mesh=None if m.visual is None else str(m.visual),
            collision_mesh=None if m.collision is None else str(m.collision),
            T_link_mesh=m.T_link_mesh,
            mesh_scale=m.scale,
        )
        for name, m in mesh_map.links.items()
    }
    return RobotGeometry(links=links, source=f"mesh map {mesh_map.source}", mesh_map_file=mesh_map.source)


def _segments(chain: Chain) -> list[FloatArray]:
    """Per link (``base``, ``link1`` ..), the vector from its frame origin to the next joint (or TCP) [m].

    At the zero pose every link frame is base-oriented, so the vector from
    joint ``i`` to joint ``i + 1`` in link ``i``'s frame is the table form's
    ``p[i + 1]``; the last link ends at the TCP, the base at joint 1.
    """
    return [chain.p[0]] + [chain.p[i] for i in range(1, chain.n_joints)] + [chain.T_last_tcp[:3, 3]]


def primitive_link_radii(chain: Chain, radius: float = PRIMITIVE_RADIUS) -> FloatArray:
    """Radius [m] of each primitive link envelope, ``(n + 1,)`` (base first).

    ``radius``, limited to :data:`PRIMITIVE_RADIUS_SHARE` of the link's own
    length and of its neighbours' (zero-length segments are skipped), and
    at least :data:`PRIMITIVE_RADIUS_MIN`.
    """
    lengths = np.array([np.linalg.norm(s) for s in _segments(chain)])
    radii = np.full(lengths.size, float(radius))
    for k in range(lengths.size):
        near = [lengths[j] for j in (k - 1, k, k + 1) if 0 <= j < lengths.size and lengths[j] > 0]
        if near:
            radii[k] = min(radii[k], PRIMITIVE_RADIUS_SHARE * min(near))
    return np.maximum(radii, PRIMITIVE_RADIUS_MIN)


def _cylinder_between(a: FloatArray, b: FloatArray, radius: float):
    import trimesh

    return trimesh.creation.cylinder(radius=radius, segment=np.array([a, b]), sections=PRIMITIVE_SECTIONS)


def _sphere_at(c: FloatArray, radius: float):
    import trimesh

    sphere = trimesh.creation.uv_sphere(radius=radius, count=[PRIMITIVE_SECTIONS // 2, PRIMITIVE_SECTIONS])
    sphere.apply_translation(c)
    return sphere


def primitive_geometry(chain: Chain, out_dir: PathLike, radius: float = PRIMITIVE_RADIUS) -> RobotGeometry:
    """Generate primitive envelope meshes of ``chain`` (STL, metres) into ``out_dir``.

    Link ``k``: a cylinder from its joint to the next joint (the TCP for the
    last link) closed by a sphere at the far end, radius from
    :func:`primitive_link_radii`; a zero-length link is a sphere at its
    joint. Base: a cylinder from the base origin to joint 1 (at least one
    radius high, along the base z axis when joint 1 sits at the origin).
    Files are named by a hash of the geometry, so a second call reuses them.

    Returns
    -------
    RobotGeometry
        Visual and collision mesh of every link (the same file).
    """
    import trimesh

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    radii = primitive_link_radii(chain, radius)
    segments = _segments(chain)
    links: dict[str, LinkContent] = {}
    for k, (name, seg, r) in enumerate(zip(link_names(chain), segments, radii)):
        origin = np.zeros(3)
        length = float(np.linalg.norm(seg))
        if k == 0:
            end = seg if length >= r else np.array([0.0, 0.0, max(length, float(r))])
            mesh = _cylinder_between(origin, end, 1.2 * r)
        elif length > 0:
            mesh = trimesh.util.concatenate([_cylinder_between(origin, seg, r), _sphere_at(seg, r)])
        else:
            mesh = _sphere_at(origin, r)
        digest = hashlib.sha1(np.ascontiguousarray(mesh.vertices).tobytes()).hexdigest()[:12]
        path = out / f"{chain.name}_{name}_{digest}.stl"
        if not path.is_file():  # written atomically: a file of this name is always complete
            atomic_write_bytes(path, mesh.export(file_type="stl"))
        links[name] = LinkContent(visual_mesh=str(path.resolve()), collision_mesh=str(path.resolve()))
    names = link_names(chain)
    touching = frozenset((names[k - 1], names[k + 1]) for k in range(1, len(names) - 1)
                         if float(np.linalg.norm(segments[k])) == 0.0)
    return RobotGeometry(links=links, source="primitive envelopes generated from the chain (a stand-in for meshes)",
                         touching=touching)


def convex_slab_pieces(vertices: FloatArray, edges: np.ndarray, slabs: int = COLLISION_SLABS):
    """Convex pieces that together contain a closed mesh: the hulls of its slabs along the best axis.

    For each of the x, y, z axes the mesh is cut by ``slabs - 1`` equally
    spaced planes; the part of the mesh in a slab is a polyhedron whose
    vertices are the mesh vertices in the slab and the points where mesh
    edges cross the slab's planes, so the hull of those points contains it.
    The axis whose hulls have the least total volume wins.

    Parameters
    ----------
    vertices
        Mesh vertices ``(v, 3)``, in the mesh's own unit and frame.
    edges
        Unique edges ``(e, 2)`` (vertex indices).
    slabs
        Number of slabs, >= 1 (1: the single convex hull).

    Returns
    -------
    list of trimesh.Trimesh
        Convex pieces in the mesh's frame; slabs without volume are left out
        (their points lie on a neighbour's boundary).
    """
    import trimesh
    from scipy.spatial import QhullError

    V = np.asarray(vertices, dtype=float)
    E = np.asarray(edges, dtype=np.int64)
    if slabs < 1:
        raise ValueError(f"slabs: expected >= 1, got {slabs}")
    best: tuple[float, list] | None = None
    for axis in range(3):
        t = V[:, axis]
        cuts = np.linspace(t.min(), t.max(), slabs + 1)
        ta, tb = t[E[:, 0]], t[E[:, 1]]
        crossings = []
        for c in cuts[1:-1]:
            m = (ta - c) * (tb - c) < 0
            share = ((c - ta[m]) / (tb[m] - ta[m]))[:, None]
            crossings.append(V[E[m, 0]] + share * (V[E[m, 1]] - V[E[m, 0]]))
        hulls = []
        for k in range(slabs):
            points = [V[(t >= cuts[k]) & (t <= cuts[k + 1])]]
            if k > 0:
                points.append(crossings[k - 1])
            if k < slabs - 1:
                points.append(crossings[k])
            P = np.vstack(points)
            if len(P) < 4:
                continue
            try:
                hull = trimesh.convex.convex_hull(P)
            except QhullError:  # flat: no volume, covered by its neighbours' faces
                continue
            if hull.volume > 0:
                hulls.append(hull)
        volume = float(sum(h.volume for h in hulls))
        if best is None or volume < best[0]:
            best = (volume, hulls)
    assert best is not None
    return best[1]


def obj_text_of_pieces(pieces) -> str:
    """Wavefront OBJ text with one object (``o piece<k>``) per mesh of ``pieces`` (PyBullet: one convex child each)."""
    lines, offset = [], 1
    for k, piece in enumerate(pieces):
        lines.append(f"o piece{k}")
        lines.extend(f"v {x!r} {y!r} {z!r}" for x, y, z in np.asarray(piece.vertices, dtype=float).tolist())
        lines.extend(f"f {a + offset} {b + offset} {c + offset}" for a, b, c in np.asarray(piece.faces).tolist())
        offset += len(piece.vertices)
    return "\n".join(lines) + "\n"


def convex_piece_geometry(geometry: RobotGeometry, cache_dir: PathLike, slabs: int = COLLISION_SLABS) -> RobotGeometry:
    """``geometry`` with each collision mesh replaced by an OBJ of its convex pieces (:func:`convex_slab_pieces`).

    Files go to ``cache_dir``, named by a hash of the mesh file and ``slabs``,
    so a second call reuses them. Visual meshes, scales and mesh poses are kept.
    """
    import dataclasses

    import trimesh

    from thermocomp.io.meshes import check_mesh_file, read_mesh

    out = Path(cache_dir)
    out.mkdir(parents=True, exist_ok=True)
    links = {}
    for name, content in geometry.links.items():
        source = content.collision_mesh
        if source is None:
            links[name] = content
            continue
        check_mesh_file(Path(source))  # a file of a type or size no reader takes is named before it is read
        data = Path(source).read_bytes()
        digest = hashlib.sha1(data + str(slabs).encode()).hexdigest()[:12]
        path = out / f"{Path(source).stem}_{digest}_convex{slabs}.obj"
        if not path.is_file():
            found = read_mesh(source, content.mesh_scale)
            mesh = trimesh.Trimesh(found.vertices / content.mesh_scale, found.faces)  # merged as trimesh.load does
            pieces = convex_slab_pieces(mesh.vertices, mesh.edges_unique, slabs)
            atomic_write_bytes(path, obj_text_of_pieces(pieces).encode("utf-8"))  # never a half file to reuse
        links[name] = dataclasses.replace(content, collision_mesh=str(path.resolve()))
    return RobotGeometry(links=links, source=geometry.source + f", collided as convex pieces ({slabs} slabs a link)")


def robot_geometry(chain: Chain, cache_dir: PathLike, *, robot: str | None = None,
                   mesh_map: MeshMap | None = None) -> RobotGeometry:
    """The link meshes to show and collide: a mesh map, else built-in envelopes, else primitives.

    Parameters
    ----------
    chain
        The robot.
    cache_dir
        Folder for generated primitive meshes.
    robot
        Built-in robot name, to find ``robots/<name>/meshes``.
    mesh_map
        The user's meshes; overrides the rest and is collided as given.

    The built-in envelopes and the primitives are collided as convex pieces
    (:func:`convex_piece_geometry`, module docstring).
    """
    if mesh_map is not None:
        return mesh_map_geometry(mesh_map, chain)
    if robot is not None:
        found = builtin_geometry(robot)
        if found is not None and chain.n_joints == 6:
            return convex_piece_geometry(found, cache_dir)
    return convex_piece_geometry(primitive_geometry(chain, cache_dir), cache_dir)


def robot_file_geometry(chain: Chain, path: PathLike, cache_dir: PathLike, robot_options=None) -> RobotGeometry | None:
    """The meshes a ``.urdf`` / ``.xacro`` robot file carries, or ``None`` when it carries none.

    Its ``<visual>`` and ``<collision>`` meshes (``package://`` URIs resolved,
    :mod:`thermocomp.io.robot_files`) placed in the link frames
    (:func:`thermocomp.inertia.robot.robot_file_link_meshes`). PyBullet's URDF
    loader does not read COLLADA reliably: a ``.dae`` visual is converted to
    OBJ with trimesh (pycollada) into ``cache_dir``, its colours dropped. The
    collision meshes are collided as convex pieces, like the built-in
    envelopes (:func:`convex_piece_geometry`).
    """
    import dataclasses

    from thermocomp.inertia.robot import robot_file_link_meshes

    found = robot_file_link_meshes(Path(path), chain, robot_options)
    if not found:
        return None
    out = Path(cache_dir)
    out.mkdir(parents=True, exist_ok=True)
    links = {}
    for name, content in found.items():
        visual = content.visual_mesh
        if visual is not None and Path(visual).suffix.lower() == ".dae":
            visual = str(_obj_of(Path(visual), content.mesh_scale, out))
        links[name] = dataclasses.replace(content, visual_mesh=visual)
    geometry = RobotGeometry(links=links, source=f"the robot file's own meshes ({Path(path).name})")
    return convex_piece_geometry(geometry, cache_dir)


def _obj_of(mesh: Path, metres_per_unit: float, out: Path) -> Path:
    """An OBJ copy of a mesh file in its own unit (:func:`thermocomp.io.meshes.read_mesh`: COLLADA through
    pycollada, its declared unit and up axis checked), named by a hash of its bytes."""
    import trimesh

    from thermocomp.io.meshes import read_mesh

    data = mesh.read_bytes()
    path = out / f"{mesh.stem}_{hashlib.sha1(data).hexdigest()[:12]}.obj"
    if not path.is_file():
        found = read_mesh(mesh, metres_per_unit)
        obj = trimesh.Trimesh(found.vertices / metres_per_unit, found.faces, process=False).export(file_type="obj")
        atomic_write_bytes(path, obj.encode("utf-8"))
    return path


__all__ = [
    "COLLISION_SLABS",
    "NO_GEOMETRY",
    "PRIMITIVE_RADIUS",
    "RobotGeometry",
    "builtin_geometry",
    "builtin_mesh_dir",
    "convex_piece_geometry",
    "convex_slab_pieces",
    "link_names",
    "mesh_map_geometry",
    "obj_text_of_pieces",
    "primitive_geometry",
    "primitive_link_radii",
    "robot_file_geometry",
    "robot_geometry",
]
