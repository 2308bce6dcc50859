"""Read an ABB RAPID module: its motions in the order the controller runs them, with their source spans.

The grammar (``rapid.lark``, lark LALR) covers what RobotStudio and the
FlexPendant write: a ``MODULE`` (optionally after the ``%%% VERSION ... %%%``
header of ``.prg`` files) with data declarations (``CONST``/``PERS``/``VAR``,
``LOCAL``, ``TASK PERS``, in any order, inside routines too) and routines;
keywords in any case, comments (``!``), statements continued over lines,
Windows line ends.

What is followed, in order, from the entry routine (``main`` or
:attr:`RapidOptions.entry`; without ``main``, every parameterless ``PROC``
that no other routine calls, in file order): ``MoveL``, ``MoveJ``, ``MoveC``
and ``MoveAbsJ`` with named or inline targets or elements of one-dimensional
arrays (``place{i}``, written back element by element), ``\\WObj``, the tool
argument, ``\\V``, ``\\T``; process and search moves (``MoveLDO``, ``TriggL``,
``ArcL``, ``SearchL``, ...: :data:`PROCESS_MOTIONS`), whose target is
compensated and other arguments kept; ``Offs(...)`` and ``RelTool(...)``
evaluated; assignments of known values (whole records, components); ``WaitTime``;
``VelSet``; ``ConfL``/``ConfJ`` ``\\On``/``\\Off``; calls of the module's
``PROC``s, arguments bound to parameters (:meth:`_Walker.bind_arguments`; one
written text serves every call: :mod:`thermocomp.programs.calls`); ``FOR``
loops with constant bounds, unrolled (a pass that changes nothing followed
once and repeated); ``WHILE TRUE DO`` ending the entry routine (the production
loop: one cycle is one pass of its body). Instructions that neither move the
robot nor branch (``SetDO``, ``TPWrite``, ``AccSet``, ...) are passed over,
and so are branches and loops that move nothing (:meth:`_Walker.blocker`).
The task's other modules (:attr:`RapidOptions.modules`) give declarations and
routines that are checked where called, never walked or written. Before
anything is followed, the motions the entry unrolls to are counted
(:meth:`_Walker.unrolled`): past :attr:`RapidOptions.max_motions` the module
is refused with the count. What cannot be followed exactly is an
*unsupported* finding with its line and column: branches and loops that move,
``GOTO``, interrupts (``CONNECT``), program displacement, calls of routines
found in no module, routines of other modules that move, a routine's text
that two calls need written differently, and data changed at run time that a
motion reads.

Units: RAPID writes mm, degrees and quaternions ``[q1, q2, q3, q4] = (w,
x, y, z)``; everything returned is SI (docs/conventions.md).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedInput

from thermocomp._gc import paused
from thermocomp._typing import FloatArray, PathLike
from thermocomp.errors import ConfigurationError, InputError
from thermocomp.geometry.rotations import matrix_from_quat_wxyz, rot_x, rot_y, rot_z
from thermocomp.io.files import read_program_bytes
from thermocomp.programs import calls
from thermocomp.programs.grammars import (
    byte_spans,
    delimiters,
    first_seen,
    joined_bytes,
    lalr_parser,
    node_meta,
    parse_numbers,
    token_at,
)
from thermocomp.programs.model import (
    _KIND_CODE,
    ABSOLUTE_JOINT,
    CIRCULAR,
    JOINT,
    LINEAR,
    MAX_MOTIONS,
    Finding,
    Motion,
    MotionRun,
    Point,
    RobotProgram,
    Span,
    TextLines,
    Wait,
    expand,
    newline_of,
)
from thermocomp.programs.writer import NUMBER
from thermocomp.tolerances import QUAT_NORM_TOL

#: File extensions read as RAPID.
RAPID_SUFFIXES = (".mod", ".modx", ".prg", ".sys")
#: Motions between two progress reports while a module is read.
PROGRESS_MOTIONS = 8192
#: Largest magnitude of a RAPID ``num`` (single precision, IEEE 754 binary32).
NUM_MAX = float(np.finfo(np.float32).max)

#: Record types of RAPID data and their components, in order (ABB RAPID reference, "Data types").
RECORDS: dict[str, tuple[tuple[str, str], ...]] = {
    "robtarget": (("trans", "pos"), ("rot", "orient"), ("robconf", "confdata"), ("extax", "extjoint")),
    "jointtarget": (("robax", "robjoint"), ("extax", "extjoint")),
    "pos": (("x", "num"), ("y", "num"), ("z", "num")),
    "orient": (("q1", "num"), ("q2", "num"), ("q3", "num"), ("q4", "num")),
    "confdata": (("cf1", "num"), ("cf4", "num"), ("cf6", "num"), ("cfx", "num")),
    "robjoint": tuple((f"rax_{i}", "num") for i in range(1, 7)),
    "extjoint": tuple((f"eax_{c}", "num") for c in "abcdef"),
    "pose": (("trans", "pos"), ("rot", "orient")),
    "tooldata": (("robhold", "bool"), ("tframe", "pose"), ("tload", "loaddata")),
    "wobjdata": (("robhold", "bool"), ("ufprog", "bool"), ("ufmec", "string"), ("uframe", "pose"),
                 ("oframe", "pose")),
    "speeddata": (("v_tcp", "num"), ("v_ori", "num"), ("v_leax", "num"), ("v_reax", "num")),
    "loaddata": (("mass", "num"), ("cog", "pos"), ("aom", "orient"), ("ix", "num"), ("iy", "num"), ("iz", "num")),
}

_IDENTITY_POSE = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0]]
_LOAD0 = [0.0, [0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0], 0.0, 0.0, 0.0]

#: Predefined data of the RAPID base (ABB RAPID reference: tool0, wobj0, load0,
#: speeddata v5..v7000 and vmax with v_ori 500 deg/s, zonedata).
PREDEFINED: dict[str, tuple[str, object]] = {
    "tool0": ("tooldata", [True, _IDENTITY_POSE, [0.001, [0.0, 0.0, 0.001], [1.0, 0.0, 0.0, 0.0], 0.0, 0.0, 0.0]]),
    "wobj0": ("wobjdata", [False, True, "", _IDENTITY_POSE, _IDENTITY_POSE]),
    "load0": ("loaddata", _LOAD0),
    "vmax": ("speeddata", [5000.0, 500.0, 5000.0, 1000.0]),
    **{f"v{v}": ("speeddata", [float(v), 500.0, 5000.0, 1000.0])
       for v in (5, 10, 20, 30, 40, 50, 60, 80, 100, 150, 200, 300, 400, 500, 600, 800, 1000, 1500, 2000,
                 2500, 3000, 4000, 5000, 6000, 7000)},
    **{name: ("zonedata", None) for name in
       ("fine", "z0", "z1", "z5", "z10", "z15", "z20", "z30", "z40", "z50", "z60", "z80", "z100", "z150", "z200")},
    "true": ("bool", True),
    "false": ("bool", False),
}

#: The plain motion instructions: their kind and number of points (then speed, zone, tool).
MOTIONS = {
    "movel": (LINEAR, 1),
    "movej": (JOINT, 1),
    "movec": (CIRCULAR, 2),
    "moveabsj": (ABSOLUTE_JOINT, 1),
}


@dataclass(frozen=True)
class _Signature:
    """Where a motion instruction's points, speed and tool are among its positional arguments (ABB, "RAPID
    Instructions"): ``points`` points from index ``first``, the speed right after them, the tool
    ``after_tool`` arguments before the end (a process move's signal and value, ``MoveLSync``'s procedure).
    ``writes``: the index of an argument the instruction gives a value (``SearchL``'s found point), or None."""

    kind: str
    points: int = 1
    first: int = 0
    after_tool: int = 0
    writes: int | None = None


def _signatures(names: str, **signature) -> dict[str, _Signature]:
    return {name.lower(): _Signature(**signature) for name in names.split()}


#: Process and search moves: the target is compensated like MoveL's, every other argument kept as written.
PROCESS_MOTIONS: dict[str, _Signature] = {
    **_signatures("MoveLDO MoveLAO MoveLGO", kind=LINEAR, after_tool=2),
    **_signatures("MoveJDO MoveJAO MoveJGO", kind=JOINT, after_tool=2),
    **_signatures("MoveCDO MoveCAO MoveCGO", kind=CIRCULAR, points=2, after_tool=2),
    **_signatures("MoveLSync", kind=LINEAR, after_tool=1),
    **_signatures("MoveJSync", kind=JOINT, after_tool=1),
    **_signatures("MoveCSync", kind=CIRCULAR, points=2, after_tool=1),
    **_signatures("TriggL TriggLIOs ArcL ArcLStart ArcLEnd ArcL1 ArcL2 CapL PaintL SpotL SpotML DispL", kind=LINEAR),
    **_signatures("TriggJ TriggJIOs SpotJ", kind=JOINT),
    **_signatures("TriggC ArcC ArcCStart ArcCEnd ArcC1 ArcC2 CapC PaintC DispC", kind=CIRCULAR, points=2),
    **_signatures("SearchL", kind=LINEAR, first=2, writes=1),
    **_signatures("SearchJ", kind=JOINT, first=2, writes=1),
    **_signatures("SearchC", kind=CIRCULAR, points=2, first=2, writes=1),
}

#: Instructions that move the robot, change the frame of later motions or
#: wait for a path event in ways thermocomp does not follow.
UNSUPPORTED_INSTRUCTIONS = frozenset(s.lower() for s in (
    "SearchExtJ", "MoveExtJ", "ArcMoveExtJ", "PDispOn", "PDispSet", "EOffsOn", "EOffsSet", "CorrCon", "CorrWrite",
    "WZLimSup", "WZDOSet", "SyncMoveOn", "SyncMoveOff", "IndAMove", "IndCMove", "IndDMove", "IndRMove",
    "ActUnit", "DeactUnit", "StorePath", "RestoPath", "ClearPath", "ExitCycle", "StopMoveReset", "SetSysData",
    "TuneServo", "CirPathMode",
))

#: Instructions that neither move the robot nor branch: passed over.
PASSIVE_INSTRUCTIONS = frozenset(s.lower() for s in (
    "TPWrite", "TPErase", "ErrWrite", "ErrLog", "SetDO", "SetAO", "SetGO", "Set", "Reset", "PulseDO", "InvertDO",
    "AccSet", "SingArea", "GripLoad", "Stop", "Break", "Incr", "Decr", "Add", "Clear",
    "ClkStart", "ClkStop", "ClkReset", "PathResol", "SoftAct", "SoftDeact", "StopMove", "StartMove", "PDispOff",
    "EOffsOff", "CorrClear", "CorrDiscon", "IDelete", "ISleep", "IWatch", "IDisable", "IEnable", "Load",
    "MechUnitLoad", "TriggIO", "TriggEquip", "TriggInt", "TriggSpeed", "SetDataSearch", "WaitLoad", "UnLoad",
    "Comment", "MotionSup", "WaitRob", "SpeedRefresh", "PathAccLim", "WorldAccLim", "TPReadNum", "TPReadDnum",
    "TPReadFK",
))

#: Instructions that wait for something thermocomp cannot time.
SIGNAL_WAITS = frozenset(s.lower() for s in ("WaitDI", "WaitDO", "WaitAI", "WaitAO", "WaitGI", "WaitGO",
                                              "WaitUntil", "WaitSyncTask", "WaitTestAndSet"))

#: Instructions that change how the motions after them run (speed, configuration checks): followed in order, so
#: a branch holding one is not passed over.
MODE_INSTRUCTIONS = frozenset(("velset", "confl", "confj"))

#: A RAPID identifier (ABB, "RAPID kernel": at most 32 characters).
_RAPID_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,31}")


@dataclass(frozen=True)
class RapidOptions:
    """How a RAPID task is read: its other modules, its entry routine, routines known not to move, a size bound.

    Parameters
    ----------
    modules
        The task's other modules (``CalibData.mod``'s tooldata and wobjdata, a gripper library's PROCs): their
        declarations are read and their routines checked where the program calls them. Nothing in them is written.
    entry
        The routine one cycle runs (``main``; RobotStudio's exports often hold only ``Path_10``).
    external
        Routines found in no module that neither move the robot nor change data a motion reads
        (a gripper or process library the controller holds): calls of them are kept as written.
    max_motions
        Most motions and waits the entry routine may unroll to (FOR loops and calls, counted before
        anything is followed): a module past it is refused with its count.
    """

    modules: tuple[str, ...] = ()
    entry: str = "main"
    external: tuple[str, ...] = ()
    max_motions: int = MAX_MOTIONS

    def __post_init__(self) -> None:
        object.__setattr__(self, "modules", tuple(str(m) for m in self.modules))
        object.__setattr__(self, "external", tuple(self.external))
        for option, names in (("--entry", (self.entry,)), ("--external", self.external)):
            for name in names:
                if not (isinstance(name, str) and _RAPID_NAME.fullmatch(name)):
                    raise ConfigurationError(f"{option}: expected a RAPID routine name (a letter, then letters, "
                                             f"digits or _), got {name!r}")
        if isinstance(self.max_motions, bool) or not isinstance(self.max_motions, int) or self.max_motions < 1:
            raise ConfigurationError(f"--max-motions: expected a whole number >= 1, got {self.max_motions!r}")


