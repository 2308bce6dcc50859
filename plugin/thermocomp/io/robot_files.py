"""Robot description files as users have them: URDF and xacro, ROS packages, base and tip links.

One loader for every command (``thermocomp compensate``, ``sim``, ``robot``,
``inertia``, ``coppeliasim convention``): :func:`load_robot_file` reads a
``.urdf`` or expands a ``.xacro`` (with the ``xacro`` package from PyPI,
arguments ``name:=value``) and takes the serial chain from a base link to a
tip link (:func:`thermocomp.io.urdf.urdf_chain`). ROS packages named by
``$(find NAME)`` (xacro) and ``package://NAME/...`` (mesh URIs) are found
the way ROS finds them: a folder holding a ``package.xml`` whose ``<name>``
is ``NAME`` (not the folder's own name), searched under the folders given
(``--package-path``) and then those of the ``ROS_PACKAGE_PATH`` environment
variable. docs/robot_files.md says more.

From Python::

    from thermocomp.io.robot_files import RobotFileOptions, load_robot_file
    chain = load_robot_file("ur5/urdf/ur5.xacro", RobotFileOptions(package_paths=("robots/",)))
"""

from __future__ import annotations

import contextlib
import functools
import math
import os
import re
import sys
import xml.parsers.expat
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from thermocomp._typing import PathLike
from thermocomp.errors import InputError
from thermocomp.io.files import MAX_DESCRIPTION_BYTES, is_file, read_input_bytes
from thermocomp.io.xacro_expressions import UnsafeExpression
from thermocomp.robot.chain import Chain

if TYPE_CHECKING:
    from thermocomp.io.urdf import Urdf

#: File name endings of the robot files this module reads.
ROBOT_FILE_SUFFIXES = (".urdf", ".xacro")
#: Folders that ROS's package crawlers (rospack, ament, colcon) never enter when they hold one of these files.
_IGNORE_MARKERS = ("CATKIN_IGNORE", "COLCON_IGNORE", "AMENT_IGNORE")
#: How deep below a package-path folder packages are looked for (rospack has no limit; a bound keeps a
#: mistaken ``--package-path /`` from walking the whole disk).
MAX_PACKAGE_DEPTH = 6
#: How many folders the search for packages looks into at most, over every folder of the search path (a workspace
#: holds hundreds; a linked folder is looked into once, so links back up, as ``/proc/self/root``, end).
MAX_PACKAGE_FOLDERS = 50_000


@dataclass(frozen=True)
class RobotFileOptions:
    """How to read a robot file (:func:`load_robot_file`).

    Parameters
    ----------
    base_link
        URDF link whose frame is the robot's base frame (``--base-link``).
        Default: the root link (below a ``world`` root, the link it places).
    tip_link
        URDF link whose frame is the TCP (``--tip-link``). Default: the only
        leaf with revolute joints above it (``tool0`` of a ROS-Industrial
        description).
    xacro_args
        ``(name, value)`` pairs of xacro arguments (``--xacro-arg name:=value``).
    package_paths
        Folders to search for ROS packages before ``ROS_PACKAGE_PATH`` (``--package-path``).
    use_ros_package_path
        Also search the folders of the ``ROS_PACKAGE_PATH`` environment variable.
    xacro_env
        Let a xacro file read environment variables (``$(env NAME)``, ``$(optenv NAME ...)``;
        ``--xacro-allow-env``). Off: a robot file's expansion does not depend on who runs it.
    """

    base_link: str | None = None
    tip_link: str | None = None
    xacro_args: tuple[tuple[str, str], ...] = ()
    package_paths: tuple[Path, ...] = field(default=())
    use_ros_package_path: bool = True
    xacro_env: bool = False

    def __post_init__(self) -> None:
        given: dict[str, str] = {}
        for name, value in self.xacro_args:
            if not re.fullmatch(r"[A-Za-z_][\w-]*", name):
                raise InputError(f"--xacro-arg: expected an argument name (letters, digits, _ or -), got {name!r}")
            if name in given:  # (xacro would keep the last in silence)
                raise InputError(f"--xacro-arg {name}: given twice ({given[name]!r}, then {value!r}); give each "
                                 "argument once")
            given[name] = value
        object.__setattr__(self, "xacro_args", tuple((str(k), str(v)) for k, v in self.xacro_args))
        object.__setattr__(self, "package_paths", tuple(Path(p) for p in self.package_paths))

    @property
    def chooses_links(self) -> bool:
        """Whether a base or tip link is given (meaningless for a built-in robot or a table-form CSV)."""
        return self.base_link is not None or self.tip_link is not None

    def search_path(self) -> tuple[Path, ...]:
        """The folders searched for packages: :attr:`package_paths`, then ``ROS_PACKAGE_PATH``'s."""
        env = os.environ.get("ROS_PACKAGE_PATH", "") if self.use_ros_package_path else ""
        return self.package_paths + tuple(Path(p) for p in env.split(os.pathsep) if p)


