"""RAPID the third held-out trial (issue 35, item 5) found followed wrongly, each class tested from ABB's manuals.

"Technical reference manual - RAPID overview" and "RAPID kernel": a FUNC is a routine like a PROC (its body may hold
any instruction, motions too) called from an expression; a routine may call itself (recursion), directly or through
others, and a RAPID program often restarts its cycle so (``main;`` as the last statement of a routine ``main``
calls). The trial's programs: a command server whose motions all run inside FUNCs called from ``x := f(...)``, and a
PLC-driven cell whose every routine calls ``main`` again at its end.
"""

from __future__ import annotations

import time

import pytest
from program_builders import read_module

_HEAD = ("MODULE cell\n"
         "  CONST robtarget p10 := [[500,0,600],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]];\n"
         "  CONST robtarget p20 := [[450,100,550],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]];\n"
         "  PERS tooldata tPen := [TRUE,[[0,0,100],[1,0,0,0]],[1,[0,0,50],[1,0,0,0],0,0,0]];\n")


def _lines(prog) -> set[int]:
    return {finding.line for finding in prog.unsupported}


_MOVING_FUNC = ("  FUNC string Place(num dx)\n"             # line 5
                "    MoveL Offs(p10, dx, 0, 0), v100, fine, tPen;\n"  # line 6
                "    RETURN \"done\";\n"
                "  ENDFUNC\n")


def test_a_func_that_moves_called_in_an_assignment_is_not_passed_over_in_silence(tmp_path):
    """A FUNC's body may hold a motion (RAPID overview, "Routines"): the motion runs when the expression is evaluated.
    The reader either follows it or refuses naming it; it never reports a program of zero motions."""
    prog = read_module(tmp_path, _HEAD, _MOVING_FUNC + "  VAR string s;\n  PROC main()\n    s := Place(10);\n  ENDPROC\n")
    assert prog.points or prog.unsupported, "the FUNC's MoveL was neither compensated nor refused"
    if prog.unsupported:
        assert any("line 6" in f.message or f.line == 6 for f in prog.unsupported), prog.unsupported


def test_a_func_that_moves_makes_the_loop_around_its_call_hold_a_motion(tmp_path):
    """The command-server form: ``WHILE TRUE DO ... s := Command(s); ENDWHILE`` where Command calls a FUNC that
    moves. The WHILE holds a motion, so it cannot be passed over as one that "holds no motion": Command runs as a
    call (its value assigned), and the loop changes ``s``, its argument, which decides whether it moves: refused at
    the call, naming ``s``."""
    body = (_MOVING_FUNC
            + "  FUNC string Command(string c)\n    IF c = \"place\" THEN\n      c := Place(5);\n    ENDIF\n"
              "    RETURN c;\n  ENDFUNC\n"
            + "  VAR string s;\n  PROC main()\n    MoveJ p20, v500, z10, tPen;\n"
              "    WHILE DInput(diGo) = 1 DO\n      s := Command(s);\n    ENDWHILE\n  ENDPROC\n")
    prog = read_module(tmp_path, _HEAD, body)
    assert prog.unsupported, "a loop on an input around a moving FUNC was passed over"
    call = (_HEAD + body).splitlines().index("      s := Command(s);") + 1
    assert [(f.line, f.message.split(" (")[0]) for f in prog.unsupported] == [(call, "s is changed at run time")]


_CELL = ("  PROC main()\n"
         "    IF GInput(giProg) = 1 THEN\n      ToPick;\n"
         "    ELSEIF GInput(giProg) = 2 THEN\n      ToHome;\n    ENDIF\n  ENDPROC\n"
         "  PROC ToPick()\n    MoveJ p10, v500, z10, tPen;\n    MoveL Offs(p10, 0, 0, -50), v100, fine, tPen;\n"
         "    main;\n  ENDPROC\n"
         "  PROC ToHome()\n    MoveJ p20, v500, z10, tPen;\n    main;\n  ENDPROC\n")


def test_a_cycle_restarted_by_calling_main_again_is_read_quickly_and_compensated(tmp_path):
    """Every routine ends with ``main;`` (RAPID kernel: a routine may call itself, directly or through others). The
    targets are constants: the program is compensated, and reading it does not unroll the recursion (which would
    never end) until a statement bound."""
    start = time.process_time()
    prog = read_module(tmp_path, _HEAD, _CELL)
    assert time.process_time() - start < 5.0
    assert prog.unsupported == (), prog.unsupported
    assert len(prog.points) >= 3


def test_a_recursion_whose_motion_reads_a_counter_is_refused_naming_it(tmp_path):
    """``nStep := nStep + 1; MoveL Offs(p10, nStep, 0, 0) ...; main;``: each restart moves elsewhere, so the
    motion's data differ from pass to pass and it is refused, naming the motion's line or the counter."""
    body = ("  VAR num nStep := 0;\n  PROC main()\n    nStep := nStep + 1;\n"
            "    MoveL Offs(p10, nStep, 0, 0), v100, fine, tPen;\n    main;\n  ENDPROC\n")
    prog = read_module(tmp_path, _HEAD, body)
    assert prog.unsupported, "a motion that moves 1 mm further on every restart was compensated"
    assert any("nStep" in f.message or f.line == 8 for f in prog.unsupported), prog.unsupported


@pytest.mark.parametrize("depth", [1, 2])
def test_a_recursion_with_arguments_stays_bounded(tmp_path, depth):
    """A recursive routine with a parameter (Hanoi's form) is not cut after two passes: its data differ by call and
    it stays refused, within a bound, as before."""
    body = ("  PROC Descend(num n)\n    IF n > 0 THEN\n      MoveL Offs(p10, n, 0, 0), v100, fine, tPen;\n"
            "      Descend n - 1;\n    ENDIF\n  ENDPROC\n"
            f"  PROC main()\n    Descend {depth + 3};\n  ENDPROC\n")
    start = time.process_time()
    prog = read_module(tmp_path, _HEAD, body)
    assert time.process_time() - start < 5.0
    assert prog.unsupported or len(prog.points) == depth + 3


_ARRAY_TASK = ("  CONST robtarget pts{2} := [p10, p20];\n"
               "  PROC Visit(num i)\n    MoveL pts{i}, v100, fine, tPen;\n  ENDPROC\n"
               "  PROC main()\n    FOR i FROM 1 TO 2 DO\n      Visit i;\n    ENDFOR\n  ENDPROC\n")
_TEST_ROUTINE = "  PROC VisitTest(num i)\n    MoveJ pts{i}, v500, z10, tPen;\n  ENDPROC\n"


@pytest.mark.parametrize("with_test_routine", [False, True])
def test_a_routine_no_cycle_runs_does_not_stop_rewriting_the_data_it_reads(tmp_path, with_test_routine):
    """Wlups' form (RAPID kernel, arrays and parameters): ``Visit i`` moves to ``pts{i}``, a CONST array of named
    CONST robtargets, once per pass of a FOR of fixed count. Each call needs another target at ``MoveL pts{i}``, so
    the targets go back to their declarations. A test routine the entry never calls (``VisitTest``) reads the same
    data: it never runs in the cycle, so it does not keep the declarations as written (a note names it); the
    program is compensated either way."""
    prog = read_module(tmp_path, _HEAD, _ARRAY_TASK + (_TEST_ROUTINE if with_test_routine else ""))
    assert prog.unsupported == (), prog.unsupported
    assert len(prog.points) == 2
