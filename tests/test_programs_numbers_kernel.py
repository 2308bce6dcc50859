"""The compiled reader of a run's numbers gives what Python's ``float`` gives, to the bit, and refuses what it refuses.

thermocomp.programs.numbers_kernel reads the numbers of a RAPID run's inline
targets (1.7 million in a 100,000-motion program) with Clinger's exact fast
path and ``float`` beyond it; Python's ``float`` is the independent reference.
Its poses' transforms are those of the reader's one-pose function, bit for bit.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from thermocomp.programs.numbers_kernel import parse_numbers, parse_spans, pose_transforms
from thermocomp.programs.rapid import _T_from_pose


def _same(text: str, tokens: list[str]) -> None:
    try:
        expected = np.array([float(t) for t in tokens])
    except ValueError:
        assert parse_numbers(text, len(tokens)) is None, text
        return
    got = parse_numbers(text, len(tokens))
    assert got is not None, text
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(expected))  # -0 stays -0


def test_rapid_numbers_and_their_corners_read_as_float_reads_them():
    for tokens in (["515", "-0", "0.70710677", ".5", "5.", "+5", "007", "9E+09", "1e-05", "-1.2345e-05"],
                   ["0.1000000000000000055511151231257827", "123456789012345678901234567890"],
                   ["9007199254740993", "1e22", "1e23", "4.9e-324", "1e-400", "1.7976931348623157e308", "1e400"],
                   [" 1", "2 ", "\n3\t", "\r\n-4\r\n"]):
        _same(",".join(tokens), tokens)
    assert parse_numbers("[[1,2,3],[1,0,0,0]]", 7).tolist() == [1, 2, 3, 1, 0, 0, 0]


def test_what_float_refuses_is_refused():
    for text, count in (("1e", 1), ("1e+", 1), ("+-1", 1), (".", 1), ("", 1), ("1,,2", 3), ("500 0", 1),
                        ("1.2.3", 1), ("- 5", 1), ("1,2", 1), ("1,2", 3), ("1;2", 2)):
        assert parse_numbers(text, count) is None, text


_DIGITS = st.text("0123456789", max_size=22)
_NUMBER = st.builds(lambda sign, a, dot, b, e: f"{sign}{a}{dot}{b}{e}", st.sampled_from(["", "-", "+"]), _DIGITS,
                    st.sampled_from(["", "."]), _DIGITS,
                    st.one_of(st.just(""), st.builds(lambda c, s, n: f"{c}{s}{n}", st.sampled_from("eE"),
                                                     st.sampled_from(["", "+", "-"]), st.integers(0, 400))))
_SPACE = st.sampled_from(["", " ", "\t", "\r\n"])


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(_SPACE, _NUMBER, _SPACE), min_size=1, max_size=6))
def test_random_number_texts_read_as_float_reads_them(parts):
    tokens = [a + n + b for a, n, b in parts]
    _same(",".join(tokens), tokens)


def test_pose_transforms_are_the_readers_one_pose_transforms(rng):
    q = rng.normal(size=(500, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    q[:50] = np.round(q[:50], 3)  # written to a few digits: not unit to the last bit (each is normalised)
    q[50:60] = [0.0, 0.0, 1.0, 0.0]
    q[60] = [-0.0, 1.0, -0.0, 0.0]
    xyz = np.hstack([rng.uniform(-2000, 2000, (500, 3))])
    xyz[70] = [-0.0, 0.0, 1e-300]
    values = np.hstack([xyz, q, rng.integers(-2, 3, (500, 4)), rng.uniform(0, 1, (500, 6))])  # a robtarget's 17
    got = pose_transforms(values)
    expected = np.array([_T_from_pose((row[:3].tolist(), row[3:7].tolist())) for row in values])
    assert np.array_equal(got.view(np.int64), expected.view(np.int64))  # bit for bit, signs of zero too


def test_spans_read_as_float_reads_them_however_many_need_float(rng):
    """parse_spans: each span's numbers, those beyond the fast path (long mantissas, large exponents) read by
    ``float`` wherever they fall, more of them than its first list holds; a span of another count refused."""
    words = ["1.5", "-0", ".25", "3.14159265358979323846", "1e-30", "-2.5E+40", "123456789012345678", "7"]
    rows = [[words[i] for i in rng.integers(0, len(words), 5)] for _ in range(300)]
    texts = ["[" + ",".join(row[:2]) + "],[" + ", ".join(row[2:]) + "]" for row in rows]
    text = " ".join(texts)
    starts = np.cumsum([0] + [len(t) + 1 for t in texts[:-1]]).astype(np.int64)
    ends = starts + np.array([len(t) for t in texts], dtype=np.int64)
    data = np.frombuffer(text.encode("latin-1"), dtype=np.uint8)
    got = parse_spans(text, data, starts, ends, 5)
    expected = np.array([[float(x) for x in row] for row in rows])
    assert sum(w in words[3:7] for row in rows for w in row) > 64  # more than the first list holds
    assert np.array_equal(got.view(np.int64), expected.view(np.int64))
    assert parse_spans(text, data, starts, ends, 4) is None
