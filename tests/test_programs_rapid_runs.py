"""Runs of plain motions (one ``MOVES`` token each) read exactly as the grammar's general rules read them.

rapid.lark reads a run of plain ``MoveL``/``MoveJ``/``MoveC``/``MoveAbsJ``
statements as one token, so a 100,000-line CAM program is a handful of
tokens; with a form feed after each instruction (``general_rules_form``)
every statement goes through the general rules. Both must give the same
program: the same steps, spans, poses (to the bit), findings and errors, on
RobotStudio-style modules, on the corners of the run's shape, and on random
mixes of statements (hypothesis).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from program_builders import assert_same_steps, general_rules_form, rapid_case, robtarget_text

from thermocomp import fk, load_robot, nominal_model
from thermocomp.errors import InputError
from thermocomp.geometry.rotations import transform
from thermocomp.kinematics.confdata import confdata_from_q
from thermocomp.programs.model import MotionRun
from thermocomp.programs.rapid import parse_rapid_text, rapid_program_from_text

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "rapid_program.mod"


def _read(text: str, runs: bool):
    try:
        return rapid_program_from_text(text if runs else general_rules_form(text), "m.mod")
    except InputError as exc:
        return f"InputError: {exc}"


def assert_same_program(text: str) -> None:
    fast, plain = _read(text, True), _read(text, False)
    if isinstance(plain, str) or isinstance(fast, str):
        assert fast == plain
        return
    assert_same_steps(fast, plain)
    assert_same_columns(fast, plain)


def assert_same_columns(a, b) -> None:
    """The arrays the compensation reads (:class:`RobotProgram`) are the same, a run's and the objects'."""
    np.testing.assert_array_equal(a.motion_steps, b.motion_steps)
    np.testing.assert_array_equal(a.wait_seconds, b.wait_seconds)
    np.testing.assert_array_equal(a.frame_table(0)[a.run.frame], b.frame_table(0)[b.run.frame])  # (each point's)
    np.testing.assert_array_equal(a.frame_table(1)[a.run.frame], b.frame_table(1)[b.run.frame])
    for f in dataclasses.fields(MotionRun):
        if f.name in ("frames", "frame"):
            continue  # (how the frames are shared; the frames of each point are compared above)
        x, y = getattr(a.run, f.name), getattr(b.run, f.name)
        if f.name == "q":  # (as many columns as the longest joint target, or more: NaN past each one's own)
            width = int(a.run.q_len.max(initial=0))
            x, y = x[:, :width], y[:, :width]
        if isinstance(x, tuple):
            assert x == y, f.name
        else:
            assert x.shape == y.shape and x.dtype == y.dtype, f.name
            np.testing.assert_array_equal(x, y, err_msg=f.name)


def _no_fallback(text: str) -> None:
    """``text`` has runs, and its general rules form none (else the comparison above proves nothing)."""
    assert any(True for _ in parse_rapid_text(text, "m.mod").find_data("moves"))
    assert not any(True for _ in parse_rapid_text(general_rules_form(text), "m.mod").find_data("moves"))


def _targets(robot: str, rng, count: int):
    chain = load_robot(robot)
    model = nominal_model(chain)
    q = chain.home + rng.uniform(-0.5, 0.5, (count, chain.n_joints))
    R, p = fk(model, q)
    cf = confdata_from_q(model, q)
    return [robtarget_text(transform(R[i], p[i]), cf[i]) for i in range(count)], np.degrees(q)


HEAD = ("MODULE m\n"
        "  PERS tooldata tGun:=[TRUE,[[31.8,0,229.8],[0.976296,0,0.21644,0]],[1.5,[-10,0,100],[1,0,0,0],0,0,0]];\n"
        "  TASK PERS wobjdata wTable:=[FALSE,TRUE,\"\",[[100,-50,20],[1,0,0,0]],[[0,0,0],[0.9961947,0,0,0.0871557]]];\n"
        "  CONST speeddata vSlow:=[12,30,5000,1000];\n")


def test_robotstudio_modules_and_the_example_read_the_same(rng):
    for robot in ("irb140", "gofa", "irb140"):
        text = rapid_case(robot, rng).text
        assert_same_program(text)
        _no_fallback(text)
    example = EXAMPLE.read_bytes().decode("latin-1")
    assert_same_program(example)
    _no_fallback(example)


def test_a_cam_program_is_a_few_tokens_and_reads_the_same(rng):
    texts, q_deg = _targets("irb140", rng, 40)
    joints = "[[" + ",".join(f"{v:.6f}" for v in q_deg[0]) + "],[9E+09,9E+09,9E+09,9E+09,9E+09,9E+09]]"
    lines = [f"    MoveL {t}, v100, z1, tGun\\WObj:=wTable;" for t in texts[:30]]
    lines[3] = f"    movej {texts[3]},vSlow,fine,tGun;   ! a trailing comment"
    lines[5] = "    ! MoveL [[1,2,3],[1,0,0,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]], v100, z1, tGun;"  # commented out
    lines[7] = f"    MoveL {texts[7]} ,\r\n      v100 , z1 ,tGun \\ WObj := wTable ;"  # continued, spaced, CRLF
    lines[9] = f"    MoveC {texts[9]}, {texts[10]}, v100, z1, tGun;"
    lines[11] = f"    MoveAbsJ {joints}, v100, z1, tool0;"
    lines[13] = "    WaitTime 0.25;"
    lines[15] = f"    MoveL {texts[15]}, v100\\V:=80, z1, tGun;"  # an option of the speed
    lines[17] = f"    MoveL {texts[17]}, v100, z1\\Z:=5, tGun;"  # an option the run does not take
    text = HEAD + "  PROC main()\n" + "\n".join(lines) + "\n  ENDPROC\nENDMODULE\n"
    tree = parse_rapid_text(text, "m.mod")
    runs = list(tree.find_data("moves"))
    assert 2 <= len(runs) <= 6  # the other statements split the runs
    assert_same_program(text)
    assert len(rapid_program_from_text(text).motions) == 28
    _no_fallback(text)


def test_motions_taken_from_the_columns_are_those_motions(rng):
    """MotionRun.take (what a clash or a refused per-pass text removes) keeps each taken motion whole: the motion
    and every point of it (a MoveC's two), the same as the views of the whole program's columns."""
    texts, _ = _targets("irb140", rng, 8)
    lines = [f"    MoveL {t}, v100, z1, tGun\\WObj:=wTable;" for t in texts[:6]]
    lines[2] = f"    MoveC {texts[6]}, {texts[7]}, vSlow, fine, tGun;"
    lines[4] = f"    MoveL {texts[4]}, v100, z1\\Z:=5, tGun;"  # (the general rules': a run of one row)
    prog = rapid_program_from_text(HEAD + "  PROC main()\n" + "\n".join(lines) + "\n  ENDPROC\nENDMODULE\n")
    every = prog.motions
    rows = [1, 2, 4, 5]
    taken = prog.run.take(rows).motions()
    assert [m.instruction for m in taken] == ["MoveL", "MoveC", "MoveL", "MoveL"]
    for got, want in zip(taken, [every[k] for k in rows]):
        assert (got.statement, got.name, got.tcp_speed, got.orientation_speed) == \
            (want.statement, want.name, want.tcp_speed, want.orientation_speed)
        assert [(p.text, p.confdata) for p in got.points] == [(p.text, p.confdata) for p in want.points]
        for p, q in zip(got.points, want.points):
            np.testing.assert_array_equal(p.T_world_tcp, q.T_world_tcp)
            np.testing.assert_array_equal(p.T_world_frame, q.T_world_frame)
            np.testing.assert_array_equal(p.T_flange_tcp, q.T_flange_tcp)
    assert len(taken[1].points) == 2 and len(every) == 6
    run, first = prog.run, [*prog.run.first_points().tolist(), len(prog.run.text)]
    for a in range(len(run)):  # MotionRun.rows (a run's views of its file's columns): each stretch is take's
        for b in range(a, len(run) + 1):
            viewed, copied = run.rows(slice(a, b), slice(first[a], first[b])), run.take(np.arange(a, b))
            for f in dataclasses.fields(MotionRun):
                x, y = getattr(viewed, f.name), getattr(copied, f.name)
                assert x == y if isinstance(x, tuple) else np.array_equal(x, y, equal_nan=x.dtype.kind == "f"), f.name
            assert (viewed.argument is viewed.text) == (copied.argument is copied.text)


def test_a_module_on_one_line_and_one_with_a_bom_read_the_same(rng):
    texts, _ = _targets("irb140", rng, 3)
    one_line = ("MODULE m PROC main() " + " ".join(f"MoveL {t}, v100, z1, tool0;" for t in texts)
                + " ENDPROC ENDMODULE")
    assert_same_program(one_line)
    _no_fallback(one_line)
    assert rapid_program_from_text(one_line).motions[2].statement.line == 1
    with_bom = "\xef\xbb\xbf" + HEAD + "  PROC main()\n" + "".join(f"    MoveJ {t}, v100, z1, tGun;\n" for t in texts) \
        + "  ENDPROC\nENDMODULE\n"
    assert_same_program(with_bom)
    _no_fallback(with_bom)


def test_named_points_uses_elsewhere_and_unvisited_routines_read_the_same(rng):
    texts, _ = _targets("gofa", rng, 4)
    decl = "".join(f"  CONST robtarget p{i}:={t};\n" for i, t in enumerate(texts))
    body = ("  PROC main()\n    MoveJ p0, v100, z1, tGun;\n    MoveL p1, v100, z1, tGun\\WObj:=wTable;\n"
            "    MoveL p1, vSlow, fine, tool0;\n    MoveL Offs(p2, 0, 0, 10), v100, z1, tGun;\n    MoveL p2, v100, z1, tGun;\n"
            "  ENDPROC\n  PROC spare()\n    MoveL p3, v100, z1, tGun;\n    MoveL p0, v100, z1, tGun;\n  ENDPROC\n")
    text = HEAD + decl + body + "ENDMODULE\n"
    assert_same_program(text)
    _no_fallback(text)
    prog = rapid_program_from_text(text)
    p0_first = prog.motions[0].points[0]
    # p0 is read by spare() too, which no cycle runs (neither run nor called): it does not keep p0's declaration
    # as written, so the declaration is rewritten (spare's own motions stay as written, named in the note)
    assert p0_first.text != p0_first.argument
    assert len(prog.notes) == 1 and "2 motion(s)" in prog.notes[0].message


@pytest.mark.parametrize("statement", [
    "MoveL [[500,0,600],[0.5,0.5,0.5,0.4],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]], v100, z1, tGun;",  # not unit
    "MoveL [[500,0,600],[1,0,0,0],[0,0,0,9],[9E9,9E9,9E9,9E9,9E9,9E9]], v100, z1, tGun;",  # cfx out of range
    "MoveL [[500,0,600],[1,0,0,0],[0,0.5,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]], v100, z1, tGun;",  # cf not integer
    "MoveL [[5e39,0,600],[1,0,0,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]], v100, z1, tGun;",  # beyond num
    "MoveL [[500,0,600],[1,0,0,0],[0,0,0,0],[9E9,9E39,9E9,9E9,9E9,9E9]], v100, z1, tGun;",  # external axis too
    "MoveAbsJ [[0,0,0,0,30,0],[9E9,9E9,9E9,9E9,9E9,-1e999]], v100, z1, tGun;",  # a jointtarget's
    "MoveL [[500,0],[1,0,0,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]], v100, z1, tGun;",  # wrong shape
    "MoveL [[500 0,0,600],[1,0,0,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]], v100, z1, tGun;",  # two numbers, no comma
    "MoveL [[5e,0,600],[1,0,0,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]], v100, z1, tGun;",  # not a number
    "MoveL [[- 5,0,600],[1,0,0,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]], v100, z1, tGun;",  # a signed expression
    "MoveL pNowhere, v100, z1, tGun;",  # not declared
    "MoveL [[500,0,600],[1,0,0,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]], vNowhere, z1, tGun;",
    "MoveL [[500,0,600],[1,0,0,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]], v100, z1, tGun\\WObj:=tGun;",  # wrong type
    "MoveC [[500,0,600],[1,0,0,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]], v100, z1, tGun;",  # a point missing
    "MoveL [[500,0,600],[1,0,0,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]], [[500,0,600],[1,0,0,0],[0,0,0,0],"
    "[9E9,9E9,9E9,9E9,9E9,9E9]], v100, z1, tGun;",  # a point too many, after a MoveL of the same speed and tool
    "MoveAbsJ [[500,0,600],[1,0,0,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]], v100, z1, tGun;",  # not joints
    "MoveL [[500,0,600],[1,0,0,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]], v100, z1, tGun",  # no semicolon
])
def test_what_a_run_cannot_take_gives_the_general_rules_finding_or_error(statement):
    good = "    MoveL [[500,0,600],[1,0,0,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]], v100, z1, tGun;\n"
    text = HEAD + "  PROC main()\n" + good + "    " + statement + "\n" + good + "  ENDPROC\nENDMODULE\n"
    assert_same_program(text)
    inside_if = HEAD + "  VAR num n := 1;\n  PROC main()\n    IF n > 0 THEN\n" + good + good + "    ENDIF\n" + good + \
        "  ENDPROC\nENDMODULE\n"
    assert_same_program(inside_if)
    _no_fallback(inside_if)  # motions inside an unsupported construct are noted by the fast path itself


_T = "[[500,0,600],[1,0,0,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]]"


CORNERS = [  # the first four: runs the fast path reads itself
    ["MoveL {t}, V100, z1, tGun;", "MoveL {t}, v100, z1, TGUN;", "MoveL {t}, v100, z1, tGun;"],  # cases differ
    ["MoveL p0, v100, z1, tGun;", "MoveL P0, v100, z1, tGun;", "MoveL p0, v100, z1, tGun\\WObj:=wTable;"],
    ["MoveL {t}, v100, z1, tGun; ! ; MoveL p0, v9, z9, t;", "\f  MoveL {t} , v100 ,z1,tGun ;"],  # gaps
    ["MoveL {t}, v100, z1, tGun \\ wobj := wTable;", "MoveL {t}, v100, z1, tGun\\WOBJ:=wTable;"],
    ["MoveL [[[500]],0,600],[1,0,0,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]], v100, z1, tGun;"],  # 4 deep
    ["MoveL [[500,0,600],[1,0,0,0],[0,0,0,0]],[9E9,9E9,9E9,9E9,9E9,9E9]], v100, z1, tGun;"],  # unbalanced
    ["MoveLX {t}, v100, z1, tGun;", "MoveL {t}, v100, z1, tGun;"],  # not an instruction
    ["MoveL {t}, v100, z1, tGun\\WObjX:=wTable;"], ["MoveL {t}, v100, z1, tGun, fine;"],  # off the shape
    ["MoveL {t}, {t}, v100, z1, tGun;", "MoveC {t}, {t}, v100, z1, tGun;", "MoveC p0, p0, v100, z1, tGun;"],
    ["MoveL {t}\n,\n v100, z1, tGun;", "MoveAbsJ [[1,2,3,4,5,6],[9E9,9E9,9E9,9E9,9E9,9E9]], v100, z1, tGun;"],
    ["MoveL [[5.e2,0,+6E+2],[1.,0,0,.0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]], v100, z1, tGun;"],
    ["MoveL Offs(p0, 0, 0, 5), v100, z1, tGun;", "MoveL OFFS ( P0 ,-1,+2.5 , 3E1 ), v100, z1, tGun;",  # Offs, RelTool
     "MoveL RelTool(p0, 10, 0, -.5), v100, z1, tGun\\WObj:=wTable;", "MoveC Offs(p0,1,2,3), RelTool(p0,3,2,1), v100, z1, tGun;"],
    ["MoveL Offs(p0, 0, 0, 5e39), v100, z1, tGun;"], ["MoveL Offs(pNowhere, 0, 0, 5), v100, z1, tGun;"],  # refused
    ["MoveL Offs(jHome, 0, 0, 5), v100, z1, tGun;"], ["MoveAbsJ Offs(p0, 0, 0, 5), v100, z1, tGun;"],  # not robtargets
    ["MoveL Offs(p0, 0, 0, 5), v100, z1, tGun;", "MoveL Offs(p0, 0, 0, -1e999), v100, z1, tGun;"],  # a number past num
    ["MoveL RelTool(p0, 0, 0, 5\\Rz:=90), v100, z1, tGun;", "MoveL Offs(p0, 0, 0, n), v100, z1, tGun;"],  # expressions
    ["MoveL [[500,0,600],[1,0,0,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]]  , v100, z1, tGun;",
     "MoveL [ [ 500 , 0 , 600 ] , [1,0,0,0],[0,0,0,0],[ 9E9,9E9,9E9,9E9,9E9,9E9 ]\t], v100, z1, tGun;"],
]


@pytest.mark.parametrize("statements", CORNERS)
def test_the_corners_of_a_run_read_as_the_general_rules_read_them(statements):
    """Cases, spaces, comments and shapes at the edges of what a run's statement is (rapid.MOVES_PATTERN)."""
    decl = (f"  CONST robtarget p0:={_T};\n  CONST jointtarget jHome:=[[0,0,0,0,30,0],[9E9,9E9,9E9,9E9,9E9,9E9]];\n"
            "  VAR num n := 2;\n")
    body = "\n".join("    " + s.format(t=_T) for s in statements)
    text = HEAD + decl + "  PROC main()\n    MoveL p0, v100, z1, tGun;\n" + body + "\n  ENDPROC\nENDMODULE\n"
    assert_same_program(text)
    if statements in CORNERS[:4] or statements == CORNERS[12]:
        _no_fallback(text)


@pytest.mark.parametrize("bad", ["44.5 31", "9E+", "1.2.3", "--5", "1e5e5", ",,"])
@pytest.mark.parametrize("then", ["    m\\OVE aBSj jHome, v100, fine, tool0;",  # a later syntax error
                                  "    MoveL [[500,0,600],[9,0,0,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]], v100, z1, tGun;"])
def test_a_number_the_general_rules_refuse_inside_a_run_is_the_error_named(bad, then):
    """A run's terminal takes any digits, signs, points and exponents between an inline point's brackets: a
    malformed number there is a syntax error the general rules name first, before a later syntax error or a
    data error (a quaternion not unit) the walk would meet (fuzzing found both orders named differently)."""
    good = "    MoveL [[500,0,600],[1,0,0,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]], v100, z1, tGun;\n"
    broken = f"    MoveAbsJ [[17.2,-18.6,{bad},2.5,53.0,-1.3],[9E9,9E9,9E9,9E9,9E9,9E9]], v100, fine, tool0;\n"
    for order in ((then + "\n", good, broken), (good, broken, then + "\n")):
        text = (HEAD + "  CONST jointtarget jHome:=[[0,0,0,0,30,0],[9E9,9E9,9E9,9E9,9E9,9E9]];\n  PROC main()\n"
                + good + "".join(order) + "  ENDPROC\nENDMODULE\n")
        assert_same_program(text)
    # in a routine the entry routine does not run: never walked, still a syntax error
    for main in (good, good.replace("[1,0,0,0]", "[9,0,0,0]")):  # (the second: and a data error where it runs)
        text = (HEAD + "  PROC main()\n" + main + "  ENDPROC\n  PROC spare()\n" + good + broken
                + "  ENDPROC\nENDMODULE\n")
        assert_same_program(text)
        if bad != "--5":  # (a double negation: an expression the general rules read)
            assert "syntax" in _read(text, True)


STATEMENTS = st.sampled_from([
    "MoveL {t}, v100, z1, tGun;", "MoveJ {t},vSlow,fine,tool0;",
    "MoveL {t}, p1, v100, z1, tGun;", "MoveL {t}, v100, z1, tGun\\WObj:=wTable;",
    "moveL\n      {t},\n      v1000, z10, tGun;", "MoveL p0, v200, z5, tGun;", "MoveC {t}, p1, v100, z1, tGun;",
    "MoveAbsJ {j}, v100, fine, tool0;", "MoveAbsJ jHome, v100, fine, tool0;", "WaitTime 1;", "! a comment",
    "SetDO do1, 1;", "MoveL {t}, v100\\T:=2, z1, tGun;", "VelSet 50, 800;", "MoveL Offs(p0, 0, 0, 5), v100, z1, tGun;",
    "FOR i FROM 1 TO 2 DO\n      MoveL p1, v100, z1, tGun;\n    ENDFOR", "MoveL {t}, v100, z1, tGun; ! MoveL p0, v9, z9, t;",
    "IF n > 0 THEN\n      MoveL p1, v100, z1, tGun;\n      SetDO do1, 1;\n      MoveJ {t}, v100, z1, tGun;\n"
    "      MoveL {t}, v100, z1, tGun;\n    ELSE\n      WHILE n > 0 DO\n        MoveL p0, v100, z1, tGun;\n"
    "      ENDWHILE\n    ENDIF",
])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(STATEMENTS, st.integers(0, 7)), min_size=1, max_size=25))
def test_random_mixes_of_statements_read_the_same(statements):
    rng = np.random.default_rng(7)
    texts, q_deg = _targets("irb140", rng, 8)
    joints = "[[" + ",".join(f"{v:.6f}" for v in q_deg[1]) + "],[9E9,9E9,9E9,9E9,9E9,9E9]]"
    decl = f"  CONST robtarget p0:={texts[0]};\n  CONST robtarget p1:={texts[1]};\n  CONST jointtarget jHome:={joints};\n"
    body = "\n".join("    " + s.format(t=texts[k], j=joints) for s, k in statements)
    assert_same_program(HEAD + decl + "  PROC main()\n" + body + "\n  ENDPROC\nENDMODULE\n")


