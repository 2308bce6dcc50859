"""thermocomp benchmarks: ``make bench`` (``.venv/bin/python bench/run.py``).

Sections
    0. Cold start (bench/coldstart.py): CPU seconds of the install step, the demo and a RAPID
       program on an empty compiled-code cache against the same commands warm; then the warm-up
       of this checkout's own cache (``python -m thermocomp.warm_up``), so that no timing below
       includes a compile; then the start-up a user waits for (bench/startup.py): wall seconds of
       ``thermocomp --help`` and of the README's demo command, warm, fresh processes.
    1. The paper's transient case (IRB140, exaggerated table, 50 targets x
       201 minutes = 10,050 solves) through ``thermocomp.run_compensation``.
    2. PyBullet's own IK on the same 10,050 rows (defaults and tuned), the
       baseline every speed figure is compared with, measured in this run.
    3. Program shapes against that grid, per row: the paper's case as a timed
       program, a 50,000-row pick-and-place program jumping among the 50
       targets, and issue 11's robot-program path on a 100,000-motion RAPID module.
    4. A 3D-printing toolpath of 100,000 and 1,000,000 timed poses through the
       whole pipeline (CSV in, CSV out), with reference joints (variant A) and
       without (variant B), each run in a fresh process for its peak memory;
       and the same 100,000-pose toolpath as a RAPID program and as a URScript for the UR5,
       compensated warm, clean and with one finding among its motions (issue 25: within 3 s,
       and no cliff; the median of three alternating fresh-process pairs), bench/programs.py.
    5. The issue's targets, judged on this run's numbers by one rule: a row is
       MET when its measured value is at most its limit (times in seconds,
       ratios as measured / baseline of this run), else MISSED. The shapes' and toolpaths'
       baseline, the grid, is measured right before each sample in the same process (shapes.grid_compute_us).
    4b. A batch of programs (bench/batch.py): cost per program at 50 and 200 programs (--quick: 25 and
       100), linear when within 1.5 of each other (issue 38). RAPID motions to ``Offs`` of a named target read
       against inline ones, per statement (bench/rapid_expressions.py; issue 35, no cliff).

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
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import batch
import benchutil
import coldstart
import large_programs
import live_reload
import numpy as np
import preamble
import programs
import pybullet_ik
import rapid_expressions
import shapes
import startup
import transient
from benchutil import median, table

import thermocomp as tc

#: The issue's targets (issue 10), each judged as measured <= limit.
#: Any program shape within this factor of the grid's cost per row.
SHAPE_RATIO = 2.0
#: The transient case: the whole call (no file) and the solver alone [s].
TARGET_TRANSIENT_WALL_S = 0.100
TARGET_TRANSIENT_SOLVER_S = 0.030
#: A 1,000,000-pose toolpath, CSV in and out [s].
TARGET_1M_WALL_S = 10.0
#: "Flat memory": peak RSS at 1,000,000 poses within this factor of 100,000 poses.
MEMORY_GROWTH = 1.2
#: The solver at least 3x faster than PyBullet's tuned IK on the same rows: our time / theirs <= 1/3.
PYBULLET_RATIO = 1.0 / 3.0
#: Every transient row converged, within the solver's tolerance [m].
ACCURACY_M = 1e-9
#: Motions of the robot-program case (issue 11's RAPID path), as the issue asks (--quick: fewer).
ROBOT_PROGRAM_MOTIONS = 100_000
ROBOT_PROGRAM_MOTIONS_QUICK = 10_000
#: Issue 25: a 100,000-motion program compensated warm within this many seconds, and the same program with one
#: finding among its motions within this factor of the clean one ("no cliff").
PROGRAM_WARM_S = programs.WARM_S
PROGRAM_NO_CLIFF = programs.NO_CLIFF
#: Alternating fresh-process pairs (clean, one finding) behind those figures: their medians (--quick: one).
PROGRAM_PAIRS = 3


def heading(title: str) -> None:
    print(f"\n== {title} " + "=" * max(0, 76 - len(title)), flush=True)


def verdict(measured: float | None, limit: float) -> str:
    """The one rule of every target row: MET when ``measured <= limit``."""
    return "not measured" if measured is None else ("MET" if measured <= limit else "MISSED")


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


#: Seconds the warm-up's program runs may take (a fresh checkout's first run reads the grammars' tables too).
WARM_UP_BUDGET_S = 900.0


def warm_up(tmp: Path) -> float:
    """``python -m thermocomp.warm_up`` (what ``make install`` runs) on this checkout's cache, then a small run of
    each program shape in ``tmp`` (their first reading of the grammars); the seconds it took."""
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "thermocomp.warm_up"], check=True)
    section = large_programs.Section(tmp, deadline=t0 + WARM_UP_BUDGET_S)
    for variant in ("A", "B"):
        section.run(variant, 2_000)
    for language in programs.LANGUAGES:
        programs.measure(tmp, 2_000, language=language)
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="thermocomp benchmarks (see bench/run.py's docstring)")
    parser.add_argument("--quick", action="store_true", help="about a minute: fewer repeats, toolpath up to 100,000 poses")
    parser.add_argument("--profile", action="store_true", help="print cProfile hot spots of the transient case and a toolpath")
    parser.add_argument("--budget", type=float, default=None,
                        help="seconds the whole run may take, its warm-up not counted; toolpath runs predicted to "
                             "overrun are skipped (default 570, --quick 75)")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    budget = args.budget if args.budget is not None else (75.0 if args.quick else 570.0)
    deadline = start + budget
    repeats, repeats_out, pb_repeats = (3, 1, 1) if args.quick else (7, 3, 3)

    import pybullet  # noqa: F401  - version line; imported here once so its banner goes first

    print(f"thermocomp benchmarks{' (--quick)' if args.quick else ''}: python {platform.python_version()}, "
          f"numpy {np.__version__}, {os.cpu_count()} cores, load average {benchutil.load_average()}")

    heading("0. Cold start: an empty compiled-code cache against a warm one (CPU seconds, fresh processes)")
    t0 = time.perf_counter()
    cold = coldstart.run()
    for line in coldstart.report_lines(cold):
        print(line)
    with tempfile.TemporaryDirectory(prefix="thermocomp-bench-warm-up-") as tmp:
        seconds = warm_up(Path(tmp))
    deadline += time.perf_counter() - t0  # (compiles are not the benchmarks' budget)
    print(f"then this checkout's own cache warmed (python -m thermocomp.warm_up): {seconds:.1f} s; every timing below "
          "loads the compiled code, as a user's every run after the install does")

    heading("0b. Start-up: wall seconds of whole commands, warm, each in a fresh process (bench/startup.py)")
    started = startup.run(3 if args.quick else 7)
    for line in startup.report_lines(started):
        print(line)

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

    heading("3. Program shapes against the grid (same robot, table and targets; no files)")
    with tempfile.TemporaryDirectory(prefix="thermocomp-bench-shapes-") as tmp:
        shape_cases = shapes.run(repeats, Path(tmp), ROBOT_PROGRAM_MOTIONS_QUICK if args.quick else
                                 ROBOT_PROGRAM_MOTIONS)
    for line in shapes.report_lines(shape_cases):
        print(line)

    heading("4. Toolpath: timed print path, CSV in and out, each run in a fresh process")
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
        program_poses = ROBOT_PROGRAM_MOTIONS_QUICK if args.quick else ROBOT_PROGRAM_MOTIONS
        print(f"\nthe toolpath's first {program_poses:,} poses as a RAPID module of MoveL (inline robtargets), "
              "clean and with one finding among its motions, each compensated at its own minutes, warm, in a fresh "
              "process (bench/programs.py):")
        rapid_runs = programs.measure(Path(tmp), program_poses, echo=True, pairs=1 if args.quick else PROGRAM_PAIRS)
        print("\nthe same poses for the UR5 as a URScript of movel(p[...]), likewise:")
        ur_runs = programs.measure(Path(tmp), program_poses, echo=True, pairs=1 if args.quick else PROGRAM_PAIRS,
                                   language="urscript")
        profile_file = section.files.get(("A", 100_000))
        if args.profile:
            heading("Profile (cProfile, by own time)")
            print("transient case, no file:")
            print(profile_text(lambda: tc.run_compensation(tc.CompensationJob(
                transient.ROBOT, transient.DEFORMATION, targets=transient.TARGETS))))
            if profile_file is not None:
                print("\ntoolpath variant A, 100,000 poses, with results file:")
                print(profile_text(lambda: tc.run_compensation(tc.CompensationJob(
                    transient.ROBOT, transient.DEFORMATION, targets=profile_file, out=Path(tmp) / "profiled.csv",
                    keep_results=False))))


    heading("4b. A batch of programs (compensate --program DIR --out-dir OUT --jobs 2), fresh processes")
    with tempfile.TemporaryDirectory(prefix="thermocomp-bench-batch-") as tmp:
        batch_run = batch.measure(Path(tmp), batch.SIZES_QUICK if args.quick else batch.SIZES)
    for line in batch.report_lines(batch_run):
        print(line)

    reload_s = live_reload.run()
    print(f"\nthe PyBullet robot reloaded for a new deformation (bench/live_reload.py): median {reload_s * 1e3:.1f} ms")

    n_pairs = programs.INTERLEAVED_QUICK if args.quick else programs.INTERLEAVED
    print(f"\nmodules of {n_pairs:,} motions each followed by an output statement (every motion a run of its own), "
          "read warm against their motions and their other statements read apart (issue 35, no cliff; "
          "bench/programs.py --interleaved):")
    interleaved = [programs.read_interleaved(n_pairs, language, 1 if args.quick else 3) for language in programs.LANGUAGES]
    for r in interleaved:
        print(programs.interleaved_line(r))

    print("\na RAPID module of motions to Offs of a named target against the same path inline, read warm (issue 35, "
          "no cliff; bench/rapid_expressions.py):")
    offs = rapid_expressions.measure(rapid_expressions.MOTIONS_QUICK if args.quick else rapid_expressions.MOTIONS,
                                     1 if args.quick else 3)
    print(rapid_expressions.line(offs))

    print("\na PolyScope export with a URCap's preamble (issue 35), read warm (bench/preamble.py):")
    urcap = preamble.run(3 if args.quick else 7)
    for line in preamble.report_lines(urcap):
        print(line)

    heading("5. Targets (judged on this run's numbers: MET when measured <= limit)")
    by = {(r.variant, r.poses, r.mode): r for r in section.runs if not r.skipped}
    rows = []

    def target(text: str, measured: float | None, limit: float, shown: str, note: str = "") -> None:
        rows.append([text, shown if measured is not None else "-", f"{limit:g}", verdict(measured, limit), note])

    def ratio_row(text: str, ratio: float, compute_us: float, grid_us: float, when: str, extra: str = "") -> None:
        target(text, ratio, SHAPE_RATIO, f"{ratio:.2f}",
               f"compute {compute_us:.1f} us/row vs the grid's {grid_us:.1f} measured {when}{extra}")

    for case in shape_cases[1:]:
        if case.waiting:
            target(f"{case.name}: cost per row / grid", None, SHAPE_RATIO, "-", case.waiting)
            continue
        extra = f"; whole call {case.wall_us:.0f} us/motion" if case.phases else ""
        ratio_row(f"{case.name}: cost per row / grid", case.ratio, case.compute_us, median(case.baseline),
                  "just before", extra)
    for variant in ("A", "B"):
        runs = [r for (v, p, mode), r in by.items() if v == variant and mode == "out"]
        r = max(runs, key=lambda r: r.poses) if runs else None
        label = "reference joints" if variant == "A" else "no reference joints"
        text = f"toolpath variant {variant} ({label}){'' if r is None else f', {r.poses:,} poses'}: cost per row / grid"
        if r is None:
            target(text, None, SHAPE_RATIO, "-")
            continue
        compute_us, grid_us = 1e6 * r.data["compute_s"] / r.poses, r.data["grid_compute_us"]
        ratio_row(text, compute_us / grid_us, compute_us, grid_us, "right after it, in its process")
    for name, r in (("RAPID", rapid_runs), ("URScript", ur_runs)):
        clean = r["clean"]["wall_s"]
        target(f"{name} program, {r['poses']:,} motions, compensated warm [s]", clean, PROGRAM_WARM_S,
               f"{clean:.2f}", f"median of {r['pairs']} fresh process(es), after a {programs.WARM_UP_MOTIONS:,}-"
               f"motion program; solver {r['clean']['solver_s']:.1f} s")
        target(f"{name} program, {r['poses']:,} motions: one finding among its motions / clean", r["ratio"],
               PROGRAM_NO_CLIFF, f"{r['ratio']:.2f}",
               f"{r['finding']['wall_s']:.2f} s vs {clean:.2f} s, median of {r['pairs']} pair(s)")
    for r in interleaved:
        name = "RAPID" if r["language"] == "rapid" else "URScript"
        target(f"{name} module of {r['n']:,} motions each between output statements, read: time / its parts read apart",
               r["ratio"], programs.INTERLEAVED_FACTOR, f"{r['ratio']:.2f}",
               f"{r['mixed']:.2f} s CPU vs {r['motions']:.2f} + {r['others']:.2f} s, median of {r['repeats']}")
    target(f"RAPID module of {offs['n']:,} motions to Offs(p10, ...), read: cost a statement / inline motions'",
           offs["ratio"], rapid_expressions.OFFS_FACTOR, f"{offs['ratio']:.2f}",
           f"{1e6 * offs['offs'] / offs['n']:.0f} vs {1e6 * offs['plain'] / offs['n']:.0f} us a statement, median of "
           f"{offs['repeats']}")
    target(f"URCap-preamble export, {urcap['lines']:,} lines, read warm [s]", urcap["seconds"], preamble.READ_S,
           f"{urcap['seconds']:.3f}", "median in one process; the parse is some four fifths of it")
    target(f"the same, preamble four times as deep ({urcap['lines_x4']:,} lines): time / the 2,000-line one",
           urcap["seconds_x4"] / urcap["seconds"], preamble.LINEAR_FACTOR,
           f"{urcap['seconds_x4'] / urcap['seconds']:.2f}", "linear in the file, not in the paths through its calls")
    target(f"program of many calls, {2 * preamble.DISPATCH_BRANCHES:,} branches: CPU time / {preamble.DISPATCH_BRANCHES:,} "
           "branches'", preamble.calls_ratio(urcap), preamble.DISPATCH_FACTOR, f"{preamble.calls_ratio(urcap):.2f}",
           f"{urcap['cpu_s_calls_x2']:.2f} vs {urcap['cpu_s_calls']:.2f} s CPU: linear in the calls")
    target("first demo after the install step: CPU over the warm demo [s]",
           cold["demo, first"] - cold["demo, warm"], coldstart.DEMO_EXTRA_CPU_S,
           f"{cold['demo, first'] - cold['demo, warm']:.1f}",
           f"{cold['demo, first']:.1f} vs {cold['demo, warm']:.1f} s CPU; the install step itself "
           f"{cold['install step']:.1f} s")
    target("RAPID program after it: CPU over the warm program [s]",
           cold["program, first"] - cold["program, warm"], coldstart.PROGRAM_EXTRA_CPU_S,
           f"{cold['program, first'] - cold['program, warm']:.1f}",
           f"{cold['program, first']:.1f} vs {cold['program, warm']:.1f} s CPU")
    target("PyBullet robot reloaded for a new deformation, median of 11 [s]", reload_s, live_reload.RELOAD_S,
           f"{reload_s:.3f}", "IRB140, DIRECT mode (bench/live_reload.py)")
    target("thermocomp --help, wall, warm [s]", started["help"]["wall_s"], startup.HELP_WALL_S,
           f"{started['help']['wall_s']:.2f}", f"median of {len(started['help']['walls'])} fresh processes; "
           f"{started['help']['cpu_s']:.2f} s CPU")
    target("the README's make demo command (without its plot), wall, warm [s]", started["demo"]["wall_s"],
           startup.DEMO_WALL_S, f"{started['demo']['wall_s']:.2f}",
           f"median of {len(started['demo']['walls'])}; {started['demo']['cpu_s']:.2f} s CPU; --plot adds "
           f"{started['demo with its plot']['wall_s'] - started['demo']['wall_s']:.2f} s wall")
    target("transient case, whole call (no file) [s]", median(tr.wall), TARGET_TRANSIENT_WALL_S,
           f"{median(tr.wall):.3f}", "run_compensation, median")
    target("transient case, solver [s]", median(tr.solver), TARGET_TRANSIENT_SOLVER_S, f"{median(tr.solver):.3f}",
           "summary's solving phase, median")
    big = by.get(("A", 1_000_000, "out"))
    target("1,000,000-pose toolpath, CSV in and out [s]", None if big is None else big.wall, TARGET_1M_WALL_S,
           "" if big is None else f"{big.wall:.1f}",
           ("--quick" if args.quick else "skipped (see section 4)") if big is None else
           "phases: " + ", ".join(f"{k} {v:.1f} s" for k, v in big.data["phase_s"].items()))
    a_sizes = sorted(p for (v, p, mode) in by if v == "A" and mode == "out")
    growth = None
    note = "needs 100,000 and 1,000,000 poses" + (" (--quick)" if args.quick else "")
    if len(a_sizes) >= 2:
        lo, hi = by[("A", a_sizes[-2], "out")], by[("A", a_sizes[-1], "out")]
        growth = hi.data["rss_peak_mib"] / lo.data["rss_peak_mib"]
        note = f"{lo.data['rss_peak_mib']:.0f} -> {hi.data['rss_peak_mib']:.0f} MiB ({lo.poses:,} -> {hi.poses:,})"
    target("flat memory: peak RSS 1,000,000 / 100,000 poses", growth, MEMORY_GROWTH,
           "" if growth is None else f"{growth:.2f}", note)
    tuned_us = tuned.us_per_solve
    target("solver us/solve / PyBullet tuned IK us/solve (same rows)", tr.us_per_solve / tuned_us, PYBULLET_RATIO,
           f"{tr.us_per_solve / tuned_us:.2f}",
           f"{tr.us_per_solve:.1f} vs {tuned_us:.1f} us; PyBullet x{tuned_us / tr.us_per_solve:.2f} slower")
    failed = tr.n_rows - tr.status_counts.get("converged", 0)
    worst = tr.max_position if failed == 0 else float("inf")
    target("transient accuracy: largest position error, every row converged [m]", worst, ACCURACY_M,
           f"{worst:.1e}", f"{failed} rows not converged")
    small, large = batch_run["sizes"]
    target(f"batch of programs: cost per program, {large} / {small} programs", batch_run["ratio"],
           batch.PER_PROGRAM_RATIO, f"{batch_run['ratio']:.2f}",
           f"{1e3 * batch_run['per_program_s'][large]:.0f} vs {1e3 * batch_run['per_program_s'][small]:.0f} ms per "
           f"program added to a 2-program batch ({batch_run['base_s']:.1f} s), --jobs {batch.JOBS}")
    print(table(["target", "measured", "limit", "verdict", "note"], rows))
    print(f"(timings on a shared machine, load average {benchutil.load_average()}: ratios within this run are the "
          "figures to read)")
    print(f"\ntotal bench time {time.perf_counter() - start:.0f} s; load average {benchutil.load_average()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
