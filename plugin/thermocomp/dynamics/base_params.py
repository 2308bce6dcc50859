"""Base (minimal) parameters: which combinations of the standard parameters the torques determine.

Seed 001, slide 6: some standard parameters do not appear in the model (zero
columns of ``Y``), others only in fixed combinations (dependent columns).
With ``Y`` stacked over random states, a QR decomposition finds ``p``
independent columns ``Y_b`` and writes the others as ``Y_d = Y_b beta``, so
``Y pi = Y_b (pi_b + beta pi_d)``: the base parameters are
``pi_base = pi_b + beta pi_d`` (Gautier, "Numerical calculation of the base
inertial parameters of robots", J. Robotic Systems 8(4), 1991; Khalil and
Dombre, Ch. 12).

The columns are scanned in the order of the standard vector (link 1 first),
so a dependent parameter of a later link is regrouped onto earlier columns,
as in Khalil's rules (e.g. ``m_{j}`` onto ``I_{j-1}``); a column is
independent when its component orthogonal to the columns kept before it has
a norm above :data:`BASE_RANK_RTOL` of the largest column norm. The
regrouping is reported as readable combinations
(:meth:`BaseParameters.combinations`).

Pure core. The rank is a property of the model, not of one trajectory: the
random states span the joint ranges and speeds (Gautier's method), and the
result does not depend on the generator's seed (a test checks it).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg

from thermocomp._typing import ArrayLike, FloatArray
from thermocomp.dynamics.parameters import parameter_labels
from thermocomp.dynamics.regressor import regressor
from thermocomp.inertia.gravity import STANDARD_GRAVITY
from thermocomp.kinematics.model import KinematicModel
from thermocomp.robot.chain import Chain

#: A column whose part orthogonal to the kept columns is below this fraction
#: of the largest column norm is dependent. Exact dependencies leave about
#: 1e-13 (round-off of a 6-link recursion over a few hundred samples); the
#: weakest independent column of the built-in robots keeps above 1e-4.
BASE_RANK_RTOL = 1e-8

#: Coefficients of ``beta`` smaller than this are printed as absent.
BETA_PRINT_TOL = 1e-9

#: Random states stacked per parameter (Gautier's method needs many more rows than columns).
SAMPLES_PER_PARAMETER = 4


@dataclass(frozen=True, eq=False)
class BaseParameters:
    """The base parameters of a robot model.

    Attributes
    ----------
    independent
        Indices of the standard parameters kept as base columns, ``(p,)``.
    dependent
        Indices of the others, ``(10 n - p,)``.
    beta
        ``(p, 10 n - p)``: ``Y_d = Y_b beta`` and ``pi_base = pi_b + beta pi_d``.
    labels
        Names of the ``10 n`` standard parameters (``link2.Izz``).
    """

    independent: np.ndarray
    dependent: np.ndarray
    beta: FloatArray
    labels: tuple[str, ...]

    @property
    def n_base(self) -> int:
        """``p``, the number of base parameters."""
        return int(self.independent.size)

    @property
    def projection(self) -> FloatArray:
        """``K`` ``(p, 10 n)`` with ``pi_base = K pi``."""
        K = np.zeros((self.n_base, len(self.labels)))
        K[np.arange(self.n_base), self.independent] = 1.0
        K[:, self.dependent] = self.beta
        return K

    def base_from_standard(self, pi: ArrayLike) -> FloatArray:
        """``pi_base`` ``(..., p)`` from standard parameters ``(..., 10 n)``."""
        return np.asarray(pi, dtype=float) @ self.projection.T

    def columns(self, Y: ArrayLike) -> FloatArray:
        """The base regressor ``Y_b`` ``(..., p)`` from the standard one ``(..., 10 n)``."""
        return np.asarray(Y)[..., self.independent]

    def combinations(self) -> list[str]:
        """One readable line per base parameter: ``link2.Izz + 0.444^2 ...`` as ``link2.Izz + 0.197136 link3.m``."""
        lines = []
        for row, j in enumerate(self.independent):
            terms = [self.labels[j]]
            for col, d in enumerate(self.dependent):
                b = self.beta[row, col]
                if abs(b) > BETA_PRINT_TOL:
                    terms.append(f"{'-' if b < 0 else '+'} {abs(b):.6g} {self.labels[d]}")
            lines.append(" ".join(terms))
        return lines

    @property
    def base_labels(self) -> list[str]:
        """Short names of the base parameters: their kept standard parameter, with ``R`` when regrouped."""
        out = []
        for row, j in enumerate(self.independent):
            regrouped = np.any(np.abs(self.beta[row]) > BETA_PRINT_TOL)
            out.append(self.labels[j] + ("R" if regrouped else ""))
        return out

    @property
    def unidentifiable(self) -> list[str]:
        """Standard parameters that appear in no torque (zero columns of ``Y``)."""
        zero = np.all(np.abs(self.beta) <= BETA_PRINT_TOL, axis=0)
        return [self.labels[d] for d, z in zip(self.dependent, zero) if z]


def random_states(chain: Chain, count: int, rng: np.random.Generator) -> tuple[FloatArray, FloatArray, FloatArray]:
    """``count`` random ``(q, qd, qdd)`` ``(count, n)``.

    Angles uniform within the limits (at most +-pi), speeds and accelerations N(0, 1).
    """
    lo = np.maximum(chain.lower, -np.pi)
    hi = np.minimum(chain.upper, np.pi)
    n = chain.n_joints
    return rng.uniform(lo, hi, (count, n)), rng.normal(0.0, 1.0, (count, n)), rng.normal(0.0, 1.0, (count, n))


def base_parameters(
    model: KinematicModel | Chain,
    rng: np.random.Generator,
    *,
    gravity: ArrayLike = STANDARD_GRAVITY,
) -> BaseParameters:
    """Base parameters of ``model`` by QR of its regressor stacked over random states (seed 001, slide 6).

    Parameters
    ----------
    model
        A single model or a chain.
    rng
        Generator of the random states (the result does not depend on it).
    gravity
        [m/s^2], world frame; a robot in space (zero gravity) has other base parameters.
    """
    chain = model if isinstance(model, Chain) else model.chain
    n = chain.n_joints
    P = 10 * n
    q, qd, qdd = random_states(chain, SAMPLES_PER_PARAMETER * P, rng)
    W = regressor(model, q, qd, qdd, gravity=gravity).reshape(-1, P)
    scale = np.max(np.linalg.norm(W, axis=0))
    kept: list[int] = []
    Q = np.zeros((W.shape[0], 0))
    for j in range(P):
        col = W[:, j]
        resid = col - Q @ (Q.T @ col)
        resid = resid - Q @ (Q.T @ resid)  # re-orthogonalise once (classical Gram-Schmidt twice is stable)
        norm = float(np.linalg.norm(resid))
        if norm > BASE_RANK_RTOL * scale:
            kept.append(j)
            Q = np.column_stack([Q, resid / norm])
    independent = np.array(kept, dtype=int)
    dependent = np.array([j for j in range(P) if j not in set(kept)], dtype=int)
    Wb = W[:, independent]
    beta = scipy.linalg.lstsq(Wb, W[:, dependent])[0] if dependent.size else np.zeros((independent.size, 0))
    beta[np.abs(beta) < BETA_PRINT_TOL] = 0.0
    return BaseParameters(independent, dependent, beta, tuple(parameter_labels(n)))


@dataclass(frozen=True, eq=False)
class ArmatureSplit:
    """Which joints' armature (reflected rotor inertia) the torques tell apart from the links' base parameters.

    Attributes
    ----------
    separable
        ``(n,)`` bool: joint ``i``'s armature column ``qdd_i`` (on row ``i``) is independent of the base columns,
        so the armature is a base parameter of its own.
    gamma
        ``(p, n)``: for the others, ``qdd_i = Y_b gamma_i`` and the base parameters absorb it,
        ``pi_base += gamma_i armature_i`` (joint 1 about a vertical axis: its armature adds to ``link1.Izz``).
        Zero columns for the separable joints.
    """

    separable: np.ndarray
    gamma: FloatArray

    def absorbed_by(self, base: BaseParameters, joint: int) -> list[str]:
        """The base parameters (labels) that absorb a joint's (0-based) inseparable armature."""
        return [base.base_labels[r] for r in np.flatnonzero(np.abs(self.gamma[:, joint]) > BETA_PRINT_TOL)]


