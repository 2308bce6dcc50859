"""Built-in robots (robots/<name>/chain.csv) against their published kinematics.

Tests marked as needing ``../shared/reference`` read the ROS-Industrial robot
descriptions there (GoFa xacro, UR5 YAML) and skip when it is absent.
"""

from __future__ import annotations

import importlib.util
import math
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from thermocomp.io.robots import BUILTIN_ROBOTS, BUILTIN_VARIANTS, load_robot, robot_dir
from thermocomp.kinematics.fk import fk, fk_jacobian, fk_matrix
from thermocomp.kinematics.model import nominal_model
from thermocomp.tolerances import NEAR_SINGULAR_SIGMA

REPO = Path(__file__).resolve().parents[1]
REFERENCE = Path(__file__).resolve().parents[2] / "shared" / "reference"
GOFA_XACRO = REFERENCE / "robots" / "abb_crb15000_5_95" / "crb15000_5_95_macro.xacro"
UR5_YAML = REFERENCE / "robots" / "ur5"

#: Two exact descriptions of one robot agree to round-off (tests/test_dh.py).
EXACT = 1e-12

#: ABB GoFa tool0 at the zero pose [m], ROS-Industrial crb15000_5_95_macro.xacro
#: (joint 1 z 0.265, joint 3 +0.444, joint 4 +0.110, joint 5 x 0.470, joint 6 0.101 / 0.080).
GOFA_XACRO_TOOL0_ZERO = np.array([0.571, 0.0, 0.899])
#: Seed 000 Table I puts the flange this much nearer joint 5 than the xacro:
#: 68 + 32.6 = 100.6 mm against 101 mm [m] (robots/gofa/chain_seed000.csv, the gofa-seed000 variant).
GOFA_TABLE_I_SHORTFALL = 0.0004
#: The printed 1e-7 m x values of Table I's links 1 and 2 [m] (before joints 2 and 3).
GOFA_TABLE_I_X = (-7.366e-7, 7.105e-7)

needs_reference = pytest.mark.skipif(
    not REFERENCE.is_dir(), reason=f"reference data not found at {REFERENCE} (../shared/reference beside the repository)"
)


def load_make_tables() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_tables", REPO / "robots" / "make_tables.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# --- every built-in robot --------------------------------------------------------------


@pytest.mark.parametrize("robot", [*BUILTIN_ROBOTS, *BUILTIN_VARIANTS])
def test_builtin_robot_loads_with_provenance(robot: str) -> None:
    chain = load_robot(robot)
    assert chain.n_joints == 6 and chain.name == robot
    assert np.all(np.isfinite(chain.velocity)), "every built-in robot states its joint speeds"
    folder, table = BUILTIN_VARIANTS.get(robot, (robot, "chain.csv"))
    assert (robot_dir(folder) / table).read_text().startswith("# "), "provenance comments first"


@pytest.mark.parametrize("robot", [*BUILTIN_ROBOTS, *BUILTIN_VARIANTS])
def test_home_is_inside_limits_and_not_singular(robot: str) -> None:
    chain = load_robot(robot)
    assert chain.within_limits(chain.home)
    _, _, J = fk_jacobian(nominal_model(chain), chain.home)
    assert np.linalg.svd(J, compute_uv=False).min() > NEAR_SINGULAR_SIGMA


# --- IRB140 -----------------------------------------------------------------------------


def test_irb140_zero_pose_is_abb_tool0() -> None:
    """ABB IRB140 product specification: tool0 at (515, 0, 712) mm, z along +X, at the zero pose."""
    R, p = fk(nominal_model(load_robot("irb140")), np.zeros(6))
    np.testing.assert_allclose(p, [0.515, 0.0, 0.712], rtol=0, atol=EXACT)
    np.testing.assert_allclose(R[:, 2], [1.0, 0.0, 0.0], rtol=0, atol=EXACT)


# --- GoFa -------------------------------------------------------------------------------


