"""Start-up: what a user waits for, wall seconds of whole commands in fresh processes (issue 36).

``thermocomp --help`` (the overview: no command's parser is built) and the README's ``make demo`` command
(the paper's 50 targets x 201 minutes), without its plot (the target) and with it (``--plot``, what
``make demo`` runs: the plot's cost is reported beside). Each is run once untimed (the files in the page
cache: warm), then ``repeats`` times, each in a fresh process; the figure is the median wall time, with the
median CPU seconds (user + system) beside it, since wall time on a shared machine counts the other
processes' turns too.

Run alone: ``.venv/bin/python bench/startup.py [--repeats 7]``.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
THERMOCOMP = Path(sys.executable).parent / "thermocomp"
#: The targets (issue 36): wall seconds, warm.
HELP_WALL_S = 0.3
DEMO_WALL_S = 1.0


def _timed(argv: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds (user + system) of ``argv`` run to completion in a fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(argv, cwd=REPO, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _median_of(argv: list[str], repeats: int) -> dict[str, float]:
    _timed(argv)  # warm: the files in the page cache
    runs = [_timed(argv) for _ in range(repeats)]
    return {"wall_s": statistics.median(w for w, _ in runs), "cpu_s": statistics.median(c for _, c in runs),
            "walls": [w for w, _ in runs]}


def run(repeats: int = 7) -> dict[str, dict[str, float]]:
    """The median wall and CPU seconds of each command of the module docstring."""
    with tempfile.TemporaryDirectory(prefix="thermocomp-bench-startup-") as folder:
        tmp = Path(folder)
        demo = [str(THERMOCOMP), "compensate", "--robot", "irb140", "--deformation", "deformations/exaggerated.csv",
                "--targets", "examples/targets_random50.csv", "--out", str(tmp / "demo.csv"), "--no-progress"]
        return {"help": _median_of([str(THERMOCOMP), "--help"], repeats),
                "demo": _median_of(demo, repeats),
                "demo with its plot": _median_of(demo + ["--plot", str(tmp / "demo.png")], max(3, repeats // 2))}


def report_lines(seconds: dict[str, dict[str, float]]) -> list[str]:
    lines = [f"{name:<28} {s['wall_s']:6.2f} s wall, {s['cpu_s']:5.2f} s CPU (median of {len(s['walls'])}: "
             + ", ".join(f"{w:.2f}" for w in s["walls"]) + ")" for name, s in seconds.items()]
    plot = seconds["demo with its plot"]["wall_s"] - seconds["demo"]["wall_s"]
    lines.append(f"the plot (--plot, part of make demo) adds {plot:.2f} s wall, "
                 f"{seconds['demo with its plot']['cpu_s'] - seconds['demo']['cpu_s']:.2f} s CPU")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args(argv)
    for line in report_lines(run(args.repeats)):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
