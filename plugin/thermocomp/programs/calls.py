"""Routines called with arguments, for both program readers: where their targets can be written.

A routine (RAPID ``PROC pick(robtarget p)``, URScript ``def pick(pose):``)
runs once per call, each call with its own arguments, but its text exists
once. The readers bind each parameter to its argument (an argument naming
data passes that data on; any other is evaluated in the caller) and record
which motions each call ran. This module then decides, over the whole
program, what the writer may change:

* :func:`direct_through_calls`: a declaration can be written back only if
  every use of its name is a followed motion's point; an argument passing it
  to a parameter counts as such a use when the routine uses that parameter
  only so (``MoveL p``), recursively through further calls.
* :func:`finish`: a text inside a routine (an inline or ``Offs`` target, or
  the parameter where the target cannot go back to its declaration) is one
  text for every call. Where two calls need it written differently, every
  motion writing it stays as written (the earlier calls' too, so no call
  runs another's correction), its uses stop counting as followed, and the
  texts are decided again; the later call is reported.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from thermocomp.programs.model import Finding, Motion, MotionRun, Span, Wait

#: What a call is to the reader: its routine's name and where the call is written.
Call = tuple[str, Span]


def direct_through_calls(direct_refs: set[int], passed: dict[int, tuple[Span, str]], uses: dict[str, set[int]],
                         unfollowed: set[int]) -> set[int]:
    """Offsets of the name tokens that are followed motions' points, call arguments included.

    ``passed``: a call argument naming data (its offset) -> the called
    routine's span and the parameter's key in ``uses``. ``unfollowed``:
    offsets of points whose motions stay as written.
    """
    direct = direct_refs - unfollowed
    changed = True
    while changed:  # a parameter passed on to a further call counts once that call's argument does
        changed = False
        for at, (routine, param) in passed.items():
            if at in direct:
                continue
            if {u for u in uses.get(param, ()) if routine.start <= u < routine.end} <= direct:
                direct.add(at)
                changed = True
    return direct


def changing_motion(steps: list[MotionRun | Wait]) -> Motion | None:
    """The first motion of ``steps`` (the passes of one loop) whose written text an earlier pass needed with
    another target: one text cannot serve every pass. None when every text keeps its target."""
    seen: dict[tuple[int, int], np.ndarray] = {}
    for run in steps:
        if not isinstance(run, MotionRun):
            continue
        for i, (key, value) in enumerate(run.targets()):
            if not np.array_equal(seen.setdefault(key, value), value):
                return _motion_of_point(run, i)
    return None


def _motion_of_point(run: MotionRun, i: int) -> Motion:
    return run.take([int(run.row_of_points()[i])]).motions()[0]


def _clashes(run: list[MotionRun | Wait], steps: list[MotionRun | Wait], in_call: dict[int, Call]
             ) -> tuple[set[tuple[int, int]], list[tuple[Motion, Call]]]:
    """Texts written inside routines that two calls need differently, and (motion, later call) for each clash."""
    seen: dict[tuple[int, int], np.ndarray] = {}
    frozen: set[tuple[int, int]] = set()
    clashes: list[tuple[Motion, Call]] = []
    for old, new in zip(run, steps):
        call = in_call.get(id(old))
        if call is None or not isinstance(new, MotionRun):
            continue
        own = np.all(new.text == new.argument, axis=1).tolist()  # (else written in its declaration: the caller's)
        tools = [t for _, t in new.frames]
        for i, (key, target) in enumerate(new.targets()):
            if not own[i]:
                continue
            value = np.concatenate([np.ravel(target), np.ravel(tools[new.frame[i]])])
            if not np.array_equal(seen.setdefault(key, value), value):
                frozen.add(key)
                clashes.append((_motion_of_point(new, i), call))
    return frozen, clashes


def finish(run: list[MotionRun | Wait], finish_points: Callable[[set[int]], list[MotionRun | Wait]],
           in_call: dict[int, Call], unsupported: list[Finding], notes: list[Finding]) -> list[MotionRun | Wait]:
    """The program's steps with each point's final text, the motions of clashing calls left out.

    ``run``: the steps as the reader ran them; ``finish_points(unfollowed)``
    gives them again, in the same order, with the texts decided as if the
    points at the offsets ``unfollowed`` were not followed; ``in_call``: the
    id of each step run by a call with arguments -> that call. A finding per
    clashing call goes to ``unsupported``, a note per motion left as written
    to ``notes``.
    """
    unfollowed: set[int] = set()
    while True:
        steps = finish_points(unfollowed)
        frozen, clashes = _clashes(run, steps, in_call) if in_call else (set(), [])
        left: dict[int, np.ndarray] = {}  # a step's index: its motions that write a frozen text
        dropped: set[int] = set()
        for k, step in enumerate(steps if frozen else ()):
            if not isinstance(step, MotionRun):
                continue
            hit = np.array([(a, b) in frozen for a, b in step.text[:, :2].tolist()], dtype=bool)
            if hit.any():
                rows = np.flatnonzero(np.logical_or.reduceat(hit, step.first_points()))
                left[k] = rows
                points = np.isin(step.row_of_points(), rows)
                dropped.update(step.argument[points, 0].tolist())
        if not dropped - unfollowed:
            break
        unfollowed |= dropped
    reported: set[tuple[int, int]] = set()
    for motion, (name, where) in clashes:
        if (where.line, where.column) in reported:
            continue  # one finding a call
        reported.add((where.line, where.column))
        unsupported.append(Finding(f"{motion.instruction} at line {motion.statement.line} needs another target on "
                                   f"this call of {name} than on an earlier one: one written target cannot serve "
                                   "every call", where.line, where.column))
    for k, rows in left.items():
        for motion in steps[k].take(rows).motions():
            notes.append(Finding(f"{motion.instruction} stays as written: the calls of its routine need different "
                                 "targets there", motion.statement.line, motion.statement.column))
    out: list[MotionRun | Wait] = []
    for k, step in enumerate(steps):
        if k in left:
            kept = np.setdiff1d(np.arange(len(step)), left[k])
            if kept.size:
                out.append(step.take(kept))
        else:
            out.append(step)
    return out


__all__ = ["Call", "changing_motion", "direct_through_calls", "finish"]
