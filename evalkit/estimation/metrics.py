"""Weighted-precision metrics on grades arrays, with residuals (Lu, Moffat and Culpepper 2017, Sec. 3).

Everything here works on the ``(S, T, D)`` int32 grades arrays of :meth:`evalkit.data.collection.Collection.grades`
(judged grades >= 0; the codes ``UNSAMPLED``, ``UNJUDGED``, ``ABSENT`` of :mod:`evalkit.data.collection`) and is vectorized over runs x topics.
It is self-contained on purpose: :mod:`evalkit.measures` holds the trec_eval-exact measures; the kernels here are
the paper's *weighted-precision* view, in which the unjudged documents and the ranks past the evaluation depth
are reported separately as a residual.

Equations (rebuilt from the PDF text, where they are broken across lines)
-------------------------------------------------------------------------
Eq. 1, a weighted-precision metric M evaluated to depth k over the judged set J::

    M_i = M@k(S_i, J) = sum_{j=1..k, s_{j,i} in J} r_{j,i} * W_M(j),      with  sum_{j>=1} W_M(j) = 1

Eq. 2, its residual: the most the score could still grow (every unknown gain at its maximum r_max)::

    eps_i = sum_{j=1..k, s_{j,i} not in J} r_max * W_M(j)   +   sum_{j>k} r_max * W_M(j)
            \\______ unjudged residual ______/                \\__ tail residual __/

For RBP(p), ``W(j) = (1 - p) p^(j-1)`` and the tail residual is ``p^k``. For SDCG@k (scaled DCG, Moffat and Zobel
2008), ``W(j) = 1 / (log2(j + 1) * sum_{i=1..k} 1/log2(i + 1))`` for ``j <= k`` and 0 beyond, so its tail
residual is 0. Gains are ``r = min(grade, max_grade) / max_grade`` (so ``r_max = 1``); with binary qrels and
``max_grade=1`` every relevant document has gain 1.

A rank past the end of a short run (``ABSENT``) holds no document. By default (``short_runs="tail"``) it belongs
to the tail residual: the tail starts where the ranking stops, as in Moffat's ``rbp_eval`` and
:func:`evalkit.measures.rbp` (for RBP the residual is then ``unjudged + p^min(length, k)``).
``short_runs="closed"`` gives those ranks no weight at all (the ranking is over; nothing can change the score).

Truncated AP@l in Sakai's (2014) sense, used as the AP reference at depth d::

    AP@l = (1 / min(l, R)) * sum_{r=1..l} rel(r) * |{relevant in top r}| / r

with R the number of relevant documents known for the topic (0 when R = 0). Unjudged documents count as not
relevant. With l >= R this is trec_eval's AP (binary relevance).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = [
    "rbp_weights",
    "sdcg_weights",
    "metric_weights",
    "gains",
    "judged_mask",
    "WeightedPrecision",
    "SHORT_RUNS",
    "weighted_precision",
    "rbp",
    "sdcg",
    "ap_at_k",
]

from evalkit.data.collection import ABSENT  # noqa: E402  (the kit's code: below every grade a qrels file can hold)


def rbp_weights(p: float, depth: int) -> np.ndarray:
    """RBP's rank weights ``W(j) = (1 - p) p^(j - 1)`` for j = 1..depth (their tail beyond depth sums to p^depth)."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"RBP persistence p must be in (0, 1); got {p}")
    _check_depth(depth)
    return (1.0 - p) * p ** np.arange(depth, dtype=np.float64)


def sdcg_weights(depth: int) -> np.ndarray:
    """Scaled DCG@depth weights ``W(j) = 1 / (log2(j + 1) * sum_{i<=depth} 1/log2(i + 1))``; they sum to 1."""
    _check_depth(depth)
    discount = 1.0 / np.log2(np.arange(2, depth + 2, dtype=np.float64))
    return discount / discount.sum()


def metric_weights(metric: str, depth: int, p: float = 0.95) -> tuple[np.ndarray, float]:
    """``(W(1..depth), tail)`` for ``metric`` in {"rbp", "sdcg"}; tail = the weight beyond depth."""
    name = metric.lower()
    if name == "rbp":
        return rbp_weights(p, depth), float(p**depth)
    if name == "sdcg":
        return sdcg_weights(depth), 0.0
    raise ValueError(f"unknown weighted-precision metric {metric!r}; choose 'rbp' or 'sdcg'")


def _check_depth(depth) -> None:
    if int(depth) != depth or depth < 1:
        raise ValueError(f"depth must be a positive integer; got {depth}")


def judged_mask(grades: np.ndarray) -> np.ndarray:
    """Where a judgment is known (grade >= 0)."""
    return np.asarray(grades) >= 0


