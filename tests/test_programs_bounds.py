"""Nothing hangs; reading is cheap (issue 35 item 3): the work of reading a program, counted in statements run
(``RobotProgram.extra["statements_run"]``), not in seconds (wall times are ``make bench``'s).

Programs written from the manuals' syntax (Universal Robots, "The URScript Programming Language"; ABB, "RAPID
Instructions, Functions and Data types"): a URCap-like preamble of helpers that poll in loops of unknown count,
return from inside them, keep counters and a history, wrap motions in an ``if`` on a run-time flag, and a thread,
before a main program of fixed waypoints; loops that move nothing (forever, on an input, counted a million times);
a loop of unknown count feeding a motion's data. Rules: a loop or branch of unknown course that moves nothing is
passed over (never unrolled), what it assigns known only while running after it, so a motion reading that is
refused naming it and its line; a counted loop that moves nothing is unrolled only while it is short; every input
ends within the stated statement bound with a message naming the statement.
"""

from __future__ import annotations

import numpy as np
import pytest
from program_builders import urcap_like

import thermocomp.programs.calls as calls
import thermocomp.programs.urscript_flow as flow
from thermocomp.errors import InputError
from thermocomp.geometry.rotations import matrix_from_rotvec, transform
from thermocomp.programs.rapid import rapid_program_from_text
from thermocomp.programs.urscript import urscript_program_from_text


def _T(values) -> np.ndarray:
    """The pose ``p[x, y, z, rx, ry, rz]`` [m, rad] as a 4x4 transform, then the TCP offset of :data:`TOOL`."""
    v = np.asarray(values, dtype=float)
    return transform(matrix_from_rotvec(v[3:]), v[:3])


# ----- URScript

def _read_at_30_a_line(monkeypatch, read, text: str, name: str):
    """Read ``text`` (over 3,000 lines) with the statement bound set to 30 a line of it (past it the read is
    refused): nothing refused, and the statements run within that bound."""
    n_lines = text.count("\n")
    assert n_lines > 3000
    monkeypatch.setattr(calls, "MAX_STATEMENTS_RUN", 0)
    monkeypatch.setattr(calls, "STATEMENTS_PER_LINE", 30)
    prog = read(text, name)
    assert prog.unsupported == ()
    assert 0 < prog.extra["statements_run"] <= 30 * n_lines
    return prog


def test_a_3000_line_urcap_like_export_reads_in_work_linear_in_its_size(monkeypatch, rng):
    """Within 30 statements run a line of the file (the bound set so: past it the read is refused), every fixed
    waypoint compensated at its pose with the tool the preamble sets, the pattern's motions under the dispatcher's
    condition compensated too, nothing refused."""
    text, lines, poses = urcap_like(levels=4, per_level=82, patterns=6, waypoints=10, rng=rng)
    prog = _read_at_30_a_line(monkeypatch, urscript_program_from_text, text, "urcap.script")
    at = {m.statement.line: m for m in prog.motions}
    assert set(lines) <= set(at)
    tool = _T([0, 0, 0.15, 0, 0, 0])
    for line, pose in zip(lines, poses):
        point = at[line].points[-1]
        np.testing.assert_allclose(point.T_world_tcp, _T(pose), atol=1e-12)
        np.testing.assert_allclose(point.T_flange_tcp, tool, atol=1e-12)


def test_a_loop_of_unknown_count_feeding_a_motion_is_refused_naming_the_variable_and_its_line():
    text = ("def prog():\n"
            "  global offset = 0.0\n"
            "  home = p[0.4, 0.1, 0.3, 0.0, 3.14, 0.0]\n"
            "  while (get_standard_digital_in(0) == False):\n"
            "    offset = offset + 0.01\n"
            "    sync()\n"
            "  end\n"
            "  movel(pose_trans(home, p[offset, 0, 0, 0, 0, 0]), a=1.2, v=0.25)\n"
            "  movel(home, a=1.2, v=0.25)\n"
            "end\n")
    prog = urscript_program_from_text(text, "poll.script")
    assert [m.statement.line for m in prog.motions] == [9]
    np.testing.assert_allclose(prog.motions[0].points[-1].T_world_tcp, _T([0.4, 0.1, 0.3, 0, 3.14, 0]), atol=1e-12)
    assert [f.line for f in prog.unsupported] == [8]
    assert "offset" in prog.unsupported[0].message and "line 5" in prog.unsupported[0].message
    assert prog.extra["statements_run"] <= 8  # (the loop passed over: its body never run)


