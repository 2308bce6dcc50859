"""Link inertias from CAD meshes (seed 000, Step 1) and their corrections (Step 2, Eq. 9).

Mesh volumes, one average density from the robot's total mass, per-link mass,
centre of mass and inertia tensor in the URDF link frames, written into a
URDF. Method, units, frames and fallbacks: docs/inertia.md; frame notation:
docs/conventions.md.

* :mod:`~thermocomp.inertia.solids` -- volume integrals of a triangle mesh (pure core)
* :mod:`~thermocomp.inertia.links` -- link inertials from one density; corrections
* :mod:`~thermocomp.inertia.checks` -- ``check_inertia_tensor`` and friends
* :mod:`~thermocomp.inertia.robot` -- a robot's inertials from its mesh files
* :mod:`~thermocomp.inertia.gravity` -- static joint torques from the inertials
* :mod:`~thermocomp.inertia.builtin` -- approximate inertials of the built-in robots
* :mod:`~thermocomp.inertia.files` -- inertia and correction CSV files
"""

from thermocomp.inertia.builtin import BUILTIN_TOTAL_MASS, builtin_inertials, builtin_urdf_text, write_builtin_urdf
from thermocomp.inertia.checks import check_inertia_tensor
from thermocomp.inertia.gravity import gravity_torques, link_poses
from thermocomp.inertia.links import LinkInertial, RobotInertials, apply_corrections, inertials_from_solids
from thermocomp.inertia.robot import InertiaOptions, InertiaReport, compute_inertials
from thermocomp.inertia.solids import SolidProperties, principal_moments, solid_properties

__all__ = [
    "BUILTIN_TOTAL_MASS",
    "InertiaOptions",
    "InertiaReport",
    "LinkInertial",
    "RobotInertials",
    "SolidProperties",
    "apply_corrections",
    "builtin_inertials",
    "builtin_urdf_text",
    "check_inertia_tensor",
    "compute_inertials",
    "gravity_torques",
    "inertials_from_solids",
    "link_poses",
    "principal_moments",
    "solid_properties",
    "write_builtin_urdf",
]
