"""Hostile input, round 15: generated RAPID programs that grow (helper fuzz's attacks on the program reader): each class
a test that failed before its fix.
"""

from __future__ import annotations

import time

import pytest

from thermocomp.errors import InputError
from thermocomp.programs import calls, read_program, writer

_RT = "[[500,0,500],[0,0,1,0],[0,0,0,0],[9E+09,9E+09,9E+09,9E+09,9E+09,9E+09]]"


def _module(tmp_path, body: str, decls: str = "") -> str:
    path = tmp_path / "m.mod"
    path.write_text(f"MODULE M\n{decls}\n  PROC main()\n{body}\n  ENDPROC\nENDMODULE\n")
    return str(path)


# ----- A FOR loop whose passes all run past the statement bound was walked to the bound before its refusal: a
# ----- 10-line module (FOR i FROM 1 TO 100000: p := Offs(p, 1, 0, 0); MoveL p, ...) ran 50 s of CPU and 500 MB, then
# ----- was refused at its MoveL. A body of statements that never end it (declarations, assignments, motions) runs
# ----- them all each pass: the loop is refused at its FOR before its first pass.


@pytest.mark.parametrize("passes", [1000, 100_000])
def test_a_for_loop_certain_to_pass_the_statement_bound_is_refused_at_its_for_before_walking(tmp_path, monkeypatch,
                                                                                              passes):
    monkeypatch.setattr(calls, "MAX_STATEMENTS_RUN", 1000)  # (the bound lowered: the same refusal, at a size cheap
    # to walk for the code before the fix, which refused at the MoveL after walking 1,000 statements)
    path = _module(tmp_path, f"    FOR i FROM 1 TO {passes} DO\n      p2:=Offs(p2,1,0,0);\n      MoveL p2,v100,z1,tool0;"
                             "\n    ENDFOR", f"  VAR robtarget p2:={_RT};")
    start = time.process_time()
    with pytest.raises(InputError, match=r"reading runs more than 1,\d{3} statements .*refused at this statement "
                                         r"\(column 5\)") as error:
        read_program(path)
    assert error.value.row == 4 and time.process_time() - start < 10


def test_a_for_loop_within_the_statement_bound_or_one_that_may_end_is_still_walked(tmp_path, monkeypatch):
    monkeypatch.setattr(calls, "MAX_STATEMENTS_RUN", 1000)
    decls = f"  CONST robtarget p1:={_RT};\n  VAR robtarget p2;\n  VAR num n:=0;"
    within = read_program(_module(tmp_path, "    p2:=p1;\n    FOR i FROM 1 TO 450 DO\n      p2:=Offs(p2,1,0,0);\n"
                                            "      MoveL p2,v100,z1,tool0;\n    ENDFOR", decls))
    assert len(within.motion_steps) == 450 and within.extra["statements_run"] <= 1000 + 50 * 10
    # (a pass may end the routine: a RETURN in an IF; the loop is walked, its first pass ends it)
    ends = read_program(_module(tmp_path, "    p2:=p1;\n    FOR i FROM 1 TO 100000 DO\n      p2:=Offs(p2,1,0,0);\n      MoveL p2,"
                                          "v100,z1,tool0;\n      IF n=0 RETURN;\n    ENDFOR", decls))
    assert len(ends.motion_steps) == 1


# ----- A motion's point computed while reading (Offs of a VAR, an array's element in a FOR loop) had its external
# ----- axes written as text through pyarrow, a third of the reading's time (0.3 ms a motion), though a robot without
# ----- external axes has none to write: 9E+09 each.


def test_a_computed_point_without_external_axes_is_read_without_formatting_a_number(tmp_path, monkeypatch):
    formatted = []
    single_columns = writer.single_columns
    monkeypatch.setattr(writer, "single_columns", lambda values: formatted.append(values) or single_columns(values))
    program = read_program(_module(tmp_path, "    FOR i FROM 1 TO 3 DO\n      MoveL Offs(p1,i,0,0),v100,z1,tool0;\n"
                                             "    ENDFOR", f"  CONST robtarget p1:={_RT};"))
    assert len(program.motion_steps) == 3 and not formatted
    assert {p.extax for p in program.points} == {"[9E+09,9E+09,9E+09,9E+09,9E+09,9E+09]"}
    axis = _RT.replace("[9E+09,9E+09,9E+09", "[250.5,9E+09,9E+09")
    program = read_program(_module(tmp_path, "    p2:=Offs(p1,1,0,0);\n    MoveL p2,v100,z1,tool0;",
                                   f"  CONST robtarget p1:={axis};\n  VAR robtarget p2;"))
    assert [p.extax for p in program.points] == ["[250.5,9E+09,9E+09,9E+09,9E+09,9E+09]"]
