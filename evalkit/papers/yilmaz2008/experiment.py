"""Yilmaz, Kanoulas & Aslam 2008, the experiment (pure, seeded: see :mod:`evalkit.papers.yilmaz2008`): the truth
(:func:`prepare`), the sampling designs, Figure 1's sample per p, the CI validation's trials, Figure 2, the smoothing
study and the sweeps of Figures 3 and 4. The trial functions sent to :func:`evalkit.parallel.run_trials` are
module-level: workers get them pickled by reference."""

from __future__ import annotations

import time
import zlib
from dataclasses import dataclass, field, replace
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
from evalkit.measures.infap_variance import infap_variance
from evalkit.measures.inferred import (
    SAMPLE_EVAL_SMOOTHING,
    TREC_EVAL_SMOOTHING,
    inferred_measures,
    trec_infap_oracle_above,
)
from evalkit.measures.judged_positions import JudgedPositions, judged_positions
from evalkit.papers.yilmaz2008.paper import FIGURE2_DEPTHS, FIGURE3_DEPTHS, P_VALUES, VARIANCE_FORMS
from evalkit.parallel import run_trials
from evalkit.stats import kendall_tau_rows

DEFAULT_SEED = 2008

FIGURE3_ESTIMATORS = ("xinfAP (depth+random)", "infAP (random)", "infAP (depth+random)")
FIGURE4_ESTIMATORS = ("xinfAP (4 strata)", "infAP (random)", "infNDCG (4 strata)", "nDCG (random)")


_TAGS = {name: zlib.crc32(name.encode()) for name in ("figure1", "figure2", "validation", "figure3", "figure4",
                                                      "random", "explorer")}


def sample_seed(base, tag: str, value: float, extra: int = 0) -> np.random.SeedSequence:
    """Seed of one sample: depends on the base seed, the experiment, the p or k, and nothing else."""
    return np.random.SeedSequence([int(base), _TAGS[tag], round(float(value) * 10000), int(extra)])


# ------------------------------------------------------------------------------------------------ gold


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


# ------------------------------------------------------------------------------------------- figure 1


def _variance_frames(gold: Gold, qrels: JudgedSet, forms: Sequence[str], confidence: float) -> dict:
    out = {}
    for form in forms:
        v = infap_variance(gold.collection, qrels, confidence=confidence, topics=gold.scored,
                           within=positions(gold), **VARIANCE_FORMS[form])
        out[form] = v
    return out


def _check_forms(forms) -> tuple[str, ...]:
    forms = tuple([forms] if isinstance(forms, str) else forms)
    unknown = [f for f in forms if f not in VARIANCE_FORMS]
    if unknown or not forms:
        raise KeyError(f"unknown variance form(s) {unknown}; choose from {list(VARIANCE_FORMS)}")
    return forms


def figure1(data, p_values: Sequence[float] = P_VALUES, seed: int = DEFAULT_SEED,
            forms: Sequence[str] = tuple(VARIANCE_FORMS), confidence: float = 0.95) -> pd.DataFrame:
    """Figure 1: one uniform sample of p% of the pool per p; per run and variance form, mean infAP, its estimated
    sd and ``confidence`` interval, the actual MAP and whether the interval covers it.

    Columns: p, form, run, judged, MAP, mean_infAP, sd, ci_low, ci_high, covers, judgments, share.
    """
    gold = as_gold(data)
    forms = _check_forms(forms)
    names = gold.collection.run_names
    frames = []
    for p in p_values:
        qrels = random_judgments(gold, p, sample_seed(seed, "figure1", p))
        n = n_judged(qrels)
        for form, v in _variance_frames(gold, qrels, forms, confidence).items():
            sd = np.sqrt(v.mean_var)
            frames.append(pd.DataFrame({
                "p": float(p), "form": form, "run": names, "judged": gold.judged, "MAP": gold.map,
                "mean_infAP": v.mean, "sd": sd, "ci_low": v.mean_ci_low, "ci_high": v.mean_ci_high,
                "covers": (v.mean_ci_low <= gold.map) & (gold.map <= v.mean_ci_high),
                "judgments": n, "share": n / gold.n_pooled,
            }))
    return pd.concat(frames, ignore_index=True)


# -------------------------------------------------------------------------------------- CI validation


