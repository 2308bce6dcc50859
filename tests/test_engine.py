"""The compiled kinematics engine (kinematics/engine.py) against its numpy reference.

The Newton iteration: the same algorithm step for step, so the same iterations, statuses and (to
round-off of a 6x6 Cholesky against LAPACK's LU) the same angles, on deformed robots, far seeds and
unreachable targets. The FK, Jacobian and joint frames of a large batch: the numpy walk's products.
(The closed forms: tests/test_closed_form.py; the deformed frames and pose errors: tests/test_kinematics.py.)
"""

from __future__ import annotations

import numpy as np
import pytest

from thermocomp.deformation import DeformationTable, deformed_model
from thermocomp.errors import ConfigurationError
from thermocomp.io.robots import load_robot
from thermocomp.kinematics.fk import fk
from thermocomp.kinematics.ik import IKOptions, Status, solve_ik
from thermocomp.kinematics.model import nominal_model

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
    """fk(), fk_jacobian() and joint_frames() of ENGINE_MIN_ROWS rows or more run compiled: the numpy walk is
    their reference."""
    from thermocomp.kinematics.dispatch import ENGINE_MIN_ROWS
    from thermocomp.kinematics.fk import _jacobian, _walk, fk_jacobian, joint_frames

    chain = load_robot(name)
    m = ENGINE_MIN_ROWS + 7
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
