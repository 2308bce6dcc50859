"""``thermocomp collisions``: torque-error collision detection on a recording (seed 003).

One library call: :func:`thermocomp.app.dynamics.run_collisions`. Exit
status 0 when nothing is flagged, 2 when a collision is.
"""

from __future__ import annotations

import argparse

from thermocomp.cli.common import (
    EXIT_FAILED_ROWS,
    EXIT_OK,
    HelpFormatter,
    add_robot_file_arguments,
    per_joint_values,
    robot_file_options,
)


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``collisions`` subcommand."""
    cmd = sub.add_parser(
        "collisions",
        description="Measured minus predicted joint torque, smoothed as softMC's TorqueErrorFilter, above "
                    "TorqueErrorMax per joint. Exit status 2 when a collision is flagged. See docs/dynamics.md.",
        formatter_class=HelpFormatter,
    )
    cmd.add_argument("--robot", required=True, help="robot file (.urdf or .xacro) with the identified inertials")
    add_robot_file_arguments(cmd)
    cmd.add_argument("--friction", help="friction CSV; default none")
    cmd.add_argument("--recording", required=True, help="recording CSV (time_s, q<i>_rad, tau<i>_Nm)")
    cmd.add_argument("--threshold-nm", type=per_joint_values, required=True, help="TorqueErrorMax [N m], one or one per joint")
    cmd.add_argument("--filter", type=float, default=1.0, help="TorqueErrorFilter in (0, 1]")
    cmd.add_argument("--min-speed-rad-s", type=float, default=0.0, help="do not check a joint slower than this")
    cmd.add_argument("--out", help="CSV of the flagged samples")
    cmd.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from thermocomp.app.dynamics import run_collisions
    from thermocomp.dynamics.collision import CollisionOptions

    options = CollisionOptions(threshold=args.threshold_nm, filter_coefficient=args.filter,
                               min_speed=args.min_speed_rad_s)
    text = run_collisions(args.robot, args.recording, options, friction=args.friction, out=args.out,
                          robot_options=robot_file_options(args))
    print(text, end="")
    return EXIT_OK if "flagged, first at" not in text.splitlines()[0] else EXIT_FAILED_ROWS
