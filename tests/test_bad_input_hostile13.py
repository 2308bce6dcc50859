"""Hostile input, round 13: the servo, dynamics and mesh commands (helper hostile13's attacks, through the command
line): each class a test that failed before its fix, with several variants.
"""

from __future__ import annotations

import re

import pytest
from test_bad_input import case, refused  # noqa: F401  (fixture)

from thermocomp.errors import InputError

# ----- servo track: the servo samples over every row and run (paths x speeds x references x controllers x runs)
# ----- are bounded before any is simulated, with a message naming the options; each option was in its range and
# ----- their product ran for years (1,000 runs of line:x at 0.05 mm/s by four controllers: 2e9 samples)


def _models(folder):
    from test_servo_core import RATE, servo_model

    from thermocomp.io.robots import load_robot
    from thermocomp.printing.identification import ServoModels
    from thermocomp.printing.models_toml import models_toml_text

    chain = load_robot("ur5")
    (folder / "m.toml").write_text(models_toml_text(ServoModels(RATE, 4, (servo_model(2),) * 6, chain.joint_names),
                                                    "ur5"))


@pytest.mark.parametrize("options", [
    ["--path", "line:x", "--speed-mm-s", "0.05", "--runs", "1000", "--controller", "mpc-iio", "mpc-io", "pid", "none"],
    ["--path", "line:x", "--speed-mm-s", *[f"{0.1 * k:g}" for k in range(1, 5001)]],
    ["--path", *["line:y"] * 5000, "--speed-mm-s", "10"],
    ["--path", "line:z", "--speed-mm-s", "10", "--runs", "1000", "--controller", "pid", "none"],
    ["--path", "line:x", "--speed-mm-s", "1", "--runs", "100", "--deformation", "d.csv"],
])
def test_a_tracking_campaign_beyond_its_samples_is_refused_naming_its_options(case, capsys, options):
    from thermocomp.app.servo import MAX_TRACK_SAMPLES

    _models(case)
    err = refused(case, capsys, ["servo", "track", "--models", "m.toml", "--out", "o.csv", "--no-progress", *options],
                  1, "--path, --speed-mm-s, --controller and --runs", f"expected at most {MAX_TRACK_SAMPLES:,} servo "
                  "samples over every row and run")
    assert ("twice with --deformation" in err) == ("--deformation" in options)


def test_a_tracking_campaign_within_its_samples_goes_on_to_track(case, monkeypatch):
    """The documented campaigns (4 controllers x 10 runs of line:x at 10 mm/s; 2.5 to 40 mm/s x 5 runs; a warm robot)
    are within the bound: the run goes on to simulate (here replaced by an exception)."""
    import numpy as np
    from test_servo_core import RATE

    from thermocomp.app import servo
    from thermocomp.printing import paths, tracking

    class Simulated(Exception):
        pass

    def simulate(*args):
        raise Simulated

    _models(case)
    monkeypatch.setattr(tracking, "track", simulate)
    for speeds, controllers, runs, deformation in [((10.0,), ("mpc-iio", "mpc-io", "pid", "none"), 10, None),
                                                   ((2.5, 5.0, 10.0, 40.0), ("mpc-iio",), 5, None),
                                                   ((10.0,), ("mpc-iio", "none"), 10, case / "d.csv")]:
        samples = sum(paths.line_path("line:x", v, RATE, np.eye(3)).t.size for v in speeds)
        assert samples * len(controllers) * runs * (1 if deformation is None else 2) <= servo.MAX_TRACK_SAMPLES
        job = servo.ServoTrackJob("ur5", case / "m.toml", ("line:x",), speeds, case / "o.csv", controllers=controllers,
                                  runs=runs, deformation=deformation)
        with pytest.raises(Simulated):
            servo.run_track(job)
    assert not (case / "o.csv").exists()


# ----- servo track: a models file's joint model the tracking cannot use is refused at its [[joint]] table's line (a
# ----- LinAlgError or ValueError traceback from SciPy's Riccati solver came out of the filter's design: B or C of
# ----- zeros, values whose products overflow); an order beyond servo identify's ran the design for minutes (a
# ----- 1,500-square A); a string or a bool was taken as a number


