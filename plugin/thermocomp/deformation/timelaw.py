"""How a deformation table grows with working time (seed 002, Section 4).

The paper applies the measured (or exaggerated) deformations "increasing
linearly in each minute of the work cycle" until thermal stabilisation,
about 180-200 minutes for the IRB140. A time law maps a time in minutes to
the fraction of the full table applied at that time; every parameter of the
table (translations and angles) is scaled by that fraction.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from thermocomp._typing import ArrayLike, FloatArray
from thermocomp.errors import ConfigurationError


@dataclass(frozen=True)
class LinearRamp:
    """Linear growth from zero at minute 0 to the full table at ``stabilisation_min``.

    Parameters
    ----------
    stabilisation_min
        Time of thermal stabilisation [min], > 0. Constant afterwards.
    """

    stabilisation_min: float = 200.0

    def __post_init__(self) -> None:
        if not (np.isfinite(self.stabilisation_min) and self.stabilisation_min > 0):
            raise ConfigurationError(
                f"stabilisation time: expected a positive number of minutes, got {self.stabilisation_min}"
            )

    def fraction(self, minute: ArrayLike) -> FloatArray:
        """Fraction of the full table applied at ``minute`` [min], shape of ``minute``."""
        t = np.asarray(minute, dtype=float)
        return np.clip(t / self.stabilisation_min, 0.0, 1.0)

    def describe(self) -> str:
        return f"linear ramp to the full table at {self.stabilisation_min:g} min"


@dataclass(frozen=True)
class Static:
    """The full table at every minute (the paper's static case)."""

    def fraction(self, minute: ArrayLike) -> FloatArray:
        """1.0 for every ``minute``."""
        return np.ones_like(np.asarray(minute, dtype=float))

    def describe(self) -> str:
        return "static: the full table at every minute"


TimeLaw = LinearRamp | Static
