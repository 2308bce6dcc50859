"""A deformation with its own table per minute (the authors' CoppeliaSim law) is one compensation, not one per minute.

The nominal configurations are found once and each minute is seeded from
its neighbours; the result is the per-minute static solve's, to the solver
tolerance.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from helpers import REPO

from thermocomp.compensation import compensate as compensate_module
from thermocomp.compensation.compensate import CompensationOptions, compensate
from thermocomp.deformation.coppeliasim_convention import authors_law
from thermocomp.deformation.timelaw import LinearRamp, Static
from thermocomp.errors import ConfigurationError
from thermocomp.io.deformation_csv import read_deformation_csv
from thermocomp.io.targets_csv import read_targets_csv
from thermocomp.kinematics.ik import IKOptions, Status
from thermocomp.pipeline import run_compensation
from thermocomp.robot.builtin import load_robot

EXAGGERATED = REPO / "deformations" / "exaggerated.csv"
RANDOM50 = REPO / "examples" / "targets_random50.csv"
MINUTES = tuple(float(m) for m in range(0, 201, 10))


def _case():
    chain = load_robot("irb140")
    law = authors_law(chain, read_deformation_csv(EXAGGERATED, n_joints=6), LinearRamp(200.0))
    program = read_targets_csv(RANDOM50, n_joints=6)
    return chain, law, program


def test_minute_tables_match_a_static_solve_per_minute_and_solve_the_nominal_once(monkeypatch) -> None:
    chain, law, program = _case()
    options = CompensationOptions(time_law=LinearRamp(200.0), minutes=MINUTES, chunk_rows=400)  # three blocks of 8 minutes
    tables = law.tables_by_minute(MINUTES)
    calls = []
    real = compensate_module.nominal_solutions
    monkeypatch.setattr(compensate_module, "nominal_solutions", lambda *a, **k: calls.append(1) or real(*a, **k))
    chunks = list(compensate(chain, law.table, program, options, minute_tables=tables))
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


def test_the_tables_are_computed_once_and_counted(tmp_path) -> None:
    chain, law, _ = _case()
    calls = []

    def tables_by_minute(minutes):
        calls.append(tuple(minutes))
        return law.tables_by_minute(minutes)

    options = CompensationOptions(time_law=LinearRamp(200.0), minutes=MINUTES, chunk_rows=100)
    report = run_compensation(chain, law.table, RANDOM50, tmp_path / "out.csv", options=options,
                              tables_by_minute=tables_by_minute)
    assert calls == [MINUTES] and report.summary.n_failed == 0
    with pytest.raises(ConfigurationError, match="one deformation table per minute"):
        run_compensation(chain, law.table, RANDOM50, tmp_path / "bad.csv", options=options,
                         tables_by_minute=lambda minutes: law.tables_by_minute(minutes)[:-1])
    assert not (tmp_path / "bad.csv").exists()
