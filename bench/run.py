"""thermocomp benchmarks: ``make bench`` (``.venv/bin/python bench/run.py``).

Sections
    1. The paper's transient case (IRB140, exaggerated table, 50 targets x
       201 minutes = 10,050 solves) through ``thermocomp.run_compensation``.
    2. PyBullet's own IK on the same 10,050 rows (defaults and tuned), the
       baseline every speed figure is compared with, measured in this run.
    3. A 3D-printing toolpath of 100,000 and 1,000,000 timed poses through the
       whole pipeline (CSV in, CSV out), each run in a fresh process for its
       peak memory.
    4. The issue's targets, judged on this run's numbers.

``--quick`` (about a minute) repeats less and stops the toolpath at 100,000
poses (so the 1,000,000-pose targets are not judged). The machine is shared: timings are medians of repeats, and the ratio
columns compare with baselines measured in the same run. Nothing is written
outside a temporary directory. ``--profile`` adds cProfile hot spots.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import platform
import pstats
import sys
import tempfile
import time
from pathlib import Path

import benchutil
import large_programs
import numpy as np
import pybullet_ik
import transient
from benchutil import median, table

import thermocomp as tc

#: Targets of the issue, with the margin "about" is read with on this shared machine.
TARGET_US_PER_SOLVE = 10.0
TARGET_TRANSIENT_SOLVER_S = 0.1
ABOUT = 1.25
#: "1,000,000 poses in seconds" read as: under a minute end to end (CSV in, CSV out).
TARGET_1M_WALL_S = 60.0
#: "Memory not growing": peak RSS at 1,000,000 poses within this factor of 100,000 poses.
MEMORY_GROWTH = 1.2
#: MISSION.md: tuned PyBullet IK measured 17-23 us per solve on these machines.
PYBULLET_TUNED_REFERENCE_US = 20.0


def heading(title: str) -> None:
    print(f"\n== {title} " + "=" * max(0, 76 - len(title)), flush=True)


def verdict(ok: bool | None) -> str:
    return "not measured" if ok is None else ("met" if ok else "MISSED")


def profile_text(fn, limit: int = 14) -> str:
    profiler = cProfile.Profile()
    profiler.runcall(fn)
    buf = io.StringIO()
    stats = pstats.Stats(profiler, stream=buf)
    stats.sort_stats("tottime").print_stats(limit)
    lines = [ln for ln in buf.getvalue().splitlines() if ln.strip()]
    total = next(ln.strip() for ln in lines if "function calls" in ln)
    start = next(i for i, ln in enumerate(lines) if ln.lstrip().startswith("ncalls"))
    return "\n".join([total, *lines[start:]])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="thermocomp benchmarks (see bench/run.py's docstring)")
    parser.add_argument("--quick", action="store_true", help="about a minute: fewer repeats, toolpath up to 100,000 poses")
    parser.add_argument("--profile", action="store_true", help="print cProfile hot spots of the transient case and a toolpath")
    parser.add_argument("--budget", type=float, default=None,
                        help="seconds the whole run may take; toolpath runs predicted to overrun are skipped "
                             "(default 570, --quick 75)")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    budget = args.budget if args.budget is not None else (75.0 if args.quick else 570.0)
    deadline = start + budget
    repeats, repeats_out, pb_repeats = (3, 1, 1) if args.quick else (7, 3, 3)

    import pybullet  # noqa: F401  - version line; imported here once so its banner goes first

    print(f"thermocomp benchmarks{' (--quick)' if args.quick else ''}: python {platform.python_version()}, "
          f"numpy {np.__version__}, {os.cpu_count()} cores, load average {benchutil.load_average()}")

    heading("1. Transient case: IRB140, exaggerated table ramped over 200 min, 50 targets x 201 minutes")
    tr = transient.run(repeats, repeats_out)
    for line in transient.report_lines(tr):
        print(line)

    heading("2. PyBullet's own IK on the same rows (baseline)")
    pb = pybullet_ik.run(transient.DEFORMATION, transient.TARGETS, tr.minutes, tr.q_minute0, pb_repeats)
    print(f"pybullet {pb.version}; {pb.minutes} deformed URDFs written in {pb.urdf_seconds:.2f} s and loaded in "
          f"{pb.load_seconds:.2f} s (not timed below); warm start: PyBullet's own solution at the previous "
          "minute, thermocomp's nominal angles at minute 0; timed: the calculateInverseKinematics call "
          + ("with" if pb.reset_in_timed_loop else "only (no resetJointState)") + f"; {pb_repeats} pass(es), median")
    print(f"resetting the joint state to the warm start before the call "
          f"{'CHANGES' if pb.reset_in_timed_loop else 'does not change'} PyBullet's answer when currentPositions "
          f"is given (largest difference {pb.reset_difference:.1e} rad on a sample); "
          f"the 6 resets would cost {pb.reset_us:.1f} us per solve")
    us_ref = tr.us_per_solve
    rows = [
        pybullet_ik.engine_row("thermocomp (solver time)", us_ref, us_ref, tr.position_error, tr.orientation_error),
        pybullet_ik.engine_row("thermocomp (whole call, no file)", tr.wall_us_per_row, us_ref,
                               tr.position_error, tr.orientation_error),
    ]
    for e in pb.engines.values():
        rows.append(pybullet_ik.engine_row(e.name, e.us_per_solve, us_ref, e.position_error, e.orientation_error))
    print(table(["engine", "us/solve", "x thermocomp", "max pos m", "median pos m", "max ori rad", "solved %"], rows))
    print("solved = within 1e-6 m and 1e-6 rad, measured with thermocomp's fk of the deformed robot at the returned angles")
    tuned = pb.engines["tuned"]
    print("PyBullet spread over passes: " + "; ".join(
        f"{e.name.split(', ')[1]} " + ", ".join(f"{1e6 * s / e.n_rows:.1f}" for s in e.seconds) + " us"
        for e in pb.engines.values()))

    heading("3. Toolpath: timed print path, CSV in and out, each run in a fresh process")
    with tempfile.TemporaryDirectory(prefix="thermocomp-bench-toolpath-") as tmp:
        section = large_programs.Section(Path(tmp), deadline)
        if args.quick:
            section.ladder("A", [100_000])
            section.ladder("B", [10_000])
        else:
            section.ladder("A", [100_000, 1_000_000])
            section.run("A", 100_000, "read-only")
            section.run("A", 100_000, "no-out")
            section.ladder("B", [10_000, 100_000, 1_000_000])
        for line in large_programs.report_lines(section, tuned.us_per_solve):
            print(line)
        profile_file = section.files.get(("A", 100_000))
        if args.profile:
            heading("Profile (cProfile, by own time)")
            print("transient case, no file:")
            print(profile_text(lambda: tc.run_compensation(
                transient.ROBOT, transient.DEFORMATION, transient.TARGETS)))
            if profile_file is not None:
                print("\ntoolpath variant A, 100,000 poses, with results file:")
                print(profile_text(lambda: tc.run_compensation(
                    transient.ROBOT, transient.DEFORMATION, profile_file, out=Path(tmp) / "profiled.csv",
                    keep_results=False)))

    heading("4. Targets (judged on this run's numbers)")
    speed = tuned.us_per_solve / PYBULLET_TUNED_REFERENCE_US
    print(f"machine speed this run: tuned PyBullet IK {tuned.us_per_solve:.1f} us/solve vs "
          f"{PYBULLET_TUNED_REFERENCE_US:g} us in MISSION.md's table, i.e. this run is x{speed:.2f} as slow; "
          "'normalised' = measured / that factor")
    by = {(r.variant, r.poses, r.mode): r for r in section.runs if not r.skipped}
    big = by.get(("A", 1_000_000, "out"))
    small = by.get(("A", 100_000, "out"))
    lines = []

    def target(text: str, value: str, ok: bool | None, note: str = "") -> None:
        lines.append([text, value, verdict(ok), note])

    limit_us = TARGET_US_PER_SOLVE * ABOUT
    target(f"~{TARGET_US_PER_SOLVE:g} us per solve amortised: transient, solver time", f"{tr.us_per_solve:.1f} us",
           tr.us_per_solve <= limit_us, f"<= {limit_us:g} us; normalised {tr.us_per_solve / speed:.1f} us")
    target(f"~{TARGET_US_PER_SOLVE:g} us per solve amortised: transient, whole call", f"{tr.wall_us_per_row:.1f} us",
           tr.wall_us_per_row <= limit_us, f"normalised {tr.wall_us_per_row / speed:.1f} us")
    r = big or small
    if r is not None:
        us = 1e6 * r.data["solver_s"] / r.poses
        target(f"~{TARGET_US_PER_SOLVE:g} us per solve amortised: toolpath A {r.poses:,}, solver time", f"{us:.1f} us",
               us <= limit_us, f"normalised {us / speed:.1f} us")
    else:
        target(f"~{TARGET_US_PER_SOLVE:g} us per solve amortised: toolpath", "-", None)
    limit_s = TARGET_TRANSIENT_SOLVER_S * ABOUT
    solver_s = median(tr.solver)
    target(f"transient case in ~{TARGET_TRANSIENT_SOLVER_S:g} s of solver time", f"{solver_s:.3f} s",
           solver_s <= limit_s, f"<= {limit_s:g} s; normalised {solver_s / speed:.3f} s")
    target("transient case well under 1 s end to end (MISSION)", f"{median(tr.wall):.3f} s",
           median(tr.wall) < 1.0, "run_compensation without a file")
    accurate = (tr.status_counts.get("converged", 0) == tr.n_rows and tr.max_position <= 1e-6)
    target("transient: every row converged, static-case accuracy", f"{tr.max_position:.1e} m",
           accurate, "max position error <= 1e-6 m")
    if big is not None:
        target("1,000,000 poses in seconds (variant A, CSV in and out)", f"{big.wall:.1f} s",
               big.wall <= TARGET_1M_WALL_S,
               f"<= {TARGET_1M_WALL_S:g} s; solver alone {big.data['solver_s']:.1f} s")
        all_ok = big.converged == big.data["rows"] and big.data["max_position_m"] <= 1e-6
        target("1,000,000 poses: every row converged, <= 1e-6 m", f"{big.converged:,} of {big.data['rows']:,}",
               all_ok, f"max {big.data['max_position_m']:.1e} m")
    else:
        why = "--quick" if args.quick else "skipped (see section 3)"
        target("1,000,000 poses in seconds (variant A, CSV in and out)", "-", None, why)
    # Memory: the largest two sizes of variant A that ran (1M vs 100k). Both span several
    # chunks of the pipeline; a one-chunk program's peak is lower and not comparable.
    a_sizes = sorted(p for (v, p, mode) in by if v == "A" and mode == "out")
    if len(a_sizes) >= 2:
        lo, hi = by[("A", a_sizes[-2], "out")], by[("A", a_sizes[-1], "out")]
        growth = hi.data["rss_peak_mib"] / lo.data["rss_peak_mib"]
        per_pose = (hi.data["rss_peak_mib"] - lo.data["rss_peak_mib"]) * 2**20 / (hi.poses - lo.poses)
        target(f"memory not growing with poses (peak RSS {hi.poses:,} / {lo.poses:,})", f"x{growth:.2f}",
               growth <= MEMORY_GROWTH,
               f"<= x{MEMORY_GROWTH:g}; {lo.data['rss_peak_mib']:.0f} -> {hi.data['rss_peak_mib']:.0f} MiB, "
               f"{per_pose:+.0f} B per extra pose")
    else:
        target("memory not growing with poses", "-", None, "needs 100,000 and 1,000,000 poses"
               + (" (--quick)" if args.quick else ""))
    print(table(["target", "measured", "verdict", "threshold / note"], lines))
    b_done = [r for r in section.runs if r.variant == "B" and r.mode == "out" and not r.skipped]
    if b_done:
        r = max(b_done, key=lambda r: r.poses)
        print(f"(not a target) variant B, no reference joints: largest size run {r.poses:,} poses in {r.wall:.1f} s, "
              f"{r.poses / r.wall:,.0f} rows/s, {r.converged:,} of {r.data['rows']:,} converged")
    print(f"\ntotal bench time {time.perf_counter() - start:.0f} s; load average {benchutil.load_average()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
