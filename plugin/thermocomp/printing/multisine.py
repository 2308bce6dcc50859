"""The identification input: a multi-sine of 22 sines between 0 and 3 Hz (seed 004, Section 4-3).

Seed 004 excites each joint with 22 sines (persistently exciting up to order 10: the Hankel matrix's
``2n + 2`` rows) in a band of 0 to 3 Hz, smooth and low as a print's motion is. Here the sines sit on the
grid of one period (``period_s``), so whole periods repeat exactly, with Schroeder's phases (a low crest
factor), and the whole is scaled to a peak joint speed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from thermocomp._typing import FloatArray
from thermocomp.errors import ConfigurationError


@dataclass(frozen=True)
class MultisineOptions:
    """The multi-sine.

    Parameters
    ----------
    sines
        Number of sines, in [1, 200]; seed 004: 22.
    max_frequency_hz
        The highest sine's frequency [Hz], > 0; seed 004: 3.
    period_s
        One period [s] (the lowest sine's period), > 0; its samples at the rate must be an integer.
    periods
        Periods sent, >= 1.
    peak_speed_rad_s
        The largest joint speed of the signal [rad/s], > 0.
    """

    sines: int = 22
    max_frequency_hz: float = 3.0
    period_s: float = 8.0
    periods: int = 3
    peak_speed_rad_s: float = 0.2

    def __post_init__(self) -> None:
        if not (isinstance(self.sines, int) and 1 <= self.sines <= 200):
            raise ConfigurationError(f"multi-sine sines: expected an integer in [1, 200], got {self.sines!r}")
        for name in ("max_frequency_hz", "period_s", "peak_speed_rad_s"):
            value = getattr(self, name)
            if not (math.isfinite(value) and value > 0):
                raise ConfigurationError(f"multi-sine {name}: expected > 0, got {value!r}")
        if not (isinstance(self.periods, int) and self.periods >= 1):
            raise ConfigurationError(f"multi-sine periods: expected an integer >= 1, got {self.periods!r}")
        if self.max_frequency_hz * self.period_s < self.sines:
            raise ConfigurationError(
                f"multi-sine: {self.sines} sines up to {self.max_frequency_hz:g} Hz need a period of at least "
                f"{self.sines / self.max_frequency_hz:g} s, got {self.period_s:g} s")


def multisine_frequencies(options: MultisineOptions) -> FloatArray:
    """The sines' frequencies [Hz], ``(sines,)``: distinct multiples of ``1 / period_s`` spread up to the maximum."""
    top = int(math.floor(options.max_frequency_hz * options.period_s + 1e-9))
    harmonics = np.unique(np.round(np.linspace(1, top, options.sines)).astype(int))
    return harmonics / options.period_s


def multisine(options: MultisineOptions, rate_hz: float, seed_phase: int = 0) -> FloatArray:
    """The multi-sine at ``rate_hz``, ``(periods * period_s * rate_hz,)`` [rad/s], peak ``peak_speed_rad_s``.

    ``seed_phase`` turns every Schroeder phase by ``seed_phase * pi / sines``: another realisation with the same
    spectrum (a validation input).
    """
    if not (math.isfinite(rate_hz) and options.max_frequency_hz < rate_hz / 2):
        raise ConfigurationError(f"multi-sine: a rate of {rate_hz:g} Hz cannot carry sines up to "
                                 f"{options.max_frequency_hz:g} Hz (expected above {2 * options.max_frequency_hz:g} Hz)")
    per_period = options.period_s * rate_hz
    if abs(per_period - round(per_period)) > 1e-9:
        raise ConfigurationError(f"multi-sine: a period of {options.period_s:g} s is not a whole number of samples at "
                                 f"{rate_hz:g} Hz")
    f = multisine_frequencies(options)
    m = f.size
    k = np.arange(1, m + 1)
    phase = -math.pi * k * (k - 1) / m + seed_phase * math.pi * k / m  # Schroeder (1970)
    t = np.arange(int(round(per_period)) * options.periods) / rate_hz
    signal = np.sin(2 * math.pi * f[None, :] * t[:, None] + phase[None, :]).sum(axis=1)
    return signal * (options.peak_speed_rad_s / np.max(np.abs(signal)))
