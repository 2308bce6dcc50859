"""A motion inside loops whose counts the file fixes, its target differing from pass to pass, under a condition known
only while running inside the loops (issue 35, item 2: "an enclosing IF on an input, a WHILE waiting for a button, a
TEST on a mode do not change a target's value and do not stop its compensation").

Written from ABB's RAPID syntax ("Technical reference manual - RAPID Instructions, Functions and Data types": ``FOR
... FROM ... TO ... STEP``, ``WHILE``, ``IF``/``ELSEIF``/``ELSE``, compact ``IF``, ``TEST``/``CASE``/``DEFAULT``,
``RETURN``, ``DInput``, ``GInput``, ``Offs``, ``DIV``) and the URScript manual ("Flow of Control": ``if``/``elif``,
``while``, ``break``; ``pose_trans``, ``floor``, ``get_standard_digital_in``), not from any fetched program. A
condition around the motion skips some passes and not others, so a pass counter advanced before the motion would
lose its place; the table's index is set before the motion from the loops' counters instead (``tcPassN1 := i * 2 +
j + 1;``, ``tc_pass_n1 = floor(i)``), right whatever the conditions decide. Each variant is run with its conditions
decided every way that matters (the input replaced by ``TRUE``, ``FALSE``, and expressions of the counters that take
some passes and skip others, in the input and in the written program alike): the written program read back reaches,
on the warm robot, each programmed pose of the passes that path runs. Counters the file does not fix (changed under
an input) stay refused naming the datum and its line.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from helpers import run_program
from program_builders import random_configurations, ur_pose_text
from test_programs_loops import UR_TCP, _zero_then_warm, assert_ur_reached
from test_programs_rapid_cell import _module, _reached

from thermocomp import fk, load_robot, nominal_model
from thermocomp.compensation.compensate import CompensationOptions
from thermocomp.deformation.timelaw import LinearRamp
from thermocomp.errors import InputError
from thermocomp.geometry.rotations import transform
from thermocomp.programs import ProgramOptions, read_program
from thermocomp.tolerances import IK_POSITION_TOL

TOLERANCE = 1e-6 + 10 * IK_POSITION_TOL  # [m] (the solver's position tolerance, ten times; 32-bit written numbers)
MOTION = "MoveL Offs(b, {x}, {y}, {z}), v100, fine, tGrip;"

#: RAPID mains: the text of each condition known only while running, and the texts that decide it for a simulated
#: run (each replaces it in the input and in the written program)
RAPID = {
    "if in a FOR": (
        "    FOR i FROM 1 TO 4 DO\n      IF DInput(di1) = 1 THEN\n        " + MOTION.format(x=0, y=0, z="i * 5")
        + "\n      ENDIF\n    ENDFOR\n",
        {"DInput(di1) = 1": ["TRUE", "FALSE", "i MOD 2 = 0", "i > 2"]}),
    "test in nested FORs": (
        "    FOR i FROM 0 TO 2 DO\n      FOR j FROM 0 TO 1 DO\n        TEST GInput(giMode)\n        CASE 1:\n"
        "          " + MOTION.format(x="i * 20", y="j * 20", z=0) + "\n        DEFAULT:\n"
        "          " + MOTION.format(x="i * 20", y="j * 20", z=10) + "\n        ENDTEST\n      ENDFOR\n    ENDFOR\n",
        {"GInput(giMode)": ["1", "2", "(i + j) MOD 2", "i"]}),
    "if between nested FORs, a descending STEP": (
        "    FOR i FROM 1 TO 3 DO\n      IF DInput(di1) = 1 THEN\n        FOR j FROM 20 TO 0 STEP -10 DO\n"
        "          " + MOTION.format(x="j", y=0, z="i * 5") + "\n        ENDFOR\n      ENDIF\n    ENDFOR\n",
        {"DInput(di1) = 1": ["TRUE", "FALSE", "i <> 2"]}),
    "if, elseif, else beside a motion every pass runs": (
        "    FOR i FROM 0 TO 20 STEP 5 DO\n      MoveJ Offs(a, 0, 0, i), v500, z10, tGrip;\n"
        "      IF DInput(di1) = 1 THEN\n        " + MOTION.format(x="i", y=0, z=0) + "\n"
        "      ELSEIF DInput(di2) = 1 THEN\n        " + MOTION.format(x=0, y="i", z=0) + "\n"
        "      ELSE\n        WaitTime 0.1;\n      ENDIF\n    ENDFOR\n",
        {"DInput(di1) = 1": ["TRUE", "FALSE", "i = 5", "i > 10"], "DInput(di2) = 1": ["TRUE", "i < 10"]}),
    "a compact IF": (
        "    FOR i FROM 1 TO 4 DO\n      IF DInput(di1) = 1 " + MOTION.format(x=0, y=0, z="i * 5") + "\n    ENDFOR\n",
        {"DInput(di1) = 1": ["TRUE", "FALSE", "i MOD 2 = 1"]}),
    "a WHILE the file counts": (
        "    nCount := 0;\n    WHILE nCount < 4 DO\n      IF DInput(di1) = 1 THEN\n        "
        + MOTION.format(x=0, y=0, z="nCount * 5") + "\n      ENDIF\n      nCount := nCount + 1;\n    ENDWHILE\n",
        {"DInput(di1) = 1": ["TRUE", "FALSE", "nCount = 1"]}),
    "a RETURN out of a pass": (
        "    FOR i FROM 1 TO 4 DO\n      IF DInput(di2) = 1 THEN\n        RETURN;\n      ENDIF\n"
        "      IF DInput(di1) = 1 THEN\n        " + MOTION.format(x=0, y=0, z="i * 5") + "\n      ENDIF\n    ENDFOR\n",
        {"DInput(di2) = 1": ["FALSE", "i = 3"], "DInput(di1) = 1": ["TRUE", "i <> 2"]}),
    "a target a pass assigns, named by the motion": (
        "    FOR i FROM 1 TO 4 DO\n      pNext := Offs(b, 0, 0, i * 5);\n      IF DInput(di1) = 1 THEN\n"
        "        MoveL pNext, v100, fine, tGrip;\n      ENDIF\n    ENDFOR\n",
        {"DInput(di1) = 1": ["TRUE", "FALSE", "i MOD 2 = 0"]}),
    "a routine under an IF in nested FORs, reading counters of the module": (
        "    FOR row FROM 0 TO 1 DO\n      FOR col FROM 0 TO 2 DO\n        IF DInput(di1) = 1 THEN\n          place;\n"
        "        ENDIF\n        nX := nX + 12;\n      ENDFOR\n      nY := nY - 12;\n      nX := 0;\n    ENDFOR\n"
        "    nY := 0;\n",
        {"DInput(di1) = 1": ["TRUE", "FALSE", "row = col"]}),
}
PLACE = "  PROC place()\n    " + MOTION.format(x="nX", y="nY", z=0) + "\n  ENDPROC\n"
GRID = "  VAR num nX := 0;\n  VAR num nY := 0;\n  VAR robtarget pNext;\n"


def _decided(text: str, choice: dict[str, str]) -> str:
    """``text`` with each condition known only while running replaced by the decision ``choice`` gives it; a compact
    ``IF`` written as the ``IF ... THEN ... ENDIF`` it means (decided, its motion's passes are read back as a table
    walked by a counter, which a compact ``IF`` cannot hold)."""
    for condition, decided in choice.items():
        assert condition in text
        text = text.replace(condition, decided)
    return re.sub(r"^( *IF .*?) (MoveL [^;]*;)$", r"\1 THEN \2 ENDIF", text, flags=re.MULTILINE)


def _choices(conditions: dict[str, list[str]]) -> list[dict[str, str]]:
    """Each condition's decisions in turn, the others at their first."""
    return [{**{c: d[0] for c, d in conditions.items()}, condition: decided}
            for condition, decisions in conditions.items() for decided in decisions]