def _validation_trial(trial_index: int, trial_seed: int, gold: Gold, p_values, forms, confidence,
                      method: str = "fixed") -> dict:
    """One sampling trial: for each p a uniform sample; mean infAP (P, S) and its sd under each form (P, F, S);
    the parts of its error (P, 2, S: topics without a sampled relevant document, the smoothing where nothing
    above is sampled; see :func:`~evalkit.papers.yilmaz2008.tables.bias_breakdown`); and the same mean, truth and sd
    over the topics that have a sampled relevant document (the "empty topics dropped" variant of
    :func:`~evalkit.papers.yilmaz2008.tables.ks_variants`)."""
    c = gold.collection
    S = c.n_runs
    P, F = len(p_values), len(forms)
    mean = np.zeros((P, S))
    sd = np.zeros((P, F, S))
    parts = np.zeros((P, 2, S))
    mean_nonempty = np.zeros((P, S))
    truth_nonempty = np.zeros((P, S))
    sd_nonempty = np.zeros((P, F, S))
    empty_topics = np.zeros(P, np.int64)
    judgments = np.zeros(P, np.int64)
    unsmoothed = np.zeros((P, S))
    n_scored = gold.scored.sum(axis=1).astype(np.float64)
    for i, p in enumerate(p_values):
        qrels = random_judgments(gold, p, sample_seed(trial_seed, "validation", p), method)
        judgments[i] = n_judged(qrels)
        empty = (qrels.counts(1) == 0)[None, :]
        kept = gold.scored & ~empty
        n_kept = kept.sum(axis=1).astype(np.float64)
        for j, v in enumerate(_variance_frames(gold, qrels, forms, confidence).values()):
            mean[i] = v.mean
            sd[i, j] = np.sqrt(v.mean_var)
            sd_nonempty[i, j] = np.sqrt(np.divide((v.var * kept).sum(axis=1), n_kept ** 2, out=np.zeros(S),
                                                  where=n_kept > 0))
            infap = v.infap
        fixed = trec_infap_oracle_above(c, qrels, gold.qrels, within=positions(gold))
        plain = inferred_measures(c, qrels, ["trec_infAP"], trec_smoothing=(0.0, 0.0), within=positions(gold))
        unsmoothed[i] = run_means(plain["trec_infAP"], gold.scored)
        parts[i, 0] = np.divide((-gold.ap * (gold.scored & empty)).sum(axis=1), n_scored, out=np.zeros(S),
                                where=n_scored > 0)
        parts[i, 1] = np.divide(((infap - fixed) * kept).sum(axis=1), n_scored, out=np.zeros(S), where=n_scored > 0)
        mean_nonempty[i] = np.divide((infap * kept).sum(axis=1), n_kept, out=np.zeros(S), where=n_kept > 0)
        truth_nonempty[i] = np.divide((gold.ap * kept).sum(axis=1), n_kept, out=np.zeros(S), where=n_kept > 0)
        empty_topics[i] = int((empty[0] & gold.scored.any(axis=0)).sum())
    return {"mean": mean, "sd": sd, "judgments": judgments, "parts": parts, "mean_nonempty": mean_nonempty,
            "truth_nonempty": truth_nonempty, "sd_nonempty": sd_nonempty, "empty_topics": empty_topics,
            "unsmoothed": unsmoothed}


