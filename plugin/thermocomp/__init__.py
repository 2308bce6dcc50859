"""thermocomp: thermal-deformation compensation of industrial robots.

Seed 002's method: an extended forward kinematic model of the deformed
robot, inverse kinematics on it for every target and minute, corrected joint
angles. Conventions (units, frames, orientations): docs/conventions.md.
"""

from thermocomp.compensation.compensate import CompensationOptions, compensate
from thermocomp.compensation.program import Program
from thermocomp.deformation import DeformationTable, LinearRamp, Static, deformed_model
from thermocomp.errors import InputError, ThermocompError
from thermocomp.kinematics.fk import fk, fk_jacobian, fk_matrix
from thermocomp.kinematics.ik import IKOptions, IKResult, Status, solve_ik
from thermocomp.kinematics.model import KinematicModel, nominal_model
from thermocomp.pipeline import run_compensation
from thermocomp.robot.builtin import BUILTIN_ROBOTS, load_robot
from thermocomp.robot.chain import Chain

__all__ = [
    "BUILTIN_ROBOTS",
    "Chain",
    "CompensationOptions",
    "DeformationTable",
    "IKOptions",
    "IKResult",
    "InputError",
    "KinematicModel",
    "LinearRamp",
    "Program",
    "Static",
    "Status",
    "ThermocompError",
    "compensate",
    "deformed_model",
    "fk",
    "fk_jacobian",
    "fk_matrix",
    "load_robot",
    "nominal_model",
    "run_compensation",
    "solve_ik",
]
