"""Hostile input found by the eleventh adversarial run (hostile11_attack.py), each test a class: a TOML value of the
wrong type, out of range or missing named by the file alone (every TOML file the command line reads: servo models,
time laws, scenes); a xacro error naming the file as xacro resolved it (``/proc/12345/status``) rather than as the user
gave it.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from test_bad_input import case, refused  # noqa: F401  (fixture)

from thermocomp.errors import InputError

# ----- a TOML value of the wrong type, out of range or missing is named at its line and the column of the value


def _models_text() -> str:
    from test_servo_core import RATE, servo_model

    from thermocomp.io.robots import load_robot
    from thermocomp.printing.identification import ServoModels
    from thermocomp.printing.models_toml import models_toml_text

    chain = load_robot("ur5")
    vaf = np.full((6, 2), 99.0)
    return models_toml_text(ServoModels(RATE, 4, (servo_model(2),) * 6, chain.joint_names, orders=(2, 3),
                                        vaf_table=vaf), "ur5")


def _replace_line(text: str, key: str, new: str, occurrence: int = 0) -> tuple[str, int]:
    """``text`` with the ``occurrence``-th line starting ``key =`` replaced by ``new``; and that line's number."""
    lines = text.split("\n")
    numbers = [k for k, line in enumerate(lines) if line.startswith(f"{key} =")]
    k = numbers[occurrence]
    lines[k] = new
    return "\n".join(lines), k + 1


@pytest.mark.parametrize(("key", "new", "occurrence", "column", "words"), [
    ("rate_hz", 'rate_hz = "fast"', 0, 11, "key rate_hz: expected a rate"),
    ("rate_hz", "rate_hz = 0.0", 0, 11, "key rate_hz"),
    ("delay_samples", "delay_samples = -1", 0, 17, "key delay_samples"),
    ("orders", 'orders = ["a"]', 0, 10, "key orders"),
    ("format", 'format = "x"', 0, 10, "key format"),
    ("version", "version = 9", 0, 11, "key version"),
    ("orders", "ordres = [2, 3]", 0, 10, "unknown keys ['ordres']"),
    ("A", 'A = "x"', 2, 5, "joint 'elbow_joint' key A"),
    ("B", "B = [1.0]", 2, 5, "joint 'elbow_joint' key B: expected finite numbers of shape (3,)"),
    ("C", "C = [[nan, 0, 0], [0, 0, 0]]", 1, 5, "joint 'shoulder_lift_joint' key C: expected finite numbers, got nan"),
    ("A", "A = [[2.0, 0, 0], [0, 1.0, 0], [0, 0, 0.5]]", 3, 5, "key A: expected one eigenvalue at 1"),
    ("vaf_pct", "vaf = 1", 1, 7, "unknown keys ['vaf']"),
    ("name", 'name = "elbow"', 1, 8, "[[joint]] tables: expected the robot's joints"),
    ("vaf_by_order_pct", 'vaf_by_order_pct = ["x"]', 0, 20, "key vaf_by_order_pct: expected a list of numbers"),
    ("vaf_by_order_pct", "vaf_by_order_pct = [[1], [2, 3]]", 4, 20, "key vaf_by_order_pct: expected a list of numbers"),
])
def test_a_models_value_is_named_at_its_line_and_column(key, new, occurrence, column, words):
    """Each was "m.toml: key rate_hz: ...", naming no line (a file of six 4x4 matrices); two were tracebacks
    (``vaf_by_order_pct`` of strings, or ragged: numpy's ValueError)."""
    from thermocomp.io.robots import load_robot
    from thermocomp.printing.models_toml import models_from_toml_text

    text, line = _replace_line(_models_text(), key, new, occurrence)
    with pytest.raises(InputError) as info:
        models_from_toml_text(text, "m.toml", load_robot("ur5").joint_names)
    assert words in info.value.message
    assert (info.value.row, info.value.column) == (line, column)


