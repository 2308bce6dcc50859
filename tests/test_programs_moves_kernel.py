"""The run readers' byte helpers against plain Python on the same text.

moves_kernel.distinct_spans (hashes of the spans' bytes, checked) against grouping by the texts themselves:
groups are numbered in order of appearance; absent spans (start -1) are their own text, unlike empty ones;
``lower`` compares A-Z case-insensitively. Where two texts share a hash the texts decide.
model.TextLines (the line ends, found a block at a time) against the lines Python counts.
"""

from __future__ import annotations

import numpy as np
import pytest

from thermocomp.programs import model, moves_kernel


def _by_texts(text: bytes, starts: np.ndarray, ends: np.ndarray, lower: bool):
    groups: dict = {}
    first, inverse = [], []
    for i, (row_a, row_b) in enumerate(zip(starts.reshape(len(starts), -1).tolist(),
                                           ends.reshape(len(ends), -1).tolist())):
        key = tuple(None if a < 0 else (text[a:b].lower() if lower else text[a:b]) for a, b in zip(row_a, row_b))
        if key not in groups:
            groups[key] = len(first)
            first.append(i)
        inverse.append(groups[key])
    return first, inverse


def _spans(rng, parts: int, rows: int):
    words = [b"v100", b"V100", b"tool0", b"Tool0", b"", b"z10", b"fine", b"wobj1"]
    text = b" ".join(words)
    where = np.cumsum([0] + [len(w) + 1 for w in words[:-1]])
    pick = rng.integers(0, len(words), (rows, parts))
    starts = where[pick].astype(np.int64)
    ends = starts + np.array([len(w) for w in words])[pick]
    absent = rng.random((rows, parts)) < 0.1
    starts[absent], ends[absent] = -1, -1
    return np.frombuffer(text, dtype=np.uint8), text, starts, ends


@pytest.mark.parametrize("parts", [1, 3])
@pytest.mark.parametrize("lower", [False, True])
def test_groups_are_those_of_the_texts(rng, parts, lower):
    data, text, starts, ends = _spans(rng, parts, 500)
    if parts == 1:
        starts, ends = starts[:, 0].copy(), ends[:, 0].copy()
    first, inverse = moves_kernel.distinct_spans(data, starts, ends, lower)
    assert (first.tolist(), inverse.tolist()) == _by_texts(text, starts, ends, lower)


def test_texts_of_one_hash_are_told_apart(rng, monkeypatch):
    data, text, starts, ends = _spans(rng, 3, 300)

    def one_hash(data, starts, ends, lower, out):
        out[:] = 7  # every span collides

    monkeypatch.setattr(moves_kernel, "_hashes", one_hash)
    first, inverse = moves_kernel.distinct_spans(data, starts, ends, True)
    assert (first.tolist(), inverse.tolist()) == _by_texts(text, starts, ends, True)
    assert len(first) > 1


@pytest.mark.parametrize("block", [7, 64, 1 << 20])
def test_text_lines_give_lark_s_lines_and_columns(rng, monkeypatch, block):
    monkeypatch.setattr(model.TextLines, "BLOCK", block)
    text = "".join(rng.choice(["a", "b ", "\n", "\r\n", "xyz"], 300).tolist())
    data = np.frombuffer(text.encode("latin-1"), dtype=np.uint8)
    for lines in (model.TextLines(text), model.TextLines(text, data)):  # (the text's bytes found, or given)
        line, column = lines.arrays(np.arange(len(text)))
        for pos in range(len(text)):
            before = text[:pos]
            assert (line[pos], column[pos]) == (before.count("\n") + 1, pos - before.rfind("\n"))
        assert lines.lists([0, len(text) - 1]) == (line[[0, -1]].tolist(), column[[0, -1]].tolist())
    assert model.TextLines("").table().tolist() == [-1]
