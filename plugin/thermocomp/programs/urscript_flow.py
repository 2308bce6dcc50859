"""URScript's control flow and calls as the reader follows them (part of :mod:`thermocomp.programs.urscript`).

The rule: **a motion's data decide, not the control flow around it**. A branch or loop whose course is known
before running is followed; one known only while running along every branch, the paths joined after it. A loop of
unknown count, PolyScope's main loop and a thread follow their body once from the state at their head
(:meth:`Flow.settle`). Reading is linear: what each function and construct may do is found once (:class:`Summary`),
a call from a state met before is done again, not run, and the work is bounded (:data:`.calls.MAX_STATEMENTS_RUN`).
"""

from __future__ import annotations

import contextlib
from collections import Counter
from copy import copy
from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np
from lark import Token, Tree

from thermocomp.geometry.rotations import invert_transform
from thermocomp.programs import calls
from thermocomp.programs import passes as pass_tables
from thermocomp.programs.calls import MAX_QUIET_WORK
from thermocomp.programs.grammars import line_col, parse_at, span_of, without_runs
from thermocomp.programs.model import Finding, Motion, MotionRun, Point, Wait
from thermocomp.programs.urscript_motions import MOTIONS, PARAMETERS
from thermocomp.programs.urscript_values import (
    BUILTINS,
    STANDING_POSE,
    Binding,
    Pose,
    State,
    Unsupported,
    assignment,
    root_name,
    same_state,
    split_arguments,
)

# Every built-in function of the URScript manual is in one class: a motion thermocomp follows (:data:`MOTIONS`, and
# ``set_tcp``, the tool), one that moves the robot in a way thermocomp does not follow (:data:`UNSUPPORTED_CALLS`:
# refused where it runs) or one that moves nothing a motion's path reads (:data:`QUIET_CALLS`: kept as written). The
# names are the manual's function index ("The URScript Programming Language", e-Series SW 5.x up to 5.24 and
# PolyScope X 10.11, CB3 SW 3.x) as github.com/ahernguo/urscript-extension tabulates it from the manual's syntax
# (src/*Functions.json at commit e12f11b, "functions updated to Polyscope 10.11 / 5.24", and src/functions.json
# before 78abb22 for the CB3-era names: servoc, set_pos ...); tests/test_programs_urscript_names.py holds each class.
# A name in none of them that the script does not define (a URCap's, a later release's) is passed over with a note
# naming it (:meth:`Flow.note_found_nowhere`), never in silence: no prefix stands for a class.

#: The manual's functions that move the robot in ways thermocomp does not follow.
UNSUPPORTED_CALLS = frozenset((
    "speedj", "speedl", "servoj",  # (speed and servo control: targets streamed while running)
    "force_mode", "end_force_mode", "screw_driving",  # (the TCP yields to forces; force mode's end with it)
    "freedrive_mode", "freedrive_mode_no_incorrect_payload_check", "teach_mode",  # (moved by hand)
    "direct_torque", "torque_command",  # (torque control; torque_command: SW 5.22's name, as UR's client library's
    # resources/external_control_impedance.urscript calls it)
    "path_offset_enable", "path_offset_set",  # (an offset superimposed on every motion's path)
    "track_conveyor_linear", "track_conveyor_circular", "frame_tracking_enable",  # (motions follow a moving frame)
    "set_pos",  # ("Set joint positions of simulated robot": the robot jumps there)
    "interpreter_mode",  # (SW 5.10: runs the statements a client sends to port 30020 while running, UR's article
    # "Interpreter mode", universal-robots.com/articles/ur/programming/interpreter-mode)
))

#: The manual's functions that move nothing (they compute, read, write I/O, talk, wait, set the payload, a mode or a
#: limit no path reads, or bring a speed motion to rest where it stands: ``stopj``, ``path_offset_disable``), and
#: :data:`BUILTINS`, the math it evaluates: kept as they are.
QUIET_CALLS = frozenset((
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
    # Module urmath (and the data types' ``struct``)
    "binary_list_to_integer", "get_list_length", "integer_to_binary_list", "inv", "length", "make_list", "pose_dist",
    "random", "size", "struct", "transpose", "wrench_trans",
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
    # Module world model (frames of the world model: a motion's targets are in the base frame; tracking is refused)
    "add_frame", "attach_frame", "convert_pose", "delete_all_frames", "delete_frame", "frame_tracking_disable",
    "get_children", "get_frame_parent", "get_pose", "is_frame", "move_frame", "reset_world_model",
    "set_mass_properties", "set_payload_from_attached_frames",
    # ROS 2 (PolyScope X)
    "ros_action_client_factory", "ros_publisher_factory", "ros_service_client_factory", "ros_subscriber_factory",
    # CB3 SW 3.x, deprecated there and gone from e-Series
    "set_runstate_outputs", "varmsg",
    *BUILTINS,
))

#: Every function thermocomp knows by its name: a call of any other the script does not define is noted.
KNOWN_CALLS = frozenset(MOTIONS) | UNSUPPORTED_CALLS | QUIET_CALLS | {"set_tcp"}

#: A ``while`` with a known condition is unrolled up to this many passes (as RAPID's FOR).
MAX_WHILE_PASSES = 100_000

#: Most passes of a loop's body followed to find the state at its head (Flow.settle).
MAX_SETTLE = 3


def _names(node: Tree) -> Counter:
    """How many times each name is written in ``node``."""
    return Counter(str(t) for t in node.scan_values(lambda v: isinstance(v, Token) and v.type == "NAME"))


@dataclass(frozen=True)
class Summary:
    """What a function of the file, or a construct's statements, may do (with the functions they call), found once.

    ``holds``: the first node that could change how or where the robot moves (a recursive call's function name), or
    None. ``assigns``: the globals they may assign. ``size``: at least how many motions, calls and loop passes they
    run. ``moves``: they hold a motion. ``jumps``/``returns``: a ``break``/``continue``, a ``return`` leaves them;
    ``breaks``: a ``break`` of theirs (not of a loop inside them) leaves them.
    ``changes``: their assignments and ``set_tcp`` calls (:meth:`Flow.facts`). ``reads``: the names they read,
    sorted; ``stands``: they read the pose the robot stands at; ``elements``: a motion reads a list's element;
    ``cyclic``: they reach a recursive cycle (a call of them is never done again from memory).
    """

    holds: Tree | str | None
    assigns: frozenset[str]
    size: int
    moves: bool
    jumps: bool = False
    returns: bool = False
    changes: tuple = ()
    reads: tuple[str, ...] = ()
    stands: bool = False
    elements: bool = False
    cyclic: bool = False
    breaks: bool = False


