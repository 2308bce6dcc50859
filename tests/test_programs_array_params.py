"""RAPID array parameters (RAPID kernel, "Parameter declarations": ``PROC Go(VAR robtarget a{*})``, ``num b{*,*}``): a
routine takes an array of any size, of the rank its stars give, and reads its elements and ``Dim``. Found on a
held-out-23 probe: such a call was refused as bad input ("parameter a is a robtarget, got pOff, a robtarget{}"),
the parameter's type taken without its dimensions."""

from __future__ import annotations

import pytest
from program_builders import read_main_module, xyz_mm

from thermocomp.errors import InputError

_P0 = "[[500,0,400],[0,0,1,0],[0,0,0,0],[9E+09,9E+09,9E+09,9E+09,9E+09,9E+09]]"


def _read(tmp_path, routines: str, main: str, data: str = ""):
    return read_main_module(tmp_path, f"MODULE MainModule\n  CONST robtarget p0:={_P0};\n{data}{routines}"
                                      f"  PROC main()\n{main}  ENDPROC\nENDMODULE\n")


_FILLED = ("    pOff{1} := Offs(p0, 0, 0, 10);\n    pOff{2} := Offs(p0, 0, 10, 10);\n"
           "    pOff{3} := Offs(p0, 10, 10, 10);\n")
_EXPECTED = [[500, 0, 410], [500, 10, 410], [510, 10, 410]]


@pytest.mark.parametrize("mode", ["VAR ", "PERS ", "INOUT ", ""])
def test_an_array_parameter_of_any_mode_reads_the_callers_array(tmp_path, mode):
    routines = (f"  PROC Go({mode}robtarget a{{*}})\n    FOR i FROM 1 TO Dim(a, 1) DO\n"
                "      MoveL a{i}, v100, fine, tool0;\n    ENDFOR\n  ENDPROC\n")
    prog = _read(tmp_path, routines, _FILLED + "    Go pOff;\n", "  VAR robtarget pOff{3};\n")
    assert prog.unsupported == ()
    assert xyz_mm(prog) == _EXPECTED


def test_a_two_dimensional_array_parameter_reads_its_elements_and_both_sizes(tmp_path):
    routines = ("  PROC Grid(num d{*,*})\n    FOR i FROM 1 TO Dim(d, 1) DO\n      FOR j FROM 1 TO Dim(d, 2) DO\n"
                "        MoveL Offs(p0, d{i,j}, 10 * i, 0), v100, fine, tool0;\n      ENDFOR\n    ENDFOR\n  ENDPROC\n")
    prog = _read(tmp_path, routines, "    Grid steps;\n", "  CONST num steps{2,3}:=[[1,2,3],[4,5,6]];\n")
    assert prog.unsupported == ()
    assert xyz_mm(prog) == [[500 + d, 10 * i, 400] for i, row in ((1, (1, 2, 3)), (2, (4, 5, 6))) for d in row]


def test_a_num_array_parameter_gives_offsets(tmp_path):
    routines = ("  PROC Row(num dx{*})\n    FOR i FROM 1 TO Dim(dx, 1) DO\n"
                "      MoveL Offs(p0, dx{i}, 0, 0), v100, fine, tool0;\n    ENDFOR\n  ENDPROC\n")
    prog = _read(tmp_path, routines, "    Row xs;\n", "  CONST num xs{4}:=[0,25,50,75];\n")
    assert prog.unsupported == ()
    assert xyz_mm(prog) == [[500 + x, 0, 400] for x in (0, 25, 50, 75)]


@pytest.mark.parametrize(("param", "argument", "words"), [
    ("robtarget a{*}", "p0", "parameter a is a robtarget{}, got p0, a robtarget"),
    ("robtarget a", "pOff", "parameter a is a robtarget, got pOff, a robtarget{}"),
    ("robtarget a{*,*}", "pOff", "parameter a is a robtarget{,}, got pOff, a robtarget{}"),
])
def test_an_argument_of_another_rank_is_refused_naming_both_types(tmp_path, param, argument, words):
    """RAPID checks an array parameter's rank against its argument's; a scalar for an array is not a conversion."""
    routines = f"  PROC Go(VAR {param})\n    MoveL p0, v100, fine, tool0;\n  ENDPROC\n"
    with pytest.raises(InputError, match=words.replace("{", r"\{").replace("}", r"\}")) as info:
        _read(tmp_path, routines, _FILLED + f"    Go {argument};\n", "  VAR robtarget pOff{3};\n")
    assert info.value.row == 11  # (the call's line, after the module line, 2 data, Go (3 lines), PROC main, 3 assignments)
