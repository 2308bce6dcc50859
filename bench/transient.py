"""Section 1: the paper's transient case through :func:`thermocomp.run_compensation`.

IRB140, ``deformations/exaggerated.csv`` growing linearly to the full table at
200 min, the 50 targets of ``examples/targets_random50.csv`` solved at every
minute 0..200: 10,050 solves.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from benchutil import median, pose_errors, solved_share, spread, timed

import thermocomp as tc
from thermocomp.io.deformation_csv import read_deformation_csv
from thermocomp.io.targets_csv import read_targets_csv
from thermocomp.kinematics.fk import fk_jacobian

REPO = Path(__file__).resolve().parent.parent
ROBOT = "irb140"
DEFORMATION = REPO / "deformations" / "exaggerated.csv"
TARGETS = REPO / "examples" / "targets_random50.csv"


@dataclass
class TransientResult:
    wall: list[float] = field(default_factory=list)  # run_compensation without a file [s]
    solver: list[float] = field(default_factory=list)  # summary.solver_seconds of the same runs [s]
    wall_out: list[float] = field(default_factory=list)  # with out= a temporary file [s]
    out_bytes: int = 0
    n_rows: int = 0
    status_counts: dict[str, int] = field(default_factory=dict)
    max_position: float = np.nan  # summary [m]
    max_orientation: float = np.nan  # summary [rad]
    # Our own evaluation of the returned angles (fk of the deformed model), per row.
    position_error: np.ndarray = field(default_factory=lambda: np.zeros(0))
    orientation_error: np.ndarray = field(default_factory=lambda: np.zeros(0))
    minutes: np.ndarray = field(default_factory=lambda: np.zeros(0))
    q_minute0: np.ndarray = field(default_factory=lambda: np.zeros(0))  # (targets, n) controller angles [rad]
    fk_jacobian_us: float = np.nan  # one fk_jacobian pass over all rows, per row [us]
    fk_us: float = np.nan
    text: str = ""

    @property
    def us_per_solve(self) -> float:
        return 1e6 * median(self.solver) / self.n_rows

    @property
    def wall_us_per_row(self) -> float:
        return 1e6 * median(self.wall) / self.n_rows

    @property
    def write_seconds(self) -> float:
        return median(self.wall_out) - median(self.wall)


def run(repeats: int, repeats_out: int) -> TransientResult:
    """Time the transient case ``repeats`` times without a file and ``repeats_out`` times with one."""
    res = TransientResult()
    chain = tc.load_robot(ROBOT)
    options = tc.CompensationOptions()

    def call(out=None):
        return tc.run_compensation(tc.CompensationJob(ROBOT, DEFORMATION, targets=TARGETS, out=out, options=options))

    call()  # warm-up: first-call costs (imports inside, caches) are not the case's
    for _ in range(repeats):
        seconds, report = timed(call)
        res.wall.append(seconds)
        res.solver.append(report.summary.solver_seconds)
    with tempfile.TemporaryDirectory(prefix="thermocomp-bench-") as tmp:
        out = Path(tmp) / "transient.csv"
        for _ in range(repeats_out):
            seconds, _ = timed(lambda: call(out))
            res.wall_out.append(seconds)
        res.out_bytes = out.stat().st_size

    s = report.summary
    res.n_rows, res.status_counts = s.n_rows, dict(s.status_counts)
    res.max_position, res.max_orientation = s.max_position_error, s.max_orientation_error
    res.text = report.text()

    # Rows as the report keeps them (minute-major chunks); targets by index.
    program = read_targets_csv(TARGETS)
    table = read_deformation_csv(DEFORMATION, n_joints=chain.n_joints)
    minute = np.concatenate([c.minute for c in report.chunks])
    fraction = np.concatenate([c.fraction for c in report.chunks])
    target = np.concatenate([c.target for c in report.chunks])
    q = np.concatenate([c.q for c in report.chunks])
    model = tc.deformed_model(chain, table, fraction)
    res.position_error, res.orientation_error = pose_errors(
        model, q, program.R_world_tcp[target], program.p_world_tcp[target])
    res.minutes = np.unique(minute)
    first = minute == res.minutes[0]
    res.q_minute0 = np.empty((program.n_targets, chain.n_joints))
    res.q_minute0[target[first]] = q[first]

    # The unit of work of a Gauss-Newton iteration: FK with the Jacobian over every row.
    jac = [timed(lambda: fk_jacobian(model, q))[0] for _ in range(max(3, repeats))]
    plain = [timed(lambda: tc.fk(model, q))[0] for _ in range(max(3, repeats))]
    res.fk_jacobian_us = 1e6 * median(jac) / res.n_rows
    res.fk_us = 1e6 * median(plain) / res.n_rows
    return res


def report_lines(r: TransientResult) -> list[str]:
    failed = r.n_rows - r.status_counts.get("converged", 0)
    return [
        (f"rows: {r.n_rows:,} ({len(r.minutes)} minutes x {r.n_rows // max(len(r.minutes), 1)} targets); status: "
         + ", ".join(f"{v:,} {k}" for k, v in r.status_counts.items() if v)),
        f"run_compensation, no file (results kept in memory, its default then): {spread(r.wall)}",
        f"  of which solver (summary): {spread(r.solver)}",
        (f"  -> {r.us_per_solve:.1f} us per solve (solver), {r.wall_us_per_row:.1f} us per row (whole call); "
         f"outside the solver: {median(r.wall) - median(r.solver):.3f} s "
         "(targets and table reading, nominal configurations, reached/uncompensated poses, summary)"),
        (f"run_compensation, out=file:  {spread(r.wall_out)}; writing costs {r.write_seconds:.3f} s "
         f"({1e6 * r.write_seconds / r.n_rows:.1f} us per row, {r.out_bytes / 1e6:.1f} MB; "
         f"x{median(r.wall_out) / median(r.wall):.2f} the call without a file)"),
        (f"accuracy (summary, converged rows): max {r.max_position * 1e3:.3g} mm, "
         f"{np.degrees(r.max_orientation):.3g} deg; re-evaluated with fk at the returned angles: max "
         f"{r.position_error.max():.2e} m, {r.orientation_error.max():.2e} rad; solved to 1e-6 m/1e-6 rad: "
         f"{100 * solved_share(r.position_error, r.orientation_error):.1f} %"
         + ("" if failed == 0 else f"; {failed:,} rows NOT converged")),
        (f"cost of one Gauss-Newton iteration's kinematics on this machine, batched over the same rows: "
         f"fk_jacobian {r.fk_jacobian_us:.2f} us/row, fk {r.fk_us:.2f} us/row; the solver's "
         f"{r.us_per_solve:.1f} us/solve = {r.us_per_solve / r.fk_jacobian_us:.1f} fk_jacobian passes per row"),
    ]
