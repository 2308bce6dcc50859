"""The compiled writer of 32-bit floats gives numpy's shortest text, character for character.

thermocomp.programs.singles_kernel writes the numbers of a compensated program
(700,000 in a 100,000-motion RAPID module) as the shortest text that reads back
as the same 32-bit float; numpy's ``str`` of a float32 (Dragon4) is the
independent reference (``writer.numpy_single_texts``), and reading the text
back as a float32 must give the value itself.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from thermocomp.programs.singles_kernel import HIGH, LOW, SCIENTIFIC_BELOW, shortest_texts
from thermocomp.programs.writer import NOISE_DECIMALS, numpy_single_texts, single_texts


def _same_as_numpy(values: np.ndarray) -> None:
    stored = np.asarray(values, dtype=np.float32)
    got = single_texts(stored.astype(float))
    want = numpy_single_texts(np.round(stored.astype(float), NOISE_DECIMALS).astype(np.float32))
    bad = np.flatnonzero(got.ravel() != want.ravel())
    assert bad.size == 0, [(float(stored.ravel()[i]), got.ravel()[i], want.ravel()[i]) for i in bad[:5]]


def test_every_kind_of_float32_in_the_compiled_range_is_written_as_numpy_writes_it(rng):
    lo, hi = np.float32(LOW).view(np.uint32), np.float32(HIGH).view(np.uint32)
    bits = rng.integers(lo, hi, 300_000, dtype=np.uint32)
    signs = np.where(rng.random(bits.size) < 0.5, np.float32(-1), np.float32(1))
    spread = bits.view(np.float32) * signs  # every exponent of the range, every mantissa
    decimals = np.round(rng.uniform(-1e5, 1e5, 100_000), rng.integers(0, 7)).astype(np.float32)  # short, and ties
    exponents = np.arange(1, 255, dtype=np.uint32) << 23
    powers = np.concatenate([exponents + d for d in (0, 1, 2)] + [exponents - 1]).view(np.float32)  # unequal margins
    values = np.concatenate([spread, decimals, powers])
    values = values[(np.abs(values) >= LOW) & (np.abs(values) < HIGH)]
    texts, done = shortest_texts(values)
    assert done.all()  # written by the kernel itself, else the comparison below proves nothing
    _same_as_numpy(values)
    np.testing.assert_array_equal(texts.astype(str).astype(np.float32), values)  # the text reads back


def test_around_numpy_s_switch_to_scientific_notation():
    """Every float32 within 20,000 units in the last place of 1e-4 (numpy: ``1e-04`` below, ``0.0001`` from it
    on, decided on the exact value), and of powers of ten down to the range's end."""
    texts = []
    for centre in (SCIENTIFIC_BELOW, 1e-5, 1e-6, 1e-7 * 1.01):
        bits = np.float32(centre).view(np.uint32).astype(np.int64) + np.arange(-20_000, 20_000)
        values = bits.astype(np.uint32).view(np.float32)
        values = values[values >= LOW]
        assert shortest_texts(values)[1].all()
        _same_as_numpy(values)
        _same_as_numpy(-values)
        texts += single_texts(values[::4000].astype(float)).tolist()
    assert "1e-04" in texts and any(t.startswith("0.0001") for t in texts) and any("e-07" in t for t in texts)


def test_the_values_left_to_numpy_are_written_as_before():
    corners = np.array([0.0, -0.0, 1e-4, -1e-4, 1.9e-4, 1e-5, 1e-39, 1e6, -1e6, 999999.94, 3.4e38, np.inf, -np.inf,
                        np.nan, 1.0, -1.0, 5.0, 0.5, 1234.5, 65536.0, 16777216.0, 9e-8, -2e-12])
    _same_as_numpy(corners.astype(np.float32))
    _, done = shortest_texts(corners.astype(np.float32))
    assert not done[[0, 1, 6, 7, 11, 13, 21, 22]].any()
    assert done[[2, 3, 4, 5, 9, 14]].all()


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(st.floats(width=32, allow_nan=False, allow_infinity=False), min_size=1, max_size=50))
def test_any_float32_is_written_as_numpy_writes_it(values):
    _same_as_numpy(np.array(values, dtype=np.float32))
