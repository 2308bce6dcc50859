"""Text the controller itself rejects is refused as such, naming file, line and column (issue 35: "syntax error is
kept for text the controller itself would reject"); never compensated as if it were valid.

The programs are written from the manuals' syntax (ABB, "Technical reference manual - RAPID kernel": reserved
words, scope rules, data and routine declarations, GOTO; UR, "The URScript Programming Language": functions,
keyword arguments).
"""

from __future__ import annotations

import pytest
from test_bad_input import case, refused, run_cli  # noqa: F401  (fixture)

from thermocomp.cli.common import EXIT_INPUT
from thermocomp.errors import InputError
from thermocomp.programs import read_program

POINT = "[[500,0,500],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]]"
HEAD = f"MODULE cell\n  CONST robtarget p10 := {POINT};\n"  # lines 1-2
MAIN = "  PROC main()\n    MoveL p10, v100, fine, tool0;\n  ENDPROC\n"


def _refused(tmp_path, text: str, name: str = "cell.mod") -> InputError:
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(InputError) as caught:
        read_program(path)
    return caught.value


# (module text after HEAD, line, column, words of the message)
_RAPID = {
    "reserved word as a datum": ("  VAR num IF;\n" + MAIN, 3, 11, ["IF is a reserved word"]),
    "reserved word as a routine": (MAIN + "  PROC ENDIF()\n  ENDPROC\n", 6, 8, ["ENDIF is a reserved word"]),
    "reserved word as a parameter": (MAIN + "  PROC go(num step)\n  ENDPROC\n", 6, 15, ["step is a reserved word"]),
    "reserved word as a record component": ("  RECORD pair\n    num to;\n    num b;\n  ENDRECORD\n" + MAIN, 4, 9,
                                            ["to is a reserved word"]),
    "a PROC and a FUNC of one name": (MAIN + "  PROC foo()\n  ENDPROC\n  FUNC num foo()\n    RETURN 1;\n  ENDFUNC\n",
                                      8, 12, ["FUNC foo has the name of PROC foo (line 6)", "module"]),
    "a PROC and a datum of one name": ("  VAR num main := 1;\n" + MAIN, 4, 8,
                                       ["PROC main has the name of datum main (line 3)"]),
    "a PROC twice in one module": (MAIN + MAIN, 6, 8, ["PROC main is declared twice in the module (first at line 3)"]),
    "a TRAP twice": (MAIN + "  TRAP t\n  ENDTRAP\n  TRAP T\n  ENDTRAP\n", 8, 8, ["TRAP T is declared twice"]),
    "a datum twice in a routine": (f"  PROC main()\n    VAR robtarget p := {POINT};\n    VAR robtarget P := {POINT};\n"
                                   "    MoveL p, v100, fine, tool0;\n  ENDPROC\n", 5, 19,
                                   ["datum P is declared twice in the routine (first at line 4)"]),
    "a datum with a parameter's name": ("  PROC go(num n)\n    VAR num n := 2;\n  ENDPROC\n" + MAIN, 4, 13,
                                        ["datum n has the name of parameter n (line 3)"]),
    "a label twice": ("  PROC main()\n    a:\n    MoveL p10, v100, fine, tool0;\n    a:\n  ENDPROC\n", 6, 5,
                      ["label a is declared twice in the routine (first at line 4)"]),
    "GOTO to no label": ("  PROC main()\n    MoveL p10, v100, fine, tool0;\n    IF TRUE GOTO there;\n  ENDPROC\n",
                         5, 18, ["GOTO there: no label there in PROC main"]),
    "GOTO to a label of another routine": ("  PROC go()\n    there:\n  ENDPROC\n  PROC main()\n"
                                           "    MoveL p10, v100, fine, tool0;\n    GOTO there;\n  ENDPROC\n", 8, 10,
                                           ["GOTO there: no label there in PROC main"]),
    "two DEFAULT parts in a TEST": ("  VAR num n := 1;\n  PROC main()\n    TEST n\n    CASE 1:\n"
                                    "      MoveL p10, v100, fine, tool0;\n    DEFAULT:\n    DEFAULT:\n    ENDTEST\n"
                                    "  ENDPROC\n", 9, 5, ["DEFAULT"]),
}


