"""Laser-tracker measurements of the TCP: the data a calibration fits (SI, tracker frame).

The file form (millimetres and degrees) is read by
:func:`thermocomp.io.measurements_csv.read_measurements_csv`; this is the
validated, SI form it gives and the calibration (:mod:`thermocomp.calibration`) takes: io's plain data, as
:class:`~thermocomp.io.recording_csv.Recording` is the dynamics'.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from thermocomp._typing import ArrayLike, FloatArray
from thermocomp.errors import InputError
from thermocomp.geometry.checks import check_array


@dataclass(frozen=True, eq=False)
class Measurements:
    """TCP poses measured by a tracker at known joint angles and minutes.

    Parameters
    ----------
    q
        Controller joint angles [rad], ``(m, n)``.
    p_tracker_tcp
        Measured TCP positions [m] in the tracker frame, ``(m, 3)``. Without
        ``--estimate-base`` the tracker frame is the world frame.
    minute
        Working time of each measurement since the cold start [min], ``(m,)``.
    R_tracker_tcp
        Measured TCP orientations, ``(m, 3, 3)``, or ``None`` (position only).
    temperature_C
        Measured temperatures [deg C], ``(m, k)``, or ``None``.
    line
        Line of each measurement in its file (1-based), ``(m,)``, or ``None``.
    source
        Where the measurements came from, for messages.
    """

    q: FloatArray
    p_tracker_tcp: FloatArray
    minute: FloatArray
    R_tracker_tcp: FloatArray | None = None
    temperature_C: FloatArray | None = None
    line: np.ndarray | None = None
    source: str = "<memory>"

    def __post_init__(self) -> None:
        q = check_array(self.q, (None, None), f"{self.source} joint angles")
        m = q.shape[0]
        if m == 0:
            raise InputError("expected at least one measurement, got none", path=self.source)
        object.__setattr__(self, "q", q)
        object.__setattr__(self, "p_tracker_tcp", check_array(self.p_tracker_tcp, (m, 3), f"{self.source} positions"))
        minute = check_array(self.minute, (m,), f"{self.source} minutes")
        if not np.all(np.isfinite(minute)) or np.any(minute < 0):
            raise InputError("expected finite minutes >= 0", path=self.source)
        object.__setattr__(self, "minute", minute)
        if self.R_tracker_tcp is not None:
            object.__setattr__(self, "R_tracker_tcp",
                               check_array(self.R_tracker_tcp, (m, 3, 3), f"{self.source} orientations"))
        if self.temperature_C is not None:
            object.__setattr__(self, "temperature_C",
                               check_array(self.temperature_C, (m, None), f"{self.source} temperatures"))
        if self.line is not None:
            object.__setattr__(self, "line", np.asarray(self.line, dtype=int).reshape(m))

    @property
    def n(self) -> int:
        """Number of measurements."""
        return int(self.q.shape[0])

    @property
    def n_joints(self) -> int:
        return int(self.q.shape[1])

    @property
    def has_orientation(self) -> bool:
        return self.R_tracker_tcp is not None

    def label(self, i: int) -> str:
        """How a report names measurement ``i``: its file line, else its index."""
        return f"line {int(self.line[i])}" if self.line is not None else f"#{i}"

    def take(self, index: ArrayLike) -> Measurements:
        """The measurements selected by ``index`` (integer or boolean array)."""
        index = np.asarray(index)
        return Measurements(
            q=self.q[index], p_tracker_tcp=self.p_tracker_tcp[index], minute=self.minute[index],
            R_tracker_tcp=None if self.R_tracker_tcp is None else self.R_tracker_tcp[index],
            temperature_C=None if self.temperature_C is None else self.temperature_C[index],
            line=None if self.line is None else self.line[index], source=self.source,
        )


#: How far past a joint limit a measured angle may be [rad] (a controller's rounding of an angle at its limit).
LIMIT_SLACK = 1e-9


def check_within_limits(meas: Measurements, lower: FloatArray, upper: FloatArray, option: str = "--measurements") -> None:
    """Refuse a measurement whose joint angles leave the robot's limits ``lower``, ``upper`` ``(n,)`` [rad]: the
    robot was never there (q1 = 720 deg was fitted as if it had been), naming the file, line and column.

    Raises
    ------
    InputError
        The first such angle: ``source``, its line, the column ``q<j>_deg``, the joint's limits in degrees.
    """
    q = np.asarray(meas.q, dtype=float)
    bad = (q < np.asarray(lower) - LIMIT_SLACK) | (q > np.asarray(upper) + LIMIT_SLACK)
    if not bad.any():
        return
    i, j = (int(k) for k in np.argwhere(bad)[0])
    row = int(meas.line[i]) if meas.line is not None else None
    raise InputError(f"{option}: expected joint {j + 1}'s angle within its limits {np.degrees(lower[j]):g} .. "
                     f"{np.degrees(upper[j]):g} deg, got {np.degrees(q[i, j]):g} deg ({int(bad.sum())} angle(s) "
                     "outside the limits in all)", path=meas.source, row=row, column=f"q{j + 1}_deg")


__all__ = ["LIMIT_SLACK", "Measurements", "check_within_limits"]
