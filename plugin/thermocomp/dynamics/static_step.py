"""Seed 000, Step 2: correction factors ``lambda_k`` of the CAD inertials from static joint torques, by explicit formulas.

Eq. 9 scales a link's mass and inertia, ``m_k = lambda_k m_k^CAD`` and
``I_k = lambda_k I_k^CAD``, keeping its centre of mass; its standard
parameters scale as a whole, ``pi_k = lambda_k pi_k^CAD``. At rest the
torque of joint ``j`` is the gravity term (Eq. 8 with ``qd = qdd = 0``)::

    tau_j(q) = sum_{k >= j} lambda_k G_jk(q) + G_j^fixed(q)

with ``G_jk(q)`` link ``k``'s CAD gravity torque on joint ``j`` (the
regressor at rest times ``pi_k^CAD``) and ``G^fixed`` what bodies fixed to
the links (a tool, a placeholder) add at their known values. It involves
only the links beyond joint ``j``, so the factors follow by back-substitution
from the wrist down, each from **one pose chosen for it**:

* link ``k`` from joint ``k`` at the pose where ``|G_kk|`` is largest:
  ``lambda_k = (tau_k - sum_{l > k} lambda_l G_kl - G_k^fixed) / G_kk``;
* a link whose centre of mass lies on its own joint's axis (``G_kk = 0`` at
  every pose, e.g. a flange) is solved with the link before it from joint
  ``k - 1`` at two poses, by Cramer's rule on the 2 x 2 system;
* a link that no static torque sees (the first link of a robot whose first
  axis is vertical) keeps ``lambda = 1``, and the result says so.

No iteration: the seed's point is that explicit formulas make the static
campaign short. Poses are chosen among random candidates within the limits
(:func:`plan_static_poses`); the analysis (:func:`static_corrections`) takes
the measured poses and torques and makes the same choices, so a recording of
the planned poses, or any other set, works.

Pure core.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from thermocomp._typing import ArrayLike, FloatArray
from thermocomp.dynamics.regressor import regressor
from thermocomp.errors import ConfigurationError, InputError
from thermocomp.inertia.gravity import STANDARD_GRAVITY
from thermocomp.io.recording_csv import Recording
from thermocomp.robot.chain import Chain

#: A link is seen by a joint when its CAD gravity torque there reaches this [N m]
#: (of the order of a drive's torque noise before averaging).
MIN_GRAVITY_TORQUE = 0.5

#: Random candidate poses searched by the planner and used for the 2 x 2 systems.
CANDIDATES = 2000

#: At rest: samples whose speed is below this [rad/s] on every joint (or, without speeds, positions equal).
REST_SPEED = 1e-6


def gravity_contributions(chain: Chain, cad: ArrayLike, poses: ArrayLike, fixed: ArrayLike | None = None, *,
                          gravity: ArrayLike = STANDARD_GRAVITY) -> tuple[FloatArray, FloatArray]:
    """``G`` ``(m, n, n)``: ``G[s, j, k]`` link ``k``'s CAD gravity torque on joint ``j`` at pose ``s`` [N m]; and
    ``G_fixed`` ``(m, n)`` of the fixed bodies' parameters ``fixed`` ``(10 n,)``."""
    poses = np.atleast_2d(np.asarray(poses, dtype=float))
    n = chain.n_joints
    zero = np.zeros_like(poses)
    Y = regressor(chain, poses, zero, zero, gravity=gravity)  # (m, n, 10 n)
    cad = np.asarray(cad, dtype=float).reshape(n, 10)
    G = np.einsum("sjkp,kp->sjk", Y.reshape(Y.shape[0], n, n, 10), cad)
    G_fixed = Y @ (np.zeros(10 * n) if fixed is None else np.asarray(fixed, dtype=float))
    return G, G_fixed


@dataclass(frozen=True)
class StaticEquation:
    """How one or two factors follow: joint ``joint`` (0-based) at pose(s) ``poses`` (indices), links ``links``."""

    joint: int
    links: tuple[int, ...]
    poses: tuple[int, ...]


