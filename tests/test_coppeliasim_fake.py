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
from coppeliasim_zmqremoteapi_client import RemoteAPIClient


def official_sim(server: FakeCoppeliaSim):
    client = RemoteAPIClient("127.0.0.1", server.port)
    client.socket.setsockopt(zmq.RCVTIMEO, 2000)  # a broken fake fails the test instead of hanging it
    return client, client.require("sim")


def test_handshake_is_the_clients_first_contact(fake_irb140):
    client, sim = official_sim(fake_irb140)
    assert fake_irb140.calls[:2] == ["zmqRemoteApi.require", "zmqRemoteApi.info"]
    assert sim.handle_world == -1 and sim.handle_parent == -11 and sim.object_joint_type == 1
    assert sim.getInt32Param(sim.intparam_program_full_version) == 4090006


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
