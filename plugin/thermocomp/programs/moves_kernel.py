"""The statements of a RAPID ``MOVES`` token split in compiled code: the parts of each, their texts grouped.

rapid.lark reads a run of plain motion statements as one ``MOVES`` token; each
statement of a run has this shape::

    MoveL|MoveJ|MoveC|MoveAbsJ  point  [, point]  , speed , zone , tool  [\\WObj := wobj] ;

with whitespace and whole-line ``!`` comments between statements, a point an
aggregate of numbers (brackets balanced, at most three deep) or a name. A
regular expression per statement and a Python loop over them took two thirds
of reading a 100,000-motion module. :func:`split_moves` gives, for every
statement, the start and end of each part in one pass over the token's bytes;
:func:`distinct_spans` groups equal texts (a program names a handful of
speeds, tools and work objects, each written thousands of times) so each is
resolved once. Anything off the shape returns ``None``: the caller then reads
the statements through the grammar's general rules, the reference this is
tested against (tests/test_programs_rapid_runs.py).
"""

from __future__ import annotations

import numpy as np

from thermocomp.compiled import njit

#: The parts of a statement, in the order of :func:`split_moves`'s columns (start, end of each; -1 if absent).
PARTS = ("instr", "p1", "p2", "speed", "zone", "tool", "wobj")
#: Column of each part's start (its end is the next column); the statement's end (after ``;``) is the last column.
COLUMN = {part: 2 * i for i, part in enumerate(PARTS)}
END = 2 * len(PARTS)

_INSTRUCTIONS = (b"movel", b"movej", b"movec", b"moveabsj")
_INSTR_BYTES = np.zeros((len(_INSTRUCTIONS), 8), dtype=np.uint8)
_INSTR_LENGTHS = np.array([len(s) for s in _INSTRUCTIONS], dtype=np.int64)
for _k, _s in enumerate(_INSTRUCTIONS):
    _INSTR_BYTES[_k, :len(_s)] = np.frombuffer(_s, dtype=np.uint8)


@njit(cache=True, nogil=True)
def _is_sp(c):  # [ \t\r\n]: the spaces inside a statement
    return c == 32 or c == 9 or c == 13 or c == 10


@njit(cache=True, nogil=True)
def _is_word(c):  # [A-Za-z0-9_]
    return (97 <= c <= 122) or (65 <= c <= 90) or (48 <= c <= 57) or c == 95


@njit(cache=True, nogil=True)
def _is_first(c):  # [A-Za-z_]
    return (97 <= c <= 122) or (65 <= c <= 90) or c == 95


@njit(cache=True, nogil=True)
def _lower(c):
    return c + 32 if 65 <= c <= 90 else c


@njit(cache=True, nogil=True)
def _in_list(c):  # [-+0-9.eE, \t\r\n]: what an aggregate of numbers holds besides brackets
    return (48 <= c <= 57) or c == 45 or c == 43 or c == 46 or c == 101 or c == 69 or c == 44 or _is_sp(c)


@njit(cache=True, nogil=True)
def _skip_sp(data, i):
    n = data.shape[0]
    while i < n and _is_sp(data[i]):
        i += 1
    return i


@njit(cache=True, nogil=True)
def _name_end(data, i):
    """End of the name starting at ``i``, or -1 if none starts there."""
    n = data.shape[0]
    if i >= n or not _is_first(data[i]):
        return -1
    i += 1
    while i < n and _is_word(data[i]):
        i += 1
    return i


@njit(cache=True, nogil=True)
def word_in(data, start, end, words, lengths, fold_case):
    """Whether ``data[start:end]`` is one of ``words`` (rows of a byte table, ``lengths`` each), compared in
    lower case if ``fold_case`` (RAPID's keywords; URScript's are case-sensitive)."""
    for w in range(words.shape[0]):
        if end - start != lengths[w]:
            continue
        same = True
        for j in range(end - start):
            c = _lower(data[start + j]) if fold_case else data[start + j]
            if c != words[w, j]:
                same = False
                break
        if same:
            return True
    return False


@njit(cache=True, nogil=True)
def _aggregate_end(data, i):
    """End of the aggregate of numbers starting at ``i`` (``[``), brackets balanced and at most 3 deep; -1 if not one."""
    n = data.shape[0]
    depth = 0
    while i < n:
        c = data[i]
        if c == 91:
            depth += 1
            if depth > 3:
                return -1
        elif c == 93:
            depth -= 1
            if depth == 0:
                return i + 1
        elif not _in_list(c):
            return -1
        i += 1
    return -1


