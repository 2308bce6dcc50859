"""Targets CSV: the paper's files, the self-describing form, every error located, streaming, the writer."""

from __future__ import annotations

import math
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from helpers import assert_located, assert_same_program
from helpers import write as _write

from thermocomp.compensation.targets import Targets
from thermocomp.errors import ConfigurationError, InputError
from thermocomp.geometry.rotations import (
    matrix_from_euler_xyz,
    matrix_from_quat_wxyz,
    matrix_from_rotvec,
    quat_wxyz_from_matrix,
    rot_x,
    rot_y,
    rot_z,
    rotvec_from_matrix,
)
from thermocomp.io.targets_csv import iter_targets_csv, read_targets_csv, write_targets_csv

SELF = "name,x_mm,y_mm,z_mm,euler_xyz_a_deg,euler_xyz_b_deg,euler_xyz_c_deg"
ROW = "100,200,300,0,90,0"


def write(tmp_path: Path, text: str, name: str = "targets.csv") -> Path:
    return _write(tmp_path, text, name)


def read_error(path: Path, **kwargs) -> InputError:
    with pytest.raises(InputError) as info:
        read_targets_csv(path, **kwargs)
    return info.value


def plain_rows(path: Path) -> list[list[str]]:
    """The file's cells by a plain split, independent of the reader."""
    return [line.split(",") for line in path.read_text(encoding="utf-8").splitlines()]


# ---------------------------------------------------------------------------
# The paper's files


def test_random50_matches_file_text(paper):
    path = paper / "targets_random50.csv"
    program = read_targets_csv(path)
    assert program.n_targets == 50
    assert program.orientation_convention == "euler_xyz"
    assert program.source == str(path)
    assert program.time_min is None and program.q_reference is None
    # Spot checks: P1 = (641, 21, 473) mm, (0, 90, 0) deg on line 2; P50 on line 51.
    assert program.names[0] == "P1" and program.names[-1] == "P50"
    np.testing.assert_allclose(program.p_world_tcp[0], [0.641, 0.021, 0.473], rtol=1e-15)
    np.testing.assert_allclose(program.p_world_tcp[49], [0.537, -0.037, 0.325], rtol=1e-15)
    np.testing.assert_allclose(program.R_world_tcp[0], [[0, 0, 1], [0, 1, 0], [-1, 0, 0]], atol=1e-15)
    assert program.line_of(0) == 2 and program.line_of(49) == 51
    # Every row against a plain reading of the text.
    rows = plain_rows(path)
    assert rows[0] == ["", "X", "Y", "Z", "RX", "RY", "RZ"]
    values = np.array([[float(c) for c in r[1:]] for r in rows[1:]])
    assert list(program.names) == [r[0] for r in rows[1:]]
    np.testing.assert_allclose(program.p_world_tcp, values[:, :3] / 1000.0, rtol=1e-15)
    np.testing.assert_allclose(program.R_world_tcp, matrix_from_euler_xyz(np.radians(values[:, 3:])), atol=1e-15)


@pytest.mark.parametrize(("name", "count", "last"), [("targets_cube_frontal.csv", 45, (700, -300, 550)),
                                                      ("targets_cube_lateral.csv", 27, (-150, -400, 300))])
def test_cubes_are_position_only(paper, name, count, last):
    path = paper / name
    exc = read_error(path)
    assert_located(exc, path, 1, None)
    assert "--orientation-euler-xyz-deg" in exc.message and "fixed_orientation" in exc.message
    R = matrix_from_euler_xyz(np.radians([0.0, 90.0, 0.0]))
    program = read_targets_csv(path, fixed_orientation=R)
    assert program.n_targets == count
    assert program.orientation_convention == "fixed"
    np.testing.assert_array_equal(program.R_world_tcp, np.broadcast_to(R, (count, 3, 3)))
    np.testing.assert_allclose(program.p_world_tcp[-1], np.array(last) / 1000.0, rtol=1e-15)
    rows = plain_rows(path)
    np.testing.assert_allclose(program.p_world_tcp, np.array([[float(c) for c in r[1:]] for r in rows[1:]]) / 1000.0,
                               rtol=1e-15)
    assert program.names[0] == "P1" and program.line_of(count - 1) == count + 1


def test_paper_file_with_fixed_orientation_too_is_an_error(paper):
    path = paper / "targets_random50.csv"
    exc = read_error(path, fixed_orientation=np.eye(3))
    assert_located(exc, path, 1, "RX")


# ---------------------------------------------------------------------------
# The self-describing form


