"""The compiled results formatter against Python's own ``%.12g`` and the written-angle check."""

from __future__ import annotations

import math

import numpy as np
import pytest

from thermocomp.compensation.compensate import written_angles
from thermocomp.io.results_csv import quote_name
from thermocomp.io.results_text import results_lines, utf8_table
from thermocomp.tolerances import WRITTEN_DIGITS


def _lines(values, empty=None, minute=None, names=("T",), target=None, labels=("converged", "unreachable"),
           status=None, near=None):
    r, _ = values.shape
    text = results_lines(
        np.zeros(r) if minute is None else minute,
        np.zeros(r, dtype=int) if target is None else target,
        utf8_table([quote_name(n) for n in names]),
        np.zeros(r, dtype=int) if status is None else status,
        utf8_table(list(labels)),
        np.zeros(r, dtype=bool) if near is None else near,
        values,
        np.zeros(values.shape, dtype=bool) if empty is None else empty,
    )
    text = b"".join(piece.tobytes() for piece in text).decode("utf-8")
    assert text.endswith("\n")
    return text[:-1].split("\n")


def _cells(values, **kw):
    return [line.split(",")[4:] for line in _lines(values, **kw)]


def test_agrees_with_python_percent_g_across_magnitudes():
    rng = np.random.default_rng(7)
    magnitude = 10.0 ** rng.uniform(-320, 308, size=20_000)
    values = (magnitude * rng.choice([-1.0, 1.0], size=magnitude.size)).reshape(-1, 40)
    cells = _cells(values)
    differ = 0
    for row, texts in zip(values, cells):
        for v, text in zip(row, texts):
            expected = f"{v:.12g}"
            if text != expected:
                differ += 1
                # a rounding tie decided on v * 10**n in binary: one unit in the 12th digit at most
                assert abs(float(text) - float(expected)) <= 1.01 * 10.0 ** (math.floor(math.log10(abs(v))) - 11)
    assert differ <= values.size // 1000


@pytest.mark.parametrize("v", [0.0, -0.0, 1.0, -180.0, 1e-4, 9.99999999999e-5, 1e-5, 1e12, 999999999999.4,
                               999999999999.6, 9.9999999999996, 0.1 + 0.2, 123456789012.5, 5e-324, 1.7976931348623157e308,
                               float("nan"), float("inf"), float("-inf"), 1e22, 1e23, 2.5e-7])
def test_special_values_as_python_writes_them(v):
    (text,) = _cells(np.array([[v]]))[0]
    assert text == f"{v:.12g}"


def test_parses_back_to_the_value_the_written_angle_check_tested():
    rng = np.random.default_rng(3)
    q = rng.uniform(-2 * np.pi, 2 * np.pi, size=(5_000, 6))
    q[0] = [0.0, np.pi, -np.pi / 2, 1e-9, -1e-12, np.radians(90.0)]
    cells = _cells(np.degrees(q))
    parsed = np.radians(np.array([[float(c) for c in row] for row in cells]))
    np.testing.assert_array_equal(parsed, written_angles(q))


def test_written_angles_round_as_the_element_wise_powers_do():
    """written_angles looks its scales up; raising 10 to each row's power (its former form) gives the same bits on
    doubles of every kind: random bit patterns (subnormal, huge, NaN, inf), zeros and angles."""
    rng = np.random.default_rng(8)
    q = np.concatenate([rng.integers(0, 2**63, 200_000, dtype=np.uint64).view(np.float64),
                        -rng.integers(0, 2**63, 200_000, dtype=np.uint64).view(np.float64),
                        rng.uniform(-2 * np.pi, 2 * np.pi, 200_000), [0.0, -0.0, 5e-324, 1.7976931348623157e308]])
    with np.errstate(all="ignore"):
        deg = np.degrees(q)
        exponent = np.floor(np.log10(np.abs(deg)))
        scale = np.where(np.isfinite(exponent), 10.0 ** (WRITTEN_DIGITS - 1 - np.where(np.isfinite(exponent), exponent, 0)), 1.0)
        expected = np.radians(np.round(deg * scale) / scale)
        got = written_angles(q)
    assert np.array_equal(got.view(np.uint64), expected.view(np.uint64))


def test_prefix_columns_names_labels_flags_and_empty_cells():
    values = np.array([[1.5, 2.0, 3.25], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]])
    empty = np.array([[False, False, False], [False, True, True], [True, True, True]])
    lines = _lines(values, empty=empty, minute=np.array([0.0, 12.5, 1e-7]), names=("plain", 'say "hi", ok', "Zürich"),
                   target=np.array([2, 1, 0]), status=np.array([0, 1, 1]), near=np.array([True, False, False]))
    assert lines == [
        "0,Zürich,converged,1,1.5,2,3.25",
        '12.5,"say ""hi"", ok",unreachable,0,4,,',
        "1e-07,plain,unreachable,0,,,",
    ]


@pytest.mark.parametrize("odd", ['weld, seam 3', 'say "hi"', None])
def test_result_names_are_quoted_only_where_csv_needs_it(tmp_path, odd):
    """The results file names each row's target as the targets file did, quoted or not (read back with csv)."""
    import csv

    from helpers import REPO

    import thermocomp as tc

    lines = [line for line in (REPO / "examples" / "targets_random50.csv").read_text().splitlines()
             if not line.startswith("#")][:6]
    names = [f"T{i}" for i in range(1, 6)]
    if odd is not None:
        names[2] = odd
    rows = list(csv.reader(lines))
    for row, name in zip(rows[1:], names):
        row[0] = name
    targets = tmp_path / "t.csv"
    with open(targets, "w", newline="") as handle:
        csv.writer(handle).writerows(rows)
    out = tmp_path / "o.csv"
    tc.run_compensation(tc.CompensationJob("irb140", REPO / "deformations" / "exaggerated.csv", targets=targets, out=out))
    with open(out, newline="") as handle:
        read = [r["target"] for r in csv.DictReader(handle)]
    assert read[:5] == names


def test_decimal_exponent_is_exact_around_every_power_of_ten():
    """The exponent the formatter writes with (from the binary exponent and a table of powers, not ``log10``) is
    ``floor(log10(v))`` of the double's exact value (``Decimal(v).adjusted()``) at every power of ten a double holds
    exactly (1 to 1e22), the doubles next to them and random magnitudes; at and next to every power of the normal
    range the texts are Python's ``%.12g`` (an exponent one off next to a rounded power is corrected)."""
    from decimal import Decimal

    from thermocomp.io.results_text import _exponent10

    def near(powers):
        return np.concatenate([powers, np.nextafter(powers, 0), np.nextafter(powers, np.inf)])

    magnitudes = 10.0 ** np.random.default_rng(5).uniform(-307, 308, 5000)
    values = np.concatenate([near(10.0 ** np.arange(0, 23)), magnitudes])
    expected = np.array([Decimal(v).adjusted() for v in values.tolist()])
    assert np.array_equal([_exponent10(v) for v in values.tolist()], expected)
    values = near(10.0 ** np.arange(-307, 309))
    values = values[np.isfinite(values)]
    texts = [cell for row in _cells(values[:, None]) for cell in row]
    assert texts == [f"{v:.12g}" for v in values.tolist()]
