"""URDF reader and writer (thermocomp.io.urdf).

The reader is checked against forward kinematics computed here from the same
joint data with scipy's rotations (no thermocomp code), the writer by round
trips; the independent check of the writer is tests/test_pybullet_oracle.py.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from thermocomp.deformation.apply import deformed_model
from thermocomp.deformation.table import DeformationTable
from thermocomp.errors import InputError
from thermocomp.io.robots import BUILTIN_ROBOTS, load_robot
from thermocomp.io.urdf import (
    CONTINUOUS_LIMIT,
    link_inertial,
    matrix_from_urdf_rpy,
    read_urdf,
    urdf_rpy_from_matrix,
    urdf_text,
    write_urdf,
)
from thermocomp.io.xml_values import parse_xml
from thermocomp.kinematics.fk import fk_matrix
from thermocomp.kinematics.model import nominal_model
from thermocomp.tolerances import ROUNDTRIP_ANGLE_TOL, ROUNDTRIP_POSITION_TOL

#: See tests/test_dh.py: two exact descriptions of one robot agree to round-off.
EXACT = 1e-12

# A small tree: a fixed mount, rotated joint origins, non-unit axes, a
# continuous joint, a fixed joint between two revolute ones, a tool, and a
# camera branch off link l1. (name, type, parent, child, xyz, rpy, axis, limit)
TOY = [
    ("mount", "fixed", "base_link", "l0", (0.1, 0.2, 0.3), (0.1, -0.2, 0.3), None, None),
    ("j1", "revolute", "l0", "l1", (0.0, 0.0, 0.2), (0.5, 0.1, -0.4), (0.0, 0.0, 2.0),
     'lower="-3" upper="3" velocity="2" effort="10"'),
    ("cam", "fixed", "l1", "camera", (0.0, 0.1, 0.0), (0.0, 0.0, 1.0), None, None),
    ("j2", "continuous", "l1", "l2", (0.3, 0.05, 0.0), (0.0, np.pi / 2, 0.0), (1.0, 1.0, 0.0), None),
    ("mid", "fixed", "l2", "l2b", (0.1, 0.0, 0.0), (0.2, 0.3, 0.4), None, None),
    ("j3", "revolute", "l2b", "l3", (0.2, 0.0, 0.1), (0.0, 0.0, 0.0), (0.0, -1.0, 0.0), 'lower="-1" upper="2" effort="1"'),
    ("tcp", "fixed", "l3", "tool", (0.0, 0.0, 0.05), (np.pi, 0.0, 0.7), None, None),
]
TOY_MOVABLE = ("j1", "j2", "j3")


def toy_urdf(joints=TOY, extra_links: tuple[str, ...] = ()) -> str:
    links = {"base_link", *extra_links}
    body = []
    for name, kind, parent, child, xyz, rpy, axis, limit in joints:
        links.update((parent, child))
        body.append(f'<joint name="{name}" type="{kind}"><parent link="{parent}"/><child link="{child}"/>')
        body.append(f'<origin xyz="{" ".join(map(repr, xyz))}" rpy="{" ".join(map(repr, map(float, rpy)))}"/>')
        if axis is not None:
            body.append(f'<axis xyz="{" ".join(map(repr, axis))}"/>')
        if limit is not None:
            body.append(f"<limit {limit}/>")
        body.append("</joint>")
    link_text = "".join(f'<link name="{link}"/>' for link in sorted(links))
    return f'<?xml version="1.0"?>\n<robot name="toy">{link_text}{"".join(body)}</robot>\n'


def oracle_fk(joints, q: np.ndarray, start: str = "base_link", stop: str = "tool") -> np.ndarray:
    """Pose of ``stop`` in ``start`` from the joint list, with scipy rotations."""
    by_child = {j[3]: j for j in joints}
    path = []
    link = stop
    while link != start:
        path.append(by_child[link])
        link = by_child[link][2]
    T = np.eye(4)
    k = 0
    for _name, kind, _, _, xyz, rpy, axis, _ in reversed(path):
        origin = np.eye(4)
        origin[:3, :3] = Rotation.from_euler("xyz", rpy).as_matrix()  # extrinsic x, y, z = URDF rpy
        origin[:3, 3] = xyz
        T = T @ origin
        if kind != "fixed":
            turn = np.eye(4)
            u = np.asarray(axis) / np.linalg.norm(axis)
            turn[:3, :3] = Rotation.from_rotvec(u * q[k]).as_matrix()
            T = T @ turn
            k += 1
    return T


@pytest.fixture
def toy_file(tmp_path: Path) -> Path:
    path = tmp_path / "toy.urdf"
    path.write_text(toy_urdf())
    return path


# --- rotations ------------------------------------------------------------------------


def test_rpy_is_fixed_axis_roll_pitch_yaw() -> None:
    rng = np.random.default_rng(0)
    for rpy in rng.uniform(-np.pi, np.pi, (50, 3)):
        np.testing.assert_allclose(matrix_from_urdf_rpy(rpy), Rotation.from_euler("xyz", rpy).as_matrix(), atol=1e-15)


@pytest.mark.parametrize("pitch", [np.pi / 2, -np.pi / 2, np.pi / 2 - 1e-9, -np.pi / 2 + 1e-13, 0.3, 0.0])
def test_rpy_from_matrix_reproduces_rotation(pitch: float) -> None:
    """Also at and near gimbal lock, where roll and yaw are not separately defined."""
    rng = np.random.default_rng(1)
    for roll, yaw in rng.uniform(-np.pi, np.pi, (20, 2)):
        R = matrix_from_urdf_rpy([roll, pitch, yaw])
        back = matrix_from_urdf_rpy(urdf_rpy_from_matrix(R))
        np.testing.assert_allclose(back, R, rtol=0, atol=1e-15)


# --- reading ----------------------------------------------------------------------------


def test_reader_reproduces_urdf_kinematics(toy_file: Path) -> None:
    chain = read_urdf(toy_file, tip_link="tool")
    assert chain.joint_names == TOY_MOVABLE
    assert chain.name == "toy"
    rng = np.random.default_rng(2)
    q = rng.uniform(chain.lower, chain.upper, (40, 3))
    oracle = np.array([oracle_fk(TOY, qk) for qk in q])
    np.testing.assert_allclose(fk_matrix(nominal_model(chain), q), oracle, rtol=0, atol=EXACT)


def test_reader_limits(toy_file: Path) -> None:
    chain = read_urdf(toy_file, tip_link="tool")
    np.testing.assert_array_equal(chain.lower, [-3.0, -CONTINUOUS_LIMIT, -1.0])
    np.testing.assert_array_equal(chain.upper, [3.0, CONTINUOUS_LIMIT, 2.0])
    np.testing.assert_array_equal(chain.velocity, [2.0, np.inf, np.inf])
    np.testing.assert_array_equal(chain.home, [0.0, 0.0, 0.0])


def test_reader_from_an_inner_base_link(toy_file: Path) -> None:
    chain = read_urdf(toy_file, base_link="l1", tip_link="tool")
    assert chain.joint_names == ("j2", "j3")
    q = np.random.default_rng(3).uniform(-2, 2, (20, 2))
    oracle = np.array([oracle_fk(TOY, qk, start="l1") for qk in q])
    np.testing.assert_allclose(fk_matrix(nominal_model(chain), q), oracle, rtol=0, atol=EXACT)


def test_world_root_places_the_base(tmp_path: Path) -> None:
    """A root link named ``world`` with one fixed joint gives ``T_world_base`` (ROS convention)."""
    placed = [("place", "fixed", "world", "base_link", (1.0, -2.0, 0.5), (0.0, 0.0, 0.3), None, None)]
    joints = [j for j in TOY if j[0] != "cam"]
    path = tmp_path / "placed.urdf"
    path.write_text(toy_urdf(placed + joints))
    chain = read_urdf(path)
    np.testing.assert_allclose(chain.T_world_base, oracle_fk(placed, [], start="world", stop="base_link"), atol=1e-15)
    q = np.random.default_rng(4).uniform(-1, 1, (10, 3))
    oracle = np.array([oracle_fk(placed + joints, qk, start="world") for qk in q])
    np.testing.assert_allclose(fk_matrix(nominal_model(chain), q), oracle, rtol=0, atol=EXACT)


def test_branching_tree_needs_tip_link(toy_file: Path) -> None:
    with pytest.raises(InputError, match="tip_link") as info:
        read_urdf(toy_file)
    assert str(toy_file) in str(info.value)
    assert "camera" in str(info.value)


def _replace(name: str, **changes: object) -> list:
    fields = ("name", "type", "parent", "child", "xyz", "rpy", "axis", "limit")
    out = []
    for j in TOY:
        if j[0] == name:
            d = dict(zip(fields, j))
            d.update(changes)
            j = tuple(d[f] for f in fields)
        out.append(j)
    return out


@pytest.mark.parametrize(
    ("joints", "message"),
    [
        (_replace("j3", type="prismatic"), "'j3' is prismatic"),
        (_replace("j2", type="floating"), "'j2' is floating"),
        (_replace("j1", type="hinge"), "unknown joint type 'hinge'"),
        (_replace("j1", limit=None), "'j1' is revolute without <limit>"),
        (_replace("j1", limit='lower="1" upper="-1" velocity="1"'), "'j1': expected limit lower < upper"),
        (_replace("j1", limit='lower="-1" upper="1" velocity="-1"'), "positive limit velocity"),
        (_replace("j1", axis=(0.0, 0.0, 0.0)), "'j1': expected a non-zero axis"),
        (_replace("j1", xyz=("a", 0, 0)), "'j1' <origin> xyz"),
    ],
    ids=["prismatic", "floating", "unknown-type", "no-limit", "inverted-limit", "negative-speed", "zero-axis", "bad-number"],
)
def test_reader_errors_name_file_and_joint(tmp_path: Path, joints: list, message: str) -> None:
    path = tmp_path / "bad.urdf"
    path.write_text(toy_urdf(joints))
    with pytest.raises(InputError, match=message) as info:
        read_urdf(path, tip_link="tool")
    assert info.value.path == str(path)


@pytest.mark.parametrize(("old", "new"), [
    ('<axis xyz="0 0 1"', '<axis xyz="0 0 6_41"'),  # float() reads 641
    ('<axis xyz="0 0 1"', '<axis xyz="0 0 \u0661"'),  # Arabic-Indic one: float() reads 1
    ('<axis xyz="0 0 1"', '<axis xyz="0 0 nan"'),
    ('<axis xyz="0 0 1"', '<axis xyz="0 0"'),
    ('<axis xyz="0 0 1"', '<axis xyz=""'),
    ('velocity="2.0"', 'velocity="inf"'),
    ('velocity="2.0"', 'velocity="2_0"'),
    ('upper="2.9"', 'upper=" 2.9e999"'),
])
def test_numbers_are_plain_finite_and_located_at_their_element(tmp_path: Path, old: str, new: str) -> None:
    joints = [(n, k, pa, ch, xyz, rpy, (0, 0, 1) if ax is not None else None,
               'lower="-2.9" upper="2.9" velocity="2.0"' if lim is not None else None)
              for n, k, pa, ch, xyz, rpy, ax, lim in TOY]
    text = toy_urdf(joints).replace("><", ">\n<")  # one element a line
    assert old in text
    text = text.replace(old, new, 1)
    path = tmp_path / "bad.urdf"
    path.write_text(text, encoding="utf-8")
    line = next(i for i, row in enumerate(text.splitlines(), start=1) if new in row)
    with pytest.raises(InputError, match="plain finite number") as info:
        read_urdf(path, tip_link="tool")
    assert info.value.path == str(path) and info.value.row == line


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "absent.urdf"
    with pytest.raises(InputError, match="file not found") as info:
        read_urdf(path)
    assert info.value.path == str(path)


def test_malformed_xml_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "broken.urdf"
    path.write_text('<?xml version="1.0"?>\n<robot name="x">\n<link name="a">\n</robot>\n')
    with pytest.raises(InputError, match="well-formed XML") as info:
        read_urdf(path)
    assert info.value.path == str(path)
    assert info.value.row == 4


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('<robot name="x"><link name="a"/><joint name="j" type="revolute"><parent link="a"/><child link="b"/></joint></robot>',
         "child link 'b' is not defined"),
        ('<robot name="x"><link name="a"/><link name="b"/></robot>', "expected one root link, got 2"),
        ('<model name="x"/>', "expected a <robot> root element"),
        ('<robot xmlns:xacro="http://ros.org/wiki/xacro"><xacro:macro name="m"><link name="a"/></xacro:macro></robot>',
         "xacro file must be expanded"),
        ('<robot name="x"><link name="a"/><link name="b"/>'
         '<joint name="j" type="fixed"><parent link="a"/><child link="b"/></joint></robot>', "no revolute"),
    ],
    ids=["undefined-link", "two-roots", "not-a-robot", "unexpanded-xacro", "no-movable-joint"],
)
def test_structural_errors(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "s.urdf"
    path.write_text(text)
    with pytest.raises(InputError, match=message) as info:
        read_urdf(path)
    assert info.value.path == str(path)


def test_tip_not_below_base(toy_file: Path) -> None:
    with pytest.raises(InputError, match="does not lie below"):
        read_urdf(toy_file, base_link="l2", tip_link="camera")


# --- writing and round trips ---------------------------------------------------------------


def assert_same_chain(read, chain) -> None:
    assert read.joint_names == chain.joint_names
    np.testing.assert_allclose(read.p, chain.p, rtol=0, atol=ROUNDTRIP_POSITION_TOL)
    np.testing.assert_allclose(read.axis, chain.axis, rtol=0, atol=ROUNDTRIP_ANGLE_TOL)
    np.testing.assert_allclose(read.lower, chain.lower, rtol=0, atol=ROUNDTRIP_ANGLE_TOL)
    np.testing.assert_allclose(read.upper, chain.upper, rtol=0, atol=ROUNDTRIP_ANGLE_TOL)
    np.testing.assert_array_equal(read.velocity, chain.velocity)
    for T_read, T in ((read.T_world_base, chain.T_world_base), (read.T_last_tcp, chain.T_last_tcp)):
        np.testing.assert_allclose(T_read[:3, 3], T[:3, 3], rtol=0, atol=ROUNDTRIP_POSITION_TOL)
        np.testing.assert_allclose(T_read[:3, :3], T[:3, :3], rtol=0, atol=ROUNDTRIP_ANGLE_TOL)


@pytest.mark.parametrize("robot", BUILTIN_ROBOTS)
def test_round_trip_of_builtin_robots(tmp_path: Path, robot: str) -> None:
    """read_urdf(write_urdf(chain)) is the chain (URDF has no home: it reads back as 0)."""
    chain = load_robot(robot)
    path = tmp_path / f"{robot}.urdf"
    write_urdf(chain, path)
    read = read_urdf(path)
    assert read.name == robot
    assert_same_chain(read, chain)
    np.testing.assert_array_equal(read.p, chain.p)  # repr() floats and identity rpy: bit-exact


def test_round_trip_with_placed_base_and_rotated_tool(tmp_path: Path) -> None:
    chain = load_robot("irb140")
    T_world_base = np.eye(4)
    T_world_base[:3, :3] = Rotation.from_euler("xyz", [0.1, -0.4, 2.0]).as_matrix()
    T_world_base[:3, 3] = [1.5, -0.25, 0.8]
    T_last_tcp = np.eye(4)
    T_last_tcp[:3, :3] = Rotation.from_euler("xyz", [np.pi, np.pi / 2, 0.3]).as_matrix()  # gimbal lock
    T_last_tcp[:3, 3] = [0.01, 0.02, 0.2]
    chain = chain.replace(T_world_base=T_world_base, T_last_tcp=T_last_tcp)
    path = tmp_path / "placed.urdf"
    write_urdf(chain, path, robot_name="placed")
    read = read_urdf(path)
    assert read.name == "placed"
    assert_same_chain(read, chain)


def test_signs_and_offsets_become_model_angles(tmp_path: Path) -> None:
    """The URDF holds model angles theta = sign * q + offset; limits map the same way."""
    base = load_robot("gofa")
    chain = base.replace(sign=[1.0, -1.0, 1.0, -1.0, 1.0, 1.0], offset=np.radians([0.0, 90.0, -30.0, 0.0, 10.0, 0.0]))
    path = tmp_path / "signed.urdf"
    write_urdf(chain, path)
    read = read_urdf(path)
    q = np.random.default_rng(5).uniform(chain.lower, chain.upper, (30, 6))
    np.testing.assert_allclose(
        fk_matrix(nominal_model(read), chain.theta_from_q(q)), fk_matrix(nominal_model(chain), q), rtol=0, atol=EXACT
    )
    ends = chain.theta_from_q(np.stack([chain.lower, chain.upper]))
    np.testing.assert_allclose(read.lower, ends.min(axis=0), atol=ROUNDTRIP_ANGLE_TOL)
    np.testing.assert_allclose(read.upper, ends.max(axis=0), atol=ROUNDTRIP_ANGLE_TOL)


def test_deformed_model_reads_back_with_the_same_kinematics(tmp_path: Path) -> None:
    """A deformed model's URDF (rotated joint origins) read back gives the deformed FK."""
    chain = load_robot("ur5")
    rng = np.random.default_rng(6)
    table = DeformationTable.from_mm_deg(rng.uniform(-2, 2, (6, 6)), rng.uniform(-2, 2, 6), rng.uniform(-2, 2, 6))
    model = deformed_model(chain, table)
    path = tmp_path / "deformed.urdf"
    write_urdf(model, path)
    read = read_urdf(path)
    q = rng.uniform(chain.lower, chain.upper, (30, 6))
    np.testing.assert_allclose(fk_matrix(nominal_model(read), q), fk_matrix(model, q), rtol=0, atol=EXACT)


