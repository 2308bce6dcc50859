"""Robot files as users have them: xacro, ROS packages found by package.xml, base and tip links.

Small xacro files written here check the loader's contract (thermocomp.io.robot_files) without
the reference data; tests/test_ros_industrial.py runs the real ROS-Industrial packages.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from thermocomp.cli.main import EXIT_INPUT, EXIT_OK, main
from thermocomp.errors import InputError
from thermocomp.io.robot_files import RobotFileOptions, find_packages, load_robot_file, xacro_arg
from thermocomp.io.robots import load_robot
from thermocomp.io.urdf import urdf_chain_ends
from thermocomp.kinematics.fk import fk_matrix
from thermocomp.kinematics.model import nominal_model

pytest.importorskip("xacro", reason="xacro is a dependency of thermocomp (pip install -e .)")

#: Two exact descriptions of one robot agree to round-off (tests/test_dh.py).
EXACT = 1e-12

# A two-joint arm in a ROS-style package: a macro file with the joints (lengths from xacro
# properties and an argument), a top-level file that includes it through $(find PKG), a 'base'
# frame fixed beside the chain (turned by pi about z, as ROS-Industrial's UR 'base') and tool0.
MACRO = """<?xml version="1.0"?>
<robot xmlns:xacro="http://ros.org/wiki/xacro">
  <xacro:property name="upper" value="0.4"/>
  <xacro:macro name="arm" params="prefix reach">
    <link name="${prefix}base_link"/>
    <link name="${prefix}link_1"/>
    <link name="${prefix}link_2"/>
    <link name="${prefix}base"/>
    <link name="${prefix}tool0"/>
    <joint name="${prefix}joint_1" type="revolute">
      <parent link="${prefix}base_link"/><child link="${prefix}link_1"/>
      <origin xyz="0 0 0.3" rpy="0 0 0"/><axis xyz="0 0 1"/>
      <limit lower="${radians(-170)}" upper="${radians(170)}" velocity="2" effort="0"/>
    </joint>
    <joint name="${prefix}joint_2" type="revolute">
      <parent link="${prefix}link_1"/><child link="${prefix}link_2"/>
      <origin xyz="0 0 ${upper}" rpy="0 0 0"/><axis xyz="0 1 0"/>
      <limit lower="-2" upper="2" velocity="2" effort="0"/>
    </joint>
    <joint name="${prefix}base_link-base" type="fixed">
      <parent link="${prefix}base_link"/><child link="${prefix}base"/>
      <origin xyz="0 0 0" rpy="0 0 ${pi}"/>
    </joint>
    <joint name="${prefix}link_2-tool0" type="fixed">
      <parent link="${prefix}link_2"/><child link="${prefix}tool0"/>
      <origin xyz="${reach} 0 0" rpy="0 ${pi/2} 0"/>
    </joint>
  </xacro:macro>
</robot>
"""
TOP = """<?xml version="1.0"?>
<robot name="toy_arm" xmlns:xacro="http://ros.org/wiki/xacro">
  <xacro:arg name="reach" default="0.25"/>
  <xacro:include filename="$(find toy_arm_description)/urdf/arm_macro.xacro"/>
  <xacro:arm prefix="" reach="$(arg reach)"/>
