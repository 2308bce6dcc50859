"""Hostile input, round 14: the servo commands' long work (helper hostile14's attacks, through the command line and
the jobs): each class a test that failed before its fix, with several variants.
"""

from __future__ import annotations

import pytest
from test_bad_input import case, refused, run_cli  # noqa: F401  (fixture)

from thermocomp.errors import ConfigurationError

# ----- servo excite / identify: the identification experiment's rate is bounded by UR's controllers' (125 Hz, 500 Hz
# ----- e-Series), stated in --rate-hz's help and checked before any work, naming the option. At 1000 Hz, in range
# ----- before, servo identify simulated 276,000 samples for over 5 minutes without a word.


@pytest.mark.parametrize("action", ["excite", "identify"])
@pytest.mark.parametrize("rate", ["500.5", "1000"])
def test_an_experiment_rate_beyond_a_ur_controllers_is_refused_naming_the_option(case, capsys, action, rate):
    refused(case, capsys, ["servo", action, "--out", "o.toml", "--rate-hz", rate], 64, "--rate-hz",
            "from 1 to 500 Hz", f"got {rate}")


@pytest.mark.parametrize("make", [
    lambda rate: __import__("thermocomp.app.servo", fromlist=["x"]).ServoExciteJob("ur5", "o.script", rate_hz=rate),
    lambda rate: __import__("thermocomp.app.servo", fromlist=["x"]).ServoIdentifyJob("ur5", "o.toml", rate_hz=rate),
])
def test_an_experiment_job_beyond_the_bound_is_refused_naming_the_option(make):
    from thermocomp.app.servo import RATE_HZ_RANGE

    with pytest.raises(ConfigurationError, match=r"--rate-hz: expected a finite number from 1 to 500 Hz, got 1000"):
        make(1000.0)
    assert make(RATE_HZ_RANGE[1]).rate_hz == 500.0


@pytest.mark.parametrize("action", ["excite", "identify"])
def test_the_experiment_rate_bound_is_stated_in_the_help_as_checked(capsys, action):
    from thermocomp.app.servo import RATE_HZ_RANGE
    from thermocomp.cli.option_ranges import RANGES

    code, out, _ = run_cli(capsys, ["servo", action, "--help"])
    assert code == 0
    help_text = " ".join(out.split())
    assert f"--rate-hz RATE_HZ servo rate [Hz], 1 to {RATE_HZ_RANGE[1]:g}:" in help_text
    assert (RANGES[f"servo {action} --rate-hz"].low, RANGES[f"servo {action} --rate-hz"].high) == RATE_HZ_RANGE


# ----- servo identify and servo track: progress moves during each long phase. identify had no progress at all (the
# ----- simulation of the experiment, then the identification of 6 joints x 9 orders); track's bar counted the
# ----- servo samples only, and a path of 10,000 targets spent 55 s in the inverse kinematics of its 250,000 samples
# ----- before its first tick.


class Recorder:
    """A progress callback that knows phases: every (phase, done, total) it heard."""

    def __init__(self) -> None:
        self.events: list[tuple[str, int | None, int | None]] = []
        self.name = "(none)"

    def phase(self, name, total, unit=None):
        self.name = name
        self.events.append((name, None, total))

    def __call__(self, done, total):
        self.events.append((self.name, done, total))

    def counts(self, name: str) -> list[tuple[int, int]]:
        return [(d, t) for n, d, t in self.events if n == name and d is not None]

    def phases(self) -> list[str]:
        return [n for n, d, _ in self.events if d is None]


def _moves_to_its_total(counts: list[tuple[int, int]], total: int, ticks: int) -> None:
    """Counts that rise from the first step to ``total`` in at least ``ticks`` steps, every one of the same total."""
    assert len(counts) >= ticks
    assert {t for _, t in counts} == {total}
    done = [d for d, _ in counts]
    assert done == sorted(done) and (done[0] < total or len(done) == 1) and done[-1] == total


