"""``thermocomp robot``: show a robot's table form, or export it as URDF or CSV."""

from __future__ import annotations

import argparse

from thermocomp.cli.common import EXIT_OK, ROBOT_HELP, HelpFormatter, add_robot_file_arguments, robot_file_options


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``robot`` subcommand."""
    rob = sub.add_parser("robot",
                         description="Show a robot's table form, or export it (optionally deformed) as URDF or CSV.")
    rsub = rob.add_subparsers(dest="robot_command", required=True, metavar="ACTION")
    show = rsub.add_parser("show", help="print the table form [mm, deg]")
    show.add_argument("robot", metavar="ROBOT", help=ROBOT_HELP)
    add_robot_file_arguments(show)
    export = rsub.add_parser("export", help="write the robot as .urdf or table-form .csv",
                             formatter_class=HelpFormatter)
    export.add_argument("robot", metavar="ROBOT", help=ROBOT_HELP)
    add_robot_file_arguments(export)
    export.add_argument("--out", required=True, help="output file, .urdf or .csv (a deformed robot: .urdf only)")
    export.add_argument("--deformation", help="deformation table CSV [mm, deg] to apply")
    export.add_argument("--fraction", type=float, default=1.0,
                        help="share of the table to apply (a minute t of a linear ramp to T: t / T)")
    export.add_argument("--composition", choices=("table", "eq21"), default="table",
                        help="how a deformation row composes with the segment (docs/conventions.md)")
    export.add_argument("--with-meshes", action="store_true",
                        help="URDF: carry the robot's meshes (a built-in robot's envelopes, a .urdf / .xacro file's own "
                             "visual and collision meshes), placed in the exported link frames")
    export.add_argument("--inertials", metavar="FILE",
                        help="URDF: carry these link inertials: a .urdf / .xacro file of this robot with <inertial> "
                             "elements ('thermocomp inertia --out', a ROS-Industrial description; read with the "
                             "robot-file options below), or an inertia CSV (the form of robots/<name>/inertia.csv)")
    rob.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from thermocomp.io.chain_csv import chain_csv_text
    from thermocomp.io.robots import load_robot, robot_file

    robot_file(args.robot, "ROBOT")  # an unknown name: the error names this argument, not --robot
    if args.robot_command == "show":
        print(chain_csv_text(load_robot(args.robot, robot_file_options(args))), end="")
        return EXIT_OK
    from thermocomp.app.export import ExportJob, export_robot  # (the export job: not for show)

    out = export_robot(ExportJob(args.robot, args.out, deformation=args.deformation, fraction=args.fraction,
                       composition=args.composition, robot_options=robot_file_options(args),
                       with_meshes=args.with_meshes, inertials=args.inertials))
    print(f"wrote {out}")
    return EXIT_OK


