"""``thermocomp servo``: the velocity-servo UR5 of seed 004: identification program, identification, tracking."""

from __future__ import annotations

import argparse

from thermocomp.cli.exit_status import EXIT_FAILED_ROWS, EXIT_OK
from thermocomp.cli.parser import HelpFormatter, seed_arg

#: ``--rate-hz`` of the identification experiment (``excite``, ``identify``): the bound of
#: ``thermocomp.app.servo.RATE_HZ_RANGE`` (not imported, so that ``--help`` loads no library).
EXPERIMENT_RATE_HELP = ("servo rate [Hz], 1 to 500: UR's controllers run at 125 (CB-series; seed 004) or 500 "
                        "(e-Series); the experiment is 46 s of each joint, 34,500 samples at 125 Hz")


def _servo_arguments(parser: argparse.ArgumentParser, rate_help: str) -> None:
    parser.add_argument("--rate-hz", type=float, default=125.0, help=rate_help)
    parser.add_argument("--delay-samples", type=int, default=4, help="simulated servo: pure delay [samples] (seed 004: 4)")
    parser.add_argument("--bandwidth-rad-s", type=float, default=10.0,
                        help="simulated servo: natural frequency of each joint's velocity loop [rad/s]")
    parser.add_argument("--damping", type=float, default=0.7, help="simulated servo: damping of the velocity loop")
    parser.add_argument("--payload-kg", type=float, default=0.0,
                        help="simulated servo: a mass at the TCP the drives do not compensate [kg]")
    parser.add_argument("--missed-command-probability", type=float, default=0.02,
                        help="simulated servo, tracking: probability that a sample's command misses the robot's "
                             "cycle and the joint gets speed 0 for it (seed 004, Section 8-2; docs/printing.md)")
    parser.add_argument("--seed", type=seed_arg, default=0, help="seed of the simulated servo's noise")


