"""The fake CoppeliaSim speaks the real protocol: the unchanged official client works against it."""

from __future__ import annotations

import math
import time

import cbor2
import numpy as np
import pytest
import zmq
from coppeliasim_fake import MISMATCH, FakeCoppeliaSim, Scene, build_irb140_scene
from coppeliasim_fake.fixtures import fake_irb140  # noqa: F401  (fixture)
from coppeliasim_fake.scene import LEGACY_FUNCTIONS
from coppeliasim_fake.server import VERSIONS
from coppeliasim_zmqremoteapi_client import RemoteAPIClient


def official_sim(server: FakeCoppeliaSim):
    client = RemoteAPIClient("127.0.0.1", server.port)
    client.socket.setsockopt(zmq.RCVTIMEO, 2000)  # a broken fake fails the test instead of hanging it
    return client, client.require("sim")


def test_handshake_is_the_clients_first_contact(fake_irb140):
    client, sim = official_sim(fake_irb140)
    assert fake_irb140.calls[:2] == ["zmqRemoteApi.require", "zmqRemoteApi.info"]
    assert sim.handle_world == -1 and sim.handle_parent == -11 and sim.object_joint_type == 1
    assert sim.getInt32Param(sim.intparam_program_full_version) == VERSIONS[fake_irb140.version]


def test_scene_tree_and_joints(fake_irb140):
    client, sim = official_sim(fake_irb140)
    base = sim.getObject("/IRB140")
    joints = sim.getObjectsInTree(base, sim.object_joint_type, 1)
    assert len(joints) == 6
    assert sim.getObjectAlias(joints[0], -1) == "joint"
    cyclic, (low, span) = sim.getJointInterval(joints[1])
    assert not cyclic and math.isclose(math.degrees(low), -90) and math.isclose(math.degrees(low + span), 110)
    assert sim.getObject("/nowhere", {"noError": True}) == -1
    with pytest.raises(Exception, match="object does not exist"):  # the client raises a bare Exception
        sim.getObject("/nowhere")


def test_euler_and_quaternion_conventions(fake_irb140):
    client, sim = official_sim(fake_irb140)
    h = sim.getObject("/IRB140/tip")
    # R = Rx Ry Rz: gamma alone is a turn about z; the pose's quaternion is (x, y, z, w).
    sim.setObjectOrientation(h, [0.0, 0.0, math.pi / 2], sim.handle_world)
    pose = sim.getObjectPose(h, sim.handle_world)
    np.testing.assert_allclose(np.abs(pose[3:]), [0, 0, math.sqrt(0.5), math.sqrt(0.5)], atol=1e-12)
    m = np.array(sim.getObjectMatrix(h, sim.handle_world)).reshape(3, 4)
    np.testing.assert_allclose(m[:, :3], [[0, -1, 0], [1, 0, 0], [0, 0, 1]], atol=1e-12)
    # Rx(a) Ry(b) Rz(c): alpha first. (30, 20, 10) reads back the same (regular branch).
    angles = [math.radians(v) for v in (30, 20, 10)]
    sim.setObjectOrientation(h, angles, sim.handle_world)
    np.testing.assert_allclose(sim.getObjectOrientation(h, sim.handle_world), angles, atol=1e-12)
    # Gimbal lock: (30, 90, 20) reads back as (0, 90, 50).
    sim.setObjectOrientation(h, [math.radians(v) for v in (30, 90, 20)], sim.handle_world)
    np.testing.assert_allclose(np.degrees(sim.getObjectOrientation(h, sim.handle_world)), [0, 90, 50], atol=1e-9)
    # The older argument order (handle, relativeTo, value) is accepted too, as CoppeliaSim does.
    sim.setObjectPosition(h, sim.handle_world, [0.1, 0.2, 0.3])
    np.testing.assert_allclose(sim.getObjectPosition(h, sim.handle_world), [0.1, 0.2, 0.3], atol=1e-15)


def test_children_hang_on_the_moving_frame(fake_irb140):
    client, sim = official_sim(fake_irb140)
    joints = sim.getObjectsInTree(sim.getObject("/IRB140"), sim.object_joint_type, 1)
    before = np.array(sim.getObjectMatrix(joints[2], joints[1]))
    base_before = np.array(sim.getObjectMatrix(joints[1], sim.handle_world))
    sim.setJointPosition(joints[1], 0.7)
    # Relative to a joint means relative to its moving frame: unchanged by its own angle;
    # the joint's own (base) frame does not move with its angle either.
    np.testing.assert_allclose(sim.getObjectMatrix(joints[2], joints[1]), before, atol=1e-15)
    np.testing.assert_allclose(sim.getObjectMatrix(joints[1], sim.handle_world), base_before, atol=0)


