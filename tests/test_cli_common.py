"""The program and solver options mean the same in ``compensate``, ``sim`` and ``coppeliasim compensate``."""

from __future__ import annotations

import numpy as np
import pytest

from thermocomp.cli.common import program_settings, solver_options
from thermocomp.cli.main import build_parser
from thermocomp.compensation.compensate import CompensationOptions
from thermocomp.deformation.timelaw import LinearRamp, Static
from thermocomp.geometry.rotations import matrix_from_euler_xyz
from thermocomp.kinematics.ik import IKOptions

BASE = ["--deformation", "d.csv", "--targets", "t.csv"]
COMMANDS = {
    "compensate": ["compensate", *BASE, "--out", "o.csv"],
    "coppeliasim compensate": ["coppeliasim", "compensate", *BASE, "--out", "o.csv"],
    "sim": ["sim", *BASE],
}
SOLVING = ("compensate", "coppeliasim compensate")


@pytest.mark.parametrize("command", SOLVING)
def test_solver_defaults_are_the_option_classes(command: str) -> None:
    args = build_parser().parse_args(COMMANDS[command])
    fields = solver_options(args)
    assert fields["ik"].position_tol == IKOptions().position_tol
    assert fields["ik"].orientation_tol == pytest.approx(IKOptions().orientation_tol, rel=1e-15)
    assert (fields["starts"], fields["seed"]) == (CompensationOptions().starts, CompensationOptions().seed)
    given = build_parser().parse_args(COMMANDS[command] + ["--position-tol-mm", "0.002", "--orientation-tol-deg",
                                                           "0.5", "--starts", "3", "--seed", "7"])
    fields = solver_options(given)
    assert fields["ik"].position_tol == pytest.approx(2e-6, rel=1e-15)
    assert fields["ik"].orientation_tol == pytest.approx(np.radians(0.5), rel=1e-15)
    assert (fields["starts"], fields["seed"]) == (3, 7)


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_time_law_minutes_orientation_and_progress(command: str, monkeypatch) -> None:
    parse = build_parser().parse_args
    default = program_settings(parse(COMMANDS[command] + ["--no-progress"]))
    assert default.time_law == LinearRamp() and default.minutes == CompensationOptions().minutes
    assert default.fixed_orientation is None and default.progress is False
    static = program_settings(parse(COMMANDS[command] + ["--static", "--progress"]))
    assert static.time_law == Static() and static.minutes == (0.0,) and static.progress is True
    given = program_settings(parse(COMMANDS[command] + ["--stabilisation-min", "50", "--minutes", "0:10:5",
                                                        "--orientation-euler-xyz-deg", "0", "90", "0"]))
    assert given.time_law == LinearRamp(50.0) and given.minutes == (0.0, 5.0, 10.0)
    np.testing.assert_array_equal(given.fixed_orientation, matrix_from_euler_xyz(np.radians([0.0, 90.0, 0.0])))
    monkeypatch.setattr("sys.stderr.isatty", lambda: True)
    assert program_settings(parse(COMMANDS[command])).progress is True
