"""Excitation trajectories: one sine wave per joint (seed 003, "Data acquisition").

Seed 003 (softMC IDM) asks for

* amplitudes close to each joint's full range, around the middle of it;
* peak speeds close to each joint's maximum speed ("in high velocities, the
  acceleration and velocity objects of the dynamic model are significant");
* a different frequency per joint, and frequency ratios whose motion does
  not repeat within the recording ("if the frequency of some joint is a
  multiplication of the frequency of another joint, the same motion will be
  repeated after a few cycles"; its Table 2: ``{1, 2, 1.2}`` bad,
  ``{1.1, 1.3, 1.5}`` good);
* at least three cycles of every joint in the recording.

Joint ``i`` follows ``q_i(t) = c_i + A_i sin(2 pi f_i t)`` (controller angles,
rad; ``t`` in s from the start of the recording, which like softMC's
``IdentificationStart`` begins inside a running sine motion).

:func:`check_frequencies` grades a frequency set over a recording duration
and names each cause; :func:`design_excitation` picks amplitudes and
frequencies for a robot and refuses a set graded ``bad``.

Pure core.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from thermocomp._typing import ArrayLike, FloatArray
from thermocomp.errors import ConfigurationError
from thermocomp.robot.chain import Chain

#: Seed 003: "it is recommended to obtain data for at least three cycles for each joint".
MIN_CYCLES = 3.0

#: Two joints' motion counts as repeated when, after ``q`` cycles of the
#: slower and ``p`` of the faster, their phases differ by less than this
#: fraction of a cycle (18 degrees): past that point the pair revisits the
#: same (q_i, q_j) region and adds no new combinations. Exactly rational
#: ratios (1 : 2, 1.1 : 1.3) reach 0 at their period. The seed's good set
#: {1.1, 1.3, 1.5} comes back within 0.077 to 0.091 cycle after 3 to 8
#: cycles before its exact period of 11 cycles of joint 1, which the seed
#: does not count as repetitions: the tolerance stays below that.
REPEAT_PHASE_TOL = 0.05

#: Largest span of a joint the design uses [rad]: one full turn; a joint
#: with +-4 pi limits (continuous) swings +-pi at most.
MAX_SPAN = 2.0 * math.pi

#: Most cycle counts tried for one joint's frequency, the nearest to the ideal first: with a tiny range fraction the
#: ideal frequency is thousands of Hz and trying every count below four times it took 9 minutes
#: (``--range-fraction 1e-4``) or overflowed (``1e-320``).
MAX_CANDIDATES = 2000

#: Smallest share of a joint's range a sine may sweep (``--range-fraction``).
MIN_RANGE_FRACTION = 0.01

QUALITIES = ("good", "medium", "bad")


@dataclass(frozen=True)
class FrequencyIssue:
    """One finding on a frequency set.

    Attributes
    ----------
    cause
        ``too short`` (fewer than :data:`MIN_CYCLES` cycles), ``overlapping
        frequencies`` (two joints at the same frequency move in phase),
        ``harmonic frequencies`` (one frequency a multiple of another: the
        pair repeats after one cycle of the slower joint) or ``repeats within
        the recording`` (the pair repeats after a few cycles).
    joints
        The joints concerned (1-based).
    quality
        ``bad`` or ``medium``.
    text
        A sentence for the report.
    """

    cause: str
    joints: tuple[int, ...]
    quality: str
    text: str


@dataclass(frozen=True)
class FrequencyCheck:
    """Grade of a frequency set over a recording (seed 003, Table 2)."""

    frequencies: tuple[float, ...]
    duration: float
    issues: tuple[FrequencyIssue, ...]

    @property
    def quality(self) -> str:
        """``good``, ``medium`` or ``bad``: the worst issue's grade."""
        grades = {issue.quality for issue in self.issues}
        return "bad" if "bad" in grades else "medium" if "medium" in grades else "good"

    @property
    def causes(self) -> list[str]:
        """The distinct causes, in order of appearance."""
        return list(dict.fromkeys(issue.cause for issue in self.issues))

    def text(self) -> str:
        head = f"frequency set {', '.join(f'{f:.6g}' for f in self.frequencies)} Hz over {self.duration:.6g} s: {self.quality}"
        return "\n".join([head] + [f"  {issue.quality}: {issue.cause}: {issue.text}" for issue in self.issues])


def _pair_repeat(f_slow: float, f_fast: float, duration: float) -> tuple[int, int] | None:
    """``(q, p)``: the fewest cycles ``q`` of the slower joint after which the faster has done ``p`` cycles and the
    pair is back in phase (within :data:`REPEAT_PHASE_TOL`), within ``duration``; ``None`` if it does not repeat."""
    ratio = f_fast / f_slow
    for q in range(1, int(math.floor(f_slow * duration + 1e-9)) + 1):
        p = round(q * ratio)
        if p >= 1 and abs(q * ratio - p) < REPEAT_PHASE_TOL:
            return q, p
    return None


