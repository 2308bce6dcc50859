"""Robot files: DH tables as CSV, the table form, and `thermocomp robot` export."""

from __future__ import annotations

import re

import numpy as np
import pytest

from thermocomp.cli.main import EXIT_INPUT, EXIT_OK, main
from thermocomp.deformation import DeformationTable, deformed_model
from thermocomp.errors import InputError
from thermocomp.io.deformation_csv import write_deformation_csv
from thermocomp.io.robots import BUILTIN_ROBOTS, load_robot
from thermocomp.kinematics.fk import fk_matrix
from thermocomp.kinematics.model import nominal_model

UR5_STANDARD = """# UR5, standard DH (seed 004; ur_description values)
joint,a_mm,alpha_deg,d_mm,theta_offset_deg,lower_deg,upper_deg,velocity_deg_s
shoulder_pan,0,90,89.159,0,-360,360,180
shoulder_lift,-425,0,0,0,-360,360,180
elbow,-392.25,0,0,0,-180,180,180
wrist_1,0,90,109.15,0,-360,360,180
wrist_2,0,-90,94.65,0,-360,360,180
wrist_3,0,0,82.3,0,-360,360,180
"""

# The same arm in Craig's modified DH: a_{i-1}, alpha_{i-1} before each joint.
UR5_MODIFIED = """joint,a_prev_mm,alpha_prev_deg,d_mm,theta_offset_deg,lower_deg,upper_deg
shoulder_pan,0,0,89.159,0,-360,360
shoulder_lift,0,90,0,0,-360,360
elbow,-425,0,0,0,-180,180
wrist_1,-392.25,0,109.15,0,-360,360
wrist_2,0,90,94.65,0,-360,360
wrist_3,0,-90,82.3,0,-360,360
"""


def _random_q(chain, n=50):
    return np.random.default_rng(11).uniform(np.maximum(chain.lower, -np.pi), np.minimum(chain.upper, np.pi), (n, chain.n_joints))


def test_standard_dh_file_is_the_builtin_ur5(tmp_path):
    path = tmp_path / "ur5_dh.csv"
    path.write_text(UR5_STANDARD)
    dh = load_robot(str(path))
    ur5 = load_robot("ur5")
    q = _random_q(ur5)
    np.testing.assert_allclose(fk_matrix(nominal_model(dh), q), fk_matrix(nominal_model(ur5), q), atol=1e-12)
    np.testing.assert_allclose(np.degrees(dh.velocity), 180.0)


def test_modified_dh_file_gives_the_same_tcp_position(tmp_path):
    std, mod = tmp_path / "std.csv", tmp_path / "mod.csv"
    std.write_text(UR5_STANDARD)
    mod.write_text(UR5_MODIFIED)
    a, b = load_robot(str(std)), load_robot(str(mod))
    q = _random_q(a)
    # both put the flange frame at wrist 3 with z along its axis
    Ta, Tb = fk_matrix(nominal_model(a), q), fk_matrix(nominal_model(b), q)
    np.testing.assert_allclose(Ta[:, :3, 3], Tb[:, :3, 3], atol=1e-12)
    np.testing.assert_allclose(Ta[:, :3, 2], Tb[:, :3, 2], atol=1e-12)


def test_dh_file_errors_name_file_line_and_column(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text(UR5_STANDARD.replace("-392.25", "x"))
    with pytest.raises(InputError, match=r"bad\.csv, line 5, column 'a_mm'"):
        load_robot(str(path))


def test_a_table_form_row_with_more_cells_than_its_header_is_refused(tmp_path):
    # an extra cell was dropped silently (found by the issue 9 follow-up adversarial run); the other
    # CSV readers refuse it, naming the cell
    from thermocomp.io.chain_csv import chain_csv_text

    lines = chain_csv_text(load_robot("irb140")).splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("row,"))
    lines[header + 2] += ",5"  # joint 1
    path = tmp_path / "robot.csv"
    path.write_text("\n".join(lines) + "\n")
    n = len(lines[header].split(","))
    with pytest.raises(InputError, match=rf"robot\.csv, line {header + 3}, column '{n + 1}': expected {n} cells, "
                                         rf"got {n + 1}"):
        load_robot(str(path))


