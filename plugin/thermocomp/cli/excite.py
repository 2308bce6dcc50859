"""``thermocomp excite``: an excitation trajectory for dynamic identification (seed 003).

One library call: :func:`thermocomp.app.dynamics.run_excite`.
"""

from __future__ import annotations

import argparse

from thermocomp.cli.common import (
    EXIT_OK,
    ROBOT_HELP,
    HelpFormatter,
    add_robot_file_arguments,
    per_joint_values,
    robot_file_options,
    seed_arg,
)
from thermocomp.dynamics.excitation import ExcitationOptions


def _frequencies(text: str) -> tuple[float, ...]:
    """A comma list of plain finite numbers (``float`` alone read nan, inf, ``1_0`` and other scripts' digits)."""
    try:
        return per_joint_values(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"expected a comma list of plain finite numbers, got {text!r}") from None


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``excite`` subcommand."""
    defaults = ExcitationOptions()
    cmd = sub.add_parser(
        "excite",
        description="One sine wave per joint with amplitudes near the joint ranges, peak speeds near the joint "
                    "speed limits and frequencies whose motion does not repeat within the recording (seed 003); "
                    "a bad frequency set is refused with its cause. Writes the trajectory (time_s, q<i>_rad, "
                    "qd<i>_rad_s, qdd<i>_rad_s2) and a report. See docs/dynamics.md.",
        formatter_class=HelpFormatter,
    )
    cmd.add_argument("--robot", required=True, help=ROBOT_HELP)
    cmd.add_argument("--duration-s", type=float, default=defaults.duration, help="recording duration [s]")
    cmd.add_argument("--rate-hz", type=float, default=100.0, help="sampling rate of the written trajectory [Hz]")
    cmd.add_argument("--range-fraction", type=float, default=defaults.range_fraction,
                     help="amplitude as a fraction of half of each joint's range")
    cmd.add_argument("--speed-fraction", type=float, default=defaults.speed_fraction,
                     help="peak speed as a fraction of each joint's speed limit")
    cmd.add_argument("--frequencies-hz", type=_frequencies, metavar="F1,F2,..",
                     help="use these frequencies (one per joint) instead of designing them; a bad set is refused")
    cmd.add_argument("--experiment", choices=("sine", "static", "constant-speed"), default="sine",
                     help="sine: the excitation (seed 003); static: poses for seed 000 Step 2's explicit formulas "
                          "(--robot a URDF with CAD inertials or a built-in robot); constant-speed: symmetric runs of "
                          "each joint for Step 3")
    cmd.add_argument("--pose-deg", type=_frequencies, metavar="Q1,..",
                     help="constant-speed: the pose the joints sweep about [deg] (default: zero within the limits)")
    cmd.add_argument("--speeds-deg-s", type=_frequencies, metavar="V1,..",
                     help="constant-speed: the speeds [deg/s] (default 0.5, 1, 2, 5, 10, 20, 40)")
    cmd.add_argument("--span-deg", type=float, help="constant-speed: the sweep [deg] (default 60)")
    cmd.add_argument("--hold-s", type=float, default=10.0, help="static: how long each pose is held [s]")
    cmd.add_argument("--seed", type=seed_arg, default=0, help="static: seed of the candidate poses searched")
    cmd.add_argument("--out", required=True, help="trajectory CSV to write")
    cmd.add_argument("--report", help="text report to write (it is printed either way)")
    add_robot_file_arguments(cmd)
    cmd.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import math

    from thermocomp.app.dynamics import ExperimentJob, run_excite, run_experiment
    from thermocomp.io.robots import load_robot

    if args.experiment != "sine":
        def pose_check(chain):
            from thermocomp.simulators.pybullet.poses import PoseCheck

            return PoseCheck(chain, robot=args.robot, robot_options=robot_file_options(args))

        text = run_experiment(ExperimentJob(args.robot, args.experiment, args.out, rate=args.rate_hz, report=args.report,
            pose=tuple(math.radians(a) for a in args.pose_deg) if args.pose_deg else None,
            speeds=tuple(math.radians(v) for v in args.speeds_deg_s) if args.speeds_deg_s else None,
            span=math.radians(args.span_deg) if args.span_deg else None, hold=args.hold_s, seed=args.seed,
            robot_options=robot_file_options(args)), pose_check=pose_check)
        print(text, end="")
        print(f"wrote {args.out}" + (f" and {args.report}" if args.report else ""))
        return EXIT_OK

    chain = load_robot(args.robot, robot_file_options(args))
    options = ExcitationOptions(duration=args.duration_s, range_fraction=args.range_fraction,
                                speed_fraction=args.speed_fraction, frequencies=args.frequencies_hz or ())
    _, text = run_excite(chain, options, args.rate_hz, args.out, args.report, inputs=(args.robot,))
    print(text, end="")
    print(f"wrote {args.out}" + (f" and {args.report}" if args.report else ""))
    return EXIT_OK
