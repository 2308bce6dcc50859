"""URScript forms real scripts write that the reader took for errors or refused (issue 35, the second corpus).

Each test is one class, written from the syntax and the functions of UR's manual ("The URScript Programming
Language"), not from a fetched script: several statements on one line (the controller needs no line end between
statements; URCaps write ``def get_width(): return width end``), the manual's functions of rotations and poses on
known values, ``stopj``/``stopl`` (they decelerate, with no target), a ``sleep`` whose time is known only while
running, and a syntax error inside a UTF-8 note named by the character the author wrote.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import run_program
from program_builders import random_configurations, ur_pose_text

from thermocomp import DeformationTable, fk, load_robot, nominal_model
from thermocomp.compensation.compensate import CompensationOptions
from thermocomp.deformation.timelaw import Static
from thermocomp.errors import InputError
from thermocomp.geometry.rotations import matrix_from_rotvec, rot_x, rot_y, rot_z, rotvec_from_matrix, transform
from thermocomp.programs.urscript import urscript_program_from_text

ZERO = DeformationTable.from_mm_deg(np.zeros((6, 6)))


def _poses(rng, n: int) -> list[tuple[str, np.ndarray]]:
    chain = load_robot("ur5")
    R, p = fk(nominal_model(chain), random_configurations(chain, rng, n))
    return [(ur_pose_text(transform(R[i], p[i])), transform(R[i], p[i])) for i in range(n)]


def _lines(prog) -> list[int]:
    return [m.statement.line for m in prog.motions]


# ----- several statements on one line

def _one_line_program(a: str, b: str) -> str:
    return ("def main():\n"
            "  def lift(): return 0.0 end\n"
            "  k = 1 n = 0\n"
            f"  if (k == 1): movel({a}, a=1.2, v=0.25) elif (k == 2): sync() else: halt end\n"
            f"  movel({b}, a=1.2, v=0.25) sleep(0.5) movel(pose_trans({a}, p[0, 0, lift(), 0, 0, 0]))\n"
            f"  while (n < 2): movel({b}) n = n + 1 end\n"
            "end\n")


def _line_by_line_program(a: str, b: str) -> str:
    return ("def main():\n"
            "  def lift():\n    return 0.0\n  end\n"
            "  k = 1\n  n = 0\n"
            f"  if (k == 1):\n    movel({a}, a=1.2, v=0.25)\n  elif (k == 2):\n    sync()\n  else:\n    halt\n  end\n"
            f"  movel({b}, a=1.2, v=0.25)\n  sleep(0.5)\n  movel(pose_trans({a}, p[0, 0, lift(), 0, 0, 0]))\n"
            f"  while (n < 2):\n    movel({b})\n    n = n + 1\n  end\n"
            "end\n")


def test_statements_on_one_line_read_as_the_same_statements_one_a_line(rng):
    """The manual (section "Interpreter mode"): "multiple statements can be sent on a single line", its example
    ``def myFun(): mystring = "Hello Interpreter" textmsg(mystring) end``. ``if c: s end``, ``def f(): return x
    end`` and ``movel(...) sleep(0.5)`` on one line are the same motions, at the same targets, as the program
    written one statement a line."""
    (a, Ta), (b, Tb) = _poses(rng, 2)
    one = urscript_program_from_text(_one_line_program(a, b), "one.script")
    many = urscript_program_from_text(_line_by_line_program(a, b), "many.script")
    assert one.unsupported == () and many.unsupported == ()
    assert _lines(one) == [4, 5, 5, 6, 6]
    assert len(many.points) == len(one.points) == 5
    expected = np.stack([Ta, Tb, Ta, Tb, Tb])
    np.testing.assert_allclose(np.stack([p.T_world_tcp for p in one.points]), expected, atol=1e-12)
    np.testing.assert_allclose(np.stack([p.T_world_tcp for p in many.points]), expected, atol=1e-12)


def test_statements_on_one_line_are_written_back_with_only_their_targets_changed(tmp_path, rng):
    (a, _), (b, _) = _poses(rng, 2)
    text = _one_line_program(a, b).replace("pose_trans(" + a, "pose_trans(base").replace(
        "def main():\n", f"def main():\n  base = {a}\n")
    path = tmp_path / "one.script"
    path.write_text(text)
    out = tmp_path / "out.script"
    run_program("ur5", ZERO, path, out)
    assert out.read_bytes() == path.read_bytes()
    run_program("ur5", DeformationTable.from_mm_deg(np.full((6, 6), 0.05)), path, out,
                       options=CompensationOptions(time_law=Static()))
    before, after = text.splitlines(), out.read_text().splitlines()
    changed = [i + 1 for i, (x, y) in enumerate(zip(before, after)) if x != y]
    assert len(before) == len(after) and changed == [5, 6, 7]
    assert after[5].split(") sleep(0.5) movel(")[0].startswith("  movel(p[") and after[6].endswith(") n = n + 1 end")
    again = urscript_program_from_text(out.read_text(), "out.script")  # (the output reads as the same program)
    assert again.unsupported == () and _lines(again) == [5, 6, 6, 7, 7]


@pytest.mark.parametrize(("text", "line", "column"), [
    ("def f():\n  if (k == 1) movej([0, 0, 0, 0, 0, 0]) end\nend\n", 2, 15),  # no colon, even on one line
    ("def f():\n  movel(p[.4, .1, .3, 0, 3.14, 0]) end\nend\n", 3, 1),  # one end too many
    ("def f(): return 1\n", 1, 18),  # no end (the end of the file)
])
def test_one_line_forms_the_controller_refuses_are_syntax_errors(text, line, column):
    with pytest.raises(InputError) as error:
        urscript_program_from_text(text, "bad.script")
    assert error.value.row == line and f"(column {column})" in str(error.value)


# ----- the manual's functions of rotations and poses

def test_rpy2rotvec_is_the_rotation_about_the_fixed_axes_x_then_y_then_z():
    """``rpy2rotvec([r, p, y])`` is the rotation vector of ``Rz(y) Ry(p) Rx(r)``, ``rotvec2rpy`` its inverse: the
    rotation the target takes is built here from the three elementary rotations, independently of the reader."""
    rpy = (0.3, -0.4, 2.1)
    text = (f"def f():\n  rv = rpy2rotvec([{rpy[0]}, {rpy[1]}, {rpy[2]}])\n  back = rotvec2rpy(rv)\n"
            "  movel(p[.4, .1, .3, rv[0], rv[1], rv[2]])\n  movel(p[.4, .1, .3, 0, 3.14, 0])\n"
            "  movel(pose_trans(p[.4, .1, .3, 0, 0, 0], p[0, 0, 0, 0, 0, d2r(90)]))\n"
            "  if (norm(back[0] - 0.3) < 1e-9 and norm([3, 4]) == 5):\n    movel(p[.4, .2, .3, 0, 3.14, 0])\n  end\n"
            "end\n")
    prog = urscript_program_from_text(text, "rpy.script")
    assert prog.unsupported == () and _lines(prog) == [4, 5, 6, 8]
    expected = rot_z(rpy[2]) @ rot_y(rpy[1]) @ rot_x(rpy[0])
    np.testing.assert_allclose(prog.points[0].T_world_tcp[:3, :3], expected, atol=1e-12)


def test_interpolate_pose_and_point_dist_of_known_poses_are_evaluated():
    """``interpolate_pose(a, b, alpha)``: the position moves along the line, the orientation turns along the one
    rotation from a to b (half of it at 0.5, and on past b at 1.5); ``point_dist`` is the distance of the
    positions."""
    a, b = (0.4, 0.1, 0.3, 0.0, 3.0, 0.0), (0.5, -0.1, 0.2, 0.0, 2.0, 1.0)
    text = (f"def f():\n  a = p{list(a)}\n  b = p{list(b)}\n  m = interpolate_pose(a, b, 0.5)\n"
            "  movel(m)\n  movel(interpolate_pose(a, b, 0))\n"
            "  movel(p[.4, .1, .3 + point_dist(a, b), 0, 3.14, 0])\n  movel(interpolate_pose(a, b, 1.5))\nend\n")
    prog = urscript_program_from_text(text, "mid.script")
    assert prog.unsupported == () and _lines(prog) == [5, 6, 7, 8]
    T_mid, T_a, T_past = prog.points[0].T_world_tcp, prog.points[1].T_world_tcp, prog.points[3].T_world_tcp
    np.testing.assert_allclose(T_mid[:3, 3], (np.add(a[:3], b[:3])) / 2, atol=1e-12)
    np.testing.assert_allclose(T_past[:3, 3], np.add(a[:3], 1.5 * np.subtract(b[:3], a[:3])), atol=1e-12)
    Ra, Rb = matrix_from_rotvec(np.array(a[3:])), matrix_from_rotvec(np.array(b[3:]))
    half = matrix_from_rotvec(rotvec_from_matrix(Ra.T @ Rb) / 2)
    np.testing.assert_allclose(T_mid[:3, :3], Ra @ half, atol=1e-9)
    np.testing.assert_allclose(T_past[:3, :3], Rb @ half, atol=1e-9)
    np.testing.assert_allclose(T_a[:3, :3], Ra, atol=1e-12)
    np.testing.assert_allclose(prog.points[2].T_world_tcp[2, 3], 0.3 + np.sqrt(0.01 + 0.04 + 0.01), atol=1e-12)


@pytest.mark.parametrize(("expression", "published"), [
    # the examples of UR's script manual (e-Series 5.12, module urmath), as it prints them
    ("rpy2rotvec([3.14, 1.57, 0])", [2.22153, 0.00177, -2.21976]),
    ("rotvec2rpy([3.14, 1.57, 0])", [-2.80856, -0.16202, 0.9]),
    ("[norm(p[-.2, .2, -.2, -1.57, 0, 3.14]), norm(-5.3), norm(-8), 0]", [3.52768, 5.3, 8, 0]),
    ("normalize([0, 1, 1])", [0, 0.707, 0.707]),
])
def test_the_manual_s_rotation_functions_give_its_published_examples(expression, published):
    text = f"def f():\n  v = {expression}\n  movel(p[v[0], v[1], v[2], 0, 3.14, 0])\nend\n"
    prog = urscript_program_from_text(text, "ex.script")
    assert prog.unsupported == ()
    np.testing.assert_allclose(prog.points[0].T_world_tcp[:3, 3], published[:3], atol=6e-4)


def test_pose_sub_and_pose_inv_undo_pose_add_and_pose_trans_and_a_result_not_a_number_is_refused():
    """The manual: ``pose_add(pose_sub(a, b), b)`` is ``a``, ``pose_trans(a, pose_inv(a))`` the identity. A function
    of known values whose result is not a number (``normalize`` of zeros: the controller throws) is refused where a
    motion reads it, naming it."""
    a, b = (0.4, 0.1, 0.3, 0.0, 3.0, 0.2), (0.1, -0.2, 0.05, 0.3, 0.0, 1.0)
    text = (f"def f():\n  a = p{list(a)}\n  b = p{list(b)}\n  movel(pose_add(pose_sub(a, b), b))\n"
            "  movel(pose_trans(pose_trans(a, pose_inv(a)), a))\n  v = normalize([0, 0, 0])\n"
            "  movel(p[.4, .1, v[2], 0, 3.14, 0])\nend\n")
    prog = urscript_program_from_text(text, "sub.script")
    assert _lines(prog) == [4, 5]
    T_a = transform(matrix_from_rotvec(np.array(a[3:])), np.array(a[:3]))
    for point in prog.points:
        np.testing.assert_allclose(point.T_world_tcp, T_a, atol=1e-12)
    assert [(f.line, "normalize of [0.0, 0.0, 0.0] is not a number" in f.message) for f in prog.unsupported] == \
        [(7, True)]


def test_a_rotation_function_of_a_value_known_only_while_running_is_refused_naming_it():
    text = ("def f():\n  rv = rpy2rotvec([0, 0, read_input_float_register(0)])\n"
            "  movel(p[.4, .1, .3, rv[0], rv[1], rv[2]])\nend\n")
    prog = urscript_program_from_text(text, "rt.script")
    assert [(f.line, "rv" in f.message) for f in prog.unsupported] == [(3, True)]


# ----- what moves nothing to a target

def test_stopj_and_stopl_decelerate_and_leave_the_targets_around_them_compensated(rng):
    (a, Ta), (b, Tb) = _poses(rng, 2)
    text = (f"def f():\n  movej({a}, a=1.4, v=1.0, r=0.05)\n  stopj(2.0)\n  movel({b})\n  stopl(1.5)\nend\n")
    prog = urscript_program_from_text(text, "stop.script")
    assert prog.unsupported == () and _lines(prog) == [2, 4]
    np.testing.assert_allclose(np.stack([p.T_world_tcp for p in prog.points]), np.stack([Ta, Tb]), atol=1e-12)


def test_a_sleep_of_a_time_known_only_while_running_is_noted_not_refused(rng):
    (a, _), = _poses(rng, 1)
    text = f"def f():\n  movel({a})\n  sleep(random() * 5)\n  movel({a})\nend\n"
    prog = urscript_program_from_text(text, "wait.script")
    assert prog.unsupported == () and _lines(prog) == [2, 4]
    assert any(n.line == 3 and "not counted in the time estimate" in n.message for n in prog.notes)


# ----- messages

def test_a_syntax_error_in_a_utf8_note_names_the_character_as_written(tmp_path):
    path = tmp_path / "note.script"
    path.write_bytes("def f():\n  movel(p[.4, .1, .3, 0, 3.14, 0])\nend\npose位姿 = 1\n".encode())
    from thermocomp.programs import read_program

    with pytest.raises(InputError) as error:
        read_program(path)
    assert error.value.row == 4 and "unexpected '位' (column 5)" in str(error.value)


def test_a_plain_motion_alone_in_a_branch_that_never_runs_is_named():
    """A branch whose only statement is a motion to a literal (read as a run of motions) and whose condition is
    known to fail: the motion stays as written and a note names its line (a motion is never dropped unnamed)."""
    text = ("global k = 0\ndef main():\n  if (k < 3):\n    movel(p[.4, .1, .3, 0, 3.14, 0])\n  else:\n"
            "    movel(p[.4, .2, .3, 0, 3.14, 0])\n  end\nend\n")
    prog = urscript_program_from_text(text, "branch.script")
    assert _lines(prog) == [4]
    assert any(n.line == 3 and "line 6" in n.message and "never runs" in n.message for n in prog.notes)


def test_a_library_function_run_as_the_program_names_its_parameters_and_a_name_nothing_sets():
    """A file holding one function with parameters (a library, run as the program): a motion reading a parameter is
    refused saying that no call gives it a value; a parameter's default is its value; a name nothing in the file
    sets is named as such (an acceleration: the motion is compensated, timed at the default, the note names it)."""
    text = ("def move(x, z=0.3):\n  movel(p[x, .1, z, 0, 3.14, 0])\n  movel(p[.4, .1, z, 0, 3.14, 0])\n"
            "  movel(p[.4, .1, z, 0, 3.14, 0], a=accel)\nend\n")
    prog = urscript_program_from_text(text, "lib.script")
    assert _lines(prog) == [3, 4]
    assert [(f.line, f.column) for f in prog.unsupported] == [(2, 11)]
    assert "it is a parameter of move, which runs as the program" in prog.unsupported[0].message
    assert [(n.line, n.column) for n in prog.notes if "accel has no value here: nothing before this point in the file "
            "gives it one" in n.message and "movel's a is taken as its default a=1.2" in n.message] == [(4, 37)]


# ----- arrays and matrices (the manual's "Matrix and Array Expressions")

@pytest.mark.parametrize(("expression", "expected"), [
    ("[1, 2, 3] * [10, 20, 30]", [10, 40, 90]),  # index by index
    ("[10, 20, 30] / [1, 2, 3]", [10, 10, 10]),
    ("[10, 20, 30] % [3, 7, 4]", [1, 6, 2]),
    ("[[1, 2], [3, 4], [5, 6]] * [10, 20]", [50, 110, 170]),  # matrix times array: the matrix product
    ("([[1, 2], [3, 4], [5, 6]] * [[10, 20, 30], [40, 50, 60]])[1]", [190, 260, 330]),  # matrix times matrix
    ("(5 - [[10, 20], [30, 40]])[1] + [0, 1]", [-25, -34]),  # a number with every entry
    ("10 / [10, 20, 40] + [1, 2, 3] * 5", [6, 10.5, 15.25]),
])
def test_array_and_matrix_arithmetic_of_known_values_is_evaluated(expression, expected):
    text = f"def f():\n  v = {expression}\n  movel(p[v[0] / 1000, v[1] / 1000, v[-1] / 1000 + 0.3, 0, 3.14, 0])\nend\n"
    prog = urscript_program_from_text(text, "arrays.script")
    assert prog.unsupported == ()
    np.testing.assert_allclose(prog.points[0].T_world_tcp[:3, 3],
                               [expected[0] / 1000, expected[1] / 1000, expected[-1] / 1000 + 0.3], atol=1e-12)


def test_a_joint_target_from_array_arithmetic_is_followed_and_a_size_mismatch_named():
    text = ("def f():\n  home = [0, -1.57, 1.57, -1.57, -1.57, 0]\n  step = [0.1, 0, 0, 0, 0, 0]\n"
            "  movej(home + 2 * step)\n  movej(home + [1, 2])\nend\n")
    prog = urscript_program_from_text(text, "joints.script")
    assert _lines(prog) == [4]
    np.testing.assert_allclose(prog.points[0].q, [0.2, -1.57, 1.57, -1.57, -1.57, 0], atol=1e-12)
    assert [(f.line, "index by index needs one size" in f.message) for f in prog.unsupported] == [(5, True)]


def test_the_motions_of_a_while_that_never_runs_are_named():
    text = ("def main():\n  k = 2\n  while (not (k == 2)):\n    movel(p[.4, .1, .3, 0, 3.14, 0])\n    k = k + 1\n  end\n"
            "  movel(p[.4, .2, .3, 0, 3.14, 0])\nend\n")
    prog = urscript_program_from_text(text, "never.script")
    assert _lines(prog) == [7]
    assert any(n.line == 3 and "line 4" in n.message and "never runs" in n.message for n in prog.notes)


# ----- an element assigned (the manual: "array[2] = 10", "matrix[2,1] = 20"; PolyScope: "Point_Pick[2]=0.415+z")

def test_an_element_assigned_a_known_value_changes_the_target_that_reads_it(tmp_path):
    text = ("global pick = p[.4, .1, .3, 0, 3.14, 0]\nglobal grid = [[0, 0], [0, 0]]\ndef main():\n"
            "  z = 0.05\n  pick[2] = 0.2 + z\n  grid[1, 0] = 0.1\n  grid[0][1] = 0.02\n  movel(pick, a=1.2, v=0.25)\n"
            "  movel(p[.4 + grid[1, 0], .1 + grid[0, 1], .3, 0, 3.14, 0])\n  pick[2] = read_input_float_register(0)\n"
            "  movel(pick)\nend\n")
    prog = urscript_program_from_text(text, "elements.script")
    assert _lines(prog) == [8, 9]
    np.testing.assert_allclose(prog.points[0].T_world_tcp[:3, 3], [0.4, 0.1, 0.25], atol=1e-12)
    np.testing.assert_allclose(prog.points[1].T_world_tcp[:3, 3], [0.5, 0.12, 0.3], atol=1e-12)
    assert [(f.line, "pick" in f.message) for f in prog.unsupported] == [(11, True)]
    path = tmp_path / "elements.script"
    path.write_text(text.replace("  pick[2] = read_input_float_register(0)\n  movel(pick)\n", ""))
    out = tmp_path / "out.script"
    run_program("ur5", ZERO, path, out)
    assert out.read_bytes() == path.read_bytes()


def test_a_statement_continues_on_the_next_line_after_an_operator_or_an_equal_sign():
    """The controller reads statements, not lines: ``x =`` with its list on the next lines, or a sum broken after
    ``+``, is one statement, as inside brackets."""
    text = ("def f():\n  local table =\n  [\n    0.1, 0.2\n  ]\n  z = 0.2 +\n    0.1 *\n    1\n"
            "  ok = z > 0.2 and\n    not False\n  if ok: movel(p[.4, table[1] - 0.1, z, 0, 3.14, 0]) end\nend\n")
    prog = urscript_program_from_text(text, "continued.script")
    assert prog.unsupported == () and _lines(prog) == [11]
    np.testing.assert_allclose(prog.points[0].T_world_tcp[:3, 3], [0.4, 0.1, 0.3], atol=1e-12)
