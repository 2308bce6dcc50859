"""Build a scene file's cell (table, print bed, workpiece, fixtures) in CoppeliaSim.

A scene file (docs/scenes.md, read by :func:`thermocomp.io.scene_file.read_scene`:
SI, poses ``T_world_object`` in the cell's world frame) lists static objects
and where the robot stands. :func:`load_cell` creates the boxes, cylinders
and spheres with CoppeliaSim's documented regular API, groups them under one
dummy named after the scene, and moves the robot's base object to the scene's
placement. The robot itself is CoppeliaSim's (e.g. the IRB140 of its model
library, dragged into the scene): its base object's frame is taken as the
robot's own world frame, so the base is set to ``T_world_robot``.

CoppeliaSim conventions (docs/coppeliasim.md): a primitive shape is centred on
its frame, a cylinder's axis is its z axis, sizes are full extents in metres
(``sim.createPrimitiveShape(type, [x, y, z], 0)``; a cylinder's x and y are its
diameter); poses are ``[x, y, z, qx, qy, qz, qw]``. Colours are set as
``r, g, b`` (the ambient-diffuse component); a scene's alpha is not applied.
Mesh objects are not imported: the result names them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from thermocomp.simulators.coppeliasim.api import pose_xyzw_from_T
from thermocomp.simulators.coppeliasim.connection import (
    CoppeliaSimError,
    SceneError,
    Session,
)
from thermocomp.simulators.coppeliasim.scene import get_object

if TYPE_CHECKING:  # the reader is needed only by whoever reads the file
    from thermocomp.io.scene_file import Scene

#: Size of the dummy that groups the cell's objects [m] (display only).
GROUP_DUMMY_SIZE = 0.05


@dataclass(frozen=True)
class LoadedCell:
    """What :func:`load_cell` created.

    Attributes
    ----------
    group
        Handle of the dummy holding the objects; its alias is the scene's name.
    objects
        ``(name, handle)`` of every created object, in file order.
    skipped
        Names of objects not created, with the reason (mesh objects).
    robot_base
        Handle of the robot base that was placed, or ``None``.
    """

    group: int
    objects: tuple[tuple[str, int], ...]
    skipped: tuple[str, ...]
    robot_base: int | None

    def text(self, scene: Scene) -> str:
        lines = [f"built {len(self.objects)} objects of {scene.name} ({scene.source}) under /{scene.name}: "
                 + ", ".join(name for name, _ in self.objects)]
        if self.robot_base is not None:
            lines.append("placed the robot's base as the scene says")
        lines += [f"not created: {s}" for s in self.skipped]
        return "\n".join(lines)


def _sizes(obj) -> tuple[str, list[float]]:
    """The primitive type constant's name and CoppeliaSim's full extents [m] of a scene object."""
    if obj.shape == "box":
        return "primitiveshape_cuboid", [float(v) for v in obj.size]
    if obj.shape == "cylinder":
        d = 2.0 * float(obj.radius)
        return "primitiveshape_cylinder", [d, d, float(obj.length)]
    if obj.shape == "sphere":
        d = 2.0 * float(obj.radius)
        return "primitiveshape_spheroid", [d, d, d]
    raise SceneError(f"object {obj.name!r}: no primitive for shape {obj.shape!r}")


def load_cell(session: Session, scene: Scene, robot_path: str | None = None) -> LoadedCell:
    """Create the scene's objects in CoppeliaSim and place the robot's base.

    Parameters
    ----------
    session
        A connection (:func:`connect`).
    scene
        A scene read with :func:`thermocomp.io.scene_file.read_scene`.
    robot_path
        Object path of the robot's base to place at ``scene.robot.T_world_robot``;
        ``None``: leave the robot where it is.

    Returns
    -------
    LoadedCell

    Raises
    ------
    SceneError
        The cell is already in the scene (an object ``/<scene name>``), or no
        object at ``robot_path``. Nothing is created then.
    CoppeliaSimError
        CoppeliaSim refused a call while building: the objects created so far
        are removed (``sim.removeObjects``) before the error is raised, so the
        cell can be loaded again once the cause is mended.
    """
    world = session.const("handle_world")
    existing = session.call("getObject", f"/{scene.name}", {"noError": True})
    if existing is not None and existing >= 0:
        raise SceneError(f"the scene already has an object /{scene.name}: the cell is loaded; remove it in "
                         "CoppeliaSim first to load it again")
    base = None if robot_path is None else get_object(session, robot_path, "robot base")
    made: list[int] = []  # every handle created, to remove them all if a later call fails
    try:
        group = int(session.call("createDummy", GROUP_DUMMY_SIZE))
        made.append(group)
        session.call("setObjectAlias", group, scene.name)
        created, skipped = [], []
        for obj in scene.objects:
            if obj.shape == "mesh":
                skipped.append(f"{obj.name} (a mesh: import {obj.mesh_file} with File > Import > Mesh, "
                               f"scale {obj.mesh_scale:g} m per unit)")
                continue
            kind, sizes = _sizes(obj)
            h = int(session.call("createPrimitiveShape", session.const(kind), sizes, 0))
            made.append(h)
            session.call("setObjectAlias", h, obj.name)
            session.call("setObjectParent", h, group, True)
            session.call("setObjectPose", h, pose_xyzw_from_T(obj.T_world_object), world)
            session.call("setShapeColor", h, None, session.const("materialcomponent_diffuse", "colorcomponent_ambient_diffuse"),
                         [float(c) for c in obj.rgba[:3]])
            created.append((obj.name, h))
        if base is not None:
            session.call("setObjectPose", base, pose_xyzw_from_T(scene.robot.T_world_robot), world)
    except CoppeliaSimError as exc:
        # A half-built cell would make the next load-scene refuse ("the cell is loaded"): take it down again.
        if made:
            try:
                session.call("removeObjects", made)
            except CoppeliaSimError as cleanup:
                raise SceneError(
                    f"{exc}; removing the {len(made)} objects created before that failed too ({cleanup}): "
                    f"remove /{scene.name} in CoppeliaSim before loading the cell again"
                ) from exc
        raise
    return LoadedCell(group=group, objects=tuple(created), skipped=tuple(skipped), robot_base=base)
