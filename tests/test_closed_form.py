"""Closed-form IK of the nominal robot (kinematics/closed_form.py): every branch, checked by the FK it inverts.

The closed form reads its structure from the model (the built-in table-form
chains here, never constants typed again), so these properties hold against
the same FK every other test trusts (itself checked against PyBullet and the
paper's equations in test_kinematics.py and test_pybullet_oracle.py).
"""

from __future__ import annotations

import numpy as np
import pytest

from thermocomp.deformation import DeformationTable, deformed_model
from thermocomp.geometry import rotation_angle, transform
from thermocomp.geometry.rotations import matrix_from_rotvec
from thermocomp.kinematics.closed_form import N_BRANCHES, closed_form, closed_form_mismatch
from thermocomp.kinematics.fk import fk
from thermocomp.kinematics.ik import IKOptions, Status
from thermocomp.kinematics.model import nominal_model
from thermocomp.kinematics.seeding import _search, solve_multistart, solve_path
from thermocomp.robot.builtin import load_robot

#: Closed-form round-off stays far below this away from singularities [m], [rad].
EXACT = 1e-9


def _random_q(chain, rng, size):
    return rng.uniform(chain.lower, chain.upper, (size, chain.n_joints))


def _placed(chain, rng):
    """The same robot on a tilted base with an offset tool: the closed form must not assume identity frames."""
    T_world_base = transform(matrix_from_rotvec(rng.normal(size=3) * 0.4), rng.normal(size=3) * 0.3)
    T_last_tcp = transform(matrix_from_rotvec(rng.normal(size=3) * 0.8), rng.normal(size=3) * 0.1)
    return chain.replace(T_world_base=T_world_base, T_last_tcp=T_last_tcp)


@pytest.mark.parametrize(("name", "kind"), [("irb140", "opw"), ("ur5", "ur")])
@pytest.mark.parametrize("placed", [False, True])
def test_every_branch_reaches_the_pose_and_one_is_the_configuration_it_came_from(name, kind, placed, rng):
    chain = load_robot(name)
    if placed:
        chain = _placed(chain, rng)
    model = nominal_model(chain)
    form = closed_form(model)
    assert form is not None and form.kind == kind
    q = _random_q(chain, rng, 3000)
    R, p = fk(model, q)
    branches, valid = form.branches(R, p, q_near=q)
    assert branches.shape == (3000, N_BRANCHES, 6)
    exists = np.all(np.isfinite(branches), axis=-1)
    Rb, pb = fk(model, np.where(exists[..., None], branches, 0.0))
    position = np.linalg.norm(pb - p[:, None], axis=-1)[exists]
    angle = rotation_angle(Rb @ np.swapaxes(R, -1, -2)[:, None])[exists]
    # near a singularity the closed form loses digits (then Newton polishes): judge the well-conditioned poses
    assert np.quantile(position, 0.999) < EXACT and np.quantile(angle, 0.999) < EXACT
    assert np.median(position) < 1e-13
    # the configuration q itself is one of the branches (angles shifted by whole turns towards q)
    nearest = np.nanmin(np.max(np.abs(branches - q[:, None]), axis=-1), axis=1)
    assert np.all(nearest < EXACT)
    # valid means: exists and inside the limits
    assert np.array_equal(valid, exists & chain.within_limits(np.where(exists[..., None], branches, chain.home)))
    # distinct branches: at most one branch equals q
    assert np.all(np.sum(np.max(np.abs(branches - q[:, None]), axis=-1) < EXACT, axis=1) >= 1)


@pytest.mark.parametrize("name", ["irb140", "ur5"])
def test_closed_form_finds_the_same_nearest_solution_as_the_multistart_search(name, rng):
    """The closed form replaces the search: same solution nearest the reference, on reachable random poses."""
    chain = load_robot(name)
    model = nominal_model(chain)
    q = _random_q(chain, rng, 200)
    R, p = fk(model, q)
    reference = np.clip(q + rng.normal(scale=0.05, size=q.shape), chain.lower, chain.upper)
    fast = solve_multistart(model, R, p, reference)
    slow = _search(model, R, p, reference, 48, 0, IKOptions(), None)
    assert np.all(fast.status == Status.CONVERGED)
    both = slow.status == Status.CONVERGED
    assert both.mean() > 0.9
    # the closed form's choice is never farther from the reference than the search's
    d_fast = np.linalg.norm(fast.q - reference, axis=1)
    d_slow = np.linalg.norm(slow.q - reference, axis=1)
    assert np.all(d_fast[both] <= d_slow[both] + 1e-6)  # equal solutions differ within the IK tolerance
    assert np.max(fast.position_error) <= IKOptions().position_tol


