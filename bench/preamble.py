"""A PolyScope export with a URCap's preamble read warm (issue 35): the shape that hung the URScript reader.

The export is tests/program_builders.urcap_export's: a gripper URCap's installation node as PolyScope copies
it into the program (96 functions in 8 levels, each calling 4 of the level below from an ``if``/``elif``:
2^24 paths through its calls), then a main loop of 12 waypoints, some under an ``if`` on an input or after a
wait for a button; about 2,160 lines. Before issue 35 it did not finish (fan-out^depth walks); the target is
well under a second warm. A copy with four times the preamble (32 levels) checks that the time grows with the
file, not with the paths (at most 4 x 1.5 the time). A generated controller program of many calls (a main loop
dispatching a socket's command to N branches, each calling a logger and a wrapper that checks a flag through a
function, reads where the robot stands and moves: LEonard01.script's shape, whose licence keeps it out of the
repository) read at N and 2N checks that the time grows with the calls, not with their product (at most x2.3).

Run: ``.venv/bin/python bench/preamble.py``.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np
from benchutil import cpu_medians

HERE = Path(__file__).resolve().parent
#: Issue 35: a 2,000-line PolyScope export with a URCap preamble read warm within this many seconds.
READ_S = 0.5
#: Four times the preamble within this factor of four times the time (linear, with room for noise).
LINEAR_FACTOR = 4 * 1.5
#: Branches of the program of many calls (dispatch_text), read at this many and twice as many.
DISPATCH_BRANCHES = 300
#: Twice the branches within this factor of the time (linear, with room for noise).
DISPATCH_FACTOR = 2.3


def export_text(layers: int) -> str:
    sys.path.insert(0, str(HERE.parent / "tests"))
    from program_builders import urcap_export

    return urcap_export(np.random.default_rng(35), layers=layers).text


def read_seconds(text: str, repeats: int = 5) -> tuple[float, float]:
    """Median wall and CPU time of reading ``text`` (the parser built and one reading done first: warm)."""
    from thermocomp.programs.urscript import urscript_program_from_text

    urscript_program_from_text(text, "urcap.script")
    walls, cpus = [], []
    for _ in range(repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        urscript_program_from_text(text, "urcap.script")
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    return statistics.median(walls), statistics.median(cpus)


def machinery_text() -> str:
    """tests/program_builders.urcap_like's 3,000-line export: a URCap's motion machinery (wrappers on a run-time
    flag, polling loops that return, counters, a thread), the shape of a real 5,830-line export that ran into the
    statement bound."""
    sys.path.insert(0, str(HERE.parent / "tests"))
    from program_builders import urcap_like

    return urcap_like(4, 82, 6, 10, np.random.default_rng(35))[0]


def dispatch_text(branches: int) -> str:
    """A controller program of many calls: a main loop reads a command from a socket and dispatches it to
    ``branches`` branches (their choice known only while running: each followed), each calling ``log(i)`` (a global,
    a socket) and ``move_to(p[...])``, which checks a flag through ``ok()``, reads where the robot stands through
    ``where()``, counts its moves and moves to the pose written at the call."""
    out = ["def prog():", "  global halted = 0", "  global moves = 0", "  global last = 0",
           "  def ok():", "    return halted == 0", "  end",
           "  def where():", "    return get_actual_tcp_pose()", "  end",
           "  def move_to(t):", "    if not ok():", "      return False", "    end", "    local here = where()",
           "    global moves = moves + 1", "    movel(t, a=1.2, v=0.25)", "    return True", "  end",
           "  def log(k):", "    global last = k", "    socket_send_line(k)", "  end",
           "  while True:", "    cmd = socket_read_ascii_float(2)"]
    for i in range(branches):
        out += [f"    {'if' if i == 0 else 'elif'} cmd[1] == {i}:", f"      log({i})",
                f"      move_to(p[{0.3 + i % 100 * 0.001:.3f}, 0.2, {0.3 + i // 100 * 0.001:.3f}, 0, 3.14, 0])"]
    return "\n".join([*out, "    end", "  end", "end", ""])


def calls_cpu(texts: dict[str, str], repeats: int) -> dict[str, float]:
    """Median CPU seconds of reading ``texts``, :func:`dispatch_text` at :data:`DISPATCH_BRANCHES` (``"once"``) and
    twice as many (``"twice"``), warm, the two read alternately (a ratio of one run)."""
    from thermocomp.programs.urscript import urscript_program_from_text

    branches = {"once": DISPATCH_BRANCHES, "twice": 2 * DISPATCH_BRANCHES}

    def read(text: str) -> object:
        return urscript_program_from_text(text, "urcap.script")

    read(texts["once"])  # (warm)
    return cpu_medians(read, texts, repeats, branches.__getitem__)


def run(repeats: int = 5) -> dict:
    small, large, machinery = export_text(8), export_text(32), machinery_text()
    (wall, cpu), (wall_x4, cpu_x4) = read_seconds(small, repeats), read_seconds(large, max(1, repeats // 2))
    wall_m, cpu_m = read_seconds(machinery, max(1, repeats // 2))
    calls = {"once": dispatch_text(DISPATCH_BRANCHES), "twice": dispatch_text(2 * DISPATCH_BRANCHES)}
    cpu_calls = calls_cpu(calls, max(1, repeats // 2))
    return {"lines": small.count("\n"), "seconds": wall, "cpu_s": cpu, "lines_x4": large.count("\n"),
            "seconds_x4": wall_x4, "cpu_s_x4": cpu_x4, "lines_machinery": machinery.count("\n"),
            "seconds_machinery": wall_m, "cpu_s_machinery": cpu_m, "lines_calls": calls["once"].count("\n"),
            "cpu_s_calls": cpu_calls["once"], "lines_calls_x2": calls["twice"].count("\n"), "cpu_s_calls_x2": cpu_calls["twice"]}


def report_lines(r: dict) -> list[str]:
    ratio = r["seconds_x4"] / r["seconds"]
    return [f"URCap-preamble export, {r['lines']:,} lines, read warm: {r['seconds']:.3f} s wall, {r['cpu_s']:.3f} s "
            f"CPU (target <= {READ_S:g} s): {'MET' if r['seconds'] <= READ_S else 'MISSED'}",
            f"its preamble four times as deep, {r['lines_x4']:,} lines: {r['seconds_x4']:.3f} s ({r['cpu_s_x4']:.3f} s "
            f"CPU), x{ratio:.2f} "
            f"(target <= x{LINEAR_FACTOR:g}): {'MET' if ratio <= LINEAR_FACTOR else 'MISSED'}",
            f"URCap motion machinery export, {r['lines_machinery']:,} lines, read warm: {r['seconds_machinery']:.3f} s "
            f"wall, {r['cpu_s_machinery']:.3f} s CPU (target <= 2 x {READ_S:g} s for 1.5 x the lines): "
            f"{'MET' if r['seconds_machinery'] <= 2 * READ_S else 'MISSED'}",
            f"program of many calls, {DISPATCH_BRANCHES:,} branches ({r['lines_calls']:,} lines) and "
            f"{2 * DISPATCH_BRANCHES:,} ({r['lines_calls_x2']:,} lines), read warm: {r['cpu_s_calls']:.3f} s and "
            f"{r['cpu_s_calls_x2']:.3f} s CPU, x{calls_ratio(r):.2f} (target <= x{DISPATCH_FACTOR:g}): "
            f"{'MET' if calls_ratio(r) <= DISPATCH_FACTOR else 'MISSED'}"]


def calls_ratio(r: dict) -> float:
    """CPU time reading twice the branches of the program of many calls over that of once."""
    return r["cpu_s_calls_x2"] / r["cpu_s_calls"]


def main() -> int:
    for line in report_lines(run()):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
