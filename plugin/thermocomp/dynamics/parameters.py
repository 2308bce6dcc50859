"""The 10 standard inertial parameters of a link, and conversions to and from link inertials.

Seed 001 (De Luca, "Linear parametrization and identification of robot
dynamics", slides 3-5): per link ``k`` the inverse dynamic model is linear in

    pi_k = [m, m c_x, m c_y, m c_z, I_xx, I_xy, I_xz, I_yy, I_yz, I_zz]

with the centre of mass ``c`` and the inertia tensor ``I`` **about the link
frame's origin** (the joint), both in the link frame (the table form's joint
frame: origin on joint ``k``, base-oriented at the zero pose;
docs/conventions.md). ``I_xy`` is the tensor element (``-integral x y dm``,
as in URDF). Steiner: ``I_O = I_C + m (|c|^2 E - c c^T)``.

Pure core: numpy in, numpy out. A parameter vector of a robot is the
concatenation of its links' ``pi_k`` (link 1 first), shape ``(10 n,)``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from thermocomp._typing import ArrayLike, FloatArray
from thermocomp.errors import InputError
from thermocomp.inertia.links import LinkInertial, RobotInertials

#: Names of the 10 standard parameters of one link, in vector order.
PARAMETER_NAMES = ("m", "mcx", "mcy", "mcz", "Ixx", "Ixy", "Ixz", "Iyy", "Iyz", "Izz")
N_LINK_PARAMETERS = len(PARAMETER_NAMES)


def inertia_about_origin(mass: float, com: ArrayLike, inertia_com: ArrayLike) -> FloatArray:
    """Steiner: the inertia about the frame origin from the one about the centre of mass [kg m^2], ``(3, 3)``."""
    c = np.asarray(com, dtype=float)
    return np.asarray(inertia_com, dtype=float) + mass * (float(c @ c) * np.eye(3) - np.outer(c, c))


def tensor_from_six(six: ArrayLike) -> FloatArray:
    """``(..., 3, 3)`` symmetric tensor from ``[xx, xy, xz, yy, yz, zz]`` ``(..., 6)``."""
    s = np.asarray(six, dtype=float)
    xx, xy, xz, yy, yz, zz = (s[..., i] for i in range(6))
    return np.stack([np.stack([xx, xy, xz], -1), np.stack([xy, yy, yz], -1), np.stack([xz, yz, zz], -1)], -2)


def six_from_tensor(I: ArrayLike) -> FloatArray:
    """``[xx, xy, xz, yy, yz, zz]`` ``(..., 6)`` of a tensor ``(..., 3, 3)``."""
    I = np.asarray(I, dtype=float)
    return np.stack([I[..., 0, 0], I[..., 0, 1], I[..., 0, 2], I[..., 1, 1], I[..., 1, 2], I[..., 2, 2]], -1)


def link_parameters(mass: float, com: ArrayLike, inertia_com: ArrayLike) -> FloatArray:
    """``pi_k`` ``(10,)`` of one link from mass [kg], centre of mass [m] and inertia about it [kg m^2] (link frame)."""
    c = np.asarray(com, dtype=float)
    I_O = inertia_about_origin(mass, c, inertia_com)
    return np.concatenate([[mass], mass * c, six_from_tensor(I_O)])


def lump(*params: ArrayLike) -> FloatArray:
    """Parameters of rigidly joined bodies expressed in the same frame add up (seed 001, slide 20)."""
    return np.sum([np.asarray(p, dtype=float) for p in params], axis=0)


def robot_parameters(
    inertials: RobotInertials,
    n_joints: int,
    *,
    tcp_mass: float = 0.0,
    tcp_com: ArrayLike = (0.0, 0.0, 0.0),
    tcp_inertia: ArrayLike | None = None,
    T_last_tcp: ArrayLike | None = None,
) -> FloatArray:
    """Standard parameters ``(10 n,)`` of links ``link1`` .. ``linkn`` (the base does not move).

    Parameters
    ----------
    inertials
        Link inertials in the link frames; a missing ``link<k>`` counts as massless.
    n_joints
        ``n``.
    tcp_mass, tcp_com, tcp_inertia, T_last_tcp
        A load [kg] at ``tcp_com`` [m] with inertia ``tcp_inertia`` about it
        [kg m^2] (default 0), both in the tcp frame, whose pose in the last
        link frame is ``T_last_tcp`` ``(4, 4)``: lumped into link ``n`` (e.g.
        the 1 g placeholder a written URDF's ``tcp`` link carries).
    """
    out = np.zeros((n_joints, N_LINK_PARAMETERS))
    for k in range(n_joints):
        name = f"link{k + 1}"
        if name in inertials.names:
            link = inertials[name]
            out[k] = link_parameters(link.mass, link.com, link.inertia)
    if tcp_mass:
        T = np.eye(4) if T_last_tcp is None else np.asarray(T_last_tcp, dtype=float)
        R = T[:3, :3]
        c = R @ np.asarray(tcp_com, dtype=float) + T[:3, 3]
        I = np.zeros((3, 3)) if tcp_inertia is None else R @ np.asarray(tcp_inertia, dtype=float) @ R.T
        out[-1] += link_parameters(tcp_mass, c, I)
    return out.reshape(-1)


def inertial_from_parameters(pi: ArrayLike, link: str, **extra: object) -> LinkInertial:
    """The :class:`LinkInertial` (mass, centre of mass, inertia about it) of ``pi_k`` ``(10,)``.

    Raises
    ------
    InputError
        When ``pi_k`` is not physically consistent (mass <= 0, or an inertia
        about the centre of mass that is not positive definite or breaks the
        triangle inequality): :func:`is_consistent` says which.
    """
    pi = np.asarray(pi, dtype=float)
    m = float(pi[0])
    if not m > 0:
        raise InputError(f"{link}: expected a positive mass, got {m:.6g} kg")
    c = pi[1:4] / m
    I_C = tensor_from_six(pi[4:]) - m * (float(c @ c) * np.eye(3) - np.outer(c, c))
    return LinkInertial(link=link, mass=m, com=c, inertia=I_C, **extra)  # type: ignore[arg-type]


def pseudo_inertia(pi: ArrayLike) -> FloatArray:
    """The 4 x 4 pseudo-inertia ``J = [[S, h], [h^T, m]]``, ``S = tr(I)/2 E - I``, ``h = m c``, of ``pi`` ``(..., 10)``.

    ``J`` is positive definite exactly when the link is physically consistent
    (positive mass, positive definite inertia satisfying the triangle
    inequality): Wensing, Kim, Slotine, "Linear matrix inequalities for
    physically consistent inertial parameter identification", IEEE RA-L 2018.
    """
    pi = np.asarray(pi, dtype=float)
    I = tensor_from_six(pi[..., 4:])
    S = 0.5 * np.trace(I, axis1=-2, axis2=-1)[..., None, None] * np.eye(3) - I
    J = np.zeros(pi.shape[:-1] + (4, 4))
    J[..., :3, :3] = S
    J[..., :3, 3] = pi[..., 1:4]
    J[..., 3, :3] = pi[..., 1:4]
    J[..., 3, 3] = pi[..., 0]
    return J


def parameters_from_pseudo_inertia(J: ArrayLike) -> FloatArray:
    """Inverse of :func:`pseudo_inertia`: ``pi`` ``(..., 10)`` from ``J`` ``(..., 4, 4)``."""
    J = np.asarray(J, dtype=float)
    S = J[..., :3, :3]
    I = np.trace(S, axis1=-2, axis2=-1)[..., None, None] * np.eye(3) - S
    return np.concatenate([J[..., 3, 3:4], J[..., :3, 3], six_from_tensor(I)], axis=-1)


def is_consistent(pi: ArrayLike, rtol: float = 0.0) -> bool:
    """True when ``pi`` ``(10,)`` is physically consistent: its pseudo-inertia is positive definite."""
    J = pseudo_inertia(pi)
    eig = np.linalg.eigvalsh(J)
    return bool(eig[0] > rtol * max(abs(eig[-1]), 1e-300))


def parameter_labels(n_joints: int, links: Sequence[str] | None = None) -> list[str]:
    """``link1.m``, ``link1.mcx`` .. for ``10 n`` parameters."""
    names = links or [f"link{k + 1}" for k in range(n_joints)]
    return [f"{link}.{p}" for link in names for p in PARAMETER_NAMES]


def check_parameters(pi: ArrayLike, n_joints: int, name: str = "parameters") -> FloatArray:
    """``pi`` as a float array ``(10 n,)``."""
    pi = np.asarray(pi, dtype=float)
    if pi.shape != (N_LINK_PARAMETERS * n_joints,) or not np.all(np.isfinite(pi)):
        raise InputError(f"{name}: expected {N_LINK_PARAMETERS * n_joints} finite values, got shape {pi.shape}")
    return pi


__all__ = [
    "N_LINK_PARAMETERS",
    "PARAMETER_NAMES",
    "check_parameters",
    "inertia_about_origin",
    "inertial_from_parameters",
    "is_consistent",
    "link_parameters",
    "lump",
    "parameter_labels",
    "parameters_from_pseudo_inertia",
    "pseudo_inertia",
    "robot_parameters",
    "six_from_tensor",
    "tensor_from_six",
]