@dataclass(frozen=True)
class CIValidation:
    """The sampling trials of :func:`ci_validation`.

    ``mean`` (trials, P, S): mean infAP of each run; ``sd`` (trials, P, F, S): its estimated standard deviation
    under each variance form; ``map`` (S,) the actual MAP; ``judgments`` (trials, P). For the bias breakdown
    (:func:`~evalkit.papers.yilmaz2008.tables.bias_breakdown`): ``parts`` (trials, P, 2, S), the error of mean infAP due
    to topics without a sampled relevant document and to the smoothing where nothing above a relevant document was
    sampled; for the "empty topics dropped" variant (:meth:`without_empty_topics`): ``mean_nonempty``,
    ``truth_nonempty`` (trials, P, S) and ``sd_nonempty`` (trials, P, F, S) over the topics with a sampled relevant
    document; ``empty_topics`` (trials, P) how many topics had none. ``method``: how the samples were drawn.
    ``unsmoothed`` (trials, P, S): mean infAP without trec_eval's smoothing (precision above 0 where nothing above
    was sampled; the paper's footnote 4). ``block``: the samples per KS test (the paper's 100); the trials are
    ``trials // block`` consecutive blocks, each a repetition of the paper's experiment (:meth:`block_of`).
    """

    p_values: tuple[float, ...]
    forms: tuple[str, ...]
    runs: np.ndarray
    judged: np.ndarray
    map: np.ndarray
    mean: np.ndarray
    sd: np.ndarray
    judgments: np.ndarray
    n_pooled: int
    trials: int
    seed: int
    confidence: float
    seconds: float = float("nan")
    parts: np.ndarray | None = None
    mean_nonempty: np.ndarray | None = None
    truth_nonempty: np.ndarray | None = None
    sd_nonempty: np.ndarray | None = None
    empty_topics: np.ndarray | None = None
    method: str = "fixed"
    label: str = ""
    unsmoothed: np.ndarray | None = None
    block: int = 0

    _PER_TRIAL = ("mean", "sd", "judgments", "parts", "mean_nonempty", "truth_nonempty", "sd_nonempty",
                  "empty_topics", "unsmoothed")

    @property
    def block_size(self) -> int:
        """Samples per KS test: ``block``, or every trial when not set."""
        return int(self.block) if self.block else int(self.trials)

    @property
    def blocks(self) -> int:
        """How many repetitions of the experiment (blocks of :attr:`block_size` trials) the trials hold."""
        return self.trials // self.block_size if self.block_size else 0

    def _cut(self, start: int, stop: int, label: str) -> "CIValidation":
        cut = {name: (getattr(self, name)[start:stop] if getattr(self, name) is not None else None)
               for name in self._PER_TRIAL}
        return replace(self, trials=stop - start, block=0, label=label, **cut)

    def block_of(self, index: int) -> "CIValidation":
        """The ``index``-th block of :attr:`block_size` trials: one repetition of the paper's experiment."""
        if not 0 <= index < self.blocks:
            raise IndexError(f"block {index} of {self.blocks}")
        n = self.block_size
        return self._cut(index * n, (index + 1) * n, f"{self.label or 'validation'}, block {index + 1}")

    @property
    def z(self) -> np.ndarray:
        """(trials, P, F, S) deviations (mean infAP - MAP) / sd; NaN where sd = 0."""
        dev = (self.mean - self.map[None, None, :])[:, :, None, :]
        return np.divide(dev, self.sd, out=np.full(self.sd.shape, np.nan), where=self.sd > 0)

    @property
    def z_centred(self) -> np.ndarray:
        """(trials, P, F, S) deviations from each run's mean over the trials instead of MAP: the bias removed
        (a diagnostic of the variance alone; the KS test is then only approximate, the centre being estimated)."""
        dev = (self.mean - self.mean.mean(axis=0, keepdims=True))[:, :, None, :]
        return np.divide(dev, self.sd, out=np.full(self.sd.shape, np.nan), where=self.sd > 0)

    def deviations(self) -> pd.DataFrame:
        """Long table: trial, p, form, run, judged, mean_infAP, sd, z."""
        n, P, F, S = self.sd.shape
        idx = np.indices((n, P, F, S)).reshape(4, -1)
        return pd.DataFrame({
            "trial": idx[0], "p": np.asarray(self.p_values)[idx[1]],
            "form": np.asarray(self.forms, object)[idx[2]], "run": self.runs[idx[3]], "judged": self.judged[idx[3]],
            "mean_infAP": self.mean[idx[0], idx[1], idx[3]], "sd": self.sd.ravel(), "z": self.z.ravel(),
        })

    def head(self, trials: int) -> "CIValidation":
        """The first ``trials`` trials only (e.g. the "10 trials" variant of
        :func:`~evalkit.papers.yilmaz2008.tables.ks_variants`)."""
        n = int(min(trials, self.trials))
        return self._cut(0, n, f"{self.label or 'validation'}, first {n} trials")

    def without_empty_topics(self) -> "CIValidation":
        """Every trial's mean infAP, its truth and its sd taken over the topics that have at least one sampled
        relevant document (those without score 0 and are dropped; the truth is MAP over the same topics).
        Stored as ``mean = mean_nonempty - truth_nonempty + map`` so that :attr:`z` is the deviation from that
        truth in sds; ``parts`` are dropped (they describe the whole mean)."""
        if self.mean_nonempty is None:
            raise ValueError("this validation did not record the per-topic parts (run ci_validation again)")
        mean = self.mean_nonempty - self.truth_nonempty + self.map[None, None, :]
        return replace(self, mean=mean, sd=self.sd_nonempty, parts=None, unsmoothed=None,
                       label=f"{self.label or 'validation'}, empty topics dropped")


