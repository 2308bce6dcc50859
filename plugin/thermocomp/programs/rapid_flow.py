"""RAPID control flow and calls (:meth:`_Flow.run_body`): the task's modules read, statements, branches and loops,
the joins of their paths, the size bound; what a routine may do (:class:`Summary`), the entry routine, calls of
routines and instructions, arguments bound to parameters, targets written at call sites."""

from __future__ import annotations

import bisect
import contextlib
import dataclasses
import functools
import itertools
import operator
import re
from collections.abc import Callable, Collection, Iterator

import numpy as np
from lark import Token, Tree

from thermocomp._typing import FloatArray
from thermocomp.errors import InputError
from thermocomp.programs import calls, passes, rapid_scope
from thermocomp.programs.calls import MAX_QUIET_WORK
from thermocomp.programs.grammars import line_col, span_of, without_runs
from thermocomp.programs.model import (
    ABSOLUTE_JOINT,
    JOINT,
    LINEAR,
    Finding,
    Motion,
    MotionRun,
    Point,
    RobotProgram,
    Wait,
    newline_of,
    world_of_target,
)
from thermocomp.programs.rapid_data import (
    _DECLARATION_FUNCTIONS,
    _NO_MARK,
    EVALUATED,
    PASSIVE_INSTRUCTIONS,
    PREDEFINED,
    UNSUPPORTED_INSTRUCTIONS,
    _Data,
    _is_local,
    _known,
    _number,
    _PathsDiffer,
    _Running,
    _same,
    _T_from_pose,
    _Unknown,
    _Unsupported,
    compared,
)
from thermocomp.programs.rapid_motions import MOTIONS, PROCESS_MOTIONS
from thermocomp.programs.rapid_scope import declared_name

#: Instructions that wait for something thermocomp cannot time.
SIGNAL_WAITS = frozenset("WaitDI WaitDO WaitAI WaitAO WaitGI WaitGO WaitUntil WaitSyncTask WaitTestAndSet".lower().split())

#: Instructions that change how the motions after them run (speed, configuration checks).
MODE_INSTRUCTIONS = frozenset(("velset", "confl", "confj"))

#: Instructions that move the robot or change how it moves; ``_AXES`` but those that move no axis themselves.
_MOVING = frozenset(MOTIONS) | frozenset(PROCESS_MOTIONS) | UNSUPPORTED_INSTRUCTIONS
#: Those that stop, clear, keep or resume the motions the program holds, or restart its cycle, adding none of their own.
_PATH_STOPS = frozenset(("exitcycle", "clearpath", "storepath", "restopath"))
_AXES = _MOVING - _PATH_STOPS
_PASSIVE = PASSIVE_INSTRUCTIONS | SIGNAL_WAITS

#: The instructions thermocomp knows (any other name no module declares is found nowhere).
_KNOWN = _MOVING | _PASSIVE | MODE_INSTRUCTIONS | frozenset(("waittime", "callbyvar"))

#: A RAPID identifier (ABB, "RAPID kernel": at most 32 characters).
_RAPID_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,31}")

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
    """What a routine, a statement or a body may do (:meth:`_Flow.summary`), in one top-down scan of its subtrees
    (:meth:`_scan`), which also counts what it unrolls to; a call is followed through the called routine's summary.

    Attributes
    ----------
    steps, statements : int
        At most how many steps it unrolls to (motions, waits, calls of routines that move nothing: a call at least
        one) and how many statements the walk runs through it: every branch counted, a FOR's passes (when declared
        values fix them) times its body, each routine once, recursion none (:meth:`_Flow.check_size`);
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
    waits : bool
        Whether it may run a ``WaitTime`` (in a routine it calls too): another module's routine that moves nothing is
        passed over only where it does not, its time counted (:meth:`_Flow.run_call`).
    calls : set[str]
        The names it calls, evaluates or connects (``late``: a late-bound call).
    """

    def __init__(self, flow: _Flow, node: Tree, calling: frozenset[str]) -> None:
        routine = node.data in ("proc", "func", "trap")
        self._flow, self._calling, self._file = flow, calling, flow.routine_file(node)
        self._seen = flow.scopes.seen[flow.routine_module(node)]  # (the routines its module calls by their names)
        self._trap = node.data == "trap"  # (its path stops and ExitCycle move nothing: call)
        params = frozenset(map(_declared_key, node.find_data("param"))) if routine else frozenset()
        self._params, self.local = params, params | frozenset(map(_declared_key, node.find_data("data_decl"))
                                                                if routine else ())
        self.blocker: str | None = None
        self.blocker_at_call: str | None = None
        self.motion: str | None = None
        self.assigns: set[str] = set()
        self.changed: set[str] = set()
        self.calls: set[str] = set()
        self.mutates = self.late = self.waits = False
        own, counted = getattr(self, node.data, _no_cost)(node), self._scan(node)
        self.steps, self.statements, self.path = own or counted
        self.changed |= self.assigns - self.local
        required, optional = flow.signature(node) if routine else ([], {})
        written = self.assigns & by_reference(node) if routine else set()  # (an IN parameter: its own copy)
        self.written = (tuple(i for i, (_, name, _) in enumerate(required) if str(name).lower() in written),
                        frozenset(optional) & written)
        del self._flow  # (needed only while scanning: kept, the walker's summaries would tie it in a reference cycle)

    def _scan(self, node: Tree) -> tuple[int, int, int]:
        """Visit the subtrees of ``node`` top-down (each by the method named after its kind, if any); its steps,
        statements and path (:class:`Summary`), its :data:`_BLOCKS`' summed. A level of nested blocks takes two Python
        frames, of calls five (of :data:`.read.READ_FRAMES`)."""
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
        return self._flow._at(sub, self._file)

    @property
    def idle(self) -> bool:
        """Whether it moves nothing and runs no ``WaitTime``: another module's routine that is, is passed over."""
        return self.blocker is None and not self.waits

    def _callee(self, name: Token, kind: str) -> tuple[str, str, Tree | None]:
        """``name`` as written and as a key (added to :attr:`calls`), and the routine of ``kind`` its module sees."""
        self.calls.add(key := str(name).lower())
        return str(name), key, self._seen[kind].get(key)

    def moves(self, sub: Tree) -> tuple[int, int, int]:
        statements = self._flow.move_matches(sub.children[0])
        if self._flow.hidden_moves(statements, self._seen["proc"]) is not None:  # (a PROC of a motion's name: the
            # run's statements parsed, as the walker runs them, _Motions.run_moves)
            _, text, lines = self._flow._files[int(statements.template.file[0])]
            return self._scan(statements.parse(without_runs("rapid.lark", "body"), text, lines, 0, len(statements)))
        if self.motion is None:
            found = re.match(r"\w*", sub.children[0]).group() + f" at {self._at(sub)}"
            self._found(found, found)
        return (n := len(statements)), 0, n

    def late_call(self, sub: Tree) -> None:
        """A late call, a GOTO or a label: what runs after it is known only while running."""
        self.late |= sub.data == "late_call"
        self.mutates |= self.late
        self._found(f"{_JUMPS[sub.data]} at {self._at(sub)}")

    goto_stmt = label = late_call

    def connect_stmt(self, sub: Tree) -> None:
        """A TRAP runs at times known only while running: what it holds is this one's (itself again adds nothing)."""
        name, key, trap = self._callee(sub.children[-1], "trap")
        if trap is None:
            self._found(f"an interrupt (CONNECT) at {self._at(sub)} of TRAP {name}, found in no module of this file")
        elif key not in self._calling:
            inner = self._flow.summary(trap, self._calling)
            self.changed |= inner.changed
            self._found(inner.blocker and f"{inner.blocker} (in TRAP {name}, connected at {self._at(sub)})")

    def func_call(self, sub: Tree) -> None:
        name, key, func = self._callee(sub.children[0], "func")
        if func is None:
            self._changes(sub)  # (the arguments it writes: StrToVal(s, n))
        elif key not in self._calling:
            inner = self._merge(self._flow.summary(func, self._calling), sub)
            self.mutates |= bool(inner.changed)  # (module data it gives: a FOR's pass may leave them other values)
            if inner.motion:  # (a FUNC may hold any instruction)
                at = self._at(sub)
                self._found(f"{inner.motion} (in FUNC {name}, called at {at})",
                            f"{inner.motion} (in {name}, called at {at})")

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
        """An instruction or a routine, classed in the order the walker runs them (:meth:`_Flow.run_call`); its
        steps and statements (a motion or a wait one step, a routine's at least one, another module's one statement)."""
        flow, (name, key, routine) = self._flow, self._callee(sub.children[0], "proc")
        builtin = key if routine is None else ""  # (a routine of the task hides the instruction of its name)
        self.mutates |= routine is None and self._changes(sub)  # (a routine's: its summary, below)
        writes = getattr(PROCESS_MOTIONS.get(builtin), "writes", None)
        if writes is not None:  # (a search's found point)
            self.assigns.update(str(t).lower() for t in flow.written_arguments(sub, (writes,), frozenset()))
        self.mutates |= builtin in MODE_INSTRUCTIONS or writes is not None
        inner = None
        if builtin == "callbyvar":  # (a late-bound call: _Flow.by_var)
            self.late_call(Tree("late_call", [], sub.meta))
        if builtin in _MOVING:
            # (a routine of 10,000 motions: each named only while none is; a TRAP's StopMove, ClearPath, StartMove or
            # ExitCycle cuts short or restarts the motions the program holds and adds no point: it moves nothing)
            if self.motion is None and not (self._trap and key in _PATH_STOPS):
                self._found(found := f"{name} at {self._at(sub)}", found)
        elif builtin in MODE_INSTRUCTIONS:
            self._found(self.blocker or f"{name} at {self._at(sub)}")
        elif key in self._seen["func"] and routine is None:
            func = self._seen["func"][key]
            self._found(f"{name} at {self._at(sub)}, a FUNC ({flow._at(func, flow.routine_file(func))}) called "
                        "as a procedure, which a FUNC cannot be")
        elif routine is None and (hidden := flow.scopes.elsewhere("proc", key)) is not None:
            self._found(f"{name} at {self._at(sub)}, {flow.local_elsewhere(hidden)}")
        elif routine is not None and key in self._calling:
            self.mutates = True
            self._found(f"a recursive call of {name} at {self._at(sub)}")
        elif routine is not None:
            inner = self._merge(flow.summary(routine, self._calling), sub)
            self.mutates |= inner.mutates
            self.waits |= inner.waits
            if self.motion is None:
                at = self._at(sub)
                self._found(inner.blocker_at_call and f"{inner.blocker_at_call} (in {name}, called at {at})",
                            inner.motion and f"{inner.motion} (in {name}, called at {at})")
        self.waits |= builtin == "waittime"
        if builtin in MOTIONS or builtin in PROCESS_MOTIONS or builtin == "waittime":
            return 1, 1, 1
        if inner is None:  # (an instruction, or a routine called recursively)
            return int(routine is not None), 1, int(routine is not None)
        other = flow.routine_file(routine) > 0  # (another module's routine: its statements not counted; passed over
        if other and inner.idle:  # when it moves nothing and waits not, run_call)
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


