"""A long, smooth, 3D-printing-like toolpath for the IRB140, written as a targets CSV.

The path prints a dome-shaped shell layer by layer in front of the robot: each
layer is an Archimedean spiral over a curved surface (a few Gaussian bumps
whose heights come from a seeded :class:`numpy.random.Generator`), outward on
even layers and back inward on odd ones, so the path is continuous. The tool
axis (TCP z) points into the surface along its normal, within about 15 degrees
of straight down; the TCP x axis follows world -x projected on the surface.

Reachability is guaranteed by construction: the designed poses are solved on
the nominal robot every ``KNOT_EVERY`` poses (one configuration branch, checked
for continuity), the joint angles are interpolated between those knots with a
cubic spline, and every written pose is ``fk(nominal, q)`` of its interpolated
``q``. So the file's poses lie within micrometres of the designed path, and the
reference joints ``q1_deg..q6_deg`` (variant A) reach them exactly.

Units in the file: millimetres and degrees (the self-describing form of
:mod:`thermocomp.io.targets_csv`, CoppeliaSim Euler ``R = Rx(a) Ry(b) Rz(c)``),
``time_min`` spread evenly over ``0..DURATION_MIN``. Inside: SI.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from scipy.interpolate import CubicSpline

import thermocomp as tc
from thermocomp.geometry.rotations import euler_xyz_from_matrix
from thermocomp.kinematics.seeding import solve_nominal_configuration

#: Path geometry [m]: spiral centre, outer radius, line spacing, layer height,
#: and the path's length in poses SPACING apart (1,000,000 x 0.5 mm = 500 m).
CENTRE = np.array([0.58, 0.0, 0.30])
RADIUS = 0.100
PITCH = 0.002
LAYER_HEIGHT = 0.0005
SPACING = 0.0005
PATH_POSES = 1_000_000
#: Program duration [min]: past the 200-minute ramp of the paper, so the last
#: 40 minutes see the full table.
DURATION_MIN = 240.0
#: Designed poses are solved every KNOT_EVERY-th pose; the rest are splined.
KNOT_EVERY = 10
#: Largest joint change between consecutive knots [rad] accepted as one branch
#: (knots are 5 mm apart: a few milliradians is normal).
KNOT_JUMP = 0.2


def _surface(rng: np.random.Generator):
    """Height ``z(x, y)`` [m] above the centre plane and its gradient: a dome plus bumps."""
    centres = CENTRE[:2] + rng.uniform(-0.06, 0.06, (4, 2))
    heights = rng.uniform(0.002, 0.006, 4) * rng.choice([-1.0, 1.0], 4)
    widths = rng.uniform(0.025, 0.045, 4)
    centres = np.vstack([CENTRE[:2], centres])
    heights = np.concatenate([[0.030], heights])
    widths = np.concatenate([[0.080], widths])

    def height_and_gradient(xy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        d = xy[:, None, :] - centres[None]  # (n, k, 2)
        g = heights * np.exp(-np.sum(d * d, axis=2) / (2 * widths**2))  # (n, k)
        z = g.sum(axis=1)
        grad = -np.sum(g[:, :, None] * d / widths[None, :, None] ** 2, axis=1)
        return z, grad

    return height_and_gradient


def _spiral_xy(spacing: float) -> np.ndarray:
    """One outward spiral layer, points ``spacing`` apart along the arc, ``(k, 2)`` [m] about the centre."""
    # r = PITCH theta / (2 pi): arc length s(theta) ~ PITCH theta^2 / (4 pi) (exact enough for spacing).
    theta_max = 2 * np.pi * RADIUS / PITCH
    length = PITCH * theta_max**2 / (4 * np.pi)
    s = np.arange(0.0, length, spacing)
    theta = np.sqrt(4 * np.pi * s / PITCH)
    r = PITCH * theta / (2 * np.pi)
    return np.column_stack([r * np.cos(theta), r * np.sin(theta)])


def designed_path(n_poses: int, spacing: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The designed poses: ``p_world_tcp`` ``(n, 3)`` [m] and ``R_world_tcp`` ``(n, 3, 3)``."""
    surface = _surface(rng)
    layer = _spiral_xy(spacing)
    n_layers = -(-n_poses // layer.shape[0])
    xy_parts, z_offsets = [], []
    for k in range(n_layers):
        xy_parts.append(layer if k % 2 == 0 else layer[::-1])
        z_offsets.append(np.full(layer.shape[0], k * LAYER_HEIGHT))
    xy = np.concatenate(xy_parts)[:n_poses] + CENTRE[:2]
    dz, grad = surface(xy)
    z = CENTRE[2] + dz + np.concatenate(z_offsets)[:n_poses]
    p = np.column_stack([xy, z])
    normal = np.column_stack([-grad, np.ones(n_poses)])
    normal /= np.linalg.norm(normal, axis=1, keepdims=True)
    z_tcp = -normal
    x_tcp = np.array([-1.0, 0.0, 0.0]) - (z_tcp @ np.array([-1.0, 0.0, 0.0]))[:, None] * z_tcp
    x_tcp /= np.linalg.norm(x_tcp, axis=1, keepdims=True)
    y_tcp = np.cross(z_tcp, x_tcp)
    R = np.stack([x_tcp, y_tcp, z_tcp], axis=2)  # columns: TCP axes in the world
    return p, R


def joint_path(chain: tc.Chain, p_knots: np.ndarray, R_knots: np.ndarray) -> np.ndarray:
    """Nominal joint angles ``(k, n)`` [rad] of the knots, on one branch; raises if not continuous."""
    model = tc.nominal_model(chain)
    centre = np.argmin(np.linalg.norm(p_knots - CENTRE, axis=1))
    first = solve_nominal_configuration(
        model, R_knots[centre:centre + 1], p_knots[centre:centre + 1], np.radians([[0, 30, 20, 0, 40, 0]])
    )
    if first.status[0] != tc.Status.CONVERGED:
        raise RuntimeError("toolpath: the centre of the path is not reachable; check CENTRE")
    seed = np.repeat(first.q, p_knots.shape[0], axis=0)
    result = tc.solve_ik(model, R_knots, p_knots, seed, measure_singularity=False)
    q = result.q
    jumps = np.flatnonzero((np.max(np.abs(np.diff(q, axis=0)), axis=1) > KNOT_JUMP)
                           | (result.status[1:] != tc.Status.CONVERGED))
    # Rare: a knot that landed on another branch; continue it from its predecessor.
    for i in jumps + 1:
        fix = tc.solve_ik(model, R_knots[i:i + 1], p_knots[i:i + 1], q[i - 1:i])
        q[i] = fix.q[0]
    if result.status[0] != tc.Status.CONVERGED or np.max(np.abs(np.diff(q, axis=0))) > KNOT_JUMP:
        raise RuntimeError("toolpath: the knots are not on one continuous branch")
    return q


class Toolpath:
    """The toolpath: ``PATH_POSES`` designed poses, every ``KNOT_EVERY``-th solved, the rest splined.

    A program of ``n`` poses is the first ``n`` poses of the path (so poses
    are ``SPACING`` apart at every size), timed evenly over 0..``DURATION_MIN``.
    """

    def __init__(self, seed: int = 2024) -> None:
        self.chain = tc.load_robot("irb140")
        rng = np.random.default_rng(seed)
        n_knots = -(-PATH_POSES // KNOT_EVERY) + 1
        p_knots, R_knots = designed_path(n_knots, SPACING * KNOT_EVERY, rng)
        self.q_knots = joint_path(self.chain, p_knots, R_knots)
        self.n_max = (n_knots - 1) * KNOT_EVERY + 1

    def q(self, n_poses: int) -> np.ndarray:
        """Joint angles ``(n_poses, 6)`` [rad] of the first ``n_poses`` poses of the path."""
        if n_poses > self.n_max:
            raise ValueError(f"path holds at most {self.n_max} poses, asked for {n_poses}")
        spline = CubicSpline(np.arange(self.q_knots.shape[0]) * KNOT_EVERY, self.q_knots, axis=0)
        return spline(np.arange(n_poses, dtype=float))

    def write(self, path: Path, n_poses: int, with_reference: bool) -> dict:
        """Write the first ``n_poses`` poses as a self-describing targets CSV; returns facts about them."""
        q = self.q(n_poses)
        R, p = tc.fk(tc.nominal_model(self.chain), q)
        time_min = np.linspace(0.0, DURATION_MIN, n_poses)
        euler_deg = np.degrees(euler_xyz_from_matrix(R))
        columns = [p * 1e3, euler_deg, time_min[:, None]]
        header = "name,x_mm,y_mm,z_mm,euler_xyz_a_deg,euler_xyz_b_deg,euler_xyz_c_deg,time_min"
        if with_reference:
            columns.append(np.degrees(q))
            header += "," + ",".join(f"q{j + 1}_deg" for j in range(q.shape[1]))
        values = np.hstack(columns)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write("# bench/toolpath.py: a layered spiral print path for the IRB140 (generated)\n")
            handle.write(header + "\n")
            # 12 significant digits: 1e-9 m and ~1e-12 rad, below every solver tolerance.
            line = "T%d," + ",".join(["%.12g"] * values.shape[1]) + "\n"
            for start in range(0, n_poses, 50_000):
                rows = values[start:start + 50_000].tolist()
                handle.write("".join([line % (start + i, *row) for i, row in enumerate(rows)]))
        step = np.linalg.norm(np.diff(p, axis=0), axis=1)
        return {
            "poses": n_poses,
            "spacing_mm": (float(np.median(step)) * 1e3, float(step.max()) * 1e3),
            "extent_mm": (p.min(axis=0) * 1e3, p.max(axis=0) * 1e3),
            "tilt_deg": float(np.degrees(np.arccos(np.clip(-R[:, 2, 2], -1, 1))).max()),
            "bytes": path.stat().st_size,
        }
