"""Seed 004's checks on a compensated program (Section 3-2, Figure 2-4), in the order the controller runs it:
joint limits with a margin, reach, linear and circular moves followed in steps (configuration change, near
singular, joint speed), joint steps large for their correction at the TCP, circles the controller refuses.
docs/programs.md, "Feasibility (seed 004's checks)".
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from thermocomp._typing import FloatArray
from thermocomp.compensation.targets import rows_or_run
from thermocomp.geometry.rotations import matrix_from_rotvec
from thermocomp.geometry.vectors import row_max_abs, row_norms
from thermocomp.kinematics.ik import IKOptions, Status, job_options, sigma_and_joint_rates, solve_ik, turns
from thermocomp.kinematics.model import nominal_model
from thermocomp.programs.model import _KIND_CODE, ABSOLUTE_JOINT, CIRCULAR, JOINT, RobotProgram
from thermocomp.programs.timing import Timing, arc
from thermocomp.robot.chain import Chain
from thermocomp.tolerances import BRANCH_JUMP, NEAR_SINGULAR_SIGMA

#: Distance a corrected joint must keep from its limits [rad] (the controllers' soft-limit margins are of this order).
LIMIT_MARGIN = np.radians(1.0)
#: Most steps along a linear or circular move at which configuration, singularity and joint speed are checked.
PATH_STEPS = 8
#: Largest joint travel [rad] of one step (the nominal joints' largest change over the move, divided into steps).
PATH_STEP_ANGLE = np.radians(1.0)
#: Shortest distance [m] from a circle's start to its via and to its end point, and smallest angle [rad] between
#: the two seen from the start (and from 180 degrees): ABB's MoveC restrictions (RAPID reference, MoveC), applied
#: to URScript's movec as well.
CIRCLE_MIN_DISTANCE = 1e-4
CIRCLE_MIN_ANGLE = np.radians(1.0)
#: Largest ratio of a point's joint correction [rad] (its largest joint) to its correction at the TCP, ``hypot(
#: position [m], angle [rad])``: past it the correction is made near a singularity (a regular pose of a 6-axis arm
#: needs at most a few tens: 1 / the Jacobian's smallest singular value).
JOINT_STEP_GAIN = 100.0
#: Joint corrections below this [rad] are not compared (the ratio of two numbers near zero means nothing).
JOINT_STEP_MIN = np.radians(0.1)


@dataclass
class MotionRow:
    """One motion of the compensated program (a row of the program report CSV)."""

    motion: int
    instruction: str
    line: int
    minute_first: float
    minute_last: float
    change_mm: float
    change_deg: float
    joint_change_deg: float
    status: str
    findings: list[str] = field(default_factory=list)


def check_program(chain: Chain, prog: RobotProgram, poses, q_nominal: FloatArray, q_versions: FloatArray,
                  timing: Timing, status: np.ndarray, *, linear_form: bool, tcp: tuple[FloatArray, FloatArray]):
    """Check every motion of the compensated program.

    Parameters
    ----------
    poses
        :class:`~thermocomp.programs.compensate.PointPoses` of the program's points.
    q_nominal
        Nominal joints of each point [rad], ``(m, n)``.
    q_versions
        Corrected joints [rad], ``(k, m, n)``: the snapshot, or each minute of a time-indexed program.
    timing
        When each motion runs.
    status
        Per point: :class:`Status` of its compensation, ``(m,)``.
    linear_form
        True when linear and circular moves stay Cartesian (the filtered form).
    tcp
        The nominal robot's TCP poses at ``q_versions`` (world frame), ``(k, m, 3, 3)`` and ``(k, m, 3)`` [m].

    Returns
    -------
    rows : sequence of :class:`MotionRow` (built when first read)
    findings : list of str
        ``file:line: instruction ...: finding`` for every motion with a finding.
    """
    motions = prog.run
    ok = status == Status.CONVERGED
    R_tcp, p_tcp = tcp  # (what the controller is given in the filtered form)
    findings_of: dict[int, list[str]] = defaultdict(list)  # motion -> its findings
    point_motion = motions.row_of_points()
    last_point = np.cumsum(motions.n_points) - 1

    # joint limits with margin
    near = (q_versions < chain.lower + LIMIT_MARGIN) | (q_versions > chain.upper - LIMIT_MARGIN)
    for version, point, joint in zip(*np.nonzero(near & ok[None, :, None])):
        q = q_versions[version, point, joint]
        where = ("outside" if not chain.lower[joint] <= q <= chain.upper[joint] else  # (a joint target as written)
                 f"within {np.degrees(LIMIT_MARGIN):g} deg of")
        findings_of[int(point_motion[point])].append(
            f"joint {joint + 1} at {np.degrees(q):.4g} deg, {where} its limits "
            f"[{np.degrees(chain.lower[joint]):.4g}, {np.degrees(chain.upper[joint]):.4g}]")
    first_failing: dict[int, str] = {}  # motion -> its first failing point's status
    for point in np.flatnonzero(~ok).tolist():
        label, motion = Status(int(status[point])).label, int(point_motion[point])
        findings_of[motion].append(f"point not reached: {label}")
        first_failing.setdefault(motion, label)

    if linear_form:
        _check_paths(chain, motions, q_nominal, q_versions, R_tcp, p_tcp, poses.T_flange_tcp,
                     timing.step_duration_s[prog.motion_steps], ok, last_point, findings_of)
        _check_circles(motions, poses.T_world_tcp[:, :3, 3], p_tcp, ok, last_point, findings_of)

    # rows: what changed and by how much (largest over versions), when it runs
    change_p = row_norms(p_tcp - poses.T_world_tcp[None, :, :3, 3]).max(axis=0)
    change_a = row_norms(turns(np.broadcast_to(poses.T_world_tcp[None, :, :3, :3], R_tcp.shape), R_tcp)).max(axis=0)
    change_q = row_max_abs(q_versions - q_nominal[None]).max(axis=0)
    # a correction whose joint step is large for its size at the TCP: near a singularity
    for point in np.flatnonzero(ok & (change_q > JOINT_STEP_MIN)
                                & (change_q > JOINT_STEP_GAIN * np.hypot(change_p, change_a))).tolist():
        step = np.abs(q_versions[:, point] - q_nominal[None, point]).max(axis=0)
        joint = int(np.argmax(step))
        findings_of[int(point_motion[point])].append(
            f"joint step large for its correction: joint {joint + 1} moves {np.degrees(step[joint]):.3g} deg for "
            f"{change_p[point] * 1e3:.3g} mm and {np.degrees(change_a[point]):.3g} deg at the TCP (near a "
            "singularity: the robot swings its joints to make this correction)")
    line_of = motions.statement[:, 2]
    found = {i: sorted(set(findings_of[i])) for i in sorted(findings_of)}
    file_of = motions.file.tolist()  # (a motion of another module of the task: that file)
    findings = [f"{prog.files[file_of[i]][0]}:{line_of[i]}: {motions.instruction[i]} (motion {i + 1}): {f}"
                for i, listed in found.items() for f in listed]

    def rows() -> list:
        # per motion (its points are consecutive): the largest change, the first failing point's status
        per_motion = [np.maximum.reduceat(x, motions.first_points()).tolist() for x in (change_p * 1e3, np.degrees(change_a),
                                                                         np.degrees(change_q))]
        minutes = [timing.point_minutes(cycle)[last_point].tolist() for cycle in (0, timing.cycles - 1)]
        return [MotionRow(motion=i + 1, instruction=instruction, line=line, minute_first=a, minute_last=b,
                          change_mm=dp, change_deg=da, joint_change_deg=dq, status=first_failing.get(i, "ok"),
                          findings=found.get(i, []))
                for i, (instruction, line, a, b, dp, da, dq) in enumerate(zip(
                    motions.instruction, line_of.tolist(), *minutes, *per_motion))]

    return Lazy(rows, len(motions)), findings


class Lazy(Sequence):
    """A list built when first read (a report's rows)."""

    def __init__(self, build, count: int) -> None:
        self._build, self._count = build, count

    @cached_property
    def _items(self) -> list:
        return self._build()

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, index):
        return self._items[index]


