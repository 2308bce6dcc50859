"""The calibration report: what was identified, what was not and how it was fixed, residuals per measurement.

Text only (millimetres and degrees, the file units); the numbers come from
:class:`~thermocomp.calibration.identify.Fit`.
"""

from __future__ import annotations

import numpy as np

from thermocomp.calibration.identify import MAX_OUTLIER_SHARE, OUTLIER_ALPHA, OUTLIER_GAP, Fit, huber_threshold, outlier_threshold
from thermocomp.calibration.observability import PoseSuggestion
from thermocomp.calibration.timefit import Calibration
from thermocomp.geometry.rotations import euler_xyz_from_matrix
from thermocomp.io.measurements import Measurements

_MM, _DEG = 1e3, float(np.degrees(1.0))


def _unit(name: str) -> tuple[float, str]:
    """File-unit factor and unit of a table parameter (``"3.Dx"``: mm, ``"3.Dox"``: deg)."""
    return (_DEG, "deg") if name.split(".")[-1].startswith("Do") else (_MM, "mm")


def combination_lines(fit: Fit) -> list[str]:
    """One line per identified combination, in file units: ``base + sum(coefficient * other) = value +- std``."""
    lines = []
    for combo in fit.identifiability.combinations:
        name = fit.names[combo.base]
        f, unit = _unit(name)
        value = fit.x[combo.base] + sum(c * fit.x[i] for i, c in combo.terms)
        terms = "".join(f" {'+' if c * f / _unit(fit.names[i])[0] >= 0 else '-'} "
                        f"{abs(c * f / _unit(fit.names[i])[0]):.4g} {fit.names[i]}" for i, c in combo.terms)
        lines.append(f"  {name}{terms} = {value * f:+.5f} +- {combo.std * f:.5f} {unit}")
    return lines


def law_lines(calibration: Calibration) -> list[str]:
    """The time-law section: the law, and with an automatic choice every candidate and its criterion."""
    lines = ["Time law", f"  {calibration.law_text()}"]
    if not calibration.candidates:
        return lines
    lines += ["  chosen automatically: each law the measurements can determine was fitted; the lowest Bayesian "
              "information criterion BIC = Huber cost (chi2 with the stated noise, linear beyond "
              f"{huber_threshold(3):.3g} deviations per position) + k ln N (k identified parameters, N measured "
              "coordinates) wins", f"  {'law':<12} {'BIC - best':>12} {'k':>4} {'sigma ratio':>12} {'outliers':>9}  fit"]
    best = min((c.criterion for c in calibration.candidates if np.isfinite(c.criterion)), default=float("nan"))
    for c in calibration.candidates:
        if c.calibration is None:
            lines.append(f"  {c.kind:<12} {'-':>12} {'-':>4} {'-':>12} {'-':>9}  not fitted: {c.reason}")
            continue
        f = c.calibration.fit
        k = f.identifiability.rank + f.theta.size + (6 if f.options.estimate_base else 0)
        mark = " <- chosen" if c.kind == calibration.kind else ""
        what = c.calibration.law_text() if not c.reason else f"FAILED: {c.reason}"
        lines.append(f"  {c.kind:<12} {c.criterion - best:>12.1f} {k:>4} {f.sigma_ratio:>12.3g} {f.outliers.size:>9}  "
                     f"{what}{mark}")
    return lines


