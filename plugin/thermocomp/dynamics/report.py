"""The identification report in the manner of softMC's IDNT file (seed 003): the verdict and what to look at.

Seed 003, "Success condition": the torque error is the model's torque minus
the measured torque, both through the same zero-phase low-pass (seed 003
filters ``tfb``; filtering the model alike keeps the filter's smoothing of
the Coulomb step at each speed reversal out of the error); the **relative
torque error** of an axis is
it divided by the axis' largest measured torque; per axis the report gives
its maximum and mean over the samples above the speed threshold, and the
identification **succeeds when every axis' maximum is below 50 %**. That
rule alone decides the verdict (and ``thermocomp identify``'s exit status).
Like the IDNT file the report states the filter cutoff (and why it was
chosen), the samples recorded and the samples used per axis with their
speed thresholds.

Seed 003 also lists reasons to look at: slow, short or small-region motions
"may be reported as successful" and still predict other motions poorly;
saturation and noise of the order of the torques make an identification
fail. Each is measured on the data in a way that holds for any excitation
(one sine per joint, a Fourier series, a recorded program) and reported as
a **warning** with its numbers:

* **too slow**: a joint's peak speed below :data:`SLOW_FRACTION` of its
  limit, or fewer than :data:`MIN_USED_FRACTION` of its samples above the
  speed threshold (the IDNT's line 7 much smaller than line 6);
* **too short**: a joint completes fewer than three periods of its slowest
  component (:func:`slowest_frequency`: the lowest spectral peak of its
  positions);
* **too small a region**: a joint covers less than :data:`REGION_FRACTION`
  of its range;
* **poorly conditioned**: the condition number of the regressor (base
  parameters and friction, columns scaled to unit norm) above
  :data:`CONDITION_LIMIT`: the motion hardly tells some parameters apart;
* **overlapping motions**: two joints' positions correlate beyond
  :data:`CORRELATION_LIMIT` (they "oscillate together");
* **saturated torques**: the torque sits at a plateau at its extreme;
* **noisy axis**: the residual deviation of an axis above
  :data:`NOISE_SHARE` of its largest torque.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.signal

from thermocomp._typing import ArrayLike, FloatArray
from thermocomp.dynamics.excitation import MAX_SPAN, MIN_CYCLES
from thermocomp.dynamics.filtering import lowpass, power_spectrum
from thermocomp.dynamics.identify import (
    CONSISTENCY_MARGIN,
    DATA_SHARE,
    LINK_PAD,
    PLAUSIBLE_REFERENCE_FACTOR,
    Identification,
    IdentifyOptions,
    margin_of,
    prepare,
)
from thermocomp.dynamics.parameters import PARAMETER_NAMES, inertial_from_parameters
from thermocomp.io.recording_csv import Recording

#: Seed 003: an axis fails when its maximum relative torque error reaches 50 %.
SUCCESS_MAX_RELATIVE_ERROR = 0.5

#: A joint whose peak speed stays below this fraction of its limit moved too slowly
#: (seed 003: "the peak velocity during the motion should be close to the maximum velocity").
SLOW_FRACTION = 0.3

#: ... or when fewer than this fraction of its samples pass the speed threshold.
MIN_USED_FRACTION = 0.5

#: A joint covering less than this fraction of its range (at most one turn)
#: explored too small a region (seed 003: "each joint should reach position
#: values closely to its negative and positive position limits").
REGION_FRACTION = 0.5

#: Two joints whose positions correlate beyond this oscillate together.
CORRELATION_LIMIT = 0.95

#: A torque plateau: at least this many samples (and 0.5 % of the recording)
#: within 1e-9 of the axis' extreme reading (a clipped drive repeats its limit).
PLATEAU_SAMPLES = 5

#: The slowest component of a joint's motion: the lowest-frequency peak of
#: its position power spectrum holding at least this share of the largest
#: peak (a Hann window's side lobes stay below 0.1 %).
SLOW_COMPONENT_SHARE = 0.01

#: Condition number of the scaled regressor above which the excitation is
#: poor. Measured on PyBullet recordings of the GoFa and the UR5 (36 base
#: parameters, 12 friction columns, 60 s at 25 Hz): the designed sines 5.5-5.7,
#: 12-harmonic Fourier series 9-18; the GoFa's sines at 10 % of the speed
#: limits 365, at a tenth of the amplitudes 1220. Two joints on one frequency
#: stay at 8: the position correlation finds those.
CONDITION_LIMIT = 100.0

#: An axis whose residual deviation exceeds this share of its largest torque
#: is noisy (seed 003: "the noise can be in the same order of magnitude of the
#: mean operation currents").
NOISE_SHARE = 0.1


@dataclass(frozen=True)
class AxisResult:
    """Per axis: the softMC figures and the excitation's measures.

    ``slowest_frequency`` [Hz] is that of the joint's slowest component
    (:func:`slowest_frequency`), ``periods`` the number of its periods in the
    recording.
    """

    joint: int
    max_relative_error: float
    mean_relative_error: float
    samples: int
    used: int
    threshold: float
    peak_speed: float
    speed_limit: float
    span: float
    range_span: float
    slowest_frequency: float
    periods: float
    nrmse: float


@dataclass(frozen=True, eq=False)
class TorqueCheck:
    """Relative torque errors of a model on a recording (seed 003), per axis, and the warnings found."""

    axes: tuple[AxisResult, ...]
    warnings: tuple[str, ...]
    condition_number: float = math.nan

    @property
    def success(self) -> bool:
        """Seed 003's success condition: every axis' maximum relative torque error below 50 %."""
        return all(a.max_relative_error < SUCCESS_MAX_RELATIVE_ERROR for a in self.axes)

    @property
    def failed_axes(self) -> list[int]:
        return [a.joint for a in self.axes if not a.max_relative_error < SUCCESS_MAX_RELATIVE_ERROR]

    @property
    def causes(self) -> list[str]:
        """The named warnings (``too slow``, ``too short``, ..), in order."""
        return list(dict.fromkeys(d.split(":")[0] for d in self.warnings))


def relative_errors(predicted: ArrayLike, measured: ArrayLike, mask: ArrayLike) -> tuple[FloatArray, FloatArray]:
    """Seed 003: per axis max and mean of ``|predicted - measured| / max|measured|`` over ``mask`` ``(N, n)``."""
    predicted, measured, mask = np.asarray(predicted), np.asarray(measured), np.asarray(mask, dtype=bool)
    scale = np.max(np.abs(measured), axis=0)
    scale[scale == 0] = 1.0
    rel = np.abs(predicted - measured) / scale
    mx = np.array([rel[mask[:, i], i].max() if mask[:, i].any() else math.inf for i in range(rel.shape[1])])
    mean = np.array([rel[mask[:, i], i].mean() if mask[:, i].any() else math.inf for i in range(rel.shape[1])])
    return mx, mean


def slowest_frequency(q: ArrayLike, rate: float) -> FloatArray:
    """Per column of ``q`` ``(N, n)``: the frequency [Hz] of its slowest component ``(n,)``.

    The lowest-frequency peak of the position's power spectrum (Hann window,
    mean removed) holding at least :data:`SLOW_COMPONENT_SHARE` of its
    largest peak: a sine's own frequency, a Fourier series' lowest
    harmonic present, about ``1 / duration`` or less for a motion that does
    not come back within the recording.
    """
    freqs, power = power_spectrum(q, rate)
    out = np.zeros(power.shape[1])
    for j in range(power.shape[1]):
        peaks, _ = scipy.signal.find_peaks(power[:, j], height=SLOW_COMPONENT_SHARE * float(np.max(power[:, j])))
        out[j] = freqs[peaks[0]] if peaks.size else 0.0
    return out


def check_torques(
    identification: Identification,
    recording: Recording,
    *,
    data=None,
    mask: ArrayLike | None = None,
) -> TorqueCheck:
    """softMC's figures of the identified model on ``recording`` and seed 003's reasons to look at.

    For the identification's own recording pass its prepared ``data`` and
    speed ``mask``: every warning is checked. For a validation recording pass
    nothing else: it is prepared with the same cutoff and speed thresholds,
    and only saturated torques are looked for (how much of the workspace a
    validation motion covers says nothing about the model).
    """
    coverage = data is not None
    chain = identification.chain
    n = chain.n_joints
    if data is None:
        cutoff = identification.data.cutoff
        data = prepare(recording, IdentifyOptions(cutoff=None if math.isnan(cutoff) else cutoff))
        mask = np.abs(data.qd) > identification.thresholds
    mask = np.asarray(mask, dtype=bool)
    predicted = identification.predict(data.q, data.qd, data.qdd)
    if not math.isnan(data.cutoff):  # the model's torques through the measured ones' filter: like with like
        predicted = lowpass(predicted, data.rate, data.cutoff)
    mx, mean = relative_errors(predicted, data.tau, mask)
    rms = np.sqrt(np.mean((predicted - data.tau) ** 2, axis=0))
    spread = np.ptp(data.tau, axis=0)
    nrmse = rms / np.where(spread > 0, spread, 1.0)
    duration = recording.duration
    slowest = slowest_frequency(recording.q, data.rate)
    peak = np.max(np.abs(data.qd), axis=0)
    span = np.ptp(recording.q, axis=0)
    range_span = np.minimum(chain.upper - chain.lower, MAX_SPAN)
    used = mask.sum(axis=0)
    axes = tuple(
        AxisResult(joint=i + 1, max_relative_error=float(mx[i]), mean_relative_error=float(mean[i]),
                   samples=int(data.q.shape[0]), used=int(used[i]), threshold=float(identification.thresholds[i]),
                   peak_speed=float(peak[i]), speed_limit=float(chain.velocity[i]), span=float(span[i]),
                   range_span=float(range_span[i]), slowest_frequency=float(slowest[i]),
                   periods=float(slowest[i] * duration), nrmse=float(nrmse[i]))
        for i in range(n)
    )
    found = warnings_found(axes, recording, data.tau_raw)
    if not coverage:
        return TorqueCheck(axes, tuple(d for d in found if d.startswith("saturated torques")))
    cond = identification.condition_number
    if cond > CONDITION_LIMIT:
        found.append(f"poorly conditioned: the regressor's condition number is {cond:.3g} (columns scaled to unit "
                     f"norm; at most {CONDITION_LIMIT:g} wanted): the motion hardly tells some parameters apart, see "
                     "the base parameters' std_%")
    scale = np.max(np.abs(data.tau_raw), axis=0)
    for i in range(n):
        if identification.sigma[i] > NOISE_SHARE * scale[i]:
            found.append(f"noisy axis: joint {i + 1}'s residual deviation {identification.sigma[i]:.3g} N m is "
                         f"{100 * identification.sigma[i] / scale[i]:.0f} % of its largest torque {scale[i]:.3g} N m "
                         f"(more than {100 * NOISE_SHARE:.0f} %)")
    return TorqueCheck(axes, tuple(found), cond)


def warnings_found(axes: tuple[AxisResult, ...], recording: Recording, tau_raw: ArrayLike) -> list[str]:
    """Seed 003's reasons to look at found in the data, one sentence each with its numbers, starting with its name."""
    out = []
    for a in axes:
        if math.isfinite(a.speed_limit) and a.peak_speed < SLOW_FRACTION * a.speed_limit:
            out.append(f"too slow: joint {a.joint} peaks at {math.degrees(a.peak_speed):.3g} deg/s, "
                       f"{100 * a.peak_speed / a.speed_limit:.0f} % of its {math.degrees(a.speed_limit):.3g} deg/s "
                       f"limit (at least {100 * SLOW_FRACTION:.0f} % wanted)")
        elif a.used < MIN_USED_FRACTION * a.samples:
            out.append(f"too slow: joint {a.joint} has {a.used} of {a.samples} samples above "
                       f"{a.threshold:.3g} rad/s")
    for a in axes:
        if a.periods < MIN_CYCLES:
            out.append(f"too short: joint {a.joint} completes {a.periods:.3g} periods of its slowest component "
                       f"({a.slowest_frequency:.3g} Hz over {recording.duration:.3g} s); at least {MIN_CYCLES:g} "
                       "wanted")
    for a in axes:
        if a.span < REGION_FRACTION * a.range_span:
            out.append(f"too small a region: joint {a.joint} covers {math.degrees(a.span):.3g} deg of its "
                       f"{math.degrees(a.range_span):.3g} deg range ({100 * a.span / a.range_span:.0f} %; at least "
                       f"{100 * REGION_FRACTION:.0f} % wanted)")
    q = recording.q - recording.q.mean(axis=0)
    sd = q.std(axis=0)
    n = q.shape[1]
    for i in range(n):
        for j in range(i + 1, n):
            if sd[i] > 0 and sd[j] > 0:
                r = float(np.mean(q[:, i] * q[:, j]) / (sd[i] * sd[j]))
                if abs(r) > CORRELATION_LIMIT:
                    out.append(f"overlapping motions: joints {i + 1} and {j + 1} oscillate together "
                               f"(position correlation {r:.3f}, above {CORRELATION_LIMIT:g})")
    tau = np.asarray(tau_raw)
    for i in range(tau.shape[1]):
        extreme = float(np.max(np.abs(tau[:, i])))
        at = int(np.sum(np.abs(tau[:, i]) >= extreme * (1 - 1e-9)))
        if extreme > 0 and at >= max(PLATEAU_SAMPLES, 0.005 * tau.shape[0]):
            out.append(f"saturated torques: joint {i + 1} reads its extreme {extreme:.6g} N m in {at} samples "
                       "(a plateau: the drive saturates)")
    return out


