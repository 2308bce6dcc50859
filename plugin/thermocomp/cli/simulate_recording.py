"""``thermocomp simulate-recording``: play a trajectory on PyBullet with a known truth and record the torques.

One library call: :func:`thermocomp.app.dynamics.run_simulate_recording`.
"""

from __future__ import annotations

import argparse

from thermocomp.cli.common import (
    EXIT_OK,
    HelpFormatter,
    add_robot_file_arguments,
    per_joint_values,
    robot_file_options,
    seed_arg,
)
from thermocomp.dynamics.simulate import DRIVE_DAMPING


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``simulate-recording`` subcommand."""
    cmd = sub.add_parser(
        "simulate-recording",
        description="PyBullet's inverse dynamics of the truth URDF along the trajectory (ideal tracking), plus "
                    "friction from a friction CSV (seed 000, Eq. 3), torque noise, quantisation and saturation: a "
                    "recording to rehearse an identification with. See docs/dynamics.md.",
        formatter_class=HelpFormatter,
    )
    cmd.add_argument("--truth", required=True,
                     help="robot file (.urdf or .xacro) of the simulated robot (its inertials are the truth)")
    add_robot_file_arguments(cmd)
    motion = cmd.add_mutually_exclusive_group(required=True)
    motion.add_argument("--trajectory", help="trajectory CSV (time_s, q<i>_rad, qd<i>_rad_s, qdd<i>_rad_s2), "
                                             "e.g. from thermocomp excite")
    motion.add_argument("--controllers", metavar="CSV",
                        help="seed 000 Step 4's experiment instead: the robot at rest at --pose-deg, every joint held "
                             "by its PI controller (joint,Kp_Nm_per_rad_s,Ti_s CSV, as identify --step 4 writes) "
                             "under a disturbance of --disturbance-nm, on PyBullet's rigid-body model; the recording "
                             "holds the motor torques")
    cmd.add_argument("--friction", help="friction CSV (joint,Fc_Nm,Fv_Nm_s_per_rad,Fs_Nm,vs_rad_s); default none")
    cmd.add_argument("--torque-noise-nm", type=per_joint_values, default=(0.0,), help="torque noise standard deviation [N m]")
    cmd.add_argument("--torque-resolution-nm", type=float, default=0.0, help="torque quantisation step [N m]")
    cmd.add_argument("--torque-limit-nm", type=per_joint_values, default=(float("inf"),), help="torque saturation [N m]")
    cmd.add_argument("--encoder-resolution-rad", type=float, default=0.0, help="position quantisation step [rad]")
    cmd.add_argument("--seed", type=seed_arg, help="seed of the noise (default: a fresh one)")
    cmd.add_argument("--with-derivatives", action="store_true", help="also write the exact speeds and accelerations")
    rest = cmd.add_argument_group("with --controllers (seed 000, Step 4)")
    rest.add_argument("--pose-deg", type=per_joint_values, metavar="Q1,..",
                      help="the set point [deg] (default: zero within the limits)")
    rest.add_argument("--duration-s", type=float, default=10.0, help="how long the robot is recorded at rest [s]")
    rest.add_argument("--rate-hz", type=float, default=300.0, help="sampling rate of the recording [Hz]")
    rest.add_argument("--disturbance-nm", type=per_joint_values, default=(5.0,),
                      help="largest disturbance torque [N m] (three sines of 0.3 to 3 Hz per joint)")
    rest.add_argument("--drive-damping-nm-s-per-rad", type=per_joint_values, default=(DRIVE_DAMPING,),
                      help="each drive's damping (back-EMF, transmission) the rigid links lack [N m s/rad]")
    cmd.add_argument("--out", required=True, help="recording CSV to write")
    cmd.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import math

    from thermocomp.app.dynamics import (
        SimulateDisturbanceJob,
        SimulateRecordingJob,
        run_simulate_disturbance,
        run_simulate_recording,
    )
    from thermocomp.dynamics.simulate import DriveOptions

    drives = DriveOptions(torque_noise=args.torque_noise_nm, torque_resolution=args.torque_resolution_nm,
                          torque_limit=args.torque_limit_nm, encoder_resolution=args.encoder_resolution_rad)
    if args.controllers:
        recording = run_simulate_disturbance(SimulateDisturbanceJob(
            args.truth, args.controllers, args.out, pose=tuple(math.radians(a) for a in args.pose_deg)
            if args.pose_deg else None, duration=args.duration_s, rate=args.rate_hz, amplitude=args.disturbance_nm,
            damping=args.drive_damping_nm_s_per_rad, friction=args.friction, drives=drives, seed=args.seed,
            robot_options=robot_file_options(args)))
        print(f"wrote {args.out}: {recording.n_samples} samples of {recording.n_joints} joints at rest over "
              f"{recording.duration:.6g} s")
        return EXIT_OK
    recording = run_simulate_recording(SimulateRecordingJob(
        args.truth, args.trajectory, args.out, friction=args.friction, drives=drives, seed=args.seed,
        with_derivatives=args.with_derivatives, robot_options=robot_file_options(args)))
    print(f"wrote {args.out}: {recording.n_samples} samples of {recording.n_joints} joints over {recording.duration:.6g} s")
    return EXIT_OK