@pytest.mark.parametrize("kind", list(_RAPID))
def test_rapid_the_controller_refuses_is_refused_with_line_and_column(tmp_path, kind):
    body, line, column, words = _RAPID[kind]
    error = _refused(tmp_path, HEAD + body + "ENDMODULE\n")
    text = str(error)
    assert error.row == line, text
    assert f"column {column}" in text, text
    for word in words:
        assert word in text, text


def test_rapid_valid_names_and_jumps_are_still_read(tmp_path):
    """What the rules allow: a routine datum with a module datum's name, a label jumped to from inside an IF, a GOTO
    in an error handler to its handler's label, names that only contain a reserved word (Stepper, IFace)."""
    path = tmp_path / "cell.mod"
    path.write_text(HEAD + "  VAR num Stepper := 0;\n  PROC IFace()\n    VAR robtarget p10 := " + POINT + ";\n"
                    "    again:\n    MoveL p10, v100, fine, tool0;\n    IF Stepper > 1 GOTO again;\n"
                    "  ERROR\n    retry_here:\n    IF FALSE GOTO retry_here;\n  ENDPROC\n" + MAIN + "ENDMODULE\n")
    assert len(read_program(path).points) == 1


def test_rapid_a_refusal_in_another_module_names_that_module(case, capsys):
    (case / "b.mod").write_text(HEAD + MAIN + "ENDMODULE\n")
    (case / "m2.mod").write_text("MODULE m2\n  PROC go()\n    GOTO nowhere;\n  ENDPROC\nENDMODULE\n")
    refused(case, capsys, ["compensate", "--robot", "irb140", "--deformation", "d.csv", "--program", "b.mod",
                           "--module", "m2.mod", "--out", "o.mod", "--at-minute", "10"], EXIT_INPUT,
            "m2.mod, line 3, column 10", "GOTO nowhere")


PT = "p[0.4, 0.1, 0.3, 0, 3.14, 0]"
# (script, line, column, words of the message)
_URSCRIPT = {
    "a keyword argument twice": (f"def prog():\n  q = {PT}\n  movel(q, a=1.2, v=0.25, a=0.5)\nend\n", 3, 27,
                                 ["keyword argument a= given twice"]),
    "a keyword argument twice in a run of plain motions": (
        f"def prog():\n  movel({PT}, a=1.2, v=0.25)\n  movel({PT}, a=1.2, v=0.25, a=0.5)\nend\n", 3, 54,
        ["keyword argument a= given twice"]),
    "a positional argument after a keyword one": (f"def prog():\n  q = {PT}\n  movel(q, a=1.2, 0.25)\nend\n", 3, 19,
                                                  ["a positional argument after the keyword argument a="]),
    "a positional argument after a keyword one in a run": (f"def prog():\n  movel({PT}, a=1.2, 0.25)\nend\n",
                                                           2, 46, ["positional argument after"]),
    "a keyword argument twice in a function's call": (
        "def prog():\n  def f(x=1, y=2):\n    textmsg(x)\n  end\n" f"  movel({PT}, a=1.2, v=0.25)\n  f(y=1, y=2)\nend\n",
        6, 10, ["keyword argument y= given twice"]),
    "a def twice at the top level": (f"def f():\n  textmsg(1)\nend\ndef f():\n  movel({PT}, a=1.2, v=0.25)\nend\nf()\n",
                                     4, 5, ["function f is defined twice in one scope (first at line 1)"]),
    "a def twice in one function": ("def prog():\n  def f():\n    textmsg(1)\n  end\n  def f():\n    textmsg(2)\n  end\n"
                                    f"  movel({PT}, a=1.2, v=0.25)\n  f()\nend\n", 5, 7, ["function f is defined twice"]),
}


@pytest.mark.parametrize("kind", list(_URSCRIPT))
def test_urscript_the_controller_refuses_is_refused_with_line_and_column(tmp_path, kind):
    text, line, column, words = _URSCRIPT[kind]
    error = _refused(tmp_path, text, "prog.script")
    message = str(error)
    assert (error.row, error.column) == (line, column), message
    for word in words + ["prog.script"]:
        assert word in message, message


