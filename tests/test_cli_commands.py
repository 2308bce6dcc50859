"""The command line loads only the command it runs: each name of ``COMMANDS`` is its module's command."""

from __future__ import annotations

import subprocess
import sys

import pytest

from thermocomp.cli.main import COMMANDS, EXIT_USAGE, SUMMARIES, build_parser, main


def _choices(parser) -> set[str]:
    return set(next(a for a in parser._actions if a.dest == "command").choices)


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_each_name_is_the_command_its_module_registers(name: str) -> None:
    assert _choices(build_parser(name)) == {name}


def test_help_and_an_unknown_name_see_every_command(capsys) -> None:
    assert _choices(build_parser()) == set(COMMANDS)
    assert _choices(build_parser("compensat")) == set(COMMANDS)
    with pytest.raises(SystemExit) as exit_:
        main(["compensat"])
    assert exit_.value.code == EXIT_USAGE
    err = capsys.readouterr().err
    assert "invalid choice: 'compensat'" in err and all(f"'{name}'" in err for name in COMMANDS)


def test_a_run_does_not_import_the_other_commands() -> None:
    script = ("import sys; from thermocomp.cli.main import main; status = main(['robot', 'show', 'irb140']); "
              "print(sorted(m for m in sys.modules if m.startswith(('thermocomp.cli.', 'scipy.signal', "
              "'thermocomp.dynamics', 'thermocomp.simulators')))); sys.exit(status)")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    loaded = eval(done.stdout.strip().splitlines()[-1])
    commands = {m for m in loaded if m in COMMANDS.values()}
    assert commands == {"thermocomp.cli.robot"}
    assert not [m for m in loaded if m.startswith(("scipy.signal", "thermocomp.dynamics", "thermocomp.simulators"))]


def _modules_after(argv: list[str]) -> tuple[int, set[str]]:
    """The exit status of ``main(argv)`` in a fresh interpreter, and the modules it had imported."""
    script = (f"import sys, thermocomp\nfrom thermocomp.cli.main import main\ntry:\n    status = main({argv!r})\n"
              "except SystemExit as exc:\n    status = exc.code\nprint(sorted(sys.modules))\nsys.exit(status)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=False)
    return done.returncode, set(eval(done.stdout.strip().splitlines()[-1]))


def test_compensate_help_loads_no_plotting_simulator_or_signal_processing() -> None:
    status, loaded = _modules_after(["compensate", "--help"])
    assert status == 0
    heavy = {"matplotlib", "pybullet", "scipy.signal", "scipy.stats", "pandas", "trimesh", "numba", "lark",
             "thermocomp.dynamics", "thermocomp.programs", "thermocomp.kinematics.engine"}
    assert not heavy & loaded
    assert "thermocomp.cli.compensate" in loaded  # (the loop above would pass on a run that did nothing)


def test_the_overview_builds_no_command() -> None:
    """``thermocomp --help`` lists every command by its summary and imports none of them, nor NumPy."""
    status, loaded = _modules_after(["--help"])
    assert status == 0
    assert not {m for m in loaded if m in COMMANDS.values() or m.split(".")[0] == "numpy"}
    assert "thermocomp.cli.main" in loaded


def test_every_command_has_its_summary() -> None:
    assert set(SUMMARIES) == set(COMMANDS)
    full = next(a for a in build_parser()._actions if a.dest == "command")
    overview = next(a for a in build_parser(overview=True)._actions if a.dest == "command")
    assert [(a.dest, a.help) for a in full._choices_actions] == [(a.dest, a.help) for a in overview._choices_actions]
    assert [a.dest for a in full._choices_actions] == list(COMMANDS)
    assert all(a.help == SUMMARIES[a.dest] for a in full._choices_actions)


def test_showing_a_robot_loads_no_reader_or_engine_it_does_not_use() -> None:
    status, loaded = _modules_after(["robot", "show", "irb140"])
    assert status == 0
    assert not {"pyarrow", "numba", "lark", "matplotlib", "scipy.signal"} & loaded
    assert "thermocomp.io.chain_csv" in loaded
