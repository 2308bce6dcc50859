"""What a robot program says, as the readers give it: motions in execution order, with source spans.

A reader (:mod:`~thermocomp.programs.rapid`, :mod:`~thermocomp.programs.urscript`)
follows the program the way its controller runs it and returns a
:class:`RobotProgram`: one cycle of its entry routine as a sequence of
:class:`Motion` and :class:`Wait` steps. Every point a motion goes to
carries the pose (SI, world frame: for the built-in robots the robot's base
frame), the tool and the frame its text is written in, and the **span** of
the text that holds it, so the writer (:mod:`~thermocomp.programs.writer`)
replaces only those bytes and keeps every other byte of the file.

Offsets are character offsets in the file decoded as ISO-8859-1, which are
its byte offsets (one character per byte), whatever the file's encoding.
See docs/programs.md and docs/conventions.md.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from thermocomp._typing import ArrayLike, FloatArray

#: Default bound on the motions (and waits) a program may unroll to through its loops and routine calls: a
#: compensation holds some 4 KB a motion (measured: 317 MB at 40,000 motions of a RAPID FOR loop), so 2 million
#: motions is about 8 GB, what a workstation holds; ten times a 100,000-line CAM program's 200,000.
MAX_MOTIONS = 2_000_000

#: Motion kinds: how the controller interpolates to the point.
LINEAR, JOINT, CIRCULAR, ABSOLUTE_JOINT = "linear", "joint", "circular", "absolute_joint"


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
    """A pose a motion goes to (or passes through), as the program states it.

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

    @property
    def is_joint(self) -> bool:
        return self.q is not None


@dataclass(frozen=True, eq=False)
class Motion:
    """One motion instruction as the controller executes it.

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
    """A construct the reader could not follow exactly, or a note about one, located in the source."""

    message: str
    line: int
    column: int

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
        :class:`Motion` and :class:`Wait` in the order one cycle runs them; a
        motion in a routine called twice appears twice (same spans). A reader
        may give a run of simple motions as one :class:`MotionRun`: ``steps``
        then shows its motions (built when first asked for) and
        :attr:`columns` reads its arrays as they are.
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
    """

    language: str
    path: str
    text: str
    steps: tuple[Motion | Wait, ...]
    unsupported: tuple[Finding, ...] = ()
    notes: tuple[Finding, ...] = ()
    entry: tuple[str, ...] = ()
    newline: str = "\n"
    extra: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        parts = tuple(self.steps)
        object.__setattr__(self, "parts", parts)
        if any(isinstance(s, MotionRun) for s in parts):
            object.__setattr__(self, "steps", Steps(parts))

    @functools.cached_property
    def columns(self) -> ProgramColumns:
        """Every point, motion and step as arrays (:class:`ProgramColumns`; computed once, runs not expanded)."""
        return ProgramColumns.of(self.parts)

    @functools.cached_property
    def motions(self) -> tuple[Motion, ...]:
        """The motions of :attr:`steps`, in order (computed once)."""
        return tuple(s for s in self.steps if isinstance(s, Motion))

    @functools.cached_property
    def points(self) -> tuple[Point, ...]:
        """Every point of every motion, in execution order (computed once)."""
        return tuple(p for m in self.motions for p in m.points)


#: The motion kinds in the order of the codes of :attr:`MotionRun.kind`.
KINDS = (LINEAR, JOINT, CIRCULAR, ABSOLUTE_JOINT)
_KIND_CODE = {k: i for i, k in enumerate(KINDS)}


