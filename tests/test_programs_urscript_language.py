"""URScript read as its manual defines it (Universal Robots, "The URScript Programming Language", CB3 and
e-Series), one test a class of the language; a PolyScope export with a URCap's preamble read in linear work
(issue 35).

Rules under test: the whole language parses, and a syntax error is only what the controller would refuse, with
line and column; a motion's data decide, not the control flow around it (a motion inside an ``if`` on an input or
after a wait for a button is compensated when its target and tool are known before running; one whose data
change from pass to pass or come from the running robot is refused naming that data and its line); every script
ends within a stated bound with a message. Poses are the nominal FK of configurations inside the UR5's limits;
written scripts are read back and the warm robot's FK must reach the targets.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from helpers import run_program
from hypothesis import given, settings
from hypothesis import strategies as st
from program_builders import random_configurations, ur_pose_text, urcap_export

import thermocomp.programs.calls as calls
from thermocomp import DeformationTable, deformed_model, fk, load_robot, nominal_model
from thermocomp.compensation.compensate import CompensationOptions
from thermocomp.deformation.timelaw import Static
from thermocomp.errors import InputError
from thermocomp.geometry.rotations import rotation_angle, transform
from thermocomp.kinematics.ik import solve_ik
from thermocomp.programs import ProgramOptions, read_program
from thermocomp.programs.urscript import urscript_program_from_text
from thermocomp.tolerances import IK_ORIENTATION_TOL, IK_POSITION_TOL

ZERO = DeformationTable.from_mm_deg(np.zeros((6, 6)))


def _pose(rng) -> tuple[str, np.ndarray]:
    chain = load_robot("ur5")
    q = random_configurations(chain, rng, 1)
    R, p = fk(nominal_model(chain), q)
    T = transform(R[0], p[0])
    return ur_pose_text(T), T


def _lines(prog) -> list[int]:
    return [m.statement.line for m in prog.motions]


# ----- a PolyScope export with a URCap's preamble: the shape that hung

def test_a_urcap_preamble_export_reads_in_work_linear_in_its_size(monkeypatch, rng):
    """A 2,000-line export whose preamble's 96 functions call each other 4 times a level, 8 levels deep (2^24
    paths through its calls; it hung): read within 3 statements run per line of the file, every motion at its
    known pose, the ones under an input's ``if`` named in a note."""
    export = urcap_export(rng)
    n_lines = export.text.count("\n")
    assert n_lines > 2000
    monkeypatch.setattr(calls, "MAX_STATEMENTS_RUN", 0)
    monkeypatch.setattr(calls, "STATEMENTS_PER_LINE", 3)
    prog = urscript_program_from_text(export.text, "urcap.script")
    assert prog.unsupported == () and _lines(prog) == export.lines
    np.testing.assert_allclose(np.stack([p.T_world_tcp for p in prog.points]), np.stack(export.T_world_tcp),
                               atol=1e-12)
    named = [n for n in prog.notes if "not resolved before running" in n.message and "are compensated" in n.message]
    assert [int(n.message.split("(line ")[1].split(")")[0]) for n in named] == export.lines[1::4]
    assert prog.extra["conditional"] == tuple(export.lines[1::4])


