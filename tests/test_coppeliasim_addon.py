"""The CoppeliaSim add-on, checked without CoppeliaSim.

- it parses: with the ``luaparser`` package when installed, and with ``luac -p``
  (Debian ``lua5.4``/``lua5.3``) when on the PATH; each check skips when its tool is absent
  (CI installs only what pyproject.toml lists);
- its ``sysCall_info`` returns ``{autoStart = false, menu = 'Thermal compensation'}``;
- every ``thermocomp coppeliasim`` action it launches exists, with options that action accepts;
- it calls only CoppeliaSim API functions from a documented list, and defines every UI callback.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess

import pytest

from thermocomp.cli.coppeliasim import ACTIONS
from thermocomp.cli.main import build_parser
from thermocomp.simulators.coppeliasim import addon_source
from thermocomp.simulators.coppeliasim.addon import ADDON_ACTIONS

SOURCE = addon_source().read_text(encoding="utf-8")
#: Lua source without comments (the tests read code, not prose); a ``--`` inside a string
#: literal (an option such as '--host') is code, not a comment.
CODE = re.sub(r"""('(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")|--[^\n]*""", lambda m: m.group(1) or "", SOURCE)

#: CoppeliaSim API the add-on may use (CoppeliaSim 4.6+ regular API, simUI and simSubprocess plugins).
ALLOWED_API = {
    "sim.getNamedStringParam", "sim.getNamedInt32Param", "sim.addLog", "sim.getObjectSel", "sim.getObjectAlias",
    "sim.getSystemTime", "sim.getStringParam",  # getStringParam: stringparam_tempdir, stringparam_usersettingsdir
    "simUI.create", "simUI.destroy", "simUI.setLabelText", "simUI.fileDialog",
    "simSubprocess.execAsync", "simSubprocess.isRunning", "simSubprocess.wait",
}
#: Entries the issue asks for, as the panel's texts.
ENTRIES = ("Pick robot", "Pick tip", "Load deformation", "Load targets", "Minute", "Magnification", "Show deformed",
           "Run compensation", "Play", "Write CSV", "Restore nominal robot")


def test_parses_with_luaparser():
    ast = pytest.importorskip("luaparser.ast", reason="luaparser not installed (pip install luaparser)")
    tree = ast.parse(SOURCE)
    names = {node.name.id for node in ast.walk(tree) if type(node).__name__ == "Function"
             and type(node.name).__name__ == "Name"}
    assert {"sysCall_info", "sysCall_init", "sysCall_nonSimulation", "sysCall_cleanup"} <= names


def test_parses_with_luac():
    exe = next((e for e in map(shutil.which, ("luac5.4", "luac5.3", "luac")) if e), None)
    if exe is None:
        pytest.skip("no luac on the PATH (apt-get install lua5.4)")
    proc = subprocess.run([exe, "-p", str(addon_source())], capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stderr


def test_syscall_info_declares_the_menu_entry():
    body = re.search(r"function sysCall_info\(\)(.*?)\nend", CODE, re.DOTALL)
    assert body, "no sysCall_info"
    ret = re.fullmatch(r"\s*return\s*\{(.*)\}\s*", body.group(1), re.DOTALL)
    assert ret, f"sysCall_info must return a table, got {body.group(1)!r}"
    fields = dict(re.findall(r"(\w+)\s*=\s*([^,]+?)\s*(?:,|$)", ret.group(1).strip()))
    assert fields == {"autoStart": "false", "menu": "'Thermal compensation'"}


def test_calls_only_known_coppeliasim_api():
    used = set(re.findall(r"\b(sim(?:UI|Subprocess)?\.\w+)\s*\(", CODE))
    assert used <= ALLOWED_API, f"not in the documented list: {sorted(used - ALLOWED_API)}"


def subparser(action: str) -> argparse.ArgumentParser:
    parser = build_parser()
    top = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    cs = top.choices["coppeliasim"]
    acts = next(a for a in cs._actions if isinstance(a, argparse._SubParsersAction))
    return acts.choices[action]


def lua_function_body(name: str) -> str:
    m = re.search(rf"^(?:local )?function {name}\((.*?)^end", CODE, re.DOTALL | re.MULTILINE)
    assert m, f"no function {name}"
    return m.group(1)


def lua_tables_starting_with_coppeliasim() -> list[tuple[list[str], str]]:
    """String literals of every table constructor ``{'coppeliasim', '<action>', ...}`` (to its closing
    brace), with the body of the top-level function it is in."""
    tables = []
    for m in re.finditer(r"\{\s*'coppeliasim'", CODE):
        depth, end = 0, m.start()
        for end in range(m.start(), len(CODE)):
            depth += {"{": 1, "}": -1}.get(CODE[end], 0)
            if depth == 0:
                break
        start = CODE.rfind("\nfunction ", 0, m.start()) + 1
        stop = CODE.find("\nend", m.start())
        tables.append((re.findall(r"'([^']*)'", CODE[m.start():end]), CODE[start:stop]))
    return tables


def test_launches_only_existing_actions_with_their_options():
    tables = lua_tables_starting_with_coppeliasim()
    assert {t[1] for t, _ in tables} == {"show", "compensate", "play", "restore", "addon-run"}
    # The one command line launched: the action and its options travel in the request file.
    launched = [t for t, _ in tables if t[1] == "addon-run"]
    assert launched == [["coppeliasim", "addon-run"]] and "addon-run" in ACTIONS
    tables = [(t, body) for t, body in tables if t[1] != "addon-run"]
    assert {t[1] for t, _ in tables} == set(ADDON_ACTIONS)
    scene = set(re.findall(r"'(--[\w-]+)'", lua_function_body("sceneOptions")))
    law = set(re.findall(r"'(--[\w-]+)'", lua_function_body("lawOptions")))
    assert {"--host", "--port", "--robot-path", "--report", "--tip"} <= scene
    for t, body in tables:
        action = t[1]
        assert action in ACTIONS
        options = {s for a in subparser(action)._actions for s in a.option_strings}
        # Options written in the table, those sceneOptions appends (without --tip when launched
        # withoutTip), and lawOptions' when the entry passes its table through lawOptions.
        without_tip = re.search(r"end,\s*true\)", body) is not None
        wanted = {o for o in t if o.startswith("--")} | (scene - ({"--tip"} if without_tip else set()))
        if "lawOptions(" in body:
            wanted |= law
        assert wanted <= options, f"{action}: unknown options {sorted(wanted - options)}"


def test_a_failed_launch_names_the_executable_setting_or_the_refusal():
    body = lua_function_body("launch")
    assert "pcall(simSubprocess.execAsync" in body
    assert "thermocomp.executable" in body and "PATH" in body
    assert "'Permission denied'" in body  # simSubprocess checkAuth's text on a refusal


def test_panel_has_every_entry_and_its_callbacks_exist():
    xml = re.search(r"\[\[(.*?)\]\]", SOURCE, re.DOTALL).group(1)
    for entry in ENTRIES:
        assert entry in xml, entry
    callbacks = set(re.findall(r'on-(?:click|change|close)="(\w+)"', xml))
    defined = set(re.findall(r"^function (\w+)\(", CODE, re.MULTILINE))
    assert callbacks and callbacks <= defined, sorted(callbacks - defined)


def test_never_blocks_coppeliasim_on_a_subprocess():
    # simSubprocess.exec would freeze the main loop and with it the remote API the process talks to.
    assert "simSubprocess.exec(" not in CODE
