"""Robot programs in the simulator, and what its pictures say and show.

* ``thermocomp sim --program FILE --headless``: the program's motion targets, in execution order and in the
  controller's configurations, played in PyBullet; PyBullet measures what the compensated and the
  uncompensated program reach (its own kinematics of the regenerated URDF: the oracle).
* ``--screenshot`` pictures carry a legend (robot, program, minute, magnification, largest deviation); the
  largest deviation is the core's uncompensated miss at that minute.
* the automatic magnification keeps every moving link of the magnified robot above the plane it stands on,
  checked with PyBullet's closest points against the table of the cell.
"""

from __future__ import annotations

import csv

import numpy as np
import pytest
from helpers import REPO

pb = pytest.importorskip("pybullet", reason="pybullet is a dependency of thermocomp (pip install -e .)")

from thermocomp.app import sim as app_sim
from thermocomp.cli.main import EXIT_INPUT, EXIT_OK, main
from thermocomp.compensation.compensate import CompensationOptions
from thermocomp.deformation.timelaw import LinearRamp
from thermocomp.simulators.pybullet import cell as sim
from thermocomp.simulators.pybullet.client import connect
from thermocomp.simulators.pybullet.render import read_png_rgb
from thermocomp.simulators.pybullet.robot import DeformedRobot
from thermocomp.simulators.pybullet.scene import load_scene

EXAGGERATED = REPO / "deformations" / "exaggerated.csv"
RAPID = REPO / "examples" / "rapid_program.mod"
UR5_CELL = REPO / "scenes" / "ur5_print_bed.toml"
UR5_PATH = REPO / "scenes" / "ur5_print_path.csv"
URSCRIPT = REPO / "examples" / "urscript_program.script"


def _rows(path):
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def _sim_program(program, out, capsys):
    code = main(["sim", "--robot", "irb140", "--deformation", str(EXAGGERATED), "--program", str(program),
                 "--no-scene", "--minutes", "0,200", "--headless", "--out", str(out)])
    assert code == EXIT_OK, capsys.readouterr().err
    return _rows(out)


@pytest.mark.slow
def test_sim_program_headless_measures_what_the_original_and_the_compensated_program_reach(tmp_path, capsys):
    rows = _sim_program(RAPID, tmp_path / "original.csv", capsys)
    assert len(rows) == 2 * 9  # 9 points (8 motions, a MoveC has two), at two minutes
    at_end = [r for r in rows if r["minute"] == "200"]
    # MoveAbsJ jHome: the controller's joints as written
    assert [float(at_end[0][f"nominal_q{j}_deg"]) for j in range(1, 7)] == pytest.approx([0, 0, 0, 0, 30, 0],
                                                                                        abs=1e-9)
    assert max(float(r["sim_corrected_dist_mm"]) for r in at_end) <= 1e-5  # PyBullet: the compensation reaches
    assert min(float(r["sim_nominal_dist_mm"]) for r in at_end) > 1.0  # and the warm robot without it misses
    for r in at_end:  # the core predicted the uncompensated miss PyBullet measured
        assert float(r["sim_nominal_dist_mm"]) == pytest.approx(float(r["model_nominal_dist_mm"]), abs=1e-6)
    at_start = [r for r in rows if r["minute"] == "0"]
    assert max(float(r["sim_nominal_dist_mm"]) for r in at_start) <= 1e-5  # cold: the program as written

    # the program compensated for the stabilised robot (minute 200), run by the controller on the warm robot,
    # goes where the original's targets are: PyBullet's reached TCP against the original's targets (every point,
    # the MoveAbsJ home too: joint targets are left as written unless asked for)
    compensated = tmp_path / "compensated.mod"
    assert main(["compensate", "--robot", "irb140", "--deformation", str(EXAGGERATED), "--program", str(RAPID),
                 "--joint-targets", "compensate", "--out", str(compensated)]) == EXIT_OK
    played = [r for r in _sim_program(compensated, tmp_path / "compensated.csv", capsys) if r["minute"] == "200"]
    reached = np.array([[float(r[f"sim_nominal_{c}_mm"]) for c in "xyz"] for r in played])
    wanted = np.array([[float(r[f"target_{c}_mm"]) for c in "xyz"] for r in at_end])
    assert np.abs(reached - wanted).max() <= 1e-2  # within the 32-bit rounding of the written numbers
    assert np.abs(reached - wanted).max() < 1e-3 * min(float(r["sim_nominal_dist_mm"]) for r in at_end)


def test_sim_takes_targets_or_a_program(tmp_path, capsys):
    code = main(["sim", "--robot", "irb140", "--deformation", str(EXAGGERATED), "--program", str(RAPID),
                 "--targets", str(REPO / "examples" / "targets_random50.csv"), "--headless",
                 "--out", str(tmp_path / "m.csv")])
    assert code == EXIT_INPUT and "one of the two" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


