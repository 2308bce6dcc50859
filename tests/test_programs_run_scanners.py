"""The compiled run scanners lex programs exactly as the grammars' ``MOVES`` regular expressions do.

Both readers' lexers match a run of plain motions (the ``MOVES`` terminal) with
a compiled scanner (moves_kernel.run_end for RAPID, urmoves_kernel.run_end
for URScript; thermocomp.programs.grammars) instead of the terminal's regular
expression. The reference here is lark's own lexer on the same grammar, which
uses the regular expression: every token (type, text, offsets, lines and
columns) and every syntax error (kind and place) must be the same, on texts
built at random from statements of the shape, statements just off it, and
the gaps between them, cut anywhere. The RAPID scanner also keeps the statements' parts it found, which
the reader takes instead of splitting the run again: they must be the reader's split.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from lark import Token
from lark.exceptions import UnexpectedInput

from thermocomp.programs import moves_kernel, rapid, urmoves_kernel, urscript
from thermocomp.programs.grammars import lexing, runs_parser


def _lexed(parser, text: str):
    """Every token of ``text`` as ``parser`` reads it, or where and how it refuses it."""
    try:
        tree = parser.parse(text)
    except UnexpectedInput as exc:
        token = getattr(exc, "token", None)
        return (type(exc).__name__, exc.line, exc.column, getattr(token, "type", None), str(token))
    return [(t.type, str(t), t.start_pos, t.end_pos, t.line, t.column, t.end_line, t.end_column)
            for t in tree.scan_values(lambda v: isinstance(v, Token))]


_RAPID_REGEX = runs_parser("rapid.lark", rapid._RUNS_RULE, True, propagate_positions=True, maybe_placeholders=False)
_UR_REGEX = runs_parser("urscript.lark", urscript._RUNS_RULE, True, propagate_positions=True,
                        maybe_placeholders=False, postlex=urscript._PostLex())

_T = "[[500,0,600],[1,0,0,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]]"
RAPID_PIECES = st.sampled_from([
    f"MoveL {_T}, v100, z1, tGun;", "MoveJ p0,vSlow,fine,tool0;", f"moveL\n  {_T},\n v1000, z10, tGun;",
    f"MoveL {_T}, p1, v100, z1, tGun;", f"MoveC {_T}, {_T}, v100, z1, tGun\\WObj:=wTable;",
    f"MoveL {_T}, v100, z1, tGun \\ wobj := wTable;", "MoveAbsJ [[1,2,3,4,5,6],[9E9,9E9,9E9,9E9,9E9,9E9]], v9, z1, t;",
    f"MoveLX {_T}, v100, z1, tGun;", f"MoveL {_T}, v100, z1, tGun\\WObjX:=w;", f"MoveL {_T}, v100, z1, tGun, fine;",
    "MoveL [[[[1]]]], v100, z1, tGun;", "MoveL [[1,2],[3], v100, z1, tGun;", "MoveL Offs(p0, 0, 0, 5), v100, z1, t;",
    "MoveL p0, v100\\T:=2, z1, tGun;", "MoveL p0, v100, z1, tGun", "MoveL [[4 4.5e,--1]], v1, z1, t;",
    "WaitTime 1;", "SetDO do1, 1;", "IF n > 0 THEN", "ENDIF", "Move", "MoveL", ";",
])
RAPID_GAPS = st.sampled_from(["", " ", "\n", "\r\n    ", "\f", "\t", "! a comment\n", "\n! MoveL p0, v1, z1, t;\n",
                              "!"])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(RAPID_PIECES, RAPID_GAPS), min_size=1, max_size=12), st.integers(0, 10_000))
def test_rapid_runs_lex_as_the_regular_expression_lexes_them(pieces, cut):
    body = "".join(piece + gap for piece, gap in pieces)
    text = ("MODULE M\n  CONST robtarget p0:=" + _T + ";\n  VAR num n := 1;\n  PROC main()\n    " + body
            + "\n  ENDPROC\nENDMODULE\n")
    for t in (text, text[:len(text) * cut // 10_000]):
        assert _lexed(rapid.rapid_parser(True), t) == _lexed(_RAPID_REGEX, t)


_P = "p[.4, -.1, .3, 3.14, 0, 0]"
UR_PIECES = st.sampled_from([
    f"movel({_P}, a=1.2, v=0.25)", f"movel({_P})", "movej([1, -1.5, 1.2, 0, 1.5, 0], a=1.4, v=1.05)",
    f"movep({_P}, a=1.2, v=0.25, r=0.001)", f"movel({_P}, 1.2, 0.25)", f"movel({_P},a=1e,v=.25 )",
    f"movel ({_P})", f"movel( {_P})", f"movelp({_P})", "movel(p [.4, 0])", f"movel({_P}, x=1)", "movel(p[])",
    f"movel({_P}", f"Movel({_P})", f"movec({_P}, {_P})", "movel(wp, a=1.2)", "movel(p[1,2]) x", "sleep(0.5)",
    "set_digital_out(1, True)", "if True:", "end", "movel", "m",
])
UR_GAPS = st.sampled_from(["\n", "\n  ", "\r\n", " \n", "\n\n\t", "  # c\n  ", "\n# movel(p[0,0,0,0,0,0])\n", "",
                           " ", "\f\n", "#"])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(UR_PIECES, UR_GAPS), min_size=1, max_size=12), st.integers(0, 10_000), st.booleans())
def test_urscript_runs_lex_as_the_regular_expression_lexes_them(pieces, cut, in_a_function):
    body = "".join(piece + gap for piece, gap in pieces)
    text = f"global wp = {_P}\n" + (f"def main():\n  {body}\nend\n" if in_a_function else body + "\n")
    for t in (text, text[:len(text) * cut // 10_000]):
        if not t.endswith("\n"):
            t += "\n"  # (as urscript.parse_urscript_text gives it)
        assert _lexed(urscript.urscript_parser(True), t) == _lexed(_UR_REGEX, t)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(RAPID_PIECES, RAPID_GAPS), min_size=1, max_size=12))
def test_rapid_runs_split_while_lexed_are_the_readers_split(pieces):
    body = "".join(piece + gap for piece, gap in pieces)
    text = "MODULE M\n  PROC main()\n    " + body + "\n  ENDPROC\nENDMODULE\n"
    data = np.frombuffer(text.encode("latin-1"), dtype=np.uint8)
    moves_kernel.forget_scanned()
    try:
        with lexing(text, data):
            tree = rapid.rapid_parser(True).parse(text)
    except UnexpectedInput:
        return
    finally:
        kept = dict(moves_kernel._SCANNED)
        moves_kernel.forget_scanned()
    runs = list(tree.scan_values(lambda v: isinstance(v, Token) and v.type == "MOVES"))
    assert len(kept) == len(runs)
    for token in runs:
        moves_kernel._SCANNED.update(kept)
        rows = moves_kernel.scanned_rows(data, token.start_pos, token.end_pos)
        assert rows is not None and np.array_equal(rows, moves_kernel.split_moves(str(token)))
    moves_kernel.forget_scanned()


def test_a_long_run_is_one_token_ending_at_its_last_statement(monkeypatch):
    """The scanners' answer on a run of 3,000 statements: one token, up to the ``;`` / ``)`` of the last one (and
    for RAPID its statements' parts, the reader's split, their array grown past its first size); a module read
    leaves no run kept."""
    monkeypatch.setattr(moves_kernel, "RUN_ROWS_FIRST", 100)
    rapid_text = "\n".join([f"  MoveL {_T}, v100, z1, tGun;"] * 3000) + "\n  WaitTime 1;"
    data = np.frombuffer(rapid_text.encode("latin-1"), dtype=np.uint8)
    end = rapid_text.index("\n  WaitTime")
    assert moves_kernel.run_end(data, 2) == end
    rows = moves_kernel.scanned_rows(data, 2, end)
    assert rows.shape == (3000, moves_kernel.END + 1)
    assert np.array_equal(rows, moves_kernel.split_moves(rapid_text[2:end]))
    assert moves_kernel.scanned_rows(data, 2, end) is None  # (taken once)
    assert moves_kernel.run_end(data, 3) == -1  # (not at a statement's start)
    module = "MODULE M\n  PROC main()\n" + rapid_text.replace("tGun", "tool0") + "\n  ENDPROC\nENDMODULE\n"
    assert len(rapid.rapid_program_from_text(module).motions) == 3000
    assert not moves_kernel._SCANNED
    ur_text = "\n".join([f"  movel({_P}, a=1.2, v=0.25)"] * 1000) + "\n  sleep(1)"
    data = np.frombuffer(ur_text.encode("latin-1"), dtype=np.uint8)
    assert urmoves_kernel.run_end(data, 2) == ur_text.index("\n  sleep")
    assert urmoves_kernel.run_end(data, 1) == -1