def _servo_options(args: argparse.Namespace):
    from thermocomp.printing.servo_sim import ServoOptions

    return ServoOptions(rate_hz=args.rate_hz, delay_samples=args.delay_samples, bandwidth_rad_s=args.bandwidth_rad_s,
                        damping=args.damping, payload_kg=args.payload_kg,
                        missed_command_probability=args.missed_command_probability)


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``servo`` subcommand and its ``excite``, ``identify`` and ``track``."""
    from thermocomp.cli.common import add_progress_argument, time_law_arg

    servo = sub.add_parser(
        "servo",
        description=(
            "The UR5 of seed 004 commanded by joint speeds at 125 Hz, answering late: 'excite' writes the "
            "identification experiment as a URScript program, 'identify' identifies each joint's servo (simulated "
            "in PyBullet, or from UR's RTDE recording of that program), 'track' tracks a print path with the "
            "thesis's MPC (IIO or IO form), a PID or no controller on the simulated servo. See docs/printing.md."
        ),
        formatter_class=HelpFormatter,
    )
    actions = servo.add_subparsers(dest="servo_command", required=True, metavar="ACTION")

    ex = actions.add_parser("excite", help="write the identification experiment as a URScript program (speedj)",
                            description="Write the multi-sine identification experiment (22 sines, 0-3 Hz, a step "
                                        "for the delay; seed 004, Section 4-3) as a URScript program that sends "
                                        "speedj at the servo rate from a start pose, within the joint limits. Run it "
                                        "on the robot with UR's RTDE logger recording (docs/printing.md), then "
                                        "'servo identify --recording'.",
                            formatter_class=HelpFormatter)
    ex.add_argument("--robot", default="ur5", help="built-in robot")
    ex.add_argument("--out", required=True, help="URScript program to write (.script)")
    ex.add_argument("--rate-hz", type=float, default=125.0, help=EXPERIMENT_RATE_HELP)
    ex.add_argument("--start-deg", type=float, nargs="+", metavar="Q_DEG",
                    help="start pose [deg], one angle per joint (default: the lines' start pose, docs/printing.md)")
    ex.set_defaults(handler=run_excite)

    ide = actions.add_parser("identify", help="identify each joint's servo: delay, subspace models, VAF tables",
                             description="Excite each joint with the multi-sine (simulated servo, or --recording: UR's "
                                         "RTDE recording of 'servo excite'), estimate the delay from the step, identify "
                                         "each joint's state-space model by PO-MOESP at orders 2 to 10, print the VAF "
                                         "per joint and order (Table 4-1) and the chosen order (Table 4-2), write the "
                                         "models and the delay. Exit 2 when a chosen model's VAF is below 95 %.",
                             formatter_class=HelpFormatter)
    ide.add_argument("--robot", default="ur5", help="built-in robot")
    ide.add_argument("--out", required=True, help="models file to write (TOML)")
    ide.add_argument("--report", help="the tables as text")
    ide.add_argument("--recording", metavar="CSV", help="RTDE recording (timestamp, target_qd_0.., actual_q_0.., "
                                                        "actual_qd_0..) instead of the simulated servo")
    _servo_arguments(ide, EXPERIMENT_RATE_HELP + " (the simulated servo: some 1 ms of CPU each)")
    add_progress_argument(ide, help="show a progress bar of the experiment's samples simulated and the models "
                                    "identified on stderr (default: when stderr is a terminal)")
    ide.set_defaults(handler=run_identify)

    tr = actions.add_parser("track", help="track a print path on the simulated servo; print error per controller",
                            description="Track a print path on the simulated servo with the identified models: "
                                        "line:x|line:y|line:z (200 mm along the axis turning 0.125 pi about x, seed 004 "
                                        "Section 6-4) or a targets CSV, at each speed, with each controller, --runs "
                                        "times. Writes results.csv (controller, speed_mm_s, path, erms_um, sigma_um, "
                                        "runs, reference). With --deformation the robot is warm: each row twice, with "
                                        "joint references from the nominal and from the compensated IK.",
                            formatter_class=HelpFormatter)
    tr.add_argument("--robot", default="ur5", help="built-in robot")
    tr.add_argument("--models", required=True, help="models file (servo identify --out)")
    tr.add_argument("--path", nargs="+", required=True, help="line:x, line:y, line:z or a targets CSV (several allowed)")
    tr.add_argument("--speed-mm-s", type=float, nargs="+", required=True, help="TCP speed(s) along the path [mm/s]")
    tr.add_argument("--controller", nargs="+", default=["mpc-iio"], choices=("mpc-iio", "mpc-io", "pid", "none"),
                    help="controller(s)")
    tr.add_argument("--runs", type=int, default=1, help="runs of each (the repeatability needs 2 or more)")
    tr.add_argument("--out", required=True, help="results CSV to write")
    tr.add_argument("--plot", metavar="PNG", help="the print error along the path (first run of each row)")
    tr.add_argument("--horizon", type=int, default=30, help="MPC prediction horizon [samples] (seed 004: 30)")
    tr.add_argument("--deformation", help="warm robot: the deformation table CSV (as compensate takes it)")
    law = tr.add_mutually_exclusive_group()
    law.add_argument("--stabilisation-min", type=float, default=None, help="warm robot: linear ramp to the full table")
    law.add_argument("--time-law", type=time_law_arg, metavar="from:FILE", help="warm robot: a law file")
    tr.add_argument("--minute", type=float, default=None, help="warm robot: the minute of the print (default: the "
                                                              "full table)")
    _servo_arguments(tr, "servo rate [Hz], 1 to 1000: the models' (seed 004: 125)")
    add_progress_argument(tr, help="show a progress bar on stderr of the paths built, their inverse kinematics "
                                   "(samples solved) and the servo samples simulated (default: when stderr is a "
                                   "terminal)")
    tr.set_defaults(handler=run_track)


def run_excite(args: argparse.Namespace) -> int:
    from thermocomp.app.servo import ServoExciteJob, run_excite

    print(run_excite(ServoExciteJob(args.robot, args.out, rate_hz=args.rate_hz, start_deg=args.start_deg)).text())
    return EXIT_OK


def _quiet_pybullet() -> None:
    """Import PyBullet with its C banner silenced, before a job's simulator imports it."""
    from thermocomp.simulators.pybullet.client import import_pybullet

    import_pybullet()


def run_identify(args: argparse.Namespace) -> int:
    from thermocomp.app.servo import ServoIdentifyJob, run_identify
    from thermocomp.cli.common import show_progress
    from thermocomp.cli.progress import ProgressBar

    job = ServoIdentifyJob(args.robot, args.out, report=args.report, recording=args.recording, rate_hz=args.rate_hz,
                           servo=_servo_options(args), seed=args.seed)
    if args.recording is None:
        _quiet_pybullet()
    result = run_identify(job, progress=ProgressBar("identifying", unit="models", enabled=show_progress(args)))
    print(result.text())
    return EXIT_FAILED_ROWS if result.failed else EXIT_OK


def run_track(args: argparse.Namespace) -> int:
    from thermocomp.app.servo import ServoTrackJob, run_track
    from thermocomp.cli.common import show_progress
    from thermocomp.cli.progress import ProgressBar
    from thermocomp.deformation.timelaw import LinearRamp
    from thermocomp.printing.mpc import MPCOptions

    law = None if args.stabilisation_min is None else LinearRamp(args.stabilisation_min)
    job = ServoTrackJob(args.robot, args.models, tuple(args.path), tuple(args.speed_mm_s), args.out,
                        controllers=tuple(args.controller), runs=args.runs, plot=args.plot, servo=_servo_options(args),
                        mpc=MPCOptions(horizon=args.horizon), deformation=args.deformation, law=law,
                        law_file=args.time_law, minute=args.minute, seed=args.seed)
    _quiet_pybullet()
    bar = ProgressBar("tracking", unit="samples", enabled=show_progress(args))
    result = run_track(job, progress=bar)
    print(result.text())
    return EXIT_OK
