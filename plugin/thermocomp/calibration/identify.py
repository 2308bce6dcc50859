"""Identify a deformation table from tracker measurements: stacked, weighted Gauss-Newton.

For measurement ``i`` (controller angles ``q_i``, minute ``t_i``) the model
predicts the TCP in the tracker frame::

    T_tracker_tcp,i = T_tracker_world · FK(deformed_model(chain, table, s(t_i)), q_i)

(seed 002, Eq. 22 with the rows of Tables 6-7; ``s`` the time law's
fraction, 1 for a static fit). The unknowns are the table's parameters
(:func:`thermocomp.calibration.jacobian.parameter_names`), optionally the
tracker frame (``estimate_base``: 6 parameters, a small rotation and
translation on top of a rigid best fit) and the time law's parameters
(:mod:`thermocomp.calibration.timefit`). Residuals are divided by the
tracker's stated standard deviations; each step solves the linearised
problem with :mod:`~thermocomp.calibration.identifiability`'s split into
identifiable combinations and parameters the poses cannot see, which are
held at zero (``fix="zero"``) or given the minimum-norm value
(``fix="min-norm"``) -- and reported as such, never as identified.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import scipy.stats

from thermocomp._typing import FloatArray
from thermocomp.calibration._blas import single_threaded_blas
from thermocomp.calibration.identifiability import Identifiability, analyse
from thermocomp.calibration.jacobian import parameter_names, pose_jacobian
from thermocomp.deformation.apply import COMPOSITIONS
from thermocomp.deformation.table import DeformationTable
from thermocomp.errors import ConfigurationError, InputError
from thermocomp.geometry.rotations import matrix_from_rotvec, rotvec_from_matrix, skew
from thermocomp.io.measurements import Measurements
from thermocomp.robot.chain import Chain

#: How parameters the poses cannot identify are fixed.
FIXES = ("zero", "min-norm")
#: Which rows of the table are estimated.
ROW_GROUPS = ("base", "joints", "tool")
#: One scaled unit of a translation parameter [m]: the fit is conditioned in
#: millimetres, the size of the deformations it looks for.
TRANSLATION_UNIT = 1e-3
#: Huber's weight: a measurement keeps its full weight while its normalised residual is within the
#: stated noise with this probability (:func:`huber_threshold`).
HUBER_QUANTILE = 0.99
#: The outlier test: the chance that a campaign that follows the model with the stated noise
#: has a measurement named an outlier (:func:`outlier_threshold`).
OUTLIER_ALPHA = 1e-3
#: Most measurements the outlier test leaves out, as a share of all: an outlier is a rare, isolated reading
#: (a broken line of sight, a typing slip); more measurements beyond the limit say that the model or the law
#: does not explain the data, and leaving them out would hide that.
MAX_OUTLIER_SHARE = 0.05
#: When more than MAX_OUTLIER_SHARE of the measurements are beyond the outlier limit, the outliers are those
#: beyond this many times the residual that all but that share of the measurements stay within: gross errors.
OUTLIER_GAP = 10.0
#: The robust run's convergence [scaled units, about mm at the TCP]: it only has to name the outliers, whose
#: residuals are many stated deviations (tens of micrometres) off; the least-squares run converges to ``step_tol``.
ROBUST_STEP_TOL = 1e-4
#: Measurements the tracker frame's robust start compares each one with (distances to a spread sample).
KABSCH_SAMPLE = 200


@dataclass(frozen=True)
class CalibrationOptions:
    """How to fit a table to tracker measurements.

    Parameters
    ----------
    position_sigma
        The tracker's stated standard deviation per coordinate [m] (e.g.
        2e-5: 0.02 mm), > 0. Residuals are divided by it.
    orientation_sigma
        Standard deviation of measured orientations [rad] (per axis of the
        rotation vector), > 0; used only when orientations are measured.
    estimate_base
        Estimate the tracker frame ``T_tracker_world`` too (6 parameters).
    fix
        ``"zero"``: parameters the poses cannot identify stay at zero and the
        identified combinations carry them; ``"min-norm"``: the minimum-norm
        solution in the scaled parameters.
    rows
        Rows of the table to estimate, a subset of :data:`ROW_GROUPS`.
    composition
        ``"table"`` or ``"eq21"`` (:func:`thermocomp.deformation.deformed_model`).
    rcond
        Relative singular-value threshold of the numerical rank, in (0, 1).
        A direction whose singular value is below ``rcond`` times the
        largest is reported as not identifiable: its standard deviation
        would be more than ``1 / rcond`` times that of the best-determined
        combination. The default 1e-4 also keeps out directions that only the
        deformation's own second-order effects make visible (about 1e-5 of
        the largest singular value on the built-in robots): in principle
        identifiable, in practice metres of uncertainty.
    max_iterations
        Gauss-Newton iterations, >= 1.
    step_tol
        Convergence: the largest step in scaled units (about mm at the TCP), > 0.
    """

    position_sigma: float = 2e-5
    orientation_sigma: float = 1e-4
    estimate_base: bool = False
    fix: str = "zero"
    rows: tuple[str, ...] = ROW_GROUPS
    composition: str = "table"
    rcond: float = 1e-4
    max_iterations: int = 30
    step_tol: float = 1e-9

    def __post_init__(self) -> None:
        for name in ("position_sigma", "orientation_sigma", "step_tol"):
            value = getattr(self, name)
            if not (np.isfinite(value) and value > 0):
                raise ConfigurationError(f"{name}: expected a positive number, got {value!r}")
        if self.fix not in FIXES:
            raise ConfigurationError(f"fix: expected one of {FIXES}, got {self.fix!r}")
        if not self.rows or any(r not in ROW_GROUPS for r in self.rows):
            raise ConfigurationError(f"rows: expected a non-empty subset of {ROW_GROUPS}, got {self.rows!r}")
        if self.composition not in COMPOSITIONS:
            raise ConfigurationError(f"composition: expected one of {COMPOSITIONS}, got {self.composition!r}")
        if not (0 < self.rcond < 1):
            raise ConfigurationError(f"rcond: expected a number in (0, 1), got {self.rcond!r}")
        if self.max_iterations < 1:
            raise ConfigurationError(f"max_iterations: expected >= 1, got {self.max_iterations}")


@dataclass(frozen=True, eq=False)
class FractionModel:
    """A time law with free parameters, as the fit sees it.

    Attributes
    ----------
    names
        Parameter names, e.g. ``("log_tau_min",)``.
    scale
        One scaled unit of each parameter, ``(L,)``.
    fractions
        ``fractions(theta, measurements) -> (m,)``: the share of the table at each measurement.
    """

    names: tuple[str, ...]
    scale: FloatArray
    fractions: Callable[[FloatArray, Measurements], FloatArray]


STATIC_FRACTIONS = FractionModel((), np.zeros(0), lambda theta, meas: np.ones(meas.n))


@dataclass(frozen=True, eq=False)
class Fit:
    """The result of :func:`identify` (SI; table parameters in :func:`parameter_names` order).

    Attributes
    ----------
    table
        The identified table (unidentifiable parameters at their fixed value).
    T_tracker_world
        The tracker frame, ``(4, 4)`` (identity without ``estimate_base``).
    theta
        Time-law parameters ``(L,)`` (empty for a static fit).
    theta_std
        Their standard deviations ``(L,)`` (from the stated uncertainty).
    names
        Table parameter names ``(P,)``.
    status
        Per table parameter: ``"identified"`` (alone), ``"combination"``
        (identified only with the parameters its combination lists),
        ``"not identifiable: fixed at 0"`` / ``"not identifiable: minimum-norm value"``,
        or ``"not estimated"`` (its row was left out).
    identifiability
        At the estimate.
    residual_position
        ``(m, 3)`` measured minus predicted position [m], tracker frame.
    residual_angle
        ``(m,)`` angle between measured and predicted orientation [rad], or ``None``.
    chi2, dof
        Weighted sum of squared residuals and degrees of freedom.
    iterations, converged
        Gauss-Newton iterations used and whether the step fell below ``step_tol``.
    fractions
        Share of the table at each measurement ``(m,)``.
    outliers
        Indices of the measurements the outlier test left out of the fit
        (:func:`outlier_threshold`); ``chi2`` and ``dof`` count the others.
    beyond_limit
        Indices of the measurements beyond the outlier test's limit in the
        robust fit: the outliers when they are at most :data:`MAX_OUTLIER_SHARE`
        of the measurements; more are a model (or law) that does not explain
        the data, and only those beyond :data:`OUTLIER_GAP` times the bulk's
        residuals are left out.
    normalised_residual
        ``(m,)`` each measurement's residual divided by the stated standard
        deviations, as one norm (outliers included).
    cost
        Huber's cost of every measurement (outliers included) at the estimate
        (:func:`huber_cost`): ``chi2`` where no measurement is beyond
        :func:`huber_threshold`, growing only linearly beyond it. The same data
        for every law, so a time-law choice can compare fits by it.
    """

    table: DeformationTable
    T_tracker_world: FloatArray
    theta: FloatArray
    theta_std: FloatArray
    names: tuple[str, ...]
    status: tuple[str, ...]
    identifiability: Identifiability
    residual_position: FloatArray
    residual_angle: FloatArray | None
    chi2: float
    dof: int
    iterations: int
    converged: bool
    fractions: FloatArray
    options: CalibrationOptions = field(default_factory=CalibrationOptions)
    outliers: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=int))
    beyond_limit: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=int))
    normalised_residual: FloatArray = field(default_factory=lambda: np.zeros(0))
    cost: float = float("nan")

    @property
    def x(self) -> FloatArray:
        """The table's parameters as one vector ``(P,)`` (SI)."""
        return self.table.rows().ravel()

    @property
    def sigma_ratio(self) -> float:
        """``sqrt(chi2 / dof)``: about 1 when the stated uncertainty matches the residuals."""
        return float(np.sqrt(self.chi2 / self.dof)) if self.dof > 0 else float("nan")


