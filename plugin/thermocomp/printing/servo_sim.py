"""A simulated UR5 velocity servo: joint speeds commanded at a rate, answered late (seed 004, Sections 2-3, 4-2).

What the robot's own controller does is unknown (seed 004, Section 4-3: "an internal controller, which is
unknown"); this module states a plausible one and simulates it on PyBullet's rigid-body model of the robot's
inertials (headless, ``DIRECT``):

* a command ``u(k)`` [rad/s] sent at sample ``k`` (rate ``rate_hz``, default 125 Hz, Section 2-4) becomes the
  velocity reference of the joint drives at ``(k + delay_samples) T`` (default 4 samples, Section 4-2);
* the drives run a PI loop on each joint's speed through the arm's inertia:
  ``tau* = g(q) + M~(q) (K_p e + K_i int e)``, ``e = v_ref - qd``, ``K_p = 2 zeta omega``, ``K_i = omega^2``,
  where ``M~`` is the mass matrix with its off-diagonal terms times ``decoupling`` (1: the joints decoupled,
  as the thesis's cross-coupling of -30 dB below 10 rad/s says, Section 4-5; 0: each joint on its own inertia);
  ``g`` and ``M`` are refreshed once a sample; on a lone joint this is ``H(s) = (K_p s + K_i) / (s^2 + K_p s +
  K_i)``, flat to about ``omega`` (``bandwidth_rad_s``, default 10 rad/s, the Bode plot of Figure 4-9);
* the motors answer ``tau*`` with a first-order lag (``torque_lag_s``, the current loop): a third pole;
* the joints still couple through Coriolis forces, the stale ``M`` and ``g`` within a sample, and a payload
  at the TCP whose weight the drives do not know (``payload_kg``, default none);
* the drives' torques carry white noise, ``M_ii(q)`` times ``acceleration_noise_rad_s2`` per physics step
  (seeded): open-loop velocities drift;
* the robot reports its joint angles quantised to the encoder (``encoder_counts``) with noise, and its joint
  speeds with noise (``velocity_noise_rad_s``), as UR's ``actual_q`` and ``actual_qd``;
* the PC that runs the tracking loop is not real-time: each sample, with probability
  ``missed_command_probability``, its command does not reach the robot in time, and the robot's ``speedj``
  has run out: the drives' speed reference is 0 for that sample (the joint falls behind by about ``u T``;
  seed 004, Section 8-2: "the connection from the pc to the robot seems to be lacking. This causes the robot
  to stop in the middle of a print and this will cause major errors for the print in the direction of
  printing", and Section 7-6). The identification experiment runs on the robot's own controller
  (``servo excite``), so :func:`thermocomp.app.servo.run_identify` simulates it with no missed commands.

The arm's dynamics are PyBullet's (fixed base, gravity, the built-in approximate inertials of
``robots/<name>/inertia.csv``, no joint friction). Everything is in SI units and radians.
"""

from __future__ import annotations

import math
import tempfile
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from thermocomp._typing import ArrayLike, FloatArray
from thermocomp.errors import ConfigurationError
from thermocomp.robot.chain import Chain

#: Standard gravity [m/s^2] along the base's -z.
GRAVITY = 9.80665