def test_every_orientation_group_gives_the_same_rotation(tmp_path):
    angles_deg = np.array([20.0, -35.0, 110.0])
    R = rot_x(np.radians(20.0)) @ rot_y(np.radians(-35.0)) @ rot_z(np.radians(110.0))
    q = quat_wxyz_from_matrix(R)
    v = rotvec_from_matrix(R)
    files = {
        "euler_deg": ("euler_xyz", "euler_xyz_a_deg,euler_xyz_b_deg,euler_xyz_c_deg", angles_deg),
        "euler_rad": ("euler_xyz", "euler_xyz_a_rad,euler_xyz_b_rad,euler_xyz_c_rad", np.radians(angles_deg)),
        "quat": ("quat_wxyz", "quat_w,quat_x,quat_y,quat_z", q),
        # any column order, either sign
        "quat_shuffled": ("quat_wxyz", "quat_x,quat_w,quat_z,quat_y", -q[[1, 0, 3, 2]]),
        "rotvec_rad": ("rotvec", "rotvec_x_rad,rotvec_y_rad,rotvec_z_rad", v),
        "rotvec_deg": ("rotvec", "rotvec_x_deg,rotvec_y_deg,rotvec_z_deg", np.degrees(v)),
    }
    for key, (convention, header, values) in files.items():
        path = write(tmp_path, f"name,x_m,y_m,z_m,{header}\nA,0.1,0.2,0.3,{','.join(map(repr, values.tolist()))}\n",
                     f"{key}.csv")
        program = read_targets_csv(path)
        np.testing.assert_allclose(program.R_world_tcp[0], R, atol=1e-15, err_msg=key)
        np.testing.assert_allclose(program.p_world_tcp[0], [0.1, 0.2, 0.3], rtol=1e-15)
        assert program.orientation_convention == convention


def test_time_and_reference_joints(tmp_path):
    text = ("# a program\nq2_deg,name,x_mm,y_mm,z_mm,quat_w,quat_x,quat_y,quat_z,time_min,q1_deg\n"
            "10,A,1,2,3,1,0,0,0,0,-90\n\n20,B,4,5,6,0,1,0,0,2.5,45\n")
    program = read_targets_csv(write(tmp_path, text), n_joints=2)
    np.testing.assert_allclose(program.time_min, [0.0, 2.5])
    np.testing.assert_allclose(program.q_reference, np.radians([[-90, 10], [45, 20]]), rtol=1e-15)
    np.testing.assert_allclose(program.R_world_tcp[1], np.diag([1.0, -1.0, -1.0]), atol=1e-15)
    np.testing.assert_array_equal(program.lines, [3, 5])
    text = "name,x_m,y_m,z_m,rotvec_x_rad,rotvec_y_rad,rotvec_z_rad,q1_rad,q2_rad,q3_rad\nA,0,0,0,0,0,0,0.1,0.2,0.3\n"
    program = read_targets_csv(write(tmp_path, text), n_joints=3)
    np.testing.assert_array_equal(program.q_reference, [[0.1, 0.2, 0.3]])


def test_without_name_column_names_are_row_and_line(tmp_path):
    text = "x_mm,y_mm,z_mm\n\n# c\n1,2,3\n4,5,6\n"
    program = read_targets_csv(write(tmp_path, text), fixed_orientation=np.eye(3))
    assert program.names == ("row4", "row5")
    assert program.orientation_convention == "fixed"


def test_quoted_names_crlf_and_bom(tmp_path):
    text = '\ufeffname,x_mm,y_mm,z_mm\r\n"a, b",1,2,3\r\n"#2 ""x""",4,5,6\r\n'
    program = read_targets_csv(write(tmp_path, text), fixed_orientation=np.eye(3))
    assert program.names == ("a, b", '#2 "x"')


def test_name_header_starts_the_paper_form(tmp_path):
    program = read_targets_csv(write(tmp_path, "name,X,Y,Z,RX,RY,RZ\nP1,1,2,3,0,0,90\n"))
    np.testing.assert_allclose(program.R_world_tcp[0], rot_z(math.pi / 2), atol=1e-15)


# ---------------------------------------------------------------------------
# Errors: file, line and column


def test_missing_file_and_directory(tmp_path):
    path = tmp_path / "nope.csv"
    exc = read_error(path)
    assert_located(exc, path, None, None)
    assert "not found" in exc.message
    exc = read_error(tmp_path)
    assert_located(exc, tmp_path, None, None)


def test_empty_file_and_header_only(tmp_path):
    for text in ("", "\n", "# nothing\n\n"):
        path = write(tmp_path, text)
        exc = read_error(path)
        assert_located(exc, path, None, None)
        assert "empty file" in exc.message
    path = write(tmp_path, "# c\n\n" + SELF + "\n\n")
    exc = read_error(path)
    assert_located(exc, path, 3, None)
    assert "got none" in exc.message


