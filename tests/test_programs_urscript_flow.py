"""URScript's control flow as the reader follows it (:mod:`thermocomp.programs.urscript_flow`): what a construct the
reader does not follow, or follows and then takes back, leaves behind. Programs written from the URScript manual's
syntax (Universal Robots, "The URScript Programming Language")."""

from __future__ import annotations

import numpy as np
import pytest

from thermocomp.errors import InputError
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


def _history_program(calls: int, tail: str = "", argument: str = "7") -> str:
    """A function that shifts a rolling history of ten commands (a global), counts its calls and moves to two
    constant targets, called ``calls`` times from a counted loop with ``argument``; ``tail`` after the loop."""
    return ("hist = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0]\n"
            "calls = 0\n"
            "def move_and_log(k):\n"
            "  local i = 9\n"
            "  while i > 0:\n"
            "    hist[i] = hist[i - 1]\n"
            "    i = i - 1\n"
            "  end\n"
            "  hist[0] = k\n"
            "  global calls = calls + 1\n"
            "  movel(p[0.4, 0.1, 0.3, 0.0, 3.14, 0.0], a=1.2, v=0.25)\n"
            "  movej([0.0, -1.57, 1.57, -1.57, -1.57, 0.0], a=1.4, v=1.05)\n"
            "end\n"
            "n = 0\n"
            f"while n < {calls}:\n"
            f"  move_and_log({argument})\n"
            "  n = n + 1\n"
            "end\n" + tail)


def test_a_call_that_only_shifts_a_history_nothing_reads_is_done_again_not_walked():
    """LEonard's class: a function keeps a rolling history of its commands and a count of its calls that nothing
    else reads, and moves to constant targets; called 2,000 times, each call is done again from the state of the
    first (the history and the count are not followed: they can change no motion, condition or message), so
    reading runs about three statements a call, not the ~25 of a walk (50,000 before). Every call's two motions
    are there, in the written order."""
    prog = urscript_program_from_text(_history_program(2000), "history.script")
    assert prog.unsupported == () and len(prog.motions) == 4000
    assert prog.extra["statements_run"] < 3 * 2000
    assert [m.instruction for m in prog.motions[:4]] == ["movel", "movej", "movel", "movej"]
    np.testing.assert_allclose([m.points[-1].T_world_tcp[2, 3] for m in prog.motions[::2]], 0.3, atol=1e-12)


def test_a_history_a_condition_reads_is_followed_call_by_call():
    """The same history read after the loop by a condition: it is followed at every call (its entries are the
    arguments of the last ten calls), so the branch its oldest entry decides is the one compensated."""
    tail = ("if hist[9] == 2 and hist[0] == 11:\n"
            "  movel(p[0.5, 0.1, 0.3, 0.0, 3.14, 0.0], a=1.2, v=0.25)\n"
            "else:\n"
            "  movel(p[0.6, 0.1, 0.3, 0.0, 3.14, 0.0], a=1.2, v=0.25)\n"
            "end\n")
    prog = urscript_program_from_text(_history_program(12, tail, "n"), "read_history.script")
    assert prog.unsupported == () and len(prog.motions) == 25
    assert prog.motions[-1].statement.line == 20
    np.testing.assert_allclose(prog.motions[-1].points[-1].T_world_tcp[0, 3], 0.5, atol=1e-12)


def test_a_variable_read_through_a_chain_of_assignments_is_followed():
    """``z`` is read by a motion, ``z`` is given ``y``, ``y`` is given ``x``, which a loop shifts: each is read (only
    ``log``, which nothing reads, is not followed), so the target is the value passed down the chain."""
    text = ("log = [0, 0]\n"
            "x = 0.2\n"
            "i = 0\n"
            "while i < 3:\n"
            "  log[1] = log[0]\n"
            "  log[0] = x\n"
            "  x = x + 0.05\n"
            "  i = i + 1\n"
            "end\n"
            "y = x\n"
            "z = y\n"
            "movel(p[0.4, 0.1, z, 0.0, 3.14, 0.0], a=1.2, v=0.25)\n")
    prog = urscript_program_from_text(text, "chain.script")
    assert prog.unsupported == () and len(prog.motions) == 1
    np.testing.assert_allclose(prog.motions[0].points[-1].T_world_tcp[2, 3], 0.35, atol=1e-12)


