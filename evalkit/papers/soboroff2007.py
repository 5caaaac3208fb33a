"""Soboroff (2007), "A comparison of pooled and sampled relevance judgments" (EVIA 2007; TREC 2006 Terabyte).

The design and every analysis of the paper, as pure functions returning DataFrames:

* :func:`sample_statistics`: the relevance-based sample's statistics (Sec. 2) beside the paper's
  (:data:`PAPER_SAMPLE`); the sample itself is :func:`evalkit.judging.relevance_sampling.relevance_sample`.
* :func:`figure1`, :func:`figure1_summary`: each run's MAP on the phase-1 pool against its infAP (trec_eval's)
  on the sample, Kendall's tau, how many runs score lower (paper: tau 0.8, all but four runs lower).
* :func:`leave_one_group_out`, :func:`logo_summary`: remove a group's runs from both the pool and the sample,
  rescore that group's runs (paper: similar score change, smaller rank change for infAP).
* :func:`subsample_scores`, :func:`anova_topic_sample`, :func:`anova_per_run`: infAP over 100 random subsamples
  of the phase-1 pool at the sample's per-topic rates, and two-way analyses of variance by topic and sample
  (paper: sample not significant; topic significant for 45 of 50 topics; two runs with p = 0.016, 0.014).
* :func:`titlestat`, :func:`titlestat_rel`, :func:`titlestat_sets`: Buckley et al.'s title-word statistic over a
  caller-supplied text source (TREC run files carry no document text; :func:`titlestat_example` is a tiny
  made-up collection of texts).
* :func:`run_study`: the whole computation (what the notebook and ``bench/bench_soboroff2007.py`` run).

Readings made here (the paper is terse, and its leave-one-group-out table did not survive extraction):

* **MAP on the pool**: trec_eval's AP with the phase-1 depth-Δ pool as qrels (documents outside it
  nonrelevant), mean over topics. **infAP on the sample**: trec_eval's infAP (:func:`evalkit.measures.inferred.trec_infap`)
  with the sampled qrels: pooled-but-unsampled documents (grade -1) are estimated, unpooled ones nonrelevant.
* **Leave one group out**: a group's runs are removed from the pool and the sample by dropping the documents
  that *only* that group's pooling runs retrieved within the phase-1 depth (pool) or within the topic's sample
  depth (sample); the sample's depths, rates and draws are kept (not re-estimated). Every run of the group is
  rescored (pooling or not). *Score change* = |full - held out| of a run's mean score; *rank change* = |rank
  with its held-out score - rank with its full score|, ranked against the other runs' full-judgment scores (1 +
  the number of other runs scoring strictly higher). Only groups with at least one pooling run are held out.
* **ANOVA by topic and sample** (runs as replicates): the additive model infAP ~ topic + sample over every
  (subsample, run, topic) value of the balanced design, sums of squares in closed form (equal to
  ``statsmodels``' ``anova_lm``; tests check it). "Topic significant for 45 of 50 topics" is read as the test of
  each topic's effect (its mean minus the grand mean, sum-to-zero coding) against 0 with the model's residual
  variance, t test, two-sided, at alpha. **Per run**: infAP ~ topic + sample on the run's (subsample x topic)
  table (two-way without replication).
* **titlestat** (Buckley, Dimmick, Soboroff and Voorhees 2007): for a topic and a set of documents, the mean
  over the title's words (lower-cased, stop words dropped, optionally stemmed by a caller's function) of the
  fraction of the documents containing the word; averaged over topics. ``titlestat_rel`` uses the judged
  relevant documents.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
from scipy import stats as sps

from evalkit.data.collection import Collection, JudgedSet
from evalkit.judging.relevance_sampling import (
    DEFAULTS,
    RelevanceSample,
    pool_subsamples,
    relevance_sample,
    subsample_qrels,
)
from evalkit.measures.evaluation import score_matrix
from evalkit.measures.inferred import trec_infap
from evalkit.papers.needs import (
    REFERENCE_DEPTH,
    Plan,
    judged_depth_of,
    require,
    require_judged_groups,
    require_judged_runs,
    require_topics,
    scale_depth,
)
from evalkit.stats import kendall_tau, pearson

__all__ = [
    "PAPER_ANOVA",
    "PAPER_FIGURE1",
    "PAPER_LOGO",
    "PAPER_POOL",
    "PAPER_SAMPLE",
    "PAPER_TITLESTAT",
    "STOPWORDS",
    "AnovaResult",
    "Study",
    "anova_per_run",
    "anova_topic_sample",
    "claims",
    "draw_design",
    "explorer",
    "figure1",
    "figure1_summary",
    "leave_one_group_out",
    "logo_summary",
    "plan",
    "plot_depths",
    "plot_figure1",
    "pooled_map",
    "run_study",
    "sample_infap",
    "sample_statistics",
    "subsample_scores",
    "title_words",
    "titlestat",
    "titlestat_example",
    "titlestat_rel",
    "titlestat_sets",
    "unique_group",
]

# ----------------------------------------------------------------------------------------------------------------
# the paper's numbers (TREC 2006 Terabyte, GOV2, 50 topics 801-850)
# ----------------------------------------------------------------------------------------------------------------

#: Sec. 2: the phase-1 (depth-50) pool.
PAPER_POOL = {"depth": 50, "docs_per_topic": 640, "relevant_per_topic": 118, "topics": 50}

#: Sec. 2: the relevance-based sample (rpt = 20/200).
PAPER_SAMPLE = {
    "rpt": 20 / 200,
    "depth_min": 57,
    "depth_max": 1252,
    "depth_mean": 314,
    "docs_per_topic": 492,
    "relevant_per_topic": 36,
    "beyond_pool_docs": 211,
    "beyond_pool_relevant": 14,
    "topics_with_new_relevant": 46,
    "topics_with_20_new_relevant": 10,
    "topics": 50,
}

#: Sec. 3, Figure 1: MAP (depth-50 pool) against infAP (sample), per run.
PAPER_FIGURE1 = {"kendall_tau": 0.8, "runs_infap_not_lower": 4}

#: Sec. 5: the leave-one-group-out table's values are not in the text; only its conclusion.
PAPER_LOGO = {"conclusion": "MAP and infAP scores change by a similar amount, but the infAP ranking changes less"}

#: Sec. 6: ANOVA over 100 subsamples of the depth-50 pool.
PAPER_ANOVA = {
    "n_subsamples": 100,
    "alpha": 0.05,
    "sample_significant": False,
    "topics_significant": 45,
    "topics": 50,
    "runs_sample_significant": 2,
    "run_p_values": (0.016, 0.014),
    "run_max_mean_infap": (0.1002, 0.0866),
}

#: Sec. 4: titlestat_rel of the judged relevant documents.
PAPER_TITLESTAT = {"pool": 0.93, "sample": 0.899, "sample_below_50": 0.851}


# ----------------------------------------------------------------------------------------------------------------
# the sample's statistics
# ----------------------------------------------------------------------------------------------------------------

_STAT_ROWS = (
    ("depth_min", "sample depth, minimum", "depth_min"),
    ("depth_max", "sample depth, maximum", "depth_max"),
    ("depth_mean", "sample depth, mean", "depth_mean"),
    ("pool_docs_per_topic", "phase-1 pool: documents a topic", None),
    ("pool_relevant_per_topic", "phase-1 pool: relevant a topic", None),
    ("docs_per_topic", "sample: documents a topic", "docs_per_topic"),
    ("relevant_per_topic", "sample: relevant a topic", "relevant_per_topic"),
    ("beyond_pool_docs", "sample beyond the pool: documents a topic", "beyond_pool_docs"),
    ("beyond_pool_relevant", "sample beyond the pool: relevant a topic", "beyond_pool_relevant"),
    ("topics_with_new_relevant", "topics with >= 1 new relevant", "topics_with_new_relevant"),
    ("topics_with_20_new_relevant", "topics with >= 20 new relevant", "topics_with_20_new_relevant"),
    ("topics_capped", "topics whose depth the judged depth caps", None),
    ("depth_uncapped_mean", "sample depth, mean before the cap", None),
    ("rate_mean", "sampling rate, mean over topics", None),
)


def sample_statistics(sample: RelevanceSample) -> pd.DataFrame:
    """The sample's statistics (:meth:`RelevanceSample.summary`) beside the paper's (TB06): one row a statistic,
    columns ``statistic``, ``paper``, ``kit``. Rows the paper does not report have an empty ``paper``."""
    kit = sample.summary()
    paper = dict(PAPER_SAMPLE)
    paper["pool_docs_per_topic"] = PAPER_POOL["docs_per_topic"]
    paper["pool_relevant_per_topic"] = PAPER_POOL["relevant_per_topic"]
    rows = []
    for key, label, _ in _STAT_ROWS:
        rows.append({"key": key, "statistic": label, "paper": paper.get(key, np.nan), "kit": kit[key]})
    return pd.DataFrame(rows).set_index("key")


# ----------------------------------------------------------------------------------------------------------------
# Figure 1
# ----------------------------------------------------------------------------------------------------------------


def _means(matrix: np.ndarray) -> np.ndarray:
    """Per-run mean over the topics that have a value (NaN = topic without qrels)."""
    with np.errstate(invalid="ignore"):
        return np.nanmean(matrix, axis=1)


def pooled_map(collection: Collection, sample: RelevanceSample) -> np.ndarray:
    """(S, T) AP of every run with the phase-1 pool as qrels."""
    return score_matrix(collection, "AP", sample.pool_qrels)


def sample_infap(collection: Collection, sample: RelevanceSample | JudgedSet) -> np.ndarray:
    """(S, T) trec_eval's infAP of every run with the sampled qrels."""
    qrels = sample.qrels if isinstance(sample, RelevanceSample) else sample
    return trec_infap(collection, qrels)


