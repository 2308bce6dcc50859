"""What every command that deforms a robot starts from: the robot, bound to its deformation table and time law.

Each command used to load its robot, read its table and check the two
against each other in its own words. They now all start here
(:mod:`thermocomp.app.targets`, the robot programs, the PyBullet and
CoppeliaSim commands, the calibration campaigns):

* :func:`load_chain` loads the robot once (a built-in name, a table CSV, a
  URDF or xacro: its description read and expanded once, :func:`load_description`)
  and declares the files a robot file reads (a xacro's includes, its meshes) as
  inputs of the run's :class:`~thermocomp.io.job.Job`;
* :func:`bind_table` reads the deformation table for that robot's joints:
  the one joint-count check;
* :func:`bind_law` turns the authors' CoppeliaSim convention into a table
  and a time law like any other (their per-minute increments are
  :class:`~thermocomp.deformation.coppeliasim_convention.AuthorsIncrements`),
  so nothing beside the table carries it;
* :func:`robot_and_table` does the three, after checking the convention's
  options.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from thermocomp._typing import ArrayLike, PathLike
from thermocomp.compensation.compensate import CompensationOptions
from thermocomp.deformation.table import DeformationTable
from thermocomp.errors import ConfigurationError
from thermocomp.io.deformation_csv import read_deformation_csv
from thermocomp.io.job import Job
from thermocomp.io.robot_files import ROBOT_FILE_SUFFIXES, RobotDescription, RobotFileOptions, read_robot_description
from thermocomp.io.robots import load_robot, robot_file
from thermocomp.robot.chain import Chain

#: How a deformation table is applied: as seed 002's Tables 6-7 read it, or as the authors' CoppeliaSim script did.
CONVENTIONS = ("table", "authors-coppeliasim")


@dataclass(frozen=True)
class RobotAndTable:
    """A robot bound to its deformation table, and the options whose time law applies the table."""

    chain: Chain
    table: DeformationTable
    options: CompensationOptions
    #: The robot file the chain was read from, read once (None: a built-in robot, a table CSV, a Chain given).
    description: RobotDescription | None = None


def load_description(robot: str | PathLike | Chain, robot_options: RobotFileOptions | None = None
                     ) -> RobotDescription | None:
    """A ``.urdf``/``.xacro`` robot file read (a xacro expanded); None for a built-in robot, a table CSV, a Chain."""
    path = None if isinstance(robot, Chain) else robot_file(robot)
    if path is None or path.suffix.lower() not in ROBOT_FILE_SUFFIXES:
        return None
    return read_robot_description(path, robot_options)


def load_chain(robot: str | PathLike | Chain, robot_options: RobotFileOptions | None = None, *, job: Job | None = None,
               place: Callable[[Chain], Chain] | None = None, description: RobotDescription | None = None) -> Chain:
    """The robot (a :class:`Chain` as given), its robot file's own inputs declared in ``job``, placed by ``place``.

    ``description``: the robot file already read (:func:`load_description`), not read and expanded again."""
    if description is None:
        description = load_description(robot, robot_options)
    if isinstance(robot, Chain):
        chain = robot
    else:
        chain = load_robot(robot, robot_options) if description is None else description.chain()
    if job is not None and description is not None:
        job.inputs(description.files(), "--robot")  # a xacro's includes, the meshes
    return chain if place is None else place(chain)


def bind_table(chain: Chain, deformation: PathLike | DeformationTable) -> DeformationTable:
    """The deformation table of ``chain``: read for its joints, or checked against them when given as a table."""
    table = (deformation if isinstance(deformation, DeformationTable)
             else read_deformation_csv(deformation, n_joints=chain.n_joints))
    table.check_matches(chain.n_joints, chain.name)
    table.check_plausible(chain.size, chain.name)
    return table


def bind_law(chain: Chain, table: DeformationTable, options: CompensationOptions, convention: str,
             R_world_joint: ArrayLike | None = None) -> tuple[DeformationTable, CompensationOptions]:
    """``(table, options)`` applying ``table`` in ``convention`` under ``options.time_law``.

    ``"table"``: unchanged. ``"authors-coppeliasim"``: the authors' scene
    convention (:func:`~thermocomp.deformation.coppeliasim_convention.authors_law`;
    ``R_world_joint``: their joint objects' orientations, default those of
    their IRB140 scene).
    """
    if convention == "table":
        return table, options
    from thermocomp.deformation.coppeliasim_convention import authors_law
    from thermocomp.io.robots import builtin_joint_objects

    if R_world_joint is None:  # a built-in scene robot's own joint objects (irb140-paper-scene)
        R_world_joint = builtin_joint_objects(chain.name, chain.n_joints)

    table, time_law = authors_law(chain, table, options.time_law, R_world_joint)
    return table, replace(options, time_law=time_law)


def robot_and_table(robot: str | PathLike | Chain, deformation: PathLike | DeformationTable, *,
                    job: Job | None = None, robot_options: RobotFileOptions | None = None,
                    options: CompensationOptions | None = None, convention: str = "table",
                    joint_objects: PathLike | None = None,
                    place: Callable[[Chain], Chain] | None = None) -> RobotAndTable:
    """Load the robot, bind the deformation table and its time law (module docstring).

    Parameters
    ----------
    robot, robot_options, job, place
        As :func:`load_chain`.
    deformation
        The paper's deformation CSV [mm, deg] or a :class:`DeformationTable`.
    options
        Time law, minutes, solver settings (default: the defaults).
    convention
        One of :data:`CONVENTIONS` (:func:`bind_law`).
    joint_objects
        With ``"authors-coppeliasim"``: the joint objects' world orientations
        at the zero pose, as ``coppeliasim read-robot --joint-objects-out``
        wrote them.

    Raises
    ------
    ConfigurationError
        A convention outside :data:`CONVENTIONS`, or options it does not take.
    InputError
        A robot file, table or joint-objects file that cannot be read, or a
        table of another number of joints than the robot's.
    """
    options = CompensationOptions() if options is None else options
    if convention not in CONVENTIONS:
        raise ConfigurationError(f"--convention: expected 'table' or 'authors-coppeliasim', got {convention!r}")
    if convention != "table" and options.composition != "table":
        raise ConfigurationError("--convention authors-coppeliasim gives the table-form equivalent of the authors' "
                                 f"scene (composition 'table'); expected no --composition {options.composition}")
    if joint_objects is not None and convention != "authors-coppeliasim":
        raise ConfigurationError("--joint-objects serves --convention authors-coppeliasim only")
    if job is not None:  # declared again here for the commands that check before they prepare: commit checks it
        job.input(options.time_law_file, "--time-law")
    description = load_description(robot, robot_options)
    chain = load_chain(robot, robot_options, job=job, place=place, description=description)
    table = bind_table(chain, deformation)
    R_world_joint = None
    if joint_objects is not None:
        from thermocomp.io.scene_joints_csv import read_scene_joints_csv

        R_world_joint = read_scene_joints_csv(joint_objects, chain.n_joints)
    table, options = bind_law(chain, table, options, convention, R_world_joint)
    return RobotAndTable(chain, table, options, description)


__all__ = ["CONVENTIONS", "RobotAndTable", "bind_law", "bind_table", "load_chain", "load_description", "robot_and_table"]
