"""RAPID as its manuals define it: one test per feature class of the language, written from ABB's syntax.

"Technical reference manual - RAPID kernel" (modules, data declarations, routines, statements, expressions) and
"RAPID Instructions, Functions and Data types" (the instructions' arguments). Each case is a module that holds the
feature around two motions to constant targets: it is read without a finding, the motions are followed in order, a
zero deformation table gives the file back byte for byte, and with a warm table only the targets' texts change and
every target is reached through the deformed robot's FK within the solver's tolerance (``_check_compensated``).
"""

from __future__ import annotations

import numpy as np
import pytest
from test_bad_input import case, refused  # noqa: F401  (fixture)
from test_programs_rapid_cell import _check_compensated, _targets

from thermocomp import load_robot
from thermocomp.cli.common import EXIT_INPUT
from thermocomp.errors import InputError
from thermocomp.programs import read_program

#: Declarations of the module, by feature class (they come before ``PROC main()``).
DECLARATIONS = {
    "record and alias": "  RECORD partdata\n    num count;\n    string label;\n  ENDRECORD\n  ALIAS num level;\n"
                        "  LOCAL ALIAS partdata part;\n  VAR partdata pd := [2, \"box\"];\n  VAR level lv := 3;\n",
    "storage classes": "  LOCAL CONST num nA := 2;\n  TASK PERS num nB := 3;\n  PERS bool bDone := FALSE;\n"
                       "  VAR intnum iStop;\n  LOCAL VAR clock cl;\n",
    "arrays": "  CONST num table{2, 3} := [[1, 2, 3], [4, 5, 6]];\n  VAR num row{3};\n  PERS string names{2} := "
              "[\"a\", \"b\"];\n",
    "unknown data types": "  VAR signaldi diNew;\n  PERS mytype xThing := [1, [2, 3], \"c\"];\n"
                          "  VAR socketdev sockB;\n  CONST weavedata wv := [1, 0, 2, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];\n",
    "numbers and strings": "  CONST num nHex := 0xFF;\n  CONST num nOct := 0o17;\n  CONST num nBin := 0b101;\n"
                           "  CONST num nExp := 1.5E-3;\n  CONST num nDot := .5;\n  CONST num nTrail := 5.;\n"
                           "  CONST string sQuote := \"say \"\"hi\"\" \\41\";\n",
}

#: Statements inside ``main``, between ``MoveJ a`` and ``MoveL b``, by feature class.
STATEMENTS = {
    "if elseif else": "    IF nCount > 1 AND NOT bFlag THEN\n      nCount := 1;\n    ELSEIF nCount = 0 OR bFlag XOR TRUE "
                      "THEN\n      Incr nCount;\n    ELSE\n      TPWrite \"else\";\n    ENDIF\n",
    "compact if": "    IF nCount <> 2 Incr nCount;\n",
    "for step": "    FOR k FROM 10 TO 1 STEP -3 DO\n      WaitTime 0.1;\n    ENDFOR\n",
    "while": "    WHILE DInput(diReady) = 0 DO\n      WaitTime 0.1;\n    ENDWHILE\n",
    "test case default": "    TEST nCount\n    CASE 1, 2:\n      SetDO doY, 1;\n    CASE 3:\n      Reset doY;\n"
                         "    DEFAULT:\n      PulseDO \\PLength:=0.2, doY;\n    ENDTEST\n",
    "goto and labels": "    GOTO skip;\n    TPWrite \"never\";\n  skip:\n",
    "return exit raise": "    IF DInput(diAbort) = 1 THEN\n      RETURN;\n    ENDIF\n    IF DInput(diStop) = 1 EXIT;\n"
                         "    IF DInput(diErr) = 1 RAISE ERR_MY;\n",
    "calls and arguments": "    helper 1, \"two\" \\Opt:=3 \\Flag;\n    helper nCount + 1, \"x\";\n",
    "conditional arguments": "    relay 4 \\Opt?nOptional;\n",
    "late binding": "    %\"helper\"% 1, \"late\";\n",
    "interrupts": "    CONNECT iStop WITH tStop;\n    ISignalDI diStop, 1, iStop;\n    IDelete iStop;\n",
    "functions and expressions": "    nCount := Abs(-3) + 2 * 4 DIV 3 - 7 MOD 4 + table{2, 1};\n"
                                 "    bFlag := nCount >= 3 AND StrLen(\"abc\") < 5;\n",
    "sockets and files": "    SocketCreate sock;\n    SocketConnect sock, \"192.168.0.2\", 1025;\n"
                         "    SocketSend sock \\Str:=\"hello\";\n    SocketReceive sock \\Str:=sReply;\n"
                         "    SocketClose sock;\n",
    "declarations in a routine": "    VAR num nLoc := 4;\n    nLoc := nLoc * 2;\n",
    "optional arguments of a motion": "",  # (the motions below take \\V, \\T, \\WObj, \\Inpos, \\TLoad)
}

