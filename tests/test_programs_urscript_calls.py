"""URScript functions called with arguments (``def pick(pose, v=0.1):``): followed per call, as in RAPID.

The rules are those of tests/test_programs_rapid_calls.py (thermocomp.programs.calls): a pose variable
passed by name is written back where it was given when the function uses the parameter only as a
motion's target; a text inside the function that two calls need written differently is named at the
later call. Written scripts are checked by reading them back and running the warm UR5's FK on the joints
the controller takes (IK nearest the program's own joints).
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import run_program
from program_builders import random_configurations, ur_pose_text

from thermocomp import DeformationTable, deformed_model, fk, load_robot, nominal_model
from thermocomp.compensation.compensate import CompensationOptions
from thermocomp.deformation.timelaw import Static
from thermocomp.errors import InputError
from thermocomp.geometry.rotations import transform
from thermocomp.kinematics.ik import solve_ik
from thermocomp.programs import ProgramOptions, read_program
from thermocomp.tolerances import IK_POSITION_TOL

TCP = transform(np.eye(3), [0.0, 0.0, 0.15])


def small_table(rng):
    return DeformationTable.from_mm_deg(np.hstack([rng.uniform(-0.3, 0.3, (6, 3)), rng.uniform(-0.03, 0.03, (6, 3))]))


def _script(rng, main: str, functions: str):
    """Pose variables a, b, c (poses known, joints q), the TCP, the functions, then ``main``'s lines."""
    chain = load_robot("ur5")
    q = random_configurations(chain, rng, 3)
    R, p = fk(nominal_model(chain), q)
    T = transform(R, p) @ TCP
    head = "def prog():\n  set_tcp(p[0, 0, 0.15, 0, 0, 0])\n" + "".join(
        f"  global {n} = {ur_pose_text(T[i])}\n" for i, n in enumerate("abc"))
    return head + functions + main + "end\n", dict(zip("abc", T)), dict(zip("abc", q))


PICK = "  def pick(pose, speed=0.1):\n    movel(pose, a=1.2, v=speed)\n  end\n"
APPROACH = ("  def pick(pose):\n    movel(pose_trans(pose, p[0, 0, -0.05, 0, 0, 0]), a=1.2, v=0.25)\n"
            "    movel(pose, a=0.5, v=0.05)\n  end\n")


def _reached(table, out, q_near):
    chain = load_robot("ur5")
    written = read_program(out)
    T = np.stack([pt.T_world_tcp @ np.linalg.inv(pt.T_flange_tcp) for pt in written.points])
    result = solve_ik(nominal_model(chain), T[:, :3, :3], T[:, :3, 3], q_near)
    R, p = fk(deformed_model(chain, table, 1.0), result.q)
    return transform(R, p) @ TCP


def test_each_call_binds_its_own_pose_positional_keyword_or_default(tmp_path, rng):
    src, T, q = _script(rng, "  pick(a)\n  pick(b, speed=0.2)\n  pick(pose=c)\n", PICK)
    path = tmp_path / "p.script"
    path.write_text(src)
    prog = read_program(path)
    assert prog.unsupported == ()
    np.testing.assert_allclose(np.stack([pt.T_world_tcp for pt in prog.points]), np.stack([T["a"], T["b"], T["c"]]),
                               atol=1e-9)
    out = tmp_path / "p_out.script"
    run_program("ur5", DeformationTable.from_mm_deg(np.zeros((6, 6))), path, out)
    assert out.read_text() == src
    table = small_table(rng)
    run_program("ur5", table, path, out, options=CompensationOptions(time_law=Static()))
    text = out.read_text()
    assert text[text.index("  def pick"):] == src[src.index("  def pick"):]  # the variables were written back
    reached = _reached(table, out, np.stack([q["a"], q["b"], q["c"]]))
    want = np.stack([T["a"], T["b"], T["c"]])
    assert np.max(np.linalg.norm(reached[:, :3, 3] - want[:, :3, 3], axis=1)) < 1e-6 + 10 * IK_POSITION_TOL


