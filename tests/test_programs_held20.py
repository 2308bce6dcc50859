"""Classes of wrong refusals found on held-out-20 (real programs gathered after the reader was written), each
tested as a class from the manuals' syntax."""

from __future__ import annotations

import pytest

from thermocomp.programs import read_program
from thermocomp.programs.rapid_data import CONFIGURED_TYPES

_TARGET = "[[400,0,400],[0,0,1,0],[0,0,0,0],[9E+09,9E+09,9E+09,9E+09,9E+09,9E+09]]"


def _read(tmp_path, text: str, name: str = "MainModule.mod"):
    path = tmp_path / name
    path.write_text(text)
    return read_program(path)


# ABB, RAPID reference, signalxx and mecunit: their data "must not be defined in the program" (the system parameters
# define them); an Integrated Vision camera (cameradev) is named in its configuration. Passed to a routine that
# moves (AssistiveRoboticsUNH's Main_060917: a camera name given to a routine that moves), such a name is declared
# in no module and was refused as "a datum of another module of the task".
@pytest.mark.parametrize("dtype", sorted(CONFIGURED_TYPES))
def test_a_name_the_system_parameters_define_is_passed_to_a_routine_that_moves(tmp_path, dtype):
    prog = _read(tmp_path, f"""MODULE MainModule
    CONST robtarget p10:={_TARGET};
    PROC main()
        Pick devFromConfig;
    ENDPROC
    PROC Pick(VAR {dtype} dev)
        MoveL p10,v100,fine,tool0;
    ENDPROC
ENDMODULE
""")
    assert prog.unsupported == () and len(prog.run.text) == 1


def test_a_name_of_another_type_declared_nowhere_is_still_refused(tmp_path):
    prog = _read(tmp_path, f"""MODULE MainModule
    CONST robtarget p10:={_TARGET};
    PROC main()
        Pick pNowhere;
    ENDPROC
    PROC Pick(robtarget p)
        MoveL p10,v100,fine,tool0;
    ENDPROC
ENDMODULE
""")
    assert [f.message.split(" (")[0] for f in prog.unsupported] == ["pNowhere is not declared in this module"]


def test_a_signal_the_module_declares_is_its_own(tmp_path):
    # a VAR signaldo declared in RAPID (an alias set with AliasIO) is the module's datum, as any other
    prog = _read(tmp_path, f"""MODULE MainModule
    CONST robtarget p10:={_TARGET};
    VAR signaldo doAlias;
    PROC main()
        AliasIO "doGripper", doAlias;
        Pick doAlias;
    ENDPROC
    PROC Pick(VAR signaldo grip)
        MoveL p10,v100,fine,tool0;
        SetDO grip, 1;
    ENDPROC
ENDMODULE
""")
    assert prog.unsupported == () and len(prog.run.text) == 1


# The URScript manual: a function may return a value (``return``), and a move's pose argument is any pose expression.
# A target computed by a function of the script whose return reads a value known only while running (held-out-20's
# spreading protocol: ``movel(apply_correction(p[...]))`` with a frame measured by ``get_actual_tcp_pose()``) was
# refused as "expected a pose p[...] or 6 joint positions [...] as the target", naming neither the datum nor why.
_CORRECTED = """global NOMINAL = p[0.0, 0.5, 0.05, 3.14159, 0, 0]
global MEAS = p[0.0, 0.5, 0.05, 3.14159, 0, 0]
def probe():
  touch = get_actual_tcp_pose()
  MEAS = p[NOMINAL[0], NOMINAL[1], {z}, NOMINAL[3], NOMINAL[4], NOMINAL[5]]
end
def corr(p_world):
  return pose_trans(MEAS, pose_trans(pose_inv(NOMINAL), p_world))
end
def prog():
  probe()
  movel(corr(p[0.01, 0.5, 0.05, 3.14159, 0, 0]), a=0.8, v=0.1)
end
prog()
"""


def test_a_target_a_function_returns_of_a_value_known_only_while_running_names_that_value(tmp_path):
    prog = _read(tmp_path, _CORRECTED.format(z="touch[2]"), "probe.script")
    assert [(f.line, f.message) for f in prog.unsupported] == [(12, (
        "the value corr(...) returns is not known before running: the value of MEAS is not known before running "
        "(line 5 gives it a value of touch, known only while running)"))]


def test_a_target_a_function_returns_of_known_values_is_compensated(tmp_path):
    prog = _read(tmp_path, _CORRECTED.format(z="0.06"), "probe.script")
    assert prog.unsupported == () and len(prog.run.text) == 1
    assert abs(prog.points[0].T_world_tcp[2, 3] - 0.06) < 1e-9  # (MEAS 1 cm above NOMINAL: the target too)
