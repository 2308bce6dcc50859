"""What the URScript controller refuses to compile although the grammar reads it: a keyword argument given twice,
before a positional one or for a parameter a positional one already gives (``movel(p, 0.5, a=1)``), a function
defined twice in one scope (UR, "The URScript Programming Language": functions, keyword arguments, scoping). Each
refusal names the file, line and column. (A name not defined in the file is the walker's: the controller may
supply it.)
"""

from __future__ import annotations

from collections.abc import Callable

from lark import Token, Tree

from thermocomp.errors import InputError
from thermocomp.programs.urscript_motions import ARGS, MOTIONS, NAME, PARAMETERS, Statements
from thermocomp.programs.urscript_values import line_col

#: The nodes that hold statements: one scope each for the functions defined directly in them.
_SCOPES = frozenset(("start", "func_def", "thread_def", "sec_def"))


def _refuse(message: str, line: int, column: int, path: str) -> InputError:
    return InputError(f"URScript: {message} (the controller does not compile the script)", path=path, row=line,
                      column=column)


def _positional(name: str) -> tuple[str, ...]:
    """The parameters of the motion function ``name`` in order (its target(s) first; urscript_motions.PARAMETERS),
    or none for another function."""
    return (*("target",) * MOTIONS[name][1], *PARAMETERS[name]) if name in PARAMETERS else ()


def _first_offence(args: list[tuple[int, str]], positional: tuple[str, ...] = ()) -> tuple[int, str] | None:
    """The first argument, in order, that the controller refuses: a positional one after a keyword one, a keyword
    given twice, or a keyword for one of ``positional`` (the function's parameters in order) that a positional
    argument gives. ``args``: ``(offset, keyword or None)`` of each argument; the result ``(offset, message)``."""
    named: list[str] = []
    for k, (at, keyword) in enumerate(args):
        if keyword is None:
            if named:
                return at, f"a positional argument after the keyword argument {named[-1]}="
        elif keyword in named:
            return at, f"keyword argument {keyword}= given twice"
        elif keyword in positional[:k - len(named)]:
            return at, f"parameter {keyword} given twice: by position and as {keyword}="
        else:
            named.append(keyword)
    return None


def _check_arguments(call: Tree, path: str) -> None:
    """A call's (or a method call's) arguments: positional ones first, each parameter once."""
    args = [(i, str(arg.children[0]) if arg.data == "kwarg" else None)
            for i, arg in enumerate(call.children) if isinstance(arg, Tree)]
    found = _first_offence(args, _positional(str(call.children[0])) if call.data == "call" else ())
    if found is not None:
        arg = call.children[found[0]]
        raise _refuse(found[1], *line_col(arg.children[0] if arg.data == "kwarg" else arg), path)


def _check_run(token: Token, st: Statements, path: str) -> None:
    """The statements of a run of plain motions (a ``MOVES`` token), as :func:`_check_arguments` checks a call, each
    distinct statement text once (:attr:`Statements.parsed`, in order): the first offending argument is named."""
    text = str(token)
    for first, parsed in zip(st.shape_first.tolist(), st.parsed):
        start = int(st.spans[first, ARGS])  # (the point, then each argument after a comma)
        found = _first_offence([(0, None), *((start + at, key) for at, key, *_ in parsed)],
                               _positional(text[st.spans[first, NAME]:st.spans[first, NAME + 1]]))
        if found is not None:
            at, message = found
            line = token.line + text.count("\n", 0, at)
            raise _refuse(message, line, at - text.rfind("\n", 0, at) if line > token.line else token.column + at, path)


def check_script(tree: Tree, path: str, statements: Callable[[Token], Statements]) -> None:
    """Refuse what the controller does not compile in a parsed script (``tree``: its ``start``), naming ``path``,
    line and column: a keyword argument twice or before a positional one; a ``def`` of a name already defined in
    the same scope (the script's top level, or one function's body). ``statements``: a run's, split once."""
    for node in tree.iter_subtrees_topdown():
        if node.data in ("call", "method"):
            _check_arguments(node, path)
        elif node.data == "moves":
            _check_run(node.children[0], statements(node.children[0]), path)
        elif node.data in _SCOPES:
            defined: dict[str, Token] = {}
            for st in node.children:
                if isinstance(st, Tree) and st.data == "func_def":
                    name = st.children[0]
                    if str(name) in defined:
                        raise _refuse(f"function {name} is defined twice in one scope (first at line "
                                      f"{defined[str(name)].line})", *line_col(name), path)
                    defined[str(name)] = name
