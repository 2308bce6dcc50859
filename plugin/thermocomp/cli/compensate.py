"""``thermocomp compensate``: corrected joint angles for every target and minute of a program."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from thermocomp.cli.common import (
    EXIT_FAILED_ROWS,
    EXIT_INPUT,
    EXIT_OK,
    ROBOT_HELP,
    HelpFormatter,
    add_program_arguments,
    add_progress_argument,
    add_robot_file_arguments,
    add_solver_arguments,
    program_settings,
    robot_file_options,
    solver_options,
)
from thermocomp.compensation.compensate import CompensationOptions
from thermocomp.errors import capped


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``compensate`` subcommand."""
    comp = sub.add_parser(
        "compensate",
        description=(
            "Solve the inverse kinematics of the thermally deformed robot for every target of a "
            "program at every minute (or at each target's time_min), and write one CSV row per "
            "(minute, target) with the corrected joint angles [deg], the reached pose, its deviation, "
            "what the uncompensated program would miss by, and the status. Units: files in mm and "
            "degrees; see docs/conventions.md."
        ),
        formatter_class=HelpFormatter,
    )
    comp.add_argument("--robot", default="irb140", help=ROBOT_HELP)
    add_robot_file_arguments(comp)
    add_program_arguments(comp, "solved", targets_required=False)
    where = comp.add_mutually_exclusive_group(required=True)
    where.add_argument("--out", help="results CSV (written completely or not at all; never an input); "
                       "with --program: the compensated program")
    where.add_argument("--out-dir", metavar="DIR",
                       help="with --program (several programs, or folders of them): an existing folder receiving each "
                            "compensated program under its own name, all or none per program; prints a summary table")
    comp.add_argument("--convention", choices=("table", "authors-coppeliasim"), default="table",
                      help="'table': the deformation table as seed 002, Tables 6-7 read it; 'authors-coppeliasim': "
                           "applied as the paper authors' CoppeliaSim script did (world-frame increments of the "
                           "joint objects; with a ramp D/T added every minute), offline, for irb140 or a robot "
                           "read from a scene with --joint-objects (docs/coppeliasim.md)")
    comp.add_argument("--joint-objects", metavar="CSV",
                      help="with --convention authors-coppeliasim: the scene's joint-object orientations, written by "
                           "'thermocomp coppeliasim read-robot --joint-objects-out' beside the robot it read")
    add_solver_arguments(comp)
    comp.add_argument("--plot", metavar="PNG",
                      help="also draw the TCP error before/after compensation and the joint corrections per minute")
    comp.add_argument("--allow-failures", action="store_true",
                      help="write the file even if some rows fail (their status column says so); exit 0")
    add_progress_argument(comp)
    _add_robot_program_arguments(comp)
    sim = comp.add_argument_group("CoppeliaSim", "with --simulator coppeliasim: the robot comes from a running "
                                  "CoppeliaSim scene, and the result is replayed there (docs/coppeliasim.md)")
    sim.add_argument("--simulator", choices=("none", "coppeliasim"), default="none",
                     help="read the robot from a simulator scene and check the result in it")
    sim.add_argument("--coppeliasim-host", default="localhost", help="host of CoppeliaSim's ZMQ remote API")
    sim.add_argument("--coppeliasim-port", type=int, default=23000, help="port of CoppeliaSim's ZMQ remote API")
    sim.add_argument("--robot-path", default="/IRB140", help="object path of the robot's base in the scene")
    sim.add_argument("--tip", help="object path of the TCP dummy (default: the last joint's frame)")
    comp.set_defaults(handler=run)


