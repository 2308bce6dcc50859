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
from thermocomp.calibration.identify import CalibrationOptions
from thermocomp.calibration.measurements import Measurements
from thermocomp.calibration.observability import PoseSuggestion, suggest_poses
from thermocomp.calibration.report import calibration_text
from thermocomp.calibration.timefit import Calibration, TimeFitOptions, calibrate
from thermocomp.calibration.validate import Validation, plot_validation, validate
from thermocomp.errors import ConfigurationError
from thermocomp.io.atomic import atomic_write_all, check_destination, check_not_input
from thermocomp.io.deformation_csv import write_deformation_csv
from thermocomp.io.measurements_csv import read_measurements_csv
from thermocomp.io.robot_files import RobotFileOptions
from thermocomp.io.timelaw_file import time_law_path, write_time_law
from thermocomp.robot.builtin import load_robot


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
        Suggested poses (``None`` unless asked for).
    report
        The report's text (also written to the report file).
    written
        The files written, in order: table, law, report, plot.
    """

    calibration: Calibration
    measurements: Measurements
    validation: Validation | None
    suggestion: PoseSuggestion | None
    report: str
    written: tuple[Path, ...] = field(default=())

    def text(self) -> str:
        """A short summary for the screen."""
        fit = self.calibration.fit
        ident = fit.identifiability
        lines = [f"calibrated from {self.measurements.n} measurements: {ident.rank} of {ident.candidates.size} table "
                 f"parameters identifiable (condition number {ident.condition:.4g}); the rest fixed as the report "
                 "lists",
                 f"  time law: {self.calibration.law_text()}",
                 f"  residuals: rms {np.sqrt(np.mean(np.sum(fit.residual_position**2, axis=1))) * 1e3:.4f} mm"]
        if self.validation is not None:
            v = self.validation
            lines.append(f"  held-out: TCP error {np.sqrt(np.mean(v.before**2)) * 1e3:.4f} mm rms before compensation, "
                         f"{np.sqrt(np.mean(v.after**2)) * 1e3:.4f} mm after")
        lines += [f"wrote {p}" for p in self.written]
        return "\n".join(lines)


def run_calibration(
    robot: str | PathLike,
    measurements: PathLike,
    out: PathLike,
    report: PathLike,
    *,
    options: CalibrationOptions | None = None,
    time: TimeFitOptions | None = None,
    validate_with: PathLike | None = None,
    plot: PathLike | None = None,
    suggest: int = 0,
    candidates: int = 300,
    seed: int = 0,
    robot_options: RobotFileOptions | None = None,
) -> CalibrationRun:
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
    options = CalibrationOptions() if options is None else options
    time = TimeFitOptions() if time is None else time
    if suggest < 0 or candidates < 1:
        raise ConfigurationError(f"suggest and candidates: expected >= 0 and >= 1, got {suggest} and {candidates}")
    law_path = time_law_path(out)
    outputs = [Path(out), law_path, Path(report)] + ([Path(plot)] if plot is not None else [])
    inputs = [Path(measurements)] + ([Path(validate_with)] if validate_with is not None else [])
    for path in outputs:
        check_destination(path)
        check_not_input(path, inputs)
    if len({p.resolve() for p in outputs}) != len(outputs):
        raise ConfigurationError(f"expected different paths for the outputs, got {', '.join(map(str, outputs))}")
    chain = load_robot(robot, robot_options)
    meas = read_measurements_csv(measurements, chain.n_joints)
    held = read_measurements_csv(validate_with, chain.n_joints) if validate_with is not None else None
    cal = calibrate(chain, meas, options, time)
    validation = validate(chain, cal, held, options.composition) if held is not None else None
    suggestion = None
    if suggest:
        rng = np.random.default_rng(seed)
        pool = rng.uniform(chain.lower, chain.upper, size=(candidates, chain.n_joints))
        suggestion = suggest_poses(chain, meas.q, pool, suggest, options, cal.fit.table, meas.has_orientation,
                                   cal.fit.fractions)
    text = calibration_text(cal.fit, meas, chain.name, cal.law_text(), suggestion)
    if validation is not None:
        text += "\n" + validation.text()
    fixed = "fixed at 0" if options.fix == "zero" else "given their minimum-norm value"
    comments = (f"identified by thermocomp calibrate from {meas.source} ({meas.n} measurements), robot {chain.name}",
                f"parameters the poses cannot identify are {fixed}: see the report {report}",
                f"time law beside it: {law_path.name} ({cal.law.describe()})")  # type: ignore[attr-defined]
    table = cal.fit.table
    writes = [
        (out, lambda p: write_deformation_csv(table, p, comments)),
        (law_path, lambda p: write_time_law(cal.law, p, Path(out).name, (f"fitted by thermocomp calibrate from "
                                                                          f"{meas.source}",))),
        (report, lambda p: p.write_text(text, encoding="utf-8")),
    ]
    if plot is not None:
        shown = validation if validation is not None else validate(chain, cal, meas, options.composition)
        title = f"{chain.name}: {'held-out' if validation is not None else 'fitted (in-sample)'} measurements"
        writes.append((plot, lambda p: plot_validation(shown, p, title)))
    atomic_write_all(writes)
    return CalibrationRun(calibration=cal, measurements=meas, validation=validation, suggestion=suggestion,
                          report=text, written=tuple(outputs))


__all__ = ["CalibrationRun", "run_calibration"]