def test_a_urcap_preamble_export_compensates_and_only_its_targets_change(tmp_path, rng):
    export = urcap_export(rng, layers=2, per_layer=4, waypoints=5)
    path = tmp_path / "urcap.script"
    path.write_text(export.text)
    out = tmp_path / "out.script"
    run_program("ur5", ZERO, path, out)
    assert out.read_bytes() == path.read_bytes()
    table = DeformationTable.from_mm_deg(np.hstack([rng.uniform(-0.3, 0.3, (6, 3)), rng.uniform(-0.03, 0.03, (6, 3))]))
    report = run_program("ur5", table, path, out, options=CompensationOptions(time_law=Static()))
    assert report.unsupported == [] and report.failed == []
    before, after = export.text.splitlines(), out.read_text().splitlines()
    changed = {i + 1 for i, (a, b) in enumerate(zip(before, after)) if a != b}
    assert len(before) == len(after) and changed and all(
        before[i - 1].startswith("  global Waypoint_") and "_p=p[" in before[i - 1] for i in changed)
    written = read_program(out)
    chain = load_robot("ur5")
    T = np.stack([p.T_world_tcp @ np.linalg.inv(p.T_flange_tcp) for p in written.points])
    q_near = random_configurations(chain, np.random.default_rng(0), len(T))  # (not the program's: IK nearest)
    want = np.stack(export.T_world_tcp)
    q0 = solve_ik(nominal_model(chain), want[:, :3, :3] @ np.swapaxes(np.eye(3)[None], -1, -2),
                  (want @ np.linalg.inv(written.points[0].T_flange_tcp))[:, :3, 3], q_near).q
    result = solve_ik(nominal_model(chain), T[:, :3, :3], T[:, :3, 3], q0)
    R, p = fk(deformed_model(chain, table, 1.0), result.q)
    reached = transform(R, p) @ written.points[0].T_flange_tcp
    assert np.linalg.norm(reached[:, :3, 3] - want[:, :3, 3], axis=1).max() <= 10 * IK_POSITION_TOL + 1e-6
    assert rotation_angle(reached[:, :3, :3] @ np.swapaxes(want[:, :3, :3], -1, -2)).max() <= \
        10 * IK_ORIENTATION_TOL + 1e-6


def test_a_tree_of_calls_that_moves_nothing_is_passed_over_at_once():
    """2^60 paths through functions that only talk to a socket: each call passed over (one note), not followed."""
    defs = ["def f0():\n  socket_send_string(\"x\")\n  sleep(0.1)\nend\n"]
    defs += [f"def f{k}():\n  if (read_input_boolean_register(0)):\n    f{k - 1}()\n  end\n  f{k - 1}()\nend\n"
             for k in range(1, 61)]
    text = "".join(defs) + "movel(p[.4, .1, .3, 0, 3.14, 0])\nf60()\nmovel(p[.4, -.1, .3, 0, 3.14, 0])\n"
    prog = urscript_program_from_text(text, "tree.script")
    assert prog.unsupported == () and len(prog.motions) == 2
    assert [n.message.split(":")[0] for n in prog.notes] == ["calls of f60 passed over"]


def test_every_script_ends_within_the_statement_bound_with_a_message(monkeypatch):
    """A loop the reader must run pass by pass (two assignments in its body), past the bound on statements run
    (100,000 and 50 a line of the file; here 1,000): refused at the statement where it passes the bound, with the
    bound. And the shape that costs most a statement, a tree of calls of functions that assign a global (each
    followed), 2^60 paths in 250 lines: refused at the bound, not after hours."""
    monkeypatch.setattr(calls, "MAX_STATEMENTS_RUN", 1000)
    monkeypatch.setattr(calls, "STATEMENTS_PER_LINE", 0)
    text = ("def m():\n  i = 0\n  while (i < 5000):\n    x = 2 * i\n    i = i + 1\n  end\n"
            "  movel(p[.4, .1, .3, 0, 3.14, 0])\nend\n")
    with pytest.raises(InputError) as refusal:
        urscript_program_from_text(text, "loop.script")
    assert refusal.value.row in (4, 5) and "more than 1,000 statements" in str(refusal.value)
    assert len(urscript_program_from_text(text.replace("5000", "100"), "loop.script").motions) == 1
    monkeypatch.setattr(calls, "MAX_STATEMENTS_RUN", 20_000)
    defs = ["def f0():\n  global status = read_input_integer_register(0)\nend\n"]
    defs += [f"def f{k}():\n  f{k - 1}()\n  f{k - 1}()\nend\n" for k in range(1, 61)]
    with pytest.raises(InputError) as refusal:
        urscript_program_from_text("".join(defs) + "movel(p[.4, .1, .3, 0, 3.14, 0])\nf60()\n", "tree.script")
    # (each function run once from each state it is called in, the calls counted: --max-motions ends it)
    assert "more than 2,000,000 motions, calls and loop passes" in str(refusal.value) and refusal.value.row == 190


# ----- a motion's data decide

