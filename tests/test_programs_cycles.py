"""Data a cycle carries to the next (issue 35, point 2: "a motion's data decide, not the control flow around it").

A RAPID program runs its cycle again and again: ``main`` in continuous mode, or a pass of the ``WHILE TRUE`` that
ends it ("Technical reference manual - RAPID overview", program execution). A datum the cycle reads and later gives
another value (a production counter ``nCount := nCount + 1;``, ``Incr``, a toggle ``bLeft := NOT bLeft;``) has
that other value in the next cycle. The reader follows the next cycle from the value the first leaves; where that
cycle moves through other points, the datum is known only while running, as an input is: a motion whose target
reads it is refused naming it and the statement that changes it, a condition on it is not resolved (each branch's
constant targets compensated), and a statement that only reports it (``TPWrite``) changes no point. The programs
are written from the manual's syntax; each compensated one is given back byte for byte by a zero table, and its
written targets take the warm robot (FK of the deformed model) to the programmed poses.
"""

from __future__ import annotations

import textwrap

import numpy as np
import pytest
from test_programs_loops import _check_compensated as _check_tables
from test_programs_loops import _offs
from test_programs_rapid_cell import _check_compensated, _module

from thermocomp import load_robot
from thermocomp.programs.rapid import rapid_program_from_text

COUNTED = [  # a cycle counter no motion's data read, in the forms RAPID gives one
    "    nCount := nCount + 1;\n",
    "    Incr nCount;\n",
    "    nCount := nCount + 1;\n    TPWrite \"cycle \"\\Num:=nCount;\n",
    "    Add nCount, 2;\n    IF nCount > 1000 nCount := 0;\n",
]


@pytest.mark.parametrize("loop", [False, True], ids=["main-cycle", "while-true"])
@pytest.mark.parametrize("count", COUNTED)
def test_a_cycle_counter_no_target_reads_stops_nothing(tmp_path, rng, count, loop):
    """The counter is read before it is given the next cycle's value: once refused as "the next cycle would read
    that one"; no motion reads it, so every motion is compensated."""
    moves = "    MoveJ a, v500, z10, tGrip;\n    MoveL b, v100, fine, tGrip;\n" + count
    main = "    WHILE TRUE DO\n" + textwrap.indent(moves, "  ") + "    ENDWHILE\n" if loop else moves
    src, T = _module(load_robot("irb140"), rng, main)
    report = _check_compensated(tmp_path, src, [T["a"], T["b"]], rng)
    assert not any("next cycle" in note for note in report.notes)


def test_a_motion_under_a_condition_on_the_counter_is_compensated_as_not_resolved(tmp_path, rng):
    """``IF nCount >= 10 THEN MoveL c ...; nCount := 0; ENDIF``: a service move every ten cycles. The first cycle
    alone would skip it; the counter differs from cycle to cycle, so the IF is not resolved and ``c`` is
    compensated with the others, the note naming it."""
    main = ("    MoveJ a, v500, z10, tGrip;\n    Incr nCount;\n    IF nCount >= 10 THEN\n"
            "      MoveL c, v100, fine, tGrip;\n      nCount := 0;\n    ENDIF\n    MoveL b, v100, fine, tGrip;\n")
    src, T = _module(load_robot("irb140"), rng, main)
    report = _check_compensated(tmp_path, src, [T["a"], T["c"], T["b"]], rng)
    line = src.splitlines().index("    IF nCount >= 10 THEN") + 1
    assert any(f":{line}:" in note and "not resolved" in note for note in report.notes), report.notes


def test_a_toggle_between_two_targets_compensates_both(tmp_path, rng):
    """``bLeft := NOT bLeft;`` before ``IF bLeft THEN MoveL a ELSE MoveL b``: the cycles alternate; both targets
    are the program's, each compensated (the first cycle alone would take ``a`` only)."""
    main = ("    bLeft := NOT bLeft;\n    IF bLeft THEN\n      MoveL a, v100, fine, tGrip;\n    ELSE\n"
            "      MoveL b, v100, fine, tGrip;\n    ENDIF\n")
    src, T = _module(load_robot("irb140"), rng, main, decl="  VAR bool bLeft := FALSE;\n")
    _check_compensated(tmp_path, src, [T["a"], T["b"]], rng)


