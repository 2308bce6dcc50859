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
#: The manual's functions that move nothing, by module.
QUIET = {
    # Module motion
    "conveyor_pulse_decode", "encoder_enable_pulse_decode", "encoder_enable_set_tick_count", "encoder_get_tick_count",
    "encoder_set_tick_count", "encoder_unwind_delta_tick_count", "end_freedrive_mode", "end_screw_driving",
    "end_teach_mode", "force_mode_get_damping", "force_mode_get_gain_scaling", "force_mode_set_damping",
    "force_mode_set_gain_scaling", "get_conveyor_tick_count", "get_freedrive_status", "get_target_tcp_pose_along_path",
    "get_target_tcp_speed_along_path", "jerk_gain_scaling_get", "jerk_gain_scaling_set", "motion_version_get",
    "motion_version_set", "path_offset_disable", "path_offset_get", "path_offset_set_alpha_filter",
    "path_offset_set_max_offset", "pause_on_error_code", "position_deviation_warning", "reset_revolution_counter",
    "servostop", "set_conveyor_tick_count", "set_safety_mode_transition_hardness", "stop_conveyor_tracking", "stopj",
    "stopl", "tool_wrench_limit_disable", "tool_wrench_limit_set",
    # Module internals
    "estimate_payload", "force", "get_actual_joint_accelerations", "get_actual_joint_positions",
    "get_actual_joint_positions_history", "get_actual_joint_speeds", "get_actual_tcp_pose", "get_actual_tcp_speed",
    "get_actual_tool_flange_pose", "get_base_acceleration", "get_controller_temp",
    "get_coriolis_and_centrifugal_torques", "get_forward_kin", "get_gravity", "get_inverse_kin",
    "get_inverse_kin_has_solution", "get_jacobian", "get_jacobian_time_derivative", "get_joint_temp",
    "get_joint_torques", "get_mass_matrix", "get_steptime", "get_target_joint_accelerations",
    "get_target_joint_positions", "get_target_joint_speeds", "get_target_payload", "get_target_payload_cog",
    "get_target_payload_inertia", "get_target_tcp_pose", "get_target_tcp_speed", "get_target_waypoint",
    "get_tcp_force", "get_tcp_offset", "get_tool_accelerometer_reading", "get_tool_current", "get_tool_temp",
    "high_holding_torque_disable", "high_holding_torque_enable", "is_steady", "is_within_safety_limits", "popup",
    "powerdown", "protective_stop", "set_base_acceleration", "set_baselight_iec", "set_baselight_off",
    "set_baselight_solid", "set_gravity", "set_payload", "set_payload_cog", "set_payload_mass", "set_target_payload",
    "sleep", "str_at", "str_cat", "str_empty", "str_find", "str_len", "str_sub", "sync", "textmsg", "time", "to_num",
    "to_str", "tool_contact",
    # Module urmath, and the data types' struct
    "acos", "asin", "atan", "atan2", "binary_list_to_integer", "ceil", "cos", "d2r", "floor", "get_list_length",
    "integer_to_binary_list", "interpolate_pose", "inv", "length", "log", "make_list", "norm", "normalize",
    "point_dist", "pose_add", "pose_dist", "pose_inv", "pose_sub", "pose_trans", "pow", "r2d", "random", "rotvec2rpy",
    "rpy2rotvec", "sin", "size", "sqrt", "struct", "tan", "transpose", "wrench_trans",
    # Module interfaces
    "enable_external_ft_sensor", "ft_rtde_input_enable", "get_analog_in", "get_analog_out",
    "get_configurable_digital_in", "get_configurable_digital_out", "get_digital_in", "get_digital_out",
    "get_euromap_input", "get_euromap_output", "get_flag", "get_rtde_value", "get_standard_analog_in",
    "get_standard_analog_out", "get_standard_digital_in", "get_standard_digital_out", "get_tool_analog_in",
    "get_tool_digital_in", "get_tool_digital_out", "modbus_add_rw_signal", "modbus_add_signal", "modbus_delete_signal",
    "modbus_get_error", "modbus_get_signal_status", "modbus_get_time_since_signal_invalid", "modbus_reset_connection",
    "modbus_send_custom_command", "modbus_set_digital_input_action", "modbus_set_output_register",
    "modbus_set_output_signal", "modbus_set_signal_update_frequency", "modbus_set_signal_watchdog",
    "read_input_boolean_register", "read_input_float_register", "read_input_integer_register",
    "read_output_boolean_register", "read_output_float_register", "read_output_integer_register", "read_port_bit",
    "read_port_register", "request_boolean_from_primary_client", "request_float_from_primary_client",
    "request_integer_from_primary_client", "request_string_from_primary_client", "rpc_factory", "rtde_set_watchdog",
    "set_analog_inputrange", "set_analog_out", "set_configurable_digital_out", "set_digital_out", "set_euromap_output",
    "set_flag", "set_standard_analog_out", "set_standard_digital_out", "set_tool_communication",
    "set_tool_digital_out", "set_tool_digital_output_mode", "set_tool_output_mode", "set_tool_voltage", "socket_close",
    "socket_get_var", "socket_open", "socket_read_ascii_float", "socket_read_binary_integer", "socket_read_byte_list",
    "socket_read_line", "socket_read_string", "socket_send_byte", "socket_send_int", "socket_send_line",
    "socket_send_string", "socket_set_var", "write_output_boolean_register", "write_output_float_register",
    "write_output_integer_register", "write_port_bit", "write_port_register", "zero_ftsensor",
    # Module ioconfiguration
    "modbus_set_runstate_dependent_choice", "set_analog_outputdomain", "set_configurable_digital_input_action",
    "set_euromap_runstate_dependent_choice", "set_gp_boolean_input_action", "set_input_actions_to_default",
    "set_runstate_configurable_digital_output_to_value", "set_runstate_gp_boolean_output_to_value",
    "set_runstate_standard_analog_output_to_value", "set_runstate_standard_digital_output_to_value",
    "set_runstate_tool_digital_output_to_value", "set_standard_analog_input_domain",
    "set_standard_digital_input_action", "set_tool_analog_input_domain", "set_tool_digital_input_action",
    # Module world model
    "add_frame", "attach_frame", "convert_pose", "delete_all_frames", "delete_frame", "frame_tracking_disable",
    "get_children", "get_frame_parent", "get_pose", "is_frame", "move_frame", "reset_world_model",
    "set_mass_properties", "set_payload_from_attached_frames",
    # ROS 2 (PolyScope X)
    "ros_action_client_factory", "ros_publisher_factory", "ros_service_client_factory", "ros_subscriber_factory",
    # CB3 SW 3.x (deprecated there)
    "set_runstate_outputs", "varmsg",
}
MOTION = "movel(p[0.4, 0.1, 0.3, 0.0, 3.14, 0.0], a=1.2, v=0.25)\n"


