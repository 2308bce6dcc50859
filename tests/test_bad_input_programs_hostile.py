"""Hostile and careless robot programs through the real command line (issue 35 item 3, the developers' guide).

An adversarial run over ``compensate --program`` (encodings, line ends, sizes, names, structure, paths): each
class that failed is a test here: refused with the file, line and column (or the option), a non-zero exit, no
traceback, nothing written and nothing changed (tests/test_bad_input.py's ``refused``).
"""

from __future__ import annotations

import os
import time

import pytest
from test_bad_input import case, refused, run_cli  # noqa: F401  (fixture)

from thermocomp.cli.common import EXIT_INPUT, EXIT_OK, EXIT_USAGE
from thermocomp.io import files
from thermocomp.programs import calls

POINT = "[[500,0,500],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]]"
MODULE = f"MODULE M2\nCONST robtarget q:={POINT};\nPROC g()\n  MoveL q,v100,z1,tool0;\nENDPROC\nENDMODULE\n"
PROGRAM = f"MODULE M\nCONST robtarget p:={POINT};\nPROC main()\n  MoveL p,v100,z1,tool0;\n  g;\nENDPROC\nENDMODULE\n"
SCRIPT = "def f():\n  movel(p[-.45,-.15,.2,3.14,0,0], a=1, v=0.1)\nend\n"


def test_a_file_where_a_changed_module_would_be_written_is_not_replaced(case, capsys):
    """``--out o.mod --module m2.mod`` writes ``o.m2.mod``, a name the user did not give: a file of theirs there
    was replaced silently; it is refused, and a rerun still replaces the copy an earlier run wrote."""
    (case / "b.mod").write_text(PROGRAM)
    (case / "m2.mod").write_text(MODULE)
    (case / "o.m2.mod").write_text("my notes\n")
    argv = ["compensate", "--robot", "irb140", "--deformation", "d.csv", "--program", "b.mod", "--module", "m2.mod",
            "--out", "o.mod", "--at-minute", "100"]
    refused(case, capsys, argv, EXIT_INPUT, "--out (for --module m2.mod) o.m2.mod", "not a compensated copy of m2.mod",
            "not replaced")
    (case / "o.m2.mod").unlink()
    for _ in range(2):  # the first run writes o.m2.mod, the rerun replaces it
        code, _, err = run_cli(capsys, argv)
        assert code == EXIT_OK, err
        assert (case / "o.m2.mod").read_text().startswith("MODULE M2\n") and (case / "o.m2.mod").read_text() != MODULE


@pytest.mark.parametrize(("extra", "words"), [(["--entry", "nothere"], ["--entry"])])
def test_rapid_task_options_given_with_a_urscript_are_refused_not_ignored(case, capsys, extra, words):
    (case / "b.script").write_text(SCRIPT)
    refused(case, capsys, ["compensate", "--robot", "ur5", "--deformation", "d.csv", "--program", "b.script",
                           "--out", "o.script", "--at-minute", "100", *extra], EXIT_INPUT, *words)


def _nested_ifs(depth: int) -> str:
    return ("MODULE M\n" f"CONST robtarget p:={POINT};\nPROC main()\n" + "IF TRUE THEN\n" * depth
            + "MoveL p,v100,z1,tool0;\n" + "ENDIF\n" * depth + "ENDPROC\nENDMODULE\n")


@pytest.mark.parametrize(("files", "argv", "where"), [
    ({"b.mod": _nested_ifs(3000)}, [], "b.mod, line "),
    ({"b.script": "".join(f"def a{k}():\n  a{k + 1}()\nend\n" for k in range(3000))
      + "def a3000():\n  movel(p[-.45,-.15,.2,3.14,0,0], a=1, v=0.1)\nend\na0()\n"}, [], "b.script, line "),
    ({"b.mod": PROGRAM, "m2.mod": _nested_ifs(3000).replace("MODULE M\n", "MODULE M2\n").replace(
        "CONST robtarget p", "CONST robtarget q").replace("PROC main", "PROC g").replace("MoveL p", "MoveL q")},
     ["--module", "m2.mod"], "m2.mod, line "),
])
def test_blocks_and_calls_nested_thousands_deep_are_refused_at_a_line_of_their_file(case, capsys, files, argv,
                                                                                      where):
    """IF inside IF, or a chain of functions each calling the next, thousands deep: the reader's recursion ran out
    and the message named the program alone (even when the nesting was in a --module); now its file, line and
    column too."""
    for name, text in files.items():
        (case / name).write_text(text)
    program = next(iter(files))
    refused(case, capsys, ["compensate", "--robot", "irb140" if program.endswith(".mod") else "ur5", "--deformation",
                           "d.csv", "--program", program, "--out", "o" + program[1:], "--at-minute", "100", *argv],
            EXIT_INPUT, where, ", column ", "nested too deeply")


