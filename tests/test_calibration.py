"""Calibration: the table's Jacobian, identification from a (PyBullet) tracker, identifiability.

PyBullet is the laser tracker: it measures the TCP of the deformed robot
with its own kinematics (simulators/pybullet/campaign.py), so the fit is
checked against an independent forward model. Tolerances come from the
stated noise and the singular values of the fit (each identified
combination's standard deviation), never from the results.
"""

from __future__ import annotations

import numpy as np
import pytest

from thermocomp import DeformationTable, deformed_model, fk, load_robot
from thermocomp.calibration.identifiability import combination_matrix
from thermocomp.calibration.identify import CalibrationOptions, identify
from thermocomp.calibration.jacobian import parameter_names, pose_jacobian
from thermocomp.calibration.observability import observability_index, suggest_poses
from thermocomp.calibration.report import calibration_text, combination_lines
from thermocomp.geometry.rotations import matrix_from_rotvec, rotvec_from_matrix
from thermocomp.io.deformation_csv import read_deformation_csv
from thermocomp.io.measurements import Measurements
from thermocomp.simulators.pybullet.campaign import simulate_measurements

ROBOTS = ("irb140", "gofa", "ur5")
#: A combination further than this many of its standard deviations from the truth fails
#: (|z| > 5 has probability 6e-7 for a Gaussian estimate).
Z_MAX = 5.0
#: Noise-free data give the combinations up to the second order of the table, which the linear
#: combinations ignore: angles of 1.7e-4 rad times displacements of about 0.5 mm across 8 rows, ~1e-7 m.
SECOND_ORDER = 1e-6


def random_table(chain, rng, translation=5e-5, angle=1.7e-4) -> DeformationTable:
    """A hidden table of the paper's size: 0.05 mm and 0.01 degree per row (tenths of a mm at the TCP)."""
    rows = rng.normal(size=(chain.n_joints + 2, 6)) * np.r_[[translation] * 3, [angle] * 3]
    return DeformationTable(joints=rows[1:-1], base=rows[0], tool=rows[-1], source="hidden")


def random_poses(chain, rng, m):
    return rng.uniform(0.8 * chain.lower, 0.8 * chain.upper, size=(m, chain.n_joints))


def tracker_pose(rotvec=(0.02, -0.03, 0.5), p=(2.5, -1.2, 0.3)):
    """A tracker placed 2.8 m away, turned by about 29 degrees."""
    T = np.eye(4)
    T[:3, :3], T[:3, 3] = matrix_from_rotvec(rotvec), p
    return T


def z_scores(fit, truth: DeformationTable) -> np.ndarray:
    """Error of every identified combination in units of its standard deviation."""
    ident = fit.identifiability
    C = combination_matrix(ident, fit.x.size)
    std = np.array([c.std for c in ident.combinations])
    return C @ (fit.x - truth.rows().ravel()) / std


@pytest.mark.parametrize("composition", ["table", "eq21"])
@pytest.mark.parametrize("robot", ROBOTS)
def test_jacobian_matches_central_differences_of_the_fk(robot, composition, rng):
    chain = load_robot(robot)
    n = chain.n_joints
    rows = rng.normal(size=(n + 2, 6)) * np.r_[1e-3, 1e-3, 1e-3, 1e-2, 1e-2, 1e-2]
    table = DeformationTable(rows[1:-1], rows[0], rows[-1])
    q = random_poses(chain, rng, 4)
    fraction = rng.uniform(0.2, 1.0, size=4)
    pj = pose_jacobian(chain, table, q, fraction, composition)
    R0, p0 = fk(deformed_model(chain, table, fraction, composition), q)
    np.testing.assert_allclose(pj.p_world_tcp, p0, rtol=0, atol=1e-15)
    np.testing.assert_allclose(pj.R_world_tcp, R0, rtol=0, atol=1e-15)
    h = 1e-6
    x = table.rows().ravel()

    def pose(values):
        r = values.reshape(n + 2, 6)
        return fk(deformed_model(chain, DeformationTable(r[1:-1], r[0], r[-1]), fraction, composition), q)

    for j in range(x.size):
        xp, xm = x.copy(), x.copy()
        xp[j] += h
        xm[j] -= h
        (Rp, pp), (Rm, pm) = pose(xp), pose(xm)
        numeric = np.concatenate([(pp - pm) / (2 * h), rotvec_from_matrix(Rp @ np.swapaxes(Rm, -1, -2)) / (2 * h)],
                                 axis=1)
        # central differences: error h^2 times the third derivative (~ reach 1 m), plus round-off 1e-16 / h
        np.testing.assert_allclose(pj.J[:, :, j], numeric, rtol=0, atol=1e-9, err_msg=parameter_names(n)[j])


