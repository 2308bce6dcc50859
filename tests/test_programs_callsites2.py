"""Calls indexing a table of one entry a call: a call in a FOR loop whose argument reads the counter, a call that is
the statement of a RAPID compact IF, and ``--timed`` runs of a call in a loop (issue 35: each value is known before
the program runs, so none of them is refused).

Written from ABB's RAPID syntax ("Technical reference manual - RAPID Instructions, Functions and Data types": ``PROC``
with parameters, arrays ``pts{i}``, ``FOR ... FROM ... TO ... STEP``, the compact ``IF`` "IF condition statement;",
``Offs``, ``DInput``, ``WHILE TRUE``), not from any fetched program. The routine ``Pick`` moves above its target
(``Offs(p, 0, 0, 50)``, a text the calls need differently: a table indexed by the calls) and to it. A call run several
times with different targets (``Pick pts{i}`` in a FOR loop) sets its index from the loop's counter
(``tcPassN1 := i;``): one entry a pass; a call in a compact IF sets its index on a line of its own before the IF, the
IF kept byte for byte. A zero table gives the program back byte for byte; the written program, read back along a path
the controller may take (the input on, or off) and through the deformed model's FK (at each motion's minute with
``--timed``), reaches each call's programmed poses. An element whose index is known only while running stays refused,
naming it; so does a loop followed once and repeated with ``--timed`` (its runs at different minutes), naming why.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from helpers import run_program
from test_programs_callsites import INPUT, _lifted
from test_programs_loops import _offs, _zero_then_warm
from test_programs_percall import TOLERANCE, _line, _rapid
from test_programs_rapid import controller_joints, small_table
from test_programs_rapid_cell import _reached

from thermocomp import deformed_model, fk, load_robot
from thermocomp.compensation.compensate import CompensationOptions
from thermocomp.deformation.timelaw import LinearRamp
from thermocomp.errors import InputError
from thermocomp.geometry.rotations import transform
from thermocomp.programs import ProgramOptions, read_program

ELEMENTS = "  VAR robtarget pts{3};\n"
FILLED = "    pts{1} := a;\n    pts{2} := c;\n    pts{3} := b;\n"

#: main bodies: declarations, the body (``{cond}`` an input), how each call statement sets its index, and the poses
#: of the calls each path runs (``{cond}`` true, false) of the targets ``T``
LOOPS = {
    "array element, FOR counter; a declared target under an IF": (
        ELEMENTS, FILLED + "    FOR i FROM 1 TO 3 DO\n      Pick pts{i};\n    ENDFOR\n"
        "    IF {cond} THEN\n      Pick b;\n    ENDIF\n",
        ("tcPassN1 := i;", "tcPassN1 := 4;"),
        lambda T: [T["a"], T["c"], T["b"], T["b"]], lambda T: [T["a"], T["c"], T["b"]]),
    "array element, FOR counter stepping down; under an IF": (
        ELEMENTS, FILLED + "    Pick a;\n    IF {cond} THEN\n      FOR k FROM 3 TO 2 STEP -1 DO\n        Pick pts{k};\n"
        "      ENDFOR\n    ENDIF\n",
        ("tcPassN1 := 1;", "tcPassN1 := k;"),
        lambda T: [T["a"], T["b"], T["c"]], lambda T: [T["a"]]),
    "nested FOR counters, the second stepping by 2, in Offs": (
        "", "    FOR j FROM 0 TO 1 DO\n      FOR i FROM 1 TO 3 STEP 2 DO\n        Pick Offs(a, 10 * i, 20 * j, 0);\n"
        "      ENDFOR\n    ENDFOR\n    IF {cond} THEN\n      Pick b;\n    ENDIF\n",
        ("tcPassN1 := j * 2 + (i - 1) DIV 2 + 1;", "tcPassN1 := 5;"),
        lambda T: [_offs(T["a"], 10 * i, 20 * j, 0) for j in (0, 1) for i in (1, 3)] + [T["b"]],
        lambda T: [_offs(T["a"], 10 * i, 20 * j, 0) for j in (0, 1) for i in (1, 3)]),
    "array element, a counted WHILE's counter; under an IF": (
        ELEMENTS, FILLED + "    nCount := 1;\n    WHILE nCount <= 2 DO\n      Pick pts{nCount};\n"
        "      nCount := nCount + 1;\n    ENDWHILE\n    IF {cond} THEN\n      Pick b;\n    ENDIF\n",
        ("tcPassN1 := nCount;", "tcPassN1 := 3;"),
        lambda T: [T["a"], T["c"], T["b"]], lambda T: [T["a"], T["c"]]),
    "counter argument both before the production loop and in it": (
        "", "    FOR k FROM 1 TO 2 DO\n      Pick Offs(a, 0, 0, 10 * k);\n    ENDFOR\n"
        "    WHILE TRUE DO\n      FOR k FROM 1 TO 3 DO\n        Pick Offs(b, 0, 0, 10 * k);\n      ENDFOR\n"
        "    ENDWHILE\n",
        ("tcPassN1 := k;", "tcPassN1 := k + 2;"),
        lambda T: [_offs(T["a"], 0, 0, 10 * k) for k in (1, 2)] + [_offs(T["b"], 0, 0, 10 * k) for k in (1, 2, 3)],
        None),
}


def _paths(tmp_path, written, on, off):
    """The written program along each path the controller may take: ``(program, poses of its calls)``."""
    for cond, calls in (("TRUE", on), ("FALSE", off)):
        if calls is not None:
            taken = tmp_path / f"cell_{cond}.mod"
            taken.write_text(written.replace(INPUT, cond))
            yield taken, calls


@pytest.mark.parametrize("case", LOOPS)
def test_a_call_whose_argument_reads_a_for_counter_sets_its_index_from_it(tmp_path, rng, case):
    decl, body, sets, on, off = LOOPS[case]
    src, T, path = _rapid(tmp_path, rng, body.replace("{cond}", INPUT), decl=decl)
    prog = read_program(path)
    assert not prog.unsupported and prog.extra["per_call"]
    note = next(n.message for n in prog.notes if "differ from call to call" in n.message)
    assert "one entry a pass, its index computed from the counters known at the call" in note
    out = tmp_path / "cell_out.mod"
    table, _ = _zero_then_warm("irb140", path, out, rng)
    written = out.read_text()
    # each call statement sets its index on a line of its own before it, from the counters around it
    found = re.findall(r"^ *(tcPassN1 := [^;\n]+;)\n *Pick ", written, flags=re.M)
    assert tuple(found) == sets and len(re.findall(r"^ *tcPassN1 := ", written, flags=re.M)) == len(sets)
    assert " MOD " not in written and "    MoveJ tcPassT1{tcPassN1}, v100, z10, tGrip;  ! above\n" in written
    for taken, calls in _paths(tmp_path, written, on(T), off and off(T)):
        reached, want = _reached(load_robot("irb140"), table, taken), np.stack(_lifted(dict(enumerate(calls)),
                                                                                        range(len(calls))))
        assert len(reached) == len(want)
        assert np.max(np.linalg.norm(reached[:, :3, 3] - want[:, :3, 3], axis=1)) < TOLERANCE


@pytest.mark.parametrize("layout", ["    IF {cond} Pick b;\n", "    IF {cond}\n      Pick b;\n"])
def test_a_call_in_a_compact_if_sets_its_index_before_the_if(tmp_path, rng, layout):
    """The compact IF (on one line, or its statement on the next) is kept byte for byte: the index is set before it,
    whether or not the call runs (only a call reads it, and every call sets its own)."""
    src, T, path = _rapid(tmp_path, rng, "    Pick a;\n" + layout.format(cond=INPUT))
    out = tmp_path / "cell_out.mod"
    table, _ = _zero_then_warm("irb140", path, out, rng)
    written = out.read_text()
    assert "    tcPassN1 := 1;\n    Pick a;\n    tcPassN1 := 2;\n" + layout.format(cond=INPUT) in written
    for taken, names in _paths(tmp_path, written, "ab", "a"):
        reached, want = _reached(load_robot("irb140"), table, taken), np.stack(_lifted(T, names))
        assert len(reached) == len(want)
        assert np.max(np.linalg.norm(reached[:, :3, 3] - want[:, :3, 3], axis=1)) < TOLERANCE


@pytest.mark.parametrize("layout", ["      IF i > 1 MoveL Offs(a, 10 * i, 0, 0), v100, fine, tGrip;\n",
                                    "      IF i > 1\n        MoveL Offs(a, 10 * i, 0, 0), v100, fine, tGrip;\n"])
def test_a_motion_walked_pass_by_pass_in_a_compact_if_is_refused_at_its_line(tmp_path, rng, layout):
    """Its pass counter would be advanced before it, outside the IF (the statement on its own line was written so,
    the IF then advancing the counter and the motion running on every pass)."""
    src, _, path = _rapid(tmp_path, rng, "    FOR i FROM 1 TO 3 DO\n" + layout + "    ENDFOR\n")
    found = read_program(path).unsupported
    assert [(f.line, "statement of a compact IF" in f.message) for f in found] == [(_line(src, "MoveL Offs"), True)]
    with pytest.raises(InputError, match="compact IF"):
        run_program("irb140", "deformations/exaggerated.csv", path, tmp_path / "out.mod")
    assert not (tmp_path / "out.mod").exists()


def test_an_element_whose_index_is_known_only_while_running_stays_refused_naming_it(tmp_path, rng):
    body = FILLED + "    nCount := GInput(giPart);\n    Pick pts{nCount};\n    IF DInput(di1) = 1 THEN\n      Pick b;\n" \
                    "    ENDIF\n"
    src, _, path = _rapid(tmp_path, rng, body, decl=ELEMENTS)
    found = read_program(path).unsupported
    assert found and all("nCount" in f.message for f in found)
    with pytest.raises(InputError, match="nCount"):
        run_program("irb140", "deformations/exaggerated.csv", path, tmp_path / "out.mod")
    assert not (tmp_path / "out.mod").exists()


# ----- --timed: each run of a call at its own minute

LAW = LinearRamp(2.0)  # (the cycle's motions, some 0.1 to 0.26 min in, at 5 % to 13 % of the table: apart)


def _timed(tmp_path, rng, body):
    src, T, path = _rapid(tmp_path, rng, body.replace("{cond}", INPUT), approach="Offs(p, 0, 0, 50)")
    path.write_text(src.replace("    MoveL p, v100", "    MoveL Offs(p, 0, 0, 0), v100"))  # (the text at the motion)
    table, out = small_table(rng), tmp_path / "cell_out.mod"
    report = run_program("irb140", table, path, out, options=CompensationOptions(time_law=LAW),
                         program_options=ProgramOptions(timed=True))
    return T, table, out, report


def test_timed_a_call_in_a_counted_loop_has_one_entry_a_pass(tmp_path, rng):
    body = "    FOR i FROM 1 TO 3 DO\n      nCount := i;\n      Pick a;\n    ENDFOR\n    IF {cond} THEN\n      Pick b;\n" \
           "    ENDIF\n"
    T, table, out, report = _timed(tmp_path, rng, body)
    written = out.read_text()
    assert "      tcPassN1 := i;\n      Pick a;\n" in written and "      tcPassN1 := 4;\n      Pick b;\n" in written
    assert re.search(r"LOCAL CONST robtarget tcPassT1\{4\}", written)
    minutes = np.array([row.minute_last for row in report.rows])
    assert len(minutes) == 8 and np.all(np.diff(minutes) > 0)
    taken = tmp_path / "cell_on.mod"
    taken.write_text(written.replace(INPUT, "TRUE"))
    chain, reread = load_robot("irb140"), read_program(taken)
    q, status = controller_joints(chain, reread)
    assert np.all(status == 0) and len(q) == len(minutes)
    reached = np.stack([transform(*(x[0] for x in fk(deformed_model(chain, table, float(f)), q[k:k + 1])))
                        for k, f in enumerate(LAW.fraction(minutes))])
    reached = reached @ np.stack([pt.T_flange_tcp for pt in reread.points])
    want = np.stack(_lifted(T, "aaab"))
    assert np.max(np.linalg.norm(reached[:, :3, 3] - want[:, :3, 3], axis=1)) < TOLERANCE
    # a snapshot: the three passes need one correction, one entry the call (as before)
    run_program("irb140", table, tmp_path / "cell.mod", out, options=CompensationOptions(time_law=LAW))
    assert "      tcPassN1 := 1;\n      Pick a;\n" in out.read_text()


def test_timed_a_call_in_a_loop_followed_once_and_repeated_is_refused_saying_why(tmp_path, rng):
    body = "    FOR i FROM 1 TO 3 DO\n      Pick a;\n    ENDFOR\n    IF {cond} THEN\n      Pick b;\n    ENDIF\n"
    with pytest.raises(InputError) as info:
        _timed(tmp_path, rng, body)
    message = str(info.value)
    assert "runs MoveJ" in message and "3 times" in message and "no counter known at the call" in message
    assert "--at-minute" in message and info.value.row == _line((tmp_path / "cell.mod").read_text(), "Pick a;")
    assert not (tmp_path / "cell_out.mod").exists()
