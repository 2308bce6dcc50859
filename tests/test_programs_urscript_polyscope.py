"""What PolyScope exports compensates with default options (issue 25), and a script's unrolled size is bounded
(issue 28).

The scripts are written from Universal Robots' "The URScript Programming
Language" (threads started with ``thrd = run Thread_1()``, stopped with
``kill thrd`` and ``join thrd``; ``return``; objects from ``rpc_factory`` and
their methods; ``struct`` records and their members; ``if``/``elif``/``else``;
``while``) and PolyScope's export layout (``while (True):`` as the main loop,
``$`` step lines, "Wait" as a ``while`` polling an input). Targets are the
nominal FK of known configurations; the warm robot must reach them through
the written program, only motion targets may change, and a zero table must
give the script back byte for byte.
"""

from __future__ import annotations

import time

import numpy as np
import pytest
from helpers import run_program
from program_builders import random_configurations, ur_pose_text

from thermocomp import DeformationTable, deformed_model, fk, load_robot, nominal_model
from thermocomp.compensation.compensate import CompensationOptions
from thermocomp.deformation.timelaw import Static
from thermocomp.errors import InputError
from thermocomp.geometry.rotations import matrix_from_rotvec, rotation_angle, transform
from thermocomp.kinematics.ik import solve_ik
from thermocomp.programs import calls, read_program
from thermocomp.programs.model import MAX_MOTIONS
from thermocomp.programs.urscript import urscript_program_from_text
from thermocomp.tolerances import IK_ORIENTATION_TOL, IK_POSITION_TOL

TOOL = transform(np.eye(3), np.array([0.0, 0.0, 0.12]))
ZERO = DeformationTable.from_mm_deg(np.zeros((6, 6)))


def small_table(rng):
    return DeformationTable.from_mm_deg(np.hstack([rng.uniform(-0.3, 0.3, (6, 3)), rng.uniform(-0.03, 0.03, (6, 3))]))


def _pose(text: str):
    v = np.array([float(x) for x in text[2:-1].split(",")])
    return transform(matrix_from_rotvec(v[3:]), v[:3])


def polyscope_script(rng):
    """A pick-and-place cell as PolyScope exports it; the TCP poses of its Cartesian motions in order, their
    configurations, and the lines of its motions."""
    chain = load_robot("ur5")
    q = random_configurations(chain, rng, 4)
    R, p = fk(nominal_model(chain), q)
    T = transform(R, p) @ TOOL
    texts = [ur_pose_text(T[i]) for i in range(4)]
    home = "[" + ", ".join(f"{v:.12g}" for v in q[3]) + "]"
    lines = [
        "def Pick_Place():",
        "  set_standard_analog_input_domain(0, 1)",
        "  set_tcp(p[0.0,0.0,0.12,0.0,0.0,0.0])",
        "  set_payload(1.0, [0.0, 0.0, .05])",
        '  rpc = rpc_factory("xmlrpc", "http://127.0.0.1:40405/RPC2")',
        f"  global Home_q={home}",
        f"  global Pick_p={texts[0]}",
        "  global parts = 0",
        "  thread Thread_1():",
        "    while (True):",
        '      rpc.set_value("heartbeat", 1)',
        "      sync()",
        "    end",
        "    return False",
        "  end",
        "  threadId_Thread_1 = run Thread_1()",
        "  def open_gripper():",
        "    set_standard_digital_out(0, False)",
        "    return True",
        "  end",
        "  def approach():",
        "    return 0.05",
        "  end",
        "  while (True):",
        '    $ 1 "Robot Program"',
        "    movej(Home_q, a=1.3962634015954636, v=1.0471975511965976)",
        "    movel(pose_trans(Pick_p, p[0, 0, -approach(), 0, 0, 0]), a=1.2, v=0.25)",
        "    movel(Pick_p, a=1.2, v=0.1)",
        '    $ 2 "Wait digital_in[0]=HI"',
        "    while (not(get_standard_digital_in(0) == True)):",
        "      sync()",
        "    end",
        "    if (get_standard_digital_in(1) == True):",
        '      textmsg("part present")',
        "      parts = parts + 1",
        '    elif (rpc.get_value("mode") == 2):',
        '      popup("mode 2")',
        "    else:",
        "      set_standard_digital_out(1, True)",
        "    end",
        "    ok = open_gripper()",
        f"    movel({texts[1]}, a=1.2, v=0.25)",
        "    movel(p[Pick_p.x, Pick_p.y, Pick_p.z + .1, Pick_p.rx, Pick_p.ry, Pick_p.rz], a=1.2, v=0.25)",
        "    kill threadId_Thread_1",
        "    join threadId_Thread_1",
        "  end",
        "end",
        "",
    ]
    pick = _pose(texts[0])
    above = pick.copy()
    above[2, 3] += 0.1
    want = [pick @ transform(np.eye(3), np.array([0.0, 0.0, -0.05])), pick, _pose(texts[1]), above]
    return "\n".join(lines), want, q[[0, 0, 1, 0]], [27, 28, 42, 43], 26


