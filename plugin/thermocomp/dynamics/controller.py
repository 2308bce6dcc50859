"""Seed 000, Step 4: each joint's PI controller (Eq. 7) from a recording at rest under a time-varying disturbance.

Eq. 7: ``tau_m(s) / E(s) = K_p (1 + T_i s) / s``, with the tracking error
``e = q_ref - q``, so in time ``tau_m = K_p T_i e + K_p integral(e) dt``. The
robot holds a constant set point while a disturbance torque, varying in time
and small enough not to trip the robot's safety stop, pushes each joint;
position and motor torque are recorded. The set point is not needed: with
``e = q_ref - q``,

    tau_m(t) = -K_p T_i q(t) - K_p integral(q) dt + K_p q_ref t + c

is linear in ``(q, integral q, t, 1)``, so ``K_p``, ``T_i``, ``q_ref`` and the
integrator's initial state ``c`` follow by linear least squares: no
iterative search (the seed used MATLAB's System Identification Toolbox).
The fit's quality is reported as the seed's Table IV does, MATLAB's
"NRMSE fit" ``100 (1 - ||tau - tau_fit|| / ||tau - mean(tau)||)`` %.

:func:`simulate_pi_at_rest` is the experiment on a simulated joint: inertia
``J`` (the joint's diagonal mass-matrix entry at the pose), viscous
friction, the PI loop and a disturbance, integrated at 10 kHz.

Pure core.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.integrate

from thermocomp._typing import ArrayLike, FloatArray
from thermocomp.errors import ConfigurationError, InputError

#: Seed 000, Table IV (ABB GoFa): K_p and T_i of joints 1..6, and the NRMSE fits (%) the seed reached.
SEED000_TABLE_IV = {
    "Kp": (15562.0, 3751.8, 6823.7, 3672.5, 3672.5, 3672.5),
    "Ti": (0.2565, 0.1861, 0.1489, 0.1288, 0.1288, 0.1288),
    "fit_percent": (91.70, 92.34, 94.84, 96.43, 94.90, 94.11),
}


@dataclass(frozen=True)
class PIEstimate:
    """One joint's controller: ``K_p`` [N m / (rad s)], ``T_i`` [s], set point [rad], NRMSE fit [%]."""

    joint: int
    Kp: float
    Ti: float
    setpoint: float
    fit_percent: float


def identify_pi(time: ArrayLike, q: ArrayLike, tau: ArrayLike, joint: int = 0) -> PIEstimate:
    """Seed 000, Step 4 for one joint: ``K_p``, ``T_i`` of Eq. 7 from samples at rest under a disturbance.

    Parameters
    ----------
    time, q, tau
        ``(N,)``: times [s], the joint's position [rad] and motor torque (joint side) [N m].
    """
    t = np.asarray(time, dtype=float)
    q = np.asarray(q, dtype=float)
    tau = np.asarray(tau, dtype=float)
    if not (t.shape == q.shape == tau.shape and t.ndim == 1 and t.size >= 10):
        raise InputError(f"expected time, q and tau of one shape (N,) with N >= 10, got {t.shape}, {q.shape}, {tau.shape}")
    if np.ptp(q) == 0:
        raise InputError(f"joint {joint + 1}: the position never moves; apply a disturbance the controller has to fight")
    t0 = t - t[0]
    q0 = q - q[0]  # conditioning: the regression is invariant to a constant shift of q (absorbed by q_ref)
    iq = scipy.integrate.cumulative_trapezoid(q0, t0, initial=0.0)
    A = np.column_stack([q0, iq, t0, np.ones_like(t0)])
    (a, b, c, d), *_ = np.linalg.lstsq(A, tau, rcond=None)
    Kp = -b
    if not Kp > 0:
        raise InputError(f"joint {joint + 1}: the recording does not show an integral action (K_p = {Kp:.4g}); "
                         "expected a PI loop at rest under a disturbance")
    Ti = -a / Kp
    setpoint = q[0] + c / Kp
    fit = tau - A @ np.array([a, b, c, d])
    spread = np.linalg.norm(tau - tau.mean())
    fit_percent = 100.0 * (1.0 - np.linalg.norm(fit) / spread) if spread > 0 else math.nan
    return PIEstimate(joint, float(Kp), float(Ti), float(setpoint), float(fit_percent))


