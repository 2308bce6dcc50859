"""Targets that differ from pass to pass of a loop whose count the file fixes: a table of corrected targets each.

A motion in a RAPID ``FOR`` loop of constant bounds (or a URScript ``while`` the file counts) whose target reads
data the loop steps runs a known target each pass, but its text is one. The readers name such texts in
``RobotProgram.extra["per_pass"]`` (:func:`take`, :func:`settle`); the writer writes each as a table of its
corrected targets in the order one cycle runs them, indexed by a counter advanced before the motion
(:func:`table_edits`; docs/programs.md, "Targets that differ from pass to pass"). A time-indexed program's tables
are written alike, one entry a minute, indexed by the controller's clock (:func:`clock_edits`).
"""

from __future__ import annotations

import bisect
import re
from collections import defaultdict
from collections.abc import Callable, Collection

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from thermocomp.errors import InputError
from thermocomp.programs import calls
from thermocomp.programs import writer as w
from thermocomp.programs.model import Finding, Motion, MotionRun, RobotProgram

#: The most runs of one text a cycle may hold (the entries of one table, some 120 bytes each); past it the motion is
#: refused naming its line and this bound.
MAX_PASSES = 10_000


def take(steps: list, per_pass: dict, loop: object, walks: list[tuple], inner: Collection[int],
         place: tuple[int, int]) -> Motion | None:
    """Record in ``per_pass`` (text ``(start, end)`` -> ``loop``) the texts of ``steps`` (the passes of ``loop``)
    that differ from pass to pass, each an inline target or an expression in its motion's statement. A variable
    (declared, or assigned in the pass: URScript ``pose_pre = p[0.5 + x, ...]`` then ``movej(pose_pre)``, RAPID
    ``p := Offs(p10, 10 * i, 0, 0); MoveL p, ...``) that the motion names is tabled at that name, its argument in the
    motion's statement (:func:`take_calls` moves their runs' texts to it), the declaration and the assignment as
    written. Else (a text in an earlier statement that the motion does not name: URScript's ``q =
    get_inverse_kin(...)`` then ``movej(q)``) record nothing and return the first motion whose text an earlier pass
    needed otherwise.

    ``walks`` gets ``(first, text, runs, whole, head)`` for each text tabled (``place``: ``(first, head)``):
    ``first`` the walker's step where ``steps`` begin, the text's runs in ``steps``, whether none stands at a line of
    ``inner`` (the motions made conditional inside the loop's passes), and ``head`` where the loop's statement starts
    (task-wide): :func:`settle` lets a condition around the whole loop be."""
    differing = {key for key, _ in calls._differing((key, value, None) for run in steps if isinstance(run, MotionRun)
                                                    for key, value in run.targets())}
    tabled: dict[tuple[int, int], None] = {}  # the texts to table: those at their motion, the arguments of others
    for run in steps if differing else ():
        if isinstance(run, MotionRun):
            mine = np.array([key in differing for key in run.text_keys()], dtype=bool)
            moved = run.with_text_at_argument(mine)
            inside, moved_keys = _in_statement(moved), moved.text_keys()
            for i in np.flatnonzero(mine).tolist():
                if not inside[i]:  # (a text or an argument before the motion: its counter would advance after it)
                    return calls._motion_of_point(run, i)
                tabled[moved_keys[i]] = None
    lines: dict[tuple[int, int], list[int]] = {key: [] for key in tabled}  # each text: the lines of the runs whose
    for run in steps if tabled else ():  # text or argument it is
        if isinstance(run, MotionRun):
            for at, arg, line in zip(run.text_keys(), run.argument_keys(), run.statement[run.row_of_points(), 2].tolist()):
                for key in {at, arg} & lines.keys():
                    lines[key].append(line)
    for key, at_lines in lines.items():
        per_pass.setdefault(key, loop)
        walks.append((place[0], key, len(at_lines), not any(line in inner for line in at_lines), place[1]))
    return None


def _in_statement(run: MotionRun) -> np.ndarray:
    """Whether each point's text stands within its motion's statement ``(p,)`` (where a pass counter advanced before
    the motion is read after it)."""
    statement = run.statement[run.row_of_points()]
    start = run.text[:, 0]
    return (statement[:, 0] <= start) & (start < statement[:, 1]) & (run.text_file == run.file[run.row_of_points()])


