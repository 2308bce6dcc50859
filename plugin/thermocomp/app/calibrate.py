"""``thermocomp calibrate`` as one library call: files in, table, law, report (and plot) out, all or none.

Reads the robot and the tracker's measurements, identifies the table (and
the tracker frame and the time law, on request), validates on held-out
measurements, and writes the table CSV, its time law beside it
(``table.law.toml``), the report and the plot together or not at all.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from thermocomp._typing import PathLike
from thermocomp.app.prepare import load_chain
from thermocomp.calibration.identify import CalibrationOptions
from thermocomp.calibration.observability import PoseSuggestion, suggest_poses
from thermocomp.calibration.report import calibration_text
from thermocomp.calibration.timefit import Calibration, TimeFitOptions, calibrate
from thermocomp.calibration.validate import Validation, plot_validation, validate
from thermocomp.errors import ConfigurationError, InputError
from thermocomp.io.deformation_csv import write_deformation_csv
from thermocomp.io.job import Job
from thermocomp.io.measurements import Measurements, check_within_limits
from thermocomp.io.measurements_csv import read_measurements_csv
from thermocomp.io.robot_files import RobotFileOptions
from thermocomp.io.robots import robot_file
from thermocomp.io.timelaw_file import LAW_FILE_BEGINS, time_law_path, write_time_law


@dataclass(frozen=True, eq=False)
class CalibrationRun:
    """What :func:`run_calibration` did.

    Attributes
    ----------
    calibration
        The table, the time law and the fit.
    measurements
        The measurements fitted.
    validation
        On the held-out measurements (``None`` without them).
    suggestion
        Suggested poses (``None`` unless asked for, or when the calibration failed).
    report
        The report's text (also written to the report file).
    written
        The files written, in order: table, law, report, plot (the report alone when the calibration failed).
    """

    calibration: Calibration
    measurements: Measurements
    validation: Validation | None
    suggestion: PoseSuggestion | None
    report: str
    written: tuple[Path, ...] = field(default=())

    @property
    def failed(self) -> bool:
        """Whether the fit is unusable (:attr:`Calibration.failure`): no table was written."""
        return self.calibration.failure is not None

    def text(self) -> str:
        """A short summary for the screen."""
        fit = self.calibration.fit
        ident = fit.identifiability
        if self.failed:
            return "\n".join([f"calibration FAILED: {self.calibration.failure}; no table written (see the report)",
                               *[f"wrote {p}" for p in self.written]])
        kept = np.delete(fit.residual_position, fit.outliers, axis=0)
        lines = [*[f"WARNING: {w}" for w in self.calibration.warnings],
                 f"calibrated from {self.measurements.n} measurements: {ident.rank} of {ident.candidates.size} table "
                 f"parameters identifiable (condition number {ident.condition:.4g}); the rest fixed as the report "
                 "lists",
                 f"  time law: {self.calibration.law_text()}"
                 + (f" (chosen among {len(self.calibration.candidates)} laws by BIC; the report lists each)"
                    if self.calibration.candidates else ""),
                 f"  residuals: rms {np.sqrt(np.mean(np.sum(kept**2, axis=1))) * 1e3:.4f} mm"
                 + (f" ({fit.outliers.size} outliers left out)" if fit.outliers.size else "")]
        if self.validation is not None:
            v = self.validation
            lines.append(f"  held-out: TCP error {np.sqrt(np.mean(v.before**2)) * 1e3:.4f} mm rms before compensation, "
                         f"{np.sqrt(np.mean(v.after**2)) * 1e3:.4f} mm after")
        lines += [f"wrote {p}" for p in self.written]
        return "\n".join(lines)


#: Most random candidate configurations ``--suggest`` weighs (some 2 KB of Jacobian each, held for the whole choice).
MAX_CANDIDATES = 100_000
#: Most weighings of one candidate with the poses chosen so far (``--suggest`` times ``--candidates``): each is an
#: eigenvalue problem of the table's parameters, 0.1-0.4 ms on one core, so that a choice ends within minutes.
MAX_WEIGHINGS = 1_000_000


@dataclass(frozen=True)
class CalibrationJob:
    """Options of :func:`run_calibration` (``thermocomp calibrate``)."""

    robot: str | PathLike
    measurements: PathLike
    out: PathLike
    report: PathLike
    options: CalibrationOptions | None = None
    time: TimeFitOptions | None = None
    validate_with: PathLike | None = None
    plot: PathLike | None = None
    suggest: int = 0
    candidates: int = 300
    seed: int = 0
    robot_options: RobotFileOptions | None = None

    def __post_init__(self) -> None:
        suggest, candidates = self.suggest, self.candidates
        if suggest < 0 or candidates < 1:
            raise ConfigurationError(f"suggest and candidates: expected >= 0 and >= 1, got {suggest} and {candidates}")
        if candidates > MAX_CANDIDATES:
            raise ConfigurationError(f"--candidates: expected at most {MAX_CANDIDATES:,} configurations (each is a "
                                     f"Jacobian to weigh), got {candidates:,}")
        if suggest > candidates:
            raise ConfigurationError(f"--suggest: expected at most --candidates ({candidates:,}) poses, got "
                                     f"{suggest:,}")
        if suggest * candidates > MAX_WEIGHINGS:
            raise ConfigurationError(f"--suggest and --candidates: expected at most {MAX_WEIGHINGS:,} weighings of a "
                                     f"candidate (--suggest times --candidates; each some 0.1-0.4 ms, so the choice "
                                     f"ends within minutes), got {suggest:,} x {candidates:,} = "
                                     f"{suggest * candidates:,}; fewer of either")


def run_calibration(spec: CalibrationJob) -> CalibrationRun:
    """Calibrate a robot's deformation table from a tracker's measurements and write the results.

    Parameters
    ----------
    robot
        Built-in name or robot file (:func:`thermocomp.load_robot`; a ``.urdf`` /
        ``.xacro`` file read with ``robot_options``, :mod:`thermocomp.io.robot_files`).
    measurements
        Measurements CSV (:mod:`thermocomp.io.measurements_csv`).
    out
        The identified table (CSV, mm and deg); its time law is written beside it
        (:func:`thermocomp.io.timelaw_file.time_law_path`).
    report
        The calibration report (text).
    options, time
        :class:`CalibrationOptions` and :class:`TimeFitOptions`.
    validate_with
        Held-out measurements CSV: TCP error before and after compensation there.
    plot
        PNG of the TCP errors before and after compensation: at the held-out
        measurements, or at the fitted ones (in-sample) without ``validate_with``.
    suggest
        Number of poses to suggest (0: none), chosen among ``candidates``
        random configurations within the joint limits (seeded by ``seed``).
    """
    robot, measurements, out, report = spec.robot, spec.measurements, spec.out, spec.report
    options, time, validate_with, plot = spec.options, spec.time, spec.validate_with, spec.plot
    suggest, candidates, seed, robot_options = spec.suggest, spec.candidates, spec.seed, spec.robot_options

    options = CalibrationOptions() if options is None else options
    time = TimeFitOptions() if time is None else time
    law_path = time_law_path(out)
    with Job() as job:
        job.input(measurements, "--measurements")
        job.input(validate_with, "--validate")
        job.input(robot_file(robot), "--robot")
        out = job.output(out, "--out")
        law_path = job.derived_output(law_path, "--out (its time law)", LAW_FILE_BEGINS, "a time law file")
        report = job.output(report, "--report")
        plot = job.output(plot, "--plot")
        job.check()  # before any work: every conflict, named with its option
        chain = load_chain(robot, robot_options, job=job)  # (a robot file's includes: checked at commit)
        meas = read_measurements_csv(measurements, chain.n_joints)
        held = read_measurements_csv(validate_with, chain.n_joints) if validate_with is not None else None
        check_within_limits(meas, chain.lower, chain.upper, "--measurements")
        if held is not None:
            check_within_limits(held, chain.lower, chain.upper, "--validate")
        try:
            cal = calibrate(chain, meas, options, time)
        except np.linalg.LinAlgError as exc:  # what the bounds of the options and files still let through
            raise InputError(f"--measurements: the calibration is numerically singular with these measurements and "
                             f"options ({exc}): more poses, spread wider, or a larger --sigma-mm", path=meas.source) \
                from exc
        ok = cal.failure is None
        validation = validate(chain, cal, held, options.composition) if held is not None and ok else None
        suggestion = None
        if suggest and ok:
            rng = np.random.default_rng(seed)
            pool = rng.uniform(chain.lower, chain.upper, size=(candidates, chain.n_joints))
            suggestion = suggest_poses(chain, meas.q, pool, suggest, options, cal.fit.table, meas.has_orientation,
                                       cal.fit.fractions)
        text = calibration_text(cal.fit, meas, chain.name, suggestion=suggestion, calibration=cal)
        if validation is not None:
            text += "\n" + validation.text()
        fixed = "fixed at 0" if options.fix == "zero" else "given their minimum-norm value"
        comments = (f"identified by thermocomp calibrate from {meas.source} ({meas.n} measurements), robot {chain.name}",
                    f"parameters the poses cannot identify are {fixed}: see the report {report}",
                    f"time law beside it: {law_path.name} ({cal.law.describe()})")  # type: ignore[attr-defined]
        table = cal.fit.table
        chosen = (f"; chosen among {', '.join(c.kind for c in cal.candidates)} by BIC (see the report)"
                  if cal.candidates else "")
        law_comments = (f"fitted by thermocomp calibrate from {meas.source}{chosen}",)
        if ok:
            job.write_with(out, lambda p: write_deformation_csv(table, p, comments))
            job.write_with(law_path, lambda p: write_time_law(cal.law, p, out.name, law_comments))
        job.write_text(report, text)
        if plot is not None and ok:
            shown = validation if validation is not None else validate(chain, cal, meas, options.composition)
            title = f"{chain.name}: {'held-out' if validation is not None else 'fitted (in-sample)'} measurements"
            job.write_with(plot, lambda p: plot_validation(shown, p, title))
        written = job.commit()
    return CalibrationRun(calibration=cal, measurements=meas, validation=validation, suggestion=suggestion,
                          report=text, written=tuple(written))


__all__ = ["CalibrationRun", "run_calibration"]
