"""Gaps the tenth held-out gathering of real programs showed in the RAPID reader (issue 35), each tested from the
syntax of ABB's "Technical reference manual - RAPID kernel" and "RAPID Instructions, Functions and Data types",
not from the gathered texts.

1. Mutually exclusive optional parameters ("Parameter declarations": ``PROC p(num n, \\switch on | switch off)``;
   every alternative of the group is optional, at most one is given). The reader took an alternative after ``|``
   for a required parameter and refused every call of it: a pick-and-place demo's ``PerformMatrixOperation
   0,\\pick;`` was refused with "takes 2 argument(s) (nPositionIndex, place), got 1".
2. A cycle that moves nothing. The reader refuses data that one cycle reads before a later statement of the cycle
   gives it another value ("the next cycle would read that one"), because the next cycle's motions could read it.
   Where no motion runs at all, no motion can read it: a cycle-time statistics demo (``nTotal := nTotal +
   ClkRead(c)``) and a socket server counting its packages were refused instead of given back unchanged, as a
   program without motion is.
3. ``EGMStop`` ("EGMStop - Stop EGM movements"): it ends an EGM session and starts no movement; the movements of
   EGM are ``EGMRunJoint``, ``EGMRunPose``, ``EGMMoveL`` and ``EGMMoveC``, still refused. The reader refused it as
   an instruction that moves the robot, so a program that only streams positions to a sensor
   (``EGMActPose ... \\StreamStart``) around motions of constant joints was refused at its ``EGMStop``.
"""

from __future__ import annotations

import numpy as np
import pytest

from thermocomp.errors import InputError
from thermocomp.programs import read_program

_TARGET = "[[400,0,400],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]]"


def _exclusive_options_module(params: str, calls: str) -> str:
    """``main`` runs ``calls``; ``op`` moves to ``p`` offset by ``n`` along x, 50 mm higher when ``pick`` is given."""
    return ("MODULE m\n"
            f"    CONST robtarget p := {_TARGET};\n"
            f"    PROC op({params})\n"
            "        IF Present(pick) THEN\n"
            "            MoveL Offs(p, n, 0, 50), v100, fine, tool0;\n"
            "        ELSE\n"
            "            MoveL Offs(p, n, 0, 0), v100, fine, tool0;\n"
            "        ENDIF\n"
            "    ENDPROC\n"
            "    PROC main()\n"
            f"{calls}"
            "    ENDPROC\n"
            "ENDMODULE\n")


@pytest.mark.parametrize("params", [
    "num n, \\switch pick | switch place",
    "num n,\\switch pick|switch place",          # (as written without spaces)
    "num n \\switch pick | switch place",        # (the comma before an optional parameter left out)
])
def test_mutually_exclusive_optional_parameters_are_each_optional(tmp_path, params):
    """``op 10, \\pick;`` and ``op 20, \\place;`` both call ``op`` with one required argument: each motion's target
    is the offset its call gives (x 410 mm at z 450 mm, then x 420 mm at z 400 mm)."""
    path = tmp_path / "exclusive.mod"
    path.write_text(_exclusive_options_module(params, "        op 10, \\pick;\n        op 20, \\place;\n"))
    prog = read_program(path)
    assert prog.unsupported == ()
    assert [m.line for m in prog.motions] == [5, 7]
    np.testing.assert_allclose([m.points[-1].T_world_tcp[:3, 3] for m in prog.motions],
                               [[0.41, 0, 0.45], [0.42, 0, 0.4]], atol=1e-12)


def test_a_call_of_an_alternative_the_routine_does_not_declare_is_still_refused(tmp_path):
    """The alternatives are the routine's optional parameters, no others: ``\\drop`` is RAPID's error, at its call."""
    path = tmp_path / "unknown_option.mod"
    path.write_text(_exclusive_options_module("num n, \\switch pick | switch place", "        op 10, \\drop;\n"))
    with pytest.raises(InputError, match=r"op has no optional parameter \\drop") as caught:
        read_program(path)
    assert "line 11" in str(caught.value)