def test_servo_identify_progress_moves_while_it_simulates_then_while_it_identifies(case):
    from thermocomp.app.servo import ServoIdentifyJob, run_identify
    from thermocomp.printing.identification import IdentificationOptions, layout

    rate = 7.0  # (the lowest rate the multi-sine takes: 1,932 samples, seconds of simulation)
    recorder = Recorder()
    result = run_identify(ServoIdentifyJob("ur5", case / "o.toml", rate_hz=rate), progress=recorder)
    options = IdentificationOptions()
    assert recorder.phases() == ["simulating the experiment", "identifying"]
    _moves_to_its_total(recorder.counts("simulating the experiment"), 6 * layout(options, rate).length, 1000)
    _moves_to_its_total(recorder.counts("identifying"), 6 * len(options.orders), 6 * len(options.orders))
    assert result.written == (case / "o.toml",)


def test_servo_identify_draws_each_phase_on_the_command_line(case, capsys):
    code, out, err = run_cli(capsys, ["servo", "identify", "--out", "o.toml", "--rate-hz", "7", "--progress"])
    assert code == 0, err
    lines = err.replace("\r", "\n").splitlines()
    assert any(line.startswith("simulating the experiment [####") and " 1,932/1,932 samples" in line for line in lines)
    assert any(line.startswith("identifying [####") and " 54/54 models" in line for line in lines)


def _track_recorded(case, monkeypatch, path: str, deformation: bool):
    """Run servo track (its simulation replaced by steps of the samples) with a :class:`Recorder`; the recorder,
    a plain ``(done, total)`` callback's counts, and the samples of each row's path."""
    import numpy as np
    from test_bad_input_hostile13 import _models

    from thermocomp.app import servo
    from thermocomp.printing import tracking

    samples = []

    def simulated(open_sim, controller, models, q_ref, qd_ref, runs, error_of, mpc, pid, step):
        samples.append(q_ref.shape[0])
        for _ in range(runs * q_ref.shape[0]):
            step()
        return tracking.TrackingResult(np.zeros((runs, q_ref.shape[0], 2)))

    _models(case)
    (case / "p.csv").write_text("name,x_mm,y_mm,z_mm,euler_xyz_a_deg,euler_xyz_b_deg,euler_xyz_c_deg\n"
                                + "".join(f"P{k},{400 + 20 * (k % 2)},-100,300,180,0,0\n" for k in range(40)))
    monkeypatch.setattr(tracking, "track", simulated)
    job = servo.ServoTrackJob("ur5", case / "m.toml", (path,), (40.0,), case / "o.csv",
                              controllers=("none", "pid"), runs=2,
                              deformation=case / "d.csv" if deformation else None)
    recorder, plain = Recorder(), []
    servo.run_track(job, progress=recorder)
    (case / "o.csv").unlink()
    samples.clear()
    servo.run_track(job, progress=lambda done, total: plain.append((done, total)))
    return recorder, plain, samples


