"""Robot programs (TCP targets) as CSV: reader, streaming reader and writer.

Two forms, told apart by the header (docs/conventions.md lists every
orientation convention).

**The paper's form** (seed 002, Table 12): a first column of target names
whose header cell is empty or ``name``, then exactly ``X,Y,Z,RX,RY,RZ`` --
position [mm] and CoppeliaSim Euler angles ``(alpha, beta, gamma)`` [deg],
``R = Rx(alpha) @ Ry(beta) @ Rz(gamma)`` -- or exactly ``X,Y,Z`` (position
only; every target then takes one orientation given by the caller)::

    ,X,Y,Z,RX,RY,RZ
    P1,641,21,473,0,90,0

**The self-describing form**: every column carries its meaning and unit in
its name, in any order:

- ``name``: target name (optional; default ``row<line>``);
- ``x_mm,y_mm,z_mm`` or ``x_m,y_m,z_m``: TCP position in the world frame
  (required);
- at most one orientation group:

  - ``euler_xyz_a_deg,euler_xyz_b_deg,euler_xyz_c_deg`` (or ``_rad``):
    CoppeliaSim Euler angles, ``R = Rx(a) @ Ry(b) @ Rz(c)``;
  - ``quat_w,quat_x,quat_y,quat_z``: unit quaternion, w first (ABB RAPID
    robtarget order), norm within :data:`QUAT_NORM_TOL` of 1;
  - ``rotvec_x_rad,rotvec_y_rad,rotvec_z_rad`` (or ``_deg``): rotation
    vector, axis times angle (UR);

- ``time_min``: time of the target in the program [min], finite, >= 0
  (optional); with it, a name may repeat (a cycle visits the same target
  again: name and time, or name and line, identify a row), without it
  names are unique;
- ``q1_deg`` .. ``qn_deg`` (or ``_rad``): reference joint configuration,
  controller angles, consecutive from 1 (optional);
- ``cf1,cf4,cf6,cfx``: ABB configuration data, integers, ``cfx`` in 0..7
  (optional; :mod:`thermocomp.kinematics.confdata`)::

    name,x_mm,y_mm,z_mm,quat_w,quat_x,quat_y,quat_z,time_min
    P1,641,21,473,0.7071068,0,0.7071068,0,0

With no orientation group, every target takes the caller's fixed
orientation. Unknown columns are errors (never guessed). Both forms
describe the TCP pose in the world frame; inside thermocomp it is SI
(:class:`~thermocomp.compensation.targets.Targets`: m, rad).

Lines starting with ``#`` are comments. Every error is an
:class:`~thermocomp.errors.InputError` naming the file, the line (1-based,
as an editor shows it) and the column.

One parse reads every row: a block of plain lines (ASCII, no quotes,
comments or control characters) is split and its numbers read at once by
pyarrow's CSV reader (its decimal conversion gives the double :class:`float`
gives, bit for bit), any other block, and a plain one with a cell pyarrow
does not read as a number, row by row by Python's csv module and
:class:`float`; either way one function (:func:`_convert`) checks every row
and words the first problem from the cell's text, so a value and a message
come from the same parse.
"""

from __future__ import annotations

import hashlib
import io
import itertools
import math
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.csv as pa_csv

from thermocomp._typing import FloatArray, PathLike
from thermocomp.compensation.targets import Targets
from thermocomp.errors import ConfigurationError, InputError
from thermocomp.geometry.checks import check_rotation
from thermocomp.geometry.rotations import (
    euler_xyz_from_matrix,
    matrix_from_euler_xyz,
    matrix_from_quat_wxyz,
    matrix_from_rotvec,
    quat_wxyz_from_matrix,
    rotvec_from_matrix,
)
from thermocomp.io.atomic import atomic_open
from thermocomp.io.csvtext import CELL_BLANKS, MAX_CELL, CsvLines, RawLines, header_names, iter_rows, number_text, parse_float
from thermocomp.tolerances import QUAT_NORM_TOL

#: The paper's columns after the name column: full pose, or position only.
PAPER_POSE_COLUMNS = ("X", "Y", "Z", "RX", "RY", "RZ")
PAPER_POSITION_COLUMNS = ("X", "Y", "Z")

#: ABB confdata columns, in the order of :attr:`Targets.confdata`.
CONFDATA_COLUMNS = ("cf1", "cf4", "cf6", "cfx")

#: Targets per chunk when :func:`read_targets_csv` reads a whole file.
_READ_CHUNK = 65536

_ORIENTATION_GROUPS = {
    # convention: (column regex, components in order, column name template)
    "euler_xyz": (re.compile(r"euler_xyz_([abc])_(deg|rad)"), ("a", "b", "c"), "euler_xyz_{}_{}"),
    "quat_wxyz": (re.compile(r"quat_([wxyz])()"), ("w", "x", "y", "z"), "quat_{}"),
    "rotvec": (re.compile(r"rotvec_([xyz])_(rad|deg)"), ("x", "y", "z"), "rotvec_{}_{}"),
}
_POSITION_RE = re.compile(r"([xyz])_(mm|m)")
_JOINT_RE = re.compile(r"q([1-9][0-9]*)_(deg|rad)")

_KNOWN_COLUMNS = (
    "name; x_mm,y_mm,z_mm or x_m,y_m,z_m; one of euler_xyz_{a,b,c}_deg (or _rad), "
    "quat_w,quat_x,quat_y,quat_z, rotvec_{x,y,z}_rad (or _deg); time_min; q1_deg..qn_deg (or _rad); "
    "cf1,cf4,cf6,cfx"
)
_ORIENTATION_HINT = (
    "give an orientation for every target: fixed_orientation=R (3x3 rotation matrix) from Python, "
    "or --orientation-euler-xyz-deg A B C on the command line"
)


