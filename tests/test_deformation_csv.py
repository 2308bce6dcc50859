"""Deformation-table CSV (seed 002, Tables 8-11): the paper's files, every error located, the writer."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from helpers import assert_located
from helpers import write as _write

from thermocomp.deformation.table import DeformationTable
from thermocomp.errors import InputError
from thermocomp.io.deformation_csv import deformation_csv_text, read_deformation_csv, write_deformation_csv
from thermocomp.tolerances import ROUNDTRIP_ANGLE_TOL, ROUNDTRIP_POSITION_TOL

HEADER = "Dx,Dy,Dz,Dox,Doy,Doz"
ONES = "1,1,1,1,1,1"


def write(tmp_path: Path, text: str, name: str = "table.csv") -> Path:
    return _write(tmp_path, text, name)


def read_error(path: Path, **kwargs) -> InputError:
    with pytest.raises(InputError) as info:
        read_deformation_csv(path, **kwargs)
    return info.value


# ---------------------------------------------------------------------------
# The paper's files


def test_measured_table_matches_file_text(paper):
    path = paper / "deformations_measured.csv"
    table = read_deformation_csv(path, n_joints=6)
    assert table.n_joints == 6
    assert table.source == str(path)
    # Spot checks against the file's text (mm, deg -> m, rad).
    assert table.joints[0, 0] == pytest.approx(-0.0200698e-3, rel=1e-15)
    assert table.joints[0, 5] == pytest.approx(math.radians(-0.0137), rel=1e-15)
    assert table.joints[1, 3] == pytest.approx(math.radians(0.0108), rel=1e-15)
    assert table.joints[2, 1] == pytest.approx(0.11485519e-3, rel=1e-15)
    assert table.joints[5, 0] == pytest.approx(-0.0162926e-3, rel=1e-15)
    # Every cell against a plain reading of the text; no base or tool rows in the paper's form.
    text = path.read_text(encoding="utf-8").splitlines()
    assert text[0] == HEADER
    want = np.array([[float(c) for c in line.split(",")] for line in text[1:]])
    np.testing.assert_allclose(table.joints[:, :3], want[:, :3] / 1000.0, rtol=1e-15, atol=0)
    np.testing.assert_allclose(table.joints[:, 3:], np.radians(want[:, 3:]), rtol=1e-15, atol=0)
    assert np.all(table.base == 0) and np.all(table.tool == 0)


def test_exaggerated_and_zero_tables(paper):
    exaggerated = read_deformation_csv(paper / "deformations_exaggerated.csv", n_joints=6)
    np.testing.assert_allclose(exaggerated.joints[:, :3], 1e-3, rtol=1e-15)
    np.testing.assert_allclose(exaggerated.joints[:, 3:], math.pi / 180, rtol=1e-15)
    zero = read_deformation_csv(paper / "deformations_zero.csv")
    assert zero.n_joints == 6 and not np.any(zero.joints)


def test_paper_table_for_a_robot_with_other_joint_count(paper):
    path = paper / "deformations_measured.csv"
    exc = read_error(path, n_joints=7)
    assert_located(exc, path, 7, None)
    assert "expected 7 joint rows for a 7-joint robot, got 6" in exc.message
    exc = read_error(path, n_joints=5)
    assert_located(exc, path, 7, None)  # line 7 holds joint row 6
    assert "expected 5 joint rows for a 5-joint robot" in exc.message


# ---------------------------------------------------------------------------
# Accepted variants


def test_row_labels_base_joints_tool(tmp_path):
    text = "row,Dx,Dy,Dz,Dox,Doy,Doz\nbase,1,2,3,4,5,6\n1,0.1,0,0,0,0,0\n2,0,0.2,0,0,0,0\ntool,-1,0,0,0,0,0.5\n"
    table = read_deformation_csv(write(tmp_path, text), n_joints=2)
    np.testing.assert_allclose(table.base, [1e-3, 2e-3, 3e-3, *np.radians([4, 5, 6])], rtol=1e-15)
    np.testing.assert_allclose(table.tool, [-1e-3, 0, 0, 0, 0, math.radians(0.5)], rtol=1e-15)
    np.testing.assert_allclose(table.joints[:, :3], [[1e-4, 0, 0], [0, 2e-4, 0]], rtol=1e-15)


def test_tool_and_base_anywhere_comments_blank_lines_crlf_bom(tmp_path):
    text = ("\ufeff# provenance: a test\r\nrow,Dx,Dy,Dz,Dox,Doy,Doz\r\n\r\n1,1,0,0,0,0,0\r\n"
            "tool,0,0,2,0,0,0\r\n# note\r\nbase,0,3,0,0,0,0\r\n")
    table = read_deformation_csv(write(tmp_path, text), n_joints=1)
    assert table.joints[0, 0] == pytest.approx(1e-3)
    assert table.tool[2] == pytest.approx(2e-3)
    assert table.base[1] == pytest.approx(3e-3)


def test_columns_in_any_order_and_spaces(tmp_path):
    text = " Doz , Dx,Dy,Dz,Dox,Doy\n 6 , 1,2,3,4,5\n"
    table = read_deformation_csv(write(tmp_path, text))
    np.testing.assert_allclose(table.joints[0], [1e-3, 2e-3, 3e-3, *np.radians([4, 5, 6])], rtol=1e-15)


# ---------------------------------------------------------------------------
# Errors: file, line and column


def test_missing_file(tmp_path):
    path = tmp_path / "nope.csv"
    assert_located(read_error(path), path, None, None)
    assert "not found" in str(read_error(path))


def test_empty_file_and_comments_only(tmp_path):
    for text in ("", "\n\n", "# only a comment\n"):
        path = write(tmp_path, text)
        exc = read_error(path)
        assert_located(exc, path, None, None)
        assert "empty file" in exc.message


def test_header_only(tmp_path):
    path = write(tmp_path, "# c\n" + HEADER + "\n")
    exc = read_error(path)
    assert_located(exc, path, 2, None)
    assert "got none" in exc.message


@pytest.mark.parametrize(
    ("header", "column", "words"),
    [
        ("Dx,Dy,Dz,Dox,Doy", "Doz", "missing column"),
        ("Dx,Dy,Dz,Dox,Doy,Doz,Dq", "Dq", "unknown column"),
        ("dx,Dy,Dz,Dox,Doy,Doz", "dx", "unknown column"),
        ("Dx,Dy,Dz,Dox,Doy,Doz,Dx", "Dx", "duplicate column"),
        ("row,Dx,Dy,Dz,Dox,Doy,Doz,row", "row", "duplicate column"),
        ("Dx,Dy,Dz,Dox,Doy,Doz,", "7", "unknown column ''"),
    ],
)
def test_bad_header(tmp_path, header, column, words):
    path = write(tmp_path, header + "\n" + ONES + "\n")
    exc = read_error(path)
    assert_located(exc, path, 1, column)
    assert words in exc.message


@pytest.mark.parametrize(
    ("row", "column", "words"),
    [
        ("1,1,1,1,1", "Doz", "expected 6 cells"),
        ("1,1,1,1,1,1,1", "7", "expected 6 cells"),
        ("1,1,x,1,1,1", "Dz", "expected a number, got 'x'"),
        ("1,1,1,nan,1,1", "Dox", "finite"),
        ("1,1,1,1,inf,1", "Doy", "finite"),
        ("1,-Infinity,1,1,1,1", "Dy", "finite"),
        ("1,1,1,1,1,", "Doz", "empty cell"),
        ("1e999,1,1,1,1,1", "Dx", "finite"),
    ],
)
def test_bad_cells(tmp_path, row, column, words):
    path = write(tmp_path, f"{HEADER}\n{ONES}\n{ONES}\n# comment\n{row}\n{ONES}\n")
    exc = read_error(path)
    assert_located(exc, path, 5, column)
    assert words in exc.message


def test_wrong_joint_count_names_the_robot(tmp_path):
    path = write(tmp_path, HEADER + "\n" + "\n".join([ONES] * 5) + "\n")
    exc = read_error(path, n_joints=6)
    assert_located(exc, path, 6, None)
    assert exc.message == "expected 6 joint rows for a 6-joint robot, got 5"
    path = write(tmp_path, HEADER + "\n" + "\n".join([ONES] * 7) + "\n")
    exc = read_error(path, n_joints=6)
    assert_located(exc, path, 8, None)  # the seventh joint row
    assert "expected 6 joint rows for a 6-joint robot" in exc.message


def test_wrong_joint_count_with_labels_points_at_row_column(tmp_path):
    path = write(tmp_path, "row," + HEADER + "\n1," + ONES + "\ntool," + ONES + "\n")
    exc = read_error(path, n_joints=2)
    assert_located(exc, path, 3, "row")
    assert "got 1" in exc.message


@pytest.mark.parametrize(
    ("labels", "line", "words"),
    [
        (["1", "3"], 3, "expected joint row 2"),
        (["2"], 2, "expected joint row 1"),
        (["1", "1"], 3, "expected joint row 2"),
        (["base", "1", "base"], 4, "duplicate 'base' row (first on line 2)"),
        (["1", "tool", "tool"], 4, "duplicate 'tool' row (first on line 3)"),
        (["1", "joint2"], 3, "expected 'base', 'tool' or joint row 2, got 'joint2'"),
        (["1", ""], 3, "got ''"),
        (["Base", "1"], 2, "got 'Base'"),
    ],
)
def test_bad_row_labels(tmp_path, labels, line, words):
    path = write(tmp_path, "row," + HEADER + "\n" + "".join(f"{label},{ONES}\n" for label in labels))
    exc = read_error(path)
    assert_located(exc, path, line, "row")
    assert words in exc.message


def test_only_base_and_tool_rows(tmp_path):
    path = write(tmp_path, "row," + HEADER + "\nbase," + ONES + "\ntool," + ONES + "\n")
    exc = read_error(path)
    assert_located(exc, path, 3, "row")
    assert "at least one joint row" in exc.message


def test_not_utf8(tmp_path):
    path = tmp_path / "table.csv"
    path.write_bytes(HEADER.encode() + b"\n1,1,1,1,1,1\n1,1,\xff,1,1,1\n")
    exc = read_error(path)
    assert_located(exc, path, 3, None)
    assert "UTF-8" in exc.message


# ---------------------------------------------------------------------------
# Writer


def test_write_then_read_gives_the_table(tmp_path):
    rng = np.random.default_rng(7)
    table = DeformationTable(
        joints=rng.normal(scale=1e-3, size=(6, 6)), base=rng.normal(scale=1e-3, size=6),
        tool=rng.normal(scale=1e-3, size=6), source="test",
    )
    path = tmp_path / "out.csv"
    write_deformation_csv(table, path, comments=("made by a test",))
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# made by a test\nrow,Dx,Dy,Dz,Dox,Doy,Doz\nbase,")
    assert text.splitlines()[-1].startswith("tool,")
    back = read_deformation_csv(path, n_joints=6)
    for got, want in ((back.joints, table.joints), (back.base, table.base), (back.tool, table.tool)):
        np.testing.assert_allclose(got[..., :3], want[..., :3], rtol=0, atol=ROUNDTRIP_POSITION_TOL)
        np.testing.assert_allclose(got[..., 3:], want[..., 3:], rtol=0, atol=ROUNDTRIP_ANGLE_TOL)
    assert [p.name for p in tmp_path.iterdir()] == ["out.csv"]  # no temporary file left behind


def test_written_units_are_mm_and_degrees():
    table = DeformationTable.from_mm_deg([[1.5, 0, 0, 0, 0, 2.0]])
    lines = deformation_csv_text(table).splitlines()
    assert lines[2] == "1,1.5,0.0,0.0,0.0,0.0,2.0"


def test_write_refuses_multi_line_comment(tmp_path):
    with pytest.raises(InputError):
        write_deformation_csv(DeformationTable.zero(1), tmp_path / "x.csv", comments=("two\nlines",))
    assert not any(tmp_path.iterdir())


def test_write_into_missing_folder_is_an_error(tmp_path):
    with pytest.raises(InputError):
        write_deformation_csv(DeformationTable.zero(6), tmp_path / "no" / "x.csv")
