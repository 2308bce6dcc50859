"""RAPID routines and calls: what a routine may do (:class:`Summary`), the entry routine, calls of routines and
instructions, arguments bound to parameters, targets written at call sites (a mixin of :mod:`.rapid_flow`)."""
from __future__ import annotations

import bisect
import dataclasses
import functools
import itertools
import re
from collections.abc import Callable, Collection

from lark import Token, Tree

from thermocomp._typing import FloatArray
from thermocomp.errors import InputError
from thermocomp.programs import calls, passes
from thermocomp.programs.model import (
    ABSOLUTE_JOINT,
    JOINT,
    LINEAR,
    Finding,
    Point,
    Wait,
    world_of_target,
)
from thermocomp.programs.rapid_data import (
    _DECLARATION_FUNCTIONS,
    LOCAL_TWICE,
    PASSIVE_INSTRUCTIONS,
    UNSUPPORTED_INSTRUCTIONS,
    _Data,
    _location,
    _number,
    _T_from_pose,
    _Unknown,
    _Unsupported,
    span_of,
)
from thermocomp.programs.rapid_motions import MOTIONS, PROCESS_MOTIONS
from thermocomp.programs.rapid_scope import declared_name

#: Instructions that wait for something thermocomp cannot time.
SIGNAL_WAITS = frozenset("WaitDI WaitDO WaitAI WaitAO WaitGI WaitGO WaitUntil WaitSyncTask WaitTestAndSet".lower().split())

#: Instructions that change how the motions after them run (speed, configuration checks).
MODE_INSTRUCTIONS = frozenset(("velset", "confl", "confj"))

#: Instructions that move the robot or change how it moves; ``_AXES`` but those that move no axis themselves.
_MOVING = frozenset(MOTIONS) | frozenset(PROCESS_MOTIONS) | UNSUPPORTED_INSTRUCTIONS
_AXES = _MOVING - frozenset(("exitcycle", "clearpath", "storepath", "restopath"))
_PASSIVE = PASSIVE_INSTRUCTIONS | SIGNAL_WAITS

#: The instructions thermocomp knows (any other name no module declares is found nowhere).
_KNOWN = _MOVING | _PASSIVE | MODE_INSTRUCTIONS | frozenset(("waittime", "callbyvar"))

_LOCAL_TWICE = LOCAL_TWICE.format(kind="PROC")

#: A RAPID identifier (ABB, "RAPID kernel": at most 32 characters).
_RAPID_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,31}")
#: The dimensions of an array parameter after its name (RAPID kernel, "Parameter declarations": ``{*}``, ``{*,*}``).
_ARRAY_PARAM = re.compile(r"\s*\{\s*\*(?:\s*,\s*\*)*\s*\}")

def _declared_key(decl: Tree) -> str:
    """The name (lower case) a ``data_decl`` or a ``param`` declares."""
    return str(declared_name(decl)).lower()


def by_reference(routine: Tree) -> frozenset[str]:
    """The parameters (lower case) of ``routine`` declared ``INOUT``, ``VAR`` or ``PERS``: bound to the caller's datum,
    which an assignment to them changes. Any other is an ``IN`` parameter: the routine's own variable, its argument's
    value at the call, which the routine may change without changing the argument (RAPID's routine parameters)."""
    return frozenset(_declared_key(p) for p in routine.find_data("param")
                     if any(isinstance(c, Token) and c.type in ("VAR", "PERS", "INOUT") for c in p.children))


def _body(routine: Tree) -> Tree:
    """The ``body`` of a routine."""
    return next(c for c in routine.children if isinstance(c, Tree) and c.data == "body")