def test_numbers_json_does_not_take_read_as_rapid_does():
    """RAPID numbers with leading zeros, a leading point or sign, a trailing point (a declaration goes through
    the general rules, the inline point through the run): both read 500 mm, not a SyntaxError traceback."""
    decl = "  CONST robtarget p0:=[[0500,+0,0600.],[.0,0,1,0],[00,0,0,0],[9E+09,9E+09,9E+09,9E+09,9E+09,09]];\n"
    text = (HEAD + decl + "  PROC main()\n    MoveL p0, v100, z1, tool0;\n"
            "    MoveL [[0500,+0,0600.],[.0,0,1,0],[00,0,0,0],[9E+09,9E+09,9E+09,9E+09,9E+09,09]], v100, z1, tool0;\n"
            "  ENDPROC\nENDMODULE\n")
    assert_same_program(text)
    prog = rapid_program_from_text(text)
    for point in prog.points:
        np.testing.assert_allclose(point.T_world_tcp[:3, 3], [0.5, 0.0, 0.6])


@pytest.mark.parametrize("output", ["filtered", "joints"])
def test_the_written_program_is_the_same_whichever_reading(tmp_path, rng, output):
    """End to end: a CAM-style module (MoveL, MoveJ, MoveC and MoveAbsJ runs, a work object, a declared point)
    compensated with the runs read in batch and with every statement through the general rules gives the same
    bytes and the same report rows."""
    from helpers import run_program

    from thermocomp import DeformationTable
    from thermocomp.programs import ProgramOptions

    texts, q_deg = _targets("irb140", rng, 12)
    joints = "[[" + ",".join(f"{v:.6f}" for v in q_deg[0]) + "],[9E+09,9E+09,9E+09,9E+09,9E+09,9E+09]]"
    body = [f"    MoveL {t}, v100, z1, tool0\\WObj:=wobj0;" for t in texts[1:6]]  # (the targets are flange poses)
    body += [f"    MoveAbsJ {joints}, v200, fine, tool0;", "    MoveJ p0, vSlow, z5, tool0;"]
    body += [f"    MoveC {texts[7]}, {texts[8]}, v100, z1, tool0;", f"    movel {texts[9]},v100,fine,tool0;"]
    if output == "joints":
        body = [line for line in body if "MoveC" not in line]
    text = (HEAD + f"  CONST robtarget p0:={texts[0]};\n  PROC main()\n" + "\n".join(body)
            + "\n  ENDPROC\nENDMODULE\n")
    src = tmp_path / "cam.mod"
    src.write_text(text)
    table = DeformationTable.from_mm_deg(np.hstack([rng.uniform(-0.3, 0.3, (6, 3)), rng.uniform(-0.03, 0.03, (6, 3))]))
    _no_fallback(text)
    results = []
    for runs in (True, False):
        src.write_text(text if runs else general_rules_form(text))
        out = tmp_path / f"out_{runs}.mod"
        report = run_program("irb140", table, src, out, program_options=ProgramOptions(output=output, timed=True))
        results.append((out.read_bytes().replace(b"\f", b" "), [(r.line, r.minute_first, r.change_mm, r.status,
                                                                  r.findings) for r in report.rows]))
    assert results[0] == results[1]
    assert results[0][0] != text.encode()  # something was compensated


