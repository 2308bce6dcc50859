"""Tracker measurements CSV: columns with units, the targets' orientation conventions, located errors."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import assert_located, write

from thermocomp.errors import InputError
from thermocomp.geometry.rotations import matrix_from_euler_xyz, matrix_from_rotvec
from thermocomp.io.measurements import Measurements
from thermocomp.io.measurements_csv import read_measurements_csv, write_measurements_csv

HEADER = "time_min,q1_deg,q2_deg,q3_deg,q4_deg,q5_deg,q6_deg,x_mm,y_mm,z_mm"


def test_position_only_with_temperatures_reads_in_si(tmp_path):
    path = write(tmp_path, f"# tracker log\n{HEADER},temp1_C,temp2_C\n0,0,10,-5,0,30,0,612.5,0.25,700,21.5,22\n"
                           "30,45,-20,10,30,45,90,412.75,410,312.5,30,28.5\n")
    meas = read_measurements_csv(path, n_joints=6)
    assert meas.n == 2 and not meas.has_orientation
    np.testing.assert_allclose(meas.p_tracker_tcp[1], [0.41275, 0.410, 0.3125], rtol=1e-15)
    np.testing.assert_allclose(meas.q[0], np.radians([0, 10, -5, 0, 30, 0]), rtol=1e-15)
    np.testing.assert_array_equal(meas.minute, [0.0, 30.0])
    np.testing.assert_array_equal(meas.temperature_C, [[21.5, 22.0], [30.0, 28.5]])
    assert meas.label(1) == "line 4"


@pytest.mark.parametrize(("columns", "values", "R"), [
    ("euler_xyz_a_deg,euler_xyz_b_deg,euler_xyz_c_deg", "10,20,30", matrix_from_euler_xyz(np.radians([10, 20, 30]))),
    ("rotvec_x_rad,rotvec_y_rad,rotvec_z_rad", "0.1,-0.2,0.3", matrix_from_rotvec([0.1, -0.2, 0.3])),
])
def test_orientation_columns_follow_the_targets_conventions(tmp_path, columns, values, R):
    path = write(tmp_path, f"{HEADER},{columns}\n5,0,0,0,0,0,0,1,2,3,{values}\n")
    meas = read_measurements_csv(path, n_joints=6)
    np.testing.assert_allclose(meas.R_tracker_tcp[0], R, atol=1e-15)


def test_round_trip(tmp_path, rng):
    R = matrix_from_rotvec(rng.normal(size=(4, 3)))
    meas = Measurements(q=rng.normal(size=(4, 6)), p_tracker_tcp=rng.normal(size=(4, 3)),
                        minute=np.array([0.0, 10, 20, 30]), R_tracker_tcp=R, temperature_C=rng.normal(size=(4, 1)))
    write_measurements_csv(meas, tmp_path / "m.csv")
    back = read_measurements_csv(tmp_path / "m.csv", 6)
    np.testing.assert_allclose(back.q, meas.q, rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(back.p_tracker_tcp, meas.p_tracker_tcp, rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(back.R_tracker_tcp, R, atol=1e-14)
    np.testing.assert_allclose(back.temperature_C, meas.temperature_C, rtol=1e-15)


@pytest.mark.parametrize(("text", "line", "column"), [
    (f"{HEADER}\n0,0,0,0,0,0,0,1,2,abc\n", 2, "z_mm"),
    (f"{HEADER}\n-1,0,0,0,0,0,0,1,2,3\n", 2, "time_min"),
    (f"{HEADER}\n0,0,0,0,0,0,0,1,2\n", 2, "z_mm"),
    ("q1_deg,q2_deg,q3_deg,q4_deg,q5_deg,q6_deg,x_mm,y_mm,z_mm\n", 1, "time_min"),
    (f"{HEADER},temp2_C\n0,0,0,0,0,0,0,1,2,3,20\n", 1, "temp2_C"),
    (f"{HEADER},temp1_C\n0,0,0,0,0,0,0,1,2,3,warm\n", 2, "temp1_C"),
    (HEADER.replace("q6_deg,", "") + "\n0,0,0,0,0,0,1,2,3\n", 1, "q6_deg"),
    (f"{HEADER},speed\n", 1, "speed"),
])
def test_bad_input_is_located(tmp_path, text, line, column):
    path = write(tmp_path, text)
    with pytest.raises(InputError) as info:
        read_measurements_csv(path, n_joints=6)
    assert_located(info.value, path, line, column)
