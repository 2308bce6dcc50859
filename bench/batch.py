"""A batch of robot programs (``compensate --program DIR --out-dir OUT --jobs 2``): its cost linear in its size (issue 38).

A folder of ``n`` copies of ``examples/rapid_program.mod`` is compensated by
the command line, in a fresh process, with two workers, for ``n`` = 2 and two
batch sizes (50 and 200; ``--quick``: 25 and 100). The cost per program of a
size is its wall time less the 2-program batch's (the start of the command and
of its two workers), over the programs added: ``(T(n) - T(2)) / (n - 2)``.
Linear means the same cost per program at both sizes: the target is the ratio
of the larger size's to the smaller's, at most :data:`PER_PROGRAM_RATIO`.
Before the fix the parent compared every output with every input and earlier
output (``same_file``, twice per batch), quadratic: 200 copies cost 15 s, 1,000
copies 177 s.

Run: ``.venv/bin/python bench/batch.py [--sizes 50 200]``.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
PROGRAM = REPO / "examples" / "rapid_program.mod"
DEFORMATION = REPO / "deformations" / "exaggerated.csv"
#: The batch sizes compared (programs), and with --quick.
SIZES = (50, 200)
SIZES_QUICK = (25, 100)
#: Worker processes of every batch (``--jobs``).
JOBS = 2
#: Linear: the cost per program at the larger size within this factor of the smaller size's.
PER_PROGRAM_RATIO = 1.5


def batch_seconds(tmp: Path, n: int) -> float:
    """Wall time [s] of ``thermocomp compensate --program DIR --out-dir OUT --jobs 2`` over ``n`` copies."""
    src, out = tmp / f"programs{n}", tmp / f"out{n}"
    for folder in (src, out):
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir()
    for k in range(n):
        shutil.copyfile(PROGRAM, src / f"p{k:05d}.mod")
    command = [str(Path(sys.executable).with_name("thermocomp")), "compensate", "--robot", "irb140", "--deformation",
               str(DEFORMATION), "--program", str(src), "--out-dir", str(out), "--jobs", str(JOBS), "--no-progress"]
    t0 = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    if done.returncode != 0 or len(list(out.iterdir())) != n:
        raise RuntimeError(f"the batch of {n} failed (exit {done.returncode}): {done.stderr[-2000:]}")
    return seconds


def measure(tmp: Path, sizes: tuple[int, int] = SIZES) -> dict:
    """The wall times of batches of 2 and ``sizes`` programs, their cost per program and its ratio."""
    base = batch_seconds(tmp, 2)
    walls = {n: batch_seconds(tmp, n) for n in sizes}
    per = {n: (walls[n] - base) / (n - 2) for n in sizes}
    return {"base_s": base, "wall_s": walls, "per_program_s": per, "ratio": per[sizes[1]] / per[sizes[0]],
            "sizes": sizes}


def report_lines(result: dict) -> list[str]:
    lines = [f"2 programs (the start of the command and its {JOBS} workers): {result['base_s']:.1f} s"]
    for n in result["sizes"]:
        lines.append(f"{n} programs: {result['wall_s'][n]:.1f} s, {1e3 * result['per_program_s'][n]:.0f} ms per "
                     "program added")
    lines.append(f"cost per program, {result['sizes'][1]} / {result['sizes'][0]}: {result['ratio']:.2f}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs=2, default=SIZES, help="the two batch sizes (programs)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="thermocomp-bench-batch-") as tmp:
        result = measure(Path(tmp), tuple(args.sizes))
    for line in report_lines(result):
        print(line)
    verdict = "MET" if result["ratio"] <= PER_PROGRAM_RATIO else "MISSED"
    print(f"{verdict}: at most {PER_PROGRAM_RATIO:g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
