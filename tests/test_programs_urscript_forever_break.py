"""URScript ``while True:`` left by a ``break`` whose condition the file decides is a counted loop (issue 35, item 2:
"loops whose counts the file fixes").

The URScript manual's ``while`` runs while its condition holds and ``break`` leaves the innermost loop; a ``while
True:`` (or PolyScope's ``while (True):``) with a counter and ``if counter >= n: break`` runs n passes, known before
running. Each pass is followed; a target that changes from pass to pass is written as a table walked by a pass
counter, and the compensated program, read back and moved on the warm robot, reaches every pass's target. A
``while True:`` left by a break on an input, or by none, is still PolyScope's main loop (one cycle a pass).
"""

from __future__ import annotations

import numpy as np
import pytest
from program_builders import random_configurations, ur_pose_text
from test_programs_loops import UR_TCP, _zero_then_warm, assert_ur_reached

from thermocomp import fk, load_robot, nominal_model
from thermocomp.errors import InputError
from thermocomp.geometry.rotations import transform
from thermocomp.programs import calls, read_program

MOTION = "movel(pose_trans(p0, p[0, 0, j * 0.01, 0, 0, 0]), a=1, v=0.2)"

# (the loop, written with ``j`` its counter and MOTION its motion; the shifts [m] of its passes along the tool's z)
COUNTED = {
    "break at the end": (f"  j = 0\n  while True:\n    {MOTION}\n    j = j + 1\n    if j >= 3:\n      break\n"
                         "    end\n  end\n", [0.0, 0.01, 0.02]),
    "break at the start, PolyScope's parentheses": (
        f"  j = 0\n  while (True):\n    if (j == 4):\n      break\n    end\n    {MOTION}\n    j = j + 1\n  end\n",
        [0.0, 0.01, 0.02, 0.03]),
    "break in an elif, counting down": (
        f"  j = 3\n  while True:\n    if j > 5:\n      j = 0\n    elif j <= 0:\n      break\n    end\n    {MOTION}\n"
        "    j = j - 1\n  end\n", [0.03, 0.02, 0.01]),
    "inside a counted while": (
        "  k = 0\n  while k < 2:\n    j = 0\n    while True:\n      if j == 2:\n        break\n      end\n"
        f"      {MOTION}\n      j = j + 1\n    end\n    k = k + 1\n  end\n", [0.0, 0.01, 0.0, 0.01]),
}


def _program(loop: str, T0) -> str:
    return f"def prog():\n  set_tcp(p[0, 0, 0.1, 0, 0, 0])\n  p0 = {ur_pose_text(T0)}\n{loop}end\nprog()\n"


def _pose(rng):
    chain = load_robot("ur5")
    R, p = fk(nominal_model(chain), random_configurations(chain, rng, 1))
    return chain, transform(R[0], p[0]) @ UR_TCP


@pytest.mark.parametrize("case", list(COUNTED))
def test_a_while_true_left_by_a_known_break_is_followed_pass_by_pass(tmp_path, rng, case):
    loop, shifts = COUNTED[case]
    chain, T0 = _pose(rng)
    path, out = tmp_path / "prog.script", tmp_path / "prog_out.script"
    path.write_text(_program(loop, T0))
    prog = read_program(path)
    assert not prog.unsupported and len(prog.points) == len(shifts)
    assert not any("loop forever" in n.message for n in prog.notes)
    table, report = _zero_then_warm("ur5", path, out, rng)  # (zero table: byte for byte)
    reread = read_program(out)
    assert not reread.unsupported and len(reread.points) == len(shifts)
    assert_ur_reached(chain, table, path, reread, [T0 @ transform(np.eye(3), [0, 0, z]) for z in shifts])


@pytest.mark.parametrize("leave", ["    if get_standard_digital_in(0):\n      break\n    end\n",
                                   "    if read_input_integer_register(0) == j:\n      break\n    end\n", ""],
                         ids=["break on an input", "break on a register", "no break"])
def test_a_while_true_left_only_while_running_stays_the_main_loop(tmp_path, rng, leave):
    chain, T0 = _pose(rng)
    loop = f"  j = 0\n  while True:\n    movel(p0, a=1, v=0.2)\n    j = j + 1\n{leave}  end\n"
    path = tmp_path / "prog.script"
    path.write_text(_program(loop, T0))
    prog = read_program(path)
    assert not prog.unsupported and len(prog.points) == 1
    assert [n.line for n in prog.notes if n.message == "loop forever: one cycle is one pass of its body"] == [5]


def test_a_while_true_whose_known_break_never_comes_ends_at_the_reading_bound(tmp_path, rng, monkeypatch):
    monkeypatch.setattr(calls, "MAX_STATEMENTS_RUN", 2_000)  # (the bound lowered: the same refusal, sooner)
    chain, T0 = _pose(rng)
    loop = f"  j = 0\n  while True:\n    {MOTION}\n    j = j + 1\n    if j < 0:\n      break\n    end\n  end\n"
    path = tmp_path / "prog.script"
    path.write_text(_program(loop, T0))
    with pytest.raises(InputError, match=r"prog.script, line \d+: reading runs more than [\d,]+ statements"):
        read_program(path)