def gains(grades: np.ndarray, max_grade: int = 1) -> np.ndarray:
    """Gain of each judged document, ``min(grade, max_grade) / max_grade`` in [0, 1]; 0 where not judged."""
    if max_grade < 1:
        raise ValueError(f"max_grade must be >= 1; got {max_grade}")
    g = np.asarray(grades)
    return np.clip(g, 0, max_grade).astype(np.float64) / float(max_grade)


@dataclass(frozen=True)
class WeightedPrecision:
    """Score, unjudged residual and tail residual of Eqs. 1-2, each (S, T) (or whatever leading shape)."""

    score: np.ndarray
    unjudged_residual: np.ndarray
    tail_residual: np.ndarray

    @property
    def residual(self) -> np.ndarray:
        """The whole residual of Eq. 2: unjudged + tail."""
        return self.unjudged_residual + self.tail_residual

    @property
    def upper(self) -> np.ndarray:
        """``score + residual``: the largest score any completion of the judgments could give."""
        return self.score + self.residual


SHORT_RUNS = ("tail", "closed")


def weighted_precision(
    grades: np.ndarray,
    weights: np.ndarray,
    tail: float = 0.0,
    max_grade: int = 1,
    short_runs: str = "tail",
) -> WeightedPrecision:
    """Eqs. 1-2 for any weight vector: ``grades[..., :len(weights)]`` scored with ``W(j) = weights[j-1]``.

    ``tail`` is the metric's weight beyond ``len(weights)`` (``p^k`` for RBP, 0 for SDCG@k). The tail residual is
    ``tail`` plus, with ``short_runs="tail"``, the weight of the ranks past the end of a short ranking
    (``"closed"``: those ranks weigh nothing). Rankings narrower than the weights are padded as ``ABSENT``.
    """
    if short_runs not in SHORT_RUNS:
        raise ValueError(f"short_runs must be one of {SHORT_RUNS}; got {short_runs!r}")
    g = np.asarray(grades)
    w = np.asarray(weights, dtype=np.float64)
    k = len(w)
    if g.shape[-1] < k:
        pad = np.full(g.shape[:-1] + (k - g.shape[-1],), ABSENT, dtype=np.promote_types(g.dtype, np.int32))
        g = np.concatenate([g, pad], axis=-1)
    g = g[..., :k]
    score = gains(g, max_grade) @ w
    unjudged = ((g < 0) & (g != ABSENT)).astype(np.float64) @ w
    tail_residual = np.full(score.shape, float(tail))
    if short_runs == "tail":
        tail_residual = tail_residual + (g == ABSENT).astype(np.float64) @ w
    return WeightedPrecision(score=score, unjudged_residual=unjudged, tail_residual=tail_residual)


def rbp(grades: np.ndarray, p: float = 0.95, depth: int | None = None, max_grade: int = 1,
        short_runs: str = "tail") -> WeightedPrecision:
    """RBP(p)@depth with its unjudged and tail (``p^depth``) residuals (Moffat and Zobel 2008; Eqs. 1-2).

    ``depth`` defaults to the width of ``grades``.
    """
    depth = np.asarray(grades).shape[-1] if depth is None else depth
    w, tail = metric_weights("rbp", depth, p)
    return weighted_precision(grades, w, tail, max_grade, short_runs)


def sdcg(grades: np.ndarray, depth: int, max_grade: int = 1, short_runs: str = "tail") -> WeightedPrecision:
    """Scaled DCG@depth (weights sum to 1 over ranks 1..depth, tail residual 0) with its unjudged residual."""
    w, tail = metric_weights("sdcg", depth)
    return weighted_precision(grades, w, tail, max_grade, short_runs)


def ap_at_k(grades: np.ndarray, depth: int, n_relevant: np.ndarray, relevance_level: int = 1) -> np.ndarray:
    """Truncated AP@depth as Sakai (2014) defines it (see the module docstring); shape ``grades.shape[:-1]``.

    ``n_relevant`` is R per topic, broadcast against ``grades.shape[:-1]`` (e.g. a (T,) array for (S, T, D) grades,
    from ``collection.qrels.counts()``). Unjudged documents are not relevant.
    """
    _check_depth(depth)
    g = np.asarray(grades)[..., :depth]
    rel = (g >= relevance_level).astype(np.float64)
    ranks = np.arange(1, g.shape[-1] + 1, dtype=np.float64)
    precision_sum = (rel * np.cumsum(rel, axis=-1) / ranks).sum(axis=-1)
    denominator = np.minimum(float(depth), np.asarray(n_relevant, dtype=np.float64))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(denominator > 0, precision_sum / np.where(denominator > 0, denominator, 1.0), 0.0)
