"""Which poses to measure next: an observability index and a greedy choice among candidates.

For the weighted, column-scaled identification Jacobian ``A`` (``N`` rows
for ``m`` poses) with singular values ``s_1 >= ... >= s_r > 0`` on the
identifiable subspace, the index of Borm and Menq is

    O1 = (s_1 s_2 ... s_r)^(1/r) / sqrt(m)

(the geometric mean per pose; larger is better). A greedy selection adds,
one at a time, the candidate configuration that raises the rank most, and
among equals the one with the largest ``O1``; it stops early when no
candidate adds anything. The rank reached with *every* candidate stacked
says what no choice of poses can identify (e.g. the tool's angular
deviations from positions alone).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from thermocomp._typing import ArrayLike, FloatArray
from thermocomp.calibration._blas import single_threaded_blas
from thermocomp.calibration.identify import (
    STATIC_FRACTIONS,
    CalibrationOptions,
    FractionModel,
    _candidates,
    _Problem,
)
from thermocomp.deformation.table import DeformationTable
from thermocomp.errors import ConfigurationError
from thermocomp.geometry.checks import check_array
from thermocomp.io.measurements import Measurements
from thermocomp.robot.chain import Chain

#: Candidates weighed at once by :func:`suggest_poses` (their Gram matrices, some 20 KB each, held together).
CANDIDATES_AT_ONCE = 1024


def observability_index(singular_values: FloatArray, rank: int, n_poses: int) -> float:
    """``O1 = (prod s_i, i <= rank)^(1/rank) / sqrt(n_poses)``; 0 for rank 0."""
    return float(observability_indices(np.asarray(singular_values, float)[None], np.array([rank]), n_poses)[0])


def observability_indices(singular_values: FloatArray, rank: np.ndarray, n_poses: int) -> FloatArray:
    """:func:`observability_index` of each row of ``singular_values`` ``(c, r)`` (descending) at its ``rank``
    ``(c,)``, batch: ``(c,)``."""
    if n_poses == 0:
        return np.zeros(len(rank))
    used = np.arange(singular_values.shape[1]) < rank[:, None]
    logs = np.where(used, np.log(np.where(used, singular_values, 1.0)), 0.0)
    return np.where(rank > 0, np.exp(logs.sum(axis=1) / np.maximum(rank, 1)) / np.sqrt(n_poses), 0.0)


@dataclass(frozen=True, eq=False)
class PoseSuggestion:
    """The poses a greedy selection adds, and what they bring.

    Attributes
    ----------
    index
        Chosen candidates, in the order chosen, ``(k,)``.
    q
        Their controller angles [rad], ``(k, n)``.
    rank
        Rank after each addition, ``(k,)``; ``rank_before`` before any.
    o1
        Observability index after each addition, ``(k,)``; ``o1_before`` before any.
    rank_all
        Rank with every candidate stacked: the most these candidates can identify.
    n_parameters
        Table parameters that were candidates of the fit.
    """

    index: np.ndarray
    q: FloatArray
    rank: np.ndarray
    o1: FloatArray
    rank_before: int
    o1_before: float
    rank_all: int
    n_parameters: int


def _rows(chain: Chain, q: FloatArray, options: CalibrationOptions, table: DeformationTable,
          orientation: bool, fractions: FloatArray | None = None) -> tuple[FloatArray, _Problem]:
    """Weighted, scaled Jacobian rows ``(m, k, Z)`` of configurations ``q`` at ``table`` and ``fractions`` (default 1)."""
    m = q.shape[0]
    meas = Measurements(q=q, p_tracker_tcp=np.zeros((m, 3)), minute=np.zeros(m),
                        R_tracker_tcp=np.broadcast_to(np.eye(3), (m, 3, 3)) if orientation else None)
    law = STATIC_FRACTIONS if fractions is None else FractionModel((), np.zeros(0), lambda theta, meas: fractions)
    problem = _Problem(chain, meas, options, law)
    _, J, *_ = problem.evaluate(table.rows().ravel(), np.zeros(0), np.eye(4))
    return J.reshape(m, -1, J.shape[1]), problem


@single_threaded_blas()
def suggest_poses(chain: Chain, q_measured: ArrayLike, q_candidates: ArrayLike, n_poses: int,
                  options: CalibrationOptions | None = None, table: DeformationTable | None = None,
                  orientation: bool = False, fractions: ArrayLike | None = None) -> PoseSuggestion:
    """Choose up to ``n_poses`` of ``q_candidates`` to add to ``q_measured`` (greedy, see the module).

    Parameters
    ----------
    q_measured
        Configurations already measured [rad], ``(m, n)`` (may be empty).
    q_candidates
        Configurations one could measure [rad], ``(c, n)``, e.g. random
        within the limits or a program's own poses.
    n_poses
        How many to add, >= 1.
    options
        The fit's options (weights, rows, tracker frame, ``rcond``).
    table
        Where to linearise (default the zero table; an identified one is better).
    orientation
        Whether the tracker measures orientation too.
    fractions
        Share of the table at each measured pose ``(m,)`` (their minutes under
        the fitted law; default 1). Candidates are judged on the stabilised
        robot (fraction 1): measurements at several minutes are what separates
        the base row from the tracker frame, and they are already counted.
    """
    options = CalibrationOptions() if options is None else options
    table = DeformationTable.zero(chain.n_joints) if table is None else table
    if n_poses < 1:
        raise ConfigurationError(f"n_poses: expected >= 1, got {n_poses}")
    q_measured = check_array(np.reshape(q_measured, (-1, chain.n_joints)), (None, chain.n_joints), "measured poses")
    q_candidates = check_array(q_candidates, (None, chain.n_joints), "candidate poses")
    cand_rows, problem = _rows(chain, q_candidates, options, table, orientation)
    f_measured = None if fractions is None else check_array(fractions, (q_measured.shape[0],), "fractions")
    have = (_rows(chain, q_measured, options, table, orientation, f_measured)[0].reshape(-1, cand_rows.shape[2])
            if q_measured.shape[0] else np.zeros((0, cand_rows.shape[2])))
    candidates = np.sort(_candidates(chain.n_joints, options.rows))
    forced = np.arange(problem.P, problem.P + problem.B)

    def spectrum(G: FloatArray) -> FloatArray:
        """Singular values (descending) of the candidate columns with the forced ones projected out,
        from Gram matrices ``(..., Z, Z)`` (the Schur complement), batch."""
        S = G[..., candidates[:, None], candidates]
        if forced.size:
            G_ff = G[..., forced[:, None], forced] + 1e-12 * np.eye(forced.size)
            G_fc = G[..., forced[:, None], candidates]
            S = S - np.swapaxes(G_fc, -1, -2) @ np.linalg.solve(G_ff, G_fc)
        return np.sqrt(np.clip(np.linalg.eigvalsh(S)[..., ::-1], 0.0, None))

    def scores(s: FloatArray, m: int) -> tuple[np.ndarray, FloatArray]:
        """Rank and ``O1`` of each spectrum ``s`` ``(c, r)``, batch."""
        rank = np.where(s[:, 0] > 0, np.sum(s > options.rcond * s[:, :1], axis=1), 0)
        return rank, observability_indices(s, rank, m)

    def with_each(G: FloatArray, m: int) -> tuple[np.ndarray, FloatArray]:
        """Rank and ``O1`` of ``G`` plus each candidate's Gram matrix, in chunks of
        :data:`CANDIDATES_AT_ONCE` (the memory of one chunk's ``(c, Z, Z)``, whatever the number of candidates)."""
        parts = [scores(spectrum(G[None] + np.einsum("ckz,cky->czy", rows, rows)), m)
                 for rows in np.array_split(cand_rows, max(1, -(-len(cand_rows) // CANDIDATES_AT_ONCE)))]
        return np.concatenate([r for r, _ in parts]), np.concatenate([o for _, o in parts])

    def score(G: FloatArray, m: int) -> tuple[int, float]:
        rank, o1 = scores(spectrum(G)[None], m)
        return int(rank[0]), float(o1[0])

    G_have = have.T @ have
    rank_all = score(G_have + np.einsum("ckz,cky->zy", cand_rows, cand_rows), 1)[0]
    m = q_measured.shape[0]
    rank0, o10 = score(G_have, m) if m else (0, 0.0)
    chosen: list[int] = []
    ranks: list[int] = []
    o1s: list[float] = []
    current_rank, current_o1 = rank0, o10
    for _ in range(min(n_poses, q_candidates.shape[0])):
        rank_c, o1_c = with_each(G_have, m + len(chosen) + 1)
        rank_c[chosen], o1_c[chosen] = -1, -1.0
        best = rank_c == rank_c.max()
        c = int(np.argmax(np.where(best, o1_c, -np.inf)))  # the highest rank, then the highest O1 (the first of equals)
        rank, o1 = int(rank_c[c]), float(o1_c[c])
        if rank == current_rank and rank == rank_all and o1 <= current_o1:
            break  # nothing more to gain
        chosen.append(c)
        ranks.append(rank)
        o1s.append(o1)
        G_have = G_have + cand_rows[c].T @ cand_rows[c]
        current_rank, current_o1 = rank, o1
    idx = np.array(chosen, dtype=int)
    return PoseSuggestion(index=idx, q=q_candidates[idx], rank=np.array(ranks, dtype=int), o1=np.array(o1s),
                          rank_before=rank0, o1_before=o10, rank_all=rank_all, n_parameters=candidates.size)


__all__ = ["PoseSuggestion", "observability_index", "observability_indices", "suggest_poses"]