def _models_text() -> str:
    from test_servo_core import RATE, servo_model

    from thermocomp.io.robots import load_robot
    from thermocomp.printing.identification import ServoModels
    from thermocomp.printing.models_toml import models_toml_text

    return models_toml_text(ServoModels(RATE, 4, (servo_model(2),) * 6, load_robot("ur5").joint_names), "ur5")


def _first_joint_key(text: str, key: str, value: str) -> tuple[str, int]:
    """``text`` with the first ``[[joint]]``'s ``key = ...`` line set to ``value``; and that line's number."""
    lines = text.split("\n")
    k = next(i for i, line in enumerate(lines) if line.startswith(f"{key} = "))
    lines[k] = f"{key} = {value}"
    return "\n".join(lines), k + 1


def _order(n: int, diagonal: str = "0.5") -> dict[str, str]:
    rows = [[("1.0" if i == j == 0 else diagonal) if i == j else "0.0" for j in range(n)] for i in range(n)]
    return {"A": "[" + ", ".join("[" + ", ".join(r) + "]" for r in rows) + "]",
            "B": "[" + ", ".join(["0.1"] * n) + "]",
            "C": "[[" + ", ".join(["1.0"] + ["0.0"] * (n - 1)) + "], [" + ", ".join(["0.0"] + ["1.0"] * (n - 1)) + "]]"}


def _with(text: str, values: dict[str, str]) -> tuple[str, int]:
    line = 0
    for key, value in values.items():
        text, at = _first_joint_key(text, key, value)
        line = at if key == "A" else line
    return text, line or at


@pytest.mark.parametrize(("values", "words"), [
    ({"B": "[0.0, 0.0, 0.0]"}, "the filter and the MPC can be designed for"),
    ({"C": "[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]"}, "the filter and the MPC can be designed for"),
    ({"B": "[1e308, 1e308, 1e308]"}, "the filter and the MPC can be designed for"),
    ({"C": "[[1e308, 1e308, 1e308], [1e308, 1e308, 1e308]]"}, "the filter and the MPC can be designed for"),
    (_order(21), "expected a square matrix of order 1 to 20 (servo identify's orders), got order 21"),
    (_order(1500), "expected a square matrix of order 1 to 20 (servo identify's orders), got order 1500"),
    ({"A": '[["1", 0, 0], [0, 0.5, 0], [0, 0, 0.5]]'}, "key A: expected numbers"),
    ({"B": "[true, false, false]"}, "key B: expected numbers"),
    ({"C": '[[1, 0, 0], [0, 1, "0"]]'}, "key C: expected numbers"),
])
def test_a_models_joint_the_tracking_cannot_use_is_refused_at_its_line(values, words):
    from thermocomp.io.robots import load_robot
    from thermocomp.printing.models_toml import models_from_toml_text

    text, _ = _with(_models_text(), values)
    key = re.match(r"key (\w)", words)  # (else the model's: at its key A)
    line = text.split("\n").index(next(t for t in text.split("\n") if t.startswith(f"{key[1] if key else 'A'} = "))) + 1
    with pytest.raises(InputError, match=re.escape(words)) as info:
        models_from_toml_text(text, "m.toml", load_robot("ur5").joint_names)
    assert str(info.value).startswith(f"m.toml, line {line}, column ")
    assert "joint 'shoulder_pan_joint'" in str(info.value)


@pytest.mark.parametrize("values", [{}, _order(20), _order(1), {"A": "[[1, 0, 0], [0, 0, 0], [0, 0, 0]]"}])
def test_a_models_joint_the_tracking_can_use_is_read(values):
    """servo identify's models; the highest order; integers for floats; a model whose other modes are at rest."""
    from thermocomp.io.robots import load_robot
    from thermocomp.printing.models_toml import models_from_toml_text

    text, _ = _with(_models_text(), values) if values else (_models_text(), 0)
    models, robot = models_from_toml_text(text, "m.toml", load_robot("ur5").joint_names)
    assert robot == "ur5"
    assert models.joints[0].order == (len(values.get("B", "[0, 0, 0]").split(",")))


def test_a_models_file_the_tracking_cannot_use_ends_the_command_naming_it(case, capsys):
    text, _ = _with(_models_text(), {"C": "[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]"})
    line = next(k for k, t in enumerate(text.split("\n"), 1) if t.startswith("A = "))
    (case / "m.toml").write_text(text)
    refused(case, capsys, ["servo", "track", "--models", "m.toml", "--path", "line:x", "--speed-mm-s", "10", "--out",
                           "o.csv", "--no-progress"], 1, f"m.toml, line {line}, column", "can be designed for")