def simulate_pi_at_rest(J: float, Kp: float, Ti: float, disturbance: Callable[[FloatArray], FloatArray], *,
                        duration: float, rate: float, viscous: float = 0.0, hold_torque: float = 0.0,
                        setpoint: float = 0.0, position_noise: float = 0.0, torque_noise: float = 0.0,
                        rng: np.random.Generator | None = None) -> tuple[FloatArray, FloatArray, FloatArray]:
    """One joint at rest under a PI loop (Eq. 7) and a disturbance torque ``disturbance(t)`` [N m].

    ``J ddq = tau_m - hold_torque - viscous dq - disturbance(t)``, ``tau_m = K_p T_i e + K_p integral(e)``,
    ``e = setpoint - q``; the integrator starts holding ``hold_torque`` (gravity). Integrated at 10 kHz
    (semi-implicit Euler), sampled at ``rate``.

    Returns
    -------
    t, q, tau_m : ``(N,)`` [s, rad, N m] with the noises added.
    """
    for name, value in (("J", J), ("Kp", Kp), ("Ti", Ti), ("duration", duration), ("rate", rate)):
        if not (math.isfinite(value) and value > 0):
            raise ConfigurationError(f"{name}: expected > 0, got {value!r}")
    dt = 1e-4
    steps = int(round(duration / dt))
    every = max(int(round(1.0 / (rate * dt))), 1)
    t_all = np.arange(steps) * dt
    d_all = np.asarray(disturbance(t_all), dtype=float)
    q, v, integral = setpoint, 0.0, hold_torque / Kp
    ts, qs, taus = [], [], []
    for k in range(steps):
        e = setpoint - q
        tau_m = Kp * Ti * e + Kp * integral
        if k % every == 0:
            ts.append(t_all[k])
            qs.append(q)
            taus.append(tau_m)
        acc = (tau_m - hold_torque - viscous * v - d_all[k]) / J
        v += acc * dt
        q += v * dt
        integral += e * dt
    rng = rng or np.random.default_rng()
    qs_a = np.array(qs) + rng.normal(0.0, 1.0, len(qs)) * position_noise
    taus_a = np.array(taus) + rng.normal(0.0, 1.0, len(taus)) * torque_noise
    return np.array(ts), qs_a, taus_a


def joint_inertias(chain, parameters: ArrayLike, q: ArrayLike) -> FloatArray:
    """The diagonal of the mass matrix ``M_ii(q)`` ``(n,)`` [kg m^2]: what each joint's loop moves at pose ``q``."""
    from thermocomp.dynamics.regressor import regressor

    n = chain.n_joints
    q = np.repeat(np.asarray(q, dtype=float)[None, :], n, axis=0)
    Y = regressor(chain, q, np.zeros((n, n)), np.eye(n), gravity=(0.0, 0.0, 0.0))
    return np.einsum("iip,p->i", Y, np.asarray(parameters, dtype=float))


def controllers_from_recording(time: ArrayLike, q: ArrayLike, tau: ArrayLike) -> list[PIEstimate]:
    """Step 4 for every joint of a recording at rest under disturbances: :func:`identify_pi` per column ``(N, n)``."""
    q = np.asarray(q, dtype=float)
    tau = np.asarray(tau, dtype=float)
    return [identify_pi(time, q[:, j], tau[:, j], j) for j in range(q.shape[1])]


def controllers_text(estimates: list[PIEstimate]) -> str:
    """Seed 000, Table IV's layout: K_p, T_i and the NRMSE fit per joint."""
    lines = ["PI controllers (seed 000, Step 4, Eq. 7: tau_m(s)/E(s) = K_p (1 + T_i s)/s), linear least squares",
             "joint  Kp_Nm_per_rad_s  Ti_s  setpoint_deg  nrmse_fit_%"]
    for e in estimates:
        lines.append(f"{e.joint + 1:>5}  {e.Kp:>15.6g}  {e.Ti:.4g}  {math.degrees(e.setpoint):.4f}  {e.fit_percent:.2f}")
    return "\n".join(lines) + "\n"


__all__ = ["SEED000_TABLE_IV", "PIEstimate", "controllers_from_recording", "controllers_text", "identify_pi",
           "joint_inertias", "simulate_pi_at_rest"]