@dataclass(frozen=True)
class _Left:
    """How statements were left before their end: ``kind`` ``break``, ``continue``, ``return`` (``value``: None if
    none or unknown), ``end`` (:data:`_END`: a path under an unresolved condition left, its state kept where it
    jumps) or ``uncounted`` (a loop being unrolled is of a count known only while running after all)."""

    kind: str
    value: object = None


_END, _UNCOUNTED = _Left("end"), _Left("uncounted")


@dataclass
class _Frame:
    """A running function (a thread's: no ``name``) or a loop followed in one (``counted``: unrolled): the depth of
    unresolved conditions at its start, ``quiet`` (it moves nothing and changes nothing a motion reads), the ``(kind,
    state, value)`` each ``return`` (a loop's: ``break``, ``continue``) under such conditions leaves it with, its loops."""

    depth: int
    name: str | None = None
    quiet: bool = False
    counted: bool = False
    exits: list = field(default_factory=list)
    loops: list = field(default_factory=list)
    condition: Tree | None = None  # (a counted loop's but a while True's: the counters it reads index a table,
    # Flow.index_counters)
    jumps: bool = False  # (a counted loop's body holds a break: its motions' counters are kept, Flow.index_counters)


@contextlib.contextmanager
def _on(stack: list, item):
    """``item`` on top of ``stack`` while the block runs."""
    stack.append(item)
    try:
        yield
    finally:
        stack.pop()


