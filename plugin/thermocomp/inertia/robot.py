"""A robot's link inertials from its mesh files: what ``thermocomp inertia`` computes (its job: :mod:`thermocomp.app.inertia`).

Seed 000, Step 1: mesh volumes (trimesh), one average density from the
robot's total mass, per-link mass, centre of mass and inertia tensor in the
URDF link frames (docs/conventions.md, docs/inertia.md), optionally corrected
by per-link factors (Step 2, Eq. 9), written into a URDF. From Python::

    from thermocomp.inertia import InertiaOptions, compute_inertials
    report = compute_inertials("gofa", "meshes/", InertiaOptions(total_mass=28.004, metres_per_unit=1.0))
    print(report.text())
    text = report.urdf_text()  # the URDF; thermocomp.app.inertia.inertials_to_urdf writes it as a job

Frames. Each mesh is placed in its link frame by ``T_link_mesh``. For a
folder of ``<link>.stl`` files it is the identity; a mesh map gives it per
file; for a URDF it is ``inv(T_base_link) @ T_base_urdflink @
T_urdflink_mesh`` at the zero pose, where ``T_base_link`` is the table-form
link frame (origin on joint ``k``, base orientation) and ``T_base_urdflink``
the URDF's own link frame, both in the common base frame. That mapping
requires the URDF's zero pose to be the robot's: every joint axis line must
coincide, and the tip frame's orientation (:func:`check_chain_match`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from thermocomp._typing import FloatArray, PathLike
from thermocomp.errors import InputError
from thermocomp.geometry.rotations import invert_transform, rotvec_from_matrix, transform
from thermocomp.inertia.checks import check_positive
from thermocomp.inertia.links import RobotInertials, apply_corrections, inertials_from_solids, link_names
from thermocomp.inertia.solids import FALLBACKS, Fallback, SolidProperties, combine_solids, solid_properties
from thermocomp.io.meshes import (
    UNIT_MATCH_RTOL,
    MeshRef,
    mesh_refs_from_folder,
    read_mesh,
    read_mesh_map,
    read_urdf_meshes,
)
from thermocomp.robot.chain import Chain

if TYPE_CHECKING:
    from thermocomp.io.robot_files import RobotFileOptions
from thermocomp.tolerances import AXIS_MATCH_TOL, FRAME_MATCH_TOL

MESH_KINDS = ("visual", "collision")

#: Average densities [kg/m^3] a robot can plausibly have, its meshes taken as
#: solid: from 500 (hollow cast and plastic shells around air; the built-in
#: envelopes give 1,180 (GoFa) to 3,150 (IRB140), the real GoFa CAD meshes
#: 1,410) to 20,000 (above solid tungsten, 19,300). A mesh unit given wrongly moves the density by
#: 1e9 (mm read as m or back) or 25.4^3 = 16,387 (inches): far outside. Outside
#: this range :func:`compute_inertials` warns (it cannot know the robot).
PLAUSIBLE_DENSITY = (500.0, 20000.0)

#: Two descriptions of one robot agree to round-off; a URDF written with ``repr`` floats reproduces them.
SAME_ROBOT_TOL = 1e-9


@dataclass(frozen=True)
class InertiaOptions:
    """Options of :func:`compute_inertials`.

    Parameters
    ----------
    total_mass
        The robot's total mass [kg] (base and every link with a mesh), > 0:
        the one density is ``total_mass / total volume``. No default.
    metres_per_unit
        Metres per mesh-file unit (1.0 for metres, 0.001 for millimetres), > 0.
        No default: STL has no unit.
    fallback
        ``None``, ``"signed"`` or ``"convex_hull"``: what to do with a mesh
        that is not closed (:func:`thermocomp.inertia.solids.solid_properties`).
    mesh_kind
        Which meshes of a URDF: ``"visual"`` (the detailed ones) or ``"collision"``.
    """

    total_mass: float
    metres_per_unit: float
    fallback: Fallback | None = None
    mesh_kind: str = "visual"

    def __post_init__(self) -> None:
        check_positive(self.total_mass, "total mass", "kg")
        check_positive(self.metres_per_unit, "metres per mesh unit", "m")
        if self.fallback is not None and self.fallback not in FALLBACKS:
            raise InputError(f"fallback: expected one of {', '.join(FALLBACKS)} or None, got {self.fallback!r}")
        if self.mesh_kind not in MESH_KINDS:
            raise InputError(f"mesh kind: expected one of {', '.join(MESH_KINDS)}, got {self.mesh_kind!r}")


def zero_pose_link_frames(chain: Chain) -> dict[str, FloatArray]:
    """``T_base_link`` ``(4, 4)`` of ``base``, ``link1`` .. at the zero pose (model angles 0) [m].

    The table form's link ``k`` frame sits on joint ``k`` with the base
    orientation (seed 002, Section 2.3, rule 1): its origin is ``p_1 + ... + p_k``.
    """
    origins = np.vstack([np.zeros(3), np.cumsum(chain.p, axis=0)])
    return {name: transform(None, origin) for name, origin in zip(link_names(chain.n_joints), origins)}


def check_chain_match(other: Chain, chain: Chain, source: str, tip_link: str | None = None) -> float:
    """Check that ``other`` (read from a URDF) has the zero pose of ``chain``: its axis lines and its tip's orientation.

    Axes may differ in sense (a joint turning the other way is the same
    line); origins may differ along the axis (where on its axis a joint
    frame sits is a convention). The axis lines fix every link's turn about
    its own joint except the last one's: link ``n`` turned about joint ``n``
    (a zero offset on the last joint) leaves every axis line in place. Only
    the tip frame shows it, so the orientation of ``other``'s tip at the zero
    pose (``T_last_tcp``, in the base frame) must equal that of ``chain``'s
    TCP. The URDF's own link frames are not compared: how a URDF turns its
    link frames is its convention (ur_description turns them; the mapping
    ``inv(T_base_link) @ T_base_urdflink`` does not depend on it). Returns
    the largest distance [m] between corresponding axis lines.

    Parameters
    ----------
    other
        The URDF's chain (:func:`thermocomp.io.urdf.read_urdf`), ``T_last_tcp`` its tip link.
    chain
        The robot.
    source
        The URDF's path, for messages.
    tip_link
        The name of ``other``'s tip link, for messages.

    Raises
    ------
    InputError
        Naming ``source`` and the first joint whose axis differs by more than
        :data:`AXIS_MATCH_TOL` or whose line lies farther than
        :data:`FRAME_MATCH_TOL`, or the tip link and the angle [deg] by which
        its orientation differs from the robot's TCP (more than :data:`AXIS_MATCH_TOL`).
    """
    if other.n_joints != chain.n_joints:
        raise InputError(f"expected a chain of {chain.n_joints} revolute joints like {chain.name}, "
                         f"got {other.n_joints}", path=source)
    o_other = np.cumsum(other.p, axis=0)
    o_chain = np.cumsum(chain.p, axis=0)
    worst = 0.0
    for k in range(chain.n_joints):
        a, b = other.axis[k], chain.axis[k]
        angle = float(np.linalg.norm(np.cross(a, b)))
        d = o_other[k] - o_chain[k]
        distance = float(np.linalg.norm(d - (d @ b) * b))
        if angle > AXIS_MATCH_TOL or distance > FRAME_MATCH_TOL:
            raise InputError(
                f"joint {k + 1} ({other.joint_names[k]!r}): expected the axis line of {chain.name}'s joint {k + 1} "
                f"(through {np.round(o_chain[k] * 1000, 3).tolist()} mm along {np.round(b, 6).tolist()}) at the zero "
                f"pose, got one through {np.round(o_other[k] * 1000, 3).tolist()} mm along {np.round(a, 6).tolist()} "
                f"({angle:.3g} rad apart, {distance * 1000:.3g} mm away); the URDF's base frame, zero pose or "
                "robot differ, so its meshes cannot be placed in the robot's link frames",
                path=source,
            )
        worst = max(worst, distance)
    # The turn from the robot's TCP frame to the URDF's tip frame, as a rotation vector in the base frame.
    R_base_tcp, R_base_tip = chain.T_last_tcp[:3, :3], other.T_last_tcp[:3, :3]
    turn_base = R_base_tcp @ rotvec_from_matrix(R_base_tcp.T @ R_base_tip)
    turn = float(np.linalg.norm(turn_base))
    if turn > AXIS_MATCH_TOL:
        tip = f"tip link {tip_link!r}" if tip_link else "the tip link"
        about_last = float(np.linalg.norm(np.cross(turn_base / turn, chain.axis[-1])))
        hint = (f" (a turn about joint {chain.n_joints}'s own axis: the URDF's zero pose of joint "
                f"{chain.n_joints} differs)" if about_last < 1e-3 else "")
        raise InputError(
            f"{tip} (on link{chain.n_joints}) is turned by {np.degrees(turn):.4g} deg from {chain.name}'s TCP frame "
            f"at the zero pose{hint}; its meshes on link{chain.n_joints} would be turned alike. Give a URDF with the "
            f"robot's zero pose, or --tip-link naming the URDF link that is the robot's TCP (flange) frame",
            path=source,
        )
    return worst


def mesh_refs_for_robot(
    chain: Chain,
    meshes: PathLike,
    metres_per_unit: float,
    *,
    mesh_map: PathLike | None = None,
    mesh_kind: str = "visual",
    package_dirs: Mapping[str, PathLike] | None = None,
    tip_link: str | None = None,
    robot_options: RobotFileOptions | None = None,
) -> list[MeshRef]:
    """Every mesh file of the robot with its pose ``T_link_mesh`` in its link frame.

    Parameters
    ----------
    chain
        The robot; its link frames are the targets.
    meshes
        A folder (files ``base.stl``, ``link1.stl`` .. in the link frames, or
        the files a ``mesh_map`` names) or a ``.urdf`` or ``.xacro`` file.
    metres_per_unit
        Metres per mesh unit; for a URDF it must equal every mesh's ``scale``.
    mesh_map
        A mesh map CSV (:func:`thermocomp.io.meshes.read_mesh_map`) for a folder.
    mesh_kind, package_dirs, tip_link
        For a URDF: which meshes, the folders of ``package://`` packages, and
        the chain's tip link (:func:`thermocomp.io.meshes.read_urdf_meshes`).
    robot_options
        For a URDF or xacro file: its base link, xacro arguments and ROS
        package folders (:mod:`thermocomp.io.robot_files`; the packages it
        finds come after ``package_dirs``).
    """
    from thermocomp.io.robot_files import ROBOT_FILE_SUFFIXES, RobotFileOptions, read_robot_description

    names = link_names(chain.n_joints)
    path = Path(meshes)
    if path.suffix.lower() in ROBOT_FILE_SUFFIXES:
        if mesh_map is not None:
            raise InputError("a mesh map goes with a folder of meshes, not with a URDF", path=str(mesh_map))
        opts = RobotFileOptions() if robot_options is None else robot_options
        description = read_robot_description(path, opts)
        packages = {**description.packages, **(package_dirs or {})}
        found = read_urdf_meshes(path, mesh_kind, packages, tip_link, base_link=opts.base_link, text=description.parsed)
        check_chain_match(found.chain, chain, str(path), found.tip_link)
        frames = zero_pose_link_frames(chain)
        refs = []
        for m in found.meshes:
            if abs(m.ref.metres_per_unit - metres_per_unit) > UNIT_MATCH_RTOL * metres_per_unit:
                raise InputError(
                    f"link {m.urdf_link!r}: its mesh scale is {m.ref.metres_per_unit:g} m per unit, "
                    f"but {metres_per_unit:g} m per unit was given; give the URDF's unit",
                    path=str(path),
                )
            link = names[m.body]
            T = invert_transform(frames[link]) @ m.T_base_link @ m.ref.T_link_mesh
            refs.append(MeshRef(link, m.ref.path, T, m.ref.metres_per_unit))
        missing = [n for n in names if n not in {r.link for r in refs}]
        if missing:
            raise InputError(f"expected {mesh_kind} meshes for every link, got none for {', '.join(missing)}",
                             path=str(path))
        return refs
    if mesh_map is not None:
        return read_mesh_map(mesh_map, path, names, metres_per_unit)
    return mesh_refs_from_folder(path, names, metres_per_unit)


def robot_file_link_meshes(path: Path, chain: Chain, robot_options=None) -> dict:
    """The meshes of a ``.urdf`` / ``.xacro`` robot file as :class:`~thermocomp.io.urdf.LinkContent` per link.

    Each ``<visual>`` and ``<collision>`` mesh of a URDF link rigidly attached
    to the base or to a chain link (``package://`` URIs resolved) is placed in
    the table form's link frame of that body at the zero pose, as
    :func:`thermocomp.inertia.robot.mesh_refs_for_robot` places them. Links
    without meshes are left out; an empty result means the file has none.

    Raises
    ------
    InputError
        A link with several meshes of one kind, or with its visual and
        collision meshes placed or scaled differently (a link carries one
        pose and scale for both), a mesh that cannot be resolved.
    """
    from thermocomp.io.meshes import read_urdf_meshes
    from thermocomp.io.robot_files import RobotFileOptions, read_robot_description
    from thermocomp.io.urdf import LinkContent

    opts = RobotFileOptions() if robot_options is None else robot_options
    description = read_robot_description(path, opts)
    names = link_names(chain.n_joints)
    frames = zero_pose_link_frames(chain)
    found: dict[str, dict[str, list]] = {}
    for kind in ("visual", "collision"):
        urdf_meshes = read_urdf_meshes(path, kind, description.packages, opts.tip_link, base_link=opts.base_link,
                                       text=description.parsed)
        for m in urdf_meshes.meshes:
            link = names[m.body]
            T = invert_transform(frames[link]) @ m.T_base_link @ m.ref.T_link_mesh
            found.setdefault(link, {}).setdefault(kind, []).append((str(m.ref.path.resolve()), T, m.ref.metres_per_unit))
    out = {}
    for link, kinds in found.items():
        for kind, items in kinds.items():
            if len(items) > 1:
                raise InputError(f"link {link} carries {len(items)} {kind} meshes; a thermocomp URDF link holds one "
                                 "(give a mesh map instead, docs/scenes.md)", path=str(path))
        (vis,) = kinds.get("visual", [None])
        (col,) = kinds.get("collision", [None])
        first = vis or col
        if vis is not None and col is not None and not (np.allclose(vis[1], col[1], rtol=0, atol=SAME_ROBOT_TOL)
                                                        and vis[2] == col[2]):
            raise InputError(f"link {link}'s visual and collision meshes are placed or scaled differently; a thermocomp "
                             "URDF link places both alike (give a mesh map instead, docs/scenes.md)", path=str(path))
        out[link] = LinkContent(visual_mesh=None if vis is None else vis[0], collision_mesh=None if col is None else col[0],
                                T_link_mesh=first[1], mesh_scale=first[2])
    return out


def link_solids(refs: list[MeshRef], names: list[str], fallback: Fallback | None = None) -> dict[str, SolidProperties]:
    """Read each mesh, integrate it (:func:`solid_properties`), place it in its link frame, combine per link.

    Returns the solids by link name in the order of ``names``.
    """
    per_link: dict[str, list[SolidProperties]] = {n: [] for n in names}
    for ref in refs:
        mesh = read_mesh(ref.path, ref.metres_per_unit)
        solid = solid_properties(mesh.vertices, mesh.faces, fallback=fallback, source=mesh.path)
        per_link[ref.link].append(solid.transformed(ref.T_link_mesh))
    return {n: combine_solids(s) for n, s in per_link.items()}


@dataclass(frozen=True, eq=False)
class InertiaReport:
    """What :func:`compute_inertials` found: the inertials, and the meshes they came from.

    Attributes
    ----------
    chain
        The robot.
    inertials
        Per link: mass, centre of mass and inertia in the link frame (after
        any correction).
    refs
        The mesh files and their poses in the link frames.
    solids
        Per link, the volume integrals in the link frame (with the topology
        of single-mesh links).
    options
        The options used.
    corrections_source
        The corrections file, if any.
    notes
        Remarks for the printed table (e.g. links made of several meshes).
    warnings
        Results that are computed but doubtful (an implausible density),
        printed as ``warning:`` lines.
    """

    chain: Chain
    inertials: RobotInertials
    refs: tuple[MeshRef, ...]
    solids: Mapping[str, SolidProperties]
    options: InertiaOptions
    corrections_source: str | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)
    warnings: tuple[str, ...] = field(default_factory=tuple)

    def text(self) -> str:
        """The table printed by ``thermocomp inertia``: one row per link, then the density and notes."""
        from thermocomp.io.urdf import PLACEHOLDER_MASS

        inertials = self.inertials
        # Columns as wide as their longest entry ("closed (flipped)", "closed+signed", long link names).
        wl = max([7] + [len(x.link) for x in inertials.links])
        wm = max([12] + [len(x.method) for x in inertials.links])
        lines = [
            f"{self.chain.name}: link inertials from meshes (seed 000, Step 1); frames: URDF link frames "
            "(origin on joint k, base-oriented at the zero pose)",
            f"{'link':<{wl}} {'method':<{wm}} {'volume_cm3':>11} {'mass_kg':>8} {'lambda':>6} "
            f"{'com_x_mm':>9} {'com_y_mm':>9} {'com_z_mm':>9} {'I1_kg_m2':>10} {'I2_kg_m2':>10} {'I3_kg_m2':>10}",
        ]
        for link in inertials.links:
            I1, I2, I3 = link.principal_moments
            c = link.com * 1000.0
            lines.append(
                f"{link.link:<{wl}} {link.method:<{wm}} {link.volume * 1e6:>11.2f} {link.mass:>8.3f} "
                f"{link.correction:>6.3f} {c[0]:>9.2f} {c[1]:>9.2f} {c[2]:>9.2f} {I1:>10.3e} {I2:>10.3e} {I3:>10.3e}"
            )
        lines.append(f"{'total':<{wl}} {'':<{wm}} {sum(x.volume for x in inertials.links) * 1e6:>11.2f} "
                     f"{inertials.mass:>8.3f}")
        lines.append(f"density {inertials.density:.2f} kg/m^3 = total mass {inertials.total_mass:g} kg / total volume "
                     f"(units: {self.options.metres_per_unit:g} m per mesh unit)")
        if self.corrections_source:
            lines.append(f"masses and inertias scaled by lambda from {self.corrections_source} (seed 000, Eq. 9)")
        for name, solid in self.solids.items():
            if solid.method == "signed":
                top = solid.topology
                detail = f"{top.describe()}; " if top is not None else ""
                lines.append(
                    f"note: {name}: 'signed' volume of an open surface ({detail}volume uncertain by "
                    f"+-{solid.volume_spread / solid.volume * 100:.3g} % over reference points within the mesh)"
                )
            elif solid.method == "convex_hull":
                lines.append(f"note: {name}: volume of the convex hull of the vertices (over-estimates the solid)")
            elif "+" in solid.method:
                lines.append(f"note: {name}: several meshes with different methods ({solid.method})")
            if solid.flipped:
                lines.append(f"note: {name}: the surface was oriented inward and has been reversed")
        lines.extend(f"note: {n}" for n in self.notes)
        lines.append(
            f"note: the URDF (--out) also gives its 'world' and 'tcp' links a {PLACEHOLDER_MASS * 1000:g} g placeholder "
            "inertial each (PyBullet gives a link without one 1 kg): its masses sum to "
            f"{inertials.mass + 2 * PLACEHOLDER_MASS:.3f} kg, and 'tcp' adds {PLACEHOLDER_MASS * 1000:g} g at the TCP "
            f"to link{self.chain.n_joints}'s load"
        )
        lines.extend(f"warning: {w}" for w in self.warnings)
        return "\n".join(lines) + "\n"

    def link_contents(self) -> dict:
        """:class:`thermocomp.io.urdf.LinkContent` per link: the inertial and, for a link with one mesh, that mesh."""
        from thermocomp.io.urdf import LinkContent

        out = {}
        for link in self.inertials.links:
            refs = [r for r in self.refs if r.link == link.link]
            mesh = None
            kwargs: dict = {}
            if len(refs) == 1:
                mesh = str(refs[0].path.resolve())
                kwargs = {"T_link_mesh": refs[0].T_link_mesh, "mesh_scale": refs[0].metres_per_unit}
            out[link.link] = LinkContent(mass=link.mass, com=link.com, inertia=link.inertia,
                                         visual_mesh=mesh, collision_mesh=mesh, **kwargs)
        return out

    def urdf_text(self) -> str:
        """The robot's URDF (:func:`thermocomp.io.urdf.urdf_text`) with these inertials and meshes."""
        from thermocomp.io.urdf import urdf_text

        return urdf_text(self.chain, links=self.link_contents())


def compute_inertials(
    robot: str | PathLike | Chain,
    meshes: PathLike,
    options: InertiaOptions,
    *,
    mesh_map: PathLike | None = None,
    package_dirs: Mapping[str, PathLike] | None = None,
    tip_link: str | None = None,
    corrections: PathLike | Mapping[str, float] | None = None,
    robot_options: RobotFileOptions | None = None,
) -> InertiaReport:
    """A robot's link inertials from its meshes (seed 000, Step 1; Step 2, Eq. 9 with ``corrections``).

    Parameters
    ----------
    robot
        A built-in robot name, a robot file (``.csv``, ``.urdf``, ``.xacro``) or a chain.
    meshes
        Folder or URDF (:func:`mesh_refs_for_robot`).
    options
        Total mass, mesh unit, fallback, URDF mesh kind.
    mesh_map, package_dirs, tip_link, robot_options
        See :func:`mesh_refs_for_robot`; ``robot_options`` also reads a
        ``.urdf`` / ``.xacro`` ``robot`` (with ``tip_link`` as its tip).
    corrections
        ``lambda_k`` per link: a mapping, or a CSV file
        (:func:`thermocomp.io.inertia_csv.read_corrections_csv`).

    Returns
    -------
    InertiaReport
    """
    from thermocomp.io.robot_files import ROBOT_FILE_SUFFIXES, RobotFileOptions
    from thermocomp.io.robots import load_robot

    opts = RobotFileOptions() if robot_options is None else robot_options
    if tip_link is not None:
        opts = replace(opts, tip_link=tip_link)
    is_file = not isinstance(robot, Chain) and Path(robot).suffix.lower() in ROBOT_FILE_SUFFIXES
    # The base and tip links choose the chain of a URDF robot; of a built-in robot they name the mesh URDF's links.
    chain = robot if isinstance(robot, Chain) else load_robot(robot, opts if is_file else None)
    names = link_names(chain.n_joints)
    refs = mesh_refs_for_robot(chain, meshes, options.metres_per_unit, mesh_map=mesh_map,
                               mesh_kind=options.mesh_kind, package_dirs=package_dirs, tip_link=opts.tip_link,
                               robot_options=opts)
    solids = link_solids(refs, names, options.fallback)
    inertials = inertials_from_solids(solids, options.total_mass, robot=chain.name)
    source = None
    if corrections is not None:
        if isinstance(corrections, Mapping):
            lambdas, source = dict(corrections), "the given factors"
        else:
            from thermocomp.io.inertia_csv import read_corrections_csv

            lambdas, source = read_corrections_csv(corrections, names), str(corrections)
        inertials = apply_corrections(inertials, lambdas)
    warnings = []
    low, high = PLAUSIBLE_DENSITY
    density = inertials.density
    if not low <= density <= high:
        warnings.append(
            f"the average density is {density:.4g} kg/m^3 (total mass {options.total_mass:g} kg / total volume "
            f"{inertials.total_mass / density:.4g} m^3), implausible for a robot (expected {low:g} .. "
            f"{high:g} kg/m^3); check the mesh unit ({options.metres_per_unit:g} m per unit given: millimetre "
            "meshes read as metres give 1e-9 of it, metre meshes read as millimetres 1e9) and the total mass"
        )
    notes = []
    multi = sorted({r.link for r in refs if sum(q.link == r.link for q in refs) > 1}, key=names.index)
    if multi:
        notes.append(f"{', '.join(multi)}: several meshes each; the URDF carries their inertial but no geometry")
    return InertiaReport(chain, inertials, tuple(refs), solids, options, source, tuple(notes), tuple(warnings))


__all__ = [
    "PLAUSIBLE_DENSITY",
    "SAME_ROBOT_TOL",
    "InertiaOptions",
    "InertiaReport",
    "check_chain_match",
    "compute_inertials",
    "link_solids",
    "mesh_refs_for_robot",
    "robot_file_link_meshes",
    "zero_pose_link_frames",
]
