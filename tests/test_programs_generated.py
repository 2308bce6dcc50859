"""Programs as offline-programming tools write them: their statement forms read by the bulk lane, fast.

Generators (RoboDK posts, RobotStudio paths, Grasshopper plugins) write thousands of motion statements of one
shape. Each form valid by the languages' manuals must read as the general rules read it and, where it is a
plain motion, in the bulk lane (one ``MOVES`` token for the run), so a 10,000-line program reads in seconds.
The programs here are written from the manuals' syntax, not taken from any collection.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from program_builders import assert_same_steps, general_rules_form
from test_programs_rapid_runs import _read as read_rapid_both
from test_programs_rapid_runs import assert_same_program as assert_same_rapid
from test_programs_urscript_runs import _read as read_urscript_both
from test_programs_urscript_runs import assert_same_program as assert_same_urscript

from thermocomp.programs.rapid import parse_rapid_text, rapid_program_from_text
from thermocomp.programs.urscript import parse_urscript_text, urscript_program_from_text

_HEAD = ("MODULE m\n"
         "  PERS tooldata tPen:=[TRUE,[[0,0,100],[1,0,0,0]],[1,[0,0,1],[1,0,0,0],0,0,0]];\n"
         "  PERS wobjdata wPaper:=[FALSE,TRUE,\"\",[[400,0,200],[1,0,0,0]],[[0,0,0],[1,0,0,0]]];\n"
         "  PROC main()\n")
_TAIL = "  ENDPROC\nENDMODULE\n"


def _moves(tool_wobj: str, count: int) -> str:
    """``count`` MoveL statements of inline robtargets on a circle, the tool and work object written as
    ``tool_wobj``."""
    a = np.arange(count) / 50
    return "".join(f"    MoveL [[{100 * np.cos(t):.3f},{100 * np.sin(t):.3f},0],[0,1,0,0],[0,0,0,0],"
                   f"[9E9,9E9,9E9,9E9,9E9,9E9]],v100,z1,{tool_wobj};\n" for t in a)


def test_an_optional_argument_after_a_comma_reads_in_the_bulk_lane():
    """RAPID kernel ("Procedure call", argument lists): an optional argument follows a required one either
    directly (``tPen\\WObj:=wPaper``) or after a comma (``tPen,\\WObj:=wPaper``, as RoboDK's ABB post writes
    every motion). Both forms are one ``MOVES`` run and give the general rules' program, point for point."""
    for tool_wobj in ("tPen,\\WObj:=wPaper", "tPen ,  \\WObj:=wPaper", "tPen\\WObj:=wPaper"):
        text = _HEAD + _moves(tool_wobj, 40) + _TAIL
        assert sum(1 for _ in parse_rapid_text(text, "m.mod").find_data("moves")) == 1, tool_wobj
        fast = rapid_program_from_text(text, "m.mod")
        plain = rapid_program_from_text(general_rules_form(text), "m.mod")
        assert_same_steps(fast, plain)
        assert len(fast.motions) == 40
        # the tool and work object are read [m]: the frame is the work object's, the TCP the tool's
        first = fast.motions[0].points[0]
        np.testing.assert_allclose(first.T_world_frame[:3, 3], [0.4, 0, 0.2])
        np.testing.assert_allclose(first.T_flange_tcp[:3, 3], [0, 0, 0.1])
        np.testing.assert_allclose(first.T_world_tcp[:3, 3], [0.5, 0, 0.2], atol=1e-12)


# ----- URScript as RoboDK's UR post writes it: named speed and acceleration, t= and r=, a frame variable

_UR_HEAD = ("def Prog():\n  global speed_ms = 0.250\n  global speed_rads = 0.750\n  global accel_mss = 1.200\n"
            "  global accel_radss = 1.200\n  global blend_radius_m = 0.001\n  global zero = 0\n"
            "  global ref_frame = p[0, 0, 0, 0, 0, 0]\n  ref_frame = p[0.4, -0.1, 0.1, 0.1, 0.2, 0.3]\n")


def _ur_runs(text: str) -> int:
    return sum(1 for _ in parse_urscript_text(text, "s.script").find_data("moves"))


