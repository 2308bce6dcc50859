"""``thermocomp robot export``: the robot read back is the robot (home included), with its meshes and inertials."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from helpers import REFERENCE, REPO

from thermocomp.app.export import robot_file_link_inertials
from thermocomp.cli.main import EXIT_INPUT, EXIT_OK, main
from thermocomp.inertia.builtin import builtin_inertials
from thermocomp.io.robots import load_robot
from thermocomp.io.urdf import urdf_text
from thermocomp.kinematics.fk import fk_matrix
from thermocomp.kinematics.model import nominal_model

DEFORMATION = REPO / "deformations" / "exaggerated.csv"
PRINT_PATH = REPO / "scenes" / "ur5_print_path.csv"
ROBOTS = REFERENCE / "robots"
GOFA_XACRO = ROBOTS / "abb_crb15000_5_95" / "urdf" / "crb15000_5_95.xacro"


def _angles(path: Path) -> np.ndarray:
    import pandas as pd

    frame = pd.read_csv(path, comment="#")
    assert (frame["status"] == "converged").all()
    return frame[[f"q{i}_deg" for i in range(1, 7)]].to_numpy()


def test_export_and_reimport_compensates_with_the_same_angles(tmp_path: Path, capsys) -> None:
    """The UR5 print path on the exported URDF: the same branch and angles as on the built-in ur5.

    Before the URDF kept the home configuration, the re-imported robot started from zero and
    converged on another branch, up to 282 degrees away.
    """
    urdf = tmp_path / "ur5.urdf"
    assert main(["robot", "export", "ur5", "--out", str(urdf)]) == EXIT_OK
    again = load_robot(str(urdf))
    np.testing.assert_array_equal(again.home, load_robot("ur5").home)
    for robot, out in (("ur5", tmp_path / "builtin.csv"), (str(urdf), tmp_path / "reimported.csv")):
        assert main(["compensate", "--robot", robot, "--deformation", str(DEFORMATION), "--targets", str(PRINT_PATH),
                     "--out", str(out)]) == EXIT_OK
    capsys.readouterr()
    np.testing.assert_allclose(_angles(tmp_path / "reimported.csv"), _angles(tmp_path / "builtin.csv"), rtol=0, atol=1e-9)


def test_home_element_is_checked(tmp_path: Path) -> None:
    text = urdf_text(load_robot("ur5"))
    bad = tmp_path / "bad.urdf"
    bad.write_text(text.replace('<home joint="elbow_joint" position="1.5707963267948966"',
                                '<home joint="elbow_joint" position="7.0"'))
    assert main(["robot", "show", str(bad)]) == EXIT_INPUT
    bad.write_text(text.replace('<home joint="elbow_joint"', '<home joint="no_such_joint"'))
    assert main(["robot", "show", str(bad)]) == EXIT_INPUT


def test_export_with_meshes_and_inertials_loads_in_pybullet(tmp_path: Path, capsys) -> None:
    pb = pytest.importorskip("pybullet")
    inertial_urdf = tmp_path / "gofa_inertial.urdf"
    assert main(["inertia", "--robot", "gofa", "--meshes", str(REPO / "robots" / "gofa" / "meshes"), "--units", "m",
                 "--total-mass", "28", "--out", str(inertial_urdf)]) == EXIT_OK
    out = tmp_path / "gofa.urdf"
    assert main(["robot", "export", "gofa", "--with-meshes", "--inertials", str(inertial_urdf), "--out", str(out)]) == EXIT_OK
    capsys.readouterr()
    chain = load_robot("gofa")
    carried = robot_file_link_inertials(out, chain)
    assert sorted(carried) == [f"link{k}" for k in range(1, 7)]  # the fixed base carries none
    for link in builtin_inertials("gofa").links[1:6]:
        # The inertia command on the shipped envelopes computes what inertia.csv holds (to its 10 digits).
        assert carried[link.link].mass == pytest.approx(link.mass, rel=1e-8)
        np.testing.assert_allclose(carried[link.link].com, link.com, rtol=0, atol=1e-9)
        np.testing.assert_allclose(carried[link.link].inertia, link.inertia, rtol=1e-8, atol=1e-12)
    # link6 carries what moves with joint 6: the inertia URDF's 1 g 'tcp' placeholder, then the export's own.
    assert carried["link6"].mass == pytest.approx(builtin_inertials("gofa").links[6].mass + 0.002, rel=1e-8)
    text = out.read_text()
    assert str((REPO / "robots" / "gofa" / "meshes" / "link3.stl").resolve()) in text
    client = pb.connect(pb.DIRECT)
    try:
        body = pb.loadURDF(str(out), useFixedBase=True, flags=pb.URDF_USE_INERTIA_FROM_FILE, physicsClientId=client)
        names = {pb.getJointInfo(body, j, physicsClientId=client)[12].decode(): j
                 for j in range(pb.getNumJoints(body, physicsClientId=client))}
        assert pb.getCollisionShapeData(body, names["link3"], physicsClientId=client)
        assert pb.getDynamicsInfo(body, names["link3"], physicsClientId=client)[0] == pytest.approx(carried["link3"].mass)
    finally:
        pb.disconnect(physicsClientId=client)


def test_inertials_of_another_robot_are_refused(tmp_path: Path, capsys) -> None:
    inertial_urdf = tmp_path / "gofa_inertial.urdf"
    inertial_urdf.write_text(urdf_text(load_robot("gofa")))
    assert main(["robot", "export", "ur5", "--inertials", str(inertial_urdf), "--out", str(tmp_path / "u.urdf")]) == EXIT_INPUT
    assert "another robot" in capsys.readouterr().err
    assert not (tmp_path / "u.urdf").exists()
    assert main(["robot", "export", "ur5", "--with-meshes", "--out", str(tmp_path / "u.csv")]) == EXIT_INPUT
    assert main(["robot", "export", str(REPO / "robots" / "gofa" / "chain.csv"), "--with-meshes",
                 "--out", str(tmp_path / "g.urdf")]) == EXIT_INPUT


@pytest.mark.slow
@pytest.mark.skipif(not GOFA_XACRO.is_file(), reason=f"ROS-Industrial packages not found in {ROBOTS} (../shared/reference)")
def test_a_xacro_robot_exports_its_own_meshes(tmp_path: Path, capsys) -> None:
    """The GoFa xacro with its package:// meshes resolved: one URDF that PyBullet loads, the same kinematics."""
    pb = pytest.importorskip("pybullet")
    out = tmp_path / "gofa_ros.urdf"
    assert main(["robot", "export", str(GOFA_XACRO), "--package-path", str(ROBOTS), "--with-meshes",
                 "--out", str(out)]) == EXIT_OK
    capsys.readouterr()
    text = out.read_text()
    visual = ROBOTS / "abb_crb15000_5_95" / "meshes" / "crb15000_5_95" / "visual" / "link_3.stl"
    assert str(visual.resolve()) in text and "package://" not in text
    q = np.random.default_rng(2).uniform(-2, 2, (20, 6))
    np.testing.assert_allclose(fk_matrix(nominal_model(load_robot(str(out))), q),
                               fk_matrix(nominal_model(load_robot("gofa")), q), rtol=0, atol=1e-9)
    client = pb.connect(pb.DIRECT)
    try:
        body = pb.loadURDF(str(out), useFixedBase=True, physicsClientId=client)
        assert pb.getNumJoints(body, physicsClientId=client) == 8  # world-base .. link6, tcp
    finally:
        pb.disconnect(physicsClientId=client)


