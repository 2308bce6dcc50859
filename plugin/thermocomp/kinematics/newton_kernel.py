"""The damped Gauss-Newton iteration of :func:`thermocomp.kinematics.ik.solve_ik`, compiled row by row.

The numpy solver pays numpy's per-call overhead on small arrays at every
step of every iteration (FK, Jacobian, error, 6x6 solve); here each row
runs its whole iteration in compiled code (numba, cached on disk with
``cache=True``, so only the first run on a machine compiles). The algorithm
is the numpy solver's, step for step: the same FK (seed 002, Eqs. 18-22),
the same error (position, world-frame rotation vector), the same damping
``|e|^2 + LM_FLOOR``, step limit, stall rule and iteration budget. The
numpy path stays the reference: ``tests/test_newton_kernel.py`` compares
the two on random deformed robots.

The helpers a row calls are inlined (``inline="always"``): a call that
passes arrays makes numba update each array's reference count, an atomic
operation on a counter both threads share; inlined, numba prunes those
updates. Measured on 100,000 rows: ``fk_jacobian_rows`` 42 -> 20 ms,
``newton_rows`` 235 -> 153-180 ms (the first run's compile takes longer).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange


@njit(cache=True, inline="always")
def _rot_axis_into(out, axis, s, c):
    """Rodrigues: ``out = Rot(axis, theta)`` given sin and cos."""
    x, y, z = axis[0], axis[1], axis[2]
    t = 1.0 - c
    out[0, 0] = c + t * x * x
    out[0, 1] = t * x * y - s * z
    out[0, 2] = t * x * z + s * y
    out[1, 0] = t * x * y + s * z
    out[1, 1] = c + t * y * y
    out[1, 2] = t * y * z - s * x
    out[2, 0] = t * x * z - s * y
    out[2, 1] = t * y * z + s * x
    out[2, 2] = c + t * z * z


@njit(cache=True, inline="always")
def _matmul3(a, b, out):
    for i in range(3):
        for j in range(3):
            out[i, j] = a[i, 0] * b[0, j] + a[i, 1] * b[1, j] + a[i, 2] * b[2, j]


@njit(cache=True, inline="always")
def _fk_jacobian(R_base, p_base, R_joint, p_joint, nominal, R_tool, p_tool, axis, principal, principal_sign, sign,
                 offset, q, R, p, J, origins, axes, rot, tmp):
    n = q.shape[0]
    for i in range(3):
        p[i] = p_base[i]
        for j in range(3):
            R[i, j] = R_base[i, j]
    for k in range(n):
        for i in range(3):
            p[i] += R[i, 0] * p_joint[k, 0] + R[i, 1] * p_joint[k, 1] + R[i, 2] * p_joint[k, 2]
        if not nominal:
            _matmul3(R, R_joint[k], tmp)
            for i in range(3):
                for j in range(3):
                    R[i, j] = tmp[i, j]
        for i in range(3):
            origins[k, i] = p[i]
            axes[k, i] = R[i, 0] * axis[k, 0] + R[i, 1] * axis[k, 1] + R[i, 2] * axis[k, 2]
        theta = sign[k] * q[k] + offset[k]
        if principal[k] >= 0:  # +-e_k: only two columns of R mix (as fk._rotate_about)
            kk = principal[k]
            i1, j1 = (kk + 1) % 3, (kk + 2) % 3
            st, ct = principal_sign[k] * math.sin(theta), math.cos(theta)
            for i in range(3):
                a, b = R[i, i1], R[i, j1]
                R[i, i1] = ct * a + st * b
                R[i, j1] = ct * b - st * a
        else:
            _rot_axis_into(rot, axis[k], math.sin(theta), math.cos(theta))
            _matmul3(R, rot, tmp)
            for i in range(3):
                for j in range(3):
                    R[i, j] = tmp[i, j]
    for i in range(3):
        p[i] += R[i, 0] * p_tool[0] + R[i, 1] * p_tool[1] + R[i, 2] * p_tool[2]
    _matmul3(R, R_tool, tmp)
    for i in range(3):
        for j in range(3):
            R[i, j] = tmp[i, j]
    for k in range(n):
        dx, dy, dz = p[0] - origins[k, 0], p[1] - origins[k, 1], p[2] - origins[k, 2]
        ax, ay, az = axes[k, 0], axes[k, 1], axes[k, 2]
        J[0, k] = (ay * dz - az * dy) * sign[k]
        J[1, k] = (az * dx - ax * dz) * sign[k]
        J[2, k] = (ax * dy - ay * dx) * sign[k]
        J[3, k] = ax * sign[k]
        J[4, k] = ay * sign[k]
        J[5, k] = az * sign[k]


@njit(cache=True, inline="always")
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


@njit(cache=True, inline="always")
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


@njit(cache=True, parallel=True)
def newton_rows(R_base, p_base, R_joint, p_joint, nominal, R_tool, p_tool, axis, principal, principal_sign, sign,
                offset, R_target, p_target, q, position_tol, orientation_tol, max_iterations, lm_floor, max_step,
                stall_iterations, pos_err, ori_err, iterations, J_final, keep_jacobians):
    """Iterate every row of ``q`` ``(m, n)`` in place; fill the residuals, iterations and, if ``keep_jacobians``,
    the final Jacobians (else ``J_final`` is not written: it may be ``(1, 6, n)``).

    Model arrays have a leading batch dimension of 1 (one robot for all rows)
    or ``m`` (one robot per row). ``principal[k]`` is the index of joint
    ``k``'s axis when it is ``principal_sign[k] * e_index``, else -1. Rows are
    independent: they run in parallel blocks, each row's result the same
    whatever the blocks.
    """
    m = q.shape[0]
    blocks = min(m, 64)
    for blk in prange(blocks):
        _rows(R_base, p_base, R_joint, p_joint, nominal, R_tool, p_tool, axis, principal, principal_sign, sign,
              offset, R_target, p_target, q, position_tol, orientation_tol, max_iterations, lm_floor, max_step,
              stall_iterations, pos_err, ori_err, iterations, J_final, keep_jacobians, blk * m // blocks,
              (blk + 1) * m // blocks)


@njit(cache=True)
def _rows(R_base, p_base, R_joint, p_joint, nominal, R_tool, p_tool, axis, principal, principal_sign, sign, offset,
          R_target, p_target, q, position_tol, orientation_tol, max_iterations, lm_floor, max_step, stall_iterations,
          pos_err, ori_err, iterations, J_final, keep_jacobians, start, stop):
    n = q.shape[1]
    per_row = p_joint.shape[0] > 1
    R = np.empty((3, 3))
    p = np.empty(3)
    J = np.empty((6, n))
    origins = np.empty((n, 3))
    axes = np.empty((n, 3))
    rot = np.empty((3, 3))
    tmp = np.empty((3, 3))
    Rerr = np.empty((3, 3))
    e = np.empty(6)
    w = np.empty(3)
    A = np.empty((n, n))
    g = np.empty(n)
    dq = np.empty(n)
    for r in range(start, stop):
        b = r if per_row else 0
        best = np.inf
        stall = 0
        for it in range(max_iterations + 1):
            _fk_jacobian(R_base[b], p_base[b], R_joint[b], p_joint[b], nominal, R_tool[b], p_tool[b], axis, principal,
                         principal_sign, sign, offset, q[r], R, p, J, origins, axes, rot, tmp)
            for i in range(3):
                e[i] = p_target[r, i] - p[i]
            # R_target @ R.T
            for i in range(3):
                for j in range(3):
                    Rerr[i, j] = (R_target[r, i, 0] * R[j, 0] + R_target[r, i, 1] * R[j, 1]
                                  + R_target[r, i, 2] * R[j, 2])
            _rotvec(Rerr, w)
            e[3], e[4], e[5] = w[0], w[1], w[2]
            pe = math.sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2])
            oe = math.sqrt(e[3] * e[3] + e[4] * e[4] + e[5] * e[5])
            pos_err[r], ori_err[r], iterations[r] = pe, oe, it
            finished = pe <= position_tol and oe <= orientation_tol
            residual = pe * pe + oe * oe
            if residual < 0.999 * best:
                stall = 0
            else:
                stall += 1
            best = min(best, residual)
            if finished or stall >= stall_iterations or it == max_iterations:
                if keep_jacobians:
                    for i in range(6):
                        for j in range(n):
                            J_final[r, i, j] = J[i, j]
                break
            damping = residual + lm_floor
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
            scale = min(1.0, max_step / max(biggest, 1e-300))
            for i in range(n):
                q[r, i] += dq[i] * scale


@njit(cache=True, parallel=True)
def fk_rows(R_base, p_base, R_joint, p_joint, nominal, R_tool, p_tool, axis, principal, principal_sign, sign, offset,
            q, R_out, p_out):
    """TCP pose of every row of ``q`` ``(m, n)``: ``R_out`` ``(m, 3, 3)``, ``p_out`` ``(m, 3)`` (model arrays as
    :func:`newton_rows`)."""
    m = q.shape[0]
    blocks = min(m, 64)
    for blk in prange(blocks):
        _fk_block(R_base, p_base, R_joint, p_joint, nominal, R_tool, p_tool, axis, principal, principal_sign, sign,
                  offset, q, R_out, p_out, blk * m // blocks, (blk + 1) * m // blocks)


@njit(cache=True, parallel=True, nogil=True)
def fk_jacobian_rows(R_base, p_base, R_joint, p_joint, nominal, R_tool, p_tool, axis, principal, principal_sign, sign,
                     offset, q, R_out, p_out, J_out):
    """TCP pose and geometric Jacobian of every row of ``q`` ``(m, n)`` (model arrays as :func:`newton_rows`):
    ``R_out`` ``(m, 3, 3)``, ``p_out`` ``(m, 3)``, ``J_out`` ``(m, 6, n)`` (as :func:`_fk_jacobian`)."""
    m, n = q.shape
    blocks = min(m, 64)
    per_row = p_joint.shape[0] > 1
    for blk in prange(blocks):
        origins = np.empty((n, 3))
        axes = np.empty((n, 3))
        rot = np.empty((3, 3))
        tmp = np.empty((3, 3))
        for r in range(blk * m // blocks, (blk + 1) * m // blocks):
            b = r if per_row else 0
            _fk_jacobian(R_base[b], p_base[b], R_joint[b], p_joint[b], nominal, R_tool[b], p_tool[b], axis, principal,
                         principal_sign, sign, offset, q[r], R_out[r], p_out[r], J_out[r], origins, axes, rot, tmp)


@njit(cache=True, parallel=True, nogil=True)
def joint_frames_rows(R_base, p_base, R_joint, p_joint, nominal, R_tool, p_tool, axis, principal, principal_sign,
                      sign, offset, q, origins_out, axes_out):
    """World origin and axis of every joint of every row of ``q`` ``(m, n)`` (model arrays as :func:`newton_rows`):
    ``origins_out`` and ``axes_out`` ``(m, n, 3)``, as :func:`thermocomp.kinematics.fk.joint_frames`."""
    m, n = q.shape
    blocks = min(m, 64)
    per_row = p_joint.shape[0] > 1
    for blk in prange(blocks):
        R = np.empty((3, 3))
        p = np.empty(3)
        J = np.empty((6, n))
        rot = np.empty((3, 3))
        tmp = np.empty((3, 3))
        for r in range(blk * m // blocks, (blk + 1) * m // blocks):
            b = r if per_row else 0
            _fk_jacobian(R_base[b], p_base[b], R_joint[b], p_joint[b], nominal, R_tool[b], p_tool[b], axis, principal,
                         principal_sign, sign, offset, q[r], R, p, J, origins_out[r], axes_out[r], rot, tmp)


@njit(cache=True, parallel=True, nogil=True)
def confdata_rows(R_base, p_base, R_joint, p_joint, nominal, R_tool, p_tool, axis, principal, principal_sign, sign,
                  offset, q, out):
    """ABB confdata ``(cf1, cf4, cf6, cfx)`` of every row of ``q`` ``(m, 6)`` into ``out`` ``(m, 4)`` (model arrays
    as :func:`newton_rows`): :func:`thermocomp.kinematics.confdata.confdata_from_q`, its reference, with the
    joint frames of :func:`_fk_jacobian` and the forward direction taken from the walk after axis 1."""
    m, n = q.shape
    blocks = min(m, 64)
    per_row = p_joint.shape[0] > 1
    quarter = np.pi / 2
    for blk in prange(blocks):
        R = np.empty((3, 3))
        p = np.empty(3)
        J = np.empty((6, n))
        origins = np.empty((n, 3))
        axes = np.empty((n, 3))
        rot = np.empty((3, 3))
        tmp = np.empty((3, 3))
        R1 = np.empty((3, 3))
        for r in range(blk * m // blocks, (blk + 1) * m // blocks):
            b = r if per_row else 0
            _fk_jacobian(R_base[b], p_base[b], R_joint[b], p_joint[b], nominal, R_tool[b], p_tool[b], axis, principal,
                         principal_sign, sign, offset, q[r], R, p, J, origins, axes, rot, tmp)
            # the base x axis turned by axis 1: column 0 of R_base R_joint[0] Rot(axis 1, theta 1)
            if nominal:
                for i in range(3):
                    for j in range(3):
                        tmp[i, j] = R_base[b, i, j]
            else:
                _matmul3(R_base[b], R_joint[b, 0], tmp)
            theta = sign[0] * q[r, 0] + offset[0]
            _rot_axis_into(rot, axis[0], math.sin(theta), math.cos(theta))
            _matmul3(tmp, rot, R1)
            wx, wy, wz = origins[4, 0], origins[4, 1], origins[4, 2]
            ahead = (wx - origins[0, 0]) * R1[0, 0] + (wy - origins[0, 1]) * R1[1, 0] + (wz - origins[0, 2]) * R1[2, 0]
            lx, ly, lz = origins[2, 0] - origins[1, 0], origins[2, 1] - origins[1, 1], origins[2, 2] - origins[1, 2]
            ux, uy, uz = wx - origins[1, 0], wy - origins[1, 1], wz - origins[1, 2]
            side = ((ly * uz - lz * uy) * axes[1, 0] + (lz * ux - lx * uz) * axes[1, 1] + (lx * uy - ly * ux) * axes[1, 2])
            out[r, 0] = math.floor(q[r, 0] / quarter)
            out[r, 1] = math.floor(q[r, 3] / quarter)
            out[r, 2] = math.floor(q[r, 5] / quarter)
            out[r, 3] = 4 * (ahead < 0) + 2 * (side < 0) + (q[r, 4] < 0)


@njit(cache=True, inline="always")
def _fk_block(R_base, p_base, R_joint, p_joint, nominal, R_tool, p_tool, axis, principal, principal_sign, sign, offset,
              q, R_out, p_out, start, stop):
    """:func:`_fk_jacobian` without the Jacobian, for rows ``start:stop``."""
    n = q.shape[1]
    per_row = p_joint.shape[0] > 1
    R = np.empty((3, 3))
    p = np.empty(3)
    rot = np.empty((3, 3))
    tmp = np.empty((3, 3))
    for r in range(start, stop):
        b = r if per_row else 0
        for i in range(3):
            p[i] = p_base[b, i]
            for j in range(3):
                R[i, j] = R_base[b, i, j]
        for k in range(n):
            for i in range(3):
                p[i] += R[i, 0] * p_joint[b, k, 0] + R[i, 1] * p_joint[b, k, 1] + R[i, 2] * p_joint[b, k, 2]
            if not nominal:
                _matmul3(R, R_joint[b, k], tmp)
                for i in range(3):
                    for j in range(3):
                        R[i, j] = tmp[i, j]
            theta = sign[k] * q[r, k] + offset[k]
            if principal[k] >= 0:
                kk = principal[k]
                i1, j1 = (kk + 1) % 3, (kk + 2) % 3
                st, ct = principal_sign[k] * math.sin(theta), math.cos(theta)
                for i in range(3):
                    a, c = R[i, i1], R[i, j1]
                    R[i, i1] = ct * a + st * c
                    R[i, j1] = ct * c - st * a
            else:
                _rot_axis_into(rot, axis[k], math.sin(theta), math.cos(theta))
                _matmul3(R, rot, tmp)
                for i in range(3):
                    for j in range(3):
                        R[i, j] = tmp[i, j]
        for i in range(3):
            p_out[r, i] = p[i] + R[i, 0] * p_tool[b, 0] + R[i, 1] * p_tool[b, 1] + R[i, 2] * p_tool[b, 2]
        _matmul3(R, R_tool[b], R_out[r])


@njit(cache=True, inline="always")
def _pivot(lu, k):
    """Partial pivoting of column ``k``: the row of its largest entry at or below ``k`` swapped into row ``k``;
    that row's index, or -1 when the column is zero there (a singular matrix)."""
    n = lu.shape[0]
    pivot = k
    for i in range(k + 1, n):
        if abs(lu[i, k]) > abs(lu[pivot, k]):
            pivot = i
    if lu[pivot, k] == 0.0:
        return -1
    if pivot != k:
        for j in range(n):
            lu[k, j], lu[pivot, j] = lu[pivot, j], lu[k, j]
    return pivot


