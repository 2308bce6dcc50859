"""The range of every numeric option, checked by the parser with the option as typed (issue 38).

An option the parser took as any finite number reached the library, which
refused it with its own field's name (``duration: expected > 0 s`` for
``--duration-s``, ``position_sigma`` for ``--sigma-mm``) or not at all
(``--sigma-mm 1e-300`` weighted the calibration by 1e303 and its normal
matrix came out singular: a ``LinAlgError`` traceback). Every option of
``type=float`` or ``type=int`` (and the number lists: ``--minutes``,
``--pose-deg`` ...) has its range here, by the option's name as typed, or by
``"<command> <option>"`` where one name means two things;
:class:`thermocomp.cli.parser.ArgumentParser` checks each value against it
(exit 64, ``argument --sigma-mm: expected ... from 1e-06 to 1000, got 1e-300``).
``tests/test_hostile_input.py`` fails for a numeric option without a range.

The bounds are those of the library where it has them (magnification, picture
size, ports, seeds, MAX_* constants), else the widest that still means
something in the option's unit: no robot cell is a kilometre, no test a year,
no tracker's deviation a picometre.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass


@dataclass(frozen=True)
class Range:
    """``low`` to ``high`` inclusive, or exclusive at an end marked ``open_low`` / ``open_high``; whole numbers
    with ``whole``."""

    low: float
    high: float
    open_low: bool = False
    open_high: bool = False

    def holds(self, value: float) -> bool:
        return ((value > self.low) if self.open_low else (value >= self.low)) and \
            ((value < self.high) if self.open_high else (value <= self.high))

    def text(self) -> str:
        if self.open_low and self.low == 0 and not self.open_high:
            return f"a number > 0 and at most {_number(self.high)}"
        low = f"above {_number(self.low)}" if self.open_low else f"from {_number(self.low)}"
        high = f"below {_number(self.high)}" if self.open_high else f"to {_number(self.high)}"
        return f"a finite number {low} {high}"


class _LibraryRange:
    """The range the library gives ``option`` (:data:`thermocomp.programs.timing.OPTION_RANGES`, its one source),
    loaded when a value is checked: ``--help`` and the commands that do not take the option load no program code."""

    def __init__(self, option: str) -> None:
        self.option = option

    @functools.cached_property
    def range(self) -> Range:
        from thermocomp.programs.timing import OPTION_RANGES

        low, high, low_open = OPTION_RANGES[self.option]
        return Range(low, high, open_low=low_open)

    def holds(self, value: float) -> bool:
        return self.range.holds(value)

    def text(self) -> str:
        return self.range.text()


def _number(value: float) -> str:
    return str(value) if isinstance(value, int) else f"{value:g}"


def _positive(high: float) -> Range:
    return Range(0.0, high, open_low=True)


def _at_least(low: float, high: float) -> Range:
    return Range(low, high)


#: A minute of a run's time law (compensation.compensate.MAX_MINUTES minutes is the bound of --minutes' count; a
#: minute itself: a few years).
_MINUTE = Range(0.0, 1e6)
#: An angle in degrees (a pose, an Euler angle): ten turns either way.
_ANGLE_DEG = Range(-3600.0, 3600.0)
#: A duration or period in seconds: some 11 days.
_SECONDS = _positive(1e6)
#: A rate or frequency in Hz.
_HZ = _positive(1e6)
#: A torque in N m.
_TORQUE = Range(0.0, 1e6)
#: A seed numpy's generators take (and coppeliasim's check_seed).
_SEED = Range(0, 2**63 - 1)
_PORT = Range(1, 65535)

RANGES: dict[str, Range | _LibraryRange] = {
    # time law and minutes
    "--stabilisation-min": _positive(1e6),
    "--minutes": _MINUTE,
    "--check-minutes": _MINUTE,
    "--minute": _MINUTE,
    # a program's time: the library's bounds (thermocomp.programs.timing.OPTION_RANGES), read on first use
    **{option: _LibraryRange(option)
       for option in ("--at-minute", "--time-indexed", "--duration-min", "--cycle-time-s", "--cycles")},
    "--max-motions": _at_least(1, 2_000_000),  # programs.model.MAX_MOTIONS
    # solver
    "--orientation-euler-xyz-deg": _ANGLE_DEG,
    "--position-tol-mm": _positive(1.0),  # tolerances.IK_MAX_POSITION_TOL
    "--orientation-tol-deg": _positive(1.0),  # tolerances.IK_MAX_ORIENTATION_TOL
    "--starts": _at_least(1, 10_000),  # compensation.compensate.MAX_STARTS
    "--seed": _SEED,
    "--jobs": _at_least(1, 1024),  # runs.compensate_programs
    # simulators
    "--coppeliasim-port": _PORT,
    "--port": _PORT,
    "--timeout-s": _SECONDS,
    "--configurations": _at_least(1, 100_000),  # app.coppeliasim.MAX_CONFIGURATIONS
    "--magnification": Range(1.0, 1000.0),  # simulators.magnification.MAGNIFICATION_RANGE
    "--hold-s": _SECONDS,
    "coppeliasim show --hold-s": Range(0.0, 1e6),  # 0: shown, then restored at once
    "--dwell-s": Range(0.0, 1e4),
    "--size": _at_least(16, 8192),  # simulators.pybullet.render MIN_PICTURE_PX, MAX_PICTURE_PX
    "--clearance-mm": Range(0.0, 1e4),
    # robot, inertia
    "--fraction": Range(-1e3, 1e3),
    "--total-mass": _positive(1e5),
    # dynamics
    "--duration-s": _SECONDS,
    "--payload-mass-kg": _positive(1e4),  # identify --drive-gains: a payload's mass [kg] (a large robot's: 2.3 t)
    "--rate-hz": _HZ,
    "--range-fraction": Range(0.01, 1.0),  # dynamics.excitation.MIN_RANGE_FRACTION
    "--speed-fraction": Range(0.0, 1.0, open_low=True),
    "--frequencies-hz": _HZ,
    "--pose-deg": _ANGLE_DEG,
    "--speeds-deg-s": _positive(1e5),
    "--span-deg": _positive(3600.0),
    "--torque-noise-nm": _TORQUE,
    "--torque-resolution-nm": _TORQUE,
    "--torque-limit-nm": _positive(1e6),
    "--encoder-resolution-rad": Range(0.0, 1.0),
    "--disturbance-nm": _TORQUE,
    "--drive-damping-nm-s-per-rad": Range(0.0, 1e9),
    "--step": _at_least(1, 1_000_000_000),
    "--cutoff-hz": _HZ,
    "--threshold-nm": _positive(1e6),
    "--filter": Range(0.0, 1.0, open_low=True),
    "--min-speed-rad-s": Range(0.0, 1e3),
    # calibration and tracking
    "--sigma-mm": Range(1e-6, 1e3),  # a nanometre to a metre
    "--sigma-deg": Range(1e-9, 90.0),
    "--suggest": Range(0, 10_000),
    "--candidates": _at_least(1, 100_000),  # app.calibrate.MAX_CANDIDATES
    "--poses": _at_least(1, 1_000_000),
    "--per-minute": _at_least(1, 1_000_000),
    "--noise-mm": Range(0.0, 1e3),
    "--orientation-noise-deg": Range(0.0, 90.0),
    "--tracker-pose": Range(-1e6, 1e6),
    # servo (printing.servo_sim.ServoOptions, printing.mpc.MPCOptions, app.servo)
    "servo excite --rate-hz": Range(1.0, 500.0),  # app.servo.RATE_HZ_RANGE: UR's controllers' rates
    "servo identify --rate-hz": Range(1.0, 500.0),
    "servo track --rate-hz": Range(1.0, 1000.0),
    "--start-deg": _ANGLE_DEG,
    "--delay-samples": Range(0, 50),
    "--bandwidth-rad-s": Range(1.0, 500.0),
    "--damping": Range(0.1, 2.0),
    "--payload-kg": Range(0.0, 10.0),
    "--missed-command-probability": Range(0.0, 0.5),
    "--speed-mm-s": _positive(1000.0),
    "--runs": _at_least(1, 1000),
    "--horizon": _at_least(1, 500),
}


#: The unit an option's name ends with, for messages (``--sigma-mm``: mm).
UNITS = {"-mm": "mm", "-deg": "deg", "-s": "s", "-hz": "Hz", "-min": "min", "-nm": "N m", "-rad": "rad",
         "-rad-s": "rad/s", "-deg-s": "deg/s", "-nm-s-per-rad": "N m s/rad", "-mm-s": "mm/s", "-kg": "kg"}


def unit_of(option: str) -> str:
    """The unit ``option``'s name ends with (longest match), or ""."""
    found = [u for suffix, u in UNITS.items() if option.endswith(suffix)]
    return max(found, key=len, default="") if found else ""