@dataclass(frozen=True)
class _Layout:
    """Where each quantity sits in the rows of one targets file, and its unit.

    ``value_index`` lists the numeric cells in the order position (3),
    orientation (``n_orientation``), time (0 or 1), joints (``n_q``).
    """

    columns: tuple[str, ...]  # header cells as shown in messages ('' replaced by its 1-based index)
    name_index: int | None
    value_index: tuple[int, ...]  # position, orientation, time, joints, confdata
    position_per_metre: float  # 1000.0 for mm, 1.0 for m
    convention: str
    n_orientation: int
    orientation_deg: bool
    has_time: bool
    n_q: int
    q_deg: bool
    R_fixed: FloatArray | None
    has_confdata: bool = False
    value_columns: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "value_columns", tuple(self.columns[i] for i in self.value_index))


def _check_duplicates(columns: Sequence[str], src: str, line: int) -> None:
    first: dict[str, int] = {}
    for i, name in enumerate(columns):
        if name in first:
            raise InputError(
                f"duplicate column {name!r} (columns {first[name] + 1} and {i + 1})", path=src, row=line, column=name
            )
        first[name] = i


def _group(
    found: list[tuple[str, str, int]],
    components: Sequence[str],
    template: str,
    columns: Sequence[str],
    src: str,
    line: int,
) -> tuple[tuple[int, ...], str]:
    """Indices of a complete column group in component order, and its one unit.

    ``found`` holds ``(component, unit, index)`` of the group's columns in
    header order; a mixed unit or a missing component is a located error.
    """
    unit = found[0][1]
    for _component, other, i in found:
        if other != unit:
            raise InputError(
                f"expected one unit in a column group, got {columns[found[0][2]]!r} and {columns[i]!r}",
                path=src, row=line, column=columns[i],
            )
    by_component = {component: i for component, _, i in found}
    for component in components:
        if component not in by_component:
            want = ",".join(template.format(c, unit) for c in components)
            raise InputError(
                f"missing column {template.format(component, unit)!r}: expected the group {want}",
                path=src, row=line, column=template.format(component, unit),
            )
    return tuple(by_component[c] for c in components), unit


def _paper_layout(
    columns: tuple[str, ...], src: str, line: int, R_fixed: FloatArray | None
) -> _Layout:
    rest = columns[1:]
    full = rest == PAPER_POSE_COLUMNS
    if not full and rest != PAPER_POSITION_COLUMNS:
        want = PAPER_POSE_COLUMNS if len(rest) > 3 else PAPER_POSITION_COLUMNS
        bad = next((i for i, (got, exp) in enumerate(zip(rest, want)) if got != exp), None)
        if bad is not None:
            column = rest[bad] or str(bad + 2)  # the first unexpected cell
        elif len(rest) < len(want):
            column = want[len(rest)]  # the first missing column
        else:
            column = rest[len(want)] or str(len(want) + 2)  # the first extra cell
        raise InputError(
            "a first header cell that is empty or 'name' starts the paper's form: expected "
            f"{','.join(PAPER_POSE_COLUMNS)} or {','.join(PAPER_POSITION_COLUMNS)} after it, got {','.join(rest)} "
            f"(or use the self-describing columns: {_KNOWN_COLUMNS})",
            path=src, row=line, column=column,
        )
    if full and R_fixed is not None:
        raise InputError(
            "the file gives orientations (RX,RY,RZ) and a fixed orientation was given too "
            "(--orientation-euler-xyz-deg); give only one",
            path=src, row=line, column="RX",
        )
    if not full and R_fixed is None:
        raise InputError(
            f"the paper's form with X,Y,Z only has no orientation: {_ORIENTATION_HINT}", path=src, row=line
        )
    display = (columns[0] or "1",) + rest
    return _Layout(
        columns=display,
        name_index=0,
        value_index=tuple(range(1, len(columns))),
        position_per_metre=1000.0,
        convention="euler_xyz" if full else "fixed",
        n_orientation=3 if full else 0,
        orientation_deg=True,
        has_time=False,
        n_q=0,
        q_deg=False,
        R_fixed=R_fixed,
    )


