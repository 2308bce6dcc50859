"""The CoppeliaSim adapter driving the unchanged official client against the fake CoppeliaSim."""

from __future__ import annotations

import socket as pysocket
import time
from pathlib import Path

import cbor2
import numpy as np
import pytest
import zmq
from coppeliasim_fake import FakeCoppeliaSim, build_irb140_scene
from coppeliasim_fake.fixtures import START_DEG, TIMEOUT_S, fake_irb140, session  # noqa: F401  (fixtures)
from coppeliasim_fake.scene import HANDLE_WORLD, LEGACY_FUNCTIONS
from coppeliasim_zmqremoteapi_client import RemoteAPIClient

from thermocomp import DeformationTable, Static, load_robot
from thermocomp.app.coppeliasim import compensate_in_scene
from thermocomp.compensation.compensate import CompensationOptions
from thermocomp.deformation.apply import deformed_model
from thermocomp.deformation.coppeliasim_convention import (
    authors_deformation_table,
    authors_scene_poses,
)
from thermocomp.io.targets_csv import read_targets_csv
from thermocomp.kinematics.fk import fk_matrix
from thermocomp.kinematics.model import nominal_model
from thermocomp.simulators.coppeliasim import (
    CURRENT_SIM_FUNCTIONS,
    LEGACY_SIM_FUNCTIONS,
    SIM_FUNCTIONS,
    CoppeliaSimProtocolMismatch,
    CoppeliaSimServerError,
    CoppeliaSimUnreachable,
    SceneError,
    apply_authors_script,
    connect,
    deformation_shown,
    joint_positions,
    preserved,
    read_robot,
    read_tip,
    set_joint_positions,
)
from thermocomp.simulators.coppeliasim.api import (
    CurrentApi,
    LegacyApi,
    T_from_pose_xyzw,
)
from thermocomp.simulators.coppeliasim.connection import client_version
from thermocomp.simulators.coppeliasim.scene import save_state
from thermocomp.tolerances import IK_POSITION_TOL

REPO = Path(__file__).resolve().parents[1]
EXAGGERATED = REPO / "deformations" / "exaggerated.csv"
TARGETS = REPO / "examples" / "targets_random50.csv"
#: Poses read from the fake are products of ~20 quaternion/matrix operations: 1e-13 covers their round-off.
ROUND_OFF = 1e-13
#: The authors' script near gimbal lock (joints 4 and 6, beta within a degree of 90) reads
#: alpha = atan2(-R12, R22) from entries of size cos(beta) ~ 1e-5: round-off of 1e-16 in the
#: stored pose becomes ~1e-11 in the angles, so the fake's quaternion storage and the
#: conversion's matrices agree to about that, not to 1e-13.
GIMBAL_ROUND_OFF = 1e-9


def world_matrices(fake, handles):
    """World matrices (12 numbers each) as the fake scene holds them: read beside the adapter, not through it."""
    return np.array([fake.scene.get_pose(h, HANDLE_WORLD).matrix12() for h in handles])


# --- connecting ---------------------------------------------------------------------------------------

def test_connect_reports_versions_port_and_api(fake_irb140, session):
    expected = {"4.6": ("4.6.0 rev 18", LegacyApi), "4.10": ("4.10.0 rev 5", CurrentApi)}[fake_irb140.version]
    assert session.coppeliasim_version == expected[0]
    assert type(session.api) is expected[1]
    text = session.describe()
    assert f"CoppeliaSim {expected[0]} at tcp://127.0.0.1:{fake_irb140.port} (port {fake_irb140.port})" in text
    assert session.api.name in text
    assert f"protocol 2 (coppeliasim-zmqremoteapi-client {client_version()})" in text


def test_4_9_reads_its_version_the_old_way_and_keeps_the_old_calls():
    """4.8-4.9 have getIntProperty but no app.productVersionNb (nil with noError): getInt32Param then."""
    with FakeCoppeliaSim(build_irb140_scene(START_DEG), version="4.9", lifetime_s=20) as server:
        with connect("127.0.0.1", server.port, TIMEOUT_S) as session:
            assert session.coppeliasim_version == "4.9.0 rev 6" and type(session.api) is LegacyApi
            robot = read_robot(session, "/IRB140", tip_path="/IRB140/tip")
            with preserved(session, robot):
                pass
        assert server.calls.index("sim.getIntProperty") < server.calls.index("sim.getInt32Param")
        assert {"readCustomDataBlock", "writeCustomDataBlock"} <= server.sim_calls
        assert not {"getBufferProperty", "setBufferProperty"} & server.sim_calls


