"""Extended forward kinematics (seed 002, Eqs. 18-22) and the batch IK solver."""

from __future__ import annotations

import numpy as np
import pytest

from thermocomp.deformation import DeformationTable, deformed_model
from thermocomp.geometry import rot_x, rot_y, rot_z, rotation_angle, transform
from thermocomp.io.robots import BUILTIN_ROBOTS, load_robot
from thermocomp.kinematics.fk import fk, fk_jacobian, fk_matrix
from thermocomp.kinematics.ik import IKOptions, Status, fit_limits, solve_ik
from thermocomp.kinematics.model import nominal_model
from thermocomp.kinematics.seeding import solve_nominal_configuration
from thermocomp.tolerances import IK_ORIENTATION_TOL, IK_POSITION_TOL


def random_table(rng, n, mm=2.0, deg=1.0):
    return DeformationTable.from_mm_deg(
        np.hstack([rng.uniform(-mm, mm, (n, 3)), rng.uniform(-deg, deg, (n, 3))]),
        base_mm_deg=np.r_[rng.uniform(-mm, mm, 3), rng.uniform(-deg, deg, 3)],
        tool_mm_deg=np.r_[rng.uniform(-mm, mm, 3), rng.uniform(-deg, deg, 3)],
    )


def random_q(chain, rng, size):
    lo = np.maximum(chain.lower, -np.pi)
    hi = np.minimum(chain.upper, np.pi)
    return rng.uniform(lo, hi, (size, chain.n_joints))


def paper_fk(chain, table, q):
    """Seed 002, Eqs. 18-22 written out matrix by matrix: Tx Ty Tz (p + d), Rx Ry Rz (deviations), R_joint."""

    def trans(v):
        return transform(p=v)

    def rot(R):
        return transform(R=R)

    rows = table.rows()
    theta = chain.theta_from_q(q)
    T = (trans(chain.T_world_base[:3, 3] + rows[0, :3]) @ rot(rot_x(rows[0, 3]) @ rot_y(rows[0, 4]) @ rot_z(rows[0, 5]))
         @ rot(chain.T_world_base[:3, :3]))
    for i in range(chain.n_joints):
        d = rows[i + 1]
        T = T @ trans([chain.p[i, 0] + d[0], 0, 0]) @ trans([0, chain.p[i, 1] + d[1], 0]) @ trans([0, 0, chain.p[i, 2] + d[2]])
        T = T @ rot(rot_x(d[3])) @ rot(rot_y(d[4])) @ rot(rot_z(d[5]))
        a = chain.axis[i]
        K = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
        T = T @ rot(np.eye(3) + np.sin(theta[i]) * K + (1 - np.cos(theta[i])) * K @ K)
    d = rows[-1]
    T = T @ trans(chain.T_last_tcp[:3, 3] + d[:3]) @ rot(rot_x(d[3]) @ rot_y(d[4]) @ rot_z(d[5])) @ rot(chain.T_last_tcp[:3, :3])
    return T


@pytest.mark.parametrize("name", BUILTIN_ROBOTS)
def test_batch_fk_equals_matrix_by_matrix_product(name, rng):
    chain = load_robot(name)
    table = random_table(rng, chain.n_joints)
    q = random_q(chain, rng, 20)
    T = fk_matrix(deformed_model(chain, table), q)
    for k in range(len(q)):
        np.testing.assert_allclose(T[k], paper_fk(chain, table, q[k]), atol=1e-14)


@pytest.mark.parametrize("name", BUILTIN_ROBOTS)
def test_compiled_models_per_row_equal_numpys(name, rng, monkeypatch):
    """One deformed robot per row (a timed program's rows), built in the compiled engine from ENGINE_MIN_ROWS rows on:
    the same frames as numpy's, for a table with base and tool rows, a rotated base, zero and negative fractions;
    and the paper's matrix-by-matrix FK on a sample."""
    from dataclasses import replace

    from thermocomp.deformation import apply
    from thermocomp.kinematics.dispatch import ENGINE_MIN_ROWS

    chain = replace(load_robot(name), T_world_base=transform(rot_z(0.7) @ rot_x(0.2), [0.1, -0.2, 0.3]))
    table = random_table(rng, chain.n_joints)
    fraction = rng.uniform(-0.5, 1.5, ENGINE_MIN_ROWS + 37)
    fraction[:3] = [0.0, -0.0, 1.0]
    compiled = deformed_model(chain, table, fraction)
    monkeypatch.setattr(apply, "runs_compiled", lambda rows: False)
    reference = deformed_model(chain, table, fraction)
    for part in ("R_base", "p_base", "R_joint", "p_joint", "R_tool", "p_tool"):
        got, expected = getattr(compiled, part), getattr(reference, part)
        assert got.shape == expected.shape and got.flags.c_contiguous
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-15)
    q = random_q(chain, rng, 5)
    for k, r in enumerate([0, 3, 500, 900, len(fraction) - 1]):
        scaled = DeformationTable(joints=table.joints * fraction[r], base=table.base * fraction[r],
                                  tool=table.tool * fraction[r])
        np.testing.assert_allclose(fk_matrix(compiled.take(np.array([r])), q[k:k + 1])[0],
                                   paper_fk(chain, scaled, q[k]), atol=1e-14)


