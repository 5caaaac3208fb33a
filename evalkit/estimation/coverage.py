"""The adjust-or-not rule of Lu et al. (2017, Sec. 4): Chao and Lee's (1992) coefficient of variation.

Pooling is read as sampling relevant documents with replacement: a relevant document that n of the contributing
runs place in their top d' was "sampled" n times. With, for one topic and the depth-d' system matrix,

    f_i = number of relevant documents that occur exactly i times,
    R   = sum_i f_i            (distinct relevant documents),
    C   = sum_i i * f_i        (occurrences of relevant documents),

Eq. 10 (Chao and Lee's gamma-hat, rebuilt from the broken PDF lines) is::

    gamma^2 = max{ (R / (1 - f_1 / C)) * sum_i i (i - 1) f_i / (C (C - 1))  -  1 ,  0 }

where ``1 - f_1/C`` is Chao and Lee's estimate of the sample coverage. The paper uses gamma "normalized by the
number of systems"; as in the authors' scripts (``naive_estimator.py`` of xiaolul/opt_est) that is
``gamma = sqrt(gamma^2) / n``. Degenerate topics get gamma = 0 (no adjustment): no relevant document, or a zero
coverage estimate (every relevant document seen once, which includes C = 1) -- there the sum is 0, so Eq. 10's
first term is 0 * (R / 0), which the authors' scripts also read as 0.

A topic is adjusted only where ``gamma > theta`` (default theta = 0.018, set by the authors on TREC-5/7/8).
"""

from __future__ import annotations

import numpy as np

from evalkit.data.collection import Collection, JudgedSet
from evalkit.estimation.pools import contributing_runs, run_mask

__all__ = ["DEFAULT_THETA", "chao_lee_gamma", "pool_gamma", "relevant_multiplicities"]

DEFAULT_THETA = 0.018


def chao_lee_gamma(multiplicities, n_runs: int | None = None) -> float:
    """Eq. 10 for one topic from the multiplicity (1, 2, ...) of each relevant document; divided by ``n_runs``
    when given (the paper's normalization)."""
    m = np.asarray(multiplicities, dtype=np.float64)
    m = m[m > 0]
    gamma = float(_gamma_from_sums(np.array([len(m)]), np.array([m.sum()]), np.array([(m == 1).sum()]),
                                   np.array([(m * (m - 1)).sum()]))[0])
    return gamma / n_runs if n_runs else gamma


def _gamma_from_sums(R, C, f1, pairs) -> np.ndarray:
    R, C, f1, pairs = (np.asarray(x, dtype=np.float64) for x in (R, C, f1, pairs))
    coverage = np.where(C > 0, 1.0 - f1 / np.where(C > 0, C, 1.0), 0.0)
    ok = (coverage > 0) & (C > 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        squared = np.where(ok, (R / np.where(ok, coverage, 1.0)) * pairs / np.where(ok, C * (C - 1), 1.0) - 1.0, 0.0)
    return np.sqrt(np.maximum(squared, 0.0))


def relevant_multiplicities(collection: Collection, qrels: JudgedSet, depth: int, runs=None,
                            relevance_level: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """``(topic, multiplicity)`` of each relevant document in the top ``depth`` of ``runs`` under ``qrels``."""
    mask = run_mask(collection, runs) if runs is not None else contributing_runs(collection)
    docs = collection.docs[mask][:, :, :depth]
    topic = np.broadcast_to(np.arange(collection.n_topics, dtype=np.int32)[None, :, None], docs.shape)
    grade = qrels.lookup(topic, docs)
    relevant = grade >= relevance_level
    keys = topic[relevant].astype(np.int64) * qrels.n_docs + docs[relevant]
    unique, counts = np.unique(keys, return_counts=True)
    return (unique // qrels.n_docs).astype(np.int64), counts


def pool_gamma(collection: Collection, qrels: JudgedSet, depth: int, runs=None, normalize: bool = True,
               relevance_level: int = 1) -> np.ndarray:
    """(T,) gamma of Eq. 10 per topic from the depth-``depth`` system matrix of ``runs`` (default: the contributing
    runs) judged by ``qrels``; divided by the number of runs when ``normalize``."""
    mask = run_mask(collection, runs) if runs is not None else contributing_runs(collection)
    topic, m = relevant_multiplicities(collection, qrels, depth, mask, relevance_level)
    T = collection.n_topics
    R = np.bincount(topic, minlength=T)
    C = np.bincount(topic, weights=m, minlength=T)
    f1 = np.bincount(topic, weights=(m == 1), minlength=T)
    pairs = np.bincount(topic, weights=m * (m - 1.0), minlength=T)
    gamma = _gamma_from_sums(R, C, f1, pairs)
    return gamma / mask.sum() if normalize else gamma
