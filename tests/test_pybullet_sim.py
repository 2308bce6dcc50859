"""The deformed robot in PyBullet (thermocomp.simulators.pybullet), headless.

What is checked, against the issue's verification list:

* every built-in robot loads (built-in envelope meshes and their primitive
  stand-ins), fast enough to reload on a slider;
* the TCP PyBullet computes for the deformed model equals our extended FK
  (seed 002, Eqs. 18-22) to the solver's tolerances, whatever inertial the
  TCP link carries and across reloads;
* a compensated program played in PyBullet reaches its targets within the
  solver's tolerance, and the uncompensated one misses by what the core predicts;
* a deliberate collision (with the cell, with itself) is found and a clear
  configuration is not (seed 004, Section 3-3);
* a TinyRenderer picture is not blank and shows the robot;
* the command line, through its real entry point; the GUI's logic with a
  scripted panel in DIRECT mode (the window itself: test_pybullet_gui.py).
"""

from __future__ import annotations

import csv
import tempfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from helpers import REPO, write

from thermocomp.compensation.compensate import CompensationOptions
from thermocomp.compensation.targets import Targets
from thermocomp.deformation.apply import deformed_model
from thermocomp.deformation.table import DeformationTable
from thermocomp.errors import InputError
from thermocomp.geometry.rotations import matrix_from_euler_xyz, rotation_angle
from thermocomp.io.robots import BUILTIN_ROBOTS, load_robot
from thermocomp.io.urdf import LinkContent
from thermocomp.kinematics.fk import fk
from thermocomp.kinematics.ik import Status, solve_ik
from thermocomp.kinematics.model import nominal_model
from thermocomp.tolerances import (
    IK_ORIENTATION_TOL,
    IK_POSITION_TOL,
    ROUNDTRIP_POSITION_TOL,
)

pb = pytest.importorskip("pybullet", reason="pybullet is a dependency of thermocomp (pip install -e .)")

from thermocomp.app import sim as app_sim
from thermocomp.cli.main import main
from thermocomp.simulators.pybullet import cell as sim
from thermocomp.simulators.pybullet.client import Client, connect
from thermocomp.simulators.pybullet.collision import (
    CollisionOptions,
    check_configuration,
    self_pairs,
)
from thermocomp.simulators.pybullet.conversions import (
    matrix_from_quat_xyzw,
    quat_xyzw_from_matrix,
)
from thermocomp.simulators.pybullet.geometry import (
    RobotGeometry,
    builtin_geometry,
    primitive_geometry,
    robot_geometry,
)
from thermocomp.simulators.pybullet.gui import ScriptedPanel, SimGui
from thermocomp.simulators.pybullet.render import read_png_rgb
from thermocomp.simulators.pybullet.robot import DeformedRobot, load_model
from thermocomp.simulators.pybullet.scene import load_scene

SCENES = REPO / "scenes"
IRB140_CELL = SCENES / "irb140_paper_cell.toml"
UR5_CELL = SCENES / "ur5_print_bed.toml"
EXAGGERATED = REPO / "deformations" / "exaggerated.csv"
ZERO = REPO / "deformations" / "zero.csv"
RANDOM50 = REPO / "examples" / "targets_random50.csv"

#: PyBullet's double-precision forward kinematics of our URDF agrees with
#: ours to round-off (tests/test_pybullet_oracle.py measures ~1e-15 m); a
#: solution converged to IK_POSITION_TOL is therefore measured within
#: IK_POSITION_TOL plus this.
ROUNDOFF = ROUNDTRIP_POSITION_TOL

@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    with connect("direct") as c:
        yield c


@pytest.fixture(scope="module")
def workdir() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="thermocomp_test_") as w:
        yield Path(w)


def random_table(n: int, rng: np.random.Generator) -> DeformationTable:
    def rows(k: int) -> np.ndarray:
        return np.hstack([rng.uniform(-3e-3, 3e-3, (k, 3)), rng.uniform(-0.02, 0.02, (k, 3))])

    return DeformationTable(joints=rows(n), base=rows(1)[0], tool=rows(1)[0], source="random")


# --- conventions ------------------------------------------------------------------------------