@dataclass(frozen=True)
class ServoOptions:
    """The simulated servo (module docstring). Defaults are the values docs/printing.md states.

    Parameters
    ----------
    rate_hz
        Command and measurement rate [Hz], in [1, 1000]; seed 004 commands the UR5 at 125 Hz.
    delay_samples
        Pure delay between a command and the drives acting on it [samples], in [0, 50]; seed 004: 4.
    bandwidth_rad_s
        Natural frequency ``omega`` of each drive's velocity loop [rad/s], in [1, 500].
    damping
        Damping ratio ``zeta`` of the velocity loop, in [0.1, 2].
    substeps
        Physics steps per sample, in [1, 100] (8 at 125 Hz: a 1 ms step).
    encoder_counts
        Encoder counts per joint revolution (the reported angle's quantum is ``2 pi / counts``), >= 1000.
    position_noise_rad
        Standard deviation of the reported joint angles before quantisation [rad], >= 0.
    velocity_noise_rad_s
        Standard deviation of the reported joint speeds [rad/s], >= 0.
    acceleration_noise_rad_s2
        Standard deviation of the drives' torque noise per physics step, as an acceleration of the joint's own
        inertia [rad/s^2], >= 0.
    payload_kg
        Mass at the TCP that the drives' gravity compensation does not know [kg] (a print head), >= 0.
    decoupling
        Share of the mass matrix's off-diagonal terms the drives use, in [0, 1].
    torque_lag_s
        Time constant of the motors' torque answer [s], in [0, 0.2] (0: none).
    missed_command_probability
        Probability that a sample's command misses the robot's cycle and the drives' speed reference is 0 for
        that sample, in [0, 0.5] (module docstring; docs/printing.md states how the default is estimated).
    """

    rate_hz: float = 125.0
    delay_samples: int = 4
    bandwidth_rad_s: float = 10.0
    damping: float = 0.7
    substeps: int = 8
    encoder_counts: int = 2**20
    position_noise_rad: float = 2e-6
    velocity_noise_rad_s: float = 5e-4
    acceleration_noise_rad_s2: float = 0.01
    payload_kg: float = 0.0
    decoupling: float = 0.8
    torque_lag_s: float = 0.02
    missed_command_probability: float = 0.02

    def __post_init__(self) -> None:
        checks = (
            ("rate_hz", self.rate_hz, 1.0, 1000.0, "Hz"),
            ("delay_samples", self.delay_samples, 0, 50, "samples"),
            ("bandwidth_rad_s", self.bandwidth_rad_s, 1.0, 500.0, "rad/s"),
            ("damping", self.damping, 0.1, 2.0, ""),
            ("substeps", self.substeps, 1, 100, ""),
            ("encoder_counts", self.encoder_counts, 1000, 2**40, "counts/rev"),
            ("position_noise_rad", self.position_noise_rad, 0.0, 0.1, "rad"),
            ("velocity_noise_rad_s", self.velocity_noise_rad_s, 0.0, 1.0, "rad/s"),
            ("acceleration_noise_rad_s2", self.acceleration_noise_rad_s2, 0.0, 1000.0, "rad/s^2"),
            ("payload_kg", self.payload_kg, 0.0, 10.0, "kg"),
            ("decoupling", self.decoupling, 0.0, 1.0, ""),
            ("torque_lag_s", self.torque_lag_s, 0.0, 0.2, "s"),
            ("missed_command_probability", self.missed_command_probability, 0.0, 0.5, ""),
        )
        for name, value, lo, hi, unit in checks:
            if not (isinstance(value, (int, float)) and math.isfinite(value) and lo <= value <= hi):
                raise ConfigurationError(f"servo option {name}: expected a value in [{lo:g}, {hi:g}] {unit}, got {value!r}")
        for name in ("delay_samples", "substeps", "encoder_counts"):
            if int(getattr(self, name)) != getattr(self, name):
                raise ConfigurationError(f"servo option {name}: expected an integer, got {getattr(self, name)!r}")

    @property
    def sample_time(self) -> float:
        """``T = 1 / rate_hz`` [s]."""
        return 1.0 / self.rate_hz

    @property
    def quantum_rad(self) -> float:
        """The encoder's quantum [rad]."""
        return 2.0 * math.pi / self.encoder_counts


def _arrived(u: ArrayLike, options: ServoOptions, rng: np.random.Generator) -> FloatArray:
    """The speed reference [rad/s] ``(n,)`` the drives get for the command ``u``: ``u``, or 0 when the command
    missed the robot's cycle (probability ``options.missed_command_probability``; no draw when it is 0)."""
    u = np.array(u, dtype=float)
    if options.missed_command_probability > 0.0 and rng.random() < options.missed_command_probability:
        return np.zeros_like(u)
    return u


@dataclass(frozen=True)
class ServoRecord:
    """What the robot reported over a run of ``N`` samples (as UR's RTDE logger records it).

    Attributes
    ----------
    t
        Sample times [s], ``(N + 1,)``.
    u
        Commanded joint speeds [rad/s], ``(N, n)``: ``u[k]`` sent at ``t[k]``.
    q, qd
        Reported joint angles [rad] and speeds [rad/s], ``(N + 1, n)``, at ``t``.
    q_true
        The true joint angles [rad], ``(N + 1, n)`` (what the print shows).
    """

    t: FloatArray
    u: FloatArray
    q: FloatArray
    qd: FloatArray
    q_true: FloatArray


