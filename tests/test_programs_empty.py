"""Programs with no motion at all (issue 35, item 2): a gripper's or an I/O program is written back byte for byte.

A URScript that only drives a gripper's outputs, or a RAPID module that only sets signals and waits, holds nothing
to compensate; a careful tool writes it back unchanged, exits 0 and says on stderr that it found no motion. Every
output a run can write (the program, the report and its CSV, the results CSV, the plot) is written for it. A module
whose motions stand in routines its entry never calls is still refused, naming the routine (docs/programs.md).
The programs are written from the manuals' syntax (UR's "The URScript Programming Language", ABB's "RAPID
Instructions": ``set_standard_digital_out``, ``sleep``, ``textmsg``; ``SetDO``, ``WaitTime``, ``TPWrite``).
"""

from __future__ import annotations

import csv

import pytest

from thermocomp.cli.main import main

DEFORMATION = "deformations/exaggerated.csv"

#: CRLF line ends, a comment and a tab: bytes a rewrite would change.
GRIPPER_URSCRIPT = (b"def open_gripper():\r\n"
                    b"  # the gripper's valve, no motion\r\n"
                    b"  set_standard_digital_out(0, True)\r\n"
                    b"\tsleep(0.25)\r\n"
                    b"  textmsg(\"open\")\r\n"
                    b"end\r\n")
SIGNALS_RAPID = (b"MODULE Signals\n"
                 b"  VAR num nCount := 0;\n"
                 b"  PROC main()\n"
                 b"    SetDO do1, 1;   ! valve\n"
                 b"    WaitTime 0.5;\n"
                 b"    Incr nCount;\n"
                 b"    TPWrite \"done\";\n"
                 b"  ENDPROC\n"
                 b"ENDMODULE\n")


def _paths(tmp_path, name: str, data: bytes):
    program = tmp_path / name
    program.write_bytes(data)
    return program, tmp_path / f"out{program.suffix}"


@pytest.mark.parametrize(("robot", "name", "data", "form"), [
    ("ur5", "gripper.script", GRIPPER_URSCRIPT, []),
    ("irb140", "signals.mod", SIGNALS_RAPID, ["--timed"]),
    ("irb140", "signals_indexed.mod", SIGNALS_RAPID, ["--time-indexed", "50"]),
    ("ur5", "gripper_joints.script", GRIPPER_URSCRIPT, ["--program-output", "joints"]),
])
def test_a_program_without_motion_is_written_back_byte_for_byte_with_every_output(tmp_path, capsys, robot, name,
                                                                                  data, form):
    program, out = _paths(tmp_path, name, data)
    report, results, plot = tmp_path / "report.txt", tmp_path / "results.csv", tmp_path / "plot.png"
    code = main(["compensate", "--robot", robot, "--deformation", DEFORMATION, "--program", str(program),
                 "--out", str(out), "--program-report", str(report), "--results", str(results),
                 "--plot", str(plot), *form])
    err = capsys.readouterr().err
    assert code == 0, err
    assert out.read_bytes() == data
    assert "no motion found" in err and str(program) in err
    assert "Traceback" not in err
    text = report.read_text()
    assert "0 motions, 0 points" in text and "0 target text(s) changed" in text
    assert "rounding of the written numbers" not in text  # (no number written: no reach, no rounding to state)
    with open(tmp_path / "report.csv", newline="") as handle:
        rows = list(csv.reader(handle))
    assert rows[0][:3] == ["motion", "instruction", "line"] and len(rows) == 1
    with open(results, newline="") as handle:
        rows = list(csv.reader(handle))
    assert rows[0][:3] == ["minute", "target", "status"] and len(rows) == 1
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_motions_only_in_routines_the_entry_never_calls_are_still_refused(tmp_path, capsys):
    """No motion in the cycle but motions in the module: the user named the wrong entry, not a motionless program."""
    data = SIGNALS_RAPID.replace(b"ENDMODULE", b"  PROC Path_10()\n    MoveL [[500,0,400],[0,0,1,0],[0,0,0,0],"
                                 b"[9E9,9E9,9E9,9E9,9E9,9E9]], v100, fine, tool0;\n  ENDPROC\nENDMODULE")
    program, out = _paths(tmp_path, "unrun.mod", data)
    code = main(["compensate", "--robot", "irb140", "--deformation", DEFORMATION, "--program", str(program),
                 "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 1
    line = data.decode().splitlines().index("  PROC Path_10()") + 1  # (named where that routine is declared)
    assert f"{program}, line {line}, column 3: no motion to compensate was found: main runs none; Path_10 (line {line}): " \
           "1 motions, not called from main; rerun with --entry Path_10" in err
    assert not out.exists()