@pytest.mark.parametrize("name", BUILTIN_ROBOTS)
def test_zero_table_is_the_nominal_robot_exactly(name, rng):
    chain = load_robot(name)
    q = random_q(chain, rng, 50)
    R0, p0 = fk(nominal_model(chain), q)
    R1, p1 = fk(deformed_model(chain, DeformationTable.zero(chain.n_joints)), q)
    assert np.array_equal(R0, R1) and np.array_equal(p0, p1)


def test_irb140_home_pose_is_abb_tool0():
    chain = load_robot("irb140")
    R, p = fk(nominal_model(chain), np.zeros(6))
    np.testing.assert_allclose(p * 1e3, [515.0, 0.0, 712.0], atol=1e-12)
    np.testing.assert_allclose(R[:, 2], [1.0, 0.0, 0.0], atol=1e-15)  # tool z along base +X


@pytest.mark.parametrize("name", BUILTIN_ROBOTS)
def test_jacobian_matches_finite_differences(name, rng):
    chain = load_robot(name)
    model = deformed_model(chain, random_table(rng, chain.n_joints))
    q = random_q(chain, rng, 5)
    R, p, J = fk_jacobian(model, q)
    h = 1e-7
    for j in range(chain.n_joints):
        dq = np.zeros(chain.n_joints)
        dq[j] = h
        Rp, pp = fk(model, q + dq)
        Rm, pm = fk(model, q - dq)
        np.testing.assert_allclose(J[:, :3, j], (pp - pm) / (2 * h), atol=1e-7)
        # angular velocity: vee of (dR/dq) R^T
        W = (Rp - Rm) / (2 * h) @ np.swapaxes(R, -1, -2)
        np.testing.assert_allclose(J[:, 3:, j], np.stack([W[:, 2, 1], W[:, 0, 2], W[:, 1, 0]], axis=1), atol=1e-7)


@pytest.mark.parametrize("name", BUILTIN_ROBOTS)
def test_fk_of_ik_is_the_target_on_thousands_of_random_poses(name, rng):
    """FK(IK(T)) = T: targets from random configurations of a deformed robot, seeds 2 deg away."""
    chain = load_robot(name)
    model = deformed_model(chain, random_table(rng, chain.n_joints))
    q_true = random_q(chain, rng, 2000)
    R, p = fk(model, q_true)
    seed = q_true + np.radians(rng.uniform(-2, 2, q_true.shape))
    result = solve_ik(model, R, p, seed)
    ok = result.status == Status.CONVERGED
    assert ok.mean() > 0.995, f"only {ok.mean():.1%} converged"
    R2, p2 = fk(model, result.q[ok])
    # the solver's own tolerance, re-measured independently of its bookkeeping
    assert np.max(np.linalg.norm(p2 - p[ok], axis=1)) <= IK_POSITION_TOL
    assert np.max(rotation_angle(R2 @ np.swapaxes(R[ok], -1, -2))) <= IK_ORIENTATION_TOL * 1.01
    assert np.all(chain.within_limits(result.q[ok]))


def test_unreachable_target_is_reported_while_the_others_solve(rng):
    chain = load_robot("irb140")
    model = nominal_model(chain)
    q_true = random_q(chain, rng, 3)
    R, p = fk(model, q_true)
    p = p.copy()
    p[1] = [3.0, 0.0, 0.5]  # 3 m away: beyond the IRB140's 0.81 m reach
    result = solve_ik(model, R, p, q_true + 0.01)
    assert list(result.status) == [Status.CONVERGED, Status.UNREACHABLE, Status.CONVERGED]
    assert result.position_error[1] > 1.0


