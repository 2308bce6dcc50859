"""The compiled Newton iteration (kinematics/newton_kernel.py) against the numpy solver, its reference.

Same algorithm step for step, so the same iterations, statuses and (to round-off of a 6x6
Cholesky against LAPACK's LU) the same angles, on deformed robots, far seeds and unreachable targets.
"""

from __future__ import annotations

import numpy as np
import pytest

from thermocomp.deformation import DeformationTable, deformed_model
from thermocomp.errors import ConfigurationError
from thermocomp.kinematics.fk import fk
from thermocomp.kinematics.ik import IKOptions, Status, solve_ik
from thermocomp.kinematics.model import nominal_model
from thermocomp.robot.builtin import load_robot

pytest.importorskip("numba")


@pytest.mark.parametrize("name", ["irb140", "gofa", "ur5"])
@pytest.mark.parametrize("per_row", [False, True])
def test_compiled_iteration_equals_the_numpy_reference(name, per_row, rng):
    chain = load_robot(name)
    m = 600
    table = DeformationTable.from_mm_deg(rng.normal(size=(chain.n_joints, 6)))
    model = deformed_model(chain, table, rng.uniform(0.0, 1.0, m) if per_row else 0.7)
    q = rng.uniform(np.maximum(chain.lower, -2.5), np.minimum(chain.upper, 2.5), (m, chain.n_joints))
    R, p = fk(model, q)
    seed = q + rng.normal(scale=0.05, size=q.shape)
    seed[:50] = rng.uniform(-np.pi, np.pi, (50, chain.n_joints))  # far seeds: long, damped, some near-pi errors
    p[50:60] += 5.0  # out of reach
    numpy_result = solve_ik(model, R, p, seed, IKOptions(engine="numpy"))
    compiled = solve_ik(model, R, p, seed, IKOptions(engine="compiled"))
    assert np.array_equal(numpy_result.status, compiled.status)
    assert np.all(compiled.status[50:60] == Status.UNREACHABLE)
    ok = compiled.status == Status.CONVERGED
    assert ok.sum() > 500
    assert np.array_equal(numpy_result.iterations[ok], compiled.iterations[ok])
    assert np.max(np.abs(numpy_result.q[ok] - compiled.q[ok])) < 1e-7
    assert np.max(compiled.position_error[ok]) <= IKOptions().position_tol
    assert np.allclose(numpy_result.sigma_min[ok], compiled.sigma_min[ok], rtol=1e-5)
    # and the compiled solution is a solution by the numpy FK
    R_c, p_c = fk(model if not per_row else model.take(np.flatnonzero(ok)), compiled.q[ok])
    assert np.max(np.linalg.norm(p_c - p[ok], axis=1)) <= IKOptions().position_tol


def test_auto_compiles_large_batches_only_and_engines_are_checked(rng):
    chain = load_robot("irb140")
    model = nominal_model(chain)
    q = rng.uniform(-0.5, 0.5, (5, 6))
    R, p = fk(model, q)
    result = solve_ik(model, R, p, q + 0.01, IKOptions(engine="auto"))
    assert np.all(result.status == Status.CONVERGED)
    with pytest.raises(ConfigurationError, match="engine"):
        IKOptions(engine="fast")