def test_gofa_zero_pose() -> None:
    """The manufacturer's geometry: tool0 at the xacro's (571, 0, 899) mm, z along +X."""
    R, p = fk(nominal_model(load_robot("gofa")), np.zeros(6))
    np.testing.assert_allclose(p, GOFA_XACRO_TOOL0_ZERO, rtol=0, atol=EXACT)
    np.testing.assert_allclose(R[:, 2], [1.0, 0.0, 0.0], rtol=0, atol=EXACT)


def test_gofa_seed000_zero_pose() -> None:
    """Seed 000 Table I's variant: tool0 at the xacro's (571, 0, 899) mm less Table I's 0.4 mm, z along +X."""
    R, p = fk(nominal_model(load_robot("gofa-seed000")), np.zeros(6))
    expected = GOFA_XACRO_TOOL0_ZERO + [sum(GOFA_TABLE_I_X) - GOFA_TABLE_I_SHORTFALL, 0.0, 0.0]
    np.testing.assert_allclose(p, expected, rtol=0, atol=EXACT)
    np.testing.assert_allclose(R[:, 2], [1.0, 0.0, 0.0], rtol=0, atol=EXACT)


def _xacro_value(text: str) -> float:
    match = re.fullmatch(r"\$\{radians\((-?[\d.]+)\)\}", text)
    return math.radians(float(match.group(1))) if match else float(text)


def _xacro_vector(text: str) -> np.ndarray:
    return np.array([_xacro_value(v) for v in text.split()])


def read_gofa_xacro() -> dict[str, dict]:
    """Joint name (prefix removed) -> origin xyz, rpy, axis, limits of the ROS-Industrial xacro."""
    joints = {}
    for joint in ET.parse(GOFA_XACRO).getroot().iter("joint"):
        origin, axis, limit = joint.find("origin"), joint.find("axis"), joint.find("limit")
        joints[joint.get("name", "").replace("${prefix}", "")] = {
            "xyz": _xacro_vector(origin.get("xyz", "0 0 0")),
            "rpy": _xacro_vector(origin.get("rpy", "0 0 0")),
            "axis": None if axis is None else _xacro_vector(axis.get("xyz", "")),
            "limit": None if limit is None else [_xacro_value(limit.get(k, "")) for k in ("lower", "upper", "velocity")],
        }
    return joints


def gofa_xacro_fk(xacro: dict[str, dict], q: np.ndarray) -> np.ndarray:
    """tool0 in base_link: joint_1..joint_6, then joint_6-flange, flange-tool0."""
    T = np.eye(4)
    for k, name in enumerate([f"joint_{i}" for i in range(1, 7)] + ["joint_6-flange", "flange-tool0"]):
        j = xacro[name]
        step = np.eye(4)
        step[:3, :3] = Rotation.from_euler("xyz", j["rpy"]).as_matrix()
        step[:3, 3] = j["xyz"]
        if j["axis"] is not None:
            step[:3, :3] = step[:3, :3] @ Rotation.from_rotvec(j["axis"] * q[k]).as_matrix()
        T = T @ step
    return T


@needs_reference
def test_gofa_table_i_totals_match_xacro() -> None:
    """Seed 000 Table I against the xacro: the sums the two share (robots/gofa/chain_seed000.csv)."""
    x = read_gofa_xacro()
    p, tool = load_robot("gofa-seed000").p, load_robot("gofa-seed000").T_last_tcp[:3, 3]
    assert p[0, 2] + p[1, 2] == pytest.approx(x["joint_1"]["xyz"][2] + x["joint_2"]["xyz"][2], abs=EXACT)  # 0.265
    assert p[2, 2] == pytest.approx(x["joint_3"]["xyz"][2], abs=EXACT)  # 0.444
    assert p[3, 2] == pytest.approx(x["joint_4"]["xyz"][2], abs=EXACT)  # 0.110
    assert p[3, 0] + p[4, 0] == pytest.approx(x["joint_4"]["xyz"][0] + x["joint_5"]["xyz"][0], abs=EXACT)  # 0.470
    assert p[5, 2] == pytest.approx(x["joint_6"]["xyz"][2], abs=EXACT)  # 0.080
    assert p[5, 0] + tool[0] == pytest.approx(x["joint_6"]["xyz"][0] - GOFA_TABLE_I_SHORTFALL, abs=EXACT)  # 0.101
    assert p[:, 1].sum() + tool[1] == pytest.approx(0.0, abs=EXACT)


