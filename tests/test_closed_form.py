"""Closed-form IK of the nominal robot (kinematics/closed_form.py): every branch, checked by the FK it inverts.

The closed form reads its structure from the model (the built-in table-form
chains here, never constants typed again), so these properties hold against
the same FK every other test trusts (itself checked against PyBullet and the
paper's equations in test_kinematics.py and test_pybullet_oracle.py).
"""

from __future__ import annotations

import numpy as np
import pytest

import thermocomp.kinematics.closed_form as closed_form_module
from thermocomp.deformation import DeformationTable, deformed_model
from thermocomp.geometry import rotation_angle, transform
from thermocomp.geometry.rotations import matrix_from_rotvec
from thermocomp.io.robots import load_robot
from thermocomp.kinematics.closed_form import N_BRANCHES, _opw, _ur, closed_form, closed_form_mismatch
from thermocomp.kinematics.fk import fk
from thermocomp.kinematics.ik import IKOptions, Status, fit_limits
from thermocomp.kinematics.model import nominal_model
from thermocomp.kinematics.seeding import _search, solve_multistart, solve_path
from thermocomp.tolerances import BRANCH_JUMP

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
    assert np.all(path.sigma_min > 0)
    # without the singular values (a robot program's nominal configurations): the same joints, bit for bit
    bare = solve_path(model, R, p, q[0], measure_singularity=False)
    assert np.array_equal(bare.q, path.q) and np.array_equal(bare.status, path.status)
    assert np.all(np.isnan(bare.sigma_min))


def test_closed_form_path_goes_on_in_its_configuration_after_poses_out_of_reach():
    """A stretch of the path out of reach (2 m away) fails there and holds the configuration: the poses after it
    continue on the path's branch (joint 6 past 180 degrees, unwrapped from the held angles), as the same path
    wholly in reach gives them; a path wholly in reach holds nothing."""
    chain = load_robot("irb140")
    model = nominal_model(chain)
    s = np.linspace(0.0, 1.0, 1500)[:, None]
    q0 = chain.home + np.array([0.3, 0.2, -0.2, 0.5, 0.4, 2.9])
    q = q0 + s * np.array([0.4, -0.3, 0.2, -0.8, 0.5, 0.6])
    R, p = fk(model, q)
    whole = solve_path(model, R, p, q[0])
    assert np.all(whole.status == Status.CONVERGED) and np.max(np.abs(whole.q - q)) < 1e-8
    far = p.copy()
    far[580:640] += [2.0, 0.0, 0.0]  # (joint 6 passes 180 degrees in the gap)
    path = solve_path(model, R, far, q[0])
    assert np.all(path.status[580:640] != Status.CONVERGED)
    rest = np.r_[0:580, 640:1500]
    assert np.all(path.status[rest] == Status.CONVERGED)
    assert np.max(np.abs(path.q[rest] - q[rest])) < 1e-8  # the same branch, no turn of joint 6 lost or added


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


def _reference_branches(form, R, p, near):
    """The numpy closed form (closed_form._opw / _ur) and ik.fit_limits: what the compiled twin must equal."""
    chain = form.model.chain
    phi = (_opw if form.kind == "opw" else _ur)(form.model, R, p)
    q = chain.q_from_theta(phi * form.axis_sign)
    exists = np.all(np.isfinite(q), axis=-1)
    near = np.broadcast_to(near[:, None, :] if near.ndim == 2 else near, q.shape)
    q_fit, _ = fit_limits(np.where(exists[..., None], q, 0.0), chain.lower, chain.upper, near)
    q = np.where(exists[..., None], q_fit, np.nan)
    return q, exists & chain.within_limits(np.where(exists[..., None], q, chain.home))


