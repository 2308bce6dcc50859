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
    assert prog.unsupported == () and len(prog.columns.run.text) == 1


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
    assert prog.unsupported == () and len(prog.columns.run.text) == 1