def table_scale(chain: Chain) -> FloatArray:
    """One scaled unit of each table parameter ``(6 (n + 2),)``: 1 mm, or the angle that moves the reach by 1 mm."""
    angle = TRANSLATION_UNIT / chain.size
    return np.tile([TRANSLATION_UNIT] * 3 + [angle] * 3, chain.n_joints + 2)


def _candidate_mask(n_joints: int, rows: tuple[str, ...]) -> np.ndarray:
    mask = np.zeros((n_joints + 2, 6), dtype=bool)
    mask[0] = "base" in rows
    mask[1:-1] = "joints" in rows
    mask[-1] = "tool" in rows
    return mask.ravel()


def _candidates(n_joints: int, rows: tuple[str, ...]) -> np.ndarray:
    """Indices of the estimated table parameters, joint rows first, then tool, then base.

    QR with pivoting breaks ties between equal columns (e.g. the base's and
    joint 1's deviation about a vertical axis) in favour of the first, so a
    combination is named after a joint's row rather than the base's where
    they are the same.
    """
    index = np.flatnonzero(_candidate_mask(n_joints, rows))
    order = np.where(index < 6, 2, np.where(index >= 6 * (n_joints + 1), 1, 0))
    return index[np.argsort(order, kind="stable")]


def kabsch(p_from: FloatArray, p_to: FloatArray) -> FloatArray:
    """The rigid transform ``T`` ``(4, 4)`` minimising ``sum |T p_from - p_to|^2`` (Kabsch), points ``(m, 3)``."""
    a0, b0 = p_from.mean(axis=0), p_to.mean(axis=0)
    H = (p_from - a0).T @ (p_to - b0)
    U, _, Vt = np.linalg.svd(H)
    d = np.sign(np.linalg.det(Vt.T @ U.T))
    R = Vt.T @ np.diag([1.0, 1.0, d]) @ U.T
    T = np.eye(4)
    T[:3, :3], T[:3, 3] = R, b0 - R @ a0
    return T


