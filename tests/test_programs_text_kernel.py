"""The compiled point names (text_kernel.point_names) are the f-strings they replace."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from thermocomp.programs.text_kernel import point_names


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-5, 2**62), max_size=300))
def test_point_names_are_the_f_strings(lines):
    assert point_names(np.array(lines, dtype=np.int64)) == [f"{i}:line{line}" for i, line in enumerate(lines, 1)]


def test_point_names_of_a_long_program():
    lines = np.random.default_rng(0).integers(1, 10**7, 120_000)
    assert point_names(lines) == [f"{i}:line{line}" for i, line in enumerate(lines.tolist(), 1)]
