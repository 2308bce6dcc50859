"""Print paths sampled at the servo rate, and their joint references (seed 004, Sections 5-2 and 6-4).

* :func:`line_path`: the thesis's experiment: 200 mm along the base's x, y or z axis while the head turns
  0.125 pi about x (Section 6-4-1), from :data:`LINE_START_MM` with the tool pointing down (the UR5's home
  orientation), at a speed, with a cosine ramp of :data:`RAMP_S` at each end and :data:`HOLD_S` at rest first.
* :func:`targets_path`: a targets file's points in order, joined by straight lines at the speed (orientation
  turned uniformly, the shortest way, between points).
* :func:`joint_reference`: the joint angles and speeds of a path by the inverse kinematics of a model
  (the nominal robot, or the warm robot for the compensated reference).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from thermocomp._typing import ArrayLike, FloatArray
from thermocomp.errors import ConfigurationError, InputError

#: Start of the lines [mm], base frame: over the UR5's print bed (scenes/ur5_print_bed.toml), elbow up.
LINE_START_MM = (-550.0, -110.0, 350.0)
#: Length of a line [m] and the turn about x along it [rad] (seed 004, Section 6-4-1).
LINE_LENGTH = 0.2
LINE_TURN = 0.125 * math.pi
#: Rest before the motion [s] and the cosine ramp of the speed at each end [s].
HOLD_S = 0.2
RAMP_S = 0.5
#: Most samples of a path: some 2 hours at 125 Hz, each sample an inverse kinematics solve and a servo step.
MAX_PATH_SAMPLES = 1_000_000
#: The path names :func:`line_path` takes.
LINES = {"line:x": 0, "line:y": 1, "line:z": 2}


@dataclass(frozen=True)
class CartesianPath:
    """A TCP path sampled at the servo rate.

    Attributes
    ----------
    t
        Sample times [s], ``(N,)``.
    R_world_tcp
        Orientations, ``(N, 3, 3)``.
    p_world_tcp
        Positions [m], ``(N, 3)``.
    source, lines
        A targets path's file, and the line in it of the target each sample moves toward ``(N,)`` (for messages);
        None for a line, or when not known.
    """

    t: FloatArray
    R_world_tcp: FloatArray
    p_world_tcp: FloatArray
    source: str | None = None
    lines: np.ndarray | None = None

    def where(self, k: int) -> dict:
        """The :class:`~thermocomp.errors.InputError` place of sample ``k``: the file and the line of its target."""
        return {"path": self.source, "row": None if self.lines is None else int(self.lines[k])}


def _progress(length: float, speed: float, rate_hz: float) -> FloatArray:
    """Arc length [m] at each sample: rest, cosine ramp up, constant ``speed``, ramp down, rest."""
    if not (math.isfinite(speed) and speed > 0):
        raise ConfigurationError(f"speed: expected > 0 mm/s, got {speed * 1e3!r}")
    ramp = min(RAMP_S, length / speed)  # a ramp covers speed * ramp / 2
    cruise = max(0.0, (length - speed * ramp) / speed)
    total = HOLD_S + 2 * ramp + cruise + HOLD_S
    if not total * rate_hz <= MAX_PATH_SAMPLES:  # (a target 1e9 mm away, or 1e-9 mm/s: out of memory, naming nothing)
        raise ConfigurationError(f"--path at --speed-mm-s {speed * 1e3:g}: {length * 1e3:.6g} mm take {total:.4g} s, "
                                 f"{total * rate_hz:.4g} samples at {rate_hz:g} Hz: expected at most "
                                 f"{MAX_PATH_SAMPLES:,} ({MAX_PATH_SAMPLES / rate_hz / 60:.3g} min: a print pass)")
    t = np.arange(int(math.ceil(total * rate_hz)) + 1) / rate_hz
    tau = t - HOLD_S
    v = np.where(tau < 0, 0.0, np.where(tau < ramp, 0.5 * (1 - np.cos(math.pi * tau / ramp)), 1.0))
    v = np.where(tau > ramp + cruise, np.where(tau < 2 * ramp + cruise,
                                               0.5 * (1 + np.cos(math.pi * (tau - ramp - cruise) / ramp)), 0.0), v)
    s = np.concatenate([[0.0], np.cumsum(0.5 * (v[1:] + v[:-1]) / rate_hz)]) * speed
    if not s[-1] > 0:  # the motion falls between two samples (shorter than a sample's travel; 0 / 0 was NaN): a step
        return np.where(tau >= 2 * ramp + cruise, length, 0.0)
    return np.minimum(s * length / s[-1], length)


def _rot_x(angle: FloatArray) -> FloatArray:
    c, s = np.cos(angle), np.sin(angle)
    R = np.zeros(np.shape(angle) + (3, 3))
    R[..., 0, 0] = 1.0
    R[..., 1, 1], R[..., 1, 2], R[..., 2, 1], R[..., 2, 2] = c, -s, s, c
    return R


def line_path(name: str, speed_mm_s: float, rate_hz: float, R_start: ArrayLike) -> CartesianPath:
    """``line:x``, ``line:y`` or ``line:z`` (module docstring) at ``speed_mm_s``; ``R_start`` the start orientation."""
    if name not in LINES:
        raise ConfigurationError(f"--path: expected one of {', '.join(LINES)} or a targets CSV, got {name!r}")
    s = _progress(LINE_LENGTH, speed_mm_s * 1e-3, rate_hz)
    direction = np.zeros(3)
    direction[LINES[name]] = 1.0
    p = np.asarray(LINE_START_MM) * 1e-3 + s[:, None] * direction
    R = _rot_x(LINE_TURN * s / LINE_LENGTH) @ np.asarray(R_start, dtype=float)
    return CartesianPath(np.arange(s.size) / rate_hz, R, p)


def targets_path(R_targets: ArrayLike, p_targets: ArrayLike, speed_mm_s: float, rate_hz: float,
                 source: str | None = None, lines: ArrayLike | None = None) -> CartesianPath:
    """Straight lines through the targets ``(m, 3, 3)``, ``(m, 3)`` [m] at ``speed_mm_s`` (module docstring);
    ``source`` and ``lines`` ``(m,)``: the targets' file and lines, for messages."""
    from scipy.spatial.transform import Rotation, Slerp

    R_targets, p_targets = np.asarray(R_targets, dtype=float), np.asarray(p_targets, dtype=float)
    if p_targets.shape[0] < 2:
        raise InputError(f"--path: expected at least 2 targets, got {p_targets.shape[0]}", path=source)
    knots = np.concatenate([[0.0], np.cumsum(np.linalg.norm(np.diff(p_targets, axis=0), axis=1))])
    if np.any(np.diff(knots) <= 0):
        k = int(np.argmax(np.diff(knots) <= 0)) + 1  # (the second of the two)
        raise InputError("--path: two consecutive targets at the same position (no path between them)", path=source,
                         row=None if lines is None else int(np.asarray(lines)[k]))
    s = _progress(float(knots[-1]), speed_mm_s * 1e-3, rate_hz)
    p = np.stack([np.interp(s, knots, p_targets[:, i]) for i in range(3)], axis=1)
    R = Slerp(knots, Rotation.from_matrix(R_targets))(s).as_matrix()
    # the target each sample moves toward (the first for those at rest before the motion)
    heading = np.clip(np.searchsorted(knots, s, side="left"), 0, len(knots) - 1)
    return CartesianPath(np.arange(s.size) / rate_hz, R, p, source,
                         None if lines is None else np.asarray(lines)[heading])