def test_a_models_joint_missing_a_key_is_named_at_its_table():
    from thermocomp.io.robots import load_robot
    from thermocomp.printing.models_toml import models_from_toml_text

    text, _ = _replace_line(_models_text(), "B", "# no B", 4)
    header = [k + 1 for k, line in enumerate(text.split("\n")) if line == "[[joint]]"][4]
    with pytest.raises(InputError, match="joint 'wrist_2_joint': missing key 'B'") as info:
        models_from_toml_text(text, "m.toml", load_robot("ur5").joint_names)
    assert info.value.row == header


def test_a_models_joint_of_numbers_is_refused_naming_its_line():
    """``joint = [1, 2]`` was an AttributeError traceback ('int' object has no attribute 'get')."""
    from thermocomp.io.robots import load_robot
    from thermocomp.printing.models_toml import models_from_toml_text

    text = _models_text().split("\n[[joint]]")[0] + "\njoint = [1, 2]\n"
    with pytest.raises(InputError, match=re.escape("[[joint]] tables: expected the robot's joints")) as info:
        models_from_toml_text(text, "m.toml", load_robot("ur5").joint_names)
    assert info.value.row == text.split("\n").index("joint = [1, 2]") + 1


def test_a_matrix_over_lines_is_read_and_its_rows_are_no_headers():
    """A matrix written over lines (an editor's reformatting) ends with ``  [...]]``: not a table header."""
    from thermocomp.io.robots import load_robot
    from thermocomp.printing.models_toml import models_from_toml_text

    names = load_robot("ur5").joint_names
    text = _models_text()
    models, _ = models_from_toml_text(text, "m.toml", names)
    spread = text.replace("A = [[", "A = [\n  [").replace("], [", "],\n  [")
    again, _ = models_from_toml_text(spread, "m.toml", names)
    np.testing.assert_array_equal(again.joints[5].A, models.joints[5].A)
    bad, line = _replace_line(spread, "B", "B = [1.0]", 5)
    with pytest.raises(InputError) as info:
        models_from_toml_text(bad, "m.toml", names)
    assert info.value.row == line


LAW = '# thermocomp time law\nformat = "thermocomp-time-law"\nversion = 1\nlaw = "first-order"\ntau_min = 44.8\n'
TEMPERATURE = LAW.replace('"first-order"', '"temperature"').replace(
    "tau_min = 44.8\n", "weights_per_C = [1.0]\nreference_C = [20.0]\nlog_minute = [0.0, 1.0]\nlog_C = [[20.0], [21.0]]\n")


@pytest.mark.parametrize(("text", "line", "column", "words"), [
    (LAW.replace("44.8", '"x"'), 5, 11, "key tau_min: expected a number"),
    (LAW.replace("44.8", "-1"), 5, 11, "tau_min: expected a positive number"),
    (LAW.replace("44.8", "nan"), 5, 11, "key tau_min: expected a finite number"),
    (LAW + "tau_cold_min = 3\n", 6, 16, "unknown key 'tau_cold_min'"),
    (LAW.replace("tau_min = 44.8\n", ""), 4, 7, "missing key 'tau_min'"),
    (LAW + "heat_on_min = [[5.0, 1.0]]\n", 6, 15, "heat_on: expected sorted, disjoint intervals"),
    (LAW + "heat_on_min = 5\n", 6, 15, "law 'first-order': heat_on: expected pairs (start_min, stop_min), got 5"),
    (LAW + "heat_on_min = [[1, 2, 3]]\n", 6, 15, "heat_on: expected pairs"),
    (LAW.replace("version = 1", "version = 2"), 3, 11, "key version"),
    (LAW.replace('"first-order"', '"second-order"'), 4, 7, "key law"),
    (LAW.replace('"first-order"', '"linear-ramp"').replace("tau_min = 44.8", 'stabilisation_min = "x"'), 5, 21,
     "key stabilisation_min"),
    (TEMPERATURE.replace("[[20.0], [21.0]]", "[[20.0]]"), 8, 9, "temperature map: expected k weights"),
    (TEMPERATURE.replace("[0.0, 1.0]", "[1.0, 0.0]"), 7, 14, "increasing log minutes"),
    (TEMPERATURE.replace("weights_per_C = [1.0]", "weights_per_C = 1"), 5, 17, "law 'temperature'"),
])
def test_a_time_law_value_is_named_at_its_line_and_column(tmp_path, text, line, column, words):
    """Each was "d.law.toml: key tau_min: ...", naming no line."""
    from thermocomp.io.timelaw_file import read_time_law

    path = tmp_path / "d.law.toml"
    path.write_text(text)
    with pytest.raises(InputError) as info:
        read_time_law(path)
    assert words in info.value.message
    assert (info.value.row, info.value.column) == (line, column)


