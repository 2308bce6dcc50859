"""The authors' convention on a robot read from a scene, offline, and why the scene's own geometry matters.

A scene stores its own joint positions; the issue reports that the authors'
IRB140 scene differs from the datasheet (the built-in ``irb140``) by up to
0.020 mm. Their file is not in ../shared/reference, so the scene here stores
test values that differ from the datasheet by up to 0.020 mm (``SCENE_P_MM``).
The published static case (seed 002: Table 12 targets, the exaggerated table
of Tables 10-11; Tables 13 and 15 give the deviations the authors reached,
within 0.0099 mm and 0.02 deg) is compensated with the convention

- on the geometry read from the scene (``coppeliasim read-robot --out
  --joint-objects-out``, then ``compensate --convention authors-coppeliasim
  --robot FILE --joint-objects FILE``): the same joint angles as the
  scene-driven run, and, played on the scene deformed by the authors' script
  itself, every target within 0.01 mm and 0.01 deg;
- on the datasheet (built-in ``irb140``): off by the geometry difference
  (more than 0.01 mm) on that scene.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest
from coppeliasim_fake import FakeCoppeliaSim, build_irb140_scene
from coppeliasim_fake.fixtures import START_DEG, TIMEOUT_S
from coppeliasim_fake.irb140 import EULER_DEG

from thermocomp.cli.common import EXIT_INPUT, EXIT_OK
from thermocomp.cli.main import main
from thermocomp.errors import InputError
from thermocomp.geometry.rotations import matrix_from_euler_xyz
from thermocomp.io.deformation_csv import read_deformation_csv
from thermocomp.io.scene_joints_csv import read_scene_joints_csv
from thermocomp.io.targets_csv import read_targets_csv
from thermocomp.simulators.coppeliasim import (
    apply_authors_script,
    connect,
    preserved,
    read_robot,
    read_tip,
    set_joint_positions,
)

#: Joint-to-joint translations [mm] the test scene stores: the datasheet's (robots/irb140/chain.csv) moved by
#: up to 0.020 mm, the size of the difference the issue reports for the authors' scene.
SCENE_P_MM = [(0.020, 0, 104.5), (70, 65, 247.5 - 0.012), (0, -123, 360 + 0.015), (238.5, 58, 0),
              (141.5 - 0.010, 0, 0), (65, 0, 0.008)]
#: "Reproduced": within these of every target, position [mm] and orientation [deg] (the issue's
#: done-when; the paper's own deviations, Tables 13 and 15, reach 0.0099 mm and 0.02 deg).
REPRODUCED_MM, REPRODUCED_DEG = 0.01, 0.01
#: Two converged solves of the same robot: joint angles equal to about tolerance / lever arm.
SAME_SOLUTION_DEG = 1e-6


@pytest.fixture
def scene_server():
    with FakeCoppeliaSim(build_irb140_scene(START_DEG, p_mm=SCENE_P_MM), version="4.10", lifetime_s=60) as server:
        yield server


def q_deg(path) -> np.ndarray:
    with open(path) as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 50 and all(r["status"] == "converged" for r in rows)
    return np.array([[float(r[f"q{j}_deg"]) for j in range(1, 7)] for r in rows])


def address(server) -> list[str]:
    return ["--host", "127.0.0.1", "--port", str(server.port), "--timeout-s", str(TIMEOUT_S)]


def offline(paper: Path, out: Path, *robot: str) -> np.ndarray:
    assert main(["compensate", "--convention", "authors-coppeliasim", "--static", *robot,
                 "--deformation", str(paper / "deformations_exaggerated.csv"),
                 "--targets", str(paper / "targets_random50.csv"), "--out", str(out)]) == EXIT_OK
    return q_deg(out)


def deviations_on_the_authors_scene(server, paper: Path, q_deg_rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Play joint angles on the scene deformed by the authors' script itself; per target: position [mm], angle [deg]."""
    table = read_deformation_csv(paper / "deformations_exaggerated.csv", n_joints=6)
    program = read_targets_csv(paper / "targets_random50.csv", n_joints=6)
    reached = []
    with connect("127.0.0.1", server.port, TIMEOUT_S) as session:
        robot = read_robot(session, "/IRB140", tip_path="/IRB140/tip")
        with preserved(session, robot):
            apply_authors_script(session, robot, table.joints)  # static: the whole table, once
            for row in np.radians(q_deg_rows):
                set_joint_positions(session, robot, row)
                reached.append(read_tip(session, robot))
    reached = np.array(reached)
    position_mm = np.linalg.norm(reached[:, :3, 3] - program.p_world_tcp, axis=1) * 1000.0
    cos = (np.trace(reached[:, :3, :3] @ np.swapaxes(program.R_world_tcp, -1, -2), axis1=1, axis2=2) - 1) / 2
    return position_mm, np.degrees(np.arccos(np.clip(cos, -1, 1)))


