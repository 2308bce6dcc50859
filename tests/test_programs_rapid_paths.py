"""Paths through RAPID constructs not resolved before running (``IF``/``TEST``/``WHILE`` on run-time data): their
joins are work the statement bound counts, and what they leave changed is marked in the order the file names it.

Programs written from ABB's "RAPID Instructions, Functions and Data types" syntax.
"""

from __future__ import annotations

import pytest

import thermocomp.programs.rapid_flow as rapid_flow
from thermocomp.errors import InputError
from thermocomp.programs.rapid import rapid_program_from_text

_ROBTARGET = "[[{x},{y},{z}],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]]"


def _state_machine(cases: int, passes: int) -> str:
    """A ``TEST`` on a run-time state with ``cases`` cases, each giving its own target a value and moving to it,
    inside a ``FOR`` of ``passes`` passes: every pass joins ``cases`` paths of ``cases`` data each."""
    out = ["MODULE M", "  VAR num state := 0;"]
    out += [f"  VAR robtarget t{k} := {_ROBTARGET.format(x=400 + k, y=0, z=400)};" for k in range(cases)]
    out += ["  PROC main()", f"    FOR i FROM 1 TO {passes} DO", "      state := DInput(di1);", "      TEST state"]
    for k in range(cases):
        out += [f"      CASE {k}:", f"        t{k}.trans.x := {500 + k};", f"        MoveL t{k}, v100, fine, tool0;"]
    out += ["      ENDTEST", "    ENDFOR", "  ENDPROC", "ENDMODULE", ""]
    return "\n".join(out)


def test_the_joins_of_a_test_of_many_cases_in_a_for_count_against_the_statement_bound(monkeypatch):
    """60 cases, 10 passes: some 1,200 statements run, but 10 joins of 61 paths of 60 data each (36,600 data
    joined, DATA_PER_STATEMENT a statement): past a bound of 2,000 the module is refused at the TEST, naming the
    bound; within the default bound it is read."""
    text = _state_machine(cases=60, passes=10)
    read = rapid_program_from_text(text, "cases.mod")
    assert read.extra["statements_run"] > 60 * 61 * 10 // rapid_flow.DATA_PER_STATEMENT
    monkeypatch.setattr(rapid_flow, "MAX_STATEMENTS_RUN", 2_000)
    monkeypatch.setattr(rapid_flow, "STATEMENTS_PER_LINE", 0)
    with pytest.raises(InputError) as refusal:
        rapid_program_from_text(text, "cases.mod")
    test_line = text.splitlines().index("      TEST state") + 1
    assert refusal.value.row == test_line and "more than 2,000 statements" in str(refusal.value)
    assert "paths through its conditions joined" in str(refusal.value)


def test_what_a_loop_of_run_time_count_changes_is_refused_in_the_order_the_loop_names_it():
    """A cycle reads eight data, then a WHILE on an input assigns them (in the order z, y, ..., s): each read is
    refused, the messages in the order the loop names the data (not a set's, which follows the hash seed)."""
    names = ["z", "y", "x", "w", "v", "u", "t", "s"]
    text = ("MODULE M\n"
            f"  CONST robtarget p10 := {_ROBTARGET.format(x=500, y=0, z=400)};\n"
            + "".join(f"  VAR num {n} := 0;\n" for n in names)
            + "  PROC main()\n    MoveL Offs(p10, s + t + u, v + w + x, y + z), v100, fine, tool0;\n"
            "    WHILE DInput(di1) = 1 DO\n" + "".join(f"      {n} := {n} + 1;\n" for n in names)
            + "    ENDWHILE\n  ENDPROC\nENDMODULE\n")
    prog = rapid_program_from_text(text, "order.mod")
    assert [f.message.split()[0] for f in prog.unsupported] == names
    assert all(f.line == 12 and "before line 13" in f.message for f in prog.unsupported)
