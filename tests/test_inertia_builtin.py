"""Built-in robots: envelope meshes, their approximate inertials, and PyBullet as an independent oracle.

PyBullet (``calculateInverseDynamics`` at rest, ``calculateMassMatrix``)
loads the written URDF with ``URDF_USE_INERTIA_FROM_FILE`` and must agree
with the project's own gravity torques (:func:`thermocomp.inertia.gravity_torques`)
and with a mass matrix built here from the same inertials. Both run in
double precision on the same numbers: agreement is to round-off.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from thermocomp.inertia import builtin_inertials, gravity_torques, link_poses, write_builtin_urdf
from thermocomp.inertia.builtin import BUILTIN_TOTAL_MASS, builtin_mesh_path, builtin_urdf_text
from thermocomp.inertia.links import link_names
from thermocomp.inertia.robot import InertiaOptions, compute_inertials, zero_pose_link_frames
from thermocomp.inertia.solids import merge_identical_vertices, solid_properties, surface_topology
from thermocomp.io.meshes import read_mesh
from thermocomp.io.robots import BUILTIN_ROBOTS, load_robot, robot_dir
from thermocomp.io.urdf import PLACEHOLDER_INERTIA, PLACEHOLDER_MASS
from thermocomp.kinematics.fk import joint_frames
from thermocomp.kinematics.model import nominal_model

p = pytest.importorskip("pybullet", reason="pybullet is a dependency of thermocomp (pip install -e .)")

#: PyBullet gravity [m/s^2]; any value works, the same is given to our code.
G = (0.0, 0.0, -9.81)
#: Double-precision agreement on torques of up to ~100 N m: 1e-9 relative
#: leaves round-off of a 6-link recursion ~6 orders of margin.
TORQUE_RTOL = 1e-9
#: inertia.csv stores 10 significant digits.
CSV_RTOL = 1e-9


def winding_number(points: np.ndarray, vertices: np.ndarray, faces: np.ndarray) -> np.ndarray:
    """Generalised winding number of a closed surface around ``points`` ``(k, 3)``: 1 inside, 0 outside.

    Sum of the faces' solid angles (Van Oosterom and Strackee) over 4 pi.
    """
    tri = vertices[faces][None, :, :, :] - points[:, None, None, :]  # (k, m, 3, 3)
    a, b, c = tri[..., 0, :], tri[..., 1, :], tri[..., 2, :]
    la, lb, lc = (np.linalg.norm(x, axis=-1) for x in (a, b, c))
    num = np.einsum("...i,...i", a, np.cross(b, c))
    den = la * lb * lc + np.einsum("...i,...i", a, b) * lc + np.einsum("...i,...i", b, c) * la \
        + np.einsum("...i,...i", c, a) * lb
    return 2 * np.arctan2(num, den).sum(axis=-1) / (4 * np.pi)


@pytest.mark.parametrize("name", BUILTIN_ROBOTS)
def test_envelope_meshes_are_small_closed_solids(name):
    total = 0
    for link in link_names(6):
        path = builtin_mesh_path(name, link)
        total += path.stat().st_size
        mesh = read_mesh(path, 1.0)
        _, faces = merge_identical_vertices(mesh.vertices, mesh.faces)
        top = surface_topology(faces)
        assert top.closed and top.consistently_oriented and top.n_degenerate_faces == 0, (path, top)
        assert 50 <= top.n_faces <= 1000, (path, top.n_faces)
        s = solid_properties(mesh.vertices, mesh.faces, source=str(path))  # no fallback: must be closed
        assert s.method == "closed" and not s.flipped
    assert total < 1_000_000
    assert not (robot_dir(name) / "meshes" / "tcp.stl").exists()


def axis_hits(vertices, faces, origin, axis, reach=0.3, n=121) -> bool:
    """Some point of the axis line within ``reach`` of ``origin`` is inside the solid."""
    t = np.linspace(-reach, reach, n)
    return bool(np.any(winding_number(origin + t[:, None] * axis, vertices, faces) > 0.5))


@pytest.mark.parametrize("name", BUILTIN_ROBOTS)
def test_each_link_holds_its_own_joint_and_the_next(name):
    """Link k's solid (in its link frame) is crossed by joint k's axis and by joint k+1's axis
    (the base: by joint 1's); link 6 reaches the flange's side of joint 6."""
    chain = load_robot(name)
    frames = zero_pose_link_frames(chain)
    origins = np.vstack([np.zeros(3), np.cumsum(chain.p, axis=0)])  # base, joints 1..6 at the zero pose
    for k, link in enumerate(link_names(6)):
        mesh = read_mesh(builtin_mesh_path(name, link), 1.0)
        v, f = merge_identical_vertices(mesh.vertices, mesh.faces)
        o_link = frames[link][:3, 3]
        joints = ([k - 1] if k > 0 else []) + ([k] if k < 6 else [])
        for j in joints:
            assert axis_hits(v, f, origins[j + 1] - o_link, chain.axis[j]), f"{name} {link}: joint {j + 1} misses"
    # Link 6 lies between joint 6 and the TCP along joint 6's axis (within 20 mm behind it).
    mesh = read_mesh(builtin_mesh_path(name, "link6"), 1.0)
    along = mesh.vertices @ chain.axis[5]
    tcp = chain.T_last_tcp[:3, 3] @ chain.axis[5]
    assert along.max() == pytest.approx(max(tcp, 0.0), abs=0.02)


@pytest.mark.parametrize("name", BUILTIN_ROBOTS)
def test_inertia_csv_is_what_the_meshes_give(name):
    shipped = builtin_inertials(name)
    computed = compute_inertials(name, robot_dir(name) / "meshes",
                                 InertiaOptions(total_mass=BUILTIN_TOTAL_MASS[name], metres_per_unit=1.0)).inertials
    assert shipped.names == computed.names == link_names(6)
    for a, b in zip(shipped.links, computed.links):
        assert a.mass == pytest.approx(b.mass, rel=CSV_RTOL)
        np.testing.assert_allclose(a.com, b.com, rtol=0, atol=CSV_RTOL * 1.0)
        np.testing.assert_allclose(a.inertia, b.inertia, rtol=0, atol=CSV_RTOL * np.trace(b.inertia))
        assert a.method == b.method == "closed"
    assert shipped.mass == pytest.approx(BUILTIN_TOTAL_MASS[name], rel=1e-8)
    assert "APPROXIMATE" in (robot_dir(name) / "inertia.csv").read_text()


def test_builtin_urdf_names_the_envelope_meshes():
    text = builtin_urdf_text("gofa")
    for link in link_names(6):
        assert str(robot_dir("gofa") / "meshes" / f"{link}.stl") in text
    assert "tcp.stl" not in text


@pytest.fixture
def client() -> Iterator[int]:
    """A fresh PyBullet server per robot. Measured with PyBullet 3.2.7: after ``removeBody``, a body
    loaded into the same server got ``calculateInverseDynamics`` of a removed one in 90 of 180
    load/remove cycles (a stale per-body cache); ``resetSimulation`` or a new server avoids it."""
    cid = p.connect(p.DIRECT)
    p.setGravity(*G, physicsClientId=cid)
    yield cid
    p.disconnect(physicsClientId=cid)


def revolute_indices(body: int, cid: int) -> list[int]:
    return [j for j in range(p.getNumJoints(body, physicsClientId=cid))
            if p.getJointInfo(body, j, physicsClientId=cid)[2] == p.JOINT_REVOLUTE]


def our_mass_matrix(model, q, inertials) -> np.ndarray:
    """``M(q) = sum_k m_k Jv_k^T Jv_k + Jw_k^T R_k I_k R_k^T Jw_k`` (link k moved by joints 1..k)."""
    R, pos = link_poses(model, q)
    origins, axes = joint_frames(model, q)
    n = model.chain.n_joints
    M = np.zeros((n, n))
    for k in range(n):
        link = inertials[f"link{k + 1}"]
        c = pos[k] + R[k] @ link.com
        Jv = np.zeros((3, n))
        Jw = np.zeros((3, n))
        for i in range(k + 1):
            Jv[:, i] = np.cross(axes[i], c - origins[i])
            Jw[:, i] = axes[i]
        I_world = R[k] @ link.inertia @ R[k].T
        M += link.mass * Jv.T @ Jv + Jw.T @ I_world @ Jw
    # The tcp link's placeholder inertial: PLACEHOLDER_MASS at the tcp frame, isotropic PLACEHOLDER_INERTIA.
    c = pos[n]
    Jv = np.zeros((3, n))
    for i in range(n):
        Jv[:, i] = np.cross(axes[i], c - origins[i])
    Jw = axes.T
    return M + PLACEHOLDER_MASS * Jv.T @ Jv + PLACEHOLDER_INERTIA * Jw.T @ Jw


@pytest.mark.parametrize("name", BUILTIN_ROBOTS)
def test_pybullet_agrees_with_our_gravity_torques_and_mass_matrix(name, client, tmp_path, rng):
    chain = load_robot(name)
    model = nominal_model(chain)
    inertials = builtin_inertials(name)
    urdf = tmp_path / f"{name}.urdf"
    write_builtin_urdf(name, urdf)
    body = p.loadURDF(str(urdf), useFixedBase=True, flags=p.URDF_USE_INERTIA_FROM_FILE, physicsClientId=client)
    joints = revolute_indices(body, client)
    # What PyBullet made of each inertial: mass, and the tensor it diagonalised.
    for k, j in enumerate(joints):
        info = p.getDynamicsInfo(body, j, physicsClientId=client)
        link = inertials[f"link{k + 1}"]
        assert info[0] == pytest.approx(link.mass, rel=1e-12)
        np.testing.assert_allclose(sorted(info[2]), link.principal_moments, rtol=1e-9)
        np.testing.assert_allclose(info[3], link.com, atol=1e-12)
    q_all = rng.uniform(chain.lower, chain.upper, (8, 6))
    q_all[0] = 0.0
    tau_ours = gravity_torques(model, q_all, inertials, gravity=G, tcp_mass=PLACEHOLDER_MASS)
    assert tau_ours.shape == (8, 6)
    for q, tau in zip(q_all, tau_ours):
        theta = chain.theta_from_q(q)
        tau_pb = p.calculateInverseDynamics(body, theta.tolist(), [0.0] * 6, [0.0] * 6, physicsClientId=client)
        np.testing.assert_allclose(tau_pb, tau, rtol=0, atol=TORQUE_RTOL * np.max(np.abs(tau)))
        M_pb = np.array(p.calculateMassMatrix(body, theta.tolist(), physicsClientId=client))
        M = our_mass_matrix(model, q, inertials)
        np.testing.assert_allclose(M_pb, M, rtol=0, atol=TORQUE_RTOL * np.max(np.abs(M)))
    assert np.max(np.abs(tau_ours)) > 1.0  # the test is not vacuous


def test_gravity_torques_batch_equals_singles(rng):
    chain = load_robot("irb140")
    model = nominal_model(chain)
    inertials = builtin_inertials("irb140")
    q = rng.uniform(chain.lower, chain.upper, (2, 3, 6))
    batch = gravity_torques(model, q, inertials)
    for idx in np.ndindex(2, 3):
        np.testing.assert_allclose(batch[idx], gravity_torques(model, q[idx], inertials), rtol=0, atol=1e-12)
    # Joint 1 (vertical axis) never holds weight.
    np.testing.assert_allclose(batch[..., 0], 0.0, atol=1e-12)


def test_an_inertia_file_giving_a_link_twice_names_its_line(tmp_path):
    """Two rows for one link: file, line and column 'link' (found by the fuzz test of the inertia reader: the
    set of links refused it without a file)."""
    from helpers import REPO, assert_located

    from thermocomp.errors import InputError
    from thermocomp.io.inertia_csv import read_inertia_csv

    lines = (REPO / "robots" / "irb140" / "inertia.csv").read_text().splitlines()
    rows = [i for i, line in enumerate(lines) if line and not line.startswith("#")][1:]  # after the header
    second, fifth = rows[1], rows[4]
    lines[fifth] = lines[second].split(",")[0] + "," + lines[fifth].split(",", 1)[1]
    path = tmp_path / "inertia.csv"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError, match=f"already given on line {second + 1}") as info:
        read_inertia_csv(path)
    assert_located(info.value, path, fifth + 1, "link")


def test_the_inertia_file_round_trips_through_io_and_a_bad_tensor_is_located_by_the_feature(tmp_path):
    """io reads the rows and writes them back byte for byte (irb140's file); the inertia feature refuses a tensor
    breaking the triangle inequality, naming the file and the row's line (io knows no physics)."""
    from helpers import REPO

    from thermocomp.errors import InputError
    from thermocomp.inertia.links import inertia_rows, robot_inertials_from_rows
    from thermocomp.io.inertia_csv import inertia_csv_text, read_inertia_csv

    source = REPO / "robots" / "irb140" / "inertia.csv"
    text = source.read_text()
    comments = [line[2:] for line in text.splitlines() if line.startswith("# ")]
    inertials = robot_inertials_from_rows(read_inertia_csv(source), robot="irb140")
    assert inertia_csv_text(inertia_rows(inertials), comments) == text
    lines = text.splitlines()
    row = next(i for i, line in enumerate(lines) if line.startswith("link2,"))
    cells = lines[row].split(",")
    cells[5], cells[6], cells[7] = "1", "1", "3"  # ixx + iyy < izz: no body has these principal moments
    lines[row] = ",".join(cells)
    path = tmp_path / "inertia.csv"
    path.write_text("\n".join(lines) + "\n")
    rows = read_inertia_csv(path)  # plain data: read without a word
    assert rows.links[2] == "link2" and rows.inertia[2][2, 2] == 3.0
    with pytest.raises(InputError) as info:
        robot_inertials_from_rows(rows)
    assert info.value.path == str(path) and info.value.row == row + 1
