"""The inertials of a robot file as standard parameters of the table form's links, and a URDF carrying identified ones.

Frames. The chain is the robot file's serial chain from its base link to
its tip link (:func:`thermocomp.io.urdf.urdf_chain`; ``--base-link`` and
``--tip-link`` choose them). Every URDF link below the base has a pose at
the zero pose (every joint at 0) in the base link's frame, composed from the
joint origins between them, whatever fixed, displaced or rotated links lie
between the base and joint 1 or between two joints (ROS-Industrial's UR
hangs ``shoulder_link`` from ``base_link_inertia``, turned by pi about z from
the root ``base_link``). A link moves with chain joint ``k`` when ``k`` is the
nearest movable joint above it: the child of joint ``k`` and every link fixed
to it (a ROS ``flange``, ``tool0``, a camera beyond the tip). Its
``<inertial>`` (mass, centre of mass and tensor in the ``<inertial><origin>``
frame) is rotated and moved into the table form's link ``k`` frame (origin
on joint ``k``, base-oriented at the zero pose;
:mod:`thermocomp.dynamics.parameters`, docs/conventions.md) and the links of
one joint add up (parallel axis theorem). Links that do not move with the
chain (the base, a ``world`` root, a frame beside the base) carry no torque
of the chain and are left out. A URDF link without ``<inertial>`` counts as
massless (what pinocchio and ``urdf_parser`` do; PyBullet would give it 1 kg,
:mod:`thermocomp.dynamics.simulate` writes it massless for PyBullet) and the
reader says so in ``notes``.

Gravity acts along ``-z`` of the URDF's root link, as in PyBullet,
pinocchio and Gazebo: the chain returned is placed in the root
(``T_world_base`` = the base link's pose in the root at the zero pose), so a
base link turned or tilted from the root keeps gravity where the file has it.

Reading (:func:`urdf_parameters`, of the file as io read it): a ``.urdf`` or ``.xacro`` file with
:class:`~thermocomp.io.robot_files.RobotFileOptions` (base and tip links,
xacro arguments, ROS packages), as the kinematic commands read it.

Writing (:func:`urdf_with_parameters`): the robot file's URDF (a xacro file
expanded), element for element, with the ``<inertial>`` of each chain
joint's child link replaced so that the links moving with joint ``k`` carry
the given parameters in total (the links fixed to it keep their own
inertials, which are subtracted; when nothing is left, the child link is
written without ``<inertial>``, massless); the inertial is written in that
URDF link's own frame, so reading the written file gives the parameters back.
"""

from __future__ import annotations

import copy
import xml.etree.ElementTree as ET
from dataclasses import dataclass

import numpy as np

from thermocomp._typing import ArrayLike, FloatArray
from thermocomp.dynamics.parameters import inertial_from_parameters, link_parameters
from thermocomp.errors import InputError
from thermocomp.io.robot_files import RobotDescription
from thermocomp.io.urdf import Urdf, link_inertial, urdf_chain_ends
from thermocomp.io.xml_values import line_of
from thermocomp.robot.chain import Chain

_MOVABLE = ("revolute", "continuous", "prismatic", "planar", "floating")


@dataclass(frozen=True, eq=False)
class UrdfParameters:
    """What :func:`urdf_parameters` returns.

    Attributes
    ----------
    chain
        The table-form chain (:func:`thermocomp.io.urdf.urdf_chain`), placed
        in the URDF's root frame (``T_world_base``: the base link's pose in
        the root at the zero pose; gravity is along the root's ``-z``).
    parameters
        Standard parameters of links 1..n, ``(10 n,)``: everything moving with each joint.
    attached
        The part of ``parameters`` carried by links fixed to the joint's child link, ``(10 n,)``.
    main_links
        The URDF link that is each chain joint's child, ``n`` names.
    T_base_main
        Each main link's frame in the base link's frame at the zero pose, ``(n, 4, 4)``.
    notes
        Remarks (links without ``<inertial>``).
    description
        The robot file as read (its URDF text; a xacro file expanded).
    """

    chain: Chain
    parameters: FloatArray
    attached: FloatArray
    main_links: tuple[str, ...]
    T_base_main: FloatArray
    notes: tuple[str, ...]
    description: RobotDescription


def _inertial(link: ET.Element, src: str) -> tuple[float, FloatArray, FloatArray] | None:
    """``(mass, com, inertia about com)`` in the URDF link frame, or None without ``<inertial>``
    (checked: :func:`thermocomp.io.urdf.link_inertial`)."""
    found = link_inertial(link, src)
    if found is None:
        return None
    mass, T, I = found
    R = T[:3, :3]
    return mass, T[:3, 3], R @ I @ R.T


