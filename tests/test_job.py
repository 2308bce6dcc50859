"""The job layer (thermocomp.io.job): outputs checked before any work, committed all or none."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from thermocomp.errors import InputError
from thermocomp.io.job import TEMPORARY_PREFIX, Job


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def leftovers(folder: Path) -> list[str]:
    return [p.name for p in folder.iterdir() if p.name.startswith(TEMPORARY_PREFIX)]


def test_an_output_that_is_an_input_is_refused_by_path_symlink_and_hard_link(tmp_path: Path) -> None:
    targets = tmp_path / "t.csv"
    targets.write_text("x\n")
    (tmp_path / "link.csv").symlink_to(targets)
    os.link(targets, tmp_path / "hard.csv")
    for name in ("t.csv", "link.csv", "hard.csv", "./t.csv"):
        job = Job()
        job.input(targets, "--targets")
        job.output(tmp_path / name, "--plot")
        words = "cannot write through a symbolic link" if name == "link.csv" else r"would overwrite the input .*t\.csv"
        with pytest.raises(InputError, match=rf"--plot .*{words}"):
            job.check()
    assert targets.read_text() == "x\n"


def test_every_conflict_is_named_with_its_option(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "dir").mkdir()
    job = Job()
    job.input(tmp_path / "in.csv", "--targets")
    job.output(tmp_path / "o.csv", "--out")
    job.output(tmp_path / "o.csv", "--plot")
    job.output(tmp_path / "fifo", "--collisions-out")
    job.output(tmp_path / "dir", "--screenshot")
    job.output(tmp_path / "nodir" / "x.csv", "--report")
    job.output(tmp_path / "in.csv", "--urdf")
    job.output(tmp_path / ("n" * 300), "--long")
    with pytest.raises(InputError) as exc:
        job.check()
    text = str(exc.value)
    assert text.startswith("6 outputs cannot be written")
    for expected in ("--plot", "the same file as --out", "--collisions-out", "a FIFO", "--screenshot", "a directory",
                     "--report", "does not exist", "--urdf", "would overwrite the input", "--long", "too long"):
        assert expected in text
    assert not (tmp_path / "o.csv").exists()


def test_a_250_character_name_is_a_valid_output(tmp_path: Path) -> None:
    name = "o" * 246 + ".csv"
    with Job() as job:
        out = job.output(tmp_path / name, "--out")
        job.check()
        job.write_text(out, "a\n")
        job.commit()
    assert (tmp_path / name).read_text() == "a\n" and leftovers(tmp_path) == []


def test_nothing_is_written_until_the_commit_and_an_error_leaves_nothing(tmp_path: Path) -> None:
    (tmp_path / "o.csv").write_text("earlier\n")
    with pytest.raises(ZeroDivisionError):
        with Job() as job:
            out = job.output(tmp_path / "o.csv", "--out")
            plot = job.output(tmp_path / "p.png", "--plot")
            job.check()
            job.write_text(out, "new\n")
            assert (tmp_path / "o.csv").read_text() == "earlier\n"
            job.write_bytes(plot, b"png")
            _ = 1 / 0
    assert snapshot(tmp_path) == {"o.csv": b"earlier\n"} and leftovers(tmp_path) == []


def test_an_output_written_twice_holds_the_second_content(tmp_path: Path) -> None:
    """The first write opens the new, empty temporary without truncating it; a second write replaces it whole,
    text or bytes, shorter or not."""
    with Job() as job:
        out = job.output(tmp_path / "o.csv", "--out")
        job.check()
        job.write_text(out, "a longer first content\n")
        job.write_bytes(out, b"second\n")
        with job.open(out) as handle:
            handle.write("third\r\n")
        job.commit()
    assert snapshot(tmp_path) == {"o.csv": b"third\r\n"} and leftovers(tmp_path) == []


def test_a_failed_rename_restores_every_earlier_output(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("m.csv", "c.csv"):
        (tmp_path / name).write_text(f"old {name}\n")
    real_replace = os.replace

    def refuse_c(src, dst):  # as an immutable c.csv refuses
        if Path(dst).name == "c.csv":
            raise PermissionError(1, "Operation not permitted")
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", refuse_c)
    with pytest.raises(InputError, match=r"--collisions-out .*c\.csv.*Operation not permitted"):
        with Job() as job:
            m = job.output(tmp_path / "m.csv", "--out")
            c = job.output(tmp_path / "c.csv", "--collisions-out")
            new = job.output(tmp_path / "new.csv", "--other")
            job.check()
            job.write_text(new, "n\n")
            job.write_text(m, "new m\n")
            job.write_text(c, "new c\n")
            job.commit()
    monkeypatch.undo()
    assert snapshot(tmp_path) == {"c.csv": b"old c.csv\n", "m.csv": b"old m.csv\n"}
    assert leftovers(tmp_path) == []


def test_a_full_disk_is_a_located_error_and_leaves_nothing(tmp_path: Path) -> None:
    def full(path: Path) -> None:
        path.write_text("part")
        raise OSError(28, "No space left on device")

    with pytest.raises(InputError, match=r"--out .*o\.csv: cannot write: No space left on device"):
        with Job() as job:
            out = job.output(tmp_path / "o.csv", "--out")
            job.write_with(out, full)
    assert list(tmp_path.iterdir()) == []


def test_commit_checks_inputs_declared_during_the_work(tmp_path: Path) -> None:
    mesh = tmp_path / "mesh.stl"
    mesh.write_bytes(b"solid")
    with pytest.raises(InputError, match="would overwrite the input"):
        with Job() as job:
            out = job.output(mesh, "--out")
            job.check()
            job.input(mesh, "scene mesh")
            job.write_bytes(out, b"x")
            job.commit()
    assert mesh.read_bytes() == b"solid" and leftovers(tmp_path) == []


@pytest.mark.parametrize("target", ["existing", "missing"])
def test_an_output_that_is_a_symbolic_link_is_refused_and_nothing_is_written_through_it(tmp_path: Path, target) -> None:
    # --out link.csv with link.csv -> victim.csv replaced victim.csv; a dangling link made a file in another folder
    # (issue 28): an output that is a link is refused, naming its option, and its target is untouched
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    victim = elsewhere / "victim.csv"
    if target == "existing":
        victim.write_text("precious\n")
    (tmp_path / "link.csv").symlink_to(victim)
    with Job() as job:
        job.output(tmp_path / "link.csv", "--out")
        with pytest.raises(InputError, match=r"--out .*link\.csv: cannot write through a symbolic link"):
            job.check()
    assert (tmp_path / "link.csv").is_symlink()
    assert sorted(p.name for p in elsewhere.iterdir()) == (["victim.csv"] if target == "existing" else [])
    if target == "existing":
        assert victim.read_text() == "precious\n"
    assert leftovers(tmp_path) == [] and leftovers(elsewhere) == []


def test_a_log_that_is_a_symbolic_link_is_refused_and_never_written(tmp_path: Path) -> None:
    # the --report log of a coppeliasim command is rewritten at every line: not through a link either
    victim = tmp_path / "victim.log"
    victim.write_text("precious\n")
    (tmp_path / "run.log").symlink_to(victim)
    with Job() as job:
        job.log(tmp_path / "run.log", "--report")
        job.echo("a line")
        with pytest.raises(InputError, match=r"--report .*run\.log: cannot write through a symbolic link"):
            job.check()
        job.echo("another line")
    assert victim.read_text() == "precious\n" and (tmp_path / "run.log").is_symlink()


def test_a_link_made_after_the_check_is_replaced_as_a_link_not_written_through(tmp_path: Path) -> None:
    # a link placed at the output's name while the work runs: the commit renames onto the name, never the target
    victim = tmp_path / "victim.csv"
    victim.write_text("precious\n")
    with Job() as job:
        out = job.output(tmp_path / "o.csv", "--out")
        job.check()
        job.write_text(out, "new\n")
        (tmp_path / "o.csv").symlink_to(victim)
        with pytest.raises(InputError, match="cannot write through a symbolic link"):
            job.commit()
    assert victim.read_text() == "precious\n" and leftovers(tmp_path) == []


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_a_device_as_an_input_is_refused_and_a_fifo_is_not(tmp_path: Path) -> None:
    # compensate --targets /dev/zero read one endless line until the kernel killed the run (issue 9 follow-up
    # adversarial run); a FIFO (bash's <(...)) ends when its writer does and stays allowed
    os.mkfifo(tmp_path / "pipe.csv")
    with Job() as job:
        job.input("/dev/zero", "--targets")
        job.input(tmp_path / "pipe.csv", "--deformation")
        job.output(tmp_path / "o.csv", "--out")
        with pytest.raises(InputError) as info:
            job.check()
    assert str(info.value) == "--targets /dev/zero: expected a file to read, got a device"


def test_a_termination_signal_whose_interrupt_was_swallowed_still_stops_the_commit(tmp_path: Path) -> None:
    """SIGTERM lands inside code that eats the KeyboardInterrupt (a __del__, an import): the work runs on,
    but the commit refuses, the earlier output stays and no temporary is left."""
    import signal

    from thermocomp.io.job import interrupt_on_termination

    out = tmp_path / "o.csv"
    out.write_text("earlier\n")
    with interrupt_on_termination():
        with pytest.raises(KeyboardInterrupt, match="SIGTERM"):
            with Job() as job:
                target = job.output(out, "--out")
                job.check()
                job.write_text(target, "new\n")
                try:
                    os.kill(os.getpid(), signal.SIGTERM)
                except KeyboardInterrupt:
                    pass  # swallowed, as an exception raised inside a __del__ would be
                job.commit()
    assert out.read_text() == "earlier\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["o.csv"]


@pytest.mark.parametrize("signame", ["SIGTERM", "SIGINT"])
def test_a_signal_lost_inside_a_callback_prints_no_traceback_and_stops_the_commit(tmp_path: Path, capfd, monkeypatch,
                                                                                   signame: str) -> None:
    """The signal lands inside a __del__ (as inside numba's compiler callback on a first run): Python can only
    report the KeyboardInterrupt as "Exception ignored"; it is recorded instead, silently, and the commit refuses."""
    import gc
    import signal

    from thermocomp.io.job import interrupt_on_termination

    class Finalised:
        def __del__(self) -> None:
            os.kill(os.getpid(), getattr(signal, signame))
            for _ in range(1000):  # the handler runs at the next check of the interpreter, still in here
                pass

    import sys

    reported = []  # what Python would print as "Exception ignored in ..." (pytest's own hook turns it into a warning)
    monkeypatch.setattr(sys, "unraisablehook", reported.append)
    out = tmp_path / "o.csv"
    out.write_text("earlier\n")
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a shell (pytest may differ)
    try:
        with interrupt_on_termination():
            with pytest.raises(KeyboardInterrupt):
                with Job() as job:
                    target = job.output(out, "--out")
                    job.check()
                    job.write_text(target, "new\n")
                    Finalised()  # dropped at once: __del__ runs, its KeyboardInterrupt cannot propagate
                    gc.collect()
                    job.commit()
    finally:
        signal.signal(signal.SIGINT, previous)
    err = capfd.readouterr().err
    assert reported == [] and "Exception ignored" not in err and "Traceback" not in err
    assert out.read_text() == "earlier\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["o.csv"]


def test_what_a_signal_leaves_half_built_fails_silently(tmp_path: Path, monkeypatch) -> None:
    """A signal inside a C library's object construction (llvmlite compiling, on a first run) leaves an object
    whose __del__ fails with any error: after a recorded signal that is noise, not an "Exception ignored"
    traceback, inside the block and after it; and the console entry point keeps it quiet at exit too."""
    import gc
    import signal
    import subprocess
    import sys

    from thermocomp.io.job import interrupt_on_termination

    class HalfBuilt:
        def __del__(self) -> None:
            raise AttributeError("'PassBuilder' object has no attribute '_as_parameter_'")

    reported = []
    monkeypatch.setattr(sys, "unraisablehook", reported.append)
    with interrupt_on_termination():
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGTERM)
            for _ in range(1000):  # the handler runs at the interpreter's next check
                pass
        HalfBuilt()
        gc.collect()
    assert reported == []
    HalfBuilt()  # after the block too: the run is over, and the CI saw one printed after the "interrupted" line
    gc.collect()
    assert reported == []
    monkeypatch.setattr(sys, "unraisablehook", reported.append)
    with interrupt_on_termination():  # a block without a signal leaves the hook as it found it
        pass
    HalfBuilt()
    gc.collect()
    assert len(reported) == 1
    code = ("import importlib\nm = importlib.import_module('thermocomp.cli.main')\n"
            "class HalfBuilt:\n    def __del__(self):\n        raise AttributeError('half built')\n"
            "keep = HalfBuilt()\nm.main = lambda: m.EXIT_INTERRUPTED\nm.run()\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 130 and "Traceback" not in proc.stderr and "Exception ignored" not in proc.stderr


def test_temporaries_handed_over_are_committed_or_removed_with_the_adopting_job(tmp_path: Path) -> None:
    """A batch's program runs in a job of its own and hands its written temporaries to the batch's job."""
    for commit in (False, True):
        folder = tmp_path / f"commit_{commit}"
        folder.mkdir()
        with Job() as batch:
            batch.output(folder / "a.mod", "--out-dir")
            batch.check()
            with Job() as one:
                one.output(folder / "a.mod", "--out")
                one.check()
                one.write_text(folder / "a.mod", "compensated\n")
                staged = one.hand_over()
            assert len(leftovers(folder)) == 1  # leaving the program's job kept it
            batch.adopt(staged)
            if commit:
                assert batch.commit() == [folder / "a.mod"]
        assert leftovers(folder) == []
        assert snapshot(folder) == ({"a.mod": b"compensated\n"} if commit else {})


def test_a_job_adopts_only_its_own_outputs(tmp_path: Path) -> None:
    with Job() as one:
        one.output(tmp_path / "x.mod", "--out")
        one.check()
        one.write_text(tmp_path / "x.mod", "x\n")
        staged = one.hand_over()
    with Job() as batch, pytest.raises(ValueError, match="was not declared"):
        batch.output(tmp_path / "y.mod", "--out-dir")
        batch.adopt(staged)
    assert leftovers(tmp_path) == [] and snapshot(tmp_path) == {}  # removed with the job that refused it