def test_batched_model_is_refused() -> None:
    chain = load_robot("irb140")
    model = deformed_model(chain, DeformationTable.zero(6), np.array([0.0, 0.5]))
    with pytest.raises(InputError, match="batch"):
        urdf_text(model)


def test_writing_into_a_missing_folder_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="folder does not exist"):
        write_urdf(load_robot("irb140"), tmp_path / "no" / "such.urdf")


def test_written_text_is_plain() -> None:
    """No negative zeros; placeholder inertials on every link (PyBullet needs them)."""
    text = urdf_text(load_robot("gofa"))
    assert "-0.0 " not in text and '-0.0"' not in text
    assert text.count("<inertial>") == text.count("<link ")


def test_link_contents_inertials_and_meshes_load_in_pybullet(tmp_path):
    """Inertials and meshes given per link are written where PyBullet reads them."""
    import pybullet as pb

    from thermocomp.io.robots import load_robot
    from thermocomp.io.urdf import LinkContent, write_urdf

    mesh = tmp_path / "box.obj"
    mesh.write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n")
    I = np.array([[0.02, 0.001, 0.0], [0.001, 0.03, 0.0], [0.0, 0.0, 0.04]])
    links = {"link2": LinkContent(mass=3.5, com=np.array([0.1, 0.02, 0.2]), inertia=I,
                                  visual_mesh=str(mesh), collision_mesh=str(mesh), mesh_scale=0.001)}
    path = tmp_path / "robot.urdf"
    write_urdf(load_robot("irb140"), path, links=links)
    text = path.read_text()
    assert 'filename="' + str(mesh) + '"' in text and 'scale="0.001 0.001 0.001"' in text
    client = pb.connect(pb.DIRECT)
    try:
        body = pb.loadURDF(str(path), useFixedBase=True, flags=pb.URDF_USE_INERTIA_FROM_FILE, physicsClientId=client)
        names = [pb.getJointInfo(body, j, physicsClientId=client)[12].decode()
                 for j in range(pb.getNumJoints(body, physicsClientId=client))]
        info = pb.getDynamicsInfo(body, names.index("link2"), physicsClientId=client)
        assert info[0] == 3.5
        np.testing.assert_allclose(info[3], [0.1, 0.02, 0.2], atol=1e-12)  # local inertial position = the COM
        # PyBullet diagonalises the tensor: its principal moments are the eigenvalues of ours
        np.testing.assert_allclose(sorted(info[2]), np.linalg.eigvalsh(I), rtol=1e-6)
    finally:
        pb.disconnect(client)


