"""The paper authors' CoppeliaSim scene convention, on cases computed by hand.

Hand-computed facts used below (R = Rx Ry Rz, CoppeliaSim's Euler convention):
- Ry(90) Rz(c) Ry(-90) = Rx(c): at beta = 90 deg a gamma increment turns about world x,
  like an alpha increment does; so a joint whose axis is world x turns by a + c about x.
- Ry(90 + e) with e > 0.18 deg reads back as (180, 90 - e, 180) (regular branch), and
  (180, 90, 180) rebuilds Ry(90): two increments of e about y bring the joint back.
"""

from __future__ import annotations

import numpy as np
import pytest

from thermocomp import DeformationTable, LinearRamp, Static, load_robot
from thermocomp.deformation.apply import deformed_model
from thermocomp.deformation.coppeliasim_convention import (
    AUTHORS_IRB140_JOINT_EULER_DEG,
    COPPELIASIM_GIMBAL_R02,
    authors_deformation_table,
    authors_deformation_tables,
    authors_scene_poses,
    convention_difference,
    coppeliasim_euler_from_matrix,
    joint_object_orientations,
)
from thermocomp.errors import ConfigurationError, InputError
from thermocomp.geometry.rotations import (
    matrix_from_euler_xyz,
    rot_x,
    rot_y,
    rot_z,
    transform,
)
from thermocomp.kinematics.fk import fk_matrix
from thermocomp.robot.chain import Chain
from thermocomp.tolerances import ROUNDTRIP_ANGLE_TOL, ROUNDTRIP_POSITION_TOL

DEG = np.pi / 180.0
#: A chain of 6 products of 4x4 transforms in double precision: a few 1e-16 per step.
ROUND_OFF = 1e-13


def one_joint_x() -> tuple[Chain, np.ndarray]:
    """A single joint 0.3 m above the base, axis world x; joint object at Euler (0, 90, 0)."""
    chain = Chain("x_joint", ("j1",), p=[[0.0, 0.0, 0.3]], axis=[[1.0, 0.0, 0.0]], sign=[1.0], offset=[0.0],
                  lower=[-np.pi], upper=[np.pi], velocity=[1.0])
    return chain, matrix_from_euler_xyz(np.radians([[0.0, 90.0, 0.0]]))


def two_joints_z() -> tuple[Chain, np.ndarray]:
    """Joint 1 at the origin, joint 2 0.5 m along x; both axes world z, joint objects unrotated."""
    chain = Chain("two", ("j1", "j2"), p=[[0.0, 0.0, 0.0], [0.5, 0.0, 0.0]], axis=[[0, 0, 1.0], [0, 0, 1.0]],
                  sign=[1.0, 1.0], offset=[0.0, 0.0], lower=[-np.pi] * 2, upper=[np.pi] * 2, velocity=[1.0] * 2)
    return chain, np.broadcast_to(np.eye(3), (2, 3, 3)).copy()


def table_mm_deg(*rows) -> DeformationTable:
    return DeformationTable.from_mm_deg(rows)


def assert_rows(table: DeformationTable, want_mm_deg) -> None:
    want = np.array(want_mm_deg, dtype=float)
    np.testing.assert_allclose(table.joints[:, :3] * 1e3, want[:, :3], atol=1e-9)
    np.testing.assert_allclose(np.degrees(table.joints[:, 3:]), want[:, 3:], atol=1e-9)


# --- CoppeliaSim's Euler read-back ------------------------------------------------------------

def test_euler_readback_regular_branch_rebuilds_the_matrix(rng):
    angles = rng.uniform([-np.pi, -1.4, -np.pi], [np.pi, 1.4, np.pi], size=(200, 3))
    R = matrix_from_euler_xyz(angles)
    np.testing.assert_allclose(coppeliasim_euler_from_matrix(R), angles, atol=1e-12)


def test_euler_readback_gimbal_branch_is_coppeliasims():
    # Rx(30) Ry(90) Rz(20) = Ry(90) Rz(50): at gimbal lock CoppeliaSim returns (0, 90, 50).
    R = matrix_from_euler_xyz(np.radians([30.0, 90.0, 20.0]))
    np.testing.assert_allclose(np.degrees(coppeliasim_euler_from_matrix(R)), [0.0, 90.0, 50.0], atol=1e-12)
    # Ry(90.1): R02 = cos(0.1 deg) = 0.9999985 >= 0.999995 -> still the lock branch: beta reads 89.9, not 90.1.
    R = rot_y(np.radians(90.1))
    assert R[0, 2] >= COPPELIASIM_GIMBAL_R02
    np.testing.assert_allclose(np.degrees(coppeliasim_euler_from_matrix(R)), [0.0, 89.9, 0.0], atol=1e-9)
    # Ry(90.5): R02 = cos(0.5 deg) = 0.99996 < 0.999995 -> regular branch, (+-180, 89.5, +-180).
    a, b, c = np.degrees(coppeliasim_euler_from_matrix(rot_y(np.radians(90.5))))
    assert abs(abs(a) - 180.0) < 1e-9 and abs(b - 89.5) < 1e-9 and abs(abs(c) - 180.0) < 1e-9