def take_calls(steps: list, in_call: dict, per_pass: dict, beside: set[int], counted: dict[int, tuple],
               passed: Collection[int]) -> None:
    """Record in ``per_pass`` (text ``(start, end)`` -> a tuple of the calls that run it, :data:`.calls.Call` each in
    the order they run; texts run by the same calls share one) the texts at their motions that the calls of their
    routine (``in_call``: a step's id -> the call with arguments that ran it) need with differing targets: a table
    each, walked call by call as a loop's pass by pass. A run of such a text, or of a loop's, whose point stands
    elsewhere (a declaration passed by name: ``Pick b`` beside ``Pick pts{i}``) is moved to it in ``steps`` (its id
    in ``in_call``, ``beside`` and ``counted`` too, :func:`settle`): the table holds every run; so is a variable
    assigned in the routine from its parameters that the motion names (URScript ``p_t = p[x, ...]`` then
    ``movej(get_inverse_kin(p_t))``), tabled at that name as a loop's pass by pass (:func:`take`); a target written
    at the call site (``passed``: task-wide offsets) is written there (:mod:`.calls`)."""
    frozen = calls._clashes(steps, steps, in_call, per_pass, passed_in=True)[0] if in_call else set()
    named = [(key, target, argument) for step in steps if id(step) in in_call and isinstance(step, MotionRun)
             for (key, target), argument, away, inside in zip(step.targets(), step.argument_keys(), step.away(),
                                                              _in_statement(step.with_text_at_argument(step.away())))
             if away and inside and key[0] not in passed]
    differing = {key for key, _ in calls._differing(named)}
    frozen |= {argument for key, _, argument in named if key in differing}
    tabled = frozen | set(per_pass)  # (and the texts a loop's passes need differently, :func:`take`)
    moved: dict[int, MotionRun] = {}  # a step's id: it with such points at their motion
    for k, step in enumerate(steps if tabled else ()):
        if isinstance(step, MotionRun) and id(step) not in moved:
            moved[id(step)] = new = step.with_text_at_argument(np.array([key in tabled for key in step.argument_keys()],
                                                                        dtype=bool))
            if new is not step:  # (the old step goes: its id may be another's later)
                if id(step) in in_call:
                    in_call[id(new)] = in_call.pop(id(step))
                if id(step) in beside:
                    beside.discard(id(step))
                    beside.add(id(new))
                if counted.get(id(step), (None,))[0] is step:
                    counted[id(new)] = (new, *counted.pop(id(step))[1:])
        steps[k] = moved.get(id(step), step)
    of_text: dict[tuple[int, int], dict] = {}  # each such text: the calls that run it, in order
    earlier = set()  # texts in a statement before their motion's (``q = get_inverse_kin(p)``): the counter
    for step in steps if frozen else ():  # advances at the motion, after they are read: no table, they clash
        call = in_call.get(id(step))
        if call is not None and isinstance(step, MotionRun):  # (a wait a call ran has no text)
            for key, inside in zip(step.text_keys(), _in_statement(step).tolist()):
                if key in frozen:
                    of_text.setdefault(key, {})[call] = None
                    if not inside:
                        earlier.add(key)
    grouped: dict[tuple, tuple] = {}
    for key, ran in of_text.items():
        if key not in earlier:
            per_pass.setdefault(key, grouped.setdefault(tuple(ran), tuple(ran)))


def unread(uses: dict[str, set[int]], given: list[tuple[str, int, list[tuple[str, int]]]], steps: list,
           per_pass: dict) -> Callable[[Collection[tuple[int, int]]], dict[str, set[int]]]:
    """A function of the texts ``tabled`` (keys of ``per_pass``: the texts ``steps`` write as tables; a table
    replaces its whole text) giving ``uses`` (a name -> its uses' task-wide offsets, ``file << 40`` added) without
    the uses inside them, then without the reads in the values of each datum read nowhere else, which is given a
    value that reads nothing, and so on along chains (``r := Offs(p, ...); q := r;``). ``given``: ``(datum, where,
    reads)`` each assignment of a datum the reader lets be given so: ``where`` its target (no read), ``reads``
    ``(name, offset)`` each name its value reads. The uses are found once, whatever ``tabled``."""
    spans = sorted({(*key, key) for step in steps if isinstance(step, MotionRun) for key in step.text_keys()
                    if key in per_pass})
    inside: dict[tuple[int, int], list[tuple[str, int]]] = {}
    starts = [a for a, _, _ in spans]
    for name, at in uses.items() if spans else ():
        for u in at:
            if (k := bisect.bisect_right(starts, u) - 1) >= 0 and u < spans[k][1]:
                inside.setdefault(spans[k][2], []).append((name, u))
    targets = {where for _, where, _ in given}  # (offsets are unique in a task)
    values: dict[str, list[tuple[str, int]]] = defaultdict(list)
    for name, _, reads in given:
        values[name] += reads

    def outside(tabled: Collection[tuple[int, int]]) -> dict[str, set[int]]:
        found = {name: set(at) for name, at in uses.items()}
        for name, at in (use for key in tabled for use in inside.get(key, ())):
            found[name].discard(at)
        left = {name: len(found.get(name, set()) - targets) for name in values}  # (its reads: linear)
        todo, reads = [name for name, n in left.items() if not n], dict(values)
        while todo:
            for name, at in reads.pop(todo.pop(), ()):
                if at in found.get(name, ()):
                    found[name].discard(at)
                    left[name] = left.get(name, 0) - 1  # (a name no assignment gives: below zero, never given)
                    if not left[name]:
                        todo.append(name)
        return found

    return outside