def test_unknown_function_is_an_error_reply(fake_irb140):
    client, sim = official_sim(fake_irb140)
    with pytest.raises(Exception, match="No such function: sim.noSuchThing"):
        client.call("sim.noSuchThing", [])


def test_request_without_uuid_gets_the_mismatch_reply(fake_irb140):
    context = zmq.Context()
    socket = context.socket(zmq.REQ)
    socket.setsockopt(zmq.LINGER, 0)
    socket.connect(f"tcp://127.0.0.1:{fake_irb140.port}")
    socket.send(cbor2.dumps({"func": "sim.getObject", "args": ["/IRB140"]}))
    assert socket.poll(2000)
    assert cbor2.loads(socket.recv()) == {"success": False, "error": MISMATCH}
    socket.close(0)
    context.term()


def test_server_stops_by_itself():
    server = FakeCoppeliaSim(Scene(), lifetime_s=0.2).start()
    time.sleep(0.5)
    assert not server._thread.is_alive()
    server.stop()


def test_extra_branch_scene_has_seven_joints():
    scene = build_irb140_scene(extra_branch=True)
    assert sum(1 for o in scene.objects.values() if o.kind == 1) == 7


# --- the two API generations, as the real server plays them -------------------------------------------------------

def test_a_missing_custom_data_block_reads_as_an_empty_string_not_nil():
    """zmqRemoteApi's server add-on wraps sim.readCustomDataBlock: '' for a missing block (4.6.0 to master)."""
    with FakeCoppeliaSim(build_irb140_scene(), version="4.6", lifetime_s=20) as server:
        client, sim = official_sim(server)
        base = sim.getObject("/IRB140")
        assert sim.readCustomDataBlock(base, "nothing.here") == b""
        sim.writeCustomDataBlock(base, "tag", "abc")
        assert sim.readCustomDataBlock(base, "tag") == b"abc"


def test_4_6_has_no_properties_api():
    with FakeCoppeliaSim(build_irb140_scene(), version="4.6", lifetime_s=20) as server:
        client, sim = official_sim(server)
        assert not hasattr(sim, "getBufferProperty")
        with pytest.raises(Exception, match="No such function: sim.getBufferProperty"):
            client.call("sim.getBufferProperty", [sim.getObject("/IRB140"), "customData.tag"])
        with pytest.raises(Exception, match="module 'sim-2' not found"):
            client.require("sim-2")


def test_4_10_sim_2_lacks_the_legacy_functions_and_sim_keeps_them():
    with FakeCoppeliaSim(build_irb140_scene(), version="4.10", lifetime_s=20) as server:
        client, sim = official_sim(server)  # require('sim') = sim-1: everything
        base = sim.getObject("/IRB140")
        assert len(sim.getObjectMatrix(base, sim.handle_world)) == 12
        assert sim.getIntProperty(sim.handle_app, "productVersionNb") == 4100005
        # What the client CoppeliaSim ships does for require('sim-2') (the registry's 2.0.4 predates versioned
        # modules and would ask for the namespace 'sim-2').
        client.call("zmqRemoteApi.require", ["sim-2"])
        sim2 = client.getObject("sim")
        names = {n for n in dir(sim2) if not n.startswith("_")}
        assert not names & LEGACY_FUNCTIONS and not {"object_joint_type", "joint_revolute_subtype"} & names
        assert {"getObjectPose", "getBufferProperty", "sceneobject_joint", "joint_revolute"} <= names
        # The server's global sim is now sim-2, for every client: a call by name fails as the real one does.
        with pytest.raises(Exception, match="No such function: sim.getObjectMatrix"):
            client.call("sim.getObjectMatrix", [base, -1])


def test_4_10_custom_data_is_a_buffer_property():
    with FakeCoppeliaSim(build_irb140_scene(), version="4.10", lifetime_s=20) as server:
        client, sim = official_sim(server)
        base = sim.getObject("/IRB140")
        assert sim.getBufferProperty(base, "customData.tag", {"noError": True}) is None
        with pytest.raises(Exception, match="'customData.tag' property is unknown"):
            sim.getBufferProperty(base, "customData.tag")
        sim.setBufferProperty(base, "customData.tag", b"abc")
        assert sim.getBufferProperty(base, "customData.tag") == b"abc"
        sim.removeProperty(base, "customData.tag")
        assert sim.getBufferProperty(base, "customData.tag", {"noError": True}) is None
        children = sim.getHandleArrayProperty(base, "children")
        assert [sim.getHandleProperty(c, "parent") for c in children] == [base] * len(children)


def test_a_stalled_reply_times_the_client_out():
    with FakeCoppeliaSim(build_irb140_scene(), lifetime_s=20) as server:
        client, sim = official_sim(server)
        client.socket.setsockopt(zmq.RCVTIMEO, 200)
        server.stall("sim.getObject", 1.0)
        with pytest.raises(zmq.Again):
            sim.getObject("/IRB140")