@pytest.mark.parametrize(
    ("header", "column", "words"),
    [
        (",X,Y,Z,RX,RY", "RZ", "expected X,Y,Z,RX,RY,RZ or X,Y,Z"),
        (",X,Y,Z,RX,RY,RZ,W", "W", "paper's form"),
        (",X,Y,Q", "Q", "paper's form"),
        (",x,y,z", "x", "paper's form"),
        ("name,X,Y,Z,RX,RZ,RY", "RZ", "paper's form"),
        ("name,x_mm,y_mm,z_mm,speed", "speed", "unknown column 'speed'"),
        ("name,x_mm,y_mm,z_mm,,quat_w", "5", "unknown column ''"),
        ("name,x_mm,y_mm,z_mm,name", "name", "duplicate column"),
        ("name,x_mm,y_mm", "z_mm", "missing column 'z_mm'"),
        ("name,x_mm,y_m,z_mm", "y_m", "one unit"),
        ("name,quat_w,quat_x,quat_y,quat_z", "x_mm", "missing position columns"),
        ("name,x_mm,y_mm,z_mm,quat_w,quat_x,quat_y", "quat_z", "missing column 'quat_z'"),
        ("name,x_mm,y_mm,z_mm,euler_xyz_a_deg,euler_xyz_b_rad,euler_xyz_c_deg", "euler_xyz_b_rad", "one unit"),
        ("name,x_mm,y_mm,z_mm,rotvec_x_rad,rotvec_y_rad,rotvec_z_rad,quat_w,quat_x,quat_y,quat_z", "quat_w",
         "one orientation group"),
        ("name,x_mm,y_mm,z_mm,quat_w,quat_x,quat_y,quat_z,q1_deg,q3_deg", "q2_deg", "missing column 'q2_deg'"),
        ("name,x_mm,y_mm,z_mm,quat_w,quat_x,quat_y,quat_z,q1_deg,q2_rad", "q2_rad", "one unit"),
        ("name,x_mm,y_mm,z_mm,quat_w,quat_x,quat_y,quat_z,q0_deg", "q0_deg", "unknown column"),
    ],
)
def test_bad_header(tmp_path, header, column, words):
    path = write(tmp_path, "# first line is a comment\n" + header + "\n" + ",".join(["1"] * header.count(",")) + ",1\n")
    exc = read_error(path)
    assert_located(exc, path, 2, column)
    assert words in exc.message


def test_reference_joint_count_must_match_robot(tmp_path):
    header = "name,x_mm,y_mm,z_mm,quat_w,quat_x,quat_y,quat_z," + ",".join(f"q{k}_deg" for k in range(1, 6))
    path = write(tmp_path, header + "\nA,1,2,3,1,0,0,0,1,2,3,4,5\n")
    exc = read_error(path, n_joints=6)
    assert_located(exc, path, 1, "q6_deg")
    assert "q1..q6 for a 6-joint robot, got q1..q5" in exc.message
    exc = read_error(path, n_joints=4)
    assert_located(exc, path, 1, "q5_deg")
    assert read_targets_csv(path, n_joints=5).q_reference.shape == (1, 5)


def test_no_orientation_without_fixed_orientation(tmp_path):
    path = write(tmp_path, "name,x_mm,y_mm,z_mm,time_min\nA,1,2,3,0\n")
    exc = read_error(path)
    assert_located(exc, path, 1, None)
    assert "--orientation-euler-xyz-deg" in exc.message


def test_orientation_columns_and_fixed_orientation_together(tmp_path):
    path = write(tmp_path, SELF + "\nA," + ROW + "\n")
    exc = read_error(path, fixed_orientation=np.eye(3))
    assert_located(exc, path, 1, "euler_xyz_a_deg")


def test_fixed_orientation_must_be_a_rotation(tmp_path):
    path = write(tmp_path, "x_mm,y_mm,z_mm\n1,2,3\n")
    with pytest.raises(InputError, match="fixed_orientation"):
        read_targets_csv(path, fixed_orientation=np.diag([1.0, 1.0, -1.0]))


@pytest.mark.parametrize(
    ("row", "column", "words"),
    [
        ("B,100,200", "z_mm", "expected 7 cells"),
        ("B,100,200,300,0,90,0,", "8", "expected 7 cells"),
        ("B,100,2OO,300,0,90,0", "y_mm", "expected a number, got '2OO'"),
        ("B,100,200,300,nan,90,0", "euler_xyz_a_deg", "finite"),
        ("B,100,200,300,0,-inf,0", "euler_xyz_b_deg", "finite"),
        ("B,100,200,300,0,90,", "euler_xyz_c_deg", "empty cell"),
        (" ,100,200,300,0,90,0", "name", "expected a target name"),
        ("A,100,200,300,0,90,0", "name", "duplicate target name 'A' (lines 3 and 6)"),
        ('"B,100,200,300,0,90,0', None, "expected one CSV record"),
    ],
)
def test_bad_rows(tmp_path, row, column, words):
    path = write(tmp_path, f"{SELF}\n\nA,{ROW}\n# comment\nC,{ROW}\n{row}\nD,{ROW}\n")
    exc = read_error(path)
    assert_located(exc, path, 6, column)
    assert words in exc.message


def test_paper_form_errors_use_column_position_for_the_unnamed_column(tmp_path):
    path = write(tmp_path, ",X,Y,Z,RX,RY,RZ\nP1,1,2,3,0,0,0\nP1,1,2,3,0,0,0\n")
    exc = read_error(path)
    assert_located(exc, path, 3, "1")
    assert "lines 2 and 3" in exc.message
    path = write(tmp_path, ",X,Y,Z,RX,RY,RZ\nP1,1,2,3,0,zero,0\n")
    assert_located(read_error(path), path, 2, "RY")