def test_a_scene_value_is_named_at_its_column_too(tmp_path):
    from helpers import REPO

    from thermocomp.io.scene_file import read_scene

    text = (REPO / "scenes/ur5_print_bed.toml").read_text()
    text, line = _replace_line(text, "radius_mm", "radius_mm = -80")
    path = tmp_path / "s.toml"
    path.write_text(text)
    with pytest.raises(InputError, match="radius_mm: expected a number > 0") as info:
        read_scene(path)
    assert (info.value.row, info.value.column) == (line, 13)


@pytest.mark.parametrize(("text", "line", "column"), [("[robot]\nmodel = 'ur5'\nx = 1 2\n", 3, 7),
                                                       ("a = 1\nb = = 2\n", 2, 5)])
def test_a_toml_syntax_error_is_named_at_its_line_and_column_in_every_reader(tmp_path, text, line, column):
    from thermocomp.io.scene_file import read_scene
    from thermocomp.io.timelaw_file import read_time_law

    path = tmp_path / "x.law.toml"
    path.write_text(text)
    for reader in (read_scene, read_time_law):
        with pytest.raises(InputError) as info:
            reader(path)
        assert (info.value.path, info.value.row, info.value.column) == (str(path), line, column)


# ----- a xacro error names the file as the user gave it


def test_a_xacro_error_names_the_path_the_user_gave(case, capsys):  # noqa: F811
    """``robot show r.xacro`` with r.xacro a link to /proc/self/status named /proc/12345/status (the expansion's own
    process); a link to a file elsewhere named its resolved path."""
    from thermocomp.io.robot_files import read_robot_description

    (case / "r.xacro").symlink_to("/proc/self/status")  # (its content changes as it is read: no snapshot)
    with pytest.raises(InputError, match="xacro: expected well-formed XML") as info:
        read_robot_description("r.xacro")
    assert (info.value.path, info.value.row) == ("r.xacro", 1) and "/proc/" not in str(info.value)
    (case / "r.xacro").unlink()
    (case / "sub").mkdir()
    (case / "sub" / "x.xacro").write_text('<?xml version="1.0"?>\n<robot name="r" xmlns:xacro="http://wiki.ros.org/xacro">'
                                          '\n<link name="${undefined_thing}"/>\n</robot>\n')
    (case / "q.xacro").symlink_to("sub/x.xacro")
    err = refused(case, capsys, ["robot", "show", "q.xacro"], 1, "q.xacro, line 3: xacro: ")
    assert str(case) not in err
    refused(case, capsys, ["robot", "show", "./sub/../sub/x.xacro"], 1, "sub/../sub/x.xacro, line 3: xacro: ")


# ----- meshes given to the inertia command: what the mesh readers or the inertia core took in silence or with a
# ----- traceback


