"""The text of results rows, formatted in compiled code (numba, cached on disk).

Compiled because no library reaches the rate a million-row run needs: Python's
``%`` took 13 s for 1,000,000 rows of some 45 numbers, pandas' and pyarrow's CSV
writers 11 us a row or more; this writes the same text at about 2.5 us a row of 35 numbers.

Numbers are written as C's ``%.12g`` (:data:`~thermocomp.tolerances.WRITTEN_DIGITS`
significant digits, trailing zeros dropped, exponent form below 1e-4 and from
1e12), rounded the way :func:`thermocomp.compensation.compensate.written_angles`
rounds: ``rint(|v| * 10**(11 - e)) / 10**(11 - e)`` with ``e`` the decimal
exponent. The text therefore parses back to exactly the value the written-angle
check tested. It differs from Python's ``'%.12g' % v`` only where ``|v| * 10**n``
lands within half a unit in the last place of a rounding tie (the last digit
then differs by one; tests/test_results_text.py measures how rarely).
"""

from __future__ import annotations

import math

import numpy as np

from thermocomp._typing import FloatArray
from thermocomp.compiled import njit
from thermocomp.tolerances import WRITTEN_DIGITS

#: Powers of ten as integers, ``_POWERS[n] == 10**n``.
_POWERS = np.array([10 ** n for n in range(20)], dtype=np.uint64)
#: Powers of ten exactly representable as doubles (10**0 .. 10**22), the same values ``10.0 ** n`` gives.
_EXACT_POWERS = np.array([10.0 ** n for n in range(23)])
#: ``_PAIRS[2 * i], _PAIRS[2 * i + 1]``: the two ASCII digits of ``i`` (0..99).
_PAIRS = np.frombuffer("".join(f"{i:02d}" for i in range(100)).encode("ascii"), dtype=np.uint8).copy()
#: ``10.0 ** k`` for ``k`` from -324 to 308 (numpy's power), at ``_TENS[k + 324]``: the decimal exponents of doubles.
_TENS = 10.0 ** np.arange(-324, 309, dtype=float)
#: Longest text of one number: sign, 12 digits, point, ``e-308``.
_NUMBER_BYTES = 24