def settle(walker: calls.Texts, conditional: set[int], construct, location, written: Callable[[calls.Call], str]
           ) -> tuple[frozenset[tuple[int, int]], dict[tuple[int, int], tuple[int, ...]], dict[tuple[int, int], int],
                      frozenset[tuple[int, int]]]:
    """The per-pass texts of a finished walk (``walker``'s ``per_pass``, with the texts the calls of a routine need
    differently, :func:`take_calls`) that the written program can hold: each of its motions runs in the cycle's
    fixed order (at no line of ``conditional``, or all its runs in one walk of a loop run whole under such a
    condition), not both before the production loop (step ``walker.cycle_start``) and in it, at most
    :data:`MAX_PASSES` times. Else a text is taken still where each run stands in a call whose every run needs it with
    one target and tool (:func:`_by_call`; ``written(call)``: the call's text), or, under a condition inside the
    loops, where the counters known at its motion tell apart every two runs that need another target or tool
    (:func:`_by_counters`), whatever the conditions decide.

    Returns the texts taken, each run's :func:`_slots` of those indexed by their calls or motions, where the loop
    starts of those all of whose runs one walk of a loop holds (their counter is set there: a condition around the
    loop or a pass left early leaves the next walk to start afresh), and those indexed at their motions. The motions
    of the others are dropped from ``walker.steps`` (left as written), a finding for each added to
    ``walker.unsupported``, and a note at each loop (``construct(loop)`` at ``location(loop)``) or group of calls to
    ``walker.notes``.
    """
    beside = getattr(walker, "beside", set())  # (a thread's steps: its calls may set an index as the program's do)
    counters_of = walker.motion_counters  # (each motion under a condition not resolved: its counters, _by_counters)
    take_calls(walker.steps, walker._in_call, walker.per_pass, beside, counters_of, walker._passed)
    if not walker.per_pass:
        return frozenset(), {}, {}, frozenset()
    runs_of_calls = getattr(walker, "call_runs", {})  # (RAPID: where each call sets its index, its FOR counters)
    compact = getattr(walker, "compact_ifs", {})  # (RAPID: by (file, start) of the statement each holds)
    steps, per_pass, cycle_start = walker.steps, walker.per_pass, getattr(walker, "cycle_start", None)
    # the texts all of whose runs one walk of a loop holds, none made conditional inside it: where that loop starts
    whole = {(key, runs): head for _, key, runs, clean, head in walker.pass_walks if clean}
    runs: dict[tuple[int, int], list[tuple[int, int, int]]] = {}  # each run of the text: (step, motion row, point)
    for k, step in enumerate(steps):
        if isinstance(step, MotionRun):
            rows = step.row_of_points().tolist()
            for i, key in enumerate(step.text_keys()):
                if key in per_pass:
                    runs.setdefault(key, []).append((k, rows[i], i))

    def at(k: int, row: int, *_) -> tuple[str, int, int]:  # (instruction, line, column) of a motion
        return steps[k].instruction[row], *steps[k].statement[row, 2:].tolist()

    refused: list[Finding] = []
    bad = set()
    by_call: dict[tuple[int, int], tuple[calls.Call, ...]] = {}  # the texts indexed by their calls: each run's call
    slots: dict[tuple[int, int], tuple] = {}  # and its slot (:func:`_slots`)
    at_motion: set[tuple[int, int]] = set()  # the texts indexed at their motions (:func:`_by_counters`)
    why: dict[tuple[int, int], str] = {}  # and why a counter walking the cycle's order could not
    left: dict[int, set[int]] = defaultdict(set)  # the motions of the texts refused (left as written): step -> rows
    for key, motions in runs.items():
        instruction, line, column = at(*motions[0])
        unit = "call to call" if isinstance(per_pass[key], tuple) else "pass to pass"
        differs = f"{instruction}'s target differs from {unit}"
        under = any(at(*mo)[1] in conditional for mo in motions)
        head = whole.get((key, len(motions)))  # (its counter reset at the loop's head, whatever leaves a walk early)
        if under and head is None:
            message = (f"{differs} and it runs under a condition or loop known only while running: its passes are "
                       "not known before running")
            why[key] = "they run under conditions known only while running"
        elif cycle_start is not None and len({k < cycle_start for k, _, _ in motions}) == 2:
            message = (f"{differs} and it runs both before the loop that repeats the cycle (once) and in it (every "
                       "cycle): one table cannot follow both")
            why[key] = "they run both before the loop that repeats the cycle and in it"
        elif len(motions) > MAX_PASSES:
            message = (f"{differs} in {len(motions):,} passes: more "
                       f"than {MAX_PASSES:,}, the most a table of corrected targets holds here")
        elif any((int(steps[k].file[row]), int(steps[k].statement[row, 0])) in compact for k, row, _ in motions):
            message = (f"{differs} and it is the statement of a compact IF: no statement can be written before it to "
                       "advance its pass counter (write the IF with THEN ... ENDIF)")
        else:
            continue
        threaded = any(id(steps[k]) in beside for k, _, _ in motions)
        called, differing = (None, None) if key not in why or threaded \
            else _by_call(steps, walker._in_call, motions, runs_of_calls)
        if called is not None:
            by_call[key], slots[key] = tuple(walker._in_call[id(steps[k])] for k, _, _ in motions), called
            continue
        counted = None if not under or head is not None or threaded else _by_counters(steps, motions, counters_of)
        if counted is not None:  # (a motion under a condition inside the loops: its index from their counters)
            slots[key] = counted
            at_motion.add(key)
            continue
        if differing is not None:
            name, where, *_ = differing
            arguments = written(differing)[len(name):].strip().removesuffix(";").strip()
            arguments = arguments[1:-1].strip() if arguments[:1] == "(" and arguments[-1:] == ")" else arguments
            message += (f"; nor is a table of one entry a call: the call of {name} at line {where.line}"
                        f"{f' passes {arguments}, which' if arguments else ''} needs a different target from pass to "
                        "pass")
        bad.add(key)
        for k, row, _ in motions:
            left[k].add(row)
        refused.append(Finding(message, line, column, int(steps[motions[0][0]].file[motions[0][1]])))
    taken = frozenset(key for key in runs if key not in bad)
    loops: dict[object, tuple] = {}  # each loop, or calls: why indexed by call, the counters indexing it, lines
    for key in taken:
        indexed = why[key] if key in by_call else None
        if indexed and any(terms for _, _, terms in slots[key]):
            indexed += "; a call in a loop whose passes need different targets: one entry a pass, its index " \
                       "computed from the counters known at the call"
        loop = tuple(dict.fromkeys(by_call[key])) if indexed else per_pass[key]  # (indexed: each call once)
        counted = key in at_motion
        group = loops.setdefault((loop, indexed) if indexed else (id(loop), counted), (loop, indexed, {}, set()))
        if counted:
            group[2].update((name, None) for _, _, terms in slots[key] for name, *_ in terms)
        group[3].add(at(*runs[key][0])[1])
    notes = []
    for loop, indexed, counters, lines in loops.values():
        if isinstance(loop, tuple):  # (the calls of a routine, :func:`take_calls`: named by them, at the first)
            named: dict[str, list[str]] = defaultdict(list)
            for name, where, *_ in loop:
                named[name].append(str(where.line))
            what = "the calls of " + ", ".join(f"{name} at line{'s' * (len(at) > 1)} {', '.join(at[:20])}"
                                               + (f" and {len(at) - 20} more" if len(at) > 20 else "")
                                               for name, at in named.items())
            _, first, *file = loop[0]
            unit, place = "call", (first.line, first.column, *file)
        else:
            what, unit, place = construct(loop), "pass", location(loop)
        how = (f"written as a table of corrected targets, one entry a call, each call setting its index before it "
               f"(a pass counter cannot follow the calls: {indexed})" if indexed else
               "written as a table of corrected targets, its index set before the motion from the counters of the "
               f"loops around it ({', '.join(counters)}; a pass counter cannot follow a condition known only while "
               "running around the motion)" if counters else
               "written as a table of corrected targets the program walks with a pass counter")
        notes.append(Finding(f"{what}: the targets of the motion(s) at line {', '.join(map(str, sorted(lines)))} "
                             f"differ from {unit} to {unit}: each {unit} is compensated, and {how} (docs/programs.md, "
                             f"\"Targets that differ from pass to pass\"); each {unit}'s minute follows the written "
                             "order of the cycle", *place))
    walker.steps[:] = calls.without(steps, left)
    walker.unsupported.extend(refused)
    walker.notes.extend(notes)
    heads = {key: whole[key, len(runs[key])] for key in taken if (key, len(runs[key])) in whole}
    return taken, slots, heads, frozenset(at_motion)