def test_joint_limit_status_when_the_only_solution_is_outside():
    chain = load_robot("irb140")
    model = nominal_model(chain)
    q = np.zeros((1, 6))
    q[0, 1] = np.radians(-100)  # joint 2 below its -90 deg limit
    R, p = fk(model, q)
    result = solve_ik(model, R, p, q)
    assert result.status[0] == Status.JOINT_LIMIT


def test_fit_limits_shifts_by_whole_turns_nearest_the_seed():
    lower, upper = np.radians([-400.0]), np.radians([400.0])
    q, fits = fit_limits(np.radians([[10.0]]), lower, upper, np.radians([[350.0]]))
    assert fits.all() and np.isclose(np.degrees(q[0, 0]), 370.0)
    q, fits = fit_limits(np.radians([[200.0]]), np.radians([-180.0]), np.radians([180.0]), np.zeros((1, 1)))
    assert fits.all() and np.isclose(np.degrees(q[0, 0]), -160.0)


def test_nominal_configuration_follows_the_reference(rng):
    """Two references on different elbow branches give two different solutions of one pose."""
    chain = load_robot("irb140")
    model = nominal_model(chain)
    q_a = np.radians([[10.0, 20.0, -30.0, 15.0, 40.0, -20.0]])
    R, p = fk(model, q_a)
    res_a = solve_nominal_configuration(model, R, p, q_a)
    np.testing.assert_allclose(res_a.q, q_a, atol=1e-8)
    wrist_flipped = q_a + np.radians([[0, 0, 0, 180, 0, 180]]) * [[1, 1, 1, 1, -1, 1]]
    wrist_flipped[0, 4] = -q_a[0, 4]
    res_b = solve_nominal_configuration(model, R, p, wrist_flipped)
    assert res_b.status[0] == Status.CONVERGED
    assert np.sign(res_b.q[0, 4]) == -np.sign(q_a[0, 4])


def test_ik_options_reject_nonsense():
    with pytest.raises(Exception, match="tolerances"):
        IKOptions(position_tol=0.0)


def test_eq21_composition_is_the_papers_equations_18_to_20(rng):
    """composition="eq21": Trans(D) @ Rx Ry Rz @ Trans(p), then the joint rotation (seed 002, Eqs. 18-20)."""
    chain = load_robot("irb140")
    table = random_table(rng, chain.n_joints)
    q = random_q(chain, rng, 10)
    T = fk_matrix(deformed_model(chain, table, composition="eq21"), q)
    rows = table.rows()
    for k in range(len(q)):
        theta = chain.theta_from_q(q[k])
        d = rows[0]
        M = transform(p=d[:3]) @ transform(R=rot_x(d[3]) @ rot_y(d[4]) @ rot_z(d[5])) @ chain.T_world_base
        for i in range(chain.n_joints):
            d = rows[i + 1]
            a = chain.axis[i]
            M = M @ transform(p=d[:3]) @ transform(R=rot_x(d[3]) @ rot_y(d[4]) @ rot_z(d[5])) @ transform(p=chain.p[i])
            M = M @ transform(R=_rodrigues(a, theta[i]))
        d = rows[-1]
        M = M @ transform(p=d[:3]) @ transform(R=rot_x(d[3]) @ rot_y(d[4]) @ rot_z(d[5])) @ chain.T_last_tcp
        np.testing.assert_allclose(T[k], M, atol=1e-14)


def _rodrigues(a, angle):
    K = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
    return np.eye(3) + np.sin(angle) * K + (1 - np.cos(angle)) * K @ K


def test_compositions_agree_without_angular_deviations(rng):
    chain = load_robot("irb140")
    joints = np.hstack([rng.uniform(-1, 1, (6, 3)), np.zeros((6, 3))])
    table = DeformationTable.from_mm_deg(joints)
    q = random_q(chain, rng, 10)
    np.testing.assert_allclose(fk_matrix(deformed_model(chain, table), q),
                               fk_matrix(deformed_model(chain, table, composition="eq21"), q), atol=1e-15)


@pytest.mark.parametrize("beta", [0.3, np.pi / 2, np.pi / 2 - 1e-6, np.pi / 2 - 1e-9, np.pi / 2 - 1e-11,
                                  -np.pi / 2 + 1e-7, -np.pi / 2])
