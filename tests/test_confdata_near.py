"""A robtarget's confdata as the controller holds it: axes 1, 4 and 6 within one quadrant, cfx exactly.

ABB's controller, moving with ``ConfJ \\On`` / ``ConfL \\On``, reaches a robtarget whose axis 4 or 6 lies just
across a quadrant border from the written ``cf4``/``cf6`` (a work object calibrated after the targets were taught
turns the wrist by a few degrees: real IRB120 programs write ``cf6 = 1`` for ``q6 = 181.5 deg``). The poses here
come from joint angles chosen by hand, and their confdata from ABB's definition (``floor(q / 90 deg)``, cfx's
bit 0 for a negative axis 5), not from thermocomp.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import run_program
from program_builders import robtarget_text

from thermocomp import CompensationOptions, DeformationTable, Targets, fk, load_robot, nominal_model
from thermocomp.app.jobs import CompensationFailed
from thermocomp.compensation.compensate import nominal_solutions
from thermocomp.geometry.rotations import transform
from thermocomp.kinematics.confdata import near_configuration
from thermocomp.kinematics.ik import Status

#: Axis 4 at 10 deg (cf4 0), axis 5 at -40 deg (cfx bit 0), axis 6 at 181.5 deg (cf6 2): ABB's
#: cf = [0, 0, 2, 1] (the arm in front of axis 1 and of the lower arm).
Q_DEG = [20.0, 10.0, -20.0, 10.0, -40.0, 181.5]
ABB_CONF = [0, 0, 2, 1]


@pytest.fixture(scope="module")
def irb140():
    return load_robot("irb140")


def _pose(chain):
    R, p = fk(nominal_model(chain), np.radians([Q_DEG]))
    return R, p


@pytest.mark.parametrize("written, near, expected", [
    (ABB_CONF, False, Status.CONVERGED),            # as taught
    ([0, 0, 1, 1], False, Status.CONFIGURATION_NOT_FOUND),  # cf6 one quadrant off: no exact solution
    ([0, 0, 1, 1], True, Status.CONVERGED),         # ... the controller's check takes q6 = 181.5 deg
    ([0, -1, 2, 1], True, Status.CONVERGED),        # cf4 one quadrant off
    ([0, 0, 0, 1], True, Status.CONFIGURATION_NOT_FOUND),  # two quadrants off: another configuration
    ([0, 0, 1, 0], True, Status.CONFIGURATION_NOT_FOUND),  # cfx differs (axis 5 positive): never near
])
def test_nominal_solutions_hold_confdata_within_a_quadrant(irb140, written, near, expected):
    R, p = _pose(irb140)
    targets = Targets(("t",), R, p, confdata=np.array([written]))
    found = nominal_solutions(irb140, targets, CompensationOptions(), near_quadrants=near)
    assert found.status[0] == expected
    if expected == Status.CONVERGED:
        np.testing.assert_allclose(np.degrees(found.q[0]), Q_DEG, atol=1e-6)


def _module(chain, confdata) -> str:
    R, p = _pose(chain)
    start = fk(nominal_model(chain), np.radians([[0.0, 0.0, 0.0, 0.0, 30.0, 0.0]]))
    return ("MODULE m\n"
            f"  CONST robtarget pStart:={robtarget_text(transform(*start)[0], [0, 0, 0, 0])};\n"
            f"  CONST robtarget pReady:={robtarget_text(transform(R, p)[0], confdata)};\n"
            "  PROC main()\n"
            "    MoveJ pStart, v100, fine, tool0;\n"
            "    MoveJ pReady, v100, fine, tool0;\n"
            "  ENDPROC\nENDMODULE\n")


def test_program_reaches_a_robtarget_taught_one_quadrant_off(irb140, tmp_path):
    """From the calibration pose (axis 5 at +30 deg) the path lands in the other wrist branch (axis 5 positive,
    cfx 0); the robtarget's configuration is then searched, and found within a quadrant of cf6."""
    path = tmp_path / "ready.mod"
    path.write_text(_module(irb140, [0, 0, 1, 1]))
    zero = DeformationTable.from_mm_deg(np.zeros((6, 6)))
    report = run_program("irb140", zero, path, tmp_path / "out.mod")
    assert report.summary.n_failed == 0
    assert (tmp_path / "out.mod").read_text() == path.read_text()  # a zero table gives the text back


