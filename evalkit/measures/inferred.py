"""Inferred measures from sampled judgments, with NIST ``sample_eval.pl`` semantics.

Sources: Yilmaz, Kanoulas and Aslam, "A simple and efficient sampling method for estimating AP and NDCG",
SIGIR 2008 (Sec. 2: infAP; Sec. 3: xinfAP; Sec. 4: infNDCG), and NIST's
``sample_eval.pl`` (the version of 10 Oct 2011), which defines the measures in practice. What ``sample_eval.pl``
does, and what this module does the same way:

* **Pool** = the documents in the sampled qrels (every line, whatever its grade); each has a stratum. A qrels line
  with grade >= 0 is *sampled* (judged), grade -1 is pooled but not sampled. A retrieved document that is not in
  the qrels is outside the pool: it counts as nonrelevant and is never estimated.
* **Per topic and stratum** s: N_s = pooled documents, n_s = sampled documents, r_s = sampled relevant (grade > 0)
  documents, r_s(g) = sampled documents of grade g. Inclusion probability of stratum s: n_s / N_s.
* **Estimated R** ``R̂ = sum_s r_s N_s / n_s`` (strata with n_s = 0 contribute nothing; no smoothing).
* **xinfAP** ("infAP" in ``sample_eval``'s output). At a sampled relevant document at rank k, with
  N_s^{<k}, n_s^{<k}, r_s^{<k} the pooled / sampled / sampled-relevant documents of stratum s *above* rank k in
  this ranking::

      PC_k = ( 1 + sum_s N_s^{<k} (r_s^{<k} + a) / (n_s^{<k} + b) ) / k,     (a, b) = (0.00001, 0.00003)

  (the script's ``1/k + (num_depth100/k) * sum_s (N_s^{<k}/num_depth100) * smoothed precision``, simplified: the
  documents above k that are not in the pool contribute 0). Then::

      xinfAP = sum_s (R̂_s / R̂) * (sum of PC_k over the sampled relevant retrieved docs of s) / r_s
             = sum_{sampled relevant retrieved k} (N_{s(k)} / n_{s(k)}) * PC_k / R̂

  (0 when R̂ = 0). The smoothing is the script's ``(r + 0.00001)/(n + 0.00003)``, not the paper's Lidstone
  ``(r + e)/(n + 2e)`` (trec_eval's ``(r + 0.00001)/(n + 0.00002)``): with an unsampled stratum above k the script
  counts a third of its documents as relevant. With one stratum this is trec_eval's infAP up to that constant;
  with every pooled document sampled and ``smoothing=(0, 0)`` it is AP exactly.
* **infP@k** = ``sum_s N_s^{<=k} (r_s^{<=k} + a) / (n_s^{<=k} + b) / k`` (counts over the top k; a ranking
  shorter than k uses its full length, as the script's fill-in does). ``infRelRet@k`` is the numerator (the
  script's ``inum_rel_ret``, k = the evaluation depth when no cut-off is given).
* **infNDCG@k**: DCG with gain = grade and discount 1/log2(rank + 1)::

      DCG^ = sum_s N_s^{<=k} * (sum of gain/log2(rank+1) over sampled retrieved docs of s in the top k) / n_s^{<=k}

  (strata with n_s^{<=k} = 0 contribute nothing), divided by the ideal DCG built from the estimated number of
  documents per grade, ``R̂(g) = sum_s r_s(g) N_s / n_s``, each *rounded to the nearest integer*
  (``int(x + 0.5)``, NIST's change of 10 Oct 2011), sorted by grade descending and cut at k. ``infNDCG`` without a
  cut-off is the script's measure: rankings and the ideal list cut at ``max_rank`` (1000). Known difference: the
  script's ideal-DCG loop, once the cut-off is passed, still adds one term per further grade (a loop-exit
  quirk that only shows when more than ``max_rank`` documents are estimated relevant); here the ideal list is
  cut cleanly.
* Rankings are in trec_eval order (score descending, docno descending), as the collection stores them, and cut at
  ``max_rank`` (the script's ``$maxResultSize = 1000``).
* ``gains`` maps grades to gains like the script's ``-G`` option (relevance is then gain > 0).

trec_eval's ``infAP`` (measure ``"trec_infAP"``): strata are ignored; at a relevant document at rank k,
``PC_k = (1 + P^{<k} (r^{<k} + 0.00001) / (j^{<k} + 0.00002)) / k`` with P = pooled (in the qrels, any grade), j = judged
(grade >= 0) and r = relevant (grade >= 1) documents above k, and the sum is divided by the number of judged
relevant documents; documents not in the qrels are nonrelevant, grade -1 ones are estimated (trec_eval's
``m_infAP.c``). All of a ranking is used (no cut at 1000).

Topics: per-topic values are returned for every (run, topic); a run that retrieved nothing for a topic gets 0
(``collection.retrieved`` says which pairs trec_eval / sample_eval would score); a topic with no line in the
sampled qrels gets NaN (neither tool scores it).

Everything is vectorized over runs x topics x ranks: the pooled documents of all rankings are found by gathers
from a lookup table (in blocks of ranked documents, so the temporaries stay small), and the counts "above rank k"
are prefix sums along the rankings. The lookup is :mod:`evalkit.measures.judged_positions` (samples of one pool
can share it: :func:`~evalkit.measures.judged_positions.judged_positions`); the variance of infAP is
:mod:`evalkit.measures.infap_variance`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from evalkit.data.collection import Collection, JudgedSet
from evalkit.measures.judged_positions import JudgedPositions, _as_judged, _Entries, _entries

__all__ = [
    "SAMPLE_EVAL_SMOOTHING",
    "TREC_EVAL_SMOOTHING",
    "MAX_RANK",
    "inferred_measures",
    "estimated_relevant",
    "estimated_grade_counts",
    "ideal_dcg",
    "trec_infap",
    "trec_infap_oracle_above",
    "qrels_statistics",
    "QrelsStatistics",
]

SAMPLE_EVAL_SMOOTHING = (0.00001, 0.00003)  # sample_eval.pl: (r + 0.00001) / (n + 0.00003)
TREC_EVAL_SMOOTHING = (0.00001, 0.00002)  # trec_eval m_infAP.c: (r + INFAP_EPSILON) / (n + 2 INFAP_EPSILON)
MAX_RANK = 1000  # sample_eval.pl $maxResultSize

_MEASURE = re.compile(r"^(?P<name>[A-Za-z_]+)(?:@(?P<k>\d+))?$")
_KNOWN = {
    "infap": "infAP",
    "xinfap": "infAP",
    "trec_infap": "trec_infAP",
    "infndcg": "infNDCG",
    "infp": "infP",
    "infr": "infR",
    "infrelret": "infRelRet",
}


# -------------------------------------------------------------------------------------- qrels statistics


@dataclass(frozen=True)
class QrelsStatistics:
    """Per-topic, per-stratum counts of a sampled qrels (what ``sample_eval.pl`` computes first).

    ``stratum_index`` maps each qrels line to 0..C-1 (strata in increasing label order; one stratum when the
    qrels have no stratum column). ``pooled`` N, ``sampled`` n, ``relevant`` r are (T, C); ``by_gain`` is
    (T, C, G) counts of sampled documents per positive gain value ``gain_values`` (descending).
    """

    labels: np.ndarray  # (C,) stratum labels
    stratum_index: np.ndarray  # (Q,)
    sampled: np.ndarray  # (Q,) bool: grade >= 0
    gain: np.ndarray  # (Q,) float: mapped gain of sampled docs, 0 otherwise
    pooled: np.ndarray  # (T, C)
    n_sampled: np.ndarray  # (T, C)
    n_relevant: np.ndarray  # (T, C)
    gain_values: np.ndarray  # (G,) descending, > 0
    by_gain: np.ndarray  # (T, C, G)

    @property
    def n_strata(self) -> int:
        return len(self.labels)

    @property
    def weights(self) -> np.ndarray:
        """(T, C) inverse inclusion probabilities N_s / n_s (0 where n_s = 0)."""
        return np.divide(self.pooled, self.n_sampled, out=np.zeros(self.pooled.shape), where=self.n_sampled > 0)


def _mapped_gains(grade: np.ndarray, gains: Mapping | None) -> np.ndarray:
    out = np.where(grade > 0, grade, 0).astype(np.float64)
    if gains:
        keys = np.array(list(gains.keys()), np.int64)
        values = np.array(list(gains.values()), np.float64)
        order = np.argsort(keys)
        keys, values = keys[order], values[order]
        pos = np.minimum(np.searchsorted(keys, grade), len(keys) - 1)
        hit = (keys[pos] == grade) & (grade >= 0)
        out = np.where(hit, values[pos], out)
    return np.where(grade >= 0, np.maximum(out, 0.0), 0.0)


def qrels_statistics(sampled_qrels, gains: Mapping | None = None) -> QrelsStatistics:
    """Per-topic, per-stratum counts N, n, r and r(g) of a sampled qrels (no stratum column = one stratum)."""
    q = _as_judged(sampled_qrels)
    T = q.n_topics
    if q.stratum is None or not len(q):
        labels = np.zeros(1, np.int64)
        cidx = np.zeros(len(q), np.int64)
    else:
        labels, cidx = np.unique(q.stratum, return_inverse=True)
    C = len(labels)
    sampled = q.grade >= 0
    gain = _mapped_gains(q.grade.astype(np.int64), gains)
    group = q.topic.astype(np.int64) * C + cidx
    pooled = np.bincount(group, minlength=T * C).reshape(T, C)
    n_sampled = np.bincount(group[sampled], minlength=T * C).reshape(T, C)
    relevant = gain > 0
    n_relevant = np.bincount(group[relevant], minlength=T * C).reshape(T, C)
    gain_values, gidx = np.unique(gain[relevant], return_inverse=True)
    gain_values, gidx = gain_values[::-1], len(gain_values) - 1 - gidx
    G = len(gain_values)
    by_gain = np.bincount(group[relevant] * G + gidx, minlength=T * C * G).reshape(T, C, G)
    return QrelsStatistics(labels, cidx, sampled, gain, pooled, n_sampled, n_relevant, gain_values, by_gain)


def estimated_grade_counts(sampled_qrels, gains: Mapping | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(gain values descending (G,), (T, G) estimated number of documents of each gain: sum_s r_s(g) N_s / n_s)."""
    st = sampled_qrels if isinstance(sampled_qrels, QrelsStatistics) else qrels_statistics(sampled_qrels, gains)
    return st.gain_values, np.einsum("tcg,tc->tg", st.by_gain, st.weights)


