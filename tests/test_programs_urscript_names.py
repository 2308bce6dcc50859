"""Every built-in function of the URScript manual is in one class: a motion thermocomp follows, one that moves the
robot in a way thermocomp does not follow (refused where it runs), or one that moves nothing (kept as written).

The names below are written from the manual's syntax ("The URScript Programming Language", e-Series SW 5.x up to
5.24 and PolyScope X 10.11, CB3 SW 3.x; the function index as github.com/ahernguo/urscript-extension tabulates it),
not from thermocomp's lists: a function of the manual missing from every list, or one in the wrong list, fails here.
A name in none of them that the script does not define is a URCap's: passed over with a note naming it, never in
silence (a name that only begins as the manual's do, ``set_``, ``get_``, ``pose_``, is no function of the manual).
"""

from __future__ import annotations

import pytest

from thermocomp.programs.urscript import urscript_program_from_text
from thermocomp.programs.urscript_flow import KNOWN_CALLS, QUIET_CALLS, UNSUPPORTED_CALLS
from thermocomp.programs.urscript_motions import MOTIONS

#: Motions followed (Module motion), and set_tcp (Module internals: the tool, followed as the motions' TCP).
FOLLOWED = {
    "movej(q, a=1.4, v=1.05, t=0, r=0)", "movel(pose, a=1.2, v=0.25, t=0, r=0)", "movep(pose, a=1.2, v=0.25, r=0)",
    "movec(pose_via, pose_to, a=1.2, v=0.25, r=0, mode=0)", "servoc(pose, a=1.2, v=0.25, r=0)",
    "optimovej(q, a=0.3, v=0.3, r=0)", "optimovel(pose, a=0.3, v=0.3, r=0)",
}
#: The manual's functions that move the robot in ways not followed: speed, servo, force, torque and hand guidance,
#: path offsets, conveyor and frame tracking, the simulated robot's set_pos, the interpreter's statements.
REFUSED = {
    "speedj(qd, a, t)", "speedl(xd, a, t, aRot='a')", "servoj(q, a, v, t=0.002, lookahead_time=0.1, gain=300)",
    "force_mode(task_frame, selection_vector, wrench, type, limits)", "end_force_mode()", "screw_driving(f, v_limit)",
    "freedrive_mode(freeAxes=[1, 1, 1, 1, 1, 1], feature=p[0, 0, 0, 0, 0, 0])",
    "freedrive_mode_no_incorrect_payload_check()", "teach_mode()", "direct_torque(torques, friction_comp=True)",
    "torque_command(torques, friction_comp=True)", "path_offset_enable()", "path_offset_set(offset, type)",
    "track_conveyor_linear(direction, ticks_per_meter, encoder_index=0)",
    "track_conveyor_circular(center, ticks_per_revolution, rotate_tool, encoder_index=0)",
    "frame_tracking_enable(frame_name)", "set_pos(q)",
    "interpreter_mode(clearQueueOnEnter=True, clearOnEnd=True)",
}
#: A sample of the manual's functions that move nothing, a few of each module (every name of thermocomp's list is
#: run below: none is refused or noted).
QUIET = {
    "stopj", "stopl", "servostop", "position_deviation_warning", "force_mode_set_damping", "path_offset_disable",  # motion
    "get_actual_tcp_pose", "get_inverse_kin", "set_payload", "set_gravity", "sleep", "textmsg", "popup",  # internals
    "pose_trans", "pose_inv", "interpolate_pose", "rpy2rotvec", "struct", "norm",  # urmath
    "set_standard_digital_out", "read_input_float_register", "socket_open", "rpc_factory", "modbus_add_signal",
    "set_tool_voltage",  # interfaces
    "set_standard_digital_input_action", "set_gp_boolean_input_action",  # ioconfiguration
    "add_frame", "get_pose", "frame_tracking_disable",  # world model
    "ros_publisher_factory", "varmsg",  # ROS 2 (PolyScope X); CB3 SW 3.x
}
MOTION = "movel(p[0.4, 0.1, 0.3, 0.0, 3.14, 0.0], a=1.2, v=0.25)\n"


def _name(signature: str) -> str:
    return signature.split("(")[0]


def test_each_function_of_the_manual_is_in_its_class_and_thermocomp_knows_no_other():
    followed, refused = {_name(s) for s in FOLLOWED}, {_name(s) for s in REFUSED}
    assert not (followed & refused or followed & QUIET or refused & QUIET)
    assert set(MOTIONS) | {"set_tcp"} == followed | {"set_tcp"} and "set_tcp" not in QUIET_CALLS | UNSUPPORTED_CALLS
    assert UNSUPPORTED_CALLS == refused
    assert QUIET <= QUIET_CALLS and not (QUIET_CALLS & (followed | refused))
    assert KNOWN_CALLS == followed | refused | QUIET_CALLS | {"set_tcp"}


@pytest.mark.parametrize("signature", sorted(REFUSED))
def test_a_function_that_moves_in_a_way_not_followed_is_refused_at_its_line(signature):
    """Its arguments are the manual's parameter names, unknown here: the call is refused by its name alone."""
    prog = urscript_program_from_text(MOTION + signature.split("(")[0] + "(x)\n" + MOTION, "refused.script")
    assert [(u.line, u.message) for u in prog.unsupported] == [
        (2, f"{_name(signature)} is not followed (thermocomp compensates movej, movel, movep, movec)")]


def test_the_functions_that_move_nothing_are_kept_without_a_note_or_a_refusal():
    """Each called once between two motions (``sleep`` with its time): nothing refused, no name noted, both motions
    compensated."""
    calls = "".join(f"{name}({'0.1' if name == 'sleep' else ''})\n" for name in sorted(QUIET_CALLS))
    prog = urscript_program_from_text(MOTION + calls + MOTION, "quiet.script")
    assert prog.unsupported == ()
    assert [n.message for n in prog.notes if "neither a function" in n.message] == []
    assert [m.statement.line for m in prog.motions] == [1, len(QUIET_CALLS) + 2]


@pytest.mark.parametrize("name", ["set_gripper_width", "get_part_pose", "pose_from_camera", "is_part_there",
                                  "read_barcode", "socket_flush", "abs"])
def test_a_name_only_shaped_as_the_manuals_is_noted_as_found_nowhere(name):
    """Taken for a quiet function of the manual by its first letters, it was passed over in silence; it is a URCap's
    (or a later release's) function, passed over with the note that names it and its line."""
    prog = urscript_program_from_text(MOTION + f"{name}(1)\n" + MOTION, "urcap.script")
    assert prog.unsupported == ()
    assert [(n.line, n.message.split(" is ")[0]) for n in prog.notes if "neither a function" in n.message] == [
        (2, name)]