def _self_describing_layout(
    columns: tuple[str, ...], src: str, line: int, R_fixed: FloatArray | None, n_joints: int | None
) -> _Layout:
    name_index = None
    time_index = None
    position: list[tuple[str, str, int]] = []
    joints: list[tuple[int, str, int]] = []
    confdata: dict[str, int] = {}
    groups: dict[str, list[tuple[str, str, int]]] = {}
    for i, name in enumerate(columns):
        if name == "name":
            name_index = i
        elif name in CONFDATA_COLUMNS:
            confdata[name] = i
        elif name == "time_min":
            time_index = i
        elif m := _POSITION_RE.fullmatch(name):
            position.append((m[1], m[2], i))
        elif m := _JOINT_RE.fullmatch(name):
            joints.append((int(m[1]), m[2], i))
        else:
            for convention, (pattern, _, _) in _ORIENTATION_GROUPS.items():
                if m := pattern.fullmatch(name):
                    groups.setdefault(convention, []).append((m[1], m[2], i))
                    break
            else:
                raise InputError(
                    f"unknown column {name!r}; expected the paper's ,X,Y,Z,RX,RY,RZ or ,X,Y,Z, "
                    f"or self-describing columns: {_KNOWN_COLUMNS}",
                    path=src, row=line, column=name or str(i + 1),
                )

    if not position:
        raise InputError(
            f"missing position columns: expected x_mm,y_mm,z_mm or x_m,y_m,z_m, got {','.join(columns)}",
            path=src, row=line, column="x_mm",
        )
    position_index, position_unit = _group(position, ("x", "y", "z"), "{}_{}", columns, src, line)

    if len(groups) > 1:
        starts = sorted(found[0][2] for found in groups.values())  # first column of each group
        first, second = columns[starts[0]], columns[starts[1]]
        raise InputError(
            f"expected one orientation group, got two: {first!r}... and {second!r}...",
            path=src, row=line, column=second,
        )
    orientation_index: tuple[int, ...] = ()
    orientation_unit = "rad"
    if groups:
        convention, found = next(iter(groups.items()))
        _, components, template = _ORIENTATION_GROUPS[convention]
        orientation_index, orientation_unit = _group(found, components, template, columns, src, line)
        if R_fixed is not None:
            raise InputError(
                f"the file gives orientations ({columns[found[0][2]]!r}...) and a fixed orientation was given too "
                "(--orientation-euler-xyz-deg); give only one",
                path=src, row=line, column=columns[found[0][2]],
            )
    elif R_fixed is None:
        raise InputError(f"no orientation columns: {_ORIENTATION_HINT}, or add orientation columns", path=src, row=line)
    else:
        convention = "fixed"

    q_index: tuple[int, ...] = ()
    q_unit = "rad"
    if joints:
        found_q = [(str(k), unit, i) for k, unit, i in joints]
        n_q, unit_q, i_q = max(joints)
        if n_q > len(columns):  # before listing q1..qn: a header may name q999999999_deg
            raise InputError(f"expected reference joint columns q1..qn, one per joint, got {columns[i_q]!r} in a "
                             f"header of {len(columns)} columns", path=src, row=line, column=columns[i_q])
        if n_joints is not None and n_q != n_joints:
            column = f"q{n_joints + 1}_{unit_q}" if n_q > n_joints else f"q{n_q + 1}_{unit_q}"
            raise InputError(
                f"expected reference joint columns q1..q{n_joints} for a {n_joints}-joint robot, got q1..q{n_q}",
                path=src, row=line, column=column,
            )
        q_index, q_unit = _group(found_q, [str(k) for k in range(1, n_q + 1)], "q{}_{}", columns, src, line)

    confdata_index: tuple[int, ...] = ()
    if confdata:
        missing = [c for c in CONFDATA_COLUMNS if c not in confdata]
        if missing:
            raise InputError(
                f"missing column {missing[0]!r}: ABB confdata needs all of {','.join(CONFDATA_COLUMNS)}",
                path=src, row=line, column=missing[0],
            )
        if n_joints is not None and n_joints != 6:
            raise InputError(f"ABB confdata is defined for 6-axis robots, the robot has {n_joints} joints",
                             path=src, row=line, column="cf1")
        confdata_index = tuple(confdata[c] for c in CONFDATA_COLUMNS)

    return _Layout(
        columns=tuple(c or str(i + 1) for i, c in enumerate(columns)),
        name_index=name_index,
        value_index=position_index + orientation_index + (() if time_index is None else (time_index,)) + q_index
        + confdata_index,
        position_per_metre=1000.0 if position_unit == "mm" else 1.0,
        convention=convention,
        n_orientation=len(orientation_index),
        orientation_deg=orientation_unit == "deg",
        has_time=time_index is not None,
        n_q=len(q_index),
        q_deg=q_unit == "deg",
        R_fixed=R_fixed,
        has_confdata=bool(confdata_index),
    )


def _layout(header: list[str], src: str, line: int, R_fixed: FloatArray | None, n_joints: int | None) -> _Layout:
    """Tell the form from the header and locate every column."""
    columns = tuple(header_names(header))
    _check_duplicates(columns, src, line)
    if columns[0] in ("", "name") and len(columns) > 1 and columns[1] in PAPER_POSE_COLUMNS:
        return _paper_layout(columns, src, line, R_fixed)
    if columns[0] == "":
        return _paper_layout(columns, src, line, R_fixed)
    return _self_describing_layout(columns, src, line, R_fixed, n_joints)


class _NameRegistry:
    """Target names of earlier chunks, for the duplicate check of a streamed file.

    Keeps only an 8-byte BLAKE2b digest of each name (not the name, not its
    line), in sorted runs merged like a binary counter: a lookup costs
    ``O(chunk log n)``, merging ``O(n log n)`` in all, and a million names
    take 8 MB. A digest found again is a *candidate* duplicate only; the
    caller confirms it by reading the names of the earlier lines back from
    the file (:func:`_first_lines`), which also gives the earlier line. So
    the check is exact, and a 64-bit collision (about 3e-8 among a million
    names) costs one extra pass over the file, never a false error.
    """

    def __init__(self) -> None:
        self._runs: list[np.ndarray] = []

    @staticmethod
    def digests(names: Sequence[str]) -> np.ndarray:
        """``(m,)`` uint64 digests of ``names``."""
        joined = b"".join(hashlib.blake2b(n.encode("utf-8", "surrogatepass"), digest_size=8).digest() for n in names)
        return np.frombuffer(joined, dtype=np.uint64)

    def candidates(self, digests: np.ndarray) -> np.ndarray:
        """Indices of ``digests`` seen in an earlier chunk, in order."""
        seen = np.zeros(len(digests), dtype=bool)
        for run in self._runs:
            at = np.minimum(np.searchsorted(run, digests), len(run) - 1)
            seen |= run[at] == digests
        return np.flatnonzero(seen)

    def add(self, digests: np.ndarray) -> None:
        self._runs.append(np.sort(digests))
        while len(self._runs) >= 2 and len(self._runs[-2]) <= len(self._runs[-1]):
            merged = np.concatenate([self._runs.pop(), self._runs.pop()])
            merged.sort(kind="stable")  # two sorted runs: timsort merges them in linear time
            self._runs.append(merged)


def _first_lines(src: str, layout: _Layout, header_line: int, names: set[str], before: int) -> dict[str, int]:
    """The first file line of each of ``names`` among the target lines (after ``header_line``) before ``before``.

    The confirmation pass of :class:`_NameRegistry`: reads the file again
    row by row (the rows before ``before`` were read once already, so they
    parse), stopping at ``before``.
    """
    assert layout.name_index is not None
    found: dict[str, int] = {}
    for line, cells in iter_rows(src):
        if line >= before or len(found) == len(names):
            break
        if line <= header_line or len(cells) <= layout.name_index:
            continue
        name = cells[layout.name_index].strip()
        if name in names and name not in found:
            found[name] = line
    return found


