"""A scene file's static objects as PyBullet bodies (docs/scenes.md).

Each object becomes a fixed body (mass 0) at ``T_world_object``: boxes,
cylinders (axis along the object's z) and spheres as PyBullet primitives,
meshes with their stated scale. A mesh object is collided as the concave
triangle mesh it is (``GEOM_FORCE_CONCAVE_TRIMESH``, allowed for static
bodies), not its convex hull: a workpiece with a hollow must not look solid.
"""

from __future__ import annotations

from dataclasses import dataclass

from thermocomp.errors import InputError
from thermocomp.io.scene_file import Scene, SceneObject
from thermocomp.simulators.pybullet.client import Client
from thermocomp.simulators.pybullet.conversions import pybullet_pose_from_T


@dataclass(frozen=True)
class SceneBodies:
    """The PyBullet bodies of a scene's objects.

    Attributes
    ----------
    scene
        The scene they come from.
    body
        PyBullet body id by object name.
    """

    scene: Scene
    body: dict[str, int]

    def colliding(self) -> dict[str, int]:
        """Bodies of the objects that take part in collision checks (``collide = true``)."""
        return {obj.name: self.body[obj.name] for obj in self.scene.objects if obj.collide}


def _shape_args(client: Client, obj: SceneObject) -> tuple[dict, dict]:
    """Keyword arguments of ``createCollisionShape`` and ``createVisualShape`` for ``obj``."""
    pb = client.pb
    if obj.shape == "box":
        half = (0.5 * obj.size).tolist()  # type: ignore[operator]
        return {"shapeType": pb.GEOM_BOX, "halfExtents": half}, {"shapeType": pb.GEOM_BOX, "halfExtents": half}
    if obj.shape == "cylinder":
        # PyBullet names a cylinder's length "height" for collision shapes and "length" for visual ones.
        return ({"shapeType": pb.GEOM_CYLINDER, "radius": obj.radius, "height": obj.length},
                {"shapeType": pb.GEOM_CYLINDER, "radius": obj.radius, "length": obj.length})
    if obj.shape == "sphere":
        sphere = {"shapeType": pb.GEOM_SPHERE, "radius": obj.radius}
        return sphere, dict(sphere)
    scale = [obj.mesh_scale] * 3
    return ({"shapeType": pb.GEOM_MESH, "fileName": str(obj.mesh_file), "meshScale": scale,
             "flags": pb.GEOM_FORCE_CONCAVE_TRIMESH},
            {"shapeType": pb.GEOM_MESH, "fileName": str(obj.mesh_file), "meshScale": scale})


def load_scene(client: Client, scene: Scene) -> SceneBodies:
    """Create a fixed body for every object of ``scene``; returns their ids by name.

    Raises
    ------
    InputError
        Naming the scene file, the object's line and its mesh file: PyBullet
        cannot load the mesh (an unreadable or empty STL or OBJ).
    """
    pb, cid = client.pb, client.id
    bodies: dict[str, int] = {}
    for obj in scene.objects:
        collision_args, visual_args = _shape_args(client, obj)
        try:
            collision = pb.createCollisionShape(physicsClientId=cid, **collision_args)
            visual = pb.createVisualShape(rgbaColor=list(obj.rgba), physicsClientId=cid, **visual_args)
        except pb.error as exc:
            raise InputError(f"[[object]] {obj.name!r}: PyBullet cannot load the {obj.shape} "
                             f"{'' if obj.mesh_file is None else str(obj.mesh_file) + ' '}({exc}); expected a "
                             "readable, non-empty STL or OBJ mesh", path=scene.source, row=obj.line) from exc
        position, quat_xyzw = pybullet_pose_from_T(obj.T_world_object)
        bodies[obj.name] = pb.createMultiBody(
            baseMass=0.0, baseCollisionShapeIndex=collision, baseVisualShapeIndex=visual,
            basePosition=position, baseOrientation=quat_xyzw, physicsClientId=cid,
        )
    return SceneBodies(scene=scene, body=bodies)


__all__ = ["SceneBodies", "load_scene"]