def test_constant_targets_inside_a_branch_on_an_input_and_after_a_wait_are_compensated(rng):
    (a, Ta), (b, Tb), (c, Tc) = _pose(rng), _pose(rng), _pose(rng)
    text = (f"def cell():\n  global pick = {a}\n  if (get_standard_digital_in(2)):\n    movel(pick, a=1.2, v=0.25)\n"
            f"  elif (get_standard_digital_in(3)):\n    movel({b}, a=1.2, v=0.25)\n  else:\n    textmsg(\"none\")\n"
            "  end\n  while (not get_standard_digital_in(0)):\n    sync()\n  end\n"
            f"  movel(pose_trans(pick, p[0, 0, -0.05, 0, 0, 0]))\n  movej({c})\nend\n")
    prog = urscript_program_from_text(text, "cell.script")
    assert prog.unsupported == () and _lines(prog) == [4, 6, 13, 14]
    approach = Ta @ transform(np.eye(3), np.array([0.0, 0.0, -0.05]))
    np.testing.assert_allclose(np.stack([p.T_world_tcp for p in prog.points]), np.stack([Ta, Tb, approach, Tc]),
                               atol=1e-12)
    assert any(n.line == 3 and "its 2 motion(s) (line 4, 6) are compensated" in n.message for n in prog.notes)
    assert prog.extra["conditional"] == (4, 6)


@pytest.mark.parametrize(("body", "line", "words"), [
    # a counter in a loop of unknown count
    ("  k = 0\n  while (get_standard_digital_in(0)):\n    movel(pose_add(base, p[0, 0, k, 0, 0, 0]))\n"
     "    k = k + 0.01\n  end\n", 5, "the value of k is not known before running"),
    # a value from an RPC server
    ("  rpc = rpc_factory(\"xmlrpc\", \"http://10.0.0.2:8000\")\n  target = rpc.get_next_target()\n"
     "  movel(target)\n", 5, "the value of target is not known before running"),
    # arithmetic on a register
    ("  h = read_input_float_register(0) * 0.001\n  movel(pose_add(base, p[0, 0, h, 0, 0, 0]))\n", 4,
     "the value of h is not known before running"),
    # a tool set in one branch only
    ("  if (get_standard_digital_in(0)):\n    set_tcp(p[0, 0, 0.2, 0, 0, 0])\n  end\n  movel(base)\n", 6,
     "the tool is not known before running (set_tcp in a branch of the if at line 3)"),
    # a variable given another value in one branch
    ("  if (get_standard_digital_in(0)):\n    base = pose_add(base, p[0, 0, 0.1, 0, 0, 0])\n  end\n  movel(base)\n",
     6, "the value of base is not known before running"),
])
def test_a_motion_whose_data_differ_from_pass_to_pass_is_refused_naming_them(body, line, words):
    text = "def f():\n  base = p[.4, .1, .3, 0, 3.14, 0]\n" + body + "end\n"
    prog = urscript_program_from_text(text, "data.script")
    assert [(f.line, words in f.message) for f in prog.unsupported] == [(line, True)]


def test_what_every_branch_assigns_alike_stays_known_after_them():
    text = ("def f():\n  if (get_standard_digital_in(0)):\n    z = 0.3\n    set_tcp(p[0, 0, .1, 0, 0, 0])\n  else:\n"
            "    z = 0.3\n    set_tcp(p[0, 0, .1, 0, 0, 0])\n  end\n  movel(p[.4, .1, z, 0, 3.14, 0])\nend\n")
    prog = urscript_program_from_text(text, "same.script")
    assert prog.unsupported == () and _lines(prog) == [9]
    np.testing.assert_allclose(prog.points[0].T_flange_tcp[:3, 3], [0, 0, 0.1])


def test_a_return_under_a_condition_joins_the_function_s_end():
    """``return`` inside an ``if`` on an input: after the call the global is one of the two values, so a motion
    reading it is refused; the motion after the ``if`` inside the function is compensated."""
    text = ("def f():\n  global h = 0.3\n  def g():\n    if (get_standard_digital_in(0)):\n      h = 0.2\n      return 1\n"
            "    end\n    movel(p[.4, .1, .3, 0, 3.14, 0])\n    h = 0.25\n  end\n  g()\n  movel(p[.4, .1, h, 0, 3.14, 0])\n"
            "end\n")
    prog = urscript_program_from_text(text, "ret.script")
    assert _lines(prog) == [8] and [f.line for f in prog.unsupported] == [12]


