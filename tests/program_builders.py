"""Robot programs with known answers, written the way RobotStudio, the FlexPendant and PolyScope write them.

Targets come from the nominal FK of joint configurations inside the limits,
so every pose a program holds is known independently of the reader.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pytest

from thermocomp import fk, load_robot, nominal_model
from thermocomp.errors import InputError
from thermocomp.geometry.rotations import (
    invert_transform,
    matrix_from_quat_wxyz,
    matrix_from_rotvec,
    quat_wxyz_from_matrix,
    rot_z,
    rotvec_from_matrix,
    transform,
)
from thermocomp.kinematics.confdata import confdata_from_q
from thermocomp.programs.model import Wait


def rapid_pose(T) -> str:
    """``[[x,y,z],[q1..q4]]`` in mm, 9 significant digits (as RobotStudio writes)."""
    q = quat_wxyz_from_matrix(T[:3, :3])
    return ("[[" + ",".join(f"{v:.9g}" for v in T[:3, 3] * 1e3) + "],["
            + ",".join(f"{v:.9g}" for v in q) + "]]")


def pose_of_text(text: str):
    """The transform [m] a ``[[x,y,z],[q1..q4]]`` text stands for (what the test knows, independently)."""
    nums = [float(x) for x in text.replace("[", " ").replace("]", " ").replace(",", " ").split()]
    return transform(matrix_from_quat_wxyz(nums[3:7]), np.array(nums[:3]) * 1e-3)


def robtarget_text(T, confdata, split: bool = False) -> str:
    trans, rot = rapid_pose(T)[2:-2].split("],[")  # "x,y,z", "q1,q2,q3,q4"
    conf = ",".join(str(int(c)) for c in confdata)
    sep = "\r\n      " if split else ""
    return f"[[{trans}],{sep}[{rot}],{sep}[{conf}],[9E+09,9E+09,9E+09,9E+09,9E+09,9E+09]]"


@dataclass
class RapidCase:
    text: str
    #: Expected TCP pose of each point in execution order, world frame [m].
    T_world_tcp: list
    #: Joint targets in execution order (None for Cartesian points).
    q: list
    T_flange_tcp_of_point: list


def random_configurations(chain, rng, count, margin_deg=25.0):
    """``count`` configurations near home, inside the limits by ``margin_deg``."""
    lo = chain.lower + np.radians(margin_deg)
    hi = chain.upper - np.radians(margin_deg)
    q = chain.home + rng.uniform(-0.6, 0.6, (count, chain.n_joints))
    q[:, 4] = np.where(np.abs(q[:, 4]) < 0.35, 0.35 * np.sign(q[:, 4] + 1e-12), q[:, 4])  # away from the wrist singularity
    return np.clip(q, lo, hi)


def rapid_case(robot: str, rng: np.random.Generator) -> RapidCase:
    """A RAPID module (CRLF, %%% header, mixed case, continuations, comments, declarations in any order)."""
    chain = load_robot(robot)
    model = nominal_model(chain)
    q = random_configurations(chain, rng, 5)
    R, p = fk(model, q)
    T_flange = transform(R, p)
    cf = confdata_from_q(model, q)
    tool_text = "[[31.8,0,229.8],[0.976296,0,0.21644,0]]"
    T_tool = pose_of_text(tool_text)
    uframe_text, oframe_text = "[[100,-50,20],[1,0,0,0]]", "[[0,0,0],[0.9961947,0,0,0.0871557]]"
    T_wobj = pose_of_text(uframe_text) @ pose_of_text(oframe_text)
    T_tcp = T_flange @ T_tool  # TCP in the world
    T_obj = invert_transform(T_wobj) @ T_tcp  # target in the work object
    # the texts, and the poses they stand for exactly
    texts = [robtarget_text(T_obj[i], cf[i], split=(i == 1)) for i in range(5)]
    written = [pose_of_text(rapid_pose(T_obj[i])) for i in range(5)]
    home_deg = np.degrees(chain.home)
    jhome = "[[" + ",".join(f"{v:.9g}" for v in home_deg) + "],[9E9,9E9,9E9,9E9,9E9,9E9]]"
    offs = written[0].copy()
    offs[:3, 3] += [0, 0, 0.05]
    reltool = written[4] @ transform(rot_z(np.radians(30.0)), np.array([0.0, 0.0, -0.02]))
    text = "\r\n".join([
        "%%%",
        "  VERSION:1",
        "  LANGUAGE:ENGLISH",
        "%%%",
        "",
        "MODULE Weld_Cell",
        "  ! written as RobotStudio writes it: declarations, then routines",
        f"  PERS tooldata tWeldGun:=[TRUE,{tool_text},[1.5,[-10,0,100],[1,0,0,0],0,0,0]];",
        f"  TASK PERS wobjdata wobjTable:=[FALSE,TRUE,\"\",{uframe_text},{oframe_text}];",
        f"  CONST robtarget Target_10:={texts[0]};",
        f"  local const robtarget Target_20:={texts[1]};  ! continued over lines",
        f"  VAR robtarget Target_30 := {texts[2]};",
        f"  CONST jointtarget jHome:={jhome};",
        f"  CONST robtarget Target_40:={texts[4]};",
        "",
        "  PROC main()",
        "    MoveAbsJ jHome\\NoEOffs, v1000, z50, tool0;",
        "    path_10;",
        "    WaitTime 0.5;",
        "    moveL Offs(Target_10, 0, 0, 50), v200, z10, tWeldGun\\WObj:=wobjTable;  ! lower case",
        f"    MOVEJ {texts[3]}, v500, fine, tWeldGun \\WObj:=wobjTable;",
        "  ENDPROC",
        "",
        "  proc path_10()",
        "    MoveJ Target_10,v1000,z100,tWeldGun\\WObj:=wobjTable;",
        "    MoveL Target_20,v100,fine,tWeldGun\\WObj:=wobjTable;",
        "    MoveC Target_30,Target_40,v100,z1,tWeldGun\\WObj:=wobjTable;",
        "    MoveL RelTool(Target_40, 0, 0, -20 \\Rz:=30), v100, z1, tWeldGun\\WObj:=wobjTable;",
        "  endproc",
        "ENDMODULE",
        "",
    ])
    R_home, p_home = fk(model, chain.home)
    order_obj = [None, written[0], written[1], written[2], written[4], reltool, offs, written[3]]
    T_world = [transform(R_home, p_home)] + [T_wobj @ t for t in order_obj[1:]]
    q_list = [chain.home] + [None] * 7
    tools = [np.eye(4)] + [T_tool] * 7
    return RapidCase(text=text, T_world_tcp=T_world, q=q_list, T_flange_tcp_of_point=tools)


def ur_pose_text(T) -> str:
    v = np.concatenate([T[:3, 3], rotvec_from_matrix(T[:3, :3])])
    return "p[" + ", ".join(_polyscope_number(x) for x in v) + "]"


def _polyscope_number(x: float) -> str:
    """PolyScope's way: 12 significant digits, no leading zero (``.417312853748``, ``-.191452018732``)."""
    text = f"{x:.12g}"
    if text.startswith("0."):
        return text[1:]
    if text.startswith("-0."):
        return "-" + text[2:]
    return text


