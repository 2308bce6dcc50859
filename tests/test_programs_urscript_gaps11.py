"""Classes the eleventh held-out gathering of real programs (PolyScope exports of an assembly cell with URCap
preambles, skill scripts, code generators' templates, scripts that Python and C++ programs send to the controller)
showed in the URScript reader (issue 35), each written from the URScript manual's syntax, not from the gathered
texts: PolyScope's relative moves (``pose_add(get_target_tcp_pose(), pose_sub(to, from))``) after a motion that
stops at a known target, several statements on one line (an assignment node PolyScope writes with a second call
after its value), commands sent one a line without a ``def``, a tab-indented counter loop, and what must be
refused naming its line: a code generator's template placeholder, a file that ends inside a ``def`` (a fragment a
program completes), free drive, a servo loop on registers, a Direction node's target."""

from __future__ import annotations

import numpy as np
import pytest

from thermocomp.errors import InputError
from thermocomp.geometry.rotations import transform
from thermocomp.programs import read_program

A_P = "p[.2, -.4, .3, 0, 3.14, 0]"
FROM_P = "p[.2, -.4, .3, 0, 3.14, 0]"
TO_P = "p[.25, -.38, .32, 0.3, 3.0, 0]"


def _read(tmp_path, text: str, name: str = "prog.script"):
    path = tmp_path / name
    path.write_text(text)
    return read_program(path)


def _pose(x, y, z, rx, ry, rz) -> np.ndarray:
    """A URScript pose p[x, y, z, rx, ry, rz] (m, rotation vector in rad) as a 4x4 transform."""
    v = np.array([rx, ry, rz], dtype=float)
    angle = np.linalg.norm(v)
    k = v / angle if angle else np.zeros(3)
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return transform(np.eye(3) + np.sin(angle) * K + (1 - np.cos(angle)) * K @ K, [x, y, z])


def test_a_polyscope_relative_move_reads_the_target_of_the_stopped_motion_before_it(tmp_path):
    """The manual: ``get_target_tcp_pose()`` is the target the controller moves to; after a motion reached without
    blend it is that motion's target. ``pose_add(a, b)`` adds positions and multiplies rotations, ``pose_sub(a, b)``
    is its inverse: PolyScope's relative waypoint ``pose_add(get_target_tcp_pose(), pose_sub(to, from))`` then has a
    target known before the run."""
    prog = _read(tmp_path, "def cell():\n"
                           f"  global a_p={A_P}\n"
                           "  global a_q=[0.05, -2.1, 2.3, -1.7, -1.56, 0.0]\n"
                           f"  global from_p={FROM_P}\n"
                           f"  global to_p={TO_P}\n"
                           "  $ 1 \"MoveJ\"\n"
                           "  movej(get_inverse_kin(a_p, qnear=a_q), a=1.4, v=1.05)\n"
                           "  $ 2 \"turn\" \"breakAfter\"\n"
                           "  movej(pose_add(get_target_tcp_pose(), pose_sub(to_p, from_p)), a=1.4, v=1.05)\n"
                           "end\n")
    assert prog.unsupported == ()
    assert [m.statement.line for m in prog.motions] == [7, 9]
    a, frm, to = _pose(.2, -.4, .3, 0, 3.14, 0), _pose(.2, -.4, .3, 0, 3.14, 0), _pose(.25, -.38, .32, 0.3, 3.0, 0)
    sub = transform(to[:3, :3] @ frm[:3, :3].T, to[:3, 3] - frm[:3, 3])
    want = transform(a[:3, :3] @ sub[:3, :3], a[:3, 3] + sub[:3, 3])
    got = [pt.T_world_tcp for pt in prog.points]
    np.testing.assert_allclose(got[0], a, atol=1e-9)
    np.testing.assert_allclose(got[1], want, atol=1e-9)


def test_a_relative_move_after_a_blended_motion_is_refused_naming_its_line(tmp_path):
    """Blended (``r`` > 0), the motion before is left before its target: where the robot stands is known only while
    running."""
    prog = _read(tmp_path, "def cell():\n"
                           f"  global from_p={FROM_P}\n"
                           f"  global to_p={TO_P}\n"
                           f"  movel({A_P}, a=1.2, v=0.25, r=0.05)\n"
                           "  movel(pose_add(get_target_tcp_pose(), pose_sub(to_p, from_p)), a=1.2, v=0.25)\n"
                           "end\n")
    assert [u.line for u in prog.unsupported] == [5]
    assert "get_target_tcp_pose" in prog.unsupported[0].message