def test_quaternion_norm(tmp_path):
    header = "name,x_mm,y_mm,z_mm,quat_w,quat_x,quat_y,quat_z"
    ok = read_targets_csv(write(tmp_path, header + "\nA,0,0,0,0.7071,0.7071,0,0\n"))  # 4 digits: norm 0.99999
    np.testing.assert_allclose(ok.R_world_tcp[0], rot_x(math.pi / 2), atol=1e-15)
    path = write(tmp_path, header + "\nA,0,0,0,1,0,0,0\nB,0,0,0,0.5,0.5,0.5,0.4\n")
    exc = read_error(path)
    assert_located(exc, path, 3, "quat_w")
    assert "unit quaternion" in exc.message and "0.5, 0.5, 0.5, 0.4" in exc.message
    path = write(tmp_path, header + "\nA,0,0,0,0,0,0,0\n")
    assert_located(read_error(path), path, 2, "quat_w")


def test_negative_time(tmp_path):
    path = write(tmp_path, "x_mm,y_mm,z_mm,time_min\n1,2,3,0\n1,2,3,-0.5\n")
    exc = read_error(path, fixed_orientation=np.eye(3))
    assert_located(exc, path, 3, "time_min")


def test_not_utf8(tmp_path):
    path = tmp_path / "targets.csv"
    path.write_bytes(f"{SELF}\nA,{ROW}\n".encode() + b"B,1\xe9,2,3,0,0,0\n")
    exc = read_error(path)
    assert_located(exc, path, 3, None)
    assert "UTF-8" in exc.message


# ---------------------------------------------------------------------------
# Streaming


def _numbered_file(tmp_path: Path, m: int, name_column: bool = True) -> Path:
    lines = [SELF if name_column else SELF[len("name,"):]]
    for i in range(m):
        if i % 7 == 3:
            lines.append("# a comment")
        lines.append(f"P{i},{i},{2 * i},{3 * i},0,0,{i % 360}" if name_column else f"{i},{2 * i},{3 * i},0,0,{i % 360}")
    return write(tmp_path, "\n".join(lines) + "\n")


def test_chunks_have_at_most_chunk_rows_and_true_lines(tmp_path):
    path = _numbered_file(tmp_path, 25)
    whole = read_targets_csv(path)
    chunks = list(iter_targets_csv(path, 4))
    assert [c.n_targets for c in chunks] == [4] * 6 + [1]
    assert sum((c.names for c in chunks), ()) == whole.names
    np.testing.assert_array_equal(np.concatenate([c.lines for c in chunks]), whole.lines)
    np.testing.assert_array_equal(np.concatenate([c.p_world_tcp for c in chunks]), whole.p_world_tcp)
    text_lines = path.read_text().splitlines()
    for c in chunks:
        for name, line in zip(c.names, c.lines):
            assert text_lines[line - 1].startswith(name + ",")


def test_errors_in_later_chunks_have_file_lines(tmp_path):
    path = _numbered_file(tmp_path, 30)
    lines = path.read_text().splitlines()
    k = next(i for i, t in enumerate(lines) if t.startswith("P22,"))
    lines[k] = lines[k].replace("P22,22,", "P22,x,")
    path.write_text("\n".join(lines) + "\n")
    stream = iter_targets_csv(path, 5)
    got = []
    with pytest.raises(InputError) as info:
        for chunk in stream:
            got.append(chunk)
    assert_located(info.value, path, k + 1, "x_mm")
    assert sum(c.n_targets for c in got) == 20


def test_duplicate_name_across_chunks_names_both_lines(tmp_path):
    path = _numbered_file(tmp_path, 30)
    lines = path.read_text().splitlines()
    k = next(i for i, t in enumerate(lines) if t.startswith("P25,"))
    first = next(i for i, t in enumerate(lines) if t.startswith("P2,"))
    lines[k] = lines[k].replace("P25,", "P2,")
    path.write_text("\n".join(lines) + "\n")
    for chunk_rows in (1, 3, 10, 100):
        with pytest.raises(InputError) as info:
            list(iter_targets_csv(path, chunk_rows))
        assert_located(info.value, path, k + 1, "name")
        assert f"lines {first + 1} and {k + 1}" in info.value.message


def test_earlier_duplicate_reported_before_a_later_error_in_the_same_chunk(tmp_path):
    text = f"{SELF}\nA,{ROW}\nB,{ROW}\nC,{ROW}\nA,{ROW}\nD,1,2\n"
    path = write(tmp_path, text)
    for chunk_rows in (2, 3, 100):
        with pytest.raises(InputError) as info:
            list(iter_targets_csv(path, chunk_rows))
        assert_located(info.value, path, 5, "name")


def test_chunk_rows_must_be_positive(tmp_path):
    path = _numbered_file(tmp_path, 3)
    for bad in (0, -1, 2.5, True):
        with pytest.raises(ConfigurationError):
            next(iter_targets_csv(path, bad))


@pytest.mark.slow
def test_memory_does_not_grow_with_file_size(tmp_path):
    """Peak memory while streaming a 4x longer file stays the same (one chunk, no per-line state)."""

    def peak(m: int) -> int:
        path = _numbered_file(tmp_path, m, name_column=False)
        tracemalloc.start()
        try:
            for _ in iter_targets_csv(path, 100):
                pass
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    small, large = peak(1_000), peak(10_000)
    file_size = (tmp_path / "targets.csv").stat().st_size
    assert large < 1.2 * small + 50_000
    assert large < file_size / 2