def _bodies(urdf: Urdf, joint_names: tuple[str, ...], base_link: str
            ) -> tuple[FloatArray, dict[str, tuple[FloatArray, int]]]:
    """``T_root_base`` and, per URDF link, ``(T_base_link, k)``: its zero-pose frame in the base link's frame and
    the chain joint it moves with (1-based; 0: it does not move with the chain)."""
    src = urdf.source
    by_child = {j.child: j for j in urdf.joints}  # (a tree: urdf_chain checked it)
    chain_joints = set(joint_names)
    out: dict[str, tuple[FloatArray, int]] = {}

    def walk(link: str) -> tuple[FloatArray, int]:
        """``T_root_link`` at the zero pose and the chain joint ``link`` moves with."""
        start = link
        T = np.eye(4)
        k = 0
        foreign = None  # the nearest movable joint above, when it is not on the chain
        while link in by_child:
            j = by_child[link]
            T = j.T_parent_joint @ T
            name = j.name
            if k == 0 and j.type in _MOVABLE:
                if name in chain_joints:
                    k = joint_names.index(name) + 1
                    if foreign is not None:
                        raise InputError(
                            f"link {start!r} moves with joint {foreign!r}, which is not on the chain, below chain "
                            f"joint {name!r}: its inertia cannot be counted with a chain link; choose a chain that "
                            "includes the joint (--base-link / --tip-link) or remove the branch", path=src,
                            row=line_of(by_child[start].element))
                elif foreign is None:
                    foreign = name
            link = j.parent
        return T, k

    links = list(urdf.links)
    T_root_base = walk(base_link)[0]
    for name in links:
        T_root_link, k = walk(name)
        out[name] = (np.linalg.solve(T_root_base, T_root_link), k)
    return T_root_base, out


def urdf_parameters(description: RobotDescription) -> UrdfParameters:
    """The chain of a robot file and the standard parameters of what moves with each joint.

    Parameters
    ----------
    description
        A ``.urdf`` or ``.xacro`` file as read (:func:`thermocomp.io.robot_files.read_robot_description`, with its
        base and tip links, xacro arguments, ROS package folders): its one reading, ``description.parsed``.

    See the module docstring for the frames.
    """
    src = str(description.source)
    opts = description.options
    chain = description.chain()
    base_link, _ = urdf_chain_ends(description.parsed, src, opts.base_link, opts.tip_link)
    root_el = description.parsed.root  # (the one reading of the file: RobotDescription.parsed)
    T_root_base, bodies = _bodies(description.parsed, chain.joint_names, base_link)
    origins = np.cumsum(chain.p, axis=0)  # table-form joint origins in the base frame at the zero pose
    n = chain.n_joints
    params = np.zeros((n, 10))
    attached = np.zeros((n, 10))
    main = [""] * n
    for j in root_el.findall("joint"):
        if j.get("name") in chain.joint_names:
            main[chain.joint_names.index(j.get("name"))] = j.find("child").get("link")
    notes = []
    for link in root_el.findall("link"):
        name = link.get("name")
        T_base_link, k = bodies[name]
        if k == 0:
            continue
        inertial = _inertial(link, src)
        if inertial is None:
            notes.append(f"link {name!r} has no <inertial> (counted massless; PyBullet would give it 1 kg)")
            continue
        mass, com, I = inertial
        R = T_base_link[:3, :3]
        pi = link_parameters(mass, R @ com + T_base_link[:3, 3] - origins[k - 1], R @ I @ R.T)
        params[k - 1] += pi
        if name != main[k - 1]:
            attached[k - 1] += pi
    return UrdfParameters(chain.replace(T_world_base=T_root_base), params.reshape(-1), attached.reshape(-1),
                          tuple(main), np.array([bodies[name][0] for name in main]), tuple(notes), description)


def urdf_with_parameters(robot: UrdfParameters, parameters: ArrayLike) -> str:
    """The URDF text of the robot file ``robot`` was read from (:func:`urdf_parameters`) with inertials that
    carry ``parameters`` ``(10 n,)`` (see the module docstring).

    Raises
    ------
    InputError
        When the parameters of a link, less what its fixed attachments carry,
        are not physically consistent (they cannot be written as a URDF inertial).
    """
    info = robot
    chain = info.chain
    n = chain.n_joints
    pi = np.asarray(parameters, dtype=float).reshape(n, 10)
    root_el = copy.deepcopy(info.description.parsed.root)  # (read once, comments kept; this copy is edited)
    links = {link.get("name"): link for link in root_el.findall("link")}
    origins = np.cumsum(chain.p, axis=0)
    for k in range(n):
        name = info.main_links[k]
        own = pi[k] - info.attached[10 * k:10 * k + 10]
        link = links[name]
        old = link.find("inertial")
        position = list(link).index(old) if old is not None else 0
        if old is not None:
            link.remove(old)
        if not np.any(own):  # a massless frame, what fixed links carry is all (as read)
            continue
        inertial = inertial_from_parameters(own, f"link {k + 1} (URDF link {name!r})")
        T_base_link = info.T_base_main[k]
        R, t = T_base_link[:3, :3], T_base_link[:3, 3]
        com = R.T @ (inertial.com + origins[k] - t)
        I = R.T @ inertial.inertia @ R
        new = ET.Element("inertial")
        ET.SubElement(new, "origin", xyz=" ".join(repr(float(v)) for v in com), rpy="0 0 0")
        ET.SubElement(new, "mass", value=repr(inertial.mass))
        ET.SubElement(new, "inertia", ixx=repr(float(I[0, 0])), ixy=repr(float(I[0, 1])), ixz=repr(float(I[0, 2])),
                      iyy=repr(float(I[1, 1])), iyz=repr(float(I[1, 2])), izz=repr(float(I[2, 2])))
        link.insert(position, new)
    ET.indent(root_el)
    return '<?xml version="1.0"?>\n' + ET.tostring(root_el, encoding="unicode") + "\n"


__all__ = ["UrdfParameters", "urdf_parameters", "urdf_with_parameters"]
