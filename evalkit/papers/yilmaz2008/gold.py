"""Yilmaz, Kanoulas & Aslam 2008, the truth and the judgment samples (see :mod:`evalkit.papers.yilmaz2008`): the
pool the estimates are scored against (:func:`prepare`, :class:`Gold`), the sampling designs of the paper (uniform
random, depth-k + random for xinfAP, depth-k + strata for infNDCG: Sec. 3-4), and the agreement of estimates with
the truth (Kendall's tau, RMS error, bias). Pure and seeded; :mod:`.experiment` runs the figures' trials on them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
import pandas as pd

from evalkit.data.collection import GRADE_DTYPE, Collection, JudgedSet
from evalkit.data.pools import pool
from evalkit.judging.stratified_sampling import (
    depth_plus_random,
    depth_plus_strata,
    uniform_sample,
)
from evalkit.measures import kernels
from evalkit.measures.evaluation import score_matrix
from evalkit.measures.judged_positions import JudgedPositions, judged_positions
from evalkit.stats import kendall_tau_rows


@dataclass(frozen=True)
class Gold:
    """The truth every experiment compares with, computed once by :func:`prepare`.

    ``qrels``: the depth-``depth`` pool of the judged runs graded by the collection's qrels (one stratum, every
    line judged): the complete judgment set of the paper. ``ap`` / ``ndcg`` (S, T): AP and nDCG under it;
    ``scored`` (S, T): the topics that enter each run's mean (trec_eval's rule: the run retrieved something and
    the topic has pooled documents); ``map`` / ``mean_ndcg`` (S,) the means; ``judged`` (S,) runs that built the
    pool; ``pool_size`` (T,) pooled documents per topic.
    """

    collection: Collection = field(repr=False)
    qrels: JudgedSet = field(repr=False)
    depth: int
    ndcg_cutoff: int | None
    ap: np.ndarray = field(repr=False)
    ndcg: np.ndarray = field(repr=False)
    scored: np.ndarray = field(repr=False)
    map: np.ndarray = field(repr=False)
    mean_ndcg: np.ndarray = field(repr=False)
    judged: np.ndarray = field(repr=False)
    pool_size: np.ndarray = field(repr=False)
    pool_line: np.ndarray = field(repr=False)  # (S, T, D') line of ``qrels`` of each ranked document, or len(qrels)

    @property
    def n_pooled(self) -> int:
        return int(self.pool_size.sum())

    @property
    def ndcg_name(self) -> str:
        return "nDCG" if self.ndcg_cutoff is None else f"nDCG@{self.ndcg_cutoff}"

    @property
    def infndcg_name(self) -> str:
        return "infNDCG" if self.ndcg_cutoff is None else f"infNDCG@{self.ndcg_cutoff}"

    def runs_frame(self) -> pd.DataFrame:
        """One row per run: judged flag, MAP and mean nDCG under the complete judgments."""
        c = self.collection
        return pd.DataFrame({"run": c.run_names, "judged": self.judged, "MAP": self.map,
                             f"mean {self.ndcg_name}": self.mean_ndcg}).set_index("run")


def _pool_lines(collection: Collection, qrels: JudgedSet, depth: int | None) -> np.ndarray:
    """(S, T, D') int32: the line of ``qrels`` holding each ranked document, ``len(qrels)`` where none."""
    docs = collection.docs if depth is None else collection.docs[:, :, :depth]
    space = collection.n_topics * qrels.n_docs
    keys = np.arange(collection.n_topics, dtype=np.int64)[None, :, None] * qrels.n_docs + docs
    if space < 1 << 27:  # a dense topic x document table (4 bytes a cell) beats a binary search of every rank
        table = np.full(space + 1, len(qrels), np.int32)
        table[qrels.keys] = np.arange(len(qrels), dtype=np.int32)
        return table[np.where(docs >= 0, keys, space)]
    pos = np.searchsorted(qrels.keys, keys)
    clipped = np.minimum(pos, max(len(qrels) - 1, 0))
    if not len(qrels):
        return np.full(docs.shape, 0, np.int32)
    found = (docs >= 0) & (pos < len(qrels)) & (qrels.keys[clipped] == keys)
    return np.where(found, clipped, len(qrels)).astype(np.int32)


def prepare(collection: Collection, depth: int = 100, ndcg_cutoff: int | None = None, runs=None) -> Gold:
    """The truth of the paper's experiments: the depth-``depth`` pool of ``runs`` (default: the judged runs) as
    complete judgments, and AP / nDCG of every run under it (see :class:`Gold`)."""
    p = pool(collection, depth, runs)
    qrels = p.judged_set(collection.qrels, stratum=np.ones(len(p), np.int32))
    qrels = JudgedSet(qrels.topic, qrels.doc, np.maximum(qrels.grade, 0).astype(GRADE_DTYPE), qrels.stratum,
                      qrels.n_topics, qrels.n_docs)  # a pooled document the base qrels miss counts as nonrelevant
    judged = np.zeros(collection.n_runs, bool)
    if runs is None:
        judged[:] = collection.judged_runs
    else:
        judged[collection._indices(runs, collection.run_names, "runs")] = True
    lines = _pool_lines(collection, qrels, ndcg_cutoff)
    ap = score_matrix(collection, "AP", qrels)
    has_pool = np.bincount(qrels.topic, minlength=collection.n_topics) > 0
    scored = collection.retrieved & has_pool[None, :]
    gold = Gold(collection, qrels, int(depth), ndcg_cutoff, ap, np.zeros_like(ap), scored, run_means(ap, scored),
                np.zeros(collection.n_runs), judged, p.sizes(), lines)
    ndcg = plain_ndcg(gold, qrels)
    object.__setattr__(gold, "ndcg", ndcg)
    object.__setattr__(gold, "mean_ndcg", run_means(ndcg, scored))
    return gold


def truth_counts(gold: Gold) -> dict[str, int]:
    """Both directions of the coverage between the collection's qrels and the truth (the depth-``gold.depth`` pool
    of the judged runs): judgments (and relevant ones) inside and outside the pool, and pooled documents the qrels
    do not judge (counted nonrelevant, as trec_eval does). The paper's truth is the pool (footnote 2): a sample of
    the pool cannot see a relevant document outside it, so the estimators are compared with AP under the pool."""
    full = gold.collection.qrels
    judged = full.grade >= 0
    relevant = full.grade >= 1
    pool_keys = gold.qrels.keys
    at = np.minimum(np.searchsorted(pool_keys, full.keys), max(len(pool_keys) - 1, 0))
    in_pool = (pool_keys[at] == full.keys) if len(pool_keys) else np.zeros(len(full), bool)
    missing = gold.collection.qrels.lookup(gold.qrels.topic, gold.qrels.doc) < 0
    return {"qrels judgments": int(judged.sum()), "qrels relevant": int(relevant.sum()),
            "judgments in the truth pool": int((judged & in_pool).sum()),
            "judgments outside it": int((judged & ~in_pool).sum()),
            "relevant outside it": int((relevant & ~in_pool).sum()),
            "pooled documents": gold.n_pooled, "pooled documents the qrels do not judge": int(missing.sum())}


def as_gold(data) -> Gold:
    if isinstance(data, Gold):
        return data
    if isinstance(data, Collection):
        return prepare(data)
    raise TypeError(f"expected a Collection or a Gold from prepare(), got {type(data).__name__}")


_POSITIONS: dict[int, tuple[Gold, JudgedPositions]] = {}


def positions(gold: Gold) -> JudgedPositions:
    """Where the truth pool's documents stand in the rankings (:func:`evalkit.measures.judged_positions.judged_positions`),
    found once per process and reused by every sample of the pool (``within=``): every sample keeps the pool's
    lines (unsampled ones with grade -1), so the measures skip their pass over the 6.45 M ranked documents of
    TREC-8 (the same values)."""
    hit = _POSITIONS.get(id(gold))
    if hit is not None and hit[0] is gold:
        return hit[1]
    found = judged_positions(gold.collection, gold.qrels)
    _POSITIONS.clear()  # one truth at a time: the positions of TREC-8's depth-100 pool take ~55 MB
    _POSITIONS[id(gold)] = (gold, found)
    return found


def run_means(values: np.ndarray, scored: np.ndarray) -> np.ndarray:
    """(S,) mean over each run's scored topics of (S, T) ``values`` (NaN where not scored is ignored)."""
    values = np.where(scored, np.nan_to_num(values, nan=0.0), 0.0)
    n = scored.sum(axis=1)
    return np.divide(values.sum(axis=1), n, out=np.zeros(len(n)), where=n > 0)


def agreement(truth: np.ndarray, estimates: np.ndarray) -> dict[str, np.ndarray]:
    """Kendall's tau-b, Pearson's rho and RMS error of each row of ``estimates`` (K, S) or (S,) against ``truth``
    (S,): ``{"tau": (K,), "rho": (K,), "rms": (K,)}``."""
    truth = np.asarray(truth, np.float64)
    est = np.atleast_2d(np.asarray(estimates, np.float64))
    tau = kendall_tau_rows(truth, est)
    dt = truth - truth.mean()
    de = est - est.mean(axis=1, keepdims=True)
    denom = np.sqrt((dt * dt).sum() * (de * de).sum(axis=1))
    rho = np.divide(de @ dt, denom, out=np.full(len(est), np.nan), where=denom > 0)
    rms = np.sqrt(((est - truth[None, :]) ** 2).mean(axis=1))
    return {"tau": tau, "rho": rho, "rms": rms}


# ------------------------------------------------------------------------------------------- samples


def _full_pool(gold: Gold) -> JudgedSet:
    return gold.qrels


def random_judgments(gold: Gold, rate: float, seed=None, method: str = "fixed") -> JudgedSet:
    """Uniform sample of ``rate`` of each topic's depth-100 pool (Sec. 2): ``method="fixed"`` exactly
    round(rate N_t) documents without replacement (the default), ``"bernoulli"`` each pooled document
    independently with probability ``rate`` (a variant of the validation,
    :func:`~evalkit.papers.yilmaz2008.tables.ks_variants`)."""
    if rate >= 1.0:
        return _full_pool(gold)
    return uniform_sample(gold.collection, float(rate), runs=gold.judged, seed=seed, base_qrels=gold.qrels,
                          depth=gold.depth, method=method).qrels


def depth_random_judgments(gold: Gold, k: int, seed=None) -> JudgedSet:
    """The depth-k pool judged plus as many documents again drawn at random from the rest of the pool (Sec. 3.1;
    two strata). ``k >= depth``: the whole pool."""
    if k >= gold.depth:
        return _full_pool(gold)
    return depth_plus_random(gold.collection, int(k), runs=gold.judged, seed=seed, base_qrels=gold.qrels,
                             depth=gold.depth).qrels


def depth_strata_judgments(gold: Gold, k: int, seed=None, ratio: Sequence[float] = (3.0, 1.5, 1.0),
                           boundaries=None) -> JudgedSet:
    """The depth-k pool judged plus three strata of the rest sampled at rates in ``ratio`` with the same budget
    (Sec. 5; four strata, see :func:`evalkit.judging.stratified_sampling.depth_plus_strata`). ``k >= depth - 2``: the
    whole pool."""
    if k >= gold.depth - 2:
        return _full_pool(gold)
    return depth_plus_strata(gold.collection, int(k), runs=gold.judged, seed=seed, base_qrels=gold.qrels,
                             depth=gold.depth, ratio=tuple(ratio), boundaries=boundaries).qrels


def n_judged(qrels: JudgedSet) -> int:
    return int((qrels.grade >= 0).sum())


def plain_ndcg(gold: Gold, qrels: JudgedSet) -> np.ndarray:
    """(S, T) trec_eval's nDCG (or nDCG@cutoff) of every run taking ``qrels`` as they are: documents not judged
    (not in the qrels, or grade -1) are nonrelevant and the ideal list holds the judged relevant documents only.
    Equals ``score_matrix(collection, gold.ndcg_name, qrels)``; when every relevant line of ``qrels`` is in the
    pool (any sample of it), one gather through the ranked documents' pool lines."""
    rel = qrels.grade > 0
    keys = qrels.keys[rel]
    pool_keys = gold.qrels.keys
    pos = np.searchsorted(pool_keys, keys)
    clipped = np.minimum(pos, max(len(pool_keys) - 1, 0))
    if len(keys) and not (len(pool_keys) and ((pos < len(pool_keys)) & (pool_keys[clipped] == keys)).all()):
        return score_matrix(gold.collection, gold.ndcg_name, qrels)  # relevant documents outside the pool
    table = np.zeros(len(pool_keys) + 1, np.float64)
    table[clipped] = qrels.grade[rel]
    dcg = table[gold.pool_line] @ kernels.discounts(gold.pool_line.shape[-1])
    ideal = qrels.ideal_gains(gold.ndcg_cutoff)
    ideal_dcg = ideal @ kernels.discounts(ideal.shape[-1])
    return np.divide(dcg, ideal_dcg[None, :], out=np.zeros(dcg.shape), where=ideal_dcg[None, :] > 0)
