"""trec_eval-exact measure kernels over grade arrays.

Every kernel takes ``grades[run, topic, rank]`` (int32, from :meth:`evalkit.collection.Collection.grades`: judged
grades >= 0, the codes ``UNSAMPLED``, ``UNJUDGED`` and ``ABSENT`` (past the end of a run) of
:mod:`evalkit.collection`) and per-topic counts from the qrels, and returns a ``(runs, topics)`` float64 array. They are array operations over the rank axis (cumulative
sums), never loops over documents. Definitions follow trec_eval 9.0 (``m_map.c``, ``m_P.c``, ``m_Rprec.c``,
``m_ndcg.c``, ``m_ndcg_cut.c``, ``m_bpref.c``) with relevance level 1, and Moffat & Zobel (2008) for RBP.
"""

from __future__ import annotations

import numpy as np

from ..collection import ABSENT

__all__ = [
    "average_precision",
    "precision_at",
    "recall_at",
    "r_precision",
    "dcg",
    "ndcg",
    "bpref",
    "rbp",
    "discounts",
]


def _relevant(grades: np.ndarray, relevance_level: int) -> np.ndarray:
    return grades >= relevance_level


def _safe_divide(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """numerator / denominator, 0 where the denominator is 0 (trec_eval's convention for empty topics)."""
    denominator = np.asarray(denominator, np.float64)
    return np.divide(numerator, denominator, out=np.zeros(np.broadcast(numerator, denominator).shape), where=denominator > 0)


def average_precision(grades: np.ndarray, n_relevant: np.ndarray, relevance_level: int = 1, depth: int | None = None) -> np.ndarray:
    """AP (trec_eval ``map``; ``map_cut_k`` with ``depth``): mean over the R relevant documents of precision at
    each relevant document's rank, unretrieved relevant documents contributing 0.

    AP = (1/R) * sum_{i: rel_i} (#rel in 1..i) / i, with R the topic's number of judged relevant documents.
    """
    rel = _relevant(grades if depth is None else grades[..., :depth], relevance_level)
    ranks = np.arange(1, rel.shape[-1] + 1, dtype=np.float64)
    precision = np.cumsum(rel, axis=-1, dtype=np.float64) / ranks
    return _safe_divide((precision * rel).sum(axis=-1), n_relevant)


def precision_at(grades: np.ndarray, k: int, relevance_level: int = 1) -> np.ndarray:
    """P@k (trec_eval ``P_k``): relevant documents in the top k over k (k fixed even for shorter runs)."""
    return _relevant(grades[..., :k], relevance_level).sum(axis=-1) / float(k)


def recall_at(grades: np.ndarray, n_relevant: np.ndarray, k: int, relevance_level: int = 1) -> np.ndarray:
    """Recall@k (trec_eval ``recall_k``): relevant documents in the top k over R."""
    return _safe_divide(_relevant(grades[..., :k], relevance_level).sum(axis=-1).astype(np.float64), n_relevant)


def r_precision(grades: np.ndarray, n_relevant: np.ndarray, relevance_level: int = 1) -> np.ndarray:
    """R-precision (trec_eval ``Rprec``): precision at rank R, R the topic's number of relevant documents."""
    rel = _relevant(grades, relevance_level)
    cumulative = np.concatenate([np.zeros(rel.shape[:-1] + (1,), np.int64), np.cumsum(rel, axis=-1)], axis=-1)
    cut = np.minimum(np.asarray(n_relevant), rel.shape[-1])
    found = np.take_along_axis(cumulative, np.broadcast_to(cut[None, :, None], rel.shape[:-1] + (1,)), axis=-1)[..., 0]
    return _safe_divide(found.astype(np.float64), n_relevant)


def discounts(depth: int) -> np.ndarray:
    """1 / log2(rank + 1) for ranks 1..depth (trec_eval's NDCG discount)."""
    return 1.0 / np.log2(np.arange(2, depth + 2, dtype=np.float64))


def dcg(grades: np.ndarray, depth: int | None = None) -> np.ndarray:
    """DCG with the grade as gain (negative codes and non-relevant grades give 0) and 1/log2(rank+1) discount."""
    g = grades if depth is None else grades[..., :depth]
    gains = np.where(g > 0, g, 0).astype(np.float64)
    return gains @ discounts(g.shape[-1])


def ndcg(grades: np.ndarray, ideal_gains: np.ndarray, depth: int | None = None) -> np.ndarray:
    """NDCG (trec_eval ``ndcg``) or NDCG@k (``ndcg_cut_k``, with ``depth``).

    ``ideal_gains[topic, i]`` are the judged positive grades sorted descending (see
    :meth:`evalkit.collection.JudgedSet.ideal_gains`). Without a cut the ideal runs over all relevant documents;
    with one, both DCG and ideal DCG stop at ``depth``.
    """
    ideal = ideal_gains if depth is None else ideal_gains[:, :depth]
    ideal_dcg = ideal @ discounts(ideal.shape[-1])
    return _safe_divide(dcg(grades, depth), ideal_dcg)


def bpref(grades: np.ndarray, n_relevant: np.ndarray, n_judged_nonrelevant: np.ndarray, relevance_level: int = 1) -> np.ndarray:
    """bpref (Buckley & Voorhees 2004, trec_eval ``bpref``).

    For each retrieved relevant document r: 1 - min(#judged nonrelevant above r, R) / min(R, N), or 1 when none is
    above it; summed and divided by R. Unjudged documents are ignored; N counts judged nonrelevant documents.
    """
    rel = _relevant(grades, relevance_level)
    nonrel = (grades >= 0) & ~rel
    above = np.cumsum(nonrel, axis=-1) - nonrel
    R = np.asarray(n_relevant, np.float64)[None, :, None]
    N = np.asarray(n_judged_nonrelevant, np.float64)[None, :, None]
    denominator = np.minimum(R, N)
    penalty = np.divide(np.minimum(above, R), denominator, out=np.zeros(above.shape), where=denominator > 0)
    contribution = np.where(above > 0, 1.0 - penalty, 1.0)
    return _safe_divide((contribution * rel).sum(axis=-1), n_relevant)


def rbp(grades: np.ndarray, p: float, depth: int | None = None, relevance_level: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Rank-biased precision and its residual (Moffat & Zobel 2008, Eq. for RBP and Sec. 5 residual).

    RBP = (1 - p) * sum_{i=1}^{n} r_i p^(i-1), binary r_i (grade >= relevance_level), n = min(run length, depth).
    Residual = (1 - p) * sum_{i <= n, unjudged} p^(i-1) + p^n: the most RBP could still grow if every unjudged
    document and everything past the end of the ranking (or the cut-off) were relevant.
    Returns ``(rbp, residual)``.
    """
    g = grades if depth is None else grades[..., :depth]
    weights = (1.0 - p) * p ** np.arange(g.shape[-1], dtype=np.float64)
    score = _relevant(g, relevance_level).astype(np.float64) @ weights
    unjudged = ((g < 0) & (g != ABSENT)).astype(np.float64) @ weights
    length = (g != ABSENT).sum(axis=-1)
    return score, unjudged + p ** length
