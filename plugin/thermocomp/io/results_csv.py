"""The compensated program as CSV: one row per (minute, target), written in chunks.

Columns (units and orientation convention in every name; docs/conventions.md):

- ``minute``, ``target``, ``status`` (converged, joint_limit, not_converged,
  unreachable), ``near_singular`` (0/1);
- ``q1_deg``..``qn_deg``: compensated controller angles, empty when the row failed;
- ``reached_*``: TCP pose the deformed robot reaches with them, world frame;
- ``dev_x_mm, dev_y_mm, dev_z_mm, dev_pos_mm``: reached minus target;
  ``dev_rx_deg, dev_ry_deg, dev_rz_deg, dev_angle_deg``: the world-frame
  rotation vector of ``R_reached @ R_target.T`` and its angle;
- ``nominal_q1_deg``..: the uncompensated program's angles;
  ``uncomp_dev_pos_mm, uncomp_dev_angle_deg``: how far the deformed robot
  misses with them;
- ``filtered_*``: the nominal robot's pose at the compensated angles, the
  Cartesian target to give a controller that only knows the nominal model.

Poses use the program's orientation convention: ``euler_xyz_{a,b,c}_deg``
(CoppeliaSim, R = Rx Ry Rz), ``quat_{w,x,y,z}`` (ABB order) or
``rotvec_{x,y,z}_rad`` (UR).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import IO

import numpy as np

from thermocomp._typing import FloatArray, PathLike
from thermocomp.compensation.compensate import CompensationChunk
from thermocomp.geometry.rotations import euler_xyz_from_matrix, quat_wxyz_from_matrix, rotvec_from_matrix
from thermocomp.geometry.vectors import row_norms
from thermocomp.io.atomic import atomic_open
from thermocomp.kinematics.ik import Status
from thermocomp.tolerances import NEAR_SINGULAR_SIGMA


def orientation_columns(prefix: str, convention: str) -> list[str]:
    """Names of the orientation columns of a pose in ``convention``."""
    if convention == "quat_wxyz":
        return [f"{prefix}_quat_{c}" for c in "wxyz"]
    if convention == "rotvec":
        return [f"{prefix}_rotvec_{c}_rad" for c in "xyz"]
    return [f"{prefix}_euler_xyz_{c}_deg" for c in "abc"]


def orientation_values(R: FloatArray, convention: str) -> FloatArray:
    """Orientation of ``R`` ``(r, 3, 3)`` in ``convention``, file units, ``(r, 3 or 4)``."""
    if convention == "quat_wxyz":
        return quat_wxyz_from_matrix(R)
    if convention == "rotvec":
        return rotvec_from_matrix(R)
    return np.degrees(euler_xyz_from_matrix(R))


def header(n_joints: int, convention: str) -> list[str]:
    """Column names of a results file."""
    pose = lambda prefix: [f"{prefix}_x_mm", f"{prefix}_y_mm", f"{prefix}_z_mm", *orientation_columns(prefix, convention)]  # noqa: E731
    return [
        "minute", "target", "status", "near_singular",
        *[f"q{j + 1}_deg" for j in range(n_joints)],
        *pose("reached"),
        "dev_x_mm", "dev_y_mm", "dev_z_mm", "dev_pos_mm", "dev_rx_deg", "dev_ry_deg", "dev_rz_deg", "dev_angle_deg",
        *[f"nominal_q{j + 1}_deg" for j in range(n_joints)],
        "uncomp_dev_pos_mm", "uncomp_dev_angle_deg",
        *pose("filtered"),
    ]


#: Rows formatted at a time, so a chunk's text never sits in memory whole.
FORMAT_BLOCK_ROWS = 4096


def chunk_columns(chunk: CompensationChunk, names: tuple[str, ...], convention: str) -> dict[str, np.ndarray]:
    """The columns of a results file for ``chunk``, as arrays ``(r,)`` in file units (:func:`header` order).

    ``minute`` float, ``target`` the names (object), ``status`` labels
    (object), ``near_singular`` bool, then floats: NaN where the CSV leaves
    a cell empty (see :func:`chunk_bytes`).
    """
    values, blocks = _values(chunk, convention)
    values = values.copy()
    at = 0
    for block, valid in blocks:
        values[~valid, at:at + block.shape[1]] = np.nan
        at += block.shape[1]
    labels = np.array([s.label for s in Status], dtype=object)
    columns = header(chunk.q.shape[1], convention)
    out: dict[str, np.ndarray] = {
        "minute": chunk.minute, "target": np.array(names, dtype=object)[chunk.target],
        "status": labels[chunk.status], "near_singular": chunk.sigma_min < NEAR_SINGULAR_SIGMA,
    }
    out.update(zip(columns[4:], values.T))
    return out


def _values(chunk: CompensationChunk, convention: str) -> tuple[FloatArray, list[tuple[FloatArray, np.ndarray]]]:
    """The numeric cells ``(r, k)`` after ``near_singular``, and the blocks with the rows where each is filled."""
    ok = chunk.status == Status.CONVERGED
    nominal_ok = chunk.nominal_status == Status.CONVERGED
    dev = chunk.deviation
    udev = chunk.uncompensated_deviation
    compensated = np.hstack([
        np.degrees(chunk.q),
        chunk.p_reached * 1e3, orientation_values(chunk.R_reached, convention),
        dev[:, :3] * 1e3, row_norms(dev[:, :3])[:, None] * 1e3,
        np.degrees(dev[:, 3:]), np.degrees(row_norms(dev[:, 3:])[:, None]),
    ])
    nominal = np.hstack([
        np.degrees(chunk.q_nominal),
        row_norms(udev[:, :3])[:, None] * 1e3,
        np.degrees(row_norms(udev[:, 3:])[:, None]),
    ])
    filtered = np.hstack([chunk.p_filtered * 1e3, orientation_values(chunk.R_filtered, convention)])
    blocks = [(compensated, ok), (nominal, nominal_ok), (filtered, ok)]
    return np.hstack([b for b, _ in blocks]), blocks


def chunk_bytes(chunk: CompensationChunk, names: tuple[str, ...], convention: str) -> Iterator[list[np.ndarray]]:
    """The CSV lines of a chunk as UTF-8, in blocks of :data:`FORMAT_BLOCK_ROWS` lines, each block a list of
    pieces (uint8 arrays, :func:`~thermocomp.io.results_text.results_lines`) that follow one another.

    Each block ends in a newline.

    The compensated block (angles, reached pose, deviation, filtered pose) is
    left empty where the row failed, the nominal block (program angles and
    their miss) where the target has no nominal solution. Numbers are
    ``%.12g`` text (:mod:`thermocomp.io.results_text`).
    """
    from thermocomp.io.results_text import results_lines, utf8_table  # compiled: numba loads when rows are written

    values, blocks = _values(chunk, convention)
    empty = np.empty(values.shape, dtype=bool)
    at = 0
    for block, valid in blocks:
        empty[:, at:at + block.shape[1]] = ~valid[:, None]
        at += block.shape[1]
    used, target = np.unique(chunk.target, return_inverse=True)  # a chunk names few of a long program's targets
    used_names = list(map(names.__getitem__, used.tolist()))
    if _needs_quotes("".join(used_names)):  # else no name needs quotes
        used_names = [quote_name(name) for name in used_names]
    names_table = utf8_table(used_names)
    labels = utf8_table([s.label for s in Status])
    near_singular = chunk.sigma_min < NEAR_SINGULAR_SIGMA
    for start in range(0, chunk.n_rows, FORMAT_BLOCK_ROWS):
        rows = slice(start, start + FORMAT_BLOCK_ROWS)
        yield results_lines(chunk.minute[rows], target[rows], names_table, chunk.status[rows], labels,
                            near_singular[rows], values[rows], empty[rows])


def quote_name(name: str) -> str:
    """``name`` as one CSV field: in double quotes (inner ones doubled) when it holds ``,``, ``"`` or a newline.

    Every CSV writer of target names uses it (results, tracker measurement, collision report).
    """
    if _needs_quotes(name):
        return '"' + name.replace('"', '""') + '"'
    return name


def _needs_quotes(text: str) -> bool:
    """``text`` holds ``,``, ``"`` or a newline (three substring tests: a generator costs 10x more per name)."""
    return "," in text or '"' in text or "\n" in text