def xacro_arg(text: str) -> tuple[str, str]:
    """``name:=value`` as ``(name, value)`` (the form of ``xacro`` and ``roslaunch``)."""
    name, sep, value = text.partition(":=")
    if not sep or not name:
        raise InputError(f"--xacro-arg: expected name:=value, got {text!r}")
    return name, value


def package_name(package_xml: PathLike) -> str:
    """The ``<name>`` of a ROS ``package.xml`` (REP 127/140/149)."""
    import xml.etree.ElementTree as ET

    src = str(package_xml)
    try:
        root = ET.fromstring(read_input_bytes(package_xml, "package.xml", MAX_DESCRIPTION_BYTES))
    except ET.ParseError as exc:
        raise InputError(f"expected well-formed XML, got: {exc}", path=src, row=exc.position[0]) from exc
    name = root.findtext("name")
    if root.tag != "package" or not name or not name.strip():
        raise InputError("expected <package> with a <name>, got none", path=src)
    return name.strip()


def find_packages(search_path: tuple[Path, ...]) -> dict[str, Path]:
    """ROS packages under the folders of ``search_path``: package name -> package folder.

    As rospack and ament do: a folder with a ``package.xml`` is a package
    (named by its ``<name>``) and is not searched further; folders holding
    ``CATKIN_IGNORE``, ``COLCON_IGNORE`` or ``AMENT_IGNORE`` and hidden
    folders are skipped; a folder of ``search_path`` may itself be a package.
    The first folder of ``search_path`` that holds a name wins (as
    ``ROS_PACKAGE_PATH`` overlays do); within one folder, the first in
    sorted order. Folders that do not exist are skipped; a folder reached twice (through links) is looked into
    once, and more than :data:`MAX_PACKAGE_FOLDERS` folders in all is an :class:`InputError` naming the folder.
    """
    found: dict[str, Path] = {}
    looked = 0
    for top in search_path:
        if not top.is_dir():
            continue
        in_this: dict[str, Path] = {}
        seen: set[tuple[int, int]] = set()
        stack: list[tuple[Path, int]] = [(top, 0)]
        while stack:
            folder, depth = stack.pop()
            try:
                st = folder.stat()
            except OSError:
                continue
            if (st.st_dev, st.st_ino) in seen:  # a link to a folder already looked into (a loop: a link to '.')
                continue
            seen.add((st.st_dev, st.st_ino))
            looked += 1
            if looked > MAX_PACKAGE_FOLDERS:
                raise InputError(f"searching for ROS packages (--package-path, ROS_PACKAGE_PATH) looked into more "
                                 f"than {MAX_PACKAGE_FOLDERS:,} folders: expected folders of ROS packages (a "
                                 "workspace's src, /opt/ros/<distro>/share)", path=str(top))
            if (folder / "package.xml").is_file():
                in_this.setdefault(package_name(folder / "package.xml"), folder)
                continue
            if depth >= MAX_PACKAGE_DEPTH or any((folder / m).exists() for m in _IGNORE_MARKERS):
                continue
            try:
                subs = sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))
            except OSError:
                continue  # an unreadable folder holds no package we can use
            stack.extend((p, depth + 1) for p in reversed(subs))
        for name, folder in in_this.items():
            found.setdefault(name, folder)
    return found