def test_a_loaded_sim_2_is_used_as_it_is_not_swapped_for_sim_1():
    """On the 4.10 head a user's script may have required sim-2, which sets the server's global sim for every
    client: the adapter works with it (no legacy calls needed) and never requires sim again."""
    with FakeCoppeliaSim(build_irb140_scene(START_DEG), version="4.10", lifetime_s=30) as server:
        user = RemoteAPIClient("127.0.0.1", server.port)
        user.socket.setsockopt(zmq.RCVTIMEO, 2000)
        user.call("zmqRemoteApi.require", ["sim-2"])
        with connect("127.0.0.1", server.port, TIMEOUT_S) as session:
            assert session.coppeliasim_version == "4.10.0 rev 5" and type(session.api) is CurrentApi
            assert not session.has("getObjectMatrix")  # sim-2 indeed
            robot = read_robot(session, "/IRB140", tip_path="/IRB140/tip")
            program = read_targets_csv(TARGETS, n_joints=6)
            report, check = compensate_in_scene(session, robot, DeformationTable.from_mm_deg(np.full((6, 6), 1.0)),
                                                program, options=CompensationOptions(time_law=Static(), minutes=(0.0,)))
            assert check.position_to_target.max() < 1e-9
        assert server.loaded == "sim-2" and server.calls.count("zmqRemoteApi.require") == 1
        assert not server.sim_calls & LEGACY_FUNCTIONS


def test_unreachable_server_fails_fast_and_clearly():
    with pysocket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    start = time.monotonic()
    with pytest.raises(CoppeliaSimUnreachable, match=rf"tcp://127.0.0.1:{port} within 0.3 s.*Start CoppeliaSim"):
        connect("127.0.0.1", port, 0.3)
    assert time.monotonic() - start < 2.0


def test_protocol_mismatch_names_both_versions():
    with FakeCoppeliaSim(build_irb140_scene(), protocol=1, lifetime_s=20) as server:
        with pytest.raises(CoppeliaSimProtocolMismatch) as info:
            connect("127.0.0.1", server.port, TIMEOUT_S)
    message = str(info.value)
    assert "speaks protocol 2" in message and f"coppeliasim-zmqremoteapi-client {client_version()}" in message
    assert "answered in protocol 1 (replies 'success'/'error')" in message


