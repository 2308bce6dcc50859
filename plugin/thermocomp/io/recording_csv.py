"""Joint recordings (positions and torques over time) as CSV: reader and writer.

Form (one row per sample, uniformly spaced)::

    time_s,q1_rad,...,qn_rad,tau1_Nm,...,taun_Nm[,qd1_rad_s,...,qdn_rad_s][,qdd1_rad_s2,...,qddn_rad_s2]

A recording of a robot whose drives report motor currents instead of torques
has ``i1_A,...,in_A`` in place of the torque columns (read with
``currents=True``; the drive gains turn them into torques, docs/dynamics.md).

Joint angles are controller angles [rad], torques the joint (motor-side
divided by the transmission ratio, seed 000 Eq. 8) torques [N m] conjugate
to them. Speeds and accelerations are optional: without them the
identification filters and differentiates the positions (docs/dynamics.md).
Lines starting with ``#`` are comments. SI in the file: a recording is
machine data, not a table a person types.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from thermocomp._typing import FloatArray, PathLike
from thermocomp.errors import InputError
from thermocomp.io.atomic import atomic_open
from thermocomp.io.csvtext import header_and_rows, header_names, iter_rows, parse_floats

_GROUPS = (("q", "_rad"), ("tau", "_Nm"), ("qd", "_rad_s"), ("qdd", "_rad_s2"), ("i", "_A"))


@dataclass(frozen=True, eq=False)
class Recording:
    """Samples of a robot's joints.

    Attributes
    ----------
    time
        [s], ``(N,)``, increasing.
    q
        Controller angles [rad], ``(N, n)``.
    tau
        Joint torques [N m], ``(N, n)``.
    qd, qdd
        Speeds [rad/s] and accelerations [rad/s^2] ``(N, n)``, or ``None``.
    source
        The file, for messages.
    current
        Motor currents [A] ``(N, n)`` (the drives' reading when they give no torque), or ``None``.
    """

    time: FloatArray
    q: FloatArray
    tau: FloatArray
    qd: FloatArray | None = None
    qdd: FloatArray | None = None
    source: str = ""
    current: FloatArray | None = None

    def __post_init__(self) -> None:
        t = np.asarray(self.time, dtype=float)
        q = np.asarray(self.q, dtype=float)
        if t.ndim != 1 or q.ndim != 2 or q.shape[0] != t.size:
            raise InputError(f"recording: expected time (N,) and q (N, n), got {t.shape} and {q.shape}", path=self.source or None)
        for name in ("tau", "qd", "qdd", "current"):
            value = getattr(self, name)
            if value is None:
                continue
            a = np.asarray(value, dtype=float)
            if a.shape != q.shape:
                raise InputError(f"recording: expected {name} of shape {q.shape}, got {a.shape}", path=self.source or None)
            object.__setattr__(self, name, a)
        object.__setattr__(self, "time", t)
        object.__setattr__(self, "q", q)

    @property
    def n_joints(self) -> int:
        return int(self.q.shape[1])

    @property
    def n_samples(self) -> int:
        return int(self.time.size)

    @property
    def duration(self) -> float:
        return float(self.time[-1] - self.time[0]) if self.time.size else 0.0


#: The most samples a recording may hold. Identification builds a regressor of samples x joints rows and about
#: 13 columns per joint (7 GB for a million 6-joint samples); a 10-million-row recording ran out of memory.
MAX_SAMPLES = 1_000_000


def recording_columns(n: int, speeds: bool = False, accelerations: bool = False) -> list[str]:
    """Column names of a recording of ``n`` joints."""
    cols = ["time_s"] + [f"q{i}_rad" for i in range(1, n + 1)] + [f"tau{i}_Nm" for i in range(1, n + 1)]
    if speeds:
        cols += [f"qd{i}_rad_s" for i in range(1, n + 1)]
    if accelerations:
        cols += [f"qdd{i}_rad_s2" for i in range(1, n + 1)]
    return cols


def _layout(header: list[str], src: str, line: int, torques: bool = True,
            currents: bool = False) -> tuple[int, dict[str, list[int]]]:
    """The number of joints and the column indices of each group, from the header."""
    names = header_names(header)
    seen: dict[str, int] = {}
    for i, name in enumerate(names):
        if name in seen:
            raise InputError(f"duplicate column {name!r}", path=src, row=line, column=name or str(i + 1))
        seen[name] = i
    pattern = re.compile(r"^(q|tau|qd|qdd|i)(\d+)_(rad|Nm|rad_s|rad_s2|A)$")
    found: dict[str, dict[int, int]] = {g: {} for g, _ in _GROUPS}
    units = dict(_GROUPS)
    for i, name in enumerate(names):
        if name == "time_s":
            continue
        m = pattern.match(name)
        if not m or "_" + m.group(3) != units[m.group(1)] or int(m.group(2)) < 1:
            raise InputError(
                f"unknown column {name!r}; expected time_s, q<i>_rad, "
                + ("i<i>_A" if currents else "tau<i>_Nm") + " and optionally qd<i>_rad_s, qdd<i>_rad_s2",
                path=src, row=line, column=name or str(i + 1),
            )
        found[m.group(1)][int(m.group(2))] = i
    if "time_s" not in seen:
        raise InputError("missing column time_s", path=src, row=line, column="time_s")
    n = len(found["q"])
    if n == 0:
        raise InputError("missing columns q1_rad ..; expected one per joint", path=src, row=line, column="q1_rad")
    if found["i"] and not found["tau"] and torques and not currents:
        name = f"i{min(found['i'])}_A"
        raise InputError(f"a recording of motor currents ({name} ..) needs the drive gains that turn them into "
                         "torques (identify --gains, from identify --drive-gains; docs/dynamics.md)", path=src,
                         row=line, column=name)
    out: dict[str, list[int]] = {}
    for group, unit in _GROUPS:
        cols = found[group]
        if (group in ("qd", "qdd") or (group == "tau" and (currents or not torques))
                or (group == "i" and not currents)) and not cols:
            continue
        for i in range(1, n + 1):
            if i not in cols:
                raise InputError(f"missing column {group}{i}{unit} (the file has {n} joint angle columns)",
                                 path=src, row=line, column=f"{group}{i}{unit}")
        extra = sorted(set(cols) - set(range(1, n + 1)))
        if extra:
            name = f"{group}{extra[0]}{unit}"
            raise InputError(f"unexpected column {name} for a recording of {n} joints", path=src, row=line, column=name)
        out[group] = [cols[i] for i in range(1, n + 1)]
    out["time"] = [seen["time_s"]]
    return n, out


def read_recording_csv(path: PathLike, n_joints: int | None = None, *, torques: bool = True,
                       currents: bool = False) -> Recording:
    """Read a recording; every bad cell is an error naming the file, line and column.

    Parameters
    ----------
    n_joints
        When given, the file must hold exactly that many joints.
    torques
        ``False`` reads a trajectory (a motion to execute, e.g. from
        ``thermocomp excite``): torque columns optional, ``tau`` zero when absent.
    currents
        Read motor currents ``i<k>_A`` (required) into ``current``; torque columns optional (``tau`` zero when
        absent).
    """
    src = str(path)
    line, header, rows = header_and_rows(path, "expected a header line time_s,q1_rad,..,tau1_Nm,.., got an empty file")
    n, layout = _layout(header, src, line, torques, currents)
    if n_joints is not None and n != n_joints:
        raise InputError(f"expected a recording of {n_joints} joints, got {n} (q1_rad .. q{n}_rad)", path=src, row=line)
    names = header_names(header)
    order = [i for g in ("time", "q", "tau", "qd", "qdd", "i") for i in layout.get(g, [])]
    cols = [names[i] for i in order]
    data = []
    for number, cells in rows:
        if len(data) == MAX_SAMPLES:
            raise InputError(f"expected at most {MAX_SAMPLES:,} samples (1 kHz for about 17 minutes), got more: "
                             "downsample the recording or split it", path=src, row=number)
        if len(cells) != len(names):
            raise InputError(f"expected {len(names)} cells, got {len(cells)}", path=src, row=number)
        data.append(parse_floats(cells, order, cols, src, number))
    if len(data) < 3:
        raise InputError(f"expected at least 3 samples, got {len(data)}", path=src)
    a = np.array(data)
    t = a[:, 0]
    dt = np.diff(t)
    if np.any(dt <= 0):
        bad = int(np.argmax(dt <= 0))
        raise InputError(f"time_s must increase, got {float(t[bad + 1])!r} after {float(t[bad])!r}", path=src, column="time_s",
                         row=_line_of(path, bad + 1))
    k = 1
    parts = {}
    for group in ("q", "tau", "qd", "qdd", "i"):
        if group in layout:
            parts[group] = a[:, k:k + n]
            k += n
    tau = parts["tau"] if "tau" in parts else np.zeros_like(parts["q"])
    return Recording(time=t, q=parts["q"], tau=tau, qd=parts.get("qd"), qdd=parts.get("qdd"), source=src,
                     current=parts.get("i"))


def _line_of(path: PathLike, sample: int) -> int:
    """The file line of data row ``sample`` (0-based), counting comments and blank lines."""
    for k, (number, _) in enumerate(iter_rows(path)):
        if k == sample + 1:
            return number
    return -1


def write_recording_csv(path: PathLike, recording: Recording, comments: tuple[str, ...] = (), *,
                        torques: bool = True) -> None:
    """Write ``recording`` atomically (``repr`` precision: the doubles read back exactly).

    ``torques=False`` leaves the torque columns out (a trajectory).
    """
    n = recording.n_joints
    cols = recording_columns(n, recording.qd is not None, recording.qdd is not None)
    if not torques:
        cols = [c for c in cols if not c.startswith("tau")]
    blocks = [recording.time[:, None], recording.q] + ([recording.tau] if torques else [])
    blocks += [b for b in (recording.qd, recording.qdd) if b is not None]
    if recording.current is not None:
        cols += [f"i{k}_A" for k in range(1, n + 1)]
        blocks.append(recording.current)
    a = np.hstack(blocks)
    with atomic_open(path) as fh:
        for c in comments:
            fh.write(f"# {c}\n")
        fh.write(",".join(cols) + "\n")
        for row in a:
            fh.write(",".join(repr(float(v)) for v in row) + "\n")


__all__ = ["MAX_SAMPLES", "Recording", "read_recording_csv", "recording_columns", "write_recording_csv"]
