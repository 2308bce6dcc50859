"""Read a robot program by its extension (RAPID or URScript, :func:`read_program`), and refuse what cannot be
compensated as read (:func:`read_checked`). docs/programs.md.
"""

from __future__ import annotations

import sys
import traceback
from pathlib import Path

import numpy as np
from lark import Token, Tree

from thermocomp._typing import PathLike
from thermocomp.compensation.compensate import ProgressCallback
from thermocomp.errors import ConfigurationError, InputError
from thermocomp.io.files import check_file_name
from thermocomp.programs import passes
from thermocomp.programs.grammars import TooManyTokens
from thermocomp.programs.model import _KIND_CODE, CIRCULAR, RobotProgram
from thermocomp.programs.options import ProgramOptions
from thermocomp.programs.rapid import MOTIONS, RAPID_SUFFIXES, RapidOptions, read_rapid

#: File extensions read as URScript.
URSCRIPT_SUFFIXES = (".script", ".urscript")


def read_program(path: PathLike, progress: ProgressCallback | None = None,
                 rapid: RapidOptions | None = None) -> RobotProgram:
    """Read a RAPID (``.mod``, ``.modx``, ``.prg``, ``.sys``, ``.sysx``) or URScript (``.script``, ``.urscript``) file.

    ``progress(motions, None)`` hears of a long RAPID module's motions; ``rapid``: the task's other modules and
    entry routine (:class:`~thermocomp.programs.rapid.RapidOptions`).
    """
    language = language_of(path, flag=None)
    rapid = RapidOptions() if rapid is None else rapid
    for name, option in ((path, ""), *((m, "--module") for m in rapid.modules)):
        check_file_name(name, option)
    if language == "rapid" and rapid.modules:
        _check_modules(path, rapid.modules)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(_depth() + READ_FRAMES)  # (the same levels of nesting whoever calls)
    try:
        if language == "rapid":
            return read_rapid(path, progress, rapid)
        from thermocomp.programs.urscript import read_urscript

        return read_urscript(path, rapid.max_motions, rapid.modules, rapid.entry)
    except TooManyTokens as exc:  # (a run's statements that the general rules read: in the walker's file)
        raise exc.error(getattr(_walker_of(exc), "path", str(path))) from None
    except RecursionError as exc:  # (the readers follow nesting recursively)
        file, line, column = _innermost_place(exc, str(path))
        raise InputError("an expression or a value nested too deeply to follow (the readers follow some 160 to 430 "
                         "levels of calls, brackets or blocks, by construct: docs/programs.md; it gave up here)",
                         path=file, row=line, column=column) from None
    finally:
        sys.setrecursionlimit(limit)


#: The Python frames the readers may use below :func:`read_program`: the levels of nesting they follow are then
#: the same however deep the caller's own stack.
READ_FRAMES = 1000


def _depth() -> int:
    """The frames of the calling thread's stack."""
    frame, depth = sys._getframe(), 0
    while frame is not None:
        frame, depth = frame.f_back, depth + 1
    return depth


def _check_modules(program: PathLike, modules: tuple[str, ...]) -> None:
    """Refuse a ``--module`` that is no RAPID file by its extension, the program itself, or a module given twice,
    naming the option as typed."""
    from thermocomp.io.job import file_identity

    def keys(path: PathLike) -> list[object]:
        return [key for key in file_identity(path) if key is not None]

    program_label = f"--program {program}"
    given = dict.fromkeys(keys(program), program_label)
    for module in modules:
        if Path(module).suffix.lower() not in RAPID_SUFFIXES:
            raise InputError(f"--module: expected a RAPID module ending in {', '.join(RAPID_SUFFIXES)}, got "
                             f"{Path(module).name!r}", path=str(module))
        found = keys(module)
        earlier = next((given[key] for key in found if key in given), None)
        if earlier == program_label:
            raise ConfigurationError(f"--module {module}: the program itself ({earlier}); a module of the task is "
                                     "another of its files")
        if earlier is not None:
            raise ConfigurationError(f"--module {module}: the same file as {earlier}; give each module once")
        given.update(dict.fromkeys(found, f"--module {module}"))


def _innermost_place(exc: RecursionError, path: str) -> tuple[str, int | None, int | None]:
    """The file, line and column of the innermost lark tree (else token) among the locals of ``exc``'s frames, or
    ``path`` alone."""
    trees: list[Tree] = []
    tokens: list[Token] = []
    for frame, _ in traceback.walk_tb(exc.__traceback__):  # outermost to innermost
        for value in frame.f_locals.values():
            if isinstance(value, Tree) and not value.meta.empty:
                trees.append(value)
            elif isinstance(value, Token) and value.line is not None:
                tokens.append(value)
    found = [(t, t.meta.line, t.meta.column) for t in reversed(trees)] or [(t, t.line, t.column)
                                                                         for t in reversed(tokens)]
    if not found:
        return path, None, None
    for module in getattr(getattr(_walker_of(exc), "task", None), "modules", ()):  # (a RAPID task's other module)
        nodes = {id(n) for t in module.tree.iter_subtrees() for n in (t, *t.children)}
        for node, line, column in found:
            if id(node) in nodes:
                return module.path, line, column
    return path, found[0][1], found[0][2]