def test_an_index_that_wraps_every_cycle_is_followed_pass_by_pass(tmp_path, rng):
    """``k := k MOD 3 + 1; MoveL Offs(a, 10 * k, 0, 0)`` three times a cycle: the cycle leaves ``k`` at 3, and the
    next cycle from 3 moves through the same three points as the first from 0: compensated, each pass its own."""
    main = "    FOR i FROM 1 TO 3 DO\n      k := k MOD 3 + 1;\n      MoveL Offs(a, 10 * k, 0, 0), v100, fine, tGrip;\n" \
           "    ENDFOR\n"
    src, T = _module(load_robot("irb140"), rng, main, decl="  VAR num k := 0;\n")
    _check_tables(tmp_path, src, [_offs(T["a"], 10 * k, 0, 0) for k in (1, 2, 3)], rng)


@pytest.mark.parametrize(("statements", "datum", "changer"), [
    ("    MoveL Offs(a, nCount, 0, 0), v100, fine, tGrip;\n    Incr nCount;\n", "nCount", "    Incr nCount;"),
    ("    nReg := (nCount MOD 16) - 1;\n    MoveL Offs(a, 5 * nReg, 0, 0), v100, fine, tGrip;\n"
     "    nCount := nCount + 1;\n", "nReg", "    nReg := (nCount MOD 16) - 1;"),
])
def test_a_target_that_reads_what_the_previous_cycle_left_is_refused_naming_it(rng, statements, datum, changer):
    """A target shifted by the counter (directly, or through a datum given from it) differs from cycle to cycle:
    refused at the motion, naming the datum and the line that gives it its value, and the counter behind it."""
    src, _ = _module(load_robot("irb140"), rng, statements, decl="  VAR num nReg := 0;\n")
    lines = src.splitlines()
    motion = next(i for i, text in enumerate(lines, 1) if "MoveL Offs(a" in text)
    given = lines.index(changer) + 1
    refused = rapid_program_from_text(src, "cell.mod").unsupported
    assert [(f.line, f.message.split(" (")[0]) for f in refused] == [(motion, f"{datum} is changed at run time")]
    assert f"(line {given}, column 5" in refused[0].message
    behind = "it differs" if datum == "nCount" else "given from nCount, which differs"  # (nReg: given this cycle)
    assert f", column 5; {behind} from cycle to cycle)" in refused[0].message


def test_a_cycle_at_rest_after_its_first_pass_reads_without_findings(rng):
    """A datum set at the cycle's end to the value it starts with (``nCount := 0;`` after counting three) leaves
    the next cycle the same: read once more from that value, without a finding, the points those of one cycle."""
    main = ("    FOR i FROM 1 TO 3 DO\n      nCount := nCount + 1;\n    ENDFOR\n"
            "    MoveL Offs(a, nCount, 0, 0), v100, fine, tGrip;\n    nCount := 0;\n")
    src, T = _module(load_robot("irb140"), rng, main)
    prog = rapid_program_from_text(src, "cell.mod")
    assert prog.unsupported == ()
    want = _offs(T["a"], 3, 0, 0)
    assert np.allclose(prog.points[0].T_world_tcp, want, atol=1e-9)


def test_a_cycle_at_rest_with_a_joint_target_is_read_again_without_a_traceback(rng):
    """A joint target's point has joints and no pose: the two cycles are compared by their joints (a ``MoveAbsJ``
    in a cycle that a wrapping index brings to rest was a TypeError)."""
    main = ("    MoveAbsJ jHome, v500, fine, tGrip;\n    FOR i FROM 1 TO 2 DO\n      k := k MOD 2 + 1;\n"
            "      MoveL Offs(a, 10 * k, 0, 0), v100, fine, tGrip;\n    ENDFOR\n")
    decl = "  VAR num k := 0;\n  CONST jointtarget jHome := [[0,0,0,0,30,0],[9E9,9E9,9E9,9E9,9E9,9E9]];\n"
    src, T = _module(load_robot("irb140"), rng, main, decl=decl)
    prog = rapid_program_from_text(src, "cell.mod")
    assert prog.unsupported == ()
    assert np.allclose(prog.points[0].q, np.radians([0, 0, 0, 0, 30, 0]), atol=1e-12)
    assert [round(float(p.T_world_tcp[0, 3] - T["a"][0, 3]) * 1000, 6) for p in prog.points[1:]] == [10.0, 20.0]
