"""A payload on the last link: the rule of change of the dynamic parameters (seed 001, slides 19-21), and the
payload's identification with the robot's model known (seed 003, "Identification with a Payload").

Seed 001: "only the dynamic parameters of the link where a load is added will
change"; with every quantity in the last link's frame, the standard
parameters simply add (mass, first moments ``m c`` and the inertia about the
frame origin), so the model stays linear in its parameters with any
kinematic convention: ``pi_n' = pi_n + pi_L``.

Identification: with the robot's model known (an earlier identification),
``tau - Y pi - F f = Y_n pi_L`` is linear in the payload's 10 parameters
``pi_L``; the combinations a motion determines are found as the base
parameters are (the columns of ``Y_n``, scanned in order), so a payload is
reported as mass, centre of mass and, where the motion sees them, inertia.

Pure core.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg

from thermocomp._typing import ArrayLike, FloatArray
from thermocomp.dynamics.parameters import PARAMETER_NAMES, link_parameters
from thermocomp.dynamics.regressor import regressor
from thermocomp.errors import InputError
from thermocomp.inertia.gravity import STANDARD_GRAVITY
from thermocomp.robot.chain import Chain

#: A payload column whose part independent of the earlier ones is below this fraction of the largest column norm
#: is not determined by the motion (a recorded motion, not random states: looser than the model's base-parameter
#: threshold, and well above the noise's effect on a few thousand samples).
PAYLOAD_RANK_RTOL = 1e-3


def payload_parameters(mass: float, com_tcp: ArrayLike, inertia_tcp: ArrayLike | None, T_last_tcp: ArrayLike) -> FloatArray:
    """The payload's standard parameters ``(10,)`` in the last link's frame, from mass [kg], centre of mass [m] and
    inertia about it [kg m^2] in the tcp frame, whose pose in the last link frame is ``T_last_tcp``."""
    T = np.asarray(T_last_tcp, dtype=float)
    R = T[:3, :3]
    c = R @ np.asarray(com_tcp, dtype=float) + T[:3, 3]
    I = np.zeros((3, 3)) if inertia_tcp is None else R @ np.asarray(inertia_tcp, dtype=float) @ R.T
    return link_parameters(mass, c, I)


def with_payload(pi: ArrayLike, payload: ArrayLike) -> FloatArray:
    """Seed 001's rule of change: ``pi`` ``(10 n,)`` with the last link's 10 parameters plus ``payload`` ``(10,)``."""
    out = np.array(pi, dtype=float)
    out[-10:] += np.asarray(payload, dtype=float)
    return out


@dataclass(frozen=True, eq=False)
class PayloadEstimate:
    """The identified payload.

    Attributes
    ----------
    parameters
        ``(10,)`` in the last link frame; the combinations the motion did not determine are 0.
    identified
        ``(10,)`` booleans: which of the 10 the motion determines on their own.
    std
        Standard deviations ``(10,)`` (0 where not identified).
    mass, com
        Mass [kg] and centre of mass [m] in the last link frame (``nan`` when the mass is not identified).
    """

    parameters: FloatArray
    identified: np.ndarray
    std: FloatArray
    mass: float
    com: FloatArray

    def text(self) -> str:
        lines = [f"payload (seed 001 rule of change; parameters in the last link frame): mass {self.mass:.4g} kg, "
                 "centre of mass (" + ", ".join(f"{1000 * c:.4g}" for c in self.com) + ") mm"]
        for name, v, s, ok in zip(PARAMETER_NAMES, self.parameters, self.std, self.identified):
            lines.append(f"  {name}: {v:.6g} +- {s:.2g}" if ok else f"  {name}: not determined by this motion")
        return "\n".join(lines) + "\n"


def identify_payload(chain: Chain, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike, tau: ArrayLike, predicted: ArrayLike,
                     *, weights: ArrayLike | None = None, gravity: ArrayLike = STANDARD_GRAVITY) -> PayloadEstimate:
    """The payload from torques ``tau`` ``(N, n)`` measured with it and the known model's ``predicted`` ``(N, n)``.

    ``weights``: per-joint noise standard deviations ``(n,)`` (the identification's ``sigma``) for weighted least squares.
    """
    n = chain.n_joints
    Y = regressor(chain, q, qd, qdd, gravity=gravity)[:, :, -10:]  # (N, n, 10)
    r = np.asarray(tau, dtype=float) - np.asarray(predicted, dtype=float)
    w = np.ones(n) if weights is None else 1.0 / np.asarray(weights, dtype=float)
    A = (Y * w[None, :, None]).reshape(-1, 10)
    b = (r * w[None, :]).reshape(-1)
    scale = np.max(np.linalg.norm(A, axis=0))
    if scale == 0:
        raise InputError("the motion does not load the last link at all")
    kept: list[int] = []
    Q = np.zeros((A.shape[0], 0))
    for j in range(10):
        col = A[:, j] - Q @ (Q.T @ A[:, j])
        col = col - Q @ (Q.T @ col)
        norm = float(np.linalg.norm(col))
        if norm > PAYLOAD_RANK_RTOL * scale:
            kept.append(j)
            Q = np.column_stack([Q, col / norm])
    x, *_ = scipy.linalg.lstsq(A[:, kept], b)
    dof = max(A.shape[0] - len(kept), 1)
    s2 = float(np.sum((b - A[:, kept] @ x) ** 2)) / dof
    cov = s2 * np.linalg.inv(A[:, kept].T @ A[:, kept])
    params = np.zeros(10)
    params[kept] = x
    std = np.zeros(10)
    std[kept] = np.sqrt(np.diag(cov))
    identified = np.zeros(10, dtype=bool)
    identified[kept] = True
    mass = float(params[0]) if identified[0] else float("nan")
    com = params[1:4] / params[0] if identified[0] and params[0] != 0 else np.full(3, np.nan)
    return PayloadEstimate(params, identified, std, mass, com)


__all__ = ["PayloadEstimate", "identify_payload", "payload_parameters", "with_payload"]