def test_a_call_reading_a_record_is_done_again_only_from_an_equal_record():
    """``go()`` reads the record ``wp``: called again after ``wp`` is given another record it is walked again (its
    motion goes to the new member, written in the new literal); called again with ``wp`` unchanged it does what it
    did."""
    text = ("def prog():\n"
            "  wp = struct(p=p[0.4, 0.1, 0.3, 0, 3.14, 0], q=[0, -1.57, 1.57, -1.57, -1.57, 0])\n"
            "  def go():\n"
            "    movel(wp.p, a=1.2, v=0.25)\n"
            "  end\n"
            "  go()\n"
            "  wp = struct(p=p[0.5, 0.1, 0.3, 0, 3.14, 0], q=[0, -1.57, 1.57, -1.57, -1.57, 0])\n"
            "  go()\n"
            "  go()\n"
            "end\n")
    prog = urscript_program_from_text(text, "record.script")
    assert prog.unsupported == ()
    np.testing.assert_allclose([m.points[-1].T_world_tcp[0, 3] for m in prog.motions], [0.4, 0.5, 0.5], atol=1e-12)
    assert [m.points[-1].text.line for m in prog.motions] == [2, 7, 7]


def test_a_math_function_is_known_by_its_whole_name_not_as_a_prefix():
    """``sin``, ``atan2`` and ``powerdown`` are the manual's and move nothing; ``sinus_drive()``, defined nowhere in the
    script and not a function of the manual, is one found nowhere: passed over with a note at its line naming it
    (not taken for "sin...")."""
    text = ("x = sin(0.5) + atan2(1, 2)\n"
            "movel(p[0.4, 0.1, 0.3, 0.0, 3.14, 0.0], a=1.2, v=0.25)\n"
            "sinus_drive()\n"
            "powerdown()\n")
    prog = urscript_program_from_text(text, "names.script")
    assert prog.unsupported == ()
    assert [(n.line, n.message.split()[0]) for n in prog.notes if "neither a function" in n.message] == [
        (3, "sinus_drive")]
    assert [m.statement.line for m in prog.motions] == [2]


def test_a_datum_given_again_the_same_text_is_written_where_each_motion_reads_it():
    """A pose, a list, a struct and a list of structs each given twice with the same text: the robot reads the
    second literal at the second motion, so that motion's target is written there. Taking the second assignment
    for the first (equal by value) left the second literal as written and moved the robot to the uncorrected
    pose, with exit 0."""
    pose = "p[0.4, 0.1, 0.3, 0, 3.14, 0]"
    for given, read, lines in ((pose, "x", [2, 4, 5]), (f"[{pose}]", "x[0]", [2, 4, 5]),
                               (f"struct(p={pose})", "x.p", [2, 4, 5]),
                               (f"[struct(p={pose})]", "x[0].p", [3, 4, 6])):  # (written at the motion)
        text = ("def prog():\n"
                f"  x = {given}\n"
                f"  movel({read}, a=1.2, v=0.25)\n"
                "  movel(p[0.3, 0.1, 0.3, 0, 3.14, 0], a=1.2, v=0.25)\n"
                f"  x = {given}\n"
                f"  movel({read}, a=1.2, v=0.25)\n"
                "end\n")
        prog = urscript_program_from_text(text, "again.script")
        assert prog.unsupported == (), given
        assert [m.points[-1].text.line for m in prog.motions] == lines, given