@pytest.mark.slow
def test_an_array_of_thousands_of_targets_read_in_a_for_loop_is_read_in_linear_time(case, capsys):
    """``FOR i FROM 1 TO n DO MoveL pts{i} ...`` over a declared array of n robtargets: each element's span was
    found by scanning the whole aggregate again (quadratic: n = 10,000 ran past a minute); now once."""
    n = 6000
    (case / "b.mod").write_text(f"MODULE M\nCONST robtarget pts{{{n}}}:=[" + ",".join([POINT] * n)
                                + f"];\nPROC main()\n  FOR i FROM 1 TO {n} DO\n    MoveL pts{{i}},v100,z1,tool0;\n"
                                "  ENDFOR\nENDPROC\nENDMODULE\n")
    started = time.process_time()
    code, _, err = run_cli(capsys, ["compensate", "--robot", "irb140", "--deformation", "d.csv", "--program", "b.mod",
                                    "--out", "o.mod", "--at-minute", "100"])
    assert code == EXIT_OK, err
    assert time.process_time() - started < 20  # (some 3 s on 2 cores; 6,000 was about a minute before)
    written = (case / "o.mod").read_text().split(":=[", 1)[1]
    assert POINT not in written and written.count("[9E9,9E9,9E9,9E9,9E9,9E9]]") == n


@pytest.mark.parametrize(("statement", "words"), [
    # inf - inf is NaN: max() of the values passed a NaN over, so it went on to the timing (a RuntimeWarning and
    # "it takes nan s") or to the solver
    ("movel(p[-.45,-.15,.2,3.14,0,x], a=1, v=0.1)", ["a pose value of nan is out of range"]),
    ("movej([0,-1.5,1.5,0,1.5,x], a=1, v=0.1)", ["a joint position of nan rad is out of range"]),
])
def test_a_urscript_value_that_is_not_a_number_is_refused_at_its_motion(case, capsys, statement, words):
    (case / "b.script").write_text(f"def f():\n  x = 1e300*1e300 - 1e300*1e300\n  {statement}\nend\n")
    err = refused(case, capsys, ["compensate", "--robot", "ur5", "--deformation", "d.csv", "--program", "b.script",
                                 "--out", "o.script", "--timed"], EXIT_INPUT, "b.script, line 3", "column", *words)
    assert "RuntimeWarning" not in err


@pytest.mark.parametrize(("call", "words"), [
    ("Pow(-8,0.5)", ["Pow: math domain error"]),  # a complex number: a TypeError traceback before
    ("Pow(10,400)", ["Pow: math range error"]),
])
def test_a_rapid_power_outside_its_domain_is_refused_at_its_call(case, capsys, call, words):
    (case / "b.mod").write_text(f"MODULE M\nVAR num x;\nCONST robtarget p:={POINT};\nPROC main()\n  x := {call};\n"
                                "  MoveL Offs(p,0,0,x),v100,z1,tool0;\nENDPROC\nENDMODULE\n")
    refused(case, capsys, ["compensate", "--robot", "irb140", "--deformation", "d.csv", "--program", "b.mod",
                           "--out", "o.mod", "--at-minute", "100"], EXIT_INPUT, "b.mod, line 5", "column 8", *words)


