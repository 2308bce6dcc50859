"""What the RAPID controller refuses to load although it parses (a grammar cannot count names): a reserved word as a
name (declared or used), two objects of one name in one scope, a GOTO to no label of its routine or into a branch or
loop it stands outside of (ABB, "Technical reference manual - RAPID kernel": "Reserved words", "Scope rules"; "RAPID
Instructions": GOTO, "Limitations"). Each refusal names the file, line and column of the second object. And the names
each module of a task sees (:class:`Scopes`, "Scope rules").
"""

from __future__ import annotations

from collections.abc import Iterator, MutableMapping

from lark import Token, Tree

from thermocomp.errors import InputError

#: The reserved words (RAPID kernel, "Reserved words"): none may name a module, datum, routine, parameter, type,
#: record component or label.
RESERVED = frozenset(w.lower() for w in (
    "ALIAS", "AND", "BACKWARD", "CASE", "CONNECT", "CONST", "DEFAULT", "DIV", "DO", "ELSE", "ELSEIF", "ENDFOR",
    "ENDFUNC", "ENDIF", "ENDMODULE", "ENDPROC", "ENDRECORD", "ENDTEST", "ENDTRAP", "ENDWHILE", "ERROR", "EXIT",
    "FALSE", "FOR", "FROM", "FUNC", "GOTO", "IF", "INOUT", "LOCAL", "MOD", "MODULE", "NOSTEPIN", "NOT", "NOVIEW",
    "OR", "PERS", "PROC", "RAISE", "READONLY", "RECORD", "RETRY", "RETURN", "STEP", "SYSMODULE", "TASK", "TEST",
    "THEN", "TO", "TRAP", "TRUE", "TRYNEXT", "UNDO", "VAR", "VIEWONLY", "WHILE", "WITH", "XOR",
))
#: The reserved words refused where a name is used (TRUE and FALSE are values, which the grammar reads as names).
USED_RESERVED = RESERVED - {"true", "false"}

#: The nodes that hold statements (where a routine's data declarations, labels and GOTOs stand).
_STATEMENT_LISTS = frozenset(("body", "handlers", "if_stmt", "elseif", "compact_if", "while_stmt", "for_stmt",
                              "test_stmt", "test_case"))

#: The statements whose bodies a GOTO enters only from inside (RAPID Instructions, GOTO, "Limitations": a label in
#: an IF or TEST branch only from the same branch, one in a FOR or WHILE loop only from inside that loop).
_BLOCKS = {"if_stmt": "an IF branch", "elseif": "an IF branch", "test_case": "a TEST case", "test_stmt": "a TEST case",
           "while_stmt": "a WHILE loop", "for_stmt": "a FOR loop"}

_KINDS = {"data_decl": "datum", "proc": "PROC", "func": "FUNC", "trap": "TRAP", "param": "parameter",
          "label": "label"}


def _names(node: Tree) -> list[Token]:
    return [c for c in node.children if isinstance(c, Token) and c.type == "NAME"]


def declared_name(node: Tree) -> Token:
    """The name a declaration node declares (a module, datum, routine, parameter, label, type)."""
    names = _names(node)
    return names[1] if node.data in ("data_decl", "func", "param", "alias_decl", "record_field") else names[0]


def _refuse(message: str, token: Token, path: str) -> InputError:
    return InputError(f"RAPID: {message} (the controller does not load the module)", path=path, row=token.line,
                      column=token.column)


def _key(token: Token, path: str) -> str:
    """The name ``token`` as RAPID compares names (case-insensitive); a reserved word is refused."""
    if str(token).lower() in RESERVED:
        raise _refuse(f"{token} is a reserved word, not a name", token, path)
    return str(token).lower()