@pytest.mark.parametrize(("loop", "lines"), [
    ("  i = 0\n  while (i < 5):\n    if (i == 2):\n      break\n    end\n    movel(p[.4, .1, .3, 0, 3.14, 0])\n"
     "    i = i + 1\n  end\n", [8, 8]),  # break ends a counted loop
    ("  i = 0\n  while (i < 4):\n    i = i + 1\n    if (i == 2):\n      continue\n    end\n"
     "    movel(p[.4, .1, .3, 0, 3.14, 0])\n  end\n", [9, 9, 9]),  # continue skips a pass's rest
    ("  i = 0\n  while (i < 4):\n    i = i + 1\n    if (get_standard_digital_in(i)):\n      break\n    end\n"
     "    movel(p[.4, .1, .3, 0, 3.14, 0])\n  end\n", [9, 9, 9, 9]),  # a break on an input: any pass may be the last
])
def test_break_and_continue_are_followed(loop, lines):
    prog = urscript_program_from_text("def f():\n  movej([0, -1.5, 1.5, -1.6, -1.57, 0])\n" + loop + "end\n", "b.script")
    assert prog.unsupported == () and _lines(prog) == [2, *lines]


# ----- the language as the manual defines it

def test_the_manual_s_statements_and_expressions_parse_and_are_followed(rng):
    pose, T = _pose(rng)
    text = (
        "global pick = " + pose + "\n"
        "sec watchdog():\n  if (get_standard_digital_in(7)):\n    set_standard_digital_out(7, True)\n  end\nend\n"
        "thread blink():\n  while (True):\n    set_standard_digital_out(1, True)\n    sleep(0.5)\n  end\nend\n"
        "def main():\n"
        "  local m = [[1, 2], [3, 4]]\n"
        "  local msg = \"say 'hi' \\ there\"\n"  # (no escapes: the backslash is a character)
        "  local rec = struct(p=pick, count=2)\n"
        "  flag = True xor False\n"
        "  dz = m[1, 0] * 0.01 - 3 * 0.01 + (2 % 2)\n"
        "  handle = run blink()\n"
        "  enter_critical\n  set_standard_digital_out(2, True)\n  exit_critical\n"
        "  if (flag and not (dz != 0)):\n    movel(pose_trans(rec.p, p[0, 0, dz, 0, 0, 0]), a=1.2, v=0.25, r=0)\n  end\n"
        "  kill handle\n  join handle\n"
        "  textmsg(msg, str_len(msg))\n"
        "  halt\n"
        "end\n")
    prog = urscript_program_from_text(text, "manual.script")
    assert prog.unsupported == () and _lines(prog) == [24]
    np.testing.assert_allclose(prog.points[0].T_world_tcp, T, atol=1e-12)


@pytest.mark.parametrize(("text", "line", "column"), [
    ("def f():\n  movel(p[.4, .1, .3, 0, 3.14, 0]\nend\n", 3, 1),  # an unclosed call
    ("def f():\n  if (x > 1)\n    sync()\n  end\nend\n", 2, 13),  # no colon
    ("def f():\n  x = = 2\nend\n", 2, 7),  # an operator where a value belongs
    ("def f():\n  sync()\n", 2, 9),  # no end (the end of the file)
    ("def f():\n  sync()\nend\nend\n", 4, 1),  # one end too many
])
def test_a_syntax_error_is_what_the_controller_refuses_with_line_and_column(text, line, column):
    with pytest.raises(InputError) as error:
        urscript_program_from_text(text, "bad.script")
    assert error.value.row == line and f"(column {column})" in str(error.value)


def test_break_outside_a_loop_is_refused_as_the_controller_refuses_it():
    with pytest.raises(InputError) as error:
        urscript_program_from_text("def f():\n  movel(p[.4, .1, .3, 0, 3.14, 0])\n  break\nend\n", "b.script")
    assert error.value.row == 3 and "break outside a loop" in str(error.value)


