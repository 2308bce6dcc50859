"""Every example in examples/ runs, from another folder, and says what it should.

The examples are what README.md points Python users to; running them here
keeps them true when the API changes.
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from helpers import REPO

EXAMPLES = sorted((REPO / "examples").glob("*.py"))


def run_example(name: str, *args: str, cwd) -> str:
    proc = subprocess.run([sys.executable, str(REPO / "examples" / name), *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_every_example_is_tested_here():
    tested = {"paper_case.py", "core_api.py", "pybullet_tracker.py"}
    assert {p.name for p in EXAMPLES} == tested


@pytest.mark.slow
def test_paper_case(tmp_path):
    out = run_example("paper_case.py", str(tmp_path / "out"), cwd=tmp_path)
    worst_mm = float(re.search(r"every target within (\S+) mm", out).group(1))
    assert worst_mm <= 1e-6
    lines = (tmp_path / "out" / "irb140_exaggerated_static.csv").read_text().splitlines()
    assert len(lines) == 1 + 50


def test_core_api(tmp_path):
    out = run_example("core_api.py", cwd=tmp_path)
    rows = re.findall(r"target \d: (\w+), .* uncompensated miss (\S+) mm, residual (\S+) mm", out)
    assert len(rows) == 5
    for status, miss_mm, residual_mm in rows:
        assert status == "converged"
        assert float(miss_mm) > 1.0 and float(residual_mm) <= 1e-6


@pytest.mark.slow
def test_pybullet_tracker(tmp_path):
    out = run_example("pybullet_tracker.py", str(tmp_path), cwd=tmp_path)
    found = re.search(r"up to (\S+) mm, with compensation by (\S+) mm", out)
    assert float(found.group(1)) > 1.0 and float(found.group(2)) <= 1e-6
    assert (tmp_path / "irb140_cell.png").stat().st_size > 10_000
    assert len((tmp_path / "irb140_tracker.csv").read_text().splitlines()) == 1 + 150