def test_a_polyscope_export_reads_with_its_threads_objects_records_and_branches(rng):
    text, want, _, motion_lines, home_line = polyscope_script(rng)
    prog = urscript_program_from_text(text, "cell.script")
    assert prog.unsupported == ()
    assert [m.statement.line for m in prog.motions] == [home_line, *motion_lines]
    got = [p.T_world_tcp for p in prog.points[1:]]
    np.testing.assert_allclose(np.stack(got), np.stack(want), atol=1e-12)
    notes = {n.line: n.message for n in prog.notes}
    assert notes[30].startswith("while passed over") and notes[33].startswith("if passed over")


def test_a_polyscope_export_compensates_with_default_options(tmp_path, rng):
    text, want, q_near, motion_lines, home_line = polyscope_script(rng)
    path = tmp_path / "cell.script"
    path.write_text(text)
    out = tmp_path / "out.script"
    run_program("ur5", ZERO, path, out)
    assert out.read_bytes() == path.read_bytes()  # a zero table: the script as it was

    chain = load_robot("ur5")
    table = small_table(rng)
    report = run_program("ur5", table, path, out, options=CompensationOptions(time_law=Static()))
    assert report.unsupported == [] and report.failed == []
    before, after = text.splitlines(), out.read_text().splitlines()
    assert len(before) == len(after)
    changed = [i + 1 for i, (a, b) in enumerate(zip(before, after)) if a != b]
    assert changed == motion_lines  # every other line as it was, the home joint target too
    for i in changed:  # in a changed line only the target: the instruction and its arguments are kept
        assert after[i - 1].startswith("    movel(p[") and after[i - 1].endswith(", a=" + before[i - 1].rsplit(", a=")[1])
    assert any(f"cell.script:{home_line}:" in n and "joint target left as written" in n for n in report.notes)
    # the warm robot reaches the program's targets: the controller solves each written pose nearest its joints
    written = read_program(out)
    T = np.stack([p.T_world_tcp @ np.linalg.inv(p.T_flange_tcp) for p in written.points[1:]])
    result = solve_ik(nominal_model(chain), T[:, :3, :3], T[:, :3, 3], q_near)
    R, p = fk(deformed_model(chain, table, 1.0), result.q)
    reached = transform(R, p) @ TOOL
    want = np.stack(want)
    position = np.linalg.norm(reached[:, :3, 3] - want[:, :3, 3], axis=1)
    angle = rotation_angle(reached[:, :3, :3] @ np.swapaxes(want[:, :3, :3], -1, -2))
    assert position.max() <= 10 * IK_POSITION_TOL + 2 * report.rounding_position + 0.4 * report.rounding_angle
    assert angle.max() <= 10 * IK_ORIENTATION_TOL + 2 * report.rounding_angle
    assert report.summary.uncompensated_max_position > 100 * position.max()


def test_a_thread_that_moves_the_robot_decides_by_its_motions_data(tmp_path):
    """A thread runs beside the program at times known only while running: its motion to a constant target is
    compensated where the thread is started, named in a note; one reading the socket is refused naming it; a
    thread never started keeps its motion as written, named."""
    path = tmp_path / "t.script"
    path.write_text("def main():\n  thread Mover():\n    movel(p[.4, .1, .3, 0, 3.14, 0], a=1.2, v=0.25)\n  end\n"
                    "  thrd = run Mover()\n  movel(p[.4, -.1, .3, 0, 3.14, 0], a=1.2, v=0.25)\n  join thrd\nend\n")
    out = tmp_path / "o.script"
    report = run_program("ur5", DeformationTable.from_mm_deg([[0.1, -0.1, 0.05, 0.01, 0.0, -0.01]] * 6),
                                path, out)
    assert report.n_motions == 2 and report.unsupported == []
    assert any(n.startswith(f"{path}:2:3: thread Mover: not resolved before running (it runs beside the program")
               and "(line 3) are compensated" in n for n in report.notes)
    assert out.read_text().splitlines()[2] != path.read_text().splitlines()[2]
    socket = ("def main():\n  thread Follow():\n    while (True):\n      q = socket_read_ascii_float(6)\n"
              "      movej([q[1], q[2], q[3], q[4], q[5], q[6]])\n    end\n  end\n  run Follow()\n"
              "  thread Idle():\n    movel(p[.4, .1, .3, 0, 3.14, 0])\n  end\nend\n")
    prog = urscript_program_from_text(socket, "s.script")
    assert [(f.line, "the value of q is not known" in f.message) for f in prog.unsupported] == [(5, True)]
    assert any(n.line == 10 and "thread Idle stays as written: the thread is never started" in n.message
               for n in prog.notes)


