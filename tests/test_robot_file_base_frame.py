"""A URScript program on a ROS-Industrial UR robot file: its poses are in the controller's ``base``, not the root.

A UR description (``ur_description``) has the root ``base_link`` and a link ``base`` fixed to it, turned by
pi about z: the UR controller's base frame, the frame of URScript poses. Without ``--base-link`` the chain's
base is the root and every target of the program was turned by 180 deg about z, with exit 0. Now that run is
refused, naming ``--base-link``; a ``--base-link`` given (any link) is the user's decision. docs/robot_files.md.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from helpers import REFERENCE, REPO

from thermocomp.cli.main import EXIT_INPUT, EXIT_OK, main
from thermocomp.io.robot_files import RobotDescription, RobotFileOptions, controller_base_beside

ROBOTS = REFERENCE / "robots"
UR5_XACRO = ROBOTS / "ur5" / "urdf" / "ur5.xacro"
needs_ur5 = pytest.mark.skipif(not UR5_XACRO.is_file(),
                               reason=f"ROS-Industrial ur_description (UR5) not found in {ROBOTS} (../shared/reference)")
ZERO = REPO / "deformations" / "zero.csv"
#: The joint targets are written as the controller stores them (32-bit): 8 significant digits.
WRITTEN_JOINT_TOL = 1e-6

#: A URScript program (UR Script Manual: movej with joints, then Cartesian poses p[x, y, z, rx, ry, rz] in metres
#: and a rotation vector, in the controller's base frame).
PROGRAM = """def cell():
  set_tcp(p[0, 0, 0.1, 0, 0, 0])
  movej([0.1, -1.4, 1.6, -1.7, -1.5, 0.3], a=1.2, v=0.5)
  movel(p[0.45, -0.15, 0.30, 3.1, 0.2, 0.0], a=0.5, v=0.1)
  movel(p[0.40, 0.10, 0.25, 3.0, -0.3, 0.1], a=0.5, v=0.1)
  movej(p[0.30, -0.25, 0.40, 2.9, 0.5, -0.2], a=1.2, v=0.5)