@dataclass(frozen=True)
class RobotDescription:
    """A robot file read and expanded: the URDF text and the packages its URIs name.

    Attributes
    ----------
    source
        The file (``.urdf`` or ``.xacro``).
    urdf
        The URDF document (for a xacro file: its expansion).
    packages
        Every ROS package found on the search path: name -> folder.
    options
        How it was read.
    """

    source: Path
    urdf: str
    packages: Mapping[str, Path]
    options: RobotFileOptions
    included: tuple[Path, ...] = ()

    def files(self) -> tuple[Path, ...]:
        """Every file the robot is read from: the file, what a xacro includes or loads (YAML), the meshes it names.

        Mesh URIs that do not resolve to a file are left out (reading the
        meshes reports them). Outputs are checked against this list, so none
        lands on a file the robot is made of.
        """
        from urllib.parse import unquote, urlparse

        found = [self.source, *self.included]
        for mesh in self.parsed.root.iter("mesh"):
            url = urlparse(mesh.get("filename", ""))
            if url.scheme == "package" and url.netloc in self.packages:
                found.append(self.packages[url.netloc] / unquote(url.path.lstrip("/")))
            elif url.scheme == "file":
                found.append(Path(unquote(url.path)))
            elif not url.scheme or len(url.scheme) == 1:
                path = Path(mesh.get("filename", ""))
                found.append(path if path.is_absolute() else self.source.parent / path)
        return tuple(p for p in dict.fromkeys(found) if is_file(p))  # (a name too long is no file: not an OSError)

    @functools.cached_property
    def parsed(self) -> Urdf:
        """The URDF document read, once (:func:`thermocomp.io.urdf.parse_urdf`): every reader of the description
        takes this."""
        from thermocomp.io.urdf import parse_urdf

        with self.expansion_lines():
            return parse_urdf(self.urdf, str(self.source))

    def chain(self) -> Chain:
        """The serial chain from the base link to the tip link (:func:`thermocomp.io.urdf.urdf_chain`)."""
        from thermocomp.io.urdf import urdf_chain

        with self.expansion_lines():
            return urdf_chain(self.parsed, str(self.source), self.options.base_link, self.options.tip_link)

    @contextlib.contextmanager
    def expansion_lines(self) -> Iterator[None]:
        """An :class:`InputError` of the URDF text naming a line of a xacro file: that line is of the expansion
        (which the file may not have: 12 lines expanding to 400), and the message says so."""
        try:
            yield
        except InputError as exc:
            if self.source.suffix.lower() != ".xacro" or exc.row is None or exc.path != str(self.source):
                raise
            raise InputError(f"{exc.message} (at line {exc.row} of the file's expansion, not of the file: "
                             f"'xacro {self.source.name}' prints it)", path=exc.path, column=exc.column) from None


def read_robot_description(path: PathLike, options: RobotFileOptions | None = None) -> RobotDescription:
    """Read a ``.urdf`` file, or expand a ``.xacro`` file, with the packages it can name.

    Raises
    ------
    InputError
        Naming the file and, where known, the line: a missing or unreadable
        file, a xacro error (an undefined property or argument, a bad
        expression, malformed XML, an unknown package), another suffix.
    """
    options = RobotFileOptions() if options is None else options
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in ROBOT_FILE_SUFFIXES:
        raise InputError(f"expected a robot file ending in {' or '.join(ROBOT_FILE_SUFFIXES)}, got {path.name!r}",
                         path=str(path))
    for folder in options.package_paths:  # a missing folder or a file was skipped in silence, its packages unfound
        if not folder.is_dir():
            raise InputError(f"--package-path: expected a folder holding ROS packages, got "
                             f"{'a file' if folder.exists() else 'nothing (no such folder)'}", path=str(folder))
    packages = find_packages(options.search_path())
    if suffix == ".urdf":
        if options.xacro_args:
            raise InputError("--xacro-arg applies to .xacro files; this is a plain URDF", path=str(path))
        data = read_input_bytes(path, "URDF", MAX_DESCRIPTION_BYTES)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(f"expected UTF-8 text, got byte {data[exc.start]:#04x} at offset {exc.start}",
                             path=str(path)) from exc
    else:
        read_input_bytes(path, "xacro", MAX_DESCRIPTION_BYTES)  # every reader's messages (missing, a folder, /dev/zero)
        text, included = expand_xacro(path, dict(options.xacro_args), packages, options.search_path(),
                                      with_includes=True, env=options.xacro_env)
        return RobotDescription(source=path, urdf=text, packages=packages, options=options, included=included)
    return RobotDescription(source=path, urdf=text, packages=packages, options=options)


def robot_file_inputs(robot: object, options: RobotFileOptions | None = None) -> tuple[Path, ...]:
    """The files a ``.urdf`` / ``.xacro`` robot is read from (:meth:`RobotDescription.files`); none for anything else."""
    if not isinstance(robot, (str, Path)) or Path(robot).suffix.lower() not in ROBOT_FILE_SUFFIXES:
        return ()
    return read_robot_description(robot, options).files()


def load_robot_file(path: PathLike, options: RobotFileOptions | None = None) -> Chain:
    """The table-form chain of a ``.urdf`` or ``.xacro`` robot file.

    Parameters
    ----------
    path
        The robot file.
    options
        Base and tip links, xacro arguments, package search path.

    Returns
    -------
    Chain
        As :func:`thermocomp.io.urdf.urdf_chain`: SI units, the base link's
        frame, angles = the URDF joint positions.
    """
    return read_robot_description(path, options).chain()


