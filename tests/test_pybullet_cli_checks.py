"""``thermocomp sim``: inputs never overwritten, options checked before any work, progress, default scenes.

Also the details of its output: minutes written round-trip safe, pairs of
links close by design reported apart, PyBullet's banners kept off the
terminal, and a help text that names each default once.
"""

from __future__ import annotations

import argparse
import csv
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from helpers import REPO, write

pb = pytest.importorskip("pybullet", reason="pybullet is a dependency of thermocomp (pip install -e .)")

from thermocomp.app import sim as app_sim
from thermocomp.cli.main import EXIT_USAGE, main
from thermocomp.io import scene_file
from thermocomp.io.scene_file import BUILTIN_SCENES, builtin_scene, read_scene
from thermocomp.simulators.pybullet import cell as sim
from thermocomp.simulators.pybullet.collision import (
    DESIGN_CONTACT_TOL,
    CollisionOptions,
    CollisionReport,
    design_limits,
    write_collision_csv,
)
from thermocomp.simulators.pybullet.geometry import COLLISION_SLABS, convex_slab_pieces

SCENES = REPO / "scenes"
IRB140_CELL = SCENES / "irb140_paper_cell.toml"
EXAGGERATED = REPO / "deformations" / "exaggerated.csv"
ZERO = REPO / "deformations" / "zero.csv"
RANDOM50 = REPO / "examples" / "targets_random50.csv"
UR5_PATH = SCENES / "ur5_print_path.csv"

#: A target inside the fixture plate of the IRB140 and GoFa cells (front face at X = 800 mm).
IN_THE_PLATE = ("name,x_mm,y_mm,z_mm,euler_xyz_a_deg,euler_xyz_b_deg,euler_xyz_c_deg\n"
                "ok,641,21,473,0,90,0\nin_the_plate,815,75,400,0,90,0\n")


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}


# --- 1. every input is protected -------------------------------------------------------------------------


def _scene_with_robot_file(tmp_path: Path) -> tuple[Path, Path]:
    robot = tmp_path / "myrobot.csv"
    robot.write_bytes((REPO / "robots" / "irb140" / "chain.csv").read_bytes())
    scene = tmp_path / "myscene.toml"
    scene.write_text(IRB140_CELL.read_text().replace('model = "irb140"', 'model = "myrobot.csv"'))
    return scene, robot


def test_the_scenes_robot_file_is_never_overwritten(tmp_path: Path, capsys) -> None:
    """The reviewer's repro: --out names the robot file the scene points at."""
    scene, robot = _scene_with_robot_file(tmp_path)
    before = _files(tmp_path)
    args = ["sim", "--scene", str(scene), "--deformation", str(EXAGGERATED), "--targets", str(RANDOM50),
            "--minutes", "0", "--headless", "--out", str(robot)]
    assert main(args) == 1
    assert f"overwrite the input {robot}" in capsys.readouterr().err
    assert _files(tmp_path) == before


def test_mesh_map_and_its_meshes_and_scene_meshes_are_inputs(tmp_path: Path) -> None:
    import trimesh

    trimesh.creation.box(extents=(0.05, 0.05, 0.05)).export(tmp_path / "cube.stl")
    trimesh.creation.box(extents=(0.1, 0.1, 0.1)).export(tmp_path / "part.stl")
    write(tmp_path, 'thermocomp_meshes = 1\nmesh_unit = "m"\n[links.link6]\nvisual = "cube.stl"\n',
                   "cad.toml")
    scene = write(tmp_path, IRB140_CELL.read_text().replace('mount = "table"', 'mount = "table"\nmeshes = "cad.toml"')
                  + '\n[[object]]\nname = "part"\nrole = "workpiece"\nshape = "mesh"\nfile = "part.stl"\n'
                    'mesh_unit = "m"\nxyz_mm = [700, -400, 100]\n', "cell.toml")
    setup = app_sim.load_setup(app_sim.SimInputs(None, EXAGGERATED, RANDOM50, scene=scene))
    names = {p.name for p in setup.input_files()}
    assert {"cell.toml", "cad.toml", "cube.stl", "part.stl", "exaggerated.csv", "targets_random50.csv"} <= names
    for victim in ("cad.toml", "cube.stl", "part.stl", "cell.toml"):
        before = (tmp_path / victim).read_bytes()
        with pytest.raises(Exception, match="overwrite the input"):
            sim.check_outputs(setup, [tmp_path / victim])
        assert main(["sim", "--scene", str(scene), "--deformation", str(EXAGGERATED), "--targets", str(RANDOM50),
                     "--static", "--collisions", "--collisions-out", str(tmp_path / victim)]) == 1
        assert (tmp_path / victim).read_bytes() == before


