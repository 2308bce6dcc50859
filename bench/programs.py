"""A 100,000-motion robot program against the same targets as a timed CSV (issue 11's speed target).

The toolpath of bench/toolpath.py (a layered spiral print) is written twice:
as a program, and as the self-describing targets CSV with ``time_min``
(variant B: no reference joints, as the program has none). ``--language
rapid`` (the default): a RAPID module of ``MoveL`` instructions with inline
robtargets for the IRB140 (as a CAM post-processor writes them, confdata from
the path's joints). ``--language urscript``: a URScript of ``movel(p[...])``
for the UR5, the same poses moved into its reach. Both files are compensated
with the exaggerated table, each motion at its own minute (``--timed`` for
the program), in fresh processes; the script prints both wall times and
their ratio: the median of alternating pairs (``--pairs``, default 3; ``make
bench`` takes five for RAPID, three for URScript).

Run: ``.venv/bin/python bench/programs.py [--poses 100000] [--language urscript] [--profile]``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DEFORMATION = REPO / "deformations" / "exaggerated.csv"
#: "About the time of the same targets as CSV", read as this factor (the issue's wording; bench/run.py's ABOUT).
ABOUT = 1.25


def write_targets_csv(csv: Path, orientation: list[str], table: np.ndarray) -> None:
    """A timed targets CSV: names ``T0``.., then ``table`` ``(m, 7)`` (x, y, z [mm], the three ``orientation``
    columns, time [min]) as ``%.12g``."""
    with open(csv, "w", encoding="utf-8") as handle:
        handle.write(",".join(["name", "x_mm", "y_mm", "z_mm", *orientation, "time_min"]) + "\n")
        fmt = "T%d," + ",".join(["%.12g"] * table.shape[1]) + "\n"
        handle.write("".join(fmt % (i, *row) for i, row in enumerate(table.tolist())))


def write_program(path: Path, csv: Path, poses: int) -> None:
    sys.path.insert(0, str(HERE))
    from toolpath import DURATION_MIN, Toolpath

    import thermocomp as tc
    from thermocomp.geometry.rotations import euler_xyz_from_matrix, quat_wxyz_from_matrix
    from thermocomp.kinematics.confdata import confdata_from_q

    path_ = Toolpath()
    q = path_.q(poses)
    model = tc.nominal_model(path_.chain)
    R, p = tc.fk(model, q)
    quat = quat_wxyz_from_matrix(R)
    cf = confdata_from_q(model, q)
    values = np.hstack([p * 1e3, quat])
    line = ("    MoveL [[%.9g,%.9g,%.9g],[%.9g,%.9g,%.9g,%.9g],[%d,%d,%d,%d],"
            "[9E+09,9E+09,9E+09,9E+09,9E+09,9E+09]], v5, z1, tool0;\n")
    with open(path, "w", encoding="latin-1") as handle:
        handle.write("MODULE Print\n  PROC main()\n")
        for start in range(0, poses, 50_000):
            rows = zip(values[start:start + 50_000].tolist(), cf[start:start + 50_000].tolist())
            handle.write("".join(line % (*v, *c) for v, c in rows))
        handle.write("  ENDPROC\nENDMODULE\n")
    euler = np.degrees(euler_xyz_from_matrix(R))
    time_min = np.linspace(0.0, DURATION_MIN, poses)
    table = np.hstack([p * 1e3, euler, time_min[:, None]])
    write_targets_csv(csv, ["euler_xyz_a_deg", "euler_xyz_b_deg", "euler_xyz_c_deg"], table)


#: The UR5's copy of the print path: the IRB140 path's poses moved (not turned) into the UR5's reach [m].
UR_CENTRE = (0.45, 0.15, 0.25)


def write_urscript(path: Path, csv: Path, poses: int) -> None:
    """The same toolpath for the UR5 as a CAM post-processor writes it (``movel(p[...], a=, v=)`` with a
    ``set_tcp``), and its targets CSV with ``time_min`` (rotation vectors, as the script's)."""
    sys.path.insert(0, str(HERE))
    from toolpath import DURATION_MIN, Toolpath

    import thermocomp as tc
    from thermocomp.geometry.rotations import rotvec_from_matrix

    path_ = Toolpath()
    R, p = tc.fk(tc.nominal_model(path_.chain), path_.q(poses))
    p = p - p.mean(axis=0) + np.array(UR_CENTRE)
    values = np.hstack([p, rotvec_from_matrix(R)])
    line = "  movel(p[%.6f, %.6f, %.6f, %.6f, %.6f, %.6f], a=1.2, v=0.05)\n"
    with open(path, "w", encoding="latin-1") as handle:
        handle.write("def print_part():\n  set_tcp(p[0, 0, 0.1, 0, 0, 0])\n")
        for start in range(0, poses, 50_000):
            handle.write("".join(line % tuple(v) for v in values[start:start + 50_000].tolist()))
        handle.write("end\n")
    table = np.hstack([p * 1e3, values[:, 3:], np.linspace(0.0, DURATION_MIN, poses)[:, None]])
    write_targets_csv(csv, ["rotvec_x_rad", "rotvec_y_rad", "rotvec_z_rad"], table)


#: Each language's writer and robot.
LANGUAGES = {"rapid": (write_program, "irb140", ".mod"), "urscript": (write_urscript, "ur5", ".script")}


def worker(kind: str, source: Path, out: Path, profile: bool, robot: str = "irb140") -> dict:
    import cProfile
    import io
    import pstats

    import thermocomp as tc
    from thermocomp.programs import ProgramOptions, compensate_program

    t0 = time.perf_counter()
    prof = cProfile.Profile() if profile else None
    if prof:
        prof.enable()
    if kind == "program":
        report = compensate_program(robot, DEFORMATION, source, out, program_options=ProgramOptions(timed=True))
        facts = {"rows": report.summary.n_rows, "failed": len(report.failed), "solver_s": report.summary.solver_seconds,
                 "findings": len(report.feasibility)}
    else:
        report = tc.run_compensation(robot, DEFORMATION, source, out=out)
        facts = {"rows": report.summary.n_rows, "failed": report.summary.n_failed,
                 "solver_s": report.summary.solver_seconds}
    facts["wall_s"] = time.perf_counter() - t0
    if prof:
        prof.disable()
        text = io.StringIO()
        pstats.Stats(prof, stream=text).sort_stats("cumulative").print_stats(25)
        facts["profile"] = text.getvalue()
    return facts


def compare(tmp: Path, poses: int, profile: bool = False, echo: bool = False, pairs: int = 1,
            language: str = "rapid") -> dict:
    """Write both files in ``tmp``, compensate each in a fresh process, ``pairs`` times alternating (CSV, then
    program); ``{"csv": .., "program": .., "ratio": ..}``, the wall times being the medians over the pairs and
    ``ratio`` the median of the pairs' ratios (a run's time moves by a second on a shared machine)."""
    write, robot, suffix = LANGUAGES[language]
    program, csv = tmp / f"print{suffix}", tmp / f"print_{language}.csv"
    t0 = time.perf_counter()
    write(program, csv, poses)
    if echo:
        print(f"wrote {poses:,} motions: {program.stat().st_size / 1e6:.1f} MB {language}, "
              f"{csv.stat().st_size / 1e6:.1f} MB CSV ({time.perf_counter() - t0:.1f} s)")
    runs: dict[str, list[dict]] = {"csv": [], "program": []}
    for _ in range(pairs):
        for kind, source, out in (("csv", csv, tmp / "out.csv"), ("program", program, tmp / f"out{suffix}")):
            cmd = [sys.executable, __file__, "--worker", kind, str(source), str(out), "--robot", robot] + \
                (["--profile"] if profile else [])
            done = subprocess.run(cmd, capture_output=True, text=True, check=True)
            runs[kind].append(json.loads(done.stdout))
    results: dict = {"poses": poses, "pairs": pairs, "language": language}
    for kind, done in runs.items():
        r = dict(done[-1])
        r["wall_s"] = float(np.median([d["wall_s"] for d in done]))
        r["walls"] = [d["wall_s"] for d in done]
        results[kind] = r
        if echo:
            spread = "" if pairs == 1 else " (median of " + ", ".join(f"{w:.1f}" for w in r["walls"]) + ")"
            print(f"{kind:8} {r['wall_s']:7.1f} s wall{spread}, solver {r['solver_s']:.1f} s, {r['rows']:,} rows, "
                  f"{r['failed']} failed" + (f", {r['findings']} feasibility findings" if "findings" in r else ""))
            if profile:
                print(r["profile"])
    ratios = [b["wall_s"] / a["wall_s"] for a, b in zip(runs["csv"], runs["program"])]
    results["ratio"] = float(np.median(ratios))
    results["ratios"] = ratios
    if echo and pairs > 1:
        print("program / CSV per pair: " + ", ".join(f"{x:.2f}" for x in ratios))
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--poses", type=int, default=100_000)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--pairs", type=int, default=3, help="alternating CSV/program runs (median taken)")
    parser.add_argument("--language", choices=sorted(LANGUAGES), default="rapid")
    parser.add_argument("--robot", default="irb140", help=argparse.SUPPRESS)
    parser.add_argument("--worker", nargs=3, metavar=("KIND", "SOURCE", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args.worker[0], Path(args.worker[1]), Path(args.worker[2]), args.profile, args.robot)))
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        results = compare(Path(tmp), args.poses, args.profile, echo=True, pairs=args.pairs, language=args.language)
        verdict = "met" if results["ratio"] <= ABOUT else "MISSED"
        print(f"program / CSV wall time: x{results['ratio']:.2f} (target: about the same, <= x{ABOUT}): {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
