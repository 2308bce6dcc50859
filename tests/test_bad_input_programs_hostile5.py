"""Hostile uses of ``compensate --program`` left by the fourth adversarial run and found by the fifth's fuzzing, each
a sample of a class. The programs are written from the manuals' syntax (ABB "Technical reference manual - RAPID
kernel": modules, PROC, CONST robtarget, MoveL; UR "The URScript Programming Language": def, movel).
"""

from __future__ import annotations

import functools

import pytest
from test_bad_input import case, refused, run_cli  # noqa: F401  (fixture)

from thermocomp.cli.common import EXIT_INPUT
from thermocomp.errors import InputError
from thermocomp.programs import grammars, read
from thermocomp.programs.rapid import RapidOptions
from thermocomp.programs.rapid_flow import _Flow

POINT = "[[500,{y},500],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]]"
RAPID = ["compensate", "--robot", "irb140", "--deformation", "d.csv", "--at-minute", "60", "--no-progress"]
UR = ["compensate", "--robot", "ur5", "--deformation", "d.csv", "--at-minute", "60", "--no-progress"]


def _task(folder, n: int) -> tuple[str, tuple[str, ...]]:
    """A program whose main calls one PROC in each of ``n`` modules; each module also holds a PROC no cycle runs
    that moves to the module's CONST target (a use kept out of the declaration's uses)."""
    calls = "".join(f"  R{k};\n" for k in range(n))
    (folder / "p.mod").write_text(f"MODULE P\nCONST robtarget p0:={POINT.format(y=0)};\nPROC main()\n"
                                  f"  MoveL p0,v100,z1,tool0;\n{calls}ENDPROC\nENDMODULE\n")
    for k in range(n):
        (folder / f"m{k}.mod").write_text(f"MODULE M{k}\nCONST robtarget q{k}:={POINT.format(y=k)};\nPROC R{k}()\n"
                                          f"  MoveL q{k},v100,z1,tool0;\nENDPROC\nPROC U{k}()\n"
                                          f"  MoveL q{k},v100,z1,tool0;\nENDPROC\nENDMODULE\n")
    return str(folder / "p.mod"), tuple(str(folder / f"m{k}.mod") for k in range(n))


def test_the_uses_of_a_task_of_many_modules_are_found_in_time_linear_in_their_number(tmp_path, monkeypatch):
    """The routines a cycle runs were found again for each module's uses (``_unrun_spans``, once a module, each
    walking every routine of the task): 800 --module files spent 1.5 s of CPU there. They are found once a task."""
    counts = {}
    real = _Flow.summary
    for n in (10, 40):
        calls = []
        monkeypatch.setattr(_Flow, "summary", lambda self, *a, _c=calls, **k: _c.append(1) or real(self, *a, **k))
        folder = tmp_path / str(n)
        folder.mkdir()
        program, modules = _task(folder, n)
        prog = read.read_program(program, rapid=RapidOptions(modules=modules))
        assert len(prog.run.text) == n + 1
        counts[n] = len(calls)
    assert counts[40] < 6 * counts[10], counts  # (linear: 4 times; once a module each walking all: 16 times)


@pytest.mark.parametrize(("name", "text", "line", "column", "still_open"), [
    # lark names the last token's place: line 3 and its column 8 for each of these
    ("p.mod", "MODULE M\nPROC main()\n  x := 1;\n\n\n! the rest was lost\n\n", 7, 1, "PROC main (line 2)"),
    ("p.mod", "MODULE M\r\nPROC main()\r\n  x := 1;\r\n  ! cut", 4, 8, "PROC main (line 2)"),
    ("p.mod", "MODULE M\r\nPROC main()\r\n  x := 1;\r\n", 3, 10, "PROC main (line 2)"),
    ("p.script", "def p():\n  x = [1,\n\n  # cut here\n", 4, 13, "'[' (line 2)"),
    ("p.script", "def p():\n  x = 1\n", 2, 8, "def p (line 1)"),
])
def test_a_file_cut_short_names_where_it_ends(tmp_path, name, text, line, column, still_open):
    """A file that ends inside a block or a bracket was refused at its last token (line 3), however many lines of
    comments or white space follow it: the message names the file's last line and the column after its end."""
    path = tmp_path / name
    path.write_bytes(text.encode())
    with pytest.raises(InputError) as info:
        read.read_program(path)
    assert info.value.row == line and f"unexpected end of file (column {column})" in str(info.value)
    assert str(info.value).endswith(f"{still_open} is not closed")


