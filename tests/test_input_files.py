"""Every reader refuses a missing file and a directory alike, naming the file (thermocomp.io.files)."""

from __future__ import annotations

import numpy as np
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


def _csv_readers():
    """Every CSV reader opening with :func:`thermocomp.io.csvtext.header_and_rows`, and its empty-file message."""
    from thermocomp.io.chain_csv import read_chain_csv
    from thermocomp.io.csvtext import joint_rows
    from thermocomp.io.deformation_csv import COLUMNS, read_deformation_csv
    from thermocomp.io.dh_csv import read_dh_csv
    from thermocomp.io.inertia_csv import read_corrections_csv, read_inertia_csv
    from thermocomp.io.measurements_csv import COLUMNS_HELP, read_measurements_csv
    from thermocomp.io.meshes import read_mesh_map as read_mesh_map_csv
    from thermocomp.io.recording_csv import read_recording_csv
    from thermocomp.io.results_rows import read_converged_rows
    from thermocomp.io.scene_joints_csv import read_scene_joints_csv

    rows = "expected a header and rows, got an empty file"
    return {
        "joint table": (lambda p: joint_rows(p, ("joint", "a")), "expected a header joint,a, got an empty file"),
        "measurements": (lambda p: read_measurements_csv(p, 6), f"empty file: expected a header with {COLUMNS_HELP}"),
        "recording": (read_recording_csv, "expected a header line time_s,q1_rad,..,tau1_Nm,.., got an empty file"),
        "deformation": (read_deformation_csv,
                        f"expected a header {','.join(COLUMNS)} and one row per joint, got an empty file"),
        "results": (lambda p: read_converged_rows(p, 6),
                    "expected a results CSV (thermocomp compensate --out), got an empty file"),
        "inertia": (read_inertia_csv, rows),
        "corrections": (lambda p: read_corrections_csv(p, ["base", "link1"]), rows),
        "mesh map": (lambda p: read_mesh_map_csv(p, p.parent, ["base"], 1.0), rows),
        "chain": (read_chain_csv, rows),
        "DH": (read_dh_csv, "expected a header and one row per joint, got an empty file"),
        "scene joints": (lambda p: read_scene_joints_csv(p, 6),
                         "expected a header 'joint,alpha_deg,beta_deg,gamma_deg' and rows, got an empty file"),
    }


@pytest.mark.parametrize("kind", list(_csv_readers()))
@pytest.mark.parametrize("text", ["", "\n\n", "# a comment only\n  \n"])
def test_every_csv_reader_refuses_an_empty_file_in_its_words(tmp_path, kind, text):
    reader, message = _csv_readers()[kind]
    path = tmp_path / "empty.csv"
    path.write_text(text)
    with pytest.raises(InputError) as exc:
        reader(path)
    assert (exc.value.message, exc.value.path, exc.value.row) == (message, str(path), None)


def test_one_reader_of_a_results_csv_gives_play_and_track_the_rows_compensate_wrote(tmp_path):
    """``coppeliasim play`` and ``track --results`` read a results CSV through one io reader: its converged rows'
    angles are the report's (within the CSV's 10 significant digits), its reached positions the report's."""
    from helpers import REPO, run_targets

    from thermocomp.compensation.compensate import CompensationOptions
    from thermocomp.deformation.timelaw import Static
    from thermocomp.io.results_rows import read_converged_rows

    out = tmp_path / "results.csv"
    report = run_targets("irb140", REPO / "deformations" / "exaggerated.csv", REPO / "examples" / "targets_random50.csv",
                         out, options=CompensationOptions(time_law=Static(), minutes=(0.0, 5.0)), keep_results=True)
    rows = read_converged_rows(out, 6, reached=True)
    chunk = report.chunks[0]
    converged = chunk.status == 0
    assert len(rows.target) == int(converged.sum()) == 100
    np.testing.assert_allclose(rows.q, chunk.q[converged], atol=1e-8)
    np.testing.assert_allclose(rows.p_reached, chunk.p_reached[converged], atol=1e-9)
    assert sorted(set(rows.minute.tolist())) == [0.0, 5.0]
    assert rows.at_minute(5.0).target == tuple(report.target_names[k] for k in chunk.target[converged][50:])
