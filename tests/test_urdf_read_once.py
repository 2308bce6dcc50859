"""A URDF is read once per command (issue 36): every reader takes the one reading (io/urdf.parse_urdf)."""

from __future__ import annotations

import numpy as np
from helpers import urdf_parameters_of

from thermocomp.io import urdf as urdf_module
from thermocomp.io import xml_values
from thermocomp.io.robot_files import read_robot_description
from thermocomp.io.robots import load_robot
from thermocomp.io.urdf import parse_urdf, urdf_chain, write_urdf


def _counting(monkeypatch) -> list[int]:
    calls: list[int] = []
    real = xml_values.parse_xml

    def parse_xml(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(urdf_module, "parse_xml", parse_xml)
    return calls


def test_the_dynamics_reader_reads_the_file_once(tmp_path, monkeypatch):
    path = tmp_path / "irb140.urdf"
    write_urdf(load_robot("irb140"), path)
    calls = _counting(monkeypatch)
    robot = urdf_parameters_of(path)
    robot.description.files()  # (the outputs' check reads the meshes it names from the same reading)
    assert len(calls) == 1
    assert robot.chain.n_joints == 6


def test_a_read_document_gives_the_chain_of_its_text(tmp_path):
    """urdf_chain of the text and of its reading are the same chain; the reading lists the movable joints the
    chain has, in order."""
    path = tmp_path / "ur5.urdf"
    write_urdf(load_robot("ur5"), path)
    text = path.read_text()
    read = parse_urdf(text, str(path))
    a, b = urdf_chain(text, str(path)), urdf_chain(read, str(path))
    np.testing.assert_array_equal(a.p, b.p)
    np.testing.assert_array_equal(a.axis, b.axis)
    assert read_robot_description(path).parsed.name == read.name == a.name
    moving = [j for j in read.joints if j.type in ("revolute", "continuous")]
    assert [j.name for j in moving] == list(a.joint_names)
