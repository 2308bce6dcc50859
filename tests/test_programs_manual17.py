"""RAPID feature classes written from ABB's manuals (manual17's round): each a small program of its own, read and
checked against the same program written with the values spelled out, or against an independent computation.

- "Technical reference manual - RAPID kernel", "Expressions" / arithmetic operators: ``pos + pos``, ``pos - pos``,
  ``num * pos``, ``pos * num``, ``pos * pos`` (vector product) and ``orient * orient`` (rotations linked) are values
  known before the program runs when their operands are (they were refused as changed at run time).
- A datum an expression reads inside a call's argument (``MoveL Offs(p, 0, 0, StrLen(seq))``) is not passed to that
  call (RAPID passes a datum by reference only as a whole argument): a ``TEST`` on it stays decided.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from thermocomp.errors import InputError
from thermocomp.programs import read_program
from thermocomp.programs.rapid import RapidOptions

_HEAD = """MODULE Cell
  PERS tooldata tGun:=[TRUE,[[31.8,0,229.8],[0.976296,0,0.21644,0]],[1.5,[-10,0,100],[1,0,0,0],0,0,0]];
  TASK PERS wobjdata wT:=[FALSE,TRUE,"",[[450,-180,150],[1,0,0,0]],[[0,0,0],[1,0,0,0]]];
  CONST robtarget p10:=[[0,0,100],[0,0,1,0],[-1,0,-1,0],[9E+09,9E+09,9E+09,9E+09,9E+09,9E+09]];
  CONST robtarget p20:=[[0,150,0],[0,0,1,0],[-1,0,-1,0],[9E+09,9E+09,9E+09,9E+09,9E+09,9E+09]];
"""
_REST = "[-1,0,-1,0],[9E+09,9E+09,9E+09,9E+09,9E+09,9E+09]]"


def _points(tmp_path, body: str, name: str = "cell.mod"):
    path = tmp_path / name
    path.write_text(_HEAD + "  PROC main()\n" + body + "  ENDPROC\nENDMODULE\n")
    prog = read_program(path)
    assert prog.unsupported == (), prog.unsupported
    return prog, np.stack([p.T_world_tcp for p in prog.points])


def _literal(tmp_path, trans, quat):
    target = f"[[{','.join(f'{v:.12g}' for v in trans)}],[{','.join(f'{v:.12g}' for v in quat)}],{_REST}"
    return _points(tmp_path, f"    MoveL {target}, v100, fine, tGun\\WObj:=wT;\n", "literal.mod")[1]


@pytest.mark.parametrize(("expression", "trans"), [
    ("t.trans + p20.trans", [0, 150, 100]),
    ("t.trans - [10, 20, 30]", [-10, -20, 70]),
    ("2 * t.trans", [0, 0, 200]),
    ("t.trans * 0.5 + [5, 0, 0]", [5, 0, 50]),
    ("[1, 0, 0] * [0, 1, 0] * 40 + t.trans", [0, 0, 140]),  # (x cross y = z)
    ("-t.trans + [0, 0, 300]", [0, 0, 200]),  # (unary minus of a pos)
])
def test_pos_arithmetic_of_known_values_is_a_known_target(tmp_path, expression, trans):
    """RAPID kernel, arithmetic operators on ``pos``: the target reads back as the same target written out."""
    _, got = _points(tmp_path, f"    VAR robtarget t;\n    t := p10;\n    t.trans := {expression};\n"
                               "    MoveL t, v100, fine, tGun\\WObj:=wT;\n")
    np.testing.assert_allclose(got, _literal(tmp_path, trans, [0, 0, 1, 0]), atol=1e-9)


def test_orient_product_links_the_rotations(tmp_path):
    """``orient * orient`` is the rotation of the left one followed by the right one's (a quaternion product),
    checked against scipy's composition."""
    _, got = _points(tmp_path, "    VAR robtarget t;\n    t := p10;\n    t.rot := OrientZYX(30, 0, 0) * p10.rot;\n"
                               "    MoveL t, v100, fine, tGun\\WObj:=wT;\n")
    linked = Rotation.from_euler("z", 30, degrees=True) * Rotation.from_quat([0, 1, 0, 0])  # (p10: [0,0,1,0])
    quat = np.roll(linked.as_quat(), 1)  # (scalar first, as RAPID writes it)
    np.testing.assert_allclose(got, _literal(tmp_path, [0, 0, 100], quat), atol=1e-9)


def test_vector_arithmetic_other_operands_stay_refused_naming_the_datum(tmp_path):
    """An operation RAPID does not define (``pos + num``) has no value: the motion is refused naming the datum
    and the line that gave it."""
    path = tmp_path / "cell.mod"
    path.write_text(_HEAD + "  PROC main()\n    VAR robtarget t;\n    t := p10;\n    t.trans := t.trans + 5;\n"
                    "    MoveL t, v100, fine, tGun\\WObj:=wT;\n  ENDPROC\nENDMODULE\n")
    prog = read_program(path)
    assert len(prog.unsupported) == 1
    assert "t is changed at run time (line 9, column 5)" in prog.unsupported[0].message