def check_measurements(chain: Chain, meas: Measurements, options: CalibrationOptions) -> None:
    """Raise :class:`InputError` when the measurements cannot feed this fit at all."""
    if meas.n_joints != chain.n_joints:
        raise InputError(f"expected {chain.n_joints} joint angles per measurement for {chain.name}, "
                         f"got {meas.n_joints}", path=meas.source)
    if options.estimate_base:
        centred = meas.p_tracker_tcp - meas.p_tracker_tcp.mean(axis=0)
        if meas.n < 3 or np.linalg.svd(centred, compute_uv=False)[1] < 1e-3:
            raise InputError("--estimate-base needs TCP positions spread in at least two directions "
                             f"(3 or more poses, not on one line); got {meas.n}", path=meas.source)


class _Problem:
    """Prediction, residual and Jacobian of one fit (parameters: table, law, tracker)."""

    def __init__(self, chain: Chain, meas: Measurements, options: CalibrationOptions, law: FractionModel) -> None:
        self.chain, self.meas, self.options, self.law = chain, meas, options, law
        n = chain.n_joints
        self.P, self.L = 6 * (n + 2), len(law.names)
        self.B = 6 if options.estimate_base else 0
        length = chain.size
        tracker_scale = [TRANSLATION_UNIT] * 3 + [TRANSLATION_UNIT / length] * 3
        self.scale = np.concatenate([table_scale(chain), law.scale, tracker_scale[: self.B]])
        w = np.full((meas.n, 6 if meas.has_orientation else 3), 1.0 / options.position_sigma)
        if meas.has_orientation:
            w[:, 3:] = 1.0 / options.orientation_sigma
        self.weight = w

    def table(self, x: FloatArray) -> DeformationTable:
        rows = x.reshape(-1, 6)
        return DeformationTable(joints=rows[1:-1], base=rows[0], tool=rows[-1], source="calibration")

    def evaluate(self, x: FloatArray, theta: FloatArray, T: FloatArray, jacobian: bool = True):
        """Weighted residual ``(N,)``, weighted scaled Jacobian ``(N, Z)`` (or None), and the raw pieces."""
        meas, opts = self.meas, self.options
        table = self.table(x)
        s = self.law.fractions(theta, meas)
        pj = pose_jacobian(self.chain, table, meas.q, s, opts.composition)
        R_tw, t_tw = T[:3, :3], T[:3, 3]
        p_pred = pj.p_world_tcp @ R_tw.T + t_tw
        r_p = meas.p_tracker_tcp - p_pred
        parts = [r_p]
        r_o = None
        if meas.has_orientation:
            R_pred = R_tw @ pj.R_world_tcp
            r_o = rotvec_from_matrix(meas.R_tracker_tcp @ np.swapaxes(R_pred, -1, -2))
            parts.append(r_o)
        k = self.weight.shape[1]
        r = (np.concatenate(parts, axis=1) * self.weight).ravel()
        if not jacobian:
            return r, None, r_p, r_o, s
        J_tab = np.concatenate([R_tw @ pj.J[:, :3], R_tw @ pj.J[:, 3:]], axis=1)[:, :k]  # (m, k, P)
        cols = [J_tab]
        if self.L:
            dpose_ds = np.einsum("mkp,p->mk", pj.J_applied, table.rows().ravel())  # (m, 6) world
            dpose_ds = np.concatenate([dpose_ds[:, :3] @ R_tw.T, dpose_ds[:, 3:] @ R_tw.T], axis=1)[:, :k]
            ds = np.empty((meas.n, self.L))
            for j in range(self.L):
                h = 1e-6 * max(1.0, abs(theta[j]))
                tp, tm = theta.copy(), theta.copy()
                tp[j] += h
                tm[j] -= h
                ds[:, j] = (self.law.fractions(tp, meas) - self.law.fractions(tm, meas)) / (2 * h)
            cols.append(dpose_ds[:, :, None] * ds[:, None, :])
        if self.B:
            Jb = np.zeros((meas.n, 6, 6))
            Jb[:, :3, :3] = np.eye(3)
            Jb[:, :3, 3:] = -skew(p_pred)
            Jb[:, 3:, 3:] = np.eye(3)
            cols.append(Jb[:, :k])
        J = np.concatenate(cols, axis=2) * self.weight[:, :, None] * self.scale
        return r, J.reshape(-1, J.shape[2]), r_p, r_o, s


