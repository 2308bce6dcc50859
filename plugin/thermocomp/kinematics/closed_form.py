"""Closed-form inverse kinematics of the nominal robot: every branch at once, vectorised.

Two structures of 6R arm have a closed form here, recognised from the
:class:`~thermocomp.kinematics.model.KinematicModel` itself (its axes and
translations, never from constants typed again), so a table-form CSV or a
URDF of the same structure gets it too:

``"opw"`` (ortho-parallel with a spherical wrist, e.g. the ABB IRB140)
    Axes ``z, y, y, x, y, x`` (either sign) at the zero pose, no angular
    deviations, and axes 4, 5, 6 meeting in one point (the wrist centre).
    The wrist centre fixes joints 1-3 (shoulder: 2 solutions, elbow: 2), and
    the wrist's ``x-y-x`` Euler angles fix joints 4-6 (2 solutions).
``"ur"`` (three parallel axes and an offset wrist, e.g. the UR5)
    Axes ``z, y, y, y, z, y`` (either sign), no angular deviations, joint 6
    sitting on joint 5's axis. The point where axes 5 and 6 meet fixes
    joint 1 (2 solutions); the direction of axis 6 fixes joint 5
    (2 solutions) and then 6 and the sum 2+3+4; the planar elbow fixes
    joints 2 and 3 (2 solutions).

Both give at most 8 branches. The ABB GoFa (CRB 15000) fits neither: its
joint 6 sits 80 mm off joint 4's axis (seed 000, Table I, link 6 ``z``), so
its wrist is not spherical, and joints 4 and 5 are not parallel as the UR
structure needs; it keeps the multi-start search of
:mod:`thermocomp.kinematics.seeding`.

Derivation (written for this project). With all joint frames keeping the
base orientation at the zero pose (seed 002, Table 7), a joint about
``s * e_k`` turns by ``Rot(e_k, s * theta)``; ``phi = s * theta`` is the
canonical angle used below. Rotations about ``y`` keep the ``y`` coordinate,
so in the frame turned by ``-phi_1`` the ``y`` coordinate of the wrist
point is the constant sum ``L_y`` of the ``y`` translations:
``r sin(atan2(Y, X) - phi_1) = L_y``. In the ``x-z`` plane that frame leaves
a two-link arm ``t = Ry(phi_2) (a + Ry(phi_3) b)``: ``|t|^2`` fixes
``a . Ry(phi_3) b = A cos(phi_3) + B sin(phi_3)``, and the angle of ``t``
against ``a + Ry(phi_3) b`` gives ``phi_2`` (``Ry`` turns the ``(x, z)``
plane by ``-phi``).

Computation: :class:`ClosedForm` runs these equations pose by pose in the
compiled engine (:func:`thermocomp.kinematics.engine.branches_block` and the
path's :func:`~thermocomp.kinematics.engine.follow_piece`); the numpy
functions :func:`_opw` and :func:`_ur` below are the reference the tests
compare it against.

Accuracy: round-off of a few 1e-15 m away from singularities; near one
(wrist or elbow stretched) the branches merge and the closed form loses
digits, which the Newton polish of
:func:`thermocomp.kinematics.seeding.solve_nominal_configuration` recovers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from thermocomp._typing import ArrayLike, FloatArray
from thermocomp.kinematics.model import KinematicModel
from thermocomp.tolerances import CLOSED_FORM_STRUCTURE_TOL

#: Number of branches a 6R closed form returns (shoulder x elbow x wrist).
N_BRANCHES = 8
#: A path of this many poses or more is followed in :data:`FOLLOW_PIECES` pieces at once (two cores: one piece
#: each; a piece's start is guessed, and followed again where the guess was wrong: the same choice).
FOLLOW_PIECES_FROM = 4_096
FOLLOW_PIECES = 2

_E = np.eye(3)
_AXES = {"opw": (2, 1, 1, 0, 1, 0), "ur": (2, 1, 1, 1, 2, 1)}


@dataclass(frozen=True, eq=False)
class ClosedForm:
    """A model recognised as having a closed-form IK (see the module docstring).

    Attributes
    ----------
    kind
        ``"opw"`` or ``"ur"``.
    model
        The model it was recognised on (batch shape ``()``).
    axis_sign
        ``s`` of each joint axis ``s * e_k``, ``(6,)``.
    """

    kind: str
    model: KinematicModel
    axis_sign: FloatArray

    def branches(self, R_world_tcp: ArrayLike, p_world_tcp: ArrayLike, q_near: ArrayLike | None = None
                 ) -> tuple[FloatArray, np.ndarray]:
        """All IK branches of ``m`` targets, in controller angles.

        Parameters
        ----------
        R_world_tcp, p_world_tcp
            Targets in the world frame, ``(m, 3, 3)`` and ``(m, 3)`` [m].
        q_near
            ``(m, n)`` or ``(n,)`` [rad]: each angle is shifted by whole turns
            into its limits, nearest this (default: the robot's home).

        Returns
        -------
        q : ndarray, shape ``(m, 8, 6)`` [rad]
            NaN rows where a branch does not exist (target out of reach).
        valid : ndarray of bool, shape ``(m, 8)``
            The branch exists and fits the joint limits.
        """
        from thermocomp.kinematics import engine

        chain = self.model.chain
        R_world_tcp = np.asarray(R_world_tcp, dtype=float)
        p_world_tcp = np.asarray(p_world_tcp, dtype=float)
        phi = _compiled(self.kind, self.model, R_world_tcp, p_world_tcp)
        near = chain.home if q_near is None else np.asarray(q_near, dtype=float)
        near = engine.c_array(np.broadcast_to(near, (phi.shape[0], 6)) if near.ndim == 2 else near[None])
        q = np.empty_like(phi)
        valid = np.empty(phi.shape[:2], dtype=bool)
        engine.run_blocks(engine.controller_block, len(phi), phi, *(engine.c_array(a) for a in (
            self.axis_sign, chain.sign, chain.offset, chain.lower, chain.upper)), near, q, valid)
        return q, valid

    def follow(self, R_world_tcp: ArrayLike, p_world_tcp: ArrayLike, q_start: ArrayLike, jump: float,
               outside_limits: float) -> tuple[FloatArray, FloatArray]:
        """The branch a path of ``m`` targets takes at each pose, starting from ``q_start``.

        Pose 0 takes the branch nearest ``q_start``; then a branch is kept
        while it moves less than ``jump`` to the next pose (ranked with its
        penalty), else the next pose's nearest branch is taken; after a pose
        without the branch (out of reach), the branch nearest the last pose
        that had its branch (or ``q_start``), so the path goes on in its
        configuration; ties go to the lower index. That is the choice on
        :meth:`branches` (angles nearest ``q_start``), computed without
        building every branch of every pose
        (:func:`~thermocomp.kinematics.engine.follow_piece`: a pose that
        keeps its branch computes only that one, by the same arithmetic).

        A path of :data:`FOLLOW_PIECES_FROM` poses or more is followed in
        :data:`FOLLOW_PIECES` pieces at once, each but the first from the
        guess that the pose before it took the first pose's branch (a smooth
        path keeps one branch); a piece whose guess the piece before it did
        not end on is followed again, with the rest of the path, from where
        that piece really ended. The choice is the same.

        Parameters
        ----------
        R_world_tcp, p_world_tcp
            The path, ``(m, 3, 3)`` and ``(m, 3)`` [m], world frame.
        q_start
            Controller angles before the first pose [rad], ``(6,)``.
        jump
            A branch is kept while it moves less than this to the next pose [rad].
        outside_limits
            The rank added to a branch outside the joint limits.

        Returns
        -------
        q : ndarray, shape ``(m, 6)`` [rad]
            The chosen branch's controller angles, zeros where no branch exists.
        penalty : ndarray, shape ``(m,)``
            0 inside the limits, ``outside_limits`` outside, inf where no branch exists.
        """
        from thermocomp.kinematics import engine

        chain = self.model.chain
        R6, o6 = _flange_compiled(self.model, np.asarray(R_world_tcp, dtype=float).reshape(-1, 3, 3),
                                  np.asarray(p_world_tcp, dtype=float).reshape(-1, 3))
        m = o6.shape[0]
        q = np.empty((m, 6))
        penalty = np.empty(m)
        if m == 0:
            return q, penalty
        path = engine.Path(self.kind == "opw", *(engine.c_array(a) for a in (
            R6, o6, self.model.p_joint, self.axis_sign, chain.sign, chain.offset, chain.lower, chain.upper,
            q_start)), float(jump), float(outside_limits))
        b = engine.follow_start(path, q, penalty)
        pieces = max(1, min(FOLLOW_PIECES if m >= FOLLOW_PIECES_FROM else 1, m - 1))
        starts = [1 + s * (m - 1) // pieces for s in range(pieces + 1)]
        ends = [0] * pieces  # the branch each piece ended on

        first = q[0] if np.isfinite(penalty[0]) else path.q_start

        def piece(s: int) -> None:
            ends[s] = engine.follow_piece(path, starts[s], starts[s + 1], b, s > 0, q[0], penalty[0], first, q,
                                          penalty)

        engine.run_pieces(piece, pieces)
        for s in range(1, pieces):
            before = starts[s] - 1
            if ends[s - 1] != b or not np.isfinite(penalty[before]):
                # the guess was wrong (or the piece before ended out of reach, where the choice goes on from the
                # last pose in reach): the rest again, from where the piece before really ended
                reached = np.flatnonzero(np.isfinite(penalty[:before + 1]))
                last = q[reached[-1]].copy() if reached.size else path.q_start
                engine.follow_piece(path, starts[s], m, ends[s - 1], False, q[before].copy(), penalty[before], last,
                                    q, penalty)
                break
        return q, penalty


def closed_form_mismatch(model: KinematicModel) -> str | None:
    """Why ``model`` has no closed form here, or None when it has one (kind in :func:`closed_form`)."""
    return _recognise(model)[1]


def closed_form(model: KinematicModel) -> ClosedForm | None:
    """The closed form of ``model`` when its structure has one (module docstring), else None.

    The answer is cached on the model (models are immutable).
    """
    cached = model.__dict__.get("_closed_form", False)
    if cached is False:
        cached = _recognise(model)[0]
        object.__setattr__(model, "_closed_form", cached)
    return cached


def _recognise(model: KinematicModel) -> tuple[ClosedForm | None, str | None]:
    chain = model.chain
    if model.batch_shape != ():
        return None, "a batch of models (one closed form per model is not built)"
    if chain.n_joints != 6:
        return None, f"{chain.n_joints} joints (a closed form needs 6)"
    if not model.nominal_rotations:
        return None, "angular deviations between joints (the axes are no longer parallel or orthogonal)"
    k = np.argmax(np.abs(chain.axis), axis=1)
    sign = chain.axis[np.arange(6), k]
    if not np.all(np.abs(sign) == 1.0):
        return None, "an axis that is not along x, y or z of the base at the zero pose"
    p = model.p_joint
    tol = CLOSED_FORM_STRUCTURE_TOL
    kind = next((name for name, axes in _AXES.items() if tuple(k.tolist()) == axes), None)
    if kind is None:
        return None, f"axes along {''.join('xyz'[i] for i in k)} (closed forms: zyyxyx, zyyyzy)"
    if kind == "opw":
        # axes 4 (x) and 5 (y) meet: no z step from joint 4 to 5; axis 6 (x) passes through
        # that point: joint 6 sits on axis 4's line shifted back by joint 5's y step.
        off = max(abs(p[4, 2]), abs(p[5, 2]), abs(p[5, 1] + p[4, 1]))
        if off > tol:
            return None, (f"axes 4, 5, 6 do not meet in one point (wrist offset {off * 1e3:.6g} mm): "
                          "not a spherical wrist")
    else:
        off = max(abs(p[5, 0]), abs(p[5, 1]))
        if off > tol:
            return None, f"joint 6 is {off * 1e3:.6g} mm off joint 5's axis"
    return ClosedForm(kind, model, sign.astype(float)), None


def _compiled(kind: str, model: KinematicModel, R_world_tcp: FloatArray, p_world_tcp: FloatArray) -> FloatArray:
    """Canonical angles ``(m, 8, 6)`` from the compiled twin of :func:`_opw` or :func:`_ur` (same equations, same order)."""
    from thermocomp.kinematics import engine

    R6, o6 = _flange_compiled(model, R_world_tcp.reshape(-1, 3, 3), p_world_tcp.reshape(-1, 3))
    out = np.empty((o6.shape[0], N_BRANCHES, 6))
    engine.run_blocks(engine.branches_block, len(o6), kind == "opw", engine.c_array(R6), engine.c_array(o6),
                      engine.c_array(model.p_joint), out)
    return out


def _acos_pm(x: FloatArray) -> FloatArray:
    """``(+acos(x), -acos(x))`` stacked last; NaN where ``|x| > 1`` beyond round-off."""
    slop = 1e-12
    x = np.where(np.abs(x) <= 1.0 + slop, np.clip(x, -1.0, 1.0), np.nan)
    a = np.arccos(x)
    return np.stack([a, -a], axis=-1)


def _flange_compiled(model: KinematicModel, R_world_tcp: FloatArray, p_world_tcp: FloatArray
                     ) -> tuple[FloatArray, FloatArray]:
    """:func:`_flange` in the compiled engine (:func:`thermocomp.kinematics.engine.flange_block`, the same sums
    row by row, on the engine's threads): what the closed forms of many poses start from (numpy's stacked 3x3
    products were a fifth of a path's branch choice, on one thread)."""
    from thermocomp.kinematics import engine

    m = R_world_tcp.shape[0]
    R6, o6 = np.empty((m, 3, 3)), np.empty((m, 3))
    engine.run_blocks(engine.flange_block, m, *(engine.c_array(a) for a in (
        model.R_base, model.p_base, model.R_tool, model.p_tool, R_world_tcp, p_world_tcp)), R6, o6)
    return R6, o6


def _flange(model: KinematicModel, R_world_tcp: FloatArray, p_world_tcp: FloatArray):
    """Last joint's frame ``R6`` ``(m, 3, 3)`` and origin ``o6`` ``(m, 3)``, in the base frame (the numpy
    reference of :func:`_opw` and :func:`_ur`; the compiled closed forms use :func:`_flange_compiled`, whose sums
    these are, term by term in the same order: ``R6 = R_base.T @ R @ R_tool.T``, ``o6 = (p - p_base) @ R_base -
    R6 @ p_tool``)."""
    Rb, Rt, pt = model.R_base, model.R_tool, model.p_tool
    R, d = R_world_tcp, p_world_tcp - model.p_base
    R_base_tcp = Rb[0][:, None] * R[:, 0, None, :] + Rb[1][:, None] * R[:, 1, None, :] + Rb[2][:, None] * R[:, 2, None, :]
    R6 = R_base_tcp[:, :, 0, None] * Rt[:, 0] + R_base_tcp[:, :, 1, None] * Rt[:, 1] + R_base_tcp[:, :, 2, None] * Rt[:, 2]
    o6 = (d[:, 0, None] * Rb[0] + d[:, 1, None] * Rb[1] + d[:, 2, None] * Rb[2]) - (
        R6[:, :, 0] * pt[0] + R6[:, :, 1] * pt[1] + R6[:, :, 2] * pt[2])
    return R6, o6


def _shoulder(d: FloatArray, L_y: float) -> FloatArray:
    """``phi_1`` ``(m, 2)``: ``Rz(-phi_1) d`` has ``y == L_y`` (front and back)."""
    r = np.hypot(d[:, 0], d[:, 1])
    ratio = np.where(r > 0, L_y / np.where(r > 0, r, 1.0), np.nan)
    ratio = np.where(np.abs(ratio) <= 1.0, ratio, np.nan)
    alpha = np.arcsin(ratio)
    phi = np.arctan2(d[:, 1], d[:, 0])
    return np.stack([phi - alpha, phi - (np.pi - alpha)], axis=-1)


def _planar(t: FloatArray, a: FloatArray, b: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Two-link arm in the ``(x, z)`` plane: ``t = Ry(phi_2) (a + Ry(phi_3) b)``.

    ``t`` ``(..., 2)``; ``a``, ``b`` ``(2,)`` as ``(x, z)``. Returns ``phi_2``,
    ``phi_3``, each ``(..., 2)`` (elbow branches last).
    """
    A = a[0] * b[0] + a[1] * b[1]
    B = a[0] * b[1] - a[1] * b[0]
    K = 0.5 * (np.sum(t * t, axis=-1) - a @ a - b @ b)
    phi3 = np.arctan2(B, A) + _acos_pm(K / np.hypot(A, B))
    c3, s3 = np.cos(phi3), np.sin(phi3)
    vx = a[0] + b[0] * c3 + b[1] * s3
    vz = a[1] - b[0] * s3 + b[1] * c3
    phi2 = np.arctan2(vz, vx) - np.arctan2(t[..., 1], t[..., 0])[..., None]
    return phi2, phi3


def _opw(model: KinematicModel, R_world_tcp: FloatArray, p_world_tcp: FloatArray) -> FloatArray:
    """Canonical angles ``(m, 8, 6)`` of the ortho-parallel arm with a spherical wrist."""
    p = model.p_joint
    R6, o6 = _flange(model, R_world_tcp, p_world_tcp)
    m = o6.shape[0]
    w = o6 - p[5, 0] * R6[:, :, 0]  # wrist centre: joint 6's origin back along axis 6 (= x of R6)
    e = p[3] + np.array([p[4, 0], 0.0, 0.0])  # joint 3's origin to the wrist centre, at phi_3 = 0
    L_y = p[1, 1] + p[2, 1] + e[1]
    d = w - p[0]
    phi1 = _shoulder(d, L_y)  # (m, 2)
    c1, s1 = np.cos(phi1), np.sin(phi1)
    ux = c1 * d[:, 0, None] + s1 * d[:, 1, None]
    t = np.stack([ux - p[1, 0], np.broadcast_to(d[:, 2, None] - p[1, 2], ux.shape)], axis=-1)  # (m, 2, 2)
    phi2, phi3 = _planar(t, p[2, [0, 2]], e[[0, 2]])  # (m, 2, 2)
    # wrist: M = R3^T R6 = Rx(phi4) Ry(phi5) Rx(phi6), R3 = Rz(phi1) Ry(phi2 + phi3), entry by entry
    U = _rotate_rows_z(R6, c1, s1)  # Rz(-phi1) R6, rows (m, 2, 3) each
    c23, s23 = np.cos(phi2 + phi3), np.sin(phi2 + phi3)  # (m, 2, 2)
    u0, u1, u2 = (u[:, :, None, :] for u in U)
    M0 = c23[..., None] * u0 - s23[..., None] * u2  # Ry(-phi23) rows: (c u0 - s u2, u1, s u0 + c u2)
    M1 = np.broadcast_to(u1, M0.shape)
    M2 = s23[..., None] * u0 + c23[..., None] * u2
    s5 = np.hypot(M0[..., 1], M0[..., 2])
    phi5 = np.stack([np.arctan2(s5, M0[..., 0]), np.arctan2(-s5, M0[..., 0])], axis=-1)  # (m, 2, 2, 2)
    phi4 = np.stack([np.arctan2(M1[..., 0], -M2[..., 0]), np.arctan2(-M1[..., 0], M2[..., 0])], axis=-1)
    # phi6 from what phi4 and phi5 leave, P = Ry(-phi5) Rx(-phi4) M (consistent even at s5 = 0):
    # P11 = c4 M11 + s4 M21, P21 = s5 M01 + c5 (c4 M21 - s4 M11)
    c4, s4, c5, sn5 = np.cos(phi4), np.sin(phi4), np.cos(phi5), np.sin(phi5)
    M01, M11, M21 = M0[..., 1, None], M1[..., 1, None], M2[..., 1, None]
    phi6 = np.arctan2(sn5 * M01 + c5 * (c4 * M21 - s4 * M11), c4 * M11 + s4 * M21)
    b = np.broadcast_to
    out = np.stack([b(phi1[:, :, None, None], phi5.shape), b(phi2[..., None], phi5.shape),
                    b(phi3[..., None], phi5.shape), phi4, phi5, phi6], axis=-1)
    return out.reshape(m, N_BRANCHES, 6)


def _rotate_rows_z(R: FloatArray, c: FloatArray, s: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Rows of ``Rz(-phi) @ R`` for ``R`` ``(m, 3, 3)`` and ``cos``/``sin`` of ``phi`` ``(m, k)``: three ``(m, k, 3)``."""
    r0, r1, r2 = R[:, None, 0, :], R[:, None, 1, :], R[:, None, 2, :]
    return c[..., None] * r0 + s[..., None] * r1, c[..., None] * r1 - s[..., None] * r0, np.broadcast_to(
        r2, c.shape + (3,))


def _ur(model: KinematicModel, R_world_tcp: FloatArray, p_world_tcp: FloatArray) -> FloatArray:
    """Canonical angles ``(m, 8, 6)`` of the arm with three parallel axes (UR type)."""
    p = model.p_joint
    R6, o6 = _flange(model, R_world_tcp, p_world_tcp)
    m = o6.shape[0]
    L_y = p[1:, 1].sum()
    d = o6 - p[0]  # joint 6's origin lies on axes 5 and 6
    phi1 = _shoulder(d, L_y)  # (m, 2)
    c1, s1 = np.cos(phi1), np.sin(phi1)
    M0, M1, _ = _rotate_rows_z(R6, c1, s1)  # rows of M = Rz(-phi1) R6 = Ry(phi234) Rz(phi5) Ry(phi6)
    phi5 = _acos_pm(M1[..., 1])  # the y row of M is (s5 c6, c5, s5 s6); (m, 2, 2)
    sgn = np.where(np.sin(phi5) < 0, -1.0, 1.0)
    phi6 = np.arctan2(sgn * M1[..., 2, None], sgn * M1[..., 0, None])
    # first row of N = M Ry(-phi6) Rz(-phi5) = Ry(phi234): N00 = cos, N02 = sin
    c6, s6, c5, s5 = np.cos(phi6), np.sin(phi6), np.cos(phi5), np.sin(phi5)
    v0, v1, v2 = M0[..., 0, None], M0[..., 1, None], M0[..., 2, None]
    w0, w2 = v0 * c6 + v2 * s6, v2 * c6 - v0 * s6
    phi234 = np.arctan2(w2, w0 * c5 - v1 * s5)  # (m, 2, 2)
    # joint 4's origin in the frame turned by -phi1, relative to joint 1: u6 - Ry(phi234) (p5 + p6)
    u6x = c1 * d[:, 0, None] + s1 * d[:, 1, None]  # (m, 2)
    f = p[4] + p[5]
    c234, s234 = np.cos(phi234), np.sin(phi234)
    u4x = u6x[..., None] - (c234 * f[0] + s234 * f[2])
    u4z = d[:, 2, None, None] - (-s234 * f[0] + c234 * f[2])
    t = np.stack([u4x - p[1, 0], u4z - p[1, 2]], axis=-1)  # (m, 2, 2, 2)
    phi2, phi3 = _planar(t, p[2, [0, 2]], p[3, [0, 2]])  # (m, 2, 2, 2)
    phi4 = phi234[..., None] - phi2 - phi3
    b = np.broadcast_to
    shape = phi2.shape
    out = np.stack([b(phi1[:, :, None, None], shape), phi2, phi3, phi4, b(phi5[..., None], shape),
                    b(phi6[..., None], shape)], axis=-1)
    return out.reshape(m, N_BRANCHES, 6)
