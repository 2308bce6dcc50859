"""Classes of wrong refusals found on held-out-21 (real programs gathered after the reader was written), each
tested as a class from the RAPID manual's syntax: WHILE loops whose passes the file fixes."""

from __future__ import annotations

import pytest

from thermocomp.errors import InputError
from thermocomp.programs import read_program
from thermocomp.programs.rapid import RapidOptions

_TARGET = "[[400,0,400],[0,0,1,0],[0,0,0,0],[9E+09,9E+09,9E+09,9E+09,9E+09,9E+09]]"


def _read(tmp_path, text: str, options: RapidOptions | None = None):
    path = tmp_path / "MainModule.mod"
    path.write_text(text)
    return read_program(path, rapid=options)


def _xyz_mm(prog) -> list[list[float]]:
    return [[round(v * 1000.0, 6) for v in p.T_world_tcp[:3, 3]] for p in prog.points]


# RAPID reference, WHILE: "repeats the statements as long as the condition evaluates to TRUE". A WHILE whose
# condition reads a counter the body steps by known values is a loop whose count the file fixes (issue 35): followed
# pass by pass, as a FOR is (held-out-21: a WHILE over the letters of a constant string writes each letter).
@pytest.mark.parametrize(("setup", "condition", "step", "offsets"), [
    ("VAR num i := 1;", "i < 4", "i := i + 1;", [10, 20, 30]),
    ("VAR num i := 3;", "i > 0", "i := i - 1;", [30, 20, 10]),
    ("VAR num i := 0;", "i <= 40 AND i <> 20", "i := i + 10;", [0, 100]),
    ("VAR bool more := TRUE; VAR num i := 1;", "more", "i := i + 1; more := i <= 2;", [10, 20]),
])
def test_a_while_whose_passes_the_file_fixes_is_followed_pass_by_pass(tmp_path, setup, condition, step, offsets):
    prog = _read(tmp_path, f"""MODULE MainModule
    CONST robtarget p10:={_TARGET};
    PROC main()
        {setup}
        WHILE {condition} DO
            MoveL Offs(p10, 10 * i, 0, 0), v100, fine, tool0;
            {step}
        ENDWHILE
        MoveL p10, v100, fine, tool0;
    ENDPROC
ENDMODULE
""")
    assert prog.unsupported == ()
    assert [x for x, _, _ in _xyz_mm(prog)] == [400 + d for d in offsets] + [400]
    assert any("WHILE: its condition is decided by the file at every pass" in n.message for n in prog.notes)


def test_a_while_over_the_characters_of_a_constant_string_follows_each_one(tmp_path):
    prog = _read(tmp_path, f"""MODULE MainModule
    CONST robtarget p10:={_TARGET};
    PROC main()
        Word "dad";
    ENDPROC
    PROC Word(string name)
        VAR num i := 1;
        WHILE i < StrLen(name) + 1 DO
            IF StrPart(name, i, 1) = "d" THEN
                Letter i, 10;
                i := i + 1;
            ELSEIF StrPart(name, i, 1) = "a" THEN
                Letter i, 20;
                i := i + 1;
            ENDIF
        ENDWHILE
    ENDPROC
    PROC Letter(num i, num dz)
        MoveL RelTool(p10, 0, -80 * (i - 1), dz), v100, fine, tool0;
    ENDPROC
ENDMODULE
""")
    assert prog.unsupported == ()
    assert [y for _, y, _ in _xyz_mm(prog)] == [0, -80, -160]  # (tool z down: RelTool's z is the base's -z)
    assert [z for _, _, z in _xyz_mm(prog)] == [390, 380, 390]


@pytest.mark.parametrize("step", ["IF DInput(di1) = 1 THEN i := i + 1; ENDIF", "i := i + DInput(di1);",
                                  "i := i + 1; TPReadNum i, \"i?\";"])
def test_a_while_whose_counter_running_decides_is_followed_once_as_before(tmp_path, step):
    prog = _read(tmp_path, f"""MODULE MainModule
    CONST robtarget p10:={_TARGET};
    PROC main()
        VAR num i := 1;
        WHILE i < 4 DO
            MoveL p10, v100, fine, tool0;
            MoveL Offs(p10, 10 * i, 0, 0), v100, fine, tool0;
            {step}
        ENDWHILE
    ENDPROC
ENDMODULE
""")
    assert [f.message.split(" (line")[0] for f in prog.unsupported] == ["i is changed at run time"]
    assert not any("followed pass by pass" in n.message for n in prog.notes)


def test_a_while_true_that_counts_nothing_is_still_one_pass(tmp_path):
    # (a loop forever in a routine the cycle calls: not a loop whose count the file fixes)
    prog = _read(tmp_path, f"""MODULE MainModule
    CONST robtarget p10:={_TARGET};
    PROC main()
        Serve;
    ENDPROC
    PROC Serve()
        VAR num i := 0;
        WHILE TRUE DO
            MoveL p10, v100, fine, tool0;
            i := i + 1;
        ENDWHILE
    ENDPROC
ENDMODULE
""")
    assert prog.unsupported == () and len(prog.points) == 1


def test_a_while_the_file_never_ends_is_refused_at_the_motion_bound(tmp_path):
    # (the condition holds at every pass: the controller would loop forever; the reader stops at --max-motions)
    with pytest.raises(InputError, match=r"line 5.*WHILE unrolls to more than --max-motions 40 steps"):
        _read(tmp_path, f"""MODULE MainModule
    CONST robtarget p10:={_TARGET};
    PROC main()
        VAR num i := 1;
        WHILE i < 4 DO
            MoveL Offs(p10, 10 * i, 0, 0), v100, fine, tool0;
            i := i * 1;
        ENDWHILE
    ENDPROC
ENDMODULE
""", RapidOptions(max_motions=40))
