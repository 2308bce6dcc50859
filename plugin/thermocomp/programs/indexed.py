"""A time-indexed program: one file that carries the corrections for every minute and picks them from a clock.

A program that runs for hours meets a robot that warms up; one upload can
serve the whole warm-up if every motion target becomes a table of its
corrections, one entry every ``step`` minutes from minute 0 to the end of the
grid, and the program picks the entry of the minute it is at:

- **RAPID**: for each changed target a ``LOCAL CONST robtarget tcR<n>{K}``
  (or ``jointtarget tcJ<n>{K}``) array, inserted after the ``MODULE`` line;
  the motion's argument becomes ``tcR<n>{tcIdx()}``. ``tcIdx()`` (inserted
  before ``ENDMODULE``) starts the clock ``tcClock`` at the first motion
  (``ClkStart``), and returns ``Round((ClkRead(tcClock) / 60 +
  tcOffsetMin) / step) + 1``, held at ``K`` after the last entry. Moving the
  program pointer to main resets the clock (``VAR``); a robot that is
  already warm starts with ``tcOffsetMin`` (a ``PERS``) set to the minutes
  it has worked.
- **URScript**: for each changed target a global list ``tc_p<n>`` of ``6 K``
  numbers (the poses, or joint positions, one after the other), inserted at
  the start of the program; the argument becomes ``tc_pose(tc_p<n>)`` (or
  ``tc_joints(tc_q<n>)``). A thread ``tc_clock_thread`` adds
  ``get_steptime()`` to ``tc_elapsed_s`` every controller step (PolyScope's
  own timer does the same); ``tc_k()`` gives the index as above, with
  ``tc_offset_min``.

Minute 0 of the grid is the program's start: start it with the robot cold.
Size (docs/programs.md, measured on the examples): about 139 bytes an entry
in RAPID, 74 in URScript; 201 minutes of 50 targets is about 1.4 MB of RAPID.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from thermocomp._typing import FloatArray
from thermocomp.errors import InputError
from thermocomp.geometry.rotations import (
    invert_transform,
    matrix_from_quat_wxyz,
    matrix_from_rotvec,
    rotation_angle,
    transform,
)
from thermocomp.kinematics.confdata import confdata_from_q
from thermocomp.kinematics.fk import fk
from thermocomp.kinematics.ik import Status
from thermocomp.kinematics.model import nominal_model
from thermocomp.programs import calls
from thermocomp.programs import writer as w
from thermocomp.programs.model import ABSOLUTE_JOINT, CIRCULAR, RobotProgram, target_of_world, tcp_poses
from thermocomp.robot.chain import Chain


@dataclass(frozen=True)
class IndexedWritten:
    """The time-indexed program as the file holds it (latin-1) and what it holds."""

    data: bytes
    n_changed: int
    n_tables: int
    entries: int
    rounding: tuple[float, float]

    @property
    def text(self) -> str:
        return self.data.decode("latin-1")


def write_indexed(chain: Chain, prog: RobotProgram, poses, q_grid: FloatArray, minutes: FloatArray,
                  status: np.ndarray, output: str,
                  tcp: tuple[FloatArray, FloatArray] | None = None) -> IndexedWritten:
    """The program with every changed target replaced by a lookup in its table of ``len(minutes)`` corrections.

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
        The nominal robot's TCP poses at ``q_grid`` (world frame), ``(K, m, 3, 3)`` and ``(K, m, 3)``, where the
        caller has them (:func:`~thermocomp.programs.model.tcp_poses` of the compensation's filtered poses,
        as the checks and the snapshot writer read them); else computed here.
    """
    K, m, n = q_grid.shape
    step = float(minutes[1] - minutes[0]) if K > 1 else 1.0
    nominal = nominal_model(chain)
    points = prog.points
    motions_of_point = [mo for mo in prog.motions for _ in mo.points]
    if tcp is None:
        R, p = fk(nominal, q_grid.reshape(K * m, n))
        tcp = tcp_poses(R.reshape(K, m, 3, 3), p.reshape(K, m, 3), poses.T_flange_tcp)
    T_filtered = invert_transform(chain.T_world_base) @ transform(*tcp)  # (K, m, 4, 4), the robot base's frame
    conf = confdata_from_q(nominal, q_grid.reshape(K * m, n)).reshape(K, m, 4) \
        if prog.language == "rapid" and n == 6 else None
    rapid = prog.language == "rapid"
    tables: dict[str, tuple[str, str]] = {}  # table body text -> (table name, declaration)
    values: list[str | None] = []
    at_argument: list[bool] = []
    extra_edits: list[w.Edit] = []
    error_position, error_angle = [0.0], [0.0]
    through = prog.extra.get("through") or {}  # (a call site's target read through Offs: calls.text_poses)
    call_site = prog.extra.get("call_site") or {}  # (its table is named at the call site, where its text is)
    for i, pt in enumerate(points):
        motion = motions_of_point[i]
        joint_text = output == "joints" or pt.is_joint
        if status[i] != Status.CONVERGED:
            values.append(None)
            at_argument.append(False)
            continue
        if joint_text:
            changed = not pt.is_joint or any(w.point_changed(pt, None, q_grid[k, i], None) for k in range(K))
            entries = [(_joint_entry(prog, q_grid[k, i], pt.extax)) for k in range(K)] if changed else None
        else:
            changed = any(w.point_changed(pt, T_filtered[k, i], None, None) for k in range(K))
            entries = None
            if changed:
                T_frame = target_of_world(pt.T_world_frame, T_filtered[:, i], pt.held)
                A, B = through.get(i, (None, None))
                T_text = T_frame if A is None else invert_transform(A) @ T_frame @ invert_transform(B)
                entries = [_pose_entry(prog, T_text[k], None if conf is None else conf[k, i], pt.extax, pt.quat)
                           for k in range(K)]
                for k in (0, K - 1):
                    T_w = _read_pose(prog, entries[k]) if A is None else A @ _read_pose(prog, entries[k]) @ B
                    error_position.append(float(np.linalg.norm(T_w[:3, 3] - T_frame[k][:3, 3])))
                    error_angle.append(float(rotation_angle(T_w[:3, :3] @ T_frame[k][:3, :3].T)))
        if entries is None:
            values.append(None)
            at_argument.append(False)
            continue
        kind = "J" if joint_text else "R"
        body = _table_body(prog, entries)
        if body not in tables:
            name = _table_name(prog, kind, len(tables) + 1)
            tables[body] = (name, _declaration(prog, kind, name, K, body))
        name = tables[body][0]
        values.append(f"{name}{{tcIdx()}}" if rapid else
                      (f"tc_joints({name})" if joint_text else f"tc_pose({name})"))
        at_argument.append(i not in call_site)
        if output == "joints" and not pt.is_joint and motion.kind != ABSOLUTE_JOINT:
            new = "MoveAbsJ" if rapid else "movej"
            if motion.instruction != new and not (rapid and motion.kind == CIRCULAR):
                extra_edits.append(w.Edit(motion.name.start, motion.name.end, new))
    if output == "joints" and any(mo.kind == CIRCULAR for mo in prog.motions):
        raise InputError("a time-indexed program in joint form cannot hold circular moves; use "
                         "--program-output filtered", path=prog.path)
    calls.check_call_sites(prog, values, np.zeros(m, dtype=bool), lambda at: (None, None))
    placed = [replace(pt, argument=pt.whole_argument, text=pt.whole_argument)
              if at_argument[i] and pt.whole_argument is not None else replace(pt, text=pt.argument)
              if at_argument[i] else pt for i, pt in enumerate(points)]
    edits = w.place_values(placed, values, prog.path, at_argument=at_argument) + extra_edits
    if tables:
        edits += _support_edits(prog, [decl for _, decl in tables.values()], K, step)
    data = w.apply_edits(prog.text, edits, prog.path, w.COMMENT_STARTS[prog.language])
    n_changed = sum(v is not None for v in values)
    return IndexedWritten(data, n_changed, len(tables), K, (max(error_position), max(error_angle)))


def _joint_entry(prog: RobotProgram, q: FloatArray, extax: str) -> str:
    return w.rapid_jointtarget(q, extax) if prog.language == "rapid" else ", ".join(w.format_single(v) for v in q)


def _pose_entry(prog: RobotProgram, T: FloatArray, conf, extax: str, written: FloatArray | None) -> str:
    if prog.language == "rapid":
        return w.rapid_robtarget(T, tuple(int(c) for c in conf), extax, written)
    return w.ur_pose(T)[2:-1]  # the six numbers


def _read_pose(prog: RobotProgram, entry: str) -> FloatArray:
    """The pose [m] ``(4, 4)`` a table's entry (:func:`_pose_entry`) reads back as."""
    values = [w.read_single(x) for x in w.NUMBER.findall(entry)]
    if prog.language == "rapid":
        return transform(matrix_from_quat_wxyz(values[3:7]), np.asarray(values[:3]) * 1e-3)
    return transform(matrix_from_rotvec(values[3:6]), np.asarray(values[:3]))