def test_the_published_static_case_on_the_scene_geometry(scene_server, paper, tmp_path, capsys):
    robot_csv, joints_csv = tmp_path / "scene_robot.csv", tmp_path / "scene_joints.csv"
    assert main(["coppeliasim", "read-robot", *address(scene_server), "--robot-path", "/IRB140", "--tip",
                 "/IRB140/tip", "--out", str(robot_csv), "--joint-objects-out", str(joints_csv)]) == EXIT_OK
    np.testing.assert_allclose(read_scene_joints_csv(joints_csv, 6), matrix_from_euler_xyz(np.radians(EULER_DEG)),
                               rtol=0, atol=1e-12)
    q_scene_geometry = offline(paper, tmp_path / "scene.csv", "--robot", str(robot_csv), "--joint-objects",
                               str(joints_csv))
    q_datasheet = offline(paper, tmp_path / "datasheet.csv")  # built-in irb140

    # The same joint angles as the scene-driven run (CoppeliaSim reading and deforming its own scene).
    driven = tmp_path / "driven.csv"
    assert main(["coppeliasim", "compensate", *address(scene_server), "--robot-path", "/IRB140", "--tip",
                 "/IRB140/tip", "--deformation", str(paper / "deformations_exaggerated.csv"), "--targets",
                 str(paper / "targets_random50.csv"), "--out", str(driven), "--convention", "authors",
                 "--static"]) == EXIT_OK
    assert np.abs(q_deg(driven) - q_scene_geometry).max() < SAME_SOLUTION_DEG

    position_mm, angle_deg = deviations_on_the_authors_scene(scene_server, paper, q_scene_geometry)
    assert position_mm.max() < REPRODUCED_MM and angle_deg.max() < REPRODUCED_DEG
    assert position_mm.max() < 1e-5  # in fact to the solver's tolerance
    # The datasheet geometry misses on that scene by about the geometry difference: the test can fail.
    position_mm, angle_deg = deviations_on_the_authors_scene(scene_server, paper, q_datasheet)
    assert 0.01 < position_mm.max() < 0.1


def test_joint_objects_file_errors_are_located(tmp_path, capsys):
    path = tmp_path / "joints.csv"
    path.write_text("joint,alpha_deg,beta_deg,gamma_deg\n1,0,0,0\n2,-90,zero,-90\n")
    with pytest.raises(InputError, match=r"joints.csv.*line 3.*beta_deg"):
        read_scene_joints_csv(path, 2)
    with pytest.raises(InputError, match="one row per joint of the robot \\(6\\), got 2"):
        read_scene_joints_csv(path, 6)
    assert main(["compensate", "--joint-objects", str(path), "--deformation", "deformations/exaggerated.csv",
                 "--targets", "examples/targets_random50.csv", "--out", str(tmp_path / "x.csv")]) == EXIT_INPUT
    assert "--joint-objects serves --convention authors-coppeliasim only" in capsys.readouterr().err