@pytest.mark.parametrize(("before", "known"), [("home", True), ("away", False)])
def test_a_return_inside_a_polling_loop_joins_the_function_end(before, known):
    """``wait_then_set`` may return from inside its polling loop (target unchanged) or set the target after it:
    the target is known after the call only where both paths give it the same pose. Called 500 times, each call
    costs the same few statements (the loop is never unrolled)."""
    calls = "\n".join("  wait_then_set()" for _ in range(500))
    text = ("def prog():\n"
            "  global home = p[0.4, 0.2, 0.3, 0.0, 3.14, 0.0]\n"
            "  global away = p[0.4, -0.2, 0.3, 0.0, 3.14, 0.0]\n"
            f"  global target = {before}\n"
            "  def wait_then_set():\n"
            "    while (not get_standard_digital_in(0)):\n"
            "      if (get_standard_digital_in(1)):\n"
            "        return False\n"
            "      end\n"
            "      sync()\n"
            "    end\n"
            "    global target = home\n"
            "    return True\n"
            "  end\n"
            f"{calls}\n"
            "  movel(target, a=1.2, v=0.25)\n"
            "end\n")
    prog = urscript_program_from_text(text, "ret.script")
    line = 15 + 500
    if known:
        assert prog.unsupported == () and [m.statement.line for m in prog.motions] == [line]
        np.testing.assert_allclose(prog.motions[0].points[-1].T_world_tcp, _T([0.4, 0.2, 0.3, 0, 3.14, 0]),
                                   atol=1e-12)
    else:
        assert prog.motions == () or [m.statement.line for m in prog.motions] != [line]
        assert [f.line for f in prog.unsupported] == [line] and "target" in prog.unsupported[0].message
    assert prog.extra["statements_run"] <= 10 * 500


def test_a_long_counted_loop_that_moves_nothing_is_not_unrolled_past_its_bound():
    """90,000 passes of a call that assigns a global: unrolled only up to MAX_QUIET_WORK statements, then
    followed as a loop of unknown count (the global it changes known only while running: the motion reading it
    refused naming it); 100 passes stay unrolled, the global known, the motion compensated."""
    def script(passes: int) -> str:
        return ("def prog():\n  global x = 0\n  def helper():\n    global x = x + 1\n    global x = x - 1\n  end\n"
                f"  i = 0\n  while (i < {passes}):\n    helper()\n    i = i + 1\n  end\n"
                "  movel(pose_trans(p[0.4, 0.1, 0.3, 0.0, 3.14, 0.0], p[x, 0, 0, 0, 0, 0]), a=1.2, v=0.25)\nend\n")
    long = urscript_program_from_text(script(90_000), "long.script")
    assert long.extra["statements_run"] <= flow.MAX_QUIET_WORK + 50
    assert [f.line for f in long.unsupported] == [12] and "x" in long.unsupported[0].message
    short = urscript_program_from_text(script(100), "short.script")
    assert short.unsupported == () and len(short.motions) == 1
    np.testing.assert_allclose(short.motions[0].points[-1].T_world_tcp, _T([0.4, 0.1, 0.3, 0, 3.14, 0]), atol=1e-12)


# ----- RAPID

_ROBTARGET = "[[{x},{y},{z}],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]]"


def rapid_cell(helpers: int, waypoints: int, rng) -> tuple[str, list[int], np.ndarray]:
    """A RAPID module as a cell's library writes it: ``helpers`` PROCs that move nothing (each polls an input in
    a ``WHILE``, branches on another, keeps a counter, calls the one before it, in chains of 8), a TRAP (never connected), then
    ``main``: a ``WHILE TRUE`` production loop polling a start input and moving through ``waypoints`` fixed
    robtargets, calling helpers between them. Returns the text, the motions' lines and positions [mm]."""
    xyz = np.round(np.column_stack([rng.uniform(400, 600, waypoints), rng.uniform(-200, 200, waypoints),
                                    rng.uniform(300, 500, waypoints)]), 3)
    out = ["MODULE Cell", "  VAR num count := 0;", "  VAR num state := 0;", "  VAR bool done := FALSE;"]
    for i, (x, y, z) in enumerate(xyz):
        out.append(f"  CONST robtarget p{i + 1} := {_ROBTARGET.format(x=f'{x:.3f}', y=f'{y:.3f}', z=f'{z:.3f}')};")
    for k in range(helpers):
        out += [f"  PROC helper{k}()", "    WHILE DInput(di1) = 0 DO", "      WaitTime 0.05;", "    ENDWHILE",
                "    IF DInput(di2) = 1 THEN", "      state := 1;", "    ELSE", "      state := 2;", "    ENDIF",
                "    Incr count;", "    done := TRUE;"]
        if k % 8:  # (chains of 8 calls)
            out.append(f"    helper{k - 1};")
        out.append("  ENDPROC")
    out += ["  TRAP on_stop", "    StopMove;", "    done := FALSE;", "  ENDTRAP",
            "  PROC main()", "    WHILE TRUE DO", "      WaitDI di0, 1;"]
    lines = []
    for i in range(waypoints):
        out.append(f"      MoveL p{i + 1}, v500, fine, tool0;")
        lines.append(len(out))
        out.append(f"      helper{(i * 7) % helpers};")
    out += ["    ENDWHILE", "  ENDPROC", "ENDMODULE", ""]
    return "\n".join(out), lines, xyz


