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
