"""Drive gains (current to joint torque) from two recordings of motor currents: without and with a known payload.

Seed 003 calls them the torque factors (``axis.TorqueFactor``: the drive's
current times the factor is the motor torque, times the gear ratio the
joint's). A drive that reports currents ``i`` gives ``K i = Y_b pi_b + A a +
F f`` with the gains ``K = diag(k_1 .. k_n)`` unknown: the system is
homogeneous, the gains and the parameters only known up to one common scale.
A second recording with a payload of known mass fixes the scale (seed 001,
slides 19-21, the payload's rule of change: its standard parameters add to
the last link's). Stacked::

    [ diag(i_unloaded)  -W_unloaded   0    ] [ k   ]   [ 0          ]
    [ diag(i_loaded)    -W_loaded    -Y_l9 ] [ phi ] = [ Y_lm m_pay ]
                                             [ pl9 ]

with ``W = [Y_b, A, F]`` the base, armature and friction columns of each
recording, ``Y_l`` the last link's regressor columns (the payload's 10
standard parameters in the last link frame: ``Y_lm`` the mass column, whose
value is known, ``Y_l9`` the other nine, unknown). Ordinary least squares
of these equations is the method of Mamedov et al. (their
``estimate_drive_gains``, OLS; after Gautier and Briot, "Global
identification of joint drive gains and dynamic parameters of robots", ASME
J. Dyn. Sys. 136(5), 2014). Its noise sits in the ``diag(i)`` columns, and
the homogeneous unloaded block pulls the gains towards zero (measured on the
GoFa with 0.02 A of current noise: joint 6's gain 36 % low, 35 standard
deviations off). So the OLS solution only starts the fit of the output
error, ``i = (W phi + Y_l p) / k``, where the noise is the measured
current's: a separable nonlinear least squares in ``(1/k, phi, p)``
(:func:`scipy.optimize.least_squares`), each joint's rows weighted by its
residual deviation; standard deviations from the Jacobian at the solution.

Pure core (numpy, scipy).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.linalg
import scipy.optimize

from thermocomp._typing import FloatArray
from thermocomp.dynamics.base_params import armature_split, base_parameters
from thermocomp.dynamics.identify import IdentifyOptions, prepare
from thermocomp.dynamics.parameters import PARAMETER_NAMES
from thermocomp.dynamics.regressor import armature_regressor, friction_regressor, regressor
from thermocomp.errors import InputError
from thermocomp.io.recording_csv import Recording
from thermocomp.robot.chain import Chain


@dataclass(frozen=True, eq=False)
class DriveGains:
    """The result of :func:`identify_drive_gains`.

    Attributes
    ----------
    gains, gains_std
        ``(n,)`` [N m/A]: joint torque per motor current, and standard deviations.
    payload, payload_std
        ``(10,)``: the payload's standard parameters in the last link frame (the mass the given one, std 0).
    sigma
        Per-joint residual deviation of the currents [A], ``(n,)``.
    samples
        Samples used per recording ``(2,)`` (unloaded, loaded).
    """

    gains: FloatArray
    gains_std: FloatArray
    payload: FloatArray
    payload_std: FloatArray
    sigma: FloatArray
    samples: tuple[int, int]

    def text(self, unloaded: str = "", loaded: str = "") -> str:
        """The report in words."""
        lines = [f"drive gains (joint torque per motor current) from {unloaded or 'a recording'} without and "
                 f"{loaded or 'one'} with a payload of {self.payload[0]:.6g} kg (seed 001's rule of change; "
                 f"{self.samples[0]} and {self.samples[1]} samples; weighted least squares):",
                 "  joint  gain_Nm_per_A  std  std_%"]
        for j, (g, s) in enumerate(zip(self.gains, self.gains_std)):
            lines.append(f"  {j + 1:>5}  {g:.6g}  {s:.3g}  {100 * s / abs(g):.3g}")
        lines.append("payload (last link frame, SI): " + ", ".join(
            f"{name} {v:.4g} +- {s:.2g}" for name, v, s in zip(PARAMETER_NAMES, self.payload, self.payload_std)))
        return "\n".join(lines) + "\n"


def _columns(chain: Chain, recording: Recording, options: IdentifyOptions, base, sep: np.ndarray):
    """Masked, stacked rows of one current recording: currents ``(rows,)``, joint of row, ``[Y_b, A, F]`` and the last
    link's columns ``(rows, 10)``."""
    if recording.current is None:
        raise InputError("expected motor currents (columns i1_A ..)", path=recording.source or None)
    n = chain.n_joints
    if recording.n_joints != n:
        raise InputError(f"expected a recording of {n} joints, got {recording.n_joints}", path=recording.source or None)
    data = prepare(Recording(time=recording.time, q=recording.q, tau=recording.current, qd=recording.qd,
                             qdd=recording.qdd, source=recording.source), options)
    Y = regressor(chain, data.q, data.qd, data.qdd, gravity=options.gravity)
    W = np.concatenate([base.columns(Y), armature_regressor(data.qdd)[:, :, sep], friction_regressor(data.qd)], axis=2)
    mask = np.abs(data.qd) > options.velocity_threshold_fraction * np.max(np.abs(data.qd), axis=0)
    rows_W = np.vstack([W[mask[:, i], i, :] for i in range(n)])
    rows_L = np.vstack([Y[mask[:, i], i, -10:] for i in range(n)])
    current = np.concatenate([data.tau_raw[mask[:, i], i] for i in range(n)])
    joint = np.repeat(np.arange(n), mask.sum(axis=0))
    return current, joint, rows_W, rows_L, int(data.q.shape[0])