@pytest.mark.parametrize("case", list(RAPID))
def test_a_rapid_motion_under_a_condition_inside_fixed_loops_reaches_every_pass_the_path_runs(tmp_path, rng, case):
    main, conditions = RAPID[case]
    chain = load_robot("irb140")
    src, _ = _module(chain, rng, main, PLACE if "place;" in main else "", decl=GRID)
    path, out = tmp_path / "cell.mod", tmp_path / "cell_out.mod"
    path.write_text(src)
    table, report = _zero_then_warm("irb140", path, out, rng)  # (zero table: byte for byte)
    written = out.read_text()
    counted = [index for counter, index in re.findall(r"(tcPassN\d+) := ([^;]*);", written)
               if counter not in index and index != "0"]  # (not a pass counter walking, nor its reset)
    assert len(counted) == main.count("MoveL ") + ("place;" in main)
    notes = "\n".join(report.notes)
    assert "not resolved before running" in notes and "index set before the motion from the counters" in notes
    runs = set()
    for choice in _choices(conditions):
        decided_in, decided_out = tmp_path / "in.mod", tmp_path / "out.mod"
        decided_in.write_text(_decided(src, choice))
        decided_out.write_text(_decided(written, choice))
        programmed = read_program(decided_in)
        reread = read_program(decided_out)
        assert not programmed.unsupported and not reread.unsupported
        want = np.stack([pt.T_world_tcp for pt in programmed.points]) if programmed.points else np.zeros((0, 4, 4))
        reached = _reached(chain, table, decided_out) if programmed.points else np.zeros((0, 4, 4))
        assert len(reached) == len(want)
        assert len(want) == 0 or np.max(np.linalg.norm(reached[:, :3, 3] - want[:, :3, 3], axis=1)) < TOLERANCE
        runs.add(tuple(np.round(want[:, :3, 3], 6).ravel().tolist()))
    assert len(runs) >= 3  # (the choices take different passes)


