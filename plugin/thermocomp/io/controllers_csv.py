"""Joint PI controllers (seed 000, Step 4, Eq. 7 and Table IV) as CSV: reader and writer.

Form, one row per joint, joints ``1`` .. ``n`` in order (what ``thermocomp
identify --step 4 --out`` writes, and what ``thermocomp simulate-recording
--controllers`` reads)::

    joint,Kp_Nm_per_rad_s,Ti_s,setpoint_rad,nrmse_fit_percent
    1,15562.0,0.2565,0.0,91.7

``K_p`` [N m / (rad s)] and ``T_i`` [s] of ``tau_m(s) / E(s) = K_p (1 + T_i
s) / s``; the set point [rad] and the fit of Step 4 [%] are optional when
reading. Lines starting with ``#`` are comments.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from thermocomp._typing import FloatArray, PathLike
from thermocomp.errors import InputError
from thermocomp.io.atomic import atomic_open
from thermocomp.io.csvtext import joint_rows

REQUIRED = ("joint", "Kp_Nm_per_rad_s", "Ti_s")
OPTIONAL = ("setpoint_rad", "nrmse_fit_percent")


class ControllerRow(Protocol):
    """What the writer reads of one joint's controller (:class:`thermocomp.dynamics.controller.PIEstimate` has it):
    the joint (0-based), ``Kp`` [N m / (rad s)], ``Ti`` [s], the set point [rad] and the fit [%]."""

    joint: int
    Kp: float
    Ti: float
    setpoint: float
    fit_percent: float


def read_controllers_csv(path: PathLike, n_joints: int | None = None) -> tuple[FloatArray, FloatArray]:
    """``(Kp, Ti)``, each ``(n,)``, of a controllers CSV; errors name the file, line and column."""
    def positive(number: int, row: list[float]) -> None:
        for c, v in zip(REQUIRED[1:], row):
            if not v > 0:
                raise InputError(f"expected a value > 0, got {v!r}", path=str(path), row=number, column=c)

    a = joint_rows(path, REQUIRED, OPTIONAL, n_joints, positive)
    return a[:, 0], a[:, 1]


def write_controllers_csv(path: PathLike, estimates: Sequence[ControllerRow], comments: tuple[str, ...] = ()) -> None:
    """Write Step 4's estimates, one row per joint (``repr`` precision), atomically."""
    lines = [f"# {c}" for c in comments] + [",".join(REQUIRED + OPTIONAL)]
    lines += [f"{e.joint + 1},{e.Kp!r},{e.Ti!r},{e.setpoint!r},{e.fit_percent!r}" for e in estimates]
    with atomic_open(path) as fh:
        fh.write("\n".join(lines) + "\n")


__all__ = ["OPTIONAL", "REQUIRED", "ControllerRow", "read_controllers_csv", "write_controllers_csv"]
