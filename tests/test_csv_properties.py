"""Property tests of the CSV readers and writers (seeded: ``derandomize=True``).

- Writing a random valid program or deformation table and reading it back
  gives the same data (to the round-trip tolerances of thermocomp.tolerances).
- Garbage put into one numeric cell of a valid file is reported at exactly
  that file line and column, whatever comments and blank lines precede it and
  however the file is chunked.
- The streaming row reader gives the same rows and line numbers as the
  whole-file one, whatever the line endings.
- Euler angles, a quaternion and a rotation vector describing one rotation
  (each computed here from first principles, not with thermocomp) read to
  the same ``R_world_tcp``.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path

import numpy as np
import pytest
from helpers import assert_same_program
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from thermocomp.compensation.targets import Targets
from thermocomp.deformation.table import DeformationTable
from thermocomp.errors import InputError
from thermocomp.geometry.rotations import matrix_from_quat_wxyz
from thermocomp.io.csvtext import iter_rows
from thermocomp.io.deformation_csv import read_deformation_csv, write_deformation_csv
from thermocomp.io.targets_csv import iter_targets_csv, read_targets_csv, write_targets_csv
from thermocomp.tolerances import ROUNDTRIP_ANGLE_TOL, ROUNDTRIP_POSITION_TOL

SETTINGS = settings(
    max_examples=60,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)

# ---------------------------------------------------------------------------
# Strategies

#: Names that can be written and read back: no control or line-break
#: characters, no surrounding spaces; commas, quotes and '#' are allowed.
names = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), min_size=1, max_size=8
).filter(lambda s: s == s.strip() and s.splitlines() == [s])
unit = st.floats(-1.0, 1.0, allow_nan=False)
quaternions = st.tuples(unit, unit, unit, unit).filter(lambda q: sum(c * c for c in q) > 1e-2)


@st.composite
def programs(draw) -> Targets:
    m = draw(st.integers(1, 12))
    convention = draw(st.sampled_from(["euler_xyz", "quat_wxyz", "rotvec", "fixed"]))
    quats = np.array(draw(st.lists(quaternions, min_size=m, max_size=m)))
    R = matrix_from_quat_wxyz(quats)
    if convention == "fixed":
        R = np.broadcast_to(R[0], (m, 3, 3))
    coordinate = st.floats(-10.0, 10.0, allow_nan=False)
    p = draw(st.lists(st.tuples(coordinate, coordinate, coordinate), min_size=m, max_size=m))
    time_min = None
    if draw(st.booleans()):
        time_min = draw(st.lists(st.floats(0.0, 1e4, allow_nan=False), min_size=m, max_size=m))
    q = None
    if draw(st.booleans()):
        n = draw(st.integers(1, 7))
        angle = st.floats(-2 * math.pi, 2 * math.pi, allow_nan=False)
        q = draw(st.lists(st.lists(angle, min_size=n, max_size=n), min_size=m, max_size=m))
    return Targets(
        names=tuple(draw(st.lists(names, min_size=m, max_size=m, unique=True))),
        R_world_tcp=R,
        p_world_tcp=p,
        time_min=time_min,
        q_reference=q,
        orientation_convention=convention,
    )


@st.composite
def tables(draw) -> DeformationTable:
    n = draw(st.integers(1, 8))
    length = st.floats(-1e-2, 1e-2, allow_nan=False)  # [m]
    angle = st.floats(-0.1, 0.1, allow_nan=False)  # [rad]
    row = st.tuples(length, length, length, angle, angle, angle)
    return DeformationTable(
        joints=draw(st.lists(row, min_size=n, max_size=n)), base=draw(row), tool=draw(row), source="hypothesis"
    )


def _not_a_finite_number(text: str) -> bool:
    try:
        return not math.isfinite(float(text))
    except ValueError:
        return True


#: Cell contents that are not a finite number. No ',' (it would split the
#: cell), '"' (quoting) or '#' (a line starting with it is a comment).
garbage = st.one_of(
    st.sampled_from(["", " ", "nan", "NaN", "-inf", "Infinity", "1e999", "1.2.3", "--1", "0x10", "1e", "mm", "12 mm"]),
    # No control characters or line separators either (a cell of them is no cell a spreadsheet writes)
    st.text(
        alphabet=st.characters(blacklist_characters=',"#', blacklist_categories=("Cs", "Cc", "Zl", "Zp")), max_size=6
    ),
).filter(_not_a_finite_number)


# ---------------------------------------------------------------------------
# Round trips


@pytest.mark.slow
@SETTINGS
@given(program=programs(), chunk_rows=st.integers(1, 5))
def test_program_round_trip(tmp_path: Path, program: Targets, chunk_rows: int) -> None:
    path = tmp_path / "program.csv"
    write_targets_csv(program, path)
    fixed = program.R_world_tcp[0] if program.orientation_convention == "fixed" else None
    n_joints = None if program.q_reference is None else program.q_reference.shape[1]
    assert_same_program(read_targets_csv(path, fixed_orientation=fixed, n_joints=n_joints), program)
    chunks = list(iter_targets_csv(path, chunk_rows, fixed_orientation=fixed))
    assert all(c.n_targets <= chunk_rows for c in chunks)
    assert sum((c.names for c in chunks), ()) == program.names


@SETTINGS
@given(table=tables())
def test_table_round_trip(tmp_path: Path, table: DeformationTable) -> None:
    path = tmp_path / "table.csv"
    write_deformation_csv(table, path)
    back = read_deformation_csv(path, n_joints=table.n_joints)
    np.testing.assert_allclose(back.rows()[:, :3], table.rows()[:, :3], rtol=0, atol=ROUNDTRIP_POSITION_TOL)
    np.testing.assert_allclose(back.rows()[:, 3:], table.rows()[:, 3:], rtol=0, atol=ROUNDTRIP_ANGLE_TOL)


# ---------------------------------------------------------------------------
# Garbage is located

_TARGET_HEADERS = [
    ",X,Y,Z,RX,RY,RZ",
    "name,X,Y,Z",
    "name,x_mm,y_mm,z_mm,quat_w,quat_x,quat_y,quat_z,time_min",
    "q2_rad,x_m,y_m,z_m,q1_rad,rotvec_x_deg,rotvec_y_deg,rotvec_z_deg",
    "euler_xyz_c_rad,name,euler_xyz_a_rad,euler_xyz_b_rad,z_mm,y_mm,x_mm,q1_deg,q2_deg,q3_deg",
]


def _valid_cell(column: str, k: int) -> str:
    if column.startswith("quat_"):
        return "1" if column == "quat_w" else "0"
    return f"{k * 0.5:g}"


@st.composite
def broken_files(draw, headers: list[str]) -> tuple[str, int, str, int]:
    """A valid file with one numeric cell replaced by garbage: (text, line, column, chunk_rows)."""
    header = draw(st.sampled_from(headers))
    columns = header.split(",")
    m = draw(st.integers(1, 12))
    lines = []
    for _ in range(draw(st.integers(0, 2))):
        lines.append(draw(st.sampled_from(["# comment", "", "   ", "#,1,2"])))
    lines.append(header)
    rows: list[int] = []  # index into lines of each data row
    for k in range(m):
        for _ in range(draw(st.integers(0, 1))):
            lines.append(draw(st.sampled_from(["# comment", "", "  # indented comment"])))
        cells = [f"T{k}" if c in ("", "name") else _valid_cell(c, k) for c in columns]
        rows.append(len(lines))
        lines.append(",".join(cells))
    numeric = [i for i, c in enumerate(columns) if c not in ("", "name")]
    row = draw(st.sampled_from(rows))
    col = draw(st.sampled_from(numeric))
    cells = lines[row].split(",")
    cells[col] = draw(garbage)
    lines[row] = ",".join(cells)
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    return newline.join(lines) + newline, row + 1, columns[col], draw(st.integers(1, 5))


@SETTINGS
@given(case=broken_files(_TARGET_HEADERS))
def test_garbage_in_a_target_cell_is_located(tmp_path: Path, case: tuple[str, int, str, int]) -> None:
    text, line, column, chunk_rows = case
    path = tmp_path / "targets.csv"
    path.write_bytes(text.encode("utf-8"))
    fixed = np.eye(3) if "name,X,Y,Z" in text.splitlines() else None  # the position-only header
    for read in (
        lambda: read_targets_csv(path, fixed_orientation=fixed),
        lambda: list(iter_targets_csv(path, chunk_rows, fixed_orientation=fixed)),
    ):
        try:
            read()
        except InputError as exc:
            assert (exc.path, exc.row, exc.column) == (str(path), line, column), str(exc)
            assert f"line {line}" in str(exc) and repr(column) in str(exc)
        else:
            raise AssertionError(f"garbage at line {line}, column {column} was accepted")


@SETTINGS
@given(case=broken_files(["Dx,Dy,Dz,Dox,Doy,Doz", "Doz,Doy,Dox,Dz,Dy,Dx"]))
def test_garbage_in_a_deformation_cell_is_located(tmp_path: Path, case: tuple[str, int, str, int]) -> None:
    text, line, column, _ = case
    path = tmp_path / "table.csv"
    path.write_bytes(text.encode("utf-8"))
    try:
        read_deformation_csv(path)
    except InputError as exc:
        assert (exc.path, exc.row, exc.column) == (str(path), line, column), str(exc)
    else:
        raise AssertionError(f"garbage at line {line}, column {column} was accepted")


# ---------------------------------------------------------------------------
# Streaming rows = whole-file rows

#: Every line boundary of str.splitlines: the readers end a line at the first three only, as editors do.
_BREAKS = ["\n", "\r\n", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]
_cells = st.text(alphabet=st.sampled_from(list("ab1 .,#-\t\u00e9")), max_size=8)


@SETTINGS
@given(pieces=st.lists(st.tuples(_cells, st.sampled_from(_BREAKS)), max_size=12), bom=st.booleans())
def test_iter_rows_matches_whole_file_splitting(tmp_path: Path, pieces: list[tuple[str, str]], bom: bool) -> None:
    """The streamed rows equal an independent whole-file reading: universal newlines (a line ends at ``\\n``,
    ``\\r\\n`` or ``\\r``, as in an editor), then the csv module."""
    text = ("\ufeff" if bom else "") + "".join(cells + brk for cells, brk in pieces)
    path = tmp_path / "rows.csv"
    path.write_bytes(text.encode("utf-8"))
    with path.open(encoding="utf-8-sig", newline=None) as handle:  # (newline=None: universal newlines)
        whole = handle.readlines()
    expected = [(k, next(csv.reader([line.removesuffix("\n")]))) for k, line in enumerate(whole, start=1)
                if line.strip() and not line.lstrip().startswith("#")]
    assert list(iter_rows(path)) == expected


# ---------------------------------------------------------------------------
# One rotation, three encodings


def _quat_multiply(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Hamilton product of w-first quaternions."""
    w1, x1, y1, z1 = a
    w2, x2, y2, z2 = b
    return np.array([
        w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2,
        w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
        w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
        w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2,
    ])


