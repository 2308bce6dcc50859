"""PyBullet as a simulated laser tracker, and a picture of the cell without a display.

The IRB140 in its cell (scenes/irb140_paper_cell.toml), the exaggerated
table ramped over 200 minutes, the paper's 50 targets at minutes 0, 100 and
200: PyBullet (DIRECT mode, its own kinematics) plays the program with the
nominal and with the corrected angles and reports where the TCP went; then
TinyRenderer draws the deformed robot at minute 200, magnified 20 times,
with the nominal robot as a ghost.

Run from anywhere: ``python examples/pybullet_tracker.py [OUT_DIR]`` (default: ``out/``).
"""

import sys
from pathlib import Path

import numpy as np

import thermocomp
from thermocomp.app.sim import SimInputs, load_setup, measure
from thermocomp.simulators.pybullet import save_screenshot

REPO = Path(__file__).resolve().parent.parent


def main(out_dir: Path) -> int:
    out_dir.mkdir(parents=True, exist_ok=True)
    setup = load_setup(SimInputs("irb140", REPO / "deformations" / "exaggerated.csv", REPO / "examples" / "targets_random50.csv",
                       scene=REPO / "scenes" / "irb140_paper_cell.toml",
                       options=thermocomp.CompensationOptions(minutes=(0.0, 100.0, 200.0))))
    measurement, _ = measure(setup, out_dir / "irb140_tracker.csv")
    without = np.linalg.norm(measurement.p_nominal - measurement.p_target, axis=1)
    with_compensation = np.linalg.norm(measurement.p_corrected - measurement.p_target, axis=1)
    print(f"PyBullet measured {len(without)} rows: without compensation the TCP misses by up to "
          f"{without.max() * 1e3:.3f} mm, with compensation by {with_compensation.max() * 1e3:.1e} mm")
    save_screenshot(setup, out_dir / "irb140_cell.png", minute=200.0, magnification=20.0)
    print(f"wrote {out_dir / 'irb140_tracker.csv'} and {out_dir / 'irb140_cell.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("out")))
