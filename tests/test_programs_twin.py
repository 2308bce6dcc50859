"""A datum read nowhere but inside texts written as tables is given a value that reads nothing: one rule, both
languages (:func:`thermocomp.programs.passes.unread`), through chains of data.

Written from the manuals' syntax (ABB "Technical reference manual - RAPID Instructions, Functions and Data types":
``PROC`` with parameters, ``VAR``/``PERS`` data, ``:=``, ``Offs``, ``FOR``, ``TPWrite``; UR "The URScript Programming
Language": ``def`` with parameters, ``local``, ``global``, ``pose_trans``, ``while``, ``textmsg``), not from any
fetched program. The pick routine called with two targets holds its approach in a chain of data built from its
parameter (``s := Offs(p, 0, 0, 50); r := s; q := r;``, ``local s = pose_trans(p, ...)  local r = s  local q = r``)
and moves to ``q`` and to ``p``: ``q`` is read only by the approach motion, a table walked call by call, so ``r``,
then ``s``, is read nowhere else and ``p`` is read by its own motion only, written at the call sites (URScript) or
in the declarations passed (RAPID). A link of the chain read elsewhere (printed) keeps ``p`` read by a value: one
written target cannot serve both motions and the later call is refused, naming its line, column and the motion.
Data of the module (a RAPID ``VAR``) or of the script (a URScript global, assigned at the top level or in the
program function, outside any other function or thread) read only inside a loop's table are given the rule too; a
``PERS``, or a global a function also assigns, is not (docs/programs.md). A zero table gives each program back byte
for byte; each written program, read back and run through the warm robot (FK of the deformed model on the IK of its
targets), reaches every programmed pose within the core's tolerance.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import run_program
from program_builders import ur_pose_text
from test_programs_loops import _offs
from test_programs_rapid import small_table
from test_programs_rapid_cell import _module
from test_programs_rcall import _check as _check_rapid
from test_programs_rcall import _pick
from test_programs_ucall import DOWN, _poses
from test_programs_ucall import _check as _check_ur

from thermocomp import load_robot
from thermocomp.compensation.compensate import CompensationOptions
from thermocomp.deformation.timelaw import Static
from thermocomp.errors import InputError
from thermocomp.geometry.rotations import transform
from thermocomp.programs import read_program

CHAIN = ("q", "r", "s")  # q read by the approach motion, each datum the next one's value, the last Offs(p, ...)'s


def _rapid_chain(n: int, extra: str = "") -> str:
    """The pick routine whose approach is a chain of ``n`` local ``VAR``s."""
    names = CHAIN[:n]
    local = "".join(f"    VAR robtarget {x};\n" for x in names) + f"    {names[-1]} := Offs(p, 0, 0, 50);\n"
    local += "".join(f"    {x} := {names[k + 1]};\n" for k, x in enumerate(names[1:-1], start=1))
    return _pick(names[1], local + extra)


def _ur_chain(n: int, T: list[np.ndarray], extra: str = "") -> str:
    """A script whose function ``go`` holds its approach in a chain of ``n`` locals, called with ``T``'s poses."""
    names = CHAIN[:n]
    chain = f"    local {names[-1]} = pose_trans(p, p[0, 0, -0.05, 0, 0, 0])\n"
    chain += "".join(f"    local {x} = {names[k + 1]}\n" for k, x in reversed(list(enumerate(names[:-1]))))
    return ("def prog():\n  set_tcp(p[0, 0, 0.1, 0, 0, 0])\n  def go(p):\n" + chain + extra
            + "    movel(q, a=1.2, v=0.25)\n    movel(p, a=1.2, v=0.25)\n  end\n"
            + "".join(f"  go({ur_pose_text(t)})\n" for t in T) + "end\n")


@pytest.mark.parametrize("n", [2, 3])
def test_rapid_a_chain_of_locals_reads_the_parameter_no_more(tmp_path, rng, n):
    chain = load_robot("irb140")
    routine = _rapid_chain(n)
    src, T = _module(chain, rng, "    pick a;\n    pick b;\n", routine)
    up = [_offs(T[x], 0, 0, 50) for x in "ab"]
    written, report = _check_rapid(tmp_path, rng, src, [up[0], T["a"], up[0], up[1], T["b"], up[1]])
    assert "    MoveJ tcPassT1{tcPassN1}, v500, z10, tGrip;\n" in written and "MOD 2 + 1;" in written
    assert routine.split("    MoveJ")[0] in written  # (the chain as written)
    assert report.n_changed_texts == 4  # the two tables and the declarations of a and b


@pytest.mark.parametrize("n", [2, 3])
def test_urscript_a_chain_of_locals_reads_the_parameter_no_more(tmp_path, rng, n):
    T = _poses(rng, 2)
    src = _ur_chain(n, T)
    written, report = _check_ur(tmp_path, rng, src, [T[0] @ DOWN, T[0], T[1] @ DOWN, T[1]])
    assert "    tc_pass_n1 = (tc_pass_n1 + 1) % 2\n    movel(tc_pass_t1[tc_pass_n1], a=1.2, v=0.25)\n" in written
    assert src[src.index("  def go"):src.index("    movel(q")] in written  # (the chain as written)
    assert "    movel(p, a=1.2, v=0.25)\n" in written and f"  go({ur_pose_text(T[0])})\n" not in written
    assert report.n_changed_texts == 3  # the table and the two call sites