#: Instructions that move the robot or change how it moves.
_MOVING = frozenset(MOTIONS) | frozenset(PROCESS_MOTIONS) | UNSUPPORTED_INSTRUCTIONS

#: Statements that branch or loop (or end a routine): passed over when they move nothing (:meth:`_Walker.blocker`).
_BRANCHES = frozenset(("if_stmt", "compact_if", "while_stmt", "for_stmt", "test_stmt", "return_stmt", "exit_stmt",
                       "raise_stmt", "retry_stmt", "trynext_stmt"))

#: The statements the walker does not follow, as RAPID writes them.
_CONSTRUCTS = {
    "if_stmt": "IF", "compact_if": "IF", "while_stmt": "WHILE", "for_stmt": "FOR", "test_stmt": "TEST",
    "return_stmt": "RETURN", "exit_stmt": "EXIT", "goto_stmt": "GOTO", "retry_stmt": "RETRY",
    "trynext_stmt": "TRYNEXT", "raise_stmt": "RAISE", "connect_stmt": "CONNECT (an interrupt)",
    "late_call": "a late-bound call (%...%)",
}

#: How a call of a routine found nowhere is named.
_NOT_FOUND = ("found in no module of the task (give its module with --module FILE, or declare with --external "
              "{name} that it does not move the robot)")

#: Instructions that give their first argument a value known only while running.
_MUTATING = frozenset(("incr", "decr", "add", "clear", "tpreadnum", "tpreaddnum", "tpreadfk"))


@functools.lru_cache(maxsize=1)
def rapid_parser() -> Lark:
    """The RAPID parser (LALR, grammar ``rapid.lark`` kept in the package), built once per process."""
    return lalr_parser("rapid.lark", propagate_positions=True, maybe_placeholders=False)


# One plain motion statement of a ``MOVES`` token: the one place it is written. An inline point is a list of lists
# of numbers (rapid.lark's NUMBERS, two deep); every repetition is possessive (no backtracking). rapid.lark's
# ``MOVES`` is :data:`MOVES_PATTERN` written out (tests/test_programs_rapid_runs.py checks they are the same).
# Digits are ``[0-9]``: in ISO-8859-1 text the same characters as ``\d``, which ``re`` tests as Unicode digits (a
# third slower over a 100,000-statement run).
_S = r"[ \t\r\n]*+"
_NUM = r"[+-]?+(?:[0-9]++(?:\.[0-9]*+)?+|\.[0-9]++)(?:[eE][+-]?+[0-9]++)?+"
_LIST = rf"\[{_S}{_NUM}(?:{_S},{_S}{_NUM})*+{_S}\]"
_NAME = r"[A-Za-z_][A-Za-z0-9_]*+"
_POINT = rf"\[{_S}{_LIST}(?:{_S},{_S}{_LIST})*+{_S}\]|{_NAME}"
_GAP = r"(?:[ \t\f\r\n]++|![^\n]*+)++"
_MOVE = (rf"(?:(?i:MoveL|MoveJ|MoveC|MoveAbsJ))\b{_S}(?:{_POINT}){_S},{_S}(?:(?:{_POINT}){_S},{_S})?"
         rf"(?:{_NAME}){_S},{_S}(?:{_NAME}){_S},{_S}(?:{_NAME})"
         rf"(?:{_S}\\(?:(?i:WObj)){_S}:={_S}(?:{_NAME}))?+{_S};")
#: A run of plain motion statements (rapid.lark's ``MOVES``): statements with whitespace and comments between.
MOVES_PATTERN = rf"{_MOVE}(?:{_GAP}{_MOVE})*+"
#: The parts of a run's statement, in the order of :attr:`MoveStatements.offsets`' columns.
PARTS = ("instr", "p1", "p2", "speed", "zone", "tool", "wkey", "wobj")
_COLUMN = {part: 2 * k for k, part in enumerate(PARTS)}

#: What an inline robtarget / jointtarget is, with the numbers and whitespace taken out.
_SKELETONS = {"robtarget": b"[[,,],[,,,],[,,,],[,,,,,]]", "jointtarget": b"[[,,,,,],[,,,,,]]"}
_NOT_NUMBER = b"[] \t\r\n"  # (what an inline point holds besides its numbers and commas)

#: The bytes that delimit a run's statements and their parts (:class:`MoveStatements`), by code; 0 for the others.
_OPEN, _CLOSE, _COMMA, _END, _BACKSLASH, _BANG, _NEWLINE = range(1, 8)
_CODES = np.zeros(256, dtype=np.int8)
_CODES[[ord(c) for c in "[],;\\!\n"]] = np.arange(1, 8)
#: Whitespace inside a statement (``_S``), and between statements (``_GAP``, comments aside).
_SPACE = np.zeros(256, dtype=bool)
_SPACE[[ord(c) for c in " \t\r\n"]] = True
_GAP_SPACE = _SPACE.copy()
_GAP_SPACE[ord("\f")] = True


class _Irregular(Exception):
    """A run's statement the columns do not read (not a number, a name that does not resolve, an argument the
    instruction refuses): it is run through the general rules, one statement, for its finding or error."""


class MoveStatements:
    """The statements of a ``MOVES`` token, columnar: where each part of each statement starts and ends.

    The parts are :data:`PARTS`; offsets are within the token's text, -1 where a part is absent. The token is
    one the grammar matched (:data:`MOVES_PATTERN`), so its bytes alone place the parts: outside comments (``!``
    to the line's end, between statements only) every ``;`` ends a statement, every ``\\`` starts its ``\\WObj``,
    and the commas outside brackets separate its arguments (three, or four with a second point); each part is
    what lies between them, whitespace aside. Found with numpy over the token's bytes, no match object a
    statement (a regular expression's groups took a second for 100,000 statements).
    """

    def __init__(self, token: Token) -> None:
        self.text = token  # (a str: str(token) would copy it)
        self.data = token.encode("latin-1")  # (a byte a character)
        b = self.bytes = np.frombuffer(self.data, dtype=np.uint8)
        at, code = delimiters(self.data, _CODES)
        newlines = at[code == _NEWLINE]
        if np.any(code == _BANG):  # (a byte after a "!" on its line is a comment's)
            last_bang = np.maximum.accumulate(np.where(code == _BANG, at, -1))
            outside = last_bang <= np.maximum.accumulate(np.where(code == _NEWLINE, at, -1))
            at, code = at[outside], code[outside]
        depth = np.cumsum((code == _OPEN).astype(np.int8) - (code == _CLOSE), dtype=np.int8)  # (0 to 2)
        ends = at[code == _END]
        commas = at[(code == _COMMA) & (depth == 0)]
        first = np.searchsorted(np.searchsorted(ends, commas), np.arange(len(ends)))  # each statement's first comma
        two_points = np.diff(np.append(first, len(commas))) == 4
        backslashes = at[code == _BACKSLASH]
        wobj = np.zeros(len(ends), dtype=bool)
        wobj[np.searchsorted(ends, backslashes)] = True
        tool_end = ends.copy()
        tool_end[wobj] = backslashes
        # each statement starts past the gap after the one before: whitespace, and comments to their line's end
        start = np.concatenate([np.zeros(1, dtype=np.int64), ends[:-1] + 1])
        active = np.arange(len(ends))
        while active.size:
            byte = b[start[active]]
            bang = active[byte == ord("!")]
            start[bang] = newlines[np.searchsorted(newlines, start[bang])]
            start[active[_GAP_SPACE[byte]]] += 1
            active = active[_GAP_SPACE[byte] | (byte == ord("!"))]
        offsets = np.full((len(ends), 2 * len(PARTS)), -1, dtype=np.int64)
        instr_end = start + np.where((b[start + 4] | 0x20) == ord("a"), 8, 5)  # MoveAbsJ; MoveL, MoveJ, MoveC
        comma = [commas[np.minimum(first + k, len(commas) - 1)] for k in range(4)]
        offsets[:, 0], offsets[:, 1] = start, instr_end
        offsets[:, 2], offsets[:, 3] = _skip_space(b, instr_end), _skip_space(b, comma[0], -1)
        two = np.flatnonzero(two_points)
        offsets[two, 4], offsets[two, 5] = _skip_space(b, comma[0][two] + 1), _skip_space(b, comma[1][two], -1)
        after = [np.where(two_points, comma[k + 1], comma[k]) for k in range(3)]  # the commas after the points
        for column, (a, z) in zip((6, 8, 10), ((after[0], after[1]), (after[1], after[2]), (after[2], tool_end))):
            offsets[:, column], offsets[:, column + 1] = _skip_space(b, a + 1), _skip_space(b, z, -1)
        w = np.flatnonzero(wobj)
        key = _skip_space(b, tool_end[w] + 1)
        offsets[w, 12], offsets[w, 13] = key, key + 4
        offsets[w, 14], offsets[w, 15] = _skip_space(b, _skip_space(b, key + 4) + 2), _skip_space(b, ends[w], -1)
        self.offsets = offsets
        self.end = ends + 1
        self.delimiters, self.codes = at, code  # (outside comments)

    def __len__(self) -> int:
        return len(self.offsets)

    def starts(self, part: str) -> np.ndarray:
        return self.offsets[:, _COLUMN[part]]

    def ends(self, part: str) -> np.ndarray:
        return self.offsets[:, _COLUMN[part] + 1]

    def group(self, i: int, part: str) -> str | None:
        a, b = self.offsets[i, _COLUMN[part]:_COLUMN[part] + 2].tolist()
        return None if a < 0 else self.text[a:b]

    def texts(self, part: str, lower: bool = False) -> list[str | None]:
        """The text of ``part`` in every statement (``None`` where absent)."""
        text = self.text
        out = [text[a:b] if a >= 0 else None for a, b in self.offsets[:, _COLUMN[part]:_COLUMN[part] + 2].tolist()]
        return [None if t is None else t.lower() for t in out] if lower else out


def _skip_space(b: np.ndarray, at: np.ndarray, step: int = 1) -> np.ndarray:
    """Offsets ``at`` into the bytes ``b`` moved past whitespace (``_S``): forward, or with ``step`` -1 back to
    just after the last byte before them that is not whitespace."""
    at = at.copy()
    look = 0 if step == 1 else -1
    active = np.flatnonzero(_SPACE[b[at + look]])
    while active.size:
        at[active] += step
        active = active[_SPACE[b[at[active] + look]]]
    return at


class _Unsupported(Exception):
    """Raised inside the walker; becomes a :class:`Finding`."""

    def __init__(self, message: str, where: Tree | Token) -> None:
        super().__init__(message)
        self.message = message
        self.where = where


def span_of(item: Tree | Token) -> Span:
    """The :class:`Span` of a tree (lark ``propagate_positions``) or a token."""
    if isinstance(item, Token):
        return Span(item.start_pos, item.end_pos, item.line, item.column)
    meta = item.meta
    return Span(meta.start_pos, meta.end_pos, meta.line, meta.column)


def _location(item: Tree | Token) -> tuple[int, int]:
    s = span_of(item)
    return s.line, s.column


def _is_local(item: Tree) -> bool:
    return isinstance(item.children[0], Token) and item.children[0].type == "LOCAL"


#: The nodes that hold statements (what :meth:`_Walker.unrolled` counts through).
_BLOCKS = frozenset(("body", "call", "moves", "if_stmt", "elseif", "compact_if", "while_stmt", "for_stmt", "test_stmt",
                     "test_case"))


@dataclass
class _Data:
    type: str
    value: object
    node: Tree | None  # the declared value's tree (for its span), if any
    name: str
    declared: Token
    origin: str = ""  # the other module of the task that declares it ("": this one)


def parse_rapid_text(text: str, path: str) -> Tree:
    """Parse ``text`` (a whole module) into lark's tree; a syntax error names line and column.

    Runs of plain motion statements are ``moves`` nodes of one ``MOVES`` token each (rapid.lark).
    """
    parseable = ("   " + text[3:]) if text.startswith("\xef\xbb\xbf") else text  # a UTF-8 BOM, as latin-1
    try:
        return rapid_parser().parse(parseable)
    except UnexpectedInput as exc:
        found = getattr(exc, "token", None) or getattr(exc, "char", None)
        at_end = found is None or getattr(found, "type", "") == "$END"
        if getattr(found, "type", "") == "MOVES":  # (where no statement may start: its instruction is unexpected)
            found = re.match(_NAME, found)[0]  # type: ignore[index]
        what = "end of file" if at_end else repr(str(found))
        line = exc.line if getattr(exc, "line", -1) > 0 else text.count("\n") + 1
        column = exc.column if getattr(exc, "column", -1) > 0 else len(text) - text.rfind("\n")
        raise InputError(f"RAPID syntax: unexpected {what} (column {column})", path=path, row=line) from None


