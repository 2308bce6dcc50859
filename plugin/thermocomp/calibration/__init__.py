"""Calibration: identify a deformation table (and its time law) from laser-tracker measurements.

The Jacobian of the TCP pose with respect to every table parameter
(:mod:`.jacobian`, seed 002, Eqs. 18-22), a weighted Gauss-Newton fit that
reports what the poses can and cannot identify (:mod:`.identify`,
:mod:`.identifiability`), and which poses to add (:mod:`.observability`).
Pure numpy core; docs/calibration.md explains how to plan a campaign.
"""

from thermocomp.calibration.identifiability import Combination, Identifiability, combination_matrix
from thermocomp.calibration.identify import CalibrationOptions, Fit, identify
from thermocomp.calibration.jacobian import PoseJacobian, parameter_names, pose_jacobian
from thermocomp.calibration.measurements import Measurements
from thermocomp.calibration.observability import PoseSuggestion, observability_index, suggest_poses
from thermocomp.calibration.report import calibration_text

__all__ = [
    "CalibrationOptions",
    "Combination",
    "Fit",
    "Identifiability",
    "Measurements",
    "PoseJacobian",
    "PoseSuggestion",
    "calibration_text",
    "combination_matrix",
    "identify",
    "observability_index",
    "parameter_names",
    "pose_jacobian",
    "suggest_poses",
]
