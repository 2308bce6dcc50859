"""The expressions a xacro robot file may hold, evaluated without running code from the file.

The ``xacro`` package evaluates ``${...}`` and ``$(eval ...)`` with Python's
``eval``, filtering only names that start with ``__``. A robot file from a
stranger gets round that filter with string keys (``python.vars(...)['__globals__']``)
and reaches ``os.system``. This module replaces both evaluations with its own
interpreter of the small language robot descriptions use (docs/robot_files.md):

- numbers, strings, ``True``/``False``/``None``, lists, tuples and dicts;
- names of properties and arguments, ``pi``, ``e``, ``tau``, ``inf``, ``nan``;
- arithmetic, comparisons, ``and``/``or``/``not``, ``a if c else b``;
- items (``cfg['shoulder']['x']``, slices) and dotted keys of loaded YAML (``cfg.shoulder.x``);
- calls of a fixed list of functions, chosen by the name written in the file,
  never by what a property holds: the ``math`` functions (bare or ``math.``),
  ``radians``/``degrees``, ``min``/``max``/``round``/``int``/``float``/
  ``str``/``bool``/``len``/``dict``/``list`` (the builtins stock xacro exposes),
  ``xacro.load_yaml`` of a file inside the robot's folders, ``xacro.arg``,
  ``xacro.fatal``; in ``$(eval ...)`` also ``arg``, ``find`` and ``dirname``.

Everything else (attributes of anything but YAML data, method calls,
lambdas, comprehensions, an object that is not plain data) is refused with
:class:`UnsafeExpression` before anything is evaluated that could act.
"""

from __future__ import annotations

import ast
import math
import operator
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

#: The largest integer and repeated text an expression may build (a robot description needs neither;
#: ``${9**9**9}`` would compute for ever). 14,000 bits are 4,215 digits: Python writes an integer of at most 4,300
#: as text, and xacro writes every value of an attribute as text.
MAX_RESULT_BITS = 14_000
MAX_TEXT_LENGTH = 1 << 20
#: The most characters a value may take written out as text (``str``, a format, an attribute): a list held many
#: times over (``[a] * 1000000``, YAML aliases ``*a``) is short but its text is not (the bound of a whole
#: expansion, io/robot_files.MAX_EXPANSION_CHARS).
MAX_WRITTEN_CHARS = 32 * 2**20
#: The widest field and the longest precision a format may ask for (``f'{x:>300000000}'``, ``'%300000000d' % x``
#: built a 300 MB joint name): a robot description formats numbers and names, a few dozen characters.
MAX_FORMAT_WIDTH = 1000


class UnsafeExpression(ValueError):
    """An expression outside the language robot descriptions use."""


_BINARY = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
}
_UNARY = {ast.UAdd: operator.pos, ast.USub: operator.neg, ast.Not: operator.not_}
_COMPARE = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt,
    ast.GtE: operator.ge, ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
    ast.Is: operator.is_, ast.IsNot: operator.is_not,
}

_MATH_FUNCTIONS = {name: f for name, f in vars(math).items() if callable(f) and not name.startswith("_")}
_BUILTINS: dict[str, Callable] = {
    "min": min, "max": max, "round": round, "int": int, "float": float, "str": str, "bool": bool, "len": len,
    "dict": dict, "list": list,
}
#: The width and precision of each conversion of a %-format (``%(name)-08.3f``; ``%%`` has neither).
_PERCENT_FIELD = re.compile(r"%(?:\([^)]*\))?[#0\- +]*(\*|\d+)?(?:\.(\*|\d*))?")
_DIGITS = re.compile(r"\d+")
_ALIGN = "<>=^"
#: Plain data: what a name, an item or a result may be (YAML wrappers are dict and list subclasses).
_DATA = (int, float, complex, str, bool, type(None), list, tuple, dict)
_CONTAINERS = (list, tuple, dict)
#: The math functions whose integer result grows with their arguments: its bits, about, known before the call
#: (``comb(10**6, 5*10**5)`` computed for a minute; the result is checked too, but only once it is built).
_GROWING: dict[str, Callable[..., int]] = {
    "factorial": lambda n: n * n.bit_length(),
    "perm": lambda n, k=None: (n if k is None else k) * n.bit_length(),
    "comb": lambda n, k: n,
    "prod": lambda items, *, start=1: sum(v.bit_length() for v in [*items, start] if isinstance(v, int)),
    "lcm": lambda *ints: sum(v.bit_length() for v in ints if isinstance(v, int)),
}