@pytest.mark.parametrize(("robot", "noise_mm"), [("irb140", 0.01), ("gofa", 0.03), ("ur5", 0.05)])
def test_pybullet_tracker_misplaced_identifiable_combinations_within_noise(robot, noise_mm):
    rng = np.random.default_rng(sum(map(ord, robot)))
    chain = load_robot(robot)
    truth = random_table(chain, rng)
    sigma = noise_mm * 1e-3
    T = tracker_pose()
    q = random_poses(chain, rng, 50)
    meas = simulate_measurements(chain, truth, q, np.full(50, 300.0), lambda t: np.ones_like(t),
                                 T_tracker_world=T, position_noise=sigma, rng=rng)
    held, fitted = meas.take(np.arange(40, 50)), meas.take(np.arange(40))
    fit = identify(chain, fitted, CalibrationOptions(position_sigma=sigma, estimate_base=True))
    assert fit.converged
    ident = fit.identifiability
    # Position-only, static: 25 of the 48 parameters are seen (first order), less the 6 of the
    # unknown tracker frame, which the base row cannot be told from.
    assert ident.rank == 19 and ident.forced_rank_ok
    z = z_scores(fit, truth)
    assert np.all(np.abs(z) < Z_MAX), (np.abs(z).max(), fit.identifiability.condition)
    # The residuals are the noise: chi2 / dof about 1.
    assert 0.6 < fit.sigma_ratio < 1.5
    # Held-out poses: the identified robot predicts what the tracker sees to the noise level,
    # where the nominal robot misses by tenths of a millimetre.
    _, p_id = fk(deformed_model(chain, fit.table), held.q)
    _, p_nom = fk(deformed_model(chain, DeformationTable.zero(chain.n_joints)), held.q)
    to_tracker = fit.T_tracker_world
    predicted = p_id @ to_tracker[:3, :3].T + to_tracker[:3, 3]
    error = np.linalg.norm(held.p_tracker_tcp - predicted, axis=1)
    _, p_true = fk(deformed_model(chain, truth), held.q)
    miss = np.linalg.norm(p_true - p_nom, axis=1)
    assert np.sqrt(np.mean(error**2)) < 2.0 * np.sqrt(3) * sigma  # noise alone: sqrt(3) sigma (rms of the norm)
    assert np.median(miss) > 0.1e-3


def test_paper_measured_table_as_hidden_truth(paper):
    chain = load_robot("irb140")
    truth = read_deformation_csv(paper / "deformations_measured.csv", chain.n_joints)
    rng = np.random.default_rng(140)
    sigma = 0.02e-3
    q = random_poses(chain, rng, 40)
    meas = simulate_measurements(chain, truth, q, np.full(40, 200.0), lambda t: np.ones_like(t),
                                 position_noise=sigma, rng=rng)
    fit = identify(chain, meas, CalibrationOptions(position_sigma=sigma))
    assert np.all(np.abs(z_scores(fit, truth)) < Z_MAX)
    _, p_true = fk(deformed_model(chain, truth), q)
    _, p_fit = fk(deformed_model(chain, fit.table), q)
    _, p_nom = fk(deformed_model(chain, DeformationTable.zero(6)), q)
    # The paper's table moves the TCP by ~0.1 mm; the identified one reproduces it to the noise.
    assert np.median(np.linalg.norm(p_true - p_nom, axis=1)) > 0.05e-3
    assert np.sqrt(np.mean(np.sum((p_true - p_fit) ** 2, axis=1))) < 2.0 * np.sqrt(3) * sigma


def _noise_free(chain, table, q):
    _, p = fk(deformed_model(chain, table), q)
    return Measurements(q=q, p_tracker_tcp=p, minute=np.zeros(len(q)))


@pytest.mark.parametrize("fix", ["zero", "min-norm"])
def test_position_only_cannot_see_tool_angles_and_says_so(fix, rng):
    chain = load_robot("irb140")
    truth = random_table(chain, rng)
    meas = _noise_free(chain, truth, random_poses(chain, rng, 30))
    fit = identify(chain, meas, CalibrationOptions(fix=fix))
    names = dict(zip(fit.names, fit.status))
    status = "not identifiable: fixed at 0" if fix == "zero" else "not identifiable: minimum-norm value"
    for angle in ("tool.Dox", "tool.Doy", "tool.Doz"):
        # a rotation of the TCP frame about itself does not move the TCP point
        assert names[angle] == status
        assert fit.x[fit.names.index(angle)] == 0.0  # not a made-up value: nothing, in either mode
        j = list(fit.identifiability.candidates).index(fit.names.index(angle))
        assert fit.identifiability.null_share[j] == pytest.approx(1.0)  # entirely invisible
    not_identifiable = [i for i, s in enumerate(fit.status) if s.startswith("not identifiable")]
    assert len(not_identifiable) >= 48 - fit.identifiability.rank
    if fix == "zero":
        assert np.all(fit.x[not_identifiable] == 0.0)
    # What is identified is right: noise-free data give the combinations (to second order).
    C = combination_matrix(fit.identifiability, fit.x.size)
    np.testing.assert_allclose(C @ fit.x, C @ truth.rows().ravel(), rtol=0, atol=SECOND_ORDER)