def _verdict_lines(check: TorqueCheck) -> list[str]:
    failed = check.failed_axes
    if not failed:
        return []
    worst = ", ".join(f"axis {a.joint} {100 * a.max_relative_error:.1f} %" for a in check.axes if a.joint in failed)
    return [f"failed: {worst} (at least {100 * SUCCESS_MAX_RELATIVE_ERROR:.0f} %); seed 003's reasons for a failure: "
            "too slow, saturated torques, noise of the order of the torques"
            + (" (see the warnings)" if check.warnings else " (none found in the data: look at the model and the "
               "torque units)")]


#: A separable armature is reported as decided by the data when its WLS value is at least this many standard
#: deviations (it may be zero otherwise: the motor's rotor is light or the gear ratio low).
ARMATURE_SIGNIFICANCE = 3.0


def _armature_columns(ident: Identification) -> int:
    return 0 if ident.armature_values is None else int(np.sum(np.isfinite(ident.armature_values)))


def armature_lines(ident: Identification) -> list[str]:
    """The report's armature section: per joint the written value, the WLS value and standard deviation, and
    whether the data decide it (separable and significant), or why not."""
    n = ident.chain.n_joints
    if ident.armature_split is None:
        held = np.any(ident.friction.armature)
        return ["armature (reflected rotor inertia N^2 J_m [kg m^2]): "
                + ("held fixed: " + ", ".join(f"{a:.4g}" for a in ident.friction.armature) if held
                   else "not identified (none in the model)")]
    lines = ["armature (reflected rotor inertia N^2 J_m [kg m^2] about each joint axis, added to the mass matrix's "
             "diagonal; written to the friction CSV's armature_kg_m2): written value, WLS value +- std, and who decides "
             f"it (data: separable and at least {ARMATURE_SIGNIFICANCE:g} std from 0):"]
    split = ident.armature_split
    for j in range(n):
        a = float(ident.friction.armature[j])
        if not split.separable[j]:
            into = ", ".join(split.absorbed_by(ident.base, j)) or "the base parameters"
            lines.append(f"  joint {j + 1}: {a:.4g}; no torque tells it from the links' inertia ({into} holds their "
                         f"sum): the split comes from the reference ({ident.reference_armature[j]:.4g}) and the links' "
                         "plausibility")
            continue
        v, sd = float(ident.armature_values[j]), float(ident.armature_std[j])
        if not math.isfinite(v):
            lines.append(f"  joint {j + 1}: {a:.4g}; this motion does not determine it (held at the reference "
                         f"{ident.reference_armature[j]:.4g})")
            continue
        who = "data" if abs(v) >= ARMATURE_SIGNIFICANCE * sd else "data: not significantly different from 0"
        lines.append(f"  joint {j + 1}: {a:.4g}; WLS {v:.4g} +- {sd:.2g} ({who})")
    return lines


