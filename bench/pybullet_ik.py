"""Section 2: PyBullet's own inverse kinematics on the transient case (the baseline).

For every minute the deformed IRB140 (:func:`thermocomp.deformed_model` at that
minute's fraction) is written as URDF (:func:`thermocomp.io.urdf.write_urdf`)
and loaded into one PyBullet DIRECT client; loading is timed apart. Then each
(minute, target) row is one ``calculateInverseKinematics`` call on the TCP link
(the URDF's last link), warm-started through ``currentPositions`` with
PyBullet's own solution of the same target at the previous minute (at minute 0:
the nominal solution, thermocomp's minute-0 angles). Two settings: PyBullet's
defaults, and tuned (``jointDamping=[1e-6]*n, maxNumIterations=50,
residualThreshold=1e-12``). No limits, ranges or rest poses are passed: with
them PyBullet switches to its null-space variant, which trades accuracy for
staying near the rest pose.

The timed loop is the IK call only. PyBullet 3.2.7 starts its iteration from
``currentPositions`` when given, so resetting the joint state first changes
nothing; :func:`run` checks that on a sample (and times the resets anyway)
and puts the resets into the timed loop if a PyBullet version ever disagrees.

Accuracy is measured with *our* forward kinematics of the deformed model at
the returned angles (the URDF's joint positions are model angles
``theta = sign * q + offset``; for the IRB140 they equal controller angles).
"""

from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

import numpy as np
from benchutil import median, pose_errors, solved_share

import thermocomp as tc
from thermocomp.geometry.rotations import quat_wxyz_from_matrix
from thermocomp.io.deformation_csv import read_deformation_csv
from thermocomp.io.targets_csv import read_targets_csv
from thermocomp.io.urdf import write_urdf

VARIANTS = {
    "defaults": {},
    "tuned": {"jointDamping": None, "maxNumIterations": 50, "residualThreshold": 1e-12},  # damping set per robot
}


@dataclass
class EngineResult:
    name: str
    seconds: list[float] = field(default_factory=list)  # IK calls of one pass over all rows [s]
    n_rows: int = 0
    position_error: np.ndarray = field(default_factory=lambda: np.zeros(0))
    orientation_error: np.ndarray = field(default_factory=lambda: np.zeros(0))

    @property
    def us_per_solve(self) -> float:
        return 1e6 * median(self.seconds) / self.n_rows


@dataclass
class PyBulletResult:
    engines: dict[str, EngineResult]
    minutes: int
    load_seconds: float
    urdf_seconds: float
    reset_us: float  # 6 resetJointState calls, per row [us]
    reset_difference: float  # largest change of PyBullet's answer when the state is reset first [rad]
    reset_in_timed_loop: bool
    version: str


def _xyzw(R: np.ndarray) -> list[list[float]]:
    wxyz = quat_wxyz_from_matrix(R)
    return np.concatenate([wxyz[:, 1:], wxyz[:, :1]], axis=1).tolist()