def test_runs_between_other_statements_in_every_module_of_a_task_read_the_same(tmp_path, rng):
    """A file's runs are split together, those of each module of the task in its own file: runs of one and of
    several motions between I/O, waits and comments, in the program and in a module it calls (their lines
    differ: a run placed in the other file would name other lines), read as the general rules read every
    statement: the same steps, spans and columns."""
    from thermocomp.programs.rapid import RapidOptions
    from thermocomp.programs.read import read_program

    texts, _ = _targets("irb140", rng, 6)
    other = ["SetDO do1, 1;", "WaitTime 0.5;", "! a comment", "TPWrite \"step\";", "SetDO do1, 0;"]
    def body(first: int) -> str:
        lines = []
        for k in range(12):
            lines += [f"    MoveL {texts[(first + k) % 6]}, v100, z1, tGun;"] * (1 + k % 3) + [f"    {other[k % 5]}"]
        return "\n".join(lines)
    main = HEAD + "  PROC main()\n" + body(0) + "\n    part;\n" + body(3) + "\n  ENDPROC\nENDMODULE\n"
    part = "MODULE parts\n  ! a module whose lines stand elsewhere\n\n  PROC part()\n" + body(2) + "\n  ENDPROC\nENDMODULE\n"
    _no_fallback(main)
    read = []
    for runs in (True, False):
        paths = [tmp_path / f"main_{runs}.mod", tmp_path / f"parts_{runs}.mod"]
        for path, text in zip(paths, (main, part)):
            path.write_text(text if runs else general_rules_form(text))
        read.append(read_program(paths[0], rapid=RapidOptions(modules=(str(paths[1]),))))
    assert_same_steps(*read)
    assert_same_columns(read[0], read[1])
    assert len(read[0].motions) == 3 * sum(1 + k % 3 for k in range(12))