# --- single joint on the world x axis, at gimbal lock --------------------------------------------

def test_joint_on_world_x_alpha_and_gamma_both_turn_about_x():
    chain, R0 = one_joint_x()
    converted = authors_deformation_table(chain, table_mm_deg([1, 2, 3, 0.4, 0.0, 0.7]), R_world_joint=R0)
    # World-frame translation = base-oriented translation here; deviation Rx(0.4 + 0.7).
    assert_rows(converted, [[1, 2, 3, 1.1, 0.0, 0.0]])


def test_joint_on_world_x_incremental_tilt_comes_back():
    chain, R0 = one_joint_x()
    table = table_mm_deg([0, 0, 0, 0.0, 1.0, 0.0])
    assert_rows(authors_deformation_table(chain, table, R_world_joint=R0), [[0, 0, 0, 0, 1.0, 0]])
    # Two minutes of D/2: 90 -> 90.5 (reads 89.5 with alpha = gamma = 180) -> 90: nominal again.
    after_two = authors_deformation_table(chain, table, 2.0, LinearRamp(2.0), R_world_joint=R0)
    assert_rows(after_two, [[0, 0, 0, 0, 0, 0]])
    after_one = authors_deformation_table(chain, table, 1.0, LinearRamp(2.0), R_world_joint=R0)
    assert_rows(after_one, [[0, 0, 0, 0, 0.5, 0]])


def test_incremental_law_over_one_minute_is_the_one_shot_law():
    chain = load_robot("irb140")
    table = DeformationTable.from_mm_deg(np.full((6, 6), 1.0))
    one_shot = authors_deformation_table(chain, table)
    one_step = authors_deformation_table(chain, table, 1.0, LinearRamp(1.0))
    np.testing.assert_array_equal(one_step.joints, one_shot.joints)
    # ... but 200 steps of D/200 are not one step of D: the exaggerated case differs by degrees.
    incremental = authors_deformation_table(chain, table, 200.0, LinearRamp(200.0))
    assert np.degrees(np.abs(incremental.joints[:, 3:] - one_shot.joints[:, 3:]).max()) > 0.5


def test_minute_zero_of_the_incremental_law_is_the_nominal_robot():
    chain = load_robot("irb140")
    table = DeformationTable.from_mm_deg(np.full((6, 6), 1.0))
    zero = authors_deformation_table(chain, table, 0.0, LinearRamp(200.0))
    assert np.abs(zero.joints).max() < ROUND_OFF


# --- two joints: the child follows its parent ------------------------------------------------------

def test_child_follows_parent_rotation():
    chain, R0 = two_joints_z()
    converted = authors_deformation_table(chain, table_mm_deg([0, 0, 0, 0, 0, 30.0], [0, 0, 0, 0, 0, 0]),
                                          R_world_joint=R0)
    # Joint 1 turns 30 deg about z; joint 2 is carried along: nothing left to add for joint 2.
    assert_rows(converted, [[0, 0, 0, 0, 0, 30.0], [0, 0, 0, 0, 0, 0]])


def test_child_world_translation_lands_in_the_turned_parent_frame():
    chain, R0 = two_joints_z()
    d = 2.0  # mm along world x, added after joint 1 turned 30 deg
    converted = authors_deformation_table(chain, table_mm_deg([0, 0, 0, 0, 0, 30.0], [d, 0, 0, 0, 0, 0]),
                                          R_world_joint=R0)
    c, s = np.cos(30 * DEG), np.sin(30 * DEG)
    assert_rows(converted, [[0, 0, 0, 0, 0, 30.0], [d * c, -d * s, 0, 0, 0, 0]])
    # The paper's table form would read the same row as (2, 0, 0) in joint 1's frame instead.


# --- the converted table rebuilds the scene ------------------------------------------------------------

