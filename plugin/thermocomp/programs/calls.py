"""Routines called with arguments, for both program readers: where their targets can be written.

A routine runs once per call, each with its own arguments, but its text exists once. The readers record which
motions each call ran; :class:`Texts` (mixed into both walkers) decides what the writer may change: a declaration
passed on to parameters, a target written at the call site and read through functions such as ``Offs``
(:data:`THROUGH`, :func:`read_at_call_site`, :func:`text_poses`), and a text inside a routine that two calls need
written differently (its motions stay as written, the later call reported).
"""

from __future__ import annotations

import collections
import functools
from collections.abc import Callable, Collection, Iterable, Sequence

import numpy as np
from lark import Token, Tree

from thermocomp._typing import FloatArray
from thermocomp.errors import InputError
from thermocomp.geometry.rotations import invert_transform, transform
from thermocomp.programs.grammars import line_col
from thermocomp.programs.model import Finding, Motion, MotionRun, RobotProgram, Span, TextLines, Wait

#: Most statements a reader runs in one program (loops and calls unrolled; a run of plain motions is one): this many
#: plus :data:`STATEMENTS_PER_LINE` a line of code; past it the program is refused. A loop that moves nothing is
#: unrolled while it runs at most :data:`MAX_QUIET_WORK` statements, else followed once.
MAX_STATEMENTS_RUN = 100_000
STATEMENTS_PER_LINE = 50
MAX_QUIET_WORK = 20_000

#: A call: its routine's name and where it is written (RAPID: then the index of its file in the task).
Call = tuple[str, Span] | tuple[str, Span, int]


def _differing(points: Iterable[tuple[tuple[int, int], np.ndarray, object]]) -> list[tuple[tuple[int, int], object]]:
    """``(key, where)`` of each of ``points`` (``(text, value, where)``, in the order they run) whose value differs
    from the first of its text."""
    seen: dict[tuple[int, int], np.ndarray] = {}
    return [(key, where) for key, value, where in points if not np.array_equal(seen.setdefault(key, value), value)]


def _motion_of_point(run: MotionRun, i: int) -> Motion:
    return run.take([int(run.row_of_points()[i])]).motions()[0]


def _clashes(run: list[MotionRun | Wait], steps: list[MotionRun | Wait], in_call: dict[int, Call],
             tabled: Collection[tuple[int, int]], passed_in: bool = False
             ) -> tuple[set[tuple[int, int]], list[tuple[Motion, Call]]]:
    """Texts written inside routines that two calls need differently (target or tool; ``passed_in``: a run whose
    point stands in a declaration passed in runs the text at its motion too where another call's point is written
    there, :func:`.passes.take_calls`), and (motion, later call) for each clash; a text ``tabled`` (written as a
    table, one entry a run: :mod:`.passes`) never clashes."""
    called = [(old, new) for old, new in zip(run, steps) if id(old) in in_call and isinstance(new, MotionRun)]
    own = {id(new): (~new.away()).tolist() for _, new in called}
    at_motion = {key for _, new in called for key, mine in zip(new.text_keys(), own[id(new)]) if mine and passed_in}

    def own_points():  # (a text written in its declaration is the caller's, unless another call runs the motion's
        for old, new in called:  # own text there: a declaration passed by name beside an element, Pick pts{i})
            mine = own[id(new)]
            arguments = new.argument_keys() if at_motion and not all(mine) else None
            for i, (key, target) in enumerate(new.targets()):
                if not mine[i] and (arguments is None or (key := arguments[i]) not in at_motion):
                    continue
                if key not in tabled:
                    tool = new.frames[new.frame[i]][1]
                    yield key, np.concatenate([np.ravel(target), np.ravel(tool)]), (new, i, in_call[id(old)])

    found = _differing(own_points())
    return {key for key, _ in found}, [(_motion_of_point(new, i), call) for _, (new, i, call) in found]