def _check_paths(chain, motions, q_nominal, q_versions, R_tcp, p_tcp, T_flange_tcp, motion_s, ok, last_point,
                 findings_of):
    """Follow every linear and circular move in steps (batched over moves and versions)."""
    k, m, n = q_versions.shape
    model = nominal_model(chain)
    moves = np.flatnonzero((motions.kind != _KIND_CODE[JOINT]) & (motions.kind != _KIND_CODE[ABSOLUTE_JOINT]))
    if not moves.size:
        return
    to = last_point[moves]
    frm = last_point[moves - 1]  # (the first move starts from the cycle's last point: index -1)
    via = np.where(motions.kind[moves] == _KIND_CODE[CIRCULAR], to - 1, -1)
    usable = ok[to] & ok[frm]
    # (k, L) arrays of start and end poses (the ends read only: views where the moves' ends are consecutive points)
    end = rows_or_run(to)
    pa, pb = p_tcp[:, frm], p_tcp[:, end]
    Ra, Rb = R_tcp[:, frm], R_tcp[:, end]
    rot = turns(Ra, Rb)  # world-frame rotation from a to b
    q_prev = q_versions[:, frm].reshape(-1, n)
    q_end = q_versions[:, end].reshape(-1, n)  # the written configuration each move must arrive at
    sigma_min = np.full(k * len(moves), np.inf)
    speeds = np.zeros((k * len(moves), n))  # each joint's largest speed over the move / its datasheet speed
    T_tool = T_flange_tcp[end]
    tool_R = np.broadcast_to(T_tool[None, :, :3, :3], (k, len(moves), 3, 3)).reshape(-1, 3, 3)
    tool_p = np.broadcast_to(T_tool[None, :, :3, 3], (k, len(moves), 3)).reshape(-1, 3)
    tool_lever = np.einsum("kji,kj->ki", tool_R, tool_p)  # R_tool^T p_tool: the TCP's offset is R_s of it
    circular = via >= 0
    # steps of each move (its circle's via point included): the nominal joints' largest travel in PATH_STEP_ANGLE
    travel = row_max_abs(q_nominal[end] - q_nominal[frm])
    travel[circular] += row_max_abs(q_nominal[via[circular]] - q_nominal[frm[circular]])
    steps = np.clip(np.ceil(travel / PATH_STEP_ANGLE), 1, PATH_STEPS).astype(int)
    # the twist of the TCP along each move at its programmed speed (constant over the move)
    t = np.maximum(np.tile(motion_s[moves], k), 1e-9)  # (each motion's duration [s])
    v = (pb - pa).reshape(-1, 3) / t[:, None]
    w = rot.reshape(-1, 3) / t[:, None]
    # the steps after the first are few rows each: a long program solves them in compiled code
    ik = job_options(IKOptions(), k * len(moves))
    for s in range(1, PATH_STEPS + 1):
        act = np.flatnonzero(steps >= s)  # the moves still on their way
        if act.size == 0:
            break
        flat = (np.arange(k)[:, None] * len(moves) + act[None]).reshape(-1)
        # the step's TCP pose: the move's end at its last step, else on the way
        p_s, R_s = pb[:, act], Rb[:, act]
        on_way = np.flatnonzero(s < steps[act])
        if on_way.size:
            way = act[on_way]
            u = (s / steps[way])[None, :, None]
            p_s[:, on_way] = pa[:, way] + u * (pb[:, way] - pa[:, way])
            arc = np.flatnonzero(circular[way])
            if arc.size:
                p_s[:, on_way[arc]] = _arc_points(p_tcp[:, frm[way[arc]]], p_tcp[:, via[way[arc]]],
                                                  p_tcp[:, to[way[arc]]], u[:, arc, 0])
            R_s[:, on_way] = matrix_from_rotvec(u * rot[:, way]) @ Ra[:, way]
        # the TCP's offset from the flange, world frame: R_s R_tool^T p_tool
        offset = np.einsum("kij,kj->ki", R_s.reshape(-1, 3, 3), tool_lever[flat])
        # a last step that starts within one step's travel of the written configuration arrives there (docs/programs.md)
        last = np.repeat((s == steps[act])[None], k, axis=0).reshape(-1)
        arrives = last & (row_max_abs(q_end[flat] - q_prev[flat]) <= PATH_STEP_ANGLE)
        q_s = q_end[flat]
        solve = np.flatnonzero(~arrives)
        if solve.size:  # the flange pose that puts the TCP there
            R_f = R_s.reshape(-1, 3, 3)[solve] @ np.swapaxes(tool_R[flat][solve], -1, -2)
            p_f = p_s.reshape(-1, 3)[solve] - np.einsum("kij,kj->ki", R_f, tool_p[flat][solve])
            result = solve_ik(model, R_f, p_f, q_prev[flat[solve]], ik, measure_singularity=False)
            q_s[solve] = np.where((result.status == Status.CONVERGED)[:, None], result.q, q_prev[flat[solve]])
        # the Jacobian is of the flange: its linear velocity is the TCP's minus w x (TCP offset)
        sigma, qd = sigma_and_joint_rates(model, q_s, (v[flat], w[flat], offset))
        sigma_min[flat] = np.minimum(sigma_min[flat], sigma)
        speeds[flat] = np.maximum(speeds[flat], np.abs(qd) / chain.velocity)
        q_prev[flat] = q_s
    arrived = row_max_abs(q_prev - q_end)
    speed_ratio, speed_joint = speeds.max(axis=1), speeds.argmax(axis=1)
    # (a move without a programmed speed, UR's optimovel, keeps within the joints' limits itself: not checked)
    speed_ratio[~np.tile(np.isfinite(motions.tcp_speed[moves]) | ~np.isnan(motions.duration_s[moves]), k)] = 0.0
    flagged = (arrived > BRANCH_JUMP) | (sigma_min < NEAR_SINGULAR_SIGMA) | (speed_ratio > 1.0)
    for flat in np.flatnonzero(flagged & np.tile(usable, k)).tolist():
        i = int(moves[flat % len(moves)])
        if arrived[flat] > BRANCH_JUMP:
            findings_of[i].append(
                f"configuration change: followed linearly from the previous point, the robot arrives "
                f"{np.degrees(arrived[flat]):.3g} deg away from the written configuration (a wrist, elbow or "
                "shoulder flip; not executable as a linear move)")
        if sigma_min[flat] < NEAR_SINGULAR_SIGMA:
            findings_of[i].append(f"near singular on the way: smallest singular value {sigma_min[flat]:.2g} "
                                  f"(< {NEAR_SINGULAR_SIGMA:g})")
        if speed_ratio[flat] > 1.0:
            joint = speed_joint[flat]
            findings_of[i].append(
                f"joint speed: the move's TCP speed demands {speed_ratio[flat] * np.degrees(chain.velocity[joint]):.4g} "
                f"deg/s of joint {joint + 1} (datasheet {np.degrees(chain.velocity[joint]):.4g} deg/s)")


