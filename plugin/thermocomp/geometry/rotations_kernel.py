"""Compiled row forms of :mod:`thermocomp.geometry.rotations`, for batches of many rows.

numpy's temporaries cost more than the arithmetic on a batch of 3x3
matrices: :func:`~thermocomp.geometry.rotations.quat_wxyz_from_matrix` built
a dozen arrays for the 100,000 orientations of a written RAPID program. Each
kernel here runs the numpy form's operations in the same order on each row,
so the results are bit for bit the same; the numpy form stays the reference
(tests/test_rotations.py).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit


@njit(cache=True, nogil=True, error_model="numpy")
def quat_rows(R, out):
    """Shepperd's quaternion ``(w, x, y, z)``, ``w >= 0``, of each ``R`` ``(m, 3, 3)`` into ``out`` ``(m, 4)``:
    the largest diagonal combination chosen as ``np.argmax`` chooses (the first largest, a NaN first)."""
    cand = np.empty(4)
    for r in range(R.shape[0]):
        m00, m11, m22 = R[r, 0, 0], R[r, 1, 1], R[r, 2, 2]
        cand[0] = 1 + m00 + m11 + m22
        cand[1] = 1 + m00 - m11 - m22
        cand[2] = 1 - m00 + m11 - m22
        cand[3] = 1 - m00 - m11 + m22
        k = 0
        if not math.isnan(cand[0]):
            for j in range(1, 4):
                if math.isnan(cand[j]):
                    k = j
                    break
                if cand[j] > cand[k]:
                    k = j
        s = 2.0 * math.sqrt(cand[k])
        r21_12, r02_20, r10_01 = R[r, 2, 1] - R[r, 1, 2], R[r, 0, 2] - R[r, 2, 0], R[r, 1, 0] - R[r, 0, 1]
        r01_10, r02p20, r12_21 = R[r, 0, 1] + R[r, 1, 0], R[r, 0, 2] + R[r, 2, 0], R[r, 1, 2] + R[r, 2, 1]
        if k == 0:
            w, x, y, z = s / 4, r21_12 / s, r02_20 / s, r10_01 / s
        elif k == 1:
            w, x, y, z = r21_12 / s, s / 4, r01_10 / s, r02p20 / s
        elif k == 2:
            w, x, y, z = r02_20 / s, r01_10 / s, s / 4, r12_21 / s
        else:
            w, x, y, z = r10_01 / s, r02p20 / s, r12_21 / s, s / 4
        sign = -1.0 if w < 0 else 1.0
        out[r, 0], out[r, 1], out[r, 2], out[r, 3] = w * sign, x * sign, y * sign, z * sign
