"""Calibration: identify a deformation table (and its time law) from laser-tracker measurements.

The Jacobian of the TCP pose with respect to every table parameter
(:mod:`.jacobian`, seed 002, Eqs. 18-22), a weighted Gauss-Newton fit that
reports what the poses can and cannot identify (:mod:`.identify`,
:mod:`.identifiability`), which poses to add (:mod:`.observability`), the
time law fitted with the table (:mod:`.timefit`), validation on held-out
measurements (:mod:`.validate`), on the tracker's
:class:`~thermocomp.io.measurements.Measurements` (io's data). The file-level job of ``thermocomp calibrate``
is :mod:`thermocomp.app.calibrate`. docs/calibration.md explains how to plan a tracker campaign.
"""

from thermocomp.calibration.identifiability import Combination, Identifiability, combination_matrix
from thermocomp.calibration.identify import CalibrationOptions, Fit, identify
from thermocomp.calibration.jacobian import PoseJacobian, parameter_names, pose_jacobian
from thermocomp.calibration.observability import PoseSuggestion, observability_index, suggest_poses
from thermocomp.calibration.report import calibration_text
from thermocomp.calibration.timefit import Calibration, LawCandidate, TimeFitOptions, calibrate
from thermocomp.calibration.validate import Validation, plot_validation, validate
from thermocomp.io.measurements import Measurements

__all__ = [
    "Calibration",
    "CalibrationOptions",
    "Combination",
    "Fit",
    "Identifiability",
    "LawCandidate",
    "Measurements",
    "PoseJacobian",
    "PoseSuggestion",
    "TimeFitOptions",
    "Validation",
    "calibrate",
    "calibration_text",
    "combination_matrix",
    "identify",
    "observability_index",
    "parameter_names",
    "plot_validation",
    "pose_jacobian",
    "suggest_poses",
    "validate",
]
