"""Robot dynamics: the inverse dynamic model linear in its parameters, excitation, identification, friction.

Seeds 001 (linear parametrisation, base parameters, least squares, payload),
003 (softMC: sine excitation, filtering, success report, reasons to look at,
collision detection) and 000 (the GoFa's five steps). Method, files and
commands: docs/dynamics.md; frames and units: docs/conventions.md.

* :mod:`~thermocomp.dynamics.parameters` -- the 10 standard parameters of a link, pseudo-inertia
* :mod:`~thermocomp.dynamics.regressor` -- ``tau = Y(q, qd, qdd) pi`` (Newton-Euler), friction columns
* :mod:`~thermocomp.dynamics.base_params` -- base parameters by QR, the regrouping in words
* :mod:`~thermocomp.dynamics.excitation` -- per-joint sine waves, frequency rules (seed 003)
* :mod:`~thermocomp.dynamics.filtering` -- zero-phase low-pass, non-causal differentiation
* :mod:`~thermocomp.dynamics.identify` -- weighted least squares, physically consistent parameters
* :mod:`~thermocomp.dynamics.report` -- softMC's success criterion (the verdict) and the warnings
* :mod:`~thermocomp.dynamics.friction` -- Coulomb + viscous + Stribeck (seed 000 Eq. 3), Step 3
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

from thermocomp.dynamics.base_params import BaseParameters, base_parameters
from thermocomp.dynamics.excitation import Excitation, ExcitationOptions, check_frequencies, design_excitation
from thermocomp.dynamics.friction import SEED000_TABLE_III, FrictionTable, friction_from_constant_speed
from thermocomp.dynamics.identify import Identification, IdentifyOptions, identify
from thermocomp.dynamics.parameters import inertial_from_parameters, link_parameters, robot_parameters
from thermocomp.dynamics.regressor import friction_regressor, inverse_dynamics, regressor
from thermocomp.dynamics.report import TorqueCheck, check_torques, report_text

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
    "identify",
    "inertial_from_parameters",
    "inverse_dynamics",
    "link_parameters",
    "regressor",
    "report_text",
    "robot_parameters",
]
