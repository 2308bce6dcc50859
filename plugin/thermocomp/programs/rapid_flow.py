"""RAPID control flow (:meth:`_Flow.run_body`): the task's modules read, statements, branches and loops, the joins of
their paths, the size bound; routines and calls are :mod:`.rapid_calls`'."""

from __future__ import annotations

import contextlib
import dataclasses
import operator
import re
from collections.abc import Iterator

import numpy as np
from lark import Token, Tree

from thermocomp.errors import InputError
from thermocomp.programs import calls, passes, rapid_scope
from thermocomp.programs.calls import MAX_QUIET_WORK
from thermocomp.programs.grammars import code_lines
from thermocomp.programs.model import (
    Finding,
    Motion,
    MotionRun,
    RobotProgram,
    newline_of,
)
from thermocomp.programs.rapid_calls import _AXES, _BLOCKS, _CHOICES, _body, _Calls, _declared_key
from thermocomp.programs.rapid_data import (
    _DECLARATION_FUNCTIONS,
    _NO_MARK,
    EVALUATED,
    PREDEFINED,
    _Data,
    _is_local,
    _known,
    _location,
    _number,
    _Unknown,
    _Unsupported,
    compared,
    span_of,
)
from thermocomp.programs.rapid_motions import MOTIONS

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


def _same(a: object, b: object) -> bool:
    """``a`` and ``b`` are one value of one type (nested lists of numbers, strings, bools)."""
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


