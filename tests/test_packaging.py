"""Packaging: every subpackage is listed in pyproject.toml, and the wheel carries the robot data and scenes."""

from __future__ import annotations

import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
from helpers import REPO


def test_every_subpackage_is_listed_in_pyproject():
    listed = set(tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    root = REPO / "plugin"
    found = {".".join(p.parent.relative_to(root).parts) for p in root.rglob("__init__.py")}
    assert found - listed == set(), "add these to [tool.setuptools] packages"


@pytest.mark.slow
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


@pytest.mark.slow
def test_a_csv_run_imports_no_simulator_nor_pandas(tmp_path):
    """What one feature needs stays out of the others: a CSV compensation imports neither the simulators nor
    pandas (pyarrow's to_numpy imported pandas: 0.2 s of every run), in a fresh interpreter."""
    import subprocess
    import sys

    from helpers import REPO

    code = ("import sys, thermocomp as tc\n"
            f"tc.run_compensation(tc.CompensationJob('irb140', {str(REPO / 'deformations' / 'exaggerated.csv')!r}, "
            f"targets={str(REPO / 'examples' / 'targets_random50.csv')!r}, out={str(tmp_path / 'o.csv')!r}))\n"
            "print(sorted(m for m in ('pandas', 'pybullet', 'coppeliasim_zmqremoteapi_client', 'zmq', 'matplotlib', "
            "'trimesh', 'lark') if m in sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


@pytest.mark.slow
def test_the_installed_wheel_runs_the_readme_command_from_any_folder(tmp_path):
    """`pip install` of the project (not editable) could not find its robots (`MultiplexedPath(...)/irb140/chain.csv:
    file not found`, issue 28): the wheel installed in a fresh environment runs the README's main command, reads
    every built-in robot, its scene and the CoppeliaSim add-on, from a folder outside the repository."""
    import sysconfig
    import venv

    wheels = tmp_path / "wheels"
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(REPO)],
                           capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stderr
    env_dir = tmp_path / "env"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    # the dependencies come from this environment (no downloads); thermocomp itself only from the wheel
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    ours = [p for p in sys.path if p.endswith("site-packages")] or [sysconfig.get_paths()["purelib"]]
    (Path(purelib) / "deps_of_the_test_environment.pth").write_text("".join(f"{p}\n" for p in ours))
    installed = subprocess.run([str(python), "-m", "pip", "install", "--no-deps", "-q", str(next(wheels.glob("*.whl")))],
                               capture_output=True, text=True, timeout=600)
    assert installed.returncode == 0, installed.stderr
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    where = subprocess.run([str(python), "-c", "import thermocomp; print(thermocomp.__file__)"], cwd=elsewhere,
                           capture_output=True, text=True, check=True).stdout
    assert where.startswith(purelib), f"thermocomp came from {where}, not the installed wheel"
    run = subprocess.run([str(env_dir / "bin" / "thermocomp"), "compensate", "--robot", "irb140", "--deformation",
                          str(REPO / "deformations" / "exaggerated.csv"), "--targets",
                          str(REPO / "examples" / "targets_random50.csv"), "--out", "o.csv", "--static"],
                         cwd=elsewhere, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    assert len((elsewhere / "o.csv").read_text().splitlines()) == 51
    check = ("from thermocomp.io.robots import BUILTIN_ROBOTS, BUILTIN_VARIANTS, load_robot, robot_dir\n"
             "from thermocomp.io.scene_file import builtin_scene\n"
             "from thermocomp.simulators.coppeliasim.addon import addon_source\n"
             "for name in (*BUILTIN_ROBOTS, *BUILTIN_VARIANTS):\n"
             "    assert load_robot(name).n_joints == 6, name\n"
             "for name in BUILTIN_ROBOTS:\n"
             "    assert (robot_dir(name) / 'meshes' / 'link1.stl').is_file(), name\n"
             "    assert builtin_scene(name).is_file(), name\n"
             "assert addon_source().is_file()\n"
             "print('ok')\n")
    done = subprocess.run([str(python), "-c", check], cwd=elsewhere, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
