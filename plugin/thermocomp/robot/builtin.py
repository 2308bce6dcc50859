"""Built-in robots, each a table-form CSV under the repository's ``robots/<name>/``.

The folder is installed with the package as ``thermocomp._robots`` (see
pyproject.toml), so ``load_robot("irb140")`` works from any install.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from thermocomp._data import data_folder
from thermocomp._typing import PathLike
from thermocomp.errors import InputError
from thermocomp.robot.chain import Chain

if TYPE_CHECKING:
    from thermocomp.io.robot_files import RobotFileOptions

#: Names of the built-in robots (each with its table, envelope meshes, inertials and cell).
BUILTIN_ROBOTS = ("irb140", "gofa", "ur5")
#: Kinematic variants of built-in robots: name -> (robot folder, table file). Tables only: their link frames
#: are not their robot's, so they carry no meshes or inertials (a simulator draws them with primitives).
#: ``gofa-seed000`` is seed 000 Table I's GoFa, whose flange sits 0.40 mm nearer joint 5 than the
#: manufacturer's (the built-in ``gofa``); docs/conventions.md.
BUILTIN_VARIANTS = {"gofa-seed000": ("gofa", "chain_seed000.csv")}


def robot_dir(name: str) -> Path:
    """Folder of a built-in robot's data files."""
    if name not in BUILTIN_ROBOTS:
        raise InputError(f"unknown robot {name!r}; expected one of {', '.join((*BUILTIN_ROBOTS, *BUILTIN_VARIANTS))} "
                         "or a path to a .csv, .urdf or .xacro file")
    return _robots_root() / name


def _robots_root() -> Path:
    return data_folder("robots")


def load_robot(name: str | PathLike, options: RobotFileOptions | None = None) -> Chain:
    """A built-in robot by name, or a robot file by path.

    Parameters
    ----------
    name
        ``"irb140"``, ``"gofa"``, ``"ur5"``, a variant of :data:`BUILTIN_VARIANTS`
        (``"gofa-seed000"``), or a path to a ``.csv`` (the table
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

    path = Path(name)
    if path.suffix.lower() in ROBOT_FILE_SUFFIXES:
        return load_robot_file(path, options)
    if options is not None and (options.chooses_links or options.xacro_args):
        given = [flag for flag, used in (("--base-link", options.base_link is not None),
                                         ("--tip-link", options.tip_link is not None),
                                         ("--xacro-arg", bool(options.xacro_args))) if used]
        raise InputError(f"{', '.join(given)}: only for a .urdf or .xacro robot file, got robot {str(name)!r} "
                         "(a built-in robot or a table has one chain)")
    if path.suffix.lower() == ".csv":
        first = next(iter(iter_rows(path)), None)
        if first is not None and is_dh_header(first[1]):
            return read_dh_csv(path)
        return read_chain_csv(path)
    if str(name) in BUILTIN_VARIANTS:
        folder, table = BUILTIN_VARIANTS[str(name)]
        return read_chain_csv(_robots_root() / folder / table, name=str(name))
    return read_chain_csv(robot_dir(str(name)) / "chain.csv", name=str(name))
