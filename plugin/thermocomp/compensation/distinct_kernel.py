"""Compiled row keys: a 64-bit hash per row and the distinct rows of a table, exact (numba).

A program's rows are problems keyed by their bits (pose, reference joints,
confdata: :meth:`thermocomp.compensation.program.Program.distinct_rows`).
Sorting 100,000 such keys as numpy ``void`` values (``np.unique``) cost
more than solving them with the closed form; a hash table does it in one
pass. Equality is always decided on the whole row, so two rows with one
hash are never taken for one problem.
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: FNV-1a's 64-bit offset basis and prime, with a shift that folds high bits down after each word.
_BASIS = np.uint64(0xCBF29CE484222325)
_PRIME = np.uint64(0x100000001B3)
_FOLD = np.uint64(29)


@njit(cache=True, nogil=True)
def hash_rows(words):
    """One 64-bit hash per row of ``words`` ``(m, w)`` uint64 (FNV-style mixing, one word at a time)."""
    m, w = words.shape
    out = np.empty(m, dtype=np.uint64)
    for i in range(m):
        h = _BASIS
        for k in range(w):
            h = (h ^ words[i, k]) * _PRIME
            h ^= h >> _FOLD
        out[i] = h
    return out


@njit(cache=True, nogil=True, inline="always")
def _same(words, a, b):
    for k in range(words.shape[1]):
        if words[a, k] != words[b, k]:
            return False
    return True


@njit(cache=True, nogil=True)
def distinct_rows(words):
    """The distinct rows of ``words`` ``(m, w)`` uint64, by value.

    Returns ``first`` ``(k,)``, the row of each distinct value's first
    occurrence, increasing, and ``inverse`` ``(m,)``, the distinct value of
    every row (``words[first[inverse]] == words``). An open-addressing table
    of at least twice ``m`` slots, probed linearly; a slot's row is compared
    word by word.
    """
    m = words.shape[0]
    hashes = hash_rows(words)
    size = 1
    while size < 2 * m:
        size *= 2
    mask = np.uint64(size - 1)
    slots = np.full(size, -1, dtype=np.int64)  # distinct index held by each slot, -1 empty
    first = np.empty(m, dtype=np.int64)
    inverse = np.empty(m, dtype=np.int64)
    k = 0
    for i in range(m):
        s = hashes[i] & mask
        while True:
            d = slots[s]
            if d < 0:
                slots[s] = k
                first[k] = i
                inverse[i] = k
                k += 1
                break
            if hashes[first[d]] == hashes[i] and _same(words, first[d], i):
                inverse[i] = d
                break
            s = (s + np.uint64(1)) & mask
    return first[:k].copy(), inverse


__all__ = ["distinct_rows", "hash_rows"]
