"""The closed forms of :mod:`thermocomp.kinematics.closed_form`, compiled pose by pose, and the path's branch choice.

The numpy closed forms build every branch of every pose from a few dozen
``(m, 2, 2, 2)`` temporaries; here each pose computes its 8 branches in
registers (numba, cached on disk with ``cache=True``, so only the first run
on a machine compiles), the poses in parallel blocks. The equations are the numpy ones, term for term
(the derivation is in :mod:`thermocomp.kinematics.closed_form`), and the
branch order is theirs: ``shoulder * 4 + elbow * 2 + wrist`` for the OPW
arm, ``shoulder * 4 + wrist (joint 5) * 2 + elbow`` for the UR arm. The
numpy functions stay the reference: ``tests/test_closed_form.py`` compares
the two on random poses of placed robots.

:func:`follow_branches` is the branch choice of
:func:`thermocomp.kinematics.seeding._path_closed_form` as one sequential
loop (each pose keeps its predecessor's branch when it moved less than
:data:`~thermocomp.tolerances.BRANCH_JUMP`, else takes the nearest of the
next pose's 8), where the numpy form had to compare the branches of every
pose with every branch of the next to stay batched.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

#: ``|x| <= 1 + ACOS_SLOP`` still has an arc cosine (clipped): round-off of a stretched arm.
ACOS_SLOP = 1e-12


@njit(cache=True, nogil=True)
def _shoulder(d0, d1, L_y):
    """``phi_1`` front and back: ``Rz(-phi_1) d`` has ``y == L_y`` (NaN when out of reach)."""
    r = math.hypot(d0, d1)
    ratio = L_y / r if r > 0.0 else math.nan
    if not abs(ratio) <= 1.0:
        ratio = math.nan
    alpha = math.asin(ratio)
    phi = math.atan2(d1, d0)
    return phi - alpha, phi - (math.pi - alpha)


@njit(cache=True, nogil=True)
def _acos(x):
    """``acos(x)``, ``x`` clipped to ``[-1, 1]`` within :data:`ACOS_SLOP` (round-off), NaN beyond (no branch)."""
    return math.acos(min(1.0, max(-1.0, x))) if abs(x) <= 1.0 + ACOS_SLOP else math.nan


@njit(cache=True, nogil=True)
def _planar(t0, t1, a0, a1, b0, b1, out2, out3):
    """Two-link arm ``t = Ry(phi_2) (a + Ry(phi_3) b)`` in the ``(x, z)`` plane: both elbows into ``out2``, ``out3``."""
    A = a0 * b0 + a1 * b1
    B = a0 * b1 - a1 * b0
    K = 0.5 * (t0 * t0 + t1 * t1 - (a0 * a0 + a1 * a1) - (b0 * b0 + b1 * b1))
    acos = _acos(K / math.hypot(A, B))
    base = math.atan2(B, A)
    target = math.atan2(t1, t0)
    for e in range(2):
        phi3 = base + (acos if e == 0 else -acos)
        c3, s3 = math.cos(phi3), math.sin(phi3)
        vx = a0 + b0 * c3 + b1 * s3
        vz = a1 - b0 * s3 + b1 * c3
        out2[e] = math.atan2(vz, vx) - target
        out3[e] = phi3


#: Branches of a pose (shoulder x elbow x wrist).
N_BRANCHES = 8
#: Rows run in this many parallel blocks at most (each row's result is the same whatever the blocks).
BLOCKS = 64


@njit(cache=True, parallel=True)
def opw_rows(R6, o6, p, out):
    """Canonical angles of the ortho-parallel arm with a spherical wrist, ``out`` ``(m, 8, 6)``.

    ``R6`` ``(m, 3, 3)`` and ``o6`` ``(m, 3)``: the last joint's frame in the base
    frame (``closed_form._flange``); ``p`` ``(6, 3)``: the model's joint translations.
    Rows are independent: they run in parallel blocks.
    """
    m = o6.shape[0]
    blocks = min(m, BLOCKS)
    for blk in prange(blocks):
        _opw_block(R6, o6, p, out, blk * m // blocks, (blk + 1) * m // blocks)


@njit(cache=True, nogil=True)
def _opw_block(R6, o6, p, out, start, stop):
    """:func:`opw_rows` of rows ``start:stop``."""
    scratch = np.empty(10)
    for j in range(start, stop):
        _opw_pose(R6, o6, p, j, -1, out[j], scratch)


@njit(cache=True, nogil=True)
def _opw_pose(R6, o6, p, j, only, out, scratch):
    """Branches of pose ``j`` into ``out`` ``(8, 6)``: all of them, or only branch ``only`` (``>= 0``).

    One branch alone is the same arithmetic as within all eight (the same
    function), so its angles are equal to the last bit. ``scratch``: 10 floats.
    """
    e0, e1, e2 = p[3, 0] + p[4, 0], p[3, 1], p[3, 2]  # joint 3's origin to the wrist centre, at phi_3 = 0
    L_y = p[1, 1] + p[2, 1] + e1
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
        _planar(ux - p[1, 0], d2 - p[1, 2], p[2, 0], p[2, 2], e0, e2, phi2, phi3)
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


@njit(cache=True, parallel=True)
def ur_rows(R6, o6, p, out):
    """Canonical angles of the arm with three parallel axes (UR type), ``out`` ``(m, 8, 6)``; inputs as :func:`opw_rows`."""
    m = o6.shape[0]
    blocks = min(m, BLOCKS)
    for blk in prange(blocks):
        _ur_block(R6, o6, p, out, blk * m // blocks, (blk + 1) * m // blocks)


@njit(cache=True, nogil=True)
def _ur_block(R6, o6, p, out, start, stop):
    """:func:`ur_rows` of rows ``start:stop``."""
    scratch = np.empty(10)
    for j in range(start, stop):
        _ur_pose(R6, o6, p, j, -1, out[j], scratch)


@njit(cache=True, nogil=True)
def _ur_pose(R6, o6, p, j, only, out, scratch):
    """Branches of pose ``j`` into ``out`` ``(8, 6)``, all or only ``only``, as :func:`_opw_pose`."""
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
            _planar(u4x - p[1, 0], u4z - p[1, 2], p[2, 0], p[2, 2], p[3, 0], p[3, 2], phi2, phi3)
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


@njit(cache=True, parallel=True)
def controller_rows(phi, axis_sign, sign, offset, lower, upper, near, q, valid):
    """Canonical angles ``phi`` ``(m, k, n)`` to controller angles in ``q``, each shifted by whole turns into its limits.

    ``theta = axis_sign * phi``, ``q = sign * (theta - offset)``; each joint
    then moves by whole turns into ``[lower, upper]``, nearest ``near``
    (``(m, n)``, or ``(1, n)`` for every pose), as
    :func:`thermocomp.kinematics.ik.fit_limits`. A branch with a NaN angle
    (it does not exist) is NaN throughout. ``valid`` ``(m, k)``: the branch
    exists and every angle lies inside its limits.
    """
    m = phi.shape[0]
    blocks = min(m, BLOCKS)
    for blk in prange(blocks):
        _controller_block(phi, axis_sign, sign, offset, lower, upper, near, q, valid, blk * m // blocks,
                          (blk + 1) * m // blocks)


@njit(cache=True, nogil=True)
def _controller_block(phi, axis_sign, sign, offset, lower, upper, near, q, valid, start, stop):
    """:func:`controller_rows` of rows ``start:stop``."""
    shared = near.shape[0] == 1
    for j in range(start, stop):
        r = 0 if shared else j
        for b in range(phi.shape[1]):
            valid[j, b] = _controller_branch(phi[j, b], axis_sign, sign, offset, lower, upper, near[r], q[j, b])


@njit(cache=True, nogil=True)
def _controller_branch(phi, axis_sign, sign, offset, lower, upper, near, q):
    """One branch's canonical angles ``phi`` ``(n,)`` to controller angles in ``q`` ``(n,)``, as :func:`controller_rows`;
    returns whether the branch exists and fits the limits."""
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


@njit(cache=True, nogil=True)
def _distance(q, i, a, r, b):
    """``|wrap(q[i, a] - r[b])|``: joint-space distance modulo whole turns."""
    return _row_distance(q[i, a], r[b])


@njit(cache=True, nogil=True)
def _row_distance(x, y):
    """``|wrap(x - y)|`` of two rows ``(n,)``: joint-space distance modulo whole turns."""
    total = 0.0
    two_pi = 2.0 * math.pi
    for k in range(x.shape[0]):
        d = x[k] - y[k]
        d -= two_pi * np.rint(d / two_pi)
        total += d * d
    return math.sqrt(total)


@njit(cache=True, nogil=True)
def follow_branches(q, penalty, q_start, jump):
    """Per pose, the branch taken along the path: ``(m,)`` indices into ``q`` ``(m, k, n)``.

    ``penalty`` ``(m, k)``: 0 for a branch inside the limits, a large number
    outside them, inf where the branch does not exist (its ``q`` row holds
    any finite numbers). Pose 0 takes the branch nearest ``q_start``; then a
    branch is kept while it moves less than ``jump`` to the next pose (and
    stays ranked under ``jump``), else the next pose's nearest branch is taken;
    from a branch that does not exist, the next pose's best-ranked one.
    Ties go to the lower index (as :func:`numpy.argmin`).
    """
    m, k = penalty.shape
    choice = np.empty(m, dtype=np.int64)
    if m == 0:
        return choice
    start = q_start.reshape(1, -1)
    best, b = math.inf, 0
    for c in range(k):
        value = _distance(q, 0, c, start, 0) + penalty[0, c]
        if c == 0 or value < best:
            best, b = value, c
    choice[0] = b
    for i in range(m - 1):
        nxt = q[i + 1]
        if penalty[i, b] == math.inf:  # from a missing branch: the next pose's best-ranked
            best, b_next = penalty[i + 1, 0], 0
            for c in range(1, k):
                if penalty[i + 1, c] < best:
                    best, b_next = penalty[i + 1, c], c
        elif _distance(q, i, b, nxt, b) + penalty[i + 1, b] < jump:
            b_next = b
        else:
            best, b_next = math.inf, 0
            for c in range(k):
                value = _distance(q, i, b, nxt, c) + penalty[i + 1, c]
                if c == 0 or value < best:
                    best, b_next = value, c
        choice[i + 1] = b_next
        b = b_next
    return choice


@njit(cache=True, nogil=True)
def _fill(opw, R6, o6, p, j, only, axis_sign, sign, offset, lower, upper, near, big, phi, scratch, q, penalty):
    """Branches of pose ``j`` (all, or only ``only``) as :func:`follow_branches` sees them: controller angles in
    ``q`` ``(8, n)`` (zeros where a branch does not exist) and ``penalty`` ``(8,)`` (0 inside the limits, ``big``
    outside, inf where the branch does not exist)."""
    if opw:
        _opw_pose(R6, o6, p, j, only, phi, scratch)
    else:
        _ur_pose(R6, o6, p, j, only, phi, scratch)
    lo, hi = (0, phi.shape[0]) if only < 0 else (only, only + 1)
    for b in range(lo, hi):
        inside = _controller_branch(phi[b], axis_sign, sign, offset, lower, upper, near, q[b])
        if q[b, 0] != q[b, 0]:
            penalty[b] = math.inf
            q[b, :] = 0.0
        else:
            penalty[b] = 0.0 if inside else big


@njit(cache=True, nogil=True)
def _follow_from(opw, R6, o6, p, axis_sign, sign, offset, lower, upper, q_start, jump, big, start, stop, b, q_b,
                 penalty_b, q_out, penalty_out):
    """:func:`follow_path`'s choice for poses ``start..stop-1``, from the state before ``start``: branch ``b``,
    its angles ``q_b`` and penalty ``penalty_b`` (only the taken branch of a pose is read by the next). Returns
    the branch of the last pose."""
    n = q_start.shape[0]
    phi = np.empty((N_BRANCHES, n))
    scratch = np.empty(10)
    cur, nxt = np.empty((N_BRANCHES, n)), np.empty((N_BRANCHES, n))
    pc, pn = np.empty(N_BRANCHES), np.empty(N_BRANCHES)
    cur[b] = q_b
    pc[b] = penalty_b
    for i in range(start - 1, stop - 1):
        if pc[b] == math.inf:  # from a missing branch: the next pose's best-ranked
            _fill(opw, R6, o6, p, i + 1, -1, axis_sign, sign, offset, lower, upper, q_start, big, phi, scratch, nxt, pn)
            best, b_next = pn[0], 0
            for c in range(1, N_BRANCHES):
                if pn[c] < best:
                    best, b_next = pn[c], c
        else:
            _fill(opw, R6, o6, p, i + 1, b, axis_sign, sign, offset, lower, upper, q_start, big, phi, scratch, nxt, pn)
            if _row_distance(cur[b], nxt[b]) + pn[b] < jump:
                b_next = b
            else:
                _fill(opw, R6, o6, p, i + 1, -1, axis_sign, sign, offset, lower, upper, q_start, big, phi, scratch, nxt,
                      pn)
                best, b_next = math.inf, 0
                for c in range(N_BRANCHES):
                    value = _row_distance(cur[b], nxt[c]) + pn[c]
                    if c == 0 or value < best:
                        best, b_next = value, c
        q_out[i + 1] = nxt[b_next]
        penalty_out[i + 1] = pn[b_next]
        cur, nxt = nxt, cur
        pc, pn = pn, pc
        b = b_next
    return b


@njit(cache=True, nogil=True, parallel=True)
def follow_path(opw, R6, o6, p, axis_sign, sign, offset, lower, upper, q_start, jump, big, segments, q_out,
                penalty_out):
    """:func:`follow_branches` along a path, computing only the branches it looks at.

    Inputs as :func:`opw_rows` (``opw`` True) or :func:`ur_rows` (False) and
    :func:`controller_rows` (every pose's angles shifted nearest
    ``q_start``); ``big`` ranks a branch outside the limits. Fills, per pose,
    the chosen branch's controller angles ``q_out`` ``(m, n)`` (zeros where it
    does not exist) and its penalty ``penalty_out`` ``(m,)`` (0, ``big`` or
    inf). The choice is :func:`follow_branches`'s on all eight branches of
    every pose, to the bit: a pose that keeps its predecessor's branch (the
    common case on a path) needs that branch only, computed by the same
    functions; all eight are computed at the first pose, after a jump and
    after a missing branch.

    With ``segments`` > 1 the path is followed in that many pieces at once,
    each but the first from the guess that the pose before it took the first
    pose's branch (a smooth path keeps one branch): a piece whose guess the
    piece before it did not end on is followed again, with the rest of the
    path, from where that piece really ended. The choice is the same.
    """
    m = o6.shape[0]
    n = q_start.shape[0]
    if m == 0:
        return
    phi = np.empty((N_BRANCHES, n))
    scratch = np.empty(10)
    cur, pc = np.empty((N_BRANCHES, n)), np.empty(N_BRANCHES)
    _fill(opw, R6, o6, p, 0, -1, axis_sign, sign, offset, lower, upper, q_start, big, phi, scratch, cur, pc)
    best, b = math.inf, 0
    for c in range(N_BRANCHES):
        value = _row_distance(cur[c], q_start) + pc[c]
        if c == 0 or value < best:
            best, b = value, c
    q_out[0] = cur[b]
    penalty_out[0] = pc[b]
    pieces = max(1, min(segments, m - 1))
    ends = np.empty(pieces, dtype=np.int64)  # the branch each piece ended on
    for s in prange(pieces):
        start, stop = 1 + s * (m - 1) // pieces, 1 + (s + 1) * (m - 1) // pieces
        if s == 0:
            ends[s] = _follow_from(opw, R6, o6, p, axis_sign, sign, offset, lower, upper, q_start, jump, big, start,
                                   stop, b, cur[b], pc[b], q_out, penalty_out)
        else:  # guessed: the pose before took the first pose's branch
            g_phi = np.empty((N_BRANCHES, n))
            g_scratch = np.empty(10)
            g_q, g_pen = np.empty((N_BRANCHES, n)), np.empty(N_BRANCHES)
            _fill(opw, R6, o6, p, start - 1, b, axis_sign, sign, offset, lower, upper, q_start, big, g_phi, g_scratch,
                  g_q, g_pen)
            ends[s] = _follow_from(opw, R6, o6, p, axis_sign, sign, offset, lower, upper, q_start, jump, big, start,
                                   stop, b, g_q[b], g_pen[b], q_out, penalty_out)
    for s in range(1, pieces):
        if ends[s - 1] != b:  # the guess was wrong: the rest again, from where the piece before really ended
            start = 1 + s * (m - 1) // pieces
            _follow_from(opw, R6, o6, p, axis_sign, sign, offset, lower, upper, q_start, jump, big, start, m,
                         ends[s - 1], q_out[start - 1].copy(), penalty_out[start - 1], q_out, penalty_out)
            break