def _by_call(steps: list, in_call: dict[int, calls.Call], motions: list[tuple[int, int, int]],
             runs_of_calls: dict[int, tuple]) -> tuple[tuple[tuple[int, int, tuple], ...] | None, calls.Call | None]:
    """Each run's :func:`_slots` of ``motions`` (``(step, motion row, point)`` each, the runs of one text) by its call,
    where each call with arguments, or each pass of the FOR loops around it (``runs_of_calls``:
    :meth:`.rapid_flow._Flow.index_site`), runs the text with one target and tool; else None, and the first call that
    runs it with another than an earlier run (None: a run stands in no such call, or a loop inside the routine)."""
    called = [in_call.get(id(steps[k])) for k, _, _ in motions]
    if None in called:
        return None, None
    slots, clash = _slots(steps, motions, [runs_of_calls.get(id(call), (
        None, ((call[2] if len(call) > 2 else 0) << 40) + call[1].start, ()))[1:] for call in called])
    if clash is None:
        return slots, None
    first, other = (called[n] for n in clash)
    return None, None if first is other else other


def _by_counters(steps: list, motions: list[tuple[int, int, int]], counted: dict[int, tuple]
                 ) -> tuple[tuple[int, int, tuple], ...] | None:
    """Each run's :func:`_slots` of ``motions`` (as :func:`_by_call`'s, each under a condition known only while
    running) by the counters known at its motion (``counted``: id of a step -> it, where its index is set, None for
    its statement, and those counters, :meth:`.rapid_flow._Flow.index_site`), where they tell apart every two runs
    that need another target or tool; else None."""
    runs = []  # each run: where its index is set, its counters
    for k, row, _ in motions:
        step = steps[k]
        held = counted.get(id(step))
        if held is None or held[0] is not step:  # (a run under no such condition; an id reused)
            return None
        runs.append((held[1] if held[1] is not None else (int(step.file[row]) << 40) + int(step.statement[row, 0]),
                     held[2]))
    slots, clash = _slots(steps, motions, runs)
    return slots if clash is None else None


