"""Scene files and mesh maps (thermocomp.io.scene_file): the shipped scenes read, and errors are located."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from helpers import REFERENCE, REPO, write

from thermocomp.errors import InputError
from thermocomp.geometry.rotations import matrix_from_euler_xyz
from thermocomp.io.robots import load_robot
from thermocomp.io.scene_file import MESH_UNITS, read_mesh_map, read_scene

SCENES = REPO / "scenes"
GOFA_CAD = REFERENCE / "robots" / "abb_crb15000_5_95" / "meshes"

MINIMAL = """\
thermocomp_scene = 1
name = "t"

[robot]
model = "irb140"
mount = "table"

[[object]]
name = "table"
role = "table"
shape = "box"
size_mm = [1000, 800, 40]
xyz_mm = [300, 0, -20]
"""


def located(exc: pytest.ExceptionInfo, path: Path, line: int | None) -> str:
    """The error names the file and the line; returns the message."""
    err = exc.value
    assert isinstance(err, InputError)
    assert err.path == str(path)
    assert err.row == line
    message = str(err)
    assert str(path) in message
    if line is not None:
        assert f"line {line}" in message
    return message


@pytest.mark.parametrize("name", sorted(p.name for p in SCENES.glob("*.toml") if "thermocomp_scene" in p.read_text()))
def test_shipped_scenes_read(name: str) -> None:
    scene = read_scene(SCENES / name)
    assert scene.objects, "a scene without objects is pointless"
    assert scene.robot.model is not None
    chain = scene.place(load_robot(scene.robot.model))
    assert chain.n_joints == 6
    if scene.robot.mount is not None:
        mount = scene.object(scene.robot.mount)
        # The robot stands on its mount: the mount's top face is at the base's height.
        top = mount.T_world_object[2, 3] + 0.5 * mount.size[2]
        assert top == pytest.approx(chain.T_world_base[2, 3], abs=1e-12)


def test_irb140_cell_values_are_si_and_placed() -> None:
    scene = read_scene(SCENES / "irb140_paper_cell.toml")
    plate = scene.object("fixture_plate")
    np.testing.assert_allclose(plate.size, [0.02, 0.6, 0.5])
    np.testing.assert_allclose(plate.T_world_object[:3, 3], [0.81, 0.075, 0.4])
    assert plate.role == "workpiece" and plate.collide
    assert scene.robot.mount == "table"


def test_pose_uses_coppeliasim_euler_and_millimetres(tmp_path: Path) -> None:
    path = write(tmp_path, MINIMAL + """
