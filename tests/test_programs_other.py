"""Refusals of the corpus "for another reason" (issue 35, item 2: a motion whose data differ from pass to pass is
refused naming that data *and its line*), tested as classes from the manuals' syntax.

RAPID (Technical reference manual, RAPID Instructions: ``IF``, ``TEST``, ``WHILE``, ``FOR``): a datum a construct
decided only while running may assign is changed from the construct's start, since a later pass or cycle reads what
an earlier one left. The refusal of a motion reading it named the construct's line as if it were the assignment
(``x is changed at run time (line 50, column 4)``, line 50 a ``TEST``): it now names the assignment, or the call,
inside the construct that changes it, and the construct.

URScript ("The URScript Programming Language", Numbers, Variables and Types: ``p[2] = 0.4`` gives one element of a
pose or list): an element assignment whose value, or whose variable's, is known only while running said the line
"may change it, in a construct not followed", though no construct was there: it now says what the line gives it,
or keeps the variable's own reason where the variable was not known before. Two URScript syntax errors named only
the word found: a step line without its number (the manual's "Program Label": ``$ 2 "var_1= True"``), and a line
ending after ``=`` (the statement goes on at the next line, where the error is found): they now say so.
"""

from __future__ import annotations

import pytest
from program_builders import read_main_module, refusal_of

from thermocomp.programs import read_program

_P0 = "[[400,0,400],[0,0,1,0],[0,0,0,0],[9E+09,9E+09,9E+09,9E+09,9E+09,9E+09]]"


def _module(body: str, routines: str = "") -> str:
    return f"""MODULE MainModule
    CONST robtarget p0:={_P0};
    VAR num x:=0;
    VAR num nState:=0;
    PROC main()
{body}
    ENDPROC
{routines}ENDMODULE
"""


# Each: x read by a motion inside a construct decided by an input, changed later in that construct (directly, by a
# call of a procedure that assigns it, by a function that writes its argument); the message names that line.
@pytest.mark.parametrize(("body", "routines", "line", "construct"), [
    ("""        TEST nState
        CASE 0:
            MoveL Offs(p0, x, 0, 0), v100, fine, tool0;
            nState := DInput(di1);
        CASE 1:
            x := x - 40;
        ENDTEST""", "", 11, "TEST at line 6"),
    ("""        WHILE DInput(di1) = 1 DO
            MoveL Offs(p0, x, 0, 0), v100, fine, tool0;
            Advance;
        ENDWHILE""", """    PROC Advance()
        x := x + 10;
    ENDPROC
""", 8, "WHILE at line 6"),
    ("""        IF DInput(di1) = 1 THEN
            MoveL Offs(p0, 0, 0, x), v100, fine, tool0;
            IF StrToVal("12", x) THEN
                TPWrite "read";
            ENDIF
        ENDIF""", "", 8, "IF at line 6"),
], ids=["TEST case", "procedure called in a WHILE", "function writing its argument in an IF"])
def test_a_datum_changed_inside_a_construct_names_the_assignment_and_the_construct(tmp_path, body, routines, line,
                                                                                 construct):
    prog = read_main_module(tmp_path, _module(body, routines))
    messages = [f.message for f in prog.unsupported]
    assert messages, "the motion reading x is refused"
    assert messages[0].startswith(f"x is changed at run time (line {line}, column "), messages
    assert f", inside the {construct}, whose " in messages[0], messages


def test_a_datum_assigned_by_a_plain_statement_still_names_that_statement(tmp_path):
    body = """        x := DInput(di1);
        MoveL Offs(p0, x, 0, 0), v100, fine, tool0;"""
    prog = read_main_module(tmp_path, _module(body))
    assert prog.unsupported[0].message.startswith("x is changed at run time (line 6, column 9)"), prog.unsupported


def _read_script(tmp_path, text: str):
    path = tmp_path / "prog.script"
    path.write_text(text)
    return read_program(path)


def test_an_element_of_a_pose_known_only_while_running_keeps_the_reason_of_its_variable(tmp_path):
    text = """def prog():
  p_grip = get_actual_tcp_pose()
  p_above = p_grip
  p_above[2] = p_above[2] + 0.05
  movel(p_above, a=1.2, v=0.25)
end
"""
    message = _read_script(tmp_path, text).unsupported[0].message
    assert message.startswith("the value of p_above is not known before running (line 3 gives it a value of p_grip"), \
        message
    assert "construct not followed" not in message


def test_an_element_given_a_value_known_only_while_running_names_its_line(tmp_path):
    text = """def prog():
  p_above = p[0.4, 0.0, 0.3, 0.0, 3.14159, 0.0]
  p_above[2] = get_actual_tcp_pose()[2]
  movel(p_above, a=1.2, v=0.25)
end
"""
    message = _read_script(tmp_path, text).unsupported[0].message
    assert message.startswith("the value of p_above is not known before running (line 3 gives it "), message
    assert "construct not followed" not in message


def test_an_assignment_in_a_construct_not_followed_still_says_so(tmp_path):
    text = """def prog():
  p_above = p[0.4, 0.0, 0.3, 0.0, 3.14159, 0.0]
  if get_standard_digital_in(0):
    p_above[2] = 0.2
  end
  movel(p_above, a=1.2, v=0.25)
end
"""
    prog = _read_script(tmp_path, text)
    assert not prog.unsupported or "line 4" in prog.unsupported[0].message, prog.unsupported


# URScript syntax errors whose message named only the word found: the manual's "Program Label" line is
# ``$ <number> "<label>"``; a line ending after ``=`` goes on at the next line, where the error is found.
@pytest.mark.parametrize(("text", "line", "says"), [
    ('def prog():\n  $ "2FG Release"\n  movej([0, 0, 0, 0, 0, 0])\nend\n', 2,
     ": a step line takes its number, then its label in quotes, as PolyScope writes it ($ 3 \"MoveJ\")"),
    ("def prog():\n  global offset = # filled in by the host\n  global mode = 2\n  movej([0, 0, 0, 0, 0, 0])\nend\n", 3,
     ": the assignment at line 2 ends after '=' with no value"),
], ids=["step line without its number", "assignment without a value"])
def test_a_urscript_syntax_error_says_what_the_line_lacks(tmp_path, text, line, says):
    error = refusal_of(tmp_path / "prog.script", text)
    assert error.row == line, str(error)
    assert str(error).endswith(says), str(error)
