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

from thermocomp._typing import FloatArray
from thermocomp.calibration._blas import single_threaded_blas
from thermocomp.calibration.identifiability import Identifiability, analyse
from thermocomp.calibration.jacobian import parameter_names, pose_jacobian
from thermocomp.calibration.measurements import Measurements
from thermocomp.deformation.apply import COMPOSITIONS
from thermocomp.deformation.table import DeformationTable
from thermocomp.errors import ConfigurationError, InputError
from thermocomp.geometry.rotations import matrix_from_rotvec, rotvec_from_matrix, skew
from thermocomp.robot.chain import Chain

#: How parameters the poses cannot identify are fixed.
FIXES = ("zero", "min-norm")
#: Which rows of the table are estimated.
ROW_GROUPS = ("base", "joints", "tool")
#: One scaled unit of a translation parameter [m]: the fit is conditioned in
#: millimetres, the size of the deformations it looks for.
TRANSLATION_UNIT = 1e-3


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

    @property
    def x(self) -> FloatArray:
        """The table's parameters as one vector ``(P,)`` (SI)."""
        return self.table.rows().ravel()

    @property
    def sigma_ratio(self) -> float:
        """``sqrt(chi2 / dof)``: about 1 when the stated uncertainty matches the residuals."""
        return float(np.sqrt(self.chi2 / self.dof)) if self.dof > 0 else float("nan")


def characteristic_length(chain: Chain) -> float:
    """The robot's size [m]: the sum of its segment lengths and the tool offset (angle scaling)."""
    return float(np.sum(np.linalg.norm(chain.p, axis=1)) + np.linalg.norm(chain.T_last_tcp[:3, 3]))


def table_scale(chain: Chain) -> FloatArray:
    """One scaled unit of each table parameter ``(6 (n + 2),)``: 1 mm, or the angle that moves the reach by 1 mm."""
    angle = TRANSLATION_UNIT / characteristic_length(chain)
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
        length = characteristic_length(chain)
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
    return kabsch(p_world, problem.meas.p_tracker_tcp)


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


@single_threaded_blas()
def identify(chain: Chain, meas: Measurements, options: CalibrationOptions | None = None,
             law: FractionModel = STATIC_FRACTIONS, theta0: FloatArray | None = None,
             free_law: bool = True, start: Fit | None = None) -> Fit:
    """Fit the table (and the tracker frame, and the time law's parameters) to the measurements.

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
        the law held: the law's columns vanish at a zero table.

    Returns
    -------
    Fit
    """
    options = CalibrationOptions() if options is None else options
    check_measurements(chain, meas, options)
    problem = _Problem(chain, meas, options, law)
    P, L = problem.P, problem.L
    theta = np.zeros(0) if theta0 is None else np.array(theta0, dtype=float)
    if theta.shape != (L,):
        raise ConfigurationError(f"theta0: expected {L} time-law parameters, got {theta.shape}")
    if start is None:
        x = np.zeros(P)
        T = _initial_tracker(problem, theta, x)
    else:
        x, T = start.x.copy(), start.T_tracker_world.copy()
    r, J, *_ = problem.evaluate(x, theta, T)
    cost = float(r @ r)
    active = None
    converged = False
    iterations = 0
    for iteration in range(1, options.max_iterations + 1):
        iterations = iteration
        step, ident = _step(problem, J, r, free_law and L > 0, active)
        if active is None and options.fix == "zero":
            active = ident.base
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
            cost_new = float(r_new @ r_new)
            if cost_new <= cost * (1 + 1e-12) or not np.isfinite(cost):
                break
            delta = delta / 2
        x, theta, T, r, J, cost = x_new, theta_new, T_new, r_new, J_new, cost_new
        if np.max(np.abs(step)) < options.step_tol:
            converged = True
            break
    # The report's identifiability: table columns at the zero table (the structure of the
    # chain, exact; at the estimate, second-order terms of the table add coefficients of 1e-5),
    # forced columns (law, tracker) at the estimate.
    J_report = J.copy()
    cand = _candidates(chain.n_joints, options.rows)
    J_report[:, cand] = problem.evaluate(np.zeros(P), theta, T)[1][:, cand]
    _, ident = _step(problem, J_report, r, free_law and L > 0, active)
    r, _, r_p, r_o, s = problem.evaluate(x, theta, T, jacobian=False)
    theta_std = np.full(L, np.nan)
    if L and free_law:
        cols = np.r_[ident.base, np.arange(P, P + L + problem.B)].astype(int)
        A = J[:, cols]
        cov = np.linalg.pinv(A.T @ A)
        theta_std = np.sqrt(np.diag(cov)[ident.base.size:ident.base.size + L]) * problem.scale[P:P + L]
    return Fit(
        table=problem.table(x), T_tracker_world=T, theta=theta, theta_std=theta_std,
        names=parameter_names(chain.n_joints), status=_status(problem, ident),
        identifiability=ident, residual_position=r_p, residual_angle=None if r_o is None else np.linalg.norm(r_o, axis=1),
        chi2=float(r @ r), dof=int(r.size - ident.rank - (L if free_law else 0) - problem.B),
        iterations=iterations, converged=converged, fractions=s, options=options,
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
           "characteristic_length", "check_measurements", "identify", "kabsch", "table_scale"]
