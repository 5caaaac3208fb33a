"""trec_eval-exact measure kernels over grade arrays.

Every kernel takes ``grades[..., topic, rank]`` (usually ``(runs, topics, ranks)``, int32, from
:meth:`evalkit.data.collection.Collection.grades`: judged grades >= 0, and the negative codes ``UNSAMPLED``, ``UNJUDGED``
and ``ABSENT`` of :mod:`evalkit.data.collection` for pooled-but-unjudged, not-in-the-qrels and past-the-end ranks) and
per-topic counts from the qrels, and returns a ``(runs, topics)`` float64 array. Definitions follow trec_eval 9.0
(``m_map.c``, ``m_map_cut.c``, ``m_P.c``, ``m_Rprec.c``, ``m_ndcg.c``, ``m_ndcg_cut.c``, ``m_bpref.c``) with
relevance level 1, and Moffat & Zobel (2008) for RBP.

How they run (arrays, not loops, and few bytes per cell): a kernel finds the few ranks that matter (the relevant
documents, the judged nonrelevant ones) with one comparison and ``np.flatnonzero`` over the grades, then works on
those positions only: each ranking's running count of relevant documents is the hit's ordinal within its row, and
the per-ranking sums are ``np.bincount(row, weights)``, which adds each ranking's terms one after the other in rank
order, the same additions in the same order as trec_eval's loops (AP, nDCG and bpref come out bit for bit as
trec_eval computes them in double precision). Temporaries: one bool per cell and 24 bytes per hit (bpref: 4
bytes a cell more for a running count).
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

__all__ = [
    "average_precision",
    "precision_at",
    "recall_at",
    "r_precision",
    "dcg",
    "ndcg",
    "bpref",
    "rbp",
    "graded_rbp",
    "discounts",
]


# ------------------------------------------------------------------------------------------ building blocks


def _relevant(grades: np.ndarray, relevance_level: int) -> np.ndarray:
    return grades >= relevance_level


def _safe_divide(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """numerator / denominator, 0 where the denominator is 0 (trec_eval's convention for empty topics)."""
    denominator = np.asarray(denominator, np.float64)
    return np.divide(numerator, denominator, out=np.zeros(np.broadcast(numerator, denominator).shape), where=denominator > 0)


def _hits(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Positions of the True cells of ``mask[..., rank]``: (flat index, row, rank) int64 arrays, rows numbered
    over the leading axes in C order, hits in (row, rank) order."""
    flat = np.flatnonzero(mask)
    row = flat // max(mask.shape[-1], 1)
    return flat, row, flat - row * mask.shape[-1]


def _row_sums(row: np.ndarray, weights: np.ndarray | None, lead: tuple[int, ...]) -> np.ndarray:
    """Per-row sums of ``weights`` (counts without weights), shaped ``lead``; each row's terms added in order."""
    n_rows = int(np.prod(lead, dtype=np.int64))
    return np.bincount(row, weights, minlength=n_rows).astype(np.float64, copy=False).reshape(lead)


def _ordinals(row: np.ndarray, n_rows: int) -> np.ndarray:
    """1-based ordinal of each hit within its row (``row`` sorted): the running count of hits at that rank."""
    counts = np.bincount(row, minlength=n_rows)
    starts = np.cumsum(counts) - counts
    return np.arange(1, len(row) + 1, dtype=np.int64) - starts[row]


def _per_row(values, lead: tuple[int, ...]) -> np.ndarray:
    """A per-topic (or scalar) quantity broadcast to one value per row (``lead`` = grades.shape[:-1]), flat."""
    return np.broadcast_to(np.asarray(values), lead).reshape(-1)


@lru_cache(maxsize=16)
def _log2_ranks(depth: int) -> np.ndarray:
    """log2(rank + 1) for ranks 1..depth: trec_eval divides each gain by it. From the C library's log2 (Python's
    math.log2), as trec_eval's, not numpy's vectorized one, which may differ in the last bit on some CPUs."""
    table = np.fromiter((math.log2(rank + 1) for rank in range(1, depth + 1)), np.float64, count=depth)
    table.flags.writeable = False
    return table


# ------------------------------------------------------------------------------------------------ kernels


def average_precision(grades: np.ndarray, n_relevant: np.ndarray, relevance_level: int = 1, depth: int | None = None) -> np.ndarray:
    """AP (trec_eval ``map``; ``map_cut_k`` with ``depth``): mean over the R relevant documents of precision at
    each relevant document's rank, unretrieved relevant documents contributing 0.

    AP = (1/R) * sum_{i: rel_i} (#rel in 1..i) / i, with R the topic's number of judged relevant documents
    (Buckley & Voorhees 2000; trec_eval ``m_map.c``: the terms added in rank order, then divided by R).
    """
    g = grades if depth is None else grades[..., :depth]
    lead = g.shape[:-1]
    _, row, rank = _hits(_relevant(g, relevance_level))
    precision = _ordinals(row, int(np.prod(lead, dtype=np.int64))) / (rank + 1).astype(np.float64)
    return _safe_divide(_row_sums(row, precision, lead), n_relevant)


def precision_at(grades: np.ndarray, k: int, relevance_level: int = 1) -> np.ndarray:
    """P@k (trec_eval ``P_k``): relevant documents in the top k over k (k fixed even for shorter runs)."""
    return _relevant(grades[..., :k], relevance_level).sum(axis=-1) / float(k)


def recall_at(grades: np.ndarray, n_relevant: np.ndarray, k: int, relevance_level: int = 1) -> np.ndarray:
    """Recall@k (trec_eval ``recall_k``): relevant documents in the top k over R."""
    return _safe_divide(_relevant(grades[..., :k], relevance_level).sum(axis=-1).astype(np.float64), n_relevant)


def r_precision(grades: np.ndarray, n_relevant: np.ndarray, relevance_level: int = 1) -> np.ndarray:
    """R-precision (trec_eval ``Rprec``): precision at rank R, R the topic's number of relevant documents
    (Buckley & Voorhees 2005): relevant documents among the first min(R, run length) over R."""
    lead = grades.shape[:-1]
    _, row, rank = _hits(_relevant(grades, relevance_level))
    inside = rank < _per_row(n_relevant, lead)[row]
    return _safe_divide(_row_sums(row[inside], None, lead), n_relevant)


def discounts(depth: int) -> np.ndarray:
    """1 / log2(rank + 1) for ranks 1..depth (trec_eval's NDCG discount)."""
    return 1.0 / np.log2(np.arange(2, depth + 2, dtype=np.float64))


def dcg(grades: np.ndarray, depth: int | None = None) -> np.ndarray:
    """DCG with the grade as gain (negative codes and non-relevant grades give 0): sum over ranks i of
    gain_i / log2(i + 1) (Jarvelin & Kekalainen 2002; trec_eval ``m_ndcg_cut.c``, terms added in rank order)."""
    g = grades if depth is None else grades[..., :depth]
    lead = g.shape[:-1]
    flat, row, rank = _hits(g > 0)
    gains = np.ascontiguousarray(g).reshape(-1)[flat].astype(np.float64)
    return _row_sums(row, gains / _log2_ranks(max(g.shape[-1], 1))[rank], lead)


def ideal_dcg(ideal_gains: np.ndarray, depth: int | None = None) -> np.ndarray:
    """Per topic, the DCG of the ideal ranking (``ideal_gains[topic, i]`` sorted descending, 0-padded) down to
    ``depth`` (all of it without one), summed in rank order as trec_eval does."""
    ideal = ideal_gains if depth is None else ideal_gains[..., :depth]
    if ideal.shape[-1] == 0:
        return np.zeros(ideal.shape[:-1])
    return np.cumsum(ideal / _log2_ranks(ideal.shape[-1]), axis=-1)[..., -1]


def ndcg(grades: np.ndarray, ideal_gains: np.ndarray, depth: int | None = None) -> np.ndarray:
    """NDCG (trec_eval ``ndcg``) or NDCG@k (``ndcg_cut_k``, with ``depth``): DCG over the ideal DCG.

    ``ideal_gains[topic, i]`` are the judged positive grades sorted descending (see
    :meth:`evalkit.data.collection.JudgedSet.ideal_gains`). Without a cut the ideal runs over all relevant documents;
    with one, both DCG and ideal DCG stop at ``depth``.
    """
    return _safe_divide(dcg(grades, depth), ideal_dcg(ideal_gains, depth))


def bpref(grades: np.ndarray, n_relevant: np.ndarray, n_judged_nonrelevant: np.ndarray, relevance_level: int = 1) -> np.ndarray:
    """bpref (Buckley & Voorhees 2004, trec_eval ``bpref``).

    For each retrieved relevant document r: 1 - min(#judged nonrelevant above r, R) / min(R, N), or 1 when none is
    above it; summed in rank order and divided by R. Unjudged documents are ignored; N counts judged nonrelevant
    documents. The judged nonrelevant documents above each relevant one come from one running count over the
    flattened cells (4 bytes a cell), less the count where its ranking starts.
    """
    lead = grades.shape[:-1]
    width = max(grades.shape[-1], 1)
    flat, row, _ = _hits(_relevant(grades, relevance_level))
    nonrelevant = ((grades >= 0) & (grades < relevance_level)).reshape(-1)
    running = np.cumsum(nonrelevant, dtype=np.int32 if nonrelevant.size < (1 << 31) else np.int64)
    del nonrelevant
    row_start = row * width
    before_row = np.where(row_start > 0, running[np.maximum(row_start - 1, 0)], 0)
    above = (running[flat] - before_row).astype(np.float64)  # a relevant cell is not counted in its own running count
    del running
    R = _per_row(n_relevant, lead).astype(np.float64)[row]
    N = _per_row(n_judged_nonrelevant, lead).astype(np.float64)[row]
    denominator = np.minimum(R, N)
    penalty = np.divide(np.minimum(above, R), denominator, out=np.zeros(len(row)), where=denominator > 0)
    contribution = np.where(above > 0, 1.0 - penalty, 1.0)
    return _safe_divide(_row_sums(row, contribution, lead), n_relevant)


def rbp(grades: np.ndarray, p: float, depth: int | None = None, relevance_level: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Rank-biased precision and its residual (Moffat & Zobel 2008, Eq. for RBP and Sec. 5 residual).

    RBP = (1 - p) * sum_{i=1}^{n} r_i p^(i-1), binary r_i (grade >= relevance_level), n = min(run length, depth).
    Residual = (1 - p) * sum_{i <= n, unjudged} p^(i-1) + p^n: the most RBP could still grow if every unjudged
    document and everything past the end of the ranking (or the cut-off) were relevant. Since the weights of ranks
    1..n sum to 1 - p^n, the residual is 1 - (1 - p) * sum_{i <= n, judged} p^(i-1), computed so from the judged
    ranks (a ranking ends at its first absent rank).
    Returns ``(rbp, residual)``.
    """
    g = grades if depth is None else grades[..., :depth]
    lead = g.shape[:-1]
    weights = (1.0 - p) * p ** np.arange(max(g.shape[-1], 1), dtype=np.float64)
    _, row, rank = _hits(_relevant(g, relevance_level))
    score = _row_sums(row, weights[rank], lead)
    _, row, rank = _hits(g >= 0)
    residual = 1.0 - _row_sums(row, weights[rank], lead)
    return score, residual


def graded_rbp(grades: np.ndarray, p: float, top_grade: np.ndarray, depth: int | None = None) -> np.ndarray:
    """Rank-biased precision with graded gains, as trec_eval 10.0's ``rbp`` computes it (m_rbp.c; Moffat & Zobel
    2008's RBP with a gain in [0, 1] per document): (1 - p) * sum_{i=1}^{n} g_i p^(i-1), g_i the document's grade;
    on a topic whose highest judged grade ``top_grade`` (shape (topics,)) exceeds 1, the gains are rescaled to
    g / top_grade (m_rbp.c rescales the topic's gain levels 0..top to [0, 1]). Documents unjudged, absent or judged
    with a negative grade gain 0 (only rel >= 0 is judged in m_rbp.c). On binary qrels this equals :func:`rbp`."""
    g = grades if depth is None else grades[..., :depth]
    lead = g.shape[:-1]
    weights = (1.0 - p) * p ** np.arange(max(g.shape[-1], 1), dtype=np.float64)
    scale = np.where(np.asarray(top_grade, np.float64) > 1, np.asarray(top_grade, np.float64), 1.0)
    gain = np.where(g > 0, g / scale[:, None], 0.0)
    flat, row, rank = _hits(gain != 0)
    return _row_sums(row, gain.reshape(-1)[flat] * weights[rank], lead)
