"""A time-indexed program: one file that carries the corrections for every minute and picks them from a clock.

Each changed target becomes a table of its corrections, one entry every ``step`` minutes from minute 0 (the program's
start, with the robot cold), declared at the start of the module (RAPID ``LOCAL CONST robtarget tcR<n>{K}``) or of
the program (URScript ``global tc_p<n>``); its motion reads the entry of the clock's minute (``tcR<n>{tcIdx()}``,
``tc_pose(tc_p<n>)``), the clock and the index function being written once (:func:`_support_edits`). A robot
already warm starts with ``tcOffsetMin`` (``tc_offset_min``) set to the minutes it has worked. docs/programs.md,
"Time: when each motion runs" (time-indexed).
"""

from __future__ import annotations

import re

import numpy as np
import pyarrow.compute as pc

from thermocomp._typing import FloatArray
from thermocomp.errors import InputError
from thermocomp.programs import writer as w
from thermocomp.programs.compensate import PointPoses, Written, apply_form, new_texts, place_texts, share_texts
from thermocomp.programs.model import _KIND_CODE, CIRCULAR, RobotProgram
from thermocomp.robot.chain import Chain


def write_indexed(chain: Chain, prog: RobotProgram, poses: PointPoses, q_grid: FloatArray, minutes: FloatArray,
                  status: np.ndarray, output: str, tcp: tuple[FloatArray, FloatArray]) -> Written:
    """The program with every changed target replaced by a lookup in its table of ``len(minutes)`` corrections.

    The snapshot's texts (:func:`~thermocomp.programs.compensate.new_texts`), one a grid minute, make each point's
    table; the point's argument becomes the lookup, written as the snapshot writes a text.

    Parameters
    ----------
    q_grid
        Corrected joints [rad] per grid minute and point, ``(K, m, n)``.
    minutes
        The grid [min], ``(K,)``, evenly spaced from 0.
    status
        Per point, ``(m,)``: failed points keep their text.
    output
        ``"filtered"`` or ``"joints"``.
    tcp
        The nominal robot's TCP poses at ``q_grid`` (world frame), ``(K, m, 3, 3)`` and ``(K, m, 3)``
        (:func:`~thermocomp.programs.model.tcp_poses` of the compensation's filtered poses).
    """
    if output == "joints" and np.any(prog.columns.run.kind == _KIND_CODE[CIRCULAR]):
        raise InputError("a time-indexed program in joint form cannot hold circular moves; use "
                         "--program-output filtered", path=prog.path)
    K, m, _ = q_grid.shape
    rapid = prog.language == "rapid"
    ok, joint_text, jw, pw, versions = new_texts(chain, prog, poses, q_grid, status, output, tcp, {})
    rounding = np.max([version_rounding for _, version_rounding, _ in versions], axis=0)
    # each version's texts of the points jw, then pw (URScript: the numbers alone, without their brackets)
    entries = [(texts if rapid else pc.replace_substring_regex(texts, r"^p?\[|\]$", "")).to_pylist()
               for texts, _, _ in versions]
    written = np.concatenate([jw, pw])
    tables: dict[tuple[str, ...], tuple[str, str]] = {}  # a table's entries -> its name and declaration
    values: list[str | None] = [None] * m
    for i, texts in sorted(zip(written.tolist(), zip(*entries))):
        joint = bool(joint_text[i])
        if texts not in tables:
            number = len(tables) + 1
            name = f"tc{'J' if joint else 'R'}{number}" if rapid else f"tc_{'q' if joint else 'p'}{number}"
            tables[texts] = name, (w.rapid_table(name, joint, texts, prog.newline) if rapid
                                   else f"global {name} = [{(',' + prog.newline + '    ').join(texts)}]")
        name = tables[texts][0]
        values[i] = f"{name}{{tcIdx()}}" if rapid else f"tc_{'joints' if joint else 'pose'}({name})"
    call_site = prog.extra.get("call_site") or {}  # (its table is named at the call site, where its text is)
    share_texts(prog, values, np.zeros(m, dtype=bool), lambda at: (None, None))
    edits = place_texts(prog, values, [v is not None and i not in call_site for i, v in enumerate(values)],
                        "--time-indexed writes their tables' lookups at the motion, which every call runs (a "
                        "declaration holds one value), and they need different tables there: compensate for one "
                        "minute instead (--at-minute or --timed)", inline=True)
    if tables:
        edits += _support_edits(prog, [decl for _, decl in tables.values()], K,
                                float(minutes[1] - minutes[0]) if K > 1 else 1.0)
    data, _ = apply_form(prog, w.Edits.of(edits), 0, output, ok, poses.is_joint, None)
    return Written(data, len(written), (float(rounding[0]), float(rounding[1])))


def _support_edits(prog: RobotProgram, declarations: list[str], K: int, step: float) -> list[w.Edit]:
    """The clock, its index function (RAPID: before ``ENDMODULE``) and the tables' ``declarations``."""
    step_text = repr(float(step))
    heading = f"thermocomp: time-indexed corrections, {K} sets, one every {step:g} min from minute 0 (docs/programs.md)."
    if prog.language == "rapid":
        data = w.declarations_edit(prog, [
            f"  ! {heading}",
            "  ! Start with the robot cold (program pointer to main); a warm robot: set tcOffsetMin to its minutes.",
            "  LOCAL VAR clock tcClock;",
            "  LOCAL VAR bool tcStarted := FALSE;",
            "  PERS num tcOffsetMin := 0;",
            f"  LOCAL CONST num tcStepMin := {step_text};",
            *declarations,
        ])
        func = prog.newline.join([
            "  LOCAL FUNC num tcIdx()",
            "    VAR num k;",
            "    IF NOT tcStarted THEN",
            "      ClkReset tcClock;",
            "      ClkStart tcClock;",
            "      tcStarted := TRUE;",
            "    ENDIF",
            "    k := Round((ClkRead(tcClock) / 60 + tcOffsetMin) / tcStepMin) + 1;",
            f"    IF k > {K} k := {K};",
            "    IF k < 1 k := 1;",
            "    RETURN k;",
            "  ENDFUNC",
        ]) + prog.newline
        end = list(re.finditer(r"\bENDMODULE\b", prog.text, flags=re.IGNORECASE))[-1]  # (the grammar's last word)
        line_start = prog.text.rfind("\n", 0, end.start()) + 1
        return [data, w.Edit(line_start, line_start, func)]
    return [w.declarations_edit(prog, [
        f"# {heading}",
        "# Start with the robot cold; a warm robot: set tc_offset_min to its minutes.",
        "global tc_elapsed_s = 0.0",
        "global tc_offset_min = 0.0",
        *declarations,
        "thread tc_clock_thread():",
        "  while (True):",
        "    tc_elapsed_s = tc_elapsed_s + get_steptime()",
        "    sync()",
        "  end",
        "end",
        "def tc_k():",
        f"  k = floor((tc_elapsed_s / 60 + tc_offset_min) / {step_text} + 0.5)",
        f"  if k > {K - 1}:",
        f"    k = {K - 1}",
        "  end",
        "  return k",
        "end",
        "def tc_pose(a):",
        "  k = 6 * tc_k()",
        "  return p[a[k], a[k + 1], a[k + 2], a[k + 3], a[k + 4], a[k + 5]]",
        "end",
        "def tc_joints(a):",
        "  k = 6 * tc_k()",
        "  return [a[k], a[k + 1], a[k + 2], a[k + 3], a[k + 4], a[k + 5]]",
        "end",
        "run tc_clock_thread()",
    ])]
