"""The inverse dynamic model, linear in the standard parameters: ``tau = Y(q, qd, qdd) pi`` (seed 001, slides 4-7).

A Newton-Euler recursion (Khalil and Dombre, *Modeling, Identification and
Control of Robots*, Ch. 9; seed 001, slide 4) written so that every link's
wrench is linear in its 10 standard parameters
(:mod:`thermocomp.dynamics.parameters`):

* forward, joint by joint, in the world frame: joint origin ``o_k`` and axis
  ``z_k`` (:mod:`thermocomp.kinematics.fk`'s walk, seed 002 Eq. 22), link
  angular velocity ``w_k = w_{k-1} + z_k thd_k``, angular acceleration
  ``wd_k = wd_{k-1} + z_k thdd_k + w_{k-1} x z_k thd_k``, and the linear
  acceleration of the link origin ``a_k = a_{k-1} + wd_{k-1} x r + w_{k-1} x
  (w_{k-1} x r)`` (``r = o_k - o_{k-1}``), starting from ``a_0 = -g`` so that
  gravity enters as an acceleration of the base;
* per link, in its own frame: force ``f = m a + wd x mc + w x (w x mc)`` and
  moment about the origin ``n = I wd + w x I w + mc x a``, each a 3 x 10
  matrix times ``pi_k``;
* backward: ``tau_i = z_i . sum_{k >= i} (n_k + (o_k - o_i) x f_k)``, so the
  row of joint ``i`` has zeros for the links before ``i`` (the block upper
  triangular structure of seed 001, slide 5).

Model angles ``theta = sign q + offset`` drive the geometry; torques are
returned conjugate to controller angles ``q`` (``tau_q = sign tau_theta``).
Batch form only: ``q``, ``qd``, ``qdd`` have shape ``(N, n)``.

Friction columns (:func:`friction_regressor`): per joint the Coulomb and
viscous terms ``Fc sign(qd) + Fv qd`` of seed 000 Eq. 3 and seed 003's
``axis.CoulombFriction`` / ``axis.ViscousFriction``. Armature columns
(:func:`armature_regressor`): per joint ``qdd_i``, the reflected rotor
inertia on the mass matrix's diagonal.
"""

from __future__ import annotations

import numpy as np

from thermocomp._typing import ArrayLike, FloatArray
from thermocomp.errors import InputError
from thermocomp.geometry.rotations import rot_axis
from thermocomp.inertia.gravity import STANDARD_GRAVITY
from thermocomp.kinematics.model import KinematicModel, nominal_model
from thermocomp.robot.chain import Chain

#: Friction columns per joint, in order.
FRICTION_NAMES = ("Fc", "Fv")


def _cross(a: FloatArray, b: FloatArray) -> FloatArray:
    return np.cross(a, b)


def _check_states(n: int, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike) -> tuple[FloatArray, FloatArray, FloatArray]:
    out = []
    for name, x in (("q", q), ("qd", qd), ("qdd", qdd)):
        a = np.asarray(x, dtype=float)
        if a.ndim == 1:
            a = a[None, :]
        if a.ndim != 2 or a.shape[1] != n or not np.all(np.isfinite(a)):
            raise InputError(f"{name}: expected finite values of shape (N, {n}), got shape {np.shape(x)}")
        out.append(a)
    if not out[0].shape == out[1].shape == out[2].shape:
        raise InputError(f"q, qd, qdd: expected one shape, got {out[0].shape}, {out[1].shape}, {out[2].shape}")
    return out[0], out[1], out[2]


