"""Findings of the second fresh adversarial run of issue 9, one test per class.

Each case runs the real command line (in-process where the behaviour allows)
in a temporary folder of its own, with the checks of test_bad_input.py: the
exit status, the message naming the file or option, no traceback, every file
there before byte for byte the same, no temporary left.
"""

from __future__ import annotations

import pytest
from coppeliasim_fake.fixtures import fake_irb140  # noqa: F401  (fixture)
from test_bad_input import case, refused  # noqa: F401  (fixture)

from thermocomp.cli.common import EXIT_INPUT
from thermocomp.deformation.timelaw import LinearRamp
from thermocomp.io.timelaw_file import write_time_law

LAW_RUNS = [
    ["compensate", "--robot", "irb140", "--targets", "t.csv", "--minutes", "0:10:5"],
    ["sim", "--robot", "irb140", "--no-scene", "--targets", "t.csv", "--minutes", "0", "--headless"],
]


@pytest.mark.parametrize("argv", LAW_RUNS, ids=["compensate", "sim"])
@pytest.mark.parametrize("out", ["d.law.toml", "./d.law.toml", "d.law.toml/"])
def test_no_output_lands_on_the_time_law_file(case, capsys, argv, out):
    """--time-law from:d.csv reads d.law.toml: an input, never an output (compensate replaced it, exit 0)."""
    write_time_law(LinearRamp(120.0), case / "d.law.toml", "d.csv")
    words = ("d.law.toml", "--time-law") if not out.endswith("/") else ("d.law.toml",)
    refused(case, capsys, [*argv, "--deformation", "d.csv", "--time-law", "from:d.csv", "--out", out], EXIT_INPUT,
            *words)


def test_no_output_of_a_scene_run_lands_on_the_time_law_file(case, capsys, fake_irb140):
    write_time_law(LinearRamp(120.0), case / "d.law.toml", "d.csv")
    refused(case, capsys, ["compensate", "--deformation", "d.csv", "--time-law", "from:d.csv", "--targets", "t.csv",
                           "--minutes", "0", "--simulator", "coppeliasim", "--coppeliasim-port", fake_irb140.port,
                           "--robot-path", "/IRB140", "--tip", "/IRB140/tip", "--out", "d.law.toml"], EXIT_INPUT,
            "--out d.law.toml", "--time-law")
