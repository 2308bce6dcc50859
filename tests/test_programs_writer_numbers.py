"""The written numbers: the shortest text that reads back as the controller's 32-bit float, converted in batch."""

from __future__ import annotations

import numpy as np

from thermocomp.programs.writer import NOISE_DECIMALS, single_columns, stored_singles


def format_singles(values):
    """The writer's texts of ``values`` ``(r, k)``, row by row."""
    return [list(row) for row in zip(*(column.to_pylist() for column in single_columns(values)))]


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


def test_texts_are_numpys_on_every_scale_and_at_the_edges_of_its_positional_form():
    """The writer's one formatter (pyarrow's shortest digits, laid out as numpy lays out a float32) against numpy's
    own text (Dragon4, an independent implementation): 200,000 random 32-bit values over every scale a program
    writes, and the float32 neighbours of the bounds where the layout changes (1e-4, 1e6), each the text numpy
    gives the value alone, ``.0`` dropped."""
    rng = np.random.default_rng(5)
    values = rng.choice([-1.0, 1.0], 200_000) * 10.0 ** rng.uniform(-12, 12, 200_000)
    ulps = np.arange(-3, 4, dtype=np.int32)  # (the float32 values 3 apart either side of each bound)
    edges = np.concatenate([(np.float32(b).view(np.int32) + ulps).view(np.float32) for b in (1e-4, 1e6)])
    edges = edges.astype(float)
    values = np.concatenate([values, edges, np.negative(edges)])
    texts = format_singles(values.reshape(-1, 1))
    stored = np.round(values, NOISE_DECIMALS).astype(np.float32)
    expected = ["0" if v == 0 else (t[:-2] if t.endswith(".0") else t) for v, t in zip(stored, stored.astype(str))]
    assert [t[0] for t in texts] == expected
