"""The command line loads only the command it runs: each name of ``COMMANDS`` is its module's command."""

from __future__ import annotations

import subprocess
import sys

import pytest

from thermocomp.cli.main import COMMANDS, EXIT_USAGE, build_parser, main


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
