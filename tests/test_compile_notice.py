"""The word a first run prints while numba compiles: said once on a compilation, never on a cache load."""

from __future__ import annotations

import io
import subprocess
import sys
import textwrap

import pytest

from thermocomp.cli.progress import ProgressBar
from thermocomp.compile_notice import MESSAGE, compile_notice


def test_said_once_when_numba_compiles_and_not_outside_the_block():
    from numba import njit

    said: list[str] = []

    @njit
    def twice(x):
        return 2 * x

    @njit
    def thrice(x):
        return 3 * x

    with compile_notice(said.append):
        assert twice(2) == 4 and thrice(2.0) == 6.0  # two compilations
    assert said == [MESSAGE]

    @njit
    def four(x):
        return 4 * x

    assert four(1) == 4  # compiled after the block: not heard
    assert said == [MESSAGE]


@pytest.mark.slow
def test_said_on_the_first_run_not_when_the_kernel_comes_from_the_cache(tmp_path):
    (tmp_path / "kernel_mod.py").write_text(textwrap.dedent('''
        from numba import njit

        @njit(cache=True)
        def halve(x):
            return x / 2
    '''))
    script = ("import kernel_mod\nfrom thermocomp.compile_notice import compile_notice\n"
              "with compile_notice(print, 'COMPILING'):\n    print(kernel_mod.halve(3.0))\n")

    def run() -> str:
        done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, check=True)
        return done.stdout

    assert run().split() == ["COMPILING", "1.5"]  # a cold cache: compiled, said
    assert run().split() == ["1.5"]  # loaded from the cache numba wrote: nothing said


def test_a_note_ends_the_bar_line_first():
    stream = io.StringIO()
    bar = ProgressBar("compensating", stream=stream)
    bar.phase("reading", 10)
    bar(3, 10)
    bar.note("a word")
    bar.stop()
    lines = stream.getvalue().split("\n")
    assert "a word" in lines
    assert lines[lines.index("a word") - 1].strip() != ""  # the bar's line, ended before the note
    assert not lines[lines.index("a word") - 1].endswith("a word")