class Flow(calls.Texts):
    """The walker's control flow and calls (mixed into the walker)."""

    UNROLLED = "the file; its loops and calls unrolled"

    # ----- bounds
    def count(self, n: int, where) -> None:
        """``n`` more motions, calls or loop passes: past :attr:`max_motions` the script is refused, at ``where``."""
        self.unrolled += n
        if self.unrolled > self.max_motions:
            raise self.error(f"the script unrolls to more than {self.max_motions:,} motions, calls and loop passes "
                             f"(--max-motions {self.max_motions:,}); refused at this statement", where)

    def note_once(self, note: Finding, key=None) -> None:
        """``note`` added unless it (or, given ``key``, a note of that key with its message) stands in the notes."""
        at = self._noted.get(note if key is None else key)
        if at is not None and at < len(self.notes) and (
                self.notes[at] == note if key is None else self.notes[at].message == note.message):
            return
        self._noted[note if key is None else key] = len(self.notes)
        self.notes.append(note)

    # ----- what functions and constructs do, found once
    def _once(self, key, find, pending=None):
        """``find()``, found once per ``key``; ``pending``: the value while it is being found."""
        if key not in self._summaries:
            self._summaries[key] = pending
            self._summaries[key] = find()
        return self._summaries[key]

    def summary(self, name: str, thread: bool = False) -> Summary:
        """:class:`Summary` of the file's function ``name`` (or thread) with its parameters' defaults, a call of it
        counted (while it is being found, a recursive call's summary holds the function's name)."""
        definition = (self.threads if thread else self.functions)[name]
        return self._once(("thread", name) if thread else name, lambda: self._walk(
            self.body_of(definition), definition.children[1:2], 1), Summary(name, frozenset(), 1, False, cyclic=True))

    def facts(self, st: Tree, statements: list) -> Summary:
        """:class:`Summary` of the construct ``st``'s ``statements``, found once."""
        return self._once((id(st), len(statements)), lambda: self._walk(statements))

    def _walk(self, statements, head=(), size: int = 0) -> Summary:
        """What ``statements`` (and the functions they call, the threads they start) may do, and the names they read
        (with those ``head``, a function's parameters, reads); ``size`` the units counted before them."""
        holds = None
        assigns: set[str] = set()
        reads = {str(n.children[0]) for node in head for n in node.find_data("name")}
        moves, jumps, returns, stands, elements, cyclic, breaks = False, False, False, False, False, False, False
        stack = [(s, False) for s in statements if isinstance(s, Tree)]  # (a node; inside a loop of the statements)
        while stack:
            node, looped = stack.pop()
            kind, found, inner = node.data, None, None
            if kind in ("func_def", "thread_def", "sec_def"):
                continue
            if kind in ("name", "method"):  # (a variable read or assigned; an object's)
                reads.add(str(node.children[0]))
            elif kind == "moves":  # (a run of motions)
                found, moves = node, True
                size += len(self.move_matches(node.children[0]).spans)
            elif kind == "run_stmt":
                found = node
                if str(node.children[0]) in self.threads:
                    inner = self.summary(str(node.children[0]), thread=True)
            elif kind == "while_stmt":
                size += 1
            elif kind == "return_stmt":
                returns = True
            elif kind in ("break_stmt", "continue_stmt"):
                jumps = jumps or not looped
                breaks = breaks or (kind == "break_stmt" and not looped)
            elif kind == "assign":
                target, _, word = assignment(node)
                root = root_name(target)
                if root is not None and (word == "GLOBAL" or root in self.global_names) and word != "LOCAL":
                    assigns.add(root)
            elif kind == "call":
                callee = str(node.children[0])
                stands = stands or callee in STANDING_POSE
                if callee in MOTIONS or callee in UNSUPPORTED_CALLS or callee == "set_tcp":
                    found = node
                    size += callee in MOTIONS
                    moves = moves or callee in MOTIONS
                    elements = elements or (callee in MOTIONS and any(True for _ in node.find_data("index")))
                elif callee in self.functions:
                    inner = self.summary(callee)
                    assigns |= inner.assigns
                    size += inner.size if inner.moves else 1  # (a call of one that moves nothing: one unit)
                    moves = moves or inner.moves
                    found = None if inner.holds is None else node
            if inner is not None:
                reads.update(inner.reads)
                stands, elements, cyclic = stands or inner.stands, elements or inner.elements, cyclic or inner.cyclic
            holds = holds if holds is not None else found
            stack.extend((c, looped or kind == "while_stmt") for c in node.children if isinstance(c, Tree))
        changes = tuple(sub for st in statements if isinstance(st, Tree) for sub in st.iter_subtrees()
                        if sub.data == "assign" or (sub.data == "call" and str(sub.children[0]) == "set_tcp"))
        return Summary(holds, frozenset(assigns), size, moves, jumps, returns, changes, tuple(sorted(reads)), stands,
                       elements, cyclic, breaks)

    @cached_property
    def unread(self) -> frozenset[str]:
        """The variables nothing reads but the assignments to such variables, each assigned only from names, numbers
        and strings (a rolling history of commands): never bound."""
        inside: dict[str | None, list[Counter]] = {}  # each variable: the names written in each assignment to it
        impure: set[str | None] = {None}
        for node in self.tree.find_data("assign"):
            root = root_name(assignment(node)[0])
            inside.setdefault(root, []).append(_names(node))
            if any(sub.data in ("call", "method", "run_stmt", "pose") or (
                    sub.data == "number" and not np.isfinite(float(sub.children[0]))) for sub in node.iter_subtrees()):
                impure.add(root)
        total, found, within = _names(self.tree), set(inside) - impure, Counter()
        for root in found:
            for names in inside[root]:
                within.update(names)
        read = [name for name in found if within[name] != total[name]]  # (written elsewhere too)
        live = set(read)
        while read:  # (a variable written in an assignment to one that is read is read)
            for names in inside[read.pop()]:
                read.extend(name for name in names if name in found and name not in live)
                live.update(names)
        return frozenset(found - live)

    def motion_calls(self, node: Tree) -> list[Tree]:
        """The motions written in ``node`` (each of a run's too: :meth:`general`), in order; found once a node."""
        return self._once(("motions", id(node)), lambda: [
            call for call in self.general(node).find_data("call") if str(call.children[0]) in MOTIONS])

    def forget_assigned(self, facts: Summary, local: dict, st: Tree, why: str = "may have run") -> None:
        """Everything a construct not followed (its :meth:`facts`; ``st``, its statement, named by its line) may
        assign, or the tool it may set, is known only while running from here (the tool's ``why``: ``set_tcp at line
        7 may have run``)."""
        for sub in facts.changes:
            if sub.data == "assign":
                self.forget(sub, local)
            elif self.tool is not None:
                self.tool, self.tool_why = None, f"set_tcp at line {line_col(sub)[0]} {why}"
        self.forget_globals(facts.assigns, f" (a function called in a construct not followed at line {line_col(st)[0]} "
                            "may change it)", keep_unknown=True)

    def forget_globals(self, names, why: str, keep_unknown: bool = False) -> None:
        """The globals ``names`` (but :meth:`unread`) are known only while running from here, saying ``why``;
        ``keep_unknown``: one already so keeps its reason."""
        unread = self.unread
        for name in names:
            if name not in unread and not (keep_unknown and name in self.globals and self.globals[name].value is None):
                self.globals[name] = Binding(None, None, name, why)

    @staticmethod
    def body_of(definition: Tree) -> list:
        return [c for c in definition.children[1:] if isinstance(c, Tree) and c.data != "params"]

    # ----- statements
    def run_body(self, statements, local: dict, depth: int) -> _Left | None:
        """Run ``statements``; how they were left (:class:`_Left`), None at their end."""
        for st in statements:  # (each a Tree: the grammar's statements)
            try:
                left = self.run_statement(st, local, depth)
            except Unsupported as exc:
                finding = Finding(exc.message, *line_col(exc.where))
                if self.frames[-1].quiet:  # inside a function that moves nothing: it cannot change a motion
                    self.note_once(replace(finding, message=f"{exc.message}; passed over: {self.frames[-1].name} moves "
                                           "nothing and changes nothing a motion reads (its time is not estimated)"))
                elif finding not in self.unsupported:
                    self.unsupported.append(finding)
                for call in self.motion_calls(st):
                    self.note_once(Finding(f"{call.children[0]} inside an unsupported construct stays as written",
                                           *line_col(call)))
                self.forget_assigned(self._walk([st]), local, st, "not followed")
                continue
            if left is not None:
                return left
        return None

    def run_statement(self, st: Tree, local: dict, depth: int) -> _Left | None:
        """One statement, by its rule (the table :data:`_STATEMENTS`), counted against the bound on the work."""
        self.work(st)
        return _STATEMENTS[st.data](self, st, local, depth)

    def run_sequence(self, statements, local: dict, depth: int) -> _Left | None:
        """``statements`` run as a sequence of their own (a branch, a loop's pass, a thread), before which where the
        robot stands is not known (:meth:`standing_pose`)."""
        with _on(self.sequence_starts, len(self.steps)):
            return self.run_body(statements, local, depth)

    def run_expression(self, st: Tree, local: dict, depth: int) -> None:
        """An expression as a statement (``else: flag``, as PolyScope writes a Script line): its value is dropped, each
        call it holds runs, outermost first."""
        stack = [st.children[0]]
        while stack:
            node = stack.pop()
            if node.data == "call":
                self.run_call(node, local, depth)
            else:
                stack.extend(reversed([c for c in node.children if isinstance(c, Tree)]))

    def run_jump(self, st: Tree, local: dict, _depth: int) -> _Left:
        """``break``, ``continue`` or ``return``: under a condition not resolved in the loop or function it leaves,
        its state and value go where it jumps (:attr:`_Frame.exits`)."""
        kind, value, frame = st.data.split("_")[0], None, self.frames[-1]
        try:
            value = self.evaluate(st.children[0], local) if st.children else None
        except Unsupported as unknown:  # (known only while running: an error where it is read, saying why)
            value = unknown
        if kind != "return" and not frame.loops:
            raise self.error(f"{kind} outside a loop", st)
        target = frame if kind == "return" else frame.loops[-1]
        if self.unresolved_depth <= target.depth:
            return _Left(kind, value)
        if target.counted and (kind != "break" or target.condition is None):  # (a break ends a count its condition
            # fixes early, the passes before keep theirs; a while True's count its breaks alone decide)
            return _UNCOUNTED
        target.exits.append((kind, self.snapshot(local), value))
        return _END

    def start_thread(self, st: Tree, *_) -> None:
        """``run Thread_1()``: what the thread may assign is unknown from here; its body is followed once, where it is
        first started, under a condition known only while running: a sequence of its own, unless the program waits
        for it (:meth:`waited`), which then starts where the robot stands at ``run``."""
        name = str(st.children[0])
        if name not in self.threads:
            raise Unsupported(f"run {name}: no such thread in this file", st)
        facts = self.summary(name, thread=True)
        why = f" (thread {name} changes it while running)"
        self.forget_globals(facts.assigns, why)
        if name in self.started_threads or not (facts.moves or any(
                str(call.children[0]) in UNSUPPORTED_CALLS for call in self.threads[name].find_data("call"))):
            return  # (a thread of servoj/speedj/force_mode is followed too: those are refused where they stand)
        self.started_threads.add(name)
        first = len(self.steps)
        with self.unresolved(self.threads[name], f"thread {name}", "it runs beside the program, at times known only "
                             "while running"), _on(self.frames, _Frame(self.unresolved_depth)):
            (self.run_body if self.waited(st) else self.run_sequence)(self.body_of(self.threads[name]), {}, 1)
        self.beside.update(map(id, self.steps[first:]))
        self.forget_globals(facts.assigns, why)  # (at times known only while running: also after its followed pass)

    def waited(self, run: Tree) -> bool:
        """Whether the program waits for the thread that ``run`` starts before it moves again, as PolyScope writes a
        Direction or an Until node: ``handle = run T()`` followed by a ``while`` that moves nothing and leaves on ``join
        handle``; the thread starts at once (the manual, ``run``), where the robot stands."""
        def found():
            for block in self.tree.iter_subtrees():
                statements = [c for c in block.children if isinstance(c, Tree)]
                for st, then in zip(statements, statements[1:]):
                    if st.data != "assign" or assignment(st)[1].data != "run_stmt" or then.data != "while_stmt":
                        continue
                    handle = str(assignment(st)[0].children[0])
                    joined = any(str(j.children[0]) == handle for j in then.find_data("join_stmt"))
                    if joined and not self.motion_calls(then):
                        yield id(assignment(st)[1])
        return id(run) in self._once("waited", lambda: set(found()))

    # ----- branches
    def run_if(self, st: Tree, local: dict, depth: int) -> _Left | None:
        """An ``if``/``elif``/``else``: the branch a known condition takes is followed; from a condition known only
        while running on, every remaining branch is."""
        parts = [c for c in st.children[1:] if isinstance(c, Tree) and c.data in ("elif_part", "else_part")]
        branches = [(st.children[0], st.children[1:len(st.children) - len(parts)]),  # (the parts come last)
                    *((p.children[0], p.children[1:]) if p.data == "elif_part" else (None, list(p.children)) for p in parts)]
        for k, (condition, _) in enumerate(branches):
            try:
                taken = condition is None or self.condition(condition, local)
            except Unsupported:  # known only while running: this branch or a later one
                return self.run_unresolved(st, [b for _, b in branches[k:]], branches[-1][0] is None, local, depth)
            if taken:
                break
        else:
            k = len(branches)
        self.note_never(st, (id(st), k), [s for j, (_, body) in enumerate(branches) if j != k for s in body],
                        "a branch that never runs (its condition is known before running)")
        return self.run_body(branches[k][1], local, depth) if k < len(branches) else None

    def note_never(self, st: Tree, key: tuple, statements: list, where: str) -> bool:
        """A note naming the motions of ``statements`` (of the construct ``key``), which never run and stay as
        written. Whether there are any."""
        lines = self._once(("lines", key), lambda: sorted({
            line_col(call)[0] for st in statements if isinstance(st, Tree) for call in self.motion_calls(st)}))
        if lines:
            self.note_once(Finding(f"{st.data.split('_')[0]}: the motion(s) at line {', '.join(map(str, lines))} are "
                                   f"in {where}: they stay as written", *line_col(st)))
        return bool(lines)

    def run_unresolved(self, st: Tree, bodies: list[list], exhaustive: bool, local: dict, depth: int
                       ) -> _Left | None:
        """Branches of which one (or, unless ``exhaustive``, none) runs, the choice known only while running: passed
        over when nothing in them moves or jumps out; else each followed from the state before them, the paths joined
        after them. Returns :data:`_UNCOUNTED` where a branch found it."""
        statements = [s for body in bodies for s in body]
        facts = self.facts(st, statements)
        if facts.holds is None and not facts.jumps:
            self.pass_over(st, facts, "if", local)
            return None
        entry = self.snapshot(local)
        outs = [] if exhaustive else [entry]
        with self.unresolved(st, "if"):  # (an _UNCOUNTED loop is taken back whole: its note too)
            for body in bodies:
                self.restore(entry, local)
                left = self.run_sequence(body, local, depth)  # (None; _END: a path that left; _UNCOUNTED)
                if left is _UNCOUNTED:
                    return left
                if left is None:
                    outs.append(self.snapshot(local))
            if outs:
                where = f"the if at line {line_col(st)[0]}"
                self.merge(outs, local, where, tool_where=f"a branch of {where}")
            else:  # every branch leaves: what follows runs on no path through here; followed from before it
                self.restore(entry, local)
                self.forget_assigned(facts, local, st)
        return None

    @contextlib.contextmanager
    def unresolved(self, st: Tree, word: str, why: str = ""):
        """Within: statements followed under a condition known only while running; after, a note naming the motions
        compensated there (``word``: the construct ``st``)."""
        first = len(self.steps)
        self.unresolved_depth += 1
        try:
            yield
        finally:
            self.unresolved_depth -= 1
        if len(self.steps) > first:  # (it moved on a path known only while running: where the robot stands after it
            self.sequence_starts[:] = [len(self.steps)] * len(self.sequence_starts)  # is not known)
            rows = sorted(set(calls.motion_lines(self.steps[first:])))  # (one file: its lines in order)
            if rows:
                self.conditional_lines.extend(line for _, line in rows)
                self.note_once(self.note_unresolved(word, rows, line_col(st), why))

    def pass_over(self, st: Tree, facts: Summary, word: str, local: dict) -> None:
        """A construct of course known only while running that moves nothing and leaves only by ``return``: passed
        over with a note, what it may assign unknown after it (a ``return`` in it joins the function's end)."""
        self.forget_assigned(facts, local, st)
        if facts.returns:
            self.frames[-1].exits.append(("return", self.snapshot(local), None))
        self.note_once(Finding(f"{word} passed over: its course is known only while running, and no branch moves the "
                               "robot or changes its tool (what it assigns is not known after it)", *line_col(st)))

    # ----- loops
    def run_while(self, st: Tree, local: dict, depth: int) -> _Left | None:
        """Unrolled where its condition is known at every pass (``while True`` left by a ``break`` whose condition is
        known each pass too); else PolyScope's main loop (``while (True)`` outside any unresolved condition: one cycle
        is one pass), or, nothing of the unrolling kept, a loop of count known only while running: passed over when
        it moves nothing, else its body followed from its head's state."""
        condition, body = st.children[0], st.children[1:]
        facts = self.facts(st, body)
        forever = condition.data == "name" and str(condition.children[0]) == "True"
        if not forever or facts.breaks:  # (``while True`` left by a ``break`` the file decides: counted too)
            mark, entry = self._mark(), self.snapshot(local)
            left = self.run_counted_while(st, body, facts, None if forever else condition, local, depth)
            if left is not _UNCOUNTED:
                return left
            self._rollback(mark)
            self.restore(entry, local)
        main = forever and not self.unresolved_depth
        if main and not self.loop_noted:
            self.notes.append(Finding("loop forever: one cycle is one pass of its body", *line_col(st)))
            self.loop_noted = True
            self.cycle_start = len(self.steps)  # (the motions before it run once: passes.settle)
        if main:
            return self.settle(st, body, local, depth)
        if facts.holds is None:
            self.pass_over(st, facts, "while", local)
            return None
        with self.unresolved(st, "while"):
            self.count(1, st)
            return self.settle(st, body, local, depth)

    def settle(self, st: Tree, body: list, local: dict, depth: int) -> _Left | None:
        """Follow a loop's body from the state at its head: the state before the loop joined with those its passes
        end (or ``continue``) with, until they agree, at most :data:`MAX_SETTLE` passes taken back (then all the body
        may change is unknown); then the pass kept, the paths it leaves with joined. Returns a ``return`` that left a
        pass (only PolyScope's main loop is left so: the function ends)."""
        head = self.snapshot(local)
        line = line_col(st)[0]
        for _ in range(0 if self._exploring else MAX_SETTLE):
            mark = self._mark()
            with _on(self._exploring, st):
                ends, _, left = self._pass(body, local, depth)
            if left is not None:
                return left
            self._rollback(mark)
            self.merge([head, *ends], local, f"the while at line {line}, in one of its passes",
                       f" (the while at line {line} changes it from pass to pass)")
            joined = self.snapshot(local)
            if same_state(joined, head):
                break
            head = joined
        else:
            self.restore(head, local)
            self.forget_assigned(self.facts(st, body), local, st)
            head = self.snapshot(local)
        self.restore(head, local)
        ends, breaks, left = self._pass(body, local, depth)
        if left is None:
            self.merge([head, *ends, *breaks], local, f"the while at line {line}")
        return left

    def _pass(self, body: list, local: dict, depth: int) -> tuple[list[State], list[State], _Left | None]:
        """One pass of a loop's body from the present state: the states it goes back to the head with (its end,
        ``continue``), those it leaves the loop with (``break``) and a ``return`` that left it."""
        loop = _Frame(self.unresolved_depth)
        with _on(self.frames[-1].loops, loop):
            left = self.run_sequence(body, local, depth)
        ends: dict[str, list[State]] = {"continue": [], "break": []}
        for kind, state, _ in loop.exits:
            ends[kind].append(state)
        if left is None or left.kind in ends:
            ends["continue" if left is None else left.kind].insert(0, self.snapshot(local))
        return ends["continue"], ends["break"], left if left is not None and left.kind == "return" else None

    def _mark(self) -> tuple:
        """What following a construct adds to the program besides the globals and the tool, to take back
        (:meth:`_rollback`) or to find that a call added none of it; its last entry the units counted."""
        return (len(self.steps), len(self.notes), len(self.unsupported), len(self.conditional_lines),
                set(self.started_threads), self.loop_noted, len(self.per_pass), len(self.direct_refs),
                len(self.frames[-1].exits), self.unrolled)

    def _rollback(self, mark: tuple) -> None:
        steps, notes, unsupported, conditional, self.started_threads, self.loop_noted, *_, self.unrolled = mark
        self._drop_steps(steps)
        del self.notes[notes:], self.unsupported[unsupported:], self.conditional_lines[conditional:]

    def _drop_steps(self, first: int) -> None:
        """The steps from ``first`` on taken back, with their walks; kept alive (their ids keyed tables, ``_in_call``)."""
        self._discarded.extend(self.steps[first:])
        del self.steps[first:]
        self.pass_walks[:] = [walk for walk in self.pass_walks if walk[0] < first]

    def run_counted_while(self, st: Tree, body: list, facts: Summary, counts: Tree | None, local: dict, depth: int
                          ) -> _Left | None:
        """A ``while`` whose condition is known at every pass, unrolled (PolyScope's "Loop 3 times"; ``facts``: its
        body's, ``counts``: its condition, None for a ``while True``, whose breaks alone decide its count). A motion
        whose target changes from pass to pass, or more than :data:`MAX_WHILE_PASSES` passes: :class:`Unsupported`; a
        count known only while running after all: :data:`_UNCOUNTED`."""
        condition, first, passes, start = st.children[0], len(self.steps), 0, self.statements_run
        first_conditional = len(self.conditional_lines)
        quiet = facts.holds is None
        loop = _Frame(self.unresolved_depth, counted=True, condition=counts, jumps=facts.jumps)
        try:
            with _on(self.frames[-1].loops, loop):
                while True:
                    try:
                        if not self.condition(condition, local):
                            break
                    except Unsupported:
                        return _UNCOUNTED
                    passes += 1
                    if passes > MAX_WHILE_PASSES:
                        raise Unsupported(f"while of more than {MAX_WHILE_PASSES:,} passes is not unrolled", st)
                    if quiet and self.statements_run - start > MAX_QUIET_WORK:  # (moves nothing: not worth unrolling)
                        return _UNCOUNTED
                    self.count(1, st)
                    before = self.snapshot(local)
                    left = self.run_body(body, local, depth)
                    if left is not None and left.kind == "break":
                        break
                    if left is not None and left.kind != "continue":  # (a return; _UNCOUNTED)
                        return left
                    if same_state(before, self.snapshot(local)):  # (nothing a pass does changes its condition: it
                        return _UNCOUNTED                         # never ends; followed as a loop of unknown count)
            if loop.exits:  # (a break under a condition known only while running: any pass may be the last)
                self.merge([self.snapshot(local), *(state for _, state, _ in loop.exits)], local,
                           f"the while at line {line_col(st)[0]}")
                rows = sorted(set(calls.motion_lines(self.steps[first:])))
                self.conditional_lines.extend(line for _, line in rows)  # (their tables: passes.settle)
                self.note_once(self.note_unresolved("while", rows, line_col(st), "a break "
                                                    "under a condition known only while running may end it after any "
                                                    "pass"))
            changing = pass_tables.take(self.steps[first:], self.per_pass, st, self.pass_walks,
                                        set(self.conditional_lines[first_conditional:]), (first, span_of(st).start))
            if changing is not None:
                raise Unsupported(f"{changing.instruction} at line {changing.statement.line}: its target changes "
                                  f"from pass to pass of this while{self.changed_by(st, changing)}: one written target "
                                  "cannot serve every pass", st)
        except Unsupported:
            self._drop_steps(first)
            raise
        if not (passes == 0 and self.note_never(st, (id(st), "body"), body, "a loop that never runs (its condition is "
                                                "known false before the first pass)")):
            self.note_once(Finding(f"while followed for its {passes} pass(es)", *line_col(st)))
        return None

    def index_counters(self, targets: list, local: dict) -> tuple[tuple[str, float], ...]:
        """The counters known at a motion (its ``targets``' nodes), ``(name, value)`` each: the numbers the
        conditions of the counted loops around it read (outer loops first), then those its targets read. A motion
        under a condition known only while running in such a loop may need one entry a pass, its index computed
        from them (:func:`.passes.settle`)."""
        heads = [loop.condition for loop in self.frames[-1].loops if loop.condition is not None]
        counters: dict[str, tuple[str, float]] = {}
        for node in [*heads, *targets]:
            for name in _names(node) if isinstance(node, Tree) else ():
                held = local.get(name) or self.globals.get(name)
                if name not in counters and held is not None and type(held.value) is float and not held.stood:
                    counters[name] = (name, held.value)
        return tuple(counters.values())

    def changed_by(self, loop: Tree, motion: Motion) -> str:
        """`` (it reads k, which the loop changes at line 7)``: the data of ``motion`` the loop's body assigns."""
        at = motion.statement  # (a run's statements read its name nodes: Motions.name_runs)
        names = {str(n.children[0]) for n in self.tree.find_data("name") if at.start <= n.meta.start_pos < at.end}
        return next((f" (it reads {root}, which the loop changes at line {line_col(sub)[0]})" for sub in loop.iter_subtrees()
                     if sub.data == "assign" and (root := root_name(assignment(sub)[0])) in names), "")

    # ----- calls
    def run_call(self, call: Tree, local: dict, depth: int, for_value: bool = False):
        name = str(call.children[0])
        args, kwargs = split_arguments(call)
        if name in MOTIONS:
            self.run_motion(call, name, args, kwargs, local)
        elif name == "sleep":
            if len(args) != 1:
                raise self.error("sleep: expected one time [s]", call)
            try:
                seconds = self.number(args[0], local)
            except Unsupported as exc:  # (a wait moves nothing: only the time estimate misses it)
                self.note_once(Finding(f"sleep: its time is known only while running ({exc.message}); not counted "
                                       "in the time estimate", *line_col(call)))
                return None
            if not seconds >= 0:
                raise self.error(f"sleep: expected a time >= 0 s, got {seconds:g}", call)
            self.steps.append(Wait(seconds, span_of(call)))
        elif name == "set_tcp":
            if len(args) != 1:
                raise self.error("set_tcp: expected one pose", call)
            try:
                self.tool, self.tool_why = self.pose(args[0], local).T, ""
            except Unsupported as exc:
                self.tool, self.tool_why = None, f"set_tcp at line {line_col(call)[0]}: {exc.message}"
        elif name in self.functions:
            value = self.call_function_of_file(call, name, args, kwargs, local, depth, for_value)
            return value if for_value else None
        elif name in UNSUPPORTED_CALLS:
            raise Unsupported(f"{name} is not followed (thermocomp compensates movej, movel, movep, movec)", call)
        return None  # (a function found nowhere: passed over, :meth:`note_found_nowhere`)

    def note_found_nowhere(self, body: list) -> tuple[tuple[str, int, int, int], ...]:
        """One note for each function found nowhere (neither the script's nor one thermocomp knows: a URCap's) that
        the script calls (URScript passes arguments by value, the manual's Functions: it changes none of the script's
        variables). Returns ``(name, 0, line, column)`` of each such call the entry's ``body`` makes itself, in order
        (:func:`.calls.note_found_nowhere`)."""
        defined = ("func_def", "thread_def")  # (the calls the body makes, not inside a function or thread it defines)
        own = {id(c) for st in body for c in st.find_data("call")} - {
            id(c) for st in body for d in st.find_pred(lambda t: t.data in defined) for c in d.find_data("call")}
        return calls.note_found_nowhere(self.notes, [
            (str(c.children[0]), 0, *line_col(c), str(c.children[0]), id(c) in own) for c in self.tree.find_data("call")
            if str(c.children[0]) not in self.functions and str(c.children[0]) not in KNOWN_CALLS],
            lambda name, count, _, line: (
            f"{name} is neither a function of this script nor one thermocomp knows: its {count} call(s) (the first at "
            f"line {line}) are passed over, assuming it moves nothing and changes none of the script's variables "
            "(URScript passes arguments by value); their time is not in the time estimate (a motion that reads its "
            "value is refused)"))

    def call_function_of_file(self, call: Tree, name: str, args: list, kwargs: dict, local: dict, depth: int,
                              for_value: bool):
        """A call of the file's function ``name``: passed over where it moves nothing and assigns no global (or, in a
        pass followed only to find a loop's head, moves nothing); else run with its arguments, or, made again from a
        state equal on what it may read, what it did then is done again. Returns its value (None: none or unknown)."""
        summary = self.summary(name)
        inert = summary.holds is None and not summary.assigns  # (moves nothing, changes nothing a motion reads)
        passed = inert and not for_value
        if passed or (self._exploring and summary.holds is None):  # (or a pass followed only to find a loop's head)
            self.count(1, call)
            line, column = line_col(call)
            self.forget_globals(summary.assigns, f" (the call of {name} at line {line} may change it from pass to pass)")
            if passed:
                self.note_once(Finding(f"calls of {name} passed over: it moves nothing and changes nothing a motion "
                                       "reads (its time is not estimated)", line, column), key=("passed over", name))
            return None
        if any(frame.name == name for frame in self.frames):
            raise Unsupported(f"a recursive call of {name} is not followed (how deep it goes is known only while "
                              "running)", call)
        if depth > 32:
            raise Unsupported(f"calls nested more than 32 deep at {name}", call)
        if self.unrolled + summary.size > self.max_motions:
            raise self.error(f"the call of {name} unrolls to at least {summary.size:,} motions, calls and loop passes "
                             f"(more than --max-motions {self.max_motions:,})", call)
        self.count(1, call)
        function = self.functions[name]
        scope = self.bind_arguments(function, args, kwargs, local, call)
        self.visited.add(name)
        held = tuple(map(self.globals.get, summary.reads))
        read = (self.standing_key(),) if summary.stands else ()  # (where the robot stands: Flow.standing_pose)
        key = (name, self.unresolved_depth > 0, None if self.tool is None else self.tool.tobytes(), self.tool_why,
               tuple((param, b.signature) for param, b in scope.items()),
               tuple(None if b is None else b.signature for b in held), read)
        moved_key = (key, bool(self._exploring), depth, tuple(f.name for f in self.frames), len(self.per_pass),
                     list(self._reads.values()).count(None))  # (call sites' targets read differently: calls.read_at_call_site)
        done = None if summary.cyclic else self._calls_done.get(key) or self._calls_done.get(moved_key)
        this = (name, span_of(call))  # (one object a call: passes._by_call tells runs apart)
        if done is not None:  # (made again from a state met before: what it did then, done again)
            changed, self.tool, self.tool_why, returned, units, added = done
            self.globals.update(changed)
            for step, where in added:
                step = copy(step)  # (a step of its own, as a run makes: _in_call is by id)
                if where is not None or scope:
                    self._in_call[id(step)] = this if scope else where
                self.steps.append(step)
            self.count(units, call)
            return returned
        mark, first, stood = self._mark(), len(self.steps), self._stood
        frame = _Frame(self.unresolved_depth, name, inert)
        with _on(self.frames, frame):
            left = self.run_body(self.body_of(function), scope, depth + 1)  # (None, or a return)
        returned = None if left is None else left.value
        if frame.exits:  # returns under conditions known only while running: their paths join here
            self.merge([self.snapshot(scope), *(state for _, state, _ in frame.exits)], scope, name)
            if not all(v is returned or v == returned for *_, v in frame.exits):
                returned = None
        added = self.steps[first:]
        for step in added if scope else ():  # the outermost call with arguments is the one named
            self._in_call[id(step)] = this
        if self._mark()[1:-1] == mark[1:-1] and self._stood == stood and not (added and summary.elements or summary.cyclic):
            # (it changed only globals, the tool and steps, and read no pose the robot stands at, which marks what reads
            # it: Values.stood; a call adds globals, never removes one)
            changed = {g: b for g, old in zip(summary.reads, held) if (b := self.globals.get(g)) is not old}
            self._calls_done[moved_key if added else key] = (changed, self.tool, self.tool_why, returned,
                                                              self.unrolled - mark[-1],
                                                              [(s, self._in_call.get(id(s))) for s in added])
        return returned

    def through_call_site(self, node, local: dict) -> Point | None:
        """The point of a motion's target ``pose_trans``/``pose_add``/``pose_sub`` (:data:`.calls.THROUGH`, nested) of
        a parameter bound to a pose written at the call site: that pose's text, the result as the pose; else None."""
        layers, inner = [], node
        while isinstance(inner, Tree) and inner.data == "call" and str(inner.children[0]) in calls.THROUGH:
            args, kwargs = split_arguments(inner)
            if kwargs or len(args) != 2:
                return None
            leads = [(args[i], how) for i, how in calls.THROUGH[str(inner.children[0])] if self._leads_to_call_site(
                args[i], local)]
            if len(leads) != 1:
                return None
            layers.append((inner, leads[0][1]))
            inner = leads[0][0]
        # (a parameter read in more ways than this one: the expression is the motion's own text, a table where the
        # calls need it differently)
        if not layers or self._uses(str(inner.children[0])) > 1 or not self._leads_to_call_site(inner, local):
            return None
        point = self.point(inner, local)
        poses = [self.lookup(inner.children[0], local).value.T, *(self.evaluate(layer, local).T
                                                                 for layer, _ in reversed(layers))]
        if not calls.read_at_call_site(self._reads, (point.text.start, span_of(node).start),
                                       [(str(layer.children[0]), how) for layer, how in layers], poses):
            return None  # (the function differs from pass to pass: the expression is the text, as any other)
        return replace(point, T_world_tcp=poses[-1], argument=span_of(node))

    def _uses(self, name: str) -> int:
        """How many times the running function's text names ``name`` (0 outside a function); its names counted once."""
        function = self.functions.get(self.frames[-1].name)
        if function is None:
            return 0
        return self._once(("names", id(function)),
                          lambda: Counter(str(node.children[0]) for node in function.find_data("name")))[name]

    def _leads_to_call_site(self, node, local: dict) -> bool:
        """Whether ``node`` is a name bound to a pose written at a call site, or a :data:`.calls.THROUGH` call."""
        if isinstance(node, Tree) and node.data == "call":
            return str(node.children[0]) in calls.THROUGH
        if not (isinstance(node, Tree) and node.data == "name"):
            return False
        binding = local.get(str(node.children[0])) or self.globals.get(str(node.children[0]))
        return binding is not None and binding.literal is not None and binding.literal.data == "pose" \
            and binding.literal.meta.start_pos in self._passed

    # ----- the pose the robot stands at (PolyScope's relative waypoints)
    def standing_pose(self, node: Tree):
        """``get_actual_tcp_pose()`` (:data:`.STANDING_POSE`): the TCP pose the robot stands at, known where the motion
        before it in its sequence goes to a known Cartesian target without blend: that target, with the tool set
        now; else :class:`Unsupported` saying why."""
        name = str(node.children[0])
        args, kwargs = split_arguments(node)
        if args or kwargs:
            raise Unsupported(f"{name}(...) of given joints or tool is not evaluated (only the pose the robot stands "
                              "at, after a motion of the program to a known target)", node)
        motion = self._last_motion()
        why = None
        if self.unsupported:  # (a motion left as written may have moved the robot since)
            why = (f"a construct before it is not followed (line {self.unsupported[0].line}): where the robot stands "
                   "is not known")
        elif motion is None:
            why = ("no motion comes before it in its sequence (the start of the cycle, of a loop's pass, a branch or "
                   "a thread, or after a construct of course known only while running that moves: the robot stands "
                   "where a motion known only while running left it)")
        elif motion.points[-1].T_world_tcp is None:
            why = f"the {motion.instruction} at line {motion.line} before it goes to a joint target"
        elif self._blend(motion) != 0.0:
            why = f"the {motion.instruction} at line {motion.line} before it blends (r not 0): the robot never stands there"
        elif self.tool is None:
            why = f"the tool is not known before running ({self.tool_why})"
        if why is not None:
            raise Unsupported(f"{name}() at line {line_col(node)[0]} is the pose the robot stands at, not known before running: "
                              f"{why}", node)
        self.stood(motion.line, node, f"{name}() (the pose the robot stands at after the {motion.instruction} at line "
                                      f"{motion.line})")
        point = motion.points[-1]
        T = point.T_world_tcp @ invert_transform(point.T_flange_tcp) @ self.tool
        self.note_once(Finding(f"{name}() is the target of the {motion.instruction} at line {motion.line} (reached "
                               "without blend): the motion reading it is compensated from that target and written with "
                               "its absolute corrected target in place of the relative expression", *line_col(node)))
        return Pose.from_T(T)

    def standing_key(self) -> tuple | int | None:
        """What :meth:`standing_pose` reads here, by value (a call's memory keys a function that may read it by this,
        :meth:`call_function_of_file`): the line of the first construct not followed, else the last motion's
        instruction, statement, file, target and tool, None where there is none. Two motions of one statement to one
        target are one key, wherever they stand in the steps."""
        if self.unsupported:
            return self.unsupported[0].line
        motion = self._last_motion()
        if motion is None:
            return None
        point = motion.points[-1]
        return (motion.instruction, motion.statement, motion.file,
                None if point.T_world_tcp is None else point.T_world_tcp.tobytes(), point.T_flange_tcp.tobytes())

    def _last_motion(self) -> Motion | None:
        """The last motion of the sequence being followed (past the waits after it), found once a step; None where
        there is none."""
        k = len(self.steps) - 1
        while k >= self.sequence_starts[-1] and not isinstance(self.steps[k], MotionRun):
            k -= 1
        if k < self.sequence_starts[-1]:
            return None
        step = self.steps[k]
        return self._once(("last motion", id(step)), lambda: step.take([len(step) - 1]).motions()[0])

    def _blend(self, motion: Motion) -> float | None:
        """The blend radius ``r`` [m] of ``motion`` as written, 0 by default; None when it is not a number."""
        call = parse_at(without_runs("urscript.lark"), self.text, motion.statement.start, motion.statement.end,
                        self.lines, "\n").children[0].children[0]
        args, kwargs = split_arguments(call)
        written = kwargs.get("r", dict(zip(PARAMETERS[motion.instruction], args[MOTIONS[motion.instruction][1]:])).get("r"))
        try:
            return 0.0 if written is None else float(self.text[span_of(written).start:span_of(written).end])
        except ValueError:
            return None


#: Each statement's rule of urscript.lark -> what runs it (:meth:`Flow.run_statement`); those passed by do nothing.
_STATEMENTS = {
    **dict.fromkeys(("func_def", "thread_def", "sec_def", "step", "pass_stmt", "critical", "kill_stmt", "join_stmt",
                     "halt_stmt"), lambda *_: None),
    "assign": lambda self, st, local, _: self.assign(st, local),
    "moves": lambda self, st, local, depth: self.run_moves(st.children[0], local, depth),
    "call_stmt": lambda self, st, local, depth: self.run_call(st.children[0], local, depth),
    "while_stmt": Flow.run_while, "if_stmt": Flow.run_if, "run_stmt": Flow.start_thread, "expr_stmt": Flow.run_expression,
    **dict.fromkeys(("return_stmt", "break_stmt", "continue_stmt"), Flow.run_jump),
}

__all__ = ["KNOWN_CALLS", "MAX_QUIET_WORK", "MAX_WHILE_PASSES", "QUIET_CALLS", "UNSUPPORTED_CALLS", "Flow", "Summary"]
