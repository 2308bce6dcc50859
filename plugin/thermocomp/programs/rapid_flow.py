"""RAPID control flow and calls: the module's routines, the entry, statements, branches, loops and calls.

The walker of :mod:`thermocomp.programs.rapid` follows the entry routine statement by statement
(:meth:`_Flow.run_body`); this module holds what decides the order and the passes (routines, calls and their
arguments, FOR loops, branches and loops, the size bound) and what is passed over or unsupported.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import operator
import re
from collections.abc import Iterator

import numpy as np
from lark import Token, Tree, Visitor

from thermocomp._typing import FloatArray
from thermocomp.errors import ConfigurationError, InputError
from thermocomp.programs import calls, passes, rapid_scope
from thermocomp.programs.grammars import code_lines
from thermocomp.programs.model import (
    ABSOLUTE_JOINT,
    JOINT,
    LINEAR,
    Finding,
    Motion,
    MotionRun,
    Point,
    RobotProgram,
    TextLines,
    Wait,
    newline_of,
    world_of_target,
)
from thermocomp.programs.rapid_data import (
    _DECLARATION_FUNCTIONS,
    EVALUATED,
    MANUAL_MOVING,
    MANUAL_PASSIVE,
    PREDEFINED,
    WRITES_ARGUMENTS,
    _Data,
    _is_local,
    _location,
    _number,
    _T_from_pose,
    _Unsupported,
    compared,
    span_of,
)
from thermocomp.programs.rapid_motions import MOTIONS, PROCESS_MOTIONS

#: Instructions that move the robot, change the frame of later motions or wait for a path event in ways thermocomp
#: does not follow (the manual's EGM, arc welding's multi-pass, path recorder, force control, soft servo, independent
#: axes, restarts of a path; the rest of the manual's: rapid_data): unsupported where the entry runs them.
UNSUPPORTED_INSTRUCTIONS = MANUAL_MOVING | frozenset((
    "SearchExtJ MoveExtJ ArcMoveExtJ PDispOn PDispSet EOffsOn EOffsSet CorrCon CorrWrite SyncMoveOn SyncMoveOff "
    "IndAMove IndCMove IndDMove IndRMove ActUnit DeactUnit StorePath RestoPath ClearPath ExitCycle StopMoveReset "
    "SetSysData TuneServo CirPathMode EGMRunJoint EGMRunPose EGMMoveL EGMMoveC WaitWObj DropWObj ArcRepL "
    "PathRecMoveBwd PathRecMoveFwd StepBwdPath StartMoveRetry ContactL FCAct FCDeact FCPress1LStart FCPressL FCPressC "
    "FCPressEnd CSSAct CSSDeact CSSDeactMoveL IndReset").lower().split())

#: Instructions that neither move the robot nor branch (I/O, sockets, files and serial channels, messages,
#: interrupts set up, EGM set up, data by name, triggers, test signals, speed limits; the rest of the manual's:
#: rapid_data): passed over; those that read into their arguments change the data named there
#: (``rapid_data.WRITES_ARGUMENTS``).
PASSIVE_INSTRUCTIONS = MANUAL_PASSIVE | WRITES_ARGUMENTS | frozenset((
    "TPWrite TPErase ErrWrite ErrLog SetDO SetAO SetGO Set Reset PulseDO InvertDO AccSet SingArea GripLoad Stop Break "
    "ClkStart ClkStop ClkReset PathResol SoftAct SoftDeact StopMove StartMove PDispOff EOffsOff CorrClear CorrDiscon "
    "IDelete ISleep IWatch IDisable IEnable Load MechUnitLoad TriggIO TriggEquip TriggInt TriggSpeed SetDataSearch "
    "WaitLoad UnLoad Comment MotionSup WaitRob SpeedRefresh PathAccLim WorldAccLim SocketBind SocketClose "
    "SocketConnect SocketListen SocketSend SocketSendTo Close Write WriteAnyBin WriteBin WriteStrBin WriteRawBytes "
    "Rewind ClearIOBuff CopyFile RemoveFile RenameFile MakeDir RemoveDir CloseDir TPShow UIShow ErrRaise IVarValue "
    "IError ISignalDI ISignalDO ISignalAI ISignalAO ISignalGI ISignalGO ITimer IPers IRMQMessage SpyStart SpyStop "
    "SetDataVal SetAllDataVal WriteCfgData SaveCfgData RMQSendMessage RMQEmptyQueue IOEnable IODisable AliasIO "
    "TextTabInstall PathRecStart PathRecStop MotionProcessModeSet EGMReset EGMStop EGMSetupAI EGMSetupAO EGMSetupGI "
    "EGMSetupLTAPP EGMSetupUC EGMActJoint EGMActPose EGMStreamStart EGMStreamStop SetTPHandlerCfg StartLoad CancelLoad "
    "EraseModule Save WZEnable WZDisable WZFree SkipWarn ResetRetryCount TriggCheckIO TriggRampAO TriggStopProc "
    "TriggDataCopy TriggDataReset TestSignDefine TestSignReset SpeedLimAxis SpeedLimCheckPoint ActEventBuffer "
    "DeactEventBuffer SetLeadThrough DitherAct DitherDeact ArcRefresh ArcKill").lower().split())

#: Instructions that wait for something thermocomp cannot time.
SIGNAL_WAITS = frozenset("WaitDI WaitDO WaitAI WaitAO WaitGI WaitGO WaitUntil WaitSyncTask WaitTestAndSet".lower().split())

#: Instructions that change how the motions after them run (speed, configuration checks): followed in order, so
#: a branch holding one is not passed over.
MODE_INSTRUCTIONS = frozenset(("velset", "confl", "confj"))

#: Instructions that move the robot or change how it moves; that neither move it nor change data a motion reads.
_MOVING = frozenset(MOTIONS) | frozenset(PROCESS_MOTIONS) | UNSUPPORTED_INSTRUCTIONS
_PASSIVE = PASSIVE_INSTRUCTIONS | SIGNAL_WAITS

#: The statements, as RAPID writes them (for findings and notes).
_CONSTRUCTS = {
    "if_stmt": "IF", "compact_if": "IF", "while_stmt": "WHILE", "for_stmt": "FOR", "test_stmt": "TEST",
    "return_stmt": "RETURN", "exit_stmt": "EXIT", "goto_stmt": "GOTO", "retry_stmt": "RETRY",
    "trynext_stmt": "TRYNEXT", "raise_stmt": "RAISE", "connect_stmt": "CONNECT (an interrupt)",
    "late_call": "a late-bound call (%...%)",
}

#: How a call of a routine found nowhere is named.
_NOT_FOUND = ("found in no module of the task (give its module with --module FILE, or declare with --external "
              "{name} that it does not move the robot)")

#: A RAPID identifier (ABB, "RAPID kernel": at most 32 characters).
_RAPID_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,31}")

#: Most conditions and loops whose outcome is known only while running, one inside the other, that are followed.
MAX_NESTING = 64

#: Most statements the reader runs in one module (FOR loops and routine calls unrolled; a run of plain motions is
#: one): this many, plus :data:`STATEMENTS_PER_LINE` a line of the module. The last-resort bound on its work,
#: whatever the input (some 10-20 µs a statement: a few seconds at most); past it the module is refused naming the
#: statement.
MAX_STATEMENTS_RUN = 100_000
STATEMENTS_PER_LINE = 50

#: The data of a path's end joined (:meth:`_Flow.join`) that cost as much as one statement run (a few µs each).
DATA_PER_STATEMENT = 8

#: A FOR loop whose body moves nothing (:attr:`Summary.blocker`) is unrolled pass by pass while its passes times the
#: statements a pass runs (:meth:`_Flow.cost`) stay within this many; a longer one is followed once as a loop of
#: count known only while running (what it assigns is then known only while running after it), not unrolled.
MAX_QUIET_WORK = 20_000

#: Statements after which the rest of their body does not run.
_ENDS = frozenset(("return_stmt", "exit_stmt", "raise_stmt", "placeholder"))


#: Types whose value without a declared one (all parts zero) holds a zero quaternion, which the controller stops
#: on as an orientation: a path that leaves a ``VAR`` of one of them without a value reaches no motion that reads
#: it. A ``VAR jointtarget`` (or ``num``) without a value is all zeros, a value a motion can read.
_ZERO_ORIENTATION = frozenset({"robtarget", "orient", "pose", "tooldata", "wobjdata"})


def _complete(value: object) -> bool:
    """``value`` has every part (a ``VAR`` of a RECORD declared without a value has none where no default is)."""
    if isinstance(value, list):
        return all(_complete(v) for v in value)
    return value is not None


def _same(a: object, b: object) -> bool:
    """``a`` and ``b`` are one value of one type (nested lists of numbers, strings, bools)."""
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


class _Unknown(_Unsupported):
    """A FOR loop's bounds known only while running: it is followed once (:meth:`_Flow.run_unresolved`)."""


def _unresolved_note(statement: Tree, lines: list[int], file: int, kept: int = 0) -> Finding:
    """The note on an ``IF``, ``TEST``, ``WHILE`` or ``FOR`` not resolved before running, naming the lines of the
    motions under it that are compensated (and how many ``kept`` as written: :meth:`_Flow.check_paths`)."""
    held = (f"its {len(lines)} motion(s) (line {_lines(lines)}) are compensated, each once in the written order "
            "of the cycle" if lines else "it holds no motion" if not kept else "no motion under it is compensated")
    if kept:
        held += f"; {kept} run(s) of its motions stay as written (their data differ from path to path)"
    return Finding(f"{_CONSTRUCTS[statement.data]}: not resolved before running (its outcome or count is known "
                   f"only while running); {held}", *_location(statement), file)