#: The statements, as RAPID writes them (for findings and notes).
_CONSTRUCTS = {
    "if_stmt": "IF", "compact_if": "IF", "while_stmt": "WHILE", "for_stmt": "FOR", "test_stmt": "TEST",
    "return_stmt": "RETURN", "exit_stmt": "EXIT", "goto_stmt": "GOTO", "retry_stmt": "RETRY",
    "trynext_stmt": "TRYNEXT", "raise_stmt": "RAISE", "connect_stmt": "CONNECT (an interrupt)",
    "late_call": "a late-bound call (%...%)",
}

#: RAPID's instructions that are an assignment of their first argument (RAPID Instructions: ``Incr`` adds 1 to a
#: num or dnum, ``Decr`` subtracts 1, ``Add`` adds its second argument, ``Clear`` sets 0): the operator applied to
#: the datum (None: none) and the constant (None: the second argument) (:meth:`_Flow.as_assignments`).
_ASSIGNING = {"incr": ("add", "1"), "decr": ("sub", "1"), "add": ("add", None), "clear": (None, "0")}

#: The nodes that hold statements, and the statements that may be a call (:meth:`_Flow.as_assignments`).
_HOLDING_STATEMENTS = _BLOCKS | {"module", "proc", "func", "trap", "handlers"}

#: Most conditions and loops whose outcome is known only while running, one inside the other, that are followed.
MAX_NESTING = 64

#: The data of a path's end joined (:meth:`_Flow.join`) that cost as much as one statement run (a few µs each).
DATA_PER_STATEMENT = 8

#: Statements after which the rest of their body does not run.
_ENDS = frozenset(("return_stmt", "exit_stmt", "raise_stmt", "placeholder"))


#: Types whose zero value holds a zero quaternion, which the controller stops on: a path that leaves a ``VAR`` of
#: one of them without a value reaches no motion that reads it.
_ZERO_ORIENTATION = frozenset({"robtarget", "orient", "pose", "tooldata", "wobjdata"})


