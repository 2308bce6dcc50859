"""``thermocomp sim``: the deformed robot in PyBullet (GUI, headless measurement, picture, collisions)."""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

from thermocomp.cli.common import (
    EXIT_FAILED_ROWS,
    EXIT_OK,
    ROBOT_HELP,
    HelpFormatter,
    add_program_arguments,
    add_progress_argument,
    add_robot_file_arguments,
    program_settings,
    robot_file_options,
)
from thermocomp.io.robots import BUILTIN_ROBOTS

#: Picture size of ``--screenshot`` when ``--size`` is not given [px] (the library's default).
DEFAULT_SIZE = (960, 720)


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``sim`` subcommand."""
    sim = sub.add_parser(
        "sim",
        description=(
            "Show the thermally deformed robot in its cell in PyBullet's GUI (sliders for the minute and a "
            "display magnification, buttons to compensate and to play the program), or, headless, play the "
            "compensated program and write what PyBullet measured (--headless --out), save a picture "
            "(--screenshot), check the corrected program for collisions (--collisions). A built-in robot "
            "stands in its shipped cell unless --scene or --no-scene says otherwise. Every option and output "
            "is checked before any work, and nothing is written when one is wrong. Units: files in mm and "
            "degrees; see docs/pybullet.md and docs/scenes.md."
        ),
        formatter_class=HelpFormatter,
    )
    sim.add_argument("--robot", default=None, help=ROBOT_HELP + " (default: the scene's robot)")
    add_robot_file_arguments(sim)
    add_program_arguments(sim, "played", targets_required=False)
    sim.add_argument("--program", metavar="FILE",
                     help="instead of --targets: a robot program (RAPID .mod/.modx/.prg/.sys, URScript .script/"
                          ".urscript), original or compensated, played as the controller runs it: its motion "
                          "targets in execution order, each in the configuration the controller takes "
                          "(docs/programs.md)")
    where = sim.add_mutually_exclusive_group()
    where.add_argument("--scene", help="scene file (TOML, docs/scenes.md) (default: a built-in robot's shipped "
                                       "cell: irb140_paper_cell, gofa_cell, ur5_print_bed; else the robot alone)")
    where.add_argument("--no-scene", action="store_true", help="the robot alone, without a cell")
    sim.add_argument("--meshes", help="mesh map (TOML, docs/scenes.md) of the robot's links, e.g. its CAD "
                                      "(default: the scene's, else the built-in envelopes)")
    out = sim.add_argument_group("without a display")
    out.add_argument("--headless", action="store_true",
                     help="no GUI: compensate, play the program in PyBullet DIRECT and write the measurement (--out)")
    out.add_argument("--out", help="measurement CSV of --headless: per row the TCP pose PyBullet reports with the "
                                   "nominal and the corrected angles and their distance to the target")
    out.add_argument("--screenshot", metavar="PNG", help="save a picture of the cell (TinyRenderer, no display)")
    out.add_argument("--minute", type=float, default=None,
                     help="minute of the deformation in the picture or the GUI's start, within the program's "
                          "minutes (default: the program's last)")
    out.add_argument("--magnification", type=float, default=None,
                     help="display magnification of the deformation in the picture or the GUI's start, "
                          "1 to 1000 (default: the factor that moves the TCP at home by 5 %% of its reach, so that "
                          "the deformation shows, lowered until no link of the magnified robot goes below the "
                          "plane it stands on along the program; said on screen and in the picture's legend). A "
                          "value given is taken as is, with a warning when the magnified robot goes below that "
                          "plane, naming the cap the default would use")
    out.add_argument("--size", type=int, nargs=2, default=None, metavar=("W", "H"),
                     help=f"picture size of --screenshot [px], each at least 16 (default: {DEFAULT_SIZE[0]} "
                          f"{DEFAULT_SIZE[1]})")
    out.add_argument("--collisions", action="store_true",
                     help="check every corrected configuration against the robot itself and the cell")
    out.add_argument("--clearance-mm", type=float, default=None,
                     help="with --collisions: also report pairs closer than this [mm], >= 0 (default: 0)")
    out.add_argument("--collisions-out", metavar="CSV", help="with --collisions: write every flagged pair")
    sim.add_argument("--allow-failures", action="store_true",
                     help="go on when some rows cannot be compensated (their status says so)")
    add_progress_argument(sim, help="show progress bars on stderr for the compensation, the PyBullet measurement "
                                    "and the collision check (default: when stderr is a terminal)")
    sim.set_defaults(handler=run)


def _check_options(args: argparse.Namespace) -> bool:
    """Check the options that need no file, before anything is read; returns whether the GUI opens.

    Raises
    ------
    ConfigurationError
        An option out of range, or one that would have no effect.
    """
    from thermocomp.errors import ConfigurationError
    from thermocomp.simulators.magnification import check_magnification
    from thermocomp.simulators.pybullet.render import check_picture_size

    if (args.targets is None) == (args.program is None):
        raise ConfigurationError("expected --targets CSV or --program FILE (one of the two)")
    if args.program is not None and args.orientation_euler_xyz_deg is not None:
        raise ConfigurationError("--orientation-euler-xyz-deg serves position-only --targets; a program's targets "
                                 "carry their orientation")
    if args.out and not args.headless:
        raise ConfigurationError("--out is the measurement of --headless; add --headless")
    if args.headless and not args.out:
        raise ConfigurationError("--headless writes its measurement to --out CSV; give --out")
    if args.collisions_out and not args.collisions:
        raise ConfigurationError("--collisions-out needs --collisions")
    if args.clearance_mm is not None:
        if not args.collisions:
            raise ConfigurationError("--clearance-mm sets the clearance of --collisions; add --collisions")
        if not (math.isfinite(args.clearance_mm) and args.clearance_mm >= 0):
            raise ConfigurationError(f"--clearance-mm: expected a distance >= 0 mm, got {args.clearance_mm:g}")
    gui = not (args.headless or args.screenshot or args.collisions)
    if args.size is not None:
        if not args.screenshot:
            raise ConfigurationError("--size is the picture size of --screenshot; add --screenshot")
        check_picture_size(*args.size)
    for flag, value in (("--minute", args.minute), ("--magnification", args.magnification)):
        if value is not None and not (args.screenshot or gui):
            raise ConfigurationError(f"{flag} sets the deformation shown in a picture (--screenshot) or the GUI; "
                                     "it has no effect on --headless or --collisions")
    if args.magnification is not None:
        check_magnification(args.magnification, "--magnification")
    if args.minute is not None and not math.isfinite(args.minute):
        raise ConfigurationError(f"--minute: expected a finite minute, got {args.minute:g}")
    return gui


def _scene_argument(args: argparse.Namespace) -> str | None:
    """The scene to load: ``--scene``, else the built-in robot's shipped cell (with a note), else none."""
    from thermocomp.io.scene_file import BUILTIN_SCENES, builtin_scene

    if args.scene is not None or args.no_scene:
        return args.scene
    if args.robot is None:
        return None  # load_setup says to name a robot or a scene
    if args.robot not in BUILTIN_ROBOTS:
        return None
    found = builtin_scene(args.robot)
    if found is None:
        print(f"thermocomp: note: the {args.robot} cell (scenes/{BUILTIN_SCENES[args.robot]}) is not part of this "
              "install; showing the robot alone (give --scene FILE, or --no-scene to silence this)", file=sys.stderr)
        return None
    print(f"scene: {found} (the {args.robot}'s shipped cell; --scene FILE or --no-scene to change)")
    return str(found)


