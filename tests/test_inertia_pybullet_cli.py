"""PyBullet on the URDF that ``thermocomp inertia --out`` itself writes, against the project's own gravity torques.

The command runs through its real entry point (``thermocomp.cli.main.main``);
PyBullet loads the file it wrote with ``URDF_USE_INERTIA_FROM_FILE`` and
``calculateInverseDynamics`` at rest must equal
:func:`thermocomp.inertia.gravity_torques` on the inertials that
:func:`thermocomp.inertia.robot.compute_inertials` returns for the same
inputs. This checks the whole path a user takes: mesh mapping, the URDF's
frames, inertial origins and tensors, mesh references that load, and the
placeholder at the TCP. Two sets of meshes: each built-in robot's own
envelope meshes (in the link frames), and the real GoFa CAD meshes of
ROS-Industrial through the shipped mesh map (``../shared/reference``,
skipped when absent).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from thermocomp.cli.main import main
from thermocomp.inertia import gravity_torques
from thermocomp.inertia.robot import InertiaOptions, compute_inertials
from thermocomp.io.robots import BUILTIN_ROBOTS, load_robot, robot_dir
from thermocomp.io.urdf import PLACEHOLDER_MASS
from thermocomp.kinematics.model import nominal_model

p = pytest.importorskip("pybullet", reason="pybullet is a dependency of thermocomp (pip install -e .)")

REFERENCE = Path(__file__).resolve().parents[2] / "shared" / "reference"
GOFA = REFERENCE / "robots" / "abb_crb15000_5_95"
#: PyBullet gravity [m/s^2]; the same is given to our code.
G = (0.0, 0.0, -9.81)
#: Both sides compute in double precision from the same doubles (the URDF
#: holds them as repr text): 1e-9 of the largest torque leaves round-off of
#: a 6-link recursion orders of margin, and a link turned or shifted by the
#: URDF's frames, or a lost inertial, is off by far more.
TORQUE_RTOL = 1e-9
N_CONFIGURATIONS = 10


@pytest.fixture
def client() -> Iterator[int]:
    """A fresh PyBullet server (a reused one can keep a removed body's dynamics: test_inertia_builtin.py)."""
    cid = p.connect(p.DIRECT)
    p.setGravity(*G, physicsClientId=cid)
    yield cid
    p.disconnect(physicsClientId=cid)


def check_against_pybullet(urdf: Path, robot: str, inertials, cid: int, rng: np.random.Generator) -> float:
    """Load ``urdf`` and compare inverse dynamics at rest with our gravity torques; return the largest torque [N m]."""
    chain = load_robot(robot)
    model = nominal_model(chain)
    body = p.loadURDF(str(urdf), useFixedBase=True, flags=p.URDF_USE_INERTIA_FROM_FILE, physicsClientId=cid)
    revolute = [j for j in range(p.getNumJoints(body, physicsClientId=cid))
                if p.getJointInfo(body, j, physicsClientId=cid)[2] == p.JOINT_REVOLUTE]
    assert len(revolute) == chain.n_joints
    for k, j in enumerate(revolute):
        info = p.getDynamicsInfo(body, j, physicsClientId=cid)
        assert info[0] == pytest.approx(inertials[f"link{k + 1}"].mass, rel=1e-12)
        # A mesh the URDF names but PyBullet cannot load would leave the link without collision shapes.
        assert p.getCollisionShapeData(body, j, physicsClientId=cid), f"link{k + 1}: no mesh loaded"
    q_all = rng.uniform(chain.lower, chain.upper, (N_CONFIGURATIONS, chain.n_joints))
    q_all[0] = 0.0
    tau_ours = gravity_torques(model, q_all, inertials, gravity=G, tcp_mass=PLACEHOLDER_MASS)
    scale = float(np.max(np.abs(tau_ours)))
    assert scale > 1.0  # not vacuous
    for q, tau in zip(q_all, tau_ours):
        theta = chain.theta_from_q(q)  # the URDF's joint positions are model angles
        tau_theta = np.array(p.calculateInverseDynamics(body, theta.tolist(), [0.0] * chain.n_joints,
                                                        [0.0] * chain.n_joints, physicsClientId=cid))
        # theta = sign q + offset: a torque conjugate to theta is sign times the one conjugate to q.
        np.testing.assert_allclose(tau_theta * chain.sign, tau, rtol=0, atol=TORQUE_RTOL * scale)
    return scale


@pytest.mark.parametrize("name", BUILTIN_ROBOTS)
def test_builtin_meshes_urdf_from_the_command(name, client, tmp_path, capsys, rng):
    meshes = robot_dir(name) / "meshes"
    out = tmp_path / f"{name}_inertial.urdf"
    argv = ["inertia", "--robot", name, "--meshes", str(meshes), "--units", "m", "--total-mass", "20",
            "--corrections", str(tmp_path / "lambda.csv"), "--out", str(out)]
    (tmp_path / "lambda.csv").write_text("link,lambda\n2,0.9\n6,1.2\n")  # lambda too must reach the file
    code = main(argv)
    stdout, stderr = capsys.readouterr()
    assert code == 0, stderr
    assert f"wrote {out}" in stdout
    report = compute_inertials(name, meshes, InertiaOptions(total_mass=20.0, metres_per_unit=1.0),
                               corrections={"link2": 0.9, "link6": 1.2})
    check_against_pybullet(out, name, report.inertials, client, rng)


@pytest.mark.slow
@pytest.mark.skipif(not GOFA.is_dir(), reason=f"GoFa reference meshes not found at {GOFA} (../shared beside the repository)")
def test_real_gofa_meshes_urdf_from_the_command(client, tmp_path, capsys, rng):
    meshes = GOFA / "meshes" / "visual"
    mesh_map = robot_dir("gofa") / "ros_industrial_meshes.csv"
    out = tmp_path / "gofa_inertial.urdf"
    code = main(["inertia", "--robot", "gofa", "--meshes", str(meshes), "--mesh-map", str(mesh_map), "--units", "m",
                 "--total-mass", "28.004", "--fallback", "signed", "--out", str(out)])
    stdout, stderr = capsys.readouterr()
    assert code == 0, stderr
    report = compute_inertials("gofa", meshes, InertiaOptions(28.004, 1.0, "signed"), mesh_map=mesh_map)
    scale = check_against_pybullet(out, "gofa", report.inertials, client, rng)
    assert 10.0 < scale < 200.0  # a 28 kg arm of 0.95 m reach holds tens of N m at joint 2