def assert_tcp_is_our_fk(body, model, q) -> None:
    """PyBullet's TCP of ``body`` at every row of ``q`` is our extended FK of ``model``, to the solver tolerances."""
    R_ours, p_ours = fk(model, q)
    for k in range(q.shape[0]):
        body.set_q(q[k])
        R, p = body.tcp_pose()
        np.testing.assert_allclose(p, p_ours[k], rtol=0, atol=IK_POSITION_TOL)
        assert rotation_angle(R.T @ R_ours[k]) < IK_ORIENTATION_TOL

def test_quaternion_order_matches_pybullet(client: Client) -> None:
    """PyBullet's quaternions are (x, y, z, w): our conversions agree with PyBullet's own."""
    rng = np.random.default_rng(1)
    for euler in rng.uniform(-np.pi, np.pi, (20, 3)):
        quat_xyzw = pb.getQuaternionFromEuler(euler.tolist(), physicsClientId=client.id)
        R_pb = np.array(pb.getMatrixFromQuaternion(quat_xyzw, physicsClientId=client.id)).reshape(3, 3)
        np.testing.assert_allclose(matrix_from_quat_xyzw(quat_xyzw), R_pb, atol=1e-15)
        q = quat_xyzw_from_matrix(R_pb)
        assert abs(abs(float(np.dot(q, quat_xyzw))) - 1.0) < 1e-12


# --- loading and reloading --------------------------------------------------------------------


@pytest.mark.parametrize("robot", BUILTIN_ROBOTS)
def test_builtin_robot_loads_with_its_meshes(client: Client, workdir: Path, robot: str) -> None:
    chain = load_robot(robot)
    geometry = robot_geometry(chain, workdir, robot=robot)
    body = load_model(client, nominal_model(chain), workdir / f"{robot}_nominal.urdf", geometry)
    try:
        assert list(body.link_index) == ["world", "base"] + [f"link{i}" for i in range(1, 7)] + ["tcp"]
        assert len(body.joint_index) == chain.n_joints
        for name in ("base", "link1", "link6"):
            shapes = pb.getCollisionShapeData(body.body, body.link_index[name], physicsClientId=client.id)
            assert shapes, f"{robot} {name} has no collision shape"
        body.set_q(chain.home)
        assert check_configuration(body, self_pairs(chain, geometry), {}, None, 0.0) == []  # home is clear
    finally:
        body.remove()


@pytest.mark.parametrize("robot", BUILTIN_ROBOTS)
def test_primitive_stand_in_meshes_load_and_home_is_clear(client: Client, workdir: Path, robot: str) -> None:
    chain = load_robot(robot)
    geometry = primitive_geometry(chain, workdir / "primitives")
    assert sorted(geometry.links) == ["base"] + [f"link{i}" for i in range(1, 7)]
    body = load_model(client, nominal_model(chain), workdir / f"{robot}_primitive.urdf", geometry)
    try:
        body.set_q(chain.home)
        assert check_configuration(body, self_pairs(chain, geometry), {}, None, 0.0) == []
    finally:
        body.remove()


def test_builtin_meshes_are_used_when_present() -> None:
    for robot in BUILTIN_ROBOTS:
        found = builtin_geometry(robot)
        if found is None:
            pytest.skip(f"robots/{robot}/meshes is not complete yet")
        assert all(Path(c.visual_mesh).is_file() for c in found.links.values())


def test_reload_is_fast_and_not_fooled_by_pybullets_urdf_cache(client: Client, workdir: Path) -> None:
    """PyBullet caches a URDF by file name: each reload must load the new deformation (its time is make bench's,
    bench/live_reload.py)."""
    chain = load_robot("irb140")
    table = DeformationTable.from_mm_deg([[1, 1, 1, 1, 1, 1]] * 6)
    robot = DeformedRobot(client, chain, table, workdir, robot_geometry(chain, workdir, robot="irb140"))
    try:
        robot.set_q(chain.home)
        seen = []
        for fraction in np.linspace(0.0, 1.0, 11):
            seen.append(robot.show(float(fraction)).tcp_pose()[1])
            _, p_ours = fk(robot.model(float(fraction)), chain.home)
            np.testing.assert_allclose(seen[-1], p_ours, rtol=0, atol=IK_POSITION_TOL)
        assert len({tuple(p) for p in seen}) == 11
        assert robot.show(1.0) is robot.body  # same deformation: no reload
        assert len(robot.reload_seconds) == 11
    finally:
        robot.remove()


