"""The compiled kinematics engine: every per-row loop of the kinematics, in one module (numba).

What it computes, row by row of a batch: the forward kinematics with its
geometric Jacobian (seed 002, Eqs. 18-22), the damped Gauss-Newton iteration
of :func:`thermocomp.kinematics.ik.solve_ik` with its 6x6 solve, the closed
forms of :mod:`thermocomp.kinematics.closed_form` with the path's branch
choice, and the frames of a robot deformed row by row
(:func:`thermocomp.deformation.deformed_model`). Each is a loop of small
linear algebra that numpy can only express through large temporaries; here
a row keeps its 3x3 and 6x6 arrays in registers.

How it is called: the numpy forms beside it are the reference
(:func:`thermocomp.kinematics.fk._walk`, the numpy iteration of
:func:`~thermocomp.kinematics.ik.solve_ik`, :func:`thermocomp.kinematics.closed_form._opw`
and ``_ur``, the numpy branch of :func:`~thermocomp.deformation.deformed_model`)
and the tests' oracle; :func:`thermocomp.kinematics.dispatch.runs_compiled`
decides when this module runs instead. The robot is passed as one object,
:class:`EngineModel` (built once per model by :func:`engine_model`).

Who calls it: :mod:`~thermocomp.kinematics.fk`, :mod:`~thermocomp.kinematics.ik`,
:mod:`~thermocomp.kinematics.closed_form` and :mod:`thermocomp.deformation.apply`, no other module; the
size rule is :mod:`thermocomp.kinematics.dispatch`'s alone.

Compilation: every entry point has one explicit signature (C-contiguous
float64 arrays, int64 indices) and is compiled, or loaded from numba's disk
cache (:mod:`thermocomp.compiled`), on its first call (``lazy=True``: a
command loads only the entry points it runs); ``make install`` compiles them
all, and no later call compiles. Rows are copied
element by element, not by slice assignment: numba's array-to-array
assignment brings about 5 s of CPU of its own library code into that
compile.

Rows are independent: :func:`run_blocks` runs blocks of them on threads (the
loops release the GIL), and a row's result does not depend on the blocks.
"""

from __future__ import annotations

import math
import os
from concurrent.futures import ThreadPoolExecutor
from typing import NamedTuple

import numpy as np
from numba import types

from thermocomp.compiled import njit
from thermocomp.tolerances import SETTLED_SIGMA

#: Branches of a 6R closed-form pose (shoulder x elbow x wrist).
N_BRANCHES = 8
#: ``|x| <= 1 + ACOS_SLOP`` still has an arc cosine (clipped): round-off of a stretched arm.
ACOS_SLOP = 1e-12


class EngineModel(NamedTuple):
    """A :class:`~thermocomp.kinematics.model.KinematicModel` as the compiled loops take it.

    Frames carry a leading batch dimension: 1 (one robot for every row) or
    ``m`` (one robot per row). ``principal[k]`` is the index of joint ``k``'s
    axis when that axis is ``principal_sign[k] * e_index``, else -1.
    """

    R_base: np.ndarray  # (b, 3, 3)
    p_base: np.ndarray  # (b, 3)
    R_joint: np.ndarray  # (b, n, 3, 3)
    p_joint: np.ndarray  # (b, n, 3)
    R_tool: np.ndarray  # (b, 3, 3)
    p_tool: np.ndarray  # (b, 3)
    axis: np.ndarray  # (n, 3)
    principal: np.ndarray  # (n,) int64
    principal_sign: np.ndarray  # (n,)
    sign: np.ndarray  # (n,)
    offset: np.ndarray  # (n,)
    nominal: bool  # R_joint are identities (skipped)


class NewtonSettings(NamedTuple):
    """The settings of :func:`newton_block`, as :class:`~thermocomp.kinematics.ik.IKOptions` and ik's constants."""

    position_tol: float
    orientation_tol: float
    max_iterations: int
    lm_floor: float
    max_step: float
    stall_iterations: int


_F = types.float64
_I = types.int64
_B = types.boolean
F1, F2, F3, F4 = (types.Array(_F, d, "C") for d in (1, 2, 3, 4))
I1 = types.Array(_I, 1, "C")
B2 = types.Array(_B, 2, "C")
MODEL = types.NamedTuple((F3, F2, F4, F3, F3, F2, F2, I1, F1, F1, F1, _B), EngineModel)
SETTINGS = types.NamedTuple((_F, _F, _I, _F, _F, _I), NewtonSettings)


def engine_model(model) -> EngineModel:
    """``model`` (a :class:`~thermocomp.kinematics.model.KinematicModel` of batch shape ``()`` or ``(m,)``) as
    :class:`EngineModel`; built once and kept on the model (models are immutable)."""
    cached = model.__dict__.get("_engine_model")
    if cached is not None:
        return cached
    chain = model.chain
    n = chain.n_joints
    lead = model.batch_shape != ()

    def batch(a: np.ndarray, dims: int) -> np.ndarray:
        a = c_array(a)
        return a if lead else c_array(a.reshape((1,) + a.shape[-dims:]))

    k = np.argmax(np.abs(chain.axis), axis=1)
    along = np.abs(chain.axis[np.arange(n), k]) == 1.0
    built = EngineModel(
        batch(model.R_base, 2), batch(model.p_base, 1), batch(model.R_joint, 3), batch(model.p_joint, 2),
        batch(model.R_tool, 2), batch(model.p_tool, 1), c_array(chain.axis),
        c_array(np.where(along, k, -1), np.int64), c_array(np.where(along, chain.axis[np.arange(n), k], 1.0)),
        c_array(chain.sign), c_array(chain.offset), bool(model.nominal_rotations))
    object.__setattr__(model, "_engine_model", built)
    return built


def c_array(a, dtype=np.float64) -> np.ndarray:
    """``a`` as the loops take it: C-contiguous, writable, of ``dtype`` (a copy only when it is not already)."""
    return np.require(a, dtype=dtype, requirements=["C", "W"])


# -- the worker threads ---------------------------------------------------------------------------------------

#: Rows of one block at least: fewer rows run in one block on the calling thread.
BLOCK_MIN_ROWS = 256
_POOL: list[ThreadPoolExecutor] = []


def _threads() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))


