"""Identification of the inertial and friction parameters from a recording (seed 001; seed 003; seed 000 Step 5).

1. **Data** (:func:`prepare`): positions and torques low-pass filtered with
   zero phase at a cutoff that follows the positions' own band
   (:func:`thermocomp.dynamics.filtering.choose_cutoff`), speeds and
   accelerations by central differences (:mod:`thermocomp.dynamics.filtering`)
   where the recording does not give them (given ones are filtered alike);
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
3. **Physically consistent standard parameters**, strictly inside the
   consistent set: per link the mass ``m > 0``, the centre of mass ``c`` and
   the second moments of the mass about it ``Sigma_C = tr(I_C)/2 E - I_C``
   written as ``B + beta tr(B) E`` with ``B = L L^T`` (``L`` lower
   triangular, positive diagonal), so that every eigenvalue of ``Sigma_C`` is
   at least :data:`CONSISTENCY_MARGIN` times its trace: the inertia at the
   centre of mass is positive definite and each triangle inequality
   ``I_i < I_j + I_k`` holds with a slack of at least that margin times
   ``tr(I_C)`` (the pseudo-inertia of Wensing, Kim and Slotine, RA-L 2018,
   kept away from its boundary, where simulators round it off). The
   parameters minimise the same weighted residual plus a ridge pull towards
   the reference (CAD, seed 000 Step 1) parameters, whose weight is chosen
   from the data by cross-validation over contiguous time blocks
   (:func:`prior_weight`); the report says per parameter how much comes
   from the data. A **plausibility bound** keeps each link's mass inside a
   ball around the link (:func:`link_balls`). Coulomb and viscous friction
   are kept non-negative.

Pure core (numpy, scipy).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.linalg
import scipy.optimize

from thermocomp._typing import ArrayLike, FloatArray
from thermocomp.dynamics.base_params import ArmatureSplit, BaseParameters, armature_split, base_parameters
from thermocomp.dynamics.filtering import choose_cutoff, differentiate, edge_samples, lowpass, sample_rate
from thermocomp.dynamics.friction import FrictionTable
from thermocomp.dynamics.parameters import check_parameters, parameters_from_pseudo_inertia, tensor_from_six
from thermocomp.dynamics.regressor import armature_regressor, friction_regressor, regressor
from thermocomp.errors import ConfigurationError, InputError
from thermocomp.inertia.gravity import STANDARD_GRAVITY
from thermocomp.io.recording_csv import Recording
from thermocomp.robot.chain import Chain

#: Per joint, samples slower than this fraction of the joint's peak speed are
#: left out of its equations (seed 003's velocity threshold: its example
#: report uses 0.04 to 0.06 rad/s for peaks of a few rad/s).
VELOCITY_THRESHOLD_FRACTION = 0.02

#: Every written link's second moments of mass about its centre of mass are at
#: least this share of their sum: each triangle inequality of the principal
#: moments of inertia ``I_i < I_j + I_k`` holds with a slack of at least this
#: times ``tr(I_C)``. Real links stay far inside (the built-in robots' CAD
#: links: 0.017 to 0.32); PyBullet's loader diagonalises to 1e-6 of the trace
#: and refuses a tensor on the boundary ("Bad inertia tensor properties").
CONSISTENCY_MARGIN = 1e-3

#: Plausibility: each link's mass lies in a ball centred midway between its
#: joint and the next one (the tool point for the last link), of radius half
#: that distance plus this [m] (the link's half-thickness and offsets), or
#: :data:`PLAUSIBLE_REFERENCE_FACTOR` times the reference's RMS radius about
#: that centre if larger. A body inside a ball of radius ``r`` about ``c0``
#: has ``integral |x - c0|^2 dm <= m r^2`` (Wensing, Kim and Slotine 2018),
#: so its centre of mass is within ``r`` of ``c0`` and its inertia bounded.
LINK_PAD = 0.2

#: See :data:`LINK_PAD`.
PLAUSIBLE_REFERENCE_FACTOR = 1.5

#: Contiguous time blocks of the cross-validation that chooses the prior's weight.
CV_FOLDS = 5

#: Prior weights tried, relative to the data's mean information per scaled parameter (log grid).
CV_WEIGHTS = tuple(10.0 ** k for k in np.arange(-10.0, 2.5, 0.5))

#: The directions no torque shows (outside the base parameters) are held at the reference with this
#: fraction of the data's mean information per parameter (square root: a residual weight). Strong enough
#: that the fit does not wander along them (with the cross-validated weight alone, 1e-8 on a test, link 1's
#: mass drifted from 2.79 to 0.2 kg), weak enough to give way where the consistency margin or a
#: plausibility ball needs it.
HOLD_WEIGHT = 1e-2

#: The prior's scale of each link mass relative to the other parameters' (each its own reference value): a
#: manufacturer's link masses are known to a few per cent (the UR10e's published ones; Mamedov et al. bound each
#: identified mass to 10 % above it), its centres of mass and inertias much less (CAD of a simplified link, and
#: the reflected rotor inertias hide in them). Where the torques see only a combination of a mass and moments, the
#: fit moves the moments about five times as far, relative to their reference, as the mass (measured on the real
#: UR10e, docs/dynamics.md: 1 left the wrist's 0.2 kg at up to 0.55 kg; 0.3 put 13.9 kg in the upper arm (12.9)
#: with its centre of mass at 138 mm (306); 0.2: 13.4 kg at 169 mm, every mass within 16 %; 0.1: within 5 %, but
#: held-out torques of joint 5 10.0 % worse than the authors').
MASS_PRIOR_SCALE = 0.2

#: An armature the torques cannot tell from a link's inertia (joint 1's from ``link1.Izz``, joint 2's from the upper
#: arm's inertia about its axis) is pulled to its reference like the links' parameters, with a scale of this
#: fraction of the reference mass matrix's diagonal at the zero pose: where the data move the sum, the link takes
#: most of the change unless its plausibility ball and mass prior push it into the armature. Measured: a simulated
#: UR5 without rotors written to a URDF (which cannot carry an armature) 2.1e-4 of the largest torque off its
#: truth (2.2e-3 with the inseparable armatures free, 1.6e-3 with 1); the real UR10e's joints 1 and 2 get 2.6
#: and 1.8 kg m^2 (4.4 and 5.5 free, when its upper arm kept 12.9 kg; with 0.01, 20 kg at 64 mm).
INSEPARABLE_ARMATURE_SCALE = 0.1

#: A parameter whose value is at least this share the data's (the diagonal of
#: the ridge's resolution matrix) is reported as from the data; at most
#: ``1 -`` this share, from the prior; between, mixed.
DATA_SHARE = 0.9


@dataclass(frozen=True)
class IdentifyOptions:
    """Options of :func:`identify`.

    Attributes
    ----------
    cutoff
        Low-pass cutoff [Hz]; ``None``: :func:`thermocomp.dynamics.filtering.choose_cutoff`.
    velocity_threshold_fraction
        See :data:`VELOCITY_THRESHOLD_FRACTION`, in [0, 1).
    gravity
        World gravity [m/s^2].
    seed
        Seed of the random states that find the base parameters (the result does not depend on it).
    armature
        Identify each joint's reflected rotor inertia (:func:`thermocomp.dynamics.regressor.armature_regressor`)
        with the base parameters; off: the model has none (unless a fixed friction table gives it).
    """

    cutoff: float | None = None
    velocity_threshold_fraction: float = VELOCITY_THRESHOLD_FRACTION
    gravity: tuple[float, float, float] = STANDARD_GRAVITY
    seed: int = 0
    armature: bool = True

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
    cutoff_reason
        Why that cutoff (a sentence for the report).
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
    cutoff_reason: str
    dropped: int
    samples: int


def check_signals(recording: Recording) -> None:
    """Refuse a recording with a joint at rest or an axis whose torques never change (e.g. all zero).

    Raises
    ------
    InputError
        Naming the column.
    """
    src = recording.source or None
    for j in range(recording.n_joints):
        if np.ptp(recording.q[:, j]) == 0:
            raise InputError(f"joint {j + 1} does not move (every sample at {float(recording.q[0, j])!r} rad); expected a "
                             "motion of every joint", path=src, column=f"q{j + 1}_rad")
        if np.ptp(recording.tau[:, j]) == 0:
            raise InputError(f"every torque of joint {j + 1} reads {float(recording.tau[0, j])!r} N m; expected the "
                             "recorded torques of a moving joint", path=src, column=f"tau{j + 1}_Nm")


def prepare(recording: Recording, options: IdentifyOptions = IdentifyOptions()) -> PreparedData:
    """Filter and differentiate a recording (seed 003's low-pass, seed 001's non-causal differentiation).

    Recorded speeds and accelerations are used when given (filtered like the
    positions, or as they are when both are given and no cutoff is);
    missing ones are central differences of the filtered positions (speeds).
    """
    src = recording.source or None
    rate = sample_rate(recording.time, src)
    if recording.qd is not None and recording.qdd is not None and options.cutoff is None:
        return PreparedData(recording.q, recording.qd, recording.qdd, recording.tau, recording.tau, rate,
                            math.nan, "none: speeds and accelerations from the recording", 0, recording.n_samples)
    if options.cutoff is not None:
        cutoff, reason = options.cutoff, "given (--cutoff-hz)"
    else:
        chosen = choose_cutoff(recording.q, rate)
        cutoff, reason = chosen.value, chosen.reason
    if cutoff >= 0.5 * rate:
        raise ConfigurationError(f"cutoff (--cutoff-hz): expected below the Nyquist frequency {0.5 * rate:.6g} Hz, "
                                 f"got {cutoff:.6g} Hz")
    drop = edge_samples(rate, cutoff)
    if recording.n_samples <= 2 * drop + 10:
        raise InputError(
            f"expected more than {2 * drop + 10} samples for a {cutoff:.3g} Hz filter at {rate:.6g} Hz "
            f"({drop} are dropped at each end), got {recording.n_samples}", path=src)
    q = lowpass(recording.q, rate, cutoff)
    tau = lowpass(recording.tau, rate, cutoff)
    qd = lowpass(recording.qd, rate, cutoff) if recording.qd is not None else differentiate(q, rate)
    qdd = lowpass(recording.qdd, rate, cutoff) if recording.qdd is not None else differentiate(qd, rate)
    keep = slice(drop, recording.n_samples - drop)
    return PreparedData(q[keep], qd[keep], qdd[keep], tau[keep], recording.tau[keep], rate, cutoff, reason, drop,
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
        Physically consistent standard parameters ``(10 n,)``, link frames, strictly inside the consistent set
        (:data:`CONSISTENCY_MARGIN`).
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
    condition_number
        Of the regressor of the base parameters and friction over the used samples, columns scaled to unit norm
        (seed 001: an exciting trajectory keeps it small).
    prior_weight
        The ridge weight of the pull to the reference, chosen by cross-validation (:func:`prior_weight`), and the
        cross-validation's story in words (``prior_story``).
    data_share
        ``(10 n,)``: per standard parameter, the share of its value that the data decide (the diagonal of the
        ridge's resolution matrix: 1 from the data, 0 from the reference).
    balls
        ``(n, 4)``: per link the plausibility ball's centre [m] (link frame) and radius [m] (:func:`link_balls`).
    armature_split
        Which joints' armature the torques separate from the links (:class:`~thermocomp.dynamics.base_params.ArmatureSplit`);
        ``None`` when no armature was identified.
    armature_values, armature_std
        ``(n,)``: WLS estimates of the separable armatures [kg m^2] and their standard deviations (``nan`` for the
        others: the base parameters absorb the inseparable ones, the reference holds those the motion leaves
        undetermined). The consistent fit's armature is ``friction.armature``.
    reference_armature
        ``(n,)`` [kg m^2]: what the fit keeps where the data cannot tell the armature from a link.
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
    condition_number: float
    prior_weight: float
    prior_story: str
    data_share: FloatArray
    balls: FloatArray
    attached: FloatArray
    gravity: tuple[float, float, float] = STANDARD_GRAVITY
    armature_split: ArmatureSplit | None = None
    armature_values: FloatArray | None = None
    armature_std: FloatArray | None = None
    reference_armature: FloatArray | None = None

    def predict(self, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike) -> FloatArray:
        """Torques ``(N, n)`` [N m] of the consistent model (rigid body, friction, armature) at states ``(N, n)``."""
        return (regressor(self.chain, q, qd, qdd, gravity=self.gravity) @ self.parameters
                + self.friction.drive_torque(np.atleast_2d(qd), np.atleast_2d(qdd)))

    def predict_base(self, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike) -> FloatArray:
        """Torques ``(N, n)`` of the WLS base-parameter model (with its separable armatures) and the friction table."""
        Y = self.base.columns(regressor(self.chain, q, qd, qdd, gravity=self.gravity))
        tau = Y @ self.base_values + self.friction.torque(np.atleast_2d(qd))
        if self.armature_split is not None:
            det = np.isfinite(self.armature_values)
            tau = tau + armature_regressor(qdd)[:, :, det] @ self.armature_values[det]
        return tau


#: Bound of the logarithms of the mass and of the Cholesky diagonal (a trial step of the solver must not
#: overflow; e^30 kg would be no robot).
_LOG_LIMIT = 30.0

#: ``Sigma_C = B + beta tr(B) E`` has eigenvalues at least ``beta / (1 + 3 beta)`` of its trace: the margin.
_BETA = CONSISTENCY_MARGIN / (1.0 - 3.0 * CONSISTENCY_MARGIN)

_ROWS3, _COLS3 = np.tril_indices(3, -1)


def _unpack(x: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
    """``(m (n,), c (n, 3), L (n, 3, 3))`` from the fit's numbers ``(n, 10)``: ``log m``, ``c``, ``log diag L``,
    strict lower ``L``."""
    m = np.exp(np.clip(x[:, 0], -_LOG_LIMIT, _LOG_LIMIT))
    L = np.zeros((x.shape[0], 3, 3))
    idx = np.arange(3)
    L[:, idx, idx] = np.exp(np.clip(x[:, 4:7], -_LOG_LIMIT, _LOG_LIMIT))
    L[:, _ROWS3, _COLS3] = x[:, 7:10]
    return m, x[:, 1:4], L


def _pseudo(m: FloatArray, c: FloatArray, sigma_c: FloatArray) -> FloatArray:
    """The pseudo-inertia about the link origin ``(n, 4, 4)`` from mass, centre of mass and ``Sigma_C``."""
    J = np.zeros((m.shape[0], 4, 4))
    J[:, :3, :3] = sigma_c + m[:, None, None] * c[:, :, None] * c[:, None, :]
    J[:, :3, 3] = J[:, 3, :3] = m[:, None] * c
    J[:, 3, 3] = m
    return J


def _second_moments(B: FloatArray) -> FloatArray:
    """``Sigma_C = B + beta tr(B) E`` ``(n, 3, 3)``."""
    return B + _BETA * np.trace(B, axis1=1, axis2=2)[:, None, None] * np.eye(3)


def _parameters_from_x(x: FloatArray) -> FloatArray:
    """Standard parameters ``(n, 10)`` of the fit's numbers ``(n, 10)``: every one strictly consistent."""
    m, c, L = _unpack(x)
    return parameters_from_pseudo_inertia(_pseudo(m, c, _second_moments(L @ np.swapaxes(L, 1, 2))))


