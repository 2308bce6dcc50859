"""``thermocomp coppeliasim``: the plugin in a running CoppeliaSim, and the authors' scene convention.

Each action is one library call (:mod:`thermocomp.app.coppeliasim`)
with the run's :class:`~thermocomp.io.job.Job` (docs/jobs.md). The CoppeliaSim add-on
(``plugin/thermocomp/simulators/coppeliasim/thermocomp.lua``) runs these actions; see
docs/coppeliasim.md.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from thermocomp.cli.common import (
    EXIT_FAILED_ROWS,
    EXIT_INPUT,
    EXIT_OK,
    HelpFormatter,
    add_progress_argument,
    add_robot_file_arguments,
    add_solver_arguments,
    minutes_arg,
    program_settings,
    robot_file_options,
    seed_arg,
    solver_options,
)
from thermocomp.deformation.timelaw import LinearRamp

#: Actions of ``thermocomp coppeliasim``; the add-on may call only these (tests check it).
ACTIONS = ("info", "read-robot", "check", "show", "compensate", "play", "restore", "load-scene", "convention",
           "install-addon", "addon-run")

#: Actions that change the scene: SIGTERM and SIGHUP (turned into Ctrl-C by the entry point) restore it.
SCENE_ACTIONS = ("check", "show", "compensate", "play")


def _connection_options(p: argparse.ArgumentParser) -> None:
    from thermocomp.simulators.coppeliasim.connection import (
        DEFAULT_HOST,
        DEFAULT_PORT,
        DEFAULT_TIMEOUT_S,
    )

    p.add_argument("--host", default=DEFAULT_HOST, help="host of CoppeliaSim's ZMQ remote API server")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help="its port (CoppeliaSim's zmqRemoteApi.rpcPort)")
    p.add_argument("--timeout-s", type=float, default=DEFAULT_TIMEOUT_S, help="seconds to wait for any reply")
    p.add_argument("--report", help="also write what is printed to this file, rewritten whole as the run goes "
                   "(the add-on reads it)")


def _robot_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--robot-path", default="/IRB140", help="object path of the robot's base in the scene")
    p.add_argument("--tip", help="object path of the TCP (a dummy under the last joint); default the last joint's frame")
    p.add_argument("--joints", help="comma-separated object paths of the arm's joints, base to tip "
                                    "(default: every joint under the base, which must form one chain)")


def _law_options(p: argparse.ArgumentParser, minute_help: str) -> None:
    law = p.add_mutually_exclusive_group()
    law.add_argument("--stabilisation-min", type=float, default=LinearRamp().stabilisation_min,
                     help="minutes until thermal stabilisation (linear growth; the authors: D/T added each minute)")
    law.add_argument("--static", action="store_true", help="the full table (the paper's static case)")
    p.add_argument("--minute", type=float, default=None, help=minute_help)
    p.add_argument("--convention", choices=("table", "authors"), default="table",
                   help="'table': seed 002, Tables 6-7 (thermocomp's model); 'authors': the table applied as the "
                        "paper authors' CoppeliaSim script did (world-frame increments of the joint objects)")


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``coppeliasim`` subcommand."""
    fmt = HelpFormatter
    cs = sub.add_parser("coppeliasim",
                        description="Read a robot from a CoppeliaSim scene, show its deformation, compensate a "
                                    "program and check it in the scene; convert the paper authors' scene "
                                    "convention; install the CoppeliaSim add-on. See docs/coppeliasim.md.")
    acts = cs.add_subparsers(dest="coppeliasim_command", required=True, metavar="ACTION")

    info = acts.add_parser("info", help="connect and print CoppeliaSim's version and protocol", formatter_class=fmt)
    _connection_options(info)

    read = acts.add_parser("read-robot", help="print (or write) the scene robot in table form", formatter_class=fmt)
    _connection_options(read)
    _robot_options(read)
    read.add_argument("--out", help="write the table-form CSV here instead of printing it")
    read.add_argument("--joint-objects-out", metavar="CSV",
                      help="also write the joint objects' world orientations at the zero pose (what "
                           "'compensate --convention authors-coppeliasim --joint-objects' needs for this robot)")

    check = acts.add_parser("check", help="compare CoppeliaSim's TCP with thermocomp's forward kinematics",
                            formatter_class=fmt)
    _connection_options(check)
    _robot_options(check)
    check.add_argument("--configurations", type=int, default=20, help="random configurations within the limits")
    check.add_argument("--seed", type=seed_arg, default=0, help="seed of the random configurations")
    check.add_argument("--compare", metavar="ROBOT",
                       help="also compare the scene robot with this robot (built-in name, e.g. irb140-paper-scene, or "
                            "a robot file: table-form .csv, .urdf or .xacro, read with the robot-file options below)")
    add_robot_file_arguments(check)

    show = acts.add_parser("show", help="show the deformed robot, then restore the scene", formatter_class=fmt)
    _connection_options(show)
    _robot_options(show)
    show.add_argument("--deformation", required=True, help="deformation table CSV [mm, deg]")
    _law_options(show, "minute shown (default: the full table)")
    show.add_argument("--magnification", type=float, default=1.0, help="scale the deformation for display, 1 to 1000")
    show.add_argument("--hold-s", type=float, default=10.0, help="seconds to keep it shown (Ctrl-C ends early)")
    show.add_argument("--until-file", help="end early as soon as this file exists (used by the add-on)")

    comp = acts.add_parser("compensate", help="compensate a program on the scene robot and check it in the scene",
                           formatter_class=fmt)
    _connection_options(comp)
    _robot_options(comp)
    comp.add_argument("--deformation", required=True, help="deformation table CSV [mm, deg]")
    comp.add_argument("--targets", required=True, help="targets CSV (as for thermocomp compensate)")
    comp.add_argument("--out", required=True, help="results CSV (written completely or not at all)")
    _law_options(comp, "solve this one minute only (as --minutes M)")

    comp.add_argument("--minutes", type=minutes_arg, default=None,
                      help="minutes solved, START:STOP[:STEP] or a list (default 0:200, or 0 with --static)")
    comp.add_argument("--check-minutes", type=minutes_arg, default=None,
                      help="minutes replayed in the scene (default the last one solved)")
    comp.add_argument("--orientation-euler-xyz-deg", type=float, nargs=3, metavar=("A", "B", "C"),
                      help="orientation for position-only targets, CoppeliaSim Euler xyz [deg]")
    comp.add_argument("--allow-failures", action="store_true", help="write the file even if some rows fail")
    add_solver_arguments(comp)
    add_progress_argument(comp)

    play = acts.add_parser("play", help="play the compensated program of a results CSV in the scene",
                           formatter_class=fmt)
    _connection_options(play)
    _robot_options(play)
    play.add_argument("--results", required=True, help="results CSV of thermocomp compensate")
    play.add_argument("--deformation", help="show the robot deformed by this table while playing")
    _law_options(play, "minute played (default: the last in the file)")
    play.add_argument("--magnification", type=float, default=1.0, help="scale the shown deformation, 1 to 1000")
    play.add_argument("--dwell-s", type=float, default=0.5, help="seconds at each target")

    rest = acts.add_parser("restore", help="put back a robot an earlier run left deformed (killed before it "
                                           "restored), from the nominal poses saved in the scene", formatter_class=fmt)
    _connection_options(rest)
    rest.add_argument("--robot-path", default="/IRB140", help="object path of the robot's base in the scene")
    rest.add_argument("--forget", action="store_true",
                      help="drop the saved nominal poses without restoring (accept the scene as it is as nominal)")

    load = acts.add_parser("load-scene", help="build a scene file's cell (boxes, cylinders, spheres) in CoppeliaSim "
                                              "and place the robot's base as it says", formatter_class=fmt)
    load.add_argument("scene", help="scene file, e.g. scenes/irb140_paper_cell.toml (docs/scenes.md)")
    _connection_options(load)
    load.add_argument("--robot-path", default="/IRB140",
                      help="object path of the robot's base to place; 'none' leaves the robot where it is")

    conv = acts.add_parser("convention", help="the authors' scene convention as a table-form table, and how far "
                                              "it is from the paper's model", formatter_class=fmt)
    conv.add_argument("--robot", default="irb140", help="built-in robot or robot file (the authors' joint "
                                                        "frames are built in for irb140 only)")
    add_robot_file_arguments(conv)
    conv.add_argument("--deformation", required=True, help="the authors' deformation table CSV [mm, deg]")
    law = conv.add_mutually_exclusive_group()
    law.add_argument("--stabilisation-min", type=float, default=None,
                     help="incremental law: D/T added each minute, T minutes to stabilisation")
    law.add_argument("--static", action="store_true", help="one-shot: the full table applied once (default)")
    conv.add_argument("--minute", type=float, default=None, help="minute of the incremental law (default T)")
    conv.add_argument("--configurations", type=int, default=2000, help="random configurations compared")
    conv.add_argument("--seed", type=seed_arg, default=0, help="seed of the random configurations")
    conv.add_argument("--out", help="write the equivalent table-form deformation CSV [mm, deg] here")

    inst = acts.add_parser("install-addon", help="copy the add-on into CoppeliaSim's addOns/ folder",
                           formatter_class=fmt)
    inst.add_argument("--coppeliasim-dir", required=True, help="CoppeliaSim's installation folder")
    inst.add_argument("--force", action="store_true", help="replace an existing, different add-on file")

    req = acts.add_parser("addon-run", help="run the action the add-on wrote into REQUEST (the add-on's one fixed "
                                            "command line, so that CoppeliaSim asks its permission once)",
                          formatter_class=fmt)
    req.add_argument("request", type=Path, help="request file: 'thermocomp-addon-request/1', then one argument a line")
    cs.set_defaults(handler=run)


