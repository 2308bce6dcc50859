"""RAPID motions whose target is an expression of a named one, read warm against plain motions (issue 35, no cliff).

A CAM or palletising module writes its path as ``MoveL Offs(p10, dx, dy, dz), v100, z10, tool0;`` (or RelTool) as
often as with inline robtargets: each target then an expression. Both modules of N motions are read in one warm
process (``rapid_program_from_text``, as ``compensate --program`` reads a file), alternating, the median CPU time of
three; the figure is the Offs module's cost per statement over the plain one's. Before the bulk lane read ``Offs``
(rapid_motions.MOVES_PATTERN) every such statement went through lark and the walker one at a time: some 60 times a
plain motion's cost (~600 us against ~10 us a statement).

Run: ``.venv/bin/python bench/rapid_expressions.py [--motions 20000] [--repeats 3]``.
"""

from __future__ import annotations

import argparse

import numpy as np
from benchutil import cpu_medians

#: Issue 35, "no cliff": an Offs motion is read within this factor of a plain (inline) one's cost.
OFFS_FACTOR = 3.0
#: Motions of each module, in ``make bench`` and in ``--quick``.
MOTIONS = 20_000
MOTIONS_QUICK = 5_000

_HEAD = ("MODULE Cell\n  CONST robtarget p10 := [[500,0,400],[0,0,1,0],[0,0,0,0],[9E+09,9E+09,9E+09,9E+09,9E+09,9E+09]];\n"
         "  PROC main()\n")
_TAIL = "  ENDPROC\nENDMODULE\n"


def texts(n: int) -> dict[str, str]:
    """The module of ``n`` motions to ``Offs`` of one named target (``"offs"``) and the same path as inline
    robtargets (``"plain"``), offsets within 50 mm [mm]."""
    d = np.random.default_rng(35).uniform(-50, 50, (n, 3)).round(3).tolist()
    offs = "".join(f"    MoveL Offs(p10, {x}, {y}, {z}), v100, z10, tool0;\n" for x, y, z in d)
    plain = "".join(f"    MoveL [[{500 + x:.3f},{y:.3f},{400 + z:.3f}],[0,0,1,0],[0,0,0,0],[9E+09,9E+09,9E+09,9E+09,"
                    "9E+09,9E+09]], v100, z10, tool0;\n" for x, y, z in d)
    return {"offs": _HEAD + offs + _TAIL, "plain": _HEAD + plain + _TAIL}


def measure(n: int, repeats: int = 3) -> dict:
    """CPU seconds (median of ``repeats``, alternating) of reading :func:`texts`' modules warm in this process, and
    the ratio of the Offs module to the plain one."""
    from thermocomp.programs.rapid import RapidOptions, rapid_program_from_text

    def read(text: str) -> object:
        return rapid_program_from_text(text, "cell.mod", options=RapidOptions(max_motions=10 * n))

    read(texts(100)["offs"])  # (warm: the parsers built)
    out = cpu_medians(read, texts(n), repeats, lambda kind: n)
    return {**out, "n": n, "repeats": repeats, "ratio": out["offs"] / out["plain"]}


def line(r: dict) -> str:
    return (f"RAPID MoveL Offs(p10, dx, dy, dz), {r['n']:,} motions, read warm: {1e6 * r['offs'] / r['n']:.0f} us a "
            f"statement vs {1e6 * r['plain'] / r['n']:.0f} us inline: x{r['ratio']:.2f} (target <= x{OFFS_FACTOR:g}): "
            f"{'MET' if r['ratio'] <= OFFS_FACTOR else 'MISSED'}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--motions", type=int, default=MOTIONS)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    print(line(measure(args.motions, args.repeats)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