def _duplicate_error(src: str, layout: _Layout, name: str, first_line: int, line: int) -> InputError:
    assert layout.name_index is not None
    return InputError(
        f"duplicate target name {name!r} (lines {first_line} and {line}); expected unique names",
        path=src, row=line, column=layout.columns[layout.name_index],
    )


def _count_error(layout: _Layout, src: str, line: int, n_cells: int) -> InputError:
    """A row of ``n_cells`` cells under a header of another length."""
    columns = layout.columns
    column = columns[n_cells] if n_cells < len(columns) else str(len(columns) + 1)
    return InputError(
        f"expected {len(columns)} cells ({','.join(columns)}), got {n_cells}", path=src, row=line, column=column
    )


#: A column of cells, as :func:`_convert` takes it: their texts (a list of str from rows the csv module split),
#: or numbers already (a plain block's column as pyarrow read it, a DataFrame's numeric column) with the text of
#: cell ``k`` for a message.
_Cells = list[str] | tuple[FloatArray, Callable[[int], str]]


def _text_numbers(texts: list[str]) -> tuple[FloatArray, np.ndarray]:
    """Values of ``texts`` by :class:`float`, and the mask of cells :func:`parse_float` refuses to read."""
    try:
        values = np.array([float(t) for t in texts], dtype=float)
    except ValueError:
        values = None
    if values is not None and number_text("".join(texts)):
        return values, np.zeros(len(texts), dtype=bool)
    values = np.full(len(texts), math.nan)
    bad = np.zeros(len(texts), dtype=bool)
    for k, text in enumerate(texts):  # (only on a bad cell: locate it)
        try:
            values[k] = float(text)
            bad[k] = not number_text(text.strip(CELL_BLANKS))
        except ValueError:
            bad[k] = True
    return values, bad


def _numbers(cells: _Cells) -> tuple[FloatArray, np.ndarray]:
    """Values ``(k,)`` of a column of cells and the mask of those :func:`parse_float` rejects: empty, not a
    number, not ASCII or with ``_`` (:func:`number_text`), not finite, beyond :data:`MAX_CELL`.

    Texts are read by :class:`float`; numbers already read (a plain block's, by pyarrow) are taken as they are.
    """
    if isinstance(cells, tuple):
        values, bad = np.asarray(cells[0], dtype=float), np.zeros(len(cells[0]), dtype=bool)
    else:
        values, bad = _text_numbers(cells)
    bad |= ~np.isfinite(values)
    bad |= np.abs(values) > MAX_CELL
    return values, bad


def _cell_text(cells: _Cells, k: int) -> str:
    if isinstance(cells, tuple):
        return cells[1](k)
    return cells[k]


def _failed_row_checks(layout: _Layout, values: FloatArray) -> np.ndarray:
    """Rows ``(k,)`` of ``values`` ``(k, len(value_index))`` that fail a per-row check (quaternion norm, time, confdata)."""
    failed = np.zeros(len(values), dtype=bool)
    if layout.convention == "quat_wxyz":
        w, x, y, z = values[:, 3:7].T
        failed |= np.abs(np.sqrt(w * w + x * x + y * y + z * z) - 1.0) > QUAT_NORM_TOL
    if layout.has_time:
        failed |= values[:, 3 + layout.n_orientation] < 0
    if layout.has_confdata:
        cfd = values[:, -4:]
        failed |= np.any(cfd != np.round(cfd), axis=1) | (cfd[:, 3] < 0) | (cfd[:, 3] > 7)
    return failed


def _row_error(layout: _Layout, src: str, line: int, name: str, texts: list[str], values: list[float]) -> InputError:
    """The first problem of a row that :func:`_convert` found bad, worded and located."""
    if layout.name_index is not None and not name:
        return InputError("expected a target name, got an empty cell", path=src, row=line,
                          column=layout.columns[layout.name_index])
    for text, column in zip(texts, layout.value_columns):
        try:
            parse_float(text, src, line, column)
        except InputError as exc:
            return exc
    if layout.convention == "quat_wxyz":
        w, x, y, z = values[3:7]
        norm = math.sqrt(w * w + x * x + y * y + z * z)
        if abs(norm - 1.0) > QUAT_NORM_TOL:
            return InputError(
                f"expected a unit quaternion (w, x, y, z) with norm within {QUAT_NORM_TOL:g} of 1, "
                f"got ({', '.join(text.strip() for text in texts[3:7])}) of norm {norm:.6g}",
                path=src, row=line, column=layout.value_columns[3],
            )
    if layout.has_time:
        t = values[3 + layout.n_orientation]
        if t < 0:
            return InputError(f"expected a time >= 0 [min], got {t:g}", path=src, row=line, column="time_min")
    if layout.has_confdata:
        for value, column in zip(values[-4:], CONFDATA_COLUMNS):
            if value != round(value) or (column == "cfx" and not 0 <= value <= 7):
                want = "an integer from 0 to 7" if column == "cfx" else "an integer (a quadrant)"
                return InputError(f"expected {want}, got {value:g}", path=src, row=line, column=column)
    raise AssertionError(f"{src}, line {line}: a row found bad has no problem to report")  # a bug of _convert


