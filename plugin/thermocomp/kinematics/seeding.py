"""Seeds that choose a configuration: multi-start IK on the nominal robot.

A local solver lands on whichever configuration (shoulder, elbow, wrist
branch) its seed leads to. For the first minute of a program each target
needs a seed on the branch the program means: its reference joint vector
when the program has one, otherwise the solution closest to the robot's home
configuration. This module solves the nominal robot from many starts at once
(the reference or home, then a deterministic spread over the joint ranges)
and keeps, per target, the converged in-limit solution nearest the
reference.
"""

from __future__ import annotations

import numpy as np

from thermocomp._typing import ArrayLike, FloatArray
from thermocomp.kinematics.fk import fk_jacobian
from thermocomp.kinematics.ik import IKOptions, IKResult, Status, sigma_min_lower_bound, solve_ik
from thermocomp.kinematics.model import KinematicModel

#: Starts per target besides the reference; enough to find every branch of a
#: 6R arm (at most 16) on the paper's targets and random reachable poses.
DEFAULT_STARTS = 48


def spread_starts(lower: FloatArray, upper: FloatArray, count: int, rng: np.random.Generator) -> FloatArray:
    """``count`` joint vectors ``(count, n)`` spread over the limits (clipped to +-pi).

    Latin-hypercube sampling: each joint's range is cut in ``count`` strata
    and every stratum is used once, so few starts still cover every branch.
    """
    lo = np.maximum(lower, -np.pi)
    hi = np.minimum(upper, np.pi)
    n = lo.shape[0]
    strata = np.stack([rng.permutation(count) for _ in range(n)], axis=1)
    u = (strata + rng.random((count, n))) / count
    return lo + u * (hi - lo)


def solve_nominal_configuration(
    model: KinematicModel,
    R_target: ArrayLike,
    p_target: ArrayLike,
    q_reference: ArrayLike,
    *,
    starts: int = DEFAULT_STARTS,
    seed: int = 0,
    options: IKOptions = IKOptions(),
) -> IKResult:
    """Solve each target from many starts; keep the solution nearest its reference.

    Parameters
    ----------
    model
        Kinematic model without batch shape (usually the nominal robot).
    R_target, p_target
        Targets in the world frame, ``(m, 3, 3)`` and ``(m, 3)`` [m].
    q_reference
        Preferred configuration per target in controller angles [rad],
        ``(m, n)``: the program's joint vector, or the home configuration.
    starts
        Extra starts per target besides the reference itself.
    seed
        Seed of the deterministic start spread.
    options
        Solver settings.

    Returns
    -------
    IKResult
        Per target, the converged in-limit solution nearest the reference
        (weighted joint distance); else the best failed attempt with its status.
    """
    R_target = np.asarray(R_target, dtype=float)
    p_target = np.asarray(p_target, dtype=float)
    q_reference = np.asarray(q_reference, dtype=float)
    m, n = q_reference.shape
    chain = model.chain
    rng = np.random.default_rng(seed)
    spread = spread_starts(chain.lower, chain.upper, starts, rng)
    seeds = np.concatenate([q_reference[:, None, :], np.broadcast_to(spread, (m, starts, n))], axis=1)
    k = starts + 1
    flat = solve_ik(
        model,
        np.repeat(R_target, k, axis=0),
        np.repeat(p_target, k, axis=0),
        seeds.reshape(m * k, n),
        options,
        measure_singularity=False,
    )
    q = flat.q.reshape(m, k, n)
    status = flat.status.reshape(m, k)
    ok = status == Status.CONVERGED
    distance = np.linalg.norm(q - q_reference[:, None, :], axis=2)
    # Failed attempts rank after every success, the least wrong first.
    residual = (flat.position_error + flat.orientation_error).reshape(m, k)
    rank = np.where(ok, distance, 1e6 + status * 1e3 + np.minimum(residual, 1e2))
    pick = np.argmin(rank, axis=1)
    flat_index = np.arange(m) * k + pick
    q_pick = q[np.arange(m), pick]
    _, _, J = fk_jacobian(model, q_pick)
    return IKResult(
        q=q_pick,
        status=flat.status[flat_index],
        position_error=flat.position_error[flat_index],
        orientation_error=flat.orientation_error[flat_index],
        iterations=flat.iterations[flat_index],
        sigma_min=sigma_min_lower_bound(J),
    )
