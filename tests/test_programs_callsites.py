"""A routine whose motion's text the calls need differently, called under conditions known only while running
(issue 35, item 2: "An enclosing IF on an input ... do not stop its compensation").

Written from ABB's RAPID syntax ("Technical reference manual - RAPID Instructions, Functions and Data types":
``PROC`` with parameters, ``Offs``, ``IF ... THEN ... ENDIF``, ``FOR``, ``WHILE TRUE``, ``DInput``) and UR's URScript
manual (``def`` with parameters, ``pose_trans``, ``while``, ``if``, ``get_standard_digital_in``), not from any fetched
program. Each call's argument is known before the program runs; only whether (and in what order) the calls run is
known only while running. Each call is compensated, and the text the calls share is written as a table of one entry a
call, its index set before each call (:func:`thermocomp.programs.passes.settle`). A zero table gives the program back
byte for byte; the written program, read back along a path the controller may take (the input on, or off) and through
the deformed model's FK, reaches each call's programmed poses. A URScript call whose own runs need different targets
(its argument differs from pass to pass) stays refused, naming the argument and the call's line (RAPID's FOR loops,
compact IFs and --timed: test_programs_callsites2.py).
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from helpers import run_program
from test_programs_loops import UR_TCP, _offs, _zero_then_warm
from test_programs_modules import _reached as _reached_task
from test_programs_percall import PICK, TOLERANCE, _line, _rapid, _ur
from test_programs_rapid import small_table
from test_programs_rapid_cell import ZERO, _reached

from thermocomp import deformed_model, fk, load_robot, nominal_model
from thermocomp.compensation.compensate import CompensationOptions
from thermocomp.deformation.timelaw import Static
from thermocomp.geometry.rotations import transform
from thermocomp.kinematics.ik import solve_ik
from thermocomp.programs import ProgramOptions, RapidOptions, read_program
from thermocomp.programs.compensate import nominal_configurations, point_poses

#: main bodies: the calls ``Pick a`` (three times, or once) and ``Pick b`` where ``{cond}`` (an input) decides, and
#: the calls each path runs (``{cond}`` true, false)
RAPID_MAINS = {
    "counted loop, then IF on an input": (
        "    FOR i FROM 1 TO 3 DO\n      Pick a;\n    ENDFOR\n    IF {cond} THEN\n      Pick b;\n    ENDIF\n",
        ("a", "a", "a", "b"), ("a", "a", "a")),
    "IF on an input, ELSE": (
        "    IF {cond} THEN\n      Pick a;\n    ELSE\n      Pick b;\n    ENDIF\n    Pick a;\n",
        ("a", "a"), ("b", "a")),
    "before the production loop and in it": (
        "    Pick a;\n    WHILE TRUE DO\n      Pick b;\n    ENDWHILE\n", ("a", "b"), ("a", "b")),
}
INPUT = "DInput(di1) = 1"


def _lifted(T, names):
    return [pose for name in names for pose in (_offs(T[name], 0, 0, 50), T[name])]


@pytest.mark.parametrize("main", RAPID_MAINS)
def test_rapid_calls_under_conditions_are_compensated_call_by_call(tmp_path, rng, main):
    body, on, off = RAPID_MAINS[main]
    src, T, path = _rapid(tmp_path, rng, body.format(cond=INPUT))
    prog = read_program(path)
    assert not prog.unsupported and len(prog.extra["per_call"]) == 1
    out = tmp_path / "cell_out.mod"
    table, report = _zero_then_warm("irb140", path, out, rng)
    written = out.read_text()
    assert "    MoveJ tcPassT1{tcPassN1}, v100, z10, tGrip;  ! above\n" in written
    assert " MOD " not in written  # (no counter walks the cycle's order)
    # each call sets its entry (in the order the calls first run), on a line of its own before it
    sets = re.findall(r"^( +)tcPassN1 := (\d+);\n\1Pick (\w);\n", written, flags=re.M)
    assert [(int(k), name) for _, k, name in sets] == list(enumerate(re.findall(r"Pick (\w);", body), start=1))
    assert len(re.findall(r"^ *tcPassN1 := ", written, flags=re.M)) == len(sets)
    assert "    MoveL p, v100, fine, tGrip;\n" in written  # a and b written in their declarations
    note = next(n for n in report.notes if "differ from call to call" in n)
    assert "one entry a call" in note and f"motion(s) at line {_line(src, 'MoveJ ')}" in note
    if "production" not in main:  # the motions compensated under the condition are listed
        lines = (_line(src, "MoveJ "), _line(src, "MoveL "))
        assert set(lines) <= set(prog.extra["conditional"])
        assert any(re.search(rf"its \d+ motion\(s\) \(line {lines[0]}, {lines[1]}\b.*\) are compensated", n)
                   for n in report.notes)
    for cond, names in (("TRUE", on), ("FALSE", off)):  # each path the controller may take
        taken = tmp_path / f"cell_{cond}.mod"
        taken.write_text(written.replace(INPUT, cond))
        reached = _reached(load_robot("irb140"), table, taken)
        want = np.stack(_lifted(T, names))
        assert len(reached) == len(want)
        assert np.max(np.linalg.norm(reached[:, :3, 3] - want[:, :3, 3], axis=1)) < TOLERANCE


def test_rapid_calls_in_one_module_of_a_routine_in_another(tmp_path, rng):
    """The calls in the main module, the routine in a second one: the table and its index in the routine's module,
    the index task-wide (not ``LOCAL``: the calls set it from the other module)."""
    src, T, _ = _rapid(tmp_path, rng, RAPID_MAINS["counted loop, then IF on an input"][0].format(cond=INPUT),
                       routines="")
    main, lib = tmp_path / "cell.mod", tmp_path / "parts.mod"
    lib.write_text("MODULE parts\n" + PICK.format(approach="Offs(p, 0, 0, 50)") + "ENDMODULE\n")
    options = ProgramOptions(rapid=RapidOptions(modules=(str(lib),)))
    out, lib_out = tmp_path / "cell_out.mod", tmp_path / "cell_out.parts.mod"
    run_program("irb140", ZERO, main, out, program_options=options)
    assert out.read_bytes() == main.read_bytes() and not lib_out.exists()
    table = small_table(rng)
    run_program("irb140", table, main, out, options=CompensationOptions(time_law=Static()), program_options=options)
    written, written_lib = out.read_text(), lib_out.read_text()
    assert "\n  VAR num tcPassN1 := 0;\n" in written_lib and "tcPassN1 := 2;\n      Pick b;\n" in written
    taken = tmp_path / "cell_on.mod"
    taken.write_text(written.replace(INPUT, "TRUE"))
    reached = _reached_task(load_robot("irb140"), table, taken, [lib_out])
    want = np.stack(_lifted(T, "aaab"))
    assert np.max(np.linalg.norm(reached[:, :3, 3] - want[:, :3, 3], axis=1)) < TOLERANCE


# ----- URScript: the manual's def with a parameter, pose_trans of it; a counted while and an if on an input

UR_INPUT = "get_standard_digital_in(0)"
UR_MAIN = "  i = 0\n  while (i < 3):\n    pick(a)\n    i = i + 1\n  end\n  if {cond}:\n    pick(b)\n  end\n"


def _ur_reached(chain, table, original, written):
    """TCP poses [m] the warm robot reaches running ``written``: its poses solved on the nominal model (seeded as
    ``original`` is), then the deformed model's FK with the program's tool."""
    reread = read_program(written)
    assert not reread.unsupported
    T = np.stack([pt.T_world_tcp @ np.linalg.inv(pt.T_flange_tcp) for pt in reread.points])
    prog = read_program(original)
    q_near = nominal_configurations(chain, prog, point_poses(chain, prog), CompensationOptions())[0]
    result = solve_ik(nominal_model(chain), T[:, :3, :3], T[:, :3, 3], q_near[:len(T)])
    R, p = fk(deformed_model(chain, table, 1.0), result.q)
    return transform(R, p) @ UR_TCP


def test_urscript_calls_under_conditions_are_compensated_call_by_call(tmp_path, rng):
    chain = load_robot("ur5")
    src, path, want = _ur(tmp_path, rng, UR_MAIN.format(cond=UR_INPUT))
    prog = read_program(path)
    assert not prog.unsupported and len(prog.extra["per_call"]) == 1
    assert _line(src, "movel(pose_trans(p") in prog.extra["conditional"]
    out = tmp_path / "cell_out.script"
    table, report = _zero_then_warm("ur5", path, out, rng)
    written = out.read_text()
    assert "    movel(tc_pass_t1[tc_pass_n1], a=1.2, v=0.25)  # above\n" in written
    assert "    tc_pass_n1 = 0\n    pick(a)\n" in written and "    tc_pass_n1 = 1\n    pick(b)\n" in written
    assert "%" not in written  # (no counter walks the cycle's order)
    assert any("one entry a call" in n for n in report.notes)
    for cond, calls in (("True", 4), ("False", 3)):
        taken = tmp_path / f"cell_{cond}.script"
        taken.write_text(written.replace(UR_INPUT, cond))
        reached = _ur_reached(chain, table, path, taken)
        poses = np.stack(want[:2] * 3 + want[2:])[:2 * calls]
        assert len(reached) == len(poses)
        assert np.max(np.linalg.norm(reached[:, :3, 3] - poses[:, :3, 3], axis=1)) < TOLERANCE


def test_a_urscript_call_whose_argument_differs_from_pass_to_pass_is_refused_naming_it(tmp_path, rng):
    main = ("  poses = [a, b]\n  i = 0\n  while (i < 2):\n    pick(poses[i])\n    i = i + 1\n  end\n"
            f"  if {UR_INPUT}:\n    pick(b)\n  end\n")
    src, path, _ = _ur(tmp_path, rng, main)
    refusal = [f for f in read_program(path).unsupported if f.line == _line(src, "movel(pose_trans(p")]
    assert len(refusal) == 1
    assert f"the call of pick at line {_line(src, 'pick(poses[i])')} passes poses[i]" in refusal[0].message


def test_the_manual_example_without_a_shared_text_writes_each_call_site(tmp_path, rng):
    """``def go(p): movel(p) end``: each call's pose is written where it is given (no table), under the condition
    too."""
    src, path, want = _ur(tmp_path, rng, UR_MAIN.format(cond=UR_INPUT).replace("pick(", "go("))
    path.write_text(src.replace("  def pick(p):\n", "  def go(p):\n    movel(p, a=1.2, v=0.25)\n  end\n"
                                "  def pick(p):\n"))
    prog = read_program(path)
    assert not prog.unsupported and not prog.extra["per_pass"]
    out = tmp_path / "cell_out.script"
    table, _ = _zero_then_warm("ur5", path, out, rng)
    assert "tc_pass" not in out.read_text()
    reached = _ur_reached(load_robot("ur5"), table, path, out)
    poses = np.stack([want[1]] * 3 + [want[3]])
    assert np.max(np.linalg.norm(reached[:, :3, 3] - poses[:, :3, 3], axis=1)) < TOLERANCE

