"""The robots ``--robot`` names: the built-in robots (each a table-form CSV under the repository's
``robots/<name>/``) and robot files (a table or DH CSV, a URDF, a xacro), read into a :class:`Chain`.

The built-in folder is installed with the package as ``thermocomp._robots`` (see
pyproject.toml), so ``load_robot("irb140")`` works from any install.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from thermocomp._data import data_folder
from thermocomp._typing import FloatArray, PathLike
from thermocomp.errors import InputError
from thermocomp.robot.chain import Chain

if TYPE_CHECKING:
    from thermocomp.io.robot_files import RobotFileOptions

#: Names of the built-in robots (each with its table, envelope meshes, inertials and cell).
BUILTIN_ROBOTS = ("irb140", "gofa", "ur5")
#: Kinematic variants of built-in robots: name -> (robot folder, table file). Tables only: their link frames
#: are not their robot's, so they carry no meshes or inertials (a simulator draws them with primitives).
#: ``gofa-seed000`` is seed 000 Table I's GoFa, whose flange sits 0.40 mm nearer joint 5 than the
#: manufacturer's (the built-in ``gofa``); docs/conventions.md. ``irb140-paper-scene`` is the IRB140 as the
#: authors of seed 002 stored it in their CoppeliaSim scenes (joint origins up to 0.02 mm from the datasheet
#: ``irb140``), derived from the scene's object poses by robots/make_tables.py (docs/coppeliasim.md).
BUILTIN_VARIANTS = {"gofa-seed000": ("gofa", "chain_seed000.csv"),
                    "irb140-paper-scene": ("irb140", "chain_paper_scene.csv")}
#: Built-in robots read from a CoppeliaSim scene, with their joint objects' world orientations at the zero
#: pose (the authors' scene convention needs them): name -> (robot folder, joint-objects file,
#: :mod:`thermocomp.io.scene_joints_csv`).
BUILTIN_JOINT_OBJECTS = {"irb140-paper-scene": ("irb140", "joint_objects_paper_scene.csv")}


#: Every name ``--robot`` takes besides a file: the built-in robots, then their variants.
BUILTIN_NAMES = (*BUILTIN_ROBOTS, *BUILTIN_VARIANTS)
#: How a robot file's name ends (``.csv`` table form or DH table, ``.urdf``, ``.xacro``): a robot given by any
#: other name is a built-in name or an error, never a file.
ROBOT_SUFFIXES = (".csv", ".urdf", ".xacro")


def is_builtin(name: object) -> bool:
    """Whether ``name`` names a built-in robot or variant of :data:`BUILTIN_NAMES` (not a file to read)."""
    return isinstance(name, (str, Path)) and str(name) in BUILTIN_NAMES


def robot_file(robot: object, option: str = "--robot") -> Path | None:
    """The robot file ``robot`` names; ``None`` for a built-in name or a model object (a :class:`Chain`).

    The one place that tells a built-in robot's name from a file: every
    command declares, reads and protects its robot through it.

    Raises
    ------
    InputError
        ``robot`` is a name that is neither built in nor a path ending in
        ``.csv``, ``.urdf`` or ``.xacro``; the message names ``option`` and
        lists the built-in names.
    """
    if not isinstance(robot, (str, Path)) or is_builtin(robot):
        return None
    if Path(robot).suffix.lower() not in ROBOT_SUFFIXES:
        raise InputError(f"{option}: unknown robot {str(robot)!r}; expected a built-in robot "
                         f"({', '.join(BUILTIN_NAMES)}) or a path to a {', '.join(ROBOT_SUFFIXES[:-1])} or "
                         f"{ROBOT_SUFFIXES[-1]} file")
    return Path(robot)


def builtin_joint_objects(name: str, n_joints: int) -> FloatArray | None:
    """The joint objects' world orientations ``(n, 3, 3)`` of a built-in scene robot, or ``None`` for other names."""
    from thermocomp.io.scene_joints_csv import read_scene_joints_csv

    if name not in BUILTIN_JOINT_OBJECTS:
        return None
    folder, file = BUILTIN_JOINT_OBJECTS[name]
    return read_scene_joints_csv(_robots_root() / folder / file, n_joints)


def robot_dir(name: str) -> Path:
    """Folder of a built-in robot's data files (its table, meshes, inertials); a variant has none."""
    if name in BUILTIN_VARIANTS:
        folder = BUILTIN_VARIANTS[name][0]
        raise InputError(f"robot {name!r} is a kinematic variant of {folder!r} (a table only, its link frames are "
                         f"not {folder}'s): it has no meshes or inertials; use {folder!r} or a robot file for them")
    if name not in BUILTIN_ROBOTS:
        robot_file(name)  # the unknown-name error
        raise InputError(f"expected a built-in robot ({', '.join(BUILTIN_ROBOTS)}), got the file {name!r}")
    return _robots_root() / name


def _robots_root() -> Path:
    return data_folder("robots")


def load_robot(name: str | PathLike, options: RobotFileOptions | None = None) -> Chain:
    """A built-in robot by name, or a robot file by path.

    Parameters
    ----------
    name
        ``"irb140"``, ``"gofa"``, ``"ur5"``, a variant of :data:`BUILTIN_VARIANTS`
        (``"gofa-seed000"``, ``"irb140-paper-scene"``), or a path to a ``.csv`` (the table
        form, or a DH table: see :mod:`thermocomp.io.dh_csv`), a ``.urdf`` or
        a ``.xacro`` file (:func:`thermocomp.io.robot_files.load_robot_file`).
    options
        For a ``.urdf`` or ``.xacro`` file: base and tip links, xacro
        arguments, ROS package folders. A base or tip link given for a
        built-in robot or a CSV is an error (they have no links to choose).
    """
    from thermocomp.io.chain_csv import read_chain_csv
    from thermocomp.io.csvtext import iter_rows
    from thermocomp.io.dh_csv import is_dh_header, read_dh_csv
    from thermocomp.io.robot_files import ROBOT_FILE_SUFFIXES, load_robot_file

    path = robot_file(name)
    if path is not None and path.suffix.lower() in ROBOT_FILE_SUFFIXES:
        return load_robot_file(path, options)
    if options is not None and (options.chooses_links or options.xacro_args or options.package_paths):
        given = [flag for flag, used in (("--base-link", options.base_link is not None),
                                         ("--tip-link", options.tip_link is not None),
                                         ("--xacro-arg", bool(options.xacro_args)),
                                         ("--package-path", bool(options.package_paths))) if used]
        raise InputError(f"{', '.join(given)}: only for a .urdf or .xacro robot file, got robot {str(name)!r} "
                         "(a built-in robot or a table has one chain)")
    if path is not None:  # a .csv
        first = next(iter(iter_rows(path)), None)
        if first is not None and is_dh_header(first[1]):
            return read_dh_csv(path)
        return read_chain_csv(path)
    if str(name) in BUILTIN_VARIANTS:
        folder, table = BUILTIN_VARIANTS[str(name)]
        return read_chain_csv(_robots_root() / folder / table, name=str(name))
    return read_chain_csv(robot_dir(str(name)) / "chain.csv", name=str(name))
