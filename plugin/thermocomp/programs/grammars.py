"""The LALR parsers of the program readers (their tables cached on disk), syntax errors as messages, and the byte
helpers of the readers' bulk lanes.
"""

from __future__ import annotations

import functools
import hashlib
import re
import unicodedata
from collections.abc import Sequence
from importlib import resources
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedInput
from lark.tree import Meta

from thermocomp._typing import ArrayLike, FloatArray
from thermocomp.errors import InputError
from thermocomp.programs.model import Span, TextLines
from thermocomp.programs.rapid_scope import USED_RESERVED


def span_of(item: Tree | Token) -> Span:
    """The :class:`.model.Span` of a tree (lark ``propagate_positions``) or a token."""
    at = item if isinstance(item, Token) else item.meta
    return Span(at.start_pos, at.end_pos, at.line, at.column)


def line_col(item: Tree | Token) -> tuple[int, int]:
    """The 1-based line and column where a tree or a token starts."""
    at = item if isinstance(item, Token) else item.meta
    return at.line, at.column


#: The expression of a grammar's ``MOVES`` terminal (a run of plain motion statements) that never matches.
NO_RUNS = "(?!)MOVES"


#: Most tokens lark reads in one parse: past it the file is refused (:class:`TooManyTokens`). A run of plain
#: motions is one token; the corpus's most in one file is 105,058 (docs/programs.md, "What hostile input costs").
MAX_TOKENS = 1_000_000


class TooManyTokens(Exception):
    """A parse passed :data:`MAX_TOKENS`, at ``line`` (1-based) of the text parsed."""

    def __init__(self, line: int) -> None:
        super().__init__(line)
        self.line = line

    def error(self, path: str) -> InputError:
        """The refusal of the file ``path``, at the line of the parse."""
        return InputError(f"more than {MAX_TOKENS:,} tokens to parse (a run of plain motions read in bulk is one; "
                          "the readers' bound, some 10 times the corpus's most: docs/programs.md); it stopped here",
                          path=path, row=self.line)


class _Bounded:
    """The postlexer of every reader's parser: raises :class:`TooManyTokens` at the token past :data:`MAX_TOKENS`
    (before ``inner``, the grammar's own postlexer, if any)."""

    def __init__(self, inner=None) -> None:
        self.inner = inner
        self.always_accept = getattr(inner, "always_accept", ())

    def process(self, stream):
        def counted():
            for n, token in enumerate(stream):
                if n == MAX_TOKENS:
                    raise TooManyTokens(token.line)
                yield token
        return counted() if self.inner is None else self.inner.process(counted())


def lalr_parser(grammar_file: str, substitutions: dict[str, str], **options) -> Lark:
    """``Lark(grammar, parser="lalr", **options)`` of the package's grammar ``grammar_file`` with each ``{KEY}``
    replaced by ``substitutions[KEY]``, its tables cached as ``__pycache__/<name>-<hash>.lark``; every parse bounded
    (:data:`MAX_TOKENS`)."""
    _BUILT.setdefault(grammar_file, (dict(substitutions), options))
    options = {**options, "postlex": _Bounded(options.get("postlex"))}
    grammar = resources.files("thermocomp.programs").joinpath(grammar_file).read_text(encoding="utf-8")
    for key, value in substitutions.items():
        grammar = grammar.replace("{" + key + "}", value)
    # The tables are a pickle, loaded back: they live beside the package (as trusted as its code), never in the shared
    # temporary folder where lark's ``cache=True`` would put them under a name another local user could plant first.
    cache = Path(__file__).resolve().parent / "__pycache__"
    try:
        cache.mkdir(exist_ok=True)
    except OSError:  # a read-only installation: built every time
        return Lark(grammar, parser="lalr", **options)
    digest = hashlib.sha256(f"{grammar}{options.get('start')}".encode()).hexdigest()[:8]  # (one file a variant)
    return Lark(grammar, parser="lalr", cache=str(cache / f"{Path(grammar_file).stem}-{digest}.lark"), **options)


#: The substitutions and options each grammar's reader parser was first built with (:func:`without_runs`).
_BUILT: dict[str, tuple[dict[str, str], dict]] = {}


