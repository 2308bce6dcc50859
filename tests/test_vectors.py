"""``row_norms`` is ``np.linalg.norm(v, axis=-1)`` bit for bit, for the short vectors it is used on (up to 7
components: from 8 on numpy sums in pairs)."""

from __future__ import annotations

import numpy as np
import pytest

from thermocomp.geometry.vectors import row_max_abs, row_norms


@pytest.mark.parametrize("k", range(1, 8))
def test_row_norms_are_numpys_to_the_bit(k):
    rng = np.random.default_rng(k)
    whole = rng.normal(size=(4_000, 2 * k)) * 10.0 ** rng.integers(-12, 12, (4_000, 1))
    for v in (whole[:, :k], whole[:, k:], np.ascontiguousarray(whole[:, :k]), whole[::3, :k],
              whole[:, :k].reshape(40, 100, k), np.zeros((0, k)), whole[:1, :k]):
        assert np.array_equal(row_norms(v), np.linalg.norm(v, axis=-1))
    assert np.array_equal(row_norms([3.0, 4.0]), 5.0)  # one vector


def test_row_max_abs_is_numpys_with_its_nans():
    rng = np.random.default_rng(0)
    v = rng.normal(size=(3_000, 6))
    v[rng.random((3_000, 6)) < 0.01] = np.nan
    v[5] = -np.inf
    for part in (v, v[:, :1], v[::2, 2:5], v.reshape(30, 100, 6)):
        assert np.array_equal(row_max_abs(part), np.max(np.abs(part), axis=-1), equal_nan=True)
