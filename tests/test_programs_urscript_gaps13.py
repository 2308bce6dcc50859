"""Classes the thirteenth held-out gathering of real programs (driver scripts of ROS and the Client Library, RTDE
servo loops, scripts a daemon streams, programs pasted in issue threads and on pages) showed in the URScript reader
(issue 35), each written from the URScript manual's syntax, not from the gathered texts: ``servoc``, the manual's
"Servo Circular" move to one pose, which the reader refused as a motion it does not follow."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import run_program
from test_programs_urscript_calls import _reached, _script, small_table

from thermocomp.compensation.compensate import CompensationOptions
from thermocomp.deformation.timelaw import Static
from thermocomp.errors import InputError
from thermocomp.programs import read_program
from thermocomp.programs.model import LINEAR
from thermocomp.tolerances import IK_POSITION_TOL


def _read(tmp_path, text: str, name: str = "prog.script"):
    path = tmp_path / name
    path.write_text(text)
    return read_program(path)


def test_servoc_is_a_motion_to_its_pose_with_the_manuals_parameters(tmp_path):
    """The manual: ``servoc(pose, a=1.2, v=0.25, r=0)``, "Servo to position (circular in tool-space). Accelerates
    to and moves with constant tool speed v": a tool-space move to one pose, as ``movep``, with the same defaults."""
    prog = _read(tmp_path, "servoc(p[0.15, -0.62, 0.42, 0, 3.14, 0], a=0.3, v=0.1, r=0)\n"
                           "servoc(p[0.2, -0.5, 0.3, 0, 3.14, 0])\n")
    assert prog.unsupported == ()
    assert [(m.instruction, m.kind, m.line) for m in prog.motions] == [("servoc", LINEAR, 1), ("servoc", LINEAR, 2)]
    assert [(m.tcp_speed, m.acceleration) for m in prog.motions] == [(0.1, 0.3), (0.25, 1.2)]
    np.testing.assert_allclose([pt.T_world_tcp[:3, 3] for pt in prog.points], [[0.15, -0.62, 0.42], [0.2, -0.5, 0.3]],
                               atol=1e-12)


def test_servoc_refuses_what_the_manual_does_not_give_it(tmp_path):
    """``servoc`` has no ``t`` (the manual's parameters are a, v, r): the reader names it, as the controller does."""
    with pytest.raises(InputError, match=r"servoc: unknown argument\(s\) \['t'\]") as info:
        _read(tmp_path, "movel(p[0.2, -0.5, 0.3, 0, 3.14, 0])\nservoc(p[0.15, -0.62, 0.42, 0, 3.14, 0], t=2)\n")
    assert info.value.row == 2


def test_a_servoc_program_is_compensated_and_the_servo_stream_is_still_refused(tmp_path, rng):
    """Written back as ``servoc`` with the corrected pose: the deformed robot reaches the target the program wrote.
    ``servoj`` streams joints at a fixed period (a setpoint, not a move to a target): still refused naming its
    line."""
    src, T, q = _script(rng, "  servoc(a, a=0.3, v=0.1)\n  servoc(b, r=0)\n", "")
    path = tmp_path / "p.script"
    path.write_text(src)
    out = tmp_path / "p_out.script"
    table = small_table(rng)
    run_program("ur5", table, path, out, options=CompensationOptions(time_law=Static()))
    written = out.read_text()
    assert written.count("servoc(") == 2 and written != src
    reached = _reached(table, out, np.stack([q["a"], q["b"]]))
    want = np.stack([T["a"], T["b"]])
    assert np.max(np.linalg.norm(reached[:, :3, 3] - want[:, :3, 3], axis=1)) < 1e-6 + 10 * IK_POSITION_TOL
    stream = _read(tmp_path, "servoj([0, -1.57, 1.57, -1.57, -1.57, 0], 0, 0, 0.008, 0.1, 300)\n", "servo.script")
    assert [(u.line, "servoj is not followed" in u.message) for u in stream.unsupported] == [(1, True)]
