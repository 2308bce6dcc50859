"""Many programs at once: ``compensate --program a.mod b.mod ... --out-dir DIR [--jobs N]`` and
:func:`thermocomp.app.compensate.compensate_programs`.

Each program is compensated as alone (the single-program run is the oracle, byte for byte), written all or
none under its own name; the exit status is the worst program's; outputs never land on an input or on each
other; an interrupted batch leaves nothing.
"""

from __future__ import annotations

import pytest
from helpers import REPO

from thermocomp.app.jobs import CompensationJob
from thermocomp.cli.main import EXIT_FAILED_ROWS, EXIT_INPUT, EXIT_OK, main
from thermocomp.io.job import TEMPORARY_PREFIX

EXAGGERATED = REPO / "deformations" / "exaggerated.csv"
RAPID = REPO / "examples" / "rapid_program.mod"
#: A target 3 m away: beyond the IRB140's reach, so the program's points cannot all be compensated.
UNREACHABLE = RAPID.read_bytes().replace(b"pEnd:=[[80,0,0]", b"pEnd:=[[3000,0,0]")
#: The motions to pEnd or from it: the points that fail in UNREACHABLE.
N_FAR = RAPID.read_text().count("pEnd,")  # MoveL pEnd, and Offs(pEnd, ...)
#: A motion to a target declared nowhere: refused with its line.
UNDECLARED = b"MODULE Bad\n  PROC main()\n    MoveL pX, v100, fine, tool0;\n  ENDPROC\nENDMODULE\n"


