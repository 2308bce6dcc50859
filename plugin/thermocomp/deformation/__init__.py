"""Deformation tables, how they grow with time, and the deformed robot."""

from thermocomp.deformation.apply import deformed_model
from thermocomp.deformation.table import DeformationTable
from thermocomp.deformation.timelaw import LinearRamp, Static, TimeLaw

__all__ = ["DeformationTable", "LinearRamp", "Static", "TimeLaw", "deformed_model"]
