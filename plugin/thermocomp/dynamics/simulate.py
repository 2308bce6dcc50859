"""A simulated robot that produces recordings with known truth: PyBullet's inverse dynamics of a chosen URDF.

The robot follows its commanded motion exactly (ideal tracking), and its
drives report the torque that motion takes: PyBullet's
``calculateInverseDynamics`` on the truth URDF (rigid links, fixed base,
``URDF_USE_INERTIA_FROM_FILE``), plus joint friction from a friction table
(seed 000, Eq. 3) and its reflected rotor inertia (``armature qdd``, the
table's armature on the mass matrix's diagonal), then what a real drive adds: Gaussian torque noise,
quantisation to the drive's torque resolution, and saturation at the joint's
torque limit (seed 003: "the motor torque can reach a saturation value").
Positions are reported quantised to the encoder resolution.

The experiments of the identification steps are methods:
:meth:`SimulatedRobot.record` (any motion, e.g. an excitation, seed 003),
:meth:`SimulatedRobot.static_torques` (static poses, seed 000 Step 2),
:meth:`SimulatedRobot.constant_speed_runs` (symmetric constant-speed
segments, Step 3), :meth:`SimulatedRobot.pi_at_rest` (every joint held by
its PI controller under a disturbance, Step 4, on PyBullet's rigid-body model).

The truth is the robot file as :mod:`thermocomp.dynamics.urdf_parameters` reads
it (a ``.urdf`` or ``.xacro`` with its base and tip links): PyBullet loads a
copy of its URDF (:func:`pybullet_urdf_text`) without geometry (inverse
dynamics needs none, and PyBullet finds no ``package://`` mesh) and with an
explicit zero inertial on links that have none (PyBullet would give them
1 kg). Gravity acts along the root link's ``-z``; joints are matched to the
chain's by name.

PyBullet is imported when a robot is created; each robot has its own
physics server (a reused server can keep a removed body's dynamics,
docs/inertia.md), closed by :meth:`SimulatedRobot.close` or ``with``.
"""

from __future__ import annotations

import math
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from thermocomp._typing import ArrayLike, FloatArray
from thermocomp.dynamics.friction import FrictionTable
from thermocomp.errors import ConfigurationError, InputError
from thermocomp.inertia.gravity import STANDARD_GRAVITY
from thermocomp.io.recording_csv import Recording
from thermocomp.io.robot_files import RobotDescription

#: Damping of a drive [N m s/rad] in the PI loop at rest (:meth:`SimulatedRobot.pi_at_rest`): its back-EMF and
#: transmission damping (seed 000, Eqs. 4-6), which rigid links lack; a PI loop on position (Eq. 7) on a bare
#: inertia is unstable (Routh). 50 holds Table IV's gains on the GoFa's and UR5's arms (they need 10-30 when
#: outstretched).
DRIVE_DAMPING = 50.0
#: Integration steps per recorded sample in the PI loop at rest.
PI_SUBSTEPS = 10

#: Largest torque noise standard deviation [N m]: noisy torques then stay within what the recording
#: readers take (io/csvtext.MAX_CELL, 1e12); 1e308 overflowed into inf written to the CSV.
MAX_TORQUE_NOISE = 1e9


