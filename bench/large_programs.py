"""Section 3: long timed toolpaths (100,000 and 1,000,000 poses) through the whole pipeline.

Variant A carries reference joints (``q1_deg..q6_deg``), variant B does not
(thermocomp then has to find and continue the configuration along the path
itself). Every run is a fresh ``python bench/worker.py`` process, so its peak
resident memory is its own. Runs that would not fit in the time budget
(predicted linearly from the previous size of the same variant) are skipped
and reported as skipped.
"""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from benchutil import table
from toolpath import Toolpath

HERE = Path(__file__).resolve().parent
#: Margin on a linear prediction of the next run's time.
PREDICTION_MARGIN = 1.2
#: A worker still running this long after the budget's end is stopped [s].
TIMEOUT_GRACE = 60.0


@dataclass
class Run:
    variant: str  # "A" (reference joints) or "B" (none)
    poses: int
    mode: str  # "out", "no-out", "read-only"
    data: dict = field(default_factory=dict)
    skipped: str = ""  # why, when not run

    @property
    def wall(self) -> float:
        return float(self.data.get("wall_s", float("nan")))

    @property
    def converged(self) -> int:
        return int(self.data.get("status", {}).get("converged", 0))

    @property
    def rss_growth(self) -> float:
        """Peak resident memory above the process's after-imports peak [MiB]."""
        return self.data["rss_peak_mib"] - self.data["rss_after_imports_mib"]


@dataclass
class LargeResult:
    runs: list[Run]
    path_facts: dict
    generate_seconds: float
    write_seconds: dict[str, float]


class Section:
    """Generates the toolpath files on demand and runs the workers within a time budget."""

    def __init__(self, tmp: Path, deadline: float) -> None:
        self.tmp = tmp
        self.deadline = deadline
        t0 = time.perf_counter()
        self.toolpath = Toolpath()
        self.generate_seconds = time.perf_counter() - t0
        self.files: dict[tuple[str, int], Path] = {}
        self.write_seconds: dict[str, float] = {}
        self.path_facts: dict = {}
        self.runs: list[Run] = []

    def file(self, variant: str, poses: int) -> Path:
        key = (variant, poses)
        if key not in self.files:
            path = self.tmp / f"toolpath_{variant}_{poses}.csv"
            t0 = time.perf_counter()
            facts = self.toolpath.write(path, poses, with_reference=(variant == "A"))
            self.write_seconds[f"{variant} {poses:,}"] = time.perf_counter() - t0
            self.path_facts[key] = facts
            self.files[key] = path
        return self.files[key]

    def run(self, variant: str, poses: int, mode: str = "out", predicted: float | None = None) -> Run:
        run = Run(variant, poses, mode)
        self.runs.append(run)
        left = self.deadline - time.perf_counter()
        if predicted is not None and predicted > left:
            run.skipped = f"predicted {predicted:.0f} s, {max(left, 0):.0f} s of the budget left"
            return run
        targets = self.file(variant, poses)
        out = self.tmp / f"results_{variant}_{poses}.csv"
        cmd = [sys.executable, str(HERE / "worker.py"), str(targets), str(out)]
        cmd.append(f"--{mode}" if mode != "out" else "--baseline")
        timeout = max(left, 0.0) + TIMEOUT_GRACE
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=timeout)
        except subprocess.TimeoutExpired:  # subprocess.run has killed the worker it started
            run.skipped = f"stopped after {timeout:.0f} s (the budget's end)"
            out.unlink(missing_ok=True)
            return run
        if done.returncode != 0:
            run.skipped = f"worker failed ({done.returncode}): {done.stderr.strip().splitlines()[-1:]}"
            return run
        run.data = json.loads(done.stdout)
        out.unlink(missing_ok=True)  # results files are big; the temp dir goes at the end anyway
        return run

    def ladder(self, variant: str, sizes: list[int]) -> None:
        """Run ``sizes`` in order; each run only when its linear prediction fits the budget."""
        previous: Run | None = None
        for poses in sizes:
            predicted = None
            if previous is not None and previous.data:
                predicted = previous.wall * poses / previous.poses * PREDICTION_MARGIN
            elif previous is not None:
                self.runs.append(Run(variant, poses, "out", skipped="the smaller size did not run"))
                continue
            previous = self.run(variant, poses, "out", predicted)