@pytest.mark.parametrize(("body", "motions", "line", "words"), [
    ("  if (get_standard_digital_in(0) == True):\n    movel(p[.4, .1, .3, 0, 3.14, 0])\n  end\n", [2, 4, 6], 3,
     "if: not resolved before running (its outcome or count is known only while running); its 1 motion(s) "
     "(line 4) are compensated, each once in the written order of the cycle"),
    ("  if (get_standard_digital_in(0) == True):\n    sync()\n  elif (get_standard_digital_in(1)):\n"
     "    movel(p[.4, .1, .3, 0, 3.14, 0])\n  end\n", [2, 6, 8], 3, "its 1 motion(s) (line 6) are compensated"),
    ("  while (get_standard_digital_in(0) == False):\n    movel(p[.4, .1, .3, 0, 3.14, 0])\n    break\n  end\n",
     [2, 4, 7], 3, "while: not resolved before running (its outcome or count is known only while running); its 1 "
                   "motion(s) (line 4)"),
    ("  if (get_standard_digital_in(0) == True):\n    set_tcp(p[0, 0, .1, 0, 0, 0])\n  end\n", [2], 6,
     "the tool is not known before running (set_tcp in a branch of the if at line 3)"),
    ("  if (get_standard_digital_in(0) == True):\n    my_urcap_move()\n  end\n", [2, 6], 4,
     "my_urcap_move is neither a function of this script nor one thermocomp knows: its 1 call(s)"),
])
def test_a_branch_known_only_while_running_decides_by_its_motions_data(body, motions, line, words):
    """Issue 35: an ``if`` on an input, a ``while`` until a button, do not change a constant target: the motions
    inside are compensated and named in a note; what is refused is what a motion reads that is known only while
    running (the tool a branch may set); a call of a function found nowhere is passed over, a note at its line."""
    text = "def f():\n  movej([0, -1.5, 1.5, -1.6, -1.57, 0])\n" + body + "  movel(p[.4, -.1, .3, 0, 3.14, 0])\nend\n"
    prog = urscript_program_from_text(text, "b.script")
    assert [m.statement.line for m in prog.motions] == motions
    refused = "not known" in words
    assert [f.line for f in (prog.unsupported if refused else prog.notes) if words in f.message] == [line]
    assert len(prog.unsupported) == refused


def test_a_branch_whose_condition_is_known_is_followed():
    text = ("def f():\n  n = 2\n  if (n > 3):\n    movel(p[.4, .1, .3, 0, 3.14, 0])\n  elif (n == 2):\n"
            "    movel(p[.4, .2, .3, 0, 3.14, 0])\n  else:\n    movel(p[.4, .3, .3, 0, 3.14, 0])\n  end\nend\n")
    prog = urscript_program_from_text(text, "k.script")
    assert prog.unsupported == () and [m.statement.line for m in prog.motions] == [6]


def test_what_a_passed_over_branch_assigns_is_not_known_after_it():
    text = ("def f():\n  h = .3\n  if (get_standard_digital_in(0) == True):\n    h = .2\n  end\n"
            "  movel(p[.4, .1, h, 0, 3.14, 0])\nend\n")
    prog = urscript_program_from_text(text, "h.script")
    assert [(f.line, f.message) for f in prog.unsupported] == [
        (6, "the value of h is not known before running (line 4 may change it, in a construct not followed)")]


def test_a_record_member_target_is_written_back_in_the_record(tmp_path, rng):
    chain = load_robot("ur5")
    q = random_configurations(chain, rng, 1)
    R, p = fk(nominal_model(chain), q)
    pose = ur_pose_text(transform(R[0], p[0]))
    path = tmp_path / "r.script"
    path.write_text(f"def f():\n  global Wp = struct(p={pose}, q=[0, -1.5, 1.5, -1.6, -1.57, 0])\n"
                    "  movel(Wp.p, a=1.2, v=0.25)\n  movej(Wp.q)\nend\n")
    prog = read_program(path)
    np.testing.assert_allclose(prog.points[0].T_world_tcp, _pose(pose), atol=1e-12)
    out = tmp_path / "o.script"
    run_program("ur5", small_table(rng), path, out, options=CompensationOptions(time_law=Static()))
    before, after = path.read_text().splitlines(), out.read_text().splitlines()
    assert [i for i, (a, b) in enumerate(zip(before, after)) if a != b] == [1]  # the record's pose literal only
    assert after[1].startswith("  global Wp = struct(p=p[") and after[1].endswith(", q=[0, -1.5, 1.5, -1.6, -1.57, 0])")


