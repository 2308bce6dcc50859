"""``thermocomp sim``: the deformed robot in PyBullet (GUI, headless measurement, picture, collisions)."""

from __future__ import annotations

import argparse
import sys

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

#: Picture size of ``--screenshot`` when ``--size`` is not given [px], for the help: the job's
#: ``thermocomp.app.sim.DEFAULT_SIZE`` (not imported, so that ``--help`` loads no simulator).
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


def run(args: argparse.Namespace) -> int:
    from thermocomp.app.jobs import CompensationFailed
    from thermocomp.app.sim import SimInputs, SimOptions, prepare, run_batch, shipped_scene
    from thermocomp.cli.progress import ProgressBar
    from thermocomp.compensation.compensate import CompensationOptions
    from thermocomp.io.job import Job
    from thermocomp.simulators.pybullet import cell as sim

    sim_options = SimOptions(targets=args.targets, program=args.program,
                             orientation_given=args.orientation_euler_xyz_deg is not None, headless=args.headless,
                             out=args.out, screenshot=args.screenshot,
                             size=None if args.size is None else tuple(args.size), minute=args.minute,
                             magnification=args.magnification, collisions=args.collisions,
                             collisions_out=args.collisions_out, clearance_mm=args.clearance_mm)
    settings = program_settings(args)
    options = CompensationOptions(time_law=settings.time_law, minutes=settings.minutes, composition=args.composition,
                                  time_law_file=settings.time_law_file)
    outputs = sim_options.outputs()
    with Job() as job:
        scene, said, note = shipped_scene(args.robot, args.scene, args.no_scene)
        if note is not None:
            print(f"thermocomp: note: {note}", file=sys.stderr)
        if said is not None:
            print(said)
        inputs = SimInputs(args.robot, args.deformation, args.targets, program=args.program, scene=scene,
                           meshes=args.meshes, options=options, fixed_orientation=settings.fixed_orientation,
                           robot_options=robot_file_options(args))
        setup = prepare(job, inputs, outputs.declared())
        if args.magnification is not None:
            warning = sim.magnification_warning(setup, args.magnification)
            if warning is not None:
                print(f"thermocomp: warning: {warning}", file=sys.stderr)
        if sim_options.gui:
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