class _Flow(calls.Texts):
    """The walker's control flow, routines and calls (mixed into ``rapid._Walker``)."""

    UNROLLED = "the module; its FOR loops and routine calls unrolled, the paths through its conditions joined"

    # ----- the module
    def run(self, tree: Tree) -> RobotProgram:
        self._deferred: list[tuple[Tree, object]] = []  # declarations whose value read data declared later
        self.late_unknown = False  # a late-bound call ran whose routine may be in a module loaded while running
        self.task_trees = (tree, *(m.tree for m in self.task.modules))  # (the task's files in order: 0 this module)
        #: Each module of the task (numbered in file order, a file's in written order): its file and node.
        self.modules = [(file, module) for file, tree in enumerate(self.task_trees) for module in tree.children
                        if isinstance(module, Tree) and module.data == "module"]
        self.scopes = rapid_scope.Scopes(len(self.modules))
        self._module_starts: list[list[tuple[int, int]]] = [[] for _ in self.task_trees]  # each file's modules'
        for m, (file, module) in enumerate(self.modules):  # offsets and numbers
            self._module_starts[file].append((module.meta.start_pos, m))
        self.module_of: dict[int, int] = {}  # id of each routine of the task -> its module
        self.task_routines: list[Tree] = []  # the task's routines, in the order read
        self.enter_module(0)  # (the program's first module: the files' modules are numbered from the program's on)
        self._cycle_scope: dict[str, _Data] = {}
        self._behind = {}
        self._cycle_scopes: dict[int, dict[str, _Data]] = {}  # id -> that scope, kept alive (:meth:`run_for`)
        self._tags: dict[int, tuple[MotionRun, dict[str, tuple[Tree, Tree]]]] = {}  # :meth:`run_tagged`
        self._goto_index: dict[tuple[int, bool], tuple[Tree, dict[str, list[int]]]] = {}  # :meth:`_gotos`
        self._counters: set[int] = set()  # ids of the counters (name tokens) of the FOR loops run (:meth:`run_pass`)
        for file in [*range(1, len(self.task_trees)), 0]:
            self.collect(self.task_trees[file], file)
        self.as_assignments()
        self.declare_deferred()
        entry = self.entry_routines()
        self._cycle_body = _body(entry[-1]) if entry else None  # (its last statement may be the production loop)
        self.check_size(entry)
        self.loop_files: dict[int, int] = {}  # each such loop's id -> its file
        if not self.carried_in_loop:  # (no production loop: a cycle is a run of the entry routine)
            self.carry_into_cycle({})
        for proc in entry:
            self.visited[id(proc)] = proc
            with self.in_file(0, proc.meta.start_pos):
                self.run_routine(proc, {})
        self.check_paths()
        if any(isinstance(step, MotionRun) for step in self.steps):  # (what the next cycle reads moves nothing else)
            self.check_cycles()
        per_pass, per_call, heads, per_motion = passes.settle(  # (the others' refused)
            self, set(self.conditional), _loop_name, lambda loop: (*line_col(loop), self.loop_files[id(loop)]),
            lambda call: self._files[call[2]][1][call[1].start:call[1].end])
        if self.unsupported and not self.late_unknown and not any(isinstance(s, MotionRun) for s in self.steps) and not any(
                self._motions_in(t, _AXES) for t in self.task_trees):
            self.notes.extend(self.unsupported)  # (a task that moves no axis: what it cannot follow changes no point)
            self.unsupported.clear()
        unrun = self.note_unvisited()
        nowhere = self.note_found_nowhere(entry)
        steps, call_sites = self.finished(self._task_uses, str.lower)
        return RobotProgram(
            language="rapid", path=self.path, text=self.text, steps=tuple(steps),
            unsupported=tuple(self.unsupported), notes=tuple(self.notes),
            entry=tuple(self._routine_name(p) for p in entry), newline=newline_of(self.text),
            modules=tuple((m.path, m.text) for m in self.task.modules),
            extra={"unrun": unrun, "nowhere": nowhere, "conditional": tuple(dict.fromkeys(self.conditional)),
                   "confdata_free": frozenset(k for k, free in self.conf_free.items() if free),
                   "per_pass": per_pass, "per_call": per_call, "per_motion": per_motion, "pass_heads": heads,
                   "statements_run": self.statements_run, **call_sites},
        )

    def as_assignments(self) -> None:
        """Each call in the task of an instruction of :data:`_ASSIGNING` (one the task declares no PROC of) made the
        assignment it is, in place (``Incr n;``: ``n := n + 1;``, its position the call's): it is then followed as
        one everywhere, in a FOR or a counted WHILE, at the top, from cycle to cycle. Only the statements are visited
        (not their expressions: a 30,000-motion routine's every node took a twentieth of its reading)."""
        pending = list(self.task_trees)
        while pending:
            node = pending.pop()
            pending += [c for c in node.children if isinstance(c, Tree) and c.data in _HOLDING_STATEMENTS]
            key = str(node.children[0]).lower() if node.data == "call" else None
            if key not in _ASSIGNING or key in self.procs:
                continue
            positional, optional = self.split_args(node.children[1] if len(node.children) > 1 else None)
            op, constant = _ASSIGNING[key]
            if optional or len(positional) != (1 if constant else 2) or self.changed_root(positional[0]) is None:
                continue  # (not the instruction's form: what it writes changed at run time, as any call's)
            target, meta = positional[0], node.meta
            value = Tree("number", [Token.new_borrow_pos("NUMBER", constant, node.children[0])], meta) \
                if constant else positional[1]
            node.data = "assign"
            node.children = [target, value if op is None else Tree(op, [_copied(target), value], meta)]

    def routine_file(self, routine: Tree) -> int:
        """The index of the task's file that holds ``routine`` (0 for a node that is no routine)."""
        return self.modules[self.module_of[id(routine)]][0] if id(routine) in self.module_of else 0

    def routine_module(self, node: Tree) -> int:
        """The module that holds the routine ``node`` (another node: the module being read)."""
        return self.module_of.get(id(node), self.module)

    def enter_module(self, module: int) -> None:
        """The walker reads module ``module``: the names it sees ("Scope rules", :class:`.rapid_scope.Scopes`)."""
        self.module = module
        seen = self.scopes.seen[module]
        self.module_data, self.procs, self.funcs, self.traps = seen["data"], seen["proc"], seen["func"], seen["trap"]

    @contextlib.contextmanager
    def in_file(self, file: int, at: int | None) -> Iterator[None]:
        """Within: the walker reads the task's file ``file`` (its path, text and lines name what it finds there) in
        the module that holds its offset ``at`` (the names that module sees; None: only the file's text is read)."""
        before = (self.file, self.file_key, self.path, self.text, self.lines, self.module)
        self.file, self.file_key = file, file << 40
        self.path, self.text, self.lines = self._files[file]
        starts = self._module_starts[file]
        if at is not None and starts:
            self.enter_module(starts[max(bisect.bisect_right(starts, (at, len(self.modules))) - 1, 0)][1])
        try:
            yield
        finally:
            self.file, self.file_key, self.path, self.text, self.lines, module = before
            self.enter_module(module)

    def collect(self, tree: Tree, file: int) -> None:
        """The declarations and routines of task file ``file`` (0: this module), after :func:`.rapid_scope.check_module`."""
        rapid_scope.check_module(tree, self._files[file][0])
        for module in (node for node in tree.children if isinstance(node, Tree) and node.data == "module"):
            with self.in_file(file, module.meta.start_pos):
                for item in (item for item in module.children if isinstance(item, Tree)):
                    if item.data in ("record_decl", "alias_decl") and not (file and _is_local(item)):
                        self.declare_type(item)  # (the task's types are one table: another module's own is its own)
                    elif item.data == "data_decl":
                        self.declare_other(item)
                        data = self.module_data[_declared_key(item)]
                        if len(self.modules) > 1 and data.value is None and data.node is not None:
                            self._deferred.append((item, file))
                    elif item.data in ("proc", "func", "trap"):
                        self._collect_routine(item)

    def _collect_routine(self, item: Tree) -> None:
        """A PROC, FUNC or TRAP of the module being read (of this file, or another of the task): the task's, or
        its module's own (``LOCAL``), which hides a global one of its name in that module ("Scope rules")."""
        name = self._routine_name(item)
        self.routines += [item] if not self.file else []
        self.module_of[id(item)] = self.module
        self.task_routines.append(item)
        known = self.scopes.seen[self.module][item.data].get(name.lower())
        if known is not None and not _is_local(item):  # (two of one module: refused by check_module)
            first = self._files[self.routine_file(known)]  # (its path, text and lines)
            raise InputError(f"{item.data.upper()} {name} is declared in two modules of the task: {first[0]} "
                             f"(line {line_col(known)[0]}) and here", path=self.path, row=line_col(item)[0])
        self.scopes.table(self.module, item.data, _is_local(item))[name.lower()] = item

    def local_elsewhere(self, routine: Tree) -> str:
        """How a call of ``routine``, a ``LOCAL`` routine of a module that is not the caller's, is refused."""
        return (f"a LOCAL {routine.data.upper()} of another module of the task "
                f"({self._at(routine, self.routine_file(routine))}): no other module can call it (the controller "
                "does not link this call)")

    def declare_deferred(self) -> None:
        """The module data whose value reads a module read after it: declared again until no more gets a value."""
        while self._deferred:
            still = []
            for decl, file in self._deferred:
                key = _declared_key(decl)
                with self.in_file(file, decl.meta.start_pos):
                    data = self.module_data.pop(key)
                    self.declare_other(decl)
                    if self.module_data[key].value is None:
                        self.module_data[key] = data
                        still.append((decl, file))
            if len(still) == len(self._deferred):
                return
            self._deferred = still

    def declare_other(self, decl: Tree) -> None:
        """A module datum of the module being read (:meth:`in_file`); another file's reads are no read of a cycle."""
        with self.not_reading() if self.file else contextlib.nullcontext():
            self.declare(decl, self.module_data)

    def check_size(self, entry: list[Tree]) -> None:
        """Refuse the module when its entry unrolls to more than ``max_motions`` steps, counted before any runs."""
        limit = self.task.options.max_motions
        total = sum(self.summary(proc).steps for proc in entry)
        if total > limit and sum(self.summary(proc).path for proc in entry) > limit:  # (so there is an entry; one
            # path's: an IF or TEST its largest branch, where the file decides it; the walk is bounded by work())
            raise InputError(f"{self._routine_name(entry[0])} unrolls to {total:,} steps (motions, waits and calls of "
                             "routines that move nothing, through its FOR loops and routine calls, every branch of an "
                             "IF or TEST counted: counted before any condition is decided): more than "
                             f"--max-motions {limit:,}", path=self.path, row=line_col(entry[0])[0])

    @contextlib.contextmanager
    def not_reading(self) -> Iterator[None]:
        """What is evaluated inside (a look ahead: a FOR's count, a WHILE's course) is no read of a cycle's or of a
        motion's (:meth:`check_cycles`, :meth:`run_tagged`)."""
        first_read, reading, self._reading = dict(self._first_read), self._reading, None
        try:
            yield
        finally:
            self._first_read, self._reading = first_read, reading

    @contextlib.contextmanager
    def sequence(self) -> Iterator[None]:
        """Within: a sequence of its own (a branch, a loop's pass), at whose start where the robot stands is not known
        (:meth:`.rapid_motions._Motions.standing_value`: a pass may start where the pass before left it); after it,
        where its last motion left the robot, or where it stood before where it moved nothing."""
        before, first = self.stand_from, len(self.steps)
        self.stand_from = first
        try:
            yield
        finally:
            if len(self.steps) <= first:
                self.stand_from = before

    def quiet_loop(self, body: Tree, passes: int, statements: int) -> bool:
        """Whether a FOR loop that moves nothing would run more than :data:`MAX_QUIET_WORK` statements (not unrolled)."""
        return passes * max(statements, 1) > MAX_QUIET_WORK and self.summary(body).blocker is None

    def for_passes(self, statement: Tree, local: dict[str, _Data] | None) -> tuple[float, float, int]:
        """A FOR loop's first value, step (default 1, or -1 when FROM is above TO) and passes; :class:`_Unknown` when
        its bounds are known only while running."""
        _, start_node, stop_node, *rest = statement.children
        stood_reads = self._stood_reads
        try:
            start, stop = self._number(start_node, local), self._number(stop_node, local)
            step = self._number(rest[0], local) if len(rest) == 2 else (1.0 if start <= stop else -1.0)
        except _Unsupported as exc:
            raise _Unknown(exc.message, exc.where) from None
        if self._stood_reads != stood_reads:  # (the controller reads the corrected target there)
            raise _Unknown("FOR bounds computed from where the robot stands", statement)
        if step == 0:
            raise _Unsupported("FOR with STEP 0 never ends", statement)
        passes = np.floor((stop - start) / step + 1e-9) + 1  # (a float: 1E38 / 1E-38 passes is inf)
        return start, step, int(min(max(passes, 0), 2 ** 62))  # (counted against --max-motions before any runs)

    def counted_loop(self, body: Tree, at: int, local: dict[str, _Data]) -> bool:
        """Whether label ``body.children[at]`` starts a loop whose count the file fixes (``i := 0; lbl: ...; i := i +
        1; IF i < 5 GOTO lbl;``): every GOTO to it an ``IF ... GOTO`` after it in ``body`` whose condition reads data
        known here that its own assignments between the two give values, which nothing else there changes."""
        name = str(body.children[at].children[0]).lower()
        routine = self._routines_run[-1][0] if self._routines_run else body
        gotos = [j for j in self._gotos(body, False).get(name, ()) if j > at]
        if not gotos or len(gotos) != self._running_gotos(routine, name, local):
            return False
        for j in gotos:
            span, reads = body.children[at + 1:j], _names_read(body.children[j].children[0])
            given = {str(self.changed_root(s.children[0])).lower() for s in span if s.data == "assign"}
            if not reads & given or self._decided_value(body.children[j].children[0], local) is None or any(
                    s.data == "label" or s.data != "assign" and self.summary(s).assigns & reads for s in span):
                return False
        self.note_once(Finding(f"label {body.children[at].children[0]}: the IF ... GOTO at line "
                               f"{line_col(body.children[gotos[-1]])[0]} repeats what follows it while its condition "
                               "holds: followed pass by pass", *line_col(body.children[at]), self.file))
        return True

    def _gotos(self, node: Tree, nested: bool) -> dict:
        """Per label (lower case), where each ``IF ... GOTO`` to it stands in ``node.children`` (``nested``: each
        ``GOTO`` to it anywhere in ``node`` and the IFs around it), found once a node: each label scanned its body and
        its routine again, labels times statements (8,000 labels and GOTOs, 180 KB: 18 s of CPU)."""
        if (id(node), nested) not in self._goto_index:
            found: dict[str, list] = {}
            for j, s in enumerate(() if nested else node.children):
                if (label := _goto_label(s)) is not None:
                    found.setdefault(label, []).append(j)
            stack: list[tuple[Tree, tuple[Tree, ...]]] = [(node, ())] if nested else []
            while stack:
                s, ifs = stack.pop()
                if s.data == "goto_stmt":
                    found.setdefault(str(s.children[0]).lower(), []).append((s, ifs))
                ifs = (*ifs, s) if s.data in ("if_stmt", "compact_if") else ifs
                stack.extend((c, ifs) for c in s.children if isinstance(c, Tree))
            self._goto_index[id(node), nested] = (node, found)  # (node kept: its id stays its)
        return self._goto_index[id(node), nested][1]

    def _running_gotos(self, routine: Tree, name: str, local: dict[str, _Data]) -> int:
        """How many ``GOTO name`` of ``routine`` may run: not those in a branch of an IF the file decides against
        (:meth:`decided_branch`) from data the routine does not assign (its value there is its value here)."""
        gotos = self._gotos(routine, True).get(name, ())
        assigns, count = self.summary(routine).assigns if gotos else set(), 0
        for goto, ifs in gotos:
            branches = [self.decided_branch(s, local) for s in ifs if not assigns & set().union(
                *(_names_read(c.children[0]) for c in (s, *s.find_data("elseif"))))]
            count += all(any(t is goto for t in b.iter_subtrees()) for b in branches if b is not None)
        return count

    def run_label(self, statement: Tree, local: dict[str, _Data]) -> None:
        """A label: a ``GOTO`` of its routine (RAPID: only its own, ERROR handler included) may arrive from anywhere
        in it, so what the routine assigns is changed from here on; a label no ``GOTO`` names is only a name."""
        routine = self._routines_run[-1][0] if self._routines_run else statement
        if not self._running_gotos(routine, str(statement.children[0]).lower(), local):
            return
        self.mark_all(self.summary(routine).assigns, routine, statement, local)
        self.stand_from = len(self.steps)  # (and the robot stands where the motion before the GOTO left it)
        self.note_once(Finding(f"label {statement.children[0]}: a GOTO target; the routine is followed in written "
                               "order, what it assigns known only while running after the label", *line_col(statement),
                               self.file))

    def run_body(self, body: Tree, local: dict[str, _Data]) -> bool:
        """Run the statements of ``body``; whether one ended it (:data:`_ENDS`, ``ExitCycle``), itself or inside a
        construct the file decides (``IF n = 0 RETURN;``): the rest of the routine does not run either."""
        loops: dict[str, tuple[int, tuple[int, int], Tree, int]] = {}  # a counted GOTO loop's label: where its passes
        # start, its first step and first conditional line (:meth:`take_passes`), the label, its bound in a FUNC
        k = 0
        while k < len(body.children):
            statement, k = body.children[k], k + 1
            self.work(statement)
            if (statement.data in _ENDS or (
                    statement.data == "call" and str(statement.children[0]).lower() == "exitcycle")):
                if statement.data == "return_stmt" and self._funcs_run:
                    self.returned(statement, local)
                elif self._funcs_run:  # (EXIT, RAISE, ExitCycle, <SMT> end no function's evaluation with a value)
                    self.run_statement(statement, local)
                if statement.data == "placeholder":
                    self.note_once(Finding("placeholder <SMT>: running into it is an execution error; the statements "
                                           "after it in this routine never run", *line_col(statement), self.file))
                return True  # (RETURN, EXIT, RAISE, ExitCycle, <SMT>: the rest of this body never runs after it)
            try:
                label = _goto_label(statement)
                if statement.data == "label" and self.counted_loop(body, k - 1, local):
                    loops[str(statement.children[0]).lower()] = (k, (len(self.steps), len(self.conditional)), statement,
                                                                 self.statements_run + MAX_QUIET_WORK)
                    self.stand_from = len(self.steps)  # (a pass's start: where the pass before or the motion before
                    # the label left the robot)
                elif label in loops:  # (its IF ... GOTO: again where the file decides it, else the loop's passes end)
                    branch = self.decided_branch(statement, local)
                    if branch is None:
                        raise _Unsupported(f"IF ... GOTO {label}: its condition is known only while running, and the "
                                           "statements after the label may run again with other values", statement)
                    if branch.children and self._funcs_run and self.statements_run > loops[label][3]:  # (as a WHILE's)
                        raise _Unsupported(f"IF ... GOTO {label} in function {self._funcs_run[-1].name} runs more "
                                           f"than {MAX_QUIET_WORK:,} statements: not followed", statement)
                    if branch.children:
                        k, self.stand_from = loops[label][0], len(self.steps)
                    else:  # (the passes' motions taken, as a FOR's)
                        self.take_passes(loops[label][1], statement, f"pass of IF ... GOTO {statement.children[-1].children[0]}",
                                         head=loops[label][2])
                elif self.run_statement(statement, local):
                    return True
            except _Unsupported as exc:
                if self._funcs_run:  # (a FUNC's body: its value is not known, :meth:`func_value`)
                    raise
                if self._quiet:  # inside a routine that moves nothing: what it does cannot change a motion
                    self.note_once(Finding(f"{exc.message}; passed over: {self._quiet[-1]} moves nothing and changes "
                                           "nothing a motion reads (its time is not estimated)", *line_col(exc.where),
                                           self.file))
                else:
                    self.unsupported_at(exc.message, exc.where)
                found = self._motions_in(statement, frozenset(MOTIONS))
                for (name, _), line, column in zip(found, *np.stack(self.lines.arrays([at for _, at in found])).tolist()):
                    self.notes.append(Finding(f"{name} inside an unsupported construct stays as written", line, column,
                                              self.file))
                for node in statement.iter_subtrees():  # what it may change is not known after it
                    self.record_change(node, local)
        return False

    def mark_all(self, keys: set[str] | frozenset[str], node: Tree, statement: Tree, local: dict[str, _Data]) -> None:
        """:meth:`mark_changed` of ``keys`` at ``statement``, in the order ``node`` names them."""
        for key in self._in_written_order(keys, node):
            self.mark_changed(key, statement, local)

    def _in_written_order(self, keys: set[str] | frozenset[str], node: Tree) -> list[str]:
        """``keys`` in the order ``node`` first names them, then by name (not a set's order, which the hash seed sets)."""
        if id(node) not in self._written_order:
            first: dict[str, int] = {}
            for token in (c for sub in node.iter_subtrees() for c in sub.children):  # (not scan_values: recursive)
                if isinstance(token, Token) and token.type == "NAME":
                    key = str(token).lower()
                    first[key] = min(first.get(key, token.start_pos), token.start_pos)
            self._written_order[id(node)] = (node, first)  # (node kept: its id stays its)
        first = self._written_order[id(node)][1]
        return sorted(keys, key=lambda key: (key not in first, first.get(key, 0), key))

    def _motions_in(self, node: Tree, names: frozenset[str]) -> list[tuple[str, int]]:
        """``(instruction, offset)`` of each call of ``names`` inside ``node``, then of each motion of its runs."""
        found: list[tuple[str, int]] = []
        for sub in node.iter_subtrees():
            if sub.data == "call" and sub is not node and str(sub.children[0]).lower() in names:
                found.append((str(sub.children[0]), sub.children[0].start_pos))
            elif sub.data == "moves":
                token = sub.children[0]
                statements = self.move_matches(token)
                found += zip(statements.texts("instr"), (token.start_pos + statements.starts("instr")).tolist())
        return found

    def run_statement(self, statement: Tree, local: dict[str, _Data]) -> bool | None:
        """Run one statement (whether it ended its routine: :meth:`run_body`); one whose own expressions call a FUNC
        that moves the robot is refused."""
        if self._funcs_run:  # (a FUNC's body evaluated: its statements that give no step, :data:`_FUNC_RUNS`)
            if statement.data not in _FUNC_RUNS:
                raise _Unsupported(f"function {self._funcs_run[-1].name} is not evaluated: it holds "
                                   f"{statement.data.replace('_stmt', '').upper()} (only declarations, assignments, IF, "
                                   "TEST, FOR, WHILE, RETURN and instructions that move nothing are followed in a "
                                   "function)", statement)
            return _FUNC_RUNS[statement.data](self, statement, local)
        run = _RUNS.get(statement.data)
        if run is None:
            raise _Unsupported(f"{_CONSTRUCTS.get(statement.data, statement.data)} is not followed (its outcome or "
                               "count is not known before running)", statement)
        moving = [(sub, found) for head in _heads(statement) for sub in head.find_data("func_call") if (func := self.funcs.get(
            str(sub.children[0]).lower())) is not None and (found := self.summary(func).motion) is not None]
        if moving and statement.data == "assign" and [sub for sub, _ in moving] == [statement.children[-1]]:
            # (``x := F(...);`` whose FUNC moves the robot, as RAPID allows: its body run as a call's, its arguments
            # bound; ``x`` changed at run time from here, its RETURN value not evaluated)
            self._run_proc(statement.children[-1], statement, local)
            return self.mark_changed(self.changed_root(statement.children[0]), statement, local)
        if moving:
            sub, found = moving[0]
            raise _Unsupported(f"{found}: a motion inside FUNC {sub.children[0]}, called in an expression here, is "
                               f"followed only where an assignment takes its value (x := {sub.children[0]}(...);)",
                               statement)
        running, self.running = self.running, _Running(statement) if statement.data in ("assign", "call") else None
        try:  # (where its FUNCs may give module data values: evaluate_func)
            return run(self, statement, local)
        finally:
            self.running = running

    def run_if(self, statement: Tree, local: dict[str, _Data]) -> bool | None:
        """An ``IF``, ``TEST`` or ``WHILE``: the body the file decides, else each (:meth:`run_unresolved`); ``WHILE
        TRUE`` ending the (last) entry routine is the production loop, a pass a cycle."""
        condition = statement.children[0]
        if statement.data == "while_stmt" and self._cycle_body is not None and statement is (
                self._cycle_body.children or [None])[-1] and getattr(condition, "data", None) == "name" \
                and str(condition.children[0]).lower() == "true":
            self.notes.append(Finding("WHILE TRUE: loop forever: one cycle is one pass of its body",
                                      *line_col(statement), self.file))
            self.cycle_start = self.stand_from = len(self.steps)  # (the motions before it run once: passes.settle;
            # a cycle starts where the one before, or those motions, left the robot)
            self._first_read = {}  # (what ran before it ran once: not a cycle's)
            self.marks = {key: dataclasses.replace(mark, followed=None) for key, mark in self.marks.items()}
            self.cycle_looped = True
            self.carry_into_cycle(local)
            self._cycle_scope = local  # (the entry routine's data live on from pass to pass)
            self._cycle_scopes[id(local)] = local
            branch = statement.children[1]
        elif statement.data == "while_stmt" and self.counted_while(statement, local):
            return self.run_while(statement, local)
        else:
            branch = self.decided_branch(statement, local)
        if branch is None:
            return self.run_unresolved(statement, local)
        return self.run_body(branch, local)

    def counted_while(self, statement: Tree, local: dict[str, _Data]) -> bool:
        """Whether the file fixes the passes of ``WHILE`` ``statement`` (``i := 1; WHILE i < 4 DO ... i := i + 1;
        ENDWHILE``): its body moves (or computes a FUNC's value), its condition holds here and reads data the body
        gives values, and every datum that condition reads, or that an assignment to such a datum or a condition around
        one reads, is given values in the body only by assignments whose values and conditions are known here."""
        with self.not_reading():
            condition, body = statement.children[0], statement.children[-1]
            if not (self.summary(body).steps or self._funcs_run) or self._decided_value(condition, local) is not True:
                return False
            changes = [(change, heads, None if change.data != "assign" else  # (its datum's key; "": none's)
                        str(self.changed_root(change.children[0]) or "").lower()) for change, heads in
                       self._changes_in(body, ())]
            watched, grown = _names_read(condition), True
            while grown:
                grown = False
                for change, heads, root in changes:
                    if root is None and self.summary(change).assigns & watched:
                        return False  # (a call, a loop or an instruction that changes it: a search's found point)
                    if root is None or root not in watched:
                        continue
                    reads = set().union(*map(_names_read, (change.children[-1], *heads)))
                    if any(self._decided_value(node, local) is None for node in (change.children[-1], *heads)):
                        return False
                    grown, watched = grown or not reads <= watched, watched | reads
            return bool(_names_read(condition) & {root for _, _, root in changes})

    def _changes_in(self, body: Tree, heads: tuple[Tree, ...]) -> Iterator[tuple[Tree, tuple[Tree, ...]]]:
        """Each statement of ``body`` but an ``IF`` or ``TEST`` (whose bodies are entered), with the conditions and
        tested values it runs under."""
        for statement in body.children:
            if statement.data not in _CHOICES:
                yield statement, heads
                continue
            for branch in self._bodies(statement)[0]:
                yield from self._changes_in(branch, heads + tuple(_heads(statement)))

    def run_while(self, statement: Tree, local: dict[str, _Data]) -> bool:
        """A ``WHILE`` whose passes the file fixes (:meth:`counted_while`), followed pass by pass while its condition
        holds (at most ``--max-motions`` steps); its passes' motions taken as a FOR's (:meth:`take_passes`)."""
        self.note_once(Finding("WHILE: its condition is decided by the file at every pass: followed pass by pass",
                               *line_col(statement), self.file))
        first, limit = (len(self.steps), len(self.conditional)), self.task.options.max_motions
        work = self.statements_run + MAX_QUIET_WORK  # (a FUNC's: no step bounds it)
        while (holds := self._decided_value(statement.children[0], local)) is True:
            with self.sequence():
                if self.run_body(statement.children[-1], local):
                    break
            if len(self.steps) - first[0] > limit:
                raise self.error(f"WHILE unrolls to more than --max-motions {limit:,} steps", statement)
            if self._funcs_run and self.statements_run > work:
                raise _Unsupported(f"WHILE in function {self._funcs_run[-1].name} runs more than {MAX_QUIET_WORK:,} "
                                   "statements: not followed", statement)
        if holds is None:
            raise _Unsupported("WHILE: its condition is known only while running after a pass, and its body may run "
                               "again with other values", statement)
        self.take_passes(first, statement, "from pass to pass of the WHILE")
        return holds is True

    def run_tagged(self, run) -> None:
        """``run()`` (motions), each motion it adds tagged with the data it read that an unresolved construct gave a
        value, and its configuration checks noted (:meth:`note_conf`)."""
        outer, self._reading, first = self._reading, {}, len(self.steps)
        try:
            run()
        finally:
            reading, self._reading = self._reading, outer
        self.note_conf(self.steps[first:])
        if outer is not None:
            outer.update(reading)
        if reading:
            for run in self.steps[first:]:
                if isinstance(run, MotionRun):
                    self._tags[id(run)] = (run, {**self._tags.get(id(run), (None, {}))[1], **reading})

    def check_paths(self) -> None:
        """Refuse a motion whose data an unresolved construct gave and which runs with other values on another path."""
        if not self._tags:
            return
        tagged = {start for run, _ in self._tags.values() for start in run.statement[:, 0].tolist()}
        found: dict[int, list[tuple[Motion, tuple, bytes, dict]]] = {}
        for run in self.steps:
            if not isinstance(run, MotionRun) or not np.isin(run.statement[:, 0], list(tagged)).any():
                continue
            source = self._tags.get(id(run), (None, {}))[1]
            key = tuple(sorted((k, id(g[0])) for k, g in source.items()))
            for motion in run.motions():
                if motion.statement.start in tagged:
                    value = b"".join(np.ascontiguousarray(a).tobytes() for p in motion.points for a in (
                        p.q if p.T_world_tcp is None else p.T_world_tcp, p.T_world_frame, p.T_flange_tcp))
                    found.setdefault(motion.statement.start, []).append((motion, key, value, source))
        refused = {start: runs for start, runs in found.items()  # (not: one value on every path, or one
                   if len({v for _, _, v, _ in runs}) > 1 and len({k for _, k, _, _ in runs}) > 1}  # assignment's)
        for runs in refused.values():
            motion = runs[0][0]
            given: dict[str, dict[int, tuple[Tree, Tree]]] = {}  # (each assignment once: by its id)
            for name, g in (item for *_, source in runs for item in source.items()):
                given.setdefault(name, {}).setdefault(id(g[0]), g)
            named = {name: getattr(self.module_data.get(name), "name", name) for name in given}  # (as declared)
            said = "; ".join(f"{named[name]} is given a value at " + " and at ".join(
                f"line {line_col(a)[0]} (inside the {_CONSTRUCTS.get(c.data, c.data)} at line {line_col(c)[0]})"
                for a, c in g.values()) for name, g in given.items())
            self.unsupported_at(f"{motion.instruction} at line {motion.line} runs with a different "
                                f"{', '.join(named.values())} on another path: {said}, conditions "
                                "known only while running; one written target cannot serve every path",
                                Token("NAME", motion.instruction, motion.statement.start, motion.statement.line,
                                      motion.statement.column))
            self.note_once(Finding(f"{motion.instruction} stays as written: its data differ from path to path",
                                   motion.statement.line, motion.statement.column, motion.file))
        if not refused:
            return
        refused_lines = {runs[0][0].line for runs in refused.values()}  # (their notes recounted: calls.Texts)
        self.conditional = [line for line in self.conditional if line not in refused_lines]
        kept: dict[int, MotionRun | None] = {}  # each run without its motions refused (once: a FOR's passes)
        for run in self.steps:
            if isinstance(run, MotionRun) and id(run) not in kept:
                keep = ~np.isin(run.statement[:, 0], list(refused))
                kept[id(run)] = cut = run if keep.all() else None if not keep.any() else run.take(np.flatnonzero(keep))
                call = self._in_call.pop(id(run), None) if cut is not run else None
                if cut is not None and call is not None:  # (its call kept)
                    self._in_call[id(cut)] = call
        self.steps[:] = [step for step in (kept.get(id(step), step) for step in self.steps) if step is not None]

    def decided_branch(self, statement: Tree, local: dict[str, _Data]) -> Tree | None:
        """The body an ``IF``, ``TEST`` or ``WHILE`` runs when the file decides it (:meth:`_decided_value`; an empty
        one when none runs); None when running decides."""
        if statement.data == "while_stmt":
            return Tree("body", []) if self._decided_value(statement.children[0], local) is False else None
        bodies, exhaustive = self._bodies(statement)
        if statement.data == "test_stmt":  # (the first case holding a value equal to the TEST's)
            value = self._decided_value(statement.children[0], local)
            cases = [c.children[:-1] for c in statement.children[1:] if isinstance(c, Tree) and c.data == "test_case"]
            tests = [(value, case, body) for values, body in zip(cases, bodies) for case in values]
        else:
            conditions = [statement.children[0], *(c.children[0] for c in statement.children[2:]
                                                   if isinstance(c, Tree) and c.data == "elseif")]
            tests = [(True, condition, body) for condition, body in zip(conditions, bodies)]
        for wanted, condition, body in tests:
            self.work(condition)  # (a TEST of many cases in a long loop: each case value counts)
            got = self._decided_value(condition, local)
            if wanted is None or got is None or type(got) is not type(wanted) or isinstance(got, list):
                return None
            try:
                if got == wanted if not _number(got) else compared(operator.eq, got, wanted, condition):
                    return body
            except _Unsupported:  # (a case value equal only in 32 or only in 64 bits)
                return None
        return bodies[-1] if exhaustive else Tree("body", [])

    def _decided_value(self, node: Tree, local: dict[str, _Data]) -> object:
        """The value of condition ``node`` if it reads only known data that nothing in the task changes or that this
        cycle gave a value before (a FOR counter, a parameter, a datum the cycle set from constants); else None."""
        declared = {id(t) for call in node.find_pred(lambda t: t.data == "func_call" and str(t.children[0]).lower()
                                                     in _DECLARATION_FUNCTIONS and len(t.children) > 1)
                    for t in call.children[1].children[0].iter_subtrees()}
        for sub in node.iter_subtrees():
            if id(sub) in declared:
                continue  # (Present(OptPar), Dim(Array, n): a declaration read, :meth:`call_function`)
            if sub.data == "func_call" and str(sub.children[0]).lower() not in EVALUATED:
                return None  # (a call of another function)
            if sub.data != "name":
                continue
            key = str(sub.children[0]).lower()
            bound = local.get(key)
            if self.stood and id(bound if key in local else self.module_data.get(key)) in self.stood:
                return None  # (computed from where the robot stands: the controller reads the corrected target)
            if bound is None and key in PREDEFINED and key not in self.module_data:
                continue  # (TRUE, FALSE, v100, tool0, ...)
            if bound is not None and bound is not self.module_data.get(bound.name.lower()):
                continue  # (the routine's own datum, a counter, or a parameter given a value)
            name = key if bound is None else bound.name.lower()  # (a parameter passed a datum of the task: that one)
            if self.changed_at(key) is not None or self.changed_at(name) is not None or name not in self.module_data \
                    or (name in self.task_changes[0] or "pers" in self.storages.get(name, ())) and self.marks.get(
                        name, _NO_MARK).followed is None or name in self.outside or name in self.task_changes[1]:
                return None  # (it may change while running; one the task changes: until this cycle gives it a value
                # that reads no PERS the cycle did not set, which another task or the operator writes; a TRAP's: never)
        try:
            return self.evaluate(node, local)
        except _Unsupported:
            return None

    def run_unresolved(self, statement: Tree, local: dict[str, _Data]) -> None:
        """An ``IF``, ``TEST``, ``WHILE`` or ``FOR`` decided only while running: each body followed once, in order,
        from where the paths before join (:meth:`join`); a note names the motions compensated under it."""
        if len(self._unresolved) >= MAX_NESTING:  # (each level is a few Python frames: bounded with its line)
            raise _Unsupported(f"{_CONSTRUCTS[statement.data]} nested more than {MAX_NESTING} deep in conditions "
                               "and loops is not followed", statement)
        self._unresolved.append(statement)
        try:
            keys = set(self.summary(statement).assigns)
            if statement.data == "for_stmt":
                keys.add(str(statement.children[0]).lower())
            keys = self._in_written_order(keys, statement)
            names = list(dict.fromkeys([*keys, *(local[key].name.lower() for key in keys if key in local)]))
            before = self._snapshot(statement, names, local)  # (a parameter's name: the caller's data too)
            self.mark_all(keys, statement, statement, local)  # (a pass reads what the pass or cycle before left)
            conf_before, first = dict(self.conf_on), len(self.steps)
            bodies, exhaustive = self._bodies(statement)
            ends, start, outside = [], before, set(self.outside)  # (read from a PERS on some path, or left by
            # an earlier cycle or another writer on some path: decides no condition after it)
            for k, body in enumerate(bodies):
                self.work(statement)  # (each path joined counts: a TEST of many empty cases in a long loop)
                if k:  # (where an earlier branch, or none, left an earlier cycle: the branch before's end joined
                    self.join(statement, [ends[-1], start])  # with where that one started)
                    start = self._snapshot(statement, names, local)
                with self.sequence():
                    if statement.data == "for_stmt":  # (its counter's value known only while running)
                        self.run_pass(statement, None, local)
                    else:
                        self.run_body(body, local)
                ends.append(self._snapshot(statement, names, local))
                outside |= self.outside
            paths = ends if exhaustive else [*ends, before]
            self.join(statement, paths)
            if len(self.steps) > first:  # (the robot stands where a path known only while running left it)
                self.stand_from = len(self.steps)
            self.outside = outside | {name for name in names if any(path[name][1].followed is None for path in paths)}
            for mode, on in conf_before.items():  # (ConfL \Off in one branch: its confdata kept, the safe side)
                self.conf_on[mode] = self.conf_on[mode] or on
            rows = calls.motion_lines(self.steps[first:])
            self.conditional.extend(line for _, line in rows)
            self.note_once(self.note_unresolved(_CONSTRUCTS[statement.data], rows, (*line_col(statement), self.file)))
        finally:
            self._unresolved.pop()

    @staticmethod
    def _bodies(statement: Tree) -> tuple[list[Tree], bool]:
        """The bodies of a construct in order, and whether one always runs (an ``ELSE`` or a ``DEFAULT``)."""
        if statement.data == "compact_if":  # (one statement, no body)
            return [Tree("body", [statement.children[-1]])], False
        bodies = [next(b for b in child.children if isinstance(b, Tree) and b.data == "body")
                  if child.data in ("elseif", "test_case") else child for child in statement.children
                  if isinstance(child, Tree) and child.data in ("body", "elseif", "test_case")]
        last = statement.children[-1]
        return bodies, statement.data in ("if_stmt", "test_stmt") and isinstance(last, Tree) \
            and last.data == "body" and (statement.data == "test_stmt" or len(statement.children) > 2)

    def _snapshot(self, statement: Tree, names: list[str], local: dict[str, _Data]) -> dict[str, tuple]:
        """Each datum of ``names`` at an end of a path through ``statement``: its scope entry and its mark."""
        self.work(statement, len(names) // DATA_PER_STATEMENT)
        return {name: (local.get(name) if name in local else self.module_data.get(name),
                       self.marks.get(name, _NO_MARK)) for name in names}

    def join(self, statement: Tree, paths: list[dict[str, tuple]]) -> None:
        """Where ``paths`` (:meth:`_snapshot`) through an unresolved construct meet: a datum every path leaves one
        known value keeps it (a :data:`_ZERO_ORIENTATION` one left unset aside); any other is changed from here on."""
        self.work(statement, len(paths) * len(paths[0]) // DATA_PER_STATEMENT)
        for name in paths[0]:
            ends = [path[name] for path in paths]
            valued = [(data, mark) for data, mark in ends if mark.changed is not None or data is None
                      or data.type not in _ZERO_ORIENTATION or _known(data.value)]
            known = [None if data is None or mark.changed is not None else data.value for data, mark in valued or ends]
            followed = [mark.followed for _, mark in ends if mark.followed is not None]
            givens = [mark.given for _, mark in ends if mark.given is not None]
            mark = dataclasses.replace(self.marks.get(name, _NO_MARK), zero_left=None, given=None)
            if all(v is not None for v in known) and all(_same(v, known[0]) for v in known[1:]):
                self.marks[name] = dataclasses.replace(
                    mark, zero_left=statement if len(valued) < len(ends) else None,
                    followed=followed[0] if followed else mark.followed,
                    given=(givens[0][0], self._unresolved[-2]) if givens and len(self._unresolved) > 1 else None)
                continue  # (inside an outer condition, one of the values it gives is still one of that one's)
            inside = next((g[0] for g in givens if g[1] is statement), givens[0][0] if givens else None)
            if mark.changed is None:
                mark = dataclasses.replace(mark, changed=statement if inside is None else inside, joined=(
                    mark.joined if inside is None else (inside, statement)))
            self.marks[name] = mark if not followed else dataclasses.replace(  # (a value it gives is one it may give)
                mark, followed=(None, followed[0][1]))

    def run_for(self, statement: Tree, local: dict[str, _Data]) -> bool | None:
        """A FOR loop with constant bounds, unrolled (else :meth:`run_unresolved`) until a pass ends its routine
        (:meth:`run_body`); a body that neither reads the counter nor changes anything is followed once and repeated."""
        counter, body = statement.children[0], statement.children[-1]
        try:
            start, step, total = self.for_passes(statement, local)
        except _Unknown:  # (bounds known only while running)
            return self.run_unresolved(statement, local)
        found = self.summary(body)
        if self.quiet_loop(body, total, found.statements):
            self.note_once(Finding(f"FOR of {total:,} passes moves nothing: not unrolled (more than "
                                   f"{MAX_QUIET_WORK:,} statements); followed once, what it assigns is known only "
                                   "while running after it", *line_col(statement), self.file))
            return self.run_unresolved(statement, local)
        count = total * max(found.steps, 1)
        if count > self.task.options.max_motions:  # (bounds known only here: a counter or a parameter)
            raise self.error(f"FOR with {total:,} passes unrolls to {count:,} steps: more than "
                             f"--max-motions {self.task.options.max_motions:,}", statement)
        first_step, first_conditional, ended = len(self.steps), len(self.conditional), False
        same = not any(str(t).lower() == str(counter).lower() for t in body.scan_values(
            lambda v: isinstance(v, Token) and v.type == "NAME")) and not found.mutates
        for k in range(min(total, 1) if same else total):
            ended = self.run_pass(statement, start + k * step, local)
            if ended:
                break
        if same:
            self.steps.extend(self.steps[first_step:] * max(total - 1, 0) * (not ended))
        else:
            self.take_passes((first_step, first_conditional), statement, f"with the FOR counter {counter}")
        return ended

    def run_pass(self, statement: Tree, value: float | None, local: dict[str, _Data]) -> bool:
        """A pass of the FOR loop ``statement``: its body run over the routine's data ``local`` (which the pass may
        change) with the loop's counter of ``value`` (None: known only while running); whether it ended its routine
        (:meth:`run_body`)."""
        counter = statement.children[0]
        self._counters.add(id(counter))
        scope = {**local, str(counter).lower(): _Data("num", value, None, str(counter), counter)}
        self._scopes.append(scope)  # (alive: the evaluation cache and the tables below key it by id)
        for of_scopes in (self._params, self._by_reference, self._present, self._cycle_scopes):  # (the routine's)
            if id(local) in of_scopes:
                of_scopes[id(scope)] = scope if of_scopes is self._cycle_scopes else of_scopes[id(local)]
        with self.sequence():
            ended = self.run_body(statement.children[-1], scope)
        local.update((key, scope[key]) for key in local if key != str(counter).lower())  # (the routine's data)
        return ended

    def take_passes(self, first: tuple[int, int], loop: Tree, changes: str, head: Tree | None = None) -> None:
        """The motions of a loop's passes (steps from ``first[0]``; the lines made conditional within them from
        ``self.conditional[first[1]]`` on) whose targets differ: tables (:func:`.passes.take`; ``head``: the statement
        where the loop starts, its label for a GOTO loop, else ``loop``); a declared target that differs is refused,
        its motions dropped."""
        first_step = first[0]
        changing = passes.take(self.steps[first_step:], self.per_pass, loop, self.pass_walks,
                               set(self.conditional[first[1]:]),
                               (first_step, self.file_key + span_of(loop if head is None else head).start))
        self.loop_files[id(loop)] = self.file
        if changing is not None:
            for dropped in self.steps[first_step:]:  # (their ids may be reused by later steps)
                self._in_call.pop(id(dropped), None)
            del self.steps[first_step:]
            self.pass_walks[:] = [walk for walk in self.pass_walks if walk[0] < first_step]
            raise _Unsupported(f"{changing.instruction}'s target changes {changes}: one written target cannot serve "
                               "every pass", loop)

    # ----- routines and calls
    def run_routine(self, routine: Tree, local: dict[str, _Data]) -> None:
        body = _body(routine)
        handlers = next(c for c in routine.children if isinstance(c, Tree) and c.data == "handlers")
        for handler in handlers.children[1::2]:  # (an ERROR handler runs on an error known only while running:
            # what it assigns, the module's data or the routine's own, is changed from the routine's start)
            self.mark_all(self.summary(handler).assigns, handler, handler, local)
        self._routines_run.append((routine, self._arguments(local)))  # (the routine: its handlers' GOTOs too)
        try:
            self.run_body(body, local)
        finally:
            self._routines_run.pop()

    def _arguments(self, local: dict[str, _Data]) -> tuple[str, ...] | None:
        """What a call bound the parameters of the routine whose scope is ``local`` to (their values' texts, by
        name; none for a routine of no parameter); None where one is not known before running."""
        values = [local[key].value for key in sorted(self._params.get(id(local), ()))]
        return None if any(value is None for value in values) else tuple(map(repr, values))

    def func_value(self, func: Tree, scope: dict[str, _Data], node: Tree) -> object:
        """The value a call ``node`` of ``func`` returns, its body run over ``scope`` (:meth:`run_body`, its statements
        :data:`_FUNC_RUNS`) until a ``RETURN`` (:meth:`returned`); :class:`_Unsupported` where the paths through the
        constructs decided only while running reach ``RETURN`` statements of different values, or none is reached."""
        run = self._funcs_run[-1]
        self._routines_run.append((func, None))  # (the routine its labels' GOTOs stand in: counted_loop, run_label)
        try:
            with self.in_file(self.routine_file(func), func.meta.start_pos):  # (its module's names; its notes in its file)
                self.run_body(_body(func), scope)
        finally:
            self._routines_run.pop()
        if not run.values:  # (the evaluation of a function must end at a RETURN: RAPID overview, "Routine termination")
            raise _Unsupported(f"function {run.name} ends without RETURN", node)
        if any(not _same(value, run.values[0][0]) for value, _ in run.values[1:]):
            construct = next(under for _, under in run.values if under is not None)
            raise _PathsDiffer(f"function {run.name} returns another value on another path: the "
                               f"{_CONSTRUCTS[construct.data]} at line {line_col(construct)[0]} (reading "
                               f"{', '.join(sorted(set().union(*map(_names_read, _heads(construct))))) or 'no datum'}"
                               ") is decided only while running", node)
        return run.values[0][0]

    def returned(self, statement: Tree, local: dict[str, _Data]) -> None:
        """``RETURN value;`` in the FUNC being evaluated: its value kept, with the outermost construct decided only
        while running that holds it within the FUNC (None: none)."""
        run = self._funcs_run[-1]
        if not statement.children:
            raise _Unsupported(f"function {run.name}: RETURN without a value", statement)
        value = self.evaluate_as(statement.children[0], local, run.rtype)
        run.values.append((value, self._unresolved[run.depth] if len(self._unresolved) > run.depth else None))

    def run_late_call(self, statement: Tree, local: dict[str, _Data]) -> None:
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
        self.run_call(Tree("call", [token, *statement.children[1:]], statement.meta), local)

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

    def run_connect(self, statement: Tree, local: dict[str, _Data]) -> None:
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
        if "clearpath" in found.calls:  # (the motion it cuts short stops anywhere, and the
            # program goes on: _Motions.standing_value; ExitCycle restarts the cycle, RestoPath ends the stored motion)
            self.path_cut = self.path_cut or f"TRAP {name} connected at {self._at(statement, self.file)}"
        self.visited[id(trap)] = trap
        self.notes.append(Finding(f"CONNECT: TRAP {name} moves nothing; what it assigns is known only while running "
                                  "from here on", *line_col(statement), self.file))

    def summary(self, node: Tree, calling: frozenset[str] = frozenset()) -> Summary:
        """:class:`Summary` of ``node``, found once; a routine in ``calling`` is recursion."""
        if id(node) not in self._summaries:
            if node.data in ("proc", "func", "trap"):
                calling |= {self._routine_name(node).lower()}
            self._summaries[id(node)] = (node, Summary(self, node, calling))  # (node kept: its id stays its)
        return self._summaries[id(node)][1]

    def _at(self, node: Tree | Token | int, file: int) -> str:
        """``line 7`` of ``node`` (or the line ``node``) in the task's file ``file``; ``path, line 7`` in a module
        other than the one being read (the program is file 0)."""
        line, path = node if isinstance(node, int) else line_col(node)[0], self._files[file][0]
        return f"line {line}" if not file or path == self.path else f"{path}, line {line}"

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
        for key, (type_token, param, rank) in [*((str(n[1]).lower(), n) for n in required), *optional_params.items()]:
            node = given.get(key)  # (``robtarget a{*}``: an array of any size, of ``rank`` dimensions)
            dtype = self.base_type(str(type_token).lower()) + ("{" + "," * (rank - 1) + "}" if rank else "")
            scope[key] = _Data(dtype, None, None, str(param), param) if node is None else self._argument(
                routine, dtype, param, node, local)
        self._scopes.append(scope)
        self._params[id(scope)] = set(scope)
        self._by_reference[id(scope)] = by_reference(routine)
        if local is not None:
            self._present[id(scope)] = {key for key in optional_params if key in optional}  # (Present(...))
        return scope

    def signature(self, routine: Tree) -> tuple[list[tuple], dict[str, tuple]]:
        """A routine's required parameters in order and its optional ones by name, each its type and name tokens and
        its rank (0: not an array of any size, ``num a{*}``)."""
        required, optional = [], {}
        for param in next((c.children for c in routine.children if getattr(c, "data", None) == "params"), []):
            type_token, name = (c for c in param.children if isinstance(c, Token) and c.type == "NAME")
            dims = param.children[-1]  # (rapid.lark: an optional parameter's first child a node, open_dims its last)
            found = (type_token, name, len(dims.children) if getattr(dims, "data", None) == "open_dims" else 0)
            if isinstance(param.children[0], Tree):
                optional[str(name).lower()] = found
            else:
                required.append(found)
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
        if not self.passed_at_call_site(data):
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

    def passed_at_call_site(self, data: _Data) -> bool:
        """Whether ``data`` is a parameter bound to a target written at a call site (:meth:`through_call_site`)."""
        return isinstance(data.node, Tree) and (data.file << 40) + span_of(data.node).start in self._passed

    @functools.cached_property
    def task_changes(self) -> tuple[frozenset[str], frozenset[str]]:
        """The data some statement of the task may give a value (a routine it passes them to too), and those a TRAP
        may (at any time once connected)."""
        other = [r for r in self.task_routines if self.routine_file(r)]
        return (frozenset().union(*(self.summary(r).assigns for r in (
                    *self.routines, *(r for r in other if r.data != "trap")))),
                frozenset().union(*(self.summary(t).assigns for t in (*self.routines, *other) if t.data == "trap")))

    def run_call(self, statement: Tree, local: dict[str, _Data]) -> None:
        name = str(statement.children[0])
        key = name.lower()
        call_args = statement.children[1] if len(statement.children) > 1 else None
        positional, optional = self.split_args(call_args)
        if key in self.procs and self.routine_file(self.procs[key]) and self.summary(self.procs[key]).idle:
            # another module's routine that moves nothing and waits not: passed over, what it assigns changed from here
            self.mark_all(self.summary(self.procs[key]).changed, self.procs[key], statement, {})
        elif key in self.procs:  # (a routine hides the instruction of its name: RAPID overview, "Routine scope")
            self._run_proc(statement, statement, local)
        elif key in MOTIONS or key in PROCESS_MOTIONS:
            self.run_tagged(lambda: self.run_motion(statement, key, local))
        elif key in ("confl", "confj"):  # \Off: the controller ignores the confdata of the motions after it
            if "on" in optional or "off" in optional:
                self.conf_on[LINEAR if key == "confl" else JOINT] = "on" in optional
        elif key == "waittime":
            if len(positional) != 1:
                raise self.error("WaitTime: expected one time [s]", statement)
            try:
                value = self.evaluate(positional[0], local)
            except _Unknown as unknown:  # (its seconds only time the cycle: no target reads them)
                self.notes.append(Finding(f"WaitTime: {unknown.message}: the timing counts no wait",
                                          *line_col(statement), self.file))
                return
            seconds = self._as_number(value, positional[0])
            if seconds < 0:
                raise self.error(f"WaitTime: expected a time >= 0 s, got {seconds:g}", statement)
            self.steps.append(Wait(seconds, span_of(statement), self.file))
        elif key == "velset":
            if len(positional) != 2:
                raise self.error("VelSet: expected Override [%] and Max [mm/s]", statement)
            self.velset = (self._number(positional[0], local), self._number(positional[1], local))
        elif key == "callbyvar":
            self.run_late_call(self.by_var(statement, positional), local)
        elif key in UNSUPPORTED_INSTRUCTIONS:
            raise _Unsupported(f"{name} is not followed (it moves the robot or changes the frame of its motions in "
                               "a way known only while running)", statement)
        elif key in _PASSIVE:
            self.record_change(statement, local)  # (WaitDI ... \\TimeFlag:=timeout)
            if key in SIGNAL_WAITS:
                self.notes.append(Finding(f"{name} waits for a signal: the timing counts no wait",
                                          *line_col(statement), self.file))
        elif key in self.funcs:
            func = self.funcs[key]
            raise self.error(f"{name} is a FUNC ({self._at(func, self.routine_file(func))}); a FUNC cannot be "
                             f"called as a procedure (its value is used in an expression: x := {name}(...);)", statement)
        elif (hidden := self.scopes.elsewhere("proc", key)) is not None:
            raise _Unsupported(f"{name} is {self.local_elsewhere(hidden)}", statement)
        else:  # a routine found nowhere: assumed to move nothing; the data passed to it changed from here on
            self.record_change(statement, local)
            self._late_nowhere.setdefault(key, (self.file, statement))

    def call_in_func(self, statement: Tree, local: dict[str, _Data]) -> None:
        """A call in a FUNC's body: an instruction that moves nothing (``TPWrite``, ``WaitTime``: no step in a value)
        changes only the data it writes, as in a PROC (:meth:`run_call`); any other is not followed."""
        key = str(statement.children[0]).lower()
        if key in self.procs or key not in _PASSIVE | {"waittime"}:
            raise _Unsupported(f"function {self._funcs_run[-1].name} is not evaluated: it calls {statement.children[0]} "
                               "(only instructions that move nothing are followed in a function)", statement)
        self.record_change(statement, local)

    def _run_proc(self, call: Tree, statement: Tree, local: dict[str, _Data]) -> None:
        """A ``call`` of the task's PROC in ``statement``, run in its own module's file; a recursion with the arguments
        of two calls being run (a parameterless one: any) twice, not deeper (its third pass reads what its second did)."""
        name, call_args = str(call.children[0]), call.children[1] if len(call.children) > 1 else None
        key = name.lower()
        if len(self._routines_run) > 33:  # (more than 32 calls being run: their bodies and the entry routine's)
            raise _Unsupported(f"calls nested more than 32 deep (recursion?) at {name}", statement)
        routine = self.procs[key] if key in self.procs else self.funcs[key]  # (a FUNC that moves: run_statement)
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
                                       "here on (its time is not in the estimate)", *line_col(statement), self.file))
        arguments = None if scope is None else self._arguments(scope)
        if arguments is not None and sum(r is routine and a == arguments for r, a in self._routines_run) >= 2:
            self.note_once(Finding(f"{name} calls itself again (recursion): followed twice on this path, not deeper",
                                   *line_col(statement), self.file))
            return
        self.visited[id(routine)] = routine
        first, stood_reads = len(self.steps), self._stood_reads
        self._quiet += [name] if quiet else []
        try:
            if scope is not None:
                with self.in_file(self.routine_file(routine), routine.meta.start_pos):
                    self.run_routine(routine, scope)
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
                self._counters and _number(data.value)}

    @functools.cached_property
    def compact_ifs(self) -> dict[tuple[int, int], Tree]:
        """The task's compact ``IF`` statements by ``(file, start)`` of the statement each holds: no statement can be
        written before that one (:func:`.passes.settle`)."""
        return {(file, span_of(c.children[-1]).start): c for file, tree in enumerate(self.task_trees)
                for c in tree.find_data("compact_if")}

    def found_nowhere(self, key: str) -> bool:
        """Whether ``key`` names no routine of the task and no instruction thermocomp knows."""
        return key not in _KNOWN and key not in self.procs and key not in self.funcs \
            and self.scopes.elsewhere("proc", key) is None

    def note_found_nowhere(self, entry: list[Tree]) -> tuple[tuple[str, int, int, int], ...]:
        """A note for each routine found nowhere that a cycle may call; returns ``(name, file, line, column)`` of each
        such call the ``entry`` routines make (:func:`.calls.note_found_nowhere`)."""
        found = [(self.routine_file(r), c) for r in self._reach[0].values() for c in r.find_data("call")
                 if isinstance(c.children[0], Token) and self.found_nowhere(str(c.children[0]).lower())]
        called = {str(c.children[0]).lower() for _, c in found}  # (a late-bound call: counted where its routine is
        found += [late for key, late in self._late_nowhere.items() if key not in called]  # called nowhere else)
        spans = [(self.routine_file(r), r.meta.start_pos, r.meta.end_pos) for r in entry]
        return calls.note_found_nowhere(self.notes, [
            (str(c.children[0]).lower(), f, *line_col(c), str(c.children[0]),
             any(f == file and a <= c.meta.start_pos < b for file, a, b in spans)) for f, c in found],
            lambda name, count, file, line: (
                f"{name} is a routine found in no module of the task: its {count} call(s) (the first at "
                f"{self._at(line, file)}) are passed over, assuming it moves nothing and changes "
                "nothing but the data passed to it (a motion that reads those after a call is refused); their time is "
                "not in the time estimate (give its module with --module FILE to have it followed)"))

    def entry_routines(self) -> list[Tree]:
        """The entry routine (``--entry``), its module entered (the first of this file that sees it as a PROC of this
        file; else the file's first); without a ``main``, or an empty one, every parameterless PROC of the module no
        routine calls, in file order."""
        entry, key = self.task.options.entry, self.task.options.entry.lower()
        self.enter_module(next((m for _, m in self._module_starts[0] if (p := self.scopes.seen[m]["proc"].get(key))
                                is not None and not self.routine_file(p)), self.module))
        found = self.procs.get(key)
        own = found is not None and not self.routine_file(found)
        if not own and key != "main":
            other = found or self.funcs.get(key) or self.traps.get(key)
            got = ("none of that name" if other is None else f"{other.data.upper()} {self._routine_name(other)}"
                   + (f" of {self._files[self.routine_file(other)][0]}" if self.routine_file(other) else ""))
            names = [self._routine_name(p) for p in self.procs.values() if not self.routine_file(p)]
            raise InputError(f"--entry {entry}: expected a PROC of this module, got {got} (its PROCs: "
                             f"{', '.join(names) or 'none'})", path=self.path)
        if own:
            required = self.signature(found)[0]
            if required:  # (the controller starts a routine with no argument)
                raise InputError(f"--entry {entry}: expected a PROC that runs with no argument, got PROC "
                                 f"{self._routine_name(found)} of {len(required)} parameter(s) "
                                 f"({', '.join(str(n[1]) for n in required)})", path=self.path,
                                 row=line_col(found)[0], column=line_col(found)[1])
            if key != "main" or _body(found).children:
                return [found]
        called = {str(c.children[0]).lower() for r in self.routines for c in r.find_data("call")}
        routines = [p for name, p in self.procs.items()  # (the module's own parameterless PROCs no routine calls)
                    if not self.routine_file(p) and name not in called and not any(p.find_data("param")) and p is not found]
        if own and routines:
            self.notes.append(Finding(f"PROC {self._routine_name(found)} holds no statement: the module's PROCs "
                                      "that no routine calls are run in file order, as one cycle ("
                                      f"{', '.join(self._routine_name(p) for p in routines)}); --entry NAME "
                                      "runs one of them alone", *line_col(found), self.file))
        return routines if routines or not own else [found]

    @staticmethod
    def _routine_name(routine: Tree) -> str:
        return str(declared_name(routine))

    def note_unvisited(self) -> tuple[tuple[str, int, int, int], ...]:
        """A note for each routine not run that holds motions; ``(name, motions, line, column)`` of each."""
        unrun = []
        for routine in self.routines:
            name = self._routine_name(routine)
            if id(routine) in self.visited:
                continue
            n_moves = len(self._motions_in(routine, _AXES))
            if n_moves:
                self.notes.append(Finding(f"{routine.data.upper()} {name} is not run from the entry routine: its {n_moves} "
                                          "motion(s) are not followed (their texts stay as written; data they share "
                                          "with the routines run may be rewritten)", *line_col(routine), self.file))
                unrun.append((name, n_moves, *line_col(routine)))
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
            unrun = set() if self._reach[1] else {id(n) for r in module_tree.find_data("proc") if id(r) not in
                                                  self._reach[0] for n in r.iter_subtrees()}  # (their nodes)
            for node in module_tree.find_data("name"):
                token = node.children[0]
                if token.start_pos not in size_only and not (str(token).lower() in consts and id(node) in unrun):
                    uses.setdefault(str(token).lower(), set()).add(key + token.start_pos)
            for node in module_tree.find_data("moves"):
                token = node.children[0]
                statements = self.move_matches(token)
                not_read = consts if id(node) in unrun else frozenset()
                for part in ("p1", "p2", "speed", "zone", "tool", "wobj"):
                    for value, start in statements.read(part):
                        if value is not None and value[0] != "[" and re.match(r"\w*", value).group() not in not_read:
                            uses.setdefault(value, set()).add(key + token.start_pos + start)
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
    def _reach(self) -> tuple[dict[int, Tree], bool]:
        """The routines a cycle may run (those run and those they may call), by id, and whether one holds a late-bound
        call; found once. A call is followed to the routine its caller's module sees (:class:`.rapid_scope.Scopes`)."""
        reached: dict[int, Tree] = {}
        todo, late = list(self.visited.values()), False
        while todo:
            routine = todo.pop()
            if id(routine) in reached:
                continue
            reached[id(routine)] = routine
            late = late or self.summary(routine).late
            seen = self.scopes.seen[self.routine_module(routine)]
            todo += [r for r in (next((seen[kind][key] for kind in ("proc", "func", "trap") if key in seen[kind]), None)
                                 for key in self.summary(routine).calls) if r is not None]
        return reached, late