def read_rapid(path: PathLike, progress: Callable[[int, int | None], None] | None = None,
               options: RapidOptions | None = None) -> RobotProgram:
    """Read a RAPID module file (``.mod``, ``.modx``, ``.prg``, ``.sys``), with the task's other modules,
    entry routine and external routines of ``options``.

    Returns
    -------
    RobotProgram
        One cycle of the entry routine's motions and waits, with spans; the
        constructs that cannot be followed are in ``unsupported``.

    Raises
    ------
    InputError
        A syntax error or invalid data (a robtarget of the wrong shape, a
        quaternion that is not unit), naming the file, line and column.
    """
    data = read_program_bytes(path, "RAPID module")
    return rapid_program_from_text(data.decode("latin-1"), str(path), progress=progress, options=options)


def rapid_program_from_text(text: str, path: str = "<text>",
                            progress: Callable[[int, int | None], None] | None = None,
                            options: RapidOptions | None = None) -> RobotProgram:
    """:func:`read_rapid` on the text of a module (decoded as ISO-8859-1).

    ``progress(motions, None)`` hears of the motions followed, every few thousand.
    """
    options = RapidOptions() if options is None else options
    modules = tuple(_other_module(m) for m in options.modules)
    with paused():  # a long program is a million objects that all stay alive (thermocomp._gc)
        return _Walker(text, path, progress, _Task(options, modules)).run(parse_rapid_text(text, path))


@dataclass(frozen=True)
class _Module:
    """Another module of the task, as read: its file, text and tree."""

    path: str
    text: str
    tree: Tree


@dataclass(frozen=True)
class _Task:
    options: RapidOptions
    modules: tuple[_Module, ...]


def _other_module(path: str) -> _Module:
    data = read_program_bytes(path, "RAPID module (--module)")
    text = data.decode("latin-1")
    return _Module(str(path), text, parse_rapid_text(text, str(path)))


