"""Every input has a stated size bound and a clean refusal past it (issue 28).

A 10-million-row recording and 2 million tracker rows ran out of memory with a traceback. The
readers stop at their bound, naming the file, the line past it and the bound; nothing is written.
The bounds themselves are large (a million samples); the tests lower them to keep the files small,
and check that the stated numbers are the ones in force.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from thermocomp.cli.main import EXIT_INPUT, main
from thermocomp.errors import InputError
from thermocomp.io import measurements_csv, recording_csv


def test_the_stated_bounds_are_in_force() -> None:
    assert recording_csv.MAX_SAMPLES == 1_000_000
    assert measurements_csv.MAX_MEASUREMENTS == 100_000


def _recording(path: Path, samples: int) -> Path:
    header = ",".join(recording_csv.recording_columns(6))
    rows = [",".join([f"{0.001 * k:.3f}", *["0.1"] * 6, *["1.0"] * 6]) for k in range(samples)]
    path.write_text(header + "\n" + "\n".join(rows) + "\n")
    return path


def test_a_recording_past_its_bound_is_refused_at_the_first_line_past_it(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(recording_csv, "MAX_SAMPLES", 50)
    assert recording_csv.read_recording_csv(_recording(tmp_path / "ok.csv", 50)).n_samples == 50
    big = _recording(tmp_path / "big.csv", 51)
    with pytest.raises(InputError, match=r"expected at most 50 samples .*downsample") as exc:
        recording_csv.read_recording_csv(big)
    assert exc.value.path == str(big) and exc.value.row == 52  # the header, then 50 samples, then the one past


def test_identify_refuses_a_recording_past_its_bound_without_a_traceback(tmp_path: Path, monkeypatch, capsys) -> None:
    from dynamics_truth import cad_and_truth

    monkeypatch.setattr(recording_csv, "MAX_SAMPLES", 50)
    cad, _ = cad_and_truth("gofa", tmp_path)
    big = _recording(tmp_path / "big.csv", 51)
    before = sorted(p.name for p in tmp_path.iterdir())
    status = main(["identify", "--robot", str(cad), "--recording", str(big), "--report", str(tmp_path / "r.txt")])
    err = capsys.readouterr().err
    assert status == EXIT_INPUT and "big.csv, line 52" in err and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_tracker_measurements_past_their_bound_are_refused(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setattr(measurements_csv, "MAX_MEASUREMENTS", 20)
    rows = [f"{k},0,10,-5,0,30,0,612.31,0.02,700.55" for k in range(21)]
    big = tmp_path / "m.csv"
    big.write_text("time_min,q1_deg,q2_deg,q3_deg,q4_deg,q5_deg,q6_deg,x_mm,y_mm,z_mm\n" + "\n".join(rows) + "\n")
    with pytest.raises(InputError, match="expected at most 20 measurements") as exc:
        measurements_csv.read_measurements_csv(big)
    assert exc.value.row == 22
    status = main(["calibrate", "--robot", "irb140", "--measurements", str(big), "--out", str(tmp_path / "t.csv"),
                   "--report", str(tmp_path / "r.txt")])
    err = capsys.readouterr().err
    assert status == EXIT_INPUT and "m.csv, line 22" in err and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.csv"]


@pytest.mark.parametrize("kind", ["device", "silent fifo", "oversized", "not utf-8"])
def test_addon_run_reads_its_request_with_the_checks_of_every_input(kind, tmp_path: Path, monkeypatch, capsys) -> None:
    """`coppeliasim addon-run` read its request outside the job's input checks: /dev/zero gave MemoryError and a FIFO
    with no writer hung (issue 28)."""
    import os

    from thermocomp.io import files
    from thermocomp.simulators.coppeliasim.addon import ADDON_REQUEST_FORMAT, MAX_REQUEST_BYTES

    request = tmp_path / "request.txt"
    if kind == "device":
        if not Path("/dev/zero").exists():
            pytest.skip("needs /dev/zero")
        request, words = Path("/dev/zero"), "got a device"
    elif kind == "silent fifo":
        monkeypatch.setattr(files, "FIFO_WAIT_S", 0.5)
        os.mkfifo(request)
        words = "a FIFO nothing was written to in 0.5 s"
    elif kind == "oversized":
        request.write_text(f"{ADDON_REQUEST_FORMAT}\ncoppeliasim\nshow\n" + "#" * MAX_REQUEST_BYTES)
        words = "expected an add-on request of at most 65,536 bytes"
    else:
        request.write_bytes(f"{ADDON_REQUEST_FORMAT}\ncoppeliasim\nshow\n--robot-path\n/r\xe9\n".encode("latin-1"))
        words = "expected UTF-8 text"
    status = main(["coppeliasim", "addon-run", str(request)])
    err = capsys.readouterr().err
    assert status == EXIT_INPUT and words in err and "Traceback" not in err
    assert str(request) in err


def test_running_out_of_memory_is_a_message_and_exit_1(tmp_path: Path, monkeypatch, capsys) -> None:
    """Past the stated bounds, a MemoryError (a 4 GB mesh, 10 million rows: issue 28) is one line, exit 1, and the
    job's temporaries are removed."""
    from thermocomp.io import results_csv
    from thermocomp.io.job import TEMPORARY_PREFIX

    def exhausted(*args, **kwargs):  # the results' rows, formatted while the output's temporary is open
        raise MemoryError

    monkeypatch.setattr(results_csv, "chunk_bytes", exhausted)
    out = tmp_path / "o.csv"
    repo = Path(__file__).resolve().parents[1]
    status = main(["compensate", "--deformation", str(repo / "deformations" / "exaggerated.csv"), "--targets",
                   str(repo / "examples" / "targets_random50.csv"), "--static", "--out", str(out)])
    err = capsys.readouterr().err
    assert status == EXIT_INPUT and "out of memory" in err and "Traceback" not in err
    assert not out.exists() and not [p for p in tmp_path.iterdir() if p.name.startswith(TEMPORARY_PREFIX)]
