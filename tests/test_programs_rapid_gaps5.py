"""RAPID the fifth held-out trial (issue 35, item 5) called a syntax error, the class tested from ABB's manuals.

"Technical reference manual - RAPID kernel", "Procedure call" and "Function call": a required argument may be
written with the name of its parameter before ``:=`` (``MoveAbsJ jHome, vSync, zSync, tool:=tool0;``,
``CalcRobT(j, Tool:=tWeld\\WObj:=wobj)``); it keeps its place among the required arguments. The trial's program: a
gantry welding cell's backup whose synchronised motions name their tool so; the reader refused it at the ``:``.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import run_program
from test_programs_rapid import small_table
from test_programs_rapid_calls import T_GRIP, _module, _reached

from thermocomp import DeformationTable, load_robot
from thermocomp.compensation.compensate import CompensationOptions
from thermocomp.deformation.timelaw import Static
from thermocomp.errors import InputError
from thermocomp.programs import read_program
from thermocomp.tolerances import IK_POSITION_TOL

NAMED = ("    MoveJ a, v200, z10, tool:=grip;\n"
         "    MoveL ToPoint:=b, Speed:=v100, Zone:=fine, Tool:=grip\\WObj:=wobj0;\n"
         "    MoveL Offs(c, 0, 0, 0), v100,\n      Zone := z5, Tool := grip;\n")
POSITIONAL = ("    MoveJ a, v200, z10, grip;\n"
              "    MoveL b, v100, fine, grip\\WObj:=wobj0;\n"
              "    MoveL Offs(c, 0, 0, 0), v100,\n      z5, grip;\n")


def test_required_arguments_written_with_their_names_are_followed_as_in_their_places(tmp_path, rng):
    chain = load_robot("irb140")
    src, T = _module(chain, rng, NAMED, "")
    path = tmp_path / "p.mod"
    path.write_text(src)
    prog = read_program(path)
    assert prog.unsupported == ()
    np.testing.assert_allclose(np.stack([pt.T_world_tcp for pt in prog.points]),
                               np.stack([T["a"], T["b"], T["c"]]), atol=1e-12)
    assert all(np.allclose(pt.T_flange_tcp, T_GRIP) for pt in prog.points)  # the named tool is the tool
    out = tmp_path / "p_out.mod"
    run_program("irb140", DeformationTable.from_mm_deg(np.zeros((6, 6))), path, out)
    assert out.read_text() == src  # zero table: byte for byte
    table = small_table(rng)
    run_program("irb140", table, path, out, options=CompensationOptions(time_law=Static()))
    reached = _reached(chain, table, out)
    want = np.stack([T["a"], T["b"], T["c"]])
    assert np.max(np.linalg.norm(reached[:, :3, 3] - want[:, :3, 3], axis=1)) < 1e-6 + 10 * IK_POSITION_TOL
    # the same numbers as the positional form's, each name kept where it was written
    plain, _ = _module(chain, np.random.default_rng(0), POSITIONAL, "")
    named, _ = _module(chain, np.random.default_rng(0), NAMED, "")
    for text, name in ((plain, "plain.mod"), (named, "named.mod")):
        (tmp_path / name).write_text(text)
        run_program("irb140", table, tmp_path / name, tmp_path / f"out_{name}",
                    options=CompensationOptions(time_law=Static()))
    got = (tmp_path / "out_named.mod").read_text()
    assert got.replace("tool:=", "").replace("ToPoint:=", "").replace("Speed:=", "").replace("Zone:=", "") \
        .replace("Tool:=", "").replace("Zone := ", "").replace("Tool := ", "") == \
        (tmp_path / "out_plain.mod").read_text()


def test_a_function_argument_written_with_its_name_is_read(tmp_path, rng):
    chain = load_robot("irb140")
    src, T = _module(chain, rng, "    MoveL a, v100, fine, grip;\n    p := CRobT(Tool:=grip\\WObj:=wobj0);\n"
                                 "    MoveL b, v100, fine, grip;\n", "")
    path = tmp_path / "p.mod"
    path.write_text(src.replace("  PROC main()", "  VAR robtarget p;\n  PROC main()"))
    prog = read_program(path)
    assert prog.unsupported == () and len(prog.points) == 2


@pytest.mark.parametrize("call, where", [
    ("    MoveL a, v100, fine, := grip;\n", ":="),  # no name before :=
    ("    MoveL a, v100, fine, tool:= ;\n", ";"),   # no value after it
])
def test_a_named_argument_the_controller_rejects_is_a_syntax_error_at_its_column(tmp_path, rng, call, where):
    chain = load_robot("irb140")
    src, _ = _module(chain, rng, call, "")
    path = tmp_path / "p.mod"
    path.write_text(src)
    with pytest.raises(InputError) as info:
        read_program(path)
    assert info.value.row == src.splitlines().index(call.rstrip("\n")) + 1
    assert f"column {call.index(where) + 1}" in str(info.value) and "syntax" in str(info.value)