@needs_reference
@pytest.mark.parametrize("robot", ["gofa", "gofa-seed000"])
def test_gofa_axes_limits_speeds_and_tool_are_the_xacro(robot: str) -> None:
    x = read_gofa_xacro()
    chain = load_robot(robot)
    for i in range(6):
        j = x[chain.joint_names[i]]
        np.testing.assert_array_equal(chain.axis[i], j["axis"])
        np.testing.assert_allclose([chain.lower[i], chain.upper[i], chain.velocity[i]], j["limit"], rtol=0, atol=EXACT)
    np.testing.assert_allclose(
        chain.T_last_tcp[:3, :3], Rotation.from_euler("xyz", x["flange-tool0"]["rpy"]).as_matrix(), rtol=0, atol=EXACT
    )


@needs_reference
def test_gofa_is_the_xacro_robot() -> None:
    """The built-in gofa's table is the xacro's joint origins: the same tool0 at every configuration, to round-off."""
    x = read_gofa_xacro()
    chain = load_robot("gofa")
    q = np.random.default_rng(11).uniform(chain.lower, chain.upper, (100, 6))
    ours = fk_matrix(nominal_model(chain), q)
    xacro = np.array([gofa_xacro_fk(x, qk) for qk in q])
    np.testing.assert_allclose(ours, xacro, rtol=0, atol=EXACT)
    for i, name in enumerate([f"joint_{k}" for k in range(1, 7)]):
        np.testing.assert_allclose(chain.p[i], x[name]["xyz"], rtol=0, atol=EXACT)


@needs_reference
def test_gofa_seed000_is_the_xacro_robot_with_a_shorter_flange() -> None:
    """At every configuration the Table I robot's tool0 has the xacro's orientation and sits
    0.4 mm back along its own z (joint 6's axis): the other differences of the two tables
    (y offsets, joint 4's x) lie along joint axes and cancel, up to the printed 1e-7 m values."""
    x = read_gofa_xacro()
    chain = load_robot("gofa-seed000")
    q = np.random.default_rng(11).uniform(chain.lower, chain.upper, (100, 6))
    ours = fk_matrix(nominal_model(chain), q)
    xacro = np.array([gofa_xacro_fk(x, qk) for qk in q])
    np.testing.assert_allclose(ours[:, :3, :3], xacro[:, :3, :3], rtol=0, atol=EXACT)
    shortfall = np.einsum("kij,kj->ki", xacro[:, :3, :3], [[0.0, 0.0, GOFA_TABLE_I_SHORTFALL]] * len(q))
    # The printed 1e-7 m x values of links 1 and 2 (before joints 2 and 3, which turn in between)
    # move the tool by at most the sum of their sizes.
    residue = sum(abs(x) for x in GOFA_TABLE_I_X) + EXACT
    np.testing.assert_allclose(ours[:, :3, 3], xacro[:, :3, 3] - shortfall, rtol=0, atol=residue)


# --- UR5 --------------------------------------------------------------------------------


def test_ur5_zero_pose_from_published_dh() -> None:
    """UR's DH at the zero pose: flange at (a2 + a3, -(d4 + d6), d1 - d5), z along -Y."""
    R, p = fk(nominal_model(load_robot("ur5")), np.zeros(6))
    a2, a3, d1, d4, d5, d6 = -0.425, -0.39225, 0.089159, 0.10915, 0.09465, 0.0823
    np.testing.assert_allclose(p, [a2 + a3, -(d4 + d6), d1 - d5], rtol=0, atol=EXACT)
    np.testing.assert_allclose(R[:, 2], [0.0, -1.0, 0.0], rtol=0, atol=EXACT)


