"""URScript's motions as the reader follows them: ``movej``/``movel``/``movep``/``movec`` resolved into the program
model, one statement at a time or a run of plain statements in bulk, by one resolver.

Part of the URScript reader (:mod:`thermocomp.programs.urscript`). The pattern of a plain motion statement
(a literal pose or joint list, numeric arguments) is written once, here (:data:`MOVES_PATTERN`); the grammar's
``MOVES`` terminal is that pattern (:func:`thermocomp.programs.urscript.urscript_parser` puts it in the
grammar's text). A ``MOVES`` token's statements are split with numpy (:func:`move_statements`) and resolved by
:func:`motion_parameters`, the same function that resolves a motion the general rules read, into
:class:`~thermocomp.programs.model.MotionRun` columns; a statement the columns do not take goes to the general
rules, alone, for its finding or error. tests/test_programs_urscript_runs.py checks, on generated statements
(hypothesis), that both readings give the same program.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
from lark import Token, Tree
from lark.tree import Meta

from thermocomp.geometry.rotations import matrix_from_rotvec, transform
from thermocomp.programs.grammars import delimiters, parse_at, parse_numbers, without_runs
from thermocomp.programs.model import _KIND_CODE, CIRCULAR, JOINT, LINEAR, MotionRun, Point
from thermocomp.programs.rapid import span_of
from thermocomp.programs.urscript_values import MAX_POSE_VALUE, Pose, Record, Unsupported, split_arguments

#: Motion functions: kind, number of points, default acceleration and speed (URScript manual).
MOTIONS = {
    "movej": (JOINT, 1, 1.4, 1.05),
    "movel": (LINEAR, 1, 1.2, 0.25),
    "movep": (LINEAR, 1, 1.2, 0.25),
    "movec": (CIRCULAR, 2, 1.2, 0.25),
}
#: Their parameters in order (positional arguments), after the point(s).
PARAMETERS = {"movej": ("a", "v", "t", "r"), "movel": ("a", "v", "t", "r"), "movep": ("a", "v", "r"),
              "movec": ("a", "v", "r", "mode")}

# One plain motion of a ``MOVES`` token: the one place it is written. Every repetition is possessive (no
# backtracking: the match is linear in the text).
_US = r"[ \t\r]*+"
_NUM = r"[-+]?+(?:[0-9]++(?:\.[0-9]*+)?+|\.[0-9]++)(?:[eE][+-]?+[0-9]++)?+"
_MOVE = (rf"(?:movel|movej|movep)\((?:p?\[{_US}{_NUM}(?:{_US},{_US}{_NUM})*+{_US}\])"
         rf"(?:(?:{_US},{_US}(?:[avtr]{_US}={_US})?+{_NUM})*+){_US}\)")
_GAP = r"(?:[ \t\f\r]*+(?:#[^\n]*+)?+\n)++[ \t\f\r]*+"
#: A run of plain motions (the grammar's ``MOVES``): one a line, with blank lines and comments between.
MOVES_PATTERN = rf"{_MOVE}(?:{_GAP}{_MOVE})*+"
_NOT_NUMBER = b"p[] \t\r"  # (what a point holds besides its numbers and commas)
#: The columns of :attr:`Statements.spans`: start and end of the name, the point and the arguments, then the end.
NAME, POINT, ARGS, END = 0, 2, 4, 6
#: The bytes that delimit a run's statements and their parts (:func:`move_statements`), by code; 0 for the others.
_OPEN, _CLOSE, _POINT_END, _HASH, _NEWLINE = range(1, 6)
_CODES = np.zeros(256, dtype=np.int8)
_CODES[[ord(c) for c in "()]#\n"]] = np.arange(1, 6)
_SPACE = np.zeros(256, dtype=bool)  # (``_US``)
_SPACE[[ord(c) for c in " \t\r"]] = True


class Refused(Exception):  # noqa: N818
    """Arguments a motion refuses: ``message`` names the first, ``key`` (its name, or None: the call)."""

    def __init__(self, message: str, key: str | None) -> None:
        super().__init__(message)
        self.message, self.key = message, key


def motion_parameters(name: str, positional: list[float], keywords: dict[str, float]
                      ) -> tuple[str, float, float, float | None]:
    """Kind, acceleration [m/s^2 or rad/s^2], speed [m/s or rad/s] and stated duration [s] (or None) of the motion
    ``name`` given the numbers after its point(s), as the URScript manual defines its parameters and defaults.

    The one resolver of a motion's arguments: the general rules call it with a statement's evaluated arguments,
    a run of plain motions with each distinct argument text's numbers. :class:`Refused` where the controller
    refuses them (too many, an unknown name, ``a`` or ``v`` not above 0, ``t`` below 0).
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
    a, v, t = given.get("a", a_default), given.get("v", v_default), given.get("t", 0.0)
    for key, value in (("a", a), ("v", v)):
        if not value > 0:
            raise Refused(f"{name}: expected {key} > 0, got {value:g}", key)
    if not t >= 0:
        raise Refused(f"{name}: expected t >= 0 s, got {t:g}", "t")
    return kind, a, v, t if t > 0 else None