#: The link of a ROS-Industrial Universal Robots description (``ur_description``) that is the UR controller's base
#: frame, the frame of URScript poses: fixed to ``base_link``, turned by pi about z (REP 103). With a ``tf_prefix``
#: (the ``prefix`` argument of ur_description's macro: two arms of one cell) both are prefixed: ``left_base`` fixed
#: to ``left_base_link``.
CONTROLLER_BASE_LINK = "base"


def controller_base_beside(description: RobotDescription) -> tuple[str, str, float] | None:
    """The UR controller's base link hung beside the chain's base, when the base was not chosen (``--base-link``).

    Returns
    -------
    tuple or None
        ``(link, base, angle)``: the link :data:`CONTROLLER_BASE_LINK` (or ``<prefix>base`` beside a
        ``<prefix>base_link``: ur_description's ``tf_prefix``), the base link the chain takes without
        ``--base-link`` (the root, or the link a ``world`` root places) and the angle [rad] between their frames,
        when the description has such a link, other than the base, hung on the chain's arm (its parent link lies
        between the base and the tip: of two prefixed arms, the one the chain runs through) and joined to the base
        by fixed joints only. ``None`` otherwise, or when ``--base-link`` was given (the user's decision).
    """
    if description.options.base_link is not None:
        return None
    from thermocomp.geometry.rotations import rotation_angle
    from thermocomp.io.urdf import urdf_chain_ends

    urdf = description.parsed
    size = len(CONTROLLER_BASE_LINK)
    candidates = [name for name in urdf.links if name == CONTROLLER_BASE_LINK or (
        name.endswith(CONTROLLER_BASE_LINK) and f"{name[:-size]}{CONTROLLER_BASE_LINK}_link" in urdf.links)]
    if not candidates:
        return None
    with description.expansion_lines():
        base, tip = urdf_chain_ends(urdf, str(description.source), None, description.options.tip_link)
    by_child = {j.child: j for j in urdf.joints}
    arm, link = {tip}, tip  # the tip and the links above it
    while link in by_child and link != base:
        link = by_child[link].parent
        arm.add(link)
    for candidate in candidates:
        joint = by_child.get(candidate)
        if joint is None or joint.parent not in arm:
            continue
        link, T_base_link = candidate, np.eye(4)
        while link != base:
            joint = by_child.get(link)
            if joint is None or joint.type != "fixed":
                break
            T_base_link = joint.T_parent_joint @ T_base_link
            link = joint.parent
        else:
            if candidate != base:
                return candidate, base, float(rotation_angle(T_base_link[:3, :3]))
    return None


class _PackageNotFound(LookupError):
    """``$(find NAME)`` of a package that is not on the search path (raised inside xacro, reported by us)."""


@contextlib.contextmanager
def _xacro_finds(packages: Mapping[str, Path], search_path: tuple[Path, ...]) -> Iterator[None]:
    """Resolve xacro's ``$(find NAME)`` from ``packages`` for the duration of one expansion.

    The PyPI ``xacro`` resolves ``$(find NAME)`` with ``ament_index_python``
    (a ROS 2 install), which a plain Python environment does not have; its
    only hook is the module-level function ``substitution_args._eval_find``
    (also in the ``$(eval ...)`` symbols). It is swapped here and restored
    afterwards.
    """
    import xacro.substitution_args as sa

    def find(name: str) -> str:
        if name not in packages:
            where = ", ".join(str(p) for p in search_path) or "nothing (no --package-path, ROS_PACKAGE_PATH unset)"
            raise _PackageNotFound(
                f"$(find {name}): no ROS package named {name!r} (by the <name> of its package.xml) under {where}; "
                "give its parent folder with --package-path DIR or ROS_PACKAGE_PATH"
            )
        return str(packages[name].resolve())

    saved, saved_eval = sa._eval_find, sa._eval_dict.get("find")
    sa._eval_find, sa._eval_dict["find"] = find, find
    try:
        yield
    finally:
        sa._eval_find = saved
        sa._eval_dict["find"] = saved_eval


