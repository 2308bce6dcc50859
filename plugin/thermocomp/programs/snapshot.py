"""Write a compensated program for one minute: every point's text replaced by its compensated value.

:func:`write_snapshot` gives the program's new bytes (:class:`Written`), the target texts changed and the
rounding the 32-bit texts leave; :func:`confdata_notes` says where a written robtarget's confdata differs
from the program's. The time-indexed form is :mod:`~thermocomp.programs.indexed`. docs/programs.md.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from thermocomp._typing import FloatArray
from thermocomp.geometry.rotations import (
    invert_transform,
    matrix_from_rotvec,
    quat_wxyz_from_matrix,
    rotvec_from_matrix,
    transform,
)
from thermocomp.geometry.vectors import row_max_abs, row_norms
from thermocomp.kinematics.confdata import confdata_from_q
from thermocomp.kinematics.fk import fk
from thermocomp.kinematics.ik import Status, pose_errors, turns
from thermocomp.kinematics.model import nominal_model
from thermocomp.programs import writer as w
from thermocomp.programs.model import (
    _KIND_CODE,
    ABSOLUTE_JOINT,
    CIRCULAR,
    Motion,
    RobotProgram,
    tcp_poses,
)
from thermocomp.programs.points import PointPoses, confdata_free
from thermocomp.robot.chain import Chain


def confdata_notes(prog: RobotProgram, points: np.ndarray, written: np.ndarray) -> list[str]:
    """A line for each written robtarget whose confdata differs from the program's: where, and why (written by
    arrow: a toolpath program has thousands)."""
    run = prog.columns.run
    line, column = (pc.cast(pa.array(run.argument[points, k]), pa.string()) for k in (2, 3))
    why = pc.if_else(pa.array(confdata_free(prog)[points]),
                     "its motion runs under ConfL \\Off or ConfJ \\Off, where the controller ignores confdata: "
                     "written from the solution nearest the motion before",
                     "the corrected joints lie in another quadrant (cf1, cf4, cf6) or wrist configuration (cfx) than "
                     "the program's")
    return pc.binary_join_element_wise(f"{prog.path}:", line, ":", column, ": confdata written [",
                                       w.confdata_texts(written), "], read [",
                                       w.confdata_texts(run.confdata[points]), "]: ", why, "").to_pylist()


def rounding_bound(reach: float) -> float:
    """Largest TCP position error [m] of writing x, y, z in mm as 32-bit floats at ``reach`` [m]: half a unit
    in the last place per coordinate, ``sqrt(3) / 2 * ulp``."""
    return float(np.sqrt(3.0) / 2.0 * np.spacing(np.float32(reach * 1e3)) * 1e-3)


@dataclass(frozen=True)
class Written:
    """A written program (its latin-1 bytes as the file will hold them), how many target texts changed, and the
    rounding the text leaves."""

    data: bytes
    n_changed: int
    rounding: tuple[float, float]  # largest TCP position [m] and orientation [rad] error of the written numbers
    #: The points (indices) whose written robtarget carries other confdata than the program's, and that confdata.
    confdata_changed: tuple[np.ndarray, np.ndarray] = (np.zeros(0, dtype=np.int64), np.zeros((0, 4), dtype=np.int64))

    @property
    def text(self) -> str:
        return self.data.decode("latin-1")


def write_snapshot(chain: Chain, prog: RobotProgram, poses: PointPoses, q: FloatArray, status: np.ndarray,
                   output: str, tcp: tuple[FloatArray, FloatArray] | None = None) -> Written:
    """The program with each point's text replaced by its compensated value (one minute).

    ``tcp``: the nominal robot's TCP poses at ``q`` (world frame: :func:`tcp_poses` of ``fk(nominal_model(chain),
    q)``), where the caller has them (from the compensation's filtered poses).
    """
    nominal = nominal_model(chain)
    cols = prog.columns
    extax_of = cols.run.extax
    R_tcp, p_tcp = tcp_poses(*fk(nominal, q), poses.T_flange_tcp) if tcp is None else tcp
    at_base = np.array_equal(chain.T_world_base, np.eye(4))  # (the program's world frame is the robot base)
    conf = confdata_from_q(nominal, q) if prog.language == "rapid" and chain.n_joints == 6 else None
    rapid = prog.language == "rapid"
    m = len(extax_of)
    ok = status == Status.CONVERGED
    is_joint = poses.is_joint
    joint_text = ok & (is_joint | (output == "joints"))
    pose_text = ok & ~joint_text
    # what changed, in batch: joints against the written ones, poses against the program's (its world frame)
    changed = np.zeros(m, dtype=bool)
    changed[joint_text & ~is_joint] = True
    jt = np.flatnonzero(joint_text & is_joint)
    changed[jt] = row_max_abs(q[jt] - poses.q_given[jt]) > w.KEEP_ANGLE
    pt = np.flatnonzero(pose_text)
    miss = pose_errors(R_tcp[pt], p_tcp[pt], poses.T_world_tcp[pt, :3, :3], poses.T_world_tcp[pt, :3, 3])  # (world)
    changed[pt] = (row_norms(miss[:, :3]) > w.KEEP_POSITION) | (row_norms(miss[:, 3:]) > w.KEEP_ANGLE)
    written_at: list[np.ndarray] = []  # the points given a text, and their texts, in that order
    texts: list[pa.StringArray] = []
    error_position, error_angle = [0.0], [0.0]
    # joint texts
    jw = np.flatnonzero(joint_text & changed)
    if jw.size:
        shown = np.degrees(q[jw]) if rapid else q[jw]
        written_at.append(jw)
        texts.append(w.jointtarget_texts(shown, [extax_of[i] for i in jw.tolist()]) if rapid
                     else w.list_texts(shown, "["))
        back = w.stored_singles(shown)
        q_back = np.radians(back) if rapid else back
        R_a, p_a = fk(nominal, q[jw])
        R_b, p_b = fk(nominal, q_back)
        error_position.append(float(row_norms(p_b - p_a).max()))
        error_angle.append(_largest_turn(R_a, R_b))
    # pose texts
    pw = np.flatnonzero(pose_text & changed)
    if pw.size:
        # in each point's work object: each frame inverted once, and no product where every frame is the world's
        # (the identity's product gives the same bits)
        frames = cols.frame_table(0)
        in_world = all(np.array_equal(frames[f], np.eye(4)) for f in np.unique(cols.run.frame[pw]).tolist())
        if in_world and at_base:
            R_frame, p_frame = R_tcp[pw], p_tcp[pw]
        else:  # in the program's world frame, the robot base (docs/conventions.md), then in the work object
            T_world_tcp = transform(R_tcp[pw], p_tcp[pw])
            T_world_tcp = T_world_tcp if at_base else invert_transform(chain.T_world_base) @ T_world_tcp
            T_frame = T_world_tcp if in_world else invert_transform(frames)[cols.run.frame[pw]] @ T_world_tcp
            R_frame, p_frame = T_frame[:, :3, :3], T_frame[:, :3, 3]
        if rapid:
            quat = w.quat_in_hemisphere(quat_wxyz_from_matrix(R_frame), cols.run.quat[pw])
            shown = np.hstack([p_frame * 1e3, quat])
            texts.append(w.robtarget_texts(shown, conf[pw], [extax_of[i] for i in pw.tolist()]))
            back = w.stored_singles(shown)
            from thermocomp.programs.rapid import transforms_from_poses

            T_back = transforms_from_poses(back)  # (as the reader reads the written robtargets)
            R_back, p_back = T_back[:, :3, :3], T_back[:, :3, 3]
        else:
            shown = np.hstack([p_frame, rotvec_from_matrix(R_frame)])
            texts.append(w.list_texts(shown, "p["))
            back = w.stored_singles(shown)
            R_back = matrix_from_rotvec(back[:, 3:])
            p_back = back[:, :3]
        error_position.append(float(row_norms(p_back - p_frame).max()))
        error_angle.append(_largest_turn(R_frame, R_back))
        written_at.append(pw)
    conf_changed = (np.zeros(0, dtype=np.int64), np.zeros((0, 4), dtype=np.int64))
    if rapid and conf is not None and pw.size:
        differs = pw[cols.run.has_confdata[pw] & np.any(conf[pw] != cols.run.confdata[pw], axis=1)]
        conf_changed = (differs, conf[differs])
    written = np.concatenate(written_at) if written_at else np.zeros(0, dtype=np.int64)
    new = pa.concat_arrays(texts) if texts else pa.array([], pa.string())
    if output != "joints" and cols.plain:  # each point its own inline text: each writes its text (w.place_values)
        spans = cols.run.text[written]
        data = w.apply_edits(prog.text, w.Edits(spans[:, 0], spans[:, 1], new), prog.path,
                             w.COMMENT_STARTS[prog.language])
        return Written(data, len(new), (max(error_position), max(error_angle)), conf_changed)
    values: list[str | None] = [None] * m
    for i, text in zip(written.tolist(), new.to_pylist()):
        values[i] = text
    if output == "joints" and cols.plain:
        data, n_changed = _joints_form_spliced(prog, values, ok, is_joint)
        if data is not None:
            return Written(data, n_changed, (max(error_position), max(error_angle)))
    points = prog.points
    at_argument = (~is_joint).tolist() if output == "joints" else [False] * m
    edits: list[w.Edit] = []
    if output == "joints":
        first = 0
        for motion in prog.motions:
            own = slice(first, first + len(motion.points))
            first += len(motion.points)
            if motion.kind != ABSOLUTE_JOINT and not all(p.is_joint for p in motion.points) and np.all(ok[own]):
                edits.extend(_joint_instruction_edits(prog, motion))
    # a MoveC in joints form is rewritten as a whole statement; its points' own edits are dropped
    whole = {(mo.statement.start, mo.statement.end) for mo in prog.motions
             if output == "joints" and mo.kind == CIRCULAR}
    # a joint target replaces the whole argument (UR: get_inverse_kin(pose, qnear=...) becomes the joint list)
    placed = [replace(p, argument=p.whole_argument, text=p.whole_argument)
              if at_argument[i] and p.whole_argument is not None else p for i, p in enumerate(points)] \
        if output == "joints" else list(points)
    point_edits = w.place_values(placed, values, prog.path, at_argument=at_argument)
    point_edits = [e for e in point_edits if not any(a <= e.start and e.end <= b for a, b in whole)]
    if whole:
        edits = [e for e in edits if (e.start, e.end) in whole or not any(a <= e.start < b for a, b in whole)]
        edits += _movec_statements(prog, points, values, whole)
    all_edits = point_edits + edits
    data = w.apply_edits(prog.text, all_edits, prog.path, w.COMMENT_STARTS[prog.language])
    n_changed = len({(e.start, e.end) for e in point_edits}) + len(whole)
    return Written(data, n_changed, (max(error_position), max(error_angle)), conf_changed)


def _joints_form_spliced(prog: RobotProgram, values: list[str | None], ok: np.ndarray, is_joint: np.ndarray
                         ) -> tuple[bytes | None, int]:
    """The joints form of a program whose every point is its own inline text (:attr:`ProgramColumns.plain`), from
    its columns: each Cartesian motion whose points all converged renamed ``MoveAbsJ`` / ``movej`` and every
    point's value written at its argument (:func:`w.apply_edits`), as the general rules below write it; ``(bytes,
    points written)``, or ``(None, 0)`` for a RAPID ``MoveC`` (rewritten as two statements by those rules)."""
    run = prog.columns.run
    rapid = prog.language == "rapid"
    if rapid and np.any(run.kind == _KIND_CODE[CIRCULAR]):
        return None, 0
    new = "MoveAbsJ" if rapid else "movej"
    first = np.cumsum(run.n_points) - run.n_points
    renamed = ((run.kind != _KIND_CODE[ABSOLUTE_JOINT]) & ~np.logical_and.reduceat(is_joint, first)
               & np.logical_and.reduceat(ok, first) & (np.asarray(run.instruction) != new))
    named = np.flatnonzero(renamed)
    written = [i for i, v in enumerate(values) if v is not None]
    starts = np.concatenate([run.name[named, 0], run.argument[written, 0]])
    ends = np.concatenate([run.name[named, 1], run.argument[written, 1]])
    texts = [new] * named.size + [values[i] for i in written]
    return w.apply_edits(prog.text, w.Edits(starts, ends, texts), prog.path,
                         w.COMMENT_STARTS[prog.language]), len(written)


def _largest_turn(R_from: FloatArray, R_to: FloatArray) -> float:
    """The largest angle [rad] of the rotations ``R_to R_from^T`` ``(r, 3, 3)`` each (0 for none)."""
    return float(row_norms(turns(R_from, R_to)).max()) if len(R_from) else 0.0




def _joint_instruction_edits(prog: RobotProgram, motion: Motion) -> list[w.Edit]:
    """The instruction name of a Cartesian move in joints form: ``MoveAbsJ`` / ``movej``."""
    if motion.kind == CIRCULAR and prog.language == "rapid":
        return []
    new = "MoveAbsJ" if prog.language == "rapid" else "movej"
    if motion.instruction == new:
        return []
    return [w.Edit(motion.name.start, motion.name.end, new)]


def _movec_statements(prog: RobotProgram, points, values, whole) -> list[w.Edit]:
    """A RAPID ``MoveC via, to, rest`` in joints form: ``MoveAbsJ via, rest`` and ``MoveAbsJ to, rest``."""
    edits = []
    index = {id(p): i for i, p in enumerate(points)}
    for motion in prog.motions:
        if (motion.statement.start, motion.statement.end) not in whole:
            continue
        via, to = motion.points
        v_text, t_text = values[index[id(via)]], values[index[id(to)]]
        if v_text is None or t_text is None:
            continue
        text = prog.text
        prefix = text[motion.name.end:via.argument.start]
        rest = text[to.argument.end:motion.statement.end]
        line_start = text.rfind("\n", 0, motion.statement.start) + 1
        indent = "".join(ch for ch in text[line_start:motion.statement.start] if ch in " \t")
        new = f"MoveAbsJ{prefix}{v_text}{rest}{prog.newline}{indent}MoveAbsJ{prefix}{t_text}{rest}"
        edits.append(w.Edit(motion.statement.start, motion.statement.end, new))
    return edits