def utf8_table(strings: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """``strings`` as one UTF-8 byte array and offsets ``(n + 1,)``: string ``i`` is ``bytes[off[i]:off[i + 1]]``."""
    offsets = np.zeros(len(strings) + 1, dtype=np.int64)
    joined = "".join(strings)
    if joined.isascii():  # one byte a character: the lengths are the strings' own
        np.cumsum(np.fromiter(map(len, strings), dtype=np.int64, count=len(strings)), out=offsets[1:])
        return np.frombuffer(joined.encode("ascii"), dtype=np.uint8).copy(), offsets
    encoded = [s.encode("utf-8") for s in strings]
    np.cumsum([len(b) for b in encoded], out=offsets[1:])
    return np.frombuffer(b"".join(encoded), dtype=np.uint8).copy(), offsets


def results_lines(minute: FloatArray, target: np.ndarray, names: tuple[np.ndarray, np.ndarray],
                  status: np.ndarray, labels: tuple[np.ndarray, np.ndarray], near: np.ndarray,
                  values: FloatArray, empty: np.ndarray) -> list[np.ndarray]:
    """The UTF-8 bytes of the CSV lines ``minute,name,label,near,v1,...,vk`` of ``r`` rows, as pieces (uint8
    arrays) that follow one another: their concatenation is the text, each line ending in a newline.

    One piece: the lines one after another at the start of a buffer sized for the longest lines, not copied
    again (at a million rows a copy cost a second). The rows are written on the calling thread: a results
    writer formats on its own thread while the solver goes on (:class:`~thermocomp.io.results_csv.ResultsWriter`).

    Parameters
    ----------
    minute : (r,) float
    target, status : (r,) int
        Indices into ``names`` and ``labels``, each a :func:`utf8_table` (names already CSV-quoted).
    near : (r,) bool
        Written ``1``/``0``.
    values : (r, k) float
        The numeric cells, file units.
    empty : (r, k) bool
        Cells left empty (the row's block failed).
    """
    name_bytes, name_off = names
    label_bytes, label_off = labels
    r, k = values.shape
    longest = int(np.max(np.diff(name_off))) if len(name_off) > 1 else 0
    longest += int(np.max(np.diff(label_off))) if len(label_off) > 1 else 0
    width = longest + 5 + (k + 1) * (_NUMBER_BYTES + 1)  # the longest a line can be
    buffer = np.empty(r * width, dtype=np.uint8)
    end = _write_rows(buffer, minute, target.astype(np.int64), name_bytes, name_off, status.astype(np.int64),
                      label_bytes, label_off, near, values, empty)
    return [buffer[:end]] if end else []


@njit(cache=True, inline="always")
def _put_bytes(out, at, source, start, stop):
    for i in range(start, stop):
        out[at] = source[i]
        at += 1
    return at


@njit(cache=True, inline="always")
def _put_text(out, at, text):
    for ch in text:
        out[at] = ord(ch)
        at += 1
    return at


@njit(cache=True, inline="always")
def put_exponent(out, at, e):
    """``e-05``, ``e+12``, ``e-300`` (two digits at least, as numpy and C write them) at ``out[at:]``; the position
    after it."""
    out[at] = 101  # 'e'
    at += 1
    if e < 0:
        out[at] = 45  # '-'
        e = -e
    else:
        out[at] = 43  # '+'
    at += 1
    if e >= 100:
        out[at] = 48 + e // 100
        at += 1
    out[at] = 48 + (e // 10) % 10
    out[at + 1] = 48 + e % 10
    return at + 2


@njit(cache=True, inline="always")
def _scaled(v, n):
    """``rint(v * 10**n)``; in two steps where ``10**n`` alone would overflow (subnormal ``v``)."""
    if 0 <= n < _EXACT_POWERS.size:
        return np.rint(v * _EXACT_POWERS[n])
    if n > 300:
        return np.rint(v * 1e100 * 10.0 ** (n - 100))
    return np.rint(v * 10.0 ** n)


@njit(cache=True, inline="always")
def _put_twelve_digits(out, at, mantissa):
    """The 12 decimal digits of ``mantissa`` (< 10**12) into ``out[at:at + 12]``, most significant first.

    Two 6-digit halves in 32-bit arithmetic, two digits per division from a
    table: the dependent divisions of one digit at a time were most of the
    time of a number.
    """
    high = np.uint32(mantissa // np.uint64(1_000_000))
    low = np.uint32(mantissa % np.uint64(1_000_000))
    for k in range(3):
        a = 2 * (high % np.uint32(100))
        b = 2 * (low % np.uint32(100))
        high //= np.uint32(100)
        low //= np.uint32(100)
        out[at + 5 - 2 * k] = _PAIRS[a + 1]
        out[at + 4 - 2 * k] = _PAIRS[a]
        out[at + 11 - 2 * k] = _PAIRS[b + 1]
        out[at + 10 - 2 * k] = _PAIRS[b]


@njit(cache=True, inline="always")
def _exponent10(v):
    """``floor(log10(v))`` of a finite ``v > 0``, from its binary exponent and :data:`_TENS` (``log10`` took a
    sixth of a number's time). Where the table's power is rounded (beyond ``1e22``, below ``1e-22``) the answer may be
    one off for a ``v`` within an ulp of it: :func:`_put_number` then corrects it as it corrects ``log10``."""
    _, e2 = math.frexp(v)  # v = f 2**e2 with 0.5 <= f < 1: log10(v) in [(e2 - 1) log10(2), e2 log10(2))
    e = int(math.floor((e2 - 1) * 0.30102999566398120))
    while e < 308 and v >= _TENS[e + 325]:
        e += 1
    while e > -324 and v < _TENS[e + 324]:
        e -= 1
    return e


@njit(cache=True)
def _put_number(out, at, v, digits):
    """Write ``v`` as ``%.{digits}g`` at ``out[at]``; return the end. All 12 digits are written, then the text is
    cut to its length: up to 18 bytes from ``at`` are written (:data:`_NUMBER_BYTES` are room for a number).

    Called, not inlined into the row loop by numba: its two inlined copies took 18 s of CPU to compile, this
    takes 6 s and writes within 5 % of that speed.

    ``digits`` must be 12 (:func:`_put_twelve_digits`). The digits are written straight into ``out`` (a
    scratch copied byte by byte took a fifth more time).
    """
    if np.isnan(v):
        return _put_text(out, at, "nan")
    if v < 0 or (v == 0 and np.signbit(v)):
        out[at] = 45  # '-'
        at += 1
        v = -v
    if np.isinf(v):
        return _put_text(out, at, "inf")
    if v == 0:
        out[at] = 48
        return at + 1
    e = _exponent10(v)
    m = _scaled(v, digits - 1 - e)
    # written_angles' arithmetic; m has `digits` decimal digits, or one more after a carry
    mantissa = np.uint64(m)
    top = _POWERS[digits]
    if mantissa >= top:  # 9.999...e5 rounded up to 10.00...e5
        mantissa //= np.uint64(10)
        e += 1
    elif mantissa < top // np.uint64(10):  # log10 rounded up at an exact power of ten
        e -= 1
        mantissa = np.uint64(_scaled(v, digits - 1 - e))
    if 0 <= e < digits:  # 123.45: the digits one place on, the integer ones moved back, '.' in the gap
        _put_twelve_digits(out, at + 1, mantissa)
        for i in range(e + 1):
            out[at + i] = out[at + i + 1]
        point = at + e + 1
        out[point] = 46  # '.'
        end = at + 13
        while end > point + 1 and out[end - 1] == 48:  # trailing zeros
            end -= 1
        return end if end > point + 1 else point
    if -4 <= e < 0:  # 0.00012345
        out[at] = 48
        out[at + 1] = 46
        at += 2
        for _ in range(-e - 1):
            out[at] = 48
            at += 1
        _put_twelve_digits(out, at, mantissa)
        end = at + 12
        while out[end - 1] == 48:
            end -= 1
        return end
    _put_twelve_digits(out, at + 1, mantissa)  # 1.2345e-05: the first digit, '.', the others
    out[at] = out[at + 1]
    out[at + 1] = 46
    end = at + 13
    while end > at + 2 and out[end - 1] == 48:
        end -= 1
    return put_exponent(out, end if end > at + 2 else at + 1, e)


@njit(cache=True, nogil=True)
def _write_rows(buffer, minute, target, name_bytes, name_off, status, label_bytes, label_off, near, values, empty):
    """The lines of the rows one after another from ``buffer[0]``; returns where they end."""
    r, k = values.shape
    at = 0
    for i in range(r):
        at = _put_number(buffer, at, minute[i], WRITTEN_DIGITS)
        buffer[at] = 44  # ','
        at = _put_bytes(buffer, at + 1, name_bytes, name_off[target[i]], name_off[target[i] + 1])
        buffer[at] = 44
        at = _put_bytes(buffer, at + 1, label_bytes, label_off[status[i]], label_off[status[i] + 1])
        buffer[at] = 44
        buffer[at + 1] = 49 if near[i] else 48
        at += 2
        for j in range(k):
            buffer[at] = 44
            at += 1
            if not empty[i, j]:
                at = _put_number(buffer, at, values[i, j], WRITTEN_DIGITS)
        buffer[at] = 10  # '\n'
        at += 1
    return at
