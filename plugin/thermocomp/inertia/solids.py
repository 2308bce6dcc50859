"""Volume, centre of mass and inertia of a triangulated solid (seed 000, Step 1).

The pure numerical core of the inertia pipeline: numpy arrays in, frozen
dataclasses out; no files, no printing. Units are SI (the caller scales mesh
units to metres before, see :mod:`thermocomp.io.meshes`); every quantity is
expressed in the frame of the vertices (the *mesh frame*) unless a function
says otherwise. docs/inertia.md describes the method; docs/conventions.md the
frame notation (``T_a_b`` is the pose of frame ``b`` in frame ``a``).

How the volume is obtained (:data:`Method`)
    ``"closed"``
        The surface is closed (every edge is shared by exactly two faces)
        and consistently oriented (the two faces traverse it in opposite
        directions): the divergence theorem gives the exact volume integrals
        of the polyhedron (trimesh's ``mass_properties``, after Eberly,
        "Polyhedral mass properties").
    ``"signed"``
        A stated fallback for open surfaces that are consistently oriented
        (CAD exports with cracks): the divergence theorem with the symmetric
        field ``(x - o) / 3``, i.e. the signed tetrahedra joining a reference
        point ``o`` to every face (:func:`cone_integrals`). On an open surface
        the result depends on ``o``: ``V(o) = V(0) - o . S / 3`` with ``S``
        the sum of the faces' area vectors (zero for a closed surface). ``o``
        is the vertex centroid, so the result does not depend on the file's
        frame, and :attr:`SolidProperties.volume_spread` reports ``|S| r / 3``:
        how far the volume moves when ``o`` moves anywhere within the distance
        ``r`` of the farthest vertex. (trimesh's own integrals use the
        one-component fields ``(x, 0, 0)``, ...: on an open surface they change
        when the mesh is merely rotated, so they are used for closed
        surfaces only.)
    ``"convex_hull"``
        A stated fallback for any surface: the convex hull of the vertices,
        a closed solid that contains the original (over-estimates volume).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from thermocomp._typing import ArrayLike, FloatArray
from thermocomp.errors import InputError
from thermocomp.geometry.checks import check_array, check_transform

#: How a solid's volume integrals were obtained; see the module docstring.
Method = Literal["closed", "signed", "convex_hull"]
#: The fallbacks a user may choose for a surface that is not closed.
Fallback = Literal["signed", "convex_hull"]
FALLBACKS: tuple[str, ...] = ("signed", "convex_hull")
#: The vertices of a ``"convex_hull"`` fallback span no volume when their smallest spread (singular value about
#: their centroid) is below this share of their largest: in a plane to double precision's round-off of CAD
#: coordinates (qhull joggles such points into a sliver of a hull, some 1e-11 of the part's size thick).
FLAT_HULL_RATIO = 1e-9


def _frozen(a: ArrayLike) -> FloatArray:
    out = np.array(a, dtype=float)
    out.setflags(write=False)
    return out


@dataclass(frozen=True)
class SurfaceTopology:
    """Edge statistics of a triangle surface (after merging identical vertices).

    Attributes
    ----------
    n_faces
        Faces kept (degenerate ones excluded).
    n_degenerate_faces
        Faces dropped because two of their corners are the same vertex; they
        enclose no volume.
    n_boundary_edges
        Edges used by exactly one face: the *open* edges of the surface.
    n_nonmanifold_edges
        Edges used by three or more faces.
    n_misoriented_edges
        Directed edges traversed by two or more faces in the same direction:
        where neighbouring faces disagree on which side is outside.
    """

    n_faces: int
    n_degenerate_faces: int
    n_boundary_edges: int
    n_nonmanifold_edges: int
    n_misoriented_edges: int

    @property
    def closed(self) -> bool:
        """Every edge is shared by exactly two faces (watertight)."""
        return self.n_boundary_edges == 0 and self.n_nonmanifold_edges == 0

    @property
    def consistently_oriented(self) -> bool:
        """No two faces traverse an edge in the same direction."""
        return self.n_misoriented_edges == 0

    def describe(self) -> str:
        """One line for messages: the counts that make a surface not closed or not oriented."""
        parts = [f"{self.n_boundary_edges} open (boundary) edges"]
        if self.n_nonmanifold_edges:
            parts.append(f"{self.n_nonmanifold_edges} edges shared by 3 or more faces")
        parts.append(
            "consistently oriented" if self.consistently_oriented
            else f"not consistently oriented ({self.n_misoriented_edges} edges traversed twice in one direction)"
        )
        return ", ".join(parts)


def check_mesh_arrays(vertices: ArrayLike, faces: ArrayLike, name: str) -> tuple[FloatArray, np.ndarray]:
    """Coerce a triangle mesh: ``vertices (n, 3)`` finite floats, ``faces (m, 3)`` indices into them.

    Raises
    ------
    InputError
        Naming ``name`` (a file or a link), saying what was expected and what came.
    """
    v = check_array(vertices, (None, 3), f"{name} vertices")
    f = np.asarray(faces)
    if f.ndim != 2 or f.shape[1] != 3:
        raise InputError(f"{name} faces: expected shape (m, 3), got {f.shape}")
    if f.shape[0] == 0:
        raise InputError(f"{name}: expected at least one triangle, got none")
    if not np.issubdtype(f.dtype, np.integer):
        raise InputError(f"{name} faces: expected integer vertex indices, got dtype {f.dtype}")
    if f.min() < 0 or f.max() >= len(v):
        raise InputError(f"{name} faces: expected indices in [0, {len(v) - 1}], got [{f.min()}, {f.max()}]")
    return v, f.astype(np.int64)


def merge_identical_vertices(vertices: ArrayLike, faces: ArrayLike) -> tuple[FloatArray, np.ndarray]:
    """Merge vertices with bit-identical coordinates (no tolerance: nothing is guessed).

    STL stores every triangle's corners separately; the same point written
    twice is the same vertex. Returns ``(vertices (k, 3), faces (m, 3))``.
    """
    v = np.asarray(vertices, dtype=float)
    f = np.asarray(faces, dtype=np.int64)
    unique, inverse = np.unique(v, axis=0, return_inverse=True)
    return unique, inverse.reshape(-1)[f]


def _edges(faces: np.ndarray) -> np.ndarray:
    """Directed edges ``(3 m, 2)`` of the faces, in face order."""
    return np.concatenate([faces[:, [0, 1]], faces[:, [1, 2]], faces[:, [2, 0]]])


def _drop_degenerate(faces: np.ndarray) -> tuple[np.ndarray, int]:
    bad = (faces[:, 0] == faces[:, 1]) | (faces[:, 1] == faces[:, 2]) | (faces[:, 2] == faces[:, 0])
    return faces[~bad], int(bad.sum())


def surface_topology(faces: ArrayLike) -> SurfaceTopology:
    """Count open, non-manifold and misoriented edges of a triangle surface.

    Parameters
    ----------
    faces
        Vertex indices ``(m, 3)``; vertices must already be merged
        (:func:`merge_identical_vertices`), or every edge looks open.
    """
    f, n_degenerate = _drop_degenerate(np.asarray(faces, dtype=np.int64))
    directed = _edges(f)
    _, directed_counts = np.unique(directed, axis=0, return_counts=True)
    _, counts = np.unique(np.sort(directed, axis=1), axis=0, return_counts=True)
    return SurfaceTopology(
        n_faces=len(f),
        n_degenerate_faces=n_degenerate,
        n_boundary_edges=int(np.sum(counts == 1)),
        n_nonmanifold_edges=int(np.sum(counts > 2)),
        n_misoriented_edges=int(np.sum(directed_counts > 1)),
    )


@dataclass(frozen=True, eq=False)
class SolidProperties:
    """Volume integrals of one solid, in one frame. SI units.

    Attributes
    ----------
    volume
        [m^3], > 0.
    com
        Centroid of the volume (the centre of mass at uniform density) [m],
        shape ``(3,)``, in this object's frame.
    inertia_per_density
        Inertia tensor about ``com`` per unit density [m^5] (kg m^2 per
        kg/m^3), shape ``(3, 3)``, in this object's axes; multiply by the
        density for kg m^2.
    method
        How the volume was obtained (:data:`Method`).
    topology
        Edge statistics of the surface as given (before any hull).
    flipped
        True when the surface was consistently oriented inward (negative
        volume) and its orientation was reversed.
    volume_spread
        For ``"signed"``: ``|S| r / 3`` [m^3], the amount by which the volume
        of the open surface moves over reference points within ``r`` of the
        centroid (module docstring); 0 for closed surfaces and hulls.
    source
        Where the solid came from (file names), for messages and tables.
    """

    volume: float
    com: FloatArray
    inertia_per_density: FloatArray
    method: Method
    topology: SurfaceTopology | None = None
    flipped: bool = False
    volume_spread: float = 0.0
    source: str = ""

    def __post_init__(self) -> None:
        if not (np.isfinite(self.volume) and self.volume > 0):
            raise InputError(f"{self.source or 'solid'}: expected a positive volume, got {self.volume!r} m^3")
        object.__setattr__(self, "com", _frozen(check_array(self.com, (3,), "centre of mass")))
        object.__setattr__(self, "inertia_per_density",
                           _frozen(check_array(self.inertia_per_density, (3, 3), "inertia per density")))

    def transformed(self, T_a_self: ArrayLike) -> SolidProperties:
        """The same solid expressed in frame ``a``, given the pose ``T_a_self`` ``(4, 4)`` of this frame in ``a``.

        ``com_a = R com + t`` and ``I_a = R I R^T`` (the tensor stays about
        the centre of mass; only its axes turn). Exact up to round-off.
        """
        T = check_transform(T_a_self, "T_a_mesh")
        R, t = T[:3, :3], T[:3, 3]
        I = R @ self.inertia_per_density @ R.T
        return SolidProperties(
            volume=self.volume, com=R @ self.com + t, inertia_per_density=0.5 * (I + I.T),
            method=self.method, topology=self.topology, flipped=self.flipped,
            volume_spread=self.volume_spread, source=self.source,
        )


def inertia_about_point(inertia_com: ArrayLike, mass: float, com: ArrayLike, point: ArrayLike) -> FloatArray:
    """Parallel-axis theorem: the inertia about ``point`` from the inertia about the centre of mass.

    ``I_p = I_c + m (|d|^2 E - d d^T)`` with ``d = com - point``; all in one
    frame, ``(3, 3)`` and ``(3,)``. With ``mass`` a density and ``inertia_com``
    per density, the result is per density too.
    """
    d = np.asarray(com, dtype=float) - np.asarray(point, dtype=float)
    return np.asarray(inertia_com, dtype=float) + mass * (d @ d * np.eye(3) - np.outer(d, d))


def combine_solids(solids: list[SolidProperties], source: str | None = None) -> SolidProperties:
    """One solid from several disjoint ones in the same frame (volumes add; parallel-axis theorem).

    The method is the first solid's when all agree, else the methods joined
    by ``+``; topology is kept only for a single solid.
    """
    if not solids:
        raise InputError("expected at least one solid to combine, got none")
    if len(solids) == 1 and source is None:
        return solids[0]
    volume = sum(s.volume for s in solids)
    com = sum(s.volume * s.com for s in solids) / volume
    inertia = sum(inertia_about_point(s.inertia_per_density, s.volume, s.com, com) for s in solids)
    methods = sorted({s.method for s in solids})
    return SolidProperties(
        volume=volume, com=com, inertia_per_density=inertia,
        method=methods[0] if len(methods) == 1 else "+".join(methods),  # type: ignore[arg-type]
        topology=solids[0].topology if len(solids) == 1 else None,
        flipped=any(s.flipped for s in solids),
        volume_spread=sum(s.volume_spread for s in solids),
        source=source if source is not None else " + ".join(s.source for s in solids),
    )


def _integrals(vertices: FloatArray, faces: np.ndarray, source: str) -> tuple[float, FloatArray, FloatArray]:
    """Volume, centroid and inertia per density of a closed surface (trimesh), taken about the vertex centroid.

    trimesh integrates the fields ``(x, 0, 0)``, ``(x^2/2, 0, 0)``, ...
    (Eberly); on a closed surface they give the exact polyhedron integrals.
    """
    import trimesh.triangles

    origin = vertices.mean(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):  # a flat surface: zero volume, refused below
        props = trimesh.triangles.mass_properties((vertices - origin)[faces], density=1.0)
    volume = float(props.volume)
    if not np.isfinite(volume) or volume == 0.0:
        raise InputError(f"expected a surface that encloses volume, got a signed volume of {volume!r} m^3", path=source)
    return volume, np.asarray(props.center_mass) + origin, np.asarray(props.inertia)


def cone_integrals(vertices: ArrayLike, faces: ArrayLike, apex: ArrayLike) -> tuple[float, FloatArray, FloatArray]:
    """Signed volume integrals of the tetrahedra joining ``apex`` to every face.

    For a closed surface this is the divergence theorem with the symmetric
    field ``(x - apex) / 3`` and equals the polyhedron's integrals for any
    apex. For an open surface it is the solid swept from ``apex`` (the
    ``"signed"`` fallback): unlike trimesh's one-component fields it turns
    with the mesh (a rotated surface gives the rotated result) and depends
    on the apex only through ``-(apex . S) / 3``.

    Parameters
    ----------
    vertices
        ``(n, 3)`` [m]; ``faces`` ``(m, 3)``; ``apex`` ``(3,)`` [m].

    Returns
    -------
    volume : float [m^3] (signed: positive for outward-oriented faces)
    com : ndarray ``(3,)`` [m], volume centroid
    inertia_per_density : ndarray ``(3, 3)`` [m^5], about ``com``
    """
    o = np.asarray(apex, dtype=float)
    tri = np.asarray(vertices, dtype=float)[np.asarray(faces)] - o  # (m, 3, 3): corners a, b, c
    a, b, c = tri[:, 0], tri[:, 1], tri[:, 2]
    vol = np.einsum("ij,ij->i", a, np.cross(b, c)) / 6.0  # signed tetrahedron volumes
    volume = float(vol.sum())
    s = a + b + c
    first = (vol[:, None] * s).sum(axis=0) / 4.0  # integral of x over the tetrahedra (apex at 0)
    # integral of x x^T over a tetrahedron with corners 0, a, b, c: V/20 (a a^T + b b^T + c c^T + s s^T)
    second = np.einsum("t,tij->ij", vol, np.einsum("ti,tj->tij", a, a) + np.einsum("ti,tj->tij", b, b)
                       + np.einsum("ti,tj->tij", c, c) + np.einsum("ti,tj->tij", s, s)) / 20.0
    if volume == 0.0:
        return 0.0, o.copy(), np.zeros((3, 3))
    com = first / volume
    second_com = second - volume * np.outer(com, com)  # about the centroid
    inertia = np.trace(second_com) * np.eye(3) - second_com
    return volume, com + o, 0.5 * (inertia + inertia.T)


def solid_properties(
    vertices: ArrayLike,
    faces: ArrayLike,
    *,
    fallback: Fallback | None = None,
    source: str = "mesh",
) -> SolidProperties:
    """Volume integrals of a triangle mesh, in the mesh's frame.

    Parameters
    ----------
    vertices
        Vertex positions [m], shape ``(n, 3)``, in the mesh frame.
    faces
        Vertex indices ``(m, 3)``; identical vertices are merged first
        (:func:`merge_identical_vertices`).
    fallback
        ``None`` (default): the surface must be closed and consistently
        oriented, else :class:`InputError`. ``"signed"``: an open surface
        that is consistently oriented is integrated as it is (module
        docstring; :attr:`SolidProperties.volume_spread` says how much that
        is worth). ``"convex_hull"``: the hull of the vertices of a surface
        that is not closed. A closed, consistently oriented surface is
        always ``"closed"``, whatever the fallback.
    source
        Name for messages (the file).

    Returns
    -------
    SolidProperties
        In the mesh frame; an inward-oriented surface is reversed
        (``flipped``).

    Raises
    ------
    InputError
        Naming ``source``: a surface that is not closed without a fallback
        (saying how many open edges it has), an inconsistently oriented one
        with the ``"signed"`` fallback, or no enclosed volume.
    """
    if fallback is not None and fallback not in FALLBACKS:
        raise InputError(f"fallback: expected one of {', '.join(FALLBACKS)} or None, got {fallback!r}")
    v, f = check_mesh_arrays(vertices, faces, source)
    v, f = merge_identical_vertices(v, f)
    topology = surface_topology(f)
    f, _ = _drop_degenerate(f)
    if topology.closed and topology.consistently_oriented:
        method: Method = "closed"
    elif fallback is None:
        what = "closed and consistently oriented" if topology.closed else "closed"
        raise InputError(
            f"expected a {what} surface (every edge shared by two faces in opposite directions), "
            f"got {topology.describe()}; its volume is not defined. Choose a stated fallback: "
            "'signed' (divergence-theorem volume of the open but consistently oriented surface) "
            "or 'convex_hull' (the hull of its vertices)",
            path=source,
        )
    elif fallback == "signed":
        if not topology.consistently_oriented:
            raise InputError(
                f"the 'signed' fallback needs a consistently oriented surface, got {topology.describe()}; "
                "its signed volume has no meaning. Use the 'convex_hull' fallback or repair the mesh",
                path=source,
            )
        method = "signed"
    else:
        method = "convex_hull"

    if method == "convex_hull":
        import trimesh
        from scipy.spatial import QhullError

        spread = np.linalg.svd(v - v.mean(axis=0), compute_uv=False) if len(v) >= 4 else np.zeros(1)
        try:
            if spread.size < 3 or not spread[2] > FLAT_HULL_RATIO * spread[0]:
                raise QhullError("flat")  # (qhull joggles coplanar points ('QJ') into a sliver of a hull)
            with np.errstate(divide="ignore", invalid="ignore"):
                hull = trimesh.Trimesh(vertices=v, faces=f, process=False).convex_hull
        except QhullError:  # (fewer than 4 vertices, or all on a line: qhull's traceback)
            raise InputError(f"expected vertices whose convex hull encloses volume, got {len(v)} distinct vertices "
                             "that span no volume (fewer than 4, or all on a line or in a plane)", path=source) from None
        volume, com, inertia = _integrals(np.asarray(hull.vertices), np.asarray(hull.faces), source)
        if volume < 0:  # trimesh orients hulls outward; kept for safety, not a silent repair of input
            volume, inertia = -volume, -inertia
        return SolidProperties(volume, com, inertia, "convex_hull", topology, False, 0.0, source)

    if method == "closed":
        volume, com, inertia = _integrals(v, f, source)
    else:
        volume, com, inertia = cone_integrals(v, f, v.mean(axis=0))
        if not np.isfinite(volume) or volume == 0.0:
            raise InputError(f"expected a surface that encloses volume, got a signed volume of {volume!r} m^3",
                             path=source)
    flipped = volume < 0
    if flipped:
        # An inward-oriented surface: every integral changes sign; the centroid does not.
        volume, inertia = -volume, -inertia
    spread = 0.0
    if method == "signed":
        tri = v[f]
        area_vector = 0.5 * np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]).sum(axis=0)
        reach = float(np.max(np.linalg.norm(v - v.mean(axis=0), axis=1)))
        spread = float(np.linalg.norm(area_vector)) * reach / 3.0
    return SolidProperties(volume, com, inertia, method, topology, flipped, spread, source)


def principal_moments(inertia: ArrayLike) -> tuple[FloatArray, FloatArray]:
    """Principal moments (ascending) and axes of a symmetric inertia tensor ``(3, 3)``.

    Returns
    -------
    moments : ndarray, shape ``(3,)``, same unit as ``inertia``
    R_frame_principal : ndarray, shape ``(3, 3)``
        Columns: the principal axes in the tensor's frame (a proper rotation),
        so ``inertia = R diag(moments) R^T``.
    """
    I = np.asarray(inertia, dtype=float)
    moments, axes = np.linalg.eigh(0.5 * (I + I.T))
    if np.linalg.det(axes) < 0:
        axes[:, 2] = -axes[:, 2]
    return moments, axes


__all__ = [
    "FALLBACKS",
    "Fallback",
    "Method",
    "SolidProperties",
    "SurfaceTopology",
    "check_mesh_arrays",
    "combine_solids",
    "cone_integrals",
    "inertia_about_point",
    "merge_identical_vertices",
    "principal_moments",
    "solid_properties",
    "surface_topology",
]
