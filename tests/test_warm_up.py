"""``python -m thermocomp.warm_up`` (what ``make install`` runs) leaves nothing for a command to compile: neither
machine code (numba's cache) nor bytecode, even where the environment says not to write bytecode."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from helpers import REPO

from thermocomp.compile_notice import MESSAGE


@pytest.mark.slow
def test_after_the_warm_up_a_command_compiles_nothing(tmp_path):
    # an empty numba cache, and an empty bytecode tree: with a prefix Python reads and writes bytecode there only
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba"), PYTHONPYCACHEPREFIX=str(tmp_path / "pyc"),
               PYTHONDONTWRITEBYTECODE="1")
    done = subprocess.run([sys.executable, "-m", "thermocomp.warm_up"], env=env, capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    written = {p.relative_to(tmp_path / "pyc").as_posix() for p in (tmp_path / "pyc").rglob("*.pyc")}
    for module in ("thermocomp/cli/compensate", "thermocomp/cli/excite", "thermocomp/kinematics/engine",
                   "numba/core/compiler", "scipy/signal/__init__", "lark/lark"):
        assert any(f"/{module}." in f"/{name}" for name in written), f"no bytecode of {module}"
    demo = [str(Path(sys.executable).parent / "thermocomp"), "compensate", "--robot", "irb140", "--deformation",
            str(REPO / "deformations" / "exaggerated.csv"), "--targets", str(REPO / "examples" / "targets_random50.csv"),
            "--out", str(tmp_path / "out.csv"), "--no-progress"]
    env.pop("PYTHONDONTWRITEBYTECODE")  # the demo may write bytecode: it finds every module's already written
    done = subprocess.run(demo, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert MESSAGE not in done.stderr  # numba loaded every function from the cache
    after = {p.relative_to(tmp_path / "pyc").as_posix() for p in (tmp_path / "pyc").rglob("*.pyc")}
    stdlib = sysconfig.get_paths()["stdlib"].lstrip("/")  # (it has its own bytecode, beside the sources)
    missing = sorted(name for name in after - written if not name.startswith(stdlib))
    assert not missing, f"the demo compiled {len(missing)} modules: {missing}"


def test_the_engines_two_compiling_shares_name_its_entry_points():
    """The warm-up compiles the engine in two processes: one takes the entry points ``_ENGINE_SHARE`` names, the
    other the rest. Every name there is a compiled function of the engine's (a stale one is refused), and neither
    share is empty."""
    script = ("import json; from thermocomp import compiled; compiled.defer(); import thermocomp.kinematics.engine\n"
              "names = [name for name, _, _ in compiled._DEFERRED]\n"
              "try:\n    compiled.compile_deferred({'no_such_block'}, True)\nexcept ValueError as error:\n"
              "    print(json.dumps([names, str(error)]))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    names, refusal = json.loads(done.stdout)
    from thermocomp.warm_up import _ENGINE_SHARE

    assert _ENGINE_SHARE < set(names), sorted(_ENGINE_SHARE - set(names))
    assert {"fk_block", "follow_piece"} <= set(names) - _ENGINE_SHARE
    assert "no_such_block" in refusal