def _address(args: argparse.Namespace):
    from thermocomp.app.coppeliasim import Address

    return Address(args.host, args.port, args.timeout_s, announce=args.coppeliasim_command != "info")


def _which(args: argparse.Namespace):
    from thermocomp.app.coppeliasim import RobotInScene

    return RobotInScene.from_text(args.robot_path, args.tip, args.joints)


def _law(args: argparse.Namespace):
    from thermocomp.app.coppeliasim import SceneLaw

    return SceneLaw(program_settings(args).time_law, args.convention)


def _compensate(args: argparse.Namespace, job) -> int:
    from thermocomp.app import coppeliasim as actions
    from thermocomp.cli.progress import ProgressBar
    from thermocomp.errors import ConfigurationError

    settings = program_settings(args)
    minutes = settings.minutes
    if args.minute is not None:
        if args.minutes is not None:
            raise ConfigurationError("give the minutes solved with --minutes or --minute, not both")
        minutes = (float(args.minute),)
    scene = actions.SceneCompensation(args.deformation, args.targets, args.out, _law(args), tuple(minutes),
                                      check_minutes=args.check_minutes, fixed_orientation=settings.fixed_orientation,
                                      solver=solver_options(args), allow_failures=args.allow_failures)
    actions.compensate(_address(args), _which(args), scene, job,
                       progress=ProgressBar("compensating", enabled=settings.progress))
    return EXIT_OK


