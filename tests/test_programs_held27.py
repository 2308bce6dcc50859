"""The class of wrong refusals found on held-out-27 (real URScript programs gathered after the reader was written),
tested as a class from the manual's syntax: the length of a list whose entries are poses or lists.

URScript manual, module urmath: ``length(v)`` (``get_list_length(v)`` since SW 5.10) returns the number of entries
of a list, whatever the entries are. A UR3e pick-and-place cell of held-out-27 keeps its pick offsets as a list of
poses, ``global points = [p[0, 0, dz, rx, ry, rz], p[0, 2*dy, dz, ...], ...]``, and walks it with
``while (cartridgeID < length(points)): pick_fromInfeed(cartridgeID) ...``, each pick a
``pose_trans(PLOC_pick, points[id])``. The reader counted only lists of numbers (held-out-25's class), so a loop up to
the length of a list of poses was one of unknown count and its motions were refused ("the value of p_base is not known
before running (line 6 gives it a value of i, known only while running)"), though the list, its length and each pass
are known before running. (That program itself stays refused: its ``PLOC_pick`` is the pose a camera located.) A list
known only while running keeps its loop refused.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from test_programs_held25 import _compensate, _numbers_of_motions

from thermocomp.errors import InputError

#: Three shapes of list: poses an offset frame takes, position triples, whole poses given as six-number lists
#: (``p[q[0], ..., q[5]]``), each walked by a counter up to its length, in the loop or in a function it calls.
_POSES = """def prog():
  set_tcp(p[0, 0, 0.1, 0, 0, 0])
  frame = p[0.40, -0.20, 0.30, 0, 3.1416, 0]
  points = [p[0, 0, 0, 0, 0, 0], p[0.03, 0, 0, 0, 0, 0], p[0, 0.03, 0, 0, 0, 0.2], p[0.03, 0.03, 0.01, 0, 0, 0]]
  i = 0
  while (i < {bound}):
    movel(pose_trans(frame, points[i]), a=1.2, v=0.25)
    i = i + 1
  end
end
prog()
"""

_TRIPLES = """def prog():
  set_tcp(p[0, 0, 0.1, 0, 0, 0])
  xyz = [[0.40, -0.20, 0.30], [0.45, -0.20, 0.30], [0.45, -0.15, 0.32]]
  i = 0
  while i < {bound}:
    movel(p[xyz[i][0], xyz[i][1], xyz[i][2], 0, 3.1416, 0], a=1.2, v=0.25)
    i = i + 1
  end
end
prog()
"""

_CALLED = """def prog():
  set_tcp(p[0, 0, 0.1, 0, 0, 0])
  global frame = p[0.40, -0.20, 0.30, 0, 3.1416, 0]
  global points = [p[0, 0, 0, 0, 0, 0], p[0.03, 0, 0, 0, 0, 0], p[0, 0.03, 0, 0, 0, 0]]
  def pick(id):
    local p_base = pose_trans(frame, points[id])
    local above = p_base
    above[2] = above[2] + 0.05
    movej(above, a=1.2, v=1.0)
    movel(p_base, a=1.2, v=0.25)
    return True
  end
  n = 0
  while (n < {bound}):
    local done = pick(n)
    n = n + 1
  end
end
prog()
"""


@pytest.mark.parametrize(("program", "count"), [(_POSES, 4), (_TRIPLES, 3), (_CALLED, 3)],
                         ids=["poses", "position triples", "walked by a called function"])
@pytest.mark.parametrize("spelling", ["length({0})", "get_list_length({0})", "{0}.length()"])
def test_a_while_counted_to_the_length_of_a_list_of_poses_or_lists_is_followed_as_the_literal_count(
        tmp_path, program, count, spelling):
    name = re.search(r"\n  (?:global )?(points|xyz) = ", program).group(1)
    literal = _compensate(tmp_path, program.format(bound=count), "literal.script")
    written = _compensate(tmp_path, program.format(bound=spelling.format(name)))
    numbers = _numbers_of_motions(written)
    assert numbers == _numbers_of_motions(literal)
    assert sum(len(n) for n in numbers) >= count * 6  # (a table of every pass's corrected target)


def test_each_pass_goes_to_its_own_entry_of_the_list(tmp_path):
    """The table holds one corrected target per entry, in the list's order: near each entry's nominal pose, and as
    far apart as the entries are (the deformation here is below a millimetre)."""
    written = _compensate(tmp_path, _POSES.format(bound="length(points)"))
    table = next(ln for ln in written.splitlines() if "tc_pass_t" in ln and "[p[" in ln)
    targets = np.array([[float(x) for x in t.split(",")] for t in re.findall(r"p\[([^\]]*)\]", table)])
    nominal = np.array([[0.40, -0.20, 0.30], [0.37, -0.20, 0.30], [0.40, -0.17, 0.30], [0.37, -0.17, 0.29]])
    assert targets.shape == (4, 6)
    assert np.abs(targets[:, :3] - nominal).max() < 0.002  # (a half turn about y: x and z of an offset reversed)


def test_a_list_of_poses_known_only_while_running_keeps_its_loop_refused(tmp_path):
    text = _POSES.format(bound="length(points)").replace(
        "points = [p[0, 0, 0, 0, 0, 0], p[0.03, 0, 0, 0, 0, 0], p[0, 0.03, 0, 0, 0, 0.2], p[0.03, 0.03, 0.01, 0, 0, 0]]",
        "points = rpc.get_points()")
    with pytest.raises(InputError, match=r"not known before running"):
        _compensate(tmp_path, text)
