"""``thermocomp coppeliasim``: the plugin in a running CoppeliaSim, and the authors' scene convention.

Each action is one library call (:mod:`thermocomp.simulators.coppeliasim`,
:mod:`thermocomp.deformation.coppeliasim_convention`). The CoppeliaSim add-on
(``plugin/thermocomp/simulators/coppeliasim/thermocomp.lua``) runs these actions; see
docs/coppeliasim.md.
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np

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
    solver_options,
)
from thermocomp.deformation.timelaw import LinearRamp

#: Actions of ``thermocomp coppeliasim``; the add-on may call only these (tests check it).
ACTIONS = ("info", "read-robot", "check", "show", "compensate", "play", "restore", "load-scene", "convention",
           "install-addon", "addon-run")

#: Actions that change the scene: SIGTERM and SIGHUP end them through the same restore path as Ctrl-C.
SCENE_ACTIONS = ("check", "show", "compensate", "play")


def _emit(args: argparse.Namespace, text: str) -> None:
    """Print ``text``; with ``--report FILE`` also append it there (the add-on shows that file)."""
    print(text, flush=True)
    report = getattr(args, "report", None)
    if report:
        with open(report, "a", encoding="utf-8") as f:
            f.write(text + "\n")


def _report_error(args: argparse.Namespace, text: str) -> None:
    """Append an error to ``--report`` (the add-on shows that file; it cannot see stderr)."""
    _report_line(args, f"thermocomp: error: {text}")


def _report_line(args: argparse.Namespace, text: str) -> None:
    report = getattr(args, "report", None)
    if report:
        with open(report, "a", encoding="utf-8") as f:
            f.write(text + "\n")


@contextlib.contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
    """Turn SIGTERM and SIGHUP into ``KeyboardInterrupt`` for the block (main thread only).

    A scene action killed with ``kill`` (or its terminal closed) then restores
    the scene on its way out exactly as on Ctrl-C. A second signal while that
    restore runs is ignored, so it cannot cut the restore short (SIGKILL
    still ends the process; ``thermocomp coppeliasim restore`` then repairs the scene).
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    names = [n for n in ("SIGTERM", "SIGHUP") if hasattr(signal, n)]
    numbers = [getattr(signal, n) for n in names]
    fired = []

    def handler(signum, frame):
        if fired:
            return
        fired.append(signum)
        raise KeyboardInterrupt(f"terminated by {signal.Signals(signum).name}")

    previous = {n: signal.signal(n, handler) for n in numbers}
    try:
        yield
    finally:
        for n, h in previous.items():
            signal.signal(n, h)