def _jacobian_x(x: FloatArray) -> FloatArray:
    """``d pi_k / d x_k`` ``(n, 10, 10)`` of :func:`_parameters_from_x` (``pi`` is linear in the pseudo-inertia)."""
    m, c, L = _unpack(x)
    n = x.shape[0]
    out = np.empty((n, 10, 10))
    zero = np.zeros((n, 3, 3))
    out[:, :, 0] = parameters_from_pseudo_inertia(_pseudo(m, c, zero))  # d/d log m scales every m term
    for a in range(3):
        e = np.zeros(3)
        e[a] = 1.0
        dJ = np.zeros((n, 4, 4))
        dJ[:, :3, :3] = m[:, None, None] * (e[None, :, None] * c[:, None, :] + c[:, :, None] * e[None, None, :])
        dJ[:, :3, 3] = dJ[:, 3, :3] = m[:, None] * e
        out[:, :, 1 + a] = parameters_from_pseudo_inertia(dJ)
    entries = [(0, 0), (1, 1), (2, 2)] + list(zip(_ROWS3.tolist(), _COLS3.tolist()))
    for v, (a, b) in enumerate(entries):
        dL = np.zeros((n, 3, 3))
        dL[:, a, b] = L[:, a, b] if a == b else 1.0  # d exp(x)/dx = exp(x) on the diagonal
        dB = dL @ np.swapaxes(L, 1, 2)
        dJ = np.zeros((n, 4, 4))
        dJ[:, :3, :3] = _second_moments(dB + np.swapaxes(dB, 1, 2))
        out[:, :, 4 + v] = parameters_from_pseudo_inertia(dJ)
    return out


