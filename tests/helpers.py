"""Helpers shared by the tests (fixtures live in conftest.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from thermocomp.compensation.targets import Targets
from thermocomp.errors import InputError
from thermocomp.tolerances import ROUNDTRIP_ANGLE_TOL, ROUNDTRIP_POSITION_TOL

REPO = Path(__file__).resolve().parents[1]
REFERENCE = REPO.parent / "shared" / "reference"
PAPER = REFERENCE / "paper-irb140"


def write(tmp_path: Path, text: str, name: str = "input.csv") -> Path:
    """Write ``text`` to ``tmp_path / name`` (UTF-8) and return the path."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def assert_located(exc: InputError, path: Path, line: int | None, column: str | int | None) -> None:
    """The error names the file, the line and the column, as attributes and in its message."""
    assert exc.path == str(path)
    assert exc.row == line
    assert exc.column == column
    message = str(exc)
    assert str(path) in message
    if line is not None:
        assert f"line {line}" in message
    if column is not None:
        assert f"column {column!r}" in message


def assert_same_program(got: Targets, want: Targets) -> None:
    """Two programs hold the same targets, within the round-trip tolerances."""
    assert got.names == want.names
    assert got.orientation_convention == want.orientation_convention
    np.testing.assert_allclose(got.p_world_tcp, want.p_world_tcp, rtol=0, atol=ROUNDTRIP_POSITION_TOL)
    np.testing.assert_allclose(got.R_world_tcp, want.R_world_tcp, rtol=0, atol=ROUNDTRIP_ANGLE_TOL)
    for a, b in ((got.time_min, want.time_min), (got.q_reference, want.q_reference)):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=1e-15, atol=ROUNDTRIP_ANGLE_TOL)


def run_targets(robot, deformation, targets, out=None, *, progress=None, within=None, **fields):
    """:func:`thermocomp.app.targets.compensate_targets` on a :class:`~thermocomp.app.jobs.CompensationJob` made from
    these keywords (its fields): the tests' shorthand."""
    from thermocomp.app.jobs import CompensationJob
    from thermocomp.app.targets import compensate_targets

    job = CompensationJob(robot, deformation, targets=targets, out=out, **fields)
    return compensate_targets(job, progress=progress, within=within)


def run_program(robot, deformation, program, out=None, *, progress=None, within=None, **fields):
    """:func:`thermocomp.app.program.compensate_program` on a :class:`~thermocomp.app.jobs.CompensationJob` made from
    these keywords (its fields): the tests' shorthand."""
    from thermocomp.app.jobs import CompensationJob
    from thermocomp.app.program import compensate_program

    job = CompensationJob(robot, deformation, program=program, out=out, **fields)
    return compensate_program(job, progress=progress, within=within)


def urdf_parameters_of(path, options=None):
    """:func:`thermocomp.dynamics.urdf_parameters.urdf_parameters` of the robot file ``path`` as io reads it (with
    ``options``, a :class:`~thermocomp.io.robot_files.RobotFileOptions`): the tests' shorthand."""
    from thermocomp.dynamics.urdf_parameters import urdf_parameters
    from thermocomp.io.robot_files import read_robot_description

    return urdf_parameters(read_robot_description(path, options))


def simulated_robot(path, *args, robot_options=None, **kwargs):
    """:class:`thermocomp.dynamics.simulate.SimulatedRobot` of the robot file ``path`` as io reads it: the tests'
    shorthand."""
    from thermocomp.dynamics.simulate import SimulatedRobot
    from thermocomp.io.robot_files import read_robot_description

    return SimulatedRobot(read_robot_description(path, robot_options), *args, **kwargs)