def _connection_options(p: argparse.ArgumentParser) -> None:
    from thermocomp.simulators.coppeliasim.connection import (
        DEFAULT_HOST,
        DEFAULT_PORT,
        DEFAULT_TIMEOUT_S,
    )

    p.add_argument("--host", default=DEFAULT_HOST, help="host of CoppeliaSim's ZMQ remote API server")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help="its port (CoppeliaSim's zmqRemoteApi.rpcPort)")
    p.add_argument("--timeout-s", type=float, default=DEFAULT_TIMEOUT_S, help="seconds to wait for any reply")
    p.add_argument("--report", help="also append what is printed to this file (used by the add-on)")


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
    cs = sub.add_parser("coppeliasim", help="work with a running CoppeliaSim (ZMQ remote API) and its add-on",
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
    check.add_argument("--seed", type=int, default=0, help="seed of the random configurations")
    check.add_argument("--compare", help="also compare the scene robot with this robot (built-in name or file)")

    show = acts.add_parser("show", help="show the deformed robot, then restore the scene", formatter_class=fmt)
    _connection_options(show)
    _robot_options(show)
    show.add_argument("--deformation", required=True, help="deformation table CSV [mm, deg]")
    _law_options(show, "minute shown (default: the full table)")
    show.add_argument("--magnification", type=float, default=1.0, help="scale the deformation for display")
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
    play.add_argument("--magnification", type=float, default=1.0, help="scale the shown deformation")
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
    conv.add_argument("--seed", type=int, default=0, help="seed of the random configurations")
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


def run(args: argparse.Namespace) -> int:
    from thermocomp.errors import ThermocompError

    handlers = {
        "info": _info, "read-robot": _read_robot, "check": _check, "show": _show, "compensate": _compensate,
        "play": _play, "restore": _restore, "load-scene": _load_scene, "convention": _convention,
        "install-addon": _install_addon, "addon-run": _addon_run,
    }
    handler = handlers[args.coppeliasim_command]
    try:
        if args.coppeliasim_command in SCENE_ACTIONS:
            with _terminate_as_interrupt():
                return handler(args)
        return handler(args)
    except ThermocompError as exc:
        _report_error(args, str(exc))  # then reported on stderr by main()
        raise
    except KeyboardInterrupt as exc:
        restored = "; the scene was restored" if args.coppeliasim_command in SCENE_ACTIONS else ""
        _report_error(args, f"interrupted ({exc or 'Ctrl-C'}){restored}")
        raise


# --- helpers ------------------------------------------------------------------------------------

def _connect(args):
    from thermocomp.simulators.coppeliasim import CoppeliaSimUnreachable, connect

    try:
        session = connect(args.host, args.port, args.timeout_s)
    except CoppeliaSimUnreachable as exc:
        # Name the options of the command that was run (thermocomp compensate spells them --coppeliasim-*).
        host_option, port_option = getattr(args, "address_options", ("--host", "--port"))
        raise CoppeliaSimUnreachable(f"{exc} Options: {host_option} (now {args.host}), {port_option} "
                                     f"(now {args.port}).") from exc
    if getattr(args, "coppeliasim_command", "info") != "info":  # info prints it on stdout anyway
        # Which CoppeliaSim was reached (several instances listen on 23000, 23001, ...): on stderr, so that
        # stdout stays the action's output (read-robot's CSV).
        print(f"connected to {session.describe()}", file=sys.stderr, flush=True)
        _report_line(args, f"connected to {session.describe()}")
    return session


def _robot(session, args):
    from thermocomp.simulators.coppeliasim import read_robot

    joints = None if args.joints is None else [j.strip() for j in args.joints.split(",") if j.strip()]
    return read_robot(session, args.robot_path, tip_path=args.tip, joint_paths=joints)


def _law(args):
    return program_settings(args).time_law


def _table(chain, args, minute: float | None, R_world_joint=None):
    """The table to apply at ``minute`` and the fraction of it (table form).

    ``R_world_joint``: the joint objects' world orientations at the zero pose
    (a scene robot's own), for the authors' convention."""
    from thermocomp.deformation.coppeliasim_convention import authors_deformation_table
    from thermocomp.io.deformation_csv import read_deformation_csv

    table = read_deformation_csv(args.deformation, n_joints=chain.n_joints)
    law = _law(args)
    if minute is None:
        minute = 0.0 if args.static else args.stabilisation_min
    if args.convention == "authors":
        return authors_deformation_table(chain, table, minute, law, R_world_joint), 1.0
    return table, float(law.fraction(minute))


def authors_offline(robot, deformation, time_law, composition: str, out, joint_objects=None):
    """``thermocomp compensate --convention authors-coppeliasim``: the authors' scene law without CoppeliaSim.

    Returns ``(table, tables_by_minute)`` for :func:`thermocomp.pipeline.run_compensation`;
    the joint-object orientations come from ``joint_objects`` (a file ``coppeliasim read-robot
    --joint-objects-out`` wrote beside the robot it read), else the authors' IRB140 scene's
    (built in for irb140 only).
    """
    from thermocomp.deformation.coppeliasim_convention import authors_law
    from thermocomp.errors import ConfigurationError
    from thermocomp.io.atomic import check_not_input
    from thermocomp.io.deformation_csv import read_deformation_csv
    from thermocomp.io.scene_joints_csv import read_scene_joints_csv
    from thermocomp.robot.builtin import load_robot

    if composition != "table":
        raise ConfigurationError("--convention authors-coppeliasim gives the table-form equivalent of the authors' "
                                 f"scene (composition 'table'); expected no --composition {composition}")
    check_not_input(out, [deformation] + ([] if joint_objects is None else [joint_objects]))
    chain = load_robot(robot)
    R_world_joint = None if joint_objects is None else read_scene_joints_csv(joint_objects, chain.n_joints)
    law = authors_law(chain, read_deformation_csv(deformation, n_joints=chain.n_joints), time_law, R_world_joint)
    return law.table, law.tables_by_minute


# --- actions --------------------------------------------------------------------------------------

def _info(args) -> int:
    with _connect(args) as session:
        _emit(args, session.describe())
    return EXIT_OK


def _read_robot(args) -> int:
    from thermocomp.io.chain_csv import chain_csv_text, write_chain_csv

    with _connect(args) as session:
        robot = _robot(session, args)
    comments = (f"{robot.chain.name} read from the CoppeliaSim scene ({args.robot_path}), table form of seed 002, Table 7",)
    if args.out:
        write_chain_csv(robot.chain, args.out, comments=comments)
        print(f"wrote {args.out}")
    else:
        print(chain_csv_text(robot.chain, comments=comments), end="")
    if args.joint_objects_out:
        from thermocomp.io.scene_joints_csv import write_scene_joints_csv

        write_scene_joints_csv(args.joint_objects_out, robot.R_world_joint, comments=(
            f"joint objects of {robot.chain.name} at the zero pose, read from the CoppeliaSim scene "
            f"({args.robot_path}): world orientation, CoppeliaSim Euler angles (R = Rx Ry Rz) [deg]",))
        print(f"wrote {args.joint_objects_out}", file=sys.stderr if not args.out else sys.stdout)
    return EXIT_OK


def _check(args) -> int:
    from thermocomp.kinematics.fk import fk_matrix
    from thermocomp.kinematics.model import nominal_model
    from thermocomp.robot.builtin import load_robot
    from thermocomp.simulators.coppeliasim import check_nominal_fk

    with _connect(args) as session:
        robot = _robot(session, args)
        chain = robot.chain
        rng = np.random.default_rng(args.seed)
        q = rng.uniform(chain.lower, chain.upper, size=(args.configurations, chain.n_joints))
        d = check_nominal_fk(session, robot, q)
    _emit(args, f"{session.describe()}; robot {chain.name} ({chain.n_joints} joints)")
    _emit(args, f"CoppeliaSim's TCP vs thermocomp's forward kinematics, {len(q)} configurations: max "
          f"{d[:, 0].max() * 1e3:.3g} mm, {np.degrees(d[:, 1].max()):.3g} deg")
    if args.compare:
        other = load_robot(args.compare)
        T_a = fk_matrix(nominal_model(chain), q)
        T_b = fk_matrix(nominal_model(other), q)
        _emit(args, f"scene robot vs {other.name}: max {np.abs(T_a[:, :3, 3] - T_b[:, :3, 3]).max() * 1e3:.3g} mm "
              f"apart on the same configurations")
    return EXIT_OK


def _show(args) -> int:
    from thermocomp.deformation.apply import deformed_model
    from thermocomp.errors import ConfigurationError
    from thermocomp.simulators.coppeliasim import deformation_shown

    if not args.magnification > 0:
        raise ConfigurationError(f"magnification: expected > 0, got {args.magnification}")
    with _connect(args) as session:
        robot = _robot(session, args)
        table, fraction = _table(robot.chain, args, args.minute, robot.R_world_joint)
        model = deformed_model(robot.chain, table, fraction * args.magnification)
        with deformation_shown(session, robot, model):
            _emit(args, f"showing {table.source} x {args.magnification:g} on {robot.chain.name}; "
                  f"restoring after {args.hold_s:g} s or on Ctrl-C")
            deadline = time.monotonic() + args.hold_s
            stop = None if args.until_file is None else Path(args.until_file)
            while time.monotonic() < deadline and not (stop is not None and stop.exists()):
                time.sleep(0.1)
        _emit(args, "restored the nominal scene")
    return EXIT_OK


def _compensate(args) -> int:
    from thermocomp.cli.progress import ProgressBar
    from thermocomp.compensation.compensate import CompensationOptions
    from thermocomp.deformation.coppeliasim_convention import authors_law
    from thermocomp.errors import ConfigurationError
    from thermocomp.io.deformation_csv import read_deformation_csv
    from thermocomp.io.targets_csv import read_targets_csv
    from thermocomp.pipeline import CompensationFailed
    from thermocomp.simulators.coppeliasim import compensate_in_scene

    settings = program_settings(args)
    law = settings.time_law
    with _connect(args) as session:
        robot = _robot(session, args)
        program = read_targets_csv(args.targets, fixed_orientation=settings.fixed_orientation,
                                   n_joints=robot.chain.n_joints)
        table = read_deformation_csv(args.deformation, n_joints=robot.chain.n_joints)
        minutes = settings.minutes
        if args.minute is not None:
            if args.minutes is not None:
                raise ConfigurationError("give the minutes solved with --minutes or --minute, not both")
            minutes = (float(args.minute),)
        tables_by_minute = None
        if args.convention == "authors":
            # the scene's own joint-object orientations; with a ramp, each minute is its own table
            authors = authors_law(robot.chain, table, law, robot.R_world_joint)
            table, tables_by_minute = authors.table, authors.tables_by_minute
        options = CompensationOptions(time_law=law, minutes=minutes, **solver_options(args))
        show_progress = settings.progress
        try:
            report, check = compensate_in_scene(session, robot, table, program, options=options, out=args.out,
                                                allow_failures=args.allow_failures,
                                                check_minutes=args.check_minutes,
                                                tables_by_minute=tables_by_minute,
                                                progress=ProgressBar("compensating", enabled=show_progress))
        except CompensationFailed as exc:
            _emit(args, exc.report.text())
            _report_error(args, str(exc))
            print(f"thermocomp: error: {exc}", file=sys.stderr)
            return EXIT_FAILED_ROWS
    _emit(args, report.text())
    _emit(args, check.text())
    return EXIT_OK


def _play(args) -> int:
    from thermocomp.deformation.apply import deformed_model
    from thermocomp.simulators.coppeliasim.play import play, read_results_rows

    with _connect(args) as session:
        robot = _robot(session, args)
        rows = read_results_rows(args.results, robot.chain.n_joints, args.minute)
        model = None
        if args.deformation:
            table, fraction = _table(robot.chain, args, rows.minute, robot.R_world_joint)
            model = deformed_model(robot.chain, table, fraction * args.magnification)
            if not args.static and args.convention == "table" and fraction == 0.0:
                _emit(args, f"note: minute {rows.minute:g} of the linear ramp applies none of the table, so the robot "
                            "is shown undeformed; results of 'compensate --static' are played deformed with --static")
        _emit(args, f"playing {len(rows.target)} targets of minute {rows.minute:g} from {args.results}")
        play(session, robot, rows.q, model=model, dwell_s=args.dwell_s,
             on_row=lambda k: _emit(args, f"  {rows.target[k]}"))
        _emit(args, "restored the nominal scene")
    return EXIT_OK


def _restore(args) -> int:
    from thermocomp.simulators.coppeliasim import restore_saved_nominal

    with _connect(args) as session:
        count = restore_saved_nominal(session, args.robot_path, forget_only=args.forget)
    if count is None:
        _emit(args, f"nothing to restore: no nominal poses saved on {args.robot_path} (the last run restored it)")
    elif args.forget:
        _emit(args, f"dropped the saved nominal poses of {args.robot_path}; the scene as it is counts as nominal")
    else:
        _emit(args, f"restored the nominal poses of {count} objects of {args.robot_path}")
    return EXIT_OK


def _load_scene(args) -> int:
    from thermocomp.io.scene_file import read_scene
    from thermocomp.simulators.coppeliasim import load_cell

    scene = read_scene(args.scene)  # read before connecting: a bad file touches nothing
    robot_path = None if args.robot_path.lower() == "none" else args.robot_path
    with _connect(args) as session:
        loaded = load_cell(session, scene, robot_path)
    _emit(args, loaded.text(scene))
    return EXIT_OK


def _convention(args) -> int:
    from thermocomp.deformation.coppeliasim_convention import convention_difference
    from thermocomp.deformation.timelaw import LinearRamp, Static
    from thermocomp.io.deformation_csv import (
        deformation_csv_text,
        read_deformation_csv,
        write_deformation_csv,
    )
    from thermocomp.robot.builtin import load_robot

    chain = load_robot(args.robot, robot_file_options(args))
    table = read_deformation_csv(args.deformation, n_joints=chain.n_joints)
    if args.stabilisation_min is None:
        law, minute = Static(), None
    else:
        law = LinearRamp(args.stabilisation_min)
        minute = args.stabilisation_min if args.minute is None else args.minute
    diff = convention_difference(chain, table, minute, law, n_configurations=args.configurations, seed=args.seed)
    comments = (f"Table-form equivalent of {table.source} applied with the authors' CoppeliaSim scene convention "
                f"({diff.law}), robot {chain.name}; rows: joints 1..n (docs/coppeliasim.md)",)
    if args.out:
        write_deformation_csv(diff.authors_table, args.out, comments=comments)
        print(f"wrote {args.out}")
    else:
        print(deformation_csv_text(diff.authors_table, comments=comments), end="")
    print(diff.text())
    return EXIT_OK


def _addon_run(args) -> int:
    from thermocomp.cli.main import main
    from thermocomp.simulators.coppeliasim.addon import read_addon_request

    argv = read_addon_request(args.request)
    try:
        return main(argv)
    except SystemExit as exc:  # argparse refused an option of the request (already explained on stderr)
        args.report = argv[argv.index("--report") + 1] if "--report" in argv[:-1] else None
        _report_error(args, f"the add-on's request {args.request} has options this thermocomp does not accept "
                            f"({' '.join(argv[:2])}): reinstall the add-on of this version (thermocomp coppeliasim "
                            "install-addon --force)")
        return EXIT_INPUT if exc.code else EXIT_OK


def _install_addon(args) -> int:
    from thermocomp.simulators.coppeliasim import install_addon

    path = install_addon(args.coppeliasim_dir, overwrite=args.force)
    print(f"installed {path}; restart CoppeliaSim, then open Modules > Thermal compensation")
    return EXIT_OK
