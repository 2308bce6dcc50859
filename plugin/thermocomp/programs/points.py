"""The points of a robot program as arrays: their TCP and flange targets, and the configurations the
controller takes (nominal joints, RAPID confdata). docs/programs.md, docs/conventions.md.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from thermocomp._typing import FloatArray
from thermocomp.compensation.compensate import (
    CompensationOptions,
    nominal_solutions,
)
from thermocomp.compensation.program import Program
from thermocomp.errors import InputError
from thermocomp.geometry.rotations import (
    invert_transform,
    transform,
)
from thermocomp.kinematics.confdata import confdata_from_q, quadrants, to_quadrants
from thermocomp.kinematics.fk import fk
from thermocomp.kinematics.ik import Status
from thermocomp.kinematics.model import nominal_model
from thermocomp.kinematics.seeding import solve_nominal_configuration, solve_path
from thermocomp.programs.model import (
    LINEAR,
    Motion,
    MotionRun,
    Point,
    ProgramColumns,
    RobotProgram,
    Span,
)
from thermocomp.robot.chain import Chain


@dataclass(frozen=True, eq=False)
class PointPoses:
    """Every point of a program, in execution order, as arrays (world frame, SI)."""

    T_world_tcp: FloatArray  # (m, 4, 4)
    T_world_flange: FloatArray  # (m, 4, 4)
    q_given: FloatArray  # (m, n), nan where the point is Cartesian
    is_joint: np.ndarray  # (m,)
    T_flange_tcp: FloatArray  # (m, 4, 4): each point's tool


def point_poses(chain: Chain, points: ProgramColumns | tuple[Point, ...]) -> PointPoses:
    """The TCP and flange targets of the program's points (its :attr:`~RobotProgram.columns`, or the points);
    joint targets through the nominal FK with their tool."""
    cols = points if isinstance(points, ProgramColumns) else \
        ProgramColumns.of((MotionRun.of_motions([Motion("", LINEAR, tuple(points), _NO_SPAN, _NO_SPAN)]),))
    run = cols.run
    m, n = len(run.text), chain.n_joints
    is_joint = run.q_len > 0
    wrong = np.flatnonzero(is_joint & (run.q_len != n))
    if wrong.size:
        i = int(wrong[0])
        raise InputError(f"a joint target of {run.q_len[i]} joints, {chain.name} has {n}", row=int(run.argument[i, 2]))
    q_given = np.full((m, n), np.nan)
    if np.any(is_joint):
        q_given[is_joint] = run.q[is_joint, :n]
    T_flange_tcp = cols.T_flange_tcp if m else np.zeros((0, 4, 4))
    cartesian = ~is_joint
    at_base = np.array_equal(chain.T_world_base, np.eye(4))
    if at_base and not np.any(is_joint):
        T_world_tcp = run.T_world_tcp  # (read only, as the run's)
    else:
        T_world_tcp = np.empty((m, 4, 4))
    if np.any(cartesian) and T_world_tcp is not run.T_world_tcp:  # the program's world is the robot base
        T_world_tcp[cartesian] = run.T_world_tcp[cartesian] if at_base \
            else chain.T_world_base @ run.T_world_tcp[cartesian]  # (the identity's product: the same bits)
    if np.any(is_joint):
        R, pos = fk(nominal_model(chain), q_given[is_joint])
        T_world_tcp[is_joint] = transform(R, pos) @ T_flange_tcp[is_joint]
    tools_inverse = invert_transform(cols.frame_table(1))[run.frame] if run.frames and m \
        else invert_transform(T_flange_tcp)  # (each tool inverted once)
    T_world_flange = T_world_tcp @ tools_inverse
    return PointPoses(T_world_tcp, T_world_flange, q_given, is_joint, T_flange_tcp)


_NO_SPAN = Span(0, 0, 0, 0)


def nominal_configurations(chain: Chain, program: RobotProgram, poses: PointPoses,
                           options: CompensationOptions) -> tuple[FloatArray, np.ndarray]:
    """Nominal joint angles of every point and their status, ``(m, n)`` and ``(m,)``.

    Joint targets keep their joints. Cartesian targets continue along the
    program from the point before (as the controller moves); RAPID points
    then must match their confdata (else they are searched in that
    configuration, nearest home), UR points take the continuation (UR's
    controller picks the solution nearest the current joints), and so do
    RAPID points whose confdata the controller ignores (run under
    ``ConfL \\Off`` or ``ConfJ \\Off``: :func:`confdata_free`).
    """
    model = nominal_model(chain)
    T = poses.T_world_flange
    m = T.shape[0]
    kwargs = dict(starts=options.starts, seed=options.seed, options=options.ik)
    q = np.empty((m, chain.n_joints))
    status = np.zeros(m, dtype=np.int8)
    joint = poses.is_joint
    q[joint] = poses.q_given[joint]
    # the pieces between joint targets continue from the joint target before them
    cuts = np.flatnonzero(joint)
    starts = np.r_[0, cuts + 1]
    ends = np.r_[cuts, m]
    for a, b in zip(starts.tolist(), ends.tolist()):
        if b <= a:
            continue
        if a > 0:
            q_start = q[a - 1]
        else:
            first = solve_nominal_configuration(model, T[:1, :3, :3], T[:1, :3, 3], chain.home[None], **kwargs)
            q_start = first.q[0]
        part = solve_path(model, T[a:b, :3, :3], T[a:b, :3, 3], q_start, measure_singularity=False, **kwargs)
        q[a:b], status[a:b] = part.q, part.status  # (the joints and statuses: no singular values needed)
    if program.language == "rapid":
        cartesian = np.flatnonzero(~joint)
        bound = cartesian[~confdata_free(program)[cartesian]]  # (the others: the continuation, as the controller)
        wanted = program.columns.run.confdata[bound].astype(int)
        ok = near_configuration(model, q[bound], wanted) & (status[bound] == Status.CONVERGED)
        turned = bound[ok][np.flatnonzero(np.any(quadrants(q[bound[ok]]) != wanted[ok, :3], axis=1))]
        q[turned] = to_quadrants(q[turned], program.columns.run.confdata[turned].astype(int))  # (whole turns)
        redo = bound[~ok]
        if redo.size:
            prog = Program(names=tuple(str(i) for i in redo), R_world_tcp=T[redo, :3, :3], p_world_tcp=T[redo, :3, 3],
                           q_reference=np.tile(chain.home, (redo.size, 1)), confdata=wanted[~ok])
            found = nominal_solutions(chain, prog, options)
            q[redo], status[redo] = found.q, found.status
        inside = chain.within_limits(q[cartesian])
        status[cartesian] = np.where((status[cartesian] == Status.CONVERGED) & ~inside, np.int8(Status.JOINT_LIMIT),
                                     status[cartesian])
    return q, status


def confdata_free(program: RobotProgram) -> np.ndarray:
    """``(m,)`` True for each point whose motion ran with its confdata ignored (RAPID ``ConfL \\Off`` for linear
    and circular moves, ``ConfJ \\Off`` for joint moves: the controller takes the configuration nearest the
    robot's joints, ABB "RAPID Instructions", ConfL)."""
    run = program.columns.run
    free = program.extra.get("confdata_free", frozenset())
    if not free:
        return np.zeros(len(run.text), dtype=bool)
    return np.repeat(np.isin(run.statement[:, 0], np.fromiter(free, dtype=np.int64, count=len(free))), run.n_points)


def near_configuration(model, q: FloatArray, wanted: np.ndarray) -> np.ndarray:
    """True where ``q`` ``(m, 6)`` has the programmed ``cfx`` and axes 1, 4, 6 within one quadrant of ``wanted``.

    A robtarget derived with ``Offs`` or ``RelTool`` keeps the confdata of the
    point it starts from, though a tool rotation may move axis 6 into the
    next quadrant; the solution nearest the program's path is then the one
    meant. Whole turns are compared modulo 4 quadrants.
    """
    got = confdata_from_q(model, q)
    step = (got[:, :3] - wanted[:, :3]) % 4
    return (got[:, 3] == wanted[:, 3]) & np.all((step <= 1) | (step == 3), axis=1)


def point_names(prog: RobotProgram) -> tuple[str, ...]:
    """The name of each point in the results: its place in the program, its line, and its declared name."""
    run = prog.columns.run
    return tuple([f"{i}:line{line}:{name}" if name else f"{i}:line{line}"
                  for i, line, name in zip(range(1, len(run.text) + 1), run.argument[:, 2].tolist(),
                                           run.name_of_point)])
