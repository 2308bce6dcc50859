"""URScript's data as the reader follows it (:class:`Values`, part of :mod:`thermocomp.programs.urscript`):
variables, expressions, the states of paths merged where they join. A value is known before running (a float, bool,
string, list, :class:`Pose`, :class:`Record`) or not (``None``: refused where a motion reads it, naming it).
"""

from __future__ import annotations

import math
import operator
from dataclasses import dataclass, replace
from functools import cached_property
from itertools import compress

import numpy as np
from lark import Token, Tree

from thermocomp._typing import FloatArray
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
from thermocomp.programs.grammars import line_col, span_of

#: Largest magnitude of a pose coordinate [m], rotation-vector component or joint position [rad] taken.
MAX_POSE_VALUE = 1e6

#: Members of a pose by name (``pose.x``), as its indices.
POSE_MEMBERS = {"x": 0, "y": 1, "z": 2, "rx": 3, "ry": 4, "rz": 5}

#: URScript's comparisons of numbers.
COMPARE = {"==": operator.eq, "!=": operator.ne, "<=": operator.le, ">=": operator.ge, "<": operator.lt,
           ">": operator.gt}

#: URScript's logic, of the operands' bools.
LOGIC = {"and_expr": all, "or_expr": any, "xor_expr": lambda v: sum(v) % 2 == 1, "not_": lambda v: not v[0]}

#: URScript's arithmetic, of numbers and (index by index) of arrays.
ARITHMETIC = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv, "%": np.fmod}

#: The functions whose value is the pose the robot stands at (urscript_flow.Flow.standing_pose); the manual's
#: ``get_target_waypoint()`` "returns the target tcp pose, if no motion is active" (a PolyScope Direction node's).
STANDING_POSE = frozenset(("get_actual_tcp_pose", "get_forward_kin", "get_target_tcp_pose", "get_target_waypoint"))

#: The names URScript gives a value of its own.
CONSTANTS = {"True": True, "False": False, "pi": float(np.pi)}


class Unsupported(Exception):  # noqa: N818  (a finding, raised to the statement that reports it)
    """A construct, or a value, the reader cannot follow before running; ``where`` locates it, ``origin`` names the
    value for the message of a motion that reads it (``a value of x``)."""

    def __init__(self, message: str, where, origin: str = "") -> None:
        super().__init__(message)
        self.message, self.where, self.origin = message, where, origin


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
    """A URScript struct (``struct(p=p[...], q=[...])``): its members' values, and their pose or list literals."""

    values: dict
    literals: dict


@dataclass
class Binding:
    value: object  # None: known only while running
    literal: Tree | None  # the pose or list literal the variable was given, if it was
    name: str
    why: str = ""  # where a value known only while running came from (" (set at line 7 from an input)")
    stood: int = 0  # the line of the pose the robot stands at its value was computed from (0: none; Values.condition)
    #: The joint position ``get_inverse_kin`` gives of a pose known before running (its value is None): the point a
    #: motion to it goes to and the names read as that point (Motions.inverse_kin); None: none.
    solved: tuple | None = None

    @cached_property
    def signature(self) -> tuple:
        """What of the binding can change what a statement reading it does: equal for bindings a path gave the same
        again (Flow.call_function_of_file)."""
        return _value_signature(self.value), id(self.literal), self.name, self.why, self.stood, id(self.solved)

    def same(self, other: Binding | None) -> bool:
        """``other`` gives one value, literal and solved point (bindings no path rebound are one object)."""
        return self is other or (other is not None and self.literal is other.literal and _same(self.value, other.value)
                                 and self.solved is other.solved)


def _interpolate_pose(a: Pose, b: Pose, alpha: float) -> Pose:
    """The position along the straight line, the orientation along the geodesic from ``a`` (``alpha`` 0) to ``b``
    (1), beyond them for ``alpha`` outside [0, 1]."""
    Ra = a.T[:3, :3]
    R = Ra @ matrix_from_rotvec(alpha * rotvec_from_matrix(Ra.T @ b.T[:3, :3]))
    return Pose.from_T(transform(R, (1.0 - alpha) * np.asarray(a.values[:3]) + alpha * np.asarray(b.values[:3])))


