"""The LALR parsers of the program readers, their tables cached on disk between processes, the positions of
the nodes a reader builds as lark builds them (a run's statement read by the general rules), and a run's
numbers parsed in bulk.

Building lark's LALR tables from a grammar takes about half a second, on
every run: more than a 10,000-line program takes to parse. lark keeps the
built parser in a cache file named here (in the package's ``__pycache__``,
as Python does), checks it against a hash of the grammar and the options
before using it, and builds the tables afresh (and tries to save them) when
the file is missing, stale, unreadable or not writable.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from lark import Lark, Token
from lark.tree import Meta

from thermocomp._typing import ArrayLike, FloatArray
from thermocomp.programs.model import TextLines


def lalr_parser(grammar_file: str, substitutions: dict[str, str] | None = None, **options) -> Lark:
    """``Lark(grammar, parser="lalr", **options)`` of the package's grammar ``grammar_file``, its tables cached
    as ``__pycache__/<name>.lark``. Each ``{KEY}`` of the grammar's text is replaced by ``substitutions[KEY]``
    first (a terminal whose expression the reader writes once, in Python)."""
    grammar = resources.files("thermocomp.programs").joinpath(grammar_file).read_text(encoding="utf-8")
    for key, value in (substitutions or {}).items():
        grammar = grammar.replace("{" + key + "}", value)
    cache = Path(__file__).resolve().parent / "__pycache__"
    try:
        cache.mkdir(exist_ok=True)
    except OSError:  # a read-only installation: built every time
        return Lark(grammar, parser="lalr", **options)
    return Lark(grammar, parser="lalr", cache=str(cache / f"{Path(grammar_file).stem}.lark"), **options)


def node_meta(lines: TextLines, start: int, end: int) -> Meta:
    """The positions lark's ``propagate_positions`` gives a node of the text from offset ``start`` to ``end``."""
    (line, end_line), (column, end_column) = lines.lists([start, end])
    meta = Meta()
    meta.empty, meta.start_pos, meta.end_pos = False, start, end
    meta.line, meta.column, meta.end_line, meta.end_column = line, column, end_line, end_column
    return meta


def token_at(lines: TextLines, terminal: str, value: str, start: int) -> Token:
    """The token lark's lexer gives for ``value`` of type ``terminal`` at offset ``start`` of the text."""
    meta = node_meta(lines, start, start + len(value))
    return Token(terminal, value, start, meta.line, meta.column, meta.end_line, meta.end_column, meta.end_pos)


def parse_numbers(text: bytes) -> FloatArray:
    """The numbers of ``text``, each followed by a comma (``b"1,.5,9E+09,"``): a run's inline numbers, which the
    grammar matched (``_NUM``), parsed together by pyarrow's cast (in C++; exactly Python's ``float``: the
    nearest double, as both round)."""
    numbers = pc.split_pattern(pa.array([text], pa.large_binary()).cast(pa.large_string()), ",").flatten()
    return pc.cast(numbers[:-1], pa.float64()).to_numpy()


def byte_spans(data: bytes, starts: ArrayLike, ends: ArrayLike) -> pa.LargeBinaryArray:
    """The texts ``data[starts[k]:ends[k]]`` as one arrow array, no Python object a text: the spans are in order
    and do not overlap (``starts[k] <= ends[k] <= starts[k + 1]``), so they and the gaps between them are the
    elements of one array over ``data``'s buffer, of which the spans are taken."""
    n = len(starts)
    offsets = np.empty(2 * n, dtype=np.int64)
    offsets[0::2], offsets[1::2] = starts, ends
    if not n:
        return pa.array([], pa.large_binary())
    over = pa.Array.from_buffers(pa.large_binary(), 2 * n - 1, [None, pa.py_buffer(offsets), pa.py_buffer(data)])
    return over.take(pa.array(np.arange(0, 2 * n, 2)))


def joined_bytes(texts: pa.LargeBinaryArray) -> bytes:
    """The elements of ``texts`` (an array of :func:`byte_spans` or a ``take`` of one: values from offset 0)
    written one after the other."""
    offsets = np.frombuffer(texts.buffers()[1], dtype=np.int64)[:len(texts) + 1]
    return texts.buffers()[2][int(offsets[0]):int(offsets[-1])].to_pybytes() if len(texts) else b""


def first_seen(*columns: pa.Array) -> np.ndarray:
    """For each row, the index of its tuple of values among the distinct tuples of ``columns`` (arrow arrays of
    one length), numbered in order of first appearance."""
    key = np.zeros(len(columns[0]), dtype=np.int64)
    for column in columns:
        encoded = column.dictionary_encode()
        key = key * len(encoded.dictionary) + encoded.indices.to_numpy(zero_copy_only=False)
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    rank = np.empty(len(first), dtype=np.int64)
    rank[np.argsort(first)] = np.arange(len(first))
    return rank[inverse.reshape(-1)]


def delimiters(data: bytes, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The offsets in ``data`` of the bytes whose code in ``codes`` (``(256,)`` int8, a code a byte value) is not 0,
    and their codes: a run's delimiters, found by one ``bytes.translate`` and a nonzero over booleans (half the time
    of numpy's lookup and nonzero over the codes of a 16 MB run)."""
    code_of = np.frombuffer(data.translate(codes.astype(np.int8).tobytes()), dtype=np.int8)
    at = np.flatnonzero(code_of != 0)
    return at, code_of[at]
