"""A mesh PyBullet cannot load is a located error naming the scene (or mesh map), its line and the mesh.

The reviewer's repro: a scene object's mesh ``.ply``, or an ``.stl`` holding
garbage, crashed ``thermocomp sim`` with ``pybullet.error: createCollisionShape
failed.``; the same in a mesh map named a deleted temporary URDF.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import REPO, write

pb = pytest.importorskip("pybullet", reason="pybullet is a dependency of thermocomp (pip install -e .)")

from thermocomp.app import sim as app_sim
from thermocomp.cli.main import main
from thermocomp.errors import InputError
from thermocomp.io.scene_file import read_mesh_map, read_scene
from thermocomp.simulators.pybullet import cell as sim

IRB140_CELL = REPO / "scenes" / "irb140_paper_cell.toml"
ZERO = REPO / "deformations" / "zero.csv"
RANDOM50 = REPO / "examples" / "targets_random50.csv"
GARBAGE = b"this is not a mesh\x00\x01\x02"


def _scene(tmp_path: Path, mesh_name: str) -> tuple[Path, int]:
    """A copy of the IRB140 cell with a mesh object ``mesh_name``; returns it and the line of its ``file`` key."""
    text = IRB140_CELL.read_text() + ('\n[[object]]\nname = "part"\nrole = "workpiece"\nshape = "mesh"\n'
                                      f'file = "{mesh_name}"\nmesh_unit = "m"\nxyz_mm = [700, -400, 100]\n')
    path = write(tmp_path, text, "cell.toml")
    lines = text.splitlines()
    return path, lines.index(f'file = "{mesh_name}"') + 1


def _mesh_map_scene(tmp_path: Path, mesh_name: str) -> tuple[Path, Path]:
    meshes = write(tmp_path, f'thermocomp_meshes = 1\nmesh_unit = "m"\n[links.link6]\nvisual = "{mesh_name}"\n'
                             f'collision = "{mesh_name}"\n', "cad.toml")
    scene = write(tmp_path, IRB140_CELL.read_text().replace('mount = "table"', 'mount = "table"\nmeshes = "cad.toml"'),
                  "cell.toml")
    return scene, meshes


def _sim(scene: Path, *extra: str) -> list[str]:
    return ["sim", "--scene", str(scene), "--deformation", str(ZERO), "--targets", str(RANDOM50), "--static",
            "--minutes", "0", *extra]


def test_a_scene_mesh_of_another_type_is_refused_at_its_line(tmp_path: Path) -> None:
    (tmp_path / "part.ply").write_text("ply\nformat ascii 1.0\nend_header\n")
    scene, line = _scene(tmp_path, "part.ply")
    with pytest.raises(InputError) as exc:
        read_scene(scene)
    assert exc.value.path == str(scene) and exc.value.row == line
    assert "part.ply" in str(exc.value) and ".stl, .obj" in str(exc.value)


def test_a_mesh_map_mesh_of_another_type_is_refused_at_its_line(tmp_path: Path) -> None:
    (tmp_path / "link6.ply").write_text("ply\nformat ascii 1.0\nend_header\n")
    _, meshes = _mesh_map_scene(tmp_path, "link6.ply")
    with pytest.raises(InputError) as exc:
        read_mesh_map(meshes)
    assert exc.value.path == str(meshes) and exc.value.row == 4  # the visual key
    assert "link6.ply" in str(exc.value) and "visual" in str(exc.value)


@pytest.mark.slow
def test_a_garbage_scene_mesh_is_an_error_naming_scene_line_and_mesh(tmp_path: Path, capsys) -> None:
    (tmp_path / "part.stl").write_bytes(GARBAGE)
    scene, line = _scene(tmp_path, "part.stl")
    setup = app_sim.load_setup(app_sim.SimInputs(None, ZERO, RANDOM50, scene=scene))
    obj = setup.scene.object("part")
    with pytest.raises(InputError) as exc:
        sim.save_screenshot(setup, tmp_path / "shot.png", width=160, height=120)
    assert exc.value.path == str(scene) and exc.value.row == obj.line
    assert str(tmp_path / "part.stl") in str(exc.value)
    assert not (tmp_path / "shot.png").exists()
    # Through the command line: a located message, exit status 1, no traceback.
    assert main(_sim(scene, "--collisions")) == 1
    err = capsys.readouterr().err
    assert f"{scene}, line {obj.line}" in err and "part.stl" in err and "Traceback" not in err


def test_a_garbage_mesh_map_mesh_is_an_error_naming_the_map_and_the_mesh(tmp_path: Path, capsys) -> None:
    (tmp_path / "link6.stl").write_bytes(GARBAGE)
    scene, meshes = _mesh_map_scene(tmp_path, "link6.stl")
    assert main(_sim(scene, "--collisions")) == 1
    err = capsys.readouterr().err
    assert f"{meshes}: [links.link6]" in err and str(tmp_path / "link6.stl") in err and ".urdf" not in err


def test_a_robot_file_mesh_of_a_type_no_reader_takes_is_refused_by_sim(tmp_path: Path, capsys) -> None:
    """A URDF robot whose collision mesh is a .3ds ended `sim` in trimesh's NotImplementedError (issue 28)."""
    urdf = tmp_path / "r.urdf"
    assert main(["robot", "export", "irb140", "--with-meshes", "--out", str(urdf)]) == 0
    (tmp_path / "link1.3ds").write_bytes((REPO / "robots" / "irb140" / "meshes" / "link1.stl").read_bytes())
    urdf.write_text(urdf.read_text().replace(str(REPO / "robots" / "irb140" / "meshes" / "link1.stl"), "link1.3ds"))
    capsys.readouterr()
    shot = tmp_path / "shot.png"
    status = main(["sim", "--robot", str(urdf), "--deformation", str(ZERO), "--targets", str(RANDOM50), "--static",
                   "--minutes", "0", "--screenshot", str(shot)])
    err = capsys.readouterr().err
    assert status == 1 and "Traceback" not in err
    assert "link1.3ds" in err and "expected a mesh file (.stl, .obj, .dae)" in err
    assert not shot.exists()


