"""The shortest decimal text of 32-bit floats, in compiled code, to the character of numpy's ``str``.

A compensated 100,000-motion RAPID program writes 700,000 numbers as the
shortest text that reads back as the same 32-bit float (RAPID ``num``);
numpy's ``astype(str)`` (Dragon4, one Python string a value) took 0.36 s of
it. :func:`shortest_texts` finds the same digits with exact integer
arithmetic, as Dragon4 does (Steele and White 1990; numpy's
``dragon4.c``): for 1, 2, ... significant digits it takes the two
candidates around the value, ``T`` and ``T + 1`` units of the last digit,
and takes the fewest digits at which one of them lies strictly inside the
interval of decimals that read back as the value (half a unit in the last
place each side, a quarter below a power of two); if both do, the nearer,
and the even one on a tie. The text is written positionally as numpy writes
a float32 between 1e-4 and 1e6 (``123.25``, ``0.00125``), without numpy's
``.0`` on whole numbers, and below 1e-4 in numpy's scientific notation
(``1.2345e-05``: a quaternion's component near zero).

Only values from :data:`LOW` to :data:`HIGH` are written here, where every
product fits in 63 bits; the others (and zero) are marked for numpy, which
stays the reference: ``tests/test_programs_singles_kernel.py`` holds both
to the same text.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from thermocomp.compiled import njit
from thermocomp.io.results_text import put_exponent

#: The range written here (others are left to numpy, zero too): every product of :func:`_digits` fits in 63 bits
#: from 1e-7 up; 1e6 is where numpy's positional text turns scientific (``1e+06``).
LOW, HIGH = 1e-7, 1e6
#: Below this numpy writes a float32 in scientific notation (``9.9999e-05``, ``1e-04``), from it on positionally
#: (``0.0001``): its rule ``1e-4 <= |value|``, on the float32's exact value.
SCIENTIFIC_BELOW = 1e-4
#: Longest text: a sign, "0." and 3 zeros, 9 significant digits (or 6 integer digits, a point, 3 more).
WIDTH = 24

_POW5 = np.array([5 ** n for n in range(28)], dtype=np.int64)
_POW10 = np.array([10 ** n for n in range(19)], dtype=np.int64)


@njit(cache=True, nogil=True, inline="always")
def _scaled(X, F, k, pow5):
    """``X * 2**F * 10**k`` as ``(q, r, d)``: the integer part, the remainder and its denominator (``q + r / d``)."""
    if k >= 0:
        num = X * pow5[k]
        shift = F + k
        if shift >= 0:
            return num << shift, 0, 1
        d = np.int64(1) << (-shift)
        return num >> (-shift), num & (d - 1), d
    shift = F + k  # 10**k = 5**k * 2**k
    if shift >= 0:
        a = X << shift
        d = pow5[-k]
        return a // d, a % d, d
    d = pow5[-k] << (-shift)
    return X // d, X % d, d


@njit(cache=True, nogil=True, inline="always")
def _digits(bits, pow5):
    """Shortest digits of the positive float32 of ``bits``: ``(c, x)``, the value being ``c`` read as
    ``d1.d2d3...`` times ``10**x`` (``c`` without trailing zeros)."""
    e = (bits >> 23) & 0xFF
    f = bits & 0x7FFFFF
    M = np.int64(f | 0x800000)
    E = np.int64(e) - 150
    # the value and the ends of its interval, times 4, over 2**(E-2)
    X = 4 * M
    lo = X - (1 if (f == 0 and e > 1) else 2)
    hi = X + 2
    F = E - 2
    value = float(M) * 2.0 ** E
    x = int(np.floor(np.log10(value)))
    # x exactly: 10**x <= value < 10**(x+1), from the one-digit integer part
    for _ in range(3):
        q, r, d = _scaled(X, F, -x, pow5)
        if q < 1:
            x -= 1
        elif q >= 10:
            x += 1
        else:
            break
    # the fewest digits at which a candidate lies inside (more digits keep it inside: 10 c is one): bisected
    a, b = 1, 9
    while a < b:
        p = (a + b) // 2
        if _inside(X, lo, hi, F, p - 1 - x, pow5)[0] != 0:
            b = p
        else:
            a = p + 1
    found, T, r, d = _inside(X, lo, hi, F, a - 1 - x, pow5)
    if found == 0:
        return np.int64(-1), 0  # (a float32 always has one by 9 digits)
    if found == 3:  # both: the nearer, the even one on a tie
        twice = 2 * r
        up = twice > d or (twice == d and T % 2 == 1)
    else:
        up = found == 2
    c = T + 1 if up else T
    if c == _POW10[a]:
        return np.int64(1), x + 1
    while c % 10 == 0:
        c //= 10
    return c, x


@njit(cache=True, nogil=True, inline="always")
def _inside(X, lo, hi, F, k, pow5):
    """Which of ``T`` and ``T + 1`` (the value times ``10**k``, rounded down and up) lie strictly inside the
    interval: 0 neither, 1 ``T``, 2 ``T + 1``, 3 both; and ``T`` with the remainder ``r / d``."""
    T, r, d = _scaled(X, F, k, pow5)
    qL, rL, dL = _scaled(lo, F, k, pow5)
    qH, rH, dH = _scaled(hi, F, k, pow5)
    low = T >= qL + 1
    high = (T + 1 < qH) or (T + 1 == qH and rH > 0)
    return (1 if low else 0) + (2 if high else 0), T, r, d


@njit(cache=True, nogil=True, inline="always")
def _digits_and_sign(negative, c, digits, out):
    """The decimal digits of ``c`` into ``digits``, the last first, and a ``-`` at ``out[0]`` if ``negative``:
    ``(n, i)``, how many digits and where the text goes on."""
    n = 0
    while c > 0:
        digits[n] = 48 + c % 10
        c //= 10
        n += 1
    if negative:
        out[0] = 45  # '-'
        return n, 1
    return n, 0


@njit(cache=True, nogil=True, inline="always")
def _write(negative, c, x, out):
    """The positional text of ``c`` (digits) at exponent ``x`` into ``out``; returns its length."""
    digits = np.empty(10, dtype=np.uint8)
    n, i = _digits_and_sign(negative, c, digits, out)  # digits[n-1] is the first digit
    if x >= 0:
        for j in range(x + 1):
            out[i] = digits[n - 1 - j] if j < n else 48
            i += 1
        if n > x + 1:
            out[i] = 46  # '.'
            i += 1
            for j in range(x + 1, n):
                out[i] = digits[n - 1 - j]
                i += 1
    else:
        out[i] = 48
        out[i + 1] = 46
        i += 2
        for _ in range(-x - 1):
            out[i] = 48
            i += 1
        for j in range(n):
            out[i] = digits[n - 1 - j]
            i += 1
    return i


@njit(cache=True, nogil=True, inline="always")
def _write_scientific(negative, c, x, out):
    """numpy's scientific text of ``c`` (digits) at exponent ``x``: ``d[.ddd]e-XX`` (two exponent digits at least)."""
    digits = np.empty(10, dtype=np.uint8)
    n, i = _digits_and_sign(negative, c, digits, out)
    out[i] = digits[n - 1]
    i += 1
    if n > 1:
        out[i] = 46  # '.'
        i += 1
        for j in range(n - 2, -1, -1):
            out[i] = digits[j]
            i += 1
    return put_exponent(out, i, x)


