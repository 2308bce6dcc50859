"""Restoring the scene reliably (SIGTERM, a killed run, ``coppeliasim restore``) and server errors.

A scene action runs as a separate process (as the add-on launches it) against
the fake CoppeliaSim served from this test process.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from coppeliasim_fake.fixtures import fake_irb140, session  # noqa: F401  (fixtures)

from thermocomp.cli.common import EXIT_INPUT, EXIT_INTERRUPTED, EXIT_OK
from thermocomp.cli.main import main
from thermocomp.simulators.coppeliasim import (
    CoppeliaSimServerError,
    SceneError,
    read_robot,
    read_saved_nominal,
)
from thermocomp.simulators.coppeliasim.scene import NOMINAL_TAG

REPO = Path(__file__).resolve().parents[1]
EXAGGERATED = str(REPO / "deformations" / "exaggerated.csv")
#: Seconds a child process may take to import thermocomp and deform the scene.
START_S = 30.0


def scene_args(server, *more: str) -> list[str]:
    return [*more, "--host", "127.0.0.1", "--port", str(server.port), "--timeout-s", "2",
            "--robot-path", "/IRB140", "--tip", "/IRB140/tip"]


def snapshot(server):
    return [(h, o.local.p.tolist(), o.local.q.tolist(), o.position) for h, o in sorted(server.scene.objects.items())]


def base_handle(server) -> int:
    return server.scene.resolve("/IRB140")


def start_show(server, tmp_path) -> subprocess.Popen:
    """``thermocomp coppeliasim show --hold-s 30`` in a child process, returned once the robot is deformed."""
    report = tmp_path / "report.txt"
    proc = subprocess.Popen(
        [sys.executable, "-m", "thermocomp.cli.main", "coppeliasim", "show",
         *scene_args(server, "--deformation", EXAGGERATED, "--magnification", "20", "--hold-s", "30",
                     "--report", str(report))],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO,
    )
    deadline = time.monotonic() + START_S
    while not (report.exists() and "showing" in report.read_text()):
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            out, err = proc.communicate()
            pytest.fail(f"show did not start: {out} {err}")
        time.sleep(0.05)
    return proc


@pytest.mark.slow
@pytest.mark.parametrize("signame", ["SIGTERM", "SIGHUP"])
def test_sigterm_restores_the_scene(fake_irb140, tmp_path, signame):
    before = snapshot(fake_irb140)
    proc = start_show(fake_irb140, tmp_path)
    assert snapshot(fake_irb140) != before  # deformed now
    assert NOMINAL_TAG in fake_irb140.scene.objects[base_handle(fake_irb140)].custom  # and saved in the scene
    proc.send_signal(getattr(signal, signame))
    out, err = proc.communicate(timeout=START_S)
    assert proc.returncode == EXIT_INTERRUPTED, err
    assert snapshot(fake_irb140) == before  # bit for bit
    assert NOMINAL_TAG not in fake_irb140.scene.objects[base_handle(fake_irb140)].custom
    assert "interrupted (terminated by " + signame + "); the scene was restored" in \
        (tmp_path / "report.txt").read_text()


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_a_killed_run_is_refused_as_nominal_and_restore_puts_it_back(fake_irb140, tmp_path, capsys):
    before = snapshot(fake_irb140)
    proc = start_show(fake_irb140, tmp_path)
    os.kill(proc.pid, signal.SIGKILL)  # no chance to restore
    proc.communicate(timeout=START_S)
    deformed = snapshot(fake_irb140)
    assert deformed != before
    # A later run must not take the deformed scene as the nominal robot.
    assert main(["coppeliasim", "read-robot", *scene_args(fake_irb140)]) == EXIT_INPUT
    assert "still deformed by an earlier thermocomp run" in capsys.readouterr().err
    assert main(["coppeliasim", "show", *scene_args(fake_irb140, "--deformation", EXAGGERATED,
                                                    "--hold-s", "0")]) == EXIT_INPUT
    assert snapshot(fake_irb140) == deformed  # refused before touching anything
    # restore puts the nominal back, bit for bit, and drops the saved copy
    assert main(["coppeliasim", "restore", "--host", "127.0.0.1", "--port", str(fake_irb140.port),
                 "--robot-path", "/IRB140"]) == EXIT_OK
    assert "restored the nominal poses of 7 objects of /IRB140" in capsys.readouterr().out
    assert snapshot(fake_irb140) == before
    assert NOMINAL_TAG not in fake_irb140.scene.objects[base_handle(fake_irb140)].custom
    assert main(["coppeliasim", "restore", "--host", "127.0.0.1", "--port", str(fake_irb140.port),
                 "--robot-path", "/IRB140"]) == EXIT_OK
    assert "nothing to restore" in capsys.readouterr().out
    assert main(["coppeliasim", "read-robot", *scene_args(fake_irb140)]) == EXIT_OK


def test_restore_forget_accepts_the_scene(fake_irb140, session):
    robot = read_robot(session, "/IRB140", tip_path="/IRB140/tip")
    parent = session.const("handle_parent")
    pose = session.call("getObjectPose", robot.joints[1], parent)
    # a run that saved the nominal, moved joint 2's object, and died
    from thermocomp.simulators.coppeliasim.scene import _write_saved_nominal, save_state

    _write_saved_nominal(session, robot, save_state(session, robot))
    session.call("setObjectPose", robot.joints[1], [pose[0] + 0.01, *pose[1:]], parent)
    with pytest.raises(SceneError, match="restore --forget"):
        read_robot(session, "/IRB140", tip_path="/IRB140/tip")
    assert main(["coppeliasim", "restore", "--forget", "--host", "127.0.0.1", "--port", str(fake_irb140.port),
                 "--robot-path", "/IRB140"]) == EXIT_OK
    assert read_saved_nominal(session, robot.base) is None
    moved = read_robot(session, "/IRB140", tip_path="/IRB140/tip")  # the scene as it is, now nominal
    assert moved.chain.p[1][0] != robot.chain.p[1][0] or moved.chain.p[1][1] != robot.chain.p[1][1] \
        or moved.chain.p[1][2] != robot.chain.p[1][2]


def test_a_cleanly_ended_run_leaves_no_saved_state(fake_irb140, capsys):
    assert main(["coppeliasim", "show", *scene_args(fake_irb140, "--deformation", EXAGGERATED,
                                                    "--hold-s", "0")]) == EXIT_OK
    assert fake_irb140.scene.objects[base_handle(fake_irb140)].custom == {}


def test_server_error_is_a_clean_message_and_the_session_stays_usable(fake_irb140, session, tmp_path, capsys):
    link = session.call("getObject", "/IRB140/link", {"noError": True})
    joint = session.call("getObject", "/IRB140/joint", {"noError": True})
    with pytest.raises(CoppeliaSimServerError, match=rf"sim\.getJointType\({link}\) failed in CoppeliaSim at "
                                                     rf"tcp://127\.0\.0\.1:\d+: object {link} is not a joint"):
        session.call("getJointType", link)
    assert session.call("getJointType", joint) == 10  # same connection, still in step
    assert not session._broken
    report = tmp_path / "report.txt"
    assert main(["coppeliasim", "read-robot", "--host", "127.0.0.1", "--port", str(fake_irb140.port),
                 "--joints", "/IRB140/joint,/IRB140/link", "--report", str(report)]) == EXIT_INPUT
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert f"thermocomp: error: sim.getJointType({link}) failed in CoppeliaSim" in err
    assert f"object {link} is not a joint" in report.read_text()  # the add-on shows the report file


def test_close_releases_the_client(fake_irb140, session):
    session.call("getJointPosition", session.call("getObject", "/IRB140/joint", {"noError": True}))
    assert fake_irb140.clients
    session.close()
    time.sleep(0.05)
    assert fake_irb140.calls[-1] == "_*end*_"
    assert not fake_irb140.clients


def test_restore_finds_the_objects_by_path_when_handles_changed(fake_irb140, session):
    """After the scene was saved and reloaded, handles may differ: the saved object paths still lead."""
    import json

    from thermocomp.simulators.coppeliasim.scene import _write_saved_nominal, save_state

    before = snapshot(fake_irb140)
    robot = read_robot(session, "/IRB140", tip_path="/IRB140/tip")
    _write_saved_nominal(session, robot, save_state(session, robot))
    parent = session.const("handle_parent")
    pose = session.call("getObjectPose", robot.joints[2], parent)
    session.call("setObjectPose", robot.joints[2], [pose[0], pose[1] + 0.02, *pose[2:]], parent)
    custom = fake_irb140.scene.objects[robot.base].custom
    saved = json.loads(custom[NOMINAL_TAG])
    for entry in saved["objects"]:
        entry["handle"] = 100000 + entry["handle"]  # handles of another session
    custom[NOMINAL_TAG] = json.dumps(saved).encode()
    assert main(["coppeliasim", "restore", "--host", "127.0.0.1", "--port", str(fake_irb140.port),
                 "--robot-path", "/IRB140"]) == EXIT_OK
    assert snapshot(fake_irb140) == before


@pytest.mark.parametrize("corrupt, said", [
    (lambda e: e.pop("path"), "expected an object path 'path'"),
    (lambda e: e.update(path=7), "expected an object path 'path'"),
    (lambda e: e.pop("pose"), "expected a 'pose' of 7 finite numbers"),
    (lambda e: e.update(pose=e["pose"][:6]), "expected a 'pose' of 7 finite numbers"),
    (lambda e: e.update(pose={"x": 0}), "expected a 'pose' of 7 finite numbers"),
    (lambda e: e["pose"].__setitem__(3, "0.5"), "expected a 'pose' of 7 finite numbers"),
    (lambda e: e.update(position="0.1"), "expected a joint 'position'"),
])
def test_a_corrupt_saved_nominal_is_a_scene_error(fake_irb140, session, capsys, corrupt, said):
    import json

    from thermocomp.simulators.coppeliasim.scene import _write_saved_nominal, save_state

    robot = read_robot(session, "/IRB140", tip_path="/IRB140/tip")
    _write_saved_nominal(session, robot, save_state(session, robot))
    custom = fake_irb140.scene.objects[robot.base].custom
    saved = json.loads(custom[NOMINAL_TAG])
    corrupt(saved["objects"][1])
    custom[NOMINAL_TAG] = json.dumps(saved).encode()
    with pytest.raises(SceneError, match="data on the robot base is corrupt: object 2") as exc:
        read_saved_nominal(session, robot.base)
    assert said in str(exc.value)
    before = snapshot(fake_irb140)
    assert main(["coppeliasim", "restore", "--host", "127.0.0.1", "--port", str(fake_irb140.port),
                 "--robot-path", "/IRB140"]) == EXIT_INPUT
    assert said in capsys.readouterr().err
    assert snapshot(fake_irb140) == before  # nothing half-restored


def test_a_saved_nominal_that_is_not_a_list_of_tables_is_a_scene_error(fake_irb140, session):
    import json

    from thermocomp.simulators.coppeliasim.scene import NOMINAL_FORMAT

    base = base_handle(fake_irb140)
    fake_irb140.scene.objects[base].custom[NOMINAL_TAG] = json.dumps(
        {"format": NOMINAL_FORMAT, "objects": [["/IRB140/joint", [0] * 7]]}).encode()
    with pytest.raises(SceneError, match="object 1: expected a table with path, pose and position"):
        read_saved_nominal(session, base)


def test_close_waits_briefly_for_a_server_gone_away():
    """Closing hands the server its _*end*_ but does not wait the session's timeout for it."""
    from coppeliasim_fake.irb140 import build_irb140_scene
    from coppeliasim_fake.server import FakeCoppeliaSim

    from thermocomp.simulators.coppeliasim import connect
    from thermocomp.simulators.coppeliasim.connection import CLOSE_WAIT_S

    server = FakeCoppeliaSim(build_irb140_scene(), lifetime_s=60.0).start()
    session = connect("127.0.0.1", server.port, 5.0)
    session.call("getObject", "/IRB140", {"noError": True})
    server.stop()  # CoppeliaSim quit (or hangs) with the session open
    start = time.monotonic()
    session.close()
    elapsed = time.monotonic() - start
    assert elapsed < 2 * CLOSE_WAIT_S + 0.5 < 5.0, elapsed  # send and reply waits, plus scheduling


def test_call_arguments_are_shown_only_when_a_call_fails(fake_irb140, session):
    shown = []

    class Handle(int):
        def __repr__(self) -> str:
            shown.append(int(self))
            return int.__repr__(self)

    joint = Handle(session.call("getObject", "/IRB140/joint", {"noError": True}))
    link = Handle(session.call("getObject", "/IRB140/link", {"noError": True}))
    assert session.call("getJointType", joint) == 10
    assert shown == []  # a call that succeeds builds no text of its arguments
    with pytest.raises(CoppeliaSimServerError, match=rf"sim\.getJointType\({int(link)}\) failed"):
        session.call("getJointType", link)
    assert shown == [int(link)]