@contextlib.contextmanager
def _xacro_sandbox(roots: tuple[Path, ...], env: bool) -> Iterator[None]:
    """Evaluate the ``${...}`` and ``$(eval ...)`` of one expansion without Python's ``eval``.

    The ``xacro`` package evaluates both with ``eval``, which a robot file can
    use to run any command (issue 28). Its module-level evaluators
    (``xacro.safe_eval``, ``substitution_args._eval``) and environment readers
    are swapped for :mod:`thermocomp.io.xacro_expressions` for the duration of
    one expansion, and restored afterwards. ``xacro.load_yaml`` reads only
    files under ``roots`` (the robot file's folder and the package folders).
    """
    import xacro
    import xacro.substitution_args as sa

    from thermocomp.io import xacro_expressions as xe

    def load_yaml(filename):
        name = xacro.abs_filename_spec(filename)
        if not xe.inside(Path(name), roots):
            raise xe.UnsafeExpression(f"xacro.load_yaml: expected a file inside the robot file's folder or a ROS "
                                      f"package's (--package-path), got {name}")
        _check_read(Path(name), "xacro.load_yaml: ")
        _stage(f"reading {name} (xacro.load_yaml)")
        return xacro.load_yaml(name)

    def fatal(*args):
        raise xacro.XacroException(" ".join(map(str, args)))

    functions = xe.base_functions()
    functions.update({"xacro.load_yaml": load_yaml, "load_yaml": load_yaml, "xacro.fatal": fatal,
                      "xacro.dotify": xacro.YamlDictWrapper,
                      "xacro.arg": lambda name: xacro.substitution_args_context["arg"][name]})

    def safe_eval(expr, globals, locals=None):
        def lookup(name: str):
            try:
                return (locals if locals is not None and name in locals else globals)[name]
            except KeyError:
                raise NameError(f"name '{name}' is not defined") from None

        _stage(f"evaluating ${{{expr}}}")
        return xe.evaluate(expr, lookup, functions)

    def eval_substitution(text: str, context: dict):
        args = context.setdefault("arg", {})

        def lookup(name: str):
            if name in vars(math) and not callable(vars(math)[name]):
                return vars(math)[name]
            if name in args:
                return sa.convert_value(args[name], "auto")
            raise NameError(f"name '{name}' is not defined")

        in_eval = dict(functions)
        in_eval.update({"arg": lambda name: sa.convert_value(sa._eval_arg(name, args=args), "auto"),
                        "dirname": lambda: sa._eval_dirname(context["filename"]),
                        "find": lambda name: sa._eval_find(name), "env": sa._eval_env, "optenv": sa._eval_optenv})
        _stage(f"evaluating $(eval {text})")
        return str(xe.evaluate(text, lookup, in_eval, shown="$(eval %s)"))

    def no_env(name, *default, **named_default):
        raise sa.SubstitutionException(f"$(env {name}) / $(optenv {name}): reading the environment is off, so that "
                                       "a robot file expands the same for everyone; allow it with --xacro-allow-env")

    def include_files(spec, symbols):
        """The files of a ``<xacro:include>``, each inside ``roots`` (as ``xacro.load_yaml``'s): a robot file from a
        stranger reads no file of the machine's outside its folders, a glob is searched inside them only."""
        name = xacro.abs_filename_spec(xacro.eval_text(spec, symbols))
        folder = Path(re.split(r"[*?[]", name)[0]).parent  # (the folder a glob searches)
        for found in saved_include_files(spec, symbols) if xe.inside(folder, roots) else [name]:
            if not xe.inside(Path(found), roots):
                real = Path(found).resolve()
                got = real if Path(os.path.normpath(found)) == real else f"{found} (a link to {real})"
                raise xacro.XacroException(f'xacro:include filename="{spec}": expected a file inside the robot '
                                           f"file's folder or a ROS package's (--package-path), got {got}")
            yield found

    def parse(inp, filename=None):
        if inp is None:  # a file xacro opens (the top file, an include): not a FIFO, a device or a huge file
            name = os.path.join(xacro.root_dir, filename)
            try:
                _check_read(Path(name), "")
            except UnsafeExpression as exc:
                raise xacro.XacroException(exc=exc) from None
            _stage(f"reading and parsing {name}")
        return saved_parse(inp, filename)

    saved_parse, saved_include_files = xacro.parse, xacro.get_include_files
    saved = (xacro.safe_eval, sa._eval, sa._eval_env, sa._eval_optenv)
    xacro.safe_eval, sa._eval, xacro.parse, xacro.get_include_files = safe_eval, eval_substitution, parse, include_files
    if not env:
        sa._eval_env = sa._eval_optenv = no_env
    try:
        yield
    finally:
        xacro.safe_eval, sa._eval, sa._eval_env, sa._eval_optenv = saved
        xacro.parse, xacro.get_include_files = saved_parse, saved_include_files


#: The largest file a xacro expansion reads (the robot file, an include, a YAML file): descriptions of real robots
#: are some kilobytes to a few hundred; a 50 MB comment kept the expansion busy until its time bound.
MAX_XACRO_FILE_BYTES = MAX_DESCRIPTION_BYTES
#: The longest expansion and attribute value (a name, a number list, a file name) that comes back: a real robot's
#: expansion is at most a few hundred kilobytes, a value some dozen characters (a file name up to PATH_MAX).
MAX_EXPANSION_CHARS = 32 * 2**20
MAX_ATTRIBUTE_CHARS = 4096