def report_lines(section: Section, us_reference: float) -> list[str]:
    """Text of section 3; ``us_reference`` is PyBullet's tuned IK per solve in this run [us]."""
    lines = []
    if section.path_facts:
        key = max(section.path_facts, key=lambda k: k[1])
        f = section.path_facts[key]
        lo, hi = f["extent_mm"]
        lines.append(
            f"path: layered spiral print over a bumpy dome, x {lo[0]:.0f}..{hi[0]:.0f} mm, y {lo[1]:.0f}..{hi[1]:.0f} mm, "
            f"z {lo[2]:.0f}..{hi[2]:.0f} mm, tool within {f['tilt_deg']:.0f} deg of straight down, time 0..240 min; "
            f"at {key[1]:,} poses: {f['spacing_mm'][0]:.2f} mm apart (max {f['spacing_mm'][1]:.2f}), "
            f"{f['bytes'] / 1e6:.0f} MB"
        )
    lines.append(f"generated in {section.generate_seconds:.1f} s (knots solved on the nominal robot) + writing "
                 + ", ".join(f"{k}: {v:.1f} s" for k, v in section.write_seconds.items()))
    rows = []
    for r in section.runs:
        label = {"out": "with results file", "no-out": "no file", "read-only": "read targets only"}[r.mode]
        if r.skipped:
            rows.append([f"{r.variant} {label}", f"{r.poses:,}", "skipped", "", "", "", "", "", "", ""])
            continue
        d = r.data
        solver = d.get("solver_s")
        rows.append([
            f"{r.variant} {label}", f"{r.poses:,}", f"{r.wall:.1f}", f"{r.poses / r.wall:,.0f}",
            f"{1e6 * r.wall / r.poses:.1f}",
            "" if solver is None else f"{1e6 * solver / r.poses:.1f}",
            f"{d['rss_peak_mib']:.0f} (+{r.rss_growth:.0f})",
            "" if "status" not in d else f"{100 * r.converged / d['rows']:.2f}",
            "" if "status" not in d else f"{d['max_position_m']:.1e}",
            "" if "status" not in d else f"{d['max_orientation_rad']:.1e}",
        ])
    lines.append(table(["variant / run", "poses", "wall s", "rows/s", "us/row", "solver us/row",
                        "peak RSS MiB (+above imports)", "converged %", "max pos m", "max ori rad"], rows))
    for r in section.runs:
        if r.skipped:
            lines.append(f"  skipped: {r.variant} {r.mode} {r.poses:,}: {r.skipped}")

    by = {(r.variant, r.poses, r.mode): r for r in section.runs if not r.skipped}
    for v in ("A", "B"):
        sizes = sorted(p for (var, p, mode) in by if var == v and mode == "out")
        for small, big in itertools.pairwise(sizes):
            a, b = by[(v, small, "out")], by[(v, big, "out")]
            lines.append(
                f"variant {v}, {big:,} vs {small:,} poses: wall per row x{(b.wall / big) / (a.wall / small):.2f}, "
                f"peak RSS x{b.data['rss_peak_mib'] / a.data['rss_peak_mib']:.2f} "
                f"(above imports x{b.rss_growth / max(a.rss_growth, 1e-9):.2f})"
            )
    for poses in sorted({p for (_, p, mode) in by if mode == "out"}):
        if ("A", poses, "out") in by and ("B", poses, "out") in by:
            a, b = by[("A", poses, "out")], by[("B", poses, "out")]
            lines.append(f"variant B vs A at {poses:,} poses: wall x{b.wall / a.wall:.2f}")
    for poses in sorted({p for (_, p, mode) in by if mode == "read-only"}):
        parts = {mode: by.get(("A", poses, mode)) for mode in ("read-only", "no-out", "out")}
        if all(parts.values()):
            read, no_out, out = (parts[m].wall for m in ("read-only", "no-out", "out"))
            solver = parts["no-out"].data["solver_s"]
            lines.append(
                f"where variant A's {poses:,}-pose run goes: reading the targets {read:.1f} s, "
                f"solver {solver:.1f} s, the rest of the compensation (nominal configurations, reached and "
                f"uncompensated poses, summary) {no_out - read - solver:.1f} s, writing results "
                f"{out - no_out:.1f} s (= with file {out:.1f} s - without {no_out:.1f} s)"
            )
    a = [r for r in section.runs if r.variant == "A" and r.mode == "out" and not r.skipped]
    if a and us_reference > 0:
        r = max(a, key=lambda r: r.poses)
        lines.append(
            f"variant A at {r.poses:,} poses costs {1e6 * r.wall / r.poses:.1f} us per pose end to end, "
            f"{1e6 * r.data['solver_s'] / r.poses:.1f} us in the solver = "
            f"x{1e6 * r.data['solver_s'] / r.poses / us_reference:.2f} one tuned PyBullet IK call in this run"
        )
    return lines