def _link_matrices(w: FloatArray, wd: FloatArray, a: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Force and moment (about the origin) of a link, each ``(..., 3, 10)`` times ``pi_k``; all in one frame."""
    shape = w.shape[:-1]
    A_f = np.zeros(shape + (3, 10))
    A_n = np.zeros(shape + (3, 10))
    wx, wy, wz = w[..., 0], w[..., 1], w[..., 2]
    # f = m a + (skew(wd) + skew(w) skew(w)) mc
    A_f[..., :, 0] = a
    Sw = np.zeros(shape + (3, 3))
    Sw[..., 0, 1], Sw[..., 0, 2] = -wz, wy
    Sw[..., 1, 0], Sw[..., 1, 2] = wz, -wx
    Sw[..., 2, 0], Sw[..., 2, 1] = -wy, wx
    Swd = np.zeros(shape + (3, 3))
    Swd[..., 0, 1], Swd[..., 0, 2] = -wd[..., 2], wd[..., 1]
    Swd[..., 1, 0], Swd[..., 1, 2] = wd[..., 2], -wd[..., 0]
    Swd[..., 2, 0], Swd[..., 2, 1] = -wd[..., 1], wd[..., 0]
    A_f[..., :, 1:4] = Swd + Sw @ Sw
    # n = mc x a = -skew(a) mc
    Sa = np.zeros(shape + (3, 3))
    Sa[..., 0, 1], Sa[..., 0, 2] = -a[..., 2], a[..., 1]
    Sa[..., 1, 0], Sa[..., 1, 2] = a[..., 2], -a[..., 0]
    Sa[..., 2, 0], Sa[..., 2, 1] = -a[..., 1], a[..., 0]
    A_n[..., :, 1:4] = -Sa
    # n += I wd + w x (I w), with I v = L(v) [xx, xy, xz, yy, yz, zz]
    def L(v: FloatArray) -> FloatArray:
        out = np.zeros(shape + (3, 6))
        out[..., 0, 0], out[..., 0, 1], out[..., 0, 2] = v[..., 0], v[..., 1], v[..., 2]
        out[..., 1, 1], out[..., 1, 3], out[..., 1, 4] = v[..., 0], v[..., 1], v[..., 2]
        out[..., 2, 2], out[..., 2, 4], out[..., 2, 5] = v[..., 0], v[..., 1], v[..., 2]
        return out
    A_n[..., :, 4:] = L(wd) + Sw @ L(w)
    return A_f, A_n


def regressor(
    model: KinematicModel | Chain,
    q: ArrayLike,
    qd: ArrayLike,
    qdd: ArrayLike,
    *,
    gravity: ArrayLike = STANDARD_GRAVITY,
) -> FloatArray:
    """The inertial regressor ``Y`` with ``tau = Y pi`` (seed 001, slide 5; seed 000, Eq. 1).

    Parameters
    ----------
    model
        A single kinematic model (batch shape ``()``) or a chain (nominal).
    q, qd, qdd
        Controller joint angles [rad], speeds [rad/s], accelerations
        [rad/s^2], shape ``(N, n)``.
    gravity
        Gravity in the world frame [m/s^2], ``(3,)``.

    Returns
    -------
    Y : ndarray, shape ``(N, n, 10 n)``
        ``Y[s, i] @ pi`` is joint ``i``'s torque [N m] at sample ``s``
        (conjugate to ``q_i``), ``pi`` the standard parameters of
        ``link1`` .. ``linkn`` in their link frames
        (:func:`thermocomp.dynamics.parameters.robot_parameters`).
    """
    if isinstance(model, Chain):
        model = nominal_model(model)
    if model.batch_shape != ():
        raise InputError(f"expected a single robot model, got a batch of shape {model.batch_shape}")
    chain = model.chain
    n = chain.n_joints
    q, qd, qdd = _check_states(n, q, qd, qdd)
    N = q.shape[0]
    theta = chain.theta_from_q(q)
    thd = chain.sign * qd
    thdd = chain.sign * qdd
    R = np.broadcast_to(model.R_base, (N, 3, 3))
    o = np.broadcast_to(model.p_base, (N, 3))
    w = np.zeros((N, 3))
    wd = np.zeros((N, 3))
    a = np.broadcast_to(-np.asarray(gravity, dtype=float), (N, 3)).copy()
    origins = np.empty((N, n, 3))
    axes = np.empty((N, n, 3))
    Rs = np.empty((N, n, 3, 3))
    W = np.empty((N, n, 3))
    WD = np.empty((N, n, 3))
    A = np.empty((N, n, 3))
    for i in range(n):
        o_new = o + np.einsum("sij,j->si", R, model.p_joint[i])
        r = o_new - o
        a = a + _cross(wd, r) + _cross(w, _cross(w, r))
        R = R @ model.R_joint[i]
        z = R @ chain.axis[i]
        R = R @ rot_axis(chain.axis[i], theta[:, i])
        wd = wd + z * thdd[:, i, None] + _cross(w, z) * thd[:, i, None]
        w = w + z * thd[:, i, None]
        o = o_new
        origins[:, i], axes[:, i], Rs[:, i], W[:, i], WD[:, i], A[:, i] = o, z, R, w, wd, a
    RT = np.swapaxes(Rs, -1, -2)
    A_f, A_n = _link_matrices(
        np.einsum("skij,skj->ski", RT, W), np.einsum("skij,skj->ski", RT, WD), np.einsum("skij,skj->ski", RT, A)
    )
    F = Rs @ A_f  # (N, n, 3, 10) world
    M = Rs @ A_n
    Y = np.zeros((N, n, 10 * n))
    for i in range(n):
        z = axes[:, i, None, :]  # (N, 1, 3)
        lever = _cross(z, origins[:, i:] - origins[:, i, None, :])  # z_i x (o_k - o_i), (N, n - i, 3)
        block = np.einsum("skj,skjp->skp", np.broadcast_to(z, lever.shape), M[:, i:]) + np.einsum(
            "skj,skjp->skp", lever, F[:, i:]
        )
        Y[:, i, 10 * i:] = block.reshape(N, -1)
    return Y * chain.sign[None, :, None]


def friction_regressor(qd: ArrayLike) -> FloatArray:
    """Friction columns ``(N, n, 2 n)``: joint ``i``'s row has ``sign(qd_i)`` and ``qd_i`` at columns ``2 i``, ``2 i + 1``.

    Coulomb ``Fc_i`` [N m] and viscous ``Fv_i`` [N m s/rad], the part of
    seed 000 Eq. 3 that is linear in its parameters (the Stribeck term is
    fitted separately, :mod:`thermocomp.dynamics.friction`).
    """
    qd = np.asarray(qd, dtype=float)
    if qd.ndim == 1:
        qd = qd[None, :]
    N, n = qd.shape
    out = np.zeros((N, n, 2 * n))
    idx = np.arange(n)
    out[:, idx, 2 * idx] = np.sign(qd)
    out[:, idx, 2 * idx + 1] = qd
    return out


def armature_regressor(qdd: ArrayLike) -> FloatArray:
    """Armature columns ``(N, n, n)``: joint ``i``'s row has ``qdd_i`` at column ``i``.

    The reflected rotor inertia ``N_i^2 J_m,i`` [kg m^2] of joint ``i`` (seed 000's ``J_m,i``) adds
    ``armature_i qdd_i`` to that joint's torque only: a diagonal term of the mass matrix, as pinocchio's
    ``model.armature``. Accelerations [rad/s^2] ``(N, n)``.
    """
    qdd = np.asarray(qdd, dtype=float)
    if qdd.ndim == 1:
        qdd = qdd[None, :]
    N, n = qdd.shape
    out = np.zeros((N, n, n))
    idx = np.arange(n)
    out[:, idx, idx] = qdd
    return out


def inverse_dynamics(
    model: KinematicModel | Chain,
    q: ArrayLike,
    qd: ArrayLike,
    qdd: ArrayLike,
    pi: ArrayLike,
    *,
    gravity: ArrayLike = STANDARD_GRAVITY,
) -> FloatArray:
    """Joint torques ``(N, n)`` [N m] of rigid links with standard parameters ``pi`` ``(10 n,)``, no friction."""
    return regressor(model, q, qd, qdd, gravity=gravity) @ np.asarray(pi, dtype=float)


__all__ = ["FRICTION_NAMES", "armature_regressor", "friction_regressor", "inverse_dynamics", "regressor"]