def _initial_tracker(problem: _Problem, theta: FloatArray, x: FloatArray) -> FloatArray:
    if not problem.options.estimate_base:
        return np.eye(4)
    _, _, r_p, _, _ = problem.evaluate(x, theta, np.eye(4), jacobian=False)
    p_world = problem.meas.p_tracker_tcp - r_p
    p_tracker = problem.meas.p_tracker_tcp
    # A rigid motion keeps distances: a measurement whose distances to the others disagree with the
    # model's (median over a spread sample of the others) is far off, and stays out of the start.
    sample = np.unique(np.linspace(0, p_world.shape[0] - 1, min(p_world.shape[0], KABSCH_SAMPLE)).astype(int))
    d_world = np.linalg.norm(p_world[:, None] - p_world[sample][None], axis=-1)
    d_tracker = np.linalg.norm(p_tracker[:, None] - p_tracker[sample][None], axis=-1)
    disagreement = np.median(np.abs(d_world - d_tracker), axis=1)
    near = disagreement <= 10.0 * np.median(disagreement) + 10.0 * problem.options.position_sigma
    return kabsch(p_world[near], p_tracker[near]) if near.sum() >= 3 else kabsch(p_world, p_tracker)


def _range_basis(A: FloatArray, rcond: float) -> FloatArray:
    """Orthonormal basis of the column space of ``A`` (directions above ``rcond`` times the largest)."""
    if A.shape[1] == 0:
        return np.zeros((A.shape[0], 0))
    U, s, _ = np.linalg.svd(A, full_matrices=False)
    return U[:, s > rcond * s[0]] if s[0] > 0 else np.zeros((A.shape[0], 0))


