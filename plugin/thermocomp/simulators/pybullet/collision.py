"""Collision checks of a compensated program: the robot against itself and the cell (seed 004, Section 3-3).

For every row (minute, target) whose compensation converged, the deformed
robot of that minute is posed at the corrected angles and PyBullet's
``getClosestPoints`` measures

* **self**: every pair of links that are not neighbours in the chain
  (``base``, ``link1`` .. ``linkn``; a link and its parent always touch at
  their joint, so adjacent pairs are skipped);
* **cell**: every link against every scene object with ``collide = true``,
  except the object the robot is mounted on (``[robot] mount``), which its
  ``base`` and ``link1`` touch by design.

A pair is reported when its distance is at most the clearance; a negative
distance is a penetration depth (a collision).

**Pairs close by design.** Some non-adjacent link envelopes sit within the
clearance of each other whatever the program does (the UR5's ``base`` and
``link2`` are 7 mm apart at home, the GoFa's 10 mm). Reporting them would
flag every row. The rule: a self pair whose distance at the robot's home
configuration, nominal (zero deformation), is within the clearance is
*close by design*; it is listed once in the report
(:attr:`CollisionReport.close_by_design`) and, in the rows, checked for
contact only: reported when its distance is <= 0, and for a pair that
already touches at home, only when it penetrates deeper than there (by more
than :data:`DESIGN_CONTACT_TOL`).

PyBullet collides each convex piece of a link's collision shape as its
convex hull. The built-in envelopes and primitives come as convex pieces
that contain the mesh (:func:`thermocomp.simulators.pybullet.geometry.convex_piece_geometry`,
at most 1.12 times the mesh volume; docs/pybullet.md lists each link), so a
check errs only on the safe side; a user's collision mesh is one hull. Seed 004 proposes separating
axis tests on oriented boxes; PyBullet's GJK/EPA on the links' convex pieces
is the same family of test on tighter shapes. Distances are PyBullet's
(single precision, far below any clearance worth asking for).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from thermocomp._typing import FloatArray, PathLike
from thermocomp.compensation.compensate import CompensationChunk
from thermocomp.deformation.table import DeformationTable
from thermocomp.errors import ConfigurationError, InputError
from thermocomp.io.atomic import atomic_open
from thermocomp.io.results_csv import quote_name
from thermocomp.kinematics.ik import Status
from thermocomp.robot.chain import Chain
from thermocomp.simulators.pybullet.client import Client
from thermocomp.simulators.pybullet.geometry import RobotGeometry, link_names
from thermocomp.simulators.pybullet.robot import DeformedRobot, RobotBody
from thermocomp.simulators.pybullet.scene import SceneBodies

#: Links that may touch the object the robot is mounted on.
MOUNT_LINKS = ("base", "link1")
#: How much deeper [m] than at home a pair that touches at home by design
#: must penetrate to be reported: 10 um, above PyBullet's single-precision
#: contact distances (about 1e-7 m at a metre) and far below any real contact.
DESIGN_CONTACT_TOL = 1e-5


@dataclass(frozen=True)
class CollisionOptions:
    """Settings of a collision check.

    Parameters
    ----------
    clearance
        Report pairs closer than this [m], >= 0 (0: only touching or
        penetrating pairs).
    self_collision
        Check non-adjacent links of the robot against each other.
    cell
        Check the robot against the scene's objects.
    """

    clearance: float = 0.0
    self_collision: bool = True
    cell: bool = True

    def __post_init__(self) -> None:
        if not (math.isfinite(self.clearance) and self.clearance >= 0):
            raise ConfigurationError(f"clearance: expected a distance >= 0 m, got {self.clearance!r}")


@dataclass(frozen=True, eq=False)
class CollisionReport:
    """Pairs that collide or pass within the clearance, one entry per (row, pair).

    Attributes
    ----------
    names
        Target names; ``target`` indexes them.
    options
        The check's settings.
    n_rows
        Configurations checked.
    minute, target
        Row of each entry, ``(h,)``.
    kind
        ``"self"`` or ``"cell"`` per entry.
    link, other
        The robot link and the other link or scene object, per entry.
    distance
        Smallest distance of the pair [m], ``(h,)``; negative: penetration depth.
    skipped
        Rows not checked because their compensation failed.
    pairs_checked
        Self pairs and ``("*", object)`` for each scene object checked.
    close_by_design
        ``(link, other, distance [m])`` of the self pairs within the
        clearance at the nominal home configuration: checked for contact
        only (module docstring).
    """

    names: tuple[str, ...]
    options: CollisionOptions
    n_rows: int
    minute: FloatArray
    target: np.ndarray
    kind: tuple[str, ...]
    link: tuple[str, ...]
    other: tuple[str, ...]
    distance: FloatArray
    skipped: int = 0
    pairs_checked: tuple[tuple[str, str], ...] = field(default_factory=tuple)
    close_by_design: tuple[tuple[str, str, float], ...] = field(default_factory=tuple)

    @property
    def n_hits(self) -> int:
        return int(self.distance.size)

    def flagged_rows(self) -> list[tuple[float, int]]:
        """The distinct (minute, target index) rows with at least one entry, in row order."""
        seen: dict[tuple[float, int], None] = {}
        for m, t in zip(self.minute.tolist(), self.target.tolist()):
            seen[(m, t)] = None
        return list(seen)

    def text(self, limit: int = 20) -> str:
        """Summary and the first ``limit`` entries."""
        c = self.options.clearance
        what = [w for w, on in (("itself (non-adjacent links)", self.options.self_collision),
                                ("the cell", self.options.cell)) if on]
        rows = self.flagged_rows()
        lines = [f"collision check against {' and '.join(what)}, clearance {c * 1e3:g} mm: "
                 f"{self.n_rows:,} configurations, {len(rows):,} flagged"
                 + (f" ({self.skipped:,} rows not checked: compensation failed)" if self.skipped else "")]
        if self.close_by_design:
            pairs = ", ".join(f"{a} - {b} ({d * 1e3:.2f} mm)" for a, b, d in self.close_by_design)
            lines.append(f"  close by design (within the clearance at the nominal home configuration), "
                         f"checked for contact only: {pairs}")
        for i in range(min(limit, self.n_hits)):
            verdict = "collision" if self.distance[i] <= 0 else "within clearance"
            lines.append(f"  minute {self.minute[i]:.12g}, target {self.names[int(self.target[i])]}: "
                         f"{self.link[i]} - {self.other[i]} at {self.distance[i] * 1e3:.2f} mm ({verdict})")
        if self.n_hits > limit:
            lines.append(f"  ... and {self.n_hits - limit:,} more")
        return "\n".join(lines)


def collision_geometry(geometry: RobotGeometry) -> RobotGeometry:
    """``geometry`` without visual meshes: what a collision check loads (faster to reload)."""
    return replace(geometry, links={k: replace(v, visual_mesh=None) for k, v in geometry.links.items()},
                   source=geometry.source + ", collision meshes only")


def self_pairs(chain: Chain, geometry: RobotGeometry) -> list[tuple[str, str]]:
    """Pairs of links checked against each other: both have a collision mesh, are not neighbours and do not
    touch by construction (:attr:`RobotGeometry.touching`)."""
    names = link_names(chain)
    solid = [k for k, n in enumerate(names) if n in geometry.links and geometry.links[n].collision_mesh]
    return [(names[a], names[b]) for i, a in enumerate(solid) for b in solid[i + 1:]
            if b - a >= 2 and (names[a], names[b]) not in geometry.touching]


def check_configuration(body: RobotBody, pairs: Sequence[tuple[str, str]], cell: dict[str, int],
                        mount: str | None, clearance: float,
                        pair_limits: Mapping[tuple[str, str], float] | None = None
                        ) -> list[tuple[str, str, str, float]]:
    """Pairs within ``clearance`` [m] at the body's current pose: ``(kind, link, other, distance)``.

    Parameters
    ----------
    body
        The posed robot.
    pairs
        Link pairs of the self check (:func:`self_pairs`); empty to skip it.
    cell
        Scene bodies by name to check against; empty to skip.
    mount
        Object the robot stands on: its contacts with :data:`MOUNT_LINKS` are expected.
    pair_limits
        A self pair's own limit [m] instead of ``clearance`` (pairs close by
        design: reported when their distance is at most the limit).
    """
    pb, cid = body.client.pb, body.client.id
    hits: list[tuple[str, str, str, float]] = []
    limits = {} if pair_limits is None else pair_limits
    for a, b in pairs:
        limit = limits.get((a, b), clearance)
        points = pb.getClosestPoints(body.body, body.body, max(limit, 0.0), linkIndexA=body.link_index[a],
                                     linkIndexB=body.link_index[b], physicsClientId=cid)
        if points:
            d = min(p[8] for p in points)
            if d <= limit:
                hits.append(("self", a, b, d))
    names = {index: name for name, index in body.link_index.items()}
    for obj, other in cell.items():
        closest: dict[str, float] = {}
        for p in pb.getClosestPoints(body.body, other, clearance, physicsClientId=cid):
            link = names.get(p[3], str(p[3]))
            if obj == mount and link in MOUNT_LINKS:
                continue
            closest[link] = min(closest.get(link, math.inf), p[8])
        hits.extend(("cell", link, obj, d) for link, d in closest.items())
    return hits


def close_by_design(body: RobotBody, chain: Chain, pairs: Sequence[tuple[str, str]], clearance: float
                    ) -> dict[tuple[str, str], float]:
    """Self pairs within ``clearance`` [m] at the home configuration: their distance [m] there.

    ``body`` must be the nominal robot (zero deformation); it is left at
    ``chain.home``.
    """
    body.set_q(chain.home)
    return {(a, b): d for _, a, b, d in check_configuration(body, pairs, {}, None, clearance)}


def design_limits(close: Mapping[tuple[str, str], float]) -> dict[tuple[str, str], float]:
    """Report limits [m] of pairs close by design: contact (0), or deeper than at home by :data:`DESIGN_CONTACT_TOL`."""
    return {pair: (0.0 if d > 0 else d - DESIGN_CONTACT_TOL) for pair, d in close.items()}


def check_program_collisions(client: Client, chain: Chain, table: DeformationTable, names: Sequence[str],
                             chunks: Sequence[CompensationChunk], geometry: RobotGeometry,
                             scene_bodies: SceneBodies | None, workdir: PathLike, *,
                             options: CollisionOptions | None = None, composition: str = "table",
                             progress: Callable[[int, int], None] | None = None) -> CollisionReport:
    """Check every corrected configuration of a compensated program for collisions.

    Parameters
    ----------
    client
        A PyBullet connection holding the scene's bodies (DIRECT is enough).
    chain, table, composition
        The robot (placed in the world), its full table, how rows compose.
    names
        The program's target names.
    chunks
        Compensation results; rows whose status is not ``converged`` are
        skipped (they have no corrected angles) and counted.
    geometry
        The robot's link meshes (their collision meshes are used).
    scene_bodies
        The cell (:func:`thermocomp.simulators.pybullet.scene.load_scene`), or ``None``.
    workdir
        Folder for the regenerated URDF.
    progress
        Called as ``progress(rows_done, rows_total)`` (rows to check) after each minute's rows.

    Returns
    -------
    CollisionReport
        Every (row, pair) within the clearance, in row order; self pairs
        close by design (module docstring) only when they touch.
    """
    if not chunks:
        raise InputError("expected compensation results to check, got none")
    options = CollisionOptions() if options is None else options
    geometry = collision_geometry(geometry)
    pairs = self_pairs(chain, geometry) if options.self_collision else []
    cell = scene_bodies.colliding() if (options.cell and scene_bodies is not None) else {}
    mount = None if scene_bodies is None else scene_bodies.scene.robot.mount
    minute = np.concatenate([c.minute for c in chunks])
    fraction = np.concatenate([c.fraction for c in chunks])
    target = np.concatenate([c.target for c in chunks])
    q = np.concatenate([c.q for c in chunks])
    ok = np.concatenate([c.status for c in chunks]) == Status.CONVERGED
    robot = DeformedRobot(client, chain, table, workdir, geometry, composition=composition, rgba=None,
                          name="collision")
    out: list[tuple[int, str, str, str, float]] = []
    close: dict[tuple[str, str], float] = {}
    try:
        if pairs:
            close = close_by_design(robot.show(0.0), chain, pairs, options.clearance)
        limits = design_limits(close)
        values, group = np.unique(fraction, return_inverse=True)
        total, done = int(ok.sum()), 0
        for k, value in enumerate(values.tolist()):
            rows = np.flatnonzero((group == k) & ok)
            if rows.size == 0:
                continue
            body = robot.show(value)
            for i in rows.tolist():
                body.set_q(q[i])
                out.extend((i, *hit) for hit in check_configuration(body, pairs, cell, mount, options.clearance,
                                                                    limits))
            done += rows.size
            if progress is not None:
                progress(done, total)
    finally:
        robot.remove()
    out.sort(key=lambda h: h[0])  # row order (rows were visited grouped by minute)
    rows_hit = np.array([h[0] for h in out], dtype=np.int64)
    return CollisionReport(
        names=tuple(names), options=options, n_rows=int(ok.sum()),
        minute=minute[rows_hit], target=target[rows_hit],
        kind=tuple(h[1] for h in out), link=tuple(h[2] for h in out), other=tuple(h[3] for h in out),
        distance=np.array([h[4] for h in out], dtype=float), skipped=int((~ok).sum()),
        pairs_checked=tuple(pairs) + tuple(("*", obj) for obj in cell),
        close_by_design=tuple((a, b, d) for (a, b), d in close.items()),
    )


def write_collision_csv(report: CollisionReport, path: PathLike) -> None:
    """Write the report's entries as CSV (``minute, target, kind, link, other, distance_mm, verdict``), atomically."""
    with atomic_open(path, newline="") as handle:
        handle.write("minute,target,kind,link,other,distance_mm,verdict\n")
        for i in range(report.n_hits):
            name = quote_name(report.names[int(report.target[i])])
            verdict = "collision" if report.distance[i] <= 0 else "within_clearance"
            handle.write(f"{report.minute[i]:.12g},{name},{report.kind[i]},{report.link[i]},{report.other[i]},"
                         f"{report.distance[i] * 1e3:.6g},{verdict}\n")


__all__ = [
    "DESIGN_CONTACT_TOL",
    "MOUNT_LINKS",
    "CollisionOptions",
    "CollisionReport",
    "check_configuration",
    "check_program_collisions",
    "close_by_design",
    "collision_geometry",
    "design_limits",
    "self_pairs",
    "write_collision_csv",
]
