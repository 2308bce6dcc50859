"""Read a UR URScript: its motions in the order the controller runs them, with their source spans.

The grammar (``urscript.lark``, lark LALR) is the language of UR's manual ("The URScript Programming Language", CB3
and e-Series) as PolyScope, URCaps and CAM post-processors write it. The reader is one walker (:class:`_Walker`) of
three parts: :mod:`~thermocomp.programs.urscript_values` (variables, expressions),
:mod:`~thermocomp.programs.urscript_flow` (control flow, calls, bounds) and :mod:`~thermocomp.programs.urscript_motions`
(motions); what the controller refuses to compile is checked first (:func:`_check_script`). Entry: the statements
outside any function when there are any besides definitions; else the file's (last) top-level function. What is
known only while running is refused with line and column, naming the data and where it comes from. See
docs/programs.md.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection
from pathlib import Path

import numpy as np
from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedToken

from thermocomp._gc import paused
from thermocomp._typing import PathLike
from thermocomp.errors import ConfigurationError, InputError
from thermocomp.io.files import read_program_text
from thermocomp.programs import passes
from thermocomp.programs.grammars import code_lines, lalr_parser, line_col, parse_program
from thermocomp.programs.model import MAX_MOTIONS, Finding, RobotProgram, newline_of
from thermocomp.programs.urscript_flow import Flow, _Frame
from thermocomp.programs.urscript_motions import ARGS, MOTIONS, MOVES_PATTERN, NAME, PARAMETERS, Motions, Statements
from thermocomp.programs.urscript_values import Binding, Unsupported, Values, assignment, parameters, root_name

#: Tokens a statement cannot end with: a line end after one continues the statement, as inside brackets.
_CONTINUES = frozenset(("EQUAL", "ADD_OP", "MUL_OP", "COMP_OP", "AND", "OR", "XOR", "NOT", "COMMA"))
#: Words of the language that name no variable: where lark's contextual lexer reads one as a name, refused.
_KEYWORDS = frozenset(("def", "thread", "end", "if", "elif", "else", "while", "return", "global", "local"))


class _PostLex:
    """Drops newlines inside brackets, after a token no statement ends with (:data:`_CONTINUES`), and repeated
    newlines (a statement continues inside ``( [`` and after ``=`` or an operator)."""

    always_accept = ("_NL",)

    def process(self, stream):
        depth, last = 0, "_NL"
        for token in stream:
            if token.type == "_NL":
                if depth > 0 or last == "_NL" or last in _CONTINUES:
                    continue
            elif token.type == "POSE_OPEN" and last in ("_NL", "COLON"):  # (a statement starts: ``p[i] = v`` is the
                # element of a variable p; lark's contextual lexer, now that an expression may start one, read a pose)
                yield Token("NAME", "p", token.start_pos, token.line, token.column, token.line, token.column + 1,
                            token.start_pos + 1)
                token, depth = Token("LSQB", "[", token.start_pos + 1, token.line, token.column + 1, token.end_line,
                                     token.end_column, token.end_pos), depth + 1
            elif token.type in ("LPAR", "LSQB", "POSE_OPEN"):
                depth += 1
            elif token.type in ("RPAR", "RSQB"):
                depth = max(0, depth - 1)
            elif token.type == "NAME" and (token.value in _KEYWORDS or last == "NAME"):  # (``set robotmode run``: two
                # names side by side are no expression, though each alone may now be a statement)
                raise UnexpectedToken(token, set())
            last = token.type
            yield token


@functools.lru_cache(maxsize=1)
def urscript_parser() -> Lark:
    """The URScript parser (LALR, grammar ``urscript.lark`` kept in the package), built once per process."""
    return lalr_parser("urscript.lark", {"MOVES_PATTERN": MOVES_PATTERN.replace("/", "\\/")},
                       propagate_positions=True, maybe_placeholders=False, postlex=_PostLex())


def read_urscript(path: PathLike, max_motions: int = MAX_MOTIONS, modules: tuple[str, ...] = (),
                  entry: str = "main") -> RobotProgram:
    """Read a URScript file (``.script``, ``.urscript``); errors name the file, line and column.

    ``max_motions``: most motions, calls and loop passes the script may unroll to; past it the script is refused.
    ``modules``: a RAPID task's other modules (``--module``): refused, naming the option. ``entry`` (``--entry``,
    other than ``main``): the function run, as for RAPID.
    """
    if modules:
        raise ConfigurationError(f"--module {modules[0]}: a RAPID task's other module; {Path(path).name} is a "
                                 "URScript program, which has none (a URScript reads only its own file)")
    text = read_program_text(path, "URScript")
    return urscript_program_from_text(text, str(path), max_motions=max_motions, entry=entry)


def urscript_program_from_text(text: str, path: str = "<text>", max_motions: int = MAX_MOTIONS,
                               entry: str = "main") -> RobotProgram:
    """:func:`read_urscript` on the text of a script (decoded as ISO-8859-1)."""
    with paused():  # a long script is a million objects that all stay alive (thermocomp._gc)
        return _Walker(text, path, parse_urscript_text(text, path), max_motions).run(entry)


def parse_urscript_text(text: str, path: str) -> Tree:
    """Parse ``text`` (a whole script) into lark's tree; a syntax error names line and column.

    Runs of plain motions are ``moves`` nodes of one ``MOVES`` token each (urscript.lark).
    """
    return parse_program(urscript_parser(), text if text.endswith("\n") else text + "\n", path, "URScript", _BLOCKS,
                         frozenset({"END"}))


#: The URScript statements that open a block closed by ``end`` (True: the block's name follows the keyword).
_BLOCKS = {"DEF": True, "THREAD": True, "IF": False, "WHILE": False}


# ----- what the URScript controller refuses to compile although the grammar reads it (UR, "The URScript Programming
# Language": functions, keyword arguments, scoping), each refusal naming the file, line and column. (A name not
# defined in the file is the walker's: the controller may supply it.)

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


#: Most functions (``def``, ``thread``, ``sec``) one inside another that the reader follows: real scripts nest them
#: two deep (PolyScope's program function holding a URCap's), and each level is walked again for every level around
#: it (2,000 nested took 38 s; 20,000 did not end in 5 minutes).
MAX_FUNCTION_DEPTH = 32


def _check_script(tree: Tree, text: str, path: str, statements: Callable[[Token], Statements]) -> None:
    """Refuse what the controller does not compile in a parsed script (``tree``: its ``start``, of ``text``): a keyword
    argument given twice, before a positional one or for a parameter a positional one gives (``movel(p, 0.5, a=1)``);
    a ``def`` of a name already defined in the same scope (the top level, or one function's body); an assignment to
    what is not a variable or its element (``a.x = 1``: the reader's grammar reads any postfix there); an expression
    alone after another statement on its line, or reading no variable; and a function nested more than
    :data:`MAX_FUNCTION_DEPTH` deep, which the reader does not follow. ``statements``: a run's."""
    stack = [(tree, 0)]  # (lark's iter_subtrees_topdown, each node with the functions around it)
    known: set[str | None] | None = None  # (the names assigned and the parameters: found at the first name alone)
    while stack:
        node, depth = stack.pop()
        if node.data in ("call", "method"):
            _check_arguments(node, path)
        elif node.data == "assign" and root_name(assignment(node)[0]) is None:
            raise InputError("URScript syntax: expected a variable or an element of one before '='", path=path,
                             row=node.meta.line, column=node.meta.column)
        elif node.data == "expr_stmt" and node.children[0].data != "method":  # (``pause``, ``p[1, 2]``; ``x = a != 0
            # flag``, an operator missing; a method's call, ``conn.eip_monitor.show()``, is a call's statement)
            before = text[text.rfind("\n", 0, node.meta.start_pos) + 1:node.meta.start_pos].strip()
            if before and not before.endswith(":"):
                raise InputError("URScript syntax: an expression alone starts its line (or follows ':'), not another "
                                 "statement's end", path=path, row=node.meta.line, column=node.meta.column)
            known = known if known is not None else {root_name(assignment(a)[0]) for a in tree.find_data("assign")} | {
                str(p.children[0]) for p in tree.find_data("param")}
            if (name := root_name(node.children[0])) is not None and name not in known:
                raise InputError(f"URScript syntax: {name} is no statement and no variable of the script", path=path,
                                 row=node.meta.line, column=node.meta.column)
        elif node.data == "moves":
            _check_run(node.children[0], statements(node.children[0]), path)
        elif node.data in _SCOPES:
            depth += node.data != "start"
            if depth > MAX_FUNCTION_DEPTH:
                raise InputError(f"function {node.children[0]} is defined {depth} deep, inside {depth - 1} others: "
                                 f"the reader follows functions at most {MAX_FUNCTION_DEPTH} deep", path=path,
                                 row=node.meta.line, column=node.meta.column)
            defined: dict[str, Token] = {}
            for st in node.children:
                if isinstance(st, Tree) and st.data == "func_def":
                    name = st.children[0]
                    if str(name) in defined:
                        raise _refuse(f"function {name} is defined twice in one scope (first at line "
                                      f"{defined[str(name)].line})", *line_col(name), path)
                    defined[str(name)] = name
        stack.extend((c, depth) for c in reversed(node.children) if isinstance(c, Tree))


class _Walker(Flow, Motions, Values):
    """Follows one script from its entry (:meth:`run`): the parts are mixed in from the reader's three modules."""

    def __init__(self, text: str, path: str, tree: Tree, max_motions: int = MAX_MOTIONS) -> None:
        self.tree = tree
        self.max_motions = max_motions
        self.unrolled = 0  # motions, calls and loop passes run so far (bounded by max_motions)
        self.start_work(text, path, code_lines(text, "#"))
        self._noted: dict = {}  # each note given: where it stands in the notes (Flow.note_once)
        self._exploring: list[Tree] = []  # loops whose passes are followed only to find their head (Flow.settle)
        self._calls_done: dict = {}  # calls by the state they ran from (Flow.call_function_of_file)
        self.started_threads: set[str] = set()
        self._discarded: list = []  # steps of passes taken back (Flow.settle), kept alive: their ids keyed tables
        self._templates: dict[int, tuple] = {}  # (Motions.moves_columns)
        self._tool_frames: dict[bytes, tuple] = {}  # (Motions.tool_frames)
        self.functions: dict[str, Tree] = {}
        self.threads: dict[str, Tree] = {}
        self.global_names: set[str] = set()  # names the file assigns as global or at its top level
        self.globals: dict = {}
        self.tool: np.ndarray | None = np.eye(4)
        self.tool_why = ""
        self.unresolved_depth = 0  # depth of branches and loops whose course is known only while running
        self.conditional_lines: list[int] = []  # the motions followed inside them (RobotProgram.extra)
        self.sequence_starts: list[int] = [0]  # the first step of each sequence being followed (Flow.standing_pose)
        self.frames = [_Frame(0)]
        self.visited: set[str] = set()
        self.loop_noted = False
        self.beside: set[int] = set()  # ids of the steps a thread runs, beside the program (passes.settle)
        self.name_runs()

    def run(self, chosen: str = "main") -> RobotProgram:
        """Follows the script from its entry (the module's docstring); ``chosen`` (``--entry``, other than ``main``):
        that top-level function, whatever the file calls."""
        top = self.tree.children
        _check_script(self.tree, self.text, self.path, self.move_matches)  # (what the controller does not compile)
        for node in self.tree.iter_subtrees_topdown():  # (wherever defined: in a function, a thread, a loop)
            if node.data in ("func_def", "thread_def"):
                (self.functions if node.data == "func_def" else self.threads)[str(node.children[0])] = node
        defs = [st for st in top if st.data == "func_def"]
        executable = [st for st in top if st.data not in ("func_def", "thread_def", "sec_def")
                      and not (st.data == "assign" and st.children[-1].data in ("pose", "list", "number"))]
        if chosen != "main":
            named = [d for d in defs if str(d.children[0]) == chosen]
            if not named:
                raise InputError(f"--entry {chosen}: no top-level function {chosen} in the script (it defines "
                                 f"{', '.join(str(d.children[0]) for d in defs) or 'none'})", path=self.path)
            defs, executable = named, []
        main = None if executable or not defs else defs[-1]
        body = top if main is None else self.body_of(main)
        # the globals: what the file assigns at its top level or as ``global``, and the program function's variables
        self.global_names.update(root_name(assignment(st)[0]) for st in (*top, *body) if st.data == "assign")
        self.global_names.update(root_name(a[0]) for a in map(assignment, self.tree.find_data("assign")) if a[2] == "GLOBAL")
        if main is None:
            entry = "<top level>"
            self.run_body(top, self.globals, 0)
        else:
            entry = str(main.children[0])
            for st in top:  # global literals before the function
                if st.data == "assign":
                    self.run_statement(st, self.globals, 0)
            if len(defs) > 1:
                self.notes.append(Finding(f"several top-level functions and no call: running the last, {entry}",
                                          *line_col(main)))
            self.visited.add(entry)
            # a library's function run as the program: its variables are globals, so are its parameters (each its
            # default, or known only while running)
            for name, default in parameters(main):
                try:
                    value = None if default is None else self.evaluate(default, {})
                except Unsupported:
                    value = None
                self.globals[name] = Binding(value, None, name, f" (it is a parameter of {main.children[0]}, which "
                                             "runs as the program: no call in the file gives it a value)")
                self.global_names.add(name)
            self.run_body(body, self.globals, 0)  # (a return there ends the program)
        self.notes += [Finding(f"{call.children[0]} inside thread {name} stays as written: the thread is never started",
                               *line_col(call)) for name, thread in self.threads.items()
                       if name not in self.started_threads for call in self.motion_calls(thread)]
        self.notes += [Finding(f"function {name} is not run: its {len(moves)} motion(s) stay as written", *line_col(fn))
                       for name, fn in self.functions.items()
                       if name not in self.visited and self.summary(name).holds is not None
                       and (moves := self.motion_calls(fn))]
        nowhere = self.note_found_nowhere(body)
        per_pass, per_call, heads, per_motion = passes.settle(self, set(self.conditional_lines), lambda _: "while",
                                                              line_col, lambda call: self.text[call[1].start:call[1].end])
        steps, call_sites = self.finished(lambda: self._name_uses(main), str)
        return RobotProgram(language="urscript", path=self.path, text=self.text, steps=tuple(steps),
                            unsupported=tuple(self.unsupported), notes=tuple(self.notes), entry=(entry,),
                            newline=newline_of(self.text),
                            extra={"conditional": tuple(sorted(set(self.conditional_lines))), "per_pass": per_pass,
                                   "per_call": per_call, "per_motion": per_motion, "pass_heads": heads, "nowhere": nowhere,
                                   "statements_run": self.statements_run, **call_sites})

    def _name_uses(self, main: Tree | None) -> Callable[[Collection[tuple[int, int]]], dict[str, set[int]]]:
        """Each name's uses in the file (their offsets), but those assigned and those :func:`.passes.unread` drops:
        the file read once, a function of the texts written as tables."""
        uses: dict[str, set[int]] = {}
        assigns = list(map(assignment, self.tree.find_data("assign")))
        assigned = {id(target) for target, _, _ in assigns}
        for node in self.tree.find_data("name"):
            if id(node) not in assigned:
                uses.setdefault(str(node.children[0]), set()).add(node.children[0].start_pos)
        # not given a value that reads nothing: a variable a value of which calls a function (that could move the
        # robot); a global nothing reads, or one a function, thread or sec also assigns
        inner = {root_name(target) for scope in self.tree.find_pred(
            lambda t: t.data in ("func_def", "thread_def", "sec_def") and t is not main)
            for target, _, _ in map(assignment, scope.find_data("assign"))}
        kept = {name for name in self.global_names if name in inner or name not in uses} | {
            root_name(target) for target, value, _ in assigns
            if any(str(c.children[0]) in self.functions for c in value.find_data("call"))}
        given = [(str(t.children[0]), t.children[0].start_pos, [(str(n.children[0]), n.children[0].start_pos)
                                                                for n in value.find_data("name")])
                 for t, value, _ in assigns if t.data == "name" and str(t.children[0]) not in kept]
        return passes.unread(uses, given, self.steps, self.per_pass)


__all__ = ["MOVES_PATTERN", "parse_urscript_text", "read_urscript", "urscript_parser", "urscript_program_from_text"]
