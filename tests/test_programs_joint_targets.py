"""Joint targets (RAPID ``MoveAbsJ``, URScript ``movej`` of a joint list) are home and via positions (issue 25).

By default they are left as written and listed in the report;
``--joint-targets compensate`` compensates them. A compensated joint target
whose joint step is large for its correction at the TCP (UR's home straight
up: wrist-singular, at full stretch) is a finding of the report, and one that
cannot be compensated at all is left as written instead of failing the
program.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import run_program
from program_builders import random_configurations, robtarget_text, ur_pose_text
from test_bad_input import case, run_cli  # noqa: F401  (fixture)

from thermocomp import DeformationTable, deformed_model, fk, load_robot, nominal_model
from thermocomp.cli.common import EXIT_OK
from thermocomp.compensation.compensate import CompensationOptions
from thermocomp.deformation.timelaw import Static
from thermocomp.errors import InputError
from thermocomp.geometry.rotations import transform
from thermocomp.kinematics.confdata import confdata_from_q
from thermocomp.programs import ProgramOptions, read_program
from thermocomp.programs.feasibility import JOINT_STEP_GAIN
from thermocomp.tolerances import IK_POSITION_TOL

#: UR's default home (PolyScope): straight up, wrist-singular, at full stretch.
UR_HOME = "[0, -1.5708, 0, -1.5708, 0, 0]"
SMALL = DeformationTable.from_mm_deg([[0.03, -0.02, 0.05, 0.004, 0.0, -0.003]] * 6)
#: A table under which UR's home stays in reach (under most, a straight arm cannot reach its own nominal pose).
HOME_IN_REACH = DeformationTable.from_mm_deg([
    [-0.0731, 0.0695, 0.0528, -0.0049, -0.0001, -0.0010], [0.0303, 0.0577, -0.0812, -0.0094, 0.0067, -0.0013],
    [0.0525, -0.0996, -0.0109, 0.0044, -0.0054, 0.0089], [0.0803, -0.0939, -0.0949, 0.0008, 0.0088, -0.0024],
    [-0.0567, -0.0156, -0.0942, -0.0056, -0.0012, -0.0001], [-0.0534, -0.0538, -0.0562, -0.0008, -0.0042, -0.0096]])
COMPENSATE = ProgramOptions(joint_targets="compensate")


def ur_script(rng) -> tuple[str, np.ndarray]:
    chain = load_robot("ur5")
    q = random_configurations(chain, rng, 2)
    R, p = fk(nominal_model(chain), q)
    via = "[" + ", ".join(f"{v:.9g}" for v in q[1]) + "]"
    text = (f"def Program():\n  movej({UR_HOME}, a=1.4, v=1.05)\n  movej({ur_pose_text(transform(R[0], p[0]))})\n"
            f"  movel({ur_pose_text(transform(R[0], p[0] + [0, 0, 0.02]))}, a=1.2, v=0.25)\n"
            f"  movej({via}, a=1.4, v=1.05)\n  movej({UR_HOME}, a=1.4, v=1.05)\nend\n")
    return text, q[1]


def test_urscript_joint_targets_are_left_as_written_and_listed_by_default(tmp_path, rng):
    text, _ = ur_script(rng)
    path = tmp_path / "p.script"
    path.write_text(text)
    out = tmp_path / "o.script"
    report = run_program("ur5", SMALL, path, out, options=CompensationOptions(time_law=Static()))
    before, after = text.splitlines(), out.read_text().splitlines()
    assert [i + 1 for i, (a, b) in enumerate(zip(before, after)) if a != b] == [3, 4]  # the Cartesian targets only
    listed = [n for n in report.notes if "joint target left as written" in n]
    assert listed == [f"{path}:{line}:9: movej joint target left as written" for line in (2, 5, 6)]
    assert "3 joint target(s) left as written" in report.text() and report.failed == []
    assert report.summary.n_rows == 2  # the joint targets are not solved


def test_urscript_joint_targets_compensated_on_request_reach_their_pose(tmp_path, rng):
    text, q_via = ur_script(rng)
    path = tmp_path / "p.script"
    path.write_text(text)
    out = tmp_path / "o.script"
    report = run_program("ur5", HOME_IN_REACH, path, out, options=CompensationOptions(time_law=Static()),
                                program_options=COMPENSATE, report=tmp_path / "r.txt")
    assert report.failed == [] and not any("could not be compensated" in n for n in report.notes)
    chain = load_robot("ur5")
    written = read_program(out)
    q_written = written.points[3].q
    R, p = fk(deformed_model(chain, HOME_IN_REACH, 1.0), q_written)
    R0, p0 = fk(nominal_model(chain), q_via)
    assert np.linalg.norm(p - p0) < 10 * IK_POSITION_TOL + 2 * report.rounding_position
    assert np.abs(q_written - q_via).max() > 1e-5  # (it did move)
    # UR's home: converged, but with a joint step far beyond its correction at the TCP, named in the report
    steps = [r for r in report.rows if any("joint step large for its correction" in f for f in r.findings)]
    assert [(r.motion, r.line) for r in steps] == [(1, 2), (5, 6)]
    home = written.points[0].q
    row = steps[0]
    assert np.degrees(np.abs(home - np.array([0, -1.5708, 0, -1.5708, 0, 0])).max()) == pytest.approx(
        row.joint_change_deg, rel=1e-4)
    size = np.hypot(row.change_mm * 1e-3, np.radians(row.change_deg))
    assert np.radians(row.joint_change_deg) > JOINT_STEP_GAIN * size
    assert f"{path}:2: movej (motion 1): joint step large for its correction" in (tmp_path / "r.txt").read_text()
    # the regular via pose: no such finding, its step within the bound
    via_row = report.rows[3]
    assert not any("joint step" in f for f in via_row.findings)
    assert np.radians(via_row.joint_change_deg) < JOINT_STEP_GAIN * np.hypot(via_row.change_mm * 1e-3,
                                                                                np.radians(via_row.change_deg))


@pytest.mark.slow  # (an unreachable target is searched from many starts before it is called so: some 20 s)
def test_ur_home_at_full_stretch_never_fails_the_program(tmp_path, rng):
    """Under most tables the straight-up home is out of reach of the deformed arm: left as written, named."""
    text, _ = ur_script(rng)
    path = tmp_path / "p.script"
    path.write_text(text)
    out = tmp_path / "o.script"
    report = run_program("ur5", SMALL, path, out, options=CompensationOptions(time_law=Static()),
                                program_options=COMPENSATE)
    assert report.failed == []
    assert out.read_text().splitlines()[1] == f"  movej({UR_HOME}, a=1.4, v=1.05)"
    assert any(n.startswith(f"{path}:2:9: movej joint target could not be compensated") for n in report.notes)


def test_rapid_moveabsj_is_left_as_written_by_default_and_compensated_on_request(case, capsys):  # noqa: F811
    chain = load_robot("irb140")
    model = nominal_model(chain)
    q = np.radians([[10.0, 20.0, 10.0, 30.0, 40.0, 20.0], [-5.0, 10.0, 20.0, -20.0, 50.0, 0.0]])
    R, p = fk(model, q)
    home = "[[" + ",".join(f"{v:.6f}" for v in np.degrees(q[1])) + "],[9E9,9E9,9E9,9E9,9E9,9E9]]"
    text = ("MODULE M\n  CONST jointtarget jHome:=" + home + ";\n"
            f"  CONST robtarget p10:={robtarget_text(transform(R[0], p[0]), confdata_from_q(model, q[:1])[0])};\n"
            "  PROC main()\n    MoveAbsJ jHome\\NoEOffs, v1000, z50, tool0;\n    MoveL p10, v100, fine, tool0;\n"
            "    MoveAbsJ jHome, v1000, fine, tool0;\n  ENDPROC\nENDMODULE\n")
    (case / "m.mod").write_text(text)
    argv = ["compensate", "--robot", "irb140", "--deformation", "d.csv", "--program", "m.mod", "--static"]
    code, out, err = run_cli(capsys, [*argv, "--out", "kept.mod"])
    assert code == EXIT_OK, err
    kept = (case / "kept.mod").read_text().splitlines()
    assert kept[1] == text.splitlines()[1] and kept[2] != text.splitlines()[2]
    assert "m.mod:5:14: MoveAbsJ joint target left as written" in out
    code, out, err = run_cli(capsys, [*argv, "--out", "all.mod", "--joint-targets", "compensate"])
    assert code == EXIT_OK, err
    written = read_program(case / "all.mod")
    assert written.points[0].q is not None and np.abs(written.points[0].q - q[1]).max() > 1e-4


def test_a_joint_target_policy_that_does_not_exist_is_refused_naming_the_option():
    from thermocomp.errors import ConfigurationError

    with pytest.raises(ConfigurationError, match="--joint-targets: expected one of"):
        ProgramOptions(joint_targets="move")


def test_a_joint_target_outside_a_joints_limits_is_refused_when_compensated_and_kept_by_default(tmp_path):
    """The robot cannot stand at a ``movej`` of joints beyond its limits (UR5: +-360 deg): compensating it is refused
    naming the target, the joint, its limits and the value, and nothing is written; kept as written it is listed."""
    path = tmp_path / "p.script"
    path.write_text("def Program():\n  movej([0, -1.5708, 0, -1.5708, 0, 0], a=1.4, v=1.05)\n"
                    "  movej([7.0, -1.5708, 0.5, -1.5708, 0, 0], a=1.4, v=1.05)\nend\n")
    out = tmp_path / "o.script"
    with pytest.raises(InputError, match=r"line 3, column 9: movej: a joint target outside joint 1's limits -360 \.\. "
                                         r"360 deg: 401\.07 deg; .*\(1 such joint target\(s\)\)"):
        run_program("ur5", SMALL, path, out, options=CompensationOptions(time_law=Static()),
                    program_options=COMPENSATE)
    assert not out.exists()
    report = run_program("ur5", SMALL, path, out, options=CompensationOptions(time_law=Static()))
    assert f"{path}:3:9: movej joint target left as written" in report.notes and out.read_text() == path.read_text()