# ----- servo track: a path whose motion falls between two servo samples (targets a micrometre apart at 100 mm/s, a
# ----- line at 1 Hz) is a step from its start to its end; its arc length was 0 / 0 and SciPy's Slerp ended the run
# ----- with a ValueError traceback


@pytest.mark.parametrize(("path", "speed", "rate"), [("1 um", 100.0, 125.0), ("1 nm", 1000.0, 1000.0), ("1 um", 1e-3, 1.0),
                                                     ("line:x", 1000.0, 1.0), ("line:z", 1000.0, 2.0)])
def test_a_path_whose_motion_falls_between_two_samples_is_a_step(path, speed, rate):
    import numpy as np

    from thermocomp.printing.paths import LINE_LENGTH, LINE_START_MM, line_path, targets_path

    if path.startswith("line"):
        cart = line_path(path, speed, rate, np.eye(3))
        start, end = np.asarray(LINE_START_MM) * 1e-3, np.asarray(LINE_START_MM) * 1e-3
        end[{"line:x": 0, "line:z": 2}[path]] += LINE_LENGTH
    else:
        step = {"1 um": 1e-6, "1 nm": 1e-9}[path]
        start, end = np.array([0.4, -0.1, 0.3]), np.array([0.4 + step, -0.1, 0.3])
        cart = targets_path(np.tile(np.eye(3), (2, 1, 1)), [start, end], speed, rate)
    assert np.all(np.isfinite(cart.p_world_tcp)) and np.all(np.isfinite(cart.R_world_tcp))
    np.testing.assert_allclose(cart.p_world_tcp[0], start, atol=1e-15)
    np.testing.assert_allclose(cart.p_world_tcp[-1], end, atol=1e-15)
    along = (cart.p_world_tcp - start) @ (end - start) / np.sum((end - start) ** 2)
    assert np.all(np.diff(along) >= 0) and along[0] == 0.0 and along[-1] == pytest.approx(1.0)


def test_a_print_path_of_targets_a_micrometre_apart_is_tracked(case, capsys):
    from test_bad_input import run_cli

    _models(case)
    (case / "p.csv").write_text("name,x_mm,y_mm,z_mm,euler_xyz_a_deg,euler_xyz_b_deg,euler_xyz_c_deg\n"
                                "P1,400,-100,300,180,0,0\nP2,400.001,-100,300,180,0,0\n")
    code, out, err = run_cli(capsys, ["servo", "track", "--models", "m.toml", "--path", "p.csv", "--speed-mm-s", "100",
                                      "--controller", "none", "--out", "o.csv", "--no-progress"])
    assert code == 0, err
    assert "Traceback" not in err
    assert (case / "o.csv").read_text().splitlines()[1].startswith("none,100,p.csv,")


# ----- excite --experiment static: a robot whose links are too light for any joint to see (every formula of Step 2
# ----- left out, no pose chosen) is refused naming the robot file; an empty trajectory ended in a numpy traceback


@pytest.mark.parametrize("mass", ["0.001", "1e-6", "0.01"])
def test_a_static_experiment_of_links_too_light_to_see_is_refused_naming_the_robot(case, capsys, mass):
    from test_bad_input import run_cli

    assert run_cli(capsys, ["robot", "export", "irb140", "--out", "full.urdf"])[0] == 0  # (with its CAD inertials)
    text = re.sub(r'<mass value="[^"]*"', f'<mass value="{mass}"', (case / "full.urdf").read_text())
    (case / "full.urdf").unlink()
    assert text.count("<mass") >= 6
    (case / "r.urdf").write_text(text)
    refused(case, capsys, ["excite", "--robot", "r.urdf", "--experiment", "static", "--out", "o.csv"], 1,
            "r.urdf: the static experiment: no link's reference (CAD) gravity torque reaches 0.5 N m")


# ----- a COLLADA mesh's <unit meter> not a finite number > 0 is refused naming the file (nan and inf passed the
# ----- check against the unit given, the mesh read at the given one)