def calibration_text(fit: Fit, meas: Measurements, robot: str, law_text: str | None = None,
                     suggestion: PoseSuggestion | None = None, calibration: Calibration | None = None) -> str:
    """The report of a calibration, as text (see the module docstring).

    With ``calibration`` (its ``fit`` is ``fit``): its verdict (FAILED and why,
    or the warnings) first, and its time law with the candidates of an automatic choice.
    """
    o = fit.options
    ident = fit.identifiability
    what = "positions and orientations" if meas.has_orientation else "positions only"
    head = []
    if calibration is not None:
        if calibration.failure is not None:
            head = [f"FAILED: {calibration.failure}; no table written", ""]
        head += [f"WARNING: {w}" for w in calibration.warnings] + ([""] if calibration.warnings else [])
    lines = [
        *head,
        f"thermocomp calibration of {robot} from {meas.source}",
        f"  {meas.n} measurements ({what}) at minutes {meas.minute.min():g} to {meas.minute.max():g}; "
        f"stated tracker uncertainty {o.position_sigma * _MM:g} mm"
        + (f", {o.orientation_sigma * _DEG:g} deg" if meas.has_orientation else ""),
        f"  model: seed 002 extended FK, composition {o.composition!r}; rows estimated: {', '.join(o.rows)}; "
        f"tracker frame {'estimated' if o.estimate_base else 'taken as the world frame'}",
        f"  Gauss-Newton: {fit.iterations} iterations, {'converged' if fit.converged else 'NOT converged'}; "
        + (f"chi2 {fit.chi2:.4g} for {fit.dof} degrees of freedom: residuals {fit.sigma_ratio:.3g} x the stated "
         "uncertainty" if fit.dof > 0 else "no redundancy (as many identified parameters as measured coordinates): "
         "the residuals say nothing about the fit"),
        "",
        "Identifiability (SVD and QR with column pivoting of the weighted Jacobian)",
        f"  {ident.rank} of {ident.candidates.size} table parameters identifiable from these poses "
        f"(singular values above {o.rcond:g} x the largest); condition number {ident.condition:.4g}",
    ]
    if not ident.forced_rank_ok:
        lines.append("  WARNING: the tracker frame or the time law's parameters are not identifiable from these "
                     "measurements; their values are not determined")
    if calibration is not None:
        lines += ["", *law_lines(calibration)]
    elif law_text:
        lines += ["", "Time law", f"  {law_text}"]
    if o.estimate_base:
        T = fit.T_tracker_world
        e = np.degrees(euler_xyz_from_matrix(T[:3, :3]))
        lines += ["", "Tracker frame T_tracker_world (the robot's world in the tracker's frame)",
                  f"  translation [mm] {T[0, 3] * _MM:.4f} {T[1, 3] * _MM:.4f} {T[2, 3] * _MM:.4f}; "
                  f"rotation Euler xyz [deg] {e[0]:.6f} {e[1]:.6f} {e[2]:.6f}"]
    fixed = "fixed at 0" if o.fix == "zero" else "given their minimum-norm value"
    lines += ["", "Identified combinations (value +- one standard deviation, file units)",
              *combination_lines(fit), "",
              f"Not identifiable from these poses ({fixed}; the combinations above carry them):"]
    unseen = [n for n, s in zip(fit.names, fit.status) if s.startswith("not identifiable")]
    lines.append("  " + (", ".join(unseen) if unseen else "none"))
    skipped = [n for n, s in zip(fit.names, fit.status) if s == "not estimated"]
    if skipped:
        lines.append(f"Not estimated (rows left out): {', '.join(skipped)}")
    lines += ["", "Table (file units) and status", f"  {'parameter':<10} {'value':>12}  status"]
    for name, value, status in zip(fit.names, fit.x, fit.status):
        f, unit = _unit(name)
        lines.append(f"  {name:<10} {value * f:>+12.6f} {unit:<3} {status}")
    lines += ["", "Residuals per measurement (measured - model, tracker frame)",
              f"  {'where':<10} {'minute':>8} {'|dp| mm':>10}" + (f" {'angle deg':>10}" if meas.has_orientation else "")]
    dist = np.linalg.norm(fit.residual_position, axis=1)
    limit = 3.0 * np.sqrt(3.0) * o.position_sigma
    outlier = np.isin(np.arange(meas.n), fit.outliers)
    for i in range(meas.n):
        flag = ("  OUTLIER, left out of the fit" if outlier[i] else "  > 3 sigma" if dist[i] > limit else "")
        angle = f" {np.degrees(fit.residual_angle[i]):>10.5f}" if fit.residual_angle is not None else ""
        lines.append(f"  {meas.label(i):<10} {meas.minute[i]:>8g} {dist[i] * _MM:>10.5f}{angle}{flag}")
    kept = dist[~outlier]
    lines.append(f"  rms {np.sqrt(np.mean(kept**2)) * _MM:.5f} mm, max {kept.max() * _MM:.5f} mm"
                 + (" (outliers left out)" if outlier.any() else ""))
    k = 6 if meas.has_orientation else 3
    lines += ["", f"Outliers: a measurement whose residual, divided by the stated uncertainty, exceeds "
              f"{outlier_threshold(k, meas.n):.3g} (chance {OUTLIER_ALPHA:g} in a campaign that follows the model; "
              "times the residuals' own robust scale when that is above 1) in a fit with Huber weights is left out"]
    for i in fit.outliers:
        lines.append(f"  {meas.label(int(i))}: minute {meas.minute[i]:g}, residual {dist[i] * _MM:.6g} mm, "
                     f"{fit.normalised_residual[i]:.4g} x the stated uncertainty")
    if fit.beyond_limit.size > fit.outliers.size:
        lines.append(f"  {fit.beyond_limit.size} measurements are beyond the limit, more than {MAX_OUTLIER_SHARE:.0%} "
                     "of them: the model or the time law does not explain these measurements; only those beyond "
                     f"{OUTLIER_GAP:g} x the residual {1 - MAX_OUTLIER_SHARE:.0%} of them stay within are left out")
    if not fit.outliers.size:
        lines.append("  none")
    if suggestion is not None:
        lines += ["", "Suggested poses (greedy, observability index O1 = (prod s_i)^(1/r) / sqrt(m))",
                  f"  now: rank {suggestion.rank_before}, O1 {suggestion.o1_before:.4g}; the candidates "
                  f"could reach rank {suggestion.rank_all} of {suggestion.n_parameters}"]
        for k in range(suggestion.index.size):
            q = " ".join(f"{v:.2f}" for v in np.degrees(suggestion.q[k]))
            lines.append(f"  add q_deg = [{q}]: rank {suggestion.rank[k]}, O1 {suggestion.o1[k]:.4g}")
        if suggestion.rank_all < suggestion.n_parameters:
            lines.append(f"  {suggestion.n_parameters - suggestion.rank_all} parameters stay unidentifiable at "
                         "every candidate pose (with positions only: the tool's angles and the directions "
                         "the chain's form makes equivalent); they need orientation measurements or are "
                         "irrelevant to the TCP position")
    return "\n".join(lines) + "\n"


__all__ = ["calibration_text", "combination_lines", "law_lines"]
