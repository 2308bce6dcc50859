"""The class of wrong refusals found on held-out-24 (real URScript programs gathered after the reader was written),
tested as a class from the manuals' syntax: a target held in a variable that a loop of fixed count assigns afresh on
each pass, then named by the motion.

URScript manual, "Flow of Control" and "Variables": ``pose_pre = p[0.5 + varx, -0.15 + vary, 0.05, 0, 3.1416, 0]``
then ``movej(pose_pre)`` in ``while i <= n:`` ... ``i = i + 1`` moves to the pose the pass computed (a deburring
course's grids of held-out-24 do this, in nested ``while`` loops of a function called with the grid's counts). RAPID
reference, ``FOR``: ``p := Offs(p10, 10 * i, 0, 0); MoveL p, ...`` likewise, which the RAPID reader already wrote as
a table at the motion. Each pass's target is known before the program runs; the URScript reader refused the loop
("its target changes from pass to pass of this while (it reads pose_pre, ...): one written target cannot serve every
pass") because the text holding the value (the assignment) runs before the table's counter advances at the motion.
The motion names the variable in its own statement: the table is written there, in place of the name, the
assignment left as written; each such motion its own table and counter. The tables are the ones the same loop writes
with the expression inline in the motion (a form the reader already followed).
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from helpers import run_program
from test_programs_urscript_calls import small_table

from thermocomp.compensation.compensate import CompensationOptions
from thermocomp.deformation.timelaw import Static
from thermocomp.errors import InputError
from thermocomp.programs import read_program

_STATIC = CompensationOptions(time_law=Static())


def _compensate(tmp_path, rng_seed: int, text: str, name: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    out = tmp_path / f"out_{name}"
    run_program("irb140" if name.endswith(".mod") else "ur5", small_table(np.random.default_rng(rng_seed)), path, out,
                options=_STATIC)
    return out.read_text()


def _tables(written: str) -> list[list[float]]:
    """The numbers of each table the written program declares, in order."""
    rows = re.findall(r"(?:tc_pass_t\d+ = |tcPassT\d+\{\d+\}:=\s*)(\[.*?\])\s*;?$", written, re.MULTILINE | re.DOTALL)
    return [[float(x) for x in re.findall(r"-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?", row)] for row in rows]


_WHILE = """def prog():
  set_tcp(p[0, 0, 0.1, 0, 0, 0])
  i = 0
  while i < 3:
{body}    i = i + 1
  end
end
prog()
"""


@pytest.mark.parametrize(("assigned", "motion", "inline"), [
    ("pt = p[0.4, 0.1, 0.2 + i * 0.02, 0, 3.14, 0]", "movel(pt, a=1.2, v=0.25)",
     "movel(p[0.4, 0.1, 0.2 + i * 0.02, 0, 3.14, 0], a=1.2, v=0.25)"),
    ("pt = pose_trans(p[0.4, -0.1, 0.3, 0, 3.14, 0], p[0.03 * i, 0, 0, 0, 0, 0])", "movej(pt)",
     "movej(pose_trans(p[0.4, -0.1, 0.3, 0, 3.14, 0], p[0.03 * i, 0, 0, 0, 0, 0]))"),
    ("pt = p[0.35 + i * 0.01, 0.2, 0.25, 0, 3.14, 0]", "movej(get_inverse_kin(pt, qnear=[0, -1.5, 1.5, -1.5, -1.5, 0]))",
     "movej(get_inverse_kin(p[0.35 + i * 0.01, 0.2, 0.25, 0, 3.14, 0], qnear=[0, -1.5, 1.5, -1.5, -1.5, 0]))"),
])
def test_a_variable_a_counted_while_assigns_is_a_table_at_the_motion(tmp_path, assigned, motion, inline):
    """A pose literal of the counter, a ``pose_trans`` of it, a pose ``get_inverse_kin`` reads: each pass's target is
    followed, and the motion is written with the table of the three corrected targets in place of the variable's
    name; the assignment stays as written, and the table is the one the inline form writes."""
    src = _WHILE.format(body=f"    {assigned}\n    {motion}\n")
    path = tmp_path / "p.script"
    path.write_text(src)
    prog = read_program(path)
    assert prog.unsupported == () and [m.line for m in prog.motions] == [6, 6, 6]
    written = _compensate(tmp_path, 4, src, "v.script")
    assert f"    {assigned}\n" in written
    name = motion.split("(")[0]
    assert re.search(rf"\n    tc_pass_n1 = \(tc_pass_n1 \+ 1\) % 3\n    {name}\(.*tc_pass_t1\[tc_pass_n1\]", written)
    same = _compensate(tmp_path, 4, _WHILE.format(body=f"    {inline}\n"), "inline.script")
    np.testing.assert_allclose(_tables(written), _tables(same), atol=1e-7)


def test_a_grid_of_nested_whiles_in_a_function_tables_each_motion_naming_the_variable(tmp_path):
    """The deburring grid's form: top-level statements, a function of the grid's counts and pitches whose nested
    ``while`` loops reset the inner counter; ``pose_pre`` is read by the approach and the exit, ``pose_desb`` by the
    stroke between them. Each of the three motions gets its own table of the four cells' targets, approach and exit
    alike; the tool of ``set_tcp`` in the function is the one compensated for."""
    src = """set_tcp(p[0, 0, 0.12, 0, 0, 0])