@pytest.mark.parametrize(("name", "argv"), [("b.mod", []), ("b.script", []), ("big.mod", ["--module", "big.mod"])])
def test_a_program_or_module_past_the_size_bound_is_refused_before_it_is_read(case, capsys, monkeypatch, name, argv):
    """A file of gigabytes (a log or a disk image renamed) was read whole and decoded before anything was said.
    (The bound lowered to 1,000 bytes here: a file past 256 MiB is slow to write.)"""
    monkeypatch.setattr(files, "MAX_PROGRAM_BYTES", 1000)
    (case / name).write_text("! " + "x" * 1000 + "\n")
    program = "b.mod" if name == "big.mod" else name
    if name == "big.mod":
        (case / "b.mod").write_text(PROGRAM.replace("  g;\n", ""))
    refused(case, capsys, ["compensate", "--robot", "irb140" if program.endswith(".mod") else "ur5", "--deformation",
                           "d.csv", "--program", program, "--out", "o" + program[1:], "--at-minute", "100", *argv],
            EXIT_INPUT, f"{name}: the ", "holds 1,003 bytes: expected at most 1,000")


@pytest.mark.parametrize("index", ["1e300*1e300 - 1e300*1e300", "1e300*1e300"])
def test_a_urscript_index_that_is_not_a_finite_number_is_named_at_its_line(case, capsys, index):
    # l[NaN] ended in "ValueError: cannot convert float NaN to integer" (a traceback)
    (case / "b.script").write_text(f"def f():\n  l = [1, 2]\n  movel(p[-.45,-.15,.2,3.14,0,l[{index}]], a=1, v=0.1)\n"
                                   "end\n")
    refused(case, capsys, ["compensate", "--robot", "ur5", "--deformation", "d.csv", "--program", "b.script",
                           "--out", "o.script", "--at-minute", "100"], EXIT_INPUT, "b.script, line 3, column 31",
            "out of range")


@pytest.mark.parametrize(("argv", "option"), [
    (["--program", "p/b.mod", "--program", "q/b.mod", "--out-dir", "o"], "--program"),  # p/b.mod was dropped silently
    (["--program", "p/b.mod", "--out", "o1.mod", "--out=o2.mod"], "--out"),
    (["--program", "p/b.mod", "--out", "o.mod", "--entry", "main", "--entry", "g"], "--entry"),
])
def test_an_option_of_one_value_given_twice_is_refused_not_the_last_kept(case, capsys, argv, option):
    for folder in ("p", "q", "o"):
        (case / folder).mkdir()
        (case / folder / "b.mod").write_text(PROGRAM.replace("  g;\n", ""))
    refused(case, capsys, ["compensate", "--robot", "irb140", "--deformation", "d.csv", "--at-minute", "100", *argv],
            EXIT_USAGE, f"argument {option}: given twice")


def test_a_rapid_string_doubled_in_a_loop_stops_at_what_a_string_holds(case, capsys):
    """``s := s + s;`` 60 times: the reader built the 2^60-character string (out of memory under 4 GB after 8 s); a
    RAPID string holds 80 characters, so past them the value is not followed, and no motion reads it."""
    (case / "b.mod").write_text(f"MODULE M\nVAR string s;\nCONST robtarget p:={POINT};\nPROC main()\n  s := \"ab\";\n"
                                "  FOR i FROM 1 TO 60 DO\n    s := s + s;\n  ENDFOR\n  MoveL p,v100,z1,tool0;\n"
                                "ENDPROC\nENDMODULE\n")
    code, _, err = run_cli(capsys, ["compensate", "--robot", "irb140", "--deformation", "d.csv", "--program", "b.mod",
                                    "--out", "o.mod", "--at-minute", "100"])
    assert code == EXIT_OK, err
    assert POINT not in (case / "o.mod").read_text()


@pytest.mark.parametrize(("name", "text", "where"), [
    # classic Mac OS line ends with one LF an editor appended: read as one line, a later error said "line 1, column
    # 138" for the seventh line
    ("b.mod", PROGRAM.replace("\n", "\r") + "\n", "b.mod, line 1, column 9"),
    ("b.script", SCRIPT.replace("\n", "\r") + "\n", "b.script, line 1, column 9"),
    ("b.script", SCRIPT.replace("  movel", "  sleep(1)\r  movel"), "b.script, line 2, column 11"),  # one lone CR
])
def test_a_line_ending_in_cr_alone_is_refused_at_its_line_even_beside_lf_ends(case, capsys, name, text, where):
    (case / name).write_bytes(text.encode())
    refused(case, capsys, ["compensate", "--robot", "irb140" if name.endswith(".mod") else "ur5", "--deformation",
                           "d.csv", "--program", name, "--out", "o" + name[1:], "--at-minute", "100"], EXIT_INPUT,
            where, "CR alone")