def test_a_return_in_a_function_s_loop_forever_ends_the_function_and_the_caller_goes_on():
    """``return`` in a ``while True`` (one cycle is one pass) leaves the function: the motion after the loop never
    runs, the motion after the call does (URScript manual, "Flow of control" and "Function")."""
    move = "movel(p[{x}, .1, .3, 0, 3.14, 0], a=1.2, v=0.25)"
    text = ("def prog():\n  def f():\n    while True:\n      " + move.format(x=.4) + "\n      return 0\n    end\n    "
            + move.format(x=.5) + "\n  end\n  f()\n  " + move.format(x=.6) + "\nend\n")
    prog = urscript_program_from_text(text, "ret.script")
    assert prog.unsupported == () and [m.statement.line for m in prog.motions] == [4, 10]
    assert [p.T_world_tcp[0, 3] for p in prog.points] == [0.4, 0.6]


def test_a_call_into_a_recursive_cycle_is_run_again_after_a_global_it_reads_through_the_cycle_changes():
    """``g`` calls ``f``, which reads ``W`` and calls ``g`` back (refused: recursive). What ``g`` reads through ``f``
    is not all known while their summaries are found (each waits on the other), so a call of ``g`` is never done
    again from memory: after ``W = 0.5`` the motion in ``f`` goes to x = 0.5, not to the 0.2 of the calls before."""
    text = ("Z = 0.1\nW = 0.2\n"
            "def g():\n  movel(p[Z, 0, 0.3, 0, 3.14, 0])\n  f()\nend\n"
            "def f():\n  movel(p[W, 0, 0.3, 0, 3.14, 0])\n  g()\nend\n"
            "def main():\n  f()\n  g()\n  g()\n  W = 0.5\n  g()\nend\n")
    prog = urscript_program_from_text(text, "cycle.script")
    assert {f.line for f in prog.unsupported} == {5, 9}
    assert [m.statement.line for m in prog.motions] == [8, 4, 4, 8, 4, 8, 4, 8]
    np.testing.assert_allclose([p.T_world_tcp[0, 3] for p in prog.points], [.2, .1, .1, .2, .1, .2, .1, .5])


def test_an_element_assigned_at_an_index_that_is_not_a_number_leaves_the_list_unknown():
    """``q[inf - inf] = 3`` (the manual's list element assignment at an index that is NaN) is no element of ``q``:
    ``q`` is not known after it, and the motion reading ``q[0]`` is refused naming ``q``, as a read at such an index
    is (no ValueError escaping the reader)."""
    for statement in ("q[1e308 * 10 - 1e308 * 10] = 3", "x = q[1e308 * 10 - 1e308 * 10]"):
        text = f"q = [1, 2]\nx = 0\n{statement}\nmovej([0, 0, 0, 0, x, q[0]])\n"
        prog = urscript_program_from_text(text, "nan.script")
        assert [f.line for f in prog.unsupported] == [4], statement
        assert ("the value of q" if statement.startswith("q") else "the value of x") in prog.unsupported[0].message


# ----- a call done again from memory does what walking its body would (URScript manual, "Functions": arguments are
# passed by value; a function reads and assigns globals as its statements say)

_MOVE = "  movel(p[{x}, 0.1, 0.3, 0, 3.14, 0], a=1.2, v=0.25)\n"


def test_a_function_whose_effect_on_a_global_depends_on_its_arguments_gives_each_call_its_own():
    """``set_x(v)`` assigns the global ``g`` from its argument and moves nothing: called with 0.4, 0.5, then 0.4
    again (the first call's state met again), each motion after it goes to the ``g`` that call gave."""
    text = ("g = 0.3\n"
            "def set_x(v):\n  global g = v\nend\n"
            "def main():\n"
            + "".join(f"  set_x({v})\n" + _MOVE.format(x="g") for v in (0.4, 0.5, 0.4, 0.5))
            + "end\n")
    prog = urscript_program_from_text(text, "args.script")
    assert prog.unsupported == ()
    np.testing.assert_allclose([p.T_world_tcp[0, 3] for p in prog.points], [0.4, 0.5, 0.4, 0.5], atol=1e-12)


