"""The class of wrong refusals held-out-31 showed, tested as a class from the RAPID manual's rules: a ``VAR`` of a
record without an orientation, declared without a value, starts at zeros and a component assignment makes it known.

RAPID kernel, data declarations: a variable declared without an initial value starts at its type's initial value,
0, FALSE or "" component by component (``VAR pos pos1;`` is [0,0,0]). The reader gave that start to atomic types
and to records a module declares, but not to RAPID's own records, so that a ``robtarget`` or ``pose`` would not start
at a zero quaternion (no rotation). A fork of abb_driver's motion task declares ``VAR jointtarget p1;`` in ``main``,
assigns ``p1.robax := [-11.71, ...];`` and moves ``MoveAbsJ p1``: every motion to it was refused as "p1 is changed
at run time", though its value is known there (robax the constants, extax zeros). A ``jointtarget``, ``pos``,
``confdata``, ``robjoint``, ``extjoint`` or ``speeddata`` now starts at zeros; a record holding an ``orient`` still
has no value known until the whole of it is given.
"""

from __future__ import annotations

import numpy as np
import pytest
from program_builders import read_main_module, xyz_mm

_ROBAX = [-11.71, -32.94, 39.17, -0.022, 83.76, 168.29]
_P10 = "[[500,0,400],[0,0,1,0],[0,0,0,0],[9E+09,9E+09,9E+09,9E+09,9E+09,9E+09]]"


def _main(body: str, module_data: str = "") -> str:
    return f"MODULE MainModule\n{module_data}    PROC main()\n{body}    ENDPROC\nENDMODULE\n"


# Each: a jointtarget declared without a value, its robax given by constants (whole, or axis by axis), in main or at
# module level, moved to once or in a loop's pass under an output's test.
@pytest.mark.parametrize(("body", "module_data"), [
    ("        VAR jointtarget p1;\n        p1.robax := [-11.71, -32.94, 39.17, -0.022, 83.76, 168.29];\n"
     "        MoveAbsJ p1, v1000, z50, tool0;\n", ""),
    ("        p1.robax := [-11.71, -32.94, 39.17, -0.022, 83.76, 168.29];\n        MoveAbsJ p1, v1000, z50, tool0;\n",
     "    VAR jointtarget p1;\n"),
    ("        VAR jointtarget p1;\n" + "".join(f"        p1.robax.rax_{i + 1} := {v};\n" for i, v in enumerate(_ROBAX))
     + "        MoveAbsJ p1, v1000, z50, tool0;\n", ""),
    ("        VAR jointtarget p1;\n        p1.robax := [-11.71, -32.94, 39.17, -0.022, 83.76, 168.29];\n"
     "        WHILE TRUE DO\n            IF DOutput(do1) = 1 THEN\n                MoveAbsJ p1, v1000, z50, tool0;\n"
     "            ENDIF\n            WaitTime 0.01;\n        ENDWHILE\n", ""),
], ids=["robax whole", "module VAR", "axis by axis", "in a loop under an output"])
def test_a_jointtarget_declared_without_a_value_is_known_once_its_robax_is_given(tmp_path, body, module_data):
    prog = read_main_module(tmp_path, _main(body, module_data))
    assert prog.unsupported == (), prog.unsupported
    assert len(prog.points) == 1
    np.testing.assert_allclose(np.degrees(prog.points[0].q[:6]), _ROBAX, atol=1e-9)


def test_a_pos_and_a_speeddata_declared_without_a_value_start_at_zeros(tmp_path):
    """``Offs`` of a ``pos``'s components (only z given) and a ``speeddata`` given component by component."""
    body = ("        VAR pos d;\n        VAR speeddata s;\n        d.z := 100;\n        s.v_tcp := 200;\n"
            "        s.v_ori := 500;\n        MoveL Offs(p10, d.x, d.y, d.z), s, fine, tool0;\n")
    prog = read_main_module(tmp_path, _main(body, f"    CONST robtarget p10 := {_P10};\n"))
    assert prog.unsupported == (), prog.unsupported
    assert xyz_mm(prog) == [[500, 0, 500]]


# The class's bounds: a robtarget declared without a value starts at a zero quaternion, no rotation, so a component
# of it given is not a target known; and a jointtarget given where the robot stands is not known before running.
@pytest.mark.parametrize(("body", "datum"), [
    ("        VAR robtarget p;\n        p.trans := [500, 0, 400];\n        MoveL p, v100, fine, tool0;\n", "p"),
    ("        VAR jointtarget p1;\n        p1 := CJointT();\n        p1.robax.rax_1 := 10;\n"
     "        MoveAbsJ p1, v1000, z50, tool0;\n", "p1"),
])
def test_a_record_not_known_whole_is_still_refused(tmp_path, body, datum):
    prog = read_main_module(tmp_path, _main(body))
    assert len(prog.unsupported) == 1, prog.unsupported
    assert prog.unsupported[0].message.startswith(f"{datum} is changed at run time"), prog.unsupported[0].message
