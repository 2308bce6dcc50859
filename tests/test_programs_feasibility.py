"""Seed 004's checks on the compensated program: a MoveL that flips configuration and a move too fast for a joint."""

from __future__ import annotations

import numpy as np
from program_builders import robtarget_text

from thermocomp import DeformationTable, fk, load_robot, nominal_model
from thermocomp.geometry.rotations import transform
from thermocomp.kinematics.confdata import confdata_from_q
from thermocomp.programs import compensate_program

ZERO = DeformationTable.from_mm_deg(np.zeros((6, 6)))
SMALL = DeformationTable.from_mm_deg([[0.1, -0.1, 0.05, 0.01, 0.0, -0.01]] * 6)


def module(tmp_path, targets: dict, body: str):
    chain = load_robot("irb140")
    model = nominal_model(chain)
    decl = []
    for name, q_deg in targets.items():
        q = np.radians(q_deg)
        R, p = fk(model, q)
        decl.append(f"  CONST robtarget {name}:={robtarget_text(transform(R, p), confdata_from_q(model, q)[0])};")
    path = tmp_path / "f.mod"
    path.write_text("MODULE f\n" + "\n".join(decl) + "\n  PROC main()\n" + body + "  ENDPROC\nENDMODULE\n")
    return path


Q_A = [0.0, 10.0, 10.0, -20.0, 40.0, 30.0]
# the same wrist pose reached the other way: axis 4 + 180, axis 5 negated, axis 6 + 180 (and axis 1 moved 2 deg)
Q_FLIP = [2.0, 10.0, 10.0, 160.0, -40.0, 210.0]
Q_SAME = [2.0, 10.0, 10.0, -20.0, 40.0, 30.0]


def test_a_movel_that_flips_the_wrist_is_flagged(tmp_path):
    path = module(tmp_path, {"a": Q_A, "b": Q_FLIP, "c": Q_SAME},
                  "    MoveJ a, v100, fine, tool0;\n    MoveL b, v100, fine, tool0;\n    MoveJ a, v100, fine, tool0;\n"
                  "    MoveL c, v100, fine, tool0;\n")
    report = compensate_program("irb140", SMALL, path, tmp_path / "o.mod", report=tmp_path / "r.txt")
    flips = [r for r in report.rows if any("configuration change" in f for f in r.findings)]
    assert [(r.motion, r.line) for r in flips] == [(2, 7)]  # MoveL b; not MoveL c (same configuration)
    csv = (tmp_path / "r.csv").read_text().splitlines()
    assert csv[2].startswith("2,MoveL,7,") and "configuration change" in csv[2]
    assert "configuration change" not in csv[4]
    assert f"{path}:7: MoveL (motion 2): configuration change" in (tmp_path / "r.txt").read_text()


def test_a_linear_move_faster_than_a_joint_can_follow_is_flagged(tmp_path):
    near = list(np.array(Q_A) + [1.0, 0.0, 0.0, 0.0, 0.0, 0.0])
    body = "    MoveJ a, v100, fine, tool0;\n    MoveL b, {}, fine, tool0;\n"
    for speed, flagged in (("v7000", True), ("v100", False)):
        path = module(tmp_path, {"a": Q_A, "b": near}, body.format(speed))
        report = compensate_program("irb140", SMALL, path, tmp_path / f"o_{speed}.mod")
        findings = report.rows[1].findings
        assert any(f.startswith("joint speed: the move's TCP speed demands") for f in findings) == flagged, findings


def test_joint_limits_with_margin(tmp_path):
    # axis 4 half a degree inside its 200 degree limit: less than the 1 degree margin
    path = module(tmp_path, {"a": [0.0, 10.0, 10.0, 199.5, 40.0, 30.0]}, "    MoveJ a, v100, fine, tool0;\n")
    report = compensate_program("irb140", ZERO, path, tmp_path / "o.mod")
    assert any("joint 4 at 199.5 deg, within 1 deg of its limits" in f for f in report.rows[0].findings)