def _compensate(args, capsys):
    code = main(["compensate", "--robot", "irb140", "--deformation", str(EXAGGERATED), *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _programs(folder, **files):
    """``folder`` holding each ``name=bytes`` (bytes: a program's line ends are its own)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (folder / name).write_bytes(data)
    return folder


def _left(folder):
    return sorted(p.name for p in folder.iterdir())


@pytest.fixture(scope="module")
def single(tmp_path_factory):
    """The example compensated alone (``--out``): what each program of a batch must be, byte for byte."""
    out = tmp_path_factory.mktemp("single") / "alone.mod"
    assert main(["compensate", "--robot", "irb140", "--deformation", str(EXAGGERATED), "--program", str(RAPID),
                 "--out", str(out)]) == EXIT_OK
    return out.read_bytes()


@pytest.mark.slow
def test_parallel_batch_writes_each_program_as_alone_and_exits_with_the_worst(tmp_path, capsys, single):
    src = _programs(tmp_path / "in", **{"a.mod": RAPID.read_bytes(), "b.mod": RAPID.read_bytes(),
                                        "far.mod": UNREACHABLE, "bad.mod": UNDECLARED})
    out = tmp_path / "out"
    out.mkdir()
    code, stdout, stderr = _compensate(["--program", str(src), "--out-dir", str(out), "--jobs", "2"], capsys)
    assert code == EXIT_INPUT  # refused (bad.mod) is worse than failed points (far.mod)
    assert _left(out) == ["a.mod", "b.mod"]  # all or none per program
    assert (out / "a.mod").read_bytes() == single and (out / "b.mod").read_bytes() == single
    lines = stdout.splitlines()
    assert lines[0].split() == ["program", "motions", "compensated", "findings", "status"]
    rows = {line.split()[0]: line.split()[1:] for line in lines[1:5]}
    assert rows[str(src / "a.mod")] == ["8", "9", "0", "ok"]
    assert rows[str(src / "bad.mod")] == ["-", "-", "-", "refused"]
    assert rows[str(src / "far.mod")][-3:] == ["failed:", str(N_FAR), "point(s)"]
    assert "1 refused" in lines[-1] and "2 written" in lines[-1]
    assert "bad.mod, line 3, column 11" in stderr and "pX" in stderr


@pytest.mark.slow
def test_failed_points_exit_2_and_the_library_returns_a_report_per_program(tmp_path, capsys, single):
    from thermocomp.app.compensate import compensate_programs

    src = _programs(tmp_path / "in", **{"a.mod": RAPID.read_bytes(), "far.mod": UNREACHABLE})
    out = tmp_path / "out"
    out.mkdir()
    code, _, _ = _compensate(["--program", str(src / "far.mod"), str(src / "a.mod"), "--out-dir", str(out)], capsys)
    assert code == EXIT_FAILED_ROWS and _left(out) == ["a.mod"]
    (out / "a.mod").unlink()
    outcomes = compensate_programs(CompensationJob("irb140", EXAGGERATED, program=src / "a.mod"),
                                   [src / "a.mod", src / "far.mod"], out)
    assert [o.status for o in outcomes] == ["ok", "failed"]
    assert outcomes[0].report.n_motions == 8 and outcomes[0].report.written == [out / "a.mod"]
    assert len(outcomes[1].report.failed) == N_FAR and "could not be compensated" in outcomes[1].message
    assert (out / "a.mod").read_bytes() == single and _left(out) == ["a.mod"]


def test_two_programs_of_one_name_are_refused_before_any_work(tmp_path, capsys):
    one = _programs(tmp_path / "one", **{"p.mod": UNDECLARED})
    two = _programs(tmp_path / "two", **{"p.mod": UNDECLARED})
    out = tmp_path / "out"
    out.mkdir()
    code, _, stderr = _compensate(["--program", str(one / "p.mod"), str(two / "p.mod"), "--out-dir", str(out)],
                                  capsys)
    assert code == EXIT_INPUT and _left(out) == []
    assert f"{one / 'p.mod'} and {two / 'p.mod'} would both be written as {out / 'p.mod'}" in stderr


def test_an_output_folder_holding_the_inputs_is_refused(tmp_path, capsys):
    src = _programs(tmp_path / "in", **{"a.mod": UNDECLARED, "b.mod": UNDECLARED})
    code, _, stderr = _compensate(["--program", str(src), "--out-dir", str(src)], capsys)
    assert code == EXIT_INPUT
    assert "2 outputs cannot be written" in stderr and "would overwrite the input" in stderr
    assert _left(src) == ["a.mod", "b.mod"] and (src / "a.mod").read_bytes() == UNDECLARED


@pytest.mark.parametrize("args, message", [
    (["--out", "{out}/x.mod", "--jobs", "2"], "--jobs serves --out-dir only"),
    (["--out-dir", "{out}/missing"], "--out-dir: expected an existing folder"),
    (["--out-dir", "{out}", "--program-report", "{out}/r.txt"], "--program-report cannot be combined with --out-dir"),
])
def test_bad_batch_options_exit_1_naming_the_option(tmp_path, capsys, args, message):
    src = _programs(tmp_path / "in", **{"a.mod": UNDECLARED, "b.mod": UNDECLARED})
    out = tmp_path / "out"
    out.mkdir()
    code, _, stderr = _compensate(["--program", str(src / "a.mod"), *[a.format(out=out) for a in args]], capsys)
    assert code == EXIT_INPUT and message in stderr
    assert _left(out) == []


def test_a_folder_without_programs_is_refused(tmp_path, capsys):
    src = _programs(tmp_path / "in", **{"notes.txt": b"no program here"})
    out = tmp_path / "out"
    out.mkdir()
    code, _, stderr = _compensate(["--program", str(src), "--out-dir", str(out)], capsys)
    assert code == EXIT_INPUT and "expected robot programs" in stderr and str(src) in stderr


@pytest.mark.slow
def test_an_interrupted_batch_leaves_nothing(tmp_path, monkeypatch):
    """The first program is done (its temporary staged) when the second is interrupted: nothing is written."""
    import thermocomp.app.compensate as runs
    import thermocomp.app.program as program_job  # (the batch imports compensate_program from it per program)

    src = _programs(tmp_path / "in", **{"a.mod": RAPID.read_bytes(), "b.mod": RAPID.read_bytes()})
    out = tmp_path / "out"
    out.mkdir()
    real = program_job.compensate_program
    calls = []

    def interrupted_second(*args, **kwargs):
        calls.append(args[0].program)
        if len(calls) == 2:
            assert any(p.name.startswith(TEMPORARY_PREFIX) for p in out.iterdir())  # a.mod staged, not committed
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(program_job, "compensate_program", interrupted_second)
    with pytest.raises(KeyboardInterrupt):
        runs.compensate_programs(CompensationJob("irb140", EXAGGERATED, program=src), [src], out)
    assert len(calls) == 2 and _left(out) == []


def test_a_program_given_twice_is_compensated_once(tmp_path):
    from thermocomp.app.compensate import compensate_programs

    src = _programs(tmp_path / "in", **{"bad.mod": UNDECLARED})
    out = tmp_path / "out"
    out.mkdir()
    outcomes = compensate_programs(CompensationJob("irb140", EXAGGERATED, program=src),
                                   [src / "bad.mod", src, str(src / "bad.mod")], out)
    assert [o.status for o in outcomes] == ["refused"] and outcomes[0].report is None
    assert "pX" in outcomes[0].message and _left(out) == []
