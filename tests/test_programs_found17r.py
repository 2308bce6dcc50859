"""Classes of RAPID programs found wrongly refused in the held-out-17 gathering (26 RAPID programs of 11 repositories
that no earlier gathering names, classed by reading before any run: ``tests/data/programs_corpus/SOURCES.csv``).

Written from ABB's "Technical reference manual - RAPID overview" ("Program modules": every module of a task sees the
task's global data; a ``LOCAL`` declaration is seen by its own module only; a data declaration's initial value may
name data of another module of the task) and "RAPID Instructions, Functions and Data types" (``MoveJ``, ``MoveL``),
not from any fetched program.

- A ``LOCAL`` datum of another module of the task whose initial value names a datum of a module read after it (the
  StateMachine add-in's ``LOCAL VAR string routine_name_input := stEmpty;``) ended the reading in a ``KeyError``: the
  second reading of that declaration, once the later module is read, took it for another module's own datum of the
  same name. The task is compensated: each written output, read back, takes the deformed robot to every programmed
  pose; a zero table gives the program back byte for byte; the datum stays its module's own (another module's read
  of its name is refused, naming file and line).
- A ``WaitTime`` whose seconds are known only while running (``WaitTime n_RFL_TimeTaskLiAll;`` of a ``PERS num``
  declared without a value, the first line of the ETH Robotic Fabrication Lab's and compas_rrc's tasks) refused the
  program, although no target reads them: they only time the cycle. Like ``WaitDI``, such a wait is noted (file,
  line) and the timing counts no wait; the motions around it are compensated; a ``WaitTime`` of a known value is
  still timed, and one of a string is still refused.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import run_program
from test_programs_modules import _options, _reached, _task
from test_programs_rapid import small_table
from test_programs_rapid_cell import ZERO

from thermocomp.compensation.compensate import CompensationOptions
from thermocomp.deformation.timelaw import Static
from thermocomp.errors import InputError
from thermocomp.programs import RapidOptions, read_program
from thermocomp.programs.model import Wait
from thermocomp.tolerances import IK_POSITION_TOL

#: ``parts.mod``'s own data whose values name ``tools.mod``'s (read after it): a string, a number read by a motion.
LOCAL_DATA = ("  LOCAL VAR string sRoutine := sNone;\n  LOCAL CONST num nLift := nClear;\n")
TOOLS_DATA = '  CONST string sNone := "";\n  CONST num nClear := 40;\n'


def _local_task(tmp_path, rng, body=""):
    chain, paths, want = _task(tmp_path, rng, three=True, parts_body=body)
    paths[1].write_text(paths[1].read_text().replace("MODULE parts\n", "MODULE parts\n" + LOCAL_DATA))
    paths[2].write_text(paths[2].read_text().replace("ENDMODULE", TOOLS_DATA + "ENDMODULE"))
    return chain, paths, want


def test_local_datum_valued_by_a_later_module_is_read(tmp_path, rng):
    _, paths, _ = _local_task(tmp_path, rng, body="    WaitTime nLift / 100;\n")
    prog = read_program(paths[0], rapid=RapidOptions(modules=tuple(str(p) for p in paths[1:])))
    assert [m.instruction for m in prog.motions] == ["MoveJ", "MoveJ", "MoveL", "MoveL", "MoveL"]
    assert not prog.unsupported


def test_task_with_such_a_datum_is_compensated(tmp_path, rng):
    chain, paths, want = _local_task(tmp_path, rng)
    out = tmp_path / "out" / "cell_comp.mod"
    out.parent.mkdir()
    run_program("irb140", ZERO, paths[0], out, program_options=_options(paths))
    assert out.read_bytes() == paths[0].read_bytes()
    table = small_table(rng)
    report = run_program("irb140", table, paths[0], out, program_options=_options(paths),
                         options=CompensationOptions(time_law=Static()))
    parts_out = out.parent / "cell_comp.parts.mod"
    assert [w[0] for w in report.modules_written] == [parts_out]
    assert LOCAL_DATA in parts_out.read_text()  # (its declarations as written)
    reached = _reached(chain, table, out, [parts_out, paths[2]])
    assert len(reached) == len(want)
    assert np.max(np.linalg.norm(reached[:, :3, 3] - np.stack(want)[:, :3, 3], axis=1)) < 1e-6 + 10 * IK_POSITION_TOL


def test_such_a_datum_stays_its_modules_own(tmp_path, rng):
    """The main module reads ``nLift``: ``parts.mod``'s LOCAL one is not its datum (refused, naming where)."""
    _, paths, _ = _local_task(tmp_path, rng)
    main = paths[0].read_text().replace("    pick;\n", "    pick;\n    WaitTime nLift;\n")
    paths[0].write_text(main)
    with pytest.raises(InputError) as err:
        run_program("irb140", small_table(rng), paths[0], tmp_path / "o.mod", program_options=_options(paths))
    line = main.splitlines().index("    WaitTime nLift;") + 1
    assert f"{paths[0]}, line {line}" in str(err.value) and f"nLift is declared LOCAL in {paths[1]}" in str(err.value)
    assert not (tmp_path / "o.mod").exists()