def _check_circles(motions, p_program: FloatArray, p_tcp: FloatArray, ok: np.ndarray, last_point: np.ndarray,
                   findings_of) -> None:
    """A finding for every circular move whose start, via and end points define no circle (:data:`CIRCLE_MIN_DISTANCE`,
    :data:`CIRCLE_MIN_ANGLE`): in the program (``p_program`` ``(m, 3)``) or in a written version (``p_tcp``
    ``(k, m, 3)``, where both ends were compensated; a failed point keeps its text)."""
    moves = np.flatnonzero(motions.kind == _KIND_CODE[CIRCULAR])
    to = last_point[moves]
    via, frm = to - 1, last_point[moves - 1]  # (the first move starts from the cycle's last point: index -1)
    written = np.where((ok[frm] & ok[via] & ok[to])[None, :, None], 1.0, np.nan)  # NaN: failed, not compared
    reported: set[int] = set()
    for what, versions, mask in (("the program's", p_program[None], 1.0), ("the written", p_tcp, written)):
        a = (versions[:, via] - versions[:, frm]) * mask
        b = (versions[:, to] - versions[:, frm]) * mask
        la, lb = np.linalg.norm(a, axis=2), np.linalg.norm(b, axis=2)
        angle = np.arctan2(np.linalg.norm(np.cross(a, b), axis=2), np.einsum("kli,kli->kl", a, b))
        flat = (la < CIRCLE_MIN_DISTANCE) | (lb < CIRCLE_MIN_DISTANCE) | (angle < CIRCLE_MIN_ANGLE) \
            | (angle > np.pi - CIRCLE_MIN_ANGLE)
        for version, j in zip(*np.nonzero(flat)):
            if j in reported:  # one finding a move: the program's own points first, else the first written version
                continue
            reported.add(j)
            findings_of[int(moves[j])].append(
                f"circle undefined: {what} via and end points are {la[version, j] * 1e3:.3g} mm and "
                f"{lb[version, j] * 1e3:.3g} mm from the start, {np.degrees(angle[version, j]):.3g} deg apart (a "
                f"circle needs {CIRCLE_MIN_DISTANCE * 1e3:g} mm, and {np.degrees(CIRCLE_MIN_ANGLE):g} deg from 0 and "
                "180): the controller refuses this circular move")


def _arc_points(p0: FloatArray, pv: FloatArray, p1: FloatArray, u: FloatArray) -> FloatArray:
    """The point at fraction ``u`` ``(1, L)`` of the arc angle from ``p0`` through ``pv`` to ``p1``; shapes ``(k, L, 3)``."""
    centre, axis, total, line = arc(p0, pv, p1)
    r0, theta = p0 - centre, u * total
    radial = np.cos(theta)[..., None] * r0 + np.sin(theta)[..., None] * np.cross(axis, r0)
    return np.where(line[..., None], p0 + u[..., None] * (p1 - p0), centre + radial)
