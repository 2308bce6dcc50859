"""The LALR parsers of the program readers, their tables cached on disk between processes.

Building lark's LALR tables from a grammar takes about half a second, on
every run: more than a 10,000-line program takes to parse. lark keeps the
built parser in a cache file named here (in the package's ``__pycache__``,
as Python and numba do), checks it against a hash of the grammar and the
options before using it, and builds the tables afresh (and tries to save
them) when the file is missing, stale, unreadable or not writable.

A grammar's ``MOVES`` terminal (a run of plain motion statements, thousands
of lines long in a CAM program) is defined by its regular expression, and
matched by a compiled scanner of the same language where the parser expects
one: Python's regular-expression engine took 2 to 3 us a statement, a third
of reading a 100,000-motion program. The scanner is handed to lark's
contextual lexer through its ``_plugins`` option, the hook lark offers for
replacing its lexer classes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path

import numpy as np
from lark import Lark
from lark.exceptions import UnexpectedInput
from lark.lexer import BasicLexer, ContextualLexer

#: A run scanner: ``(data, start) -> end`` of the ``MOVES`` token starting at ``start`` of ``data`` (the text's
#: latin-1 bytes, uint8), or -1 if none starts there.
RunScanner = Callable[[np.ndarray, int], int]


def lalr_parser(grammar: str, name: str, **options) -> Lark:
    """``Lark(grammar, parser="lalr", **options)``, its tables cached as ``__pycache__/<name>.lark``."""
    cache = Path(__file__).resolve().parent / "__pycache__"
    try:
        cache.mkdir(exist_ok=True)
    except OSError:  # a read-only installation: built every time
        return Lark(grammar, parser="lalr", **options)
    return Lark(grammar, parser="lalr", cache=str(cache / f"{name}.lark"), **options)


#: The text being lexed and its latin-1 bytes (uint8), where the run scanners read it: one slot, replaced whole,
#: emptied when a parse ends; :func:`lexing` fills it with the bytes a reader already has.
_LEXED: list = [None]


@contextmanager
def lexing(text: str, data: np.ndarray | None) -> Iterator[None]:
    """While the block parses ``text``, the run scanners read ``data`` (its latin-1 bytes, uint8; ``None``:
    they encode the text)."""
    _LEXED[0] = None if data is None else (text, data)
    try:
        yield
    finally:
        _LEXED[0] = None


def _runs_lexer(scan: RunScanner, first: str) -> type[ContextualLexer]:
    """lark's contextual lexer, with ``MOVES`` matched by ``scan`` where the parser accepts it and the text
    there starts with one of the characters ``first``.

    The scanner reads the same language as the terminal's regular expression,
    and ``MOVES`` has the highest priority (lark tries it first): the tokens
    are the same, the regular expression is still tried where the scanner
    finds no run.
    """
    last = _LEXED  # (the text being lexed, its bytes): one slot, replaced whole

    class RunsBasicLexer(BasicLexer):
        def __init__(self, conf, *args) -> None:
            super().__init__(conf, *args)
            self.runs = any(t.name == "MOVES" for t in conf.terminals)

        def match(self, text, pos):
            if self.runs:
                source = getattr(text, "text", text)  # (lark >= 1.2 hands the lexer a TextSlice)
                if isinstance(source, str) and pos < len(source) and source[pos] in first:
                    entry = last[0]
                    if entry is None or entry[0] is not source:
                        entry = (source, np.frombuffer(source.encode("latin-1", errors="replace"), dtype=np.uint8))
                        last[0] = entry  # (one byte a character: offsets in the bytes are the text's)
                    data = entry[1]
                    end = scan(data[:getattr(text, "end", len(source))], pos)
                    if end > pos:
                        _ = self.scanner  # (lark builds its tables on the first match; next_token reads them)
                        return source[pos:end], "MOVES"
            return super().match(text, pos)

    class RunsLexer(ContextualLexer):
        BasicLexer = RunsBasicLexer

        def lex(self, lexer_state, parser_state):
            try:
                yield from super().lex(lexer_state, parser_state)
            finally:  # (the text and its bytes are not kept past the parse)
                last[0] = None

    return RunsLexer


def runs_parser(grammar_file: str, runs_rule: str, runs: bool, scan: RunScanner | None = None, first: str = "",
                **options) -> Lark:
    """The parser of the package's program grammar ``grammar_file``, with or without its runs of motions.

    ``runs_rule`` is the grammar's statement alternative whose first line reads a run of plain motions as
    one ``MOVES`` token (``"?statement: MOVES -> moves\\n          | data_decl"``). With ``runs=False``
    that line is left out: every statement goes through the grammar's general rules, the reference the
    readers' fast paths are tested against. ``scan`` matches ``MOVES`` where the text starts with one of the
    characters ``first`` (:func:`_runs_lexer`).
    """
    grammar = resources.files("thermocomp.programs").joinpath(grammar_file).read_text(encoding="utf-8")
    if not runs:
        assert runs_rule in grammar
        grammar = grammar.replace(runs_rule, "?statement: " + runs_rule.split("|", 1)[1].strip())
    if runs and scan is not None:
        options["_plugins"] = {"ContextualLexer": _runs_lexer(scan, first)}
    return lalr_parser(grammar, f"{Path(grammar_file).stem}_runs{int(runs)}", **options)


def error_offset(exc: UnexpectedInput, end: int) -> int:
    """Where in the text lark met the syntax error ``exc`` (``end`` for an unexpected end of file)."""
    token = getattr(exc, "token", None)
    if token is not None and getattr(token, "type", "") != "$END" and getattr(token, "start_pos", None) is not None:
        return int(token.start_pos)
    position = getattr(exc, "pos_in_stream", None)
    return end if position is None or position < 0 else int(position)