@dataclass
class URCase:
    text: str
    T_world_tcp: list  # expected TCP pose of each point in execution order [m]
    q: list  # joint targets (None for poses)
    q_nominal: object  # (m, 6) the configurations the poses were made from
    tool: object


def ur_case(rng: np.random.Generator) -> URCase:
    """A URScript as PolyScope exports it (CRLF, $ steps, header calls, globals, .123 numbers, loop forever)."""
    chain = load_robot("ur5")
    model = nominal_model(chain)
    q = random_configurations(chain, rng, 6)
    R, p = fk(model, q)
    tool = transform(np.eye(3), np.array([0.0, 0.02, 0.12]))
    T = transform(R, p) @ tool
    written = [_read_ur_pose(ur_pose_text(T[i])) for i in range(6)]
    offset = transform(np.eye(3), np.array([0.0, 0.0, -0.02]))
    q_text = "[" + ", ".join(_polyscope_number(x) for x in q[3]) + "]"
    q_near = "[" + ", ".join(_polyscope_number(x) for x in q[0]) + "]"
    text = "\r\n".join([
        "def Print_Job():",
        "  set_standard_analog_input_domain(0, 1)",
        "  set_tool_communication(False, 115200, 0, 1, 1.5, 3.5)",
        "  set_tcp(p[0.0,.02,.12,0.0,0.0,0.0])",
        "  set_payload(1.0, [0.0, 0.0, .05])",
        "  set_gravity([0.0, 0.0, 9.82])",
        "  set_tool_voltage(24)",
        "  global step_count = 0.0",
        "  thread Step_Counter_Thread():",
        "    while (True):",
        "      step_count = step_count + 1.0",
        "      sync()",
        "    end",
        "  end",
        "  run Step_Counter_Thread()",
        f"  global Waypoint_1_p={ur_pose_text(T[0])}",
        f"  global Waypoint_1_q={q_near}",
        f"  global Waypoint_2_p={ur_pose_text(T[1])}",
        "  $ 1 \"Robot Program\"",
        "  $ 2 \"MoveJ\"",
        "  $ 3 \"Waypoint_1\" \"breakAfter\"",
        "  movej(get_inverse_kin(Waypoint_1_p, qnear=Waypoint_1_q), a=1.3962634015954636, v=1.0471975511965976)",
        "  while (True):",
        "    $ 4 \"MoveL\"",
        "    movel(Waypoint_2_p, a=1.2, v=0.25)  # a comment",
        "    movel(pose_trans(Waypoint_2_p, p[0, 0, -.02, 0, 0, 0]), a=1.2,",
        "          v=0.1)",
        f"    movec({ur_pose_text(T[2])}, {ur_pose_text(T[4])}, a=1.2, v=0.1, r=0, mode=0)",
        "    sleep(0.5)",
        f"    movej({q_text}, a=1.4, v=1.05)",
        f"    movep({ur_pose_text(T[5])}, a=1.2, v=0.25, r=0.001)",
        "  end",
        "end",
        "",
    ])
    R3, p3 = fk(model, q[3])
    expected = [written[0], written[1], written[1] @ offset, written[2], written[4],
                transform(R3, p3) @ tool, written[5]]
    qs = [None] * 5 + [q[3]] + [None]
    q_nom = np.stack([q[0], q[1], q[1], q[2], q[4], q[3], q[5]])
    return URCase(text=text, T_world_tcp=expected, q=qs, q_nominal=q_nom, tool=tool)


