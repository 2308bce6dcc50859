"""What every subcommand shares: exit statuses, the parser classes (:mod:`thermocomp.cli.parser`) and the program
and solver options.

The defaults of the solver and time-law options are those of the option
classes (:class:`~thermocomp.kinematics.ik.IKOptions`,
:class:`~thermocomp.compensation.compensate.CompensationOptions`,
:class:`~thermocomp.deformation.timelaw.LinearRamp`), so the command line
and the library cannot drift apart.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass

import numpy as np

from thermocomp._typing import FloatArray
from thermocomp.cli.exit_status import (  # noqa: F401 (every command takes them from here)
    EXIT_FAILED_ROWS,
    EXIT_INPUT,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
)
from thermocomp.cli.parser import ArgumentParser, HelpFormatter, plain_number, seed_arg  # noqa: F401 (as the statuses)
from thermocomp.compensation.compensate import CompensationOptions
from thermocomp.deformation.timelaw import LinearRamp, Static, TimeLaw
from thermocomp.io.robots import BUILTIN_NAMES
from thermocomp.kinematics.ik import IKOptions


def per_joint_values(text: str) -> tuple[float, ...]:
    """An option's value: one number, or a comma list with one per joint (plain ASCII numbers, as every option)."""
    try:
        return tuple(plain_number(x, float) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected one number or a comma list (one per joint), got {text!r}") from None


def minutes_arg(text: str) -> tuple[float, ...]:
    """``START:STOP[:STEP]`` (inclusive) or a comma list, in minutes."""
    from thermocomp.compensation.compensate import MAX_MINUTES
    from thermocomp.io.csvtext import number_text

    try:
        if not number_text(text):
            raise ValueError
        parts = [float(x) for x in text.split(":" if ":" in text else ",")]
        if not all(np.isfinite(parts)):
            raise ValueError
        if ":" in text:
            if len(parts) not in (2, 3) or (len(parts) == 3 and parts[2] <= 0):
                raise ValueError
            start, stop = parts[0], parts[1]
            step = parts[2] if len(parts) == 3 else 1.0
            count = int(np.floor((stop - start) / step + 1e-9)) + 1
            if count < 1:
                raise ValueError
            if count > MAX_MINUTES:
                raise argparse.ArgumentTypeError(f"expected at most {MAX_MINUTES:,} minutes, got {count:,} from {text!r}")
            return tuple(float(start + k * step) for k in range(count))
        if len(parts) > MAX_MINUTES:
            raise argparse.ArgumentTypeError(f"expected at most {MAX_MINUTES:,} minutes, got {len(parts):,}")
        return tuple(parts)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected START:STOP[:STEP] or a comma list of finite minutes, got {text!r}"
        ) from None


def time_law_arg(text: str) -> str:
    """``from:PATH``: the path of a time-law file (or of the table it sits beside)."""
    if not text.startswith("from:") or len(text) == len("from:"):
        raise argparse.ArgumentTypeError(f"expected from:FILE (a table CSV or its .law.toml), got {text!r}")
    return text[len("from:"):]