def figure1(collection: Collection, sample: RelevanceSample, map_matrix=None, infap_matrix=None) -> pd.DataFrame:
    """Per run: ``group``, ``judged`` (pooling run), ``MAP_pool``, ``infAP_sample``, ``difference`` (infAP -
    MAP), ``lower`` (infAP < MAP), and ranks under each. Precomputed (S, T) matrices may be passed."""
    map_matrix = pooled_map(collection, sample) if map_matrix is None else map_matrix
    infap_matrix = sample_infap(collection, sample) if infap_matrix is None else infap_matrix
    frame = pd.DataFrame(
        {
            "group": collection.runs_info["group"].to_numpy(),
            "judged": collection.judged_runs if "judged" in collection.runs_info else False,
            "MAP_pool": _means(map_matrix),
            "infAP_sample": _means(infap_matrix),
        },
        index=pd.Index(collection.run_names, name="run"),
    )
    frame["difference"] = frame.infAP_sample - frame.MAP_pool
    frame["lower"] = frame.infAP_sample < frame.MAP_pool
    frame["rank_MAP"] = frame.MAP_pool.rank(ascending=False, method="min").astype(int)
    frame["rank_infAP"] = frame.infAP_sample.rank(ascending=False, method="min").astype(int)
    return frame


def figure1_summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Kendall's tau between the MAP and infAP rankings, Pearson's r, runs scoring lower / not lower, mean
    difference; the paper's values beside (rows ``statistic``, columns ``paper``, ``kit``)."""
    x, y = frame.MAP_pool.to_numpy(), frame.infAP_sample.to_numpy()
    rows = [
        ("runs", np.nan, len(frame)),
        ("Kendall's tau (MAP pool vs infAP sample)", PAPER_FIGURE1["kendall_tau"], kendall_tau(x, y)),
        ("Pearson's r", np.nan, pearson(x, y)),
        ("runs with infAP < MAP", np.nan, int(frame.lower.sum())),
        ("runs with infAP >= MAP", PAPER_FIGURE1["runs_infap_not_lower"], int((~frame.lower).sum())),
        ("mean infAP - MAP", np.nan, float(frame.difference.mean())),
        ("largest rank change", np.nan, int((frame.rank_MAP - frame.rank_infAP).abs().max())),
    ]
    return pd.DataFrame(rows, columns=["statistic", "paper", "kit"]).set_index("statistic")