def range_of(command: str, option_strings: list[str]) -> Range | _LibraryRange | None:
    """The range of the option named ``option_strings`` of ``command`` (``"coppeliasim show"``), or None."""
    for option in option_strings:
        for key in (f"{command} {option}", option):
            if key in RANGES:
                return RANGES[key]
    return None


#: The options of the command being run, by their ``dest`` and by it without its unit (``duration_s`` and
#: ``duration``: the library's field): :meth:`thermocomp.cli.parser.ArgumentParser.parse_known_args` fills it.
TYPED: dict[str, str] = {}


def remember_options(actions) -> None:
    """Note each option of ``actions`` (argparse actions) under its ``dest`` and its ``dest`` less the unit."""
    for action in actions:
        if not action.option_strings or not action.option_strings[-1].startswith("--"):
            continue
        option = action.option_strings[-1]
        TYPED.setdefault(action.dest, option)
        unit = next((s for s in sorted(UNITS, key=len, reverse=True) if option.endswith(s)), None)
        if unit is not None and action.dest.endswith(unit[1:].replace("-", "_")):
            TYPED.setdefault(action.dest[: -len(unit)], option)


def named_as_typed(message: str) -> str:
    """``message`` with a leading library field name (``duration: expected > 0 s``, ``heat_on, rows: ...``) given
    as the option the user typed (``--duration-s: ...``), where the command has that option; else unchanged."""
    import re

    head = re.match(r"([a-z][a-z_]*(?:, [a-z][a-z_]*)*)(?= \(--|: )", message)
    if head is None:
        return message
    names = head.group(1).split(", ")
    if not all(name in TYPED for name in names):
        return message
    rest = message[head.end():]
    if rest.startswith(" (--"):  # "cutoff (--cutoff-hz): ..." names it already
        return message
    return ", ".join(TYPED[name] for name in names) + rest


def numbers_in(value: object) -> list[float]:
    """The numbers of a parsed value: itself, or the items of a tuple or list (``--minutes``, ``--pose-deg``)."""
    if isinstance(value, (tuple, list)):
        return [v for v in value if isinstance(v, (int, float))]
    return [value] if isinstance(value, (int, float)) and not isinstance(value, bool) else []


__all__ = ["RANGES", "TYPED", "Range", "named_as_typed", "numbers_in", "range_of", "remember_options", "unit_of"]