_RUN = "".join(f"  movel(p[0.4,0,0.{k},0,3.14,0], a=1, v=0.2)\n" for k in range(50))


@pytest.mark.parametrize(("files", "program", "where"), [
    # a RAPID module of 80 routines of 8 tokens (line breaks are none): the 101st is r12's PROC, line 38
    ({"p.mod": "MODULE M\n" + "".join(f"PROC r{k}()\n  WaitTime {k};\nENDPROC\n" for k in range(80))
      + "PROC main()\n  MoveL [[500,0,500],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]],v100,z1,tool0;\n"
        "ENDPROC\nENDMODULE\n"}, "p.mod", "p.mod, line 38"),
    # the bound is a file's: a --module past it is named, not the program (6 tokens a declaration: line 18)
    ({"p.mod": "MODULE M\nPROC main()\n  MoveL [[500,0,500],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]],v100,"
               "z1,tool0;\nENDPROC\nENDMODULE\n",
      "m.mod": "MODULE N\n" + "".join(f"CONST num n{k} := {k};\n" for k in range(40)) + "ENDMODULE\n"},
     "p.mod", "m.mod, line 18"),
    # a script's run of motions is one token of the file's parse (some 15 in all); with the tool known only while
    # running the run's statements are parsed by the general rules (25 tokens a line): the bound holds there too,
    # placed in the file
    ({"p.script": f"def p():\n  set_tcp(get_tcp_offset())\n{_RUN}end\n"}, "p.script", "p.script, line 7"),
])
def test_a_file_past_the_readers_bound_on_tokens_is_refused_naming_the_file_the_bound_and_the_line(
        case, capsys, monkeypatch, files, program, where):
    """Parsing costs 10-25 us a token with no bound but the file's size (256 MiB): a list of half a million numbers
    over lines took 11 s and 480 MB to read. A parse past :data:`grammars.MAX_TOKENS` (here lowered to 100) ends in
    a message naming the file, the line it reached and the bound, with nothing written."""
    monkeypatch.setattr(grammars, "MAX_TOKENS", 100)
    for name, text in files.items():
        (case / name).write_text(text)
    modules = [arg for name in files if name != program for arg in ("--module", name)]
    robot = UR if program.endswith(".script") else RAPID
    refused(case, capsys, [*robot, "--program", program, *modules, "--out", "o" + program[1:]], EXIT_INPUT,
            f"{where}: more than 100 tokens to parse", "docs/programs.md")
    monkeypatch.setattr(grammars, "MAX_TOKENS", 2_000)
    code, out, err = run_cli(capsys, [*robot, "--program", program, *modules, "--out", "o" + program[1:]])
    assert "tokens to parse" not in err and (code == 0) == program.endswith(".mod")  # (the script's tool: refused)


def test_the_outputs_of_a_task_of_many_modules_are_staged_in_time_linear_in_their_number(tmp_path, monkeypatch):
    """Each output's temporary looked its role up by scanning every output declared (a task of 800 --module files
    writes 801: 2.4 s of CPU comparing paths). The roles are looked up by path; the log is none of them."""
    from pathlib import Path

    from thermocomp.io.job import Job

    job = Job()
    names = [tmp_path / f"o{k}.mod" for k in range(400)]
    for name in names:
        job.derived_output(name, "--out", b"MODULE", "a module")
    job.log(tmp_path / "r.txt")
    compared = []
    real = Path.__eq__
    monkeypatch.setattr(Path, "__eq__", lambda a, b: compared.append(1) or real(a, b))
    temporaries = [job.temporary(name) for name in names]
    assert len(compared) < 4 * len(names), len(compared)  # (the scan: 80,000)
    assert len(set(temporaries)) == len(names) and all(t.parent == tmp_path for t in temporaries)
    with pytest.raises(ValueError, match="r.txt was not declared"):
        job.temporary(tmp_path / "r.txt")
    job.discard()