#: Most evaluations of the gains' output-error fit (each a pass over both recordings): it converges in some 15
#: (the GoFa's runs of tests/test_dynamics_drives.py: 13, then 4); two recordings of one load determine no gain and
#: MINPACK's own bound, 100 per unknown (6,700), ran for many minutes.
MAX_EVALUATIONS = 200


def identify_drive_gains(chain: Chain, unloaded: Recording, loaded: Recording, payload_mass: float,
                         options: IdentifyOptions | None = None) -> DriveGains:
    """Drive gains from currents recorded without and with a payload of ``payload_mass`` [kg] on the last link.

    Raises
    ------
    InputError
        A recording without currents, of another number of joints, or motions that leave a gain or parameter
        undetermined (the message names it), or a fit that does not converge in :data:`MAX_EVALUATIONS`.
    """
    options = options or IdentifyOptions()
    if not (math.isfinite(payload_mass) and payload_mass > 0):
        raise InputError(f"payload mass: expected > 0 kg, got {payload_mass!r}")
    n = chain.n_joints
    base = base_parameters(chain, np.random.default_rng(options.seed), gravity=options.gravity)
    sep = (armature_split(chain, base, np.random.default_rng(options.seed + 1), gravity=options.gravity).separable
           if options.armature else np.zeros(n, dtype=bool))
    i_u, j_u, W_u, _, s_u = _columns(chain, unloaded, options, base, sep)
    i_l, j_l, W_l, L_l, s_l = _columns(chain, loaded, options, base, sep)
    D_u = np.zeros((i_u.size, n))
    D_u[np.arange(i_u.size), j_u] = i_u
    D_l = np.zeros((i_l.size, n))
    D_l[np.arange(i_l.size), j_l] = i_l
    A = np.block([[D_u, -W_u, np.zeros((i_u.size, 9))], [D_l, -W_l, -L_l[:, 1:]]])
    b = np.concatenate([np.zeros(i_u.size), L_l[:, 0] * payload_mass])
    joint = np.concatenate([j_u, j_l])
    labels = ([f"joint{j + 1}.gain" for j in range(n)] + base.base_labels
              + [f"joint{j + 1}.armature" for j in np.flatnonzero(sep)]
              + [f"joint{j + 1}.{k}" for j in range(n) for k in ("Fc", "Fv")]
              + [f"payload.{name}" for name in PARAMETER_NAMES[1:]])
    if np.any(np.linalg.norm(A, axis=0) == 0):
        raise InputError(f"the recordings do not determine {labels[int(np.argmin(np.linalg.norm(A, axis=0)))]} (the "
                         "motion does not excite it)", path=loaded.source or None)
    # Start: the stacked equations by ordinary least squares (the authors' OLS). Their noise is the currents', in
    # the regressor's diag(i) columns: a homogeneous unloaded block then shrinks the gains towards zero (measured on
    # the GoFa with 0.02 A of noise: joint 6 36 % low, 35 standard deviations).
    norms = np.linalg.norm(A, axis=0)
    As = A / norms[None, :]
    _, R, piv = scipy.linalg.qr(As, mode="economic", pivoting=True)
    diag = np.abs(np.diag(R))
    if diag[-1] <= 1e-9 * diag[0]:
        raise InputError(f"the recordings do not determine {labels[int(piv[-1])]} (the motions do not excite it); "
                         "record richer motions (docs/dynamics.md)", path=loaded.source or None)
    x0 = scipy.linalg.lstsq(As, b)[0] / norms
    if np.any(x0[:n] <= 0):
        j = int(np.argmax(x0[:n] <= 0))
        raise InputError(f"the recordings give joint {j + 1} a drive gain of {x0[j]:.4g} N m/A; expected > 0 (is the "
                         "payload's mass right, and did the loaded run carry it?)", path=loaded.source or None)
    # Then the output error: currents i = (W phi + Y_l p) / k, the noise where it is measured; a separable nonlinear
    # least squares in (1/k, phi, p), each joint's rows weighted by its residual deviation [A].
    current = np.concatenate([i_u, i_l])
    model_cols = -A[:, n:]  # W phi + Y_l9 p9: the joint torques but the payload mass'
    known = np.concatenate([np.zeros(i_u.size), L_l[:, 0] * payload_mass])
    m = model_cols.shape[1]

    def torque(z: FloatArray) -> FloatArray:
        return model_cols @ z[n:] + known

    sigma = np.ones(n)
    z = np.concatenate([1.0 / x0[:n], x0[n:]])
    for _ in range(2):
        w = 1.0 / sigma[joint]

        def residual(z: FloatArray, w: FloatArray = w) -> FloatArray:
            return w * (z[:n][joint] * torque(z) - current)

        def jacobian(z: FloatArray, w: FloatArray = w) -> FloatArray:
            J = np.zeros((current.size, n + m))
            J[np.arange(current.size), joint] = torque(z)
            J[:, n:] = model_cols * z[:n][joint][:, None]
            return J * w[:, None]

        fit = scipy.optimize.least_squares(residual, z, jac=jacobian, method="lm", x_scale="jac",
                                           xtol=1e-12, ftol=1e-12, gtol=1e-12, max_nfev=MAX_EVALUATIONS)
        if fit.status == 0:  # (MINPACK's default bound, 100 per unknown, ran for many minutes)
            raise InputError(f"the drive gains' fit did not converge in {MAX_EVALUATIONS} evaluations: the recordings "
                             "do not determine the gains (did the loaded run carry the payload of the mass given, "
                             "and the unloaded run none?)", path=loaded.source or None)
        z = fit.x
        res = z[:n][joint] * torque(z) - current
        sigma = np.array([math.sqrt(float(np.mean(res[joint == j] ** 2))) for j in range(n)])
        sigma = np.maximum(sigma, 1e-12 * max(float(np.max(np.abs(current))), 1e-300))
    J = jacobian(z, 1.0 / sigma[joint])
    dof = max(current.size - (n + m), 1)
    s2 = float(np.sum((res / sigma[joint]) ** 2)) / dof
    cn = np.linalg.norm(J, axis=0)
    cn[cn == 0] = 1.0
    cov = s2 * np.linalg.inv((J / cn).T @ (J / cn)) / np.outer(cn, cn)
    std = np.sqrt(np.diag(cov))
    gains = 1.0 / z[:n]
    gains_std = std[:n] * gains**2  # d(1/g) = dg / g^2
    payload = np.concatenate([[payload_mass], z[-9:]])
    payload_std = np.concatenate([[0.0], std[-9:]])
    return DriveGains(gains=gains, gains_std=gains_std, payload=payload, payload_std=payload_std,
                      sigma=sigma, samples=(s_u, s_l))


__all__ = ["DriveGains", "identify_drive_gains"]