#: The manual's functions evaluated on values known before running: what each argument must be (``p`` a pose,
#: ``n`` a number, ``l`` a list of numbers or a pose's six values, ``3`` a list of three numbers, ``x`` a number or
#: a list of numbers, ``s`` a list of any entries (poses, lists) or a pose's six values) and the function of their
#: values (``rpy2rotvec``: of ``Rz(yaw) Ry(pitch) Rx(roll)``).
BUILTINS = {
    "pose_trans": ("pp", lambda a, b: Pose.from_T(a.T @ b.T)),
    "pose_add": ("pp", lambda a, b: Pose.from_T(transform(a.T[:3, :3] @ b.T[:3, :3], a.T[:3, 3] + b.T[:3, 3]))),
    "pose_sub": ("pp", lambda a, b: Pose.from_T(transform(a.T[:3, :3] @ b.T[:3, :3].T, a.T[:3, 3] - b.T[:3, 3]))),
    "pose_inv": ("p", lambda a: Pose.from_T(invert_transform(a.T))),
    "interpolate_pose": ("ppn", _interpolate_pose),
    "point_dist": ("pp", lambda a, b: np.linalg.norm(np.subtract(b.values[:3], a.values[:3]))),
    "rpy2rotvec": ("3", lambda v: rotvec_from_matrix(rot_z(v[2]) @ rot_y(v[1]) @ rot_x(v[0])).tolist()),
    "rotvec2rpy": ("3", lambda v: euler_zyx_from_matrix(matrix_from_rotvec(v))[::-1].tolist()),
    "norm": ("x", lambda v: abs(v) if isinstance(v, float) else np.linalg.norm(v)),
    "normalize": ("l", lambda v: (v / np.linalg.norm(v)).tolist()),
    "d2r": ("n", np.radians), "r2d": ("n", np.degrees), "sin": ("n", np.sin), "cos": ("n", np.cos),
    "tan": ("n", np.tan), "asin": ("n", np.arcsin), "acos": ("n", np.arccos), "atan": ("n", np.arctan),
    "atan2": ("nn", np.arctan2), "sqrt": ("n", np.sqrt), "pow": ("nn", np.power), "floor": ("n", np.floor),
    "ceil": ("n", np.ceil), "log": ("nn", lambda b, x: np.log(x) / np.log(b)),
    "length": ("s", lambda v: float(len(v))),  # (urmath: "the length of a list variable", whatever its entries)
}
BUILTINS["get_list_length"] = BUILTINS["length"]  # (urmath, SW 5.10's name for the same)

#: The methods of a list evaluated on a list known before running (``q.length()``, as UR's own external_control
#: script writes it): the function of the list's values, as :data:`BUILTINS`.
LIST_METHODS = {"length": BUILTINS["length"][1]}


def _numbers(value) -> bool:
    """A list of numbers."""
    return isinstance(value, list) and bool(value) and all(isinstance(v, float) for v in value)


def _numeric(value) -> bool:
    """A number, a list of numbers, or a list of equally long lists of numbers (a matrix): what arithmetic takes."""
    return isinstance(value, float) or _numbers(value) or (isinstance(value, list) and bool(value) and all(
        _numbers(row) and len(row) == len(value[0]) for row in value))


def _arithmetic(left, op: str, right, where):
    """``left op right`` of numbers, arrays or matrices (the manual's "Matrix and Array Expressions"): a matrix times
    a matrix or an array is the matrix product; else index by index, a number applied to every entry."""
    if isinstance(left, float) and isinstance(right, float):
        if op in "/%" and right == 0:
            raise Unsupported("division by zero", where)
        return ARITHMETIC[op](left, right)
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
        return ARITHMETIC[op](a, b).tolist()


def _elements(value, i: int, where) -> list | tuple:
    """The entries of a list, or a pose's six values, that index ``i`` is one of."""
    seq = value.values if isinstance(value, Pose) else value
    if not isinstance(seq, (list, tuple)) or not -len(seq) <= i < len(seq):
        raise Unsupported("index out of range", where)
    return seq


def assignment(st: Tree) -> tuple[Tree | Token, Tree | Token, str | None]:
    """An assignment's target, its value and its keyword: ``GLOBAL``, ``LOCAL`` (the running function's variable,
    whatever the globals) or None."""
    *word, target, expr = st.children
    return target, expr, word[0].type if word else None


