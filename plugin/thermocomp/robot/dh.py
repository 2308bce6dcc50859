"""Denavit-Hartenberg parameters converted exactly to the table form.

Two conventions, per joint ``i`` (1-based, ``theta_i = q_i + theta_offset_i``):

* standard (distal, Spong / the UR5 table of seed 004, Eq. 3-4)::

      A_i = Rz(theta_i) @ Tz(d_i) @ Tx(a_i) @ Rx(alpha_i)

  joint ``i`` turns about the z axis of frame ``i - 1``; frame ``n`` is the
  flange.
* modified (proximal, Craig)::

      A_i = Rx(alpha_{i-1}) @ Tx(a_{i-1}) @ Rz(theta_i) @ Tz(d_i)

  joint ``i`` turns about the z axis of frame ``i``; frame ``n`` is the
  flange. Entry ``i`` of ``a`` and ``alpha`` holds ``a_{i-1}`` and
  ``alpha_{i-1}``, the parameters *before* joint ``i``.

``T_base_flange(q) = A_1 @ ... @ A_n``. The table form (seed 002, Table 7;
:class:`thermocomp.robot.chain.Chain`) describes the same robot by where each
joint sits and which way it turns at the zero pose. The conversion evaluates
the DH frames at the controller zero ``q = 0`` (so ``theta_i = theta_offset_i``)
and reads off

* ``p[i]``: the joint's origin minus the previous joint's origin (the base
  origin for the first joint), in the base frame;
* ``axis[i]``: the joint's z axis in the base frame;
* ``T_last_tcp``: the flange in the last joint's base-oriented frame, times
  the optional tool ``T_flange_tcp``.

The DH zero offsets are thereby folded into the zero-pose geometry: the
returned chain has ``sign = +1`` and ``offset = 0``, so its model angle is
the controller angle (``theta_table = q``). This keeps the table's zero pose
at the controller's zero, where deformation tables are measured (seed 002,
Tables 8-9), and makes a DH-built chain the same table as one typed in from
the paper. The forward kinematics of both descriptions agree for every ``q``
to round-off (``tests/test_dh.py``).

Angles that are multiples of pi/2 to within float resolution (``np.pi / 2``
as typed) get exact sines and cosines (0, +-1), so a UR5's table carries
exact zeros instead of ``6e-17``. See docs/conventions.md.
"""

from __future__ import annotations

import math

import numpy as np

from thermocomp._typing import ArrayLike, FloatArray
from thermocomp.errors import InputError
from thermocomp.geometry.checks import check_array, check_transform
from thermocomp.robot.chain import Chain

#: An angle within this many float spacings (``eps * max(1, |angle|)``) of a
#: multiple of pi/2 is treated as that exact right angle. ``np.pi / 2`` and
#: ``-np.pi / 2`` sit well inside; a typed ``1.5708`` (7e-6 away) does not.
_RIGHT_ANGLE_ULPS = 8.0


def _cos_sin(angle: float) -> tuple[float, float]:
    """``(cos, sin)`` of ``angle`` [rad], exact at multiples of pi/2."""
    k = round(angle / (math.pi / 2))
    if abs(angle - k * (math.pi / 2)) <= _RIGHT_ANGLE_ULPS * np.finfo(float).eps * max(1.0, abs(angle)):
        return [(1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0)][k % 4]
    return math.cos(angle), math.sin(angle)


def _rz_tz(theta: float, d: float) -> FloatArray:
    """``Rz(theta) @ Tz(d)``, shape ``(4, 4)``."""
    c, s = _cos_sin(theta)
    return np.array([[c, -s, 0.0, 0.0], [s, c, 0.0, 0.0], [0.0, 0.0, 1.0, d], [0.0, 0.0, 0.0, 1.0]])


def _tx_rx(a: float, alpha: float) -> FloatArray:
    """``Tx(a) @ Rx(alpha)`` (equal to ``Rx(alpha) @ Tx(a)``), shape ``(4, 4)``."""
    c, s = _cos_sin(alpha)
    return np.array([[1.0, 0.0, 0.0, a], [0.0, c, -s, 0.0], [0.0, s, c, 0.0], [0.0, 0.0, 0.0, 1.0]])


def dh_matrix(a: float, alpha: float, d: float, theta: float, *, modified: bool = False) -> FloatArray:
    """One DH link transform ``A_i``, shape ``(4, 4)``.

    Parameters
    ----------
    a, d
        Link length and offset [m].
    alpha, theta
        Link twist and joint angle [rad].
    modified
        ``False``: ``Rz(theta) @ Tz(d) @ Tx(a) @ Rx(alpha)`` (standard);
        ``True``: ``Rx(alpha) @ Tx(a) @ Rz(theta) @ Tz(d)`` (Craig's modified,
        with ``a``, ``alpha`` the parameters before the joint).
    """
    if modified:
        return _tx_rx(a, alpha) @ _rz_tz(theta, d)
    return _rz_tz(theta, d) @ _tx_rx(a, alpha)