def _lines(lines: list[int]) -> str:
    """``3, 5, 9`` of a few lines; the first ones and a count of many."""
    return ", ".join(map(str, lines)) if len(lines) <= 8 else f"{', '.join(map(str, lines[:8]))}, ... ({len(lines)})"


#: The nodes that hold statements (what :meth:`_Flow.cost` counts through).
_BLOCKS = frozenset(("body", "call", "moves", "if_stmt", "elseif", "compact_if", "while_stmt", "for_stmt", "test_stmt",
                     "test_case"))


def _declared_key(decl: Tree) -> str:
    """The name (lower case) a ``data_decl`` or a ``param`` declares."""
    return str([c for c in decl.children if isinstance(c, Token) and c.type == "NAME"][1]).lower()


def _body(routine: Tree) -> Tree:
    """The ``body`` of a routine."""
    return next(c for c in routine.children if isinstance(c, Tree) and c.data == "body")


class Summary(Visitor):
    """What a routine, a statement or a body may do (:meth:`_Flow.summary`), found in one scan of its subtrees: lark
    calls the method named by each subtree's rule, top down in written order; a call is followed through the called
    routine's summary.

    Attributes
    ----------
    blocker : str | None
        The first thing that moves the robot or changes how later motions run, with its line: a moving instruction,
        ``VelSet``/``ConfL``/``ConfJ``, a TRAP connected or a FUNC evaluated that moves, a ``GOTO`` or label, a
        late-bound call, a routine found nowhere, an assignment to a parameter, recursion.
    motion : str | None
        The first motion it runs (in a routine it calls or a FUNC it evaluates too), with its line.
    assigns : set[str]
        The data (lower-case names) it may give a value, its own too: assignments, the arguments the instructions
        and functions it calls write (``Incr``, ``StrToVal``: :meth:`_Flow.changed_tokens`), a search's found point,
        what the routines it calls assign but their own data (a parameter they assign: the data named at the call,
        passed by reference).
    local : frozenset[str]
        A routine's own data and parameters; ``written``: the places of the required parameters and the names of
        the optional ones it assigns (as :data:`.rapid_data.WRITES`).
    changed : set[str]
        The data of others it assigns (:attr:`assigns` but :attr:`local`) and what the TRAPs it connects assign.
    mutates : bool
        Whether it may leave the walk in another state: an assignment, ``VelSet``/``ConfL``/``ConfJ``, a late-bound
        call, recursion.
    calls : set[str]
        The names it calls, evaluates or connects; ``late``: whether it holds a late-bound call.
    passed : set[str]
        The data named in the arguments of what it calls but passive instructions.
    """

    def __init__(self, flow: _Flow, node: Tree, calling: frozenset[str]) -> None:
        routine = node.data in ("proc", "func", "trap")
        self._flow, self._calling, self._path = flow, calling, flow.origin.get(id(node), "")
        params = frozenset(map(_declared_key, node.find_data("param"))) if routine else frozenset()
        self._params, self.local = params, params | frozenset(map(_declared_key, node.find_data("data_decl"))
                                                                if routine else ())
        self.blocker: str | None = None
        self.motion: str | None = None
        self.assigns: set[str] = set()
        self.changed: set[str] = set()
        self.calls: set[str] = set()
        self.passed: set[str] = set()
        self.mutates = self.late = False
        self.visit_topdown(node)
        self.changed |= self.assigns - self.local
        required, optional = flow.signature(node) if routine else ([], {})
        self.written = (tuple(i for i, (_, name) in enumerate(required) if str(name).lower() in self.assigns),
                        frozenset(optional) & self.assigns)

    def _merge(self, inner: Summary, sub: Tree) -> Summary:
        """What the routine ``sub`` calls changes and assigns added (the parameters it assigns, passed by reference:
        the caller's data named there); ``inner``, its summary."""
        self.changed |= inner.changed
        self.assigns |= inner.assigns - inner.local
        self.assigns.update(str(t).lower() for t in self._flow.written_arguments(sub, *inner.written))
        return inner

    def _found(self, blocker: str | None, motion: str | None = None) -> None:
        self.blocker = self.blocker or blocker
        self.motion = self.motion or motion

    def _at(self, sub: Tree) -> str:
        return self._flow._at(sub, self._path)

    def moves(self, sub: Tree) -> None:
        if self.motion is None:
            found = re.match(r"\w*", sub.children[0]).group() + f" at {self._at(sub)}"
            self._found(found, found)

    def late_call(self, sub: Tree) -> None:
        self.late = self.mutates = True
        self._found(f"a late-bound call (%...%) at {self._at(sub)}")

    def goto_stmt(self, sub: Tree) -> None:
        self._found(f"a GOTO at {self._at(sub)}")

    def label(self, sub: Tree) -> None:
        self._found(f"a label (a GOTO target) at {self._at(sub)}")

    def connect_stmt(self, sub: Tree) -> None:
        """A TRAP runs at times known only while running: what it holds is this one's (itself again adds nothing)."""
        name = str(sub.children[-1])
        key = name.lower()
        self.calls.add(key)
        trap = self._flow._trap(key)
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
            return
        found = None if key in self._calling else self._merge(self._flow.summary(func, self._calling), sub)
        if found is not None and found.motion is not None:  # (a FUNC may hold any instruction)
            at = self._at(sub)
            self._found(f"{found.motion} (in FUNC {name}, called at {at})", f"{found.motion} (in {name}, called at {at})")

    def assign(self, sub: Tree) -> None:
        self.mutates = True
        self._changes(sub)

    def _changes(self, sub: Tree) -> bool:
        """What ``sub`` changes added to :attr:`assigns`; whether it changes anything."""
        tokens = self._flow.changed_tokens(sub)
        for token in tokens:
            self.assigns.add(str(token).lower())
            if str(token).lower() in self._params:
                self._found(f"an assignment to its parameter {token} at {self._at(sub)}")
        return bool(tokens)

    def call(self, sub: Tree) -> None:
        """An instruction or a routine, classed in the order the walker runs them (:meth:`_Flow.run_call`)."""
        flow, name = self._flow, str(sub.children[0])
        key = name.lower()
        self.calls.add(key)
        routine = flow.procs.get(key)
        self.mutates |= routine is None and self._changes(sub)  # (a routine's: its summary, below)
        args = sub.children[1] if len(sub.children) > 1 else None
        if args is not None and key not in _PASSIVE:
            self.passed.update(str(n.children[0]).lower() for n in args.find_data("name"))
        writes = getattr(PROCESS_MOTIONS.get(key), "writes", None)
        if writes is not None:  # (a search's found point)
            self.assigns.update(str(t).lower() for t in flow.written_arguments(sub, (writes,), frozenset()))
        self.mutates |= key in MODE_INSTRUCTIONS or writes is not None
        if key in _MOVING and routine is None or key in MOTIONS or key in PROCESS_MOTIONS:
            if self.motion is None:  # (a routine of 10,000 motions: each named only while none is)
                self._found(f"{name} at {self._at(sub)}", f"{name} at {self._at(sub)}")
        elif key in MODE_INSTRUCTIONS:
            self._found(self.blocker or f"{name} at {self._at(sub)}")
        elif routine is None and key not in flow.external and key not in _PASSIVE and key != "waittime":
            func = flow.funcs.get(key)
            self._found(f"{name} at {self._at(sub)}, a routine {_NOT_FOUND.format(name=name)}" if func is None else
                        f"{name} at {self._at(sub)}, a FUNC ({flow._at(func, flow.origin.get(id(func), ''))}) called "
                        "as a procedure, which a FUNC cannot be")
        elif routine is not None and key in self._calling:
            self.mutates = True
            self._found(f"a recursive call of {name} at {self._at(sub)}")
        elif routine is not None and key not in flow.external:
            inner = self._merge(flow.summary(routine, self._calling), sub)
            self.mutates |= inner.mutates
            if self.motion is None:
                at = self._at(sub)
                self._found(inner.blocker and f"{inner.blocker} (in {name}, called at {at})",
                            inner.motion and f"{inner.motion} (in {name}, called at {at})")