@pytest.mark.parametrize("tail", [" @", " MoveL", "\n    ENDPROC ENDPROC", " ;;"])
def test_a_syntax_error_after_a_long_run_is_named_as_the_general_rules_name_it(tail):
    """A 2,000-statement run, then a stray character, a dangling word, a second ENDPROC or empty statements:
    the error names the line and column the general rules name (the runs reading names it itself, without
    reading the whole module again, which took 13 s at 100,000 lines)."""
    good = "    MoveL [[500,0,600],[1,0,0,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]], v100, z1, tGun;\n"
    text = HEAD + "  PROC main()\n" + good * 2000 + good.rstrip("\n") + tail + "\n  ENDPROC\nENDMODULE\n"
    fast, plain = _read(text, True), _read(text, False)
    assert fast == plain and fast.startswith("InputError")
    assert int(fast.split("line ")[1].split(":")[0]) >= 2006  # at the end, where the tail is


_SPACE = st.sampled_from(["", " ", "  ", "\t", "\r\n      ", "\n    "])
_GAPS = st.sampled_from(["\n    ", "\r\n    ", "\n\n    ", "\n    ! MoveL p0, v1, z1, t;\n    ", "  ! a comment\n    ",
                         "\f\n    "])


@st.composite
def _number(draw, value: float) -> str:
    """``value`` as RAPID lets a number be written: fixed or exponent, a sign, no digit before or after the point."""
    form = draw(st.sampled_from(["{:.6f}", "{:.9g}", "{:.4E}", "{:+.3f}", "{:.0f}."]))
    text = form.format(value)
    return text[1:] if draw(st.booleans()) and text.startswith("0.") and text[2:3].isdigit() else text


