"""Seed 000, Step 4: K_p and T_i of each joint's PI controller (Eq. 7) from a recording at rest under a
disturbance, on simulated joints with seed 000 Table IV's controllers."""

from __future__ import annotations

import numpy as np
import pytest

from thermocomp.dynamics.controller import SEED000_TABLE_IV, identify_pi, simulate_pi_at_rest
from thermocomp.errors import InputError


def disturbance(t):
    """A few N m, varying in time (the seed: not large enough to trigger the safety stop)."""
    return 3 * np.sin(2 * np.pi * 0.7 * t) + 2 * np.sin(2 * np.pi * 2.3 * t + 1) + 1.5 * np.sign(np.sin(2 * np.pi * 0.3 * t))


@pytest.mark.parametrize("joint", range(6))
def test_step4_returns_table_iv(joint):
    Kp, Ti = SEED000_TABLE_IV["Kp"][joint], SEED000_TABLE_IV["Ti"][joint]
    J = 0.5 if joint < 3 else 0.05  # kg m^2 seen by the joint at the pose
    t, q, tau = simulate_pi_at_rest(J, Kp, Ti, disturbance, duration=10.0, rate=300.0, viscous=3.4, hold_torque=20.0,
                                    setpoint=0.3, position_noise=1e-6, torque_noise=0.1,
                                    rng=np.random.default_rng(joint))
    est = identify_pi(t, q, tau, joint)
    assert est.Kp == pytest.approx(Kp, rel=0.01)
    assert est.Ti == pytest.approx(Ti, rel=0.01)
    assert est.setpoint == pytest.approx(0.3, abs=1e-5)
    assert est.fit_percent > 90.0  # the seed's fits: 91.7 .. 96.4 %


def test_step4_refuses_a_joint_that_never_moves():
    t = np.arange(100) / 300.0
    with pytest.raises(InputError, match="never moves"):
        identify_pi(t, np.zeros(100), np.ones(100))


def test_joint_inertias_equal_pybullet_mass_matrix(tmp_path):
    pybullet = pytest.importorskip("pybullet")
    from dynamics_truth import write_robot_urdf

    from thermocomp.dynamics.controller import joint_inertias
    from thermocomp.inertia.builtin import builtin_inertials
    from thermocomp.io.urdf_inertials import read_urdf_parameters

    urdf = write_robot_urdf("gofa", builtin_inertials("gofa"), tmp_path / "gofa.urdf")
    info = read_urdf_parameters(urdf)
    q = np.radians([10.0, 20.0, -30.0, 40.0, 50.0, 60.0])
    cid = pybullet.connect(pybullet.DIRECT)
    try:
        body = pybullet.loadURDF(str(urdf), useFixedBase=True, flags=pybullet.URDF_USE_INERTIA_FROM_FILE,
                                 physicsClientId=cid)
        M = np.array(pybullet.calculateMassMatrix(body, q.tolist(), physicsClientId=cid))
    finally:
        pybullet.disconnect(cid)
    np.testing.assert_allclose(joint_inertias(info.chain, info.parameters, q), np.diag(M), rtol=1e-9)


def test_step4_from_the_command_line(tmp_path, capsys):
    from thermocomp.cli.main import main
    from thermocomp.io.recording_csv import Recording, write_recording_csv

    columns = [simulate_pi_at_rest(0.4, SEED000_TABLE_IV["Kp"][j], SEED000_TABLE_IV["Ti"][j],
                                   lambda t, j=j: disturbance(t + j), duration=6.0, rate=300.0, viscous=3.4,
                                   hold_torque=5.0 * j, setpoint=0.1 * j, position_noise=1e-6, torque_noise=0.1,
                                   rng=np.random.default_rng(10 + j)) for j in range(6)]
    t = columns[0][0]
    rec = tmp_path / "rest.csv"
    write_recording_csv(rec, Recording(time=t, q=np.column_stack([c[1] for c in columns]),
                                       tau=np.column_stack([c[2] for c in columns])))
    out = tmp_path / "controllers.csv"
    assert main(["identify", "--step", "4", "--robot", "gofa", "--recording", str(rec), "--out", str(out)]) == 0
    assert "Eq. 7" in capsys.readouterr().out
    rows = [line.split(",") for line in out.read_text().splitlines()[2:]]
    np.testing.assert_allclose([float(r[1]) for r in rows], SEED000_TABLE_IV["Kp"], rtol=0.01)
    np.testing.assert_allclose([float(r[2]) for r in rows], SEED000_TABLE_IV["Ti"], rtol=0.01)