@njit(cache=True, nogil=True)
def _statement(data, i, instr_bytes, instr_lengths, row, items):
    """The statement starting at ``i``, its parts into ``row`` (columns as :data:`COLUMN`); the offset after its
    ``;``, or -1 if no statement of the shape starts there. ``items``: ``(5, 2)`` scratch."""
    n = data.shape[0]
    for col in range(row.shape[0]):
        row[col] = -1
    # the instruction, a whole word
    end = _name_end(data, i)
    if end < 0:
        return -1
    if not word_in(data, i, end, instr_bytes, instr_lengths, True):
        return -1
    row[0], row[1] = i, end
    i = _skip_sp(data, end)
    # the comma-separated items up to "\" or ";"
    count = 0
    while True:
        if count == 5:
            return -1
        if i < n and data[i] == 91:
            end = _aggregate_end(data, i)
        else:
            end = _name_end(data, i)
        if end < 0:
            return -1
        items[count, 0], items[count, 1] = i, end
        count += 1
        i = _skip_sp(data, end)
        if i < n and data[i] == 44:
            i = _skip_sp(data, i + 1)
            continue
        break
    if count < 4:
        return -1
    first_name = 1 if count == 4 else 2  # speed, zone and tool are names; the points may be aggregates
    for j in range(first_name, count):
        if data[items[j, 0]] == 91:
            return -1
    row[2], row[3] = items[0, 0], items[0, 1]
    if count == 5:
        row[4], row[5] = items[1, 0], items[1, 1]
    for j in range(3):
        row[6 + 2 * j], row[7 + 2 * j] = items[first_name + j, 0], items[first_name + j, 1]
    # \WObj := name
    if i < n and data[i] == 92:
        end = _name_end(data, i + 1)
        if end != i + 5 or _lower(data[i + 1]) != 119 or _lower(data[i + 2]) != 111 \
                or _lower(data[i + 3]) != 98 or _lower(data[i + 4]) != 106:
            return -1
        i = _skip_sp(data, end)
        if not (i + 1 < n and data[i] == 58 and data[i + 1] == 61):
            return -1
        i = _skip_sp(data, i + 2)
        end = _name_end(data, i)
        if end < 0:
            return -1
        row[12], row[13] = i, end
        i = _skip_sp(data, end)
    if not (i < n and data[i] == 59):
        return -1
    row[14] = i + 1
    return i + 1


@njit(cache=True, nogil=True)
def _gap_end(data, i):
    """End of the whitespace (form feed included) and whole-line comments from ``i`` (rapid.lark's ``_MGAP``)."""
    n = data.shape[0]
    while i < n:
        c = data[i]
        if c == 32 or c == 9 or c == 12 or c == 13 or c == 10:
            i += 1
        elif c == 33:
            while i < n and data[i] != 10:
                i += 1
        else:
            break
    return i


@njit(cache=True, nogil=True)
def _split(data, instr_bytes, instr_lengths, out):
    """Fill ``out`` (one row per statement, columns as :data:`COLUMN`); the count, or -1 off the shape."""
    n = data.shape[0]
    i = 0
    k = 0
    items = np.empty((5, 2), dtype=np.int64)
    while i < n:
        i = _gap_end(data, i)  # whitespace and whole-line comments before the statement
        if i >= n:
            return -1  # (a token ends with a statement's ";": a gap after it, or no statement, is off the shape)
        if k >= out.shape[0]:
            return -1
        i = _statement(data, i, instr_bytes, instr_lengths, out[k], items)
        if i < 0:
            return -1
        k += 1
    return k