def ci_validation(data, p_values: Sequence[float] = P_VALUES, trials: int = 100, seed: int = DEFAULT_SEED,
                  forms: Sequence[str] = tuple(VARIANCE_FORMS), confidence: float = 0.95, *, method: str = "fixed",
                  blocks: int = 1, scheduler: str | None = None, n_jobs: int | None = None,
                  progress: bool = True) -> CIValidation:
    """Sec. 2's validation: ``trials`` uniform samples at each p (the paper's 100), repeated ``blocks`` times
    (``trials * blocks`` samples in all: each block is one repetition of the paper's experiment, so a KS pass rate
    gets its spread over repetitions, :func:`~evalkit.papers.yilmaz2008.tables.ks_blocks`); in each sample, every
    run's mean infAP and its sd under every variance form (and the parts of its error,
    :func:`~evalkit.papers.yilmaz2008.tables.bias_breakdown`). ``method``: "fixed" (exactly round(p N_t) documents a
    topic, the default) or "bernoulli". Summarize with :func:`~evalkit.papers.yilmaz2008.tables.ks_table` /
    :func:`~evalkit.papers.yilmaz2008.tables.ks_per_run` /
    :func:`~evalkit.papers.yilmaz2008.tables.coverage_over_trials`."""
    started = time.perf_counter()
    gold = as_gold(data)
    forms = _check_forms(forms)
    p_values = tuple(float(p) for p in p_values)
    if int(blocks) < 1 or int(trials) < 0:
        raise ValueError(f"ci_validation needs trials >= 0 and blocks >= 1, got trials={trials}, blocks={blocks}")
    block, trials = int(trials), int(trials) * int(blocks)
    records = run_trials(_validation_trial, int(trials), seed, args=(gold, p_values, forms, confidence, method),
                         scheduler=scheduler, n_jobs=n_jobs, progress=progress, desc="Yilmaz 2008: CI validation")
    S, P, F = gold.collection.n_runs, len(p_values), len(forms)
    stack = (lambda key, shape: np.stack([r[key] for r in records]) if records else np.zeros(shape))
    return CIValidation(
        p_values=p_values, forms=forms, runs=gold.collection.run_names, judged=gold.judged, map=gold.map,
        mean=stack("mean", (0, P, S)), sd=stack("sd", (0, P, F, S)),
        judgments=stack("judgments", (0, P)), n_pooled=gold.n_pooled, trials=int(trials), seed=seed,
        confidence=confidence, seconds=time.perf_counter() - started, parts=stack("parts", (0, P, 2, S)),
        mean_nonempty=stack("mean_nonempty", (0, P, S)), truth_nonempty=stack("truth_nonempty", (0, P, S)),
        sd_nonempty=stack("sd_nonempty", (0, P, F, S)), empty_topics=stack("empty_topics", (0, P)),
        method=method, label=f"{method} samples, {int(trials)} trials", unsmoothed=stack("unsmoothed", (0, P, S)),
        block=block,
    )


# ------------------------------------------------------------------------------------------- figure 2


def figure2(data, depths: Sequence[int] = FIGURE2_DEPTHS, seed: int = DEFAULT_SEED) -> pd.DataFrame:
    """Figure 2: one depth-k + random sample per k; per run, actual MAP and mean xinfAP.

    Columns: k, run, judged, MAP, mean_xinfAP, judgments, share (of the depth-100 pool)."""
    gold = as_gold(data)
    frames = []
    for k in depths:
        qrels = depth_random_judgments(gold, int(k), sample_seed(seed, "figure2", k))
        xinf = inferred_measures(gold.collection, qrels, ["infAP"], within=positions(gold))["infAP"]
        n = n_judged(qrels)
        frames.append(pd.DataFrame({"k": int(k), "run": gold.collection.run_names, "judged": gold.judged,
                                    "MAP": gold.map, "mean_xinfAP": run_means(xinf, gold.scored),
                                    "judgments": n, "share": n / gold.n_pooled}))
    return pd.concat(frames, ignore_index=True)


