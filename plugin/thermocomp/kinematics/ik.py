"""Batch inverse kinematics of a (deformed) chain: damped Gauss-Newton.

Every target of a batch is solved at once with the analytic Jacobian of
:func:`thermocomp.kinematics.fk.fk_jacobian`; converged targets leave the
active set so the batch shrinks as it goes. The damping
``lambda = |e|^2 + LM_FLOOR`` (Levenberg-Marquardt with the squared residual,
as in Sugihara's method) gives Newton's quadratic convergence near a
solution and bounded steps far from one or near a singularity.

The solver is local: it finds the solution its seed leads to. Seeds that
carry the configuration (shoulder, elbow, wrist branch) come from
:mod:`thermocomp.kinematics.seeding` and from the previous minute.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace

import numpy as np

from thermocomp._typing import ArrayLike, FloatArray
from thermocomp.errors import ConfigurationError
from thermocomp.geometry.rotations import rotvec_from_matrix
from thermocomp.geometry.vectors import row_norms
from thermocomp.kinematics.dispatch import runs_compiled
from thermocomp.kinematics.fk import fk_jacobian
from thermocomp.kinematics.model import KinematicModel
from thermocomp.tolerances import (
    IK_MAX_ITERATIONS,
    IK_MAX_ORIENTATION_TOL,
    IK_MAX_POSITION_TOL,
    IK_ORIENTATION_TOL,
    IK_POSITION_TOL,
    NEAR_SINGULAR_SIGMA,
    SETTLED_SIGMA,
    UNREACHABLE_ORIENTATION,
    UNREACHABLE_POSITION,
)

#: Smallest damping [m^2 or rad^2]: keeps the normal equations regular at a
#: singularity while changing a converged Newton step by < 1e-12 relative.
LM_FLOOR = 1e-12
#: Largest joint step of one iteration [rad]; stops a far seed from jumping branch.
MAX_STEP = 0.5
#: Iterations without a 0.1 % residual decrease before a solve counts as stalled.
STALL_ITERATIONS = 6
#: Solver engines of :class:`IKOptions`.
ENGINES = ("auto", "numpy", "compiled")


class Status(enum.IntEnum):
    """Outcome of one IK solve (STYLE.md, practice 8)."""

    CONVERGED = 0
    JOINT_LIMIT = 1
    NOT_CONVERGED = 2
    UNREACHABLE = 3
    #: reachable, but not in the configuration the program asks for (ABB confdata)
    CONFIGURATION_NOT_FOUND = 4

    @property
    def label(self) -> str:
        return self.name.lower()


@dataclass(frozen=True)
class IKOptions:
    """Settings of :func:`solve_ik`.

    Parameters
    ----------
    position_tol
        Convergence on TCP position [m], > 0 and at most
        :data:`~thermocomp.tolerances.IK_MAX_POSITION_TOL` (1 mm).
    orientation_tol
        Convergence on TCP orientation [rad], > 0 and at most
        :data:`~thermocomp.tolerances.IK_MAX_ORIENTATION_TOL` (1 degree).
    max_iterations
        Iterations per target, >= 1.
    engine
        ``"auto"`` (compiled where :func:`~thermocomp.kinematics.dispatch.runs_compiled`
        says, numpy below), ``"numpy"`` (the reference) or ``"compiled"``
        (:func:`thermocomp.kinematics.engine.newton_block`): the same iteration.
    """

    position_tol: float = IK_POSITION_TOL
    orientation_tol: float = IK_ORIENTATION_TOL
    max_iterations: int = IK_MAX_ITERATIONS
    engine: str = "auto"

    def __post_init__(self) -> None:
        if self.engine not in ENGINES:
            raise ConfigurationError(f"IK engine: expected one of {ENGINES}, got {self.engine!r}")
        if not (0 < self.position_tol <= IK_MAX_POSITION_TOL and 0 < self.orientation_tol <= IK_MAX_ORIENTATION_TOL):
            raise ConfigurationError(
                f"IK tolerances: expected > 0 and at most {IK_MAX_POSITION_TOL * 1e3:g} mm and "
                f"{np.degrees(IK_MAX_ORIENTATION_TOL):g} deg (--position-tol-mm, --orientation-tol-deg), got position "
                f"{self.position_tol * 1e3:g} mm, orientation {np.degrees(self.orientation_tol):g} deg"
            )
        if self.max_iterations < 1:
            raise ConfigurationError(f"IK iterations: expected >= 1, got {self.max_iterations}")


@dataclass(frozen=True)
class IKResult:
    """Solutions of a batch of ``m`` targets.

    Attributes
    ----------
    q
        Controller joint angles [rad], shape ``(m, n)``.
    status
        :class:`Status` codes, shape ``(m,)``.
    position_error
        ``|p_target - p_reached|`` [m], shape ``(m,)``.
    orientation_error
        Angle of ``R_target @ R_reached.T`` [rad], shape ``(m,)``.
    iterations
        Iterations used, shape ``(m,)``.
    sigma_min
        Smallest singular value of the Jacobian at the solution, shape ``(m,)``:
        exact below :data:`~thermocomp.tolerances.SETTLED_SIGMA`, a lower bound or a close
        value above (:func:`sigma_min_lower_bound`).
    """

    q: FloatArray
    status: np.ndarray
    position_error: FloatArray
    orientation_error: FloatArray
    iterations: np.ndarray
    sigma_min: FloatArray

    @property
    def converged(self) -> np.ndarray:
        """Boolean ``(m,)``: solved within tolerance and joint limits."""
        return self.status == Status.CONVERGED

    @property
    def near_singular(self) -> np.ndarray:
        """Boolean ``(m,)``: smallest singular value below :data:`NEAR_SINGULAR_SIGMA`."""
        return self.sigma_min < NEAR_SINGULAR_SIGMA


def sigma_min_lower_bound(J: FloatArray) -> FloatArray:
    """Smallest singular value of each Jacobian ``(m, 6, n)``: exact where it matters, cheap elsewhere.

    Tiers, each only for the rows the one before could not settle (at or above
    :data:`~thermocomp.tolerances.SETTLED_SIGMA`, ten times the near-singular threshold):

    1. For a square Jacobian, ``|det J| = sigma_min * prod(other sigmas)``
       and, by the inequality of arithmetic and geometric means,
       ``prod(other sigmas) <= (|J|_F^2 / (n - 1))^((n - 1) / 2)``: one
       determinant gives a lower bound (often ten times below the value).
    2. The larger of that and ``1 / |J^-1|_F``: the squared Frobenius norm of
       the inverse is ``sum(1 / sigma_i^2) >= 1 / sigma_min^2``, so this is a
       lower bound too, and at most ``sqrt(n)`` below the value.
    3. ``sqrt`` of the smallest eigenvalue of ``J^T J`` (about half the cost
       of an SVD; accurate to ``eps * sigma_max^2 / sigma_min`` relative).
    4. The SVD, where the value is below ``SETTLED_SIGMA``.

    So the result is exact (SVD) wherever a singularity is near, and at or above
    ``SETTLED_SIGMA`` it is a true lower bound or the value to a relative 1e-10;
    every row's result is at least ``min(sigma_min / sqrt(n), SETTLED_SIGMA)``.
    Non-square Jacobians go straight to the SVD. (The compiled engine computes
    the first two tiers itself, from its own LU: :func:`thermocomp.kinematics.engine.newton_block`.)
    """
    m, rows, n = J.shape
    if rows != n or n < 2:
        return np.linalg.svd(J, compute_uv=False)[:, -1]
    frobenius_sq = np.einsum("kij,kij->k", J, J)
    others = (np.maximum(frobenius_sq, 1e-300) / (n - 1)) ** ((n - 1) / 2)
    value = np.abs(np.linalg.det(J)) / others
    # tier 2 where tier 1 did not settle and J has an inverse (no zero pivot in LAPACK's LU, as the inverse's)
    loose = np.flatnonzero((value < SETTLED_SIGMA) & (value > 0.0))
    if loose.size:
        inverse = np.linalg.inv(J[loose])
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            bound = 1.0 / np.sqrt(np.einsum("kij,kij->k", inverse, inverse))
        value[loose] = np.where(bound > value[loose], bound, value[loose])  # (NaN of an overflowed inverse: tier 1)
    return settle_sigma_bound(J, value)


def settle_sigma_bound(J: FloatArray, value: FloatArray) -> FloatArray:
    """Tiers 3 and 4 of :func:`sigma_min_lower_bound` on its first tiers' ``value`` ``(m,)`` (updated in place
    and returned): the rows below :data:`~thermocomp.tolerances.SETTLED_SIGMA` of square Jacobians ``J``
    ``(m, n, n)``."""
    unsettled = np.flatnonzero(value < SETTLED_SIGMA)
    if unsettled.size:
        Ju = J[unsettled]
        eig = np.linalg.eigvalsh(np.swapaxes(Ju, -1, -2) @ Ju)[:, 0]
        value[unsettled] = np.sqrt(np.maximum(eig, 0.0))
        exact = unsettled[value[unsettled] < SETTLED_SIGMA]
        if exact.size:
            value[exact] = np.linalg.svd(J[exact], compute_uv=False)[:, -1]
    return value


def sigma_and_joint_rates(model: KinematicModel, q: FloatArray, motion: tuple[FloatArray, FloatArray, FloatArray]
                          ) -> tuple[FloatArray, FloatArray]:
    """The smallest singular value of the Jacobian at each ``q`` ``(r, n)`` (:func:`sigma_min_lower_bound`) and
    the joint rates ``J^-1 twist`` (:func:`_joint_rates`) of the twist ``(v - w x lever, w)`` of ``motion`` ``(v,
    w, lever)``, each ``(r, 3)`` [m/s, rad/s, m; world frame]: for many rows of a 6-joint robot in one compiled pass
    (:func:`~thermocomp.kinematics.engine.jacobian_rates_block`), else by those functions, the reference
    the tests compare it with. (The feasibility check of a robot program's moves: speeds and singularities.)"""
    r, n = q.shape
    if n != 6 or not runs_compiled(r) or model.batch_shape != ():
        _, _, J = fk_jacobian(model, q)
        sigma = sigma_min_lower_bound(J)  # exact where it matters (below 10x the threshold)
        return sigma, _joint_rates(J, _twist(*motion), sigma)
    from thermocomp.kinematics import engine

    q = engine.c_array(q)
    sigma, qd = np.empty(r), np.empty((r, n))
    engine.run_blocks(engine.jacobian_rates_block, r, engine.engine_model(model), q,
                      *(engine.c_array(a) for a in motion), sigma, qd)
    near = np.flatnonzero(sigma < SETTLED_SIGMA)  # (the rows settle_sigma_bound looks at again)
    if near.size:  # their Jacobians again, by the same compiled walk
        J = np.empty((near.size, 6, n))
        engine.fk_jacobian_block(engine.engine_model(model), q[near], np.empty((near.size, 3, 3)),
                                 np.empty((near.size, 3)), J, 0, near.size)
        sigma[near] = settle_sigma_bound(J, sigma[near])
        irregular = np.flatnonzero(sigma[near] <= 1e-9)  # least squares there, as _joint_rates
        if irregular.size:
            rows = near[irregular]
            qd[rows] = _joint_rates(J[irregular], _twist(*(a[rows] for a in motion)), sigma[rows])
    return sigma, qd


def _twist(v: FloatArray, w: FloatArray, lever: FloatArray) -> FloatArray:
    """``(v - w x lever, w)`` ``(r, 6)``: the flange's twist when the TCP moves at ``v`` and turns at ``w``,
    ``lever`` being the TCP's offset from the flange (world frame)."""
    return np.concatenate([v - np.cross(w, lever), w], axis=1)


def _joint_rates(J: FloatArray, twist: FloatArray, sigma: FloatArray) -> FloatArray:
    """``J^-1 twist`` ``(r, n)``: solved (LAPACK) where ``J`` is square and regular, least squares elsewhere."""
    r, rows, n = J.shape

    def solve_rows(A, b):
        return np.linalg.solve(A, b[..., None])[..., 0]
    qd = np.empty((r, n))
    regular = sigma > 1e-9 if rows == n else np.zeros(r, dtype=bool)
    if np.all(regular):
        return solve_rows(np.ascontiguousarray(J), np.ascontiguousarray(twist))
    if np.any(regular):
        qd[regular] = solve_rows(J[regular], twist[regular])
    if not np.all(regular):
        qd[~regular] = np.einsum("kij,kj->ki", np.linalg.pinv(J[~regular]), twist[~regular])
    return qd


def pose_error(R_target: FloatArray, p_target: FloatArray, R: FloatArray, p: FloatArray) -> FloatArray:
    """Task error ``(..., 6)``: position [m], then the world-frame rotation vector
    [rad] that takes ``R`` to ``R_target``."""
    return np.concatenate([p_target - p, rotvec_from_matrix(R_target @ np.swapaxes(R, -1, -2))], axis=-1)


def pose_errors(R_target: FloatArray, p_target: FloatArray, R: FloatArray, p: FloatArray) -> FloatArray:
    """:func:`pose_error` of a batch ``(m, 3, 3)``, ``(m, 3)``, of any size, in the compiled engine
    (:func:`thermocomp.kinematics.engine.pose_error_block`, the compiled Newton iteration's own error): the one form
    results and checks use, so a row's deviation does not depend on its batch's size. :func:`pose_error` (numpy) is
    its reference, which tests/test_kinematics.py compares it with, and the numpy iteration's error. (A job of
    the IRB140 or the UR5 loads the engine anyway: their closed forms run compiled.)"""
    from thermocomp.kinematics import engine

    out = np.empty((len(R), 6))
    engine.run_blocks(engine.pose_error_block, len(R), *(engine.c_array(a) for a in (R_target, p_target, R, p)), out)
    return out


def job_options(options: IKOptions, rows: int) -> IKOptions:
    """``options`` for the many small solves of a job of ``rows`` rows in all: with ``engine="auto"``, the
    compiled engine throughout when the job as a whole runs in it (:func:`~thermocomp.kinematics.dispatch.runs_compiled`),
    so that its short pieces do not pay numpy's per-call cost (the engine is loaded for the rest anyway)."""
    if options.engine == "auto" and runs_compiled(rows):
        return replace(options, engine="compiled")
    return options


def load_engine_for(rows: int) -> None:
    """Load the compiled engine now when a job of ``rows`` rows will run in it (numba and its cached machine code:
    up to a second, once a process), so that the timed phases after it measure the rows' work."""
    if runs_compiled(rows):
        import thermocomp.kinematics.engine  # noqa: F401


def turns(R_from: FloatArray, R_to: FloatArray) -> FloatArray:
    """The world-frame rotation vectors that turn ``R_from`` into ``R_to`` (of ``R_to R_from^T``), ``(..., 3)``:
    the rotation part of :func:`pose_errors` (compiled for many rows); their norms are the angles."""
    shape = R_to.shape[:-2]
    zeros = np.zeros((int(np.prod(shape)), 3))
    return pose_errors(R_to.reshape(-1, 3, 3), zeros, R_from.reshape(-1, 3, 3), zeros)[:, 3:].reshape(shape + (3,))


def fit_limits(q: FloatArray, lower: FloatArray, upper: FloatArray, q_near: FloatArray) -> tuple[FloatArray, np.ndarray]:
    """Shift each revolute angle by whole turns into its limits, nearest ``q_near``.

    A revolute joint at ``q`` and ``q + 2 pi k`` puts the robot in the same
    place; the controller sees different angles. Returns the shifted angles
    ``(m, n)`` and a boolean ``(m,)`` that is True where every joint fits.
    """
    two_pi = 2.0 * np.pi
    # k_near = round((q_near - q) / 2 pi), k_lo = ceil((lower - q) / 2 pi), k_hi = floor((upper - q) / 2 pi),
    # k = clip(k_near, k_lo, k_hi), shifted = q + 2 pi k: the same operations, in place, the clip as numpy's
    # documentation says it is (maximum, then minimum: the same bits, signed zeros and NaN included), in half the time
    k = np.subtract(q_near, q)
    k /= two_pi
    np.round(k, out=k)
    k_lo = np.subtract(lower, q)
    k_lo /= two_pi
    np.ceil(k_lo, out=k_lo)
    k_hi = np.subtract(upper, q)
    k_hi /= two_pi
    np.floor(k_hi, out=k_hi)
    np.maximum(k, k_lo, out=k)
    np.minimum(k, k_hi, out=k)
    fits = k_lo <= k_hi
    np.multiply(two_pi, k, out=k)
    np.add(q, k, out=k)
    return np.where(fits, k, q), np.all(fits, axis=-1)


def solve_ik(
    model: KinematicModel,
    R_target: ArrayLike,
    p_target: ArrayLike,
    q_seed: ArrayLike,
    options: IKOptions | None = None,
    *,
    measure_singularity: bool = True,
) -> IKResult:
    """Solve ``fk(model, q) == (R_target, p_target)`` for a batch of ``m`` targets.

    Parameters
    ----------
    model
        Kinematic model with batch shape ``()`` or ``(m,)`` (one deformed
        robot per target, e.g. each at its own minute).
    R_target
        Target orientations of the TCP in the world frame, ``(m, 3, 3)``.
    p_target
        Target positions of the TCP in the world frame [m], ``(m, 3)``.
    q_seed
        Seeds in controller angles [rad], ``(m, n)``.
    options
        Tolerances and iteration limit.
    measure_singularity
        Fill ``sigma_min`` (else NaN); multi-start callers measure only the
        solutions they keep.

    Returns
    -------
    IKResult
        One row per target; a failed target does not stop the batch.
    """
    options = IKOptions() if options is None else options
    chain = model.chain
    q = np.array(q_seed, dtype=float)
    R_target = np.asarray(R_target, dtype=float)
    p_target = np.asarray(p_target, dtype=float)
    m, n = q.shape
    if options.engine == "compiled" or (options.engine == "auto" and runs_compiled(m)):
        q, pos_err, ori_err, iterations, sigma = _iterate_compiled(model, R_target, p_target, q, options,
                                                                   measure_singularity)
        return _result(chain, q, q_seed, pos_err, ori_err, iterations, sigma, options)
    per_target = model.batch_shape != ()
    pos_err = np.full(m, np.inf)
    ori_err = np.full(m, np.inf)
    iterations = np.zeros(m, dtype=np.int64)
    sigma = np.full(m, np.nan)
    done = np.zeros(m, dtype=bool)
    best = np.full(m, np.inf)
    stall = np.zeros(m, dtype=np.int64)
    active = np.arange(m)
    eye = np.eye(n)
    for it in range(options.max_iterations + 1):
        sub = model.take(active) if per_target and active.size < m else model  # no copy while all are active
        R, p, J = fk_jacobian(sub, q[active])
        e = pose_error(R_target[active], p_target[active], R, p)
        pe = row_norms(e[:, :3])
        oe = row_norms(e[:, 3:])
        pos_err[active], ori_err[active] = pe, oe
        iterations[active] = it
        finished = (pe <= options.position_tol) & (oe <= options.orientation_tol)
        residual = pe * pe + oe * oe
        improved = residual < 0.999 * best[active]
        best[active] = np.minimum(best[active], residual)
        stall[active] = np.where(improved, 0, stall[active] + 1)
        finished |= stall[active] >= STALL_ITERATIONS
        if it == options.max_iterations:
            finished[:] = True
        if measure_singularity and np.any(finished):
            sigma[active[finished]] = sigma_min_lower_bound(J[finished])
            done[active[finished]] = True
        keep = ~finished
        if not np.any(keep):
            break
        active, J, e, residual = active[keep], J[keep], e[keep], residual[keep]
        Jt = np.swapaxes(J, -1, -2)
        A = Jt @ J + (residual + LM_FLOOR)[:, None, None] * eye
        dq = np.linalg.solve(A, (Jt @ e[:, :, None]))[:, :, 0]
        biggest = np.max(np.abs(dq), axis=1, keepdims=True)
        dq *= np.minimum(1.0, MAX_STEP / np.maximum(biggest, 1e-300))
        q[active] += dq
    return _result(chain, q, q_seed, pos_err, ori_err, iterations, sigma, options)


def _iterate_compiled(model: KinematicModel, R_target: FloatArray, p_target: FloatArray, q: FloatArray,
                      options: IKOptions, measure_singularity: bool):
    """:func:`solve_ik`'s iteration in the compiled engine (:func:`thermocomp.kinematics.engine.newton_block`)."""
    from thermocomp.kinematics import engine

    m, n = q.shape
    q = engine.c_array(q)
    pos_err, ori_err = np.empty(m), np.empty(m)
    iterations = np.empty(m, dtype=np.int64)
    kept = m if measure_singularity else 1  # (the final Jacobians and bounds: only for singular values)
    J, bound = np.empty((kept, 6, n)), np.empty(kept)
    settings = engine.NewtonSettings(float(options.position_tol), float(options.orientation_tol),
                                     int(options.max_iterations), LM_FLOOR, MAX_STEP, STALL_ITERATIONS)
    # (a target of every row's shape is taken as it is: a broadcast view is read-only, and the engine's arrays are
    # writable ones, so it was copied whole at every solve)
    R_rows = R_target if R_target.shape == (m, 3, 3) else np.broadcast_to(R_target, (m, 3, 3))
    p_rows = p_target if p_target.shape == (m, 3) else np.broadcast_to(p_target, (m, 3))
    engine.run_blocks(engine.newton_block, m, engine.engine_model(model), engine.c_array(R_rows),
                      engine.c_array(p_rows), q, settings, pos_err, ori_err, iterations, J, bound, measure_singularity)
    if not measure_singularity:
        sigma = np.full(m, np.nan)
    elif n == 6:
        sigma = settle_sigma_bound(J, bound)
    else:
        sigma = sigma_min_lower_bound(J)
    return q, pos_err, ori_err, iterations, sigma


def _result(chain, q, q_seed, pos_err, ori_err, iterations, sigma, options: IKOptions) -> IKResult:
    """Statuses and angles in the limits, from the iteration's end state."""
    converged = (pos_err <= options.position_tol) & (ori_err <= options.orientation_tol)
    q_fit, fits = fit_limits(q, chain.lower, chain.upper, np.asarray(q_seed, dtype=float))
    status = np.full(q.shape[0], Status.NOT_CONVERGED, dtype=np.int8)
    far = (pos_err > UNREACHABLE_POSITION) | (ori_err > UNREACHABLE_ORIENTATION)
    status[far] = Status.UNREACHABLE
    status[converged & ~fits] = Status.JOINT_LIMIT
    status[converged & fits] = Status.CONVERGED
    return IKResult(
        q=np.where(converged[:, None], q_fit, q),
        status=status,
        position_error=pos_err,
        orientation_error=ori_err,
        iterations=iterations,
        sigma_min=sigma,
    )