class Summary:
    """What a routine, a statement or a body may do (:meth:`_Calls.summary`), in one top-down scan of its subtrees
    (:meth:`_scan`), which also counts what it unrolls to; a call is followed through the called routine's summary.

    Attributes
    ----------
    steps, statements : int
        At most how many steps it unrolls to (motions, waits, calls of routines that move nothing: a call at least
        one) and how many statements the walk runs through it: every branch counted, a FOR's passes (when declared
        values fix them) times its body, each routine once, recursion none (:meth:`.rapid_flow._Flow.check_size`);
        ``path``: the steps of one path, an IF or TEST its largest branch (where the file decides which runs).
    blocker : str | None
        The first thing that moves the robot or changes how later motions run, with its line;
        ``blocker_at_call`` the same but its assignments to its own parameters.
    motion : str | None
        The first motion it runs (in a routine it calls or a FUNC it evaluates too), with its line.
    assigns, changed : set[str]
        The data (lower case) it may give a value, and of those the data of others (and its TRAPs').
    local : frozenset[str]
        A routine's own data and parameters; ``written``: the parameters it assigns (as :data:`.rapid_data.WRITES`).
    mutates : bool
        Whether it may leave the walk in another state (an assignment, a mode instruction, a late call, recursion).
    calls : set[str]
        The names it calls, evaluates or connects (``late``: a late-bound call).
    """

    def __init__(self, flow: _Calls, node: Tree, calling: frozenset[str]) -> None:
        routine = node.data in ("proc", "func", "trap")
        self._flow, self._calling, self._path = flow, calling, flow.origin.get(id(node), "")
        params = frozenset(map(_declared_key, node.find_data("param"))) if routine else frozenset()
        self._params, self.local = params, params | frozenset(map(_declared_key, node.find_data("data_decl"))
                                                                if routine else ())
        self.blocker: str | None = None
        self.blocker_at_call: str | None = None
        self.motion: str | None = None
        self.assigns: set[str] = set()
        self.changed: set[str] = set()
        self.calls: set[str] = set()
        self.mutates = self.late = False
        own, counted = getattr(self, node.data, _no_cost)(node), self._scan(node)
        self.steps, self.statements, self.path = own or counted
        self.changed |= self.assigns - self.local
        required, optional = flow.signature(node) if routine else ([], {})
        written = self.assigns & by_reference(node) if routine else set()  # (an IN parameter: its own copy)
        self.written = (tuple(i for i, (_, name) in enumerate(required) if str(name).lower() in written),
                        frozenset(optional) & written)
        del self._flow  # (needed only while scanning: kept, the walker's summaries would tie it in a reference cycle)

    def _scan(self, node: Tree) -> tuple[int, int, int]:
        """Visit the subtrees of ``node`` top-down (each by the method named after its kind, if any); the steps,
        statements and one path's steps of ``node``: its :data:`_BLOCKS`' summed (a call's and a run of motions' their
        own; a path's: the largest branch of a :data:`_CHOICES`), a FOR's times its passes. A level of nested blocks
        takes two Python frames, of calls five (of :data:`.read.READ_FRAMES`)."""
        steps, statements, path = 0, len(node.children) if node.data == "body" else 0, 0
        for child in node.children:
            if not isinstance(child, Tree):
                continue
            own = getattr(self, child.data, _no_cost)(child)
            if child.data in _BLOCKS and own is None:
                own = self._scan(child)
            else:  # (expressions, handlers, a call's arguments: visited, counted nowhere)
                for sub in itertools.islice(child.iter_subtrees_topdown(), 1, None):
                    getattr(self, sub.data, _no_cost)(sub)
            if child.data in _BLOCKS:
                steps, statements = steps + own[0], statements + own[1]
                path = max(path, own[2]) if node.data in _CHOICES else path + own[2]
        if node.data == "for_stmt":  # (bounds known only while running, or from declared values the program changes
            with self._flow.not_reading():  # before the loop: counted when it runs, _Flow.run_for; counting, at any
                try:  # time, is no read of a cycle's or of a motion's)
                    passes: int | None = self._flow.for_passes(node, None)[2]
                except (_Unsupported, InputError):
                    passes = None
            if passes is not None:
                if not self._flow.quiet_loop(node.children[-1], passes, statements):
                    steps, path = max(steps, 1) * passes, max(path, 1) * passes
                statements *= passes
        return steps, min(statements, 2 ** 62), path

    def _merge(self, inner: Summary, sub: Tree) -> Summary:
        """What ``sub`` (a call, ``inner`` its routine's summary) changes and assigns added."""
        self.changed |= inner.changed
        self.assigns |= inner.assigns - inner.local
        self.assigns.update(str(t).lower() for t in self._flow.written_arguments(sub, *inner.written))
        return inner

    def _found(self, blocker: str | None, motion: str | None = None, own_parameter: bool = False) -> None:
        self.blocker = self.blocker or blocker
        self.blocker_at_call = self.blocker_at_call or (None if own_parameter else blocker)
        self.motion = self.motion or motion

    def _at(self, sub: Tree) -> str:
        return self._flow._at(sub, self._path)

    def moves(self, sub: Tree) -> tuple[int, int, int]:
        if self.motion is None:
            found = re.match(r"\w*", sub.children[0]).group() + f" at {self._at(sub)}"
            self._found(found, found)
        return (n := len(self._flow.move_matches(sub.children[0]))), 0, n

    def late_call(self, sub: Tree) -> None:
        """A late call, a GOTO or a label: what runs after it is known only while running."""
        self.late |= sub.data == "late_call"
        self.mutates |= self.late
        self._found(f"{_JUMPS[sub.data]} at {self._at(sub)}")

    goto_stmt = label = late_call

    def connect_stmt(self, sub: Tree) -> None:
        """A TRAP runs at times known only while running: what it holds is this one's (itself again adds nothing)."""
        name = str(sub.children[-1])
        key = name.lower()
        self.calls.add(key)
        trap = self._flow.traps.get(key)
        if trap is None:
            self._found(f"an interrupt (CONNECT) at {self._at(sub)} of TRAP {name}, found in no module of this file")
        elif key not in self._calling:
            inner = self._flow.summary(trap, self._calling)
            self.changed |= inner.changed
            self._found(inner.blocker and f"{inner.blocker} (in TRAP {name}, connected at {self._at(sub)})")

    def func_call(self, sub: Tree) -> None:
        name = str(sub.children[0])
        key = name.lower()
        self.calls.add(key)
        func = self._flow.funcs.get(key)
        if func is None:
            self._changes(sub)  # (the arguments it writes: StrToVal(s, n))
        elif key not in self._calling and (motion := self._merge(self._flow.summary(func, self._calling), sub).motion):
            at = self._at(sub)  # (a FUNC may hold any instruction)
            self._found(f"{motion} (in FUNC {name}, called at {at})", f"{motion} (in {name}, called at {at})")

    def assign(self, sub: Tree) -> None:
        self.mutates = True
        self._changes(sub)

    def _changes(self, sub: Tree) -> bool:
        """What ``sub`` changes added to :attr:`assigns`; whether it changes anything."""
        tokens = self._flow.changed_tokens(sub)
        for token in tokens:
            self.assigns.add(str(token).lower())
            if str(token).lower() in self._params:
                self._found(f"an assignment to its parameter {token} at {self._at(sub)}", own_parameter=True)
        return bool(tokens)

    def call(self, sub: Tree) -> tuple[int, int, int]:
        """An instruction or a routine, classed in the order the walker runs them (:meth:`_Calls.run_call`); its
        steps and statements (a motion or a wait one step, a routine's at least one, another module's one statement)."""
        flow, name = self._flow, str(sub.children[0])
        key = name.lower()
        self.calls.add(key)
        routine = flow.procs.get(key)
        self.mutates |= routine is None and self._changes(sub)  # (a routine's: its summary, below)
        writes = getattr(PROCESS_MOTIONS.get(key), "writes", None)
        if writes is not None:  # (a search's found point)
            self.assigns.update(str(t).lower() for t in flow.written_arguments(sub, (writes,), frozenset()))
        self.mutates |= key in MODE_INSTRUCTIONS or writes is not None
        inner = None
        if key == "callbyvar" and routine is None:  # (a late-bound call: _Calls.by_var)
            self.late_call(Tree("late_call", [], sub.meta))
        if key in _MOVING and routine is None or key in MOTIONS or key in PROCESS_MOTIONS:
            if self.motion is None:  # (a routine of 10,000 motions: each named only while none is)
                self._found(f"{name} at {self._at(sub)}", f"{name} at {self._at(sub)}")
        elif key in MODE_INSTRUCTIONS:
            self._found(self.blocker or f"{name} at {self._at(sub)}")
        elif key in flow.funcs and routine is None:
            func = flow.funcs[key]
            self._found(f"{name} at {self._at(sub)}, a FUNC ({flow._at(func, flow.origin.get(id(func), ''))}) called "
                        "as a procedure, which a FUNC cannot be")
        elif routine is None and ("proc", key) in flow.foreign_local:
            self._found(f"{name} at {self._at(sub)}, {_LOCAL_TWICE}")
        elif routine is not None and key in self._calling:
            self.mutates = True
            self._found(f"a recursive call of {name} at {self._at(sub)}")
        elif routine is not None:
            inner = self._merge(flow.summary(routine, self._calling), sub)
            self.mutates |= inner.mutates
            if self.motion is None:
                at = self._at(sub)
                self._found(inner.blocker_at_call and f"{inner.blocker_at_call} (in {name}, called at {at})",
                            inner.motion and f"{inner.motion} (in {name}, called at {at})")
        if key in MOTIONS or key in PROCESS_MOTIONS or key == "waittime":
            return 1, 1, 1
        if inner is None:  # (an instruction; a routine called recursively, or run as an instruction of its name)
            return int(routine is not None), 1, int(routine is not None)
        other = id(routine) in flow.origin  # (another module's routine: its statements not counted; passed over
        if other and inner.blocker is None:  # when it moves nothing, run_call)
            return 0, 1, 0
        return max(inner.steps, 1), 1 if other else 1 + inner.statements, max(inner.path, 1)