def chain_from_dh(
    a: ArrayLike,
    alpha: ArrayLike,
    d: ArrayLike,
    theta_offset: ArrayLike,
    *,
    modified: bool = False,
    name: str,
    joint_names: tuple[str, ...] | list[str] | None = None,
    lower: ArrayLike,
    upper: ArrayLike,
    velocity: ArrayLike | None = None,
    T_world_base: ArrayLike | None = None,
    T_flange_tcp: ArrayLike | None = None,
    home: ArrayLike | None = None,
) -> Chain:
    """The table-form chain of a robot given by DH parameters (module docstring).

    Parameters
    ----------
    a
        Link lengths [m], shape ``(n,)``; ``a_i`` (standard) or ``a_{i-1}``
        (modified) for joint ``i``.
    alpha
        Link twists [rad], shape ``(n,)``; indexed like ``a``.
    d
        Link offsets along the joint axis [m], shape ``(n,)``.
    theta_offset
        DH angle at controller zero [rad], shape ``(n,)``:
        ``theta_i = q_i + theta_offset_i``.
    modified
        Use the modified (Craig) convention instead of the standard one.
    name
        Robot name.
    joint_names
        ``n`` names; default ``joint1`` .. ``jointn``.
    lower, upper
        Joint limits in controller angles [rad], shape ``(n,)``.
    velocity
        Joint speed limits [rad/s], shape ``(n,)``; default ``inf`` (unknown).
    T_world_base
        Pose of the DH base frame (frame 0) in the world, shape ``(4, 4)``;
        default identity.
    T_flange_tcp
        Pose of the TCP in the flange frame (DH frame ``n``), shape
        ``(4, 4)``; default identity (TCP = flange).
    home
        Home configuration in controller angles [rad], shape ``(n,)``;
        default zeros.

    Returns
    -------
    Chain
        ``sign = +1``, ``offset = 0``: its angles are the controller's ``q``.

    Raises
    ------
    InputError
        When the parameter arrays do not all have the same length ``n >= 1``
        or a transform is not rigid.
    """
    a_ = check_array(a, (None,), f"{name} DH a")
    n = a_.shape[0]
    if n == 0:
        raise InputError(f"{name} DH parameters: expected at least one joint, got none")
    alpha_ = check_array(alpha, (n,), f"{name} DH alpha")
    d_ = check_array(d, (n,), f"{name} DH d")
    offset_ = check_array(theta_offset, (n,), f"{name} DH theta_offset")
    T_flange_tcp_ = np.eye(4) if T_flange_tcp is None else check_transform(T_flange_tcp, f"{name} T_flange_tcp")
    T_world_base_ = np.eye(4) if T_world_base is None else check_transform(T_world_base, f"{name} T_world_base")

    # Frames at q = 0. joint_frame[i] is the frame joint i turns about (its z).
    T = np.eye(4)
    joint_frames = []
    for i in range(n):
        A = dh_matrix(a_[i], alpha_[i], d_[i], offset_[i], modified=modified)
        if modified:
            T = T @ A
            joint_frames.append(T)
        else:
            joint_frames.append(T)
            T = T @ A
    T_base_flange = T
    origins = np.array([F[:3, 3] for F in joint_frames])  # (n, 3) [m], base frame
    axes = np.array([F[:3, 2] for F in joint_frames])  # (n, 3), base frame
    p = np.diff(origins, axis=0, prepend=np.zeros((1, 3)))
    T_last_flange = T_base_flange.copy()
    T_last_flange[:3, 3] -= origins[-1]  # last joint's frame is base-oriented at q = 0
    return Chain(
        name=name,
        joint_names=tuple(joint_names) if joint_names is not None else tuple(f"joint{i + 1}" for i in range(n)),
        p=p,
        axis=axes,
        sign=np.ones(n),
        offset=np.zeros(n),
        lower=lower,  # type: ignore[arg-type]  # validated by Chain
        upper=upper,  # type: ignore[arg-type]
        velocity=np.full(n, np.inf) if velocity is None else velocity,  # type: ignore[arg-type]
        T_world_base=T_world_base_,
        T_last_tcp=T_last_flange @ T_flange_tcp_,
        home=home,  # type: ignore[arg-type]
    )


__all__ = ["chain_from_dh", "dh_matrix"]