@functools.cache
def without_runs(grammar_file: str, start: str | None = None) -> Lark:
    """The reader's parser of ``grammar_file`` (built first by :func:`lalr_parser`) with its runs of plain motions
    turned off (:data:`NO_RUNS`), from ``start`` if given."""
    substitutions, options = _BUILT[grammar_file]
    return lalr_parser(grammar_file, {**substitutions, "MOVES_PATTERN": NO_RUNS},
                       **(options if start is None else {**options, "start": start}))


def parse_at(parser: Lark, text: str, start: int, end: int, lines: TextLines, tail: str = "") -> Tree:
    """``text[start:end]`` (then ``tail``) parsed by ``parser``, every token and node placed (offsets, lines,
    columns) as a parse of the whole text places them."""
    line_start = text.rfind("\n", 0, start) + 1
    first_line = int(lines.arrays([start])[0][0])
    try:
        tree = parser.parse(" " * (start - line_start) + text[start:end] + tail)  # (the columns of the first line)
    except TooManyTokens as exc:  # (placed in the file)
        raise TooManyTokens(exc.line + first_line - 1) from None
    shifts = dict.fromkeys(_OFFSETS, line_start) | dict.fromkeys(_LINES, first_line - 1)
    for node in tree.iter_subtrees():
        for item in (node.meta, *(c for c in node.children if not isinstance(c, Tree))):
            for key, shift in shifts.items():
                if getattr(item, key, None) is not None:
                    setattr(item, key, getattr(item, key) + shift)
    return tree


def nodes_at(rule: str, terminal: str, text: str, starts: ArrayLike, ends: ArrayLike, lines: TextLines
             ) -> list[Tree]:
    """``Tree(rule, [Token(terminal, text[a:b])])`` for each span ``starts[k]:ends[k]`` of ``text``, placed as a
    parse of the whole text places them."""
    (first, last), (columns, end_columns) = np.stack(lines.arrays(np.stack([starts, ends]))).tolist()
    return [placed_node(rule, terminal, text[a:b], a, b, line, column, end_line, end_column)
            for a, b, line, column, end_line, end_column in zip(np.asarray(starts).tolist(), np.asarray(ends).tolist(),
                                                                first, columns, last, end_columns)]


def placed_node(rule: str, terminal: str, value: str, a: int, b: int, line: int, column: int, end_line: int,
                end_column: int) -> Tree:
    """``Tree(rule, [Token(terminal, value)])`` of the text ``value`` at offsets ``a:b``, lines and columns."""
    meta = Meta()
    meta.empty, meta.start_pos, meta.end_pos = False, a, b
    meta.line, meta.column, meta.end_line, meta.end_column = line, column, end_line, end_column
    return Tree(rule, [Token(terminal, value, a, line, column, end_line, end_column, b)], meta)


#: The positions lark gives tokens and nodes (``propagate_positions``): offsets, and lines.
_OFFSETS = ("start_pos", "end_pos", "container_start_pos", "container_end_pos")
_LINES = ("line", "end_line", "container_line", "container_end_line")


def parse_numbers(text: bytes) -> FloatArray:
    """The numbers of ``text``, each followed by a comma (``b"1,.5,9E+09,"``), parsed together by pyarrow's cast
    (exactly Python's ``float``)."""
    numbers = pc.split_pattern(pa.array([text], pa.large_binary()).cast(pa.large_string()), ",").flatten()
    return pc.cast(numbers[:-1], pa.float64()).to_numpy()


def byte_spans(data: bytes, starts: ArrayLike, ends: ArrayLike) -> pa.LargeBinaryArray:
    """The texts ``data[starts[k]:ends[k]]`` as one arrow array over ``data``'s buffer (the spans in order, not
    overlapping: ``starts[k] <= ends[k] <= starts[k + 1]``)."""
    n = len(starts)
    offsets = np.empty(2 * n, dtype=np.int64)
    offsets[0::2], offsets[1::2] = starts, ends
    if not n:
        return pa.array([], pa.large_binary())
    over = pa.Array.from_buffers(pa.large_binary(), 2 * n - 1, [None, pa.py_buffer(offsets), pa.py_buffer(data)])
    return over.take(pa.array(np.arange(0, 2 * n, 2)))