</robot>
"""


def make_package(root: Path, folder: str = "arm", name: str = "toy_arm_description", top: str = TOP) -> Path:
    """A ROS package ``name`` in ``root/folder`` (the folder deliberately not named after it); its top xacro."""
    pkg = root / folder
    (pkg / "urdf").mkdir(parents=True)
    (pkg / "package.xml").write_text(f'<?xml version="1.0"?>\n<package format="3"><name>{name}</name>'
                                     "<version>1.0.0</version></package>\n")
    (pkg / "urdf" / "arm_macro.xacro").write_text(MACRO)
    (pkg / "urdf" / "arm.xacro").write_text(top)
    return pkg / "urdf" / "arm.xacro"


def oracle(q: np.ndarray, reach: float, base_turn: float = 0.0) -> np.ndarray:
    """tool0 in base_link (or in a base frame turned by ``base_turn`` about z), with scipy rotations."""
    def T(xyz, R):
        out = np.eye(4)
        out[:3, :3], out[:3, 3] = R, xyz
        return out

    rot = Rotation.from_rotvec
    chain = (T([0, 0, 0.3], rot([0, 0, q[0]]).as_matrix()) @ T([0, 0, 0.4], rot([0, q[1], 0]).as_matrix())
             @ T([reach, 0, 0], rot([0, np.pi / 2, 0]).as_matrix()))
    return T([0, 0, 0], rot([0, 0, base_turn]).as_matrix()).T @ chain


@pytest.fixture
def arm(tmp_path: Path) -> Path:
    return make_package(tmp_path / "ws")


def test_packages_are_named_by_package_xml_not_by_folder(tmp_path: Path, arm: Path) -> None:
    other = make_package(tmp_path / "overlay", folder="x", name="toy_arm_description")
    (tmp_path / "ws" / "ignored").mkdir()
    (tmp_path / "ws" / "ignored" / "COLCON_IGNORE").touch()
    make_package(tmp_path / "ws" / "ignored", folder="y", name="hidden_pkg")
    found = find_packages((tmp_path / "ws",))
    assert found == {"toy_arm_description": tmp_path / "ws" / "arm"}
    # An earlier folder of the search path wins, as ROS_PACKAGE_PATH overlays do.
    assert find_packages((tmp_path / "overlay", tmp_path / "ws"))["toy_arm_description"] == other.parents[1]


@pytest.mark.slow
def test_xacro_loads_with_tool0_and_its_argument(tmp_path: Path, arm: Path) -> None:
    options = RobotFileOptions(package_paths=(tmp_path / "ws",), use_ros_package_path=False)
    chain = load_robot_file(arm, options)
    assert chain.name == "toy_arm" and chain.joint_names == ("joint_1", "joint_2")
    np.testing.assert_allclose(np.degrees([chain.lower[0], chain.upper[0]]), [-170, 170], rtol=0, atol=1e-12)
    q = np.random.default_rng(5).uniform(-1.5, 1.5, (20, 2))
    np.testing.assert_allclose(fk_matrix(nominal_model(chain), q), [oracle(qk, 0.25) for qk in q], rtol=0, atol=EXACT)
    longer = load_robot_file(arm, RobotFileOptions(package_paths=(tmp_path / "ws",), xacro_args=(("reach", "0.5"),)))
    np.testing.assert_allclose(fk_matrix(nominal_model(longer), q), [oracle(qk, 0.5) for qk in q], rtol=0, atol=EXACT)
    # A frame fixed beside the chain as the base: the chain in that frame.
    turned = load_robot_file(arm, RobotFileOptions(package_paths=(tmp_path / "ws",), base_link="base"))
    np.testing.assert_allclose(fk_matrix(nominal_model(turned), q), [oracle(qk, 0.25, np.pi) for qk in q],
                               rtol=0, atol=EXACT)


def test_ros_package_path_is_searched(tmp_path: Path, arm: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ROS_PACKAGE_PATH", f"{tmp_path / 'nothing'}:{tmp_path / 'ws'}")
    assert load_robot_file(arm).n_joints == 2
    with pytest.raises(InputError, match="no ROS package named 'toy_arm_description'"):
        load_robot_file(arm, RobotFileOptions(use_ros_package_path=False))


def test_several_leaves_name_the_candidates(tmp_path: Path) -> None:
    text = TOP.replace('<xacro:arm prefix="" reach="$(arg reach)"/>',
                       '<xacro:arm prefix="" reach="$(arg reach)"/><link name="camera"/>'
                       '<joint name="cam" type="fixed"><parent link="link_1"/><child link="camera"/></joint>')
    path = make_package(tmp_path / "ws", top=text)
    options = RobotFileOptions(package_paths=(tmp_path / "ws",))
    with pytest.raises(InputError, match=r"camera \(1 joints\), tool0 \(2 joints\); give tip_link \(--tip-link\)"):
        load_robot_file(path, options)
    chain = load_robot_file(path, RobotFileOptions(package_paths=(tmp_path / "ws",), tip_link="camera"))
    assert chain.joint_names == ("joint_1",)


def test_default_ends_of_a_ros_industrial_tree() -> None:
    """``base`` (fixed beside the chain) is no candidate tip: the default of a ROS-I tree is root -> tool0."""
    text = ('<robot name="r"><link name="base_link"/><link name="l1"/><link name="base"/><link name="tool0"/>'
            '<joint name="j" type="continuous"><parent link="base_link"/><child link="l1"/></joint>'
            '<joint name="b" type="fixed"><parent link="base_link"/><child link="base"/></joint>'
            '<joint name="t" type="fixed"><parent link="l1"/><child link="tool0"/></joint></robot>')
    assert urdf_chain_ends(text, "r.urdf") == ("base_link", "tool0")
    assert urdf_chain_ends(text, "r.urdf", base_link="base") == ("base", "tool0")


@pytest.mark.parametrize(
    ("change", "message", "line"),
    [
        (("${upper}", "${uper}"), "name 'uper' is not defined", 17),
        (("<link name=\"${prefix}link_2\"/>", "<link name=\"${prefix}link_2\">"), "well-formed XML", None),
        (("$(find toy_arm_description)", "$(find no_such_pkg)"), "no ROS package named 'no_such_pkg'", None),
    ],
    ids=["undefined-property", "malformed-xml", "unknown-package"],
)
def test_xacro_errors_are_located(tmp_path: Path, arm: Path, change, message: str, line: int | None) -> None:
    for path in (arm, arm.parent / "arm_macro.xacro"):
        path.write_text(path.read_text().replace(*change))
    with pytest.raises(InputError, match=message) as info:
        load_robot_file(arm, RobotFileOptions(package_paths=(tmp_path / "ws",)))
    assert info.value.path is not None and Path(info.value.path).name in ("arm.xacro", "arm_macro.xacro")
    assert info.value.row is not None
    if line is not None:
        assert (Path(info.value.path).name, info.value.row) == ("arm_macro.xacro", line)


def test_xacro_arg_syntax() -> None:
    assert xacro_arg("reach:=0.5") == ("reach", "0.5")
    assert xacro_arg("name:=a:=b") == ("name", "a:=b")
    for bad in ("reach=0.5", ":=1"):
        with pytest.raises(InputError, match="expected name:=value"):
            xacro_arg(bad)


def test_links_are_refused_for_a_builtin_robot() -> None:
    with pytest.raises(InputError, match="--tip-link: only for a .urdf or .xacro robot file"):
        load_robot("irb140", RobotFileOptions(tip_link="tool0"))


@pytest.mark.slow
def test_every_robot_command_takes_the_robot_file_options(tmp_path: Path, arm: Path, capsys) -> None:
    ws = str(tmp_path / "ws")
    common = ["--package-path", ws, "--xacro-arg", "reach:=0.5", "--tip-link", "tool0"]
    assert main(["robot", "show", str(arm), *common]) == EXIT_OK
    shown = capsys.readouterr().out
    assert "joint_1" in shown and "joint_2" in shown
    out = tmp_path / "arm.csv"
    assert main(["robot", "export", str(arm), "--out", str(out), *common]) == EXIT_OK
    q = np.array([[0.3, -0.7]])
    np.testing.assert_allclose(fk_matrix(nominal_model(load_robot(str(out))), q), [oracle(q[0], 0.5)], rtol=0, atol=1e-9)
    for command in (["compensate"], ["sim"], ["inertia"], ["calibrate"], ["track"], ["robot", "show"],
                    ["coppeliasim", "convention"]):
        text = capsys.readouterr() and _help(command, capsys)
        for flag in ("--base-link", "--tip-link", "--xacro-arg", "--package-path"):
            assert flag in text, (command, flag)


def _help(command: list[str], capsys) -> str:
    with pytest.raises(SystemExit):
        main([*command, "--help"])
    return capsys.readouterr().out


def test_bad_xacro_from_the_command_line_exits_1_with_a_located_message(tmp_path: Path, arm: Path, capsys) -> None:
    macro = arm.parent / "arm_macro.xacro"
    macro.write_text(macro.read_text().replace("${upper}", "${uper}"))
    status = main(["robot", "show", str(arm), "--package-path", str(tmp_path / "ws")])
    err = capsys.readouterr().err
    assert status == EXIT_INPUT
    assert f"{macro.resolve()}, line 17: xacro: name 'uper' is not defined" in err
    assert "Traceback" not in err


@pytest.mark.slow
def test_no_output_lands_on_a_file_the_robot_is_made_of(tmp_path: Path, arm: Path, capsys) -> None:
    """The included macro file (and a mesh) of a xacro robot are inputs: an output there is refused, nothing written."""
    macro = arm.parent / "arm_macro.xacro"
    mesh = arm.parent / "link_1.stl"
    mesh.write_bytes(b"solid x\nendsolid x\n")
    macro.write_text(macro.read_text().replace('<link name="${prefix}link_1"/>',
                                               '<link name="${prefix}link_1"><visual><geometry><mesh '
                                               'filename="package://toy_arm_description/urdf/link_1.stl"/>'
                                               '</geometry></visual></link>'))
    before = {p: p.read_bytes() for p in (macro, mesh)}
    targets = tmp_path / "t.csv"
    targets.write_text("name,x_mm,y_mm,z_mm,euler_xyz_a_deg,euler_xyz_b_deg,euler_xyz_c_deg\nA,200,0,500,0,90,0\n")
    deformation = tmp_path / "d.csv"
    deformation.write_text("Dx,Dy,Dz,Dox,Doy,Doz\n0,0,0,0,0,0\n0,0,0,0,0,0\n")
    for victim in (macro, mesh):
        status = main(["compensate", "--robot", str(arm), "--package-path", str(tmp_path / "ws"), "--static",
                       "--deformation", str(deformation), "--targets", str(targets), "--out", str(victim),
                       "--allow-failures"])
        assert status == EXIT_INPUT, capsys.readouterr()
        assert victim.name in capsys.readouterr().err
    assert {p: p.read_bytes() for p in (macro, mesh)} == before
