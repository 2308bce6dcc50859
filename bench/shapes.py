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
- ``robot program``: issue 11's ``compensate --program`` on an ABB RAPID
  module of 100,000 MoveL instructions (its compute per row as every
  shape's; its whole call and phases shown beside it), the median of
  :data:`ROBOT_PROGRAM_RUNS` runs.

The cost of a row is the compensation's own work, nominal configurations plus
solving (``summary.phase_seconds``), and, separately, the whole call.

Each sample of a case is judged against the grid measured right before it in the same process
(:func:`grid_compute_us`): this machine's speed drifts by a third within minutes (the grid alone
measured 2.5 and 4.4 us/row a few minutes apart), so a baseline measured at another moment moved
every ratio with it.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from benchutil import median, spread, timed

import thermocomp as tc
from thermocomp.compensation.targets import Targets
from thermocomp.io.targets_csv import read_targets_csv

REPO = Path(__file__).resolve().parent.parent
DEFORMATION = REPO / "deformations" / "exaggerated.csv"
TARGETS = REPO / "examples" / "targets_random50.csv"
#: Rows of the pick-and-place case.
JUMPING_ROWS = 50_000
#: Motions of issue 11's robot-program case.
ROBOT_PROGRAM_MOTIONS = 100_000
#: Timed runs of the robot-program case (the median counts, as the grid's median does): one run moved between
#: x1.75 and x2.44 of the grid from one bench to the next on unchanged code.
ROBOT_PROGRAM_RUNS = 3


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
    phases: dict = field(default_factory=dict)  # the robot program's phases [s]
    baseline: list[float] = field(default_factory=list)  # the grid's compute us/row right before each sample

    @property
    def compute_us(self) -> float:
        return 1e6 * median(self.compute) / self.rows

    @property
    def ratio(self) -> float:
        """Compute per row over the grid's, sample by sample against the grid measured just before; the median."""
        return median([1e6 * c / self.rows / b for c, b in zip(self.compute, self.baseline)])

    @property
    def wall_us(self) -> float:
        return 1e6 * median(self.wall) / self.rows


def _timed_program(targets: Targets, order: np.ndarray, minutes: np.ndarray) -> Targets:
    return Targets(names=tuple(targets.names[i] for i in order.tolist()), R_world_tcp=targets.R_world_tcp[order],
                   p_world_tcp=targets.p_world_tcp[order], time_min=minutes,
                   orientation_convention=targets.orientation_convention, source="bench program")


def programs(seed: int = 10) -> dict[str, Targets | Path]:
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


def robot_program_text(motions: int, seed: int = 11) -> str:
    """An ABB RAPID module for the IRB140: ``motions`` MoveL instructions along a smooth joint path.

    The targets are literal robtargets (mm, quaternion, confdata) of the
    nominal FK at a slowly varying configuration, 9 significant digits as
    RobotStudio writes them; tool0, no work object.
    """
    from thermocomp.geometry.rotations import quat_wxyz_from_matrix
    from thermocomp.kinematics.confdata import confdata_from_q
    from thermocomp.kinematics.fk import fk
    from thermocomp.kinematics.model import nominal_model

    chain = tc.load_robot("irb140")
    model = nominal_model(chain)
    rng = np.random.default_rng(seed)
    s = np.linspace(0.0, 1.0, motions)[:, None]
    phase = rng.uniform(0, 2 * np.pi, 6)
    q = chain.home + np.array([0.5, 0.3, 0.3, 0.6, 0.4, 0.8]) * np.sin(2 * np.pi * 40 * s + phase)
    q[:, 4] = np.where(np.abs(q[:, 4]) < 0.35, 0.35, q[:, 4])
    R, p = fk(model, q)
    quat = quat_wxyz_from_matrix(R)
    conf = confdata_from_q(model, q)
    lines = ["MODULE BenchCycle", "  PROC main()"]
    for i in range(motions):
        x, y, z = p[i] * 1e3
        w, a, b, c = quat[i]
        cf = ",".join(str(int(v)) for v in conf[i])
        lines.append(f"    MoveL [[{x:.9g},{y:.9g},{z:.9g}],[{w:.9g},{a:.9g},{b:.9g},{c:.9g}],[{cf}],"
                     "[9E+09,9E+09,9E+09,9E+09,9E+09,9E+09]], v100, z1, tool0;")
    lines += ["  ENDPROC", "ENDMODULE", ""]
    return "\n".join(lines)