def _dae(meter: str) -> str:
    corners = [(x, y, z) for x in (0.0, 0.1) for y in (0.0, 0.1) for z in (0.0, 0.1)]
    faces = [(0, 1, 3), (0, 3, 2), (4, 6, 7), (4, 7, 5), (0, 4, 5), (0, 5, 1), (2, 3, 7), (2, 7, 6), (0, 2, 6),
             (0, 6, 4), (1, 5, 7), (1, 7, 3)]
    points = " ".join(f"{c:g}" for v in corners for c in v)
    return ('<?xml version="1.0"?>\n<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">'
            f'<asset><unit meter="{meter}"/><up_axis>Z_UP</up_axis></asset><library_geometries><geometry id="g"><mesh>'
            f'<source id="p"><float_array id="pa" count="24">{points}</float_array><technique_common>'
            '<accessor source="#pa" count="8" stride="3"><param name="X" type="float"/><param name="Y" type="float"/>'
            '<param name="Z" type="float"/></accessor></technique_common></source><vertices id="v"><input '
            'semantic="POSITION" source="#p"/></vertices><triangles count="12"><input semantic="VERTEX" source="#v" '
            f'offset="0"/><p>{" ".join(str(i) for f in faces for i in f)}</p></triangles></mesh></geometry>'
            '</library_geometries><library_visual_scenes><visual_scene id="s"><node><instance_geometry url="#g"/>'
            '</node></visual_scene></library_visual_scenes><scene><instance_visual_scene url="#s"/></scene></COLLADA>\n')


@pytest.mark.parametrize("meter", ["nan", "inf", "-inf", "NaN", "0", "-0.001"])
def test_a_collada_unit_not_a_finite_positive_number_is_refused_naming_the_file(tmp_path, meter):
    from thermocomp.io.meshes import read_mesh

    (tmp_path / "m.dae").write_text(_dae(meter))
    with pytest.raises(InputError, match=re.escape(f"<unit meter>: expected a finite number > 0 (metres per unit), "
                                                   f"got {meter!r}")) as info:
        read_mesh(tmp_path / "m.dae", 1.0)
    assert info.value.path == str(tmp_path / "m.dae")


@pytest.mark.parametrize("meter", ["1", "0.001"])
def test_a_collada_unit_of_metres_per_unit_is_read_at_it(tmp_path, meter):
    import numpy as np

    from thermocomp.io.meshes import read_mesh

    (tmp_path / "m.dae").write_text(_dae(meter))
    mesh = read_mesh(tmp_path / "m.dae", float(meter))
    np.testing.assert_allclose(np.ptp(mesh.vertices, axis=0), [0.1 * float(meter)] * 3, rtol=1e-6)


# ----- an OBJ face whose vertex index lies beyond the file's vertices is refused at its line and column (trimesh's
# ----- IndexError came out as "cannot read the mesh: index 98 is out of bounds for axis 0 with size 3")

_TETRA = "v 0 0 0\nv 0.1 0 0\nv 0 0.1 0\nv 0 0 0.1\n"


@pytest.mark.parametrize(("faces", "line", "column", "index"), [
    ("f 1 3 2\nf 1 2 99\n", 6, 7, "99"),
    ("f 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 5\n", 8, 7, "5"),
    ("f 1/1/1 3/3/3 2/2/2\nf 1/1 2/2 -7/7\n", 6, 11, "-7"),
    ("# faces\n  f 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4 400\n", 9, 9, "400"),
])
def test_an_obj_face_index_beyond_its_vertices_is_refused_at_its_line(tmp_path, faces, line, column, index):
    from thermocomp.io.meshes import read_mesh

    (tmp_path / "m.obj").write_text(_TETRA + faces)
    with pytest.raises(InputError, match=re.escape(f"expected face vertex indices within the file's 4 vertices, got "
                                                   f"{index}")) as info:
        read_mesh(tmp_path / "m.obj", 1.0)
    assert (info.value.row, info.value.column) == (line, column)


@pytest.mark.parametrize("faces", ["f 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n", "f -4 -2 -3\nf -4 -3 -1\nf -4 -1 -2\nf -3 -2 -1\n"])
def test_an_obj_face_of_indices_within_its_vertices_is_read(tmp_path, faces):
    from thermocomp.io.meshes import read_mesh

    (tmp_path / "m.obj").write_text(_TETRA + faces)
    assert len(read_mesh(tmp_path / "m.obj", 1.0).faces) == 4