class _Walker:
    """Follows a module's entry routine statement by statement."""

    def __init__(self, text: str, path: str, progress: Callable[[int, int | None], None] | None = None,
                 task: _Task | None = None) -> None:
        self.task = _Task(RapidOptions(), ()) if task is None else task
        self.external = {n.lower() for n in self.task.options.external}
        self.origin: dict[int, str] = {}  # id of a routine of another module of the task: that module's file
        self.conf_free: dict[int, bool] = {}  # a motion statement's offset: whether every run of it had Conf \Off
        self.conf_on = {"linear": True, "joint": True}  # ConfL, ConfJ
        self.text = text
        self.path = path
        self.progress = progress
        self.module_data: dict[str, _Data] = {}
        self.procs: dict[str, Tree] = {}
        self.routines: list[Tree] = []
        self.steps: list[Motion | Wait] = []
        self.unsupported: list[Finding] = []
        self.notes: list[Finding] = []
        self.assigned: dict[str, Token | Tree] = {}
        self.visited: set[str] = set()
        self.velset = (100.0, float("inf"))  # VelSet override [%], max TCP speed [mm/s]
        self.direct_refs: set[int] = set()  # name tokens that are a followed motion's point
        self._cache: dict = {}
        self._scopes: list[dict[str, _Data]] = []  # every call's scope stays alive: the cache keys them by id
        self._in_call: dict[int, calls.Call] = {}  # id of a motion run by a call with arguments: that call
        self._quiet: list[str] = []  # the routines being run that move nothing (:meth:`moves_nothing`)
        self._params: dict[int, set[str]] = {}  # id of a call's scope -> its parameters' keys
        self._first_read: dict[str, tuple[object, Token]] = {}  # data read before any followed assignment to it
        self._followed: dict[str, tuple[object, Tree]] = {}  # data given a known value by a followed assignment
        self._passed: dict[int, tuple[Span, str]] = {}  # a call's argument naming data: its routine and parameter
        self._matches: dict[int, MoveStatements] = {}  # statements of each MOVES token, by its offset
        self.lines = TextLines(text)  # lines and columns of offsets
        self._run_count = 0  # motions of runs followed (for progress)
        self._cycle_body: Tree | None = None  # the last entry routine's body
        self._unrolled: dict[str, int] = {}  # motions and waits a routine runs (:meth:`unrolled`)

    # ----- errors and findings
    def error(self, message: str, where: Tree | Token) -> InputError:
        line, column = _location(where)
        return InputError(f"{message} (column {column})", path=self.path, row=line)

    def unsupported_at(self, message: str, where: Tree | Token) -> None:
        line, column = _location(where)
        finding = Finding(message, line, column)
        if finding not in self.unsupported:  # once, though met in every pass of a FOR loop
            self.unsupported.append(finding)

    # ----- the module
    def run(self, tree: Tree) -> RobotProgram:
        for other in self.task.modules:
            self.collect(other.tree, other)
        self.collect(tree, None)
        entry = self.entry_routines()
        if entry:  # the body whose last statement may be the production loop (:meth:`loops_forever`)
            self._cycle_body = next(c for c in entry[-1].children if isinstance(c, Tree) and c.data == "body")
        first_read = dict(self._first_read)
        self.check_size(entry)
        self._first_read = first_read  # (counting reads the bounds of FOR loops: no read of a cycle)
        for proc in entry:
            self.visited.add(self._routine_name(proc).lower())
            self.run_routine(proc, depth=0)
        self.check_cycles()
        unrun = self.note_unvisited()
        return RobotProgram(
            language="rapid", path=self.path, text=self.text, steps=self.finish_points(tree),
            unsupported=tuple(self.unsupported), notes=tuple(self.notes),
            entry=tuple(self._routine_name(p) for p in entry), newline=newline_of(self.text),
            extra={"unrun": unrun, "confdata_free": frozenset(k for k, free in self.conf_free.items() if free)},
        )

    def collect(self, tree: Tree, module: _Module | None) -> None:
        """The declarations and routines of this module (``module`` None) or of another module of the task (its
        task-global ones: a ``LOCAL`` one is its own)."""
        reader = None if module is None else _Walker(module.text, module.path, task=_Task(self.task.options, ()))
        for item in next(tree.find_data("module")).children:
            if not isinstance(item, Tree) or (module is not None and _is_local(item)):
                continue
            if item.data == "data_decl":
                if reader is None:
                    self.declare(item, self.module_data)
                else:
                    self.declare_other(item, reader)
            elif item.data in ("proc", "func", "trap"):
                name = self._routine_name(item)
                if module is None:
                    self.routines.append(item)
                else:
                    self.origin[id(item)] = module.path
                known = self.procs.get(name.lower())
                if known is not None and item.data == "proc":
                    first = self.origin.get(id(known), self.path)
                    where = self.path if module is None else module.path
                    raise InputError(f"PROC {name} is declared in two modules of the task: {first} (line "
                                     f"{_location(known)[0]}) and here", path=where, row=_location(item)[0])
                if item.data == "proc":
                    self.procs[name.lower()] = item

    def declare_other(self, decl: Tree, reader: _Walker) -> None:
        """A task-global declaration of another module, read by that module's ``reader`` (its errors name that
        file; its values may use the module's earlier declarations)."""
        reader.declare(decl, reader.module_data)
        key = str([c for c in decl.children if isinstance(c, Token) and c.type == "NAME"][1]).lower()
        data = reader.module_data[key]
        if key in self.module_data:
            first = self.module_data[key]
            raise InputError(f"{data.name} is declared in two modules of the task: {first.origin or self.path} "
                             f"(line {first.declared.line}) and here", path=reader.path, row=data.declared.line)
        self.module_data[key] = dataclasses.replace(data, origin=reader.path)

    def check_size(self, entry: list[Tree]) -> None:
        """The motions and waits the entry routine unrolls to, counted before any is followed: past
        ``max_motions`` the module is refused with the count (a few kilobytes of nested FOR loops or calls can
        stand for 2^40 motions)."""
        limit = self.task.options.max_motions
        total = sum(self.unrolled(proc, frozenset()) for proc in entry)
        if total > limit:
            where = entry[0] if entry else None
            raise InputError(f"{self._routine_name(where) if where is not None else 'the module'} unrolls to "
                             f"{total:,} motions and waits (through its FOR loops and routine calls): more than "
                             f"--max-motions {limit:,}", path=self.path,
                             row=None if where is None else _location(where)[0])

    def unrolled(self, node: Tree, calling: frozenset[str]) -> int:
        """How many motions and waits ``node`` (a routine or a statement) runs: FOR loops with bounds known from
        the module's data times their body, calls times the routine's count (each routine counted once), every
        branch of a condition; recursion counts once (it is refused when followed)."""
        if node.data in ("proc", "func", "trap"):
            name = self._routine_name(node).lower()
            if name in calling:
                return 0
            if name not in self._unrolled:
                body = next(c for c in node.children if isinstance(c, Tree) and c.data == "body")
                self._unrolled[name] = self.unrolled(body, calling | {name})
            return self._unrolled[name]
        if node.data == "moves":
            return len(self.move_matches(node.children[0]))
        if node.data == "call":
            key = str(node.children[0]).lower() if isinstance(node.children[0], Token) else ""
            if key in MOTIONS or key in PROCESS_MOTIONS or key == "waittime":
                return 1
            routine = self.procs.get(key)
            return 0 if routine is None or id(routine) in self.origin else self.unrolled(routine, calling)
        count = sum(self.unrolled(c, calling) for c in node.children if isinstance(c, Tree) and c.data in _BLOCKS)
        if node.data == "for_stmt" and count:
            try:
                count *= self.for_passes(node, None)[2]
            except _Unsupported:
                pass  # (bounds known only while running: counted when it runs, :meth:`run_for`)
        return count

    def for_passes(self, statement: Tree, local: dict[str, _Data] | None) -> tuple[float, float, int]:
        """A FOR loop's first value, step and number of passes (RAPID: without STEP the counter counts by 1, or
        by -1 when FROM is above TO; ABB, RAPID instructions, "FOR")."""
        _, start_node, stop_node, *rest = statement.children
        start, stop = self._number(start_node, local), self._number(stop_node, local)
        step = self._number(rest[0], local) if len(rest) == 2 else (1.0 if start <= stop else -1.0)
        if step == 0:
            raise _Unsupported("FOR with STEP 0 never ends", statement)
        return start, step, max(int(np.floor((stop - start) / step + 1e-9)) + 1, 0)

    def finish_points(self, tree: Tree) -> tuple:
        """The steps with each point's text where it is written; calls that clash left as written (:mod:`.calls`)."""
        return tuple(calls.finish(self.steps, lambda unfollowed: self._finish_points(tree, unfollowed), self._in_call,
                                  self.unsupported, self.notes))

    def _finish_points(self, tree: Tree, unfollowed: set[int]) -> list[Motion | Wait]:
        """A declaration is rewritten only if every use of its name in the module is a followed motion's point
        (an ``Offs(p10, ...)`` elsewhere, or a motion left as written, must keep reading the old value)."""
        declared = {p.name.lower() for step in self.steps if isinstance(step, Motion) for p in step.points
                    if p.name and p.text != p.argument}
        if not declared:  # every target inline (a CAM program): nothing to check
            return list(self.steps)
        uses: dict[str, set[int]] = {}
        for node in tree.find_data("name"):
            token = node.children[0]
            uses.setdefault(str(token).lower(), set()).add(token.start_pos)
        for node in tree.find_data("moves"):
            token = node.children[0]
            statements = self.move_matches(token)
            for part in ("p1", "p2", "speed", "zone", "tool", "wobj"):
                starts = (token.start_pos + statements.starts(part)).tolist()
                for value, start in zip(statements.texts(part, lower=True), starts):
                    if value is not None and value[0] != "[":
                        uses.setdefault(value, set()).add(start)
        direct = calls.direct_through_calls(self.direct_refs, self._passed, uses, unfollowed)
        steps = []
        done: dict[int, Motion] = {}  # a step repeated (the passes of a FOR loop): decided once
        for step in self.steps:
            if isinstance(step, Motion):
                if id(step) not in done:
                    points = tuple(p if not p.name or p.text == p.argument or uses.get(p.name.lower(), set()) <= direct
                                   else dataclasses.replace(p, text=p.argument) for p in step.points)
                    done[id(step)] = dataclasses.replace(step, points=points)
                step = done[id(step)]
            steps.append(step)
        return steps

    @staticmethod
    def _routine_name(routine: Tree) -> str:
        return str(next(c for c in routine.children if isinstance(c, Token) and c.type == "NAME"))

    @staticmethod
    def _has_params(routine: Tree) -> bool:
        return any(isinstance(c, Tree) and c.data == "params" for c in routine.children)

    def entry_routines(self) -> list[Tree]:
        """The entry routine (``--entry``, default ``main``); without a ``main``, every parameterless PROC of the
        module that no routine calls, in file order."""
        entry = self.task.options.entry
        found = self.procs.get(entry.lower())
        if found is not None and id(found) not in self.origin:
            return [found]
        own = {name: p for name, p in self.procs.items() if id(p) not in self.origin}
        if entry.lower() != "main":
            raise InputError(f"--entry {entry}: expected a PROC of this module, got none of that name (its PROCs: "
                             f"{', '.join(self._routine_name(p) for p in own.values()) or 'none'})", path=self.path)
        called = {str(c.children[0]).lower() for r in self.routines for c in r.find_data("call")
                  if isinstance(c.children[0], Token)}
        return [p for name, p in own.items() if name not in called and not self._has_params(p)]

    def note_unvisited(self) -> tuple[tuple[str, int], ...]:
        """A note for each routine of the module the entry does not run that holds motions; ``(name, motions)``
        of each."""
        unrun = []
        for routine in self.routines:
            name = self._routine_name(routine)
            if name.lower() in self.visited:
                continue
            moves = [c for c in routine.find_data("call") if isinstance(c.children[0], Token)
                     and str(c.children[0]).lower() in _MOVING]
            n_moves = len(moves) + sum(len(self.move_matches(run.children[0])) for run in routine.find_data("moves"))
            if n_moves:
                line, column = _location(routine)
                kind = {"proc": "PROC", "func": "FUNC", "trap": "TRAP"}[routine.data]
                self.notes.append(Finding(f"{kind} {name} is not run from the entry routine: its {n_moves} "
                                          "motion(s) stay as written", line, column))
                unrun.append((name, n_moves))
        return tuple(unrun)

    # ----- data
    def declare(self, decl: Tree, scope: dict[str, _Data]) -> None:
        names = [c for c in decl.children if isinstance(c, Token) and c.type == "NAME"]
        type_token, name_token = names[0], names[1]
        dtype = str(type_token).lower()
        value_node = next((c for c in decl.children[decl.children.index(name_token) + 1:]
                           if isinstance(c, (Tree, Token)) and not (isinstance(c, Tree) and c.data == "dims")), None)
        dims = next((c for c in decl.children if isinstance(c, Tree) and c.data == "dims"), None)
        is_array = dims is not None
        value: object = None
        if value_node is not None:
            try:
                value = self.evaluate(value_node, scope if scope is not self.module_data else None)
                if is_array:
                    value = self.array_value(value, dims, dtype, str(name_token), value_node)
            except _Unsupported:
                value = None  # an initial value that cannot be evaluated: any use of it is unsupported
            if value is not None and dtype in RECORDS and not is_array:
                self.check_record(value, dtype, value_node)
        if scope is self.module_data and str(name_token).lower() in scope:  # RAPID refuses it: which one counts?
            first = scope[str(name_token).lower()]
            if first.origin:
                raise self.error(f"{name_token} is declared in two modules of the task: {first.origin} (line "
                                 f"{first.declared.line}) and here", name_token)
            raise self.error(f"{name_token} is declared twice in the module (first at line {first.declared.line})",
                             name_token)
        scope[str(name_token).lower()] = _Data(dtype if not is_array else dtype + "{}", value, value_node,
                                               str(name_token), name_token)

    def array_value(self, value: object, dims: Tree, dtype: str, name: str, where: Tree | Token) -> list:
        """The elements of a one-dimensional array's initial value, each checked as ``dtype``.

        More dimensions are :class:`_Unsupported` (any use of the array then is).
        """
        if len(dims.children) != 1:
            raise _Unsupported(f"{name}: an array of {len(dims.children)} dimensions is not followed", dims)
        size = self._number(dims.children[0], None)
        if not isinstance(value, list) or len(value) != size:
            raise self.error(f"{name}{{{size:g}}}: expected {size:g} elements, got {_describe(value)}", where)
        for item in value:
            self.check_record(item, dtype, where)
        return value

    def element(self, node: Tree, local) -> tuple[_Data, int]:
        """The array datum and the 0-based element of ``name{i}`` (RAPID counts from 1)."""
        if not (isinstance(node.children[0], Tree) and node.children[0].data == "name") or len(node.children) != 2:
            raise _Unsupported("an index into anything but a named one-dimensional array is not followed", node)
        data = self.lookup(node.children[0].children[0], local)
        if not data.type.endswith("{}") or not isinstance(data.value, list):
            raise _Unsupported(f"{data.name} is not an array of known values", node)
        i = self._number(node.children[1], local)
        if i != int(i) or not 1 <= i <= len(data.value):
            raise self.error(f"index {i:g} outside {data.name}{{1..{len(data.value)}}}", node)
        return data, int(i) - 1

    def element_span(self, value_node: Tree | Token, i: int) -> tuple[int, int]:
        """Start and end offsets of element ``i`` of an array's declared value."""
        if isinstance(value_node, Tree) and value_node.data == "aggregate":
            s = span_of(value_node.children[i])
            return s.start, s.end
        s = span_of(value_node)  # one NUMBERS token: numbers, brackets, commas and whitespace only
        depth, starts, ends = 0, [], []
        for k, c in enumerate(self.text[s.start:s.end]):
            if c == "[":
                depth += 1
                if depth == 1:
                    starts.append(k + 1)
            elif c == "]":
                if depth == 1:
                    ends.append(k)
                depth -= 1
            elif c == "," and depth == 1:
                ends.append(k)
                starts.append(k + 1)
        text = self.text[s.start:s.end]
        a, b = starts[i], ends[i]
        a += len(text[a:b]) - len(text[a:b].lstrip())
        b -= len(text[a:b]) - len(text[a:b].rstrip())
        return s.start + a, s.start + b

    def check_record(self, value: object, dtype: str, where: Tree | Token) -> None:
        """``value`` has the shape of RAPID type ``dtype``; else an :class:`InputError` at ``where``."""
        fields = RECORDS.get(dtype)
        if fields is None:
            return
        if not isinstance(value, list) or len(value) != len(fields):
            raise self.error(f"expected a {dtype} of {len(fields)} components "
                             f"({', '.join(f for f, _ in fields)}), got {_describe(value)}", where)
        for (field_name, field_type), item in zip(fields, value):
            if field_type == "num" and (isinstance(item, bool) or not isinstance(item, float)):
                raise self.error(f"{dtype}.{field_name}: expected a number, got {_describe(item)}", where)
            self.check_record(item, field_type, where)

    def lookup(self, token: Token, local: dict[str, _Data] | None) -> _Data:
        key = str(token).lower()
        if local is not None and key in local:
            data = local[key]
        elif key in self.module_data:
            data = self.module_data[key]
        elif key in PREDEFINED:
            dtype, value = PREDEFINED[key]
            return _Data(dtype, value, None, str(token), token)
        else:
            raise _Unsupported(f"{token} is not declared in this module (a datum of another module of the task: "
                               "give that module with --module FILE)", token)
        if key in self.assigned:
            line, column = _location(self.assigned[key])
            raise _Unsupported(f"{token} is changed at run time (line {line}, column {column}); "
                               "its value at this motion is not known", token)
        if data.value is None:
            raise _Unsupported(f"the value of {token} cannot be evaluated", token)
        if key not in self._followed:
            self._first_read.setdefault(key, (data.value, token))
        return data

    # ----- expressions
    def evaluate(self, node: Tree | Token, local: dict[str, _Data] | None) -> object:
        return self.evaluate_typed(node, local)[0]

    def evaluate_typed(self, node: Tree | Token, local: dict[str, _Data] | None) -> tuple[object, str | None]:
        if isinstance(node, Token):
            raise _Unsupported(f"cannot evaluate {node!s}", node)
        kind = node.data
        if kind == "number":
            return self.literal(node), "num"
        if kind == "string":
            raw = str(node.children[0])[1:-1]
            return raw.replace('""', '"'), "string"
        if kind == "name":
            data = self.lookup(node.children[0], local)
            return data.value, data.type
        if kind == "aggregate":
            return [self.evaluate(c, local) for c in node.children], None
        if kind == "numbers":
            value = numbers_value(str(node.children[0]))
            if not _largest(value) <= NUM_MAX:
                raise self.error(f"a number of {node.children[0]!s} is out of range (RAPID num holds at most "
                                 f"{NUM_MAX:.2g})", node)
            return value, None
        if kind == "signed":
            sign, value = str(node.children[0]), self.evaluate(node.children[1], local)
            if not isinstance(value, float):
                raise _Unsupported("a sign before a value that is not a number", node)
            return (-value if sign == "-" else value), "num"
        if kind == "expr":
            return self.arithmetic(node, local), "num"
        if kind == "component":
            base, btype = self.evaluate_typed(node.children[0], local)
            field_name = str(node.children[1]).lower()
            fields = RECORDS.get(btype or "")
            names = [f for f, _ in fields] if fields else []
            if field_name not in names:
                raise _Unsupported(f"component {node.children[1]} of a {btype or 'value of unknown type'}", node)
            i = names.index(field_name)
            return base[i], fields[i][1]  # type: ignore[index]
        if kind == "index":
            data, i = self.element(node, local)
            return data.value[i], data.type[:-2]  # type: ignore[index]
        if kind == "func_call":
            return self.call_function(node, local)
        raise _Unsupported(f"cannot evaluate this expression ({kind})", node)

    def arithmetic(self, node: Tree, local) -> float:
        """``a op b op c ...`` with RAPID's precedence: ``* / DIV MOD`` before ``+ -`` (left to right)."""
        operands = [node.children[0]] + node.children[2::2]
        ops = [str(op.children[0]).lower() for op in node.children[1::2]]
        if any(op not in ("+", "-", "*", "/", "div", "mod") for op in ops):
            raise _Unsupported(f"a condition ({', '.join(sorted(set(ops)))}) is not evaluated", node)
        terms, signs = [self._number(operands[0], local)], []
        for op, operand in zip(ops, operands[1:]):
            value = self._number(operand, local)
            if op in ("+", "-"):
                terms.append(value)
                signs.append(op)
            else:
                terms[-1] = terms[-1] * value if op == "*" else self._divide(terms[-1], value, op, operand)
        total = terms[0]
        for op, value in zip(signs, terms[1:]):
            total = total + value if op == "+" else total - value
        return total

    def _number(self, node, local) -> float:
        value = self.evaluate(node, local)
        if isinstance(value, bool) or not isinstance(value, float):
            raise _Unsupported(f"expected a number, got {_describe(value)}", node)
        return value

    def literal(self, node: Tree) -> float:
        """A number literal's value; one a controller could not store (beyond 3.4e38, RAPID's ``num``) refused."""
        value = float(node.children[0])
        if not abs(value) <= NUM_MAX:
            raise self.error(f"number {node.children[0]!s} is out of range (RAPID num holds at most {NUM_MAX:.2g})", node)
        return value

    @staticmethod
    def _divide(a: float, b: float, op: str, where) -> float:
        if b == 0:
            raise _Unsupported("division by zero", where)
        if op == "/":
            return a / b
        if op == "div":
            return float(int(a) // int(b))
        return float(int(a) % int(b))

    def call_function(self, node: Tree, local) -> tuple[object, str]:
        name = str(node.children[0])
        positional, optional = self.split_args(node.children[1] if len(node.children) > 1 else None)
        key = name.lower()
        if key in ("offs", "reltool"):
            if len(positional) != 4:
                raise self.error(f"{name}: expected a robtarget and three offsets, got {len(positional)} arguments",
                                 node)
            point = self.evaluate_as(positional[0], local, "robtarget")
            d = [self._number(a, local) for a in positional[1:]]
            point = _copy(point)
            if key == "offs":
                point[0] = [point[0][i] + d[i] for i in range(3)]
                return point, "robtarget"
            R = matrix_from_quat_wxyz(point[1])
            trans = np.asarray(point[0]) + R @ np.asarray(d)
            angles = {k: 0.0 for k in ("rx", "ry", "rz")}
            for opt_name, opt_value in optional.items():
                if opt_name not in angles or opt_value is None:
                    raise _Unsupported(f"RelTool argument \\{opt_name}", node)
                angles[opt_name] = self._number(opt_value, local)
            R_new = R @ rot_x(np.radians(angles["rx"])) @ rot_y(np.radians(angles["ry"])) @ rot_z(np.radians(angles["rz"]))
            from thermocomp.geometry.rotations import quat_wxyz_from_matrix

            point[0] = [float(v) for v in trans]
            point[1] = [float(v) for v in quat_wxyz_from_matrix(R_new)]
            return point, "robtarget"
        raise _Unsupported(f"function {name} is not evaluated (only Offs and RelTool)", node)

    def evaluate_as(self, node, local, dtype: str) -> object:
        value, vtype = self.evaluate_typed(node, local)
        if vtype is not None and vtype != dtype:
            raise self.error(f"expected a {dtype}, got a {vtype}", node)
        self.check_record(value, dtype, node)
        return value

    @staticmethod
    def split_args(call_args: Tree | None) -> tuple[list, dict[str, Tree | None]]:
        """Positional arguments (trees) and optional ones (``\\name`` -> value tree or None), by lower-case name."""
        positional, optional = [], {}
        if call_args is None:
            return positional, optional
        for arg in call_args.children:
            if isinstance(arg, Tree) and arg.data == "opt_arg":
                optional[str(arg.children[0]).lower()] = arg.children[1] if len(arg.children) > 1 else None
            elif isinstance(arg, Tree) and arg.data == "cond_arg":
                raise _Unsupported(f"conditional argument \\{arg.children[0]}?", arg)
            else:
                positional.append(arg)
        return positional, optional

    # ----- statements
    def run_routine(self, routine: Tree, depth: int, local: dict[str, _Data] | None = None) -> None:
        local = {} if local is None else local
        body = next(c for c in routine.children if isinstance(c, Tree) and c.data == "body")
        self.run_body(body, local, depth)

    def run_body(self, body: Tree, local: dict[str, _Data], depth: int) -> None:
        for statement in body.children:
            try:
                if self.loops_forever(statement, body):
                    line, column = _location(statement)
                    self.notes.append(Finding("WHILE TRUE: loop forever: one cycle is one pass of its body", line,
                                              column))
                    self.run_body(statement.children[1], local, depth)
                    continue
                self.run_statement(statement, local, depth)
            except _Unsupported as exc:
                changed: set[str] = set()
                reason = self.blocker(statement, changed=changed) if isinstance(statement, Tree) \
                    and statement.data in _BRANCHES else "it"
                if reason is None:  # a branch or loop that moves nothing: kept as written, what it assigns unknown
                    line, column = _location(statement)
                    note = Finding(f"{_CONSTRUCTS[statement.data]} moves nothing and changes nothing a motion "
                                   "reads: passed over, kept as written (its time is not estimated)", line, column)
                    if note not in self.notes:
                        self.notes.append(note)
                    for key in changed:  # (assigned by a routine it calls)
                        self.assigned.setdefault(key, statement)
                elif self._quiet:  # inside a routine that moves nothing: what it does cannot change a motion
                    line, column = _location(exc.where)
                    note = Finding(f"{exc.message}; passed over: {self._quiet[-1]} moves nothing and changes nothing "
                                   "a motion reads (its time is not estimated)", line, column)
                    if note not in self.notes:
                        self.notes.append(note)
                else:
                    self.unsupported_at(exc.message if reason == "it" else f"{exc.message}: it holds {reason}",
                                        exc.where)
                self.note_skipped_motions(statement)
                if isinstance(statement, Tree):  # what it may change is not known after it
                    for node in statement.iter_subtrees():
                        self.record_change(node, local)

    def blocker(self, node: Tree, own: frozenset[str] = frozenset(), params: frozenset[str] = frozenset(),
                calling: frozenset[str] = frozenset(), changed: set[str] | None = None, path: str = "") -> str | None:
        """What in ``node`` (a statement, or a routine with its data ``own`` and parameters ``params``) moves the
        robot or changes how later motions run, with its line; None if nothing does.

        A motion or another moving instruction, ``VelSet``/``ConfL``/``ConfJ``, an interrupt, a ``GOTO``, a
        late-bound call, a call of a routine found in no module (and not ``--external``), an assignment to a
        routine's parameter (RAPID passes data by reference), recursion. The data it assigns otherwise (its
        routines' own data left out) are added to ``changed``.
        """
        changed = set() if changed is None else changed
        path = path or self.origin.get(id(node), "")
        for sub in node.iter_subtrees_topdown():
            kind = sub.data
            if kind in ("moves", "late_call", "connect_stmt", "goto_stmt", "label"):
                what = {"moves": re.match(r"\w*", sub.children[0]).group() if kind == "moves" else "",
                        "late_call": "a late-bound call (%...%)", "connect_stmt": "an interrupt "
                        "(CONNECT)", "goto_stmt": "a GOTO", "label": "a label (a GOTO target)"}[kind]
                return f"{what} at {self._at(sub, path)}"
            token = self.changed_token(sub) if kind in ("assign", "call") else None
            if token is not None:
                key = str(token).lower()
                if key in params:
                    return f"an assignment to its parameter {token} at {self._at(sub, path)}"
                if key not in own:
                    changed.add(key)
            if kind != "call" or not isinstance(sub.children[0], Token):
                continue
            name = str(sub.children[0])
            key = name.lower()
            if key in _MOVING or key in MODE_INSTRUCTIONS:
                return f"{name} at {self._at(sub, path)}"
            if key in self.external or key in PASSIVE_INSTRUCTIONS or key in SIGNAL_WAITS or key == "waittime":
                continue
            routine = self.procs.get(key)
            if routine is None:
                return f"{name} at {self._at(sub, path)}, a routine {_NOT_FOUND.format(name=name)}"
            if key in calling:
                return f"a recursive call of {name} at {self._at(sub, path)}"
            reason = self.blocker(routine, *self._routine_names(routine), calling | {key}, changed)
            if reason is not None:
                return f"{reason} (in {name}, called at {self._at(sub, path)})"
        return None

    def _at(self, node: Tree | Token, path: str) -> str:
        line = _location(node)[0]
        return f"line {line}" if not path or path == self.path else f"{path}, line {line}"

    @staticmethod
    def _routine_names(routine: Tree) -> tuple[frozenset[str], frozenset[str]]:
        """The names a routine declares itself, and its parameters' (lower case)."""
        own = frozenset(str([c for c in decl.children if isinstance(c, Token) and c.type == "NAME"][1]).lower()
                        for decl in routine.find_data("data_decl"))
        params = frozenset(str([c for c in p.children if isinstance(c, Token) and c.type == "NAME"][1]).lower()
                           for p in routine.find_data("param"))
        return own, params

    def loops_forever(self, statement: Tree | Token, body: Tree) -> bool:
        """``WHILE TRUE DO ... ENDWHILE`` as the last statement of the (last) entry routine: the production loop,
        whose every pass is one cycle (as URScript's ``while (True):``). Anywhere else the statements after it,
        or the routines after it, would never run: it stays unsupported."""
        if not (isinstance(statement, Tree) and statement.data == "while_stmt" and body is self._cycle_body
                and statement is body.children[-1]):
            return False
        condition = statement.children[0]
        return isinstance(condition, Tree) and condition.data == "name" and str(condition.children[0]).lower() == "true"

    def assign(self, statement: Tree, local: dict[str, _Data]) -> None:
        """``x := value;`` followed in order: later reads of ``x`` see the value (RoboDK sets its tool, work
        object and speed this way before the motions).

        Only a whole record (a target, tool, work object, speed, zone ...) of
        this routine or of the module, given a value that can be evaluated
        here, is followed; anything else (a ``num``, a component, an element, a
        parameter, a value not known) makes the datum changed at run time
        (:meth:`record_change`).
        """
        target, value_node = statement.children[0], statement.children[-1]
        if isinstance(target, Tree) and target.data == "component":
            self.assign_component(statement, local)
            return
        token = target.children[0] if isinstance(target, Tree) and target.data == "name" else None
        key = None if token is None else str(token).lower()
        scope = local if key in local else (self.module_data if key in self.module_data else None)
        if key is None or scope is None or key in self._params.get(id(local), ()) or scope[key].type not in RECORDS:
            self.record_change(statement, local)  # (a num, a counter: changed at run time, as before)
            return
        try:
            value = self.evaluate_as(value_node, local, scope[key].type)
        except _Unsupported:
            self.record_change(statement, local)
            return
        literal = value_node if isinstance(value_node, Tree) and value_node.data in ("aggregate", "numbers") else None
        self.give(scope, key, value, literal, statement)

    def give(self, scope: dict[str, _Data], key: str, value: object, literal: Tree | None, statement: Tree) -> None:
        """``scope[key]`` holds ``value`` from ``statement`` on (written in ``literal``, this module's text, or
        nowhere: a motion's target is then written at the motion)."""
        scope[key] = dataclasses.replace(scope[key], value=value, node=literal, origin="")
        self.assigned.pop(key, None)
        self._followed[key] = (value, self._followed.get(key, (None, statement))[1])  # the first assignment's line
        self._cache = {k: v for k, v in self._cache.items() if k[1] != key}

    def assign_component(self, statement: Tree, local: dict[str, _Data]) -> None:
        """``wobj.oframe.trans.z := 25;``: a component of a whole record of this routine or of the module, whose
        value is known, given a number or a record known here (a work object moved from constants); anything
        else makes the record changed at run time (:meth:`record_change`)."""
        target, value_node = statement.children[0], statement.children[-1]
        fields = []
        while isinstance(target, Tree) and target.data == "component":
            fields.insert(0, str(target.children[1]).lower())
            target = target.children[0]
        key = str(target.children[0]).lower() if isinstance(target, Tree) and target.data == "name" else None
        scope = local if key in local else (self.module_data if key in self.module_data else None)
        if key is None or scope is None or key in self._params.get(id(local), ()) or key in self.assigned \
                or scope[key].type not in RECORDS or scope[key].value is None:
            self.record_change(statement, local)
            return
        value = _copy(scope[key].value)  # (not a read the next cycle depends on: the component is overwritten)
        holder, dtype = value, scope[key].type
        try:
            for i, field_name in enumerate(fields):
                names = [f for f, _ in RECORDS.get(dtype, ())]
                if field_name not in names:
                    raise _Unsupported(f"component {field_name} of a {dtype}", statement)
                at, dtype = names.index(field_name), RECORDS[dtype][names.index(field_name)][1]
                if i < len(fields) - 1:
                    holder = holder[at]
                elif dtype == "num":
                    holder[at] = self._number(value_node, local)
                elif dtype in RECORDS:
                    holder[at] = self.evaluate_as(value_node, local, dtype)
                else:
                    raise _Unsupported(f"a {dtype} component is not followed", statement)
        except _Unsupported:
            self.record_change(statement, local)
            return
        self.give(scope, key, value, None, statement)

    def check_cycles(self) -> None:
        """Data of the module a cycle reads before a followed assignment gives it another value, or before a
        statement not followed (a branch passed over, ``Incr``) may change it: the next cycle reads that one."""
        changed = [(key, (None, statement)) for key, statement in self.assigned.items()
                   if key in self.module_data and key not in self._followed]
        for key, (value, statement) in [*self._followed.items(), *changed]:
            read = self._first_read.get(key)
            timing_only = self.module_data.get(key) is not None and self.module_data[key].type in ("speeddata",
                                                                                                 "loaddata")
            if read is not None and read[0] != value and not timing_only:  # (a speed changes times, not targets)
                line, column = _location(statement)
                self.unsupported_at(f"{read[1]} is read here before line {line} "
                                    f"{'may give' if value is None else 'gives'} it another value: the next "
                                    "cycle would read that one", read[1])

    def changed_token(self, statement: Tree) -> Token | None:
        """The name of the datum ``statement`` changes: an assignment's root (``p.trans.x := ...`` changes ``p``)
        or the first argument of ``Incr``/``Decr``/``Add``/``Clear``; None for anything else."""
        if statement.data == "assign":
            return self.changed_root(statement.children[0])
        if statement.data == "call" and isinstance(statement.children[0], Token) \
                and str(statement.children[0]).lower() in _MUTATING and len(statement.children) > 1:
            positional, _ = self.split_args(statement.children[1])
            if positional and isinstance(positional[0], Tree) and positional[0].data == "name":
                return positional[0].children[0]
        return None

    def record_change(self, statement: Tree, local: dict[str, _Data]) -> None:
        """The datum ``statement`` changes (an assignment, ``Incr``/``Add``/...) is changed at run time from now on.

        A parameter bound to the caller's data changes that data too (RAPID
        passes ``VAR``/``PERS``/``INOUT`` arguments by reference; a plain one
        is taken the same way, to be safe): its name is recorded as well.
        """
        self.mark_changed(self.changed_token(statement), statement, local)

    def mark_changed(self, token: Token | None, statement: Tree, local: dict[str, _Data]) -> None:
        """The datum named ``token`` (and the caller's datum a parameter of that name is bound to) is changed at run
        time from ``statement`` on."""
        if token is None:
            return
        key = str(token).lower()
        self.assigned.setdefault(key, statement)
        bound = local.get(key)
        if bound is not None:
            self.assigned.setdefault(bound.name.lower(), statement)

    @staticmethod
    def changed_root(target: Tree | Token) -> Token | None:
        """The name at the root of ``p``, ``p.trans.x`` or ``p{2}`` (None for anything else)."""
        while isinstance(target, Tree) and target.data in ("component", "index"):
            target = target.children[0]
        if isinstance(target, Tree) and target.data == "name":
            return target.children[0]
        return target if isinstance(target, Token) and target.type == "NAME" else None

    def note_skipped_motions(self, statement: Tree) -> None:
        if not isinstance(statement, Tree):
            return
        found: list[tuple[str, int]] = []  # (instruction, offset), in the order the general rules list calls
        for node in statement.iter_subtrees():
            if node.data == "call" and node is not statement:
                name = node.children[0]
                if isinstance(name, Token) and str(name).lower() in MOTIONS:
                    found.append((str(name), name.start_pos))
            elif node.data == "moves":
                token = node.children[0]
                statements = self.move_matches(token)
                found += zip(statements.texts("instr"), (token.start_pos + statements.starts("instr")).tolist())
        lines, columns = self.lines.lists([at for _, at in found])
        for (name, _), line, column in zip(found, lines, columns):
            self.notes.append(Finding(f"{name} inside an unsupported construct stays as written", line, column))

    def run_statement(self, statement: Tree, local: dict[str, _Data], depth: int) -> None:
        kind = statement.data
        if kind == "data_decl":
            self.declare(statement, local)
        elif kind == "assign":
            self.assign(statement, local)
        elif kind == "call":
            self.run_call(statement, local, depth)
        elif kind == "moves":
            first = len(self.steps)
            self.run_moves(statement.children[0], local, depth)
            self.note_conf(self.steps[first:])
        elif kind == "label":
            raise _Unsupported(f"label {statement.children[0]}: (a GOTO target) is not followed", statement)
        elif kind == "for_stmt":
            self.run_for(statement, local, depth)
        else:
            construct = _CONSTRUCTS.get(kind, kind)
            raise _Unsupported(f"{construct} is not followed (its outcome or count is not known before running)",
                               statement)

    def moves_nothing(self, routine: Tree) -> bool:
        """``routine`` (and the routines it calls) moves nothing and changes nothing a motion reads
        (:meth:`blocker`, no data but its own assigned). Its conditions and loops, which could not be followed,
        then cannot change a motion: they are passed over with a note (a gripper routine's ``IF``/``WaitDI``)."""
        changed: set[str] = set()
        name = self._routine_name(routine).lower()
        return self.blocker(routine, *self._routine_names(routine), frozenset((name,)), changed) is None \
            and not changed

    def bind_arguments(self, routine: Tree, call_args: Tree | None, local: dict[str, _Data], statement: Tree
                       ) -> dict[str, _Data]:
        """The scope a call of ``routine`` starts with: each parameter bound to its argument.

        An argument that names data passes that data on (a target then stays
        written in its declaration); any other is evaluated in the caller's
        scope (it is then written where the routine uses the parameter). A
        switch or an optional parameter left out binds nothing that can be
        evaluated. RAPID's own checks (number of arguments, names of optional
        ones, types) are errors naming the call.
        """
        params = [c for c in next((c for c in routine.children if isinstance(c, Tree) and c.data == "params"),
                                  Tree("params", [])).children]
        positional, optional = self.split_args(call_args)
        name = self._routine_name(routine)
        required, optional_params = [], {}
        for param in params:
            names = [c for c in param.children if isinstance(c, Token) and c.type == "NAME"]
            if any(isinstance(c, Tree) and c.data == "dims" for c in param.children):
                raise _Unsupported(f"{name}'s array parameter {names[1]} is not followed", statement)
            if self.text[:span_of(param).start].rstrip().endswith("\\") or self.text[span_of(param).start] == "\\":
                optional_params[str(names[1]).lower()] = names
            else:
                required.append(names)
        if len(positional) != len(required):
            raise self.error(f"{name} takes {len(required)} argument(s) "
                             f"({', '.join(str(n[1]) for n in required) or 'none'}), got {len(positional)}", statement)
        unknown = sorted(set(optional) - set(optional_params))
        if unknown:
            raise self.error(f"{name} has no optional parameter \\{unknown[0]}", statement)
        scope: dict[str, _Data] = {}
        for (type_token, param_token), node in zip(required, positional):
            scope[str(param_token).lower()] = self._argument(routine, str(type_token).lower(), param_token, node, local)
        for key, (type_token, param_token) in optional_params.items():
            node = optional.get(key)
            value = None if node is None else self._argument(routine, str(type_token).lower(), param_token, node, local)
            scope[key] = value or _Data(str(type_token).lower(), None, None, str(param_token), param_token)
        self._scopes.append(scope)
        self._params[id(scope)] = set(scope)
        return scope

    def _argument(self, routine: Tree, dtype: str, param: Token, node: Tree | Token, local: dict[str, _Data]
                  ) -> _Data:
        if isinstance(node, Tree) and node.data == "name":
            data = self.lookup(node.children[0], local)
            self._passed[node.children[0].start_pos] = (span_of(routine), str(param).lower())
            if data.type != dtype and dtype in RECORDS:
                raise self.error(f"parameter {param} is a {dtype}, got {node.children[0]}, a {data.type}", node)
            return data
        return _Data(dtype, self.evaluate_as(node, local, dtype) if dtype in RECORDS else self.evaluate(node, local),
                     None, str(param), param)

    def run_for(self, statement: Tree, local: dict[str, _Data], depth: int) -> None:
        """A FOR loop with constant bounds, unrolled: its body runs once per value of the counter.

        RAPID: without STEP the counter counts by 1, or by -1 when FROM is above
        TO (ABB, RAPID instructions, "FOR"). Each pass's motions are motions of
        their own (each gets its own time); the written program has one text per
        motion, so a motion whose target changes with the counter is not
        followed (nothing of the loop is kept then).
        A body that does not read the counter and changes nothing
        (:meth:`changes_state`) runs the same way every pass: it is followed
        once and its steps repeated.
        """
        counter, body = statement.children[0], statement.children[-1]
        start, step, passes = self.for_passes(statement, local)
        count = passes * self.unrolled(body, frozenset())
        if count > self.task.options.max_motions:  # (bounds known only here: a counter or a parameter)
            raise self.error(f"FOR with {passes:,} passes unrolls to {count:,} motions and waits: more than "
                             f"--max-motions {self.task.options.max_motions:,}", statement)
        first_step = len(self.steps)
        scopes = []  # every pass's scope stays alive: the evaluation cache keys local values by id(scope)
        same = not any(str(t).lower() == str(counter).lower() for t in body.scan_values(
            lambda v: isinstance(v, Token) and v.type == "NAME")) and not self.changes_state(body, frozenset())
        for k in range(min(passes, 1) if same else passes):
            scope = dict(local)
            scope[str(counter).lower()] = _Data("num", start + k * step, None, str(counter), counter)
            scopes.append(scope)
            self.run_body(body, scope, depth)
        if same:
            self.steps.extend(self.steps[first_step:] * max(passes - 1, 0))
            return
        self.steps[first_step:] = expand(self.steps[first_step:])  # each pass's motions, as objects
        changing = calls.changing_motion(self.steps[first_step:])
        if changing is not None:
            for dropped in self.steps[first_step:]:  # (their ids may be reused by later steps)
                self._in_call.pop(id(dropped), None)
            del self.steps[first_step:]
            raise _Unsupported(f"{changing.instruction}'s target changes with the FOR counter {counter}: one "
                               "written target cannot serve every pass", statement)

    def changes_state(self, node: Tree, calling: frozenset[str]) -> bool:
        """Whether ``node`` (or a routine of the module it calls) may leave the walk in another state: an
        assignment, ``Incr``/``Add``/..., ``VelSet``/``ConfL``/``ConfJ``, a search's found point, a late-bound
        call, recursion."""
        for sub in node.iter_subtrees_topdown():
            if sub.data in ("assign", "late_call"):
                return True
            if sub.data != "call" or not isinstance(sub.children[0], Token):
                continue
            key = str(sub.children[0]).lower()
            if key in _MUTATING or key in MODE_INSTRUCTIONS or key in calling \
                    or (key in PROCESS_MOTIONS and PROCESS_MOTIONS[key].writes is not None):
                return True
            routine = self.procs.get(key)
            if routine is not None and id(routine) not in self.origin \
                    and self.changes_state(routine, calling | {key}):
                return True
        return False

    def run_call(self, statement: Tree, local: dict[str, _Data], depth: int) -> None:
        name_token = statement.children[0]
        name = str(name_token)
        key = name.lower()
        call_args = statement.children[1] if len(statement.children) > 1 else None
        if key in MOTIONS or key in PROCESS_MOTIONS:
            self.run_motion(statement, key, local)
        elif key in ("confl", "confj"):  # \Off: the controller ignores the confdata of the motions after it
            _, optional = self.split_args(call_args)
            if "on" in optional or "off" in optional:
                self.conf_on[LINEAR if key == "confl" else JOINT] = "on" in optional
        elif key in self.external:
            pass  # declared by the user: moves nothing, changes nothing a motion reads
        elif key in self.procs and id(self.procs[key]) in self.origin:
            routine = self.procs[key]
            changed: set[str] = set()
            reason = self.blocker(routine, *self._routine_names(routine), frozenset((key,)), changed)
            if reason is not None:
                raise _Unsupported(f"{name} (a routine of {self.origin[id(routine)]}) is not followed: it holds "
                                   f"{reason}; only the program's own file is written", statement)
            for changed_key in changed:
                self.assigned.setdefault(changed_key, statement)
        elif key == "waittime":
            positional, _ = self.split_args(call_args)
            if len(positional) != 1:
                raise self.error("WaitTime: expected one time [s]", statement)
            seconds = self._number(positional[0], local)
            if seconds < 0:
                raise self.error(f"WaitTime: expected a time >= 0 s, got {seconds:g}", statement)
            self.steps.append(Wait(seconds, span_of(statement)))
        elif key == "velset":
            positional, _ = self.split_args(call_args)
            if len(positional) != 2:
                raise self.error("VelSet: expected Override [%] and Max [mm/s]", statement)
            self.velset = (self._number(positional[0], local), self._number(positional[1], local))
        elif key in self.procs:
            if depth > 32:
                raise _Unsupported(f"calls nested more than 32 deep (recursion?) at {name}", statement)
            routine = self.procs[key]
            scope = self.bind_arguments(routine, call_args, local, statement)
            self.visited.add(key)
            first = len(self.steps)
            quiet = self.moves_nothing(routine)
            self._quiet += [name] if quiet else []
            try:
                self.run_routine(routine, depth + 1, scope)
            finally:
                del self._quiet[len(self._quiet) - quiet:]
            if scope:
                self.steps[first:] = expand(self.steps[first:])  # each motion of the call, as an object
                for step in self.steps[first:]:  # the outermost call with arguments is the one named
                    self._in_call[id(step)] = (name, span_of(statement))
        elif key in UNSUPPORTED_INSTRUCTIONS:
            raise _Unsupported(f"{name} is not followed (it moves the robot or changes the frame of its motions in "
                               "a way known only while running)", statement)
        elif key in SIGNAL_WAITS:
            line, column = _location(statement)
            self.notes.append(Finding(f"{name} waits for a signal: the timing counts no wait", line, column))
        elif key in PASSIVE_INSTRUCTIONS:
            self.record_change(statement, local)
        else:
            raise _Unsupported(f"{name} is no instruction thermocomp knows and a routine {_NOT_FOUND.format(name=name)}",
                               statement)

    def run_motion(self, statement: Tree, key: str, local: dict[str, _Data]) -> None:
        """A motion: ``MoveL``, ``MoveJ``, ``MoveC``, ``MoveAbsJ``, or a process or search move (:data:`PROCESS_MOTIONS`),
        whose points, speed and tool are read as ``MoveL``'s and every other argument kept as written."""
        signature = PROCESS_MOTIONS.get(key) or _Signature(*MOTIONS[key])
        kind, n_points, first = signature.kind, signature.points, signature.first
        name_token = statement.children[0]
        positional, optional = self.split_args(statement.children[1] if len(statement.children) > 1 else None)
        if key in MOTIONS and len(positional) != n_points + 3:
            raise self.error(f"{name_token}: expected {n_points + 3} arguments (point(s), speed, zone, tool), "
                             f"got {len(positional)}", statement)
        if len(positional) < first + n_points + 2 + signature.after_tool:
            raise self.error(f"{name_token}: expected at least {first + n_points + 2 + signature.after_tool} "
                             f"arguments, got {len(positional)}", statement)
        if "corr" in optional:  # a sensor's path correction, known only while running (\TLoad, \Inpos: no effect)
            raise _Unsupported(f"{name_token} \\Corr is not followed", statement)
        if signature.writes is not None:  # SearchL's found point: known only while running
            self.mark_changed(self.changed_root(positional[signature.writes]), statement, local)
        tool_node = positional[len(positional) - 1 - signature.after_tool]
        positional = positional[first:first + n_points + 1] + [None, tool_node]  # (points, speed, -, tool)
        T_flange_tcp = self.frame(positional[n_points + 2], local, "tooldata")
        wobj_node = optional.get("wobj")
        T_world_frame = np.eye(4) if wobj_node is None else self.frame(wobj_node, local, "wobjdata")
        points = tuple(self.point(positional[i], local, kind, T_world_frame, T_flange_tcp) for i in range(n_points))
        speed = self.cached(positional[n_points], local, "speeddata")
        v_tcp, v_ori = float(speed[0]), float(speed[1])  # type: ignore[index]
        if not (v_tcp > 0 and v_ori > 0):
            raise self.error(f"{name_token}: the speeddata must move: expected a TCP speed and an orientation speed "
                             f"> 0, got {v_tcp:g} mm/s and {v_ori:g} deg/s", positional[n_points])
        if "v" in optional and optional["v"] is not None:
            v_tcp = self._number(optional["v"], local)
            if not v_tcp > 0:
                raise self.error(f"{name_token} \\V: expected a TCP speed > 0 mm/s, got {v_tcp:g}", optional["v"])
        override, v_max = self.velset
        v_tcp = min(v_tcp * override / 100.0, v_max)
        duration = None if optional.get("t") is None else self._number(optional["t"], local)
        if duration is not None and not duration > 0:
            raise self.error(f"{name_token} \\T: expected a time > 0 s, got {duration:g}", optional["t"])
        self.steps.append(Motion(
            instruction=str(name_token), kind=kind, points=points, statement=span_of(statement),
            name=span_of(name_token), tcp_speed=v_tcp * 1e-3, orientation_speed=np.radians(v_ori * override / 100.0),
            duration_s=duration,
        ))
        self.note_conf(self.steps[-1:])

    def note_conf(self, steps: list) -> None:
        """Whether every run of each motion statement of ``steps`` had its confdata ignored (``ConfL \\Off`` for
        linear and circular moves, ``ConfJ \\Off`` for joint moves), by the statement's offset."""
        for step in steps:
            if isinstance(step, Motion) and step.kind != ABSOLUTE_JOINT:
                free = not self.conf_on[JOINT if step.kind == JOINT else LINEAR]
                self.conf_free[step.statement.start] = self.conf_free.get(step.statement.start, True) and free
            elif isinstance(step, MotionRun):  # (the same, a run's statements together)
                starts, kinds = step.statement[:, 0], step.kind
                free = np.where(kinds == _KIND_CODE[JOINT], not self.conf_on[JOINT], not self.conf_on[LINEAR])
                moved = kinds != _KIND_CODE[ABSOLUTE_JOINT]
                for start in starts[moved & free].tolist():
                    self.conf_free.setdefault(start, True)
                self.conf_free.update(dict.fromkeys(starts[moved & ~free].tolist(), False))

    # ----- runs of plain motions (MOVES tokens)
    def move_matches(self, token: Token) -> MoveStatements:
        """The :class:`MoveStatements` of a ``MOVES`` token, split once."""
        if token.start_pos not in self._matches:
            self._matches[token.start_pos] = MoveStatements(token)
        return self._matches[token.start_pos]

    def _leaf(self, token: Token, st: MoveStatements, i: int, part: str) -> Tree:
        """Part ``part`` of statement ``i`` of a run as the general rules' tree has it: a ``name`` node, or a
        ``numbers`` node for an inline point."""
        value = st.group(i, part)
        assert value is not None
        terminal, rule = ("NUMBERS", "numbers") if value[0] == "[" else ("NAME", "name")
        leaf = token_at(self.lines, terminal, value, token.start_pos + int(st.offsets[i, _COLUMN[part]]))
        return Tree(rule, [leaf], node_meta(self.lines, leaf.start_pos, leaf.end_pos))

    def _statement_tree(self, token: Token, st: MoveStatements, i: int) -> Tree:
        """Statement ``i`` of a run as the general rules read it: ``call(NAME, call_args(...))``."""
        args = [self._leaf(token, st, i, part) for part in ("p1", "p2", "speed", "zone", "tool")
                if st.group(i, part) is not None]
        if st.group(i, "wobj") is not None:
            key = self._leaf(token, st, i, "wkey").children[0]
            value = self._leaf(token, st, i, "wobj")
            args.append(Tree("opt_arg", [key, value], node_meta(self.lines, key.start_pos - 1, value.meta.end_pos)))
        name = self._leaf(token, st, i, "instr").children[0]
        call_args = Tree("call_args", args, node_meta(self.lines, args[0].meta.start_pos, args[-1].meta.end_pos))
        return Tree("call", [name, call_args], node_meta(self.lines, name.start_pos, token.start_pos + int(st.end[i])))

    def run_moves(self, token: Token, local: dict[str, _Data], depth: int) -> None:
        """The statements of a ``MOVES`` token, as :meth:`run_motion` runs them one by one.

        Speed, tool and work object are resolved once per distinct combination
        and inline points converted together, into :class:`MotionRun` columns. A
        statement they do not read (a name that does not resolve, a number or an
        argument the instruction refuses) is run by the general rules in its
        place (:meth:`run_body`), for its finding or its error: the rest of the
        run stays columns.
        """
        st = self.move_matches(token)
        base = token.start_pos
        text = st.text
        r = len(st)
        # speed, tool and work object: each combination as written (the instruction, and its text from the speed
        # on) resolved once, in order of appearance
        shape_of = first_seen(byte_spans(st.data, st.starts("instr"), st.ends("instr")),
                              byte_spans(st.data, st.starts("speed"), st.end))
        shape_first = np.empty(int(shape_of.max()) + 1, dtype=np.int64)
        shape_first[shape_of[::-1]] = np.arange(r - 1, -1, -1)
        shapes: list[tuple | None] = []
        for i in shape_first.tolist():
            kind, count = MOTIONS[st.group(i, "instr").lower()]  # type: ignore[union-attr]
            try:
                shapes.append((*self._resolve_shape(token, st, i, local), kind, count,
                               "jointtarget" if kind == ABSOLUTE_JOINT else "robtarget"))
            except (_Unsupported, InputError, _Irregular):
                shapes.append(None)
        has_p2 = st.starts("p2") >= 0
        n_points = np.where(has_p2, 2, 1).astype(np.int64)
        # a shape that resolves, with the instruction's own count of points
        regular = np.array([0 if s is None else s[5] for s in shapes], dtype=np.int64)[shape_of] == n_points
        # the points, in order: each statement's first, then its second
        p = int(n_points.sum())
        first_point = np.cumsum(n_points) - n_points
        second = first_point[has_p2] + 1
        local_starts = np.empty(p, dtype=np.int64)
        local_ends = np.empty(p, dtype=np.int64)
        local_starts[first_point], local_ends[first_point] = st.starts("p1"), st.ends("p1")
        local_starts[second], local_ends[second] = st.starts("p2")[has_p2], st.ends("p2")[has_p2]
        point_statement = np.repeat(np.arange(r), n_points)
        part_of = np.zeros(p, dtype=bool)  # True: the statement's second point
        part_of[second] = True
        resolved_shape = [s is not None for s in shapes]
        frame_of_shape = np.cumsum(resolved_shape) - 1  # each resolved shape's index in ``frames``
        frames = tuple((s[0], s[1]) for s in shapes if s is not None)
        shape_p = shape_of[point_statement]
        frame = frame_of_shape[shape_p].astype(np.int64)
        inline = st.bytes[local_starts] == ord("[")
        dtype_of = np.array([s is not None and s[6] == "jointtarget" for s in shapes], dtype=bool)[shape_p]
        kinds = np.array([_KIND_CODE[s[4]] if s is not None else 0 for s in shapes], dtype=np.int8)[shape_of]
        speed = np.array([(s[2], s[3]) if s is not None else (0.0, 0.0) for s in shapes],
                         dtype=float).reshape(-1, 2)[shape_of]
        starts = base + st.starts("instr")
        point_starts = base + local_starts
        lines, columns = self.lines.arrays(np.concatenate([starts, point_starts]))
        text_span = np.empty((p, 4), dtype=np.int64)
        text_span[:, 0], text_span[:, 1] = point_starts, base + local_ends
        text_span[:, 2], text_span[:, 3] = lines[r:], columns[r:]
        T_world_tcp = np.full((p, 4, 4), np.nan)
        q = np.full((p, 6), np.nan)
        q_len = np.zeros(p, dtype=np.int64)
        confdata = np.zeros((p, 4), dtype=np.int64)
        has_confdata = np.zeros(p, dtype=bool)
        quat = np.full((p, 4), np.nan)
        extax = np.full(p, "", dtype=object)
        names = [""] * p
        for dtype, is_joint in (("robtarget", False), ("jointtarget", True)):
            at = np.flatnonzero(inline & (dtype_of == is_joint) & regular[point_statement])
            if not at.size:
                continue
            values, extax_at, read = _inline_values(st, dtype, local_starts[at], local_ends[at])
            regular[point_statement[at[~read]]] = False
            extax[at] = extax_at
            if is_joint:
                q[at], q_len[at] = np.radians(values[:, :6]), 6
                continue
            T_frame_tcp = transforms_from_poses(values)
            for f in np.unique(frame[at]).tolist():  # each work object's points together
                members = frame[at] == f
                T_world_tcp[at[members]] = T_frame_tcp[members] if np.array_equal(frames[f][0], np.eye(4)) \
                    else frames[f][0] @ T_frame_tcp[members]  # (the identity's product: the same bits)
            confdata[at[read]], has_confdata[at] = values[read, 7:11].astype(np.int64), True
            quat[at] = values[:, 3:7]
        argument = text_span
        named = np.zeros(r, dtype=bool)  # statements with a declared target
        named_at = np.flatnonzero(~inline & regular[point_statement])
        if named_at.size:  # each (name, statement shape) resolved once, in order of appearance
            argument = text_span.copy()
            resolved: dict[tuple[str, int], Point | None] = {}
            for i, name in zip(named_at.tolist(), (text[a:b].lower() for a, b in zip(
                    local_starts[named_at].tolist(), local_ends[named_at].tolist()))):
                statement_i = int(point_statement[i])
                if not regular[statement_i]:  # (its first point did not resolve: its second is not read)
                    continue
                key = (name, int(shape_p[i]))
                if key not in resolved:
                    shape = shapes[shape_p[i]]
                    assert shape is not None
                    try:
                        resolved[key] = self.point(self._leaf(token, st, statement_i, "p2" if part_of[i] else "p1"), local,
                                                   shape[4], shape[0], shape[1])
                    except (_Unsupported, InputError):
                        resolved[key] = None
                point = resolved[key]
                if point is None:
                    regular[statement_i] = False
                    continue
                self.direct_refs.add(int(point_starts[i]))
                named[statement_i] = True
                text_span[i] = tuple(point.text)
                names[i], extax[i] = point.name, point.extax
                if point.q is not None:
                    q[i], q_len[i] = point.q, len(point.q)
                else:
                    T_world_tcp[i] = point.T_world_tcp
                    confdata[i], has_confdata[i] = point.confdata, True
                    quat[i] = point.quat
        statement = np.empty((r, 4), dtype=np.int64)
        statement[:, 0], statement[:, 2], statement[:, 3] = starts, lines[:r], columns[:r]
        statement[:, 1] = base + st.end
        name_span = statement.copy()
        name_span[:, 1] = base + st.ends("instr")
        instruction = [st.group(i, "instr") for i in shape_first.tolist()]  # each shape's, as written
        instruction = list(map(instruction.__getitem__, shape_of.tolist()))
        extax_t, names_t = tuple(extax), tuple(names)
        # the regular statements' columns, the others run by the general rules, in order
        edges = np.flatnonzero(np.diff(regular.astype(np.int8), prepend=2, append=2))
        for a, b in zip(edges[:-1].tolist(), edges[1:].tolist()):
            if not regular[a]:
                for i in range(a, b):
                    self.run_body(Tree("body", [self._statement_tree(token, st, i)]), local, depth)
                continue
            pa, pb = int(first_point[a]), int(first_point[b - 1] + n_points[b - 1])
            run = MotionRun(
                instruction=tuple(instruction[a:b]), kind=kinds[a:b], n_points=n_points[a:b],
                statement=statement[a:b], name=name_span[a:b], tcp_speed=speed[a:b, 0],
                orientation_speed=speed[a:b, 1], joint_speed=np.full(b - a, np.inf),
                acceleration=np.full(b - a, np.inf), duration_s=np.full(b - a, np.nan), text=text_span[pa:pb],
                argument=text_span[pa:pb] if argument is text_span else argument[pa:pb],
                T_world_tcp=T_world_tcp[pa:pb], q=q[pa:pb], q_len=q_len[pa:pb], confdata=confdata[pa:pb],
                has_confdata=has_confdata[pa:pb], frames=frames, frame=frame[pa:pb], extax=extax_t[pa:pb],
                name_of_point=names_t[pa:pb], whole_argument=(None,) * (pb - pa), quat=quat[pa:pb])
            if self.progress is not None:
                for done in range(-(-self._run_count // PROGRESS_MOTIONS) * PROGRESS_MOTIONS,
                                  self._run_count + b - a, PROGRESS_MOTIONS):
                    self.progress(done, None)
            self._run_count += b - a
            if named[a:b].any():  # a declared target: its text is decided per motion (:meth:`_finish_points`), on objects
                self.steps.extend(run.motions())
            else:
                self.steps.append(run)

    def _resolve_shape(self, token: Token, st: MoveStatements, i: int, local: dict[str, _Data]) -> tuple:
        """Work object frame, tool, TCP speed [m/s] and reorientation speed [rad/s] of a run's statement."""
        T_flange_tcp = self.frame(self._leaf(token, st, i, "tool"), local, "tooldata")
        T_world_frame = np.eye(4) if st.group(i, "wobj") is None else \
            self.frame(self._leaf(token, st, i, "wobj"), local, "wobjdata")
        speed = self.cached(self._leaf(token, st, i, "speed"), local, "speeddata")
        v_tcp, v_ori = float(speed[0]), float(speed[1])  # type: ignore[index]
        if not (v_tcp > 0 and v_ori > 0):
            raise _Irregular
        override, v_max = self.velset
        v_tcp = min(v_tcp * override / 100.0, v_max)
        return T_world_frame, T_flange_tcp, v_tcp * 1e-3, np.radians(v_ori * override / 100.0)

    def cached(self, node, local, dtype: str):
        """:meth:`evaluate_as` of a plain name, evaluated once per name (tools, work objects and speeds repeat)."""
        if not (isinstance(node, Tree) and node.data == "name"):
            return self.evaluate_as(node, local, dtype)
        key = (dtype, str(node.children[0]).lower(), id(local) if str(node.children[0]).lower() in local else 0)
        if key[1] in self.assigned or key not in self._cache:
            self._cache[key] = self.evaluate_as(node, local, dtype)
        return self._cache[key]

    def frame(self, node, local, dtype: str) -> FloatArray:
        """The TCP in the flange (``tooldata``) or the object frame in the world (``wobjdata``), ``(4, 4)``."""
        value = self.cached(node, local, dtype)
        if dtype == "tooldata":
            if value[0] is not True:
                raise _Unsupported("a stationary tool (robhold FALSE) is not supported", node)
            return _T_from_pose(self._oriented(value[1], node, "tooldata tframe"))
        if value[0] is True or value[2] != "":
            raise _Unsupported("a work object held by the robot or moved by a mechanical unit is not supported", node)
        return (_T_from_pose(self._oriented(value[3], node, "wobjdata uframe"))
                @ _T_from_pose(self._oriented(value[4], node, "wobjdata oframe")))

    def _oriented(self, pose, node, what: str):
        """``pose`` if its quaternion can be normalised: one of zero norm (``[0,0,0,0]``) or not finite divided by
        zero in :func:`_T_from_pose` (a ZeroDivisionError traceback), and is an error naming the tool or work object."""
        norm = math.sqrt(sum(float(q) * float(q) for q in pose[1]))
        if not (math.isfinite(norm) and norm > 1e-9):
            raise self.error(f"{what} orientation: expected a unit quaternion [q1, q2, q3, q4], got norm {norm:.6g}",
                             node)
        return pose

    def point(self, node, local, kind: str, T_world_frame: FloatArray, T_flange_tcp: FloatArray) -> Point:
        dtype = "jointtarget" if kind == ABSOLUTE_JOINT else "robtarget"
        value = self.evaluate_as(node, local, dtype)
        text_node: Tree | Token = node
        name = ""
        element: tuple[int, int] | None = None  # the element of an array declaration that is the text
        if isinstance(node, Tree) and node.data in ("name", "index"):
            root = node if node.data == "name" else node.children[0]
            data = self.lookup(root.children[0], local) if isinstance(root, Tree) and root.data == "name" else None
            if data is not None and data.origin and data.node is not None:
                raise _Unsupported(f"{data.name} is declared in {data.origin} (line {data.declared.line}): its "
                                   "target is written there, and only the program's own file is written", node)
        if isinstance(node, Tree) and node.data == "name":
            data = self.lookup(node.children[0], local)
            name = data.name
            self.direct_refs.add(node.children[0].start_pos)
            if isinstance(data.node, Tree) and data.node.data in ("aggregate", "numbers"):
                text_node = data.node
        elif isinstance(node, Tree) and node.data == "index":
            data, i = self.element(node, local)
            name = data.name
            self.direct_refs.add(node.children[0].children[0].start_pos)
            if isinstance(data.node, Tree) and data.node.data in ("aggregate", "numbers"):
                element = self.element_span(data.node, i)
                if isinstance(data.node, Tree) and data.node.data == "aggregate":
                    text_node = data.node.children[i]
        extax_text = ""
        if element is not None and text_node is node:  # an element inside one NUMBERS token
            whole = self.text[element[0]:element[1]]
            extax_text = whole[whole.rfind("["):whole.rfind("]")].rstrip()
        elif isinstance(text_node, Tree) and text_node.data == "aggregate":
            extax_node = text_node.children[-1]
            extax_text = self.text[span_of(extax_node).start:span_of(extax_node).end]
        elif isinstance(text_node, Tree) and text_node.data == "numbers":
            whole = str(text_node.children[0])
            extax_text = whole[whole.rfind("["):whole.rfind("]")].rstrip()
        if element is not None and text_node is node:
            (line,), (column,) = self.lines.lists([element[0]])
            text_span = Span(element[0], element[1], line, column)
        else:
            text_span = span_of(text_node)
        if kind == ABSOLUTE_JOINT:
            q = np.radians(np.asarray(value[0], dtype=float))  # type: ignore[index]
            return Point(T_world_tcp=None, T_world_frame=T_world_frame, T_flange_tcp=T_flange_tcp, q=q, confdata=None,
                         text=text_span, argument=span_of(node), extax=extax_text, name=name)
        quat = np.asarray(value[1], dtype=float)  # type: ignore[index]
        if abs(np.linalg.norm(quat) - 1.0) > QUAT_NORM_TOL:
            raise self.error(f"robtarget orientation: expected a unit quaternion [q1, q2, q3, q4], "
                             f"got norm {np.linalg.norm(quat):.6g}", text_node)
        cf = value[2]  # type: ignore[index]
        if any(c != int(c) for c in cf) or not 0 <= cf[3] <= 7:
            raise self.error(f"robtarget confdata: expected integers with cfx in 0..7, got {cf}", text_node)
        T_frame_tcp = _T_from_pose(value[:2])  # type: ignore[index]
        return Point(T_world_tcp=T_world_frame @ T_frame_tcp, T_world_frame=T_world_frame, T_flange_tcp=T_flange_tcp,
                     q=None, confdata=tuple(int(c) for c in cf), text=text_span, argument=span_of(node),
                     extax=extax_text, name=name, quat=quat)


def numbers_value(text: str) -> list:
    """The nested lists of floats of a ``NUMBERS`` token (``[[515,0,712],[1,0,0,0]]``, ``.5``, ``9E+09``)."""
    try:
        return json.loads(text, parse_int=float)
    except ValueError:  # RAPID allows what JSON does not: .5, 5., +5, 09: each number rewritten as JSON first
        return json.loads(NUMBER.sub(lambda m: json.dumps(float(m.group())), text))


def _largest(value) -> float:
    """The largest magnitude in nested lists of floats (NaN if one is NaN)."""
    if isinstance(value, list):
        return max((_largest(v) for v in value), default=0.0, key=lambda x: (x != x, x))
    return abs(value)


def _inline_values(st: MoveStatements, dtype: str, starts: np.ndarray, ends: np.ndarray
                   ) -> tuple[FloatArray, list[str], np.ndarray]:
    """The numbers of a run's inline points ``st.text[starts[k]:ends[k]]`` before their external axes, ``(k, 11)``
    for robtargets (x, y, z, q1..q4, confdata) or ``(k, 6)`` for jointtargets, the text of each one's external
    axes, and which are read as :meth:`_Walker.point` reads them (the type's shape, numbers a ``num`` holds, a
    unit quaternion, integer confdata with cfx in 0..7; the others, NaN, are left to it).

    A point's shape is its brackets and commas (the grammar matched lists of numbers between them), compared with
    the type's (:data:`_SKELETONS`) among the run's delimiters (:attr:`MoveStatements.delimiters`)."""
    skeleton = _SKELETONS[dtype]
    first = np.searchsorted(st.delimiters, starts)
    read = np.searchsorted(st.delimiters, ends) - first == len(skeleton)
    shaped = np.flatnonzero(read)
    at, same = first[shaped], np.ones(shaped.size, dtype=bool)
    for k, code in enumerate(_CODES[np.frombuffer(skeleton, dtype=np.uint8)].tolist()):  # (no (k, 26) gather)
        same &= st.codes[at + k] == code
    read[shaped] = same
    good = np.flatnonzero(read)
    cuts = st.delimiters[first[good] + skeleton.rfind(b"[")]  # where each one's external axes start, and end
    closes = st.delimiters[first[good] + len(skeleton) - 2] + 1
    # each one's external axes: the few distinct texts, and which each is ("": the others, the general rules')
    encoded = byte_spans(st.data, cuts, closes).dictionary_encode()
    distinct = [e.decode("latin-1") for e in encoded.dictionary.to_pylist()] + [""]
    which = np.full(len(starts), len(distinct) - 1, dtype=np.int64)
    which[good] = encoded.indices.to_numpy(zero_copy_only=False)
    extax = np.array(distinct, dtype=object)[which].tolist()
    width = 11 if dtype == "robtarget" else 6
    values = np.full((len(starts), width), np.nan)
    if good.size:
        values[good] = parse_numbers(joined_bytes(byte_spans(st.data, starts[good], cuts))
                                     .translate(None, _NOT_NUMBER)).reshape(-1, width)
    beyond = [k for k, e in enumerate(distinct) if not all(abs(float(x)) <= NUM_MAX for x in NUMBER.findall(e))]
    if beyond:  # (external axes a num cannot hold: each distinct text checked once)
        read &= ~np.isin(which, beyond)
    with np.errstate(invalid="ignore"):
        read &= np.all(np.abs(values) <= NUM_MAX, axis=1)
        if dtype == "robtarget":  # (at the tolerance's edge too: the general rules decide)
            read &= ~(np.abs(np.linalg.norm(values[:, 3:7], axis=1) - 1.0) > QUAT_NORM_TOL * (1.0 - 1e-6))
            cf = values[:, 7:11]
            read &= np.all(cf == np.trunc(cf), axis=1) & (cf[:, 3] >= 0) & (cf[:, 3] <= 7)
    return values, extax, read


def transforms_from_poses(values: FloatArray) -> FloatArray:
    """:func:`_T_from_pose` of the rows of ``values`` ``(k, >= 7)`` (x, y, z [mm], q1..q4): the same arithmetic
    in the same order, so each transform ``(k, 4, 4)`` [m] is bit for bit that one (the batch form)."""
    x, y, z, w, a, b, c = np.asarray(values, dtype=float)[:, :7].T
    s = 1.0 / (w * w + a * a + b * b + c * c)
    out = np.zeros((len(x), 4, 4))
    out[:, 0, 0] = 1 - 2 * s * (b * b + c * c)
    out[:, 0, 1] = 2 * s * (a * b - w * c)
    out[:, 0, 2] = 2 * s * (a * c + w * b)
    out[:, 0, 3] = x * 1e-3
    out[:, 1, 0] = 2 * s * (a * b + w * c)
    out[:, 1, 1] = 1 - 2 * s * (a * a + c * c)
    out[:, 1, 2] = 2 * s * (b * c - w * a)
    out[:, 1, 3] = y * 1e-3
    out[:, 2, 0] = 2 * s * (a * c - w * b)
    out[:, 2, 1] = 2 * s * (b * c + w * a)
    out[:, 2, 2] = 1 - 2 * s * (a * a + b * b)
    out[:, 2, 3] = z * 1e-3
    out[:, 3, 3] = 1.0
    return out


def _T_from_pose(pose) -> FloatArray:
    """A RAPID ``pose`` ``[[x, y, z] mm, [q1..q4] (w, x, y, z)]`` as a transform [m].

    The quaternion is normalised (as :func:`~thermocomp.geometry.rotations.matrix_from_quat_wxyz`);
    written out in plain Python: one pose at a time, numpy's per-call cost would dominate.
    """
    (x, y, z), (w, a, b, c) = pose[0], pose[1]
    s = 1.0 / (w * w + a * a + b * b + c * c)
    return np.array([
        [1 - 2 * s * (b * b + c * c), 2 * s * (a * b - w * c), 2 * s * (a * c + w * b), x * 1e-3],
        [2 * s * (a * b + w * c), 1 - 2 * s * (a * a + c * c), 2 * s * (b * c - w * a), y * 1e-3],
        [2 * s * (a * c - w * b), 2 * s * (b * c + w * a), 1 - 2 * s * (a * a + b * b), z * 1e-3],
        [0.0, 0.0, 0.0, 1.0],
    ])


def _copy(value):
    return [_copy(v) for v in value] if isinstance(value, list) else value


def _describe(value: object) -> str:
    if isinstance(value, list):
        return f"an aggregate of {len(value)} components"
    if isinstance(value, bool):
        return "a bool"
    if isinstance(value, float):
        return f"the number {value:g}"
    if isinstance(value, str):
        return f"the string {value!r}"
    return "no value"
