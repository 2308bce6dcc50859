"""``thermocomp coppeliasim ...`` through the real entry point ``main(argv)``, against the fake CoppeliaSim."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from coppeliasim_fake.fixtures import fake_irb140  # noqa: F401  (fixture)

from thermocomp.cli.common import EXIT_INPUT, EXIT_OK
from thermocomp.cli.coppeliasim import ACTIONS
from thermocomp.cli.main import main
from thermocomp.simulators.coppeliasim import addon_source

REPO = Path(__file__).resolve().parents[1]
EXAGGERATED = str(REPO / "deformations" / "exaggerated.csv")
TARGETS = str(REPO / "examples" / "targets_random50.csv")


def scene_args(server, *more: str) -> list[str]:
    return [*more, "--host", "127.0.0.1", "--port", str(server.port), "--timeout-s", "2",
            "--robot-path", "/IRB140", "--tip", "/IRB140/tip"]


def test_convention_prints_the_table_and_the_difference(capsys, tmp_path):
    out = tmp_path / "authors.csv"
    assert main(["coppeliasim", "convention", "--deformation", EXAGGERATED, "--configurations", "200",
                 "--out", str(out)]) == EXIT_OK
    text = capsys.readouterr().out
    assert "authors' scene vs paper's model" in text and " mm (median)" in text
    assert out.read_text().count("\n") >= 9  # comment, header, base, 6 joints, tool


def test_info_and_read_robot(fake_irb140, capsys):
    assert main(["coppeliasim", "info", "--host", "127.0.0.1", "--port", str(fake_irb140.port)]) == EXIT_OK
    version = {"4.6": "4.6.0 rev 18", "4.10": "4.10.0 rev 5"}[fake_irb140.version]
    assert f"CoppeliaSim {version} at tcp://127.0.0.1:{fake_irb140.port} (port {fake_irb140.port})" in \
        capsys.readouterr().out
    assert main(["coppeliasim", "read-robot", *scene_args(fake_irb140)[0:]]) == EXIT_OK
    captured = capsys.readouterr()
    text = captured.out
    assert text.count(",joint") == 6 and "row,name,px_mm" in text
    # Which CoppeliaSim was reached (several listen on 23000, 23001, ...): on stderr, stdout stays the CSV.
    assert captured.err.startswith(f"connected to CoppeliaSim {version} at tcp://127.0.0.1:{fake_irb140.port} "
                                   f"(port {fake_irb140.port})")
    assert "connected" not in text


def test_unreachable_is_exit_1_with_a_message(capsys):
    assert main(["coppeliasim", "info", "--host", "127.0.0.1", "--port", "9", "--timeout-s", "0.2"]) == EXIT_INPUT
    assert "no CoppeliaSim ZMQ remote API server answered" in capsys.readouterr().err


def test_report_rewrites_its_file_as_the_help_says(capsys, tmp_path):
    # the help said "also append what is printed", the job rewrites the log whole (issue 9: no appending)
    report = tmp_path / "report.txt"
    report.write_text("an earlier run\n")
    assert main(["coppeliasim", "info", "--host", "127.0.0.1", "--port", "9", "--timeout-s", "0.2",
                 "--report", str(report)]) == EXIT_INPUT
    assert "an earlier run" not in report.read_text()
    with pytest.raises(SystemExit):
        main(["coppeliasim", "info", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "append" not in text and "--report REPORT also write what is printed to this file, rewritten whole" in text


@pytest.mark.parametrize("action", ["show", "play"])
@pytest.mark.parametrize("value", ["1e308", "1001", "0", "0.5"])
def test_magnification_is_bounded_before_connecting(capsys, tmp_path, action, value):
    # play --magnification 1e308 placed the joint objects 1e305 m away and exited 0 (issue 9 follow-up run);
    # the add-on's spinbox and PyBullet go from 1 to 1000: one range (thermocomp.simulators.magnification)
    extra = ["--results", str(tmp_path / "r.csv")] if action == "play" else []
    with pytest.raises(SystemExit) as exc:  # refused by the parser (cli/option_ranges.py)
        main(["coppeliasim", action, "--host", "127.0.0.1", "--port", "9", "--timeout-s", "0.2",
              "--deformation", EXAGGERATED, *extra, "--magnification", value])
    assert exc.value.code == 64
    assert "--magnification: expected a finite number from 1 to 1000, got " in capsys.readouterr().err


def test_check_and_show(fake_irb140, capsys, tmp_path):
    report = tmp_path / "report.txt"
    assert main(["coppeliasim", "check", *scene_args(fake_irb140), "--compare", "irb140",
                 "--configurations", "5", "--report", str(report)]) == EXIT_OK
    assert "forward kinematics, 5 configurations" in report.read_text()
    before = sorted(fake_irb140.scene.objects.items())
    poses = [(h, o.local.p.tolist(), o.local.q.tolist(), o.position) for h, o in before]
    assert main(["coppeliasim", "show", *scene_args(fake_irb140), "--deformation", EXAGGERATED,
                 "--magnification", "20", "--hold-s", "0"]) == EXIT_OK
    after = [(h, o.local.p.tolist(), o.local.q.tolist(), o.position) for h, o in sorted(fake_irb140.scene.objects.items())]
    assert after == poses
    assert "restored the nominal scene" in capsys.readouterr().out


def test_compensate_then_play(fake_irb140, capsys, tmp_path):
    out = tmp_path / "results.csv"
    assert main(["coppeliasim", "compensate", *scene_args(fake_irb140), "--deformation", EXAGGERATED,
                 "--targets", TARGETS, "--out", str(out), "--minutes", "0,100,200"]) == EXIT_OK
    text = capsys.readouterr().out
    assert "scene check (50 rows, minute 200)" in text
    with out.open() as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 150
    assert main(["coppeliasim", "play", *scene_args(fake_irb140), "--results", str(out), "--minute", "100",
                 "--deformation", EXAGGERATED, "--dwell-s", "0"]) == EXIT_OK
    assert "playing 50 targets of minute 100" in capsys.readouterr().out


def test_compensate_with_the_authors_convention(fake_irb140, capsys, tmp_path):
    out = tmp_path / "results.csv"
    assert main(["coppeliasim", "compensate", *scene_args(fake_irb140), "--deformation", EXAGGERATED,
                 "--targets", TARGETS, "--out", str(out), "--convention", "authors", "--static"]) == EXIT_OK
    assert "authors' CoppeliaSim convention, static" in capsys.readouterr().out


def test_install_addon(tmp_path, capsys):
    not_cs = tmp_path / "somewhere"
    not_cs.mkdir()
    assert main(["coppeliasim", "install-addon", "--coppeliasim-dir", str(not_cs)]) == EXIT_INPUT
    assert "does not look like a CoppeliaSim installation: no addOns/ or lua/" in capsys.readouterr().err
    cs = tmp_path / "CoppeliaSim"
    (cs / "addOns").mkdir(parents=True)
    (cs / "lua").mkdir()
    assert main(["coppeliasim", "install-addon", "--coppeliasim-dir", str(cs)]) == EXIT_OK
    installed = cs / "addOns" / "thermocomp.lua"
    assert installed.read_bytes() == addon_source().read_bytes()
    assert main(["coppeliasim", "install-addon", "--coppeliasim-dir", str(cs)]) == EXIT_OK  # identical: fine
    installed.write_text("-- a user's edits\n")
    assert main(["coppeliasim", "install-addon", "--coppeliasim-dir", str(cs)]) == EXIT_INPUT
    assert "rerun with --force" in capsys.readouterr().err
    assert installed.read_text() == "-- a user's edits\n"  # never overwritten silently
    assert main(["coppeliasim", "install-addon", "--coppeliasim-dir", str(cs), "--force"]) == EXIT_OK
    assert installed.read_bytes() == addon_source().read_bytes()


@pytest.mark.parametrize("action", ACTIONS)
def test_every_action_has_help(action, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["coppeliasim", action, "--help"])
    assert exc.value.code == 0
    assert "usage: thermocomp coppeliasim " + action in capsys.readouterr().out


def test_compensate_with_simulator_option_is_the_same_run(fake_irb140, capsys, tmp_path):
    """`thermocomp compensate --simulator coppeliasim` (the issue's spelling) = `coppeliasim compensate`."""
    out = tmp_path / "results.csv"
    assert main(["compensate", "--simulator", "coppeliasim", "--coppeliasim-host", "127.0.0.1",
                 "--coppeliasim-port", str(fake_irb140.port), "--robot-path", "/IRB140", "--tip", "/IRB140/tip",
                 "--deformation", EXAGGERATED, "--targets", TARGETS, "--static", "--out", str(out)]) == EXIT_OK
    assert "scene check (50 rows, minute 0)" in capsys.readouterr().out
    with out.open() as f:
        assert len(list(csv.DictReader(f))) == 50
    assert main(["compensate", "--simulator", "coppeliasim", "--coppeliasim-port", str(fake_irb140.port),
                 "--deformation", EXAGGERATED, "--targets", TARGETS, "--plot", str(tmp_path / "x.png"),
                 "--out", str(tmp_path / "other.csv")]) == EXIT_INPUT
    assert "--plot cannot be combined" in capsys.readouterr().err


def test_compensate_with_simulator_forwards_the_solver_options(fake_irb140, capsys, tmp_path, monkeypatch):
    """--starts, --seed, the tolerances and --progress reach the solver; none is dropped silently."""
    import thermocomp.app.coppeliasim as cs

    seen = {}
    real = cs.compensate_in_scene

    def spy(*args, **kwargs):
        seen.update(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(cs, "compensate_in_scene", spy)
    assert main(["compensate", "--simulator", "coppeliasim", "--coppeliasim-host", "127.0.0.1",
                 "--coppeliasim-port", str(fake_irb140.port), "--tip", "/IRB140/tip",
                 "--deformation", EXAGGERATED, "--targets", TARGETS, "--static", "--out", str(tmp_path / "r.csv"),
                 "--starts", "7", "--seed", "3", "--position-tol-mm", "0.0005", "--orientation-tol-deg", "1e-5",
                 "--progress"]) == EXIT_OK
    captured = capsys.readouterr()
    options = seen["options"]
    assert (options.starts, options.seed) == (7, 3)
    assert options.ik.position_tol == pytest.approx(5e-7) and options.ik.orientation_tol == pytest.approx(1.7453292519943295e-7)
    assert "solver tolerance 0.0005 mm" in captured.out
    assert "compensating" in captured.err  # the progress bar


def test_compensate_with_simulator_names_its_own_address_options(capsys, monkeypatch, tmp_path):
    import thermocomp.simulators.coppeliasim.connection as connection

    monkeypatch.setattr(connection, "DEFAULT_TIMEOUT_S", 0.2)
    assert main(["compensate", "--simulator", "coppeliasim", "--coppeliasim-host", "127.0.0.1",
                 "--coppeliasim-port", "9", "--deformation", EXAGGERATED, "--targets", TARGETS,
                 "--out", str(tmp_path / "never.csv")]) == EXIT_INPUT
    err = capsys.readouterr().err
    assert "--coppeliasim-host (now 127.0.0.1), --coppeliasim-port (now 9)" in err
    assert "--host and" not in err
    assert main(["coppeliasim", "info", "--host", "127.0.0.1", "--port", "9", "--timeout-s", "0.2"]) == EXIT_INPUT
    assert "Options: --host (now 127.0.0.1), --port (now 9)" in capsys.readouterr().err


def test_play_at_minute_0_of_a_ramp_says_the_robot_is_undeformed(fake_irb140, capsys, tmp_path):
    out = tmp_path / "static.csv"
    assert main(["coppeliasim", "compensate", *scene_args(fake_irb140), "--deformation", EXAGGERATED,
                 "--targets", TARGETS, "--out", str(out), "--static"]) == EXIT_OK
    capsys.readouterr()
    assert main(["coppeliasim", "play", *scene_args(fake_irb140), "--results", str(out),
                 "--deformation", EXAGGERATED, "--dwell-s", "0"]) == EXIT_OK
    assert "shown undeformed; results of 'compensate --static' are played deformed with --static" in \
        capsys.readouterr().out
    assert main(["coppeliasim", "play", *scene_args(fake_irb140), "--results", str(out), "--static",
                 "--deformation", EXAGGERATED, "--dwell-s", "0"]) == EXIT_OK
    assert "undeformed" not in capsys.readouterr().out


def test_a_results_column_given_twice_is_refused_where_it_is(tmp_path):
    # play read one of two q1_deg columns and ignored the other (issue 9 follow-up adversarial run)
    from thermocomp.errors import InputError
    from thermocomp.io.results_rows import read_converged_rows

    path = tmp_path / "r.csv"
    q = ",".join(f"q{j}_deg" for j in range(1, 7))
    path.write_text(f"minute,target,status,{q},q1_deg\n0,P1,converged,1,2,3,4,5,6,7\n")
    with pytest.raises(InputError) as info:
        read_converged_rows(path, 6)
    assert str(info.value) == f"{path}, line 1, column 'q1_deg': duplicate column 'q1_deg'"


def test_check_compare_reads_robot_files_with_the_robot_file_options(fake_irb140, capsys, tmp_path):
    """``check --compare`` takes a built-in variant, or a URDF read with --base-link/--tip-link like every command."""
    assert main(["coppeliasim", "check", *scene_args(fake_irb140), "--compare", "irb140-paper-scene",
                 "--configurations", "5"]) == EXIT_OK
    apart = float(capsys.readouterr().out.split("scene robot vs irb140-paper-scene: max ")[1].split(" mm")[0])
    assert 0.001 < apart < 0.05  # the fake holds the datasheet geometry; the paper's scene sits 0.02 mm off
    urdf = tmp_path / "irb140.urdf"
    assert main(["robot", "export", "irb140", "--out", str(urdf)]) == EXIT_OK
    capsys.readouterr()
    assert main(["coppeliasim", "check", *scene_args(fake_irb140), "--compare", str(urdf),
                 "--configurations", "5"]) == EXIT_OK
    assert float(capsys.readouterr().out.split("scene robot vs ")[1].split("max ")[1].split(" mm")[0]) < 1e-6
    assert main(["coppeliasim", "check", *scene_args(fake_irb140), "--compare", str(urdf), "--tip-link", "no_link",
                 "--configurations", "5"]) == EXIT_INPUT
    err = capsys.readouterr().err
    assert "no_link" in err and "Traceback" not in err