def _copied(node: Tree) -> Tree:
    """A copy of ``node`` of its own nodes (its tokens and positions shared): ``n`` read in ``n := n + 1;``."""
    return Tree(node.data, [_copied(c) if isinstance(c, Tree) else c for c in node.children], node.meta)


def _goto_label(statement: Tree) -> str | None:
    """The label (lower case) an ``IF ... GOTO label;`` jumps to; else None."""
    last = statement.children[-1] if statement.data == "compact_if" else None
    return str(last.children[0]).lower() if isinstance(last, Tree) and last.data == "goto_stmt" else None


def _loop_name(loop: Tree) -> str:
    """How a note names a loop whose passes need tables: ``FOR``, ``WHILE``, or a counted GOTO loop's ``IF ...
    GOTO``."""
    if loop.data in ("for_stmt", "while_stmt"):
        return _CONSTRUCTS[loop.data]
    return f"IF ... GOTO {loop.children[-1].children[0]}"


def _heads(statement: Tree) -> list[Tree]:
    """The expressions of ``statement`` outside its bodies: conditions, a TEST's values, a call's arguments."""
    own = statement.children[:1] if statement.data == "compact_if" else statement.children  # (not its statement)
    return [sub for child in own if isinstance(child, Tree) and child.data != "body"
            for sub in ([child] if child.data not in ("elseif", "test_case") else
                        [c for c in child.children if isinstance(c, Tree) and c.data != "body"])]