# ---------------------------------------------------------------------------
# Writer


def _program(convention: str, m: int = 5, seed: int = 3, time: bool = True, q: bool = True) -> Targets:
    rng = np.random.default_rng(seed)
    quats = rng.normal(size=(m, 4))
    R = matrix_from_quat_wxyz(quats)
    if convention == "fixed":
        R = np.broadcast_to(R[0], (m, 3, 3))
    return Targets(
        names=tuple(f"T{i}" for i in range(m)),
        R_world_tcp=R,
        p_world_tcp=rng.uniform(-1.5, 1.5, size=(m, 3)),
        time_min=rng.uniform(0, 200, size=m) if time else None,
        q_reference=rng.uniform(-np.pi, np.pi, size=(m, 6)) if q else None,
        orientation_convention=convention,
        source="test",
    )


@pytest.mark.parametrize("convention", ["euler_xyz", "quat_wxyz", "rotvec", "fixed"])
def test_write_then_read_gives_the_program(tmp_path, convention):
    program = _program(convention)
    path = tmp_path / "out.csv"
    write_targets_csv(program, path, comments=("written by a test",))
    fixed = program.R_world_tcp[0] if convention == "fixed" else None
    back = read_targets_csv(path, fixed_orientation=fixed, n_joints=6)
    assert_same_program(back, program)
    assert [p.name for p in tmp_path.iterdir()] == ["out.csv"]
    header = [line for line in path.read_text().splitlines() if not line.startswith("#")][0]
    assert header.startswith("name,x_mm,y_mm,z_mm")
    assert header.endswith("time_min,q1_deg,q2_deg,q3_deg,q4_deg,q5_deg,q6_deg")


def test_write_then_read_without_optional_columns(tmp_path):
    program = _program("rotvec", time=False, q=False)
    path = tmp_path / "out.csv"
    write_targets_csv(program, path)
    assert path.read_text().splitlines()[0] == "name,x_mm,y_mm,z_mm,rotvec_x_rad,rotvec_y_rad,rotvec_z_rad"
    assert_same_program(read_targets_csv(path), program)


def test_paper_program_round_trips(tmp_path, paper):
    program = read_targets_csv(paper / "targets_random50.csv")
    write_targets_csv(program, tmp_path / "out.csv")
    back = read_targets_csv(tmp_path / "out.csv")
    assert_same_program(back, program)
    np.testing.assert_array_equal(back.p_world_tcp, program.p_world_tcp)


def test_names_that_need_quoting_round_trip(tmp_path):
    program = Targets(names=("a,b", '"q"', "#hash", "ok x"), R_world_tcp=np.broadcast_to(np.eye(3), (4, 3, 3)),
                      p_world_tcp=np.zeros((4, 3)), orientation_convention="quat_wxyz")
    write_targets_csv(program, tmp_path / "out.csv")
    assert read_targets_csv(tmp_path / "out.csv").names == program.names


@pytest.mark.parametrize("bad", ["", " lead", "trail ", "two\nlines", "cr\rx"])
def test_names_that_cannot_round_trip_are_refused(tmp_path, bad):
    program = Targets(names=("fine", bad), R_world_tcp=np.broadcast_to(np.eye(3), (2, 3, 3)),
                      p_world_tcp=np.zeros((2, 3)))
    with pytest.raises(InputError, match="cannot be written"):
        write_targets_csv(program, tmp_path / "out.csv")
    assert not any(tmp_path.iterdir())


def test_duplicate_names_and_varying_fixed_orientation_are_refused(tmp_path):
    program = Targets(names=("a", "a"), R_world_tcp=np.broadcast_to(np.eye(3), (2, 3, 3)), p_world_tcp=np.zeros((2, 3)))
    with pytest.raises(InputError, match="unique"):
        write_targets_csv(program, tmp_path / "out.csv")
    program = Targets(names=("a", "b"), R_world_tcp=np.stack([np.eye(3), rot_z(0.1)]), p_world_tcp=np.zeros((2, 3)),
                      orientation_convention="fixed")
    with pytest.raises(InputError, match="fixed"):
        write_targets_csv(program, tmp_path / "out.csv")
    assert not any(tmp_path.iterdir())


def test_euler_round_trip_near_gimbal_lock(tmp_path):
    R = matrix_from_euler_xyz([0.3, math.pi / 2 - 1e-6, -0.7])
    program = Targets(names=("a",), R_world_tcp=R[None], p_world_tcp=np.zeros((1, 3)))
    write_targets_csv(program, tmp_path / "out.csv")
    assert_same_program(read_targets_csv(tmp_path / "out.csv"), program)