# --- PyBullet's TCP equals the extended FK ------------------------------------------------------


@pytest.mark.parametrize("robot", BUILTIN_ROBOTS)
def test_deformed_tcp_in_pybullet_equals_extended_fk(client: Client, workdir: Path, robot: str) -> None:
    chain = load_robot(robot)
    rng = np.random.default_rng([7, BUILTIN_ROBOTS.index(robot)])
    table = random_table(chain.n_joints, rng)
    geometry = robot_geometry(chain, workdir, robot=robot)  # meshes and, when shipped, real link inertials
    deformed = DeformedRobot(client, chain, table, workdir, geometry)
    q = rng.uniform(chain.lower, chain.upper, (15, chain.n_joints))
    try:
        for fraction, magnification in ((0.3, 1.0), (1.0, 1.0), (0.5, 40.0)):
            assert_tcp_is_our_fk(deformed.show(fraction, magnification), deformed.model(fraction, magnification), q)
    finally:
        deformed.remove()


def test_tcp_pose_is_double_precision_with_a_real_tcp_inertial(client: Client, workdir: Path) -> None:
    """A TCP link with a centre of mass off its frame and a full inertia tensor (PyBullet rotates it)."""
    chain = load_robot("gofa")
    rng = np.random.default_rng(11)
    model = deformed_model(chain, random_table(6, rng), 0.8)
    inertia = np.array([[3e-3, 4e-4, -2e-4], [4e-4, 2e-3, 1e-4], [-2e-4, 1e-4, 1.5e-3]])
    geometry = RobotGeometry(links={"tcp": LinkContent(mass=0.7, com=[0.012, -0.034, 0.056], inertia=inertia)},
                             source="test")
    body = load_model(client, model, workdir / "gofa_tcp_inertial.urdf", geometry)
    try:
        assert rotation_angle(body.T_tcp_inertial[:3, :3]) > 0.01  # diagonalised: the inertial frame turned
        assert_tcp_is_our_fk(body, model, rng.uniform(chain.lower, chain.upper, (20, 6)))
    finally:
        body.remove()


def test_a_urdf_that_is_not_the_chain_is_refused(client: Client, workdir: Path) -> None:
    from thermocomp.io.urdf import write_urdf
    from thermocomp.simulators.pybullet.robot import load_urdf_body

    path = workdir / "ur5_as_irb140.urdf"
    write_urdf(load_robot("ur5"), path)
    with pytest.raises(InputError, match="expected a thermocomp URDF of irb140"):
        load_urdf_body(client, path, load_robot("irb140"))


# --- the simulated laser tracker ------------------------------------------------------------------


@pytest.fixture(scope="module")
def irb140_setup() -> sim.SimSetup:
    return app_sim.load_setup(app_sim.SimInputs(None, EXAGGERATED, RANDOM50, scene=IRB140_CELL,
                          options=CompensationOptions(minutes=(0.0, 50.0, 200.0))))


@pytest.fixture(scope="module")
def irb140_report(irb140_setup: sim.SimSetup):
    return app_sim.compensate_setup(irb140_setup)


def test_played_program_reaches_targets_and_uncompensated_misses_as_predicted(
        irb140_setup: sim.SimSetup, irb140_report, tmp_path: Path) -> None:
    out = tmp_path / "measured.csv"
    m, _ = app_sim.measure(irb140_setup, out, report=irb140_report)
    assert m.n_rows == 150 and np.all(m.status == Status.CONVERGED)
    # Compensated: within the solver's tolerance of every target (1e-6 mm), as PyBullet measures it.
    assert m.corrected_distance.max() <= IK_POSITION_TOL + ROUNDOFF
    assert np.nanmax(m.corrected_angle) <= IK_ORIENTATION_TOL + ROUNDOFF
    # Uncompensated: misses by what the core predicts, to round-off; millimetres at the end.
    np.testing.assert_allclose(m.nominal_distance, m.predicted_nominal_distance, rtol=0, atol=ROUNDOFF)
    assert m.nominal_distance[m.minute == 0].max() < IK_POSITION_TOL + ROUNDOFF
    assert m.nominal_distance[m.minute == 200].min() > 1e-3
    # The file holds the same numbers, in mm and degrees.
    with out.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 150 and rows[0]["target"] == "P1" and rows[0]["status"] == "converged"
    dist = np.array([float(r["sim_corrected_dist_mm"]) for r in rows])
    assert dist.max() <= (IK_POSITION_TOL + ROUNDOFF) * 1e3
    np.testing.assert_allclose([float(r["sim_nominal_dist_mm"]) for r in rows], m.nominal_distance * 1e3, rtol=1e-11)
    np.testing.assert_allclose(float(rows[0]["target_x_mm"]), 641.0)
    assert not list(tmp_path.glob(".*.tmp")), "a temporary file was left behind"


