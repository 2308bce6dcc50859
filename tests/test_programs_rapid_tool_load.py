"""A tool's load given at run time changes no point (issue 35: a motion's data decide, and only the data it reads).

ABB, "RAPID Instructions, Functions and Data types", ``tooldata``: ``[robhold, tframe, tload]``; ``tframe`` places
the TCP, ``tload`` (a ``loaddata``: mass, centre of gravity, axes of moment, inertia) is the payload the controller's
dynamics use: a tool changer sets ``tGripper.tload := loadPart;`` when it picks a part. A motion's point reads the
tool's ``robhold`` and ``tframe`` only, so a ``tload`` (or ``tools{i}.tload``) given in a branch on an input, or after
the motion in the cycle, leaves its motions compensated; a ``tframe`` given so is still refused naming the tool.
"""

from __future__ import annotations

import pytest
from program_builders import read_module

from thermocomp.programs import read_program

_HEAD = ("MODULE cell\n"
         "  CONST robtarget p10 := [[500,0,600],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]];\n"
         "  CONST robtarget p20 := [[450,100,550],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]];\n"
         "  PERS tooldata tGrip := [TRUE,[[0,0,100],[1,0,0,0]],[1,[0,0,50],[1,0,0,0],0,0,0]];\n"
         "  PERS tooldata tools{2} := [[TRUE,[[0,0,100],[1,0,0,0]],[1,[0,0,50],[1,0,0,0],0,0,0]],\n"
         "                            [TRUE,[[0,0,150],[1,0,0,0]],[2,[0,0,60],[1,0,0,0],0,0,0]]];\n"
         "  CONST loaddata loadPart := [4.5,[0,0,120],[1,0,0,0],0.01,0.01,0.02];\n")


@pytest.mark.parametrize("tool", ["tGrip", "tools{2}"])
@pytest.mark.parametrize("given", ["{tool}.tload := loadPart;", "{tool}.tload.mass := 4.5;",
                                   "{tool}.tload.cog.z := 120;"])
def test_a_load_given_in_a_branch_on_an_input_leaves_the_tools_motions_compensated(tmp_path, tool, given):
    body = ("  PROC main()\n"
            "    IF DInput(diPart) = 1 THEN\n"
            f"      {given.format(tool=tool)}\n"
            "    ENDIF\n"
            f"    MoveJ p20, v500, z10, {tool};\n"
            f"    MoveL p10, v100, fine, {tool};\n"
            "  ENDPROC\n")
    prog = read_module(tmp_path, _HEAD, body)
    assert prog.unsupported == (), prog.unsupported
    assert len(prog.points) == 2


@pytest.mark.parametrize("tool", ["tGrip", "tools{2}"])
def test_a_load_given_after_the_motion_in_the_cycle_leaves_it_compensated(tmp_path, tool):
    """The next cycle reads another load, not another point: no "read here before ... gives it another value"."""
    body = (f"  PROC main()\n    MoveL p10, v100, fine, {tool};\n    {tool}.tload := loadPart;\n  ENDPROC\n")
    prog = read_module(tmp_path, _HEAD, body)
    assert prog.unsupported == (), prog.unsupported
    assert len(prog.points) == 1


@pytest.mark.parametrize("given", ["tGrip.tframe.trans.z := 120;", "tGrip := tools{2};", "tGrip.robhold := FALSE;"])
def test_a_tool_frame_given_in_a_branch_on_an_input_is_still_refused_naming_the_tool(tmp_path, given):
    body = ("  PROC main()\n"
            "    IF DInput(diPart) = 1 THEN\n"
            f"      {given}\n"
            "    ENDIF\n"
            "    MoveL p10, v100, fine, tGrip;\n"
            "  ENDPROC\n")
    prog = read_module(tmp_path, _HEAD, body)
    assert prog.unsupported, "a motion whose tool frame depends on an input was compensated"
    assert all("tGrip" in finding.message for finding in prog.unsupported), prog.unsupported


def test_a_speed_part_of_a_record_given_in_a_branch_on_an_input_stays_a_change_the_timing_names(tmp_path):
    """Only a load is passed over: a ``speeddata`` part (``r.speed := v1000;``) is read by the timing, so the motion
    reading it still says its speed is not known (a note: the point is compensated)."""
    path = tmp_path / "cell.mod"
    path.write_text("MODULE cell\n"
                    "  RECORD param\n    speeddata speed;\n    loaddata load;\n  ENDRECORD\n"
                    "  CONST robtarget p10 := [[500,0,600],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]];\n"
                    "  VAR param r := [[100,500,5000,1000],[1,[0,0,50],[1,0,0,0],0,0,0]];\n"
                    "  PROC main()\n    IF DInput(diFast) = 1 THEN\n      r.speed := v1000;\n      r.load.mass := 4;\n"
                    "    ENDIF\n    MoveL p10, r.speed, fine, tool0;\n  ENDPROC\nENDMODULE\n")
    prog = read_program(path)
    assert prog.unsupported == (), prog.unsupported
    assert any("r is changed at run time (line 10" in note.message and "speed is taken as" in note.message
               for note in prog.notes), [note.message for note in prog.notes]
