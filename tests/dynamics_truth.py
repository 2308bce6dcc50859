"""Truth models for the dynamics tests: built-in robots with their CAD inertials (seed 000, Step 1) and
known perturbations (Step 2's lambda), written as URDFs PyBullet loads."""

from __future__ import annotations

from pathlib import Path

from thermocomp.inertia.builtin import builtin_inertials
from thermocomp.inertia.links import RobotInertials, apply_corrections
from thermocomp.io.urdf import LinkContent, urdf_text
from thermocomp.robot.builtin import load_robot

#: Per-link mass and inertia factors of the truth (seed 000, Table II's lambda are 0.96 .. 1.03; a few are larger
#: here so that a wrong estimate cannot pass by staying at the CAD value).
LAMBDA = {"link1": 1.03, "link2": 0.96, "link3": 1.08, "link4": 1.03, "link5": 0.93, "link6": 1.1}


def write_robot_urdf(name: str, inertials: RobotInertials, path: Path) -> Path:
    """A URDF of built-in robot ``name`` carrying ``inertials`` (no meshes)."""
    links = {link.link: LinkContent(mass=link.mass, com=link.com, inertia=link.inertia) for link in inertials.links}
    path.write_text(urdf_text(load_robot(name), links=links))
    return path


def cad_and_truth(name: str, folder: Path) -> tuple[Path, Path]:
    """``(cad.urdf, truth.urdf)``: the CAD inertials and the same scaled by :data:`LAMBDA`."""
    cad = builtin_inertials(name)
    return (write_robot_urdf(name, cad, folder / f"{name}_cad.urdf"),
            write_robot_urdf(name, apply_corrections(cad, LAMBDA), folder / f"{name}_truth.urdf"))
