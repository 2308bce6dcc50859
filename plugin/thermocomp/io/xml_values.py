"""XML robot files (URDF): elements with their source lines, and numbers read strictly.

:mod:`xml.etree.ElementTree` keeps no line numbers; :func:`parse_xml` reads
the document once more with expat (the parser ElementTree itself uses) and
pairs its start tags with the tree's elements in document order, so every
error can name the line of the element it is about.

Numbers in attributes are read as the CSV readers read cells
(:func:`thermocomp.io.csvtext.number_text`): ASCII, no ``_`` (``float``
would read ``6_41`` as 641 and other scripts' digits), finite and of magnitude
at most :data:`thermocomp.io.csvtext.MAX_CELL` (1e12, a CSV cell's bound: a
joint origin of 1e300 m passed as finite and overflowed later, in a program's
timing). Readers bound their own quantities more tightly where a physical
bound exists (:data:`thermocomp.robot.chain.MAX_LENGTH`).
"""

from __future__ import annotations

import math
import weakref
import xml.etree.ElementTree as ET
from xml.parsers import expat

import numpy as np

from thermocomp._typing import FloatArray
from thermocomp.errors import InputError
from thermocomp.io.csvtext import MAX_CELL, number_text

_LINES: weakref.WeakKeyDictionary[ET.Element, int] = weakref.WeakKeyDictionary()


def parse_xml(data: bytes | str, src: str, *, comments: bool = False) -> ET.Element:
    """The root element of ``data``; :func:`line_of` gives each element's line.

    Raises
    ------
    InputError
        Not well-formed XML, at the line expat stopped.
    """
    parser = ET.XMLParser(target=ET.TreeBuilder(insert_comments=comments)) if comments else None
    try:
        root = ET.fromstring(data, parser=parser)
    except ET.ParseError as exc:
        line, _ = exc.position
        raise InputError(f"expected well-formed XML, got: {exc}", path=src, row=line) from exc
    lines: list[int] = []
    scan = expat.ParserCreate()
    scan.StartElementHandler = lambda _tag, _attrs: lines.append(scan.CurrentLineNumber)
    scan.Parse(data, True)
    elements = [e for e in root.iter() if isinstance(e.tag, str)]  # comments are not start tags
    for element, line in zip(elements, lines):
        _LINES[element] = line
    return root


def line_of(element: ET.Element | None) -> int | None:
    """The source line of an element read by :func:`parse_xml` (None otherwise)."""
    return None if element is None else _LINES.get(element)


def _number(text: str) -> float:
    if not number_text(text.strip()):
        raise ValueError(text)
    value = float(text)
    if not (math.isfinite(value) and abs(value) <= MAX_CELL):
        raise ValueError(text)
    return value


def attr_numbers(element: ET.Element | None, key: str, default: tuple[float, ...], what: str, src: str) -> FloatArray:
    """The ``len(default)`` numbers of attribute ``key`` (``xyz="0 0 0.1"``); ``default`` when it is absent.

    Raises
    ------
    InputError
        Another count, or a word that is not a plain finite number; at the
        element's line, naming the element and attribute.
    """
    text = None if element is None else element.get(key)
    if text is None:
        return np.array(default, dtype=float)
    try:
        values = [_number(v) for v in text.split()]
    except ValueError:
        values = []
    if len(values) != len(default):
        hint = " (a xacro expression: expand the file with xacro first)" if "${" in text else ""
        raise InputError(f"{what} {key}: expected {len(default)} plain finite numbers of magnitude at most "
                         f"{MAX_CELL:g}, got {text!r}{hint}", path=src, row=line_of(element))
    return np.array(values)


def attr_number(element: ET.Element, key: str, what: str, src: str, default: float | None = None) -> float | None:
    """The number of attribute ``key``, ``default`` when absent; a located :class:`InputError` if not a plain finite number."""
    text = element.get(key)
    if text is None:
        return default
    try:
        return _number(text)
    except ValueError:
        raise InputError(f"{what}: expected a plain finite number of magnitude at most {MAX_CELL:g} for {key!r}, "
                         f"got {text!r}", path=src, row=line_of(element)) from None
