"""Zero-phase low-pass filtering and non-causal differentiation of recordings (seed 003; seed 001, slide 11).

Seed 003: the recorded positions and torques are low-pass filtered with a
cutoff "below 125 Hz" (the drive's bandwidth) and "larger than the largest
sinewave frequency"; seed 001: "joint velocity and acceleration can be later
estimated off line by numerical differentiation (use of non-causal filters is
feasible)". Here: a Butterworth filter run forwards and backwards
(:func:`scipy.signal.filtfilt`: zero phase, squared magnitude), then central
differences (:func:`numpy.gradient`, second order in the interior).

Pure core.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.signal

from thermocomp._typing import ArrayLike, FloatArray
from thermocomp.errors import ConfigurationError, InputError

#: Butterworth order (run twice by filtfilt: an effective 8th order, zero phase).
FILTER_ORDER = 4

#: Seed 003: "IdentFilterFreq is a Low pass filter. Frequency should be below 125 Hz".
DRIVE_BANDWIDTH = 125.0

#: Samples dropped at each end after filtering: filtfilt's edge transients
#: decay over a few time constants of the filter (about 1 / cutoff).
EDGE_PERIODS = 3.0

#: Relative spread of sampling intervals accepted as uniform.
UNIFORM_RTOL = 1e-3


@dataclass(frozen=True)
class FilterOptions:
    """Cutoff of the zero-phase low-pass filter.

    Attributes
    ----------
    cutoff
        [Hz]; ``None``: :func:`default_cutoff`. Must lie above the highest
        excitation frequency and below the Nyquist frequency and
        :data:`DRIVE_BANDWIDTH`.
    """

    cutoff: float | None = None

    def __post_init__(self) -> None:
        if self.cutoff is not None and not (math.isfinite(self.cutoff) and self.cutoff > 0):
            raise ConfigurationError(f"cutoff (--cutoff-hz): expected > 0 Hz, got {self.cutoff!r}")


def sample_rate(t: ArrayLike, path: str | None = None) -> float:
    """The sampling rate [Hz] of uniformly spaced times ``t`` ``(N,)`` [s]."""
    t = np.asarray(t, dtype=float)
    if t.size < 3:
        raise InputError(f"expected at least 3 samples, got {t.size}", path=path)
    dt = np.diff(t)
    if np.any(dt <= 0):
        bad = int(np.argmax(dt <= 0))
        raise InputError(f"time_s must increase; sample {bad + 2} is at {t[bad + 1]!r} s after {t[bad]!r} s", path=path,
                         row=bad + 3, column="time_s")
    mean = float(np.mean(dt))
    if np.max(np.abs(dt - mean)) > UNIFORM_RTOL * mean:
        bad = int(np.argmax(np.abs(dt - mean)))
        raise InputError(f"expected uniformly spaced samples (interval {mean:.6g} s), got {dt[bad]:.6g} s before sample "
                         f"{bad + 2}", path=path, row=bad + 3, column="time_s")
    return 1.0 / mean


def default_cutoff(rate: float, highest_frequency: float) -> float:
    """A cutoff [Hz]: ten times the highest motion frequency, at most 0.4 x Nyquist and the drive bandwidth.

    Rigid-body torques of sine motions hold the motion frequencies and their
    low harmonics (products of sines in ``M(q) qdd`` and ``C qd qd``); ten
    times the highest keeps them while removing sensor noise above.
    """
    return float(min(max(10.0 * highest_frequency, 1.0), 0.4 * 0.5 * rate, DRIVE_BANDWIDTH))


def lowpass(x: ArrayLike, rate: float, cutoff: float) -> FloatArray:
    """Zero-phase Butterworth low-pass of ``x`` ``(N, ...)`` along axis 0 (:func:`scipy.signal.filtfilt`)."""
    nyquist = 0.5 * rate
    if not 0 < cutoff < nyquist:
        raise ConfigurationError(f"cutoff (--cutoff-hz): expected a value in (0, {nyquist:.6g}) Hz (the Nyquist "
                                 f"frequency), got {cutoff!r}")
    b, a = scipy.signal.butter(FILTER_ORDER, cutoff / nyquist)
    return scipy.signal.filtfilt(b, a, np.asarray(x, dtype=float), axis=0)


def differentiate(x: ArrayLike, rate: float) -> FloatArray:
    """Central-difference derivative of ``x`` ``(N, ...)`` along axis 0 sampled at ``rate`` [Hz] (non-causal)."""
    return np.gradient(np.asarray(x, dtype=float), 1.0 / rate, axis=0, edge_order=2)


def edge_samples(rate: float, cutoff: float) -> int:
    """Samples to drop at each end after filtering (:data:`EDGE_PERIODS` periods of the cutoff).

    Raises
    ------
    ConfigurationError
        A cutoff so low that the edges are more than 1e9 samples (``--cutoff-hz 1e-320`` overflowed).
    """
    samples = EDGE_PERIODS * rate / cutoff
    if not samples <= 1e9:
        raise ConfigurationError(f"cutoff (--cutoff-hz): {cutoff:.3g} Hz is too low: the filter's edges would drop "
                                 f"{samples:.3g} samples at each end of the recording")
    return int(math.ceil(samples))


__all__ = [
    "DRIVE_BANDWIDTH",
    "FILTER_ORDER",
    "FilterOptions",
    "default_cutoff",
    "differentiate",
    "edge_samples",
    "lowpass",
    "sample_rate",
]