_MOVE = ("MODULE M\nCONST robtarget p:=" + POINT.format(y=0) + ";\nPROC main()\n  ! a note{note}\n"
         "  MoveL{gap}p,v100,z1,tool0;\nENDPROC\nENDMODULE\n")
_MOVEL = "def p():\n  # a note{note}\n  movel({gap}p[0.4,0,0.4,0,3.14,0], a=1, v=0.2)\nend\n"


@pytest.mark.parametrize(("name", "text", "line", "column", "named"), [
    # each was "unexpected end of line (column 1)" (Python counts U+00A0 and U+0085 as white space), "unexpected
    # '»'" (the second byte of a byte-order mark whose first RAPID took for a letter) or an invisible character
    ("p.mod", _MOVE.format(note="", gap="\xa0"), 5, 8, "no-break space (U+00A0"),
    ("p.mod", _MOVE.format(note="", gap=" \xc2\xa0"), 5, 9, "no-break space (U+00A0"),  # (its UTF-8 bytes)
    ("p.mod", _MOVE.format(note="", gap="\xef\xbb\xbf"), 5, 8, "zero width no-break space (U+FEFF"),
    ("p.script", _MOVEL.format(note="", gap="\x85"), 3, 9, "next line control character (U+0085"),
    ("p.script", _MOVEL.format(note="", gap="\xe2\x80\x8b"), 3, 9, "zero width space (U+200B"),
])
def test_an_invisible_character_where_a_word_or_a_space_should_be_is_named(tmp_path, name, text, line, column,
                                                                             named):
    """A character that looks like a space or like nothing (text pasted from a web page or a word processor) is
    not white space in either language: the syntax error names it, its code point and its column."""
    path = tmp_path / name
    path.write_bytes(text.encode("latin-1"))
    with pytest.raises(InputError) as info:
        read.read_program(path)
    message = str(info.value)
    assert info.value.row == line and f"unexpected {named}" in message and message.endswith(f"(column {column})")
    assert "end of line" not in message and "»" not in message


@pytest.mark.parametrize(("name", "text"), [("p.mod", _MOVE), ("p.script", _MOVEL)])
def test_an_invisible_character_in_a_comment_is_read_as_written(tmp_path, name, text):
    path = tmp_path / name
    path.write_bytes(text.format(note="\xc2\xa0here\xe2\x80\x8b", gap=" ").encode("latin-1"))
    assert len(read.read_program(path).run.text) == 1


def test_a_utf8_letter_a_rapid_name_took_the_first_byte_of_is_named_as_written(tmp_path):
    """``größe`` in a UTF-8 file: the name took 'Ã' (the Latin-1 reading of the first byte of 'ö') and the error stood
    on the second byte, shown as '¶'. The letter its bytes spell is named."""
    path = tmp_path / "p.mod"
    path.write_bytes(_MOVE.format(note="", gap=" ").replace("CONST robtarget p:", "CONST robtarget grösse:")
                     .encode("utf-8"))
    with pytest.raises(InputError) as info:
        read.read_program(path)
    assert info.value.row == 2 and "unexpected 'ö' (column 20)" in str(info.value) and "¶" not in str(info.value)


_DECL = "MODULE M\nCONST robtarget p:=" + POINT.format(y=0) + ";\n"


