"""The batch texts of the writer: robtargets and URScript lists read back as the controller's 32-bit values.

writer.robtarget_texts and writer.list_texts write every row of a program's
values at once; each text, read back by the program readers' own number
rules, must give the 32-bit value the controller stores (numpy's float32 of
the rounded value), with the confdata and external axes written as given.
"""

from __future__ import annotations

import numpy as np
import pytest

from thermocomp.programs import writer as w


def _numbers(text: str) -> list[float]:
    return [float(x) for x in w.NUMBER.findall(text)]


@pytest.mark.parametrize("seed", [0, 1])
def test_robtargets_read_back_as_the_stored_singles(seed):
    rng = np.random.default_rng(seed)
    rows = 500
    shown = np.hstack([rng.uniform(-1500, 1500, (rows, 3)), rng.uniform(-1, 1, (rows, 4))])
    shown[::7, :3] = np.round(shown[::7, :3])  # whole numbers
    shown[3, 1], shown[5, 4], shown[17, 0], shown[200, 6], shown[299, 2] = 0.0, -0.0, 1e-12, 1e-7, 3e6
    conf = rng.integers(-4, 5, (rows, 4))
    extax = ["" if i % 3 else "[100,9E+09,9E+09,9E+09,9E+09,9E+09]" for i in range(rows)]
    texts = w.robtarget_texts(shown, conf, extax).to_pylist()
    stored = w.stored_singles(shown)
    for text, row, c, e in zip(texts, stored, conf.tolist(), extax):
        numbers = _numbers(text)
        np.testing.assert_array_equal(np.float32(numbers[:7]), np.float32(row))
        assert numbers[7:11] == c
        assert text.endswith("]," + (e or "[9E+09,9E+09,9E+09,9E+09,9E+09,9E+09]") + "]")
    assert texts[3].startswith("[[" + w.single_columns(shown[3:4, :1])[0][0].as_py() + ",0,")  # zero written 0
    assert len(w.robtarget_texts(np.zeros((0, 7)), np.zeros((0, 4), dtype=int), [])) == 0


@pytest.mark.parametrize("prefix", ["p[", "["])
def test_urscript_lists_read_back_as_the_stored_singles(prefix):
    rng = np.random.default_rng(11)
    shown = np.hstack([rng.uniform(-0.9, 0.9, (300, 3)), rng.uniform(-3.2, 3.2, (300, 3))])
    shown[::9, :3] = np.round(shown[::9, :3])
    shown[3, 1], shown[40, 5], shown[77, 0], shown[200, 2] = 0.0, -0.0, 1e-7, 3e6
    texts = w.list_texts(shown, prefix).to_pylist()
    for text, row in zip(texts, w.stored_singles(shown)):
        assert text.startswith(prefix) and text.endswith("]") and text.count(", ") == 5
        np.testing.assert_array_equal(np.float32(_numbers(text)), np.float32(row))
    assert len(w.list_texts(np.zeros((0, 6)), prefix)) == 0
