"""URDF reader (any revolute serial chain) and writer (a possibly deformed model).

Reading
    :func:`read_urdf` takes the serial chain from a base link to a tip link
    and converts it exactly to the table form of seed 002, Table 7
    (:class:`thermocomp.robot.chain.Chain`): fixed joints are folded into the
    neighbouring translations, rotated joint origins and non-unit axes are
    resolved into base-frame joint positions and unit axes at the zero pose.
Writing
    :func:`urdf_text` / :func:`write_urdf` write a
    :class:`thermocomp.kinematics.model.KinematicModel` (the nominal robot or a
    deformed one, seed 002, Eqs. 18-22) as a URDF whose forward kinematics in
    any URDF consumer (PyBullet, ``tests/test_pybullet_oracle.py``) equals
    :func:`thermocomp.kinematics.fk.fk`.

URDF conventions (ROS REP-103 and the URDF specification):

* ``<origin xyz="x y z" rpy="r p y"/>`` is the pose of a joint frame in its
  parent link frame; ``rpy`` are fixed-axis roll, pitch, yaw:
  ``R = Rz(yaw) @ Ry(pitch) @ Rx(roll)`` (:func:`matrix_from_urdf_rpy`).
* ``<axis xyz="..."/>`` is given in the joint frame; a revolute joint turns
  the child link about it by the joint position [rad].
* Lengths are metres and angles radians, as inside thermocomp.

See docs/conventions.md.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from thermocomp._typing import ArrayLike, FloatArray, PathLike
from thermocomp.errors import InputError
from thermocomp.geometry.checks import check_array, check_transform
from thermocomp.io.atomic import atomic_write_text
from thermocomp.io.files import MAX_DESCRIPTION_BYTES, read_input_bytes
from thermocomp.io.xml_values import attr_number, attr_numbers, line_of, parse_xml
from thermocomp.kinematics.model import KinematicModel, nominal_model
from thermocomp.robot.chain import MAX_ANGLE, MAX_LENGTH, MIN_SPEED, Chain
from thermocomp.tolerances import URDF_INERTIA_RTOL

#: Limits given to a ``continuous`` joint [rad]. :class:`Chain` needs finite
#: limits (its IK and limit checks compare against them); two turns either
#: way leave a continuous joint free for any program that does not wind up
#: cables, and a controller that does wind them has its own limits to state.
CONTINUOUS_LIMIT = 4.0 * math.pi

#: Placeholder inertial of every written link: 1 g and the inertia of a
#: 1 g sphere of radius 5 mm (2/5 m r^2 = 1e-8 kg m^2). PyBullet needs an
#: inertial per link; kinematics does not use it. Real link inertias (seed 000,
#: Step 1) are written by the inertia pipeline, not here.
PLACEHOLDER_MASS = 1e-3
PLACEHOLDER_INERTIA = 1e-8

_ROOT_WORLD = "world"
#: thermocomp's own top-level URDF element: the home configuration, ``<home joint="..." position="..."/>`` per joint
#: (URDF joint positions [rad]). URDF readers skip elements they do not know, as they skip ``<gazebo>``.
HOME_ELEMENT = "thermocomp"
_MOVABLE = ("revolute", "continuous")
_UNSUPPORTED = ("prismatic", "floating", "planar")


# --- rotations in URDF's roll-pitch-yaw convention --------------------------------


def matrix_from_urdf_rpy(rpy: ArrayLike) -> FloatArray:
    """``R = Rz(yaw) @ Ry(pitch) @ Rx(roll)`` from URDF ``rpy = (roll, pitch, yaw)`` [rad].

    Parameters
    ----------
    rpy
        Shape ``(3,)``: fixed-axis rotations about x, then y, then z.

    Returns
    -------
    R : ndarray, shape ``(3, 3)``
    """
    r, p, y = (float(v) for v in np.asarray(rpy, dtype=float))
    cr, sr, cp, sp, cy, sy = math.cos(r), math.sin(r), math.cos(p), math.sin(p), math.cos(y), math.sin(y)
    return np.array(
        [
            [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
            [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
            [-sp, cp * sr, cp * cr],
        ]
    )


def urdf_rpy_from_matrix(R: ArrayLike) -> FloatArray:
    """URDF ``(roll, pitch, yaw)`` [rad] of a rotation matrix ``(3, 3)``.

    Inverse of :func:`matrix_from_urdf_rpy` with ``pitch`` in [-pi/2, pi/2].
    Yaw comes from the first column, pitch from its tilt, and roll from
    what is left after undoing both, so the rotation is reproduced to
    round-off even at and near gimbal lock (``|pitch| = pi/2``), where the
    split between roll and yaw is arbitrary (yaw is then 0).
    """
    R = np.asarray(R, dtype=float)
    yaw = math.atan2(R[1, 0], R[0, 0])
    pitch = math.atan2(-R[2, 0], math.hypot(R[0, 0], R[1, 0]))
    rest = matrix_from_urdf_rpy([0.0, pitch, yaw]).T @ R  # = Rx(roll)
    roll = math.atan2(rest[2, 1], rest[1, 1])
    return np.array([roll, pitch, yaw])


# --- reading ---------------------------------------------------------------------------


def bounded(values: FloatArray, bound: float, unit: str, what: str, src: str, element: ET.Element | None) -> FloatArray:
    """``values`` if every one is at most ``bound`` in magnitude; else a located :class:`InputError`.

    A robot file's 1e300 m joint origin is finite, but no robot has it: it overflowed later, in a program's
    timing, and was reported there, against the program.
    """
    big = np.abs(values) > bound
    if np.any(big):
        raise InputError(f"{what}: expected values of magnitude at most {bound:g} {unit}, got "
                         f"{' '.join(f'{v:g}' for v in values)}", path=src, row=line_of(element))
    return values


def origin_transform(origin: ET.Element | None, what: str, src: str) -> FloatArray:
    """The transform ``(4, 4)`` of an ``<origin xyz=... rpy=...>`` (identity without one), each triple within a
    robot's bounds (:data:`~thermocomp.robot.chain.MAX_LENGTH` m, :data:`~thermocomp.robot.chain.MAX_ANGLE` rad);
    ``what`` names the element in a located error."""
    T = np.eye(4)
    T[:3, 3] = bounded(attr_numbers(origin, "xyz", (0.0, 0.0, 0.0), what, src), MAX_LENGTH, "m", f"{what} xyz", src,
                       origin)
    T[:3, :3] = matrix_from_urdf_rpy(bounded(attr_numbers(origin, "rpy", (0.0, 0.0, 0.0), what, src), MAX_ANGLE,
                                             "rad", f"{what} rpy", src, origin))
    return T


@dataclass(frozen=True, eq=False)
class UrdfJoint:
    """One ``<joint>`` as read (:func:`parse_urdf`).

    Attributes
    ----------
    name, type, parent, child
        The joint's name, its type as written, its parent and child links.
    T_parent_joint
        Its ``<origin>``: the joint frame in the parent link's frame ``(4, 4)`` [m] (identity without one).
    axis
        Its ``<axis xyz>`` ``(3,)`` as written (not normalised; default ``1 0 0``).
    element
        The XML element (its ``<limit>`` and ``<mimic>``; :func:`~thermocomp.io.xml_values.line_of` its line).
    """

    name: str
    type: str
    parent: str
    child: str
    T_parent_joint: FloatArray
    axis: FloatArray
    element: ET.Element


@dataclass(frozen=True, eq=False)
class UrdfLink:
    """One ``<link>`` as read (:func:`parse_urdf`): its name and element (``<inertial>``, ``<visual>``,
    ``<collision>``); its inertial was checked as :func:`link_inertial` checks it with ``physical=False``."""

    name: str
    element: ET.Element


@dataclass(frozen=True, eq=False)
class Urdf:
    """A URDF document read once (:func:`parse_urdf`), as yourdfpy reads one: elements as dataclasses, each
    ``<origin>`` parsed in one place (:func:`origin_transform`); every reader of a command takes this.

    Attributes
    ----------
    name
        ``<robot name>``, else the file's stem.
    links
        Name -> :class:`UrdfLink`, in document order.
    joints
        Every :class:`UrdfJoint`, in document order.
    homes
        ``<thermocomp><home joint= position=/>`` [rad] per joint.
    root
        The ``<robot>`` element (comments kept, for a writer that edits the document: copy it first).
    source
        Where the document came from, for messages.
    """

    name: str
    links: dict[str, UrdfLink]
    joints: tuple[UrdfJoint, ...]
    homes: dict[str, float]
    root: ET.Element
    source: str
    #: The line of each ``<home>`` element, for messages.
    home_lines: dict[str, int | None] = field(default_factory=dict)


def _read_joint(elem: ET.Element, src: str) -> UrdfJoint:
    name = elem.get("name")
    if not name:
        raise InputError("a <joint> has no name attribute", path=src, row=line_of(elem))
    what = f"joint {name!r}"
    links = []
    for tag in ("parent", "child"):
        sub = elem.find(tag)
        if sub is None or not sub.get("link"):
            raise InputError(f"{what}: expected <{tag} link=\"...\"/>, got none", path=src, row=line_of(elem))
        links.append(sub.get("link", ""))
    return UrdfJoint(name=name, type=(elem.get("type") or "").strip(), parent=links[0], child=links[1],
                     T_parent_joint=origin_transform(elem.find("origin"), f"{what} <origin>", src),
                     axis=attr_numbers(elem.find("axis"), "xyz", (1.0, 0.0, 0.0), f"{what} <axis>", src),
                     element=elem)


def link_inertial(link: ET.Element, src: str, *, physical: bool = True
                  ) -> tuple[float, FloatArray, FloatArray] | None:
    """``(mass [kg], T_link_inertial (4, 4), inertia about the centre of mass in the inertial frame [kg m^2] (3, 3))``
    of a URDF ``<link>``, or None without ``<inertial>``.

    Checked for every command that reads the file: numbers at all (finite, within the file's bounds), a
    centre of mass within :data:`MAX_LENGTH`, a mass not below 0 kg (no exporter writes one: a broken file).
    With ``physical`` (the dynamics, which use the inertial), also a body some mass distribution is: a
    mass above 0 (0 only with a zero tensor: a frame that carries nothing), principal moments >= 0 with
    ``I1 + I2 >= I3`` (:func:`thermocomp.inertia.checks.check_inertia_tensor`'s rules, with
    :data:`thermocomp.tolerances.URDF_INERTIA_RTOL` for the file's digits; a point mass, zero tensor, is
    allowed). Kinematic commands do not use the tensor, and real robot files carry sloppy ones for links
    that matter to nobody (a placeholder tensor on a massless frame): those must not stop a compensation.

    Raises
    ------
    InputError
        Naming the file, the line of the offending element and the link.
    """
    inertial = link.find("inertial")
    if inertial is None:
        return None
    what = f"link {link.get('name')!r} <inertial>"
    T = origin_transform(inertial.find("origin"), f"{what} <origin>", src)
    mass_el, inertia_el = inertial.find("mass"), inertial.find("inertia")
    if mass_el is None or inertia_el is None:
        raise InputError(f"{what}: expected <mass> and <inertia>", path=src, row=line_of(inertial))
    mass = attr_number(mass_el, "value", f"{what} <mass>", src)
    if mass is None:
        raise InputError(f"{what} <mass>: expected a value attribute", path=src, row=line_of(mass_el))
    v = {k: attr_number(inertia_el, k, f"{what} <inertia>", src, 0.0) for k in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")}
    I = np.array([[v["ixx"], v["ixy"], v["ixz"]], [v["ixy"], v["iyy"], v["iyz"]], [v["ixz"], v["iyz"], v["izz"]]])
    if mass < 0 and not physical:
        raise InputError(f"{what} <mass>: expected a mass >= 0 kg, got {mass:g}", path=src, row=line_of(mass_el))
    if not physical:
        return mass, T, I
    if mass < 0 or (mass == 0 and np.any(I != 0)):
        raise InputError(f"{what} <mass>: expected a mass > 0 kg (or 0 with a zero <inertia>: a frame that carries "
                         f"nothing), got {mass:g}", path=src, row=line_of(mass_el))
    moments = np.linalg.eigvalsh(I)
    scale = float(np.max(np.abs(moments)))
    if moments[0] < -URDF_INERTIA_RTOL * scale or moments[0] + moments[1] < moments[2] - URDF_INERTIA_RTOL * scale:
        raise InputError(f"{what} <inertia>: expected principal moments >= 0 with I1 + I2 >= I3 (a tensor some mass "
                         f"distribution has), got {' '.join(f'{m:.6g}' for m in moments)} kg m^2", path=src,
                         row=line_of(inertia_el))
    return mass, T, I


def parse_urdf(data: bytes | str | Urdf, src: str) -> Urdf:
    """The one reading of a URDF document (``data`` already read: returned as it is).

    Raises
    ------
    InputError
        Naming the file and the line: malformed XML, another root than ``<robot>``, a link or joint without a
        name or defined twice, a joint without parent or child, a bad ``<origin>``, ``<axis>`` or
        ``<inertial>`` number, a bad ``<thermocomp><home>``.
    """
    if isinstance(data, Urdf):
        return data
    root = parse_xml(data, src, comments=True)
    if root.tag != "robot":
        raise InputError(f"expected a <robot> root element, got <{root.tag}>", path=src)
    links: dict[str, UrdfLink] = {}
    for link in root.findall("link"):
        name = link.get("name")
        if not name:
            raise InputError("a <link> has no name attribute", path=src, row=line_of(link))
        if name in links:
            raise InputError(f"link {name!r} is defined twice", path=src, row=line_of(link))
        links[name] = UrdfLink(name, link)
        link_inertial(link, src, physical=False)  # (the dynamics' reader checks the body: link_inertial)
    if not links:
        raise InputError("expected <link> elements under <robot>, got none (a xacro file must be expanded first)", path=src)
    joints = tuple(_read_joint(j, src) for j in root.findall("joint"))
    names = [j.name for j in joints]
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise InputError(f"joint {dup!r} is defined twice", path=src)
    homes: dict[str, float] = {}
    home_lines: dict[str, int | None] = {}
    for extra in root.findall(HOME_ELEMENT):
        for home in extra.findall("home"):
            joint, text = home.get("joint"), home.get("position")
            value = attr_number(home, "position", f"<{HOME_ELEMENT}><home>", src, default=math.nan)
            if not joint or joint not in names or not math.isfinite(value):
                raise InputError(f"<{HOME_ELEMENT}><home>: expected joint=\"<a joint>\" and a finite position [rad], "
                                 f"got joint={joint!r} position={text!r}", path=src, row=line_of(home))
            homes[joint] = value
            home_lines[joint] = line_of(home)
    return Urdf(root.get("name") or Path(src).stem, links, joints, homes, root, src, home_lines)


def read_urdf(path: PathLike, base_link: str | None = None, tip_link: str | None = None) -> Chain:
    """The table-form chain of a URDF file's serial chain from ``base_link`` to ``tip_link``.

    :func:`urdf_chain` of the file's text (plain URDF; a xacro file goes
    through :func:`thermocomp.io.robot_files.load_robot_file`).
    """
    return urdf_chain(read_input_bytes(path, "URDF", MAX_DESCRIPTION_BYTES), str(path), base_link, tip_link)


@dataclass(frozen=True)
class _Resolved:
    """A URDF tree and the chain chosen in it (:func:`_resolve`)."""

    robot_name: str
    root: str
    base_link: str
    tip_link: str
    path_joints: list
    T_common_base: FloatArray
    path_between: object
    homes: dict


def _resolve(data: bytes | str | Urdf, source: str, base_link: str | None, tip_link: str | None) -> _Resolved:
    """Read a URDF (unless read), check it is a tree, pick the chain from ``base_link`` to ``tip_link`` (defaults:
    :func:`urdf_chain`)."""
    src = source
    urdf = parse_urdf(data, src)
    robot_name, links, joints = urdf.name, urdf.links, urdf.joints
    homes = {joint: (value, urdf.home_lines.get(joint)) for joint, value in urdf.homes.items()}  # with their lines
    by_child: dict[str, UrdfJoint] = {}
    children: dict[str, list[UrdfJoint]] = {name: [] for name in links}
    for j in joints:
        for role, link in (("parent", j.parent), ("child", j.child)):
            if link not in links:
                raise InputError(f"joint {j.name!r}: its {role} link {link!r} is not defined", path=src, row=line_of(j.element))
        if j.child in by_child:
            raise InputError(
                f"link {j.child!r} is the child of two joints ({by_child[j.child].name!r} and {j.name!r}); "
                "expected a tree",
                path=src,
            )
        by_child[j.child] = j
        children[j.parent].append(j)
    roots = sorted(link for link in links if link not in by_child)
    if len(roots) != 1:
        raise InputError(f"expected one root link, got {len(roots)}: {roots}; expected a tree", path=src)
    root = roots[0]

    if base_link is None:
        base_link = root
        below = children[root]
        if root == _ROOT_WORLD and len(below) == 1 and below[0].type == "fixed":
            base_link = below[0].child
    elif base_link not in links:
        raise InputError(f"base link {base_link!r} is not defined; links are {sorted(links)}", path=src)

    def path_between(top: str, bottom: str) -> list[UrdfJoint] | None:
        out: list[UrdfJoint] = []
        link = bottom
        while link != top:
            j = by_child.get(link)
            if j is None:
                return None
            out.append(j)
            link = j.parent
        return out[::-1]

    def moving_leaves(top: str) -> list[tuple[str, int]]:
        """Leaf links below ``top`` with at least one movable joint between, and how many."""
        out: list[tuple[str, int]] = []
        stack = [top]
        while stack:
            link = stack.pop()
            if not children[link]:
                n = sum(j.type != "fixed" for j in path_between(top, link) or [])
                if n:
                    out.append((link, n))
            stack.extend(j.child for j in children[link])
        return sorted(out)

    if tip_link is None:
        # A base frame hung beside the chain (ROS-Industrial's 'base') has no leaf that moves below
        # it: look from the link it is fixed to, as far up as fixed joints lead.
        top = base_link
        candidates = moving_leaves(top)
        while not candidates and top in by_child and by_child[top].type == "fixed":
            top = by_child[top].parent
            candidates = moving_leaves(top)
        if not candidates:
            raise InputError(f"no revolute or continuous joint below {base_link!r}; expected a robot arm", path=src)
        if len(candidates) != 1:
            found = ", ".join(f"{link} ({n} joints)" for link, n in candidates) or "none"
            raise InputError(
                f"which link is the tool? below {base_link!r} there are {len(candidates)} leaf links with "
                f"revolute joints above them: {found}; give tip_link (--tip-link)",
                path=src,
            )
        tip_link = candidates[0][0]
    elif tip_link not in links:
        raise InputError(f"tip link {tip_link!r} is not defined; links are {sorted(links)}", path=src)

    # The lowest common ancestor of base and tip; the base must hang off it through fixed joints only.
    above_base = [base_link] + [j.parent for j in reversed(path_between(root, base_link) or [])]
    common = next((link for link in above_base if path_between(link, tip_link) is not None), None)
    to_base = [] if common is None else (path_between(common, base_link) or [])
    if common is None or any(j.type != "fixed" for j in to_base):
        raise InputError(f"tip link {tip_link!r} does not lie below base link {base_link!r} "
                         "(nor beside it, joined to the chain by fixed joints only)", path=src)
    path_joints = path_between(common, tip_link) or []
    T_common_base = np.eye(4)
    for j in to_base:
        T_common_base = T_common_base @ j.T_parent_joint

    return _Resolved(robot_name, root, base_link, tip_link, path_joints, T_common_base, path_between, homes)


def urdf_chain_ends(data: bytes | str | Urdf, source: str, base_link: str | None = None,
                    tip_link: str | None = None) -> tuple[str, str]:
    """``(base_link, tip_link)`` that :func:`urdf_chain` takes for these arguments (the defaults resolved)."""
    r = _resolve(data, source, base_link, tip_link)
    return r.base_link, r.tip_link


def urdf_chain(data: bytes | str | Urdf, source: str, base_link: str | None = None, tip_link: str | None = None) -> Chain:
    """The table-form chain of a URDF text's serial chain from ``base_link`` to ``tip_link``.

    Parameters
    ----------
    data
        The URDF document (plain URDF: xacro already expanded), or it read (:func:`parse_urdf`).
    source
        Where it came from (a file name), for messages.
    base_link
        Link whose frame becomes the chain's base frame. Default: the root
        link, or, when the root is a link named ``world`` (the ROS convention
        for the fixed world frame) with exactly one joint and that joint is
        fixed, the link that joint places. A link beside the chain works too
        when only fixed joints join it to the chain (ROS-Industrial's ``base``
        frame of a UR: ``base_link`` turned by pi about z).
    tip_link
        Link whose frame becomes the TCP. Default: the only leaf link with a
        revolute or continuous joint between ``base_link`` and it (leaves
        fixed to the base, such as ROS-Industrial's ``base`` frame, do not
        count: the default of a ROS-Industrial description is its ``tool0``);
        when there are several, the message lists them and ``tip_link`` must
        choose.

    Returns
    -------
    Chain
        Joint positions ``p`` [m] and unit axes in the base frame at the zero
        pose (all joint positions 0); ``sign = +1`` and ``offset = 0``, so the
        chain's angles are the URDF joint positions; limits [rad] and speeds
        [rad/s] from ``<limit>`` (a missing ``velocity`` gives ``inf``:
        unknown, no speed check); ``continuous`` joints get limits
        ``+-CONTINUOUS_LIMIT`` (4 pi); ``T_world_base`` is the pose of the base
        link in a root link named ``world`` when only fixed joints lie between
        them, else identity; ``T_last_tcp`` is the tip link in the last
        joint's base-oriented frame; ``home`` is the file's
        ``<thermocomp><home joint=... position=.../></thermocomp>`` (what
        :func:`urdf_text` writes), else 0 clipped into the limits.

    Raises
    ------
    InputError
        Naming the file (and the joint or link): missing or unreadable file,
        malformed XML, no single root, a prismatic, floating or planar (or
        mimic) joint on the chain, a branching tree without ``tip_link``,
        unknown links, no revolute joint between base and tip, bad limits.
    """
    src = source
    r = _resolve(data, src, base_link, tip_link)
    robot_name, root, base_link, tip_link = r.robot_name, r.root, r.base_link, r.tip_link
    path_joints, T_common_base, path_between = r.path_joints, r.T_common_base, r.path_between
    T_world_base = np.eye(4)
    if root == _ROOT_WORLD:
        above = path_between(root, base_link) or []
        if all(j.type == "fixed" for j in above):
            for j in above:
                T_world_base = T_world_base @ j.T_parent_joint

    names: list[str] = []
    p, axis, lower, upper, velocity = [], [], [], [], []
    R_prev = np.eye(3)  # previous joint frame (or the base) in the base frame, at the zero pose
    T_rel = _inverse(T_common_base)  # current frame in the previous joint frame (the base, at first)
    for j in path_joints:
        what = f"joint {j.name!r}"
        if j.type in _UNSUPPORTED:
            raise InputError(f"{what} is {j.type}; expected a chain of revolute, continuous and fixed joints", path=src,
                             row=line_of(j.element))
        if j.type not in _MOVABLE + ("fixed",):
            raise InputError(f"{what}: unknown joint type {j.type!r}", path=src, row=line_of(j.element))
        T_rel = T_rel @ j.T_parent_joint
        if j.type == "fixed":
            continue
        if j.element.find("mimic") is not None:
            raise InputError(f"{what} mimics another joint; expected independent joints", path=src, row=line_of(j.element))
        norm = float(np.linalg.norm(j.axis))
        if norm == 0.0:
            raise InputError(f"{what}: expected a non-zero axis, got {j.axis.tolist()}", path=src, row=line_of(j.element))
        lo, hi, vel = _limits(j, src)
        names.append(j.name)
        p.append(R_prev @ T_rel[:3, 3])
        axis.append(R_prev @ (T_rel[:3, :3] @ (j.axis / norm)))
        lower.append(lo)
        upper.append(hi)
        velocity.append(vel)
        R_prev = R_prev @ T_rel[:3, :3]
        T_rel = np.eye(4)
    if not names:
        raise InputError(f"no revolute or continuous joint between {base_link!r} and {tip_link!r}", path=src)
    T_last_tcp = np.eye(4)
    T_last_tcp[:3, :3] = R_prev @ T_rel[:3, :3]
    T_last_tcp[:3, 3] = R_prev @ T_rel[:3, 3]
    lower_, upper_ = np.array(lower), np.array(upper)
    home = np.clip(0.0, lower_, upper_)
    for k, name in enumerate(names):
        if name in r.homes:
            position, row = r.homes[name]
            if not lower_[k] <= position <= upper_[k]:
                raise InputError(f"<{HOME_ELEMENT}><home> of joint {name!r}: expected a position within its limits "
                                 f"[{lower_[k]:g}, {upper_[k]:g}] rad, got {position:g}", path=src, row=row)
            home[k] = position
    return Chain(
        name=robot_name,
        joint_names=tuple(names),
        p=np.array(p),
        axis=np.array(axis),
        sign=np.ones(len(names)),
        offset=np.zeros(len(names)),
        lower=lower_,
        upper=upper_,
        velocity=np.array(velocity),
        T_world_base=T_world_base,
        T_last_tcp=T_last_tcp,
        home=home,
    )


def _inverse(T: FloatArray) -> FloatArray:
    out = np.eye(4)
    out[:3, :3] = T[:3, :3].T
    out[:3, 3] = -T[:3, :3].T @ T[:3, 3]
    return out


def _limits(j: UrdfJoint, src: str) -> tuple[float, float, float]:
    """``(lower, upper, velocity)`` of a movable joint [rad], [rad/s]."""
    what = f"joint {j.name!r}"
    limit = j.element.find("limit")
    if limit is None:
        if j.type == "revolute":
            raise InputError(f"{what} is revolute without <limit>; expected lower, upper and velocity", path=src,
                             row=line_of(j.element))
        return -CONTINUOUS_LIMIT, CONTINUOUS_LIMIT, math.inf
    vel = attr_number(limit, "velocity", f"{what} <limit>", src)
    if vel is not None and vel < MIN_SPEED:
        raise InputError(f"{what}: expected a positive limit velocity, at least {MIN_SPEED:g} rad/s, got {vel:g}", path=src,
                         row=line_of(limit))
    velocity = math.inf if vel is None else vel
    if j.type == "continuous":
        return -CONTINUOUS_LIMIT, CONTINUOUS_LIMIT, velocity
    # URDF: lower and upper default to 0.
    lo, hi = bounded(np.array([attr_number(limit, "lower", f"{what} <limit>", src, 0.0),
                               attr_number(limit, "upper", f"{what} <limit>", src, 0.0)]), MAX_ANGLE, "rad",
                     f"{what} <limit> lower and upper", src, limit).tolist()
    if lo >= hi:
        raise InputError(f"{what}: expected limit lower < upper, got {lo:g} >= {hi:g} rad", path=src, row=line_of(limit))
    return lo, hi, velocity


# --- writing ---------------------------------------------------------------------------


def _num(values: ArrayLike) -> str:
    """Space-separated ``repr`` of floats: text that parses back to the same doubles."""
    return " ".join(repr(float(v) + 0.0) for v in np.ravel(values))  # + 0.0 turns -0.0 into 0.0


@dataclass(frozen=True)
class LinkContent:
    """What a URDF link carries besides its frame: inertial and meshes.

    Every quantity is in the link's frame (the table form's joint frame: at
    the zero pose base-oriented, origin on the joint; docs/conventions.md).

    Parameters
    ----------
    mass
        [kg], > 0; ``None`` writes the placeholder inertial.
    com
        Centre of mass [m], shape ``(3,)``.
    inertia
        Inertia tensor about the centre of mass, link axes [kg m^2], ``(3, 3)``.
    visual_mesh, collision_mesh
        Mesh file names as the URDF should reference them (absolute paths, or
        relative to the URDF file), or ``None``.
    T_link_mesh
        Pose of the mesh's own frame in the link frame, ``(4, 4)``.
    mesh_scale
        Metres per mesh unit (``0.001`` for meshes in millimetres), > 0.
    """

    mass: float | None = None
    com: FloatArray = field(default_factory=lambda: np.zeros(3))
    inertia: FloatArray = field(default_factory=lambda: np.zeros((3, 3)))
    visual_mesh: str | None = None
    collision_mesh: str | None = None
    T_link_mesh: FloatArray = field(default_factory=lambda: np.eye(4))
    mesh_scale: float = 1.0

    def __post_init__(self) -> None:
        if self.mass is not None and not (math.isfinite(self.mass) and self.mass > 0):
            raise InputError(f"link mass: expected > 0 kg, got {self.mass}")
        if not (math.isfinite(self.mesh_scale) and self.mesh_scale > 0):
            raise InputError(f"mesh scale: expected > 0, got {self.mesh_scale}")
        object.__setattr__(self, "com", check_array(self.com, (3,), "link centre of mass"))
        object.__setattr__(self, "inertia", check_array(self.inertia, (3, 3), "link inertia"))
        object.__setattr__(self, "T_link_mesh", check_transform(self.T_link_mesh, "T_link_mesh"))


def _link(robot: ET.Element, name: str, content: LinkContent | None = None) -> None:
    link = ET.SubElement(robot, "link", name=name)
    inertial = ET.SubElement(link, "inertial")
    if content is None or content.mass is None:
        ET.SubElement(inertial, "origin", xyz="0 0 0", rpy="0 0 0")
        ET.SubElement(inertial, "mass", value=repr(PLACEHOLDER_MASS))
        i = repr(PLACEHOLDER_INERTIA)
        ET.SubElement(inertial, "inertia", ixx=i, ixy="0", ixz="0", iyy=i, iyz="0", izz=i)
    else:
        # URDF: <inertial><origin> places the centre of mass; the tensor is in the link axes (rpy 0).
        ET.SubElement(inertial, "origin", xyz=_num(content.com), rpy="0 0 0")
        ET.SubElement(inertial, "mass", value=repr(float(content.mass)))
        I = content.inertia
        ET.SubElement(inertial, "inertia", ixx=repr(float(I[0, 0])), ixy=repr(float(I[0, 1])), ixz=repr(float(I[0, 2])),
                      iyy=repr(float(I[1, 1])), iyz=repr(float(I[1, 2])), izz=repr(float(I[2, 2])))
    if content is None:
        return
    for tag, mesh in (("visual", content.visual_mesh), ("collision", content.collision_mesh)):
        if mesh is None:
            continue
        element = ET.SubElement(link, tag)
        T = content.T_link_mesh
        ET.SubElement(element, "origin", xyz=_num(T[:3, 3]), rpy=_num(urdf_rpy_from_matrix(T[:3, :3])))
        geometry = ET.SubElement(element, "geometry")
        s = repr(float(content.mesh_scale))
        ET.SubElement(geometry, "mesh", filename=mesh, scale=f"{s} {s} {s}")


def _joint(robot: ET.Element, name: str, kind: str, parent: str, child: str, R: FloatArray, p: FloatArray) -> ET.Element:
    joint = ET.SubElement(robot, "joint", name=name, type=kind)
    ET.SubElement(joint, "parent", link=parent)
    ET.SubElement(joint, "child", link=child)
    ET.SubElement(joint, "origin", xyz=_num(p), rpy=_num(urdf_rpy_from_matrix(R)))
    return joint


def _unique(name: str, taken: set[str]) -> str:
    while name in taken:
        name = "_" + name
    taken.add(name)
    return name


def urdf_text(
    model: KinematicModel | Chain,
    robot_name: str | None = None,
    *,
    links: Mapping[str, LinkContent] | None = None,
) -> str:
    """A URDF of ``model`` whose forward kinematics equals :func:`thermocomp.kinematics.fk.fk`.

    Links ``world`` -> ``base`` -> ``link1`` .. ``linkn`` -> ``tcp``::

        world --fixed F_base--> base --joint 1: F_1, Rot(axis_1)--> link1 ... linkn --fixed F_tool--> tcp

    Each revolute joint's origin is ``F_i`` (``xyz = p_i + dp_i``, ``rpy``
    of ``R_joint[i]``) and its axis the chain's axis (seed 002, Eq. 22).

    Joint positions in the URDF are *model* angles ``theta = sign * q +
    offset`` (:meth:`Chain.theta_from_q`), not controller angles: the URDF's
    zero must be the geometry's zero. Limits are mapped the same way (speeds
    are unchanged; an unknown speed, ``inf``, is left out of ``<limit>``). A URDF consumer that drives the robot from a program
    must convert
    ``q`` first; for chains with ``sign = +1`` and ``offset = 0`` (all
    built-in robots) the two coincide.

    The home configuration goes in thermocomp's own element
    (:data:`HOME_ELEMENT`), which :func:`urdf_chain` reads back, so a robot
    exported and read again prefers the same configuration branch.

    Every link carries a placeholder inertial (:data:`PLACEHOLDER_MASS`);
    joints carry ``effort="0"`` (unknown). Floats are written with ``repr``
    so the file reproduces the model's doubles exactly.

    Parameters
    ----------
    model
        A single model (batch shape ``()``), e.g. from
        :func:`thermocomp.deformation.apply.deformed_model`, or a chain
        (written nominal).
    robot_name
        ``<robot name>``; default the chain's name.
    links
        Inertials and meshes by link name (``base``, ``link1`` .. ``linkn``,
        ``tcp``); links not named keep the placeholder inertial and no mesh.

    Raises
    ------
    InputError
        When ``model`` holds a batch of robots (write one with ``model.take``).
    """
    if isinstance(model, Chain):
        model = nominal_model(model)
    if model.batch_shape != ():
        raise InputError(
            f"expected a single robot model, got a batch of shape {model.batch_shape}; "
            "select one with KinematicModel.take"
        )
    chain = model.chain
    robot = ET.Element("robot", name=robot_name or chain.name)
    robot.append(ET.Comment(
        " Written by thermocomp. Joint positions are model angles theta = sign * q + offset"
        " (thermocomp Chain.theta_from_q); links without given inertials carry placeholders. "
    ))
    # The home configuration (model angles, as the joint positions are), so that a robot read back keeps the
    # configuration branch IK seeds prefer (:data:`HOME_ELEMENT`).
    extra = ET.SubElement(robot, HOME_ELEMENT)
    for name, theta in zip(chain.joint_names, chain.theta_from_q(chain.home)):
        ET.SubElement(extra, "home", joint=name, position=repr(float(theta) + 0.0))
    taken = set(chain.joint_names)
    link_names = ["world", "base"] + [f"link{i + 1}" for i in range(chain.n_joints)] + ["tcp"]
    links = {} if links is None else dict(links)
    unknown = sorted(set(links) - set(link_names[1:]))
    if unknown:
        raise InputError(f"links: expected names among {', '.join(link_names[1:])}, got {', '.join(unknown)}")
    for name in link_names:
        _link(robot, name, links.get(name))
    _joint(robot, _unique("world_base", taken), "fixed", "world", "base", model.R_base, model.p_base)
    for i in range(chain.n_joints):
        joint = _joint(
            robot, chain.joint_names[i], "revolute", link_names[i + 1], link_names[i + 2],
            model.R_joint[i], model.p_joint[i],
        )
        ET.SubElement(joint, "axis", xyz=_num(chain.axis[i]))
        ends = chain.sign[i] * np.array([chain.lower[i], chain.upper[i]]) + chain.offset[i]  # theta_from_q
        lo, hi = sorted(float(e) for e in ends)  # a sign of -1 swaps the ends
        attrs = {"lower": repr(lo), "upper": repr(hi), "effort": "0"}
        if math.isfinite(chain.velocity[i]):
            attrs["velocity"] = repr(float(chain.velocity[i]))
        ET.SubElement(joint, "limit", attrs)
    _joint(robot, _unique("tcp_fixed", taken), "fixed", link_names[-2], "tcp", model.R_tool, model.p_tool)
    ET.indent(robot)
    return '<?xml version="1.0"?>\n' + ET.tostring(robot, encoding="unicode") + "\n"


def write_urdf(
    model: KinematicModel | Chain,
    path: PathLike,
    robot_name: str | None = None,
    *,
    links: Mapping[str, LinkContent] | None = None,
) -> None:
    """Write :func:`urdf_text` of ``model`` to ``path`` atomically (temporary file, then rename)."""
    atomic_write_text(path, urdf_text(model, robot_name, links=links))


__all__ = [
    "CONTINUOUS_LIMIT",
    "HOME_ELEMENT",
    "LinkContent",
    "Urdf",
    "UrdfJoint",
    "UrdfLink",
    "matrix_from_urdf_rpy",
    "origin_transform",
    "parse_urdf",
    "read_urdf",
    "urdf_rpy_from_matrix",
    "urdf_chain",
    "urdf_chain_ends",
    "urdf_text",
    "write_urdf",
]
