"""URScript's motions: ``movej``/``movel``/``movep``/``movec`` (``servoc``, ``optimovej``, ``optimovel``) resolved
into the program model, one statement at a time (:meth:`Motions.run_motion`) or a ``MOVES`` token
(:data:`MOVES_PATTERN`) in bulk (:meth:`Motions.run_moves`), by one resolver (:func:`motion_parameters`). A
statement the columns do not take goes to the general rules.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import replace

import numpy as np
from lark import Token, Tree

from thermocomp.errors import InputError
from thermocomp.geometry.rotations import matrix_from_rotvec, rotvec_from_matrix, transform
from thermocomp.programs.grammars import (
    CODES,
    NAME_BYTES,
    SPACE,
    RunStatements,
    line_col,
    nodes_at,
    parse_numbers,
    skipped,
    span_of,
    without_runs,
)
from thermocomp.programs.model import (
    _KIND_CODE,
    CIRCULAR,
    JOINT,
    LINEAR,
    MAX_MOTION_VALUE,
    Finding,
    MotionRun,
    Point,
)
from thermocomp.programs.urscript_values import (
    MAX_POSE_VALUE,
    Pose,
    Record,
    Unsupported,
    split_arguments,
)

#: Motion functions: kind, number of points, default acceleration and speed (URScript manual).
MOTIONS = {
    "movej": (JOINT, 1, 1.4, 1.05),
    "movel": (LINEAR, 1, 1.2, 0.25),
    "movep": (LINEAR, 1, 1.2, 0.25),
    "movec": (CIRCULAR, 2, 1.2, 0.25),
    "servoc": (LINEAR, 1, 1.2, 0.25),  # (the manual: as movep, "circular in tool-space", to one pose)
    "optimovej": (JOINT, 1, 0.3, 0.3),  # (SW 5.21: as movej and movel, ``a`` and ``v`` fractions of the
    "optimovel": (LINEAR, 1, 0.3, 0.3),  # robot's limits, not speeds: timed at those limits, a lower bound)
}
#: Their parameters in order (positional arguments), after the point(s).
PARAMETERS = {"movej": ("a", "v", "t", "r"), "movel": ("a", "v", "t", "r"), "movep": ("a", "v", "r"),
              "movec": ("a", "v", "r", "mode"), "servoc": ("a", "v", "r"), "optimovej": ("a", "v", "r"),
              "optimovel": ("a", "v", "r")}

# One plain motion of a ``MOVES`` token, written once. Every repetition is possessive (linear in the text); a name
# is a variable, not one of URScript's keywords (the general rules refuse those).
_US = r"[ \t\r]*+"
_NUM = r"[-+]?+(?:[0-9]++(?:\.[0-9]*+)?+|\.[0-9]++)(?:[eE][+-]?+[0-9]++)?+"
_NAME = (r"(?!(?:and|break|continue|def|elif|else|end|global|halt|if|join|kill|local|not|or|pass|return|run|sec"
         r"|thread|while|xor)(?![A-Za-z0-9_]))[A-Za-z_][A-Za-z0-9_]*+")
_LITERAL = rf"\[{_US}{_NUM}(?:{_US},{_US}{_NUM})*+{_US}\]"
_MOVE = (rf"(?:movel|movej|movep)\((?:p?+{_LITERAL}|pose_trans\({_US}{_NAME}{_US},{_US}p{_LITERAL}{_US}\))"
         rf"(?:{_US},{_US}(?:[avtr]{_US}={_US})?+(?:{_NUM}|{_NAME}))*+{_US}\)")
#: A PolyScope step line (``$ 3 "MoveJ"``, the grammar's ``step``: it does nothing) between two motions is part of
#: the gap: one run, not a run a motion (a run costs some 0.2 ms besides its statements: docs/programs.md).
_STEP = r"""\$[ \t\f\r]*+(?:[0-9]++(?:\.[0-9]*+)?+|\.[0-9]++)(?:[eE][+-]?+[0-9]++)?+(?:[ \t\f\r]*+(?:"[^"\n]*+"|'[^'\n]*+'))++"""
_GAP = rf"(?:[ \t\f\r]*+(?:{_STEP}[ \t\f\r]*+)?+(?:#[^\n]*+)?+\n)++[ \t\f\r]*+"
#: A run of plain motions (the grammar's ``MOVES``): one a line, ``movel``, ``movej`` or ``movep`` of a literal pose
#: or joint list, or of ``pose_trans(frame, p[...])``, then numbers or names, positional or as ``a=``, ``v=``, ...
MOVES_PATTERN = rf"{_MOVE}(?:{_GAP}{_MOVE})*+"
_NOT_NUMBER = b"p[] \t\r"  # (what a point holds besides its numbers and commas)
#: The columns of :attr:`Statements.spans`: start and end of the name, the point and the arguments, then the end,
#: start and end of the frame's name (-1: none) and of the literal (the pose or joints written).
NAME, POINT, ARGS, END, FRAME, LITERAL = 0, 2, 4, 6, 7, 9


class Refused(Exception):  # noqa: N818
    """Arguments a motion refuses: ``args`` the message naming the first, and its name (None: the call)."""


def motion_parameters(name: str, positional: list[float], keywords: dict[str, float]
                      ) -> tuple[str, float, float, float, float | None]:
    """Kind, TCP speed [m/s], joint speed [rad/s] (inf where the other is the motion's), acceleration [m/s^2 or
    rad/s^2] and stated duration [s] (or None) of the motion ``name`` given the numbers after its point(s), as the
    URScript manual defines its parameters and defaults (an ``optimove``'s ``a`` and ``v`` are fractions of the
    limits: inf, the datasheet's joint speeds time it).
    :class:`Refused` where the controller refuses them (too many, an unknown name, ``a`` or ``v`` not above 0 or
    above :data:`MAX_MOTION_VALUE` (an ``optimove`` one above 1: a fraction), ``t`` below 0, ``r`` outside 0 to
    :data:`MAX_MOTION_VALUE` m).
    """
    kind, n_points, a_default, v_default = MOTIONS[name]
    parameters = PARAMETERS[name]
    if len(positional) > len(parameters):
        raise Refused(f"{name}: expected at most {n_points + len(parameters)} arguments ({n_points} target(s), "
                      f"{', '.join(parameters)}), got {n_points + len(positional)}", None)
    given = dict(zip(parameters, positional))
    given.update(keywords)
    unknown = set(given) - set(parameters)
    if unknown:
        raise Refused(f"{name}: unknown argument(s) {sorted(unknown)}", None)
    a, v, t, r = given.get("a", a_default), given.get("v", v_default), given.get("t", 0.0), given.get("r", 0.0)
    high, units = (1.0, ("(a fraction of the robot's limit)",) * 2) if name.startswith("optimove") else \
        (MAX_MOTION_VALUE, ("rad/s^2", "rad/s") if kind == JOINT else ("m/s^2", "m/s"))
    for key, value, unit in (("a", a, units[0]), ("v", v, units[1])):
        if not value > 0:
            raise Refused(f"{name}: expected {key} > 0, got {value:g}", key)
        if not value <= high:  # (inf from 1e308*10: a motion of no time)
            raise Refused(f"{name}: expected {key} of at most {high:g} {unit}, got {value:g}", key)
    if not t >= 0:
        raise Refused(f"{name}: expected t >= 0 s, got {t:g}", "t")
    if not 0 <= r <= MAX_MOTION_VALUE:  # (NaN, inf, a negative radius: read and written as if none)
        raise Refused(f"{name}: expected a blend radius r from 0 to {MAX_MOTION_VALUE:g} m, got {r:g}", "r")
    if name.startswith("optimove"):
        a = v = math.inf
    joint = kind == JOINT
    return kind, math.inf if joint else v, v if joint else math.inf, a, t if t > 0 else None


def _arguments(args: str) -> list[tuple[int, str | None, int, float | str]]:
    """A run's statement's arguments as written after its point (``", a=1.2, v=speed"``): each one's offset in
    ``args``, keyword (or None), its value's offset and its value, a number or the name of a variable."""
    found, at = [], args.find(",") + 1
    for arg in args.split(",")[1:]:
        key, equal, text = arg.rpartition("=")
        value_at = at + len(key + equal) + len(text) - len(text.lstrip())
        text = text.strip()
        found.append((at + len(arg) - len(arg.lstrip()), key.strip() or None, value_at,
                      text if text[0].isalpha() or text[0] == "_" else float(text)))
        at += len(arg) + 1
    return found


class Statements(RunStatements):
    """The statements of a ``MOVES`` token (:class:`~thermocomp.programs.grammars.RunStatements`) and what their
    text alone gives: ``spans`` ``(k, 11)`` (:data:`NAME`, ...); ``shape_of``, ``shape_first`` (``RunStatements.shapes``
    from the arguments on), ``parsed`` each shape's :func:`_arguments`; ``values`` ``(k, 6)`` each literal's six
    numbers (NaN where not six within range), ``T_literal`` ``(k, 4, 4)`` each literal pose's transform [m] (NaN
    else); ``framed`` ``(k,)``: ``pose_trans(frame, p[...])``, ``is_pose``: its literal is a pose (``p[...]``);
    ``names``: ``(offset in the token, name)`` read; the file's :attr:`template` (placed, :meth:`place`).
    """

    STATEMENT = {**RunStatements.STATEMENT, "spans": "offsets", "values": "", "literal": "", "framed": "",
                 "is_pose": ""}
    ANY = {"n_framed": "framed", "n_poses": "is_pose"}

    def __init__(self, token: Token) -> None:
        super().__init__(token, "#", 1)
        data, b, at, code, k = self.data, self.bytes, self.delimiters, self.codes, len(self)
        opens, ends = self.instruction_end, self.end - 1  # each statement's "(" and ")"
        lists, list_ends = at[code == CODES[ord("[")]], at[code == CODES[ord("]")]] + 1  # (one literal a statement)
        framed = b[opens + 2] == ord("o")  # "(pose_trans(", not "(p[" or "(["
        literal = np.where(b[lists - 1] == ord("p"), lists - 1, lists)
        point_end = self.arg_end[np.searchsorted(self.arg_of, np.arange(k))]  # (each statement's first argument's)
        frame = np.full(k, -1, dtype=np.int64)
        frame_end = frame.copy()
        frame[framed] = skipped(b, SPACE, opens[framed] + 12)  # (after "(pose_trans(")
        frame_end[framed] = skipped(b, NAME_BYTES, frame[framed])
        spans = np.stack([self.start, opens, opens + 1, point_end, point_end, skipped(b, SPACE, ends, -1), ends + 1,
                          frame, frame_end, literal, list_ends], axis=1)
        shape_of, shape_first = self.shapes(point_end)
        parsed = [_arguments(token[a:b]) for a, b in spans[shape_first][:, ARGS:ARGS + 2].tolist()]
        # the literals of six numbers within range, parsed together
        literals = spans[:, LITERAL:LITERAL + 2].tolist()
        six = np.fromiter((data.count(b",", a, b) == 5 for a, b in literals), dtype=bool, count=k)
        values = np.full((k, 6), np.nan)
        good = np.flatnonzero(six)
        if good.size:
            values[good] = parse_numbers(b",".join([data[a:b] for a, b in (literals[i] for i in good.tolist())] + [b""])
                                         .translate(None, _NOT_NUMBER)).reshape(-1, 6)
        with np.errstate(invalid="ignore"):
            values[~np.all(np.abs(values) <= MAX_POSE_VALUE, axis=1)] = np.nan  # (NaN, inf: not <=)
        self.literal = ~np.isnan(values[:, 0])  # (the columns read it)
        T = np.full((k, 4, 4), np.nan)
        rows = np.flatnonzero((b[literal] == ord("p")) & ~np.isnan(values[:, 0]))
        if rows.size:
            T[rows] = transform(matrix_from_rotvec(values[rows, 3:]), values[rows, :3])
        # the names read: each framed statement's frame, and the names among each shape's arguments where they stand
        names = [(int(a), token[a:b]) for a, b in spans[framed][:, FRAME:FRAME + 2].tolist()]
        in_shape = [[(at, value) for *_, at, value in found if isinstance(value, str)] for found in parsed]
        if any(in_shape):
            for s, start in zip(shape_of.tolist(), spans[:, ARGS].tolist()):
                names += [(start + at, name) for at, name in in_shape[s]]
            names.sort()
        self.spans, self.shape_first, self.shape_of, self.parsed = spans, shape_first, shape_of, parsed
        self.values, self.T_literal, self.framed, self.names = values, T, framed, names
        self.is_pose = b[literal] == ord("p")  # (p[...], pose_trans(frame, p[...]))

    def place(self, lines, shift: np.ndarray, file: int) -> None:
        """Besides the statements' rows (:meth:`RunStatements.place`): the :attr:`template` (a run's kinds, speeds
        and frames its own), each statement's instruction, point's text and literal (a pose's, else joints')."""
        super().place(lines, shift, file)
        names = [self.text[a:b] for a, b in self.spans[self.shape_first][:, NAME:NAME + 2].tolist()]
        self.template = MotionRun.of_columns(
            instruction=tuple(map(names.__getitem__, self.shape_of.tolist())), kind=np.zeros(len(self), dtype=np.int8),
            statement=self.statement_rows, name=self.name_rows, T_world_tcp=self.T_literal,
            text=lines.spans(shift + self.spans[:, POINT], shift + self.spans[:, POINT + 1]),
            q_len=np.where(self.is_pose, 0, 6), q=np.where(self.is_pose[:, None], np.nan, self.values), frames=())

    def narrowed(self, whole: Statements, place: int) -> None:
        self.parsed = [whole.parsed[s] for s in self.shape_whole.tolist()]
        first, end = (bisect.bisect_left(whole.names, (at,)) for at in (place, place + len(self.text)))
        self.names = [(at - place, name) for at, name in whole.names[first:end]]


class Motions:
    """The walker's motions: one statement (:meth:`run_motion`) or a run in bulk (:meth:`run_moves`)."""

    def run_motion(self, call: Tree, name: str, args: list, kwargs: dict, local: dict) -> None:
        n_points = MOTIONS[name][1]
        if len(args) < n_points:
            raise self.error(f"{name}: expected {n_points} target(s), got {len(args)}", call)
        params = dict(zip(PARAMETERS[name], args[n_points:]))
        params.update(kwargs)
        try:
            motion_parameters(name, [1.0] * (len(args) - n_points), dict.fromkeys(kwargs, 1.0))  # (count, names)
            points = tuple(self.point(args[i], local) for i in range(n_points))
            values = {}
            for key, node in params.items():
                try:
                    values[key] = self.number(node, local)
                except Unsupported as unknown:  # (a speed changes the time, not the target: still compensated)
                    default = {"a": f"its default a={MOTIONS[name][2]:g}", "v": f"its default v={MOTIONS[name][3]:g}",
                               "t": "absent (the motion timed by a and v)", "r": "0 (no blend)",
                               "mode": "its default (it changes no target)"}[key]
                    self.note_once(Finding(f"{unknown.message}: {name}'s {key} is taken as {default} for the timing",
                                           *line_col(node)))
            kind, tcp_speed, joint_speed, a, t = motion_parameters(name, [], values)  # (each by its name)
        except Refused as refused:
            message, key = refused.args
            raise self.error(message, params[key] if key in params else call) from None
        self.count(1, call)
        self.steps.append(MotionRun.of_columns(
            points, instruction=name, kind=kind, statement=span_of(call), name=span_of(call.children[0]),
            tcp_speed=tcp_speed, joint_speed=joint_speed, acceleration=a, duration_s=t))
        if self.unresolved_depth or any(loop.jumps for loop in self.frames[-1].loops):  # (its table, where its target
            # differs from pass to pass, indexed by these; a break may end its loop after any pass)
            self.motion_counters[id(self.steps[-1])] = (self.steps[-1], None, self.index_counters(args[:n_points], local))

    def inverse_kin(self, call: Tree, local: dict) -> tuple[Point, frozenset[int]] | None:
        """``get_inverse_kin(pose, qnear=...)`` assigned to a variable: the :meth:`point` a motion to it goes to (the
        tool in effect here) and the names read as it; None where not known here or it leaves a trace (a pose the
        robot stands at, a target read through a call site)."""
        if str(call.children[0]) != "get_inverse_kin":
            return None
        marks = self.direct_refs, self._reads, self._stood, len(self.notes)
        self.direct_refs, self._reads = set(), dict(self._reads)
        try:
            point = self.point(call, local)
        except (Unsupported, InputError):
            point = None
        added, traced = self.direct_refs, (self._reads, self._stood, len(self.notes)) != marks[1:]
        self.direct_refs, self._reads, self._stood = marks[:3]
        del self.notes[marks[3]:]
        return None if point is None or traced else (point, frozenset(added))

    def point(self, node, local: dict) -> Point:
        held = self.solved(node, local)
        if held is not None:  # (a joint position get_inverse_kin gave of a known pose)
            point, refs = held.solved
            self.direct_refs.update(refs)
            return point
        outer = node
        if node.data == "call" and str(node.children[0]) == "get_inverse_kin":  # (an expression: a tree)
            args, kwargs = split_arguments(node)
            named = ("qnear", "maxPositionError", "maxOrientationError")  # (the manual's order after the pose)
            if not 1 <= len(args) <= 4 or set(kwargs) - set(named[len(args) - 1:]):
                raise Unsupported("get_inverse_kin: only a pose, qnear and the largest errors are followed", node)
            node = args[0]
        whole = span_of(outer) if outer is not node else None  # (a point that is its whole argument: none)
        value = self.evaluate(node, local)
        if self.tool is None:  # (the TCP a motion runs with)
            raise Unsupported(f"the tool is not known before running ({self.tool_why})", node)
        through = self.through_call_site(node, local)
        if through is not None:  # (pose_trans of a pose written at the call site: written there)
            return replace(through, whole_argument=whole)
        name, text_node = "", node
        head = node.children[0] if node.data in ("name", "member", "index") else None
        if node.data == "name":
            binding = self.lookup(head, local)
            name, text_node = binding.name, binding.literal or node
            self.direct_refs.add(head.start_pos)
        elif node.data == "member" and head.data == "name":  # ``Waypoint_1.p``: written in the record's literal
            binding = self.lookup(head.children[0], local)
            literal = binding.value.literals.get(str(node.children[1])) if isinstance(binding.value, Record) else None
            if literal is not None:
                name, text_node = binding.name, literal
                self.direct_refs.add(head.children[0].start_pos)
        elif node.data == "index" and len(node.children) == 2 and head.data == "name":
            name, text_node = self._element_text(node, local) or (name, text_node)
        if isinstance(value, Pose):
            T, q = value.T, None
        elif isinstance(value, list) and len(value) == 6 and all(isinstance(x, float) for x in value):
            worst = max(map(abs, value), key=lambda v: (v != v, v))  # (a NaN first: max() passed it over)
            if not worst <= MAX_POSE_VALUE:
                raise self.error(f"a joint position of {worst:.6g} rad is out of range (at most "
                                 f"{MAX_POSE_VALUE:g})", node)
            if outer is not node:
                raise Unsupported("get_inverse_kin of joint positions", outer)
            T, q = None, np.asarray(value, dtype=float)
        else:
            raise self.error("expected a pose p[...] or 6 joint positions [...] as the target", node)
        return Point(T_world_tcp=T, T_world_frame=np.eye(4), T_flange_tcp=self.tool.copy(), q=q, confdata=None,
                     text=span_of(text_node), argument=span_of(node), name=name, whole_argument=whole)

    def _element_text(self, node: Tree, local: dict) -> tuple[str, object] | None:
        """Where ``poses[i]`` is written: the element's pose literal in the list's literal (``[p[...], ...]``), or
        the literal of the variable the list names there (PolyScope's ``[pose_1, pose_2]``); else None."""
        base = node.children[0].children[0]
        binding = self.lookup(base, local)
        literal = binding.literal
        if literal is None or literal.data != "list":
            return None
        i = int(self.number(node.children[1], local))
        if not -len(literal.children) <= i < len(literal.children):
            return None
        element = literal.children[i]
        if element.data in ("pose", "list"):
            self.direct_refs.add(base.start_pos)
            return binding.name, element
        if element.data == "name":
            held = self.globals.get(str(element.children[0]))
            if held is not None and held.literal is not None and held.value is not None:
                self.direct_refs.add(element.children[0].start_pos)
                return held.name, held.literal
        return None

    def move_matches(self, token: Token) -> Statements:
        """The :class:`Statements` of a ``MOVES`` token, split once: at the first asked, every run of the file together
        (:meth:`RunStatements.runs`)."""
        if ("statements", token.start_pos) not in self._summaries:  # (every run is the tree's)
            tokens = [node.children[0] for node in self.tree.find_data("moves")]
            self._summaries.update((("statements", t.start_pos), st)
                                   for t, st in zip(tokens, Statements.runs(tokens, self.lines)))
        return self._summaries[("statements", token.start_pos)]

    def general(self, tree: Tree) -> Tree:
        """``tree`` with each run of motions (``moves``) replaced by its motions, each ``call_stmt(call(NAME))``
        where it stands (the arguments not read). Built once a node."""
        def build() -> Tree:
            if tree.data == "moves":  # (a run: its motions under one node)
                st = self.move_matches(tree.children[0])
                calls = nodes_at("call", "NAME", self.text, st.base + st.start, st.base + st.instruction_end, self.lines)
                return Tree("statements", [Tree("call_stmt", [call], call.meta) for call in calls], tree.meta)
            if not any(True for _ in tree.find_data("moves")):
                return tree
            children = [self.general(c).children if isinstance(c, Tree) and c.data == "moves"
                        else [self.general(c) if isinstance(c, Tree) else c] for c in tree.children]
            return Tree(tree.data, [x for part in children for x in part], tree.meta)
        return self._once(("general", id(tree)), build)

    def run_moves(self, token: Token, local: dict, depth: int) -> None:
        """The statements of a ``MOVES`` token, resolved in bulk (:meth:`moves_columns`); one the columns do not take
        (every one while the tool is unknown) run by the general rules in its place, for its finding or its error."""
        st = self.move_matches(token)
        if self.tool is None:  # (the general rules name the tool's refusal)
            segments, n_regular = [(0, len(st.spans), None)], 0
        else:
            frames = self.tool_frames()
            kept = self._templates.get(token.start_pos)
            segments, n_regular = kept or self.moves_columns(token, st, local, frames)
        self.count(n_regular, token)  # (the others count where the general rules run them)
        for a, b, run in segments:
            if run is None:
                self.run_body(st.parse(without_runs("urscript.lark"), self.text, self.lines, a, b, "\n").children, local,
                              depth)
            else:
                self.steps.append(replace(run, frames=frames) if kept else run)
                if self.unresolved_depth or any(loop.jumps for loop in self.frames[-1].loops):  # (each statement
                    # sets its own index: the loops' counters known at all)
                    self.motion_counters[id(self.steps[-1])] = (self.steps[-1], None, self.index_counters([], local))

    def moves_columns(self, token: Token, st: Statements, local: dict, frames: tuple) -> tuple[list, int]:
        """``[(first, end, run)]`` (:meth:`MotionRun.stretches`, of ``frames``) of the statements the columns take,
        and how many; kept for the token's next passes (their frames set) where its statements read no variable."""
        text, spans, (motions, points), template = st.text, st.spans, st.rows, st.template
        names = [template.instruction[motions.start + i] for i in st.shape_first.tolist()]  # (each shape's)
        table = [self._parameters(name, found, local) for name, found in zip(names, st.parsed)]
        regular = st.literal
        if None in table:
            regular = regular & np.array([s is not None for s in table], dtype=bool)[st.shape_of]
        # each shape's kind, TCP speed, joint speed, acceleration and time, by statement (a shape the columns do not
        # take: any, its statements are the general rules')
        kind, tcp_speed, joint_speed, a, t = np.array([(0, 1.0, np.inf, 1.0, None) if s is None else (_KIND_CODE[s[0]], *s[1:])
                                                       for s in table], dtype=float).T[:, st.shape_of]
        T = template.T_world_tcp[points]
        framed = np.flatnonzero(st.framed & regular) if st.n_framed else ()
        if len(framed):  # pose_trans(frame, p[...]): each frame looked up once (none: NaN), the products as the rules'
            frame_names = [text[a:b] for a, b in spans[framed][:, FRAME:FRAME + 2].tolist()]
            poses = {name: self._frame(name, local) for name in dict.fromkeys(frame_names)}
            product = np.stack([np.full((4, 4), np.nan) if poses[name] is None else poses[name].T
                                for name in frame_names]) @ T[framed]
            with np.errstate(invalid="ignore"):
                values = np.concatenate([product[:, :3, 3], rotvec_from_matrix(product[:, :3, :3])], axis=1)
            regular = regular.copy()  # (this reading's own)
            regular[framed[~np.all(np.isfinite(values), axis=1)]] = False
            T = T.copy()
            T[framed] = transform(matrix_from_rotvec(values[:, 3:]), values[:, :3])
        run = template.rows(
            motions, points, kind=kind.astype(np.int8), tcp_speed=tcp_speed, joint_speed=joint_speed, acceleration=a,
            duration_s=t, T_world_tcp=T, frames=frames,
            q=template.q[points, :0 if st.n_poses == len(st) else 6],
        ).compact()  # (a column of one value: held once)
        done = (run.stretches(regular), int(regular.sum()))  # the regular statements' columns, the others the rules'
        if not st.names:
            self._templates[token.start_pos] = done
        return done

    def tool_frames(self) -> tuple:
        """The frames of a run's motions, ``((T_world_frame, T_flange_tcp),)``: the world's and the tool in effect,
        one pair (read only) per value of the tool, which every run moved with it shares."""
        key = self.tool.tobytes()
        if key not in self._tool_frames:
            world, tool = np.eye(4), self.tool.copy()
            world.flags.writeable = tool.flags.writeable = False
            self._tool_frames[key] = ((world, tool),)
        return self._tool_frames[key]

    def _parameters(self, name: str, found: list, local: dict) -> tuple[str, float, float, float, float | None] | None:
        """:func:`motion_parameters` of a shape's :func:`_arguments`; None where the general rules must read it. Of
        numbers only, found once per shape of the file (every run of it reads the same)."""
        shape = ("parameters", name, id(found)) if all(isinstance(value, float) for *_, value in found) else None
        if shape in self._summaries:  # (found kept with it: its id stays its)
            return self._summaries[shape][1]
        result = None
        try:
            if all(math.isfinite(v) for *_, v in found if isinstance(v, float)):
                numbers = [v if isinstance(v, float) else self.number(Tree("name", [Token("NAME", v)]), local)
                           for *_, v in found]
                result = motion_parameters(name, [n for (_, key, *_), n in zip(found, numbers) if key is None],
                                           {key: n for (_, key, *_), n in zip(found, numbers) if key})
        except (Refused, Unsupported):
            pass
        if shape is not None:
            self._summaries[shape] = (found, result)
        return result

    def _frame(self, name: str, local: dict) -> Pose | None:
        """The pose ``pose_trans`` reads as the frame ``name``; None where none, or one written at a call site."""
        node = Tree("name", [Token("NAME", name)])
        if self._leads_to_call_site(node, local):
            return None
        try:
            return self.pose(node, local)
        except Unsupported:
            return None

    def name_runs(self) -> None:
        """Each run of the tree given the names its statements read, as ``name`` nodes after its token."""
        for node in self.tree.find_data("moves"):
            token = node.children[0]
            found = self.move_matches(token).names
            if not found:
                continue
            starts = np.array([token.start_pos + at for at, _ in found], dtype=np.int64)
            ends = starts + np.array([len(name) for _, name in found], dtype=np.int64)
            node.children[1:] = nodes_at("name", "NAME", self.text, starts, ends, self.lines)


__all__ = ["MOTIONS", "MOVES_PATTERN", "Motions", "Statements", "motion_parameters"]
