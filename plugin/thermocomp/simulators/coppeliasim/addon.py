"""The CoppeliaSim add-on: where its Lua file is, and installing it into a CoppeliaSim.

The add-on (``plugin/thermocomp/simulators/coppeliasim/thermocomp.lua`` in the repository)
adds "Thermal compensation" under CoppeliaSim's Modules menu. It calls into
the Python plugin by launching ``thermocomp coppeliasim ...`` subcommands
(``simSubprocess.execAsync``), which connect back to the same CoppeliaSim
through the ZMQ remote API. docs/coppeliasim.md describes the design.

CoppeliaSim asks the user before a script launches a program, and remembers
the answer for that exact command line (coppeliaSimLib
``simCheckExecAuthorization_internal``: a hash of the program, its arguments
and the script, kept as ``<hash>EXECUNSAFE`` in its persistent data; simSubprocess
``checkAuth`` throws "Permission denied (by user)" on a refusal). So the
add-on always launches the same command line, ``thermocomp coppeliasim
addon-run <user settings folder>/thermocomp-addon-request.txt``, and writes
what varies (the action and its options) into that request file:
:func:`read_addon_request` reads it back.
"""

from __future__ import annotations

import contextlib
from importlib import resources
from pathlib import Path

from thermocomp._typing import PathLike
from thermocomp.errors import InputError
from thermocomp.io.files import read_input_bytes
from thermocomp.io.job import Job

#: File name of the add-on; CoppeliaSim lists it under Modules by its sysCall_info menu.
ADDON_FILE = "thermocomp.lua"

#: First line of a request file the add-on writes (thermocomp.lua, ``REQUEST_FORMAT``).
ADDON_REQUEST_FORMAT = "thermocomp-addon-request/1"
#: The ``thermocomp coppeliasim`` actions a request may ask for: the add-on's entries.
ADDON_ACTIONS = ("show", "compensate", "play", "restore")


#: The largest add-on request read [bytes]: the add-on writes one action and its options, a few hundred bytes.
MAX_REQUEST_BYTES = 64 * 1024


def read_addon_request(path: PathLike) -> list[str]:
    """The command line (``["coppeliasim", action, options...]``) in an add-on request file.

    The file: :data:`ADDON_REQUEST_FORMAT` on the first line, then one
    argument per line (UTF-8; a path may hold spaces, never a line break).

    Raises
    ------
    InputError
        Naming the file and line: unreadable, a device, a FIFO nothing is
        written to, more than :data:`MAX_REQUEST_BYTES`, another format, or
        an action other than :data:`ADDON_ACTIONS`.
    """
    from thermocomp.io.files import read_input_bytes
    from thermocomp.io.job import Job

    path = Path(path)
    job = Job()  # the checks of every input: a device (/dev/zero) is refused, a FIFO waits a bounded time
    job.input(path, "REQUEST")
    found = job.conflicts()
    if found:
        raise InputError(found[0])
    if path.is_file() and path.stat().st_size > MAX_REQUEST_BYTES:
        raise InputError(f"expected an add-on request of at most {MAX_REQUEST_BYTES:,} bytes (the add-on writes a "
                         f"few hundred), got {path.stat().st_size:,}", path=str(path))
    data = read_input_bytes(path, "add-on request")
    if len(data) > MAX_REQUEST_BYTES:
        raise InputError(f"expected an add-on request of at most {MAX_REQUEST_BYTES:,} bytes, got more", path=str(path))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"expected UTF-8 text (what the add-on writes), got byte {data[exc.start]:#04x} at offset "
                         f"{exc.start}", path=str(path)) from None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    lines = [line.removesuffix("\r") for line in lines]
    if not lines or lines[0] != ADDON_REQUEST_FORMAT:
        first = lines[0] if lines else ""
        raise InputError(f"{path}:1:1: expected {ADDON_REQUEST_FORMAT!r} (a request the thermocomp add-on writes), "
                         f"got {first[:60]!r}")
    argv = lines[1:]
    if len(argv) < 2 or argv[0] != "coppeliasim":
        raise InputError(f"{path}:2:1: expected 'coppeliasim' and an action on lines 2 and 3, got {argv[:2]!r}")
    if argv[1] not in ADDON_ACTIONS:
        raise InputError(f"{path}:3:1: expected one of the add-on's actions {', '.join(ADDON_ACTIONS)}, "
                         f"got {argv[1]!r}")
    return argv


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


def install_addon(coppeliasim_dir: PathLike, *, overwrite: bool = False, job: Job | None = None) -> Path:
    """Copy the add-on into ``<coppeliasim_dir>/addOns/``; return the installed path.

    The copy is an output of a :class:`~thermocomp.io.job.Job` (``job``, or one
    of its own): refused before anything is written when it is not a regular
    file (a FIFO there blocked the comparison for ever) or its folder is not
    writable, written under the job's temporary name (a fixed ``.tmp`` name
    replaced a user's file of that name) and committed whole.

    Parameters
    ----------
    coppeliasim_dir
        CoppeliaSim's installation folder (with ``addOns/`` and ``lua/``).
    overwrite
        Replace an existing, different file of the same name. Without it an
        existing different file is an error; an identical one is left alone.
    job
        The job of a larger run, which then commits; default a job of its own.
    """
    root = check_coppeliasim_dir(coppeliasim_dir)
    source = addon_source()
    own = job is None
    job = Job() if job is None else job
    with job if own else contextlib.nullcontext(job):
        job.input(source, "the add-on")
        target = job.output(root / "addOns" / ADDON_FILE, "--coppeliasim-dir (addOns/" + ADDON_FILE + ")")
        job.check()
        data = read_input_bytes(source)
        if target.exists():
            if read_input_bytes(target) == data:
                return target
            if not overwrite:
                raise InputError(f"{target} exists and differs from this version of the add-on; "
                                 "rerun with --force to replace it")
        job.write_bytes(target, data)
        job.commit()
    return target
