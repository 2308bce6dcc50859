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
