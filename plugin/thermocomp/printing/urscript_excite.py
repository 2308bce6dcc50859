"""The identification experiment as a URScript program for a real UR5 (``servo excite``).

The program moves to the start pose (``movej``), then sends the joint speeds of
:func:`thermocomp.printing.identification.experiment` with ``speedj`` once a sample (``t`` = the sample time),
computing each multi-sine sample on the controller from its frequencies, phases and scale (22 sines: a
short program, not 30,000 lines), and stops (``stopj``). Every multi-sine integrates to zero over its whole
periods and the step goes up and back down, so each joint ends where it started; the largest excursion
from the start pose is checked against the joint limits before the program is written.
"""

from __future__ import annotations

import math

import numpy as np

from thermocomp._typing import ArrayLike
from thermocomp.errors import ConfigurationError
from thermocomp.printing.identification import IdentificationOptions, experiment, layout
from thermocomp.printing.multisine import MultisineOptions, multisine, multisine_frequencies

#: ``speedj``'s acceleration [rad/s^2]: above the multi-sine's largest (peak speed times 2 pi times 3 Hz).
SPEEDJ_ACCELERATION = 10.0


def _list(values) -> str:
    return "[" + ", ".join(repr(float(v)) for v in values) + "]"


def excursion(options: IdentificationOptions, rate_hz: float, n_joints: int) -> np.ndarray:
    """The largest angle [rad] each joint moves from its start during the experiment, ``(n_joints,)``."""
    u = experiment(options, rate_hz, n_joints)
    q = np.cumsum(u, axis=0) / rate_hz
    return np.max(np.abs(q), axis=0)


def excite_urscript(options: IdentificationOptions, rate_hz: float, q_start: ArrayLike, lower: ArrayLike,
                    upper: ArrayLike, comments: tuple[str, ...] = ()) -> str:
    """The URScript program (module docstring) from ``q_start`` [rad] ``(6,)`` within ``lower``, ``upper`` [rad].

    Raises
    ------
    ConfigurationError
        When the experiment would take a joint past a limit (naming the joint and the margin).
    """
    q_start, lower, upper = (np.asarray(a, dtype=float) for a in (q_start, lower, upper))
    n = q_start.size
    reach = excursion(options, rate_hz, n)
    for j in range(n):
        if q_start[j] - reach[j] < lower[j] or q_start[j] + reach[j] > upper[j]:
            raise ConfigurationError(
                f"servo excite: joint {j + 1} would move {reach[j]:.3f} rad from {q_start[j]:.3f} rad, past its limits "
                f"[{lower[j]:.3f}, {upper[j]:.3f}] rad: choose another start pose or a lower --peak-speed")
    ms = options.multisine
    val_ms = MultisineOptions(ms.sines, ms.max_frequency_hz, ms.period_s, max(1, ms.periods - 1), ms.peak_speed_rad_s)
    f = multisine_frequencies(ms)
    m = f.size
    k = np.arange(1, m + 1)
    phases = [-math.pi * k * (k - 1) / m, -math.pi * k * (k - 1) / m + math.pi * k / m]
    scales = []
    for o, seed in ((ms, 0), (val_ms, 1)):
        raw = multisine(MultisineOptions(o.sines, o.max_frequency_hz, o.period_s, o.periods, 1.0), rate_hz, seed)
        t = np.arange(raw.size) / rate_hz
        unscaled = np.sin(2 * math.pi * f[None, :] * t[:, None] + phases[seed][None, :]).sum(axis=1)
        scales.append(float(o.peak_speed_rad_s / np.max(np.abs(unscaled))))
    lay = layout(options, rate_hz)
    T = 1.0 / rate_hz
    zero = "[" + ", ".join(["0.0"] * n) + "]"
    lines = [f"# {c}" for c in comments]
    lines += [
        "def thermocomp_servo_excite():",
        f"  T = {T!r}",
        f"  ACC = {SPEEDJ_ACCELERATION!r}",
        f"  F = {_list(f)}",
        f"  PHASE_EST = {_list(phases[0])}",
        f"  PHASE_VAL = {_list(phases[1])}",
        "  def tc_speed(j, v, samples):",
        f"    qd = {zero}",
        "    qd[j] = v",
        "    i = 0",
        "    while i < samples:",
        "      speedj(qd, ACC, T)",
        "      i = i + 1",
        "    end",
        "  end",
        "  def tc_multisine(j, samples, phase, scale):",
        f"    qd = {zero}",
        "    i = 0",
        "    while i < samples:",
        "      s = 0.0",
        "      k = 0",
        f"      while k < {m}:",
        "        s = s + sin(2.0 * pi * F[k] * i * T + phase[k])",
        "        k = k + 1",
        "      end",
        "      qd[j] = scale * s",
        "      speedj(qd, ACC, T)",
        "      i = i + 1",
        "    end",
        "  end",
        f"  movej({_list(q_start)}, a=1.0, v=0.5)",
    ]
    half = (lay.step_end - lay.step) // 2
    rest = lay.step
    for j in range(n):
        lines += [
            f"  # joint {j + 1}: rest, step up and down, rest, estimation, rest, validation, rest",
            f"  tc_speed({j}, 0.0, {rest})",
            f"  tc_speed({j}, {options.step_rad_s!r}, {half})",
            f"  tc_speed({j}, {-options.step_rad_s!r}, {lay.step_end - lay.step - half})",
            f"  tc_speed({j}, 0.0, {lay.estimation - lay.step_end})",
            f"  tc_multisine({j}, {lay.estimation_end - lay.estimation}, PHASE_EST, {scales[0]!r})",
            f"  tc_speed({j}, 0.0, {lay.validation - lay.validation_rest})",
            f"  tc_multisine({j}, {lay.validation_end - lay.validation}, PHASE_VAL, {scales[1]!r})",
            f"  tc_speed({j}, 0.0, {lay.length - lay.validation_end})",
        ]
    lines += [f"  stopj({SPEEDJ_ACCELERATION!r})", "end", "thermocomp_servo_excite()"]
    return "\n".join(lines) + "\n"
