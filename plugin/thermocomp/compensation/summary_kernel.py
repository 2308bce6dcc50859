"""A chunk's running totals in one compiled pass (numba), for :class:`~thermocomp.compensation.compensate.CompensationSummary`.

The summary takes, per chunk, the extremes of the deviations and residuals over
converged rows, the largest uncompensated miss over rows with a nominal
solution, and each converged row's errors and corrections for the per-minute
table. In numpy that was a dozen masked copies and reductions along short
axes: 0.55 us a row, half a second of a million-pose run. Here each row is
read once. The norms are summed in numpy's order (``np.linalg.norm`` of a
3-vector: ``(x0^2 + x1^2) + x2^2``), so the values are the same bits;
tests/test_program_shapes.py compares the two.
"""

from __future__ import annotations

import math

from numba import njit


@njit(cache=True, nogil=True, inline="always")
def _norm3(a, i, first):
    return math.sqrt(a[i, first] * a[i, first] + a[i, first + 1] * a[i, first + 1]
                     + a[i, first + 2] * a[i, first + 2])


@njit(cache=True, nogil=True, inline="always")
def _smaller(x, than):  # numpy.minimum's choice: a NaN wins
    return x if (x < than or x != x) else than


@njit(cache=True, nogil=True, inline="always")
def _larger(x, than):  # numpy.maximum's choice: a NaN wins
    return x if (x > than or x != x) else than


@njit(cache=True, nogil=True)
def chunk_totals(ok, nominal_ok, deviation, uncompensated, q, q_nominal, minute, position_error, orientation_error,
                 extremes, values, minutes):
    """Fold a chunk into ``extremes`` ``(16,)`` and write its per-minute rows; returns how many.

    ``extremes``: deviation minima (6) and maxima (6), then the largest position and orientation residual of
    rows ``ok``, then the largest uncompensated position and angle miss of rows ``nominal_ok`` (updated in
    place: start from ``inf``, ``-inf``, zeros; a NaN, which no converged row holds, would stay).
    ``values[k]`` ``(4 + n)``: the uncompensated position and angle miss, the deviation's position and angle,
    ``|q - q_nominal|``, of the ``k``-th row both ``ok`` and ``nominal_ok``, its ``floor(minute)`` into
    ``minutes[k]``.
    """
    r, n = q.shape
    k = 0
    for i in range(r):
        if ok[i]:
            for j in range(6):
                extremes[j] = _smaller(deviation[i, j], extremes[j])
                extremes[6 + j] = _larger(deviation[i, j], extremes[6 + j])
            extremes[12] = _larger(position_error[i], extremes[12])
            extremes[13] = _larger(orientation_error[i], extremes[13])
        if nominal_ok[i]:
            miss = _norm3(uncompensated, i, 0)
            turn = _norm3(uncompensated, i, 3)
            extremes[14] = _larger(miss, extremes[14])
            extremes[15] = _larger(turn, extremes[15])
            if ok[i]:
                values[k, 0], values[k, 1] = miss, turn
                values[k, 2], values[k, 3] = _norm3(deviation, i, 0), _norm3(deviation, i, 3)
                for j in range(n):
                    values[k, 4 + j] = abs(q[i, j] - q_nominal[i, j])
                minutes[k] = math.floor(minute[i])
                k += 1
    return k
