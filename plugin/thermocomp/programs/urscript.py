"""Read a UR URScript: its motions in the order the controller runs them, with their source spans.

The grammar (``urscript.lark``, lark LALR) covers what PolyScope exports and
CAM post-processors write: ``def ... end`` functions (nested too) and
``thread`` definitions, one statement a line (a statement continues inside
brackets), ``global`` / ``local`` variables, poses ``p[x, y, z, rx, ry, rz]``
(metres, rotation vector), joint lists, keyword arguments, numbers written
``.123``, ``#`` comments, PolyScope's step lines (``$ 3 "MoveJ"``), CRLF.

What is followed, in order, from the entry (the statements outside any
function when there are any besides definitions; else the file's only — or
last — top-level function): ``movej``, ``movel``, ``movep``, ``movec`` with
poses, joint lists, pose variables and ``get_inverse_kin(pose,
qnear=...)``; ``pose_trans``, ``pose_add``, ``pose_inv`` of known values;
``set_tcp``; ``sleep``; calls of the file's functions, arguments bound to
parameters (:meth:`_Walker.bind_arguments`; one written text serves every
call: :mod:`thermocomp.programs.calls`);
``while True`` / ``while (True)`` (PolyScope's "loop forever": one pass is
one cycle, the next compared where it could differ:
:meth:`_Walker.run_forever`); a ``while`` whose condition is known at every
pass, unrolled (:meth:`_Walker.run_counted_while`); the branch of an ``if``/``elif``/``else``
whose condition is known; ``return`` (with its value where it is known);
``struct(...)`` records and their members (``Waypoint_1.p``, ``pose.x``).
Kept as they are: calls that neither move the robot nor branch
(``set_payload``, ``set_gravity``, ``set_tool_voltage``, ``textmsg``, ...),
method calls on objects (``rpc.get_value(...)``: their values are known only
while running), threads started, killed and joined (``thrd = run
Thread_1()``, ``kill thrd``, ``join thrd``; a motion inside a thread stays as
written and is named), and an ``if`` or ``while`` whose course is known only
while running when nothing in it moves the robot, changes the tool or ends a
function or loop (:meth:`_Walker.pass_over`: PolyScope's "Wait" for an input;
what it assigns is not known after it).
Unsupported, with line and column: such an ``if``/``while`` that moves the
robot, ``break``/``continue``, force mode, ``speedj``/``servoj``, calls of
functions not in the file, a function's text that two calls need written
differently, and variables whose value at a motion is not known.
A script that unrolls (loops and calls) to more than ``max_motions`` motions,
calls and loop passes is refused where it passes the bound.
"""

from __future__ import annotations

import functools
import math
import operator
import re
from dataclasses import dataclass, replace

import numpy as np
from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedInput

