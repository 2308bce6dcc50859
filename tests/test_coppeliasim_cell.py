"""``thermocomp coppeliasim load-scene``: a scene file's cell built in the fake CoppeliaSim."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from coppeliasim_fake.fixtures import fake_irb140, session  # noqa: F401  (fixtures)
from coppeliasim_fake.scene import CONSTANTS, HANDLE_WORLD, OBJECT_DUMMY, OBJECT_SHAPE

from thermocomp.cli.common import EXIT_INPUT, EXIT_OK
from thermocomp.cli.main import main
from thermocomp.geometry.rotations import matrix_from_euler_xyz
from thermocomp.io.scene_file import read_scene
from thermocomp.simulators.coppeliasim import (
    CURRENT_SIM_FUNCTIONS,
    LEGACY_SIM_FUNCTIONS,
    SIM_FUNCTIONS,
    read_robot,
)

REPO = Path(__file__).resolve().parents[1]
PAPER_CELL = REPO / "scenes" / "irb140_paper_cell.toml"
#: Poses set and read back through the fake's quaternion storage: round-off only.
ROUND_OFF = 1e-12


def fake_world(server, h) -> np.ndarray:
    m = np.asarray(server.scene.get_pose(h, HANDLE_WORLD).matrix12(), dtype=float).reshape(3, 4)
    return np.vstack([m, [0, 0, 0, 1]])


def address(server) -> list[str]:
    return ["--host", "127.0.0.1", "--port", str(server.port), "--timeout-s", "2"]


def test_load_the_paper_cell(fake_irb140, capsys):
    scene = read_scene(PAPER_CELL)
    assert main(["coppeliasim", "load-scene", str(PAPER_CELL), *address(fake_irb140)]) == EXIT_OK
    assert "built 3 objects of irb140_paper_cell" in capsys.readouterr().out
    s = fake_irb140.scene
    group = s.resolve("/irb140_paper_cell")
    assert s.objects[group].kind == OBJECT_DUMMY and s.objects[group].parent is None
    for obj in scene.objects:
        h = s.resolve(f"/irb140_paper_cell/{obj.name}")
        made = s.objects[h]
        assert made.kind == OBJECT_SHAPE and made.parent == group
        assert made.primitive == (CONSTANTS["primitiveshape_cuboid"], tuple(obj.size))
        np.testing.assert_allclose(fake_world(fake_irb140, h), obj.T_world_object, rtol=0, atol=ROUND_OFF)
        assert made.color == tuple(obj.rgba[:3])
    own = LEGACY_SIM_FUNCTIONS if fake_irb140.version == "4.6" else CURRENT_SIM_FUNCTIONS
    assert fake_irb140.sim_calls <= set(SIM_FUNCTIONS) | set(own)
    # loaded once only: a second load is refused and creates nothing
    count = len(s.objects)
    assert main(["coppeliasim", "load-scene", str(PAPER_CELL), *address(fake_irb140)]) == EXIT_INPUT
    assert "the cell is loaded" in capsys.readouterr().err
    assert len(s.objects) == count


def test_cylinders_spheres_meshes_and_the_robot_placement(fake_irb140, session, tmp_path, capsys):
    mesh = tmp_path / "part.stl"
    mesh.write_text("solid part\nendsolid part\n")
    path = tmp_path / "cell.toml"
    path.write_text("""thermocomp_scene = 1
name = "test_cell"

[robot]
base_xyz_mm = [100, -50, 20]
base_euler_xyz_deg = [0, 0, 90]

[[object]]
name = "bed"
role = "print_bed"
shape = "cylinder"
radius_mm = 150
length_mm = 10
xyz_mm = [500, 0, 5]
euler_xyz_deg = [10, 20, 30]
rgba = [0.1, 0.2, 0.3, 1]

[[object]]
name = "ball"
role = "obstacle"
shape = "sphere"
radius_mm = 40
xyz_mm = [300, 300, 300]

[[object]]
name = "part"
role = "workpiece"
shape = "mesh"
file = "part.stl"
mesh_unit = "mm"
xyz_mm = [0, 0, 0]
""")
    scene = read_scene(path)
    assert main(["coppeliasim", "load-scene", str(path), *address(fake_irb140), "--robot-path", "/IRB140"]) == EXIT_OK
    out = capsys.readouterr().out
    assert "built 2 objects of test_cell" in out and "placed the robot's base" in out
    assert "not created: part (a mesh: import" in out  # said, not silently dropped
    s = fake_irb140.scene
    bed = s.objects[s.resolve("/test_cell/bed")]
    assert bed.primitive == (CONSTANTS["primitiveshape_cylinder"], (0.3, 0.3, 0.01))
    np.testing.assert_allclose(fake_world(fake_irb140, bed.handle), scene.object("bed").T_world_object,
                               rtol=0, atol=ROUND_OFF)
    assert bed.color == (0.1, 0.2, 0.3)
    ball = s.objects[s.resolve("/test_cell/ball")]
    assert ball.primitive == (CONSTANTS["primitiveshape_spheroid"], (0.08, 0.08, 0.08))
    robot = read_robot(session, "/IRB140", tip_path="/IRB140/tip")
    expected = np.eye(4)
    expected[:3, :3] = matrix_from_euler_xyz(np.radians([0, 0, 90]))
    expected[:3, 3] = [0.1, -0.05, 0.02]
    np.testing.assert_allclose(robot.chain.T_world_base, expected, rtol=0, atol=ROUND_OFF)


def test_a_missing_robot_creates_nothing(fake_irb140, capsys):
    count = len(fake_irb140.scene.objects)
    assert main(["coppeliasim", "load-scene", str(PAPER_CELL), *address(fake_irb140),
                 "--robot-path", "/UR5"]) == EXIT_INPUT
    assert "no object at '/UR5'" in capsys.readouterr().err
    assert len(fake_irb140.scene.objects) == count
    assert main(["coppeliasim", "load-scene", str(PAPER_CELL), *address(fake_irb140), "--robot-path", "none"]) == EXIT_OK
    assert "placed the robot" not in capsys.readouterr().out


def test_a_refused_call_midway_takes_the_cell_down_again(fake_irb140, session, capsys):
    # The reader refuses such names (test_pybullet_scene_file); a Scene made in code still reaches
    # CoppeliaSim, which refuses the alias after the table was built. Nothing may stay behind.
    from dataclasses import replace

    from thermocomp.simulators.coppeliasim import CoppeliaSimError, load_cell

    scene = read_scene(PAPER_CELL)
    bad = replace(scene, objects=(scene.objects[0], replace(scene.objects[1], name="bed/1")))
    s = fake_irb140.scene
    before = set(s.objects)
    with pytest.raises(CoppeliaSimError, match="bed/1"):
        load_cell(session, bad)
    assert set(s.objects) == before
    assert "removeObjects" in fake_irb140.sim_calls
    # so loading the cell again is not refused as "loaded"
    assert main(["coppeliasim", "load-scene", str(PAPER_CELL), *address(fake_irb140)]) == EXIT_OK
    assert "built 3 objects" in capsys.readouterr().out