def test_an_assignment_with_a_second_call_on_its_line_takes_the_first_value(tmp_path):
    """Statements may share a line (the manual's interpreter mode); PolyScope writes an assignment node's value and
    a second call there (``x= get_actual_tcp_pose () get_actual_joint_positions ()``). The variable takes the first
    value: the pose the robot stands at, refused where a motion goes to it, naming the variable and both lines."""
    prog = _read(tmp_path, "def cell():\n"
                           "  $ 3 \"currentpose≔get_actual_tcp_pose()get_actual_joint_positions()\"\n"
                           "  global currentpose= get_actual_tcp_pose () get_actual_joint_positions ()\n"
                           "  movej(currentpose, a=1.4, v=1.05)\n"
                           f"  movel({A_P}, a=1.2, v=0.25)\n"
                           "end\n")
    assert [u.line for u in prog.unsupported] == [4]
    assert "currentpose" in prog.unsupported[0].message and "line 3" in prog.unsupported[0].message
    known = _read(tmp_path, "def cell():\n"
                            f"  global here= {A_P} textmsg(\"taught\")\n"
                            "  movel(here, a=1.2, v=0.25)\n"
                            "end\n", "known.script")
    assert known.unsupported == ()
    np.testing.assert_allclose(known.points[0].T_world_tcp, _pose(.2, -.4, .3, 0, 3.14, 0), atol=1e-9)


@pytest.mark.parametrize(("line_text", "placeholder"), [
    ("  movej([{0}, {1}, {2}, {3}, {4}, {5}], a = {6}, v = {7})", "{0}"),         # Python's str.format
    ("  set_tool_voltage({{TOOL_VOLTAGE}})", "{{TOOL_VOLTAGE}}"),                   # mustache, the URCaps' drivers
    ("  {{GRIPPER_COMMAND}}", "{{GRIPPER_COMMAND}}"),
    ("  PORT = %(driver_reverseport)d", "%(driver_reverseport)d"),                  # Python's % formatting
    ("  movel(p[{x:.4f}, -0.4, 0.3, 0, 3.14, 0])", "{x:.4f}"),
])
def test_a_code_generators_placeholder_is_refused_naming_it_and_its_line(tmp_path, line_text, placeholder):
    """A template is not yet a program: the controller refuses it, and so does the reader, with the line, the
    column and the placeholder named as what it is."""
    path = tmp_path / "template.script"
    path.write_text(f"def prog():\n  textmsg(\"start\")\n{line_text}\nend\n")
    with pytest.raises(InputError, match="URScript syntax: unexpected") as info:
        read_program(path)
    assert info.value.row == 3
    assert f": {placeholder} is a code generator's placeholder, not URScript" in str(info.value)


def test_a_brace_that_is_no_placeholder_is_a_plain_syntax_error(tmp_path):
    path = tmp_path / "brace.script"
    path.write_text("def prog():\n  x = {\nend\n")
    with pytest.raises(InputError, match=r"URScript syntax: unexpected '\{' \(column 7\)$") as info:
        read_program(path)
    assert info.value.row == 2


def test_a_file_ending_inside_its_def_is_refused_naming_the_def(tmp_path):
    """A skill file that a program completes (``# Insert real program here.`` then ``end`` appended): the file
    alone ends inside ``def``, which the controller refuses too: where the file ends (line 7, its comment), naming
    the ``def`` left open and its line."""
    path = tmp_path / "fragment.script"
    path.write_text("def SpiralMotion():\n"
                    "    def spiral(r=0.001):\n"
                    f"        movel({A_P}, a=1.2, v=0.25)\n"
                    "        return True\n"
                    "    end\n"
                    "\n"
                    "    # Insert real program here.\n")
    with pytest.raises(InputError, match=r"def SpiralMotion \(line 1\) is not closed") as info:
        read_program(path)
    assert info.value.row == 7


def test_commands_sent_one_a_line_are_a_program(tmp_path):
    """What a program sends to the controller's port, one command a line with no ``def``: a joint move with
    ``a, v, t, r`` as keywords, a linear move with them positional."""
    prog = _read(tmp_path, "movej([1.257, -1.325, -1.977, -1.412, 1.574, 1.815], a=0.1, v=1, t=0, r=0)\n"
                           "movel(p[0.3947, -0.0089, 0.1701, -3.1415, 0.0003, 0.0157], a=0.2, v=0.25, t=0, r=0)\n"
                           "movel(p[-0.253,-0.129,0.391,-0.119,-3.002,0.130],0.1,0.05,0,0)\n")
    assert prog.unsupported == ()
    assert [m.statement.line for m in prog.motions] == [1, 2, 3]
    np.testing.assert_allclose(prog.points[2].T_world_tcp, _pose(-0.253, -0.129, 0.391, -0.119, -3.002, 0.130),
                               atol=1e-9)