@pytest.mark.parametrize("language", ["rapid", "urscript"])
def test_a_chain_broken_by_a_read_elsewhere_stays_refused(tmp_path, rng, language):
    """``r``, the chain's middle link, printed: ``p`` stays read by ``s``'s value, and ``MoveL p`` (``movel(p)``)
    needs a different written target on each call."""
    if language == "rapid":
        src, _ = _module(load_robot("irb140"), rng, "    pick a;\n    pick b;\n",
                         _rapid_chain(3, '    TPWrite "z", \\Num:=r.trans.z;\n'))
        call, motion, path = "    pick b;", "    MoveL p, v100, fine, tGrip;", tmp_path / "cell.mod"
    else:
        T = _poses(rng, 2)
        src = _ur_chain(3, T, '    textmsg("z", r[2])\n')
        call, motion, path = f"  go({ur_pose_text(T[1])})", "    movel(p, a=1.2, v=0.25)", tmp_path / "cell.script"
    path.write_text(src)
    lines = src.splitlines()
    found = read_program(path).unsupported
    assert [(f.line, f.column) for f in found] == [(lines.index(call) + 1, len(call) - len(call.lstrip()) + 1)]
    assert f"at line {lines.index(motion) + 1} needs another target on this call of " in found[0].message
    out = path.with_name("out" + path.suffix)
    with pytest.raises(InputError, match="one written target cannot serve every call"):
        run_program("irb140" if language == "rapid" else "ur5", small_table(rng), path, out,
                    options=CompensationOptions(time_law=Static()))
    assert not out.exists()


RAPID_MODULE_DATA = {  # the declaration of the module's datum ``up`` -> whether ``a`` is read by the table only
    "VAR": ("  VAR robtarget up;\n", True),
    "PERS": ("  PERS robtarget up := [[0,0,0],[1,0,0,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]];\n", False),
}


@pytest.mark.parametrize("storage", sorted(RAPID_MODULE_DATA))
def test_rapid_module_data_read_only_by_a_table(tmp_path, rng, storage):
    """``up := Offs(a, 0, 0, 50);`` read only by a loop's table: ``a`` is written in its declaration (a ``VAR``), or,
    ``up`` a ``PERS`` whose value outlives the program, at its motion."""
    decl, given = RAPID_MODULE_DATA[storage]
    main = ("    up := Offs(a, 0, 0, 50);\n    MoveL a, v100, fine, tGrip;\n    FOR i FROM 0 TO 1 DO\n"
            "      MoveL Offs(up, 0, 20 * i, 0), v100, z10, tGrip;\n    ENDFOR\n")
    src, T = _module(load_robot("irb140"), rng, main, decl=decl)
    up = _offs(T["a"], 0, 0, 50)
    written, _ = _check_rapid(tmp_path, rng, src, [T["a"], up, _offs(up, 0, 20, 0)])
    declared = next(line for line in src.splitlines() if line.startswith("  CONST robtarget a:="))
    assert (declared not in written) == given
    assert ("    MoveL a, v100, fine, tGrip;\n" in written) == given


UR_GLOBAL = {  # where the script's global ``up`` is assigned -> whether ``a`` is read by the table only
    "the program function": (True, True, ""),
    "the top level": (False, True, ""),
    "the program function and a function": (True, False, "  def lift():\n    up = pose_trans(a, p[0, 0, -0.05, 0, 0, 0])"
                                            "\n  end\n"),
}


@pytest.mark.parametrize("where", sorted(UR_GLOBAL))
def test_urscript_a_global_read_only_by_a_table(tmp_path, rng, where):
    """``global up = pose_trans(a, ...)`` read only by a loop's table: ``a`` is written in its assignment, unless a
    function also assigns ``up``, then at its motion."""
    wrapped, given, function = UR_GLOBAL[where]
    T = _poses(rng, 1)[0]
    body = ("set_tcp(p[0, 0, 0.1, 0, 0, 0])\n" + f"global a = {ur_pose_text(T)}\n"
            "global up = pose_trans(a, p[0, 0, -0.05, 0, 0, 0])\n" + function + "movel(a, a=1.2, v=0.25)\ni = 0\n"
            "while i < 2:\n  movel(pose_trans(up, p[0, 0.02 * i, 0, 0, 0, 0]), a=1.2, v=0.25)\n  i = i + 1\nend\n")
    src = "def prog():\n" + "".join(f"  {line}\n" for line in body.splitlines()) + "end\n" if wrapped else body
    up = T @ DOWN
    written, _ = _check_ur(tmp_path, rng, src, [T, up, up @ transform(np.eye(3), [0.0, 0.02, 0.0])])
    assert (f"global a = {ur_pose_text(T)}\n" not in written) == given
    assert ("movel(a, a=1.2, v=0.25)\n" in written) == given