def _slots(steps: list, motions: list[tuple[int, int, int]], runs: list[tuple[int, tuple]]
           ) -> tuple[tuple[tuple[int, int, tuple], ...], tuple[int, int] | None]:
    """Each run's ``(at, slot, terms)`` of a table indexed where its runs ``motions`` stand (``runs``: ``(at,
    counters)`` each, :func:`_by_call`, :func:`_by_counters`): ``at`` where its statement (a call's, a motion's) sets
    the index (the task-wide offset, ``file << 40`` added), ``slot`` its pass among the statement's (0 where the
    counters known there, ``(name, value)`` each, do not tell its runs apart), ``terms`` how the program computes the
    slot: ``(counter, least value, step, stride)`` of each counter whose whole values differ between its runs, outer
    loops first (``slot = sum((counter - least) DIV step * stride)``; none: one slot). Then the first two runs (their
    places in ``motions``) of one slot with another target or tool; None where each slot's runs need one."""
    terms_of: dict[int, tuple] = {}
    for at in dict.fromkeys(at for at, _ in runs):
        counters = [dict(counters) for a, counters in runs if a == at]
        spans = []  # each counter whose whole values differ: its name, least value, step between its values, how many
        for name in counters[0]:
            values = np.array([run.get(name, np.nan) for run in counters], dtype=float)
            if np.ptp(values) > 0 and np.array_equal(values, np.round(values)):  # (NaN: not known on every run)
                column = values.astype(np.int64)
                step = int(np.gcd.reduce(column - column.min()))
                spans.append((name, int(column.min()), step, int(column.max() - column.min()) // step + 1))
        strides = np.cumprod([1] + [n for *_, n in spans[:0:-1]])[::-1].tolist() if spans else []
        fits = bool(spans) and strides[0] * spans[0][3] <= MAX_PASSES
        terms_of[at] = tuple((name, first, step, stride) for (name, first, step, _), stride
                             in zip(spans, strides)) if fits else ()
    slots = tuple((at, sum((int(dict(counters)[name]) - first) // step * stride
                           for name, first, step, stride in terms_of[at]), terms_of[at]) for at, counters in runs)
    first: dict[tuple, tuple] = {}  # each statement and slot: its first run's target, tool and place
    for n, ((k, _, i), (at, slot, _)) in enumerate(zip(motions, slots)):
        step = steps[k]
        q_len = int(step.q_len[i])
        target = step.q[i, :q_len] if q_len else step.T_world_tcp[i]
        tool = step.frames[step.frame[i]][1]
        seen = first.setdefault((at, slot), (target, tool, n))
        if not (np.array_equal(seen[0], target) and np.array_equal(seen[1], tool)):
            return slots, (seen[2], n)
    return slots, None


def groups(prog: RobotProgram) -> dict[tuple[int, int], np.ndarray]:
    """The per-pass texts (their keys, :meth:`.model.MotionRun.text_keys`) and their points' indices in execution
    order ``(N,)``."""
    keys = prog.extra.get("per_pass") or frozenset()
    if not keys:
        return {}
    out: dict[tuple[int, int], list[int]] = defaultdict(list)
    for i, key in enumerate(prog.run.text_keys()):  # (a task's view: its texts' offsets there, file 0)
        if key in keys:
            out[key].append(i)
    return {key: np.array(members, dtype=np.int64) for key, members in out.items()}


def table_edits(prog: RobotProgram, found: dict[tuple[int, int], np.ndarray], values: list[str | None],
                is_joint: np.ndarray, ok: np.ndarray) -> tuple[list[w.Edit], list[str]]:
    """Write the per-pass texts ``found`` (:func:`groups`) as tables of ``values`` (each point's new text): each run's
    value becomes its table's lookup. A table is written whole or not at all: a text with a run without a value is
    left as written, with a note where its passes were compensated in part (``ok`` ``(m,)``), and so is each
    declared target it reads, with a note.

    Returns the edits declaring the tables and advancing their counters, and the notes.
    """
    rapid, text, run = prog.language == "rapid", prog.text, prog.run
    unwritten = [key for key, idx in found.items() if any(values[i] is None for i in idx.tolist())]
    notes = []
    for idx in (found[key] for key in unwritten):
        failed = int(np.count_nonzero(~ok[idx]))
        if 0 < failed < idx.size:
            notes.append(f"{prog.path}:{int(run.argument[idx[0], 2])}:{int(run.argument[idx[0], 3])}: the target here "
                         f"differs from pass to pass and {failed} of its {idx.size} passes could not be compensated: "
                         "its table is not written, every pass is left as written")
    reads = prog.extra.get("table_reads") or {}  # (the points whose texts each table reads: calls.Texts)
    by_call = prog.extra.get("per_call") or {}  # (the tables indexed by their calls: each run's call, :func:`settle`)
    heads = prog.extra.get("pass_heads") or {}  # (the tables one walk of a loop holds whole: where that loop starts)
    for key in unwritten:
        line = int(run.text[found[key][0], 2])
        for j in reads.get(key, ()):
            if values[j] is not None:
                values[j] = None
                name = run.name_of_point[j]
                notes.append(f"{prog.path}:{int(run.argument[j, 2])}:{int(run.argument[j, 3])}: the target here"
                             f"{f' ({name})' if name else ''} is left as written: the table of passes at line {line} "
                             "that reads it is not written")
    counter_name, table_name = ("tcPassN", "tcPassT") if rapid else ("tc_pass_n", "tc_pass_t")
    motion_of_point = run.row_of_points()
    declarations: dict[int, list[str]] = defaultdict(list)  # the start of each file (a task's view) holding tables
    edits: list[w.Edit] = []
    counters: dict[tuple, str] = {}  # a motion statement's span, or the calls indexing a table: its counter
    motions: dict[int, set[tuple[int, int]]] = defaultdict(set)  # the motions (statements) of each file's tables
    indexed: set[int] = set()  # the files holding tables indexed by their calls
    counted: set[int] = set()  # and by the counters known at their motions (:func:`_by_counters`)
    at_motion = prog.extra.get("per_motion") or frozenset()  # (those tables)
    motion_sites: set[int] = set()  # where those set their indices
    at_calls: dict[int, list[str]] = defaultdict(list)  # each call indexing tables: the statements setting them
    at_heads: dict[int, dict[str, None]] = defaultdict(dict)  # each such loop: the statements setting counters
    for number, key in enumerate(sorted(found), start=1):
        idx = found[key]
        lookup = None
        if key not in unwritten:
            statement = run.statement[motion_of_point[idx[0]]]
            if not rapid and bool(is_joint[idx[0]]):
                raise InputError("a joint target that differs from pass to pass is not written as a table in "
                                 "URScript", path=prog.path, row=int(statement[2]))
            s_key = (int(statement[0]), int(statement[1]))
            start = _file_start(text, s_key[0])  # (the motion's module: its table and counter are LOCAL there)
            motions[start].add(s_key)
            entries = [values[i] for i in idx.tolist()]
            called = by_call.get(key)
            if called is not None:  # (one entry a call, or a pass of a call: :func:`settle`, set before it)
                entries, s_key = _entries_by_call(prog, idx, called, values, key in at_motion)
                (counted if key in at_motion else indexed).add(start)
                motion_sites.update(at for at, _, _ in s_key if key in at_motion)
            if s_key not in counters:
                counters[s_key] = counter = _free_name(text, f"{counter_name}{len(counters) + 1}", rapid)
                scope = "LOCAL " if called is None or {_file_start(text, at) for at, _, _ in s_key} == {start} else ""
                declarations[start].append(f"  {scope}VAR num {counter} := 0;" if rapid else f"global {counter} = -1")
                if called is None:
                    edits.append(_before(prog, s_key[0], [f"{counter} := {counter} MOD {len(idx)} + 1;" if rapid else
                                                          f"{counter} = ({counter} + 1) % {len(idx)}"]))
                base = int(rapid)  # (RAPID counts from 1, URScript from 0)
                for at, terms, count in s_key if called is not None else ():
                    index = _index_text(base, terms, rapid)
                    at_calls[at].append(f"{counter} := {index};" if rapid else f"{counter} = {index}")
                    base += count
            if key in heads:  # (a condition around the loop, or a pass left early: each walk starts afresh)
                at_heads[heads[key]][f"{counters[s_key]} := 0;" if rapid else f"{counters[s_key]} = -1"] = None
            name = _free_name(text, f"{table_name}{number}", rapid)
            declarations[start].append(w.table_declaration(prog, name, bool(is_joint[idx[0]]), entries, ", "))
            lookup = f"{name}{{{counters[s_key]}}}" if rapid else f"{name}[{counters[s_key]}]"
        for i in idx.tolist():
            values[i] = lookup
    for at, statements in at_calls.items():  # (a motion's: before it on its line, as a pass counter's)
        edits.append(_before(prog, at, statements, call=at not in motion_sites))
    for at, statements in at_heads.items():
        edits.append(_before(prog, at, list(statements)))
    notes = list(dict.fromkeys(notes))
    for start, lines in declarations.items():
        note = (f"thermocomp: {len(motions[start])} motion(s) whose target differs from pass to pass, each a table of "
                f"corrected targets walked by a pass counter{' or indexed by its calls' * (start in indexed)}"
                f"{' or indexed by the counters of its loops' * (start in counted)} "
                "(docs/programs.md).")
        heading = [f"  ! {note}", "  ! Start each cycle's run with the program pointer to main (it resets the "
                   "counters)."] if rapid else [f"# {note}"]
        edits.append(w.declarations_edit(prog, heading + lines, start))
    return edits, notes


def _file_start(text: str, at: int) -> int:
    """Where the file holding offset ``at`` starts in ``text`` (a task's :func:`.writer.task_view`: its files joined
    by :data:`.writer.SEPARATOR`)."""
    start = text.rfind(w.SEPARATOR, 0, at)
    return 0 if start < 0 else start + len(w.SEPARATOR)


def clock_edits(prog: RobotProgram, written: np.ndarray, joint: np.ndarray, versions: list[pa.StringArray],
                values: list[str | None], minutes: np.ndarray) -> list[w.Edit]:
    """The edits declaring a time-indexed program's clock, its index function (RAPID: before ``ENDMODULE``) and its
    tables (none: no edit): each point of ``written`` gets the table of its texts in ``versions`` (one array a minute
    of ``minutes``, evenly spaced from 0; points with the same texts share one), its lookup in ``values``;
    ``joint`` ``(m,)``: the points written as joints."""
    rapid = prog.language == "rapid"
    # each version's texts of the points written (URScript: the numbers alone, without their brackets)
    entries = [(texts if rapid else pc.replace_substring_regex(texts, r"^p?\[|\]$", "")).to_pylist() for texts in versions]
    names: dict[tuple[str, ...], str] = {}  # a table's entries -> its name
    declarations = []
    for i, texts in sorted(zip(written.tolist(), zip(*entries))):
        kind = bool(joint[i])
        if texts not in names:
            prefix = f"tc{'J' if kind else 'R'}" if rapid else f"tc_{'q' if kind else 'p'}"
            names[texts] = name = f"{prefix}{len(names) + 1}"
            declarations.append(w.table_declaration(prog, name, kind, texts, "," + prog.newline + "    "))
        values[i] = f"{names[texts]}{{tcIdx()}}" if rapid else f"tc_{'joints' if kind else 'pose'}({names[texts]})"
    if not declarations:
        return []
    K, step = len(minutes), float(minutes[1] - minutes[0]) if len(minutes) > 1 else 1.0
    heading = f"thermocomp: time-indexed corrections, {K} sets, one every {step:g} min from minute 0 (docs/programs.md)."
    if rapid:
        data = w.declarations_edit(prog, [
            f"  ! {heading}",
            "  ! Start with the robot cold (program pointer to main); a warm robot: set tcOffsetMin to its minutes.",
            "  LOCAL VAR clock tcClock;",
            "  LOCAL VAR bool tcStarted := FALSE;",
            "  PERS num tcOffsetMin := 0;",
            f"  LOCAL CONST num tcStepMin := {step!r};",
            *declarations,
        ])
        func = prog.newline.join([
            "  LOCAL FUNC num tcIdx()",
            "    VAR num k;",
            "    IF NOT tcStarted THEN",
            "      ClkReset tcClock;",
            "      ClkStart tcClock;",
            "      tcStarted := TRUE;",
            "    ENDIF",
            "    k := Round((ClkRead(tcClock) / 60 + tcOffsetMin) / tcStepMin) + 1;",
            f"    IF k > {K} k := {K};",
            "    IF k < 1 k := 1;",
            "    RETURN k;",
            "  ENDFUNC",
        ]) + prog.newline
        end = list(re.finditer(r"\bENDMODULE\b", prog.text, flags=re.IGNORECASE))[-1]  # (the grammar's last word)
        line_start = prog.text.rfind("\n", 0, end.start()) + 1
        return [data, w.Edit(line_start, line_start, func)]
    return [w.declarations_edit(prog, [
        f"# {heading}",
        "# Start with the robot cold; a warm robot: set tc_offset_min to its minutes.",
        "global tc_elapsed_s = 0.0",
        "global tc_offset_min = 0.0",
        *declarations,
        "thread tc_clock_thread():",
        "  while (True):",
        "    tc_elapsed_s = tc_elapsed_s + get_steptime()",
        "    sync()",
        "  end",
        "end",
        "def tc_k():",
        f"  k = floor((tc_elapsed_s / 60 + tc_offset_min) / {step!r} + 0.5)",
        f"  if k > {K - 1}:",
        f"    k = {K - 1}",
        "  end",
        "  return k",
        "end",
        "def tc_pose(a):",
        "  k = 6 * tc_k()",
        "  return p[a[k], a[k + 1], a[k + 2], a[k + 3], a[k + 4], a[k + 5]]",
        "end",
        "def tc_joints(a):",
        "  k = 6 * tc_k()",
        "  return [a[k], a[k + 1], a[k + 2], a[k + 3], a[k + 4], a[k + 5]]",
        "end",
        "run tc_clock_thread()",
    ])]


def _before(prog: RobotProgram, start: int, statements: list[str], *, call: bool = False) -> w.Edit:
    """The ``statements`` written before the statement at ``start`` (a motion, a ``call`` or a loop setting its tables'
    counters): each on a line of its own with that statement's indentation, or before it on its line; refused before
    a URScript call that does not start its line (it may be part of an expression)."""
    text = prog.text
    line_start = text.rfind("\n", 0, start) + 1
    before = text[line_start:start]
    if not before.strip():
        return w.Edit(line_start, line_start, "".join(f"{before}{statement}{prog.newline}" for statement in statements))
    if call and prog.language != "rapid":
        raise InputError("the call here sets the index of a table of corrected targets, one entry a call "
                         "(docs/programs.md, \"Calls under conditions\"), and the call does not start its line: no "
                         "statement can be written before it", path=prog.path, row=text.count("\n", 0, start) + 1)
    return w.Edit(start, start, "".join(f"{statement} " for statement in statements))


def _entries_by_call(prog: RobotProgram, idx: np.ndarray, called: tuple[tuple[int, int, tuple], ...],
                     values: list[str | None], at_motion: bool) -> tuple[list[str | None], tuple[tuple[int, tuple, int], ...]]:
    """The entries of a table indexed by its calls (the texts ``values`` of its runs ``idx``, whose calls are
    ``called``, :func:`_slots`) and its layout, ``(at, terms, count)`` of each call statement in the order they first
    run: one entry (``terms`` none) where its runs need one value; else one entry a slot (a slot no run takes holds
    its first value, never read). Refused where runs of one slot need different values. A table indexed
    ``at_motion`` (:func:`_by_counters`): its motion sets its own index, as the only call."""
    sites: dict[int, list[tuple[int, int, tuple]]] = {}  # each call statement: its runs (point, slot, terms)
    for i, (at, slot, terms) in zip(idx.tolist(), called, strict=True):
        sites.setdefault(at, []).append((i, slot, terms))
    entries, layout = [], []
    for at, runs in sites.items():
        if len({values[i] for i, _, _ in runs}) == 1:
            entries.append(values[runs[0][0]])
            layout.append((at, (), 1))
            continue
        by_slot: dict[int, str | None] = {}
        for i, slot, terms in runs:
            if not terms or by_slot.setdefault(slot, values[i]) != values[i]:
                run = prog.run
                row = run.row_of_points()[i]
                where = "motion" if at_motion else "call"
                counters = (f"the counters known at the {where} ({', '.join(name for name, *_ in terms)}) do not "
                            f"tell them apart" if terms else f"no counter known at the {where} tells them apart")
                if at_motion:
                    raise InputError(f"{run.instruction[row]} here runs {len(runs)} times under a condition known "
                                     "only while running, and its runs need different corrections (each at its own "
                                     f"minute): {counters} (a loop in a routine calling this one is not seen from the "
                                     "motion); compensate for one minute instead (--at-minute)",
                                     path=prog.path, row=prog.text.count("\n", 0, at) + 1)
                raise InputError(f"the call here runs {run.instruction[row]} at line {int(run.statement[row, 2])} "
                                 f"{len(runs)} times, and its runs need different corrections (each at its own "
                                 f"minute): one entry a call cannot hold them, and {counters} (one entry a pass is "
                                 "indexed by a FOR counter of the call's routine or a number its arguments read; a "
                                 "FOR loop whose body does not read its counter is followed once and repeated, and a "
                                 "loop in a routine calling this one is not seen from the call), and the order of the "
                                 "calls is known only while running; compensate for one minute instead (--at-minute)",
                                 path=prog.path, row=prog.text.count("\n", 0, at) + 1)
        count = max(by_slot) + 1
        entries += [by_slot.get(slot, values[runs[0][0]]) for slot in range(count)]
        layout.append((at, runs[0][2], count))
    return entries, tuple(layout)


def _index_text(base: int, terms: tuple[tuple[str, int, int, int], ...], rapid: bool) -> str:
    """The index a call or motion statement sets: ``base``, its first entry, plus its slot computed from the counters
    ``terms`` (``(counter, least value, step, stride)`` each, :func:`_slots`; RAPID's ``DIV``, URScript's
    ``floor``, also of a step of 1: a URScript number holding a whole value may be a float, and a list's index is an
    integer)."""
    parts, constant = [], base
    for name, first, step, stride in terms:
        if step == 1:  # (first folded into the constant)
            part, constant = name if rapid else f"floor({name})", constant - first * stride
        else:
            shifted = name if first == 0 else f"({name} - {first})" if first > 0 else f"({name} + {-first})"
            part = f"{shifted} DIV {step}" if rapid else f"floor({shifted} / {step})"
        parts.append(part if stride == 1 else f"{part} * {stride}")
    return " + ".join(parts + [str(constant)] * (constant > 0 or not parts)) + (f" - {-constant}" if constant < 0 else "")


def _free_name(text: str, name: str, rapid: bool) -> str:
    """``name``, or ``name`` with a letter added until the program does not use it (RAPID: in any letter case)."""
    flags = re.IGNORECASE if rapid else 0
    while re.search(rf"\b{re.escape(name)}\b", text, flags=flags):
        name += "x"
    return name
