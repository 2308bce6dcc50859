"""The inertia core against closed-form solids, and its checks (seed 000, Step 1).

Tolerances come from the tessellation, not from habit:

* a box is represented exactly by 12 triangles: round-off only;
* a cylinder of radius ``r`` tessellated with ``k`` segments *is* a regular
  ``k``-gon prism, whose volume and inertia are closed-form: round-off only
  against the prism; against the true cylinder the error is the prism's
  (``1 - sin(2 pi/k) / (2 pi/k)`` in volume), computed, not guessed;
* an icosphere lies between its inscribed ball (radius = least face-plane
  distance) and its circumscribed ball (the vertices): volume and moments are
  bracketed by those balls' closed forms.

Round-off: the integrals sum ~10^3 terms of order ``V``: 1e-12 relative.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import trimesh
from hypothesis import given, settings
from hypothesis import strategies as st

from thermocomp.errors import InputError
from thermocomp.geometry.rotations import matrix_from_rotvec, transform
from thermocomp.inertia.checks import check_inertia_tensor
from thermocomp.inertia.links import LinkInertial, RobotInertials, apply_corrections, inertials_from_solids
from thermocomp.inertia.robot import InertiaOptions
from thermocomp.inertia.solids import (
    combine_solids,
    cone_integrals,
    inertia_about_point,
    principal_moments,
    solid_properties,
    surface_topology,
)
from thermocomp.tolerances import INERTIA_TRIANGLE_RTOL

#: Round-off of the volume integrals (see the module docstring).
ROUNDOFF = 1e-12


def box_mesh(a: float, b: float, c: float) -> trimesh.Trimesh:
    return trimesh.creation.box(extents=(a, b, c))


def box_inertia(V: float, a: float, b: float, c: float) -> np.ndarray:
    """Inertia per density of a box about its centre."""
    return V / 12.0 * np.diag([b * b + c * c, a * a + c * c, a * a + b * b])


def prism(k: int, r: float, h: float) -> tuple[float, np.ndarray]:
    """Volume and inertia per density (about the centroid) of a regular k-gon prism along z.

    Area ``A = k r^2 sin(2 pi/k) / 2``; polar second moment of area
    ``J = k r^4 sin(2 pi/k) (2 + cos(2 pi/k)) / 12``; by the k-fold symmetry
    (k >= 3) the in-plane second moments are ``J / 2`` each.
    """
    s, c = math.sin(2 * math.pi / k), math.cos(2 * math.pi / k)
    A = k * r * r * s / 2
    J = k * r**4 * s * (2 + c) / 12
    V = A * h
    Ixx = J / 2 * h + V * h * h / 12
    return V, np.diag([Ixx, Ixx, J * h])


def props(mesh: trimesh.Trimesh, **kw):
    return solid_properties(np.asarray(mesh.vertices), np.asarray(mesh.faces), source="test mesh", **kw)


def test_box_is_exact():
    a, b, c = 0.3, 0.2, 0.1
    s = props(box_mesh(a, b, c))
    V = a * b * c
    assert s.method == "closed" and not s.flipped and s.volume_spread == 0.0
    assert s.volume == pytest.approx(V, rel=ROUNDOFF)
    np.testing.assert_allclose(s.com, 0.0, atol=ROUNDOFF * a)
    np.testing.assert_allclose(s.inertia_per_density, box_inertia(V, a, b, c), rtol=0, atol=ROUNDOFF * V * a * a)


@pytest.mark.parametrize("k", [6, 24, 96])
def test_cylinder_is_a_polygon_prism(k):
    r, h = 0.05, 0.4
    s = props(trimesh.creation.cylinder(radius=r, height=h, sections=k))
    V, I = prism(k, r, h)
    assert s.volume == pytest.approx(V, rel=ROUNDOFF)
    np.testing.assert_allclose(s.inertia_per_density, I, rtol=0, atol=ROUNDOFF * V * h * h)
    # Against the true cylinder: the prism's own deficit, computed from k.
    V_true = math.pi * r * r * h
    deficit = 1 - math.sin(2 * math.pi / k) / (2 * math.pi / k)
    assert s.volume == pytest.approx(V_true * (1 - deficit), rel=ROUNDOFF)
    Izz_true = V_true * r * r / 2
    # J/A = r^2 (2 + cos)/6 against r^2/2: relative (1 - cos)/3 less, on top of the volume deficit.
    assert s.inertia_per_density[2, 2] == pytest.approx(
        Izz_true * (1 - deficit) * (1 - (1 - math.cos(2 * math.pi / k)) / 3), rel=ROUNDOFF)


def test_sphere_is_bracketed_by_its_inscribed_and_circumscribed_balls():
    r = 0.1
    mesh = trimesh.creation.icosphere(subdivisions=3, radius=r)
    s = props(mesh)
    tri = np.asarray(mesh.vertices)[np.asarray(mesh.faces)]
    n = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    r_in = float(np.min(np.abs(np.einsum("ij,ij->i", n / np.linalg.norm(n, axis=1, keepdims=True), tri[:, 0]))))
    r_out = float(np.max(np.linalg.norm(mesh.vertices, axis=1)))
    assert r_in < r_out <= r * (1 + 1e-12)

    def ball(R):  # volume and moment (about a diameter) per density
        V = 4 / 3 * math.pi * R**3
        return V, 2 / 5 * V * R * R

    (V_in, I_in), (V_out, I_out) = ball(r_in), ball(r_out)
    assert V_in <= s.volume <= V_out
    np.testing.assert_allclose(s.com, 0.0, atol=ROUNDOFF * r)
    for m in np.linalg.eigvalsh(s.inertia_per_density):
        assert I_in <= m <= I_out


def manifold_mesh(solid) -> tuple[np.ndarray, np.ndarray]:
    mesh = solid.to_mesh64()
    return np.asarray(mesh.vert_properties)[:, :3], np.asarray(mesh.tri_verts, dtype=np.int64)


def test_union_of_a_box_and_a_cylinder_through_it():
    """Box ``2a`` cube with a k-gon cylinder of height ``h > 2a`` through it along z:
    union = box + two prism stubs of height ``(h - 2a) / 2`` outside it (parallel-axis theorem)."""
    manifold3d = pytest.importorskip("manifold3d")
    M = manifold3d.Manifold
    a, r, h, k = 0.1, 0.04, 0.5, 32
    solid = M.cube((2 * a, 2 * a, 2 * a), True) + M.cylinder(h, r, r, k, True)
    s = solid_properties(*manifold_mesh(solid), source="union")
    V_box = (2 * a) ** 3
    I_box = box_inertia(V_box, 2 * a, 2 * a, 2 * a)
    stub = (h - 2 * a) / 2
    V_stub, I_stub = prism(k, r, stub)
    z = a + stub / 2
    V = V_box + 2 * V_stub
    I = I_box + 2 * inertia_about_point(I_stub, V_stub, [0, 0, z], [0, 0, 0])
    assert s.method == "closed"
    assert s.volume == pytest.approx(V, rel=1e-12)
    np.testing.assert_allclose(s.com, 0.0, atol=1e-12)
    np.testing.assert_allclose(s.inertia_per_density, I, rtol=0, atol=1e-12 * np.trace(I))


def test_disjoint_solids_combine_by_the_parallel_axis_theorem():
    """Two unit cubes centred 2 m apart on x, integrated as one file or combined from two:
    com midway, ``Iyy = Izz = 2 (1/6) + 2 * 1 * 1^2`` per density, ``Ixx = 2 (1/6)``."""
    m1 = box_mesh(1, 1, 1)
    m2 = box_mesh(1, 1, 1)
    m2.apply_translation([2.0, 0, 0])
    one = combine_solids([props(m1), props(m2)])
    both = solid_properties(np.vstack([m1.vertices, m2.vertices]),
                            np.vstack([m1.faces, m2.faces + len(m1.vertices)]), source="two cubes")
    expected = np.diag([1 / 3, 1 / 3 + 2, 1 / 3 + 2])
    for s in (one, both):
        assert s.volume == pytest.approx(2.0, rel=ROUNDOFF)
        np.testing.assert_allclose(s.com, [1.0, 0, 0], atol=ROUNDOFF)
        np.testing.assert_allclose(s.inertia_per_density, expected, atol=ROUNDOFF)


def test_touching_solids_share_edges_and_are_not_one_closed_surface():
    """Two cubes sharing a face in one file: 4 edges shared by 4 faces -- not a 2-manifold."""
    m1, m2 = box_mesh(1, 1, 1), box_mesh(1, 1, 1)
    m2.apply_translation([1.0, 0, 0])
    with pytest.raises(InputError, match="shared by 3 or more faces"):
        solid_properties(np.vstack([m1.vertices, m2.vertices]), np.vstack([m1.faces, m2.faces + 8]), source="x")


def random_pose(rng: np.random.Generator) -> np.ndarray:
    return transform(matrix_from_rotvec(rng.normal(size=3)), rng.uniform(-1, 1, 3))


def open_cylinder() -> trimesh.Trimesh:
    """A 24-gon cylinder without its top cap: open, consistently oriented."""
    mesh = trimesh.creation.cylinder(radius=0.05, height=0.3, sections=24)
    keep = mesh.triangles_center[:, 2] < 0.15 - 1e-9
    return trimesh.Trimesh(mesh.vertices, mesh.faces[keep], process=False)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), closed=st.booleans())
def test_moving_the_mesh_moves_its_properties_exactly(seed, closed):
    """Properties of a rigidly moved mesh = the moved properties (com' = R com + t, I' = R I R^T),
    for closed meshes and for the 'signed' fallback on open ones."""
    rng = np.random.default_rng(seed)
    mesh = box_mesh(0.3, 0.2, 0.1) if closed else open_cylinder()
    T = random_pose(rng)
    s = props(mesh, fallback=None if closed else "signed")
    moved = solid_properties((np.asarray(mesh.vertices) @ T[:3, :3].T) + T[:3, 3], np.asarray(mesh.faces),
                             fallback=None if closed else "signed", source="moved")
    expected = s.transformed(T)
    assert moved.volume == pytest.approx(expected.volume, rel=1e-12)
    np.testing.assert_allclose(moved.com, expected.com, rtol=0, atol=1e-12)
    np.testing.assert_allclose(moved.inertia_per_density, expected.inertia_per_density, rtol=0,
                               atol=1e-12 * np.trace(expected.inertia_per_density))


def test_trimesh_integrals_of_an_open_surface_change_with_rotation():
    """Why the 'signed' fallback uses cone_integrals: trimesh integrates (x, 0, 0) and friends,
    so the 'volume' of an open surface changes when the mesh is merely turned."""
    mesh = open_cylinder()
    v, f = np.asarray(mesh.vertices), np.asarray(mesh.faces)
    R = matrix_from_rotvec([0, math.pi / 2, 0])  # the open end turns from facing +z to facing +x
    a = trimesh.triangles.mass_properties(v[f]).volume
    b = trimesh.triangles.mass_properties((v @ R.T)[f]).volume
    assert abs(a - b) > 1e-3 * abs(a)
    ours_a = cone_integrals(v, f, v.mean(axis=0))[0]
    ours_b = cone_integrals(v @ R.T, f, (v @ R.T).mean(axis=0))[0]
    assert ours_a == pytest.approx(ours_b, rel=1e-12)


def test_cone_integrals_equal_trimesh_on_closed_surfaces():
    mesh = trimesh.creation.icosphere(2, 0.2)
    mesh.apply_translation([0.3, -0.1, 0.2])
    v, f = np.asarray(mesh.vertices), np.asarray(mesh.faces)
    ref = trimesh.triangles.mass_properties(v[f])
    for apex in ([0, 0, 0], [1.0, 2.0, -3.0]):
        V, com, I = cone_integrals(v, f, apex)
        assert V == pytest.approx(ref.volume, rel=1e-12)
        np.testing.assert_allclose(com, ref.center_mass, atol=1e-12)
        np.testing.assert_allclose(I, ref.inertia, atol=1e-11 * np.trace(ref.inertia))


def test_an_open_mesh_is_an_error_naming_its_open_edges():
    mesh = box_mesh(1, 1, 1)
    faces = np.asarray(mesh.faces)[1:]  # one triangle missing: its 3 edges are open
    with pytest.raises(InputError) as err:
        solid_properties(mesh.vertices, faces, source="part.stl")
    assert err.value.path == "part.stl"
    assert "3 open (boundary) edges" in str(err.value) and "'signed'" in str(err.value)


def test_open_mesh_fallbacks_say_what_they_did():
    mesh = box_mesh(1, 1, 1)
    faces = np.asarray(mesh.faces)[1:]
    signed = solid_properties(mesh.vertices, faces, fallback="signed", source="part.stl")
    assert signed.method == "signed" and signed.topology.n_boundary_edges == 3
    # The missing triangle removes the tetrahedron from the centroid: 1 - (1/2 * 1/2) / 3 ... = 1 - 1/12.
    assert signed.volume == pytest.approx(1 - 1 / 12, rel=ROUNDOFF)
    assert signed.volume_spread > 0
    hull = solid_properties(mesh.vertices, faces, fallback="convex_hull", source="part.stl")
    assert hull.method == "convex_hull" and hull.volume == pytest.approx(1.0, rel=ROUNDOFF)


def test_inconsistent_orientation_is_refused_by_the_signed_fallback():
    mesh = box_mesh(1, 1, 1)
    faces = np.asarray(mesh.faces).copy()
    faces[0] = faces[0, ::-1]
    top = surface_topology(faces)
    assert top.closed and not top.consistently_oriented
    with pytest.raises(InputError, match="closed and consistently oriented"):
        solid_properties(mesh.vertices, faces, source="x.stl")
    with pytest.raises(InputError, match="consistently oriented"):
        solid_properties(mesh.vertices, faces, fallback="signed", source="x.stl")
    assert solid_properties(mesh.vertices, faces, fallback="convex_hull").volume == pytest.approx(1.0)


def test_an_inward_oriented_closed_mesh_is_reversed_and_says_so():
    mesh = box_mesh(0.3, 0.2, 0.1)
    s = solid_properties(mesh.vertices, np.asarray(mesh.faces)[:, ::-1], source="inside-out.stl")
    assert s.flipped and s.volume == pytest.approx(0.006, rel=ROUNDOFF)
    np.testing.assert_allclose(s.inertia_per_density, box_inertia(0.006, 0.3, 0.2, 0.1), atol=1e-15)


def test_topology_counts_non_manifold_edges():
    # Three triangles sharing the edge (0, 1).
    faces = np.array([[0, 1, 2], [1, 0, 3], [0, 1, 4]])
    top = surface_topology(faces)
    assert top.n_nonmanifold_edges == 1 and not top.closed and not top.consistently_oriented


def test_stl_style_duplicate_vertices_are_merged_exactly():
    mesh = box_mesh(1, 2, 3)
    tri = np.asarray(mesh.vertices)[np.asarray(mesh.faces)].reshape(-1, 3)  # every corner separate, as in STL
    s = solid_properties(tri, np.arange(len(tri)).reshape(-1, 3), source="soup.stl")
    assert s.method == "closed" and s.volume == pytest.approx(6.0, rel=ROUNDOFF)


@pytest.mark.parametrize("bad, words", [
    (np.diag([1.0, 1.0, 3.0]), "triangle inequality"),
    (np.diag([1.0, -1.0, 1.0]), "positive definite"),
    (np.array([[1.0, 0.1, 0], [0, 1.0, 0], [0, 0, 1.0]]), "symmetric"),
    (np.zeros((3, 3)), "positive trace"),
    (np.ones(3), "shape"),
])
def test_check_inertia_tensor_refuses_unphysical_tensors(bad, words):
    with pytest.raises(InputError, match=words):
        check_inertia_tensor(bad, "link2 inertia")


def test_check_inertia_tensor_accepts_a_plate_at_the_triangle_limit():
    plate = np.diag([1.0, 2.0, 3.0 * (1 + INERTIA_TRIANGLE_RTOL / 10)])
    np.testing.assert_array_equal(check_inertia_tensor(plate, "plate"), plate)


def test_principal_moments_rebuild_the_tensor(rng):
    R = matrix_from_rotvec(rng.normal(size=3))
    I = R @ np.diag([1.0, 2.0, 2.5]) @ R.T
    m, axes = principal_moments(I)
    np.testing.assert_allclose(m, [1.0, 2.0, 2.5], rtol=1e-14)
    np.testing.assert_allclose(axes @ np.diag(m) @ axes.T, I, atol=1e-14)
    assert np.linalg.det(axes) == pytest.approx(1.0)


def test_one_density_from_the_total_mass_and_corrections_eq9():
    a = props(box_mesh(0.3, 0.2, 0.1))
    b = props(trimesh.creation.cylinder(radius=0.05, height=0.4, sections=24))
    inertials = inertials_from_solids({"base": a, "link1": b}, total_mass=10.0, robot="test")
    density = 10.0 / (a.volume + b.volume)
    assert inertials.density == pytest.approx(density, rel=ROUNDOFF)
    assert inertials.mass == pytest.approx(10.0, rel=ROUNDOFF)
    np.testing.assert_allclose(inertials["link1"].inertia, density * b.inertia_per_density, rtol=ROUNDOFF)
    corrected = apply_corrections(inertials, {"link1": 1.03})
    assert corrected["link1"].mass == pytest.approx(1.03 * inertials["link1"].mass, rel=ROUNDOFF)
    np.testing.assert_allclose(corrected["link1"].inertia, 1.03 * inertials["link1"].inertia, rtol=ROUNDOFF)
    np.testing.assert_array_equal(corrected["link1"].com, inertials["link1"].com)
    assert corrected["base"].mass == inertials["base"].mass and corrected["link1"].correction == 1.03
    with pytest.raises(InputError, match="link7"):
        apply_corrections(inertials, {"link7": 1.0})
    with pytest.raises(InputError, match="> 0"):
        apply_corrections(inertials, {"link1": 0.0})


@pytest.mark.parametrize("kwargs, words", [
    ({"total_mass": 0.0, "metres_per_unit": 1.0}, "total mass"),
    ({"total_mass": float("nan"), "metres_per_unit": 1.0}, "total mass"),
    ({"total_mass": 28.0, "metres_per_unit": -1.0}, "metres per mesh unit"),
    ({"total_mass": 28.0, "metres_per_unit": 1.0, "fallback": "fill"}, "fallback"),
    ({"total_mass": 28.0, "metres_per_unit": 1.0, "mesh_kind": "inertial"}, "mesh kind"),
])
def test_inertia_options_check_their_ranges(kwargs, words):
    with pytest.raises(InputError, match=words):
        InertiaOptions(**kwargs)


def test_link_inertial_refuses_a_non_positive_mass():
    with pytest.raises(InputError, match="link3 mass"):
        LinkInertial("link3", 0.0, np.zeros(3), np.eye(3))
    with pytest.raises(InputError, match="one inertial per link"):
        RobotInertials("r", (LinkInertial("a", 1.0, np.zeros(3), np.eye(3)),) * 2)