@pytest.mark.parametrize(("name", "data", "words"), [
    # a NUL in a URScript got "URScript syntax: unexpected '\x00'"; RAPID already named binary data
    ("b.script", b"def f():\n  movel(p[-.45,-.15,.2,3.14,0,0], a=1, v=0.1)\n\x00\x01end\n",
     ["b.script, line 3", "not URScript text: byte 0x00 at column 1 is binary data"]),
    ("b.mod", PROGRAM.encode().replace(b"PROC main", b"PROC \x07main"),
     ["b.mod, line 3", "not RAPID text: byte 0x07 at column 6 is binary data"]),
    # a UTF-8 character where the syntax breaks is named as written, in RAPID as in URScript (Hebrew alef: its first
    # byte, 0xd7, is no ISO 8859-1 letter, so no RAPID name takes it in)
    ("b.mod", PROGRAM.replace("MoveL p,", "MoveL p\u05d0,").encode(), ["b.mod, line 4", "RAPID syntax: unexpected '\u05d0'"]),
])
def test_a_syntax_error_names_binary_data_or_the_character_as_written(case, capsys, name, data, words):
    (case / name).write_bytes(data)
    robot = "ur5" if name.endswith(".script") else "irb140"
    refused(case, capsys, ["compensate", "--robot", robot, "--deformation", "d.csv", "--program", name,
                           "--out", "o" + name[1:], "--at-minute", "100"], EXIT_INPUT, *words)


def _goto_module(before: str, block: str, after: str) -> str:
    return (f"MODULE M\nCONST robtarget p:={POINT};\nVAR num di;\nPROC main()\n{before}{block}{after}"
            "  MoveL p,v100,z1,tool0;\nENDPROC\nENDMODULE\n")


#: Each block a label may stand in, written around ``{}`` (the label's line), and the blocks' first line.
_BLOCKS = {"IF": ("  IF di=1 THEN\n{}  ENDIF\n", "an IF branch"),
           "ELSEIF": ("  IF di=1 THEN\n  ELSEIF di=2 THEN\n{}  ENDIF\n", "an IF branch"),
           "ELSE": ("  IF di=1 THEN\n  ELSE\n{}  ENDIF\n", "an IF branch"),
           "CASE": ("  TEST di\n  CASE 1:\n{}  ENDTEST\n", "a TEST case"),
           "DEFAULT": ("  TEST di\n  CASE 1:\n  DEFAULT:\n{}  ENDTEST\n", "a TEST case"),
           "FOR": ("  FOR i FROM 1 TO 3 DO\n{}  ENDFOR\n", "a FOR loop"),
           "WHILE": ("  WHILE di=1 DO\n{}  ENDWHILE\n", "a WHILE loop")}


@pytest.mark.parametrize("kind", list(_BLOCKS))
@pytest.mark.parametrize("goto", ["before", "after", "sibling"])
def test_a_goto_into_a_branch_or_loop_from_outside_is_refused_as_the_controller_does(case, capsys, kind, goto):
    """RAPID Instructions, GOTO, "Limitations": a label in an IF or TEST branch is reached only from the same branch,
    one in a FOR or WHILE loop only from inside it. Such a GOTO was followed in written order: a label in an IF
    branch the file decides false had its motions dropped ("no motion found", exit 0)."""
    block, words = _BLOCKS[kind]
    label = "  lbl:\n    MoveL Offs(p,0,0,10),v100,z1,tool0;\n"
    if goto == "sibling":  # (a GOTO in another branch or case of the same statement, or in a loop beside it)
        inner = block.format(label)
        inner = (inner.replace("THEN\n", "THEN\n    GOTO lbl;\n", 1) if "THEN" in inner and kind != "IF"
                 else inner.replace("CASE 1:\n", "CASE 1:\n    GOTO lbl;\n") if kind == "DEFAULT"
                 else inner + "  IF di=3 THEN\n    GOTO lbl;\n  ENDIF\n")
        if kind == "CASE":
            inner = inner.replace("  ENDTEST\n", "  CASE 2:\n    GOTO lbl;\n  ENDTEST\n", 1)
        text = _goto_module("", inner, "")
    else:
        text = _goto_module("  GOTO lbl;\n" if goto == "before" else "", block.format(label),
                            "  GOTO lbl;\n" if goto == "after" else "")
    (case / "b.mod").write_text(text)
    line = next(k for k, t in enumerate(text.splitlines(), 1) if "GOTO lbl;" in t)
    refused(case, capsys, ["compensate", "--robot", "irb140", "--deformation", "d.csv", "--program", "b.mod",
                           "--out", "o.mod", "--at-minute", "100"], EXIT_INPUT, f"b.mod, line {line}, column ",
            f"label lbl (line {text.splitlines().index('  lbl:') + 1}) stands in {words}", "from within it")


