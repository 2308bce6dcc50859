"""URScript's data as the reader follows it: values, variables and scopes, expressions (the URScript manual's
operators, ``pose_trans``/``pose_add``/``pose_inv``, records), and the states of branches merged where they join.

Part of the URScript reader (:mod:`thermocomp.programs.urscript`): :class:`Values` is the walker's part that
declares, assigns and evaluates. A value is known before running (a float, a bool, a string, a list, a
:class:`_Pose`, a :class:`_Record`) or not: a binding whose value is ``None`` (an input, a socket, an RPC value,
arithmetic on such), refused where a motion reads it, naming the variable.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from itertools import compress

import numpy as np
from lark import Token, Tree

from thermocomp._typing import FloatArray
from thermocomp.errors import InputError
from thermocomp.geometry.rotations import (
    euler_zyx_from_matrix,
    invert_transform,
    matrix_from_rotvec,
    rot_x,
    rot_y,
    rot_z,
    rotvec_from_matrix,
    transform,
)
from thermocomp.programs.rapid import span_of

#: Largest magnitude of a pose coordinate [m], rotation-vector component or joint position [rad] taken: a
#: 1e308 coordinate is a typo, not a place (it overflowed into a message without a location).
MAX_POSE_VALUE = 1e6

#: Members of a pose by name (``pose.x``), as its indices.
POSE_MEMBERS = {"x": 0, "y": 1, "z": 2, "rx": 3, "ry": 4, "rz": 5}

#: URScript's math functions of numbers (manual, "Module math"): their argument count and their value.
MATH = {"sin": (1, np.sin), "cos": (1, np.cos), "tan": (1, np.tan), "asin": (1, np.arcsin), "acos": (1, np.arccos),
        "atan": (1, np.arctan), "atan2": (2, np.arctan2), "sqrt": (1, np.sqrt), "pow": (2, np.power),
        "floor": (1, np.floor), "ceil": (1, np.ceil), "log": (2, lambda b, x: np.log(x) / np.log(b))}

#: The manual's functions of rotations, poses and lists evaluated on known values, with their argument count
#: (Values._vector_function).
VECTOR_FUNCTIONS = {"rpy2rotvec": 1, "rotvec2rpy": 1, "interpolate_pose": 3, "point_dist": 2, "norm": 1,
                    "normalize": 1}

#: URScript's comparisons of numbers.
COMPARE = {"==": operator.eq, "!=": operator.ne, "<=": operator.le, ">=": operator.ge, "<": operator.lt,
           ">": operator.gt}


def _numeric_array(value) -> bool:
    """A list of numbers, or a list of equally long lists of numbers (a matrix)."""
    if not isinstance(value, list) or not value:
        return False
    if all(isinstance(v, float) and not isinstance(v, bool) for v in value):
        return True
    return all(isinstance(row, list) and len(row) == len(value[0]) and _numeric_array(row) for row in value) \
        and all(isinstance(v, float) for row in value for v in row)


def _array_operation(left, op: str, right, where):
    """``left op right`` with an array or matrix on either side, as the manual's "Matrix and Array Expressions"
    define it: a matrix times a matrix or an array is the matrix product; otherwise index by index between operands
    of one shape, or with a number applied to every entry."""
    a, b = np.asarray(left, dtype=float), np.asarray(right, dtype=float)
    if op == "*" and a.ndim == 2 and b.ndim >= 1:
        if a.shape[1] != b.shape[0]:
            raise Unsupported(f"a {a.shape[0]}x{a.shape[1]} matrix times {b.shape[0]} rows: sizes that do not match",
                              where)
        return (a @ b).tolist()
    if a.ndim and b.ndim and a.shape != b.shape:
        raise Unsupported(f"{op} of arrays of sizes {a.shape} and {b.shape}: index by index needs one size", where)
    if op in "/%" and not np.all(b):
        raise Unsupported("division by zero", where)
    with np.errstate(all="ignore"):
        result = {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.divide, "%": np.fmod}[op](a, b)
    return result.tolist()


class Unsupported(Exception):  # noqa: N818  (a finding, raised to the statement that reports it)
    """A construct, or a value, the reader cannot follow before running; ``where`` locates it."""

    unknown_condition = False  # (a loop's condition known only while running: urscript_flow.run_while)

    def __init__(self, message: str, where) -> None:
        super().__init__(message)
        self.message = message
        self.where = where


@dataclass(frozen=True)
class Pose:
    """A URScript pose ``p[x, y, z, rx, ry, rz]``: metres and a rotation vector [rad]."""

    values: tuple[float, ...]

    @property
    def T(self) -> FloatArray:
        v = np.asarray(self.values, dtype=float)
        return transform(matrix_from_rotvec(v[3:]), v[:3])

    @staticmethod
    def from_T(T: FloatArray) -> Pose:
        return Pose(tuple(float(x) for x in np.concatenate([T[:3, 3], rotvec_from_matrix(T[:3, :3])])))


@dataclass(frozen=True)
class Record:
    """A URScript struct (``struct(p=p[...], q=[...])``): its members' values, and the pose or list literal each
    member was given, if it was (where a motion to the member is written back)."""

    values: dict
    literals: dict


@dataclass
class Binding:
    value: object  # None: known only while running
    literal: Tree | None  # the pose or list literal the variable was given, if it was
    name: str
    why: str = ""  # where a value known only while running came from (" (set at line 7 from an input)")


def line_col(item) -> tuple[int, int]:
    s = span_of(item)
    return s.line, s.column


def assignment(st: Tree) -> tuple[Tree | Token, Tree | Token, bool]:
    """An assignment's target, its value and whether it says ``global``."""
    target, expr = [c for c in st.children if not (isinstance(c, Token) and c.type in ("GLOBAL", "LOCAL"))]
    return target, expr, any(isinstance(c, Token) and c.type == "GLOBAL" for c in st.children)


