"""A time law with its own table per minute (the authors' CoppeliaSim law) is one compensation, not one per minute.

The nominal configurations are found once and each minute is seeded from
its neighbours; the result is the per-minute static solve's, to the solver
tolerance.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from helpers import REPO, run_targets

from thermocomp.compensation import compensate as compensate_module
from thermocomp.compensation.compensate import CompensationOptions, compensate
from thermocomp.deformation.coppeliasim_convention import authors_law
from thermocomp.deformation.timelaw import LinearRamp, Static, TablePerMinute
from thermocomp.errors import ConfigurationError
from thermocomp.io.deformation_csv import read_deformation_csv
from thermocomp.io.robots import load_robot
from thermocomp.io.targets_csv import read_targets_csv
from thermocomp.kinematics.ik import IKOptions, Status

EXAGGERATED = REPO / "deformations" / "exaggerated.csv"
RANDOM50 = REPO / "examples" / "targets_random50.csv"
MINUTES = tuple(float(m) for m in range(0, 201, 10))


def _case():
    chain = load_robot("irb140")
    table, law = authors_law(chain, read_deformation_csv(EXAGGERATED, n_joints=6), LinearRamp(200.0))
    program = read_targets_csv(RANDOM50, n_joints=6)
    return chain, table, law, program


def test_minute_tables_match_a_static_solve_per_minute_and_solve_the_nominal_once(monkeypatch) -> None:
    chain, authors_table, law, program = _case()
    assert isinstance(law, TablePerMinute) and np.all(law.fraction(MINUTES) == 1.0)
    options = CompensationOptions(time_law=law, minutes=MINUTES, chunk_rows=400)  # three blocks of 8 minutes
    tables = law.tables(MINUTES)
    calls = []
    real = compensate_module.nominal_solutions
    monkeypatch.setattr(compensate_module, "nominal_solutions", lambda *a, **k: calls.append(1) or real(*a, **k))
    chunks = list(compensate(chain, authors_table, program, options))
    assert len(calls) == 1 and len(chunks) > 1
    q = np.concatenate([c.q for c in chunks])
    status = np.concatenate([c.status for c in chunks])
    assert np.all(np.concatenate([c.fraction for c in chunks]) == 1.0)
    np.testing.assert_array_equal(np.concatenate([c.minute for c in chunks]), np.repeat(MINUTES, program.n_targets))
    monkeypatch.undo()
    want = []
    for minute, table in zip(MINUTES, tables):
        (chunk,) = compensate(chain, table, program, replace(options, time_law=Static(), minutes=(minute,)))
        want.append(chunk)
    np.testing.assert_array_equal(status, np.concatenate([c.status for c in want]))
    ok = status == Status.CONVERGED
    assert ok.all()
    # Two converged solutions of the same configuration agree to the solver tolerances
    # (a joint error of e maps to a TCP error of at most reach * e; the IRB140 reaches < 1 m).
    tol = IKOptions().position_tol / 0.1 + IKOptions().orientation_tol
    np.testing.assert_allclose(q, np.concatenate([c.q for c in want]), rtol=0, atol=max(tol, 1e-7))


class _Counted:
    """A per-minute law that counts its calls, or hands back one table too few."""

    def __init__(self, law, short: bool = False) -> None:
        self.law, self.short, self.calls = law, short, []

    def fraction(self, minute):
        return self.law.fraction(minute)

    def describe(self) -> str:
        return self.law.describe()

    def tables(self, minutes):
        self.calls.append(tuple(minutes))
        tables = self.law.tables(minutes)
        return tables[:-1] if self.short else tables


def test_the_tables_are_computed_once_and_counted(tmp_path) -> None:
    chain, authors_table, law, _ = _case()
    counted = _Counted(law)
    options = CompensationOptions(time_law=counted, minutes=MINUTES, chunk_rows=100)
    report = run_targets(chain, authors_table, RANDOM50, tmp_path / "out.csv", options=options)
    assert counted.calls == [MINUTES] and report.summary.n_failed == 0
    assert "one table per minute" in report.time_law
    with pytest.raises(ConfigurationError, match="one deformation table per minute"):
        run_targets(chain, authors_table, RANDOM50, tmp_path / "bad.csv",
                         options=replace(options, time_law=_Counted(law, short=True)))
    assert not (tmp_path / "bad.csv").exists()