#: How :attr:`Summary.blocker` names a jump.
_JUMPS = {"late_call": "a late-bound call (%...%)", "goto_stmt": "a GOTO", "label": "a label (a GOTO target)"}


def _no_cost(sub: Tree) -> None:
    """A node of a kind :class:`Summary` has no method for."""


#: The statements that run one of their bodies, where the file may decide which (:attr:`Summary.path`).
_CHOICES = frozenset(("if_stmt", "compact_if", "test_stmt"))
#: The nodes that hold statements (what :meth:`Summary._scan` counts through).
_BLOCKS = frozenset(("body", "call", "moves", "if_stmt", "elseif", "compact_if", "while_stmt", "for_stmt", "test_stmt",
                     "test_case"))


class _Calls(calls.Texts):
    """The walker's routines and calls (mixed into ``rapid._Walker`` under :class:`.rapid_flow._Flow`)."""

    UNROLLED = "the module; its FOR loops and routine calls unrolled, the paths through its conditions joined"

    def run_routine(self, routine: Tree, depth: int, local: dict[str, _Data]) -> None:
        body = _body(routine)
        handlers = next(c for c in routine.children if isinstance(c, Tree) and c.data == "handlers")
        for handler in handlers.children[1::2]:  # (an ERROR handler runs on an error known only while running:
            # what it assigns, the module's data or the routine's own, is changed from the routine's start)
            self.mark_all(self.summary(handler).assigns, handler, handler, local)
        self._routines_run.append(body)
        self._arguments_run.append(self._arguments(local))
        try:
            self.run_body(body, local, depth)
        finally:
            self._routines_run.pop()
            self._arguments_run.pop()

    def _arguments(self, local: dict[str, _Data]) -> tuple[str, ...] | None:
        """What a call bound the parameters of the routine whose scope is ``local`` to (their values' texts, by
        name; none for a routine of no parameter); None where one is not known before running."""
        values = [local[key].value for key in sorted(self._params.get(id(local), ()))]
        return None if any(value is None for value in values) else tuple(map(repr, values))

    def run_late_call(self, statement: Tree, local: dict[str, _Data], depth: int) -> None:
        """``%"name"% args;`` whose name is known before running."""
        try:
            name, _ = self.evaluate_typed(statement.children[0], local)
        except _Unsupported:
            name = None
        if not (isinstance(name, str) and _RAPID_NAME.fullmatch(name)):
            self.late_unknown = self.late_unknown or self._loaded_maybe(statement.children[0])
            raise _Unsupported("a late-bound call (%...%) whose routine is known only while running is not followed",
                               statement)
        where = statement.children[0]
        meta = where.meta if isinstance(where, Tree) else statement.meta
        token = Token.new_borrow_pos("NAME", name, meta)
        self.run_call(Tree("call", [token, *statement.children[1:]], statement.meta), local, depth)

    def by_var(self, statement: Tree, positional: list) -> Tree:
        """``CallByVar Name, Number;`` as the late-bound call it is, ``%Name + NumToStr(Number, 0)%;`` (RAPID
        Instructions, CallByVar: ``CallByVar "proc", reg1;`` calls the procedure ``proc1``, ``proc2`` ... without
        arguments)."""
        if len(positional) != 2:
            raise self.error("CallByVar: expected a procedure name's first part and a number", statement)
        meta = statement.meta
        number = Tree("call_args", [positional[1], Tree("number", [Token("NUMBER", "0")], meta)], meta)
        text = Tree("func_call", [Token.new_borrow_pos("NAME", "NumToStr", statement.children[0]), number], meta)
        return Tree("late_call", [Tree("add", [positional[0], text], meta)], meta)

    def _loaded_maybe(self, expression: Tree | Token) -> bool:
        """Whether a late-bound call of ``expression`` (a name known only while running) may run a routine the task
        given does not hold (:meth:`_Flow.run`). The controller runs the procedure of that name among the task's
        modules when the call runs (RAPID reference, "Procedure call": late binding; an unknown name raises
        ERR_REFUNKPRC), so the call is taken to run one of the task's own routines only where the name's text pins it
        to them: its literal parts, in order, are matched by at least one routine of the task (``"rPick" + ...``,
        ``"r_" + sJob + "_Config"``) and the task loads no module (``Load``, ``StartLoad``); one of a module named
        (``"Part:main"``) or one no routine of the task matches is not one of them. A name with no literal part (a
        variable, a record's field read from a socket: ``%sJob%``) is taken as one of the task's routines where the
        task loads no module: a dispatcher task (compas_rrc's, RFL's master task) calls its own jobs so."""
        parts, pending = [], [expression]
        while pending:  # (the terms of ``a + b + c``, in order)
            term = pending.pop()
            if isinstance(term, Tree) and term.data == "add":
                pending.extend(reversed(term.children))
            else:
                parts.append(str(self.evaluate(term, None)).lower()
                             if isinstance(term, Tree) and term.data == "string" else None)
        if any(":" in part for part in parts if part is not None):
            return True
        if all(part is None for part in parts):
            return self._task_loads
        body = ".*".join(re.escape(part) for part in parts if part is not None)
        pattern = re.compile(("" if parts[0] is not None else ".*") + body + ("" if parts[-1] is not None else ".*"))
        return not any(pattern.fullmatch(name) for name in self.procs) or self._task_loads

    @functools.cached_property
    def _task_loads(self) -> bool:
        """Whether the task loads modules while running (``Load``, ``StartLoad``): scanned once, not per late call."""
        return any(str(call.children[0]).lower() in ("load", "startload") for tree in self.task_trees
                   for call in tree.find_data("call") if isinstance(call.children[0], Token))

    def run_connect(self, statement: Tree, local: dict[str, _Data], depth: int) -> None:
        """``CONNECT intno WITH trap;``: a TRAP that moves nothing; what it assigns is changed from here on."""
        name = str(statement.children[-1])
        trap = self.traps.get(name.lower())
        if trap is None:
            raise _Unsupported(f"CONNECT: TRAP {name} is found in no module of this file", statement)
        found = self.summary(trap)
        if found.blocker is not None:
            raise _Unsupported(f"CONNECT (an interrupt) runs TRAP {name}, which holds {found.blocker}, at times known "
                               "only while running", statement)
        self.mark_all(found.assigns - found.local, trap, statement, local)
        self.visited.add(name.lower())
        self.notes.append(Finding(f"CONNECT: TRAP {name} moves nothing; what it assigns is known only while running "
                                  "from here on", *_location(statement), self.file))

    def summary(self, node: Tree, calling: frozenset[str] = frozenset()) -> Summary:
        """:class:`Summary` of ``node``, found once; a routine in ``calling`` is recursion."""
        if id(node) not in self._summaries:
            if node.data in ("proc", "func", "trap"):
                calling |= {self._routine_name(node).lower()}
            self._summaries[id(node)] = (node, Summary(self, node, calling))  # (node kept: its id stays its)
        return self._summaries[id(node)][1]

    def _at(self, node: Tree | Token | int, path: str) -> str:
        """``line 7`` of ``node`` (or the line ``node``); ``path, line 7`` in another file."""
        line = node if isinstance(node, int) else _location(node)[0]
        return f"line {line}" if not path or path == self.path else f"{path}, line {line}"

    def bind_arguments(self, routine: Tree, call_args: Tree | None, local: dict[str, _Data] | None,
                       statement: Tree | None = None) -> dict[str, _Data]:
        """The scope a call of ``routine`` starts with, each parameter bound to its argument (``local`` None:
        arguments known only while running, no parameter has a value)."""
        positional, optional = self.split_args(call_args)
        required, optional_params = self.signature(routine)
        if local is not None and len(positional) != len(required):
            raise self.error(f"{self._routine_name(routine)} takes {len(required)} argument(s) "
                             f"({', '.join(str(n[1]) for n in required) or 'none'}), got {len(positional)}", statement)
        unknown = sorted(set(optional) - set(optional_params))
        if unknown:
            raise self.error(f"{self._routine_name(routine)} has no optional parameter \\{unknown[0]}", statement)
        given = {**dict(zip((str(names[1]).lower() for names in required), positional)), **optional}
        scope: dict[str, _Data] = {}
        text = self._files[self.routine_file(routine)][1]
        for key, (type_token, param) in [*((str(n[1]).lower(), n) for n in required), *optional_params.items()]:
            rank = _ARRAY_PARAM.match(text, param.end_pos)  # (``robtarget a{*}``: an array of any size, its rank)
            node = given.get(key)
            dtype = self.base_type(str(type_token).lower()) + ("{" + "," * rank.group().count(",") + "}" if rank else "")
            scope[key] = _Data(dtype, None, None, str(param), param) if node is None else self._argument(
                routine, dtype, param, node, local)
        self._scopes.append(scope)
        self._params[id(scope)] = set(scope)
        self._by_reference[id(scope)] = by_reference(routine)
        if local is not None:
            self._present[id(scope)] = {key for key in optional_params if key in optional}  # (Present(...))
        return scope

    def signature(self, routine: Tree) -> tuple[list[list[Token]], dict[str, list[Token]]]:
        """A routine's required parameters in order and its optional ones by name, each its type and name tokens."""
        required, optional = [], {}
        text = self._files[self.routine_file(routine)][1]  # (the routine's file: the call's may be another)
        for param in next((c.children for c in routine.children if getattr(c, "data", None) == "params"), []):
            names = [c for c in param.children if isinstance(c, Token) and c.type == "NAME"]
            before = start = span_of(param).start  # (a backslash at its start or just before it: optional; so is
            while before > 0 and text[before - 1].isspace():  # an alternative after "|": \switch on | switch off)
                before -= 1
            if text[start] == "\\" or text[before - 1:before] in ("\\", "|"):
                optional[str(names[1]).lower()] = names
            else:
                required.append(names)
        return required, optional

    def _argument(self, routine: Tree, dtype: str, param: Token, node: Tree | Token, local: dict[str, _Data]
                  ) -> _Data:
        """The datum ``param`` of ``routine`` is bound to by argument ``node`` (recorded in :attr:`_passed`)."""
        at, span = self.routine_file(routine) << 40, span_of(routine)
        passed = span._replace(start=at + span.start, end=at + span.end), str(param).lower()
        if isinstance(node, Tree) and node.data == "name":
            data = self.lookup(node.children[0], local, unset=True, passed_as=dtype)  # (a VAR without a value:
            # read where used; a signal, a unit or a camera no module declares: the system parameters')
            self._passed[self.file_key + node.children[0].start_pos] = passed
            if data.type != dtype and (self.fields_of(dtype) is not None or "{" in dtype + data.type):
                raise self.error(f"parameter {param} is a {dtype}, got {node.children[0]}, a {data.type}", node)
            return data
        stood_reads = self._stood_reads
        value = self.evaluate_as(node, local, dtype) if self.fields_of(dtype) is not None else self.evaluate(node, local)
        if dtype in ("robtarget", "jointtarget") and isinstance(node, Tree) and node.data in ("aggregate", "numbers"):
            # a target written at the call site: written there (:class:`.calls.Texts`)
            self._passed[self.file_key + span_of(node).start] = passed
            return _Data(dtype, value, node, str(param), param, file=self.file)
        data = _Data(dtype, value, None, str(param), param)
        if self._stood_reads != stood_reads:  # (computed from where the robot stands, as an assignment's: a condition
            self.stood[id(data)] = (data, node)  # reading it is decided only while running, :meth:`assign`)
        return data

    def through_call_site(self, node: Tree | Token, local: dict[str, _Data], kind: str, T_world_frame: FloatArray,
                          T_flange_tcp: FloatArray, held: bool) -> Point | None:
        """The point of ``Offs``/``RelTool`` (nested) of a parameter bound to a target written at the call site: its
        text that target's, the expression the argument; else None."""
        layers, inner = [], node
        while isinstance(inner, Tree) and inner.data == "func_call" and len(inner.children) > 1 \
                and str(inner.children[0]).lower() in ("offs", "reltool"):
            layers.append(inner)
            inner = next(iter(self.split_args(inner.children[1])[0]), None)
        if not layers or kind == ABSOLUTE_JOINT or not (isinstance(inner, Tree) and inner.data == "name"):
            return None
        data = self.lookup(inner.children[0], local)
        if not (isinstance(data.node, Tree) and (data.file << 40) + span_of(data.node).start in self._passed):
            return None
        point = self.point(inner, local, kind, T_world_frame, T_flange_tcp, held)
        poses = [_T_from_pose(data.value[:2]), *(_T_from_pose(self.evaluate_as(layer, local, "robtarget")[:2])  # type: ignore[index]
                                                 for layer in reversed(layers))]
        if not calls.read_at_call_site(
                self._reads, ((point.file << 40) + point.text.start, self.file_key + span_of(node).start),
                [(str(layer.children[0]), calls.THROUGH[str(layer.children[0]).lower()][0][1]) for layer in layers],
                poses):
            return None  # (the function differs from pass to pass: the expression is the text, as any other)
        return dataclasses.replace(point, T_world_tcp=world_of_target(T_world_frame, poses[-1][None], held)[0],
                                   argument=span_of(node))

    @functools.cached_property
    def task_changes(self) -> tuple[frozenset[str], frozenset[str]]:
        """The data some statement of the task may give a value (a routine it passes them to too), and those a TRAP
        may (at any time once connected)."""
        return (frozenset().union(*(self.summary(r).assigns for r in (*self.routines, *self.procs.values(),
                                                                         *self.funcs.values()))),
                frozenset().union(*(self.summary(t).assigns for t in self.traps.values())))

    def run_call(self, statement: Tree, local: dict[str, _Data], depth: int) -> None:
        name = str(statement.children[0])
        key = name.lower()
        call_args = statement.children[1] if len(statement.children) > 1 else None
        positional, optional = self.split_args(call_args)
        if key in MOTIONS or key in PROCESS_MOTIONS:
            self.run_tagged(lambda: self.run_motion(statement, key, local))
        elif key in ("confl", "confj"):  # \Off: the controller ignores the confdata of the motions after it
            if "on" in optional or "off" in optional:
                self.conf_on[LINEAR if key == "confl" else JOINT] = "on" in optional
        elif key in self.procs and id(self.procs[key]) in self.origin and self.summary(self.procs[key]).blocker is None:
            # another module's routine that moves nothing: passed over, what it assigns changed from the call on
            self.mark_all(self.summary(self.procs[key]).changed, self.procs[key], statement, {})
        elif key == "waittime":
            if len(positional) != 1:
                raise self.error("WaitTime: expected one time [s]", statement)
            try:
                value = self.evaluate(positional[0], local)
            except _Unknown as unknown:  # (its seconds only time the cycle: no target reads them)
                self.notes.append(Finding(f"WaitTime: {unknown.message}: the timing counts no wait",
                                          *_location(statement), self.file))
                return
            seconds = self._as_number(value, positional[0])
            if seconds < 0:
                raise self.error(f"WaitTime: expected a time >= 0 s, got {seconds:g}", statement)
            self.steps.append(Wait(seconds, span_of(statement)))
        elif key == "velset":
            if len(positional) != 2:
                raise self.error("VelSet: expected Override [%] and Max [mm/s]", statement)
            self.velset = (self._number(positional[0], local), self._number(positional[1], local))
        elif key == "callbyvar" and key not in self.procs:
            self.run_late_call(self.by_var(statement, positional), local, depth)
        elif key in self.procs:
            self._run_proc(statement, statement, local, depth)
        elif key in UNSUPPORTED_INSTRUCTIONS:
            raise _Unsupported(f"{name} is not followed (it moves the robot or changes the frame of its motions in "
                               "a way known only while running)", statement)
        elif key in _PASSIVE:
            self.record_change(statement, local)  # (WaitDI ... \\TimeFlag:=timeout)
            if key in SIGNAL_WAITS:
                self.notes.append(Finding(f"{name} waits for a signal: the timing counts no wait",
                                          *_location(statement), self.file))
        elif key in self.funcs:
            func = self.funcs[key]
            raise self.error(f"{name} is a FUNC ({self._at(func, self.origin.get(id(func), ''))}); a FUNC cannot be "
                             f"called as a procedure (its value is used in an expression: x := {name}(...);)", statement)
        elif ("proc", key) in self.foreign_local:
            raise _Unsupported(f"{name} is {_LOCAL_TWICE}", statement)
        else:  # a routine found nowhere: assumed to move nothing; the data passed to it changed from here on
            self.record_change(statement, local)
            self._late_nowhere.setdefault(key, (self.file, statement))

    def _run_proc(self, call: Tree, statement: Tree, local: dict[str, _Data], depth: int) -> None:
        """A ``call`` of the task's PROC in ``statement``, run in its own module's file; a recursion with the arguments
        of two calls being run (a parameterless one: any) twice, not deeper (its third pass reads what its second did)."""
        name, call_args = str(call.children[0]), call.children[1] if len(call.children) > 1 else None
        key = name.lower()
        if depth > 32:
            raise _Unsupported(f"calls nested more than 32 deep (recursion?) at {name}", statement)
        routine = self.procs[key] if key in self.procs else self.funcs[key]  # (a FUNC that moves: run_moving_func)
        body = _body(routine)
        found = self.summary(routine)  # (moves nothing, changes nothing a motion reads: its conditions and loops that
        quiet = found.blocker is None and not found.changed  # cannot be followed are passed over with a note)
        read_before = set(self._first_read)
        try:
            scope: dict[str, _Data] | None = self.bind_arguments(routine, call_args, local, statement)
        except _Unsupported as unknown:
            if found.blocker_at_call is not None:
                raise
            scope = self.bind_arguments(routine, None, None) if quiet else None  # (known only while running)
            if scope is None:  # moves nothing: what it changes (the data passed to it too) known only while running
                self.record_change(statement, local)
                reason = re.sub(r"[;:] its value at this motion is not known$", "", unknown.message)
                self.note_once(Finding(f"{name} is called with an argument not known before running ({reason}); it "
                                       "moves nothing: passed over, what it changes is known only while running from "
                                       "here on (its time is not in the estimate)", *_location(statement), self.file))
        arguments = None if scope is None else self._arguments(scope)
        if arguments is not None and sum(b is body and a == arguments
                                         for b, a in zip(self._routines_run, self._arguments_run)) >= 2:
            self.note_once(Finding(f"{name} calls itself again (recursion): followed twice on this path, not deeper",
                                   *_location(statement), self.file))
            return
        self.visited.add(key)
        first, stood_reads = len(self.steps), self._stood_reads
        self._quiet += [name] if quiet else []
        try:
            if scope is not None:
                with self.in_file(self.routine_file(routine)):
                    self.run_routine(routine, depth + 1, scope)
        finally:
            del self._quiet[len(self._quiet) - quiet:]
        if quiet or scope is None:  # (what a routine that moves nothing reads cannot make a motion differ next cycle)
            for read in set(self._first_read) - read_before:
                del self._first_read[read]
        if scope or self._stood_reads != stood_reads:  # (its arguments, or where the robot stands, may differ from
            # call to call: its texts a table of one entry a call where they do, passes.take_calls)
            call = (name, span_of(statement), self.file)  # (one object a call: passes._by_call tells runs apart)
            self.call_runs[id(call)] = (call, *self.index_site(statement, local))
            for step in self.steps[first:]:  # the outermost call with arguments is the one named
                self._in_call[id(step)] = call

    def index_site(self, statement: Tree, local: dict[str, _Data]) -> tuple[int, tuple[tuple[str, float], ...]]:
        """Where a table's index is set for the call or motion ``statement`` (the task-wide offset, ``file << 40``
        added, of the statement, or of the compact ``IF`` whose statement it is: written before that ``IF``, the
        index is set whether or not the statement runs, and only it reads the index) and the counters known there,
        ``(name as written, value)`` each: the FOR counters of its routine's ``local`` data (outer loops first), then
        the numbers its arguments read (a WHILE's counter, ``Pick pts{n};``, ``Offs(p, nX, nY, 0)``; not in a
        compact ``IF``). A call run several times, or a motion under a condition known only while running in a loop,
        may need one entry a pass, its index computed from them (:func:`.passes.settle`)."""
        compact = self.compact_ifs.get((self.file, span_of(statement).start))
        at = span_of(compact or statement).start
        counters = self.for_counters_known(local)
        call_args = statement.children[1] if len(statement.children) > 1 and compact is None else None  # (an IF's
        # condition, read after the index is set, may call a FUNC that changes them; a FOR counter it cannot)
        for name in call_args.find_data("name") if isinstance(call_args, Tree) else ():
            key = str(name.children[0]).lower()
            if key not in counters:
                try:
                    with self.not_reading():  # (the arguments were read by the call already)
                        data = self.lookup(name.children[0], local)
                except (_Unknown, _Unsupported):
                    continue
                if data.type == "num" and _number(data.value):
                    counters[key] = (str(name.children[0]), data.value)
        return (self.file << 40) + at, tuple(counters.values())

    def for_counters_known(self, local: dict[str, _Data]) -> dict[str, tuple[str, float]]:
        """The counters of the FOR loops whose passes run ``local`` (a routine's data) with known values: each by
        its key, ``(name as written, value)``, outer loops first."""
        return {key: (data.name, data.value) for key, data in local.items() if id(data.declared) in
                self._for_counters and _number(data.value)}

    @functools.cached_property
    def _for_counters(self) -> set[int]:
        """The ids of the counters (name tokens) of the task's ``FOR`` loops."""
        return {id(f.children[0]) for tree in self.task_trees for f in tree.find_data("for_stmt")}

    @functools.cached_property
    def compact_ifs(self) -> dict[tuple[int, int], Tree]:
        """The task's compact ``IF`` statements by ``(file, start)`` of the statement each holds: no statement can be
        written before that one (:func:`.passes.settle`)."""
        return {(file, span_of(c.children[-1]).start): c for file, tree in enumerate(self.task_trees)
                for c in tree.find_data("compact_if")}

    def found_nowhere(self, key: str) -> bool:
        """Whether ``key`` names no routine of the task and no instruction thermocomp knows."""
        return key not in _KNOWN and key not in self.procs and key not in self.funcs \
            and ("proc", key) not in self.foreign_local

    def note_found_nowhere(self, entry: list[Tree]) -> tuple[tuple[str, int, int, int], ...]:
        """A note for each routine found nowhere that a cycle may call; returns ``(name, file, line, column)`` of each
        such call the ``entry`` routines make (:func:`.calls.note_found_nowhere`)."""
        found = [(self.routine_file(r), c) for r in self._reach[0].values() for c in r.find_data("call")
                 if isinstance(c.children[0], Token) and self.found_nowhere(str(c.children[0]).lower())]
        called = {str(c.children[0]).lower() for _, c in found}  # (a late-bound call: counted where its routine is
        found += [late for key, late in self._late_nowhere.items() if key not in called]  # called nowhere else)
        spans = [(self.routine_file(r), r.meta.start_pos, r.meta.end_pos) for r in entry]
        return calls.note_found_nowhere(self.notes, [
            (str(c.children[0]).lower(), f, *_location(c), str(c.children[0]),
             any(f == file and a <= c.meta.start_pos < b for file, a, b in spans)) for f, c in found],
            lambda name, count, file, line: (
                f"{name} is a routine found in no module of the task: its {count} call(s) (the first at "
                f"{self._at(line, self._files[file][0])}) are passed over, assuming it moves nothing and changes "
                "nothing but the data passed to it (a motion that reads those after a call is refused); their time is "
                "not in the time estimate (give its module with --module FILE to have it followed)"))

    def entry_routines(self) -> list[Tree]:
        """The entry routine (``--entry``); without a ``main``, or an empty one, every parameterless PROC of the
        module no routine calls, in file order."""
        entry = self.task.options.entry
        found = self.procs.get(entry.lower())
        own = found is not None and id(found) not in self.origin
        if not own and entry.lower() != "main":
            other = found or self.funcs.get(entry.lower()) or self.traps.get(entry.lower())
            got = ("none of that name" if other is None else f"{other.data.upper()} {self._routine_name(other)}"
                   + (f" of {self.origin[id(other)]}" if id(other) in self.origin else ""))
            names = [self._routine_name(p) for p in self.procs.values() if id(p) not in self.origin]
            raise InputError(f"--entry {entry}: expected a PROC of this module, got {got} (its PROCs: "
                             f"{', '.join(names) or 'none'})", path=self.path)
        if own:
            required = self.signature(found)[0]
            if required:  # (the controller starts a routine with no argument)
                raise InputError(f"--entry {entry}: expected a PROC that runs with no argument, got PROC "
                                 f"{self._routine_name(found)} of {len(required)} parameter(s) "
                                 f"({', '.join(str(n[1]) for n in required)})", path=self.path,
                                 row=_location(found)[0], column=_location(found)[1])
            if entry.lower() != "main" or _body(found).children:
                return [found]
        called = {str(c.children[0]).lower() for r in self.routines for c in r.find_data("call")}
        routines = [p for name, p in self.procs.items()  # (the module's own parameterless PROCs no routine calls)
                    if id(p) not in self.origin and name not in called and not any(p.find_data("param")) and p is not found]
        if own and routines:
            self.notes.append(Finding(f"PROC {self._routine_name(found)} holds no statement: the module's PROCs "
                                      "that no routine calls are run in file order, as one cycle ("
                                      f"{', '.join(self._routine_name(p) for p in routines)}); --entry NAME "
                                      "runs one of them alone", *_location(found), self.file))
        return routines if routines or not own else [found]

    @staticmethod
    def _routine_name(routine: Tree) -> str:
        return str(declared_name(routine))

    def note_unvisited(self) -> tuple[tuple[str, int, int, int], ...]:
        """A note for each routine not run that holds motions; ``(name, motions, line, column)`` of each."""
        unrun = []
        for routine in self.routines:
            name = self._routine_name(routine)
            if name.lower() in self.visited:
                continue
            n_moves = len(self._motions_in(routine, _AXES))
            if n_moves:
                self.notes.append(Finding(f"{routine.data.upper()} {name} is not run from the entry routine: its {n_moves} "
                                          "motion(s) are not followed (their texts stay as written; data they share "
                                          "with the routines run may be rewritten)", *_location(routine), self.file))
                unrun.append((name, n_moves, *_location(routine)))
        return tuple(unrun)

    def _task_uses(self) -> Callable[[Collection[tuple[int, int]]], dict[str, set[int]]]:
        """Each name's uses (lower case) in the task's files (offsets keyed by file), but a ``CONST``'s in a PROC no
        cycle reaches and, for texts ``tabled``, those in them: the task read once, a function of ``tabled``."""
        uses: dict[str, set[int]] = {}
        trees = self.task_trees
        consts = frozenset(_declared_key(d) for t in trees for d in t.find_data("data_decl")
                           if any(s.children[0].type == "CONST" for s in d.find_data("storage")))
        given: list[tuple[str, int, list[tuple[str, int]]]] = []  # ``x := value;``: x, its offset, value's names
        for file, module_tree in enumerate(trees):
            key = file << 40
            size_only = {call.children[1].children[0].children[0].start_pos for call in module_tree.find_data(
                "func_call") if str(call.children[0]).lower() in _DECLARATION_FUNCTIONS and len(call.children) > 1
                and isinstance(call.children[1].children[0], Tree)
                and call.children[1].children[0].data == "name"}  # (Dim(pts, 1), Present(p) read no value)
            unrun = _Spans([] if self._reach[1] else [(r.meta.start_pos, r.meta.end_pos) for r in module_tree.find_data(
                "proc") if self._routine_name(r).lower() not in self._reach[0]])  # (the reach found once for the task)
            for token in (node.children[0] for node in module_tree.find_data("name")):
                if token.start_pos not in size_only and not (str(token).lower() in consts
                                                             and token.start_pos in unrun):
                    uses.setdefault(str(token).lower(), set()).add(key + token.start_pos)
            for token in (node.children[0] for node in module_tree.find_data("moves")):
                statements = self.move_matches(token)
                not_read = consts if token.start_pos in unrun else frozenset()
                for part in ("p1", "p2", "speed", "zone", "tool", "wobj"):
                    starts = (key + token.start_pos + statements.starts(part)).tolist()
                    for value, start in zip(statements.texts(part, lower=True), starts):
                        if value is not None and value[0] != "[" and re.match(r"\w*", value).group() not in not_read:
                            uses.setdefault(value, set()).add(start)
            for x, value in ((a.children[0], a.children[-1]) for a in module_tree.find_data("assign")):
                if x.data == "name" and not any(str(c.children[0]).lower() in self.funcs
                                                for c in value.find_data("func_call")):
                    given.append((str(x.children[0]).lower(), key + x.children[0].start_pos,
                                  [(str(n.children[0]).lower(), key + n.children[0].start_pos)
                                   for n in value.find_data("name")]))
        # not given a value that reads nothing: a parameter or PERS (what they hold is read outside the task's
        # text); a datum a value of which calls a FUNC of the task (that assignment's target stays a read)
        held = {_declared_key(d) for t in trees if given for d in (*t.find_data("param"), *t.find_data("data_decl"))
                if d.data == "param" or any(s.children[0].type == "PERS" for s in d.find_data("storage"))}
        return passes.unread(uses, [g for g in given if g[0] not in held], self.steps, self.per_pass)

    @functools.cached_property
    def _reach(self) -> tuple[dict[str, Tree], bool]:
        """The routines a cycle may run, by name (lower case), and whether one holds a late-bound call; found once."""
        named = {self._routine_name(r).lower(): r for r in self.routines}
        reached: dict[str, Tree] = {}
        seen, todo, late = set(), list(self.visited), False
        while todo:
            key = todo.pop()
            if key in seen:
                continue
            seen.add(key)
            routine = named.get(key) or self.procs.get(key) or self.funcs.get(key) or self.traps.get(key)
            if routine is not None:
                reached[key] = routine
                late = late or self.summary(routine).late
                todo += self.summary(routine).calls
        return reached, late


class _Spans:
    """Spans ``[start, end)`` of a file that do not overlap (its routines'), asked whether they hold an offset: a
    binary search, not a scan of every span (a module of 20,000 routines no cycle runs read in 42 s against 1.5, the
    uses of its names times its routines)."""

    def __init__(self, spans: list[tuple[int, int]]) -> None:
        self._spans = sorted(spans)
        self._starts = [start for start, _ in self._spans]

    def __contains__(self, offset: int) -> bool:
        k = bisect.bisect_right(self._starts, offset) - 1
        return k >= 0 and offset < self._spans[k][1]
