"""How a deformation table grows with working time (seed 002, Section 4).

The paper applies the measured (or exaggerated) deformations "increasing
linearly in each minute of the work cycle" until thermal stabilisation,
about 180-200 minutes for the IRB140. A time law maps a time in minutes to
the fraction of the full table applied at that time; every parameter of the
table (translations and angles) is scaled by that fraction.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy as np

from thermocomp._typing import ArrayLike, FloatArray
from thermocomp.errors import ConfigurationError

if TYPE_CHECKING:
    from thermocomp.deformation.table import DeformationTable


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


@runtime_checkable
class TablePerMinute(Protocol):
    """A time law that is not a fraction of one table: every minute has its own table, applied in full.

    E.g. the paper authors' CoppeliaSim script, which adds ``D / T`` to the
    deformed scene once per minute
    (:class:`~thermocomp.deformation.coppeliasim_convention.AuthorsIncrements`).
    ``fraction`` is 1 at every minute; :func:`minute_tables` asks for the tables.
    """

    def fraction(self, minute: ArrayLike) -> FloatArray: ...

    def describe(self) -> str: ...

    def tables(self, minutes: Sequence[float]) -> Sequence[DeformationTable]: ...


def minute_tables(law: object, minutes: Sequence[float]) -> Sequence[DeformationTable] | None:
    """One table per minute of ``minutes`` for a :class:`TablePerMinute` law, else ``None`` (a fraction law)."""
    if isinstance(law, TablePerMinute):
        return law.tables(tuple(float(m) for m in minutes))
    return None
