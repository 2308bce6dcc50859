"""What a stack of measurements can and cannot tell about the table: SVD and QR with pivoting.

The weighted, column-scaled Jacobian ``A`` (one row per measured coordinate
divided by its standard deviation, one column per parameter multiplied by
its scale) of a least-squares fit decides what is identifiable. Nuisance
parameters that must be identified (the tracker frame, the time law's
parameters: the *forced* columns) are projected out first; of the table
parameters, QR with column pivoting of the projected columns picks a set of
``r`` base parameters (``r`` the numerical rank) and expresses every other
one through them::

    A_B x_B + A_N x_N = A_B (x_B + beta x_N)

so what the data determine is each combination ``x_B + beta x_N`` (the
regrouping of dynamic identification's base parameters), and the
parameters ``x_N`` are not identifiable from these poses. Pure numpy/scipy.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg

from thermocomp._typing import FloatArray

#: Terms of a combination with a coefficient below this (in the scaled units
#: of the fit, where one unit moves the TCP by about a millimetre) are
#: round-off of the QR factorisation, not a dependence between parameters.
COMBINATION_TERM_TOL = 1e-6


@dataclass(frozen=True)
class Combination:
    """One identifiable combination: ``x[base] + sum(coefficient * x[other])``.

    Attributes
    ----------
    base
        Index of the base parameter (into the fit's parameter list).
    terms
        ``(index, coefficient)`` of every other parameter it carries, in
        physical units (m per m, m per rad, ...).
    std
        Its standard deviation from the stated measurement uncertainty [SI].
    """

    base: int
    terms: tuple[tuple[int, float], ...]
    std: float


@dataclass(frozen=True, eq=False)
class Identifiability:
    """The identifiability of the candidate parameters at one estimate.

    Attributes
    ----------
    candidates
        Indices of the table parameters that were candidates, ``(c,)``.
    forced
        Indices of the nuisance parameters projected out first, ``(f,)``.
    forced_rank_ok
        Whether the forced parameters are identifiable themselves.
    forced_weak
        Index of the forced parameter most involved in their weakest
        direction (for the message when ``forced_rank_ok`` is False), or -1.
    singular_values
        Of the projected, scaled candidate columns, descending, ``(c,)``.
    rank
        Numerical rank ``r`` (singular values above ``rcond`` times the largest).
    condition
        ``s_1 / s_r``: the condition number of the identified part.
    base, other
        Candidate indices picked by QR with pivoting (``r``) and the rest.
    combinations
        One per base parameter.
    null_share
        Per candidate ``(c,)``: the length of the parameter's unit vector in the
        null space (0: identifiable alone; 1: invisible).
    V_identifiable
        Orthonormal basis of the identifiable subspace in the *scaled*
        candidate parameters, ``(c, r)``.
    scale
        The scale of each candidate ``(c,)`` (scaled = physical / scale).
    """

    candidates: np.ndarray
    forced: np.ndarray
    forced_rank_ok: bool
    forced_weak: int
    singular_values: FloatArray
    rank: int
    condition: float
    base: np.ndarray
    other: np.ndarray
    combinations: tuple[Combination, ...]
    null_share: FloatArray
    V_identifiable: FloatArray
    scale: FloatArray


def _orthonormal(A: FloatArray, rcond: float) -> tuple[FloatArray, bool, int]:
    """Orthonormal basis of the column space of ``A``, whether its columns are independent, and the weakest one."""
    if A.shape[1] == 0:
        return np.zeros((A.shape[0], 0)), True, -1
    U, s, Vt = np.linalg.svd(A, full_matrices=False)
    ok = bool(s[-1] > rcond * s[0]) if s[0] > 0 else False
    weak = int(np.argmax(np.abs(Vt[-1]))) if not ok else -1
    keep = s > rcond * s[0] if s[0] > 0 else np.zeros(s.size, dtype=bool)
    return U[:, keep], ok, weak


def analyse(A: FloatArray, candidates: np.ndarray, forced: np.ndarray, scale: FloatArray,
            rcond: float, base: np.ndarray | None = None) -> Identifiability:
    """Identifiability of ``candidates`` with the ``forced`` columns projected out.

    Parameters
    ----------
    A
        Weighted, column-scaled Jacobian, ``(N, Z)``: dimensionless.
    candidates, forced
        Column indices (disjoint). Ties of QR with pivoting go to the
        candidate listed first.
    scale
        Physical size of one scaled unit of every column, ``(Z,)``.
    rcond
        Relative singular-value threshold of the numerical rank.
    base
        Base parameters to keep (a subset of ``candidates``, e.g. those an
        earlier analysis picked), instead of QR with pivoting's choice.
    """
    candidates = np.asarray(candidates, dtype=int)
    forced = np.asarray(forced, dtype=int)
    Q, forced_ok, weak = _orthonormal(A[:, forced], rcond)
    C = A[:, candidates]
    C = C - Q @ (Q.T @ C)
    c = candidates.size
    if c == 0:
        return Identifiability(candidates, forced, forced_ok, -1 if weak < 0 else int(forced[weak]),
                               np.zeros(0), 0, 1.0, candidates, candidates, (), np.zeros(0), np.zeros((0, 0)),
                               scale[candidates])
    # (the thin SVD: the full one made U of (N, N), 1.8 GB for 5,000 measurements and past any memory for 20,000,
    # where only s and the rows of Vt within the rank are read)
    _, s, Vt = np.linalg.svd(C, full_matrices=False)
    s_full = np.zeros(c)
    s_full[:s.size] = s
    rank = int(np.sum(s_full > rcond * s_full[0])) if s_full[0] > 0 else 0
    condition = float(s_full[0] / s_full[rank - 1]) if rank else float("inf")
    V_id = Vt[:rank].T
    null_share = np.sqrt(np.clip(1.0 - np.sum(V_id**2, axis=1), 0.0, 1.0))
    if base is None:
        _, R, piv = scipy.linalg.qr(C, mode="economic", pivoting=True)
    else:
        chosen = np.isin(candidates, base)
        piv = np.r_[np.flatnonzero(chosen), np.flatnonzero(~chosen)]
        _, R = scipy.linalg.qr(C[:, piv], mode="economic")
        rank = int(chosen.sum())
    base_local, other_local = piv[:rank], piv[rank:]
    combos: list[Combination] = []
    if rank:
        R11 = R[:rank, :rank]
        beta = scipy.linalg.solve_triangular(R11, R[:rank, rank:]) if other_local.size else np.zeros((rank, 0))
        R11_inv = scipy.linalg.solve_triangular(R11, np.eye(rank))
        std_scaled = np.sqrt(np.sum(R11_inv**2, axis=1))  # sqrt(diag((R11^T R11)^-1))
        sc = scale[candidates]
        for j, b in enumerate(base_local):
            terms = tuple((int(candidates[o]), float(beta[j, k] * sc[b] / sc[o]))
                          for k, o in enumerate(other_local) if abs(beta[j, k]) > COMBINATION_TERM_TOL)
            combos.append(Combination(int(candidates[b]), terms, float(std_scaled[j] * sc[b])))
    return Identifiability(
        candidates=candidates, forced=forced, forced_rank_ok=forced_ok,
        forced_weak=-1 if weak < 0 else int(forced[weak]),
        singular_values=s_full, rank=rank, condition=condition,
        base=candidates[np.sort(base_local)], other=candidates[np.sort(other_local)],
        combinations=tuple(sorted(combos, key=lambda cmb: cmb.base)), null_share=null_share,
        V_identifiable=V_id, scale=scale[candidates],
    )


def combination_matrix(ident: Identifiability, n_parameters: int) -> FloatArray:
    """The combinations as rows of a matrix ``(r, n_parameters)``: ``C @ x`` are their values (physical)."""
    C = np.zeros((len(ident.combinations), n_parameters))
    for i, combo in enumerate(ident.combinations):
        C[i, combo.base] = 1.0
        for index, coefficient in combo.terms:
            C[i, index] = coefficient
    return C


__all__ = ["COMBINATION_TERM_TOL", "Combination", "Identifiability", "analyse", "combination_matrix"]
