"""When the kinematics run in the compiled engine (:mod:`thermocomp.kinematics.engine`) and when in numpy.

One rule for every entry with a numpy form beside it (FK, Jacobian, joint
frames, Newton, deformed frames): a batch of
:data:`ENGINE_MIN_ROWS` rows or more runs compiled; a smaller one runs the
numpy reference, where numpy's per-call overhead is small and a short run
does not pay for loading numba and the engine (about a second). The closed
forms and the pose errors of results and checks
(:func:`~thermocomp.kinematics.ik.pose_errors`) always run compiled (their numpy
equations are the tests' reference only).
"""

from __future__ import annotations

#: Rows from which a batch runs in the compiled engine.
ENGINE_MIN_ROWS = 1000


def runs_compiled(rows: int) -> bool:
    """Whether a batch of ``rows`` rows runs in the compiled engine."""
    return rows >= ENGINE_MIN_ROWS


def engine_slices(m: int, step: int) -> list[tuple[int, int]]:
    """``(start, stop)`` of ``m`` rows in slices of ``step``, a remainder shorter than :data:`ENGINE_MIN_ROWS`
    joining the slice before: a long batch's rows all run in the engine, whatever its length (a 50,000-row piece
    had left 848 rows to numpy)."""
    stops = list(range(step, m, step))
    if stops and m - stops[-1] < ENGINE_MIN_ROWS:
        stops.pop()
    starts = [0, *stops]
    return list(zip(starts, [*stops, m]))