def joined_bytes(texts: pa.LargeBinaryArray) -> bytes:
    """The elements of ``texts`` (of :func:`byte_spans`, or a ``take`` of one) one after the other."""
    offsets = np.frombuffer(texts.buffers()[1], dtype=np.int64)[:len(texts) + 1]
    return texts.buffers()[2][int(offsets[0]):int(offsets[-1])].to_pybytes() if len(texts) else b""


#: The bytes of a name (letters, digits, ``_``), as a table of the 256 byte values (for :func:`skipped`).
NAME_BYTES = np.zeros(256, dtype=bool)
NAME_BYTES[[ord(c) for c in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"]] = True
#: The bytes that delimit a run's statements and their parts (both languages'), by code (1, 2, ...; 0 the others).
DELIMITERS = "[](),;\\\n!#"
CODES = np.zeros(256, dtype=np.int8)
CODES[[ord(c) for c in DELIMITERS]] = np.arange(1, len(DELIMITERS) + 1)
CODES[ord("$")] = CODES[ord("#")]  # (URScript's step line between a run's motions, $ 3 "MoveJ": read as a comment)
_OPEN, _CLOSE, _POPEN, _PCLOSE, _COMMA, _END, _BACKSLASH, _NEWLINE = (CODES[ord(c)] for c in "[](),;\\\n")
#: Whitespace within a statement, and between statements (besides comments).
SPACE, GAP = np.zeros(256, dtype=bool), np.zeros(256, dtype=bool)
SPACE[[ord(c) for c in " \t\r\n"]] = GAP[[ord(c) for c in " \t\r\n\f"]] = True
_DEPTH = np.zeros(len(DELIMITERS) + 1, dtype=np.int8)  # (by code: how a bracket changes the depth)
_DEPTH[[_OPEN, _POPEN]], _DEPTH[[_CLOSE, _PCLOSE]] = 1, -1


class RunStatements:
    """The statements of a run of plain motions (a grammar's ``MOVES`` token), split by numpy over its bytes: the
    splitter of both languages' bulk lanes. A statement is its instruction, its arguments (separated by the commas
    at bracket depth ``level``; in RAPID also starting at each ``\\``) and its end (RAPID ``;``, URScript ``)``);
    ``comment`` starts a comment to the line's end, between statements only.

    Attributes
    ----------
    text, data, bytes, base
        The token's text, its bytes, those as ``uint8`` ``(n,)``, and its offset in the file.
    delimiters, codes
        The offsets of the token's delimiters outside comments, and their :data:`CODES`.
    start, instruction_end, end
        Per statement ``(r,)``: where it starts, where its instruction ends, and where it ends (past ``;``/``)``).
    arg_start, arg_end, arg_of
        Per argument ``(a,)``, in order: its span (whitespace aside; an optional argument's from its ``\\``) and
        its statement.
    template, rows
        The :class:`~thermocomp.programs.model.MotionRun` of the file's statements as their text gives them (a
        subclass's :meth:`place` builds it), and a run's ``(statements, points)`` slices of it (:meth:`runs`).
    """

    #: The attributes of a run's statements that :meth:`runs` gives each run, by what each is per statement: a place
    #: in the text (``"offset"``: less the run's place), places (``"offsets"``: the same where not -1), the number of
    #: a statement (``"index"``: less the run's first) or anything else (``""``). ``POINT``: those per point
    #: (:attr:`point_statement` is each point's statement).
    STATEMENT: dict[str, str] = {"start": "offset", "instruction_end": "offset", "end": "offset"}
    POINT: dict[str, str] = {}
    #: Facts of each run (:meth:`runs`): how many of its points have a boolean point column, by the fact's name.
    ANY: dict[str, str] = {}

    def __init__(self, token: Token, comment: str, level: int) -> None:
        self.text, self.data = token, token.encode("latin-1")  # (a byte a character; str(token) would copy it)
        self.base = token.start_pos
        b = self.bytes = np.frombuffer(self.data, dtype=np.uint8)
        # the delimiters (one bytes.translate: half the time of numpy's lookup), less those in comments
        code_of = np.frombuffer(self.data.translate(CODES.tobytes()), dtype=np.int8)
        at = np.flatnonzero(code_of != 0)
        code = code_of[at]
        if np.any(code == CODES[ord(comment)]):
            last_comment = np.maximum.accumulate(np.where(code == CODES[ord(comment)], at, -1))
            outside = last_comment <= np.maximum.accumulate(np.where(code == _NEWLINE, at, -1))
            at, code = at[outside], code[outside]
        self.delimiters, self.codes = at, code
        depth = np.cumsum(_DEPTH[code], dtype=np.int8)  # (after each delimiter)
        is_end = (code == (_END if level == 0 else _PCLOSE)) & (depth == 0)
        ends = at[is_end]
        # each statement starts past the gap after the one before: whitespace, and comments to their line's end
        start = np.concatenate([np.zeros(1, dtype=np.int64), ends[:-1] + 1])
        newlines, active = at[code == _NEWLINE], np.arange(len(ends))
        while active.size:
            byte = b[start[active]]
            bang = active[CODES[byte] == CODES[ord(comment)]]
            start[bang] = newlines[np.searchsorted(newlines, start[bang])]
            start[active[GAP[byte]]] += 1
            active = active[GAP[byte] | (CODES[byte] == CODES[ord(comment)])]
        self.start, self.end = start, ends + 1
        self.instruction_end = skipped(b, NAME_BYTES, start)
        # the arguments: from the instruction's end (or the call's parenthesis) or a separator, to the next
        bound = is_end | ((code == _COMMA) & (depth == level)) | (code == _BACKSLASH)
        cuts, after_end = at[bound], np.concatenate([[True], is_end[bound][:-1]])
        statement = np.cumsum(after_end) - 1
        first = np.concatenate([[0], cuts[:-1] + 1])
        first[after_end] = self.instruction_end + level
        first[b[first - 1] == ord("\\")] -= 1  # (an optional argument: from its backslash)
        arg_start, arg_end = skipped(b, SPACE, first), skipped(b, SPACE, cuts, -1)
        kept = arg_start < arg_end  # (RAPID's ", \\WObj": the comma's empty argument)
        self.arg_start, self.arg_end, self.arg_of = arg_start[kept], arg_end[kept], statement[kept]

    def __len__(self) -> int:
        return len(self.start)

    @classmethod
    def runs(cls, tokens: Sequence[Token], lines: TextLines, file: int = 0) -> list:
        """Each of ``tokens``' statements (runs of file ``file``, whose lines are ``lines``) as ``cls(token)`` gives them,
        split together (their texts joined by line breaks: a gap between statements) and placed in the file
        (:meth:`place`), each run's its rows of the whole (:attr:`STATEMENT`, :attr:`POINT`), its shapes numbered in
        its own order of appearance (:attr:`shape_of`, :attr:`shape_first`; :attr:`shape_whole` their numbers in the
        whole, for a subclass's :meth:`narrowed`; :attr:`point_shape` each point's statement's), its :attr:`ANY` facts.
        Each column is moved to its runs' places once, for all of them: a run takes slices (views: read only), so that a
        run of one statement costs little more than the statement."""
        if not tokens:
            return []
        whole = cls(Token("MOVES", "\n".join(tokens), 0))
        places = np.cumsum([0] + [len(t) + 1 for t in tokens])[:-1]
        first = np.searchsorted(whole.start, places)
        bounds = np.append(first, len(whole))
        sizes = np.diff(bounds)
        whole.place(lines, np.repeat(np.array([t.start_pos for t in tokens], dtype=np.int64) - places, sizes), file)
        # each column less its run's place (or first statement), per statement and per point
        run_of = np.repeat(np.arange(len(tokens)), sizes)
        point_bounds = np.searchsorted(whole.point_statement, bounds) if cls.POINT else bounds
        point_run = run_of[whole.point_statement] if cls.POINT else run_of
        moved = {}
        for names, run in ((cls.STATEMENT, run_of), (cls.POINT, point_run)):
            for name, how in names.items():
                value = getattr(whole, name)
                place = places[run].reshape(-1, *(1,) * (value.ndim - 1))
                moved[name] = (value - place if how == "offset" else value - bounds[run] if how == "index"
                               else np.where(value >= 0, value - place, -1) if how == "offsets" else value)
        # each run's shapes numbered in its own order of appearance (as _ranked numbers one run's), all runs together
        _, firsts, group = np.unique(run_of * (int(whole.shape_of.max(initial=0)) + 1) + whole.shape_of,
                                     return_index=True, return_inverse=True)
        order = np.argsort(firsts)
        starts = firsts[order]  # (each run's shapes' first statements, in order: runs in order, then appearance)
        shape_bounds = np.searchsorted(starts, bounds)
        rank = np.empty(len(firsts), dtype=np.int64)
        rank[order] = np.arange(len(firsts)) - shape_bounds[run_of[starts]]
        shape_of, shape_first, shape_whole = rank[group.reshape(-1)], starts - bounds[run_of[starts]], whole.shape_of[starts]
        point_shape = shape_of[whole.point_statement] if cls.POINT else shape_of
        for array in (*(moved[name] for names in (cls.STATEMENT, cls.POINT) for name, how in names.items() if how),
                      shape_of, shape_first, shape_whole, point_shape):
            array.flags.writeable = False  # (made here, shared by the runs: views of it)
        # each run's :attr:`ANY` facts: how many of its points have the point column
        counts = {name: np.diff(np.concatenate([[0], np.cumsum(getattr(whole, column))])[point_bounds]).tolist()
                  for name, column in cls.ANY.items()}
        out = []
        for token, place, a, b, p, q, sa, sb in zip(tokens, places.tolist(), bounds[:-1].tolist(), bounds[1:].tolist(),
                                                     point_bounds[:-1].tolist(), point_bounds[1:].tolist(),
                                                     shape_bounds[:-1].tolist(), shape_bounds[1:].tolist()):
            view = cls.__new__(cls)
            view.text, view.base, view.template = token, token.start_pos, whole.template
            view.rows, view._columns = (slice(a, b), slice(p, q)), (moved, a, b, p, q)  # (a column when first read)
            view.shape_of, view.shape_first, view.shape_whole = shape_of[a:b], shape_first[sa:sb], shape_whole[sa:sb]
            view.point_shape = point_shape[p:q]
            view.narrowed(whole, place)
            out.append(view)
        for name, count in counts.items():  # (Python ints: a run's test of them costs no numpy call)
            for view, n in zip(out, count):
                setattr(view, name, n)
        return out

    def __getattr__(self, name: str) -> np.ndarray:
        """A column of a run of :meth:`runs` (:attr:`STATEMENT`, :attr:`POINT`), its rows taken of the whole's the first
        time it is read (a run of one statement reads few of them)."""
        columns = self.__dict__.get("_columns")
        if columns is None or name not in columns[0]:
            raise AttributeError(name)
        moved, a, b, p, q = columns
        value = self.__dict__[name] = moved[name][a:b] if name in self.STATEMENT else moved[name][p:q]
        return value

    def narrowed(self, whole: RunStatements, place: int) -> None:
        """What a subclass's run takes of ``whole`` (:meth:`runs`) besides its rows; ``place``: the run's offset in
        ``whole``'s text."""

    def place(self, lines: TextLines, shift: np.ndarray, file: int) -> None:
        """Each statement's :class:`~thermocomp.programs.model.Span` row in the file ``statement_rows`` ``(r, 4)``,
        and its instruction's ``name_rows``; ``shift`` ``(r,)``: each statement's offset in the file less its offset
        in the text split (a subclass places its parts too, and gives the :attr:`template` the ``file``'s index)."""
        self.statement_rows = lines.spans(shift + self.start, shift + self.end)
        self.name_rows = self.statement_rows.copy()
        self.name_rows[:, 1] = shift + self.instruction_end

    def parse(self, parser: Lark, text: str, lines: TextLines, first: int, end: int, tail: str = "") -> Tree:
        """Statements ``first`` to ``end`` parsed by ``parser`` (:func:`without_runs`) where they stand in ``text``,
        once: a run read again (a routine called, a loop's pass) takes the same tree, as a routine's body is."""
        parsed = self.__dict__.setdefault("_parsed", {})  # (a run of :meth:`runs` is made without __init__)
        key = (id(parser), id(text), first, end, tail)
        if key not in parsed:  # (parser and text kept: their ids stay theirs)
            parsed[key] = (parser, text, parse_at(parser, text, self.base + int(self.start[first]),
                                                  self.base + int(self.end[end - 1]), lines, tail))
        return parsed[key][2]

    def shapes(self, key_start: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each statement's shape (its instruction, and its text from ``key_start`` ``(r,)`` on), numbered in order of
        appearance ``(r,)``; each shape's first statement."""
        key = np.zeros(len(self), dtype=np.int64)
        for column in (byte_spans(self.data, self.start, self.instruction_end), byte_spans(self.data, key_start, self.end)):
            encoded = column.dictionary_encode()
            key = key * len(encoded.dictionary) + encoded.indices.to_numpy(zero_copy_only=False)
        return _ranked(key)


def _ranked(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each of ``key``'s values numbered in order of appearance ``(r,)``, and each number's first row."""
    if len(key) == 1:  # (a run of one statement: most runs of a file whose motions stand between other statements)
        return np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64)
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    rank = np.empty(len(first), dtype=np.int64)
    rank[np.argsort(first)] = np.arange(len(first))
    return rank[inverse.reshape(-1)], np.sort(first)


def skipped(b: np.ndarray, table: np.ndarray, at: np.ndarray, step: int = 1) -> np.ndarray:
    """Offsets ``at`` into the bytes ``b`` moved past the bytes ``table`` (``(256,)`` bool) holds: forward, or with
    ``step`` -1 back to just after the last byte before them that it does not hold."""
    at = at.copy()
    look = 0 if step == 1 else -1
    active = np.flatnonzero(table[b[at + look]])
    while active.size:
        at[active] += step
        active = active[table[b[at[active] + look]]]
    return at


def code_lines(text: str, comment: str) -> int:
    """The lines of ``text`` that are neither blank nor a comment (starting with ``comment``)."""
    return len(re.findall(rf"^[ \t\f\r]*+[^\s{re.escape(comment)}]", text, re.M))


#: A control character no program text holds (RAPID kernel, "Character set"): it names a binary file.
_BINARY = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f]")
#: A code generator's placeholder, in neither language: ``{{NAME}}`` and ``{% ... %}`` (mustache, Jinja), ``{}``,
#: ``{0:.3f}``, and in URScript (which has no braces; RAPID indexes arrays ``p{i}``) ``{0}``, ``{name}`` (Python's
#: str.format), ``%(name)s`` (Python's % formatting).
_PLACEHOLDER = {"RAPID": re.compile(r"\{\{[^{}\n]*\}\}|\{%[^\n]*?%\}|\{\w*:[^{}\n]*\}|\{\}|%\(\w+\)[sdfr]"),
                "URScript": re.compile(r"\{\{[^{}\n]*\}\}|\{%[^\n]*?%\}|\{\w*(?::[^{}\n]*)?\}|%\(\w+\)[sdfr]")}


#: The signs a syntax error names where the grammar takes only that one next (a ``def`` or ``if`` line without its
#: ``:``, a call without its ``)``).
_SIGNS = {"COLON": ":", "RPAR": ")", "RSQB": "]", "RBRACE": "}", "SEMICOLON": ";", "COMMA": ","}

#: Brackets a parser's stack may hold open at the end of a file, and the tokens that close them.
_BRACKETS = {"LPAR": "RPAR", "LSQB": "RSQB", "LBRACE": "RBRACE"}


def _still_open(stack: list, blocks: dict[str, bool], ends: frozenset[str]) -> str:
    """``": def p (line 1) is not closed"``: the innermost block or bracket the parser's ``stack`` holds open
    (``blocks``: the token types that open a block, True where the name after it is the block's; ``ends``: those
    that close one), or ``""``."""
    still: list[tuple[object, str]] = []
    for i, item in enumerate(stack):
        kind = getattr(item, "type", None)
        if kind in blocks:
            named = blocks[kind] and i + 1 < len(stack) and getattr(stack[i + 1], "type", "") == "NAME"
            still.append((item, f"{item} {stack[i + 1]}" if named else str(item)))
        elif kind in _BRACKETS:
            still.append((item, f"'{item}'"))
        elif still and kind is not None and (kind in ends or kind == _BRACKETS.get(getattr(still[-1][0], "type", ""))):
            still.pop()
    if not still:
        return ""
    token, written = still[-1]
    return f": {written} (line {getattr(token, 'line', '?')}) is not closed"


def parse_program(parser: Lark, text: str, path: str, language: str, blocks: dict[str, bool], ends: frozenset[str]
                  ) -> Tree:
    """Parse a whole file's ``text`` (read as ISO-8859-1; a UTF-8 BOM blanked) with a reader's ``parser``.

    A failure is refused with line and column: as binary data where the text holds a control character, else as
    ``"{language} syntax: unexpected ..."`` naming what was found as written (of a ``MOVES`` run: the instruction
    it starts with) and, at the end of the file, the block left open (:func:`_still_open`).
    """
    parseable = ("   " + text[3:]) if text.startswith("\xef\xbb\xbf") else text
    try:
        return parser.parse(parseable)
    except TooManyTokens as exc:
        raise exc.error(path) from None
    except UnexpectedInput as exc:
        binary = _BINARY.search(text)
        if binary is not None:
            line = text.count("\n", 0, binary.start()) + 1
            column = binary.start() - text.rfind("\n", 0, binary.start())
            raise InputError(f"not {language} text: byte 0x{ord(binary.group()):02x} at column {column} is binary "
                             "data (an encrypted or binary file cannot be read)", path=path, row=line) from None
        found = getattr(exc, "token", None) or getattr(exc, "char", None)
        at_end = found is None or getattr(found, "type", "") == "$END"
        if getattr(found, "type", "") == "MOVES":  # (where no statement may start: its instruction is unexpected)
            found = re.match(r"\w+", str(found))[0]  # type: ignore[index]
        what = ("end of file" if at_end else "end of line" if str(found).isspace()
                else repr(_as_written(str(found), text, getattr(exc, "pos_in_stream", None))))
        if at_end:  # (where the file ends: its last line, after its last character; lark names the last token's)
            line, column = _end_of(text)
        else:
            line = exc.line if getattr(exc, "line", -1) > 0 else text.count("\n") + 1
            column = exc.column if getattr(exc, "column", -1) > 0 else len(text) - text.rfind("\n")
        invisible = None if at_end else _invisible_at(text, line, column)
        if invisible is not None:  # (shown as written it looks like a space, or like nothing: "end of line", '»')
            what, column = invisible
        interactive = getattr(exc, "interactive_parser", None)
        stack = [] if interactive is None else interactive.parser_state.value_stack
        if at_end and interactive is not None and not stack:
            raise InputError(f"{language} syntax: the file holds no statement, only comments and white space",
                             path=path, row=line) from None
        unclosed = _still_open(stack, blocks, ends) if at_end and interactive else ""
        if [getattr(t, "type", "") for t in stack[-2:]] == ["DOLLAR", "NUMBER"]:  # (URScript's step line)
            unclosed = (f": a step line ($ {stack[-1]}) takes its label in quotes next, as PolyScope writes it "
                        f"($ {stack[-1]} \"MoveJ\")")
        before = stack[-1] if stack else None
        if getattr(before, "type", "") == "DOLLAR":  # (the manual's "Program Label": $ 2 "var_1= True")
            unclosed = ": a step line takes its number, then its label in quotes, as PolyScope writes it ($ 3 \"MoveJ\")"
        if language == "URScript" and getattr(before, "type", "") == "EQUAL" and before.line < line:  # (a line
            unclosed = f": the assignment at line {before.line} ends after '=' with no value"  # after "=" goes on)
        ended = getattr(before, "end_line", None) or getattr(getattr(before, "meta", None), "end_line", None)
        if (language == "RAPID" and "SEMICOLON" in getattr(exc, "expected", ()) and ended is not None
                and ended < line and not at_end):  # (the statement before went on to the next line's first word)
            opened = (text.split("\n", ended)[ended - 1].split() or [""])[0].upper()
            unclosed = (f"{_still_open(stack, blocks, ends)} where line {ended} opens another {opened}"
                        if opened in ("PROC", "FUNC", "TRAP", "MODULE", "RECORD")
                        else f": the statement before it does not end with ';' (line {ended})")
        if language == "RAPID" and interactive is not None and not stack and not at_end:  # (the manual: a module)
            unclosed = (": RAPID code is written in modules (MODULE name ... ENDMODULE), and the file starts outside "
                        "any: a routine or declaration copied without its module")
        reserved = [t for t in stack if getattr(t, "type", "") == "NAME" and str(t).lower() in USED_RESERVED]
        if language == "RAPID" and not unclosed and reserved:  # (IF c FOR i FROM ...: FOR read as a called routine)
            unclosed = f": {reserved[-1]} (line {reserved[-1].line}) is a reserved word, read here as a name"
        expected = set(getattr(exc, "expected", ()))  # (one sign the only one that may stand there: named)
        if not unclosed and len(expected) == 1 and next(iter(expected)) in _SIGNS:
            sign = _SIGNS[next(iter(expected))]
            unclosed = f": '{sign}' is expected here" + (" (a def, thread, if, elif, else, while or for line ends "
                                                          "with ':')" if language == "URScript" and sign == ":" else "")
        raise InputError(f"{language} syntax: unexpected {what} (column {column}){unclosed}"
                         f"{_placeholder(text, line, column, language)}", path=path, row=line) from None


#: Characters that look like a space or like nothing, which neither language takes outside strings and comments.
_INVISIBLE = "\xa0\x85\xad\ufeff\u200b\u200c\u200d\u200e\u200f\u2007\u2009\u202f\u2060\u2028\u2029\u3000"
#: Each of them as a file read as ISO-8859-1 holds it: its UTF-8 bytes, and its one byte where it has one.
_INVISIBLE_FORMS = {form: c for c in _INVISIBLE
                    for form in (c.encode("utf-8").decode("latin-1"), *((c,) if ord(c) < 256 else ()))}
_INVISIBLE_RE = re.compile("|".join(map(re.escape, sorted(_INVISIBLE_FORMS, key=len, reverse=True))))


def _invisible_at(text: str, line: int, column: int) -> tuple[str, int] | None:
    """``("no-break space (U+00A0), ...", column)`` where a syntax error at ``line``, ``column`` stands on (or just
    after) one of :data:`_INVISIBLE`; else ``None``."""
    row = _row(text, line)
    for hit in _INVISIBLE_RE.finditer(row, 0, column + 3):
        if hit.start() <= column - 1 <= hit.end():
            c = _INVISIBLE_FORMS[hit.group()]
            return (f"{unicodedata.name(c, 'next line control character').lower()} (U+{ord(c):04X}, shown as a space or as "
                    "nothing by most editors; only spaces and tabs separate words: replace it)", hit.start() + 1)
    return None


def _end_of(text: str) -> tuple[int, int]:
    """The 1-based line and column after ``text``'s last character (a final line break not counted)."""
    body = text[:-2] if text.endswith("\r\n") else text[:-1] if text.endswith("\n") else text
    return body.count("\n") + 1, len(body) - body.rfind("\n")


def _placeholder(text: str, line: int, column: int, language: str) -> str:
    """``": {0} is a placeholder ..."`` where a syntax error at ``line``, ``column`` stands on a code generator's
    placeholder; else ``""``."""
    row = _row(text, line)
    hit = next((m for m in _PLACEHOLDER[language].finditer(row) if m.start() < column <= m.end()), None)
    return ("" if hit is None else f": {hit.group()} is a code generator's placeholder, not {language}: the file is a "
            "template that a program fills in before the robot runs it; give the filled-in program")


def _row(text: str, line: int) -> str:
    """The 1-based ``line`` of ``text`` ("" past its end)."""
    return text.split("\n", line)[line - 1] if line <= text.count("\n") + 1 else ""


def _as_written(found: str, text: str, position: int | None) -> str:
    """The text a syntax error found as its author wrote it: where the bytes there (or up to 3 before, a character
    begun before it) decode as UTF-8, the character they spell, not its first byte's Latin-1 letter."""
    if position is None or not found or ord(found[0]) < 0x80:
        return found
    for back in range(min(position, 3) + 1):
        chunk = text[position - back:position - back + 4].encode("latin-1", errors="replace")
        first = chunk.decode("utf-8", errors="replace")[0]
        if first != "\ufffd" and len(first.encode("utf-8")) > back:
            return first
    return found