def test_timed_ur5_path_is_measured_at_each_targets_own_minute(tmp_path: Path) -> None:
    setup = app_sim.load_setup(app_sim.SimInputs(None, EXAGGERATED, SCENES / "ur5_print_path.csv", scene=UR5_CELL))
    m, _ = app_sim.measure(setup)
    assert m.n_rows == setup.program.n_targets
    np.testing.assert_array_equal(m.minute, setup.program.time_min)
    assert m.corrected_distance.max() <= IK_POSITION_TOL + ROUNDOFF
    np.testing.assert_allclose(m.nominal_distance, m.predicted_nominal_distance, rtol=0, atol=ROUNDOFF)


# --- collisions -------------------------------------------------------------------------------------


def test_deliberate_cell_collision_found_and_clear_configuration_not(client: Client, workdir: Path,
                                                                      irb140_setup: sim.SimSetup) -> None:
    chain = irb140_setup.chain
    bodies = load_scene(client, irb140_setup.scene)
    geometry = irb140_setup.geometry(workdir / "meshes")
    body = load_model(client, nominal_model(chain), workdir / "irb140_collide.urdf", geometry)
    try:
        pairs = self_pairs(chain, geometry)
        body.set_q(chain.home)
        assert check_configuration(body, pairs, bodies.colliding(), "table", 0.0) == []
        # The flange pushed 15 mm into the fixture plate (front face at X = 800 mm).
        R = matrix_from_euler_xyz(np.radians([0.0, 90.0, 0.0]))
        inside = solve_ik(nominal_model(chain), R[None], np.array([[0.815, 0.075, 0.4]]), chain.home[None])
        assert inside.status[0] == Status.CONVERGED
        body.set_q(inside.q[0])
        hits = check_configuration(body, pairs, bodies.colliding(), "table", 0.0)
        assert ("cell", "link6", "fixture_plate") in {h[:3] for h in hits}
        assert min(h[3] for h in hits if h[2] == "fixture_plate") < -0.005
        # A clearance reports the approach before the contact.
        near = solve_ik(nominal_model(chain), R[None], np.array([[0.79, 0.075, 0.4]]), chain.home[None])
        body.set_q(near.q[0])
        assert not [h for h in check_configuration(body, pairs, bodies.colliding(), "table", 0.0)
                    if h[2] == "fixture_plate"]
        hits = check_configuration(body, pairs, bodies.colliding(), "table", 0.03)
        assert any(h[2] == "fixture_plate" and 0 < h[3] <= 0.03 for h in hits)
    finally:
        body.remove()
        for b in bodies.body.values():
            pb.removeBody(b, physicsClientId=client.id)


def test_deliberate_self_collision_found(client: Client, workdir: Path) -> None:
    """The UR5 folded at the elbow (-180 deg) drives its forearm into its shoulder."""
    chain = load_robot("ur5")
    geometry = robot_geometry(chain, workdir, robot="ur5")
    body = load_model(client, nominal_model(chain), workdir / "ur5_fold.urdf", geometry)
    try:
        pairs = self_pairs(chain, geometry)
        assert ("link1", "link2") not in pairs and ("link1", "link3") in pairs  # neighbours are not checked
        q = chain.home.copy()
        body.set_q(q)
        assert check_configuration(body, pairs, {}, None, 0.0) == []
        q[2] = np.radians(-180.0)
        body.set_q(q)
        hits = check_configuration(body, pairs, {}, None, 0.0)
        assert hits and all(kind == "self" and d <= 0 for kind, _, _, d in hits)
    finally:
        body.remove()


