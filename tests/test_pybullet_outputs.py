"""``thermocomp sim`` writes its outputs all or none, and reuses its geometry within a run."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import REPO

pb = pytest.importorskip("pybullet", reason="pybullet is a dependency of thermocomp (pip install -e .)")

from thermocomp.cli.main import main
from thermocomp.errors import InputError
from thermocomp.io.atomic import atomic_write_all as write_all
from thermocomp.simulators.pybullet import render

ZERO = REPO / "deformations" / "zero.csv"
RANDOM50 = REPO / "examples" / "targets_random50.csv"


def test_a_failing_last_write_leaves_no_earlier_output(tmp_path: Path, monkeypatch, capsys) -> None:
    """The reviewer's case: --out was written, then the picture failed, and the CSV stayed."""
    def broken(path, rgb):
        raise InputError("cannot write: disk full", path=str(path))

    monkeypatch.setattr(render, "write_png", broken)
    out, shot = tmp_path / "m.csv", tmp_path / "shot.png"
    args = ["sim", "--robot", "irb140", "--no-scene", "--deformation", str(ZERO), "--targets", str(RANDOM50),
            "--static", "--headless", "--out", str(out), "--screenshot", str(shot), "--size", "32", "32"]
    assert main(args) == 1
    assert "disk full" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_write_all_keeps_old_files_when_a_write_fails_and_replaces_them_all_on_success(tmp_path: Path) -> None:
    a, b = tmp_path / "a.csv", tmp_path / "b.png"
    a.write_text("old a")
    b.write_text("old b")

    def fail(path: Path) -> None:
        path.write_text("half")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_all([(a, lambda p: p.write_text("new a")), (b, fail)])
    assert (a.read_text(), b.read_text()) == ("old a", "old b")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.csv", "b.png"]
    seen = []
    write_all([(a, lambda p: (seen.append(p.suffix), p.write_text("new a"))),
               (b, lambda p: (seen.append(p.suffix), p.write_text("new b")))])
    assert (a.read_text(), b.read_text()) == ("new a", "new b") and seen == [".csv", ".png"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.csv", "b.png"]


def test_write_all_removes_renamed_outputs_when_a_later_rename_fails(tmp_path: Path, monkeypatch) -> None:
    import os

    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    real = os.replace

    def replace(src, dst):
        if Path(dst) == b:
            raise PermissionError(13, "Permission denied")
        return real(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(InputError, match="Permission denied") as exc:
        write_all([(a, lambda p: p.write_text("a")), (b, lambda p: p.write_text("b"))])
    assert exc.value.path == str(b)
    assert list(tmp_path.iterdir()) == []


def test_every_csv_writer_quotes_names_alike() -> None:
    import csv
    import io

    from thermocomp.io.results_csv import quote_name

    for name in ("plain", "a,b", 'say "hi"', "two\nlines"):
        assert next(csv.reader(io.StringIO(quote_name(name) + ",x\n"))) == [name, "x"]
    assert quote_name("plain") == "plain"


def test_one_sim_run_builds_the_convex_pieces_once(tmp_path: Path, monkeypatch) -> None:
    """``--collisions --screenshot`` share one work folder: each link's pieces are cut once, not per step."""
    from thermocomp.simulators.pybullet import geometry

    calls = []
    real = geometry.convex_slab_pieces
    monkeypatch.setattr(geometry, "convex_slab_pieces", lambda *a, **k: calls.append(1) or real(*a, **k))
    args = ["sim", "--robot", "irb140", "--no-scene", "--deformation", str(ZERO), "--targets", str(RANDOM50),
            "--static", "--collisions", "--screenshot", str(tmp_path / "shot.png"), "--size", "32", "32"]
    assert main(args) == 0
    assert len(calls) == 7  # base and link1 .. link6, once each
    assert (tmp_path / "shot.png").is_file()


def test_generated_meshes_are_written_whole_or_not_at_all(tmp_path: Path, monkeypatch) -> None:
    """An interrupted write leaves no file under the cached name, so a later run never reuses half a mesh."""
    import os

    from thermocomp.io.robots import load_robot
    from thermocomp.simulators.pybullet import geometry

    chain = load_robot("irb140")
    real = os.replace

    def interrupted(src, dst):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        geometry.primitive_geometry(chain, tmp_path)
    with pytest.raises(KeyboardInterrupt):
        geometry.convex_piece_geometry(geometry.builtin_geometry("irb140"), tmp_path)
    assert list(tmp_path.iterdir()) == []
    monkeypatch.setattr(os, "replace", real)
    made = geometry.convex_piece_geometry(geometry.primitive_geometry(chain, tmp_path), tmp_path)
    for content in made.links.values():
        assert Path(content.collision_mesh).read_text().startswith("o piece0")
