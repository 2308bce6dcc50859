"""One compensation run in a fresh process, for a clean peak-memory figure.

Usage (from bench/run.py)::

    python bench/worker.py TARGETS.csv OUT.csv [--no-out | --read-only] [--starts N] [--chunk-rows N] [--baseline]

Runs :func:`thermocomp.run_compensation` on the IRB140 with the exaggerated
table (linear ramp to 200 min) and prints one JSON object: wall time [s],
solver seconds, rows, status counts, largest errors [m, rad], and the
process's peak resident memory [MiB] after the imports and at the end
(:func:`peak_mib`); with ``--baseline``, after the run, the grid's compute per row in
this process (:func:`shapes.grid_compute_us`), the baseline of its cost per row. ``--no-out`` runs
without a results file (and without keeping results); ``--read-only`` only
reads the targets file, in the pipeline's chunks.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path

import thermocomp as tc
from thermocomp.io.targets_csv import iter_targets_csv

REPO = Path(__file__).resolve().parent.parent
DEFORMATION = REPO / "deformations" / "exaggerated.csv"


def peak_mib() -> float:
    """Peak resident memory of this process [MiB].

    Linux's ``VmHWM`` (the high-water mark of this process image): unlike
    ``ru_maxrss``, which Linux carries over an ``exec`` from the parent
    process, it starts afresh in the new program.
    """
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0  # kB
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # KiB on Linux


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("targets")
    parser.add_argument("out")
    parser.add_argument("--starts", type=int, default=None, help="CompensationOptions.starts (default: the library's)")
    parser.add_argument("--chunk-rows", type=int, default=None, help="CompensationOptions.chunk_rows")
    parser.add_argument("--baseline", action="store_true", help="then measure the grid's compute per row")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--no-out", action="store_true", help="compensate without writing or keeping results")
    mode.add_argument("--read-only", action="store_true", help="only read the targets file")
    args = parser.parse_args(argv)
    changes = {}
    if args.starts is not None:
        changes["starts"] = args.starts
    if args.chunk_rows is not None:
        changes["chunk_rows"] = args.chunk_rows
    options = tc.CompensationOptions(**changes)
    baseline = peak_mib()
    if args.read_only:
        t0 = time.perf_counter()
        rows = sum(part.n_targets for part in iter_targets_csv(args.targets, options.chunk_rows, n_joints=6))
        json.dump({"wall_s": time.perf_counter() - t0, "rows": rows, "rss_after_imports_mib": baseline,
                   "rss_peak_mib": peak_mib()}, sys.stdout)
        return 0
    out = None if args.no_out else args.out
    t0 = time.perf_counter()
    report = tc.run_compensation(tc.CompensationJob("irb140", DEFORMATION, targets=args.targets, out=out,
                                                    options=options, allow_failures=True, keep_results=False))
    wall = time.perf_counter() - t0
    peak = peak_mib()  # (before the baseline's runs)
    grid_us = None
    if args.baseline:
        from shapes import grid_compute_us  # (bench/, this script's folder)

        grid_us = grid_compute_us()
    s = report.summary
    json.dump({
        "wall_s": wall,
        "solver_s": s.solver_seconds,
        "phase_s": s.phase_seconds,
        "compute_s": s.phase_seconds["nominal configurations"] + s.phase_seconds["solving"],
        "rows": s.n_rows,
        "status": s.status_counts,
        "max_position_m": s.max_position_error,
        "max_orientation_rad": s.max_orientation_error,
        "uncompensated_max_position_m": s.uncompensated_max_position,
        "rss_after_imports_mib": baseline,
        "rss_peak_mib": peak,
        "grid_compute_us": grid_us,
        "out_bytes": 0 if out is None else Path(out).stat().st_size,
    }, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