def test_each_pass_is_timed_at_its_own_minute_and_the_table_holds_them_by_counter(tmp_path, rng):
    """--timed with a time law: each pass its minute in the written order of the cycle; the index from the counters
    picks the pass's own correction (a table of a routine called twice, both runs of a pass at one slot, at two
    minutes: refused at the motion, naming the counters)."""
    chain = load_robot("irb140")
    main = RAPID["test in nested FORs"][0]
    src, _ = _module(chain, rng, main)
    path, out = tmp_path / "cell.mod", tmp_path / "cell_out.mod"
    path.write_text(src)
    report = run_program("irb140", "deformations/exaggerated.csv", path, out,
                         options=CompensationOptions(time_law=LinearRamp(stabilisation_min=2.0)),
                         program_options=ProgramOptions(timed=True))
    minutes = [row.minute_first for row in report.rows]
    assert len(minutes) == 12 and np.all(np.diff(minutes) > 0)
    src, _ = _module(chain, rng, "    go;\n    go;\n", "  PROC go()\n" + main + "  ENDPROC\n")
    path.write_text(src)
    with pytest.raises(InputError, match=r"runs 12 times under a condition known only while running.*\(i, j\) do not "
                                         "tell them apart"):
        run_program("irb140", "deformations/exaggerated.csv", path, out,
                    options=CompensationOptions(time_law=LinearRamp(stabilisation_min=2.0)),
                    program_options=ProgramOptions(timed=True))


#: counters changed under a condition known only while running: the datum, and the line named as changing it (the
#: assignment; in a WHILE the file counts, the one inside the condition around it, which is named too: the count is
#: not fixed)
RAPID_UNFIXED = {
    "a WHILE counter stepped under the input": (
        "    nCount := 0;\n    WHILE nCount < 4 DO\n      IF DInput(di1) = 1 THEN\n"
        "        " + MOTION.format(x=0, y=0, z="nCount * 5") + "\n        nCount := nCount + 1;\n      ENDIF\n"
        "    ENDWHILE\n", "nCount", "        nCount := nCount + 1;"),
    "an offset stepped under the input in a FOR": (
        "    FOR i FROM 1 TO 4 DO\n      IF DInput(di1) = 1 THEN\n        nX := nX + 5;\n      ENDIF\n"
        "      IF DInput(di2) = 1 THEN\n        " + MOTION.format(x="nX", y=0, z=0) + "\n      ENDIF\n    ENDFOR\n",
        "nX", "        nX := nX + 5;"),
}


@pytest.mark.parametrize("case", list(RAPID_UNFIXED))
def test_a_rapid_counter_changed_under_an_input_stays_refused_naming_it(tmp_path, rng, case):
    main, name, changed = RAPID_UNFIXED[case]
    src, _ = _module(load_robot("irb140"), rng, main, decl=GRID)
    path = tmp_path / "cell.mod"
    path.write_text(src)
    with pytest.raises(InputError) as info:
        run_program("irb140", "deformations/exaggerated.csv", path, tmp_path / "out.mod")
    lines = src.splitlines()
    assert info.value.row == next(n for n, text in enumerate(lines, start=1) if "Offs(b," in text)  # (the motion)
    assert f"{name} is changed at run time (line {lines.index(changed) + 1}," in str(info.value)
    assert not (tmp_path / "out.mod").exists()


# ----- URScript: counted whiles with an if, elif or break on an input inside

