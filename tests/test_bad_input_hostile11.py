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
    (LAW + "heat_on_min = 5\n", 6, 15, "law 'first-order'"),
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