def _add_robot_program_arguments(comp: argparse.ArgumentParser) -> None:
    group = comp.add_argument_group(
        "robot programs", "--program instead of --targets: an ABB RAPID module (.mod, .modx, .prg) or a UR "
        "URScript (.script, .urscript) in, the same program with only its motion targets changed out "
        "(docs/programs.md)")
    group.add_argument("--program", nargs="+", metavar="PROGRAM",
                       help="robot program to compensate (the format comes from the extension); with --out-dir: "
                            "several, or folders of them")
    group.add_argument("--jobs", type=int, default=1, metavar="N",
                       help="with --out-dir: programs compensated at once, each in its own process")
    group.add_argument("--program-output", choices=("filtered", "joints"), default="filtered",
                       help="'filtered': Cartesian targets for the nominal controller that make the warm robot reach "
                            "the true ones (linear and circular moves stay so); 'joints': joint targets "
                            "(MoveAbsJ / movej), exact, but linear moves become joint moves")
    time = group.add_mutually_exclusive_group()
    time.add_argument("--at-minute", type=float, metavar="M",
                      help="snapshot: the program compensated for minute M (default: the full table, the stabilised "
                           "robot)")
    time.add_argument("--timed", action="store_true",
                      help="each motion compensated at the minute the timing estimate gives it (one long run)")
    time.add_argument("--time-indexed", type=float, metavar="STEP_MIN",
                      help="one program carrying the corrections for every STEP_MIN minutes up to stabilisation, "
                           "picked from the controller's clock as it runs")
    group.add_argument("--cycles", type=int, default=1, help="times the entry routine runs (timing)")
    group.add_argument("--duration-min", type=float, help="run the cycle until this minute (timing)")
    group.add_argument("--cycle-time-s", type=float, help="a measured cycle time that rescales the estimate [s]")
    group.add_argument("--unsupported", choices=("refuse", "keep"), default="refuse",
                       help="a construct that cannot be followed (a branch that moves, interrupts, GOTO, ...): 'refuse' "
                            "writes nothing and exits 1; 'keep' leaves it as written, with a warning")
    group.add_argument("--joint-targets", choices=("keep", "compensate"), default="keep",
                       help="joint targets (MoveAbsJ, movej of a joint list: home and via positions): 'keep' leaves "
                            "them as written and lists them in the report; 'compensate' compensates them too")
    rapid = comp.add_argument_group("RAPID tasks", "a RAPID program is one module of its task (docs/programs.md)")
    rapid.add_argument("--module", action="append", default=[], metavar="FILE",
                       help="another module of the task (repeatable): its declarations (CalibData.mod's tooldata and "
                            "wobjdata) are read and its routines followed where the program calls them. A module "
                            "whose targets change is written beside --out as <out stem>.<module file name> "
                            "(--out cell_comp.mod: cell_comp.Kruvimine.modx), never onto an input or another "
                            "output; unchanged modules are not written")
    rapid.add_argument("--entry", default="main", metavar="NAME",
                       help="the routine one cycle runs (default main; RobotStudio exports often hold Path_10)")
    rapid.add_argument("--max-motions", type=int, metavar="N",
                       help="most motions and waits the program may unroll to through loops (RAPID FOR, URScript while) "
                            "and calls (default 2,000,000, some 8 GB of memory); a program past it is refused with its "
                            "count")
    group.add_argument("--program-report", metavar="TXT",
                       help="also write the program report (text) and beside it a CSV with one row per motion")
    group.add_argument("--results", metavar="CSV", help="also write the results CSV (one row per solve)")


def _program_options(args: argparse.Namespace, settings):
    """``--program``'s own options (:class:`~thermocomp.programs.ProgramOptions`)."""
    from thermocomp.errors import ConfigurationError
    from thermocomp.programs import ProgramOptions, RapidOptions
    from thermocomp.programs.options import indexed_minutes

    if args.simulator != "none":
        raise ConfigurationError("--simulator cannot be combined with --program (the program gives the targets; "
                                 "--at-minute, --timed or --time-indexed give the time)")
    indexed = None
    if args.time_indexed is not None:  # every step up to the time law's stabilisation (--time-law from: included)
        indexed = indexed_minutes(args.time_indexed, settings.time_law)
    return ProgramOptions(
        output=args.program_output, at_minute=args.at_minute, timed=args.timed, indexed_minutes=indexed,
        cycles=args.cycles, duration_min=args.duration_min, cycle_time_s=args.cycle_time_s,
        unsupported=args.unsupported, joint_targets=args.joint_targets,
        rapid=RapidOptions(modules=tuple(args.module), entry=args.entry,
                           **({} if args.max_motions is None else {"max_motions": args.max_motions})))


def _check_task_options(args: argparse.Namespace) -> None:
    """The RAPID task options describe a program's task: refused with --targets, naming them."""
    from thermocomp.errors import ConfigurationError

    task = [flag for flag, used in (("--module", args.module), ("--entry", args.entry != "main"),
                                    ("--max-motions", args.max_motions is not None))
            if used]
    if task:
        raise ConfigurationError(f"{', '.join(task)}: only with --program (they describe a RAPID program's task)")