# ----------------------------------------------------------------------------------------------------------------
# leave one group out
# ----------------------------------------------------------------------------------------------------------------


def unique_group(collection: Collection, runs, depth, codes: np.ndarray, topic: np.ndarray,
                 doc: np.ndarray) -> np.ndarray:
    """For each (topic, doc) query pair: the code of the only group whose runs (among ``runs``) retrieved it within
    ``depth`` (an int or a per-topic (T,) array), -1 if two or more groups did, -2 if none did.

    ``codes`` (S,) int group code of every run of the collection. Vectorized: one sort of the (topic, doc,
    group) entries of the runs' top ranks, min and max group per document.
    """
    run_idx = collection._indices(runs, collection.run_names, "runs")
    T, V = collection.n_topics, len(collection.vocabulary)
    depth = np.broadcast_to(np.asarray(depth, np.int64), (T,))
    D = int(min(depth.max(initial=0), collection.depth))
    docs = collection.docs[run_idx, :, :D]
    ranks = np.arange(D)[None, None, :]
    mask = (docs >= 0) & (ranks < depth[None, :, None])
    s, t, _ = np.nonzero(mask)
    key = t.astype(np.int64) * V + docs[mask]
    grp = np.asarray(codes, np.int64)[run_idx[s]]
    order = np.lexsort((grp, key))
    key, grp = key[order], grp[order]
    first = np.ones(len(key), bool)
    first[1:] = key[1:] != key[:-1]
    starts = np.flatnonzero(first)
    ukey = key[starts]
    gmin = grp[starts]
    ends = np.append(starts[1:], len(key)) - 1
    gmax = grp[ends]
    sole = np.where(gmin == gmax, gmin, -1)
    query = np.asarray(topic, np.int64) * V + np.asarray(doc, np.int64)
    pos = np.minimum(np.searchsorted(ukey, query), max(len(ukey) - 1, 0))
    found = (len(ukey) > 0) & (ukey[pos] == query) if len(ukey) else np.zeros(len(query), bool)
    return np.where(found, sole[pos] if len(ukey) else -2, -2)


def _drop(qrels: JudgedSet, remove: np.ndarray) -> JudgedSet:
    keep = ~remove
    return JudgedSet(qrels.topic[keep], qrels.doc[keep], qrels.grade[keep],
                     None if qrels.stratum is None else qrels.stratum[keep], qrels.n_topics, qrels.n_docs)


def _rank_against(others_full: np.ndarray, value: np.ndarray, self_index: np.ndarray) -> np.ndarray:
    """1 + number of runs other than ``self_index[i]`` whose full score is strictly above ``value[i]``."""
    above = (others_full[None, :] > value[:, None]).sum(axis=1)
    self_above = others_full[self_index] > value
    return 1 + above - self_above


def leave_one_group_out(collection: Collection, sample: RelevanceSample, runs=None, map_matrix=None,
                        infap_matrix=None) -> pd.DataFrame:
    """Per held-out run: full and held-out MAP (pool) and infAP (sample), absolute score changes and rank
    changes (see the module docstring for the reading). ``runs``: the pooling runs (default: the judged runs,
    as the sample was built)."""
    if runs is None:
        runs = sample.params.get("runs", "judged")
    pool_runs = collection.judged_runs if isinstance(runs, str) and runs == "judged" else runs
    pool_idx = collection._indices(pool_runs, collection.run_names, "runs")
    groups = collection.runs_info["group"].astype(str).to_numpy()
    names, codes = np.unique(groups, return_inverse=True)
    map_matrix = pooled_map(collection, sample) if map_matrix is None else map_matrix
    infap_matrix = sample_infap(collection, sample) if infap_matrix is None else infap_matrix
    map_full, infap_full = _means(map_matrix), _means(infap_matrix)

    phase1 = sample.params["phase1_depth"]
    sole_pool = unique_group(collection, pool_idx, phase1, codes, sample.pool_qrels.topic, sample.pool_qrels.doc)
    sole_sample = unique_group(collection, pool_idx, sample.depth, codes, sample.qrels.topic, sample.qrels.doc)

    rows = []
    for g in np.unique(codes[pool_idx]):
        members = np.flatnonzero(codes == g)
        sub = collection.subset(runs=members)
        # a copy, not a view: evalkit.measures.inferred's entry index adds topic offsets in place to what it takes for its
        # own (T, S, D) copy, and for a single run (S = 1) that "copy" is a view of the collection's docs
        sub = replace(sub, docs=np.array(sub.docs, copy=True))
        m = _means(score_matrix(sub, "AP", _drop(sample.pool_qrels, sole_pool == g)))
        i = _means(trec_infap(sub, _drop(sample.qrels, sole_sample == g)))
        rows.append(pd.DataFrame({
            "run": collection.run_names[members], "group": names[g], "index": members,
            "judged": np.isin(members, pool_idx),
            "pool_docs_removed": int((sole_pool == g).sum()), "sample_docs_removed": int((sole_sample == g).sum()),
            "sample_judged_removed": int(((sole_sample == g) & (sample.qrels.grade >= 0)).sum()),
            "MAP_full": map_full[members], "MAP_held_out": m,
            "infAP_full": infap_full[members], "infAP_held_out": i,
        }))
    frame = pd.concat(rows, ignore_index=True)
    idx = frame["index"].to_numpy()
    for name, full in (("MAP", map_full), ("infAP", infap_full)):
        held = frame[f"{name}_held_out"].to_numpy()
        frame[f"{name}_change"] = frame[f"{name}_full"] - held
        frame[f"{name}_rank_full"] = _rank_against(full, full[idx], idx)
        frame[f"{name}_rank_held_out"] = _rank_against(full, held, idx)
        frame[f"{name}_rank_change"] = frame[f"{name}_rank_held_out"] - frame[f"{name}_rank_full"]
    return frame.drop(columns="index").set_index("run")