def _read_ur_pose(text: str):
    nums = [float(x) for x in text[2:-1].split(",")]
    return transform(matrix_from_rotvec(np.array(nums[3:])), np.array(nums[:3]))


def assert_same_steps(fast, plain) -> None:
    """Two readings of one program (a run's and the general rules') hold the same steps: motions with the same
    arguments and points, poses and joints to the bit."""
    assert (fast.unsupported, fast.notes, fast.entry, fast.newline) == \
        (plain.unsupported, plain.notes, plain.entry, plain.newline)
    np.testing.assert_array_equal(fast.motion_steps, plain.motion_steps)
    np.testing.assert_array_equal(fast.wait_seconds, plain.wait_seconds)
    assert [s for s in fast.steps if isinstance(s, Wait)] == [s for s in plain.steps if isinstance(s, Wait)]
    assert len(fast.motions) == len(plain.motions)
    for a, b in zip(fast.motions, plain.motions):
        assert (a.instruction, a.kind, a.statement, a.name, a.tcp_speed, a.orientation_speed, a.joint_speed,
                a.acceleration, a.duration_s) == (b.instruction, b.kind, b.statement, b.name, b.tcp_speed,
                                                  b.orientation_speed, b.joint_speed, b.acceleration, b.duration_s)
        assert len(a.points) == len(b.points)
        for p, q in zip(a.points, b.points):
            assert (p.confdata, p.text, p.argument, p.extax, p.name, p.whole_argument) == \
                (q.confdata, q.text, q.argument, q.extax, q.name, q.whole_argument)
            for x, y in ((p.T_world_tcp, q.T_world_tcp), (p.T_world_frame, q.T_world_frame),
                         (p.T_flange_tcp, q.T_flange_tcp), (p.q, q.q)):
                assert (x is None) == (y is None)
                if x is not None:
                    np.testing.assert_array_equal(x, y)


