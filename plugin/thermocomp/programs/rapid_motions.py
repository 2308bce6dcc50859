"""RAPID motions, one statement at a time (:meth:`_Motions.run_motion`) or a ``MOVES`` token (:data:`MOVES_PATTERN`)
in bulk (:meth:`_Motions.run_moves`): the same resolvers (:meth:`_Motions.motion_frames`,
:meth:`_Motions.motion_speed`, :meth:`_Motions.point`), in bulk once per distinct text."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
from lark import Token, Tree

from thermocomp._typing import FloatArray
from thermocomp.errors import InputError
from thermocomp.geometry.rotations import invert_transform, quat_wxyz_from_matrix
from thermocomp.programs.grammars import (
    CODES,
    NAME_BYTES,
    SPACE,
    RunStatements,
    byte_spans,
    joined_bytes,
    line_col,
    parse_at,
    parse_numbers,
    placed_node,
    skipped,
    span_of,
    without_runs,
)
from thermocomp.programs.model import (
    _KIND_CODE,
    ABSOLUTE_JOINT,
    CIRCULAR,
    JOINT,
    KINDS,
    LINEAR,
    Finding,
    Motion,
    MotionRun,
    Point,
    Span,
    point_columns,
    world_of_target,
)
from thermocomp.programs.rapid_data import (
    INT_MAX,
    NUM_MAX,
    PREDEFINED,
    _Data,
    _NotStanding,
    _T_from_pose,
    _Unsupported,
)
from thermocomp.programs.rapid_functions import evaluate_function
from thermocomp.programs.rapid_scope import USED_RESERVED
from thermocomp.programs.writer import NUMBER, extax_text
from thermocomp.tolerances import QUAT_NORM_TOL

#: Motions between two progress reports while a module is read.
PROGRESS_MOTIONS = 8192

@dataclass(frozen=True)
class _Signature:
    """Where a motion instruction's positional arguments are (ABB, "RAPID Instructions"): ``points`` points from
    index ``first``, the speed after them, the tool ``after_tool`` before the end; ``writes``: the index of an
    argument it gives a value (``SearchL``'s found point)."""

    kind: str
    points: int = 1
    first: int = 0
    after_tool: int = 0
    writes: int | None = None


def _signatures(names: str, **signature) -> dict[str, _Signature]:
    return {name.lower(): _Signature(**signature) for name in names.split()}


#: The plain motion instructions: their kind and number of points (then speed, zone, tool).
MOTIONS: dict[str, _Signature] = {**_signatures("MoveL", kind=LINEAR), **_signatures("MoveJ", kind=JOINT),
                                  **_signatures("MoveC", kind=CIRCULAR, points=2),
                                  **_signatures("MoveAbsJ", kind=ABSOLUTE_JOINT)}
#: Process and search moves: the target is compensated like MoveL's, every other argument kept as written.
PROCESS_MOTIONS: dict[str, _Signature] = {
    **_signatures("MoveLDO MoveLAO MoveLGO", kind=LINEAR, after_tool=2),
    **_signatures("MoveJDO MoveJAO MoveJGO", kind=JOINT, after_tool=2),
    **_signatures("MoveCDO MoveCAO MoveCGO", kind=CIRCULAR, points=2, after_tool=2),
    **_signatures("MoveLSync", kind=LINEAR, after_tool=1),
    **_signatures("MoveJSync", kind=JOINT, after_tool=1),
    **_signatures("MoveCSync", kind=CIRCULAR, points=2, after_tool=1),
    **_signatures("TriggL TriggLIOs ArcL ArcLStart ArcLEnd ArcL1 ArcL2 CapL PaintL SpotL SpotML DispL", kind=LINEAR),
    **_signatures("TriggJ TriggJIOs SpotJ SpotMJ", kind=JOINT),
    **_signatures("TriggC ArcC ArcCStart ArcCEnd ArcC1 ArcC2 CapC PaintC DispC", kind=CIRCULAR, points=2),
    **_signatures("SearchL", kind=LINEAR, first=2, writes=1),
    **_signatures("SearchJ", kind=JOINT, first=2, writes=1),
    **_signatures("SearchC", kind=CIRCULAR, points=2, first=2, writes=1),
}

# Digits are ``[0-9]``: in ISO-8859-1 text the same as ``\d``, which ``re`` tests as Unicode digits (slower).
_S = r"[ \t\r\n]*+"
_UNUM = r"(?:[0-9]++(?:\.[0-9]*+)?+|\.[0-9]++)(?:[eE][+-]?+[0-9]++)?+"
_NUM = rf"[+-]?+{_UNUM}"
_LIST = rf"\[{_S}{_NUM}(?:{_S},{_S}{_NUM})*+{_S}\]"
#: A name, not a reserved word (``NOT`` starts an expression; the general rules refuse the others: rapid_scope).
_NAME = rf"(?!(?i:{'|'.join(sorted(USED_RESERVED))})(?![A-Za-z0-9_]))[A-Za-z_][A-Za-z0-9_]*+"
#: ``Offs(name, dx, dy, dz)`` or ``RelTool(name, dx, dy, dz)`` of numbers written out: a named target moved along its
#: work object's axes or its tool's [mm] (RelTool's turns, ``\\Rx``..., are read by the general rules).
_THROUGH = rf"(?i:Offs|RelTool){_S}\({_S}{_NAME}{_S},{_S}{_NUM}{_S},{_S}{_NUM}{_S},{_S}{_NUM}{_S}\)"
_POINT = rf"\[{_S}{_LIST}(?:{_S},{_S}{_LIST})*+{_S}\]|{_THROUGH}|{_NAME}"
_GAP = r"(?:[ \t\f\r\n]++|![^\n]*+)++"
#: An optional argument ``\\Name:=value`` after the argument it qualifies, directly or after a comma.
_OPTION = rf"{_S}(?:,{_S})?+\\"
_MOVE = (rf"(?:(?i:MoveL|MoveJ|MoveC|MoveAbsJ))\b{_S}(?:{_POINT}){_S},{_S}(?:(?:{_POINT}){_S},{_S})?"
         rf"(?:{_NAME}|{_LIST})(?:{_OPTION}(?i:V|T){_S}:={_S}{_UNUM})?+{_S},{_S}"
         rf"(?:{_NAME}|\[{_S}(?i:TRUE|FALSE)(?:{_S},{_S}{_NUM})*+{_S}\]){_S},{_S}(?:{_NAME})"
         rf"(?:{_OPTION}(?i:WObj){_S}:={_S}(?:{_NAME}))?+{_S};")
#: A run of plain motion statements (rapid.lark's ``MOVES``): statements with whitespace and comments between.
MOVES_PATTERN = rf"{_MOVE}(?:{_GAP}{_MOVE})*+"
#: The parts of a run's statement, in the order of :attr:`MoveStatements.offsets`' columns (``okey``, ``opt``: the
#: speed's ``\\V`` or ``\\T`` and its value).
PARTS = ("instr", "p1", "p2", "speed", "zone", "tool", "wkey", "wobj", "okey", "opt")
_PART = {part: k for k, part in enumerate(PARTS)}
_COLUMN = {part: 2 * k for part, k in _PART.items()}

#: What an inline robtarget / jointtarget is, with the numbers and whitespace taken out.
_SKELETONS = {"robtarget": b"[[,,],[,,,],[,,,],[,,,,,]]", "jointtarget": b"[[,,,,,],[,,,,,]]"}
_NOT_NUMBER = b"[] \t\r\n"  # (what an inline point holds besides its numbers and commas)
_CLOSE_AS_COMMA = bytes.maketrans(b")", b",")  # (Offs's closing parenthesis ends its last number as a comma does)


class MoveStatements(RunStatements):
    """The statements of a ``MOVES`` token (:class:`~thermocomp.programs.grammars.RunStatements`), each part's
    start and end in :attr:`offsets` ``(r, 2 * len(PARTS))`` (-1 where absent): the positional arguments are the
    point(s), the speed, the zone and the tool; ``\\WObj`` and ``\\V``/``\\T`` the optional ones.

    Then what the text alone gives, found once a token however many passes run it: each statement's combination
    of instruction, speed, zone, tool and work object (``shape_of`` ``(r,)``, numbered in order of appearance;
    ``shape_first`` each one's first statement) and ``n_points``; per point ``(p,)``, in order (a statement's
    first, then its second): ``point_starts``, ``point_ends`` in the token, ``point_statement``, ``second_point``,
    ``inline`` (written inline), ``joint`` (a jointtarget, ``MoveAbsJ``'s); the inline points' ``values``
    ``(p, 11)`` (x, y, z [mm], q1..q4, confdata; a jointtarget's six angles [deg]; NaN elsewhere), ``extax`` as
    written, whether they are ``read`` (:meth:`_read_inline`), and each inline robtarget's ``T_frame_tcp``
    ``(p, 4, 4)`` [m] in its frame; per statement, its ``instruction`` as written, its ``kind``'s code and whether
    it is ``readable`` (the points its instruction takes, each inline one read, each Offs one's numbers a num's).

    And the :class:`~thermocomp.programs.model.MotionRun` columns the inline points read give whatever the data
    around them (``q`` ``(p, 6)`` [rad], ``q_len``, ``confdata``, ``has_confdata``, ``quat``), the file's
    :attr:`template` (placed, :meth:`place`): a run's reading takes them as they are (:meth:`_Motions.run_moves`).
    """

    STATEMENT = {**RunStatements.STATEMENT, "offsets": "offsets", "leaves": "", "kind": "", "readable": ""}
    POINT = {"point_starts": "offset", "point_ends": "offset", "point_statement": "index", "second_point": "",
             "inline": "", "joint": "", "through": "", "base_starts": "offset", "base_ends": "offset", "shift": ""}
    ANY = {"joints": "joint", "inlines": "inline", "throughs": "through"}

    def __init__(self, token: Token) -> None:
        super().__init__(token, "!", 0)
        b, r = self.bytes, len(self)
        offsets = np.full((r, 2 * len(PARTS)), -1, dtype=np.int64)
        offsets[:, 0], offsets[:, 1] = self.start, self.instruction_end
        optional = b[self.arg_start] == ord("\\")
        at = np.flatnonzero(~optional)  # the positional arguments: point(s), speed, zone, tool
        of = self.arg_of[at]
        first = np.searchsorted(of, np.arange(r + 1))  # (each statement's first positional argument)
        rank, n_points = np.arange(len(at)) - first[of], np.diff(first) - 3
        part = np.where(rank < n_points[of], 1 + rank, 3 + rank - n_points[of])  # (an index into PARTS)
        offsets[of, 2 * part], offsets[of, 2 * part + 1] = self.arg_start[at], self.arg_end[at]
        at = np.flatnonzero(optional)  # \WObj:=w, \V:=v, \T:=t: the key, then the value after ":="
        key = skipped(b, SPACE, self.arg_start[at] + 1)
        key_end = skipped(b, NAME_BYTES, key)
        column = np.where((b[key] | 0x20) == ord("w"), _COLUMN["wkey"], _COLUMN["okey"])
        of = self.arg_of[at]
        offsets[of, column], offsets[of, column + 1] = key, key_end
        offsets[of, column + 2] = skipped(b, SPACE, skipped(b, SPACE, key_end) + 2)
        offsets[of, column + 3] = self.arg_end[at]
        self.offsets = offsets
        # each combination as written (the instruction, and its text from the speed on), in order of appearance
        self.shape_of, self.shape_first = self.shapes(self.starts("speed"))
        both = offsets[:, _COLUMN["p1"]:_COLUMN["p2"] + 2].reshape(-1, 2)  # (2r, 2): each statement's p1, p2
        present = both[:, 0] >= 0  # (the points, in order: each statement's first, then its second)
        self.point_starts, self.point_ends = starts, stops = both[present].T
        self.point_statement = np.repeat(np.arange(r), 2)[present]
        self.second_point = np.tile([False, True], r)[present]
        self.n_points = present.reshape(-1, 2).sum(axis=1)
        p = len(starts)
        # each statement's instruction as written (its shape's first statement's) and its kind's code
        written = [self.text[a:e] for a, e in zip(self.start[self.shape_first].tolist(),
                                                   self.instruction_end[self.shape_first].tolist())]
        signatures = [MOTIONS[name.lower()] for name in written]
        self.instruction = np.array(written, dtype=object)[self.shape_of]
        self.kind = np.array([_KIND_CODE[g.kind] for g in signatures], dtype=np.int8)[self.shape_of]
        self.inline = inline = b[starts] == ord("[")
        self.joint = joint = (self.kind == _KIND_CODE[ABSOLUTE_JOINT])[self.point_statement]  # MoveAbsJ's
        self._read_through(np.flatnonzero(b[stops - 1] == ord(")")))
        self.values, self.extax = np.full((p, 11), np.nan), np.full(p, "", dtype=object)
        self.read, self.T_frame_tcp = np.zeros(p, dtype=bool), np.full((p, 4, 4), np.nan)
        for dtype in ("robtarget", "jointtarget"):
            self._read_inline(dtype, np.flatnonzero(inline & (joint == (dtype == "jointtarget"))))
        robot, joints = (inline & ~joint & self.read)[:, None], (inline & joint & self.read)[:, None]
        self.q, self.q_len = np.where(joints, np.radians(self.values[:, :6]), np.nan), np.where(joints[:, 0], 6, 0)
        self.confdata = np.where(robot, self.values[:, 7:11], 0).astype(np.int64)
        self.has_confdata, self.quat = inline & ~joint, np.where(robot, self.values[:, 3:7], np.nan)
        # whether the general rules leave a statement to the columns: it has the points its instruction takes and
        # each inline one read
        unread = np.zeros(r, dtype=bool)  # (MoveAbsJ Offs(...): refused; an Offs number beyond a num: the general rules')
        beyond = ~np.all(np.abs(self.shift) <= NUM_MAX, axis=1)
        unread[self.point_statement[inline & ~self.read | self.through & (joint | beyond)]] = True
        self.readable = (np.array([g.points for g in signatures], dtype=np.int64)[self.shape_of] == self.n_points) & ~unread

    def _read_through(self, at: np.ndarray) -> None:
        """The points ``at``, each ``Offs`` or ``RelTool(name, dx, dy, dz)`` (:data:`_THROUGH`): :attr:`through`, the name's
        :attr:`base_starts` and :attr:`base_ends` in the token (-1 elsewhere), and the three numbers as written,
        :attr:`shift` ``(p, 3)`` [mm] (NaN elsewhere; parsed as Python's ``float`` parses them)."""
        p = len(self.point_starts)
        self.through = np.zeros(p, dtype=bool)
        self.through[at] = True
        self.base_starts, self.base_ends, self.shift = np.full(p, -1), np.full(p, -1), np.full((p, 3), np.nan)
        if not at.size:
            return
        opening, comma = (self.delimiters[self.codes == CODES[ord(c)]] for c in "(,")  # (line breaks between)
        opening, first_comma = (d[np.searchsorted(d, self.point_starts[at])] for d in (opening, comma))
        self.base_starts[at] = skipped(self.bytes, SPACE, opening + 1)
        self.base_ends[at] = skipped(self.bytes, NAME_BYTES, self.base_starts[at])
        numbers = joined_bytes(byte_spans(self.data, first_comma + 1, self.point_ends[at]))  # ("dx, dy, dz)" each)
        self.shift[at] = parse_numbers(numbers.translate(_CLOSE_AS_COMMA, _NOT_NUMBER)).reshape(-1, 3)

    def _read_inline(self, dtype: str, at: np.ndarray) -> None:
        """:attr:`values`, :attr:`extax` and :attr:`read` of the inline points ``at`` of type ``dtype``: read where
        :meth:`_Motions.point` would take them (the type's brackets and commas, :data:`_SKELETONS`; numbers a ``num``
        holds, a unit quaternion, integer confdata with cfx in 0..7); the others are left to it."""
        if not at.size:
            return
        skeleton, starts, ends = _SKELETONS[dtype], self.point_starts[at], self.point_ends[at]
        first = np.searchsorted(self.delimiters, starts)
        read = np.searchsorted(self.delimiters, ends) - first == len(skeleton)
        shaped = np.flatnonzero(read)
        pos, same = first[shaped], np.ones(shaped.size, dtype=bool)
        for k, code in enumerate(CODES[np.frombuffer(skeleton, dtype=np.uint8)].tolist()):  # (no (k, 26) gather)
            same &= self.codes[pos + k] == code
        read[shaped] = same
        good = np.flatnonzero(read)
        cuts = self.delimiters[first[good] + skeleton.rfind(b"[")]  # where each one's external axes start, and end
        closes = self.delimiters[first[good] + len(skeleton) - 2] + 1
        # each one's external axes: the few distinct texts, and which each is ("": the others, the general rules')
        encoded = byte_spans(self.data, cuts, closes).dictionary_encode()
        distinct = [e.decode("latin-1") for e in encoded.dictionary.to_pylist()] + [""]
        which = np.full(len(starts), len(distinct) - 1, dtype=np.int64)
        which[good] = encoded.indices.to_numpy(zero_copy_only=False)
        extax = np.array(distinct, dtype=object)[which].tolist()
        width = 11 if dtype == "robtarget" else 6
        values = np.full((len(starts), width), np.nan)
        if good.size:
            values[good] = parse_numbers(joined_bytes(byte_spans(self.data, starts[good], cuts))
                                         .translate(None, _NOT_NUMBER)).reshape(-1, width)
        beyond = [k for k, e in enumerate(distinct) if not all(abs(float(x)) <= NUM_MAX for x in NUMBER.findall(e))]
        if beyond:  # (external axes a num cannot hold: each distinct text checked once)
            read &= ~np.isin(which, beyond)
        with np.errstate(invalid="ignore"):
            read &= np.all(np.abs(values) <= NUM_MAX, axis=1)
            if dtype == "robtarget":  # (at the tolerance's edge too: the general rules decide)
                read &= ~(np.abs(np.linalg.norm(values[:, 3:7], axis=1) - 1.0) > QUAT_NORM_TOL * (1.0 - 1e-6))
                cf = values[:, 7:11]
                read &= np.all((cf == np.trunc(cf)) & (np.abs(cf) <= INT_MAX), axis=1) & (cf[:, 3] >= 0) & (cf[:, 3] <= 7)
        self.values[at, :width], self.extax[at], self.read[at] = values, extax, read
        if dtype == "robtarget":
            with np.errstate(divide="ignore", invalid="ignore"):  # (a zero quaternion: not read, left as NaN)
                self.T_frame_tcp[at] = transforms_from_poses(values)

    def place(self, lines, shift: np.ndarray, file: int) -> None:
        """Besides the statements' rows (:meth:`RunStatements.place`): where each part of each statement stands in
        the file, ``leaves`` ``(r, len(PARTS), 6)``: its offsets, line, column, end line and end column (as lark
        places its token; anything where the part is absent); the :attr:`template`, each point's text placed."""
        super().place(lines, shift, file)
        at = shift[self.point_statement]
        bounds = self.offsets.reshape(len(self), len(PARTS), 2) + shift[:, None, None]  # (absent parts: anywhere)
        line, column = lines.arrays(bounds.clip(0))
        self.leaves = np.stack([bounds[..., 0], bounds[..., 1], line[..., 0], column[..., 0], line[..., 1],
                                column[..., 1]], axis=-1)
        self.template = MotionRun.of_columns(
            instruction=tuple(self.instruction), n_points=self.n_points, kind=self.kind, statement=self.statement_rows,
            name=self.name_rows, text=lines.spans(at + self.point_starts, at + self.point_ends), q=self.q,
            T_world_tcp=self.T_frame_tcp, q_len=self.q_len, confdata=self.confdata, has_confdata=self.has_confdata,
            quat=self.quat, extax=tuple(self.extax.tolist()), frames=(), file=file,
            text_file=np.full(len(at), file))

    def starts(self, part: str) -> np.ndarray:
        return self.offsets[:, _COLUMN[part]]

    def parts(self, i: int) -> list[str | None]:
        """The text of each part of statement ``i`` (in the order of :data:`PARTS`; None where absent)."""
        text, bounds = self.text, self.offsets[i].tolist()
        return [None if a < 0 else text[a:b] for a, b in zip(bounds[0::2], bounds[1::2])]

    def texts(self, part: str) -> list[str | None]:
        """The text of ``part`` in every statement (``None`` where absent)."""
        text = self.text
        return [text[a:b] if a >= 0 else None for a, b in self.offsets[:, _COLUMN[part]:_COLUMN[part] + 2].tolist()]

    def read(self, part: str) -> list[tuple[str | None, int]]:
        """Per statement, the text ``part`` reads in lower case (``None`` where absent; an ``Offs`` or ``RelTool``
        point's the name it moves) and where that starts in the token."""
        texts, starts = [None if t is None else t.lower() for t in self.texts(part)], self.starts(part).tolist()
        if part in ("p1", "p2"):
            for i in np.flatnonzero(self.through & (self.second_point == (part == "p2"))).tolist():
                s, a, b = int(self.point_statement[i]), int(self.base_starts[i]), int(self.base_ends[i])
                texts[s], starts[s] = self.text[a:b].lower(), a
        return list(zip(texts, starts))


#: The point columns a run's named points write (:meth:`_Motions.run_moves`), and those of them that are tuples.
_NAMED = ("text", "T_world_tcp", "q_len", "q", "confdata", "has_confdata", "quat", "extax", "name_of_point", "text_file")
_TEXTS = ("extax", "name_of_point")
_EYE = np.eye(4)  # (the world's frame: one array, read only)
_EYE.flags.writeable = False
#: The speeddata a motion whose speed is known only while running is timed with (v1000: ABB's predefined).
UNKNOWN_SPEED = (1000.0, 500.0, 5000.0, 1000.0)


class _Motions:
    """The walker's motions (mixed into ``rapid._Walker``)."""

    def run_motion(self, statement: Tree, key: str, local: dict[str, _Data]) -> None:
        """A motion statement (:data:`MOTIONS`, :data:`PROCESS_MOTIONS`: other arguments kept as written)."""
        signature = PROCESS_MOTIONS.get(key) or MOTIONS[key]
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
        if key in MOTIONS:  # (a zone written in the motion)
            zone = span_of(positional[n_points + 1])
            self.check_zone_text(self.text[zone.start:zone.end], positional[n_points + 1])
        tool_node = positional[len(positional) - 1 - signature.after_tool]
        positional = positional[first:first + n_points + 1]  # (points, speed)
        frames = self.motion_frames(tool_node, optional.get("wobj"), local)
        points = tuple(self.point(positional[i], local, kind, *frames) for i in range(n_points))
        v_tcp, v_ori, duration = self.motion_speed(name_token, positional[n_points], optional, local, fallback=True)
        self.steps.append(MotionRun.of_columns(points, instruction=str(name_token), kind=kind,
                                               statement=span_of(statement), name=span_of(name_token), tcp_speed=v_tcp,
                                               orientation_speed=v_ori, duration_s=duration, file=self.file))
        if self._unresolved:  # (its table, where its target differs from pass to pass, indexed by these)
            self.motion_counters[id(self.steps[-1])] = (self.steps[-1], *self.index_site(statement, local))

    def motion_frames(self, tool_node, wobj_node, local: dict[str, _Data]) -> tuple[FloatArray, FloatArray, bool]:
        """A motion's frame and tool, ``(4, 4)`` each, and :attr:`Point.held`: the work object frame (the world's
        without ``\\WObj``) and the TCP in the flange; with a stationary tool, the TCP in the world and the work
        object (held by the robot) in the flange; a stationary tool with a work object not held is refused."""
        T_tool, robot_tool = self.frame(tool_node, local, "tooldata")
        T_wobj, robot_wobj = (_EYE, False) if wobj_node is None else self.frame(wobj_node, local, "wobjdata")
        if robot_tool == robot_wobj:
            wobj = "wobj0" if wobj_node is None else self.text[span_of(wobj_node).start:span_of(wobj_node).end]
            tool = self.text[span_of(tool_node).start:span_of(tool_node).end]
            raise _Unsupported(
                f"tool {tool} (robhold {'TRUE' if robot_tool else 'FALSE'}) with work object {wobj} (robhold "
                f"{'TRUE' if robot_wobj else 'FALSE'}): a stationary tool needs a work object held by the robot and "
                "a work object held by the robot a stationary tool", tool_node)
        return (T_wobj, T_tool, False) if robot_tool else (T_tool, T_wobj, True)

    def motion_speed(self, name_token, speed_node, optional: dict, local: dict[str, _Data], fallback: bool
                     ) -> tuple[float, float, float | None]:
        """A motion's TCP speed [m/s], reorientation speed [rad/s] and stated time [s] (``\\T``, or None), from its
        speeddata, ``\\V``, ``\\T`` and the ``VelSet`` in force; ``fallback``: a speed known only while running is
        v1000, a ``\\V`` or ``\\T`` so known absent, each with a note, else it raises."""
        try:
            speed = self.cached(speed_node, local, "speeddata")
        except _Unsupported as exc:  # (a speed changes the time, not the target: the motion is still compensated)
            if not fallback:
                raise
            speed = UNKNOWN_SPEED
            line, column = line_col(speed_node)
            self.notes.append(Finding(f"{exc.message}: {name_token}'s speed is taken as v1000 for the timing", line,
                                      column, self.file))
        # a speeddata of numbers, no \V or \T: its speeds found once per value and VelSet (the motions repeat them)
        plain = optional.get("v") is None and optional.get("t") is None and all(type(x) is float for x in speed)
        key = ("speeds", *speed, *self.velset) if plain else None  # type: ignore[misc]
        if plain and key in self._cache:
            return self._cache[key]
        v_tcp, v_ori = float(speed[0]), float(speed[1])  # type: ignore[index]
        if not (v_tcp > 0 and v_ori > 0):
            raise self.error(f"{name_token}: the speeddata must move: expected a TCP speed and an orientation speed "
                             f"> 0, got {v_tcp:g} mm/s and {v_ori:g} deg/s", speed_node)
        self.check_motion_data("speeddata", list(speed), speed_node, f"{name_token}: ")  # type: ignore[call-overload]

        def given(key: str, instead: str) -> float | None:  # (\V, \T: None absent, or known only while running)
            if optional.get(key) is None:
                return None
            try:
                return self._number(optional[key], local)
            except _Unsupported as exc:
                if not fallback:
                    raise
                self.notes.append(Finding(f"{exc.message}: {name_token} \\{key.upper()} is taken as {instead} for "
                                          "the timing", *line_col(optional[key]), self.file))
                return None

        v_given = given("v", "absent (the speeddata's TCP speed)")
        if v_given is not None:
            v_tcp = v_given
            if not v_tcp > 0:
                raise self.error(f"{name_token} \\V: expected a TCP speed > 0 mm/s, got {v_tcp:g}", optional["v"])
            self.check_motion_data("speeddata", [v_tcp, v_ori, 0.0, 0.0], optional["v"], f"{name_token} \\V: ")
        override, v_max = self.velset
        v_tcp = min(v_tcp * override / 100.0, v_max)
        duration = given("t", "absent (the motion timed by its speed)")
        if duration is not None and not duration > 0:
            raise self.error(f"{name_token} \\T: expected a time > 0 s, got {duration:g}", optional["t"])
        found = v_tcp * 1e-3, np.radians(v_ori * override / 100.0), duration
        if plain:
            self._cache[key] = found
        return found

    def note_conf(self, steps: list) -> None:
        """Record, by statement offset, whether every run of each motion of ``steps`` had ``ConfL``/``ConfJ \\Off``."""
        # by kind code (KINDS): 1 free, 0 checked, -1 not checked (MoveAbsJ: no configuration to check)
        free = (int(not self.conf_on[LINEAR]), int(not self.conf_on[JOINT]), int(not self.conf_on[LINEAR]), -1)
        for step in steps:
            if isinstance(step, MotionRun):  # (a statement's rows in a run are of its kind: one state)
                for start, kind in zip(step.statement[:, 0].tolist(), step.kind.tolist()):
                    if free[kind] == 1:
                        self.conf_free.setdefault(start, True)
                    elif free[kind] == 0:
                        self.conf_free[start] = False

    # ----- runs of plain motions (MOVES tokens)
    def move_matches(self, token: Token) -> MoveStatements:
        """The :class:`MoveStatements` of a ``MOVES`` token, split once: at the first asked, every run of the task's
        files together (:meth:`RunStatements.runs`)."""
        if id(token) not in self._matches:  # (the tokens kept: their ids stay theirs)
            files = [([node.children[0] for node in tree.find_data("moves")], self._files[file][2], file)
                     for file, tree in enumerate(() if self._matches else self.task_trees)]
            if not any(t is token for tokens, _, _ in files for t in tokens):  # (a token of no file's tree: this one's)
                files.append(([token], self.lines, self.file))
            for tokens, lines, file in files:
                self._matches.update((id(t), (t, st)) for t, st in zip(tokens, MoveStatements.runs(tokens, lines, file)))
        return self._matches[id(token)][1]

    @staticmethod
    def hidden_moves(st: MoveStatements, procs: dict[str, Tree]) -> np.ndarray | None:
        """Which statements of a run are calls of a PROC of the task named like a motion instruction, which hides it
        (ABB "Technical reference manual - RAPID overview", "Routine scope": "a routine hides instructions and
        predefined routines and data with the same name"); None where none is (no PROC of the task is so named)."""
        if procs.keys().isdisjoint(MOTIONS):
            return None
        hidden = np.array([str(name).lower() in procs for name in st.texts("instr")], dtype=bool)
        return hidden if hidden.any() else None

    def _leaves(self, st: MoveStatements, i: int, *parts: str, texts: list[str | None] | None = None
                ) -> list[Tree | None]:
        """Parts ``parts`` of statement ``i`` of a run as the parser's nodes (``name``, ``numbers`` or ``number``;
        None where absent); ``texts``: its :meth:`MoveStatements.parts`, if found already."""
        placed, texts = st.leaves[i].tolist(), st.parts(i) if texts is None else texts
        out: list[Tree | None] = []
        for part in parts:
            k = _PART[part]
            value = texts[k]
            terminal = None if value is None else "NUMBERS" if value[0] == "[" else "NAME" if (
                value[0].isalpha() or value[0] == "_") else "NUMBER"
            out.append(None if terminal is None else placed_node(terminal.lower(), terminal, value, *placed[k]))
        return out

    def run_moves(self, token: Token, local: dict[str, _Data]) -> None:
        """The statements of a ``MOVES`` token, as :meth:`run_motion` runs them, by the same resolvers once per
        distinct text (frames and speed per shape, :meth:`point` per named point and shape); a statement they do not
        read is run by the general rules in its place (:meth:`run_body`)."""
        st, base = self.move_matches(token), token.start_pos
        shapes = [self._shape(st, i, local) for i in st.shape_first.tolist()]  # (frames, speed), or None
        resolved = [s[0] for s in shapes if s is not None]
        if len(resolved) == len(shapes):  # (each statement's frame its shape's: most runs, without numpy's per-call
            regular, frame = st.readable, st.point_shape  # cost, which a run of one statement feels)
        else:
            ok = np.array([s is not None for s in shapes], dtype=bool)
            regular, frame = ok[st.shape_of] & st.readable, (np.cumsum(ok) - 1)[st.point_shape]
        if (hidden := self.hidden_moves(st, self.procs)) is not None:  # (a call of the PROC: the general rules')
            regular = regular & ~hidden
        (motions, points), template, p = st.rows, st.template, len(frame)
        # the inline points' columns as the file's runs read them (views of the template: a regular statement's rows
        # are these; the others' rows are the general rules' and go unread), each work object's moved to the world
        cols = {"q": template.q[points, :6 if st.joints else 0]}  # (no column for a run of Cartesian targets)
        moved = [f for f, (T_world_frame, _, held) in enumerate(resolved)
                 if held or T_world_frame is not _EYE and not np.array_equal(T_world_frame, _EYE)]
        if moved:  # (the world's: the same bits)
            at = np.flatnonzero(st.inline & ~st.joint & regular[st.point_statement])
            T_frame_tcp = template.T_world_tcp[points]
            cols["T_world_tcp"] = T_frame_tcp.copy()
            for f in moved:
                members, (T_world_frame, _, held) = at[frame[at] == f], resolved[f]
                if members.size:
                    cols["T_world_tcp"][members] = world_of_target(T_world_frame, T_frame_tcp[members], held)
        at = np.zeros(0, dtype=np.int64) if st.inlines == p else np.flatnonzero(~st.inline & regular[st.point_statement])
        if len(at):  # each named or Offs/RelTool point (the named first) resolved once per text and shape; the
            regular = regular.copy()  # argument stays the statement's (written here: this reading's own)
            cols = {key: np.array(cols[key] if key in cols else getattr(template, key)[points],
                                  dtype=object if key in _TEXTS else None) for key in _NAMED}
            rows, found, which, T_moved = self._named_points(
                st, at[np.argsort(st.through[at], kind="stable")] if st.throughs else at, shapes, regular, local)
            moved = st.through[rows]
            self.direct_refs.update((self.file_key + base + st.point_starts[rows[~moved]]).tolist())
            for key, value in point_columns(found).items():
                if key in cols:
                    cols[key][(rows, slice(0, np.shape(value)[1])) if key == "q" else rows] = np.asarray(value)[which]
            cols["text"][rows[moved]] = template.text[points][rows[moved]]  # (each its own expression, not its base's)
            cols["T_world_tcp"][rows[moved]] = T_moved
            cols |= {key: tuple(cols[key].tolist()) for key in _TEXTS}
        speed = np.array([(np.nan,) * 3 if s is None else s[1] for s in shapes], dtype=float).T[:, st.shape_of]
        run = template.rows(motions, points, tcp_speed=speed[0], orientation_speed=speed[1], duration_s=speed[2],
                            frames=tuple(f[:2] for f in resolved), frame=frame,
                            held=np.array([f[2] for f in resolved] + [False], dtype=bool)[frame], **cols).compact()
        for a, b, part in run.stretches(regular):  # the regular statements' columns, the others the general rules'
            if part is None:  # (the general rules read them, as their tree has them)
                self.run_body(st.parse(without_runs("rapid.lark", "body"), self.text, self.lines, a, b), local)
                continue
            if self.progress is not None:
                for done in range(-(-self._run_count // PROGRESS_MOTIONS) * PROGRESS_MOTIONS,
                                  self._run_count + b - a, PROGRESS_MOTIONS):
                    self.progress(done, None)
            self._run_count += b - a
            self.steps.append(part)
            if self._unresolved:  # (each statement sets its own index: the FOR counters known at all)
                self.motion_counters[id(part)] = (part, None, tuple(self.for_counters_known(local).values()))

    def _shape(self, st: MoveStatements, i: int, local: dict[str, _Data]) -> tuple | None:
        """Statement ``i``'s frames and speed, or None where they do not resolve."""
        texts = st.parts(i)
        option = texts[_PART["okey"]]
        tool, wobj, speed, value = self._leaves(st, i, "tool", "wobj", "speed", "opt", texts=texts)
        try:
            self.check_zone_text(texts[_PART["zone"]] or "", speed)  # (refused by run_motion, at its place)
            return (self.motion_frames(tool, wobj, local),
                    self.motion_speed(texts[_PART["instr"]], speed, {} if option is None else {option.lower(): value},
                                      local, fallback=False))
        except (_Unsupported, InputError):
            return None

    def _named_points(self, st: MoveStatements, at: np.ndarray, shapes: list, regular: np.ndarray,
                      local: dict[str, _Data]) -> tuple[np.ndarray, list[Point], np.ndarray, FloatArray]:
        """The run's named and ``Offs``/``RelTool(name, dx, dy, dz)`` points ``at`` (the named first), each read by
        :meth:`_resolved` once per shape and text (an Offs: per function, name and place); an Offs point's value is
        then the same function (:func:`.rapid_functions.evaluate_function`) of that name's value and its own numbers,
        its ``T_world_tcp`` composed as :meth:`point` composes it, in bulk. Returns the rows read, the distinct
        points, each row's among them and the ``T_world_tcp`` ``(k, 4, 4)`` [m] of its Offs rows, in order; a
        statement with a point not so read is cleared from ``regular``."""
        resolved: dict[tuple[str, str, int, bool], int | None] = {}
        rows, found, which, bases = [], [], [], []
        for i in at.tolist():
            s, through = int(st.point_statement[i]), bool(st.through[i])
            if not regular[s]:  # (a point before it did not resolve: the general rules read the statement)
                continue
            function, _, name = st.text[st.point_starts[i]:(st.base_ends if through else st.point_ends)[i]].partition("(")
            key = (function.rstrip().lower(), name.lstrip().lower(), int(st.shape_of[s]), through and bool(st.second_point[i]))
            if key not in resolved:
                got = self._resolved(st, s, bool(st.second_point[i]), key[0] if through else None, shapes[key[2]][0], local)
                resolved[key] = None if got is None else len(found)
                found += [] if got is None else [got[0]]
                bases += [] if got is None else [got[1]]
            if resolved[key] is None:
                regular[s] = False
            else:
                rows.append(i)
                which.append(resolved[key])
        rows, which = np.array(rows, dtype=np.int64), np.array(which, dtype=np.int64)
        kept = ~st.through[rows] | regular[st.point_statement[rows]]  # (an Offs point cleared by a later point of its
        rows, which = rows[kept], which[kept]  # statement: not evaluated)
        moved = np.flatnonzero(st.through[rows])
        values = [evaluate_function(function, [base, *d], {})[0]
                  for (function, base), d in zip((bases[w] for w in which[moved].tolist()), st.shift[rows[moved]].tolist())]
        T = transforms_from_poses(np.array([[*value[0], *value[1]] for value in values]).reshape(-1, 7))  # type: ignore[index]
        shape = st.shape_of[st.point_statement[rows[moved]]]
        for f in dict.fromkeys(shape.tolist()):
            T_world_frame, _, held = shapes[f][0]
            T[shape == f] = world_of_target(T_world_frame, T[shape == f], held)
        return rows, found, which, T

    def _resolved(self, st: MoveStatements, s: int, second: bool, function: str | None, frames: tuple,
                  local: dict[str, _Data]) -> tuple[Point, tuple[str, object] | None] | None:
        """Statement ``s``'s first point (its second where ``second``) read by :meth:`point`, and of an ``Offs`` or
        ``RelTool`` point (``function``: read from the statement's parse) the function and the value of the name it
        moves; None where the general rules read it otherwise (a whole argument, another frame, a name passed at a
        call site, :meth:`through_call_site`; a FUNC of the task of the function's name) or do not."""
        name = None
        if function is None:
            node = self._leaves(st, s, "p2" if second else "p1")[0]
        elif function in self.funcs:
            return None
        else:
            call = st.parse(without_runs("rapid.lark", "body"), self.text, self.lines, s, s + 1).children[0]
            node = self.split_args(call.children[1])[0][int(second)]
            name = node.children[1].children[0]  # (the function's first argument)
        try:
            if name is not None and self.passed_at_call_site(self.lookup(name.children[0], local)):
                return None
            point = self.point(node, local, KINDS[st.kind[s]], *frames)
            base = None if name is None else (function, self.evaluate(name, local))
        except (_Unsupported, InputError):
            return None
        return (point, base) if point.whole_argument is None and point.T_world_frame is frames[0] else None

    # ----- where the robot stands (CRobT, CJointT)
    def standing_value(self, node: Tree, local) -> tuple[list, str]:
        """``CRobT(\\Tool \\WObj)`` or ``CJointT()``: where the robot stands, known where the motion before it in its
        sequence (:attr:`stand_from`) goes to a known target and stops there (zone ``fine``, no ``\\Conc``): that
        target, a robtarget in the tool and work object asked for (default: the motion's, the active ones) or that
        motion's joints; else :class:`_Unsupported` saying why. A motion reading it is written with its absolute
        corrected target (the value is an expression's: docs/programs.md, "Relative targets")."""
        name, key = str(node.children[0]), str(node.children[0]).lower()
        positional, optional = self.split_args(node.children[1] if len(node.children) > 1 else None)
        asked = {k for k in optional if k not in (("tool", "wobj") if key == "crobt" else ())}
        line = line_col(node)[0]
        if positional or asked:
            other = "\\" + str(next(a.children[0] for a in node.children[1].children if isinstance(a, Tree)
                                      and str(a.children[0]).lower() in asked)) if asked else "an argument"
            raise _Unsupported(f"{name} with {other} is not followed (only where this task's robot stands, after a "
                               "motion of the program to a known target)", node)
        motion = next((step.take([len(step) - 1]).motions()[0] for step in reversed(self.steps[self.stand_from:])
                       if isinstance(step, MotionRun)), None)
        if self.path_cut is not None:  # (ClearPath: the motion before it may have been cut short anywhere)
            why = f"{self.path_cut} may cut the motions short at any time (ClearPath): where the robot stands is not known"
        elif self.unsupported:  # (a motion left as written, or a construct not followed, may have moved the robot since)
            at = self.unsupported[0]
            why = f"a construct before it is not followed (line {at.line}): where the robot stands is not known"
        elif motion is None:
            why = ("no motion comes before it in its sequence (the start of the cycle, of a loop's pass, of a branch, "
                   "after a label or after a construct whose path is known only while running: the robot stands where "
                   "a motion known only while running left it)")
        else:
            why = self._stop_why(motion)
            point = motion.points[-1]
            if why is None and key == "crobt" and point.T_world_tcp is None:
                why = (f"the {motion.instruction} at line {motion.line} before it goes to a joint target: where the robot "
                       "stands is the forward kinematics of its joints, which thermocomp does not compute while reading "
                       "(the program is read without the robot model)")
            elif why is None and key == "cjointt" and point.T_world_tcp is not None:
                why = (f"the {motion.instruction} at line {motion.line} before it goes to a robtarget: the joints the "
                       "robot stands at are its inverse kinematics, which thermocomp does not compute while reading")
            elif why is None and point.held:
                why = f"the {motion.instruction} at line {motion.line} before it moves a work object to a stationary tool"
        if why is not None:
            raise _NotStanding(f"{name}() at line {line} is where the robot stands, not known before running: {why}",
                               node)
        self._stood_reads += 1
        self.note_once(Finding(f"{name}() is the target of the {motion.instruction} at line {motion.line} (a stop "
                               "point): the motion reading it is compensated from that target and written with its "
                               "absolute corrected target in place of the relative expression", *line_col(node),
                               self.file))
        extax = [float(x) for x in NUMBER.findall(point.extax)]
        extax = extax if len(extax) == 6 else [9e9] * 6
        if key == "cjointt":
            return [np.degrees(point.q[:6]).tolist(), extax], "jointtarget"
        T_tool, T_wobj = point.T_flange_tcp, point.T_world_frame  # (the active tool and work object: the motion's)
        if "tool" in optional:
            T_tool, robot_holds = self.frame(optional["tool"], local, "tooldata")
            if not robot_holds:
                raise _Unsupported(f"{name} of a stationary tool is not followed", optional["tool"])
        if "wobj" in optional:
            T_wobj, held = self.frame(optional["wobj"], local, "wobjdata")
            if held:
                raise _Unsupported(f"{name} in a work object the robot holds is not followed", optional["wobj"])
        T = invert_transform(T_wobj) @ point.T_world_tcp @ invert_transform(point.T_flange_tcp) @ T_tool
        quat = quat_wxyz_from_matrix(T[:3, :3])
        if point.quat is not None and float(np.dot(quat, point.quat)) < 0:  # (the signs the target was written with)
            quat = -quat
        return [(T[:3, 3] * 1e3).tolist(), quat.tolist(), [float(c) for c in point.confdata or (0, 0, 0, 0)],
                extax], "robtarget"

    def _stop_why(self, motion: Motion) -> str | None:
        """Why the robot does not stand at the target of ``motion`` (of :data:`MOTIONS`) when the statements after it
        run: a zone (it never stands there: CRobT reads a point of the corner path), ``\\Conc`` (they run while it
        moves), a zone not known here; None where it stops there (``fine``, or a zonedata with ``finep`` TRUE)."""
        said = f"the {motion.instruction} at line {motion.line} before it"
        signature = MOTIONS.get(motion.instruction.lower())
        if signature is None:
            return f"{said} is a process or search move: where it stops is not followed"
        _, text, lines = self._files[motion.file]
        key = ("stop", motion.file, motion.statement.start)  # (each statement parsed once: a loop reads it each pass)
        if key not in self._cache:
            tree = parse_at(without_runs("rapid.lark", "body"), text, motion.statement.start, motion.statement.end,
                            lines)
            self._cache[key] = self.split_args(next(tree.find_data("call")).children[1])
        positional, optional = self._cache[key]
        if "conc" in optional:
            return f"{said} runs with \\Conc: the statements after it run while the robot moves"
        zone = positional[signature.points + 1]
        zone_text = text[span_of(zone).start:span_of(zone).end]
        value = None
        if zone_text.lower() in PREDEFINED and zone_text.lower() not in self.module_data:  # (fine, z0 ... z200)
            value = [zone_text.lower() == "fine"]
        else:  # (a zonedata of the task, declared or written there)
            try:
                with self.not_reading(), self.in_file(motion.file, motion.statement.start):
                    value = self.evaluate(zone, None)
            except _Unsupported:
                pass
        if isinstance(value, list) and value and value[0] is True:
            return None
        if isinstance(value, list) and value and value[0] is False:
            return (f"{said} ends in zone {zone_text}, not at a stop point (fine): the robot never stands at its target "
                    "(CRobT reads a point of its corner path, known only while running)")
        return f"{said} ends in zone {zone_text}, not known here: whether the robot stops at its target is not known"

    def calc_joint_t(self, node: Tree, local) -> Point:
        """``CalcJointT(robtarget, tool \\WObj:=wobj)`` as a ``MoveAbsJ``'s target: the robtarget's point, the whole
        call the argument a joint target replaces."""
        positional, optional = self.split_args(node.children[1] if len(node.children) > 1 else None)
        if len(positional) != 2:
            raise self.error(f"{node.children[0]}: expected a robtarget and a tool, got {len(positional)} "
                             "argument(s)", node)
        other = [str(arg.children[0]) for arg in node.children[1].children  # (as written)
                 if isinstance(arg, Tree) and arg.data == "opt_arg" and str(arg.children[0]).lower() != "wobj"]
        if other:  # \UseCurWObjPos (a moving work object's position now), \ErrorNumber: known only while running
            raise _Unsupported(f"{node.children[0]} \\{other[0]} is not followed", node)
        frames = self.motion_frames(positional[1], optional.get("wobj"), local)
        point = self.point(positional[0], local, LINEAR, *frames)
        return dataclasses.replace(point, whole_argument=span_of(node))

    def point(self, node, local, kind: str, T_world_frame: FloatArray, T_flange_tcp: FloatArray, held: bool
              ) -> Point:
        """A motion's point: its value, and where it is written (maybe in another file of the task)."""
        if kind == ABSOLUTE_JOINT and isinstance(node, Tree) and node.data == "func_call" \
                and str(node.children[0]).lower() == "calcjointt":
            return self.calc_joint_t(node, local)
        dtype = "jointtarget" if kind == ABSOLUTE_JOINT else "robtarget"
        value = self.evaluate_as(node, local, dtype)
        through = self.through_call_site(node, local, kind, T_world_frame, T_flange_tcp, held)
        if through is not None:  # (Offs of a target written at the call site: written there)
            return through
        data, path = None, ()
        if isinstance(node, Tree) and node.data == "name":
            data = self.lookup(node.children[0], local)
            self.direct_refs.add(self.file_key + node.children[0].start_pos)
        elif isinstance(node, Tree) and node.data == "index":
            data, path = self.element(node, local)
            self.direct_refs.add(self.file_key + node.children[0].children[0].start_pos)
        declared = data is not None and isinstance(data.node, Tree) and data.node.data in ("aggregate", "numbers")
        with self.in_file(data.file if declared else self.file, None):  # (the text is the declaration's)
            text_node, in_numbers = data.node if declared and not path else node, False
            if declared and path:  # (in_numbers: an element of an array written as one NUMBERS token)
                a, b, sub = self.element_span(data.node, path)
                text_node, in_numbers = (node, True) if sub is None else (sub, False)
            text_span = Span(a, b, *np.stack(self.lines.arrays([a]))[:, 0].tolist()) if in_numbers else span_of(text_node)
            extax = ""  # (an aggregate's last element; the last bracket of numbers)
            if isinstance(text_node, Tree) and text_node.data == "aggregate":
                last = span_of(text_node.children[-1])
                extax = self.text[last.start:last.end]
            elif in_numbers or isinstance(text_node, Tree) and text_node.data == "numbers":
                whole = self.text[text_span.start:text_span.end]
                extax = whole[whole.rfind("["):whole.rfind("]")].rstrip()
            else:  # (no text holds it: a VAR declared without a value, a value computed: the value's, as it holds it)
                extax = extax_text(value[-1])  # type: ignore[index]
            written = dict(T_world_frame=T_world_frame, T_flange_tcp=T_flange_tcp, text=text_span, argument=span_of(node),
                           extax=extax, name="" if data is None else data.name, held=held, file=self.file)
            if kind == ABSOLUTE_JOINT:
                return Point(T_world_tcp=None, q=np.radians(np.asarray(value[0], dtype=float)), confdata=None, **written)
            quat = np.asarray(value[1], dtype=float)  # type: ignore[index]
            if abs(np.linalg.norm(quat) - 1.0) > QUAT_NORM_TOL:
                raise self.error(f"robtarget orientation: expected a unit quaternion [q1, q2, q3, q4], "
                                 f"got norm {np.linalg.norm(quat):.6g}", text_node)
            cf = value[2]  # type: ignore[index]
            if not all(abs(c) <= INT_MAX and c == int(c) for c in cf) or not 0 <= cf[3] <= 7:
                raise self.error(f"robtarget confdata: expected whole numbers within +-{INT_MAX:,} with cfx in 0..7, got "
                                 f"[{', '.join(f'{c:g}' for c in cf)}]", text_node)
            return Point(T_world_tcp=world_of_target(T_world_frame, _T_from_pose(value[:2])[None], held)[0], q=None,
                         confdata=tuple(int(c) for c in cf), quat=quat, **written)  # type: ignore[index]


def transforms_from_poses(values: FloatArray) -> FloatArray:
    """:func:`_T_from_pose` of the rows of ``values`` ``(k, >= 7)`` (x, y, z [mm], q1..q4): the same arithmetic
    in the same order, so each transform ``(k, 4, 4)`` [m] is bit for bit that one (the batch form)."""
    x, y, z, w, a, b, c = np.asarray(values, dtype=float)[:, :7].T
    s = 1.0 / (w * w + a * a + b * b + c * c)
    zero = np.zeros_like(x)
    return np.stack([1 - 2 * s * (b * b + c * c), 2 * s * (a * b - w * c), 2 * s * (a * c + w * b), x * 1e-3,
                     2 * s * (a * b + w * c), 1 - 2 * s * (a * a + c * c), 2 * s * (b * c - w * a), y * 1e-3,
                     2 * s * (a * c - w * b), 2 * s * (b * c + w * a), 1 - 2 * s * (a * a + b * b), z * 1e-3,
                     zero, zero, zero, zero + 1.0], axis=-1).reshape(-1, 4, 4)


