"""The entry points' job objects check their options when they are made, before any file is opened, naming
the options as the command line spells them (docs/architecture.md, "One job object per entry point")."""

from __future__ import annotations

import re

import pytest
from helpers import REPO

from thermocomp.app.servo import ServoExciteJob, ServoIdentifyJob, ServoTrackJob
from thermocomp.deformation.timelaw import LinearRamp, Static
from thermocomp.errors import ConfigurationError
from thermocomp.printing.servo_sim import ServoOptions

MISSING = REPO / "no-such-folder" / "nothing.csv"  # never opened: the checks come first


@pytest.mark.parametrize("kwargs, message", [
    ({"law": None}, "expected a time law or a law file (--time-law), exactly one"),
    ({"law_file": "t.law.toml"}, "expected a time law or a law file (--time-law), exactly one"),
    ({"results": "r.csv", "tracker_pose_mm_deg": (0, 0, 0, 0, 0, 0)}, "--tracker-pose and --orientation-noise-deg"),
    ({"results": "r.csv", "orientation_noise_deg": 0.01}, "--tracker-pose and --orientation-noise-deg"),
    ({"poses": 5, "per_minute": 6}, "expected 1 <= per_minute <= poses, got 6, 5"),
    ({"poses": 1000, "minutes": tuple(range(1001))}, "expected at most 1,000,000 poses and measurements"),
    ({"noise_mm": -0.1}, "--noise-mm: expected a finite standard deviation >= 0"),
    ({"noise_mm": float("nan")}, "--noise-mm: expected a finite standard deviation >= 0"),
])
def test_a_track_job_refuses_what_no_run_could_do(kwargs, message):
    from thermocomp.app.track import TrackJob

    fields = {"law": LinearRamp(200.0), **kwargs}
    with pytest.raises(ConfigurationError, match=re.escape(message)):
        TrackJob("irb140", MISSING, MISSING, **fields)


def test_a_track_job_takes_its_minutes_as_floats_and_a_results_run_ignores_the_campaign_counts():
    from thermocomp.app.track import TrackJob

    job = TrackJob("irb140", MISSING, MISSING, Static(), minutes=range(0, 201, 50), poses=7)
    assert job.minutes == (0.0, 50.0, 100.0, 150.0, 200.0) and job.measured_per_minute == 7
    assert TrackJob("irb140", MISSING, MISSING, Static(), results="r.csv", poses=0).results == "r.csv"


def test_the_other_jobs_check_their_ranges_when_made():
    from thermocomp.app.calibrate import CalibrationJob
    from thermocomp.app.coppeliasim import ConventionComparison, FkCheck, Playing, SceneLaw, Showing
    from thermocomp.app.dynamics import DriveGainsJob, SimulateDisturbanceJob
    from thermocomp.app.sim import SimInputs

    law = SceneLaw(Static())
    cases = [
        (lambda: SimInputs("irb140", MISSING), "expected targets or a robot program"),
        (lambda: SimInputs("irb140", MISSING, MISSING, program=MISSING), "expected targets or a robot program"),
        (lambda: CalibrationJob("irb140", MISSING, MISSING, MISSING, suggest=5, candidates=4),
         "--suggest: expected at most --candidates (4) poses, got 5"),
        (lambda: DriveGainsJob(MISSING, MISSING, MISSING, 0.0), "--payload-mass-kg: expected > 0 kg, got 0.0"),
        (lambda: SimulateDisturbanceJob(MISSING, MISSING, MISSING, rate=float("inf")), "--duration-s, --rate-hz"),
        (lambda: FkCheck(configurations=0), "--configurations: expected 1 to 100,000 configurations, got 0"),
        (lambda: Showing(MISSING, law, hold_s=float("nan")), "--hold-s: expected a finite number >= 0"),
        (lambda: Playing(MISSING, law, dwell_s=-1.0), "--dwell-s: expected a finite number >= 0"),
        (lambda: ConventionComparison("irb140", MISSING, minute=10.0),
         "--minute 10: the static convention applies the full table once"),
    ]
    for make, message in cases:
        with pytest.raises(ConfigurationError, match=re.escape(message)):
            make()


