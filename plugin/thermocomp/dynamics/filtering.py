"""Zero-phase low-pass filtering and non-causal differentiation of recordings (seed 003; seed 001, slide 11).

Seed 003: the recorded positions and torques are low-pass filtered with a
cutoff "below 125 Hz" (the drive's bandwidth) and "larger than the largest
sinewave frequency"; seed 001: "joint velocity and acceleration can be later
estimated off line by numerical differentiation (use of non-causal filters is
feasible)". Here: a Butterworth filter run forwards and backwards
(:func:`scipy.signal.filtfilt`: zero phase, squared magnitude), then central
differences (:func:`numpy.gradient`, second order in the interior).

The automatic cutoff (:func:`choose_cutoff`) follows the recorded positions'
own band (:func:`bandwidth`) with the white-noise floor taken off, so a sine
per joint, a Fourier series and a recorded program are treated alike.

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


def sample_rate(t: ArrayLike, path: str | None = None) -> float:
    """The sampling rate [Hz] of uniformly spaced times ``t`` ``(N,)`` [s]."""
    t = np.asarray(t, dtype=float)
    if t.size < 3:
        raise InputError(f"expected at least 3 samples, got {t.size}", path=path)
    dt = np.diff(t)
    if np.any(dt <= 0):
        bad = int(np.argmax(dt <= 0))
        raise InputError(f"time_s must increase; sample {bad + 2} is at {float(t[bad + 1])!r} s after "
                         f"{float(t[bad])!r} s", path=path, row=bad + 3, column="time_s")
    mean = float(np.mean(dt))
    if np.max(np.abs(dt - mean)) > UNIFORM_RTOL * mean:
        bad = int(np.argmax(np.abs(dt - mean)))
        raise InputError(f"expected uniformly spaced samples (interval {mean:.6g} s), got {dt[bad]:.6g} s before sample "
                         f"{bad + 2}", path=path, row=bad + 3, column="time_s")
    return 1.0 / mean


#: Share of a position's power (white-noise floor removed) below its bandwidth: the trajectory's own band.
#: A 12-harmonic Fourier excitation with equal speed amplitudes holds 0.44 % of its position power in
#: the 12th harmonic; 99.9 % puts the band's edge on it.
BANDWIDTH_POWER_SHARE = 0.999

#: A joint moves when its position power above the noise floor is at least this many times the noise's (20 dB).
MOTION_SNR = 100.0

#: Cutoff over the positions' bandwidth. The torques of a motion hold products of its components
#: (``M(q) qdd``, ``C qd qd``, ``g(q)``): up to about twice its band; the 4th-order Butterworth run forwards and
#: backwards passes ``1 / (1 + (f / fc)^8)`` of the power, 99.6 % at half the cutoff.
CUTOFF_MARGIN = 4.0

#: Highest automatic cutoff as a share of the Nyquist frequency (the filter's design stays away from it).
MAX_CUTOFF_NYQUIST = 0.4


@dataclass(frozen=True)
class Cutoff:
    """The low-pass cutoff of an identification and why it was chosen.

    Attributes
    ----------
    value
        [Hz]; ``nan``: nothing filtered (the recording gives speeds and accelerations).
    bandwidth
        [Hz] the positions' bandwidth (:func:`bandwidth`), ``nan`` when not measured.
    reason
        A sentence for the report.
    """

    value: float
    bandwidth: float
    reason: str


def power_spectrum(x: ArrayLike, rate: float) -> tuple[FloatArray, FloatArray]:
    """``(freqs (m,), power (m, n))``: Hann-windowed, 4x zero-padded power spectrum of each column of ``x`` ``(N, n)``
    (its window-weighted mean removed, so the power at 0 Hz is 0 and a slow drift shows as a low peak)."""
    x = np.asarray(x, dtype=float)
    n = x.shape[0]
    window = np.hanning(n)[:, None]
    x = x - np.sum(window * x, axis=0) / np.sum(window)
    pad = 4 * n
    power = np.abs(np.fft.rfft(x * window, n=pad, axis=0)) ** 2
    return np.fft.rfftfreq(pad, 1.0 / rate), power


def bandwidth(x: ArrayLike, rate: float, share: float = BANDWIDTH_POWER_SHARE) -> FloatArray:
    """Per column of ``x`` ``(N, n)`` the frequency [Hz] below which ``share`` of its power lies, ``(n,)``.

    White noise (encoder quantisation, sensor noise) spreads its power evenly
    up to the Nyquist frequency; its level, the median power of the upper
    half of the band, is taken off every frequency first, so the band is the
    motion's and not the noise's. A column whose remaining power is not
    :data:`MOTION_SNR` times the noise's (a joint at rest: what remains is
    the noise's own scatter, spread up to the Nyquist frequency) gets 0, as does a column that holds one value
    throughout (its spectrum is the round-off of removing its mean, and no noise floor: a band of 0.009 Hz came
    out of a robot at rest).
    """
    freqs, power = power_spectrum(x, rate)
    still = np.ptp(np.asarray(x, dtype=float), axis=0) == 0
    upper = freqs >= 0.5 * freqs[-1]
    floor = np.median(power[upper], axis=0)
    signal = np.maximum(power - floor, 0.0)
    signal[0] = 0.0
    total = signal.sum(axis=0)
    cumulative = np.cumsum(signal, axis=0)
    out = np.zeros(signal.shape[1])
    for j in range(signal.shape[1]):
        if total[j] > MOTION_SNR * floor[j] * freqs.size and not still[j]:
            out[j] = freqs[int(np.searchsorted(cumulative[:, j], share * total[j]))]
    return out


def choose_cutoff(q: ArrayLike, rate: float) -> Cutoff:
    """The automatic cutoff: :data:`CUTOFF_MARGIN` times the positions' widest :func:`bandwidth`, at most
    :data:`MAX_CUTOFF_NYQUIST` of the Nyquist frequency and :data:`DRIVE_BANDWIDTH`.

    Seed 003: the cutoff "must be larger than the largest sinewave frequency";
    for a Fourier excitation that is its highest harmonic. The band is
    measured on the recorded positions, so a sine and a Fourier excitation,
    or a recorded program, are treated alike.

    A recording in which no joint moves above the noise (a robot at rest,
    e.g. for collision detection) gets the highest cutoff: there is no band
    to keep.
    """
    band = bandwidth(q, rate)
    nyquist = 0.5 * rate
    highest = min(MAX_CUTOFF_NYQUIST * nyquist, DRIVE_BANDWIDTH)
    if not np.any(band > 0):
        return Cutoff(float(highest), 0.0, "automatic: no joint moves above its noise, the highest automatic cutoff "
                      f"({MAX_CUTOFF_NYQUIST:g} x the Nyquist frequency {nyquist:.4g} Hz or the drive bandwidth)")
    j = int(np.argmax(band))
    wanted = CUTOFF_MARGIN * float(band[j])
    value = min(wanted, highest)
    why = (f"{CUTOFF_MARGIN:g} x {band[j]:.4g} Hz, the frequency below which {100 * BANDWIDTH_POWER_SHARE:g} % of "
           f"joint {j + 1}'s position power lies (white-noise floor removed; the widest band of the joints)")
    if value < wanted:
        bound = ("the drive bandwidth" if value == DRIVE_BANDWIDTH
                 else f"{MAX_CUTOFF_NYQUIST:g} x the Nyquist frequency {nyquist:.4g} Hz")
        why = f"{why}, bounded by {bound}"
    return Cutoff(float(value), float(band[j]), f"automatic: {why}")


def lowpass(x: ArrayLike, rate: float, cutoff: float) -> FloatArray:
    """Zero-phase Butterworth low-pass of ``x`` ``(N, ...)`` along axis 0 (:func:`scipy.signal.filtfilt`)."""
    nyquist = 0.5 * rate
    if not 0 < cutoff < nyquist:
        raise ConfigurationError(f"cutoff (--cutoff-hz): expected a value in (0, {nyquist:.6g}) Hz (the Nyquist "
                                 f"frequency), got {cutoff!r}")
    # second-order sections: the transfer function's polynomials lose every digit at a low cutoff (0.035 Hz at 1 kHz,
    # a robot at rest for 17 minutes: its filtered torques grew to 1e134 N m and flagged false collisions)
    sos = scipy.signal.butter(FILTER_ORDER, cutoff / nyquist, output="sos")
    return scipy.signal.sosfiltfilt(sos, np.asarray(x, dtype=float), axis=0)


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
    "BANDWIDTH_POWER_SHARE",
    "CUTOFF_MARGIN",
    "DRIVE_BANDWIDTH",
    "FILTER_ORDER",
    "MAX_CUTOFF_NYQUIST",
    "MOTION_SNR",
    "Cutoff",
    "bandwidth",
    "choose_cutoff",
    "differentiate",
    "edge_samples",
    "lowpass",
    "power_spectrum",
    "sample_rate",
]
