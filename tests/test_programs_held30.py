"""The class of wrong refusals a probe of held-out-30 showed (held-out-30's own 33 real programs were all read as
classed), tested as a class from the manual's syntax: a method call statement on an object whose method's name is
dotted.

URScript manual, module interfaces, ``rpc_factory(type, url)``: the object it returns calls the XML-RPC server's
methods by name, ``camera.initialize("RGB")``; XML-RPC method names may hold dots (``system.listMethods``), and a
URCap names its server's methods so: the Ethernet/IP I/O Monitor URCap of a UR10e bin-picking cell (held-out-30,
CA-Giken/docker-noetic-capc) writes ``conn = rpc_factory("xmlrpc", ...)`` and ``return conn.eip_monitor.show()``.
The reader took a dotted method in an expression (``return ...``, ``x = conn.a.b()``) but as a statement only
``conn.show()``: ``conn.eip_monitor.show()`` on a line of its own was refused as a syntax error ("URScript syntax:
unexpected '.'"), the whole program with it. A method statement moves nothing and changes nothing a motion reads
(kept as it is); a method's value a motion reads stays known only while running.
"""

from __future__ import annotations

import pytest
from program_builders import refusal_of
from test_programs_held25 import _compensate, _numbers_of_motions

_HEAD = """def prog():
  set_tcp(p[0, 0, 0.1, 0, 0, 0])
  conn = rpc_factory("xmlrpc", "http://127.0.0.1:" + to_str(61101) + "/RPC2")
"""
_MOVES = """  movel(p[0.40, -0.20, 0.30, 0, 3.1416, 0], a=1.2, v=0.25)
  movel(p[0.45, -0.10, 0.35, 0, 3.1416, 0], a=1.2, v=0.25)
"""


# Each: a method statement of a dotted name, two or three names deep, with or without arguments (keywords too), at
# the top, in a function the program calls, in a thread it runs, in a branch on an input, on the line of a motion.
@pytest.mark.parametrize("statement", [
    "  conn.eip_monitor.show()\n",
    "  conn.system.methods.list()\n",
    "  conn.eip_monitor.set_value(\"speed\", 0.25, timeout=2)\n",
    "  def show_monitor():\n    conn.eip_monitor.show()\n  end\n  show_monitor()\n",
    "  thread Monitor():\n    conn.eip_monitor.show()\n  end\n  h = run Monitor()\n",
    "  if (read_input_boolean_register(6)):\n    conn.eip_monitor.show()\n  end\n",
    "  movej([0, -1.57, 1.57, -1.57, -1.57, 0]) conn.eip_monitor.show()\n",
], ids=["two names", "three names", "arguments and a keyword", "in a function", "in a thread", "in a branch",
        "after a motion on its line"])
def test_a_dotted_method_statement_is_kept_and_the_program_compensated(tmp_path, statement):
    written = _compensate(tmp_path, _HEAD + statement + _MOVES + "end\nprog()\n")
    kept = [ln.strip() for ln in statement.splitlines() if "conn." in ln]
    assert all(any(k in ln for ln in written.splitlines()) for k in kept), written
    moved = [m for m in _numbers_of_motions(written) if len(m) >= 6 and m[2] > 0.2]
    assert len(moved) == 2, written
    assert moved[0][:3] != [0.40, -0.20, 0.30] and moved[1][:3] != [0.45, -0.10, 0.35]  # (compensated: rewritten)


# The class's bounds: what the controller refuses in a call it refuses in a dotted method statement too (a keyword
# argument twice), naming its line and column; a dotted method's value a motion reads is known only while running.
def test_a_dotted_method_statement_with_a_keyword_twice_is_refused_at_the_second(tmp_path):
    error = refusal_of(tmp_path / "a.script",
                       _HEAD + "  conn.eip_monitor.set_value(timeout=2, timeout=3)\n" + _MOVES + "end\nprog()\n")
    assert (error.row, error.column) == (4, 41), error
    assert "timeout" in str(error)


def test_a_motion_to_a_dotted_methods_value_is_refused_naming_it(tmp_path):
    from thermocomp.programs import read_program

    path = tmp_path / "a.script"
    path.write_text(_HEAD + "  target = conn.vision.locate(\"part\")\n  movel(target, a=1.2, v=0.25)\nend\nprog()\n")
    (refused,) = read_program(path).unsupported
    assert refused.message == ('the value of target is not known before running (line 4 gives it the value of '
                               'conn.vision.locate("part"), known only while running)'), refused.message
