"""The CoppeliaSim add-on run in a real Lua interpreter (lupa), with CoppeliaSim's API stubbed.

The stubs record what the add-on asks of CoppeliaSim (``simSubprocess.execAsync``
above all) and play what CoppeliaSim answers: a permission refused as
simSubprocess's ``checkAuth`` reports it ("Permission denied (by user)"), a
program that does not start ("waitForStarted timed out"), a process ending
while a simulation runs. The request file the add-on writes is then read and
run by the Python side, against the fake CoppeliaSim.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from coppeliasim_fake.fixtures import fake_irb140  # noqa: F401  (fixture)

from thermocomp.cli.common import EXIT_OK
from thermocomp.cli.main import build_parser, main
from thermocomp.errors import InputError
from thermocomp.simulators.coppeliasim import addon_source
from thermocomp.simulators.coppeliasim.addon import ADDON_REQUEST_FORMAT, read_addon_request

lupa = pytest.importorskip("lupa", reason="lupa (Lua in Python) not installed: pip install lupa")

#: CoppeliaSim as the add-on sees it: only what it calls, recording the calls in ``stub``.
STUBS = r"""
stub = {launches = {}, logs = {}, labels = {}, running = false, exitCode = 0, port = 23000}
local sim = {verbosity_scriptinfos = 450, stringparam_tempdir = 1, stringparam_usersettingsdir = 2}
function sim.getNamedStringParam(name) return stub.exe end
function sim.getNamedInt32Param(name) return stub.port end
function sim.addLog(verbosity, text) table.insert(stub.logs, text) end
function sim.getObjectSel() return {} end
function sim.getObjectAlias(h, options) return '/IRB140' end
local clock = 0
function sim.getSystemTime() clock = clock + 1.25; return clock end
function sim.getStringParam(p)
    if p == sim.stringparam_tempdir then return stub.tempdir end
    if p == sim.stringparam_usersettingsdir then return stub.settingsdir end
end
local simUI = {filedialog_type = {load = 1, save = 2}}
function simUI.create(xml) return 1 end
function simUI.destroy(ui) end
function simUI.setLabelText(ui, id, text) stub.labels[id] = text end
function simUI.fileDialog(kind, title, ...) return {stub.nextFile} end
local simSubprocess = {}
function simSubprocess.execAsync(exe, args, options)
    if stub.refuse then error(stub.refuse) end
    table.insert(stub.launches, {exe = exe, args = args, search = options.useSearchPath})
    stub.running = true
    return 7
