"""The joints form of a CAM-style program (every target inline) is the text the rules of declared targets write.

``write_program`` writes a program whose every point is its own inline text from its columns, and a program of
declared targets by the rules of one text a declaration; in the joints form both write each joint target at the
motion's argument and rename each Cartesian motion ``MoveAbsJ`` / ``movej``. The same motions, inline and
declared, must give the same motion statements, with motions of every kind, comments, CRLF, and a point that
fails (its motion keeps its name and its text).
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from helpers import run_program
from program_builders import random_configurations, robtarget_text, ur_pose_text

from thermocomp import DeformationTable, fk, load_robot, nominal_model
from thermocomp.geometry.rotations import transform
from thermocomp.kinematics.confdata import confdata_from_q
from thermocomp.programs import ProgramOptions


def _declared(lines: list[str], pattern: str, declare) -> list[str]:
    """``lines`` with each target matching ``pattern`` named ``tK`` and declared (``declare(name, text)``) before
    the first line, the program's routine."""
    found: list[str] = []

    def named(match) -> str:
        found.append(match.group(0))
        return f"t{len(found)}"

    body = [re.sub(pattern, named, line) for line in lines[1:]]
    return [lines[0], *(declare(f"t{k}", text) for k, text in enumerate(found, start=1)), *body]


def _rapid_text(rng, declared: bool = False) -> str:
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
    if declared:
        lines = [lines[0], *_declared(lines[1:], r"\[\[[^\]]*\],\[[^\]]*\],\[[^\]]*\],\[[^\]]*\]\]",
                                      lambda name, t: f"  CONST robtarget {name} := {t};")]
    return "\r\n".join(lines)


def _urscript_text(rng, declared: bool = False) -> str:
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
    if declared:
        lines = _declared(lines, r"p\[[^\]]*\]", lambda name, t: f"  {name} = {t}")
    return "\n".join(lines)


@pytest.mark.slow
@pytest.mark.parametrize("language", ["rapid", "urscript"])
def test_the_joints_form_of_inline_targets_is_that_of_declared_ones(tmp_path, rng, language):
    robot, suffix, write = (("irb140", ".mod", _rapid_text) if language == "rapid"
                            else ("ur5", ".script", _urscript_text))
    seed = int(rng.integers(2**31))
    table = DeformationTable.from_mm_deg(np.hstack([rng.uniform(-0.3, 0.3, (6, 3)), rng.uniform(-0.03, 0.03, (6, 3))]))
    results = []
    for declared in (False, True):
        text = write(np.random.default_rng(seed), declared)
        src = tmp_path / f"cam_{declared}{suffix}"
        src.write_bytes(text.encode("latin-1"))
        out = tmp_path / f"out_{declared}{suffix}"
        report = run_program(robot, table, src, out, allow_failures=True,
                             program_options=ProgramOptions(output="joints"))
        lines = out.read_bytes().decode("latin-1").splitlines()
        motions = [line for line in lines if re.match(r"\s*(MoveAbsJ|movej)", line)]  # (not the failed one)
        results.append((text, lines, motions, report.n_changed_texts, len(report.failed),
                        [(r.change_mm, r.status, r.findings) for r in report.rows]))
    (text, written, motions, n_changed, n_failed, rows), declared = results
    assert (motions, n_changed, n_failed, rows) == declared[2:]
    assert n_changed == (4 if language == "rapid" else 3)  # the failed point and the written joints keep their text
    assert all(line in declared[1] for line in declared[0].splitlines() if "robtarget" in line or " = p[" in line)
    new = "MoveAbsJ" if language == "rapid" else "movej"
    assert n_failed == 1  # the far point failed, and kept its motion and text:
    far_line = next(line for line in text.splitlines() if "[5000," in line or "p[3, 0," in line)
    assert far_line in written
    assert "\n".join(written).count(new) == (5 if language == "rapid" else 4)  # the others are joint motions now