@st.composite
def _statement(draw, values, joints) -> str:
    """One plain motion statement of the MOVES pattern's shape, its spacing, letter case and numbers drawn."""
    def sep(c: str) -> str:
        return draw(_SPACE) + c + draw(_SPACE)

    def point(k: int) -> str:
        form = draw(st.sampled_from(["named", "inline", "through"]))
        if form == "named":
            return draw(st.sampled_from(["p0", "p1"]))
        if form == "through":  # (Offs, RelTool of a named target and numbers: moved along the frame's or tool's axes)
            function = "".join(c.upper() if draw(st.booleans()) else c.lower()
                               for c in draw(st.sampled_from(["Offs", "RelTool"])))
            shift = [draw(_number(draw(st.floats(-500, 500)))) for _ in range(3)]
            return (function + draw(_SPACE) + "(" + draw(_SPACE) + draw(st.sampled_from(["p0", "p1", "P1"]))
                    + sep(",") + sep(",").join(shift) + draw(_SPACE) + ")")
        groups = [values[k][:3], values[k][3:7], [0, 0, 0, 0], [9e9] * 6]
        return "[" + sep(",").join("[" + sep(",").join(draw(_number(v)) for v in g) + "]" for g in groups) + "]"

    kind = draw(st.sampled_from(["MoveL", "MoveJ", "MoveC", "MoveAbsJ"]))
    name = "".join(c.upper() if draw(st.booleans()) else c.lower() for c in kind)
    if kind == "MoveAbsJ":
        points = [draw(st.sampled_from(["jHome", joints]))]
    else:
        points = [point(draw(st.integers(0, len(values) - 1))) for _ in range(2 if kind == "MoveC" else 1)]
    args = [*points, draw(st.sampled_from(["v100", "vSlow", "v5"])), draw(st.sampled_from(["z1", "fine"])),
            draw(st.sampled_from(["tGun", "tool0"]))]
    wobj = draw(st.sampled_from(["", "\\WObj:=wTable", " \\WObj := wTable", "\\wobj:=wobj0"]))
    return name + " " + draw(_SPACE) + sep(",").join(args) + wobj + draw(_SPACE) + ";"


