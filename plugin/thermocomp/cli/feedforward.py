"""``thermocomp feedforward``: feed-forward joint torques of a trajectory with an identified model (seed 003).

One library call: :func:`thermocomp.app.dynamics.run_feedforward`.
"""

from __future__ import annotations

import argparse

from thermocomp.cli.common import EXIT_OK, HelpFormatter, add_robot_file_arguments, robot_file_options


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``feedforward`` subcommand."""
    cmd = sub.add_parser(
        "feedforward",
        description="softMC's additive torque command: the rigid-body torques of the URDF's inertials plus friction "
                    "along a trajectory (time_s, q<i>_rad[, qd<i>_rad_s, qdd<i>_rad_s2]; speeds and accelerations "
                    "by central differences when absent). See docs/dynamics.md.",
        formatter_class=HelpFormatter,
    )
    cmd.add_argument("--robot", required=True, help="robot file (.urdf or .xacro) with the identified inertials "
                                                   "(thermocomp identify --urdf-out)")
    add_robot_file_arguments(cmd)
    cmd.add_argument("--friction", help="friction CSV (thermocomp identify --friction-out); default none")
    cmd.add_argument("--trajectory", required=True, help="trajectory CSV")
    cmd.add_argument("--out", required=True, help="CSV to write: time_s, q<i>_rad, tau<i>_Nm, qd<i>_rad_s, qdd<i>_rad_s2")
    cmd.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from thermocomp.app.dynamics import run_feedforward

    result = run_feedforward(args.robot, args.trajectory, args.out, friction=args.friction,
                             robot_options=robot_file_options(args))
    print(f"wrote {args.out}: feed-forward torques of {result.n_samples} samples")
    return EXIT_OK
