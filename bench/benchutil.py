"""Small helpers of the benchmarks: timing, error measures, text tables.

Timings on the shared 2-core machines are noisy (MISSION.md: +-50 %), so every
timed quantity is the median of repeats, and comparisons are ratios against a
baseline measured in the same run.
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable, Sequence

import numpy as np

import thermocomp as tc
from thermocomp.geometry.rotations import rotation_angle

#: "Solved" as in MISSION.md's engine table: within 1e-6 m and 1e-6 rad.
SOLVED_POSITION = 1e-6
SOLVED_ORIENTATION = 1e-6


def timed(fn: Callable[[], object]) -> tuple[float, object]:
    """``(seconds, result)`` of one call."""
    t0 = time.perf_counter()
    result = fn()
    return time.perf_counter() - t0, result


def cpu_medians(read: Callable[[str], object], texts: dict[str, str], repeats: int,
                motions: Callable[[str], int]) -> dict[str, float]:
    """Median CPU seconds [s] of ``read`` (a program reader, warm) on each of ``texts``, ``repeats`` rounds alternating
    between them; each reading must hold ``motions(kind)`` motions and nothing it left as written (every motion read)."""
    cpu: dict[str, list[float]] = {kind: [] for kind in texts}
    for _ in range(repeats):
        for kind, text in texts.items():
            c0 = time.process_time()
            program = read(text)
            cpu[kind].append(time.process_time() - c0)
            assert len(program.motions) == motions(kind) and not program.unsupported, kind  # type: ignore[attr-defined]
    return {kind: median(v) for kind, v in cpu.items()}


def median(values: Sequence[float]) -> float:
    return float(statistics.median(values))


def spread(values: Sequence[float]) -> str:
    """``median [min-max] (k runs)`` of timings in seconds, printed in ms or s."""
    def show(v: float) -> str:
        return f"{v * 1e3:.1f} ms" if v < 1.0 else f"{v:.2f} s"
    if len(values) == 1:
        return f"{show(values[0])} (1 run)"
    return f"{show(median(values))} median [{show(min(values))} - {show(max(values))}, {len(values)} runs]"


def pose_errors(model: tc.KinematicModel, q: np.ndarray, R_target: np.ndarray, p_target: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray]:
    """Position [m] and orientation [rad] error of ``fk(model, q)`` against the targets, ``(m,)`` each."""
    R, p = tc.fk(model, q)
    return (np.linalg.norm(p - p_target, axis=1),
            rotation_angle(R_target @ np.swapaxes(R, -1, -2)))


def solved_share(position_error: np.ndarray, orientation_error: np.ndarray) -> float:
    """Share [0, 1] of rows within :data:`SOLVED_POSITION` and :data:`SOLVED_ORIENTATION`."""
    ok = (position_error <= SOLVED_POSITION) & (orientation_error <= SOLVED_ORIENTATION)
    return float(np.mean(ok))


def table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A plain text table, first column left-aligned, the others right-aligned."""
    widths = [max(len(str(r[i])) for r in [headers, *rows]) for i in range(len(headers))]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))

    return "\n".join([line(headers), line(["-" * w for w in widths]), *(line(r) for r in rows)])


def load_average() -> str:
    try:
        return " ".join(f"{v:.2f}" for v in os.getloadavg())
    except OSError:
        return "n/a"
