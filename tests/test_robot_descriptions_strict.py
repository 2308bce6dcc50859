"""Robot-description corners of a program run: a UR description with a ``tf_prefix`` (two arms of one cell), and
the description read once per run.

ROS-Industrial's ur_description names the controller's base frame ``<prefix>base``, fixed to
``<prefix>base_link`` and turned by pi about z; a dual-arm xacro calls the macro with ``prefix="left_"`` and
``prefix="right_"``. A URScript program on such a file, run without ``--base-link``, was compensated in the root's
frame in silence (only a link named exactly ``base`` was looked for).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from helpers import REFERENCE, REPO
from test_robot_file_base_frame import PROGRAM, WRITTEN_JOINT_TOL, _joints

import thermocomp.io.robot_files as robot_files
from thermocomp.cli.main import EXIT_INPUT, EXIT_OK, main
from thermocomp.io.robot_files import RobotDescription, RobotFileOptions, controller_base_beside

ROBOTS = REFERENCE / "robots"
UR5_MACRO = ROBOTS / "ur5" / "urdf" / "inc" / "ur5_macro.xacro"
needs_ur5 = pytest.mark.skipif(not UR5_MACRO.is_file(),
                               reason=f"ROS-Industrial ur_description (UR5) not found in {ROBOTS} (../shared/reference)")
ZERO = REPO / "deformations" / "zero.csv"

#: Two UR5s of ur_description in one cell, 1 m apart under ``world`` (the left one turned by 90 deg about z).
DUAL_XACRO = """<?xml version="1.0"?>
<robot xmlns:xacro="http://wiki.ros.org/xacro" name="dual_ur5">
  <xacro:include filename="$(find ur_description)/urdf/inc/ur5_macro.xacro"/>
  <link name="world"/>
  <xacro:ur5_robot prefix="left_"/>
  <xacro:ur5_robot prefix="right_"/>
  <joint name="world_left" type="fixed"><parent link="world"/><child link="left_base_link"/>
    <origin xyz="0 0.5 0" rpy="0 0 1.5707963267948966"/></joint>
  <joint name="world_right" type="fixed"><parent link="world"/><child link="right_base_link"/>
    <origin xyz="0 -0.5 0" rpy="0 0 0"/></joint>
</robot>
"""


def _prefixed_arm(prefix: str) -> str:
    return f"""<link name="{prefix}base_link"/><link name="{prefix}base"/><link name="{prefix}l1"/>
  <link name="{prefix}tool0"/>
  <joint name="w_{prefix}" type="fixed"><parent link="world"/><child link="{prefix}base_link"/></joint>
  <joint name="{prefix}base_link-base" type="fixed"><parent link="{prefix}base_link"/><child link="{prefix}base"/>
    <origin xyz="0 0 0" rpy="0 0 3.141592653589793"/></joint>
  <joint name="{prefix}j1" type="revolute"><parent link="{prefix}base_link"/><child link="{prefix}l1"/>
    <axis xyz="0 0 1"/><origin xyz="0 0 0.1"/><limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
  <joint name="{prefix}j2" type="revolute"><parent link="{prefix}l1"/><child link="{prefix}tool0"/>
    <axis xyz="0 1 0"/><origin xyz="0.3 0 0"/><limit lower="-3" upper="3" effort="1" velocity="1"/></joint>"""


def _dual(**options) -> RobotDescription:
    urdf = f'<robot name="cell"><link name="world"/>{_prefixed_arm("left_")}{_prefixed_arm("right_")}</robot>'
    return RobotDescription(source=Path("cell.urdf"), urdf=urdf, packages={}, options=RobotFileOptions(**options))


def test_a_prefixed_controller_base_is_found_on_the_arm_the_chain_runs_through() -> None:
    """Of two prefixed arms, the ``<prefix>base`` of the arm whose tip is chosen; none with --base-link."""
    assert controller_base_beside(_dual(tip_link="left_tool0"))[:2] == ("left_base", "world")
    link, base, angle = controller_base_beside(_dual(tip_link="right_tool0"))
    assert (link, base) == ("right_base", "world") and angle == pytest.approx(np.pi, abs=1e-12)
    assert controller_base_beside(_dual(tip_link="right_tool0", base_link="world")) is None
    # a link that merely ends in "base", with no <prefix>base_link beside it, is not taken for the controller's
    lone = _dual(tip_link="left_tool0").urdf.replace('"left_base"', '"left_xbase"').replace(
        '"left_base_link"', '"left_xbase_frame"')
    assert controller_base_beside(RobotDescription(source=Path("c.urdf"), urdf=lone, packages={},
                                                   options=RobotFileOptions(tip_link="left_tool0"))) is None


def _run(argv: list[str], capsys) -> tuple[int, str]:
    code = main([str(a) for a in argv])
    return code, capsys.readouterr().err


@needs_ur5
def test_urscript_on_a_dual_arm_ur_description_needs_a_base_link(tmp_path: Path, capsys, monkeypatch) -> None:
    """Refused before any output, naming the prefixed link of the chosen arm; the description is expanded once
    per run (it was read again to look for the link) and its files stay the run's inputs (no output on them)."""
    expansions = []
    expand = robot_files.expand_xacro
    monkeypatch.setattr(robot_files, "expand_xacro", lambda *a, **k: expansions.append(1) or expand(*a, **k))
    robot, program = tmp_path / "dual.xacro", tmp_path / "cell.script"
    robot.write_text(DUAL_XACRO)
    program.write_text(PROGRAM)
    argv = ["compensate", "--robot", robot, "--package-path", ROBOTS, "--tip-link", "right_tool0", "--deformation",
            ZERO, "--program", program, "--out", tmp_path / "out.script"]
    code, err = _run(argv, capsys)
    assert code == EXIT_INPUT and "Traceback" not in err
    for words in ("--base-link right_base ", "'right_base'", "fixed to 'world'", "turned by 180 deg", str(robot)):
        assert words in err, (words, err)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cell.script", "dual.xacro"]
    assert len(expansions) == 1
    code, err = _run([*argv, "--base-link", "right_base", "--program-report", UR5_MACRO], capsys)
    assert code == EXIT_INPUT and "would overwrite the input" in err and "(--robot)" in err, err