def _x_from_parameters(pi: FloatArray) -> FloatArray:
    """The fit's numbers ``(n, 10)`` of parameters ``(n, 10)`` inside the margin; ``numpy.linalg.LinAlgError`` when
    a link is not strictly inside it."""
    m = pi[:, 0]
    if np.any(m <= 0):
        raise np.linalg.LinAlgError("mass")
    c = pi[:, 1:4] / m[:, None]
    I_O = tensor_from_six(pi[:, 4:])
    sigma_o = 0.5 * np.trace(I_O, axis1=1, axis2=2)[:, None, None] * np.eye(3) - I_O
    sigma_c = sigma_o - m[:, None, None] * c[:, :, None] * c[:, None, :]
    B = sigma_c - _BETA / (1 + 3 * _BETA) * np.trace(sigma_c, axis1=1, axis2=2)[:, None, None] * np.eye(3)
    L = np.linalg.cholesky(B)
    return np.column_stack([np.log(m), c, np.log(L[:, [0, 1, 2], [0, 1, 2]]), L[:, _ROWS3, _COLS3]])


def margin_of(pi: ArrayLike) -> FloatArray:
    """Per link of ``pi`` ``(..., 10)``: the smallest eigenvalue of ``Sigma_C`` over its trace (``-inf`` for a
    mass <= 0). Physically consistent: > 0; as written by :func:`identify`: >= :data:`CONSISTENCY_MARGIN`."""
    pi = np.asarray(pi, dtype=float)
    m = pi[..., 0]
    safe = np.where(m > 0, m, 1.0)
    c = pi[..., 1:4] / safe[..., None]
    I_O = tensor_from_six(pi[..., 4:])
    sigma_o = 0.5 * np.trace(I_O, axis1=-2, axis2=-1)[..., None, None] * np.eye(3) - I_O
    sigma_c = sigma_o - m[..., None, None] * c[..., :, None] * c[..., None, :]
    w = np.linalg.eigvalsh(sigma_c)
    tr = np.sum(w, axis=-1)
    return np.where((m > 0) & (tr > 0), w[..., 0] / np.where(tr > 0, tr, 1.0), -np.inf)