ROUTINES = ("  PROC helper(num n, string s, \\num Opt, \\switch Flag)\n    IF Present(Opt) THEN\n"
            "      TPWrite s \\Num:=Opt;\n    ENDIF\n  ENDPROC\n"
            "  PROC relay(num n, \\num Opt)\n    helper n, \"relay\" \\Opt?Opt;\n  ENDPROC\n"
            "  PROC alt(\\switch On | switch Off, INOUT num io, PERS bool pb, VAR num arr{*})\n    io := 1;\n"
            "  ENDPROC\n"
            "  FUNC num twice(num x)\n    RETURN 2 * x;\n  ENDFUNC\n"
            "  TRAP tStop\n    SetDO doY, 0;\n  ENDTRAP\n"
            "  LOCAL PROC handled()\n    TPWrite \"x\";\n  ERROR\n    IF ERRNO = ERR_DIVZERO THEN\n      TRYNEXT;\n"
            "    ENDIF\n    RETRY;\n  BACKWARD\n    TPWrite \"back\";\n  UNDO\n    TPWrite \"undo\";\n  ENDPROC\n")

BASE_DECL = ("  VAR bool bFlag := FALSE;\n  VAR string sReply;\n  VAR num nOptional;\n  VAR intnum iStop;\n"
             "  VAR socketdev sock;\n  CONST num table{2, 3} := [[1, 2, 3], [4, 5, 6]];\n  VAR errnum ERR_MY := -1;\n")


def _language_module(rng, decl: str = "", statements: str = "", motions: str = ""):
    targets, T, _ = _targets(load_robot("irb140"), rng, "ab")
    tool = "  PERS tooldata tGrip := [TRUE,[[0,0,120],[1,0,0,0]],[1,[0,0,50],[1,0,0,0],0,0,0]];\n"
    base = BASE_DECL if "table{2, 3}" not in decl and "iStop" not in decl else \
        BASE_DECL.replace("  CONST num table{2, 3} := [[1, 2, 3], [4, 5, 6]];\n", "").replace("  VAR intnum iStop;\n", "")
    moves = motions or "    MoveJ a, v500, z10, tGrip;\n{statements}    MoveL b, v100, fine, tGrip;\n"
    src = ("%%%\r\n  VERSION:1\r\n  LANGUAGE:ENGLISH\r\n%%%\r\n\r\nMODULE cell(SYSMODULE, NOSTEPIN)\n" + targets + tool
           + "  VAR num nCount := 0;\n" + base + decl + "  PROC main()\n" + moves.format(statements=statements)
           + "  ENDPROC\n" + ROUTINES + "ENDMODULE\n")
    return src, [T["a"], T["b"]]


MOTION_OPTIONS = ("    MoveJ a, v500\\V:=400, z10, tGrip\\WObj:=wobj0;\n    MoveL b, v100\\T:=3, fine\\Inpos:=inpos50, "
                  "tGrip\\TLoad:=load0;\n")


def _read_clean(tmp_path, src, want):
    path = tmp_path / "cell.mod"
    path.write_text(src)
    prog = read_program(path)
    assert prog.unsupported == (), prog.unsupported
    np.testing.assert_allclose(np.stack([p.T_world_tcp for p in prog.points]), want, atol=1e-12)


@pytest.mark.parametrize("feature", sorted(DECLARATIONS))
def test_declarations_of_the_kernel_are_read(tmp_path, rng, feature):
    _read_clean(tmp_path, *_language_module(rng, decl=DECLARATIONS[feature]))


@pytest.mark.parametrize("feature", sorted(STATEMENTS))
def test_statements_of_the_kernel_are_read(tmp_path, rng, feature):
    motions = MOTION_OPTIONS if feature == "optional arguments of a motion" else ""
    _read_clean(tmp_path, *_language_module(rng, statements=STATEMENTS[feature], motions=motions))


def test_every_feature_together_compensates_only_the_targets(tmp_path, rng):
    """All the declarations and statements above in one module (one compensation for all, to stay cheap): a zero
    table gives it back byte for byte, a warm one changes only the targets' texts and reaches every target."""
    decl = "".join(text for name, text in sorted(DECLARATIONS.items()) if name not in ("arrays", "unknown data types"))
    statements = "".join(text for name, text in sorted(STATEMENTS.items()) if name != "declarations in a routine")
    src, want = _language_module(rng, decl=decl, statements=statements)
    _read_clean(tmp_path, src, want)
    _check_compensated(tmp_path, src, want, rng)