def _robodk(count: int) -> str:
    a = np.arange(count) / 50
    lines = [f"  movel(pose_trans(ref_frame,p[{0.1 * np.cos(t):.6f}, {0.1 * np.sin(t):.6f}, 0.000000, 0.000000, "
             f"3.141593, 0.000000]),accel_mss,speed_ms,{'t=0,r=0.001' if k % 2 else '0,blend_radius_m'})"
             for k, t in enumerate(a)]
    lines[3] = "  movej([0.000000, -1.570796, 1.570796, -1.570796, -1.570796, 0.000000],accel_radss,speed_rads,0,0)"
    return _UR_HEAD + "\n".join(lines) + "\nend\n"


def test_a_robodk_ur_program_reads_in_the_bulk_lane():
    """RoboDK's UR post writes every motion as ``movel(pose_trans(ref_frame,p[...]),accel_mss,speed_ms,...)``: one
    ``MOVES`` run, read as the general rules read it (URScript manual: ``pose_trans(p_from, p_from_to)`` is the
    pose ``p_from_to`` in the frame ``p_from``), the names' values looked up where the run stands."""
    text = _robodk(40)
    assert _ur_runs(text) == 1 and _ur_runs(general_rules_form(text, "urscript")) == 0
    assert_same_urscript(text)
    prog = urscript_program_from_text(text)
    assert len(prog.motions) == 40 and not prog.unsupported
    first = prog.motions[0]
    assert (first.tcp_speed, first.acceleration, first.duration_s) == (0.25, 1.2, None)
    assert (prog.motions[3].joint_speed, prog.motions[3].acceleration) == (0.75, 1.2)
    # the frame p[.4, -.1, .1, ...] rotated about (.1, .2, .3): the first target (.1, 0, 0) in it
    from thermocomp.geometry.rotations import matrix_from_rotvec
    want = np.array([0.4, -0.1, 0.1]) + matrix_from_rotvec(np.array([0.1, 0.2, 0.3])) @ [0.1, 0, 0]
    np.testing.assert_allclose(first.points[0].T_world_tcp[:3, 3], want, atol=1e-12)


def test_a_variable_a_run_reads_is_read_where_the_run_stands():
    """A name in a run is the variable's value at that point of the walk: a function called twice with the speed
    changed between, a loop counter as a speed, a frame the loop moves (each pass its own target; in a loop of unknown
    count, refused naming the frame)."""
    call = ("def go():\n  movel(p[.4, -.1, .5, 0, 3.14, 0], accel_mss, speed_ms)\nend\n"
            "global accel_mss = 1.2\nglobal speed_ms = 0.1\ngo()\nspeed_ms = 0.2\ngo()\n")
    assert_same_urscript(call)
    assert [m.tcp_speed for m in urscript_program_from_text(call).motions] == [0.1, 0.2]
    counted = ("def main():\n  i = 1\n  while i < 4:\n    movel(p[.4, -.1, .5, 0, 3.14, 0], a=1.2, v=i)\n"
               "    i = i + 1\n  end\nend\n")
    assert_same_urscript(counted)
    assert [m.tcp_speed for m in urscript_program_from_text(counted).motions] == [1.0, 2.0, 3.0]
    moved = _UR_HEAD + ("  i = 0\n  while i < 3:\n    ref_frame = pose_trans(ref_frame, p[0.01, 0, 0, 0, 0, 0])\n"
                        "    movel(pose_trans(ref_frame, p[0.1, 0.2, 0.3, 0, 3.14, 0]), accel_mss, speed_ms)\n"
                        "    i = i + 1\n  end\nend\n")
    assert_same_urscript(moved)
    targets = np.array([m.points[0].T_world_tcp[:3, 3] for m in urscript_program_from_text(moved).motions])
    np.testing.assert_allclose(np.linalg.norm(np.diff(targets, axis=0), axis=1), 0.01, atol=1e-12)  # (1 cm a pass)
    unknown = moved.replace("  i = 0\n  while i < 3:", "  while get_digital_in(1):")
    assert_same_urscript(unknown)
    assert any("ref_frame" in f.message for f in urscript_program_from_text(unknown).unsupported)


def test_a_frame_also_a_target_keeps_its_declaration():
    """A pose variable that is a frame in a run and a motion's target elsewhere: its literal is read by more than
    motions, so the target is written at the motion, not into the declaration, both ways."""
    text = _UR_HEAD + "  movel(ref_frame, a=1.2, v=0.25)\n" + "\n".join(_robodk(5).split("\n")[9:])
    assert_same_urscript(text)
    prog = urscript_program_from_text(text)
    assert prog.motions[0].points[0].text == prog.motions[0].points[0].argument