def run(args: argparse.Namespace) -> int:
    from thermocomp.app.jobs import CompensationFailed
    from thermocomp.app.sim import BatchOutputs, prepare, run_batch
    from thermocomp.cli.progress import ProgressBar
    from thermocomp.compensation.compensate import CompensationOptions
    from thermocomp.errors import ConfigurationError
    from thermocomp.io.job import Job
    from thermocomp.simulators.pybullet import cell as sim

    gui = _check_options(args)
    if args.screenshot and Path(args.screenshot).suffix.lower() != ".png":
        # only the suffix here: the job checks the path (folder, type, inputs) naming --screenshot
        raise ConfigurationError(f"--screenshot {args.screenshot}: expected a picture path ending in .png")
    settings = program_settings(args)
    options = CompensationOptions(time_law=settings.time_law, minutes=settings.minutes, composition=args.composition,
                                  time_law_file=settings.time_law_file)
    outputs = BatchOutputs(out=args.out, collisions=args.collisions, collisions_out=args.collisions_out,
                           clearance=0.0 if args.clearance_mm is None else args.clearance_mm * 1e-3,
                           screenshot=args.screenshot, size=DEFAULT_SIZE if args.size is None else tuple(args.size),
                           minute=args.minute, magnification=args.magnification)
    with Job() as job:
        setup = prepare(job, args.robot, args.deformation, args.targets, program=args.program,
                        scene=_scene_argument(args),
                        meshes=args.meshes, options=options, fixed_orientation=settings.fixed_orientation,
                        outputs=outputs.declared(), robot_options=robot_file_options(args))
        if args.magnification is not None:
            warning = sim.magnification_warning(setup, args.magnification)
            if warning is not None:
                print(f"thermocomp: warning: {warning}", file=sys.stderr)
        if gui:
            return _run_gui(setup, args)
        try:
            hits = run_batch(job, setup, outputs, allow_failures=args.allow_failures,
                             progress=lambda label: ProgressBar(label, enabled=settings.progress))
        except CompensationFailed as exc:
            print(exc.report.text(), file=sys.stderr)
            print(f"thermocomp: error: {exc}", file=sys.stderr)
            return EXIT_FAILED_ROWS
    return EXIT_FAILED_ROWS if hits else EXIT_OK


def _run_gui(setup, args: argparse.Namespace) -> int:
    from thermocomp.app.sim import compensate_for_gui
    from thermocomp.simulators.pybullet.gui import run_gui

    minute = None if args.minute is None else setup.check_minute(args.minute)
    summary = run_gui(setup, compensate=compensate_for_gui, start_minute=minute, start_magnification=args.magnification)
    print(f"GUI opened at minute {summary.start_minute:g}, deformation magnified x{summary.start_magnification:g}")
    if summary.reload_seconds:
        print(f"GUI closed after {summary.frames:,} frames; the deformed robot was reloaded "
              f"{len(summary.reload_seconds)} times, {np.median(summary.reload_seconds) * 1e3:.1f} ms each (median)")
    return EXIT_OK
