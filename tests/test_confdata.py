"""ABB confdata (cf1, cf4, cf6, cfx): computed from joints, and used to choose a configuration."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from thermocomp import CompensationOptions, DeformationTable, Targets, compensate, load_robot, nominal_model
from thermocomp.kinematics.confdata import confdata_from_q, quadrants
from thermocomp.kinematics.fk import fk
from thermocomp.kinematics.ik import Status
from thermocomp.kinematics.seeding import solve_multistart


@pytest.fixture(scope="module")
def irb140():
    return load_robot("irb140")


@pytest.mark.parametrize(
    "q_deg, expected",
    [
        ([0, 0, 0, 0, 0, 0], [0, 0, 0, 0]),          # ABB's calibration position: [0, 0, 0, 0]
        ([0, 0, 0, 0, -30, 0], [0, 0, 0, 1]),        # axis 5 negative
        ([100, 0, 0, -45, 30, 200], [1, -1, 2, 0]),  # quadrants: floor(q / 90 deg)
        ([-10, 0, 0, -90, 30, -0.5], [-1, -1, -1, 0]),
        ([0, -60, -200, 0, 30, 0], [0, 0, 0, 6]),    # forearm folded back over the base: behind both
        ([0, 80, -30, 0, -30, 0], [0, 0, 0, 1]),     # leaning far forward, wrist still in front
    ],
)
def test_confdata_of_hand_checked_configurations(irb140, q_deg, expected):
    assert confdata_from_q(nominal_model(irb140), np.radians([q_deg]))[0].tolist() == expected


def test_confdata_chooses_each_branch_of_one_pose(irb140):
    """Every configuration in which a pose is reachable can be asked for by its confdata."""
    model = nominal_model(irb140)
    q0 = np.radians([[20.0, 10.0, -20.0, 30.0, 45.0, -10.0]])
    R, p = fk(model, q0)
    # all branches: many starts, keep the distinct converged solutions
    rng = np.random.default_rng(3)
    starts = rng.uniform(np.maximum(irb140.lower, -np.pi), np.minimum(irb140.upper, np.pi), (200, 6))
    from thermocomp.kinematics.ik import solve_ik
    sols = solve_ik(model, np.repeat(R, 200, axis=0), np.repeat(p, 200, axis=0), starts)
    ok = sols.q[sols.status == Status.CONVERGED]
    signatures = np.unique(confdata_from_q(model, ok), axis=0)
    assert len(signatures) >= 4  # shoulder x elbow x wrist branches within the limits
    names = tuple(f"T{i}" for i in range(len(signatures)))
    program = Targets(names, np.repeat(R, len(signatures), axis=0), np.repeat(p, len(signatures), axis=0),
                      confdata=signatures)
    chunks = list(compensate(irb140, DeformationTable.from_mm_deg(np.full((6, 6), 0.5)), program,
                             CompensationOptions(minutes=(0.0, 200.0))))
    for chunk in chunks:
        wanted = signatures[chunk.target]
        assert np.all(chunk.status == Status.CONVERGED)
        np.testing.assert_array_equal(confdata_from_q(model, chunk.q_nominal), wanted)
        # the compensated angles stay in the asked configuration (cfx) too
        np.testing.assert_array_equal(confdata_from_q(model, chunk.q)[:, 3], wanted[:, 3])


def test_unavailable_configuration_is_reported(irb140):
    model = nominal_model(irb140)
    q0 = np.radians([[20.0, 10.0, -20.0, 30.0, 45.0, -10.0]])
    R, p = fk(model, q0)
    result = solve_multistart(model, R, p, irb140.home[None],
                              accept=lambda q: np.zeros(q.shape[:2], dtype=bool))
    assert result.status[0] == Status.CONFIGURATION_NOT_FOUND


def test_confdata_columns_read_write_and_errors(tmp_path):
    from thermocomp.errors import InputError
    from thermocomp.io.targets_csv import read_targets_csv, write_targets_csv

    text = ("name,x_mm,y_mm,z_mm,quat_w,quat_x,quat_y,quat_z,cf1,cf4,cf6,cfx\n"
            "A,515,0,712,0.7071067811865476,0,0.7071067811865476,0,0,0,0,0\n"
            "B,400,100,500,0.7071067811865476,0,0.7071067811865476,0,0,-1,2,1\n")
    path = tmp_path / "t.csv"
    path.write_text(text)
    program = read_targets_csv(path)
    assert program.confdata.tolist() == [[0, 0, 0, 0], [0, -1, 2, 1]]
    write_targets_csv(program, tmp_path / "back.csv")
    assert read_targets_csv(tmp_path / "back.csv").confdata.tolist() == program.confdata.tolist()
    path.write_text(text.replace("0,-1,2,1", "0,-1,2,9"))
    with pytest.raises(InputError, match=r"t\.csv, line 3, column 'cfx'.*0 to 7"):
        read_targets_csv(path)
    path.write_text(text.replace("0,-1,2,1", "0,-1.5,2,1"))
    with pytest.raises(InputError, match=r"line 3, column 'cf4'"):
        read_targets_csv(path)
    path.write_text(text.replace(",cfx", "").replace(",0\n", "\n").replace(",1\n", "\n"))
    with pytest.raises(InputError, match="'cfx'"):
        read_targets_csv(path)


def test_cli_compensates_in_the_asked_configuration(tmp_path, irb140):
    """The wrist-flipped branch of a target (cfx odd: axis 5 negative) asked for by confdata."""
    import csv

    from thermocomp.cli.main import main

    model = nominal_model(irb140)
    q = np.radians([[10.0, 20.0, -10.0, 20.0, 40.0, 0.0]])
    R, p = fk(model, q)
    from thermocomp.geometry import euler_xyz_from_matrix
    e = np.degrees(euler_xyz_from_matrix(R[0])).tolist()
    xyz = (p[0] * 1e3).tolist()
    rows = []
    # flipped wrist: axis 4 -160 deg (quadrant -2), axis 5 -40 deg, axis 6 180 deg (quadrant 2)
    for name, cf4, cf6, cfx in (("up", 0, 0, 0), ("flipped", -2, 2, 1), ("impossible", 0, 0, 1)):
        rows.append(f"{name},{xyz[0]!r},{xyz[1]!r},{xyz[2]!r},{e[0]!r},{e[1]!r},{e[2]!r},0,{cf4},{cf6},{cfx}")
    targets = tmp_path / "t.csv"
    targets.write_text("name,x_mm,y_mm,z_mm,euler_xyz_a_deg,euler_xyz_b_deg,euler_xyz_c_deg,cf1,cf4,cf6,cfx\n"
                       + "\n".join(rows) + "\n")
    out = tmp_path / "out.csv"
    from helpers import REPO

    assert main(["compensate", "--deformation", str(REPO / "deformations" / "exaggerated.csv"), "--targets", str(targets),
                 "--static", "--allow-failures", "--out", str(out)]) == 0
    result = {r["target"]: r for r in csv.DictReader(open(out))}
    assert float(result["up"]["q5_deg"]) > 0 > float(result["flipped"]["q5_deg"])
    assert -180 < float(result["flipped"]["q4_deg"]) < -90 and 90 < float(result["flipped"]["q6_deg"]) < 270
    assert result["up"]["status"] == result["flipped"]["status"] == "converged"
    # axis 5 negative with axis 4 in quadrant 0 does not exist for this pose
    assert result["impossible"]["status"] == "configuration_not_found" and result["impossible"]["q1_deg"] == ""


def test_quadrants_of_angles_beyond_any_range_are_defined_and_quiet():
    """A joint angle of 1e30 rad (a MoveAbsJ of 1e30 deg, left to the limit checks) has a quadrant without a
    RuntimeWarning from the cast to int; ordinary angles keep theirs."""
    q = np.zeros((2, 6))
    q[0] = [1e30, 0.0, 0.0, -1e30, 0.0, np.pi]
    q[1] = [-0.1, 0.0, 0.0, 1.6, 0.0, 3.2]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = quadrants(q)
    assert got[0, 0] > 10**15 and got[0, 1] < -(10**15) and got[0, 2] == 2
    assert got[1].tolist() == [-1, 1, 2]
