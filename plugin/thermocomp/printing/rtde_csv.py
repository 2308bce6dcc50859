"""What UR's RTDE logger recorded of ``servo excite``: its text in, the commands and speeds out.

The columns (docs/printing.md), named as RTDE names its fields, in any order, separated by commas or by
spaces (the RTDE client's ``record.py`` writes spaces), other columns ignored:

* ``timestamp`` [s];
* ``target_qd_0`` .. ``target_qd_5``: the commanded joint speeds [rad/s];
* ``actual_q_0`` .. ``actual_q_5``: the joint angles [rad];
* ``actual_qd_0`` .. ``actual_qd_5``: the joint speeds [rad/s].

The experiment starts one rest before the first sample with a non-zero command; the rows from there on,
as many as the experiment has, are its recording. The rows must come at the servo rate (the median
timestamp step within 5 % of ``1 / rate_hz``), their timestamps increasing, and through the experiment
evenly (each step within :data:`MAX_STEP_DEVIATION` of ``1 / rate_hz``: no sample lost).
"""

from __future__ import annotations

import re

import numpy as np

from thermocomp._typing import FloatArray
from thermocomp.errors import InputError
from thermocomp.io.csvtext import CELL_BLANKS, LINE_END, parse_floats

#: The separator of a recording written by the RTDE client's ``record.py``: spaces (or tabs). Not every white-space
#: character: a form feed or NBSP beside a number is a damaged file (:data:`.csvtext.CELL_BLANKS`).
_BLANKS = re.compile(r"[ \t]+")
_COMMA = re.compile(",")


#: Most an experiment's timestamp step may differ from ``1 / rate_hz``, as a share of it: the controller's clock
#: stamps every 8 ms cycle (jitter of microseconds); a lost sample is a step of two.
MAX_STEP_DEVIATION = 0.25


def _columns(n: int) -> list[str]:
    return (["timestamp"] + [f"target_qd_{j}" for j in range(n)] + [f"actual_q_{j}" for j in range(n)]
            + [f"actual_qd_{j}" for j in range(n)])


def read_rtde_text(text: str, src: str, n_joints: int, rate_hz: float, samples: int,
                   lead_in: int) -> tuple[FloatArray, FloatArray, FloatArray]:
    """The commands, angles and speeds of the experiment in an RTDE recording.

    Parameters
    ----------
    text, src
        The file's text and name (for messages).
    n_joints
        Joints.
    rate_hz
        The servo rate [Hz].
    samples
        Samples of the experiment.
    lead_in
        Samples of rest before the first command.

    Returns
    -------
    u, q, qd
        ``(samples, n_joints)`` each [rad/s], [rad], [rad/s].
    """
    lines = [(i + 1, line) for i, line in enumerate(LINE_END.split(text))  # (the lines an editor shows)
             if line.strip(CELL_BLANKS) and not line.startswith("#")]
    if not lines:
        raise InputError("expected an RTDE recording with a header line, got no lines", path=src)
    header_line, header = lines[0]
    sep = _COMMA if "," in header else _BLANKS
    names = [c.strip(CELL_BLANKS) for c in sep.split(header.strip(CELL_BLANKS))]
    missing = [c for c in _columns(n_joints) if c not in names]
    if missing:
        raise InputError(f"expected RTDE columns {', '.join(missing)} (docs/printing.md), got {', '.join(names)}",
                         path=src, row=header_line)
    twice = next((c for c in _columns(n_joints) if names.count(c) > 1), None)
    if twice is not None:  # (the first was read, the other ignored)
        raise InputError(f"expected each RTDE column once, got {twice} twice", path=src, row=header_line, column=twice)
    index = [names.index(c) for c in _columns(n_joints)]
    columns = [names[i] for i in index]
    rows = np.empty((len(lines) - 1, len(index)))
    for r, (number, line) in enumerate(lines[1:]):  # (parse_floats: a 100 MiB hour of RTDE took a minute cell by cell)
        cells = sep.split(line.strip(CELL_BLANKS))
        if len(cells) != len(names):
            raise InputError(f"expected {len(names)} cells, got {len(cells)}", path=src, row=number)
        rows[r] = parse_floats(cells, index, columns, src, number)
    if rows.shape[0] < 2:
        raise InputError("expected at least two samples", path=src)
    steps = np.diff(rows[:, 0])
    back = np.flatnonzero(steps <= 0)
    if back.size:  # (rows out of order, or two recordings one after the other)
        k = int(back[0]) + 1
        raise InputError(f"expected increasing timestamps, got {float(rows[k, 0])!r} after {float(rows[k - 1, 0])!r}", path=src,
                         row=lines[k + 1][0], column="timestamp")
    step = float(np.median(steps))
    if not abs(step * rate_hz - 1.0) <= 0.05:
        raise InputError(f"expected samples every {1e3 / rate_hz:.4g} ms (the servo rate {rate_hz:g} Hz), got a median "
                         f"step of {step * 1e3:.4g} ms: record at the servo rate", path=src)
    n = n_joints
    u = rows[:, 1:1 + n]
    moving = np.flatnonzero(np.any(u != 0.0, axis=1))
    if moving.size == 0:
        raise InputError("expected the commands of servo excite, got no non-zero target_qd", path=src)
    start = int(moving[0]) - lead_in
    if start < 0 or start + samples > rows.shape[0]:
        raise InputError(f"expected the whole experiment ({samples} samples from {lead_in} before the first command), "
                         f"got {rows.shape[0]} samples with the first command at row {moving[0] + 1}", path=src)
    # the identification takes the experiment's samples as evenly spaced: a sample the logger lost shifts every
    # later one by a sample (the delay, the models), in silence
    uneven = np.flatnonzero(np.abs(steps[start:start + samples - 1] * rate_hz - 1.0) > MAX_STEP_DEVIATION)
    if uneven.size:
        k = start + int(uneven[0]) + 1
        raise InputError(f"expected a sample every {1e3 / rate_hz:.4g} ms through the experiment, got "
                         f"{steps[k - 1] * 1e3:.4g} ms after the previous sample (samples lost or repeated: record "
                         "the experiment again)", path=src, row=lines[k + 1][0], column="timestamp")
    part = rows[start:start + samples]
    return part[:, 1:1 + n], part[:, 1 + n:1 + 2 * n], part[:, 1 + 2 * n:1 + 3 * n]