[[object]]
name = "print"
role = "workpiece"
shape = "cylinder"
radius_mm = 80
length_mm = 200
xyz_mm = [-500, -110, 100]
euler_xyz_deg = [90, 10, -30]
""", "s.toml")
    obj = read_scene(path).object("print")
    np.testing.assert_allclose(obj.T_world_object[:3, :3], matrix_from_euler_xyz(np.radians([90, 10, -30])), atol=1e-15)
    np.testing.assert_allclose(obj.T_world_object[:3, 3], [-0.5, -0.11, 0.1], atol=1e-15)
    assert (obj.radius, obj.length) == (0.08, 0.2)


def test_robot_placement_composes_with_the_chain(tmp_path: Path) -> None:
    path = write(tmp_path, MINIMAL.replace('mount = "table"', 'mount = "table"\nbase_xyz_mm = [100, 200, 0]\n'
                                                               'base_euler_xyz_deg = [0, 0, 90]'), "s.toml")
    chain = read_scene(path).place(load_robot("irb140"))
    np.testing.assert_allclose(chain.T_world_base[:3, 3], [0.1, 0.2, 0.0])
    np.testing.assert_allclose(chain.T_world_base[:3, :3], matrix_from_euler_xyz(np.radians([0, 0, 90])), atol=1e-15)


@pytest.mark.parametrize(
    ("edit", "line", "words"),
    [
        (("size_mm = [1000, 800, 40]", "size_mm = [1000, 800]"), 12, "expected a list of 3 finite numbers"),
        (("size_mm = [1000, 800, 40]", "size_mm = [1000, -800, 40]"), 12, "expected 3 numbers > 0"),
        (("role = \"table\"", "role = \"desk\""), 10, "expected one of table, print_bed"),
        (("shape = \"box\"", "shape = \"cone\""), 11, "expected one of box, cylinder, sphere, mesh"),
        (("xyz_mm = [300, 0, -20]", "xyz_mm = [300, 0, -20]\ncolour = [1, 0, 0, 1]"), 14, "unknown key"),
        (("mount = \"table\"", "mount = \"bench\""), 6, "expected the name of an object of the scene (table)"),
        (("model = \"irb140\"", "model = \"irb6700\""), 5, "expected a built-in robot"),
        (("xyz_mm = [300, 0, -20]", "xyz_mm = [300, 0, -20]\nradius_mm = 5"), 14, "does not apply to shape 'box'"),
        (("size_mm = [1000, 800, 40]", "size_mm = [1000, 800, 40"), 13, "expected a TOML scene file"),
        (("thermocomp_scene = 1", "thermocomp_scene = 2"), 1, "expected a format version in [1]"),
    ],
)
def test_scene_errors_name_file_line_and_what_was_expected(tmp_path: Path, edit, line, words) -> None:
    path = write(tmp_path, MINIMAL.replace(*edit), "s.toml")
    with pytest.raises(InputError) as exc:
        read_scene(path)
    assert words in located(exc, path, line)


def test_missing_format_version_and_missing_keys(tmp_path: Path) -> None:
    path = write(tmp_path, MINIMAL.replace("thermocomp_scene = 1\n", ""), "s.toml")
    with pytest.raises(InputError, match="is this a thermocomp scene file"):
        read_scene(path)
    path = write(tmp_path, MINIMAL.replace('shape = "box"\n', ""), "s.toml")
    with pytest.raises(InputError) as exc:
        read_scene(path)
    assert "expected the key 'shape'" in located(exc, path, 8)  # the line of its [[object]]


def test_duplicate_object_names(tmp_path: Path) -> None:
    path = write(tmp_path, MINIMAL + MINIMAL[MINIMAL.index("[[object]]"):], "s.toml")
    with pytest.raises(InputError) as exc:
        read_scene(path)
    assert "taken by the object on line 8" in located(exc, path, 14)


def test_mesh_objects_need_a_unit_and_an_existing_file(tmp_path: Path) -> None:
    mesh = tmp_path / "part.stl"
    mesh.write_bytes(b"")
    body = MINIMAL + '\n[[object]]\nname = "part"\nrole = "workpiece"\nshape = "mesh"\nfile = "part.stl"\n'
    path = write(tmp_path, body, "s.toml")
    with pytest.raises(InputError) as exc:
        read_scene(path)
    assert "mesh files carry no unit" in located(exc, path, 15)
    path = write(tmp_path, body + 'mesh_unit = "inch"\n', "s.toml")
    with pytest.raises(InputError, match="expected one of 'm', 'mm'"):
        read_scene(path)
    path = write(tmp_path, body.replace("part.stl", "missing.stl") + 'mesh_unit = "mm"\n', "s.toml")
    with pytest.raises(InputError) as exc:
        read_scene(path)
    assert "expected an existing file" in located(exc, path, 19)
    obj = read_scene(write(tmp_path, body + 'mesh_unit = "mm"\n', "s.toml")).object("part")
    assert obj.mesh_file == mesh.resolve() and obj.mesh_scale == MESH_UNITS["mm"] == 1e-3


def test_missing_and_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="file not found"):
        read_scene(tmp_path / "nope.toml")
    with pytest.raises(InputError, match="got a directory"):
        read_scene(tmp_path)


def test_mesh_map_errors(tmp_path: Path) -> None:
    (tmp_path / "l1.stl").write_bytes(b"")
    good = 'thermocomp_meshes = 1\nmesh_unit = "m"\n[links.link1]\nvisual = "l1.stl"\nxyz_mm = [0, 85, 0]\n'
    m = read_mesh_map(write(tmp_path, good, "m.toml"))
    np.testing.assert_allclose(m.links["link1"].T_link_mesh[:3, 3], [0, 0.085, 0])
    assert m.links["link1"].collision is None
    path = write(tmp_path, good.replace("link1", "elbow"), "m.toml")
    with pytest.raises(InputError) as exc:
        read_mesh_map(path)
    assert "expected a link name base, link1" in located(exc, path, 3)
    path = write(tmp_path, good.replace('mesh_unit = "m"\n', ""), "m.toml")
    with pytest.raises(InputError, match="carry no unit"):
        read_mesh_map(path)
    path = write(tmp_path, good.replace("l1.stl", "l2.stl"), "m.toml")
    with pytest.raises(InputError) as exc:
        read_mesh_map(path)
    assert "expected an existing mesh file" in located(exc, path, 4)


def test_gofa_reference_mesh_map() -> None:
    if not GOFA_CAD.is_dir():
        pytest.skip(f"GoFa CAD not found at {GOFA_CAD} (../shared beside the repository)")
    m = read_mesh_map(SCENES / "gofa_reference_cad.toml")
    assert sorted(m.links) == ["base", "link1", "link2", "link3", "link4", "link5", "link6"]
    assert all(link.visual.is_file() and link.collision.is_file() for link in m.links.values())
    # The mesh frames sit on the xacro's joint origins: thermocomp's joint origin plus the offset.
    chain = load_robot("gofa")
    joints = np.cumsum(chain.p, axis=0)
    xacro = np.array([[0, 0, 265], [0, 0, 265], [0, 0, 709], [0, 0, 819], [470, 0, 819], [571, 0, 899]]) / 1000
    for k in range(6):
        np.testing.assert_allclose(joints[k] + m.links[f"link{k + 1}"].T_link_mesh[:3, 3], xacro[k], atol=1e-10)


@pytest.mark.parametrize("name", ["bed/1", "bed 1", "bed:1", "bed#1", "bed[1]", "bed.1", "bett\u00e9"])
def test_object_names_a_simulator_refuses_are_located_errors(tmp_path: Path, name: str) -> None:
    path = write(tmp_path, MINIMAL + f'\n[[object]]\nrole = "print_bed"\nname = "{name}"\nshape = "box"\n'
                            'size_mm = [100, 100, 10]\n', "s.toml")
    with pytest.raises(InputError) as exc:
        read_scene(path)
    message = located(exc, path, 17)  # the line of the name key, not of its table
    assert "[[object]] 2 name" in message and "letters, digits, '_' or '-'" in message and repr(name) in message
    ok = read_scene(write(tmp_path, MINIMAL.replace('name = "table"', 'name = "table_1-A"').replace(
        'mount = "table"', 'mount = "table_1-A"'), "ok.toml"))
    assert ok.objects[0].name == "table_1-A"