def _choose(G: FloatArray, min_torque: float) -> tuple[list[StaticEquation], dict[int, str]]:
    """The explicit scheme on poses with contributions ``G`` ``(m, n, n)``: equations, and why links are left at 1.

    Back-substitution carries the error of every factor already found into
    the next formula (``lambda_l G_kl`` is subtracted), so each pose is the
    one with the best ratio of the link's own torque to the error it
    inherits: ``|G_kk| / sqrt(1 + sum_l (G_kl s_l)^2)``, ``s_l`` the found
    factors' relative standard deviations (in units of one reading's noise).
    """
    n = G.shape[1]
    equations: list[StaticEquation] = []
    left: dict[int, str] = {}
    s = np.zeros(n)  # standard deviation of each factor per unit of reading noise
    k = n - 1
    while k >= 0:
        inherited = np.sqrt(1.0 + np.sum((G[:, k, k + 1:] * s[k + 1:]) ** 2, axis=1))
        own = np.abs(G[:, k, k])
        if own.max() >= min_torque:
            best = int(np.argmax(own / inherited))
            equations.append(StaticEquation(k, (k,), (best,)))
            s[k] = inherited[best] / own[best]
            k -= 1
            continue
        if k >= 1 and np.abs(G[:, k - 1, k - 1]).max() >= min_torque:
            j = k - 1
            inh = np.sqrt(1.0 + np.sum((G[:, j, k + 1:] * s[k + 1:]) ** 2, axis=1))
            a = int(np.argmax(np.abs(G[:, j, j]) / inh))
            det = G[a, j, j] * G[:, j, k] - G[a, j, k] * G[:, j, j]
            b = int(np.argmax(np.abs(det) / inh))
            if abs(det[b]) / abs(G[a, j, j]) >= min_torque:
                equations.append(StaticEquation(j, (j, k), (a, b)))
                inv = np.array([[G[b, j, k], -G[a, j, k]], [-G[b, j, j], G[a, j, j]]]) / det[b]
                s[j], s[k] = np.sqrt(np.sum((inv * np.array([inh[a], inh[b]])) ** 2, axis=1))
                k -= 2
                continue
        if np.abs(G[:, :k + 1, k]).max() < min_torque:
            left[k] = "no static torque sees this link (its weight acts through every joint axis that carries it)"
        else:
            left[k] = (f"its static torques on joints 1..{k + 1} are proportional to the links' before it (centres of "
                       "mass on one line through the joints): only their sum is seen, not this link's share")
        k -= 1
    return equations, left


def plan_static_poses(chain: Chain, cad: ArrayLike, rng: np.random.Generator, *,
                      fixed: ArrayLike | None = None, min_torque: float = MIN_GRAVITY_TORQUE,
                      candidates: int = CANDIDATES, gravity: ArrayLike = STANDARD_GRAVITY,
                      admissible: Callable[[FloatArray], np.ndarray] | None = None) -> FloatArray:
    """Poses ``(m, n)`` [rad] for Step 2: for each factor, the candidate pose where its formula is best conditioned.

    ``admissible(poses (k, n)) -> (k,)`` booleans says which poses the robot can take (above the floor, clear of
    itself: :class:`thermocomp.simulators.pybullet.poses.PoseCheck`); the choice is made again without the
    refused ones until every chosen pose is admissible (only chosen poses are checked).

    Raises
    ------
    ConfigurationError
        When no admissible candidate is left for a formula.
    """
    if candidates < 2:
        raise ConfigurationError(f"candidates: expected at least 2, got {candidates}")
    lo = np.maximum(chain.lower, -np.pi)
    hi = np.minimum(chain.upper, np.pi)
    poses = rng.uniform(lo, hi, (candidates, chain.n_joints))
    G, _ = gravity_contributions(chain, cad, poses, fixed, gravity=gravity)
    keep = np.ones(candidates, dtype=bool)
    checked = np.zeros(candidates, dtype=bool)
    while True:
        if not keep.any():
            raise ConfigurationError(f"none of {candidates} random poses within the limits is admissible (above the "
                                     "floor, clear of the robot itself)")
        index = np.flatnonzero(keep)
        equations, _ = _choose(G[index], min_torque)
        chosen = index[sorted({p for eq in equations for p in eq.poses})]
        if admissible is None:
            return poses[chosen]
        new = chosen[~checked[chosen]]
        checked[new] = True
        keep[new[~np.asarray(admissible(poses[new]), dtype=bool)]] = False
        if keep[chosen].all():
            return poses[chosen]