def _step(problem: _Problem, J: FloatArray, r: FloatArray, free_law: bool,
          active: np.ndarray | None) -> tuple[FloatArray, Identifiability]:
    """One linearised solve; returns the scaled step ``(Z,)`` and the identifiability it used."""
    P, L, B = problem.P, problem.L, problem.B
    candidates = _candidates(problem.chain.n_joints, problem.options.rows)
    forced = np.r_[np.arange(P, P + L) if free_law else np.zeros(0, dtype=int), np.arange(P + L, P + L + B)].astype(int)
    ident = analyse(J, candidates, forced, problem.scale, problem.options.rcond, active)
    Q = _range_basis(J[:, forced], problem.options.rcond)
    C = J[:, candidates] - Q @ (Q.T @ J[:, candidates])
    r_proj = r - Q @ (Q.T @ r)
    step = np.zeros(J.shape[1])
    if problem.options.fix == "zero":
        base = ident.base
        local = np.flatnonzero(np.isin(candidates, base))
        if base.size:
            step[base] = np.linalg.lstsq(C[:, local], r_proj, rcond=None)[0]
    elif ident.rank:
        U, s, Vt = np.linalg.svd(C, full_matrices=False)
        k = ident.rank
        step[candidates] = Vt[:k].T @ ((U[:, :k].T @ r_proj) / s[:k])
    if forced.size:
        step[forced] = np.linalg.lstsq(J[:, forced], r - J[:, candidates] @ step[candidates], rcond=None)[0]
    return step, ident


