"""A CoppeliaSim scene's joint objects, as the authors' scene convention needs them: reader and writer.

The convention (:mod:`thermocomp.deformation.coppeliasim_convention`) adds
Euler angles to each joint object's *world* orientation, so it needs, besides
the robot's table form, how each joint object is turned about its own axis at
the zero pose: the scene's choice, which no robot file carries. This file
carries it, one row per joint, CoppeliaSim Euler angles ``(alpha, beta,
gamma)``, ``R = Rx Ry Rz`` [deg] (docs/coppeliasim.md)::

    joint,alpha_deg,beta_deg,gamma_deg
    1,0,0,0
    2,-90,0,-90

``thermocomp coppeliasim read-robot --joint-objects-out FILE`` writes it from
a running scene; ``thermocomp compensate --convention authors-coppeliasim
--joint-objects FILE`` reads it. Lines starting with ``#`` are comments.
"""

from __future__ import annotations

import numpy as np

from thermocomp._typing import ArrayLike, FloatArray, PathLike
from thermocomp.errors import InputError
from thermocomp.geometry.rotations import euler_xyz_from_matrix, matrix_from_euler_xyz
from thermocomp.io.atomic import atomic_write_text
from thermocomp.io.csvtext import check_header, header_and_rows, parse_float

COLUMNS = ["joint", "alpha_deg", "beta_deg", "gamma_deg"]


def scene_joints_csv_text(R_world_joint: ArrayLike, comments: tuple[str, ...] = ()) -> str:
    """The file's text for the joint objects' world orientations ``(n, 3, 3)`` at the zero pose."""
    R = np.asarray(R_world_joint, dtype=float)
    # Exact Euler angles (not CoppeliaSim's gimbal-lock read-back): they rebuild R to round-off.
    euler_deg = np.degrees(euler_xyz_from_matrix(R))
    lines = [f"# {c}" for c in comments] + [",".join(COLUMNS)]
    lines += [f"{i + 1}," + ",".join(repr(float(v)) for v in row) for i, row in enumerate(euler_deg)]
    return "\n".join(lines) + "\n"


def write_scene_joints_csv(path: PathLike, R_world_joint: ArrayLike, comments: tuple[str, ...] = ()) -> None:
    """Write :func:`scene_joints_csv_text` atomically."""
    atomic_write_text(path, scene_joints_csv_text(R_world_joint, comments))


def read_scene_joints_csv(path: PathLike, n_joints: int) -> FloatArray:
    """The joint objects' world orientations at the zero pose, ``(n_joints, 3, 3)``.

    Raises
    ------
    InputError
        Naming file, line and column: a missing column, a row out of order, a
        number that is not one, or another count of joints than the robot's.
    """
    src = str(path)
    header_line, header, rest = header_and_rows(
        path, "expected a header 'joint,alpha_deg,beta_deg,gamma_deg' and rows, got an empty file")
    body = list(rest)
    idx = check_header(header, COLUMNS, [], src, header_line)
    if len(body) != n_joints:
        raise InputError(f"expected one row per joint of the robot ({n_joints}), got {len(body)}", path=src)
    euler = np.empty((n_joints, 3))
    for k, (line, cells) in enumerate(body, start=1):
        if len(cells) < len(header):
            raise InputError(f"expected {len(header)} cells, got {len(cells)}", path=src, row=line)
        if cells[idx["joint"]].strip() != str(k):
            raise InputError(f"expected joint {k}, got {cells[idx['joint']]!r}", path=src, row=line, column="joint")
        euler[k - 1] = [parse_float(cells[idx[c]], src, line, c) for c in COLUMNS[1:]]
    return matrix_from_euler_xyz(np.radians(euler))