class BundledClient(RemoteAPIClient):
    """The receive side of the client CoppeliaSim ships from 4.9.0 rev 6 on (zmqRemoteApi
    clients/python, ``initialTimeout``; the registry's 2.0.4 lacks it), rewritten here from its
    behaviour: the first reply is awaited ``initialTimeout`` seconds, after which a bare
    ``Exception("Failed connecting to CoppeliaSim.")`` is raised; that receive timeout stays on the
    socket for every later call (where a timeout is a bare ``zmq.Again``)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.initialTimeout = 1  # 5 in the real client: shorter here, the behaviour is the same

    def _recv(self):
        if self.initialTimeout > 0:
            self.socket.RCVTIMEO = self.initialTimeout * 1000
            try:
                raw = self.socket.recv()
            except zmq.Again:
                raise Exception("Failed connecting to CoppeliaSim.") from None  # noqa: TRY002 -- as the client does
            self.initialTimeout = 0
            return cbor2.loads(raw)
        return super()._recv()


@pytest.fixture
def bundled_client(monkeypatch):
    import coppeliasim_zmqremoteapi_client

    monkeypatch.setattr(coppeliasim_zmqremoteapi_client, "RemoteAPIClient", BundledClient)


def test_bundled_client_keeps_the_sessions_timeout(bundled_client):
    with FakeCoppeliaSim(build_irb140_scene(), lifetime_s=20) as server:
        with connect("127.0.0.1", server.port, 0.3) as session:
            assert isinstance(session._client, BundledClient) and session._client.initialTimeout == 0
            server.stall("sim.getObject", 0.9)
            start = time.monotonic()
            with pytest.raises(CoppeliaSimUnreachable, match="stopped answering.*within 0.3 s"):
                session.call("getObject", "/IRB140", {"noError": True})
            assert time.monotonic() - start < 0.8  # the session's 0.3 s, not the client's own
            time.sleep(0.7)
            assert session.call("getObject", "/IRB140", {"noError": True}) > 0  # reconnected by itself


def test_bundled_clients_timeout_exception_is_not_a_server_error(bundled_client):
    with FakeCoppeliaSim(build_irb140_scene(), lifetime_s=20) as server:
        with connect("127.0.0.1", server.port, 2.0) as session:
            session._client.initialTimeout = 1  # as if the first-contact guard were still armed
            server.stall("sim.getObject", 1.3)
            with pytest.raises(CoppeliaSimUnreachable, match="got no reply within the client's 5 s") as info:
                session.call("getObject", "/IRB140", {"noError": True})
            assert not isinstance(info.value, CoppeliaSimServerError)
            assert session._broken  # the REQ socket still waits for that reply: the next call reconnects
            time.sleep(0.4)
            assert session.call("getObject", "/IRB140", {"noError": True}) > 0


def test_server_that_stops_answering_times_out(fake_irb140, session):
    fake_irb140.stop()
    start = time.monotonic()
    with pytest.raises(CoppeliaSimUnreachable, match="stopped answering"):
        session.call("getObject", "/IRB140", {"noError": True})
    assert time.monotonic() - start < TIMEOUT_S + 1.0


# --- reading the robot -------------------------------------------------------------------------------------

def test_chain_read_from_the_scene_is_the_builtin_irb140(session, rng):
    robot = read_robot(session, "/IRB140", tip_path="/IRB140/tip")
    irb = load_robot("irb140")
    c = robot.chain
    np.testing.assert_allclose(c.p, irb.p, atol=ROUND_OFF)
    np.testing.assert_allclose(c.axis, irb.axis, atol=ROUND_OFF)
    np.testing.assert_allclose(c.T_last_tcp, irb.T_last_tcp, atol=ROUND_OFF)
    np.testing.assert_allclose(c.T_world_base, irb.T_world_base, atol=ROUND_OFF)
    np.testing.assert_allclose(c.lower, irb.lower, atol=1e-15)
    np.testing.assert_allclose(c.upper, irb.upper, atol=1e-15)
    np.testing.assert_allclose(np.degrees(c.home), START_DEG, atol=1e-12)  # the scene's configuration
    q = rng.uniform(irb.lower, irb.upper, size=(100, 6))
    np.testing.assert_allclose(fk_matrix(nominal_model(c), q), fk_matrix(nominal_model(irb), q), atol=ROUND_OFF)
    # ... and the chain was read without moving the robot.
    np.testing.assert_allclose(np.degrees(joint_positions(session, robot)), START_DEG, atol=1e-12)


def test_scene_tip_equals_our_fk(session, rng):
    robot = read_robot(session, "/IRB140", tip_path="/IRB140/tip")
    irb = load_robot("irb140")
    with preserved(session, robot):
        for q in rng.uniform(irb.lower, irb.upper, size=(10, 6)):
            set_joint_positions(session, robot, q)
            np.testing.assert_allclose(read_tip(session, robot), fk_matrix(nominal_model(irb), q), atol=ROUND_OFF)


def test_without_tip_object_the_tcp_is_the_last_joint_frame(session):
    robot = read_robot(session, "/IRB140")
    assert robot.tip is None
    np.testing.assert_allclose(robot.chain.T_last_tcp, load_robot("irb140").T_last_tcp, atol=ROUND_OFF)
    q = np.radians(START_DEG)
    np.testing.assert_allclose(read_tip(session, robot), fk_matrix(nominal_model(robot.chain), q), atol=ROUND_OFF)


def test_scene_errors_are_clear(session):
    with pytest.raises(SceneError, match="no object at '/UR5'"):
        read_robot(session, "/UR5")
    with pytest.raises(SceneError, match="expected a CoppeliaSim object path"):
        read_robot(session, "IRB140")
    with pytest.raises(SceneError, match="must hang under the last joint"):
        read_robot(session, "/IRB140", tip_path="/IRB140/link")


def test_branching_joints_are_not_a_serial_arm():
    with FakeCoppeliaSim(build_irb140_scene(extra_branch=True), lifetime_s=20) as server:
        with connect("127.0.0.1", server.port, TIMEOUT_S) as s:
            with pytest.raises(SceneError, match="do not form one serial chain"):
                read_robot(s, "/IRB140")


# --- showing the deformation, always restoring -------------------------------------------------------------

def test_deformation_shown_then_restored_exactly(fake_irb140, session):
    robot = read_robot(session, "/IRB140", tip_path="/IRB140/tip")
    before_state = save_state(session, robot)
    before_world = world_matrices(fake_irb140, robot.handles)
    table = DeformationTable.from_mm_deg(np.full((6, 6), 1.0))
    model = deformed_model(robot.chain, table, 50.0)  # magnified 50 times
    q = np.radians(START_DEG)
    with deformation_shown(session, robot, model):
        np.testing.assert_allclose(read_tip(session, robot), fk_matrix(model, q), atol=ROUND_OFF)
        assert np.abs(world_matrices(fake_irb140, robot.handles) - before_world).max() > 0.01
    assert save_state(session, robot) == before_state  # bit for bit
    np.testing.assert_array_equal(world_matrices(fake_irb140, robot.handles), before_world)


@pytest.mark.parametrize("interruption", [RuntimeError, KeyboardInterrupt])
def test_scene_restored_on_errors_and_ctrl_c(session, interruption):
    robot = read_robot(session, "/IRB140", tip_path="/IRB140/tip")
    before = save_state(session, robot)
    model = deformed_model(robot.chain, DeformationTable.from_mm_deg(np.full((6, 6), 1.0)))
    with pytest.raises(interruption):
        with deformation_shown(session, robot, model):
            set_joint_positions(session, robot, np.zeros(6))
            raise interruption("stop")
    assert save_state(session, robot) == before


def test_interrupted_call_reconnects_before_restoring(session):
    robot = read_robot(session, "/IRB140", tip_path="/IRB140/tip")
    before = save_state(session, robot)
    model = deformed_model(robot.chain, DeformationTable.from_mm_deg(np.full((6, 6), 1.0)))

    class Interrupt(KeyboardInterrupt):
        pass

    with pytest.raises(Interrupt):
        with deformation_shown(session, robot, model):
            # Ctrl-C between a request and its reply: the REQ socket is left waiting.
            session._client.socket.send(b"\xa0")
            session._broken = False
            session._guarded(lambda: (_ for _ in ()).throw(Interrupt()), "sim.test")
    assert save_state(session, robot) == before


def test_magnified_display_without_tip_refuses_a_tool_row(session):
    robot = read_robot(session, "/IRB140")
    table = DeformationTable(joints=np.zeros((6, 6)), tool=[0, 0, 1e-3, 0, 0, 0])
    with pytest.raises(SceneError, match="moves the tool frame"):
        with deformation_shown(session, robot, deformed_model(robot.chain, table)):
            pass


# --- compensation through the adapter ---------------------------------------------------------------------------

def test_compensated_program_reaches_the_targets_in_the_scene(session, tmp_path):
    robot = read_robot(session, "/IRB140", tip_path="/IRB140/tip")
    program = read_targets_csv(TARGETS, n_joints=6)
    table = DeformationTable.from_mm_deg(np.full((6, 6), 1.0), source=str(EXAGGERATED))
    before = save_state(session, robot)
    report, check = compensate_in_scene(session, robot, table, program,
                                        options=CompensationOptions(time_law=Static(), minutes=(0.0,)),
                                        out=tmp_path / "out.csv")
    assert check.n_rows == report.summary.n_rows == 50
    assert check.position_to_target.max() < 1e-9  # 1e-6 mm
    assert check.position_to_target.max() <= IK_POSITION_TOL * 10
    assert check.angle_to_target.max() < 1e-8
    assert check.position_to_model.max() < ROUND_OFF
    assert (tmp_path / "out.csv").is_file()
    assert save_state(session, robot) == before
    # The uncompensated program would miss by millimetres on the same robot: the check can fail.
    assert report.summary.uncompensated_max_position > 1e-3


def test_adapter_uses_only_the_documented_sim_functions(fake_irb140, session, tmp_path):
    robot = read_robot(session, "/IRB140", tip_path="/IRB140/tip")
    with preserved(session, robot):
        apply_authors_script(session, robot, np.full((6, 6), 1e-3))
    program = read_targets_csv(TARGETS, n_joints=6)
    compensate_in_scene(session, robot, DeformationTable.zero(6), program,
                        options=CompensationOptions(time_law=Static(), minutes=(0.0,)))
    # Per generation: the common calls and that generation's own; on 4.10, none of the functions the
    # development head keeps only in its legacy table (sim-2 lacks them).
    own = LEGACY_SIM_FUNCTIONS if fake_irb140.version == "4.6" else CURRENT_SIM_FUNCTIONS
    assert fake_irb140.sim_calls <= set(SIM_FUNCTIONS) | set(own)
    if fake_irb140.version == "4.10":
        assert not fake_irb140.sim_calls & LEGACY_FUNCTIONS, sorted(fake_irb140.sim_calls & LEGACY_FUNCTIONS)
        assert {"getBufferProperty", "setBufferProperty", "removeProperty", "getHandleProperty"} <= fake_irb140.sim_calls
    else:
        assert {"readCustomDataBlock", "writeCustomDataBlock", "getObjectParent"} <= fake_irb140.sim_calls


# --- the authors' script, literally, against its table-form conversion -------------------------------------------

def test_authors_script_in_the_scene_equals_the_conversion(fake_irb140, session, rng):
    robot = read_robot(session, "/IRB140", tip_path="/IRB140/tip")
    irb = load_robot("irb140")
    table = DeformationTable.from_mm_deg(np.full((6, 6), 1.0))
    passes = 3
    with preserved(session, robot):
        apply_authors_script(session, robot, table.joints / 200.0, passes=passes)
        scene_joints = world_matrices(fake_irb140, robot.joints)
        set_joint_positions(session, robot, np.zeros(6))
        G, tip = authors_scene_poses(irb, table.joints / 200.0, passes, robot.R_world_joint)
        np.testing.assert_allclose(scene_joints.reshape(6, 3, 4), G[:, :3, :], atol=GIMBAL_ROUND_OFF)
        np.testing.assert_allclose(read_tip(session, robot), tip, atol=GIMBAL_ROUND_OFF)
        converted = authors_deformation_table(robot.chain, table, float(passes), _ramp(200.0), robot.R_world_joint)
        model = deformed_model(robot.chain, converted)
        for q in rng.uniform(irb.lower, irb.upper, size=(5, 6)):
            set_joint_positions(session, robot, q)
            np.testing.assert_allclose(read_tip(session, robot), fk_matrix(model, q), atol=GIMBAL_ROUND_OFF)


def _ramp(T):
    from thermocomp.deformation.timelaw import LinearRamp

    return LinearRamp(T)


def test_pose_conversion_checks_its_input():
    with pytest.raises(ValueError, match="7 numbers"):
        T_from_pose_xyzw([1.0, 2.0])


def test_scene_check_groups_rows_by_fraction_under_the_ramp_law(session, tmp_path):
    """Paper convention, ramp law: each checked minute's rows are replayed on that minute's deformed robot."""
    from thermocomp.deformation.timelaw import LinearRamp

    robot = read_robot(session, "/IRB140", tip_path="/IRB140/tip")
    program = read_targets_csv(TARGETS, n_joints=6)
    table = DeformationTable.from_mm_deg(np.full((6, 6), 1.0))
    options = CompensationOptions(time_law=LinearRamp(200.0), minutes=(0.0, 100.0, 200.0))
    report, check = compensate_in_scene(session, robot, table, program, options=options,
                                        check_minutes=(200.0, 0.0, 100.0))
    assert check.n_rows == report.summary.n_rows == 150
    assert check.minute.tolist() == [0.0] * 50 + [100.0] * 50 + [200.0] * 50  # by fraction, ascending
    assert check.position_to_model.max() < ROUND_OFF
    assert check.position_to_target.max() <= IK_POSITION_TOL * 10
