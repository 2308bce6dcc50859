"""URScript's control flow as the reader follows it (:mod:`thermocomp.programs.urscript_flow`): what a construct the
reader does not follow, or follows and then takes back, leaves behind. Programs written from the URScript manual's
syntax (Universal Robots, "The URScript Programming Language")."""

from __future__ import annotations

import numpy as np

from thermocomp.geometry.rotations import matrix_from_rotvec, transform
from thermocomp.programs.urscript import urscript_program_from_text


def test_a_statement_not_followed_leaves_what_its_calls_may_assign_unknown():
    """``movel(pose_trans(base, bump()))`` is refused at ``base`` (a register) before ``bump()`` is evaluated; on the
    robot ``bump`` runs and moves ``k`` by 0.1, so the next motion's target is not 0.4 + 0: it is refused naming
    ``k``, not compensated at a target the robot never goes to."""
    text = ("def prog():\n"
            "  global k = 0.0\n"
            "  def bump():\n"
            "    global k = k + 0.1\n"
            "    return p[0, 0, 0, 0, 0, 0]\n"
            "  end\n"
            "  base = read_input_float_register(0)\n"
            "  movel(pose_trans(base, bump()), a=1.2, v=0.25)\n"
            "  movel(p[0.4 + k, 0.1, 0.3, 0.0, 3.14, 0.0], a=1.2, v=0.25)\n"
            "  movel(p[0.4, 0.2, 0.3, 0.0, 3.14, 0.0], a=1.2, v=0.25)\n"
            "end\n")
    prog = urscript_program_from_text(text, "bump.script")
    assert [f.line for f in prog.unsupported] == [8, 9]
    assert "base" in prog.unsupported[0].message and "the value of k" in prog.unsupported[1].message
    assert [m.statement.line for m in prog.motions] == [10]
    np.testing.assert_allclose(prog.motions[0].points[-1].T_world_tcp,
                               transform(matrix_from_rotvec(np.array([0.0, 3.14, 0.0])), np.array([0.4, 0.2, 0.3])),
                               atol=1e-12)


def test_a_loop_found_of_unknown_count_while_unrolled_keeps_the_notes_of_its_first_pass():
    """``i`` becomes known only while running in the first pass (an ``if`` on an input), so the loop, unrolled as
    counted, is followed again as a loop of unknown count: the note that calls of ``helper`` (which moves nothing)
    are passed over, first given in the pass taken back, is given again, and the motion is compensated under the
    loop's note."""
    text = ("def prog():\n"
            "  def helper():\n"
            "    textmsg(\"pass\")\n"
            "  end\n"
            "  i = 0\n"
            "  while (i < 3):\n"
            "    helper()\n"
            "    movel(p[0.4, 0.1, 0.3, 0.0, 3.14, 0.0], a=1.2, v=0.25)\n"
            "    if (get_standard_digital_in(0)):\n"
            "      i = 5\n"
            "    end\n"
            "    i = i + 1\n"
            "  end\n"
            "end\n")
    prog = urscript_program_from_text(text, "loop.script")
    assert prog.unsupported == () and [m.statement.line for m in prog.motions] == [8]
    assert [n.line for n in prog.notes if n.message.startswith("calls of helper passed over")] == [7]
    assert [n.line for n in prog.notes if n.message.startswith("while: not resolved")] == [6]
    assert prog.extra["conditional"] == (8,)


def test_a_function_that_moves_called_again_from_the_state_it_ran_from_is_not_walked_again():
    """A function of 200 statements that moves, called 1,000 times with one of two poses: its body is walked once a
    pose (the calls after do what the first did: its motion again, as a run of its own), so reading runs a few
    thousand statements, not 200,000 (past the bound on a file of this length: refused before). Each call's motion
    goes to its argument, in the written order, and is written at that variable's literal."""
    body = "".join(f"    x{i % 10} = {i}\n" for i in range(198))
    text = ("home = p[0.4, 0.1, 0.3, 0.0, 3.14, 0.0]\nwork = p[0.4, 0.1, 0.4, 0.0, 3.14, 0.0]\n"
            "def move_to(target):\n" + body + "    movel(target, a=1.2, v=0.25)\n"
            "end\n" + "".join(f"move_to({('home', 'work')[i % 2]})\n" for i in range(1000)))
    prog = urscript_program_from_text(text, "calls.script")
    assert prog.unsupported == () and len(prog.motions) == 1000
    assert prog.extra["statements_run"] < 3_000
    np.testing.assert_allclose([m.points[-1].T_world_tcp[2, 3] for m in prog.motions], [0.3, 0.4] * 500, atol=1e-12)
    assert {m.points[-1].text.line for m in prog.motions} == {1, 2}


def test_a_math_function_is_known_by_its_whole_name_not_as_a_prefix():
    """``sin``, ``atan2`` and ``powerdown`` are the manual's and move nothing; ``sinus_drive()``, defined nowhere in the
    script and not a function of the manual, could move the robot: refused at its line, not passed as "sin..."."""
    text = ("x = sin(0.5) + atan2(1, 2)\n"
            "movel(p[0.4, 0.1, 0.3, 0.0, 3.14, 0.0], a=1.2, v=0.25)\n"
            "sinus_drive()\n"
            "powerdown()\n")
    prog = urscript_program_from_text(text, "names.script")
    assert [(f.line, f.message) for f in prog.unsupported] == [
        (3, "sinus_drive is neither a function of this script nor one thermocomp knows (it could move the robot)")]
    assert [m.statement.line for m in prog.motions] == [2]
