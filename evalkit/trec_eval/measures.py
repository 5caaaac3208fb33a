"""Per-topic values of trec_eval's measures, computed on all topics at once as numpy arrays.

Each function repeats the arithmetic of trec_eval's ``m_<name>.c`` (cited per function) operation for operation
in IEEE double, so values agree bit for bit where trec_eval's loop is a running sum: a running sum over ranks is
``np.cumsum`` along the rank axis (sequential, like the C loop; adding 0.0 for a rank that contributes nothing
leaves a double unchanged). Logarithms are C's (``math.log2``/``math.log``), tabulated once per rank.

Input: a :class:`evalkit.trec_eval.rankings.Judged` (``rel[t, i]`` = grade at rank ``i+1``, negative codes for
unjudged and unpooled documents, ``PAD`` past the end). Output: a float64 array (n_topics,) per printed value.
"""

from __future__ import annotations

import math
import re
import threading

import numpy as np

from evalkit.trec_eval.rankings import PAD, RELVALUE_NONPOOL, RELVALUE_UNJUDGED, Judged

MIN_GEO_MEAN = 0.00001  # trec_eval.h
INFAP_EPSILON = 0.00001  # trec_eval.h
_LOG2 = [0.0, 0.0]  # _LOG2[n] = C log2(n) for integers n >= 2 (grown on demand)
_LOG2_LOCK = threading.Lock()  # runs may be scored in threads (trec_eval_cli)


def log2_table(n: int) -> np.ndarray:
    """C ``log2(k)`` for k = 0..n (entries 0 and 1 unused by callers but defined: -inf, 0)."""
    if len(_LOG2) <= n:
        with _LOG2_LOCK:
            while len(_LOG2) <= n:
                _LOG2.append(math.log2(len(_LOG2)))
    out = np.array(_LOG2[: n + 1])
    out[0] = -np.inf
    return out


def _prefix(x: np.ndarray) -> np.ndarray:
    """Running sums with a leading 0 column: ``out[:, k]`` = sum of the first k ranks, summed in rank order."""
    out = np.zeros((x.shape[0], x.shape[1] + 1), dtype=np.result_type(x, np.float64) if x.dtype.kind == "f"
                   else np.int64)
    np.cumsum(x, axis=1, out=out[:, 1:])
    return out


def _at(prefix: np.ndarray, k: np.ndarray) -> np.ndarray:
    """``prefix[t, k[t]]`` (k may be a (T,) or (T, C) array of counts)."""
    k = np.asarray(k)
    if k.ndim == 1:
        return prefix[np.arange(len(k)), k]
    return np.take_along_axis(prefix, k, axis=1)


def _divide(num, den) -> np.ndarray:
    """num / den where den != 0, else 0 (trec_eval leaves the value at its initial 0)."""
    num = np.asarray(num, np.float64)
    den = np.asarray(den, np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den != 0, num / np.where(den != 0, den, 1.0), 0.0)


class TopicArrays:
    """What several measures share, computed once per run: relevance masks and running counts."""

    def __init__(self, judged: Judged):
        self.j = judged
        rel = judged.rel
        level = judged.relevance_level
        self.T, self.width = rel.shape
        self.isrel = rel >= level
        self.isnonrel = (rel >= 0) & (rel < level)
        self.relcum = np.cumsum(self.isrel, axis=1)  # rels in the top i+1
        self.rel0 = _prefix(self.isrel.astype(np.int64))  # rels in the top k
        self.num_ret = judged.num_ret
        self.num_rel = judged.num_rel
        self.num_rel_ret = self.rel0[np.arange(self.T), self.num_ret]
        self.ranks = np.arange(1, self.width + 1, dtype=np.float64)  # i + 1
        self.log2_rank_plus_1 = log2_table(self.width + 1)[2:]  # log2(i + 2)
        self._ap = None

    def retrieved_upto(self, cutoffs) -> np.ndarray:
        """min(k, num_ret) for each topic and cutoff: (T, C)."""
        return np.minimum(np.asarray(cutoffs, np.int64)[None, :], self.num_ret[:, None])

    @property
    def ap_prefix(self) -> np.ndarray:
        """Running sum of precision at each relevant rank (m_map.c's ``sum``), with a leading 0 column."""
        if self._ap is None:
            terms = np.where(self.isrel, self.relcum / self.ranks, 0.0)
            self._ap = _prefix(terms)
        return self._ap


