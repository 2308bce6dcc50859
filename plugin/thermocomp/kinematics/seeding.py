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

A model with a closed-form IK (:mod:`thermocomp.kinematics.closed_form`: the
IRB140, the UR5) skips the search: all its branches are computed at once,
the in-limit one nearest the reference is kept and polished by Newton's
method; only targets the closed form leaves without a solution are searched.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from thermocomp._typing import ArrayLike, FloatArray
from thermocomp.geometry.vectors import row_max_abs, row_norms
from thermocomp.kinematics.closed_form import ClosedForm, closed_form
from thermocomp.kinematics.fk import fk_jacobian
from thermocomp.kinematics.ik import IKOptions, IKResult, Status, fit_limits, sigma_min_lower_bound, solve_ik
from thermocomp.kinematics.model import KinematicModel
from thermocomp.tolerances import BRANCH_JUMP, REFERENCE_ACCEPT

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
        With a closed form (:func:`~thermocomp.kinematics.closed_form.closed_form`
        of ``model``), its branches replace the starts; targets it leaves
        without a solution are still searched from the starts.
    """
    options = IKOptions() if options is None else options
    R_target = np.asarray(R_target, dtype=float)
    p_target = np.asarray(p_target, dtype=float)
    q_reference = np.asarray(q_reference, dtype=float)
    form = closed_form(model)
    if form is None:
        return _search(model, R_target, p_target, q_reference, starts, seed, options, accept)
    found, result = _solve_closed_form(form, R_target, p_target, q_reference, options, accept)
    rest = np.flatnonzero(~found)
    if rest.size:
        result = _merge(result, rest, _search(model, R_target[rest], p_target[rest], q_reference[rest], starts, seed,
                                              options, None if accept is None else _rows_of(accept, rest, q_reference)))
    return result


def _rows_of(accept: Callable[[FloatArray], np.ndarray], rows: np.ndarray, q_reference: FloatArray
             ) -> Callable[[FloatArray], np.ndarray]:
    """``accept`` (written for all ``m`` targets) for the targets ``rows`` only."""
    def accept_rows(q: FloatArray) -> np.ndarray:
        full = np.repeat(q_reference[:, None, :], q.shape[1], axis=1)
        full[rows] = q
        return accept(full)[rows]
    return accept_rows


def _solve_closed_form(form: ClosedForm, R_target: FloatArray, p_target: FloatArray, q_reference: FloatArray,
                       options: IKOptions, accept: Callable[[FloatArray], np.ndarray] | None
                       ) -> tuple[np.ndarray, IKResult]:
    """Per target, the closed-form branch nearest the reference, polished by Newton's method.

    Ranks the in-limit (and accepted) branches by joint distance to the
    reference; without an accept filter a branch outside the limits ranks
    after them (its polish reports :attr:`Status.JOINT_LIMIT`). Returns a
    boolean ``(m,)``, True where that gave a converged or joint-limit
    solution, and the result (rows where False are placeholders).
    """
    q, valid = form.branches(R_target, p_target, q_reference)
    exists = np.all(np.isfinite(q), axis=-1)
    if accept is not None:
        valid = valid & accept(np.where(exists[..., None], q, q_reference[:, None, :]))
    distance = row_norms(np.where(exists[..., None], q, 0.0) - q_reference[:, None, :])
    rank = np.where(valid, distance, np.inf)
    if accept is None:
        rank = np.where(exists & ~valid, 1e6 + distance, rank)
    m, n = q_reference.shape
    pick = np.argmin(rank, axis=1)
    has = np.flatnonzero(np.isfinite(rank[np.arange(m), pick]))
    result = IKResult(q=q_reference.copy(), status=np.full(m, Status.NOT_CONVERGED, dtype=np.int8),
                      position_error=np.full(m, np.inf), orientation_error=np.full(m, np.inf),
                      iterations=np.zeros(m, dtype=np.int64), sigma_min=np.full(m, np.nan))
    found = np.zeros(m, dtype=bool)
    if has.size:
        polished = solve_ik(form.model, R_target[has], p_target[has], q[has, pick[has]], options)
        result = _merge(result, has, polished)
        found[has] = np.isin(polished.status, (Status.CONVERGED, Status.JOINT_LIMIT))
    return found, result


def _search(model: KinematicModel, R_target: FloatArray, p_target: FloatArray, q_reference: FloatArray, starts: int,
            seed: int, options: IKOptions, accept: Callable[[FloatArray], np.ndarray] | None) -> IKResult:
    """The multi-start search of :func:`solve_multistart`."""
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
    distance = row_norms(q - q_reference[:, None, :])
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
    measure_singularity: bool = True,
) -> IKResult:
    """Per target, the solution nearest its reference configuration.

    One solve from the reference first; targets whose solution failed or
    moved more than :data:`REFERENCE_ACCEPT` from it go to
    :func:`solve_multistart` (the closed form's branches, where the model
    has one). Parameters and result as there; without ``measure_singularity``,
    ``sigma_min`` is NaN where the first solve kept its solution (as :func:`solve_ik`).
    """
    options = IKOptions() if options is None else options
    R_target = np.asarray(R_target, dtype=float)
    p_target = np.asarray(p_target, dtype=float)
    q_reference = np.asarray(q_reference, dtype=float)
    first = solve_ik(model, R_target, p_target, q_reference, options, measure_singularity=measure_singularity)
    near = row_max_abs(first.q - q_reference) <= REFERENCE_ACCEPT
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
    measure_singularity: bool = True,
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
    A pose that fails (out of reach) leaves the path where it was: the pose
    after it continues from the last pose that converged.

    With a closed form the continuation needs no solving: every branch of
    every pose is computed at once and each pose takes the branch nearest
    its predecessor's (:func:`_path_closed_form`).

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
    measure_singularity
        Fill ``sigma_min`` (else NaN where the closed form gave the pose): a caller that keeps only the joints
        and statuses (a robot program's nominal configurations) leaves out a Jacobian's singular values a pose.
    """
    options = IKOptions() if options is None else options
    R_target = np.asarray(R_target, dtype=float)
    p_target = np.asarray(p_target, dtype=float)
    form = closed_form(model)
    if form is not None:
        return _path_closed_form(form, R_target, p_target, np.asarray(q_start, dtype=float), starts, seed, options,
                                 measure_singularity)
    m = p_target.shape[0]
    n = model.chain.n_joints
    block = max(1, int(np.ceil(np.sqrt(m))))
    heads = np.arange(0, m, block)
    q = np.empty((m, n))
    result = IKResult(
        q=q, status=np.empty(m, dtype=np.int8), position_error=np.empty(m), orientation_error=np.empty(m),
        iterations=np.empty(m, dtype=np.int64), sigma_min=np.empty(m),
    )

    # per pose, the angles the pose after it continues from: its own when it converged, else those the pose before
    # it continued from (a pose out of reach does not move the path to another configuration)
    carry = np.empty((m, n))

    def step(index: np.ndarray, seeds: np.ndarray, near_seed: bool) -> None:
        part = solve_ik(model, R_target[index], p_target[index], seeds, options)
        bad = part.status != Status.CONVERGED
        if near_seed:  # neighbouring poses: a solution far from the seed is another branch
            bad |= row_max_abs(part.q - seeds) > REFERENCE_ACCEPT
        bad = np.flatnonzero(bad)
        if bad.size:
            searched = solve_nominal_configuration(model, R_target[index[bad]], p_target[index[bad]], seeds[bad],
                                                   starts=starts, seed=seed, options=options)
            part = _merge(part, bad, searched)
        for name in IKResult.__dataclass_fields__:
            getattr(result, name)[index] = getattr(part, name)
        carry[index] = np.where((part.status == Status.CONVERGED)[:, None], part.q, seeds)

    # 1. block heads, in order, each from the previous head (they are a block apart:
    #    no nearness test, the blocks' own continuity is checked in step 3)
    previous = np.asarray(q_start, dtype=float)
    for head in heads:
        step(np.array([head]), previous[None], near_seed=head == 0)
        previous = carry[head]
    # 2. all blocks advance together, one pose at a time
    for offset in range(1, block):
        index = heads + offset
        index = index[index < m]
        if index.size == 0:
            break
        step(index, carry[index - 1], near_seed=True)
    # 3. a head that landed on another branch than the end of the block before it:
    #    redo that block pose by pose from the previous block's last pose
    for b in range(1, heads.size):
        head = heads[b]
        if np.max(np.abs(carry[head] - carry[head - 1])) <= REFERENCE_ACCEPT:
            continue
        for pose in range(head, min(head + block, m)):
            step(np.array([pose]), carry[pose - 1][None], near_seed=True)
    return result


