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

import functools
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from thermocomp._typing import FloatArray

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

    @functools.cached_property
    def motions(self) -> tuple[Motion, ...]:
        """The motions of :attr:`steps`, in order (computed once)."""
        return tuple(s for s in self.steps if isinstance(s, Motion))

    @functools.cached_property
    def points(self) -> tuple[Point, ...]:
        """Every point of every motion, in execution order (computed once)."""
        return tuple(p for m in self.motions for p in m.points)


def newline_of(text: str) -> str:
    """``"\\r\\n"`` when the text's first line end is CRLF, else ``"\\n"``."""
    i = text.find("\n")
    return "\r\n" if i > 0 and text[i - 1] == "\r" else "\n"


def eye4() -> FloatArray:
    return np.eye(4)