# ---- counts (m_num_ret.c, m_num_rel.c, m_num_rel_ret.c, m_num_nonrel_judged_ret.c) ----

def num_ret(a: TopicArrays) -> np.ndarray:
    return a.num_ret.astype(np.float64)


def num_rel(a: TopicArrays) -> np.ndarray:
    return a.num_rel.astype(np.float64)


def num_rel_ret(a: TopicArrays) -> np.ndarray:
    return a.num_rel_ret.astype(np.float64)


def num_nonrel_judged_ret(a: TopicArrays) -> np.ndarray:
    j = a.j
    return (a.num_ret - j.num_nonpool - j.num_unjudged - a.num_rel_ret).astype(np.float64)


# ---- rank measures ----

def average_precision(a: TopicArrays) -> np.ndarray:
    """m_map.c: sum over relevant retrieved of precision at its rank, / num_rel (0 if none retrieved)."""
    total = a.ap_prefix[:, -1]
    return np.where(a.num_rel_ret > 0, _divide(total, a.num_rel), 0.0)


def yaap(a: TopicArrays) -> np.ndarray:
    """m_yaap.c (Robertson 2012, "On Smoothing Average Precision"): log((1 + S) / (1 + R - S)), S being m_map.c's
    running sum (precision at each relevant retrieved document, summed in rank order) and R num_rel; 0 for a
    topic with neither. C's ``log`` per topic (a loop over topics, not documents): log(0) is -inf, and a negative
    ratio (only if ``-l`` below 0 let unjudged codes count) gives -nan, as glibc prints them."""
    total = a.ap_prefix[:, -1]
    ratio = (1.0 + total) / (1.0 + a.num_rel.astype(np.float64) - total)
    return np.array([math.log(x) if x > 0 else -math.inf if x == 0 else -math.nan for x in ratio.tolist()])


def gm_log(values: np.ndarray) -> np.ndarray:
    """m_gm_map.c, m_gm_bpref.c: log(max(value, MIN_GEO_MEAN)) per topic; averaged by exp(mean)."""
    return np.array([math.log(max(v, MIN_GEO_MEAN)) for v in values.tolist()])


def r_precision(a: TopicArrays) -> np.ndarray:
    """m_Rprec.c: relevant in the top min(num_ret, R), / R."""
    k = np.minimum(a.num_ret, a.num_rel)
    return np.where(k > 0, _divide(a.rel0[np.arange(a.T), k], a.num_rel), 0.0)


def bpref(a: TopicArrays) -> np.ndarray:
    """m_bpref.c (Buckley & Voorhees 2004): for each judged relevant retrieved document,
    1 - min(nonrel above, R) / min(judged nonrel, R); summed in rank order, / R."""
    j = a.j
    level = j.relevance_level
    num_nonrel = j.levels[:, :max(level, 0)].sum(axis=1)
    nonrel_so_far = np.cumsum(a.isnonrel, axis=1)
    R = a.num_rel[:, None]
    num = np.minimum(nonrel_so_far, R).astype(np.float64)
    den = np.minimum(num_nonrel[:, None], R).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        term = np.where(nonrel_so_far > 0, 1.0 - num / den, 1.0)
    terms = np.where(a.isrel, term, 0.0)
    total = _prefix(terms)[:, -1]
    return np.where(a.num_rel > 0, _divide(total, a.num_rel), total)


def reciprocal_rank(a: TopicArrays) -> np.ndarray:
    """m_recip_rank.c: 1 / rank of the first relevant document."""
    first = np.argmax(a.isrel, axis=1)
    return np.where(a.isrel.any(axis=1), 1.0 / (first + 1.0), 0.0)