def is_local(st: Tree) -> bool:
    """An assignment that says ``local``: the running function's variable, whatever the globals."""
    return any(isinstance(c, Token) and c.type == "LOCAL" for c in st.children)


def root_name(target: Tree | Token) -> str | None:
    """The variable an assignment's target changes (``q[0] = ...`` changes ``q``), or None."""
    while isinstance(target, Tree) and target.data == "index":
        target = target.children[0]
    return str(target.children[0]) if isinstance(target, Tree) and target.data == "name" else None


def split_arguments(call: Tree) -> tuple[list, dict]:
    """A call's positional arguments and its keyword arguments by name."""
    args, kwargs = [], {}
    for a in call.children[1:]:
        if isinstance(a, Tree) and a.data == "kwarg":
            kwargs[str(a.children[0])] = a.children[1]
        else:
            args.append(a)
    return args, kwargs


def span_text(text: str, node) -> str:
    """The text of ``node`` in the file, on one line."""
    s = span_of(node)
    return " ".join(text[s.start:s.end].split())


def _origin(exc: Unsupported) -> str:
    """What made a value known only while running, for the message of the motion that reads it."""
    if exc.message.startswith("the value of "):
        return "a value of " + exc.message[len("the value of "):].split(" is not known")[0] + ", known only while running"
    if "is not evaluated" in exc.message:
        return f"the value of {exc.message.split('(', 1)[0]}(...), known only while running"
    if exc.message.endswith(" is a value known only while running"):
        return f"the value of {exc.message.removesuffix(' is a value known only while running')}, known only while running"
    return f"a value known only while running ({exc.message})"


def _same(a: object, b: object) -> bool:
    if a is b:
        return True
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and np.array_equal(a, b)
    return type(a) is type(b) and a == b