def _inside_margin(pi: FloatArray, scale_mass: float) -> FloatArray:
    """Parameters ``(n, 10)`` moved strictly inside the margin set: a mass below ``1e-6 scale_mass`` raised to it
    (centre of mass at the origin), ``Sigma_C`` raised isotropically until its smallest eigenvalue is twice
    :data:`CONSISTENCY_MARGIN` of its trace (the reference of a fit; a CAD link is far inside already)."""
    out = []
    floor = 1e-6 * scale_mass
    for p in pi:
        m = float(p[0])
        if m < floor:
            m, c, sigma = floor, np.zeros(3), np.zeros((3, 3))
        else:
            c = p[1:4] / m
            I_O = tensor_from_six(p[4:])
            sigma = 0.5 * np.trace(I_O) * np.eye(3) - I_O - m * np.outer(c, c)
        w = np.linalg.eigvalsh(sigma)
        target = 2 * CONSISTENCY_MARGIN
        tr = max(float(np.sum(w)), m * 1e-6)  # a point mass gets a 1 mm gyration radius
        lift = max((target * tr - w[0]) / (1 - 3 * target), 0.0)
        if w[0] + lift <= 0:
            lift = tr / 3 - w[0]
        sigma = sigma + lift * np.eye(3)
        out.append(parameters_from_pseudo_inertia(_pseudo(np.array([m]), c[None, :], sigma[None])[0]))
    return np.array(out)


def link_balls(chain: Chain, reference: ArrayLike) -> FloatArray:
    """Per link the plausibility ball ``(n, 4)``: centre [m] (link frame) and radius [m].

    Centre midway between the link's joint and the next joint (the tool point
    ``T_last_tcp`` for the last link); radius half that distance plus
    :data:`LINK_PAD`, or :data:`PLAUSIBLE_REFERENCE_FACTOR` times the
    reference's RMS radius about the centre if larger. ``reference``: the
    links' own parameters ``(10 n,)``.
    """
    n = chain.n_joints
    ref = np.asarray(reference, dtype=float).reshape(n, 10)
    out = np.zeros((n, 4))
    for k in range(n):
        seg = chain.p[k + 1] if k < n - 1 else chain.T_last_tcp[:3, 3]
        c0 = 0.5 * np.asarray(seg, dtype=float)
        m = ref[k, 0]
        rms = math.sqrt(max(float(_ball_moment(ref[k], c0, 0.0)) / m, 0.0)) if m > 0 else 0.0
        out[k, :3] = c0
        out[k, 3] = max(0.5 * float(np.linalg.norm(seg)) + LINK_PAD, PLAUSIBLE_REFERENCE_FACTOR * rms)
    return out


