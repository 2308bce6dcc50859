"""The robot model: a serial chain in the paper's table form, and DH conversion (no files: the built-in robots and
the robot files are read by :mod:`thermocomp.io.robots`)."""

from thermocomp.robot.chain import Chain
from thermocomp.robot.dh import chain_from_dh, dh_matrix

__all__ = ["Chain", "chain_from_dh", "dh_matrix"]
