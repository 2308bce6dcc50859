"""The robtarget texts joined in compiled code (singles_kernel.robtarget_heads) against the reference.

writer.rapid_robtarget_values must write the characters of writer.rapid_robtarget_column of
writer.single_texts: every sign and magnitude of the numbers, negative and zero confdata, external axes
written or not, and the rows with a number left to numpy (zero, tiny, huge) falling back to the reference.
"""

from __future__ import annotations

import numpy as np
import pytest

from thermocomp.programs import writer as w


def _reference(shown, conf, extax):
    return w.rapid_robtarget_column(w.single_texts(shown), conf, extax)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_robtarget_values_match_the_reference(seed):
    rng = np.random.default_rng(seed)
    rows = 2000
    shown = np.hstack([rng.uniform(-1500, 1500, (rows, 3)), rng.uniform(-1, 1, (rows, 4))])
    shown[::7, :3] = np.round(shown[::7, :3])  # whole numbers
    shown[::11, 3:] = rng.choice([0.5, -0.25, 0.70710677, 1e-3], (len(shown[::11]), 4))
    conf = rng.integers(-4, 5, (rows, 4))
    conf[::13] = [-1, -12, 10, 0]
    extax = ["" if i % 3 else "[100,9E+09,9E+09,9E+09,9E+09,9E+09]" for i in range(rows)]
    shown[np.abs(shown) < 1e-3] = 1e-3  # every number written in compiled code: the fast path itself
    from thermocomp.programs.singles_kernel import robtarget_heads

    stored = np.round(shown, w.NOISE_DECIMALS).astype(np.float32)
    assert robtarget_heads(stored, conf)[1].all()
    got = w.rapid_robtarget_values(shown, conf, extax)
    assert got == _reference(shown, conf, extax)


@pytest.mark.parametrize("special", [0.0, -0.0, 1e-12, 5e-5, 2e6, -3e7])
def test_numbers_left_to_numpy_fall_back_to_the_reference(special):
    shown = np.array([[100.5, -20.25, 300.0, 1.0, 0.0, 0.0, 0.0], [1.5, 2.5, 3.5, 0.5, 0.5, -0.5, 0.5]])
    shown[1, 2] = special
    conf = np.array([[0, 0, 0, 0], [-1, 0, -1, 1]])
    extax = ["", "[1,2,3,4,5,6]"]
    assert w.rapid_robtarget_values(shown, conf, extax) == _reference(shown, conf, extax)


def test_rows_left_to_numpy_among_compiled_ones():
    rng = np.random.default_rng(7)
    shown = np.hstack([rng.uniform(-900, 900, (300, 3)), rng.uniform(0.1, 0.9, (300, 4))])
    shown[5, 4] = 0.0  # a quaternion's zero
    shown[17, 0] = -0.0
    shown[200, 6] = 1e-7  # below the kernel's range
    shown[299, 2] = 3e6  # above it
    conf = rng.integers(-3, 4, (300, 4))
    extax = ["[1,2,3,4,5,6]" if i % 2 else "" for i in range(300)]
    assert w.rapid_robtarget_values(shown, conf, extax) == _reference(shown, conf, extax)


def test_no_rows():
    assert w.rapid_robtarget_values(np.zeros((0, 7)), np.zeros((0, 4), dtype=int), []) == []
