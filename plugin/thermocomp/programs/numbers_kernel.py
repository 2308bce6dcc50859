"""Decimal numbers of a program's text read in compiled code, to the bit of Python's ``float``.

A 100,000-motion RAPID program holds 1.7 million numbers; ``float`` on each
one's text took a third of reading it. :func:`parse_numbers` reads a text of
numbers separated by commas (brackets and whitespace around them ignored) with
the exact fast path of Clinger (1990, "How to read floating point numbers
accurately"): a decimal mantissa ``M < 2**53`` and a power of ten ``10**k``,
``|k| <= 22``, are both exact doubles, so one IEEE multiplication or division
``M * 10**k`` is the correctly rounded value, which is what ``float`` returns.
Numbers outside the fast path (more than 15 or so digits, large exponents)
are marked and read by ``float`` afterwards.
"""

from __future__ import annotations

import numpy as np

from thermocomp.compiled import njit
from thermocomp.programs.writer import NUMBER

_EXACT_POWERS = np.array([10.0 ** n for n in range(23)])


@njit(cache=True, nogil=True)
def _parse(data, count, powers, out, slow):
    """Fill ``out`` with the ``count`` numbers of ``data`` (uint8); returns how many were read, or -1 on bad syntax.

    ``slow[i]`` is set to the offset in ``data`` of number ``i`` where it needs ``float`` (outside the fast path).
    """
    n = data.shape[0]
    i = 0
    k = 0
    while True:
        # skip brackets and whitespace before the number
        while i < n and (data[i] == 91 or data[i] == 93 or data[i] == 32 or data[i] == 9 or data[i] == 10
                         or data[i] == 13):
            i += 1
        if k >= count:
            return -1
        start = i
        negative = False
        if i < n and (data[i] == 43 or data[i] == 45):
            negative = data[i] == 45
            i += 1
        mantissa = 0
        big = False
        scale = 0  # decimal exponent of the mantissa's last digit
        seen = 0
        while i < n and 48 <= data[i] <= 57:
            if mantissa < 100000000000000000:
                mantissa = mantissa * 10 + (data[i] - 48)
            else:
                big = True
                scale += 1
            seen += 1
            i += 1
        if i < n and data[i] == 46:
            i += 1
            while i < n and 48 <= data[i] <= 57:
                if mantissa < 100000000000000000:
                    mantissa = mantissa * 10 + (data[i] - 48)
                    scale -= 1
                else:
                    big = True
                seen += 1
                i += 1
        if seen == 0:
            return -1
        if i < n and (data[i] == 101 or data[i] == 69):
            i += 1
            exp_negative = False
            if i < n and (data[i] == 43 or data[i] == 45):
                exp_negative = data[i] == 45
                i += 1
            exp = 0
            exp_digits = 0
            while i < n and 48 <= data[i] <= 57:
                if exp < 100000:
                    exp = exp * 10 + (data[i] - 48)
                exp_digits += 1
                i += 1
            if exp_digits == 0:
                return -1
            scale += -exp if exp_negative else exp
        if big or mantissa > 9007199254740992 or scale > 22 or scale < -22:
            slow[k] = start
            out[k] = 0.0
        elif scale >= 0:
            out[k] = mantissa * powers[scale]
        else:
            out[k] = mantissa / powers[-scale]
        if negative:
            out[k] = -out[k]
        k += 1
        # whitespace and brackets after, then a comma or the end
        while i < n and (data[i] == 91 or data[i] == 93 or data[i] == 32 or data[i] == 9 or data[i] == 10
                         or data[i] == 13):
            i += 1
        if i >= n:
            return k
        if data[i] != 44:
            return -1
        i += 1


@njit(cache=True, nogil=True)
def _parse_spans(data, starts, ends, width, powers, out, slow):
    """:func:`_parse` of each span ``data[starts[k]:ends[k]]``, ``width`` numbers each, into row ``k`` of
    ``out``; the numbers that need ``float`` as rows ``(span, number, offset in data)`` of ``slow`` (as many as
    it holds). Returns how many need it, or -1 when a span is not exactly that."""
    row = np.empty(width, dtype=np.int64)
    found = 0
    for k in range(starts.shape[0]):
        a = starts[k]
        row[:] = -1
        if _parse(data[a:ends[k]], width, powers, out[k], row) != width:
            return -1
        for j in range(width):
            if row[j] >= 0:
                if found < slow.shape[0]:
                    slow[found, 0], slow[found, 1], slow[found, 2] = k, j, row[j] + a
                found += 1
    return found