class ServoSimulator:
    """The simulated velocity servo of ``chain`` with ``inertials`` (module docstring); use as ``with``.

    Parameters
    ----------
    chain
        The robot (joint limits, TCP), ``n`` joints.
    links
        :class:`thermocomp.io.urdf.LinkContent` by link name (``base``, ``link1`` ..), e.g.
        :func:`thermocomp.inertia.builtin.builtin_link_contents` ``(name, meshes=False)``.
    q0
        Start configuration [rad], ``(n,)``, at rest.
    options
        The servo.
    rng
        The noise's generator.
    """

    def __init__(self, chain: Chain, links: dict, q0: ArrayLike, options: ServoOptions | None = None,
                 rng: np.random.Generator | None = None) -> None:
        from thermocomp.io.urdf import urdf_text
        from thermocomp.kinematics.model import nominal_model

        self.chain = chain
        self.options = ServoOptions() if options is None else options
        self.rng = np.random.default_rng(0) if rng is None else rng
        self._model = nominal_model(chain)
        n = chain.n_joints
        q0 = np.asarray(q0, dtype=float)
        if q0.shape != (n,):
            raise ConfigurationError(f"start configuration: expected {n} joint angles, got shape {q0.shape}")
        import pybullet as p  # lazily: the package imports numpy only (the command line imports it quietly first)

        self._p = p
        self._cid = p.connect(p.DIRECT)
        try:
            p.setGravity(0.0, 0.0, -GRAVITY, physicsClientId=self._cid)
            p.setTimeStep(self.options.sample_time / self.options.substeps, physicsClientId=self._cid)
            with tempfile.TemporaryDirectory(prefix="thermocomp-servo-") as folder:
                urdf = Path(folder) / "servo.urdf"
                urdf.write_text(urdf_text(chain, links=links), encoding="utf-8")
                self._body = p.loadURDF(str(urdf), useFixedBase=True, flags=p.URDF_USE_INERTIA_FROM_FILE,
                                        physicsClientId=self._cid)
            names = {p.getJointInfo(self._body, j, physicsClientId=self._cid)[1].decode(): j
                     for j in range(p.getNumJoints(self._body, physicsClientId=self._cid))}
            self._joints = [names[name] for name in chain.joint_names]
            for j in range(-1, p.getNumJoints(self._body, physicsClientId=self._cid)):
                p.changeDynamics(self._body, j, linearDamping=0.0, angularDamping=0.0, jointDamping=0.0,
                                 physicsClientId=self._cid)
            # PyBullet's default velocity motors off: the drives below command torques
            p.setJointMotorControlArray(self._body, self._joints, p.VELOCITY_CONTROL, forces=[0.0] * n,
                                        physicsClientId=self._cid)
            theta0 = chain.theta_from_q(q0)
            for j, th in zip(self._joints, theta0):
                p.resetJointState(self._body, j, float(th), 0.0, physicsClientId=self._cid)
        except BaseException:
            p.disconnect(physicsClientId=self._cid)
            raise
        self._pending: deque[FloatArray] = deque(np.zeros(n) for _ in range(self.options.delay_samples))
        # at rest before the run: the drives' integrators already hold the payload they do not know, and the
        # motors give the torque that holds the arm
        M = self._drive_inertia(theta0)
        payload = self._payload_torque(q0)
        self._integral = -chain.sign * np.linalg.solve(M, payload) / self.options.bandwidth_rad_s**2
        zeros = [0.0] * n
        self._torque = np.array(p.calculateInverseDynamics(self._body, list(map(float, theta0)), zeros, zeros,
                                                           physicsClientId=self._cid)) - payload

    # --- the robot -------------------------------------------------------------------------------------

    def __enter__(self) -> ServoSimulator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Disconnect PyBullet's server (idempotent)."""
        if self._cid is not None:
            self._p.disconnect(physicsClientId=self._cid)
            self._cid = None

    def _state(self) -> tuple[FloatArray, FloatArray]:
        states = self._p.getJointStates(self._body, self._joints, physicsClientId=self._cid)
        theta = np.array([s[0] for s in states])
        dtheta = np.array([s[1] for s in states])
        q = (theta - self.chain.offset) * self.chain.sign
        return q, dtheta * self.chain.sign

    def true_state(self) -> tuple[FloatArray, FloatArray]:
        """The true joint angles [rad] and speeds [rad/s], ``(n,)`` each."""
        return self._state()

    def measure(self) -> tuple[FloatArray, FloatArray]:
        """What the robot reports now: ``actual_q`` [rad] (noise, then the encoder's quantum) and ``actual_qd`` [rad/s]."""
        o = self.options
        q, qd = self._state()
        q_noisy = q + o.position_noise_rad * self.rng.standard_normal(q.shape)
        q_meas = np.round(q_noisy / o.quantum_rad) * o.quantum_rad
        qd_meas = qd + o.velocity_noise_rad_s * self.rng.standard_normal(qd.shape)
        return q_meas, qd_meas

    def _drive_inertia(self, theta: ArrayLike) -> FloatArray:
        """The drives' ``M~`` (module docstring) at model angles ``theta``, ``(n, n)`` [kg m^2]."""
        M = np.array(self._p.calculateMassMatrix(self._body, list(map(float, theta)), physicsClientId=self._cid))
        diagonal = np.diag(np.diag(M))
        return diagonal + self.options.decoupling * (M - diagonal)

    def _payload_torque(self, q: FloatArray) -> FloatArray:
        """Joint torques [N m] of the payload's weight at the TCP: ``J_p^T m g``, controller joint order."""
        if self.options.payload_kg == 0.0:
            return np.zeros(self.chain.n_joints)
        from thermocomp.kinematics.fk import fk_jacobian

        _, _, J = fk_jacobian(self._model, q)
        return J[:3].T @ np.array([0.0, 0.0, -GRAVITY * self.options.payload_kg])

    def step(self, u: ArrayLike) -> None:
        """Send the command ``u`` [rad/s] ``(n,)`` at this sample and advance the robot one sample."""
        p, o, chain = self._p, self.options, self.chain
        self._pending.append(_arrived(u, o, self.rng))
        v_ref = self._pending.popleft()
        kp, ki = 2.0 * o.damping * o.bandwidth_rad_s, o.bandwidth_rad_s**2
        dt = o.sample_time / o.substeps
        q, _ = self._state()
        # the drives' model (gravity, inertia) is refreshed once a sample; the payload is the robot's, not theirs
        theta = list(map(float, chain.theta_from_q(q)))
        n = chain.n_joints
        zeros = [0.0] * n
        gravity = np.array(p.calculateInverseDynamics(self._body, theta, zeros, zeros, physicsClientId=self._cid))
        M = self._drive_inertia(theta)
        noise_scale = np.diag(M) * o.acceleration_noise_rad_s2
        disturbance = chain.sign * self._payload_torque(q)
        follow = 1.0 if o.torque_lag_s == 0 else 1.0 - math.exp(-dt / o.torque_lag_s)
        for _ in range(o.substeps):
            _, qd = self._state()
            e = v_ref - qd
            self._integral += e * dt
            wanted = gravity + M @ (chain.sign * (kp * e + ki * self._integral))
            self._torque += follow * (wanted - self._torque)
            tau = self._torque + disturbance + noise_scale * self.rng.standard_normal(n)
            p.setJointMotorControlArray(self._body, self._joints, p.TORQUE_CONTROL, forces=list(map(float, tau)),
                                        physicsClientId=self._cid)
            p.stepSimulation(physicsClientId=self._cid)

    def run(self, u: ArrayLike, step: Callable[[], None] | None = None) -> ServoRecord:
        """Send the commands ``u`` [rad/s], ``(N, n)``, one a sample, from the current state; record every sample.
        ``step()``, if given, is called after each sample sent (a progress count)."""
        u = np.asarray(u, dtype=float)
        N, n = u.shape
        q = np.empty((N + 1, n))
        qd = np.empty((N + 1, n))
        q_true = np.empty((N + 1, n))
        for k in range(N + 1):
            q[k], qd[k] = self.measure()
            q_true[k] = self.true_state()[0]
            if k < N:
                self.step(u[k])
                if step is not None:
                    step()
        return ServoRecord(t=np.arange(N + 1) * self.options.sample_time, u=u, q=q, qd=qd, q_true=q_true)