TET = np.array([[0.0, 0.0, 0.0], [0.1, 0.0, 0.0], [0.0, 0.1, 0.0], [0.0, 0.0, 0.1]])
TET_FACES = np.array([[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])


@pytest.mark.parametrize(("vertices", "faces"), [
    (TET[:3], TET_FACES[:1]),  # one triangle: qhull's QhullError traceback (not enough points)
    (np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0.5, 0.5, 0]]) * 0.1, [[0, 1, 4], [1, 2, 4], [2, 3, 4]]),
    (np.array([[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0]]) * 0.1, [[0, 1, 2], [1, 2, 3]]),  # on a line
])
def test_a_convex_hull_of_no_volume_is_refused_naming_the_mesh(vertices, faces):
    """The 'convex_hull' fallback of an open mesh whose vertices span no volume: a traceback for fewer than 4
    (qhull), a sliver joggled by qhull (some 1e-11 of the part thick) taken as the part's volume for a plane."""
    from thermocomp.inertia.solids import solid_properties

    with pytest.raises(InputError, match="span no volume") as info:
        solid_properties(vertices, np.asarray(faces), fallback="convex_hull", source="m/link1.stl")
    assert info.value.path == "m/link1.stl"


def test_a_convex_hull_of_a_solid_is_its_volume():
    from thermocomp.inertia.solids import solid_properties

    got = solid_properties(TET, TET_FACES[:3], fallback="convex_hull", source="t.stl")
    assert got.volume == pytest.approx(0.1 ** 3 / 6, rel=1e-9)


DAE = ('<?xml version="1.0"?>\n<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">\n'
       '<asset><unit meter="1"/><up_axis>Z_UP</up_axis></asset>\n<library_geometries><geometry id="g"><mesh>\n'
       '<source id="s">\n<float_array id="a" count="12">0 0 0 0.1 0 0 0 0.1 0 0 0 0.1</float_array>\n'
       '<technique_common><accessor source="#a" count="4" stride="3"><param name="X" type="float"/>'
       '<param name="Y" type="float"/><param name="Z" type="float"/></accessor></technique_common></source>\n'
       '<vertices id="v"><input semantic="POSITION" source="#s"/></vertices>\n<triangles count="4">'
       '<input semantic="VERTEX" source="#v" offset="0"/><p>0 2 1 0 1 3 0 3 2 1 2 3</p></triangles></mesh></geometry>'
       '</library_geometries>\n<library_visual_scenes><visual_scene id="vs"><node><instance_geometry url="#g"/></node>'
       '</visual_scene></library_visual_scenes><scene><instance_visual_scene url="#vs"/></scene></COLLADA>\n')


@pytest.mark.parametrize("word", ["nan", "inf", "-inf", "NaN", "1e999"])
def test_a_collada_coordinate_not_finite_is_refused_at_its_line(tmp_path, word):
    """pycollada read ``nan`` (and ``inf``) in a <float_array> as 0: a tetrahedron with a vertex moved, in silence."""
    pytest.importorskip("collada")
    from thermocomp.io.meshes import read_mesh

    path = tmp_path / "link1.dae"
    path.write_text(DAE.replace(">0 0 0 0.1", f">{word} 0 0 0.1"))
    with pytest.raises(InputError, match=re.escape(f"<float_array id='a'>: expected finite numbers, got '{word}'")) as info:
        read_mesh(path, 1.0)
    assert (info.value.path, info.value.row) == (str(path), 6)
    path.write_text(DAE)
    assert read_mesh(path, 1.0).vertices.max() == pytest.approx(0.1)


def test_a_binary_stl_cut_short_whose_header_begins_solid_is_named_so(tmp_path):
    """CAD tools write 'solid NAME' in a binary STL's header; cut short, it was read as ASCII and refused as
    "expected triangles, got none", which named nothing wrong."""
    from thermocomp.io.meshes import read_mesh, stl_bytes

    data = stl_bytes(TET, TET_FACES)
    path = tmp_path / "link1.stl"
    path.write_bytes(b"solid part".ljust(80) + data[80:-70])
    with pytest.raises(InputError, match=re.escape("count says 4 triangles (284 bytes), got 214 bytes: the file is cut "
                                                   "short")):
        read_mesh(path, 1.0)
    path.write_bytes(b"solid part".ljust(80) + data[80:])
    assert read_mesh(path, 1.0).faces.shape == (4, 3)


