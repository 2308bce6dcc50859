"""ABB confdata (cf1, cf4, cf6, cfx): computed from joints, and used to choose a configuration."""

from __future__ import annotations

import numpy as np
import pytest

from thermocomp import CompensationOptions, DeformationTable, Program, compensate, load_robot, nominal_model
from thermocomp.kinematics.confdata import confdata_from_q
from thermocomp.kinematics.fk import fk
from thermocomp.kinematics.ik import Status
from thermocomp.kinematics.seeding import solve_multistart


@pytest.fixture(scope="module")
def irb140():
    return load_robot("irb140")


@pytest.mark.parametrize(
    "q_deg, expected",
    [
        ([0, 0, 0, 0, 0, 0], [0, 0, 0, 0]),          # ABB's calibration position: [0, 0, 0, 0]
        ([0, 0, 0, 0, -30, 0], [0, 0, 0, 1]),        # axis 5 negative
        ([100, 0, 0, -45, 30, 200], [1, -1, 2, 0]),  # quadrants: floor(q / 90 deg)
        ([-10, 0, 0, -90, 30, -0.5], [-1, -1, -1, 0]),
        ([0, -60, -200, 0, 30, 0], [0, 0, 0, 6]),    # forearm folded back over the base: behind both
        ([0, 80, -30, 0, -30, 0], [0, 0, 0, 1]),     # leaning far forward, wrist still in front
    ],
)
def test_confdata_of_hand_checked_configurations(irb140, q_deg, expected):
    assert confdata_from_q(nominal_model(irb140), np.radians([q_deg]))[0].tolist() == expected


def test_confdata_chooses_each_branch_of_one_pose(irb140):
    """Every configuration in which a pose is reachable can be asked for by its confdata."""
    model = nominal_model(irb140)
    q0 = np.radians([[20.0, 10.0, -20.0, 30.0, 45.0, -10.0]])
    R, p = fk(model, q0)
    # all branches: many starts, keep the distinct converged solutions
    rng = np.random.default_rng(3)
    starts = rng.uniform(np.maximum(irb140.lower, -np.pi), np.minimum(irb140.upper, np.pi), (200, 6))
    from thermocomp.kinematics.ik import solve_ik
    sols = solve_ik(model, np.repeat(R, 200, axis=0), np.repeat(p, 200, axis=0), starts)
    ok = sols.q[sols.status == Status.CONVERGED]
    signatures = np.unique(confdata_from_q(model, ok), axis=0)
    assert len(signatures) >= 4  # shoulder x elbow x wrist branches within the limits
    names = tuple(f"T{i}" for i in range(len(signatures)))
    program = Program(names, np.repeat(R, len(signatures), axis=0), np.repeat(p, len(signatures), axis=0),
                      confdata=signatures)
    chunks = list(compensate(irb140, DeformationTable.from_mm_deg(np.full((6, 6), 0.5)), program,
                             CompensationOptions(minutes=(0.0, 200.0))))
    for chunk in chunks:
        wanted = signatures[chunk.target]
        assert np.all(chunk.status == Status.CONVERGED)
        np.testing.assert_array_equal(confdata_from_q(model, chunk.q_nominal), wanted)
        # the compensated angles stay in the asked configuration (cfx) too
        np.testing.assert_array_equal(confdata_from_q(model, chunk.q)[:, 3], wanted[:, 3])


def test_unavailable_configuration_is_reported(irb140):
    model = nominal_model(irb140)
    q0 = np.radians([[20.0, 10.0, -20.0, 30.0, 45.0, -10.0]])
    R, p = fk(model, q0)
    result = solve_multistart(model, R, p, irb140.home[None],
                              accept=lambda q: np.zeros(q.shape[:2], dtype=bool))
    assert result.status[0] == Status.CONFIGURATION_NOT_FOUND
