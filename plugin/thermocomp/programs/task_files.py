"""A RAPID task's files written together: :func:`task_view` is the program as one text (its files joined by
:data:`SEPARATOR`, every span moved by its file's offset), which the writers edit, and :func:`split` cuts the
written text back into the files (``None`` for a module unchanged).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from thermocomp.errors import InputError
from thermocomp.programs.model import RobotProgram, Span

#: What joins the task's files into one text: no RAPID file holds a NUL character, so no span can reach it.
SEPARATOR = "\x00thermocomp: next file of the task\x00"


def spans_other_files(prog: RobotProgram) -> bool:
    """Whether a motion or a target of ``prog`` lies in a file other than the program's own."""
    run = prog.columns.run
    return bool(prog.modules) and bool(run.file.any() or run.text_file.any())


def task_view(prog: RobotProgram) -> RobotProgram:
    """``prog`` as one text: its files joined by :data:`SEPARATOR`, each span moved by its file's offset there.

    Raises
    ------
    InputError
        A file of the task that holds :data:`SEPARATOR` (a NUL character: no RAPID text), naming it.
    """
    texts = [text for _, text in prog.files]
    for path, text in prog.files:
        if SEPARATOR in text:
            raise InputError("expected a RAPID text, got a NUL character", path=path, row=text[:text.index(
                SEPARATOR)].count("\n") + 1)
    lengths = np.array([len(t) + len(SEPARATOR) for t in texts], dtype=np.int64)
    bases = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    run = prog.columns.run
    at_motion = bases[run.file]
    at_argument = at_motion[run.row_of_points()]
    at_text = bases[run.text_file]

    def moved(spans: np.ndarray, by: np.ndarray) -> np.ndarray:
        out = spans.copy()
        out[:, :2] += by[:, None]
        return out

    whole = tuple(None if s is None else Span(s.start + b, s.end + b, s.line, s.column)
                  for s, b in zip(run.whole_argument, at_argument.tolist()))
    zeros = np.zeros(len(run.text), dtype=np.int64)
    view_run = dataclasses.replace(
        run, statement=moved(run.statement, at_motion), name=moved(run.name, at_motion),
        text=moved(run.text, at_text), argument=moved(run.argument, at_argument), whole_argument=whole,
        file=np.zeros(len(run), dtype=np.int64), text_file=zeros)
    # (the per-pass texts' keys stay: each is in the program's own file, at offset 0; passes.settle refuses others)
    view = RobotProgram(language=prog.language, path=prog.path, text=SEPARATOR.join(texts), steps=prog.steps,
                        unsupported=prog.unsupported, notes=prog.notes, entry=prog.entry, newline=prog.newline,
                        extra=prog.extra)
    view.__dict__["columns"] = dataclasses.replace(prog.columns, run=view_run)  # (its cached columns: the moved ones)
    return view


def split(data: bytes, prog: RobotProgram) -> tuple[bytes, tuple[bytes | None, ...]]:
    """The program's bytes and each other module's (``None`` where unchanged) of ``data``, a text of
    :func:`task_view` written."""
    parts = data.split(SEPARATOR.encode("latin-1"))
    if len(parts) != len(prog.files):  # (the writers replace target texts only: never across a file's end)
        raise AssertionError(f"expected {len(prog.files)} files in the written task, got {len(parts)}")
    return parts[0], tuple(None if part == text.encode("latin-1") else part
                           for part, (_, text) in zip(parts[1:], prog.modules))
