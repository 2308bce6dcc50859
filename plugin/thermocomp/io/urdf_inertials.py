"""The inertials of a URDF as standard parameters of the table form's links, and a URDF carrying identified ones.

Reading (:func:`read_urdf_parameters`): every URDF link that moves with
joint ``k`` of the serial chain (the child of revolute joint ``k`` and the
links fixed to it, such as a ROS ``flange`` and ``tool0``) contributes its
``<inertial>`` to the standard parameters of the table form's link ``k``
(:mod:`thermocomp.dynamics.parameters`: origin on joint ``k``,
base-oriented at the zero pose; docs/conventions.md). Links that do not move
(the base, a ``world`` root) are left out. A URDF link without
``<inertial>`` counts as massless here (PyBullet would give it 1 kg: such a
file is not a good truth model, and the reader says so in ``notes``).

Writing (:func:`urdf_with_parameters`): the input URDF, element for element,
with the ``<inertial>`` of each revolute joint's child link replaced so that
the links moving with joint ``k`` carry the given parameters in total (the
links fixed to it keep their own inertials, which are subtracted).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass

import numpy as np

from thermocomp._typing import ArrayLike, FloatArray, PathLike
from thermocomp.dynamics.parameters import inertial_from_parameters, link_parameters
from thermocomp.errors import InputError
from thermocomp.io.files import read_input_bytes
from thermocomp.io.urdf import link_inertial, origin_transform, read_urdf
from thermocomp.io.xml_values import parse_xml
from thermocomp.robot.chain import Chain

_MOVABLE = ("revolute", "continuous")


@dataclass(frozen=True, eq=False)
class UrdfParameters:
    """What :func:`read_urdf_parameters` returns.

    Attributes
    ----------
    chain
        The table-form chain (:func:`thermocomp.io.urdf.read_urdf`).
    parameters
        Standard parameters of links 1..n, ``(10 n,)``: everything moving with each joint.
    attached
        The part of ``parameters`` carried by links fixed to the joint's child link, ``(10 n,)``.
    main_links
        The URDF link that is each revolute joint's child, ``n`` names.
    notes
        Remarks (links without ``<inertial>``).
    """

    chain: Chain
    parameters: FloatArray
    attached: FloatArray
    main_links: tuple[str, ...]
    notes: tuple[str, ...]


def _inertial(link: ET.Element, src: str) -> tuple[float, FloatArray, FloatArray] | None:
    """``(mass, com, inertia about com)`` in the URDF link frame, or None without ``<inertial>``
    (checked: :func:`thermocomp.io.urdf.link_inertial`)."""
    found = link_inertial(link, src)
    if found is None:
        return None
    mass, T, I = found
    R = T[:3, :3]
    return mass, T[:3, 3], R @ I @ R.T


def _tree(root_el: ET.Element, src: str):
    joints = {}
    for j in root_el.findall("joint"):
        parent, child = j.find("parent"), j.find("child")
        if parent is None or child is None:
            raise InputError(f"joint {j.get('name')!r}: expected <parent> and <child>", path=src)
        joints[child.get("link")] = (j, parent.get("link"))
    return joints


def read_urdf_parameters(path: PathLike) -> UrdfParameters:
    """The chain of ``path`` and the standard parameters of what moves with each joint (see the module docstring)."""
    src = str(path)
    chain = read_urdf(path)
    root_el = parse_xml(read_input_bytes(path, "URDF"), src)
    links = {link.get("name"): link for link in root_el.findall("link")}
    by_child = _tree(root_el, src)
    names = list(chain.joint_names)

    def pose_and_joint(link: str) -> tuple[FloatArray, int]:
        """Zero-pose pose in the root frame, and the index (1-based, 0 = none) of the chain joint it moves with."""
        T = np.eye(4)
        k = 0
        while link in by_child:
            j, parent = by_child[link]
            T = origin_transform(j.find("origin"), f"joint {j.get('name')!r} origin", src) @ T
            if k == 0 and j.get("type") in _MOVABLE:
                if j.get("name") not in names:
                    raise InputError(f"link {link!r} moves with joint {j.get('name')!r}, which is not on the serial chain",
                                     path=src)
                k = names.index(j.get("name")) + 1
            link = parent
        return T, k

    # The base frame: the parent link of the first chain joint, moved by no joint.
    first = next(j for j, _ in by_child.values() if j.get("name") == names[0])
    T_root_base = pose_and_joint(first.find("parent").get("link"))[0]
    # Table-form joint origins in the base frame at the zero pose.
    origins = np.cumsum(chain.p, axis=0)
    n = chain.n_joints
    params = np.zeros((n, 10))
    attached = np.zeros((n, 10))
    main = [""] * n
    for j, _ in by_child.values():
        if j.get("name") in names:
            main[names.index(j.get("name"))] = j.find("child").get("link")
    notes = []
    for name, link in links.items():
        T_root_link, k = pose_and_joint(name)
        if k == 0:
            continue
        inertial = _inertial(link, src)
        if inertial is None:
            notes.append(f"link {name!r} has no <inertial> (counted massless; PyBullet would give it 1 kg)")
            continue
        mass, com, I = inertial
        T_base_link = np.linalg.solve(T_root_base, T_root_link)
        R = T_base_link[:3, :3]
        c = R @ com + T_base_link[:3, 3] - origins[k - 1]
        pi = link_parameters(mass, c, R @ I @ R.T)
        params[k - 1] += pi
        if name != main[k - 1]:
            attached[k - 1] += pi
    return UrdfParameters(chain, params.reshape(-1), attached.reshape(-1), tuple(main), tuple(notes))


def urdf_with_parameters(path: PathLike, parameters: ArrayLike) -> str:
    """The text of the URDF ``path`` with inertials that carry ``parameters`` ``(10 n,)`` (see the module docstring).

    Raises
    ------
    InputError
        When the parameters of a link, less what its fixed attachments carry,
        are not physically consistent (they cannot be written as a URDF inertial).
    """
    src = str(path)
    info = read_urdf_parameters(path)
    chain = info.chain
    n = chain.n_joints
    pi = np.asarray(parameters, dtype=float).reshape(n, 10)
    root_el = parse_xml(read_input_bytes(path, "URDF"), src, comments=True)
    links = {link.get("name"): link for link in root_el.findall("link")}
    by_child = _tree(root_el, src)
    origins = np.cumsum(chain.p, axis=0)

    def T_root(link: str) -> FloatArray:
        T = np.eye(4)
        while link in by_child:
            j, parent = by_child[link]
            T = origin_transform(j.find("origin"), "origin", src) @ T
            link = parent
        return T

    first = next(j for j, _ in by_child.values() if j.get("name") == chain.joint_names[0])
    T_root_base = T_root(first.find("parent").get("link"))
    for k in range(n):
        name = info.main_links[k]
        own = pi[k] - info.attached[10 * k:10 * k + 10]
        inertial = inertial_from_parameters(own, f"link {k + 1} (URDF link {name!r})")
        T_base_link = np.linalg.solve(T_root_base, T_root(name))
        R, t = T_base_link[:3, :3], T_base_link[:3, 3]
        com = R.T @ (inertial.com + origins[k] - t)
        I = R.T @ inertial.inertia @ R
        link = links[name]
        old = link.find("inertial")
        position = list(link).index(old) if old is not None else 0
        if old is not None:
            link.remove(old)
        new = ET.Element("inertial")
        ET.SubElement(new, "origin", xyz=" ".join(repr(float(v)) for v in com), rpy="0 0 0")
        ET.SubElement(new, "mass", value=repr(inertial.mass))
        ET.SubElement(new, "inertia", ixx=repr(float(I[0, 0])), ixy=repr(float(I[0, 1])), ixz=repr(float(I[0, 2])),
                      iyy=repr(float(I[1, 1])), iyz=repr(float(I[1, 2])), izz=repr(float(I[2, 2])))
        link.insert(position, new)
    ET.indent(root_el)
    return '<?xml version="1.0"?>\n' + ET.tostring(root_el, encoding="unicode") + "\n"


__all__ = ["UrdfParameters", "read_urdf_parameters", "urdf_with_parameters"]
