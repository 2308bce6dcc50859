"""A program's text with its targets' spans replaced, assembled in compiled code.

A compensated 100,000-motion program replaces 100,000 spans of its text; a
Python loop that appends each piece, then a join, took 0.12-0.15 s of
writing it. :func:`splice` copies the text and the new values' bytes into
one buffer in a single pass (latin-1: one byte a character, so offsets in
the text are offsets in the bytes).
"""

from __future__ import annotations

import numpy as np

from thermocomp.compiled import njit
from thermocomp.programs.singles_kernel import put_int


@njit(cache=True, nogil=True)
def _splice(src, starts, ends, rep, rep_start, rep_end, out):
    k = 0
    position = 0
    for i in range(starts.shape[0]):
        if rep_start[i] < 0:
            continue
        a = starts[i]
        if a < position:
            return -1
        n = a - position
        out[k:k + n] = src[position:a]
        k += n
        n = rep_end[i] - rep_start[i]
        out[k:k + n] = rep[rep_start[i]:rep_end[i]]
        k += n
        position = ends[i]
    n = src.shape[0] - position
    out[k:k + n] = src[position:]
    return k + n


def splice(src: np.ndarray, starts: np.ndarray, ends: np.ndarray, rep: np.ndarray, rep_start: np.ndarray,
           rep_end: np.ndarray) -> np.ndarray | None:
    """``src`` (uint8) with ``src[starts[i]:ends[i]]`` replaced by ``rep[rep_start[i]:rep_end[i]]`` where
    ``rep_start[i] >= 0``; ``None`` when the replaced spans are not in the order of the text and apart."""
    starts = np.ascontiguousarray(starts, dtype=np.int64)
    ends = np.ascontiguousarray(ends, dtype=np.int64)
    used = rep_start >= 0
    out = np.empty(src.shape[0] + int((rep_end[used] - rep_start[used]).sum()), dtype=np.uint8)
    k = _splice(src, starts, ends, rep, rep_start, rep_end, out)
    return None if k < 0 else out[:k]


@njit(cache=True, nogil=True)
def _point_names(lines, out):
    at = 0
    for i in range(lines.shape[0]):
        at = put_int(i + 1, out, at)
        for c in (58, 108, 105, 110, 101):  # ":line"
            out[at] = c
            at += 1
        at = put_int(lines[i], out, at)
        out[at] = 10
        at += 1
    return at


def point_names(lines: np.ndarray) -> list[str]:
    """``["1:line<lines[0]>", "2:line<lines[1]>", ...]``: the names of a program's points for the core (their
    order and source line), written in compiled code (100,000 f-strings took 30-60 ms)."""
    lines = np.ascontiguousarray(lines, dtype=np.int64)
    if lines.size == 0:
        return []
    out = np.empty(lines.size * 48, dtype=np.uint8)  # (two signed 19-digit integers, ":line" and a newline at most)
    end = _point_names(lines, out)
    return out[:end - 1].tobytes().decode("ascii").split("\n")
