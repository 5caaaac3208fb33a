"""Soboroff (2007): the experiment, as pure functions returning arrays and DataFrames.

The relevance-based sample itself is :func:`evalkit.judging.relevance_sampling.relevance_sample`; here: the
sample's statistics beside the paper's (Sec. 2), the scores on the pool and the sample and Figure 1 (Sec. 3),
leave one group out (Sec. 5), the subsamples' infAP and the analyses of variance (Sec. 6). The whole computation
is :func:`evalkit.papers.soboroff2007.study.run_study`. The readings these functions make of the paper are in the
package docstring (:mod:`evalkit.papers.soboroff2007`).

The summaries a :class:`~evalkit.papers.soboroff2007.study.Study` holds (:func:`sample_statistics`,
:func:`figure1_summary`, :func:`logo_summary`, the ANOVAs) are here rather than in
:mod:`evalkit.papers.soboroff2007.tables`, so that imports flow one way (tables builds on this module, not the
reverse). Every random choice takes a seed (the subsamples are scored in this process, the rankings' judged
positions found once for all of them; no worker pool).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
from scipy import stats as sps

from evalkit.data.collection import Collection, JudgedSet
from evalkit.judging.relevance_sampling import RelevanceSample, pool_subsamples, subsample_qrels
from evalkit.measures.evaluation import score_matrix
from evalkit.measures.inferred import inferred_measures, trec_infap
from evalkit.measures.judged_positions import judged_positions
from evalkit.papers.soboroff2007.paper import PAPER_FIGURE1, PAPER_POOL, PAPER_SAMPLE
from evalkit.stats import kendall_tau, pearson

__all__ = [
    "AnovaResult",
    "anova_per_run",
    "anova_topic_sample",
    "figure1",
    "figure1_summary",
    "leave_one_group_out",
    "logo_summary",
    "pooled_map",
    "sample_infap",
    "sample_statistics",
    "subsample_scores",
    "unique_group",
]


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


@dataclass(frozen=True)
class _HeldOut:
    """One held-out group's part of leave one group out: its runs (``members``, a sub-collection ``sub`` of them
    with its own copy of ``docs``), the pool's and the sample's qrels lines it keeps, and where the kept sample
    lines stand in its runs (``positions``: every draw of the design has the same lines, so found once)."""

    code: int
    members: np.ndarray
    sub: Collection
    keep_sample: np.ndarray
    positions: object
    pool_removed: int
    sample_removed: int
    map_held_out: np.ndarray


def _held_out_groups(collection: Collection, sample: RelevanceSample, runs) -> tuple:
    """The groups to hold out (those with a pooling run) and each one's :class:`_HeldOut` part."""
    pool_runs = collection.judged_runs if isinstance(runs, str) and runs == "judged" else runs
    pool_idx = collection._indices(pool_runs, collection.run_names, "runs")
    groups = collection.runs_info["group"].astype(str).to_numpy()
    names, codes = np.unique(groups, return_inverse=True)
    phase1 = sample.params["phase1_depth"]
    sole_pool = unique_group(collection, pool_idx, phase1, codes, sample.pool_qrels.topic, sample.pool_qrels.doc)
    sole_sample = unique_group(collection, pool_idx, sample.depth, codes, sample.qrels.topic, sample.qrels.doc)
    parts = []
    for g in np.unique(codes[pool_idx]):
        members = np.flatnonzero(codes == g)
        sub = collection.subset(runs=members)
        # a copy, not a view: evalkit.measures.inferred's entry index adds topic offsets in place to what it takes
        # for its own (T, S, D) copy, and for a single run (S = 1) that "copy" is a view of the collection's docs
        sub = replace(sub, docs=np.array(sub.docs, copy=True))
        keep_sample = sole_sample != g
        positions = judged_positions(sub, _keep(sample.qrels, keep_sample))
        parts.append(_HeldOut(int(g), members, sub, keep_sample, positions, int((sole_pool == g).sum()),
                              int((sole_sample == g).sum()),
                              _means(score_matrix(sub, "AP", _keep(sample.pool_qrels, sole_pool != g)))))
    return names, codes, pool_idx, parts