def general_rules_form(text: str, language: str = "rapid") -> str:
    """``text`` with the space after each motion instruction a form feed: whitespace to the general rules, but
    no statement of a run of plain motions (a ``MOVES`` token) any more. The same offsets, lines and columns:
    the program the general rules read, statement by statement, to compare a run's reading with."""
    if language == "rapid":
        return re.sub(r"(?i)\b(MoveL|MoveJ|MoveC|MoveAbsJ)([ \t])", "\\1\f", text)
    return re.sub(r"\b(movel|movej|movep)\(((?:pose_trans\([^,()\n]*,[ \t]*)?p?\[[^,\]\n]*),[ \t]", "\\1(\\2,\f",
                  text)



@dataclass
class URCapExport:
    text: str
    #: Expected TCP pose of each Cartesian motion of one cycle, in order, base frame [m].
    T_world_tcp: list
    #: The line of each of those motions.
    lines: list


def urcap_export(rng: np.random.Generator, layers: int = 8, per_layer: int = 12, calls: int = 4,
                 waypoints: int = 12) -> URCapExport:
    """A PolyScope export with a URCap's preamble, the shape that hung the reader (issue 35).

    The preamble is written as PolyScope copies a gripper URCap's installation node into the program
    (Robotiq's and OnRobot's: aliases, globals, a status thread, then functions): ``layers`` levels of
    ``per_layer`` functions, each calling ``calls`` functions of the level below from an ``if``/``elif`` on its
    argument (a call tree of ``(2 calls) ** layers`` paths), the lowest talking to a socket and polling it in a
    ``while``. Then PolyScope's main program: waypoints as globals, the gripper's calls, a main loop of
    ``movej(get_inverse_kin(..., qnear=...))`` and ``movel``, a motion inside an ``if`` on an input and one after
    a "Wait" on a button. Targets: the nominal FK of configurations inside the UR5's limits, with the TCP.
    """
    chain = load_robot("ur5")
    q = random_configurations(chain, rng, waypoints)
    R, p = fk(nominal_model(chain), q)
    tcp = transform(np.eye(3), np.array([0.0, 0.0, 0.15]))
    T = transform(R, p) @ tcp
    out = ["def unnamed():", "  global _hidden_verificationVariable=0", "  set_standard_analog_input_domain(0, 1)",
           "  set_tool_communication(False, 115200, 0, 1, 1.5, 3.5)", "  set_tcp(p[0.0,0.0,0.15,0.0,0.0,0.0])",
           "  set_payload(1.0, [0.0, 0.0, 0.05])", "  set_gravity([0.0, 0.0, 9.82])",
           "  # begin: URCap Installation Node", "  #   Source: Robotiq_Grippers, 1.7.1.2, Robotiq Inc.",
           "  #   Type: Gripper", "  ACT = 1", "  GTO = 2", "  global rq_obj_detect = 0",
           "  global gripper_connected = [False, False, False, False]",
           "  thread rq_status_thread():", "    while (True):", "      rq_obj_detect = read_input_integer_register(0)",
           "      sync()", "    end", "  end"]
    for level in range(layers):
        for k in range(per_layer):
            out.append(f'  def rq_f{level}_{k}(var_name, value=0, gripper_socket="1"):')
            out.append("    sync()")
            if level == 0:
                out += ['    socket_set_var(var_name, value, gripper_socket)',
                        '    ack = socket_read_byte_list(3, gripper_socket)',
                        '    while (not ack == [3, 97, 99, 107]):', '      textmsg("rq: retry ", var_name)',
                        '      ack = socket_read_byte_list(3, gripper_socket)', '      sync()', '    end',
                        '    return ack']
            for c in range(calls if level else 0):
                callee = f"rq_f{level - 1}_{(k + c) % per_layer}"
                out += ["    if (var_name == ACT):", f"      {callee}(var_name, value, gripper_socket)",
                        "    elif (var_name == GTO):", f'      status = {callee}("GTO", 1, gripper_socket)', "    end"]
            out.append("  end")
    top = f"rq_f{layers - 1}_0"
    out += ["  # end: URCap Installation Node"]
    for i in range(waypoints):
        out.append(f"  global Waypoint_{i + 1}_p={ur_pose_text(T[i])}")
        joints = ", ".join(f"{x:.12g}" for x in q[i])
        out.append(f"  global Waypoint_{i + 1}_q=[{joints}]")
    out += ['  $ 1 "BeforeStart"', '  $ 2 "Gripper Activate"', f"  {top}(ACT, 1)",
            "  threadId_rq = run rq_status_thread()", "  while (True):", '    $ 3 "Robot Program"']
    lines, want = [], []
    for i in range(waypoints):
        out.append(f'    $ {4 + i} "Waypoint_{i + 1}"')
        if i % 4 == 1:
            out.append("    if (get_standard_digital_in(0) == True):")
            out.append(f"      movel(Waypoint_{i + 1}_p, a=1.2, v=0.25)")
            out.append("    end")
            lines.append(len(out) - 1)
        elif i % 4 == 3:
            out.append("    while (not(get_standard_digital_in(1) == True)):")
            out.append("      sync()")
            out.append("    end")
            out.append(f"    movel(Waypoint_{i + 1}_p, a=1.2, v=0.25)")
            lines.append(len(out))
        else:
            out.append(f"    movej(get_inverse_kin(Waypoint_{i + 1}_p, qnear=Waypoint_{i + 1}_q), a=1.39, v=1.04)")
            lines.append(len(out))
        want.append(T[i])
        if i % 3 == 2:
            out.append(f"    {top}(GTO, 255)")
    out += ["  end", "end", ""]
    return URCapExport("\n".join(out), want, lines)


