"""Atomic writing (``thermocomp.io.atomic``): completely or not at all, and an unwritable destination is an input error."""

from __future__ import annotations

import pytest

from thermocomp.errors import InputError
from thermocomp.io.atomic import atomic_open, atomic_write_bytes, atomic_write_text, check_destination


def leftovers(folder) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_writes_and_replaces(tmp_path):
    path = tmp_path / "a.txt"
    atomic_write_text(path, "one\n")
    atomic_write_text(path, "two\n")
    assert path.read_text() == "two\n"
    atomic_write_bytes(tmp_path / "b.bin", b"\x00\x01")
    assert (tmp_path / "b.bin").read_bytes() == b"\x00\x01"
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("write", [lambda p: atomic_write_text(p, "x"), lambda p: atomic_write_bytes(p, b"x")])
def test_a_directory_as_destination_is_an_input_error(tmp_path, write):
    target = tmp_path / "out"
    target.mkdir()
    (target / "keep.txt").write_text("kept")
    with pytest.raises(InputError, match="directory") as err:
        write(target)
    assert err.value.path == str(target)
    assert (target / "keep.txt").read_text() == "kept" and leftovers(tmp_path) == []
    with pytest.raises(InputError, match="directory"):
        check_destination(target)


def test_a_missing_folder_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="folder does not exist") as err:
        atomic_write_text(tmp_path / "no" / "a.txt", "x")
    assert err.value.path == str(tmp_path / "no" / "a.txt")


def test_a_failing_rename_is_an_input_error_naming_the_path(tmp_path):
    """A directory that appears at the destination while the file is written makes os.replace fail
    (IsADirectoryError): reported as an input error with the path, the temporary file removed."""
    target = tmp_path / "out.csv"
    with pytest.raises(InputError) as err:
        with atomic_open(target) as handle:
            handle.write("a,b\n")
            target.mkdir()
    assert err.value.path == str(target) and "cannot write" in str(err.value)
    assert isinstance(err.value.__cause__, OSError)
    assert target.is_dir() and leftovers(tmp_path) == []


def test_an_error_inside_the_block_passes_unchanged_and_keeps_the_old_file(tmp_path):
    target = tmp_path / "out.csv"
    target.write_text("old\n")
    with pytest.raises(ZeroDivisionError):
        with atomic_open(target) as handle:
            handle.write("new\n")
            _ = 1 / 0
    assert target.read_text() == "old\n" and leftovers(tmp_path) == []


def test_a_bare_file_name_is_written_in_the_working_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert check_destination("bare.txt").parent.is_dir()  # Path("bare.txt").parent is Path(".")
    atomic_write_text("bare.txt", "text")
    atomic_write_bytes("bare.bin", b"\x00\x01")
    assert (tmp_path / "bare.txt").read_text() == "text" and (tmp_path / "bare.bin").read_bytes() == b"\x00\x01"
    assert leftovers(tmp_path) == []
