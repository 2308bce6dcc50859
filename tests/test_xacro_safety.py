"""A xacro robot file cannot run code (issue 28): its expressions are evaluated by thermocomp's own interpreter.

The hostile files in tests/data/xacro_payloads/ each create a marker file when the stock xacro
package expands them (checked here too, so that the fixtures stay real attacks); thermocomp must
refuse them naming the file and line, and the marker must never appear. The language robot
descriptions use evaluates as Python would; the real ROS-Industrial descriptions load unchanged
(tests/test_ros_industrial.py).
"""

from __future__ import annotations

import math
import time
from pathlib import Path

import pytest

from thermocomp.cli.main import EXIT_INPUT, main
from thermocomp.errors import InputError
from thermocomp.io.robot_files import RobotFileOptions, expand_xacro_here, read_robot_description

xacro = pytest.importorskip("xacro", reason="xacro is a dependency of thermocomp (pip install -e .)")

PAYLOADS = Path(__file__).parent / "data" / "xacro_payloads"
HOSTILE = sorted(PAYLOADS.glob("*.xacro"))


def _robot(body: str) -> str:
    return (f'<?xml version="1.0"?>\n<robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro">\n'
            f'  <link name="base_link"/>\n{body}\n</robot>\n')


@pytest.mark.parametrize("payload", HOSTILE, ids=lambda p: p.stem)
def test_each_hostile_file_runs_code_under_stock_xacro(payload: Path, tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    try:
        xacro.process_file(str(payload), mappings={"marker": str(marker)})
    except xacro.XacroException:
        pass  # the link name the payload made may be refused after the code ran
    assert marker.exists(), f"{payload.name} no longer attacks stock xacro: the test below proves nothing"


@pytest.mark.parametrize("payload", HOSTILE, ids=lambda p: p.stem)
def test_hostile_files_are_refused_with_their_line_and_run_nothing(payload: Path, tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    with pytest.raises(InputError) as caught:
        read_robot_description(payload, RobotFileOptions(xacro_args=(("marker", str(marker)),)))
    assert caught.value.path == str(payload.resolve())
    assert "expected an expression of a robot description" in caught.value.message
    if "${" in caught.value.message:  # a ${...} is found in the file; a $(eval) of a property's text is not
        assert caught.value.row is not None
    assert not marker.exists()


@pytest.mark.parametrize("payload", HOSTILE, ids=lambda p: p.stem)
def test_the_command_line_refuses_hostile_files_with_exit_1(payload: Path, tmp_path: Path, capsys) -> None:
    marker = tmp_path / "marker"
    out = tmp_path / "robot.csv"
    status = main(["robot", "export", str(payload), "--xacro-arg", f"marker:={marker}", "--out", str(out)])
    err = capsys.readouterr().err
    assert status == EXIT_INPUT
    assert payload.name in err and "Traceback" not in err
    assert not marker.exists() and not out.exists()


@pytest.mark.parametrize("expression, what", [
    ("xacro.load_yaml.__globals__", "an attribute starting with '_'"),
    ("'x'.upper()", "a call of a function"),
    ("python.vars(xacro)", "a call of a function"),
    ("(lambda x: x)(1)", "a call of a function"),
    ("[x for x in [1, 2]]", "a Python ListComp"),
    ("python.len", "not plain data"),
    ("xacro['load_yaml']", "not plain data"),
    ("9**9**9", "a number of more than"),
    ("'ab' * 10**9", "a text or list longer than"),
])
def test_expressions_outside_the_language_are_refused(expression: str, what: str, tmp_path: Path) -> None:
    robot = tmp_path / "r.xacro"
    robot.write_text(_robot(f'  <link name="${{{expression}}}"/>'))
    started = time.perf_counter()
    with pytest.raises(InputError, match="expected an expression of a robot description") as caught:
        read_robot_description(robot)
    assert what in caught.value.message
    assert caught.value.path == str(robot.resolve()) and caught.value.row == 4
    assert time.perf_counter() - started < 30  # refused, not computed until the child's time bound


def test_eval_substitutions_reach_no_builtins(tmp_path: Path) -> None:
    robot = tmp_path / "r.xacro"
    robot.write_text(_robot('  <link name="$(eval open)"/>'))
    with pytest.raises(InputError, match=r"name 'open' is not defined"):
        read_robot_description(robot)


@pytest.mark.slow
def test_load_yaml_reads_only_inside_the_robots_folders(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere" / "secret.yaml"
    outside.parent.mkdir()
    outside.write_text("key: 1\n")
    folder = tmp_path / "robot"
    folder.mkdir()
    (folder / "beside.yaml").write_text("length: 0.25\n")
    robot = folder / "r.xacro"
    robot.write_text(_robot(f'  <xacro:property name="far" value="${{xacro.load_yaml(\'{outside}\')}}"/>\n'
                            '  <link name="l${far[\'key\']}"/>'))
    with pytest.raises(InputError, match="expected a file inside the robot file's folder"):
        read_robot_description(robot)
    link = folder / "link.yaml"  # a link inside the folder that points out of it is outside too
    link.symlink_to(outside)
    robot.write_text(_robot('  <xacro:property name="far" value="${xacro.load_yaml(\'link.yaml\')}"/>\n'
                            '  <link name="l${far[\'key\']}"/>'))
    with pytest.raises(InputError, match="expected a file inside"):
        read_robot_description(robot)
    robot.write_text(_robot('  <xacro:property name="cfg" value="${xacro.load_yaml(\'beside.yaml\')}"/>\n'
                            '  <link name="l${cfg[\'length\'] * 4}"/>'))
    assert '<link name="l1.0"/>' in read_robot_description(robot).urdf


@pytest.mark.parametrize("substitution", ["$(env HOME)", "$(optenv HOME nowhere)"])
def test_the_environment_is_read_only_when_allowed(substitution: str, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("HOME", "/home/someone")
    robot = tmp_path / "r.xacro"
    robot.write_text(_robot(f'  <link name="l{substitution}"/>'))
    with pytest.raises(InputError, match="reading the environment is off.*--xacro-allow-env"):
        read_robot_description(robot)
    allowed = read_robot_description(robot, RobotFileOptions(xacro_env=True))
    assert '<link name="l/home/someone"/>' in allowed.urdf


def test_the_language_evaluates_as_stock_xacro_does(tmp_path: Path) -> None:
    """Every construct the language keeps gives stock xacro's result (the same expanded text)."""
    (tmp_path / "cfg.yaml").write_text("shoulder: {x: 0.1, limits: [-3.0, 3.0]}\nname: arm\n")
    expressions = [
        "radians(90)", "-pi/2", "math.pi / 4", "degrees(atan2(1, 1))", "sqrt(2) * cos(0)", "2**10", "7 // 2",
        "7 % 3", "1 if 2 > 1 else 0", "2 >= 1 == 1", "not (1 == 2) and 3 or 4", "max(1, 2.5)", "min([3, 1])",
        "fabs(-2)", "round(2.567, 2)", "int('3') + float('0.5')", "len([1, 2, 3])",
        "dict(a=1, b=2)['b']", "[1, 2, 3][1:]", "(1, 2)[0]", "list((1, 2))[1]", "'%s_link' % prefix",
        "prefix + 'tool0'", "str(reach)", "cfg['shoulder']['x'] * 2", "cfg.shoulder.limits[1]",
        "xacro.arg('reach')", "reach * 2 if prefix == 'left_' else 0", "'ab' * 3", "pi", "e", "inf > 1",
    ]
    body = ['  <xacro:arg name="reach" default="0.5"/>', '  <xacro:property name="prefix" value="left_"/>',
            '  <xacro:property name="reach" value="$(arg reach)"/>',
            "  <xacro:property name=\"cfg\" value=\"${xacro.load_yaml('cfg.yaml')}\"/>"]
    body += [f'  <link name="n{k}" value="${{{x}}}"/>' for k, x in enumerate(expressions)]
    body.append('  <link name="eval" value="$(eval 2 * reach + pi)"/>')
    robot = tmp_path / "r.xacro"
    robot.write_text(_robot("\n".join(body)))
    ours = expand_xacro_here(robot, {}, {})
    xacro.all_includes = []
    theirs = xacro.process_file(str(robot.resolve())).toprettyxml(indent="  ")
    assert ours == theirs
    assert f'value="{math.radians(90)}"' in ours  # the comparison is not of two empty documents