def run(args: argparse.Namespace) -> int:
    """One :class:`thermocomp.app.jobs.CompensationJob` (its option combinations checked there), run by
    :func:`thermocomp.app.compensate.run_compensation`, for --targets and --program alike."""
    from thermocomp.app.compensate import CompensationJob, run_compensation
    from thermocomp.app.jobs import CompensationFailed
    from thermocomp.cli.progress import ProgressBar
    from thermocomp.compile_notice import compile_notice
    from thermocomp.errors import ConfigurationError

    if args.program is None and args.targets is None:
        raise ConfigurationError("one of --targets or --program is required")  # (before --out-dir's own checks)
    if args.program is None:
        _check_task_options(args)
    if args.out_dir is not None:
        return _run_programs(args)
    if args.program is None and args.simulator == "coppeliasim":
        return _run_in_coppeliasim(args)
    if args.program is not None and (len(args.program) > 1 or Path(args.program[0]).is_dir()):
        raise ConfigurationError("--program: several programs, or a folder, are written with --out-dir DIR, "
                                 "not --out")
    if args.jobs != 1:
        raise ConfigurationError("--jobs serves --out-dir only")
    settings = program_settings(args)
    program = args.program is not None
    options = CompensationOptions(time_law=settings.time_law, composition=args.composition,
                                  time_law_file=settings.time_law_file, **solver_options(args),
                                  **({} if program else {"minutes": settings.minutes}))
    job = CompensationJob(
        args.robot, args.deformation, targets=args.targets, program=args.program[0] if program else None,
        out=args.out, options=options, minutes_given=args.minutes is not None,
        program_options=_program_options(args, settings) if program else None,
        results=args.results, report=args.program_report,
        convention=args.convention, joint_objects=args.joint_objects, fixed_orientation=settings.fixed_orientation,
        allow_failures=args.allow_failures, plot=args.plot, robot_options=robot_file_options(args))
    bar = ProgressBar("compensating", enabled=settings.progress)
    try:
        with compile_notice(bar.note):
            report = run_compensation(job, progress=bar)
    except CompensationFailed as exc:
        print(exc.report.text(), file=sys.stderr)
        print(f"thermocomp: error: {exc}", file=sys.stderr)
        return EXIT_FAILED_ROWS
    print(report.text())
    for line in report.closing_lines():
        print(line)
    for line in report.warnings():
        print(f"thermocomp: warning: {line}", file=sys.stderr)
    return EXIT_OK


def _run_programs(args: argparse.Namespace) -> int:
    """``--program ... --out-dir DIR``: one call of :func:`thermocomp.app.compensate.compensate_programs`; the summary table;
    the exit status of the worst program."""
    from thermocomp.app.compensate import STATUSES, CompensationJob, compensate_programs, summary_table
    from thermocomp.errors import ConfigurationError

    if args.program is None:
        raise ConfigurationError("--out-dir serves --program only (--targets writes one results CSV: --out)")
    misplaced = [flag for flag, used in (("--results", args.results is not None),
                                          ("--program-report", args.program_report is not None),
                                          ("--plot", args.plot is not None), ("--progress", args.progress))
                 if used]
    if misplaced:
        raise ConfigurationError(f"{', '.join(misplaced)} cannot be combined with --out-dir (each program's report "
                                 "is in the summary; compensate one program with --out for the other outputs)")
    settings = program_settings(args)
    options = CompensationOptions(time_law=settings.time_law, composition=args.composition,
                                  time_law_file=settings.time_law_file, **solver_options(args))
    # the job of every program (its option combinations checked there)
    job = CompensationJob(args.robot, args.deformation, targets=args.targets, program=args.program[0],
                          options=options, minutes_given=args.minutes is not None,
                          program_options=_program_options(args, settings), convention=args.convention,
                          joint_objects=args.joint_objects, fixed_orientation=settings.fixed_orientation,
                          allow_failures=args.allow_failures, robot_options=robot_file_options(args))
    outcomes = compensate_programs(job, args.program, args.out_dir, jobs=args.jobs)
    for outcome in outcomes:
        if outcome.status != "ok":
            print(f"thermocomp: error: {capped(outcome.message)}", file=sys.stderr)
    print(summary_table(outcomes))
    worst = max((STATUSES.index(o.status) for o in outcomes), default=0)
    return EXIT_OF_STATUS[STATUSES[worst]]


#: The exit status of each status of a program of a batch (:data:`thermocomp.app.compensate.STATUSES`, best first): a
#: refused program (bad input) is worse than one whose points could not all be compensated.
EXIT_OF_STATUS = {"ok": EXIT_OK, "failed": EXIT_FAILED_ROWS, "refused": EXIT_INPUT}


def _run_in_coppeliasim(args: argparse.Namespace) -> int:
    """``--simulator coppeliasim``: the same compensation, on the scene's robot, replayed in the scene."""
    from thermocomp.cli.coppeliasim import run_action
    from thermocomp.errors import ConfigurationError

    unsupported = [flag for flag, used in (("--composition", args.composition != "table"), ("--plot", bool(args.plot)),
                                           ("--robot", args.robot != "irb140")) if used]
    if unsupported:
        raise ConfigurationError(f"{', '.join(unsupported)} cannot be combined with --simulator coppeliasim "
                                 "(the robot comes from the scene: --robot-path, --tip)")
    return run_action("compensate-program", args, None)
