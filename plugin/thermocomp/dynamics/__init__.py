"""Robot dynamics: the inverse dynamic model linear in its parameters, excitation, identification, friction.

Seeds 001 (linear parametrisation, base parameters, least squares, payload),
003 (softMC: sine excitation, filtering, success report, reasons to look at,
collision detection) and 000 (the GoFa's five steps). Method, files and
commands: docs/dynamics.md; frames and units: docs/conventions.md.

* :mod:`~thermocomp.dynamics.parameters` -- the 10 standard parameters of a link, pseudo-inertia
* :mod:`~thermocomp.dynamics.regressor` -- ``tau = Y(q, qd, qdd) pi`` (Newton-Euler), friction and armature columns
* :mod:`~thermocomp.dynamics.base_params` -- base parameters by QR, the regrouping in words, which armatures separate
* :mod:`~thermocomp.dynamics.excitation` -- per-joint sine waves, frequency rules (seed 003)
* :mod:`~thermocomp.dynamics.filtering` -- zero-phase low-pass, non-causal differentiation
* :mod:`~thermocomp.dynamics.identify` -- weighted least squares, physically consistent parameters
* :mod:`~thermocomp.dynamics.report` -- softMC's success criterion (the verdict) and the warnings
* :mod:`~thermocomp.dynamics.friction` -- Coulomb + viscous + Stribeck (seed 000 Eq. 3) and the armature, Step 3
* :mod:`~thermocomp.dynamics.drive_gains` -- current to torque, from runs without and with a known payload
* :mod:`~thermocomp.dynamics.friction_runs` -- Step 3's constant-speed runs and their analysis
* :mod:`~thermocomp.dynamics.static_step` -- Step 2: correction factors from static torques, explicit formulas
* :mod:`~thermocomp.dynamics.controller` -- Step 4: the PI controller of each joint
* :mod:`~thermocomp.dynamics.payload` -- the payload's rule of change and its identification
* :mod:`~thermocomp.dynamics.collision` -- torque-error collision detection
* :mod:`~thermocomp.dynamics.feedforward` -- feed-forward torques of a trajectory
* :mod:`~thermocomp.dynamics.simulate` -- PyBullet as a robot with known truth
* :mod:`~thermocomp.dynamics.urdf_parameters` -- a robot file's inertials as standard parameters, and back

What each command does (read, compute, write all or none) is the application's, :mod:`thermocomp.app.dynamics`.
"""

from typing import TYPE_CHECKING

from thermocomp._lazy import lazy_exports

if TYPE_CHECKING:
    from thermocomp.dynamics.base_params import BaseParameters, base_parameters
    from thermocomp.dynamics.excitation import Excitation, ExcitationOptions, check_frequencies, design_excitation
    from thermocomp.dynamics.friction import SEED000_TABLE_III, FrictionTable, friction_from_constant_speed
    from thermocomp.dynamics.identify import Identification, IdentifyOptions
    from thermocomp.dynamics.parameters import inertial_from_parameters, link_parameters, robot_parameters
    from thermocomp.dynamics.regressor import friction_regressor, inverse_dynamics
    from thermocomp.dynamics.report import TorqueCheck, check_torques, report_text

#: Where each public name lives: imported on first use (thermocomp._lazy), so that the options of one command
#: (``ExcitationOptions``) do not import SciPy's signal processing and statistics. The functions ``identify`` and
#: ``regressor`` are taken from their modules (``thermocomp.dynamics.identify.identify``): a package attribute of a
#: submodule's name is the submodule once it is imported.
_EXPORTS = {
    "BaseParameters": "thermocomp.dynamics.base_params",
    "Excitation": "thermocomp.dynamics.excitation",
    "ExcitationOptions": "thermocomp.dynamics.excitation",
    "FrictionTable": "thermocomp.dynamics.friction",
    "Identification": "thermocomp.dynamics.identify",
    "IdentifyOptions": "thermocomp.dynamics.identify",
    "SEED000_TABLE_III": "thermocomp.dynamics.friction",
    "TorqueCheck": "thermocomp.dynamics.report",
    "base_parameters": "thermocomp.dynamics.base_params",
    "check_frequencies": "thermocomp.dynamics.excitation",
    "check_torques": "thermocomp.dynamics.report",
    "design_excitation": "thermocomp.dynamics.excitation",
    "friction_from_constant_speed": "thermocomp.dynamics.friction",
    "friction_regressor": "thermocomp.dynamics.regressor",
    "inertial_from_parameters": "thermocomp.dynamics.parameters",
    "inverse_dynamics": "thermocomp.dynamics.regressor",
    "link_parameters": "thermocomp.dynamics.parameters",
    "report_text": "thermocomp.dynamics.report",
    "robot_parameters": "thermocomp.dynamics.parameters",
}
__getattr__, __dir__ = lazy_exports(globals(), _EXPORTS)

__all__ = [
    "SEED000_TABLE_III",
    "BaseParameters",
    "Excitation",
    "ExcitationOptions",
    "FrictionTable",
    "Identification",
    "IdentifyOptions",
    "TorqueCheck",
    "base_parameters",
    "check_frequencies",
    "check_torques",
    "design_excitation",
    "friction_from_constant_speed",
    "friction_regressor",
    "inertial_from_parameters",
    "inverse_dynamics",
    "link_parameters",
    "report_text",
    "robot_parameters",
]