@pytest.mark.parametrize("kind", ["hard link", "symbolic link"])
def test_a_mesh_map_naming_one_file_twice_through_a_link_is_refused(tmp_path, kind):
    """A file listed twice is counted twice (its mass twice); a hard link to it was not seen as the same file."""
    from thermocomp.io.meshes import read_mesh_map, write_stl

    write_stl(tmp_path / "a.stl", TET, TET_FACES)
    (tmp_path / "b.stl").hardlink_to(tmp_path / "a.stl") if kind == "hard link" else (tmp_path / "b.stl").symlink_to("a.stl")
    (tmp_path / "map.csv").write_text("link,mesh,x_mm,y_mm,z_mm,rx_deg,ry_deg,rz_deg\nbase,a.stl,0,0,0,0,0,0\n"
                                      "link1,b.stl,0,0,0,0,0,0\n")
    with pytest.raises(InputError, match="is already listed on line 2") as info:
        read_mesh_map(tmp_path / "map.csv", tmp_path, ["base", "link1"], 1.0)
    assert (info.value.row, info.value.column) == (3, "mesh")


# ----- UR's RTDE recording (servo identify --recording): time that does not run evenly forward, a column twice


def _rtde(times=None, header_edit=lambda h: h):
    from test_servo_sim import _rtde_text

    from thermocomp.printing.identification import IdentificationOptions, MultisineOptions, experiment, layout

    options = IdentificationOptions(multisine=MultisineOptions(period_s=8.0, periods=2))
    u = experiment(options, 125.0, 6)
    full = np.vstack([np.zeros((300, 6)), u, np.zeros((50, 6))])
    text = _rtde_text(full, np.cumsum(full, axis=0) * 0.008, full * 0.5)
    lines = text.split("\n")
    lines[0] = header_edit(lines[0])
    for k, t in (times or {}).items():
        cells = lines[k - 1].split(" ")
        cells[0] = repr(t)
        lines[k - 1] = " ".join(cells)
    return "\n".join(lines), u.shape[0], layout(options, 125.0).step


@pytest.mark.parametrize(("line", "time", "words"), [
    (2000, 999.0, "expected increasing timestamps, got 999.0 after"),  # (two recordings one after the other)
    (2000, 1000.0 + 1997 * 0.008, "expected increasing timestamps"),  # a sample twice
    (2000, 1000.0 + 1998.5 * 0.008, "expected a sample every 8 ms through the experiment, got 12 ms"),  # one lost
    (2000, 1000.0 + 1997.7 * 0.008, "got 5.6 ms after the previous sample"),
])
def test_an_rtde_recording_whose_time_does_not_run_evenly_is_refused_at_its_line(line, time, words):
    """A row out of order, repeated or a sample lost: the median step was checked only, and the identification took
    the samples as evenly spaced (a lost sample shifts every later one by a sample: the delay, the models)."""
    from thermocomp.printing.rtde_csv import read_rtde_text

    text, samples, step = _rtde({line: time})
    with pytest.raises(InputError, match=re.escape(words)) as info:
        read_rtde_text(text, "rec.csv", 6, 125.0, samples, step)
    assert (info.value.path, info.value.row, info.value.column) == ("rec.csv", line, "timestamp")


def test_an_rtde_column_given_twice_is_refused():
    from thermocomp.printing.rtde_csv import read_rtde_text

    text, samples, step = _rtde(header_edit=lambda h: h.replace("safety_mode", "actual_q_2"))
    with pytest.raises(InputError, match="expected each RTDE column once, got actual_q_2 twice") as info:
        read_rtde_text(text, "rec.csv", 6, 125.0, samples, step)
    assert info.value.row == 1


def test_the_identification_of_a_recording_whose_higher_orders_are_unstable_ends_with_their_vaf_nan():
    """A joint that follows its command exactly (an integrator, no dynamics): the models of higher orders are
    unstable and fitting their input matrix over 3,000 samples overflowed: numpy's LinAlgError traceback ("SVD did
    not converge")."""
    from thermocomp.printing.identification import IdentificationOptions, experiment, identify_joint, layout

    options = IdentificationOptions()
    lay = layout(options, 125.0)
    u = experiment(options, 125.0, 1)[:, 0]
    y = np.column_stack([np.cumsum(u) * 0.008, u])
    est, val = slice(0, lay.estimation_end), slice(lay.validation_rest, lay.validation_end)
    models, vafs = identify_joint(u[est], y[est], u[val], y[val] - [y[val.start, 0], 0.0], options.orders,
                                  options.block_rows, 125)
    assert len(models) == len(options.orders) and np.isnan(vafs[1:]).all()
    assert all(np.all(m.B == 0.0) for m, v in zip(models, vafs) if np.isnan(v))


