"""``thermocomp track``: PyBullet as a laser tracker: a measurement campaign, or a compensated program measured again."""

from __future__ import annotations

import argparse

from thermocomp.cli.common import (
    EXIT_OK,
    ROBOT_HELP,
    HelpFormatter,
    add_robot_file_arguments,
    minutes_arg,
    robot_file_options,
    seed_arg,
    time_law_arg,
)


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``track`` subcommand."""
    tr = sub.add_parser(
        "track",
        description=(
            "PyBullet (headless, its own kinematics) measures the TCP of the robot deformed by --deformation under "
            "its time law: either a campaign of random poses at --minutes (the input of thermocomp calibrate), or "
            "every converged row of a compensated program (--results, from thermocomp compensate) to see how close "
            "the warm robot gets to the targets. Writes a measurements CSV (time_min, q1_deg.., x_mm..). "
            "See docs/calibration.md."
        ),
        formatter_class=HelpFormatter,
    )
    tr.add_argument("--robot", default="irb140", help=ROBOT_HELP)
    add_robot_file_arguments(tr)
    tr.add_argument("--deformation", required=True, help="the (hidden, true) deformation table CSV")
    law = tr.add_mutually_exclusive_group()
    law.add_argument("--stabilisation-min", type=float, default=200.0,
                     help="linear ramp to the full table at this minute")
    law.add_argument("--static", action="store_true", help="the full table at every minute")
    law.add_argument("--time-law", type=time_law_arg, metavar="from:FILE", help="a law file (TABLE.law.toml)")
    tr.add_argument("--out", required=True, help="measurements CSV to write")
    tr.add_argument("--results", metavar="CSV", help="measure these compensated rows (thermocomp compensate --out) "
                    "instead of a campaign")
    tr.add_argument("--poses", type=int, default=30, help="campaign: random configurations within 80%% of the limits")
    tr.add_argument("--per-minute", type=int, default=None, help="campaign: poses measured at each minute "
                    "(default: all)")
    tr.add_argument("--minutes", type=minutes_arg, default=(200.0,), help="campaign: minutes of the measurements, "
                    "START:STOP[:STEP] or a list")
    tr.add_argument("--noise-mm", type=float, default=0.0, help="tracker noise, standard deviation per coordinate [mm]")
    tr.add_argument("--orientation-noise-deg", type=float, default=None,
                    help="campaign: measure orientation too, with this noise [deg]")
    tr.add_argument("--tracker-pose", type=float, nargs=6, metavar=("X_MM", "Y_MM", "Z_MM", "A_DEG", "B_DEG", "C_DEG"),
                    help="campaign: where the tracker is, T_tracker_world (CoppeliaSim Euler xyz); default the world")
    tr.add_argument("--seed", type=seed_arg, default=0, help="seed of the poses and the noise")
    tr.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from thermocomp.app.track import TrackJob, run_track
    from thermocomp.deformation.timelaw import LinearRamp, Static

    law = None if args.time_law is not None else Static() if args.static else LinearRamp(args.stabilisation_min)
    job = TrackJob(args.robot, args.deformation, args.out, law, law_file=args.time_law, results=args.results,
                   poses=args.poses, minutes=args.minutes, per_minute=args.per_minute, noise_mm=args.noise_mm,
                   orientation_noise_deg=args.orientation_noise_deg,
                   tracker_pose_mm_deg=None if args.tracker_pose is None else tuple(args.tracker_pose),
                   seed=args.seed, robot_options=robot_file_options(args))
    result = run_track(job)
    print(result.text())
    return EXIT_OK