@dataclass(frozen=True, eq=False)
class StaticCorrections:
    """Step 2's result.

    Attributes
    ----------
    lambdas
        ``lambda_k`` of links 1..n, ``(n,)`` (1 where not identifiable).
    std
        Their standard deviations from the torque noise, ``(n,)`` (0 where not identified).
    identified
        ``(n,)`` booleans.
    equations
        The formulas used.
    poses
        The poses they used ``(m, n)`` [rad].
    not_identified
        Why each link left at 1 is (by 0-based link index).
    """

    lambdas: FloatArray
    std: FloatArray
    identified: np.ndarray
    equations: tuple[StaticEquation, ...]
    poses: FloatArray
    not_identified: dict[int, str]

    def text(self) -> str:
        lines = ["Correction factors from static torques (seed 000, Step 2, Eq. 9: m_k = lambda_k m_k^CAD, "
                 "I_k = lambda_k I_k^CAD), explicit formulas:",
                 "link  lambda  std  from"]
        how = {}
        for eq in self.equations:
            for k in eq.links:
                poses = ", ".join("(" + ", ".join(f"{math.degrees(a):.1f}" for a in self.poses[p]) + ") deg"
                                  for p in eq.poses)
                how[k] = (f"joint {eq.joint + 1} at {poses}" if len(eq.links) == 1
                          else f"joint {eq.joint + 1} with link {eq.links[0] + 1 if k != eq.links[0] else eq.links[1] + 1}"
                               f" (2 x 2, Cramer) at {poses}")
        for k, lam in enumerate(self.lambdas):
            if self.identified[k]:
                lines.append(f"link{k + 1}  {lam:.4f}  {self.std[k]:.2g}  {how[k]}")
            else:
                lines.append(f"link{k + 1}  1 (kept)  -  {self.not_identified.get(k, '')}")
        return "\n".join(lines) + "\n"


def static_corrections(chain: Chain, cad: ArrayLike, poses: ArrayLike, tau: ArrayLike, *,
                       fixed: ArrayLike | None = None, noise: float = 0.0, min_torque: float = MIN_GRAVITY_TORQUE,
                       gravity: ArrayLike = STANDARD_GRAVITY) -> StaticCorrections:
    """Seed 000, Step 2: ``lambda_k`` from measured static torques ``tau`` ``(m, n)`` [N m] at ``poses`` ``(m, n)``.

    Parameters
    ----------
    cad
        CAD standard parameters ``(10 n,)`` (what moves with each joint, fixed bodies included).
    fixed
        The part of ``cad`` carried by fixed bodies that are not corrected (default none).
    noise
        Standard deviation of a torque reading [N m] (after averaging), for the factors' standard deviations.
    """
    n = chain.n_joints
    poses = np.atleast_2d(np.asarray(poses, dtype=float))
    tau = np.atleast_2d(np.asarray(tau, dtype=float))
    if poses.shape != tau.shape or poses.shape[1] != n:
        raise InputError(f"expected poses and torques of shape (m, {n}), got {poses.shape} and {tau.shape}")
    fixed_p = np.zeros(10 * n) if fixed is None else np.asarray(fixed, dtype=float)
    G, G_fixed = gravity_contributions(chain, np.asarray(cad, dtype=float) - fixed_p, poses, fixed_p, gravity=gravity)
    equations, left = _choose(G, min_torque)
    lam = np.ones(n)
    std = np.zeros(n)
    identified = np.zeros(n, dtype=bool)
    for eq in equations:
        j = eq.joint
        if len(eq.links) == 1:
            (k,), (s,) = eq.links, eq.poses
            rest = tau[s, j] - G_fixed[s, j] - sum(lam[l] * G[s, j, l] for l in range(k + 1, n))
            lam[k] = rest / G[s, j, k]
            std[k] = math.sqrt(noise**2 + sum((G[s, j, l] * std[l]) ** 2 for l in range(k + 1, n))) / abs(G[s, j, k])
        else:
            (a_link, b_link), (sa, sb) = eq.links, eq.poses
            A = np.array([[G[sa, j, a_link], G[sa, j, b_link]], [G[sb, j, a_link], G[sb, j, b_link]]])
            r = np.array([tau[s, j] - G_fixed[s, j] - sum(lam[l] * G[s, j, l] for l in range(b_link + 1, n))
                          for s in (sa, sb)])
            det = A[0, 0] * A[1, 1] - A[0, 1] * A[1, 0]
            lam[a_link] = (r[0] * A[1, 1] - A[0, 1] * r[1]) / det  # Cramer
            lam[b_link] = (A[0, 0] * r[1] - r[0] * A[1, 0]) / det
            inv = np.array([[A[1, 1], -A[0, 1]], [-A[1, 0], A[0, 0]]]) / det
            e = [math.sqrt(noise**2 + sum((G[s, j, l] * std[l]) ** 2 for l in range(b_link + 1, n))) for s in (sa, sb)]
            std[a_link], std[b_link] = np.sqrt(np.sum((inv * np.array(e)) ** 2, axis=1))
        identified[list(eq.links)] = True
    return StaticCorrections(lam, std, identified, tuple(equations), poses, left)


