"""Reader defects the last session left, each a class (issue 35), tested with small programs written from the manuals'
syntax ("Technical reference manual - RAPID Instructions, Functions and Data types": ``PROC`` with parameters,
``Offs``, ``MoveJ``; UR's "The URScript Programming Language").

A target literal written at a call site and read by several motions of the routine (``input [[...]]`` with ``PROC
input(robtarget position)`` running ``MoveJ Offs(position,0,0,100)`` then ``MoveJ position``, held-out-3's
YS-RAPTOR): only targets may change, so the literal holds the target of the motion that reads it as it is; each
other motion reading it misses by the rest, reported as a failed point (exit status 2; ``--allow-failures`` writes).
Read back, the direct motions reach their programmed poses on the warm robot within the core's tolerance.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from helpers import run_program
from test_programs_call_site import WARM, _close, _literals, _rapid
from test_programs_rapid import small_table
from test_programs_rapid_cell import _outside_targets, _reached

from thermocomp import load_robot
from thermocomp.app.jobs import CompensationFailed
from thermocomp.errors import InputError
from thermocomp.programs import read_program

INPUT = ("  PROC input(robtarget position)\n    MoveJ Offs(position,0,0,100), v1000, fine, tGrip;\n"
         "    MoveJ position, v1000, fine, tGrip;\n    MoveJ Offs(position,0,0,100), v1000, z10, tGrip;\n  ENDPROC\n")


def test_rapid_a_call_site_literal_holds_its_direct_motions_target_and_its_approach_fails_by_the_rest(tmp_path, rng):
    lit, _ = _literals(rng, 2)
    src, path, out = _rapid(tmp_path, f"    input {lit[0]};\n    input {lit[1]};\n", INPUT)
    table = small_table(rng)
    with pytest.raises(CompensationFailed) as err:
        run_program("irb140", table, path, out, options=WARM)
    assert not out.exists()
    failed = err.value.report.failed
    column = src.split("\n")[3].index("[") + 1
    assert len(failed) == 4 and [int(f.split(":")[1]) for f in failed] == [8, 10, 8, 10]
    pattern = (r"([\d.e-]+) mm and [\d.e-]+ deg from its corrected target: it reads the target written at line {}, "
               r"column {} \(an argument of a call\) through Offs, which holds the value MoveJ at line 9 reads as its "
               r"target \(only targets may change, and this motion reads the same text\)")
    assert all(re.search(pattern.format(4 + k // 2, column), f) for k, f in enumerate(failed))
    assert "left as" not in err.value.report.failure_text()  # (the literal is written: with the direct motion's value)
    report = run_program("irb140", table, path, out, options=WARM, allow_failures=True)
    assert report.n_changed_texts == 2 and _outside_targets(out) == _outside_targets(path)
    assert [row.status for row in report.rows] == ["failed", "ok", "failed"] * 2
    want = np.stack([pt.T_world_tcp for pt in read_program(path).points])
    reached = _reached(load_robot("irb140"), table, out)
    _close(reached[[1, 4]], want[[1, 4]])  # (the motions that read the literal as their target)
    miss_mm = np.linalg.norm(reached[[0, 2, 3, 5], :3, 3] - want[[0, 2, 3, 5], :3, 3], axis=1) * 1e3
    said = [float(re.search(pattern.format(r"\d+", r"\d+"), f).group(1)) for f in failed]
    np.testing.assert_allclose(miss_mm, said, rtol=0.01)  # (what the report says each misses by)


def test_urscript_a_bare_expression_is_a_statement_its_calls_run(tmp_path, rng):
    """URScript evaluates an expression written as a statement and drops its value (Python's expression statement; the
    manual's examples are Python's; held-out-24's PolyScope export writes ``else: ARC_T_Plus``): it changes nothing,
    a call inside it runs. Text the controller rejects stays a syntax error at its line and column."""
    from test_programs_urscript_calls import _reached as _ur_reached
    from test_programs_urscript_calls import _script
    from test_programs_urscript_calls import small_table as ur_table

    main = ("  flag = True\n  flag\n  if not flag:\n    flag = False\n  else: flag\n    movel(a, a=1.2, v=0.25)\n  end\n"
            "  a[2] + 0.1 * b[0]\n  a.x\n  (not go(b))\n  movel(c, a=1.2, v=0.25)\n")
    src, T, q = _script(rng, main, "  def go(pose):\n    movel(pose, a=1.2, v=0.25)\n    return True\n  end\n")
    path, out = tmp_path / "p.script", tmp_path / "o.script"
    path.write_text(src)
    assert len(read_program(path).points) == 3  # (a, b through go, c)
    table = ur_table(rng)
    report = run_program("ur5", table, path, out, options=WARM)
    assert report.n_changed_texts == 3
    reached = _ur_reached(table, out, np.stack([q[n] for n in "abc"]))
    _close(reached, np.stack([T[n] for n in "abc"]))
    element = src.replace("  flag = True\n", "  p = [0, 0]\n  p[1] = 0.1\n  flag = True\n")  # (p[: a variable's)
    path.write_text(element)
    assert len(read_program(path).points) == 3
    line = src[:src.index("  movel(c,")].count("\n") + 1
    for bad, column in (("  flag )\n", 8), ("  else: flag\n", 3), ("  go(b) = 1\n", 3), ("  p[0.3, -0.2, 0.1]\n", 3),
                        ("  flag = flag != 0 flag\n", 20), ("  set robotmode run\n", 7)):
        path.write_text(src.replace("  movel(c,", bad + "  movel(c,"))
        with pytest.raises(InputError, match=rf"line {line}(, column {column}: URScript syntax: |: URScript syntax: .*"
                                             rf"\(column {column}\))"):
            read_program(path)


@pytest.mark.parametrize("goto", ["    IF debug GOTO again;\n", "    IF debug THEN\n      GOTO again;\n    ENDIF\n",
                                  "    IF NOT debug THEN\n      nCount := 1;\n    ELSE\n      GOTO again;\n    ENDIF\n"])
def test_rapid_a_goto_the_file_never_runs_leaves_its_label_s_data_known(tmp_path, rng, goto):
    """RAPID's GOTO (Technical reference manual - RAPID Instructions: "GOTO is used to transfer program execution to
    another line (a label) within the same routine") arrives at its label only if it runs: one inside an IF the file
    decides false (a CONST) never does, so what the routine assigns stays known after the label. One that may run
    (an input decides) still makes it known only while running."""
    from test_programs_rapid_cell import _check_compensated, _module

    main = "    VAR robtarget p;\n    p := a;\n    again:\n    MoveL p, v100, fine, tGrip;\n    p := b;\n" \
           "    MoveL p, v100, fine, tGrip;\n" + goto
    src, T = _module(load_robot("irb140"), rng, main, decl="  CONST bool debug := FALSE;\n")
    _check_compensated(tmp_path, src, [T["a"], T["b"]], rng)
    path = tmp_path / "input.mod"
    path.write_text(src.replace("IF debug", "IF DInput(di1) = 1").replace("IF NOT debug", "IF DInput(di1) = 0"))
    assert read_program(path).unsupported  # (p after the label: known only while running)


def test_rapid_a_func_calling_an_instruction_that_moves_nothing_is_evaluated(tmp_path, rng):
    """A FUNC's body runs its statements as a PROC's (RAPID overview, "Functions"): a call of an instruction that moves
    nothing (``TPWrite``, ``WaitTime``, ``SetDO``) gives its value no step and changes only the data it writes, so
    the FUNC's value is still known; one that writes what the value reads makes it known only while running."""
    from test_programs_rapid_cell import _check_compensated, _module

    func = ("  FUNC robtarget above(robtarget t, num h)\n    VAR num z;\n    z := h;\n    TPWrite \"above\";\n"
            "    WaitTime 0.1;\n    SetDO do1, 1;\n    RETURN Offs(t, 0, 0, z);\n  ENDFUNC\n")
    main = "    MoveL above(a, 50), v100, fine, tGrip;\n    MoveL b, v100, fine, tGrip;\n"
    src, T = _module(load_robot("irb140"), rng, main, func)
    _check_compensated(tmp_path, src, [T["a"] + np.array([[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0.05], [0] * 4]),
                                       T["b"]], rng)
    path = tmp_path / "reads.mod"
    path.write_text(src.replace("SetDO do1, 1;", "TPReadNum z, \"height?\";"))  # (z written by the operator)
    assert read_program(path).unsupported[0].message.startswith("z is changed at run time")


def test_rapid_a_counted_goto_loop_in_a_func_has_the_bound_of_a_while(tmp_path, rng):
    """A counted GOTO loop (``i := i + 1; IF i < n GOTO again;``) in a FUNC is followed pass by pass, bounded as a
    WHILE in a FUNC is (20,000 statements, thermocomp.programs.calls.MAX_QUIET_WORK), not by the whole reading's."""
    from test_programs_rapid_cell import _check_compensated, _module

    func = ("  FUNC num lift(num n)\n    VAR num i := 0;\n    again:\n    i := i + 1;\n    IF i < n GOTO again;\n"
            "    RETURN i;\n  ENDFUNC\n")
    src, T = _module(load_robot("irb140"), rng, "    MoveL Offs(a, 0, 0, lift(5)), v100, fine, tGrip;\n", func)
    _check_compensated(tmp_path, src, [T["a"] + np.array([[0, 0, 0, 0]] * 2 + [[0, 0, 0, 0.005], [0] * 4])], rng)
    path = tmp_path / "long.mod"
    path.write_text(src.replace("lift(5)", "lift(1000000)"))
    message = read_program(path).unsupported[0].message
    assert "IF ... GOTO again in function lift runs more than 20,000 statements: not followed" in message


TOOL_X = "  PERS tooldata tGrip:=[TRUE,[[0,0,{z}],[1,0,0,0]],[1,[0,0,50],[1,0,0,0],0,0,0]];\n"


@pytest.mark.parametrize(("second", "split"), [(TOOL_X.format(z=120), False), (TOOL_X.format(z=120), True),
                                               ("  PERS tooldata tGrip;\n", False)])
def test_rapid_a_pers_declared_in_two_modules_of_its_value_is_one_persistent(tmp_path, second, split):
    """A PERS declared in several modules of a task is one persistent of the task (held-out-6's Module1.mod and
    Gripper.mod both declare ``PERS tooldata tGripper``): the same initial value, or none in the second, is that one.
    Different values, or a target the writer would change in one declaration only, are refused saying why."""
    from test_programs_scope import _module, _proc, _read, _target

    main = _module("M", TOOL_X.format(z=120), _target("x", 500), _proc("main", "MoveL x, v100, fine, tGrip;"))
    prog = _read(tmp_path, main, _module("G", second, _proc("grip", "WaitTime 1;")), split=split)
    assert prog.unsupported == ()
    (point,) = prog.points
    np.testing.assert_allclose(point.T_flange_tcp[:3, 3], [0, 0, 0.120])
    for other, why in ((TOOL_X.format(z=130), "these give it other types or values"),
                       (_target("x", 500, "PERS"), "thermocomp writes a target in one declaration only")):
        with pytest.raises(InputError) as err:
            _read(tmp_path, main.replace("CONST robtarget", "PERS robtarget"), _module("G", other), split=split)
        assert "declared in two modules of the task" in err.value.message and why in err.value.message
        assert "a PERS declared in several modules is one persistent of the task" in err.value.message