def logo_summary(frame: pd.DataFrame) -> pd.DataFrame:
    """The paper's table: per measure (MAP on the pool, infAP on the sample), mean absolute score change, mean
    relative change, mean and maximum absolute rank change over the held-out runs."""
    rows = []
    for name, label in (("MAP", "MAP (pool)"), ("infAP", "infAP (sample)")):
        change = frame[f"{name}_change"]
        full = frame[f"{name}_full"]
        rank = frame[f"{name}_rank_change"].abs()
        rows.append({
            "measure": label,
            "held-out runs": len(frame),
            "mean |score change|": change.abs().mean(),
            "mean relative change": (change.abs() / full.where(full > 0)).mean(),
            "max |score change|": change.abs().max(),
            "mean |rank change|": rank.mean(),
            "max |rank change|": rank.max(),
            "runs that move": int((rank > 0).sum()),
        })
    return pd.DataFrame(rows).set_index("measure")


# ----------------------------------------------------------------------------------------------------------------
# subsamples and the analyses of variance
# ----------------------------------------------------------------------------------------------------------------


def subsample_scores(collection: Collection, sample: RelevanceSample, n_subsamples: int = 100, seed=0,
                     progress: bool = False) -> np.ndarray:
    """(K, S, T) trec_eval infAP of every run on every topic for ``n_subsamples`` random subsamples of the
    phase-1 pool drawn at the sample's per-topic rates (:func:`evalkit.judging.relevance_sampling.pool_subsamples`:
    all subsamples drawn in one vectorized step; each is then scored)."""
    grades = pool_subsamples(sample.pool_qrels, sample.rate, n_subsamples, seed)
    out = np.empty((len(grades), collection.n_runs, collection.n_topics))
    iterator = range(len(grades))
    if progress:
        from tqdm.auto import tqdm

        iterator = tqdm(iterator, desc="subsamples")
    for k in iterator:
        out[k] = trec_infap(collection, subsample_qrels(sample.pool_qrels, grades[k]))
    return out


@dataclass(frozen=True)
class AnovaResult:
    """Two-way ANOVA of infAP by topic and sample.

    ``table``: the additive model infAP ~ topic + sample, runs as replicates (the paper's wording; rows topic,
    sample, residual: SS, df, MS, F, p). ``mixed``: the model with the topic x sample interaction, sample and topic
    tested against the interaction mean square (the error term when topics are a random sample of topics, so that
    a subsample that happens to miss a relevant document of one topic, which moves every run's score on that
    topic together, is not counted as a sample effect), the interaction against the within-cell (run) residual.
    ``topics``: per topic, effect = topic mean - grand mean, its t test in the additive model, ``significant``.
    """

    table: pd.DataFrame
    mixed: pd.DataFrame
    topics: pd.DataFrame
    alpha: float

    @property
    def sample_p(self) -> float:
        return float(self.table.loc["sample", "p"])

    @property
    def sample_p_mixed(self) -> float:
        return float(self.mixed.loc["sample", "p"])

    @property
    def topic_p(self) -> float:
        return float(self.table.loc["topic", "p"])

    @property
    def topics_significant(self) -> int:
        return int(self.topics.significant.sum())


def _finite_topics(scores: np.ndarray) -> np.ndarray:
    return np.isfinite(scores).all(axis=tuple(range(scores.ndim - 1)))


def _anova_frame(rows, error_of) -> pd.DataFrame:
    """rows: name -> (SS, df); error_of: name -> the row its F is tested against (or None)."""
    table = pd.DataFrame.from_dict(rows, orient="index", columns=["SS", "df"])
    table.index.name = "effect"
    table["MS"] = table.SS / table.df
    F, p = [], []
    for name in table.index:
        error = error_of.get(name)
        if error is None or not table.MS[error] > 0:
            F.append(np.nan), p.append(np.nan)
            continue
        f = table.MS[name] / table.MS[error]
        F.append(f), p.append(float(sps.f.sf(f, table.df[name], table.df[error])))
    table["F"], table["p"] = F, p
    return table


def anova_topic_sample(scores: np.ndarray, alpha: float = 0.05, topics=None) -> AnovaResult:
    """Two-way ANOVA of ``scores`` (K samples, S runs, T topics) by topic and sample with runs as replicates
    (balanced: sums of squares in closed form); see :class:`AnovaResult`. Topics with a NaN anywhere are left
    out."""
    scores = np.asarray(scores, np.float64)
    K, S, T0 = scores.shape
    keep = _finite_topics(scores)
    y = scores[:, :, keep]
    T = y.shape[2]
    grand = y.mean()
    topic_mean = y.mean(axis=(0, 1))
    sample_mean = y.mean(axis=(1, 2))
    cell = y.mean(axis=1)  # (K, T)
    ss_topic = K * S * ((topic_mean - grand) ** 2).sum()
    ss_sample = S * T * ((sample_mean - grand) ** 2).sum()
    ss_total = ((y - grand) ** 2).sum()
    ss_inter = S * ((cell - sample_mean[:, None] - topic_mean[None, :] + grand) ** 2).sum()
    ss_within = ((y - cell[:, None, :]) ** 2).sum()
    ss_res = max(ss_total - ss_topic - ss_sample, 0.0)
    df_topic, df_sample = T - 1, K - 1
    df_res = K * S * T - 1 - df_topic - df_sample
    table = _anova_frame({"topic": (ss_topic, df_topic), "sample": (ss_sample, df_sample),
                          "residual": (ss_res, df_res)}, {"topic": "residual", "sample": "residual"})
    mixed = _anova_frame({"topic": (ss_topic, df_topic), "sample": (ss_sample, df_sample),
                          "topic:sample": (ss_inter, df_topic * df_sample), "within": (ss_within, K * T * (S - 1))},
                         {"topic": "topic:sample", "sample": "topic:sample", "topic:sample": "within"})
    ms_res = table.MS["residual"]
    effect = topic_mean - grand
    se = np.sqrt(ms_res * (T - 1) / (T * K * S))
    with np.errstate(divide="ignore", invalid="ignore"):
        t_stat = effect / se
    p = 2 * sps.t.sf(np.abs(t_stat), df_res)
    labels = np.arange(T0) if topics is None else np.asarray(topics)
    topic_frame = pd.DataFrame({"mean": topic_mean, "effect": effect, "t": t_stat, "p": p, "significant": p < alpha},
                               index=pd.Index(labels[keep], name="topic"))
    return AnovaResult(table=table, mixed=mixed, topics=topic_frame, alpha=alpha)


