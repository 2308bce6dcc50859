"""Write a compensated robot program: the same bytes, with only the motion targets replaced.

Each number is the shortest decimal text that reads back as the same 32-bit float (RAPID ``num``; UR's numbers
taken as 32-bit too, the safe side: :func:`single_columns`). A target whose correction is below
:data:`KEEP_POSITION` and :data:`KEEP_ANGLE` keeps its text (a zero table gives back the program byte for byte).
A RAPID task's files are written together: :func:`task_view` is the program as one text (its files joined by
:data:`SEPARATOR`, every span moved by its file's offset), which the writers edit, and :func:`split` cuts the
written text back into the files (``None`` for a module unchanged).
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from thermocomp._typing import ArrayLike, FloatArray
from thermocomp.errors import InputError
from thermocomp.programs.grammars import byte_spans, joined_bytes
from thermocomp.programs.model import RobotProgram, Span

#: A correction below these keeps the target's text [m], [rad]: far below the 32-bit rounding of the text.
KEEP_POSITION = 1e-8
KEEP_ANGLE = 1e-8

#: A number as RAPID and URScript write it (``-12``, ``.5``, ``5.``, ``+1e-3``; rapid.lark's ``_NUM``).
NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")

#: Decimals a value is rounded to before its 32-bit text (a solver's 1e-14 of noise on a zero correction is 0).
NOISE_DECIMALS = 9

#: The magnitudes a 32-bit value is written positionally (``0.5``), from 1e-4 up to 1e6 (exclusive); outside them
#: with an exponent (``1e-05``, ``1.5e+06``), as numpy's ``str`` of a ``float32``.
POSITIONAL = (1e-4, 1e6)

#: What starts a comment, per program language (to the end of the line: RAPID ``!``, URScript ``#``).
COMMENT_STARTS = {"rapid": "!", "urscript": "#"}

_NO_EXTAX = "[9E+09,9E+09,9E+09,9E+09,9E+09,9E+09]"


def single_columns(values: FloatArray) -> list[pa.StringArray]:
    """The shortest decimal text of each entry of ``values`` ``(r, k)`` that reads back as the same 32-bit float
    (``.0`` dropped, zero and -0 written ``0``; pyarrow's digits within :data:`POSITIONAL`, numpy's text outside),
    one array a column.
    """
    stored = stored_singles(values).astype(np.float32) + np.float32(0)  # (-0 + 0 is 0)
    magnitude = np.abs(stored.astype(float))
    odd = (stored != 0) & np.isfinite(stored) & ~((magnitude >= POSITIONAL[0]) & (magnitude < POSITIONAL[1]))
    columns = []
    for k in range(stored.shape[1]):
        text = pc.cast(pa.array(stored[:, k]), pa.string())
        if odd[:, k].any():  # (with an exponent: numpy's text of the value)
            text = pc.replace_with_mask(text, pa.array(odd[:, k]), pa.array([str(v) for v in stored[odd[:, k], k]]))
        columns.append(text)
    return columns


def stored_singles(values: FloatArray) -> FloatArray:
    """The values the controller stores for the texts of :func:`single_columns` (32-bit, as doubles)."""
    return np.round(np.asarray(values, dtype=float), NOISE_DECIMALS).astype(np.float32).astype(float)


def robtarget_texts(shown: FloatArray, confdata: ArrayLike, extax: Sequence[str]) -> pa.StringArray:
    """The robtargets ``[[x,y,z],[q1,q2,q3,q4],[cf1,cf4,cf6,cfx],[extax]]`` of the rows of ``shown`` ``(r, 7)``
    (x, y, z [mm], q1..q4), their confdata ``(r, 4)`` (integers) and external axes' texts (``""``: none)."""
    columns = single_columns(np.asarray(shown, dtype=float).reshape(-1, 7))
    return pc.binary_join_element_wise("[[", pc.binary_join_element_wise(*columns[:3], ","), "],[",
                                       pc.binary_join_element_wise(*columns[3:], ","), "],[", confdata_texts(confdata),
                                       "],", _extax_texts(extax), "]", "")


def confdata_texts(confdata: ArrayLike) -> pa.StringArray:
    """``cf1,cf4,cf6,cfx`` of each row of ``confdata`` ``(r, 4)`` (integers), without the brackets."""
    conf = np.asarray(confdata).astype(np.int64).reshape(-1, 4)
    return pc.binary_join_element_wise(*(pc.cast(pa.array(conf[:, k]), pa.string()) for k in range(4)), ",")


