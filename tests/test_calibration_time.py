"""Calibration in time: the laws beyond the ramp, fitting them, their file, and --time-law from:.

PyBullet is the tracker (its own kinematics); the hidden law and table are the truth.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import assert_located, write
from test_calibration import random_poses, random_table, tracker_pose

from thermocomp import load_robot
from thermocomp.calibration.identify import CalibrationOptions
from thermocomp.calibration.timefit import TimeFitOptions, calibrate
from thermocomp.cli.common import program_settings
from thermocomp.cli.main import build_parser
from thermocomp.deformation.thermal_laws import FirstOrder, TemperatureMap
from thermocomp.deformation.timelaw import LinearRamp, Static
from thermocomp.errors import InputError
from thermocomp.io.timelaw_file import read_time_law, time_law_path, write_time_law
from thermocomp.simulators.pybullet.campaign import simulate_measurements

SCHEDULE = ((0.0, 120.0), (160.0, 400.0))  # works 2 hours, pauses 40 minutes, works again


def test_first_order_law_heats_cools_and_is_continuous():
    law = FirstOrder(40.0, 60.0, SCHEDULE)
    t = np.array([0.0, 40.0, 120.0, 160.0])
    f = law.fraction(t)
    assert f[0] == 0.0
    assert f[1] == pytest.approx(1 - np.exp(-1.0), rel=1e-14)  # one time constant: 63 %
    x120 = 1 - np.exp(-3.0)
    assert f[2] == pytest.approx(x120, rel=1e-14)
    assert f[3] == pytest.approx(x120 * np.exp(-40.0 / 60.0), rel=1e-14)  # cooled for 40 min with tau_cool
    eps = 1e-9
    for edge in (120.0, 160.0):  # no jump where heating switches
        assert law.fraction(edge + eps) == pytest.approx(law.fraction(edge - eps), abs=1e-9)
    # Always on: the textbook step response.
    np.testing.assert_allclose(FirstOrder(25.0).fraction(np.array([10.0, 50.0])), 1 - np.exp(-np.array([0.4, 2.0])),
                               rtol=1e-14)


def _campaign(robot, law, minutes, per_minute, rng, temperature=None, sigma=2e-5):
    chain = load_robot(robot)
    truth = random_table(chain, rng, 1e-4, 3e-4)
    poses = random_poses(chain, rng, 3 * per_minute)
    q = np.vstack([poses[rng.choice(len(poses), per_minute, replace=False)] for _ in minutes])
    mins = np.repeat(minutes, per_minute)
    temps = None if temperature is None else temperature(mins)
    meas = simulate_measurements(chain, truth, q, mins, law.fraction, T_tracker_world=tracker_pose(),
                                 position_noise=sigma, rng=rng, temperature_C=temps)
    return chain, truth, meas


@pytest.mark.slow
def test_tau_of_a_first_order_law_with_a_pause_recovered_within_a_few_percent():
    rng = np.random.default_rng(45)
    law = FirstOrder(45.0, heat_on=SCHEDULE)
    sigma = 1e-5  # 0.01 mm
    chain, truth, meas = _campaign("gofa", law, np.arange(0.0, 301.0, 20.0), 10, rng, sigma=sigma)
    cal = calibrate(chain, meas, CalibrationOptions(position_sigma=sigma, estimate_base=True),
                    TimeFitOptions("first-order", heat_on=SCHEDULE))
    tau, std = cal.law_parameters["tau_min"]
    assert isinstance(cal.law, FirstOrder)
    assert std < 0.015 * 45.0  # this campaign determines tau to about 1 %
    assert abs(tau - 45.0) < 5 * std  # the estimate is within what the noise allows: a few percent
    assert 0.7 < cal.fit.sigma_ratio < 1.4
    # The wrong law (a ramp) cannot explain the same data: residuals far above the noise.
    ramp = calibrate(chain, meas, CalibrationOptions(position_sigma=2e-5, estimate_base=True), TimeFitOptions("ramp"))
    assert ramp.fit.sigma_ratio > 2.0


def test_ramp_measured_only_before_stabilisation_is_reported_not_invented():
    rng = np.random.default_rng(7)
    chain, _, meas = _campaign("ur5", LinearRamp(200.0), np.array([0.0, 40.0, 80.0, 120.0]), 8, rng)
    # Before the ramp's end, T and the table's size are one thing: fraction t / T times D.
    with pytest.raises(InputError, match="cannot identify the ramp law's log_stabilisation_min"):
        calibrate(chain, meas, CalibrationOptions(position_sigma=2e-5), TimeFitOptions("ramp"))


def test_ramp_law_recovered_when_measured_past_stabilisation():
    rng = np.random.default_rng(8)
    chain, _, meas = _campaign("irb140", LinearRamp(180.0), np.arange(0.0, 301.0, 30.0), 6, rng)
    cal = calibrate(chain, meas, CalibrationOptions(position_sigma=2e-5, estimate_base=True), TimeFitOptions("ramp"))
    T, std = cal.law_parameters["stabilisation_min"]
    assert abs(T - 180.0) < 5 * std and abs(T - 180.0) < 0.03 * 180.0


def test_temperature_map_predicts_held_out_minutes():
    rng = np.random.default_rng(9)
    law = FirstOrder(30.0)

    def temperature(minutes):  # one sensor, 15 degrees of rise, 0.05 degree of noise
        return (22.0 + 15.0 * law.fraction(minutes) + rng.normal(scale=0.05, size=minutes.shape))[:, None]

    chain, truth, meas = _campaign("irb140", law, np.arange(0.0, 181.0, 20.0), 6, rng, temperature)
    cal = calibrate(chain, meas, CalibrationOptions(position_sigma=2e-5, estimate_base=True),
                    TimeFitOptions("temperature"))
    assert isinstance(cal.law, TemperatureMap)
    # The map gives the hidden fraction (up to the normalisation at the warmest measurement).
    # The map gives the hidden fraction from noise-free temperatures (up to the normalisation at the
    # warmest measurement); 0.05 degree of noise on 15 degrees of rise leaves about 0.5 %.
    t = np.array([10.0, 50.0, 150.0])
    scale = law.fraction(meas.minute).max()
    clean = 22.0 + 15.0 * law.fraction(t)[:, None]
    np.testing.assert_allclose(cal.law.fraction_from_temperatures(clean) * scale, law.fraction(t), atol=0.01)
    # Between logged minutes the law interpolates the temperature log.
    np.testing.assert_allclose(cal.law.temperatures(meas.minute[::6])[:, 0], meas.temperature_C[::6, 0], atol=0.2)


@pytest.mark.parametrize("law", [Static(), LinearRamp(187.5), FirstOrder(44.8, 61.0, SCHEDULE),
                                 TemperatureMap((0.05, 0.01), (21.0, 22.5), (0.0, 60.0), ((21.0, 22.5), (35.0, 30.0)))])
def test_law_file_round_trip_and_compensate_reads_it(law, tmp_path):
    table = tmp_path / "table.csv"
    write_time_law(law, time_law_path(table), "table.csv", ("fitted by a test",))
    assert (tmp_path / "table.law.toml").is_file()
    back = read_time_law(table)
    assert back == law
    args = build_parser().parse_args(["compensate", "--robot", "irb140", "--deformation", str(table), "--targets",
                                      "t.csv", "--out", "o.csv", "--time-law", f"from:{table}"])
    settings = program_settings(args)
    t = np.linspace(0.0, 300.0, 7)
    np.testing.assert_array_equal(settings.time_law.fraction(t), law.fraction(t))


def test_law_file_errors_name_the_file_and_the_key(tmp_path):
    path = write(tmp_path, 'format = "thermocomp-time-law"\nversion = 1\nlaw = "first-order"\ntau_min = -3\n',
                 "t.law.toml")
    with pytest.raises(InputError, match="tau_min") as info:
        read_time_law(path)
    assert info.value.path == str(path)
    path = write(tmp_path, 'format = "thermocomp-time-law"\nversion = 1\nlaw = "first-order"\ntau = 3\n', "u.law.toml")
    with pytest.raises(InputError, match="unknown key 'tau'"):
        read_time_law(path)
    path = write(tmp_path, 'format = "thermocomp-time-law"\nversion = 1 2\n', "v.law.toml")
    with pytest.raises(InputError) as info:
        read_time_law(path)
    assert_located(info.value, path, 2, 13)  # (a character column, not a CSV column named "13")


@pytest.mark.parametrize(("body", "words"), [
    ('law = [1, 2]\n', "key law"),  # not a name (an unhashable list broke the lookup)
    ('law = "linear-ramp"\nstabilisation_min = ' + "9" * 400 + "\n", "stabilisation_min"),  # beyond a float
    ('law = "linear-ramp"\nstabilisation_min = inf\n', "stabilisation_min"),
    ('law = "first-order"\ntau_min = 1e300\n', "tau_min"),
])
def test_law_file_values_a_float_cannot_hold_are_named(tmp_path, body, words):
    """Found by the fuzz test of the time-law reader: a TypeError and an OverflowError traceback before."""
    path = write(tmp_path, 'format = "thermocomp-time-law"\nversion = 1\n' + body, "x.law.toml")
    with pytest.raises(InputError, match=words) as info:
        read_time_law(path)
    assert info.value.path == str(path)