def estimated_relevant(sampled_qrels, gains: Mapping | None = None) -> np.ndarray:
    """(T,) estimated number of relevant documents per topic, ``R̂ = sum_s r_s N_s / n_s`` (``inum_rel``)."""
    st = sampled_qrels if isinstance(sampled_qrels, QrelsStatistics) else qrels_statistics(sampled_qrels, gains)
    return (st.n_relevant * st.weights).sum(axis=1)


def _discount_prefix(k: int) -> np.ndarray:
    """H[m] = sum_{r=1}^{m} 1/log2(r+1), m = 0..k."""
    return np.concatenate([[0.0], np.cumsum(1.0 / np.log2(np.arange(2, k + 2)))])


def ideal_dcg(sampled_qrels, k: int | None, gains: Mapping | None = None) -> np.ndarray:
    """(T,) ideal DCG@k from the estimated count of documents per grade, each rounded to the nearest integer
    (``int(x + 0.5)``), highest gain first; ``k=None``: no cut-off."""
    st = sampled_qrels if isinstance(sampled_qrels, QrelsStatistics) else qrels_statistics(sampled_qrels, gains)
    values, est = estimated_grade_counts(st)
    counts = np.floor(est + 0.5).astype(np.int64)  # perl int(x + 0.5), x >= 0
    if k is None:
        k = int(counts.sum(axis=1).max(initial=0))
    cum = np.cumsum(counts, axis=1)
    ends = np.minimum(cum, k)
    starts = np.minimum(cum - counts, k)
    H = _discount_prefix(k)
    return ((H[ends] - H[starts]) * values[None, :]).sum(axis=1)