def _convert(layout: _Layout, src: str, lines: np.ndarray, names: list[str] | None, columns: Sequence[_Cells]
             ) -> tuple[list[str], FloatArray, int, InputError | None]:
    """The one conversion and check of target rows, from cells split by any reader.

    Parameters
    ----------
    lines
        File line ``(k,)`` of each row (1-based).
    names
        The name cells ``(k,)`` (stripped here), or None without a name column (names ``row<line>``).
    columns
        The cells of ``layout.value_index``, a column each (:data:`_Cells`).

    Returns
    -------
    names, values, first, error
        The names and values ``(k, len(value_index))`` in file units; ``first`` the index of the first row
        with a problem (``k`` when none) and ``error`` that problem worded and located (file, line, column;
        None when none). Rows before ``first`` are valid; the caller checks duplicate names.
    """
    k = len(lines)
    bad = np.zeros(k, dtype=bool)
    if names is None:
        names = [f"row{line}" for line in lines.tolist()]
    else:
        names = [name.strip() for name in names]
        if not all(names):
            bad[[i for i, name in enumerate(names) if not name]] = True
    parsed = [_numbers(cells) for cells in columns]
    for _, cell_bad in parsed:
        bad |= cell_bad
    values = np.column_stack([v for v, _ in parsed]) if parsed else np.zeros((k, 0))
    with np.errstate(invalid="ignore"):  # (rows with a bad cell hold nan: they are bad already)
        bad |= _failed_row_checks(layout, values)
    if not bad.any():
        return names, values, k, None
    first = int(np.argmax(bad))
    texts = [_cell_text(cells, first) for cells in columns]
    return names, values, first, _row_error(layout, src, int(lines[first]), names[first], texts,
                                            values[first].tolist())


def _first_repeat(names: list[str], lines: np.ndarray, seen: dict[str, int]) -> tuple[int, int] | None:
    """The index of the first of ``names`` given before (in ``seen``, name -> line, or earlier in ``names``) and
    the line where it was first given; None when every name is new."""
    if seen.keys().isdisjoint(names) and len(set(names)) == len(names):
        return None
    first: dict[str, int] = {}
    for j, name in enumerate(names):
        if name in seen:
            return j, seen[name]
        if name in first:
            return j, int(lines[first[name]])
        first[name] = j
    raise AssertionError("a repeated name was not found")


def _program(layout: _Layout, src: str, names: list[str], values: FloatArray, lines: np.ndarray) -> Targets:
    """A :class:`Targets` from parsed rows of one chunk: ``values`` ``(m, len(value_index))`` in file units; SI from here on."""
    v = values
    p = v[:, 0:3] / layout.position_per_metre
    k = 3 + layout.n_orientation
    o = v[:, 3:k]
    if layout.orientation_deg:
        o = np.radians(o)
    if layout.convention == "euler_xyz":
        R = matrix_from_euler_xyz(o)
    elif layout.convention == "quat_wxyz":
        R = matrix_from_quat_wxyz(o)
    elif layout.convention == "rotvec":
        R = matrix_from_rotvec(o)
    else:
        assert layout.R_fixed is not None
        R = np.broadcast_to(layout.R_fixed, (len(names), 3, 3))
    time_min = None
    if layout.has_time:
        time_min = v[:, k]
        k += 1
    q = None
    if layout.n_q:
        q = v[:, k:k + layout.n_q]
        if layout.q_deg:
            q = np.radians(q)
        k += layout.n_q
    confdata = v[:, k:k + 4].astype(np.int64) if layout.has_confdata else None
    return Targets(
        names=tuple(names),
        R_world_tcp=R,
        p_world_tcp=p,
        time_min=time_min,
        q_reference=q,
        confdata=confdata,
        orientation_convention=layout.convention,
        source=src,
        lines=np.array(lines, dtype=np.int64),
    )


def _float_column(column: pa.ChunkedArray) -> FloatArray:
    """A float64 column without nulls as numpy, from its data buffers.

    (pyarrow's own ``to_numpy`` imports pandas, 0.2 s of every run, for a copy.)
    """
    parts = [np.frombuffer(chunk.buffers()[1], dtype=np.float64, count=len(chunk), offset=8 * chunk.offset)
             for chunk in column.chunks]
    return np.concatenate(parts) if parts else np.zeros(0)


def _parse_plain(layout: _Layout, raw: RawLines, text: bytes) -> tuple[list[str] | None, list[_Cells]] | None:
    """The name cells (None without a name column) and the value columns, read as numbers, of the plain lines
    ``raw`` (whose text :meth:`CsvLines.plain` gave as ``text``), split and converted at once by pyarrow's CSV
    reader; each value column comes with the text of its cell ``k`` (:data:`_Cells`), for a message.

    ``None`` when a line has another number of cells or is blank (pyarrow skips it), or when a cell is not a
    number as pyarrow reads them (empty, ``_``, ...): the caller then splits the block row by row
    (:meth:`CsvLines.rows`), which counts the cells, skips the blank line and words the error. Either way
    :func:`_convert` checks the rows. pyarrow splits on its threads, beside the solving (a streamed file is read on
    a thread of its own: :func:`thermocomp.app.targets._read_ahead`).
    """
    n = len(layout.columns)
    names = [f"c{k}" for k in range(n)]
    value_names = [names[k] for k in layout.value_index]
    types = dict.fromkeys(value_names, pa.float64())
    if layout.name_index is not None:
        types[names[layout.name_index]] = pa.string()
    try:
        table = pa_csv.read_csv(
            io.BytesIO(text),
            read_options=pa_csv.ReadOptions(column_names=names, use_threads=True),
            parse_options=pa_csv.ParseOptions(delimiter=",", quote_char=False, newlines_in_values=False),
            convert_options=pa_csv.ConvertOptions(column_types=types, include_columns=list(types), null_values=[],
                                                  strings_can_be_null=False, quoted_strings_can_be_null=False),
        )
    except pa.ArrowInvalid:
        return None
    if table.num_rows != len(raw):
        return None
    found = None if layout.name_index is None else table.column(names[layout.name_index]).to_pylist()
    lines: list[bytes] = []

    def text_of(column: int) -> Callable[[int], str]:
        def cell(k: int) -> str:
            if not lines:
                lines.extend(text.split(b"\n"))
            return lines[k].split(b",")[column].decode("ascii")
        return cell

    return found, [(_float_column(table.column(name)), text_of(k))
                   for name, k in zip(value_names, layout.value_index)]