@dataclass(frozen=True)
class DriveOptions:
    """What the simulated drives add to the true torques.

    Attributes
    ----------
    torque_noise
        Standard deviation of the torque noise per joint [N m] (one value for
        all, or one per joint), 0 to :data:`MAX_TORQUE_NOISE`.
    torque_resolution
        Quantisation step of reported torques [N m], >= 0 (0: none).
    torque_limit
        Saturation per joint [N m] (one value or one per joint), > 0; ``inf``: none.
    encoder_resolution
        Quantisation step of reported positions [rad], >= 0.
    """

    torque_noise: tuple[float, ...] = (0.0,)
    torque_resolution: float = 0.0
    torque_limit: tuple[float, ...] = (math.inf,)
    encoder_resolution: float = 0.0

    def __post_init__(self) -> None:
        for name in ("torque_noise", "torque_limit"):
            value = getattr(self, name)
            value = (value,) if np.isscalar(value) else tuple(value)
            object.__setattr__(self, name, tuple(float(v) for v in value))
        if any(not (0 <= v <= MAX_TORQUE_NOISE) for v in self.torque_noise):
            raise ConfigurationError(f"torque_noise (--torque-noise-nm): expected values 0 to {MAX_TORQUE_NOISE:g} N m "
                                     f"(a recording's torques stay readable), got {self.torque_noise}")
        if any(not v > 0 for v in self.torque_limit):
            raise ConfigurationError(f"torque_limit: expected values > 0 N m, got {self.torque_limit}")
        for name in ("torque_resolution", "encoder_resolution"):
            v = getattr(self, name)
            if not (math.isfinite(v) and v >= 0):
                raise ConfigurationError(f"{name}: expected a finite value >= 0, got {v!r}")

    def per_joint(self, values: tuple[float, ...], n: int, name: str) -> FloatArray:
        if len(values) == 1:
            return np.full(n, values[0])
        if len(values) != n:
            raise ConfigurationError(f"{name}: expected 1 or {n} values, got {len(values)}")
        return np.array(values)


def pybullet_urdf_text(urdf: str) -> str:
    """The URDF ``urdf`` as PyBullet's inverse dynamics should read it: ``<visual>`` and ``<collision>`` removed,
    and every link without ``<inertial>`` given a zero one (massless, as the dynamics count it)."""
    root = ET.fromstring(urdf)
    for link in root.iter("link"):
        for tag in ("visual", "collision"):
            for element in link.findall(tag):
                link.remove(element)
        if link.find("inertial") is None:
            inertial = ET.SubElement(link, "inertial")
            ET.SubElement(inertial, "mass", value="0")
            ET.SubElement(inertial, "inertia", ixx="0", ixy="0", ixz="0", iyy="0", iyz="0", izz="0")
    return ET.tostring(root, encoding="unicode")