@contextlib.contextmanager
def results_writer(path: PathLike, n_joints: int, convention: str) -> Iterator[ResultsWriter]:
    """Open ``path`` for results; the file appears only when the block completes.

    Usage::

        with results_writer(out, chain.n_joints, program.orientation_convention) as w:
            for chunk in compensate(...):
                w.write(chunk, program.names)
    """
    with atomic_open(path, newline="") as handle, ResultsWriter(handle, n_joints, convention) as writer:
        yield writer


class ResultsWriter:
    """Results rows onto an open text ``handle`` (e.g. a :class:`~thermocomp.io.job.Job` output); writes the header.

    Use it as a context manager around the writes: each chunk is formatted and
    written to the file from a second thread while the work goes on (the next
    chunk is solved); leaving the block waits for the last write, so every row
    is in the file, or its error raised, before the file is closed. ::

        with ResultsWriter(handle, n_joints, convention) as writer:
            for chunk in compensate(...):
                writer.write(chunk, names)
    """

    def __init__(self, handle: IO[str], n_joints: int, convention: str) -> None:
        self._handle = handle
        self._convention = convention
        self._pool: ThreadPoolExecutor | None = None
        self._pending = None  # the write in flight (a Future), if any
        handle.write(",".join(header(n_joints, convention)) + "\n")

    def __enter__(self) -> ResultsWriter:
        return self

    def __exit__(self, kind, error, trace) -> None:
        try:
            self._wait()
        except OSError:
            if kind is None:
                raise
            # the block already ends in an error: that one is reported, the file is discarded with it
        finally:
            if self._pool is not None:
                self._pool.shutdown(wait=True)
                self._pool = None

    def _wait(self) -> None:
        pending, self._pending = self._pending, None
        if pending is not None:
            pending.result()

    def write(self, chunk: CompensationChunk, names: tuple[str, ...]) -> None:
        """Append the rows of ``chunk``; ``names`` are the program's target names."""
        binary = getattr(self._handle, "buffer", None)
        if binary is not None and self._handle.encoding.lower().replace("-", "") == "utf8":
            if self._pool is None:  # the header (text) first, then bytes straight to the file
                self._handle.flush()
                self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="thermocomp-results")
            self._wait()  # one chunk in flight at a time: memory stays one chunk and one block of its text
            self._pending = self._pool.submit(_write_chunk, binary, chunk, names, self._convention)
        else:
            for block in chunk_bytes(chunk, names, self._convention):
                self._handle.write(b"".join(piece.data for piece in block).decode("utf-8"))


def _write_chunk(binary, chunk: CompensationChunk, names: tuple[str, ...], convention: str) -> None:
    for block in chunk_bytes(chunk, names, convention):
        for piece in block:
            binary.write(piece.data)