UR_MOTION = "movel(pose_trans(p0, p[{x}, {y}, {z}, 0, 0, 0]))"
URSCRIPT = {
    "if in a counted while": (
        "  i = 0\n  while i < 4:\n    if get_standard_digital_in(0):\n      " + UR_MOTION.format(x=0, y=0, z="i * 0.01")
        + "\n    end\n    i = i + 1\n  end\n",
        {"get_standard_digital_in(0)": ["True", "False", "i == 2", "i > 1"]}),
    "if, elif in nested whiles stepping by 2": (
        "  j = 0\n  while j < 3:\n    k = 0\n    while k < 6:\n      if get_standard_digital_in(0):\n"
        "        " + UR_MOTION.format(x="k * 0.01", y="j * 0.01", z=0) + "\n"
        "      elif get_standard_digital_in(1):\n        " + UR_MOTION.format(x="k * 0.01", y="j * 0.01", z=0.02)
        + "\n      end\n      k = k + 2\n    end\n    j = j + 1\n  end\n",
        {"get_standard_digital_in(0)": ["True", "False", "k == j * 2"], "get_standard_digital_in(1)": ["True", "j == 1"]}),
    "a pose a pass assigns, named by the motion": (
        "  i = 0\n  while i < 4:\n    pose_pre = pose_trans(p0, p[0, i * 0.01, 0, 0, 0, 0])\n"
        "    if get_standard_digital_in(0):\n      movel(pose_pre)\n    end\n    i = i + 1\n  end\n",
        {"get_standard_digital_in(0)": ["True", "False", "i != 1"]}),
    "a break on an input after the motion": (
        "  k = 0\n  while k < 4:\n    " + UR_MOTION.format(x=0, y="k * 0.01", z=0) + "\n"
        "    if get_standard_digital_in(0):\n      break\n    end\n    k = k + 1\n  end\n",
        {"get_standard_digital_in(0)": ["False", "True", "k == 2"]}),
    "a break on an input in the inner of nested whiles": (
        "  j = 0\n  while j < 2:\n    k = 0\n    while k < 3:\n      if get_standard_digital_in(0):\n        break\n"
        "      end\n      " + UR_MOTION.format(x="k * 0.01", y="j * 0.01", z=0) + "\n      k = k + 1\n    end\n"
        "    j = j + 1\n  end\n",
        {"get_standard_digital_in(0)": ["False", "True", "k == 2 - j"]}),
}


@pytest.mark.parametrize("case", list(URSCRIPT))
def test_a_urscript_motion_under_a_condition_inside_counted_whiles_reaches_every_pass_the_path_runs(
        tmp_path, rng, case):
    body, conditions = URSCRIPT[case]
    chain = load_robot("ur5")
    R, p = fk(nominal_model(chain), random_configurations(chain, rng, 1))
    T0 = transform(R[0], p[0]) @ UR_TCP
    src = f"def prog():\n  set_tcp(p[0, 0, 0.1, 0, 0, 0])\n  p0 = {ur_pose_text(T0)}\n{body}end\nprog()\n"
    path, out = tmp_path / "prog.script", tmp_path / "prog_out.script"
    path.write_text(src)
    table, report = _zero_then_warm("ur5", path, out, rng)  # (zero table: byte for byte)
    written = out.read_text()
    indices = re.findall(r"tc_pass_n\d+ = ([^\n]*)\n", written)
    assert indices and all("floor(" in index for index in indices if not index.startswith("-1"))
    notes = "\n".join(report.notes)
    assert "not resolved before running" in notes and "index set before the motion from the counters" in notes
    runs = set()
    for choice in _choices(conditions):
        decided_in, decided_out = tmp_path / "in.script", tmp_path / "out.script"
        decided_in.write_text(_decided(src, choice))
        decided_out.write_text(_decided(written, choice))
        programmed, reread = read_program(decided_in), read_program(decided_out)
        assert not programmed.unsupported and not reread.unsupported
        assert len(reread.points) == len(programmed.points)
        if programmed.points:
            assert_ur_reached(chain, table, decided_in, reread, [pt.T_world_tcp for pt in programmed.points])
        runs.add(tuple(np.round([pt.T_world_tcp[:3, 3] for pt in programmed.points], 6).ravel().tolist()))
    assert len(runs) >= 3  # (the choices take different passes)


def test_a_urscript_counter_changed_under_an_input_stays_refused_naming_it(tmp_path):
    src = ("def prog():\n  set_tcp(p[0, 0, 0.1, 0, 0, 0])\n  p0 = p[0.4, -0.1, 0.3, 0, 3.1416, 0]\n  i = 0\n"
           "  while i < 4:\n    if get_standard_digital_in(0):\n      i = i + 1\n    end\n"
           "    if get_standard_digital_in(1):\n      movel(pose_trans(p0, p[0, 0, i * 0.01, 0, 0, 0]))\n    end\n"
           "    i = i + 1\n  end\nend\nprog()\n")
    path = tmp_path / "prog.script"
    path.write_text(src)
    found = read_program(path).unsupported
    assert found and all("the value of i is not known before running" in f.message for f in found)
    assert 10 in {f.line for f in found} or 5 in {f.line for f in found}