@pytest.mark.parametrize("kind", list(_BLOCKS))
def test_a_goto_within_its_branch_or_loop_or_out_of_it_is_taken(case, capsys, kind):
    """What the controller allows stays read: a GOTO to a label in its own branch or loop, and one out of a block to a
    label of the routine's body."""
    block, _ = _BLOCKS[kind]
    inner = block.format("  back:\n    di:=di+1;\n    IF di<3 GOTO back;\n    GOTO out;\n")
    (case / "b.mod").write_text(_goto_module("", inner, "  out:\n"))
    code, _, err = run_cli(capsys, ["compensate", "--robot", "irb140", "--deformation", "d.csv", "--program", "b.mod",
                                    "--out", "o.mod", "--at-minute", "100"])
    assert code == EXIT_OK, err
    assert POINT not in (case / "o.mod").read_text()


_UR_POINTS = {"movel": "p[-.45,-.15,.2,3.14,0,0]", "movep": "p[-.45,-.15,.2,3.14,0,0]",
              "movej": "[0,-1.5,1.5,0,1.5,0]", "movec": "p[-.45,-.15,.2,3.14,0,0], p[-.44,-.14,.2,3.14,0,0]"}
_UR_PARAMETERS = {"movel": "avtr", "movep": "avr", "movej": "avtr", "movec": "avr"}


@pytest.mark.parametrize("name", list(_UR_POINTS))
@pytest.mark.parametrize("form", ["literal", "variable"])
def test_a_urscript_motion_parameter_given_by_position_and_by_name_is_refused(case, capsys, name, form):
    """``movel(p, 0.5, a=1)``: ``a`` given twice, which the controller does not compile (as a user function's
    ``g(1, 2, y=3)`` already was refused); the keyword's value was taken silently. Every parameter of every motion
    function, the positional ones before it given, in a run of plain motions (literal targets) and in a call."""
    for k, parameter in enumerate(_UR_PARAMETERS[name]):
        points = _UR_POINTS[name] if form == "literal" else ", ".join(f"q{j}" for j in range(name.count("c") + 1))
        given = ", ".join(["0.5"] * (k + 1))
        pre = "".join(f"  q{j} = {point.strip()}\n" for j, point in enumerate(
            _UR_POINTS[name].replace("], ", "]|").split("|"))) if form == "variable" else ""
        script = (f"def f():\n{pre}  movel(p[-.45,-.15,.2,3.14,0,0], a=1, v=0.1)\n"
                  f"  {name}({points}, {given}, {parameter}=0.4)\nend\n")
        (case / "b.script").write_text(script)
        line = script.count("\n", 0, script.index(f"  {name}({points}, {given}")) + 1
        column = script.splitlines()[line - 1].index(f"{parameter}=0.4") + 1
        refused(case, capsys, ["compensate", "--robot", "ur5", "--deformation", "d.csv", "--program", "b.script",
                               "--out", "o.script", "--at-minute", "100"], EXIT_INPUT,
                f"b.script, line {line}, column {column}", f"parameter {parameter} given twice")


@pytest.mark.parametrize(("raw", "byte"), [(b"\xe9.mod", "0xe9"), ("A\u00f1o_".encode() + b"\xff.mod", "0xff"),
                                           (b"\xe9.script", "0xe9"), (b"m\xe9.mod", "0xe9")])
