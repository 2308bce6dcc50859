"""Rotations, transforms and their validation (docs/conventions.md)."""

from thermocomp.geometry.checks import (
    check_array,
    check_quat_wxyz,
    check_rotation,
    check_transform,
    check_unit_vector,
)
from thermocomp.geometry.rotations import (
    euler_xyz_from_matrix,
    invert_transform,
    matrix_from_euler_xyz,
    matrix_from_quat_wxyz,
    matrix_from_rotvec,
    quat_wxyz_from_matrix,
    rot_axis,
    rot_x,
    rot_y,
    rot_z,
    rotation_angle,
    rotvec_from_matrix,
    skew,
    transform,
)

__all__ = [
    "check_array",
    "check_quat_wxyz",
    "check_rotation",
    "check_transform",
    "check_unit_vector",
    "euler_xyz_from_matrix",
    "invert_transform",
    "matrix_from_euler_xyz",
    "matrix_from_quat_wxyz",
    "matrix_from_rotvec",
    "quat_wxyz_from_matrix",
    "rot_axis",
    "rot_x",
    "rot_y",
    "rot_z",
    "rotation_angle",
    "rotvec_from_matrix",
    "skew",
    "transform",
]