def _compensate_program(args: argparse.Namespace, job) -> int:
    """``thermocomp compensate --simulator coppeliasim``: its options spelt ``--coppeliasim-host`` ...."""
    from thermocomp.app import coppeliasim as actions
    from thermocomp.app.coppeliasim import Address, RobotInScene, SceneLaw
    from thermocomp.cli.progress import ProgressBar
    from thermocomp.simulators.coppeliasim.connection import DEFAULT_TIMEOUT_S

    settings = program_settings(args)
    address = Address(args.coppeliasim_host, args.coppeliasim_port, DEFAULT_TIMEOUT_S,
                      options=("--coppeliasim-host", "--coppeliasim-port"))
    law = SceneLaw(settings.time_law, "authors" if args.convention == "authors-coppeliasim" else "table",
                   settings.time_law_file)
    scene = actions.SceneCompensation(args.deformation, args.targets, args.out, law, tuple(settings.minutes),
                                      fixed_orientation=settings.fixed_orientation, solver=solver_options(args),
                                      allow_failures=args.allow_failures)
    actions.compensate(address, RobotInScene(args.robot_path, args.tip), scene, job,
                       progress=ProgressBar("compensating", enabled=settings.progress))
    return EXIT_OK


#: Each action: one library call of :mod:`thermocomp.app.coppeliasim` with the parsed options.
ACTION_CALLS = {
    "info": lambda a, job: actions().info(_address(a), job),
    "read-robot": lambda a, job: actions().read_robot_table(_address(a), _which(a), a.out, job,
                                                            joint_objects_out=a.joint_objects_out),
    "check": lambda a, job: actions().check_fk(_address(a), _which(a), actions().FkCheck(
        a.configurations, a.seed, a.compare, robot_file_options(a)), job),
    "show": lambda a, job: actions().show(_address(a), _which(a), actions().Showing(
        a.deformation, _law(a), a.minute, a.magnification, a.hold_s, a.until_file), job),
    "compensate": _compensate,
    "compensate-program": _compensate_program,
    "play": lambda a, job: actions().play(_address(a), _which(a), actions().Playing(
        a.results, _law(a), a.deformation, a.minute, a.magnification, a.dwell_s), job),
    "restore": lambda a, job: actions().restore(_address(a), a.robot_path, a.forget, job),
    "load-scene": lambda a, job: actions().load_scene(_address(a), a.scene,
                                                      None if a.robot_path.lower() == "none" else a.robot_path, job),
    "convention": lambda a, job: actions().convention(actions().ConventionComparison(
        a.robot, a.deformation, a.stabilisation_min, a.minute, a.configurations, a.seed, a.out,
        robot_file_options(a)), job),
    "addon-run": lambda a, job: _addon_run(a),
    "install-addon": lambda a, job: print(f"installed {actions().install(a.coppeliasim_dir, a.force, job)}; restart "
                                          "CoppeliaSim, then open Modules > Thermal compensation"),
}