def test_link_contents_reject_unknown_links_and_bad_masses():
    from thermocomp.io.robots import load_robot
    from thermocomp.io.urdf import LinkContent, urdf_text

    with pytest.raises(InputError, match="link9"):
        urdf_text(load_robot("irb140"), links={"link9": LinkContent(mass=1.0)})
    with pytest.raises(InputError, match="mass"):
        LinkContent(mass=-1.0)


def _one_element_a_line(joints=TOY) -> str:
    text = toy_urdf(joints).replace("><", ">\n<")
    return text.replace('<link name="l1"/>', '<link name="l1">\n<inertial>\n<origin xyz="0 0 0.1" rpy="0 0 0"/>\n'
                        '<mass value="2.5"/>\n<inertia ixx="0.02" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.01"/>\n'
                        '</inertial>\n</link>')


@pytest.mark.parametrize(("old", "new", "words"), [
    # finite but absurd: 1e300 m passed and overflowed in a program's timing, reported against the program
    ('<origin xyz="0.3 0.05 0.0"', '<origin xyz="1e300 0.05 0.0"', ["joint 'j2' <origin> xyz", "1e+12"]),
    ('<origin xyz="0.3 0.05 0.0"', '<origin xyz="1001 0.05 0.0"', ["joint 'j2' <origin> xyz", "1000 m"]),
    ('<origin xyz="0.3 0.05 0.0" rpy="0.0 1.5707963267948966 0.0"', '<origin xyz="0.3 0.05 0.0" rpy="0 1e4 0"',
     ["joint 'j2' <origin> rpy", "1000 rad"]),
    ('<axis xyz="0 0 1"', '<axis xyz="0 1e200 1e200"', ["joint 'j1' <axis> xyz", "1e+12"]),  # its norm overflowed
    ('velocity="2.0"', 'velocity="1e-300"', ["joint 'j1'", "at least 1e-06 rad/s"]),
    ('upper="2.9"', 'upper="1e300"', ["joint 'j1' <limit>", "1e+12"]),
    ('upper="2.9"', 'upper="5000"', ["joint 'j1' <limit> lower and upper", "1000 rad"]),
    # link inertials, for every command: numbers, bounds, a mass not below 0 (no exporter writes one)
    ('<mass value="2.5"', '<mass value="-2.5"', ["link 'l1' <inertial> <mass>", "mass >= 0 kg", "-2.5"]),
    ('<mass value="2.5"', '<mass value="nan"', ["link 'l1' <inertial> <mass>", "finite"]),
    ('<origin xyz="0 0 0.1" rpy="0 0 0"', '<origin xyz="0 0 1e300" rpy="0 0 0"', ["link 'l1' <inertial> <origin>"]),
])
def test_robot_file_values_no_robot_has_are_refused_at_their_element(tmp_path: Path, old: str, new: str,
                                                                      words: list[str]) -> None:
    joints = [(n, k, pa, ch, xyz, rpy, (0, 0, 1) if ax is not None else None,
               'lower="-2.9" upper="2.9" velocity="2.0"' if lim is not None else None)
              for n, k, pa, ch, xyz, rpy, ax, lim in TOY]
    text = _one_element_a_line(joints)
    read_urdf(_written(tmp_path / "good.urdf", text), tip_link="tool")  # the file before the change is a robot
    assert old in text
    text = text.replace(old, new, 1)
    path = _written(tmp_path / "bad.urdf", text)
    line = next(i for i, row in enumerate(text.splitlines(), start=1) if new in row)
    with pytest.raises(InputError) as info:
        read_urdf(path, tip_link="tool")
    assert info.value.path == str(path) and info.value.row == line
    for word in words:
        assert word in str(info.value)