def merge_scopes(scopes: list[dict], why: str = "") -> dict:
    """The variables after paths of a program join (the branches of an ``if`` whose course is known only while
    running, a loop run zero or more times): a variable keeps its binding where every path gives it the same value
    (and literal), and is known only while running otherwise, or where a path did not define it.

    Linear in the variables, with one identity check each a path: the paths
    are copies of one scope (:meth:`Values.snapshot`), so a variable no path
    rebound holds the same binding object in all of them and is kept without
    comparing values; only the others are compared (a URCap's preamble defines
    hundreds of globals, and a program joins paths at every ``if`` it cannot
    decide).
    """
    first = scopes[0]
    merged = dict(first)
    suspects: set = set()
    for scope in scopes[1:]:
        if scope is first:
            continue
        if len(scope) == len(first) and list(scope) == list(first):  # (the same names in one order: the rebound
            suspects.update(compress(scope, map(operator.is_not, scope.values(), first.values())))  # ones, at C speed)
            continue
        get = first.get
        suspects.update(name for name, binding in scope.items() if get(name) is not binding)
        suspects.update(first.keys() - scope.keys())
    for name in suspects:
        bindings = [s.get(name) for s in scopes]
        head = bindings[0]
        if all(b is not None for b in bindings) and all(
                b is head or (_same(b.value, head.value) and b.literal is head.literal) for b in bindings[1:]):
            merged[name] = head
        else:
            unknown = next((b for b in bindings if b is not None and b.value is None and b.why), None)
            merged[name] = unknown or Binding(None, None, name, why)
    return merged


@dataclass
class State:
    """What a path of the program has changed: the globals, the running function's locals, the tool (``None``:
    not known before running, set by a ``set_tcp`` under a condition, at ``tool_why``)."""

    globals: dict
    local: dict
    tool: FloatArray | None
    tool_why: str


def same_state(a: State, b: State) -> bool:
    """Two paths' states give every variable and the tool the same value (a loop's head found: Flow.settle)."""
    def same_scope(x: dict, y: dict) -> bool:
        if x.keys() != y.keys():
            return False
        keys = list(x) if list(x) == list(y) else None  # (one order: the differing bindings found at C speed)
        differ = compress(keys, map(operator.is_not, x.values(), y.values())) if keys is not None else x
        return all(x[k] is y[k] or (_same(x[k].value, y[k].value) and x[k].literal is y[k].literal) for k in differ)
    tools = (a.tool is None and b.tool is None) or (a.tool is not None and b.tool is not None
                                                     and np.array_equal(a.tool, b.tool))
    return tools and same_scope(a.globals, b.globals) and same_scope(a.local, b.local)


