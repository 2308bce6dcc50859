"""``thermocomp identify``: inertial and friction parameters from a recording, with a softMC-style report.

One library call: :func:`thermocomp.app.dynamics.run_identify`. Exit
status 0 when the identification succeeds, 2 when it fails (seed 003: an
axis' maximum relative torque error of 50 % or more; the outputs are written
either way and the report gives the warnings found), 1 on bad input.
"""

from __future__ import annotations

import argparse

from thermocomp.cli.common import EXIT_FAILED_ROWS, EXIT_OK, HelpFormatter, add_robot_file_arguments, robot_file_options
from thermocomp.dynamics.identify import IdentifyOptions
from thermocomp.errors import ConfigurationError


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``identify`` subcommand."""
    cmd = sub.add_parser(
        "identify",
        description="Base parameters by weighted least squares, physically consistent link inertials (written into "
                    "the input URDF strictly inside the consistent set), Coulomb and viscous friction, and softMC's "
                    "report: per axis the maximum and mean relative torque error. The identification succeeds "
                    "when every axis' maximum is below 50 % (seed 003), exit status 0; else it fails, exit status "
                    "2. Seed 003's reasons to look at are warnings with their numbers and do not change the "
                    "verdict: too slow, too short (periods of a joint's slowest component), too small a region, "
                    "poorly conditioned regressor, overlapping motions, saturated torques, noisy axis. See "
                    "docs/dynamics.md.",
        formatter_class=HelpFormatter,
    )
    cmd.add_argument("--robot", required=True, help="robot file (.urdf or .xacro) with the reference (CAD) inertials, "
                                                   "e.g. from thermocomp inertia (--step 2 also takes a built-in robot; "
                                                   "--step 3 any robot)")
    add_robot_file_arguments(cmd)
    cmd.add_argument("--recording", required=True,
                     help="recording CSV: time_s, q<i>_rad, tau<i>_Nm (optional qd<i>_rad_s, qdd<i>_rad_s2: recorded "
                          "speeds and accelerations are used when given)")
    cmd.add_argument("--urdf-out", help="the input URDF with the identified inertials")
    cmd.add_argument("--friction-out", help="friction CSV of the identified Coulomb and viscous friction and each "
                                            "joint's armature (reflected rotor inertia, armature_kg_m2)")
    cmd.add_argument("--report", help="identification report to write (it is printed either way)")
    cmd.add_argument("--validate", help="a second recording on which the identified model is checked")
    cmd.add_argument("--step", type=int, choices=(2, 3, 4),
                     help="one step of seed 000 instead: 2 = correction factors lambda from a recording of static "
                          "poses (--out link,lambda CSV, for thermocomp inertia --corrections); 3 = friction from "
                          "constant-speed runs (--out friction CSV); 4 = each joint's PI controller from a recording at rest "
                          "under a disturbance (--out joint,Kp_Nm_per_rad_s,Ti_s CSV). Trajectories: thermocomp "
                          "excite --experiment")
    cmd.add_argument("--out", help="with --step: the step's result file")
    cmd.add_argument("--payload", action="store_true",
                     help="identify only a payload (seed 003): --robot is the identified URDF, --friction its "
                          "friction, the recording made with the payload; --urdf-out gets the URDF with the payload "
                          "added to the last link (seed 001's rule of change)")
    cmd.add_argument("--drive-gains", action="store_true",
                     help="identify the drive gains (joint torque per motor current) instead: --recording is a run "
                          "without payload and --loaded one with a payload of --payload-mass-kg on the last link, "
                          "both with motor currents i<k>_A instead of torques (seed 001's rule of change); --out gets "
                          "the drive gains CSV joint,gain_Nm_per_A")
    cmd.add_argument("--loaded", help="with --drive-gains: the recording with the payload")
    cmd.add_argument("--payload-mass-kg", type=float, help="with --drive-gains: the payload's mass [kg]")
    cmd.add_argument("--gains", help="a drive gains CSV (from --drive-gains): the recordings give motor currents "
                                     "i<k>_A, turned into joint torques by these gains")
    cmd.add_argument("--friction", help="a friction CSV held fixed (seed 000, Step 5: the inertial parameters with "
                                        "Step 3's friction); with --payload: the identified model's friction")
    cmd.add_argument("--cutoff-hz", type=float,
                     help="low-pass cutoff [Hz] (default: 4 x the recorded positions' bandwidth, the frequency "
                          "below which 99.9 %% of their power lies once the white-noise floor is removed; at most "
                          "0.4 x the Nyquist frequency and 125 Hz; the report says why)")
    cmd.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from thermocomp.app.dynamics import IdentifyJob, run_identify, run_identify_step

    robot_options = robot_file_options(args)
    if args.payload:
        from thermocomp.app.dynamics import run_payload

        print(run_payload(args.robot, args.recording, friction=args.friction, urdf_out=args.urdf_out,
                          report=args.report, robot_options=robot_options), end="")
        return EXIT_OK
    if args.drive_gains:
        from thermocomp.app.dynamics import DriveGainsJob, run_drive_gains

        if not args.loaded or args.payload_mass_kg is None:
            raise ConfigurationError("--drive-gains: expected --loaded (the run with the payload) and --payload-mass-kg")
        print(run_drive_gains(DriveGainsJob(args.robot, args.recording, args.loaded, args.payload_mass_kg, out=args.out,
                              report=args.report, robot_options=robot_options)), end="")
        written = [p for p in (args.out, args.report) if p]
        if written:
            print("wrote " + ", ".join(written))
        return EXIT_OK
    if args.step is not None:
        print(run_identify_step(args.step, args.robot, args.recording, out=args.out, report=args.report,
                                robot_options=robot_options), end="")
        written = [p for p in (args.out, args.report) if p]
        if written:
            print("wrote " + ", ".join(written))
        return EXIT_OK

    result = run_identify(IdentifyJob(args.robot, args.recording, urdf_out=args.urdf_out, friction_out=args.friction_out,
                          report=args.report, validate=args.validate, options=IdentifyOptions(cutoff=args.cutoff_hz),
                          friction=args.friction, robot_options=robot_options, gains=args.gains))
    print(result.text, end="")
    written = [p for p in (args.urdf_out, args.friction_out, args.report) if p]
    if written:
        print("wrote " + ", ".join(written))
    return EXIT_OK if result.success else EXIT_FAILED_ROWS