@pytest.mark.parametrize(("change", "words"), [
    ("    h = h - .01\n", "the value of h is not known before running"),  # a value each cycle changes
    ("    if (get_standard_digital_in(0)):\n      h = .2\n    end\n", "value of h is not known"),  # a branch may
])
def test_a_main_loop_motion_the_next_cycle_runs_elsewhere_is_refused_at_its_line(change, words):
    """PolyScope's main loop is one cycle a pass, followed from the state at its head in every cycle: a motion
    reading data the loop changes (a counter, a value a branch on an input may set) is refused naming it; data the
    body gives the same value every pass stays known."""
    text = ("def f():\n  h = .3\n  while (True):\n    movel(p[.4, .1, .3, 0, 3.14, 0])\n    movel(p[.4, .1, h, 0, 3.14, 0])\n"
            + change + "  end\nend\n")
    prog = urscript_program_from_text(text, "c.script")
    assert [(f.line, words in f.message) for f in prog.unsupported] == [(5, True)]
    assert [m.statement.line for m in prog.motions] == [4]  # (with --unsupported keep: left as written)
    steady = text.replace(change, "    h = .3\n    if (get_standard_digital_in(0)):\n      textmsg(h)\n    end\n")
    assert [m.statement.line for m in urscript_program_from_text(steady, "c.script").motions] == [4, 5]


def _call_tree(depth: int) -> str:
    """``f0`` moves once; each ``f<k>`` calls ``f<k-1>`` twice: a call of ``f<depth>`` runs 2^depth motions."""
    defs = ["def f0():\n  movel(p[.4, .1, .3, 0, 3.14, 0], a=1.2, v=0.25)\nend\n"]
    defs += [f"def f{k}():\n  f{k - 1}()\n  f{k - 1}()\nend\n" for k in range(1, depth + 1)]
    return "".join(defs) + f"f{depth}()\n"


def test_a_tree_of_calls_standing_for_2_to_the_40_motions_is_refused_at_once_with_its_count():
    started = time.process_time()
    with pytest.raises(InputError) as refusal:
        urscript_program_from_text(_call_tree(40), "tree.script")
    assert time.process_time() - started < 30  # (it ran until killed)
    message = str(refusal.value)
    assert refusal.value.row == 164 and f"{2 ** 41 + 2 ** 40 - 1:,} motions, calls and loop passes" in message
    assert f"--max-motions {MAX_MOTIONS:,}" in message
    assert len(urscript_program_from_text(_call_tree(4), "tree.script").motions) == 16


def test_nested_counted_loops_past_the_bound_are_refused_with_their_line(monkeypatch):
    """Counted loops run pass by pass: past --max-motions, or past the statements the reader runs, refused at the
    motion where the bound is passed."""
    loops = ("def m():\n  i = 0\n  while (i < 100):\n    j = 0\n    while (j < 100):\n"
             "      movel(p[.4, .1, .3, 0, 3.14, 0], a=1.2, v=0.25)\n      j = j + 1\n    end\n    i = i + 1\n  end\nend\n")
    with pytest.raises(InputError) as refusal:
        urscript_program_from_text(loops, "loops.script", max_motions=1_000)
    assert refusal.value.row == 6 and "--max-motions 1,000" in str(refusal.value)
    monkeypatch.setattr(calls, "MAX_STATEMENTS_RUN", 1_000)
    with pytest.raises(InputError) as refusal:
        urscript_program_from_text(loops, "loops.script")
    assert refusal.value.row in (6, 7) and "reading runs more than 1,550 statements" in str(refusal.value)  # (inner)
    monkeypatch.undo()
    small = loops.replace("100", "3")
    prog = urscript_program_from_text(small, "loops.script", max_motions=9 + 9 + 3)  # motions and passes
    assert [m.statement.line for m in prog.motions] == [6] * 9
    with pytest.raises(InputError):
        urscript_program_from_text(small, "loops.script", max_motions=9 + 9 + 2)


def test_a_main_loop_state_machine_follows_every_state_and_refuses_the_counter():
    """PolyScope's "Switch" on a state the loop itself advances (rparak's pick and place): every case is followed,
    its constant targets compensated; the stacked target reading the counter is refused naming it."""
    text = ("def f():\n  global state = 1\n  global n = 0\n  while (True):\n    s = state\n    if (1 == s):\n"
            "      global state = 2\n    elif (2 == s):\n      movel(p[.4, .1, .3, 0, 3.14, 0])\n"
            "      movel(pose_trans(p[.4, .1, .3, 0, 3.14, 0], p[0, 0, -0.02 * n, 0, 0, 0]))\n      n = n + 1\n"
            "    end\n  end\nend\n")
    prog = urscript_program_from_text(text, "m.script")
    assert [m.statement.line for m in prog.motions] == [9]
    assert [(f.line, "the value of n is not known" in f.message) for f in prog.unsupported] == [(10, True)]
