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

The experiment on a simulated robot is
:meth:`thermocomp.dynamics.simulate.SimulatedRobot.pi_at_rest` (PyBullet's
rigid-body model, every joint under its PI loop and
:func:`disturbance_torques`; ``thermocomp simulate-recording --controllers``).

Pure core.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.integrate

from thermocomp._typing import ArrayLike, FloatArray
from thermocomp.errors import InputError

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


#: Frequencies [Hz] and weights of the three sines of :func:`disturbance_torques` (joint ``j``'s frequencies are
#: these times ``1 + 0.13 j``, so that no two joints are pushed alike).
DISTURBANCE_HZ = (0.31, 0.73, 2.3)
DISTURBANCE_WEIGHTS = (0.5, 0.3, 0.2)


def disturbance_torques(t: ArrayLike, amplitude: ArrayLike) -> FloatArray:
    """Seed 000, Step 4's disturbance: ``(N, n)`` [N m] at times ``t`` ``(N,)`` [s], varying in time and never above
    ``amplitude`` ``(n,)`` [N m] in magnitude (the seed: not large enough to trigger the safety stop).

    Joint ``j``: ``amplitude_j sum_i w_i sin(2 pi f_i (1 + 0.13 j) t + phi_ij)`` with :data:`DISTURBANCE_HZ`,
    :data:`DISTURBANCE_WEIGHTS` (summing to 1) and fixed phases ``phi_ij = 1.7 i + 0.9 j``.
    """
    t = np.asarray(t, dtype=float)[:, None]
    amplitude = np.asarray(amplitude, dtype=float)
    j = np.arange(amplitude.size)[None, :]
    out = np.zeros((t.shape[0], amplitude.size))
    for i, (f, w) in enumerate(zip(DISTURBANCE_HZ, DISTURBANCE_WEIGHTS)):
        out += w * np.sin(2 * np.pi * f * (1 + 0.13 * j) * t + 1.7 * i + 0.9 * j)
    return amplitude * out


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


__all__ = ["DISTURBANCE_HZ", "DISTURBANCE_WEIGHTS", "SEED000_TABLE_IV", "PIEstimate", "controllers_from_recording",
           "controllers_text", "disturbance_torques", "identify_pi"]