def _origin(exc: Unsupported) -> str:
    """What made a value known only while running (``exc``), for the message of a motion that reads it."""
    return f"{exc.origin}, known only while running" if exc.origin else f"a value known only while running ({exc.message})"


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


def parameters(function: Tree) -> list[tuple[str, Tree | None]]:
    """A ``def``'s parameters: each name and its default (None: it has none)."""
    return [(str(p.children[0]), p.children[1] if len(p.children) > 1 else None)
            for params in function.children if isinstance(params, Tree) and params.data == "params" for p in params.children]


def _same(a: object, b: object) -> bool:
    if a is b:
        return True
    if isinstance(a, (Record, list)) or isinstance(b, (Record, list)):  # (a struct's member literals by identity)
        return _value_signature(a) == _value_signature(b)
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and np.array_equal(a, b)
    return type(a) is type(b) and a == b


def _rebound(scope: dict, first: dict):
    """The names whose binding objects differ between two scopes (copies of one scope: :meth:`Values.snapshot`)."""
    if len(scope) == len(first) and list(scope) == list(first):  # (one order: the rebound ones, at C speed)
        return compress(scope, map(operator.is_not, scope.values(), first.values()))
    return [name for name in scope.keys() | first.keys() if scope.get(name) is not first.get(name)]


def _value_signature(value) -> object:
    if isinstance(value, list):
        return "list", *map(_value_signature, value)
    if isinstance(value, Record):
        return ("record", *((k, _value_signature(v)) for k, v in value.values.items()),
                *((k, id(t)) for k, t in value.literals.items()))
    return type(value), repr(value)


def merge_scopes(scopes: list[dict], why: str = "") -> dict:
    """The variables after paths of a program join: a variable keeps its binding where every path gives it the same
    value and literal, else it is known only while running."""
    first = scopes[0]
    merged = dict(first)
    for name in {name for scope in scopes[1:] if scope is not first for name in _rebound(scope, first)}:
        bindings = [s.get(name) for s in scopes]
        if bindings[0] is not None and all(map(bindings[0].same, bindings[1:])):
            merged[name] = bindings[0]
        else:
            unknown = next((b for b in bindings if b is not None and b.value is None and b.why), None)
            merged[name] = Binding(None, None, name, why) if unknown is None else \
                unknown if unknown.solved is None else replace(unknown, solved=None)
    return merged


@dataclass
class State:
    """A path's state: the globals, the running function's locals, the tool (``None``: unknown, why in
    ``tool_why``)."""

    globals: dict
    local: dict
    tool: FloatArray | None
    tool_why: str


def same_state(a: State, b: State) -> bool:
    """Two paths' states give every variable and the tool the same value (a loop's head found: Flow.settle)."""
    return _same(a.tool, b.tool) and all(x.keys() == y.keys() and all(x[k].same(y[k]) for k in _rebound(x, y))
                                         for x, y in ((a.globals, b.globals), (a.local, b.local)))


