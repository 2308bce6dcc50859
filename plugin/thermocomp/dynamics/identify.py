"""Identification of the inertial and friction parameters from a recording (seed 001; seed 003; seed 000 Step 5).

1. **Data** (:func:`prepare`): positions and torques low-pass filtered with
   zero phase, speeds and accelerations by central differences
   (:mod:`thermocomp.dynamics.filtering`), unless the recording gives them;
   the filter's edge samples dropped. The least squares take the *recorded*
   torques at those samples: their noise averages out without bias, while a
   low-pass smears the Coulomb step at every speed reversal over a wide band
   of speeds (measured on the simulated GoFa with a 2.6 Hz cutoff: Coulomb
   0.3-0.6 N m low and viscous 7-11 % high; unfiltered, both within 1 % of
   the truth). The filtered torques serve the report (seed 003 filters
   ``tfb``). Per joint, samples slower than a
   threshold are left out of that joint's equations (seed 003, IDNT line 7:
   "data points with low velocities are causing numerical errors"; Coulomb
   friction switches sign there).
2. **Base parameters by weighted least squares** (seed 001, slides 11-13):
   ``tau = Y_b pi_base + F f`` stacked joint by joint, solved by ordinary
   least squares, then again with each joint's rows divided by that joint's
   residual standard deviation (Gautier's weighted least squares, "a
   weighted pseudoinverse, to take into account different levels of noise").
   Standard deviations of the estimates from the covariance
   ``sigma^2 (W^T W)^-1``.
3. **Physically consistent standard parameters**: per link the 4 x 4
   pseudo-inertia ``J_k = L_k L_k^T`` (:func:`thermocomp.dynamics.parameters.pseudo_inertia`,
   ``L_k`` lower triangular with a positive diagonal: 10 numbers per link),
   so every estimate has positive mass and a positive definite inertia that
   satisfies the triangle inequality. They minimise the same weighted
   residual plus a small pull towards the reference (CAD, seed 000 Step 1)
   parameters, which fixes what the torques cannot see (the non-base
   directions) at the CAD values. Coulomb and viscous friction are kept
   non-negative.

Pure core (numpy, scipy).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.linalg
import scipy.optimize

from thermocomp._typing import ArrayLike, FloatArray
from thermocomp.dynamics.base_params import BaseParameters, base_parameters
from thermocomp.dynamics.filtering import default_cutoff, differentiate, edge_samples, lowpass, sample_rate
from thermocomp.dynamics.friction import FrictionTable
from thermocomp.dynamics.parameters import (
    check_parameters,
    parameters_from_pseudo_inertia,
    pseudo_inertia,
)
from thermocomp.dynamics.regressor import friction_regressor, regressor
from thermocomp.errors import ConfigurationError, InputError
from thermocomp.inertia.gravity import STANDARD_GRAVITY
from thermocomp.io.recording_csv import Recording
from thermocomp.robot.chain import Chain

#: Per joint, samples slower than this fraction of the joint's peak speed are
#: left out of its equations (seed 003's velocity threshold: its example
#: report uses 0.04 to 0.06 rad/s for peaks of a few rad/s).
VELOCITY_THRESHOLD_FRACTION = 0.02

#: Weight of the pull towards the reference parameters in the consistent
#: fit, relative to the data: the reference rows are scaled so that their
#: information is this fraction of the data's along the weakest identifiable
#: direction. Small enough that the data decide every base parameter they
#: determine to well below its standard deviation; large enough to fix the
#: directions the data do not see.
PRIOR_WEIGHT = 1e-3


@dataclass(frozen=True)
class IdentifyOptions:
    """Options of :func:`identify`.

    Attributes
    ----------
    cutoff
        Low-pass cutoff [Hz]; ``None``: :func:`thermocomp.dynamics.filtering.default_cutoff`.
    velocity_threshold_fraction
        See :data:`VELOCITY_THRESHOLD_FRACTION`, in [0, 1).
    gravity
        World gravity [m/s^2].
    seed
        Seed of the random states that find the base parameters (the result does not depend on it).
    """

    cutoff: float | None = None
    velocity_threshold_fraction: float = VELOCITY_THRESHOLD_FRACTION
    gravity: tuple[float, float, float] = STANDARD_GRAVITY
    seed: int = 0

    def __post_init__(self) -> None:
        if self.cutoff is not None and not (math.isfinite(self.cutoff) and self.cutoff > 0):
            raise ConfigurationError(f"cutoff (--cutoff-hz): expected > 0 Hz, got {self.cutoff!r}")
        if not 0 <= self.velocity_threshold_fraction < 1:
            raise ConfigurationError(
                f"velocity_threshold_fraction: expected a value in [0, 1), got {self.velocity_threshold_fraction!r}")


@dataclass(frozen=True, eq=False)
class PreparedData:
    """Filtered, differentiated samples.

    Attributes
    ----------
    q, qd, qdd, tau
        ``(N, n)`` [rad, rad/s, rad/s^2, N m].
    tau_raw
        The recorded torques at the same samples, unfiltered ``(N, n)``.
    rate
        Sampling rate [Hz].
    cutoff
        Filter cutoff [Hz]; ``nan`` when the recording gave the derivatives and nothing was filtered.
    dropped
        Samples dropped at each end (filter transients).
    samples
        Samples in the recording.
    """

    q: FloatArray
    qd: FloatArray
    qdd: FloatArray
    tau: FloatArray
    tau_raw: FloatArray
    rate: float
    cutoff: float
    dropped: int
    samples: int


def dominant_frequency(x: ArrayLike, rate: float) -> FloatArray:
    """The frequency [Hz] of the largest spectral peak of each column of ``x`` ``(N, n)`` (mean removed)."""
    x = np.asarray(x, dtype=float)
    x = x - x.mean(axis=0)
    n = x.shape[0]
    pad = 4 * n
    spectrum = np.abs(np.fft.rfft(x * np.hanning(n)[:, None], n=pad, axis=0))
    freqs = np.fft.rfftfreq(pad, 1.0 / rate)
    spectrum[0] = 0.0
    return freqs[np.argmax(spectrum, axis=0)]


def prepare(recording: Recording, options: IdentifyOptions = IdentifyOptions()) -> PreparedData:
    """Filter and differentiate a recording (seed 003's low-pass, seed 001's non-causal differentiation)."""
    src = recording.source or None
    rate = sample_rate(recording.time, src)
    if recording.qd is not None and recording.qdd is not None:
        if options.cutoff is None:
            return PreparedData(recording.q, recording.qd, recording.qdd, recording.tau, recording.tau, rate,
                                math.nan, 0, recording.n_samples)
        cutoff = options.cutoff
        drop = edge_samples(rate, cutoff)
        tau = lowpass(recording.tau, rate, cutoff)
        q, qd, qdd = recording.q, recording.qd, recording.qdd
    else:
        highest = float(np.max(dominant_frequency(recording.q, rate)))
        cutoff = options.cutoff if options.cutoff is not None else default_cutoff(rate, highest)
        if cutoff >= 0.5 * rate:
            raise ConfigurationError(f"cutoff (--cutoff-hz): expected below the Nyquist frequency {0.5 * rate:.6g} Hz, "
                                     f"got {cutoff:.6g} Hz")
        drop = edge_samples(rate, cutoff)
        q = lowpass(recording.q, rate, cutoff)
        tau = lowpass(recording.tau, rate, cutoff)
        qd = differentiate(q, rate)
        qdd = differentiate(qd, rate)
    if recording.n_samples <= 2 * drop + 10:
        raise InputError(
            f"expected more than {2 * drop + 10} samples for a {cutoff:.3g} Hz filter at {rate:.6g} Hz "
            f"({drop} are dropped at each end), got {recording.n_samples}", path=src)
    keep = slice(drop, recording.n_samples - drop)
    return PreparedData(q[keep], qd[keep], qdd[keep], tau[keep], recording.tau[keep], rate, cutoff, drop,
                        recording.n_samples)


@dataclass(frozen=True, eq=False)
class Identification:
    """The result of :func:`identify`.

    Attributes
    ----------
    chain
        The robot.
    base
        The base parameters' definition (which combinations).
    base_values, base_std
        WLS estimates of the base parameters and their standard deviations, ``(p,)``.
    friction_values, friction_std
        WLS Coulomb and viscous friction ``(2 n,)`` (``Fc_1, Fv_1, ..``) and their standard deviations.
    parameters
        Physically consistent standard parameters ``(10 n,)``, link frames.
    friction
        The consistent fit's friction table (``Fs = Fc``: the excitation does not see the Stribeck term).
    reference
        The reference (CAD) standard parameters the fit was pulled to, ``(10 n,)``.
    sigma
        Per-joint residual standard deviation of the OLS fit [N m], ``(n,)`` (the WLS weights).
    data
        The prepared samples.
    mask
        ``(N, n)``: the samples used in each joint's equations (above the speed threshold).
    thresholds
        The speed threshold per joint [rad/s].
    """

    chain: Chain
    base: BaseParameters
    base_values: FloatArray
    base_std: FloatArray
    friction_values: FloatArray
    friction_std: FloatArray
    parameters: FloatArray
    friction: FrictionTable
    reference: FloatArray
    sigma: FloatArray
    data: PreparedData
    mask: np.ndarray
    thresholds: FloatArray
    gravity: tuple[float, float, float] = STANDARD_GRAVITY

    def predict(self, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike) -> FloatArray:
        """Torques ``(N, n)`` [N m] of the consistent model (rigid body plus friction) at states ``(N, n)``."""
        return (regressor(self.chain, q, qd, qdd, gravity=self.gravity) @ self.parameters
                + self.friction.torque(np.atleast_2d(qd)))

    def predict_base(self, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike) -> FloatArray:
        """Torques ``(N, n)`` of the WLS base-parameter model, with the friction table."""
        Y = self.base.columns(regressor(self.chain, q, qd, qdd, gravity=self.gravity))
        return Y @ self.base_values + self.friction.torque(np.atleast_2d(qd))


#: Bound of the logarithms of the Cholesky diagonal (a trial step of the
#: solver must not overflow; e^30 m would be no robot).
_LOG_LIMIT = 30.0


def _cholesky_vector(J: FloatArray) -> FloatArray:
    """10 numbers ``(log diag, strict lower)`` of the Cholesky factor of a positive definite ``J`` (4 x 4)."""
    L = np.linalg.cholesky(J)
    return np.concatenate([np.log(np.diag(L)), L[np.tril_indices(4, -1)]])


def _parameters_from_cholesky(x: FloatArray) -> FloatArray:
    """``pi_k`` ``(..., 10)`` from :func:`_cholesky_vector` numbers ``(..., 10)``."""
    L = np.zeros(x.shape[:-1] + (4, 4))
    idx = np.arange(4)
    L[..., idx, idx] = np.exp(np.clip(x[..., :4], -_LOG_LIMIT, _LOG_LIMIT))
    rows, cols = np.tril_indices(4, -1)
    L[..., rows, cols] = x[..., 4:]
    return parameters_from_pseudo_inertia(L @ np.swapaxes(L, -1, -2))


def _cholesky_jacobian(x: FloatArray) -> FloatArray:
    """``d pi_k / d x`` ``(..., 10, 10)`` of :func:`_parameters_from_cholesky` (``J = L L^T`` is bilinear in ``L``)."""
    L = np.zeros(x.shape[:-1] + (4, 4))
    idx = np.arange(4)
    L[..., idx, idx] = np.exp(np.clip(x[..., :4], -_LOG_LIMIT, _LOG_LIMIT))
    rows, cols = np.tril_indices(4, -1)
    L[..., rows, cols] = x[..., 4:]
    entries = [(i, i) for i in range(4)] + list(zip(rows.tolist(), cols.tolist()))
    out = np.empty(x.shape[:-1] + (10, 10))
    for v, (a, b) in enumerate(entries):
        dL = np.zeros_like(L)
        dL[..., a, b] = L[..., a, b] if a == b else 1.0  # d exp(x)/dx = exp(x) on the diagonal
        dJ = dL @ np.swapaxes(L, -1, -2)
        dJ = dJ + np.swapaxes(dJ, -1, -2)
        out[..., :, v] = parameters_from_pseudo_inertia(dJ)
    return out


def _consistent_reference(pi: FloatArray) -> FloatArray:
    """Reference parameters made strictly consistent (a pseudo-inertia at least 1e-9 of its scale above singular)."""
    J = pseudo_inertia(pi.reshape(-1, 10))
    out = []
    for Jk in J:
        w, V = np.linalg.eigh(Jk)
        floor = 1e-9 * max(abs(w[-1]), 1e-9)
        out.append(parameters_from_pseudo_inertia((V * np.maximum(w, floor)) @ V.T))
    return np.array(out).reshape(-1)


def _triangular_factor(A: FloatArray, b: FloatArray) -> tuple[FloatArray, FloatArray]:
    """``(R, c)`` with ``||A x - b||^2 = ||R x - c||^2 + const`` and ``R`` upper triangular ``(p, p)``.

    From the normal equations of the column-equilibrated ``A`` (one matrix
    product, which threads well, instead of a tall QR): with columns scaled
    to unit norm the condition number of ``A^T A`` stays the square of a
    well-scaled problem's. Raises ``numpy.linalg.LinAlgError`` when ``A`` is
    rank deficient.
    """
    norms = np.linalg.norm(A, axis=0)
    norms[norms == 0] = 1.0
    As = A / norms
    G = As.T @ As
    L = np.linalg.cholesky(G)
    c = scipy.linalg.solve_triangular(L, As.T @ b, lower=True)
    return L.T * norms[None, :], c


def _rank_safe_factor(A: FloatArray, b: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Like :func:`_triangular_factor` for a rank-deficient ``A`` (the standard regressor): ``(R, c)`` from the
    eigen-decomposition of the equilibrated normal matrix, ``R`` square but not triangular."""
    norms = np.linalg.norm(A, axis=0)
    norms[norms == 0] = 1.0
    As = A / norms
    w, V = np.linalg.eigh(As.T @ As)
    w = np.maximum(w, 0.0)
    root = np.sqrt(w)
    keep = root > 1e-12 * root.max()
    R = (root[:, None] * V.T) * norms[None, :]
    c = np.zeros_like(root)
    c[keep] = (V.T @ (As.T @ b))[keep] / root[keep]
    return R, c