def run_pieces(task, count: int) -> None:
    """``task(i)`` for ``i`` in ``0..count-1``, on as many threads as the process may use, the calling thread one
    of them (all on it when there is one piece or one thread).

    Each thread takes the next piece not taken yet until none is left: one
    hand-over to each helper thread a call, however many pieces (the
    pieces' costs vary, so none waits while another has several left).
    """
    helpers = min(_threads(), count) - 1
    if helpers <= 0:
        for i in range(count):
            task(i)
        return
    if not _POOL:
        _POOL.append(ThreadPoolExecutor(_threads() - 1, thread_name_prefix="thermocomp-engine"))
    pieces = iter(range(count))  # (next() of a range iterator is one step under the interpreter lock)

    def work() -> None:
        for i in pieces:
            task(i)

    futures = [_POOL[0].submit(work) for _ in range(helpers)]
    try:
        work()
    finally:
        for future in futures:
            future.result()


def run_blocks(loop, m: int, *args) -> None:
    """``loop(*args, start, stop)`` over the rows ``0..m-1`` in blocks of at least :data:`BLOCK_MIN_ROWS` rows,
    4 a thread (for balance: a row's cost varies), by :func:`run_pieces`; a row's result does not depend on the
    blocks."""
    blocks = min(4 * _threads(), max(1, m // BLOCK_MIN_ROWS))
    run_pieces(lambda i: loop(*args, i * m // blocks, (i + 1) * m // blocks), blocks)


# -- forward kinematics of one row ----------------------------------------------------------------------------


@njit(inline="always")
def _walk(R_base, p_base, R_joint, p_joint, R_tool, p_tool, axis, principal, principal_sign, sign, offset, nominal,
          b, q, R, p, origins, axes, tmp, lever_sum):
    """TCP pose ``R``, ``p`` of robot ``b`` at ``q`` ``(n,)`` and the joints' world ``origins`` and ``axes``
    ``(n, 3)`` (as :func:`thermocomp.kinematics.fk._walk`): the one walk of every entry point.

    Written out in one body: a helper called per joint with arrays (even
    inlined) makes numba update their reference counts, atomically, at every
    call (measured: FK 1.6 to 1.9 times slower, Newton 1.4 to 2 times).
    Joint ``k`` turns only two columns of ``R`` when its axis is a principal
    one (``principal[k] >= 0``, as :func:`thermocomp.kinematics.fk._rotate_about`),
    else ``R @ Rot(axis, theta)`` (Rodrigues); ``R_joint`` is skipped on a
    nominal model. ``tmp`` ``(3, 3)``: scratch. The tool's lever ``R p_tool``
    is added to ``p`` as one sum with ``lever_sum`` (the Jacobian's walk), else
    term by term (the pose alone): each as it always was, to the last bit.
    """
    n = q.shape[0]
    for i in range(3):
        p[i] = p_base[b, i]
        for j in range(3):
            R[i, j] = R_base[b, i, j]
    for k in range(n):
        for i in range(3):
            p[i] += R[i, 0] * p_joint[b, k, 0] + R[i, 1] * p_joint[b, k, 1] + R[i, 2] * p_joint[b, k, 2]
        if not nominal:
            for i in range(3):
                for j in range(3):
                    tmp[i, j] = (R[i, 0] * R_joint[b, k, 0, j] + R[i, 1] * R_joint[b, k, 1, j]
                                 + R[i, 2] * R_joint[b, k, 2, j])
            for i in range(3):
                for j in range(3):
                    R[i, j] = tmp[i, j]
        for i in range(3):
            origins[k, i] = p[i]
            axes[k, i] = R[i, 0] * axis[k, 0] + R[i, 1] * axis[k, 1] + R[i, 2] * axis[k, 2]
        theta = sign[k] * q[k] + offset[k]
        if principal[k] >= 0:
            kk = principal[k]
            i1, j1 = (kk + 1) % 3, (kk + 2) % 3
            st, ct = principal_sign[k] * math.sin(theta), math.cos(theta)
            for i in range(3):
                a, c = R[i, i1], R[i, j1]
                R[i, i1] = ct * a + st * c
                R[i, j1] = ct * c - st * a
        else:
            x, y, z = axis[k, 0], axis[k, 1], axis[k, 2]
            s, c = math.sin(theta), math.cos(theta)
            t = 1.0 - c
            r00, r01, r02 = c + t * x * x, t * x * y - s * z, t * x * z + s * y
            r10, r11, r12 = t * x * y + s * z, c + t * y * y, t * y * z - s * x
            r20, r21, r22 = t * x * z - s * y, t * y * z + s * x, c + t * z * z
            for i in range(3):
                a0, a1, a2 = R[i, 0], R[i, 1], R[i, 2]
                R[i, 0] = a0 * r00 + a1 * r10 + a2 * r20
                R[i, 1] = a0 * r01 + a1 * r11 + a2 * r21
                R[i, 2] = a0 * r02 + a1 * r12 + a2 * r22
    for i in range(3):
        if lever_sum:
            p[i] += R[i, 0] * p_tool[b, 0] + R[i, 1] * p_tool[b, 1] + R[i, 2] * p_tool[b, 2]
        else:
            p[i] = p[i] + R[i, 0] * p_tool[b, 0] + R[i, 1] * p_tool[b, 1] + R[i, 2] * p_tool[b, 2]
    for i in range(3):
        a0, a1, a2 = R[i, 0], R[i, 1], R[i, 2]
        for j in range(3):
            R[i, j] = a0 * R_tool[b, 0, j] + a1 * R_tool[b, 1, j] + a2 * R_tool[b, 2, j]


@njit(inline="always")
def _jacobian(p, origins, axes, sign, J):
    """The geometric Jacobian ``J`` ``(6, n)`` of the TCP at ``p`` from :func:`_walk`'s ``origins`` and ``axes``
    (as :func:`thermocomp.kinematics.fk.fk_jacobian`)."""
    for k in range(origins.shape[0]):
        dx, dy, dz = p[0] - origins[k, 0], p[1] - origins[k, 1], p[2] - origins[k, 2]
        ax, ay, az = axes[k, 0], axes[k, 1], axes[k, 2]
        J[0, k] = (ay * dz - az * dy) * sign[k]
        J[1, k] = (az * dx - ax * dz) * sign[k]
        J[2, k] = (ax * dy - ay * dx) * sign[k]
        J[3, k] = ax * sign[k]
        J[4, k] = ay * sign[k]
        J[5, k] = az * sign[k]


@njit((MODEL, F2, F3, F2, _I, _I), nogil=True, lazy=True)
def fk_block(M, q, R_out, p_out, start, stop):
    """TCP pose of rows ``start:stop`` of ``q`` ``(m, n)`` into ``R_out`` ``(m, 3, 3)``, ``p_out`` ``(m, 3)``."""
    n = q.shape[1]
    R_base, p_base, R_joint, p_joint, R_tool, p_tool, axis, principal, principal_sign, sign, offset, nominal = M
    per_row = p_joint.shape[0] > 1
    origins = np.empty((n, 3))
    axes = np.empty((n, 3))
    tmp = np.empty((3, 3))
    for r in range(start, stop):
        _walk(R_base, p_base, R_joint, p_joint, R_tool, p_tool, axis, principal, principal_sign, sign, offset,
              nominal, r if per_row else 0, q[r], R_out[r], p_out[r], origins, axes, tmp, False)


@njit((MODEL, F2, F3, F2, F3, _I, _I), nogil=True, lazy=True)
def fk_jacobian_block(M, q, R_out, p_out, J_out, start, stop):
    """TCP pose and geometric Jacobian of rows ``start:stop`` of ``q`` ``(m, n)``: ``R_out`` ``(m, 3, 3)``,
    ``p_out`` ``(m, 3)``, ``J_out`` ``(m, 6, n)``."""
    n = q.shape[1]
    R_base, p_base, R_joint, p_joint, R_tool, p_tool, axis, principal, principal_sign, sign, offset, nominal = M
    per_row = p_joint.shape[0] > 1
    origins = np.empty((n, 3))
    axes = np.empty((n, 3))
    tmp = np.empty((3, 3))
    for r in range(start, stop):
        _walk(R_base, p_base, R_joint, p_joint, R_tool, p_tool, axis, principal, principal_sign, sign, offset,
              nominal, r if per_row else 0, q[r], R_out[r], p_out[r], origins, axes, tmp, True)
        _jacobian(p_out[r], origins, axes, sign, J_out[r])


@njit((MODEL, F2, F3, F3, _I, _I), nogil=True, lazy=True)
def joint_frames_block(M, q, origins_out, axes_out, start, stop):
    """World origin and axis of every joint of rows ``start:stop`` of ``q`` ``(m, n)``: ``origins_out`` and
    ``axes_out`` ``(m, n, 3)``, as :func:`thermocomp.kinematics.fk.joint_frames`."""
    R_base, p_base, R_joint, p_joint, R_tool, p_tool, axis, principal, principal_sign, sign, offset, nominal = M
    per_row = p_joint.shape[0] > 1
    R = np.empty((3, 3))
    p = np.empty(3)
    tmp = np.empty((3, 3))
    for r in range(start, stop):
        _walk(R_base, p_base, R_joint, p_joint, R_tool, p_tool, axis, principal, principal_sign, sign, offset,
              nominal, r if per_row else 0, q[r], R, p, origins_out[r], axes_out[r], tmp, True)


# -- small linear algebra of one row --------------------------------------------------------------------------


@njit(inline="always")
def _rotvec(M, out):
    """Rotation vector of ``M`` (as :func:`thermocomp.geometry.rotations.rotvec_from_matrix`)."""
    vx, vy, vz = M[2, 1] - M[1, 2], M[0, 2] - M[2, 0], M[1, 0] - M[0, 1]
    half_norm = 0.5 * math.sqrt(vx * vx + vy * vy + vz * vz)
    cos_angle = 0.5 * (M[0, 0] + M[1, 1] + M[2, 2] - 1.0)
    angle = math.atan2(half_norm, cos_angle)
    if cos_angle < -0.9:  # near pi: through the quaternion (Shepperd), as the numpy version
        tr = M[0, 0] + M[1, 1] + M[2, 2]
        if tr > 0.0:
            s = 2.0 * math.sqrt(tr + 1.0)
            w, x, y, z = 0.25 * s, (M[2, 1] - M[1, 2]) / s, (M[0, 2] - M[2, 0]) / s, (M[1, 0] - M[0, 1]) / s
        elif M[0, 0] > M[1, 1] and M[0, 0] > M[2, 2]:
            s = 2.0 * math.sqrt(1.0 + M[0, 0] - M[1, 1] - M[2, 2])
            w, x, y, z = (M[2, 1] - M[1, 2]) / s, 0.25 * s, (M[0, 1] + M[1, 0]) / s, (M[0, 2] + M[2, 0]) / s
        elif M[1, 1] > M[2, 2]:
            s = 2.0 * math.sqrt(1.0 + M[1, 1] - M[0, 0] - M[2, 2])
            w, x, y, z = (M[0, 2] - M[2, 0]) / s, (M[0, 1] + M[1, 0]) / s, 0.25 * s, (M[1, 2] + M[2, 1]) / s
        else:
            s = 2.0 * math.sqrt(1.0 + M[2, 2] - M[0, 0] - M[1, 1])
            w, x, y, z = (M[1, 0] - M[0, 1]) / s, (M[0, 2] + M[2, 0]) / s, (M[1, 2] + M[2, 1]) / s, 0.25 * s
        if w < 0.0:
            w, x, y, z = -w, -x, -y, -z
        nrm = math.sqrt(x * x + y * y + z * z)
        f = 2.0 * math.atan2(nrm, w) / nrm
        out[0], out[1], out[2] = x * f, y * f, z * f
        return
    if half_norm > 1e-8:
        scale = angle / max(2.0 * half_norm, 1e-300)
    else:
        scale = 0.5 + angle * angle / 12.0
    out[0], out[1], out[2] = vx * scale, vy * scale, vz * scale


@njit(inline="always")
def _solve_spd(A, b, x):
    """``A x = b`` for a symmetric positive definite ``A`` (Cholesky, in place on ``A``)."""
    n = A.shape[0]
    for j in range(n):
        d = A[j, j]
        for k in range(j):
            d -= A[j, k] * A[j, k]
        d = math.sqrt(d)
        A[j, j] = d
        for i in range(j + 1, n):
            v = A[i, j]
            for k in range(j):
                v -= A[i, k] * A[j, k]
            A[i, j] = v / d
    for i in range(n):
        v = b[i]
        for k in range(i):
            v -= A[i, k] * x[k]
        x[i] = v / A[i, i]
    for i in range(n - 1, -1, -1):
        v = x[i]
        for k in range(i + 1, n):
            v -= A[k, i] * x[k]
        x[i] = v / A[i, i]


@njit(inline="always")
def _lu_in_place(lu, y):
    """LU with partial pivoting of the square ``lu`` in place (as LAPACK's getrf), the same row swaps and
    eliminations applied to ``y``; returns the determinant, 0.0 when a column has no pivot (then stops)."""
    n = lu.shape[0]
    det = 1.0
    for k in range(n):
        pivot = k
        for i in range(k + 1, n):
            if abs(lu[i, k]) > abs(lu[pivot, k]):
                pivot = i
        if lu[pivot, k] == 0.0:
            return 0.0
        if pivot != k:
            for j in range(n):
                lu[k, j], lu[pivot, j] = lu[pivot, j], lu[k, j]
            det = -det
            y[k], y[pivot] = y[pivot], y[k]
        det *= lu[k, k]
        for i in range(k + 1, n):
            f = lu[i, k] / lu[k, k]
            lu[i, k] = f
            for j in range(k + 1, n):
                lu[i, j] -= f * lu[k, j]
            y[i] -= f * y[k]
    return det


@njit(inline="always")
def _back_substitute(lu, y, x):
    """``x`` of the upper triangle of :func:`_lu_in_place`'s ``lu`` and its ``y``."""
    n = lu.shape[0]
    for i in range(n - 1, -1, -1):
        s = y[i]
        for j in range(i + 1, n):
            s -= lu[i, j] * x[j]
        x[i] = s / lu[i, i]


@njit(inline="always")
def _sigma_bound(J, lu, y, x):
    """The first tier of :func:`thermocomp.kinematics.ik.sigma_min_lower_bound` of the square ``J`` ``(n, n)``,
    the determinant by :func:`_lu_in_place` (``y``, its right-hand side, keeps its rows' swaps; ``x`` ``(n,)`` is
    scratch); returns the bound and the determinant (``lu`` then holds the factors).

    ``|det J| / (|J|_F^2 / (n - 1))^((n - 1) / 2)``, and where that is below :data:`SETTLED_SIGMA`, the larger of
    it and ``1 / |J^-1|_F`` (0 where a pivot is zero): ``P J = L U`` and a permutation of the columns keeps the
    Frobenius norm, so ``|J^-1|_F = |U^-1 L^-1|_F``, each column ``k`` solving ``L U x = e_k``."""
    n = J.shape[1]
    frobenius_sq = 0.0
    for i in range(n):
        for j in range(n):
            lu[i, j] = J[i, j]
            frobenius_sq += J[i, j] * J[i, j]
    det = _lu_in_place(lu, y)
    bound = abs(det) / (max(frobenius_sq, 1e-300) / (n - 1)) ** ((n - 1) / 2)
    if bound >= SETTLED_SIGMA or det == 0.0:
        return bound, det
    total = 0.0
    for k in range(n):
        for i in range(n):  # L z = e_k (unit lower triangle)
            s = 1.0 if i == k else 0.0
            for j in range(k, i):
                s -= lu[i, j] * x[j]
            x[i] = s
        for i in range(n - 1, -1, -1):  # U x = z
            s = x[i]
            for j in range(i + 1, n):
                s -= lu[i, j] * x[j]
            x[i] = s / lu[i, i]
            total += x[i] * x[i]
    if total > 0.0:  # (an overflowed inverse: the determinant's bound)
        bound = max(bound, 1.0 / math.sqrt(total))
    return bound, det


@njit((F3, F2, F3, F2, F2, _I, _I), nogil=True, lazy=True)
def pose_error_block(R_target, p_target, R, p, out, start, stop):
    """The error of the Newton iteration (:func:`thermocomp.kinematics.ik.pose_error`) of rows ``start:stop`` into
    ``out`` ``(m, 6)``: ``p_target - p``, then the rotation vector of ``R_target @ R.T``, the arithmetic of
    :func:`newton_block` (numpy's form builds a dozen ``(m, 3)`` temporaries)."""
    Rerr = np.empty((3, 3))
    w = np.empty(3)
    for r in range(start, stop):
        for i in range(3):
            out[r, i] = p_target[r, i] - p[r, i]
            for j in range(3):
                Rerr[i, j] = R_target[r, i, 0] * R[r, j, 0] + R_target[r, i, 1] * R[r, j, 1] \
                    + R_target[r, i, 2] * R[r, j, 2]
        _rotvec(Rerr, w)
        out[r, 3], out[r, 4], out[r, 5] = w[0], w[1], w[2]


# -- the Newton iteration -------------------------------------------------------------------------------------


@njit((MODEL, F3, F2, F2, SETTINGS, F1, F1, I1, F3, F1, _B, _I, _I), nogil=True, lazy=True)
def newton_block(M, R_target, p_target, q, settings, pos_err, ori_err, iterations, J_final, bound, keep, start, stop):
    """:func:`thermocomp.kinematics.ik.solve_ik`'s iteration on rows ``start:stop`` of ``q`` ``(m, n)``, in place.

    Fills the residuals ``pos_err``, ``ori_err`` and ``iterations`` ``(m,)``;
    if ``keep``, the final Jacobians ``J_final`` ``(m, 6, n)`` and, for a
    square Jacobian, the first tier of the singular-value bound ``bound``
    ``(m,)`` (else NaN); without ``keep`` neither is written (they may be
    ``(1, ...)``). The algorithm is the numpy solver's step for step: the
    same error (position, world-frame rotation vector), damping
    ``|e|^2 + lm_floor``, step limit, stall rule and iteration budget.
    """
    n = q.shape[1]
    R_base, p_base, R_joint, p_joint, R_tool, p_tool, axis, principal, principal_sign, sign, offset, nominal = M
    per_row = p_joint.shape[0] > 1
    R = np.empty((3, 3))
    p = np.empty(3)
    J = np.empty((6, n))
    origins = np.empty((n, 3))
    axes = np.empty((n, 3))
    tmp = np.empty((3, 3))
    Rerr = np.empty((3, 3))
    e = np.empty(6)
    w = np.empty(3)
    A = np.empty((n, n))
    g = np.empty(n)
    dq = np.empty(n)
    lu = np.empty((n, n))
    for r in range(start, stop):
        b = r if per_row else 0
        best = np.inf
        stall = 0
        for it in range(settings.max_iterations + 1):
            _walk(R_base, p_base, R_joint, p_joint, R_tool, p_tool, axis, principal, principal_sign, sign, offset,
                  nominal, b, q[r], R, p, origins, axes, tmp, True)
            for i in range(3):
                e[i] = p_target[r, i] - p[i]
            for i in range(3):  # R_target @ R.T
                for j in range(3):
                    Rerr[i, j] = (R_target[r, i, 0] * R[j, 0] + R_target[r, i, 1] * R[j, 1]
                                  + R_target[r, i, 2] * R[j, 2])
            _rotvec(Rerr, w)
            e[3], e[4], e[5] = w[0], w[1], w[2]
            pe = math.sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2])
            oe = math.sqrt(e[3] * e[3] + e[4] * e[4] + e[5] * e[5])
            pos_err[r], ori_err[r], iterations[r] = pe, oe, it
            finished = pe <= settings.position_tol and oe <= settings.orientation_tol
            residual = pe * pe + oe * oe
            if residual < 0.999 * best:
                stall = 0
            else:
                stall += 1
            best = min(best, residual)
            if finished or stall >= settings.stall_iterations or it == settings.max_iterations:
                if keep:  # (the Jacobian at the end only where it is kept: a solve that stops reads none)
                    _jacobian(p, origins, axes, sign, J)
                    for i in range(6):
                        for j in range(n):
                            J_final[r, i, j] = J[i, j]
                    bound[r] = _sigma_bound(J, lu, g, dq)[0] if n == 6 else np.nan
                break
            _jacobian(p, origins, axes, sign, J)
            damping = residual + settings.lm_floor
            for i in range(n):
                v = 0.0
                for k in range(6):
                    v += J[k, i] * e[k]
                g[i] = v
                for j in range(i + 1):
                    v = 0.0
                    for k in range(6):
                        v += J[k, i] * J[k, j]
                    A[i, j] = v
                    A[j, i] = v
                A[i, i] += damping
            _solve_spd(A, g, dq)
            biggest = 0.0
            for i in range(n):
                biggest = max(biggest, abs(dq[i]))
            scale = min(1.0, settings.max_step / max(biggest, 1e-300))
            for i in range(n):
                q[r, i] += dq[i] * scale


@njit((MODEL, F2, F2, F2, F2, F1, F2, _I, _I), nogil=True, lazy=True)
def jacobian_rates_block(M, q, v, w, lever, bound_out, qd_out, start, stop):
    """Per row ``start:stop`` of ``q`` ``(m, 6)``, in one pass (the feasibility check's steps along a path): the
    Jacobian (as :func:`fk_jacobian_block`), the first tier of the singular-value bound (:func:`_sigma_bound`)
    into ``bound_out[r]``, and the joint rates ``qd_out[r] = J^-1 twist[r]`` (NaN where a pivot is zero), the
    twist being ``(v - w x lever, w)`` of the rows of ``v``, ``w``, ``lever`` ``(m, 3)`` (numpy's cross
    product's operations)."""
    n = q.shape[1]
    R_base, p_base, R_joint, p_joint, R_tool, p_tool, axis, principal, principal_sign, sign, offset, nominal = M
    per_row = p_joint.shape[0] > 1
    R = np.empty((3, 3))
    p = np.empty(3)
    origins = np.empty((n, 3))
    axes = np.empty((n, 3))
    tmp = np.empty((3, 3))
    lu = np.empty((n, n))
    y = np.empty(n)
    x = np.empty(n)
    J = np.empty((6, n))
    for r in range(start, stop):
        _walk(R_base, p_base, R_joint, p_joint, R_tool, p_tool, axis, principal, principal_sign, sign, offset,
              nominal, r if per_row else 0, q[r], R, p, origins, axes, tmp, True)
        _jacobian(p, origins, axes, sign, J)
        y[0] = v[r, 0] - (w[r, 1] * lever[r, 2] - w[r, 2] * lever[r, 1])
        y[1] = v[r, 1] - (w[r, 2] * lever[r, 0] - w[r, 0] * lever[r, 2])
        y[2] = v[r, 2] - (w[r, 0] * lever[r, 1] - w[r, 1] * lever[r, 0])
        y[3], y[4], y[5] = w[r, 0], w[r, 1], w[r, 2]
        bound_out[r], det = _sigma_bound(J, lu, y, x)
        if det == 0.0:
            for k in range(qd_out.shape[1]):
                qd_out[r, k] = np.nan
        else:
            _back_substitute(lu, y, qd_out[r])


# -- closed forms (the equations of thermocomp.kinematics.closed_form, pose by pose) ----------------------------


@njit(inline="always")
def _shoulder(d0, d1, L_y):
    """``phi_1`` front and back: ``Rz(-phi_1) d`` has ``y == L_y`` (NaN when out of reach)."""
    r = math.hypot(d0, d1)
    ratio = L_y / r if r > 0.0 else math.nan
    if not abs(ratio) <= 1.0:
        ratio = math.nan
    alpha = math.asin(ratio)
    phi = math.atan2(d1, d0)
    return phi - alpha, phi - (math.pi - alpha)


@njit(inline="always")
def _acos(x):
    """``acos(x)``, ``x`` clipped to ``[-1, 1]`` within :data:`ACOS_SLOP` (round-off), NaN beyond (no branch)."""
    return math.acos(min(1.0, max(-1.0, x))) if abs(x) <= 1.0 + ACOS_SLOP else math.nan


@njit(inline="always")
def _planar(t0, t1, a0, a1, b0, b1, elbow, out2, out3):
    """Two-link arm ``t = Ry(phi_2) (a + Ry(phi_3) b)`` in the ``(x, z)`` plane: both elbows into ``out2``, ``out3``,
    or only ``elbow`` (``>= 0``; the same arithmetic: its angles are equal to the last bit)."""
    A = a0 * b0 + a1 * b1
    B = a0 * b1 - a1 * b0
    K = 0.5 * (t0 * t0 + t1 * t1 - (a0 * a0 + a1 * a1) - (b0 * b0 + b1 * b1))
    acos = _acos(K / math.hypot(A, B))
    base = math.atan2(B, A)
    target = math.atan2(t1, t0)
    for e in range(2):
        if elbow >= 0 and e != elbow:
            continue
        phi3 = base + (acos if e == 0 else -acos)
        c3, s3 = math.cos(phi3), math.sin(phi3)
        vx = a0 + b0 * c3 + b1 * s3
        vz = a1 - b0 * s3 + b1 * c3
        out2[e] = math.atan2(vz, vx) - target
        out3[e] = phi3


@njit(types.none(F3, F2, F2, _I, _I, F2, F1))
def _opw_pose(R6, o6, p, j, only, out, scratch):
    """Branches of pose ``j`` of the ortho-parallel arm with a spherical wrist into ``out`` ``(8, 6)``: all of
    them, or only branch ``only`` (``>= 0``); branch ``shoulder * 4 + elbow * 2 + wrist``.

    One branch alone is the same arithmetic as within all eight (the same
    function), so its angles are equal to the last bit. ``scratch``: 10 floats.
    """
    e0, e2 = p[3, 0] + p[4, 0], p[3, 2]  # joint 3's origin to the wrist centre, at phi_3 = 0
    L_y = p[1, 1] + p[2, 1] + p[3, 1]
    phi2, phi3, u0, u1 = scratch[0:2], scratch[2:4], scratch[4:7], scratch[7:10]
    d0 = o6[j, 0] - p[5, 0] * R6[j, 0, 0] - p[0, 0]  # wrist centre, from joint 1
    d1 = o6[j, 1] - p[5, 0] * R6[j, 1, 0] - p[0, 1]
    d2 = o6[j, 2] - p[5, 0] * R6[j, 2, 0] - p[0, 2]
    shoulders = _shoulder(d0, d1, L_y)
    for s in range(2):
        if only >= 0 and s != only // 4:
            continue
        phi1 = shoulders[s]
        c1, s1 = math.cos(phi1), math.sin(phi1)
        ux = c1 * d0 + s1 * d1
        _planar(ux - p[1, 0], d2 - p[1, 2], p[2, 0], p[2, 2], e0, e2, -1 if only < 0 else (only // 2) % 2, phi2, phi3)
        for k in range(3):  # rows 0 and 1 of Rz(-phi1) R6 (row 2 is R6's)
            u0[k] = c1 * R6[j, 0, k] + s1 * R6[j, 1, k]
            u1[k] = c1 * R6[j, 1, k] - s1 * R6[j, 0, k]
        for e in range(2):
            if only >= 0 and e != (only // 2) % 2:
                continue
            c23, s23 = math.cos(phi2[e] + phi3[e]), math.sin(phi2[e] + phi3[e])
            # M = Ry(-phi23) Rz(-phi1) R6 = Rx(phi4) Ry(phi5) Rx(phi6): the entries used
            M00 = c23 * u0[0] - s23 * R6[j, 2, 0]
            M01 = c23 * u0[1] - s23 * R6[j, 2, 1]
            M02 = c23 * u0[2] - s23 * R6[j, 2, 2]
            M10, M11 = u1[0], u1[1]
            M20 = s23 * u0[0] + c23 * R6[j, 2, 0]
            M21 = s23 * u0[1] + c23 * R6[j, 2, 1]
            s5 = math.hypot(M01, M02)
            for w in range(2):
                if only >= 0 and w != only % 2:
                    continue
                phi5 = math.atan2(s5 if w == 0 else -s5, M00)
                phi4 = math.atan2(M10, -M20) if w == 0 else math.atan2(-M10, M20)
                c4, s4, c5, sn5 = math.cos(phi4), math.sin(phi4), math.cos(phi5), math.sin(phi5)
                phi6 = math.atan2(sn5 * M01 + c5 * (c4 * M21 - s4 * M11), c4 * M11 + s4 * M21)
                b = s * 4 + e * 2 + w
                out[b, 0] = phi1
                out[b, 1] = phi2[e]
                out[b, 2] = phi3[e]
                out[b, 3] = phi4
                out[b, 4] = phi5
                out[b, 5] = phi6


@njit(types.none(F3, F2, F2, _I, _I, F2, F1))
def _ur_pose(R6, o6, p, j, only, out, scratch):
    """Branches of pose ``j`` of the arm with three parallel axes (UR type) into ``out`` ``(8, 6)``, all or only
    ``only``, as :func:`_opw_pose`; branch ``shoulder * 4 + wrist (joint 5) * 2 + elbow``."""
    L_y = p[1, 1] + p[2, 1] + p[3, 1] + p[4, 1] + p[5, 1]
    f0, f2 = p[4, 0] + p[5, 0], p[4, 2] + p[5, 2]
    phi2, phi3 = scratch[0:2], scratch[2:4]
    d0, d1, d2 = o6[j, 0] - p[0, 0], o6[j, 1] - p[0, 1], o6[j, 2] - p[0, 2]  # joint 6 lies on axes 5 and 6
    shoulders = _shoulder(d0, d1, L_y)
    for s in range(2):
        if only >= 0 and s != only // 4:
            continue
        phi1 = shoulders[s]
        c1, s1 = math.cos(phi1), math.sin(phi1)
        # rows of M = Rz(-phi1) R6 = Ry(phi234) Rz(phi5) Ry(phi6)
        v0 = c1 * R6[j, 0, 0] + s1 * R6[j, 1, 0]
        v1 = c1 * R6[j, 0, 1] + s1 * R6[j, 1, 1]
        v2 = c1 * R6[j, 0, 2] + s1 * R6[j, 1, 2]
        M10 = c1 * R6[j, 1, 0] - s1 * R6[j, 0, 0]
        M11 = c1 * R6[j, 1, 1] - s1 * R6[j, 0, 1]
        M12 = c1 * R6[j, 1, 2] - s1 * R6[j, 0, 2]
        acos = _acos(M11)  # the y row of M is (s5 c6, c5, s5 s6)
        u6x = c1 * d0 + s1 * d1
        for w in range(2):
            if only >= 0 and w != (only // 2) % 2:
                continue
            phi5 = acos if w == 0 else -acos
            c5, s5 = math.cos(phi5), math.sin(phi5)
            sgn = -1.0 if s5 < 0.0 else 1.0
            phi6 = math.atan2(sgn * M12, sgn * M10)
            c6, s6 = math.cos(phi6), math.sin(phi6)
            w0, w2 = v0 * c6 + v2 * s6, v2 * c6 - v0 * s6
            phi234 = math.atan2(w2, w0 * c5 - v1 * s5)
            c234, s234 = math.cos(phi234), math.sin(phi234)
            u4x = u6x - (c234 * f0 + s234 * f2)
            u4z = d2 - (-s234 * f0 + c234 * f2)
            _planar(u4x - p[1, 0], u4z - p[1, 2], p[2, 0], p[2, 2], p[3, 0], p[3, 2], -1 if only < 0 else only % 2,
                    phi2, phi3)
            for e in range(2):
                if only >= 0 and e != only % 2:
                    continue
                b = s * 4 + w * 2 + e
                out[b, 0] = phi1
                out[b, 1] = phi2[e]
                out[b, 2] = phi3[e]
                out[b, 3] = phi234 - phi2[e] - phi3[e]
                out[b, 4] = phi5
                out[b, 5] = phi6


@njit(inline="always")
def _branches(opw, R6, o6, p, j, only, out, scratch):
    if opw:
        _opw_pose(R6, o6, p, j, only, out, scratch)
    else:
        _ur_pose(R6, o6, p, j, only, out, scratch)


@njit((F2, F1, F2, F1, F3, F2, F3, F2, _I, _I), nogil=True, lazy=True)
def flange_block(R_base, p_base, R_tool, p_tool, R, p, R6, o6, start, stop):
    """The last joint's frame in the base frame for TCP poses ``start:stop`` (``closed_form._flange``'s
    arithmetic, row by row): ``R6 = R_base.T @ R @ R_tool.T``, ``o6 = (p - p_base) @ R_base - R6 @ p_tool``;
    ``R`` ``(m, 3, 3)``, ``p`` ``(m, 3)`` the world-frame poses, into ``R6`` ``(m, 3, 3)`` and ``o6`` ``(m, 3)``."""
    Rb = np.empty((3, 3))
    for r in range(start, stop):
        for i in range(3):
            for k in range(3):
                Rb[i, k] = R_base[0, i] * R[r, 0, k] + R_base[1, i] * R[r, 1, k] + R_base[2, i] * R[r, 2, k]
        for i in range(3):
            for k in range(3):
                R6[r, i, k] = Rb[i, 0] * R_tool[k, 0] + Rb[i, 1] * R_tool[k, 1] + Rb[i, 2] * R_tool[k, 2]
        d0, d1, d2 = p[r, 0] - p_base[0], p[r, 1] - p_base[1], p[r, 2] - p_base[2]
        for i in range(3):
            o6[r, i] = (d0 * R_base[0, i] + d1 * R_base[1, i] + d2 * R_base[2, i]) - (
                R6[r, i, 0] * p_tool[0] + R6[r, i, 1] * p_tool[1] + R6[r, i, 2] * p_tool[2])


@njit((_B, F3, F2, F2, F3, _I, _I), nogil=True, lazy=True)
def branches_block(opw, R6, o6, p, out, start, stop):
    """Canonical angles of every branch of poses ``start:stop``, ``out`` ``(m, 8, 6)``: the ortho-parallel arm
    (``opw``) or the UR type. ``R6`` ``(m, 3, 3)`` and ``o6`` ``(m, 3)``: the last joint's frame in the base
    frame (``closed_form._flange``); ``p`` ``(6, 3)``: the model's joint translations."""
    scratch = np.empty(10)
    for j in range(start, stop):
        _branches(opw, R6, o6, p, j, -1, out[j], scratch)


@njit(inline="always")
def _controller_branch(phi, axis_sign, sign, offset, lower, upper, near, q):
    """One branch's canonical angles ``phi`` ``(n,)`` to controller angles in ``q`` ``(n,)``, as
    :func:`controller_block`; returns whether the branch exists and fits the limits."""
    n = phi.shape[0]
    two_pi = 2.0 * math.pi
    ok = True
    x = 0.0
    for i in range(n):
        x = sign[i] * (axis_sign[i] * phi[i] - offset[i])
        if x != x:
            ok = False
            break
        k_lo = math.ceil((lower[i] - x) / two_pi)
        k_hi = math.floor((upper[i] - x) / two_pi)
        if k_lo <= k_hi:
            x += two_pi * min(max(np.rint((near[i] - x) / two_pi), k_lo), k_hi)
        q[i] = x
        ok = ok and lower[i] <= x <= upper[i]
    if x != x:
        for i in range(n):
            q[i] = math.nan
    return ok


@njit((F3, F1, F1, F1, F1, F1, F2, F3, B2, _I, _I), nogil=True, lazy=True)
def controller_block(phi, axis_sign, sign, offset, lower, upper, near, q, valid, start, stop):
    """Canonical angles ``phi`` ``(m, k, n)`` of poses ``start:stop`` to controller angles in ``q``, each shifted
    by whole turns into its limits.

    ``theta = axis_sign * phi``, ``q = sign * (theta - offset)``; each joint
    then moves by whole turns into ``[lower, upper]``, nearest ``near``
    (``(m, n)``, or ``(1, n)`` for every pose), as
    :func:`thermocomp.kinematics.ik.fit_limits`. A branch with a NaN angle
    (it does not exist) is NaN throughout. ``valid`` ``(m, k)``: the branch
    exists and every angle lies inside its limits.
    """
    shared = near.shape[0] == 1
    for j in range(start, stop):
        r = 0 if shared else j
        for b in range(phi.shape[1]):
            valid[j, b] = _controller_branch(phi[j, b], axis_sign, sign, offset, lower, upper, near[r], q[j, b])


@njit(inline="always")
def _row_distance(x, y):
    """``|wrap(x - y)|`` of two rows ``(n,)``: joint-space distance modulo whole turns."""
    total = 0.0
    two_pi = 2.0 * math.pi
    for k in range(x.shape[0]):
        d = x[k] - y[k]
        d -= two_pi * np.rint(d / two_pi)
        total += d * d
    return math.sqrt(total)


class Path(NamedTuple):
    """A path of ``m`` poses as :func:`follow_start` and :func:`follow_piece` take it (see ``closed_form.follow``)."""

    opw: bool
    R6: np.ndarray  # (m, 3, 3)
    o6: np.ndarray  # (m, 3)
    p: np.ndarray  # (6, 3), the joint translations
    axis_sign: np.ndarray  # (6,)
    sign: np.ndarray
    offset: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    q_start: np.ndarray  # (6,)
    jump: float
    big: float


PATH = types.NamedTuple((_B, F3, F2, F2, F1, F1, F1, F1, F1, F1, _F, _F), Path)


@njit(inline="always")
def _fill(P, j, only, phi, scratch, q, penalty):
    """Branches of pose ``j`` (all, or only ``only``) as the branch choice sees them: controller angles in
    ``q`` ``(8, n)`` (zeros where a branch does not exist) and ``penalty`` ``(8,)`` (0 inside the limits,
    ``P.big`` outside, inf where the branch does not exist).

    Inlined, as :func:`_branches`, :func:`_controller_branch` and :func:`_row_distance` are: called once a pose
    with the path's arrays, they made numba update those arrays' reference counts, atomically, at every call (a
    fifth of the branch choice's CPU; the same arithmetic, the same angles to the last bit; some 2 s more of
    compiling at the install)."""
    _branches(P.opw, P.R6, P.o6, P.p, j, only, phi, scratch)
    lo, hi = (0, phi.shape[0]) if only < 0 else (only, only + 1)
    for b in range(lo, hi):
        inside = _controller_branch(phi[b], P.axis_sign, P.sign, P.offset, P.lower, P.upper, P.q_start, q[b])
        if q[b, 0] != q[b, 0]:
            penalty[b] = math.inf
            for k in range(q.shape[1]):
                q[b, k] = 0.0
        else:
            penalty[b] = 0.0 if inside else P.big


@njit((PATH, F2, F1), nogil=True, lazy=True)
def follow_start(P, q_out, penalty_out):
    """Pose 0 of the path: the branch nearest ``P.q_start`` (ties to the lower index), its angles into
    ``q_out[0]`` and penalty into ``penalty_out[0]``; returns the branch."""
    n = P.q_start.shape[0]
    phi = np.empty((N_BRANCHES, n))
    scratch = np.empty(10)
    cur, pc = np.empty((N_BRANCHES, n)), np.empty(N_BRANCHES)
    _fill(P, 0, -1, phi, scratch, cur, pc)
    best, b = math.inf, 0
    for c in range(N_BRANCHES):
        value = _row_distance(cur[c], P.q_start) + pc[c]
        if c == 0 or value < best:
            best, b = value, c
    for k in range(n):
        q_out[0, k] = cur[b, k]
    penalty_out[0] = pc[b]
    return b


@njit((PATH, _I, _I, _I, _B, F1, _F, F1, F2, F1), nogil=True, lazy=True)
def follow_piece(P, start, stop, b, guess, q_b, penalty_b, q_last, q_out, penalty_out):
    """The branch choice for poses ``start..stop-1`` from the state before ``start``: branch ``b`` with angles
    ``q_b`` and penalty ``penalty_b`` or, with ``guess``, branch ``b`` of pose ``start - 1`` computed here
    (only the taken branch of a pose is read by the next); ``q_last``, the angles of the last pose before
    ``start`` that had its branch (or ``P.q_start``). Each pose keeps its predecessor's branch while it moves
    less than ``P.jump`` (ranked by the penalty), else takes the nearest of its 8; after a branch that does not
    exist (a pose out of reach), the one nearest the last pose that had its branch. Returns the branch of the
    last pose."""
    n = P.q_start.shape[0]
    phi = np.empty((N_BRANCHES, n))
    scratch = np.empty(10)
    cur, nxt = np.empty((N_BRANCHES, n)), np.empty((N_BRANCHES, n))
    pc, pn = np.empty(N_BRANCHES), np.empty(N_BRANCHES)
    last = np.empty(n)
    for k in range(n):
        last[k] = q_last[k]
    if guess:
        _fill(P, start - 1, b, phi, scratch, cur, pc)
    else:
        for k in range(n):
            cur[b, k] = q_b[k]
        pc[b] = penalty_b
    if pc[b] != math.inf:
        for k in range(n):
            last[k] = cur[b, k]
    for i in range(start - 1, stop - 1):
        if pc[b] == math.inf:  # from a missing branch: the branch nearest the last pose that had one
            _fill(P, i + 1, -1, phi, scratch, nxt, pn)
            best, b_next = math.inf, 0
            for c in range(N_BRANCHES):
                value = _row_distance(last, nxt[c]) + pn[c]
                if c == 0 or value < best:
                    best, b_next = value, c
        else:
            _fill(P, i + 1, b, phi, scratch, nxt, pn)
            if _row_distance(cur[b], nxt[b]) + pn[b] < P.jump:
                b_next = b
            else:
                _fill(P, i + 1, -1, phi, scratch, nxt, pn)
                best, b_next = math.inf, 0
                for c in range(N_BRANCHES):
                    value = _row_distance(cur[b], nxt[c]) + pn[c]
                    if c == 0 or value < best:
                        best, b_next = value, c
        for k in range(n):
            q_out[i + 1, k] = nxt[b_next, k]
        penalty_out[i + 1] = pn[b_next]
        if pn[b_next] != math.inf:
            for k in range(n):
                last[k] = nxt[b_next, k]
        cur, nxt = nxt, cur
        pc, pn = pn, pc
        b = b_next
    return b


# -- deformed frames ------------------------------------------------------------------------------------------


@njit(inline="always")
def _frame(rows, i, s, p_nominal, R_after, R_out, p_out):
    """Frame ``i`` of the table ``rows`` scaled by ``s``: ``R_out = Rx Ry Rz (deviations) @ R_after`` and
    ``p_out = p_nominal[i] + s * translation`` (as :func:`~thermocomp.geometry.rotations.matrix_from_euler_xyz`;
    a zero angle's sine is the angle itself, its cosine 1, as ``sin`` and ``cos`` give them)."""
    a, b, c = rows[i, 3] * s, rows[i, 4] * s, rows[i, 5] * s
    ca = 1.0 if a == 0.0 else math.cos(a)
    sa = a if a == 0.0 else math.sin(a)
    cb = 1.0 if b == 0.0 else math.cos(b)
    sb = b if b == 0.0 else math.sin(b)
    cc = 1.0 if c == 0.0 else math.cos(c)
    sc = c if c == 0.0 else math.sin(c)
    d00, d01, d02 = cb * cc, -cb * sc, sb
    d10, d11, d12 = ca * sc + sa * sb * cc, ca * cc - sa * sb * sc, -sa * cb
    d20, d21, d22 = sa * sc - ca * sb * cc, sa * cc + ca * sb * sc, ca * cb
    for j in range(3):
        R_out[0, j] = d00 * R_after[0, j] + d01 * R_after[1, j] + d02 * R_after[2, j]
        R_out[1, j] = d10 * R_after[0, j] + d11 * R_after[1, j] + d12 * R_after[2, j]
        R_out[2, j] = d20 * R_after[0, j] + d21 * R_after[1, j] + d22 * R_after[2, j]
        p_out[j] = p_nominal[i, j] + rows[i, j] * s


@njit((F2, F1, F2, F2, F2, F3, F2, F4, F3, F3, F2, _I, _I), nogil=True, lazy=True)
def deformed_block(rows, fraction, p_nominal, R_base_nominal, R_tool_nominal, R_base, p_base, R_joint, p_joint,
                   R_tool, p_tool, start, stop):
    """The frames of the robot deformed by ``fraction[r]`` times the table ``rows`` ``(n + 2, 6)`` (base, joints,
    tool; SI), for every ``r`` of ``start:stop``: ``R_base`` ``(m, 3, 3)``, ``p_base`` ``(m, 3)``, ``R_joint``
    ``(m, n, 3, 3)``, ``p_joint`` ``(m, n, 3)``, ``R_tool`` ``(m, 3, 3)``, ``p_tool`` ``(m, 3)``; ``p_nominal``
    ``(n + 2, 3)`` the nominal translations, ``R_base_nominal`` and ``R_tool_nominal`` the base's and tool's own
    rotations (the joints' is the identity)."""
    n = rows.shape[0] - 2
    identity = np.eye(3)
    for r in range(start, stop):
        s = fraction[r]
        _frame(rows, 0, s, p_nominal, R_base_nominal, R_base[r], p_base[r])
        for k in range(n):
            _frame(rows, k + 1, s, p_nominal, identity, R_joint[r, k], p_joint[r, k])
        _frame(rows, n + 1, s, p_nominal, R_tool_nominal, R_tool[r], p_tool[r])