def grid(varx, vary, rows, cols, dx, dy):
  i = 1
  j = 1
  while i <= cols:
    while j <= rows:
      pose_pre = p[0.45 + varx, -0.15 + vary, 0.15, 0, 3.1416, 0]
      pose_desb = p[0.45 + varx, -0.15 + vary, 0.1, 0, 3.1416, 0]
      movej(pose_pre, 1.5, 1)
      movel(pose_desb, 1.5, 1)
      movej(pose_pre, 1.5, 1)
      varx = varx + dx
      j = j + 1
    end
    varx = 0
    j = 1
    vary = vary + dy
    i = i + 1
  end
end
movej([0, -1.57, 1.57, -1.57, -1.57, 0], 1.5, 1)
grid(0, 0, 2.0, 2.0, 0.02, 0.03)
"""
    path = tmp_path / "grid.script"
    path.write_text(src)
    prog = read_program(path)
    assert prog.unsupported == ()
    np.testing.assert_allclose([pt.T_world_tcp[:3, 3] for pt in prog.points[1::3]],
                               [[0.45, -0.15, 0.15], [0.47, -0.15, 0.15], [0.45, -0.12, 0.15], [0.47, -0.12, 0.15]],
                               atol=1e-9)
    written = _compensate(tmp_path, 5, src, "grid.script")
    for k, name in ((1, "movej(tc_pass_t1[tc_pass_n1], 1.5, 1)"), (2, "movel(tc_pass_t2[tc_pass_n2], 1.5, 1)"),
                    (3, "movej(tc_pass_t3[tc_pass_n3], 1.5, 1)")):
        assert f"      tc_pass_n{k} = (tc_pass_n{k} + 1) % 4\n      {name}\n" in written
    approach, _, leave = _tables(written)
    assert len(approach) == 4 * 6
    np.testing.assert_allclose(approach, leave, atol=1e-7)
    assert "      pose_pre = p[0.45 + varx, -0.15 + vary, 0.15, 0, 3.1416, 0]\n" in written


def test_rapid_a_target_a_for_loop_assigns_is_a_table_at_the_motion(tmp_path):
    """RAPID, the form the URScript reader now agrees with (it held before): ``p := Offs(p10, 10 * i, 0, 0);`` then
    ``MoveL p`` in ``FOR i FROM 1 TO 3``: the motion reads its table in place of ``p``, the assignment as written, the
    table the one ``MoveL Offs(p10, 10 * i, 0, 0)`` writes."""
    module = """MODULE cell
    CONST robtarget p10:=[[400,0,400],[0,0,1,0],[0,0,0,0],[9E+09,9E+09,9E+09,9E+09,9E+09,9E+09]];
    VAR robtarget p;
    PROC main()
        FOR i FROM 1 TO 3 DO
{body}        ENDFOR
    ENDPROC