@njit(cache=True, nogil=True)
def _run_rows(data, i, instr_bytes, instr_lengths, most):
    """The statements of the run starting at ``i`` (:func:`run_end`): its end (-1 if none) and their rows (as
    :func:`_split`'s, offsets from ``i``)."""
    start = i
    # room for a statement every 14 bytes (the shortest, "MoveL a,b,c,d;"), up to ``most`` rows: pages that no
    # row reaches are never touched
    out = np.empty((min((data.shape[0] - i) // 14 + 1, most), END + 1), dtype=np.int64)
    items = np.empty((5, 2), dtype=np.int64)
    count = 0
    end = -1
    while True:
        if count == out.shape[0]:  # (grown by doubling beyond)
            bigger = np.empty((2 * count, END + 1), dtype=np.int64)
            bigger[:count] = out
            out = bigger
        after = _statement(data, i, instr_bytes, instr_lengths, out[count], items)
        if after < 0:
            return end, out[:count]
        for col in range(END + 1):
            if out[count, col] >= 0:
                out[count, col] -= start
        count += 1
        end = after
        i = _gap_end(data, after)
        if i == after:  # (statements without a gap between them are two runs, as the terminal reads them)
            return end, out[:count]


#: Rows a run's first array holds at most (a million: 120 MB of address space, touched only as far as used); a
#: longer run's array grows by doubling.
RUN_ROWS_FIRST = 1 << 20
#: The statements of the runs the lexer found, by (address of the text's bytes, start) -> (end, rows): taken by
#: :func:`scanned_rows` (the reader's split, done once), forgotten by :func:`forget_scanned` when a reading ends.
_SCANNED: dict[tuple[int, int], tuple[int, np.ndarray]] = {}


def run_end(data: np.ndarray, start: int) -> int:
    """End of the ``MOVES`` token (rapid.lark) starting at ``start`` of ``data`` (a module's latin-1 bytes), or -1
    if none starts there: the statements of the shape, as many as follow one another with a gap (whitespace,
    whole-line comments) between them. rapid.lark's lexer takes this in place of the terminal's regular
    expression, which read a 100,000-motion module at 2 to 3 us a statement (:mod:`thermocomp.programs.grammars`).
    The statements' parts are kept for :func:`scanned_rows`."""
    end, rows = _run_rows(data, start, _INSTR_BYTES, _INSTR_LENGTHS, RUN_ROWS_FIRST)
    if end > start:
        _SCANNED[(data.ctypes.data, start)] = (int(end), rows)
    return int(end)


def scanned_rows(data: np.ndarray, start: int, end: int) -> np.ndarray | None:
    """The rows :func:`split_moves` gives for the run ``data[start:end]`` (``data``: the whole text's bytes), as
    :func:`run_end` found them while the text was lexed; ``None`` if it did not."""
    found = _SCANNED.pop((data.ctypes.data, start), None)
    if found is None or found[0] != end:
        return None
    rows = found[1]
    return rows if len(rows) and rows[0, 0] == 0 and rows[-1, END] == end - start else None


def forget_scanned() -> None:
    """Drop the runs :func:`run_end` kept (a reading ended: none is wanted any more)."""
    _SCANNED.clear()


def split_moves(text: str, data: np.ndarray | None = None) -> np.ndarray | None:
    """Every statement of a ``MOVES`` token's ``text``, ``(r, 15)`` int64 offsets within it: the start and end
    of each of :data:`PARTS` (-1, -1 where absent) and the statement's end; ``None`` off the exact shape.
    ``data``: the text's latin-1 bytes (uint8), where the caller has them."""
    if data is None:
        data = np.frombuffer(text.encode("latin-1"), dtype=np.uint8)
    out = np.empty((text.count(";") + 1, END + 1), dtype=np.int64)  # (a statement a ';')
    count = _split(data, _INSTR_BYTES, _INSTR_LENGTHS, out)
    return None if count <= 0 else out[:count]


@njit(cache=True, nogil=True)
def _hashes(data, starts, ends, lower, out):
    """FNV-1a (64 bit) of each span's bytes (lower-cased if ``lower``); an absent span (start -1) hashes as empty."""
    for k in range(starts.shape[0]):
        h = np.uint64(14695981039346656037)
        if starts[k] >= 0:
            for i in range(starts[k], ends[k]):
                c = data[i]
                if lower and 65 <= c <= 90:
                    c += 32
                h = (h ^ np.uint64(c)) * np.uint64(1099511628211)
        out[k] = h


@njit(cache=True, nogil=True)
def _same_as(data, starts, ends, representative, lower):
    """True when every span's text equals its representative's (a hash collision would show here)."""
    for k in range(starts.shape[0]):
        r = representative[k]
        a, b = starts[k], starts[r]
        if (a < 0) != (b < 0):
            return False
        if a < 0:
            continue
        length = ends[k] - a
        if ends[r] - b != length:
            return False
        for j in range(length):
            x, y = data[a + j], data[b + j]
            if lower:
                x, y = _lower(x), _lower(y)
            if x != y:
                return False
    return True


def distinct_spans(data: np.ndarray, starts: np.ndarray, ends: np.ndarray,
                   lower: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Group spans of ``data`` (uint8) by their text: ``(first, inverse)``, ``first`` the index of each distinct
    text's first span in order of appearance, ``inverse`` each span's group. Several parts at once: ``starts``
    and ``ends`` ``(r, c)`` group rows of ``c`` spans. ``lower``: compared case-insensitively."""
    starts2 = starts.reshape(len(starts), -1)
    ends2 = ends.reshape(len(ends), -1)
    r, c = starts2.shape
    hashes = np.empty((c, r), dtype=np.uint64)  # (a part's hashes contiguous: one compiled version of _hashes)
    for j in range(c):
        _hashes(data, np.ascontiguousarray(starts2[:, j]), np.ascontiguousarray(ends2[:, j]), lower, hashes[j])
    keys = hashes[0].copy()
    for j in range(1, c):  # a row's parts as one key (a collision of keys is caught below, as one of a part's)
        keys *= np.uint64(1099511628211)
        keys ^= hashes[j]
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")  # groups numbered in order of appearance
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    inverse = rank[inverse.ravel()]
    first = first[order]
    representative = first[inverse]
    for j in range(c):
        if not _same_as(data, np.ascontiguousarray(starts2[:, j]), np.ascontiguousarray(ends2[:, j]),
                        representative, lower):
            return _exact_groups(data, starts2, ends2, lower)  # two texts of one hash: grouped by the texts
    return first, inverse


def _exact_groups(data: np.ndarray, starts: np.ndarray, ends: np.ndarray, lower: bool) -> tuple[np.ndarray,
                                                                                                  np.ndarray]:
    """:func:`distinct_spans` by the texts themselves (``starts``, ``ends`` ``(r, c)``), in Python."""
    raw = data.tobytes()
    groups: dict[tuple, int] = {}
    first: list[int] = []
    inverse = np.empty(len(starts), dtype=np.int64)
    for i, (row_starts, row_ends) in enumerate(zip(starts.tolist(), ends.tolist())):
        key = tuple(None if a < 0 else (raw[a:b].lower() if lower else raw[a:b]) for a, b in zip(row_starts, row_ends))
        if key not in groups:
            groups[key] = len(first)
            first.append(i)
        inverse[i] = groups[key]
    return np.array(first, dtype=np.int64), inverse


@njit(cache=True, nogil=True)
def _aggregates(data, starts, ends, skeleton, extax):
    """True when each span, its number characters and spaces taken out, is exactly ``skeleton``; in the same
    pass, each span's last ``[`` up to its last ``]``, trailing spaces left out, into ``extax`` (a robtarget's
    external axes)."""
    for k in range(starts.shape[0]):
        j = 0
        a = starts[k]
        last_open, last_close = a, a
        for i in range(a, ends[k]):
            c = data[i]
            if c == 91 or c == 93 or c == 44:
                if j >= skeleton.shape[0] or skeleton[j] != c:
                    return False
                j += 1
                if c == 91:
                    last_open = i
                elif c == 93:
                    last_close = i
            elif not _in_list(c):
                return False
        if j != skeleton.shape[0]:
            return False
        e = last_close
        while e > last_open and _is_sp(data[e - 1]):
            e -= 1
        extax[k, 0], extax[k, 1] = last_open, e
    return True


def aggregate_spans(data: np.ndarray, starts: np.ndarray, ends: np.ndarray, skeleton: str) -> np.ndarray | None:
    """Each span of ``data`` is an aggregate of numbers of the shape ``skeleton`` (``"[[,,],[,,,]]"``): then the
    ``(k, 2)`` start and end of each one's external-axes text (``t[t.rfind("["):t.rfind("]")].rstrip()``), else
    ``None``."""
    extax = np.empty((len(starts), 2), dtype=np.int64)
    ok = _aggregates(data, np.ascontiguousarray(starts), np.ascontiguousarray(ends),
                     np.frombuffer(skeleton.encode("ascii"), dtype=np.uint8), extax)
    return extax if ok else None
