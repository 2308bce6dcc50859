"""Hostile input, round 13: the servo, dynamics and mesh commands (helper hostile13's attacks, through the command
line): each class a test that failed before its fix, with several variants.
"""

from __future__ import annotations

import time

import pytest
from test_bad_input import case, refused  # noqa: F401  (fixture)

# ----- servo track: the servo samples over every row and run (paths x speeds x references x controllers x runs)
# ----- are bounded before any is simulated, with a message naming the options; each option was in its range and
# ----- their product ran for years (1,000 runs of line:x at 0.05 mm/s by four controllers: 2e9 samples)


def _models(folder):
    from test_servo_core import RATE, servo_model

    from thermocomp.io.robots import load_robot
    from thermocomp.printing.identification import ServoModels
    from thermocomp.printing.models_toml import models_toml_text

    chain = load_robot("ur5")
    (folder / "m.toml").write_text(models_toml_text(ServoModels(RATE, 4, (servo_model(2),) * 6, chain.joint_names),
                                                    "ur5"))


@pytest.mark.parametrize("options", [
    ["--path", "line:x", "--speed-mm-s", "0.05", "--runs", "1000", "--controller", "mpc-iio", "mpc-io", "pid", "none"],
    ["--path", "line:x", "--speed-mm-s", *[f"{0.1 * k:g}" for k in range(1, 5001)]],
    ["--path", *["line:y"] * 5000, "--speed-mm-s", "10"],
    ["--path", "line:z", "--speed-mm-s", "10", "--runs", "1000", "--controller", "pid", "none"],
    ["--path", "line:x", "--speed-mm-s", "1", "--runs", "100", "--deformation", "d.csv"],
])
def test_a_tracking_campaign_beyond_its_samples_is_refused_naming_its_options(case, capsys, options):
    from thermocomp.app.servo import MAX_TRACK_SAMPLES

    _models(case)
    started = time.perf_counter()
    err = refused(case, capsys, ["servo", "track", "--models", "m.toml", "--out", "o.csv", "--no-progress", *options],
                  1, "--path, --speed-mm-s, --controller and --runs", f"expected at most {MAX_TRACK_SAMPLES:,} servo "
                  "samples over every row and run")
    assert ("twice with --deformation" in err) == ("--deformation" in options)
    assert time.perf_counter() - started < 60


def test_a_tracking_campaign_within_its_samples_goes_on_to_track(case, monkeypatch):
    """The documented campaigns (4 controllers x 10 runs of line:x at 10 mm/s; 2.5 to 40 mm/s x 5 runs; a warm robot)
    are within the bound: the run goes on to simulate (here replaced by an exception)."""
    import numpy as np
    from test_servo_core import RATE

    from thermocomp.app import servo
    from thermocomp.printing import paths, tracking

    class Simulated(Exception):
        pass

    def simulate(*args):
        raise Simulated

    _models(case)
    monkeypatch.setattr(tracking, "track", simulate)
    for speeds, controllers, runs, deformation in [((10.0,), ("mpc-iio", "mpc-io", "pid", "none"), 10, None),
                                                   ((2.5, 5.0, 10.0, 40.0), ("mpc-iio",), 5, None),
                                                   ((10.0,), ("mpc-iio", "none"), 10, case / "d.csv")]:
        samples = sum(paths.line_path("line:x", v, RATE, np.eye(3)).t.size for v in speeds)
        assert samples * len(controllers) * runs * (1 if deformation is None else 2) <= servo.MAX_TRACK_SAMPLES
        job = servo.ServoTrackJob("ur5", case / "m.toml", ("line:x",), speeds, case / "o.csv", controllers=controllers,
                                  runs=runs, deformation=deformation)
        with pytest.raises(Simulated):
            servo.run_track(job)
    assert not (case / "o.csv").exists()
