"""Validation on held-out measurements: the TCP error before and after compensation with the identified table.

A held-out measurement is a pose the fit did not see, at its own minute.
*Before compensation* the controller believes the TCP is where the nominal
robot puts it; the robot misses that by ``|p_measured - T_tracker_world FK_nominal(q)|``.
*After compensation* with the identified table and law (seed 002: IK on the
deformed model), the robot reaches a target within the model's error at
that pose and minute, ``|p_measured - T_tracker_world FK_identified(q, s(t))|``
(to first order in the table: compensation moves the joints by the
deformation's size, which changes the model error by its square). The
closed loop that measures again after compensating (PyBullet as the
tracker) is :func:`thermocomp.calibration.loop.close_the_loop`.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from thermocomp._typing import FloatArray, PathLike
from thermocomp.calibration.timefit import Calibration
from thermocomp.deformation.apply import deformed_model
from thermocomp.deformation.table import DeformationTable
from thermocomp.geometry.rotations import rotation_angle
from thermocomp.io.atomic import atomic_write_bytes
from thermocomp.io.measurements import Measurements
from thermocomp.kinematics.fk import fk
from thermocomp.robot.chain import Chain


@dataclass(frozen=True, eq=False)
class Validation:
    """TCP errors at held-out measurements (SI).

    Attributes
    ----------
    minute
        ``(m,)`` [min].
    labels
        How each measurement is named (its file line).
    before, after
        ``(m,)`` position errors [m]: nominal model, identified model.
    angle_before, angle_after
        ``(m,)`` orientation errors [rad], or ``None`` without measured orientation.
    source
        The held-out file.
    """

    minute: FloatArray
    labels: tuple[str, ...]
    before: FloatArray
    after: FloatArray
    angle_before: FloatArray | None
    angle_after: FloatArray | None
    source: str

    def text(self) -> str:
        mm = 1e3
        lines = [f"Validation on {len(self.labels)} held-out measurements ({self.source})",
                 f"  TCP error before compensation: rms {np.sqrt(np.mean(self.before**2)) * mm:.4f} mm, "
                 f"max {self.before.max() * mm:.4f} mm",
                 f"  after compensation with the identified table: rms {np.sqrt(np.mean(self.after**2)) * mm:.4f} mm, "
                 f"max {self.after.max() * mm:.4f} mm"]
        if self.angle_before is not None and self.angle_after is not None:
            lines.append(f"  orientation: max {np.degrees(self.angle_before.max()):.5f} deg before, "
                         f"{np.degrees(self.angle_after.max()):.5f} deg after")
        lines.append(f"  {'where':<10} {'minute':>8} {'before mm':>10} {'after mm':>10}")
        for i, label in enumerate(self.labels):
            lines.append(f"  {label:<10} {self.minute[i]:>8g} {self.before[i] * mm:>10.5f} {self.after[i] * mm:>10.5f}")
        return "\n".join(lines) + "\n"


def validate(chain: Chain, calibration: Calibration, held: Measurements, composition: str = "table") -> Validation:
    """TCP errors at ``held`` before and after compensation with ``calibration`` (see the module docstring)."""
    fit = calibration.fit
    T = fit.T_tracker_world
    fraction = np.asarray(calibration.law.fraction(held.minute), dtype=float)  # type: ignore[attr-defined]
    if held.temperature_C is not None and hasattr(calibration.law, "fraction_from_temperatures"):
        fraction = calibration.law.fraction_from_temperatures(held.temperature_C)  # measured, not the log
    R_nom, p_nom = fk(deformed_model(chain, DeformationTable.zero(chain.n_joints)), held.q)
    R_id, p_id = fk(deformed_model(chain, fit.table, fraction, composition), held.q)

    def to_tracker(R: FloatArray, p: FloatArray) -> tuple[FloatArray, FloatArray]:
        return T[:3, :3] @ R, p @ T[:3, :3].T + T[:3, 3]

    (R_nom, p_nom), (R_id, p_id) = to_tracker(R_nom, p_nom), to_tracker(R_id, p_id)
    angle_before = angle_after = None
    if held.R_tracker_tcp is not None:
        angle_before = rotation_angle(held.R_tracker_tcp @ np.swapaxes(R_nom, -1, -2))
        angle_after = rotation_angle(held.R_tracker_tcp @ np.swapaxes(R_id, -1, -2))
    return Validation(
        minute=held.minute, labels=tuple(held.label(i) for i in range(held.n)),
        before=np.linalg.norm(held.p_tracker_tcp - p_nom, axis=1),
        after=np.linalg.norm(held.p_tracker_tcp - p_id, axis=1),
        angle_before=angle_before, angle_after=angle_after, source=held.source,
    )


def plot_validation(validation: Validation, path: PathLike, title: str = "") -> Path:
    """Draw the held-out TCP errors before and after compensation against minutes (PNG, written atomically)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.5), constrained_layout=True)
    ax.semilogy(validation.minute, np.maximum(validation.before * 1e3, 1e-6), "o", color="tab:red",
                label="before compensation (nominal model)")
    ax.semilogy(validation.minute, np.maximum(validation.after * 1e3, 1e-6), "s", color="tab:green",
                label="after compensation (identified table and law)")
    ax.set_xlabel("working time [min]")
    ax.set_ylabel("TCP position error at held-out poses [mm]")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="best", fontsize=8)
    ax.set_title(title or f"held-out measurements: {validation.source}", fontsize=10)
    buffer = io.BytesIO()
    try:
        fig.savefig(buffer, format="png", dpi=110)
    finally:
        plt.close(fig)
    dest = Path(path)
    atomic_write_bytes(dest, buffer.getvalue())
    return dest


__all__ = ["Validation", "plot_validation", "validate"]
