"""``python -m thermocomp.warm_up``: compile every compiled function once, as ``make install`` does.

The numba cache it fills is :mod:`thermocomp.compiled`'s; docs/speed.md says why this runs at install time.
"""

from __future__ import annotations


def warm_up() -> None:
    """Compile, or load from the cache, every compiled function a command runs: ``make install`` runs this once
    (``python -m thermocomp.warm_up``), so that no later command compiles.

    The kinematics engine compiles whole on import (explicit signatures); the results writer compiles on its
    first use and the program readers cache their grammars' parse tables, so a tiny job of each kind runs
    here: a timed targets CSV with and without reference joints (one with its plot), a RAPID module and a
    URScript, in a temporary folder.

    It also writes the Python bytecode of every module those jobs and the command line import, even where the
    environment says not to (``PYTHONDONTWRITEBYTECODE``, set on some CI images): ``make install`` installs
    with uv, which writes none (pip would compile all of every dependency, about 40 s of CPU), and without the
    bytecode every later command would compile those modules again, about 4.5 s of CPU each time.
    """
    import os
    import subprocess
    import sys

    sys.dont_write_bytecode = False
    env = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    # the engine compiles in two processes of its own, about half of it each (34 s of CPU in all), while this one
    # writes the commands' bytecode and compiles the results writer
    engine = [subprocess.Popen([sys.executable, "-c", f"from thermocomp.warm_up import _compile_engine; "
                                f"_compile_engine({share})"], env=env) for share in (True, False)]
    try:
        _commands_and_writer()
    finally:
        failed = [process.returncode for process in engine if process.wait() != 0]
        if failed:
            raise SystemExit(f"thermocomp.warm_up: compiling the kinematics engine failed (exit {failed[0]})")
    import tempfile
    from pathlib import Path

    import numpy as np

    import thermocomp.kinematics.engine  # noqa: F401  - every entry point, loaded from the cache just filled
    from thermocomp.app.compensate import CompensationJob, run_compensation  # (the commands' one way in)
    from thermocomp.deformation import DeformationTable
    from thermocomp.geometry.rotations import euler_xyz_from_matrix, quat_wxyz_from_matrix, rotvec_from_matrix
    from thermocomp.io.robots import load_robot
    from thermocomp.kinematics.fk import fk
    from thermocomp.kinematics.model import nominal_model

    def poses(robot: str) -> tuple[np.ndarray, np.ndarray]:
        chain = load_robot(robot)
        q = chain.home + np.linspace(-0.1, 0.1, 4)[:, None] * np.ones(chain.n_joints)
        return fk(nominal_model(chain), q)

    with tempfile.TemporaryDirectory(prefix="thermocomp-warm-up-") as folder:
        tmp = Path(folder)
        table = DeformationTable.from_mm_deg(np.full((6, 6), 0.5))
        R, p = poses("irb140")
        q_deg = np.degrees(load_robot("irb140").home) + np.zeros((len(p), 6))
        rows = np.hstack([p * 1e3, np.degrees(euler_xyz_from_matrix(R)), np.linspace(0, 60, len(p))[:, None]])
        for with_joints in (True, False):
            header = "name,x_mm,y_mm,z_mm,euler_xyz_a_deg,euler_xyz_b_deg,euler_xyz_c_deg,time_min"
            values = np.hstack([rows, q_deg]) if with_joints else rows
            header += "".join(f",q{j + 1}_deg" for j in range(6)) if with_joints else ""
            text = "\n".join([header] + [f"T{i}," + ",".join(f"{v:.12g}" for v in row) for i, row in enumerate(values)])
            (tmp / "targets.csv").write_text(text + "\n", encoding="utf-8")
            # (with a plot once: the bytecode of the matplotlib modules make demo's --plot imports, 1.4 s of CPU
            # in every plotting run without it)
            run_compensation(CompensationJob("irb140", table, targets=tmp / "targets.csv", out=tmp / "results.csv",
                                              plot=tmp / "plot.png" if with_joints else None))
        quat = quat_wxyz_from_matrix(R)
        moves = "".join(f"    MoveL [[{x:.6f},{y:.6f},{z:.6f}],[{w:.9f},{a:.9f},{b:.9f},{c:.9f}],[0,0,0,0],"
                        "[9E+09,9E+09,9E+09,9E+09,9E+09,9E+09]], v100, z1, tool0;\n"
                        for (x, y, z), (w, a, b, c) in zip(p * 1e3, quat))
        (tmp / "warm.mod").write_text(f"MODULE Warm\n  PROC main()\n{moves}  ENDPROC\nENDMODULE\n", encoding="latin-1")
        run_compensation(CompensationJob("irb140", table, program=tmp / "warm.mod", out=tmp / "warm_out.mod",
                                          results=tmp / "warm.csv"))
        R, p = poses("ur5")
        moves = "".join(f"  movel(p[{x:.6f}, {y:.6f}, {z:.6f}, {a:.6f}, {b:.6f}, {c:.6f}], a=1.2, v=0.05)\n"
                        for (x, y, z), (a, b, c) in zip(p, rotvec_from_matrix(R)))
        (tmp / "warm.script").write_text(f"def warm():\n{moves}end\n", encoding="latin-1")
        run_compensation(CompensationJob("ur5", table, program=tmp / "warm.script", out=tmp / "warm_out.script",
                                          results=tmp / "warm.csv"))


#: The engine's entry points one compiling process takes (17 of the 34 s of CPU the engine takes to compile, measured
#: one by one); the other takes the rest. They call no other compiled function that has a signature of its own.
_ENGINE_SHARE = {"newton_block", "jacobian_rates_block", "pose_error_block", "deformed_block"}


def _compile_engine(share: bool) -> None:
    """Compile into the cache the engine's share of :data:`_ENGINE_SHARE` (True) or the rest (False)."""
    from thermocomp import compiled

    compiled.defer()
    import thermocomp.kinematics.engine  # noqa: F401  - registers its entry points

    compiled.compile_deferred(_ENGINE_SHARE, share)


def _commands_and_writer() -> None:
    """Import every module of the package (their bytecode is written, and that of the modules they import: a
    command imports only its own part of the library, so building the parsers no longer reaches it all) and
    compile the results writer on two rows."""
    import importlib
    import pkgutil

    import numpy as np

    import thermocomp
    from thermocomp.io.results_text import results_lines, utf8_table

    for module in pkgutil.walk_packages(thermocomp.__path__, "thermocomp."):
        if module.name != "thermocomp.__main__":  # (which runs the command line)
            importlib.import_module(module.name)
    names = utf8_table(["a", "b"])
    results_lines(np.zeros(2), np.zeros(2, dtype=np.int64), names, np.zeros(2, dtype=np.int64), names,
                  np.zeros(2, dtype=bool), np.ones((2, 3)), np.zeros((2, 3), dtype=bool))


if __name__ == "__main__":
    warm_up()