def test_a_fifo_or_an_oversized_file_as_a_mesh_is_named_for_what_it_is(tmp_path: Path) -> None:
    """A FIFO given as a mesh was reported as 'got a directory'; a 4 GB mesh ran out of memory (issue 28)."""
    import os

    from thermocomp.io.meshes import MAX_MESH_BYTES, read_mesh

    os.mkfifo(tmp_path / "pipe.stl")
    with pytest.raises(InputError, match="expected a mesh file, got a FIFO"):
        read_mesh(tmp_path / "pipe.stl", 1.0)
    huge = tmp_path / "huge.stl"
    with huge.open("wb") as handle:  # sparse: no disk used, and never read
        handle.truncate(MAX_MESH_BYTES + 1)
    with pytest.raises(InputError, match=r"expected a mesh file of at most 512 MiB, got 536,870,913 bytes") as exc:
        read_mesh(huge, 1.0)
    assert exc.value.path == str(huge)


@pytest.mark.parametrize(("element", "attribute", "bad"), [
    ("visual", "origin xyz", "0 0 zz"), ("collision", "origin rpy", "nan 0 0"), ("visual", "mesh scale", "a b c"),
])
def test_a_bad_number_of_a_urdf_mesh_is_named_with_its_line(tmp_path: Path, element, attribute, bad) -> None:
    """A URDF's mesh origin or scale that is not a number named the file but not the line (issue 28)."""
    from thermocomp.io.meshes import read_urdf_meshes

    urdf = tmp_path / "r.urdf"
    assert main(["robot", "export", "irb140", "--with-meshes", "--out", str(urdf)]) == 0
    lines = urdf.read_text().splitlines()
    tag, key = attribute.split()
    start = next(k for k, line in enumerate(lines) if line.strip() == f"<{element}>")
    row = next(k for k in range(start, len(lines)) if f"<{tag} " in lines[k])
    old = lines[row].split(f'{key}="')[1].split('"')[0]
    lines[row] = lines[row].replace(f'{key}="{old}"', f'{key}="{bad}"')
    urdf.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError) as exc:
        read_urdf_meshes(urdf, element)
    assert exc.value.path == str(urdf) and exc.value.row == row + 1 and repr(bad) in exc.value.message