def base_functions() -> dict[str, Callable]:
    """The functions every expression may call, by the name written in the file."""
    functions = dict(_BUILTINS)
    functions.update(_MATH_FUNCTIONS)
    functions.update({f"math.{name}": f for name, f in _MATH_FUNCTIONS.items()})
    return functions


def evaluate(text: str, lookup: Callable[[str], Any], functions: Mapping[str, Callable], shown: str = "${%s}") -> Any:
    """The value of ``text``, with names from ``lookup`` and calls only of ``functions``.

    ``shown`` is how the expression stands in the file (``"${%s}"``, ``"$(eval %s)"``), for messages.

    Raises
    ------
    UnsafeExpression
        The expression uses anything outside the language above (what, and where in ``text``).
    NameError
        A name ``lookup`` does not know (as Python's ``eval``).
    """
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise UnsafeExpression(f"expected an expression, got a syntax error in "
                               f"{shown.replace('%s', text.strip())}: {exc.msg}") from None
    evaluator = _Evaluator(text.strip(), lookup, functions, shown)
    return evaluator.data(tree.body, evaluator.value(tree.body))  # (a list written out: its items are not checked)


class _Evaluator:
    def __init__(self, text: str, lookup: Callable[[str], Any], functions: Mapping[str, Callable], shown: str) -> None:
        self.text, self.lookup, self.functions, self.shown = text, lookup, functions, shown

    def refuse(self, node: ast.AST, what: str) -> UnsafeExpression:
        piece = ast.get_source_segment(self.text, node) or self.text
        return UnsafeExpression(f"expected an expression of a robot description (numbers, names, arithmetic, "
                                f"the math functions, xacro.load_yaml; docs/robot_files.md), got {what} "
                                f"{piece!r} in {self.shown.replace('%s', self.text)}")

    def data(self, node: ast.AST, value: Any) -> Any:
        if not isinstance(value, _DATA):
            raise self.refuse(node, f"a value of type {type(value).__name__} (not plain data) from")
        if isinstance(value, (str, list, tuple, dict)) and len(value) > MAX_TEXT_LENGTH:
            # whatever built it (a + of texts doubled property by property, a call): no value comes back this long
            raise self.refuse(node, f"a text or list longer than {MAX_TEXT_LENGTH} items from")
        if isinstance(value, int) and value.bit_length() > MAX_RESULT_BITS:  # (a product of products, lcm)
            raise self.refuse(node, f"a number of more than {MAX_RESULT_BITS} bits from")
        if isinstance(value, (list, tuple, dict)) and written_size(value) > MAX_WRITTEN_CHARS:
            raise self.refuse(node, f"a value of more than {MAX_WRITTEN_CHARS:,} characters written out (a list "
                                    "held many times over) from")
        return value

    def value(self, node: ast.AST) -> Any:
        method = getattr(self, "_" + type(node).__name__, None)
        if method is None:
            raise self.refuse(node, f"a Python {type(node).__name__}")
        return method(node)

    def _Constant(self, node: ast.Constant) -> Any:
        return self.data(node, node.value)

    def _Name(self, node: ast.Name) -> Any:
        if node.id.startswith("_"):
            raise self.refuse(node, "a name starting with '_'")
        return self.data(node, self.lookup(node.id))

    def _Attribute(self, node: ast.Attribute) -> Any:
        # Dotted keys: math.pi, or a key of loaded YAML (xacro.dotify); never an attribute of a Python object.
        if node.attr.startswith("_"):
            raise self.refuse(node, "an attribute starting with '_'")
        if isinstance(node.value, ast.Name) and node.value.id == "math" and node.attr in vars(math):
            return self.data(node, vars(math)[node.attr])
        owner = self.value(node.value)
        if not isinstance(owner, dict) or node.attr not in owner:
            raise self.refuse(node, "an attribute that is not a key of loaded YAML")
        return self.data(node, owner[node.attr])

    def _Subscript(self, node: ast.Subscript) -> Any:
        owner, key = self.value(node.value), self.value(node.slice)
        if isinstance(key, str) and key.startswith("_"):
            raise self.refuse(node, "a key starting with '_'")
        return self.data(node, owner[key])

    def _Slice(self, node: ast.Slice) -> slice:
        return slice(*(None if part is None else self.value(part) for part in (node.lower, node.upper, node.step)))

    def _Tuple(self, node: ast.Tuple) -> tuple:
        return tuple(self.value(e) for e in node.elts)

    def _List(self, node: ast.List) -> list:
        return [self.value(e) for e in node.elts]

    def _Dict(self, node: ast.Dict) -> dict:
        if any(k is None for k in node.keys):
            raise self.refuse(node, "a ** inside a dict")
        return {self.value(k): self.value(v) for k, v in zip(node.keys, node.values)}

    def _BinOp(self, node: ast.BinOp) -> Any:
        op = _BINARY.get(type(node.op))
        if op is None:
            raise self.refuse(node, f"the operator {type(node.op).__name__}")
        left, right = self.value(node.left), self.value(node.right)
        self._bounded(node, op, left, right)
        return self.data(node, op(left, right))

    def _bounded(self, node: ast.AST, op: Callable, left: Any, right: Any) -> None:
        if op is operator.pow and isinstance(left, int) and isinstance(right, int) and right > 0:
            if max(abs(left), 1).bit_length() * right > MAX_RESULT_BITS:
                raise self.refuse(node, f"a number of more than {MAX_RESULT_BITS} bits")
        if op is operator.mul and isinstance(left, (str, list, tuple)) != isinstance(right, (str, list, tuple)):
            seq, count = (left, right) if isinstance(left, (str, list, tuple)) else (right, left)
            if isinstance(count, int) and len(seq) * count > MAX_TEXT_LENGTH:
                raise self.refuse(node, f"a text or list longer than {MAX_TEXT_LENGTH} items")
        if op is operator.add and isinstance(left, (str, list, tuple)) and isinstance(right, type(left)):
            if len(left) + len(right) > MAX_TEXT_LENGTH:
                raise self.refuse(node, f"a text or list longer than {MAX_TEXT_LENGTH} items")
        if op is operator.mod and isinstance(left, str):
            for field in _PERCENT_FIELD.findall(left):
                for width in filter(None, field):
                    self._width(node, width, "%-format")

    def _width(self, node: ast.AST, text: str, what: str) -> None:
        """Refuse a field width or precision ``text`` (digits, or ``*``) beyond :data:`MAX_FORMAT_WIDTH`."""
        if text == "*" or len(text) > 4 or int(text) > MAX_FORMAT_WIDTH:
            raise self.refuse(node, f"a {what} width or precision of {text[:12] + '...' if len(text) > 12 else text} "
                                    f"(at most {MAX_FORMAT_WIDTH}) in")

    def _UnaryOp(self, node: ast.UnaryOp) -> Any:
        op = _UNARY.get(type(node.op))
        if op is None:
            raise self.refuse(node, f"the operator {type(node.op).__name__}")
        return self.data(node, op(self.value(node.operand)))

    def _BoolOp(self, node: ast.BoolOp) -> Any:
        result = None
        for operand in node.values:  # short-circuit as Python does
            result = self.value(operand)
            if isinstance(node.op, ast.And) != bool(result):
                return result
        return result

    def _Compare(self, node: ast.Compare) -> bool:
        left = self.value(node.left)
        for op, right_node in zip(node.ops, node.comparators):
            right = self.value(right_node)
            if not _COMPARE[type(op)](left, right):
                return False
            left = right
        return True

    def _IfExp(self, node: ast.IfExp) -> Any:
        return self.value(node.body) if self.value(node.test) else self.value(node.orelse)

    def _JoinedStr(self, node: ast.JoinedStr) -> str:
        return "".join(str(self.value(v)) for v in node.values)

    def _FormattedValue(self, node: ast.FormattedValue) -> str:
        value = self.value(node.value)
        conversion = {-1: lambda v: v, 115: str, 114: repr, 97: ascii}[node.conversion]
        spec = self.value(node.format_spec) if node.format_spec is not None else ""
        body = spec[2:] if spec[1:2] in _ALIGN and spec[1:2] else spec[1:] if spec[:1] in _ALIGN and spec[:1] else spec
        for width in _DIGITS.findall(body):  # the fill character aside, every number of a spec is a width or precision
            self._width(node, width, "format")
        return format(conversion(value), spec)

    def _Call(self, node: ast.Call) -> Any:
        name = _dotted(node.func)
        function = self.functions.get(name) if name is not None else None
        if function is None:
            raise self.refuse(node, "a call of a function that robot descriptions do not need")
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            raise self.refuse(node, "* or ** arguments")
        args = [self.value(a) for a in node.args]
        kwargs = {k.arg: self.value(k.value) for k in node.keywords}
        bare = name.removeprefix("math.")
        growing = _GROWING.get(bare) if _MATH_FUNCTIONS.get(bare) is function else None
        try:
            bits = growing(*args, **kwargs) if growing is not None else 0
        except (TypeError, AttributeError):  # (not integers: the function says what it expected)
            bits = 0
        if bits > MAX_RESULT_BITS:
            raise self.refuse(node, f"a number of more than {MAX_RESULT_BITS} bits")
        return self.data(node, function(*args, **kwargs))