#: xinfAP's estimate of the precision in a stratum, (r + a) / (n + b): the variants :func:`smoothing_study` compares
SMOOTHINGS: dict[str, tuple[float, float]] = {
    "sample_eval (r+1e-5)/(n+3e-5)": SAMPLE_EVAL_SMOOTHING,
    "paper / trec_eval (r+e)/(n+2e)": TREC_EVAL_SMOOTHING,
    "none r/n (0 if n = 0)": (0.0, 0.0),
}


@dataclass(frozen=True)
class Figure2Trials:
    """Figure 2's design repeated: ``trials`` samples (seeds) of the depth-k pool + as many random documents again
    at each k, every sample scored with xinfAP under each smoothing of :data:`SMOOTHINGS` (the same samples for
    each), so Figure 2's figures and the smoothing example get their spread over seeds instead of one draw.

    ``means`` (trials, K, M, S): each run's mean xinfAP; ``judgments`` (trials, K); :meth:`stats` the long table.
    """

    depths: tuple[int, ...]
    smoothings: tuple[str, ...]
    runs: np.ndarray
    judged: np.ndarray
    map: np.ndarray
    means: np.ndarray
    judgments: np.ndarray
    n_pooled: int
    trials: int
    seed: int
    seconds: float = float("nan")

    def stats(self) -> pd.DataFrame:
        """One row per trial, k and smoothing: judgments, share of the pool, mean error of mean xinfAP against MAP
        (over runs), RMS, Kendall's tau, Pearson's rho, and RMS / tau over the judged runs and over the others."""
        rows = []
        judged = self.judged
        for t in range(self.trials):
            for i, k in enumerate(self.depths):
                for m, name in enumerate(self.smoothings):
                    est = self.means[t, i, m]
                    a = agreement(self.map, est)
                    row = {"trial": t, "k": int(k), "smoothing": name, "judgments": int(self.judgments[t, i]),
                           "share": self.judgments[t, i] / self.n_pooled,
                           "mean error": float((est - self.map).mean()), "RMS": a["rms"][0], "tau": a["tau"][0],
                           "rho": a["rho"][0]}
                    for label, mask in (("judged", judged), ("unjudged", ~judged)):
                        if mask.sum() > 2:
                            part = agreement(self.map[mask], est[mask])
                            row[f"RMS ({label})"], row[f"tau ({label})"] = part["rms"][0], part["tau"][0]
                        else:
                            row[f"RMS ({label})"] = row[f"tau ({label})"] = np.nan
                    rows.append(row)
        return pd.DataFrame(rows)


def _figure2_trial(trial_index: int, trial_seed: int, gold: Gold, depths, smoothings) -> dict:
    c = gold.collection
    means = np.zeros((len(depths), len(smoothings), c.n_runs))
    judgments = np.zeros(len(depths), np.int64)
    for i, k in enumerate(depths):
        qrels = depth_random_judgments(gold, int(k), sample_seed(trial_seed, "figure2", k))
        judgments[i] = n_judged(qrels)
        for m, constants in enumerate(smoothings):
            xinf = inferred_measures(c, qrels, ["infAP"], smoothing=constants, within=positions(gold))["infAP"]
            means[i, m] = run_means(xinf, gold.scored)
    return {"means": means, "judgments": judgments}


def figure2_trials(data, depths: Sequence[int] = FIGURE2_DEPTHS, trials: int = 20, seed: int = DEFAULT_SEED,
                   smoothings: dict | None = None, *, scheduler: str | None = None, n_jobs: int | None = None,
                   progress: bool = True) -> Figure2Trials:
    """Figure 2 over ``trials`` seeds (:class:`Figure2Trials`): at each k a depth-k + random sample per trial
    (:func:`evalkit.parallel.run_trials`' seeds), scored with xinfAP under every smoothing of ``smoothings``
    (default :data:`SMOOTHINGS`; the first is the kit's xinfAP, ``sample_eval``'s constants)."""
    started = time.perf_counter()
    gold = as_gold(data)
    smoothings = SMOOTHINGS if smoothings is None else dict(smoothings)
    depths = tuple(int(k) for k in depths)
    records = run_trials(_figure2_trial, int(trials), seed, args=(gold, depths, tuple(smoothings.values())),
                         scheduler=scheduler, n_jobs=n_jobs, progress=progress, desc="Yilmaz 2008: Figure 2 seeds")
    K, M, S = len(depths), len(smoothings), gold.collection.n_runs
    means = np.stack([r["means"] for r in records]) if records else np.zeros((0, K, M, S))
    judgments = np.stack([r["judgments"] for r in records]) if records else np.zeros((0, K), np.int64)
    return Figure2Trials(depths, tuple(smoothings), gold.collection.run_names, gold.judged, gold.map, means,
                         judgments, gold.n_pooled, int(trials), seed, time.perf_counter() - started)