_UR_NUMBER = st.sampled_from(["1.2", "0.25", ".5", "0", "-1", "+2e0", "1e999", "3"])
_UR_NAME = st.sampled_from(["accel_mss", "speed_ms", "blend_radius_m", "zero", "pi", "True", "ref_frame", "nowhere",
                            "end", "speed_ms2"])


@st.composite
def _robodk_statement(draw) -> str:
    """A motion as RoboDK's post or a hand writes it, and its near misses: a frame that is no pose, a name with no
    value or a keyword, a zero acceleration, an unknown keyword, a joint list as pose_trans's pose."""
    name = draw(st.sampled_from(["movel", "movej", "movep"]))
    numbers = [draw(st.sampled_from(["0.1", "-.2", "0", "3.141593", "1e7"])) for _ in range(draw(st.sampled_from([6, 6, 5])))]
    literal = numbers[0] + ", " + ", ".join(numbers[1:])
    point = draw(st.sampled_from([
        f"p[{literal}]", f"[{literal}]", f"pose_trans(ref_frame,p[{literal}])", f"pose_trans( ref_frame , p[{literal}] )",
        f"pose_trans({draw(_UR_NAME)}, p[{literal}])", f"pose_trans(ref_frame, [{literal}])"]))
    args, keys = [], set()
    for _ in range(draw(st.integers(0, 5))):
        key = draw(st.sampled_from(["", "", "a", "v", "t", "r", "e"]))
        if key in keys:  # (a keyword given twice: the compile check's, urscript._check_script, not the lane's)
            continue
        keys.add(key or "_")
        keys.discard("_")
        value = draw(st.one_of(_UR_NUMBER, _UR_NAME))
        args.append(draw(st.sampled_from([",", ", "])) + (f"{key}={value}" if key else value))
    return f"{name}({point}{''.join(args)})"


@settings(max_examples=80, deadline=None)
@given(st.lists(_robodk_statement(), min_size=1, max_size=5))
def test_generated_robodk_statements_read_as_the_grammar_s_general_rules_read_them(statements):
    """The bulk lane (the grammar's MOVES token, its names looked up by the one resolver) equals the general rules'
    reading of the same statements one by one: steps, spans, poses to the bit, findings and errors."""
    good = "  movel(pose_trans(ref_frame, p[.1, -.1, .2, 0, 3.14, 0]), accel_mss, speed_ms, t=0, r=0.001)\n"
    text = _UR_HEAD + good + "".join(f"  {s}\n" for s in statements) + good + "end\n"
    assert_same_urscript(text)
    if not isinstance(read_urscript_both(text, False), str):  # (the general rules' form holds no run: the comparison tells)
        assert _ur_runs(general_rules_form(text, "urscript")) == 0


# ----- RAPID with inline speeddata and zonedata, \V and \T (ABB, "RAPID Instructions": MoveL [\Conc] ToPoint,
# Speed [\V] | [\T], Zone [\Z] [\Inpos], Tool [\WObj])

_RAPID_HEAD = _HEAD.replace("  PROC main()", "  CONST speeddata vFast:=[1000,500,5000,1000];\n  VAR num nV:=80;\n  PROC main()")
_R_TARGET = "[[500,0,600],[1,0,0,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]]"


def test_inline_speed_and_zone_and_speed_options_read_in_the_bulk_lane():
    """A speeddata or zonedata written inline, a ``\\V`` or ``\\T`` after the speed: one ``MOVES`` run, the speed
    and time the general rules read (``\\V`` replaces the TCP speed [mm/s], ``\\T`` states the time [s])."""
    forms = ["MoveL {t}, [100,500,5000,1000], z10, tPen;", "MoveL {t}, v100\\V:=80, z1, tPen;",
             "MoveL {t}, v100, [FALSE,0.3,0.3,0.3,0.03,0.3,0.03], tPen;", "MoveJ {t}, [200,500,5000,1000]\\T:=2, fine, tPen;",
             "MoveL {t},v100 , \\V := 120,z1,tPen,\\WObj:=wPaper;"]
    text = _RAPID_HEAD + "".join(f"    {f.format(t=_R_TARGET)}\n" for f in forms) + _TAIL
    assert sum(1 for _ in parse_rapid_text(text, "m.mod").find_data("moves")) == 1
    assert not any(True for _ in parse_rapid_text(general_rules_form(text), "m.mod").find_data("moves"))
    assert_same_rapid(text)
    motions = rapid_program_from_text(text).motions
    assert [m.tcp_speed for m in motions] == [0.1, 0.08, 0.1, 0.2, 0.12]
    assert [m.duration_s for m in motions] == [None, None, None, 2.0, None]