def test_a_3000_line_rapid_cell_with_polling_helpers_reads_in_work_linear_in_its_size(monkeypatch, rng):
    text, lines, xyz = rapid_cell(helpers=230, waypoints=12, rng=rng)
    prog = _read_at_30_a_line(monkeypatch, rapid_program_from_text, text, "cell.mod")
    assert [m.statement.line for m in prog.motions] == lines
    np.testing.assert_allclose(np.stack([p.T_world_tcp[:3, 3] for p in prog.points]), xyz / 1000.0, atol=1e-12)


def test_a_rapid_for_of_a_million_passes_that_moves_nothing_is_followed_once():
    def module(passes: int) -> str:
        return ("MODULE M\n"
                f"  CONST robtarget p10 := {_ROBTARGET.format(x=500, y=0, z=400)};\n"
                "  VAR num x := 0;\n"
                "  PROC helper()\n    x := x + 1;\n    x := x - 1;\n  ENDPROC\n"
                "  PROC main()\n"
                f"    FOR i FROM 1 TO {passes} DO\n      helper;\n    ENDFOR\n"
                "    MoveL Offs(p10, x, 0, 0), v100, fine, tool0;\n"
                "    MoveL p10, v100, fine, tool0;\n"
                "  ENDPROC\nENDMODULE\n")
    long = rapid_program_from_text(module(1_000_000), "long.mod")
    assert long.extra["statements_run"] <= 20
    assert [m.statement.line for m in long.motions] == [13]
    assert [f.line for f in long.unsupported] == [12] and "x" in long.unsupported[0].message.lower()
    short = rapid_program_from_text(module(10), "short.mod")  # (short: unrolled, x known)
    assert short.unsupported == () and [m.statement.line for m in short.motions] == [12, 13]
    np.testing.assert_allclose(short.points[0].T_world_tcp[:3, 3], [0.5, 0.0, 0.4], atol=1e-12)


def test_every_rapid_module_ends_within_the_statement_bound_with_a_message(monkeypatch):
    """A FOR the reader must unroll (its motion's target follows the counter), past a bound of 200 statements:
    refused naming the statement, with the bound."""
    monkeypatch.setattr(calls, "MAX_STATEMENTS_RUN", 200)
    monkeypatch.setattr(calls, "STATEMENTS_PER_LINE", 0)
    text = ("MODULE M\n"
            f"  CONST robtarget p10 := {_ROBTARGET.format(x=500, y=0, z=400)};\n"
            "  VAR num x := 0;\n"
            "  PROC main()\n"
            "    FOR i FROM 1 TO 500 DO\n      x := x + 1;\n      WaitTime 0.01;\n    ENDFOR\n"
            "    MoveL p10, v100, fine, tool0;\n"
            "  ENDPROC\nENDMODULE\n")
    with pytest.raises(InputError) as refusal:
        rapid_program_from_text(text, "bound.mod")
    assert refusal.value.row in (6, 7) and "more than 200 statements" in str(refusal.value)


def test_counting_a_for_loops_passes_is_no_read_of_the_cycle():
    """What a routine unrolls to is counted wherever its summary is first needed (here: an ERROR handler's, when its
    routine starts), a FOR's passes from the values declared: that count reads nothing. A handler that never runs
    here counts ``n`` (declared 3) in its FOR's bound; the cycle then gives ``n`` another value: no read of the cycle
    came before it, so nothing is refused and the motions are read (read by the count, the next cycle would have
    read 5 where this one read 3, a refusal of a program that never reads ``n``)."""
    text = ("MODULE M\n"
            f"  CONST robtarget p10 := {_ROBTARGET.format(x=500, y=0, z=400)};\n"
            "  VAR num n := 3;\n"
            "  PROC main()\n"
            "    MoveL p10, v100, fine, tool0;\n"
            "    n := 5;\n"
            "  ERROR\n"
            "    FOR i FROM 1 TO n DO\n      WaitTime 0.1;\n    ENDFOR\n"
            "  ENDPROC\nENDMODULE\n")
    prog = rapid_program_from_text(text, "m.mod")
    assert prog.unsupported == ()
    assert [m.statement.line for m in prog.motions] == [5]
    np.testing.assert_allclose(prog.points[0].T_world_tcp[:3, 3], [0.5, 0.0, 0.4], atol=1e-12)
    read = rapid_program_from_text(text.replace("    MoveL", "    MoveL Offs(p10, n, 0, 0), v100, fine, tool0;\n"
                                                "    MoveL"), "r.mod")  # (a motion that reads n: the next cycle's
    assert [f.line for f in read.unsupported] == [5]  # differs)
    assert read.unsupported[0].message.startswith("n is changed at run time (line 7, column 5; it differs from cycle")
