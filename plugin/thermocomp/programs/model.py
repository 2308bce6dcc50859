"""The program model: a robot program's motions in execution order, as columns (:class:`MotionRun`), with their
source spans; :class:`Motion` and :class:`Point` are views of one row. Poses are SI, in the world frame; offsets
are those of the file decoded as ISO-8859-1. docs/programs.md, docs/conventions.md.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from thermocomp._typing import ArrayLike, FloatArray
from thermocomp.geometry.rotations import invert_transform

#: Default bound on the motions (and waits) a program may unroll to: some 4 KB a motion when compensated
#: (measured), so about 8 GB, what a workstation holds.
MAX_MOTIONS = 2_000_000
#: Largest speed [m/s, rad/s], acceleration [m/s^2, rad/s^2] or blend (zone) radius [m, rad] a motion takes, in
#: either language: far beyond any robot's (a UR moves at some 3 rad/s, 4 m/s; ABB's vmax is 5 m/s, z200 0.2 m);
#: past it, 1e300 or inf, the timing overflowed.
MAX_MOTION_VALUE = 1e6

#: Motion kinds: how the controller interpolates to the point.
LINEAR, JOINT, CIRCULAR, ABSOLUTE_JOINT = "linear", "joint", "circular", "absolute_joint"
INF = float("inf")


class Span(NamedTuple):
    """A piece of the source text: ``text[start:end]``, starting at 1-based ``line``, ``column``."""

    start: int
    end: int
    line: int
    column: int


@dataclass(frozen=True, eq=False)
class Point:
    """A point a motion goes to or through: a statement's resolved point, and the view of a run's point.

    Attributes
    ----------
    T_world_tcp
        The TCP pose ``(4, 4)`` [m] in the robot's base frame; ``None`` for a joint target.
    T_world_frame, T_flange_tcp
        The frame the pose is written in (ABB ``uframe @ oframe``; UR the base) and the tool, ``(4, 4)`` each;
        ``held`` (ABB ``robhold``): the stationary TCP in the world and the object in the flange (:func:`world_of_target`).
    q
        Joint angles as written [rad] ``(n,)``, or ``None`` for a Cartesian target.
    confdata, quat
        RAPID's ``(cf1, cf4, cf6, cfx)`` and quaternion ``(4,)`` as written, or ``None``.
    text, argument, whole_argument
        Spans: where the value is written, the argument at the motion, and the whole argument a joint target
        replaces (UR ``get_inverse_kin``) or ``None``.
    extax, name, file
        RAPID's external axes as written (else ``""``), the declared name (``""``: inline), the file of ``text``.
    """

    T_world_tcp: FloatArray | None
    T_world_frame: FloatArray
    T_flange_tcp: FloatArray
    q: FloatArray | None
    confdata: tuple[int, int, int, int] | None
    text: Span
    argument: Span
    extax: str = ""
    name: str = ""
    whole_argument: Span | None = None
    quat: FloatArray | None = None
    file: int = 0
    held: bool = False

    @property
    def is_joint(self) -> bool:
        return self.q is not None


@dataclass(frozen=True, eq=False)
class Motion:
    """One motion instruction: the view of a run's row.

    Attributes
    ----------
    instruction, kind, points
        As written (``MoveL``); one of :data:`KINDS`; ``(to,)``, or ``(via, to)`` for a circular move.
    statement, name, file
        Spans of the statement and of the instruction's name, and the file.
    tcp_speed, orientation_speed, joint_speed, acceleration, duration_s
        TCP speed [m/s], reorientation speed [rad/s], UR ``movej``'s ``v`` [rad/s], UR ``a`` [m/s^2 or rad/s^2]
        (``inf`` where none), a stated time [s] (RAPID ``\\T``, UR ``t=``) or ``None``.
    """

    instruction: str
    kind: str
    points: tuple[Point, ...]
    statement: Span
    name: Span
    tcp_speed: float = float("inf")
    orientation_speed: float = float("inf")
    joint_speed: float = float("inf")
    acceleration: float = float("inf")
    duration_s: float | None = None
    file: int = 0

    @property
    def line(self) -> int:
        return self.statement.line


@dataclass(frozen=True)
class Wait:
    """A pause of known length (RAPID ``WaitTime``, UR ``sleep``) [s], in file ``file`` of ``RobotProgram.files``."""

    seconds: float
    statement: Span
    file: int = 0


@dataclass(frozen=True)
class Finding:
    """A message about the source at ``line``, ``column`` of ``file`` (an index into :attr:`RobotProgram.files`)."""

    message: str
    line: int
    column: int
    file: int = 0


@dataclass(frozen=True, eq=False)
class RobotProgram:
    """A robot program as read: one cycle of its entry routine in execution order, its motions as one
    :class:`MotionRun` (the program model).

    Attributes
    ----------
    language, path, text
        ``"rapid"`` or ``"urscript"``; the file; its text decoded as ISO-8859-1.
    steps
        :class:`MotionRun` and :class:`Wait` in the order one cycle runs them (consecutive runs joined).
    unsupported, notes
        What cannot be followed exactly, and what a user should know besides.
    entry, newline
        The routine(s) one cycle runs; the file's line end.
    extra
        The readers' facts for later steps (``per_pass``, ``table_reads``, ``confdata_free``, call sites).
    modules
        The task's other files (RAPID ``--module``), ``(path, text)``: :attr:`files` ``1, 2, ...``.
    run, motion_steps, wait_seconds
        Of the steps (computed on construction): every motion as one :class:`MotionRun`; each motion's index among
        the steps (a motion a step) ``(M,)``; each step's wait [s] (0 for a motion) ``(S,)``.
    """

    language: str
    path: str
    text: str
    steps: tuple[MotionRun | Wait, ...]
    unsupported: tuple[Finding, ...] = ()
    notes: tuple[Finding, ...] = ()
    entry: tuple[str, ...] = ()
    newline: str = "\n"
    extra: dict = field(default_factory=dict)
    modules: tuple[tuple[str, str], ...] = ()
    run: MotionRun = field(init=False)
    motion_steps: np.ndarray = field(init=False)
    wait_seconds: FloatArray = field(init=False)

    def __post_init__(self) -> None:
        groups = itertools.groupby(self.steps, key=lambda step: isinstance(step, MotionRun))
        steps = tuple(step for is_run, group in groups for step in (
            [_concatenate(list(group)).compact()] if is_run else group))
        runs = [s for s in steps if isinstance(s, MotionRun)]
        is_run = np.array([isinstance(s, MotionRun) for s in steps], dtype=bool)
        sizes = np.array([len(s) if run else 1 for s, run in zip(steps, is_run.tolist())], dtype=np.int64)
        wait_seconds = np.zeros(int(sizes.sum()))
        wait_seconds[(np.cumsum(sizes) - sizes)[~is_run]] = [s.seconds for s in steps if isinstance(s, Wait)]
        if not runs:  # (no motion: the columns of one, taken away)
            nowhere = Span(0, 0, 0, 0)
            runs = [MotionRun.of_columns((), instruction="", kind=LINEAR, statement=nowhere, name=nowhere).take([])]
        for name, value in (("steps", steps), ("run", _concatenate(runs)),
                            ("motion_steps", np.flatnonzero(np.repeat(is_run, sizes))), ("wait_seconds", wait_seconds)):
            object.__setattr__(self, name, value)

    @property
    def files(self) -> tuple[tuple[str, str], ...]:
        """``(path, text)`` of every file a span may lie in: the program (index 0), then :attr:`modules`."""
        return ((self.path, self.text), *self.modules)

    def where(self, finding: Finding) -> str:
        """``finding`` as ``path:line:column: message``, with the path of the file it is in."""
        path = self.files[finding.file][0] if finding.file < len(self.files) else self.path
        return f"{path}:{finding.line}:{finding.column}: {finding.message}"

    @property
    def motions(self) -> tuple[Motion, ...]:
        """Every motion in order, as views (built on each call)."""
        return tuple(self.run.motions())

    @property
    def points(self) -> tuple[Point, ...]:
        """Every point of every motion, in execution order, as views (built on each call)."""
        return tuple(p for m in self.motions for p in m.points)

    def frame_table(self, which: int) -> FloatArray:
        """The run's distinct frames ``(F, 4, 4)``: work objects (``which`` 0) or tools (1); point ``i``'s is row
        ``run.frame[i]``."""
        return np.stack([f[which] for f in self.run.frames]) if self.run.frames else np.zeros((0, 4, 4))


#: The motion kinds in the order of the codes of :attr:`MotionRun.kind`.
KINDS = (LINEAR, JOINT, CIRCULAR, ABSOLUTE_JOINT)
_KIND_CODE = {k: i for i, k in enumerate(KINDS)}


@dataclass(frozen=True, eq=False)
class MotionRun:
    """Consecutive motions as columns: the program model. Fields as in :class:`Motion` and :class:`Point`;
    spans are ``(start, end, line, column)`` rows.

    Attributes
    ----------
    instruction, kind, n_points, statement, name, file
        Per motion ``(r,)``: as written, the code of its kind in :data:`KINDS`, its points, spans ``(r, 4)``, file.
    tcp_speed, orientation_speed, joint_speed, acceleration, duration_s
        Per motion ``(r,)``, SI (``duration_s`` NaN for none).
    text, argument, text_file
        Per point: spans ``(p, 4)``, and the file of ``text`` ``(p,)``.
    T_world_tcp, q, q_len
        ``(p, 4, 4)`` [m] (NaN for a joint target), ``(p, w)`` joints [rad] (NaN for a Cartesian target), how many
        are written ``(p,)`` (0: Cartesian).
    confdata, has_confdata, quat
        ``(p, 4)`` integers (where ``has_confdata``), ``(p, 4)`` quaternions (NaN for none).
    frames, frame, held
        The distinct ``(T_world_frame, T_flange_tcp)`` pairs, each point's row ``(p,)``, :attr:`Point.held` ``(p,)``.
    extax, name_of_point, whole_argument
        Per point, tuples as in :class:`Point`.
    """

    instruction: tuple[str, ...]
    kind: np.ndarray
    n_points: np.ndarray
    statement: np.ndarray
    name: np.ndarray
    tcp_speed: FloatArray
    orientation_speed: FloatArray
    joint_speed: FloatArray
    acceleration: FloatArray
    duration_s: FloatArray
    text: np.ndarray
    argument: np.ndarray
    T_world_tcp: FloatArray
    q: FloatArray
    q_len: np.ndarray
    confdata: np.ndarray
    has_confdata: np.ndarray
    frames: tuple[tuple[FloatArray, FloatArray], ...]
    frame: np.ndarray
    extax: tuple[str, ...]
    name_of_point: tuple[str, ...]
    whole_argument: tuple[Span | None, ...]
    quat: FloatArray
    held: np.ndarray
    file: np.ndarray
    text_file: np.ndarray

    def __len__(self) -> int:
        return len(self.instruction)

    @classmethod
    def of_columns(cls, points: Sequence[Point] | None = None, **columns) -> MotionRun:
        """The one builder of a run: the columns given, each other its default (a point a motion, no speed, time,
        confdata, quaternion, name or external axes, the argument the text, the first frame, file 0); a motion
        column may be one value for every row. One statement's motion: ``kind`` by name, ``instruction`` a string,
        ``statement`` and ``name`` a :class:`Span` each, and its :class:`Point` values as ``points``."""
        if points is not None:  # (one statement's)
            columns |= point_columns(points) | {"kind": np.array([_KIND_CODE[columns["kind"]]], dtype=np.int8),
                                                "instruction": (columns["instruction"],)}
            columns["statement"], columns["name"] = (np.array([columns[k]], dtype=np.int64) for k in ("statement", "name"))
        r, p = len(columns["instruction"]), len(columns["text"])
        for key, default in _MOTION_DEFAULTS.items():  # (a run of one motion costs what a motion does: no np.ndim
            value = columns.get(key, default)  # of a tuple, no closures)
            if (value.ndim if isinstance(value, np.ndarray) else np.ndim(value)) == 0:  # (a motion's value; None: no time)
                columns[key] = np.full(r, np.nan if value is None else value,
                                       dtype=np.int64 if key in ("file", "n_points") else float)
        for key in _POINT_DEFAULTS.keys() - columns.keys():
            columns[key] = (columns["text"] if key == "argument" else (_POINT_DEFAULTS[key],) * p
                            if key in ("extax", "name_of_point", "whole_argument")
                            else np.full((p, 4) if key in ("quat", "confdata") else p, _POINT_DEFAULTS[key]))
        return cls(**columns)

    def first_points(self) -> np.ndarray:
        """Each motion's first point's index ``(r,)``."""
        return np.cumsum(self.n_points) - self.n_points

    def motions(self) -> list[Motion]:
        """The motions of the run as :class:`Motion` views, in order (built on every call)."""
        spans = [Span(*row) for row in self.text.tolist()]
        arguments = spans if self.argument is self.text else [Span(*row) for row in self.argument.tolist()]
        points = [Point(T_world_tcp=None if n else self.T_world_tcp[i], T_world_frame=self.frames[f][0],
                        T_flange_tcp=self.frames[f][1], q=self.q[i, :n] if n else None,
                        confdata=tuple(conf) if has else None, text=spans[i], argument=arguments[i],
                        extax=self.extax[i], name=self.name_of_point[i], whole_argument=self.whole_argument[i],
                        quat=None if self.quat[i, 0] != self.quat[i, 0] else self.quat[i], held=held, file=file)
                  for i, (n, f, conf, has, held, file) in enumerate(zip(
                      self.q_len.tolist(), self.frame.tolist(), self.confdata.tolist(), self.has_confdata.tolist(),
                      self.held.tolist(), self.text_file.tolist()))]
        first = self.first_points().tolist()
        return [Motion(instruction=instr, kind=KINDS[kind], points=tuple(points[a:a + n]), statement=Span(*statement),
                       name=Span(*name), tcp_speed=v, orientation_speed=w, joint_speed=vj, acceleration=acc,
                       duration_s=None if t != t else t, file=file)
                for instr, kind, a, n, statement, name, v, w, vj, acc, t, file in zip(
                    self.instruction, self.kind.tolist(), first, self.n_points.tolist(), self.statement.tolist(),
                    self.name.tolist(), self.tcp_speed.tolist(), self.orientation_speed.tolist(),
                    self.joint_speed.tolist(), self.acceleration.tolist(), self.duration_s.tolist(), self.file.tolist())]

    def text_keys(self) -> list[tuple[int, int]]:
        """Each point's text ``(start, end)`` across the task's files (its file's index ``<< 40`` added: the
        program's own texts keep their offsets), the key of a per-pass text (:mod:`.passes`)."""
        at = (self.text_file << 40)[:, None] + self.text[:, :2]
        return list(map(tuple, at.tolist()))

    def argument_keys(self) -> list[tuple[int, int]]:
        """Each point's argument ``(start, end)`` across the task's files, as :meth:`text_keys`."""
        at = (self.file[self.row_of_points()] << 40)[:, None] + self.argument[:, :2]
        return list(map(tuple, at.tolist()))

    def targets(self) -> list[tuple[tuple[int, int], np.ndarray]]:
        """Each point's text key (:meth:`text_keys`) and target: its joints ``(q_len,)``, or its TCP pose ``(4, 4)``."""
        q_len = self.q_len.tolist()
        return [(key, self.q[i, :q_len[i]] if q_len[i] else self.T_world_tcp[i])
                for i, key in enumerate(self.text_keys())]

    def row_of_points(self) -> np.ndarray:
        """The motion (row) of each point ``(p,)``."""
        return np.repeat(np.arange(len(self)), self.n_points)

    def away(self) -> np.ndarray:
        """Whether each point's text stands away from its argument (a declaration, an earlier statement) ``(p,)``."""
        return np.any(self.text != self.argument, axis=1)

    def with_text_at_argument(self, at: np.ndarray) -> MotionRun:
        """The run with the points ``at`` (a mask ``(p,)``) whose text stands away from their argument written at
        their argument, not their declaration."""
        if self.argument is self.text or not (at := at & self.away()).any():
            return self
        return dataclasses.replace(self, text=np.where(at[:, None], self.argument, self.text),
                                   text_file=np.where(at, self.file[self.row_of_points()], self.text_file))

    def take(self, rows: np.ndarray) -> MotionRun:
        """The run of the motions ``rows`` (indices, in order)."""
        rows = np.asarray(rows, dtype=np.int64)
        n = self.n_points[rows]
        points = np.repeat(self.first_points()[rows] - np.cumsum(n) + n, n) + np.arange(int(n.sum()))
        out: dict = {"frames": self.frames}
        for f in dataclasses.fields(self):
            value, at = getattr(self, f.name), rows if f.name in _MOTION_FIELDS else points
            if f.name != "frames":
                out[f.name] = tuple(value[k] for k in at.tolist()) if isinstance(value, tuple) else value[at]
        if self.argument is self.text:
            out["argument"] = out["text"]
        return MotionRun(**out)

    def rows(self, motions: slice, points: slice, **columns) -> MotionRun:
        """The motions ``motions`` (whose points are ``points``) as a run of views of these columns, ``columns`` given
        in place of theirs: a run of a file's statements (:attr:`.grammars.RunStatements.template`), no copy."""
        out = {name: getattr(self, name)[motions] for name in _MOTION_FIELDS if name not in columns}
        out.update({name: getattr(self, name)[points] for name in _POINT_FIELDS if name not in columns})
        if self.argument is self.text and "text" not in columns:  # (the argument its text: held once)
            out["argument"] = out["text"]
        out["frames"] = self.frames
        out.update(columns)
        run = MotionRun(**out)
        object.__setattr__(run, "_rows_of", (self, motions, points, frozenset(columns)))  # (:func:`_concatenate`)
        return run

    def compact(self) -> MotionRun:
        """The run with each array column whose rows are all alike held as one row, broadcast (read only)."""
        if len(self) <= 1 and len(self.text) <= 1:  # (no column of two rows)
            return self
        out = {}
        for f in dataclasses.fields(self):
            a = getattr(self, f.name)
            if isinstance(a, np.ndarray) and len(a) > 1 and a.strides[0] != 0:
                rows = np.ascontiguousarray(a).reshape(len(a), -1).view(np.uint8)  # (alike bit for bit)
                if (rows == rows[:1]).all():
                    out[f.name] = np.broadcast_to(a[:1].copy(), a.shape)
        return dataclasses.replace(self, **out) if out else self

    def stretches(self, regular: np.ndarray) -> list[tuple[int, int, MotionRun | None]]:
        """``(first, end, run)`` of each stretch of ``regular`` motions, ``(first, end, None)`` of each between."""
        if len(regular) == 1 or len(regular) and regular.all():  # (one stretch: most runs)
            return [(0, len(regular), self if regular[0] else None)]
        edges = [0, *(np.flatnonzero(regular[1:] != regular[:-1]) + 1).tolist(), len(regular)] if len(regular) else []
        return [(a, b, None if not regular[a] else self if b - a == len(self) else self.take(np.arange(a, b)).compact())
                for a, b in zip(edges[:-1], edges[1:])]


#: The columns of :class:`MotionRun` with a row a motion (the others: a row a point).
_MOTION_FIELDS = frozenset(("instruction", "kind", "n_points", "statement", "name", "tcp_speed", "orientation_speed",
                            "joint_speed", "acceleration", "duration_s", "file"))
#: The columns of :class:`MotionRun` (:func:`_columns`), and those with a row a point.
_FIELDS = frozenset(f.name for f in dataclasses.fields(MotionRun))
_POINT_FIELDS = tuple(f.name for f in dataclasses.fields(MotionRun) if f.name not in _MOTION_FIELDS | {"frames"})
#: :meth:`MotionRun.of_columns`' defaults: of a motion's columns (one value, for every row; None: NaN) and of a point's
#: (of every row: the argument its text, an array's element, a tuple's).
_MOTION_DEFAULTS = {"n_points": 1, "tcp_speed": INF, "orientation_speed": INF, "joint_speed": INF, "acceleration": INF,
                    "duration_s": None, "file": 0}
_POINT_DEFAULTS = {"argument": None, "q_len": 0, "quat": np.nan, "confdata": 0, "has_confdata": False, "frame": 0,
                   "extax": "", "name_of_point": "", "whole_argument": None, "held": False, "text_file": 0}


def point_columns(points: Sequence[Point]) -> dict:
    """The point columns of :class:`MotionRun` of one statement's resolved points, and its ``n_points``."""
    p = len(points)
    q = np.full((p, max((len(pt.q) for pt in points if pt.is_joint), default=0)), np.nan)
    T, quat = np.full((p, 4, 4), np.nan), np.full((p, 4), np.nan)
    frame, frames = _distinct((pt.T_world_frame, pt.T_flange_tcp) for pt in points)
    for i, pt in enumerate(points):
        if pt.is_joint:
            q[i, :len(pt.q)] = pt.q
        else:
            T[i] = pt.T_world_tcp
        if pt.quat is not None:
            quat[i] = pt.quat
    text = np.array([pt.text for pt in points], dtype=np.int64).reshape(p, 4)
    argument = np.array([pt.argument for pt in points], dtype=np.int64).reshape(p, 4)
    return dict(
        n_points=np.array([p], dtype=np.int64), text=text, argument=text if np.array_equal(text, argument) else argument,
        T_world_tcp=T, q=q, q_len=np.array([len(pt.q) if pt.is_joint else 0 for pt in points], dtype=np.int64),
        confdata=np.array([pt.confdata or (0, 0, 0, 0) for pt in points], dtype=np.int64).reshape(p, 4),
        has_confdata=np.array([pt.confdata is not None for pt in points], dtype=bool),
        frames=frames, frame=frame,
        extax=tuple(pt.extax for pt in points), name_of_point=tuple(pt.name for pt in points),
        whole_argument=tuple(pt.whole_argument for pt in points), quat=quat,
        held=np.array([pt.held for pt in points], dtype=bool), text_file=np.array([pt.file for pt in points], dtype=np.int64))


def _concatenate(runs: list[MotionRun]) -> MotionRun:
    """The runs end to end; their frames made one table. Runs of consecutive rows of one :meth:`MotionRun.rows`
    template (a file's runs read in order: its motions each between other statements) are joined first (:func:`_joined`)."""
    runs = _joined(runs)
    return runs[0] if len(runs) == 1 else MotionRun(**_columns(runs, _FIELDS))


def _columns(runs: list[MotionRun], names: frozenset[str]) -> dict:
    """The columns ``names`` of the runs end to end, and their frames as one table (``frames``, ``frame``)."""
    rows, frames = _distinct(pair for r in runs for pair in r.frames)
    starts = np.cumsum([0] + [len(r.frames) for r in runs[:-1]])  # (each run's first frame in ``rows``)
    frame = [r.frame for r in runs]
    out: dict = {"frames": frames, "frame": rows[np.concatenate(frame) + np.repeat(starts, [len(f) for f in frame])]}
    width = max(r.q.shape[1] for r in runs)
    held_once = {"text", "argument"} <= names and all(r.argument is r.text for r in runs)  # (the arguments their texts)
    for name in names - out.keys() - ({"argument"} if held_once else set()):
        values = [getattr(r, name) for r in runs]
        if name == "q":  # (padded where narrower: a run of Cartesian targets has no column)
            values = [v if v.shape[1] == width else np.pad(v, ((0, 0), (0, width - v.shape[1])), constant_values=np.nan)
                      for v in values]
        out[name] = tuple(itertools.chain(*values)) if isinstance(values[0], tuple) else np.concatenate(values)
    if held_once:
        out["argument"] = out["text"]
    return out


def _joined(runs: list[MotionRun]) -> list[MotionRun]:
    """``runs`` with each stretch of runs of consecutive rows of one template, the same columns given, made one run:
    :meth:`MotionRun.rows` of all its rows, the given columns concatenated (one slice where each run held its own)."""
    tags = [getattr(run, "_rows_of", None) for run in runs]  # (template, motions, points, columns given)
    ends = [i + 1 for i, (a, b) in enumerate(zip(tags, tags[1:])) if a is None or b is None or b[0] is not a[0]
            or b[3] != a[3] or b[1].start != a[1].stop or b[2].start != a[2].stop] + [len(runs)]
    out = []
    for k, end in zip([0, *ends[:-1]], ends):
        first, last = tags[k], tags[end - 1]
        out.append(runs[k] if end - k == 1 else first[0].rows(
            slice(first[1].start, last[1].stop), slice(first[2].start, last[2].stop), **_columns(runs[k:end], first[3])))
    return out


def _distinct(pairs) -> tuple[np.ndarray, tuple]:
    """Each pair of arrays' row among the distinct pairs (by identity, in order of first appearance), and those."""
    table: dict = {}
    rows = [table.setdefault((id(a), id(b)), (len(table), (a, b)))[0] for a, b in pairs]
    return np.array(rows, dtype=np.int64), tuple(pair for _, pair in table.values())


def newline_of(text: str) -> str:
    """``"\\r\\n"`` when the text's first line end is CRLF, else ``"\\n"``."""
    i = text.find("\n")
    return "\r\n" if i > 0 and text[i - 1] == "\r" else "\n"


class TextLines:
    """1-based line and column of character offsets in a text, as lark counts them."""

    def __init__(self, text: str) -> None:
        self._text = text

    @functools.cached_property
    def _table(self) -> np.ndarray:
        """-1, then the offset of every ``\\n``: the line of offset ``pos`` is ``searchsorted(table, pos)``."""
        codes = np.frombuffer(self._text.encode("latin-1", errors="replace"), dtype=np.uint8)
        return np.concatenate([np.array([-1], dtype=np.int64), np.flatnonzero(codes == 10)])

    def arrays(self, positions: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
        """Lines and columns of ``positions`` as arrays (a run's thousands of positions)."""
        pos = np.asarray(positions, dtype=np.int64)
        line = np.searchsorted(self._table, pos)  # line ends before pos, the -1 included
        return line, pos - self._table[line - 1]

    def spans(self, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
        """The :class:`Span` rows ``(n, 4)`` of the texts from offsets ``starts`` to ``ends`` ``(n,)``."""
        line, column = self.arrays(starts)
        return np.stack([starts, ends, line, column], axis=1).astype(np.int64, copy=False)


def tcp_poses(R_flange: FloatArray, p_flange: FloatArray, T_flange_tcp: FloatArray) -> tuple[FloatArray, FloatArray]:
    """The TCP poses ``(..., m, 3, 3)``, ``(..., m, 3)`` of flange poses ``(..., m, 3, 3)``, ``(..., m, 3)`` with each
    point's tool ``T_flange_tcp`` ``(m, 4, 4)``."""
    R = R_flange @ T_flange_tcp[:, :3, :3]
    p = p_flange + np.einsum("...mij,mj->...mi", R_flange, T_flange_tcp[:, :3, 3])
    return R, p


def world_of_target(T_world_frame: FloatArray, T_frame_target: FloatArray, held: bool) -> FloatArray:
    """``T_world_tcp`` of targets as written: the one composition of a target with its frame.

    Ordinary (``held`` False): ``T_world_frame @ T_frame_target`` (the TCP in the world). A work object held by the
    robot and a stationary tool (``held`` True, :attr:`Point.held`): ``T_world_tool @ inv(T_object_target)``, the
    object frame in the world when the stationary TCP is at the target. Either way ``T_world_tcp @ inv(T_flange_tcp)``
    is the flange pose the controller goes to.

    Parameters
    ----------
    T_world_frame : ndarray, shape ``(4, 4)`` or ``(m, 4, 4)``
        The work object frame, or (held) the stationary TCP, in the world [m].
    T_frame_target : ndarray, shape ``(m, 4, 4)``
        The targets as written, in that frame [m].
    held : bool
    """
    return T_world_frame @ (invert_transform(T_frame_target) if held else T_frame_target)


def target_of_world(T_world_frame: FloatArray, T_world_tcp: FloatArray, held: np.ndarray, frame: np.ndarray
                    ) -> FloatArray:
    """The targets to write, ``(m, 4, 4)`` [m]: the inverse of :func:`world_of_target` of each point of
    ``T_world_tcp`` ``(m, 4, 4)``, with its ``held`` ``(m,)`` and its frame, row ``frame[i]`` ``(m,)`` of the table
    ``T_world_frame`` ``(F, 4, 4)`` (each frame inverted once)."""
    T = invert_transform(T_world_frame)[frame] @ T_world_tcp
    return np.where(held[:, None, None], invert_transform(T), T) if held.any() else T
