"""Inertials of real robot files in the right frames: every dynamics reader against pinocchio's RNEA (issue 27).

Pinocchio (``pin`` on PyPI, a test dependency) builds its model from the
URDF text itself: it merges fixed links into their moving parent with its
own transforms and parallel-axis sums, and its recursive Newton-Euler
algorithm shares no code with thermocomp's regressor. The cases are the
ROS-Industrial UR5 (``shoulder_link`` hangs from ``base_link_inertia``,
turned by pi about z from the root), the GoFa with inertials given in turned
``<inertial><origin>`` frames, and random adversarial robots built here:
a tilted, displaced pedestal and a turned mount between the root and joint 1,
fixed spacers carrying mass between joints, covers fixed beside the chain,
massless frames, and a camera fixed beyond the tip. Both sides compute in
double precision from the same doubles; 1e-10 of the largest torque is
round-off (a wrong frame is off by percent).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from helpers import REFERENCE, urdf_parameters_of

from thermocomp.cli.main import main
from thermocomp.dynamics.regressor import regressor
from thermocomp.dynamics.urdf_parameters import urdf_with_parameters
from thermocomp.errors import InputError
from thermocomp.inertia.gravity import STANDARD_GRAVITY
from thermocomp.io.recording_csv import Recording, read_recording_csv, write_recording_csv
from thermocomp.io.robot_files import RobotFileOptions, read_robot_description
from thermocomp.io.urdf import urdf_rpy_from_matrix

pin = pytest.importorskip("pinocchio", reason="pinocchio (pip install pin) is the independent inverse dynamics")

ROBOTS = REFERENCE / "robots"
UR5_XACRO = ROBOTS / "ur5" / "urdf" / "ur5.xacro"
GOFA_XACRO = ROBOTS / "abb_crb15000_5_95" / "urdf" / "crb15000_5_95.xacro"
needs_robots = pytest.mark.skipif(not UR5_XACRO.is_file() or not GOFA_XACRO.is_file(),
                                  reason=f"ROS-Industrial packages not found in {ROBOTS} (../shared/reference)")
ROUND_OFF = 1e-10


# --- the oracle --------------------------------------------------------------------------------------------------


def rnea(urdf: str, joint_names, q, qd, qdd) -> np.ndarray:
    """Pinocchio's joint torques ``(N, n)`` of the URDF text, joints in ``joint_names``' order, gravity -z of the root."""
    model = pin.buildModelFromXML(urdf)
    model.gravity.linear = np.array(STANDARD_GRAVITY)
    data = model.createData()
    idx = [model.joints[model.getJointId(name)].idx_q for name in joint_names]
    assert model.nq == len(joint_names)  # the chain's joints are the file's movable ones
    out = []
    for a, b, c in zip(q, qd, qdd):
        x = [np.zeros(model.nq) for _ in range(3)]
        for v, s in zip(x, (a, b, c)):
            v[idx] = s
        out.append(pin.rnea(model, data, *x)[idx])
    return np.array(out)


def states(chain, rng, count: int = 12):
    n = chain.n_joints
    lo, hi = np.maximum(chain.lower, -np.pi), np.minimum(chain.upper, np.pi)
    return rng.uniform(lo, hi, (count, n)), rng.normal(0.0, 1.5, (count, n)), rng.normal(0.0, 4.0, (count, n))


def assert_round_off(got: np.ndarray, want: np.ndarray) -> None:
    scale = float(np.max(np.abs(want)))
    assert scale > 1.0  # not vacuous
    np.testing.assert_allclose(got, want, rtol=0, atol=ROUND_OFF * scale)


# --- robot files -------------------------------------------------------------------------------------------------


def _xyz(v) -> str:
    return " ".join(repr(float(x)) for x in v)


def random_rotation(rng) -> np.ndarray:
    Q, R = np.linalg.qr(rng.normal(size=(3, 3)))
    Q = Q * np.sign(np.diag(R))
    return Q if np.linalg.det(Q) > 0 else -Q


def add_inertial(link: ET.Element, rng, mass: float | None = None) -> None:
    """A random physically consistent ``<inertial>`` in a turned, displaced inertial frame."""
    inertial = ET.SubElement(link, "inertial")
    ET.SubElement(inertial, "origin", xyz=_xyz(rng.uniform(-0.15, 0.15, 3)),
                  rpy=_xyz(urdf_rpy_from_matrix(random_rotation(rng))))
    ET.SubElement(inertial, "mass", value=repr(float(mass if mass is not None else rng.uniform(0.3, 6.0))))
    a, b = rng.uniform(0.005, 0.08, 2)
    moments = np.array([a, b, rng.uniform(abs(a - b), a + b)])
    Rm = random_rotation(rng)
    I = Rm @ np.diag(moments) @ Rm.T
    ET.SubElement(inertial, "inertia", **{f"i{a}": repr(float(I[i, j])) for a, (i, j) in
                                          zip(("xx", "xy", "xz", "yy", "yz", "zz"), np.transpose(np.triu_indices(3)))})


def adversarial_urdf(seed: int) -> str:
    """A random 6R robot whose inertials sit in every kind of frame a real description has (see the module docstring).

    Links: ``root`` -> ``pedestal`` (tilted, displaced) -> ``mount`` (turned) -> joint 1 -> ``link1`` [->
    ``spacer1`` (fixed, turned, displaced, with mass)] -> joint 2 ... ``link6`` -> ``flange`` -> ``tool0`` (both
    massless, turned) -> ``camera`` (a massive leaf beyond the tip); ``cover<k>`` leaves fixed beside the chain;
    ``base`` a frame beside the root (ROS-I's). The tip is therefore ambiguous: ``tool0`` is given.
    """
    rng = np.random.default_rng(seed)
    robot = ET.Element("robot", name=f"adversarial{seed}")

    def link(name: str, massive: bool = True) -> str:
        element = ET.SubElement(robot, "link", name=name)
        if massive:
            add_inertial(element, rng)
        return name

    def joint(name: str, kind: str, parent: str, child: str, *, spread: float = 0.3) -> ET.Element:
        element = ET.SubElement(robot, "joint", name=name, type=kind)
        ET.SubElement(element, "parent", link=parent)
        ET.SubElement(element, "child", link=child)
        ET.SubElement(element, "origin", xyz=_xyz(rng.uniform(-spread, spread, 3)),
                      rpy=_xyz(urdf_rpy_from_matrix(random_rotation(rng))))
        if kind == "revolute":
            ET.SubElement(element, "axis", xyz=_xyz(random_rotation(rng)[:, 0]))
            ET.SubElement(element, "limit", lower="-3.0", upper="3.0", velocity="3.0", effort="100")
        return element

    joint("pedestal_joint", "fixed", link("root"), link("pedestal"))
    joint("mount_joint", "fixed", "pedestal", link("mount"))
    joint("base_frame", "fixed", "root", link("base", massive=False))
    parent = "mount"
    for k in range(1, 7):
        joint(f"joint_{k}", "revolute", parent, link(f"link{k}", massive=bool(rng.uniform() < 0.85)))
        parent = f"link{k}"
        if rng.uniform() < 0.5:
            joint(f"spacer{k}_joint", "fixed", parent, link(f"spacer{k}"))
            parent = f"spacer{k}"
        if rng.uniform() < 0.4:
            joint(f"cover{k}_joint", "fixed", f"link{k}", link(f"cover{k}"), spread=0.1)
    joint("flange_joint", "fixed", parent, link("flange", massive=False), spread=0.05)
    joint("tool0_joint", "fixed", "flange", link("tool0", massive=False), spread=0.05)
    joint("camera_joint", "fixed", "tool0", link("camera"), spread=0.1)
    return '<?xml version="1.0"?>\n' + ET.tostring(robot, encoding="unicode")


def with_random_inertials(urdf: str, seed: int) -> str:
    """``urdf`` with a random inertial on every link (the GoFa description carries none)."""
    rng = np.random.default_rng(seed)
    root = ET.fromstring(urdf)
    for link in root.findall("link"):
        for old in link.findall("inertial"):
            link.remove(old)
        add_inertial(link, rng)
    return ET.tostring(root, encoding="unicode")


def ros_options(**kw) -> RobotFileOptions:
    return RobotFileOptions(package_paths=(ROBOTS,), use_ros_package_path=False, **kw)


@pytest.fixture(scope="module")
def expanded(tmp_path_factory) -> dict[str, Path]:
    """The ROS-I UR5 and the GoFa (with random inertials) expanded once, as plain URDFs."""
    if not UR5_XACRO.is_file() or not GOFA_XACRO.is_file():
        pytest.skip(f"ROS-Industrial packages not found in {ROBOTS} (../shared/reference)")
    folder = tmp_path_factory.mktemp("expanded")
    ur5 = folder / "ur5.urdf"
    ur5.write_text(read_robot_description(UR5_XACRO, ros_options()).urdf)
    gofa = folder / "gofa.urdf"
    gofa.write_text(with_random_inertials(read_robot_description(GOFA_XACRO, ros_options()).urdf, 5))
    return {"ur5": ur5, "gofa": gofa}


def _robot_cases():
    yield pytest.param("ur5", None, None, marks=needs_robots, id="ur5")
    yield pytest.param("ur5", "base", None, marks=needs_robots, id="ur5-base")
    yield pytest.param("ur5", "base_link_inertia", "flange", marks=needs_robots, id="ur5-inertia-flange")
    yield pytest.param("gofa", None, None, marks=needs_robots, id="gofa")
    yield pytest.param("gofa", "base", "flange", marks=needs_robots, id="gofa-base-flange")
    for seed in range(4):
        for base in (None, "pedestal", "base"):
            yield pytest.param(f"adversarial{seed}", base, "tool0", id=f"adversarial{seed}-{base}")


CASES = list(_robot_cases())


def robot_file(name: str, expanded_files, tmp_path: Path) -> Path:
    if name.startswith("adversarial"):
        path = tmp_path / f"{name}.urdf"
        path.write_text(adversarial_urdf(int(name.removeprefix("adversarial"))))
        return path
    return expanded_files[name]


@pytest.fixture
def expanded_files(request):
    """The expanded ROS-I files when a case needs them (the adversarial robots do not)."""
    return request.getfixturevalue("expanded") if request.node.callspec.params["name"] in ("ur5", "gofa") else {}


# --- the reader and the writer -------------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "base", "tip"), CASES)
def test_read_inertials_give_pinocchios_torques(name, base, tip, expanded_files, tmp_path, rng):
    path = robot_file(name, expanded_files, tmp_path)
    info = urdf_parameters_of(path, RobotFileOptions(base_link=base, tip_link=tip))
    q, qd, qdd = states(info.chain, rng)
    assert_round_off(regressor(info.chain, q, qd, qdd) @ info.parameters,
                     rnea(path.read_text(), info.chain.joint_names, q, qd, qdd))


@pytest.mark.parametrize(("name", "base", "tip"), CASES)
def test_written_inertials_give_pinocchios_torques_and_read_back(name, base, tip, expanded_files, tmp_path, rng):
    """The writer puts each link's parameters in that URDF link's own frame: pinocchio reads the written file."""
    path = robot_file(name, expanded_files, tmp_path)
    info = urdf_parameters_of(path, RobotFileOptions(base_link=base, tip_link=tip))
    n = info.chain.n_joints
    # Other inertials: each link's own part scaled (consistent), what is fixed to it kept.
    own = (info.parameters - info.attached).reshape(n, 10)
    changed = (own * rng.uniform(0.5, 1.5, (n, 1))).reshape(-1) + info.attached
    text = urdf_with_parameters(info, changed)
    q, qd, qdd = states(info.chain, rng)
    assert_round_off(regressor(info.chain, q, qd, qdd) @ changed, rnea(text, info.chain.joint_names, q, qd, qdd))
    out = tmp_path / "written.urdf"
    out.write_text(text)
    back = urdf_parameters_of(out, RobotFileOptions(base_link=base, tip_link=tip))
    np.testing.assert_allclose(back.parameters, changed, rtol=0, atol=1e-12 * np.max(np.abs(changed)))
    np.testing.assert_array_equal(back.chain.T_world_base, info.chain.T_world_base)


def test_a_link_moving_with_a_joint_off_the_chain_is_refused(tmp_path):
    """A branch with its own joint below the chain (a gripper finger) cannot be counted as part of a link."""
    root = ET.fromstring(adversarial_urdf(0))
    extra = ET.SubElement(root, "link", name="finger")
    add_inertial(extra, np.random.default_rng(0))
    joint = ET.SubElement(root, "joint", name="finger_joint", type="revolute")
    ET.SubElement(joint, "parent", link="link3")
    ET.SubElement(joint, "child", link="finger")
    ET.SubElement(joint, "limit", lower="-1", upper="1", velocity="1", effort="1")
    path = tmp_path / "finger.urdf"
    path.write_text(ET.tostring(root, encoding="unicode"))
    with pytest.raises(InputError, match="finger_joint.*not on the chain") as exc:
        urdf_parameters_of(path, RobotFileOptions(tip_link="tool0"))
    assert str(path) in str(exc.value)


# --- the commands --------------------------------------------------------------------------------------------------


def trajectory_file(chain, path: Path, rng, count: int = 40) -> Recording:
    q, qd, qdd = states(chain, rng, count)
    motion = Recording(time=np.arange(count) * 0.01, q=q, tau=np.zeros_like(q), qd=qd, qdd=qdd)
    write_recording_csv(path, motion, ("random states",), torques=False)
    return motion


@pytest.mark.slow
@needs_robots
def test_feedforward_and_simulate_recording_of_the_ros_industrial_ur5_xacro(tmp_path, rng, capsys):
    """The xacro file itself, with --package-path: feedforward (thermocomp's regressor) and simulate-recording
    (PyBullet) both give pinocchio's torques of the expanded file."""
    urdf = read_robot_description(UR5_XACRO, ros_options()).urdf
    chain = urdf_parameters_of(UR5_XACRO, ros_options()).chain
    motion = trajectory_file(chain, tmp_path / "trajectory.csv", rng)
    want = rnea(urdf, chain.joint_names, motion.q, motion.qd, motion.qdd)
    files = ["--package-path", str(ROBOTS)]
    assert main(["feedforward", "--robot", str(UR5_XACRO), *files, "--trajectory", str(tmp_path / "trajectory.csv"),
                 "--out", str(tmp_path / "ff.csv")]) == 0
    assert_round_off(read_recording_csv(tmp_path / "ff.csv").tau, want)
    assert main(["simulate-recording", "--truth", str(UR5_XACRO), *files, "--trajectory",
                 str(tmp_path / "trajectory.csv"), "--out", str(tmp_path / "rec.csv")]) == 0
    # PyBullet keeps the file's doubles (its inverse dynamics runs in double precision).
    assert_round_off(read_recording_csv(tmp_path / "rec.csv").tau, want)
    capsys.readouterr()


def test_feedforward_takes_the_tip_link_of_a_description_with_two_leaves(tmp_path, rng, capsys):
    """A UR10e-like description with a redundant ``ee_link`` leaf beside ``tool0``: --tip-link chooses."""
    path = tmp_path / "robot.urdf"
    path.write_text(adversarial_urdf(1))
    chain = urdf_parameters_of(path, RobotFileOptions(tip_link="tool0")).chain
    trajectory_file(chain, tmp_path / "trajectory.csv", rng)
    argv = ["feedforward", "--robot", str(path), "--trajectory", str(tmp_path / "trajectory.csv"),
            "--out", str(tmp_path / "ff.csv")]
    assert main(argv) == 1
    assert "give tip_link (--tip-link)" in capsys.readouterr().err
    assert not (tmp_path / "ff.csv").exists()
    assert main([*argv, "--tip-link", "tool0", "--base-link", "pedestal"]) == 0
    motion = read_recording_csv(tmp_path / "ff.csv")
    assert_round_off(motion.tau, rnea(path.read_text(), chain.joint_names, motion.q, motion.qd, motion.qdd))


@needs_robots
@pytest.mark.slow
def test_round_trip_on_the_ros_industrial_ur5_gives_the_truth_back(expanded, tmp_path, rng, capsys):
    """simulate-recording with the ROS-I UR5 xacro as truth, identify from a CAD file that is the same description
    with other link masses, and the written URDF's torques (pinocchio) are the truth's on an unseen motion."""
    truth_text = expanded["ur5"].read_text()
    info = urdf_parameters_of(expanded["ur5"])
    n = info.chain.n_joints
    own = (info.parameters - info.attached).reshape(n, 10) * np.array([1.0, 1.4, 0.7, 1.3, 0.8, 1.2])[:, None]
    cad = tmp_path / "cad.urdf"
    cad.write_text(urdf_with_parameters(info, own.reshape(-1) + info.attached))
    files = ["--package-path", str(ROBOTS)]
    exc, rec = tmp_path / "excitation.csv", tmp_path / "rec.csv"
    assert main(["excite", "--robot", str(UR5_XACRO), *files, "--duration-s", "60", "--rate-hz", "50",
                 "--out", str(exc)]) == 0
    assert main(["simulate-recording", "--truth", str(UR5_XACRO), *files, "--trajectory", str(exc),
                 "--torque-noise-nm", "0.05", "--seed", "3", "--with-derivatives", "--out", str(rec)]) == 0
    out = tmp_path / "identified.urdf"
    main(["identify", "--robot", str(cad), "--recording", str(rec), "--urdf-out", str(out)])
    capsys.readouterr()
    q, qd, qdd = states(info.chain, rng, 200)
    want = rnea(truth_text, info.chain.joint_names, q, qd, qdd)
    got = rnea(out.read_text(), info.chain.joint_names, q, qd, qdd)
    before = rnea(cad.read_text(), info.chain.joint_names, q, qd, qdd)
    error, start = (np.max(np.abs(x - want)) / np.max(np.abs(want)) for x in (got, before))
    assert start > 0.05  # the CAD file is far from the truth
    print(f"round trip: {error:.3g} of the largest torque off, CAD {start:.3g}")
    assert error < 0.002, (error, start)  # measured 2e-4 (0.05 N m noise)


@needs_robots
@pytest.mark.slow
def test_inertia_from_the_ur5_xacro_meshes_gives_pinocchios_torques(tmp_path, rng):
    """``thermocomp inertia`` on the ROS-I UR5's own collision meshes: the URDF it writes has the dynamics of the
    ROS-I description carrying, on each link, trimesh's mass properties of that link's mesh at the same density,
    placed by the description's own frames (pinocchio)."""
    trimesh = pytest.importorskip("trimesh")
    from thermocomp.inertia.robot import InertiaOptions, compute_inertials
    from thermocomp.io.urdf import PLACEHOLDER_INERTIA, PLACEHOLDER_MASS, matrix_from_urdf_rpy

    out = tmp_path / "ur5_cad.urdf"
    assert main(["inertia", "--robot", str(UR5_XACRO), "--meshes", str(UR5_XACRO), "--package-path", str(ROBOTS),
                 "--mesh-kind", "collision", "--units", "m", "--total-mass", "18.4", "--out", str(out)]) == 0
    info = urdf_parameters_of(out)
    density = compute_inertials(str(UR5_XACRO), UR5_XACRO, InertiaOptions(total_mass=18.4, metres_per_unit=1.0,
                                mesh_kind="collision"), robot_options=ros_options()).inertials.density
    root = ET.fromstring(read_robot_description(UR5_XACRO, ros_options()).urdf)
    for link in root.findall("link"):
        for old in link.findall("inertial"):
            link.remove(old)
        collision = link.find("collision")
        if link.get("name") == "tool0":  # the written URDF's 1 g tcp placeholder sits on tool0
            mass, com, I = PLACEHOLDER_MASS, np.zeros(3), PLACEHOLDER_INERTIA * np.eye(3)
        elif collision is not None:
            uri = collision.find("geometry/mesh").get("filename")
            mesh = trimesh.load(ROBOTS / "ur5" / uri.removeprefix("package://ur_description/"), force="mesh")
            mesh.density = density
            origin = collision.find("origin")
            R = matrix_from_urdf_rpy([float(v) for v in origin.get("rpy", "0 0 0").split()])
            t = np.array([float(v) for v in origin.get("xyz", "0 0 0").split()])
            mass, com, I = mesh.mass, R @ mesh.center_mass + t, R @ mesh.moment_inertia @ R.T
        else:
            continue
        inertial = ET.SubElement(link, "inertial")
        ET.SubElement(inertial, "origin", xyz=_xyz(com), rpy="0 0 0")
        ET.SubElement(inertial, "mass", value=repr(float(mass)))
        ET.SubElement(inertial, "inertia", **{f"i{a}": repr(float(I[i, j])) for a, (i, j) in
                                              zip(("xx", "xy", "xz", "yy", "yz", "zz"), np.transpose(np.triu_indices(3)))})
    q, qd, qdd = states(info.chain, rng)
    want = rnea(ET.tostring(root, encoding="unicode"), info.chain.joint_names, q, qd, qdd)
    np.testing.assert_allclose(regressor(info.chain, q, qd, qdd) @ info.parameters, want, rtol=0,
                               atol=1e-9 * np.max(np.abs(want)))  # trimesh's and thermocomp's volume integrals


@needs_robots
@pytest.mark.slow
def test_payload_and_collisions_on_the_ros_industrial_ur5_xacro(expanded, tmp_path, capsys):
    """A 2 kg payload fixed beyond tool0 in a turned frame: collisions with the truth's model sees no torque error,
    and identify --payload from the ROS-I xacro writes a URDF whose dynamics is the truth's (pinocchio)."""
    root = ET.fromstring(expanded["ur5"].read_text())
    rng = np.random.default_rng(8)
    payload = ET.SubElement(root, "link", name="payload")
    add_inertial(payload, rng, mass=2.0)
    joint = ET.SubElement(root, "joint", name="payload_joint", type="fixed")
    ET.SubElement(joint, "parent", link="tool0")
    ET.SubElement(joint, "child", link="payload")
    ET.SubElement(joint, "origin", xyz="0.01 -0.02 0.05", rpy=_xyz(urdf_rpy_from_matrix(random_rotation(rng))))
    truth = tmp_path / "truth.urdf"
    truth.write_text(ET.tostring(root, encoding="unicode"))
    files = ["--package-path", str(ROBOTS)]
    exc, rec = tmp_path / "excitation.csv", tmp_path / "rec.csv"
    assert main(["excite", "--robot", str(UR5_XACRO), *files, "--duration-s", "20", "--rate-hz", "50",
                 "--out", str(exc)]) == 0
    assert main(["simulate-recording", "--truth", str(truth), "--trajectory", str(exc), "--with-derivatives",
                 "--out", str(rec)]) == 0
    capsys.readouterr()
    assert main(["collisions", "--robot", str(truth), "--recording", str(rec), "--threshold-nm", "1e-6"]) == 0
    assert "none" in capsys.readouterr().out.splitlines()[0]
    out = tmp_path / "with_payload.urdf"
    assert main(["identify", "--payload", "--robot", str(UR5_XACRO), *files, "--recording", str(rec),
                 "--urdf-out", str(out)]) == 0
    chain = urdf_parameters_of(truth).chain
    q, qd, qdd = states(chain, rng, 50)
    got = rnea(out.read_text(), chain.joint_names, q, qd, qdd)
    want = rnea(truth.read_text(), chain.joint_names, q, qd, qdd)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-7 * np.max(np.abs(want)))  # a least-squares fit of exact data