class Texts:
    """Each point's final text, the end of both readers' walks (mixed into their walkers, whose walk
    :meth:`start_work` starts). Each walker's ``UNROLLED`` says in :meth:`work`'s refusal what the program is and
    what its statements run count."""

    def start_work(self, text: str, path: str, code_lines: int) -> None:
        """A walk of the program ``text`` of file ``path`` started (its ``lines``: :class:`.model.TextLines`):
        statements run counted from none (:meth:`work`), bounded at :data:`MAX_STATEMENTS_RUN` and
        :data:`STATEMENTS_PER_LINE` each of its ``code_lines`` (a task's: its other modules' too); nothing followed.

        ``steps``: the motions and waits followed; ``unsupported``, ``notes``: the findings. ``per_pass``: each text
        that differs from pass to pass -> its loop (:mod:`.passes`), ``pass_walks`` each walk of a loop (its texts
        tabled, runs, whole: :func:`.passes.take`), ``motion_counters`` the id of a motion run under a condition not
        resolved -> it, where its index is set (None: at each of its statements), the counters known there.
        ``direct_refs``: the task-wide offsets of the names that are a followed motion's point. ``_in_call``: the id
        of each step run by a call with arguments -> that call; ``_passed``, a call argument naming data or a target
        written at the call site (its task-wide offset) -> the called routine's span and the parameter's key;
        ``_reads``, ``(text, argument)`` of a call site's target read through a function -> ``(A, B, how)``
        (:func:`read_at_call_site`); ``unresolved_notes``, the note of each construct not resolved -> its motions
        (:meth:`note_unresolved`)."""
        self.text, self.path, self.lines = text, path, TextLines(text)
        self.statements_run, self.max_statements = 0, MAX_STATEMENTS_RUN + STATEMENTS_PER_LINE * code_lines
        self.steps: list[MotionRun | Wait] = []
        self.unsupported: list[Finding] = []
        self.notes: list[Finding] = []
        self.per_pass: dict[tuple[int, int], object] = {}
        self.pass_walks: list[tuple] = []
        self.motion_counters: dict[int, tuple] = {}
        self.direct_refs: set[int] = set()
        self._in_call: dict[int, Call] = {}
        self._passed: dict[int, tuple[Span, str]] = {}
        self._reads: dict[tuple[int, int], tuple | None] = {}
        self.unresolved_notes: dict = {}
        self._summaries: dict = {}  # (what the walker finds once: its summaries)

    def error(self, message: str, where: Tree | Token) -> InputError:
        """The refusal of the program at ``where`` (a node or token of the file being read)."""
        line, column = line_col(where)
        return InputError(f"{message} (column {column})", path=self.path, row=line)

    def work(self, where, count: int = 1) -> None:
        """``count`` more statements run: past :attr:`max_statements` the program is refused naming ``where``."""
        self.statements_run += count
        if self.statements_run > self.max_statements:
            raise self.error(f"reading runs more than {self.max_statements:,} statements ({MAX_STATEMENTS_RUN:,} and "
                             f"{STATEMENTS_PER_LINE} a line of {self.UNROLLED}): refused at this statement", where)

    def finished(self, scan: Callable[[], Callable[[Collection[tuple[int, int]]], dict[str, set[int]]]],
                 fold: Callable[[str], str]) -> tuple[list[MotionRun | Wait], dict]:
        """The steps with each point's final text, the motions of clashing calls left out, and the writer's extra
        (:meth:`_call_sites`, :meth:`_table_reads`, ``"unresolved"``: :func:`recount_unresolved`'s registry).
        ``scan()``, called once where a point is named, gives ``uses(tabled)``: the task-wide offsets of every use of
        each name (``fold`` of it) outside the texts ``tabled`` (written as tables). A finding per clashing call goes
        to ``unsupported``, a note per motion left as written to ``notes``."""
        scanned = functools.cache(scan)

        def uses(tabled: Collection[tuple[int, int]]) -> dict[str, set[int]]:
            return scanned()(tabled)

        unfollowed: set[int] = set()  # the offsets of points whose motions stay as written
        while True:
            steps = self._decided(uses, fold, unfollowed)
            frozen, clashes = _clashes(self.steps, steps, self._in_call, self.per_pass) if self._in_call else (set(), [])
            left: dict[int, np.ndarray] = {}  # a step's index: its motions that write a frozen text
            dropped: set[int] = set()
            for k, step in enumerate(steps if frozen else ()):
                hit = np.array([key in frozen for key in step.text_keys()] if isinstance(step, MotionRun) else [], bool)
                if hit.any():
                    left[k] = rows = np.flatnonzero(np.logical_or.reduceat(hit, step.first_points()))
                    dropped.update(start for (start, _), mine in zip(step.argument_keys(),
                                                                     np.isin(step.row_of_points(), rows)) if mine)
            if not dropped - unfollowed:
                break
            unfollowed |= dropped
        reported: dict[tuple, Finding] = {}  # one finding a call (a RAPID call: the file it is in, ``Call``'s index)
        for motion, (name, where, *file) in clashes:
            reported.setdefault((where.line, where.column, *file), Finding(
                f"{motion.instruction} at line {motion.statement.line} needs another target on this call of {name} "
                "than on an earlier one: one written target cannot serve every call", where.line, where.column, *file))
        self.unsupported.extend(reported.values())
        for k, rows in left.items():
            for motion in steps[k].take(rows).motions():
                self.notes.append(Finding(f"{motion.instruction} stays as written: the calls of its routine need "
                                          "different targets there", motion.statement.line, motion.statement.column,
                                          motion.file))
        steps = without(steps, left)
        self.notes[:], self.unresolved_notes = recount_unresolved(self.notes, self.unresolved_notes,
                                                                  set(motion_lines(steps)))
        return steps, {**self._call_sites(steps), **self._table_reads(steps, uses, fold, unfollowed),
                       "unresolved": self.unresolved_notes}

    def note_unresolved(self, word: str, rows: list[tuple[int, int]], where: tuple, why: str = "") -> Finding:
        """The note on a construct ``word`` at ``where`` (line, column, file) not resolved before running (``why``),
        ``rows`` the ``(file, line)`` of each run of its motions followed (each motion counted once); kept in
        :attr:`unresolved_notes` for :func:`recount_unresolved`."""
        rows = list(dict.fromkeys(rows))
        note = unresolved_note(word, [line for _, line in rows], where, why)
        if rows:
            self.unresolved_notes[note] = (word, rows, why)
        return note

    def _decided(self, uses: Callable[[Collection[tuple[int, int]]], dict[str, set[int]]], fold: Callable[[str], str],
                 unfollowed: set[int]) -> list[MotionRun | Wait]:
        """The steps, each point's text decided by :meth:`_verdicts`."""
        runs = {id(step): step for step in self.steps if isinstance(step, MotionRun) and any(step.name_of_point)}
        if not runs:  # (every target inline: a CAM program)
            return list(self.steps)
        direct, kept = self._verdicts(uses(self.per_pass), unfollowed)
        done: dict[int, MotionRun] = {}
        for k, run in runs.items():  # (a step repeated, the passes of a FOR loop: decided once)
            at = ((run.text_file << 40) + run.text[:, 0]).tolist()
            done[k] = run.with_text_at_argument(np.array(
                [bool(name) and (at[i] not in direct if at[i] in self._passed else kept.get(fold(name), False))
                 for i, name in enumerate(run.name_of_point)], dtype=bool))
        return [done.get(id(step), step) for step in self.steps]

    def _verdicts(self, found: dict[str, set[int]], unfollowed: set[int]) -> tuple[set[int], dict[str, bool]]:
        """The offsets of the call sites' targets and data passed (:attr:`_passed`) that are written there, and
        whether each name's declaration is kept, for the uses ``found`` (the points at ``unfollowed`` not followed): a
        declaration is rewritten only if every use of its name is a followed motion's point; a call site's target or
        a datum passed only if every use of the parameter in the routine is, and the target is read through a
        function alike on every pass (:func:`read_at_call_site`)."""
        direct = self.direct_refs - unfollowed
        changed = True
        while changed:  # a parameter passed on to a further call counts once that call's argument does
            changed = False
            for at, (routine, param) in self._passed.items():
                if at not in direct and {u for u in found.get(param, ()) if routine.start <= u < routine.end} <= direct:
                    direct.add(at)
                    changed = True
        direct -= {text for (text, _), read in self._reads.items() if read is None}
        return direct, {name: not at <= direct for name, at in found.items()}  # (once a name: linear in the uses)

    def _table_reads(self, steps: list[MotionRun | Wait], uses: Callable[[Collection[tuple[int, int]]], dict],
                     fold: Callable[[str], str], unfollowed: set[int]) -> dict:
        """``{"table_reads": {a table's text (its key): the points of ``steps`` whose texts it reads}}``, or ``{}``:
        the declarations and call sites' targets ``steps`` rewrite only because that table replaces the text reading
        them (directly, through calls and assignments: :meth:`_verdicts` with its text's uses counted). Where the table
        is not written they stay as written (:func:`.passes.table_edits`)."""
        if not self.per_pass:  # (no table: nothing to walk, 27 ms a 100,000-motion program)
            return {}
        tabled: set[tuple[int, int]] = set()
        passed: dict[int, list[int]] = {}  # the texts rewritten: call sites' targets and data passed, their points
        named: dict[str, list[int]] = {}  # and declarations, by name
        first = 0
        for step in steps:
            if isinstance(step, MotionRun):
                keys = step.text_keys()  # (their starts: the texts' task-wide offsets)
                tabled.update(key for key in keys if key in self.per_pass)
                at = [start for start, _ in keys]
                for i in np.flatnonzero(step.away()).tolist():
                    if at[i] in self._passed:
                        passed.setdefault(at[i], []).append(first + i)
                    elif step.name_of_point[i]:
                        named.setdefault(fold(step.name_of_point[i]), []).append(first + i)
                first += len(step.text)

        def read(texts: Collection[tuple[int, int]]) -> tuple[int, ...]:  # the points kept were ``texts`` not tables
            direct, kept = self._verdicts(uses(tabled - set(texts)), unfollowed)
            return tuple(sorted([i for at, points in passed.items() if at not in direct for i in points]
                                + [i for name, points in named.items() if kept.get(name) for i in points]))

        if not tabled or not (passed or named) or not read(tabled):  # (no table reads a text rewritten)
            return {}
        return {"table_reads": {key: found for key in sorted(tabled) if (found := read((key,)))}}

    def _call_sites(self, steps: Sequence[MotionRun | Wait]) -> dict:
        """``{"call_site": {point: how the motion reads it}, "through": {point: its matrices}}`` of the points whose
        text is a target written at a call site (:func:`read_through`), or ``{}``; a note naming their lines added."""
        if not self._passed:
            return {}
        how: dict[int, str] = {}
        matrices: dict[int, tuple[FloatArray, ...]] = {}
        where: dict[int, tuple[int, int, int]] = {}  # each text: its line, column, file
        first, wanted = 0, np.fromiter(self._passed, dtype=np.int64, count=len(self._passed))
        for step in steps:
            if not isinstance(step, MotionRun):
                continue
            at = np.stack([(step.text_file << 40) + step.text[:, 0],  # (each point's text and argument, task-wide)
                           (step.file[step.row_of_points()] << 40) + step.argument[:, 0]], axis=1)
            for i in np.flatnonzero(np.isin(at[:, 0], wanted)).tolist():
                read = self._reads.get((int(at[i, 0]), int(at[i, 1])))  # (None: read as it is)
                how[first + i] = "as its target" if read is None else read[-1]  # (after two or three matrices)
                if read is not None:
                    matrices[first + i] = read[:-1]
                where.setdefault(int(at[i, 0]), (int(step.text[i, 2]), int(step.text[i, 3]), int(step.text_file[i])))
            first += len(step.text)
        if not how:
            return {}
        lines = sorted({line for line, _, _ in where.values()})
        shown = ", ".join(map(str, lines[:20])) + (f" and {len(lines) - 20} more" if len(lines) > 20 else "")
        self.notes.append(Finding(f"{len(where)} motion target(s) stand at the call sites of their routines (line "
                                  f"{shown}): each is written there, each call's own", *min(where.values())))
        return {"call_site": how, "through": matrices}


