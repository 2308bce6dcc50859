"""Hostile robot programs whose cost grew faster than their size, found by the eighth adversarial run (issue 35, "Nothing
hangs; reading is cheap"): families of programs generated at two sizes, the cost of the larger compared with the
smaller's in the same test. Written from the manuals' syntax (ABB "Technical reference manual - RAPID kernel": IF,
FOR, PROC, GOTO; UR "The URScript Programming Language": def, if, movel).
"""

from __future__ import annotations

import tracemalloc

import pytest

from thermocomp.errors import InputError
from thermocomp.programs import rapid_scope, read
from thermocomp.programs.rapid import parse_rapid_text

MOVE = "  MoveL [[500,0,500],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]],v100,z1,tool0;\n"


def _nested(depth: int, block: str = "IF x = 1 THEN", end: str = "ENDIF") -> str:
    return f"MODULE M\nVAR num x;\nPROC main()\n{MOVE}" + f"  {block}\n" * depth + MOVE + f"  {end}\n" * depth + \
        "ENDPROC\nENDMODULE\n"


def test_blocks_nested_deeply_are_checked_in_memory_linear_in_the_depth(tmp_path):
    """The scope check (GOTOs and labels, ``rapid_scope``) held each statement with a tuple of every block around
    it: depth squared in memory, so a module of 32,000 nested IFs (0.8 MB) took 4.4 GB and 30 s of CPU before the
    walker refused it as nested too deeply; 64,000 would not have fit. Each statement now holds its innermost block
    (a chain), and a GOTO is checked against its label's block by the block's span of statements. The peak memory
    of the check at 8 times the depth stays within 16 times (it was 64 times), and the module is refused as nested
    too deeply, naming the line where the reader gave up."""
    peaks = {}
    for depth in (1000, 8000):
        tree = parse_rapid_text(_nested(depth), "p.mod")
        tracemalloc.start()
        rapid_scope.check_module(tree, "p.mod")
        peaks[depth] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert peaks[8000] < 16 * peaks[1000], peaks
    path = tmp_path / "p.mod"
    path.write_text(_nested(4000, "FOR i FROM 1 TO 2 DO", "ENDFOR"))
    with pytest.raises(InputError, match="nested too deeply to follow") as info:
        read.read_program(path)
    assert info.value.row is not None and 4 < info.value.row < 1000


def _labels(n: int) -> str:
    """A PROC of ``n`` labels, each followed by an assignment, and an ``IF ... GOTO`` back to the first."""
    steps = "".join(f"  l{k}:\n  x := x + 1;\n" for k in range(n))
    return f"MODULE M\nVAR num x;\nPROC main()\n{MOVE}  x := 0;\n{steps}  IF x < {n} GOTO l0;\nENDPROC\nENDMODULE\n"


def test_many_labels_are_followed_in_time_linear_in_their_number(tmp_path):
    """Each label looked for a counted loop's ``IF ... GOTO`` by scanning its body and its routine again: labels times
    statements (8,000 labels, 180 KB: 18 s of CPU). The GOTOs are indexed once a body: the Python calls of a read of
    8 times the labels are 8 times those of the smaller read (they were 25 times; both after a first read)."""
    from test_bad_input_programs_hostile5 import _calls

    calls = {}
    for n in (10, 250, 2000):  # (the first: what a process's first read costs once)
        path = tmp_path / f"l{n}.mod"
        path.write_text(_labels(n))
        calls[n] = _calls(lambda p=path: read.read_program(p))
    assert calls[2000] < 12 * calls[250], calls


@pytest.mark.parametrize(("declaration", "column"), [
    ("VAR num a{-5};", 11),  # (unused: was read as if it were not there)
    ("VAR num a{0};", 11),
    ("VAR num a{2, 0};", 14),
    ("CONST robtarget a{-1} := [[[500,0,500],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]]];", 19),
    ("PERS num a{-3};", 12),  # (a PERS without a value: its size was not read)
])
def test_an_array_of_no_element_is_refused_at_its_size(tmp_path, declaration, column):
    """An array declared with a size below 1 was read as no datum when unused, and an aggregate given it was refused
    as "expected -1 elements". The controller loads no such module: the size is refused, with line and column."""
    path = tmp_path / "p.mod"
    path.write_text(f"MODULE M\n{declaration}\nPROC main()\n{MOVE}ENDPROC\nENDMODULE\n")
    with pytest.raises(InputError, match="a's size: expected at least 1 element a dimension") as info:
        read.read_program(path)
    assert info.value.row == 2 and str(info.value).endswith(f"(column {column})")
