"""Read an ABB RAPID module: its motions in the order the controller runs them, with their source spans.

The text is parsed by lark (``rapid.lark``: runs of plain motion statements are one ``MOVES`` token each) and walked
from the entry routine by :class:`_Walker`, whose parts are mixed in: data and expressions (:mod:`.rapid_data`),
control flow, routines and calls (:mod:`.rapid_flow`), motions (:mod:`.rapid_motions`). What
cannot be followed exactly is an *unsupported* finding with its line and column (docs/programs.md).

Units: RAPID writes mm, degrees and quaternions ``[q1, q2, q3, q4] = (w, x, y, z)``; everything returned is SI
(docs/conventions.md).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from lark import Lark, Token, Tree

from thermocomp._gc import paused
from thermocomp._typing import PathLike
from thermocomp.errors import ConfigurationError
from thermocomp.io.files import read_program_bytes
from thermocomp.programs import rapid_scope
from thermocomp.programs.grammars import code_lines, lalr_parser, parse_program, span_of
from thermocomp.programs.model import (
    MAX_MOTIONS,
    Finding,
    RobotProgram,
    TextLines,
)
from thermocomp.programs.rapid_data import _Data, _Declarations, _FuncRun, _Mark
from thermocomp.programs.rapid_flow import _RAPID_NAME, _Flow
from thermocomp.programs.rapid_motions import (
    MOTIONS,
    MOVES_PATTERN,
    MoveStatements,
    _Motions,
    transforms_from_poses,
)

#: File extensions read as RAPID (RobotWare 7 saves program modules as ``.modx``, system modules as ``.sysx``).
RAPID_SUFFIXES = (".mod", ".modx", ".prg", ".sys", ".sysx")


@dataclass(frozen=True)
class RapidOptions:
    """How a RAPID task is read: its other modules, its entry routine, a size bound.

    Parameters
    ----------
    modules
        The task's other modules (``CalibData.mod``'s tooldata and wobjdata, a gripper library's PROCs): their
        declarations are read and their routines checked where the program calls them. Nothing in them is written.
    entry
        The routine one cycle runs (``main``; RobotStudio's exports often hold only ``Path_10``).
    max_motions
        Most motions and waits the entry routine may unroll to (FOR loops and calls, counted before
        anything is followed): a module past it is refused with its count.
    """

    modules: tuple[str, ...] = ()
    entry: str = "main"
    max_motions: int = MAX_MOTIONS

    def __post_init__(self) -> None:
        object.__setattr__(self, "modules", tuple(str(m) for m in self.modules))
        if not (isinstance(self.entry, str) and _RAPID_NAME.fullmatch(self.entry)):
            raise ConfigurationError("--entry: expected a routine name (a RAPID PROC's or a URScript def's: a letter, "
                                     f"then letters, digits or _), got {self.entry!r}")
        if isinstance(self.max_motions, bool) or not isinstance(self.max_motions, int) or self.max_motions < 1:
            raise ConfigurationError(f"--max-motions: expected a whole number >= 1, got {self.max_motions!r}")


@functools.lru_cache(maxsize=1)
def rapid_parser() -> Lark:
    """The RAPID parser (LALR, grammar ``rapid.lark`` kept in the package), built once per process."""
    return lalr_parser("rapid.lark", {"MOVES_PATTERN": MOVES_PATTERN}, propagate_positions=True, maybe_placeholders=False)


def parse_rapid_text(text: str, path: str) -> Tree:
    """Parse ``text`` (a whole module) into lark's tree; a syntax error names line and column."""
    return parse_program(rapid_parser(), text, path, "RAPID", _BLOCKS, _BLOCK_ENDS)


#: The keywords that open a RAPID block (True: its name follows) and those that close one: a file cut off inside
#: one is told which.
_BLOCKS = {"MODULE": True, "PROC": True, "FUNC": False, "TRAP": True, "RECORD": True, "IF": False, "WHILE": False,
           "FOR": False, "TEST": False}
_BLOCK_ENDS = frozenset(f"END{kind}" for kind in _BLOCKS)


def read_rapid(path: PathLike, progress: Callable[[int, int | None], None] | None = None,
               options: RapidOptions | None = None) -> RobotProgram:
    """Read a RAPID module file (``.mod``, ``.modx``, ``.prg``, ``.sys``, ``.sysx``), with the task's other modules,
    entry routine of ``options``.

    Returns
    -------
    RobotProgram
        One cycle of the entry routine's motions and waits, with spans; the
        constructs that cannot be followed are in ``unsupported``.

    Raises
    ------
    InputError
        A syntax error or invalid data (a robtarget of the wrong shape, a
        quaternion that is not unit), naming the file, line and column.
    """
    data = read_program_bytes(path, "RAPID module")
    return rapid_program_from_text(data.decode("latin-1"), str(path), progress=progress, options=options)


def rapid_program_from_text(text: str, path: str = "<text>",
                            progress: Callable[[int, int | None], None] | None = None,
                            options: RapidOptions | None = None) -> RobotProgram:
    """:func:`read_rapid` on the text of a module (decoded as ISO-8859-1).

    ``progress(motions, None)`` hears of the motions followed, every few thousand.
    """
    options = RapidOptions() if options is None else options
    modules = tuple(_other_module(m) for m in options.modules)
    with paused():  # a long program is a million objects that all stay alive (thermocomp._gc)
        tree = parse_rapid_text(text, path)
        rapid_scope.check_module_names([(tree, path), *((m.tree, m.path) for m in modules)])
        task = _Task(options, modules)
        first = _Walker(text, path, progress, task, {}, False)
        program = first.run(tree)
        if not first.carried:
            return program
        looped = first.cycle_looped  # (a datum a cycle leaves another value than it read: the next cycle from it)
        again = _Walker(text, path, progress, task, first.carried, looped)
        second = again.run(tree)
        if not again.carried and _same_points(program, second):  # (every cycle from the second on is the first)
            return second
        carried = {key: (None, statement) for key, (_, statement) in {**first.carried, **again.carried}.items()}
        for _ in range(MAX_CARRIED_RERUNS):  # (data given from carried ones are carried too: the next run)
            walker = _Walker(text, path, progress, task, carried, looped)
            program = walker.run(tree)
            if not walker.carried:
                break
            carried |= {key: (None, statement) for key, (_, statement) in walker.carried.items()}
        return program


def _same_points(a: RobotProgram, b: RobotProgram) -> bool:
    """Whether two readings of one module move through the same points: texts, poses (a joint target's joints),
    frames and tools."""
    pa, pb = a.points, b.points
    return len(pa) == len(pb) and all(
        (p.text.start, p.text.end, p.file, p.confdata) == (q.text.start, q.text.end, q.file, q.confdata)
        and all(_same_array(getattr(p, f), getattr(q, f)) for f in ("T_world_tcp", "T_world_frame", "T_flange_tcp", "q"))
        for p, q in zip(pa, pb))


def _same_array(x: np.ndarray | None, y: np.ndarray | None) -> bool:
    """Both absent, or both of one shape and equal within 1e-12."""
    if x is None or y is None:
        return x is y
    return x.shape == y.shape and np.allclose(x, y, rtol=0, atol=1e-12)


#: How many times a module is followed with more data carried from cycle to cycle changed at run time
#: (``count := count + 1`` read first: one; ``reg := count MOD 16`` read before it too: two); past it they are refused.
MAX_CARRIED_RERUNS = 3


@dataclass(frozen=True)
class _Module:
    """Another module of the task, as read: its file, text and tree."""

    path: str
    text: str
    tree: Tree


@dataclass(frozen=True)
class _Task:
    options: RapidOptions
    modules: tuple[_Module, ...]


def _other_module(path: str) -> _Module:
    data = read_program_bytes(path, "RAPID module (--module)")
    text = data.decode("latin-1")
    return _Module(str(path), text, parse_rapid_text(text, str(path)))


class _Walker(_Flow, _Motions, _Declarations):
    """Follows a module's entry routine statement by statement."""

    def __init__(self, text: str, path: str, progress: Callable[[int, int | None], None] | None, task: _Task,
                 carried: dict[str, tuple[object, Tree]], carried_in_loop: bool) -> None:
        self.task = task
        #: Data a cycle reads before giving them another value: the value a cycle leaves (None: not known), the
        #: statement that gives it; those given at the cycle's start (:meth:`carry_into_cycle`), those found
        #: (:meth:`check_cycles`).
        self.carried_in, self.carried = carried, {}
        self.carried_in_loop = carried_in_loop  # whether the cycle is a WHILE TRUE's pass (else an entry's run)
        self.cycle_looped = False  # whether a WHILE TRUE production loop was met
        self._late_nowhere: dict[str, tuple[int, Tree]] = {}  # a routine found nowhere a late call ran: first call
        self.conf_free: dict[int, bool] = {}  # a motion statement's offset: whether every run of it had Conf \Off
        self.conf_on = {"linear": True, "joint": True}  # ConfL, ConfJ
        self.start_work(text, path, sum(code_lines(t, "!") for t in (text, *(m.text for m in task.modules))))
        self.file = 0  # the file being followed: 0 the program, i the task's module i (:meth:`_Flow.in_file`)
        self.file_key = 0  # ``file << 40``: added to an offset, a key unique in the task (direct_refs)
        self._files = [(path, text, self.lines), *((m.path, m.text, TextLines(m.text)) for m in self.task.modules)]
        self.progress = progress
        # module_data, procs, funcs, traps: the data and routines the module being read sees (_Flow.enter_module)
        self.records: dict[str, tuple[tuple[str, str], ...]] = {}  # RECORD types of the task: their components
        self.aliases: dict[str, str] = {}  # ALIAS types of the task: the type each names
        self._funcs_run: list[_FuncRun] = []  # the FUNCs being evaluated, innermost last
        self._present: dict[int, set[str]] = {}  # id of a call's scope -> the optional parameters it was given
        self.outside: set[str] = set()  # data last given a value read from a PERS the cycle did not set (decides no IF)
        self.storages: dict[str, set[str]] = {}  # each name declared: its storages ("const", "var", "pers")
        self.routines: list[Tree] = []  # the program's routines (file 0), in written order
        self.stand_from = 0  # the first step a motion where the robot stands may be (_Motions.standing_value)
        self.path_cut: str | None = None  # a TRAP connected that may cut a motion short (ClearPath): where it came
        self.stood: dict[int, tuple[_Data, Tree]] = {}  # id of a datum computed from where the robot stands: it, where
        self._stood_reads = 0  # reads of where the robot stands so far (and of data computed from it)
        self.stand_why: dict[int, tuple[Tree, str]] = {}  # id of an assignment of where it stands or of a FUNC whose
        # paths differ, not known: why
        self.marks: dict[str, _Mark] = {}  # the path's marks of the data it changed or gave (:class:`_Mark`)
        self._seen: set[Finding] = set()  # the findings and notes given once (:meth:`note_once`)
        self._written_order: dict[int, tuple] = {}  # id of a node -> (it, where it first names each datum)
        self._unresolved: list[Tree] = []  # the constructs not resolved being followed, innermost last
        # the bodies of the routines being run, innermost last, and what their calls bound (:meth:`_Flow._arguments`)
        self._routines_run: list[tuple[Tree, tuple[str, ...] | None]] = []
        self.conditional: list[int] = []  # lines of the motions followed under conditions not resolved
        self.visited: dict[int, Tree] = {}  # the routines run (entry, calls, connected TRAPs), by id
        self.velset = (100.0, float("inf"))  # VelSet override [%], max TCP speed [mm/s]
        self._cache: dict = {}
        self._scopes: list[dict[str, _Data]] = []  # every call's scope stays alive: the cache keys them by id
        self.call_runs: dict[int, tuple] = {}  # id of such a call -> it, where its index is set, its FOR counters
        self._quiet: list[str] = []  # the routines being run that move nothing (:meth:`_Flow._run_proc`)
        self._params: dict[int, set[str]] = {}  # id of a call's scope -> its parameters' keys
        self._by_reference: dict[int, frozenset[str]] = {}  # the same -> its INOUT, VAR and PERS parameters' keys
        self._first_read: dict[str, tuple[object, Token]] = {}  # data read before any followed assignment to it
        self._matches: dict[int, tuple[Token, MoveStatements]] = {}  # id of each MOVES token -> it, its statements
        self._run_count = 0  # motions of runs followed (for progress)


__all__ = ["MOTIONS", "RAPID_SUFFIXES", "RapidOptions", "parse_rapid_text", "rapid_parser", "rapid_program_from_text",
           "read_rapid", "span_of", "transforms_from_poses"]