def note_found_nowhere(notes: list[Finding], sites: Iterable[tuple[str, int, int, int, str, bool]],
                       message: Callable[[str, int, int, int], str]) -> tuple[tuple[str, int, int, int], ...]:
    """One note for each routine found nowhere, at the first of its calls ``sites`` (each its routine's key, file,
    line, column, name as written, whether the entry makes it itself) and in their order: ``message(name, count,
    file, line)`` of that call. Returns ``(name, file, line, column)`` of each call the entry makes, in order
    (``RobotProgram.extra["nowhere"]``)."""
    ordered = sorted(sites, key=lambda site: site[1:])  # (in the order of the task's files and text)
    count, first = collections.Counter(site[0] for site in ordered), {}
    for site in ordered:
        first.setdefault(site[0], site)
    for key, file, line, column, name, _ in first.values():
        notes.append(Finding(message(name, count[key], file, line), line, column, file))
    return tuple((name, file, line, column) for _, file, line, column, name, own in ordered if own)


def motion_lines(steps: Sequence[MotionRun | Wait]) -> list[tuple[int, int]]:
    """The ``(file, line)`` of each motion of ``steps``, in order (a motion run several times, each time)."""
    return [key for step in steps if isinstance(step, MotionRun)
            for key in zip(step.file.tolist(), step.statement[:, 2].tolist())]


