"""Seed 000, Step 4: K_p and T_i of each joint's PI controller (Eq. 7) from a recording at rest under a
disturbance, recorded on PyBullet's rigid-body model of a robot with seed 000 Table IV's controllers."""

from __future__ import annotations

import numpy as np
import pytest
from dynamics_truth import write_robot_urdf
from helpers import simulated_robot, urdf_parameters_of

from thermocomp.cli.main import main
from thermocomp.dynamics.controller import SEED000_TABLE_IV, controllers_from_recording, disturbance_torques, identify_pi
from thermocomp.dynamics.friction import SEED000_TABLE_III
from thermocomp.errors import ConfigurationError, InputError
from thermocomp.inertia.builtin import builtin_inertials
from thermocomp.io.controllers_csv import read_controllers_csv
from thermocomp.io.friction_csv import write_friction_csv

pytest.importorskip("pybullet", reason="pybullet is a dependency of thermocomp (pip install -e .)")


def test_step4_refuses_a_joint_that_never_moves():
    t = np.arange(100) / 300.0
    with pytest.raises(InputError, match="never moves"):
        identify_pi(t, np.zeros(100), np.ones(100))


def test_disturbance_varies_and_stays_within_its_amplitude():
    t = np.arange(0, 60, 0.001)
    d = disturbance_torques(t, [5.0, 2.0])
    assert np.all(np.abs(d) <= [5.0, 2.0])
    assert np.all(np.abs(d).max(axis=0) > 0.8 * np.array([5.0, 2.0]))
    assert abs(np.corrcoef(d.T)[0, 1]) < 0.5  # the joints are pushed differently


def test_mass_matrix_is_the_regressors(tmp_path):
    """PyBullet's mass matrix in the chain's joint order equals the one of thermocomp's own model."""
    from thermocomp.dynamics.regressor import regressor

    urdf = write_robot_urdf("gofa", builtin_inertials("gofa"), tmp_path / "gofa.urdf")
    info = urdf_parameters_of(urdf)
    q = np.radians([10.0, 20.0, -30.0, 40.0, 50.0, 60.0])
    n = info.chain.n_joints
    Y = regressor(info.chain, np.repeat(q[None], n, axis=0), np.zeros((n, n)), np.eye(n), gravity=(0.0, 0.0, 0.0))
    with simulated_robot(urdf) as robot:
        np.testing.assert_allclose(robot.mass_matrix(q), (Y @ info.parameters).T, rtol=0, atol=1e-9)


def test_an_unstable_loop_is_refused(tmp_path):

    urdf = write_robot_urdf("gofa", builtin_inertials("gofa"), tmp_path / "gofa.urdf")
    with simulated_robot(urdf) as robot, pytest.raises(ConfigurationError, match="joint 1: .*needs damping above"):
        robot.pi_at_rest(np.zeros(6), SEED000_TABLE_IV["Kp"], SEED000_TABLE_IV["Ti"],
                         lambda t: disturbance_torques(t, np.ones(6)), 1.0, 100.0, damping=0.0)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["gofa", "ur5"])
def test_step4_on_pybullet_from_the_command_line_returns_table_iv(name, tmp_path, capsys):
    """simulate-recording --controllers (Table IV) at rest under a disturbance, then identify --step 4: the
    controllers come back within 1 % and the fits are the seed's (91.7 .. 96.4 %)."""
    urdf = write_robot_urdf(name, builtin_inertials(name), tmp_path / "truth.urdf")
    table4 = tmp_path / "table4.csv"
    table4.write_text("joint,Kp_Nm_per_rad_s,Ti_s\n" + "".join(
        f"{j + 1},{kp},{ti}\n" for j, (kp, ti) in enumerate(zip(SEED000_TABLE_IV["Kp"], SEED000_TABLE_IV["Ti"]))))
    friction = tmp_path / "table3.csv"
    write_friction_csv(friction, SEED000_TABLE_III)
    rest = tmp_path / "rest.csv"
    assert main(["simulate-recording", "--truth", str(urdf), "--controllers", str(table4), "--friction", str(friction),
                 "--pose-deg", "10,20,-30,40,50,60", "--duration-s", "8", "--rate-hz", "200",
                 "--torque-noise-nm", "0.1", "--seed", "4", "--out", str(rest)]) == 0
    out = tmp_path / "controllers.csv"
    assert main(["identify", "--step", "4", "--robot", name, "--recording", str(rest), "--out", str(out)]) == 0
    assert "Eq. 7" in capsys.readouterr().out
    Kp, Ti = read_controllers_csv(out, 6)
    np.testing.assert_allclose(Kp, SEED000_TABLE_IV["Kp"], rtol=0.01)
    np.testing.assert_allclose(Ti, SEED000_TABLE_IV["Ti"], rtol=0.01)
    from thermocomp.io.recording_csv import read_recording_csv

    rec = read_recording_csv(rest)
    fits = [e.fit_percent for e in controllers_from_recording(rec.time, rec.q, rec.tau)]
    assert min(fits) > 90.0, fits
    np.testing.assert_allclose(rec.q.mean(axis=0), np.radians([10, 20, -30, 40, 50, 60]), atol=1e-3)  # at rest


def test_a_bad_controllers_file_is_a_located_error_and_writes_nothing(tmp_path, capsys):
    urdf = write_robot_urdf("ur5", builtin_inertials("ur5"), tmp_path / "truth.urdf")
    table4 = tmp_path / "table4.csv"
    table4.write_text("# Table IV\njoint,Kp_Nm_per_rad_s,Ti_s\n1,15562,0.2565\n2,3751.8,-0.1861\n")
    out = tmp_path / "rest.csv"
    assert main(["simulate-recording", "--truth", str(urdf), "--controllers", str(table4), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert str(table4) in err and "line 4" in err and "Ti_s" in err and "expected a value > 0" in err, err
    assert not out.exists()
