"""The display magnification of a deformation, one range for every simulator (PyBullet, CoppeliaSim and its add-on's
spinbox): from 1 to 1000, as the paper's Figure 12 goes to 1000."""

from __future__ import annotations

from thermocomp.errors import ConfigurationError

#: Magnifications of the deformation offered for display.
MAGNIFICATION_RANGE = (1.0, 1000.0)


def check_magnification(magnification: float, option: str = "magnification") -> float:
    """``magnification`` if it is a finite number in :data:`MAGNIFICATION_RANGE`, else :class:`ConfigurationError`
    naming ``option``. A value within the range may still drive the robot through its cell's table or floor:
    :func:`thermocomp.simulators.pybullet.cell.magnification_warning` says so."""
    lo, hi = MAGNIFICATION_RANGE
    if not (lo <= magnification <= hi):  # also refuses NaN and infinities
        raise ConfigurationError(f"{option}: expected a finite number from {lo:g} to {hi:g}, got {magnification:g}")
    return float(magnification)