def recount_unresolved(notes: Sequence[Finding], unresolved: dict, followed: Collection[tuple[int, int]]
                       ) -> tuple[list[Finding], dict]:
    """``notes`` with each note on a construct not resolved (``unresolved``: the note -> its word, the ``(file,
    line)`` of its motions and why, :meth:`Texts.note_unresolved`) naming only its motions still ``followed`` (``(file,
    line)`` each: not refused after the note was made, nor left as written), the others counted as staying as
    written; and ``unresolved`` keyed by the notes as they now read."""
    notes, recounted = list(notes), {}
    for note, (word, rows, why) in unresolved.items():
        left = [line for file, line in rows if (file, line) in followed]
        if len(left) < len(rows) and note in notes:
            notes[notes.index(note)] = note = unresolved_note(word, left, (note.line, note.column, note.file), why,
                                                              kept=len(rows) - len(left))
        recounted[note] = (word, rows, why)
    return notes, recounted


def unresolved_note(word: str, lines: list[int], where: tuple, why: str = "", kept: int = 0) -> Finding:
    """The note on a construct ``word`` whose course is not resolved before running (``why``), at ``where`` (line,
    column, file), naming the ``lines`` of its motions compensated and how many runs are ``kept`` as written."""
    listed = ", ".join(map(str, lines[:8])) + (f", ... ({len(lines)})" if len(lines) > 8 else "")
    held = (f"its {len(lines)} motion(s) (line {listed}) are compensated, each once in the written order "
            "of the cycle" if lines else "it holds no motion" if not kept else "no motion under it is compensated")
    if kept:
        held += f"; left as written: {kept} of its motion(s) (the report says why for each)"
    return Finding(f"{word}: not resolved before running ({why or 'its outcome or count is known only while running'}"
                   f"); {held}", *where)