@pytest.mark.parametrize("name", ["irb140", "gofa", "ur5"])
def test_compiled_fk_of_a_large_batch_equals_the_numpy_products(name, rng):
    """fk(), fk_jacobian() and joint_frames() of COMPILED_FK_MIN_ROWS rows or more run compiled: the numpy walk is
    their reference."""
    from thermocomp.kinematics.fk import COMPILED_FK_MIN_ROWS, _jacobian, _walk, fk_jacobian, joint_frames

    chain = load_robot(name)
    m = COMPILED_FK_MIN_ROWS + 7
    table = DeformationTable.from_mm_deg(rng.normal(size=(chain.n_joints, 6)))
    q = rng.uniform(-3.0, 3.0, (m, chain.n_joints))
    tilted = chain.axis + 0.3 * np.roll(chain.axis, 1, axis=1)  # axes off x, y, z: the general rotation
    tilted /= np.linalg.norm(tilted, axis=1, keepdims=True)
    for model in (deformed_model(chain, table, rng.uniform(0.0, 1.0, m)), deformed_model(chain, table, 0.3),
                  nominal_model(chain.replace(axis=tilted))):
        R, p = fk(model, q)
        R_ref, p_ref, _ = _walk(model, q, jacobian=False)
        assert np.max(np.abs(R - R_ref)) < 1e-14 and np.max(np.abs(p - p_ref)) < 1e-14
        # fk_jacobian too (the feasibility checks' large batches), against the numpy Jacobian (itself checked
        # against finite differences in test_kinematics.py)
        R2, p2, J = fk_jacobian(model, q)
        R_ref, p_ref, (origins, axes) = _walk(model, q, jacobian=True)
        J_ref = _jacobian(chain, p_ref, origins, axes)
        assert np.max(np.abs(R2 - R_ref)) < 1e-14 and np.max(np.abs(p2 - p_ref)) < 1e-14
        assert np.max(np.abs(J - J_ref)) < 1e-13
        # joint_frames too (confdata of a program's points and corrected joints)
        got_origins, got_axes = joint_frames(model, q)
        assert np.max(np.abs(got_origins - origins)) < 1e-14 and np.max(np.abs(got_axes - axes)) < 1e-15


@pytest.mark.parametrize("name", ["irb140", "gofa"])
def test_compiled_confdata_of_a_large_batch_equals_the_numpy_reference(name, rng):
    """confdata_from_q of COMPILED_FK_MIN_ROWS rows or more runs compiled (newton_kernel.confdata_rows): the numpy
    computation from the joint frames is its reference, on nominal and deformed robots, every quadrant and cfx."""
    from thermocomp.kinematics.confdata import _confdata_numpy, confdata_from_q
    from thermocomp.kinematics.fk import COMPILED_FK_MIN_ROWS

    chain = load_robot(name)
    m = COMPILED_FK_MIN_ROWS + 3000
    table = DeformationTable.from_mm_deg(rng.normal(size=(chain.n_joints, 6)))
    q = rng.uniform(chain.lower, chain.upper, (m, chain.n_joints))
    for model in (nominal_model(chain), deformed_model(chain, table, 0.7), deformed_model(chain, table, rng.random(m))):
        got = confdata_from_q(model, q)
        want = _confdata_numpy(model, q)
        np.testing.assert_array_equal(got, want)
    assert len({tuple(c) for c in got[:, 3:].tolist()}) == 8 and len(set(got[:, 0].tolist())) >= 4


def test_compiled_fit_limits_is_numpys_bit_for_bit(rng):
    """fit_limits from COMPILED_MIN_ROWS rows on (newton_kernel.fit_limits_rows) against its numpy form: random
    angles many turns out, continuous joints, NaN and infinite angles, half-turn ties and signed zeros."""
    from thermocomp.kinematics import ik

    m, n = 20_000, 6
    q = rng.uniform(-20, 20, (m, n))
    near = rng.uniform(-20, 20, (m, n))
    q[::97, 2] = np.nan
    near[::89, 1], near[::83, 3], near[::79, 0] = np.inf, -np.inf, np.nan
    q[5] = [np.pi, -np.pi, 3 * np.pi, 0.5, -0.0, 0.0]
    q[6], near[6] = -0.0, [0.0, -0.0, 1e-300, -1e-300, 7.0, -7.0]
    near[10:20] = q[10:20] + np.pi * np.array([1, 3, 5, -1, -3, -5])  # exactly between two turns
    lower = np.array([-3.14, -1.7, -np.inf, -4.0, -2.0, -6.98])
    upper = np.array([3.14, 1.9, np.inf, 4.0, 2.0, 6.98])
    assert m >= ik.COMPILED_MIN_ROWS
    got, got_fits = ik.fit_limits(q, lower, upper, near)
    expected, expected_fits = ik._fit_limits_numpy(q, lower, upper, near)
    assert np.array_equal(got.view(np.int64), expected.view(np.int64))
    assert np.array_equal(got_fits, expected_fits) and not got_fits.all() and got_fits.any()