def list_texts(shown: FloatArray, prefix: str) -> pa.StringArray:
    """The texts ``<prefix>v1, v2, ...]`` of the rows of ``shown`` ``(r, k)`` (a URScript pose ``p[...]`` or joint
    list ``[...]``)."""
    return pc.binary_join_element_wise(prefix, pc.binary_join_element_wise(*single_columns(shown), ", "), "]", "")


def jointtarget_texts(shown: FloatArray, extax: Sequence[str]) -> pa.StringArray:
    """The jointtargets ``[[j1,...,j6],[extax]]`` of the rows of ``shown`` ``(r, k)`` [deg] and their external
    axes' texts (``""``: none)."""
    return pc.binary_join_element_wise("[[", pc.binary_join_element_wise(*single_columns(shown), ","), "],",
                                       _extax_texts(extax), "]", "")


def extax_text(extax: Sequence[float]) -> str:
    """The text ``[eax_a,...,eax_f]`` of an ``extjoint``'s values [mm or deg] (:func:`single_columns`'s numbers), each
    9E9 (no axis) written as the controller writes it, ``9E+09``."""
    if all(value == 9e9 for value in extax):  # (a robot without external axes: no text to find, 0.3 ms a motion)
        return _NO_EXTAX
    texts = single_columns(np.asarray(extax, dtype=float).reshape(1, -1))
    return "[" + ",".join("9E+09" if value == 9e9 else text[0].as_py() for value, text in zip(extax, texts)) + "]"


def _extax_texts(extax: Sequence[str]) -> pa.StringArray:
    return pa.array([e or _NO_EXTAX for e in extax], pa.string())


class Edit(NamedTuple):
    """Replace ``text[start:end]`` by ``new`` (a named tuple: built, hashed and sorted in C)."""

    start: int
    end: int
    new: str


class Edits(NamedTuple):
    """Edits as columns: replace ``text[start[k]:end[k]]`` by ``new[k]`` (an arrow array)."""

    start: np.ndarray
    end: np.ndarray
    new: pa.StringArray

    @classmethod
    def of(cls, edits: Sequence[Edit]) -> Edits:
        return cls(np.array([e.start for e in edits], dtype=np.int64), np.array([e.end for e in edits], dtype=np.int64),
                   pa.array([e.new for e in edits], pa.string()))

    def take(self, rows: np.ndarray) -> Edits:
        """The edits ``rows`` ``(k,)``."""
        return Edits(self.start[rows], self.end[rows], self.new.take(pa.array(rows, pa.int64())))

    def __add__(self, other: Edits) -> Edits:  # type: ignore[override]
        return Edits(np.concatenate([self.start, other.start]), np.concatenate([self.end, other.end]),
                     pa.concat_arrays([self.new, other.new]))


@functools.cache
def _layout_pattern(comment: str) -> re.Pattern:
    """A comment (to the end of its line), a number, a run of whitespace, or any other character."""
    return re.compile(rf"(?P<comment>{re.escape(comment)}[^\n]*)|(?P<number>{NUMBER.pattern})|(?P<space>\s+)"
                      r"|(?P<other>.)", re.S)


def keep_layout(old: str, new: str, comment: str) -> str:
    """``new`` (a value without comments or line breaks) in place of ``old``, keeping ``old``'s comments: where both
    have the same skeleton (their characters but numbers, whitespace and comments), ``old`` with its numbers
    replaced by ``new``'s; otherwise ``new`` with ``old``'s comments, each on its own line (indented as the line
    after it), just inside its first bracket (before it when it has none).
    """
    pattern = _layout_pattern(comment)
    pieces = [(m.lastgroup, m.group()) for m in pattern.finditer(old)]
    numbers = [m.group() for m in pattern.finditer(new) if m.lastgroup == "number"]
    skeleton_new = "".join(m.group() for m in pattern.finditer(new) if m.lastgroup == "other")
    if "".join(t for kind, t in pieces if kind == "other") == skeleton_new and \
            sum(kind == "number" for kind, _ in pieces) == len(numbers):
        given = iter(numbers)
        return "".join(next(given) if kind == "number" else t for kind, t in pieces)
    indent_after = [t.rsplit("\n", 1)[-1] if kind == "space" else "" for kind, t in pieces[1:]] + [""]
    comments = "".join(f" {t}\n{indent_after[i]}" for i, (kind, t) in enumerate(pieces) if kind == "comment")
    at = min((i for i in (new.find("["), new.find("(")) if i >= 0), default=-1) + 1
    return new[:at] + comments + new[at:]


