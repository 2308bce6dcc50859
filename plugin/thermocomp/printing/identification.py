"""Each joint's velocity servo as a discrete state-space model: delay from a step, subspace identification
(seed 004, Sections 4-2 to 4-4; Tables 4-1 and 4-2).

The experiment (:func:`experiment`) is one stream of joint-speed commands at the servo rate: for each joint
in turn, at rest, a step up and back down (one rest each: the joint ends where it started), at rest, the
estimation multi-sine, at rest, the validation multi-sine (same spectrum, other phases), at rest; the other
joints are commanded zero. The same stream drives the simulated servo and the URScript a real UR5 runs
(:mod:`thermocomp.printing.urscript_excite`), and :func:`identify_servo` reads either recording by the same
layout.

* The delay ``d`` [samples] (:func:`estimate_delay`): the first sample after the step whose speed leaves the
  rest's noise, less one (a command sent at ``k`` acts from ``k + d``; its speed shows at ``k + d + 1``).
* The model, as the thesis identifies it: the commanded speed in, the joint's angle *and* speed out (Section 4-3:
  "the output is the velocity and the position of the joint"; Eq. 6-4: "y_i is the output, position and
  velocity"), ``x(k+1) = A x(k) + B u(k - d)``, ``[q(k) - q_0; qd(k)] = C x(k)``. The command enters shifted by
  the delay: Eq. 6-12 predicts ``x(k + d)`` from the commands ``u(k - 1) .. u(k - d)``, which is the model's
  own state update only when its input is ``u(k - d)``. One state of every model is the joint angle's
  integrator: an order ``n`` holds ``n - 1`` states of the servo's speed dynamics (why Table 4-1's order 2 is
  far below its order 3). No feed-through ``D`` (Eq. 6-5 has none; a velocity servo has none after its delay).
* ``A`` and ``C`` of every order in ``orders`` by PO-MOESP (:func:`po_moesp`; Verhaegen and Verdult 2007,
  Section 9.6; the MOESP family of seed 004's PBSID toolbox), written here: ``nfoursid`` 1.0.2, the
  maintained PO-MOESP package on PyPI, gives models as good on this data but the six joints' identification
  took 125 s with it against 10 s with this (it recomputes a full SVD of an ``N``-column matrix for every
  order), and it fits a
  feed-through (docs/printing.md, "Choices"). The eigenvalue nearest 1 (the integrator, which the data
  cannot tell from 1 as a drifting angle) is set to 1; ``B`` and the initial state by least squares with
  ``D = 0`` (:func:`fit_input_matrix`).
* VAF (Eq. 4-6) of the joint speed on the validation multi-sine, simulated from rest, the first second left out
  (Section 4-4: "the validation is done on the velocity of the joints, rather than the position"), and the
  chosen order: the lowest whose VAF is within ``order_tolerance_pct`` of the best.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from thermocomp._typing import ArrayLike, FloatArray
from thermocomp.errors import ConfigurationError, InputError
from thermocomp.printing.multisine import MultisineOptions, multisine

#: The highest model order identified (a models file's ``A`` is at most this square: the tracking's filter and MPC
#: are designed from it, in time cubic in it).
MAX_ORDER = 20


@dataclass(frozen=True)
class IdentificationOptions:
    """The identification experiment and its evaluation.

    Parameters
    ----------
    multisine
        The estimation and validation input (validation: :attr:`MultisineOptions.periods` less one period, at least one).
    step_rad_s
        Height of the delay step [rad/s], > 0.
    rest_s
        Rest between the parts [s], >= 1 (the VAF leaves the first second out).
    orders
        Model orders tried, each in [1, :data:`MAX_ORDER`]; seed 004: 2 to 10.
    block_rows
        Block rows ``s`` of the Hankel matrices (two outputs each: orders up to ``2 (s - 1)``), at most 100.
    order_tolerance_pct
        The chosen order is the lowest whose VAF is within this of the best [%-points], >= 0.
    """

    multisine: MultisineOptions = field(default_factory=MultisineOptions)
    step_rad_s: float = 0.1
    rest_s: float = 1.0
    orders: tuple[int, ...] = (2, 3, 4, 5, 6, 7, 8, 9, 10)
    block_rows: int = 15
    order_tolerance_pct: float = 0.25

    def __post_init__(self) -> None:
        if not (math.isfinite(self.step_rad_s) and self.step_rad_s > 0):
            raise ConfigurationError(f"identification step: expected > 0 rad/s, got {self.step_rad_s!r}")
        if not (math.isfinite(self.rest_s) and self.rest_s >= 1.0):
            raise ConfigurationError(f"identification rest: expected >= 1 s, got {self.rest_s!r}")
        if not self.orders or any(not (isinstance(n, int) and 1 <= n <= MAX_ORDER) for n in self.orders):
            raise ConfigurationError(f"identification orders: expected integers in [1, {MAX_ORDER}], got {self.orders!r}")
        if not (isinstance(self.block_rows, int) and max(self.orders) <= 2 * (self.block_rows - 1)
                and self.block_rows <= 100):
            raise ConfigurationError(f"identification block rows: expected an integer of at least half the highest "
                                     f"order ({max(self.orders)}) plus one, and at most 100, got {self.block_rows!r}")
        if not (math.isfinite(self.order_tolerance_pct) and self.order_tolerance_pct >= 0):
            raise ConfigurationError(f"order tolerance: expected >= 0 %, got {self.order_tolerance_pct!r}")


#: The models' outputs: the joint angle [rad] (from its value at rest) and the joint speed [rad/s].
OUTPUTS = 2
#: An eigenvalue within this of 1 is the angle's integrator (set to 1); the others must lie inside the unit circle.
INTEGRATOR_TOLERANCE = 1e-2


@dataclass(frozen=True)
class JointModel:
    """One joint's identified servo: ``x(k+1) = A x(k) + B u(k - d)``, ``[q(k) - q_0; qd(k)] = C x(k)``.

    Attributes
    ----------
    A, B, C
        ``(n, n)``, ``(n, 1)``, ``(2, n)``; input in rad/s, outputs the joint angle from its value at rest
        ``q_0`` [rad] and the joint speed [rad/s].
    vaf_pct
        VAF of this model on the validation data [%] (Eq. 4-6).
    """

    A: FloatArray
    B: FloatArray
    C: FloatArray
    vaf_pct: float = float("nan")

    def __post_init__(self) -> None:
        A = np.atleast_2d(np.asarray(self.A, dtype=float))
        n = A.shape[0]
        B = np.asarray(self.B, dtype=float).reshape(n, 1)
        C = np.asarray(self.C, dtype=float)
        if C.shape != (OUTPUTS, n):
            raise InputError(f"joint model: expected C of shape ({OUTPUTS}, {n}) (angle and speed), got {C.shape}")
        if A.shape != (n, n) or not (np.all(np.isfinite(A)) and np.all(np.isfinite(B)) and np.all(np.isfinite(C))):
            raise InputError(f"joint model: expected a finite square A, got shape {A.shape}")
        object.__setattr__(self, "A", A)
        object.__setattr__(self, "B", B)
        object.__setattr__(self, "C", C)

    @property
    def order(self) -> int:
        return int(self.A.shape[0])


@dataclass(frozen=True)
class ServoModels:
    """Every joint's model, the delay and the rate: what ``servo identify`` writes and ``servo track`` reads.

    Attributes
    ----------
    rate_hz
        Sample rate [Hz].
    delay_samples
        Pure delay [samples], the same for every joint (seed 004, Section 4-2).
    joints
        One :class:`JointModel` per joint.
    joint_names
        The robot's joint names.
    orders, vaf_table
        The orders tried and the VAF [%] of each joint at each, ``(n_joints, len(orders))`` (Table 4-1); may be empty.
    """

    rate_hz: float
    delay_samples: int
    joints: tuple[JointModel, ...]
    joint_names: tuple[str, ...]
    orders: tuple[int, ...] = ()
    vaf_table: FloatArray = field(default_factory=lambda: np.zeros((0, 0)))

    def __post_init__(self) -> None:
        if len(self.joints) != len(self.joint_names):
            raise InputError(f"servo models: expected one model per joint ({len(self.joint_names)}), got {len(self.joints)}")
        if not (math.isfinite(self.rate_hz) and self.rate_hz > 0):
            raise InputError(f"servo models: expected a rate > 0 Hz, got {self.rate_hz!r}")
        if not (isinstance(self.delay_samples, int) and 0 <= self.delay_samples <= 50):
            raise InputError(f"servo models: expected a delay of 0 to 50 samples, got {self.delay_samples!r}")


def vaf(y: ArrayLike, y_hat: ArrayLike) -> float:
    """Variance accounted for [%] (seed 004, Eq. 4-6): ``(1 - var(y - y_hat) / var(y)) 100``."""
    y, y_hat = np.asarray(y, dtype=float), np.asarray(y_hat, dtype=float)
    return float((1.0 - np.var(y - y_hat) / np.var(y)) * 100.0)


def simulate(model: JointModel, u: ArrayLike, x0: ArrayLike | None = None) -> FloatArray:
    """The model's outputs ``[q - q_0, qd] = C x(k)`` [rad, rad/s], ``(N, 2)``, for inputs ``u(k - d)`` ``(N,)``
    from ``x0`` (default rest)."""
    u = np.asarray(u, dtype=float)
    x = np.zeros(model.order) if x0 is None else np.asarray(x0, dtype=float)
    y = np.empty((u.size, OUTPUTS))
    A, b, C = model.A, model.B[:, 0], model.C
    for k in range(u.size):
        y[k] = C @ x
        x = A @ x + b * u[k]
    return y


def with_angle(A: ArrayLike, B: ArrayLike, C_speed: ArrayLike, sample_time: float) -> JointModel:
    """A joint model from a speed-only one (``x(k+1) = A x + B u``, ``qd = C_speed x``): the angle added as a state,
    the trapezoid integral of the speed, ``q(k+1) = q(k) + T/2 (qd(k) + qd(k+1))``; order ``n + 1``."""
    A, B, c = np.atleast_2d(A), np.asarray(B, dtype=float).reshape(-1, 1), np.asarray(C_speed, dtype=float).reshape(1, -1)
    n = A.shape[0]
    Az = np.zeros((n + 1, n + 1))
    Az[:n, :n] = A
    Az[n, :n] = 0.5 * sample_time * (c @ (np.eye(n) + A))[0]
    Az[n, n] = 1.0
    Bz = np.vstack([B, 0.5 * sample_time * (c @ B)])
    Cz = np.zeros((OUTPUTS, n + 1))
    Cz[0, n] = 1.0
    Cz[1, :n] = c[0]
    return JointModel(Az, Bz, Cz)


# --- the experiment ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Layout:
    """Where each part of one joint's block lies [samples from the block's start]."""

    step: int
    step_end: int
    estimation: int
    estimation_end: int
    validation_rest: int
    validation: int
    validation_end: int
    length: int


def layout(options: IdentificationOptions, rate_hz: float) -> Layout:
    """The block of one joint: rest, step up and down (one rest each), rest, estimation, rest, validation, rest."""
    rest = int(round(options.rest_s * rate_hz))
    period = int(round(options.multisine.period_s * rate_hz))
    estimation = period * options.multisine.periods
    validation = period * max(1, options.multisine.periods - 1)
    step = rest
    est = step + 3 * rest
    val_rest = est + estimation
    val = val_rest + rest
    return Layout(step, step + 2 * rest, est, est + estimation, val_rest, val, val + validation, val + validation + rest)


def experiment(options: IdentificationOptions, rate_hz: float, n_joints: int) -> FloatArray:
    """The joint-speed commands of the whole experiment [rad/s], ``(n_joints * block, n_joints)``."""
    lay = layout(options, rate_hz)
    est = multisine(options.multisine, rate_hz)
    val_options = MultisineOptions(options.multisine.sines, options.multisine.max_frequency_hz,
                                   options.multisine.period_s, max(1, options.multisine.periods - 1),
                                   options.multisine.peak_speed_rad_s)
    val = multisine(val_options, rate_hz, seed_phase=1)
    u = np.zeros((n_joints * lay.length, n_joints))
    for j in range(n_joints):
        o = j * lay.length
        half = (lay.step_end - lay.step) // 2
        u[o + lay.step:o + lay.step + half, j] = options.step_rad_s
        u[o + lay.step + half:o + lay.step_end, j] = -options.step_rad_s
        u[o + lay.estimation:o + lay.estimation_end, j] = est
        u[o + lay.validation:o + lay.validation_end, j] = val
    return u


def estimate_delay(u: ArrayLike, qd: ArrayLike, step: int) -> int:
    """Delay [samples] of one joint from a step of its command at sample ``step``.

    ``u`` ``(N,)`` the commands, ``qd`` ``(N + 1,)`` or ``(N,)`` the measured speeds (``qd[k]`` before ``u[k]``
    is sent). The rest before the step gives the noise; the first sample whose speed leaves it by 5 sigma
    and by 1 % of the step, less ``step + 1``, is the delay.
    """
    u, qd = np.asarray(u, dtype=float), np.asarray(qd, dtype=float)
    height = u[step] - u[step - 1]
    rest = qd[max(0, step - int(0.5 * step)):step + 1]
    base, sigma = float(np.mean(rest)), float(np.std(rest))
    threshold = max(5.0 * sigma, 0.01 * abs(height))
    moved = np.flatnonzero(np.abs(qd[step + 1:] - base) > threshold)
    if moved.size == 0 or height == 0:
        raise InputError("delay: the joint never answered the step (no speed above the rest's noise)")
    return int(moved[0])  # qd[step + 1 + moved[0]]: the command acted from step + moved[0]


def _hankel(x: FloatArray, start: int, rows: int, columns: int) -> FloatArray:
    """Block Hankel matrix of a signal ``(N, p)``: block row ``i`` is ``x[start + i : start + i + columns].T``."""
    return np.vstack([x[start + i:start + i + columns].T for i in range(rows)])


def po_moesp(u: ArrayLike, y: ArrayLike, orders: tuple[int, ...],
             block_rows: int) -> tuple[list[tuple[FloatArray, FloatArray]], FloatArray]:
    """``(A, C)`` of each order by PO-MOESP (Verhaegen and Verdult 2007, Section 9.6), and the singular values.

    The future outputs' row space, after the future inputs are projected out, with the past inputs and
    outputs as instruments: the RQ factorisation of ``[U_f; U_p; Y_p; Y_f]``, the SVD of its block
    ``L_42``; the column space of its first ``n`` left singular vectors is the extended observability
    matrix, whose shift gives ``A`` and whose first block row ``C``.

    Parameters
    ----------
    u
        Input, ``(N,)``.
    y
        Outputs, ``(N, p)`` (or ``(N,)``: one).
    orders
        Model orders, each below ``p * block_rows``.
    block_rows
        ``s``, the block rows of each Hankel matrix.

    Returns
    -------
    pairs
        ``(A (n, n), C (p, n))`` per order.
    singular_values
        ``(p s,)``, those of ``L_42`` (seed 004, Figure 4-7: the order is where they drop).
    """
    u = np.asarray(u, dtype=float).reshape(-1, 1)
    y = np.asarray(y, dtype=float).reshape(u.shape[0], -1)
    s, p = block_rows, y.shape[1]
    columns = u.shape[0] - 2 * s + 1
    if columns < 4 * s:
        raise InputError(f"identification: expected at least {6 * s} samples for {s} block rows, got {u.shape[0]}")
    data = np.vstack([_hankel(u, s, s, columns), _hankel(u, 0, s, columns), _hankel(y, 0, s, columns),
                      _hankel(y, s, s, columns)])
    L = np.linalg.qr(data.T, mode="r").T  # data = L Q^T, L lower triangular
    U1, sv, _ = np.linalg.svd(L[2 * s + p * s:, s:2 * s + p * s], full_matrices=False)
    pairs = []
    for n in orders:
        gamma = U1[:, :n] * np.sqrt(sv[:n])
        A = np.linalg.lstsq(gamma[:-p], gamma[p:], rcond=None)[0]
        pairs.append((A, gamma[:p].copy()))
    return pairs, sv


def with_integrator(A: FloatArray) -> FloatArray | None:
    """``A`` with its eigenvalue nearest 1 set to 1 (the angle's integrator), or None when no eigenvalue lies
    within :data:`INTEGRATOR_TOLERANCE` of 1 or another lies on or outside the unit circle."""
    values, vectors = np.linalg.eig(A)
    i = int(np.argmin(np.abs(values - 1.0)))
    others = np.delete(values, i)
    if abs(values[i] - 1.0) > INTEGRATOR_TOLERANCE or (others.size and np.max(np.abs(others)) >= 1.0):
        return None
    values = values.copy()
    values[i] = 1.0
    return np.real(vectors @ np.diag(values) @ np.linalg.inv(vectors))


def fit_input_matrix(A: FloatArray, C: FloatArray, u: ArrayLike, y: ArrayLike) -> tuple[FloatArray, FloatArray]:
    """``B`` ``(n, 1)`` and the initial state ``x0`` ``(n,)`` by least squares, given ``A`` and ``C`` ``(p, n)``.

    ``y(k) = C A^k x0 + sum_{j<k} C A^(k-1-j) B u(j)`` (``y`` ``(N, p)``) is linear in ``x0`` and ``B``.
    """
    u = np.asarray(u, dtype=float)
    C = np.atleast_2d(C)
    y = np.asarray(y, dtype=float).reshape(u.size, C.shape[0])
    n = A.shape[0]
    regressors = np.empty((u.size, C.shape[0], 2 * n))
    free = np.eye(n)  # A^k
    forced = np.zeros((n, n))  # column i: the state that input direction e_i built
    for k in range(u.size):
        regressors[k, :, :n] = C @ free
        regressors[k, :, n:] = C @ forced
        free = A @ free
        forced = A @ forced
        forced[np.arange(n), np.arange(n)] += u[k]
    theta = np.linalg.lstsq(regressors.reshape(-1, 2 * n), y.ravel(), rcond=None)[0]
    return theta[n:].reshape(n, 1), theta[:n]


def identify_joint(u_est: ArrayLike, y_est: ArrayLike, u_val: ArrayLike, y_val: ArrayLike, orders: tuple[int, ...],
                   block_rows: int, skip: int,
                   step: Callable[[], None] | None = None) -> tuple[list[JointModel], FloatArray]:
    """Models of every order in ``orders`` from one joint's estimation data, and their VAF on its validation data.

    ``u_*`` are the delay-shifted commands ``u(k - d)`` [rad/s], ``(N,)``; ``y_*`` the measured angle from its
    value at the data's start [rad] and speed [rad/s], ``(N, 2)``. The validation data starts at rest (state
    zero) and its first ``skip`` samples are left out of the VAF, which is the speed's. A model with no
    integrator or an unstable mode (:func:`with_integrator`) gets the VAF ``nan``. ``step()``, if given, is called
    after each order (a progress count).

    Returns
    -------
    models, vaf_pct
        One model per order; VAF [%] ``(len(orders),)``.
    """
    y_est, y_val = np.asarray(y_est, dtype=float), np.asarray(y_val, dtype=float)
    models, vafs = [], []
    pairs, _ = po_moesp(u_est, y_est, orders, block_rows)
    for A, C in pairs:
        A_int = with_integrator(A)
        if A_int is None:
            # (an unstable A's powers overflow over thousands of samples: its least squares did not converge, a
            # LinAlgError traceback; the model is kept for the table only, its B is not fitted)
            models.append(JointModel(A, np.zeros((A.shape[0], 1)), C))
            vafs.append(float("nan"))
        else:
            B, _ = fit_input_matrix(A_int, C, u_est, y_est)
            model = JointModel(A_int, B, C)
            score = vaf(y_val[skip:, 1], simulate(model, u_val)[skip:, 1])
            models.append(JointModel(A_int, B, C, score))
            vafs.append(score)
        if step is not None:
            step()
    return models, np.array(vafs)


def choose_order(vaf_pct: FloatArray, tolerance_pct: float) -> int:
    """Index of the lowest order whose VAF is within ``tolerance_pct`` of the best (Table 4-2's choice)."""
    vaf_pct = np.where(np.isfinite(vaf_pct), vaf_pct, -np.inf)
    return int(np.flatnonzero(vaf_pct >= np.max(vaf_pct) - tolerance_pct)[0])


def identify_servo(u: ArrayLike, q: ArrayLike, qd: ArrayLike, rate_hz: float, joint_names: tuple[str, ...],
                   options: IdentificationOptions | None = None, step: Callable[[], None] | None = None) -> ServoModels:
    """Every joint's model from a recording of :func:`experiment`.

    Parameters
    ----------
    u
        The commands [rad/s], ``(N, n)``, as :func:`experiment` made them.
    q, qd
        The measured joint angles [rad] and speeds [rad/s], ``(N, n)`` each (measured when ``u[k]`` was sent).
    rate_hz
        The sample rate [Hz].
    step
        If given, called after each joint's model of each order (``n_joints * len(options.orders)`` calls; a
        progress count).
    """
    options = IdentificationOptions() if options is None else options
    u, q, qd = np.asarray(u, dtype=float), np.asarray(q, dtype=float), np.asarray(qd, dtype=float)
    n = len(joint_names)
    lay = layout(options, rate_hz)
    if u.shape != (n * lay.length, n) or qd.shape != u.shape or q.shape != u.shape:
        raise InputError(f"identification: expected {n * lay.length} samples of {n} joints (the experiment of these "
                         f"options at {rate_hz:g} Hz), got commands {u.shape}, angles {q.shape} and speeds {qd.shape}")
    delays = [estimate_delay(u[j * lay.length:(j + 1) * lay.length, j], qd[j * lay.length:(j + 1) * lay.length, j],
                             lay.step) for j in range(n)]
    d = int(np.median(delays))
    shifted = np.vstack([np.zeros((d, n)), u[:u.shape[0] - d]]) if d else u
    skip = int(round(rate_hz))  # the first second (seed 004, Section 4-4)
    joints, table = [], []
    for j in range(n):
        o = j * lay.length
        est = slice(o, o + lay.estimation_end)  # the step too: the multi-sine has no DC, the step fixes the gain
        val = slice(o + lay.validation_rest, o + lay.validation_end)
        y = np.column_stack([q[:, j], qd[:, j]])
        y_est = y[est] - [q[o, j], 0.0]
        y_val = y[val] - [q[val.start, j], 0.0]
        models, vafs = identify_joint(shifted[est, j], y_est, shifted[val, j], y_val, options.orders,
                                      options.block_rows, skip, step)
        joints.append(models[choose_order(vafs, options.order_tolerance_pct)])
        table.append(vafs)
    return ServoModels(rate_hz=rate_hz, delay_samples=d, joints=tuple(joints), joint_names=tuple(joint_names),
                       orders=tuple(options.orders), vaf_table=np.array(table))