@pytest.fixture(scope="module")
def ur5_setup():
    options = CompensationOptions(time_law=LinearRamp(), minutes=(200.0,))
    return app_sim.load_setup(app_sim.SimInputs("ur5", EXAGGERATED, UR5_PATH, scene=UR5_CELL, options=options))


@pytest.mark.slow
def test_the_legend_names_the_picture_and_the_deviation_is_the_cores(tmp_path):
    from helpers import run_targets

    setup = app_sim.load_setup(app_sim.SimInputs("ur5", EXAGGERATED, program=URSCRIPT, scene=UR5_CELL,
                           options=CompensationOptions(time_law=LinearRamp(), minutes=(0.0, 200.0))))
    plain = sim.save_screenshot(setup, tmp_path / "plain.png", magnification=2.0, width=320, height=240,
                                legend=False)
    shot = sim.save_screenshot(setup, tmp_path / "legend.png", magnification=2.0, width=320, height=240)
    a, b = read_png_rgb(plain.path), read_png_rgb(shot.path)
    changed = np.argwhere(np.any(a != b, axis=2))
    assert len(changed) > 500  # text was written ...
    assert changed[:, 0].max() < 240 // 3 and changed[:, 1].min() < 10  # ... in the upper left corner only
    robot, minute, deviation = shot.legend
    assert robot == "robot ur5; program urscript_program.script"
    assert minute == "minute 200; deformation magnified x2 (display only)"
    at_200 = CompensationOptions(time_law=LinearRamp(), minutes=(200.0,))
    report = run_targets(setup.chain, setup.table, setup.program, None, options=at_200, allow_failures=True)
    assert shot.deviation == pytest.approx(report.summary.uncompensated_max_position, rel=1e-9)
    assert deviation.endswith(f"{report.summary.uncompensated_max_position * 1e3:.4g} mm")


def _deepest_into_table(setup, magnification, q_rows):
    """The deepest penetration [m] (negative) of a moving link of the magnified robot into the cell's table,
    over ``q_rows``, from PyBullet's closest points (not the AABBs the cap uses)."""
    fraction = max(setup.fraction(m) for m in setup.minutes)
    deepest = np.inf
    with connect("direct") as client, sim.work_directory() as work:
        bodies = load_scene(client, setup.scene)
        table = bodies.body["table"]
        robot = DeformedRobot(client, setup.chain, setup.table, work, setup.geometry(work / "meshes"))
        body = robot.show(fraction, magnification)
        links = [i for name, i in body.link_index.items() if name not in ("world", "base")]
        for q in q_rows:
            body.set_q(q)
            for link in links:
                for point in pb.getClosestPoints(body.body, table, 0.05, linkIndexA=link, physicsClientId=client.id):
                    deepest = min(deepest, point[8])
    return deepest


@pytest.mark.slow
def test_the_magnification_is_capped_where_the_robot_would_dive_through_its_table(ur5_setup):
    q, ok = sim.program_configurations(ur5_setup)
    q_rows = np.vstack([ur5_setup.chain.home[None], q[ok]])
    assert _deepest_into_table(ur5_setup, 1.0, q_rows) > -1e-3  # the real robot stays on its table
    assert _deepest_into_table(ur5_setup, 20.0, q_rows) < -0.02  # x20 (the docs' old example) dives through it
    capped = sim.magnification_within_cell(ur5_setup, 20.0)
    assert 1.0 <= capped < 20.0
    assert _deepest_into_table(ur5_setup, capped, q_rows) > -sim.BELOW_PLANE_SLACK - 1e-3
    assert sim.automatic_magnification(ur5_setup, 200.0) <= sim.display_magnification(ur5_setup, 200.0)


@pytest.mark.slow
def test_the_gui_plays_a_program_with_a_scripted_panel(tmp_path):
    """The GUI's loop (DIRECT, a scripted panel): compensate, then play the program's points in its order."""
    from thermocomp.simulators.pybullet.gui import ScriptedPanel, SimGui

    setup = app_sim.load_setup(app_sim.SimInputs("irb140", EXAGGERATED, program=RAPID,
                           options=CompensationOptions(time_law=LinearRamp(), minutes=(0.0, 200.0))))
    assert setup.program.n_targets == 9 and setup.program.names[0].startswith("1:line")
    panel = ScriptedPanel({2: {"compensate": 1}, 3: {"play_corrected": 1}})
    with connect("direct") as client:
        gui = SimGui(setup, client, tmp_path / "gui", panel, compensate=app_sim.compensate_for_gui, play_interval=0.0,
                     start_minute=200.0)
        summary = gui.run(max_frames=16, frame_seconds=0.0)
        assert summary.planned and summary.rows_played == 9  # every point of the program, once
        assert gui.plan.corrected_error[gui.plan.ok].max() <= 1e-8  # PyBullet: each point reached
        assert len(gui.path_items) == 8
        gui.cell.close()
