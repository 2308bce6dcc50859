"""What every subcommand shares: exit statuses and the help formatter."""

from __future__ import annotations

import argparse

import numpy as np

EXIT_OK, EXIT_INPUT, EXIT_FAILED_ROWS, EXIT_INTERRUPTED = 0, 1, 2, 130


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Append ``(default: ...)`` only where it says something.

    Not for required options, for defaults of ``None``, ``False`` or an empty
    list (flags and unset options), nor where the help text already names its
    default in words.
    """

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if action.required or action.default in (None, False, [], argparse.SUPPRESS) or "default" in text:
            return text
        return super()._get_help_string(action)


def minutes_arg(text: str) -> tuple[float, ...]:
    """``START:STOP[:STEP]`` (inclusive) or a comma list, in minutes."""
    try:
        if ":" in text:
            parts = [float(x) for x in text.split(":")]
            if len(parts) not in (2, 3) or (len(parts) == 3 and parts[2] <= 0):
                raise ValueError
            start, stop = parts[0], parts[1]
            step = parts[2] if len(parts) == 3 else 1.0
            count = int(np.floor((stop - start) / step + 1e-9)) + 1
            if count < 1:
                raise ValueError
            return tuple(float(start + k * step) for k in range(count))
        return tuple(float(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected START:STOP[:STEP] or a comma list of minutes, got {text!r}"
        ) from None


def add_program_arguments(parser: argparse.ArgumentParser, verb: str = "solved") -> None:
    """The options that name a program and its deformation, shared by ``compensate`` and ``sim``.

    ``--deformation``, ``--targets``, the time law (``--stabilisation-min`` or
    ``--static``), ``--minutes``, ``--orientation-euler-xyz-deg`` and
    ``--composition``; ``verb`` says what happens to each target at a minute.
    """
    parser.add_argument("--deformation", required=True,
                        help="deformation table CSV: Dx,Dy,Dz [mm], Dox,Doy,Doz [deg], one row per joint "
                             "(optional 'row' column naming base, 1..n, tool)")
    parser.add_argument("--targets", required=True,
                        help="targets CSV in the world frame: the paper's ',X,Y,Z,RX,RY,RZ' (mm, CoppeliaSim Euler "
                             "xyz deg) or the self-describing form (x_mm.., euler_xyz_*_deg | quat_w.. | "
                             "rotvec_*_rad, time_min, q1_deg..)")
    law = parser.add_mutually_exclusive_group()
    law.add_argument("--stabilisation-min", type=float, default=200.0,
                     help="minutes until thermal stabilisation: the table grows linearly from 0 to full by then")
    law.add_argument("--static", action="store_true",
                     help="apply the full table at every minute (the paper's static case)")
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