def _names_read(node: Tree) -> set[str]:
    """The names (lower case) expression ``node`` reads."""
    return {str(n.children[0]).lower() for n in node.find_data("name")}


#: How each statement is followed (:meth:`_Flow.run_statement`); a ``GOTO`` in written order (its labels make what
#: the routine assigns unknown, :meth:`_Flow.run_label`, but a counted loop's: :meth:`_Flow.run_body`); any other is
#: unsupported.
_RUNS = {
    "data_decl": lambda flow, statement, local: flow.declare(statement, local),
    "assign": lambda flow, statement, local: flow.assign(statement, local),
    "moves": lambda flow, statement, local: flow.run_tagged(lambda: flow.run_moves(statement.children[0], local)),
    "call": _Flow.run_call, "label": _Flow.run_label,
    "late_call": _Flow.run_late_call, "connect_stmt": _Flow.run_connect, "goto_stmt": lambda *_: None,
    "for_stmt": _Flow.run_for, "if_stmt": _Flow.run_if, "compact_if": _Flow.run_if,
    "while_stmt": _Flow.run_if, "test_stmt": _Flow.run_if,
}

#: How a statement in a FUNC being evaluated is followed (:meth:`_Flow.func_value`): those that give no step, an
#: assignment as a FUNC's (:meth:`.rapid_data._Declarations.assign_in_func`); any other refuses the FUNC.
_FUNC_RUNS = {**{kind: _RUNS[kind] for kind in ("data_decl", "for_stmt", "if_stmt", "compact_if", "while_stmt",
                                                "test_stmt")},
              "assign": lambda flow, statement, local: flow.assign_in_func(statement, local),
              "call": lambda flow, statement, local: flow.call_in_func(statement, local)}