def test_a_tab_indented_counter_loop_with_trailing_blanks_is_followed_pass_by_pass(tmp_path):
    prog = _read(tmp_path, "\ndef move(): \n\n\ti=0\n\twhile i < 2:  \n"
                           f"\t\tmovel({A_P}, a=0.3 , v=0.6) \n\n"
                           f"\t\tmovel({TO_P}, a=0.3 , v=0.6) \n"
                           "\t\ti=i+1 \n\tend\nend \nmove() \n")
    assert prog.unsupported == ()
    assert [m.statement.line for m in prog.motions] == [6, 8, 6, 8]


@pytest.mark.parametrize(("text", "line", "name"), [
    # free drive: the arm goes where the operator pushes it
    ("def myProg():\n\twhile (True):\n\t\tfreedrive_mode()\n\t\tsync()\n\tend\nend\n", 3, "freedrive_mode"),
    # a servo loop on joints computed from registers a host writes
    ("global position = [0,0,0,0,0,0]\n"
     "def update_position():\n    position[0] = read_port_register(128)*0.01\nend\n"
     "while(True):\n    update_position()\n"
     "    allj = get_inverse_kin(p[position[0],position[1],position[2],position[3],position[4],position[5]])\n"
     "    servoj(allj,0.5,0.5,0.5)\nend\n", 8, "servoj"),
])
def test_motion_the_file_does_not_fix_is_refused_naming_its_line(tmp_path, text, line, name):
    prog = _read(tmp_path, text)
    assert prog.unsupported and prog.unsupported[0].line == line and name in prog.unsupported[0].message


def test_a_direction_nodes_target_is_refused_naming_it(tmp_path):
    """PolyScope's Direction node moves in a thread towards a point computed from ``get_target_waypoint()`` until a
    condition the main program polls stops it (tool contact), never waiting for it to end (no ``join``): the move is
    refused naming the point and its line (one the program waits for: test_programs_held33.py)."""
    prog = _read(tmp_path, "def cell():\n"
                           f"  movel({A_P}, a=1.2, v=0.25)\n"
                           "  def towards(direction, distance):\n"
                           "    return pose_add(get_target_waypoint(), p[direction[0] * distance, "
                           "direction[1] * distance, direction[2] * distance, 0, 0, 0])\n"
                           "  end\n"
                           "  global move_thread_flag_12=0\n"
                           "  thread move_thread_12():\n"
                           "    enter_critical\n"
                           "    move_thread_flag_12 = 1\n"
                           "    local towardsPos=towards([0.0, 1.0, 0.0], 0.08)\n"
                           "    movel(towardsPos, a=1.2, v=0.05)\n"
                           "    move_thread_flag_12 = 2\n"
                           "    exit_critical\n"
                           "  end\n"
                           "  move_thread_flag_12 = 0\n"
                           "  move_thread_han_12 = run move_thread_12()\n"
                           "  while (True):\n"
                           "    if (tool_contact(direction=get_target_tcp_speed()) > 0):\n"
                           "      kill move_thread_han_12\n"
                           "      stopl(3.0)\n"
                           "      break\n"
                           "    end\n"
                           "    sync()\n"
                           "  end\n"
                           "end\n")
    assert [u.line for u in prog.unsupported][:1] == [11]
    assert "towardsPos" in prog.unsupported[0].message


@pytest.mark.parametrize(("line_text", "placeholder"), [
    ("    MoveAbsJ poses{{i}}, v100, fine, tool0;", "{{i}}"),      # a Python template of a RAPID module
    ("    CONST num NUMPOSES := {};", "{}"),
    ("    reg1 := {i};", None),        # braces are RAPID's (an array index): no placeholder named
])
def test_a_rapid_template_names_only_what_rapid_cannot_hold(tmp_path, line_text, placeholder):
    """RAPID indexes arrays with braces (``poses{i}``): there a placeholder is only what RAPID cannot hold."""
    path = tmp_path / "template.mod"
    path.write_text("MODULE M\n  PROC main()\n" + line_text + "\n  ENDPROC\nENDMODULE\n")
    with pytest.raises(InputError, match="RAPID syntax: unexpected") as info:
        read_program(path)
    assert info.value.row == 3
    assert (f": {placeholder} is a code generator's placeholder, not RAPID" in str(info.value)) == (placeholder is not None)
    assert ("placeholder" in str(info.value)) == (placeholder is not None)