@dataclass(eq=False)
class SimulatedRobot:
    """PyBullet with a truth URDF, a friction table and drive effects.

    Parameters
    ----------
    robot
        The truth model: a ``.urdf`` or ``.xacro`` robot file as read
        (:func:`thermocomp.io.robot_files.read_robot_description`; joint
        positions are the URDF's, which are the chain's controller angles).
    friction
        Joint friction (seed 000, Eq. 3); ``None``: none.
    drives
        Noise, quantisation and saturation.
    rng
        Generator of the noise.
    gravity
        Gravity in the URDF's root frame [m/s^2].
    """

    robot: RobotDescription
    friction: FrictionTable | None = None
    drives: DriveOptions = field(default_factory=DriveOptions)
    rng: np.random.Generator | None = None
    gravity: tuple[float, float, float] = STANDARD_GRAVITY

    def __post_init__(self) -> None:
        import pybullet

        description = self.robot
        self.chain = description.chain()
        n = self.chain.n_joints
        if self.friction is not None and self.friction.n_joints != n:
            raise InputError(f"friction table: expected {n} joints, got {self.friction.n_joints}")
        if self.rng is None:
            self.rng = np.random.default_rng()
        self._p = pybullet
        self._cid = pybullet.connect(pybullet.DIRECT)
        pybullet.setGravity(*self.gravity, physicsClientId=self._cid)
        # PyBullet opens the file itself: a copy it can read (a FIFO or a xacro file it could not), in a folder of its
        # own, removed once loaded.
        with tempfile.TemporaryDirectory(prefix="thermocomp-") as folder:
            copy = Path(folder) / "truth.urdf"
            copy.write_text(pybullet_urdf_text(description.urdf), encoding="utf-8")
            try:
                self._body = pybullet.loadURDF(str(copy), useFixedBase=True,
                                               flags=pybullet.URDF_USE_INERTIA_FROM_FILE, physicsClientId=self._cid)
            except pybullet.error as exc:  # a file thermocomp reads that PyBullet's parser does not
                pybullet.disconnect(physicsClientId=self._cid)
                raise InputError(f"PyBullet cannot load the URDF: {exc}", path=str(description.source)) from None
        infos = [pybullet.getJointInfo(self._body, j, physicsClientId=self._cid)
                 for j in range(pybullet.getNumJoints(self._body, physicsClientId=self._cid))]
        movable = [info[1].decode() for info in infos if info[2] != pybullet.JOINT_FIXED]
        if sorted(movable) != sorted(self.chain.joint_names):
            raise InputError(f"expected the chain's {n} joints to be the movable ones in PyBullet, got "
                             f"{', '.join(movable)}", path=str(description.source))
        #: Chain joint i is PyBullet's degree of freedom ``self._dof[i]`` (PyBullet orders them as it walks the tree).
        self._dof = np.array([movable.index(name) for name in self.chain.joint_names])
        self.noise = self.drives.per_joint(self.drives.torque_noise, n, "torque_noise")
        self.limit = self.drives.per_joint(self.drives.torque_limit, n, "torque_limit")

    def close(self) -> None:
        """Disconnect the physics server."""
        if self._cid is not None:
            self._p.disconnect(physicsClientId=self._cid)
            self._cid = None

    def __enter__(self) -> SimulatedRobot:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def rigid_torques(self, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike) -> FloatArray:
        """PyBullet's inverse dynamics ``(N, n)`` [N m] at states ``(N, n)``: the truth without friction or noise."""
        q, qd, qdd = (np.atleast_2d(np.asarray(x, dtype=float)) for x in (q, qd, qdd))
        p, body, cid, dof = self._p, self._body, self._cid, self._dof
        order = np.argsort(dof)  # PyBullet's degrees of freedom from the chain's joints
        tau = np.array([
            p.calculateInverseDynamics(body, a[order].tolist(), b[order].tolist(), c[order].tolist(), physicsClientId=cid)
            for a, b, c in zip(q, qd, qdd)
        ])
        return tau[:, dof]

    def true_torques(self, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike) -> FloatArray:
        """Rigid-body plus friction and armature torques ``(N, n)`` [N m] (what the drives deliver before sensing)."""
        tau = self.rigid_torques(q, qd, qdd)
        if self.friction is not None:
            tau = tau + self.friction.drive_torque(np.atleast_2d(qd), np.atleast_2d(qdd))
        return tau

    def sense(self, tau: ArrayLike) -> FloatArray:
        """What the drives report of torques ``tau`` ``(N, n)``: saturated, noisy, quantised."""
        tau = np.clip(np.asarray(tau, dtype=float), -self.limit, self.limit)
        tau = tau + self.rng.normal(0.0, 1.0, tau.shape) * self.noise
        tau = np.clip(tau, -self.limit, self.limit)
        step = self.drives.torque_resolution
        return np.round(tau / step) * step if step > 0 else tau

    def _encoder(self, q: FloatArray) -> FloatArray:
        step = self.drives.encoder_resolution
        return np.round(q / step) * step if step > 0 else q

    def record(self, t: ArrayLike, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike, *, with_derivatives: bool = False) -> Recording:
        """A recording of the commanded motion ``(N, n)`` at times ``t`` ``(N,)`` [s] (ideal tracking).

        ``with_derivatives`` also writes the exact ``qd`` and ``qdd`` (else the
        identification estimates them from the positions).
        """
        q, qd, qdd = (np.atleast_2d(np.asarray(x, dtype=float)) for x in (q, qd, qdd))
        tau = self.sense(self.true_torques(q, qd, qdd))
        return Recording(time=np.asarray(t, dtype=float), q=self._encoder(q), tau=tau,
                         qd=qd if with_derivatives else None, qdd=qdd if with_derivatives else None,
                         source=f"simulated {self.chain.name}")

    def static_torques(self, poses: ArrayLike, samples: int = 1) -> FloatArray:
        """Torques reported at rest at ``poses`` ``(m, n)``, averaged over ``samples`` readings, ``(m, n)`` [N m].

        At rest friction holds no torque here (the seed's remedy for static
        friction, small oscillations about the pose, is assumed).
        """
        poses = np.atleast_2d(np.asarray(poses, dtype=float))
        zero = np.zeros_like(poses)
        tau = self.rigid_torques(poses, zero, zero)
        return np.mean([self.sense(tau) for _ in range(max(int(samples), 1))], axis=0)

    def pi_at_rest(self, setpoint: ArrayLike, Kp: ArrayLike, Ti: ArrayLike, disturbance: Callable[[FloatArray], FloatArray],
                   duration: float, rate: float, *, damping: ArrayLike = DRIVE_DAMPING, substeps: int = PI_SUBSTEPS
                   ) -> Recording:
        """Seed 000, Step 4's experiment: every joint held at ``setpoint`` ``(n,)`` [rad] by its PI controller (Eq. 7)
        while ``disturbance(t (N,)) -> (N, n)`` [N m] pushes the joints.

        ``tau_m = K_p T_i e + K_p integral(e) dt``, ``e = setpoint - q`` per joint (``Kp`` [N m / (rad s)], ``Ti``
        [s], ``(n,)``), the integrator starting at the gravity torque of the set point. The arm is PyBullet's
        rigid-body model: ``M(q) qdd + h(q, qd) = tau_m - d(t) - b qd`` with PyBullet's mass matrix
        (``calculateMassMatrix``) and Coriolis, centrifugal and gravity torques (``calculateInverseDynamics`` at
        zero acceleration), ``b`` the drive's damping ``damping`` (one value or ``(n,)`` [N m s/rad]: back-EMF and
        transmission, seed 000 Eqs. 4-6, which rigid links lack) plus the friction table's viscous ``F_v``
        (Coulomb and static friction hold no torque at rest here, as in :meth:`static_torques`). Integrated
        ``substeps`` times per sample, the damping and the proportional term implicitly (a wrist's 2e-4 kg m^2
        under Table IV's gains is stiff), recorded at ``rate`` [Hz] for ``duration`` [s]: the drives report
        ``tau_m`` (noise, quantisation and saturation as always) and the encoders ``q``.

        Raises
        ------
        ConfigurationError
            A loop its damping does not stabilise: ``J s^3 + b s^2 + K_p T_i s + K_p`` needs ``b T_i > J``
            (Routh; ``J`` the joint's inertia ``M_ii`` at the set point).
        """
        n = self.chain.n_joints
        sp, Kp, Ti = (np.broadcast_to(np.asarray(x, dtype=float), (n,)) for x in (setpoint, Kp, Ti))
        for name, value in (("duration", duration), ("rate", rate), ("substeps", substeps)):
            if not (math.isfinite(value) and value > 0):
                raise ConfigurationError(f"{name}: expected > 0, got {value!r}")
        if not (np.all(np.isfinite(Kp) & (Kp > 0)) and np.all(np.isfinite(Ti) & (Ti > 0))):
            raise ConfigurationError(f"Kp, Ti: expected values > 0, got {Kp.tolist()}, {Ti.tolist()}")
        drive = np.broadcast_to(np.asarray(damping, dtype=float), (n,))
        if not np.all(np.isfinite(drive) & (drive >= 0)):
            raise ConfigurationError(f"damping: expected values >= 0 N m s/rad, got {drive.tolist()}")
        b = drive + (0.0 if self.friction is None else self.friction.Fv)
        J = self.mass_matrix(sp).diagonal()
        unstable = b * Ti <= J
        if np.any(unstable):
            j = int(np.argmax(unstable))
            raise ConfigurationError(f"joint {j + 1}: its PI loop (K_p {Kp[j]:.6g} N m/(rad s), T_i {Ti[j]:.6g} s) on "
                                     f"inertia {J[j]:.4g} kg m^2 needs damping above J / T_i = {J[j] / Ti[j]:.4g} "
                                     f"N m s/rad to stay at rest, got {b[j]:.4g} (drive damping and viscous friction)")
        count = int(round(duration * rate))
        dt = 1.0 / (rate * substeps)
        t = np.arange(count * substeps) * dt
        d = np.asarray(disturbance(t), dtype=float).reshape(t.size, n)
        zero = np.zeros(n)
        q, v = sp.copy(), zero.copy()
        integral = self.rigid_torques(sp, zero, zero)[0] / Kp  # the loop starts holding the arm
        P = Kp * Ti
        qs, taus = np.empty((count, n)), np.empty((count, n))
        for k in range(t.size):
            e = sp - q
            tau_m = P * e + Kp * integral
            if k % substeps == 0:
                qs[k // substeps], taus[k // substeps] = q, tau_m
            h = self.rigid_torques(q, v, zero)[0]
            # (M + dt b + dt^2 P) a = tau_m - P dt v - h - b v - d: damping and the P term at the step's end.
            a = np.linalg.solve(self.mass_matrix(q) + np.diag(dt * b + dt * dt * P), tau_m - P * dt * v - h - b * v - d[k])
            v = v + dt * a
            q = q + dt * v
            integral = integral + e * dt
        return Recording(time=t[::substeps].copy(), q=self._encoder(qs), tau=self.sense(taus),
                         source=f"simulated {self.chain.name} at rest under a disturbance")

    def mass_matrix(self, q: ArrayLike) -> FloatArray:
        """The joint-space mass matrix ``(n, n)`` [kg m^2] at ``q`` ``(n,)``, in the chain's joint order: PyBullet's
        for the rigid links plus the friction table's armature (reflected rotor inertia) on the diagonal."""
        order = np.argsort(self._dof)
        M = np.array(self._p.calculateMassMatrix(self._body, np.asarray(q, dtype=float)[order].tolist(),
                                                 physicsClientId=self._cid))
        M = M[np.ix_(self._dof, self._dof)]
        return M if self.friction is None else M + np.diag(self.friction.armature)

    def constant_speed_runs(
        self, joint: int, speeds: ArrayLike, pose: ArrayLike, span: float, rate: float
    ) -> tuple[FloatArray, FloatArray, FloatArray]:
        """Seed 000, Step 3: joint ``joint`` (0-based) sweeps ``pose[joint] +- span/2`` at ``+v`` then ``-v``.

        The other joints hold ``pose``. For each speed the segments are
        sampled at the same configurations (the ``-v`` run retraces the ``+v``
        one), at ``rate`` [Hz] over the constant-speed part.

        Returns
        -------
        speeds : ``(m,)`` [rad/s]
        tau_plus, tau_minus : ``(m, k)`` [N m] the joint's reported torque per segment
        """
        speeds = np.asarray(speeds, dtype=float)
        pose = np.asarray(pose, dtype=float)
        plus, minus = [], []
        k = None
        for v in speeds:
            duration = span / v
            count = max(int(math.floor(duration * rate)), 3) if k is None else k
            k = count if k is None else k
            s = np.linspace(-0.5 * span, 0.5 * span, count)
            q = np.repeat(pose[None, :], count, axis=0)
            q[:, joint] += s
            qd = np.zeros_like(q)
            qd[:, joint] = v
            qdd = np.zeros_like(q)
            plus.append(self.sense(self.true_torques(q, qd, qdd))[:, joint])
            minus.append(self.sense(self.true_torques(q, -qd, qdd))[:, joint])
        return speeds, np.array(plus), np.array(minus)


__all__ = ["DRIVE_DAMPING", "PI_SUBSTEPS", "DriveOptions", "SimulatedRobot", "pybullet_urdf_text"]