@needs_ur5
@pytest.mark.slow
def test_the_prefixed_base_is_the_builtin_ur5(tmp_path: Path, capsys) -> None:
    """With ``--base-link left_base`` the written joints are the built-in UR5's, wherever the arm stands in the
    cell (1 m off, turned by 90 deg); with the cell's ``world`` on purpose, other joints."""
    robot, program = tmp_path / "dual.xacro", tmp_path / "cell.script"
    robot.write_text(DUAL_XACRO)
    program.write_text(PROGRAM)
    written = {}
    for name, extra in (("builtin", ["--robot", "ur5"]),
                        ("left_base", ["--robot", robot, "--package-path", ROBOTS, "--tip-link", "left_tool0",
                                       "--base-link", "left_base"])):
        out = tmp_path / f"{name}.script"
        code, err = _run(["compensate", *extra, "--deformation", ZERO, "--program", program, "--program-output",
                          "joints", "--out", out], capsys)
        assert code == EXIT_OK, err
        written[name] = _joints(out.read_text())
    assert written["builtin"].shape == (4, 6)
    np.testing.assert_allclose(written["left_base"], written["builtin"], rtol=0, atol=WRITTEN_JOINT_TOL)


RAPID = ("MODULE m\n  CONST robtarget p1 := [[500,0,500],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]];\n"
         "  PROC main()\n    MoveL p1, v100, fine, tool0;\n  ENDPROC\nENDMODULE\n")
CRB15000 = ROBOTS / "abb_crb15000_5_95" / "crb15000_5_95.xacro"


@pytest.mark.parametrize(("robot", "name", "words"), [
    ("ur5", "cell.mod", ["--robot ur5: a RAPID program runs on ABB's controller", "confdata",
                         "a Universal Robots arm, whose controller runs URScript"]),
    ("irb140", "cell.script", ["--robot irb140: a URScript program runs on Universal Robots' controller",
                               "an ABB arm, whose controller runs RAPID"]),
    ("gofa", "cell.script", ["an ABB arm"]),
])
def test_a_program_on_another_makers_robot_is_refused(tmp_path: Path, capsys, robot, name, words) -> None:
    """A RAPID program on a UR arm was solved with ABB's confdata rules, a URScript one on an ABB arm in a UR
    base frame, exit 0: neither can run there. Refused before any output, naming the robot and both makers."""
    program = tmp_path / name
    program.write_text(RAPID if name.endswith(".mod") else PROGRAM)
    code, err = _run(["compensate", "--robot", robot, "--deformation", ZERO, "--program", program, "--out",
                      tmp_path / f"out{program.suffix}"], capsys)
    assert code == EXIT_INPUT and "Traceback" not in err
    for words_ in (*words, str(program)):
        assert words_ in err, (words_, err)
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]


@pytest.mark.skipif(not CRB15000.is_file(), reason=f"ROS-Industrial ABB CRB 15000 description not found in {ROBOTS}")
def test_urscript_on_an_abb_description_is_refused_as_such(tmp_path: Path, capsys) -> None:
    """The ABB description has a ``base`` link too (ROS-Industrial's): the refusal names the maker, not the UR
    base frame."""
    program = tmp_path / "cell.script"
    program.write_text(PROGRAM)
    code, err = _run(["compensate", "--robot", CRB15000, "--package-path", ROBOTS, "--deformation", ZERO,
                      "--program", program, "--out", tmp_path / "out.script"], capsys)
    assert code == EXIT_INPUT and "an ABB arm, whose controller runs RAPID" in err and "--base-link" not in err, err


def test_the_maker_is_read_from_the_description() -> None:
    from thermocomp.app.program import robot_maker

    assert robot_maker(None, _dual(tip_link="left_tool0")) is None  # links of neither maker's naming
    ur = _dual(tip_link="left_tool0").urdf.replace('"left_l1"', '"left_shoulder_link"')
    for link in _UR_LINKS_AFTER_SHOULDER:
        ur = ur.replace('<link name="left_tool0"/>', f'<link name="left_tool0"/><link name="left_{link}"/>')
    described = RobotDescription(source=Path("cell.urdf"), urdf=ur, packages={}, options=RobotFileOptions())
    assert robot_maker(None, described) == "Universal Robots"
    abb = RobotDescription(source=Path("irb2400.urdf"), urdf='<robot name="abb_irb2400"><link name="a"/></robot>',
                           packages={}, options=RobotFileOptions())
    assert robot_maker(None, abb) == "ABB"


_UR_LINKS_AFTER_SHOULDER = ("upper_arm_link", "forearm_link", "wrist_1_link", "wrist_2_link", "wrist_3_link")
