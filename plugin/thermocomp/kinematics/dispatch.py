"""When the kinematics run in the compiled engine (:mod:`thermocomp.kinematics.engine`) and when in numpy.

One rule for every entry (FK, Jacobian, joint frames, Newton, closed forms,
deformed frames): a batch of :data:`ENGINE_MIN_ROWS` rows or more runs
compiled; a smaller one runs the numpy reference, where numpy's per-call
overhead is small and a short run does not pay for loading numba (about
half a second) and the engine.
"""

from __future__ import annotations

#: Rows from which a batch runs in the compiled engine.
ENGINE_MIN_ROWS = 1000


def runs_compiled(rows: int) -> bool:
    """Whether a batch of ``rows`` rows runs in the compiled engine."""
    return rows >= ENGINE_MIN_ROWS