def anova_per_run(scores: np.ndarray, run_names=None, alpha: float = 0.05) -> pd.DataFrame:
    """Per run, two-way ANOVA (without replication) of its (K samples x T topics) infAP table by topic and sample,
    vectorized over runs: ``F_sample``, ``p_sample``, ``F_topic``, ``p_topic``, ``sample_significant``, the mean
    infAP, and the lowest and highest mean infAP of any one subsample (``max_sample_mean``: the paper's "maximum
    average infAP in any sample"). A run constant across all cells gets NaN tests."""
    scores = np.asarray(scores, np.float64)
    keep = _finite_topics(scores)
    y = np.moveaxis(scores[:, :, keep], 1, 0)  # (S, K, T)
    S, K, T = y.shape
    grand = y.mean(axis=(1, 2))
    sample_mean = y.mean(axis=2)
    topic_mean = y.mean(axis=1)
    ss_sample = T * ((sample_mean - grand[:, None]) ** 2).sum(axis=1)
    ss_topic = K * ((topic_mean - grand[:, None]) ** 2).sum(axis=1)
    ss_total = ((y - grand[:, None, None]) ** 2).sum(axis=(1, 2))
    ss_res = np.maximum(ss_total - ss_sample - ss_topic, 0.0)
    df_res = (K - 1) * (T - 1)
    ms_res = ss_res / df_res
    with np.errstate(divide="ignore", invalid="ignore"):
        f_sample = np.where(ms_res > 0, (ss_sample / (K - 1)) / ms_res, np.nan)
        f_topic = np.where(ms_res > 0, (ss_topic / (T - 1)) / ms_res, np.nan)
    p_sample = sps.f.sf(f_sample, K - 1, df_res)
    p_topic = sps.f.sf(f_topic, T - 1, df_res)
    index = pd.Index(np.arange(S) if run_names is None else np.asarray(run_names), name="run")
    return pd.DataFrame({
        "mean_infAP": grand,
        "min_sample_mean": sample_mean.min(axis=1),
        "max_sample_mean": sample_mean.max(axis=1),
        "F_sample": f_sample,
        "p_sample": p_sample,
        "F_topic": f_topic,
        "p_topic": p_topic,
        "sample_significant": p_sample < alpha,
    }, index=index)


# ----------------------------------------------------------------------------------------------------------------
# titlestat
# ----------------------------------------------------------------------------------------------------------------

#: A short English stop list (articles, prepositions, auxiliaries) for title words.
STOPWORDS = frozenset(
    [
        "a", "an", "and", "are", "as", "at", "be", "been", "by", "for", "from", "has", "have", "in", "into", "is",
        "it", "its", "of", "on", "or", "that", "the", "their", "this", "to", "was", "were", "which", "with", "what",
        "how", "why", "when", "where", "who", "about",
    ]
)
_TOKEN = re.compile(r"[a-z0-9]+")


def _tokens(text: str, stem: Callable[[str], str] | None) -> set[str]:
    words = _TOKEN.findall(text.lower())
    return set(map(stem, words)) if stem else set(words)


def title_words(title: str, stopwords=STOPWORDS, stem: Callable[[str], str] | None = None) -> list[str]:
    """The distinct words of a title that titlestat counts: lower-cased alphanumeric tokens, stop words
    dropped, stemmed by ``stem`` if given, in order of first occurrence."""
    out = []
    for w in _TOKEN.findall(title.lower()):
        if w in stopwords:
            continue
        w = stem(w) if stem else w
        if w not in out:
            out.append(w)
    return out


def titlestat(titles: Mapping[str, str], documents: Mapping[str, Iterable[str]],
              text: Mapping[str, str] | Callable[[str], str], *, stopwords=STOPWORDS,
              stem: Callable[[str], str] | None = None) -> pd.DataFrame:
    """Buckley et al.'s titlestat per topic: the mean over the topic's title words of the fraction of
    ``documents[topic]`` (docnos) whose text contains the word.

    ``titles``: topic -> title; ``documents``: topic -> docnos (e.g. the judged relevant ones); ``text``: docno ->
    text, a mapping or a callable (the caller's text source: a dict, a database, a function reading a corpus).
    Returns per topic ``documents``, ``title_words``, ``titlestat`` (NaN for a topic without documents or
    title words). The collection's value is the mean over topics: ``frame.titlestat.mean()``.
    """
    get = text if callable(text) else text.__getitem__
    rows = []
    for topic, title in titles.items():
        words = title_words(title, stopwords, stem)
        docs = list(dict.fromkeys(documents.get(topic, ())))
        if words and docs:
            present = np.zeros(len(words))
            for docno in docs:
                tokens = _tokens(get(docno), stem)
                present += [w in tokens for w in words]
            value = float((present / len(docs)).mean())
        else:
            value = np.nan
        rows.append({"topic": topic, "documents": len(docs), "title_words": " ".join(words), "titlestat": value})
    return pd.DataFrame(rows).set_index("topic")


def titlestat_rel(collection: Collection, qrels: JudgedSet, titles: Mapping[str, str], text, mask=None,
                  **options) -> pd.DataFrame:
    """titlestat of the judged relevant documents (grade > 0) of ``qrels`` (aligned with ``collection``),
    optionally only the qrels lines where ``mask`` is True. ``titles`` keyed by the collection's topic ids."""
    chosen = qrels.grade > 0
    if mask is not None:
        chosen &= np.asarray(mask, bool)
    topics = collection.topics[qrels.topic[chosen]]
    docnos = collection.vocabulary[qrels.doc[chosen]]
    documents: dict[str, list[str]] = {}
    for t, d in zip(topics, docnos):
        documents.setdefault(str(t), []).append(str(d))
    return titlestat({str(k): v for k, v in titles.items()}, documents, text, **options)