def armature_split(
    model: KinematicModel | Chain,
    base: BaseParameters,
    rng: np.random.Generator,
    *,
    gravity: ArrayLike = STANDARD_GRAVITY,
) -> ArmatureSplit:
    """Which armature columns are independent of the base columns (random states, as :func:`base_parameters`)."""
    from thermocomp.dynamics.regressor import armature_regressor

    chain = model if isinstance(model, Chain) else model.chain
    n = chain.n_joints
    q, qd, qdd = random_states(chain, SAMPLES_PER_PARAMETER * 10 * n, rng)
    Wb = base.columns(regressor(model, q, qd, qdd, gravity=gravity).reshape(-1, 10 * n))
    A = armature_regressor(qdd).reshape(-1, n)
    scale = max(float(np.max(np.linalg.norm(Wb, axis=0))), float(np.max(np.linalg.norm(A, axis=0))))
    Q, _ = np.linalg.qr(Wb)
    separable = np.zeros(n, dtype=bool)
    gamma = np.zeros((base.n_base, n))
    for i in range(n):
        resid = A[:, i] - Q @ (Q.T @ A[:, i])
        resid = resid - Q @ (Q.T @ resid)
        if float(np.linalg.norm(resid)) > BASE_RANK_RTOL * scale:
            separable[i] = True
        else:
            g = scipy.linalg.lstsq(Wb, A[:, i])[0]
            g[np.abs(g) < BETA_PRINT_TOL] = 0.0
            gamma[:, i] = g
    return ArmatureSplit(separable, gamma)


__all__ = ["BASE_RANK_RTOL", "ArmatureSplit", "BaseParameters", "armature_split", "base_parameters", "random_states"]