ENDMODULE
"""
    written = _compensate(tmp_path, 6, module.format(body="            p := Offs(p10, 10 * i, 0, 0);\n"
                                                          "            MoveL p, v100, fine, tool0;\n"), "cell.mod")
    assert "            p := Offs(p10, 10 * i, 0, 0);\n            tcPassN1 := tcPassN1 MOD 3 + 1;\n" \
           "            MoveL tcPassT1{tcPassN1}, v100, fine, tool0;\n" in written
    same = _compensate(tmp_path, 6, module.format(body="            MoveL Offs(p10, 10 * i, 0, 0), v100, fine, tool0;\n"),
                       "inline.mod")
    np.testing.assert_allclose(_tables(written), _tables(same), atol=1e-4)


def test_a_variable_the_motion_reads_through_another_assignment_is_still_refused(tmp_path):
    """The variable the motion names holds joints an earlier statement computed of the changing pose (``q =
    get_inverse_kin(pt)`` then ``movej(q)``): no pose stands at the motion to table, so the loop is refused as before,
    naming the motion and the line that changes the variable."""
    src = _WHILE.format(body="    pt = p[0.4, 0.1, 0.2 + i * 0.02, 0, 3.14, 0]\n    q = get_inverse_kin(pt)\n"
                             "    movej(q)\n")
    path = tmp_path / "q.script"
    path.write_text(src)
    with pytest.raises(InputError, match="movej at line 7: its target changes from pass to pass of this while"):
        run_program("ur5", small_table(np.random.default_rng(7)), path, tmp_path / "q_out.script", options=_STATIC)


def test_rapid_a_declared_target_in_a_work_object_each_pass_moves_is_a_table_at_the_motion(tmp_path):
    """RAPID: ``wPallet.oframe.trans.y := dy * 50;`` then ``MoveL pPick, ...\\WObj:=wPallet`` in ``FOR dy FROM 0 TO 2``
    (a palletising cell's column of the corpus): the CONST ``pPick`` is one text, but each pass's target in the world
    differs, so the motion reads a table in place of ``pPick``, each entry the corrected target in that pass's work
    object: the table of ``MoveL Offs(pPick, 0, dy * 50, 0)`` in ``wobj0`` less each pass's 50 mm (it was refused as
    ``MoveL's target changes with the FOR counter dy``)."""
    head = """MODULE cell
    CONST robtarget pPick:=[[400,0,300],[0,0,1,0],[0,0,0,0],[9E+09,9E+09,9E+09,9E+09,9E+09,9E+09]];
    TASK PERS wobjdata wPallet:=[FALSE,TRUE,"",[[0,0,0],[1,0,0,0]],[[0,0,0],[1,0,0,0]]];
    PROC main()
        FOR dy FROM 0 TO 2 DO
"""
    tail = "        ENDFOR\n    ENDPROC\nENDMODULE\n"
    moved = _compensate(tmp_path, 8, head + "            wPallet.oframe.trans.y:=dy*50;\n"
                        "            MoveL pPick,v100,fine,tool0\\WObj:=wPallet;\n" + tail, "wobj.mod")
    assert "            MoveL tcPassT1{tcPassN1},v100,fine,tool0\\WObj:=wPallet;\n" in moved
    inline = _compensate(tmp_path, 8, head + "            MoveL Offs(pPick,0,dy*50,0),v100,fine,tool0;\n" + tail,
                         "inline.mod")
    (table,), (world,) = _tables(moved), _tables(inline)
    shifted = np.array(table).reshape(3, -1)
    shifted[:, 1] += [0, 50, 100]  # (each entry's y in the world: the work object's offset added)
    np.testing.assert_allclose(shifted[:, :7], np.array(world).reshape(3, -1)[:, :7], atol=1e-4)
