"""Built-in robots, each a table-form CSV under the repository's ``robots/<name>/``.

The folder is installed with the package as ``thermocomp._robots`` (see
pyproject.toml), so ``load_robot("irb140")`` works from any install.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from thermocomp._typing import PathLike
from thermocomp.errors import InputError
from thermocomp.robot.chain import Chain

#: Names of the built-in robots.
BUILTIN_ROBOTS = ("irb140", "gofa", "ur5")


def robot_dir(name: str) -> Path:
    """Folder of a built-in robot's data files."""
    if name not in BUILTIN_ROBOTS:
        raise InputError(f"unknown robot {name!r}; expected one of {', '.join(BUILTIN_ROBOTS)} or a path to a .csv or .urdf file")
    return _robots_root() / name


def _robots_root() -> Path:
    try:
        return Path(str(resources.files("thermocomp._robots")))
    except ModuleNotFoundError:
        # A development (editable) install runs the package from plugin/thermocomp
        # in the source tree, where the data sits in the repository's robots/.
        return Path(__file__).resolve().parents[3] / "robots"


def load_robot(name: str | PathLike) -> Chain:
    """A built-in robot by name, or a robot file by path.

    Parameters
    ----------
    name
        ``"irb140"``, ``"gofa"``, ``"ur5"``, or a path to a ``.csv`` (the table
        form, or a DH table: see :mod:`thermocomp.io.dh_csv`) or a ``.urdf``
        file (the chain from its root to its last link).
    """
    from thermocomp.io.chain_csv import read_chain_csv
    from thermocomp.io.csvtext import iter_rows
    from thermocomp.io.dh_csv import is_dh_header, read_dh_csv

    path = Path(name)
    if path.suffix.lower() == ".csv":
        first = next(iter(iter_rows(path)), None)
        if first is not None and is_dh_header(first[1]):
            return read_dh_csv(path)
        return read_chain_csv(path)
    if path.suffix.lower() == ".urdf":
        from thermocomp.io.urdf import read_urdf

        return read_urdf(path)
    return read_chain_csv(robot_dir(str(name)) / "chain.csv", name=str(name))
