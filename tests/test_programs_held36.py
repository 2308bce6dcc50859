"""The class held-out-36 showed, tested as a class from RobotWare 7's file naming: a system module saved as ``.sysx``.

RobotWare 7 (OmniCore) saves a task's program modules as ``.modx`` and its system modules as ``.sysx`` (a backup's
``RAPID/TASKn/SYSMOD/*.sysx``, as the ``.sys`` of RobotWare 6). ``.modx`` was read; a ``.sysx`` module was refused
before its text was read (``--module: expected a RAPID module ending in .mod, .modx, .prg, .sys``), so a GoFa backup's
task (compas_rrc's robot task, whose routines are in ``.sysx`` system modules) could not be given whole.
"""

from __future__ import annotations

import pytest

from thermocomp.errors import InputError
from thermocomp.programs import read_program
from thermocomp.programs.options import RapidOptions

_P10 = "[[500,0,400],[0,0,1,0],[0,0,0,0],[9E+09,9E+09,9E+09,9E+09,9E+09,9E+09]]"


def _task(tmp_path, suffix: str):
    main = tmp_path / "Main.modx"
    main.write_text("MODULE Main\n  PROC main()\n    r_Go;\n  ENDPROC\nENDMODULE\n")
    system = tmp_path / f"Base{suffix}"
    system.write_text(f"MODULE Base(SYSMODULE)\n  CONST robtarget p10 := {_P10};\n  PROC r_Go()\n"
                      "    MoveL p10, v100, fine, tool0;\n  ENDPROC\nENDMODULE\n")
    return main, system


# Each: a system module of RobotWare 7 (.sysx) and of RobotWare 6 (.sys), given as the task's other module or read
# as the program itself: its routine's motion is read in either case.
@pytest.mark.parametrize("suffix", [".sysx", ".SYSX", ".sys"])
def test_a_system_module_of_robotware_7_is_read_as_rapid(tmp_path, suffix):
    main, system = _task(tmp_path, suffix)
    program = read_program(main, rapid=RapidOptions(modules=(str(system),)))
    assert [m.instruction for m in program.motions] == ["MoveL"]
    assert [m.instruction for m in read_program(system, rapid=RapidOptions(entry="r_Go")).motions] == ["MoveL"]


def test_a_module_of_another_extension_is_still_refused(tmp_path):
    main, system = _task(tmp_path, ".sysz")
    with pytest.raises(InputError, match=r"--module: expected a RAPID module ending in .*\.sysx, got 'Base\.sysz'"):
        read_program(main, rapid=RapidOptions(modules=(str(system),)))