@pytest.mark.parametrize("name", BUILTIN_ROBOTS)
def test_export_table_form_and_urdf_round_trip(name, tmp_path, capsys):
    chain = load_robot(name)
    q = _random_q(chain)
    for suffix in (".csv", ".urdf"):
        out = tmp_path / f"{name}{suffix}"
        assert main(["robot", "export", name, "--out", str(out)]) == EXIT_OK
        back = load_robot(str(out))
        np.testing.assert_allclose(fk_matrix(nominal_model(back), q), fk_matrix(nominal_model(chain), q), atol=1e-12)
        if suffix == ".csv":  # the table form round-trips bit for bit
            for field in ("p", "axis", "sign", "offset", "lower", "upper", "velocity", "home", "T_world_base"):
                np.testing.assert_array_equal(getattr(back, field), getattr(chain, field), err_msg=field)


def test_export_deformed_urdf_and_refuse_deformed_csv(tmp_path, capsys):
    chain = load_robot("irb140")
    table = DeformationTable.from_mm_deg(np.full((6, 6), 0.7))
    write_deformation_csv(table, tmp_path / "d.csv")
    out = tmp_path / "deformed.urdf"
    assert main(["robot", "export", "irb140", "--deformation", str(tmp_path / "d.csv"), "--fraction", "0.5",
                 "--out", str(out)]) == EXIT_OK
    back = load_robot(str(out))
    q = _random_q(chain)
    np.testing.assert_allclose(fk_matrix(nominal_model(back), q), fk_matrix(deformed_model(chain, table, 0.5), q),
                               atol=1e-12)
    assert main(["robot", "export", "irb140", "--deformation", str(tmp_path / "d.csv"),
                 "--out", str(tmp_path / "x.csv")]) == EXIT_INPUT
    assert "URDF only" in capsys.readouterr().err
    assert not (tmp_path / "x.csv").exists()


def test_show_prints_the_table_form(capsys):
    assert main(["robot", "show", "irb140"]) == EXIT_OK
    text = capsys.readouterr().out
    assert text.splitlines()[0].startswith("row,name,px_mm")
    assert "\n4,axis4,238.5,58.0,0.0," in text and "-120.0,120.0" in text  # the typed values, not round-off


def _table_form_with(row: int, column: str, value: str) -> tuple[str, int]:
    from thermocomp.io.chain_csv import chain_csv_text

    lines = chain_csv_text(load_robot("irb140")).splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("row,"))
    names = lines[header].split(",")
    cells = lines[header + 1 + row].split(",")
    cells[names.index(column)] = value
    lines[header + 1 + row] = ",".join(cells)
    return "\n".join(lines) + "\n", header + 2 + row


@pytest.mark.parametrize(("form", "row", "column", "value", "words"), [
    # finite but no robot has it: a 7e9 mm link and a 1e-300 deg/s joint made a program's timing overflow
    ("table", 2, "px_mm", "7e9", "at most 1e+06 mm"),
    ("table", 0, "pz_mm", "-2e6", "at most 1e+06 mm"),  # the base row
    ("table", 2, "velocity_deg_s", "1e-300", "at least 5.73e-05 deg/s"),
    ("table", 3, "upper_deg", "1e9", "at most 57295.8 deg"),
    ("dh", 2, "a_mm", "-4.25e9", "at most 1e+06 mm"),
    ("dh", 3, "velocity_deg_s", "1e-300", "at least 5.73e-05 deg/s"),
    ("dh", 1, "lower_deg", "-1e7", "at most 57295.8 deg"),
])
def test_table_and_dh_values_no_robot_has_are_refused_at_their_cell(tmp_path, form, row, column, value, words):
    if form == "table":
        text, line = _table_form_with(row, column, value)
    else:
        lines = UR5_STANDARD.splitlines()
        cells = lines[1 + row].split(",")
        cells[lines[1].split(",").index(column)] = value
        lines[1 + row] = ",".join(cells)
        text, line = "\n".join(lines) + "\n", 2 + row
    path = tmp_path / "robot.csv"
    path.write_text(text)
    with pytest.raises(InputError, match=rf"robot\.csv, line {line}, column '{column}': .*{re.escape(words)}"):
        load_robot(str(path))
