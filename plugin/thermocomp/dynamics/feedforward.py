"""Feed-forward torques of a joint trajectory with an identified model (seed 003: softMC's additive torque command).

softMC's inverse dynamic model computes, for every set point of a motion,
the joint torque it takes and sends it to the drives as an additive torque
command (``Taddcmd``): the rigid-body torques of the identified inertials
plus friction. Here the same for a trajectory ``q(t)`` (e.g. a compensated
program played at its timing): speeds and accelerations by central
differences unless given.

Pure core.
"""

from __future__ import annotations

import numpy as np

from thermocomp._typing import ArrayLike
from thermocomp.dynamics.filtering import differentiate, sample_rate
from thermocomp.dynamics.friction import FrictionTable
from thermocomp.dynamics.regressor import regressor
from thermocomp.inertia.gravity import STANDARD_GRAVITY
from thermocomp.io.recording_csv import Recording
from thermocomp.robot.chain import Chain


def feedforward_torques(chain: Chain, parameters: ArrayLike, friction: FrictionTable | None, trajectory: Recording, *,
                        gravity: ArrayLike = STANDARD_GRAVITY) -> Recording:
    """``tau_ff = Y(q, qd, qdd) pi + tau_f(qd) + armature qdd`` ``(N, n)`` [N m] along ``trajectory`` (its ``tau`` is ignored).

    Returns the trajectory with ``tau`` the feed-forward torques and the speeds and accelerations used.
    """
    q = trajectory.q
    if trajectory.qd is not None and trajectory.qdd is not None:
        qd, qdd = trajectory.qd, trajectory.qdd
    else:
        rate = sample_rate(trajectory.time, trajectory.source or None)
        qd = differentiate(q, rate)
        qdd = differentiate(qd, rate)
    tau = regressor(chain, q, qd, qdd, gravity=gravity) @ np.asarray(parameters, dtype=float)
    if friction is not None:
        tau = tau + friction.drive_torque(qd, qdd)
    return Recording(time=trajectory.time, q=q, tau=tau, qd=qd, qdd=qdd, source=trajectory.source)


__all__ = ["feedforward_torques"]