def _walker_of(exc: BaseException) -> object:
    """The ``self`` of the first frame of ``exc``'s traceback that has one (the reader's walker), or ``None``."""
    return next((frame.f_locals["self"] for frame, _ in traceback.walk_tb(exc.__traceback__)
                 if "self" in frame.f_locals), None)


def suffixes_of(language: str) -> tuple[str, ...]:
    return RAPID_SUFFIXES if language == "rapid" else URSCRIPT_SUFFIXES


def language_of(path: PathLike, flag: str | None = "--program") -> str:
    """``"rapid"`` or ``"urscript"`` from the program's extension (any other is refused, naming ``flag``)."""
    suffix = Path(path).suffix.lower()
    if suffix not in RAPID_SUFFIXES + URSCRIPT_SUFFIXES:
        raise InputError(f"{flag + ': ' if flag else ''}expected a robot program ending in "
                         f"{', '.join(RAPID_SUFFIXES + URSCRIPT_SUFFIXES)}, got {Path(path).name!r}", path=str(path))
    return "rapid" if suffix in RAPID_SUFFIXES else "urscript"


def read_checked(program: PathLike, popts: ProgramOptions, bar: ProgressCallback | None) -> RobotProgram:
    """The program as read, refused when it has an unsupported construct and ``popts`` refuses them, when it runs
    no motion, or when its motions have no joints form and ``popts`` asks for it."""
    prog = read_program(program, bar, popts.rapid)
    if prog.unsupported and popts.unsupported == "refuse":
        listed = "\n".join("  " + prog.where(f) for f in prog.unsupported)
        first = prog.unsupported[0]
        raise InputError(f"{len(prog.unsupported)} construct(s) cannot be followed exactly:\n{listed}\n"
                         "Nothing was written. Rerun with --unsupported keep to leave them as written "
                         "(their motions are then not compensated).", path=prog.files[first.file][0], row=first.line,
                         column=first.column)
    if not len(prog.run.text) and prog.extra.get("unrun"):  # (named where the first such routine is)
        unrun = prog.extra["unrun"]
        listed = "; ".join(f"{name} (line {line}): {n} motions, not called from {' and '.join(prog.entry) or 'the entry'}"
                           f"; rerun with --entry {name}" for name, n, line, _ in unrun)
        raise InputError(f"no motion to compensate was found: {' and '.join(prog.entry) or 'the entry routine'} "
                         f"runs none; {listed}", path=prog.path, row=unrun[0][2], column=unrun[0][3])
    if not len(prog.run.text) and prog.extra.get("nowhere"):  # (a call passed over is what the cycle does)
        found = prog.extra["nowhere"]
        names = ", ".join(dict.fromkeys(f"{name} (line {line})" for name, _, line, _ in found))
        where = ("give its module with --module FILE" if prog.language == "rapid" else
                 "the script with the preamble that defines it is the one to compensate")
        raise InputError(f"no motion to compensate was found: {' and '.join(prog.entry)} runs none of the files "
                         f"given, and it calls {names}, found in none of them: the cycle's motions, if any, are "
                         f"there, not followed ({where})", path=prog.files[found[0][1]][0], row=found[0][2],
                         column=found[0][3])
    _check_form(prog, popts.output, popts.indexed_minutes is not None)
    return prog


def _check_form(prog: RobotProgram, output: str, indexed: bool) -> None:
    """Refuse what the ``output`` form cannot write, naming its line: in the joints form (``--program-output joints``)
    a motion that has none (RAPID process instructions, URScript ``movec``); in it or a time-indexed program a target
    written as a per-pass table (:func:`.passes.groups`)."""
    run, rapid = prog.run, prog.language == "rapid"
    if output == "joints":
        bad = ([i for i, name in enumerate(run.instruction) if name.lower() not in MOTIONS] if rapid
               else np.flatnonzero(run.kind == _KIND_CODE[CIRCULAR]).tolist())
        if bad:
            i, why = bad[0], " (its process arguments belong to a Cartesian move)" * rapid
            raise InputError(f"{run.instruction[i]} has no joint form{why}: --program-output joints cannot write it (use "
                             "--program-output filtered)", path=prog.path, row=int(run.statement[i, 2]),
                             column=int(run.statement[i, 3]) if rapid else None)
    found = passes.groups(prog) if output == "joints" or indexed else {}
    if found:
        first = min(int(idx[0]) for idx in found.values())
        row, path = int(run.argument[first, 2]), prog.files[int(run.file[run.row_of_points()[first]])][0]
        form = "--time-indexed" if indexed else "--program-output joints"
        raise InputError(f"the motion target at line {row} differs from pass to pass of its loop or from call to call: "
                         f"it is written as a table of corrected targets, which {form} does not write (use "
                         "--program-output filtered with a snapshot or --timed)", path=path, row=row)