def test_a_function_text_that_two_calls_need_differently_is_named_at_the_later_call(tmp_path, rng):
    """``movel(pose)`` reading a and b, whose literals stay as written (``pose_trans`` of them reads them too), is
    written at the motion: one text, two calls with two targets need two: refused at the later call (a text at the
    motion only once the literals are decided is no per-pass table, tests/test_programs_percall.py)."""
    main = ("  pick(a)\n  pick(b)\n  movej(c, a=1.0, v=1.0)\n  movel(pose_trans(a, p[0, 0, -0.02, 0, 0, 0]))\n"
            "  movel(pose_trans(b, p[0, 0, -0.02, 0, 0, 0]))\n")
    src, T, q = _script(rng, main, "  def pick(pose):\n    movel(pose, a=0.5, v=0.05)\n  end\n")
    path = tmp_path / "p.script"
    path.write_text(src)
    out = tmp_path / "p_out.script"
    with pytest.raises(InputError) as info:
        run_program("ur5", small_table(rng), path, out, options=CompensationOptions(time_law=Static()))
    assert info.value.row == src.splitlines().index("  pick(b)") + 1 and not out.exists()
    report = run_program("ur5", small_table(rng), path, out, options=CompensationOptions(time_law=Static()),
                                program_options=ProgramOptions(unsupported="keep"))
    text = out.read_text()
    assert text[text.index("  def pick"):text.index("  pick(a)")] == src[src.index("  def pick"):src.index("  pick(a)")]
    for name in "ab":  # the calls still read a and b as given
        line = next(x for x in src.splitlines() if x.startswith(f"  global {name} = "))
        assert line in text.splitlines()
    assert sum(report.summary.status_counts.values()) == 3  # movej(c), the two pose_trans


def test_one_call_writes_the_function_text_for_it(tmp_path, rng):
    src, T, q = _script(rng, "  pick(a)\n", APPROACH)
    path = tmp_path / "p.script"
    path.write_text(src)
    table = small_table(rng)
    out = tmp_path / "p_out.script"
    run_program("ur5", table, path, out, options=CompensationOptions(time_law=Static()))
    above = T["a"] @ transform(np.eye(3), [0.0, 0.0, -0.05])
    reached = _reached(table, out, np.stack([q["a"], q["a"]]))
    want = np.stack([above, T["a"]])
    assert np.max(np.linalg.norm(reached[:, :3, 3] - want[:, :3, 3], axis=1)) < 1e-6 + 10 * IK_POSITION_TOL


@pytest.mark.parametrize(("call", "words"), [
    ("  pick(a, 0.1, 3)\n", "takes 2 argument(s)"),
    ("  pick(a, acc=1)\n", "no parameter acc"),
    ("  pick(a, pose=b)\n", "given twice"),
    ("  pick()\n", "no value for parameter pose"),
])
def test_a_call_the_controller_would_refuse_is_an_error_at_its_line(tmp_path, rng, call, words):
    src, _, _ = _script(rng, call, PICK)
    path = tmp_path / "p.script"
    path.write_text(src)
    with pytest.raises(InputError) as info:
        read_program(path)
    assert info.value.row == src.splitlines().index(call.rstrip("\n")) + 1 and words in str(info.value)


def test_a_variable_an_unfollowed_statement_may_change_is_not_known_after_it(tmp_path, rng):
    """An assignment inside an ``if`` known only while running (passed over: it moves nothing): a later motion to
    that variable cannot be compensated from its earlier value (silently wrong with --unsupported keep). One element
    of a joint list assigned a known value (``j[0] = 0.5``) is followed: the later motion goes to the new list."""
    src, T, q = _script(rng, "  movel(a, a=1.0, v=0.1)\n  if get_digital_in(0):\n    a = b\n  end\n"
                             "  movel(a, a=1.0, v=0.1)\n  global j = [0.0, -1.57, 1.57, -1.57, -1.57, 0.0]\n"
                             "  movej(j, a=1.0, v=1.0)\n  j[0] = 0.5\n  movej(j, a=1.0, v=1.0)\n"
                             "  movel(c, a=1.0, v=0.1)\n", "")
    path = tmp_path / "p.script"
    path.write_text(src)
    prog = read_program(path)
    lines = src.splitlines()
    found = {f.line: f.message for f in prog.unsupported}
    second = lines.index("  movel(a, a=1.0, v=0.1)", lines.index("  movel(a, a=1.0, v=0.1)") + 1) + 1
    assert found.keys() == {second}
    assert [n.line for n in prog.notes if n.message.startswith("if passed over")] == [
        lines.index("  if get_digital_in(0):") + 1]
    assert "value of a is not known" in found[second]
    assert [m.instruction for m in prog.motions] == ["movel", "movej", "movej", "movel"]
    np.testing.assert_allclose([p.q[0] for p in prog.points if getattr(p, "q", None) is not None], [0.0, 0.5])