@njit(cache=True, inline="always")
def _lu_in_place(lu, y):
    """LU with partial pivoting of the square ``lu`` in place (as LAPACK's getrf), the same row swaps and
    eliminations applied to ``y``; returns the determinant, 0.0 when a column has no pivot (then stops)."""
    n = lu.shape[0]
    det = 1.0
    for k in range(n):
        pivot = _pivot(lu, k)
        if pivot < 0:
            return 0.0
        if pivot != k:
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


@njit(cache=True, inline="always")
def _back_substitute(lu, y, x):
    """``x`` of the upper triangle of :func:`_lu_in_place`'s ``lu`` and its ``y``."""
    n = lu.shape[0]
    for i in range(n - 1, -1, -1):
        s = y[i]
        for j in range(i + 1, n):
            s -= lu[i, j] * x[j]
        x[i] = s / lu[i, i]


@njit(cache=True, parallel=True, nogil=True)
def det_rows(A):
    """Determinant of each square matrix ``A`` ``(m, n, n)`` by LU with partial pivoting (as LAPACK's getrf).

    ``numpy.linalg.det`` of a million 6x6 Jacobians costs 0.6 s in numpy's
    batched LAPACK loop; here each row is a few hundred flops, in scratch
    arrays of its block (an allocation a row cost as much as the flops). The
    same factorisation, so the values agree to round-off (tests/test_kinematics.py).
    """
    m, n = A.shape[0], A.shape[1]
    out = np.empty(m)
    blocks = min(m, 64)
    for blk in prange(blocks):
        lu = np.empty((n, n))
        y = np.zeros(n)
        for r in range(blk * m // blocks, (blk + 1) * m // blocks):
            lu[:, :] = A[r]
            out[r] = _lu_in_place(lu, y)
    return out


@njit(cache=True, parallel=True, nogil=True)
def solve_rows(A, b):
    """``x`` with ``A[r] x[r] = b[r]`` for each square ``A`` ``(m, n, n)``, ``b`` ``(m, n)``, by the LU of
    :func:`det_rows` (as LAPACK's gesv); rows with a zero pivot are NaN.

    ``numpy.linalg.solve`` of 100,000 6x6 systems costs 40-80 ms in its batched loop, most of it per-call
    overhead; the tests compare the two (tests/test_kinematics.py).
    """
    m, n = A.shape[0], A.shape[1]
    x = np.empty((m, n))
    blocks = min(m, 64)
    for blk in prange(blocks):
        lu = np.empty((n, n))
        y = np.empty(n)
        for r in range(blk * m // blocks, (blk + 1) * m // blocks):
            lu[:, :] = A[r]
            y[:] = b[r]
            if _lu_in_place(lu, y) == 0.0:
                x[r, :] = np.nan
            else:
                _back_substitute(lu, y, x[r])
    return x


@njit(cache=True, parallel=True, nogil=True)
def jacobian_rates_rows(R_base, p_base, R_joint, p_joint, nominal, R_tool, p_tool, axis, principal, principal_sign,
                        sign, offset, q, v, w, lever, bound_out, qd_out):
    """Per row of ``q`` ``(m, n)``, in one pass (the feasibility check's steps along a path): the Jacobian
    (as :func:`fk_jacobian_rows`, model arrays as :func:`newton_rows`; not kept: the few rows whose bound
    needs it again take it from :func:`fk_jacobian_rows`, the same bits), the first tier of
    :func:`thermocomp.kinematics.ik.sigma_min_lower_bound`, ``|det J| / (|J|_F^2 / (n - 1))^((n - 1) / 2)``, into
    ``bound_out[r]``, and the joint rates ``qd_out[r] = J^-1 twist[r]`` (as :func:`solve_rows`: NaN where a pivot
    is zero), the twist being ``(v - w x lever, w)`` of the rows of ``v``, ``w``, ``lever`` ``(m, 3)`` (numpy's
    cross product's operations). ``n`` must be 6 (a square Jacobian)."""
    m, n = q.shape
    blocks = min(m, 64)
    per_row = p_joint.shape[0] > 1
    for blk in prange(blocks):
        R = np.empty((3, 3))
        p = np.empty(3)
        origins = np.empty((n, 3))
        axes = np.empty((n, 3))
        rot = np.empty((3, 3))
        tmp = np.empty((3, 3))
        lu = np.empty((n, n))
        y = np.empty(n)
        J = np.empty((6, n))
        for r in range(blk * m // blocks, (blk + 1) * m // blocks):
            b = r if per_row else 0
            _fk_jacobian(R_base[b], p_base[b], R_joint[b], p_joint[b], nominal, R_tool[b], p_tool[b], axis, principal,
                         principal_sign, sign, offset, q[r], R, p, J, origins, axes, rot, tmp)
            frobenius_sq = 0.0
            for i in range(n):
                for j in range(n):
                    lu[i, j] = J[i, j]
                    frobenius_sq += J[i, j] * J[i, j]
            y[0] = v[r, 0] - (w[r, 1] * lever[r, 2] - w[r, 2] * lever[r, 1])
            y[1] = v[r, 1] - (w[r, 2] * lever[r, 0] - w[r, 0] * lever[r, 2])
            y[2] = v[r, 2] - (w[r, 0] * lever[r, 1] - w[r, 1] * lever[r, 0])
            y[3], y[4], y[5] = w[r, 0], w[r, 1], w[r, 2]
            det = _lu_in_place(lu, y)
            others = (max(frobenius_sq, 1e-300) / (n - 1)) ** ((n - 1) / 2)
            bound_out[r] = abs(det) / others
            if det == 0.0:
                qd_out[r, :] = np.nan
            else:
                _back_substitute(lu, y, qd_out[r])


@njit(cache=True, parallel=True, nogil=True)
def pose_error_rows(R_target, p_target, R, p, out):
    """:func:`thermocomp.kinematics.ik.pose_error` of every row into ``out`` ``(m, 6)``: ``p_target - p``, then
    the rotation vector of ``R_target @ R.T`` (numpy's version builds a dozen ``(m, 3)`` temporaries)."""
    m = R.shape[0]
    blocks = min(m, 64)
    for blk in prange(blocks):
        Rerr = np.empty((3, 3))
        w = np.empty(3)
        for r in range(blk * m // blocks, (blk + 1) * m // blocks):
            for i in range(3):
                out[r, i] = p_target[r, i] - p[r, i]
                for j in range(3):
                    Rerr[i, j] = R_target[r, i, 0] * R[r, j, 0] + R_target[r, i, 1] * R[r, j, 1] \
                        + R_target[r, i, 2] * R[r, j, 2]
            _rotvec(Rerr, w)
            out[r, 3], out[r, 4], out[r, 5] = w[0], w[1], w[2]


@njit(cache=True, parallel=True, nogil=True)
def fit_limits_rows(q, lower, upper, q_near, out, fits):
    """:func:`thermocomp.kinematics.ik.fit_limits` of every row of ``q`` ``(m, n)`` into ``out``, ``fits`` ``(m,)``:
    its operations on each value in its order (numpy's ``round`` is ``rint``; its ``clip`` a maximum, then a
    minimum, written as numpy's C loop writes them)."""
    m, n = q.shape
    two_pi = 2.0 * np.pi
    blocks = min(m, 64)
    for blk in prange(blocks):
        for r in range(blk * m // blocks, (blk + 1) * m // blocks):
            every = True
            for j in range(n):
                x = q[r, j]
                k_near = np.rint((q_near[r, j] - x) / two_pi)
                k_lo = np.ceil((lower[j] - x) / two_pi)
                k_hi = np.floor((upper[j] - x) / two_pi)
                k = k_near if (math.isnan(k_near) or k_near > k_lo) else k_lo  # numpy's clip: NaN kept, a
                k = k if (math.isnan(k) or k < k_hi) else k_hi  # tie takes the bound (the sign of a zero too)
                fit = k_lo <= k_hi
                out[r, j] = x + two_pi * k if fit else x
                every = every and fit
            fits[r] = every
