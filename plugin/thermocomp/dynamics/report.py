"""The identification report in the manner of softMC's IDNT file (seed 003), with a diagnosis of failures.

Seed 003, "Success condition": the torque error is the model's torque minus
the measured (filtered) torque; the **relative torque error** of an axis is
it divided by the axis' largest measured torque; per axis the report gives
its maximum and mean over the samples above the speed threshold, and the
identification **succeeds when every axis' maximum is below 50 %**. Like the
IDNT file it states the filter cutoff, the samples recorded and the samples
used per axis with their speed thresholds.

Seed 003 also lists why an identification fails or succeeds with poor
predictions; each is checked on the data and named:

* **too slow**: a joint's peak speed below :data:`SLOW_FRACTION` of its
  limit, or most of its samples below the speed threshold (the IDNT's
  line 7 much smaller than line 6);
* **too short**: a joint completes fewer than three cycles;
* **too small a region**: a joint covers less than :data:`REGION_FRACTION`
  of its range;
* **overlapping frequencies**: two joints oscillate together (same or
  harmonic frequencies, or strongly correlated positions);
* **saturated torques**: the torque sits at a plateau at its extreme.

The report fails when the 50 % criterion fails or any of these is found:
the seed warns that such data can pass the criterion "but the model is not
good enough for other movements".
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from thermocomp._typing import ArrayLike, FloatArray
from thermocomp.dynamics.excitation import MAX_SPAN, MIN_CYCLES, check_frequencies
from thermocomp.dynamics.identify import Identification, dominant_frequency, prepare
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


@dataclass(frozen=True)
class AxisResult:
    """Per axis: the softMC figures and the data checks."""

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
    frequency: float
    cycles: float
    nrmse: float


@dataclass(frozen=True, eq=False)
class TorqueCheck:
    """Relative torque errors of a model on a recording (seed 003), per axis."""

    axes: tuple[AxisResult, ...]
    diagnosis: tuple[str, ...]

    @property
    def criterion_passed(self) -> bool:
        return all(a.max_relative_error < SUCCESS_MAX_RELATIVE_ERROR for a in self.axes)

    @property
    def success(self) -> bool:
        return self.criterion_passed and not self.diagnosis

    @property
    def causes(self) -> list[str]:
        """The named failure causes (``too slow``, ``too short``, ..)."""
        return list(dict.fromkeys(d.split(":")[0] for d in self.diagnosis))


def relative_errors(predicted: ArrayLike, measured: ArrayLike, mask: ArrayLike) -> tuple[FloatArray, FloatArray]:
    """Seed 003: per axis max and mean of ``|predicted - measured| / max|measured|`` over ``mask`` ``(N, n)``."""
    predicted, measured, mask = np.asarray(predicted), np.asarray(measured), np.asarray(mask, dtype=bool)
    scale = np.max(np.abs(measured), axis=0)
    scale[scale == 0] = 1.0
    rel = np.abs(predicted - measured) / scale
    mx = np.array([rel[mask[:, i], i].max() if mask[:, i].any() else math.inf for i in range(rel.shape[1])])
    mean = np.array([rel[mask[:, i], i].mean() if mask[:, i].any() else math.inf for i in range(rel.shape[1])])
    return mx, mean


def check_torques(
    identification: Identification,
    recording: Recording,
    *,
    data=None,
    mask: ArrayLike | None = None,
) -> TorqueCheck:
    """softMC's figures and seed 003's diagnosis of the identified model on ``recording``.

    For the identification's own recording pass its prepared ``data`` and
    speed ``mask``: every failure cause is checked. For a validation
    recording pass nothing else: it is prepared with the same cutoff and
    speed thresholds, and only saturated torques are diagnosed (how much of
    the workspace a validation motion covers says nothing about the model).
    """
    coverage = data is not None
    from thermocomp.dynamics.identify import IdentifyOptions

    chain = identification.chain
    n = chain.n_joints
    if data is None:
        if recording is None:
            raise ValueError("a recording is needed")
        cutoff = identification.data.cutoff
        data = prepare(recording, IdentifyOptions(cutoff=None if math.isnan(cutoff) else cutoff))
        mask = np.abs(data.qd) > identification.thresholds
    mask = np.asarray(mask, dtype=bool)
    predicted = identification.predict(data.q, data.qd, data.qdd)
    mx, mean = relative_errors(predicted, data.tau, mask)
    rms = np.sqrt(np.mean((predicted - data.tau) ** 2, axis=0))
    spread = np.ptp(data.tau, axis=0)
    nrmse = rms / np.where(spread > 0, spread, 1.0)
    duration = recording.duration
    freq = dominant_frequency(recording.q, data.rate)
    peak = np.max(np.abs(data.qd), axis=0)
    span = np.ptp(recording.q, axis=0)
    range_span = np.minimum(chain.upper - chain.lower, MAX_SPAN)
    used = mask.sum(axis=0)
    axes = tuple(
        AxisResult(joint=i + 1, max_relative_error=float(mx[i]), mean_relative_error=float(mean[i]),
                   samples=int(data.q.shape[0]), used=int(used[i]), threshold=float(identification.thresholds[i]),
                   peak_speed=float(peak[i]), speed_limit=float(chain.velocity[i]), span=float(span[i]),
                   range_span=float(range_span[i]), frequency=float(freq[i]), cycles=float(freq[i] * duration),
                   nrmse=float(nrmse[i]))
        for i in range(n)
    )
    found = diagnose(axes, recording, data.tau_raw)
    if not coverage:
        found = [d for d in found if d.startswith("saturated torques")]
    return TorqueCheck(axes, tuple(found))


def diagnose(axes: tuple[AxisResult, ...], recording: Recording, tau_raw: ArrayLike) -> list[str]:
    """Seed 003's failure causes found in the data, one sentence each, starting with the cause's name."""
    out = []
    for a in axes:
        if math.isfinite(a.speed_limit) and a.peak_speed < SLOW_FRACTION * a.speed_limit:
            out.append(f"too slow: joint {a.joint} peaks at {math.degrees(a.peak_speed):.3g} deg/s, "
                       f"{100 * a.peak_speed / a.speed_limit:.0f} % of its {math.degrees(a.speed_limit):.3g} deg/s "
                       f"limit (at least {100 * SLOW_FRACTION:.0f} % needed)")
        elif a.used < MIN_USED_FRACTION * a.samples:
            out.append(f"too slow: joint {a.joint} has {a.used} of {a.samples} samples above "
                       f"{a.threshold:.3g} rad/s")
    for a in axes:
        if a.cycles < MIN_CYCLES:
            out.append(f"too short: joint {a.joint} completes {a.cycles:.3g} cycles ({a.frequency:.3g} Hz over "
                       f"{recording.duration:.3g} s); at least {MIN_CYCLES:g} are needed")
    for a in axes:
        if a.span < REGION_FRACTION * a.range_span:
            out.append(f"too small a region: joint {a.joint} covers {math.degrees(a.span):.3g} deg of its "
                       f"{math.degrees(a.range_span):.3g} deg range (at least {100 * REGION_FRACTION:.0f} % needed)")
    freqs = [a.frequency for a in axes]
    if all(f > 0 for f in freqs) and recording.duration > 0:
        check = check_frequencies(freqs, recording.duration)
        for issue in check.issues:
            if issue.cause in ("overlapping frequencies", "harmonic frequencies"):
                out.append(f"overlapping frequencies: {issue.text}")
    q = recording.q - recording.q.mean(axis=0)
    sd = q.std(axis=0)
    n = q.shape[1]
    for i in range(n):
        for j in range(i + 1, n):
            if sd[i] > 0 and sd[j] > 0:
                r = float(np.mean(q[:, i] * q[:, j]) / (sd[i] * sd[j]))
                if abs(r) > CORRELATION_LIMIT and not any(f"joints {i + 1} and {j + 1}" in d for d in out):
                    out.append(f"overlapping frequencies: joints {i + 1} and {j + 1} oscillate together "
                               f"(position correlation {r:.3f})")
    tau = np.asarray(tau_raw)
    for i in range(tau.shape[1]):
        extreme = float(np.max(np.abs(tau[:, i])))
        at = int(np.sum(np.abs(tau[:, i]) >= extreme * (1 - 1e-9)))
        if extreme > 0 and at >= max(PLATEAU_SAMPLES, 0.005 * tau.shape[0]):
            out.append(f"saturated torques: joint {i + 1} reads its extreme {extreme:.6g} N m in {at} samples "
                       "(a plateau: the drive saturates)")
    return out


def report_text(identification: Identification, own: TorqueCheck, validation: TorqueCheck | None = None,
                source: str = "", validation_source: str = "") -> str:
    """The identification report (seed 003's IDNT in words), with base parameters, friction and inertials."""
    ident = identification
    chain = ident.chain
    check = validation if validation is not None else own
    ok = own.success and (validation is None or validation.success)
    lines = [
        f"Identification {'SUCCEEDED' if ok else 'FAILED'}: robot {chain.name}, recording {source or '-'}",
        f"success: every axis' maximum relative torque error below {100 * SUCCESS_MAX_RELATIVE_ERROR:.0f} % "
        "(seed 003) and none of the failure causes found",
        "filter: zero-phase Butterworth low-pass, cutoff "
        + ("none (speeds and accelerations from the recording)" if math.isnan(ident.data.cutoff)
           else f"{ident.data.cutoff:.4g} Hz") + f"; sampling {ident.data.rate:.6g} Hz; "
        f"{ident.data.samples} samples recorded, {ident.data.dropped} dropped at each end",
        f"thresholds: too slow below {100 * SLOW_FRACTION:.0f} % of the speed limit; too short below "
        f"{MIN_CYCLES:g} cycles; too small below {100 * REGION_FRACTION:.0f} % of the range; position correlation "
        f"above {CORRELATION_LIMIT:g}",
        "",
        "axis  max_rel_err_%  mean_rel_err_%  samples  used  threshold_rad_s  peak_deg_s  limit_%  span_%  cycles  nrmse_%",
    ]
    for a in own.axes:
        limit = 100 * a.peak_speed / a.speed_limit if math.isfinite(a.speed_limit) else math.nan
        lines.append(f"{a.joint:>4}  {100 * a.max_relative_error:>13.2f}  {100 * a.mean_relative_error:>14.2f}  "
                     f"{a.samples:>7}  {a.used:>4}  {a.threshold:>15.4g}  {math.degrees(a.peak_speed):>10.4g}  "
                     f"{limit:>7.0f}  {100 * a.span / a.range_span:>6.0f}  {a.cycles:>6.3g}  {100 * a.nrmse:>7.3g}")
    if own.diagnosis:
        lines += ["", "diagnosis (seed 003, failure causes):"] + [f"  {d}" for d in own.diagnosis]
    if validation is not None:
        lines += ["", f"validation on {validation_source or 'a second recording'}: "
                  f"{'passed' if validation.success else 'FAILED'}",
                  "axis  max_rel_err_%  mean_rel_err_%  nrmse_%"]
        for a in validation.axes:
            lines.append(f"{a.joint:>4}  {100 * a.max_relative_error:>13.2f}  {100 * a.mean_relative_error:>14.2f}  "
                         f"{100 * a.nrmse:>7.3g}")
        if validation.diagnosis:
            lines += ["diagnosis:"] + [f"  {d}" for d in validation.diagnosis]
    lines += ["", f"base parameters (weighted least squares; {ident.base.n_base} of {10 * chain.n_joints} standard "
              "parameters' combinations; per-joint noise weights "
              + ", ".join(f"{s:.3g}" for s in ident.sigma) + " N m):",
              "  value  std  std_%  combination"]
    for v, s, comb in zip(ident.base_values, ident.base_std, ident.base.combinations()):
        rel = 100 * s / abs(v) if v != 0 else math.inf
        lines.append(f"  {v:.6g}  {s:.3g}  {rel:.3g}  {comb}")
    held = not np.any(ident.friction_std)
    lines += ["", "friction (Coulomb Fc [N m], viscous Fv [N m s/rad]; "
              + ("held fixed, e.g. from Step 3: seed 000 Step 5):" if held else "WLS value +- std):")]
    for j in range(chain.n_joints):
        fc, fv = ident.friction_values[2 * j:2 * j + 2]
        sc, sv = ident.friction_std[2 * j:2 * j + 2]
        lines.append(f"  joint {j + 1}: Fc {fc:.4g} +- {sc:.2g}, Fv {fv:.4g} +- {sv:.2g}")
    lines += ["", "physically consistent link inertials (written to the URDF; link frames, com in mm):",
              "  link  mass_kg  com_x_mm  com_y_mm  com_z_mm  principal_moments_kg_m2"]
    from thermocomp.dynamics.parameters import inertial_from_parameters

    for k in range(chain.n_joints):
        link = inertial_from_parameters(ident.parameters[10 * k:10 * k + 10], f"link{k + 1}")
        c = 1000 * link.com
        pm = ", ".join(f"{m:.4g}" for m in link.principal_moments)
        lines.append(f"  link{k + 1}  {link.mass:.4g}  {c[0]:.4g}  {c[1]:.4g}  {c[2]:.4g}  {pm}")
    del check
    return "\n".join(lines) + "\n"


__all__ = [
    "CORRELATION_LIMIT",
    "MIN_USED_FRACTION",
    "REGION_FRACTION",
    "SLOW_FRACTION",
    "SUCCESS_MAX_RELATIVE_ERROR",
    "AxisResult",
    "TorqueCheck",
    "check_torques",
    "diagnose",
    "relative_errors",
    "report_text",
]