def _smoothed(N, r, n, smoothing):
    """N (r + a) / (n + b) with (a, b) = smoothing; 0 where N == 0 (and where b == 0 and n == 0)."""
    a, b = smoothing
    N, r, n = np.broadcast_arrays(N, r, n)
    den = n + b
    return np.divide(N * (r + a), den, out=np.zeros(N.shape), where=(den > 0) & (N > 0))


# ------------------------------------------------------------------------------------------- kernels


def _count_above(mask: np.ndarray, at: np.ndarray, first: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """How many entries in [first, at) have ``mask``: one int32 prefix sum (bool -> int32 is the fast path), read at
    ``at`` and ``first``. ``out``: an int32 array one longer than ``mask`` to hold the prefix sum (reused by a caller
    counting many masks)."""
    above = np.empty(len(mask) + 1, np.int32) if out is None else out
    above[0] = 0
    np.cumsum(mask, dtype=np.int32, out=above[1:])  # above[i] = mask entries before i
    return above[at] - above[first]


def _xinfap(e: _Entries, st: QrelsStatistics, smoothing, rank_limit: int | None) -> np.ndarray:
    """xinfAP (Yilmaz, Kanoulas and Aslam 2008, Sec. 3, as sample_eval.pl computes it; module docstring): per
    sampled relevant entry, the pooled / sampled / sampled-relevant entries of each stratum above it, from prefix
    sums over the entries. The per-entry temporaries are booleans and one int32 prefix-sum buffer shared by every
    count (the per-line flags are gathered once; a one-stratum pool needs no stratum mask: the entries above are
    ``at - first``)."""
    C = st.n_strata
    rel_all = (st.gain > 0)[e.q]
    sampled = st.sampled[e.q]
    if rank_limit is not None:
        candidates = np.less(e.rank, rank_limit)
        candidates &= rel_all
        at = np.flatnonzero(candidates)
    else:
        at = np.flatnonzero(rel_all)
    first = e.first_of_row(at)
    N_above, n_above, r_above = (np.empty((len(at), C), np.int64) for _ in range(3))
    prefix = np.empty(len(e.q) + 1, np.int32)
    if C == 1:
        N_above[:, 0] = at - first  # every entry is in the one stratum
        n_above[:, 0] = _count_above(sampled, at, first, prefix)
        r_above[:, 0] = _count_above(rel_all, at, first, prefix)
        c_at = np.zeros(len(at), np.int64)
    else:
        c = st.stratum_index.astype(np.min_scalar_type(C - 1))[e.q]
        in_s, both = np.empty(len(c), bool), np.empty(len(c), bool)
        for s in range(C):  # strata: a handful of int32 prefix sums over the pooled entries
            np.equal(c, s, out=in_s)
            N_above[:, s] = _count_above(in_s, at, first, prefix)
            n_above[:, s] = _count_above(np.logical_and(in_s, sampled, out=both), at, first, prefix)
            r_above[:, s] = _count_above(np.logical_and(in_s, rel_all, out=both), at, first, prefix)
        c_at = c[at]
    del prefix
    rows_at = e.row[at]
    total = _smoothed(N_above, r_above, n_above, smoothing).sum(axis=1)
    k = e.rank[at] + 1.0
    prec = (1.0 + total) / k
    w = st.weights[rows_at // e.n_runs, c_at]
    sums = e.to_st(np.bincount(rows_at, weights=w * prec, minlength=e.n_rows))
    R = estimated_relevant(st)
    return np.divide(sums, R[None, :], out=np.zeros(sums.shape), where=R[None, :] > 0)


def _trec_prec(e: _Entries, q: JudgedSet, smoothing):
    """trec_eval's infAP at the relevant (grade >= 1) entries: (positions, PC_k, D, j, r, k) with D / j / r the
    pooled / judged / relevant documents above."""
    grade = q.grade[e.q]
    at = np.flatnonzero(grade >= 1)
    first = e.first_of_row(at)
    D = (at - first).astype(np.int64)  # every entry is pooled
    j = _count_above(grade >= 0, at, first)
    rows_at = e.row[at]
    new_row = np.ones(len(at), bool)
    new_row[1:] = rows_at[1:] != rows_at[:-1]
    pos = np.arange(len(at))
    r = pos - np.maximum.accumulate(np.where(new_row, pos, 0)) if len(at) else pos
    k = e.rank[at] + 1.0
    prec = (1.0 + _smoothed(D, r, j, smoothing)) / k
    return at, prec, D, j, r, k


def _trec_infap(e: _Entries, q: JudgedSet, smoothing) -> np.ndarray:
    at, prec, *_ = _trec_prec(e, q, smoothing)
    sums = e.to_st(np.bincount(e.row[at], weights=prec, minlength=e.n_rows))
    n_rel = q.counts(1)
    return np.divide(sums, n_rel[None, :], out=np.zeros(sums.shape), where=n_rel[None, :] > 0)


def _counts_top(e: _Entries, st: QrelsStatistics, k: int, among: np.ndarray | None = None):
    """(S, T, C) pooled, sampled, sampled-relevant counts and discounted gain sums over the top k ranks, and the
    positions of the entries in the top k. ``among``: the positions of the entries in a deeper top (a previous
    call's), to select from instead of every entry (the same positions, in the same order)."""
    C = st.n_strata
    top = np.flatnonzero(e.rank < k) if among is None else among[e.rank[among] < k]
    q = e.q[top]
    group = np.multiply(e.row[top], C, dtype=np.int64) + st.stratum_index[q]
    size = e.n_rows * C
    sampled = st.sampled[q]
    g = st.gain[q]
    relevant = g > 0
    N = np.bincount(group, minlength=size)
    n = np.bincount(group[sampled], minlength=size)
    r = np.bincount(group[relevant], minlength=size)
    dg = np.bincount(group[relevant], weights=g[relevant] / np.log2(e.rank[top[relevant]] + 2.0), minlength=size)
    shape = (e.n_topics, e.n_runs, C)
    return tuple(np.ascontiguousarray(a.reshape(shape).transpose(1, 0, 2)) for a in (N, n, r, dg)), top


# ------------------------------------------------------------------------------------------------ API


def _parse(measure: str) -> tuple[str, int | None]:
    m = _MEASURE.match(measure.replace(" ", ""))
    if not m or m["name"].lower() not in _KNOWN:
        raise ValueError(
            f"unknown inferred measure {measure!r}; known: infAP (= xinfAP), trec_infAP, infNDCG[@k], infP@k, "
            "infRelRet[@k], infR"
        )
    name = _KNOWN[m["name"].lower()]
    k = int(m["k"]) if m["k"] else None
    if k is not None and k < 1:
        raise ValueError(f"cut-off must be >= 1 in {measure!r}")
    if name == "infP" and k is None:
        raise ValueError("infP needs a cut-off, e.g. infP@10")
    if name in ("infAP", "trec_infAP", "infR") and k is not None:
        raise ValueError(f"{name} takes no cut-off")
    return name, k


def inferred_measures(
    collection: Collection,
    sampled_qrels=None,
    measures: Sequence[str] = ("infAP", "infNDCG@100", "infP@10"),
    *,
    smoothing: tuple[float, float] = SAMPLE_EVAL_SMOOTHING,
    trec_smoothing: tuple[float, float] = TREC_EVAL_SMOOTHING,
    max_rank: int | None = MAX_RANK,
    gains: Mapping | None = None,
    within: JudgedPositions | None = None,
) -> dict[str, np.ndarray]:
    """Inferred measures of every run on every topic: ``{measure name: (S, T) float64 array}``.

    ``sampled_qrels``: a :class:`~evalkit.data.collection.JudgedSet` (stratum column optional: none = one stratum),
    a :class:`~evalkit.judging.stratified_sampling.SampleResult`, file :class:`~evalkit.data.trec_files.Qrels`, or None (the collection's own).
    ``measures``: ``infAP`` (alias ``xinfAP``: sample_eval's extended inferred AP), ``trec_infAP`` (trec_eval's
    infAP, strata ignored, whole ranking), ``infNDCG`` / ``infNDCG@k``, ``infP@k``, ``infRelRet`` /
    ``infRelRet@k`` (estimated relevant retrieved), ``infR`` (estimated R per topic, repeated over runs).
    ``smoothing`` (a, b): the estimated precision of a stratum is (r + a)/(n + b) (sample_eval: (0.00001, 0.00003);
    (0, 0) turns smoothing off); ``trec_smoothing`` the same for ``trec_infAP`` (trec_eval: (0.00001, 0.00002)).
    ``max_rank``: rankings are cut here (sample_eval's 1000; None = all). ``gains``: grade -> gain (``-G``).
    ``within``: :func:`judged_positions` of these qrels or of a pool they were sampled from (checked): the ranked
    documents are taken from it instead of looked up again (the same values, faster when several samples of one
    pool are scored). See the module docstring for the formulas.
    """
    if isinstance(measures, str):
        measures = [measures]
    q = _as_judged(sampled_qrels, collection)
    S, T, D = collection.docs.shape
    depth = D if max_rank is None else min(max_rank, D)
    parsed = [(m, *_parse(m)) for m in measures]
    st = qrels_statistics(q, gains)
    e = _entries(collection, q, within)
    has_qrels = np.bincount(q.topic, minlength=T) > 0
    out: dict[str, np.ndarray] = {}
    cache: dict = {}
    for label, name, k in parsed:
        if name == "infAP":
            value = _xinfap(e, st, smoothing, depth)
        elif name == "trec_infAP":
            value = _trec_infap(e, q, trec_smoothing)
        elif name == "infR":
            value = np.broadcast_to(estimated_relevant(st), (S, T)).copy()
        else:
            cut = depth if k is None else min(k, depth)
            if cut not in cache:
                deeper = [c for c in cache if c > cut]
                cache[cut] = _counts_top(e, st, cut, cache[min(deeper)][1] if deeper else None)
            N, n, r, dg = cache[cut][0]
            if name in ("infP", "infRelRet"):
                rel_ret = _smoothed(N, r, n, smoothing).sum(axis=2)
                value = rel_ret / k if name == "infP" else rel_ret
            else:  # infNDCG: the ideal list is cut at k, or at max_rank (sample_eval's 1000) without a cut-off
                kk = max_rank if k is None else k
                dcg = np.divide(N * dg, n, out=np.zeros(N.shape), where=n > 0).sum(axis=2)
                ideal = ideal_dcg(st, kk)
                value = np.divide(dcg, ideal[None, :], out=np.zeros(dcg.shape), where=ideal[None, :] > 0)
        value = np.where(has_qrels[None, :], value, np.nan)
        out[label] = value
    return out


def trec_infap(collection: Collection, qrels=None, smoothing=TREC_EVAL_SMOOTHING) -> np.ndarray:
    """(S, T) trec_eval's ``infAP`` (see the module docstring); equals ``pytrec_eval``'s on trec_eval's topics."""
    return inferred_measures(collection, qrels, ["trec_infAP"], trec_smoothing=smoothing, max_rank=None)["trec_infAP"]


def trec_infap_oracle_above(collection: Collection, qrels, complete_qrels,
                            smoothing: tuple[float, float] = TREC_EVAL_SMOOTHING,
                            within: JudgedPositions | None = None) -> np.ndarray:
    """(S, T) trec_eval's infAP with one change, for taking its bias apart: at a sampled relevant document at rank
    k > 1 with *nothing sampled above it* (j^{<k} = 0, so trec_eval's smoothed precision above is
    (0 + e)/(0 + 2e) = 1/2, Yilmaz et al. 2008 Sec. 3's Lidstone smoothing), the estimated number of relevant
    documents above, ``D (r + e)/(j + 2e) = D/2``, is replaced by the true number (the pooled documents above
    whose grade in ``complete_qrels`` is >= 1), i.e. PC_k becomes the true precision at k. Everywhere else the
    value is :func:`trec_infap`'s. The difference ``trec_infap - trec_infap_oracle_above`` is the part of
    infAP's error due to that smoothing (used by :func:`evalkit.papers.yilmaz2008.tables.bias_breakdown`).

    ``qrels``: the sampled judgments (grade -1 = pooled, not sampled); ``complete_qrels``: the complete
    judgments of the same pool (a document absent from them counts as nonrelevant). ``within``: as in
    :func:`inferred_measures` (the same values, without a pass over the rankings)."""
    q = _as_judged(qrels, collection)
    full = _as_judged(complete_qrels, collection)
    e = _entries(collection, q, within)
    at, prec, D, j, _, k = _trec_prec(e, q, smoothing)
    truly_relevant = (full.lookup(q.topic, q.doc) >= 1)[e.q]  # per qrels line once, then one gather
    first = e.first_of_row(at)
    true_above = _count_above(truly_relevant, at, first)
    nothing_sampled = (j == 0) & (D > 0)
    prec = np.where(nothing_sampled, (1.0 + true_above) / k, prec)
    S, T, _ = collection.docs.shape
    sums = e.to_st(np.bincount(e.row[at], weights=prec, minlength=e.n_rows))
    n_rel = q.counts(1)
    return np.divide(sums, n_rel[None, :], out=np.zeros((S, T)), where=n_rel[None, :] > 0)