def identify(
    chain: Chain,
    recording: Recording,
    reference: ArrayLike,
    options: IdentifyOptions = IdentifyOptions(),
    *,
    attached: ArrayLike | None = None,
    friction: FrictionTable | None = None,
) -> Identification:
    """Identify base parameters (WLS), consistent standard parameters and friction from one recording.

    Parameters
    ----------
    chain
        The robot (its kinematics is known: seed 001, slide 7).
    recording
        Joint angles and torques of an exciting motion (seed 003).
    reference
        Reference standard parameters ``(10 n,)`` (CAD, seed 000 Step 1;
        :func:`thermocomp.io.urdf_inertials.read_urdf_parameters`).
    options
        Filter cutoff, speed threshold, gravity.
    attached
        Standard parameters ``(10 n,)`` of bodies fixed to each link that keep
        their own inertials (a URDF's ``tool0``, a placeholder at the tcp:
        :attr:`thermocomp.io.urdf_inertials.UrdfParameters.attached`): each
        link's estimate is that plus a physically consistent remainder, so
        the remainder can be written into the URDF.
    friction
        A friction table to hold fixed (seed 000, Step 5: "the remaining
        parameters by least squares with the others fixed", the friction
        being Step 3's): its torques (Eq. 3, Stribeck included) are taken off
        the recorded ones and only the inertial parameters are estimated.

    Raises
    ------
    InputError
        A recording of another number of joints, too few samples, or data
        that leave a base parameter undetermined (the message names it).
    """
    n = chain.n_joints
    if recording.n_joints != n:
        raise InputError(f"expected a recording of {n} joints, got {recording.n_joints}", path=recording.source or None)
    ref = check_parameters(reference, n, "reference parameters")
    data = prepare(recording, options)
    base = base_parameters(chain, np.random.default_rng(options.seed), gravity=options.gravity)
    Y = regressor(chain, data.q, data.qd, data.qdd, gravity=options.gravity)  # (N, n, 10 n)
    fixed = friction is not None
    if fixed and friction.n_joints != n:
        raise InputError(f"friction table: expected {n} joints, got {friction.n_joints}")
    F = friction_regressor(data.qd) if not fixed else np.zeros(data.qd.shape + (0,))  # (N, n, nf)
    nf = F.shape[2]
    tau_used = data.tau_raw - friction.torque(data.qd) if fixed else data.tau_raw
    peak = np.max(np.abs(data.qd), axis=0)
    thresholds = options.velocity_threshold_fraction * peak
    mask = np.abs(data.qd) > thresholds
    rows_Y = [Y[mask[:, i], i, :] for i in range(n)]
    rows_F = [F[mask[:, i], i, :] for i in range(n)]
    rows_t = [tau_used[mask[:, i], i] for i in range(n)]
    counts = np.array([r.shape[0] for r in rows_t])
    Ys = np.vstack(rows_Y)
    Fs = np.vstack(rows_F)
    t = np.concatenate(rows_t)
    joint_of_row = np.repeat(np.arange(n), counts)
    W = np.hstack([base.columns(Ys), Fs])
    p = W.shape[1]
    if W.shape[0] <= p:
        raise InputError(f"expected more equations than the {p} unknowns, got {W.shape[0]}", path=recording.source or None)
    # Ordinary least squares, then weighted by each joint's residual deviation.
    try:
        R0, c0 = _triangular_factor(W, t)
        x_ols = scipy.linalg.solve_triangular(R0, c0)
    except np.linalg.LinAlgError:
        x_ols = np.zeros(p)  # rank deficient: named below
    res = t - W @ x_ols
    dof = max(W.shape[0] - p, 1)
    sigma = np.array([math.sqrt(float(np.sum(res[joint_of_row == i] ** 2)) / max(counts[i] - p / n, 1.0))
                      for i in range(n)])
    sigma = np.maximum(sigma, 1e-12 * max(float(np.max(np.abs(t))), 1e-300))
    w = 1.0 / sigma[joint_of_row]
    Ww = W * w[:, None]
    tw = t * w
    try:
        R, c = _triangular_factor(Ww, tw)
        diag = np.abs(np.diag(R)) / np.linalg.norm(Ww, axis=0)  # of the equilibrated problem
    except np.linalg.LinAlgError:
        R, c = np.eye(p), np.zeros(p)
        diag = np.zeros(p)
    if np.min(diag) <= 1e-7 * np.max(diag):
        weak = int(np.argmin(diag))
        labels = base.base_labels + [f"joint{j + 1}.{k}" for j in range(n) for k in ("Fc", "Fv")][:nf]
        raise InputError(f"the recording does not determine {labels[weak]} (the motion does not excite it); "
                         "record a richer motion (docs/dynamics.md)", path=recording.source or None)
    x = scipy.linalg.solve_triangular(R, c)
    res_w = tw - Ww @ x
    s2 = float(res_w @ res_w) / dof
    Rinv = scipy.linalg.solve_triangular(R, np.eye(p))
    std = np.sqrt(s2 * np.sum(Rinv**2, axis=1))
    pb = base.n_base
    # Physically consistent standard parameters: the same weighted residual, J_k = L_k L_k^T.
    S = np.hstack([Ys, Fs]) * w[:, None]
    Rs, target = _rank_safe_factor(S, tw)
    att = np.zeros(10 * n) if attached is None else check_parameters(attached, n, "attached parameters")
    ref_c = att + _consistent_reference(ref - att)
    scale = np.maximum(np.abs(ref_c), 1e-3 * np.max(np.abs(ref_c.reshape(n, 10)), axis=1).repeat(10))
    prior = math.sqrt(PRIOR_WEIGHT) * float(np.min(diag)) / scale
    # Friction f = z^2 >= 0. MINPACK's Levenberg-Marquardt (no bounds, no BLAS threads on these small matrices).
    # Start where the base parameters equal the WLS estimate and the rest is nearest the reference (the
    # minimum-norm correction in the prior's metric); links where that start is not consistent start at the reference.
    K = base.projection
    S2 = scale**2
    start = ref_c + S2 * (K.T @ np.linalg.solve((K * S2) @ K.T, x[:pb] - K @ ref_c))
    chol = []
    for J_start, J_ref in zip(pseudo_inertia((start - att).reshape(n, 10)), pseudo_inertia((ref_c - att).reshape(n, 10))):
        try:
            chol.append(_cholesky_vector(J_start))
        except np.linalg.LinAlgError:
            chol.append(_cholesky_vector(J_ref))
    x0 = np.concatenate([np.concatenate(chol), np.sqrt(np.maximum(x[pb:], 1e-6))])

    def residual(z: FloatArray) -> FloatArray:
        pi = att + _parameters_from_cholesky(z[:10 * n].reshape(n, 10)).reshape(-1)
        return np.concatenate([Rs @ np.concatenate([pi, z[10 * n:] ** 2]) - target, prior * (pi - ref_c)])

    def jacobian(z: FloatArray) -> FloatArray:
        D = scipy.linalg.block_diag(*_cholesky_jacobian(z[:10 * n].reshape(n, 10)))
        top = np.hstack([Rs[:, :10 * n] @ D, Rs[:, 10 * n:] * (2.0 * z[10 * n:])])
        bottom = np.hstack([prior[:, None] * D, np.zeros((10 * n, nf))])
        return np.vstack([top, bottom])

    fit = scipy.optimize.least_squares(residual, x0, jac=jacobian, method="lm", x_scale="jac",
                                       xtol=1e-12, ftol=1e-12, gtol=1e-12, max_nfev=40 * n)
    pi = att + _parameters_from_cholesky(fit.x[:10 * n].reshape(n, 10)).reshape(-1)
    if fixed:
        table = friction
        friction_values = np.ravel(np.column_stack([friction.Fc, friction.Fv]))
        friction_std = np.zeros(2 * n)
    else:
        f = fit.x[10 * n:] ** 2
        table = FrictionTable(Fc=f[0::2], Fv=f[1::2], Fs=f[0::2], vs=np.zeros(n))
        friction_values, friction_std = x[pb:], std[pb:]
    return Identification(
        chain=chain, base=base, base_values=x[:pb], base_std=std[:pb], friction_values=friction_values,
        friction_std=friction_std, parameters=pi, friction=table, reference=ref, sigma=sigma, data=data, mask=mask,
        thresholds=thresholds, gravity=options.gravity,
    )


__all__ = [
    "PRIOR_WEIGHT",
    "VELOCITY_THRESHOLD_FRACTION",
    "Identification",
    "IdentifyOptions",
    "PreparedData",
    "dominant_frequency",
    "identify",
    "prepare",
]