def written_size(data: Any) -> int:
    """About the characters of ``str(data)``, counted without building it: a list or mapping held several times
    (``[a] * 1000000``; YAML aliases, ``*a``: 9 of 9, 9 levels deep, are a file of 400 bytes and a text of 3 GB)
    counts each time but is walked once; one that holds itself counts as its ``[...]``."""
    sizes: dict[int, int] = {}
    stack: list[tuple[Any, int, dict[int, list]]] = [(data, -1, {})]
    while stack:
        node, leaves, inner = stack.pop()
        if leaves >= 0:  # (its items walked)
            sizes[id(node)] = leaves + sum((sizes[key] + 2) * held[1] for key, held in inner.items())
        elif isinstance(node, _CONTAINERS) and id(node) not in sizes:
            items = [*node.keys(), *node.values()] if isinstance(node, dict) else node
            inner, leaves = {}, 2
            for i in items:
                if isinstance(i, _CONTAINERS):
                    inner.setdefault(id(i), [i, 0])[1] += 1
                else:
                    leaves += _leaf_size(i) + 2
            sizes[id(node)] = 5  # (until walked: a list reached again inside itself is written '[...]')
            stack.append((node, leaves, inner))
            stack.extend((i, -1, {}) for i, _ in inner.values())
    return sizes.get(id(data), 0)


def _leaf_size(value: Any) -> int:
    """The characters of ``repr(value)`` of a number or a text, about (an integer's from its bits)."""
    return value.bit_length() * 30103 // 100000 + 1 if type(value) is int else len(str(value))


def _dotted(node: ast.AST) -> str | None:
    """``name`` or ``a.b`` as written, for the call table; None for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return f"{node.value.id}.{node.attr}"
    return None


def inside(path: Path, roots: tuple[Path, ...]) -> bool:
    """Whether ``path`` (symbolic links resolved) lies in one of the folders ``roots``."""
    real = path.resolve()
    return any(real.is_relative_to(root.resolve()) for root in roots)


__all__ = ["MAX_FORMAT_WIDTH", "MAX_RESULT_BITS", "MAX_TEXT_LENGTH", "MAX_WRITTEN_CHARS", "UnsafeExpression",
           "base_functions", "evaluate", "inside", "written_size"]