def test_the_gofa_has_no_closed_form_its_wrist_is_offset():
    """CRB 15000: joint 6 sits 80 mm off joint 4's axis (seed 000, Table I), so it is not OPW; multi-start stays."""
    model = nominal_model(load_robot("gofa"))
    assert closed_form(model) is None
    assert "80 mm" in closed_form_mismatch(model) and "spherical wrist" in closed_form_mismatch(model)


def test_a_deformed_robot_with_angular_deviations_has_no_closed_form():
    chain = load_robot("irb140")
    table = DeformationTable.from_mm_deg(np.full((6, 6), 0.5))
    assert closed_form(deformed_model(chain, table, 1.0)) is None
    assert "angular" in closed_form_mismatch(deformed_model(chain, table, 1.0))


@pytest.mark.parametrize("name", ["irb140", "ur5"])
def test_closed_form_path_keeps_the_configuration_along_a_smooth_path(name, rng):
    """Variant B: along a smooth joint-space path, the branch chosen pose by pose is the path itself,
    including joints that pass +-180 degrees (unwrapped, not jumping back)."""
    chain = load_robot(name)
    model = nominal_model(chain)
    s = np.linspace(0.0, 1.0, 2000)[:, None]
    q0 = chain.home + np.array([0.3, 0.2, -0.2, 0.5, 0.4, 2.9])
    q1 = q0 + np.array([0.4, -0.3, 0.2, -0.8, 0.5, 0.6])  # joint 6 goes past 180 degrees
    q = q0 + s * (q1 - q0)
    assert np.all(chain.within_limits(q))
    R, p = fk(model, q)
    path = solve_path(model, R, p, q[0])
    assert np.all(path.status == Status.CONVERGED)
    assert np.max(np.abs(path.q - q)) < 1e-8


def test_closed_form_path_crosses_the_wrist_singularity_on_the_same_configuration():
    """Joint 5 of the IRB140 passes 0.05 mrad from 0 (axes 4 and 6 aligned): the branch formulas swap there,
    the path must not (each pose takes the branch nearest its predecessor's)."""
    chain = load_robot("irb140")
    model = nominal_model(chain)
    s = np.linspace(0.0, 1.0, 2001)[:, None]
    q0 = chain.home + np.array([0.3, 0.2, -0.2, 0.5, 0.0, 0.4])
    q0[4] = 0.3
    q1 = q0 + np.array([0.0, 0.0, 0.0, 0.4, -0.6001, -0.3])
    q = q0 + s * (q1 - q0)
    assert np.min(np.abs(q[:, 4])) < 1e-4
    R, p = fk(model, q)
    path = solve_path(model, R, p, q[0])
    assert np.all(path.status == Status.CONVERGED)
    assert np.max(np.abs(path.q - q)) < 1e-8


def test_closed_form_path_picks_pose_by_pose_the_branch_nearest_the_one_before(rng):
    """On poses that jump (no two alike), the vectorised choice equals choosing one pose at a time."""
    chain = load_robot("irb140")
    model = nominal_model(chain)
    form = closed_form(model)
    q = _random_q(chain, rng, 400)
    R, p = fk(model, q)
    path = solve_path(model, R, p, chain.home)
    branches, valid = form.branches(R, p, chain.home)
    before = chain.home
    for i in range(400):
        d = branches[i] - before
        d = np.linalg.norm(d - 2 * np.pi * np.round(d / (2 * np.pi)), axis=1)
        d = np.where(valid[i], d, np.inf)
        if np.all(np.isinf(d)):
            continue
        nearest = branches[i, np.argmin(d)]
        wrapped = path.q[i] - nearest
        assert np.max(np.abs(wrapped - 2 * np.pi * np.round(wrapped / (2 * np.pi)))) < 1e-8
        before = path.q[i]
