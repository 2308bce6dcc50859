"""Classes of wrong refusals found on held-out-22 (real programs gathered after the reader was written), each
tested as a class from the RAPID manual's syntax: a routine's IN parameters are its own variables."""

from __future__ import annotations

import pytest
from program_builders import read_main_module, xyz_mm

_TARGET = "[[400,0,400],[0,0,1,0],[0,0,0,0],[9E+09,9E+09,9E+09,9E+09,9E+09,9E+09]]"


# RAPID reference, routine parameters: a parameter declared without INOUT, VAR or PERS is an IN parameter, "initialized
# with the value of the argument and used as a variable in the routine": an assignment to it changes the routine's copy,
# never the argument (held-out-22: a Tower of Hanoi passes CONST robtargets to a routine that shifts its parameters with
# Offs and calls itself; the argument was taken as changed at run time and the program refused).
@pytest.mark.parametrize("argument", ["p10", "Offs(p10, 0, 0, 0)"])
def test_an_assignment_to_an_in_parameter_is_followed_and_leaves_the_argument(tmp_path, argument):
    prog = read_main_module(tmp_path, f"""MODULE MainModule
    CONST robtarget p10:={_TARGET};
    PROC main()
        Stack {argument}, 3;
        MoveL p10, v100, fine, tool0;
    ENDPROC
    PROC Stack(robtarget p, num n)
        FOR i FROM 1 TO n DO
            MoveL p, v100, fine, tool0;
            p := Offs(p, 0, 0, 20);
        ENDFOR
    ENDPROC
ENDMODULE
""")
    assert prog.unsupported == ()
    assert [z for _, _, z in xyz_mm(prog)] == [400, 420, 440, 400]


def test_a_num_in_parameter_counted_down_by_the_routine_leaves_the_callers_variable(tmp_path):
    prog = read_main_module(tmp_path, f"""MODULE MainModule
    CONST robtarget p10:={_TARGET};
    VAR num count := 2;
    PROC main()
        Steps count;
        MoveL Offs(p10, 10 * count, 0, 0), v100, fine, tool0;
    ENDPROC
    PROC Steps(num left)
        WHILE left > 0 DO
            MoveL Offs(p10, 0, 10 * left, 0), v100, fine, tool0;
            left := left - 1;
        ENDWHILE
    ENDPROC
ENDMODULE
""")
    assert prog.unsupported == ()
    assert [(x, y) for x, y, _ in xyz_mm(prog)] == [(400, 20), (400, 10), (420, 0)]


def test_a_recursion_passing_shifted_in_parameters_is_followed(tmp_path):
    # (the held-out-22 Tower of Hanoi's shape: the routine shifts its robtarget parameters, then passes them on)
    prog = read_main_module(tmp_path, f"""MODULE MainModule
    CONST robtarget pFrom:={_TARGET};
    PROC main()
        Tower 3, pFrom;
    ENDPROC
    PROC Tower(num n, robtarget p)
        IF n = 0 RETURN;
        p := Offs(p, 0, 0, 10);
        MoveL p, v100, fine, tool0;
        Tower n - 1, p;
    ENDPROC
ENDMODULE
""")
    assert prog.unsupported == ()
    assert [z for _, _, z in xyz_mm(prog)] == [410, 420, 430]


def test_a_function_may_change_its_own_in_parameter(tmp_path):
    prog = read_main_module(tmp_path, f"""MODULE MainModule
    CONST robtarget p10:={_TARGET};
    PROC main()
        MoveL Up(p10, 30), v100, fine, tool0;
        MoveL p10, v100, fine, tool0;
    ENDPROC
    FUNC robtarget Up(robtarget p, num dz)
        p := Offs(p, 0, 0, dz);
        RETURN p;
    ENDFUNC
ENDMODULE
""")
    assert prog.unsupported == ()
    assert [z for _, _, z in xyz_mm(prog)] == [430, 400]


@pytest.mark.parametrize("mode", ["INOUT", "VAR"])
def test_an_assignment_to_a_parameter_passed_by_reference_changes_the_argument(tmp_path, mode):
    # (the other side of the class: INOUT and VAR parameters are the caller's datum, as before)
    prog = read_main_module(tmp_path, f"""MODULE MainModule
    CONST robtarget p10:={_TARGET};
    VAR robtarget q;
    PROC main()
        q := p10;
        Lift q;
        MoveL q, v100, fine, tool0;
    ENDPROC
    PROC Lift({mode} robtarget p)
        p := Offs(p, 0, 0, 20);
    ENDPROC
ENDMODULE
""")
    assert len(prog.unsupported) == 1
    assert "q is changed at run time (line 10" in prog.unsupported[0].message
