"""Calls of a routine or function that no file given declares and that thermocomp does not know (issue 35: a
motion's data decide), written from the manuals' syntax, not from gathered programs.

RAPID ("Technical reference manual - RAPID kernel", Routine calls and Parameters): a procedure call is the routine's
name and its arguments (``GripOpen;``, ``GetTarget pPick;``, optional ones ``\\Name:=value``), a late-bound call
``%"name"% args;`` names the routine by a string; a ``VAR``, ``PERS`` or ``INOUT`` parameter is passed by
reference, so the routine may change the datum (or the element, or the component) named there. URScript ("The
URScript Programming Language", Functions): "Arguments can only be passed by value (including arrays)".

A call of such a routine is passed over (assumed to move nothing and to change nothing but what it is passed); the
report's notes name each routine once (its first call, how many calls); a motion after it that reads what it was
passed is refused naming the datum and the call; a function's value a motion reads stays refused.
"""

from __future__ import annotations

import re

import pytest

from thermocomp.cli import main
from thermocomp.programs import RapidOptions, read_program

_P = "[[{x},0,400],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]]"

_RAPID = ("MODULE cell\n"
          f"    CONST robtarget pHome := {_P.format(x=500)};\n"
          f"    VAR robtarget pPick := {_P.format(x=520)};\n"
          f"    VAR robtarget pts{{2}} := [{_P.format(x=540)}, {_P.format(x=560)}];\n"
          "    VAR num count := 0;\n"
          "    PROC main()\n"
          "        MoveL pHome, v100, fine, tool0;\n"
          "{body}"
          "        MoveL pHome, v100, fine, tool0;\n"
          "    ENDPROC\n"
          "ENDMODULE\n")


def _rapid(tmp_path, body: str, name: str = "cell.mod"):
    path = tmp_path / name
    path.write_text(_RAPID.replace("{body}", body))
    return path


def _notes_of(prog, word: str) -> list:
    return [n for n in prog.notes if n.message.startswith(f"{word} ")]


def test_rapid_calls_of_routines_found_nowhere_are_passed_over_with_one_note_each(tmp_path):
    """``GripOpen;`` twice and ``SetRPM 60;`` between motions: every motion followed, nothing refused; one note a
    routine, at its first call, with how many calls and what is assumed."""
    body = ("        GripOpen;\n"
            "        MoveL pPick, v100, fine, tool0;\n"
            "        SetRPM 60 \\Ramp:=2;\n"
            "        GripOpen;\n")
    prog = read_program(_rapid(tmp_path, body))
    assert prog.unsupported == ()
    assert [m.line for m in prog.motions] == [7, 9, 12]
    grip, rpm = _notes_of(prog, "GripOpen"), _notes_of(prog, "SetRPM")
    assert [(n.line, n.column) for n in grip] == [(8, 9)] and [n.line for n in rpm] == [10]
    assert "its 2 call(s) (the first at line 8)" in grip[0].message
    assert "its 1 call(s)" in rpm[0].message
    for words in ("moves nothing", "changes nothing but the data passed to it", "time estimate", "--module FILE"):
        assert words in grip[0].message


@pytest.mark.parametrize(("call", "datum"), [
    ("GetTarget pPick;", "pPick"),  # a datum named whole
    ("Adjust pPick.trans \\Dz:=count;", "pPick"),  # a component of one
    ("Fill pts{1};", "pts"),  # an element of an array: the array
])
def test_rapid_a_motion_that_reads_what_such_a_routine_was_passed_is_refused_naming_it_and_the_call(tmp_path, call,
                                                                                                   datum):
    """The data named in the call (a ``VAR`` whole, a component, an element) may be written by reference: the motion
    after it that reads it is refused naming the datum, the routine and the call's line; the one before it is not."""
    target = "pts{1}" if datum == "pts" else "pPick"
    body = (f"        MoveL {target}, v100, fine, tool0;\n"
            f"        {call}\n"
            f"        MoveL {target}, v100, fine, tool0;\n")
    prog = read_program(_rapid(tmp_path, body))
    refused = [u for u in prog.unsupported if u.line == 10]
    routine = call.split()[0]
    assert len(refused) == 1 and refused[0].message.startswith(f"{datum} is changed at run time (line 9, column 9: "
                                                               f"passed to {routine}, a routine found in no module")
    before = [u.message for u in prog.unsupported if u.line == 8]  # (the next cycle's first motion reads what it left)
    assert before == [f"{datum} is changed at run time (line 9, column 9: passed to {routine}, a routine found in no "
                      "module of the task, which may change it; it differs from cycle to cycle); its "
                      "value at this motion is not known"]


