"""The CoppeliaSim add-on: where its Lua file is, and installing it into a CoppeliaSim.

The add-on (``plugin/thermocomp/simulators/coppeliasim/thermocomp.lua`` in the repository)
adds "Thermal compensation" under CoppeliaSim's Modules menu. It calls into
the Python plugin by launching ``thermocomp coppeliasim ...`` subcommands
(``simSubprocess.execAsync``), which connect back to the same CoppeliaSim
through the ZMQ remote API. docs/coppeliasim.md describes the design.
"""

from __future__ import annotations

import shutil
from importlib import resources
from pathlib import Path

from thermocomp._typing import PathLike
from thermocomp.errors import InputError

#: File name of the add-on; CoppeliaSim lists it under Modules by its sysCall_info menu.
ADDON_FILE = "thermocomp.lua"


def addon_source() -> Path:
    """The add-on's Lua file, shipped as package data beside this module."""
    packaged = Path(str(resources.files("thermocomp.simulators.coppeliasim"))) / ADDON_FILE
    if packaged.is_file():
        return packaged
    raise InputError(f"the CoppeliaSim add-on {ADDON_FILE} was not found in {packaged.parent}; reinstall thermocomp")


def check_coppeliasim_dir(directory: PathLike) -> Path:
    """``directory`` as a CoppeliaSim installation: it must hold an ``addOns/`` folder and ``lua/``.

    Raises
    ------
    InputError
        Naming what is missing.
    """
    root = Path(directory).expanduser()
    if not root.is_dir():
        raise InputError(f"expected a CoppeliaSim installation folder, got {str(root)!r}, which is not a folder")
    missing = [name for name in ("addOns", "lua") if not (root / name).is_dir()]
    if missing:
        raise InputError(
            f"{root} does not look like a CoppeliaSim installation: no {' or '.join(n + '/' for n in missing)} "
            "folder. Give the folder that holds CoppeliaSim's executable, addOns/ and lua/ "
            "(on macOS: coppeliaSim.app/Contents/Resources)"
        )
    return root


def install_addon(coppeliasim_dir: PathLike, *, overwrite: bool = False) -> Path:
    """Copy the add-on into ``<coppeliasim_dir>/addOns/``; return the installed path.

    Parameters
    ----------
    coppeliasim_dir
        CoppeliaSim's installation folder (with ``addOns/`` and ``lua/``).
    overwrite
        Replace an existing, different file of the same name. Without it an
        existing different file is an error; an identical one is left alone.
    """
    root = check_coppeliasim_dir(coppeliasim_dir)
    source = addon_source()
    target = root / "addOns" / ADDON_FILE
    if target.exists():
        if target.read_bytes() == source.read_bytes():
            return target
        if not overwrite:
            raise InputError(f"{target} exists and differs from this version of the add-on; "
                             "rerun with --force to replace it")
    tmp = target.with_name(target.name + ".tmp")
    shutil.copyfile(source, tmp)
    tmp.replace(target)
    return target
