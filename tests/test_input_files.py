"""Every reader refuses a missing file and a directory alike, naming the file (thermocomp.io.files)."""

from __future__ import annotations

import pytest

from thermocomp.errors import InputError
from thermocomp.io.csvtext import CsvLines
from thermocomp.io.files import open_input, read_input_bytes
from thermocomp.io.scene_file import read_mesh_map, read_scene
from thermocomp.io.urdf import read_urdf

READERS = {
    "scene": (read_scene, "expected a scene file, got a directory"),
    "mesh map": (read_mesh_map, "expected a mesh map file, got a directory"),
    "URDF": (read_urdf, "expected a URDF file, got a directory"),
    "CSV": (CsvLines, "expected a file, got a directory"),
}


@pytest.mark.parametrize("kind", READERS)
def test_missing_file_and_directory(tmp_path, kind):
    reader, directory_message = READERS[kind]
    missing = tmp_path / "nope"
    with pytest.raises(InputError, match="file not found") as exc:
        reader(missing)
    assert exc.value.path == str(missing)
    with pytest.raises(InputError, match=directory_message) as exc:
        reader(tmp_path)
    assert exc.value.path == str(tmp_path)


def test_read_input_bytes(tmp_path):
    path = tmp_path / "a.bin"
    path.write_bytes(b"\xef\xbb\xbfabc\n")
    assert read_input_bytes(path) == b"\xef\xbb\xbfabc\n"
    with open_input(path, "CSV") as handle:
        assert handle.read() == path.read_bytes()
    with pytest.raises(InputError, match="expected a mesh file, got a directory"):
        read_input_bytes(tmp_path, "mesh")


def test_scene_files_use_the_mesh_readers_units():
    from thermocomp.io.meshes import UNITS
    from thermocomp.io.scene_file import MESH_UNITS

    assert MESH_UNITS is UNITS