def _text_parameters(name: str, args: str) -> tuple[str, float, float, float | None] | None:
    """:func:`motion_parameters` of a run's statement from its arguments as written (``", a=1.2, v=0.25"``); None
    where the general rules must read it (a number beyond a double, a refusal: theirs to name)."""
    positional, keywords = [], {}
    for arg in args.split(",")[1:]:
        key, _, number = arg.rpartition("=")
        value = float(number)
        if not math.isfinite(value):
            return None
        if key.strip():
            keywords[key.strip()] = value
        else:
            positional.append(value)
    try:
        return motion_parameters(name, positional, keywords)
    except Refused:
        return None


@dataclass(frozen=True)
class Statements:
    """The statements of a ``MOVES`` token, columnar."""

    text: str  # the token's text
    spans: np.ndarray  # (k, 7): start and end of the name, the point and the arguments, then the statement's end
    shape_first: np.ndarray  # each distinct (instruction, arguments) text's first statement
    shape_of: np.ndarray  # each statement's distinct text


def move_statements(token: Token) -> Statements:
    """The statements of a ``MOVES`` token.

    The token is one the grammar matched (:data:`MOVES_PATTERN`), so its bytes alone place the parts: outside
    comments (``#`` to the line's end, between statements only) each statement is its name (five letters), ``(``,
    its point to the only ``]``, its arguments and ``)``. Found with numpy over the token's bytes, no match
    object a statement.
    """
    data = token.encode("latin-1")
    b = np.frombuffer(data, dtype=np.uint8)
    at, code = delimiters(data, _CODES)
    if np.any(code == _HASH):  # (a byte after a "#" on its line is a comment's)
        last_hash = np.maximum.accumulate(np.where(code == _HASH, at, -1))
        outside = last_hash <= np.maximum.accumulate(np.where(code == _NEWLINE, at, -1))
        at, code = at[outside], code[outside]
    opens, closes, point_ends = at[code == _OPEN], at[code == _CLOSE], at[code == _POINT_END] + 1
    args_end = closes.copy()  # (back past the whitespace before the ")")
    active = np.flatnonzero(_SPACE[b[args_end - 1]])
    while active.size:
        args_end[active] -= 1
        active = active[_SPACE[b[args_end[active] - 1]]]
    spans = np.stack([opens - 5, opens, opens + 1, point_ends, point_ends, args_end, closes + 1], axis=1)
    index: dict[tuple[str, str], int] = {}
    shape_of = np.fromiter((index.setdefault((token[a:b], token[c:d]), len(index)) for a, b, c, d in
                            spans[:, [NAME, NAME + 1, ARGS, ARGS + 1]].tolist()), dtype=np.int64, count=len(spans))
    shape_first = np.empty(len(index), dtype=np.int64)
    shape_first[shape_of[::-1]] = np.arange(len(spans) - 1, -1, -1)
    return Statements(token, spans, shape_first, shape_of)


