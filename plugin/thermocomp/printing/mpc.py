"""The unconstrained MPC of seed 004, Section 6-3, with its Kalman filter and delay prediction, per joint.

Each joint's identified model (:class:`~thermocomp.printing.identification.JointModel`: the joint angle from its
start ``q_0`` and the joint speed out, Eq. 6-5) gets an input disturbance ``w`` as a state, ``z = [x; w]``:

    ``z(k+1) = [[A, B], [0, 1]] z(k) + [B; 0] u(k - d)``,  ``y = [q - q_0; qd] = [C, 0] z``.

* A steady-state Kalman filter (the Riccati equation of the filter, ``scipy.linalg.solve_discrete_are``)
  estimates ``z(k)`` from the measured ``[q - q_0; qd]`` and the commands that act now (``u(k - d)``).
* Eq. 6-12 predicts the state ``d`` samples ahead with the commands already sent: ``z(k + d)``.
* The cost (Eq. 6-4, IO form; Eq. 6-13, IIO form: the increment ``du`` replaces ``u``, the last command a
  state, Eqs. 6-14 to 6-16) over ``N_p`` predicted outputs (Eqs. 6-6 to 6-11) has its minimum at
  ``u~ = (Phi^T Q Phi + R)^-1 Phi^T Q (r~ - Psi z)``; only its first element is sent (Eq. 6-3).
* The command is clipped to the joint's speed limit (the thesis's MPC is unconstrained; the clip is the
  robot's own limit, seed 004, Section 3-2).

All arrays in SI units and radians.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from thermocomp._typing import ArrayLike, FloatArray
from thermocomp.errors import ConfigurationError
from thermocomp.printing.identification import JointModel

#: A small process noise on every model state [state units] that keeps the filter's Riccati equation regular.
_REGULAR = 1e-9
#: The two forms of the cost.
FORMS = ("io", "iio")


@dataclass(frozen=True)
class MPCOptions:
    """The MPC's horizon, weights and Kalman filter.

    Parameters
    ----------
    horizon
        ``N_p`` [samples], in [1, 500]; seed 004: 30.
    form
        ``"iio"`` (Eq. 6-13, the increment weighted) or ``"io"`` (Eq. 6-4, the command weighted).
    weight_position
        Weight of the joint-angle error [1/rad^2], > 0.
    weight_velocity
        Weight of the joint-speed error [s^2/rad^2], >= 0.
    weight_input
        IO form: weight of the command [s^2/rad^2], > 0.
    weight_increment
        IIO form: weight of the command's increment per sample [s^2/rad^2], > 0.
    input_noise_rad_s
        Kalman filter: the standard deviation of a white noise on the command as it acts [rad/s], > 0: the
        process noise ``sigma^2 B B^T``, which does not depend on the identified model's basis of states. The
        default is the order of a missed command's change of the input at print speeds (``sqrt(p) |u|``, with
        ``p`` = 0.02 and ``|u|`` up to 0.04 rad/s at 10 mm/s: 6e-3 rad/s) and of the coupling between the
        joints that the SISO models leave out; 1e-3 let the joints of line:z oscillate (docs/printing.md).
    position_noise_rad, velocity_noise_rad_s
        Kalman filter: the measurements' standard deviations [rad], [rad/s], > 0.
    disturbance_noise_rad_s
        Kalman filter: the standard deviation of the input disturbance's step per sample [rad/s], > 0
        (the disturbance state makes the filter, and so the MPC, offset-free).
    """

    horizon: int = 30
    form: str = "iio"
    weight_position: float = 1.0
    weight_velocity: float = 1e-3
    weight_input: float = 5e-3
    weight_increment: float = 1e-2
    input_noise_rad_s: float = 1e-2
    position_noise_rad: float = 1e-5
    disturbance_noise_rad_s: float = 1e-4
    velocity_noise_rad_s: float = 1e-3

    def __post_init__(self) -> None:
        if not (isinstance(self.horizon, int) and 1 <= self.horizon <= 500):
            raise ConfigurationError(f"MPC horizon: expected an integer in [1, 500] samples, got {self.horizon!r}")
        if self.form not in FORMS:
            raise ConfigurationError(f"MPC form: expected one of {FORMS}, got {self.form!r}")
        for name in ("weight_position", "weight_input", "weight_increment", "input_noise_rad_s", "disturbance_noise_rad_s",
                     "position_noise_rad", "velocity_noise_rad_s"):
            value = getattr(self, name)
            if not (math.isfinite(value) and value > 0):
                raise ConfigurationError(f"MPC {name}: expected > 0, got {value!r}")
        if not (math.isfinite(self.weight_velocity) and self.weight_velocity >= 0):
            raise ConfigurationError(f"MPC weight_velocity: expected >= 0, got {self.weight_velocity!r}")


def augmented(model: JointModel) -> tuple[FloatArray, FloatArray, FloatArray]:
    """``(A_z, B_z, C_z)`` of the model with an input disturbance (module docstring): ``(n+1, n+1)``, ``(n+1, 1)``,
    ``(2, n+1)``; the state ``z = [x; w]``."""
    n = model.order
    Az = np.zeros((n + 1, n + 1))
    Az[:n, :n] = model.A
    Az[:n, n] = model.B[:, 0]
    Az[n, n] = 1.0
    Bz = np.vstack([model.B, [[0.0]]])
    Cz = np.hstack([model.C, np.zeros((model.C.shape[0], 1))])
    return Az, Bz, Cz


def incremental(A: FloatArray, B: FloatArray, C: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
    """The IIO form of seed 004, Eq. 6-16: state ``[x; u(k-1)]``, input ``du(k)``."""
    n, m = B.shape
    Ai = np.block([[A, B], [np.zeros((m, n)), np.eye(m)]])
    Bi = np.vstack([B, np.eye(m)])
    Ci = np.hstack([C, np.zeros((C.shape[0], m))])
    return Ai, Bi, Ci


def prediction_matrices(A: FloatArray, B: FloatArray, C: FloatArray, horizon: int) -> tuple[FloatArray, FloatArray]:
    """``Psi = C~ A~`` ``(N_p p, n)`` and ``Phi = C~ B~`` ``(N_p p, N_p m)``: ``y~ = Psi x(k) + Phi u~`` (Eqs. 6-6, 6-7)."""
    n, m = B.shape
    p = C.shape[0]
    Psi = np.empty((horizon * p, n))
    Phi = np.zeros((horizon * p, horizon * m))
    power = np.eye(n)
    impulse = []  # C A^i B
    for i in range(horizon):
        impulse.append(C @ power @ B)
        power = A @ power
        Psi[i * p:(i + 1) * p] = C @ power
    for i in range(horizon):
        for j in range(i + 1):
            Phi[i * p:(i + 1) * p, j * m:(j + 1) * m] = impulse[i - j]
    return Psi, Phi


def mpc_gain(Psi: FloatArray, Phi: FloatArray, weights_y: FloatArray, weight_u: float) -> FloatArray:
    """``K = (Phi^T Q Phi + R)^-1 Phi^T Q`` ``(N_p m, N_p p)``: the minimiser ``u~ = K (r~ - Psi x)`` of Eq. 6-9.

    ``weights_y`` ``(p,)`` the diagonal of ``Q_y``; ``R = weight_u I`` (Eqs. 6-8, 6-11).
    """
    horizon = Phi.shape[0] // weights_y.size
    Q = np.tile(weights_y, horizon)
    H = Phi.T @ (Q[:, None] * Phi) + weight_u * np.eye(Phi.shape[1])
    return np.linalg.solve(H, Phi.T * Q[None, :])


def kalman_gain(A: FloatArray, C: FloatArray, process: FloatArray, measurement: FloatArray) -> FloatArray:
    """The steady-state filter gain ``M = P C^T (C P C^T + R)^-1`` ``(n, p)`` (``P`` the prior covariance).

    ``process`` ``(n, n)`` and ``measurement`` ``(p, p)`` are the noise covariances; the filtered estimate is
    ``x(k|k) = x(k|k-1) + M (y(k) - C x(k|k-1))``.
    """
    from scipy.linalg import solve_discrete_are

    P = solve_discrete_are(A.T, C.T, process, measurement)
    return P @ C.T @ np.linalg.inv(C @ P @ C.T + measurement)


#: What :class:`JointMPC` refuses a model for (its filter's and MPC's design failed or is not finite).
_NOT_DESIGNABLE = ("expected a model the filter and the MPC can be designed for (observable from C, driven by B, of "
                   "finite products)")

class JointMPC:
    """One joint's MPC (module docstring). Call :meth:`command` once a sample.

    Parameters
    ----------
    model
        The joint's identified model.
    delay_samples
        ``d``.
    speed_limit
        The joint's largest speed [rad/s].
    q0
        The joint angle at the start (at rest) [rad].
    options
        Horizon, form, weights, filter.
    """

    def __init__(self, model: JointModel, delay_samples: int, speed_limit: float, q0: float,
                 options: MPCOptions | None = None) -> None:
        self.options = o = MPCOptions() if options is None else options
        self.delay = delay_samples
        self.speed_limit = speed_limit
        Az, Bz, Cz = augmented(model)
        self.Az, self.Bz, self.Cz = Az, Bz, Cz
        nz = Az.shape[0]
        measurement = np.diag([o.position_noise_rad**2, o.velocity_noise_rad_s**2])
        A, B, C = (incremental(Az, Bz, Cz) if o.form == "iio" else (Az, Bz, Cz))
        weights = np.array([o.weight_position, o.weight_velocity])
        weight_u = o.weight_increment if o.form == "iio" else o.weight_input
        with np.errstate(all="ignore"):  # (an overflow is the gain not finite, below)
            process = o.input_noise_rad_s**2 * (Bz @ Bz.T) + np.diag(np.r_[np.full(nz - 1, _REGULAR**2),
                                                                            o.disturbance_noise_rad_s**2])
            try:
                self.M = kalman_gain(Az, Cz, process, measurement)
                self.Psi, Phi = prediction_matrices(A, B, C, o.horizon)
                self.K = mpc_gain(self.Psi, Phi, weights, weight_u)[0]  # the first command's row
            except (ValueError, np.linalg.LinAlgError) as exc:  # (scipy's: no finite Riccati solution, Schur form)
                raise ConfigurationError(f"{_NOT_DESIGNABLE}, got: {exc}") from None
        if not (np.all(np.isfinite(self.M)) and np.all(np.isfinite(self.Psi)) and np.all(np.isfinite(self.K))):
            raise ConfigurationError(f"{_NOT_DESIGNABLE}, got gains that are not finite")
        self.z = np.zeros(nz)  # at rest at q0
        self.q0 = q0
        self.sent = [0.0] * max(delay_samples, 1)  # u(k-1), u(k-2), ..., u(k-d)

    def predicted_state(self) -> FloatArray:
        """``z(k + d)`` from the filtered ``z(k)`` and the commands already sent (Eq. 6-12)."""
        z = self.z
        for i in range(self.delay - 1, -1, -1):  # oldest first: u(k-d) acts now
            z = self.Az @ z + self.Bz[:, 0] * self.sent[i]
        return z

    def command(self, y: ArrayLike, reference: ArrayLike) -> float:
        """The command ``u(k)`` [rad/s] from the measurement ``y = [q, qd]`` and the reference.

        Parameters
        ----------
        y
            Measured joint angle [rad] and speed [rad/s] at sample ``k``.
        reference
            ``[q, qd]`` references for samples ``k + d + 1 .. k + d + N_p``, ``(N_p, 2)``.
        """
        y = np.asarray(y, dtype=float) - [self.q0, 0.0]
        reference = np.asarray(reference, dtype=float) - [self.q0, 0.0]
        self.z = self.z + self.M @ (y - self.Cz @ self.z)  # filtered z(k|k)
        z_d = self.predicted_state()
        last = self.sent[0]
        if self.options.form == "iio":
            state = np.r_[z_d, last]
            u = last + float(self.K @ (reference.ravel() - self.Psi @ state))
        else:
            u = float(self.K @ (reference.ravel() - self.Psi @ z_d))
        u = float(np.clip(u, -self.speed_limit, self.speed_limit))
        # the filter's prediction to k+1 with the command that acts now, u(k-d)
        acting = self.sent[self.delay - 1] if self.delay > 0 else u
        self.z = self.Az @ self.z + self.Bz[:, 0] * acting
        self.sent = [u] + self.sent[:-1]
        return u
