"""Conditions of RAPID ``IF`` statements that the file decides: every datum they read is the routine's own (a FOR
counter, a parameter bound to a known value, a local datum) or a datum of the task that nothing in the task
changes, and every value is known. Such an ``IF`` runs one branch, as on the controller, instead of being followed
once branch by branch (``rapid_flow._Flow.run_unresolved``).

RAPID's precedence (ABB, "Technical reference manual - RAPID kernel", "Priority between operators"): ``* / DIV
MOD``, then ``+ -``, then the comparisons ``< <= = >= > <>``, then ``AND``, then ``OR`` and ``XOR``; ``NOT`` applies
to the operand it precedes.
"""

from __future__ import annotations

from lark import Token, Tree

#: Binding strength of the binary operators, strongest last.
_LEVELS = ({"or", "xor"}, {"and"}, {"<", "<=", "=", ">=", ">", "<>"})


class ConditionUnknown(Exception):
    """The condition reads something its value is not decided by the file for (or not evaluated here)."""


def evaluate_condition(node: Tree | Token, value_of) -> object:
    """The value of ``node``: ``value_of(leaf)`` for each operand that is no logic (numbers, names, components,
    elements, calls), RAPID's logic and comparisons between them."""
    if isinstance(node, Tree) and node.data == "not_":
        operand = evaluate_condition(node.children[-1], value_of)
        if not isinstance(operand, bool):
            raise ConditionUnknown("NOT of a value that is not a bool")
        return not operand
    if not (isinstance(node, Tree) and node.data == "expr") or not any(
            str(op.children[0]).lower() in level for level in _LEVELS for op in node.children[1::2]):
        return value_of(node)  # (a leaf, or arithmetic only)
    return _reduce(node.children, 0, value_of)


def _reduce(items: list, level: int, value_of) -> object:
    """``items``, operands and operators of a flat ``expr`` of rapid.lark (``a op b op c``), from the weakest
    operators of ``level`` on."""
    if level == len(_LEVELS):  # arithmetic between the weaker operators: evaluated as one expression
        return evaluate_condition(items[0], value_of) if len(items) == 1 else value_of(Tree("expr", items))
    ops = [str(op.children[0]).lower() for op in items[1::2]]
    at = [i for i, op in enumerate(ops) if op in _LEVELS[level]]
    cuts = [-1, *at, len(ops)]
    parts = [_reduce(items[2 * a + 2:2 * b + 1], level + 1, value_of) for a, b in zip(cuts, cuts[1:])]
    result = parts[0]
    for op, value in zip((ops[i] for i in at), parts[1:]):
        result = _apply(op, result, value)
    return result


def _apply(op: str, a: object, b: object) -> bool:
    if op in ("and", "or", "xor"):
        if not (isinstance(a, bool) and isinstance(b, bool)):
            raise ConditionUnknown(f"{op.upper()} of values that are not bool")
        return {"and": a and b, "or": a or b, "xor": a != b}[op]
    if op in ("=", "<>"):
        if type(a) is not type(b):
            raise ConditionUnknown("a comparison of values of different types")
        return (a == b) if op == "=" else (a != b)
    if not (isinstance(a, float) and isinstance(b, float)) or isinstance(a, bool) or isinstance(b, bool):
        raise ConditionUnknown("an order comparison of values that are not numbers")
    return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]
