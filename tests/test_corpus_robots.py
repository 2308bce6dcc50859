"""The robots the corpus's programs were written for, read from their ROS-Industrial descriptions, against the
manufacturers' own numbers: the ABB IRB 120's dimensions and tool0, and the UR10e's published DH parameters.

The descriptions are kept outside the repository (their licences differ from ours): set
``THERMOCOMP_CORPUS_ROBOTS`` to the folder ``bench/corpus.py --robots`` reads (``irb120/robot.toml``,
``ur10e/robot.toml``, each with its packages and PROVENANCE.txt).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from thermocomp import fk, nominal_model
from thermocomp.geometry.rotations import rotation_angle
from thermocomp.io.robot_files import RobotFileOptions, load_robot_file
from thermocomp.kinematics.confdata import confdata_from_q

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

ENV = "THERMOCOMP_CORPUS_ROBOTS"
ROOT = Path(os.environ[ENV]) if os.environ.get(ENV) else None

pytestmark = pytest.mark.skipif(ROOT is None or not (ROOT / "irb120" / "robot.toml").is_file()
                                or not (ROOT / "ur10e" / "robot.toml").is_file(),
                                reason=f"set {ENV} to the folder of the corpus's robot descriptions")


def _load(name: str):
    """The robot as ``bench/corpus.py --robots`` gives it to ``thermocomp compensate``."""
    spec = ROOT / name / "robot.toml"
    data = tomllib.loads(spec.read_text())
    options = RobotFileOptions(base_link=data.get("base_link"), tip_link=data.get("tip_link"),
                               package_paths=tuple(spec.parent / p for p in data.get("package_path", [])),
                               use_ros_package_path=False)
    return load_robot_file(spec.parent / data["robot"], options)


def test_irb120_tool0_is_abbs_tool0_at_the_calibration_position() -> None:
    """ABB's IRB 120-3/0.58: axis 2 at 290 mm, the lower arm 270 mm, axis 4 70 mm above axis 3, 302 mm to axis 5,
    72 mm to the flange; tool0 on the flange with z out of it and x down (quaternion [0.7071, 0, 0.7071, 0])."""
    chain = _load("irb120")
    R, p = fk(nominal_model(chain), np.zeros((1, 6)))
    np.testing.assert_allclose(p[0], [0.302 + 0.072, 0.0, 0.290 + 0.270 + 0.070], atol=1e-12)
    np.testing.assert_allclose(R[0], [[0, 0, 1], [0, 1, 0], [-1, 0, 0]], atol=1e-12)
    np.testing.assert_allclose(np.degrees(chain.upper), [165, 110, 70, 160, 120, 400], atol=1e-3)  # ABB's datasheet


@pytest.mark.parametrize("q_deg, expected", [
    ([0, 0, 0, 0, 30, 0], [0, 0, 0, 0]),
    ([100, 0, 0, -45, 30, 200], [1, -1, 2, 0]),     # quadrants: floor(q / 90 deg)
    ([-10, 0, 0, -90, -30, -0.5], [-1, -1, -1, 1]),  # axis 5 negative
    # forearm raised past the vertical: wrist centre at x = -121 mm, behind axis 1 and behind the lower arm
    ([0, 0, -100, 0, 30, 0], [0, 0, 0, 6]),
    # lower arm 60 deg forward, forearm raised: wrist centre at (420, 673) mm, in front of axis 1, 122 mm behind
    # the line of the lower arm (axis 2 at (0, 290), axis 3 at (234, 425))
    ([0, 60, -100, 0, 30, 0], [0, 0, 0, 2]),
])
def test_irb120_confdata_of_hand_checked_configurations(q_deg, expected) -> None:
    chain = _load("irb120")
    assert confdata_from_q(nominal_model(chain), np.radians([q_deg]))[0].tolist() == expected


def _ur_dh_fk(q: np.ndarray) -> np.ndarray:
    """The UR10e's flange in UR's base frame from UR's published DH table (standard DH), ``(m, 4, 4)``."""
    d = [0.1807, 0.0, 0.0, 0.17415, 0.11985, 0.11655]
    a = [0.0, -0.6127, -0.57155, 0.0, 0.0, 0.0]
    alpha = [np.pi / 2, 0.0, 0.0, np.pi / 2, -np.pi / 2, 0.0]
    out = np.tile(np.eye(4), (len(q), 1, 1))
    for i in range(6):
        ct, st = np.cos(q[:, i]), np.sin(q[:, i])
        ca, sa = np.cos(alpha[i]), np.sin(alpha[i])
        A = np.zeros((len(q), 4, 4))
        A[:, 0, 0], A[:, 0, 1], A[:, 0, 2], A[:, 0, 3] = ct, -st * ca, st * sa, a[i] * ct
        A[:, 1, 0], A[:, 1, 1], A[:, 1, 2], A[:, 1, 3] = st, ct * ca, -ct * sa, a[i] * st
        A[:, 2, 1], A[:, 2, 2], A[:, 2, 3] = sa, ca, d[i]
        A[:, 3, 3] = 1.0
        out = out @ A
    return out


def test_ur10e_with_base_link_base_is_urs_dh_robot() -> None:
    """With ``--base-link base`` the description's tool0 is the controller's: UR's DH table, to the yaml's 2e-10 rad
    of pi/2."""
    chain = _load("ur10e")
    q = np.random.default_rng(7).uniform(-np.pi, np.pi, (50, 6))
    R, p = fk(nominal_model(chain), q)
    T = _ur_dh_fk(q)
    np.testing.assert_allclose(p, T[:, :3, 3], atol=1e-9)
    assert rotation_angle(np.swapaxes(R, -1, -2) @ T[:, :3, :3]).max() < 1e-9