@pytest.mark.parametrize(("path", "deformation"), [("line:x", False), ("p.csv", False), ("line:y", True)])
def test_servo_track_progress_moves_while_it_builds_the_references_then_while_it_tracks(case, monkeypatch, path,
                                                                                         deformation):
    recorder, plain, samples = _track_recorded(case, monkeypatch, path, deformation)
    references = 2 if deformation else 1
    assert samples == [samples[0]] * (2 * references)  # (two controllers of each reference)
    n = samples[0]
    assert recorder.phases() == ["reading", "paths", "joint references", "tracking"]
    _moves_to_its_total(recorder.counts("paths"), 1, 1)
    _moves_to_its_total(recorder.counts("joint references"), n * references, n * references // 64)
    tracked = n * references * 2 * 2  # references x controllers x runs
    _moves_to_its_total(recorder.counts("tracking"), tracked, tracked)
    assert plain == recorder.counts("tracking")  # a plain (done, total) callback: the servo samples only, as before


# ----- coppeliasim: a scene robot from a stranger is read in round trips linear in its tree, and its joints are
# ----- bounded (naming --robot-path). Each joint's walk up to the base asked the server for every ancestor's parent
# ----- again: a chain of 300 joints took 45 s, one of 3,000 hours, without a word.


def _deeper(extra: int, wide: bool = False):
    """A fake IRB140 scene with ``extra`` revolute joints hung below its sixth, each under a link shape (``wide``: all
    side by side under the sixth's link); its server and its number of objects."""
    import numpy as np
    from coppeliasim_fake import FakeCoppeliaSim, build_irb140_scene
    from coppeliasim_fake.irb140 import JOINT_REVOLUTE, OBJECT_JOINT, OBJECT_SHAPE

    scene = build_irb140_scene()
    parent = max(h for h, o in scene.objects.items() if o.kind == OBJECT_SHAPE)
    for k in range(extra):
        joint = scene.add("joint", OBJECT_JOINT, parent, T_world=(np.array([0.5, 0.0, 0.8 + 0.01 * k]), np.eye(3)),
                          joint_type=JOINT_REVOLUTE, interval=(-1.0, 2.0))
        link = scene.add("link", OBJECT_SHAPE, joint, T_world=(np.array([0.5, 0.0, 0.805 + 0.01 * k]), np.eye(3)))
        parent = parent if wide else link
    return FakeCoppeliaSim(scene, lifetime_s=60.0).start(), len(scene.objects)


@pytest.mark.parametrize(("extra", "wide"), [(95, False), (3000, True)])
def test_a_scene_robot_beyond_the_joint_bound_is_refused_naming_the_option(case, capsys, extra, wide):
    from thermocomp.simulators.coppeliasim.scene import MAX_SCENE_JOINTS

    server, _ = _deeper(extra, wide)
    try:
        refused(case, capsys, ["coppeliasim", "read-robot", "--port", server.port, "--timeout-s", "5", "--out", "r.csv"],
                1, "'/IRB140' (--robot-path)", f"expected at most {MAX_SCENE_JOINTS} joints under a robot's base",
                f"got {6 + extra:,}")
        assert server.calls.count("sim.getObjectParent") == 0  # (refused before any walk)
    finally:
        server.stop()


@pytest.mark.parametrize("extra", [0, 10, 20])
def test_a_scene_robot_is_read_in_round_trips_linear_in_its_tree(case, capsys, extra):
    server, objects = _deeper(extra)
    try:
        code, out, err = run_cli(capsys, ["coppeliasim", "read-robot", "--port", server.port, "--timeout-s", "5",
                                          "--out", "r.csv"])
        assert code == 0, err
        assert len((case / "r.csv").read_text().splitlines()) >= 6 + extra
        assert server.calls.count("sim.getObjectParent") <= objects  # each object's parent asked once at most
    finally:
        server.stop()


# ----- servo track: a targets path the robot cannot follow is refused at the line of the target the failing sample
# ----- moves toward (the message named no file, no line, and the inverse kinematics' status as a bare number: "--path:
# ----- the robot cannot reach the path at 3.152 s (sample 394): 3")

_HEAD = "name,x_mm,y_mm,z_mm,euler_xyz_a_deg,euler_xyz_b_deg,euler_xyz_c_deg\n"


@pytest.mark.parametrize(("rows", "speed", "line", "words"), [
    (["P1,400,-100,300,180,0,0", "P2,420,-100,300,180,0,0", "P3,4000,-100,300,180,0,0"], "100", 4,
     "cannot reach the path at"),
    (["P1,400,-100,300,180,0,0", "P2,4000,-100,300,180,0,0", "P3,420,-100,300,180,0,0"], "100", 3,
     "cannot reach the path at"),
    (["P1,400,-100,300,180,0,0", "P2,150,-150,300,180,0,0", "P3,150,150,300,180,0,0"], "1000", 4,
     "joint 1 would turn at"),
])
def test_a_targets_path_the_robot_cannot_follow_is_refused_at_its_targets_line(case, capsys, rows, speed, line, words):
    from test_bad_input_hostile13 import _models

    _models(case)
    (case / "p.csv").write_text(_HEAD + "\n".join(rows) + "\n")
    err = refused(case, capsys, ["servo", "track", "--models", "m.toml", "--path", "line:x", "p.csv", "--speed-mm-s",
                                 speed, "--out", "o.csv", "--no-progress"], 1, f"p.csv, line {line}: --path: ", words)
    if "reach" in words:
        assert err.rstrip().endswith("): unreachable")


def test_each_sample_of_a_targets_path_names_the_line_of_the_target_it_moves_toward():
    import numpy as np

    from thermocomp.printing.paths import targets_path

    p = np.array([[0.4, 0.0, 0.3], [0.5, 0.0, 0.3], [0.5, 0.2, 0.3], [0.5, 0.2, 0.35]])
    path = targets_path(np.tile(np.eye(3), (4, 1, 1)), p, 100.0, 125.0, "p.csv", [2, 5, 9, 12])
    x, y, z = path.p_world_tcp.T
    expected = np.where(x < 0.5 - 1e-12, 5, np.where(y < 0.2 - 1e-12, 9, np.where(z > 0.3 + 1e-12, 12, 9)))
    expected[0] = 2  # (at rest on the first target)
    moving = (x > 0.4) & (z < 0.35 - 1e-12)
    assert path.source == "p.csv"
    np.testing.assert_array_equal(path.lines[moving], expected[moving])
    assert path.where(0) == {"path": "p.csv", "row": 2} and path.where(path.t.size - 1) == {"path": "p.csv", "row": 12}


# ----- dynamics (identify, payload, collisions): a recording of a robot at rest, or a low cutoff at a high rate, is
# ----- filtered without losing its digits. A joint holding one value throughout had a "band" of 0.009 Hz from the
# ----- round-off of removing its mean, and the Butterworth filter's transfer-function polynomials at that cutoff
# ----- (0.035 Hz at 1 kHz) lost every digit: a robot at rest for 17 minutes gave torque errors of 1e134 N m and
# ----- 142,856 false collisions.


@pytest.mark.parametrize("cutoff_hz", [0.035, 0.2, 1.0, 20.0])
def test_the_lowpass_keeps_a_held_signal_at_every_cutoff(cutoff_hz):
    import numpy as np

    from thermocomp.dynamics.filtering import lowpass

    x = np.ones((50_000, 2)) * [1.0, -1.5707963267948966]
    np.testing.assert_allclose(lowpass(x, 1000.0, cutoff_hz), x, rtol=0, atol=1e-7)


@pytest.mark.parametrize("value", [0.0, 1.0, -1.5707963267948966, 0.17453292519943298])
def test_a_joint_holding_one_value_has_no_band(value):
    import numpy as np

    from thermocomp.dynamics.filtering import bandwidth, choose_cutoff

    rng = np.random.default_rng(3)
    t = np.arange(200_000) / 1000.0
    q = np.column_stack([np.full(t.size, value), np.full(t.size, 2.0 * value + 0.3),
                         0.5 * np.sin(2 * np.pi * 0.5 * t) + 1e-6 * rng.standard_normal(t.size)])
    band = bandwidth(q, 1000.0)
    assert band[0] == 0.0 and band[1] == 0.0
    assert 0.4 <= band[2] <= 0.6  # (the moving joint keeps its band)
    assert choose_cutoff(q[:, :2], 1000.0).bandwidth == 0.0


@pytest.mark.slow
def test_collisions_on_a_long_recording_at_rest_flags_nothing(case, capsys):
    from dynamics_truth import write_robot_urdf

    from thermocomp.inertia.builtin import builtin_inertials

    write_robot_urdf("irb140", builtin_inertials("irb140"), case / "r.urdf")
    row = "0.0,0.17453292519943298,-1.5707963267948966,0.0,0.0,0.0,0.0227,-0.0118,-0.0055,0,-0.00049,0"
    (case / "rec.csv").write_text("time_s,q1_rad,q2_rad,q3_rad,q4_rad,q5_rad,q6_rad,"
                                  + ",".join(f"tau{j}_Nm" for j in range(1, 7)) + "\n"
                                  + "".join(f"{k / 1000!r},{row}\n" for k in range(400_000)))
    code, out, err = run_cli(capsys, ["collisions", "--robot", "r.urdf", "--recording", "rec.csv", "--threshold-nm",
                                      "1e5"])
    assert code == 0, err
    assert out.splitlines()[0].endswith("none"), out
    errors = [float(line.split("max |TE| ")[1].split(" N m")[0]) for line in out.splitlines() if "max |TE|" in line]
    assert len(errors) == 6 and max(errors) < 1e3  # (the recorded torques against the model's gravity: tens of N m)