def _values(rng, count: int):
    chain = load_robot("irb140")
    q = chain.home + rng.uniform(-0.5, 0.5, (count, chain.n_joints))
    R, p = fk(nominal_model(chain), q)
    from thermocomp.geometry.rotations import quat_wxyz_from_matrix

    return np.hstack([p * 1e3, quat_wxyz_from_matrix(R)]).tolist()


_VALUES = _values(np.random.default_rng(11), 4)
_JOINTS = "[[10,-20,30,5,45,-5],[9E9,9E9,9E9,9E9,9E9,9E9]]"


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(_statement(_VALUES, _JOINTS), _GAPS), min_size=1, max_size=12))
def test_generated_statements_read_by_the_bulk_lane_as_the_grammar_reads_them(statements):
    """Property: any statement of the plain motion shape (drawn: letter case, spacing and line breaks, number forms,
    named or inline points or Offs/RelTool of a named one, a work object), in runs separated by comments and line
    breaks, is read by the bulk lane (one MOVES token, read as columns) exactly as the grammar's general rules read it
    one statement at a time."""
    decl = (f"  CONST robtarget p0:={robtarget_text(np.eye(4), [0, 0, 0, 0])};\n  CONST robtarget p1:="
            "[[600,50,500],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]];\n"
            f"  CONST jointtarget jHome:={_JOINTS};\n")
    body = "".join(text + gap for text, gap in statements)
    text = HEAD + decl + "  PROC main()\n    " + body + "\n  ENDPROC\nENDMODULE\n"
    assert any(True for _ in parse_rapid_text(text, "m.mod").find_data("moves"))  # (the bulk lane took some)
    assert_same_program(text)