def smoothing_study(data, depths: Sequence[int] = FIGURE2_DEPTHS, trials: int = 5, seed: int = DEFAULT_SEED,
                    smoothings: dict | None = None) -> pd.DataFrame:
    """xinfAP on depth-k + random samples under different smoothing constants (the same samples for each).

    When a stratum has no sampled document above a relevant one, the smoothed precision (r + a)/(n + b) is a/b:
    1/3 with ``sample_eval``'s constants, 1/2 with the paper's. With few samples in a large stratum (small k)
    that lifts xinfAP; the paper notes that smoothing matters more as strata multiply. Per k and smoothing, the
    mean over ``trials`` samples (:func:`figure2_trials`, run serially) of the mean error, the RMS error and
    Kendall's tau against MAP."""
    frame = figure2_trials(data, depths, trials, seed, smoothings, scheduler="serial", progress=False).stats()
    return frame.groupby(["k", "smoothing"], sort=False)[["mean error", "RMS", "tau"]].mean().reset_index()


# ------------------------------------------------------------------------------------- figures 3 and 4


@dataclass(frozen=True)
class Sweep:
    """A sweep over pool depths k with repeated trials (Figures 3 and 4).

    ``means`` (trials, K, E, S): each estimator's per-run mean; ``judgments`` (trials, K, E); ``stats``: long
    table trial, k, estimator, measure (AP or nDCG), judgments, share, tau, rho, RMS, mean error (the mean over
    runs of estimate - truth); :meth:`summary` averages over trials as the paper does.
    """

    depths: tuple[int, ...]
    estimators: tuple[str, ...]
    measure_of: tuple[str, ...]  # "AP" or "nDCG" per estimator
    means: np.ndarray
    judgments: np.ndarray
    stats: pd.DataFrame
    trials: int
    seed: int
    seconds: float = float("nan")

    def summary(self) -> pd.DataFrame:
        """Mean over trials of judgments, share, tau, rho and RMS per (k, estimator); plus min/max of tau."""
        g = self.stats.groupby(["k", "estimator"], sort=False, observed=True)
        out = g[["judgments", "share", "tau", "rho", "RMS"]].mean()
        out["tau min"] = g["tau"].min()
        out["tau max"] = g["tau"].max()
        out.insert(0, "measure", g["measure"].first())
        return out.reset_index()


def _figure3_trial(trial_index: int, trial_seed: int, gold: Gold, depths) -> dict:
    c = gold.collection
    S = c.n_runs
    means = np.zeros((len(depths), 3, S))
    judgments = np.zeros((len(depths), 3), np.int64)
    for i, k in enumerate(depths):
        mixed = depth_random_judgments(gold, k, sample_seed(trial_seed, "figure3", k))
        m = inferred_measures(c, mixed, ["infAP", "trec_infAP"], within=positions(gold))
        n = n_judged(mixed)
        rnd = random_judgments(gold, n / gold.n_pooled, sample_seed(trial_seed, "random", k, 3))
        r = inferred_measures(c, rnd, ["trec_infAP"], within=positions(gold))["trec_infAP"]
        means[i, 0] = run_means(m["infAP"], gold.scored)
        means[i, 1] = run_means(r, gold.scored)
        means[i, 2] = run_means(m["trec_infAP"], gold.scored)
        judgments[i] = (n, n_judged(rnd), n)
    return {"means": means, "judgments": judgments}