@dataclass(frozen=True, eq=False)
class MotionRun:
    """Consecutive motions as columns: what a run of simple motion statements reads into without an object a point.

    A reader gives a long run of simple motion statements (a CAM program's
    ``MoveL`` lines) as one run; :meth:`motions` builds the :class:`Motion`
    and :class:`Point` objects a general construct needs, the same ones the
    reader would have built one by one. Spans are ``(start, end, line,
    column)`` rows (:class:`Span`); poses SI, world frame, as in :class:`Point`.

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

    def __len__(self) -> int:
        return len(self.instruction)

    def motions(self) -> list[Motion]:
        """The :class:`Motion` objects of the run, in order (built on every call)."""
        spans = [Span(*row) for row in self.text.tolist()]
        arguments = spans if self.argument is self.text else [Span(*row) for row in self.argument.tolist()]
        joint = (self.q_len > 0).tolist()
        conf = self.confdata.tolist()
        has_conf = self.has_confdata.tolist()
        frames = [self.frames[f] for f in self.frame.tolist()]
        points = [Point(T_world_tcp=None if joint[i] else self.T_world_tcp[i], T_world_frame=frames[i][0],
                        T_flange_tcp=frames[i][1], q=self.q[i, :self.q_len[i]] if joint[i] else None,
                        confdata=tuple(conf[i]) if has_conf[i] else None, text=spans[i], argument=arguments[i],
                        extax=self.extax[i], name=self.name_of_point[i], whole_argument=self.whole_argument[i],
                        quat=None if self.quat[i, 0] != self.quat[i, 0] else self.quat[i])
                  for i in range(len(spans))]
        last = np.cumsum(self.n_points).tolist()
        out = []
        for k, (instr, kind, statement, name, v, w, vj, a, t) in enumerate(zip(
                self.instruction, self.kind.tolist(), self.statement.tolist(), self.name.tolist(),
                self.tcp_speed.tolist(), self.orientation_speed.tolist(), self.joint_speed.tolist(),
                self.acceleration.tolist(), self.duration_s.tolist())):
            out.append(Motion(instruction=instr, kind=KINDS[kind],
                              points=tuple(points[last[k] - self.n_points[k]:last[k]]), statement=Span(*statement),
                              name=Span(*name), tcp_speed=v, orientation_speed=w, joint_speed=vj, acceleration=a,
                              duration_s=None if t != t else t))
        return out

    @classmethod
    def of_motions(cls, motions: list[Motion]) -> MotionRun:
        """The columns of ``motions`` (objects)."""
        points = [p for mo in motions for p in mo.points]
        p = len(points)
        q_len = np.array([0 if pt.q is None else len(pt.q) for pt in points], dtype=np.int64)
        width = int(q_len.max()) if p else 0
        q = np.full((p, width), np.nan)
        T = np.full((p, 4, 4), np.nan)
        for i, pt in enumerate(points):
            if pt.q is not None:
                q[i, :len(pt.q)] = pt.q
            else:
                T[i] = pt.T_world_tcp
        frames: dict[tuple[int, int], int] = {}
        pairs = []
        for pt in points:
            key = (id(pt.T_world_frame), id(pt.T_flange_tcp))
            if key not in frames:
                frames[key] = len(pairs)
                pairs.append((pt.T_world_frame, pt.T_flange_tcp))

        def spans(items) -> np.ndarray:
            return np.array([tuple(s) for s in items], dtype=np.int64).reshape(-1, 4)

        return cls(
            instruction=tuple(mo.instruction for mo in motions),
            kind=np.array([_KIND_CODE[mo.kind] for mo in motions], dtype=np.int8),
            n_points=np.array([len(mo.points) for mo in motions], dtype=np.int64),
            statement=spans(mo.statement for mo in motions), name=spans(mo.name for mo in motions),
            tcp_speed=np.array([mo.tcp_speed for mo in motions], dtype=float),
            orientation_speed=np.array([mo.orientation_speed for mo in motions], dtype=float),
            joint_speed=np.array([mo.joint_speed for mo in motions], dtype=float),
            acceleration=np.array([mo.acceleration for mo in motions], dtype=float),
            duration_s=np.array([np.nan if mo.duration_s is None else mo.duration_s for mo in motions], dtype=float),
            text=spans(pt.text for pt in points), argument=spans(pt.argument for pt in points), T_world_tcp=T, q=q,
            q_len=q_len,
            confdata=np.array([pt.confdata or (0, 0, 0, 0) for pt in points], dtype=np.int64).reshape(-1, 4),
            has_confdata=np.array([pt.confdata is not None for pt in points], dtype=bool),
            frames=tuple(pairs), frame=np.array([frames[(id(pt.T_world_frame), id(pt.T_flange_tcp))]
                                                 for pt in points], dtype=np.int64),
            extax=tuple(pt.extax for pt in points), name_of_point=tuple(pt.name for pt in points),
            whole_argument=tuple(pt.whole_argument for pt in points),
            quat=np.array([np.full(4, np.nan) if pt.quat is None else pt.quat for pt in points], dtype=float)
            .reshape(-1, 4))


class Steps(Sequence):
    """A program's steps where some are :class:`MotionRun`: its motions are built when first asked for."""

    def __init__(self, parts: tuple) -> None:
        self._parts = parts
        self._len = sum(len(s) if isinstance(s, MotionRun) else 1 for s in parts)
        self._steps: tuple | None = None

    def _all(self) -> tuple:
        if self._steps is None:
            out: list = []
            for s in self._parts:
                if isinstance(s, MotionRun):
                    out.extend(s.motions())
                else:
                    out.append(s)
            self._steps = tuple(out)
        return self._steps

    def __len__(self) -> int:
        return self._len

    def __getitem__(self, index):
        return self._all()[index]

    def __iter__(self):
        return iter(self._all())