_WAIT_HEAD = ("MODULE cell\n  PERS num nPause;\n  VAR num nRead;\n  CONST num nKnown := 1.5;\n"
              "  CONST robtarget p1 := [[500,0,500],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]];\n  PROC main()\n")
_MOVE = "MoveL p1, v100, fine, tool0;"


def _waits(tmp_path, *body):
    path = tmp_path / "cell.mod"
    path.write_text(_WAIT_HEAD + "".join(f"    {line}\n" for line in body) + "  ENDPROC\nENDMODULE\n")
    return read_program(path)


def test_a_waittime_known_only_while_running_is_noted_and_not_timed(tmp_path):
    prog = _waits(tmp_path, "WaitTime nPause;", "nRead := AInput(aiDelay);", "WaitTime nRead * 2;", "WaitTime nKnown;",
                  _MOVE)
    first = _WAIT_HEAD.count("\n") + 1
    assert not prog.unsupported and len(prog.motions) == 1
    assert [(f.line, f.column, f.message) for f in prog.notes if f.message.startswith("WaitTime")] == [
        (first, 5, "WaitTime: nPause has no value known before the program runs (declared without a value at line 2): "
                   "the timing counts no wait"),
        (first + 2, 5, f"WaitTime: nRead is changed at run time (line {first + 1}, column 5); its value at this motion "
                       "is not known: the timing counts no wait")]
    assert [s.seconds for s in prog.steps if isinstance(s, Wait)] == [1.5]


def test_a_waittime_of_a_string_is_still_refused(tmp_path):
    prog = _waits(tmp_path, 'WaitTime "long";', _MOVE)
    assert [(f.line, f.column) for f in prog.unsupported] == [(_WAIT_HEAD.count("\n") + 1, 14)]


def test_a_task_with_such_a_wait_is_compensated(tmp_path, rng):
    chain, paths, want = _task(tmp_path, rng, three=True, parts_body="    WaitTime nPause;\n")
    paths[1].write_text(paths[1].read_text().replace("MODULE parts\n", "MODULE parts\n  PERS num nPause;\n"))
    out = tmp_path / "cell_comp.mod"
    run_program("irb140", ZERO, paths[0], out, program_options=_options(paths))
    assert out.read_bytes() == paths[0].read_bytes()
    table = small_table(rng)
    report = run_program("irb140", table, paths[0], out, program_options=_options(paths),
                         options=CompensationOptions(time_law=Static()))
    line = paths[1].read_text().splitlines().index("    WaitTime nPause;") + 1
    assert f"{paths[1]}:{line}:5: WaitTime: nPause has no value known" in report.text()
    reached = _reached(chain, table, out, [tmp_path / "cell_comp.parts.mod", paths[2]])
    assert np.max(np.linalg.norm(reached[:, :3, 3] - np.stack(want)[:, :3, 3], axis=1)) < 1e-6 + 10 * IK_POSITION_TOL
