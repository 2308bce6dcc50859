"""The PID with feed-forward of seed 004, Eq. 6-20, per joint.

``u(k) = r_v(k) + K (r_v(k) - y_v(k-1))``: the reference speed fed forward and a PID ``K`` on the speed
error. The integral of the speed error is the angle error, taken as such (``r_q(k) - y_q(k)``), so the
integral does not drift with the sum of noisy speeds; the derivative is the difference of speed errors.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from thermocomp.errors import ConfigurationError


@dataclass(frozen=True)
class PIDOptions:
    """Gains of ``K`` in Eq. 6-20.

    Parameters
    ----------
    kp
        On the speed error [-], >= 0.
    ki
        On its integral, the angle error [1/s], >= 0.
    kd
        On its difference per sample [s], >= 0.
    """

    kp: float = 0.3
    ki: float = 1.0
    kd: float = 0.0

    def __post_init__(self) -> None:
        for name in ("kp", "ki", "kd"):
            value = getattr(self, name)
            if not (math.isfinite(value) and value >= 0):
                raise ConfigurationError(f"PID {name}: expected >= 0, got {value!r}")


class JointPID:
    """One joint's controller of Eq. 6-20; :meth:`command` once a sample."""

    def __init__(self, sample_time: float, speed_limit: float, options: PIDOptions | None = None) -> None:
        self.options = PIDOptions() if options is None else options
        self.sample_time = sample_time
        self.speed_limit = speed_limit
        self.previous_speed = 0.0
        self.previous_error = 0.0

    def command(self, q: float, qd: float, r_q: float, r_v: float) -> float:
        """``u(k)`` [rad/s] from the measured angle ``q(k)`` [rad] and the references ``r_q(k)``, ``r_v(k)``."""
        o = self.options
        error = r_v - self.previous_speed  # r_v(k) - y_v(k-1)
        u = r_v + o.kp * error + o.ki * (r_q - q) + o.kd * (error - self.previous_error) / self.sample_time
        self.previous_speed, self.previous_error = qd, error
        return float(np.clip(u, -self.speed_limit, self.speed_limit))