def _ball_moment(pi: FloatArray, c0: FloatArray, r: float) -> FloatArray:
    """``integral |x - c0|^2 dm - m r^2`` of parameters ``(..., 10)``: <= 0 for a body that can lie in the ball
    (linear in the parameters: ``tr(I_O) / 2 - 2 m c . c0 + m (|c0|^2 - r^2)``)."""
    return (0.5 * (pi[..., 4] + pi[..., 7] + pi[..., 9]) - 2.0 * pi[..., 1:4] @ c0
            + pi[..., 0] * (float(c0 @ c0) - r * r))


def _ball_rows(balls: FloatArray) -> FloatArray:
    """``(n, 10)``: :func:`_ball_moment` of link ``k`` is ``rows[k] . pi_k``."""
    rows = np.zeros((balls.shape[0], 10))
    for k, (x, y, z, r) in enumerate(balls):
        c0 = np.array([x, y, z])
        rows[k, 0] = float(c0 @ c0) - r * r
        rows[k, 1:4] = -2.0 * c0
        rows[k, [4, 7, 9]] = 0.5
    return rows


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


def _pivoted_diagonal(A: FloatArray) -> FloatArray:
    """Per column of ``A``, its part orthogonal to the columns before it over its norm (Gram-Schmidt in column
    order, as the triangular factor's diagonal would give): near zero for a column the others explain."""
    norms = np.linalg.norm(A, axis=0)
    norms[norms == 0] = 1.0
    As = A / norms
    out = np.zeros(A.shape[1])
    Q = np.zeros((A.shape[0], 0))
    for j in range(A.shape[1]):
        col = As[:, j] - Q @ (Q.T @ As[:, j])
        col = col - Q @ (Q.T @ col)
        out[j] = float(np.linalg.norm(col))
        if out[j] > 1e-12:
            Q = np.column_stack([Q, col / out[j]])
    return out


def prior_weight(
    A: FloatArray, b: FloatArray, penalised: np.ndarray, fold_of_row: np.ndarray
) -> tuple[float, FloatArray, str]:
    """The ridge weight of the pull to the reference, by k-fold cross-validation over contiguous time blocks.

    The ridge problem ``min ||A u - b||^2 + lam ||u[penalised]||^2`` (``u``:
    the parameters' departure from the reference, scaled; ``A`` the weighted
    regressor ``(rows, p)``, ``b`` the weighted torques the reference leaves
    unexplained ``(rows,)``) is solved on all blocks but one and scored on
    the one left out, for every ``lam`` of :data:`CV_WEIGHTS` times the
    data's mean information per penalised parameter. The weight kept is the
    largest whose error is within one standard error of the smallest (the
    "one standard error rule": Hastie, Tibshirani, Friedman, *The Elements of
    Statistical Learning*, 7.10): what the data cannot tell apart from the
    reference stays at the reference. Blocks in time, not random samples:
    neighbouring samples share their noise through the filter.

    Returns
    -------
    lam : float
        The weight, for the whole data (the training blocks' weight scaled by
        ``k / (k - 1)`` for the data's larger information).
    share : ``(p,)``
        The diagonal of the resolution matrix ``(G + lam P)^-1 G`` of the
        whole data: per parameter the share of its value that the data decide.
    story : str
        The choice in words.
    """
    G = A.T @ A
    h = A.T @ b
    P = np.diag(penalised.astype(float))
    unit = float(np.trace(G[np.ix_(penalised, penalised)])) / max(int(penalised.sum()), 1)
    folds = np.unique(fold_of_row)
    grid = unit * np.array(CV_WEIGHTS)
    errors = np.zeros((grid.size, folds.size))
    for f_i, f in enumerate(folds):
        test = fold_of_row == f
        At, bt = A[test], b[test]
        Gt, ht = G - At.T @ At, h - At.T @ bt
        for l_i, lam in enumerate(grid):
            u = np.linalg.lstsq(Gt + lam * P, ht, rcond=None)[0]
            errors[l_i, f_i] = float(np.sum((At @ u - bt) ** 2))
    total = errors.sum(axis=1)
    best = int(np.argmin(total))
    se = math.sqrt(folds.size) * float(np.std(errors[best], ddof=1)) if folds.size > 1 else 0.0
    chosen = int(max(i for i in range(grid.size) if total[i] <= total[best] + se))
    k = folds.size
    lam = float(grid[chosen]) * (k / (k - 1) if k > 1 else 1.0)
    share = np.clip(np.diag(np.linalg.lstsq(G + lam * P, G, rcond=None)[0]), 0.0, 1.0)
    story = (f"{k}-fold cross-validation over contiguous time blocks, one-standard-error rule: weight "
             f"{CV_WEIGHTS[chosen]:.3g} of the data's mean information per parameter (held-out weighted residual "
             f"{total[chosen]:.6g} against {total[best]:.6g} at the best weight {CV_WEIGHTS[best]:.3g})")
    return lam, share, story