def parse_spans(text: str, data: np.ndarray, starts: np.ndarray, ends: np.ndarray, width: int) -> np.ndarray | None:
    """:func:`parse_numbers` of each span of ``text`` (``data``: its latin-1 bytes), ``width`` numbers each:
    ``(k, width)``, or ``None`` when a span is not exactly that."""
    out = np.empty((len(starts), width))
    slow = np.empty((64, 3), dtype=np.int64)  # (few numbers need float: long mantissas, large exponents)
    found = _parse_spans(data, starts, ends, width, _EXACT_POWERS, out, slow)
    if found > len(slow):
        slow = np.empty((found, 3), dtype=np.int64)
        found = _parse_spans(data, starts, ends, width, _EXACT_POWERS, out, slow)
    if found < 0:
        return None
    for k, j, at in slow[:found].tolist():
        out[k, j] = float(NUMBER.match(text, at).group())
    return out


def parse_numbers(text: str, count: int) -> np.ndarray | None:
    """The ``count`` numbers of ``text`` (``[1.5, -2e3], [.5]``: commas between numbers, brackets and whitespace
    around them), each the double ``float`` reads from its text; ``None`` when the text is not exactly that."""
    data = np.frombuffer(text.encode("latin-1"), dtype=np.uint8)
    out = np.empty(count)
    slow = np.full(count, -1, dtype=np.int64)
    if _parse(data, count, _EXACT_POWERS, out, slow) != count:
        return None
    for k in np.flatnonzero(slow >= 0).tolist():
        out[k] = float(NUMBER.match(text, int(slow[k])).group())
    return out


@njit(cache=True, nogil=True)
def _first_malformed(data, starts, ends, powers):
    longest = 0
    for k in range(starts.shape[0]):
        longest = max(longest, ends[k] - starts[k])
    out = np.empty(longest + 1)  # (a span of n characters holds fewer than n + 1 numbers; one buffer for all)
    slow = np.empty(longest + 1, dtype=np.int64)
    for k in range(starts.shape[0]):
        a, b = starts[k], ends[k]
        if _parse(data[a:b], b - a + 1, powers, out, slow) < 0:
            return k
    return -1


def all_read(data: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> bool:
    """Every span ``data[starts[k]:ends[k]]`` (uint8) is a text of numbers :func:`parse_numbers` reads, however
    many (commas between numbers, brackets and whitespace around them)."""
    return _first_malformed(data, np.ascontiguousarray(starts, dtype=np.int64),
                            np.ascontiguousarray(ends, dtype=np.int64), _EXACT_POWERS) < 0


@njit(cache=True, nogil=True, error_model="numpy")
def _transforms(values, out):
    for r in range(values.shape[0]):
        x, y, z = values[r, 0], values[r, 1], values[r, 2]
        w, a, b, c = values[r, 3], values[r, 4], values[r, 5], values[r, 6]
        s = 1.0 / (w * w + a * a + b * b + c * c)
        out[r, 0, 0] = 1 - 2 * s * (b * b + c * c)
        out[r, 0, 1] = 2 * s * (a * b - w * c)
        out[r, 0, 2] = 2 * s * (a * c + w * b)
        out[r, 0, 3] = x * 1e-3
        out[r, 1, 0] = 2 * s * (a * b + w * c)
        out[r, 1, 1] = 1 - 2 * s * (a * a + c * c)
        out[r, 1, 2] = 2 * s * (b * c - w * a)
        out[r, 1, 3] = y * 1e-3
        out[r, 2, 0] = 2 * s * (a * c - w * b)
        out[r, 2, 1] = 2 * s * (b * c + w * a)
        out[r, 2, 2] = 1 - 2 * s * (a * a + b * b)
        out[r, 2, 3] = z * 1e-3
        out[r, 3, 0] = 0.0
        out[r, 3, 1] = 0.0
        out[r, 3, 2] = 0.0
        out[r, 3, 3] = 1.0


def pose_transforms(values: np.ndarray) -> np.ndarray:
    """The transforms ``(k, 4, 4)`` [m] of RAPID poses, the rows of ``values`` ``(k, >= 7)`` starting ``x, y, z``
    [mm], ``q1..q4`` (w, x, y, z): the arithmetic of :func:`thermocomp.programs.rapid._T_from_pose` in its
    order, so each transform is bit for bit that one."""
    values = np.ascontiguousarray(values, dtype=float)
    out = np.empty((values.shape[0], 4, 4))
    _transforms(values, out)
    return out