def test_rapid_a_const_passed_to_such_a_routine_stays_known(tmp_path):
    """``LogPos pHome;``: a ``CONST`` cannot be passed to a parameter the routine may write: the motions after it
    that read ``pHome`` are followed."""
    prog = read_program(_rapid(tmp_path, "        LogPos pHome, count;\n        MoveL pHome, v100, fine, tool0;\n"))
    assert prog.unsupported == ()
    assert [m.line for m in prog.motions] == [7, 9, 10]


def test_rapid_a_function_found_nowhere_whose_value_a_motion_reads_stays_refused(tmp_path):
    """``Offs(pHome, 0, 0, GetZ())``: its value is known only while running; the motion is refused at that call."""
    prog = read_program(_rapid(tmp_path, "        MoveL Offs(pHome, 0, 0, GetZ()), v100, fine, tool0;\n"))
    assert [u.line for u in prog.unsupported] == [8]
    assert "GetZ" in prog.unsupported[0].message


def test_rapid_a_late_bound_call_of_a_name_found_nowhere_is_the_same_rule(tmp_path):
    """``%"Grip" + "Open"%;`` is ``GripOpen;``: passed over with its note; ``%"GetTarget"% pPick;`` changes pPick."""
    prog = read_program(_rapid(tmp_path, '        %"Grip" + "Open"%;\n'))
    assert prog.unsupported == () and [m.line for m in prog.motions] == [7, 9]
    assert [n.line for n in _notes_of(prog, "GripOpen")] == [8]
    prog = read_program(_rapid(tmp_path, '        %"GetTarget"% pPick;\n        MoveL pPick, v100, fine, tool0;\n'))
    assert [u.line for u in prog.unsupported] == [9] and "passed to GetTarget" in prog.unsupported[0].message


def test_rapid_a_routine_of_the_task_that_calls_one_found_nowhere_and_the_module_that_declares_it(tmp_path):
    """A module of the task whose routine passes module data to a routine found nowhere: a motion that reads that
    datum after the call is refused; given the module that declares the routine (``--module``), it is followed and
    no note names it."""
    lib = tmp_path / "lib.sys"
    lib.write_text("MODULE lib(SYSMODULE)\n    PROC Pick()\n        GetTarget pPick;\n    ENDPROC\nENDMODULE\n")
    program = _rapid(tmp_path, "        Pick;\n        MoveL pPick, v100, fine, tool0;\n")
    prog = read_program(program, rapid=RapidOptions(modules=(str(lib),)))
    assert [u.line for u in prog.unsupported] == [9] and "pPick is changed at run time" in prog.unsupported[0].message
    found = _notes_of(prog, "GetTarget")
    assert len(found) == 1 and prog.files[found[0].file][0] == str(lib) and found[0].line == 3
    grip = tmp_path / "grip.sys"
    grip.write_text("MODULE grip(SYSMODULE)\n    PROC GripOpen()\n        TPWrite \"open\";\n    ENDPROC\nENDMODULE\n")
    prog = read_program(_rapid(tmp_path, "        GripOpen;\n"), rapid=RapidOptions(modules=(str(grip),)))
    assert prog.unsupported == () and not _notes_of(prog, "GripOpen")


def test_the_external_option_is_gone(tmp_path, capsys):
    """``--external`` declared what every call of a routine found nowhere now assumes: it is no option any more."""
    program = _rapid(tmp_path, "        GripOpen;\n")
    with pytest.raises(SystemExit) as info:
        main(["compensate", "--robot", "irb140", "--deformation", "deformations/exaggerated.csv", "--program",
              str(program), "--out", str(tmp_path / "o.mod"),
              "--external", "GripOpen"])
    assert info.value.code == 64 and "unrecognized arguments: --external" in capsys.readouterr().err
    with pytest.raises(TypeError):
        RapidOptions(external=("GripOpen",))  # type: ignore[call-arg]