def huber_threshold(k: int) -> float:
    """Huber's threshold ``c`` for a measurement of ``k`` coordinates, in stated standard deviations.

    ``c^2`` is the :data:`HUBER_QUANTILE` quantile of ``chi2(k)``: a measurement
    whose residual is within the stated noise keeps its full weight with that
    probability (3.37 for a position: 99 %).
    """
    return float(np.sqrt(scipy.stats.chi2.ppf(HUBER_QUANTILE, k)))


def outlier_threshold(k: int, m: int) -> float:
    """The outlier test's limit on a measurement's normalised residual ``|r| / sigma``, in stated deviations.

    A campaign of ``m`` measurements that follow the model with the stated
    noise has a chance of :data:`OUTLIER_ALPHA` of one beyond it (Bonferroni:
    each ``chi2(k)`` beyond its ``1 - alpha / m`` quantile); 5.1 for 100 positions.
    """
    return float(np.sqrt(scipy.stats.chi2.isf(OUTLIER_ALPHA / m, k)))


def huber_cost(d: FloatArray, c: float) -> float:
    """Huber's cost of normalised residual norms ``d`` ``(m,)``: ``d^2`` within ``c``, ``2 c d - c^2`` beyond."""
    return float(np.sum(np.where(d <= c, d**2, 2.0 * c * d - c * c)))


@dataclass
class _State:
    """Where a Gauss-Newton run stands (scaled step units in ``problem.scale``)."""

    x: FloatArray
    theta: FloatArray
    T: FloatArray
    iterations: int = 0
    converged: bool = False


def _gauss_newton(problem: _Problem, state: _State, free_law: bool, active: np.ndarray | None,
                  keep: np.ndarray, huber: float | None, max_iterations: int, step_tol: float) -> _State:
    """Iteratively reweighted Gauss-Newton: least squares over ``keep``, Huber's cost with threshold ``huber``.

    Each measurement (one tracker reading) is weighted as a whole: ``1`` while
    its normalised residual ``d`` is within ``huber``, ``huber / d`` beyond
    (its pull on the fit stays that of a measurement ``huber`` deviations off,
    however far it is), ``0`` outside ``keep``. Steps are halved until the
    cost does not grow.
    """
    P, L = problem.P, problem.L
    k = problem.weight.shape[1]
    x, theta, T = state.x, state.theta, state.T

    def weights(r: FloatArray) -> tuple[FloatArray, FloatArray]:
        d = np.linalg.norm(r.reshape(-1, k), axis=1)
        w = keep.astype(float)
        if huber is not None:
            far = d > huber
            w[far] *= huber / d[far]
        return np.sqrt(w), d

    def cost(d: FloatArray) -> FloatArray:  # per measurement
        rho = d**2 if huber is None else np.where(d <= huber, d**2, 2.0 * huber * d - huber * huber)
        return np.where(keep, rho, 0.0)

    r, J, *_ = problem.evaluate(x, theta, T)
    sw, d = weights(r)
    rho = cost(d)
    converged = False
    iterations = 0
    for iteration in range(1, max_iterations + 1):
        iterations = iteration
        rows = np.repeat(sw, k)
        step, _ = _step(problem, J * rows[:, None], r * rows, free_law, active)
        delta = step * problem.scale
        for _ in range(12):  # halve the step until the cost does not grow
            x_new = x + delta[:P]
            theta_new = theta + (delta[P:P + L] if free_law else 0.0)
            T_new = T
            if problem.B:
                b = delta[P + L:]
                T_new = np.eye(4)
                T_new[:3, :3] = matrix_from_rotvec(b[3:]) @ T[:3, :3]
                T_new[:3, 3] = matrix_from_rotvec(b[3:]) @ T[:3, 3] + b[:3]
            r_new, J_new, *_ = problem.evaluate(x_new, theta_new, T_new)
            _, d_new = weights(r_new)
            rho_new = cost(d_new)
            # Summed per measurement: a far outlier's own large cost does not hide the others' change.
            if np.sum(rho_new - rho) <= 1e-12 * np.sum(rho) or not np.all(np.isfinite(rho)):
                break
            delta = delta / 2
        x, theta, T, r, J, rho = x_new, theta_new, T_new, r_new, J_new, rho_new
        sw, d = weights(r)
        if not np.all(np.isfinite(rho)):
            break
        if np.max(np.abs(step)) < step_tol:
            converged = True
            break
    return _State(x, theta, T, iterations, converged)