def without(steps: Sequence[MotionRun | Wait], left: dict[int, Collection[int]]) -> list[MotionRun | Wait]:
    """``steps`` without the motions ``left[k]`` (their rows) of each step ``k``; a run left with none goes."""
    out = []
    for k, step in enumerate(steps):
        if k in left:
            step = step.take(np.setdiff1d(np.arange(len(step)), np.fromiter(left[k], dtype=np.int64)))
            if not len(step):
                continue
        out.append(step)
    return out


#: The functions through which a motion may read a target written at the call site (the argument's place), and
#: how the result is of the argument's pose ``T``: ``"add"`` (``Trans(dt) @ T @ Rot(dR)``: ``Offs``, ``pose_add``),
#: ``"right"``/``"left"`` (``T`` times a fixed pose on that side: ``RelTool``, ``pose_trans``), or ``"turn"``
#: (``pose_add(d, T)``: ``R_out = dR @ R``, ``p_out = p + dt``).
THROUGH: dict[str, tuple[tuple[int, str], ...]] = {
    "offs": ((0, "add"),), "reltool": ((0, "right"),), "pose_add": ((0, "add"), (1, "turn")),
    "pose_sub": ((0, "add"),), "pose_trans": ((0, "right"), (1, "left")),
}


def read_through(layers: Sequence[tuple[str, FloatArray, FloatArray]]) -> tuple[FloatArray, ...] | None:
    """The matrices ``(A, B)``, or ``(A, B, G)``, of nested functions of :data:`THROUGH` (``(how, T_in, T_out)``
    each, the innermost first; poses ``(4, 4)`` [m, the motion's frame]): a text's pose ``T`` gives the motion's
    target ``A @ g(T) @ B``, ``g(T) = [G_R @ R | p + G_p]`` the ``"turn"`` functions, innermost only (else None)."""
    A = B = eye = np.eye(4)
    G = None
    for how, T_in, T_out in layers:
        if how != "turn":
            A_f, B_f = ((T_out @ invert_transform(T_in), eye) if how == "left" else
                        (eye, invert_transform(T_in) @ T_out) if how == "right" else
                        (transform(None, T_out[:3, 3] - T_in[:3, 3]), transform(T_in[:3, :3].T @ T_out[:3, :3])))
            A, B = A_f @ A, B @ B_f
        elif A is B:  # (no other function inside it)
            turn = transform(T_out[:3, :3] @ T_in[:3, :3].T, T_out[:3, 3] - T_in[:3, 3])
            G = turn if G is None else transform(turn[:3, :3] @ G[:3, :3], G[:3, 3] + turn[:3, 3])
        else:
            return None
    return (A, B) if G is None else (A, B, G)


