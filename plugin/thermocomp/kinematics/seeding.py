"""Seeds that choose a configuration: IK on the nominal robot from references, many starts, or along a path.

A local solver lands on whichever configuration (shoulder, elbow, wrist
branch) its seed leads to. For the first minute of a program each target
needs a seed on the branch the program means: its reference joint vector
when the program has one, otherwise the solution closest to the robot's home
configuration. This module solves the nominal robot from many starts at once
(the reference or home, then a deterministic spread over the joint ranges)
and keeps, per target, the converged in-limit solution nearest the
reference. A solve started at the reference that stays within
:data:`~thermocomp.tolerances.REFERENCE_ACCEPT` of it is kept without the
search. A path (a toolpath with time stamps) is continued instead: every
pose starts from the solution of the pose before it (:func:`solve_path`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from thermocomp._typing import ArrayLike, FloatArray
from thermocomp.kinematics.fk import fk_jacobian
from thermocomp.kinematics.ik import IKOptions, IKResult, Status, sigma_min_lower_bound, solve_ik
from thermocomp.kinematics.model import KinematicModel
from thermocomp.tolerances import REFERENCE_ACCEPT

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


def solve_multistart(
    model: KinematicModel,
    R_target: ArrayLike,
    p_target: ArrayLike,
    q_reference: ArrayLike,
    *,
    starts: int = DEFAULT_STARTS,
    seed: int = 0,
    options: IKOptions | None = None,
    accept: Callable[[FloatArray], np.ndarray] | None = None,
) -> IKResult:
    """Solve each target from its reference and many spread starts; keep the solution nearest the reference.

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
    accept
        Optional filter: given candidate solutions ``(m, k, n)``, True where a
        candidate is in the configuration the target asks for, ``(m, k)``.
        Targets with converged candidates but none accepted get
        :attr:`Status.CONFIGURATION_NOT_FOUND`.

    Returns
    -------
    IKResult
        Per target, the converged in-limit solution nearest the reference
        (joint distance); else the best failed attempt with its status.
    """
    options = IKOptions() if options is None else options
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
    wrong_configuration = np.zeros(m, dtype=bool)
    if accept is not None:
        accepted = ok & accept(q)
        wrong_configuration = np.any(ok, axis=1) & ~np.any(accepted, axis=1)
        ok = accepted
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
        status=np.where(wrong_configuration, np.int8(Status.CONFIGURATION_NOT_FOUND), flat.status[flat_index]).astype(np.int8),
        position_error=flat.position_error[flat_index],
        orientation_error=flat.orientation_error[flat_index],
        iterations=flat.iterations[flat_index],
        sigma_min=sigma_min_lower_bound(J),
    )


def _merge(base: IKResult, index: np.ndarray, part: IKResult) -> IKResult:
    fields = {name: getattr(base, name).copy() for name in IKResult.__dataclass_fields__}
    for name in fields:
        fields[name][index] = getattr(part, name)
    return IKResult(**fields)


def solve_nominal_configuration(
    model: KinematicModel,
    R_target: ArrayLike,
    p_target: ArrayLike,
    q_reference: ArrayLike,
    *,
    starts: int = DEFAULT_STARTS,
    seed: int = 0,
    options: IKOptions | None = None,
) -> IKResult:
    """Per target, the solution nearest its reference configuration.

    One solve from the reference first; targets whose solution failed or
    moved more than :data:`REFERENCE_ACCEPT` from it go to
    :func:`solve_multistart`. Parameters and result as there.
    """
    options = IKOptions() if options is None else options
    R_target = np.asarray(R_target, dtype=float)
    p_target = np.asarray(p_target, dtype=float)
    q_reference = np.asarray(q_reference, dtype=float)
    first = solve_ik(model, R_target, p_target, q_reference, options)
    near = np.max(np.abs(first.q - q_reference), axis=1) <= REFERENCE_ACCEPT
    retry = np.flatnonzero((first.status != Status.CONVERGED) | ~near)
    if retry.size == 0:
        return first
    searched = solve_multistart(model, R_target[retry], p_target[retry], q_reference[retry],
                                starts=starts, seed=seed, options=options)
    return _merge(first, retry, searched)


def solve_path(
    model: KinematicModel,
    R_target: ArrayLike,
    p_target: ArrayLike,
    q_start: ArrayLike,
    *,
    starts: int = DEFAULT_STARTS,
    seed: int = 0,
    options: IKOptions | None = None,
) -> IKResult:
    """Nominal IK along a path: every pose continues from the solution of the pose before.

    The path of ``m`` poses is cut into about ``sqrt(m)`` blocks. The first
    pose of each block is solved in order, each from the previous block's
    first pose (the first from ``q_start``); then the blocks advance together,
    one pose at a time, each pose seeded with its predecessor's solution. So
    the configuration carries along the path while the work is batched. A
    pose whose continuation fails, or lands more than
    :data:`REFERENCE_ACCEPT` from its predecessor, is searched from many
    starts, nearest its predecessor's solution. A block whose first pose
    ended on another branch than the block before it is redone pose by pose.

    Parameters
    ----------
    model
        Kinematic model without batch shape.
    R_target, p_target
        The path's poses in the world frame, in path order, ``(m, 3, 3)`` and ``(m, 3)`` [m].
    q_start
        Configuration before the first pose (controller angles [rad], ``(n,)``):
        the end of the previous chunk, or a solution chosen for the first pose.
    starts, seed, options
        As :func:`solve_multistart`, for poses whose continuation fails.
    """
    options = IKOptions() if options is None else options
    R_target = np.asarray(R_target, dtype=float)
    p_target = np.asarray(p_target, dtype=float)
    m = p_target.shape[0]
    n = model.chain.n_joints
    block = max(1, int(np.ceil(np.sqrt(m))))
    heads = np.arange(0, m, block)
    q = np.empty((m, n))
    result = IKResult(
        q=q, status=np.empty(m, dtype=np.int8), position_error=np.empty(m), orientation_error=np.empty(m),
        iterations=np.empty(m, dtype=np.int64), sigma_min=np.empty(m),
    )

    def step(index: np.ndarray, seeds: np.ndarray, near_seed: bool) -> None:
        part = solve_ik(model, R_target[index], p_target[index], seeds, options)
        bad = part.status != Status.CONVERGED
        if near_seed:  # neighbouring poses: a solution far from the seed is another branch
            bad |= np.max(np.abs(part.q - seeds), axis=1) > REFERENCE_ACCEPT
        bad = np.flatnonzero(bad)
        if bad.size:
            searched = solve_nominal_configuration(model, R_target[index[bad]], p_target[index[bad]], seeds[bad],
                                                   starts=starts, seed=seed, options=options)
            part = _merge(part, bad, searched)
        for name in IKResult.__dataclass_fields__:
            getattr(result, name)[index] = getattr(part, name)

    # 1. block heads, in order, each from the previous head (they are a block apart:
    #    no nearness test, the blocks' own continuity is checked in step 3)
    previous = np.asarray(q_start, dtype=float)
    for head in heads:
        step(np.array([head]), previous[None], near_seed=head == 0)
        previous = q[head]
    # 2. all blocks advance together, one pose at a time
    for offset in range(1, block):
        index = heads + offset
        index = index[index < m]
        if index.size == 0:
            break
        step(index, q[index - 1], near_seed=True)
    # 3. a head that landed on another branch than the end of the block before it:
    #    redo that block pose by pose from the previous block's last pose
    for b in range(1, heads.size):
        head = heads[b]
        if np.max(np.abs(q[head] - q[head - 1])) <= REFERENCE_ACCEPT:
            continue
        for pose in range(head, min(head + block, m)):
            step(np.array([pose]), q[pose - 1][None], near_seed=True)
    return result