def _name(signature: str) -> str:
    return signature.split("(")[0]


def test_each_function_of_the_manual_is_in_its_class_and_thermocomp_knows_no_other():
    followed, refused = {_name(s) for s in FOLLOWED}, {_name(s) for s in REFUSED}
    assert not (followed & refused or followed & QUIET or refused & QUIET)
    assert set(MOTIONS) | {"set_tcp"} == followed | {"set_tcp"} and "set_tcp" not in QUIET_CALLS | UNSUPPORTED_CALLS
    assert UNSUPPORTED_CALLS == refused
    assert QUIET_CALLS == QUIET
    assert KNOWN_CALLS == followed | refused | QUIET | {"set_tcp"}


@pytest.mark.parametrize("signature", sorted(REFUSED))
def test_a_function_that_moves_in_a_way_not_followed_is_refused_at_its_line(signature):
    """Its arguments are the manual's parameter names, unknown here: the call is refused by its name alone."""
    prog = urscript_program_from_text(MOTION + signature.split("(")[0] + "(x)\n" + MOTION, "refused.script")
    assert [(u.line, u.message) for u in prog.unsupported] == [
        (2, f"{_name(signature)} is not followed (thermocomp compensates movej, movel, movep, movec)")]


def test_the_functions_that_move_nothing_are_kept_without_a_note_or_a_refusal():
    """Each called once between two motions (``sleep`` with its time): nothing refused, no name noted, both motions
    compensated."""
    calls = "".join(f"{name}({'0.1' if name == 'sleep' else ''})\n" for name in sorted(QUIET))
    prog = urscript_program_from_text(MOTION + calls + MOTION, "quiet.script")
    assert prog.unsupported == ()
    assert [n.message for n in prog.notes if "neither a function" in n.message] == []
    assert [m.statement.line for m in prog.motions] == [1, len(QUIET) + 2]


@pytest.mark.parametrize("name", ["set_gripper_width", "get_part_pose", "pose_from_camera", "is_part_there",
                                  "read_barcode", "socket_flush", "abs"])
def test_a_name_only_shaped_as_the_manuals_is_noted_as_found_nowhere(name):
    """Taken for a quiet function of the manual by its first letters, it was passed over in silence; it is a URCap's
    (or a later release's) function, passed over with the note that names it and its line."""
    prog = urscript_program_from_text(MOTION + f"{name}(1)\n" + MOTION, "urcap.script")
    assert prog.unsupported == ()
    assert [(n.line, n.message.split(" is ")[0]) for n in prog.notes if "neither a function" in n.message] == [
        (2, name)]