def expand(steps) -> list:
    """``steps`` with every :class:`MotionRun` replaced by its motions."""
    return list(Steps(tuple(steps)))


@dataclass(frozen=True, eq=False)
class ProgramColumns:
    """A whole program as arrays (:attr:`RobotProgram.columns`): the columns of every motion and point in order.

    ``run``: a :class:`MotionRun` of all motions; ``motion_steps`` ``(M,)``
    the index in :attr:`RobotProgram.steps` of each motion; ``wait_seconds``
    ``(S,)`` each step's wait [s] (0 for a motion); ``T_world_frame`` and
    ``T_flange_tcp`` ``(m, 4, 4)`` each point's frame and tool.
    """

    run: MotionRun
    motion_steps: np.ndarray
    wait_seconds: FloatArray

    @functools.cached_property
    def T_world_frame(self) -> FloatArray:
        return self._frames(0)

    @functools.cached_property
    def T_flange_tcp(self) -> FloatArray:
        return self._frames(1)

    def frame_table(self, which: int) -> FloatArray:
        """The run's distinct frames ``(F, 4, 4)``: work objects (``which`` 0) or tools (1); point ``i``'s is row
        ``run.frame[i]`` (a transform of each computed once serves every point)."""
        if not self.run.frames:
            return np.zeros((0, 4, 4))
        return np.stack([f[which] for f in self.run.frames])

    def _frames(self, which: int) -> FloatArray:
        return self.frame_table(which)[self.run.frame] if self.run.frames else np.zeros((0, 4, 4))

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
    def of(cls, parts: tuple) -> ProgramColumns:
        runs: list[MotionRun] = []
        pending: list[Motion] = []
        motion_steps: list[np.ndarray] = []
        waits: list[float] = []
        for part in parts:
            if isinstance(part, MotionRun):
                if pending:
                    runs.append(MotionRun.of_motions(pending))
                    pending = []
                motion_steps.append(np.arange(len(waits), len(waits) + len(part)))
                waits.extend([0.0] * len(part))
                runs.append(part)
                continue
            if isinstance(part, Motion):
                motion_steps.append(np.array([len(waits)]))
                pending.append(part)
            waits.append(part.seconds if isinstance(part, Wait) else 0.0)
        if pending or not runs:
            runs.append(MotionRun.of_motions(pending))
        return cls(run=_concatenate(runs), motion_steps=np.concatenate(motion_steps) if motion_steps
                   else np.zeros(0, dtype=np.int64), wait_seconds=np.array(waits, dtype=float))


def _concatenate(runs: list[MotionRun]) -> MotionRun:
    if len(runs) == 1:
        return runs[0]
    width = max(r.q.shape[1] for r in runs)
    offsets = np.cumsum([0] + [len(r.frames) for r in runs[:-1]])
    fields: dict = {}
    for f in dataclasses.fields(MotionRun):
        values = [getattr(r, f.name) for r in runs]
        if f.name == "q":
            values = [np.pad(v, ((0, 0), (0, width - v.shape[1])), constant_values=np.nan) for v in values]
        if f.name == "frames":
            fields[f.name] = tuple(x for v in values for x in v)
        elif f.name == "frame":
            fields[f.name] = np.concatenate([v + o for v, o in zip(values, offsets)])
        elif isinstance(values[0], tuple):
            fields[f.name] = tuple(x for v in values for x in v)
        else:
            fields[f.name] = np.concatenate(values)
    return MotionRun(**fields)


def newline_of(text: str) -> str:
    """``"\\r\\n"`` when the text's first line end is CRLF, else ``"\\n"``."""
    i = text.find("\n")
    return "\r\n" if i > 0 and text[i - 1] == "\r" else "\n"


class TextLines:
    """1-based line and column of character offsets in a text, as lark counts them (a reader's spans and
    messages), from the offsets of its line ends, found when first asked for."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._table: np.ndarray | None = None  # -1, then the offset of every line end

    def table(self) -> np.ndarray:
        """-1, then the offset of every ``\\n``: the line of offset ``pos`` is ``searchsorted(table, pos)``."""
        if self._table is None:
            codes = np.frombuffer(self._text.encode("latin-1", errors="replace"), dtype=np.uint8)  # (a byte a character)
            self._table = np.concatenate([np.array([-1], dtype=np.int64), np.flatnonzero(codes == 10)])
        return self._table

    def arrays(self, positions: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
        """Lines and columns of ``positions`` as arrays (a run's thousands of positions)."""
        table = self.table()
        pos = np.asarray(positions, dtype=np.int64)
        line = np.searchsorted(table, pos)  # line ends before pos, the -1 included
        return line, pos - table[line - 1]

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