def apply_edits(text: str, edits: Sequence[Edit] | Edits, path: str, comment: str) -> bytes:
    """``text`` with ``edits`` applied, as the file holds it (latin-1); identical edits are merged, overlapping ones
    refused; a replaced text's comments (``comment``: the language's comment start, :data:`COMMENT_STARTS`) are kept
    (:func:`keep_layout`). The pieces between the edits and the new texts are interleaved by one arrow ``take``.
    """
    edits = edits if isinstance(edits, Edits) else Edits.of(edits)
    start, end, new = edits.take(np.lexsort((edits.end, edits.start)))  # by start, then end
    if np.any((start[1:] == start[:-1]) & (end[1:] == end[:-1])):  # a span written twice: once, or by text order
        start, end, new = Edits.of(sorted({Edit(*e) for e in zip(start.tolist(), end.tolist(), new.to_pylist())}))
    overlap = np.flatnonzero(start[1:] < end[:-1])
    if overlap.size:
        raise InputError(f"two different replacements overlap at offset {start[overlap[0] + 1]}; "
                         "the same text would need two values", path=path)
    commented = np.zeros(0, dtype=np.int64)
    if start.size and comment in text:
        at = np.fromiter((m.start() for m in re.finditer(re.escape(comment), text)), dtype=np.int64)
        k = np.searchsorted(at, start)  # (the first comment at or after a span's start lies before its end)
        commented = np.flatnonzero((k < at.size) & (at[np.minimum(k, at.size - 1)] < end))
    if commented.size or not pc.all(pc.string_is_ascii(new)).as_py():
        texts = new.to_pylist()  # (texts to lay out, or a comment's latin-1 letters: as strings)
        for k in commented.tolist():
            texts[k] = keep_layout(text[start[k]:end[k]], texts[k], comment)  # type: ignore[arg-type]
        new = pa.array([t.encode("latin-1") for t in texts], pa.large_binary())
    else:
        new = new.cast(pa.large_binary())  # (ASCII: its UTF-8 is its latin-1)
    data = text.encode("latin-1")
    n = len(new)
    gaps = byte_spans(data, np.concatenate([[0], end]), np.concatenate([start, [len(data)]]))  # n + 1 pieces
    interleaved = np.empty(2 * n + 1, dtype=np.int64)
    interleaved[0::2], interleaved[1::2] = np.arange(n + 1), np.arange(n + 1, 2 * n + 1)
    return joined_bytes(pa.concat_arrays([gaps, new]).take(pa.array(interleaved)))


def table_declaration(prog: RobotProgram, name: str, joint: bool, entries: Sequence[str], separator: str) -> str:
    """The declaration of the table ``name`` of the texts ``entries``: RAPID ``LOCAL CONST robtarget name{N}:=[...]``
    (``jointtarget`` where ``joint``), one entry a line; URScript ``global name = [...]``, joined by ``separator``."""
    if prog.language != "rapid":
        return f"global {name} = [{separator.join(entries)}]"
    dtype, separator = "jointtarget" if joint else "robtarget", "," + prog.newline + "      "
    return f"  LOCAL CONST {dtype} {name}{{{len(entries)}}}:={prog.newline}      [{separator.join(entries)}];"


def declarations_edit(prog: RobotProgram, lines: list[str], start: int = 0) -> Edit:
    """The edit that inserts ``lines`` (declarations and comments) where a program declares its data: RAPID right
    after the first ``MODULE`` line from ``start`` (a file of a task's :func:`task_view`); URScript at the start of the
    entry function's body, with its indentation, else of the file."""
    text, nl = prog.text, prog.newline
    if prog.language == "rapid":
        match = re.search(r"^[ \t]*MODULE\b[^\n]*\n", text[start:], flags=re.IGNORECASE | re.MULTILINE)
        if match is None:
            raise InputError("no MODULE line found", path=prog.path)
        return Edit(start + match.end(), start + match.end(), nl.join(lines) + nl)
    at, indent = 0, ""
    if prog.entry and prog.entry[0] != "<top level>":
        match = re.search(rf"^[ \t]*def[ \t]+{re.escape(prog.entry[0])}[ \t]*\(", text, flags=re.MULTILINE)
        if match is not None:
            at = text.index("\n", match.end()) + 1
            indent = re.match(r"[ \t]*", text[at:]).group(0) or "  "
    return Edit(at, at, "".join(indent + line.replace("\n", nl + indent) + nl for line in lines))


