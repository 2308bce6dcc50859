"""The targets of a compensation (:class:`Targets`): TCP poses in the world frame, SI units.

Readers (:mod:`thermocomp.io.targets_csv`) turn the paper's CSV and the
self-describing CSV into this, and a robot program's motion targets become
it (:func:`thermocomp.programs.compensate.program_targets`); the
compensation reads nothing else. (A robot program as read is
:class:`thermocomp.programs.RobotProgram`.)
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from thermocomp._typing import FloatArray
from thermocomp.errors import InputError
from thermocomp.geometry.checks import check_array


def rows_or_run(index: np.ndarray) -> np.ndarray | slice:
    """``index`` (int, ``(k,)``) as the slice it equals where it is a run of consecutive rows (indexing with it
    then gives a view, not a copy), else ``index`` itself."""
    if index.size and index[-1] - index[0] == index.size - 1 and bool(np.all(np.diff(index) == 1)):
        return slice(int(index[0]), int(index[-1]) + 1)
    return index


#: Orientation conventions a program can carry (docs/conventions.md).
ORIENTATION_CONVENTIONS = ("euler_xyz", "quat_wxyz", "rotvec", "fixed")


@dataclass(frozen=True, eq=False)
class Targets:
    """The targets of a compensation: a pose per row, with its time, reference joints and confdata when known.

    Attributes
    ----------
    names
        Target names, ``m`` entries; unique in a program without times, may
        repeat in a timed one (a cycle revisits its targets).
    R_world_tcp
        Target TCP orientations in the world frame, ``(m, 3, 3)``.
    p_world_tcp
        Target TCP positions in the world frame [m], ``(m, 3)``.
    time_min
        Time of each target in the program [min], ``(m,)``, or ``None``:
        then every target is solved at every minute of the requested range.
    q_reference
        Reference configuration per target, controller angles [rad],
        ``(m, n)``, or ``None`` (the robot's home configuration is used).
    confdata
        ABB configuration data ``(cf1, cf4, cf6, cfx)`` per target, int
        ``(m, 4)``, or ``None``; see :mod:`thermocomp.kinematics.confdata`.
    orientation_convention
        How the file gave orientations (one of :data:`ORIENTATION_CONVENTIONS`),
        so outputs can use the same.
    source
        Path or description, for messages.
    lines
        File line of each target, ``(m,)``, for messages; ``None`` if not from a file.
    """

    names: tuple[str, ...]
    R_world_tcp: FloatArray
    p_world_tcp: FloatArray
    time_min: FloatArray | None = None
    q_reference: FloatArray | None = None
    confdata: np.ndarray | None = None
    orientation_convention: str = "euler_xyz"
    source: str = "<memory>"
    lines: np.ndarray | None = None

    def __post_init__(self) -> None:
        m = len(self.names)
        if m == 0:
            raise InputError("expected at least one target, got none", path=self.source)
        object.__setattr__(self, "names", tuple(self.names))
        object.__setattr__(self, "R_world_tcp", check_array(self.R_world_tcp, (m, 3, 3), "target orientations"))
        object.__setattr__(self, "p_world_tcp", check_array(self.p_world_tcp, (m, 3), "target positions"))
        if self.time_min is not None:
            object.__setattr__(self, "time_min", check_array(self.time_min, (m,), "target times"))
        if self.q_reference is not None:
            object.__setattr__(self, "q_reference", check_array(self.q_reference, (m, None), "reference joints"))
        if self.confdata is not None:
            cfd = np.asarray(self.confdata)
            if cfd.shape != (m, 4) or not np.issubdtype(cfd.dtype, np.integer) or np.any((cfd[:, 3] < 0) | (cfd[:, 3] > 7)):
                raise InputError(f"confdata: expected integers (m, 4) with cfx in 0..7, got shape {cfd.shape}")
        if self.orientation_convention not in ORIENTATION_CONVENTIONS:
            raise InputError(
                f"orientation convention: expected one of {ORIENTATION_CONVENTIONS}, got {self.orientation_convention!r}"
            )

    @property
    def n_targets(self) -> int:
        """Number of targets ``m``."""
        return len(self.names)

    def line_of(self, index: int) -> int | None:
        """File line of target ``index``, if known."""
        return None if self.lines is None else int(self.lines[index])

    def take(self, index: np.ndarray) -> Targets:
        """The targets ``index`` (int array) of this program, in that order.

        The values are this program's, checked when it was made: not checked
        or copied again; a run of consecutive rows (a streamed slice) takes
        views and a slice of the names.
        """
        index = np.asarray(index)
        if index.size == 0:
            return Targets(names=(), R_world_tcp=self.R_world_tcp[:0], p_world_tcp=self.p_world_tcp[:0],
                           source=self.source)  # (refused, as a program without targets is)
        at = rows_or_run(index)
        names = self.names[at] if isinstance(at, slice) else tuple(map(self.names.__getitem__, index.tolist()))

        def pick(a):
            return None if a is None else a[at]
        values = {"names": names, "R_world_tcp": self.R_world_tcp[at], "p_world_tcp": self.p_world_tcp[at],
                  "time_min": pick(self.time_min), "q_reference": pick(self.q_reference),
                  "confdata": pick(self.confdata), "orientation_convention": self.orientation_convention,
                  "source": self.source, "lines": pick(self.lines)}
        taken = object.__new__(Targets)  # (frozen: its fields are set as the dataclass's own __init__ sets them)
        for f in fields(Targets):
            object.__setattr__(taken, f.name, values[f.name])
        return taken

    def distinct_rows(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Targets that ask for the same nominal solution, found once.

        Two rows are the same problem when their pose, reference joints and
        confdata are equal bit for bit (names and times do not matter: a cycle
        that visits the same target every 2 minutes is one problem).

        Returns
        -------
        first : ndarray of int, shape ``(k,)``
            Row of each distinct problem's first occurrence, increasing.
        inverse : ndarray of int, shape ``(m,)``
            Distinct problem of every row: ``first[inverse]`` has the same values.
        keys : ndarray of void, shape ``(k,)``
            The bytes of each distinct problem (for a memo across chunks).
        hashes : ndarray of uint64, shape ``(k,)``
            The 64-bit hash of each key (:func:`hash_rows` of its words), found
            once here for the memo's lookups too.
        """
        m = self.n_targets
        parts = [self.R_world_tcp.reshape(m, 9), self.p_world_tcp]
        if self.q_reference is not None:
            parts.append(self.q_reference)
        if self.confdata is not None:
            parts.append(self.confdata.astype(float))
        key = np.ascontiguousarray(np.concatenate(parts, axis=1) + 0.0)  # + 0.0: -0.0 and 0.0 are one value
        void = key.view(np.dtype((np.void, key.dtype.itemsize * key.shape[1]))).ravel()
        first, inverse, hashes = distinct_rows(key.view(np.uint64))
        return first, inverse, void[first], hashes[first]


#: FNV-1a's 64-bit offset basis and prime, with a shift that folds high bits down after each word.
_BASIS = np.uint64(0xCBF29CE484222325)
_PRIME = np.uint64(0x100000001B3)
_FOLD = np.uint64(29)


def hash_rows(words: np.ndarray) -> np.ndarray:
    """One 64-bit hash per row of ``words`` ``(m, w)`` uint64 (FNV-style mixing, one word at a time)."""
    h = np.full(words.shape[0], _BASIS, dtype=np.uint64)
    for k in range(words.shape[1]):
        h ^= words[:, k]
        h *= _PRIME
        h ^= h >> _FOLD
    return h


def distinct_rows(words: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct rows of ``words`` ``(m, w)`` uint64, by value.

    Returns ``first`` ``(k,)``, the row of each distinct value's first
    occurrence, increasing, ``inverse`` ``(m,)``, the distinct value of
    every row (``words[first[inverse]] == words``), and ``hashes`` ``(m,)``,
    every row's :func:`hash_rows`. Rows are grouped by
    their 64-bit hash (sorting 8 bytes a row, not the
    whole row), and each row is compared with its group's first on every
    word; should two different rows share a hash, the rows' bytes are sorted
    instead. Either way the answer is exact. When no hash repeats (a path of
    distinct poses), no row repeats: each is its own first, without grouping.
    """
    m = words.shape[0]
    hashes = hash_rows(words)
    ordered = np.sort(hashes)
    if not np.any(ordered[1:] == ordered[:-1]):  # every hash once: every row is its own first (a path's poses)
        return np.arange(m), np.arange(m), hashes
    _, first, inverse = np.unique(hashes, return_index=True, return_inverse=True)
    inverse = inverse.reshape(m)
    if not np.array_equal(words, words[first[inverse]]):  # a hash shared by different rows
        void = np.ascontiguousarray(words).view(np.dtype((np.void, 8 * words.shape[1]))).ravel()
        _, first, inverse = np.unique(void, return_index=True, return_inverse=True)
        inverse = inverse.reshape(m)
    order = np.argsort(first, kind="stable")  # the distinct values in the order they first occur
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = np.arange(order.size)
    return first[order], rank[inverse], hashes
