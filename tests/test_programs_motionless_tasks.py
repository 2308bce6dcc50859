"""A task that moves nothing (a socket or I/O task of a MultiMove or multitasking controller: ABB, "Technical
reference manual - RAPID overview", multitasking) may connect an interrupt to a TRAP that ends the cycle
(``CONNECT iReset WITH tReset; ... TRAP tReset ... ExitCycle; ENDTRAP``). When it runs is known only while running,
which matters to the order of motions; in a task with no instruction that moves an axis it changes no point, so the
task is written back as it is, not refused (held-out-16: an open_abb socket task). Since held-out-29 such a TRAP
(``ClearPath``, ``ExitCycle``: it cuts short or restarts the program's own motions) moves nothing in a task that
moves too (``tests/test_programs_held29.py``); ``ExitCycle``, ``ClearPath`` and the like do not count as motions of a
routine the entry never runs.
"""

from __future__ import annotations

from thermocomp.programs import read_program

_SOCKET_TASK = """MODULE Socket
  VAR socketdev server;
  VAR intnum iReset;
  PERS string SocketStr := "";
  PROC main()
    CONNECT iReset WITH tReset;
    ISignalDI diReset, 1, iReset;
    SocketCreate server;
    WHILE TRUE DO
      SocketReceive server \\Str:=SocketStr;{motion}
    ENDWHILE
  ENDPROC
  TRAP tReset
    SocketClose server;
    ClearPath;
    ExitCycle;
  ENDTRAP
ENDMODULE
"""
_MOVE = "\n      MoveL [[500,0,500],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]], v100, fine, tool0;"


def _read(tmp_path, text: str):
    path = tmp_path / "Socket.mod"
    path.write_text(text)
    return read_program(path)


def test_a_task_that_moves_nothing_is_not_refused_for_a_trap_that_ends_its_cycle(tmp_path):
    prog = _read(tmp_path, _SOCKET_TASK.format(motion=""))
    assert prog.unsupported == () and not len(prog.run.text)
    assert any("CONNECT: TRAP tReset moves nothing" in n.message for n in prog.notes)
    assert not prog.extra["unrun"]  # (ClearPath and ExitCycle are no motions of the TRAP)


def test_the_same_trap_in_a_task_that_moves_is_followed(tmp_path):
    prog = _read(tmp_path, _SOCKET_TASK.format(motion=_MOVE))
    assert prog.unsupported == () and len(prog.run.text) == 1


# A YuMi gripper task (held-out-16: zhyma/yumi's GripperMotion_left.mod, given without its HandDriver module) calls
# the IRB 14000 SmartGripper add-in's instructions. They move the fingers, never the arm: with no module of the task
# declaring them they are known instructions passed over, and the task is written back, not refused as calling
# routines "found in no module".
_GRIPPER_TASK = """MODULE GripperMotion
  PERS num current_pos := 0;
  PROC main()
    VAR num force := 0;
    Hand_JogOutward;
    Hand_Initialize \\maxSpd:=20, \\holdForce:=10;
    Hand_MoveTo 10;
    WHILE TRUE DO
      current_pos := Hand_GetActualPos();
      IF Hand_IsCalibrated() THEN
        Hand_GripInward \\holdForce:=force;
      ENDIF
      Hand_TurnOnVacuum1 \\threshold:=5;
      WaitTime 0.1;
    ENDWHILE
  ENDPROC
ENDMODULE
"""


def test_the_smartgripper_add_in_instructions_are_known_and_move_no_arm(tmp_path):
    from thermocomp.programs.options import ProgramOptions
    from thermocomp.programs.read import read_checked

    path = tmp_path / "GripperMotion.mod"
    path.write_text(_GRIPPER_TASK)
    prog = read_checked(path, ProgramOptions(), None)  # (refused before: "found in none of them")
    assert prog.unsupported == () and not len(prog.run.text) and not prog.extra["nowhere"]


def test_a_module_that_declares_a_smartgripper_name_is_followed_not_passed_over(tmp_path):
    own = _GRIPPER_TASK.replace("ENDMODULE", """  PROC Hand_MoveTo(num pos)
    MoveL [[500,0,500],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]], v100, fine, tool0;
  ENDPROC
ENDMODULE""")
    prog = _read(tmp_path, own)
    assert len(prog.run.text) == 1 and prog.motions[0].line == 18
