"""Link inertials from solids and one density (seed 000, Step 1), and their corrections (Step 2, Eq. 9).

Pure core: numpy and dataclasses in and out. Every link quantity is in the
link's frame: the table form's joint frame (origin on the joint, base-oriented
at the zero pose; the URDF link frame of :mod:`thermocomp.io.urdf`,
docs/conventions.md). Link names: ``base``, ``link1`` .. ``linkn``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from thermocomp._typing import ArrayLike, FloatArray
from thermocomp.errors import InputError
from thermocomp.geometry.checks import check_array
from thermocomp.inertia.checks import check_inertia_tensor, check_positive
from thermocomp.inertia.solids import SolidProperties, principal_moments
from thermocomp.io.inertia_csv import InertiaRows


def _frozen(a: ArrayLike) -> FloatArray:
    out = np.array(a, dtype=float)
    out.setflags(write=False)
    return out


def link_names(n_joints: int) -> list[str]:
    """``["base", "link1", ..., "linkn"]``: the links that carry mass (the ``tcp`` link does not)."""
    return ["base"] + [f"link{i}" for i in range(1, n_joints + 1)]


@dataclass(frozen=True, eq=False)
class LinkInertial:
    """Mass, centre of mass and inertia of one link, in its link frame. SI units.

    Attributes
    ----------
    link
        ``base``, ``link1`` .. ``linkn``.
    mass
        [kg], > 0.
    com
        Centre of mass [m], shape ``(3,)``, in the link frame.
    inertia
        Inertia tensor about ``com`` in the link axes [kg m^2], ``(3, 3)``:
        symmetric, positive definite, triangle inequality
        (:func:`thermocomp.inertia.checks.check_inertia_tensor`).
    volume
        Volume of the link's solid(s) [m^3] (0 when not known, e.g. read
        from a file that does not give it).
    method
        How the volume was obtained: ``closed``, ``signed``, ``convex_hull``
        (:mod:`thermocomp.inertia.solids`), or where the values came from.
    correction
        The factor ``lambda_k`` applied (seed 000, Eq. 9); 1 for CAD values.
    volume_spread
        Uncertainty of a ``signed`` volume [m^3]
        (:attr:`thermocomp.inertia.solids.SolidProperties.volume_spread`).
    source
        The mesh file(s) or data file.
    """

    link: str
    mass: float
    com: FloatArray
    inertia: FloatArray
    volume: float = 0.0
    method: str = ""
    correction: float = 1.0
    volume_spread: float = 0.0
    source: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "mass", check_positive(self.mass, f"{self.link} mass", "kg"))
        object.__setattr__(self, "com", _frozen(check_array(self.com, (3,), f"{self.link} centre of mass")))
        object.__setattr__(self, "inertia", _frozen(check_inertia_tensor(self.inertia, f"{self.link} inertia")))
        object.__setattr__(self, "correction", check_positive(self.correction, f"{self.link} correction", "1"))
        if not (np.isfinite(self.volume) and self.volume >= 0):
            raise InputError(f"{self.link} volume: expected >= 0 m^3, got {self.volume!r}")

    @property
    def principal_moments(self) -> FloatArray:
        """Principal moments of :attr:`inertia`, ascending [kg m^2], ``(3,)``."""
        return principal_moments(self.inertia)[0]


@dataclass(frozen=True, eq=False)
class RobotInertials:
    """The inertials of a robot's links, from one density.

    Attributes
    ----------
    robot
        Robot name.
    links
        One :class:`LinkInertial` per link, in chain order (``base``,
        ``link1`` ..).
    density
        The uniform density [kg/m^3] used (total mass / total volume), 0 when
        not known.
    total_mass
        The total mass [kg] the density was derived from (before any
        correction).
    """

    robot: str
    links: tuple[LinkInertial, ...]
    density: float = 0.0
    total_mass: float = 0.0

    def __post_init__(self) -> None:
        names = [link.link for link in self.links]
        if len(set(names)) != len(names):
            raise InputError(f"{self.robot}: expected one inertial per link, got {names}")
        object.__setattr__(self, "links", tuple(self.links))

    def __getitem__(self, link: str) -> LinkInertial:
        for item in self.links:
            if item.link == link:
                return item
        raise KeyError(link)

    @property
    def names(self) -> list[str]:
        """Link names in chain order."""
        return [link.link for link in self.links]

    @property
    def mass(self) -> float:
        """Sum of the link masses [kg] (after corrections)."""
        return float(sum(link.mass for link in self.links))


def inertials_from_solids(
    solids: Mapping[str, SolidProperties],
    total_mass: float,
    robot: str = "",
) -> RobotInertials:
    """Seed 000, Step 1: one average density from the total mass, then each link's inertial.

    ``density = total_mass / sum(V_k)``, ``m_k = density V_k``, ``I_k =
    density * (inertia per density)_k``; the centre of mass is the volume
    centroid.

    Parameters
    ----------
    solids
        Per link name, its solid **already expressed in the link frame**
        (:meth:`SolidProperties.transformed`), in chain order.
    total_mass
        The robot's total mass [kg] (every link in ``solids``, base
        included), > 0. There is no default density.
    robot
        Name for messages and tables.
    """
    mass = check_positive(total_mass, "total mass", "kg")
    if not solids:
        raise InputError("expected at least one link solid, got none")
    density = mass / sum(s.volume for s in solids.values())
    links = tuple(
        LinkInertial(
            link=name, mass=density * s.volume, com=s.com, inertia=density * s.inertia_per_density,
            volume=s.volume, method=s.method + (" (flipped)" if s.flipped else ""),
            volume_spread=s.volume_spread, source=s.source,
        )
        for name, s in solids.items()
    )
    return RobotInertials(robot=robot, links=links, density=density, total_mass=mass)


def apply_corrections(inertials: RobotInertials, corrections: Mapping[str, float]) -> RobotInertials:
    """Seed 000, Step 2, Eq. 9: ``m_k = lambda_k m_k^CAD`` and ``I_k = lambda_k I_k^CAD``.

    The centre of mass is unchanged. Links not named keep ``lambda = 1``.

    Parameters
    ----------
    corrections
        ``lambda_k`` (> 0) per link name.

    Raises
    ------
    InputError
        An unknown link name or a factor that is not > 0.
    """
    unknown = sorted(set(corrections) - set(inertials.names))
    if unknown:
        raise InputError(f"corrections: expected links among {', '.join(inertials.names)}, got {', '.join(unknown)}")
    links = []
    for link in inertials.links:
        lam = check_positive(corrections.get(link.link, 1.0), f"correction of {link.link}", "1")
        links.append(replace(link, mass=lam * link.mass, inertia=lam * link.inertia, correction=lam * link.correction))
    return replace(inertials, links=tuple(links))


def check_link_order(inertials: RobotInertials, expected: Sequence[str]) -> None:
    """The inertials name exactly ``expected`` links, in that order."""
    if inertials.names != list(expected):
        raise InputError(f"{inertials.robot}: expected inertials of {', '.join(expected)}, got {', '.join(inertials.names)}")


def robot_inertials_from_rows(rows: InertiaRows, robot: str = "") -> RobotInertials:
    """The inertials of the rows of a link inertials file (:func:`thermocomp.io.inertia_csv.read_inertia_csv`), each
    link checked (positive mass, physically valid tensor: :class:`LinkInertial`), the total mass their sum.

    Raises
    ------
    InputError
        A link the checks refuse, naming the file and the row's line; what the set of links refuses, naming the
        file.
    """
    links = []
    for k, name in enumerate(rows.links):
        try:
            links.append(LinkInertial(link=name, mass=float(rows.mass[k]), com=rows.com[k], inertia=rows.inertia[k],
                                      volume=float(rows.volume[k]), method=rows.method[k], source=rows.source))
        except InputError as exc:
            raise InputError(exc.message, path=rows.source, row=int(rows.lines[k])) from exc
    try:
        return RobotInertials(robot=robot, links=tuple(links), total_mass=sum(x.mass for x in links))
    except InputError as exc:  # what the set of links itself refuses, located in this file
        raise InputError(exc.message, path=rows.source) from None


def inertia_rows(inertials: RobotInertials) -> InertiaRows:
    """``inertials`` as the rows of a link inertials file (:func:`thermocomp.io.inertia_csv.write_inertia_csv`)."""
    links = inertials.links
    return InertiaRows(links=tuple(x.link for x in links), mass=np.array([x.mass for x in links]),
                       com=np.array([x.com for x in links]).reshape(-1, 3),
                       inertia=np.array([x.inertia for x in links]).reshape(-1, 3, 3),
                       volume=np.array([x.volume for x in links]), method=tuple(x.method for x in links),
                       lines=np.zeros(len(links), dtype=int))


__all__ = [
    "LinkInertial",
    "RobotInertials",
    "apply_corrections",
    "check_link_order",
    "inertials_from_solids",
    "inertia_rows",
    "link_names",
    "robot_inertials_from_rows",
]