def test_program_collision_report_names_every_minute_of_the_bad_target(irb140_setup: sim.SimSetup) -> None:
    good = irb140_setup.program
    R = matrix_from_euler_xyz(np.radians([0.0, 90.0, 0.0]))
    program = Targets(names=(*good.names[:3], "in_the_plate"),
                      R_world_tcp=np.concatenate([good.R_world_tcp[:3], R[None]]),
                      p_world_tcp=np.concatenate([good.p_world_tcp[:3], [[0.815, 0.075, 0.4]]]))
    setup = app_sim.load_setup(app_sim.SimInputs(None, EXAGGERATED, program, scene=IRB140_CELL,
                           options=CompensationOptions(minutes=(0.0, 100.0, 200.0))))
    report = sim.check_collisions(setup, app_sim.compensate_setup(setup), CollisionOptions(clearance=0.0))
    assert report.n_rows == 12
    assert report.flagged_rows() == [(0.0, 3), (100.0, 3), (200.0, 3)]
    assert set(report.other) == {"fixture_plate"} and np.all(report.distance < 0)
    assert "in_the_plate" in report.text()


def test_program_collisions_with_the_zero_table_are_none() -> None:
    setup = app_sim.load_setup(app_sim.SimInputs(None, ZERO, SCENES / "ur5_print_path.csv", scene=UR5_CELL))
    report = sim.check_collisions(setup, app_sim.compensate_setup(setup))
    assert report.n_rows == setup.program.n_targets and report.n_hits == 0


def test_collision_options_are_checked() -> None:
    from thermocomp.errors import ConfigurationError

    with pytest.raises(ConfigurationError, match="clearance"):
        CollisionOptions(clearance=-1e-3)


# --- pictures -------------------------------------------------------------------------------------------


def test_screenshot_is_not_blank_and_shows_the_robot(irb140_setup: sim.SimSetup, tmp_path: Path) -> None:
    shot = sim.save_screenshot(irb140_setup, tmp_path / "cell.png", magnification=20, width=320, height=240)
    rgb = read_png_rgb(shot.path).astype(float)
    assert rgb.shape == (240, 320, 3)
    assert rgb.std() > 20.0  # not one colour
    assert shot.robot_pixels > 0.02 * 320 * 240
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    orange = (r > 150) & (g > 60) & (g < 180) & (b < 90) & (r > g + 40)  # the deformed robot's colour
    assert orange.sum() > 0.01 * 320 * 240
    assert not list(tmp_path.glob(".*.tmp"))


# --- the GUI's logic, with a scripted panel, in DIRECT mode ------------------------------------


def test_gui_logic_with_a_scripted_panel(irb140_setup: sim.SimSetup, client: Client, workdir: Path) -> None:
    small = app_sim.load_setup(app_sim.SimInputs(None, EXAGGERATED, _first(irb140_setup.program, 4), scene=IRB140_CELL,
                           options=CompensationOptions(minutes=(0.0, 100.0, 200.0))))
    panel = ScriptedPanel({2: {"compensate": 1}, 3: {"play_corrected": 1}, 10: {"minute": 180.0},
                           11: {"magnification": 300.0}, 12: {"play_nominal": 1}})
    gui = SimGui(small, client, workdir / "gui", panel, compensate=app_sim.compensate_for_gui, play_interval=0.0)
    summary = gui.run(max_frames=20, frame_seconds=0.0)
    assert summary.planned and summary.frames == 20
    assert summary.rows_played == 8  # 4 targets with compensation, then 4 without
    assert len(summary.reload_seconds) == 3  # minute 0, minute 200 (180 snaps to it), then magnified
    assert gui.shown == (200.0, 300.0)
    assert len(gui.path_items) == 3  # the nominal play's TCP path: 4 points, 3 segments
    assert "minute 200" in summary.status and "measured in PyBullet" in summary.status
    gui.cell.close()


def _first(program: Targets, k: int) -> Targets:
    return Targets(names=program.names[:k], R_world_tcp=program.R_world_tcp[:k], p_world_tcp=program.p_world_tcp[:k],
                   orientation_convention=program.orientation_convention, source=program.source)


# --- the command line ---------------------------------------------------------------------------------


def sim_args(*extra: str) -> list[str]:
    return ["sim", "--deformation", str(EXAGGERATED), "--targets", str(RANDOM50), "--scene", str(IRB140_CELL),
            "--minutes", "0:200:100", *extra]


