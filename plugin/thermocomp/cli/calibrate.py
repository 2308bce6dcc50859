"""``thermocomp calibrate``: a deformation table and its time law from laser-tracker measurements."""

from __future__ import annotations

import argparse

from thermocomp.cli.common import (
    EXIT_FAILED_ROWS,
    EXIT_OK,
    ROBOT_HELP,
    HelpFormatter,
    add_robot_file_arguments,
    robot_file_options,
    seed_arg,
)


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``calibrate`` subcommand."""
    from thermocomp.calibration.identify import FIXES, CalibrationOptions
    from thermocomp.calibration.timefit import LAW_CHOICES, RESIDUAL_WARNING_RATIO

    defaults = CalibrationOptions()
    cal = sub.add_parser(
        "calibrate",
        description=(
            "Fit the per-joint deformation table of seed 002 (Tables 6-7, Eqs. 18-22) to TCP positions a laser "
            "tracker measured at known joint angles and minutes: weighted Gauss-Newton on the extended FK, with "
            "an identifiability report (what these poses cannot see, and how it was fixed), residuals per "
            "measurement, and optionally the tracker frame, the time law, a hold-out validation and suggested "
            "poses. Measurements far off the fit (Huber-weighted) are named as outliers and left out. Writes the "
            "table CSV, its time law beside it (TABLE.law.toml, read by compensate --time-law from:TABLE.csv) and "
            "the report, all or none. A fit that did not converge or whose table is no deformation of the robot "
            "is a failure: exit 2, the report says why, no table. See docs/calibration.md."
        ),
        formatter_class=HelpFormatter,
    )
    cal.add_argument("--robot", default="irb140", help=ROBOT_HELP)
    add_robot_file_arguments(cal)
    cal.add_argument("--measurements", required=True,
                     help="tracker CSV: time_min, q1_deg.., x_mm,y_mm,z_mm (tracker frame), optional orientation "
                          "(targets' columns) and temp1_C..")
    cal.add_argument("--out", required=True, help="identified table CSV (mm, deg); the time law goes beside it")
    cal.add_argument("--report", required=True, help="calibration report (text)")
    cal.add_argument("--estimate-base", action="store_true",
                     help="estimate the tracker frame T_tracker_world too (6 parameters); otherwise the "
                          "measurements must be in the robot's world frame")
    cal.add_argument("--time-law", choices=LAW_CHOICES, default="auto",
                     help="how the table grows with time: 'static' (every measurement sees the full table), "
                          "'ramp' (seed 002's linear ramp to stabilisation), 'first-order' (1 - exp(-t/tau), "
                          "cooling in pauses), 'temperature' (linear map from temp1_C..), or 'auto': fit each law "
                          "the measurements can determine (temperature only with temp1_C..; static alone for one "
                          "minute) and keep the lowest BIC, every candidate in the report. A fit whose residuals "
                          f"exceed {RESIDUAL_WARNING_RATIO:g} x --sigma-mm is reported with a WARNING")
    cal.add_argument("--heat-on", metavar="START:STOP", action="append", default=None,
                     help="first-order law: an interval [min] in which the robot worked (repeat for each; "
                          "default: always); it cooled outside them. STOP may be 'inf'")
    cal.add_argument("--separate-cooling", action="store_true", help="first-order law: fit a cooling tau of its own")
    cal.add_argument("--sigma-mm", type=float, default=defaults.position_sigma * 1e3,
                     help="the tracker's stated standard deviation per coordinate [mm]")
    cal.add_argument("--sigma-deg", type=float, default=float(defaults.orientation_sigma * 57.29577951308232),
                     help="standard deviation of measured orientations [deg] (when measured)")
    cal.add_argument("--fix", choices=FIXES, default=defaults.fix,
                     help="parameters the poses cannot identify: 'zero' (held at 0, the combinations carry them) "
                          "or 'min-norm' (the minimum-norm solution)")
    cal.add_argument("--rows", default="base,joints,tool",
                     help="table rows to estimate, a comma list of base, joints, tool")
    cal.add_argument("--composition", choices=("table", "eq21"), default=defaults.composition,
                     help="how a table row composes with the segment (docs/conventions.md)")
    cal.add_argument("--validate", metavar="CSV", help="held-out measurements: TCP error before and after "
                     "compensation with the identified table, in the report")
    cal.add_argument("--plot", metavar="PNG", help="draw the TCP errors before/after compensation (held-out "
                     "measurements with --validate, else the fitted ones)")
    cal.add_argument("--suggest", type=int, default=0, metavar="N",
                     help="suggest N poses that would make more parameters identifiable (greedy observability index)")
    cal.add_argument("--candidates", type=int, default=300,
                     help="random candidate configurations within the limits for --suggest")
    cal.add_argument("--seed", type=seed_arg, default=0, help="seed of the candidates for --suggest")
    cal.set_defaults(handler=run)


def _interval(text: str) -> tuple[float, float]:
    from thermocomp.errors import ConfigurationError
    from thermocomp.io.csvtext import number_text

    try:
        if not number_text(text):  # float() reads 1_0 and other scripts' digits
            raise ValueError(text)
        a, b = (float(x) for x in text.split(":"))
    except ValueError:
        raise ConfigurationError(f"--heat-on: expected START:STOP in minutes, got {text!r}") from None
    return a, b


def run(args: argparse.Namespace) -> int:
    import numpy as np

    from thermocomp.app.calibrate import CalibrationJob, run_calibration
    from thermocomp.calibration.identify import CalibrationOptions
    from thermocomp.calibration.timefit import TimeFitOptions
    from thermocomp.deformation.thermal_laws import ALWAYS_ON

    options = CalibrationOptions(position_sigma=args.sigma_mm * 1e-3, orientation_sigma=float(np.radians(args.sigma_deg)),
                                 estimate_base=args.estimate_base, fix=args.fix,
                                 rows=tuple(r.strip() for r in args.rows.split(",")), composition=args.composition)
    heat_on = tuple(_interval(t) for t in args.heat_on) if args.heat_on else ALWAYS_ON
    time = TimeFitOptions(args.time_law, heat_on, args.separate_cooling)
    result = run_calibration(CalibrationJob(args.robot, args.measurements, args.out, args.report, options=options, time=time,
                             validate_with=args.validate, plot=args.plot, suggest=args.suggest,
                             candidates=args.candidates, seed=args.seed, robot_options=robot_file_options(args)))
    print(result.text())
    return EXIT_FAILED_ROWS if result.failed else EXIT_OK
