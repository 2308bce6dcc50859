"""Regenerate the built-in robots' envelope meshes and approximate inertials.

Run from the repository root (it needs the ``meshes`` extra, manifold3d, which the
plugin itself never imports)::

    .venv/bin/pip install -e ".[meshes]"
    .venv/bin/python robots/make_meshes.py [irb140 gofa ur5]

For each robot it writes ``robots/<name>/meshes/<link>.stl`` (``base``,
``link1`` .. ``link6``): one closed, consistently oriented solid per link,
binary STL in metres, in the link's frame (origin on joint ``k``, base
orientation at the zero pose: the URDF link frames of
``thermocomp.io.urdf``; docs/conventions.md). The solids are cylinders and
boxes, their convex hulls and unions (manifold3d), sized from published
dimensions so that the robot looks like itself in a simulator; they are
envelopes, not CAD. It then computes ``robots/<name>/inertia.csv`` from the
STL files as written (float32 vertices) with one density from the robot's
published total mass (seed 000, Step 1; ``thermocomp.inertia``).

Sources of the dimensions (metres; the joint positions come from each
robot's ``chain.csv``):

* IRB140: ABB IRB140 product specification (footprint about 400 x 450 mm
  incl. base plate, upper arm 360 mm, forearm 380 mm, wrist 65 mm; housing
  radii scaled from its dimension drawing).
* GoFa CRB 15000-5/0.95: ABB product specification and dimension drawing
  (base diameter about 165 mm, arm tube diameters 105-132 mm, tool flange
  63 mm class).
* UR5: Universal Robots' published radii and lengths as collected in
  ROS-Industrial ``ur_description`` physical_parameters.yaml (shoulder radius
  75 mm, upper arm and forearm 60 mm housings, arm tubes 54 / 40 mm, wrist
  radii 45 and 37.5 mm; base diameter 149 mm).

``tests/test_inertia_builtin.py`` checks that the meshes are closed, lie
around their joints and are small, and that ``inertia.csv`` is what the
library computes from them.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from thermocomp.inertia.builtin import BUILTIN_TOTAL_MASS
from thermocomp.inertia.links import inertia_rows, link_names
from thermocomp.inertia.robot import InertiaOptions, compute_inertials, zero_pose_link_frames
from thermocomp.io.inertia_csv import write_inertia_csv
from thermocomp.io.meshes import write_stl
from thermocomp.io.robots import load_robot

ROBOTS_DIR = Path(__file__).resolve().parent
#: Facets around a cylinder: 24 keeps a link at a few hundred faces and a
#: round look (chord sag 0.9 % of the radius).
SEGMENTS = 24


def _manifold():
    try:
        import manifold3d
    except ImportError:
        sys.exit("robots/make_meshes.py needs manifold3d: .venv/bin/pip install -e \".[meshes]\"")

    return manifold3d.Manifold


def cylinder(p0, p1, r: float):
    """Solid cylinder of radius ``r`` [m] from point ``p0`` to ``p1`` (base frame)."""
    M = _manifold()
    p0, p1 = np.asarray(p0, float), np.asarray(p1, float)
    d = p1 - p0
    h = float(np.linalg.norm(d))
    z = d / h
    helper = np.array([1.0, 0, 0]) if abs(z[0]) < 0.9 else np.array([0, 1.0, 0])
    x = np.cross(helper, z)
    x /= np.linalg.norm(x)
    y = np.cross(z, x)
    T = np.column_stack([x, y, z, p0])  # 3 x 4 affine
    return M.cylinder(h, r, r, SEGMENTS).transform(T)


def cyl_x(x0, x1, y, z, r):
    return cylinder((x0, y, z), (x1, y, z), r)


def cyl_y(y0, y1, x, z, r):
    return cylinder((x, y0, z), (x, y1, z), r)


def cyl_z(z0, z1, x, y, r):
    return cylinder((x, y, z0), (x, y, z1), r)


def box(lo, hi):
    """Axis-aligned box between corners ``lo`` and ``hi`` [m]."""
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    return _manifold().cube(tuple(hi - lo)).translate(tuple(lo))


def hull(*parts):
    return _manifold().batch_hull(list(parts))


def union(*parts):
    out = parts[0]
    for p in parts[1:]:
        out = out + p
    return out


def irb140():
    """ABB IRB140 at the zero pose, base frame [m]. Joints: 1 (0,0,.1045) Z; 2 (.07,.065,.352) Y;
    3 (.07,-.058,.712) Y; 4 (.3085,0,.712) X; 5 (.45,0,.712) Y; 6 (.515,0,.712) X (flange)."""
    z2, z3 = 0.352, 0.712
    return {
        "base": union(box((-0.2, -0.2, 0.0), (0.2, 0.2, 0.025)), cyl_z(0.0, 0.1045, 0.0, 0.0, 0.13),
                      box((-0.2, -0.09, 0.0), (-0.08, 0.09, 0.09))),
        "link1": union(cyl_z(0.1045, 0.24, 0.0, 0.0, 0.125),
                       hull(cyl_z(0.23, 0.25, 0.03, 0.0, 0.1), cyl_y(-0.07, 0.06, 0.07, z2, 0.085))),
        "link2": hull(cyl_y(0.06, 0.125, 0.07, z2, 0.08), cyl_y(0.06, 0.125, 0.07, z3, 0.062)),
        "link3": union(hull(cyl_y(-0.06, 0.06, 0.07, z3, 0.07), cyl_x(-0.06, 0.07, 0.0, z3, 0.065)),
                       cyl_x(0.07, 0.3085, 0.0, z3, 0.055)),
        "link4": union(cyl_x(0.3085, 0.41, 0.0, z3, 0.05),
                       box((0.40, 0.036, z3 - 0.04), (0.47, 0.05, z3 + 0.04)),
                       box((0.40, -0.05, z3 - 0.04), (0.47, -0.036, z3 + 0.04))),
        "link5": union(cyl_y(-0.035, 0.035, 0.45, z3, 0.036), cyl_x(0.45, 0.50, 0.0, z3, 0.03)),
        "link6": cyl_x(0.50, 0.515, 0.0, z3, 0.032),
    }


def gofa():
    """ABB GoFa CRB 15000-5/0.95 at the zero pose, base frame [m]. Joint axes (robots/gofa/chain.csv, the
    ROS-Industrial xacro, whose joint origins lie on them): 1 Z through (0,0); 2 Y and 3 Y at z .265 and .709;
    4 X at z .819; 5 Y at x .47; 6 X at z .899; flange at x .571. The housings sit where seed 000 Table I's
    joint points put them (joint 2 housing at y -.085, elbow at y -.086, wrist 5 at y .0755, joint 6 from x .538)."""
    z2, z3, z4, z6 = 0.265, 0.709, 0.819, 0.899
    return {
        "base": union(cyl_z(0.0, 0.1875, 0.0, 0.0, 0.0825), box((-0.1245, -0.06, 0.0), (-0.05, 0.06, 0.12))),
        "link1": hull(cyl_z(0.1875, 0.20, 0.0, 0.0, 0.0636), cyl_y(-0.085, 0.07, 0.0, z2, 0.0636)),
        "link2": hull(cyl_y(-0.172, -0.086, 0.0, z2, 0.066), cyl_y(-0.172, -0.086, 0.0, z3, 0.058)),
        "link3": hull(cyl_y(-0.085, 0.09, 0.0, z3, 0.065), cyl_x(-0.03, 0.096, 0.0, z4, 0.0528)),
        "link4": union(cyl_x(0.097, 0.42, 0.0, z4, 0.0528),
                       hull(cyl_x(0.40, 0.42, 0.0, z4, 0.0528), cyl_y(0.0755, 0.118, 0.47, z4, 0.05))),
        "link5": hull(cyl_y(-0.0935, 0.0745, 0.47, z4, 0.054), cyl_x(0.42, 0.538, 0.0, z6, 0.0527)),
        "link6": cyl_x(0.538, 0.571, 0.0, z6, 0.045),
    }


def ur5():
    """UR5 at the zero pose, in UR's base frame (x backwards) [m]. Joints: 1 (0,0,0) Z; 2 (0,0,.089159) -Y;
    3 (-.425,0,.089159) -Y; 4 (-.81725,0,.089159) -Y; 5 (-.81725,-.10915,.089159) -Z;
    6 (-.81725,-.10915,-.005491) -Y; flange y -.19145. Link offsets along the joint-2 axis (ur_description):
    upper arm at y -.13585, forearm and wrist 1 at y -.01615."""
    z = 0.089159
    x3, x4 = -0.425, -0.81725
    y5 = -0.10915
    z6 = -0.005491
    return {
        "base": union(cyl_z(0.0, 0.02, 0.0, 0.0, 0.075), cyl_z(0.0, 0.06, 0.0, 0.0, 0.062)),
        "link1": hull(cyl_z(0.06, 0.08, 0.0, 0.0, 0.06), cyl_y(-0.075, 0.06, 0.0, z, 0.06)),
        "link2": union(cyl_y(-0.19, -0.075, 0.0, z, 0.06), cyl_x(x3, 0.0, -0.13585, z, 0.054),
                       cyl_y(-0.19, -0.08, x3, z, 0.058)),
        "link3": union(cyl_y(-0.08, 0.03, x3, z, 0.05), cyl_x(x4, x3, -0.01615, z, 0.04)),
        "link4": hull(cyl_y(-0.06, 0.03, x4, z, 0.045), cyl_z(z - 0.045, z + 0.045, x4, y5, 0.045)),
        "link5": hull(cyl_z(z6 + 0.01, z - 0.045, x4, y5, 0.045), cyl_y(-0.15, -0.07, x4, z6, 0.045)),
        "link6": cyl_y(-0.19145, -0.15, x4, z6, 0.0375),
    }


BUILDERS = {"irb140": irb140, "gofa": gofa, "ur5": ur5}


def write_meshes(name: str) -> dict[str, int]:
    """Write ``robots/<name>/meshes/<link>.stl`` in the link frames; return the face count per link."""
    chain = load_robot(name)
    frames = zero_pose_link_frames(chain)
    out_dir = ROBOTS_DIR / name / "meshes"
    out_dir.mkdir(exist_ok=True)
    counts = {}
    for link, solid in BUILDERS[name]().items():
        mesh = solid.translate(tuple(-frames[link][:3, 3])).to_mesh64()
        vertices = np.asarray(mesh.vert_properties, dtype=float)[:, :3]
        faces = np.asarray(mesh.tri_verts, dtype=np.int64)
        write_stl(out_dir / f"{link}.stl", vertices, faces,
                  header=f"thermocomp {name} {link} envelope, metres, link frame")
        counts[link] = len(faces)
    return counts


def inertia_comments(name: str) -> list[str]:
    return [
        f"APPROXIMATE link inertials of the {name} (seed 000, Step 1), GENERATED by robots/make_meshes.py: edit that",
        "script, not this file. Volumes of the envelope meshes robots/" + name + "/meshes/<link>.stl (simple solids",
        "sized from published dimensions, not CAD), one density from the published total mass of "
        f"{BUILTIN_TOTAL_MASS[name]:g} kg (base included).",
        "First-attempt values for simulation, not identified parameters. Frames: each link's frame (origin on joint k,",
        "base-oriented at the zero pose; docs/conventions.md); com in mm, inertia about the com in the link axes, kg m^2.",
    ]


def write_inertia(name: str) -> None:
    """Compute ``robots/<name>/inertia.csv`` from the meshes as written."""
    options = InertiaOptions(total_mass=BUILTIN_TOTAL_MASS[name], metres_per_unit=1.0)
    report = compute_inertials(name, ROBOTS_DIR / name / "meshes", options)
    write_inertia_csv(inertia_rows(report.inertials), ROBOTS_DIR / name / "inertia.csv", inertia_comments(name))


def main(argv: list[str]) -> int:
    names = argv or list(BUILDERS)
    for name in names:
        if name not in BUILDERS:
            print(f"unknown robot {name!r}; expected {', '.join(BUILDERS)}", file=sys.stderr)
            return 1
        counts = write_meshes(name)
        write_inertia(name)
        assert list(counts) == link_names(6)
        print(f"{name}: faces per link {counts}; wrote meshes/ and inertia.csv")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