def _keep(qrels: JudgedSet, keep: np.ndarray) -> JudgedSet:
    return JudgedSet(qrels.topic[keep], qrels.doc[keep], qrels.grade[keep],
                     None if qrels.stratum is None else qrels.stratum[keep], qrels.n_topics, qrels.n_docs)


def _trec_infap_within(collection: Collection, qrels: JudgedSet, positions) -> np.ndarray:
    """trec_eval's infAP (:func:`evalkit.measures.inferred.trec_infap`) with the rankings' judged positions found
    once for every draw of a design (the same values, bit for bit)."""
    return inferred_measures(collection, qrels, ["trec_infAP"], max_rank=None, within=positions)["trec_infAP"]


def _rank_against(others_full: np.ndarray, value: np.ndarray, self_index: np.ndarray) -> np.ndarray:
    """1 + number of runs other than ``self_index[i]`` whose full score is strictly above ``value[i]``."""
    above = (others_full[None, :] > value[:, None]).sum(axis=1)
    self_above = others_full[self_index] > value
    return 1 + above - self_above


def _logo_frame(names, codes, pool_idx, parts, map_full, infap_full, infap_held) -> pd.DataFrame:
    rows = []
    for part, held in zip(parts, infap_held):
        m = part.members
        rows.append(pd.DataFrame({
            "group": names[part.code], "index": m, "judged": np.isin(m, pool_idx),
            "pool_docs_removed": part.pool_removed, "sample_docs_removed": part.sample_removed,
            "MAP_full": map_full[m], "MAP_held_out": part.map_held_out,
            "infAP_full": infap_full[m], "infAP_held_out": held,
        }))
    frame = pd.concat(rows, ignore_index=True)
    idx = frame["index"].to_numpy()
    for name, full in (("MAP", map_full), ("infAP", infap_full)):
        held = frame[f"{name}_held_out"].to_numpy()
        frame[f"{name}_change"] = frame[f"{name}_full"] - held
        frame[f"{name}_rank_full"] = _rank_against(full, full[idx], idx)
        frame[f"{name}_rank_held_out"] = _rank_against(full, held, idx)
        frame[f"{name}_rank_change"] = frame[f"{name}_rank_held_out"] - frame[f"{name}_rank_full"]
    return frame


def leave_one_group_out(collection: Collection, sample: RelevanceSample, runs=None, map_matrix=None,
                        infap_matrix=None) -> pd.DataFrame:
    """Per held-out run: full and held-out MAP (pool) and infAP (sample), absolute score changes and rank
    changes (see the package docstring, :mod:`evalkit.papers.soboroff2007`, for the reading). ``runs``: the
    pooling runs (default: the judged runs, as the sample was built)."""
    if runs is None:
        runs = sample.params.get("runs", "judged")
    map_matrix = pooled_map(collection, sample) if map_matrix is None else map_matrix
    infap_matrix = sample_infap(collection, sample) if infap_matrix is None else infap_matrix
    names, codes, pool_idx, parts = _held_out_groups(collection, sample, runs)
    held = [_means(_trec_infap_within(p.sub, _keep(sample.qrels, p.keep_sample), p.positions)) for p in parts]
    frame = _logo_frame(names, codes, pool_idx, parts, _means(map_matrix), _means(infap_matrix), held)
    frame["run"] = collection.run_names[frame["index"].to_numpy()]
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
    all subsamples drawn in one vectorized step; each is then scored, the rankings' positions of the pool found
    once for all of them). ``progress``: a progress bar that moves as subsamples are scored."""
    grades = pool_subsamples(sample.pool_qrels, sample.rate, n_subsamples, seed)
    out = np.empty((len(grades), collection.n_runs, collection.n_topics))
    positions = judged_positions(collection, sample.pool_qrels)
    from tqdm.auto import tqdm

    for k in tqdm(range(len(grades)), desc="subsamples scored", disable=not progress):
        out[k] = _trec_infap_within(collection, subsample_qrels(sample.pool_qrels, grades[k]), positions)
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
    # sums of squares at the level of floating-point rounding are 0 (every subsample the same, e.g. at rate 1.0:
    # F would be a ratio of two rounding errors)
    noise = 1e-12 * max(ss_total, np.finfo(float).tiny)
    ss_sample, ss_inter, ss_res, ss_within = (v if v > noise else 0.0 for v in (ss_sample, ss_inter, ss_res,
                                                                                 ss_within))
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
