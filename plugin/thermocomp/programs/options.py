"""What a program's compensation writes and for which time (:class:`ProgramOptions`), and the minutes of a
time-indexed program (:func:`indexed_minutes`). docs/programs.md.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from thermocomp.deformation.timelaw import Static, TimeLaw
from thermocomp.errors import ConfigurationError
from thermocomp.programs.rapid import RapidOptions
from thermocomp.programs.timing import check_option


@dataclass(frozen=True)
class ProgramOptions:
    """What to write and for which time.

    Parameters
    ----------
    output
        ``"filtered"`` (default): every target becomes the pose the nominal controller must be given so the warm
        robot reaches the true target; ``"joints"``: a joint target (``MoveAbsJ`` / ``movej``).
    at_minute
        Snapshot: the program compensated for this minute [min]. ``None`` and no other time form: the full table
        (the stabilised robot).
    timed
        Each motion compensated at the minute the timing estimate gives it (one cycle).
    indexed_minutes
        Time-indexed program: corrections for each of these minutes [min], picked from the controller's clock.
    cycles
        Repetitions of the entry routine, >= 1 (ignored with ``duration_min``).
    duration_min
        Run the cycle until this working time [min] (> 0), or ``None``.
    cycle_time_s
        A measured cycle time [s] (> 0) that rescales the timing estimate, or ``None``.
    unsupported
        ``"refuse"`` (default): a construct that cannot be followed stops the run, nothing written; ``"keep"``: it
        is left as written, with a warning.
    rapid
        How a RAPID program is read (:class:`~thermocomp.programs.rapid.RapidOptions`; its bound on unrolled motions
        applies to URScript too).
    joint_targets
        ``"keep"`` (default): joint targets (home and via positions) are left as written and listed in the report;
        ``"compensate"``: compensated as the other targets (one that cannot be is left as written with a note).
    """

    output: str = "filtered"
    at_minute: float | None = None
    timed: bool = False
    indexed_minutes: tuple[float, ...] | None = None
    cycles: int = 1
    duration_min: float | None = None
    cycle_time_s: float | None = None
    unsupported: str = "refuse"
    rapid: RapidOptions = RapidOptions()
    joint_targets: str = "keep"

    def __post_init__(self) -> None:
        for option, value in (("--cycles", self.cycles), ("--duration-min", self.duration_min),
                              ("--cycle-time-s", self.cycle_time_s)):
            check_option(option, value)
        for flag, value, choices in (("--joint-targets", self.joint_targets, ("keep", "compensate")),
                                     ("--program-output", self.output, ("filtered", "joints")),
                                     ("--unsupported", self.unsupported, ("refuse", "keep"))):
            if value not in choices:
                raise ConfigurationError(f"{flag}: expected one of {choices}, got {value!r}")
        forms = [self.at_minute is not None, self.timed, self.indexed_minutes is not None]
        if sum(forms) > 1:
            raise ConfigurationError("choose one time form: --at-minute, --timed or --time-indexed")
        check_option("--at-minute", self.at_minute)
        if self.indexed_minutes is not None:
            steps = np.diff(self.indexed_minutes)
            if not self.indexed_minutes or self.indexed_minutes[0] != 0 or np.any(steps <= 0) \
                    or np.any(np.abs(steps - steps[:1]) > 1e-9):
                raise ConfigurationError("--time-indexed: expected evenly spaced increasing minutes starting at 0 (the "
                                         "program computes the index from the clock)")
        if self.timed and (self.cycles > 1 or self.duration_min is not None):
            raise ConfigurationError("--timed compensates each motion once, at its own minute: it needs one cycle "
                                     "(for repeated cycles use --time-indexed)")


#: Most correction sets a time-indexed program may carry (200 minutes at one set every 0.02 min).
MAX_INDEXED_SETS = 10_000
#: Most entries (sets x points) of a time-indexed program's tables: some 100 bytes each in the file.
MAX_INDEXED_ENTRIES = 2_000_000


def indexed_minutes(step_min: float, time_law: TimeLaw) -> tuple[float, ...]:
    """The minutes of a time-indexed program: every ``step_min`` from 0 to the time law's stabilisation.

    Raises
    ------
    ConfigurationError
        ``step_min`` out of its range (:data:`~thermocomp.programs.timing.OPTION_RANGES`), a static law, or more than
        :data:`MAX_INDEXED_SETS` sets (naming the smallest step that fits).
    """
    check_option("--time-indexed", step_min)
    if isinstance(time_law, Static):
        raise ConfigurationError("--time-indexed follows the time law: it cannot be combined with --static")
    end = float(time_law.stabilisation_min)
    if end / step_min > MAX_INDEXED_SETS - 1:
        smallest = end / (MAX_INDEXED_SETS - 1)
        scale = 10.0 ** (np.floor(np.log10(smallest)) - 2)  # (shown rounded up to 3 significant digits)
        raise ConfigurationError(
            f"--time-indexed {step_min:g}: {end / step_min + 1:,.0f} correction sets up to minute {end:g} "
            f"({time_law.describe()}); at most {MAX_INDEXED_SETS:,}: choose a step of at least "
            f"{float(np.ceil(smallest / scale * (1 - 1e-12)) * scale):g} min")
    count = int(np.floor(end / step_min + 1e-9)) + 1
    return tuple(float(k * step_min) for k in range(count))
