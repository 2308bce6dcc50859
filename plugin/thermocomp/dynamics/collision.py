"""Torque-error collision detection (seed 003, "Collision detection").

With a dynamic model, a collision shows as a **torque error**: measured minus
predicted torque, per joint, above a threshold (softMC's ``TorqueErrorMax``,
``Temax``). It reacts faster than a position error. softMC smooths the error
with ``TorqueErrorFilter`` (``TEF`` in [0, 1])::

    TE = TEF * TE_current + (1 - TEF) * TE_previous

and the seed suggests ignoring (or raising the threshold at) low speeds,
where the model errs most (direction changes, static friction).

Pure core.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from thermocomp._typing import ArrayLike, FloatArray
from thermocomp.errors import ConfigurationError


@dataclass(frozen=True)
class CollisionOptions:
    """softMC's collision properties.

    Attributes
    ----------
    threshold
        ``Temax`` per joint [N m] (one value or one per joint), > 0.
    filter_coefficient
        ``TEF`` in (0, 1]: 1 takes each error as it comes.
    min_speed
        Below this speed [rad/s] a joint's error is not checked (seed 003's
        remedy for false alarms at direction changes); 0 checks always.
    """

    threshold: tuple[float, ...] = (10.0,)
    filter_coefficient: float = 1.0
    min_speed: float = 0.0

    def __post_init__(self) -> None:
        value = (self.threshold,) if np.isscalar(self.threshold) else tuple(self.threshold)
        object.__setattr__(self, "threshold", tuple(float(v) for v in value))
        if any(not (v > 0) for v in self.threshold):
            raise ConfigurationError(f"threshold (--threshold-nm): expected values > 0 N m, got {self.threshold}")
        if not 0 < self.filter_coefficient <= 1:
            raise ConfigurationError(f"filter_coefficient (--filter): expected a value in (0, 1], got "
                                     f"{self.filter_coefficient!r}")
        if not (math.isfinite(self.min_speed) and self.min_speed >= 0):
            raise ConfigurationError(f"min_speed (--min-speed-rad-s): expected >= 0 rad/s, got {self.min_speed!r}")


@dataclass(frozen=True, eq=False)
class CollisionResult:
    """Per sample and joint: the filtered torque error and whether it is a collision.

    Attributes
    ----------
    error
        ``TE`` ``(N, n)`` [N m].
    flags
        ``(N, n)`` booleans: ``|TE|`` above the threshold (where checked).
    """

    error: FloatArray
    flags: np.ndarray

    @property
    def detected(self) -> bool:
        return bool(self.flags.any())

    def first(self) -> int | None:
        """Index of the first sample flagged on any joint, or ``None``."""
        rows = np.flatnonzero(self.flags.any(axis=1))
        return int(rows[0]) if rows.size else None


def torque_error_filter(error: ArrayLike, coefficient: float) -> FloatArray:
    """softMC's ``TE = TEF TE_current + (1 - TEF) TE_previous`` along axis 0 of ``error`` ``(N, n)``."""
    e = np.asarray(error, dtype=float)
    if coefficient == 1.0:
        return e.copy()
    import scipy.signal

    # First-order recursion TE[k] = a e[k] + (1 - a) TE[k - 1], TE[-1] = 0.
    return scipy.signal.lfilter([coefficient], [1.0, -(1.0 - coefficient)], e, axis=0)


def detect_collisions(measured: ArrayLike, predicted: ArrayLike, qd: ArrayLike,
                      options: CollisionOptions = CollisionOptions()) -> CollisionResult:
    """Flag samples whose (filtered) torque error ``measured - predicted`` exceeds the threshold (seed 003).

    Parameters
    ----------
    measured, predicted
        Joint torques ``(N, n)`` [N m]: the drives' readings and the model's (e.g.
        :meth:`thermocomp.dynamics.identify.Identification.predict`).
    qd
        Joint speeds ``(N, n)`` [rad/s], for ``min_speed``.
    """
    measured = np.asarray(measured, dtype=float)
    n = measured.shape[1]
    th = np.asarray(options.threshold, dtype=float)
    if th.size not in (1, n):
        raise ConfigurationError(f"threshold (--threshold-nm): expected 1 or {n} values, got {th.size}")
    te = torque_error_filter(measured - np.asarray(predicted, dtype=float), options.filter_coefficient)
    checked = np.abs(np.asarray(qd, dtype=float)) >= options.min_speed
    return CollisionResult(te, (np.abs(te) > th) & checked)


__all__ = ["CollisionOptions", "CollisionResult", "detect_collisions", "torque_error_filter"]
