"""When each motion of a robot program executes: an estimate from distances, speeds and waits (ramps, zones and
look-ahead not modelled: a few seconds is a hundredth of the thermal time scale). :func:`_motion_times`,
docs/programs.md, "Time: when each motion runs".
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from thermocomp._typing import FloatArray
from thermocomp.compensation.targets import rows_or_run
from thermocomp.errors import ConfigurationError, InputError
from thermocomp.geometry.vectors import row_max_abs, row_norms
from thermocomp.io.csvtext import MAX_CELL
from thermocomp.kinematics.ik import turns
from thermocomp.programs.model import _KIND_CODE, ABSOLUTE_JOINT, CIRCULAR, JOINT, MotionRun, RobotProgram, Span, Wait
from thermocomp.robot.chain import Chain

#: The longest cycle an estimate may give [min]: a targets file's bound on ``time_min`` (io.csvtext.MAX_CELL).
MAX_MINUTES = MAX_CELL

#: The range of each numeric option of a program's time, by the option as the user types it: ``(low, high,
#: low_open)``, ``low`` excluded where ``low_open`` (:func:`check_option`, cli/option_ranges.py).
OPTION_RANGES: dict[str, tuple[float, float, bool]] = {
    "--at-minute": (0.0, 1e6, False),  # (a few years)
    "--time-indexed": (0.0, 1e6, True),
    "--duration-min": (0.0, 1e6, True),
    "--cycle-time-s": (0.0, 1e6, True),  # (some 11 days)
    "--cycles": (1, 1_000_000, False),
}


def check_option(option: str, value: float | None) -> None:
    """Refuse ``value`` (None: not given) outside ``option``'s :data:`OPTION_RANGES`, naming the option."""
    low, high, low_open = OPTION_RANGES[option]
    if value is not None and not (np.isfinite(value) and (value > low if low_open else value >= low) and value <= high):
        raise ConfigurationError(f"{option}: expected {'a number >' if low_open else 'a finite number from'} {low:g} "
                                 f"{'and at most' if low_open else 'to'} {high:g}, got {value:g}")


@dataclass(frozen=True)
class Timing:
    """Times of one cycle's steps, and how many cycles run.

    Attributes
    ----------
    step_duration_s, point_arrival_s
        Duration [s] of each step of one cycle ``(k,)`` (rescaled), and when each point is reached [s from the
        cycle's start] ``(m,)``.
    estimated_cycle_s, cycle_s
        The cycle time the estimate gives, before rescaling, and the one used (``cycle_time_s`` if given) [s].
    cycles
        How many cycles run.
    """

    step_duration_s: FloatArray
    point_arrival_s: FloatArray
    estimated_cycle_s: float
    cycle_s: float
    cycles: int

    @property
    def total_min(self) -> float:
        """The whole run [min]."""
        return self.cycles * self.cycle_s / 60.0

    def point_minutes(self, cycle: int = 0) -> FloatArray:
        """Minute at which each point is reached in ``cycle`` (0-based), ``(m,)``."""
        return (cycle * self.cycle_s + self.point_arrival_s) / 60.0


def arc(p0: FloatArray, p_via: FloatArray, p1: FloatArray
        ) -> tuple[FloatArray, FloatArray, FloatArray, np.ndarray]:
    """The circle from ``p0`` through ``p_via`` to ``p1`` (each ``(..., 3)`` [m]): its centre ``(..., 3)``, unit
    normal ``(..., 3)`` (the arc turns positively about it), the arc's angle [rad] ``(...)``, and where the three
    points lie on a line (no circle) ``(...)``."""
    a, b = p_via - p0, p1 - p0
    normal = np.cross(a, b)
    nn = np.einsum("...i,...i->...", normal, normal)
    safe = np.where(nn > 1e-18, nn, 1.0)
    centre = p0 + (np.cross(normal, a) * np.einsum("...i,...i->...", b, b)[..., None]
                   + np.cross(b, normal) * np.einsum("...i,...i->...", a, a)[..., None]) / (2.0 * safe[..., None])
    axis = normal / np.sqrt(safe)[..., None]

    def angle(x, y):
        return np.arctan2(np.einsum("...i,...i->...", np.cross(x, y), axis), np.einsum("...i,...i->...", x, y))

    r0, rv, r1 = p0 - centre, p_via - centre, p1 - centre
    return centre, axis, np.mod(angle(r0, rv), 2 * np.pi) + np.mod(angle(rv, r1), 2 * np.pi), nn <= 1e-18


def arc_length(p0: FloatArray, p_via: FloatArray, p1: FloatArray) -> FloatArray:
    """Length [m] ``(...)`` of the circular arc from ``p0`` through ``p_via`` to ``p1`` (each ``(..., 3)`` [m]; the
    polyline where they lie on a line)."""
    centre, _, angle, line = arc(p0, p_via, p1)
    return np.where(line, row_norms(p_via - p0) + row_norms(p1 - p_via), row_norms(p0 - centre) * angle)