_SCRIPT = ("def prog():\n"
           "  a = p[0.4, -0.1, 0.3, 0, 3.1416, 0]\n"
           "  b = p[0.4, 0.1, 0.3, 0, 3.1416, 0]\n"
           "  movel(a, a=1.2, v=0.25)\n"
           "{body}"
           "  movel(b, a=1.2, v=0.25)\n"
           "end\n")


def _script(tmp_path, body: str):
    path = tmp_path / "s.script"
    path.write_text(_SCRIPT.replace("{body}", body))
    return path


def test_urscript_calls_of_functions_found_nowhere_are_passed_over_with_one_note_each(tmp_path):
    """``rq_open()`` twice (a gripper URCap's, defined by the controller's preamble): both motions followed; one
    note, at the first call, with the count and what is assumed."""
    prog = read_program(_script(tmp_path, "  rq_open()\n  sleep(0.5)\n  rq_open()\n"))
    assert prog.unsupported == () and [m.line for m in prog.motions] == [4, 8]
    found = _notes_of(prog, "rq_open")
    assert [(n.line, n.column) for n in found] == [(5, 3)]
    assert re.search(r"its 2 call\(s\) \(the first at line 5\)", found[0].message)
    assert "moves nothing" in found[0].message and "passes arguments by value" in found[0].message


def test_urscript_a_variable_passed_to_such_a_function_is_not_changed(tmp_path):
    """URScript passes arguments by value: ``rq_adjust(b)`` cannot change ``b``; the motion after it is followed."""
    prog = read_program(_script(tmp_path, "  rq_adjust(b)\n"))
    assert prog.unsupported == () and [m.line for m in prog.motions] == [4, 6]
    assert len(prog.motions[1].points) == 1


def test_urscript_a_motion_that_reads_such_a_function_s_value_is_refused(tmp_path):
    """``c = rq_pose()`` then ``movel(c)``: the value is known only while running: the motion is refused."""
    prog = read_program(_script(tmp_path, "  c = rq_pose()\n  movel(c, a=1.2, v=0.25)\n"))
    assert [u.line for u in prog.unsupported] == [6] and "rq_pose" in prog.unsupported[0].message
    assert [m.line for m in prog.motions] == [4, 7]


def test_urscript_a_function_of_the_file_that_calls_one_found_nowhere_is_passed_over(tmp_path):
    """A function of the file whose only call is of a function found nowhere moves nothing: its calls are passed
    over, and the note names the function found nowhere at its call inside."""
    body = "  grip()\n  grip()\n"
    text = _SCRIPT.format(body=body).replace("def prog():\n", "def prog():\n  def grip():\n    rq_close()\n  end\n")
    path = tmp_path / "f.script"
    path.write_text(text)
    prog = read_program(path)
    assert prog.unsupported == () and [m.line for m in prog.motions] == [7, 10]
    assert [n.line for n in _notes_of(prog, "rq_close")] == [3]


def _compensate(tmp_path, capsys, program, robot: str, *extra: str) -> tuple[int, str]:
    out = tmp_path / f"out{program.suffix}"
    code = main(["compensate", "--robot", robot, "--deformation", "deformations/exaggerated.csv", "--program",
                 str(program), "--out", str(out), "--no-progress", *extra])
    captured = capsys.readouterr()
    assert out.exists() == (code == 0)
    return code, captured.out + captured.err


@pytest.mark.parametrize("call", ["ExecJob;", '%"Blend"%;'])
def test_rapid_a_cycle_that_runs_no_motion_but_calls_a_routine_found_nowhere_is_refused_naming_it(tmp_path, capsys,
                                                                                                   call):
    """A ``main`` of no motion whose own statements call a routine found nowhere (a job dispatcher, a module loaded
    while running): that call is what the cycle does, so the assumption that it moves nothing leaves nothing to
    decide: refused naming it and its line, nothing written. With a motion of its own, the call is passed over."""
    program = tmp_path / "jobs.mod"
    program.write_text(f"MODULE jobs\n    PROC main()\n        TPWrite \"start\";\n        {call}\n    ENDPROC\nENDMODULE\n")
    code, text = _compensate(tmp_path, capsys, program, "irb140")
    name = "ExecJob" if call == "ExecJob;" else "Blend"
    assert code == 1 and f"{program}, line 4, column 9: no motion to compensate was found: main runs none" in text
    assert f"it calls {name} (line 4)" in text and "--module FILE" in text