def _table_name(prog: RobotProgram, kind: str, number: int) -> str:
    return f"tc{kind}{number}" if prog.language == "rapid" else f"tc_{'q' if kind == 'J' else 'p'}{number}"


def _table_body(prog: RobotProgram, entries: list[str]) -> str:
    return "[" + ("," + prog.newline + ("      " if prog.language == "rapid" else "    ")).join(entries) + "]"


def _declaration(prog: RobotProgram, kind: str, name: str, K: int, body: str) -> str:
    if prog.language == "rapid":
        dtype = "jointtarget" if kind == "J" else "robtarget"
        return f"  LOCAL CONST {dtype} {name}{{{K}}}:={prog.newline}      {body};"
    return f"global {name} = {body}"


def _support_edits(prog: RobotProgram, declarations: list[str], K: int, step: float) -> list[w.Edit]:
    nl = prog.newline
    text = prog.text
    step_text = repr(float(step))
    if prog.language == "rapid":
        header_end = w.module_body_start(prog)
        data = nl.join([
            f"  ! thermocomp: time-indexed corrections, {K} sets, one every {step:g} min from minute 0 (docs/programs.md).",
            "  ! Start with the robot cold (program pointer to main); a warm robot: set tcOffsetMin to its minutes.",
            "  LOCAL VAR clock tcClock;",
            "  LOCAL VAR bool tcStarted := FALSE;",
            "  PERS num tcOffsetMin := 0;",
            f"  LOCAL CONST num tcStepMin := {step_text};",
            *declarations,
        ]) + nl
        func = nl.join([
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
        ]) + nl
        end = _last_endmodule(text)
        line_start = text.rfind("\n", 0, end) + 1
        return [w.Edit(header_end, header_end, data), w.Edit(line_start, line_start, func)]
    # URScript: at the start of the entry function's body, or of the file
    insert_at, indent = w.ur_body_start(prog)
    lines = [
        f"# thermocomp: time-indexed corrections, {K} sets, one every {step:g} min from minute 0 (docs/programs.md).",
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
    ]
    block = "".join(indent + line.replace("\n", nl + indent) + nl for line in lines)
    return [w.Edit(insert_at, insert_at, block)]


def _last_endmodule(text: str) -> int:
    import re

    found = list(re.finditer(r"\bENDMODULE\b", text, flags=re.IGNORECASE))
    if not found:
        raise InputError("no ENDMODULE found")
    return found[-1].start()