def titlestat_sets(collection: Collection, sample: RelevanceSample, titles: Mapping[str, str], text,
                   **options) -> pd.DataFrame:
    """The paper's three titlestat_rel values: relevant documents of the phase-1 pool, of the sample, and of the
    sample outside the phase-1 pool ("sampled documents below rank 50"); mean over topics, paper beside."""
    sets = {
        "pool": titlestat_rel(collection, sample.pool_qrels, titles, text, **options),
        "sample": titlestat_rel(collection, sample.qrels, titles, text, **options),
        "sample_below_50": titlestat_rel(collection, sample.qrels, titles, text, mask=~sample.in_phase1, **options),
    }
    return pd.DataFrame({"paper": pd.Series(PAPER_TITLESTAT),
                         "kit": pd.Series({k: v.titlestat.mean() for k, v in sets.items()})})


def titlestat_example() -> dict:
    """A tiny made-up example: two topics' titles, the texts of nine documents, and two judged relevant sets
    (``pool``: what a shallow pool found; ``sample_below``: what deep sampling added). Hand-computed titlestat:
    pool 0.9167 (topic 1 "solar eclipse": solar in 2 of 3 documents, eclipse in 3 of 3, (2/3 + 3/3) / 2 =
    0.8333; topic 2 "honey bee decline": every word in both documents, 1.0); sample_below 0.2083 (topic 1: solar
    in 0 of 2, eclipse in 1 of 2, 0.25; topic 2: honey in 1 of 2, bee and decline in none ("bumblebees" is another
    word), 1/6)."""
    titles = {"1": "Solar eclipse", "2": "Honey bee decline"}
    texts = {
        "d1": "A total solar eclipse crossed the Pacific on Tuesday.",
        "d2": "Astronomers gathered to watch the eclipse from a ship.",
        "d3": "The solar eclipse of 1919 confirmed general relativity.",
        "d4": "The Moon blocked the Sun over the Andes for four minutes.",
        "d5": "Eclipse chasers travel the world for totality.",
        "e1": "Honey bee colonies show a steep decline in Europe.",
        "e2": "Beekeepers report honey bee decline after a wet spring.",
        "e3": "Pesticides are blamed for collapsing honey production.",
        "e4": "Wild pollinators such as bumblebees are vanishing too.",
    }
    return {
        "titles": titles,
        "texts": texts,
        "pool": {"1": ["d1", "d2", "d3"], "2": ["e1", "e2"]},
        "sample_below": {"1": ["d4", "d5"], "2": ["e3", "e4"]},
    }


# ----------------------------------------------------------------------------------------------------------------
# the whole study
# ----------------------------------------------------------------------------------------------------------------


def plan(collection: Collection, phase1_depth: int = DEFAULTS["phase1_depth"], n_subsamples: int = 100) -> Plan:
    """What the study needs from ``collection``, and the depths it will use there.

    Needs: at least 2 judged runs from at least 2 groups (the pool, Figure 1's tau, leaving one group out); at
    least 2 topics (the ANOVAs' topic effect); judgments deeper than the phase-1 depth (the sample reaches below the phase-1 pool). The paper's phase-1 depth (50) is half of TREC-8's
    judged depth; on a collection judged less than 100 deep it becomes ``round(50 * judged depth / 100)`` (at most
    judged depth - 1), and the note says so; a phase-1 depth the user set is checked. The sample's depth is capped
    at the judged depth. ``n_subsamples`` < 2 is a ValueError (the ANOVA's sample effect needs two). Parameters:
    ``phase1_depth``, ``max_depth`` (the cap), ``n_subsamples``.
    """
    require_judged_runs(collection, 2, "to pool from (Figure 1's tau needs two pooling runs)")
    require_judged_groups(collection, 2, "to leave one group out")
    require_topics(collection, 2, "(the ANOVAs test a topic effect)")
    if int(n_subsamples) < 2:
        raise ValueError(f"n_subsamples must be >= 2 (the ANOVA's sample effect), got {n_subsamples}")
    judged = judged_depth_of(collection)
    require(judged is not None and judged >= 2, "judgments at least 2 ranks deep (a phase-1 pool and a sample "
            "below it)", f"judged depth {judged or 0}", "Give \"judged_depth\" in collection.json if the pools "
            "were deeper.")
    cap = min(judged, collection.depth)
    notes = []
    if int(phase1_depth) == DEFAULTS["phase1_depth"] and cap < REFERENCE_DEPTH:
        phase1 = min(scale_depth(phase1_depth, cap), cap - 1)
        notes.append(f"phase-1 depth {phase1} (the paper's 50 of TREC-8's 100, scaled to the judged depth {cap}); "
                     f"samples capped at depth {cap}")
    else:
        phase1 = int(phase1_depth)
        require(phase1 < cap, f"judgments deeper than the phase-1 depth (phase1_depth = {phase1}) to sample below "
                "it", f"judged depth {cap} ({collection.metadata.get('judged_depth_rule', 'derived')})",
                f"Set phase1_depth to at most {cap - 1}.")
    return Plan("02_soboroff2007", collection.name, {"phase1_depth": phase1, "max_depth": cap,
                                                     "n_subsamples": int(n_subsamples)}, notes)


@dataclass
class Study:
    """Everything the notebook shows: the sample, the score matrices, Figure 1, leave-one-group-out, ANOVAs."""

    sample: RelevanceSample
    statistics: pd.DataFrame
    map_matrix: np.ndarray
    infap_matrix: np.ndarray
    figure1: pd.DataFrame
    figure1_summary: pd.DataFrame
    logo: pd.DataFrame
    logo_summary: pd.DataFrame
    subsample_scores: np.ndarray
    anova: AnovaResult
    anova_runs: pd.DataFrame


