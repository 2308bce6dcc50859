"""A loop whose count the file fixes, run under a condition known only while running (issue 35, item 2: "an
enclosing IF on an input, a WHILE waiting for a button, a TEST on a mode do not change a target's value").

Written from ABB's RAPID syntax ("Technical reference manual - RAPID Instructions, Functions and Data types": ``FOR
... FROM ... TO ... STEP``, ``IF``, ``WHILE``, ``TEST``/``CASE``/``DEFAULT``, ``DInput``, ``GInput``, ``Offs``) and
the URScript manual ("Flow of Control": ``if``, ``while``; ``pose_trans``, ``get_standard_digital_in``), not from any
fetched program (the class was found on a screwing station of held-out-23). The motion's target differs from pass to
pass: the writer tables it, walked by a pass counter advanced before the motion (``tcPassN := tcPassN MOD n + 1``).
A condition around the whole loop runs all its passes or none (or whole rounds of them, a WHILE), so the counter
stays in step: each pass is compensated, the written program read back reaches each pass's programmed pose on the
warm robot. A condition that can skip some runs of a table and not others would put the counter out of step: where
it stands inside the loops, around the motion, the index is set from the loops' counters instead
(tests/test_programs_loopidx.py); around one of two calls of a routine holding the loop, one call under no
condition, it stays refused, at the motion's line, with the same message.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from program_builders import random_configurations, ur_pose_text
from test_programs_loops import (
    UR_TCP,
    _offs,
    _zero_then_warm,
    assert_ur_reached,
)
from test_programs_rapid_cell import _module, _reached

from thermocomp import fk, load_robot, nominal_model
from thermocomp.geometry.rotations import transform
from thermocomp.programs import read_program
from thermocomp.tolerances import IK_POSITION_TOL

REFUSED = ("MoveL's target differs from pass to pass and it runs under a condition or loop known only while running: "
           "its passes are not known before running")
FOR = "    FOR i FROM 1 TO 4 DO\n      MoveL Offs(b, 0, 0, i * 5), v100, fine, tGrip;\n    ENDFOR\n"
NESTED = ("    FOR i FROM 1 TO 3 DO\n      FOR j FROM 0 TO 20 STEP 10 DO\n"
          "        MoveL Offs(b, j, 0, i * 5), v100, fine, tGrip;\n      ENDFOR\n    ENDFOR\n")
MOTION = "MoveL Offs(b, 0, 0, i * 5), v100, fine, tGrip;"


def _for(T):
    return [_offs(T["b"], 0, 0, 5 * i) for i in range(1, 5)]


def _nested(T):
    return [_offs(T["b"], j, 0, 5 * i) for i in range(1, 4) for j in range(0, 21, 10)]


#: main bodies around (or holding) a FOR whose passes differ, the poses one walk of the written program reaches (each
#: body of a construct decided while running followed once, in order), the tables' sizes, and how many counters are
#: set where the loop starts (one for every loop one walk of which holds all its table's runs, a condition around it
#: or not: a RETURN or an EXIT out of a pass leaves the next walk to start afresh too)
AROUND = {
    "if on an input": ("    IF DInput(di1) = 1 THEN\n" + FOR + "    ENDIF\n", _for, [4], 1),
    "while waiting for a button": ("    WHILE DInput(diButton) = 1 DO\n" + FOR + "    ENDWHILE\n", _for, [4], 1),
    "test on a mode": ("    TEST GInput(giMode)\n    CASE 1:\n" + FOR + "    DEFAULT:\n"
                       "      MoveL a, v100, fine, tGrip;\n    ENDTEST\n", lambda T: [*_for(T), T["a"]], [4], 1),
    "if inside the body, not around the motion": (
        "    FOR i FROM 1 TO 4 DO\n      IF DInput(di1) = 1 THEN\n        MoveL a, v100, fine, tGrip;\n"
        "      ENDIF\n      " + MOTION + "\n    ENDFOR\n",
        lambda T: [pose for i in range(1, 5) for pose in (T["a"], _offs(T["b"], 0, 0, 5 * i))], [4], 1),
    "a RETURN out of a pass under an input": (
        "    FOR i FROM 1 TO 4 DO\n      " + MOTION + "\n      IF DInput(di1) = 1 THEN\n        RETURN;\n      ENDIF\n"
        "    ENDFOR\n", _for, [4], 1),
    "nested FOR with a STEP under an IF": ("    IF DInput(di1) = 1 THEN\n" + NESTED + "    ENDIF\n", _nested, [9], 1),
    "a routine holding the FOR, called in a WHILE": ("    WHILE DInput(diButton) = 1 DO\n      go;\n    ENDWHILE\n",
                                                     _for, [4], 1),
}


def _check(tmp_path, src, want, rng):
    """Zero table: byte for byte; a warm table: the text changes only in the per-pass targets (each reads its table),
    by the tables and counters declared, each counter advanced before its motion (and set to 0 before its loop), the
    targets declared apart corrected in place; the written program read back, every pass reaches its programmed pose
    on the warm robot. The written text."""
    path, out = tmp_path / "cell.mod", tmp_path / "cell_out.mod"
    path.write_text(src)
    table, _ = _zero_then_warm("irb140", path, out, rng)
    written = out.read_text()
    header = src.index("\n") + 1  # (the block of declarations stands after the MODULE line)
    block = re.match(r"(  !.*\n)+(  LOCAL (VAR num \w+ := 0|CONST robtarget \w+\{\d+\}:=\n[^;]*);\n)+",
                     written[header:]).group(0)
    kept = re.sub(r"[ \t]*(tcPassN\d+) := (\1 MOD \d+ \+ 1|0);\n", "", written.replace(block, "", 1))
    for a, b in sorted(read_program(path).extra["per_pass"], reverse=True):
        src = src[:a] + "<T>" + src[b:]
    declared = r"(CONST robtarget \w+:=)\[[^;]*\];"  # (a target the FOR does not step: corrected in place)
    assert re.sub(declared, r"\1<D>;", re.sub(r"tcPassT\d+\{tcPassN\d+\}", "<T>", kept)) == re.sub(
        declared, r"\1<D>;", src)
    assert not read_program(out).unsupported
    reached = _reached(load_robot("irb140"), table, out)
    assert len(reached) == len(want)
    assert np.max(np.linalg.norm(reached[:, :3, 3] - np.stack(want)[:, :3, 3], axis=1)) < 1e-6 + 10 * IK_POSITION_TOL
    return written


@pytest.mark.parametrize("case", list(AROUND))
def test_a_fixed_loop_under_a_condition_around_it_is_compensated_pass_by_pass(tmp_path, rng, case):
    main, want, sizes, resets = AROUND[case]
    src, T = _module(load_robot("irb140"), rng, main, ("  PROC go()\n" + FOR + "  ENDPROC\n") * ("go;" in main))
    written = _check(tmp_path, src, want(T), rng)
    assert [int(n) for n in re.findall(r"MOD (\d+) \+ 1;", written)] == sizes
    loop = next(line for line in written.splitlines() if line.lstrip().startswith("FOR "))  # (the outer loop)
    assert written.count(f"tcPassN1 := 0;\n{loop}\n") == resets  # (set where the loop starts: each walk afresh)


#: bodies where the condition can skip some runs of a table and not others, and no counter indexes every run
SKIPPING = {
    "one of two calls under an if": ("    go;\n    IF DInput(di1) = 1 THEN\n      go;\n    ENDIF\n", "routine"),
}


@pytest.mark.parametrize("case", list(SKIPPING))
def test_a_condition_that_can_skip_some_runs_of_a_table_stays_refused_at_the_motion(tmp_path, rng, case):
    main, routine = SKIPPING[case]
    src, _ = _module(load_robot("irb140"), rng, main, ("  PROC go()\n" + FOR + "  ENDPROC\n") if routine else "")
    path = tmp_path / "cell.mod"
    path.write_text(src)
    found = read_program(path).unsupported
    line = next(n for n, text in enumerate(src.splitlines(), start=1) if text.strip() == MOTION)
    assert [(f.message, f.line) for f in found] == [(REFUSED, line)]


# ----- URScript: a while the file counts, under an if or a while on an input

UR_WHILE = ("    i = 0\n    while i < 4:\n      movel(pose_trans(p0, p[0, 0, i * 0.01, 0, 0, 0]))\n      i = i + 1\n"
            "    end\n")
UR_NESTED = ("    j = 0\n    while j < 3:\n      k = 0\n      while k < 6:\n"
             "        movel(pose_trans(p0, p[k * 0.01, j * 0.01, 0, 0, 0, 0]))\n        k = k + 2\n      end\n"
             "      j = j + 1\n    end\n")
UR_AROUND = {
    "if on an input": ("  if get_standard_digital_in(0):\n", UR_WHILE,
                       [(0, 0, 0.01 * i) for i in range(4)], 4),
    "while waiting for a button": ("  while get_standard_digital_in(1) == True:\n", UR_WHILE,
                                   [(0, 0, 0.01 * i) for i in range(4)], 4),
    "nested counted whiles with a step under an if": (
        "  if get_standard_digital_in(0):\n", UR_NESTED,
        [(0.01 * k, 0.01 * j, 0) for j in range(3) for k in range(0, 6, 2)], 9),
}


@pytest.mark.parametrize("case", list(UR_AROUND))
def test_a_counted_urscript_while_under_a_condition_around_it_is_compensated_pass_by_pass(tmp_path, rng, case):
    head, body, shifts, size = UR_AROUND[case]
    chain = load_robot("ur5")
    R, p = fk(nominal_model(chain), random_configurations(chain, rng, 1))
    T0 = transform(R[0], p[0]) @ UR_TCP
    src = (f"def prog():\n  set_tcp(p[0, 0, 0.1, 0, 0, 0])\n  p0 = {ur_pose_text(T0)}\n{head}{body}  end\nend\n"
           "prog()\n")
    path, out = tmp_path / "prog.script", tmp_path / "prog_out.script"
    path.write_text(src)
    table, report = _zero_then_warm("ur5", path, out, rng)  # (zero table: byte for byte)
    written = out.read_text()
    assert report.n_changed_texts == 1 and written.count(f") % {size}\n") == 1
    kept = re.sub(r"(# thermocomp: .*|global tc_pass_[nt]\d+ = .*|[ \t]*tc_pass_n\d+ = (\(tc_pass_n\d+ \+ 1\) % \d+|-1))\n",
                  "", written)
    marked = src
    for a, b in sorted(read_program(path).extra["per_pass"], reverse=True):
        marked = marked[:a] + "<T>" + marked[b:]
    assert re.sub(r"tc_pass_t\d+\[tc_pass_n\d+\]", "<T>", kept) == marked  # (only the target and the table)
    reread = read_program(out)
    assert not reread.unsupported and len(reread.points) == size
    assert_ur_reached(chain, table, path, reread, [T0 @ transform(np.eye(3), list(shift)) for shift in shifts])