ROBODK = ("  def SprayOn(value):\n    DO_SPRAY = 5\n    if value == 0:\n      set_standard_digital_out(DO_SPRAY, False)\n"
          "    else:\n      set_standard_digital_out(DO_SPRAY, True)\n    end\n  end\n")


def test_a_function_that_moves_nothing_is_passed_over_roboDK_s_spray_on(tmp_path, rng):
    """RoboDK writes ``SprayOn(1)`` between motions, an ``if`` on its argument inside: the function moves nothing
    and changes nothing a motion reads, so its calls are passed over (one note) whatever the argument, and the
    motions around them compensate."""
    for spray in ("1", "read_input_integer_register(0)"):
        src, T, q = _script(rng, f"  movel(a, a=1.2, v=0.25)\n  SprayOn({spray})\n  movel(b, a=1.2, v=0.25)\n"
                                 "  SprayOn(0)\n  movel(c, a=1.2, v=0.25)\n", ROBODK)
        path = tmp_path / "r.script"
        path.write_text(src)
        prog = read_program(path)
        assert prog.unsupported == () and len(prog.motions) == 3
        assert [n.line for n in prog.notes if "passed over" in n.message] == [
            src.splitlines().index(f"  SprayOn({spray})") + 1]
    table = small_table(rng)
    out = tmp_path / "r_out.script"
    run_program("ur5", table, path, out, options=CompensationOptions(time_law=Static()))
    reached = _reached(table, out, np.stack([q["a"], q["b"], q["c"]]))
    want = np.stack([T["a"], T["b"], T["c"]])
    assert np.max(np.linalg.norm(reached[:, :3, 3] - want[:, :3, 3], axis=1)) < 1e-6 + 10 * IK_POSITION_TOL


@pytest.mark.parametrize(("change", "motions", "finding"), [
    (("      set_standard_digital_out(DO_SPRAY, True)\n", "      movel(c, a=1.2, v=0.1)\n"), 4, None),
    (("      set_standard_digital_out(DO_SPRAY, False)\n", "      set_tcp(p[0, 0, 0.1, 0, 0, 0])\n"), 2,
     ("  movel(b, a=1.2, v=0.25)", "the tool is not known before running (set_tcp in a branch of the if at line")),
    (("      set_standard_digital_out(DO_SPRAY, False)\n", "      rq_open()\n"), 3,
     ("      rq_open()", "rq_open is neither a function of this script nor one thermocomp knows: its 1 call(s)")),
])
def test_a_branch_on_run_time_data_in_a_function_decides_by_each_motion_s_data(tmp_path, rng, change, motions,
                                                                               finding):
    """The same ``if`` on an argument known only while running, where a branch moves (its motion's target is
    constant: compensated, and named in a note), changes the tool (the motion after the call reads a tool known
    only while running: refused there, naming the set_tcp) or calls a function neither of the script nor known
    (passed over, a note at that call)."""
    src, T, q = _script(rng, "  movel(a, a=1.2, v=0.25)\n  SprayOn(read_input_integer_register(0))\n"
                             "  movel(b, a=1.2, v=0.25)\n  SprayOn(0)\n  movel(c, a=1.2, v=0.25)\n",
                        ROBODK.replace(*change))
    path = tmp_path / "r.script"
    path.write_text(src)
    prog = read_program(path)
    lines = src.splitlines()
    assert len(prog.motions) == motions
    if finding is None:
        assert prog.unsupported == ()
        branch = lines.index("    if value == 0:") + 1
        assert any(n.line == branch and f"its 1 motion(s) (line {lines.index(change[1].rstrip()) + 1}) are "
                   "compensated" in n.message for n in prog.notes)
        assert prog.extra["conditional"] == (lines.index(change[1].rstrip()) + 1,)
    else:
        found = [f.line for f in (*prog.unsupported, *prog.notes) if finding[1] in f.message]
        assert found == [lines.index(finding[0]) + 1]
        assert len(prog.unsupported) == ("neither" not in finding[1])  # (one found nowhere: a note, not refused)