def test_local_shadows_a_global_and_a_secondary_program_is_not_run():
    text = ("global z = 0.3\ndef main():\n  sec lamp():\n    set_standard_digital_out(3, True)\n  end\n  local z = 0.1\n"
            "  movel(p[.4, .1, z, 0, 3.14, 0])\n  inner()\nend\ndef inner():\n  movel(p[.4, .1, z, 0, 3.14, 0])\nend\n"
            "main()\n")
    prog = urscript_program_from_text(text, "scope.script")
    assert prog.unsupported == () and _lines(prog) == [7, 11]
    assert [p.T_world_tcp[2, 3] for p in prog.points] == [0.1, 0.3]


def test_a_list_of_poses_walked_by_index_is_written_element_by_element(tmp_path, rng):
    """PolyScope's "list of poses" (glinvad's 6exPoseList): ``poses = [pose_1, pose_2]`` of global literals, and
    a literal list, walked by ``while i < n: movel(poses[i])``: each pass's target is written where it stands."""
    (a, Ta), (b, Tb), (c, Tc) = _pose(rng), _pose(rng), _pose(rng)
    text = (f"def f():\n  global pose_1 = {a}\n  global pose_2 = {b}\n  global poses = [pose_1, pose_2]\n"
            f"  inline = [{c}, {a}]\n  def walk(list, n):\n    i = 0\n    while i < n:\n      movel(list[i], a=1.2, v=0.25)\n"
            "      i = i + 1\n    end\n  end\n  walk(poses, 2)\n  walk(inline, 2)\nend\n")
    path = tmp_path / "list.script"
    path.write_text(text)
    prog = read_program(path)
    assert prog.unsupported == () and _lines(prog) == [9] * 4
    np.testing.assert_allclose(np.stack([p.T_world_tcp for p in prog.points]), np.stack([Ta, Tb, Tc, Ta]), atol=1e-12)
    out = tmp_path / "out.script"
    run_program("ur5", ZERO, path, out)
    assert out.read_bytes() == path.read_bytes()
    table = DeformationTable.from_mm_deg(np.full((6, 6), 0.05))
    run_program("ur5", table, path, out, options=CompensationOptions(time_law=Static()))
    before, after = text.splitlines(), out.read_text().splitlines()
    assert [i + 1 for i, (x, y) in enumerate(zip(before, after)) if x != y] == [2, 3, 5]


def test_a_function_defined_inside_a_thread_is_the_file_s():
    text = ("def f():\n  thread T():\n    while (True):\n      def tell(name):\n        socket_send_string(\"x\", name)\n"
            "      end\n      tell(\"s\")\n      sync()\n    end\n  end\n  run T()\n  movel(p[.4, .1, .3, 0, 3.14, 0])\nend\n")
    prog = urscript_program_from_text(text, "t.script")
    assert prog.unsupported == () and _lines(prog) == [12]


def test_the_manual_s_math_functions_of_known_numbers_are_evaluated():
    """A point of a circle as a generator writes it (``sin``/``cos`` of an angle, the manual's ``log(b, f)``,
    ``atan2(y, x)``, ``sqrt``, ``pow``, ``floor``): known before running, so followed; a value that is not a number
    (``sqrt(-1)``) is refused where a motion reads it, naming it."""
    text = ("def f():\n  r = 0.05 * sqrt(pow(2, 2))\n  a = atan2(1, 1) + d2r(45) + log(10, 100) - 2\n"
            "  movel(p[0.4 + r * cos(a), 0.1 + r * sin(a), floor(3.7) / 10, 0, 3.14, 0])\nend\n")
    prog = urscript_program_from_text(text, "math.script")
    assert prog.unsupported == ()
    np.testing.assert_allclose(prog.points[0].T_world_tcp[:3, 3], [0.4, 0.2, 0.3], atol=1e-12)
    prog = urscript_program_from_text(text.replace("sqrt(pow(2, 2))", "sqrt(-1)"), "math.script")
    assert [(f.line, "sqrt of -1 is not a number" in f.message) for f in prog.unsupported] == [(4, True)]