@pytest.mark.parametrize("args", ["r=1.2, a=1.2, a=1.2, 1.2, r=1.2", "a=1, 0.5, a=2", "v=1, a=1, v=2, 0.3",
                                  "1.2, t=0, r=0.001, t=1", "r=1, 0.2, r=2", "a=1, v=1, t=0, v=2, 0.5"])
def test_urscript_a_run_and_a_call_name_the_same_first_offence(tmp_path, args):
    """A run of plain motions and a call read through the grammar name the same offence at the same place: the first
    argument, in order, that the controller refuses (whichever of a repeated keyword or a positional argument after a
    keyword comes first)."""
    head = "def prog():\n  q = " + PT + "\n"
    as_call = _refused(tmp_path, head + f"  movel(q, {args})\nend\n", "call.script")
    as_run = _refused(tmp_path, head + f"  movel({PT}, {args})\nend\n", "run.script")
    first = str(as_call).split("URScript: ")[1]
    assert first == str(as_run).split("URScript: ")[1]
    assert (as_call.row, as_run.row) == (3, 3)
    assert as_call.column - len("  movel(q, ") == as_run.column - len(f"  movel({PT}, "), (as_call, as_run)


def test_urscript_what_the_rules_allow_is_still_read(tmp_path):
    """One name defined in two scopes (a function's own helper and a top-level one), keyword arguments after the
    positional ones, the same keyword in two calls of one line's run."""
    path = tmp_path / "prog.script"
    path.write_text("def g():\n  textmsg(0)\nend\ndef prog():\n  def g():\n    textmsg(1)\n  end\n"
                    f"  movel({PT}, 1.2, v=0.25)\n  movel({PT}, a=1.2, v=0.25)\n  g()\nend\n")
    assert len(read_program(path).points) == 2


def test_urscript_a_name_the_file_does_not_define_is_not_called_a_compile_error(case, capsys):
    """A function the file does not define may be one the controller supplies (a URCap's, a newer firmware's):
    passed over, a note naming it with its line and column, not refused as a compile error."""
    (case / "b.script").write_text(f"def prog():\n  movel({PT}, a=1.2, v=0.25)\n  rq_move_and_wait(30)\nend\n")
    code, out, err = run_cli(capsys, ["compensate", "--robot", "ur5", "--deformation", "d.csv", "--program",
                                      "b.script", "--out", "o.script", "--at-minute", "10"])
    assert code == 0 and (case / "o.script").exists()
    assert "b.script:3:3: rq_move_and_wait is neither a function of this script nor one thermocomp knows" in out + err
    assert "does not compile" not in out + err


def _task(case, program: str, module: str) -> list[str]:
    (case / "b.mod").write_text(program)
    (case / "m2.mod").write_text(module)
    return ["compensate", "--robot", "irb140", "--deformation", "d.csv", "--program", "b.mod", "--module", "m2.mod",
            "--out", "o.mod", "--at-minute", "10"]


def test_a_change_in_another_module_names_that_module(case, capsys):
    """A motion of one module reading a datum another module changes at run time: the change is named with its
    file (it said "line 6", a line of the other file)."""
    argv = _task(case, f"MODULE M\n  VAR robtarget p := {POINT};\n  VAR num n := 1;\n  PROC main()\n"
                       "    TPReadNum n, \"offset?\";\n    p.trans.x := p.trans.x + n;\n    go;\n  ENDPROC\nENDMODULE\n",
                 "MODULE M2\n  PROC go()\n    MoveL p, v100, fine, tool0;\n  ENDPROC\nENDMODULE\n")
    refused(case, capsys, argv, EXIT_INPUT, "m2.mod:3:11: p is changed at run time (b.mod:6:5)")


def test_a_datum_of_another_module_without_a_value_names_that_module(case, capsys):
    argv = _task(case, "MODULE M\n  PROC main()\n    MoveL q, v100, fine, tool0;\n  ENDPROC\nENDMODULE\n",
                 "MODULE M2\n  VAR robtarget q;\nENDMODULE\n")
    refused(case, capsys, argv, EXIT_INPUT, "b.mod:3:11: q has no value known before the program runs (declared "
            "without a value at m2.mod:2)")