def estimate_timing(chain: Chain, program: RobotProgram, T_world_tcp: FloatArray, q: FloatArray,
                    *, cycles: int = 1, duration_min: float | None = None, cycle_time_s: float | None = None) -> Timing:
    """Estimate when each step of ``program`` runs.

    Parameters
    ----------
    chain, program
        The robot (its joint speed limits, ``chain.velocity`` [rad/s]) and the program as read.
    T_world_tcp
        TCP pose of every point of ``program.points``, world frame [m], ``(m, 4, 4)``.
    q
        Nominal joint angles of every point [rad], ``(m, n)``.
    cycles, duration_min, cycle_time_s
        Repetitions of the cycle, the working time it runs [min] (or ``None``), a measured cycle time [s] that
        rescales the estimate (or ``None``): :class:`~thermocomp.programs.options.ProgramOptions`'s, checked there.
    """
    durations = program.wait_seconds.copy()
    if program.motion_steps.size:
        durations[program.motion_steps] = _motion_times(chain, program.run, T_world_tcp, q)
    estimated = float(durations.sum())
    if cycle_time_s is not None:
        if estimated <= 0:
            raise ConfigurationError("--cycle-time-s: the program's estimated cycle time is 0; nothing to rescale")
        durations = durations * (cycle_time_s / estimated)
    ends = np.cumsum(durations)  # (when each step ends)
    beyond = ~np.isfinite(ends) | (ends > MAX_MINUTES * 60.0)
    if np.any(beyond):  # (a cycle that passes MAX_MINUTES, or never ends: named at the step)
        k = int(np.argmax(beyond))
        j = int(np.searchsorted(program.motion_steps, k))  # (the motions before step k: it is motion j, or a wait)
        waits = [step for step in program.steps if isinstance(step, Wait)]
        motion = k in program.motion_steps[j:j + 1]
        where = Span(*program.run.statement[j].tolist()) if motion else waits[k - j].statement
        file = int(program.run.file[j]) if motion else waits[k - j].file
        raise InputError(f"the estimated time of one cycle passes {MAX_MINUTES:g} minutes at this statement (it takes "
                         f"{durations[k]:.3g} s): a wait or a speed no robot program means",
                         path=program.files[file][0], row=where.line, column=where.column)
    cycle = float(durations.sum())
    if duration_min is not None:  # the cycles that start before it ends (an exact multiple: not one more)
        cycles = max(1, int(np.ceil(duration_min * 60.0 / cycle - 1e-9))) if cycle > 0 else 1
    # (each point is reached at the end of its motion's step)
    return Timing(step_duration_s=durations, point_arrival_s=ends[np.repeat(program.motion_steps, program.run.n_points)],
                  estimated_cycle_s=estimated, cycle_s=cycle, cycles=cycles)


def _motion_times(chain: Chain, motions: MotionRun, T: FloatArray, q: FloatArray) -> FloatArray:
    """Time [s] of each motion ``(motions,)``: its stated time, else for linear and circular moves the longest of
    TCP distance / TCP speed, reorientation / ``v_ori`` and the limiting joint's travel / its datasheet speed; for
    joint moves the limiting joint, UR's ``v`` for the leading joint, and the TCP speed over the straight distance;
    with an acceleration, a trapezoid (:func:`_trapezoids`)."""
    first = motions.first_points()
    last = first + motions.n_points - 1
    previous = np.r_[last[-1], last[:-1]]  # the cycle repeats: its first motion starts from its last point
    joint_move = (motions.kind == _KIND_CODE[JOINT]) | (motions.kind == _KIND_CODE[ABSOLUTE_JOINT])
    tcp_speed, joint_speed, acceleration = motions.tcp_speed, motions.joint_speed, motions.acceleration
    at_first, at_last = rows_or_run(first), rows_or_run(last)  # (views where every motion has one point)
    joint_travel = np.abs(q[at_first] - q[previous]) + np.abs(q[at_last] - q[at_first])  # (a circle's: via its first)
    arc = np.flatnonzero(motions.kind == _KIND_CODE[CIRCULAR])
    limiting_joint = row_max_abs(joint_travel / chain.velocity)  # (travel and speeds >= 0)
    p_from, p_to = T[previous, :3, 3], T[at_last, :3, 3]
    distance = row_norms(p_to - p_from)
    distance[arc] = arc_length(p_from[arc], T[first[arc], :3, 3], p_to[arc])
    with np.errstate(invalid="ignore", divide="ignore"):
        # joint moves: the limiting joint, UR's v for the leading joint, the speeddata's TCP speed
        t_joint = np.where(np.isfinite(joint_speed),
                           _trapezoids(row_max_abs(joint_travel), joint_speed, acceleration), 0.0)
        t_straight = np.where(np.isfinite(tcp_speed), distance / tcp_speed, 0.0)
        # linear and circular moves: TCP path, reorientation, limiting joint
        angle = row_norms(turns(T[previous, :3, :3], T[at_last, :3, :3]))
        t_path = _trapezoids(distance, tcp_speed, acceleration)
        t_ori = np.where(np.isfinite(motions.orientation_speed), angle / motions.orientation_speed, 0.0)
    estimate = np.where(joint_move, np.maximum(np.maximum(limiting_joint, t_joint), t_straight),
                        np.maximum(np.maximum(limiting_joint, t_path), t_ori))
    return np.where(np.isnan(motions.duration_s), estimate, motions.duration_s)


def _trapezoids(distance: FloatArray, speed: FloatArray, acceleration: FloatArray) -> FloatArray:
    """Time [s] to travel ``distance`` from rest to rest at top ``speed`` with ``acceleration``: ``d / v + v / a``,
    or ``2 sqrt(d / a)`` when the speed is never reached; ``d / v`` without an acceleration; 0 without a speed."""
    ramp = speed * speed / acceleration
    profile = np.where(distance >= ramp, distance / speed + speed / acceleration, 2.0 * np.sqrt(distance / acceleration))
    return np.where(~np.isfinite(speed), 0.0, np.where(~np.isfinite(acceleration), distance / speed, profile))
