"""Gaps the twelfth held-out gathering of real programs showed in the RAPID reader (issue 35), each tested from the
syntax of ABB's "Technical reference manual - RAPID kernel" and "RAPID Instructions, Functions and Data types"
(and the "Externally Guided Motion" application manual), not from the gathered texts.

1. A TRAP whose routine gives a value to its ``VAR`` parameter ("Parameters": a ``VAR`` or ``PERS`` parameter is
   passed by reference; an assignment to it assigns the data named at the call). The reader refused every TRAP that
   called such a routine, even where the data named at the call is read by no motion: a hand-camera task whose TRAP
   runs ``checkData camera_data_left`` (a ``VAR`` record of exposure settings) was refused as "an assignment to its
   parameter data ... at times known only while running" (held-out-12, a YuMi camera task with no motion at all).
   What the routine assigns through its parameter is the argument's, known only while running from the CONNECT on:
   a motion that reads it is still refused, naming it.
2. ``EGMActMove`` ("EGMActMove is used to activate a specific EGM process and to define the sensor frame ... for
   path correction"): it moves nothing; ``EGMMoveL``/``EGMMoveC`` move, their path corrected by the sensor. The
   reader knew neither as an instruction and asked for ``--module``/``--external EGMActMove`` before naming the
   corrected motion (held-out-12, an EGM path-correction example and an RWS client's test module).
3. A module cut off inside a block (issue and page excerpts are cut so; the URScript reader named the block left open,
   the RAPID one only "unexpected end of file"): the innermost block open and its line are named.
"""

from __future__ import annotations

import pytest
from program_builders import refusal_of

from thermocomp.programs import read_program

_TRAP = ("MODULE cam\n"
         "    RECORD camsettings\n"
         "        num exposure;\n"
         "    ENDRECORD\n"
         "    VAR camsettings settings := [8];\n"
         "    VAR robtarget p20 := [[500,100,400],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]];\n"
         "    CONST robtarget p10 := [[500,0,400],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]];\n"
         "    VAR intnum irq;\n"
         "    PROC clamp(VAR camsettings data)\n"
         "        IF data.exposure > 10 data.exposure := 10;\n"
         "    ENDPROC\n"
         "    PROC lift(VAR robtarget p)\n"
         "        p := Offs(p, 0, 0, 20);\n"
         "    ENDPROC\n"
         "    TRAP on_command\n"
         "        {trap_body}\n"
         "    ENDTRAP\n"
         "    PROC main()\n"
         "        CONNECT irq WITH on_command;\n"
         "        ISignalDI di1, 1, irq;\n"
         "        MoveL p10, v100, fine, tool0;\n"
         "        MoveL p20, v100, fine, tool0;\n"
         "    ENDPROC\n"
         "ENDMODULE\n")


def test_a_trap_whose_routine_assigns_a_parameter_no_motion_reads_is_followed(tmp_path):
    """``clamp settings;`` in the TRAP assigns ``settings`` by reference; no motion reads it: both motions read,
    nothing refused, and the CONNECT noted as a TRAP that moves nothing."""
    path = tmp_path / "trap.mod"
    path.write_text(_TRAP.format(trap_body="clamp settings;"))
    prog = read_program(path)
    assert prog.unsupported == ()
    assert [m.line for m in prog.motions] == [21, 22]
    assert any("TRAP on_command moves nothing" in note.message for note in prog.notes)


def test_a_trap_whose_routine_assigns_a_target_a_motion_reads_is_still_refused_naming_it(tmp_path):
    """``lift p20;`` in the TRAP changes ``p20`` at times known only while running: the motion to ``p20`` is refused
    at its line, naming ``p20``; the motion to the constant ``p10`` is read."""
    path = tmp_path / "trap.mod"
    path.write_text(_TRAP.format(trap_body="lift p20;"))
    prog = read_program(path)
    assert [(f.line, f.message.split()[0]) for f in prog.unsupported] == [(22, "p20")]
    assert [m.line for m in prog.motions] == [21]


_EGM_PATH = ("MODULE egmpath\n"
             "    VAR egmident egm;\n"
             "    CONST robtarget p10 := [[500,0,400],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]];\n"
             "    PERS tooldata pen := [TRUE,[[0,0,100],[1,0,0,0]],[1,[0,0,50],[1,0,0,0],0,0,0]];\n"
             "    PROC main()\n"
             "        EGMGetId egm;\n"
             "        EGMSetupUC ROB_1, egm, \"pathcorr\", \"UCdevice\" \\PathCorr \\APTR;\n"
             "        EGMActMove egm, pen.tframe \\SampleRate:=48;\n"
             "        MoveL p10, v100, fine, pen;\n"
             "{run}"
             "        EGMStop egm, EGM_STOP_HOLD;\n"
             "    ENDPROC\n"
             "ENDMODULE\n")


def test_egm_act_move_moves_nothing(tmp_path):
    """A path-correction session set up and activated, then an ordinary MoveL (no correction: only EGMMoveL and
    EGMMoveC are corrected): the motion read, nothing refused."""
    path = tmp_path / "egm.mod"
    path.write_text(_EGM_PATH.format(run=""))
    prog = read_program(path)
    assert prog.unsupported == ()
    assert [m.line for m in prog.motions] == [9]


def test_an_egm_corrected_motion_is_refused_at_its_line_not_the_activation(tmp_path):
    """``EGMMoveL`` follows the sensor's corrections: the one construct refused is it, at its line."""
    path = tmp_path / "egm.mod"
    path.write_text(_EGM_PATH.format(run="        EGMMoveL egm, Offs(p10, 100, 0, 0), v10, fine, pen;\n"))
    prog = read_program(path)
    assert [(f.line, f.message.split()[0]) for f in prog.unsupported] == [(10, "EGMMoveL")]


@pytest.mark.parametrize(("text", "line", "still_open"), [
    # a module cut off inside its routine's IF: the innermost block is named, as URScript's readers do
    ("MODULE M\nPROC main()\n  IF TRUE THEN\n    WaitTime 1;\n", 4, "IF (line 3) is not closed"),
    # a routine and a loop closed by their END words do not count: the module around them is what is open
    ("MODULE M\nPROC main()\n  FOR i FROM 1 TO 3 DO\n    WaitTime 1;\n  ENDFOR\nENDPROC\n", 6,
     "MODULE M (line 1) is not closed"),
    ("MODULE M\nRECORD pair\n  num a;\n", 3, "RECORD pair (line 2) is not closed"),
    ("MODULE M\nFUNC num f()\n  WHILE TRUE DO\n", 3, "WHILE (line 3) is not closed"),
    ("MODULE M\nTRAP t\n  TEST 1\n  CASE 1:\n    WaitTime 1;\n", 5, "TEST (line 3) is not closed"),
])
def test_a_module_that_ends_inside_a_block_names_the_block_and_its_line(tmp_path, text, line, still_open):
    """The RAPID kernel's blocks (MODULE ... ENDMODULE, PROC/FUNC/TRAP ... ENDPROC/ENDFUNC/ENDTRAP, RECORD ...
    ENDRECORD, IF/WHILE/FOR/TEST ... ENDIF/ENDWHILE/ENDFOR/ENDTEST): a file cut off inside one names it."""
    refusal = refusal_of(tmp_path / "cut.mod", text)
    assert refusal.row == line and "unexpected end of file" in str(refusal) and str(refusal).endswith(still_open)