@pytest.mark.parametrize(("loop", "passes"), [
    ("  Loop_1 = 0\n  while (Loop_1 < 3):\n{body}    Loop_1 = Loop_1 + 1\n  end\n", 3),  # PolyScope's "Loop 3 times"
    ("  n = 5\n  while n > 0 and n != 1:\n{body}    n = n - 2\n  end\n", 2),
    ("  k = 0\n  while not (k >= 2):\n{body}    k = k + 1\n  end\n", 2),
    ("  k = 0\n  while k < 0:\n{body}    k = k + 1\n  end\n", 0),
])
def test_a_while_with_a_known_condition_is_unrolled(tmp_path, rng, loop, passes):
    body = "    movel(b, a=1.2, v=0.25)\n    movel(c, a=1.2, v=0.25)\n"
    src, T, q = _script(rng, "  movel(a, a=1.2, v=0.25)\n" + loop.format(body=body), "")
    path = tmp_path / "l.script"
    path.write_text(src)
    prog = read_program(path)
    assert prog.unsupported == ()
    np.testing.assert_allclose(np.stack([pt.T_world_tcp for pt in prog.points]),
                               np.stack([T["a"]] + [T["b"], T["c"]] * passes), atol=1e-9)
    out = tmp_path / "l_out.script"
    run_program("ur5", DeformationTable.from_mm_deg(np.zeros((6, 6))), path, out)
    assert out.read_text() == src


def test_a_while_whose_condition_nothing_changes_is_followed_as_a_loop_forever(tmp_path, rng):
    """``k = 0``, ``while k < 3:`` whose body never changes ``k`` never ends (PolyScope's loop forever in another
    spelling): followed as a loop of unknown count, its constant target compensated and named, at once."""
    src, T, q = _script(rng, "  movel(a, a=1.2, v=0.25)\n  k = 0\n  while k < 3:\n    movel(b, a=1.2, v=0.25)\n"
                             "  end\n", "")
    path = tmp_path / "l.script"
    path.write_text(src)
    prog = read_program(path)
    line = next(i for i, x in enumerate(src.splitlines(), 1) if x.lstrip().startswith("while"))
    assert prog.unsupported == () and [m.statement.line for m in prog.motions] == [line - 2, line + 1]
    assert any(n.line == line and "not resolved before running" in n.message for n in prog.notes)


@pytest.mark.parametrize(("loop", "at", "words"), [
    ("  k = 0\n  while get_digital_in(0):\n    movel(pose_trans(b, p[0, 0, 0.01 * k, 0, 0, 0]), a=1.2, v=0.25)\n"
     "    k = k + 1\n  end\n", "movel", "the value of k is not known before running"),  # (a counter, count unknown)
    ("  k = 0\n  while k < 5000:\n    movel(b, a=1.2, v=0.25)\n    k = k + 1\n  end\n", "while",
     "passes is not unrolled"),  # (past MAX_WHILE_PASSES, here 1,000)
    ("  k = 0\n  while k < k + 1:\n    movel(b, a=1.2, v=0.25)\n    k = k + 1\n  end\n", "while",
     "passes is not unrolled"),  # (a bound that reads the counter moves with it: never an early count)
])
def test_a_while_it_cannot_unroll_is_named_with_its_line(tmp_path, rng, loop, at, words, monkeypatch):
    import thermocomp.programs.urscript_flow as flow

    monkeypatch.setattr(flow, "MAX_WHILE_PASSES", 1000)
    src, T, q = _script(rng, "  movel(a, a=1.2, v=0.25)\n" + loop, "")
    path = tmp_path / "l.script"
    path.write_text(src)
    prog = read_program(path)
    line = next(i for i, x in enumerate(src.splitlines(), 1) if x.lstrip().startswith(at) and i > 6)
    assert [f.line for f in prog.unsupported] == [line] and words in prog.unsupported[0].message
    assert len(prog.motions) == 1  # nothing of the loop is kept