class Values:
    """The walker's data: scopes, assignment, evaluation of expressions (mixed into the walker)."""

    path: str
    text: str
    globals: dict
    tool: FloatArray | None
    tool_why: str
    functions: dict
    _deciding = 0  # conditions being evaluated (Values.condition)
    _stood = (0, 0)  # reads of the pose the robot stands at so far, the line of the motion the last one stood after

    # ----- states of paths
    def snapshot(self, local: dict) -> State:
        return State(dict(self.globals), dict(local), self.tool, self.tool_why)

    def restore(self, state: State, local: dict) -> None:
        self.globals.clear()
        self.globals.update(state.globals)
        if local is not self.globals:
            local.clear()
            local.update(state.local)
        self.tool, self.tool_why = state.tool, state.tool_why

    def merge(self, states: list[State], local: dict, where: str, data_why: str = "", tool_where: str | None = None
              ) -> None:
        """Continue from where ``states`` (paths) join: each variable, and the tool, known where all agree. ``where``:
        the construct whose paths join (``the while at line 7``); ``data_why``, ``tool_where``: what changed a variable,
        where a ``set_tcp`` set the tool, where they do not agree (by default, the paths through ``where``)."""
        data_why = data_why or f" (the paths through {where} give it different values)"
        globals_ = merge_scopes([s.globals for s in states], data_why)
        locals_ = globals_ if local is self.globals else merge_scopes([s.local for s in states], data_why)
        tool, tool_why = states[0].tool, ""
        if tool is None or not all(_same(s.tool, tool) for s in states[1:]):
            tool, tool_why = None, next((s.tool_why for s in states if s.tool is None and s.tool_why),
                                        f"set_tcp in {tool_where or where}")
        self.restore(State(globals_, locals_, tool, tool_why), local)

    # ----- variables
    def assign(self, st: Tree, local: dict) -> None:
        """``name = value`` (``global``, ``local``) or ``name[i] = value``; a value not known is bound saying why."""
        target, expr, word = assignment(st)
        if root_name(target) in self.unread:  # (what nothing reads: not evaluated, Flow.unread)
            return
        if target.data == "index":
            try:  # an element of a list, a matrix or a pose (``Point_Pick[2] = 0.415 + z``)
                self._assign_element(target, expr, word == "GLOBAL", local)
            except Unsupported as exc:
                self.forget(st, local, exc)  # (not known: any later read of it is not known either)
            return
        name = str(target.children[0])
        if expr.data == "run_stmt":  # ``thrd = run Thread_1()``: the thread's handle
            self.start_thread(expr)
        binding = self._bound(expr, local, name, f" (line {line_col(st)[0]} gives it {{}})")
        if word == "LOCAL":
            local[name] = binding
        else:
            self.bind(name, binding, word == "GLOBAL", local)

    def _bound(self, expr, local: dict, name: str, unknown: str) -> Binding:
        """``name`` bound to the value of ``expr``, with its pose or list literal and the line of the pose the robot
        stands at it was computed from (:meth:`stood`); a value known only while running is bound saying why
        (``unknown``, ``{}`` its origin), with the joint position ``get_inverse_kin`` gives of a known pose."""
        stood = self._stood
        try:
            value, why = self.evaluate(expr, local), ""
        except Unsupported as exc:  # (what made it known only while running, for the message of a motion reading it)
            value, why = None, unknown.format(_origin(exc))
        solved = self.inverse_kin(expr, local) if value is None and expr.data == "call" else None
        return Binding(value, expr if expr.data in ("pose", "list") else None, name, why,
                       self._stood[1] if self._stood != stood else 0, solved)

    def _assign_element(self, target: Tree, expr, is_global: bool, local: dict) -> None:
        """``name[i] = value``, ``name[i, j] = value``, ``name[i][j] = value``: the variable's value with that element
        replaced; Unsupported when not known or out of range."""
        indices: list = []
        node = target
        while node.data == "index":
            indices[:0] = node.children[1:]
            node = node.children[0]
        stood = self._stood
        old = self.lookup(node.children[0], local)
        positions = [self._index(i, local, target) for i in indices]
        value = self.evaluate(expr, local)

        def replaced(container, at: list):
            seq = list(_elements(container, at[0], target))
            seq[at[0]] = replaced(seq[at[0]], at[1:]) if len(at) > 1 else value
            if not isinstance(container, Pose):
                return seq
            if not all(isinstance(v, float) for v in seq):
                raise Unsupported("a pose's coordinate must be a number", target)
            return Pose(tuple(seq))

        name = str(node.children[0])
        self.bind(name, Binding(replaced(old.value, positions), None, name,
                                stood=self._stood[1] if self._stood != stood else 0), is_global, local)

    def forget(self, st: Tree, local: dict, exc: Unsupported | None = None) -> None:
        """The variable an assignment that was not run (or of an element whose value, ``exc``, or whose variable's,
        is not known) may have changed: its value is no longer known."""
        target, _, word = assignment(st)
        name = root_name(target)
        if name is None or name in self.unread:
            return
        held, line = local.get(name) or self.globals.get(name), line_col(st)[0]
        if exc is None:
            why = f" (line {line} may change it, in a construct not followed)"
        elif held is not None and held.value is None and held.why:
            why = held.why  # (an element of a variable not known: the reason it is not known stands)
        else:
            why = f" (line {line} gives it {_origin(exc)})"
        self.bind(name, Binding(None, None, name, why), word == "GLOBAL", local)

    def bind(self, name: str, binding: Binding, is_global: bool, local: dict) -> None:
        scope = self.globals if is_global or (name not in local and name in self.globals) else local
        old = scope.get(name)  # (at the top level ``local`` is the globals)
        if old is None or old.why != binding.why or not old.same(binding):
            scope[name] = binding  # (else the binding it has is kept: states that agree are the same objects)

    def solved(self, node, local: dict) -> Binding | None:
        """The binding of the name ``node`` where it holds a joint position ``get_inverse_kin`` gave of a pose known
        before running (:attr:`Binding.solved`); None for anything else."""
        if node.data != "name":
            return None
        name = str(node.children[0])
        held = local.get(name) or self.globals.get(name)
        return held if held is not None and held.solved is not None else None

    def lookup(self, token: Token, local: dict) -> Binding:
        name = str(token)
        binding = local.get(name) or self.globals.get(name)
        if binding is None:
            if name in CONSTANTS:
                return Binding(CONSTANTS[name], None, name)
            raise Unsupported(f"{name} has no value here: nothing before this point in the file gives it one (no "
                              "assignment, parameter or global of that name)", token)
        if binding.value is None:
            raise Unsupported(f"the value of {name} is not known before running{binding.why}", token, f"a value of {name}")
        if binding.stood:
            self.stood(binding.stood, token, f"{name} (computed from the pose the robot stands at after the motion at "
                                             f"line {binding.stood})")
        return binding

    def stood(self, line: int, where, what: str) -> None:
        """A read at ``where`` of the pose the robot stands at after the motion at ``line``: remembered for the
        variable being assigned; in a condition, refused naming ``what``."""
        if self._deciding:
            raise self.error(f"{what} decides a condition: in the compensated script the controller reads the corrected "
                             "target there, not the one written, and may decide otherwise", where)
        self._stood = (self._stood[0] + 1, line)

    # ----- expressions: each rule of urscript.lark by its entry in the table _RULES
    def evaluate(self, node, local: dict):
        """The value of the expression ``node`` known before running (a float, bool, str, list, :class:`Pose` or
        :class:`Record`); Unsupported, locating what is not."""
        return _RULES[node.data](self, node, local)

    def condition(self, node, local: dict) -> bool:
        """A condition, evaluated to a known bool; one that reads the pose the robot stands at is refused."""
        self._deciding += 1
        try:
            value = self.evaluate(node, local)
        finally:
            self._deciding -= 1
        if not isinstance(value, bool):
            raise Unsupported("a condition that is not a comparison of known values", node)
        return value

    def _expect(self, node, local: dict, kind, what: str):
        """The value of ``node``, of ``kind`` (a type, or a test of the value), else Unsupported ``expected what``."""
        value = self.evaluate(node, local)
        if not (isinstance(value, kind) if isinstance(kind, type) else kind(value)):
            raise Unsupported(f"expected {what}", node)
        return value

    def number(self, node, local) -> float:
        return self._expect(node, local, float, "a number")

    def pose(self, node, local) -> Pose:
        return self._expect(node, local, Pose, "a pose")

    def _value_number(self, node: Tree, local: dict) -> float:
        value = float(node.children[0])
        if not np.isfinite(value):
            raise self.error(f"number {node.children[0]!s} is out of range (beyond a double)", node)
        return value

    def _value_pose(self, node: Tree, local: dict) -> Pose:
        values = [self.number(c, local) for c in node.children[1:]]
        if len(values) != 6:
            raise self.error(f"expected a pose p[x, y, z, rx, ry, rz], got {len(values)} values", node)
        worst = max(map(abs, values), key=lambda v: (v != v, v))  # (a NaN first: max() passed it over)
        if not worst <= MAX_POSE_VALUE:
            raise self.error(f"a pose value of {worst:.6g} is out of range (at most "
                             f"{MAX_POSE_VALUE:g} m or rad)", node)
        return Pose(tuple(values))

    def _value_comparison(self, node: Tree, local: dict) -> bool:
        left, op, right = node.children
        if str(op) not in ("==", "!="):
            return COMPARE[str(op)](self.number(left, local), self.number(right, local))
        a, b = self.evaluate(left, local), self.evaluate(right, local)  # (numbers, bools, strings: each its own kind)
        if type(a) not in (bool, float, str) or type(a) is not type(b):
            raise Unsupported("a comparison of values of different kinds", node)
        return COMPARE[str(op)](a, b)

    def _value_sum(self, node: Tree, local: dict):  # (also a product: ``a * b / c % d``)
        value = self._expect(node.children[0], local, _numeric, "a number")
        for op, operand in zip(node.children[1::2], node.children[2::2]):
            value = _arithmetic(value, str(op), self._expect(operand, local, _numeric, "a number"), operand)
        return value

    def _value_index(self, node: Tree, local: dict):  # (``m[i, j]``: a matrix's element, row i, column j)
        value = self.evaluate(node.children[0], local)
        for index in node.children[1:]:
            i = self._index(index, local, node)
            value = _elements(value, i, node)[i]
        return value

    def _index(self, node, local: dict, where: Tree) -> int:
        """An index: a finite number known before running, whole or cut to one (NaN, ``inf - inf``: out of range)."""
        number = self.number(node, local)
        if not math.isfinite(number):
            raise Unsupported(f"index {number:g} out of range", where)
        return int(number)

    def _value_member(self, node: Tree, local: dict):
        base, member = self.evaluate(node.children[0], local), str(node.children[1])
        if isinstance(base, Pose) and member in POSE_MEMBERS:
            return base.values[POSE_MEMBERS[member]]
        if isinstance(base, Record) and member in base.values:
            return base.values[member]
        raise Unsupported(f"no member {member} known here", node)

    def _value_method(self, node: Tree, local: dict):
        """A method's value: a known list's :data:`LIST_METHODS`; else an object's outside the robot (an RPC server,
        a socket), known only while running."""
        base_node, *rest = node.children  # (base, name, arguments)
        if rest and str(rest[0]) in LIST_METHODS and not any(a is not None for a in rest[1:]) and isinstance(
                base_node, Tree):
            try:
                base = self.evaluate(base_node, local)
            except Unsupported:
                base = None
            if isinstance(base, list):
                return LIST_METHODS[str(rest[0])](base)
        s = span_of(node)
        text = " ".join(self.text[s.start:s.end].split())
        raise Unsupported(f"{text} is a value known only while running", node, f"the value of {text}")

    def _value_call(self, node: Tree, local: dict):
        """A call's value: the manual's functions of known values (:data:`BUILTINS`), ``struct``, where the robot
        stands (``get_actual_tcp_pose``), a function of the file (run here)."""
        name = str(node.children[0])
        args, kwargs = split_arguments(node)
        if name in STANDING_POSE:
            return self.standing_pose(node)
        if name in BUILTINS and len(args) == len(BUILTINS[name][0]) and not kwargs:
            kinds, function = BUILTINS[name]
            values = [self._builtin_argument(kind, a, local, name, node) for kind, a in zip(kinds, args)]
            with np.errstate(all="ignore"):
                result = function(*values)
            if isinstance(result, float):  # (numpy's floats too: one kind of number)
                result = float(result)
            if not np.all(np.isfinite(result.values if isinstance(result, Pose) else result)):
                shown = ", ".join(f"{v:g}" if isinstance(v, float) else repr(np.asarray(v).tolist()) for v in values)
                raise Unsupported(f"{name} of {shown} is not a number", node)
            return result
        if name == "struct" and not args:
            return Record({k: self.evaluate(v, local) for k, v in kwargs.items()},
                          {k: v for k, v in kwargs.items() if isinstance(v, Tree) and v.data in ("pose", "list")})
        if name in self.functions:  # a function of the file, for its value: it runs here
            value = self.run_call(node, local, 0, for_value=True)
            if value is None or isinstance(value, Unsupported):  # (its return read a value known only while running)
                why = f": {value.message}" if value is not None else ""
                raise Unsupported(f"the value {name}(...) returns is not known before running{why}", node,
                                  f"the value of {name}(...)")
            return value
        if name == "pose_dist":  # (UR's forum: "you can't say about specific units", more like a time than a length)
            raise Unsupported("pose_dist(...) is not evaluated: its value is the controller's own blend of distance "
                              "and rotation, which the URScript manual does not define (point_dist is evaluated)",
                              node, "the value of pose_dist(...) (the controller's own measure, which the manual does "
                              "not define)")
        raise Unsupported(f"{name}(...) is not evaluated (pose_trans, pose_add, pose_inv, interpolate_pose, "
                          "rpy2rotvec, rotvec2rpy, d2r, r2d and the math functions of numbers are)", node,
                          f"the value of {name}(...)")

    def _builtin_argument(self, kind: str, node, local: dict, name: str, call: Tree):
        """An argument of a :data:`BUILTINS` function, as its ``kind`` says (a list of numbers: a numpy array)."""
        if kind in "pn":
            return self.pose(node, local) if kind == "p" else self.number(node, local)
        value = self.evaluate(node, local)
        if kind == "x" and isinstance(value, float):
            return value
        value = list(value.values) if isinstance(value, Pose) else value
        if kind == "s":  # (a list of poses or of lists: its entries are not read, only counted)
            if not isinstance(value, list):
                raise Unsupported(f"{name}: expected a list", call)
            return value
        if not _numbers(value) or (kind == "3" and len(value) != 3):
            raise Unsupported(f"{name}: expected {'a list of 3 numbers' if kind == '3' else 'a list of numbers'}",
                              call)
        return np.asarray(value, dtype=float)

    # ----- calls with arguments
    def bind_arguments(self, function: Tree, args: list, kwargs: dict, local: dict, call: Tree) -> dict:
        """The local scope a call of ``function`` starts with: each parameter bound to its argument (positional,
        keyword, else its default), evaluated in the caller (a variable's binding passed on). What the controller
        refuses (too many arguments, an unknown or repeated keyword, a parameter without value) is an error."""
        defined = parameters(function)
        name, names = str(function.children[0]), [n for n, _ in defined]
        if len(args) > len(defined):
            raise self.error(f"{name} takes {len(defined)} argument(s) ({', '.join(names) or 'none'}), "
                             f"got {len(args)}", call)
        unknown = sorted(set(kwargs) - set(names))
        if unknown:
            raise self.error(f"{name} has no parameter {unknown[0]}", call)
        scope: dict[str, Binding] = {}
        for i, (param, default) in enumerate(defined):
            if i < len(args) and param in kwargs:
                raise self.error(f"{name}: parameter {param} is given twice", call)
            if i < len(args) or param in kwargs:
                scope[param] = self._argument(function, param, args[i] if i < len(args) else kwargs[param], local)
            elif default is not None:
                scope[param] = Binding(self.evaluate(default, {}), None, param)
            else:
                raise self.error(f"{name}: no value for parameter {param}", call)
        return scope

    def _argument(self, function: Tree, param: str, node, local: dict) -> Binding:
        if node.data == "name":
            held = self.solved(node, local)
            if held is not None:  # (get_inverse_kin of a known pose: a motion reads that pose, Motions.point)
                return held
            try:
                binding = self.lookup(node.children[0], local)
            except Unsupported as exc:  # known only while running: an error where it is read
                return Binding(None, None, param, f" (the argument at line {line_col(node)[0]}: {exc.message})")
            self._passed[node.children[0].start_pos] = (span_of(function), param)
            return binding
        bound = self._bound(node, local, param, f" (the argument at line {line_col(node)[0]} is {{}})")
        if bound.value is None:  # known only while running (an input, a register): an error where it is read
            return replace(bound, literal=None, stood=0)
        if bound.stood:  # (computed from the pose the robot stands at: Values.condition)
            return replace(bound, literal=None)
        if bound.literal is not None:  # a target written at the call site: written there when the function reads
            self._passed[node.meta.start_pos] = (span_of(function), param)  # it only as motions' points (.calls)
        return bound


#: The rules of expressions (urscript.lark) -> what evaluates them (:meth:`Values.evaluate`): a method
#: ``_value_<rule>`` of :class:`Values`, or one of these.
_RULES = {
    **{name.removeprefix("_value_"): method for name, method in vars(Values).items() if name.startswith("_value_")},
    "string": lambda self, node, local: str(node.children[0])[1:-1],
    "name": lambda self, node, local: self.lookup(node.children[0], local).value,
    "signed": lambda self, node, local: (operator.neg if str(node.children[0]) == "-" else operator.pos)(
        self.number(node.children[1], local)),
    "list": lambda self, node, local: [self.evaluate(c, local) for c in node.children],
    "product": Values._value_sum,
    "run_stmt": Values._value_method,  # (``run T()``: a thread's handle)
    # (``and``, ``or``, ``xor``, ``not``: every operand read)
    **dict.fromkeys(("and_expr", "or_expr", "xor_expr", "not_"),
                    lambda self, node, local: LOGIC[node.data]([self.condition(c, local) for c in node.children])),
}