def read_at_call_site(reads: dict[tuple[int, int], tuple | None], key: tuple[int, int],
                      layers: Sequence[tuple[str, str]], poses: Sequence[FloatArray]) -> bool:
    """Whether the point ``key`` (its text, its argument) reads a call site's target through the nested functions
    ``layers`` of :data:`THROUGH` (``(name, how)`` each, the outermost first; ``poses`` ``(4, 4)`` [m]: the target,
    then each function's result, the innermost first) as every earlier pass did; recorded in ``reads`` (the
    matrices, :func:`read_through`, then how; ``None`` where a pass read it otherwise)."""
    matrices = read_through([(how, *poses[k:k + 2]) for k, (_, how) in enumerate(reversed(layers))])
    if matrices is None:
        return False
    read = (*matrices, "through " + " of ".join(name for name, _ in layers))
    known = reads.setdefault(key, read)
    if known is not None and len(known) == len(read) and all(
            np.allclose(a, b, rtol=0, atol=1e-12) for a, b in zip(known[:-1], read[:-1])):
        return True
    reads[key] = None
    return False


def text_poses(prog: RobotProgram, points: np.ndarray, R: FloatArray, p: FloatArray, back: bool = False
               ) -> tuple[FloatArray, FloatArray]:
    """The poses ``R``, ``p`` ``(k, 3, 3)``, ``(k, 3)`` [m, the motion's frame] of ``points`` ``(k,)`` as their texts
    are written (read through a call site's function: ``g^-1(inv(A) @ T @ inv(B))``, :func:`read_through`);
    ``back``: the other way."""
    matrices = prog.extra.get("through")
    hit = [k for k, i in enumerate(points.tolist()) if i in matrices] if matrices else []
    if not hit:
        return R, p
    R, p = R.copy(), p.copy()
    for k in hit:
        A, B, *G = matrices[int(points[k])]
        if back:
            T = A @ (transform(R[k], p[k]) if not G else transform(G[0][:3, :3] @ R[k], p[k] + G[0][:3, 3])) @ B
        else:
            T = invert_transform(A) @ transform(R[k], p[k]) @ invert_transform(B)
            T = T if not G else transform(G[0][:3, :3].T @ T[:3, :3], T[:3, 3] - G[0][:3, 3])
        R[k], p[k] = T[:3, :3], T[:3, 3]
    return R, p