def _check_read(path: Path, what: str) -> None:
    """Refuse, before xacro opens it, a file that is not a regular file (a FIFO waited for a writer until the
    time bound) or is larger than :data:`MAX_XACRO_FILE_BYTES`."""
    import stat

    from thermocomp.io.job import file_kind

    try:
        st = path.stat()
    except OSError:
        return  # xacro's own message: the file is missing
    if not stat.S_ISREG(st.st_mode):
        raise UnsafeExpression(f"{what}expected a regular file, got {file_kind(st.st_mode)}: {path}")
    if st.st_size > MAX_XACRO_FILE_BYTES:
        raise UnsafeExpression(f"{what}expected a file of at most {MAX_XACRO_FILE_BYTES // 2**20} MiB (a robot "
                               f"description is far smaller), got {st.st_size / 2**20:.0f} MiB: {path}")


def _stage(text: str) -> None:
    """Say on standard error what the expansion does now: if it outlives its time bound, the parent names it."""
    if _STAGES:
        print(f"{_STAGE_MARK}{text[:300]}", file=sys.stderr, flush=True)


#: Whether :func:`_stage` reports (in the expansion's own process only).
_STAGES: list[bool] = []
_STAGE_MARK = "@xacro-stage "


#: Bounds of one xacro expansion, which runs in a process of its own (:mod:`thermocomp.io.xacro_child`): its
#: ``${...}`` expressions are Python evaluated by the xacro package, and ``${9**9**9}`` ran for ever in the
#: command's own process (an adversarial run of issue 9), where no signal can interrupt one big-integer power.
XACRO_TIME_S = 60.0
XACRO_MEMORY_BYTES = 4 * 2**30


def expand_xacro(path: Path, args: dict[str, str], packages: Mapping[str, Path],
                 search_path: tuple[Path, ...] = (), *, with_includes: bool = False, env: bool = False):
    """The URDF text of a xacro file (the ``xacro`` package's own expansion, ``xacro FILE name:=value``).

    With ``with_includes``: ``(text, included)``, ``included`` the files the
    expansion read besides ``path`` (included xacro files, loaded YAML). The
    expansion runs in a child process, at most :data:`XACRO_TIME_S` seconds
    and :data:`XACRO_MEMORY_BYTES` of memory, and its expressions are
    evaluated by :mod:`thermocomp.io.xacro_expressions`, never as Python
    (:func:`_xacro_sandbox`). With ``env`` the file may read environment
    variables.

    Raises
    ------
    InputError
        Naming the xacro file where the error is (an included one included)
        and, for malformed XML or an expression written in a file, its line:
        an expression outside the language robot descriptions use, YAML
        loaded from outside the robot's folders, ``$(env ...)`` without
        ``env``; or an expansion beyond the bounds.
    """
    import json
    import subprocess
    import sys

    request = json.dumps({"path": str(path), "args": dict(args), "packages": {k: str(v) for k, v in packages.items()},
                          "search_path": [str(p) for p in search_path], "env": env})
    try:
        done = subprocess.run([sys.executable, "-m", "thermocomp.io.xacro_child"], input=request, capture_output=True,
                              text=True, timeout=XACRO_TIME_S, preexec_fn=_bounded_memory)
    except subprocess.TimeoutExpired as exc:
        raise _timed_out(path, exc.stderr) from None
    try:
        reply = json.loads(done.stdout)
    except ValueError:
        lines = [line for line in done.stderr.strip().splitlines() if not line.startswith(_STAGE_MARK)]
        last = (lines or [f"exit status {done.returncode}"])[-1]
        raise InputError(f"xacro: the expansion failed: {last}", path=str(path)) from None
    if "error" in reply:
        raise InputError(**reply["error"])
    if with_includes:
        return reply["text"], tuple(Path(f) for f in reply["included"])
    return reply["text"]


def _timed_out(path: Path, stderr: str | bytes | None) -> InputError:
    """The time bound's message: what the expansion was doing (its last stage), with the file and line."""
    text = stderr.decode(errors="replace") if isinstance(stderr, bytes) else stderr or ""
    stages = [line[len(_STAGE_MARK):] for line in text.splitlines() if line.startswith(_STAGE_MARK)]
    where, row, doing = str(path), None, "starting"
    if stages:
        doing = stages[-1]
        expression = re.match(r"evaluating (\$\{.*\}|\$\(eval .*\))$", doing, re.S)
        if expression is not None:
            where, row = _line_of(expression.group(1), [str(path), *_included_files(stages)], where)
        elif doing.startswith("reading"):
            where = doing.split()[-2] if doing.endswith("(xacro.load_yaml)") else doing.split()[-1]
    return InputError(f"xacro: the expansion did not end within {XACRO_TIME_S:g} s: it was {doing}", path=where,
                      row=row)