end
"""


def _joints(text: str) -> np.ndarray:
    """Every ``movej([...])`` joint list of a written program [rad], ``(motions, 6)``."""
    return np.array([[float(x) for x in m.split(",")] for m in re.findall(r"movej\(\[([^\]]*)\]", text)])


def _compensate(robot: list[str], program: Path, out: Path, capsys) -> tuple[int, str]:
    code = main(["compensate", *robot, "--deformation", str(ZERO), "--program", str(program),
                 "--program-output", "joints", "--out", str(out)])
    return code, capsys.readouterr().err


@needs_ur5
def test_urscript_on_the_ur_description_needs_a_base_link(tmp_path: Path, capsys) -> None:
    """Refused before any output: exit 1, no traceback, the option, the file, the link and why."""
    program, out = tmp_path / "cell.script", tmp_path / "out.script"
    program.write_text(PROGRAM, encoding="utf-8")
    xacro = ["--robot", str(UR5_XACRO), "--package-path", str(ROBOTS)]
    code, err = _compensate(xacro, program, out, capsys)
    assert code == EXIT_INPUT
    assert "Traceback" not in err
    assert str(UR5_XACRO) in err
    for words in ("--base-link base ", "--base-link base_link ", "'base'", "controller's base frame",
                  "turned by 180 deg"):
        assert words in err, (words, err)
    assert not out.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["cell.script"]


@needs_ur5
def test_base_link_base_is_the_builtin_ur5_and_the_root_is_taken_on_purpose(tmp_path: Path, capsys) -> None:
    """With ``--base-link base`` the written joints are the built-in UR5's (UR's DH table), to the written
    digits; ``--base-link base_link`` is accepted and solves the same poses in the root frame: other joints."""
    program = tmp_path / "cell.script"
    program.write_text(PROGRAM, encoding="utf-8")
    xacro = ["--robot", str(UR5_XACRO), "--package-path", str(ROBOTS)]
    written = {}
    for name, robot in (("builtin", ["--robot", "ur5"]), ("base", [*xacro, "--base-link", "base"]),
                        ("base_link", [*xacro, "--base-link", "base_link"])):
        out = tmp_path / f"{name}.script"
        code, err = _compensate(robot, program, out, capsys)
        assert code == EXIT_OK, err
        written[name] = _joints(out.read_text(encoding="utf-8"))
    assert written["builtin"].shape == (4, 6)
    np.testing.assert_allclose(written["base"], written["builtin"], rtol=0, atol=WRITTEN_JOINT_TOL)
    # the root frame is the controller's turned by pi: the Cartesian targets land elsewhere (the movej joints
    # as written are kept)
    np.testing.assert_array_equal(written["base_link"][0], written["builtin"][0])
    assert np.max(np.abs(written["base_link"][1:] - written["builtin"][1:])) > 0.5


@needs_ur5
def test_sim_plays_the_program_in_the_chosen_base_only(tmp_path: Path) -> None:
    """``thermocomp sim --program`` plays the same program: the same refusal; with ``--base-link base`` its points
    are the built-in UR5's (the program's flange targets, the same frame)."""
    from thermocomp.app.sim import SimInputs, load_setup
    from thermocomp.errors import InputError

    program = tmp_path / "cell.script"
    program.write_text(PROGRAM, encoding="utf-8")
    file_options = {"package_paths": (ROBOTS,), "use_ros_package_path": False}
    with pytest.raises(InputError, match=r"--base-link: .*'base'.*--base-link base \(") as caught:
        load_setup(SimInputs(robot=str(UR5_XACRO), deformation=ZERO, program=program,
                             robot_options=RobotFileOptions(**file_options)))
    assert caught.value.path == str(UR5_XACRO)
    played = load_setup(SimInputs(robot=str(UR5_XACRO), deformation=ZERO, program=program,
                                  robot_options=RobotFileOptions(base_link="base", **file_options))).program
    builtin = load_setup(SimInputs(robot="ur5", deformation=ZERO, program=program)).program
    np.testing.assert_allclose(played.p_world_tcp, builtin.p_world_tcp, rtol=0, atol=1e-9)
    np.testing.assert_allclose(played.q_reference, builtin.q_reference, rtol=0, atol=1e-6)


def _description(urdf: str, **options) -> RobotDescription:
    return RobotDescription(source=Path("arm.urdf"), urdf=urdf, packages={}, options=RobotFileOptions(**options))


def _arm(base_joint: str, root: str = "") -> str:
    """A two-joint arm with a link ``base`` hung on ``base_link`` by ``base_joint`` (optionally below ``world``)."""
    world = ('<link name="world"/><joint name="w" type="fixed"><parent link="world"/><child link="base_link"/>'
             '</joint>') if root == "world" else ""
    return f"""<robot name="arm">{world}
  <link name="base_link"/><link name="base"/><link name="l1"/><link name="tool0"/>
  <joint name="base_link-base" type="{base_joint}"><parent link="base_link"/><child link="base"/>
    <origin xyz="0 0 0" rpy="0 0 3.141592653589793"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
  <joint name="j1" type="revolute"><parent link="base_link"/><child link="l1"/><axis xyz="0 0 1"/>
    <origin xyz="0 0 0.1"/><limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
  <joint name="j2" type="revolute"><parent link="l1"/><child link="tool0"/><axis xyz="0 1 0"/>
    <origin xyz="0.3 0 0"/><limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
</robot>"""


def test_controller_base_is_found_beside_the_default_base_only() -> None:
    """The link ``base`` fixed to the default base (the root, or the link a ``world`` root places) is found with
    the angle between the two; not when ``--base-link`` is given, nor when a joint that moves holds it."""
    link, base, angle = controller_base_beside(_description(_arm("fixed")))
    assert (link, base) == ("base", "base_link")
    assert angle == pytest.approx(np.pi, abs=1e-12)
    assert controller_base_beside(_description(_arm("fixed", root="world")))[:2] == ("base", "base_link")
    assert controller_base_beside(_description(_arm("fixed"), base_link="base_link")) is None
    assert controller_base_beside(_description(_arm("fixed"), base_link="base")) is None
    assert controller_base_beside(_description(_arm("revolute"), tip_link="tool0")) is None