def test_several_modules_in_one_file_are_one_task(tmp_path, rng):
    """A ``.prg`` of several modules: a library module's PROC and tool are the program's."""
    src, want = _language_module(rng, motions="    MoveJ a, v500, z10, tGrip;\n    lib_move;\n")
    src = src.replace("ENDMODULE\n", "ENDMODULE\n\nMODULE lib(SYSMODULE)\n  PROC lib_move()\n"
                                     "    MoveL b, v100, fine, tGrip;\n  ENDPROC\nENDMODULE\n")
    path = tmp_path / "cell.prg"
    path.write_text(src)
    prog = read_program(path)
    assert prog.unsupported == () and len(prog.motions) == 2
    np.testing.assert_allclose(np.stack([p.T_world_tcp for p in prog.points]), want, atol=1e-12)


@pytest.mark.parametrize(("text", "where"), [
    ("    MoveL b v100, fine, tGrip;\n", (1, 13)),  # a missing comma
    ("    IF nCount > 1 THEN\n      Incr nCount;\n", (4, 3)),  # IF without ENDIF: at ENDPROC
    ("    nCount := := 2;\n", (1, 15)),
    ("    FOR k FROM 1 TO DO\n    ENDFOR\n", (2, 5)),  # (DO read as the bound: at ENDFOR)
])
def test_text_the_controller_refuses_is_a_syntax_error_with_line_and_column(tmp_path, rng, text, where):
    src, _ = _language_module(rng, statements=text)
    path = tmp_path / "cell.mod"
    path.write_text(src)
    with pytest.raises(InputError, match="RAPID syntax") as info:
        read_program(path)
    first = src.splitlines().index(text.splitlines()[0]) + 1
    assert info.value.row == first + where[0] - 1 and f"column {where[1]}" in str(info.value)


_POINT = "[[500,0,500],[0,0,1,0],[{cf}],[9E9,9E9,9E9,9E9,9E9,9E9]]"


@pytest.mark.parametrize(("body", "data", "line", "words"), [
    # issue 38: a confdata beyond a C long was an OverflowError traceback (declared) or a garbage quadrant (inline)
    ("MoveL " + _POINT.format(cf="1E30,0,0,0") + ", v100, z1, tool0;", "", 4, ["confdata", "1e+30"]),
    ("MoveL q, v100, z1, tool0;", "CONST robtarget q:=" + _POINT.format(cf="0,0,-1E30,0") + ";\n", 2,
     ["confdata", "-1e+30"]),
    ("MoveL q, v100, z1, tool0;", "CONST robtarget q:=" + _POINT.format(cf="0,0,8388609,0") + ";\n", 2,
     ["confdata", "8,388,608"]),
    # the other integers RAPID takes: array sizes and indices, DIV and MOD operands
    ("MoveL ps{1}, v100, z1, tool0;", "CONST robtarget ps{1E30}:=[" + _POINT.format(cf="0,0,0,0") + "];\n", 2,
     ["ps's size", "1e+30"]),
    ("MoveL ps{1E30}, v100, z1, tool0;", "CONST robtarget ps{1}:=[" + _POINT.format(cf="0,0,0,0") + "];\n", 5,
     ["array index", "1e+30"]),
    # a VAR array declared without a value: its size checked as an initialised one's; an element assigned, its index
    ("MoveL p, v100, z1, tool0;", "VAR robtarget ps{1.5};\n", 2, ["ps's size", "1.5"]),
    ("ps{4} := p;\n  MoveL ps{1}, v100, z1, tool0;", "VAR robtarget ps{3};\n", 5, ["index 4 outside ps{1..3}"]),
    ("n := 1E30 DIV 7;\n  MoveL Offs(p, 0, 0, n), v100, z1, tool0;", "VAR num n;\n", 5, ["DIV operand", "1e+30"]),
    ("n := 3E38 * 10;\n  MoveL Offs(p, 0, 0, n), v100, z1, tool0;", "VAR num n;\n", 5, ["out of range"]),
])
def test_an_integer_beyond_what_rapid_holds_is_refused_with_its_line(case, capsys, body, data, line, words):
    """Every integer a RAPID type or instruction takes, of any size the file can write, is checked before it is
    converted: a message with the file, line and column, exit 1, no traceback, nothing written."""
    text = ("MODULE M\n" + data + "CONST robtarget p:=" + _POINT.format(cf="0,0,0,0") + ";\nPROC main()\n  " + body
            + "\nENDPROC\nENDMODULE\n")
    (case / "b.mod").write_text(text)
    refused(case, capsys, ["compensate", "--robot", "irb140", "--deformation", "d.csv", "--program", "b.mod",
                           "--out", "o.mod"], EXIT_INPUT, f"b.mod, line {line}", "column", *words)