def _addon_run(args: argparse.Namespace) -> int:
    """The action the add-on wrote into a request file, run as its own command line, the request one of its inputs
    (a ``--report`` naming the request wrote the run's log over it)."""
    from thermocomp.cli.main import build_parser
    from thermocomp.io.job import Job
    from thermocomp.simulators.coppeliasim.addon import read_addon_request

    argv = read_addon_request(args.request)
    try:
        request = build_parser(argv[0]).parse_args(argv)
    except SystemExit as exc:  # argparse refused an option of the request (already explained on stderr)
        report = argv[argv.index("--report") + 1] if "--report" in argv[:-1] else None
        with Job() as job:
            job.input(args.request, "REQUEST")
            job.log(report, "--report")
            job.log_error(f"the add-on's request {args.request} has options this thermocomp does not accept "
                          f"({' '.join(argv[:2])}): reinstall the add-on of this version (thermocomp coppeliasim "
                          "install-addon --force)")
        return EXIT_INPUT if exc.code else EXIT_OK
    request.addon_request = args.request
    return request.handler(request)


def actions():
    """:mod:`thermocomp.app.coppeliasim`, imported when an action runs."""
    from thermocomp.app import coppeliasim as module

    return module


def run(args: argparse.Namespace) -> int:
    """Run the action with the run's job: ``--report`` holds what is printed, and the error of a failed run."""
    return run_action(args.coppeliasim_command, args, getattr(args, "report", None))


def run_action(action: str, args: argparse.Namespace, report: str | None) -> int:
    """Run ``action`` (one of :data:`ACTIONS`) with ``args``; errors are also logged to ``report``."""
    from thermocomp.app.jobs import CompensationFailed
    from thermocomp.errors import ThermocompError
    from thermocomp.io.job import Job

    with Job() as job:
        job.input(getattr(args, "addon_request", None), "REQUEST")  # (coppeliasim addon-run's request file)
        job.log(report, "--report")
        try:
            status = ACTION_CALLS[action](args, job)
            return EXIT_OK if status is None else status
        except CompensationFailed as exc:
            job.echo(exc.report.text())
            job.log_error(str(exc))
            print(f"thermocomp: error: {exc}", file=sys.stderr)
            return EXIT_FAILED_ROWS
        except ThermocompError as exc:
            job.log_error(str(exc))  # then reported on stderr by main()
            raise
        except KeyboardInterrupt as exc:
            restored = "; the scene was restored" if action in (*SCENE_ACTIONS, "compensate-program") else ""
            job.log_error(f"interrupted ({exc or 'Ctrl-C'}){restored}")
            raise