def identify(
    chain: Chain,
    recording: Recording,
    reference: ArrayLike,
    options: IdentifyOptions = IdentifyOptions(),
    *,
    attached: ArrayLike | None = None,
    friction: FrictionTable | None = None,
    reference_armature: ArrayLike | None = None,
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
        :func:`thermocomp.dynamics.urdf_parameters.urdf_parameters`).
    options
        Filter cutoff, speed threshold, gravity.
    attached
        Standard parameters ``(10 n,)`` of bodies fixed to each link that keep
        their own inertials (a URDF's ``tool0``, a placeholder at the tcp:
        :attr:`thermocomp.dynamics.urdf_parameters.UrdfParameters.attached`): each
        link's estimate is that plus a physically consistent remainder, so
        the remainder can be written into the URDF.
    friction
        A friction table to hold fixed (seed 000, Step 5: "the remaining
        parameters by least squares with the others fixed", the friction
        being Step 3's): its torques (Eq. 3, Stribeck included) and its
        armature's are taken off the recorded ones and only the inertial
        parameters are estimated.
    reference_armature
        ``(n,)`` [kg m^2], default 0: each joint's reflected rotor inertia
        where the torques cannot tell it from a link's inertia (joint 1 about
        a vertical axis and ``link1.Izz``; joint 2 and the upper arm's inertia
        about its axis); with :attr:`IdentifyOptions.armature`.

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
    check_signals(recording)
    data = prepare(recording, options)
    base = base_parameters(chain, np.random.default_rng(options.seed), gravity=options.gravity)
    Y = regressor(chain, data.q, data.qd, data.qdd, gravity=options.gravity)  # (N, n, 10 n)
    fixed = friction is not None
    if fixed and friction.n_joints != n:
        raise InputError(f"friction table: expected {n} joints, got {friction.n_joints}")
    F = friction_regressor(data.qd) if not fixed else np.zeros(data.qd.shape + (0,))  # (N, n, nf)
    nf = F.shape[2]
    tau_used = data.tau_raw - friction.drive_torque(data.qd, data.qdd) if fixed else data.tau_raw
    # The armature (reflected rotor inertia): a column per joint; the ones the base columns explain are absorbed.
    with_armature = options.armature and not fixed
    split = armature_split(chain, base, np.random.default_rng(options.seed + 1), gravity=options.gravity) \
        if with_armature else None
    na = n if with_armature else 0
    sep = split.separable if split is not None else np.zeros(0, dtype=bool)
    ref_arm = np.zeros(n) if reference_armature is None else np.asarray(reference_armature, dtype=float)
    if ref_arm.shape != (n,) or not np.all(np.isfinite(ref_arm) & (ref_arm >= 0)):
        raise InputError(f"reference armature: expected {n} values >= 0 kg m^2, got {ref_arm.tolist()}")
    Aq = armature_regressor(data.qdd)[:, :, :na]  # (N, n, na)
    peak = np.max(np.abs(data.qd), axis=0)
    thresholds = options.velocity_threshold_fraction * peak
    mask = np.abs(data.qd) > thresholds
    rows_Y = [Y[mask[:, i], i, :] for i in range(n)]
    rows_F = [F[mask[:, i], i, :] for i in range(n)]
    rows_A = [Aq[mask[:, i], i, :] for i in range(n)]
    rows_t = [tau_used[mask[:, i], i] for i in range(n)]
    counts = np.array([r.shape[0] for r in rows_t])
    Ys = np.vstack(rows_Y)
    Fs = np.vstack(rows_F)
    As = np.vstack(rows_A)
    t = np.concatenate(rows_t)
    joint_of_row = np.repeat(np.arange(n), counts)
    # An armature this motion leaves undetermined (e.g. two joints moving in phase) is held at its reference, as
    # an inseparable one; any other undetermined parameter is an error naming it.
    det = sep.copy()
    while True:
        W = np.hstack([base.columns(Ys), As[:, det], Fs])
        n_sep = int(det.sum())
        p = W.shape[1]
        if W.shape[0] <= p:
            raise InputError(f"expected more equations than the {p} unknowns, got {W.shape[0]}",
                             path=recording.source or None)
        # Ordinary least squares, then weighted by each joint's residual deviation.
        try:
            R0, c0 = _triangular_factor(W, t)
            x_ols = scipy.linalg.solve_triangular(R0, c0)
        except np.linalg.LinAlgError:
            x_ols = np.linalg.lstsq(W, t, rcond=None)[0]  # rank deficient: named below
        res = t - W @ x_ols
        dof = max(W.shape[0] - p, 1)
        sigma = np.array([math.sqrt(float(np.sum(res[joint_of_row == i] ** 2)) / max(counts[i] - p / n, 1.0))
                          for i in range(n)])
        sigma = np.maximum(sigma, 1e-12 * float(np.max(np.abs(t))))  # > 0: check_signals refused all-zero torques
        w = 1.0 / sigma[joint_of_row]
        Ww = W * w[:, None]
        tw = t * w
        try:
            R, c = _triangular_factor(Ww, tw)
            diag = np.abs(np.diag(R)) / np.linalg.norm(Ww, axis=0)  # of the equilibrated problem
        except np.linalg.LinAlgError:
            R, c = np.eye(p), np.zeros(p)
            diag = _pivoted_diagonal(Ww)
        pb = base.n_base
        if np.min(diag) > 1e-7 * np.max(diag):
            break
        weak = int(np.argmin(diag))
        if pb <= weak < pb + n_sep:
            det[np.flatnonzero(det)[weak - pb]] = False
            continue
        labels = (base.base_labels + [f"joint{j + 1}.armature" for j in np.flatnonzero(det)]
                  + [f"joint{j + 1}.{k}" for j in range(n) for k in ("Fc", "Fv")][:nf])
        raise InputError(f"the recording does not determine {labels[weak]} (the motion does not excite it); "
                         "record a richer motion (docs/dynamics.md)", path=recording.source or None)
    x = scipy.linalg.solve_triangular(R, c)
    res_w = tw - Ww @ x
    s2 = float(res_w @ res_w) / dof
    Rinv = scipy.linalg.solve_triangular(R, np.eye(p))
    std = np.sqrt(s2 * np.sum(Rinv**2, axis=1))
    condition = float(np.linalg.cond(R / np.linalg.norm(Ww, axis=0)[None, :]))
    # Physically consistent standard parameters: the same weighted residual, each link strictly inside the margin.
    # The unknowns: the standard parameters (10 n), the armatures (na, >= 0) and the friction (nf, >= 0).
    P = 10 * n
    S = np.hstack([Ys, As, Fs]) * w[:, None]
    Rs, target = _rank_safe_factor(S, tw)
    att = np.zeros(P) if attached is None else check_parameters(attached, n, "attached parameters")
    own_ref = _inside_margin((ref - att).reshape(n, 10), float(np.max(np.abs(ref[0::10]))) or 1.0)
    ref_c = att + own_ref.reshape(-1)
    scale = np.maximum(np.abs(ref_c), 1e-3 * np.max(np.abs(ref_c.reshape(n, 10)), axis=1).repeat(10))
    scale[0::10] *= MASS_PRIOR_SCALE  # a manufacturer's link mass is known better than its moments
    ref_a = ref_arm[:na]
    # An armature's scale: the reference mass matrix's diagonal at the zero pose (what the joint's axis carries).
    M0 = regressor(chain, np.zeros((n, n)), np.zeros((n, n)), np.eye(n), gravity=(0.0, 0.0, 0.0)) @ ref_c
    diag0 = np.abs(np.diag(M0))[:na]
    scale_a = np.maximum(ref_a, np.where(sep, 1.0, INSEPARABLE_ARMATURE_SCALE) * diag0)
    scale_a = np.where(scale_a > 0, scale_a, 1.0)
    # The prior's weight from the data: ridge cross-validation over contiguous time blocks (links only: the
    # armature and the friction are the data's).
    sample_of_row = np.concatenate([np.flatnonzero(mask[:, i]) for i in range(n)])
    fold_of_row = (sample_of_row * CV_FOLDS) // data.q.shape[0]
    A = np.hstack([S[:, :P] * scale[None, :], S[:, P:]])
    penalised = np.concatenate([np.ones(P, dtype=bool), ~sep, np.zeros(nf, dtype=bool)])
    lam, share, story = prior_weight(A, tw - S[:, :P] @ ref_c - S[:, P:P + na] @ ref_a, penalised, fold_of_row)
    prior = math.sqrt(lam) / np.concatenate([scale, scale_a[~sep]])
    # What no torque can show (the directions the base parameters leave out, seed 001, and the split of an
    # inseparable armature from its link) is held at the reference with HOLD_WEIGHT of the data's mean information
    # per parameter: the cross-validated weight may be too small for the nonlinear fit to keep them there.
    K = base.projection
    if na:
        K = np.vstack([np.hstack([K, split.gamma]), np.eye(P + na)[P:][det]])
    scale_x = np.concatenate([scale, scale_a])
    unseen = scipy.linalg.null_space(K * scale_x[None, :]).T / scale_x[None, :]  # (P + na - rank, P + na)
    hold = HOLD_WEIGHT * math.sqrt(float(np.sum(A[:, :P] ** 2)) / P) * unseen
    ref_x = np.concatenate([ref_c, ref_a])
    ref_p = np.concatenate([ref_c, ref_a[~sep]])
    n_pulled = int(np.sum(~sep))
    balls = link_balls(chain, own_ref.reshape(-1))
    ball_rows = _ball_rows(balls)
    ball_scale = np.maximum(own_ref[:, 0], 1e-300) * balls[:, 3] ** 2
    # Friction f = z^2 >= 0; the armature linear, kept >= 0 by a penalty like the balls' (a square root's zero slope
    # at 0 stalls the solver where a joint has no armature). MINPACK's Levenberg-Marquardt (no bounds, no BLAS threads on
    # these small matrices). Start where the base parameters equal the WLS estimate and the rest is nearest the
    # reference (the minimum-norm correction in the prior's metric); links where that start is not inside the
    # margin start at the reference.
    arm0 = ref_a.copy()
    arm0[det] = x[pb:pb + n_sep]
    arm0 = np.maximum(arm0, 1e-4 * scale_a)
    K_links = base.projection
    base_links = x[:pb] - (split.gamma @ arm0 if na else 0.0)
    S2 = scale**2
    start = (ref_c + S2 * (K_links.T @ np.linalg.solve((K_links * S2) @ K_links.T, base_links - K_links @ ref_c))
             - att).reshape(n, 10)
    x_links = _x_from_parameters(own_ref)
    for k in range(n):
        try:
            x_links[k] = _x_from_parameters(start[k:k + 1])[0]
        except np.linalg.LinAlgError:
            pass
    f_wls = x[pb + n_sep:]
    z = np.concatenate([x_links.reshape(-1), arm0, np.sqrt(np.maximum(f_wls, 1e-6))])
    nz = P + na

    def split_z(z: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
        own = _parameters_from_x(z[:P].reshape(n, 10))
        return own, z[P:nz], z[nz:] ** 2

    # The plausibility ball as a penalty, made stiffer until no link is outside (by more than 1e-9 of m r^2).
    stiffness = 10.0 * math.sqrt(t.size)
    for _ in range(4):
        weight = stiffness / ball_scale
        weight_a = stiffness / scale_a

        def residual(z: FloatArray, weight: FloatArray = weight, weight_a: FloatArray = weight_a) -> FloatArray:
            own, arm, fr = split_z(z)
            pi = att + own.reshape(-1)
            outside = np.maximum(np.sum(ball_rows * own, axis=1), 0.0)
            return np.concatenate([Rs @ np.concatenate([pi, arm, fr]) - target,
                                   prior * (np.concatenate([pi, arm[~sep]]) - ref_p),
                                   hold @ (np.concatenate([pi, arm]) - ref_x), weight * outside,
                                   weight_a * np.minimum(arm, 0.0)])

        def jacobian(z: FloatArray, weight: FloatArray = weight, weight_a: FloatArray = weight_a) -> FloatArray:
            xs = z[:P].reshape(n, 10)
            D_links = _jacobian_x(xs)
            D = scipy.linalg.block_diag(*D_links)
            top = np.hstack([Rs[:, :P] @ D, Rs[:, P:nz], Rs[:, nz:] * (2.0 * z[nz:])])
            pulled = np.zeros((n_pulled, na))
            pulled[np.arange(n_pulled), np.flatnonzero(~sep)] = prior[P:]
            middle = np.hstack([np.vstack([prior[:P, None] * D, np.zeros((n_pulled, P)), hold[:, :P] @ D]),
                                np.vstack([np.zeros((P, na)), pulled, hold[:, P:]]),
                                np.zeros((P + n_pulled + hold.shape[0], nf))])
            outside = np.sum(ball_rows * _parameters_from_x(xs), axis=1) > 0
            rows = np.zeros((n, nz + nf))
            for k in np.flatnonzero(outside):
                rows[k, 10 * k:10 * k + 10] = weight[k] * (ball_rows[k] @ D_links[k])
            negative = np.zeros((na, nz + nf))
            negative[np.arange(na), P + np.arange(na)] = np.where(z[P:nz] < 0, weight_a, 0.0)
            return np.vstack([top, middle, rows, negative])

        # A trial step of MINPACK's Levenberg-Marquardt may overflow the squared friction (a short recording leaves
        # it weakly fixed); MINPACK rejects a step whose residual norm is not below the last and shrinks its trust
        # region, so the overflow is a refused trial, not a result: its warnings are not shown.
        with np.errstate(over="ignore", invalid="ignore"):
            fit = scipy.optimize.least_squares(residual, z, jac=jacobian, method="lm", x_scale="jac",
                                               xtol=1e-12, ftol=1e-12, gtol=1e-12, max_nfev=100 * n)
        if not np.all(np.isfinite(fit.x)):
            raise InputError("the constrained fit diverged (parameters not finite): the recording does not fix them; "
                             "record a longer, richer excitation", path=recording.source or None)
        z = fit.x
        own, arm, fr = split_z(z)
        if np.all(np.sum(ball_rows * own, axis=1) <= 1e-9 * ball_scale) and np.all(arm >= -1e-9 * scale_a):
            break
        stiffness *= 100.0
    pi = att + own.reshape(-1)
    armature = np.maximum(arm, 0.0) if na else np.zeros(n)
    if fixed:
        table = friction
        friction_values = np.ravel(np.column_stack([friction.Fc, friction.Fv]))
        friction_std = np.zeros(2 * n)
    else:
        table = FrictionTable(Fc=fr[0::2], Fv=fr[1::2], Fs=fr[0::2], vs=np.zeros(n), armature=armature)
        friction_values, friction_std = x[pb + n_sep:], std[pb + n_sep:]
    arm_values = arm_std = None
    if na:
        arm_values, arm_std = np.full(n, np.nan), np.full(n, np.nan)
        arm_values[det], arm_std[det] = x[pb:pb + n_sep], std[pb:pb + n_sep]
    return Identification(
        chain=chain, base=base, base_values=x[:pb], base_std=std[:pb], friction_values=friction_values,
        friction_std=friction_std, parameters=pi, friction=table, reference=ref, sigma=sigma, data=data, mask=mask,
        thresholds=thresholds, condition_number=condition, prior_weight=lam, prior_story=story, data_share=share[:P],
        balls=balls, attached=att, gravity=options.gravity, armature_split=split, armature_values=arm_values,
        armature_std=arm_std, reference_armature=ref_arm if na else None,
    )


__all__ = [
    "CONSISTENCY_MARGIN",
    "CV_FOLDS",
    "CV_WEIGHTS",
    "DATA_SHARE",
    "HOLD_WEIGHT",
    "INSEPARABLE_ARMATURE_SCALE",
    "MASS_PRIOR_SCALE",
    "LINK_PAD",
    "PLAUSIBLE_REFERENCE_FACTOR",
    "VELOCITY_THRESHOLD_FRACTION",
    "Identification",
    "IdentifyOptions",
    "PreparedData",
    "check_signals",
    "identify",
    "link_balls",
    "margin_of",
    "prepare",
    "prior_weight",
]