def test_two_outputs_may_not_be_the_same_file(tmp_path: Path, capsys) -> None:
    out = tmp_path / "same.csv"
    args = ["sim", "--robot", "irb140", "--deformation", str(EXAGGERATED), "--targets", str(RANDOM50),
            "--minutes", "0", "--headless", "--out", str(out), "--collisions", "--collisions-out", str(out)]
    assert main(args) == 1
    assert "--collisions-out" in (err := capsys.readouterr().err) and "the same file as --out" in err
    assert not out.exists()


# --- 2. every option and output checked before any work -----------------------------------------------------


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (("--headless", "--out", "a.csv", "--screenshot", "b.png", "--minute", "500"),
         "minute: expected a minute of the program, 0 to 200"),
        # the picture's path named with its option, as every other output is (issue 9 follow-up)
        (("--headless", "--out", "a.csv", "--screenshot", "b.jpg"), "--screenshot b.jpg: expected a picture path "
                                                                    "ending in .png"),
        (("--headless", "--out", "a.csv", "--screenshot", "missing/b.png"),
         "--screenshot missing/b.png: cannot write: the folder does not exist"),
        (("--headless", "--out", "missing/a.csv", "--screenshot", "b.png"), "does not exist"),
        (("--headless", "--out", "a.csv", "--minute", "100"), "--minute sets the deformation shown"),
        (("--collisions", "--collisions-out", "c.csv", "--magnification", "10"),
         "--magnification sets the deformation shown"),
        (("--headless", "--out", "a.csv", "--size", "100", "100"), "--size is the picture size of --screenshot"),
        (("--headless", "--out", "a.csv", "--clearance-mm", "5"), "add --collisions"),
    ],
)
def test_a_bad_option_or_output_fails_before_anything_is_written(tmp_path: Path, monkeypatch, capsys,
                                                                 extra, words) -> None:
    monkeypatch.chdir(tmp_path)
    args = ["sim", "--robot", "gofa", "--deformation", str(EXAGGERATED), "--targets", str(RANDOM50), *extra]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # e.g. numpy's division by zero for --size 0 10
        assert main(args) == 1
    assert words in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root may write anywhere")
def test_an_unwritable_folder_fails_before_any_work(tmp_path: Path, capsys) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        args = ["sim", "--robot", "gofa", "--deformation", str(EXAGGERATED), "--targets", str(RANDOM50),
                "--headless", "--out", str(tmp_path / "a.csv"), "--screenshot", str(locked / "b.png")]
        assert main(args) == 1
        assert "not writable" in capsys.readouterr().err
        assert not (tmp_path / "a.csv").exists()
    finally:
        locked.chmod(0o700)


def test_the_library_checks_the_minute_against_the_program(tmp_path: Path) -> None:
    from thermocomp.compensation.compensate import CompensationOptions
    from thermocomp.errors import ConfigurationError

    setup = app_sim.load_setup(app_sim.SimInputs("irb140", EXAGGERATED, RANDOM50,
                           options=CompensationOptions(minutes=tuple(float(m) for m in range(10, 21)))))
    assert setup.check_minute(10.0) == 10.0
    for minute in (9.5, 20.5, float("nan")):
        with pytest.raises(ConfigurationError, match="10 to 20"):
            sim.save_screenshot(setup, tmp_path / "x.png", minute=minute)
    assert list(tmp_path.iterdir()) == []


def test_minute_and_magnification_reach_the_picture(tmp_path: Path, capsys) -> None:
    png = tmp_path / "cell.png"
    args = ["sim", "--robot", "irb140", "--deformation", str(EXAGGERATED), "--targets", str(RANDOM50),
            "--screenshot", str(png), "--size", "64", "48", "--minute", "100.5", "--magnification", "20"]
    assert main(args) == 0
    assert "minute 100.5, magnification 20" in capsys.readouterr().out
    assert png.is_file()