class _Flow(_Calls):
    """The walker's control flow (mixed into ``rapid._Walker``), over its routines and calls."""

    # ----- the module
    def run(self, tree: Tree) -> RobotProgram:
        self._deferred: list[tuple[Tree, object]] = []  # declarations whose value read data declared later
        self.late_unknown = False  # a late-bound call ran whose routine may be in a module loaded while running
        self.task_trees = (tree, *(m.tree for m in self.task.modules))  # (the task's files in order: 0 this module)
        self.start_work(sum(code_lines(text, "!") for _, text, _ in self._files))  # (the task's other modules run too)
        self._cycle_scope: dict[str, _Data] = {}
        self._behind = {}
        self._cycle_scopes: dict[int, dict[str, _Data]] = {}  # id -> that scope, kept alive (:meth:`run_for`)
        self._tags: dict[int, tuple[MotionRun, dict[str, tuple[Tree, Tree]]]] = {}  # :meth:`run_tagged`
        self._goto_index: dict[tuple[int, bool], tuple[Tree, dict[str, list[int]]]] = {}  # :meth:`_gotos`
        for file in [*range(1, len(self.task_trees)), 0]:
            self.collect(self.task_trees[file], file)
        for module_tree in self.task_trees:
            self.as_assignments(module_tree)
        self.declare_deferred()
        entry = self.entry_routines()
        if entry:  # the body whose last statement may be the production loop (:meth:`run_if`)
            self._cycle_body = _body(entry[-1])
        self.check_size(entry)
        self.per_pass: dict[tuple[int, int], Tree] = {}  # text -> the FOR loop whose passes it differs in
        self.pass_walks: list[tuple] = []  # each walk of a loop: its texts tabled, runs, whole (passes.take)
        self.loop_files: dict[int, int] = {}  # each such loop's id -> its file
        if not self.carried_in_loop:  # (no production loop: a cycle is a run of the entry routine)
            self.carry_into_cycle({})
        for proc in entry:
            self.visited.add(self._routine_name(proc).lower())
            self.run_routine(proc, 0, {})
        self.check_paths()
        if any(isinstance(step, MotionRun) for step in self.steps):  # (what the next cycle reads moves nothing else)
            self.check_cycles()
        per_pass, per_call, heads, per_motion = passes.settle(  # (the others' refused)
            self, set(self.conditional), _loop_name, lambda loop: (*_location(loop), self.loop_files[id(loop)]),
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

    def as_assignments(self, tree: Tree) -> None:
        """Each call in ``tree`` of an instruction of :data:`_ASSIGNING` (one the task declares no PROC of) made the
        assignment it is, in place (``Incr n;``: ``n := n + 1;``, its position the call's): it is then followed as
        one everywhere, in a FOR or a counted WHILE, at the top, from cycle to cycle. Only the statements are visited
        (not their expressions: a 30,000-motion routine's every node took a twentieth of its reading)."""
        pending = [tree]
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

    def file_of(self, path: str) -> int:
        """The index of the task's file ``path`` (0: the program; ``i``: the ``i``-th ``--module``)."""
        return next(i for i, (p, _, _) in enumerate(self._files) if p == path)

    def routine_file(self, routine: Tree) -> int:
        """The index of the task's file that holds ``routine``."""
        return self.file_of(self.origin.get(id(routine), self._files[0][0]))

    @contextlib.contextmanager
    def in_file(self, file: int) -> Iterator[None]:
        """Within: the walker reads the task's file ``file`` (its path, text and lines name what it finds there)."""
        before = (self.file, self.file_key, self.path, self.text, self.lines)
        self.file, self.file_key = file, file << 40
        self.path, self.text, self.lines = self._files[file]
        try:
            yield
        finally:
            self.file, self.file_key, self.path, self.text, self.lines = before

    def collect(self, tree: Tree, file: int) -> None:
        """The declarations and routines of task file ``file`` (0: this module), after :func:`.rapid_scope.check_module`."""
        rapid_scope.check_module(tree, self._files[file][0])
        with self.in_file(file):
            for item in (item for node in tree.children if isinstance(node, Tree) and node.data == "module"
                         for item in node.children if isinstance(item, Tree)):
                foreign_local = file > 0 and _is_local(item)  # (another module's own: its own read it)
                if item.data in ("record_decl", "alias_decl") and not foreign_local:
                    self.declare_type(item)
                elif item.data == "data_decl":
                    self._collect_data(item, foreign_local)
                elif item.data in ("proc", "func", "trap"):
                    self._collect_routine(item, foreign_local)

    def _collect_data(self, item: Tree, foreign_local: bool) -> None:
        """A data declaration of the file being read (``foreign_local``: a ``LOCAL`` one of another module)."""
        key = _declared_key(item)
        if foreign_local and (key in self.module_data or key in self.foreign_local):
            # (hidden from the task: :meth:`lookup` refuses a read of it; so are two modules' own of one name)
            if key in self.foreign_local and key in self.module_data:
                self.hidden_local.setdefault(key, set()).add(self.module_data.pop(key).file)
            self.hidden_local.setdefault(key, set()).add(self.file)
            return
        self.declare_other(item)
        if foreign_local:
            self.foreign_local.add(key)
        data = self.module_data[key]
        if self.task.modules and data.value is None and data.node is not None:
            self._deferred.append((item, self.file))

    def _collect_routine(self, item: Tree, foreign_local: bool) -> None:
        """A PROC, FUNC or TRAP of the file being read (this module, or another of the task)."""
        name = self._routine_name(item)
        if self.file:
            self.origin[id(item)] = self.path
        else:
            self.routines.append(item)
        table = {"proc": self.procs, "func": self.funcs, "trap": self.traps}[item.data]
        known = table.get(name.lower())
        known_local = known is not None and id(known) in self.origin and _is_local(known)
        if foreign_local and (known is not None or (item.data, name.lower()) in self.foreign_local):
            if known_local:  # (two modules' own of one name, as above)
                del table[name.lower()]
                self.foreign_local.add((item.data, name.lower()))
            return
        first = known is not None and self.origin.get(id(known), self.path)
        if known is not None and not self.file and not known_local and _is_local(item):
            # (the program's LOCAL routine hides another module's global of its name in the program; that
            # module's own calls of the name run its global, which the walk does not tell apart)
            if len(re.findall(rf"(?<!\w){re.escape(name)}(?!\w)", self._files[self.file_of(first)][1],
                              re.IGNORECASE)) > 1:
                raise InputError(f"{item.data.upper()} {name} is LOCAL here and global in {first} (line "
                                 f"{_location(known)[0]}), whose code names it: which of the two each call "
                                 "there runs is not followed (give one of them another name)",
                                 path=self.path, row=_location(item)[0])
            known = None
        if known is not None and not known_local:
            raise InputError(f"{item.data.upper()} {name} is declared in two modules of the task: {first} "
                             f"(line {_location(known)[0]}) and here", path=self.path, row=_location(item)[0])
        table[name.lower()] = item

    def declare_deferred(self) -> None:
        """The module data whose value reads a module read after it: declared again until no more gets a value."""
        while self._deferred:
            still = []
            for decl, file in self._deferred:
                key = _declared_key(decl)
                data = self.module_data.pop(key)
                own = key in self.foreign_local  # (its module's own: read again, it hides no other module's)
                self.foreign_local.discard(key)
                with self.in_file(file):
                    self.declare_other(decl)
                if own:
                    self.foreign_local.add(key)
                if self.module_data[key].value is None:
                    self.module_data[key] = data
                    still.append((decl, file))
            if len(still) == len(self._deferred):
                return
            self._deferred = still

    def declare_other(self, decl: Tree) -> None:
        """A module datum of the file being read (:meth:`in_file`); another module's reads are no read of a cycle."""
        key = _declared_key(decl)
        if key in self.foreign_local or key in self.module_data and _is_local(decl):  # (another module's own of
            self.foreign_local.discard(key)  # this name: this module's reads its own; a LOCAL one here hides another
            self.hidden_local.setdefault(key, set()).add(self.module_data.pop(key).file)  # module's global)
        first_read = dict(self._first_read) if self.file else None
        self.declare(decl, self.module_data)
        if first_read is not None:
            self._first_read = first_read

    def check_size(self, entry: list[Tree]) -> None:
        """Refuse the module when its entry unrolls to more than ``max_motions`` steps, counted before any runs."""
        limit = self.task.options.max_motions
        total = sum(self.summary(proc).steps for proc in entry)
        if total > limit and sum(self.summary(proc).path for proc in entry) > limit:  # (so there is an entry; one
            # path's: an IF or TEST its largest branch, where the file decides it; the walk is bounded by work())
            raise InputError(f"{self._routine_name(entry[0])} unrolls to {total:,} steps (motions, waits and calls of "
                             "routines that move nothing, through its FOR loops and routine calls, every branch of an "
                             "IF or TEST counted: counted before any condition is decided): more than "
                             f"--max-motions {limit:,}", path=self.path, row=_location(entry[0])[0])

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
        routine = self._routines_run[-1] if self._routines_run else body
        gotos = [j for j in self._gotos(body, False).get(name, ()) if j > at]
        if not gotos or len(gotos) != len(self._gotos(routine, True).get(name, ())):
            return False
        for j in gotos:
            span, reads = body.children[at + 1:j], {str(n.children[0]).lower() for n in
                                                     body.children[j].children[0].find_data("name")}
            given = {str(self.changed_root(s.children[0])).lower() for s in span if s.data == "assign"}
            if not reads & given or self._decided_value(body.children[j].children[0], local) is None or any(
                    s.data == "label" or s.data != "assign" and self.summary(s).assigns & reads for s in span):
                return False
        self.note_once(Finding(f"label {body.children[at].children[0]}: the IF ... GOTO at line "
                               f"{_location(body.children[gotos[-1]])[0]} repeats what follows it while its condition "
                               "holds: followed pass by pass", *_location(body.children[at]), self.file))
        return True

    def _gotos(self, node: Tree, nested: bool) -> dict[str, list[int]]:
        """Per label (lower case), where each ``IF ... GOTO`` to it stands in ``node.children`` (``nested``: each
        ``GOTO`` to it anywhere in ``node``, in the order found), found once a node: each label scanned its body and
        its routine again, labels times statements (8,000 labels and GOTOs, 180 KB: 18 s of CPU)."""
        if (id(node), nested) not in self._goto_index:
            found: dict[str, list[int]] = {}
            for j, s in enumerate(node.find_data("goto_stmt") if nested else node.children):
                label = str(s.children[0]).lower() if nested else _goto_label(s)
                if label is not None:
                    found.setdefault(label, []).append(j)
            self._goto_index[id(node), nested] = (node, found)  # (node kept: its id stays its)
        return self._goto_index[id(node), nested][1]

    def run_label(self, statement: Tree, local: dict[str, _Data], depth: int) -> None:
        """A label: a ``GOTO`` may arrive from anywhere, so what the routine assigns is changed from here on."""
        routine = self._routines_run[-1] if self._routines_run else statement
        self.mark_all(self.summary(routine).assigns, routine, statement, local)
        self.stand_from = len(self.steps)  # (and the robot stands where the motion before the GOTO left it)
        self.note_once(Finding(f"label {statement.children[0]}: a GOTO target; the routine is followed in written "
                               "order, what it assigns known only while running after the label", *_location(statement),
                               self.file))

    def run_body(self, body: Tree, local: dict[str, _Data], depth: int) -> bool:
        """Run the statements of ``body``; whether one ended it (:data:`_ENDS`, ``ExitCycle``), itself or inside a
        construct the file decides (``IF n = 0 RETURN;``): the rest of the routine does not run either."""
        loops: dict[str, tuple[int, tuple[int, int], Tree]] = {}  # a counted GOTO loop's label: where its passes
        # start, its first step and first conditional line (:meth:`take_passes`), the label
        k = 0
        while k < len(body.children):
            statement, k = body.children[k], k + 1
            self.work(statement)
            if (statement.data in _ENDS or (
                    statement.data == "call" and str(statement.children[0]).lower() == "exitcycle")):
                if statement.data == "placeholder":
                    self.note_once(Finding("placeholder <SMT>: running into it is an execution error; the statements "
                                           "after it in this routine never run", *_location(statement), self.file))
                return True  # (RETURN, EXIT, RAISE, ExitCycle, <SMT>: the rest of this body never runs after it)
            try:
                label = _goto_label(statement)
                if statement.data == "label" and self.counted_loop(body, k - 1, local):
                    loops[str(statement.children[0]).lower()] = (k, (len(self.steps), len(self.conditional)), statement)
                    self.stand_from = len(self.steps)  # (a pass's start: where the pass before or the motion before
                    # the label left the robot)
                elif label in loops:  # (its IF ... GOTO: again where the file decides it, else the loop's passes end)
                    branch = self.decided_branch(statement, local)
                    if branch is None:
                        raise _Unsupported(f"IF ... GOTO {label}: its condition is known only while running, and the "
                                           "statements after the label may run again with other values", statement)
                    if branch.children:
                        k, self.stand_from = loops[label][0], len(self.steps)
                    else:  # (the passes' motions taken, as a FOR's)
                        self.take_passes(loops[label][1], statement, f"pass of IF ... GOTO {statement.children[-1].children[0]}",
                                         head=loops[label][2])
                elif self.run_statement(statement, local, depth):
                    return True
            except _Unsupported as exc:
                if self._quiet:  # inside a routine that moves nothing: what it does cannot change a motion
                    self.note_once(Finding(f"{exc.message}; passed over: {self._quiet[-1]} moves nothing and changes "
                                           "nothing a motion reads (its time is not estimated)", *_location(exc.where),
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

    def run_statement(self, statement: Tree, local: dict[str, _Data], depth: int) -> bool | None:
        """Run one statement (whether it ended its routine: :meth:`run_body`); one whose own expressions call a FUNC
        that moves the robot is refused."""
        run = _RUNS.get(statement.data)
        if run is None:
            raise _Unsupported(f"{_CONSTRUCTS.get(statement.data, statement.data)} is not followed (its outcome or "
                               "count is not known before running)", statement)
        moving = [(sub, found) for head in _heads(statement) for sub in head.find_data("func_call") if (func := self.funcs.get(
            str(sub.children[0]).lower())) is not None and (found := self.summary(func).motion) is not None]
        if moving and statement.data == "assign" and [sub for sub, _ in moving] == [statement.children[-1]]:
            return self.run_moving_func(statement, local, depth)
        if moving:
            sub, found = moving[0]
            raise _Unsupported(f"{found}: a motion inside FUNC {sub.children[0]}, called in an expression here, is "
                               f"followed only where an assignment takes its value (x := {sub.children[0]}(...);)",
                               statement)
        return run(self, statement, local, depth)

    def run_moving_func(self, statement: Tree, local: dict[str, _Data], depth: int) -> None:
        """``x := F(...);`` whose FUNC ``F`` moves the robot (RAPID allows any instruction in a FUNC): its body run as
        a call's, its arguments bound; ``x`` changed at run time from here (its RETURN value is not evaluated)."""
        self._run_proc(statement.children[-1], statement, local, depth)
        self.mark_changed(self.changed_root(statement.children[0]), statement, local)

    def run_if(self, statement: Tree, local: dict[str, _Data], depth: int) -> bool | None:
        """An ``IF``, ``TEST`` or ``WHILE``: the body the file decides, else each (:meth:`run_unresolved`); ``WHILE
        TRUE`` ending the (last) entry routine is the production loop, a pass a cycle."""
        condition = statement.children[0]
        if statement.data == "while_stmt" and self._cycle_body is not None and statement is (
                self._cycle_body.children or [None])[-1] and getattr(condition, "data", None) == "name" \
                and str(condition.children[0]).lower() == "true":
            self.notes.append(Finding("WHILE TRUE: loop forever: one cycle is one pass of its body",
                                      *_location(statement), self.file))
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
            return self.run_while(statement, local, depth)
        else:
            branch = self.decided_branch(statement, local)
        if branch is None:
            return self.run_unresolved(statement, local, depth)
        return self.run_body(branch, local, depth)

    def counted_while(self, statement: Tree, local: dict[str, _Data]) -> bool:
        """Whether the file fixes the passes of ``WHILE`` ``statement`` (``i := 1; WHILE i < 4 DO ... i := i + 1;
        ENDWHILE``): its body moves, its condition holds here and reads data the body gives values, and every datum
        that condition reads, or that an assignment to such a datum or a condition around one reads, is given values
        in the body only by assignments whose values and conditions are known here."""
        with self.not_reading():
            condition, body = statement.children[0], statement.children[-1]
            if not self.summary(body).steps or self._decided_value(condition, local) is not True:
                return False
            changes = list(self._changes_in(body, ()))
            watched, grown = _names_read(condition), True
            while grown:
                grown = False
                for change, heads in changes:
                    if change.data != "assign":
                        if self.summary(change).assigns & watched:
                            return False  # (a call, a loop or an instruction that changes it: a search's found point)
                        continue
                    root = self.changed_root(change.children[0])
                    if root is None or str(root).lower() not in watched:
                        continue
                    reads = set().union(*map(_names_read, (change.children[-1], *heads)))
                    if any(self._decided_value(node, local) is None for node in (change.children[-1], *heads)):
                        return False
                    grown, watched = grown or not reads <= watched, watched | reads
            given = {str(root).lower() for change, _ in changes if change.data == "assign"
                     and (root := self.changed_root(change.children[0])) is not None}
            return bool(_names_read(condition) & given)

    def _changes_in(self, body: Tree, heads: tuple[Tree, ...]) -> Iterator[tuple[Tree, tuple[Tree, ...]]]:
        """Each statement of ``body`` but an ``IF`` or ``TEST`` (whose bodies are entered), with the conditions and
        tested values it runs under."""
        for statement in body.children:
            if statement.data not in _CHOICES:
                yield statement, heads
                continue
            for branch in self._bodies(statement)[0]:
                yield from self._changes_in(branch, heads + tuple(_heads(statement)))

    def run_while(self, statement: Tree, local: dict[str, _Data], depth: int) -> bool:
        """A ``WHILE`` whose passes the file fixes (:meth:`counted_while`), followed pass by pass while its condition
        holds (at most ``--max-motions`` steps); its passes' motions taken as a FOR's (:meth:`take_passes`)."""
        self.note_once(Finding("WHILE: its condition is decided by the file at every pass: followed pass by pass",
                               *_location(statement), self.file))
        first, limit = (len(self.steps), len(self.conditional)), self.task.options.max_motions
        while (holds := self._decided_value(statement.children[0], local)) is True:
            with self.sequence():
                if self.run_body(statement.children[-1], local, depth):
                    break
            if len(self.steps) - first[0] > limit:
                raise self.error(f"WHILE unrolls to more than --max-motions {limit:,} steps", statement)
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
            given: dict[str, list[tuple[Tree, Tree]]] = {}
            for name, g in (item for *_, source in runs for item in source.items()):
                if all(g[0] is not h[0] for h in given.get(name, [])):
                    given.setdefault(name, []).append(g)
            named = {name: getattr(self.module_data.get(name), "name", name) for name in given}  # (as declared)
            said = "; ".join(f"{named[name]} is given a value at " + " and at ".join(
                f"line {_location(a)[0]} (inside the {_CONSTRUCTS.get(c.data, c.data)} at line {_location(c)[0]})"
                for a, c in g) for name, g in given.items())
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

    def _decided_value(self, node: Tree | Token, local: dict[str, _Data]) -> object:
        """The value of condition ``node`` if it reads only known data that nothing in the task changes or that this
        cycle gave a value before (a FOR counter, a parameter, a datum the cycle set from constants); else None."""
        if not isinstance(node, Tree):
            return None
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
                    or (name in self.task_changes[0] or name in self.persistent) and self.marks.get(
                        name, _NO_MARK).followed is None or name in self.outside or name in self.task_changes[1]:
                return None  # (it may change while running; one the task changes: until this cycle gives it a value
                # that reads no PERS the cycle did not set, which another task or the operator writes; a TRAP's: never)
        try:
            return self.evaluate(node, local)
        except _Unsupported:
            return None

    def run_unresolved(self, statement: Tree, local: dict[str, _Data], depth: int) -> None:
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
                        self.run_pass(statement, None, local, depth)
                    else:
                        self.run_body(body, local, depth)
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
            self.note_once(self.note_unresolved(_CONSTRUCTS[statement.data], rows, (*_location(statement), self.file)))
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

    def run_for(self, statement: Tree, local: dict[str, _Data], depth: int) -> bool | None:
        """A FOR loop with constant bounds, unrolled (else :meth:`run_unresolved`) until a pass ends its routine
        (:meth:`run_body`); a body that neither reads the counter nor changes anything is followed once and repeated."""
        counter, body = statement.children[0], statement.children[-1]
        try:
            start, step, total = self.for_passes(statement, local)
        except _Unknown:  # (bounds known only while running)
            return self.run_unresolved(statement, local, depth)
        found = self.summary(body)
        if self.quiet_loop(body, total, found.statements):
            self.note_once(Finding(f"FOR of {total:,} passes moves nothing: not unrolled (more than "
                                   f"{MAX_QUIET_WORK:,} statements); followed once, what it assigns is known only "
                                   "while running after it", *_location(statement), self.file))
            return self.run_unresolved(statement, local, depth)
        count = total * max(found.steps, 1)
        if count > self.task.options.max_motions:  # (bounds known only here: a counter or a parameter)
            raise self.error(f"FOR with {total:,} passes unrolls to {count:,} steps: more than "
                             f"--max-motions {self.task.options.max_motions:,}", statement)
        first_step, first_conditional, ended = len(self.steps), len(self.conditional), False
        same = not any(str(t).lower() == str(counter).lower() for t in body.scan_values(
            lambda v: isinstance(v, Token) and v.type == "NAME")) and not found.mutates
        for k in range(min(total, 1) if same else total):
            ended = self.run_pass(statement, start + k * step, local, depth)
            if ended:
                break
        if same:
            self.steps.extend(self.steps[first_step:] * max(total - 1, 0) * (not ended))
        else:
            self.take_passes((first_step, first_conditional), statement, f"with the FOR counter {counter}")
        return ended

    def run_pass(self, statement: Tree, value: float | None, local: dict[str, _Data], depth: int) -> bool:
        """A pass of the FOR loop ``statement``: its body run over the routine's data ``local`` (which the pass may
        change) with the loop's counter of ``value`` (None: known only while running); whether it ended its routine
        (:meth:`run_body`)."""
        counter = statement.children[0]
        scope = {**local, str(counter).lower(): _Data("num", value, None, str(counter), counter)}
        self._scopes.append(scope)  # (alive: the evaluation cache and the tables below key it by id)
        for of_scopes in (self._params, self._by_reference, self._present, self._cycle_scopes):  # (the routine's)
            if id(local) in of_scopes:
                of_scopes[id(scope)] = scope if of_scopes is self._cycle_scopes else of_scopes[id(local)]
        with self.sequence():
            ended = self.run_body(statement.children[-1], scope, depth)
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


def _names_read(node: Tree | Token) -> set[str]:
    """The names (lower case) expression ``node`` reads."""
    return {str(n.children[0]).lower() for n in node.find_data("name")} if isinstance(node, Tree) else set()


#: How each statement is followed (:meth:`_Flow.run_statement`); a ``GOTO`` in written order (its labels make what
#: the routine assigns unknown, :meth:`_Flow.run_label`, but a counted loop's: :meth:`_Flow.run_body`); any other is
#: unsupported.
_RUNS = {
    "data_decl": lambda flow, statement, local, depth: flow.declare(statement, local),
    "assign": lambda flow, statement, local, depth: flow.assign(statement, local),
    "moves": lambda flow, statement, local, depth: flow.run_tagged(lambda: flow.run_moves(statement.children[0],
                                                                                          local, depth)),
    "call": _Flow.run_call, "label": _Flow.run_label,
    "late_call": _Flow.run_late_call, "connect_stmt": _Flow.run_connect, "goto_stmt": lambda *_: None,
    "for_stmt": _Flow.run_for, "if_stmt": _Flow.run_if, "compact_if": _Flow.run_if,
    "while_stmt": _Flow.run_if, "test_stmt": _Flow.run_if,
}