def test_rotvec_and_quaternion_readers_agree_with_geometry(tmp_path):
    v = np.array([0.3, -1.2, 2.0])
    q = np.concatenate([[math.cos(np.linalg.norm(v) / 2)], math.sin(np.linalg.norm(v) / 2) * v / np.linalg.norm(v)])
    text = ("name,x_mm,y_mm,z_mm,rotvec_x_rad,rotvec_y_rad,rotvec_z_rad\n"
            "A,0,0,0," + ",".join(map(repr, v.tolist())) + "\n")
    a = read_targets_csv(write(tmp_path, text, "a.csv"))
    text = "name,x_mm,y_mm,z_mm,quat_w,quat_x,quat_y,quat_z\nA,0,0,0," + ",".join(map(repr, q.tolist())) + "\n"
    b = read_targets_csv(write(tmp_path, text, "b.csv"))
    np.testing.assert_allclose(a.R_world_tcp[0], matrix_from_rotvec(v), atol=1e-15)
    np.testing.assert_allclose(b.R_world_tcp[0], a.R_world_tcp[0], atol=1e-15)


def test_whole_read_of_a_file_longer_than_one_internal_chunk(tmp_path, monkeypatch):
    from thermocomp.io import targets_csv

    program = _program("quat_wxyz", m=11)
    path = tmp_path / "out.csv"
    write_targets_csv(program, path)
    monkeypatch.setattr(targets_csv, "_READ_CHUNK", 3)
    back = read_targets_csv(path, n_joints=6)
    assert_same_program(back, program)
    np.testing.assert_array_equal(back.lines, np.arange(2, 13))


def test_write_refuses_multi_line_comment(tmp_path):
    with pytest.raises(InputError, match="one-line"):
        write_targets_csv(_program("rotvec"), tmp_path / "out.csv", comments=("a\nb",))
    assert not any(tmp_path.iterdir())


# ---------------------------------------------------------------------------
# The vectorised reading of plain blocks against the row-by-row path

PLAIN_HEADER = "name,x_mm,y_mm,z_mm,quat_w,quat_x,quat_y,quat_z,time_min,q1_deg,q2_deg,q3_deg,q4_deg,q5_deg,q6_deg"


def _plain_rows(m: int, seed: int = 5) -> list[str]:
    rng = np.random.default_rng(seed)
    quat = rng.normal(size=(m, 4))
    quat /= np.linalg.norm(quat, axis=1, keepdims=True)
    values = np.hstack([rng.uniform(-900, 900, (m, 3)), quat, np.linspace(0, 240, m)[:, None],
                        rng.uniform(-170, 170, (m, 6))])
    cells = [",".join(f"{v!r}" if k % 2 else f"{v:.12g}" for k, v in enumerate(row)) for row in values.tolist()]
    return [f"T{i},{c}" for i, c in enumerate(cells)]


def _read_both(path: Path, monkeypatch, chunk_rows: int = 64):
    """Chunks read as shipped (plain blocks at once), then with every block read row by row."""
    import thermocomp.io.targets_csv as targets_csv
    fast = list(iter_targets_csv(path, chunk_rows, n_joints=6))
    with monkeypatch.context() as patch:
        patch.setattr(targets_csv, "_parse_plain", lambda *args: None)
        slow = list(iter_targets_csv(path, chunk_rows, n_joints=6))
    return fast, slow


def test_windows_line_ends_take_the_fast_path_and_read_alike(tmp_path, monkeypatch):
    """CRLF files are parsed block by block, with the values of the row path; a bare CR still goes row by row."""
    import thermocomp.io.targets_csv as targets_csv
    rows = _plain_rows(200)
    path = tmp_path / "crlf.csv"
    path.write_bytes((PLAIN_HEADER + "\r\n" + "\r\n".join(rows) + "\r\n").encode("ascii"))
    parsed_at_once = []
    original = targets_csv._parse_plain
    monkeypatch.setattr(targets_csv, "_parse_plain",
                        lambda *args: parsed_at_once.append(original(*args)) or parsed_at_once[-1])
    fast = list(iter_targets_csv(path, 64, n_joints=6))
    monkeypatch.undo()
    assert parsed_at_once and all(p is not None for p in parsed_at_once)
    lf = tmp_path / "lf.csv"
    lf.write_text(PLAIN_HEADER + "\n" + "\n".join(rows) + "\n")
    _, slow = _read_both(lf, monkeypatch)
    for a, b in zip(fast, slow, strict=True):
        assert a.names == b.names
        for name in ("lines", "p_world_tcp", "R_world_tcp", "time_min", "q_reference"):
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    # a carriage return alone ends a line too (str.splitlines): the row path counts it
    rows[10] = rows[10] + "\r" + rows[11]
    del rows[11]
    path.write_bytes((PLAIN_HEADER + "\r\n" + "\r\n".join(rows) + "\r\n").encode("ascii"))
    again = [name for chunk in iter_targets_csv(path, 64, n_joints=6) for name in chunk.names]
    assert again == [f"T{i}" for i in range(200)]


def test_plain_blocks_read_exactly_as_row_by_row(tmp_path, monkeypatch):
    """Same chunks, names, lines and bit-identical values, also across odd lines that need the row path."""
    rows = _plain_rows(300)
    rows[40] = rows[40].replace("T40,", "  T40 ,")  # padded name: stripped by the row path
    rows[41] = rows[41].replace("T41,", '"T,41",')  # quoted
    rows.insert(200, "# a comment in the middle")
    rows.insert(250, "")
    path = write(tmp_path, PLAIN_HEADER + "\n" + "\n".join(rows) + "\n")
    fast, slow = _read_both(path, monkeypatch)
    assert [c.n_targets for c in fast] == [c.n_targets for c in slow] == [64] * 4 + [44]
    for a, b in zip(fast, slow):
        assert a.names == b.names
        for name in ("lines", "p_world_tcp", "R_world_tcp", "time_min", "q_reference"):
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    names = sum((c.names for c in fast), ())
    assert names[40] == "T40" and names[41] == "T,41"


