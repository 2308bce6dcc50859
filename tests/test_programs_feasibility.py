"""Seed 004's checks on the compensated program: a MoveL that flips configuration and a move too fast for a joint."""

from __future__ import annotations

import numpy as np
from helpers import run_program
from program_builders import robtarget_text

from thermocomp import DeformationTable, fk, load_robot, nominal_model
from thermocomp.geometry.rotations import transform
from thermocomp.kinematics.confdata import confdata_from_q
from thermocomp.programs import ProgramOptions

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
    report = run_program("irb140", SMALL, path, tmp_path / "o.mod", report=tmp_path / "r.txt")
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
        report = run_program("irb140", SMALL, path, tmp_path / f"o_{speed}.mod")
        findings = report.rows[1].findings
        assert any(f.startswith("joint speed: the move's TCP speed demands") for f in findings) == flagged, findings


def test_joint_limits_with_margin(tmp_path):
    # axis 4 half a degree inside its 200 degree limit: less than the 1 degree margin
    path = module(tmp_path, {"a": [0.0, 10.0, 10.0, 199.5, 40.0, 30.0]}, "    MoveJ a, v100, fine, tool0;\n")
    report = run_program("irb140", ZERO, path, tmp_path / "o.mod")
    assert any("joint 4 at 199.5 deg, within 1 deg of its limits" in f for f in report.rows[0].findings)


CIRCLE = {"s": [0.0, 10.0, 10.0, 0.0, 40.0, 0.0], "m": [8.0, 10.0, 10.0, 0.0, 40.0, 0.0],
          "e": [16.0, 10.0, 10.0, 0.0, 40.0, 0.0], "v": [8.0, 16.0, 6.0, 0.0, 40.0, 0.0]}


def _line_points():
    """Start, end and their midpoint as robtargets of one orientation: three points on one line."""
    chain = load_robot("irb140")
    model = nominal_model(chain)
    R, p_s = fk(model, np.radians(CIRCLE["s"]))
    _, p_e = fk(model, np.radians(CIRCLE["e"]))
    q_v = np.radians(CIRCLE["v"])
    R_v, p_v = fk(model, q_v)
    conf = confdata_from_q(model, np.radians(CIRCLE["s"]))[0]
    texts = {"s": robtarget_text(transform(R, p_s), conf), "e": robtarget_text(transform(R, p_e), conf),
             "m": robtarget_text(transform(R, (p_s + p_e) / 2), conf),
             "v": robtarget_text(transform(R_v, p_v), confdata_from_q(model, q_v)[0])}
    return "".join(f"  CONST robtarget {k}:={t};\n" for k, t in texts.items())


def test_a_circle_its_points_do_not_define_is_flagged(tmp_path):
    """The controller refuses a MoveC whose via point is its end or start point, or on their line."""
    body = ("    MoveL s, v100, fine, tool0;\n    MoveC e, e, v100, fine, tool0;\n"   # via on the end
            "    MoveL s, v100, fine, tool0;\n    MoveC s, e, v100, fine, tool0;\n"   # via on the start
            "    MoveL s, v100, fine, tool0;\n    MoveC m, e, v100, fine, tool0;\n"   # three points on one line
            "    MoveL s, v100, fine, tool0;\n    MoveC v, e, v100, fine, tool0;\n")  # a circle
    path = tmp_path / "c.mod"
    path.write_text("MODULE c\n" + _line_points() + "  PROC main()\n" + body + "  ENDPROC\nENDMODULE\n")
    report = run_program("irb140", SMALL, path, tmp_path / "o.mod", report=tmp_path / "r.txt")
    flagged = [(r.motion, r.line) for r in report.rows if any("circle undefined" in f for f in r.findings)]
    assert flagged == [(2, 8), (4, 10), (6, 12)]
    assert f"{path}:8: MoveC (motion 2): circle undefined" in (tmp_path / "r.txt").read_text()
    # the joint form writes no circle: nothing for the controller to refuse
    joints = run_program("irb140", SMALL, path, tmp_path / "j.mod", program_options=ProgramOptions(
        output="joints"))
    assert not [f for f in joints.feasibility if "circle" in f]


def test_a_urscript_movec_on_its_own_end_point_is_flagged(tmp_path):
    path = tmp_path / "c.script"
    path.write_text("def f():\n  movel(p[0.4, -0.1, 0.3, 0, 3.14159, 0], a=1.2, v=0.25)\n"
                    "  movec(p[0.4, 0.0, 0.3, 0, 3.14159, 0], p[0.4, 0.0, 0.3, 0, 3.14159, 0], a=1.2, v=0.25)\n"
                    "  movel(p[0.4, -0.1, 0.3, 0, 3.14159, 0], a=1.2, v=0.25)\n"
                    "  movec(p[0.45, -0.05, 0.3, 0, 3.14159, 0], p[0.4, 0.0, 0.3, 0, 3.14159, 0], a=1.2, v=0.25)\n"
                    "end\n")
    report = run_program("ur5", SMALL, path, tmp_path / "o.script")
    assert [f.split(": circle undefined")[0] for f in report.feasibility if "circle undefined" in f] == \
        [f"{path}:3: movec (motion 2)"]