class Values:
    """The walker's data: scopes, assignment, evaluation of expressions (mixed into the walker)."""

    path: str
    text: str
    globals: dict
    tool: FloatArray | None
    tool_why: str
    functions: dict

    def error(self, message: str, where) -> InputError:
        line, column = line_col(where)
        return InputError(f"{message} (column {column})", path=self.path, row=line)

    # ----- states of paths
    def snapshot(self, local: dict) -> State:
        return State(dict(self.globals), dict(local), self.tool, self.tool_why)

    def restore(self, state: State, local: dict) -> None:
        same = local is self.globals
        self.globals.clear()
        self.globals.update(state.globals)
        if not same:
            local.clear()
            local.update(state.local)
        self.tool, self.tool_why = state.tool, state.tool_why

    def merge(self, states: list[State], local: dict, why: str, data_why: str = "") -> None:
        """Continue from where ``states`` (paths) join: each variable, and the tool, known where all agree. ``why``:
        what set the tool where they do not (``set_tcp in ...``); ``data_why``: what changed a variable where they
        do not (by default, the paths through the construct ``why`` names)."""
        where = why.removeprefix("set_tcp in ").removeprefix("a branch of ")
        data_why = data_why or f" (the paths through {where} give it different values)"
        globals_ = merge_scopes([s.globals for s in states], data_why)
        locals_ = globals_ if local is self.globals else merge_scopes([s.local for s in states], data_why)
        tools = [s.tool for s in states]
        if all(t is not None for t in tools) and all(np.array_equal(t, tools[0]) for t in tools[1:]):
            tool, tool_why = tools[0], ""
        else:
            tool = None
            tool_why = next((s.tool_why for s in states if s.tool is None and s.tool_why), why)
        self.restore(State(globals_, locals_, tool, tool_why), local)

    # ----- variables
    def assign(self, st: Tree, local: dict) -> None:
        target, expr, is_global = assignment(st)
        if not (isinstance(target, Tree) and target.data == "name"):
            try:  # an element of a list, a matrix or a pose (``Point_Pick[2] = 0.415 + z``)
                self._assign_element(target, expr, is_global, local)
            except Unsupported:
                self.forget(st, local)  # (not known: any later read of it is not known either)
            return
        name = str(target.children[0])
        if isinstance(expr, Tree) and expr.data == "run_stmt":  # ``thrd = run Thread_1()``: the thread's handle
            self.start_thread(expr)
        why = ""
        try:
            value = self.evaluate(expr, local)
        except Unsupported as exc:
            value = None
            why = f" (line {line_col(st)[0]} gives it {_origin(exc)})"
        literal = expr if isinstance(expr, Tree) and expr.data in ("pose", "list") else None
        if is_local(st):
            local[name] = Binding(value, literal, name, why)
            return
        self.bind(name, Binding(value, literal, name, why), is_global, local)

    def _assign_element(self, target: Tree, expr, is_global: bool, local: dict) -> None:
        """``name[i] = value``, ``name[i, j] = value``, ``name[i][j] = value``: the variable's known value with that
        element replaced (a pose's coordinate, a list's or a matrix's entry); Unsupported when the variable, an
        index or the value is not known before running, or an index is out of range."""
        indices: list = []
        node = target
        while isinstance(node, Tree) and node.data == "index":
            indices[:0] = node.children[1:]
            node = node.children[0]
        name = str(node.children[0])
        old = self.lookup(node.children[0], local)
        positions = [int(self.number(i, local)) for i in indices]
        value = self.evaluate(expr, local)

        def replaced(container, at: list):
            i = at[0]
            seq = list(container.values) if isinstance(container, Pose) else container
            if not isinstance(seq, list) or not -len(seq) <= i < len(seq):
                raise Unsupported("index out of range", target)
            seq = list(seq)
            seq[i] = replaced(seq[i], at[1:]) if len(at) > 1 else value
            if isinstance(container, Pose):
                if not all(isinstance(v, float) and not isinstance(v, bool) for v in seq):
                    raise Unsupported("a pose's coordinate must be a number", target)
                return Pose(tuple(seq))
            return seq

        self.bind(name, Binding(replaced(old.value, positions), None, name), is_global, local)

    def forget(self, st: Tree, local: dict) -> None:
        """The variable an assignment that was not run may have changed: its value is no longer known."""
        target, _, is_global = assignment(st)
        name = root_name(target)
        if name is not None:
            self.bind(name, Binding(None, None, name, f" (line {line_col(st)[0]} may change it, in a construct not "
                                                      "followed)"), is_global, local)

    def bind(self, name: str, binding: Binding, is_global: bool, local: dict) -> None:
        scope = self.globals if is_global or (name not in local and name in self.globals) else local
        old = scope.get(name)  # (at the top level ``local`` is the globals)
        if old is not None and old.literal is binding.literal and old.why == binding.why \
                and _same(old.value, binding.value):
            return  # (the binding it has: kept, so states that agree are the same objects: Flow.call_function_of_file)
        scope[name] = binding

    def lookup(self, token: Token, local: dict) -> Binding:
        name = str(token)
        if name in local:
            binding = local[name]
        elif name in self.globals:
            binding = self.globals[name]
        elif name in ("True", "False"):
            return Binding(name == "True", None, name)
        elif name == "pi":
            return Binding(float(np.pi), None, name)
        else:
            raise Unsupported(f"{name} has no value here: nothing before this point in the file gives it one (no "
                              "assignment, parameter or global of that name)", token)
        if binding.value is None:
            raise Unsupported(f"the value of {name} is not known before running{binding.why}", token)
        return binding

    # ----- expressions
    def condition(self, node, local: dict) -> bool:
        """A condition, evaluated: a comparison of known numbers, ``not``, ``and``, ``or``, a known bool."""
        if isinstance(node, Tree) and node.data == "comparison":
            left, op, right = node.children
            if str(op) in ("==", "!="):  # (numbers, bools, strings: each with its own kind)
                a, b = self.evaluate(left, local), self.evaluate(right, local)
                if isinstance(a, bool) != isinstance(b, bool) or type(a) not in (bool, float, str) \
                        or type(a) is not type(b):
                    raise Unsupported("a comparison of values of different kinds", node)
                return COMPARE[str(op)](a, b)
            a, b = self.number(left, local), self.number(right, local)
            return COMPARE[str(op)](a, b)
        if isinstance(node, Tree) and node.data == "not_":
            return not self.condition(node.children[0], local)
        if isinstance(node, Tree) and node.data in ("and_expr", "or_expr", "xor_expr"):
            values = [self.condition(c, local) for c in node.children]
            if node.data == "xor_expr":
                return sum(values) % 2 == 1
            return all(values) if node.data == "and_expr" else any(values)
        value = self.evaluate(node, local)
        if not isinstance(value, bool):
            raise Unsupported("a condition that is not a comparison of known values", node)
        return value

    def evaluate(self, node, local: dict):
        if isinstance(node, Token):
            raise Unsupported(f"cannot evaluate {node}", node)
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
            value = self.number(node.children[1], local)
            return -value if str(node.children[0]) == "-" else value
        if kind == "pose":
            values = [self.number(c, local) for c in node.children[1:]]
            if len(values) != 6:
                raise self.error(f"expected a pose p[x, y, z, rx, ry, rz], got {len(values)} values", node)
            if not max(map(abs, values)) <= MAX_POSE_VALUE:
                raise self.error(f"a pose value of {max(map(abs, values)):.6g} is out of range (at most "
                                 f"{MAX_POSE_VALUE:g} m or rad)", node)
            return Pose(tuple(values))
        if kind == "list":
            return [self.evaluate(c, local) for c in node.children]
        if kind in ("and_expr", "or_expr", "xor_expr", "not_", "comparison"):
            return self.condition(node, local)
        if kind in ("sum", "product"):
            value = self._operand(node.children[0], local)
            for op, operand in zip(node.children[1::2], node.children[2::2]):
                right = self._operand(operand, local)
                op = str(op)
                if not (isinstance(value, float) and isinstance(right, float)):
                    value = _array_operation(value, op, right, operand)
                    continue
                if op in "/%" and right == 0:
                    raise Unsupported("division by zero", operand)
                value = {"+": value + right, "-": value - right, "*": value * right,
                         "/": value / right if right else 0.0, "%": np.fmod(value, right) if right else 0.0}[op]
            return value
        if kind == "index":  # (``m[i, j]``: a matrix's element, row i, column j)
            value = self.evaluate(node.children[0], local)
            for index in node.children[1:]:
                i = int(self.number(index, local))
                seq = value.values if isinstance(value, Pose) else value
                if not isinstance(seq, (list, tuple)) or not -len(seq) <= i < len(seq):
                    raise Unsupported("index out of range", node)
                value = seq[i]
            return value
        if kind == "call":
            return self.call_function(node, local)
        if kind == "member":
            base, member = self.evaluate(node.children[0], local), str(node.children[1])
            if isinstance(base, Pose) and member in POSE_MEMBERS:
                return base.values[POSE_MEMBERS[member]]
            if isinstance(base, Record) and member in base.values:
                return base.values[member]
            raise Unsupported(f"no member {member} known here", node)
        if kind == "method":  # (an object outside the robot: an RPC server, a socket)
            raise Unsupported(f"{span_text(self.text, node)} is a value known only while running", node)
        if kind == "run_stmt":
            raise Unsupported(f"run {node.children[0]}() is a value known only while running", node)
        raise Unsupported(f"cannot evaluate this expression ({kind})", node)

    def _operand(self, node, local):
        """An operand of ``+ - * / %``: a number, or an array or matrix of numbers (the manual's "Matrix and Array
        Expressions")."""
        value = self.evaluate(node, local)
        if isinstance(value, bool) or not (isinstance(value, float) or _numeric_array(value)):
            raise Unsupported("expected a number", node)
        return value

    def number(self, node, local) -> float:
        value = self.evaluate(node, local)
        if isinstance(value, bool) or not isinstance(value, float):
            raise Unsupported("expected a number", node)
        return value

    def pose(self, node, local) -> Pose:
        value = self.evaluate(node, local)
        if not isinstance(value, Pose):
            raise Unsupported("expected a pose", node)
        return value

    def call_function(self, node: Tree, local: dict):
        name = str(node.children[0])
        args, kwargs = split_arguments(node)
        if name in ("pose_trans", "pose_add") and len(args) == 2 and not kwargs:
            a, b = self.pose(args[0], local), self.pose(args[1], local)
            if name == "pose_trans":
                return Pose.from_T(a.T @ b.T)
            return Pose.from_T(transform(a.T[:3, :3] @ b.T[:3, :3], a.T[:3, 3] + b.T[:3, 3]))
        if name == "pose_sub" and len(args) == 2 and not kwargs:  # (pose_add(pose_sub(a, b), b) is a: the manual)
            a, b = self.pose(args[0], local).T, self.pose(args[1], local).T
            return Pose.from_T(transform(a[:3, :3] @ b[:3, :3].T, a[:3, 3] - b[:3, 3]))
        if name in ("get_actual_tcp_pose", "get_forward_kin", "get_target_tcp_pose"):  # (urscript_flow, loops')
            return self.standing_pose(node)
        if name == "pose_inv" and len(args) == 1:
            return Pose.from_T(invert_transform(self.pose(args[0], local).T))
        if name in ("d2r", "r2d") and len(args) == 1:
            x = self.number(args[0], local)
            return float(np.radians(x) if name == "d2r" else np.degrees(x))
        if name in VECTOR_FUNCTIONS and len(args) == VECTOR_FUNCTIONS[name] and not kwargs:
            return self._vector_function(name, [self.evaluate(a, local) for a in args], node)
        if name in MATH and len(args) == MATH[name][0] and not kwargs:  # (a circle of targets: sin, cos of a step)
            values = [self.number(a, local) for a in args]
            with np.errstate(all="ignore"):
                result = float(MATH[name][1](*values))
            if not np.isfinite(result):
                raise Unsupported(f"{name} of {', '.join(f'{v:g}' for v in values)} is not a number", node)
            return result
        if name == "struct" and not args:
            return Record({k: self.evaluate(v, local) for k, v in kwargs.items()},
                          {k: v for k, v in kwargs.items() if isinstance(v, Tree) and v.data in ("pose", "list")})
        if name in self.functions:  # a function of the file, for its value: it runs here
            return self.run_call(node, local, 0, for_value=True)
        raise Unsupported(f"{name}(...) is not evaluated (pose_trans, pose_add, pose_inv, interpolate_pose, "
                          "rpy2rotvec, rotvec2rpy, d2r, r2d and the math functions of numbers are)", node)

    @staticmethod
    def _vector_function(name: str, values: list, node):
        """The manual's functions of rotations, poses and lists (module "urmath"), on values known before running.

        ``rpy2rotvec([roll, pitch, yaw])``: the rotation vector [rad] of ``Rz(yaw) Ry(pitch) Rx(roll)`` (extrinsic
        rotations about X, Y, Z); ``rotvec2rpy(v)`` its inverse. ``interpolate_pose(p_from, p_to, alpha)``: the
        position along the straight line, the orientation along the geodesic from ``p_from`` (0) to ``p_to`` (1),
        beyond them for ``alpha`` outside [0, 1]. ``point_dist(p_from, p_to)``: the distance [m] of the positions.
        ``norm(a)``: ``|a|`` of a number, the Euclidean norm of a list of numbers or of a pose's six values.
        ``normalize(v)``: ``v / norm(v)``.
        """
        def numbers(value, n: int | None = None) -> np.ndarray:
            if isinstance(value, Pose):
                value = list(value.values)
            if not (isinstance(value, list) and value and (n is None or len(value) == n)
                    and all(isinstance(v, float) and not isinstance(v, bool) for v in value)):
                raise Unsupported(f"{name}: expected {'a list of numbers' if n is None else f'a list of {n} numbers'}",
                                  node)
            return np.asarray(value, dtype=float)

        def pose(value) -> Pose:
            if not isinstance(value, Pose):
                raise Unsupported(f"{name}: expected a pose", node)
            return value

        if name == "rpy2rotvec":
            roll, pitch, yaw = numbers(values[0], 3)
            return [float(v) for v in rotvec_from_matrix(rot_z(yaw) @ rot_y(pitch) @ rot_x(roll))]
        if name == "rotvec2rpy":
            z, y, x = euler_zyx_from_matrix(matrix_from_rotvec(numbers(values[0], 3)))
            return [float(x), float(y), float(z)]
        if name == "point_dist":
            a, b = pose(values[0]), pose(values[1])
            return float(np.linalg.norm(np.subtract(b.values[:3], a.values[:3])))
        if name == "norm":
            if isinstance(values[0], float) and not isinstance(values[0], bool):
                return abs(values[0])
            return float(np.linalg.norm(numbers(values[0])))
        if name == "normalize":
            v = numbers(values[0])
            if not np.any(v):
                raise Unsupported("normalize of a list of zeros (the controller throws an exception)", node)
            return [float(x) for x in v / np.linalg.norm(v)]
        a, b, alpha = pose(values[0]), pose(values[1]), values[2]  # interpolate_pose
        if isinstance(alpha, bool) or not isinstance(alpha, float):
            raise Unsupported("interpolate_pose: expected alpha, a number", node)
        Ra, Rb = a.T[:3, :3], b.T[:3, :3]
        R = Ra @ matrix_from_rotvec(alpha * rotvec_from_matrix(Ra.T @ Rb))
        position = (1.0 - alpha) * np.asarray(a.values[:3]) + alpha * np.asarray(b.values[:3])
        return Pose.from_T(transform(R, position))

    # ----- calls with arguments
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
        scope: dict[str, Binding] = {}
        for i, (param, default) in enumerate(defined):
            if i < len(args):
                if param in kwargs:
                    raise self.error(f"{name}: parameter {param} is given twice", call)
                scope[param] = self._argument(function, param, args[i], local)
            elif param in kwargs:
                scope[param] = self._argument(function, param, kwargs[param], local)
            elif default is not None:
                scope[param] = Binding(self.evaluate(default, {}), None, param)
            else:
                raise self.error(f"{name}: no value for parameter {param}", call)
        return scope

    def _argument(self, function: Tree, param: str, node, local: dict) -> Binding:
        if isinstance(node, Tree) and node.data == "name":
            try:
                binding = self.lookup(node.children[0], local)
            except Unsupported as exc:  # known only while running: an error where it is read
                return Binding(None, None, param, f" (the argument at line {line_col(node)[0]}: {exc.message})")
            self._passed[node.children[0].start_pos] = (span_of(function), param)
            return binding
        try:
            return Binding(self.evaluate(node, local), None, param)
        except Unsupported as exc:  # known only while running (an input, a register): an error where it is read
            return Binding(None, None, param, f" (the argument at line {line_col(node)[0]} is {_origin(exc)})")