@pytest.mark.parametrize(
    ("bad", "column", "words"),
    [
        (lambda r: r.rsplit(",", 1)[0], "q6_deg", "expected 15 cells"),
        (lambda r: r + ",7", "16", "expected 15 cells"),
        (lambda r: ",".join([*r.split(",")[:2], "2OO", *r.split(",")[3:]]), "y_mm", "expected a number, got '2OO'"),
        # float() reads digit grouping and other scripts' digits; a file's numbers are plain ASCII (issue 9)
        (lambda r: ",".join([*r.split(",")[:1], "6_41", *r.split(",")[2:]]), "x_mm", "expected a number, got '6_41'"),
        (lambda r: ",".join([*r.split(",")[:1], "\u0663", *r.split(",")[2:]]), "x_mm", "expected a number"),
        (lambda r: "," + r.split(",", 1)[1], "name", "expected a target name"),
        (lambda r: r.split(",")[0] + ",1,2,nan," + ",".join(r.split(",")[4:]), "z_mm", "finite"),
        (lambda r: r.split(",")[0] + ",1,2,3,0.5,0.5,0.5,0.6," + ",".join(r.split(",")[8:]), "quat_w", "unit quaternion"),
        (lambda r: ",".join(r.split(",")[:8]) + ",-1," + ",".join(r.split(",")[9:]), "time_min", "time >= 0"),
    ],
)
def test_errors_in_plain_blocks_are_located_as_row_by_row(tmp_path, monkeypatch, bad, column, words):
    rows = _plain_rows(500)
    k = 333
    rows[k] = bad(rows[k])
    path = write(tmp_path, PLAIN_HEADER + "\n" + "\n".join(rows) + "\n")
    errors = []
    for read in ("fast", "slow"):
        import thermocomp.io.targets_csv as targets_csv
        with monkeypatch.context() as patch:
            if read == "slow":
                patch.setattr(targets_csv, "_parse_plain", lambda *args: None)
            errors.append(read_error(path, n_joints=6))
    fast, slow = errors
    assert (fast.row, fast.column, fast.message) == (slow.row, slow.column, slow.message)
    assert_located(fast, path, k + 2, column)
    assert words in fast.message


def test_name_registry_merges_runs_into_sorted_order():
    """The duplicate check's sorted runs stay sorted through the merges and find every earlier name."""
    from thermocomp.io.targets_csv import _NameRegistry
    registry = _NameRegistry()
    names = [f"n{i}" for i in range(1000)]
    for start in range(0, 1000, 37):
        registry.add(registry.digests(names[start:start + 37]))
    for run in registry._runs:
        assert np.all(run[:-1] < run[1:])
    assert sum(len(run) for run in registry._runs) == 1000
    assert registry.candidates(registry.digests(["new", "n517", "n3"])).tolist() == [1, 2]
    assert registry.candidates(registry.digests(["new", "other"])).size == 0


def test_a_digest_collision_is_not_a_duplicate(tmp_path, monkeypatch):
    """Digests only nominate candidates; the names read back from the file decide (no false error)."""
    from thermocomp.io import targets_csv
    rows = [f"T{i},{400 + i},0,400,0,90,0" for i in range(12)]
    path = tmp_path / "targets.csv"
    path.write_text(",X,Y,Z,RX,RY,RZ\n" + "\n".join(rows) + "\n")
    # every name gets the same digest: each chunk after the first is all candidates
    monkeypatch.setattr(targets_csv._NameRegistry, "digests",
                        staticmethod(lambda names: np.zeros(len(names), dtype=np.uint64)))
    parts = list(targets_csv.iter_targets_csv(path, 5))
    assert [name for part in parts for name in part.names] == [f"T{i}" for i in range(12)]
    # and a real duplicate among the candidates is still found, with both lines
    path.write_text(",X,Y,Z,RX,RY,RZ\n" + "\n".join(rows + ["T3,1,2,3,0,90,0"]) + "\n")
    with pytest.raises(InputError) as err:
        list(targets_csv.iter_targets_csv(path, 5))
    assert "duplicate target name 'T3' (lines 5 and 14)" in str(err.value)


