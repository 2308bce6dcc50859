"""CoppeliaSim through its ZMQ remote API, and the authors' scene convention.

A thin adapter over the official client ``coppeliasim-zmqremoteapi-client``
(imported lazily, when a connection is made)::

    from thermocomp.app.coppeliasim import compensate_in_scene
    from thermocomp.simulators.coppeliasim import connect, read_robot
    with connect("localhost", 23000) as session:
        robot = read_robot(session, "/IRB140", tip_path="/IRB140/tip")
        report, check = compensate_in_scene(session, robot, table, program)

Conventions of CoppeliaSim (quaternion x, y, z, w; Euler R = Rx Ry Rz; 12-number
matrices) and the list of ``sim`` functions used: docs/coppeliasim.md. The
authors' scene convention (converting their tables to the table form) is in
:mod:`thermocomp.deformation.coppeliasim_convention`.
"""

from thermocomp.simulators.coppeliasim.addon import addon_source, install_addon
from thermocomp.simulators.coppeliasim.cell import LoadedCell, load_cell
from thermocomp.simulators.coppeliasim.compensation import (
    SceneCheck,
    check_in_scene,
    check_nominal_fk,
    check_poses,
)
from thermocomp.simulators.coppeliasim.connection import (
    DEFAULT_HOST,
    DEFAULT_PORT,
    DEFAULT_TIMEOUT_S,
    CoppeliaSimError,
    CoppeliaSimProtocolMismatch,
    CoppeliaSimServerError,
    CoppeliaSimUnreachable,
    SceneError,
    Session,
    connect,
)
from thermocomp.simulators.coppeliasim.scene import (
    SceneRobot,
    apply_authors_script,
    deformation_shown,
    joint_positions,
    preserved,
    read_robot,
    read_saved_nominal,
    read_tip,
    restore_saved_nominal,
    set_joint_positions,
    show_model,
)

#: The ``sim`` functions the plugin calls on every CoppeliaSim version (4.6 and later);
#: docs/coppeliasim.md documents each. The tests check that the adapter calls no others
#: than these and those of the server's API generation (:mod:`.api`).
SIM_FUNCTIONS = (
    "getObject", "getObjectAlias", "getJointType", "getJointInterval", "getJointPosition", "setJointPosition",
    "getObjectPose", "setObjectPose", "getObjectPosition", "setObjectPosition", "isHandle",
    "createPrimitiveShape", "createDummy", "removeObjects", "setObjectAlias", "setObjectParent",
    "setShapeColor",
)
#: The calls of the 4.6-era API, used with CoppeliaSim 4.6 to 4.9 (:class:`.api.LegacyApi`).
LEGACY_SIM_FUNCTIONS = (
    "getInt32Param", "readCustomDataBlock", "writeCustomDataBlock", "getObjectParent", "getObjectsInTree",
)
#: The calls of the properties API, used with CoppeliaSim 4.10 and later (:class:`.api.CurrentApi`);
#: ``getIntProperty`` also reads the version on 4.8 and 4.9 (nil there, then ``getInt32Param``).
CURRENT_SIM_FUNCTIONS = (
    "getIntProperty", "getBufferProperty", "setBufferProperty", "removeProperty", "getHandleProperty",
    "getHandleArrayProperty", "getObjectType",
)

__all__ = [
    "CURRENT_SIM_FUNCTIONS", "DEFAULT_HOST", "DEFAULT_PORT", "DEFAULT_TIMEOUT_S", "LEGACY_SIM_FUNCTIONS",
    "SIM_FUNCTIONS",
    "CoppeliaSimError", "CoppeliaSimProtocolMismatch", "CoppeliaSimServerError", "CoppeliaSimUnreachable",
    "LoadedCell", "SceneCheck", "SceneError", "SceneRobot", "Session",
    "addon_source", "apply_authors_script", "check_nominal_fk", "check_in_scene", "check_poses", "connect",
    "deformation_shown", "install_addon", "joint_positions", "load_cell", "preserved", "read_robot",
    "read_saved_nominal", "read_tip", "restore_saved_nominal", "set_joint_positions", "show_model",
]
