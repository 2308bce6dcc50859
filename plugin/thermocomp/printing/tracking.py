"""Tracking a joint reference with the simulated servo, and the print error (seed 004, Section 6-4).

The error is the print's: where the drop lands on a flat surface parallel to the head at ``standoff`` below
the nozzle (Section 6-4: "the object is flat and parallel to the print head"), against where it should land,
in the reference head's x and y axes. The robot's true joint angles through the true robot's kinematics
(the warm robot's, for the thermal link) give the actual head. Accuracy is ERMS (Eq. 6-17) per run, averaged
over runs; repeatability sigma (Eqs. 6-18, 6-19) the per-sample spread over runs, averaged along the path.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from thermocomp._typing import FloatArray
from thermocomp.errors import ConfigurationError
from thermocomp.printing.identification import ServoModels
from thermocomp.printing.mpc import JointMPC, MPCOptions
from thermocomp.printing.pid import JointPID, PIDOptions

#: The controllers ``servo track`` runs.
CONTROLLERS = ("mpc-iio", "mpc-io", "pid", "none")


@dataclass(frozen=True)
class TrackingResult:
    """Runs of one controller on one reference.

    Attributes
    ----------
    errors
        Print error [m], ``(runs, N, 2)``: along the reference head's x and y.
    erms
        Eq. 6-17 [m], mean over runs.
    sigma_x, sigma_y, sigma
        Eqs. 6-18, 6-19 [m] (0 for a single run).
    """

    errors: FloatArray

    @property
    def erms(self) -> float:
        return float(np.mean(np.sqrt(np.mean(np.sum(self.errors**2, axis=2), axis=1))))

    @property
    def sigma_x(self) -> float:
        return float(np.mean(np.std(self.errors[:, :, 0], axis=0)))

    @property
    def sigma_y(self) -> float:
        return float(np.mean(np.std(self.errors[:, :, 1], axis=0)))

    @property
    def sigma(self) -> float:
        return float(np.hypot(self.sigma_x, self.sigma_y))


def print_error(model, q: FloatArray, R_ref: FloatArray, p_ref: FloatArray, standoff: float) -> FloatArray:
    """Where the drop lands against where it should [m], ``(N, 2)`` in the reference head's x, y (module docstring).

    ``model`` the true robot; ``q`` its true joint angles [rad] ``(N, n)``; ``R_ref`` ``(N, 3, 3)``, ``p_ref``
    ``(N, 3)`` [m] the reference head; ``standoff`` [m] >= 0.
    """
    from thermocomp.kinematics.fk import fk

    R, p = fk(model, q)
    z_ref = R_ref[:, :, 2]
    z = R[:, :, 2]
    target = p_ref + standoff * z_ref
    reach = np.einsum("ij,ij->i", target - p, z_ref) / np.einsum("ij,ij->i", z, z_ref)
    hit = p + reach[:, None] * z
    d = hit - target
    return np.stack([np.einsum("ij,ij->i", d, R_ref[:, :, 0]), np.einsum("ij,ij->i", d, R_ref[:, :, 1])], axis=1)


def _preview(q_ref: FloatArray, qd_ref: FloatArray, start: int, horizon: int) -> FloatArray:
    """References ``[q, qd]`` of one joint for samples ``start .. start + horizon - 1``, held at the end, ``(horizon, 2)``."""
    idx = np.minimum(np.arange(start, start + horizon), q_ref.size - 1)
    return np.stack([q_ref[idx], qd_ref[idx]], axis=1)


def track_once(sim, controller: str, models: ServoModels, q_ref: FloatArray, qd_ref: FloatArray,
               mpc: MPCOptions | None = None, pid: PIDOptions | None = None,
               step: Callable[[], None] | None = None) -> FloatArray:
    """Run one controller on the servo ``sim`` (at rest at ``q_ref[0]``); return the true joint angles ``(N, n)`` [rad].

    ``controller`` one of :data:`CONTROLLERS`; ``q_ref`` ``(N, n)`` [rad], ``qd_ref`` ``(N, n)`` [rad/s];
    ``step()``, if given, is called after each sample (a progress count).
    """
    if controller not in CONTROLLERS:
        raise ConfigurationError(f"--controller: expected one of {', '.join(CONTROLLERS)}, got {controller!r}")
    N, n = q_ref.shape
    T = 1.0 / models.rate_hz
    d = models.delay_samples
    limit = sim.chain.velocity
    if controller.startswith("mpc"):
        base = MPCOptions() if mpc is None else mpc
        options = replace(base, form=controller[4:])
        joints = [JointMPC(models.joints[j], d, float(limit[j]), float(q_ref[0, j]), options) for j in range(n)]
    elif controller == "pid":
        joints = [JointPID(T, float(limit[j]), pid) for j in range(n)]
    q_true = np.empty((N, n))
    u = np.zeros(n)
    for k in range(N):
        q, qd = sim.measure()
        q_true[k] = sim.true_state()[0]
        if controller == "none":
            u = np.clip(qd_ref[k], -limit, limit)
        elif controller == "pid":
            u = np.array([joints[j].command(q[j], qd[j], q_ref[k, j], qd_ref[k, j]) for j in range(n)])
        else:
            u = np.array([joints[j].command((q[j], qd[j]), _preview(q_ref[:, j], qd_ref[:, j], k + d + 1,
                                                                     joints[j].options.horizon)) for j in range(n)])
        sim.step(u)
        if step is not None:
            step()
    return q_true


def track(open_sim: Callable[[int], object], controller: str, models: ServoModels, q_ref: FloatArray,
          qd_ref: FloatArray, runs: int, error_of: Callable[[FloatArray], FloatArray],
          mpc: MPCOptions | None = None, pid: PIDOptions | None = None,
          step: Callable[[], None] | None = None) -> TrackingResult:
    """``runs`` runs of ``controller``; ``open_sim(run)`` opens a fresh servo (its own noise), ``error_of(q_true)``
    gives the print error ``(N, 2)`` [m] of a run; ``step`` as :func:`track_once`'s."""
    if not (isinstance(runs, int) and runs >= 1):
        raise ConfigurationError(f"--runs: expected an integer >= 1, got {runs!r}")
    errors = []
    for run in range(runs):
        with open_sim(run) as sim:
            errors.append(error_of(track_once(sim, controller, models, q_ref, qd_ref, mpc, pid, step)))
    return TrackingResult(np.array(errors))
