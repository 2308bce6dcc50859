"""One deformed robot per row, built in compiled code (numba, cached on disk).

A timed program meets the robot at a different minute on every row: a
1,000,000-pose toolpath needs a million deformed models, eight frames each.
numpy's :func:`~thermocomp.deformation.apply.deformed_model` builds them with a
dozen array passes (the Euler rotations, the base's and tool's products, the
copies the kernels need): some 1.5 s there. :func:`deformed_rows` writes the
same frames row by row, in parallel blocks, with the same arithmetic in the
same order; the numpy function stays the reference (tests/test_deformation.py
compares the two).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange


@njit(cache=True, nogil=True, inline="always")
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


@njit(cache=True, parallel=True, nogil=True)
def deformed_rows(rows, fraction, p_nominal, R_base_nominal, R_tool_nominal, R_base, p_base, R_joint, p_joint,
                  R_tool, p_tool):
    """The frames of the robot deformed by ``fraction[r]`` times the table ``rows`` ``(n + 2, 6)`` (base, joints,
    tool; SI), for every ``r``: ``R_base`` ``(m, 3, 3)``, ``p_base`` ``(m, 3)``, ``R_joint`` ``(m, n, 3, 3)``,
    ``p_joint`` ``(m, n, 3)``, ``R_tool`` ``(m, 3, 3)``, ``p_tool`` ``(m, 3)``; ``p_nominal`` ``(n + 2, 3)`` the
    nominal translations, ``R_base_nominal`` and ``R_tool_nominal`` the base's and tool's own rotations (the
    joints' is the identity)."""
    m = fraction.shape[0]
    n = rows.shape[0] - 2
    identity = np.eye(3)
    blocks = min(m, 64)
    for blk in prange(blocks):
        for r in range(blk * m // blocks, (blk + 1) * m // blocks):
            s = fraction[r]
            _frame(rows, 0, s, p_nominal, R_base_nominal, R_base[r], p_base[r])
            for k in range(n):
                _frame(rows, k + 1, s, p_nominal, identity, R_joint[r, k], p_joint[r, k])
            _frame(rows, n + 1, s, p_nominal, R_tool_nominal, R_tool[r], p_tool[r])