def add_program_arguments(parser: argparse.ArgumentParser, verb: str = "solved", targets_required: bool = True) -> None:
    """The options that name a program and its deformation, shared by ``compensate`` and ``sim``.

    ``--deformation``, ``--targets``, the time law (``--stabilisation-min`` or
    ``--static``), ``--minutes``, ``--orientation-euler-xyz-deg`` and
    ``--composition``; ``verb`` says what happens to each target at a minute;
    ``targets_required=False`` when a command takes its targets another way too
    (``compensate --program``).
    """
    parser.add_argument("--deformation", required=True,
                        help="deformation table CSV: Dx,Dy,Dz [mm], Dox,Doy,Doz [deg], one row per joint "
                             "(optional 'row' column naming base, 1..n, tool)")
    parser.add_argument("--targets", required=targets_required,
                        help="targets CSV in the world frame: the paper's ',X,Y,Z,RX,RY,RZ' (mm, CoppeliaSim Euler "
                             "xyz deg) or the self-describing form (x_mm.., euler_xyz_*_deg | quat_w.. | "
                             "rotvec_*_rad, time_min, q1_deg..)")
    law = parser.add_mutually_exclusive_group()
    law.add_argument("--stabilisation-min", type=float, default=LinearRamp().stabilisation_min,
                     help="minutes until thermal stabilisation: the table grows linearly from 0 to full by then")
    law.add_argument("--static", action="store_true",
                     help="apply the full table at every minute (the paper's static case)")
    law.add_argument("--time-law", type=time_law_arg, metavar="from:FILE",
                     help="the time law fitted by 'thermocomp calibrate': from:table.csv reads table.law.toml beside "
                          "it (or from:FILE.law.toml); docs/calibration.md")
    parser.add_argument("--minutes", type=minutes_arg, default=None,
                        help=f"minutes at which every target is {verb}, START:STOP[:STEP] inclusive or a list "
                             "(default 0:200, or 0 with --static); ignored when the targets have time_min")
    parser.add_argument("--orientation-euler-xyz-deg", type=float, nargs=3, metavar=("A", "B", "C"),
                        help="orientation for position-only targets, CoppeliaSim Euler xyz [deg] (R = Rx Ry Rz), "
                             "e.g. 0 90 0 for the IRB140 tool pointing along +X")
    parser.add_argument("--composition", choices=("table", "eq21"), default="table",
                        help="how a deformation row composes with the nominal segment: 'table' translates by p + D "
                             "then rotates (seed 002, Tables 6-7); 'eq21' rotates the segment with the deviation "
                             "(seed 002, Eq. 21). See docs/conventions.md")


#: What ``--robot`` (or a command's robot argument) takes, for help texts.
ROBOT_HELP = (f"built-in robot ({', '.join(BUILTIN_NAMES)}) or a robot file: table-form .csv, "
              ".urdf or .xacro")


def add_robot_file_arguments(parser: argparse.ArgumentParser) -> None:
    """``--base-link``, ``--tip-link``, ``--xacro-arg``, ``--xacro-allow-env``, ``--package-path``: how a robot file is read.

    :func:`robot_file_options` turns them into
    :class:`~thermocomp.io.robot_files.RobotFileOptions` (docs/robot_files.md).
    """
    group = parser.add_argument_group("robot files (.urdf, .xacro)", "how a URDF or xacro robot file is read "
                                      "(docs/robot_files.md)")
    group.add_argument("--base-link", metavar="LINK",
                       help="URDF link that is the robot's base frame (default: the root link; e.g. 'base' for a "
                            "ROS-Industrial UR: the controller's base frame)")
    group.add_argument("--tip-link", metavar="LINK",
                       help="URDF link that is the TCP (default: the only leaf link with joints above it, e.g. "
                            "tool0 of a ROS-Industrial description; several leaves are listed)")
    group.add_argument("--xacro-arg", action="append", default=[], metavar="NAME:=VALUE",
                       help="argument of a .xacro robot file (repeatable)")
    group.add_argument("--xacro-allow-env", action="store_true",
                       help="let a .xacro file read environment variables ($(env NAME), $(optenv NAME)); off by "
                            "default, so that a robot file expands the same for everyone")
    group.add_argument("--package-path", action="append", default=[], metavar="DIR",
                       help="folder holding ROS packages for $(find NAME) and package://NAME/ (repeatable; searched "
                            "before ROS_PACKAGE_PATH; a package is named by its package.xml)")


def robot_file_options(args: argparse.Namespace):
    """:class:`~thermocomp.io.robot_files.RobotFileOptions` of :func:`add_robot_file_arguments`' options."""
    from thermocomp.io.robot_files import RobotFileOptions, xacro_arg

    return RobotFileOptions(base_link=getattr(args, "base_link", None), tip_link=getattr(args, "tip_link", None),
                            xacro_args=tuple(xacro_arg(a) for a in getattr(args, "xacro_arg", None) or ()),
                            package_paths=tuple(getattr(args, "package_path", None) or ()),
                            xacro_env=bool(getattr(args, "xacro_allow_env", False)))