class LinearServo:
    """A servo of known linear joints: each ``x(k+1) = A x(k) + B u(k - d)``, ``[q - q_0; qd] = C x``, with the
    measurement noise and quantum of ``options``; the interface of
    :class:`ServoSimulator` (a known truth for the tests, and no PyBullet).

    Parameters
    ----------
    chain
        The robot (speed limits), ``n`` joints.
    joints
        One :class:`~thermocomp.printing.identification.JointModel` per joint (the truth).
    q0
        Start angles [rad], ``(n,)``, at rest.
    """

    def __init__(self, chain: Chain, joints, q0: ArrayLike, options: ServoOptions | None = None,
                 rng: np.random.Generator | None = None) -> None:
        self.chain = chain
        self.options = ServoOptions() if options is None else options
        self.rng = np.random.default_rng(0) if rng is None else rng
        self.joints = tuple(joints)
        self._x = [np.zeros(j.order) for j in self.joints]
        self._q0 = np.array(q0, dtype=float)
        self._pending: deque[FloatArray] = deque(np.zeros(chain.n_joints) for _ in range(self.options.delay_samples))

    def __enter__(self) -> LinearServo:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def true_state(self) -> tuple[FloatArray, FloatArray]:
        y = np.array([j.C @ x for j, x in zip(self.joints, self._x)])
        return self._q0 + y[:, 0], y[:, 1]

    def measure(self) -> tuple[FloatArray, FloatArray]:
        o = self.options
        q, qd = self.true_state()
        q_noisy = q + o.position_noise_rad * self.rng.standard_normal(q.shape)
        return (np.round(q_noisy / o.quantum_rad) * o.quantum_rad,
                qd + o.velocity_noise_rad_s * self.rng.standard_normal(qd.shape))

    def step(self, u: ArrayLike) -> None:
        self._pending.append(_arrived(u, self.options, self.rng))
        acting = self._pending.popleft()
        self._x = [j.A @ x + j.B[:, 0] * a for j, x, a in zip(self.joints, self._x, acting)]

    run = ServoSimulator.run