def _included_files(stages: list[str]) -> list[str]:
    return [s.split()[-1] for s in stages if s.startswith("reading and parsing ")]


def _line_of(needle: str, files: list[str], default: str) -> tuple[str, int | None]:
    """The first file of ``files`` (the last read first) holding ``needle``, and the line: where an expression is."""
    for candidate in reversed(files):
        try:
            with open(candidate, encoding="utf-8", errors="replace") as handle:
                for k, line in enumerate(handle, 1):
                    if needle in line:
                        return candidate, k
        except OSError:
            continue
    return default, None


def _bounded_memory() -> None:
    import resource

    from thermocomp._workers import end_with_parent_process

    end_with_parent_process()  # a command killed hard does not leave its expansion running for up to a minute

    resource.setrlimit(resource.RLIMIT_AS, (XACRO_MEMORY_BYTES, XACRO_MEMORY_BYTES))


def expand_xacro_here(path: Path, args: dict[str, str], packages: Mapping[str, Path],
                      search_path: tuple[Path, ...] = (), *, with_includes: bool = False, env: bool = False):
    """:func:`expand_xacro` in this process, unbounded (:mod:`thermocomp.io.xacro_child` calls it).

    xacro reads the file by its resolved name; an error in the file itself names it as the user gave it (a
    link to ``/proc/self/status`` was named ``/proc/12345/status``, the expansion's process)."""
    top = str(path.resolve())
    try:
        return _expand_xacro_here(path, top, args, packages, search_path, with_includes=with_includes, env=env)
    except InputError as exc:
        if exc.path != top:
            raise
        raise InputError(exc.message.replace(top, str(path)), path=str(path), row=exc.row, column=exc.column) from None


def _expand_xacro_here(path: Path, top: str, args: dict[str, str], packages: Mapping[str, Path],
                       search_path: tuple[Path, ...], *, with_includes: bool, env: bool):
    try:
        import xacro
    except ImportError as exc:  # declared in pyproject; a broken install should still say what to do
        raise InputError("reading .xacro files needs the 'xacro' package: pip install xacro", path=str(path)) from exc

    # xacro keeps the files a run included in a module list that it never clears: start this run's afresh,
    # so that an error is searched for in this file's includes only.
    xacro.all_includes = []
    roots = (path.resolve().parent, *packages.values(), *search_path)
    mappings = _ArgsRead(args)
    with _xacro_finds(packages, search_path), _xacro_sandbox(roots, env):
        try:
            doc = xacro.process_file(top, mappings=mappings)
        except xml.parsers.expat.ExpatError as exc:
            where = (xacro.filestack or [top])[-1] or top
            raise InputError(f"xacro: expected well-formed XML, got: {xml.parsers.expat.ErrorString(exc.code)}",
                             path=where, row=exc.lineno) from exc
        except xacro.XacroException as exc:
            raise _located_xacro_error(exc, xacro, top) from exc
        except RecursionError as exc:  # a file that includes itself, a macro that calls itself: xacro recurses
            where = next((f for f in reversed(xacro.filestack or []) if f), top)
            raise InputError("xacro: expected an expansion that ends, got unbounded recursion (a file that "
                             "includes itself, or a macro that calls itself)", path=where) from exc
    unread = [name for name in args if name not in mappings.read]
    if unread:
        declared = sorted(n for n in mappings.read if n not in args)
        raise InputError(f"--xacro-arg {unread[0]}: the xacro file declares and reads no argument {unread[0]!r} "
                         f"({'its arguments: ' + ', '.join(declared) if declared else 'it has none'})", path=top)
    _check_expansion(doc, top)
    text = doc.toprettyxml(indent="  ")
    if len(text) > MAX_EXPANSION_CHARS:
        raise InputError(f"xacro: expected an expansion of at most {MAX_EXPANSION_CHARS // 2**20} Mi characters (a "
                         f"robot description is far smaller), got {len(text) / 2**20:.0f} Mi", path=top)
    if with_includes:
        return text, tuple(dict.fromkeys(Path(f) for f in xacro.all_includes))
    return text


