"""Deformation tables as CSV (seed 002, Tables 8-11): reader and writer.

The paper's form is a header ``Dx,Dy,Dz,Dox,Doy,Doz`` and one row per joint,
the first row being joint 1::

    Dx,Dy,Dz,Dox,Doy,Doz
    -0.0200698,0.000154,-0.05297,0,-0.011,-0.0137
    ...

``Dx, Dy, Dz`` are translation deviations [mm] and ``Dox, Doy, Doz`` angular
deviations [deg], in the base-oriented frame of the row at the zero pose
(docs/conventions.md, "deformation table row"). An optional column ``row``
names each row: ``base``, ``1`` .. ``n``, ``tool``. The base and tool rows are
optional (zero when absent) and may appear once each, anywhere; joint rows
come in order 1..n without gaps. Lines starting with ``#`` are comments.

Inside thermocomp the table is SI (:class:`DeformationTable`: m, rad); the
conversion happens here and nowhere else.
"""

from __future__ import annotations

import numpy as np

from thermocomp._typing import PathLike
from thermocomp.deformation.table import DeformationTable
from thermocomp.errors import InputError
from thermocomp.io.atomic import atomic_write_text
from thermocomp.io.csvtext import header_and_rows, header_names, parse_floats

#: The value columns, in file units: ``Dx, Dy, Dz`` [mm], ``Dox, Doy, Doz`` [deg].
COLUMNS = ("Dx", "Dy", "Dz", "Dox", "Doy", "Doz")
#: The optional label column: ``base``, ``1`` .. ``n``, ``tool``.
ROW_COLUMN = "row"


def _header_index(header: list[str], src: str, line: int) -> dict[str, int]:
    """Column name -> index; duplicate, unknown and missing columns are located errors."""
    names = header_names(header)
    expected = f"expected columns {','.join(COLUMNS)} (optionally a first column {ROW_COLUMN!r})"
    index: dict[str, int] = {}
    for i, name in enumerate(names):
        if name in index:
            raise InputError(
                f"duplicate column {name!r} (columns {index[name] + 1} and {i + 1}); {expected}",
                path=src, row=line, column=name,
            )
        index[name] = i
    for name in names:
        if name not in COLUMNS and name != ROW_COLUMN:
            raise InputError(
                f"unknown column {name!r}; {expected}, got {','.join(names)}",
                path=src, row=line, column=name or str(names.index(name) + 1),
            )
    for name in COLUMNS:
        if name not in index:
            raise InputError(
                f"missing column {name!r}; {expected}, got {','.join(names)}", path=src, row=line, column=name
            )
    return index


def read_deformation_csv(path: PathLike, n_joints: int | None = None) -> DeformationTable:
    """Read a deformation table in the paper's form (mm, degrees) into SI units.

    Parameters
    ----------
    path
        CSV file in the form of this module's docstring.
    n_joints
        The robot's number of joints; when given, the file must have exactly
        that many joint rows.

    Returns
    -------
    DeformationTable
        ``joints`` ``(n, 6)``, ``base`` and ``tool`` ``(6,)``: translations [m]
        then angular deviations [rad]; ``source`` is ``str(path)``.

    Raises
    ------
    InputError
        Naming file, line and column of the first problem: missing or empty
        file, header only, missing, unknown or duplicate columns, a wrong
        number of cells, a cell that is not a finite number, a bad row label,
        or a number of joint rows other than ``n_joints``.
    """
    src = str(path)
    header_line, header, rows = header_and_rows(
        path, f"expected a header {','.join(COLUMNS)} and one row per joint, got an empty file")
    index = _header_index(header, src, header_line)
    names = header_names(header)
    value_index = [index[c] for c in COLUMNS]
    label_index = index.get(ROW_COLUMN)
    label_column = None if label_index is None else ROW_COLUMN

    joints: list[list[float]] = []
    special: dict[str, tuple[int, list[float]]] = {}
    last_line = header_line
    for line, cells in rows:
        last_line = line
        if len(cells) != len(names):
            column = names[len(cells)] if len(cells) < len(names) else str(len(names) + 1)
            raise InputError(
                f"expected {len(names)} cells ({','.join(names)}), got {len(cells)}", path=src, row=line, column=column
            )
        label = str(len(joints) + 1) if label_index is None else cells[label_index].strip()
        if label in ("base", "tool"):
            if label in special:
                raise InputError(
                    f"duplicate {label!r} row (first on line {special[label][0]})",
                    path=src, row=line, column=ROW_COLUMN,
                )
            special[label] = (line, parse_floats(cells, value_index, COLUMNS, src, line))
            continue
        k = len(joints) + 1
        if label != str(k):
            if label.isdigit():
                what = f"expected joint row {k} (joint rows in order 1..n without gaps), got {label!r}"
            else:
                what = f"expected 'base', 'tool' or joint row {k}, got {label!r}"
            raise InputError(what, path=src, row=line, column=ROW_COLUMN)
        if n_joints is not None and k > n_joints:
            raise InputError(
                f"expected {n_joints} joint rows for a {n_joints}-joint robot, got more (joint row {k} here)",
                path=src, row=line, column=label_column,
            )
        joints.append(parse_floats(cells, value_index, COLUMNS, src, line))

    if last_line == header_line:
        raise InputError("expected one row per joint after the header, got none", path=src, row=header_line)
    if not joints:
        raise InputError(
            "expected at least one joint row, got only base/tool rows", path=src, row=last_line, column=label_column
        )
    if n_joints is not None and len(joints) != n_joints:
        raise InputError(
            f"expected {n_joints} joint rows for a {n_joints}-joint robot, got {len(joints)}",
            path=src, row=last_line, column=label_column,
        )
    base = special["base"][1] if "base" in special else None
    tool = special["tool"][1] if "tool" in special else None
    return DeformationTable.from_mm_deg(joints, base, tool, source=src)


def _fmt(x: float) -> str:
    return repr(float(x))


def deformation_csv_text(table: DeformationTable, comments: tuple[str, ...] = ()) -> str:
    """``table`` as CSV text in file units (mm, deg) with a ``row`` column.

    Rows in chain order: ``base``, joints ``1`` .. ``n``, ``tool`` (base and
    tool always written, zeros included). Floats are ``repr`` text, so the
    file reads back to the table within one rounding of the unit conversion.
    ``comments`` become leading ``#`` lines (provenance).
    """
    lines = [f"# {c}" for c in comments] + [",".join((ROW_COLUMN, *COLUMNS))]
    labels = ["base", *(str(k) for k in range(1, table.n_joints + 1)), "tool"]
    rows = table.rows()
    file_units = np.concatenate([rows[:, :3] * 1000.0, np.degrees(rows[:, 3:])], axis=1)
    for label, values in zip(labels, file_units):
        lines.append(",".join([label, *map(_fmt, values)]))
    return "\n".join(lines) + "\n"


def write_deformation_csv(table: DeformationTable, path: PathLike, comments: tuple[str, ...] = ()) -> None:
    """Write ``table`` to ``path`` in file units (mm, deg), atomically (temporary file, then rename).

    See :func:`deformation_csv_text` for the form.
    """
    for c in comments:
        if c.splitlines() not in ([], [c]):
            raise InputError(f"expected one-line comments, got {c!r}", path=str(path))
    atomic_write_text(path, deformation_csv_text(table, comments))


__all__ = ["COLUMNS", "ROW_COLUMN", "deformation_csv_text", "read_deformation_csv", "write_deformation_csv"]
