"""``thermocomp inertia``: link inertials from mesh files (seed 000, Step 1), printed and written into a URDF.

One library call: :func:`thermocomp.app.inertia.inertials_to_urdf`.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from thermocomp.cli.common import EXIT_OK, ROBOT_HELP, HelpFormatter, add_robot_file_arguments, robot_file_options
from thermocomp.errors import InputError
from thermocomp.inertia.solids import FALLBACKS
from thermocomp.io.meshes import UNITS


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``inertia`` subcommand."""
    cmd = sub.add_parser(
        "inertia",
        description="Compute each link's volume, mass, centre of mass and inertia tensor from closed meshes with one "
                    "density from the robot's total mass (seed 000, Step 1), print them in the URDF link frames "
                    "and write a URDF carrying them. See docs/inertia.md.",
        formatter_class=HelpFormatter,
    )
    cmd.add_argument("--robot", required=True, help=ROBOT_HELP)
    add_robot_file_arguments(cmd)
    cmd.add_argument("--meshes", required=True,
                     help="a folder of meshes named base.stl, link1.stl .. in the link frames (or the files a "
                          "--mesh-map names), or a .urdf / .xacro file whose links carry meshes")
    cmd.add_argument("--units", required=True, choices=sorted(UNITS),
                     help="unit of the mesh files (STL has none; for a URDF it must match its mesh scale)")
    cmd.add_argument("--total-mass", required=True, type=float, metavar="KG",
                     help="the robot's total mass [kg], base included: density = total mass / total volume")
    cmd.add_argument("--out", help="URDF to write (atomically; never over an input); without it only the table is printed")
    cmd.add_argument("--fallback", choices=FALLBACKS,
                     help="for meshes that are not closed: 'signed' (divergence-theorem volume of a consistently "
                          "oriented open surface) or 'convex_hull'; without it such a mesh is an error")
    cmd.add_argument("--corrections", metavar="CSV",
                     help="per-link factors lambda (columns link,lambda) scaling mass and inertia (seed 000, Eq. 9)")
    cmd.add_argument("--mesh-map", metavar="CSV",
                     help="which file in --meshes belongs to which link and its pose in the link frame "
                          "(columns link,mesh,x_mm,y_mm,z_mm,rx_deg,ry_deg,rz_deg), e.g. robots/gofa/ros_industrial_meshes.csv")
    cmd.add_argument("--mesh-kind", choices=("visual", "collision"), default="visual",
                     help="with a URDF: which of its meshes")
    cmd.add_argument("--package", action="append", default=[], metavar="NAME=DIR",
                     help="with a URDF: the folder of a ROS package named in package:// mesh URIs (repeatable; "
                          "--package-path finds packages by their package.xml instead)")
    cmd.set_defaults(handler=run)


def _packages(items: list[str]) -> dict[str, Path]:
    out = {}
    for item in items:
        name, sep, folder = item.partition("=")
        if not sep or not name or not folder:
            raise InputError(f"--package: expected NAME=DIR, got {item!r}")
        if name in out:
            raise InputError(f"--package {name}: given twice ({str(out[name])!r}, then {folder!r}); give each "
                             "package once")
        out[name] = Path(folder)
    return out


def run(args: argparse.Namespace) -> int:
    from thermocomp.app.inertia import InertiaJob, inertials_to_urdf
    from thermocomp.inertia.robot import InertiaOptions
    from thermocomp.io.meshes import metres_per_unit_from_name

    options = InertiaOptions(total_mass=args.total_mass, metres_per_unit=metres_per_unit_from_name(args.units),
                             fallback=args.fallback, mesh_kind=args.mesh_kind)
    report, written = inertials_to_urdf(InertiaJob(args.robot, args.meshes, options, args.out, mesh_map=args.mesh_map,
                                        package_dirs=_packages(args.package), tip_link=args.tip_link,
                                        corrections=args.corrections, robot_options=robot_file_options(args)))
    print(report.text(), end="")
    for path in written:
        print(f"wrote {path}")
    return EXIT_OK