from thermocomp._gc import paused
from thermocomp._typing import FloatArray, PathLike
from thermocomp.errors import InputError
from thermocomp.geometry.rotations import invert_transform, matrix_from_rotvec, rotvec_from_matrix, transform
from thermocomp.io.files import read_program_text
from thermocomp.programs import calls
from thermocomp.programs.grammars import delimiters, lalr_parser, node_meta, parse_numbers, token_at
from thermocomp.programs.model import (
    _KIND_CODE,
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
from thermocomp.programs.rapid import span_of

URSCRIPT_SUFFIXES = (".script", ".urscript")

#: Motion functions: kind, number of points, default acceleration and speed (URScript manual).
MOTIONS = {
    "movej": (JOINT, 1, 1.4, 1.05),
    "movel": (LINEAR, 1, 1.2, 0.25),
    "movep": (LINEAR, 1, 1.2, 0.25),
    "movec": (CIRCULAR, 2, 1.2, 0.25),
}
#: Their parameters in order (positional arguments), after the point(s).
_PARAMETERS = {"movej": ("a", "v", "t", "r"), "movel": ("a", "v", "t", "r"), "movep": ("a", "v", "r"),
               "movec": ("a", "v", "r", "mode")}

#: Calls that move the robot in ways thermocomp does not follow.
UNSUPPORTED_CALLS = frozenset((
    "speedj", "speedl", "servoj", "servoc", "servol", "force_mode", "end_force_mode", "stopj", "stopl",
    "movepath", "move_path", "path_offset_enable", "position_deviation_warning", "conveyor_pulse_decode",
    "track_conveyor_linear", "track_conveyor_circular", "freedrive_mode", "teach_mode", "set_tool_direction",
    "direct_torque", "torque_command", "screw_driving",
))

#: Largest magnitude of a pose coordinate [m], rotation-vector component or joint position [rad] taken: a
#: 1e308 coordinate is a typo, not a place (it overflowed into a message without a location).
MAX_POSE_VALUE = 1e6

#: A ``while`` with a known condition is unrolled up to this many passes (as RAPID's FOR).
MAX_WHILE_PASSES = 100_000

#: Functions that only compute or read (URScript manual: math, pose and I/O reads): they move nothing.
PURE_PREFIXES = ("get_", "is_", "read_", "pose_", "str_", "to_", "point_dist", "interpolate_pose", "rpy2rotvec",
                 "rotvec2rpy", "d2r", "r2d", "sin", "cos", "tan", "asin", "acos", "atan", "sqrt", "pow", "floor",
                 "ceil", "norm", "length", "random", "binary_list_to_integer", "integer_to_binary_list")

#: Prefixes and names of calls that neither move the robot nor branch: kept as they are.
PASSIVE_PREFIXES = ("set_", "textmsg", "popup", "write_", "rtde_", "modbus_", "socket_", "varmsg", "sync",
                    "zero_ftsensor", "enable_external_ft_sensor", "end_freedrive", "end_teach", "stop_conveyor",
                    "request_", "register_", "clear_")


def _postlex_brackets(stream):
    """Drop newlines inside brackets and repeated newlines (a statement continues inside ``( [``)."""
    depth = 0
    last = "_NL"
    for token in stream:
        if token.type == "_NL":
            if depth > 0 or last == "_NL":
                continue
        elif token.type in ("LPAR", "LSQB", "POSE_OPEN"):
            depth += 1
        elif token.type in ("RPAR", "RSQB"):
            depth = max(0, depth - 1)
        last = token.type
        yield token


class _PostLex:
    always_accept = ("_NL",)

    def process(self, stream):
        return _postlex_brackets(stream)


@functools.lru_cache(maxsize=1)
def urscript_parser() -> Lark:
    """The URScript parser (LALR, grammar ``urscript.lark`` kept in the package), built once per process."""
    return lalr_parser("urscript.lark", propagate_positions=True, maybe_placeholders=False, postlex=_PostLex())


# One plain motion of a ``MOVES`` token: the one place it is written. Every repetition is possessive (no
# backtracking); urscript.lark's ``MOVES`` is :data:`MOVES_PATTERN`, written out
# (tests/test_programs_urscript_runs.py checks they are the same).
_US = r"[ \t\r]*+"
_NUM = r"[-+]?+(?:[0-9]++(?:\.[0-9]*+)?+|\.[0-9]++)(?:[eE][+-]?+[0-9]++)?+"
_MOVE = (rf"(?:movel|movej|movep)\((?:p?\[{_US}{_NUM}(?:{_US},{_US}{_NUM})*+{_US}\])"
         rf"(?:(?:{_US},{_US}(?:[avtr]{_US}={_US})?+{_NUM})*+){_US}\)")
_GAP = r"(?:[ \t\f\r]*+(?:#[^\n]*+)?+\n)++[ \t\f\r]*+"
#: A run of plain motions (urscript.lark's ``MOVES``): one a line, with blank lines and comments between.
MOVES_PATTERN = rf"{_MOVE}(?:{_GAP}{_MOVE})*+"
_NUMBER = re.compile(_NUM)
_ARGUMENT = re.compile(rf"{_US},{_US}(?:(?P<key>[avtr]){_US}={_US})?(?P<number>{_NUM})")
_NOT_NUMBER = b"p[] \t\r"  # (what a point holds besides its numbers and commas)
#: The columns of :attr:`_Statements.spans`: start and end of the name, the point and the arguments, then the end.
NAME, POINT, ARGS, END = 0, 2, 4, 6
#: The bytes that delimit a run's statements and their parts (:func:`move_statements`), by code; 0 for the others.
_OPEN, _CLOSE, _POINT_END, _HASH, _NEWLINE = range(1, 6)
_CODES = np.zeros(256, dtype=np.int8)
_CODES[[ord(c) for c in "()]#\n"]] = np.arange(1, 6)
_SPACE = np.zeros(256, dtype=bool)  # (``_US``)
_SPACE[[ord(c) for c in " \t\r"]] = True


class _Irregular(Exception):
    """A run's statement the columns do not read (not six numbers, an argument the motion refuses): it is run
    through the general rules, one statement, for its finding or error."""


@dataclass(frozen=True)
class _Statements:
    """The statements of a ``MOVES`` token, columnar."""

    text: str  # the token's text
    spans: np.ndarray  # (k, 7): start and end of the name, the point and the arguments, then the statement's end
    shape_first: np.ndarray  # each distinct (instruction, arguments) text's first statement
    shape_of: np.ndarray  # each statement's distinct text


def move_statements(token: Token) -> _Statements:
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
    return _Statements(token, spans, shape_first, shape_of)


class _Unsupported(Exception):
    def __init__(self, message: str, where) -> None:
        super().__init__(message)
        self.message = message
        self.where = where


class _Return(Exception):  # noqa: N818  (control flow, not an error)
    """A ``return`` ran: the function ends, with ``value`` (None: none, or not known before running)."""

    def __init__(self, value) -> None:
        super().__init__()
        self.value = value


@dataclass(frozen=True)
class _Pose:
    values: tuple[float, ...]

    @property
    def T(self) -> FloatArray:
        v = np.asarray(self.values, dtype=float)
        return transform(matrix_from_rotvec(v[3:]), v[:3])

    @staticmethod
    def from_T(T: FloatArray) -> _Pose:
        return _Pose(tuple(float(x) for x in np.concatenate([T[:3, 3], rotvec_from_matrix(T[:3, :3])])))


@dataclass(frozen=True)
class _Record:
    """A URScript struct (``struct(p=p[...], q=[...])``): its members' values, and the pose or list literal each
    member was given, if it was (where a motion to the member is written back)."""

    values: dict
    literals: dict


#: Members of a pose by name (``pose.x``), as its indices.
POSE_MEMBERS = {"x": 0, "y": 1, "z": 2, "rx": 3, "ry": 4, "rz": 5}


@dataclass
class _Binding:
    value: object
    literal: Tree | None  # the pose or list literal the variable was given, if it was
    name: str


def read_urscript(path: PathLike, max_motions: int = MAX_MOTIONS) -> RobotProgram:
    """Read a URScript file (``.script``, ``.urscript``); errors name the file, line and column.

    ``max_motions``: most motions, calls and loop passes the script may
    unroll to (:data:`~thermocomp.programs.model.MAX_MOTIONS`); past
    it the script is refused with the count where it passed.
    """
    text = read_program_text(path, "URScript")
    return urscript_program_from_text(text, str(path), max_motions=max_motions)


def urscript_program_from_text(text: str, path: str = "<text>", max_motions: int = MAX_MOTIONS) -> RobotProgram:
    """:func:`read_urscript` on the text of a script (decoded as ISO-8859-1)."""
    with paused():  # a long script is a million objects that all stay alive (thermocomp._gc)
        return _Walker(text, path, parse_urscript_text(text, path), max_motions).run()


def parse_urscript_text(text: str, path: str) -> Tree:
    """Parse ``text`` (a whole script) into lark's tree; a syntax error names line and column.

    Runs of plain motions are ``moves`` nodes of one ``MOVES`` token each (urscript.lark).
    """
    parseable = ("   " + text[3:]) if text.startswith("\xef\xbb\xbf") else text
    if not parseable.endswith("\n"):
        parseable += "\n"
    try:
        return urscript_parser().parse(parseable)
    except UnexpectedInput as exc:
        found = getattr(exc, "token", None) or getattr(exc, "char", None)
        at_end = found is None or getattr(found, "type", "") == "$END"
        if getattr(found, "type", "") == "MOVES":  # (where no statement may start: its function is unexpected)
            found = found[:5]  # type: ignore[index]
        what = "end of file" if at_end else repr(str(found))
        line = exc.line if getattr(exc, "line", -1) > 0 else text.count("\n") + 1
        column = exc.column if getattr(exc, "column", -1) > 0 else len(text) - text.rfind("\n")
        raise InputError(f"URScript syntax: unexpected {what} (column {column})", path=path, row=line) from None


def _motion_shape(name: str, args: str) -> tuple[str, float, float, float | None]:
    """Kind, acceleration, speed and stated duration [s] (or None) of a run's motion ``name`` with the
    arguments after its point as written (``", a=1.2, v=0.25"``), checked as :meth:`_Walker.run_motion`
    checks them; :class:`_Irregular` where it would refuse them."""
    kind, _, a_default, v_default = MOTIONS[name]
    positional, keywords = [], {}
    for arg in args.split(",")[1:]:
        key, _, number = arg.rpartition("=")
        value = float(number)
        if not math.isfinite(value):
            raise _Irregular
        if key.strip():
            keywords[key.strip()] = value
        else:
            positional.append(value)
    parameters = _PARAMETERS[name]
    if len(positional) > len(parameters):
        raise _Irregular
    given = dict(zip(parameters, positional))
    given.update(keywords)
    if set(given) - set(parameters):
        raise _Irregular
    a, speed, t = given.get("a", a_default), given.get("v", v_default), given.get("t", 0.0)
    if not (a > 0 and speed > 0 and t >= 0):
        raise _Irregular
    return kind, a, speed, t if t > 0 else None


def _line_col(item) -> tuple[int, int]:
    s = span_of(item)
    return s.line, s.column


def _assignment(st: Tree) -> tuple[Tree | Token, Tree | Token, bool]:
    """An assignment's target, its value and whether it says ``global``."""
    target, expr = [c for c in st.children if not (isinstance(c, Token) and c.type in ("GLOBAL", "LOCAL"))]
    return target, expr, any(isinstance(c, Token) and c.type == "GLOBAL" for c in st.children)


def _root_name(target: Tree | Token) -> str | None:
    """The variable an assignment's target changes (``q[0] = ...`` changes ``q``), or None."""
    while isinstance(target, Tree) and target.data == "index":
        target = target.children[0]
    return str(target.children[0]) if isinstance(target, Tree) and target.data == "name" else None


#: URScript's comparisons of numbers.
_COMPARE = {"==": operator.eq, "!=": operator.ne, "<=": operator.le, ">=": operator.ge, "<": operator.lt,
            ">": operator.gt}


class _Walker:
    def __init__(self, text: str, path: str, tree: Tree, max_motions: int = MAX_MOTIONS) -> None:
        self.text, self.path, self.tree = text, path, tree
        self.max_motions = max_motions
        self.unrolled = 0  # motions, calls and loop passes run so far (bounded by max_motions)
        self._sizes: dict[str, int] = {}  # at least how many each function's call unrolls to (call_size)
        self._discarded: list = []  # steps of a next cycle run to compare (run_forever), kept alive
        self._matches: dict[int, _Statements | None] = {}  # statements of each MOVES token, by its offset
        self.functions: dict[str, Tree] = {}
        self.threads: dict[str, Tree] = {}
        self.globals: dict[str, _Binding] = {}
        self.steps: list[Motion | Wait] = []
        self.unsupported: list[Finding] = []
        self.notes: list[Finding] = []
        self.tool = np.eye(4)
        self.visited: set[str] = set()
        self.loop_noted = False
        self.direct_refs: set[int] = set()
        self._in_call: dict[int, calls.Call] = {}  # id of a motion run by a call with arguments: that call
        self._passed: dict[int, tuple[Span, str]] = {}  # a call's argument naming a variable: function, parameter
        self._quiet: list[str] = []  # the functions being run that move nothing (:meth:`moves_nothing`)
        self.lines = TextLines(text)  # lines and columns of offsets, for a run's statements

    def error(self, message: str, where) -> InputError:
        line, column = _line_col(where)
        return InputError(f"{message} (column {column})", path=self.path, row=line)

    # ----- structure
    def collect(self, statements, into_functions=True) -> None:
        for st in statements:
            if isinstance(st, Tree) and st.data == "func_def":
                self.functions[str(st.children[0])] = st
                self.collect(self._body(st))
            elif isinstance(st, Tree) and st.data == "thread_def":
                self.threads[str(st.children[0])] = st

    @staticmethod
    def _body(definition: Tree) -> list:
        return [c for c in definition.children[1:] if isinstance(c, Tree) and c.data != "params"]

    def run(self) -> RobotProgram:
        top = list(self.tree.children)
        self.collect(top)
        defs = [st for st in top if isinstance(st, Tree) and st.data == "func_def"]
        executable = [st for st in top if isinstance(st, Tree) and st.data not in ("func_def", "thread_def")
                      and not (st.data == "assign" and self._is_global_literal(st))]
        if executable or not defs:
            entry = ["<top level>"]
            self.run_entry(top, self.globals)
        else:
            main = defs[-1]
            entry = [str(main.children[0])]
            for st in top:  # global literals before the function
                if isinstance(st, Tree) and st.data == "assign":
                    self.run_statement(st, self.globals, 0)
            if len(defs) > 1:
                line, column = _line_col(main)
                self.notes.append(Finding(f"several top-level functions and no call: running the last, "
                                          f"{main.children[0]}", line, column))
            self.visited.add(entry[0])
            self.run_entry(self._body(main), {})
        for name, thread in self.threads.items():  # a thread runs beside the program: its motions are named
            for call in self._general(thread).find_data("call"):
                if str(call.children[0]) in MOTIONS:
                    line, column = _line_col(call)
                    self.notes.append(Finding(f"{call.children[0]} inside thread {name} stays as written: a thread "
                                              "runs beside the program, at times not known before running (not "
                                              "compensated)", line, column))
        for name, fn in self.functions.items():
            if name in self.visited:
                continue
            moves = [c for c in self._general(fn).find_data("call") if str(c.children[0]) in MOTIONS]
            if moves:
                line, column = _line_col(fn)
                self.notes.append(Finding(f"function {name} is not run: its {len(moves)} motion(s) stay as written",
                                          line, column))
        steps = self.finish_points()
        return RobotProgram(language="urscript", path=self.path, text=self.text, steps=tuple(steps),
                            unsupported=tuple(self.unsupported), notes=tuple(self.notes), entry=tuple(entry),
                            newline=newline_of(self.text))

    def run_entry(self, statements, local: dict) -> None:
        """The entry's statements; a ``return`` there ends the program."""
        try:
            self.run_body(statements, local, 0)
        except _Return:
            pass

    def count(self, n: int, where) -> None:
        """``n`` more motions, calls or loop passes: past :attr:`max_motions` the script is refused, at ``where``."""
        self.unrolled += n
        if self.unrolled > self.max_motions:
            raise self.error(f"the script unrolls to more than {self.max_motions:,} motions, calls and loop passes "
                             f"(--max-motions {self.max_motions:,}); refused at this statement", where)

    def call_size(self, name: str, calling: frozenset[str]) -> int:
        """At least how many motions, calls and loop passes a call of the file's function ``name`` runs (each
        loop counted once, each call with its function's own count; recursion counted once): a tree of calls
        a few kilobytes long can stand for 2^40 motions, refused before it is followed."""
        if name in calling:
            return 0
        if name not in self._sizes:
            total, stack = 1, list(self._body(self.functions[name]))
            while stack:
                node = stack.pop()
                if not isinstance(node, Tree) or node.data in ("func_def", "thread_def"):
                    continue
                if node.data == "moves":
                    total += str(node.children[0]).count(")")  # (one a statement of a run)
                elif node.data == "while_stmt":
                    total += 1
                elif node.data == "call" and str(node.children[0]) in MOTIONS:
                    total += 1
                elif node.data == "call" and str(node.children[0]) in self.functions:
                    total += self.call_size(str(node.children[0]), calling | {name})
                stack.extend(node.children)
            self._sizes[name] = total
        return self._sizes[name]

    def _is_global_literal(self, st: Tree) -> bool:
        return isinstance(st.children[-1], Tree) and st.children[-1].data in ("pose", "list", "number")

    def finish_points(self) -> list:
        """The steps with each point's text where it is written; calls that clash left as written (:mod:`.calls`)."""
        return calls.finish(self.steps, self._finish_points, self._in_call, self.unsupported, self.notes)

    def _finish_points(self, unfollowed: set[int]) -> list:
        """A variable's literal is rewritten only if every use of the name in the file is a motion's point."""
        uses: dict[str, set[int]] = {}
        assigned = {id(a.children[-2]) for a in self.tree.find_data("assign")}  # ``x = ...``: not a use of x
        for node in self.tree.find_data("name"):
            if id(node) in assigned:
                continue
            token = node.children[0]
            uses.setdefault(str(token), set()).add(token.start_pos)
        direct = calls.direct_through_calls(self.direct_refs, self._passed, uses, unfollowed)
        steps = []
        for step in self.steps:
            if isinstance(step, Motion) and any(p.name and not uses.get(p.name, set()) <= direct for p in step.points):
                points = tuple(p if not p.name or uses.get(p.name, set()) <= direct
                               else replace(p, text=p.argument) for p in step.points)
                step = replace(step, points=points)
            steps.append(step)
        return steps

    # ----- statements
    def run_body(self, statements, local: dict, depth: int) -> None:
        for st in statements:
            if not isinstance(st, Tree):
                continue
            try:
                self.run_statement(st, local, depth)
            except _Unsupported as exc:
                line, column = _line_col(exc.where)
                if self._quiet:  # inside a function that moves nothing: what it does cannot change a motion
                    note = Finding(f"{exc.message}; passed over: {self._quiet[-1]} moves nothing and changes nothing "
                                   "a motion reads (its time is not estimated)", line, column)
                    if note not in self.notes:
                        self.notes.append(note)
                elif Finding(exc.message, line, column) not in self.unsupported:
                    self.unsupported.append(Finding(exc.message, line, column))
                for call in self._general(st).find_data("call"):  # (each motion of a run too)
                    if str(call.children[0]) in MOTIONS and call is not st:
                        l2, c2 = _line_col(call)
                        self.notes.append(Finding(f"{call.children[0]} inside an unsupported construct stays as "
                                                  "written", l2, c2))
                for assignment in st.find_data("assign"):  # what it may change is not known after it
                    self.forget(assignment, local)

    def run_statement(self, st: Tree, local: dict, depth: int) -> None:
        kind = st.data
        if kind in ("func_def", "thread_def", "step", "pass_stmt", "critical", "kill_stmt", "join_stmt", "method"):
            return  # (a method call talks to an object outside the robot: an RPC server, a socket)
        if kind == "assign":
            self.assign(st, local)
        elif kind == "moves":
            self.run_moves(st.children[0], local, depth)
        elif kind == "call_stmt":
            self.run_call(st.children[0], local, depth)
        elif kind == "while_stmt":
            condition = st.children[0]
            if isinstance(condition, Tree) and condition.data == "name" and str(condition.children[0]) == "True":
                if not self.loop_noted:
                    line, column = _line_col(st)
                    self.notes.append(Finding("loop forever: one cycle is one pass of its body", line, column))
                    self.loop_noted = True
                self.run_forever(st, local, depth)
                return
            self.run_counted_while(st, local, depth)
        elif kind == "if_stmt":
            self.run_if(st, local, depth)
        elif kind == "run_stmt":
            self.start_thread(st)
        elif kind == "halt_stmt":
            return
        elif kind == "return_stmt":
            value = None
            if st.children:
                try:
                    value = self.evaluate(st.children[0], local)
                except _Unsupported:
                    value = None  # (known only while running: an error where it is read)
            raise _Return(value)
        else:
            word = {"break_stmt": "break", "continue_stmt": "continue"}.get(kind, kind)
            raise _Unsupported(f"{word} is not followed (its outcome is not known before running)", st)

    def run_forever(self, st: Tree, local: dict, depth: int) -> None:
        """``while (True):``: one cycle is one pass of its body. Where the body assigns data (or calls the script's
        functions, or holds a branch), the next cycle is run too, to compare: a motion it runs with another target,
        or cannot follow (data a passed-over branch changed), stays as written and is unsupported (one written
        target cannot serve every cycle). The next cycle's steps and notes are not kept."""
        body = st.children[1:]
        first = len(self.steps)
        self.run_body(body, local, depth)
        if not any(sub.data in ("assign", "if_stmt", "while_stmt") or (
                sub.data == "call" and str(sub.children[0]) in self.functions)
                for b in body if isinstance(b, Tree) for sub in b.iter_subtrees()):
            return
        self.steps[first:] = expand(self.steps[first:])  # (each motion of the cycle, as an object)
        second, notes = len(self.steps), len(self.notes)
        try:
            self.run_body(body, local, depth)
        except _Return:
            pass
        again = expand(self.steps[second:])
        del self.steps[second:], self.notes[notes:]
        self._discarded.extend(again)  # (alive: the ids of its steps keyed tables)

        def targets(steps) -> dict:
            out: dict = {}
            for step in steps:
                if isinstance(step, Motion):
                    out.setdefault(tuple(step.statement), []).append(
                        [p.q if p.T_world_tcp is None else p.T_world_tcp for p in step.points])
            return out

        now, later = targets(self.steps[first:]), targets(again)
        moved = {key for key, values in now.items() if key not in later or len(later[key]) != len(values) or any(
            len(a) != len(b) or not all(np.array_equal(x, y) for x, y in zip(a, b))
            for a, b in zip(values, later[key]))}
        if not moved:
            return
        left = [step for step in self.steps[first:] if isinstance(step, Motion) and tuple(step.statement) in moved]
        self.steps[first:] = [step for step in self.steps[first:]
                              if not (isinstance(step, Motion) and tuple(step.statement) in moved)]
        for motion in left:
            finding = Finding(f"{motion.instruction}'s target is another in the next cycle, or known only while "
                              "running (data the loop changes): one written target cannot serve every cycle",
                              motion.statement.line, motion.statement.column)
            if not any(f.line == finding.line for f in self.unsupported):  # (one finding a line: its read's first)
                self.unsupported.append(finding)

    def start_thread(self, st: Tree) -> None:
        """``run Thread_1()``: the thread must be the file's; its motions, if any, are named (:meth:`run`)."""
        name = str(st.children[0])
        if name not in self.threads:
            raise _Unsupported(f"run {name}: no such thread in this file", st)

    def run_if(self, st: Tree, local: dict, depth: int) -> None:
        """An ``if``/``elif``/``else``: the branch a known condition takes is followed; where a condition is known
        only while running, the construct is passed over when no branch moves the robot (:meth:`blocker`), the
        data its branches assign then no longer known, and refused otherwise."""
        branches = [(st.children[0], [c for c in st.children[1:] if not (isinstance(c, Tree) and c.data in
                                                                         ("elif_part", "else_part"))])]
        for part in st.children[1:]:
            if isinstance(part, Tree) and part.data == "elif_part":
                branches.append((part.children[0], list(part.children[1:])))
            elif isinstance(part, Tree) and part.data == "else_part":
                branches.append((None, list(part.children)))
        for k, (condition, body) in enumerate(branches):
            try:
                taken = condition is None or self._condition(condition, local)
            except _Unsupported:  # known only while running: this branch or a later one
                self.pass_over(st, [b for _, b in branches[k:]], "if", local)
                return
            if taken:
                self.run_body(body, local, depth)
                return

    def pass_over(self, st: Tree, bodies: list[list], word: str, local: dict) -> None:
        """A construct whose course is known only while running, passed over with a note when none of ``bodies``
        moves the robot or changes what runs after it (:meth:`blocker`); the data they may assign is forgotten."""
        for body in bodies:
            for statement in body:
                reason = self.blocker(statement, frozenset())
                if reason is not None:
                    raise _Unsupported(f"{word} is not followed: its course is known only while running and it "
                                       f"holds {reason}", st)
        for body in bodies:
            for statement in body:
                if isinstance(statement, Tree):
                    for assignment in statement.iter_subtrees():
                        if assignment.data == "assign":
                            self.forget(assignment, local)
                    for name in self.assigned_globals(statement, frozenset()):
                        self.globals[name] = _Binding(None, None, name)
        line, column = _line_col(st)
        self.notes.append(Finding(f"{word} passed over: its course is known only while running, and no branch "
                                  "moves the robot or changes its tool (what it assigns is not known after it)",
                                  line, column))

    def blocker(self, node, calling: frozenset[str]) -> str | None:
        """Why ``node`` (a statement, with the file's functions it calls) cannot be passed over without following
        it: a motion, a tool change, a call that could move the robot, or a ``return``/``break``/``continue`` (what
        runs after it would change); None if nothing."""
        if not isinstance(node, Tree):
            return None
        for sub in node.iter_subtrees_topdown():
            where = f"at line {_line_col(sub)[0]}"
            if sub.data == "moves":  # (a run of motions: its first names it)
                return f"{str(sub.children[0]).split('(', 1)[0]} {where}"
            if sub.data in ("return_stmt", "break_stmt", "continue_stmt"):
                return f"{sub.data.split('_')[0]} {where}"
            if sub.data != "call":
                continue
            callee = str(sub.children[0])
            if callee in MOTIONS or callee in UNSUPPORTED_CALLS or callee == "set_tcp":
                return f"{callee} {where}"
            if callee in self.functions:
                if callee in calling:
                    return f"a recursive call of {callee} {where}"
                inner = self.blocker(self.functions[callee], calling | {callee})
                if inner is not None:
                    return f"a call of {callee} {where}, which holds {inner}"
            elif not (callee in ("sleep", "struct") or callee.startswith(PASSIVE_PREFIXES)
                      or callee.startswith(PURE_PREFIXES)):
                return f"{callee} {where}, a function neither of this script nor one thermocomp knows"
        return None

    def assigned_globals(self, node: Tree, calling: frozenset[str]) -> set[str]:
        """The global variables ``node`` and the file's functions it calls may assign."""
        names: set[str] = set()
        for sub in node.iter_subtrees():
            if sub.data == "assign":
                target, _, is_global = _assignment(sub)
                root = _root_name(target)
                if root is not None and (is_global or root in self.globals):
                    names.add(root)
            elif sub.data == "call" and str(sub.children[0]) in self.functions:
                callee = str(sub.children[0])
                if callee not in calling:
                    names |= self.assigned_globals(self.functions[callee], calling | {callee})
        return names

    def run_counted_while(self, st: Tree, local: dict, depth: int) -> None:
        """A ``while`` whose condition is known at every pass, unrolled (PolyScope's "Loop 3 times":
        ``Loop_1 = 0``, ``while (Loop_1 < 3):`` ... ``Loop_1 = Loop_1 + 1``).

        Each pass's motions are motions of their own; as one written text
        serves every pass, a motion whose target changes from pass to pass is
        not followed (nothing of the loop is kept then), nor is a loop of
        more than :data:`MAX_WHILE_PASSES` passes.
        """
        condition, body = st.children[0], st.children[1:]
        first = len(self.steps)
        passes = 0
        repeated = False
        try:
            while self._condition(condition, local):
                passes += 1
                if passes > MAX_WHILE_PASSES:
                    raise _Unsupported(f"while of more than {MAX_WHILE_PASSES:,} passes is not unrolled", st)
                units, steps = self.unrolled, len(self.steps)
                self.count(1, st)
                self.run_body(body, local, depth)
                counter = self._plain_counter(st) if passes == 1 else None
                if counter is not None:  # every pass runs what the first ran: counted, then repeated
                    more = self._remaining_passes(condition, local, *counter, st)
                    self.count(more * (self.unrolled - units), st)
                    self.steps[steps:] = expand(self.steps[steps:])  # (the first pass's motions, as objects)
                    self.steps.extend(self.steps[steps:] * more)
                    passes += more
                    repeated = True
                    break
        except _Unsupported:
            del self.steps[first:]
            if passes == 0:  # a wait for an input (PolyScope's "Wait"), a loop that only polls: passed over
                self.pass_over(st, [list(body)], "while", local)
                return
            raise
        if not repeated:
            self.steps[first:] = expand(self.steps[first:])  # each pass's motions, as objects
        # (repeated passes are copies of the first: it alone is checked)
        changing = calls.changing_motion(self.steps[first:first + (len(self.steps) - first) // passes]
                                         if repeated else self.steps[first:])
        if changing is not None:
            del self.steps[first:]
            raise _Unsupported(f"{changing.instruction}'s target changes from pass to pass of this while: one "
                               "written target cannot serve every pass", st)
        line, column = _line_col(st)
        self.notes.append(Finding(f"while followed for its {passes} pass(es)", line, column))

    def _plain_counter(self, st: Tree) -> tuple[str, float, bool] | None:
        """``(name, step, global)`` when the ``while`` only counts: its body's one assignment anywhere is
        ``name = name + step`` (a number) among its own statements, nothing else in it or in the functions it
        calls reads ``name`` or changes the tool, and nothing ends it early: each pass then runs what the first
        ran (PolyScope's "Loop N times"). None otherwise."""
        body = [b for b in st.children[1:] if isinstance(b, Tree)]
        inside = [sub for b in body for sub in b.iter_subtrees()]
        assignments = [sub for sub in inside if sub.data == "assign"]
        if len(assignments) != 1 or not any(assignments[0] is b for b in body):
            return None
        condition = st.children[0]
        if isinstance(condition, Tree) and any(str(c.children[0]) in self.functions
                                               for c in condition.find_data("call")):
            return None  # (a condition that calls the script's functions runs them at every pass)
        target, expr, is_global = _assignment(assignments[0])
        name = _root_name(target)
        if name is None or not (isinstance(target, Tree) and target.data == "name") or not (
                isinstance(expr, Tree) and expr.data == "sum" and len(expr.children) == 3
                and isinstance(expr.children[0], Tree) and expr.children[0].data == "name"
                and str(expr.children[0].children[0]) == name and isinstance(expr.children[2], Tree)
                and expr.children[2].data == "number"):
            return None
        callees = {str(sub.children[0]) for sub in inside if sub.data == "call"}
        reach = [self.functions[c] for c in callees if c in self.functions]
        for node in inside + [sub for f in reach for sub in f.iter_subtrees()]:
            if node.data in ("return_stmt", "break_stmt", "continue_stmt", "run_stmt", "func_def", "thread_def"):
                return None
            if node.data == "call" and (str(node.children[0]) in ("set_tcp",) or (
                    str(node.children[0]) in self.functions and self.functions[str(node.children[0])] not in reach)):
                return None  # (a tool change; a call beyond one level: followed pass by pass)
            if node.data == "name" and str(node.children[0]) == name and node is not target \
                    and node is not expr.children[0]:
                return None
        if any(self.assigned_globals(f, frozenset()) for f in reach):
            return None
        step = float(expr.children[2].children[0])
        return name, (-step if str(expr.children[1]) == "-" else step), is_global

    def _remaining_passes(self, condition, local: dict, name: str, step: float, is_global: bool, st: Tree) -> int:
        """The passes of a counting ``while`` after its first (:meth:`_plain_counter`), its counter advanced as
        they would advance it."""
        more, value = 0, self.lookup(name, local).value
        compare = _COMPARE.get(str(condition.children[1])) if isinstance(condition, Tree) \
            and condition.data == "comparison" else None
        sides = [isinstance(c, Tree) and c.data == "name" and str(c.children[0]) == name
                 for c in (condition.children[0], condition.children[2])] if compare else [False, False]
        if sides[0] != sides[1]:  # ``name < bound``: the bound once, then numbers only
            bound = self._number(condition.children[2 if sides[0] else 0], local)
            holds = (lambda v: compare(v, bound)) if sides[0] else (lambda v: compare(bound, v))
        else:
            def holds(v: float) -> bool:
                self._bind(name, _Binding(v, None, name), is_global, local)
                return self._condition(condition, local)
        while holds(value):
            more += 1
            if more >= MAX_WHILE_PASSES:
                raise _Unsupported(f"while of more than {MAX_WHILE_PASSES:,} passes is not unrolled", st)
            value = value + step
        self._bind(name, _Binding(value, None, name), is_global, local)
        return more

    def _condition(self, node, local: dict) -> bool:
        """A loop's condition, evaluated: a comparison of known numbers, ``not``, ``and``, ``or``."""
        if isinstance(node, Tree) and node.data == "comparison":
            left, op, right = node.children
            a, b = self._number(left, local), self._number(right, local)
            return _COMPARE[str(op)](a, b)
        if isinstance(node, Tree) and node.data == "not_":
            return not self._condition(node.children[0], local)
        if isinstance(node, Tree) and node.data in ("and_expr", "or_expr"):
            values = [self._condition(c, local) for c in node.children]
            return all(values) if node.data == "and_expr" else any(values)
        value = self.evaluate(node, local)
        if not isinstance(value, bool):
            raise _Unsupported("a condition that is not a comparison of known values", node)
        return value

    def assign(self, st: Tree, local: dict) -> None:
        target, expr, is_global = _assignment(st)
        if not (isinstance(target, Tree) and target.data == "name"):
            self.forget(st, local)  # an element of a list changed: any later read of it is not known
            return
        name = str(target.children[0])
        if isinstance(expr, Tree) and expr.data == "run_stmt":  # ``thrd = run Thread_1()``: the thread's handle
            self.start_thread(expr)
        try:
            value = self.evaluate(expr, local)
        except _Unsupported:
            value = None
        literal = expr if isinstance(expr, Tree) and expr.data in ("pose", "list") else None
        self._bind(name, _Binding(value, literal, name), is_global, local)

    def forget(self, st: Tree, local: dict) -> None:
        """The variable an assignment that was not run may have changed: its value is no longer known."""
        target, _, is_global = _assignment(st)
        name = _root_name(target)
        if name is not None:
            self._bind(name, _Binding(None, None, name), is_global, local)

    def _bind(self, name: str, binding: _Binding, is_global: bool, local: dict) -> None:
        if is_global or (name not in local and name in self.globals):
            self.globals[name] = binding
        else:
            local[name] = binding  # at the top level ``local`` is the globals

    def lookup(self, token: Token, local: dict) -> _Binding:
        name = str(token)
        if name in local:
            binding = local[name]
        elif name in self.globals:
            binding = self.globals[name]
        elif name in ("True", "False"):
            return _Binding(name == "True", None, name)
        elif name == "pi":
            return _Binding(float(np.pi), None, name)
        else:
            raise _Unsupported(f"{name} has no known value here", token)
        if binding.value is None:
            raise _Unsupported(f"the value of {name} is not known before running", token)
        return binding

    # ----- expressions
    def evaluate(self, node, local: dict):
        if isinstance(node, Token):
            raise _Unsupported(f"cannot evaluate {node}", node)
        kind = node.data
        if kind == "number":
            value = float(node.children[0])
            if not np.isfinite(value):
                raise self.error(f"number {node.children[0]!s} is out of range (beyond a double)", node)
            return value
        if kind == "string":
            return str(node.children[0])[1:-1]
        if kind == "name":
            return self.lookup(node.children[0], local).value
        if kind == "signed":
            value = self._number(node.children[1], local)
            return -value if str(node.children[0]) == "-" else value
        if kind == "pose":
            values = [self._number(c, local) for c in node.children[1:]]
            if len(values) != 6:
                raise self.error(f"expected a pose p[x, y, z, rx, ry, rz], got {len(values)} values", node)
            if not max(map(abs, values)) <= MAX_POSE_VALUE:
                raise self.error(f"a pose value of {max(map(abs, values)):.6g} is out of range (at most "
                                 f"{MAX_POSE_VALUE:g} m or rad)", node)
            return _Pose(tuple(values))
        if kind == "list":
            return [self.evaluate(c, local) for c in node.children]
        if kind in ("sum", "product"):
            value = self._number(node.children[0], local)
            for op, operand in zip(node.children[1::2], node.children[2::2]):
                right = self._number(operand, local)
                op = str(op)
                if op in "/%" and right == 0:
                    raise _Unsupported("division by zero", operand)
                value = {"+": value + right, "-": value - right, "*": value * right,
                         "/": value / right if right else 0.0, "%": np.fmod(value, right) if right else 0.0}[op]
            return value
        if kind == "index":
            base = self.evaluate(node.children[0], local)
            i = int(self._number(node.children[1], local))
            seq = base.values if isinstance(base, _Pose) else base
            if not isinstance(seq, (list, tuple)) or not -len(seq) <= i < len(seq):
                raise _Unsupported("index out of range", node)
            return seq[i]
        if kind == "call":
            return self.call_function(node, local)
        if kind == "member":
            base, member = self.evaluate(node.children[0], local), str(node.children[1])
            if isinstance(base, _Pose) and member in POSE_MEMBERS:
                return base.values[POSE_MEMBERS[member]]
            if isinstance(base, _Record) and member in base.values:
                return base.values[member]
            raise _Unsupported(f"no member {member} known here", node)
        if kind in ("method", "run_stmt"):
            raise _Unsupported("a value known only while running (a method call, a thread)", node)
        raise _Unsupported(f"cannot evaluate this expression ({kind})", node)

    def _number(self, node, local) -> float:
        value = self.evaluate(node, local)
        if isinstance(value, bool) or not isinstance(value, float):
            raise _Unsupported("expected a number", node)
        return value

    def _pose(self, node, local) -> _Pose:
        value = self.evaluate(node, local)
        if not isinstance(value, _Pose):
            raise _Unsupported("expected a pose", node)
        return value

    def call_function(self, node: Tree, local: dict):
        name = str(node.children[0])
        args, kwargs = self.split(node)
        if name in ("pose_trans", "pose_add") and len(args) == 2 and not kwargs:
            a, b = self._pose(args[0], local), self._pose(args[1], local)
            if name == "pose_trans":
                return _Pose.from_T(a.T @ b.T)
            T = transform(a.T[:3, :3] @ b.T[:3, :3], a.T[:3, 3] + b.T[:3, 3])
            return _Pose.from_T(T)
        if name == "pose_inv" and len(args) == 1:
            return _Pose.from_T(invert_transform(self._pose(args[0], local).T))
        if name in ("d2r", "r2d") and len(args) == 1:
            x = self._number(args[0], local)
            return float(np.radians(x) if name == "d2r" else np.degrees(x))
        if name == "struct" and not args:
            return _Record({k: self.evaluate(v, local) for k, v in kwargs.items()},
                           {k: v for k, v in kwargs.items() if isinstance(v, Tree) and v.data in ("pose", "list")})
        if name in self.functions:  # a function of the file, for its value: it runs here
            return self.run_call(node, local, 0)
        raise _Unsupported(f"{name}(...) is not evaluated (pose_trans, pose_add, pose_inv, d2r, r2d are)", node)

    @staticmethod
    def split(call: Tree) -> tuple[list, dict]:
        args, kwargs = [], {}
        for a in call.children[1:]:
            if isinstance(a, Tree) and a.data == "kwarg":
                kwargs[str(a.children[0])] = a.children[1]
            else:
                args.append(a)
        return args, kwargs

    # ----- calls
    def run_call(self, call: Tree, local: dict, depth: int):
        name = str(call.children[0])
        args, kwargs = self.split(call)
        if name in MOTIONS:
            self.run_motion(call, name, args, kwargs, local)
        elif name == "sleep":
            if len(args) != 1:
                raise self.error("sleep: expected one time [s]", call)
            seconds = self._number(args[0], local)
            if not seconds >= 0:
                raise self.error(f"sleep: expected a time >= 0 s, got {seconds:g}", call)
            self.steps.append(Wait(seconds, span_of(call)))
        elif name == "set_tcp":
            if len(args) != 1:
                raise self.error("set_tcp: expected one pose", call)
            self.tool = self._pose(args[0], local).T
        elif name in self.functions:
            if depth > 32:
                raise _Unsupported(f"calls nested more than 32 deep (recursion?) at {name}", call)
            size = self.call_size(name, frozenset())
            if self.unrolled + size > self.max_motions:
                raise self.error(f"the call of {name} unrolls to at least {size:,} motions, calls and loop passes "
                                 f"(more than --max-motions {self.max_motions:,})", call)
            self.count(1, call)
            function = self.functions[name]
            scope = self.bind_arguments(function, args, kwargs, local, call)
            self.visited.add(name)
            first = len(self.steps)
            quiet = self.moves_nothing(function)
            self._quiet += [name] if quiet else []
            returned = None
            try:
                self.run_body(self._body(function), scope, depth + 1)
            except _Return as end:
                returned = end.value
            finally:
                del self._quiet[len(self._quiet) - quiet:]
            if scope:
                self.steps[first:] = expand(self.steps[first:])  # each motion of the call, as an object
                for step in self.steps[first:]:  # the outermost call with arguments is the one named
                    self._in_call[id(step)] = (name, span_of(call))
            return returned  # (None: no value, or one known only while running)
        elif name in UNSUPPORTED_CALLS:
            raise _Unsupported(f"{name} is not followed (thermocomp compensates movej, movel, movep, movec)", call)
        elif name.startswith(PASSIVE_PREFIXES):
            return
        else:
            raise _Unsupported(f"{name} is neither a function of this script nor one thermocomp knows "
                               "(it could move the robot)", call)

    def moves_nothing(self, function: Tree, calling: frozenset[str] = frozenset()) -> bool:
        """``function`` (and the file's functions it calls) moves nothing and changes nothing a motion reads.

        No motion, tool (``set_tcp``), thread or unknown function; every call a
        function of the file that moves nothing, one that only computes or
        reads (:data:`PURE_PREFIXES`) or a passive one (:data:`PASSIVE_PREFIXES`,
        ``sleep``); every assignment to its parameters or its own local
        variables (no ``global``, no name of a global). Its conditions and
        loops, which could not be followed, then cannot change a motion: they
        are passed over with a note (RoboDK's ``SprayOn(value)``, gripper
        functions).
        """
        name = str(function.children[0])
        if name in calling:
            return False  # recursion: left to the rules
        for node in function.iter_subtrees():
            if node.data in ("run_stmt", "thread_def", "moves"):
                return False
            if node.data == "assign":
                target, _, is_global = _assignment(node)
                root = _root_name(target)
                if is_global or root is None or root in self.globals:
                    return False
            if node.data == "call":
                callee = str(node.children[0])
                if callee in MOTIONS or callee in UNSUPPORTED_CALLS or callee == "set_tcp":
                    return False
                if callee in self.functions:
                    if not self.moves_nothing(self.functions[callee], calling | {name}):
                        return False
                elif not (callee == "sleep" or callee.startswith(PASSIVE_PREFIXES) or callee.startswith(PURE_PREFIXES)):
                    return False
        return True

    def bind_arguments(self, function: Tree, args: list, kwargs: dict, local: dict, call: Tree) -> dict:
        """The local scope a call of ``function`` starts with: each parameter bound to its argument.

        Positional arguments, then keyword ones, then the parameter's default
        (a constant of the definition). An argument naming a variable passes
        that variable on (a target literal then stays written where it was
        given); any other is evaluated in the caller. URScript's own checks
        (too many arguments, an unknown or repeated keyword, a parameter
        without value) are errors naming the call.
        """
        params = next((c for c in function.children if isinstance(c, Tree) and c.data == "params"), None)
        defined = [] if params is None else [(str(p.children[0]), p.children[1] if len(p.children) > 1 else None)
                                             for p in params.children]
        name, names = str(function.children[0]), [n for n, _ in defined]
        if len(args) > len(defined):
            raise self.error(f"{name} takes {len(defined)} argument(s) ({', '.join(names) or 'none'}), "
                             f"got {len(args)}", call)
        unknown = sorted(set(kwargs) - set(names))
        if unknown:
            raise self.error(f"{name} has no parameter {unknown[0]}", call)
        scope: dict[str, _Binding] = {}
        for i, (param, default) in enumerate(defined):
            if i < len(args):
                if param in kwargs:
                    raise self.error(f"{name}: parameter {param} is given twice", call)
                scope[param] = self._argument(function, param, args[i], local)
            elif param in kwargs:
                scope[param] = self._argument(function, param, kwargs[param], local)
            elif default is not None:
                scope[param] = _Binding(self.evaluate(default, {}), None, param)
            else:
                raise self.error(f"{name}: no value for parameter {param}", call)
        return scope

    def _argument(self, function: Tree, param: str, node, local: dict) -> _Binding:
        if isinstance(node, Tree) and node.data == "name":
            binding = self.lookup(node.children[0], local)
            self._passed[node.children[0].start_pos] = (span_of(function), param)
            return binding
        try:
            return _Binding(self.evaluate(node, local), None, param)
        except _Unsupported:  # known only while running (an input, a register): an error where it is read
            return _Binding(None, None, param)

    def run_motion(self, call: Tree, name: str, args: list, kwargs: dict, local: dict) -> None:
        kind, n_points, a_default, v_default = MOTIONS[name]
        if len(args) < n_points:
            raise self.error(f"{name}: expected {n_points} target(s), got {len(args)}", call)
        if len(args) > n_points + len(_PARAMETERS[name]):
            raise self.error(f"{name}: expected at most {n_points + len(_PARAMETERS[name])} arguments "
                             f"({n_points} target(s), {', '.join(_PARAMETERS[name])}), got {len(args)}", call)
        params = dict(zip(_PARAMETERS[name], args[n_points:]))
        params.update(kwargs)
        unknown = set(params) - set(_PARAMETERS[name])
        if unknown:
            raise self.error(f"{name}: unknown argument(s) {sorted(unknown)}", call)
        values = {k: self._number(v, local) for k, v in params.items()}
        points = tuple(self.point(args[i], local, kind) for i in range(n_points))
        a, v = values.get("a", a_default), values.get("v", v_default)
        t = values.get("t", 0.0)
        for key, value in (("a", a), ("v", v)):
            if not value > 0:
                raise self.error(f"{name}: expected {key} > 0, got {value:g}", params.get(key, call))
        if not t >= 0:
            raise self.error(f"{name}: expected t >= 0 s, got {t:g}", params["t"])
        joint = kind == JOINT
        self.count(1, call)
        self.steps.append(Motion(
            instruction=name, kind=kind, points=points, statement=span_of(call), name=span_of(call.children[0]),
            tcp_speed=float("inf") if joint else v, joint_speed=v if joint else float("inf"), acceleration=a,
            duration_s=t if t > 0 else None,
        ))

    def move_matches(self, token: Token) -> _Statements:
        """:func:`move_statements` of a ``MOVES`` token, split once."""
        if token.start_pos not in self._matches:
            self._matches[token.start_pos] = move_statements(token)
        return self._matches[token.start_pos]

    def _number_tree(self, text: str, start: int) -> Tree:
        """A number written ``text`` at offset ``start`` as the general rules read it (``signed`` with a sign)."""
        if text[0] in "+-":
            sign = token_at(self.lines, "ADD_OP", text[0], start)
            return Tree("signed", [sign, self._number_tree(text[1:], start + 1)],
                        node_meta(self.lines, start, start + len(text)))
        return Tree("number", [token_at(self.lines, "NUMBER", text, start)],
                    node_meta(self.lines, start, start + len(text)))

    def _statement_tree(self, token: Token, st: _Statements, i: int) -> Tree:
        """Statement ``i`` of a run as the general rules read it: ``call_stmt(call(NAME, point, arguments...))``."""
        base, text = token.start_pos, st.text
        a, b, pa, pb, c, d, end = st.spans[i].tolist()
        name = token_at(self.lines, "NAME", text[a:b], base + a)
        numbers = [self._number_tree(m.group(), base + m.start()) for m in _NUMBER.finditer(text, pa, pb)]
        if text[pa] == "p":
            point = Tree("pose", [token_at(self.lines, "POSE_OPEN", "p[", base + pa), *numbers],
                         node_meta(self.lines, base + pa, base + pb))
        else:
            point = Tree("list", numbers, node_meta(self.lines, base + pa, base + pb))
        args: list = [point]
        for m in _ARGUMENT.finditer(text, c, d):
            value = self._number_tree(m.group("number"), base + m.start("number"))
            if m.group("key") is None:
                args.append(value)
            else:
                key = token_at(self.lines, "NAME", m.group("key"), base + m.start("key"))
                args.append(Tree("kwarg", [key, value], node_meta(self.lines, key.start_pos, value.meta.end_pos)))
        call = Tree("call", [name, *args], node_meta(self.lines, base + a, base + end))
        return Tree("call_stmt", [call], node_meta(self.lines, base + a, base + end))

    def _general(self, tree: Tree) -> Tree:
        """``tree`` as the general rules read it: each run of motions (``moves``) replaced by its statements
        (:meth:`_statement_tree`), for a construct looked into but not run (its motions named one by one)."""
        if not any(True for _ in tree.find_data("moves")):
            return tree
        children: list = []
        for child in tree.children:
            if isinstance(child, Tree) and child.data == "moves":
                st = self.move_matches(child.children[0])
                children += [self._statement_tree(child.children[0], st, i) for i in range(len(st.spans))]
            else:
                children.append(self._general(child) if isinstance(child, Tree) else child)
        return Tree(tree.data, children, tree.meta)

    def run_moves(self, token: Token, local: dict, depth: int) -> None:
        """The statements of a ``MOVES`` token, as :meth:`run_motion` runs them one by one, read into
        :class:`MotionRun` columns (no object a motion).

        A statement the columns do not read (a point not of six numbers a pose
        or a joint list holds, arguments the motion refuses) is run by the
        general rules in its place (:meth:`run_body`), for its finding or its
        error: the rest of the run stays columns.
        """
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
        # kind, acceleration, speed and duration of each (instruction, arguments as written), once each
        table = []
        for a, b, c, d in spans[st.shape_first][:, [NAME, NAME + 1, ARGS, ARGS + 1]].tolist():
            try:
                table.append(_motion_shape(text[a:b], text[c:d]))
            except _Irregular:
                table.append(None)
        shape_of = st.shape_of
        regular &= np.array([s is not None for s in table], dtype=bool)[shape_of]
        self.count(int(regular.sum()), token)  # (the others count where the general rules run them)
        table = [s or (LINEAR, 1.0, 1.0, None) for s in table]
        names = [text[a:b] for a, b in spans[st.shape_first][:, NAME:NAME + 2].tolist()]  # each shape's instruction
        name_start, point_start = spans[:, NAME], spans[:, POINT]
        is_pose = np.frombuffer(data, dtype=np.uint8)[spans[:, POINT]] == ord("p")  # "p[": a pose, "[": joints
        T = np.full((k, 4, 4), np.nan)
        rows = np.flatnonzero(is_pose & regular)
        if rows.size:
            T[rows] = transform(matrix_from_rotvec(v[rows, 3:]), v[rows, :3])
        q = np.where(is_pose[:, None], np.nan, v)
        joint = np.array([kind == JOINT for kind, _, _, _ in table], dtype=bool)[shape_of]
        speed = np.array([s[2] for s in table], dtype=float)[shape_of]
        lines, columns = self.lines.arrays(np.concatenate([base + name_start, base + point_start]))
        statement = np.empty((k, 4), dtype=np.int64)
        statement[:, 0], statement[:, 1] = base + name_start, base + spans[:, END]
        statement[:, 2], statement[:, 3] = lines[:k], columns[:k]
        name = statement.copy()
        name[:, 1] = base + spans[:, NAME + 1]
        point = np.empty((k, 4), dtype=np.int64)
        point[:, 0], point[:, 1] = base + point_start, base + spans[:, POINT + 1]
        point[:, 2], point[:, 3] = lines[k:], columns[k:]
        instruction = tuple(map(names.__getitem__, shape_of.tolist()))
        kind = np.array([_KIND_CODE[s[0]] for s in table], dtype=np.int8)[shape_of]
        acceleration = np.array([s[1] for s in table], dtype=float)[shape_of]
        duration = np.array([np.nan if s[3] is None else s[3] for s in table], dtype=float)[shape_of]
        q_len = np.where(is_pose, 0, 6).astype(np.int64)
        # the regular statements' columns, the others run by the general rules, in order
        edges = np.flatnonzero(np.diff(regular.astype(np.int8), prepend=2, append=2))
        for a, b in zip(edges[:-1].tolist(), edges[1:].tolist()):
            if not regular[a]:
                for i in range(a, b):
                    self.run_body([self._statement_tree(token, st, i)], local, depth)
                continue
            n = b - a
            self.steps.append(MotionRun(
                instruction=instruction[a:b], kind=kind[a:b], n_points=np.ones(n, dtype=np.int64),
                statement=statement[a:b], name=name[a:b], tcp_speed=np.where(joint[a:b], np.inf, speed[a:b]),
                orientation_speed=np.full(n, np.inf), joint_speed=np.where(joint[a:b], speed[a:b], np.inf),
                acceleration=acceleration[a:b], duration_s=duration[a:b], text=point[a:b], argument=point[a:b],
                T_world_tcp=T[a:b], q=q[a:b], q_len=q_len[a:b], confdata=np.zeros((n, 4), dtype=np.int64),
                has_confdata=np.zeros(n, dtype=bool), frames=((np.eye(4), self.tool.copy()),),
                frame=np.zeros(n, dtype=np.int64), extax=("",) * n, name_of_point=("",) * n,
                whole_argument=(None,) * n, quat=np.full((n, 4), np.nan)))

    def point(self, node, local: dict, kind: str) -> Point:
        outer = node
        if isinstance(node, Tree) and node.data == "call" and str(node.children[0]) == "get_inverse_kin":
            args, kwargs = self.split(node)
            if len(args) != 1 or set(kwargs) - {"qnear", "maxPositionError", "maxOrientationError"}:
                raise _Unsupported("get_inverse_kin: only a pose and qnear are followed", node)
            node = args[0]
        value = self.evaluate(node, local)
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
            literal = binding.value.literals.get(str(node.children[1])) if isinstance(binding.value, _Record) else None
            if literal is not None:
                name = binding.name
                self.direct_refs.add(node.children[0].children[0].start_pos)
                text_node = literal
        whole = span_of(outer) if outer is not node else None  # (a point that is its whole argument: none)
        if isinstance(value, _Pose):
            return Point(T_world_tcp=value.T, T_world_frame=np.eye(4), T_flange_tcp=self.tool.copy(), q=None,
                         confdata=None, text=span_of(text_node), argument=span_of(node), name=name,
                         whole_argument=whole)
        if isinstance(value, list) and len(value) == 6 and all(isinstance(x, float) for x in value):
            if not max(map(abs, value)) <= MAX_POSE_VALUE:
                raise self.error(f"a joint position of {max(map(abs, value)):.6g} rad is out of range (at most "
                                 f"{MAX_POSE_VALUE:g})", node)
            if outer is not node:
                raise _Unsupported("get_inverse_kin of joint positions", outer)
            return Point(T_world_tcp=None, T_world_frame=np.eye(4), T_flange_tcp=self.tool.copy(),
                         q=np.asarray(value, dtype=float), confdata=None, text=span_of(text_node),
                         argument=span_of(node), name=name, whole_argument=whole)
        raise self.error("expected a pose p[...] or 6 joint positions [...] as the target", node)


__all__ = ["URSCRIPT_SUFFIXES", "read_urscript", "urscript_parser", "urscript_program_from_text", "Span"]