def _figure4_trial(trial_index: int, trial_seed: int, gold: Gold, depths, ratio, boundaries) -> dict:
    c = gold.collection
    S = c.n_runs
    means = np.zeros((len(depths), 4, S))
    judgments = np.zeros((len(depths), 4), np.int64)
    for i, k in enumerate(depths):
        strat = depth_strata_judgments(gold, k, sample_seed(trial_seed, "figure4", k), ratio, boundaries)
        m = inferred_measures(c, strat, ["infAP", gold.infndcg_name], within=positions(gold))
        n = n_judged(strat)
        rnd = random_judgments(gold, n / gold.n_pooled, sample_seed(trial_seed, "random", k, 4))
        r = inferred_measures(c, rnd, ["trec_infAP"], within=positions(gold))["trec_infAP"]
        means[i, 0] = run_means(m["infAP"], gold.scored)
        means[i, 1] = run_means(r, gold.scored)
        means[i, 2] = run_means(m[gold.infndcg_name], gold.scored)
        means[i, 3] = run_means(plain_ndcg(gold, rnd), gold.scored)
        nr = n_judged(rnd)
        judgments[i] = (n, nr, n, nr)
    return {"means": means, "judgments": judgments}


def _sweep(gold, trial_fn, args, estimators, measure_of, depths, trials, seed, scheduler, n_jobs, progress, desc):
    started = time.perf_counter()
    records = run_trials(trial_fn, int(trials), seed, args=(gold, depths) + tuple(args), scheduler=scheduler,
                         n_jobs=n_jobs, progress=progress, desc=desc)
    K, E, S = len(depths), len(estimators), gold.collection.n_runs
    means = np.stack([r["means"] for r in records]) if records else np.zeros((0, K, E, S))
    judgments = np.stack([r["judgments"] for r in records]) if records else np.zeros((0, K, E), np.int64)
    truth = {"AP": gold.map, "nDCG": gold.mean_ndcg}
    frames = []
    for e, (name, measure) in enumerate(zip(estimators, measure_of)):
        flat = means[:, :, e, :].reshape(-1, S)
        st = agreement(truth[measure], flat) if len(flat) else {"tau": [], "rho": [], "rms": []}
        idx = np.indices((len(records), K)).reshape(2, -1)
        frames.append(pd.DataFrame({
            "trial": idx[0], "k": np.asarray(depths)[idx[1]], "estimator": name, "measure": measure,
            "judgments": judgments[:, :, e].ravel(), "share": judgments[:, :, e].ravel() / gold.n_pooled,
            "tau": st["tau"], "rho": st["rho"], "RMS": st["rms"],
            "mean error": (flat - truth[measure][None, :]).mean(axis=1) if len(flat) else [],
        }))
    stats = pd.concat(frames, ignore_index=True)
    stats["estimator"] = pd.Categorical(stats["estimator"], categories=list(estimators), ordered=True)
    stats = stats.sort_values(["k", "estimator", "trial"], kind="stable").reset_index(drop=True)
    return Sweep(tuple(depths), tuple(estimators), tuple(measure_of), means, judgments, stats, int(trials), seed,
                 time.perf_counter() - started)


def figure3(data, depths: Sequence[int] = FIGURE3_DEPTHS, trials: int = 10, seed: int = DEFAULT_SEED, *,
            scheduler: str | None = None, n_jobs: int | None = None, progress: bool = True) -> Sweep:
    """Figure 3: for each k and trial, a depth-k + random sample (xinfAP, and trec_eval's infAP on the same
    judgments) and a uniform sample of the same size (infAP); tau, rho and RMS of the run means against MAP."""
    gold = as_gold(data)
    depths = tuple(int(k) for k in depths)
    return _sweep(gold, _figure3_trial, (), FIGURE3_ESTIMATORS, ("AP", "AP", "AP"), depths, trials, seed,
                  scheduler, n_jobs, progress, "Yilmaz 2008: Figure 3")


def figure4(data, depths: Sequence[int] = FIGURE3_DEPTHS, trials: int = 10, seed: int = DEFAULT_SEED,
            ratio: Sequence[float] = (3.0, 1.5, 1.0), boundaries=None, *, scheduler: str | None = None,
            n_jobs: int | None = None, progress: bool = True) -> Sweep:
    """Figure 4: for each k and trial, a 4-strata sample (depth-k pool + three strata at rates in ``ratio``;
    xinfAP and infNDCG) and a uniform sample of the same size (infAP and plain nDCG, unjudged = nonrelevant)."""
    gold = as_gold(data)
    depths = tuple(int(k) for k in depths)
    return _sweep(gold, _figure4_trial, (tuple(ratio), boundaries), FIGURE4_ESTIMATORS,
                  ("AP", "AP", "nDCG", "nDCG"), depths, trials, seed, scheduler, n_jobs, progress,
                  "Yilmaz 2008: Figure 4")