class Motions:
    """The walker's motions: one statement (:meth:`run_motion`) or a run in bulk (:meth:`run_moves`)."""

    def run_motion(self, call: Tree, name: str, args: list, kwargs: dict, local: dict) -> None:
        kind, n_points, _, _ = MOTIONS[name]
        if len(args) < n_points:
            raise self.error(f"{name}: expected {n_points} target(s), got {len(args)}", call)
        params = dict(zip(PARAMETERS[name], args[n_points:]))
        params.update(kwargs)
        try:
            motion_parameters(name, [1.0] * (len(args) - n_points), dict.fromkeys(kwargs, 1.0))  # (count, names)
            values = {k: self.number(v, local) for k, v in params.items()}
            points = tuple(self.point(args[i], local, kind) for i in range(n_points))
            kind, a, v, t = motion_parameters(name, [values[k] for k in PARAMETERS[name][:len(args) - n_points]],
                                              {k: values[k] for k in kwargs})
        except Refused as refused:
            raise self.error(refused.message, params[refused.key] if refused.key in params else call) from None
        joint = kind == JOINT
        self.count(1, call)
        self.steps.append(MotionRun.of_motion(
            name, kind, points, span_of(call), span_of(call.children[0]), tcp_speed=float("inf") if joint else v,
            joint_speed=v if joint else float("inf"), acceleration=a, duration_s=t))

    def point(self, node, local: dict, kind: str) -> Point:
        outer = node
        if isinstance(node, Tree) and node.data == "call" and str(node.children[0]) == "get_inverse_kin":
            args, kwargs = split_arguments(node)
            if len(args) != 1 or set(kwargs) - {"qnear", "maxPositionError", "maxOrientationError"}:
                raise Unsupported("get_inverse_kin: only a pose and qnear are followed", node)
            node = args[0]
        value = self.evaluate(node, local)
        if self.tool is None:  # (the TCP a motion runs with)
            raise Unsupported(f"the tool is not known before running ({self.tool_why})", node)
        through = self.through_call_site(node, local, kind)
        if through is not None:  # (pose_trans of a pose written at the call site: written there)
            return replace(through, whole_argument=span_of(outer) if outer is not node else None)
        tool = self.tool.copy()
        text_node = node
        name = ""
        if isinstance(node, Tree) and node.data == "name":
            binding = self.lookup(node.children[0], local)
            name = binding.name
            self.direct_refs.add(node.children[0].start_pos)
            if binding.literal is not None:
                text_node = binding.literal
        elif isinstance(node, Tree) and node.data == "member" and isinstance(node.children[0], Tree) \
                and node.children[0].data == "name":  # ``Waypoint_1.p``: written in the record's literal
            binding = self.lookup(node.children[0].children[0], local)
            literal = binding.value.literals.get(str(node.children[1])) if isinstance(binding.value, Record) else None
            if literal is not None:
                name = binding.name
                self.direct_refs.add(node.children[0].children[0].start_pos)
                text_node = literal
        elif isinstance(node, Tree) and node.data == "index" and len(node.children) == 2 \
                and isinstance(node.children[0], Tree) and node.children[0].data == "name":
            name, text_node = self._element_text(node, local, name, text_node)
        whole = span_of(outer) if outer is not node else None  # (a point that is its whole argument: none)
        if isinstance(value, Pose):
            return Point(T_world_tcp=value.T, T_world_frame=np.eye(4), T_flange_tcp=tool, q=None,
                         confdata=None, text=span_of(text_node), argument=span_of(node), name=name,
                         whole_argument=whole)
        if isinstance(value, list) and len(value) == 6 and all(isinstance(x, float) for x in value):
            worst = max(map(abs, value), key=lambda v: (v != v, v))  # (a NaN first: max() passed it over)
            if not worst <= MAX_POSE_VALUE:
                raise self.error(f"a joint position of {worst:.6g} rad is out of range (at most "
                                 f"{MAX_POSE_VALUE:g})", node)
            if outer is not node:
                raise Unsupported("get_inverse_kin of joint positions", outer)
            return Point(T_world_tcp=None, T_world_frame=np.eye(4), T_flange_tcp=tool,
                         q=np.asarray(value, dtype=float), confdata=None, text=span_of(text_node),
                         argument=span_of(node), name=name, whole_argument=whole)
        raise self.error("expected a pose p[...] or 6 joint positions [...] as the target", node)

    def _element_text(self, node: Tree, local: dict, name: str, text_node) -> tuple[str, object]:
        """Where ``poses[i]`` is written: the element's pose literal in the list's literal (``[p[...], ...]``), or
        the literal of the variable the list names there (PolyScope's ``[pose_1, pose_2]``): a loop walking a
        list of constant poses has each pass's target written where it stands."""
        base = node.children[0].children[0]
        binding = self.lookup(base, local)
        literal = binding.literal
        if literal is None or literal.data != "list":
            return name, text_node
        i = int(self.number(node.children[1], local))
        if not -len(literal.children) <= i < len(literal.children):
            return name, text_node
        element = literal.children[i]
        if isinstance(element, Tree) and element.data in ("pose", "list"):
            self.direct_refs.add(base.start_pos)
            return binding.name, element
        if isinstance(element, Tree) and element.data == "name":
            held = self.globals.get(str(element.children[0]))
            if held is not None and held.literal is not None and held.value is not None:
                self.direct_refs.add(element.children[0].start_pos)
                return held.name, held.literal
        return name, text_node

    def move_matches(self, token: Token) -> Statements:
        """:func:`move_statements` of a ``MOVES`` token, split once."""
        if token.start_pos not in self._matches:
            self._matches[token.start_pos] = move_statements(token)
        return self._matches[token.start_pos]

    def parsed(self, token: Token, first: int = 0, end: int | None = None) -> list[Tree]:
        """Statements ``first`` to ``end`` of a run as the general rules read them: parsed by the grammar without
        its runs (:func:`~thermocomp.programs.grammars.without_runs`), where they stand in the file."""
        spans = self.move_matches(token).spans
        end = len(spans) if end is None else end
        return parse_at(without_runs("urscript.lark"), self.text, token.start_pos + int(spans[first, NAME]),
                        token.start_pos + int(spans[end - 1, END]), self.lines, "\n").children

    def general(self, tree: Tree) -> Tree:
        """``tree`` with each run of motions (``moves``) replaced by its motions, each ``call_stmt(call(NAME))``
        where it stands (the arguments not read): what a construct looked into but not run names, motion by
        motion. Built once a node."""
        done = self._general.get(id(tree))
        if done is None:
            if not any(True for _ in tree.find_data("moves")):
                done = tree
            elif tree.data == "moves":  # (a run itself, as a branch's statement: its motions under one node)
                done = Tree("statements", self._calls(tree.children[0]), tree.meta)
            else:
                children = [self._calls(c.children[0]) if isinstance(c, Tree) and c.data == "moves"
                            else [self.general(c) if isinstance(c, Tree) else c] for c in tree.children]
                done = Tree(tree.data, [x for part in children for x in part], tree.meta)
            self._general[id(tree)] = done
        return done

    def _calls(self, token: Token) -> list[Tree]:
        """The motions of a run as :meth:`general` gives them."""
        spans = self.move_matches(token).spans[:, NAME:NAME + 2] + token.start_pos
        (lines, ends), (columns, end_columns) = self.lines.lists(spans.T)
        out = []
        for (a, b), line, column, end, end_column in zip(spans.tolist(), lines, columns, ends, end_columns):
            meta = Meta()
            meta.empty, meta.start_pos, meta.end_pos = False, a, b
            meta.line, meta.column, meta.end_line, meta.end_column = line, column, end, end_column
            name = Token("NAME", self.text[a:b], a, line, column, end, end_column, b)
            out.append(Tree("call_stmt", [Tree("call", [name], meta)], meta))
        return out

    def run_moves(self, token: Token, local: dict, depth: int) -> None:
        """The statements of a ``MOVES`` token, resolved in bulk as :meth:`run_motion` resolves one (the same
        :func:`motion_parameters`, once per distinct argument text), into :class:`MotionRun` columns.

        A statement the columns do not take (a point not of six numbers, arguments the motion refuses; every one
        while the tool is known only while running) is run by the general rules in its place (:meth:`run_body`),
        for its finding or its error: the rest stays columns. The columns depend on the token's text alone: they
        are found once (:meth:`moves_template`), however many passes of a loop run them.
        """
        segments, n_regular = self.moves_template(token)
        if self.tool is None:  # (the general rules name the tool's refusal)
            segments = [(0, len(self.move_matches(token).spans), None)]
            n_regular = 0
        self.count(n_regular, token)  # (the others count where the general rules run them)
        for a, b, template in segments:
            if template is None:
                self.run_body(self.parsed(token, a, b), local, depth)
            else:
                self.steps.append(replace(template, frames=((np.eye(4), self.tool.copy()),)))

    def moves_template(self, token: Token) -> tuple[list, int]:
        """The runs of a ``MOVES`` token's statements the columns take, as :class:`MotionRun` templates (their
        frames to be set), and the statements between them (template None): ``[(first, end, template)]``, and
        how many the columns take. Computed once a token."""
        if token.start_pos in self._templates:
            return self._templates[token.start_pos]
        base = token.start_pos
        st = self.move_matches(token)
        spans, text = st.spans, st.text
        k = len(spans)
        data = text.encode("latin-1")  # (a byte a character)
        points = spans[:, POINT:POINT + 2].tolist()
        regular = np.fromiter((data.count(b",", a, b) == 5 for a, b in points), dtype=bool, count=k)  # six numbers
        v = np.full((k, 6), np.nan)
        good = np.flatnonzero(regular)
        if good.size:
            v[good] = parse_numbers(b",".join([data[a:b] for a, b in (points[i] for i in good.tolist())] + [b""])
                                    .translate(None, _NOT_NUMBER)).reshape(-1, 6)
        with np.errstate(invalid="ignore"):
            regular &= np.all(np.abs(v) <= MAX_POSE_VALUE, axis=1)  # (NaN, inf: not <=)
        table = [_text_parameters(text[a:b], text[c:d])
                 for a, b, c, d in spans[st.shape_first][:, [NAME, NAME + 1, ARGS, ARGS + 1]].tolist()]
        shape_of = st.shape_of
        regular &= np.array([s is not None for s in table], dtype=bool)[shape_of]
        table = [s or (LINEAR, 1.0, 1.0, None) for s in table]
        names = [text[a:b] for a, b in spans[st.shape_first][:, NAME:NAME + 2].tolist()]  # each shape's instruction
        is_pose = np.frombuffer(data, dtype=np.uint8)[spans[:, POINT]] == ord("p")  # "p[": a pose, "[": joints
        T = np.full((k, 4, 4), np.nan)
        rows = np.flatnonzero(is_pose & regular)
        if rows.size:
            T[rows] = transform(matrix_from_rotvec(v[rows, 3:]), v[rows, :3])
        q = np.where(is_pose[:, None], np.nan, v)
        joint = np.array([kind == JOINT for kind, _, _, _ in table], dtype=bool)[shape_of]
        speed = np.array([s[2] for s in table], dtype=float)[shape_of]
        statement = self.lines.spans(base + spans[:, NAME], base + spans[:, END])
        name = statement.copy()
        name[:, 1] = base + spans[:, NAME + 1]
        point = self.lines.spans(base + spans[:, POINT], base + spans[:, POINT + 1])
        instruction = tuple(map(names.__getitem__, shape_of.tolist()))
        kind = np.array([_KIND_CODE[s[0]] for s in table], dtype=np.int8)[shape_of]
        acceleration = np.array([s[1] for s in table], dtype=float)[shape_of]
        duration = np.array([np.nan if s[3] is None else s[3] for s in table], dtype=float)[shape_of]
        q_len = np.where(is_pose, 0, 6).astype(np.int64)
        run = MotionRun(
            instruction=instruction, kind=kind, n_points=np.ones(k, dtype=np.int64), statement=statement, name=name,
            tcp_speed=np.where(joint, np.inf, speed), orientation_speed=np.full(k, np.inf),
            joint_speed=np.where(joint, speed, np.inf), acceleration=acceleration, duration_s=duration, text=point,
            argument=point, T_world_tcp=T, q=q, q_len=q_len, confdata=np.zeros((k, 4), dtype=np.int64),
            has_confdata=np.zeros(k, dtype=bool), frames=(), frame=np.zeros(k, dtype=np.int64), extax=("",) * k,
            name_of_point=("",) * k, whole_argument=(None,) * k, quat=np.full((k, 4), np.nan), held=np.zeros(k, dtype=bool))
        segments = run.stretches(regular)  # the regular statements' columns, the others the general rules'
        self._templates[token.start_pos] = (segments, int(regular.sum()))
        return self._templates[token.start_pos]




__all__ = ["MOTIONS", "MOVES_PATTERN", "Motions", "motion_parameters", "move_statements"]
