"""The robot model: a serial chain of revolute joints in the paper's table form.

Seed 002, Table 7 ("universal form of parameters table"): every joint frame
keeps the base orientation at the zero pose. Joint ``i`` sits at translation
``p[i]`` from joint ``i - 1`` (from the base frame for the first joint),
expressed in that base-oriented frame, and rotates about the unit vector
``axis[i]`` of the same frame. The tool (TCP) is a fixed transform from the
last joint frame; the base is placed in the world by ``T_world_base``.

Controller angles ``q`` (what a robot program holds) and model angles
``theta`` differ by a sign and a zero offset: ``theta = sign * q + offset``.
Limits and speeds are in controller angles. See docs/conventions.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from thermocomp._typing import ArrayLike, FloatArray
from thermocomp.errors import InputError
from thermocomp.geometry.checks import check_array, check_transform, check_unit_vector


def _frozen(a: FloatArray) -> FloatArray:
    a = np.array(a, dtype=float)
    a.setflags(write=False)
    return a


#: Largest length a robot may have anywhere [m]: a joint translation, the
#: tool or the base offset. A kilometre holds any robot and any cell; a
#: 1e300 m joint origin passed every check as finite and overflowed later, in
#: a program's timing (reported against the program, not the robot file).
MAX_LENGTH = 1e3
#: Largest angle a robot file may give [rad]: a joint limit, a URDF origin's
#: rpy. Writers give +-2 pi at most; 1e3 rad still keeps 13 digits of the angle.
MAX_ANGLE = 1e3
#: Slowest joint speed [rad/s] (0.00006 deg/s: a turn in 73 days): a slower
#: one is a typing error that made a program's estimated time pass any bound.
MIN_SPEED = 1e-6


@dataclass(frozen=True, eq=False)
class Chain:
    """A serial revolute chain in table form (seed 002, Table 7). SI units.

    Parameters
    ----------
    name
        Robot name, e.g. ``"irb140"``.
    joint_names
        One name per joint, ``n`` entries.
    p
        Translation from the previous joint (or the base) to each joint [m],
        shape ``(n, 3)``, in the base-oriented frame of the zero pose.
    axis
        Unit rotation axis of each joint in the same frame, shape ``(n, 3)``.
    sign, offset
        ``theta = sign * q + offset`` maps controller angles ``q`` [rad] to
        model angles ``theta`` [rad]; ``sign`` is +1 or -1, shape ``(n,)``.
    lower, upper
        Joint limits in controller angles [rad], shape ``(n,)``.
    velocity
        Maximum joint speed [rad/s], shape ``(n,)``; ``inf`` when unknown.
    T_world_base
        Pose of the base frame in the world frame, shape ``(4, 4)``.
    T_last_tcp
        Pose of the TCP in the last joint's base-oriented frame, shape ``(4, 4)``.
    home
        Home configuration in controller angles [rad], shape ``(n,)``: the
        configuration that IK seeds prefer when a program says nothing.
    """

    name: str
    joint_names: tuple[str, ...]
    p: FloatArray
    axis: FloatArray
    sign: FloatArray
    offset: FloatArray
    lower: FloatArray
    upper: FloatArray
    velocity: FloatArray
    T_world_base: FloatArray = field(default_factory=lambda: np.eye(4))
    T_last_tcp: FloatArray = field(default_factory=lambda: np.eye(4))
    home: FloatArray | None = None

    def __post_init__(self) -> None:
        n = len(self.joint_names)
        if n == 0:
            raise InputError(f"robot {self.name!r}: expected at least one joint, got none")
        if len(set(self.joint_names)) != n:
            raise InputError(f"robot {self.name!r}: joint names must be unique, got {self.joint_names}")
        p = check_array(self.p, (n, 3), f"{self.name} joint translations p")
        axis = check_array(self.axis, (n, 3), f"{self.name} joint axes")
        axis = np.array([check_unit_vector(a, f"{self.name} axis of joint {j + 1}") for j, a in enumerate(axis)])
        sign = check_array(self.sign, (n,), f"{self.name} joint signs")
        if not np.all(np.abs(sign) == 1.0):
            raise InputError(f"{self.name} joint signs: expected +1 or -1, got {sign.tolist()}")
        offset = check_array(self.offset, (n,), f"{self.name} joint offsets")
        lower = check_array(self.lower, (n,), f"{self.name} lower limits")
        upper = check_array(self.upper, (n,), f"{self.name} upper limits")
        if np.any(lower >= upper):
            bad = int(np.argmax(lower >= upper))
            raise InputError(
                f"{self.name} joint {bad + 1}: expected lower limit < upper limit, "
                f"got {np.degrees(lower[bad]):.6g} deg >= {np.degrees(upper[bad]):.6g} deg"
            )
        velocity = np.asarray(self.velocity, dtype=float)
        if velocity.shape != (n,) or np.any(np.isnan(velocity)) or np.any(velocity < MIN_SPEED):
            raise InputError(f"{self.name} joint speeds: expected {n} values of at least {MIN_SPEED:g} rad/s, got "
                             f"{velocity.tolist()}")
        T_world_base = check_transform(self.T_world_base, f"{self.name} T_world_base")
        T_last_tcp = check_transform(self.T_last_tcp, f"{self.name} T_last_tcp")
        for label, values, bound, unit in (("joint translations p", p, MAX_LENGTH, "m"),
                                           ("base position (T_world_base)", T_world_base[:3, 3], MAX_LENGTH, "m"),
                                           ("tool position (T_last_tcp)", T_last_tcp[:3, 3], MAX_LENGTH, "m"),
                                           ("lower limits", lower, MAX_ANGLE, "rad"),
                                           ("upper limits", upper, MAX_ANGLE, "rad")):
            if np.any(np.abs(values) > bound):  # each reader names the file and line; this holds for every robot
                raise InputError(f"{self.name} {label}: expected values of magnitude at most {bound:g} {unit}, got "
                                 f"{np.asarray(values).tolist()}")
        home = np.zeros(n) if self.home is None else check_array(self.home, (n,), f"{self.name} home")
        if np.any((home < lower) | (home > upper)):
            bad = int(np.argmax((home < lower) | (home > upper)))
            raise InputError(
                f"{self.name} joint {bad + 1}: expected the home angle inside the limits "
                f"[{np.degrees(lower[bad]):.6g}, {np.degrees(upper[bad]):.6g}] deg, got {np.degrees(home[bad]):.6g} deg"
            )
        object.__setattr__(self, "joint_names", tuple(str(j) for j in self.joint_names))
        for key, value in [
            ("p", p), ("axis", axis), ("sign", sign), ("offset", offset), ("lower", lower),
            ("upper", upper), ("velocity", velocity), ("home", home),
            ("T_world_base", T_world_base), ("T_last_tcp", T_last_tcp),
        ]:
            object.__setattr__(self, key, _frozen(value))

    @property
    def n_joints(self) -> int:
        """Number of joints ``n``."""
        return len(self.joint_names)

    @property
    def size(self) -> float:
        """The robot's size [m]: the sum of its segment lengths and its tool offset."""
        return float(np.sum(np.linalg.norm(self.p, axis=1)) + np.linalg.norm(self.T_last_tcp[:3, 3]))

    def theta_from_q(self, q: ArrayLike) -> FloatArray:
        """Model angles ``theta = sign * q + offset`` [rad] from controller angles ``(..., n)``."""
        return self.sign * np.asarray(q, dtype=float) + self.offset

    def q_from_theta(self, theta: ArrayLike) -> FloatArray:
        """Controller angles [rad] from model angles ``(..., n)``."""
        return self.sign * (np.asarray(theta, dtype=float) - self.offset)

    def within_limits(self, q: ArrayLike) -> np.ndarray:
        """Boolean ``(...)``: every joint of ``q`` ``(..., n)`` inside its limits."""
        q = np.asarray(q, dtype=float)
        return np.all((q >= self.lower) & (q <= self.upper), axis=-1)

    def replace(self, **changes: object) -> Chain:
        """A copy with some fields changed (validated again)."""
        fields = {
            k: getattr(self, k)
            for k in (
                "name", "joint_names", "p", "axis", "sign", "offset", "lower", "upper",
                "velocity", "T_world_base", "T_last_tcp", "home",
            )
        }
        fields.update(changes)
        return Chain(**fields)  # type: ignore[arg-type]
