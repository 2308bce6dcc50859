"""``thermocomp robot export``: a robot, optionally deformed, as URDF or table-form CSV, with meshes and inertials.

:func:`export_robot` is the job. :func:`export_link_contents` gathers, for ``--with-meshes --inertials FILE``, each
link's
:class:`thermocomp.io.urdf.LinkContent` in the table form's link frames (docs/conventions.md):

* meshes: a built-in robot's envelopes (``robots/<name>/meshes``), or a ``.urdf`` / ``.xacro``
  robot file's own ``<visual>`` and ``<collision>`` meshes, placed in our link frames as
  :func:`thermocomp.inertia.robot.mesh_refs_for_robot` places them;
* inertials: an inertia CSV (the form of ``robots/<name>/inertia.csv``) or the ``<inertial>`` elements of a
  ``.urdf`` / ``.xacro`` file of the same robot (``thermocomp inertia --out``'s, a ROS-Industrial
  description), read as the dynamics commands read them and moved into the exported link frames.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from thermocomp._typing import PathLike
from thermocomp.app.jobs import file_of
from thermocomp.deformation.table import DeformationTable
from thermocomp.errors import InputError
from thermocomp.io.deformation_csv import read_deformation_csv
from thermocomp.io.job import Job
from thermocomp.io.robot_files import RobotFileOptions, robot_file_inputs
from thermocomp.io.robots import load_robot, robot_file
from thermocomp.robot.chain import Chain


def export_link_contents(robot: str | PathLike, chain: Chain, *, with_meshes: bool = False,
                         inertials: PathLike | None = None, robot_options=None) -> dict | None:
    """:class:`thermocomp.io.urdf.LinkContent` by link name (``base``, ``link1`` ..), or ``None`` for neither.

    Parameters
    ----------
    robot
        The robot as given (built-in name or file), where meshes come from.
    chain
        The robot loaded (its link frames are the URDF's).
    with_meshes
        Carry the robot's meshes (visual and collision).
    inertials
        An inertia CSV, or a ``.urdf`` / ``.xacro`` file of the same robot with ``<inertial>`` elements.
    robot_options
        How a ``.urdf`` / ``.xacro`` robot file is read.

    Raises
    ------
    InputError
        A robot without meshes, a link with several meshes of one kind or with visual and collision
        meshes placed differently, inertials for other links or another robot.
    """
    from thermocomp.inertia.links import link_names
    from thermocomp.io.urdf import LinkContent

    if not with_meshes and inertials is None:
        return None
    names = link_names(chain.n_joints)
    meshes = _meshes(robot, chain, robot_options) if with_meshes else {}
    masses = _inertials(inertials, chain, robot_options) if inertials is not None else {}
    out = {}
    for name in names:
        kw: dict = {}
        if name in masses:
            kw.update(mass=masses[name].mass, com=masses[name].com, inertia=masses[name].inertia)
        if name in meshes:
            kw.update(meshes[name])
        if kw:
            out[name] = LinkContent(**kw)
    return out


def _meshes(robot: str | PathLike, chain: Chain, robot_options) -> dict[str, dict]:
    """Per link: ``visual_mesh``, ``collision_mesh``, ``T_link_mesh``, ``mesh_scale`` (LinkContent fields)."""
    from thermocomp.inertia.links import link_names
    from thermocomp.inertia.robot import robot_file_link_meshes
    from thermocomp.io.robot_files import ROBOT_FILE_SUFFIXES
    from thermocomp.io.robots import robot_file

    name = str(robot)
    if robot_file(robot) is None:  # a built-in robot (a variant has no meshes: builtin_mesh_path says so)
        from thermocomp.inertia.builtin import builtin_mesh_path

        out = {}
        for link in link_names(chain.n_joints):
            path = str(builtin_mesh_path(name, link).resolve())
            out[link] = {"visual_mesh": path, "collision_mesh": path}
        return out
    if Path(name).suffix.lower() not in ROBOT_FILE_SUFFIXES:
        raise InputError(f"--with-meshes: robot {name!r} has no meshes (a built-in robot or a .urdf / .xacro file with "
                         "<visual> and <collision> meshes has)")
    found = robot_file_link_meshes(Path(name), chain, robot_options)
    if not found:
        raise InputError("--with-meshes: the robot file has no <visual> or <collision> meshes", path=name)
    return {link: {"visual_mesh": c.visual_mesh, "collision_mesh": c.collision_mesh, "T_link_mesh": c.T_link_mesh,
                   "mesh_scale": c.mesh_scale} for link, c in found.items()}


def _inertials(path: PathLike, chain: Chain, robot_options=None) -> dict:
    """``LinkInertial`` by link name from an inertia CSV or a robot file's ``<inertial>`` elements, checked against
    ``chain``."""
    from thermocomp.inertia.links import link_names, robot_inertials_from_rows
    from thermocomp.io.inertia_csv import read_inertia_csv
    from thermocomp.io.robot_files import ROBOT_FILE_SUFFIXES

    names = link_names(chain.n_joints)
    suffix = Path(path).suffix.lower()
    if suffix == ".csv":
        links = {x.link: x for x in robot_inertials_from_rows(read_inertia_csv(path)).links}
    elif suffix in ROBOT_FILE_SUFFIXES:
        links = robot_file_link_inertials(path, chain, robot_options)
    else:
        raise InputError(f"--inertials: expected an inertia .csv or a .urdf / .xacro robot file with <inertial>s, got "
                         f"{Path(path).name!r}", path=str(path))
    unknown = sorted(set(links) - set(names))
    if unknown:
        raise InputError(f"--inertials: expected links among {', '.join(names)}, got {', '.join(unknown)}", path=str(path))
    return links


def robot_file_link_inertials(path: PathLike, chain: Chain, robot_options=None) -> dict:
    """``LinkInertial`` of ``link1`` .. ``linkn`` of ``chain`` from the ``<inertial>`` elements of a ``.urdf`` / ``.xacro`` file.

    The file is read as the dynamics commands read it
    (:func:`thermocomp.dynamics.urdf_parameters.urdf_parameters`, with
    ``robot_options``' packages and links): what moves with each joint, in
    the file's table-form link frames. The file must describe the same
    robot, its base frame possibly elsewhere (a ROS-Industrial UR's
    ``base_link`` is the controller's ``base`` turned by pi): its tip in
    its base frame, at the angles ``chain`` gives its URDF
    (``theta = sign q + offset``), is ``chain``'s TCP moved by one constant
    transform ``T_base_filebase`` at random configurations, within
    :data:`~thermocomp.inertia.robot.SAME_ROBOT_TOL`. What moves with each joint (its child link and
    the links fixed to it: a ROS ``flange`` or ``tool0``, the 1 g ``tcp``
    placeholder of a thermocomp URDF), as the dynamics commands count it,
    is then moved from the file's link frame into ``chain``'s (zero pose;
    docs/conventions.md). The base, which does not move, carries none; a
    massless link is left out.
    """
    from thermocomp.dynamics.parameters import inertial_from_parameters
    from thermocomp.dynamics.urdf_parameters import urdf_parameters
    from thermocomp.geometry.rotations import invert_transform
    from thermocomp.inertia.links import LinkInertial
    from thermocomp.inertia.robot import SAME_ROBOT_TOL, zero_pose_link_frames
    from thermocomp.io.robot_files import read_robot_description
    from thermocomp.kinematics.fk import fk_matrix
    from thermocomp.kinematics.model import nominal_model

    src = str(path)
    info = urdf_parameters(read_robot_description(path, robot_options))
    other = info.chain.replace(T_world_base=np.eye(4))
    ours = chain.replace(T_world_base=np.eye(4))
    n = chain.n_joints
    q = np.random.default_rng(0).uniform(np.maximum(chain.lower, -np.pi), np.minimum(chain.upper, np.pi), (20, n))
    T_base_filebase = None
    if other.n_joints == n:
        T = fk_matrix(nominal_model(ours), q) @ invert_transform(fk_matrix(nominal_model(other), chain.theta_from_q(q)))
        if np.allclose(T, T[0], rtol=0, atol=SAME_ROBOT_TOL):
            T_base_filebase = T[0]
    if T_base_filebase is None:
        raise InputError(f"--inertials: this robot file is another robot than {chain.name!r} (its kinematics differs), "
                         "so its link frames are not the exported robot's; compute the inertials for this robot",
                         path=src)
    ours_frames = zero_pose_link_frames(ours)
    theirs_frames = zero_pose_link_frames(other)
    out = {}
    for k in range(n):
        link = f"link{k + 1}"
        pi = info.parameters[10 * k:10 * k + 10]  # everything moving with joint k
        if pi[0] == 0.0:
            continue
        theirs = inertial_from_parameters(pi, f"--inertials: {link}")
        T = invert_transform(ours_frames[link]) @ T_base_filebase @ theirs_frames[link]
        R = T[:3, :3]
        out[link] = LinkInertial(link=link, mass=theirs.mass, com=R @ theirs.com + T[:3, 3],
                                 inertia=R @ theirs.inertia @ R.T, source=src)
    return out


@dataclass(frozen=True)
class ExportJob:
    """Options of :func:`export_robot` (``thermocomp robot export``)."""

    robot: str | Chain
    out: PathLike
    deformation: PathLike | DeformationTable | None = None
    fraction: float = 1.0
    composition: str = "table"
    robot_options: RobotFileOptions | None = None
    with_meshes: bool = False
    inertials: PathLike | None = None


def export_robot(spec: ExportJob) -> Path:
    """Write a robot, optionally deformed, as URDF (``.urdf``) or table-form CSV (``.csv``).

    A deformed robot can only be written as URDF (the table form has no
    place for angular deviations); its joint positions are model angles.
    ``fraction`` is the share of the table applied: finite, 0 to 1 (a
    minute of a linear ramp; more would extrapolate the measured table).
    Both forms keep the home configuration (the CSV's ``home_deg``, the
    URDF's ``<thermocomp><home .../></thermocomp>``), so the robot read back
    solves a program on the same configuration branch. A URDF can also carry
    the robot's meshes (``with_meshes``: a built-in robot's envelopes, a
    robot file's own visual and collision meshes) and link inertials
    (``inertials``: an inertia CSV or the URDF of ``thermocomp inertia
    --out``), :func:`export_link_contents`.

    Raises
    ------
    InputError
        A bad input file or output path (naming ``--out``), a ``fraction``
        outside 0..1 (naming ``--fraction``); nothing is written.
    """
    from thermocomp.deformation.apply import deformed_model
    from thermocomp.io.chain_csv import chain_csv_text
    from thermocomp.io.urdf import urdf_text
    from thermocomp.kinematics.model import nominal_model

    robot, out, deformation, fraction = spec.robot, spec.out, spec.deformation, spec.fraction
    composition, robot_options, with_meshes, inertials = spec.composition, spec.robot_options, spec.with_meshes, spec.inertials

    if not (math.isfinite(fraction) and 0.0 <= fraction <= 1.0):
        raise InputError(f"--fraction: expected a share of the table from 0 to 1, got {fraction!r}")
    with Job() as job:
        job.input(robot_file(robot), "--robot")
        job.input(file_of(deformation), "--deformation")
        job.input(inertials, "--inertials")
        out = job.output(out, "--out")
        job.check()
        suffix = out.suffix.lower()
        if suffix not in (".urdf", ".csv"):
            raise InputError(f"--out: expected an output ending in .urdf or .csv, got {out.name!r}", path=str(out))
        if suffix == ".csv" and (with_meshes or inertials is not None):
            raise InputError("--out: meshes and inertials are carried by a URDF only; choose an output ending in "
                             ".urdf", path=str(out))
        if deformation is not None and suffix != ".urdf":
            raise InputError("--out: a deformed robot is written as URDF only; choose an output ending in .urdf",
                             path=str(out))
        chain = robot if isinstance(robot, Chain) else load_robot(robot, robot_options)
        job.inputs(robot_file_inputs(robot, robot_options), "--robot")
        links = None if isinstance(robot, Chain) else export_link_contents(
            robot, chain, with_meshes=with_meshes, inertials=inertials, robot_options=robot_options)
        if deformation is None:
            if suffix == ".csv":
                text = chain_csv_text(chain, comments=(f"{chain.name} in the table form of seed 002, Table 7",))
            else:
                text = urdf_text(nominal_model(chain), robot_name=chain.name, links=links)
        else:
            table = (deformation if isinstance(deformation, DeformationTable)
                     else read_deformation_csv(deformation, n_joints=chain.n_joints))
            text = urdf_text(deformed_model(chain, table, fraction, composition), robot_name=f"{chain.name}_deformed",
                             links=links)
        job.write_text(out, text)
        job.commit()
    return out