class _Flow:
    """The walker's control flow and calls (mixed into ``rapid._Walker``)."""

    # ----- the module
    def run(self, tree: Tree) -> RobotProgram:
        self._deferred: list[tuple[Tree, object]] = []  # declarations whose value read data declared later
        self.statements_run = 0  # (bounded by max_statements: :meth:`work`)
        self.max_statements = MAX_STATEMENTS_RUN + STATEMENTS_PER_LINE * sum(  # (the task's other modules run too)
            code_lines(text, "!") for _, text, _ in self._files)
        self._cycle_scope: dict[str, _Data] = {}
        self._cycle_scopes: dict[int, dict[str, _Data]] = {}  # id -> that scope, kept alive (:meth:`run_for`)
        self._branch_given, self._joined, self._zero_left = {}, {}, {}  # (this walk's: :mod:`.rapid_data` reads them)
        self._tags: dict[int, tuple[MotionRun, dict[str, tuple[Tree, Tree]]]] = {}  # :meth:`run_tagged`
        for other in self.task.modules:
            self.collect(other.tree, other)
        self.collect(tree, None)
        self.declare_deferred()
        entry = self.entry_routines()
        self.check_external(entry)
        if entry:  # the body whose last statement may be the production loop (:meth:`loops_forever`)
            self._cycle_body = _body(entry[-1])
        first_read = dict(self._first_read)
        self.check_size(entry)
        self._first_read = first_read  # (counting reads the bounds of FOR loops: no read of a cycle)
        self.per_pass: dict[tuple[int, int], Tree] = {}  # text -> the FOR loop whose passes it differs in
        for proc in entry:
            self.visited.add(self._routine_name(proc).lower())
            self.run_routine(proc, depth=0)
        self.check_paths()
        if any(isinstance(step, MotionRun) for step in self.steps):  # (what the next cycle reads moves nothing else)
            self.check_cycles()
        per_pass = self.check_per_pass()
        unrun = self.note_unvisited()
        steps = self.finish_points(tree)
        call_sites = self.call_site_extra(steps)
        return RobotProgram(
            language="rapid", path=self.path, text=self.text, steps=steps,
            unsupported=tuple(self.unsupported), notes=tuple(self.notes),
            entry=tuple(self._routine_name(p) for p in entry), newline=newline_of(self.text),
            modules=tuple((m.path, m.text) for m in self.task.modules),
            extra={"unrun": unrun, "conditional": tuple(dict.fromkeys(self.conditional)),
                   "confdata_free": frozenset(k for k, free in self.conf_free.items() if free),
                   "per_pass": per_pass, "statements_run": self.statements_run, **call_sites},
        )

    def file_of(self, path: str) -> int:
        """The index of the task's file ``path`` (0: the program; ``i``: the ``i``-th ``--module``)."""
        return next(i for i, (p, _, _) in enumerate(self._files) if p == path)

    def routine_file(self, routine: Tree) -> int:
        """The index of the task's file that holds ``routine``."""
        return self.file_of(self.origin.get(id(routine), self._files[0][0]))

    @contextlib.contextmanager
    def in_file(self, file: int) -> Iterator[None]:
        """Within: the walker reads the task's file ``file`` (its path, text and lines name what it finds there),
        then the one before. Spans of a routine of another module are offsets in that module's text."""
        if file == self.file:
            yield
            return
        before = (self.file, self.path, self.text, self.lines)
        path, text, lines = self._files[file]
        if lines is None:
            lines = TextLines(text)
            self._files[file] = (path, text, lines)
        self.file, self.file_key, self.path, self.text, self.lines = file, file << 40, path, text, lines
        try:
            yield
        finally:
            self.file, self.path, self.text, self.lines = before
            self.file_key = self.file << 40

    def check_external(self, entry: list[Tree]) -> None:
        """``--external`` names routines the controller holds that move nothing: one that is the entry routine, or a
        routine of the task that moves the robot or changes data a motion reads, is refused naming it."""
        entry_names = {self._routine_name(p).lower() for p in entry}
        for name in self.task.options.external:
            key = name.lower()
            if key in entry_names:
                raise ConfigurationError(f"--external {name}: expected a routine that moves nothing, got the entry "
                                         f"routine {name} (the routine one cycle runs)")
            routine = self.procs.get(key)
            if routine is None and (key in MOTIONS or key in PROCESS_MOTIONS):  # (was ignored: still followed)
                raise ConfigurationError(f"--external {name}: expected a routine that moves nothing, got RAPID's "
                                         f"motion instruction {name}")
            if routine is None:
                continue
            found = self.summary(routine)
            reason, changed = found.blocker, found.changed
            if reason is None and changed:
                reason = f"an assignment to {', '.join(sorted(changed))}"
            if reason is not None:
                where = self.origin.get(id(routine), self.path)
                raise ConfigurationError(f"--external {name}: expected a routine that neither moves the robot nor "
                                         f"changes data a motion reads, got PROC {name} of {where} (line "
                                         f"{_location(routine)[0]}), which holds {reason}")

    def collect(self, tree: Tree, module) -> None:
        """The declarations and routines of this module (``module`` None) or of another module of the task (its
        task-global ones: a ``LOCAL`` one is its own); first what the controller refuses to load
        (:func:`.rapid_scope.check_module`)."""
        rapid_scope.check_module(tree, self.path if module is None else module.path)
        reader = None if module is None else type(self)(module.text, module.path,
                                                             task=dataclasses.replace(self.task, modules=()))
        if reader is not None:  # (its values may use the data of the modules read before it)
            reader.module_data.update((k, v) for k, v in self.module_data.items() if k not in self.foreign_local)
            reader.records.update(self.records)
            reader.aliases.update(self.aliases)
        items = [item for node in tree.children if isinstance(node, Tree) and node.data == "module"
                 for item in node.children]
        for item in items:  # (another module's LOCAL routines and data: found by its own, a global name first)
            foreign_local = module is not None and isinstance(item, Tree) and _is_local(item)
            if not isinstance(item, Tree) or (foreign_local and item.data not in ("proc", "func", "trap", "data_decl")):
                continue
            if item.data in ("record_decl", "alias_decl"):
                self.declare_type(item)
                if reader is not None:
                    reader.declare_type(item)
            elif item.data == "data_decl":
                key = _declared_key(item)
                if foreign_local and (key in self.module_data or key in self.foreign_local):
                    if key in self.foreign_local and key in self.module_data:  # (two modules' own of one name:
                        self._hide_local(key, self.module_data.pop(key).file)  # which one is read is not followed)
                    self._hide_local(key, self.file_of(module.path))
                    reader.hidden_local[key] = {0}  # (its own declarations after it read its own, not followed)
                    continue
                self.declare_other(item, reader)
                if foreign_local:
                    self.foreign_local.add(key)
                data = self.module_data[key]
                if self.task.modules and data.value is None and data.node is not None:
                    self._deferred.append((item, reader))
            elif item.data in ("proc", "func", "trap"):
                name = self._routine_name(item)
                if module is None:
                    self.routines.append(item)
                else:
                    self.origin[id(item)] = module.path
                table = {"proc": self.procs, "func": self.funcs, "trap": self.traps}[item.data]
                known = table.get(name.lower())
                known_local = known is not None and id(known) in self.origin and _is_local(known)
                if foreign_local and (known is not None or (item.data, name.lower()) in self.foreign_local):
                    if known_local:  # (two modules' own of one name, as above)
                        del table[name.lower()]
                        self.foreign_local.add((item.data, name.lower()))
                    continue
                if known is not None and item.data == "proc" and not known_local:
                    first = self.origin.get(id(known), self.path)
                    where = self.path if module is None else module.path
                    raise InputError(f"PROC {name} is declared in two modules of the task: {first} (line "
                                     f"{_location(known)[0]}) and here", path=where, row=_location(item)[0])
                if known is None or known_local or item.data == "proc":
                    table[name.lower()] = item

    def declare_deferred(self) -> None:
        """The task's module data whose value reads data of a module read after it (RAPID: every module's data is
        known at once): declared again once all are, until no more gets a value."""
        while self._deferred:
            still = []
            for decl, reader in self._deferred:
                key = _declared_key(decl)
                data = self.module_data.pop(key)
                if reader is not None:
                    reader.module_data.pop(key, None)
                    reader.module_data.update(self.module_data)
                self.declare_other(decl, reader)
                if self.module_data[key].value is None:
                    self.module_data[key] = data
                    still.append((decl, reader))
            if len(still) == len(self._deferred):
                return
            self._deferred = still

    def declare_other(self, decl: Tree, reader) -> None:
        """A declaration of this module (``reader`` None), or a task-global one of another module read by that
        module's ``reader`` (its errors name that file; its values may use the module's earlier declarations)."""
        key = _declared_key(decl)
        if reader is None:
            if key in self.foreign_local:  # (another module's own of this name: this module's is its own)
                self.foreign_local.discard(key)
                self._hide_local(key, self.module_data.pop(key).file)
            self.declare(decl, self.module_data)
            return
        reader.declare(decl, reader.module_data)
        self.persistent |= reader.persistent
        data = reader.module_data[key]
        if key in self.module_data and key not in self.foreign_local:
            first = self.module_data[key]
            raise InputError(f"{data.name} is declared in two modules of the task: {first.origin or self.path} "
                             f"(line {first.declared.line}) and here", path=reader.path, row=data.declared.line)
        if key in self.foreign_local:  # (a global of the name of another module's own: that module reads its own)
            self.foreign_local.discard(key)
            self._hide_local(key, self.module_data[key].file)
        self.module_data[key] = dataclasses.replace(data, origin=reader.path, file=self.file_of(reader.path))

    def _hide_local(self, key: str, file: int) -> None:
        """The ``LOCAL`` datum ``key`` of task file ``file`` that another declaration of its name hides from the
        task: the code of its own module reads it, not the other (RAPID's scope rule), which the walk does not
        follow: :meth:`lookup` refuses a read of ``key`` there, naming it."""
        self.hidden_local.setdefault(key, set()).add(file)

    def check_size(self, entry: list[Tree]) -> None:
        """The motions and waits the entry routine unrolls to, counted before any is followed: past
        ``max_motions`` the module is refused with the count (a few kilobytes of nested FOR loops or calls can
        stand for 2^40 motions)."""
        limit = self.task.options.max_motions
        total = sum(self.cost(proc)[0] for proc in entry)
        if total > limit:  # (so there is an entry)
            raise InputError(f"{self._routine_name(entry[0])} unrolls to {total:,} steps (motions, waits and calls of "
                             "routines that move nothing, through its FOR loops and routine calls): more than "
                             f"--max-motions {limit:,}", path=self.path, row=_location(entry[0])[0])

    def cost(self, node: Tree, calling: frozenset[str] = frozenset()) -> tuple[int, int]:
        """At most how many steps ``node`` (a routine or a statement) unrolls to (motions and waits; a call at least
        one) and how many statements the walk runs through it: every branch of a condition, a FOR loop with known
        bounds its passes times its body (one not unrolled, :meth:`quiet_loop`, once), a call the routine's (none
        where it is passed over, :meth:`_passed_over`). Each routine counted once, recursion none."""
        if node.data in ("proc", "func", "trap"):
            name = self._routine_name(node).lower()
            if name in calling:
                return 0, 0
            if name not in self._costs:
                self._costs[name] = self.cost(_body(node), calling | {name})
            return self._costs[name]
        if node.data == "moves":
            return len(self.move_matches(node.children[0])), 0
        if node.data == "call":
            key = str(node.children[0]).lower()
            routine = self.procs.get(key)
            moving = key in MOTIONS or key in PROCESS_MOTIONS or key == "waittime"
            if moving or routine is None:
                return int(moving), 1
            if id(routine) in self.origin and self.summary(routine).blocker is None:
                return 0, 1
            steps, statements = self.cost(routine, calling)
            return max(steps, 1), 1 if id(routine) in self.origin else 1 + statements
        steps, statements = 0, len(node.children) if node.data == "body" else 0
        for child in node.children:
            if getattr(child, "data", None) in _BLOCKS:
                inner = self.cost(child, calling)
                steps, statements = steps + inner[0], statements + inner[1]
        if node.data == "for_stmt":
            try:
                passes = self.for_passes(node, None)[2]
            except (_Unsupported, InputError):  # (bounds known only while running, or from declared values the
                # program changes before the loop: counted, and any error raised, when it runs, :meth:`run_for`)
                return steps, min(statements, 2 ** 62)
            if not self.quiet_loop(node.children[-1], passes, statements):
                steps = max(steps, 1) * passes
            statements *= passes
        return steps, min(statements, 2 ** 62)

    def quiet_loop(self, body: Tree, passes: int, statements: int) -> bool:
        """A FOR loop of ``passes`` passes of ``body`` (``statements`` a pass, :meth:`cost`) that moves nothing
        (:attr:`Summary.blocker`) and would run more than :data:`MAX_QUIET_WORK` statements: not unrolled."""
        return passes * max(statements, 1) > MAX_QUIET_WORK and self.summary(body).blocker is None

    def for_passes(self, statement: Tree, local: dict[str, _Data] | None) -> tuple[float, float, int]:
        """A FOR loop's first value, step and number of passes (RAPID: without STEP the counter counts by 1, or
        by -1 when FROM is above TO; ABB, RAPID instructions, "FOR"); :class:`_Unknown` when its bounds are
        known only while running."""
        _, start_node, stop_node, *rest = statement.children
        try:
            start, stop = self._number(start_node, local), self._number(stop_node, local)
            step = self._number(rest[0], local) if len(rest) == 2 else (1.0 if start <= stop else -1.0)
        except _Unsupported as exc:
            raise _Unknown(exc.message, exc.where) from None
        if step == 0:
            raise _Unsupported("FOR with STEP 0 never ends", statement)
        passes = np.floor((stop - start) / step + 1e-9) + 1  # (a float: 1E38 / 1E-38 passes is inf)
        return start, step, int(min(max(passes, 0), 2 ** 62))  # (counted against --max-motions before any runs)

    def finish_points(self, tree: Tree) -> tuple:
        """The steps with each point's text where it is written; calls that clash left as written (:mod:`.calls`).
        A per-pass text (:mod:`.passes`) is a table, one entry a run: calls needing it differently do not clash."""
        return tuple(calls.finish(self.steps, lambda unfollowed: self._finish_points(tree, unfollowed), self._in_call,
                                  self.unsupported, self.notes, self.per_pass))

    def _finish_points(self, tree: Tree, unfollowed: set[int]) -> list[MotionRun | Wait]:
        """A declaration is rewritten only if every use of its name in the module is a followed motion's point
        (an ``Offs(p10, ...)`` elsewhere, or a motion left as written, must keep reading the old value)."""
        declared = {name.lower() for step in self.steps if isinstance(step, MotionRun)
                    for name, own in zip(step.name_of_point, np.all(step.text == step.argument, axis=1).tolist())
                    if name and not own}
        if not declared:  # every target inline (a CAM program): nothing to check
            return list(self.steps)
        uses: dict[str, set[int]] = {}  # every use of a name in the task's files (offsets keyed by file)
        trees = (tree, *(m.tree for m in self.task.modules))
        consts = frozenset(_declared_key(d) for t in trees for d in t.find_data("data_decl")
                           if any(s.children[0].type == "CONST" for s in d.find_data("storage")))
        for file, module_tree in enumerate(trees):
            with self.in_file(file):
                self._uses(module_tree, uses, consts)
        passes.drop_tabled(uses, self.steps, self.per_pass)
        direct = calls.direct_through_calls(self.direct_refs, self._passed, uses, unfollowed)
        direct -= calls.unwritable(self._reads)
        steps = []
        done: dict[int, MotionRun] = {}  # a step repeated (the passes of a FOR loop): decided once
        for step in self.steps:
            if isinstance(step, MotionRun):
                if id(step) not in done:
                    own = np.all(step.text == step.argument, axis=1).tolist()
                    at = ((step.text_file << 40) + step.text[:, 0]).tolist()  # (a call site's literal: in _passed)
                    done[id(step)] = step.with_text_at_argument(np.array(
                        [bool(name) and not own[i] and (at[i] not in direct if at[i] in self._passed
                                                        else not uses.get(name.lower(), set()) <= direct)
                         for i, name in enumerate(step.name_of_point)], dtype=bool))
                step = done[id(step)]
            steps.append(step)
        return steps

    def _uses(self, tree: Tree, uses: dict[str, set[int]], consts: frozenset[str] = frozenset()) -> None:
        """Add to ``uses`` each use of a name in ``tree``, the tree of the file being read (:meth:`in_file`); a use of
        a ``CONST`` (``consts``) in a PROC no cycle runs is left out."""
        key = self.file_key
        size_only = {call.children[1].children[0].children[0].start_pos for call in tree.find_data("func_call")
                     if str(call.children[0]).lower() in ("dim", "present") and len(call.children) > 1
                     and isinstance(call.children[1].children[0], Tree)
                     and call.children[1].children[0].data == "name"}  # (Dim(pts, 1), Present(p) read no value)
        unrun = self._unrun_spans(tree)  # (what a routine no cycle runs reads cannot keep a declaration as written)
        for node in tree.find_data("name"):
            token = node.children[0]
            if token.start_pos not in size_only and not (str(token).lower() in consts
                                                         and any(a <= token.start_pos < b for a, b in unrun)):
                uses.setdefault(str(token).lower(), set()).add(key + token.start_pos)
        for node in tree.find_data("moves"):
            token = node.children[0]
            skip = consts if any(a <= token.start_pos < b for a, b in unrun) else frozenset()
            statements = self.move_matches(token)
            for part in ("p1", "p2", "speed", "zone", "tool", "wobj"):
                starts = (key + token.start_pos + statements.starts(part)).tolist()
                for value, start in zip(statements.texts(part, lower=True), starts):
                    if value is not None and value[0] != "[" and re.match(r"\w*", value).group() not in skip:
                        uses.setdefault(value, set()).add(start)

    def _unrun_spans(self, tree: Tree) -> list[tuple[int, int]]:
        """The spans of the PROCs of ``tree`` that no cycle runs: neither run by the walk nor called, connected or
        evaluated from a routine it ran (a test routine of another module). None when a late-bound call ran."""
        reached, todo = set(), list(self.visited)
        while todo:
            key = todo.pop()
            routine = None if key in reached else self.procs.get(key) or self.funcs.get(key) or self._trap(key)
            reached.add(key)
            if routine is not None:
                if self.summary(routine).late:
                    return []
                todo += self.summary(routine).calls
        return [(r.meta.start_pos, r.meta.end_pos) for r in tree.find_data("proc")
                if self._routine_name(r).lower() not in reached]

    @staticmethod
    def _routine_name(routine: Tree) -> str:
        names = [c for c in routine.children if isinstance(c, Token) and c.type == "NAME"]
        return str(names[1] if routine.data == "func" else names[0])  # (FUNC type name)

    def entry_routines(self) -> list[Tree]:
        """The entry routine (``--entry``, default ``main``); without a ``main``, or with a ``main`` that holds no
        statement (RobotStudio's new-module template, "Add your code here"), every parameterless PROC of the
        module that no routine calls, in file order (a note names them)."""
        entry = self.task.options.entry
        found = self.procs.get(entry.lower())
        if found is not None and id(found) not in self.origin:
            required = self.signature(found)[0]
            if required:  # (the controller starts a routine with no argument)
                raise InputError(f"--entry {entry}: expected a PROC that runs with no argument, got PROC "
                                 f"{self._routine_name(found)} of {len(required)} parameter(s) "
                                 f"({', '.join(str(n[1]) for n in required)})", path=self.path,
                                 row=_location(found)[0], column=_location(found)[1])
            if entry.lower() != "main" or _body(found).children:
                return [found]
            routines = [p for p in self._uncalled_procs() if p is not found]
            if routines:
                self.notes.append(Finding(f"PROC {self._routine_name(found)} holds no statement: the module's PROCs "
                                          "that no routine calls are run in file order, as one cycle ("
                                          f"{', '.join(self._routine_name(p) for p in routines)}); --entry NAME "
                                          "runs one of them alone", *_location(found), self.file))
                return routines
            return [found]
        own = {name: p for name, p in self.procs.items() if id(p) not in self.origin}
        if entry.lower() != "main":
            other = found or self.funcs.get(entry.lower()) or self._trap(entry.lower())
            got = ("none of that name" if other is None else f"{other.data.upper()} {self._routine_name(other)}"
                   + (f" of {self.origin[id(other)]}" if id(other) in self.origin else ""))
            raise InputError(f"--entry {entry}: expected a PROC of this module, got {got} (its PROCs: "
                             f"{', '.join(self._routine_name(p) for p in own.values()) or 'none'})", path=self.path)
        return self._uncalled_procs()

    def _uncalled_procs(self) -> list[Tree]:
        """The module's own parameterless PROCs that no routine calls, in file order."""
        own = {name: p for name, p in self.procs.items() if id(p) not in self.origin}
        called = {str(c.children[0]).lower() for r in self.routines for c in r.find_data("call")}
        return [p for name, p in own.items() if name not in called and not self._params_of(p)]

    def note_unvisited(self) -> tuple[tuple[str, int], ...]:
        """A note for each routine of the module the entry does not run that holds motions; ``(name, motions)``
        of each."""
        unrun = []
        for routine in self.routines:
            name = self._routine_name(routine)
            if name.lower() in self.visited:
                continue
            n_moves = len(self._motions_in(routine, _MOVING))
            if n_moves:
                self.notes.append(Finding(f"{routine.data.upper()} {name} is not run from the entry routine: its {n_moves} "
                                          "motion(s) are not followed (their texts stay as written; data they share "
                                          "with the routines run may be rewritten)", *_location(routine), self.file))
                unrun.append((name, n_moves))
        return tuple(unrun)

    # ----- statements
    def run_routine(self, routine: Tree, depth: int, local: dict[str, _Data] | None = None) -> None:
        local = {} if local is None else local
        body = _body(routine)
        handlers = next(c for c in routine.children if isinstance(c, Tree) and c.data == "handlers")
        for handler in handlers.children[1::2]:  # (an ERROR handler runs on an error known only while running:
            # what it assigns, the module's data or the routine's own, is changed from the routine's start)
            for key in self._in_written_order(self.summary(handler).assigns, handler):
                self.mark_changed(key, handler, local)
        self._routines_run.append(body)
        try:
            self.run_body(body, local, depth)
        finally:
            self._routines_run.pop()

    def run_late_call(self, statement: Tree, local: dict[str, _Data], depth: int) -> None:
        """``%"name"% args;``: the call of the routine named, where the name is known before running."""
        try:
            name, _ = self.evaluate_typed(statement.children[0], local)
        except _Unsupported:
            name = None
        if not (isinstance(name, str) and _RAPID_NAME.fullmatch(name)):
            raise _Unsupported("a late-bound call (%...%) whose routine is known only while running is not followed",
                               statement)
        where = statement.children[0]
        meta = where.meta if isinstance(where, Tree) else statement.meta
        token = Token("NAME", name, meta.start_pos, meta.line, meta.column, meta.end_line, meta.end_column,
                      meta.end_pos)
        self.run_call(Tree("call", [token, *statement.children[1:]], statement.meta), local, depth)

    def run_connect(self, statement: Tree, local: dict[str, _Data], depth: int) -> None:
        """``CONNECT intno WITH trap;``: the TRAP runs at times known only while running. One that moves the robot or
        changes how it moves is unsupported; what another assigns is known only while running from here on."""
        name = str(statement.children[-1])
        trap = self._trap(name.lower())
        if trap is None:
            raise _Unsupported(f"CONNECT: TRAP {name} is found in no module of this file", statement)
        found = self.summary(trap)
        if found.blocker is not None:
            raise _Unsupported(f"CONNECT (an interrupt) runs TRAP {name}, which holds {found.blocker}, at times known "
                               "only while running", statement)
        for key in self._in_written_order(found.assigns - found.local, trap):
            self.mark_changed(key, statement, local)
        self.visited.add(name.lower())
        self.notes.append(Finding(f"CONNECT: TRAP {name} moves nothing; what it assigns is known only while running "
                                  "from here on", *_location(statement), self.file))

    def run_label(self, statement: Tree, local: dict[str, _Data], depth: int) -> None:
        """A label (a ``GOTO`` target): what the routine may assign is known only while running from here on (a
        ``GOTO`` may arrive from anywhere); its statements are followed in written order."""
        routine = self._routines_run[-1] if self._routines_run else statement
        for key in self._in_written_order(self.summary(routine).assigns, routine):
            self.mark_changed(key, statement, local)
        note = Finding(f"label {statement.children[0]}: a GOTO target; the routine is followed in written order, "
                       "what it assigns known only while running after the label", *_location(statement), self.file)
        self.note_once(note)

    def work(self, statement: Tree, count: int = 1) -> None:
        """``count`` more statements run: past :attr:`max_statements` the module is refused naming ``statement``."""
        self.statements_run += count
        if self.statements_run > self.max_statements:
            raise self.error(f"reading runs more than {self.max_statements:,} statements ({MAX_STATEMENTS_RUN:,} and "
                             f"{STATEMENTS_PER_LINE} a line of the module; its FOR loops and routine calls unrolled, the "
                             "paths through its conditions joined): refused at this statement", statement)

    def run_body(self, body: Tree, local: dict[str, _Data], depth: int) -> None:
        for statement in body.children:
            self.work(statement)
            if (statement.data in _ENDS or (
                    statement.data == "call" and str(statement.children[0]).lower() == "exitcycle")):
                if statement.data == "placeholder":
                    self.note_once(Finding("placeholder <SMT>: running into it is an execution error; the statements "
                                           "after it in this routine never run", *_location(statement), self.file))
                break  # (RETURN, EXIT, RAISE, ExitCycle, <SMT>: the rest of this body never runs after it)
            try:
                if self.loops_forever(statement, body):
                    self.notes.append(Finding("WHILE TRUE: loop forever: one cycle is one pass of its body",
                                              *_location(statement), self.file))
                    self.cycle_start = len(self.steps)  # (the motions before it run once: passes.settle)
                    self._first_read, self._followed = {}, {}  # (what ran before it ran once: not a cycle's)
                    self._cycle_scope = local  # (the entry routine's data live on from pass to pass)
                    self._cycle_scopes[id(local)] = local
                    self.run_body(statement.children[1], local, depth)
                    continue
                self.run_statement(statement, local, depth)
            except _Unsupported as exc:
                if self._quiet:  # inside a routine that moves nothing: what it does cannot change a motion
                    note = Finding(f"{exc.message}; passed over: {self._quiet[-1]} moves nothing and changes nothing "
                                   "a motion reads (its time is not estimated)", *_location(exc.where), self.file)
                    self.note_once(note)
                else:
                    self.unsupported_at(exc.message, exc.where)
                self.note_skipped_motions(statement)
                for node in statement.iter_subtrees():  # what it may change is not known after it
                    self.record_change(node, local)

    def summary(self, node: Tree, calling: frozenset[str] = frozenset()) -> Summary:
        """What ``node`` (a routine, a statement or a body) may do (:class:`Summary`), found once a node; a routine
        called again while being summarised (``calling``) is recursion."""
        if id(node) not in self._summaries:
            if node.data in ("proc", "func", "trap"):
                calling |= {self._routine_name(node).lower()}
            self._summaries[id(node)] = (node, Summary(self, node, calling))  # (node kept: its id stays its)
        return self._summaries[id(node)][1]

    def _in_written_order(self, keys: set[str] | frozenset[str], node: Tree) -> list[str]:
        """``keys`` (data names, lower case) in the order ``node`` first names them, then by name (the messages' order
        must not follow a set's, which the hash seed decides)."""
        if id(node) not in self._written_order:
            first: dict[str, int] = {}
            for token in node.scan_values(lambda v: isinstance(v, Token) and v.type == "NAME"):
                first.setdefault(str(token).lower(), token.start_pos)
            self._written_order[id(node)] = (node, first)  # (node kept: its id stays its)
        first = self._written_order[id(node)][1]
        return sorted(keys, key=lambda key: (key not in first, first.get(key, 0), key))

    def _trap(self, key: str) -> Tree | None:
        """The TRAP of this module named ``key`` (lower case), else the task's other modules', or None."""
        return next((r for r in self.routines if r.data == "trap" and self._routine_name(r).lower() == key),
                    self.traps.get(key))

    def _at(self, node: Tree | Token, path: str) -> str:
        line = _location(node)[0]
        return f"line {line}" if not path or path == self.path else f"{path}, line {line}"

    def loops_forever(self, statement: Tree, body: Tree) -> bool:
        """``WHILE TRUE DO ... ENDWHILE`` as the last statement of the (last) entry routine: the production loop, whose
        every pass is one cycle. Anywhere else what follows it would never run: it stays unsupported."""
        return statement.data == "while_stmt" and body is self._cycle_body and statement is body.children[-1] \
            and getattr(statement.children[0], "data", None) == "name" \
            and str(statement.children[0].children[0]).lower() == "true"

    def _motions_in(self, node: Tree, names: frozenset[str]) -> list[tuple[str, int]]:
        """``(instruction, offset)`` of each call of ``names`` inside ``node`` (not ``node`` itself), then of each
        motion of its runs of plain motions."""
        found: list[tuple[str, int]] = []
        for sub in node.iter_subtrees():
            if sub.data == "call" and sub is not node and str(sub.children[0]).lower() in names:
                found.append((str(sub.children[0]), sub.children[0].start_pos))
            elif sub.data == "moves":
                token = sub.children[0]
                statements = self.move_matches(token)
                found += zip(statements.texts("instr"), (token.start_pos + statements.starts("instr")).tolist())
        return found

    def note_skipped_motions(self, statement: Tree) -> None:
        found = self._motions_in(statement, frozenset(MOTIONS))
        lines, columns = self.lines.lists([at for _, at in found])
        for (name, _), line, column in zip(found, lines, columns):
            self.notes.append(Finding(f"{name} inside an unsupported construct stays as written", line, column, self.file))

    def run_statement(self, statement: Tree, local: dict[str, _Data], depth: int) -> None:
        """Run one statement; one whose own expressions (not the bodies it holds) call a FUNC that moves the robot is
        refused naming the motion."""
        run = _RUNS.get(statement.data)
        if run is None:
            raise _Unsupported(f"{_CONSTRUCTS.get(statement.data, statement.data)} is not followed (its outcome or "
                               "count is not known before running)", statement)
        own = statement.children[:1] if statement.data == "compact_if" else statement.children  # (not its statement)
        heads = [sub for child in own if isinstance(child, Tree) and child.data != "body"
                 for sub in ([child] if child.data not in ("elseif", "test_case") else
                             [c for c in child.children if isinstance(c, Tree) and c.data != "body"])]
        moving = next((found for head in heads for sub in head.find_data("func_call") if (func := self.funcs.get(
            str(sub.children[0]).lower())) is not None and (found := self.summary(func).motion) is not None), None)
        if moving is not None:
            raise _Unsupported(f"{moving}: a motion inside a FUNC is not followed", statement)
        run(self, statement, local, depth)

    def run_moves_statement(self, statement: Tree, local: dict[str, _Data], depth: int) -> None:
        first = len(self.steps)
        self.run_tagged(lambda: self.run_moves(statement.children[0], local, depth))
        self.note_conf(self.steps[first:])

    def run_if(self, statement: Tree, local: dict[str, _Data], depth: int) -> None:
        """An ``IF`` or ``TEST`` runs the branch the file decides (:meth:`decided_branch`), else each (:meth:`run_unresolved`)."""
        branch = self.decided_branch(statement, local)
        if branch is None:
            self.run_unresolved(statement, local, depth)
        else:
            self.run_body(branch, local, depth)

    def run_tagged(self, run) -> None:
        """``run()`` (a motion statement, or a run of them), each motion it adds tagged with the data it read that a
        condition or loop not resolved before running gave their value (:meth:`check_paths`)."""
        if not self._branch_given:
            run()
            return
        outer, self._reading, first = self._reading, {}, len(self.steps)
        try:
            run()
        finally:
            reading, self._reading = self._reading, outer
        if outer is not None:
            outer.update(reading)
        if reading:
            for run in self.steps[first:]:
                if isinstance(run, MotionRun):
                    self._tags[id(run)] = (run, {**self._tags.get(id(run), (None, {}))[1], **reading})

    def check_paths(self) -> None:
        """A motion whose data a condition or loop not resolved before running gave their value, and which runs with
        other values on another path (another branch, or outside it), is one text for values known only while
        running: refused at its line naming the data and their assignments, its motions left as written."""
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
        refused: set[int] = set()
        for start, runs in found.items():
            if len({v for _, _, v, _ in runs}) < 2 or len({k for _, k, _, _ in runs}) < 2:
                continue  # (one value on every path; or one assignment's values, a FOR's passes: :meth:`run_for`)
            refused.add(start)
            motion = runs[0][0]
            given: dict[str, list[tuple[Tree, Tree]]] = {}
            for _, _, _, source in runs:
                for name, g in source.items():
                    if all(g[0] is not h[0] for h in given.get(name, [])):
                        given.setdefault(name, []).append(g)
            said = "; ".join(f"{self._data_name(name)} is given a value at " + " and at ".join(
                f"line {_location(a)[0]} (inside the {_CONSTRUCTS.get(c.data, c.data)} at line {_location(c)[0]})"
                for a, c in g) for name, g in given.items())
            self.unsupported_at(f"{motion.instruction} at line {motion.line} runs with a different "
                                f"{', '.join(self._data_name(n) for n in given)} on another path: {said}, conditions "
                                "known only while running; one written target cannot serve every path",
                                Token("NAME", motion.instruction, motion.statement.start, motion.statement.line,
                                      motion.statement.column))
            self.note_once(Finding(f"{motion.instruction} stays as written: its data differ from path to path",
                                   motion.statement.line, motion.statement.column, motion.file))
        if refused:
            refused_lines = {runs[0][0].line for start, runs in found.items() if start in refused}
            self.conditional = [line for line in self.conditional if line not in refused_lines]
            for note, (statement, lines) in self._conditional_notes.items():  # (they count compensated motions)
                left = [line for line in lines if line not in refused_lines]
                if len(left) < len(lines) and note in self.notes:
                    self.notes[self.notes.index(note)] = _unresolved_note(statement, left, note.file,
                                                                          len(lines) - len(left))
            kept: dict[int, MotionRun | None] = {}  # each run without its motions refused (once: a FOR's passes)
            for run in self.steps:
                if isinstance(run, MotionRun) and id(run) not in kept:
                    keep = ~np.isin(run.statement[:, 0], list(refused))
                    kept[id(run)] = cut = run if keep.all() else None if not keep.any() else run.take(np.flatnonzero(keep))
                    if cut is not None and cut is not run and id(run) in self._in_call:  # (its call kept)
                        self._in_call[id(cut)] = self._in_call[id(run)]
            steps = [kept.get(id(step), step) for step in self.steps]
            for old in {id(s) for s in self.steps} - {id(s) for s in steps}:
                self._in_call.pop(old, None)
            self.steps[:] = [step for step in steps if step is not None]

    def _data_name(self, key: str) -> str:
        data = self.module_data.get(key)
        return key if data is None else data.name

    def bind_arguments(self, routine: Tree, call_args: Tree | None, local: dict[str, _Data] | None,
                       statement: Tree | None = None) -> dict[str, _Data]:
        """The scope a call of ``routine`` starts with: each parameter bound to its argument (data named pass on,
        by reference; any other value is evaluated in the caller's scope; a switch or an optional parameter left out
        binds nothing). RAPID's own checks (number of arguments, optional names, types) are errors naming the call.
        ``local`` None: a call whose arguments are known only while running, every parameter without a value."""
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
        for key, (type_token, param_token) in [*((str(n[1]).lower(), n) for n in required), *optional_params.items()]:
            node, dtype = given.get(key), self.base_type(str(type_token).lower())
            value = None if node is None else self._argument(routine, dtype, param_token, node, local)
            scope[key] = value or _Data(dtype, None, None, str(param_token), param_token)
        self._scopes.append(scope)
        self._params[id(scope)] = set(scope)
        if local is not None:
            self._present[id(scope)] = {key for key in optional_params if key in optional}  # (Present(...))
        return scope

    def signature(self, routine: Tree) -> tuple[list[list[Token]], dict[str, list[Token]]]:
        """A routine's required parameters in written order and its optional ones by lower-case name, each as its
        type's and its name's tokens."""
        required, optional = [], {}
        text = self._files[self.routine_file(routine)][1]  # (the routine's file: the call's may be another)
        for param in self._params_of(routine):
            names = [c for c in param.children if isinstance(c, Token) and c.type == "NAME"]
            before = start = span_of(param).start  # (a backslash at its start or just before it: optional; so is
            while before > 0 and text[before - 1].isspace():  # an alternative after "|": \switch on | switch off)
                before -= 1
            if text[start] == "\\" or text[before - 1:before] in ("\\", "|"):
                optional[str(names[1]).lower()] = names
            else:
                required.append(names)
        return required, optional

    @staticmethod
    def _params_of(routine: Tree) -> list[Tree]:
        """The ``param`` nodes of a routine's declaration, in written order."""
        return next((c.children for c in routine.children if getattr(c, "data", None) == "params"), [])

    def _argument(self, routine: Tree, dtype: str, param: Token, node: Tree | Token, local: dict[str, _Data]
                  ) -> _Data:
        """The datum parameter ``param`` of ``routine`` is bound to by argument ``node``; a datum named, or a target
        written there, is recorded in :attr:`_passed` (with the routine's span in the task's offsets)."""
        at, span = self.routine_file(routine) << 40, span_of(routine)
        passed = span._replace(start=at + span.start, end=at + span.end), str(param).lower()
        if isinstance(node, Tree) and node.data == "name":
            data = self.lookup(node.children[0], local, unset=True)  # (a VAR without a value: read where used)
            self._passed[self.file_key + node.children[0].start_pos] = passed
            if data.type != dtype and self.fields_of(dtype) is not None:
                raise self.error(f"parameter {param} is a {dtype}, got {node.children[0]}, a {data.type}", node)
            return data
        value = self.evaluate_as(node, local, dtype) if self.fields_of(dtype) is not None else self.evaluate(node, local)
        if dtype in ("robtarget", "jointtarget") and isinstance(node, Tree) and node.data in ("aggregate", "numbers"):
            # a target written at the call site: written there when the routine reads the parameter only as motions'
            # points (:func:`.calls.direct_through_calls`, the literal's offset standing for a name passed on)
            self._passed[self.file_key + span_of(node).start] = passed
            return _Data(dtype, value, node, str(param), param, file=self.file)
        return _Data(dtype, value, None, str(param), param)

    def through_call_site(self, node: Tree | Token, local: dict[str, _Data], kind: str, T_world_frame: FloatArray,
                          T_flange_tcp: FloatArray, held: bool) -> Point | None:
        """The point of a motion's target ``Offs``/``RelTool`` (:data:`.calls.THROUGH`, nested) of a parameter bound
        to a target written at the call site: that target's text, the function's result as the pose, the whole
        expression as the argument (its ``(A, B)`` recorded in :attr:`_reads`); None for any other target."""
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
        T_in = _T_from_pose(data.value[:2])  # type: ignore[index]
        A = B = np.eye(4)
        for layer in reversed(layers):  # (the innermost first)
            T_out = _T_from_pose(self.evaluate_as(layer, local, "robtarget")[:2])  # type: ignore[index]
            A_f, B_f = calls.through(calls.THROUGH[str(layer.children[0]).lower()][0][1], T_in, T_out)
            A, B, T_in = A_f @ A, B @ B_f, T_out
        key = ((point.file << 40) + point.text.start, self.file_key + span_of(node).start)
        how = "through " + " of ".join(str(layer.children[0]) for layer in layers)
        if not calls.same_read(self._reads, key, (A, B, how)):
            return None  # (the function differs from pass to pass: the expression is the text, as any other)
        return dataclasses.replace(point, T_world_tcp=world_of_target(T_world_frame, T_in[None], held)[0],
                                   argument=span_of(node))

    def call_site_extra(self, steps: list[MotionRun | Wait]) -> dict:
        """:func:`.calls.call_site_extra` of the program's final ``steps`` (a call site's target stands in
        :attr:`_passed` at its offset); its note added to the notes."""
        return calls.call_site_extra(self.notes, steps, lambda run: np.stack([
            (run.text_file << 40) + run.text[:, 0], (run.file[run.row_of_points()] << 40) + run.argument[:, 0]],
            axis=1), set(self._passed), self._reads)

    def decided_branch(self, statement: Tree, local: dict[str, _Data]) -> Tree | None:
        """The body an ``IF`` or ``TEST`` runs when the file decides its conditions or its value and case values
        (:meth:`_decided_value`), the empty body when none runs; None when running decides."""
        bodies, exhaustive = self._bodies(statement)
        if statement.data == "test_stmt":  # (the first case holding a value equal to the TEST's)
            value = self._decided_value(statement.children[0], local)
            cases = [c.children[:-1] for c in statement.children[1:] if isinstance(c, Tree) and c.data == "test_case"]
            tests = [(value, case) for values in cases for case in values]
            body_of = [body for values, body in zip(cases, bodies) for _ in values]
        else:
            tests = [(True, statement.children[0]), *((True, c.children[0]) for c in statement.children[2:]
                                                      if isinstance(c, Tree) and c.data == "elseif")]
            body_of = bodies
        for (wanted, condition), body in zip(tests, body_of):
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
        """The value of condition ``node`` (:meth:`evaluate`) if the file decides it: only the routine's own data and
        data nothing in the task changes, all known, and the functions evaluated here; else None."""
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
            if bound is None and key in PREDEFINED and key not in self.module_data:
                continue  # (TRUE, FALSE, v100, tool0, ...)
            if bound is not None and bound is not self.module_data.get(bound.name.lower()):
                continue  # (the routine's own datum, a counter, or a parameter given a value)
            if key in self.task_changes[0] or key in self.assigned or key in self.persistent \
                    or (bound is None and key not in self.module_data):
                return None  # (it may change while running)
            if bound is not None and (bound.name.lower() in self.task_changes[1]
                                      or bound.name.lower() in self.assigned):
                return None  # (a parameter passed a datum of the task that is given a value while running)
        try:
            return self.evaluate(node, local)
        except _Unsupported:
            return None

    @functools.cached_property
    def task_changes(self) -> tuple[frozenset[str], frozenset[str]]:
        """The names of the data some statement of the task may change (assigned, ``Incr``, read into, passed whole
        to a routine, which may assign its parameter), and of those it gives a value (but the data only passed to a
        routine: what a parameter passed such a datum reads); from the summaries of the task's routines, once."""
        found = list(map(self.summary, [*self.routines, *self.procs.values(), *self.funcs.values()]))
        given = frozenset().union(*(f.assigns for f in found))
        return given.union(*(f.passed for f in found)), given

    def run_while(self, statement: Tree, local: dict[str, _Data], depth: int) -> None:
        """A ``WHILE`` whose condition the file decides false (:meth:`_decided_value`) runs nothing; any other is
        followed as a loop of count known only while running (:meth:`run_unresolved`)."""
        if self._decided_value(statement.children[0], local) is not False:
            self.run_unresolved(statement, local, depth)

    def run_unresolved(self, statement: Tree, local: dict[str, _Data], depth: int) -> None:
        """An ``IF``, ``TEST``, ``WHILE`` or ``FOR`` whose outcome or count is known only while running: each of its
        bodies is followed once, in the written order. What it may assign (its FOR counter too) is changed from its
        start until an assignment inside gives it a known value; each further branch starts, and the construct ends,
        where its paths join (:meth:`join`). A note names the motions compensated under it (each counted once in
        the timing); :meth:`check_paths` refuses a motion whose data differ by path."""
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
            for key in keys:  # (a loop's pass reads what the pass before left; a branch, what an earlier cycle left)
                self.mark_changed(key, statement, local)
            conf_before, first = dict(self.conf_on), len(self.steps)
            bodies, exhaustive = self._bodies(statement)
            scope = local
            if statement.data == "for_stmt":  # (its counter: declared by the loop, a value a pass)
                counter = statement.children[0]
                scope = {**local, str(counter).lower(): _Data("num", None, None, str(counter), counter)}
                self._scopes.append(scope)
            ends, start = [], before
            for k, body in enumerate(bodies):
                self.work(statement)  # (each path joined counts: a TEST of many empty cases in a long loop)
                if k:  # (where an earlier branch, or none, left an earlier cycle: the branch before's end joined
                    self.join(statement, [ends[-1], start])  # with where that one started)
                    start = self._snapshot(statement, names, local)
                self.run_body(body, scope, depth)
                ends.append(self._snapshot(statement, names, local))
            self.join(statement, ends if exhaustive else [*ends, before])
            for mode, on in conf_before.items():  # (ConfL \Off in one branch: its confdata kept, the safe side)
                self.conf_on[mode] = self.conf_on[mode] or on
            lines = [line for step in self.steps[first:] if isinstance(step, MotionRun)
                     for line in step.statement[:, 2].tolist()]
            self.conditional.extend(lines)
            note = _unresolved_note(statement, lines, self.file)
            self.note_once(note)
            if lines:  # (its count of motions is corrected by :meth:`check_paths` where some are refused)
                self._conditional_notes[note] = (statement, lines)
        finally:
            self._unresolved.pop()

    @staticmethod
    def _bodies(statement: Tree) -> tuple[list[Tree], bool]:
        """The bodies of an ``IF``, ``TEST``, ``WHILE`` or ``FOR`` in written order, and whether one of them always
        runs (an ``IF`` with an ``ELSE``, a ``TEST`` with a ``DEFAULT``: its last body)."""
        if statement.data == "compact_if":  # (one statement, no body)
            return [Tree("body", [statement.children[-1]])], False
        bodies = [next(b for b in child.children if isinstance(b, Tree) and b.data == "body")
                  if child.data in ("elseif", "test_case") else child for child in statement.children
                  if isinstance(child, Tree) and child.data in ("body", "elseif", "test_case")]
        last = statement.children[-1]
        return bodies, statement.data in ("if_stmt", "test_stmt") and isinstance(last, Tree) \
            and last.data == "body" and (statement.data == "test_stmt" or len(statement.children) > 2)

    def _snapshot(self, statement: Tree, names: list[str], local: dict[str, _Data]) -> dict[str, tuple]:
        """What the walk knows of each datum of ``names`` at an end of a path through ``statement`` (:meth:`join`): its
        scope entry, its run-time change, its followed assignment, the condition that gave it its value."""
        self.work(statement, len(names) // DATA_PER_STATEMENT)
        return {name: (local.get(name) if name in local else self.module_data.get(name), self.assigned.get(name),
                       self._followed.get(name), self._branch_given.get(name)) for name in names}

    def join(self, statement: Tree, paths: list[dict[str, tuple]]) -> None:
        """Where ``paths`` through an ``IF``, ``TEST``, ``WHILE`` or ``FOR`` not resolved before running meet (the
        :meth:`_snapshot` at the end of each): at the start of each further branch (the ends of the branches before
        it, which an earlier cycle may have run, and the state before it: a state machine's case reads what another
        case left), and after it (every body's end, and the state before it where it may run none). A datum every
        path that gives it a value leaves one known value keeps it (a path that leaves a ``VAR`` of a
        :data:`_ZERO_ORIENTATION` type without one reaches no read the controller runs); any other is changed at
        run time from here on, a later read naming the assignment inside (:meth:`lookup`)."""
        self.work(statement, len(paths) * len(paths[0]) // DATA_PER_STATEMENT)
        for name in paths[0]:
            ends = [path[name] for path in paths]
            states = [(data, assigned) for data, assigned, _, _ in ends]
            valued = [(data, assigned) for data, assigned in states
                      if assigned is not None or data is None or data.type not in _ZERO_ORIENTATION
                      or _complete(data.value)]
            known = [data.value if data is not None and assigned is None else None for data, assigned in valued or states]
            followed = [f for *_, f, _ in ends if f is not None]
            givens = [g for *_, g in ends if g is not None]
            self._zero_left.pop(name, None)
            self._branch_given.pop(name, None)
            if all(v is not None for v in known) and all(_same(v, known[0]) for v in known[1:]):
                if len(valued) < len(states):
                    self._zero_left[name] = statement
                if followed:
                    self._followed[name] = followed[0]
                if givens and len(self._unresolved) > 1:  # (inside an outer condition: still one of its)
                    self._branch_given[name] = (givens[0][0], self._unresolved[-2])
                continue
            inside = next((g[0] for g in givens if g[1] is statement), givens[0][0] if givens else None)
            if name not in self.assigned:
                self.assigned[name] = statement if inside is None else inside
                if inside is not None:
                    self._joined[name] = (inside, statement)
            if followed:  # (a value it gives is one it may give)
                self._followed[name] = (None, followed[0][1])

    def run_for(self, statement: Tree, local: dict[str, _Data], depth: int) -> None:
        """A FOR loop with constant bounds, unrolled (bounds known only while running: :meth:`run_unresolved`): each
        pass's motions are motions of their own; a target that changes with the counter needs per-pass texts
        (:func:`.passes.take`) or is refused. A body that neither reads the counter nor changes anything
        (:attr:`Summary.mutates`) is followed once and its steps repeated."""
        counter, body = statement.children[0], statement.children[-1]
        try:
            start, step, total = self.for_passes(statement, local)
        except _Unknown:  # (bounds known only while running)
            self.run_unresolved(statement, local, depth)
            return
        steps, statements = self.cost(body)
        if self.quiet_loop(body, total, statements):
            self.note_once(Finding(f"FOR of {total:,} passes moves nothing: not unrolled (more than "
                                   f"{MAX_QUIET_WORK:,} statements); followed once, what it assigns is known only "
                                   "while running after it", *_location(statement), self.file))
            self.run_unresolved(statement, local, depth)
            return
        count = total * max(steps, 1)
        if count > self.task.options.max_motions:  # (bounds known only here: a counter or a parameter)
            raise self.error(f"FOR with {total:,} passes unrolls to {count:,} steps: more than "
                             f"--max-motions {self.task.options.max_motions:,}", statement)
        first_step = len(self.steps)
        same = not any(str(t).lower() == str(counter).lower() for t in body.scan_values(
            lambda v: isinstance(v, Token) and v.type == "NAME")) and not self.summary(body).mutates
        for k in range(min(total, 1) if same else total):
            scope = dict(local)
            scope[str(counter).lower()] = _Data("num", start + k * step, None, str(counter), counter)
            self._scopes.append(scope)  # (alive: the evaluation cache and the tables below key it by id)
            for of_scopes in (self._params, self._present, self._cycle_scopes):  # (the routine's, as its scope's)
                if id(local) in of_scopes:
                    of_scopes[id(scope)] = scope if of_scopes is self._cycle_scopes else of_scopes[id(local)]
            self.run_body(body, scope, depth)
            local.update((key, scope[key]) for key in local if key != str(counter).lower())  # (the routine's data)
        if same:
            self.steps.extend(self.steps[first_step:] * max(total - 1, 0))
            return
        changing = calls.changing_motion(self.steps[first_step:])
        if changing is not None and not passes.take(self.steps[first_step:], self.per_pass, statement):
            for dropped in self.steps[first_step:]:  # (their ids may be reused by later steps)
                self._in_call.pop(id(dropped), None)
            del self.steps[first_step:]
            raise _Unsupported(f"{changing.instruction}'s target changes with the FOR counter {counter}: one "
                               "written target cannot serve every pass", statement)

    def check_per_pass(self) -> frozenset[tuple[int, int]]:
        """The per-pass texts the written program can hold (:func:`~thermocomp.programs.passes.settle`); the
        motions of the others dropped from the steps, unsupported at their line."""
        passes.take_calls(self.steps, self._in_call, self.per_pass)  # (a text the calls need differently: a table)
        if not self.per_pass:
            return frozenset()
        steps, taken, refused, notes = passes.settle(self.steps, self.per_pass, set(self.conditional), "FOR",
                                                     _location, getattr(self, "cycle_start", None))
        self.steps[:] = steps
        self.unsupported.extend(refused)
        for note in notes:
            self.note_once(note)
        return taken

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
        elif key in self.external:
            pass  # declared by the user: moves nothing, changes nothing a motion reads
        elif key in self.procs and id(self.procs[key]) in self.origin and self._passed_over(key, statement):
            pass  # a routine of another module that moves nothing: what it changes is recorded
        elif key == "waittime":
            if len(positional) != 1:
                raise self.error("WaitTime: expected one time [s]", statement)
            seconds = self._number(positional[0], local)
            if seconds < 0:
                raise self.error(f"WaitTime: expected a time >= 0 s, got {seconds:g}", statement)
            self.steps.append(Wait(seconds, span_of(statement)))
        elif key == "velset":
            if len(positional) != 2:
                raise self.error("VelSet: expected Override [%] and Max [mm/s]", statement)
            self.velset = (self._number(positional[0], local), self._number(positional[1], local))
        elif key in self.procs:
            self._run_proc(name, key, statement, call_args, local, depth)
        elif key in UNSUPPORTED_INSTRUCTIONS:
            raise _Unsupported(f"{name} is not followed (it moves the robot or changes the frame of its motions in "
                               "a way known only while running)", statement)
        elif key in SIGNAL_WAITS:
            self.record_change(statement, local)  # (WaitDI ... \\TimeFlag:=timeout)
            self.notes.append(Finding(f"{name} waits for a signal: the timing counts no wait", *_location(statement),
                                      self.file))
        elif key in PASSIVE_INSTRUCTIONS:
            self.record_change(statement, local)
        elif key in self.funcs:
            func = self.funcs[key]
            raise self.error(f"{name} is a FUNC ({self._at(func, self.origin.get(id(func), ''))}); a FUNC cannot be "
                             f"called as a procedure (its value is used in an expression: x := {name}(...);)", statement)
        else:
            raise _Unsupported(f"{name} is no instruction thermocomp knows and a routine {_NOT_FOUND.format(name=name)}",
                               statement)

    def _passed_over(self, key: str, statement: Tree) -> bool:
        """Whether the call ``statement`` of ``key``, a routine of another module of the task, is passed over: it
        moves nothing and changes nothing how motions run (what it assigns is recorded as changed at the call).
        A routine that moves is run like the program's own (:meth:`_run_proc`), in its module's file."""
        found = self.summary(self.procs[key])
        if found.blocker is not None:
            return False
        for changed_key in self._in_written_order(found.changed, self.procs[key]):
            self.assigned.setdefault(changed_key, statement)
        return True

    def _run_proc(self, name: str, key: str, statement: Tree, call_args, local: dict[str, _Data], depth: int) -> None:
        """A call of the task's PROC ``name``: its arguments bound here, its body run in its own module's file. A
        routine without parameters that calls itself (``main;`` restarting the cycle) is followed once more and
        not deeper: two passes show whether its motions' data differ from pass to pass (:meth:`check_paths`)."""
        if depth > 32:
            raise _Unsupported(f"calls nested more than 32 deep (recursion?) at {name}", statement)
        routine = self.procs[key]
        body = _body(routine)
        if sum(b is body for b in self._routines_run) >= 2 and not any(routine.find_data("param")):
            self.note_once(Finding(f"{name} calls itself again (recursion): followed twice on this path, not deeper",
                                   *_location(statement), self.file))
            return
        found = self.summary(routine)  # (moves nothing, changes nothing a motion reads: its conditions and loops that
        quiet = found.blocker is None and not found.changed  # cannot be followed are passed over with a note)
        read_before = set(self._first_read)
        try:
            scope = self.bind_arguments(routine, call_args, local, statement)
        except _Unsupported:
            if not quiet:
                raise
            scope = self.bind_arguments(routine, None, None)  # (arguments known only while running: nothing moves)
        self.visited.add(key)
        first = len(self.steps)
        self._quiet += [name] if quiet else []
        try:
            with self.in_file(self.routine_file(routine)):
                self.run_routine(routine, depth + 1, scope)
        finally:
            del self._quiet[len(self._quiet) - quiet:]
        if quiet:  # (what a routine that moves nothing reads cannot make a motion differ next cycle)
            for read in set(self._first_read) - read_before:
                del self._first_read[read]
        if scope:
            for step in self.steps[first:]:  # the outermost call with arguments is the one named
                self._in_call[id(step)] = (name, span_of(statement), self.file)


#: How each statement is followed (:meth:`_Flow.run_statement`); a ``GOTO`` in written order (its labels make what
#: the routine assigns unknown, :meth:`_Flow.run_label`); any other is unsupported.
_RUNS = {
    "data_decl": lambda flow, statement, local, depth: flow.declare(statement, local),
    "assign": lambda flow, statement, local, depth: flow.assign(statement, local),
    "call": _Flow.run_call, "moves": _Flow.run_moves_statement, "label": _Flow.run_label,
    "late_call": _Flow.run_late_call, "connect_stmt": _Flow.run_connect, "goto_stmt": lambda *_: None,
    "for_stmt": _Flow.run_for, "if_stmt": _Flow.run_if, "compact_if": _Flow.run_if,
    "while_stmt": _Flow.run_while, "test_stmt": _Flow.run_if,
}