def test_orientation_measurements_make_the_tool_angles_identifiable(rng):
    chain = load_robot("irb140")
    truth = random_table(chain, rng)
    q = random_poses(chain, rng, 30)
    R, p = fk(deformed_model(chain, truth), q)
    fit = identify(chain, Measurements(q=q, p_tracker_tcp=p, minute=np.zeros(30), R_tracker_tcp=R))
    ident = fit.identifiability
    assert ident.rank > 25
    in_combinations = {c.base for c in ident.combinations} | {i for c in ident.combinations for i, _ in c.terms}
    for angle in ("tool.Dox", "tool.Doy", "tool.Doz"):
        j = fit.names.index(angle)
        assert j in in_combinations  # seen now, alone or together with the last joint's deviations
        assert ident.null_share[list(ident.candidates).index(j)] < 0.99


def test_poses_moving_only_joint_1_leave_the_rest_unidentified_and_reported(rng):
    chain = load_robot("irb140")
    truth = random_table(chain, rng)
    q = np.tile(chain.home, (12, 1))
    q[:, 0] = np.linspace(-1.5, 1.5, 12)
    fit = identify(chain, _noise_free(chain, truth, q))
    ident = fit.identifiability
    # One joint turning: the TCP moves on one circle, which fixes at most its centre, axis and radius.
    assert ident.rank <= 9
    unseen = [name for name, s in zip(fit.names, fit.status) if s.startswith("not identifiable")]
    assert len(unseen) == 48 - ident.rank
    assert all(fit.x[fit.names.index(name)] == 0.0 for name in unseen)
    C = combination_matrix(ident, fit.x.size)
    np.testing.assert_allclose(C @ fit.x, C @ truth.rows().ravel(), rtol=0, atol=SECOND_ORDER)


def test_suggested_poses_make_the_rest_identifiable(rng):
    chain = load_robot("irb140")
    truth = random_table(chain, rng)
    q = np.tile(chain.home, (12, 1))
    q[:, 0] = np.linspace(-1.5, 1.5, 12)  # a campaign that only turns joint 1
    candidates = random_poses(chain, rng, 100)
    suggestion = suggest_poses(chain, q, candidates, 12)
    assert suggestion.rank_before <= 9
    # Every pose added raises the rank until the candidates' best (25 of 48 from positions) is reached.
    assert suggestion.rank[-1] == suggestion.rank_all == 25
    assert np.all(np.diff(np.r_[suggestion.rank_before, suggestion.rank]) >= 0)
    # Measuring the suggested poses makes those combinations identifiable in a real fit.
    both = np.vstack([q, suggestion.q])
    fit = identify(chain, _noise_free(chain, truth, both))
    assert fit.identifiability.rank == suggestion.rank_all
    # O1 is the geometric mean of the singular values per pose.
    assert observability_index(np.array([4.0, 1.0]), 2, 4) == pytest.approx(1.0)


def test_suggested_poses_do_not_depend_on_how_many_candidates_are_weighed_at_once(rng, monkeypatch):
    """The candidates are weighed in chunks (the whole (c, 48, 48) Gram stack took 563 MB at 8,000 candidates): a
    chunk smaller than the candidates, and not dividing them, chooses the same poses with the same indices."""
    import thermocomp.calibration.observability as observability

    chain = load_robot("gofa")
    q, candidates = random_poses(chain, rng, 5), random_poses(chain, rng, 61)
    whole = suggest_poses(chain, q, candidates, 15, orientation=True)
    monkeypatch.setattr(observability, "CANDIDATES_AT_ONCE", 7)
    chunked = suggest_poses(chain, q, candidates, 15, orientation=True)
    assert len(whole.index) == 15 and np.array_equal(whole.index, chunked.index)
    np.testing.assert_array_equal(whole.rank, chunked.rank)
    np.testing.assert_allclose(whole.o1, chunked.o1, rtol=1e-12)
    assert np.all(np.diff(whole.o1[whole.rank == whole.rank_all]) > 0)  # past the full rank, each pose adds O1


def test_report_names_every_unidentifiable_parameter_and_each_residual(rng):
    chain = load_robot("ur5")
    truth = random_table(chain, rng)
    meas = _noise_free(chain, truth, random_poses(chain, rng, 15))
    fit = identify(chain, meas, CalibrationOptions(position_sigma=1e-5))
    text = calibration_text(fit, meas, "ur5")
    unseen = [n for n, s in zip(fit.names, fit.status) if s.startswith("not identifiable")]
    block = text.split("Not identifiable from these poses")[1].splitlines()[1]
    assert block.strip().split(", ") == unseen
    assert f"{fit.identifiability.rank} of 48 table parameters identifiable" in text
    assert len(combination_lines(fit)) == fit.identifiability.rank
    assert sum(line.startswith("  #") for line in text.splitlines()) == 15  # one residual line per measurement
