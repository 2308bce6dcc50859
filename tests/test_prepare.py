"""thermocomp.app.prepare: the one place a command loads its robot and binds the deformation table and time law.

Checked against what it replaces: the readers and the authors' law themselves, and, end to end, that an
output over a file a robot file includes is refused before any work, whichever command it is.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from test_robot_xacro import make_package

from thermocomp.app.prepare import robot_and_table
from thermocomp.compensation.compensate import CompensationOptions
from thermocomp.deformation import DeformationTable, LinearRamp, Static
from thermocomp.deformation.coppeliasim_convention import AuthorsIncrements, authors_law
from thermocomp.errors import ConfigurationError, InputError
from thermocomp.io.deformation_csv import read_deformation_csv
from thermocomp.io.job import Job
from thermocomp.io.robot_files import RobotFileOptions
from thermocomp.io.robots import load_robot

REPO = Path(__file__).resolve().parent.parent
EXAGGERATED = REPO / "deformations" / "exaggerated.csv"


def test_the_table_is_read_for_the_robot_s_joints_and_the_convention_bound(tmp_path):
    bound = robot_and_table("irb140", EXAGGERATED)
    np.testing.assert_array_equal(bound.table.joints, read_deformation_csv(EXAGGERATED, 6).joints)
    assert bound.chain.name == load_robot("irb140").name and bound.options.time_law == CompensationOptions().time_law
    ramp = CompensationOptions(time_law=LinearRamp(200.0))
    authors = robot_and_table("irb140", EXAGGERATED, options=ramp, convention="authors-coppeliasim")
    assert isinstance(authors.options.time_law, AuthorsIncrements)  # the per-minute law is the options' time law
    static = robot_and_table("irb140", EXAGGERATED, options=CompensationOptions(time_law=Static()),
                             convention="authors-coppeliasim")
    want, _ = authors_law(load_robot("irb140"), read_deformation_csv(EXAGGERATED, 6), Static())
    for part in ("joints", "base", "tool"):
        np.testing.assert_array_equal(getattr(static.table, part), getattr(want, part))
    assert not np.array_equal(static.table.joints, bound.table.joints)  # the convention changed it
    turned = robot_and_table("irb140", EXAGGERATED, place=lambda c: c.replace(name="placed"))
    assert turned.chain.name == "placed"


def test_a_table_of_other_joints_is_refused_naming_the_file(tmp_path):
    five = tmp_path / "five.csv"
    five.write_text("\n".join(EXAGGERATED.read_text().splitlines()[:-1]) + "\n")
    with pytest.raises(InputError, match="five.csv"):
        robot_and_table("irb140", five)
    with pytest.raises(InputError, match="6"):
        robot_and_table("ur5", DeformationTable.from_mm_deg(np.zeros((5, 6))))


@pytest.mark.parametrize(("kwargs", "words"), [
    ({"convention": "scene"}, "--convention"),
    ({"convention": "authors-coppeliasim", "options": CompensationOptions(composition="eq21")},
     "--composition"),
    ({"joint_objects": "j.csv"}, "--joint-objects"),
])
def test_a_convention_s_options_are_checked_first(kwargs, words):
    with pytest.raises(ConfigurationError, match=words):
        robot_and_table("irb140", EXAGGERATED, **kwargs)


def test_a_robot_file_s_includes_are_inputs_of_the_job(tmp_path):
    arm = make_package(tmp_path / "ws")
    options = RobotFileOptions(package_paths=(tmp_path / "ws",), use_ros_package_path=False)
    with Job() as job:
        macro = job.output(arm.parent / "arm_macro.xacro", "--out")  # what a careless --out could name
        job.check()  # the robot file is not read yet: nothing to refuse
        bound = robot_and_table(arm, DeformationTable.from_mm_deg(np.zeros((2, 6))), job=job, robot_options=options)
        assert bound.chain.n_joints == 2
        job.write_text(macro, "clobbered")
        with pytest.raises(InputError, match="arm_macro.xacro"):
            job.commit()  # the include is an input now: refused at the commit, nothing written
    assert "clobbered" not in (arm.parent / "arm_macro.xacro").read_text()
