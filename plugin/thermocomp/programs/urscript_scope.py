"""What the URScript controller refuses to compile although the grammar reads it: a keyword argument given twice
or before a positional one, a function defined twice in one scope (UR, "The URScript Programming Language":
functions, keyword arguments, scoping).

The grammar (``urscript.lark``) takes arguments in any order, and a grammar cannot count names. The check runs
once per script, before the walker: each refusal names the file, line and column of the offending text.

Left to the walker, not refused here: a name not defined in the file. A function or variable the controller
supplies (a URCap's, the installation's variables, a newer firmware's function) is not in the file either, so
the walker names it as something it cannot follow instead.
"""

from __future__ import annotations

import re

from lark import Token, Tree

from thermocomp.errors import InputError

#: In a run of plain motions (one ``MOVES`` token: numbers or variables after the point, each maybe named ``a=``,
#: ``v=``, ``t=``, ``r=``; urscript_motions.MOVES_PATTERN): a number or variable given by position after a named one,
#: or a name given twice in one statement (``[^)]``: within the statement).
_RUN_POSITIONAL_AFTER = re.compile(r"([avtr])[ \t\r]*=[^,)]*,[ \t\r]*(?=[-+.0-9]|[A-Za-z_][A-Za-z0-9_]*+[ \t\r]*+[,)])")
_RUN_TWICE = re.compile(r"([avtr])[ \t\r]*=[^)]*?,[ \t\r]*(\1)[ \t\r]*=")

#: The nodes that hold statements: one scope each for the functions defined directly in them.
_SCOPES = frozenset(("start", "func_def", "thread_def", "sec_def"))


def _refuse(message: str, where: Tree | Token, path: str) -> InputError:
    line, column = (where.line, where.column) if isinstance(where, Token) else (where.meta.line, where.meta.column)
    return InputError(f"URScript: {message} (the controller does not compile the script)", path=path, row=line,
                      column=column)


def _check_arguments(call: Tree, path: str) -> None:
    """A call's (or a method call's) arguments: positional ones first, each keyword once."""
    named: dict[str, Token] = {}
    for arg in call.children:
        if not isinstance(arg, Tree):
            continue
        if arg.data != "kwarg":
            if named:
                raise _refuse(f"a positional argument after the keyword argument {next(reversed(named))}=",
                              arg, path)
            continue
        token = arg.children[0]
        if str(token) in named:  # (worded as in a run of plain motions, _check_run: the two read alike)
            raise _refuse(f"keyword argument {token}= given twice", token, path)
        named[str(token)] = token


def _check_run(token: Token, path: str) -> None:
    """The statements of a run of plain motions (a ``MOVES`` token), as :func:`_check_arguments` checks a call."""
    text = str(token)
    offences = []  # (the first in the text is named, as the calls' check names the first argument in order)
    for pattern, message in ((_RUN_POSITIONAL_AFTER, "a positional argument after the keyword argument {}="),
                             (_RUN_TWICE, "keyword argument {}= given twice")):
        found = pattern.search(text)
        if found is not None:
            offences.append((found.end() if pattern is _RUN_POSITIONAL_AFTER else found.start(2),
                             message.format(found.group(1))))
    if offences:
        at, message = min(offences)
        line = token.line + text.count("\n", 0, at)
        column = at - text.rfind("\n", 0, at) if line > token.line else token.column + at
        raise InputError(f"URScript: {message} (the controller does not compile the script)", path=path, row=line,
                         column=column)


def check_script(tree: Tree, path: str) -> None:
    """Refuse what the controller does not compile in a parsed script (``tree``: its ``start``), naming ``path``,
    line and column: a keyword argument twice or before a positional one; a ``def`` of a name already defined in
    the same scope (the script's top level, or one function's body)."""
    for node in tree.iter_subtrees_topdown():
        if node.data in ("call", "method"):
            _check_arguments(node, path)
        elif node.data == "moves":
            _check_run(node.children[0], path)
        elif node.data in _SCOPES:
            defined: dict[str, Token] = {}
            for st in node.children:
                if isinstance(st, Tree) and st.data == "func_def":
                    name = st.children[0]
                    if str(name) in defined:
                        raise _refuse(f"function {name} is defined twice in one scope (first at line "
                                      f"{defined[str(name)].line})", name, path)
                    defined[str(name)] = name