@pytest.mark.parametrize("finding", ["    MoveL pNowhere, v100, z1, tGun;",  # a target declared nowhere
                                     "    MoveL [[500,0,600],[1,0,0,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]], v100, z1, "
                                     "tNowhere;"])  # a tool declared nowhere
def test_one_finding_among_a_runs_motions_leaves_the_rest_columns(finding):
    """No cliff: the statement the columns do not read goes to the general rules alone; the motions before and
    after it stay columns (no object a motion, no second reading), and the program is the general rules' own."""
    good = "    MoveL [[500,0,600],[1,0,0,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]], v100, z1, tGun;\n"
    text = HEAD + "  PROC main()\n" + good * 300 + finding + "\n" + good * 200 + "  ENDPROC\nENDMODULE\n"
    prog = rapid_program_from_text(text)
    assert [len(part) for part in prog.steps] == [500]  # (the program's motions: one run, one model)
    assert len(prog.unsupported) == 1 and "Nowhere" in prog.unsupported[0].message
    assert prog.unsupported[0].line == HEAD.count("\n") + 302
    assert_same_program(text)



def test_a_run_read_again_parses_the_statements_the_columns_do_not_take_once(monkeypatch):
    """A routine called five times (and run in each pass of a loop) reads the statement of its run that the columns
    do not take through the general rules each time, from one parse of its text (not one a call), and the program
    is the general rules' own."""
    from thermocomp.programs import grammars

    good = "    MoveL [[500,0,600],[1,0,0,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]], v100, z1, tGun;\n"
    text = (HEAD + "  PROC main()\n" + "    path;\n" * 3 + "    FOR i FROM 1 TO 2 DO\n      path;\n    ENDFOR\n"
            "  ENDPROC\n  PROC path()\n" + good * 3 + "    MoveL pNowhere, v100, z1, tGun;\n" + good * 2
            + "  ENDPROC\nENDMODULE\n")
    parsed = []
    parse_at = grammars.parse_at
    monkeypatch.setattr(grammars, "parse_at", lambda *args: parsed.append(args[2:4]) or parse_at(*args))
    prog = rapid_program_from_text(text)
    assert len(parsed) == 1 and text[slice(*parsed[0])] == "MoveL pNowhere, v100, z1, tGun;"
    assert len(prog.run) == 25 and len(prog.unsupported) == 1  # (a finding once a text)
    assert_same_program(text)

