"""The written numbers: the shortest text that reads back as the controller's 32-bit float, converted in batch."""

from __future__ import annotations

import numpy as np

from thermocomp.programs.writer import NOISE_DECIMALS, format_singles, stored_singles


def test_batch_texts_are_numpys_shortest_text_of_each_32_bit_value():
    rng = np.random.default_rng(3)
    magnitudes = 10.0 ** rng.uniform(-8, 12, 20_000)
    values = (rng.choice([-1.0, 1.0], 20_000) * magnitudes).reshape(-1, 8)
    values[0] = [0.0, -0.0, 5.0, -1500.0, 1e-4, 123456789.0, 2.5e-9, -1e-12]  # integers, zeros, noise, exponents
    texts = format_singles(values)
    stored = np.round(values, NOISE_DECIMALS).astype(np.float32)
    for row_texts, row in zip(texts, stored):
        for text, v in zip(row_texts, row):
            alone = str(v)  # numpy's own shortest text of the single value
            expected = "0" if v == 0 else (alone[:-2] if alone.endswith(".0") else alone)
            assert text == expected
            assert np.float32(float(text)) == v  # reads back as the stored value, exactly
    assert texts[0][:4] == ["0", "0", "5", "-1500"]
    np.testing.assert_array_equal(stored_singles(values), stored.astype(float))
