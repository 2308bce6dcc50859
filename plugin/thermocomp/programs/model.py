"""What a robot program says, as the readers give it: motions in execution order, with source spans.

A program is :attr:`RobotProgram.steps`: :class:`MotionRun` and :class:`Wait` in the order one cycle runs them. A
:class:`MotionRun` is columns, a row a motion (instruction, kind, spans, speeds) and a row a point (pose or joints
in the world frame, SI; confdata, frame and tool, the spans of its text and argument): the only form a motion is
held in, built from a statement's :class:`Point` values (:meth:`MotionRun.of_motion`) or by a reader's bulk lane
(:meth:`MotionRun.of_columns`). :class:`ProgramColumns` is the program's runs end to end (what the compensation,
timing and writer read); :class:`Motion` and :class:`Point` are read-only views of one row. The writer replaces
only the spans of the points and keeps every other byte. Offsets are those of the file decoded as ISO-8859-1 (its
byte offsets). See docs/programs.md and docs/conventions.md.
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

#: Default bound on the motions (and waits) a program may unroll to through its loops and routine calls: a
#: compensation holds some 4 KB a motion (measured: 317 MB at 40,000 motions of a RAPID FOR loop), so 2 million
#: motions is about 8 GB, what a workstation holds; ten times a 100,000-line CAM program's 200,000.
MAX_MOTIONS = 2_000_000

#: Motion kinds: how the controller interpolates to the point.
LINEAR, JOINT, CIRCULAR, ABSOLUTE_JOINT = "linear", "joint", "circular", "absolute_joint"
INF = float("inf")


class Span(NamedTuple):
    """A piece of the source text: ``text[start:end]``, starting at 1-based ``line``, ``column``.

    A named tuple (immutable, compared and hashed by value), not a dataclass: a long program makes
    several hundred thousand, and a tuple is built in C.
    """

    start: int
    end: int
    line: int
    column: int

    def where(self) -> str:
        return f"line {self.line}, column {self.column}"


@dataclass(frozen=True, eq=False)
class Point:
    """A pose a motion goes to (or passes through), as the program states it: the per-point resolver's value, and
    the view of one point of a :class:`MotionRun`.

    Attributes
    ----------
    T_world_tcp
        The TCP pose the program asks for [m], ``(4, 4)``, in the controller's
        world frame, which is the robot's base frame (ABB's default world, UR's
        base; the compensation places it with the robot's ``T_world_base``).
        ``None`` for a joint target (its pose is the nominal FK of ``q``).
    T_world_frame
        The frame the text writes the pose in (ABB work object ``uframe @
        oframe``; UR: the base), ``(4, 4)``.
    T_flange_tcp
        The tool: the TCP in the flange frame (ABB ``tframe``, UR ``set_tcp``), ``(4, 4)``.
    held
        ABB: the robot holds the work object and the tool stands still (``tooldata`` and ``wobjdata`` ``robhold``
        FALSE and TRUE). Then ``T_world_frame`` is the stationary TCP in the world (``tframe``), ``T_flange_tcp``
        the object frame in the flange (``uframe @ oframe``), and ``T_world_tcp`` the object frame's pose in the
        world when the stationary TCP is at the target: one composition, :func:`world_of_target`, serves both.
    q
        Joint angles as written (jointtarget, UR joint list), controller angles
        [rad] ``(n,)``, or ``None`` for a Cartesian target.
    confdata
        ABB ``(cf1, cf4, cf6, cfx)`` of a robtarget, or ``None``.
    text
        Where the value is written: a declaration's value, or the argument itself.
    argument
        The argument at the motion (the name, or the same span as ``text``).
    extax
        RAPID: the text of the external axes (kept as written), else ``""``.
    name
        The declared name, or ``""`` for an inline value or an expression.
    whole_argument
        The motion's whole argument when the point sits inside it (UR
        ``get_inverse_kin(pose, qnear=...)``): what a joint target replaces.
    quat
        RAPID: the robtarget's quaternion ``(q1, q2, q3, q4)`` as written, ``(4,)`` (``q`` and ``-q`` are one
        rotation: the writer keeps the written one's sign), else ``None``.
    file
        The file ``text`` is in: an index into :attr:`RobotProgram.files` (0: the program's own).
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
    """One motion instruction as the controller executes it: a view of one row of a :class:`MotionRun`.

    Attributes
    ----------
    instruction
        As written (``MoveL``, ``movel``).
    kind
        :data:`LINEAR`, :data:`JOINT`, :data:`CIRCULAR` or :data:`ABSOLUTE_JOINT`.
    points
        ``(to,)``, or ``(via, to)`` for a circular move.
    statement, name
        Spans of the whole statement and of the instruction's name.
    tcp_speed, orientation_speed
        Linear moves' TCP speed [m/s] and reorientation speed [rad/s]
        (RAPID speeddata ``v_tcp``, ``v_ori``; UR ``v``), or ``inf``.
    joint_speed
        UR ``movej``'s ``v`` [rad/s] (speed of the leading joint), or ``inf``.
    acceleration
        UR ``a`` [m/s^2 or rad/s^2], or ``inf`` (RAPID: not modelled).
    duration_s
        A time the instruction states (RAPID ``\\T``, UR ``t=``) [s], or ``None``.
    file
        The file of the statement: an index into :attr:`RobotProgram.files`.
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
    """A pause of known length (RAPID ``WaitTime``, UR ``sleep``) [s]."""

    seconds: float
    statement: Span


@dataclass(frozen=True)
class Finding:
    """A construct the reader could not follow exactly, or a note about one, located in the source: ``line`` and
    ``column`` of the file ``file`` (an index into :attr:`RobotProgram.files`; 0: the program's own)."""

    message: str
    line: int
    column: int
    file: int = 0

    def text(self, path: str) -> str:
        return f"{path}:{self.line}:{self.column}: {self.message}"


@dataclass(frozen=True, eq=False)
class RobotProgram:
    """A robot program as read: one cycle of its entry routine in execution order.

    Attributes
    ----------
    language
        ``"rapid"`` or ``"urscript"``.
    path
        The file, for messages.
    text
        The whole file decoded as ISO-8859-1 (offsets are byte offsets).
    steps
        :class:`MotionRun` and :class:`Wait` in the order one cycle runs them, consecutive motions one run; a
        motion in a routine called twice appears twice (same spans).
    unsupported
        Constructs that cannot be followed exactly (conditions, loops of
        unknown count, interrupts, searches, calls out of the file), with their place.
    notes
        Things a user should know that do not stop the compensation (e.g. a
        routine never called, whose motions stay as written).
    entry
        The routine(s) one cycle runs.
    newline
        The file's line end (``"\\r\\n"`` or ``"\\n"``), for inserted lines.
    modules
        The task's other files the reader followed motions into (RAPID ``--module``), as ``(path, text)``:
        :attr:`files` ``1, 2, ...`` (a span's or finding's ``file``).
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

    def __post_init__(self) -> None:
        # consecutive runs held as one (each statement the general rules read is a run of one row, of two dozen
        # small arrays: thousands of them would be held beside the columns they make)
        groups = itertools.groupby(self.steps, key=lambda step: isinstance(step, MotionRun))
        object.__setattr__(self, "steps", tuple(step for is_run, group in groups for step in (
            [_concatenate(list(group)).compact()] if is_run else group)))

    @property
    def files(self) -> tuple[tuple[str, str], ...]:
        """``(path, text)`` of every file a span may lie in: the program (index 0), then :attr:`modules`."""
        return ((self.path, self.text), *self.modules)

    def where(self, finding: Finding) -> str:
        """``finding`` as ``path:line:column: message``, with the path of the file it is in."""
        return finding.text(self.files[finding.file][0] if finding.file < len(self.files) else self.path)

    @functools.cached_property
    def columns(self) -> ProgramColumns:
        """Every point, motion and step as arrays (:class:`ProgramColumns`; computed once)."""
        return ProgramColumns.of(self.steps)

    @property
    def motions(self) -> tuple[Motion, ...]:
        """Every motion in order, as views (:meth:`MotionRun.motions`: built on each call, not held beside the
        columns)."""
        return tuple(self.columns.run.motions())

    @property
    def points(self) -> tuple[Point, ...]:
        """Every point of every motion, in execution order, as views (built on each call)."""
        return tuple(p for m in self.motions for p in m.points)


#: The motion kinds in the order of the codes of :attr:`MotionRun.kind`.
KINDS = (LINEAR, JOINT, CIRCULAR, ABSOLUTE_JOINT)
_KIND_CODE = {k: i for i, k in enumerate(KINDS)}


@dataclass(frozen=True, eq=False)
class MotionRun:
    """Consecutive motions as columns: the program model (a statement's motion is a run of one row).

    Spans are ``(start, end, line, column)`` rows (:class:`Span`); poses SI, world frame, as in :class:`Point`.

    Attributes
    ----------
    instruction, kind, n_points
        Per motion ``(r,)``: as written, the code of its kind in :data:`KINDS`, its number of points.
    statement, name
        Per motion, the spans of the statement and of the instruction's name, ``(r, 4)``.
    tcp_speed, orientation_speed, joint_speed, acceleration, duration_s
        Per motion ``(r,)`` as in :class:`Motion` (``duration_s`` NaN for none).
    text, argument
        Per point, ``(p, 4)``: where its value is written, and the argument at the motion.
    T_world_tcp
        ``(p, 4, 4)``, NaN for a joint target.
    q, q_len
        ``(p, w)`` joint angles [rad] (NaN for a Cartesian target) and how many are written (0: Cartesian).
    confdata
        ``(p, 4)`` integers, ``None`` where a point has none (``has_confdata``).
    frames, frame
        The distinct ``(T_world_frame, T_flange_tcp)`` pairs and each point's index into them, ``(p,)``.
    extax, name_of_point, whole_argument
        Per point, as in :class:`Point`.
    quat
        ``(p, 4)``: each point's :attr:`Point.quat`, NaN where it has none.
    file, text_file
        Per motion ``(r,)``: the file of its statement, name and arguments; per point ``(p,)``: the file of its
        ``text`` (a declaration may be in another module of the task). Indices into :attr:`RobotProgram.files`;
        zeros by default (every span in the program's own file).
    held
        ``(p,)`` bool: each point's :attr:`Point.held`.
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
    def of_columns(cls, **columns) -> MotionRun:
        """The run of the columns given (at least ``instruction``, ``kind``, ``statement``, ``name``, ``text``,
        ``T_world_tcp``, ``q``, ``frames``), each other column its default: a point a motion, no speed, time,
        confdata, quaternion, name or external axes, the argument the text, the first frame, the file 0."""
        r, p = len(columns["instruction"]), len(columns["text"])
        defaults = {"n_points": np.ones(r, dtype=np.int64), "tcp_speed": np.full(r, INF),
                    "orientation_speed": np.full(r, INF), "joint_speed": np.full(r, INF), "acceleration": np.full(r, INF),
                    "duration_s": np.full(r, np.nan), "argument": columns["text"], "q_len": np.zeros(p, dtype=np.int64),
                    "confdata": np.zeros((p, 4), dtype=np.int64), "has_confdata": np.zeros(p, dtype=bool),
                    "frame": np.zeros(p, dtype=np.int64), "extax": ("",) * p, "name_of_point": ("",) * p,
                    "whole_argument": (None,) * p, "quat": np.full((p, 4), np.nan), "held": np.zeros(p, dtype=bool),
                    "file": np.zeros(r, dtype=np.int64), "text_file": np.zeros(p, dtype=np.int64)}
        return cls(**(defaults | columns))

    @classmethod
    def of_motion(cls, instruction: str, kind: str, points: Sequence[Point], statement: Span, name: Span, *,
                  tcp_speed: float = INF, orientation_speed: float = INF, joint_speed: float = INF,
                  acceleration: float = INF, duration_s: float | None = None, file: int = 0) -> MotionRun:
        """The run of one motion statement, its points resolved (:class:`Point`, the readers' per-point resolver's
        value: the same fields the bulk lane writes into its columns)."""
        p = len(points)
        q = np.full((p, max((len(pt.q) for pt in points if pt.is_joint), default=0)), np.nan)
        T, quat = np.full((p, 4, 4), np.nan), np.full((p, 4), np.nan)
        pairs: dict = {}  # (each distinct pair of arrays once, in order of first appearance)
        frame = [pairs.setdefault((id(pt.T_world_frame), id(pt.T_flange_tcp)),
                                  (len(pairs), (pt.T_world_frame, pt.T_flange_tcp)))[0] for pt in points]
        for i, pt in enumerate(points):
            if pt.is_joint:
                q[i, :len(pt.q)] = pt.q
            else:
                T[i] = pt.T_world_tcp
            if pt.quat is not None:
                quat[i] = pt.quat
        text = np.array([pt.text for pt in points], dtype=np.int64).reshape(p, 4)
        argument = np.array([pt.argument for pt in points], dtype=np.int64).reshape(p, 4)
        return cls.of_columns(
            instruction=(instruction,), kind=np.array([_KIND_CODE[kind]], dtype=np.int8),
            n_points=np.array([p], dtype=np.int64), statement=np.array([statement], dtype=np.int64),
            name=np.array([name], dtype=np.int64), tcp_speed=np.array([tcp_speed]),
            orientation_speed=np.array([orientation_speed]), joint_speed=np.array([joint_speed]),
            acceleration=np.array([acceleration]), duration_s=np.array([np.nan if duration_s is None else duration_s]),
            text=text, argument=text if np.array_equal(text, argument) else argument, T_world_tcp=T, q=q,
            q_len=np.array([len(pt.q) if pt.is_joint else 0 for pt in points], dtype=np.int64),
            confdata=np.array([pt.confdata or (0, 0, 0, 0) for pt in points], dtype=np.int64).reshape(p, 4),
            has_confdata=np.array([pt.confdata is not None for pt in points], dtype=bool),
            frames=tuple(pair for _, pair in pairs.values()), frame=np.array(frame, dtype=np.int64),
            extax=tuple(pt.extax for pt in points), name_of_point=tuple(pt.name for pt in points),
            whole_argument=tuple(pt.whole_argument for pt in points), quat=quat,
            held=np.array([pt.held for pt in points], dtype=bool), file=np.array([file], dtype=np.int64),
            text_file=np.array([pt.file for pt in points], dtype=np.int64))

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

    def targets(self) -> list[tuple[tuple[int, int], np.ndarray]]:
        """Each point's text ``(start, end)`` and target: its joints ``(q_len,)``, or its TCP pose ``(4, 4)``."""
        q_len = self.q_len.tolist()
        return [((a, b), self.q[i, :q_len[i]] if q_len[i] else self.T_world_tcp[i])
                for i, (a, b) in enumerate(self.text[:, :2].tolist())]

    def row_of_points(self) -> np.ndarray:
        """The motion (row) of each point ``(p,)``."""
        return np.repeat(np.arange(len(self)), self.n_points)

    def with_text_at_argument(self, at: np.ndarray) -> MotionRun:
        """The run with the points ``at`` (a mask ``(p,)``) written at their argument, not their declaration."""
        if not at.any():
            return self
        text = self.text.copy()
        text[at] = self.argument[at]
        text_file = self.text_file.copy()
        text_file[at] = self.file[self.row_of_points()][at]
        return dataclasses.replace(self, text=text, text_file=text_file)

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

    def compact(self) -> MotionRun:
        """The run with each array column whose rows are all alike held as one row, broadcast (read only): a bulk
        lane's thousands of motions of one kind, speed, tool and work object hold each of those once."""
        out = {}
        for f in dataclasses.fields(self):
            a = getattr(self, f.name)
            if isinstance(a, np.ndarray) and len(a) > 1 and a.strides[0] != 0:
                rows = np.ascontiguousarray(a).reshape(len(a), -1).view(np.uint8)  # (alike bit for bit)
                if (rows == rows[:1]).all():
                    out[f.name] = np.broadcast_to(a[:1].copy(), a.shape)
        if self.argument is self.text and "text" in out:
            out["argument"] = out["text"]
        return dataclasses.replace(self, **out) if out else self

    def stretches(self, regular: np.ndarray) -> list[tuple[int, int, MotionRun | None]]:
        """The bulk lane's split of its rows: ``(first, end, run)`` for each stretch of ``regular`` motions (its
        rows of this run), ``(first, end, None)`` for each stretch between (statements the general rules run)."""
        edges = np.flatnonzero(np.diff(regular.astype(np.int8), prepend=2, append=2)).tolist()
        return [(a, b, None if not regular[a] else self if b - a == len(self) else self.take(np.arange(a, b)).compact())
                for a, b in zip(edges[:-1], edges[1:])]


#: The columns of :class:`MotionRun` with a row a motion (the others: a row a point).
_MOTION_FIELDS = frozenset(("instruction", "kind", "n_points", "statement", "name", "tcp_speed", "orientation_speed",
                            "joint_speed", "acceleration", "duration_s", "file"))


@dataclass(frozen=True, eq=False)
class ProgramColumns:
    """A whole program as arrays (:attr:`RobotProgram.columns`): the columns of every motion and point in order.

    ``run``: a :class:`MotionRun` of all motions; ``motion_steps`` ``(M,)``
    the index of each motion among the program's steps, a run's motions one step each; ``wait_seconds``
    ``(S,)`` each step's wait [s] (0 for a motion); ``T_flange_tcp`` ``(m, 4, 4)`` each point's tool.
    """

    run: MotionRun
    motion_steps: np.ndarray
    wait_seconds: FloatArray
    wait_statements: tuple[Span, ...] = ()

    @property
    def T_flange_tcp(self) -> FloatArray:
        return self.frame_table(1)[self.run.frame]  # (built on each call: the table is what the program holds)

    def frame_table(self, which: int) -> FloatArray:
        """The run's distinct frames ``(F, 4, 4)``: work objects (``which`` 0) or tools (1); point ``i``'s is row
        ``run.frame[i]`` (a transform of each computed once serves every point)."""
        return np.stack([f[which] for f in self.run.frames]) if self.run.frames else np.zeros((0, 4, 4))

    def statement_of_step(self, k: int) -> Span:
        """The statement of step ``k`` (a motion's, or a wait's)."""
        j = int(np.searchsorted(self.motion_steps, k))
        if j < len(self.motion_steps) and self.motion_steps[j] == k:
            return Span(*self.run.statement[j].tolist())
        return self.wait_statements[k - j]

    @functools.cached_property
    def plain(self) -> bool:
        """Every point is its own inline text (no declaration, no argument shared or around it), no two alike."""
        r = self.run
        if not (r.argument is r.text or np.array_equal(r.argument, r.text)):
            return False
        if any(r.name_of_point) or r.whole_argument.count(None) != len(r.whole_argument):
            return False
        starts = r.text[:, 0]
        return bool(np.all(np.diff(starts) > 0) or len(np.unique(starts)) == len(starts))

    @classmethod
    def of(cls, steps: tuple) -> ProgramColumns:
        runs = [s for s in steps if isinstance(s, MotionRun)]
        waits = tuple(s for s in steps if not isinstance(s, MotionRun))
        sizes = np.array([len(s) if isinstance(s, MotionRun) else 1 for s in steps], dtype=np.int64)
        is_run = np.array([isinstance(s, MotionRun) for s in steps], dtype=bool)
        wait_seconds = np.zeros(int(sizes.sum())) if waits else np.broadcast_to(0.0, int(sizes.sum()))
        if waits:
            wait_seconds[(np.cumsum(sizes) - sizes)[~is_run]] = [w.seconds for w in waits]
        motion_steps = np.flatnonzero(np.repeat(is_run, sizes))
        return cls(run=_concatenate(runs) if runs else _empty(), motion_steps=motion_steps, wait_seconds=wait_seconds,
                   wait_statements=tuple(w.statement for w in waits))


def _concatenate(runs: list[MotionRun]) -> MotionRun:
    """The runs end to end; their frames made one table (a pair of the same arrays once)."""
    if len(runs) == 1:
        return runs[0]
    pairs: dict = {}  # (ids of a pair of arrays) -> its row in the table, the pair
    frame = []
    for r in runs:
        rows = [pairs.setdefault((id(a), id(b)), (len(pairs), (a, b)))[0] for a, b in r.frames]
        frame.append(np.array(rows or [0], dtype=np.int64)[r.frame])
    out: dict = {"frames": tuple(pair for _, pair in pairs.values()), "frame": np.concatenate(frame)}
    width = max(r.q.shape[1] for r in runs)
    for f in dataclasses.fields(MotionRun):
        values = [getattr(r, f.name) for r in runs]
        if f.name == "q":
            values = [np.pad(v, ((0, 0), (0, width - v.shape[1])), constant_values=np.nan) for v in values]
        if f.name not in out:
            out[f.name] = tuple(itertools.chain(*values)) if isinstance(values[0], tuple) else np.concatenate(values)
    return MotionRun(**out)


def _empty() -> MotionRun:
    """The columns of a program that holds no motion."""
    nowhere = Span(0, 0, 0, 0)
    return MotionRun.of_motion("", LINEAR, (), nowhere, nowhere).take(np.zeros(0, dtype=np.int64))


def newline_of(text: str) -> str:
    """``"\\r\\n"`` when the text's first line end is CRLF, else ``"\\n"``."""
    i = text.find("\n")
    return "\r\n" if i > 0 and text[i - 1] == "\r" else "\n"


class TextLines:
    """1-based line and column of character offsets in a text, as lark counts them (a reader's spans and
    messages), from the offsets of its line ends, found when first asked for."""

    def __init__(self, text: str) -> None:
        self._text = text

    @functools.cached_property
    def _table(self) -> np.ndarray:
        """-1, then the offset of every ``\\n``: the line of offset ``pos`` is ``searchsorted(table, pos)``."""
        codes = np.frombuffer(self._text.encode("latin-1", errors="replace"), dtype=np.uint8)  # (a byte a character)
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

    def lists(self, positions: ArrayLike) -> tuple[list[int], list[int]]:
        """:meth:`arrays` as lists of ints."""
        line, column = self.arrays(positions)
        return line.tolist(), column.tolist()


def tcp_poses(R_flange: FloatArray, p_flange: FloatArray, T_flange_tcp: FloatArray) -> tuple[FloatArray, FloatArray]:
    """The TCP poses ``(..., m, 3, 3)``, ``(..., m, 3)`` of flange poses ``(..., m, 3, 3)``, ``(..., m, 3)`` with each
    point's tool ``T_flange_tcp`` ``(m, 4, 4)``."""
    R = R_flange @ T_flange_tcp[:, :3, :3]
    p = p_flange + np.einsum("...mij,mj->...mi", R_flange, T_flange_tcp[:, :3, 3])
    return R, p


def world_of_target(T_world_frame: FloatArray, T_frame_target: FloatArray, held: ArrayLike) -> FloatArray:
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
    held : bool or ndarray of bool, shape ``(m,)``
    """
    held = np.broadcast_to(np.asarray(held, dtype=bool), T_frame_target.shape[:1])
    if not held.any():
        return T_world_frame @ T_frame_target
    return T_world_frame @ np.where(held[:, None, None], invert_transform(T_frame_target), T_frame_target)


def target_of_world(T_world_frame: FloatArray, T_world_tcp: FloatArray, held: ArrayLike,
                    frame: np.ndarray | None = None) -> FloatArray:
    """The targets to write, ``(m, 4, 4)`` [m]: the inverse of :func:`world_of_target` (same arguments, with
    ``T_world_tcp`` ``(m, 4, 4)`` in place of the targets). With ``frame`` ``(m,)``, ``T_world_frame`` is a
    table ``(F, 4, 4)`` and point ``i``'s frame its row ``frame[i]`` (each frame inverted once)."""
    T_frame_world = invert_transform(T_world_frame)
    T = (T_frame_world if frame is None else T_frame_world[frame]) @ T_world_tcp
    held = np.broadcast_to(np.asarray(held, dtype=bool), T_world_tcp.shape[:1])
    return np.where(held[:, None, None], invert_transform(T), T) if held.any() else T