@pytest.mark.parametrize(("old", "new", "words"), [
    ('<mass value="2.5"', '<mass value="0"', ["link 'l1' <inertial> <mass>", "got 0"]),
    ('ixx="0.02"', 'ixx="-0.02"', ["link 'l1' <inertial> <inertia>", "principal moments >= 0"]),
    ('izz="0.01"', 'izz="0.05"', ["link 'l1' <inertial> <inertia>", "I1 + I2 >= I3"]),
])
def test_an_inertial_no_body_has_is_refused_where_it_is_used_only(tmp_path: Path, old: str, new: str,
                                                                   words: list[str]) -> None:
    """The dynamics refuse a tensor no mass distribution has, at its element; the kinematics, which never use
    it, read the file (real robot files carry placeholder tensors on links that matter to nobody)."""
    text = _one_element_a_line()
    assert old in text
    text = text.replace(old, new, 1)
    path = _written(tmp_path / "sloppy.urdf", text)
    read_urdf(path, tip_link="tool")
    line = next(i for i, row in enumerate(text.splitlines(), start=1) if new in row)
    with pytest.raises(InputError) as info:
        _body_of_l1(path)
    assert info.value.path == str(path) and info.value.row == line
    for word in words:
        assert word in str(info.value)


@pytest.mark.parametrize(("old", "new"), [
    ('<mass value="2.5"/>\n<inertia ixx="0.02" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.01"/>',
     '<mass value="0"/>\n<inertia ixx="0" ixy="0" ixz="0" iyy="0" iyz="0" izz="0"/>'),  # a frame: nothing carried
    ('ixx="0.02" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.01"', 'ixx="0" ixy="0" ixz="0" iyy="0" iyz="0" izz="0"'),
    ('izz="0.01"', 'izz="0.04"'),  # a flat plate: I1 + I2 = I3
    ('izz="0.01"', 'izz="0.0400003"'),  # the same, typed to 6 digits
])
def test_physical_inertials_at_their_limits_are_read(tmp_path: Path, old: str, new: str) -> None:
    text = _one_element_a_line()
    assert old in text
    path = _written(tmp_path / "ok.urdf", text.replace(old, new, 1))
    read_urdf(path, tip_link="tool")
    _body_of_l1(path)  # as the dynamics read it (dynamics.urdf_parameters), the body checked


def _body_of_l1(path: Path):
    root = parse_xml(path.read_bytes(), str(path))
    return link_inertial(next(link for link in root.findall("link") if link.get("name") == "l1"), str(path))


def _written(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path
