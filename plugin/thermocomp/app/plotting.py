"""Pictures of a compensation run (matplotlib, drawn off-screen).

Kept apart from the numerical core: it reads a
:class:`~thermocomp.compensation.compensate.CompensationSummary` and writes a
PNG (atomically, like every output).
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np

from thermocomp._typing import PathLike
from thermocomp.compensation.compensate import CompensationSummary
from thermocomp.errors import InputError
from thermocomp.io.atomic import atomic_write_bytes

#: The paper's reported accuracy after compensation (seed 002, Tables 15 and 17) [mm].
PAPER_STATIC_MM = 0.01
PAPER_TRANSIENT_MM = 0.2


def plot_summary(summary: CompensationSummary, path: PathLike, title: str = "") -> Path:
    """Write :func:`plot_png` to ``path`` (atomically); returns ``path``."""
    dest = Path(path)
    atomic_write_bytes(dest, plot_png(summary, title, where=str(dest)))
    return dest


def plot_png(summary: CompensationSummary, title: str = "", where: str | None = None) -> bytes:
    """PNG of the TCP error before and after compensation, and the joint corrections, per minute.

    Top: the largest position miss of the uncompensated program and the
    largest residual of the compensated one [mm], log scale, with the
    paper's reported accuracy for reference. Bottom: the largest correction
    ``|q - q_nominal|`` of each joint [deg].

    Raises
    ------
    InputError
        Nothing to plot (no converged row), naming ``where`` (the option or file).
    """
    # A Figure drawn by the Agg canvas, without pyplot (its figure manager, backend selection and the modules they
    # import: a fifth of the plot's start-up) and so without global state to close.
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    minutes, values = summary.by_minute()
    if minutes.size == 0 and summary.n_rows:
        raise InputError("nothing to plot: no row was compensated", path=where)
    n = values.shape[1] - 4
    fig = Figure(figsize=(9, 7), constrained_layout=True)
    FigureCanvasAgg(fig)
    top, bottom = fig.subplots(2, 1, sharex=True)
    if not summary.n_rows:  # nothing was solved (a program without motion): the axes, saying so
        top.text(0.5, 0.5, "no point to compensate", ha="center", va="center", transform=top.transAxes)
    floor = 1e-9  # mm: below the solver's tolerance a log axis shows nothing useful
    top.semilogy(minutes, np.maximum(values[:, 0] * 1e3, floor), label="uncompensated: largest TCP miss", color="tab:red")
    top.semilogy(minutes, np.maximum(values[:, 2] * 1e3, floor), label="compensated: largest residual", color="tab:green")
    top.axhline(PAPER_TRANSIENT_MM, color="0.5", ls="--", lw=1, label=f"paper, transient case ({PAPER_TRANSIENT_MM} mm)")
    top.axhline(PAPER_STATIC_MM, color="0.5", ls=":", lw=1, label=f"paper, static case ({PAPER_STATIC_MM} mm)")
    top.set_ylabel("TCP position error [mm]")
    top.legend(loc="best", fontsize=8)
    top.grid(True, which="both", alpha=0.3)
    for j in range(n):
        bottom.plot(minutes, np.degrees(values[:, 4 + j]), label=f"joint {j + 1}")
    bottom.set_xlabel("working time [min]")
    bottom.set_ylabel("correction |q - q_nominal| [deg]")
    if n:
        bottom.legend(loc="best", fontsize=8, ncol=3)
    bottom.grid(True, alpha=0.3)
    if title:
        fig.suptitle(title, fontsize=10)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110)
    return buffer.getvalue()