def test_euler_xyz_round_trip_rebuilds_the_rotation_near_gimbal_lock(beta, rng):
    from thermocomp.geometry import euler_xyz_from_matrix, matrix_from_euler_xyz

    angles = np.column_stack([rng.uniform(-np.pi, np.pi, 200), np.full(200, beta), rng.uniform(-np.pi, np.pi, 200)])
    R = matrix_from_euler_xyz(angles)
    back = euler_xyz_from_matrix(R)
    from thermocomp.geometry.rotations import GIMBAL_LOCK_COS

    locked = np.cos(beta) < GIMBAL_LOCK_COS
    np.testing.assert_allclose(matrix_from_euler_xyz(back), R, atol=np.pi * GIMBAL_LOCK_COS if locked else 1e-14)
    assert np.all(np.abs(back[:, 1]) <= np.pi / 2)


def test_euler_xyz_of_the_papers_targets_reads_back_as_typed():
    """(0, 90, 0) deg, up to a few 1e-10 deg of round-off, must not come back as (-151, 90, 151)."""
    from thermocomp.geometry import euler_xyz_from_matrix, matrix_from_euler_xyz, rot_y

    R = matrix_from_euler_xyz(np.radians([0.0, 90.0, 0.0])) @ rot_y(np.radians(-2e-9))
    np.testing.assert_allclose(np.degrees(euler_xyz_from_matrix(R)), [0.0, 90.0, 0.0], atol=1e-8)


@pytest.mark.parametrize("name", BUILTIN_ROBOTS)
def test_sigma_min_bound_is_a_lower_bound_and_exact_near_singularities(name, rng):
    from thermocomp.kinematics.ik import sigma_min_lower_bound
    from thermocomp.tolerances import NEAR_SINGULAR_SIGMA, SETTLED_SIGMA

    chain = load_robot(name)
    q = random_q(chain, rng, 500)
    q[:50, 4] = rng.uniform(-1e-4, 1e-4, 50)  # wrist nearly stretched: near singular for every built-in
    _, _, J = fk_jacobian(nominal_model(chain), q)
    exact = np.linalg.svd(J, compute_uv=False)[:, -1]
    bound = sigma_min_lower_bound(J)
    assert np.all(bound <= exact * (1 + 1e-9))
    # and a tight one where it is not settled (1 / |J^-1|_F: at most sqrt(n) below), so that only rows within
    # sqrt(n) of SETTLED_SIGMA go on to the dearer tiers
    assert np.all(bound >= np.minimum(exact / np.sqrt(J.shape[2]) * (1 - 1e-9), SETTLED_SIGMA))
    near = exact < 10 * NEAR_SINGULAR_SIGMA
    np.testing.assert_allclose(bound[near], exact[near], rtol=1e-12)
    assert np.any(near)