def scene_fk(T_world_joint: np.ndarray, T_world_tip: np.ndarray, q: np.ndarray) -> np.ndarray:
    """TCP from scene poses: each joint turns its descendants about its own z axis (independent FK)."""
    T = np.eye(4)
    previous = np.eye(4)
    for G, qi in zip(T_world_joint, q):
        T = T @ np.linalg.inv(previous) @ G @ transform(rot_z(qi))
        previous = G
    return T @ np.linalg.inv(previous) @ T_world_tip


@pytest.mark.parametrize("law,minute", [(Static(), None), (LinearRamp(200.0), 200.0), (LinearRamp(200.0), 37.0)])
def test_converted_table_rebuilds_the_scene_fk(rng, law, minute):
    chain = load_robot("irb140")
    table = DeformationTable.from_mm_deg(rng.uniform(-1, 1, size=(6, 6)))
    converted = authors_deformation_table(chain, table, minute, law)
    passes, scale = (1, 1.0) if minute is None else (int(minute), 1 / 200.0)
    G, tip = authors_scene_poses(chain, table.joints * scale, passes)
    model = deformed_model(chain, converted)
    for q in rng.uniform(chain.lower, chain.upper, size=(20, 6)):
        T_scene = scene_fk(G, tip, q)
        T_model = fk_matrix(model, q)
        np.testing.assert_allclose(T_model[:3, 3], T_scene[:3, 3], atol=ROUND_OFF)
        np.testing.assert_allclose(T_model[:3, :3], T_scene[:3, :3], atol=ROUND_OFF)


def test_zero_table_is_the_nominal_robot():
    chain = load_robot("irb140")
    converted = authors_deformation_table(chain, DeformationTable.zero(6))
    assert np.abs(converted.joints[:, :3]).max() < ROUNDTRIP_POSITION_TOL
    assert np.abs(converted.joints[:, 3:]).max() < ROUNDTRIP_ANGLE_TOL
    np.testing.assert_array_equal(converted.tool, np.zeros(6))


def test_tables_for_many_minutes_equal_one_at_a_time():
    chain = load_robot("irb140")
    table = DeformationTable.from_mm_deg(np.full((6, 6), 1.0))
    many = authors_deformation_tables(chain, table, [50.0, 0.0, 200.0, 120.0], LinearRamp(200.0))
    for minute, got in zip([50.0, 0.0, 200.0, 120.0], many):
        one = authors_deformation_table(chain, table, minute, LinearRamp(200.0))
        np.testing.assert_array_equal(got.joints, one.joints)


# --- the measured difference from the paper's model ------------------------------------------------------

def test_exaggerated_case_differs_by_tens_of_millimetres():
    chain = load_robot("irb140")
    table = DeformationTable.from_mm_deg(np.full((6, 6), 1.0))
    diff = convention_difference(chain, table, n_configurations=300, seed=1)
    assert 10e-3 < np.median(diff.position) < 100e-3
    assert 10e-3 < diff.position.max() < 100e-3
    assert "authors' scene vs paper's model" in diff.text()


# --- input checks ---------------------------------------------------------------------------------------------

def test_irb140_default_orientations_have_the_chain_axes():
    chain = load_robot("irb140")
    R = joint_object_orientations(chain)
    np.testing.assert_allclose(R, matrix_from_euler_xyz(np.radians(AUTHORS_IRB140_JOINT_EULER_DEG)))


def test_other_robots_need_their_scene_orientations():
    with pytest.raises(InputError, match="built in only for irb140"):
        joint_object_orientations(load_robot("ur5"))


def test_wrong_joint_object_axis_is_named():
    chain = load_robot("irb140")
    R = matrix_from_euler_xyz(np.radians(AUTHORS_IRB140_JOINT_EULER_DEG))
    R[3] = rot_x(0.0)  # joint 4's object with z up, but joint 4 turns about x
    with pytest.raises(InputError, match="joint 4: expected the joint object's z axis"):
        joint_object_orientations(chain, R)


def test_incremental_law_needs_whole_minutes():
    chain = load_robot("irb140")
    table = DeformationTable.zero(6)
    with pytest.raises(ConfigurationError, match="whole minute"):
        authors_deformation_table(chain, table, 10.5, LinearRamp(200.0))
    with pytest.raises(ConfigurationError, match="whole number of minutes"):
        authors_deformation_table(chain, table, 10.0, LinearRamp(180.5))


def test_base_and_tool_rows_are_refused():
    chain = load_robot("irb140")
    table = DeformationTable(joints=np.zeros((6, 6)), tool=[0, 0, 1e-3, 0, 0, 0], source="t.csv")
    with pytest.raises(InputError, match="zero base and tool rows"):
        authors_deformation_table(chain, table)
