"""URScript the fifth held-out trial (issue 35, item 5) passed over in silence, the class tested from the manual.

URScript manual, "Threads": ``thread T(): ... end`` runs beside the program once ``run T()`` starts it (``h = run
T()`` keeps its handle); a thread may move the robot, with ``movel`` as with ``servoj``/``speedj``. The trial's
program: the ROS 2 driver's External Control program as URSim stores it, whose motions are all ``servoj(q)`` and
``speedj(qd)`` of joint values read from a socket, inside threads started in branches on that socket's data. The
reader wrote it back unchanged saying "no motion found"; a thread whose motions the reader does not follow is now
refused where it moves, as the same call in the program's own body is.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import run_program
from test_programs_urscript_calls import _reached, _script, small_table

from thermocomp import DeformationTable
from thermocomp.compensation.compensate import CompensationOptions
from thermocomp.deformation.timelaw import Static
from thermocomp.programs import read_program
from thermocomp.tolerances import IK_POSITION_TOL

Q = "[0.1, -1.5, 1.4, -1.4, -1.6, 0.2]"


def _read(tmp_path, text: str):
    path = tmp_path / "p.script"
    path.write_text(text)
    return read_program(path)


@pytest.mark.parametrize("call", [f"servoj({Q}, t=0.008, lookahead_time=0.03, gain=2000)",
                                  "speedj([0.1, 0, 0, 0, 0, 0], 0.5, 0.008)",
                                  "force_mode(p[0, 0, 0, 0, 0, 0], [0, 0, 1, 0, 0, 0], [0, 0, 10, 0, 0, 0], 2,"
                                  " [0.1, 0.1, 0.1, 0.3, 0.3, 0.3])"])
def test_a_thread_that_moves_by_calls_not_followed_is_refused_at_the_call(tmp_path, call):
    prog = _read(tmp_path, f"def prog():\n  thread mover():\n    while True:\n      {call}\n    end\n  end\n"
                           "  run mover()\n  sleep(1.0)\nend\n")
    assert [f.line for f in prog.unsupported] == [4], prog.unsupported
    assert call.split("(")[0] in prog.unsupported[0].message


def test_the_ros_driver_form_a_servo_thread_started_on_socket_data_is_refused_at_its_servoj(tmp_path):
    text = ("def ext_control():\n"
            "  global cmd_q = get_actual_joint_positions()\n"
            "  thread servoThread():\n"
            "    while True:\n"
            "      q = cmd_q\n"
            "      servoj(q, t=0.008, lookahead_time=0.03, gain=2000)\n"   # line 6
            "    end\n"
            "  end\n"
            "  socket_open(\"192.168.56.1\", 50001, \"reverse_socket\")\n"
            "  thread_move = 0\n"
            "  params = socket_read_binary_integer(8, \"reverse_socket\", 0)\n"
            "  keepalive = params[1]\n"
            "  while keepalive > 0:\n"
            "    params = socket_read_binary_integer(8, \"reverse_socket\", 0.02)\n"
            "    if params[0] > 0:\n"
            "      thread_move = run servoThread()\n"
            "      cmd_q = [params[2], params[3], params[4], params[5], params[6], params[7]]\n"
            "    else:\n"
            "      keepalive = keepalive - 1\n"
            "    end\n"
            "  end\n"
            "end\n")
    prog = _read(tmp_path, text)
    assert 6 in {f.line for f in prog.unsupported}, prog.unsupported
    assert not prog.points


def test_a_thread_of_movel_is_still_compensated_and_a_step_counter_thread_still_passed_over(tmp_path, rng):
    counter = ("  step_count = 0.0\n  thread Step_Counter_Thread():\n    while (True):\n"
               "      step_count = step_count + 1.0\n      sync()\n    end\n  end\n  run Step_Counter_Thread()\n")
    src, T, q = _script(rng, counter + "  thread mover():\n    movel(a, a=1.2, v=0.25)\n    movej(b, a=1.4, v=1.0)\n"
                                       "  end\n  h = run mover()\n  join h\n  movel(c, a=1.2, v=0.25)\n", "")
    path = tmp_path / "p.script"
    path.write_text(src)
    prog = read_program(path)
    assert prog.unsupported == ()
    assert len(prog.points) == 3
    out = tmp_path / "p_out.script"
    run_program("ur5", DeformationTable.from_mm_deg(np.zeros((6, 6))), path, out)
    assert out.read_text() == src
    table = small_table(rng)
    run_program("ur5", table, path, out, options=CompensationOptions(time_law=Static()))
    reached = _reached(table, out, np.stack([q["a"], q["b"], q["c"]]))
    want = np.stack([T["a"], T["b"], T["c"]])
    assert np.max(np.linalg.norm(reached[:, :3, 3] - want[:, :3, 3], axis=1)) < 1e-6 + 10 * IK_POSITION_TOL
