"""Deformation tables: per-joint translation and angular deviations (seed 002, Tables 6-11).

A table holds, for the base, every joint and the tool, the deviation of that
frame from the nominal robot: a translation ``(dx, dy, dz)`` [m] and angular
deviations ``(dox, doy, doz)`` [rad], all in the base-oriented frame of the
row at the zero pose (docs/conventions.md, "deformation table row"). Files
carry millimetres and degrees (``Dx,Dy,Dz,Dox,Doy,Doz``); this type is SI.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from thermocomp._typing import ArrayLike, FloatArray
from thermocomp.errors import InputError
from thermocomp.geometry.checks import check_array


def _frozen(a: ArrayLike) -> FloatArray:
    arr = np.array(a, dtype=float)
    arr.setflags(write=False)
    return arr


#: Largest translation of a row, as a share of its robot's size (:attr:`thermocomp.robot.chain.Chain.size`),
#: and largest angle of a row [rad]: beyond them a table does not describe a deformation of that robot
#: (the paper's exaggerated case holds 1 mm and 1 degree) but a typing slip or a failed fit, on which
#: the solvers would only fail later, without saying why.
MAX_ROW_TRANSLATION_SHARE = 1.0
MAX_ROW_ANGLE = float(np.radians(30.0))


@dataclass(frozen=True, eq=False)
class DeformationTable:
    """Deviations of the base, each joint and the tool. SI units.

    Parameters
    ----------
    joints
        Shape ``(n, 6)``: row ``i`` is joint ``i + 1``'s
        ``(dx, dy, dz)`` [m] and ``(dox, doy, doz)`` [rad].
    base
        Shape ``(6,)``: the same for the base frame; zeros when absent.
    tool
        Shape ``(6,)``: the same for the tool (TCP) frame; zeros when absent.
    source
        Where the table came from (a path, or a description), for messages.
    """

    joints: FloatArray
    base: FloatArray = field(default_factory=lambda: np.zeros(6))
    tool: FloatArray = field(default_factory=lambda: np.zeros(6))
    source: str = "<memory>"

    def __post_init__(self) -> None:
        joints = check_array(self.joints, (None, 6), f"deformation table {self.source} joint rows")
        if joints.shape[0] == 0:
            raise InputError("expected at least one joint row, got none", path=self.source)
        object.__setattr__(self, "joints", _frozen(joints))
        object.__setattr__(self, "base", _frozen(check_array(self.base, (6,), "deformation base row")))
        object.__setattr__(self, "tool", _frozen(check_array(self.tool, (6,), "deformation tool row")))

    @classmethod
    def zero(cls, n_joints: int) -> DeformationTable:
        """The all-zero table of a robot with ``n_joints`` joints: the nominal robot."""
        return cls(joints=np.zeros((n_joints, 6)), source="<zero>")

    @classmethod
    def from_mm_deg(
        cls,
        joints_mm_deg: ArrayLike,
        base_mm_deg: ArrayLike | None = None,
        tool_mm_deg: ArrayLike | None = None,
        source: str = "<memory>",
    ) -> DeformationTable:
        """Build from rows in the paper's units: ``Dx, Dy, Dz`` [mm], ``Dox, Doy, Doz`` [deg]."""
        def si(rows: ArrayLike) -> FloatArray:
            rows = np.array(rows, dtype=float)
            rows[..., :3] /= 1000.0  # the double nearest the typed millimetres
            rows[..., 3:] = np.radians(rows[..., 3:])
            return rows

        return cls(
            joints=si(joints_mm_deg),
            base=np.zeros(6) if base_mm_deg is None else si(base_mm_deg),
            tool=np.zeros(6) if tool_mm_deg is None else si(tool_mm_deg),
            source=source,
        )

    @property
    def n_joints(self) -> int:
        """Number of joint rows."""
        return int(self.joints.shape[0])

    def rows(self) -> FloatArray:
        """All rows in chain order: base, joints 1..n, tool; shape ``(n + 2, 6)``, SI."""
        return np.vstack([self.base[None], self.joints, self.tool[None]])

    def implausible(self, size: float) -> str | None:
        """What makes the table no deformation of a robot of ``size`` [m] (see :data:`MAX_ROW_ANGLE`), or ``None``."""
        rows = self.rows()
        labels = ("base", *[str(i + 1) for i in range(self.n_joints)], "tool")
        t, a = np.max(np.abs(rows[:, :3]), axis=1), np.max(np.abs(rows[:, 3:]), axis=1)
        for i, label in enumerate(labels):
            if not t[i] <= MAX_ROW_TRANSLATION_SHARE * size:
                return (f"row {label}: expected translations of at most {MAX_ROW_TRANSLATION_SHARE * size * 1e3:.6g} mm "
                        f"(the robot's size), got {t[i] * 1e3:.6g} mm")
            if not a[i] <= MAX_ROW_ANGLE:
                return (f"row {label}: expected angles of at most {np.degrees(MAX_ROW_ANGLE):g} deg, "
                        f"got {np.degrees(a[i]):.6g} deg")
        return None

    def check_plausible(self, size: float, robot_name: str = "robot") -> None:
        """Raise :class:`InputError` when the table is no deformation of the robot (:meth:`implausible`)."""
        why = self.implausible(size)
        if why is not None:
            raise InputError(f"not a deformation of {robot_name}: {why}", path=self.source)

    def check_matches(self, n_joints: int, robot_name: str = "robot") -> None:
        """Raise :class:`InputError` unless the table has one row per joint of the robot."""
        if self.n_joints != n_joints:
            raise InputError(
                f"expected {n_joints} joint rows for {robot_name} ({n_joints} joints), "
                f"got {self.n_joints}",
                path=self.source,
            )