@pytest.mark.parametrize(("text", "line", "told"), [
    # each named only the next line's first word ("unexpected 'ENDPROC'"): the ';' left out is on an earlier line
    (_DECL + "PROC main()\n  MoveL p,v100,z1,tool0\nENDPROC\nENDMODULE\n", 5,
     "unexpected 'ENDPROC' (column 1): the statement before it does not end with ';' (line 4)"),
    (_DECL.replace(";\n", "\n") + "PROC main()\n  MoveL p,v100,z1,tool0;\nENDPROC\nENDMODULE\n", 3,
     "unexpected 'PROC' (column 1): the statement before it does not end with ';' (line 2)"),
    (_DECL + "PROC main()\n  WaitTime 1 ! a second\n\n  ! then\n  MoveL p,v100,z1,tool0;\nENDPROC\nENDMODULE\n", 7,
     "unexpected 'MoveL' (column 3): the statement before it does not end with ';' (line 4)"),
    # an ENDPROC left out: RAPID reads the next "PROC other()" as a call of PROC; the open routine is named
    (_DECL + "PROC main()\n  MoveL p,v100,z1,tool0;\nPROC other()\n  MoveL p,v100,z1,tool0;\nENDPROC\nENDMODULE\n",
     6, "unexpected 'MoveL' (column 3): PROC main (line 3) is not closed where line 5 opens another PROC"),
    # on one line: the error's own place is told, nothing more
    (_DECL + "PROC main()\n  MoveL p,v100,z1,tool0 x;\nENDPROC\nENDMODULE\n", 4, "unexpected 'x' (column 25)"),
])
def test_a_rapid_statement_left_without_its_semicolon_is_named_at_its_line(tmp_path, text, line, told):
    """RAPID ends every statement with ';' (RAPID kernel, "Statements"): the parser finds one missing only at the
    next line's first word, which the message now says, naming the line of the statement left open."""
    path = tmp_path / "p.mod"
    path.write_text(text)
    with pytest.raises(InputError) as info:
        read.read_program(path)
    assert info.value.row == line and str(info.value).endswith(f"RAPID syntax: {told}")


def _gotos(depth: int, n: int, label_inside: bool = True) -> str:
    """A PROC whose ``n`` GOTOs stand ``depth`` IF blocks deep, with their label (or with it outside the IFs)."""
    label = "  lbl:\n  MoveL p,v100,z1,tool0;\n"
    body = (("" if label_inside else label) + "  IF di1 = 1 THEN\n" * depth + (label if label_inside else "")
            + "  GOTO lbl;\n" * n + "  ENDIF\n" * depth)
    return f"{_DECL}PROC main()\n{body}ENDPROC\nENDMODULE\n"


def _calls(work) -> int:
    """The Python calls (a generator resumed is one) that ``work()`` makes: a count of its work that the machine's
    load does not change."""
    import sys

    count = [0]

    def profile(frame, event, arg):
        count[0] += event == "call"

    sys.setprofile(profile)
    try:
        work()
    finally:
        sys.setprofile(None)
    return count[0]


def test_gotos_deep_in_blocks_are_checked_and_followed_in_time_linear_in_the_depth(tmp_path):
    """Each GOTO's label was checked against its blocks by comparing every block of one with every block of the other
    (depth squared a GOTO: 3,000 GOTOs 250 IFs deep took 2 s of CPU), and the names a block changes were ordered by
    lark's scan_values (a generator a level, each name yielded through all of them; 5 s to read that module, 0.45 s at
    25 IFs deep). Both are now linear in the depth: the calls they make 160 IFs deep and 20 deep are counted (100
    GOTOs; 8 times the depth). A GOTO into a branch it is outside of is still refused."""
    from thermocomp.programs import rapid_scope
    from thermocomp.programs.rapid import parse_rapid_text

    checked, read_ = {}, {}
    for depth in (20, 160):
        path = tmp_path / f"d{depth}.mod"
        path.write_text(_gotos(depth, 100))
        tree = parse_rapid_text(path.read_text(), str(path))
        checked[depth] = _calls(functools.partial(rapid_scope.check_module, tree, str(path)))
        read_[depth] = _calls(functools.partial(read.read_program, path))  # (IF followed 64 deep: deeper, left)
    assert checked[160] < 10 * checked[20] and read_[160] < 10 * read_[20], (checked, read_)
    path = tmp_path / "into.mod"
    for text, block in [(_gotos(3, 1).replace("  GOTO lbl;\n", "").replace("ENDPROC", "  GOTO lbl;\nENDPROC"), 4),
                        (_gotos(3, 1).replace("  GOTO lbl;\n  ENDIF\n", "  ENDIF\n  GOTO lbl;\n"), 6)]:
        path.write_text(text)  # (outside all three IFs; inside the outer two, outside the third)
        with pytest.raises(InputError, match=rf"GOTO lbl: label lbl \(line 7\) stands in an IF branch \(line {block}\)"):
            read.read_program(path)