def joint_reference(model, path: CartesianPath, q_seed: ArrayLike, rate_hz: float,
                    step: Callable[[int], None] | None = None) -> tuple[FloatArray, FloatArray]:
    """Joint angles [rad] ``(N, n)`` of ``path`` on ``model`` and their speeds [rad/s] ``(N, n)``.

    Each sample is solved from the previous one's solution (the first from ``q_seed``): one branch throughout.
    ``step(samples)``, if given, is called after each block of samples solved (a progress count: a path of a
    million samples is minutes of inverse kinematics).

    Raises
    ------
    InputError
        A sample the inverse kinematics could not reach, or a joint speed above the robot's limit.
    """
    from thermocomp.kinematics.ik import Status, solve_ik

    chain = model.chain
    N = path.t.size
    q = np.empty((N, chain.n_joints))
    seed = np.asarray(q_seed, dtype=float)
    block = 64  # solved in blocks, each seeded by the last solution before it
    for start in range(0, N, block):
        stop = min(N, start + block)
        result = solve_ik(model, path.R_world_tcp[start:stop], path.p_world_tcp[start:stop],
                          np.tile(seed, (stop - start, 1)))
        if not np.all(result.converged):
            bad = start + int(np.argmin(result.converged))
            raise InputError(f"--path: the robot cannot reach the path at {path.t[bad]:.3f} s (sample {bad}): "
                             f"{Status(int(result.status[bad - start])).label}", **path.where(bad))
        q[start:stop] = result.q
        seed = result.q[-1]
        if step is not None:
            step(stop - start)
    jumps = np.max(np.abs(np.diff(q, axis=0)), axis=1) > 0.1  # (one sample: none)
    if np.any(jumps):
        raise InputError("--path: the inverse kinematics changed configuration branch along the path",
                         **path.where(int(np.argmax(jumps)) + 1))
    qd = np.gradient(q, 1.0 / rate_hz, axis=0)
    over = np.abs(qd) > chain.velocity
    if np.any(over):
        k, j = np.argwhere(over)[0]
        raise InputError(f"--path: joint {j + 1} would turn at {abs(qd[k, j]):.3g} rad/s at {path.t[k]:.3f} s, above its "
                         f"limit {chain.velocity[j]:.3g} rad/s: lower --speed-mm-s", **path.where(int(k)))
    return q, qd
