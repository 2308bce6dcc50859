"""The LALR parsers of the program readers, their tables cached on disk between processes.

Building lark's LALR tables from a grammar takes about half a second, on
every run: more than a 10,000-line program takes to parse. lark keeps the
built parser in a cache file named here (in the package's ``__pycache__``,
as Python and numba do), checks it against a hash of the grammar and the
options before using it, and builds the tables afresh (and tries to save
them) when the file is missing, stale, unreadable or not writable.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from lark import Lark
from lark.exceptions import UnexpectedInput


def lalr_parser(grammar: str, name: str, **options) -> Lark:
    """``Lark(grammar, parser="lalr", **options)``, its tables cached as ``__pycache__/<name>.lark``."""
    cache = Path(__file__).resolve().parent / "__pycache__"
    try:
        cache.mkdir(exist_ok=True)
    except OSError:  # a read-only installation: built every time
        return Lark(grammar, parser="lalr", **options)
    return Lark(grammar, parser="lalr", cache=str(cache / f"{name}.lark"), **options)


def runs_parser(grammar_file: str, runs_rule: str, runs: bool, **options) -> Lark:
    """The parser of the package's program grammar ``grammar_file``, with or without its runs of motions.

    ``runs_rule`` is the grammar's statement alternative whose first line reads a run of plain motions as
    one ``MOVES`` token (``"?statement: MOVES -> moves\\n          | data_decl"``). With ``runs=False``
    that line is left out: every statement goes through the grammar's general rules, the reference the
    readers' fast paths are tested against.
    """
    grammar = resources.files("thermocomp.programs").joinpath(grammar_file).read_text(encoding="utf-8")
    if not runs:
        assert runs_rule in grammar
        grammar = grammar.replace(runs_rule, "?statement: " + runs_rule.split("|", 1)[1].strip())
    return lalr_parser(grammar, f"{Path(grammar_file).stem}_runs{int(runs)}", **options)


def error_offset(exc: UnexpectedInput, end: int) -> int:
    """Where in the text lark met the syntax error ``exc`` (``end`` for an unexpected end of file)."""
    token = getattr(exc, "token", None)
    if token is not None and getattr(token, "type", "") != "$END" and getattr(token, "start_pos", None) is not None:
        return int(token.start_pos)
    position = getattr(exc, "pos_in_stream", None)
    return end if position is None or position < 0 else int(position)