UR5_XACRO = ROBOTS / "ur5" / "urdf" / "ur5.xacro"


@pytest.mark.skipif(not (GOFA_XACRO.is_file() and UR5_XACRO.is_file()),
                    reason=f"ROS-Industrial packages not found in {ROBOTS} (../shared/reference)")
@pytest.mark.parametrize("robot", ["ur5", "gofa"])
def test_ros_industrial_inertials_give_pinocchios_torques(robot, tmp_path: Path, capsys) -> None:
    """``--inertials`` from a ROS-Industrial description, read as the dynamics commands read it: the UR5 xacro (its
    base_link turned by pi from the built-in base) and the GoFa's expanded URDF with random inertials in turned
    frames (its xacro has none). The exported URDF moves like the description under pinocchio's RNEA."""
    pytest.importorskip("pinocchio", reason="pinocchio (pip install pin) is the independent inverse dynamics")
    import xml.etree.ElementTree as ET

    from test_dynamics_frames import rnea, ros_options, states, with_random_inertials

    from thermocomp.io.robot_files import read_robot_description

    description = read_robot_description(UR5_XACRO if robot == "ur5" else GOFA_XACRO, ros_options())
    theirs = description.urdf if robot == "ur5" else with_random_inertials(description.urdf, 5)
    source = tmp_path / f"{robot}_ros.urdf"
    source.write_text(theirs)
    out = tmp_path / f"{robot}.urdf"
    assert main(["robot", "export", robot, "--inertials", str(source), "--out", str(out)]) == EXIT_OK
    capsys.readouterr()
    exported = ET.fromstring(out.read_text())
    for link in exported.findall("link"):  # the exported URDF's 1 g placeholders ('world', 'base', 'tcp') out
        if link.get("name") in ("world", "base", "tcp"):
            link.remove(link.find("inertial"))
    chain = load_robot(robot)
    q, qd, qdd = states(chain, np.random.default_rng(5))
    got = rnea(ET.tostring(exported, encoding="unicode"), chain.joint_names, chain.theta_from_q(q), qd * chain.sign,
               qdd * chain.sign) * chain.sign
    want = rnea(theirs, chain.joint_names, q, qd, qdd)
    scale = float(np.max(np.abs(want)))
    assert scale > 1.0  # not vacuous
    # The built-in kinematics equals the descriptions' to 1e-9 m (test_ros_industrial.py: the UR5 yaml's pi/2 is
    # off by 2e-10 rad); over lever arms of 0.1 m that is 1e-8 of a torque. A link frame off is off by percent.
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-7 * scale)