def rest_segments(recording: Recording, min_samples: int = 5) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Mean pose ``(m, n)``, mean torque ``(m, n)`` and the torque's standard error ``(m, n)`` of each rest segment.

    At rest: every joint's speed below :data:`REST_SPEED` (or, without speeds
    in the recording, positions unchanged from the previous sample), for at
    least ``min_samples`` samples.
    """
    q, tau = recording.q, recording.tau
    if recording.qd is not None:
        rest = np.all(np.abs(recording.qd) <= REST_SPEED, axis=1)
    else:
        rest = np.zeros(q.shape[0], dtype=bool)
        rest[1:] = np.all(np.diff(q, axis=0) == 0, axis=1)
    edges = np.diff(np.concatenate([[0], rest.astype(int), [0]]))
    poses, means, errs = [], [], []
    for a, b in zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)):
        if b - a >= min_samples:
            poses.append(q[a:b].mean(axis=0))
            means.append(tau[a:b].mean(axis=0))
            errs.append(tau[a:b].std(axis=0, ddof=1) / math.sqrt(b - a))
    if not poses:
        raise InputError(f"expected rest segments (all joints still for at least {min_samples} samples), got none",
                         path=recording.source or None)
    return np.array(poses), np.array(means), np.array(errs)


def static_trajectory(chain: Chain, poses: ArrayLike, hold: float, rate: float, speed_fraction: float = 0.2) -> Recording:
    """The Step 2 experiment: move to each pose (a smooth point-to-point motion), hold it ``hold`` [s]."""
    poses = np.atleast_2d(np.asarray(poses, dtype=float))
    if not (hold > 0 and rate > 0 and 0 < speed_fraction <= 1):
        raise ConfigurationError("hold, rate: expected > 0; speed_fraction in (0, 1]")
    speed = speed_fraction * np.where(np.isfinite(chain.velocity), chain.velocity, math.pi)
    q_now = np.clip(np.zeros(chain.n_joints), chain.lower, chain.upper)
    qs, qds, qdds = [], [], []
    for pose in poses:
        d = pose - q_now
        # Cycloidal move: q = q0 + d (s - sin(2 pi s) / (2 pi)), peak speed 2 |d| / T.
        T = max(float(np.max(2 * np.abs(d) / speed)), 1.0 / rate)
        t = np.arange(int(math.ceil(T * rate))) / rate
        s = (t / T)[:, None]
        qs.append(q_now + d * (s - np.sin(2 * np.pi * s) / (2 * np.pi)))
        qds.append(d / T * (1 - np.cos(2 * np.pi * s)))
        qdds.append(d / T**2 * 2 * np.pi * np.sin(2 * np.pi * s))
        m = int(math.ceil(hold * rate))
        qs.append(np.repeat(pose[None, :], m, axis=0))
        qds.append(np.zeros((m, chain.n_joints)))
        qdds.append(np.zeros((m, chain.n_joints)))
        q_now = pose
    q = np.vstack(qs)
    return Recording(time=np.arange(q.shape[0]) / rate, q=q, tau=np.zeros_like(q), qd=np.vstack(qds),
                     qdd=np.vstack(qdds))


__all__ = [
    "MIN_GRAVITY_TORQUE",
    "StaticCorrections",
    "StaticEquation",
    "gravity_contributions",
    "plan_static_poses",
    "rest_segments",
    "static_corrections",
    "static_trajectory",
]
