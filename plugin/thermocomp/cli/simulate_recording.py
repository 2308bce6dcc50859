"""``thermocomp simulate-recording``: play a trajectory on PyBullet with a known truth and record the torques.

One library call: :func:`thermocomp.dynamics.campaign.run_simulate_recording`.
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


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``simulate-recording`` subcommand."""
    cmd = sub.add_parser(
        "simulate-recording", help="record joint torques of a trajectory on a simulated robot with known truth",
        description="PyBullet's inverse dynamics of the truth URDF along the trajectory (ideal tracking), plus "
                    "friction from a friction CSV (seed 000, Eq. 3), torque noise, quantisation and saturation: a "
                    "recording to rehearse an identification with. See docs/dynamics.md.",
        formatter_class=HelpFormatter,
    )
    cmd.add_argument("--truth", required=True,
                     help="robot file (.urdf or .xacro) of the simulated robot (its inertials are the truth)")
    add_robot_file_arguments(cmd)
    cmd.add_argument("--trajectory", required=True, help="trajectory CSV (time_s, q<i>_rad, qd<i>_rad_s, qdd<i>_rad_s2), "
                                                          "e.g. from thermocomp excite")
    cmd.add_argument("--friction", help="friction CSV (joint,Fc_Nm,Fv_Nm_s_per_rad,Fs_Nm,vs_rad_s); default none")
    cmd.add_argument("--torque-noise-nm", type=per_joint_values, default=(0.0,), help="torque noise standard deviation [N m]")
    cmd.add_argument("--torque-resolution-nm", type=float, default=0.0, help="torque quantisation step [N m]")
    cmd.add_argument("--torque-limit-nm", type=per_joint_values, default=(float("inf"),), help="torque saturation [N m]")
    cmd.add_argument("--encoder-resolution-rad", type=float, default=0.0, help="position quantisation step [rad]")
    cmd.add_argument("--seed", type=seed_arg, help="seed of the noise (default: a fresh one)")
    cmd.add_argument("--with-derivatives", action="store_true", help="also write the exact speeds and accelerations")
    cmd.add_argument("--out", required=True, help="recording CSV to write")
    cmd.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from thermocomp.dynamics.campaign import run_simulate_recording
    from thermocomp.dynamics.simulate import DriveOptions

    drives = DriveOptions(torque_noise=args.torque_noise_nm, torque_resolution=args.torque_resolution_nm,
                          torque_limit=args.torque_limit_nm, encoder_resolution=args.encoder_resolution_rad)
    recording = run_simulate_recording(args.truth, args.trajectory, args.out, friction=args.friction, drives=drives,
                                       seed=args.seed, with_derivatives=args.with_derivatives,
                                       robot_options=robot_file_options(args))
    print(f"wrote {args.out}: {recording.n_samples} samples of {recording.n_joints} joints over {recording.duration:.6g} s")
    return EXIT_OK