def report_text(identification: Identification, own: TorqueCheck, validation: TorqueCheck | None = None,
                source: str = "", validation_source: str = "") -> str:
    """The identification report (seed 003's IDNT in words), with base parameters, friction and inertials."""
    ident = identification
    chain = ident.chain
    n = chain.n_joints
    ok = own.success and (validation is None or validation.success)
    lines = [
        f"Identification {'SUCCEEDED' if ok else 'FAILED'}: robot {chain.name}, recording {source or '-'}",
        f"verdict: seed 003's success condition, every axis' maximum relative torque error below "
        f"{100 * SUCCESS_MAX_RELATIVE_ERROR:.0f} %" + (" (also on the validation recording)" if validation else "")
        + "; the warnings are seed 003's reasons to look at (a motion can pass and still predict others poorly)",
        *_verdict_lines(own),
        "filter: zero-phase Butterworth low-pass, cutoff "
        + ("none" if math.isnan(ident.data.cutoff) else f"{ident.data.cutoff:.4g} Hz")
        + f" ({ident.data.cutoff_reason}); sampling {ident.data.rate:.6g} Hz; "
        f"{ident.data.samples} samples recorded, {ident.data.dropped} dropped at each end",
        f"excitation: regressor condition number {own.condition_number:.4g} ({ident.base.n_base} base parameters, "
        f"{_armature_columns(ident)} armature and "
        f"{ident.friction_values.size if np.any(ident.friction_std) else 0} friction columns, scaled to unit norm)",
        f"warnings when: too slow below {100 * SLOW_FRACTION:.0f} % of the speed limit or {100 * MIN_USED_FRACTION:.0f} % "
        f"of the samples above the threshold; too short below {MIN_CYCLES:g} periods of a joint's slowest component; "
        f"too small below {100 * REGION_FRACTION:.0f} % of the range; poorly conditioned above {CONDITION_LIMIT:g}; "
        f"position correlation above {CORRELATION_LIMIT:g}; noisy above {100 * NOISE_SHARE:.0f} % of the largest torque",
        "",
        "axis  max_rel_err_%  mean_rel_err_%  samples  used  threshold_rad_s  peak_deg_s  limit_%  span_%  "
        "slowest_Hz  periods  nrmse_%",
    ]
    for a in own.axes:
        limit = 100 * a.peak_speed / a.speed_limit if math.isfinite(a.speed_limit) else math.nan
        lines.append(f"{a.joint:>4}  {100 * a.max_relative_error:>13.2f}  {100 * a.mean_relative_error:>14.2f}  "
                     f"{a.samples:>7}  {a.used:>4}  {a.threshold:>15.4g}  {math.degrees(a.peak_speed):>10.4g}  "
                     f"{limit:>7.0f}  {100 * a.span / a.range_span:>6.0f}  {a.slowest_frequency:>10.4g}  "
                     f"{a.periods:>7.3g}  {100 * a.nrmse:>7.3g}")
    if own.warnings:
        lines += ["", "warnings (seed 003's reasons to look at):"] + [f"  {d}" for d in own.warnings]
    if validation is not None:
        lines += ["", f"validation on {validation_source or 'a second recording'}: "
                  f"{'passed' if validation.success else 'FAILED'}", *_verdict_lines(validation),
                  "axis  max_rel_err_%  mean_rel_err_%  nrmse_%"]
        for a in validation.axes:
            lines.append(f"{a.joint:>4}  {100 * a.max_relative_error:>13.2f}  {100 * a.mean_relative_error:>14.2f}  "
                         f"{100 * a.nrmse:>7.3g}")
        if validation.warnings:
            lines += ["warnings:"] + [f"  {d}" for d in validation.warnings]
    lines += ["", f"base parameters (weighted least squares; {ident.base.n_base} of {10 * n} standard "
              "parameters' combinations; per-joint noise weights "
              + ", ".join(f"{s:.3g}" for s in ident.sigma) + " N m):",
              "  value  std  std_%  combination"]
    for v, s, comb in zip(ident.base_values, ident.base_std, ident.base.combinations()):
        rel = 100 * s / abs(v) if v != 0 else math.inf
        lines.append(f"  {v:.6g}  {s:.3g}  {rel:.3g}  {comb}")
    held = not np.any(ident.friction_std)
    lines += ["", "friction (Coulomb Fc [N m], viscous Fv [N m s/rad]; "
              + ("held fixed, e.g. from Step 3: seed 000 Step 5):" if held else "WLS value +- std):")]
    for j in range(n):
        fc, fv = ident.friction_values[2 * j:2 * j + 2]
        sc, sv = ident.friction_std[2 * j:2 * j + 2]
        lines.append(f"  joint {j + 1}: Fc {fc:.4g} +- {sc:.2g}, Fv {fv:.4g} +- {sv:.2g}")
    lines += ["", *armature_lines(ident)]
    own_parameters = (ident.parameters - ident.attached).reshape(n, 10)
    margins = margin_of(own_parameters)
    lines += ["", "physically consistent link inertials (written to the URDF; link frames, com in mm). margin_%: the "
              "smallest second moment of the mass about its centre over their sum, at least "
              f"{100 * CONSISTENCY_MARGIN:g} % (each triangle inequality I_i < I_j + I_k holds with a slack of that "
              "share of tr(I_C)); rms/ball: the mass' RMS distance from the centre of the link's ball over its "
              f"radius, at most 1 (ball: midway between the link's joint and the next, radius half that distance + "
              f"{LINK_PAD:g} m, or {PLAUSIBLE_REFERENCE_FACTOR:g} x the reference's RMS radius):",
              "  link  mass_kg  com_x_mm  com_y_mm  com_z_mm  principal_moments_kg_m2  margin_%  rms/ball"]
    for k in range(n):
        link = inertial_from_parameters(own_parameters[k], f"link{k + 1}")
        c = 1000 * link.com
        pm = ", ".join(f"{m:.4g}" for m in link.principal_moments)
        c0, r = ident.balls[k, :3], ident.balls[k, 3]
        p_k = own_parameters[k]
        rms = math.sqrt(max(0.5 * (p_k[4] + p_k[7] + p_k[9]) - 2 * float(p_k[1:4] @ c0) + p_k[0] * float(c0 @ c0),
                            0.0) / p_k[0])
        lines.append(f"  link{k + 1}  {link.mass:.4g}  {c[0]:.4g}  {c[1]:.4g}  {c[2]:.4g}  {pm}  "
                     f"{100 * margins[k]:.3g}  {rms / r:.3g}")
    lines += ["", f"what the data decide and what comes from the reference (ridge pull to the reference, weight from "
              f"{ident.prior_story}); per link, the parameters whose value the data decide to at least "
              f"{100 * DATA_SHARE:.0f} % (data), at most {100 * (1 - DATA_SHARE):.0f} % (reference), or between "
              "(mixed, with the data's share):"]
    for k in range(n):
        share = ident.data_share[10 * k:10 * k + 10]
        groups = {"data": [], "reference": [], "mixed": []}
        for name, s in zip(PARAMETER_NAMES, share):
            if s >= DATA_SHARE:
                groups["data"].append(name)
            elif s <= 1 - DATA_SHARE:
                groups["reference"].append(name)
            else:
                groups["mixed"].append(f"{name} {100 * s:.0f} %")
        lines.append(f"  link{k + 1}: " + "; ".join(f"{key}: {', '.join(v)}" for key, v in groups.items() if v))
    return "\n".join(lines) + "\n"


__all__ = [
    "ARMATURE_SIGNIFICANCE",
    "CONDITION_LIMIT",
    "CORRELATION_LIMIT",
    "MIN_USED_FRACTION",
    "NOISE_SHARE",
    "REGION_FRACTION",
    "SLOW_COMPONENT_SHARE",
    "SLOW_FRACTION",
    "SUCCESS_MAX_RELATIVE_ERROR",
    "AxisResult",
    "TorqueCheck",
    "armature_lines",
    "check_torques",
    "relative_errors",
    "report_text",
    "slowest_frequency",
    "warnings_found",
]
