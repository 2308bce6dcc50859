"""Time laws beyond the linear ramp: a first-order thermal response and a map from measured temperatures.

Same interface as :class:`~thermocomp.deformation.timelaw.LinearRamp` and
:class:`~thermocomp.deformation.timelaw.Static`: ``fraction(minute)`` gives
the share of the full table applied at each minute [min] (every parameter
of the table scaled by it), ``describe()`` a line of text. Seed 002 uses a
linear growth to stabilisation; a body heated at constant power with
losses proportional to its temperature rise follows a first-order response
instead, and a robot whose temperatures are measured can be mapped from
them directly.

Fitted by :mod:`thermocomp.calibration.timefit`, written beside the table
and read back by :mod:`thermocomp.io.timelaw_file` (docs/calibration.md).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from thermocomp._typing import ArrayLike, FloatArray
from thermocomp.errors import ConfigurationError

#: The robot works (heats) from minute 0 on, without pauses.
ALWAYS_ON: tuple[tuple[float, float], ...] = ((0.0, float("inf")),)


def check_heat_on(heat_on: object) -> tuple[tuple[float, float], ...]:
    """Intervals ``[start, stop)`` [min] of heating, sorted, disjoint, ``0 <= start < stop``."""
    try:
        intervals = tuple((float(a), float(b)) for a, b in heat_on)  # type: ignore[union-attr]
    except (TypeError, ValueError):
        raise ConfigurationError(f"heat_on: expected pairs (start_min, stop_min), got {heat_on!r}") from None
    previous = 0.0
    for k, (a, b) in enumerate(intervals):
        if not (np.isfinite(a) and a >= previous and b > a) or np.isnan(b):
            raise ConfigurationError(
                f"heat_on: expected sorted, disjoint intervals with 0 <= start < stop [min], got interval {k + 1} "
                f"({a:g}, {b:g}) after {previous:g}")
        previous = b
    return intervals


@dataclass(frozen=True)
class FirstOrder:
    """First-order thermal response: heating towards the full table, cooling towards none.

    While the robot works (inside a ``heat_on`` interval) the fraction ``x``
    rises as ``dx/dt = (1 - x) / tau``; while it pauses it decays as
    ``dx/dt = -x / tau_cool``. ``x = 0`` at minute 0 (the cold robot), so
    with no pause ``x(t) = 1 - exp(-t / tau)``: 63 % at ``tau``, 99 % at
    ``4.6 tau``. The full table is the deformation of the robot stabilised
    at working temperature.

    Parameters
    ----------
    tau_min
        Heating time constant [min], > 0.
    tau_cool_min
        Cooling time constant [min], > 0; ``None``: the same as ``tau_min``.
    heat_on
        Intervals ``[start, stop)`` [min] during which the robot works;
        default :data:`ALWAYS_ON`. Outside them it cools.
    """

    tau_min: float
    tau_cool_min: float | None = None
    heat_on: tuple[tuple[float, float], ...] = ALWAYS_ON

    def __post_init__(self) -> None:
        for name in ("tau_min", "tau_cool_min"):
            value = getattr(self, name)
            if value is not None and not (np.isfinite(value) and value > 0):
                raise ConfigurationError(f"{name}: expected a positive number of minutes, got {value!r}")
        object.__setattr__(self, "heat_on", check_heat_on(self.heat_on))

    @property
    def tau_cool(self) -> float:
        """The cooling time constant actually used [min]."""
        return self.tau_min if self.tau_cool_min is None else float(self.tau_cool_min)

    @property
    def stabilisation_min(self) -> float:
        """Minute at which a robot heating without pause reaches 99.9 % of the table: ``tau ln(1000)``."""
        return float(self.tau_min * np.log(1000.0))

    @functools.cached_property
    def _segments(self) -> tuple[FloatArray, FloatArray, FloatArray]:
        """Start minute, heating flag and fraction at the start of each constant segment: computed once, in time
        linear in the intervals (a time-law file of 100,000 of them took minutes, each segment looked in every
        interval at every minute)."""
        edges = sorted({0.0, *[t for ab in self.heat_on for t in ab if np.isfinite(t)]})
        starts = np.array(edges)
        a, b = np.array(self.heat_on).T
        k = np.searchsorted(a, starts, side="right") - 1  # (the last interval starting at or before: sorted, disjoint)
        on = ((k >= 0) & (starts < b[np.maximum(k, 0)])).astype(float)
        decay = np.exp(-np.diff(starts) / np.where(on[:-1] > 0, self.tau_min, self.tau_cool))
        x0 = np.zeros(starts.size)
        for k, (heat, keep) in enumerate(zip(on[:-1].tolist(), decay.tolist()), 1):
            x0[k] = heat + (x0[k - 1] - heat) * keep  # (:meth:`_advance` over the segment before)
        return starts, on, x0

    def _advance(self, x: ArrayLike, on: ArrayLike, dt: ArrayLike) -> FloatArray:
        on = np.asarray(on, dtype=float)
        tau = np.where(on > 0, self.tau_min, self.tau_cool)
        return on + (np.asarray(x) - on) * np.exp(-np.asarray(dt, dtype=float) / tau)

    def fraction(self, minute: ArrayLike) -> FloatArray:
        """Fraction of the full table at ``minute`` [min] (shape of ``minute``); 0 before minute 0."""
        t = np.asarray(minute, dtype=float)
        starts, on, x0 = self._segments
        k = np.clip(np.searchsorted(starts, t, side="right") - 1, 0, starts.size - 1)
        x = self._advance(x0[k], on[k], np.maximum(t - starts[k], 0.0))
        return np.where(t > 0, x, 0.0)

    def describe(self) -> str:
        cool = "" if self.tau_cool_min is None else f", cooling tau {self.tau_cool_min:.4g} min"
        pauses = "" if self.heat_on == ALWAYS_ON else (
            "; working " + ", ".join(f"{a:g}-{b:g}" for a, b in self.heat_on) + " min, cooling otherwise")
        return f"first-order thermal response, tau {self.tau_min:.4g} min{cool}{pauses}"


@dataclass(frozen=True)
class TemperatureMap:
    """The fraction as a linear map of measured temperatures.

    ``fraction = sum_k w_k (T_k - T_ref,k)``: zero at the reference
    (cold) temperatures. Within thermocomp a table grows with one scalar,
    so the channels combine into one weighted rise. ``fraction(minute)``
    interpolates a temperature log linearly in time (held constant outside
    it); :meth:`fraction_from_temperatures` takes temperatures directly.

    Parameters
    ----------
    weights_per_C
        ``w_k`` [1/deg C], ``(k,)``.
    reference_C
        ``T_ref,k`` [deg C], ``(k,)``.
    log_minute
        Minutes of the temperature log [min], increasing, ``(L,)``.
    log_C
        Temperatures at those minutes [deg C], ``(L, k)``.
    """

    weights_per_C: tuple[float, ...]
    reference_C: tuple[float, ...]
    log_minute: tuple[float, ...]
    log_C: tuple[tuple[float, ...], ...]

    def __post_init__(self) -> None:
        w = np.asarray(self.weights_per_C, dtype=float)
        ref = np.asarray(self.reference_C, dtype=float)
        t = np.asarray(self.log_minute, dtype=float)
        log = np.asarray(self.log_C, dtype=float)
        k = w.size
        if k == 0 or ref.shape != (k,) or log.ndim != 2 or log.shape != (t.size, k) or t.size == 0:
            raise ConfigurationError(
                f"temperature map: expected k weights, k reference temperatures and an (L, k) log at L minutes, "
                f"got {w.size}, {ref.size}, {log.shape} at {t.size}")
        if not (np.all(np.isfinite(w)) and np.all(np.isfinite(ref)) and np.all(np.isfinite(log))
                and np.all(np.isfinite(t)) and np.all(np.diff(t) > 0)):
            raise ConfigurationError("temperature map: expected finite numbers and increasing log minutes")
        object.__setattr__(self, "weights_per_C", tuple(map(float, w)))
        object.__setattr__(self, "reference_C", tuple(map(float, ref)))
        object.__setattr__(self, "log_minute", tuple(map(float, t)))
        object.__setattr__(self, "log_C", tuple(tuple(map(float, row)) for row in log))

    @property
    def n_channels(self) -> int:
        return len(self.weights_per_C)

    @property
    def stabilisation_min(self) -> float:
        """The logged minute with the largest fraction (the warmest state logged)."""
        f = self.fraction_from_temperatures(np.asarray(self.log_C))
        return float(self.log_minute[int(np.argmax(f))])

    def fraction_from_temperatures(self, temperature_C: ArrayLike) -> FloatArray:
        """Fraction for temperatures ``(..., k)`` [deg C]."""
        T = np.asarray(temperature_C, dtype=float)
        return (T - np.asarray(self.reference_C)) @ np.asarray(self.weights_per_C)

    def temperatures(self, minute: ArrayLike) -> FloatArray:
        """The logged temperatures interpolated at ``minute`` [min], shape ``minute.shape + (k,)``."""
        t = np.asarray(minute, dtype=float)
        log = np.asarray(self.log_C)
        return np.stack([np.interp(t, self.log_minute, log[:, j]) for j in range(self.n_channels)], axis=-1)

    def fraction(self, minute: ArrayLike) -> FloatArray:
        """Fraction at ``minute`` [min] from the temperature log (shape of ``minute``)."""
        return self.fraction_from_temperatures(self.temperatures(minute))

    def describe(self) -> str:
        terms = " + ".join(f"{w:.4g}/C x (T{k + 1} - {r:.4g} C)"
                           for k, (w, r) in enumerate(zip(self.weights_per_C, self.reference_C)))
        return (f"linear map from temperatures: fraction = {terms}, temperatures logged at "
                f"{len(self.log_minute)} minutes ({self.log_minute[0]:g} to {self.log_minute[-1]:g})")


__all__ = ["ALWAYS_ON", "FirstOrder", "TemperatureMap", "check_heat_on"]
