"""Shared fixtures: the paper's reference data (skipped when ../shared is absent)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from helpers import PAPER, REPO  # noqa: F401  (REPO re-exported for older imports)


@pytest.fixture
def paper_dir() -> Path:
    """The paper's inputs in ../shared/reference/paper-irb140 (skip when absent)."""
    if not PAPER.is_dir():
        pytest.skip(f"reference data not found at {PAPER} (../shared beside the repository)")
    return PAPER


@pytest.fixture
def paper(paper_dir: Path) -> Path:
    """Alias of :func:`paper_dir`."""
    return paper_dir


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(20261122)


@pytest.fixture(scope="session")
def xvfb_run() -> str:
    """``xvfb-run`` for the GUI tests: installed with apt-get when missing and allowed (root, apt), else a skip saying so."""
    import os
    import shutil
    import subprocess

    if shutil.which("xvfb-run") is None or shutil.which("Xvfb") is None:
        apt = shutil.which("apt-get")
        if apt is None or os.geteuid() != 0:
            pytest.skip("Xvfb is not installed and cannot be installed here (needs root and apt-get): "
                        "apt-get install xvfb; the GUI tests need a display")
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        done = subprocess.run([apt, "install", "-y", "-q", "xvfb"], capture_output=True, env=env, check=False)
        if done.returncode != 0:  # the package lists may be missing on a fresh image
            subprocess.run([apt, "update", "-q"], capture_output=True, env=env, check=False)
            subprocess.run([apt, "install", "-y", "-q", "xvfb"], capture_output=True, env=env, check=False)
    found = shutil.which("xvfb-run")
    if found is None or shutil.which("Xvfb") is None:
        pytest.skip("Xvfb could not be installed (apt-get install xvfb failed); the GUI tests need a display")
    return found