def robot_program_case(tmp: Path, motions: int = ROBOT_PROGRAM_MOTIONS) -> Case:
    """Issue 11's case: a 100,000-motion RAPID program through :func:`thermocomp.app.program.compensate_program`.

    Judged like every shape on its compute per row (nominal configurations,
    the program's and the core's, and the core's solver clock) against the
    grid's; its whole call
    (reading and parsing the module, timing, checks, writing too) is shown
    with its phases, and bench/programs.py judges it against the same
    targets as CSV (issue 11).
    """
    case = Case(f"robot program, {motions:,} motions (RAPID)")
    if importlib.util.find_spec("thermocomp.programs") is None:
        case.waiting = "waiting for issue 11 (compensate --program has not landed)"
        return case
    from thermocomp.app.program import compensate_program

    warm = tmp / "bench_warm_up.mod"  # as every shape: a first call loads the compiled kernels, untimed
    warm.write_text(robot_program_text(2_000), encoding="ascii")
    compensate_program(tc.CompensationJob("irb140", DEFORMATION, program=warm, allow_failures=True))
    path = tmp / "bench_cycle.mod"
    path.write_text(robot_program_text(motions), encoding="ascii")
    case.rows = motions
    runs_phases = []
    for _ in range(ROBOT_PROGRAM_RUNS):
        case.baseline.append(grid_compute_us())
        seconds, report = timed(lambda: compensate_program(
            tc.CompensationJob("irb140", DEFORMATION, program=path, allow_failures=True)))
        s = report.summary
        phases = report.phase_seconds
        case.wall.append(seconds)
        # as for every shape: nominal configurations + solving, each as the summary of the core counts it (its
        # solver clock; the chunks' finishing, reached poses and summary are outside it for every shape). The
        # program finds its nominal configurations itself (its own phase; the core's then only looks them up), so
        # both count. The program's "solving" phase by the wall clock (core, chunk finishing, names, statuses) is
        # shown beside it, and the whole call (parsing, timing, checks, writing too) is judged against the CSV in
        # section 4.
        nominal = phases["nominal configurations"] + s.phase_seconds["nominal configurations"]
        case.compute.append(nominal + s.phase_seconds["solving"])
        case.nominal.append(nominal)
        runs_phases.append(phases)
    case.phases = runs_phases[int(np.argsort(case.compute)[len(case.compute) // 2])]  # (the median run's)
    case.converged, case.max_position = s.status_counts["converged"], s.max_position_error
    return case


#: Runs of the grid whose median is the baseline of one sample (:func:`grid_compute_us`): one run of the grid takes
#: some 30 ms, and 20 in a row spread from 2.2 to 5.2 us/row.
BASELINE_RUNS = 9


def grid_compute_us(runs: int = BASELINE_RUNS) -> float:
    """The grid's compute per row [us] in this process now: the median of ``runs`` runs (after an untimed one)."""
    def call():
        return tc.run_compensation(tc.CompensationJob("irb140", DEFORMATION, targets=TARGETS, keep_results=False))
    rows = call().summary.n_rows
    samples = []
    for _ in range(runs):
        phases = call().summary.phase_seconds
        samples.append(1e6 * (phases["nominal configurations"] + phases["solving"]) / rows)
    return median(samples)


def _measure(case: Case, program: Targets | Path, repeats: int) -> None:
    """``repeats`` timed runs of ``program`` (after an untimed one), appended to ``case``'s samples, each after
    its baseline (:func:`grid_compute_us`)."""
    def call():
        return tc.run_compensation(tc.CompensationJob("irb140", DEFORMATION, targets=program, keep_results=False))
    call()  # warm-up
    for _ in range(repeats):
        case.baseline.append(grid_compute_us())
        seconds, report = timed(call)
        phases = report.summary.phase_seconds
        case.wall.append(seconds)
        case.compute.append(phases["nominal configurations"] + phases["solving"])
        case.nominal.append(phases["nominal configurations"])
    s = report.summary
    case.rows, case.converged, case.max_position = s.n_rows, s.status_counts["converged"], s.max_position_error


def run(repeats: int, tmp: Path, robot_motions: int = ROBOT_PROGRAM_MOTIONS) -> list[Case]:
    cases = []
    for name, program in programs().items():
        case = Case(name)
        big = not isinstance(program, Path) and program.n_targets > 20_000
        _measure(case, program, 1 if big else repeats)
        cases.append(case)
    cases.append(robot_program_case(tmp, robot_motions))
    return cases


def report_lines(cases: list[Case]) -> list[str]:
    from benchutil import table

    rows = []
    for c in cases:
        if c.waiting:
            rows.append([c.name, "-", "-", "-", "-", "-", "-", "-", c.waiting])
            continue
        rows.append([c.name, f"{c.rows:,}", spread(c.wall), f"{c.wall_us:.1f}", f"{c.compute_us:.1f}",
                     f"{median(c.baseline):.1f}", f"x{c.ratio:.2f}", f"{1e6 * median(c.nominal) / c.rows:.2f}",
                     f"{c.converged:,} converged, max {c.max_position:.1e} m"])
    program = cases[-1]
    extra = [f"{program.name}: phases " + ", ".join(f"{k} {v:.2f} s" for k, v in program.phases.items())] \
        if program.phases else []
    return [table(["case", "rows", "whole call", "us/row", "compute us/row", "grid us/row", "x grid",
                   "nominal us/row", "result"], rows), *extra,
            "grid us/row = the grid's compute per row measured right before each sample (median); x grid = the "
            "median of the samples' ratios to it",
            "compute = nominal configurations + solving (the summary's phases: the solver's clock; a robot program "
            "adds its own nominal phase, and its wall-clock 'solving' phase above also holds the chunks' finishing); "
            "whole call also reads the deformation and robot and builds the report"]