def _interpolated_precision(a: TopicArrays, counts: np.ndarray) -> np.ndarray:
    """m_iprec_at_recall.c's loop: for a cutoff of ``c`` relevant documents, the highest precision at or below
    the rank of the c-th relevant document (c = 0: of the first); 0 if fewer than c were retrieved. (T, C)."""
    T, width = a.isrel.shape
    inside = np.arange(width)[None, :] < a.num_ret[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.where(inside, a.relcum / a.ranks, -np.inf)
    best_below = np.maximum.accumulate(precision[:, ::-1], axis=1)[:, ::-1]
    rel_ranks = np.argsort(~a.isrel, axis=1, kind="stable")  # positions of relevant docs first, in rank order
    nrr = a.num_rel_ret[:, None]
    which = np.clip(np.maximum(counts, 1) - 1, 0, width - 1)
    pos = np.take_along_axis(rel_ranks, which, axis=1)
    value = np.take_along_axis(best_below, pos, axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        at_end = (a.num_rel_ret / a.num_ret.astype(np.float64))[:, None] * np.ones_like(value)
    value = np.where(nrr > 0, value, at_end)  # no relevant retrieved: precision at num_ret (0)
    return np.where(counts > nrr, 0.0, value)


def recall_cutoffs(percents, num_rel: np.ndarray, version: str) -> np.ndarray:
    """Cutoffs in relevant documents: 10.0 ``lround(p * R)``; 9.0.8 ``(long)(p * R + 0.9)``."""
    x = np.asarray(percents, np.float64)[None, :] * num_rel[:, None].astype(np.float64)
    if version == "9.0.8":
        return np.trunc(x + 0.9).astype(np.int64)
    whole = np.trunc(x)
    return (whole + np.where(np.abs(x - whole) >= 0.5, np.sign(x), 0.0)).astype(np.int64)


def iprec_at_recall(a: TopicArrays, percents, version: str) -> np.ndarray:
    """m_iprec_at_recall.c: interpolated precision at recall levels. (T, C)"""
    return _interpolated_precision(a, recall_cutoffs(percents, a.num_rel, version))


def eleven_point_average(a: TopicArrays, percents, version: str) -> np.ndarray:
    """m_11pt_avg.c: the interpolated precisions summed from the highest recall level down, / their number."""
    values = _interpolated_precision(a, recall_cutoffs(percents, a.num_rel, version))
    return np.cumsum(values[:, ::-1], axis=1)[:, -1] / float(len(percents))


def precision_at(a: TopicArrays, cutoffs) -> np.ndarray:
    """m_P.c: relevant in the top k / k (missing ranks count as nonrelevant). (T, C)"""
    k = a.retrieved_upto(cutoffs)
    return _at(a.rel0, k) / np.asarray(cutoffs, np.float64)[None, :]


def recall_at(a: TopicArrays, cutoffs) -> np.ndarray:
    """m_recall.c: relevant in the top k / R (0 when R = 0). (T, C)"""
    k = a.retrieved_upto(cutoffs)
    return _divide(_at(a.rel0, k), a.num_rel[:, None] * np.ones(k.shape))


def relative_precision_at(a: TopicArrays, cutoffs) -> np.ndarray:
    """m_rel_P.c: relevant in the top k / min(k, R) (0 when R = 0). (T, C)"""
    k = a.retrieved_upto(cutoffs)
    den = np.minimum(np.asarray(cutoffs, np.int64)[None, :], a.num_rel[:, None])
    return np.where(a.num_rel[:, None] > 0, _divide(_at(a.rel0, k), den), 0.0)


def success_at(a: TopicArrays, cutoffs) -> np.ndarray:
    """m_success.c: 1 if a relevant document is in the top k. (T, C)"""
    return (_at(a.rel0, a.retrieved_upto(cutoffs)) > 0).astype(np.float64)


def average_precision_at(a: TopicArrays, cutoffs) -> np.ndarray:
    """m_map_cut.c: AP's running sum at rank k, / R (0 when R = 0). (T, C)"""
    k = a.retrieved_upto(cutoffs)
    return np.where(a.num_rel[:, None] > 0, _divide(_at(a.ap_prefix, k), a.num_rel[:, None] * np.ones(k.shape)),
                    0.0)


def unjudged_at(a: TopicArrays, cutoffs) -> np.ndarray:
    """m_unjudged.c (10.0): documents not judged (unpooled or pooled-unjudged) in the top k / k. (T, C)"""
    rel = a.j.rel
    unj = _prefix(((rel == RELVALUE_NONPOOL) | (rel == RELVALUE_UNJUDGED)).astype(np.int64))
    return _at(unj, a.retrieved_upto(cutoffs)) / np.asarray(cutoffs, np.float64)[None, :]


def r_precision_multiples(a: TopicArrays, multiples) -> np.ndarray:
    """m_Rprec_mult.c: precision at ``(long)(m * R + 0.9)`` documents (0 for a cutoff of 0). (T, C)"""
    c = np.trunc(np.asarray(multiples, np.float64)[None, :] * a.num_rel[:, None] + 0.9).astype(np.int64)
    k = np.minimum(c, a.num_ret[:, None])
    return np.where(c > 0, _divide(_at(a.rel0, k), c), 0.0)


def inferred_ap(a: TopicArrays) -> np.ndarray:
    """m_infap.c: trec_eval's infAP (Yilmaz & Aslam 2006), with its INFAP_EPSILON smoothing, NOT sample_eval's
    xinfAP. At each judged relevant document at 0-based index j > 0:
    1/(j+1) + (j/(j+1)) * ((rel-1 + nonrel + unjudged)/j) * ((rel-1 + eps)/(rel-1 + nonrel + 2 eps))."""
    rel = a.j.rel
    rel_so_far = a.relcum
    nonrel = np.cumsum(a.isnonrel, axis=1)
    unjudged = np.cumsum(rel == RELVALUE_UNJUDGED, axis=1)
    fj = np.arange(a.width, dtype=np.float64)[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        term = (1.0 / (fj + 1.0)
                + (fj / (fj + 1.0)) * ((rel_so_far - 1 + nonrel + unjudged) / fj)
                * (((rel_so_far - 1) + INFAP_EPSILON) / ((rel_so_far - 1 + nonrel) + 2 * INFAP_EPSILON)))
    term[:, 0] = 1.0
    total = _prefix(np.where(a.isrel, term, 0.0))[:, -1]
    return np.where(a.num_rel > 0, _divide(total, a.num_rel), total)


def utility(a: TopicArrays, params, num_docs_in_coll: int) -> np.ndarray:
    """m_utility.c: p1*a + p2*b + p3*c + p4*d over the retrieved/relevant contingency table."""
    if len(params) != 4:
        raise ValueError("trec_eval.calc_utility: improper number of coefficients (utility needs 4)")
    nrr, nr, R = a.num_rel_ret, a.num_ret, a.num_rel
    return (params[0] * nrr + params[1] * (nr - nrr) + params[2] * (R - nrr)
            + params[3] * (float(num_docs_in_coll) + (nrr - nr - R)))  # -N may be near 2**63: not in int64


def binary_g(a: TopicArrays) -> np.ndarray:
    """m_binG.c: sum over relevant retrieved of 1 / log2(2 + nonrelevant above + 1), / R."""
    table = log2_table(a.width + 3)
    arg = (np.arange(a.width)[None, :] + 3 - a.relcum).clip(2, a.width + 3)
    terms = np.where(a.isrel, 1.0 / table[arg], 0.0)
    total = _prefix(terms)[:, -1]
    return np.where(a.num_rel_ret > 0, _divide(total, a.num_rel), 0.0)


# ---- set measures (m_set_*.c) ----

def set_precision(a: TopicArrays) -> np.ndarray:
    return _divide(a.num_rel_ret, a.num_ret)


def set_recall(a: TopicArrays) -> np.ndarray:
    return _divide(a.num_rel_ret, a.num_rel)


def set_relative_precision(a: TopicArrays) -> np.ndarray:
    ok = (a.num_ret > 0) & (a.num_rel > 0)
    return np.where(ok, _divide(a.num_rel_ret, np.minimum(a.num_ret, a.num_rel)), 0.0)


def set_map(a: TopicArrays) -> np.ndarray:
    ok = (a.num_ret > 0) & (a.num_rel > 0)
    nrr = a.num_rel_ret.astype(np.float64)
    return np.where(ok, _divide(nrr * nrr, a.num_ret.astype(np.float64) * a.num_rel.astype(np.float64)), 0.0)


def set_f(a: TopicArrays, params) -> np.ndarray:
    """m_set_F.c: (x + 1) P R / (x P + R), x = params[0] (1 by default)."""
    x = params[0]
    P = _divide(a.num_rel_ret, a.num_ret)
    R = _divide(a.num_rel_ret, a.num_rel)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = (x + 1.0) * P * R / (x * P + R)
    return np.where(a.num_rel_ret > 0, value, 0.0)


# ---- gain measures (gain_init.c: gain of grade g is g unless given as g=value) ----

def _c_gain_order(a: tuple, b: tuple) -> int:
    """gain_init.c's comp_rel_gain: the difference of the gains truncated to an int (so 0.5 and 0 compare equal)."""
    return int(a[1] - b[1])


def _glibc_merge_sort(items: list, compare) -> list:
    """glibc's qsort (a top-down merge sort taking the left element on ties): with comp_rel_gain's truncated,
    non-transitive comparison the order of gains closer than 1 depends on the algorithm, so it is repeated."""
    if len(items) <= 1:
        return list(items)
    half = len(items) // 2
    left, right = _glibc_merge_sort(items[:half], compare), _glibc_merge_sort(items[half:], compare)
    out, i, j = [], 0, 0
    while i < len(left) and j < len(right):
        if compare(left[i], right[j]) <= 0:
            out.append(left[i])
            i += 1
        else:
            out.append(right[j])
            j += 1
    return out + left[i:] + right[j:]


class Gains:
    """trec_eval's GAINS (gain_init.c ``setup_gains``) for one parameter set, per topic: the gain of each retrieved
    document (``get_gain``) and the ideal ranking of gains (walked from the highest entry down, as m_ndcg.c does).

    ``setup_gains`` lists the integer-named parameters in the order given, then each grade 0..num_rel_levels-1 of
    the topic not given (gain = grade); the judged count of a grade goes to its first given entry; the list is
    sorted by gain (glibc's merge sort with ``comp_rel_gain``). ``get_gain(rel)`` returns the gain of the first
    entry of the sorted list whose level is ``rel``, else 0: so a level given twice (``1=3,1=4``) takes the smaller
    gain for the retrieved documents (the first in sorted order) while the ideal ranking counts its documents at
    the first given; and a gain given to level -1 (``RELVALUE_NONPOOL``: retrieved, not in the qrels) or -2
    (``RELVALUE_UNJUDGED``: in the qrels with a negative grade) is the gain of such retrieved documents, those
    levels having no judged documents in the ideal ranking. ``table[t, r + 2]`` is get_gain(r) for r = -2..top;
    ``listed[t, r + 2]`` whether an entry has level r (m_rbp.c rescales exactly those)."""

    def __init__(self, a: TopicArrays, pairs: list):
        levels = a.j.levels  # (T, L)
        self.rel = a.j.rel
        given = []  # (grade, gain) in the order given, for names that are integers (valid_int)
        for key, value in pairs:
            if _VALID_INT.fullmatch(key):  # gain_init.c's valid_int: a sign, then ASCII digits only
                given.append((int(key), float(value)))
        n_levels = _num_rel_levels(levels)
        top = levels.shape[1] - 1  # no judged document has a higher grade: a gain given above it is never looked up
        self.table = np.zeros((a.T, top + 3), np.float64)
        self.listed = np.zeros((a.T, top + 3), bool)
        first_given: dict = {}
        for k, (g, _) in enumerate(given):
            first_given.setdefault(g, k)
        sequences, self.entry_gains = [], []
        for t in range(a.T):  # a loop over topics and grades, not over documents
            entries = [(g, v, 0) for g, v in given]
            for level in range(int(n_levels[t])):
                hit = first_given.get(level)
                if hit is not None:
                    entries[hit] = (level, entries[hit][1], int(levels[t, level]))
                else:
                    entries.append((level, float(level), int(levels[t, level])))
            entries = _glibc_merge_sort(entries, _c_gain_order)
            for level, gain, _ in reversed(entries):  # get_gain: the first entry in sorted order wins
                if -2 <= level <= top:
                    self.table[t, level + 2] = gain
                    self.listed[t, level + 2] = True
            self.entry_gains.append([e[1] for e in entries])
            seq = []
            if entries and entries[-1][1] > 0:
                for _, gain, count in reversed(entries):
                    if count == 0:
                        continue
                    if gain <= 0:
                        break
                    seq.append(np.full(count, gain))
            sequences.append(np.concatenate(seq) if seq else np.zeros(0))
        self.results = self.lookup(self.table)
        self.n_positive = np.array([len(s) for s in sequences], np.int64)
        width = int(self.n_positive.max()) if a.T else 0
        self.ideal = np.zeros((a.T, width + 1), np.float64)
        for t, seq in enumerate(sequences):
            self.ideal[t, : len(seq)] = seq

    def lookup(self, table: np.ndarray) -> np.ndarray:
        """get_gain at every rank: ``table[t, rel + 2]``, 0 past the end of the ranking (PAD)."""
        inside = self.rel >= RELVALUE_UNJUDGED
        found = np.take_along_axis(table, np.where(inside, self.rel + 2, 0), axis=1)
        return np.where(inside, found, 0.0)


_VALID_INT = re.compile(r"[+-]?[0-9]{1,4000}")


def _num_rel_levels(levels: np.ndarray) -> np.ndarray:
    """form_res_rels.c's num_rel_levels: 1 + the highest grade with a judged document (0 if none)."""
    has = levels > 0
    return np.where(has.any(axis=1), levels.shape[1] - np.argmax(has[:, ::-1], axis=1), 0)


def _dcg_prefix(a: TopicArrays, gains: np.ndarray) -> np.ndarray:
    width = gains.shape[1]
    table = log2_table(width + 1)[2:]
    with np.errstate(invalid="ignore"):
        terms = np.where(gains != 0, gains / table[None, :width], 0.0)
    return _prefix(terms)


def _ideal_prefix(a: TopicArrays, g: Gains, width: int) -> np.ndarray:
    ideal = np.zeros((a.T, width), np.float64)
    w = min(width, g.ideal.shape[1])
    ideal[:, :w] = g.ideal[:, :w]
    return _dcg_prefix(a, ideal)


def dcg_values(a: TopicArrays, pairs: list, which: str) -> np.ndarray:
    """m_ndcg.c: ``ndcg`` = DCG / ideal DCG (Jarvelin & Kekalainen 2002, log2(rank + 1) discount, gains =
    grades unless given); ``dcg`` and ``ideal_dcg`` (10.0) the two parts."""
    g = Gains(a, pairs)
    results = _dcg_prefix(a, g.results)[:, -1]
    ideal = _ideal_prefix(a, g, g.ideal.shape[1])[:, -1]
    if which == "dcg":
        return results
    if which == "ideal_dcg":
        return ideal
    return np.where(ideal > 0, _divide(results, ideal), 0.0)


def ndcg_at(a: TopicArrays, cutoffs) -> np.ndarray:
    """m_ndcg_cut.c: DCG at k (gain = grade, no gain parameters) / ideal DCG at k. (T, C)"""
    rel = a.j.rel
    gains = np.where(rel > 0, rel, 0).astype(np.float64)
    k = a.retrieved_upto(cutoffs)
    dcg = _at(_dcg_prefix(a, gains), k)
    levels = a.j.levels
    top = levels.shape[1]
    n_pos = levels[:, 1:].sum(axis=1) if top > 1 else np.zeros(a.T, np.int64)
    width = int(n_pos.max()) if a.T else 0
    ideal = np.zeros((a.T, width + 1))
    for t in range(a.T):
        seq = np.repeat(np.arange(top - 1, 0, -1, dtype=np.float64), levels[t, :0:-1])
        ideal[t, : len(seq)] = seq
    ideal_prefix = _dcg_prefix(a, ideal)
    ik = np.minimum(np.asarray(cutoffs, np.int64)[None, :], n_pos[:, None])
    idcg = _at(ideal_prefix, ik)
    return np.where(idcg > 0, _divide(dcg, idcg), dcg)


def ndcg_rel(a: TopicArrays, pairs: list) -> np.ndarray:
    """m_ndcg_rel.c: nDCG averaged over the relevant documents (each relevant retrieved document's nDCG at its
    rank; the unretrieved ones contribute the final nDCG)."""
    g = Gains(a, pairs)
    width = max(a.width, g.ideal.shape[1])
    results = np.zeros((a.T, width))
    results[:, : a.width] = g.results
    r_prefix = _dcg_prefix(a, results)[:, 1:]
    i_prefix = _ideal_prefix(a, g, width)[:, 1:]
    inside = np.arange(width)[None, :] < a.num_ret[:, None]
    contributes = inside & (results > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(contributes, r_prefix / i_prefix, 0.0)
    total = _prefix(terms)[:, -1]
    n_rel = g.n_positive
    n_rel_ret = contributes.sum(axis=1)
    final_r, final_i = r_prefix[:, -1], i_prefix[:, -1]
    with np.errstate(divide="ignore", invalid="ignore"):
        total = total + (n_rel - n_rel_ret).astype(np.float64) * final_r / final_i
    return np.where(total > 0, _divide(total, n_rel), 0.0)


def r_ndcg(a: TopicArrays, pairs: list) -> np.ndarray:
    """m_Rndcg.c: nDCG averaged at the ranks where the ideal gain changes (and at num_ret when the ideal ranking
    runs out of positive gains first)."""
    g = Gains(a, pairs)
    width = max(a.width, g.ideal.shape[1]) + 1
    results = np.zeros((a.T, width))
    results[:, : a.width] = g.results
    ideal = np.zeros((a.T, width))
    ideal[:, : g.ideal.shape[1]] = g.ideal
    r_prefix = _dcg_prefix(a, results)  # [:, b] = DCG of the top b (ranks past num_ret add 0)
    i_prefix = _dcg_prefix(a, ideal)
    P = g.n_positive
    b = np.arange(width)[None, :]
    changes = np.zeros((a.T, width), bool)
    changes[:, 1:] = ideal[:, 1:] != ideal[:, :-1]
    changes &= (b >= 1) & (b <= P[:, None])
    with np.errstate(divide="ignore", invalid="ignore"):
        point = np.where(changes, r_prefix[:, :width] / i_prefix[:, :width], 0.0)
    point = np.where(changes & (i_prefix[:, :width] > 0), point, 0.0)
    counted = changes & (i_prefix[:, :width] > 0)
    total = _prefix(point)[:, -1]
    n = counted.sum(axis=1)
    extra = (P + 1) < a.num_ret
    with np.errstate(divide="ignore", invalid="ignore"):
        final = r_prefix[:, -1] / i_prefix[:, -1]
    total = np.where(extra & (i_prefix[:, -1] > 0), total + final, total)
    n = n + (extra & (i_prefix[:, -1] > 0))
    with np.errstate(divide="ignore", invalid="ignore"):
        value = total / n
    return np.where(a.num_rel > 0, value, 0.0)


def _c_log2(x: float) -> float:
    """C's log2: -inf at 0, -nan below (a gain given to level -1 or -2 can make m_G.c's argument 0 or negative)."""
    return math.log2(x) if x > 0 else -math.inf if x == 0 else -math.nan


def normalized_gain(a: TopicArrays, pairs: list) -> np.ndarray:
    """m_G.c: sum over retrieved of gain / log2(2 + ideal cost so far - gain so far), / total ideal gain."""
    g = Gains(a, pairs)
    w = a.width
    ideal = np.zeros((a.T, w))
    k = min(w, g.ideal.shape[1])
    ideal[:, :k] = g.ideal[:, :k]
    cost = np.cumsum(np.maximum(ideal, 1.0), axis=1)  # min_cost 1.0
    gained = np.cumsum(g.results, axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(g.results != 0, g.results / np.log2((2 + cost) - gained), 0.0)
    bad = (g.results != 0)
    if bad.any():  # C log2 for the few contributing ranks, to agree with trec_eval bit for bit
        rows, cols = np.nonzero(bad)
        args = ((2 + cost) - gained)[rows, cols]
        with np.errstate(divide="ignore", invalid="ignore"):  # log2 of 1 is 0: +-inf, as in C
            terms[rows, cols] = g.results[rows, cols] / np.array([_c_log2(x) for x in args.tolist()])
    total = _prefix(terms)[:, -1]
    ideal_total = _prefix(g.ideal)[:, -1]
    return np.where(ideal_total > 0, _divide(total, ideal_total), 0.0)


def _persistence(pairs: list) -> float:
    """m_rbp.c, m_rbp_resid.c: ``p`` is 0.9 unless given; the loop over the pairs keeps the last ``p=`` given."""
    p = 0.9
    for key, value in pairs:
        if key == "p":
            p = float(value)
    return p


def rank_biased_precision(a: TopicArrays, pairs: list) -> np.ndarray:
    """m_rbp.c (10.0; Moffat & Zobel 2008): (1 - p) sum gain(i) p^(i-1), p = 0.9 unless ``p=`` is given; gains
    rescaled to [0, 1] per topic when outside it."""
    p = _persistence(pairs)
    g = Gains(a, pairs)
    table = g.table.copy()
    for t in range(a.T):  # every entry of the list is rescaled; a level without one keeps get_gain's 0
        present = g.entry_gains[t]
        if not present:
            continue
        lo, hi = min(present), max(present)
        if lo < 0 or hi > 1:
            with np.errstate(divide="ignore", invalid="ignore"):
                table[t] = np.where(g.listed[t], (table[t] - lo) / (hi - lo), 0.0)
    gains = g.lookup(table)
    weights = np.concatenate([[1.0], np.multiply.accumulate(np.full(a.width - 1, p))]) if a.width > 1 \
        else np.ones(1)
    terms = np.where(gains != 0, gains * weights[None, :], 0.0)
    return (1.0 - p) * _prefix(terms)[:, -1]


def rank_biased_residual(a: TopicArrays, pairs: list) -> np.ndarray:
    """m_rbp_resid.c (10.0): the RBP weight still unknown: p^num_ret + (1 - p) sum over unjudged of p^(i-1)."""
    p = _persistence(pairs)
    rel = a.j.rel
    weights = np.concatenate([[1.0], np.multiply.accumulate(np.full(a.width, p))])
    unjudged = (rel < 0) & (rel != PAD)
    total = _prefix(np.where(unjudged, weights[None, : a.width], 0.0))[:, -1]
    end = weights[np.minimum(a.num_ret, a.width)]
    return np.where(unjudged.any(axis=1), end + (1 - p) * total, 0.0)


def relevance_strings(a: TopicArrays, length: float) -> list[str]:
    """m_relstring.c: the grades of the top ``length`` documents as characters ('-' unpooled, '.' unjudged,
    '>' above 9)."""
    n = int(length)
    out = []
    for t in range(a.T):
        k = max(0, min(n, int(a.num_ret[t])))
        row = a.j.rel[t, :k].tolist()
        out.append("".join(">" if r > 9 else chr(48 + r) if r >= 0 else "-" if r == RELVALUE_NONPOOL
                           else "." if r == RELVALUE_UNJUDGED else "<" for r in row))
    return out