def test_ur5_table_is_what_make_tables_writes() -> None:
    """robots/ur5/chain.csv is generated: it must equal robots/make_tables.py's output."""
    make_tables = load_make_tables()
    assert (robot_dir("ur5") / "chain.csv").read_text() == make_tables.ur5_table_text()
    # and the 12-digit text is the DH robot to round-off
    q = np.random.default_rng(12).uniform(-np.pi, np.pi, (50, 6))
    from_text = fk_matrix(nominal_model(load_robot("ur5")), q)
    from_dh = fk_matrix(nominal_model(make_tables.ur5_chain()), q)
    np.testing.assert_allclose(from_text, from_dh, rtol=0, atol=EXACT)


def _yaml_loader():
    yaml = pytest.importorskip("yaml", reason="pyyaml is a test dependency (pip install -e .[test])")

    class Loader(yaml.SafeLoader):
        pass

    # ur_description's joint_limits.yaml tags angles in degrees: "!degrees 360.0".
    Loader.add_constructor("!degrees", lambda loader, node: math.radians(float(loader.construct_scalar(node))))
    return yaml, Loader


def ur5_yaml_fk(q: np.ndarray) -> np.ndarray:
    """wrist_3 frame in ur_description's controller base frame, from default_kinematics.yaml.

    Each entry is the origin (xyz, fixed-axis rpy) of a joint in its parent
    link; every joint turns about its own z. The frame chain starts at
    base_link_inertia, the controller's base (DH frame 0); wrist_3 is DH frame 6.
    """
    yaml, Loader = _yaml_loader()
    kin = yaml.load((UR5_YAML / "default_kinematics.yaml").read_text(), Loader=Loader)["kinematics"]
    T = np.eye(4)
    for k, name in enumerate(["shoulder", "upper_arm", "forearm", "wrist_1", "wrist_2", "wrist_3"]):
        e = kin[name]
        step = np.eye(4)
        step[:3, :3] = Rotation.from_euler("xyz", [e["roll"], e["pitch"], e["yaw"]]).as_matrix() @ Rotation.from_rotvec(
            [0.0, 0.0, q[k]]
        ).as_matrix()
        step[:3, 3] = [e["x"], e["y"], e["z"]]
        T = T @ step
    return T


@needs_reference
def test_ur5_matches_ur_description_kinematics() -> None:
    """Our UR5 TCP (DH frame 6) equals the yaml's wrist_3 frame at random q.

    1e-9: the yaml's 1.570796327 is pi/2 + 2e-10 rad (and its compensating
    -1.9e-11 m z values), so the two agree to ~2e-10 m and rad, not to round-off.
    """
    chain = load_robot("ur5")
    q = np.random.default_rng(13).uniform(chain.lower, chain.upper, (100, 6))
    ours = fk_matrix(nominal_model(chain), q)
    theirs = np.array([ur5_yaml_fk(qk) for qk in q])
    np.testing.assert_allclose(ours[:, :3, 3], theirs[:, :3, 3], rtol=0, atol=1e-9)
    np.testing.assert_allclose(ours[:, :3, :3], theirs[:, :3, :3], rtol=0, atol=1e-9)


@needs_reference
def test_ur5_limits_and_speeds_are_ur_description() -> None:
    yaml, Loader = _yaml_loader()
    limits = yaml.load((UR5_YAML / "joint_limits.yaml").read_text(), Loader=Loader)["joint_limits"]
    chain = load_robot("ur5")
    for i, name in enumerate(chain.joint_names):
        entry = limits[name.removesuffix("_joint") if name != "elbow_joint" else name]
        np.testing.assert_allclose(
            [chain.lower[i], chain.upper[i], chain.velocity[i]],
            [entry["min_position"], entry["max_position"], entry["max_velocity"]],
            rtol=0,
            atol=EXACT,
        )


# --- irb140-paper-scene: the IRB140 of the authors' CoppeliaSim scenes -----------------------------

