"""thermocomp: thermal-deformation compensation of industrial robots.

Seed 002's method: an extended forward kinematic model of the deformed
robot, inverse kinematics on it for every target and minute, corrected joint
angles. Conventions (units, frames, orientations): docs/conventions.md.
"""

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from thermocomp.app.compensate import run_compensation
    from thermocomp.app.jobs import CompensationJob
    from thermocomp.compensation.compensate import CompensationOptions, compensate
    from thermocomp.compensation.targets import Targets
    from thermocomp.deformation import DeformationTable, LinearRamp, Static, deformed_model
    from thermocomp.errors import InputError, ThermocompError
    from thermocomp.io.robots import BUILTIN_ROBOTS, load_robot
    from thermocomp.kinematics.fk import fk, fk_jacobian, fk_matrix
    from thermocomp.kinematics.ik import IKOptions, IKResult, Status, solve_ik
    from thermocomp.kinematics.model import KinematicModel, nominal_model
    from thermocomp.robot.chain import Chain

#: Where each public name lives: imported on first use (PEP 562), so ``import thermocomp`` is cheap and
#: the command line can install its signal handlers before numpy and numba load.
_EXPORTS = {
    "BUILTIN_ROBOTS": "thermocomp.io.robots",
    "Chain": "thermocomp.robot.chain",
    "CompensationJob": "thermocomp.app.jobs",
    "CompensationOptions": "thermocomp.compensation.compensate",
    "DeformationTable": "thermocomp.deformation",
    "IKOptions": "thermocomp.kinematics.ik",
    "IKResult": "thermocomp.kinematics.ik",
    "InputError": "thermocomp.errors",
    "KinematicModel": "thermocomp.kinematics.model",
    "LinearRamp": "thermocomp.deformation",
    "Static": "thermocomp.deformation",
    "Status": "thermocomp.kinematics.ik",
    "Targets": "thermocomp.compensation.targets",
    "ThermocompError": "thermocomp.errors",
    "compensate": "thermocomp.compensation.compensate",
    "deformed_model": "thermocomp.deformation",
    "fk": "thermocomp.kinematics.fk",
    "fk_jacobian": "thermocomp.kinematics.fk",
    "fk_matrix": "thermocomp.kinematics.fk",
    "load_robot": "thermocomp.io.robots",
    "nominal_model": "thermocomp.kinematics.model",
    "run_compensation": "thermocomp.app.compensate",
    "solve_ik": "thermocomp.kinematics.ik",
}


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'thermocomp' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


__all__ = [
    "BUILTIN_ROBOTS",
    "Chain",
    "CompensationJob",
    "CompensationOptions",
    "DeformationTable",
    "IKOptions",
    "IKResult",
    "InputError",
    "KinematicModel",
    "LinearRamp",
    "Static",
    "Status",
    "Targets",
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
