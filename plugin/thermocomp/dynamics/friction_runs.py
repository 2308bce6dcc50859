"""Seed 000, Step 3 as an experiment: symmetric constant-speed runs, one joint at a time, and their analysis.

The experiment (:func:`constant_speed_trajectory`): the robot holds a pose;
one joint at a time sweeps ``pose_i +- span/2`` at a constant speed ``+v``,
then back at ``-v`` through the same configurations (trapezoidal speed
profiles, so a real robot can follow it), for every speed of a list; then
the next joint. The analysis (:func:`friction_from_recording`) finds each
joint's constant-speed segments in a recording, pairs the ``+v`` and ``-v``
segments at the same positions, takes ``tau_f(v) = (tau(+v) - tau(-v)) / 2``
(seed 000, Eq. 12: gravity and Coriolis terms are even in the speed and
cancel, Eqs. 10-11) and fits Eq. 3 over the speeds
(:func:`thermocomp.dynamics.friction.friction_from_constant_speed`).

Pure core.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from thermocomp._typing import ArrayLike, FloatArray
from thermocomp.dynamics.friction import FrictionFit, FrictionTable, friction_from_constant_speed
from thermocomp.errors import ConfigurationError, InputError
from thermocomp.io.recording_csv import Recording
from thermocomp.robot.chain import Chain

#: Samples whose speed is within this fraction of the segment's speed count as constant speed.
PLATEAU_RTOL = 1e-3

#: Other joints count as at rest below this speed [rad/s].
REST_SPEED = 1e-6

#: Positions are compared on this many bins along the common part of the two segments.
PAIR_BINS = 20


@dataclass(frozen=True)
class ConstantSpeedOptions:
    """Options of :func:`constant_speed_trajectory`.

    Attributes
    ----------
    speeds
        Constant speeds [rad/s], > 0 (several, spanning the Stribeck region and beyond).
    span
        Sweep of each joint about the pose [rad], > 0.
    acceleration
        Of the speed ramps [rad/s^2], > 0.
    rate
        Sampling rate [Hz], > 0.
    """

    speeds: tuple[float, ...] = tuple(math.radians(v) for v in (0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 40.0))
    span: float = math.radians(60.0)
    acceleration: float = math.radians(200.0)
    rate: float = 100.0

    def __post_init__(self) -> None:
        if not self.speeds or any(not (math.isfinite(v) and v > 0) for v in self.speeds):
            raise ConfigurationError(f"speeds (--speeds-deg-s): expected positive values, got "
                                     f"{', '.join(f'{math.degrees(v):g}' for v in self.speeds)} deg/s")
        for name, option in (("span", " (--span-deg)"), ("acceleration", ""), ("rate", " (--rate-hz)")):
            v = getattr(self, name)
            if not (math.isfinite(v) and v > 0):
                raise ConfigurationError(f"{name}{option}: expected > 0, got {v!r}")


def _move(q0: float, q1: float, v: float, a: float, rate: float) -> tuple[FloatArray, FloatArray, FloatArray]:
    """A trapezoidal move from ``q0`` to ``q1`` (cruise speed ``v``, acceleration ``a``), sampled at ``rate``."""
    d = q1 - q0
    s = math.copysign(1.0, d)
    dist = abs(d)
    t_acc = v / a
    if a * t_acc**2 > dist:  # triangular: never reaches v
        t_acc = math.sqrt(dist / a)
        v = a * t_acc
    t_cruise = (dist - a * t_acc**2) / v
    total = 2 * t_acc + t_cruise
    t = np.arange(int(math.ceil(total * rate))) / rate
    pos = np.where(t < t_acc, 0.5 * a * t**2,
                   np.where(t < t_acc + t_cruise, 0.5 * a * t_acc**2 + v * (t - t_acc),
                            dist - 0.5 * a * np.maximum(total - t, 0.0) ** 2))
    vel = np.where(t < t_acc, a * t, np.where(t < t_acc + t_cruise, v, a * np.maximum(total - t, 0.0)))
    acc = np.where(t < t_acc, a, np.where(t < t_acc + t_cruise, 0.0, -a))
    return q0 + s * pos, s * vel, s * acc


def constant_speed_trajectory(chain: Chain, pose: ArrayLike, joints: ArrayLike | None = None,
                              options: ConstantSpeedOptions = ConstantSpeedOptions()) -> Recording:
    """The Step 3 experiment: each joint in ``joints`` (0-based; default all) sweeps at each speed both ways.

    Returns a :class:`Recording` of the commanded motion (``tau`` zero), with exact ``qd`` and ``qdd``.
    """
    pose = np.asarray(pose, dtype=float)
    n = chain.n_joints
    joints = range(n) if joints is None else [int(j) for j in np.atleast_1d(joints)]
    lo, hi = pose - 0.5 * options.span, pose + 0.5 * options.span
    for j in joints:
        if lo[j] < chain.lower[j] or hi[j] > chain.upper[j]:
            raise ConfigurationError(f"joint {j + 1}: the sweep {math.degrees(lo[j]):.4g} .. {math.degrees(hi[j]):.4g} deg "
                                     "leaves the joint limits; choose another pose or a smaller span (--pose-deg, --span-deg)")
    qs, qds, qdds = [], [], []

    def segment(j: int, motion: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
        """Append one move of joint ``j`` (position, speed, acceleration), the other joints held at ``pose``."""
        for out, values, rest in zip((qs, qds, qdds), motion, (pose, 0.0, 0.0), strict=True):
            block = np.empty((values.size, n))
            block[:] = rest
            block[:, j] = values
            out.append(block)

    for j in joints:
        q_j = pose[j]
        for v in options.speeds:
            for target in (lo[j], hi[j], lo[j]):
                if target == q_j:
                    continue
                segment(j, _move(q_j, target, v, options.acceleration, options.rate))
                q_j = target
        segment(j, _move(q_j, pose[j], options.speeds[-1], options.acceleration, options.rate))
    q = np.vstack(qs)
    t = np.arange(q.shape[0]) / options.rate
    return Recording(time=t, q=q, tau=np.zeros_like(q), qd=np.vstack(qds), qdd=np.vstack(qdds))


@dataclass(frozen=True, eq=False)
class FrictionStep:
    """Step 3's result: the table and each joint's fit (``None`` for joints without runs)."""

    table: FrictionTable
    fits: tuple[FrictionFit | None, ...]

    def text(self) -> str:
        lines = ["Friction from symmetric constant-speed runs (seed 000, Step 3, Eqs. 10-12; Eq. 3 fitted)",
                 "joint  speeds  Fc_Nm  Fv_Nm_s_per_rad  Fs_Nm  vs_deg_s  rms_Nm"]
        for j, fit in enumerate(self.fits):
            if fit is None:
                lines.append(f"{j + 1:>5}  no constant-speed runs found (kept 0)")
                continue
            lines.append(f"{j + 1:>5}  {fit.speeds.size:>6}  {fit.Fc:.4g}  {fit.Fv:.4g}  {fit.Fs:.4g}  "
                         f"{math.degrees(fit.vs):.3g}  {fit.rms:.2g}")
            lines.append("       tau_f(v): " + ", ".join(f"{math.degrees(v):.3g} deg/s: {f:.4g}"
                                                       for v, f in zip(fit.speeds, fit.friction)))
        return "\n".join(lines) + "\n"


def _segments(active: np.ndarray) -> list[tuple[int, int]]:
    """``(start, stop)`` of the runs of True in ``active``."""
    edges = np.diff(np.concatenate([[0], active.astype(int), [0]]))
    return list(zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)))


def friction_from_recording(recording: Recording, min_samples: int = 5) -> FrictionStep:
    """Step 3's analysis on a recording with speeds (``qd``): per joint, its ``+v``/``-v`` segments paired.

    A constant-speed segment of joint ``i``: consecutive samples where
    ``|qd_i|`` stays within :data:`PLATEAU_RTOL` of its value and zero
    acceleration (when given), every other joint at rest. Segments of equal
    speed and opposite sign are paired; the torques are compared in
    :data:`PAIR_BINS` position bins over the positions both cover.
    """
    if recording.qd is None:
        raise InputError("expected speeds qd<i>_rad_s in the recording (constant-speed segments are found by speed)",
                         path=recording.source or None)
    qd, q, tau = recording.qd, recording.q, recording.tau
    n = recording.n_joints
    fits: list[FrictionFit | None] = []
    Fc, Fv, Fs, vs = np.zeros(n), np.zeros(n), np.zeros(n), np.zeros(n)
    for i in range(n):
        others = np.delete(np.abs(qd), i, axis=1)
        at_rest = np.all(others <= REST_SPEED, axis=1)
        moving = np.abs(qd[:, i]) > 0
        # Constant speed: equal to a neighbour within the tolerance.
        flat = np.zeros(qd.shape[0], dtype=bool)
        same = np.abs(np.diff(qd[:, i])) <= PLATEAU_RTOL * np.abs(qd[1:, i])
        flat[1:] |= same
        flat[:-1] |= same
        if recording.qdd is not None:
            flat &= recording.qdd[:, i] == 0
        segs = [(a, b) for a, b in _segments(at_rest & moving & flat) if b - a >= min_samples]
        by_speed: dict[float, dict[int, list[tuple[int, int]]]] = {}
        for a, b in segs:
            v = float(np.median(qd[a:b, i]))
            key = float(f"{abs(v):.6g}")
            by_speed.setdefault(key, {1: [], -1: []})[1 if v > 0 else -1].append((a, b))
        speeds, plus, minus = [], [], []
        for v, sides in sorted(by_speed.items()):
            if not sides[1] or not sides[-1]:
                continue
            qp = np.concatenate([q[a:b, i] for a, b in sides[1]])
            tp = np.concatenate([tau[a:b, i] for a, b in sides[1]])
            qm = np.concatenate([q[a:b, i] for a, b in sides[-1]])
            tm = np.concatenate([tau[a:b, i] for a, b in sides[-1]])
            lo, hi = max(qp.min(), qm.min()), min(qp.max(), qm.max())
            if not hi > lo:
                continue
            edges = np.linspace(lo, hi, PAIR_BINS + 1)
            bp = np.clip(np.digitize(qp, edges) - 1, 0, PAIR_BINS - 1)
            bm = np.clip(np.digitize(qm, edges) - 1, 0, PAIR_BINS - 1)
            keep_p = (qp >= lo) & (qp <= hi)
            keep_m = (qm >= lo) & (qm <= hi)
            both = [k for k in range(PAIR_BINS) if np.any(keep_p & (bp == k)) and np.any(keep_m & (bm == k))]
            if not both:
                continue
            speeds.append(v)
            plus.append(np.mean([tp[keep_p & (bp == k)].mean() for k in both]))
            minus.append(np.mean([tm[keep_m & (bm == k)].mean() for k in both]))
        if len(speeds) < 2:
            fits.append(None)
            continue
        fit = friction_from_constant_speed(speeds, plus, minus)
        fits.append(fit)
        Fc[i], Fv[i], Fs[i], vs[i] = fit.Fc, fit.Fv, fit.Fs, fit.vs
    return FrictionStep(FrictionTable(Fc, Fv, Fs, vs), tuple(fits))


__all__ = ["ConstantSpeedOptions", "FrictionStep", "constant_speed_trajectory", "friction_from_recording"]