def iter_targets_csv(
    path: PathLike,
    chunk_rows: int,
    *,
    fixed_orientation: FloatArray | None = None,
    n_joints: int | None = None,
) -> Iterator[Targets]:
    """Stream a targets file as :class:`Targets` chunks of at most ``chunk_rows`` targets.

    The file is read a chunk of lines at a time: memory holds one chunk, plus 8 bytes per
    target for the duplicate-name check when the file has a ``name`` column
    (none without one: the default names ``row<line>`` are unique); a name
    whose digest was seen before is confirmed by reading the earlier lines
    again (:class:`_NameRegistry`). Every
    chunk carries the file lines of its targets (``Targets.lines``).

    Parameters
    ----------
    path
        CSV file in either form of this module's docstring.
    chunk_rows
        Largest number of targets per chunk, >= 1.
    fixed_orientation
        ``R_world_tcp`` [-] of every target, shape ``(3, 3)``, for files
        without orientation columns; an error for files with them.
    n_joints
        The robot's number of joints; when given, reference joint columns
        ``q1..qn`` must number exactly that many.

    Yields
    ------
    Targets
        ``p_world_tcp`` ``(m, 3)`` [m], ``R_world_tcp`` ``(m, 3, 3)``,
        ``time_min`` ``(m,)`` [min] or ``None``, ``q_reference`` ``(m, n)``
        [rad] or ``None``, with ``m <= chunk_rows``.

    Raises
    ------
    InputError
        Naming file, line and column of the first problem, when iterated to
        it (a header problem at the first ``next``): missing or empty file,
        header only, bad or missing columns, a wrong number of cells, a cell
        that is not a finite number, an empty name, a duplicate name (without time_min), a
        quaternion that is not of unit norm, a negative time.
    ConfigurationError
        ``chunk_rows`` below 1.
    """
    if isinstance(chunk_rows, bool) or not isinstance(chunk_rows, int) or chunk_rows < 1:
        raise ConfigurationError(f"chunk_rows: expected an integer >= 1, got {chunk_rows!r}")
    R_fixed = None if fixed_orientation is None else check_rotation(fixed_orientation, "fixed_orientation")
    src = str(path)
    with CsvLines(path) as reader:
        header_row, pending = None, []  # a raw line may hold more lines than the header (bare \r)
        while header_row is None:
            raw = reader.read(1)
            if not raw:
                raise InputError("expected a header line and one line per target, got an empty file", path=src)
            header_row, *pending = list(reader.rows(raw)) or [None]
        header_line, header = header_row
        layout = _layout(header, src, header_line, R_fixed, n_joints)
        yield from _chunks(reader, layout, chunk_rows, header_line, pending)


class _Chunk:
    """The targets of the chunk being read: names, lines and values, a block at a time."""

    def __init__(self, unique_names: bool) -> None:
        self.names: list[str] = []
        self.lines: list[np.ndarray] = []
        self.blocks: list[FloatArray] = []
        #: name -> line, for the duplicate check within the chunk (kept only when names must be unique)
        self.unique_names = unique_names
        self.first_line: dict[str, int] = {}

    def add_block(self, names: list[str], values: FloatArray, lines: np.ndarray) -> None:
        self.names.extend(names)
        self.blocks.append(values)
        self.lines.append(lines)
        if self.unique_names:
            self.first_line.update(zip(names, lines.tolist()))

    def values_and_lines(self) -> tuple[FloatArray, np.ndarray]:
        if len(self.blocks) == 1:  # one block (a streamed file's usual chunk): no copy
            return self.blocks[0], self.lines[0]
        return np.concatenate(self.blocks), np.concatenate(self.lines)