def _elementary(axis: int, angle: float) -> tuple[np.ndarray, np.ndarray]:
    """Rotation matrix and quaternion of ``angle`` [rad] about coordinate ``axis``."""
    c, s = math.cos(angle), math.sin(angle)
    i, j = [(1, 2), (2, 0), (0, 1)][axis]
    R = np.eye(3)
    R[i, i], R[i, j], R[j, i], R[j, j] = c, -s, s, c
    q = np.zeros(4)
    q[0], q[1 + axis] = math.cos(angle / 2), math.sin(angle / 2)
    return R, q


angles_deg = st.floats(-180.0, 180.0, allow_nan=False)


@SETTINGS
@given(a=angles_deg, b=angles_deg, c=angles_deg, flip=st.booleans(), rotvec_deg=st.booleans(), euler_rad=st.booleans())
def test_euler_quaternion_and_rotvec_of_one_rotation_read_alike(
    tmp_path: Path, a: float, b: float, c: float, flip: bool, rotvec_deg: bool, euler_rad: bool
) -> None:
    # CoppeliaSim's convention, R = Rx(a) Ry(b) Rz(c), and the same as a quaternion product.
    (Ra, qa), (Rb, qb), (Rc, qc) = (_elementary(k, math.radians(t)) for k, t in enumerate((a, b, c)))
    R = Ra @ Rb @ Rc
    q = _quat_multiply(_quat_multiply(qa, qb), qc)
    if q[0] < 0:
        q = -q
    n = float(np.linalg.norm(q[1:]))
    rotvec = q[1:] / n * 2 * math.atan2(n, q[0]) if n > 0 else np.zeros(3)
    if flip:
        q = -q  # the same rotation
    euler = np.radians([a, b, c]) if euler_rad else np.array([a, b, c])
    files = {
        "euler": (",".join(f"euler_xyz_{k}_{'rad' if euler_rad else 'deg'}" for k in "abc"), euler),
        "quat": ("quat_w,quat_x,quat_y,quat_z", q),
        "rotvec": (",".join(f"rotvec_{k}_{'deg' if rotvec_deg else 'rad'}" for k in "xyz"),
                   np.degrees(rotvec) if rotvec_deg else rotvec),
    }
    for key, (header, values) in files.items():
        path = tmp_path / f"{key}.csv"
        path.write_text(f"name,x_mm,y_mm,z_mm,{header}\nA,1,2,3,{','.join(map(repr, values.tolist()))}\n")
        got = read_targets_csv(path).R_world_tcp[0]
        np.testing.assert_allclose(got, R, rtol=0, atol=ROUNDTRIP_ANGLE_TOL, err_msg=key)