def test_rapid_a_cycle_of_no_motion_whose_library_calls_a_routine_found_nowhere_is_written_back(tmp_path, capsys):
    """A gripper task: ``main`` calls a routine of a module given, which logs through a routine found nowhere: the
    task moves nothing; it is written back as it is, the note naming the logging routine."""
    lib = tmp_path / "hand.sys"
    lib.write_text("MODULE hand(SYSMODULE)\n    PROC Grip()\n        SetDO doGrip, 1;\n        EventLog 2;\n"
                   "    ENDPROC\nENDMODULE\n")
    program = tmp_path / "grip.mod"
    program.write_text("MODULE grip\n    PROC main()\n        Grip;\n    ENDPROC\nENDMODULE\n")
    code, text = _compensate(tmp_path, capsys, program, "irb140", "--module", str(lib))
    assert code == 0 and "no motion found" in text and f"{lib}:4:9: EventLog is a routine found in no module" in text


def test_urscript_a_script_that_runs_no_motion_but_calls_a_function_found_nowhere_is_refused(tmp_path, capsys):
    """A fragment of a URCap's program (``rq_vacuum_grip(...)`` at its top level, no motion): refused naming the
    call; the same call inside a function of the script the top level calls is passed over (a gripper script)."""
    program = tmp_path / "grip.script"
    program.write_text('textmsg("in")\nrq_vacuum_grip(maximum_vacuum=60)\ntextmsg("out")\n')
    code, text = _compensate(tmp_path, capsys, program, "ur5")
    assert code == 1 and f"{program}, line 2, column 1: no motion to compensate was found" in text
    assert "rq_vacuum_grip (line 2)" in text
    program.write_text('def grip():\n  rq_vacuum_grip(maximum_vacuum=60)\nend\ngrip()\n')
    code, text = _compensate(tmp_path, capsys, program, "ur5")
    assert code == 0 and "no motion found" in text


@pytest.mark.parametrize(("name", "text", "notes", "own"), [
    ("order.mod",  # a PROC before main, a late-bound call of a name also called directly and of one called only so
     "MODULE cell\n"
     f"    CONST robtarget pHome := {_P.format(x=500)};\n"
     "    PROC helper()\n"
     "        Alpha;\n"
     "        Alpha;\n"
     "    ENDPROC\n"
     "    PROC main()\n"
     "        MoveL pHome, v100, fine, tool0;\n"
     "        Zed;\n"
     "        helper;\n"
     "        Alpha;\n"
     '        %"Zed"%;\n'
     '        %"Be" + "ta"%;\n'
     "        MoveL pHome, v100, fine, tool0;\n"
     "    ENDPROC\n"
     "ENDMODULE\n",
     [("Alpha", 4, 3), ("Zed", 9, 1), ("Beta", 13, 1)], [("Zed", 9), ("Alpha", 11), ("Beta", 13)]),
    ("order.script",  # a function before the top level's statements, which are the entry's own
     "def helper():\n"
     "  rq_grip()\n"
     "end\n"
     "movel(p[.4, .1, .3, 0, 3.14, 0], a=1.2, v=0.25)\n"
     "zz_tool()\n"
     "helper()\n"
     "rq_grip()\n"
     "aa_log(zz_tool())\n"
     "movel(p[.4, .1, .3, 0, 3.14, 0], a=1.2, v=0.25)\n",
     [("rq_grip", 2, 2), ("zz_tool", 5, 2), ("aa_log", 8, 1)],
     [("zz_tool", 5), ("rq_grip", 7), ("aa_log", 8), ("zz_tool", 8)]),
])
def test_one_note_a_routine_found_nowhere_at_its_first_call_in_text_order_and_the_entry_s_own_calls(
        tmp_path, name, text, notes, own):
    """Both readers: one note a routine found nowhere, at its first call in the text (not in the order the cycle
    runs them), counting every call a cycle may make (a RAPID late-bound call too, unless the routine is called by
    name: counted once); ``extra["nowhere"]`` the calls the entry routine makes itself, in text order."""
    (tmp_path / name).write_text(text)
    prog = read_program(tmp_path / name)
    found = [n for n in prog.notes if "its " in n.message and " call(s) (the first at line " in n.message]
    assert [(n.message.split()[0], n.line, int(re.search(r"its (\d+) call", n.message)[1])) for n in found] == notes
    assert [(routine, line) for routine, _, line, _ in prog.extra["nowhere"]] == own