def _chunks(reader: CsvLines, layout: _Layout, chunk_rows: int, header_line: int,
            pending: list[tuple[int, list[str]]]) -> Iterator[Targets]:
    """The targets after the header, as :class:`Targets` chunks of ``chunk_rows`` (the last may be shorter).

    A block of plain lines is split at once by pyarrow (:func:`_parse_plain`), any other block row by row
    by :meth:`CsvLines.rows` (comments, quotes, non-ASCII text, a wrong cell count); either way one
    function converts and checks the cells (:func:`_convert`) and words the first problem.
    """
    src = reader.src
    # Names must be unique unless rows carry time_min: a timed program revisits its targets
    # (a cycle every few minutes), and name plus time, or name plus line, tells its rows apart.
    registry = None if layout.name_index is None or layout.has_time else _NameRegistry()
    chunk = _Chunk(registry is not None)
    total = 0

    def earlier_duplicate(digests: np.ndarray | None = None) -> InputError | None:
        """The first name of the current chunk that an earlier chunk had (``digests``: of its names)."""
        if registry is None or not chunk.names:
            return None
        candidates = registry.candidates(registry.digests(chunk.names) if digests is None else digests)
        if candidates.size == 0:
            return None
        _, lines = chunk.values_and_lines()
        names = [chunk.names[k] for k in candidates]
        earlier = _first_lines(src, layout, header_line, set(names), before=int(lines.min()))
        for k, name in zip(candidates.tolist(), names):
            if name in earlier:
                return _duplicate_error(src, layout, name, earlier[name], int(lines[k]))
        return None  # digests that collided: no name repeats

    def add(lines: np.ndarray, names: list[str] | None, columns: list[_Cells], stop: InputError | None) -> None:
        """Rows into the chunk up to the first bad one (``stop``: the error of the row after them, if any);
        raises the first problem in file order."""
        names, values, first, error = _convert(layout, src, lines, names, columns)
        if error is None:
            error = stop
        if registry is not None:
            repeat = _first_repeat(names[:first], lines, chunk.first_line)
            if repeat is not None:
                j, first_line = repeat
                first, error = j, _duplicate_error(src, layout, names[j], first_line, int(lines[j]))
        if error is None:
            chunk.add_block(names, values, lines)
            return
        if first:
            chunk.add_block(names[:first], values[:first], lines[:first])
        # Report problems in file order: a name repeated from an earlier
        # chunk, on a line before this one, comes first.
        earlier = earlier_duplicate()
        raise (earlier if earlier is not None else error) from None

    def add_rows(rows: Iterator[tuple[int, list[str]]]) -> None:
        lines: list[int] = []
        cells: list[list[str]] = []
        stop = None
        n = len(layout.columns)
        try:
            for line, row in rows:  # reading a row can fail too (not UTF-8, bad quoting)
                if len(row) != n:
                    stop = _count_error(layout, src, line, len(row))
                    break
                lines.append(line)
                cells.append(row)
        except InputError as exc:
            stop = exc
        if not lines and stop is None:
            return
        by_column = [list(column) for column in zip(*cells)] if cells else [[] for _ in range(n)]
        names = None if layout.name_index is None else by_column[layout.name_index]
        add(np.array(lines, dtype=np.int64), names, [by_column[i] for i in layout.value_index], stop)

    def add_plain(raw: RawLines, text: bytes) -> bool:
        split = _parse_plain(layout, raw, text)
        if split is None:
            return False
        first_line = reader.number + 1
        reader.skip(raw)
        names, columns = split
        add(np.arange(first_line, first_line + len(raw), dtype=np.int64), names, columns, None)
        return True

    def finish() -> Targets:
        if registry is not None:
            digests = registry.digests(chunk.names)
            earlier = earlier_duplicate(digests)
            if earlier is not None:
                raise earlier
            registry.add(digests)
        values, lines = chunk.values_and_lines()
        return _program(layout, src, chunk.names, values, lines)

    pending_rows = iter(pending)
    while True:
        room = chunk_rows - len(chunk.names)
        if pending:
            add_rows(itertools.islice(pending_rows, room))
            pending = list(pending_rows)
            pending_rows = iter(pending)
        else:
            raw = reader.read(room)
            if not raw:
                break
            text = reader.plain(raw)
            if text is None or not add_plain(raw, text):
                rows = reader.rows(raw)
                add_rows(itertools.islice(rows, room))
                pending = list(rows)  # lines beyond the room, when a raw line held several
                pending_rows = iter(pending)
        if len(chunk.names) == chunk_rows:
            total += chunk_rows
            program = finish()
            chunk = _Chunk(registry is not None)
            yield program
    if total == 0 and not chunk.names:
        raise InputError("expected one line per target after the header, got none", path=src, row=header_line)
    if chunk.names:
        yield finish()


def read_targets_csv(
    path: PathLike,
    *,
    fixed_orientation: FloatArray | None = None,
    n_joints: int | None = None,
) -> Targets:
    """Read a whole targets file (either form of this module's docstring) into one :class:`Targets`.

    Parameters
    ----------
    path
        CSV file.
    fixed_orientation
        ``R_world_tcp`` of every target, shape ``(3, 3)``, for files without
        orientation columns (the result's ``orientation_convention`` is then
        ``"fixed"``); an error for files with them.
    n_joints
        The robot's number of joints; when given, reference joint columns
        ``q1..qn`` must number exactly that many.

    Returns
    -------
    Targets
        ``p_world_tcp`` ``(m, 3)`` [m] and ``R_world_tcp`` ``(m, 3, 3)`` in the
        world frame, ``time_min`` ``(m,)`` [min] or ``None``, ``q_reference``
        ``(m, n)`` [rad] or ``None``, ``lines`` the file line of each target.

    Raises
    ------
    InputError
        As :func:`iter_targets_csv`.
    """
    parts = list(iter_targets_csv(path, _READ_CHUNK, fixed_orientation=fixed_orientation, n_joints=n_joints))
    if len(parts) == 1:
        return parts[0]
    first = parts[0]
    return Targets(
        names=tuple(name for part in parts for name in part.names),
        R_world_tcp=np.concatenate([part.R_world_tcp for part in parts]),
        p_world_tcp=np.concatenate([part.p_world_tcp for part in parts]),
        time_min=None if first.time_min is None else np.concatenate([part.time_min for part in parts]),
        q_reference=None if first.q_reference is None else np.concatenate([part.q_reference for part in parts]),
        orientation_convention=first.orientation_convention,
        source=first.source,
        lines=np.concatenate([part.lines for part in parts]),
    )


def read_targets_frame(
    frame,
    *,
    fixed_orientation: FloatArray | None = None,
    n_joints: int | None = None,
    source: str = "DataFrame",
) -> Targets:
    """A :class:`Targets` from a pandas DataFrame whose columns are those of the self-describing form.

    The columns are read as the header of a targets CSV (module docstring:
    ``name``, ``x_mm``.., an orientation group, ``time_min``, ``q1_deg``..),
    so the same rules and units apply, and its cells are converted and checked
    by the CSV's own function (:func:`_convert`: numeric columns as numbers,
    others by their ``str``); the index is ignored. Errors name the
    line the row would have in ``frame.to_csv(index=False)`` (row position
    + 2) and the column.

    Parameters
    ----------
    frame
        A :class:`pandas.DataFrame` (anything with ``columns`` and ``iloc``).
    fixed_orientation, n_joints
        As :func:`read_targets_csv`.
    source
        Name of the frame in messages and in ``Targets.source``.

    Raises
    ------
    InputError
        As :func:`iter_targets_csv`.
    """
    R_fixed = None if fixed_orientation is None else check_rotation(fixed_orientation, "fixed_orientation")
    columns = [str(c) for c in frame.columns]
    layout = _layout(columns, source, 1, R_fixed, n_joints)
    m = len(frame)
    if m == 0:
        raise InputError("expected one row per target, got none", path=source)
    lines = np.arange(2, m + 2, dtype=np.int64)
    names = None if layout.name_index is None else [str(v) for v in frame.iloc[:, layout.name_index].tolist()]
    names, values, first, error = _convert(layout, source, lines, names,
                                           [_frame_cells(frame.iloc[:, i]) for i in layout.value_index])
    if layout.name_index is not None and not layout.has_time:
        repeat = _first_repeat(names[:first], lines, {})
        if repeat is not None:
            j, first_line = repeat
            error = _duplicate_error(source, layout, names[j], first_line, int(lines[j]))
    if error is not None:
        raise error
    return _program(layout, source, names, values, lines)