def test_program_refuses_a_robtarget_two_quadrants_off(irb140, tmp_path):
    path = tmp_path / "ready.mod"
    path.write_text(_module(irb140, [0, 0, 0, 1]))
    zero = DeformationTable.from_mm_deg(np.zeros((6, 6)))
    with pytest.raises(CompensationFailed, match=r"ready\.mod:6:11: configuration_not_found"):
        run_program("irb140", zero, path, tmp_path / "out.mod")
    assert not (tmp_path / "out.mod").exists()


#: Axis 4 on the quadrant boundary at 0 deg, the rest as :data:`Q_DEG`: the angle is 90 deg from quadrant -2
#: (-180 to -90 deg), as a robtarget taught at axis 4 = -0.000001 deg (ABB: int(q / 90 deg - 1) = -1, one quadrant
#: from -2) and read back a hair above 0 is. ABB's own numbering of an exact boundary goes by the angle's sign
#: (RAPID Reference Manual, Basic Characteristics, "Robot configuration", Figures 33-34).
Q_BOUNDARY_DEG = [20.0, 10.0, -20.0, 0.0, -40.0, 181.5]


@pytest.mark.parametrize("q4_deg, expected", [
    (-1e-7, True),    # just below the boundary: quadrant -1, one from the written -2
    (0.0, True),      # on it
    (1e-7, True),     # just above (floor: quadrant 0, two from -2): within QUADRANT_BOUNDARY_TOL of it
    (0.01, False),    # 1.7e-4 rad past it: truly two quadrants off
    (-270.01, False),  # past the other end of quadrants -3..-1 (-270 to 0 deg): quadrant -4, two off
    (-270.0, True),   # that end itself
])
def test_near_configuration_takes_a_quadrant_boundary_as_both_quadrants(irb140, q4_deg, expected):
    q = np.radians([Q_BOUNDARY_DEG])
    q[0, 3] = np.radians(q4_deg)
    assert near_configuration(nominal_model(irb140), q, np.array([[0, -2, 2, 1]]))[0] == expected


@pytest.mark.parametrize("q4_deg, expected", [(0.0, Status.CONVERGED), (0.01, Status.CONFIGURATION_NOT_FOUND)])
def test_program_compensates_a_robtarget_taught_on_a_quadrant_boundary(irb140, tmp_path, q4_deg, expected):
    """A pose whose axis 4 lies on the 0 deg boundary, written cf4 = -2 (the quadrant the angle is 90 deg from),
    compensates and a zero table gives its text back; the same pose turned 0.01 deg past the boundary is truly two
    quadrants off and is reported."""
    q = np.radians([Q_BOUNDARY_DEG])
    q[0, 3] = np.radians(q4_deg)
    R, p = fk(nominal_model(irb140), q)
    path = tmp_path / "edge.mod"
    path.write_text("MODULE m\n"
                    f"  CONST robtarget pEdge:={robtarget_text(transform(R, p)[0], [0, -2, 2, 1])};\n"
                    "  PROC main()\n    MoveL pEdge, v100, fine, tool0;\n  ENDPROC\nENDMODULE\n")
    zero = DeformationTable.from_mm_deg(np.zeros((6, 6)))
    if expected == Status.CONVERGED:
        report = run_program("irb140", zero, path, tmp_path / "out.mod")
        assert report.summary.n_failed == 0
        assert (tmp_path / "out.mod").read_text() == path.read_text()
    else:
        with pytest.raises(CompensationFailed, match=r"edge\.mod:4:11: configuration_not_found"):
            run_program("irb140", zero, path, tmp_path / "out.mod")