def add_solver_arguments(parser: argparse.ArgumentParser) -> None:
    """``--position-tol-mm``, ``--orientation-tol-deg``, ``--starts`` and ``--seed``, defaults from the option classes.

    :func:`solver_options` turns them into :class:`CompensationOptions` fields.
    """
    ik, comp = IKOptions(), CompensationOptions()
    # Divided by metres per mm (not times 1e3): 1e-06 mm exactly, and back to 1e-09 m exactly.
    parser.add_argument("--position-tol-mm", type=float, default=ik.position_tol / 1e-3,
                        help="IK convergence on position [mm]")
    parser.add_argument("--orientation-tol-deg", type=float, default=float(np.degrees(ik.orientation_tol)),
                        help="IK convergence on orientation [deg]")
    parser.add_argument("--starts", type=int, default=comp.starts,
                        help="multi-start count of the nominal configuration search")
    parser.add_argument("--seed", type=seed_arg, default=comp.seed, help="seed of the multi-start spread")


def add_progress_argument(parser: argparse.ArgumentParser,
                          help: str = "show a progress bar on stderr (default: when stderr is a terminal)") -> None:
    """``--progress`` / ``--no-progress``; unset, :func:`program_settings` shows progress when stderr is a terminal."""
    parser.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None, help=help)


def show_progress(args: argparse.Namespace) -> bool:
    """Whether to draw progress bars: ``--progress`` / ``--no-progress`` (:func:`add_progress_argument`), else
    whether stderr is a terminal."""
    progress = getattr(args, "progress", None)
    return sys.stderr.isatty() if progress is None else bool(progress)


def solver_options(args: argparse.Namespace) -> dict:
    """:class:`CompensationOptions` fields ``ik``, ``starts``, ``seed`` from :func:`add_solver_arguments`' options (SI)."""
    return {"ik": IKOptions(position_tol=args.position_tol_mm * 1e-3,
                            orientation_tol=float(np.radians(args.orientation_tol_deg))),
            "starts": args.starts, "seed": args.seed}


@dataclass(frozen=True, eq=False)
class ProgramSettings:
    """What the program options of a command mean (:func:`program_settings`).

    Attributes
    ----------
    time_law
        :class:`Static` with ``--static``, the law read from ``--time-law from:FILE``,
        else :class:`LinearRamp` of ``--stabilisation-min``.
    minutes
        ``--minutes``, else 0 with ``--static``, else the default minutes of
        :class:`CompensationOptions` (0 .. 200) [min].
    fixed_orientation
        ``R_world_tcp`` ``(3, 3)`` of ``--orientation-euler-xyz-deg``, or ``None``.
    progress
        Whether to show progress bars: ``--progress`` / ``--no-progress``,
        else whether stderr is a terminal.
    time_law_file
        The law file of ``--time-law from:FILE`` (an input of the run), or None.
    """

    time_law: TimeLaw
    minutes: tuple[float, ...]
    fixed_orientation: FloatArray | None
    progress: bool
    time_law_file: str | None = None


def program_settings(args: argparse.Namespace) -> ProgramSettings:
    """The time law, minutes, fixed orientation and progress decision of a command's parsed options.

    Reads ``static``, ``stabilisation_min``, ``minutes``,
    ``orientation_euler_xyz_deg`` and ``progress`` (each optional on
    ``args``; a missing one takes its default).
    """
    from thermocomp.geometry.rotations import matrix_from_euler_xyz

    static = bool(getattr(args, "static", False))
    time_law: TimeLaw = Static() if static else LinearRamp(getattr(args, "stabilisation_min",
                                                                   LinearRamp().stabilisation_min))
    time_law_file = None
    if getattr(args, "time_law", None) is not None:  # --time-law from:FILE (calibrate's fitted law)
        from thermocomp.io.timelaw_file import read_time_law, time_law_path
        time_law = read_time_law(args.time_law)
        time_law_file = str(time_law_path(args.time_law))
        static = isinstance(time_law, Static)
    minutes = getattr(args, "minutes", None)
    if minutes is None:
        minutes = (0.0,) if static else CompensationOptions().minutes
    euler = getattr(args, "orientation_euler_xyz_deg", None)
    fixed = None if euler is None else matrix_from_euler_xyz(np.radians(euler))
    return ProgramSettings(time_law=time_law, minutes=tuple(minutes), fixed_orientation=fixed,
                           progress=show_progress(args), time_law_file=time_law_file)