_CYCLE_STATISTICS = ("MODULE m\n"
                     f"    CONST robtarget p := {_TARGET};\n"
                     "    VAR clock c;\n"
                     "    VAR num total := 0;\n"
                     "    VAR num cycles := 0;\n"
                     "    PROC main()\n"
                     "        ClkStart c;\n"
                     "        WaitTime 1;\n"
                     "        total := total + {step};\n"
                     "        Incr cycles;\n"
                     "        TPWrite \"mean\" \\Num:=total / cycles;\n"
                     "{motion}"
                     "    ENDPROC\n"
                     "ENDMODULE\n")


def test_a_cycle_that_moves_nothing_is_not_refused_for_what_the_next_cycle_reads(tmp_path):
    """No motion runs, so none reads ``total`` or ``cycles``: read with no construct refused and no motion."""
    path = tmp_path / "statistics.mod"
    path.write_text(_CYCLE_STATISTICS.format(step="ClkRead(c)", motion=""))
    prog = read_program(path)
    assert prog.unsupported == ()
    assert len(prog.motions) == 0


def test_a_motion_of_a_cycle_that_reads_a_datum_the_cycle_changes_is_still_refused(tmp_path):
    """Where a motion of the cycle reads ``total`` (``Offs(p, total, 0, 0)``, ``total := total + 10``), the next
    cycle moves 10 mm further: refused at the motion, naming ``total`` and the line that adds to it."""
    path = tmp_path / "moving_statistics.mod"
    path.write_text(_CYCLE_STATISTICS.format(step="10", motion="        MoveL Offs(p, total, 0, 0), v100, fine, tool0;\n"))
    prog = read_program(path)
    assert [(f.line, f.message.split(" (")[0]) for f in prog.unsupported] == [(12, "total is changed at run time")]
    assert "(line 9, column 9; it differs from cycle to cycle)" in prog.unsupported[0].message


_EGM_STREAMING = ("MODULE m\n"
                  "    VAR egmident egm;\n"
                  "    CONST pose frame := [[0,0,0],[1,0,0,0]];\n"
                  "    PROC main()\n"
                  "        EGMGetId egm;\n"
                  "        EGMSetupUC ROB_1, egm, \"default\", \"UCdevice\" \\Pose;\n"
                  "        EGMActPose egm \\StreamStart \\Tool:=tool0 \\WObj:=wobj0, frame, EGM_FRAME_WOBJ, frame, "
                  "EGM_FRAME_WOBJ;\n"
                  "        MoveAbsJ [[0,0,0,0,30,0],[9E9,9E9,9E9,9E9,9E9,9E9]] \\NoEOffs, v1000, fine, tool0;\n"
                  "        MoveAbsJ [[30,0,0,0,30,0],[9E9,9E9,9E9,9E9,9E9,9E9]] \\NoEOffs, v1000, fine, tool0;\n"
                  "{run}"
                  "        EGMStop egm, EGM_STOP_HOLD;\n"
                  "        EGMReset egm;\n"
                  "    ENDPROC\n"
                  "ENDMODULE\n")


def test_egm_stop_of_a_streaming_session_starts_no_movement(tmp_path):
    """Positions streamed to a sensor, two motions of constant joints, the session stopped: both motions read, no
    construct refused."""
    path = tmp_path / "stream.mod"
    path.write_text(_EGM_STREAMING.format(run=""))
    prog = read_program(path)
    assert prog.unsupported == ()
    assert [m.line for m in prog.motions] == [8, 9]


def test_an_egm_movement_before_the_stop_is_still_refused_at_its_line(tmp_path):
    """``EGMRunPose`` moves the robot to poses a sensor sends: refused at its line, not at the ``EGMStop``."""
    path = tmp_path / "run.mod"
    path.write_text(_EGM_STREAMING.format(run="        EGMRunPose egm, EGM_STOP_HOLD \\x \\y \\z \\CondTime:=5;\n"))
    prog = read_program(path)
    assert [(f.line, f.message.split()[0]) for f in prog.unsupported] == [(10, "EGMRunPose")]
