"""The robot model: a serial chain in the paper's table form, built-in robots, DH conversion."""

from thermocomp.robot.builtin import BUILTIN_NAMES, BUILTIN_ROBOTS, load_robot, robot_dir, robot_file
from thermocomp.robot.chain import Chain
from thermocomp.robot.dh import chain_from_dh, dh_matrix

__all__ = ["BUILTIN_NAMES", "BUILTIN_ROBOTS", "Chain", "chain_from_dh", "dh_matrix", "load_robot", "robot_dir",
           "robot_file"]
