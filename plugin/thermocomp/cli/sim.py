"""``thermocomp sim``: the deformed robot in PyBullet (GUI, headless measurement, picture, collisions)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from thermocomp.cli.common import EXIT_FAILED_ROWS, EXIT_OK
from thermocomp.robot.builtin import BUILTIN_ROBOTS


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``sim`` subcommand."""
    from thermocomp.cli.compensate import _minutes

    sim = sub.add_parser(
        "sim",
        help="the deformed robot in PyBullet: GUI, headless measurement, picture, collision check",
        description=(
            "Show the thermally deformed robot in its cell in PyBullet's GUI (sliders for the minute and a "
            "display magnification, buttons to compensate and to play the program), or, headless, play the "
            "compensated program and write what PyBullet measured (--headless --out), save a picture "
            "(--screenshot), check the corrected program for collisions (--collisions). Units: files in mm "
            "and degrees; see docs/pybullet.md and docs/scenes.md."
        ),
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    sim.add_argument("--robot", default=None,
                     help=f"built-in robot ({', '.join(BUILTIN_ROBOTS)}) or a .csv / .urdf file "
                          "(default: the scene's robot)")
    sim.add_argument("--deformation", required=True,
                     help="deformation table CSV: Dx,Dy,Dz [mm], Dox,Doy,Doz [deg], one row per joint")
    sim.add_argument("--targets", required=True,
                     help="targets CSV in the world frame (the paper's form or the self-describing form)")
    sim.add_argument("--scene", help="scene file (TOML, docs/scenes.md); default: the robot alone")
    sim.add_argument("--meshes", help="mesh map (TOML, docs/scenes.md) of the robot's links, e.g. its CAD; "
                                      "default: the scene's, else the built-in envelopes")
    law = sim.add_mutually_exclusive_group()
    law.add_argument("--stabilisation-min", type=float, default=200.0,
                     help="minutes until thermal stabilisation: the table grows linearly to full by then")
    law.add_argument("--static", action="store_true", help="apply the full table at every minute")
    sim.add_argument("--minutes", type=_minutes, default=None,
                     help="minutes at which every target is played, START:STOP[:STEP] inclusive or a list "
                          "(default 0:200, or 0 with --static); ignored when the targets have time_min")
    sim.add_argument("--orientation-euler-xyz-deg", type=float, nargs=3, metavar=("A", "B", "C"),
                     help="orientation for position-only targets, CoppeliaSim Euler xyz [deg] (R = Rx Ry Rz)")
    sim.add_argument("--composition", choices=("table", "eq21"), default="table",
                     help="how a deformation row composes with the nominal segment (docs/conventions.md)")
    out = sim.add_argument_group("without a display")
    out.add_argument("--headless", action="store_true",
                     help="no GUI: compensate, play the program in PyBullet DIRECT and write the measurement (--out)")
    out.add_argument("--out", help="measurement CSV of --headless: per row the TCP pose PyBullet reports with the "
                                   "nominal and the corrected angles and their distance to the target")
    out.add_argument("--screenshot", metavar="PNG", help="save a picture of the cell (TinyRenderer, no display)")
    out.add_argument("--minute", type=float, default=None,
                     help="minute of the deformation in the picture (default: the program's last)")
    out.add_argument("--magnification", type=float, default=1.0,
                     help="display magnification of the deformation in the picture, 1 to 1000")
    out.add_argument("--size", type=int, nargs=2, default=(960, 720), metavar=("W", "H"), help="picture size [px]")
    out.add_argument("--collisions", action="store_true",
                     help="check every corrected configuration against the robot itself and the cell")
    out.add_argument("--clearance-mm", type=float, default=0.0,
                     help="with --collisions: also report pairs closer than this [mm]")
    out.add_argument("--collisions-out", metavar="CSV", help="with --collisions: write every flagged pair")
    sim.add_argument("--allow-failures", action="store_true",
                     help="go on when some rows cannot be compensated (their status says so)")
    sim.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from thermocomp.compensation.compensate import CompensationOptions
    from thermocomp.deformation.timelaw import LinearRamp, Static
    from thermocomp.errors import ConfigurationError
    from thermocomp.geometry.rotations import matrix_from_euler_xyz
    from thermocomp.io.atomic import check_not_input
    from thermocomp.pipeline import CompensationFailed
    from thermocomp.simulators.pybullet import cell as sim

    if args.out and not args.headless:
        raise ConfigurationError("--out is the measurement of --headless; add --headless")
    if args.headless and not args.out:
        raise ConfigurationError("--headless writes its measurement to --out CSV; give --out")
    if args.collisions_out and not args.collisions:
        raise ConfigurationError("--collisions-out needs --collisions")
    inputs = [p for p in (args.robot, args.deformation, args.targets, args.scene, args.meshes) if p and Path(p).exists()]
    for output in (args.out, args.collisions_out, args.screenshot):
        if output:
            check_not_input(output, inputs)  # before any work: an input is never overwritten
    options = CompensationOptions(
        time_law=Static() if args.static else LinearRamp(args.stabilisation_min),
        minutes=args.minutes if args.minutes is not None else (
            (0.0,) if args.static else tuple(float(m) for m in range(201))),
        composition=args.composition,
    )
    fixed = None
    if args.orientation_euler_xyz_deg is not None:
        fixed = matrix_from_euler_xyz(np.radians(args.orientation_euler_xyz_deg))
    setup = sim.load_setup(args.robot, args.deformation, args.targets, scene=args.scene, meshes=args.meshes,
                           options=options, fixed_orientation=fixed)

    if not (args.headless or args.screenshot or args.collisions):
        from thermocomp.simulators.pybullet.gui import run_gui

        summary = run_gui(setup)
        if summary.reload_seconds:
            print(f"GUI closed after {summary.frames:,} frames; the deformed robot was reloaded "
                  f"{len(summary.reload_seconds)} times, {np.median(summary.reload_seconds) * 1e3:.1f} ms each (median)")
        return EXIT_OK

    status = EXIT_OK
    report = None
    if args.headless or args.collisions:
        try:
            report = sim.compensate_setup(setup, allow_failures=args.allow_failures)
        except CompensationFailed as exc:
            print(exc.report.text(), file=sys.stderr)
            print(f"thermocomp: error: {exc}", file=sys.stderr)
            return EXIT_FAILED_ROWS
        print(report.text())
    if args.headless:
        measurement, _ = sim.measure(setup, args.out, report=report)
        print(measurement.text())
        print(f"wrote {args.out}")
    if args.collisions:
        from thermocomp.simulators.pybullet.collision import (
            CollisionOptions,
            write_collision_csv,
        )

        found = sim.check_collisions(setup, report, CollisionOptions(clearance=args.clearance_mm * 1e-3))
        print(found.text())
        if args.collisions_out:
            write_collision_csv(found, args.collisions_out)
            print(f"wrote {args.collisions_out}")
        if found.n_hits:
            status = EXIT_FAILED_ROWS
    if args.screenshot:
        shot = sim.save_screenshot(setup, args.screenshot, minute=args.minute, magnification=args.magnification,
                                   width=args.size[0], height=args.size[1])
        print(f"wrote {shot.path} (minute {shot.minute:g}, magnification {shot.magnification:g}; {shot.geometry})")
    return status