def _onto_base(x: FloatArray, ident: Identifiability) -> FloatArray:
    """``x`` with every identified combination carried by its base parameter alone (the others 0).

    The combinations' values (what the measurements see, to first order) are
    kept; a parameter the analysis does not pick as a base becomes exactly 0.
    """
    y = np.zeros_like(x)
    for combo in ident.combinations:
        y[combo.base] = x[combo.base] + sum(c * x[i] for i, c in combo.terms)
    return y


@single_threaded_blas()
def identify(chain: Chain, meas: Measurements, options: CalibrationOptions | None = None,
             law: FractionModel = STATIC_FRACTIONS, theta0: FloatArray | None = None,
             free_law: bool = True, start: Fit | None = None, outlier_test: bool = True) -> Fit:
    """Fit the table (and the tracker frame, and the time law's parameters) to the measurements.

    Robust first, then least squares: a Gauss-Newton run with Huber's cost
    (:func:`huber_threshold`, the stated noise as its scale) finds the fit
    that no single measurement can drag away; measurements whose residual
    there is beyond :func:`outlier_threshold` (times the residuals' own robust
    scale when the model explains the data less well than the stated noise)
    are outliers: left out, and listed in :attr:`Fit.outliers` (when they are
    few: :data:`MAX_OUTLIER_SHARE`). A least-squares
    run on the others gives the estimate, its residuals and its standard
    deviations.

    Parameters
    ----------
    chain
        Nominal robot.
    meas
        Measurements (tracker frame, SI).
    options
        :class:`CalibrationOptions`.
    law
        The time law's fraction as a function of its parameters;
        :data:`STATIC_FRACTIONS` (default) sees the full table in every measurement.
    theta0
        Starting parameters of the law ``(L,)``.
    free_law
        Whether the law's parameters are fitted (False: held at ``theta0``).
    start
        An earlier fit to start from (its table and tracker frame), e.g. with
        the law held: the law's columns vanish at a zero table. With
        ``fix="zero"`` its table is first re-expressed on this fit's base
        parameters (:func:`_onto_base`), so that a parameter reported as fixed
        at 0 is exactly 0.
    outlier_test
        False: the robust run only (no outliers named, no least-squares run;
        e.g. the starting grid of a time law).

    Returns
    -------
    Fit
    """
    options = CalibrationOptions() if options is None else options
    check_measurements(chain, meas, options)
    problem = _Problem(chain, meas, options, law)
    P, L = problem.P, problem.L
    free = free_law and L > 0
    k = problem.weight.shape[1]
    theta = np.zeros(0) if theta0 is None else np.array(theta0, dtype=float)
    if theta.shape != (L,):
        raise ConfigurationError(f"theta0: expected {L} time-law parameters, got {theta.shape}")
    if start is None:
        x = np.zeros(P)
        T = _initial_tracker(problem, theta, x)
    else:
        x, T = start.x.copy(), start.T_tracker_world.copy()
    active = None
    if options.fix == "zero":  # the base parameters, once: what stays at 0 stays at 0
        r, J, *_ = problem.evaluate(x, theta, T)
        _, ident0 = _step(problem, J, r, free, None)
        active = ident0.base
        if start is not None:
            x = _onto_base(x, ident0)
    everyone = np.ones(meas.n, dtype=bool)
    c = huber_threshold(k)
    robust_tol = max(options.step_tol, ROBUST_STEP_TOL) if outlier_test else options.step_tol
    state = _gauss_newton(problem, _State(x, theta, T), free, active, everyone, c, options.max_iterations, robust_tol)
    d = np.linalg.norm(problem.evaluate(state.x, state.theta, state.T, jacobian=False)[0].reshape(-1, k), axis=1)
    outliers = beyond = np.zeros(0, dtype=int)
    if outlier_test and np.all(np.isfinite(d)):
        scale = max(1.0, float(np.median(d)) / float(np.sqrt(scipy.stats.chi2.ppf(0.5, k))))
        beyond = np.flatnonzero(d > scale * outlier_threshold(k, meas.n))
        if beyond.size <= MAX_OUTLIER_SHARE * meas.n:
            outliers = beyond
        else:  # the model misfits: only readings that stand apart from its bulk too are outliers
            outliers = np.flatnonzero(d > OUTLIER_GAP * np.quantile(d, 1.0 - MAX_OUTLIER_SHARE))
            outliers = outliers if outliers.size <= MAX_OUTLIER_SHARE * meas.n else np.zeros(0, dtype=int)
        keep = ~np.isin(np.arange(meas.n), outliers)
        robust = state
        state = _gauss_newton(problem, _State(state.x, state.theta, state.T), free, active, keep, None,
                              options.max_iterations, options.step_tol)
        state.iterations += robust.iterations  # (its convergence is the least-squares run's)
    x, theta, T = state.x, state.theta, state.T
    keep = ~np.isin(np.arange(meas.n), outliers)
    rows = np.repeat(keep, k)
    r, J, *_ = problem.evaluate(x, theta, T)
    # The report's identifiability: table columns at the zero table (the structure of the
    # chain, exact; at the estimate, second-order terms of the table add coefficients of 1e-5),
    # forced columns (law, tracker) at the estimate.
    J_report = J.copy()
    cand = _candidates(chain.n_joints, options.rows)
    J_report[:, cand] = problem.evaluate(np.zeros(P), theta, T)[1][:, cand]
    _, ident = _step(problem, J_report[rows], r[rows], free, active)
    r_all, _, r_p, r_o, s = problem.evaluate(x, theta, T, jacobian=False)
    d = np.linalg.norm(r_all.reshape(-1, k), axis=1)
    theta_std = np.full(L, np.nan)
    if free:
        cols = np.r_[ident.base, np.arange(P, P + L + problem.B)].astype(int)
        A = J[rows][:, cols]
        cov = np.linalg.pinv(A.T @ A)
        theta_std = np.sqrt(np.diag(cov)[ident.base.size:ident.base.size + L]) * problem.scale[P:P + L]
    r_kept = r_all[rows]
    return Fit(
        table=problem.table(x), T_tracker_world=T, theta=theta, theta_std=theta_std,
        names=parameter_names(chain.n_joints), status=_status(problem, ident),
        identifiability=ident, residual_position=r_p, residual_angle=None if r_o is None else np.linalg.norm(r_o, axis=1),
        chi2=float(r_kept @ r_kept), dof=int(r_kept.size - ident.rank - (L if free_law else 0) - problem.B),
        iterations=state.iterations, converged=state.converged, fractions=s, options=options,
        outliers=outliers, beyond_limit=beyond, normalised_residual=d, cost=huber_cost(d, c),
    )


def _status(problem: _Problem, ident: Identifiability) -> tuple[str, ...]:
    status = ["not estimated"] * problem.P
    fixed = "not identifiable: fixed at 0" if problem.options.fix == "zero" else "not identifiable: minimum-norm value"
    for i in ident.other:
        status[i] = fixed
    for combo in ident.combinations:
        status[combo.base] = "combination" if combo.terms else "identified"
    if problem.options.fix == "min-norm":
        for k, i in enumerate(ident.candidates):
            if ident.null_share[k] > 1e-6:
                status[i] = fixed
    return tuple(status)


__all__ = ["FIXES", "ROW_GROUPS", "STATIC_FRACTIONS", "CalibrationOptions", "Fit", "FractionModel",
           "HUBER_QUANTILE", "MAX_OUTLIER_SHARE", "OUTLIER_ALPHA", "OUTLIER_GAP", "check_measurements", "huber_cost",
           "huber_threshold", "identify", "kabsch", "outlier_threshold", "table_scale"]