# --- 3. progress -------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_progress_bars_for_compensation_measurement_and_collisions(tmp_path: Path, capsys) -> None:
    base = ["sim", "--robot", "irb140", "--deformation", str(EXAGGERATED), "--targets", str(RANDOM50),
            "--minutes", "0:20", "--headless", "--out", str(tmp_path / "m.csv"), "--collisions"]
    assert main([*base, "--progress"]) == 0
    err = capsys.readouterr().err
    for label in ("compensating [", "measuring in PyBullet [", "checking collisions ["):
        assert label in err
    assert "1,050/1,050 rows" in err  # 21 minutes x 50 targets, each bar to the end
    assert main([*base, "--no-progress"]) == 0
    assert "[" not in capsys.readouterr().err


def test_measure_and_collision_check_report_progress_to_the_end() -> None:
    from thermocomp.compensation.compensate import CompensationOptions

    setup = app_sim.load_setup(app_sim.SimInputs("irb140", EXAGGERATED, RANDOM50, scene=IRB140_CELL,
                           options=CompensationOptions(minutes=(0.0, 100.0, 200.0))))
    calls: dict[str, list[tuple[int, int]]] = {"measure": [], "collide": []}
    report = app_sim.compensate_setup(setup)
    app_sim.measure(setup, report=report, progress=lambda d, t: calls["measure"].append((d, t)))
    sim.check_collisions(setup, report, progress=lambda d, t: calls["collide"].append((d, t)))
    for seen in calls.values():
        done = [d for d, _ in seen]
        assert done == sorted(done) and seen[-1] == (150, 150)


# --- 4. default scenes -------------------------------------------------------------------------------------


@pytest.mark.parametrize("robot", sorted(BUILTIN_SCENES))
def test_each_builtin_robot_has_its_shipped_scene(robot: str) -> None:
    path = builtin_scene(robot)
    assert path is not None and path.name == BUILTIN_SCENES[robot]
    assert read_scene(path).robot.model == robot


def test_the_builtin_robot_stands_in_its_cell_unless_no_scene(tmp_path: Path, capsys) -> None:
    targets = write(tmp_path, IN_THE_PLATE, "t.csv")
    args = ["sim", "--robot", "gofa", "--deformation", str(ZERO), "--targets", str(targets), "--static",
            "--collisions"]
    assert main(args) == 2  # the target in the plate of gofa_cell.toml collides
    out = capsys.readouterr().out
    assert "gofa_cell.toml" in out and "fixture_plate" in out
    assert main([*args, "--no-scene"]) == 0
    assert "fixture_plate" not in capsys.readouterr().out


