"""Compiled code on a read-only install (issue 28, item 5): numba's cache falls back, the command still runs.

A system-wide or container install has the package folder and the home folder read-only. Simulated here so that
root cannot write there either: the module's ``__pycache__`` and the home folder are plain files, so numba can
create neither its in-tree cache nor ``~/.cache/numba``. Plain ``numba.njit(cache=True)`` then refuses
("cannot cache function"); :func:`thermocomp.compiled.njit` keeps its cache in a private folder of the temporary
directory, or compiles without a cache when that folder is not the user's own, saying which in one line.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

KERNEL = '''
from {module} import njit

@njit{options}
def halve(x):
    return x / 2
'''


def _read_only_install(tmp_path: Path, module: str, options: str) -> tuple[Path, dict]:
    """A module folder whose ``__pycache__`` cannot be made, a home folder that is a file, a fresh TMPDIR."""
    code = tmp_path / "install"
    code.mkdir()
    (code / "kernel_mod.py").write_text(textwrap.dedent(KERNEL.format(module=module, options=options)))
    (code / "__pycache__").write_text("not a folder")
    (tmp_path / "home").write_text("not a folder")
    (tmp_path / "tmp").mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_CACHE", "XDG_CACHE"))}
    env.update(HOME=str(tmp_path / "home"), TMPDIR=str(tmp_path / "tmp"), PYTHONDONTWRITEBYTECODE="1")
    return code, env


def _run(code: Path, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "import kernel_mod; print(kernel_mod.halve(3.0))"], cwd=code,
                          env=env, capture_output=True, text=True, timeout=600)


@pytest.mark.slow
def test_plain_numba_refuses_there_so_the_simulation_is_real(tmp_path):
    code, env = _read_only_install(tmp_path, "numba", "(cache=True)")
    done = _run(code, env)
    assert done.returncode != 0 and "cannot cache function" in done.stderr


@pytest.mark.slow
def test_the_cache_moves_to_a_private_folder_of_the_temporary_directory(tmp_path):
    code, env = _read_only_install(tmp_path, "thermocomp.compiled", "")
    folder = tmp_path / "tmp" / f"thermocomp-numba-{os.getuid()}"
    for _ in range(2):  # compiled into the folder, then loaded from it; said each run
        done = _run(code, env)
        assert done.returncode == 0, done.stderr
        assert done.stdout.split() == ["1.5"]
        lines = done.stderr.splitlines()
        assert len(lines) == 1 and f"caching it in {folder}" in lines[0]
    assert any(folder.rglob("*.nbi")) and (folder.stat().st_mode & 0o777) == 0o700


@pytest.mark.slow
def test_without_a_folder_of_its_own_it_compiles_in_every_run(tmp_path):
    code, env = _read_only_install(tmp_path, "thermocomp.compiled", "")
    (tmp_path / "tmp" / f"thermocomp-numba-{os.getuid()}").write_text("someone else's")  # not a private folder
    done = _run(code, env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["1.5"]
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and "compiling in every run" in lines[0]
