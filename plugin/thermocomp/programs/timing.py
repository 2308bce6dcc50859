"""When each motion of a robot program executes: an estimate from distances, speeds and waits.

The controller's own planner (acceleration ramps, zones, look-ahead) is not
modelled; the estimate is the time each move needs at its programmed speed,
which is what decides at which minute of a long run a motion meets the robot
(a few seconds either way is a hundredth of the thermal time scale):

- linear moves (RAPID ``MoveL``, UR ``movel``, ``movep``): the longest of
  TCP distance / TCP speed (speeddata ``v_tcp``, UR ``v``), reorientation
  angle / ``v_ori``, and the limiting joint's travel / its datasheet speed;
- circular moves: the arc through the via point, likewise;
- joint moves (``MoveJ``, ``MoveAbsJ``, ``movej``): the limiting joint
  (largest travel / datasheet speed of that joint, or UR's ``v`` for the
  leading joint), and for ABB not faster than the TCP speed of the speeddata
  over the straight distance;
- UR moves with an acceleration ``a``: a trapezoidal profile
  (``d / v + v / a``, or ``2 sqrt(d / a)`` when the speed is never reached);
- a stated time (RAPID ``\\T``, UR ``t=``) replaces the estimate;
- ``WaitTime`` / ``sleep``: their seconds.

The first motion of a cycle starts from the last point of the cycle (the
robot runs the cycle repeatedly). ``cycle_time_s`` rescales every step so
that one cycle takes the measured time; ``cycles`` or ``duration_min`` say
how often the cycle runs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from thermocomp._typing import FloatArray
from thermocomp.errors import ConfigurationError
from thermocomp.geometry.rotations import rotation_angle
from thermocomp.programs.model import ABSOLUTE_JOINT, CIRCULAR, JOINT, Motion, RobotProgram, Wait
from thermocomp.robot.chain import Chain


@dataclass(frozen=True)
class TimingOptions:
    """How often the cycle runs and how long it takes.

    Parameters
    ----------
    cycles
        Repetitions of the entry routine, >= 1 (ignored with ``duration_min``).
    duration_min
        Run the cycle until this working time [min] (> 0), or ``None``.
    cycle_time_s
        A measured cycle time [s] (> 0) that rescales the estimate, or ``None``.
    """

    cycles: int = 1
    duration_min: float | None = None
    cycle_time_s: float | None = None

    def __post_init__(self) -> None:
        if self.cycles < 1:
            raise ConfigurationError(f"--cycles: expected >= 1, got {self.cycles}")
        if self.duration_min is not None and not (np.isfinite(self.duration_min) and self.duration_min > 0):
            raise ConfigurationError(f"--duration-min: expected a positive number of minutes, got {self.duration_min}")
        if self.cycle_time_s is not None and not (np.isfinite(self.cycle_time_s) and self.cycle_time_s > 0):
            raise ConfigurationError(f"--cycle-time-s: expected a positive number of seconds, got {self.cycle_time_s}")


@dataclass(frozen=True)
class Timing:
    """Times of one cycle's steps, and how many cycles run.

    Attributes
    ----------
    step_start_s, step_duration_s
        Start and duration [s] of each step of one cycle, ``(k,)``, rescaled.
    point_arrival_s
        When each point of one cycle is reached [s from the cycle's start], ``(m,)``.
    estimated_cycle_s
        The cycle time the estimate gives, before rescaling [s].
    cycle_s
        The cycle time used [s] (``cycle_time_s`` when given).
    cycles
        How many cycles run.
    motion_steps
        Index in ``program.steps`` of each motion, ``(motions,)``.
    """

    step_start_s: FloatArray
    step_duration_s: FloatArray
    point_arrival_s: FloatArray
    estimated_cycle_s: float
    cycle_s: float
    cycles: int
    motion_steps: np.ndarray

    @property
    def total_min(self) -> float:
        """The whole run [min]."""
        return self.cycles * self.cycle_s / 60.0

    def point_minutes(self, cycle: int = 0) -> FloatArray:
        """Minute at which each point is reached in ``cycle`` (0-based), ``(m,)``."""
        return (cycle * self.cycle_s + self.point_arrival_s) / 60.0


def _trapezoid(distance: FloatArray, speed: float, acceleration: float) -> FloatArray:
    """Time [s] to travel ``distance`` from rest to rest at top ``speed`` with ``acceleration``."""
    if not np.isfinite(speed):
        return np.zeros_like(distance)
    if not np.isfinite(acceleration):
        return distance / speed
    ramp = speed * speed / acceleration  # distance used to speed up and slow down
    return np.where(distance >= ramp, distance / speed + speed / acceleration, 2.0 * np.sqrt(distance / acceleration))


def arc_length(p0: FloatArray, p_via: FloatArray, p1: FloatArray) -> float:
    """Length [m] of the circular arc from ``p0`` through ``p_via`` to ``p1`` (the polyline if they are collinear)."""
    a, b = p_via - p0, p1 - p0
    n = np.cross(a, b)
    nn = float(n @ n)
    chord = float(np.linalg.norm(a) + np.linalg.norm(p1 - p_via))
    if nn < 1e-18:
        return chord
    centre = p0 + (np.cross(n, a) * (b @ b) + np.cross(b, n) * (a @ a)) / (2.0 * nn)
    r = float(np.linalg.norm(p0 - centre))
    u0, uv, u1 = (x - centre for x in (p0, p_via, p1))

    def angle(u, v):
        return float(np.arctan2(np.linalg.norm(np.cross(u, v)), u @ v))

    # the arc through the via point: the two pieces p0 -> via -> p1
    return r * (angle(u0, uv) + angle(uv, u1))


def estimate_timing(chain: Chain, program: RobotProgram, T_world_tcp: FloatArray, q: FloatArray,
                    options: TimingOptions | None = None) -> Timing:
    """Estimate when each step of ``program`` runs.

    Parameters
    ----------
    chain
        The robot (its joint speed limits, ``chain.velocity`` [rad/s]).
    program
        The program as read.
    T_world_tcp
        TCP pose of every point of ``program.points``, world frame [m], ``(m, 4, 4)``.
    q
        Nominal joint angles of every point [rad], ``(m, n)``.
    options
        Cycles, duration, measured cycle time.
    """
    options = TimingOptions() if options is None else options
    steps = program.steps
    durations = np.zeros(len(steps))
    arrival_index = []  # (step index) of each point's arrival
    m = q.shape[0]
    j = 0
    previous = m - 1  # the cycle repeats: its first motion starts from its last point
    for k, step in enumerate(steps):
        if isinstance(step, Wait):
            durations[k] = step.seconds
            continue
        assert isinstance(step, Motion)
        last = j + len(step.points) - 1
        durations[k] = _motion_time(chain, step, T_world_tcp, q, previous, j, last)
        arrival_index.extend([k] * len(step.points))
        previous, j = last, last + 1
    estimated = float(durations.sum())
    scale = 1.0
    if options.cycle_time_s is not None:
        if estimated <= 0:
            raise ConfigurationError("--cycle-time-s: the program's estimated cycle time is 0; nothing to rescale")
        scale = options.cycle_time_s / estimated
    durations = durations * scale
    starts = np.concatenate([[0.0], np.cumsum(durations)[:-1]])
    ends = starts + durations
    cycle = float(durations.sum())
    if options.duration_min is not None:
        # cycles that start before the duration ends (1e-9: an exact multiple is not one cycle more)
        cycles = max(1, int(np.ceil(options.duration_min * 60.0 / cycle - 1e-9))) if cycle > 0 else 1
    else:
        cycles = options.cycles
    return Timing(step_start_s=starts, step_duration_s=durations,
                  point_arrival_s=ends[np.asarray(arrival_index, dtype=int)] if arrival_index else np.zeros(0),
                  estimated_cycle_s=estimated, cycle_s=cycle, cycles=cycles,
                  motion_steps=np.array([k for k, s in enumerate(steps) if isinstance(s, Motion)], dtype=int))


def _motion_time(chain: Chain, motion: Motion, T: FloatArray, q: FloatArray, previous: int, first: int,
                 last: int) -> float:
    if motion.duration_s is not None:
        return float(motion.duration_s)
    joint_travel = np.abs(q[last] - q[previous])
    if motion.kind == CIRCULAR:
        joint_travel = np.abs(q[first] - q[previous]) + np.abs(q[last] - q[first])
    limiting_joint = float(np.max(joint_travel / chain.velocity))
    p_from, p_to = T[previous, :3, 3], T[last, :3, 3]
    if motion.kind == CIRCULAR:
        distance = arc_length(p_from, T[first, :3, 3], p_to)
    else:
        distance = float(np.linalg.norm(p_to - p_from))
    if motion.kind in (JOINT, ABSOLUTE_JOINT):
        leading = float(np.max(joint_travel))
        t_joint = float(_trapezoid(np.array(leading), motion.joint_speed, motion.acceleration)) \
            if np.isfinite(motion.joint_speed) else 0.0
        t_tcp = distance / motion.tcp_speed if np.isfinite(motion.tcp_speed) else 0.0
        return max(limiting_joint, t_joint, t_tcp)
    angle = float(rotation_angle(T[last, :3, :3] @ T[previous, :3, :3].T))
    t_tcp = float(_trapezoid(np.array(distance), motion.tcp_speed, motion.acceleration))
    t_ori = angle / motion.orientation_speed if np.isfinite(motion.orientation_speed) else 0.0
    return max(limiting_joint, t_tcp, t_ori)
