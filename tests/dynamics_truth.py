"""Truth models for the dynamics tests: built-in robots with their CAD inertials (seed 000, Step 1) and
known perturbations (Step 2's lambda), written as URDFs PyBullet loads."""

from __future__ import annotations

from pathlib import Path

from thermocomp.inertia.builtin import builtin_inertials
from thermocomp.inertia.links import RobotInertials, apply_corrections
from thermocomp.io.robots import load_robot
from thermocomp.io.urdf import LinkContent, urdf_text

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


def fourier_excitation(chain, rng, *, base_hz: float = 0.1, harmonics: int = 12, duration: float = 60.0,
                       rate: float = 25.0, share: float = 0.8):
    """``(t, q, qd, qdd)``: a finite Fourier series per joint (Swevers et al., IEEE TRA 1997, the usual design),
    ``qd_i(t) = sum_l a_il sin(2 pi l f0 t) + b_il cos(2 pi l f0 t)`` with random coefficients from ``rng``,
    scaled so that each joint sweeps ``share`` of its range (at most one turn) about its middle and peaks at
    ``share`` of its speed limit. Exact derivatives."""
    import math

    import numpy as np

    t = np.arange(int(round(duration * rate)) + 1) / rate
    n = chain.n_joints
    w = 2 * math.pi * base_hz * np.arange(1, harmonics + 1)  # (L,)
    a, b = rng.normal(size=(2, n, harmonics))
    s, c = np.sin(np.outer(t, w)), np.cos(np.outer(t, w))  # (N, L)
    q = (s @ (b / w).T) - (c @ (a / w).T)
    qd = s @ a.T + c @ b.T
    qdd = (c @ (a * w).T) - (s @ (b * w).T)
    span = np.minimum(chain.upper - chain.lower, 2 * math.pi)
    centre = 0.5 * (chain.upper + chain.lower)
    centre = np.where(np.isfinite(centre), centre, 0.0)
    q = q - q.mean(axis=0)
    k = np.minimum(0.5 * share * span / np.max(np.abs(q), axis=0),
                   share * np.minimum(chain.velocity, math.pi) / np.max(np.abs(qd), axis=0))
    return t, centre + k * q, k * qd, k * qdd
