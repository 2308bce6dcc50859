"""Section 3: program shapes against the grid, on the same robot, table and targets.

Every case runs :func:`thermocomp.run_compensation` in this process, without a
results file, on a program built in memory (no CSV: the files have their own
section), and is compared per row with the paper's grid (50 targets x 201
minutes) measured in the same run:

- ``grid``: the paper's transient case, every target at every minute;
- ``paper as a timed program``: the same 10,050 rows, each with its
  ``time_min`` (minute-major), so the program revisits each target 201 times;
- ``pick and place, 50,000 rows``: a timed program that jumps at random among
  the 50 targets at 50,000 increasing times over 200 minutes;
- ``robot program, 100,000 motions``: the hook for issue 11 (``compensate
  --program``); reported as waiting until that command exists.

The cost of a row is the compensation's own work, nominal configurations plus
solving (``summary.phase_seconds``), and, separately, the whole call.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from benchutil import median, spread, timed

import thermocomp as tc
from thermocomp.compensation.program import Program
from thermocomp.io.targets_csv import read_targets_csv

REPO = Path(__file__).resolve().parent.parent
DEFORMATION = REPO / "deformations" / "exaggerated.csv"
TARGETS = REPO / "examples" / "targets_random50.csv"
#: Rows of the pick-and-place case.
JUMPING_ROWS = 50_000
#: Motions of issue 11's robot-program case.
ROBOT_PROGRAM_MOTIONS = 100_000


@dataclass
class Case:
    name: str
    rows: int = 0
    wall: list[float] = field(default_factory=list)  # whole call [s]
    compute: list[float] = field(default_factory=list)  # nominal configurations + solving [s]
    nominal: list[float] = field(default_factory=list)
    converged: int = 0
    max_position: float = np.nan
    waiting: str = ""  # why the case did not run

    @property
    def compute_us(self) -> float:
        return 1e6 * median(self.compute) / self.rows

    @property
    def wall_us(self) -> float:
        return 1e6 * median(self.wall) / self.rows


def _timed_program(targets: Program, order: np.ndarray, minutes: np.ndarray) -> Program:
    return Program(names=tuple(targets.names[i] for i in order.tolist()), R_world_tcp=targets.R_world_tcp[order],
                   p_world_tcp=targets.p_world_tcp[order], time_min=minutes,
                   orientation_convention=targets.orientation_convention, source="bench program")


def programs(seed: int = 10) -> dict[str, Program | Path]:
    """The cases' programs (the grid is the targets file itself)."""
    targets = read_targets_csv(TARGETS)
    m = targets.n_targets
    minutes = np.arange(201.0)
    rng = np.random.default_rng(seed)
    return {
        "grid (paper's transient case)": TARGETS,
        "paper's case as a timed program": _timed_program(targets, np.tile(np.arange(m), minutes.size),
                                                          np.repeat(minutes, m)),
        f"pick and place, {JUMPING_ROWS:,} rows": _timed_program(
            targets, rng.integers(0, m, JUMPING_ROWS), np.sort(rng.uniform(0.0, 200.0, JUMPING_ROWS))),
    }


def robot_program_case() -> Case:
    """Issue 11's case: a 100,000-motion robot program through ``compensate --program``.

    The hook: once the robot-program reader exists (``thermocomp.programs``),
    build the program here and time it like the others.
    """
    case = Case(f"robot program, {ROBOT_PROGRAM_MOTIONS:,} motions (issue 11)")
    if importlib.util.find_spec("thermocomp.programs") is None:
        case.waiting = "waiting for issue 11 (compensate --program has not landed)"
    else:
        case.waiting = "issue 11 has landed: build its 100,000-motion program in bench/shapes.robot_program_case"
    return case


def run(repeats: int) -> list[Case]:
    cases = []
    for name, program in programs().items():
        case = Case(name)
        big = not isinstance(program, Path) and program.n_targets > 20_000
        def call(program=program):
            return tc.run_compensation("irb140", DEFORMATION, program, keep_results=False)
        call()  # warm-up
        for _ in range(1 if big else repeats):
            seconds, report = timed(call)
            phases = report.summary.phase_seconds
            case.wall.append(seconds)
            case.compute.append(phases["nominal configurations"] + phases["solving"])
            case.nominal.append(phases["nominal configurations"])
        s = report.summary
        case.rows, case.converged, case.max_position = s.n_rows, s.status_counts["converged"], s.max_position_error
        cases.append(case)
    cases.append(robot_program_case())
    return cases


def report_lines(cases: list[Case]) -> list[str]:
    from benchutil import table

    grid = cases[0]
    rows = []
    for c in cases:
        if c.waiting:
            rows.append([c.name, "-", "-", "-", "-", "-", "-", c.waiting])
            continue
        rows.append([c.name, f"{c.rows:,}", spread(c.wall), f"{c.wall_us:.1f}", f"{c.compute_us:.1f}",
                     f"x{c.compute_us / grid.compute_us:.2f}", f"{1e6 * median(c.nominal) / c.rows:.2f}",
                     f"{c.converged:,} converged, max {c.max_position:.1e} m"])
    return [table(["case", "rows", "whole call", "us/row", "compute us/row", "x grid", "nominal us/row", "result"],
                  rows),
            "compute = nominal configurations + solving (the summary's phases); whole call also reads the "
            "deformation and robot and builds the report"]