@pytest.mark.parametrize("name", BUILTIN_ROBOTS)
def test_compiled_jacobian_rates_equal_lapacks(name, rng):
    """The feasibility check's one compiled pass (Jacobian, singular-value bound, joint rates) against numpy's SVD
    and LAPACK's solve: the bound never exceeds the smallest singular value and equals it near a singularity,
    the rates solve ``J qd = twist``, and a singular row falls back to least squares."""
    from thermocomp.kinematics.dispatch import ENGINE_MIN_ROWS
    from thermocomp.kinematics.ik import sigma_and_joint_rates
    from thermocomp.tolerances import NEAR_SINGULAR_SIGMA, SETTLED_SIGMA

    chain = load_robot(name)
    model = nominal_model(chain)
    q = random_q(chain, rng, ENGINE_MIN_ROWS + 200)
    q[:50, 4] = rng.uniform(-1e-4, 1e-4, 50)  # near singular
    q[50:55, 4] = 0.0  # wrist stretched: singular for every built-in
    v, w, lever = (rng.normal(size=(q.shape[0], 3)) for _ in range(3))
    twist = np.concatenate([v - np.cross(w, lever), w], axis=1)  # the flange's, of the TCP's (v, w) at lever
    sigma, qd = sigma_and_joint_rates(model, q, (v, w, lever))
    _, _, J = fk_jacobian(model, q)
    exact = np.linalg.svd(J, compute_uv=False)[:, -1]
    assert np.all(sigma <= exact * (1 + 1e-9))
    assert np.all(sigma >= np.minimum(exact / np.sqrt(6) * (1 - 1e-9), SETTLED_SIGMA))
    near = exact < 10 * NEAR_SINGULAR_SIGMA
    np.testing.assert_allclose(sigma[near], exact[near], rtol=1e-12)
    regular = exact > 1e-6
    expected = np.linalg.solve(J[regular], twist[regular][..., None])[..., 0]
    cond = exact[regular] ** -1 * np.linalg.norm(J[regular], ord=2, axis=(1, 2))
    assert np.all(np.linalg.norm(qd[regular] - expected, axis=1)
                  <= 1e-11 * cond * np.maximum(np.linalg.norm(expected, axis=1), 1.0))
    least = np.einsum("kij,kj->ki", np.linalg.pinv(J[50:55]), twist[50:55])
    np.testing.assert_allclose(qd[50:55], least, rtol=1e-9, atol=1e-12)
    # the numpy reference path (fewer rows than the compiled pass takes: LAPACK's solve) gives the same, to the
    # conditioning of each system
    few_sigma, few_qd = sigma_and_joint_rates(model, q[:200], (v[:200], w[:200], lever[:200]))
    np.testing.assert_allclose(few_sigma, sigma[:200], rtol=1e-12)
    few = np.flatnonzero(regular[:200])
    cond_few = np.linalg.norm(J[few], ord=2, axis=(1, 2)) / exact[few]
    assert np.all(np.linalg.norm(few_qd[few] - qd[few], axis=1)
                  <= 1e-11 * cond_few * np.maximum(np.linalg.norm(qd[few], axis=1), 1.0))
    np.testing.assert_allclose(few_qd[50:55], qd[50:55], rtol=1e-9, atol=1e-12)  # (least squares, both)


def test_compiled_pose_errors_equal_numpys(rng):
    """pose_errors (the engine's, at every batch size) against pose_error (numpy, its reference): random rotations,
    the identity, angles near pi (the quaternion branch) and exactly pi."""
    from thermocomp.geometry.rotations import matrix_from_rotvec
    from thermocomp.kinematics.dispatch import ENGINE_MIN_ROWS
    from thermocomp.kinematics.ik import pose_error, pose_errors

    m = ENGINE_MIN_ROWS + 500
    axis = rng.normal(size=(m, 3))
    axis /= np.linalg.norm(axis, axis=1, keepdims=True)
    angle = rng.uniform(0, np.pi, m)
    angle[:50] = 0.0
    angle[50:100] = np.pi - rng.uniform(0, 1e-6, 50)
    angle[100:150] = np.pi
    angle[150:200] = rng.uniform(0, 1e-9, 50)
    R = matrix_from_rotvec(rng.normal(size=(m, 3)))
    R_target = matrix_from_rotvec(axis * angle[:, None]) @ R
    p, p_target = rng.normal(size=(m, 3)), rng.normal(size=(m, 3))
    got = pose_errors(R_target, p_target, R, p)
    expected = pose_error(R_target, p_target, R, p)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)
    assert np.all(np.abs(np.linalg.norm(got[:, 3:], axis=1) - angle) < 1e-7)  # the angle itself, independently
    # a row's error does not depend on its batch (the engine at every size, also for one row and none)
    np.testing.assert_array_equal(pose_errors(R_target[:10], p_target[:10], R[:10], p[:10]), got[:10])
    np.testing.assert_array_equal(pose_errors(R_target[7:8], p_target[7:8], R[7:8], p[7:8]), got[7:8])
    assert pose_errors(R_target[:0], p_target[:0], R[:0], p[:0]).shape == (0, 6)


def test_fk_helpers_equal_their_numpy_forms(rng):
    """The column pick for a principal axis and the written-out cross product are R @ axis and np.cross."""
    from thermocomp.geometry.rotations import matrix_from_quat_wxyz
    from thermocomp.kinematics.fk import _axis_in_world, _cross
    R = matrix_from_quat_wxyz(rng.normal(size=(50, 4)))
    for axis in ([1.0, 0, 0], [0, -1.0, 0], [0, 0, 1.0], [0.6, 0, -0.8]):
        np.testing.assert_array_equal(_axis_in_world(R, np.array(axis)), R @ np.array(axis))
    a, b = rng.normal(size=(50, 6, 3)), rng.normal(size=(50, 1, 3))
    np.testing.assert_allclose(_cross(a, b), np.cross(a, b), rtol=0, atol=1e-15)