def _unique(declarations: list[Tree], scope: str, path: str, skip_data_pairs: bool = False) -> None:
    """Two declarations of one name (case-insensitive, as RAPID compares names) in one scope: refused at the
    second. ``skip_data_pairs``: two data of a module are left to the declaration's own refusal."""
    first: dict[str, Tree] = {}
    for node in declarations:
        token = declared_name(node)
        before = first.setdefault(_key(token, path), node)
        if before is node or (skip_data_pairs and before.data == node.data == "data_decl"):
            continue
        was, kind = declared_name(before), _KINDS[node.data]
        raise _refuse(f"{kind} {token} is declared twice in the {scope} (first at line {was.line})"
                      if before.data == node.data else
                      f"{kind} {token} has the name of {_KINDS[before.data]} {was} (line {was.line}) in the same "
                      f"{scope}", token, path)


def _statements(routine: Tree) -> tuple[list[tuple[Tree, tuple | None]], dict[int, tuple[int, int]]]:
    """The statement nodes of a routine, nested ones included, in written order, each with the innermost block it
    stands in (``(statement, body, outer)`` of the :data:`_BLOCKS` statement around it, ``outer`` that statement's
    own, ``None`` at the routine's level: a chain, so a statement 30,000 blocks deep costs one entry, where a tuple
    of its blocks cost 4 GB for such a module); and each body's span of indices in that list (``id(body)``)."""
    found: list[tuple[Tree, tuple | None]] = []
    spans: dict[int, tuple[int, int]] = {}
    stack: list = [(c, None) for c in reversed(routine.children) if isinstance(c, Tree)]
    while stack:
        node, block = stack.pop()
        if node is None:  # (the end of the body ``block``)
            spans[id(block)] = (spans[id(block)][0], len(found))
            continue
        found.append((node, block))
        if node.data in _STATEMENT_LISTS:
            if block is not None and node is block[1]:
                spans[id(node)] = (len(found) - 1, -1)
                stack.append((None, node))
            stack.extend((c, (node, c, block) if node.data in _BLOCKS and c.data == "body" else block)
                         for c in reversed(node.children) if isinstance(c, Tree))
    return found, spans


def check_module(tree: Tree, path: str) -> None:
    """Refuse what the controller refuses in a parsed file's modules (``tree``: its ``start``), naming ``path``,
    line and column (the module docstring)."""
    for module in tree.children:
        if not (isinstance(module, Tree) and module.data == "module"):
            continue
        _key(_names(module)[0], path)
        items = [c for c in module.children if isinstance(c, Tree)]
        for item in (i for i in items if i.data in ("record_decl", "alias_decl")):
            for node in (item, *(f for f in item.children if isinstance(f, Tree))):  # (a type and its components)
                _key(declared_name(node), path)
        _unique([i for i in items if i.data in ("data_decl", "proc", "func", "trap")], "module", path,
                skip_data_pairs=True)
        for routine in items:
            if routine.data in ("proc", "func", "trap"):
                _check_routine(routine, path)


def check_module_names(files: list[tuple[Tree, str]]) -> None:
    """Refuse two modules of one name (case-insensitive) in a task's files (``files``: each one's tree and path, the
    program first), naming the second's file, line and column ("Scope rules")."""
    first: dict[str, tuple[Token, str]] = {}
    for tree, path in files:
        for module in tree.children:
            if isinstance(module, Tree) and module.data == "module":
                name = _names(module)[0]
                was, where = first.setdefault(str(name).lower(), (name, path))
                if was is not name:
                    raise _refuse(f"MODULE {name} is declared twice in the task (first in "
                                  f"{'this file' if where == path else where}, line {was.line})", name, path)


