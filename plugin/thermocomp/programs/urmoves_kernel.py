"""The statements of a URScript ``MOVES`` token found and split in compiled code.

urscript.lark reads a run of plain motions, one a line, as one ``MOVES`` token::

    movel|movej|movep ( [p][ numbers ] [, a=.., v=.., t=.., r=.. or numbers] )

with spaces, comments and line ends between them (the terminals ``_UMOVE``
and ``_UGAP``). :func:`run_end` finds where such a run ends, for the lexer
(:mod:`thermocomp.programs.grammars`), and :func:`split_moves` where each
statement's instruction, point and arguments are. Python's regular
expressions took 1.5 us a statement for the first and 4 us for the second
(with the objects of their matches); these kernels read the bytes once. The
numbers themselves are checked and read by :mod:`thermocomp.programs.numbers_kernel`
and the arguments by :mod:`thermocomp.programs.urscript`, the grammar's general
rules being the reference both are tested against.
"""

from __future__ import annotations

import numpy as np

from thermocomp.compiled import njit
from thermocomp.programs.moves_kernel import word_in

#: Columns of :func:`split_moves`: the instruction's start and end, the point's (``p[`` or ``[`` to ``]``), the
#: arguments after it (from ``]`` to before ``)``), and the statement's end (after ``)``).
NAME, NAME_END, POINT, POINT_END, ARGS, ARGS_END, END = range(7)

_NAMES = np.frombuffer(b"movelmovejmovep", dtype=np.uint8).reshape(3, 5)
_NAME_LENGTHS = np.full(3, 5, dtype=np.int64)


@njit(cache=True, nogil=True)
def _is_space(c):  # [ \t\f\r]
    return c == 32 or c == 9 or c == 12 or c == 13


@njit(cache=True, nogil=True)
def _in_point(c):  # [-+0-9.eE, \t\f\r]: a point's characters between its brackets
    return (48 <= c <= 57) or c == 45 or c == 43 or c == 46 or c == 101 or c == 69 or c == 44 or _is_space(c)


@njit(cache=True, nogil=True)
def _in_args(c):  # [-+0-9.eEavtr=, \t\f\r]: the arguments' characters
    return _in_point(c) or c == 97 or c == 118 or c == 116 or c == 114 or c == 61


@njit(cache=True, nogil=True)
def _statement(data, i, names, row):
    """The motion starting at ``i`` (``_UMOVE``), its parts into ``row`` (columns as :data:`NAME`..); the offset
    after its ``)``, or -1 if none starts there."""
    n = data.shape[0]
    if i + 6 > n or data[i + 5] != 40 or not word_in(data, i, i + 5, names, _NAME_LENGTHS, False):  # "name("
        return -1
    row[0], row[1] = i, i + 5
    k = i + 6
    row[2] = k
    if k < n and data[k] == 112:  # "p"
        k += 1
    if not (k < n and data[k] == 91):  # "["
        return -1
    k += 1
    while k < n and _in_point(data[k]):
        k += 1
    if not (k < n and data[k] == 93):  # "]"
        return -1
    k += 1
    row[3] = row[4] = k
    while k < n and _in_args(data[k]):
        k += 1
    if not (k < n and data[k] == 41):  # ")"
        return -1
    row[5] = k
    row[6] = k + 1
    return k + 1


@njit(cache=True, nogil=True)
def _gap_end(data, i):
    """End of the gap from ``i`` (``_UGAP``: whole lines of spaces and a comment, then spaces), or ``i``."""
    n = data.shape[0]
    end = i
    k = i
    while True:
        while k < n and _is_space(data[k]):
            k += 1
        if k < n and data[k] == 35:  # "#" to the end of the line
            while k < n and data[k] != 10:
                k += 1
        if k < n and data[k] == 10:
            k += 1
            end = k  # (a whole line taken)
        else:
            break
    if end == i:
        return i  # no line end: no gap
    while end < n and _is_space(data[end]):
        end += 1
    return end


@njit(cache=True, nogil=True)
def _run_end(data, i, names):
    row = np.empty(7, dtype=np.int64)
    end = -1
    while True:
        after = _statement(data, i, names, row)
        if after < 0:
            return end
        end = after
        i = _gap_end(data, after)
        if i == after:
            return end


def run_end(data: np.ndarray, start: int) -> int:
    """End of the ``MOVES`` token (urscript.lark) starting at ``start`` of ``data`` (a script's latin-1 bytes), or
    -1 if none starts there: the motions of the shape, as many as follow one another a line apart."""
    return int(_run_end(data, start, _NAMES))


@njit(cache=True, nogil=True)
def _split(data, names, out):
    n = data.shape[0]
    i = 0
    k = 0
    while i < n:
        if k > 0:
            gap = _gap_end(data, i)
            if gap == i:
                return -1
            i = gap
        if k >= out.shape[0]:
            return -1
        i = _statement(data, i, names, out[k])
        if i < 0:
            return -1
        k += 1
    return k


def split_moves(text: str, data: np.ndarray) -> np.ndarray | None:
    """Every statement of a ``MOVES`` token's ``text`` (``data``: its latin-1 bytes), ``(k, 7)`` int64 offsets within
    it (columns :data:`NAME` .. :data:`END`); ``None`` unless the text is exactly such statements a line apart."""
    out = np.empty((text.count(")") + 1, 7), dtype=np.int64)
    count = _split(data, _NAMES, out)
    return None if count <= 0 else out[:count]
