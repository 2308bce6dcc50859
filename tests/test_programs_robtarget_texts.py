"""The robtarget texts joined in compiled code (singles_kernel.robtarget_rows) against the reference.

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
    from thermocomp.programs.singles_kernel import robtarget_rows

    stored = np.round(shown, w.NOISE_DECIMALS).astype(np.float32)
    assert robtarget_rows(stored, conf, np.arange(rows) % 3 != 0, [extax[0], "[]"])[3].all()
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


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_spliced_values_equal_the_edits_applied_one_by_one(seed):
    """writer.splice_bytes (compiled) writes what writer.apply_edits (the reference) writes: values kept
    (None), written as strings, written as bytes pieces, spans touching, at both ends; out of order: None."""
    rng = np.random.default_rng(seed)
    text = "".join(rng.choice(list("abc;[]\n\r é"), 3000))
    cuts = np.sort(rng.choice(np.arange(3001), 400, replace=False))
    starts, ends = cuts[0::2], cuts[1::2]
    if seed == 0:
        starts[0], ends[-1] = 0, 3000  # the first span at the start, the last at the end
    m = len(starts)
    values = [None if rng.random() < 0.2 else "".join(rng.choice(list("xyzé0"), rng.integers(0, 9)))
              for _ in range(m)]
    rows = np.flatnonzero(rng.random(m) < 0.5)
    piece_texts = ["[" + str(i) * int(rng.integers(0, 4)) + "ü]" for i in rows.tolist()]
    encoded = [t.encode("latin-1") for t in piece_texts]
    lengths = np.array([len(e) for e in encoded], dtype=np.int64)
    start = np.cumsum(lengths) - lengths
    buf = np.frombuffer(b"".join(encoded), dtype=np.uint8)
    reference = list(values)
    for i, t in zip(rows.tolist(), piece_texts):
        reference[i] = t
        values[i] = None
    expected = w.apply_edits(text, [w.Edit(a, b, v) for a, b, v in zip(starts.tolist(), ends.tolist(), reference)
                                    if v is not None], "x")
    got = w.splice_bytes(text, starts, ends, values, (rows, buf, start, start + lengths))
    assert got.tobytes().decode("latin-1") == expected
    assert w.splice_bytes(text, starts[::-1].copy(), ends[::-1].copy(), ["v"] * m) is None  # not in order
    assert w.splice_bytes(text, starts, ends, [None] * m).tobytes().decode("latin-1") == text
    data = np.frombuffer(text.encode("latin-1"), dtype=np.uint8)  # (the text's bytes given: the same)
    assert w.splice_bytes(text, starts, ends, values, (rows, buf, start, start + lengths), None, data).tobytes() \
        == got.tobytes()


def _list_reference(shown, prefix):
    return [prefix + ", ".join(row) + "]" for row in w.format_singles(shown)]


@pytest.mark.parametrize("prefix", ["p[", "["])
def test_urscript_lists_match_the_reference(prefix):
    """writer.list_bytes (URScript poses and joint lists joined in compiled code) writes the characters of
    ``prefix + ", ".join(format_singles(row)) + "]"``: metres and radians of every sign, whole numbers, and rows
    with a number left to numpy (zero, -0, tiny, huge) written by the reference among compiled ones."""
    rng = np.random.default_rng(11)
    shown = np.hstack([rng.uniform(-0.9, 0.9, (500, 3)), rng.uniform(-3.2, 3.2, (500, 3))])
    shown[::9, :3] = np.round(shown[::9, :3])
    shown[3, 1], shown[40, 5], shown[77, 0], shown[400, 2] = 0.0, -0.0, 1e-7, 3e6
    buf, start, end = w.list_bytes(shown, prefix)
    assert w.unpacked(buf, start, end) == _list_reference(shown, prefix)
    assert w.unpacked(*w.list_bytes(np.zeros((0, 6)), prefix)) == []


def test_rows_of_a_longer_list_of_external_axes():
    """``rows=``: the external axes of chosen points of a program (looked up by code) give the texts of those
    points' own list."""
    rng = np.random.default_rng(3)
    extax = ["", "[1,2,3,4,5,6]", "", "[9E+09,9E+09,9E+09,9E+09,9E+09,7]"] * 50
    rows = rng.permutation(len(extax))[:120]
    shown = np.hstack([rng.uniform(-900, 900, (120, 3)), rng.uniform(0.1, 0.9, (120, 4))])
    shown[3, 5] = 0.0  # a row left to the reference among them
    conf = rng.integers(-3, 4, (120, 4))
    chosen = [extax[i] for i in rows.tolist()]
    assert w.unpacked(*w.rapid_robtarget_bytes(shown, conf, extax, rows=rows)) == _reference(shown, conf, chosen)


def test_text_codes():
    codes, distinct = w.text_codes(["b", "a", "b", "", "a"])
    assert distinct == ["b", "a", ""] and codes.tolist() == [0, 1, 0, 2, 1]
    codes, distinct = w.text_codes(())
    assert distinct == [] and codes.shape == (0,)
