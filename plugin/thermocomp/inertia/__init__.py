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
* its files (link inertials, correction factors): :mod:`thermocomp.io.inertia_csv`
"""

from typing import TYPE_CHECKING

from thermocomp._lazy import lazy_exports

if TYPE_CHECKING:
    from thermocomp.inertia.builtin import BUILTIN_TOTAL_MASS, builtin_inertials, builtin_urdf_text, write_builtin_urdf
    from thermocomp.inertia.checks import check_inertia_tensor
    from thermocomp.inertia.gravity import gravity_torques, link_poses
    from thermocomp.inertia.links import LinkInertial, RobotInertials, apply_corrections, inertials_from_solids
    from thermocomp.inertia.robot import InertiaOptions, InertiaReport, compute_inertials
    from thermocomp.inertia.solids import SolidProperties, principal_moments, solid_properties

#: Where each public name lives: imported on first use (thermocomp._lazy).
_EXPORTS = {
    "BUILTIN_TOTAL_MASS": "thermocomp.inertia.builtin",
    "InertiaOptions": "thermocomp.inertia.robot",
    "InertiaReport": "thermocomp.inertia.robot",
    "LinkInertial": "thermocomp.inertia.links",
    "RobotInertials": "thermocomp.inertia.links",
    "SolidProperties": "thermocomp.inertia.solids",
    "apply_corrections": "thermocomp.inertia.links",
    "builtin_inertials": "thermocomp.inertia.builtin",
    "builtin_urdf_text": "thermocomp.inertia.builtin",
    "check_inertia_tensor": "thermocomp.inertia.checks",
    "compute_inertials": "thermocomp.inertia.robot",
    "gravity_torques": "thermocomp.inertia.gravity",
    "inertials_from_solids": "thermocomp.inertia.links",
    "link_poses": "thermocomp.inertia.gravity",
    "principal_moments": "thermocomp.inertia.solids",
    "solid_properties": "thermocomp.inertia.solids",
    "write_builtin_urdf": "thermocomp.inertia.builtin",
}
__getattr__, __dir__ = lazy_exports(globals(), _EXPORTS)

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