def test_without_shipped_scenes_the_robot_stands_alone_with_a_note(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setattr(scene_file, "scenes_dir", lambda: None)
    assert builtin_scene("gofa") is None
    targets = write(tmp_path, IN_THE_PLATE, "t.csv")
    assert main(["sim", "--robot", "gofa", "--deformation", str(ZERO), "--targets", str(targets), "--static",
                 "--collisions"]) == 0
    assert "is not part of this install" in capsys.readouterr().err


def test_an_install_that_ships_the_scenes_uses_them(tmp_path: Path, monkeypatch) -> None:
    """An installed package's ``thermocomp/_scenes`` (pyproject.toml ships scenes/ there) comes before the checkout's."""
    from thermocomp import _data

    package = tmp_path / "site-packages" / "thermocomp"
    (package / "_scenes").mkdir(parents=True)
    (package / "_scenes" / "gofa_cell.toml").write_text((SCENES / "gofa_cell.toml").read_text())
    monkeypatch.setattr(_data, "_PACKAGE", package)
    assert builtin_scene("gofa") == package / "_scenes" / "gofa_cell.toml"
    assert builtin_scene("ur5") is None  # not in that install


def test_scene_and_no_scene_exclude_each_other(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["sim", "--deformation", str(ZERO), "--targets", str(RANDOM50), "--scene", str(IRB140_CELL),
              "--no-scene"])
    assert "not allowed with argument" in capsys.readouterr().err


# --- 5. link pairs close by design ---------------------------------------------------------------------------


@pytest.mark.slow
def test_pairs_close_at_home_are_reported_apart_not_on_every_row() -> None:
    """UR5: base and link2 are within 10 mm at home whatever the program; the check does not flag every row."""
    setup = app_sim.load_setup(app_sim.SimInputs("ur5", EXAGGERATED, UR5_PATH))
    report = app_sim.compensate_setup(setup)
    found = sim.check_collisions(setup, report, CollisionOptions(clearance=10e-3))
    close = {(a, b): d for a, b, d in found.close_by_design}
    assert ("base", "link2") in close and 0 < close[("base", "link2")] < 10e-3
    assert ("base", "link2") not in set(zip(found.link, found.other))
    assert "close by design" in found.text() and "base - link2" in found.text()
    # Pairs not close at home are still reported at the clearance: the wrist links pass within 10 mm.
    assert found.n_hits > 0 and set(zip(found.link, found.other)) == {("link4", "link6")}
    # Without the rule, base - link2 is within 10 mm in every row: every row would be flagged.
    assert all(d < 10e-3 for d in _pair_distances(setup, report, ("base", "link2")))


def _pair_distances(setup, report, pair: tuple[str, str]) -> list[float]:
    """The pair's distance [m] in every converged row (no design rule)."""
    import tempfile

    from thermocomp.kinematics.ik import Status
    from thermocomp.simulators.pybullet.client import connect
    from thermocomp.simulators.pybullet.collision import check_configuration, collision_geometry
    from thermocomp.simulators.pybullet.robot import DeformedRobot

    out = []
    with connect("direct") as client, tempfile.TemporaryDirectory() as work:
        geometry = collision_geometry(setup.geometry(Path(work) / "meshes"))
        robot = DeformedRobot(client, setup.chain, setup.table, work, geometry, rgba=None)
        for chunk in report.chunks:
            for i in np.flatnonzero(chunk.status == Status.CONVERGED).tolist():
                body = robot.show(float(chunk.fraction[i]))
                body.set_q(chunk.q[i])
                out.append(check_configuration(body, [pair], {}, None, 1.0)[0][3])
        robot.remove()
    return out


def test_design_limits() -> None:
    limits = design_limits({("base", "link2"): 1.4e-3, ("link4", "link6"): -2e-4})
    assert limits[("base", "link2")] == 0.0
    assert limits[("link4", "link6")] == pytest.approx(-2e-4 - DESIGN_CONTACT_TOL)


# --- 5b. collision shapes: convex pieces that contain the mesh -----------------------------------------------


LINKS = ["base"] + [f"link{k}" for k in range(1, 7)]


@pytest.mark.slow
def test_documented_collision_volumes_match_the_meshes_and_the_pieces() -> None:
    """docs/pybullet.md states, per link, one hull's and the convex pieces' volume over the mesh's."""
    import trimesh

    doc = (REPO / "docs" / "pybullet.md").read_text()
    for robot in ("irb140", "gofa", "ur5"):
        hull, pieces = [], []
        for link in LINKS:
            mesh = trimesh.load(REPO / "robots" / robot / "meshes" / f"{link}.stl")
            hull.append(f"{mesh.convex_hull.volume / mesh.volume:.2f}")
            parts = convex_slab_pieces(mesh.vertices, mesh.edges_unique)
            pieces.append(f"{sum(p.volume for p in parts) / mesh.volume:.2f}")
        assert f"| {robot}, one hull | " + " | ".join(hull) + " |" in doc
        assert f"| {robot}, {COLLISION_SLABS} convex pieces | " + " | ".join(pieces) + " |" in doc


@pytest.mark.parametrize(("robot", "link"), [("irb140", "link4"), ("ur5", "link3"), ("gofa", "base")])
def test_convex_pieces_contain_the_mesh_and_are_tighter_than_its_hull(robot: str, link: str) -> None:
    import trimesh

    mesh = trimesh.load(REPO / "robots" / robot / "meshes" / f"{link}.stl")
    parts = convex_slab_pieces(mesh.vertices, mesh.edges_unique)
    assert len(parts) > 1 and all(p.is_convex for p in parts)
    surface, _ = trimesh.sample.sample_surface(mesh, 4000, seed=7)
    points = np.vstack([surface, mesh.vertices, mesh.triangles_center])
    # How far each point lies outside the nearest piece (<= 0: inside or on it); STL vertices are float32.
    assert _outside_pieces(parts, points).max() < 1e-7
    volume = sum(p.volume for p in parts)
    assert mesh.volume <= volume < mesh.convex_hull.volume and volume < 1.13 * mesh.volume


def _outside_pieces(parts, points: np.ndarray) -> np.ndarray:
    """Per point, min over the convex pieces of max over their facet planes of the signed offset [m].

    <= 0: inside or on a piece; > 0: a lower bound of the distance to every piece.
    """
    from scipy.spatial import ConvexHull

    offsets = []
    for p in parts:
        eq = ConvexHull(p.vertices).equations  # unit normals: n . x + d <= 0 inside
        offsets.append((points @ eq[:, :3].T + eq[:, 3]).max(axis=1))
    return np.min(offsets, axis=0)


def _one_link_body(client, folder: Path, collision_file: Path) -> int:
    urdf = folder / f"{collision_file.stem}.urdf"
    urdf.write_text(f'<robot name="r"><link name="base"><inertial><mass value="1"/><inertia ixx="1" iyy="1" '
                    f'izz="1" ixy="0" ixz="0" iyz="0"/></inertial><collision><geometry><mesh filename="'
                    f'{collision_file}"/></geometry></collision></link></robot>')
    return client.pb.loadURDF(str(urdf), useFixedBase=True, physicsClientId=client.id)


def test_pybullet_collides_the_pieces_not_the_hull(tmp_path: Path) -> None:
    """A small ball in a concave corner of the IRB140's link4 touches its hull but not the pieces PyBullet gets."""
    import trimesh

    from thermocomp.simulators.pybullet.client import connect
    from thermocomp.simulators.pybullet.geometry import builtin_geometry, convex_piece_geometry

    stl = REPO / "robots" / "irb140" / "meshes" / "link4.stl"
    mesh = trimesh.load(stl)
    hull = mesh.convex_hull
    rng = np.random.default_rng(3)
    lo, hi = hull.bounds
    candidates = rng.uniform(lo, hi, (20000, 3))
    candidates = candidates[_outside_pieces([hull], candidates) < -5e-3]  # well inside the one hull
    outside = _outside_pieces(convex_slab_pieces(mesh.vertices, mesh.edges_unique), candidates)
    corner = candidates[int(np.argmax(outside))]  # deepest in the hull's filled-in corner, outside every piece
    radius = 1e-3
    assert outside.max() > 10 * radius
    pieces = convex_piece_geometry(builtin_geometry("irb140"), tmp_path).links["link4"].collision_mesh
    with connect("direct") as client:
        pb, cid = client.pb, client.id
        ball = pb.createMultiBody(0, pb.createCollisionShape(pb.GEOM_SPHERE, radius=radius, physicsClientId=cid),
                                  basePosition=corner.tolist(), physicsClientId=cid)
        distances = {}
        for label, path in (("hull", stl), ("pieces", Path(pieces))):
            body = _one_link_body(client, tmp_path, path)
            distances[label] = min(p[8] for p in pb.getClosestPoints(body, ball, 1.0, physicsClientId=cid))
    assert distances["hull"] < 0 < distances["pieces"]


# --- 6. minutes round-trip -----------------------------------------------------------------------------------


def test_minutes_in_the_csvs_read_back_as_the_same_row(tmp_path: Path) -> None:
    minute = 100.123456789
    targets = write(tmp_path, "name,x_mm,y_mm,z_mm,euler_xyz_a_deg,euler_xyz_b_deg,euler_xyz_c_deg,time_min\n"
                              f"a,641,21,473,0,90,0,{minute!r}\n", "t.csv")
    out = tmp_path / "m.csv"
    assert main(["sim", "--robot", "irb140", "--no-scene", "--deformation", str(EXAGGERATED), "--targets",
                 str(targets), "--headless", "--out", str(out)]) == 0
    with out.open(newline="") as handle:
        row = next(csv.DictReader(handle))
    assert float(row["minute"]) == minute
    report = CollisionReport(names=("a",), options=CollisionOptions(), n_rows=1, minute=np.array([1.0 / 3.0]),
                             target=np.array([0]), kind=("self",), link=("link4",), other=("link6",),
                             distance=np.array([-1e-4]))
    write_collision_csv(report, tmp_path / "c.csv")
    with (tmp_path / "c.csv").open(newline="") as handle:
        written = float(next(csv.DictReader(handle))["minute"])
    assert written == float("%.12g" % (1.0 / 3.0)) and abs(written - 1.0 / 3.0) < 1e-12


# --- 7. PyBullet's banners, 8. help ---------------------------------------------------------------------------


@pytest.mark.slow
def test_pybullet_banners_stay_off_stdout_and_stderr(tmp_path: Path) -> None:
    out = tmp_path / "m.csv"
    code = "import sys; from thermocomp.cli.main import main; sys.exit(main(sys.argv[1:]))"
    proc = subprocess.run([sys.executable, "-c", code, "sim", "--robot", "irb140", "--deformation", str(EXAGGERATED),
                           "--targets", str(RANDOM50), "--minutes", "0", "--headless", "--out", str(out),
                           "--no-progress"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "argv[0]" not in proc.stdout and "build time" not in proc.stdout + proc.stderr
    assert proc.stdout.rstrip().endswith(f"wrote {out}")  # what was printed before the connect is still there


def test_help_names_each_default_once(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["sim", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "(default: None)" not in text and "(default: False)" not in text
    assert text.count("(default: the scene's robot)") == 1
    assert "(default: 200.0)" in text  # real defaults are still shown
    from thermocomp.cli.common import HelpFormatter
    from thermocomp.cli.main import build_parser

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices["sim"]
    formatter = HelpFormatter("thermocomp sim")
    for action in sub._actions:
        shown = formatter._get_help_string(action) or ""
        assert shown.count("(default:") <= 1, action.option_strings


# --- an explicit magnification: checked, then taken as given with a warning when it dives through the cell ---------


@pytest.mark.parametrize(("value", "code", "words"), [
    *((v, EXIT_USAGE, f"--magnification: expected a finite number from 1 to 1000, got {v}")
      for v in ("0", "-5", "0.5", "1000.5")),  # the parser's range (cli/option_ranges.py)
    *((v, EXIT_USAGE, f"argument --magnification: invalid float value: '{v}'") for v in ("nan", "inf")),  # parser
])
def test_an_explicit_magnification_outside_its_range_is_refused(value, code, words, tmp_path: Path, capsys) -> None:
    shot = tmp_path / "cell.png"
    try:
        got = main(["sim", "--robot", "ur5", "--deformation", str(EXAGGERATED), "--targets", str(UR5_PATH), "--static",
                    "--screenshot", str(shot), "--magnification", value])
    except SystemExit as exc:  # a usage error, as argparse reports it
        got = exc.code
    assert got == code
    err = capsys.readouterr().err
    assert words in err and err.count("error:") == 1, err
    assert not shot.exists()


@pytest.mark.slow
def test_an_explicit_magnification_through_the_table_is_warned_about(tmp_path: Path, capsys) -> None:
    """x20 drives the UR5's wrist into its print bed (test_sim_programs.py): drawn as asked, with the cap said."""
    from thermocomp.compensation.compensate import CompensationOptions
    from thermocomp.deformation.timelaw import Static

    setup = app_sim.load_setup(app_sim.SimInputs("ur5", EXAGGERATED, UR5_PATH, scene=SCENES / "ur5_print_bed.toml",
                           options=CompensationOptions(time_law=Static())))
    cap = sim.magnification_within_cell(setup, 20.0)
    assert cap < 20.0
    for value, warned in (("20", True), (f"{cap:g}", False)):
        shot = tmp_path / f"x{value}.png"
        assert main(["sim", "--robot", "ur5", "--deformation", str(EXAGGERATED), "--targets", str(UR5_PATH),
                     "--static", "--screenshot", str(shot), "--size", "64", "48", "--magnification", value]) == 0
        out, err = capsys.readouterr()
        warning = (f"thermocomp: warning: --magnification 20: the magnified robot goes below the plane it stands on "
                   f"(its cell's table or the floor) along the program; the automatic magnification is capped at "
                   f"{cap:g} for this robot, cell and program")
        assert (warning in err) == warned, err
        assert f"magnification {float(value):g};" in out and shot.is_file()  # taken as given
