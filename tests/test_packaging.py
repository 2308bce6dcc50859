"""Packaging: every subpackage is listed in pyproject.toml, and the wheel carries the robot data and scenes."""

from __future__ import annotations

import subprocess
import sys
import zipfile

import tomllib
from helpers import REPO


def test_every_subpackage_is_listed_in_pyproject():
    listed = set(tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    root = REPO / "plugin"
    found = {".".join(p.parent.relative_to(root).parts) for p in root.rglob("__init__.py")}
    assert found - listed == set(), "add these to [tool.setuptools] packages"


def test_wheel_contains_the_builtin_robots(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q",
                           "-w", str(tmp_path), str(REPO)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    wheel = next(tmp_path.glob("thermocomp-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    for robot in ("irb140", "gofa", "ur5"):
        for data in ("chain.csv", "inertia.csv", "meshes/base.stl", "meshes/link6.stl"):
            assert f"thermocomp/_robots/{robot}/{data}" in names
    assert "thermocomp/_robots/gofa/ros_industrial_meshes.csv" in names
    assert "thermocomp/simulators/coppeliasim/thermocomp.lua" in names
    for scene in ("irb140_paper_cell.toml", "gofa_cell.toml", "ur5_print_bed.toml", "ur5_print_path.csv"):
        assert f"thermocomp/_scenes/{scene}" in names


def test_a_csv_run_imports_no_simulator_nor_pandas(tmp_path):
    """What one feature needs stays out of the others: a CSV compensation imports neither the simulators nor
    pandas (pyarrow's to_numpy imported pandas: 0.2 s of every run), in a fresh interpreter."""
    import subprocess
    import sys

    from helpers import REPO

    code = ("import sys, thermocomp as tc\n"
            f"tc.run_compensation('irb140', {str(REPO / 'deformations' / 'exaggerated.csv')!r}, "
            f"{str(REPO / 'examples' / 'targets_random50.csv')!r}, out={str(tmp_path / 'o.csv')!r})\n"
            "print(sorted(m for m in ('pandas', 'pybullet', 'coppeliasim_zmqremoteapi_client', 'zmq', 'matplotlib', "
            "'trimesh', 'lark') if m in sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