def check_frequencies(frequencies: ArrayLike, duration: float) -> FrequencyCheck:
    """Grade per-joint sine frequencies [Hz] for a recording of ``duration`` [s] (seed 003, Table 2).

    ``bad``: a joint completes fewer than :data:`MIN_CYCLES` cycles, two joints
    share a frequency, or one frequency is an integer multiple of another
    (the pair repeats after one cycle of the slower joint: the seed's bad
    row ``{1, 2, 1.2}``). ``medium``: a pair repeats after a few cycles
    within the recording. ``good``: no pair repeats within the recording
    (the seed's ``{1.1, 1.3, 1.5}`` repeats only after 11 cycles of joint 1,
    10 s: good for recordings shorter than that).

    The seed's Table 2 grades ``{1, 1.2, 1.2}`` "medium"; here two joints at
    one frequency are ``bad`` (overlapping frequencies, the failure cause of
    its last section: such joints "oscillate together"), since their torque
    columns stay correlated over the whole recording.
    """
    f = np.asarray(frequencies, dtype=float)
    if f.ndim != 1 or f.size == 0 or not np.all(np.isfinite(f)) or np.any(f <= 0):
        raise ConfigurationError(f"frequencies: expected positive values in Hz, got {np.asarray(frequencies).tolist()}")
    if not (math.isfinite(duration) and duration > 0):
        raise ConfigurationError(f"duration: expected > 0 s, got {duration!r}")
    issues: list[FrequencyIssue] = []
    for i, fi in enumerate(f):
        cycles = fi * duration
        if cycles < MIN_CYCLES:
            issues.append(FrequencyIssue(
                "too short", (i + 1,), "bad",
                f"joint {i + 1} completes {cycles:.3g} cycles at {fi:.6g} Hz in {duration:.6g} s; "
                f"at least {MIN_CYCLES:g} are needed (record at least {MIN_CYCLES / fi:.3g} s)",
            ))
    for i in range(f.size):
        for j in range(i + 1, f.size):
            slow, fast = (i, j) if f[i] <= f[j] else (j, i)
            found = _pair_repeat(f[slow], f[fast], duration)
            if found is None:
                continue
            q, p = found
            a, b = slow + 1, fast + 1
            when = f"repeat after {q} cycle{'s' if q > 1 else ''} of joint {a} and {p} of joint {b} ({q / f[slow]:.3g} s)"
            if q == 1 and p == 1:
                issues.append(FrequencyIssue("overlapping frequencies", (a, b), "bad",
                                             f"joints {a} and {b} ({f[slow]:.6g} and {f[fast]:.6g} Hz) move in phase"))
            elif q == 1:
                issues.append(FrequencyIssue("harmonic frequencies", (a, b), "bad",
                                             f"joint {b} at {f[fast]:.6g} Hz is {p} x joint {a} at {f[slow]:.6g} Hz: {when}"))
            else:
                issues.append(FrequencyIssue("repeats within the recording", (a, b), "medium",
                                             f"joints {a} and {b}: {when}, within the {duration:.6g} s recording"))
    return FrequencyCheck(tuple(float(x) for x in f), float(duration), tuple(issues))