#: The tool the URCap-like exports set (:func:`urcap_like`): 0.15 m along the flange's z.
UR_TOOL = "p[0.0, 0.0, 0.15, 0.0, 0.0, 0.0]"


def urcap_like(levels: int, per_level: int, patterns: int, waypoints: int, rng) -> tuple[str, list[int], list]:
    """A PolyScope export whose preamble is a URCap's machinery (the shape of a real 5,830-line export that ran
    into the statement bound): a status thread polling a register; ``wait_idle`` polling a command in a ``while``
    of unknown count with a ``return`` inside; ``exec_cmd`` keeping a counter and a 10-entry history (a counted
    ``while``); ``levels`` levels of ``per_level`` wrappers, each ``if (enabled):`` (a run-time flag) sending a
    command, else calling two wrappers of the level below (the lowest sets the tool), so every call is a tree of
    ``2 ** levels`` calls; ``patterns`` functions moving in a ``while (ok() and c < n)``; then the main loop: a
    dispatcher on a socket's command and ``waypoints`` fixed waypoints, each followed by a wrapper's call.
    Returns the text, the lines of the waypoints' motions and their poses."""
    out = ["def prog():", f"  set_tcp({UR_TOOL})", "  global busy = 0", "  global cmd = 0", "  global waits = 0",
           "  global restarts = 0", "  global arg_a = 0", "  global hist = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0]",
           "  global enabled = read_input_boolean_register(0)",
           "  thread poll_thread():", "    while (True):", "      global busy = read_input_integer_register(1)",
           "      sync()", "    end", "  end",
           "  def ok():", "    return busy == 0", "  end",
           "  def wait_idle(stop_on_error=False):", "    while (cmd > 0):", "      global waits = waits + 1",
           "      if (stop_on_error and not ok()):", "        return None", "      end", "      sync()", "    end",
           "  end",
           "  def exec_cmd(c, a=0):", "    wait_idle()", "    global arg_a = a", "    local i = 9", "    while (i > 0):",
           "      hist[i] = hist[i - 1]", "      i = i - 1", "    end", "    hist[0] = c", "    global cmd = c",
           "    global restarts = restarts + 1", "    wait_idle(True)", "  end"]
    for level in range(levels):
        for k in range(per_level):
            out.append(f"  def h{level}_{k}(x=0):")
            if level == 0:
                out += ["    if (enabled):", f"      exec_cmd({k + 1}, x)", "    else:", f"      set_tcp({UR_TOOL})",
                        f"      global state_{k} = x", "    end"]
            else:
                out += ["    if (enabled):", f"      exec_cmd({k + 1}, x)", "    else:", f"      h{level - 1}_{k}(x)",
                        f"      h{level - 1}_{(k + 1) % per_level}(x + 1)", "    end", f"    global n{level}_{k} = x"]
            out.append("  end")
    top = [f"h{levels - 1}_{k}" for k in range(per_level)]
    for k in range(patterns):
        out += [f"  def pattern_{k}(n):", "    local c = 0", "    while (ok() and c < n):",
                f"      movel(p[0.4, {0.01 * k:.3f}, 0.3, 0.0, 3.14, 0.0], a=1.2, v=0.25)",
                f"      {top[k % per_level]}(c)", "      c = c + 1", "    end", f"    {top[(k + 1) % per_level]}(n)",
                "  end"]
    out += ["  run poll_thread()", f"  {top[0]}(0)"]
    poses = [[round(0.35 + 0.1 * rng.random(), 6), round(0.2 * rng.random() - 0.1, 6),
              round(0.25 + 0.1 * rng.random(), 6), 0.0, 3.14, 0.0] for _ in range(waypoints)]
    for i, pose in enumerate(poses):
        out.append(f"  global Waypoint_{i + 1}_p = p[{', '.join(f'{v:.6f}' for v in pose)}]")
    out += ["  while (True):", "    command = socket_read_ascii_float(2)", "    if (command[1] == 40):"]
    out += [f"      pattern_{k}(3)" for k in range(patterns)]
    out += ["    end"]
    lines = []
    for i in range(waypoints):
        out.append(f"    movel(Waypoint_{i + 1}_p, a=1.2, v=0.25)")
        lines.append(len(out))
        out.append(f"    {top[i % per_level]}({i})")
    out += ["  end", "end", ""]
    return "\n".join(out), lines, poses


def refusal_of(path, text: str) -> InputError:
    """The :class:`InputError` that reading ``text``, written at ``path`` (its suffix: the language), raises."""
    from thermocomp.programs import read_program

    path.write_text(text)
    with pytest.raises(InputError) as info:
        read_program(path)
    return info.value


def read_module(tmp_path, head: str, body: str):
    """The program read from the RAPID module ``head`` + ``body`` + ``ENDMODULE``, written as ``cell.mod`` in
    ``tmp_path``."""
    from thermocomp.programs import read_program

    path = tmp_path / "cell.mod"
    path.write_text(head + body + "ENDMODULE\n")
    return read_program(path)


def read_main_module(tmp_path, text: str):
    """``text`` written as MainModule.mod in ``tmp_path``, read."""
    from thermocomp.programs import read_program

    path = tmp_path / "MainModule.mod"
    path.write_text(text)
    return read_program(path)


def xyz_mm(prog) -> list[list[float]]:
    """Each point's TCP position in the world [mm], rounded to 1 nm."""
    return [[round(v * 1000.0, 6) for v in p.T_world_tcp[:3, 3]] for p in prog.points]
