"""Hostile input found by the twelfth adversarial run (hostile12_attack.py), each test a class: many laser-tracker
measurements (within the stated bound of 100,000) held memory quadratic in their count; ...
"""

from __future__ import annotations

import tracemalloc

import numpy as np

# ----- calibrate: the identifiability analysis of N measurements holds memory of N, not N^2


def test_the_identifiability_of_many_measurements_holds_no_square_matrix_of_them():
    """5,000 measurements (15,000 rows of the Jacobian) took 9 minutes and 3.7 GB, and 20,000 ran out of memory: the
    SVD of the candidates' columns made U of (N, N), of which nothing is read. Its peak is now within a few times the
    Jacobian's own size, whatever N; the singular values and the identifiable directions are the same."""
    from thermocomp.calibration.identifiability import analyse

    rng = np.random.default_rng(12)
    n, z = 3000, 8
    A = rng.standard_normal((n, z))
    A[:, 7] = A[:, 5] + A[:, 6]  # (one combination the poses cannot tell apart: rank 7)
    tracemalloc.start()
    try:
        found = analyse(A, np.arange(2, z), np.arange(2), np.ones(z), 1e-9)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20 * A.nbytes  # (U of (N, N) alone is 375 times A's size here)
    C = A[:, 2:] - A[:, :2] @ np.linalg.lstsq(A[:, :2], A[:, 2:], rcond=None)[0]
    assert found.rank == 5
    np.testing.assert_allclose(found.singular_values[:5], np.linalg.svd(C, compute_uv=False)[:5], rtol=1e-10)
    assert found.V_identifiable.shape == (6, 5)