LINE = ("line:x",)


@pytest.mark.parametrize("make, message", [
    (lambda: ServoExciteJob("ur5", MISSING, rate_hz=0.5), "--rate-hz: expected a finite number from 1 to 500 Hz, "
                                                          "got 0.5"),
    (lambda: ServoExciteJob("ur5", MISSING, start_deg=(0, -90, float("nan"), 0, 0, 0)),
     "--start-deg: expected a finite number from -3600 to 3600 deg, got nan"),
    (lambda: ServoIdentifyJob("ur5", MISSING, rate_hz=float("inf")), "--rate-hz: expected a finite number"),
    (lambda: ServoIdentifyJob("ur5", MISSING, seed=-1), "--seed: expected a whole number from 0 to 2**63 - 1, got -1"),
    (lambda: ServoIdentifyJob("ur5", MISSING, rate_hz=250.0, servo=ServoOptions(rate_hz=125.0)),
     "--rate-hz 250 differs from the servo's rate 125 Hz"),
    (lambda: ServoTrackJob("ur5", MISSING, LINE, (10.0,), MISSING, runs=0),
     "--runs: expected an integer from 1 to 1000, got 0"),
    (lambda: ServoTrackJob("ur5", MISSING, LINE, (10.0,), MISSING, runs=2.0), "--runs: expected an integer"),
    (lambda: ServoTrackJob("ur5", MISSING, LINE, (10.0, 0.0), MISSING),
     "--speed-mm-s: expected a finite number > 0 and at most 1000 mm/s, got 0.0"),
    (lambda: ServoTrackJob("ur5", MISSING, LINE, (), MISSING), "--speed-mm-s: expected at least one, got none"),
    (lambda: ServoTrackJob("ur5", MISSING, LINE, (10.0,), MISSING, controllers=("mpc",)),
     "--controller: expected one of mpc-iio, mpc-io, pid, none, got 'mpc'"),
    (lambda: ServoTrackJob("ur5", MISSING, LINE, (10.0,), MISSING, deformation=MISSING, law=Static(), minute=-1.0),
     "--minute: expected a finite number from 0 to 1e+06 min, got -1.0"),
    (lambda: ServoTrackJob("ur5", MISSING, LINE, (10.0,), MISSING, law=LinearRamp(100.0)),
     "--stabilisation-min, --time-law and --minute need --deformation (the warm robot)"),
    (lambda: ServoTrackJob("ur5", MISSING, LINE, (10.0,), MISSING, deformation=MISSING, law=Static(),
                           law_file=MISSING), "--stabilisation-min and --time-law: expected one time law, got both"),
])
def test_the_servo_jobs_refuse_an_option_out_of_range_when_made(make, message):
    with pytest.raises(ConfigurationError, match=re.escape(message)):
        make()


def test_a_servo_track_job_takes_its_lists_as_tuples_and_fills_the_identify_jobs_servo():
    job = ServoTrackJob("ur5", MISSING, ["line:x", "line:z"], [2.5, 10], MISSING, controllers=["pid", "none"])
    assert job.paths == ("line:x", "line:z") and job.speeds_mm_s == (2.5, 10) and job.controllers == ("pid", "none")
    assert ServoTrackJob("ur5", MISSING, "line:y", 5.0, MISSING).paths == ("line:y",)
    assert ServoIdentifyJob("ur5", MISSING, rate_hz=250.0).servo.rate_hz == 250.0
    # a recording: the simulated servo is not run, its rate does not matter
    assert ServoIdentifyJob("ur5", MISSING, recording=MISSING, rate_hz=250.0,
                            servo=ServoIdentifyJob("ur5", MISSING).servo).rate_hz == 250.0
