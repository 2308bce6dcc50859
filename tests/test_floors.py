"""The floors (docs/architecture.md): the import contract lists no exception and places every room; README's
layout table is the tree; one ``compensate`` job checks its option combinations once.

``make test`` runs ``lint-imports`` on the contract itself; these tests keep the contract honest (no
``ignore_imports``, no room left out) and the map true.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import numpy as np
import pytest
from helpers import REPO

import thermocomp
from thermocomp.app.compensate import run_compensation
from thermocomp.app.jobs import CompensationJob
from thermocomp.compensation.compensate import CompensationOptions
from thermocomp.errors import ConfigurationError
from thermocomp.programs import ProgramOptions

PACKAGE = Path(thermocomp.__file__).resolve().parent
EXAGGERATED = REPO / "deformations" / "exaggerated.csv"


def _contracts() -> list[dict]:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]["contracts"]


def _rooms() -> set[str]:
    """The package's top-level modules and subpackages (``thermocomp.<room>``)."""
    return {p.stem for p in PACKAGE.glob("*.py") if p.name != "__init__.py"} | {
        p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}


def test_the_contracts_list_no_exception_and_the_layers_are_exhaustive() -> None:
    contracts = _contracts()
    assert {c["type"] for c in contracts} == {"layers", "forbidden"}
    for contract in contracts:
        assert not {"ignore_imports", "exhaustive_ignores", "allow_indirect_imports"} & set(contract), contract["id"]
    (floors,) = [c for c in contracts if c["type"] == "layers"]
    assert floors["exhaustive"] is True and floors["containers"] == ["thermocomp"]


def test_every_room_of_the_package_has_its_floor() -> None:
    (floors,) = [c for c in _contracts() if c["type"] == "layers"]
    listed = [name.strip() for layer in floors["layers"] for name in re.split(r"[|:]", layer)]
    required = {name for name in listed if not name.startswith("(")}
    optional = {name.strip("()") for name in listed if name.startswith("(")}
    rooms = _rooms()
    assert len(rooms) > 20 and "app" in rooms and "kinematics" in rooms  # the walk saw the package
    assert rooms - required - optional == set(), "rooms without a floor"
    assert required - rooms == set(), "floors naming rooms that do not exist"


def test_the_readme_layout_table_is_the_tree() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    layout = readme[readme.index("## Layout"):]
    listed = set(re.findall(r"^\| `plugin/thermocomp/([a-z_]+)/", layout, flags=re.M))
    listed |= {sub.split("/")[0] for sub in re.findall(r"^\| `plugin/thermocomp/([a-z_]+/[a-z_]+)/", layout,
                                                          flags=re.M)}
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    assert listed == packages


@pytest.mark.parametrize(("kwargs", "message"), [
    ({}, "one of --targets or --program is required"),
    ({"targets": "t.csv", "program": "p.mod"}, "--targets cannot be combined with --program"),
    ({"program": "p.mod", "minutes_given": True, "convention": "authors-coppeliasim", "joint_objects": "j.csv"},
     "--minutes, --convention, --joint-objects cannot be combined with --program"),
    ({"program": "p.mod", "fixed_orientation": np.eye(3)}, "--orientation-euler-xyz-deg cannot be combined"),
    ({"targets": "t.csv", "results": "r.csv", "report": "r.txt"}, "--results, --program-report: expected with --program"),
    ({"targets": "t.csv", "program_options": ProgramOptions()}, "--program-output etc.: expected with --program"),
])
def test_a_compensate_job_refuses_options_of_the_other_source_naming_them(kwargs, message) -> None:
    with pytest.raises(ConfigurationError, match=re.escape(message)):
        CompensationJob("irb140", EXAGGERATED, **kwargs)


def test_the_command_line_runs_the_job_the_python_api_runs(tmp_path: Path) -> None:
    """The same targets, two minutes: ``thermocomp compensate``'s results CSV is the Python API's
    (``thermocomp.run_compensation(CompensationJob(...))``), byte for byte: the command only parses and calls."""
    from thermocomp.cli.main import main

    targets = REPO / "examples" / "targets_random50.csv"
    report = thermocomp.run_compensation(thermocomp.CompensationJob(
        "irb140", EXAGGERATED, targets=targets, out=tmp_path / "job.csv",
        options=CompensationOptions(minutes=(0.0, 100.0))))
    assert main(["compensate", "--robot", "irb140", "--deformation", str(EXAGGERATED), "--targets", str(targets),
                 "--minutes", "0,100", "--out", str(tmp_path / "cli.csv")]) == 0
    assert report.summary.n_rows == 100 and report.written == [tmp_path / "job.csv"]
    assert (tmp_path / "job.csv").read_bytes() == (tmp_path / "cli.csv").read_bytes()


def test_the_entry_points_take_one_job_and_refuse_the_other_source() -> None:
    """``compensate_targets`` and ``compensate_program`` each take the one job; the other source's job is refused
    by name, and ``run_compensation`` is the Python API's call for both."""
    from thermocomp.app.program import compensate_program
    from thermocomp.app.targets import compensate_targets

    assert thermocomp.run_compensation is run_compensation and thermocomp.CompensationJob is CompensationJob
    with pytest.raises(ConfigurationError, match="expected a job with targets"):
        compensate_targets(CompensationJob("irb140", EXAGGERATED, program="p.mod"))
    with pytest.raises(ConfigurationError, match="expected a job with a program"):
        compensate_program(CompensationJob("irb140", EXAGGERATED, targets="t.csv"))


def test_the_core_names_the_scene_robots_io_reads_the_joint_objects_of() -> None:
    """The deformation core names the robots whose joint objects are known without reading them (io does):
    its list is irb140 (the constants) and every built-in scene robot io has a file for."""
    from thermocomp.deformation.coppeliasim_convention import AUTHORS_SCENE_ROBOTS
    from thermocomp.io.robots import BUILTIN_JOINT_OBJECTS, builtin_joint_objects

    assert AUTHORS_SCENE_ROBOTS == ("irb140", *BUILTIN_JOINT_OBJECTS)
    for name in BUILTIN_JOINT_OBJECTS:
        R = builtin_joint_objects(name, 6)
        np.testing.assert_allclose(R @ np.swapaxes(R, 1, 2), np.tile(np.eye(3), (6, 1, 1)), atol=1e-9)


def test_names_loaded_on_first_use_stay_in_their_package_and_are_seen_by_the_check() -> None:
    """A package's ``_EXPORTS`` (thermocomp._lazy) import by string, which lint-imports cannot see: each names a
    module of its own package (never one above it), and each is mirrored by an import under ``TYPE_CHECKING``,
    which it does see. The root package (the Python API, an interface) may name any module."""
    import ast

    checked = 0
    for init in PACKAGE.glob("*/__init__.py"):
        tree = ast.parse(init.read_text(encoding="utf-8"))
        exports = [node.value for node in tree.body if isinstance(node, ast.Assign)
                   and any(isinstance(t, ast.Name) and t.id == "_EXPORTS" for t in node.targets)]
        if not exports:
            continue
        package = f"thermocomp.{init.parent.name}"
        mapping = ast.literal_eval(exports[0])
        mirrored = {alias.name: node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                    for alias in node.names}
        for name, module in mapping.items():
            assert module.startswith(package + "."), f"{package}.{name} loads {module}, outside its package"
            assert mirrored.get(name) == module, f"{package}.{name}: no TYPE_CHECKING import from {module}"
        checked += 1
    assert checked >= 3  # the walk saw the lazy packages