def _either(good: list[str], near: list[str]):
    """A form the lane reads or, as often, a near miss the general rules must read."""
    return st.one_of(st.sampled_from(good), st.sampled_from(near))


_R_SPEED = _either(["v100", "vFast", "[100,500,5000,1000]", "[ 100 , 500,5000,1000 ]"],
                   ["[0,500,5000,1000]", "[100,500]", "vNowhere", "[1e39,500,5000,1000]", "[100,500,5000,1000,9]", "nV"])
_R_OPTION = _either(["", "\\V:=80", "\\T:=2", " ,\\V:=1.5e2", "\\T := .5"],
                    ["\\V:=0", "\\T:=0", "\\V:=-5", "\\V:=nV", "\\Z:=5", "\\T:=1e39", "\\V:=80\\T:=2"])
_R_ZONE = _either(["z10", "fine", "[FALSE,0.3,0.3,0.3,0.03,0.3,0.03]", "[TRUE,0,0,0,0,0,0]"], ["[0.3,0.3]", "zNowhere"])
_R_TOOL = _either(["tPen", "tPen\\WObj:=wPaper", "tPen,\\WObj:=wPaper"],
                  ["wPaper", "tPen\\WObj:=tPen", "NOT", "tPen\\WObj:=not", "MOD", "ENDPROC", "Nothing"])


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["MoveL", "MoveJ", "movel"]), _R_SPEED, _R_OPTION, _R_ZONE, _R_TOOL),
                min_size=1, max_size=5))
def test_generated_rapid_statements_read_as_the_grammar_s_general_rules_read_them(statements):
    """The bulk lane (speed, \\V, \\T resolved by the one resolver, motion_speed, once per distinct text) equals the
    general rules' reading statement by statement, near misses included (a speed that does not move, a \\V of 0 or
    of a variable, an unknown option, a zonedata of the wrong shape): steps, spans, findings and errors."""
    good = f"    MoveL {_R_TARGET}, v100, z1, tPen;\n"
    body = "".join(f"    {i} {_R_TARGET}, {v}{o}, {z}, {t};\n" for i, v, o, z, t in statements)
    text = _RAPID_HEAD + good + body + good + _TAIL
    assert_same_rapid(text)
    if not isinstance(read_rapid_both(text, False), str):  # (the general rules' form holds no run: the comparison tells)
        assert not any(True for _ in parse_rapid_text(general_rules_form(text), "m.mod").find_data("moves"))


def test_not_as_a_motion_argument_is_a_syntax_error_with_its_place():
    """``NOT`` starts an expression (RAPID kernel, "Expressions"): ``MoveL p, v100, z1, NOT;`` is text the
    controller rejects, refused with its line and column (the run's split once let lark's own error through)."""
    text = _RAPID_HEAD + f"    MoveL {_R_TARGET}, v100, z1, not;\n" + _TAIL
    got = read_rapid_both(text, True)
    assert got == read_rapid_both(text, False)
    assert got == "InputError: m.mod, line 7: RAPID syntax: unexpected ';' (column 85)"


def test_a_frame_bound_at_the_call_site_is_read_by_the_general_rules():
    """``pose_trans(t, p[...])`` of a parameter bound to a pose written at the call site: the target is written
    there (the general rules' call-site reading), the same with the run's lane as without."""
    text = ("def prog():\n  def above(t):\n    movel(pose_trans(t, p[0, 0, -0.02, 0, 0, 0]), accel, speed)\n  end\n"
            "  accel = 1.2\n  speed = 0.25\n  above(p[0.4, -0.1, 0.3, 0, 3.14, 0])\n  ref = p[0.4, -0.1, 0.3, 0, 3.14, 0]\n"
            "  above(ref)\nend\n")
    assert_same_urscript(text)
    points = urscript_program_from_text(text).points
    assert [text[p.text.start:p.text.start + 2] for p in points] == ["p[", "po"]  # (the call site's; the run's own)
