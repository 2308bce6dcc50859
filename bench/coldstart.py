"""A first run on a fresh install against a warm one (issue 26): CPU seconds of whole commands.

Each command runs in a fresh process with numba's cache in a temporary folder (``NUMBA_CACHE_DIR``), so the
cache starts empty whatever the checkout holds. CPU seconds (user + system of the child) are the measure: the
machine is shared, and wall time counts the other processes' turns. Measured, in order, on one empty cache:

1. ``python -m thermocomp.warm_up``, what ``make install`` runs (it compiles the whole kinematics engine,
   the results writer and the robot programs' readers);
2. ``make demo``'s command, then the same again (warm);
3. the README's RAPID program, then the same again (warm);

and, on a second empty cache, the demo without the install step (what skipping ``make install`` costs).
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
THERMOCOMP = Path(sys.executable).parent / "thermocomp"
#: The targets (issue 26): CPU a cold command may add over the warm one [s].
DEMO_EXTRA_CPU_S = 10.0
PROGRAM_EXTRA_CPU_S = 2.0


def _cpu(argv: list[str], cache: Path, out: Path) -> float:
    """CPU seconds (user + system) of ``argv`` run to completion with numba's cache in ``cache``."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, cwd=REPO, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def run() -> dict[str, float]:
    """The CPU seconds of each step of the module docstring."""
    with tempfile.TemporaryDirectory(prefix="thermocomp-bench-cold-") as folder:
        tmp = Path(folder)
        demo = [str(THERMOCOMP), "compensate", "--robot", "irb140", "--deformation", "deformations/exaggerated.csv",
                "--targets", "examples/targets_random50.csv", "--out", str(tmp / "demo.csv"), "--no-progress"]
        program = [str(THERMOCOMP), "compensate", "--robot", "irb140", "--deformation",
                   "deformations/exaggerated.csv", "--program", "examples/rapid_program.mod", "--out",
                   str(tmp / "program.mod"), "--no-progress"]
        cache = tmp / "cache"
        seconds = {"install step": _cpu([sys.executable, "-m", "thermocomp.warm_up"], cache, tmp)}
        seconds["demo, first"] = _cpu(demo, cache, tmp)
        seconds["demo, warm"] = _cpu(demo, cache, tmp)
        seconds["program, first"] = _cpu(program, cache, tmp)
        seconds["program, warm"] = _cpu(program, cache, tmp)
        seconds["demo without the install step"] = _cpu(demo, tmp / "cache-2", tmp)
    return seconds


def report_lines(seconds: dict[str, float]) -> list[str]:
    return [f"{name:<34} {value:6.1f} s CPU" for name, value in seconds.items()]
