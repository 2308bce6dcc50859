"""Hostile uses of ``compensate --program`` left by the fourth adversarial run and found by the fifth's fuzzing, each
a sample of a class. The programs are written from the manuals' syntax (ABB "Technical reference manual - RAPID
kernel": modules, PROC, CONST robtarget, MoveL; UR "The URScript Programming Language": def, movel).
"""

from __future__ import annotations

import pytest

from thermocomp.programs import read
from thermocomp.programs.rapid import RapidOptions
from thermocomp.programs.rapid_calls import _Calls

POINT = "[[500,{y},500],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]]"


def _task(folder, n: int) -> tuple[str, tuple[str, ...]]:
    """A program whose main calls one PROC in each of ``n`` modules; each module also holds a PROC no cycle runs
    that moves to the module's CONST target (a use kept out of the declaration's uses)."""
    calls = "".join(f"  R{k};\n" for k in range(n))
    (folder / "p.mod").write_text(f"MODULE P\nCONST robtarget p0:={POINT.format(y=0)};\nPROC main()\n"
                                  f"  MoveL p0,v100,z1,tool0;\n{calls}ENDPROC\nENDMODULE\n")
    for k in range(n):
        (folder / f"m{k}.mod").write_text(f"MODULE M{k}\nCONST robtarget q{k}:={POINT.format(y=k)};\nPROC R{k}()\n"
                                          f"  MoveL q{k},v100,z1,tool0;\nENDPROC\nPROC U{k}()\n"
                                          f"  MoveL q{k},v100,z1,tool0;\nENDPROC\nENDMODULE\n")
    return str(folder / "p.mod"), tuple(str(folder / f"m{k}.mod") for k in range(n))


def test_the_uses_of_a_task_of_many_modules_are_found_in_time_linear_in_their_number(tmp_path, monkeypatch):
    """The routines a cycle runs were found again for each module's uses (``_unrun_spans``, once a module, each
    walking every routine of the task): 800 --module files spent 1.5 s of CPU there. They are found once a task."""
    counts = {}
    real = _Calls.summary
    for n in (10, 40):
        calls = []
        monkeypatch.setattr(_Calls, "summary", lambda self, *a, _c=calls, **k: _c.append(1) or real(self, *a, **k))
        folder = tmp_path / str(n)
        folder.mkdir()
        program, modules = _task(folder, n)
        prog = read.read_program(program, rapid=RapidOptions(modules=modules))
        assert len(prog.columns.run.text) == n + 1
        counts[n] = len(calls)
    assert counts[40] < 6 * counts[10], counts  # (linear: 4 times; once a module each walking all: 16 times)
