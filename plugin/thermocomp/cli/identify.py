"""``thermocomp identify``: inertial and friction parameters from a recording, with a softMC-style report.

One library call: :func:`thermocomp.dynamics.campaign.run_identify`. Exit
status 0 when the identification succeeds, 2 when it fails (the outputs are
written either way and the report names the causes), 1 on bad input.
"""

from __future__ import annotations

import argparse

from thermocomp.cli.common import EXIT_FAILED_ROWS, EXIT_OK, HelpFormatter
from thermocomp.dynamics.identify import IdentifyOptions


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``identify`` subcommand."""
    cmd = sub.add_parser(
        "identify", help="identify link inertials and joint friction from recorded torques (seeds 001, 003)",
        description="Base parameters by weighted least squares, physically consistent link inertials (written into "
                    "the input URDF), Coulomb and viscous friction, and softMC's success report: per axis the "
                    "maximum and mean relative torque error, success below 50 %%, with the failure causes found "
                    "(too slow, too short, too small a region, overlapping frequencies, saturated torques). Exit "
                    "status 2 when the identification fails. See docs/dynamics.md.",
        formatter_class=HelpFormatter,
    )
    cmd.add_argument("--robot", required=True, help="URDF with the reference (CAD) inertials, e.g. from thermocomp inertia")
    cmd.add_argument("--recording", required=True,
                     help="recording CSV: time_s, q<i>_rad, tau<i>_Nm (optional qd<i>_rad_s, qdd<i>_rad_s2)")
    cmd.add_argument("--urdf-out", help="the input URDF with the identified inertials")
    cmd.add_argument("--friction-out", help="friction CSV of the identified Coulomb and viscous friction")
    cmd.add_argument("--report", help="identification report to write (it is printed either way)")
    cmd.add_argument("--validate", help="a second recording on which the identified model is checked")
    cmd.add_argument("--cutoff-hz", type=float,
                     help="low-pass cutoff [Hz] (default: ten times the highest motion frequency, within the "
                          "sampling rate and the drive bandwidth)")
    cmd.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from thermocomp.dynamics.campaign import run_identify

    result = run_identify(args.robot, args.recording, urdf_out=args.urdf_out, friction_out=args.friction_out,
                          report=args.report, validate=args.validate, options=IdentifyOptions(cutoff=args.cutoff_hz))
    print(result.text, end="")
    written = [p for p in (args.urdf_out, args.friction_out, args.report) if p]
    if written:
        print("wrote " + ", ".join(written))
    return EXIT_OK if result.success else EXIT_FAILED_ROWS