def test_a_program_or_module_whose_file_name_is_not_text_is_refused_by_name(case, capsys, raw, byte):
    """A file name in another encoding than the system's (a Windows export's ``\xe9`` copied to Linux; Python keeps
    the byte as a lone surrogate): the compensation ran and a report line built from the name ended in a pyarrow
    TypeError traceback (the plot in a matplotlib one)."""
    name = os.fsdecode(raw)
    text = SCRIPT if name.endswith(".script") else PROGRAM.replace("  g;\n", "")
    argv = ["--program", name]
    if name.startswith("m"):  # (a --module of the task)
        (case / "b.mod").write_text(PROGRAM)
        text, argv = MODULE, ["--program", "b.mod", "--module", name]
    (case / name).write_text(text)
    shown = raw.decode("utf-8", "backslashreplace")
    refused(case, capsys, ["compensate", "--robot", "ur5" if name.endswith(".script") else "irb140", "--deformation",
                           "d.csv", *argv, "--out", "o" + name[name.rindex("."):], "--at-minute", "100"], EXIT_INPUT,
            f"{shown}: the file name holds byte {byte},", "rename the file")


@pytest.mark.parametrize(("name", "padding"), [("b.mod", "\n"), ("b.mod", "  ! a note\n"), ("b.script", "\n"),
                                               ("b.script", "  # a note\n")])
def test_blank_and_comment_lines_do_not_raise_the_statement_bound(case, capsys, monkeypatch, name, padding):
    """The reader runs at most 100,000 statements plus 50 a line: a 1 MB file of newlines after a loop raised the
    bound to 50 million statements (some 15 minutes of CPU at 16 us a statement). Lines holding code count; blank
    lines and comments, which cost nothing to read, do not (here, with the fixed part lowered to 1,000 to stay fast,
    1,000 of them lifted the bound past the loop's ~8,000 statements, which it read)."""
    monkeypatch.setattr(calls, "MAX_STATEMENTS_RUN", 1000)
    if name.endswith(".mod"):
        body = "".join(f"    x{k % 5}:=x{(k + 1) % 5}+i;\n" for k in range(40))
        text = ("MODULE M\nVAR num x0;\nVAR num x1;\nVAR num x2;\nVAR num x3;\nVAR num x4;\n"
                f"CONST robtarget p:={POINT};\nPROC main()\n  FOR i FROM 1 TO 200 DO\n{body}"
                "    MoveL p,v100,z1,tool0;\n  ENDFOR\nENDPROC\nENDMODULE\n")
    else:
        body = "".join(f"    x{k % 5} = x{(k + 1) % 5} + i\n" for k in range(40))
        text = ("def f():\n  x0 = 0\n  x1 = 0\n  x2 = 0\n  x3 = 0\n  x4 = 0\n  i = 0\n  while i < 200:\n"
                f"{body}    movel(p[-.45,-.15,.2,3.14,0,0], a=1, v=0.1)\n    i = i + 1\n  end\nend\n")
    (case / name).write_text(text + padding * 1000)
    refused(case, capsys, ["compensate", "--robot", "irb140" if name.endswith(".mod") else "ur5", "--deformation",
                           "d.csv", "--program", name, "--out", "o" + name[1:], "--at-minute", "100"], EXIT_INPUT,
            f"{name}, line ", "reading runs more than ", " statements (1,000 and 50 a line")


@pytest.mark.parametrize("statement", ["movel(p[.4, .1, .3, 0, 3.14, 0], a=1.2, v=0.25)",
                                       "movel(p[.4, .1, .3, 0, 3.14, 0],  a=1.2,  v=0.25, r=0.001)",
                                       "movej(pose_trans(ref, p[.4, .1, .3, 0, 3.14, 0]), a=1.4, v=1.05)"])
def test_a_plain_motion_with_keywords_only_is_not_suspected_of_a_parameter_given_twice(statement):
    """A run's statements are checked for a parameter given twice as the controller checks them: the common form
    (keywords only after the point) reads, the same with ``a`` given by position too is refused, naming it."""
    from thermocomp.errors import InputError
    from thermocomp.programs.urscript import urscript_program_from_text

    head = "def f():\n  ref = p[0, 0, 0, 0, 0, 0]\n"
    program = urscript_program_from_text(f"{head}  {statement}\n  {statement}\nend\n", "f.script")
    assert len(program.motions) == 2
    with pytest.raises(InputError, match="parameter a given twice: by position and as a="):
        urscript_program_from_text(f"{head}  {statement}\n  {statement.replace('a=', '0.5, a=', 1)}\nend\n")
