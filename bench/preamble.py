"""A PolyScope export with a URCap's preamble read warm (issue 35): the shape that hung the URScript reader.

The export is tests/program_builders.urcap_export's: a gripper URCap's installation node as PolyScope copies
it into the program (96 functions in 8 levels, each calling 4 of the level below from an ``if``/``elif``:
2^24 paths through its calls), then a main loop of 12 waypoints, some under an ``if`` on an input or after a
wait for a button; about 2,160 lines. Before issue 35 it did not finish (fan-out^depth walks); the target is
well under a second warm. A copy with four times the preamble (32 levels) checks that the time grows with the
file, not with the paths (at most 4 x 1.5 the time).

Run: ``.venv/bin/python bench/preamble.py``.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
#: Issue 35: a 2,000-line PolyScope export with a URCap preamble read warm within this many seconds.
READ_S = 0.5
#: Four times the preamble within this factor of four times the time (linear, with room for noise).
LINEAR_FACTOR = 4 * 1.5


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


def run(repeats: int = 5) -> dict:
    small, large, machinery = export_text(8), export_text(32), machinery_text()
    (wall, cpu), (wall_x4, cpu_x4) = read_seconds(small, repeats), read_seconds(large, max(1, repeats // 2))
    wall_m, cpu_m = read_seconds(machinery, max(1, repeats // 2))
    return {"lines": small.count("\n"), "seconds": wall, "cpu_s": cpu, "lines_x4": large.count("\n"),
            "seconds_x4": wall_x4, "cpu_s_x4": cpu_x4, "lines_machinery": machinery.count("\n"),
            "seconds_machinery": wall_m, "cpu_s_machinery": cpu_m}


def report_lines(r: dict) -> list[str]:
    ratio = r["seconds_x4"] / r["seconds"]
    return [f"URCap-preamble export, {r['lines']:,} lines, read warm: {r['seconds']:.3f} s wall, {r['cpu_s']:.3f} s "
            f"CPU (target <= {READ_S:g} s): {'MET' if r['seconds'] <= READ_S else 'MISSED'}",
            f"its preamble four times as deep, {r['lines_x4']:,} lines: {r['seconds_x4']:.3f} s ({r['cpu_s_x4']:.3f} s "
            f"CPU), x{ratio:.2f} "
            f"(target <= x{LINEAR_FACTOR:g}): {'MET' if ratio <= LINEAR_FACTOR else 'MISSED'}",
            f"URCap motion machinery export, {r['lines_machinery']:,} lines, read warm: {r['seconds_machinery']:.3f} s "
            f"wall, {r['cpu_s_machinery']:.3f} s CPU (target <= 2 x {READ_S:g} s for 1.5 x the lines): "
            f"{'MET' if r['seconds_machinery'] <= 2 * READ_S else 'MISSED'}"]


def main() -> int:
    for line in report_lines(run()):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