@pytest.mark.parametrize("name", ["irb140", "ur5"])
def test_compiled_flange_is_the_numpy_flange_to_the_last_bit(name, rng):
    """The flange frame every compiled closed form starts from (engine.flange_block) is the numpy reference's
    (closed_form._flange), bit for bit, on a tilted base with a turned, offset tool; and it is the frame the FK
    reaches at the angles: the tool taken off the TCP pose."""
    chain = _placed(load_robot(name), rng)
    model = nominal_model(chain)
    q = _random_q(chain, rng, 3000)
    R, p = fk(model, q)
    R6, o6 = closed_form_module._flange_compiled(model, R, p)
    want_R6, want_o6 = closed_form_module._flange(model, R, p)
    assert np.array_equal(R6, want_R6) and np.array_equal(o6, want_o6)
    # the TCP is the flange frame with the tool on it: R = R_base R6 R_tool, p = p_base + R_base (o6 + R6 p_tool)
    R_tcp = model.R_base @ R6 @ model.R_tool
    p_tcp = model.p_base + np.einsum("ij,mj->mi", model.R_base, o6 + np.einsum("mij,j->mi", R6, model.p_tool))
    assert np.max(np.abs(R_tcp - R)) < 1e-14 and np.max(np.abs(p_tcp - p)) < 1e-14
    assert not np.allclose(R6, R)  # (the base and tool frames were not identities)


@pytest.mark.parametrize("name", ["irb140", "ur5"])
@pytest.mark.parametrize("placed", [False, True])
def test_compiled_closed_form_equals_the_numpy_equations(name, placed, rng):
    """Every branch of every pose, out-of-reach poses included (NaN in the same places), with per-pose and
    shared ``q_near``: the compiled kernel is the numpy closed form to round-off."""
    chain = load_robot(name)
    if placed:
        chain = _placed(chain, rng)
    form = closed_form(nominal_model(chain))
    q = _random_q(chain, rng, 2000)
    R, p = fk(form.model, q)
    p = p.copy()
    p[1::11] = form.model.p_base  # on the base: shoulder undefined or wrist folded
    p[::7] = form.model.p_base + [10.0, 0.0, 0.0]  # every 7th pose 10 m away: no branch
    near = q + rng.normal(scale=2.0, size=q.shape)  # angles are shifted by whole turns towards this
    for q_near in (near, chain.home):
        got, got_valid = form.branches(R, p, q_near)
        want, want_valid = _reference_branches(form, R, p, q_near)
        assert np.array_equal(np.isnan(got), np.isnan(want))
        assert np.isnan(got[::7]).all()
        regular = np.ones(len(q), dtype=bool)
        regular[1::11] = False  # degenerate poses: signed zeros in atan2 may give -pi for pi, a whole turn apart
        np.testing.assert_allclose(got[regular], want[regular], rtol=0, atol=1e-12, equal_nan=True)
        d = np.nan_to_num(got - want)
        assert np.max(np.abs(d - 2 * np.pi * np.round(d / (2 * np.pi)))) < 1e-12
        assert np.array_equal(got_valid[regular], want_valid[regular])
        assert got_valid[~np.isnan(got[..., 0])].any() and not got_valid[::7].any()


def _follow_reference(q, penalty, q_start, jump):
    """The path's branch choice (ClosedForm.follow), one pose at a time in plain Python on every branch of every pose."""
    def dist(a, b):
        d = a - b
        d = d - 2 * np.pi * np.round(d / (2 * np.pi))
        return float(np.sqrt(d @ d))

    m, k = penalty.shape
    b = int(np.argmin([dist(q[0, c], q_start) + penalty[0, c] for c in range(k)]))
    choice = [b]
    last = q[0, b] if np.isfinite(penalty[0, b]) else q_start  # the last pose that had its branch
    for i in range(m - 1):
        if np.isinf(penalty[i, b]):
            b = int(np.argmin([dist(last, q[i + 1, c]) + penalty[i + 1, c] for c in range(k)]))
        elif dist(q[i, b], q[i + 1, b]) + penalty[i + 1, b] >= jump:
            b = int(np.argmin([dist(q[i, b], q[i + 1, c]) + penalty[i + 1, c] for c in range(k)]))
        choice.append(b)
        if np.isfinite(penalty[i + 1, b]):
            last = q[i + 1, b]
    return np.array(choice)