def test_offs_and_reltool_of_named_targets_are_read_from_one_parse_a_target_and_place(monkeypatch):
    """A run's ``Offs``/``RelTool`` of a named target and numbers (a CAM program's approach and path points) is read
    by the general rules once per function, target, shape and place (a statement parsed, its point read by
    ``point``), every other one by the same function of its own numbers: some ten times a plain motion's cost, not
    fifty (a parse a statement); the program is the general rules' own."""
    from thermocomp.programs import grammars

    decl = f"  CONST robtarget p0:={_T};\n  CONST robtarget p1:={_T.replace('500', '450')};\n"
    body = "".join(f"    MoveL Offs(p0, {i}, {-2 * i}, 0.5), v100, z1, tGun;\n"
                   f"    MoveL RelTool(p1, 0, 0, {-i / 4}), v100, z1, tGun;\n"
                   f"    MoveC Offs(p0, {i}, 0, 0), Offs(p0, 0, {i}, 0), v100, z1, tGun;\n" for i in range(100))
    text = HEAD + decl + "  PROC main()\n" + body + "  ENDPROC\nENDMODULE\n"
    parsed = []
    parse_at = grammars.parse_at
    monkeypatch.setattr(grammars, "parse_at", lambda *args: parsed.append(args[2:4]) or parse_at(*args))
    prog = rapid_program_from_text(text)
    assert len(parsed) == 3  # (Offs of p0 a MoveL's point, RelTool of p1, the MoveC's: one parse, both its points)
    assert len(prog.run) == 300 and not prog.unsupported
    np.testing.assert_allclose(prog.motions[297].points[0].T_world_tcp[:3, 3], [0.599, -0.198, 0.6005])  # p0 + (99,
    np.testing.assert_allclose(prog.motions[298].points[0].T_world_tcp[:3, 3], [0.45, 0.0, 0.57525])  # -198, .5) mm
    assert_same_program(text)
    _no_fallback(text)


def _bytes_held(prog) -> int:
    """What the program's model holds: each buffer of its steps' and columns' arrays once (a view's its base's), each
    tuple of a column, each view of a motion it keeps."""
    import sys

    seen: dict[int, int] = {}
    runs = [s for s in prog.steps if isinstance(s, MotionRun)] + [prog.run]
    arrays = [prog.motion_steps, prog.wait_seconds]
    for run in runs:
        for f in dataclasses.fields(run):
            value = getattr(run, f.name)
            if isinstance(value, tuple):
                seen[id(value)] = sys.getsizeof(value)
            elif isinstance(value, np.ndarray):
                arrays.append(value)
    for a in arrays:
        while isinstance(a.base, np.ndarray):
            a = a.base
        seen[id(a)] = a.nbytes
    return sum(seen.values()) + sum(sys.getsizeof(v) for v in vars(prog).values() if isinstance(v, tuple))


@pytest.mark.parametrize("language", ["rapid", "urscript"])
def test_a_long_run_holds_each_motion_once_and_its_shared_columns_once(language):
    """A run of 5,000 plain motions of one speed, tool and kind: its model holds some 260 B a motion (pose,
    quaternion, confdata, spans), not a column a row for each value the motions share (speeds, tool, kind, file)
    nor a joint column for Cartesian targets (480 B a motion before, measured), nor views of each motion kept
    beside the columns once asked for."""
    from thermocomp.programs.urscript import urscript_program_from_text

    n = 5_000
    if language == "rapid":
        line = "    MoveL [[{},{},500],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]], v100, z1, tool0;\n"
        text = "MODULE M\n  PROC main()\n" + "".join(line.format(400 + i % 97, i % 89) for i in range(n)) + \
            "  ENDPROC\nENDMODULE\n"
        prog = rapid_program_from_text(text)
    else:
        line = "  movel(p[{:.4f}, {:.4f}, .5, 0, 3.14, 0], a=1.2, v=0.25)\n"
        text = "def main():\n" + "".join(line.format(.4 + i % 97 * 1e-3, i % 89 * 1e-3) for i in range(n)) + "end\n"
        prog = urscript_program_from_text(text)
    assert len(prog.run) == n and prog.points[-1].T_world_tcp is not None and not prog.unsupported
    held = _bytes_held(prog) / n
    assert held < 360, f"{held:.0f} B a motion"
    np.testing.assert_array_equal(prog.run.tcp_speed, 0.1 if language == "rapid" else 0.25)