_CONDITIONS = st.sampled_from(["get_standard_digital_in(0)", "k < 3", "True", "x > 0.1", "not (k == 2)"])
_SIMPLE = st.sampled_from(["movel(p[.4, .1, .3, 0, 3.14, 0])", "movel(p[.4, .1, z, 0, 3.14, 0])",
                           "movej([0, -1.5, 1.5, -1.6, -1.57, 0])", "k = k + 1", "z = 0.3", "z = read_input_float_register(0)",
                           "x = x + 0.01", "set_tcp(p[0, 0, .1, 0, 0, 0])", "sleep(0.1)", "sync()", "break", "continue",
                           "return", "g()", "textmsg(k)"])


def _block(draw, depth: int, indent: str) -> list[str]:
    lines = []
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["simple", "simple", "if", "while"] if depth < 3 else ["simple"]))
        if kind == "simple":
            lines.append(indent + draw(_SIMPLE))
        else:
            lines.append(f"{indent}{kind} ({draw(_CONDITIONS)}):")
            lines += _block(draw, depth + 1, indent + "  ")
            if kind == "if" and draw(st.booleans()):
                lines.append(f"{indent}else:")
                lines += _block(draw, depth + 1, indent + "  ")
            lines.append(f"{indent}end")
    return lines


@st.composite
def _programs(draw) -> str:
    body = _block(draw, 0, "  ")
    g = _block(draw, 1, "  ")
    return "\n".join(["global k = 0", "global x = 0.2", "global z = 0.3", "def g():", *g, "end", "def main():",
                      *body, "end", ""])


@settings(max_examples=60, deadline=None)
@given(_programs())
def test_any_program_of_the_language_ends_and_drops_no_motion(text):
    """Generated programs of nested if/while/break/continue/return over inputs, counters and constants: reading
    ends (with a program, or an InputError naming a line; never another exception), and where the entry neither
    jumps nor calls, every motion it holds is followed or named at its line (a motion is never dropped)."""
    try:
        prog = urscript_program_from_text(text, "gen.script")
    except InputError as error:
        assert error.row is not None
        return
    lines = text.splitlines()
    main = lines.index("def main():")
    entry = lines[main + 1:-1]
    motion_lines = {main + 2 + i for i, line in enumerate(entry) if line.strip().startswith(("movel", "movej"))}
    assert {m.statement.line for m in prog.motions} <= motion_lines | {
        i + 1 for i, line in enumerate(lines[:main]) if line.strip().startswith(("movel", "movej"))}
    if not any(line.strip() in ("break", "continue", "return", "g()") for line in entry):
        named = {m.statement.line for m in prog.motions} | {f.line for f in prog.unsupported + prog.notes} | {
            int(n) for f in prog.notes for group in re.findall(r"line ([0-9, ]+)", f.message)
            for n in group.replace(" ", "").split(",") if n}
        assert motion_lines <= named


def test_a_motion_whose_order_is_not_known_gets_its_minute_from_the_written_order(tmp_path, rng):
    """docs/programs.md, "Where the order is not known from the file": with --timed, the motions inside a branch
    on an input and after a wait for a button run at the minutes of their places in the written order of the
    cycle (as if every branch ran once), each later than the one written before it."""
    poses = [_pose(rng)[0] for _ in range(4)]
    text = (f"def f():\n  movel({poses[0]}, a=1.2, v=0.02)\n  if (get_standard_digital_in(0)):\n"
            f"    movel({poses[1]}, a=1.2, v=0.02)\n  else:\n    movel({poses[2]}, a=1.2, v=0.02)\n  end\n"
            "  while (not get_standard_digital_in(1)):\n    sync()\n  end\n  sleep(120)\n"
            f"  movel({poses[3]}, a=1.2, v=0.02)\nend\n")
    path = tmp_path / "order.script"
    path.write_text(text)
    report = run_program("ur5", "deformations/exaggerated.csv", path, tmp_path / "o.script",
                                program_options=ProgramOptions(timed=True))
    rows = sorted(report.rows, key=lambda r: r.motion)
    assert [r.line for r in rows] == [2, 4, 6, 12]
    minutes = [r.minute_first for r in rows]
    assert all(b > a for a, b in zip(minutes, minutes[1:])) and minutes[3] - minutes[2] >= 2.0  # (the 120 s wait)
