"""RAPID the held-out trial found unread (issue 35, item 5), each class tested from ABB's manuals, not from a program.

"Technical reference manual - RAPID kernel" (character set and identifiers) and "RAPID Instructions, Functions and
Data types" (the base instructions): identifiers may use ISO 8859-1's national letters; every base instruction is
known, either as one that moves nothing (passed over, its written arguments changed at run time) or as one that
moves the robot or ties its motions to something known only while running (refused, naming it and its line).
"""

from __future__ import annotations

import numpy as np
import pytest
from test_programs_rapid_language import _language_module, _read_clean

from thermocomp.errors import InputError
from thermocomp.programs import read_program


def _read_latin1(tmp_path, src: str):
    """The module written as a controller holds it (ISO 8859-1) and read."""
    path = tmp_path / "cell.mod"
    path.write_bytes(src.encode("latin-1"))
    return read_program(path)


def test_identifiers_may_use_the_national_letters_of_iso_8859_1(tmp_path, rng):
    """RAPID kernel, "Character set": a letter is A-Z, a-z or one of ISO 8859-1's national letters (À to ÿ but for
    × and ÷); an identifier is a letter, then letters, digits and underscores. A routine, a datum and a parameter
    named so are read as any other."""
    routine = ("  PROC Año(num Größe)\n    MoveJ Offs(a, 0, 0, Größe - Größe), v500, z10, tGrip;\n  ENDPROC\n"
               "  PROC Ñ()\n    MoveL b, v100, fine, tGrip;\n  ENDPROC\n")
    src, want = _language_module(rng, decl="  CONST num Ångström := 3;\n",
                                 motions="    Año Ångström;\n    Ñ;\n")
    prog = _read_latin1(tmp_path, src.replace("ENDMODULE\n", routine + "ENDMODULE\n"))
    assert prog.unsupported == (), prog.unsupported
    np.testing.assert_allclose(np.stack([p.T_world_tcp for p in prog.points]), want, atol=1e-12)


@pytest.mark.parametrize("sign", ["\xd7", "\xf7", "\xa4"])
def test_a_sign_that_is_no_letter_is_still_a_syntax_error_with_its_line(tmp_path, rng, sign):
    """× and ÷ (and ¤) are no letters: ``VAR num a×b`` is text the controller rejects, named with line and column."""
    src, _ = _language_module(rng, decl=f"  VAR num n{sign}k := 1;\n")
    line = src[:src.index(f"n{sign}k")].count("\n") + 1
    with pytest.raises(InputError, match=rf"line {line}\b.*column"):
        _read_latin1(tmp_path, src)


#: Base instructions that move nothing, each in the manual's syntax, between ``MoveJ a`` and ``MoveL b``.
PASSIVE = {
    "CornerPathWarning": "    CornerPathWarning FALSE;\n    CornerPathWarning TRUE;\n",
    "camera set-up and request": "    CamSetProgramMode mycamera;\n    CamLoadJob mycamera, \"myjob.job\";\n"
                                 "    CamSetRunMode mycamera;\n    CamReqImage mycamera;\n    CamFlush mycamera;\n",
    "I/O bus and alias reset": "    IOBusStart \"DNet\";\n    AliasIOReset config_do;\n",
    "cyclic conditions": "    SetupCyclicBool cb1, DInput(diReady) = 1;\n    RemoveCyclicBool cb1;\n"
                         "    RemoveAllCyclicBool;\n",
    "program pointer and integer checks": "    ResetPPMoved;\n    TryInt nCount;\n",
    "friction identification": "    FricIdInit;\n    FricIdEvaluate fric_levels;\n",
    "sensor and block writes": "    SenDevice \"sen1:\";\n    WriteVar \"sen1:\", 2, 1;\n"
                               "    WriteBlock \"sen1:\", 3, \"bl.txt\";\n",
    "system stop action": "    SystemStopAction \\Stop;\n",
}


@pytest.mark.parametrize("feature", sorted(PASSIVE))
def test_base_instructions_that_move_nothing_are_passed_over(tmp_path, rng, feature):
    _read_clean(tmp_path, *_language_module(rng, statements=PASSIVE[feature]))


def test_an_instruction_that_computes_a_tool_makes_that_tool_known_only_while_running(tmp_path, rng):
    """RAPID Instructions, ``MToolTCPCalib p1, p2, p3, p4, Tool, MaxErr, MeanErr``: the tool's TCP is computed from
    positions taken on the robot; a motion with that tool is refused naming it and the line that computes it (the
    first motion too: the next cycle would read the computed tool there)."""
    decl = ("  PERS tooldata tCal := [TRUE,[[0,0,100],[1,0,0,0]],[1,[0,0,50],[1,0,0,0],0,0,0]];\n"
            "  CONST jointtarget j1 := [[0,0,0,0,30,0],[9E9,9E9,9E9,9E9,9E9,9E9]];\n  VAR num nMax;\n  VAR num nMean;\n")
    motions = ("    MoveJ a, v500, z10, tCal;\n    MToolTCPCalib j1, j1, j1, j1, tCal, nMax, nMean;\n"
               "    MoveL b, v100, fine, tCal;\n")
    src, _ = _language_module(rng, decl=decl, motions=motions)
    prog = _read_latin1(tmp_path, src)
    line = src[:src.index("MoveL b")].count("\n") + 1
    calib = src[:src.index("MToolTCPCalib")].count("\n") + 1
    assert any(f.line == line and "tCal" in f.message and f"line {calib}" in f.message for f in prog.unsupported), \
        prog.unsupported


@pytest.mark.parametrize("instruction", ["SyncMoveSuspend;", "WaitSensor Ssync1;", "LoadId tool1;",
                                         "STClose \"SERVOGUN\", 1000, 5;"])
def test_base_instructions_that_move_or_tie_the_motions_are_refused_with_their_line(tmp_path, rng, instruction):
    """Load identification moves axes by itself, a sensor's or another task's synchronisation ties the motions to
    run-time events, a servo gun moves an axis: refused, the instruction and its line named."""
    src, _ = _language_module(rng, statements=f"    {instruction}\n")
    prog = _read_latin1(tmp_path, src)
    line = src[:src.index(instruction)].count("\n") + 1
    name = instruction.split()[0].rstrip(";")
    assert any(f.line == line and name in f.message for f in prog.unsupported), prog.unsupported