def run(deformation: Path, targets: Path, minutes: np.ndarray, q_minute0: np.ndarray, repeats: int,
        robot: str = "irb140") -> PyBulletResult:
    """PyBullet IK over every (minute, target) row; ``q_minute0`` ``(m, n)`` seeds minute 0 [rad]."""
    import pybullet as p  # thermocomp depends on pybullet, but only this section needs it

    chain = tc.load_robot(robot)
    table = read_deformation_csv(deformation, n_joints=chain.n_joints)
    program = read_targets_csv(targets)
    fractions = tc.CompensationOptions().time_law.fraction(minutes)
    m, n = program.n_targets, chain.n_joints
    positions = program.p_world_tcp.tolist()
    orientations = _xyzw(program.R_world_tcp)

    client = p.connect(p.DIRECT)
    try:
        with tempfile.TemporaryDirectory(prefix="thermocomp-bench-urdf-") as tmp:
            t0 = time.perf_counter()
            paths = []
            for k, f in enumerate(fractions):
                paths.append(Path(tmp) / f"irb140_minute{k}.urdf")
                write_urdf(tc.deformed_model(chain, table, float(f)), paths[-1])
            urdf_seconds = time.perf_counter() - t0
            t0 = time.perf_counter()
            bodies = [p.loadURDF(str(path), useFixedBase=True, physicsClientId=client) for path in paths]
            load_seconds = time.perf_counter() - t0
        n_links = p.getNumJoints(bodies[0], physicsClientId=client)
        infos = [p.getJointInfo(bodies[0], j, physicsClientId=client) for j in range(n_links)]
        revolute = [i[0] for i in infos if i[2] == p.JOINT_REVOLUTE]
        (tcp,) = [i[0] for i in infos if i[12] == b"tcp"]
        if len(revolute) != n:
            raise RuntimeError(f"URDF has {len(revolute)} revolute joints, expected {n}")
        theta0 = chain.theta_from_q(q_minute0).tolist()

        def settings(name: str) -> dict:
            kw = dict(VARIANTS[name])
            if "jointDamping" in kw:
                kw["jointDamping"] = [1e-6] * n
            return kw

        # Does resetting the joint state to the warm start change PyBullet's answer?
        kw = settings("tuned")
        sample = [(k, i) for k in (0, len(bodies) // 2, len(bodies) - 1) for i in range(m)]
        differ = 0.0
        for k, i in sample:
            for joint in revolute:
                p.resetJointState(bodies[k], joint, 0.0, physicsClientId=client)
            a = p.calculateInverseKinematics(bodies[k], tcp, positions[i], orientations[i], currentPositions=theta0[i],
                                             physicsClientId=client, **kw)
            for joint, angle in zip(revolute, theta0[i]):
                p.resetJointState(bodies[k], joint, angle, physicsClientId=client)
            b = p.calculateInverseKinematics(bodies[k], tcp, positions[i], orientations[i], currentPositions=theta0[i],
                                             physicsClientId=client, **kw)
            differ = max(differ, float(np.max(np.abs(np.subtract(a, b)))))
        reset_changes = differ > 1e-12

        # Cost of the resets alone (6 resetJointState calls per row).
        t0 = time.perf_counter()
        for body in bodies:
            for i in range(m):
                for joint, angle in zip(revolute, theta0[i]):
                    p.resetJointState(body, joint, angle, physicsClientId=client)
        reset_us = 1e6 * (time.perf_counter() - t0) / (len(bodies) * m)

        engines = {}
        ik = p.calculateInverseKinematics
        for name in VARIANTS:
            kw = settings(name)
            engine = EngineResult(f"PyBullet IK, {name}", n_rows=len(bodies) * m)
            for _ in range(repeats):
                solution = np.empty((len(bodies), m, n))
                seeds = theta0
                total = 0.0
                for k, body in enumerate(bodies):
                    if reset_changes:
                        t0 = time.perf_counter()
                        out = []
                        for i in range(m):
                            for joint, angle in zip(revolute, seeds[i]):
                                p.resetJointState(body, joint, angle, physicsClientId=client)
                            out.append(ik(body, tcp, positions[i], orientations[i], currentPositions=seeds[i],
                                          physicsClientId=client, **kw))
                    else:
                        t0 = time.perf_counter()
                        out = [ik(body, tcp, positions[i], orientations[i], currentPositions=seeds[i],
                                  physicsClientId=client, **kw) for i in range(m)]
                    total += time.perf_counter() - t0
                    solution[k] = out
                    seeds = [list(s) for s in out]
                engine.seconds.append(total)
            q = chain.q_from_theta(solution.reshape(-1, n))
            model = tc.deformed_model(chain, table, np.repeat(fractions, m))
            engine.position_error, engine.orientation_error = pose_errors(
                model, q, np.tile(program.R_world_tcp, (len(bodies), 1, 1)), np.tile(program.p_world_tcp, (len(bodies), 1)))
            engines[name] = engine
        version = p.getAPIVersion(physicsClientId=client)
    finally:
        p.disconnect(physicsClientId=client)
    try:
        version = f"{metadata.version('pybullet')} (API {version})"
    except metadata.PackageNotFoundError:
        version = f"API {version}"
    return PyBulletResult(engines, len(fractions), load_seconds, urdf_seconds, reset_us, differ,
                          reset_changes, version)


def engine_row(name: str, us: float, us_ref: float, pos: np.ndarray, ori: np.ndarray) -> list[str]:
    return [
        name, f"{us:.1f}", f"{us / us_ref:.2f}",
        f"{pos.max():.1e}", f"{np.median(pos):.1e}", f"{ori.max():.1e}",
        f"{100 * solved_share(pos, ori):.1f}",
    ]