# ----- a numpy scalar's repr (numpy 2: "np.float64(0.28)") in a file written or a message


def test_the_collisions_csv_holds_plain_numbers(tmp_path, capsys):
    """The flagged samples' time_s was written as ``np.float64(0.28)``: a CSV no reader takes."""
    from dynamics_truth import cad_and_truth

    from thermocomp.cli.main import main

    cad, _ = cad_and_truth("ur5", tmp_path)
    exc, rec, flags = tmp_path / "excitation.csv", tmp_path / "rec.csv", tmp_path / "flags.csv"
    assert main(["excite", "--robot", "ur5", "--duration-s", "4", "--rate-hz", "50", "--out", str(exc)]) == 0
    assert main(["simulate-recording", "--truth", str(cad), "--trajectory", str(exc), "--torque-noise-nm", "1",
                 "--seed", "6", "--out", str(rec)]) == 0
    assert main(["collisions", "--robot", str(cad), "--recording", str(rec), "--threshold-nm", "0.5", "--out",
                 str(flags)]) == 2
    rows = [line.split(",") for line in flags.read_text().splitlines()[1:]]
    assert rows and all(0.0 <= float(row[0]) <= 4.0 for row in rows)


def test_a_recording_whose_time_runs_back_names_the_times_as_numbers(tmp_path):
    from thermocomp.io.recording_csv import read_recording_csv

    path = tmp_path / "rec.csv"
    path.write_text("time_s,q1_rad,tau1_Nm\n0.0,0,0\n0.19,0,0\n0.01,0,0\n0.3,0,0\n")
    with pytest.raises(InputError) as info:
        read_recording_csv(path)
    assert info.value.message == "time_s must increase, got 0.01 after 0.19" and info.value.row == 4


# ----- a drive gain out of any drive's range


@pytest.mark.parametrize("gain", ["1e-300", "1e-4", "2e5"])
def test_a_drive_gain_out_of_any_drives_range_is_refused_at_its_cell(tmp_path, gain):
    """A gain of 1e-300 N m/A was taken (> 0): the joint's torques vanished, and identify --gains ended with a
    report of nonsense (exit 2)."""
    from thermocomp.io.drive_gains_csv import read_drive_gains_csv

    path = tmp_path / "g.csv"
    path.write_text("joint,gain_Nm_per_A\n" + "".join(f"{j},{gain if j == 3 else 10.0}\n" for j in range(1, 7)))
    with pytest.raises(InputError, match=re.escape(f"expected a gain from 0.001 to 100000 N m/A (a motor's torque "
                                                   f"constant times its gear ratio), got {float(gain)!r}")) as info:
        read_drive_gains_csv(path, 6)
    assert (info.value.row, info.value.column) == (4, "gain_Nm_per_A")
    path.write_text(path.read_text().replace(gain, "0.001"))
    assert read_drive_gains_csv(path, 6)[2] == 0.001


@pytest.mark.slow
def test_drive_gains_from_two_runs_of_one_load_end_within_their_bound():
    """The unloaded run given again as the loaded one (its currents with new noise): no gain is determined, and the
    fit ran to MINPACK's bound of 100 evaluations per unknown (6,700: minutes; the command's attack timed out at
    300 s). Now MAX_EVALUATIONS (some 15 s of CPU here), then a message naming the file."""
    from test_dynamics_drives import current_recordings

    from thermocomp.dynamics.drive_gains import identify_drive_gains

    chain, _, _, (unloaded, _) = current_recordings(np.random.default_rng(3))
    again = type(unloaded)(time=unloaded.time, q=unloaded.q, tau=unloaded.tau, qd=unloaded.qd, qdd=unloaded.qdd,
                           current=unloaded.current + np.random.default_rng(1).normal(0.0, 0.02, unloaded.current.shape),
                           source="loaded.csv")
    with pytest.raises(InputError, match="did not converge in 200 evaluations: the recordings do not determine") as info:
        identify_drive_gains(chain, unloaded, again, 2.8)
    assert info.value.path == "loaded.csv"