end
function simSubprocess.isRunning(h) return stub.running end
function simSubprocess.wait(h, timeout) return stub.exitCode end
local modules = {sim = sim, simUI = simUI, simSubprocess = simSubprocess}
function require(name) return modules[name] end
"""


def lua_list(table) -> list:
    return [table[i] for i in range(1, len(table) + 1)]


@pytest.fixture
def addon(tmp_path):
    """The add-on loaded and initialised (``sysCall_init``) in a fresh Lua state; returns the Lua globals."""
    lua = lupa.LuaRuntime(unpack_returned_tuples=True)
    lua.execute(STUBS)
    g = lua.globals()
    (tmp_path / "settings").mkdir()
    (tmp_path / "temp").mkdir()
    g.stub.settingsdir = str(tmp_path / "settings")
    g.stub.tempdir = str(tmp_path / "temp")
    lua.execute(addon_source().read_text(encoding="utf-8"))
    g.sysCall_init()
    return g


def load_inputs(g, tmp_path):
    deformation, targets = tmp_path / "my deformation.csv", tmp_path / "targets.csv"
    g.stub.nextFile = str(deformation)
    g.onLoadDeformation()
    g.stub.nextFile = str(targets)
    g.onLoadTargets()
    return deformation, targets


def test_every_launch_is_the_same_command_line(addon, tmp_path):
    """CoppeliaSim asks permission per distinct command line: two runs with other inputs must not differ."""
    g = addon
    load_inputs(g, tmp_path)
    g.onRunCompensation()
    g.stub.running = False
    g.sysCall_nonSimulation()
    first_request = read_addon_request(tmp_path / "settings" / "thermocomp-addon-request.txt")
    g.onMinute(None, 14, 100)
    g.onMagnification(None, 15, 50)
    g.onRunCompensation()
    g.stub.running = False
    g.sysCall_nonSimulation()
    g.onPlay()
    launches = [(launch.exe, lua_list(launch.args), launch.search) for launch in lua_list(g.stub.launches)]
    assert len(launches) == 3
    request = str(tmp_path / "settings" / "thermocomp-addon-request.txt")
    assert launches == [("thermocomp", ["coppeliasim", "addon-run", request], True)] * 3
    # What varies is in the request file: the last one is play's, with the new magnification.
    last = read_addon_request(request)
    assert last[:2] == ["coppeliasim", "play"] and last[last.index("--magnification") + 1] == "50"
    assert first_request[:2] == ["coppeliasim", "compensate"]
    assert first_request[first_request.index("--minutes") + 1] == "200"
    assert first_request[first_request.index("--deformation") + 1] == str(tmp_path / "my deformation.csv")
    for argv in (first_request, last):  # the options parse as the command line's own
        build_parser().parse_args(argv)


def test_a_refused_launch_is_reported_as_a_refusal(addon, tmp_path):
    g = addon
    load_inputs(g, tmp_path)
    g.stub.refuse = "simSubprocess.execAsync: Permission denied (by user)"
    g.onRunCompensation()
    message = lua_list(g.stub.logs)[-1]
    assert "permission" in message and "refused" in message and "addon-run" in message
    assert "PATH" not in message
    assert g.stub.labels[20] == message.removeprefix("thermocomp: ")  # shown on the panel too


def test_a_program_that_does_not_start_names_the_path_setting(addon, tmp_path):
    g = addon
    load_inputs(g, tmp_path)
    g.stub.refuse = "simSubprocess.execAsync: waitForStarted timed out"
    g.onRunCompensation()
    message = lua_list(g.stub.logs)[-1]
    assert "PATH" in message and "thermocomp.executable" in message and "refused" not in message


@pytest.mark.parametrize("callback", ["sysCall_actuation", "sysCall_suspended", "sysCall_nonSimulation"])
def test_a_finished_job_is_noticed_in_every_simulation_state(addon, tmp_path, callback):
    g = addon
    load_inputs(g, tmp_path)
    g.onRunCompensation()
    g[callback]()
    assert not any("done" in text for text in lua_list(g.stub.logs))  # still running
    g.stub.running = False
    g[callback]()
    assert lua_list(g.stub.logs)[-1].startswith("thermocomp: compensation done")
    g.onPlay()  # the results are known: play can start
    assert len(lua_list(g.stub.launches)) == 2


def test_the_request_runs_against_coppeliasim_and_says_which_one(addon, fake_irb140, tmp_path):
    g = addon
    g.stub.port = fake_irb140.port
    g.onRestore()
    request = tmp_path / "settings" / "thermocomp-addon-request.txt"
    argv = read_addon_request(request)
    assert argv[:2] == ["coppeliasim", "restore"] and argv[argv.index("--port") + 1] == str(fake_irb140.port)
    assert main(["coppeliasim", "addon-run", str(request)]) == EXIT_OK
    report = Path(argv[argv.index("--report") + 1]).read_text(encoding="utf-8")
    assert f"(port {fake_irb140.port})" in report and "nothing to restore" in report
    g.stub.running = False
    g.sysCall_nonSimulation()
    assert "nothing to restore" in lua_list(g.stub.logs)[-1]


def test_request_files_are_checked(tmp_path):
    path = tmp_path / "request.txt"
    path.write_text("coppeliasim\nshow\n")
    with pytest.raises(InputError, match=rf"request.txt:1:1: expected '{ADDON_REQUEST_FORMAT}'"):
        read_addon_request(path)
    path.write_text(f"{ADDON_REQUEST_FORMAT}\ncoppeliasim\ninstall-addon\n--force\n")
    with pytest.raises(InputError, match=r"request.txt:3:1: expected one of the add-on's actions"):
        read_addon_request(path)
    path.write_text(f"{ADDON_REQUEST_FORMAT}\r\ncoppeliasim\r\nrestore\r\n--robot-path\r\n/my robot\r\n")
    assert read_addon_request(path) == ["coppeliasim", "restore", "--robot-path", "/my robot"]