def run_study(collection: Collection, runs=None, *, phase1_depth: int = DEFAULTS["phase1_depth"],
              rpt: float = DEFAULTS["rpt"], slope: float = DEFAULTS["slope"], budget: int = DEFAULTS["budget"],
              max_depth="judged", n_subsamples: int = 100, seed: int = 0, alpha: float = 0.05,
              progress: bool = False) -> Study:
    """The paper's whole computation on ``collection``. ``seed`` draws the sample; ``seed + 1`` the subsamples."""
    sample = relevance_sample(collection, runs, phase1_depth=phase1_depth, rpt=rpt, slope=slope, budget=budget,
                              max_depth=max_depth, seed=seed)
    map_matrix = pooled_map(collection, sample)
    infap_matrix = sample_infap(collection, sample)
    fig = figure1(collection, sample, map_matrix, infap_matrix)
    logo = leave_one_group_out(collection, sample, runs, map_matrix, infap_matrix)
    scores = subsample_scores(collection, sample, n_subsamples, seed + 1, progress)
    return Study(
        sample=sample,
        statistics=sample_statistics(sample),
        map_matrix=map_matrix,
        infap_matrix=infap_matrix,
        figure1=fig,
        figure1_summary=figure1_summary(fig),
        logo=logo,
        logo_summary=logo_summary(logo),
        subsample_scores=scores,
        anova=anova_topic_sample(scores, alpha, collection.topics),
        anova_runs=anova_per_run(scores, collection.run_names, alpha),
    )


def claims(study: Study, dataset: str) -> list:
    """The paper-versus-kit lines the notebook records (:func:`evalkit.claims.grading_claims`)."""
    from evalkit.claims import Claim

    paper = "Soboroff 2007"
    s = study.sample.summary()
    f = study.figure1_summary.kit
    lg = study.logo_summary
    a = study.anova
    runs_sig = int(study.anova_runs.sample_significant.sum())
    n_runs = len(study.anova_runs)
    map_rank, inf_rank = lg.loc["MAP (pool)", "mean |rank change|"], lg.loc["infAP (sample)", "mean |rank change|"]
    map_score, inf_score = lg.loc["MAP (pool)", "mean |score change|"], lg.loc["infAP (sample)", "mean |score change|"]
    tau = f["Kendall's tau (MAP pool vs infAP sample)"]
    note_design = "different collection (TB06/GOV2 vs this one); the depth is capped where judgments end"
    return [
        Claim(paper, "sample depth per topic (min-max, mean)", "57-1252, mean 314",
              f"{s['depth_min']}-{s['depth_max']}, mean {s['depth_mean']:.0f} ({s['topics_capped']} of "
              f"{s['topics']} topics capped at {study.sample.params['max_depth']})", dataset, "", note_design),
        Claim(paper, "sample documents (relevant) a topic", "492 (36)",
              f"{s['docs_per_topic']:.0f} ({s['relevant_per_topic']:.1f})", dataset, "", note_design),
        Claim(paper, f"sampled beyond the phase-1 pool (depth {study.sample.params['phase1_depth']}; paper: 50): "
              "documents (relevant) a topic", "211 (14)",
              f"{s['beyond_pool_docs']:.0f} ({s['beyond_pool_relevant']:.1f})", dataset,
              "yes" if abs(s["beyond_pool_docs"] - 200) < 30 else "partly",
              "documents follow from the rate (200 / new documents); relevant ones depend on the collection"),
        Claim(paper, "topics with >= 1 (>= 20) new relevant", "46 (10) of 50",
              f"{s['topics_with_new_relevant']} ({s['topics_with_20_new_relevant']}) of {s['topics']}", dataset, ""),
        Claim(paper, "Kendall's tau, MAP (pool) vs infAP (sample)", "0.8",
              f"{tau:.3f}", dataset, "yes" if 0.7 <= tau <= 0.9 else "partly"),
        Claim(paper, "runs whose infAP is not lower than MAP", "4",
              f"{int(f['runs with infAP >= MAP'])} of {int(f['runs'])}", dataset,
              "yes" if f["runs with infAP >= MAP"] <= 0.1 * f["runs"] else "partly", kind="direction"),
        Claim(paper, "leave one group out: infAP ranks move less than MAP ranks, scores change similarly",
              "qualitative (table not in the text)",
              f"mean |rank change| MAP {map_rank:.2f}, infAP {inf_rank:.2f}; mean |score change| "
              f"MAP {map_score:.4f}, infAP {inf_score:.4f}", dataset,
              "yes" if inf_rank < 0.9 * map_rank else "partly" if inf_rank <= map_rank else "no", kind="direction"),
        Claim(paper, "ANOVA over the subsamples: sample effect (infAP ~ topic + sample, runs as replicates)",
              "not significant at 0.05", f"p = {a.sample_p:.3g} ({study.subsample_scores.shape[0]} subsamples)",
              dataset, "yes" if a.sample_p >= 0.05 else "no",
              "runs share each subsample's qrels, so they are not independent replicates", kind="direction"),
        Claim(paper, "ANOVA: sample effect tested against the topic x sample interaction", "not significant at 0.05",
              f"p = {a.sample_p_mixed:.3g}", dataset, "yes" if a.sample_p_mixed >= 0.05 else "no",
              "the kit's second reading (topics as a random effect)", kind="direction"),
        Claim(paper, "ANOVA: topics with a significant effect", "45 of 50",
              f"{a.topics_significant} of {len(a.topics)}", dataset, ""),
        Claim(paper, "per-run ANOVA: runs with a significant sample effect", "2 (p = 0.016, 0.014)",
              f"{runs_sig} of {n_runs} (about {0.05 * n_runs:.0f} expected by chance at 0.05)", dataset, ""),
        Claim(paper, "titlestat_rel: pool, sample, sample below rank 50", "0.93, 0.899, 0.851",
              "not computable: run files carry no document text", dataset, "",
              "titlestat() is provided over a caller-supplied text source"),
    ]


# ----------------------------------------------------------------------------------------------------------------
# figures and the widget (kept here: they draw this paper's shapes)
# ----------------------------------------------------------------------------------------------------------------


