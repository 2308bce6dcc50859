"""An ABB IRB140 scene like CoppeliaSim's model library builds it, with the authors' joint frames.

Hierarchy (aliases as CoppeliaSim's models use them; every joint is ``joint``)::

    /IRB140 (shape) -> joint -> link -> joint -> link -> ... -> joint -> link -> tip (dummy)

Joint origins at the zero pose: the IRB140 of seed 002, Table 9 [mm] (joint 6
65 mm after joint 5, ABB's wrist-to-flange distance); joint-object world
orientations: the authors' scene, CoppeliaSim Euler angles [deg] from the
CoppeliaSim issue. Links sit at odd poses on purpose: the plugin must not
assume that a joint's parent is the previous joint. The tip is at the flange
(ABB ``tool0``): at joint 6's origin, oriented like joint 6.

Typed here from the paper and the issue, independently of thermocomp's robot files.
Provenance of the numbers: ``P_MM`` is the X, Y, Z columns of seed 002, Table 9
("Translation parameters [19]": 0/0/104.5, 70/65/247.5, 0/-123/360,
238.5/58/0, 141.5/0/0), except joint 6, where Table 9 reads 39.5 and the
fake (like the built-in irb140) uses ABB's 65 mm; the same numbers as
robots/irb140/chain.csv, so this scene holds the *datasheet* geometry, not
values read from the authors' scene file (which ../shared/reference does not
have). ``EULER_DEG``: issue 4 (the authors' joint objects); ``LIMITS_DEG``: ABB's
product specification. ``p_mm`` builds a scene that stores other joint positions.
"""

from __future__ import annotations

import math

import numpy as np

from coppeliasim_fake.scene import (
    JOINT_REVOLUTE,
    OBJECT_DUMMY,
    OBJECT_JOINT,
    OBJECT_SHAPE,
    Scene,
)
from coppeliasim_fake.spatial import matrix_from_euler

#: Translation from joint i-1 (the base for joint 1) to joint i at the zero pose [mm].
P_MM = [(0, 0, 104.5), (70, 65, 247.5), (0, -123, 360), (238.5, 58, 0), (141.5, 0, 0), (65, 0, 0)]
#: World Euler angles of the joint objects at the zero pose [deg] (the authors' scene).
EULER_DEG = [(0, 0, 0), (-90, 0, -90), (-90, 0, -90), (0, 90, 180), (-90, 0, -90), (0, 90, 0)]
#: Joint limits [deg] (ABB IRB140 product specification).
LIMITS_DEG = [(-180, 180), (-90, 110), (-230, 50), (-200, 200), (-120, 120), (-400, 400)]


def _rad(v):
    return [math.radians(x) for x in v]


def build_irb140_scene(q_deg=(0, 0, 0, 0, 0, 0), *, with_tip: bool = True, extra_branch: bool = False,
                       p_mm=P_MM) -> Scene:
    """The scene, joints then set to ``q_deg`` [deg]; ``p_mm``: the joint-to-joint translations [mm], (6, 3).

    ``extra_branch`` adds a second joint beside joint 6 (a gripper finger):
    the arm is then no longer a serial chain.
    """
    scene = Scene()
    base = scene.add("IRB140", OBJECT_SHAPE, None, T_world=(np.zeros(3), np.eye(3)))
    parent = base
    origin = np.zeros(3)
    joints = []
    for i in range(6):
        origin = origin + np.array(p_mm[i], dtype=float) / 1000.0
        lo, hi = _rad(LIMITS_DEG[i])
        j = scene.add("joint", OBJECT_JOINT, parent, T_world=(origin, matrix_from_euler(*_rad(EULER_DEG[i]))),
                      joint_type=JOINT_REVOLUTE, interval=(lo, hi - lo))
        joints.append(j)
        # A link shape at an odd pose under the joint; the next joint hangs under the link.
        link_R = matrix_from_euler(*_rad((10.0 * (i + 1), -20.0, 35.0)))
        link = scene.add("link", OBJECT_SHAPE, j, T_world=(origin + np.array([0.01, -0.02, 0.03]), link_R))
        parent = link
    if with_tip:
        scene.add("tip", OBJECT_DUMMY, parent, T_world=(origin, matrix_from_euler(*_rad(EULER_DEG[5]))))
    if extra_branch:
        scene.add("finger", OBJECT_JOINT, joints[4], T_world=(origin + np.array([0.0, 0.05, 0.0]), np.eye(3)),
                  joint_type=JOINT_REVOLUTE)
    for j, q in zip(joints, _rad(q_deg)):
        scene.objects[j].position = q
    return scene