def _frame_cells(series) -> _Cells:
    """A DataFrame column as :func:`_convert` takes it: the numbers of a numeric column (the text of a cell,
    for a message, as ``str`` of its value), else the ``str`` of each value."""
    if series.dtype.kind in "biuf":
        try:
            return series.to_numpy(dtype=float), lambda k: str(series.iloc[k:k + 1].tolist()[0])
        except (TypeError, ValueError):  # (a nullable integer column with a missing value)
            pass
    return [str(v) for v in series.tolist()]


# ---------------------------------------------------------------------------
# Writer


def _name_cell(name: str, src: str) -> str:
    """``name`` as a CSV cell that reads back as ``name`` (quoted when needed)."""
    if not name or name != name.strip() or name.splitlines() != [name]:
        raise InputError(
            f"target name {name!r} cannot be written: expected a non-empty name on one line "
            "without surrounding spaces",
            path=src,
        )
    if "," in name or '"' in name or name.startswith("#"):
        return '"' + name.replace('"', '""') + '"'
    return name


def _orientation_columns(program: Targets) -> tuple[list[str], FloatArray]:
    """Header cells and ``(m, k)`` values of the program's orientation convention."""
    R = program.R_world_tcp
    convention = program.orientation_convention
    if convention == "euler_xyz":
        return ["euler_xyz_a_deg", "euler_xyz_b_deg", "euler_xyz_c_deg"], np.degrees(euler_xyz_from_matrix(R))
    if convention == "quat_wxyz":
        return ["quat_w", "quat_x", "quat_y", "quat_z"], quat_wxyz_from_matrix(R)
    if convention == "rotvec":
        return ["rotvec_x_rad", "rotvec_y_rad", "rotvec_z_rad"], rotvec_from_matrix(R)
    # "fixed": one orientation for every target, given again when reading back.
    if not np.array_equal(R, np.broadcast_to(R[0], R.shape)):
        raise InputError(
            "a program with orientation convention 'fixed' must have the same orientation for every target; "
            "give it another convention to write per-target orientations",
            path=program.source,
        )
    return [], np.zeros((program.n_targets, 0))


def write_targets_csv(program: Targets, path: PathLike, comments: tuple[str, ...] = ()) -> None:
    """Write ``program`` in the self-describing form, atomically (temporary file, then rename).

    Columns: ``name``, ``x_mm,y_mm,z_mm``, then the orientation in the
    program's convention (``euler_xyz_*_deg``, ``quat_*`` with ``w >= 0``,
    ``rotvec_*_rad``, or none for ``"fixed"``, whose orientation goes into a
    comment and must be given again as ``fixed_orientation`` when reading),
    then ``time_min``, ``q1_deg..qn_deg`` and ``cf1,cf4,cf6,cfx`` when the program has them.
    Floats are ``repr`` text: reading the file back gives the same program to
    within one rounding of each unit conversion (about 1e-16 relative).

    Parameters
    ----------
    program
        The targets; ``names`` must be non-empty, on one line and without
        surrounding spaces, and unique unless the program has ``time_min``.
    path
        Destination file.
    comments
        Leading ``#`` lines (provenance), one line each.

    Raises
    ------
    InputError
        A name or comment that cannot be written so that it reads back, or
        duplicate names without times; nothing is written.
    """
    src = str(path)
    name_cells = [_name_cell(n, src) for n in program.names]
    if program.time_min is None and len(set(program.names)) != program.n_targets:
        seen: set[str] = set()
        dup = next(n for n in program.names if n in seen or seen.add(n))
        raise InputError(f"expected unique target names, got {dup!r} twice", path=src)
    for c in comments:
        if c.splitlines() not in ([], [c]):
            raise InputError(f"expected one-line comments, got {c!r}", path=src)
    header = ["name", "x_mm", "y_mm", "z_mm"]
    orientation_header, orientation = _orientation_columns(program)
    header += orientation_header
    blocks = [program.p_world_tcp * 1000.0, orientation]
    if program.time_min is not None:
        header.append("time_min")
        blocks.append(program.time_min[:, None])
    if program.q_reference is not None:
        n = program.q_reference.shape[1]
        header += [f"q{k}_deg" for k in range(1, n + 1)]
        blocks.append(np.degrees(program.q_reference))
    if program.confdata is not None:
        header += list(CONFDATA_COLUMNS)
        blocks.append(program.confdata.astype(float))
    values = np.concatenate(blocks, axis=1)
    lines = [f"# {c}" for c in comments]
    if program.orientation_convention == "fixed":
        a, b, c = np.degrees(euler_xyz_from_matrix(program.R_world_tcp[0])).tolist()
        lines.append(
            f"# every target has one orientation, euler_xyz_deg = {a!r}, {b!r}, {c!r}: "
            "read back with fixed_orientation"
        )
    with atomic_open(path) as handle:
        handle.write("".join(line + "\n" for line in lines))
        handle.write(",".join(header) + "\n")
        for name, row in zip(name_cells, values.tolist()):
            handle.write(name + "," + ",".join(map(repr, row)) + "\n")


__all__ = [
    "PAPER_POSE_COLUMNS",
    "PAPER_POSITION_COLUMNS",
    "CONFDATA_COLUMNS",
    "iter_targets_csv",
    "read_targets_csv",
    "write_targets_csv",
]