def plot_depths(sample: RelevanceSample, ax=None, title: str | None = None):
    """Sample depth per topic (topics sorted by P(rel)): bars = the depth used, coloured by what set it (the
    linear fit, the "200 more documents" floor, the cap); dots = the depth before the cap; dashed lines = the
    phase-1 depth and the cap."""
    import matplotlib.pyplot as plt
    import seaborn as sns

    t = sample.table.sort_values("p_rel").reset_index()
    t["topic"] = t["topic"].astype(str)
    t["set by"] = np.where(t.capped, "cap", np.where(t.floor, "floor (+budget)", "linear fit"))
    ax = ax or plt.subplots(figsize=(10, 3.5))[1]
    sns.barplot(data=t, x="topic", y="depth", hue="set by", dodge=False, ax=ax,
                hue_order=["linear fit", "floor (+budget)", "cap"], palette=["C0", "C2", "C3"])
    ax.scatter(np.arange(len(t)), t.depth_uncapped, color="k", s=10, zorder=3, label="before the cap")
    ax.axhline(sample.params["phase1_depth"], color="0.4", ls="--", lw=0.8)
    ax.axhline(sample.params["max_depth"], color="C3", ls=":", lw=0.8)
    if t.depth_uncapped.max() > 4 * t.depth.max():
        ax.set_yscale("log")
    ax.set_xticks(ax.get_xticks())
    ax.set_xticklabels(t.topic, rotation=90, fontsize=6)
    ax.set_xlabel("topic (sorted by P(rel) in the phase-1 pool)")
    ax.set_ylabel("sample depth")
    ax.legend(fontsize=8, loc="upper left")
    p = sample.params
    ax.set_title(title or (f"rpt = {p['rpt']:.3g}, slope = {p['slope']:.3g} per {p['phase1_depth']} ranks: depth "
                           f"{int(t.depth.min())}-{int(t.depth.max())}, mean {t.depth.mean():.0f}, "
                           f"{int(t.capped.sum())} topics capped at {p['max_depth']}"), fontsize=10)
    return ax


def plot_figure1(frame: pd.DataFrame, ax=None, title: str | None = None, phase1_depth: int = 50):
    """The paper's Figure 1: each run's MAP on the phase-1 pool (x) against its infAP on the sample (y); dots =
    pooling runs, pluses = the others; tau, rho, RMS in the title."""
    from evalkit.display.plots import estimate_vs_truth

    lower = int(frame.lower.sum())
    text = title or f"infAP < MAP for {lower} of {len(frame)} runs"
    return estimate_vs_truth(frame.MAP_pool, frame.infAP_sample, frame.judged, ax=ax, title=text,
                             xlabel=f"MAP, depth-{phase1_depth} pool", ylabel="infAP, relevance-based sample")


def draw_design(collection: Collection, rpt: float = DEFAULTS["rpt"], phase1_depth: int = DEFAULTS["phase1_depth"],
                slope: float = DEFAULTS["slope"], budget: int = DEFAULTS["budget"], max_depth="judged", seed=0,
                map_cache: dict | None = None):
    """Draw a sample with these parameters and show its depths per topic beside the MAP / infAP scatter.
    ``map_cache`` (phase-1 depth -> (S, T) AP matrix) saves re-scoring the pool when only rpt or the slope move.
    Returns the sample."""
    import matplotlib.pyplot as plt

    sample = relevance_sample(collection, phase1_depth=phase1_depth, rpt=rpt, slope=slope, budget=budget,
                              max_depth=max_depth, seed=seed)
    if map_cache is not None and phase1_depth in map_cache:
        map_matrix = map_cache[phase1_depth]
    else:
        map_matrix = pooled_map(collection, sample)
        if map_cache is not None:
            map_cache[phase1_depth] = map_matrix
    frame = figure1(collection, sample, map_matrix)
    fig, axes = plt.subplots(1, 2, figsize=(14, 4.5), gridspec_kw={"width_ratios": [2.2, 1]})
    plot_depths(sample, ax=axes[0])
    plot_figure1(frame, ax=axes[1], phase1_depth=phase1_depth)
    fig.tight_layout()
    plt.show()
    return sample


def explorer(collection: Collection, rpt: float = DEFAULTS["rpt"], phase1_depth: int = DEFAULTS["phase1_depth"],
             slope: float = DEFAULTS["slope"], budget: int = DEFAULTS["budget"], max_depth="judged", seed=0):
    """Sliders for rpt (new relevant per ``budget`` judgments), the phase-1 pool depth and the slope, redrawing
    :func:`draw_design` (depths per topic, MAP / infAP scatter)."""
    import ipywidgets as widgets

    from evalkit.data.pools import judged_depth
    from evalkit.display.widgets import interactive_figure

    cap = judged_depth(collection) if max_depth == "judged" else (collection.depth if max_depth is None
                                                                  else int(max_depth))
    if cap < 2:
        raise ValueError(f"{collection.name}: judgments reach depth {cap}; the explorer needs a phase-1 pool and "
                         "a sample below it (see plan())")
    cache: dict = {}
    relevant = widgets.IntSlider(value=round(rpt * budget), min=1, max=max(2, budget // 2),
                                 description=f"rel / {budget}", continuous_update=False)
    step = 5 if cap >= 50 else 1  # 5-rank steps on TREC-8-deep pools, single ranks on shallow ones
    depth = widgets.IntSlider(value=min(phase1_depth, cap - 1), min=step, max=cap - 1, step=step,
                              description="phase-1 depth", continuous_update=False)
    fall = widgets.FloatSlider(value=slope, min=0.005, max=0.1, step=0.005, readout_format=".3f",
                               description="slope", continuous_update=False)
    return interactive_figure(
        lambda relevant, depth, fall: draw_design(collection, relevant / budget, depth, fall, budget, cap, seed,
                                                  cache),
        relevant=relevant, depth=depth, fall=fall,
    )


# ------------------------------------------------------------------------------------------ run-size presets

#: the notebook's sizes per preset (:mod:`evalkit.papers.settings`): "paper" is the paper's 100 subsamples for the
#: ANOVA; "class" uses 30 (the ANOVA's answer, no significant sample effect under the mixed model, is the same;
#: p-values are coarser); "fast" is the tests'
PRESETS = {
    "paper": {"n_subsamples": 100},
    "class": {"n_subsamples": 30},
    "fast": {"n_subsamples": 5},
}


def settings(preset: str = "paper", fast: bool = False, **given):
    """The notebook's sizes: :data:`PRESETS` ``[preset]`` (``"fast"`` when ``fast``), explicit values winning
    (:func:`evalkit.papers.settings.resolve`). Δ is then scaled to the collection by :func:`plan`."""
    from evalkit.papers.settings import resolve

    return resolve(PRESETS, preset, fast, **given)


__all__ += ["PRESETS", "settings"]