#: What joins the task's files into one text: no RAPID file holds a NUL character, so no span can reach it.
SEPARATOR = "\x00thermocomp: next file of the task\x00"


def spans_other_files(prog: RobotProgram) -> bool:
    """Whether a motion, a target, a call indexing a table or a loop whose counter is set at its head
    (:func:`.passes.settle`) of ``prog`` lies in a file other than the program's own."""
    run = prog.run
    return bool(prog.modules) and bool(run.file.any() or run.text_file.any() or any(
        at >> 40 for called in (prog.extra.get("per_call") or {}).values() for at, _, _ in called) or any(
        at >> 40 for at in (prog.extra.get("pass_heads") or {}).values()))


def task_view(prog: RobotProgram) -> RobotProgram:
    """``prog`` as one text: its files joined by :data:`SEPARATOR`, each span moved by its file's offset there (its
    steps: the one run of its motions).

    Raises
    ------
    InputError
        A file of the task that holds :data:`SEPARATOR` (a NUL character: no RAPID text), naming it.
    """
    for path, text in prog.files:
        if SEPARATOR in text:
            raise InputError("expected a RAPID text, got a NUL character", path=path, row=text[:text.index(
                SEPARATOR)].count("\n") + 1)
    lengths = np.array([len(text) + len(SEPARATOR) for _, text in prog.files], dtype=np.int64)
    bases = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    run = prog.run
    at_motion = bases[run.file]
    at_argument = at_motion[run.row_of_points()]

    def moved(at: int) -> int:  # (a task-wide offset, ``file << 40`` added: MotionRun.text_keys, passes.settle)
        return at - (at >> 40 << 40) + int(bases[at >> 40])

    def moved_key(key: tuple[int, int]) -> tuple[int, int]:  # (a per-pass text's key)
        return moved(key[0]), moved(key[1])

    whole = tuple(None if s is None else Span(s.start + b, s.end + b, s.line, s.column)
                  for s, b in zip(run.whole_argument, at_argument.tolist()))
    shift = np.array([1, 1, 0, 0])  # (a span's start and end moved, its line and column kept)
    view_run = dataclasses.replace(
        run, statement=run.statement + np.outer(at_motion, shift), name=run.name + np.outer(at_motion, shift),
        text=run.text + np.outer(bases[run.text_file], shift), argument=run.argument + np.outer(at_argument, shift),
        whole_argument=whole, file=np.zeros(len(run), dtype=np.int64), text_file=np.zeros(len(run.text), dtype=np.int64))
    extra = {**prog.extra, "per_pass": frozenset(map(moved_key, prog.extra.get("per_pass") or ())),
             "per_motion": frozenset(map(moved_key, prog.extra.get("per_motion") or ())),
             "per_call": {moved_key(key): tuple((moved(at), *slot) for at, *slot in called)
                          for key, called in (prog.extra.get("per_call") or {}).items()},
             "table_reads": {moved_key(key): at for key, at in (prog.extra.get("table_reads") or {}).items()},
             "pass_heads": {moved_key(key): moved(at) for key, at in (prog.extra.get("pass_heads") or {}).items()}}
    return RobotProgram(language=prog.language, path=prog.path, text=SEPARATOR.join(text for _, text in prog.files),
                        steps=(view_run,), unsupported=prog.unsupported, notes=prog.notes, entry=prog.entry,
                        newline=prog.newline, extra=extra)


def split(data: bytes, prog: RobotProgram) -> tuple[bytes, tuple[bytes | None, ...]]:
    """The program's bytes and each other module's (``None`` where unchanged) of ``data``, a text of
    :func:`task_view` written."""
    parts = data.split(SEPARATOR.encode("latin-1"))  # (the writers replace target texts only: one part a file)
    return parts[0], tuple(None if part == text.encode("latin-1") else part
                           for part, (_, text) in zip(parts[1:], prog.modules, strict=True))