def _check_routine(routine: Tree, path: str) -> None:
    for node in routine.iter_subtrees_topdown():  # (a name used is no reserved word either: IF c ENDFOR; calls ENDFOR)
        if node.data in ("call", "func_call", "name") and str(node.children[0]).lower() in USED_RESERVED:
            _key(node.children[0], path)
    params = next((c.children for c in routine.children if isinstance(c, Tree) and c.data == "params"), [])
    statements, spans = _statements(routine)
    _unique([*params, *(s for s, _ in statements if s.data == "data_decl")], "routine", path)
    labels = [(s, block) for s, block in statements if s.data == "label"]
    _unique([s for s, _ in labels], "routine", path)
    known = {str(declared_name(label)).lower(): (label, block) for label, block in labels}
    for at, (goto, _) in enumerate(statements):
        if goto.data != "goto_stmt":
            continue
        target = _names(goto)[0]
        if str(target).lower() not in known:
            raise _refuse(f"GOTO {target}: no label {target} in {_KINDS[routine.data]} "
                          f"{declared_name(routine)}", target, path)
        label, block = known[str(target).lower()]
        outside = None  # (the outermost block around the label that the GOTO is outside of)
        while block is not None and not spans[id(block[1])][0] <= at < spans[id(block[1])][1]:
            outside, block = block, block[2]
        if outside is not None:
            raise _refuse(f"GOTO {target}: label {target} (line {label.meta.line}) stands in "
                          f"{_BLOCKS[outside[0].data]} (line {outside[0].meta.line}) this GOTO is outside of; a GOTO "
                          "enters a branch or a loop only from within it", target, path)


#: The kinds of names a module declares, each looked up in its own table (a datum, a PROC, a FUNC, a TRAP).
KINDS = ("data", "proc", "func", "trap")


class Visible(MutableMapping):
    """The names of one kind that one module of the task sees (RAPID kernel, "Scope rules"): its own ``LOCAL`` ones,
    which hide the task's global ones of their name in that module only, then the task's global ones (every
    module's declarations not ``LOCAL``). A routine's own data and parameters hide both (the walker looks them up
    first). An existing name is changed where it lives; a new one goes to the task's (a ``LOCAL`` declaration is
    put in :attr:`own` by its reader, :meth:`Scopes.table`)."""

    __slots__ = ("own", "task")

    def __init__(self, own: dict, task: dict) -> None:
        self.own, self.task = own, task

    def __getitem__(self, key: str):
        return self.own[key] if key in self.own else self.task[key]

    def __contains__(self, key: object) -> bool:
        return key in self.own or key in self.task

    def get(self, key: str, default=None):
        return self.own[key] if key in self.own else self.task.get(key, default)

    def __setitem__(self, key: str, value) -> None:
        (self.own if key in self.own else self.task)[key] = value

    def __delitem__(self, key: str) -> None:
        del (self.own if key in self.own else self.task)[key]

    def __iter__(self) -> Iterator[str]:
        yield from self.own
        yield from (key for key in self.task if key not in self.own)

    def __len__(self) -> int:
        return len(self.own) + sum(key not in self.own for key in self.task)


class Scopes:
    """The names of a task's modules (numbered in file order, a file's modules in written order): the global ones of
    each kind (:data:`KINDS`), each module's ``LOCAL`` ones, and what each module sees (:attr:`seen`). A name is
    looked up routine -> module -> task: a routine's data hide its module's, a module's ``LOCAL`` ones the task's."""

    def __init__(self, n_modules: int) -> None:
        self.task: dict[str, dict] = {kind: {} for kind in KINDS}
        self.own: list[dict[str, dict]] = [{kind: {} for kind in KINDS} for _ in range(n_modules)]
        self.seen = [{kind: Visible(own[kind], self.task[kind]) for kind in KINDS} for own in self.own]

    def table(self, module: int, kind: str, local: bool) -> dict:
        """Where a declaration of ``kind`` in ``module`` goes: the module's own (``local``: ``LOCAL``) or the task's."""
        return (self.own[module] if local else self.task)[kind]

    def elsewhere(self, kind: str, key: str):
        """The first ``LOCAL`` declaration of ``kind`` named ``key`` of any module (one other modules cannot see),
        or None."""
        return next((own[kind][key] for own in self.own if key in own[kind]), None)