@pytest.mark.parametrize("pieces", [1, 3])
@pytest.mark.parametrize("name", ["irb140", "ur5"])
def test_following_a_path_computes_the_choice_all_branches_give(name, pieces, rng, monkeypatch):
    """ClosedForm.follow (only the branches the choice looks at) against every branch of every pose followed by
    the rule (_follow_reference), on a placed robot's path with smooth stretches, jumps, poses out of reach and poses whose
    branches leave the limits: the same branch at every pose, to the last bit of its angles; followed in one
    piece and in three at once (each piece's start guessed: wrong here, after the jumps)."""
    monkeypatch.setattr(closed_form_module, "FOLLOW_PIECES_FROM", 1)
    monkeypatch.setattr(closed_form_module, "FOLLOW_PIECES", pieces)
    chain = _placed(load_robot(name), rng)
    model = nominal_model(chain)
    form = closed_form(model)
    m = 4000
    q = np.cumsum(rng.normal(scale=0.01, size=(m, 6)), axis=0) + chain.home
    jumps = rng.random(m) < 0.02
    q[jumps] = _random_q(chain, rng, int(jumps.sum()))
    R, p = fk(model, q)
    far = rng.random(m) < 0.01
    p[far] = p[far] * 50.0  # out of reach: no branch
    q_start = chain.home + 0.1
    branches, within = form.branches(R, p, q_start)
    exists = ~np.isnan(branches[..., 0])
    penalty = np.where(within, 0.0, np.where(exists, 1e6, np.inf))
    choice = _follow_reference(np.where(exists[..., None], branches, 0.0), penalty, q_start, BRANCH_JUMP)
    q_path, got_penalty = form.follow(R, p, q_start, BRANCH_JUMP, 1e6)
    want = np.where(exists[..., None], branches, 0.0)[np.arange(m), choice]
    assert np.array_equal(q_path, want) and np.array_equal(got_penalty, penalty[np.arange(m), choice])
    # the cases were met: jumps to another branch, missing branches, branches outside the limits
    assert np.mean(choice[1:] != choice[:-1]) > 0.005 and np.isinf(got_penalty).sum() >= far.sum() > 0
    assert name == "ur5" or np.any(penalty == 1e6)  # (the UR5's joints turn +-360 degrees: every branch fits)
    empty = form.follow(R[:0], p[:0], q_start, BRANCH_JUMP, 1e6)
    assert empty[0].shape == (0, 6) and empty[1].shape == (0,)


@pytest.mark.parametrize("pieces", [2, 5])
def test_a_smooth_path_in_pieces_is_the_path_in_one(pieces, rng, monkeypatch):
    """A path that keeps one branch (every piece's guessed start right) and one that changes branch once in its
    last piece: followed in pieces, the angles of the path followed in one, bit for bit."""
    chain = load_robot("irb140")
    model = nominal_model(chain)
    form = closed_form(model)
    m = 3000
    q = np.cumsum(rng.normal(scale=0.002, size=(m, 6)), axis=0) + chain.home
    q[-200:, 4] = -q[-200:, 4]  # a wrist flip near the end
    R, p = fk(model, q)
    monkeypatch.setattr(closed_form_module, "FOLLOW_PIECES_FROM", 1)
    monkeypatch.setattr(closed_form_module, "FOLLOW_PIECES", 1)
    whole = form.follow(R, p, chain.home, BRANCH_JUMP, 1e6)
    monkeypatch.setattr(closed_form_module, "FOLLOW_PIECES", pieces)
    got = form.follow(R, p, chain.home, BRANCH_JUMP, 1e6)
    assert np.array_equal(got[0], whole[0]) and np.array_equal(got[1], whole[1])