def _wrapped(d: FloatArray) -> FloatArray:
    """Angle differences brought into ``[-pi, pi]`` (by whole turns; ``%`` on floats costs several times more)."""
    return d - (2.0 * np.pi) * np.round(d * (0.5 / np.pi))


def _path_closed_form(form: ClosedForm, R_target: FloatArray, p_target: FloatArray, q_start: FloatArray,
                      starts: int, seed: int, options: IKOptions, measure_singularity: bool = True) -> IKResult:
    """:func:`solve_path` from the closed form: per pose the branch nearest the predecessor's, then Newton.

    Along a smooth path a branch follows itself: a pose keeps its
    predecessor's branch while that moved less than
    :data:`~thermocomp.tolerances.BRANCH_JUMP` (inside the limits), else
    takes the nearest of its branches (compiled, computing only the
    branches that choice looks at: :meth:`ClosedForm.follow`).
    The distance between branches of neighbouring poses is measured on
    angles modulo a turn, and the chosen angles are unwrapped along the path
    (a joint with more than a turn of range keeps going past +-180 degrees
    instead of jumping back), then shifted by whole turns into the limits
    where they left them. All poses are then polished together by Newton's
    method; poses without any branch, or whose polish failed, are continued
    from their predecessor by :func:`solve_nominal_configuration`.
    """
    chain = form.model.chain
    # a branch outside the limits ranks after every branch inside (1e6); zeros where no branch exists
    q_path, penalty = form.follow(R_target, p_target, q_start, BRANCH_JUMP, 1e6)
    # a pose out of reach (no branch) holds the angles of the last pose in reach, so the unwrapping goes on from it
    # (a path wholly in reach holds none: not copied)
    out_of_reach = ~np.isfinite(penalty)
    if out_of_reach.any():
        reached = np.where(out_of_reach, -1, np.arange(len(penalty)))
        np.maximum.accumulate(reached, out=reached)
        q_path = np.where((reached >= 0)[:, None], q_path[np.maximum(reached, 0)], q_start)
    # unwrap along the path from q_start, then back into the limits where needed
    steps = _wrapped(np.diff(np.vstack([q_start[None], q_path]), axis=0))
    unwrapped = q_start + np.cumsum(steps, axis=0)
    q_path, _ = fit_limits(unwrapped, chain.lower, chain.upper, unwrapped)
    result = solve_ik(form.model, R_target, p_target, q_path, options, measure_singularity=measure_singularity)
    bad = np.flatnonzero(out_of_reach | (result.status != Status.CONVERGED))
    for pose in bad.tolist():  # rare: out of reach, or at a singularity the closed form lost digits at
        # from the pose before, or where the path held (the angles it followed) when that one failed too
        before = q_start if pose == 0 else result.q[pose - 1] if result.status[pose - 1] == Status.CONVERGED \
            else q_path[pose - 1]
        part = solve_nominal_configuration(form.model, R_target[pose:pose + 1], p_target[pose:pose + 1],
                                           before[None], starts=starts, seed=seed, options=options)
        result = _merge(result, np.array([pose]), part)
    return result

