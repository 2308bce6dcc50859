"""Read a robot program by its extension (RAPID or URScript), and refuse what cannot be compensated as read.

:func:`read_program` gives the :class:`~thermocomp.programs.model.RobotProgram`;
:func:`read_checked` also refuses a program with an unsupported construct (unless kept), with no motion,
or with motions that have no joints form when that form is asked for. docs/programs.md.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from thermocomp._typing import PathLike
from thermocomp.compensation.compensate import ProgressCallback
from thermocomp.errors import InputError
from thermocomp.programs import passes
from thermocomp.programs.model import _KIND_CODE, CIRCULAR, RobotProgram
from thermocomp.programs.options import ProgramOptions
from thermocomp.programs.rapid import RAPID_SUFFIXES, RapidOptions

#: File extensions read as URScript.
URSCRIPT_SUFFIXES = (".script", ".urscript")


def read_program(path: PathLike, progress: ProgressCallback | None = None,
                 rapid: RapidOptions | None = None) -> RobotProgram:
    """Read a RAPID (``.mod``, ``.modx``, ``.prg``, ``.sys``) or URScript (``.script``, ``.urscript``) file.

    ``progress(motions, None)`` hears of a long RAPID module's motions as they are followed; ``rapid``: the
    task's other modules, entry routine, external routines (:class:`~thermocomp.programs.rapid.RapidOptions`).
    """
    from thermocomp.programs.rapid import read_rapid

    language = language_of(path, flag=None)
    try:
        if language == "rapid":
            return read_rapid(path, progress, rapid)
        from thermocomp.programs.urscript import read_urscript

        options = RapidOptions() if rapid is None else rapid
        return read_urscript(path, options.max_motions, options.modules, options.entry)
    except RecursionError:  # the readers evaluate nested expressions recursively: Offs(Offs(...)) 2000 deep
        raise InputError("an expression or a value nested too deeply to follow (thousands of levels of "
                         "brackets or calls)", path=str(path)) from None


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
    """The program as read, refused (nothing written) when it has an unsupported construct and ``popts`` refuses
    them, when it runs no motion, or when its motions have no joints form and ``popts`` asks for it."""
    prog = read_program(program, bar, popts.rapid)
    if prog.unsupported and popts.unsupported == "refuse":
        listed = "\n".join("  " + prog.where(f) for f in prog.unsupported)
        first = prog.unsupported[0]
        raise InputError(f"{len(prog.unsupported)} construct(s) cannot be followed exactly:\n{listed}\n"
                         "Nothing was written. Rerun with --unsupported keep to leave them as written "
                         "(their motions are then not compensated).", path=prog.files[first.file][0], row=first.line,
                         column=first.column)
    if not len(prog.columns.run.text) and prog.extra.get("unrun"):
        unrun = "; ".join(f"{name}: {n} motions, not called from {' and '.join(prog.entry) or 'the entry'}; rerun "
                          f"with --entry {name}" for name, n in prog.extra.get("unrun", ()))
        raise InputError(f"no motion to compensate was found: {' and '.join(prog.entry) or 'the entry routine'} "
                         f"runs none{'; ' + unrun if unrun else ''}", path=prog.path)
    if popts.output == "joints":
        check_joints_form(prog)
    passes.check_form(prog, popts.output, popts.indexed_minutes is not None)
    return prog


def check_joints_form(prog: RobotProgram) -> None:
    """Refuse a program with a motion that has no joints form (RAPID process instructions, URScript ``movec``) when
    that form is asked for (``--program-output joints``), naming the motion's file, line and column."""
    if prog.language == "rapid":
        from thermocomp.programs.rapid import MOTIONS

        run = prog.columns.run
        process = [i for i, name in enumerate(run.instruction) if name.lower() not in MOTIONS]
        if process:
            i = process[0]
            raise InputError(f"{run.instruction[i]} has no joint form (its process arguments belong to a "
                             "Cartesian move): --program-output joints cannot write it (use --program-output "
                             "filtered)", path=prog.path, row=int(run.statement[i, 2]),
                             column=int(run.statement[i, 3]))
    if prog.language == "urscript":
        bad = np.flatnonzero(prog.columns.run.kind == _KIND_CODE[CIRCULAR])
        if bad.size:
            raise InputError("movec has no joint form: --program-output joints cannot write it "
                             "(use --program-output filtered)", path=prog.path,
                             row=int(prog.columns.run.statement[bad[0], 2]))