class _ArgsRead(dict):
    """xacro's argument mapping (``--xacro-arg``) that notes every name the file looks up: the arguments it
    declares (``<xacro:arg>``) or reads (``$(arg NAME)``). A value given for a name it never looks up was a typing
    error that passed in silence."""

    def __init__(self, args: Mapping[str, str]) -> None:
        super().__init__(args)
        self.read: set[str] = set()

    def __contains__(self, name: object) -> bool:
        self.read.add(str(name))
        return super().__contains__(name)

    def __getitem__(self, name: str) -> str:
        self.read.add(str(name))
        return super().__getitem__(name)

    def get(self, name: str, default: object = None) -> object:
        self.read.add(str(name))
        return super().get(name, default)


def _check_expansion(doc, top: str) -> None:
    """Refuse an expansion with an attribute value longer than :data:`MAX_ATTRIBUTE_CHARS`, or more text than
    :data:`MAX_EXPANSION_CHARS` (before it is written out as text and sent back), naming the element."""
    total = 0
    for element in doc.getElementsByTagName("*"):
        for attribute, value in element.attributes.items():
            total += len(value)
            if len(value) > MAX_ATTRIBUTE_CHARS:
                name = element.getAttribute("name") if attribute != "name" else ""
                owner = f"<{element.tagName}{f' name={name[:40]!r}' if name else ''}>"
                raise InputError(f"xacro: expected attribute values of at most {MAX_ATTRIBUTE_CHARS:,} characters, "
                                 f"got {len(value):,} in the {attribute!r} of {owner} ({value[:40]!r}...)", path=top)
        for child in element.childNodes:
            total += len(getattr(child, "data", ""))
        if total > MAX_EXPANSION_CHARS:
            raise InputError(f"xacro: expected an expansion of at most {MAX_EXPANSION_CHARS // 2**20} Mi characters "
                             "(a robot description is far smaller), got more", path=top)


def _shown(text: str, limit: int = 80) -> str:
    """``text`` quoted for a message, cut to ``limit`` characters."""
    return repr(text if len(text) <= limit else text[:limit] + "...")


def _located_xacro_error(exc: Exception, xacro_module, top: str) -> InputError:
    """An :class:`InputError` for a xacro failure: the file being read, and the line of the expression."""
    inner: BaseException | None = exc
    while getattr(inner, "exc", None) is not None:
        inner = inner.exc  # type: ignore[union-attr]
    # Each property an expression reads adds its own clause: the cause comes first, then the innermost expression
    # (where the cause is), then every expression that read it; 30 of them buried the cause and the line.
    clauses = re.findall(r"\s*when evaluating expression '(.*?)'(?=\s*when evaluating expression '|\s*$)",
                         str(exc), re.S)
    if isinstance(inner, (_PackageNotFound, UnsafeExpression)):
        text = str(inner)
    else:
        text = " ".join(str(exc).split("when evaluating expression '", 1)[0].split()) if clauses else \
            " ".join(str(exc).split())
        if clauses:
            text += f" when evaluating expression {_shown(clauses[0])}"
        if isinstance(inner, KeyError) and "substitution argument" in text.lower():
            text += " (give it with --xacro-arg NAME:=VALUE)"
    if len(clauses) > 1:
        text += f" (read through {len(clauses) - 1} more expression(s), the outermost {_shown(clauses[-1])})"
    stack = [f for f in (xacro_module.filestack or []) if f] or [top]
    where, row = stack[-1], None
    needle = "${" + clauses[0] + "}" if clauses else None
    if needle is None:
        arg = re.search(r'filename="[^"]*"|\$\(eval .*\)$|\$\((find|arg) [^)]*\)', text)
        needle = arg.group(0) if arg else None
    if needle is None and isinstance(inner, _PackageNotFound):
        name = re.search(r"\$\(find (\S+)\)", text)
        needle = f"$(find {name.group(1)})" if name else None
    if needle is not None:
        for candidate in [*reversed(stack), *xacro_module.all_includes]:
            try:
                lines = Path(candidate).read_text(encoding="utf-8", errors="replace").splitlines()
            except OSError:
                continue
            hit = next((k for k, line in enumerate(lines, 1) if needle in line), None)
            if hit is not None:
                where, row = candidate, hit
                break
    return InputError(f"xacro: {text}", path=where, row=row)


__all__ = [
    "CONTROLLER_BASE_LINK",
    "MAX_PACKAGE_DEPTH",
    "MAX_PACKAGE_FOLDERS",
    "ROBOT_FILE_SUFFIXES",
    "RobotDescription",
    "RobotFileOptions",
    "controller_base_beside",
    "expand_xacro",
    "expand_xacro_here",
    "find_packages",
    "load_robot_file",
    "package_name",
    "read_robot_description",
    "robot_file_inputs",
    "xacro_arg",
]