# ----- a print path's targets: an error of the file is located in it


def test_a_print_path_with_a_target_repeated_is_named_at_its_file_and_line():
    """``--path pp.csv`` with one target twice in a row was refused naming --path alone (a file of hundreds)."""
    from thermocomp.printing.paths import targets_path

    p = np.array([[0.4, 0.0, 0.3], [0.45, 0.0, 0.3], [0.45, 0.0, 0.3], [0.5, 0.0, 0.3]])
    with pytest.raises(InputError, match="two consecutive targets at the same position") as info:
        targets_path(np.tile(np.eye(3), (4, 1, 1)), p, 10.0, 125.0, "pp.csv", np.array([3, 4, 6, 7]))
    assert (info.value.path, info.value.row) == ("pp.csv", 6)
    with pytest.raises(InputError, match="expected at least 2 targets") as info:
        targets_path(np.eye(3)[None], p[:1], 10.0, 125.0, "pp.csv", np.array([3]))
    assert info.value.path == "pp.csv"


@pytest.mark.parametrize(("extent", "metres_per_unit"), [(0.1, 1e-30), (100.0, 1e-9), (5e-4, 1e-3), (1e-7, 1.0)])
def test_a_mesh_spanning_less_than_a_micrometre_is_refused_naming_its_unit(tmp_path, extent,
                                                                                        metres_per_unit):
    """A unit wrong by orders of magnitude (a URDF mesh scale of 1e-30) made a link of no volume whose mass and
    inertia were round-off, taken in silence; the bound is the mesh's own span, whatever the unit that made it."""
    import trimesh

    from thermocomp.io.meshes import MIN_EXTENT, read_mesh

    path = tmp_path / "link1.stl"
    trimesh.creation.box(extents=(extent, extent / 2, extent / 4)).export(path)
    assert extent * metres_per_unit < MIN_EXTENT
    with pytest.raises(InputError, match="check its unit") as info:
        read_mesh(path, metres_per_unit)
    assert info.value.path == str(path)
    assert f"{extent * metres_per_unit:.3g} m" in str(info.value)


def test_a_mesh_of_a_millimetre_is_read_at_its_size(tmp_path):
    """The bound does not refuse small real parts: a 1 mm box read in mm is 1e-3 m across (and a 5 cm link read
    as millimetres stays the inertia report's implausible-density warning, not a refusal)."""
    import trimesh

    from thermocomp.io.meshes import read_mesh

    path = tmp_path / "pin.stl"
    trimesh.creation.box(extents=(1.0, 1.0, 1.0)).export(path)
    mesh = read_mesh(path, 1e-3)
    np.testing.assert_allclose(np.ptp(mesh.vertices, axis=0), [1e-3] * 3, rtol=1e-9)


def test_inertia_refuses_meshes_given_in_the_wrong_unit(case, capsys):
    """The command line: boxes of 5e-4 units announced as millimetres span 0.5 um; refused naming the file and the
    unit."""
    import trimesh

    from thermocomp.cli.common import EXIT_INPUT

    folder = case / "meshes"
    folder.mkdir()
    for name in ("base", *(f"link{k}" for k in range(1, 7))):
        trimesh.creation.box(extents=(5e-4, 5e-4, 5e-4)).export(folder / f"{name}.stl")
    refused(case, capsys, ["inertia", "--robot", "irb140", "--meshes", folder, "--units", "mm", "--total-mass", "98"],
            EXIT_INPUT, ".stl", "5e-07 m at 0.001 m per unit", "check its unit")
