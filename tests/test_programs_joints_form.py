"""The joints form of a CAM-style program, written from its columns, is the text the general rules write.

``write_snapshot`` splices a plain program's joints form in one pass
(``_joints_form_spliced``: every Cartesian motion renamed ``MoveAbsJ`` /
``movej``, every point's joint text in place); the general rules (edits per
point and per motion, on the program's objects) are the reference. Both must
give the same bytes and report, with motions of every kind, comments, CRLF,
and a point that fails (its motion keeps its name and its text).
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import run_program
from program_builders import random_configurations, robtarget_text, ur_pose_text

from thermocomp import DeformationTable, fk, load_robot, nominal_model
from thermocomp.geometry.rotations import transform
from thermocomp.kinematics.confdata import confdata_from_q
from thermocomp.programs import ProgramOptions
from thermocomp.programs import compensate as compensate_module


def _rapid_text(rng) -> str:
    chain = load_robot("irb140")
    q = random_configurations(chain, rng, 6)
    R, p = fk(nominal_model(chain), q)
    T = transform(R, p)
    cf = confdata_from_q(nominal_model(chain), q)
    far = T[5].copy()
    far[:3, 3] = [5.0, 0.0, 0.5]  # out of reach: fails
    joints = "[[" + ",".join(f"{v:.6f}" for v in np.degrees(q[2])) + "],[9E+09,9E+09,9E+09,9E+09,9E+09,9E+09]]"
    lines = ["MODULE Cam", "  ! post-processor output", "  PROC main()",
             f"    MoveJ {robtarget_text(T[0], cf[0])}, v1000, z50, tool0;",
             f"    MoveL {robtarget_text(T[1], cf[1])}, v100, fine, tool0;  ! a comment after",
             f"    MoveAbsJ {joints}, v200, z10, tool0;",
             "    ! a whole-line comment",
             f"    moveL {robtarget_text(T[3], cf[3])},v100,z1,tool0\\WObj:=wobj0;",
             f"    MoveL {robtarget_text(far, cf[5])}, v100, z1, tool0;",
             f"    MoveJ {robtarget_text(T[4], cf[4])}, v100, z1, tool0;",
             "  ENDPROC", "ENDMODULE", ""]
    return "\r\n".join(lines)


def _urscript_text(rng) -> str:
    chain = load_robot("ur5")
    q = random_configurations(chain, rng, 5)
    R, p = fk(nominal_model(chain), q)
    T = transform(R, p)
    far = T[4].copy()
    far[:3, 3] = [3.0, 0.0, 0.3]
    lines = ["def cam():", f"  movel({ur_pose_text(T[0])}, a=1.2, v=0.25)",
             f"  movej([{', '.join(f'{v:.6f}' for v in q[1])}], a=1.4, v=1.05)", "  # a comment",
             f"  movep({ur_pose_text(T[2])}, a=1.2, v=0.25, r=0.001)", f"  movel({ur_pose_text(far)})",
             f"  movej({ur_pose_text(T[3])})", "end", ""]
    return "\n".join(lines)


@pytest.mark.slow
@pytest.mark.parametrize("language", ["rapid", "urscript"])
def test_the_joints_form_from_columns_is_the_general_rules_text(tmp_path, rng, monkeypatch, language):
    robot, suffix, text = (("irb140", ".mod", _rapid_text(rng)) if language == "rapid"
                           else ("ur5", ".script", _urscript_text(rng)))
    src = tmp_path / f"cam{suffix}"
    src.write_bytes(text.encode("latin-1"))
    table = DeformationTable.from_mm_deg(np.hstack([rng.uniform(-0.3, 0.3, (6, 3)), rng.uniform(-0.03, 0.03, (6, 3))]))
    spliced = compensate_module._joints_form_spliced
    taken = []
    monkeypatch.setattr(compensate_module, "_joints_form_spliced",
                        lambda *a: taken.append(spliced(*a)) or taken[-1])
    results = []
    for fast in (True, False):
        if not fast:
            monkeypatch.setattr(compensate_module, "_joints_form_spliced", lambda *a: (None, 0))
        out = tmp_path / f"out_{fast}{suffix}"
        report = run_program(robot, table, src, out, allow_failures=True,
                                    program_options=ProgramOptions(output="joints"))
        results.append((out.read_bytes(), report.n_changed_texts, report.failed,
                        [(r.line, r.change_mm, r.status, r.findings) for r in report.rows]))
    assert taken and taken[0][0] is not None  # the columns wrote it
    assert results[0] == results[1]
    written = results[0][0].decode("latin-1")
    new = "MoveAbsJ" if language == "rapid" else "movej"
    assert len(results[0][2]) == 1  # the far point failed, and kept its motion and text:
    far_line = next(line for line in text.splitlines() if "[5000," in line or "p[3, 0," in line)
    assert far_line in written.splitlines()
    assert written.count(new) == (5 if language == "rapid" else 4)  # the others are joint motions now
