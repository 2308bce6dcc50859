"""CoppeliaSim's pose conventions, written independently of thermocomp.

- A pose is a position ``p`` (3,) and a unit quaternion ``q`` in CoppeliaSim's
  order ``(x, y, z, w)`` (its ``C7Vector``; ``sim.getObjectPose`` returns
  ``[x, y, z, qx, qy, qz, qw]``).
- Euler angles are CoppeliaSim's ``(alpha, beta, gamma)``: ``R = Rx(alpha) Ry(beta) Rz(gamma)``,
  read back with ``beta = asin(R02)``, ``alpha = atan2(-R12, R22)``,
  ``gamma = atan2(-R01, R00)``, or at gimbal lock (``|R02| >= 0.999995``)
  ``alpha = 0``, ``gamma = atan2(R10, R11)``.
- A matrix is 12 numbers, row-major 3 x 4: ``[Xx Yx Zx Px Xy Yy Zy Py Xz Yz Zz Pz]``.

Only the standard library and numpy: the fake must not share code with the
plugin it checks.
"""

from __future__ import annotations

import math

import numpy as np

GIMBAL_R02 = 0.999995


def qmul(a, b):
    """Hamilton product of quaternions (x, y, z, w)."""
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return np.array([
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    ])


def qconj(q):
    return np.array([-q[0], -q[1], -q[2], q[3]])


def qrotate(q, v):
    """Rotate vector ``v`` by unit quaternion ``q``."""
    x, y, z, w = q
    u = np.array([x, y, z])
    t = 2.0 * np.cross(u, v)
    return np.asarray(v, dtype=float) + w * t + np.cross(u, t)


def q_about_z(angle):
    return np.array([0.0, 0.0, math.sin(angle / 2.0), math.cos(angle / 2.0)])


def matrix_from_q(q):
    x, y, z, w = q
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ])


def q_from_matrix(R):
    """Unit quaternion (x, y, z, w) of rotation matrix ``R`` (largest-component method)."""
    R = np.asarray(R, dtype=float)
    tr = R[0, 0] + R[1, 1] + R[2, 2]
    if tr > 0:
        s = 2.0 * math.sqrt(1.0 + tr)
        q = [(R[2, 1] - R[1, 2]) / s, (R[0, 2] - R[2, 0]) / s, (R[1, 0] - R[0, 1]) / s, s / 4]
    elif R[0, 0] > R[1, 1] and R[0, 0] > R[2, 2]:
        s = 2.0 * math.sqrt(1.0 + R[0, 0] - R[1, 1] - R[2, 2])
        q = [s / 4, (R[0, 1] + R[1, 0]) / s, (R[0, 2] + R[2, 0]) / s, (R[2, 1] - R[1, 2]) / s]
    elif R[1, 1] > R[2, 2]:
        s = 2.0 * math.sqrt(1.0 + R[1, 1] - R[0, 0] - R[2, 2])
        q = [(R[0, 1] + R[1, 0]) / s, s / 4, (R[1, 2] + R[2, 1]) / s, (R[0, 2] - R[2, 0]) / s]
    else:
        s = 2.0 * math.sqrt(1.0 + R[2, 2] - R[0, 0] - R[1, 1])
        q = [(R[0, 2] + R[2, 0]) / s, (R[1, 2] + R[2, 1]) / s, s / 4, (R[1, 0] - R[0, 1]) / s]
    q = np.array(q)
    return q / np.linalg.norm(q)


def matrix_from_euler(alpha, beta, gamma):
    """``Rx(alpha) @ Ry(beta) @ Rz(gamma)``, angles [rad]."""
    ca, sa = math.cos(alpha), math.sin(alpha)
    cb, sb = math.cos(beta), math.sin(beta)
    cc, sc = math.cos(gamma), math.sin(gamma)
    Rx = np.array([[1, 0, 0], [0, ca, -sa], [0, sa, ca]])
    Ry = np.array([[cb, 0, sb], [0, 1, 0], [-sb, 0, cb]])
    Rz = np.array([[cc, -sc, 0], [sc, cc, 0], [0, 0, 1]])
    return Rx @ Ry @ Rz


def euler_from_matrix(R):
    """CoppeliaSim's read-back ``[alpha, beta, gamma]`` [rad], gimbal-lock branch included."""
    r02 = float(R[0, 2])
    beta = math.asin(max(-1.0, min(1.0, r02)))
    if abs(r02) >= GIMBAL_R02:
        return [0.0, beta, math.atan2(R[1, 0], R[1, 1])]
    return [math.atan2(-R[1, 2], R[2, 2]), beta, math.atan2(-R[0, 1], R[0, 0])]


class Pose:
    """A rigid pose: position ``p`` and quaternion ``q`` (x, y, z, w)."""

    __slots__ = ("p", "q")

    def __init__(self, p=(0.0, 0.0, 0.0), q=(0.0, 0.0, 0.0, 1.0)):
        self.p = np.array(p, dtype=float)
        self.q = np.array(q, dtype=float)

    def __mul__(self, other: Pose) -> Pose:
        return Pose(self.p + qrotate(self.q, other.p), qmul(self.q, other.q))

    def inverse(self) -> Pose:
        qi = qconj(self.q)
        return Pose(-qrotate(qi, self.p), qi)

    def matrix12(self) -> list[float]:
        R = matrix_from_q(self.q)
        return [float(v) for v in np.hstack([R, self.p[:, None]]).reshape(12)]

    @staticmethod
    def from_matrix12(m) -> Pose:
        M = np.asarray(m, dtype=float).reshape(3, 4)
        return Pose(M[:, 3], q_from_matrix(M[:, :3]))

    def pose7(self) -> list[float]:
        return [float(v) for v in np.concatenate([self.p, self.q])]

    @staticmethod
    def from_pose7(v) -> Pose:
        v = np.asarray(v, dtype=float)
        q = v[3:]
        norm = np.linalg.norm(q)
        # A quaternion read from the scene round-trips bit for bit; others are normalised.
        return Pose(v[:3], q if abs(norm - 1.0) <= 1e-12 else q / norm)