def test_cli_headless_writes_the_measurement(tmp_path: Path, capsys) -> None:
    out = tmp_path / "measured.csv"
    assert main(sim_args("--headless", "--out", str(out))) == 0
    text = capsys.readouterr().out
    assert "PyBullet (simulated laser tracker): 150 rows" in text and f"wrote {out}" in text
    assert out.read_text().count("\n") == 151


def test_cli_screenshot_and_collisions(tmp_path: Path, capsys) -> None:
    png = tmp_path / "cell.png"
    assert main(sim_args("--screenshot", str(png), "--size", "200", "150", "--collisions")) == 0
    text = capsys.readouterr().out
    assert "300 configurations, 0 flagged" in text or "150 configurations, 0 flagged" in text
    assert read_png_rgb(png).shape == (150, 200, 3)


def test_cli_collision_exit_status_and_file(tmp_path: Path, capsys) -> None:
    targets = write(tmp_path, "name,x_mm,y_mm,z_mm,euler_xyz_a_deg,euler_xyz_b_deg,euler_xyz_c_deg\n"
                              "ok,641,21,473,0,90,0\nin_the_plate,815,75,400,0,90,0\n", "t.csv")
    hits = tmp_path / "hits.csv"
    args = ["sim", "--deformation", str(ZERO), "--targets", str(targets), "--scene", str(IRB140_CELL), "--static",
            "--collisions", "--collisions-out", str(hits)]
    assert main(args) == 2
    lines = hits.read_text().splitlines()
    assert lines[0] == "minute,target,kind,link,other,distance_mm,verdict"
    assert all(",in_the_plate,cell," in line and line.endswith(",collision") for line in lines[1:])


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("--headless",), "give --out"),
        (("--out", "x.csv"), "add --headless"),
        (("--robot", "gofa"), "the scene is made for the robot 'irb140', got 'gofa'"),
        (("--screenshot", "cell.jpg"), "expected a picture path ending in .png"),
    ],
)
def test_cli_errors_exit_1_with_a_message(tmp_path: Path, monkeypatch, capsys, args, words) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(sim_args(*args)) == 1
    assert words in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


def test_cli_never_overwrites_an_input(tmp_path: Path, capsys) -> None:
    targets = tmp_path / "targets.csv"
    targets.write_text(RANDOM50.read_text())
    before = targets.read_text()
    args = ["sim", "--deformation", str(EXAGGERATED), "--targets", str(targets), "--scene", str(IRB140_CELL),
            "--minutes", "0", "--headless", "--out", str(targets)]
    assert main(args) == 1
    assert "overwrite the input" in capsys.readouterr().err
    assert targets.read_text() == before


def test_cli_gui_without_a_display_says_what_to_do(monkeypatch, capsys) -> None:
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.setattr("sys.platform", "linux")
    assert main(sim_args()) == 1
    assert "--headless / --screenshot" in capsys.readouterr().err


def test_users_cad_loads_from_a_mesh_map(client: Client, workdir: Path) -> None:
    """The GoFa's real CAD (../shared/reference) through scenes/gofa_reference_cad.toml."""
    from helpers import REFERENCE

    from thermocomp.io.scene_file import read_mesh_map

    if not (REFERENCE / "robots" / "abb_crb15000_5_95" / "meshes").is_dir():
        pytest.skip(f"GoFa CAD not found under {REFERENCE} (../shared beside the repository)")
    chain = load_robot("gofa")
    geometry = robot_geometry(chain, workdir, robot="gofa", mesh_map=read_mesh_map(SCENES / "gofa_reference_cad.toml"))
    assert "mesh map" in geometry.source
    robot = DeformedRobot(client, chain, DeformationTable.from_mm_deg([[1, 1, 1, 1, 1, 1]] * 6), workdir, geometry)
    try:
        body = robot.show(0.5)
        shapes = pb.getVisualShapeData(body.body, physicsClientId=client.id)
        assert {s[1] for s in shapes} >= {body.link_index[f"link{k}"] for k in range(1, 7)}
        robot.set_q(chain.home)
        _, p = body.tcp_pose()
        np.testing.assert_allclose(p, fk(robot.model(0.5), chain.home)[1], rtol=0, atol=IK_POSITION_TOL)
        assert check_configuration(body, self_pairs(chain, geometry), {}, None, 0.0) == []
    finally:
        robot.remove()
