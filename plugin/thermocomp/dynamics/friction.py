"""Joint friction: Coulomb, viscous and Stribeck (seed 000, Eq. 3), and its identification (seed 000, Step 3).

The model per joint (seed 000, Eq. 3; the Stribeck curve of Armstrong-Helouvry
with a Gaussian shape)::

    tau_f(qd) = (Fc + (Fs - Fc) exp(-(qd / vs)^2)) sign(qd) + Fv qd

``Fc`` Coulomb [N m], ``Fs`` static (breakaway) [N m], ``vs`` Stribeck speed
[rad/s], ``Fv`` viscous [N m s/rad]. ``tau_f(0) = 0`` (at rest the friction
is whatever holds the joint, not a function of speed). Seed 000, Table III
gives the GoFa's values (:data:`SEED000_TABLE_III`).

Step 3 (:func:`friction_from_constant_speed`): one joint at a time moves at
a constant speed ``+v`` then ``-v`` through the same configurations, the
others at rest; gravity and Coriolis terms are even in the speed and cancel
in the difference of the two torques (Eqs. 10-11), and friction being odd,
``tau_f(v) = (tau(+v) - tau(-v)) / 2`` (Eq. 12). Over several speeds this
traces the characteristic, fitted by nonlinear least squares.

Pure core.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.optimize

from thermocomp._typing import ArrayLike, FloatArray
from thermocomp.errors import InputError


@dataclass(frozen=True, eq=False)
class FrictionTable:
    """What each joint's drive adds to the rigid links' torques, SI: friction (seed 000, Eq. 3) and the reflected
    rotor inertia.

    Attributes
    ----------
    Fc, Fv, Fs, vs
        ``(n,)`` each: Coulomb [N m], viscous [N m s/rad], static [N m],
        Stribeck speed [rad/s]. ``Fc, Fv, Fs >= 0``; ``vs > 0`` where ``Fs != Fc``.
    armature
        ``(n,)`` [kg m^2], ``>= 0``: the reflected rotor inertia ``N^2 J_m`` of each joint about its axis (seed 000's
        ``J_m,i`` after the gear ratio ``N``), added to the mass matrix's diagonal; ``None``: zero. A URDF has no
        field for it: it lives in the friction CSV's ``armature_kg_m2`` column (pinocchio's ``model.armature``).
    """

    Fc: FloatArray
    Fv: FloatArray
    Fs: FloatArray
    vs: FloatArray
    armature: FloatArray | None = None

    def __post_init__(self) -> None:
        if self.armature is None:
            object.__setattr__(self, "armature", np.zeros(np.atleast_1d(np.asarray(self.Fc, dtype=float)).shape))
        arrays = {k: np.atleast_1d(np.asarray(getattr(self, k), dtype=float)) for k in ("Fc", "Fv", "Fs", "vs", "armature")}
        n = arrays["Fc"].shape
        for k, a in arrays.items():
            if a.shape != n or a.ndim != 1 or not np.all(np.isfinite(a)):
                raise InputError(f"friction {k}: expected {n[0]} finite values, got {a.tolist()}")
            if np.any(a < 0):
                j = int(np.argmax(a < 0))
                raise InputError(f"friction {k} of joint {j + 1}: expected >= 0, got {float(a[j])!r}")
            a.setflags(write=False)
            object.__setattr__(self, k, a)
        stribeck = arrays["Fs"] != arrays["Fc"]
        if np.any(stribeck & (arrays["vs"] <= 0)):
            j = int(np.argmax(stribeck & (arrays["vs"] <= 0)))
            raise InputError(f"friction vs of joint {j + 1}: expected > 0 when Fs != Fc, got {float(arrays['vs'][j])!r}")

    @property
    def n_joints(self) -> int:
        return int(self.Fc.size)

    @classmethod
    def zero(cls, n: int) -> FrictionTable:
        z = np.zeros(n)
        return cls(z, z, z, z)

    @classmethod
    def from_columns(cls, columns: object) -> FrictionTable:
        """The table of anything with attributes ``Fc, Fv, Fs, vs`` and optionally ``armature`` (a friction CSV's
        :class:`thermocomp.io.friction_csv.FrictionColumns`); refuses negative values, naming them."""
        return cls(*(getattr(columns, k) for k in ("Fc", "Fv", "Fs", "vs")), armature=getattr(columns, "armature", None))

    def with_armature(self, armature: ArrayLike) -> FrictionTable:
        """The same friction with another armature ``(n,)`` [kg m^2]."""
        return FrictionTable(self.Fc, self.Fv, self.Fs, self.vs, armature=np.asarray(armature, dtype=float))

    def torque(self, qd: ArrayLike) -> FloatArray:
        """``tau_f(qd)`` [N m], ``(..., n)`` from speeds ``(..., n)`` [rad/s] (seed 000, Eq. 3)."""
        return friction_torque(qd, self.Fc, self.Fv, self.Fs, self.vs)

    def drive_torque(self, qd: ArrayLike, qdd: ArrayLike) -> FloatArray:
        """Friction plus the reflected rotor inertia's torque, ``tau_f(qd) + armature qdd`` [N m], ``(..., n)``
        from speeds [rad/s] and accelerations [rad/s^2] ``(..., n)``."""
        return self.torque(qd) + self.armature * np.asarray(qdd, dtype=float)


def friction_torque(qd: ArrayLike, Fc: ArrayLike, Fv: ArrayLike, Fs: ArrayLike, vs: ArrayLike) -> FloatArray:
    """Seed 000, Eq. 3: ``(Fc + (Fs - Fc) exp(-(qd/vs)^2)) sign(qd) + Fv qd``; broadcast."""
    qd = np.asarray(qd, dtype=float)
    Fc, Fv, Fs, vs = (np.asarray(x, dtype=float) for x in (Fc, Fv, Fs, vs))
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(vs > 0, qd / np.where(vs > 0, vs, 1.0), np.inf)
        stribeck = np.where(Fs != Fc, (Fs - Fc) * np.exp(-(ratio**2)), 0.0)
    return (Fc + stribeck) * np.sign(qd) + Fv * qd


#: Seed 000, Table III (ABB GoFa), converted to SI: Fs, Fc [N m]; vs 0.5 deg/s; Fv 0.06 N m s/deg.
SEED000_TABLE_III = FrictionTable(
    Fc=np.array([8.5, 9.3, 10.5, 4.8, 4.1, 4.8]),
    Fv=np.full(6, 0.06 * 180.0 / math.pi),
    Fs=np.array([9.5, 10.5, 11.5, 5.7, 4.8, 5.4]),
    vs=np.full(6, math.radians(0.5)),
)


@dataclass(frozen=True, eq=False)
class FrictionFit:
    """Result of Step 3 for one joint.

    Attributes
    ----------
    speeds
        The constant speeds [rad/s] of the runs, ``(m,)``, positive.
    friction
        ``tau_f`` at each speed from Eq. 12 [N m], ``(m,)``.
    Fc, Fv, Fs, vs
        The fitted Eq. 3 parameters.
    rms
        RMS residual of the fit [N m].
    """

    speeds: FloatArray
    friction: FloatArray
    Fc: float
    Fv: float
    Fs: float
    vs: float
    rms: float


def friction_from_constant_speed(speeds: ArrayLike, tau_plus: ArrayLike, tau_minus: ArrayLike) -> FrictionFit:
    """Seed 000, Step 3 (Eqs. 10-12) for one joint: friction at each speed and the Eq. 3 fit.

    Parameters
    ----------
    speeds
        ``(m,)`` constant speeds [rad/s] (> 0) of the symmetric runs.
    tau_plus, tau_minus
        ``(m,)`` or ``(m, k)``: the joint's torque [N m] in the constant-speed
        segment at ``+v`` and at ``-v``, sampled at the same configurations
        (``k`` samples per segment, averaged).

    Returns
    -------
    FrictionFit
        ``tau_f(v) = (tau(+v) - tau(-v)) / 2`` (Eq. 12, gravity and Coriolis
        cancelled, Eq. 11), and ``Fc, Fv, Fs, vs`` by nonlinear least squares
        (:func:`scipy.optimize.least_squares`, bounds ``>= 0``). With too few
        speeds below the Stribeck region the Stribeck part is not
        identifiable: ``Fs = Fc`` then (stated by ``vs = 0``).
    """
    v = np.asarray(speeds, dtype=float)
    plus = np.asarray(tau_plus, dtype=float)
    minus = np.asarray(tau_minus, dtype=float)
    if v.ndim != 1 or v.size < 2 or np.any(v <= 0) or not np.all(np.isfinite(v)):
        raise InputError(f"speeds: expected at least 2 positive speeds [rad/s], got {v.tolist()}")
    if plus.shape != minus.shape or plus.shape[0] != v.size:
        raise InputError(f"tau_plus, tau_minus: expected {v.size} segments each, got {plus.shape} and {minus.shape}")
    if plus.ndim == 2:
        plus, minus = plus.mean(axis=1), minus.mean(axis=1)
    tf = 0.5 * (plus - minus)  # Eq. 12
    # Linear start: Coulomb + viscous from the speeds.
    A = np.column_stack([np.ones_like(v), v])
    (fc0, fv0), *_ = np.linalg.lstsq(A, tf, rcond=None)
    fc0, fv0 = max(fc0, 0.0), max(fv0, 0.0)

    def resid(x: FloatArray) -> FloatArray:
        fc, fv, fs, vs = x
        return friction_torque(v, fc, fv, fs, vs) - tf

    # The Stribeck speed is a scale: start at the slowest speed measured.
    x0 = np.array([fc0, fv0, fc0 + 1e-3 * max(abs(fc0), 1.0), float(v.min())])
    lower = np.array([0.0, 0.0, 0.0, 1e-6])
    upper = np.array([np.inf, np.inf, np.inf, float(v.max())])
    fit = scipy.optimize.least_squares(resid, x0, bounds=(lower, upper), x_scale="jac")
    fc, fv, fs, vs = (float(x) for x in fit.x)
    # The Stribeck term is identifiable only if some speed lies below a few vs.
    if not np.any(v < 2.0 * vs) or abs(fs - fc) < 1e-9 * max(fc, 1.0):
        fs, vs = fc, 0.0
        rms = float(np.sqrt(np.mean((np.column_stack([np.ones_like(v), v]) @ [fc, fv] - tf) ** 2)))
    else:
        rms = float(np.sqrt(np.mean(fit.fun**2)))
    return FrictionFit(speeds=v, friction=tf, Fc=fc, Fv=fv, Fs=fs, vs=vs, rms=rms)


__all__ = ["SEED000_TABLE_III", "FrictionFit", "FrictionTable", "friction_from_constant_speed", "friction_torque"]