def test_a_timed_program_may_revisit_a_named_target(tmp_path):
    """With time_min a name repeats (a cycle); without it a repeated name is still an error, located."""
    rows = [f"T{i % 3},{400 + i % 3},0,400,0,90,0,{2.0 * i}" for i in range(3000)]
    path = write(tmp_path, "name,x_mm,y_mm,z_mm,euler_xyz_a_deg,euler_xyz_b_deg,euler_xyz_c_deg,time_min\n"
                 + "\n".join(rows) + "\n")
    for chunk_rows in (7, 1000, 5000):
        parts = list(iter_targets_csv(path, chunk_rows))
        names = [n for part in parts for n in part.names]
        assert names == [f"T{i % 3}" for i in range(3000)]
        assert np.array_equal(np.concatenate([p.time_min for p in parts]), 2.0 * np.arange(3000))
        assert np.array_equal(np.concatenate([p.lines for p in parts]), np.arange(2, 3002))
    untimed = write(tmp_path, "name,x_mm,y_mm,z_mm\n" + "\n".join(r.rsplit(",", 4)[0] for r in rows[:5]) + "\n")
    info = read_error(untimed, fixed_orientation=np.eye(3))
    assert_located(info, untimed, 5, "name")
    assert "duplicate target name 'T0' (lines 2 and 5)" in info.message



def test_plain_blocks_read_by_pyarrow_hold_the_values_float_reads(tmp_path, monkeypatch):
    """A plain block's numbers, read by pyarrow's CSV reader at any length (a short block and a long one), are bit
    for bit those of float() on the row path, also for padded cells, every form of a number a file may hold, and
    decimals at a rounding tie of the double; a cell pyarrow does not read (digit grouping) sends the block row by
    row, to the same error; a value out of range is refused at the same line, column and words."""
    import thermocomp.io.targets_csv as targets_csv
    rows = _plain_rows(3000, seed=11)
    rows[1234] = rows[1234].replace(",", ", ", 3)  # padded cells
    forms = ["+12.5", "-0", ".5", "5.", "1E2", "1e-5", "0.1000000000000000055511151231257827",
             "900719925.4740993", "2.2250738585072011e-308", "123456789012.34567"]
    for k, form in enumerate(forms):
        cells = rows[2000 + k].split(",")
        cells[1 + k % 3] = form
        rows[2000 + k] = ",".join(cells)
    for m in (5, 3000):  # (a short file: read by pyarrow too)
        path = write(tmp_path, PLAIN_HEADER + "\n" + "\n".join(rows[3000 - m:]) + "\n")
        plain = []
        with monkeypatch.context() as patch:
            patch.setattr(targets_csv, "_float_column",
                          lambda column, seen=plain, read=targets_csv._float_column: seen.append(1) or read(column))
            list(iter_targets_csv(path, 4096, n_joints=6))
        assert plain  # pyarrow read the numbers
        fast, slow = _read_both(path, monkeypatch, chunk_rows=4096)
        assert len(fast) == len(slow) == 1
        a, b = fast[0], slow[0]
        assert a.names == b.names and a.n_targets == m
        for name in ("lines", "p_world_tcp", "R_world_tcp", "time_min", "q_reference"):
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    grouped = list(rows)
    grouped[100] = grouped[100].replace(",", ",6_", 1)
    path = write(tmp_path, PLAIN_HEADER + "\n" + "\n".join(grouped) + "\n")
    assert_located(read_error(path, n_joints=6), path, 102, "x_mm")
    cells = rows[2500].split(",")
    cells[1] = "1e13"
    rows[2500] = ",".join(cells)
    path = write(tmp_path, PLAIN_HEADER + "\n" + "\n".join(rows) + "\n")
    errors = []
    for slow_path in (False, True):
        with monkeypatch.context() as patch:
            if slow_path:
                patch.setattr(targets_csv, "_parse_plain", lambda *args: None)
            errors.append(read_error(path, n_joints=6))
    assert (errors[0].row, errors[0].column, errors[0].message) == (errors[1].row, errors[1].column,
                                                                    errors[1].message)
    assert_located(errors[0], path, 2502, "x_mm")
    assert "magnitude at most 1e+12" in errors[0].message


def test_a_dataframe_is_checked_as_its_csv(tmp_path):
    """read_targets_frame converts and checks cells with the CSV's function: what the CSV refuses (a cell beyond
    1e12, digit grouping, a duplicate name) it refuses at the same line and column, in the same words."""
    pd = pytest.importorskip("pandas")
    from thermocomp.io.targets_csv import read_targets_frame
    header = "name,x_mm,y_mm,z_mm,euler_xyz_a_deg,euler_xyz_b_deg,euler_xyz_c_deg"
    rows = [f"T{i},{400 + i},0,400,0,90,0" for i in range(20)]
    for k, cell, column in ((7, "1e13", "y_mm"), (12, "6_41", "x_mm"), (3, "T1", "name")):
        bad = list(rows)
        cells = bad[k].split(",")
        cells[["name", "x_mm", "y_mm"].index(column)] = cell
        bad[k] = ",".join(cells)
        path = write(tmp_path, header + "\n" + "\n".join(bad) + "\n")
        from_csv = read_error(path)
        frame = pd.read_csv(path, dtype=str) if column == "x_mm" else pd.read_csv(path)
        with pytest.raises(InputError) as err:
            read_targets_frame(frame, source=str(path))
        assert (err.value.row, err.value.column) == (from_csv.row, from_csv.column) == (k + 2, column)
        if column != "y_mm":  # (the frame's number 1e13 reads back as '10000000000000.0')
            assert str(err.value) == str(from_csv)