@dataclass(frozen=True)
class ExcitationOptions:
    """Options of :func:`design_excitation`.

    Attributes
    ----------
    duration
        Recording duration [s], > 0.
    range_fraction
        Amplitude as a fraction of half of each joint's range (at most
        :data:`MAX_SPAN`), in (0, 1]. Seed 003: "close to its full position range".
    speed_fraction
        Peak speed as a fraction of each joint's maximum speed, in (0, 1].
        Seed 003: "close to the maximum velocity of each joint".
    max_speed
        Speed used for joints whose limit is unknown (``inf``) [rad/s], > 0.
    frequencies
        A frequency set to use as given [Hz] (one per joint); empty: designed.
        A set graded ``bad`` is refused either way.
    """

    duration: float = 60.0
    range_fraction: float = 0.9
    speed_fraction: float = 0.9
    max_speed: float = math.pi
    frequencies: tuple[float, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        if not (math.isfinite(self.duration) and self.duration > 0):
            raise ConfigurationError(f"duration: expected > 0 s, got {self.duration!r}")
        if not (MIN_RANGE_FRACTION <= self.range_fraction <= 1):
            raise ConfigurationError(f"range_fraction (--range-fraction): expected a value in [{MIN_RANGE_FRACTION:g}, 1], "
                                     f"got {self.range_fraction!r}")
        if not (0 < self.speed_fraction <= 1):
            raise ConfigurationError(f"speed_fraction (--speed-fraction): expected a value in (0, 1], "
                                     f"got {self.speed_fraction!r}")
        if not (math.isfinite(self.max_speed) and self.max_speed > 0):
            raise ConfigurationError(f"max_speed: expected > 0 rad/s, got {self.max_speed!r}")
        object.__setattr__(self, "frequencies", tuple(float(f) for f in self.frequencies))


@dataclass(frozen=True, eq=False)
class Excitation:
    """Per-joint sine waves ``q_i(t) = centre_i + amplitude_i sin(2 pi frequency_i t)``.

    Attributes
    ----------
    centre, amplitude
        [rad], ``(n,)`` controller angles.
    frequency
        [Hz], ``(n,)``.
    duration
        [s].
    check
        The frequency set's grade.
    """

    centre: FloatArray
    amplitude: FloatArray
    frequency: FloatArray
    duration: float
    check: FrequencyCheck

    def states(self, t: ArrayLike) -> tuple[FloatArray, FloatArray, FloatArray]:
        """``q, qd, qdd`` ``(N, n)`` at times ``t`` ``(N,)`` [s] (exact derivatives)."""
        t = np.asarray(t, dtype=float)[:, None]
        w = 2.0 * math.pi * self.frequency
        s, c = np.sin(w * t), np.cos(w * t)
        return self.centre + self.amplitude * s, self.amplitude * w * c, -self.amplitude * w**2 * s

    def times(self, rate: float) -> FloatArray:
        """Sample times [s] at ``rate`` [Hz] over the duration, ``(N,)``."""
        count = int(math.floor(self.duration * rate + 1e-9)) + 1
        return np.arange(count) / rate

    @property
    def peak_speed(self) -> FloatArray:
        """``2 pi f A`` [rad/s], ``(n,)``."""
        return 2.0 * math.pi * self.frequency * self.amplitude


def _coprime_with_all(k: int, chosen: list[int]) -> bool:
    return all(math.gcd(k, c) == 1 for c in chosen)


def design_excitation(chain: Chain, options: ExcitationOptions = ExcitationOptions()) -> Excitation:
    """Amplitudes near the ranges, peak speeds near the limits, frequencies that do not repeat (seed 003).

    Each joint's ideal frequency is ``f*_i = s v_i / (2 pi A_i)`` (``s`` the
    speed fraction, ``v_i`` its speed limit, ``A_i`` its amplitude). The
    design puts every frequency on the grid ``k_i / D`` with ``D`` a little
    longer than the recording and pairwise coprime integers ``k_i`` near
    ``D f*_i`` (so no pair is back in phase before ``D``), at least
    :data:`MIN_CYCLES` cycles each, and checks the set with
    :func:`check_frequencies`; where a frequency ends above ``f*_i`` the
    amplitude shrinks to keep the peak speed at ``s v_i``.

    Raises
    ------
    ConfigurationError
        A given frequency set graded ``bad`` (the message names the causes),
        or no set found (the message says which joint and why).
    """
    n = chain.n_joints
    span = np.minimum(chain.upper - chain.lower, MAX_SPAN)
    centre = 0.5 * (chain.upper + chain.lower)
    centre = np.where(chain.upper - chain.lower > MAX_SPAN, np.clip(0.0, chain.lower + np.pi, chain.upper - np.pi), centre)
    amplitude = options.range_fraction * 0.5 * span
    speed = options.speed_fraction * np.where(np.isfinite(chain.velocity), chain.velocity, options.max_speed)
    T = options.duration
    if options.frequencies:
        f = np.asarray(options.frequencies, dtype=float)
        if f.shape != (n,):
            raise ConfigurationError(f"frequencies: expected {n} values (one per joint), got {f.size}")
    else:
        D = T * (1.0 + 2.0 * REPEAT_PHASE_TOL)
        ideal = speed / (2.0 * math.pi * amplitude)
        k_min = int(math.ceil(MIN_CYCLES * D / T))
        chosen: list[int] = []
        for i in np.argsort(ideal):
            target = max(ideal[i] * D, k_min)
            lo, hi = k_min, int(math.ceil(target * 4)) + 4 * n
            if hi - lo > MAX_CANDIDATES:  # the counts nearest the ideal one
                lo = max(k_min, int(target) - MAX_CANDIDATES // 2)
                hi = lo + MAX_CANDIDATES
            candidates = sorted(range(lo, hi), key=lambda k: (abs(math.log(k / target)), k))
            for k in candidates:
                if k in chosen or not _coprime_with_all(k, chosen):
                    continue
                trial = [c / D for c in chosen] + [k / D]
                if check_frequencies(trial, T).quality == "good":
                    chosen.append(k)
                    break
            else:
                raise ConfigurationError(
                    f"joint {i + 1}: no frequency near {ideal[i]:.4g} Hz keeps the set free of repetitions "
                    f"within {T:.6g} s; record longer or lower the speed fraction"
                )
        f = np.empty(n)
        f[np.argsort(ideal)] = np.array(chosen, dtype=float) / D
    check = check_frequencies(f, T)
    if check.quality == "bad":
        bad = [f"{i.cause}: {i.text}" for i in check.issues if i.quality == "bad"]
        raise ConfigurationError("refused excitation: " + "; ".join(bad))
    amplitude = np.minimum(amplitude, speed / (2.0 * math.pi * f))
    return Excitation(centre=centre, amplitude=amplitude, frequency=f, duration=T, check=check)


__all__ = [
    "MIN_CYCLES",
    "REPEAT_PHASE_TOL",
    "Excitation",
    "ExcitationOptions",
    "FrequencyCheck",
    "FrequencyIssue",
    "check_frequencies",
    "design_excitation",
]