@njit(cache=True, nogil=True, parallel=True)
def _texts(bits, out, done, pow5):
    for i in prange(bits.shape[0]):
        b = bits[i]
        negative = (b >> 31) & 1 == 1
        a = b & 0x7FFFFFFF
        e = (a >> 23) & 0xFF
        if e == 0 or e == 0xFF:
            done[i] = False
            continue
        value = float(np.int64((a & 0x7FFFFF) | 0x800000)) * 2.0 ** (np.int64(e) - 150)
        if not (LOW <= value < HIGH):
            done[i] = False
            continue
        c, x = _digits(a, pow5)
        if c < 0:
            done[i] = False
            continue
        if value < SCIENTIFIC_BELOW:
            _write_scientific(negative, c, x, out[i])
        else:
            _write(negative, c, x, out[i])
        done[i] = True


def shortest_texts(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Texts of the float32 ``values`` (any shape) as ``|S24`` bytes, and where they were written here.

    Where ``done`` is False (zero, a value outside :data:`LOW`..:data:`HIGH`, not finite) the text is empty
    and the caller writes numpy's.
    """
    flat = np.ascontiguousarray(values, dtype=np.float32).reshape(-1)
    out = np.zeros((flat.size, WIDTH), dtype=np.uint8)
    done = np.zeros(flat.size, dtype=np.bool_)
    _texts(flat.view(np.uint32), out, done, _POW5)
    return out.view(f"S{WIDTH}").reshape(np.shape(values)), done.reshape(np.shape(values))


@njit(cache=True, nogil=True, inline="always")
def put_int(value, buf, k):
    """Write the decimal text of the integer ``value`` at ``buf[k:]``; the position after it."""
    if value < 0:
        buf[k] = 45
        k += 1
        value = -value
    start = k
    while True:
        buf[k] = 48 + value % 10
        k += 1
        value //= 10
        if value == 0:
            break
    end = k - 1
    while start < end:  # the digits were written last first
        buf[start], buf[end] = buf[end], buf[start]
        start += 1
        end -= 1
    return k


@njit(cache=True, nogil=True, inline="always")
def _put_text(texts, i, j, buf, k):
    """The NUL-padded text ``texts[i, j]`` (:func:`shortest_texts`' bytes) at ``buf[k:]``; the position after it."""
    for c in range(texts.shape[2]):
        if texts[i, j, c] == 0:
            break
        buf[k] = texts[i, j, c]
        k += 1
    return k


@njit(cache=True, nogil=True)
def _robtarget_rows(texts, conf, extax_code, table, table_len, buf, start, end):
    """``[[x,y,z],[q1,q2,q3,q4],[cf1,cf4,cf6,cfx],<extax>]`` of each row into ``buf``, row ``i`` at
    ``buf[start[i]:end[i]]``; ``<extax>`` is row ``extax_code[i]`` of ``table`` (its first ``table_len`` bytes)."""
    k = 0
    for i in range(texts.shape[0]):
        start[i] = k
        buf[k] = 91
        buf[k + 1] = 91
        k += 2
        for j in range(7):
            if j == 3:
                buf[k] = 93
                buf[k + 1] = 44
                buf[k + 2] = 91
                k += 3
            elif j > 0:
                buf[k] = 44
                k += 1
            k = _put_text(texts, i, j, buf, k)
        buf[k] = 93
        buf[k + 1] = 44
        buf[k + 2] = 91
        k += 3
        for j in range(conf.shape[1]):
            if j > 0:
                buf[k] = 44
                k += 1
            k = put_int(conf[i, j], buf, k)
        buf[k] = 93
        buf[k + 1] = 44
        k += 2
        code = extax_code[i]
        for c in range(table_len[code]):
            buf[k] = table[code, c]
            k += 1
        buf[k] = 93
        k += 1
        end[i] = k
    return k


def robtarget_rows(stored: np.ndarray, conf: np.ndarray, extax_code: np.ndarray,
                   extax_table: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The robtarget texts ``[[x,y,z],[q1,q2,q3,q4],[cf1,cf4,cf6,cfx],<extax>]`` of the float32 rows ``stored``
    ``(r, 7)``, integer confdata ``(r, 4)`` and external axes' texts (row ``i``'s is
    ``extax_table[extax_code[i]]``), as latin-1 bytes: ``(buf, start, end, done)``, row ``i`` being
    ``buf[start[i]:end[i]]`` where ``done[i]``. The numbers are as :func:`shortest_texts` writes them; a row with
    a value left to numpy (zero, ...) is not written (the caller writes it)."""
    fast, done = shortest_texts(stored)
    rows = np.flatnonzero(np.all(done, axis=1))
    r = fast.shape[0]
    start, end = np.zeros(r, dtype=np.int64), np.zeros(r, dtype=np.int64)
    row_done = np.zeros(r, dtype=bool)
    if rows.size == 0:
        return np.zeros(0, dtype=np.uint8), start, end, row_done
    codes = np.ascontiguousarray(np.asarray(extax_code, dtype=np.int64)[rows])
    encoded = [e.encode("latin-1") for e in extax_table]
    table = np.zeros((len(encoded), max(1, max(len(e) for e in encoded))), dtype=np.uint8)
    for k, e in enumerate(encoded):
        table[k, :len(e)] = np.frombuffer(e, dtype=np.uint8)
    table_len = np.array([len(e) for e in encoded], dtype=np.int64)
    conf = np.ascontiguousarray(np.asarray(conf)[rows], dtype=np.int64)
    digits = np.ascontiguousarray(fast[rows]).view(np.uint8).reshape(rows.size, 7, WIDTH)
    buf = np.empty(rows.size * (7 * WIDTH + 4 * 21 + 16) + int(table_len[codes].sum()), dtype=np.uint8)
    s, e = np.empty(rows.size, dtype=np.int64), np.empty(rows.size, dtype=np.int64)
    k = _robtarget_rows(digits, conf, codes, table, table_len, buf, s, e)
    start[rows], end[rows], row_done[rows] = s, e, True
    return buf[:k], start, end, row_done


@njit(cache=True, nogil=True)
def _list_rows(texts, prefix, separator, suffix, buf, start, end):
    """``<prefix>t1<separator>t2...<suffix>`` of each row of ``texts`` ``(r, k, WIDTH)`` (NUL-padded) into ``buf``,
    row ``i`` at ``buf[start[i]:end[i]]``; returns the length written."""
    at = 0
    for i in range(texts.shape[0]):
        start[i] = at
        for c in range(prefix.shape[0]):
            buf[at] = prefix[c]
            at += 1
        for j in range(texts.shape[1]):
            if j > 0:
                for c in range(separator.shape[0]):
                    buf[at] = separator[c]
                    at += 1
            at = _put_text(texts, i, j, buf, at)
        for c in range(suffix.shape[0]):
            buf[at] = suffix[c]
            at += 1
        end[i] = at
    return at


def list_rows(stored: np.ndarray, prefix: str, separator: str, suffix: str) -> tuple[np.ndarray, np.ndarray,
                                                                                     np.ndarray, np.ndarray]:
    """The texts ``<prefix>v1<separator>v2...<suffix>`` of the float32 rows ``stored`` ``(r, k)`` (a URScript
    ``p[x, y, z, rx, ry, rz]``), as latin-1 bytes ``(buf, start, end, done)``, row ``i`` being
    ``buf[start[i]:end[i]]`` where ``done[i]``; the numbers as :func:`shortest_texts` writes them, a row with a
    value left to numpy (zero, ...) not written (the caller writes it)."""
    fast, done = shortest_texts(stored)
    rows = np.flatnonzero(np.all(done, axis=1))
    r, k = stored.shape
    start, end = np.zeros(r, dtype=np.int64), np.zeros(r, dtype=np.int64)
    row_done = np.zeros(r, dtype=bool)
    if rows.size == 0:
        return np.zeros(0, dtype=np.uint8), start, end, row_done
    parts = [np.frombuffer(x.encode("latin-1"), dtype=np.uint8) for x in (prefix, separator, suffix)]
    digits = np.ascontiguousarray(fast[rows]).view(np.uint8).reshape(rows.size, k, WIDTH)
    buf = np.empty(rows.size * (k * (WIDTH + len(parts[1])) + len(parts[0]) + len(parts[2])), dtype=np.uint8)
    s, e = np.empty(rows.size, dtype=np.int64), np.empty(rows.size, dtype=np.int64)
    n = _list_rows(digits, *parts, buf, s, e)
    start[rows], end[rows], row_done[rows] = s, e, True
    return buf[:n], start, end, row_done
