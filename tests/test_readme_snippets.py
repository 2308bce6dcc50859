"""Every ```python block of README.md runs as shown (the developers' guide: every README snippet runs)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[1]
BLOCKS = re.findall(r"```python\n(.*?)```", (REPO / "README.md").read_text(encoding="utf-8"), re.S)


@pytest.mark.parametrize("block", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_readme_python_block_runs(block, tmp_path, monkeypatch):
    for folder in ("deformations", "examples"):
        shutil.copytree(REPO / folder, tmp_path / folder)
    monkeypatch.chdir(tmp_path)
    scope: dict = {}
    exec(compile(block, "README.md", "exec"), scope)  # noqa: S102 - the README's own text
    if "result" in scope:  # the core block: IK of FK's own pose gives the angles back
        assert np.all(scope["result"].status == 0)
        assert np.abs(scope["result"].q - scope["q"]).max() < 1e-9
    if "report" in scope:  # the job block: the CSV it says it wrote is there, one row a solve
        written = (tmp_path / "compensated.csv").read_text().splitlines()
        assert len(written) == 1 + 50 * 201