def test_a_function_called_before_and_after_a_global_it_reads_changes_moves_where_the_global_says():
    """``go()`` moves to the global ``W``: called twice, then after ``W = 0.5`` twice, then after ``W = 0.2`` again
    (the state of its first calls met again): its motions go to 0.2, 0.2, 0.5, 0.5, 0.2."""
    text = ("W = 0.2\n"
            "def go():\n" + _MOVE.format(x="W") + "end\n"
            "def main():\n  go()\n  go()\n  W = 0.5\n  go()\n  go()\n  W = 0.2\n  go()\nend\n")
    prog = urscript_program_from_text(text, "before_after.script")
    assert prog.unsupported == ()
    np.testing.assert_allclose([p.T_world_tcp[0, 3] for p in prog.points], [0.2, 0.2, 0.5, 0.5, 0.2], atol=1e-12)


def test_a_recursive_function_is_refused_at_each_call_not_only_the_first():
    """``f(n)`` moves, then calls itself: how deep it goes is known only while running, so its recursive call is
    refused where it stands; a second call of ``f`` from the same state is refused alike, and moves alike."""
    text = ("def f(n):\n" + _MOVE.format(x="0.4") + "  if n > 0:\n    f(n - 1)\n  end\nend\n"
            "def main():\n  f(2)\n  f(2)\nend\n")
    prog = urscript_program_from_text(text, "recursion.script")
    assert [f.line for f in prog.unsupported] == [4]
    assert "recursive call of f" in prog.unsupported[0].message
    assert [m.statement.line for m in prog.motions] == [2, 2]


def test_a_function_reading_where_the_robot_stands_reads_the_motion_before_each_call():
    """``here()`` returns ``get_actual_tcp_pose()``: after a motion to A it is A, after a motion to B it is B (the
    memory of a call keys where the robot stands by the motion it stands after), so each relative motion after it
    goes 5 cm above the target before it."""
    text = ("def prog():\n"
            "  def here():\n    return get_actual_tcp_pose()\n  end\n"
            + "".join(_MOVE.format(x=x) + "  h = here()\n"
                      "  movel(pose_trans(h, p[0, 0, 0.05, 0, 0, 0]), a=1.2, v=0.25)\n" for x in (0.4, 0.5, 0.4))
            + "end\n")
    prog = urscript_program_from_text(text, "stands.script")
    assert prog.unsupported == ()
    np.testing.assert_allclose([p.T_world_tcp[:3, 3] for p in prog.points],
                               [[0.4, 0.1, 0.3], [0.4, 0.1, 0.25], [0.5, 0.1, 0.3], [0.5, 0.1, 0.25], [0.4, 0.1, 0.3],
                                [0.4, 0.1, 0.25]], atol=1e-3)  # (3.14 is not pi: 0.08 mm off in x)


def test_where_the_robot_stands_read_through_a_call_made_again_still_may_not_decide_a_condition():
    """``here()`` called three times after one motion, then in a condition: the fourth call reads the pose the robot
    stands at as the first did (not done again from memory without it), so the script is refused naming it, as a
    single call in the condition is (the compensated script would stand elsewhere and may decide otherwise)."""
    text = ("def prog():\n"
            "  def here():\n    return get_actual_tcp_pose()\n  end\n"
            + _MOVE.format(x="0.4") + "  x = here()\n  y = here()\n  z = here()\n"
            "  if here()[2] > 0.2:\n" + _MOVE.format(x="0.5") + "  end\nend\n")
    with pytest.raises(InputError, match=r"line 3: get_actual_tcp_pose\(\) \(the pose the robot stands at after the "
                                         r"movel at line 5\) decides a condition"):
        urscript_program_from_text(text, "decides.script")