PAPER_SCENE = REFERENCE / "paper-irb140" / "scene_irb140_poses.csv"


@needs_reference
def test_paper_scene_files_are_what_make_tables_derives_from_the_scene() -> None:
    """robots/irb140/{chain,joint_objects}_paper_scene.csv are generated from the scene's poses, not edited."""
    table, joints = load_make_tables().paper_scene_texts(PAPER_SCENE)
    assert (robot_dir("irb140") / "chain_paper_scene.csv").read_text() == table
    # The joint objects' Euler angles come from products of single-precision rotations, one of them 2e-5 deg
    # from gimbal lock (beta = 90 deg), where the last of 17 digits moves with the BLAS and numpy builds:
    # the comments and the header byte for byte, every angle to 1e-7 deg (a hand edit moves more).
    _assert_same_csv((robot_dir("irb140") / "joint_objects_paper_scene.csv").read_text(), joints, atol=1e-7)


def _assert_same_csv(written: str, derived: str, atol: float) -> None:
    """Comment and header lines equal, every other line the same cells, numbers within ``atol``."""
    lines_written, lines_derived = written.splitlines(), derived.splitlines()
    assert len(lines_written) == len(lines_derived)
    for a, b in zip(lines_written, lines_derived):
        if a.startswith("#") or not a[:1].isdigit():
            assert a == b
            continue
        cells_a, cells_b = a.split(","), b.split(",")
        assert cells_a[0] == cells_b[0] and len(cells_a) == len(cells_b)
        np.testing.assert_allclose([float(c) for c in cells_a[1:]], [float(c) for c in cells_b[1:]], rtol=0, atol=atol)


def _scene_tip(q: np.ndarray) -> np.ndarray:
    """The scene's tip in the world at joint angles ``q`` ``(m, 6)``: its objects' relative poses composed with
    scipy's quaternions, each joint turning its children about its own z axis (CoppeliaSim's joints)."""
    import csv

    with PAPER_SCENE.open() as f:
        rows = list(csv.DictReader(f))
    T = np.tile(np.eye(4), (q.shape[0], 1, 1))
    for row in rows:  # base, joint1..joint6, tip: each after its parent
        local = np.eye(4)
        w, x, y, z = (float(row[k]) for k in ("quat_w", "quat_x", "quat_y", "quat_z"))
        local[:3, :3] = Rotation.from_quat([x, y, z, w]).as_matrix()
        local[:3, 3] = [float(row[k]) for k in ("x_m", "y_m", "z_m")]
        T = T @ local
        if row["object"].startswith("joint"):
            turn = np.tile(np.eye(4), (q.shape[0], 1, 1))
            turn[:, :3, :3] = Rotation.from_rotvec(np.outer(q[:, int(row["object"][5:]) - 1], [0, 0, 1])).as_matrix()
            T = T @ turn
    return T


@needs_reference
def test_paper_scene_robot_is_the_scene_at_every_configuration() -> None:
    """The built-in's FK equals the scene's object chain (composed independently) at random configurations,
    and differs from the datasheet irb140 by the scene's hundredths of a millimetre."""
    chain = load_robot("irb140-paper-scene")
    q = np.vstack([np.zeros(6), np.random.default_rng(140).uniform(chain.lower, chain.upper, size=(200, 6))])
    T_ours = fk_matrix(nominal_model(chain), q)
    T_scene = _scene_tip(q)
    assert np.abs(T_ours[:, :3, 3] - T_scene[:, :3, 3]).max() < 1e-11  # 12 significant digits in the table
    assert np.abs(T_ours[:, :3, :3] - T_scene[:, :3, :3]).max() < 1e-11
    apart = np.linalg.norm(T_ours[:, :3, 3] - fk_matrix(nominal_model(load_robot("irb140")), q)[:, :3, 3], axis=1)
    assert 0.005e-3 < apart.max() < 0.05e-3  # the README's "up to 0.02 mm" at the joints, levered to the TCP