def test_a_test_on_a_constant_string_stays_decided_when_a_motion_reads_it(tmp_path):
    """``TEST StrPart(seq, k, 1)`` in a ``FOR`` over a ``CONST`` string: a motion's argument reading ``seq``
    through a function does not pass ``seq`` to ``MoveL``, so each pass runs only its case (5 motions, no
    condition left to running)."""
    body = """    FOR k FROM 1 TO StrLen(seq) DO
      TEST StrPart(seq, k, 1)
      CASE "A":
        MoveL p10, v200, fine, tGun\\WObj:=wT;
      CASE "B", "C":
        MoveL Offs(p20, 0, 0, 10 * StrLen(seq)), v200, fine, tGun\\WObj:=wT;
      ENDTEST
    ENDFOR
"""
    path = tmp_path / "cell.mod"
    path.write_text(_HEAD.replace("MODULE Cell\n", 'MODULE Cell\n  CONST string seq:="ABAC";\n')
                    + "  PROC main()\n" + body + "  ENDPROC\nENDMODULE\n")
    prog = read_program(path)
    assert prog.unsupported == ()
    assert not prog.extra.get("conditional")
    got = np.stack([p.T_world_tcp for p in prog.points])
    a = _literal(tmp_path, [0, 0, 100], [0, 0, 1, 0])[0]
    b = _literal(tmp_path, [0, 150, 40], [0, 0, 1, 0])[0]
    np.testing.assert_allclose(got, np.stack([a, b, a, b]), atol=1e-9)


def test_dnum_conversions_of_known_values_are_known(tmp_path):
    """RAPID Functions, ``DnumToNum`` (with ``\\Integer``) and ``NumToDnum``: a dnum read as a num and back; a
    value ``\\Integer`` cannot take is an error naming the line (the controller stops there too)."""
    body = ("    MoveL Offs(p10, 0, 0, DnumToNum(d \\Integer)), v100, fine, tGun\\WObj:=wT;\n"
            "    MoveL Offs(p10, 0, 0, NumToDnum(2.5) * 2), v100, fine, tGun\\WObj:=wT;\n")
    path = tmp_path / "cell.mod"
    path.write_text(_HEAD.replace("MODULE Cell\n", "MODULE Cell\n  CONST dnum d := 20;\n") + "  PROC main()\n" + body
                    + "  ENDPROC\nENDMODULE\n")
    prog = read_program(path)
    assert prog.unsupported == ()
    got = np.stack([p.T_world_tcp for p in prog.points])
    np.testing.assert_allclose(got[0], _literal(tmp_path, [0, 0, 120], [0, 0, 1, 0])[0], atol=1e-9)
    np.testing.assert_allclose(got[1], _literal(tmp_path, [0, 0, 105], [0, 0, 1, 0])[0], atol=1e-9)
    path.write_text(path.read_text().replace("dnum d := 20;", "dnum d := 4294967295;"))
    with pytest.raises(InputError, match=r"line 8: DnumToNum: \\Integer: 4.29497e\+09 is not a whole number"):
        read_program(path)


def test_stop_move_reset_moves_nothing(tmp_path):
    """RAPID Instructions, ``StopMoveReset``: "reset the system stop move state, without starting any movements"
    (like ``StopMove``/``StartMove``): the motions around it are compensated, nothing is left unsupported."""
    prog, got = _points(tmp_path, "    MoveL p10, v100, fine, tGun\\WObj:=wT;\n    StopMoveReset \\AllMotionTasks;\n"
                                  "    MoveL p20, v100, fine, tGun\\WObj:=wT;\n")
    assert len(got) == 2
    np.testing.assert_allclose(got[1], _literal(tmp_path, [0, 150, 0], [0, 0, 1, 0])[0], atol=1e-9)


def test_the_size_bound_counts_the_branch_the_file_decides(tmp_path):
    """The Hanoi class (a ``PERS`` disc count the cycle sets, ``IF NOD=4 THEN R_Tier4;`` among ten tiers): the size
    bound counts every branch (3 + 3 here), but a module whose largest branches stay within it is read, its
    conditions decided where this cycle gave their data a value; past it even so, the refusal says what it counted."""
    three = "".join(f"      MoveL Offs(p10, 0, 0, {k}), v100, fine, tGun\\WObj:=wT;\n" for k in range(3))
    path = tmp_path / "cell.mod"
    path.write_text(_HEAD.replace("MODULE Cell\n", "MODULE Cell\n  PERS num NOD := 4;\n") + "  PROC main()\n"
                    + "    NOD := 4;\n    IF NOD = 3 THEN\n" + three + "    ELSE\n" + three + "    ENDIF\n"
                    + "  ENDPROC\nENDMODULE\n")
    with pytest.raises(InputError, match=r"line 7: main unrolls to 6 steps \(.*every branch of an IF or TEST counted: "
                                         r"counted before any condition is decided\): more than --max-motions 2"):
        read_program(path, rapid=RapidOptions(max_motions=2))
    prog = read_program(path, rapid=RapidOptions(max_motions=3))
    after_else = path.read_text().splitlines().index("    ELSE") + 2  # (the ELSE branch's motions: NOD is 4)
    assert [m.line for m in prog.motions] == [after_else, after_else + 1, after_else + 2]
    assert prog.extra["conditional"] == ()
    path.write_text(path.read_text().replace("    NOD := 4;\n", ""))  # (the operator's value: not decided)
    assert len(read_program(path, rapid=RapidOptions(max_motions=6)).points) == 6
