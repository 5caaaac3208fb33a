"""Voorhees (2014), "The effect of sampling strategy on inferred measures" (SIGIR 2014 short paper).

Which sampling strategy builds the best inferred-measure test collection from a fixed budget of judgments?
Pure functions returning DataFrames; the sampling lives in :mod:`evalkit.judging.stratified_sampling`, the measures in
:mod:`evalkit.measures.inferred`, the significance tests and pair categories in :mod:`evalkit.stats`.

The experiment (Sec. 2), as :func:`run_experiment` runs it:

1. **Gold standard** (:func:`prepare`, once): MAP, NDCG@100 and P@10 of every run on the full qrels, the sign
   matrix of significantly different run pairs for each (two-tailed paired t-test over topics, alpha = 0.05), and
   the number of relevant documents R per topic.
2. **Trials** (50, through :func:`evalkit.parallel.run_trials`): in each, the judged runs (the runs that
   contributed to the base pools) are split at random in half; *the same half* feeds every strategy of the
   trial. Each strategy samples a judgment set from the base qrels using only that half's pool
   (:func:`evalkit.judging.stratified_sampling.sample`); every run of the collection (all 129 on TREC-8) is scored with infAP
   (xinfAP), infNDCG@100 and infP@10; each measure's significant pairs are classified against the gold ones
   (true positive, true negative, miss, false alarm, inversion; accuracy counts an inversion as a miss and a
   false alarm) and the estimated R̂ per topic is correlated with the gold R (Pearson).
3. **Tables**: :func:`table1` (mean judgment-set size), :func:`table2` (accuracy of the significant pairs: mean,
   min and max over trials, and the mean category counts), :func:`table3` (mean Pearson correlation of R̂ with
   R), :func:`figure1_data` (per topic R̂ over trials: min, max, mean, gold) and :func:`low_estimate_topics` (the
   topics whose mean R̂ under pool25 is below 20; the paper lists nine).

Seeds. Trial k gets ``run_trials``' k-th seed; the half-split is ``default_rng(trial_seed).permutation`` of the
judged runs, and each strategy's sample uses ``SeedSequence([trial_seed, crc32(strata)])`` so it depends only on
the trial and the strata (not on which other strategies are run, nor on their order): :func:`custom_trial` with
the strata of ``2strata`` reproduces the experiment's ``2strata`` sample of that trial. Same seed, same tables, on
any executor.

Reconstruction choices (the paper leaves them open; the notebook states them):

* Strategies: the paper's rates are not in our text (its strategy definitions are cut off). Presets of
  :data:`evalkit.judging.stratified_sampling.STRATEGIES`: pool15 [1-15]@100%; pool25 [1-25]@100%; 1stratum [1-100]@30%; 2strata
  [1-10]@100% + [11-100]@15%; 3strata [1-10]@100% + [11-30]@25% + [31-100]@5%; and the TREC 2012 Medical
  Records strategy [1-15]@100% + [16-100]@25% (the paper describes it for the 2012 collection and does not run it
  on TREC-8; here it is the sixth strategy). On TREC-8 these give judgment sets comparable to pool25 with
  1stratum the largest of the paper's five, as the paper says (see :func:`check_judgment_sizes`).
* Judged runs: ``collection.runs_info["judged"]`` (72 of the 129 TREC-8 runs, see :mod:`evalkit.data.datasets`); the
  half is ``floor(n / 2)`` of them.
* Scores: per topic, as sample_eval.pl and trec_eval give them; a topic without any sampled-qrels line (it cannot
  happen with a non-empty pool) would score 0 for every run.
* R̂ is sample_eval's ``inum_rel`` (:func:`evalkit.measures.inferred.estimated_relevant`); for a pool it is the number of
  relevant documents in the pool. The gold R is the count in the full qrels.

The paper's Tables 1-3 are not legible in our copy of the text (only their captions survive):
:data:`PAPER_TABLE1`, :data:`PAPER_TABLE2` and :data:`PAPER_TABLE3` record the statements the text makes about
them, and :data:`PAPER_LOW_R` the nine (gold, estimated) R pairs it prints for Figure 1.
"""

from __future__ import annotations

import time
import zlib
from dataclasses import dataclass, field, replace
from typing import Sequence

import numpy as np
import pandas as pd

from evalkit.data.collection import Collection
from evalkit.judging.stratified_sampling import (
    STRATEGIES,
    Strategy,
    Stratum,
    get_strategy,
    sample,
    scale_strategy,
)
from evalkit.measures.evaluation import score_matrix
from evalkit.measures.inferred import (
    JudgedPositions,
    estimated_relevant,
    inferred_measures,
    judged_positions,
)
from evalkit.papers.needs import (
    REFERENCE_DEPTH,
    Plan,
    judged_depth_of,
    require,
    require_judged_depth,
    require_judged_runs,
    require_topics,
    scale_depth,
)
from evalkit.parallel import run_trials, trial_collection
from evalkit.stats import (
    CATEGORY_NAMES,
    classify_significance,
    pearson,
    significant_pairs,
)

__all__ = [
    "DEFAULT_STRATEGIES",
    "PAPER_STRATEGIES",
    "MEASURES",
    "DEFAULT_SEED",
    "PAPER_TABLE1",
    "PAPER_TABLE2",
    "PAPER_TABLE3",
    "PAPER_LOW_R",
    "PAPER_LOW_R_CORRELATION",
    "PAPER_CONCLUSIONS",
    "Gold",
    "Voorhees2014Result",
    "plan",
    "prepare",
    "split_judged_runs",
    "strategy_seed",
    "evaluate_strategy",
    "run_trial",
    "run_experiment",
    "table1",
    "table2",
    "table2_wide",
    "table3",
    "figure1_data",
    "low_estimate_topics",
    "check_judgment_sizes",
    "compare_low_r",
    "claims",
    "custom_strategy",
    "custom_trial",
    "strategy_explorer",
]

#: the five strategies the paper runs on TREC-8, then the TREC 2012 Medical Records preset
PAPER_STRATEGIES = ("pool15", "pool25", "1stratum", "2strata", "3strata")
DEFAULT_STRATEGIES = PAPER_STRATEGIES + ("medical2012",)

#: the paper's measure name -> (inferred measure on the sample, gold measure on the full qrels)
MEASURES: dict[str, tuple[str, str]] = {
    "MAP": ("infAP", "AP"),
    "NDCG": ("infNDCG@100", "nDCG@100"),
    "P(10)": ("infP@10", "P@10"),
}

DEFAULT_SEED = 2014

_MISSING = "not legible in the paper text available here (only the caption survives)"

#: Table 1 (mean judgment-set size over 50 trials): the numbers are missing from our text; what the text says
PAPER_TABLE1 = {
    "caption": "mean judgment set size over the 50 trials for each sampling strategy",
    "values": None,
    "missing": _MISSING,
    "statements": [
        "the 1stratum strategy is the strategy with the largest judgment set size",
        "depth 25 is a better match for the other methods' judgment set sizes on TREC-8 (hence pool25 besides "
        "pool15, the depth TREC 2012 Medical can support)",
        "there is a wider spread in the range of judgment set sizes across the strategies than is ideal",
    ],
}

#: Table 2 (accuracy of the significant pairs, mean / min / max over 50 trials): numbers missing; statements
PAPER_TABLE2 = {
    "caption": "Accuracy of reproducing the set of significantly different run pairs",
    "values": None,
    "missing": _MISSING,
    "statements": [
        "1stratum is consistently the worst strategy for NDCG and P(10), only somewhat more competitive for MAP",
        "3strata is a poor choice (its behaviour on TREC-8 confirms it)",
        "on TREC-8 the pooling strategy is generally more accurate than 2strata, with a clear dependency on the "
        "pool depth",
        "on TREC 2012 Medical 2strata is more accurate than pooling",
    ],
}

#: Table 3 (mean Pearson correlation of estimated vs gold R): numbers missing; statements
PAPER_TABLE3 = {
    "caption": "Mean correlation between estimated and gold-standard R",
    "values": None,
    "missing": _MISSING,
    "statements": [
        "the estimated R values are highly correlated with the true R on TREC-8",
        "the pooling strategies exhibit the weakest correlations, weaker as the pool depth gets smaller",
        "correlations are weaker on TREC-8 than on TREC 2012 Medical",
    ],
}

#: Figure 1: the nine TREC-8 topics whose mean estimated R under pool25 is below 20 (topic ids not given). On
#: TREC-8 the kit finds eight of the pairs within 0.5 (topics 406, 409, 419, 430, 432, 433, 441, 444); the last
#: (gold 65, R̂ 16.0) fits no topic (410 has R = 65 but pool25 finds ~50 of them), while topic 447 (R 16, R̂ 16.0)
#: would fit if the 65 were a misprint; the printed r = 0.42 is computed with the 65, so the text is consistent.
PAPER_LOW_R = pd.DataFrame({
    "gold_R": [13, 22, 16, 6, 28, 13, 17, 17, 65],
    "mean_R_hat": [12.7, 17.8, 15.0, 6.0, 13.7, 9.8, 17.0, 17.0, 16.0],
})
#: "which has a correlation of just 0.42" (Pearson of the nine pairs above; it checks: 0.4200)
PAPER_LOW_R_CORRELATION = 0.42

#: the paper's conclusions, as the notebook sets them beside the kit's findings
PAPER_CONCLUSIONS = {
    "1stratum_worst": "1stratum is consistently the worst strategy for NDCG and P(10)",
    "3strata_poor": "3strata (a large, very sparsely sampled stratum) is a poor choice",
    "pool_weak_R": "pooling estimates R worst, and worse as the pool gets shallower",
    "pool_underestimates": "pool25 underestimates R for all but the smallest relevant sets (9 topics mean R̂ < 20)",
    "2strata_practical": "2strata (a fully judged top 10 plus a moderate-depth, moderate-rate stratum) is a "
                         "practical and effective strategy",
}


# ------------------------------------------------------------------------------------------------ needs


def plan(collection: Collection, strategies: Sequence[str | Strategy] = DEFAULT_STRATEGIES) -> Plan:
    """What the experiment needs from ``collection``, and the strategies it will run there.

    Needs: at least 2 judged runs (each trial pools from half of them, at least one run); at least 3 topics (the
    paired t-tests pair topics, and R̂ is correlated with R across topics); judgments as deep as the deepest
    stratum. The presets (:data:`evalkit.judging.stratified_sampling.STRATEGIES`) are written for TREC-8's depth-100 pools: on a
    collection judged less deep each is scaled to its judged depth (:func:`evalkit.judging.stratified_sampling.scale_strategy`;
    e.g. at depth 7, 2strata becomes [1-1]@1 + [2-7]@0.15), a preset with more strata than judged ranks is
    dropped, and the note says so. A strategy the user wrote (a Strategy or strategy text) is checked, not
    changed. Parameters: ``strategies`` (Strategy objects), ``judged_depth``, ``example`` (bottoms and rates of
    the notebook's custom-strategy example, [5, 60] @ [1, 0.2] scaled), and the explorer's ``slider_depth``
    (deepest rank), ``explorer_initial`` (2strata-like sliders, scaled) and ``explorer_reference`` (pool25 and
    2strata as run here).
    """
    k = require_judged_runs(collection, 2, "to split in half (each trial pools from half of them)")
    require_topics(collection, 3, "(the paired t-tests pair topics; R̂ is correlated with R across topics)")
    judged = judged_depth_of(collection)
    require(judged is not None, "judgments for the first rank of every judged run", "none",
            "Check the qrels file: the judged runs' first documents are not in it.")
    notes = []
    presets = [s for s in strategies if isinstance(s, str) and s in STRATEGIES]
    custom = [get_strategy(s) for s in strategies if not (isinstance(s, str) and s in STRATEGIES)]
    for strategy in custom:
        require_judged_depth(collection, strategy.depth, "strategies",
                             f"strategy {strategy.name!r} samples down to rank {strategy.depth}")
    scaled, dropped = [], []
    for name in presets:
        strategy = scale_strategy(STRATEGIES[name], judged)
        (scaled if strategy is not None else dropped).append(strategy or name)
    if judged < REFERENCE_DEPTH and presets:
        notes.append(f"the presets scaled to the judged depth {judged} (x{judged / REFERENCE_DEPTH:.2g}): "
                     + ", ".join(str(s) for s in scaled))
    if dropped:
        notes.append(f"dropped {', '.join(dropped)} (more strata than the {judged} judged ranks)")
    chosen = scaled + custom
    require(len(chosen) > 0, f"a sampling strategy that fits in the {judged} judged rank(s)",
            f"judged depth {judged}, too shallow for {', '.join(dropped)}",
            "Pass strategies with fewer strata (e.g. \"[1-1]@1\"), or set \"judged_depth\" in collection.json if "
            "the pools were deeper.")
    if k < 4:
        notes.append(f"each trial pools from {k // 2} of the {k} judged runs")
    example = [scale_depth(5, judged), max(scale_depth(60, judged), scale_depth(5, judged) + 1)]
    deep = min(REFERENCE_DEPTH, judged)
    return Plan("03_voorhees2014", collection.name, {
        "strategies": chosen, "judged_depth": judged, "example": (example, [1.0, 0.2]),
        "slider_depth": min(judged, 200),
        "explorer_initial": ((scale_depth(10, judged), 1.0), (deep, 0.15), (deep, 0.0)),
        "explorer_reference": [s for s in chosen if s.name in ("pool25", "2strata")]}, notes)


# ------------------------------------------------------------------------------------------------ gold


@dataclass(frozen=True)
class Gold:
    """What every trial compares with, computed once (:func:`prepare`).

    ``scores[measure]`` (S, T) gold scores on the full qrels and ``signs[measure]`` (S, S) int8 significance
    signs, keyed by the paper's measure names (:data:`MEASURES`); ``R`` (T,) relevant documents per topic;
    ``judged`` the indices of the judged runs (the runs a trial splits in half).
    """

    collection: Collection = field(repr=False)
    scores: dict
    signs: dict
    R: np.ndarray
    judged: np.ndarray
    alpha: float
    measures: tuple[str, ...]


def prepare(collection: Collection, alpha: float = 0.05, measures: Sequence[str] = tuple(MEASURES),
            gold: str = "auto") -> Gold:
    """Gold scores, significance sign matrices and R per topic of ``collection`` (see :class:`Gold`).

    ``gold="traditional"``: MAP, NDCG@100, P@10 and R counted on the full qrels (the paper's TREC-8 gold).
    ``gold="inferred"``: the inferred measures and R̂ computed with the full *sampled* qrels (the paper's TREC 2012
    Medical Records gold, whose base qrels are themselves a two-strata sample). ``"auto"`` picks "inferred" when
    the collection's qrels have a stratum column, else "traditional".
    """
    measures = tuple(measures)
    unknown = [m for m in measures if m not in MEASURES]
    if unknown:
        raise KeyError(f"unknown measure(s) {unknown}; choose from {list(MEASURES)}")
    if gold == "auto":
        gold = "inferred" if collection.qrels.sampled else "traditional"
    judged = np.flatnonzero(collection.judged_runs)
    if len(judged) < 2:
        raise ValueError(f"{collection.name}: need at least two judged runs to split in half, got {len(judged)}")
    if gold == "traditional":
        scores = {m: score_matrix(collection, MEASURES[m][1]) for m in measures}
        R = collection.qrels.counts(1).astype(np.float64)
    elif gold == "inferred":
        if not collection.qrels.sampled:
            raise ValueError("gold='inferred' needs sampled qrels (with a stratum column)")
        values = inferred_measures(collection, collection.qrels, [MEASURES[m][0] for m in measures])
        scores = {m: np.nan_to_num(values[MEASURES[m][0]], nan=0.0) for m in measures}
        R = estimated_relevant(collection.qrels)
    else:
        raise ValueError(f"gold must be 'auto', 'traditional' or 'inferred', got {gold!r}")
    signs = {m: significant_pairs(scores[m], alpha) for m in measures}
    return Gold(collection, scores, signs, R, judged, float(alpha), measures)


def _as_gold(data, alpha: float = 0.05) -> Gold:
    if isinstance(data, Gold):
        return data
    if isinstance(data, Collection):
        return prepare(data, alpha)
    raise TypeError(f"expected a Collection or a Gold from prepare(), got {type(data).__name__}")


# ----------------------------------------------------------------------------------------------- trials


def split_judged_runs(judged: np.ndarray, trial_seed: int) -> np.ndarray:
    """The half of the judged runs a trial pools from: ``floor(n/2)`` of them, drawn with
    ``default_rng(trial_seed)``, returned sorted (collection indices)."""
    judged = np.asarray(judged)
    rng = np.random.default_rng(trial_seed)
    return np.sort(rng.permutation(judged)[: len(judged) // 2])


def strategy_seed(trial_seed: int, strategy: Strategy) -> np.random.SeedSequence:
    """The seed of one strategy's sample in one trial: depends on the trial seed and the strata only."""
    text = " + ".join(map(str, strategy.strata))
    return np.random.SeedSequence([int(trial_seed), zlib.crc32(text.encode())])


def _judged_per_topic(qrels) -> np.ndarray:
    return np.bincount(qrels.topic[qrels.grade >= 0], minlength=qrels.n_topics)


def evaluate_strategy(gold: Gold, strategy: Strategy | str, half, trial_seed: int,
                      within: JudgedPositions | None = None) -> dict:
    """Sample one strategy from the pool of the runs ``half`` (indices), score every run with the inferred
    measures, compare with the gold. Returns ``judged`` (T,) judgments per topic, ``counts`` (M, 5) pair
    categories, ``accuracy`` (M,), ``r_hat`` (T,) and ``r_corr`` (Pearson of R̂ with the gold R).

    ``within``: :func:`evalkit.measures.inferred.judged_positions` of a sample from a pool of the same half at least as deep
    (:func:`run_trial` passes its deepest strategy's): the ranked documents are taken from it, not looked up again
    (same numbers)."""
    return _evaluate_strategy(gold, get_strategy(strategy), half, trial_seed, within)[0]


def _evaluate_strategy(gold: Gold, strategy: Strategy, half, trial_seed: int, within):
    """:func:`evaluate_strategy`, and the positions its scores used (``within`` if given, else its sample's)."""
    collection = gold.collection
    result = sample(collection, strategy, runs=half, seed=strategy_seed(trial_seed, strategy))
    if within is None:
        within = judged_positions(collection, result.qrels)
    names = [MEASURES[m][0] for m in gold.measures]
    values = inferred_measures(collection, result.qrels, names, within=within)
    counts = np.zeros((len(gold.measures), 5), np.int64)
    accuracy = np.zeros(len(gold.measures))
    for i, m in enumerate(gold.measures):
        scores = np.nan_to_num(values[MEASURES[m][0]], nan=0.0)
        c = classify_significance(gold.signs[m], significant_pairs(scores, gold.alpha))
        counts[i] = [c.true_positive, c.true_negative, c.miss, c.false_alarm, c.inversion]
        accuracy[i] = c.accuracy
    r_hat = estimated_relevant(result.qrels)
    return {
        "judged": _judged_per_topic(result.qrels),
        "counts": counts,
        "accuracy": accuracy,
        "r_hat": r_hat,
        "r_corr": pearson(r_hat, gold.R),
    }, within


def run_trial(trial_index: int, trial_seed: int, gold: Gold, strategies: Sequence[Strategy]) -> dict:
    """One trial (the ``fn`` of :func:`evalkit.parallel.run_trials`): split the judged runs in half, then for each
    strategy sample, score and compare. Returns arrays stacked over strategies: ``judged`` (K, T), ``counts``
    (K, M, 5), ``accuracy`` (K, M), ``r_hat`` (K, T), ``r_corr`` (K,), and the ``half`` used.

    The strategies are evaluated deepest first, and the others take the ranked documents of their samples from the
    deepest one's (:func:`evalkit.measures.inferred.judged_positions`: every sample of the trial is drawn from the same
    half's pool): one pass over all rankings a trial instead of one a strategy. Each strategy's sample has a seed of
    its own (:func:`strategy_seed`), so the order changes no number."""
    half = split_judged_runs(gold.judged, trial_seed)
    strategies = [get_strategy(s) for s in strategies]
    parts: list = [None] * len(strategies)
    within = None
    for i in sorted(range(len(strategies)), key=lambda i: -strategies[i].depth):
        parts[i], within = _evaluate_strategy(gold, strategies[i], half, trial_seed, within)
    out = {key: np.stack([p[key] for p in parts]) for key in parts[0]}
    out["half"] = half
    out["trial"] = trial_index
    out["seed"] = trial_seed
    return out


@dataclass(frozen=True)
class Voorhees2014Result:
    """The per-trial records of :func:`run_experiment`, as long DataFrames.

    ``sizes``: trial, strategy, topic, judged (judgments in the sample). ``pairs``: trial, strategy, measure, the
    five category counts, n_pairs, accuracy. ``r_hat``: trial, strategy, topic, r_hat, gold_R. ``correlation``:
    trial, strategy, pearson (R̂ vs R). ``splits``: trial, seed, runs (names of the half pooled from).
    """

    dataset: str
    strategies: tuple[Strategy, ...]
    measures: tuple[str, ...]
    trials: int
    seed: int
    alpha: float
    sizes: pd.DataFrame
    pairs: pd.DataFrame
    r_hat: pd.DataFrame
    correlation: pd.DataFrame
    splits: pd.DataFrame
    gold_R: pd.Series
    seconds: float = float("nan")

    @property
    def strategy_names(self) -> list[str]:
        return [s.name for s in self.strategies]


def _strategies(strategies) -> tuple[Strategy, ...]:
    out = tuple(get_strategy(s) for s in strategies)
    names = [s.name for s in out]
    if len(set(names)) != len(names):
        raise ValueError(f"strategy names must be distinct, got {names}")
    return out


def _frames(gold: Gold, strategies, records: list[dict]) -> dict:
    collection = gold.collection
    K, T, M = len(strategies), collection.n_topics, len(gold.measures)
    names = np.array([s.name for s in strategies], dtype=object)
    trials = np.array([r["trial"] for r in records])
    n = len(records)
    topics = collection.topics
    strat_cat = pd.CategoricalDtype(list(names), ordered=True)
    meas_cat = pd.CategoricalDtype(list(gold.measures), ordered=True)

    judged = np.stack([r["judged"] for r in records]) if n else np.zeros((0, K, T), np.int64)  # (n, K, T)
    r_hat = np.stack([r["r_hat"] for r in records]) if n else np.zeros((0, K, T))
    tk_t = np.repeat(trials, K * T)
    sk_t = pd.Categorical(np.tile(np.repeat(names, T), n), dtype=strat_cat)
    top_t = np.tile(topics, n * K)
    sizes = pd.DataFrame({"trial": tk_t, "strategy": sk_t, "topic": top_t, "judged": judged.ravel()})
    rh = pd.DataFrame({"trial": tk_t, "strategy": sk_t, "topic": top_t, "r_hat": r_hat.ravel(),
                       "gold_R": np.tile(gold.R, n * K)})

    counts = np.stack([r["counts"] for r in records]) if n else np.zeros((0, K, M, 5), np.int64)
    accuracy = np.stack([r["accuracy"] for r in records]) if n else np.zeros((0, K, M))
    pairs = pd.DataFrame({
        "trial": np.repeat(trials, K * M),
        "strategy": pd.Categorical(np.tile(np.repeat(names, M), n), dtype=strat_cat),
        "measure": pd.Categorical(np.tile(np.array(gold.measures, dtype=object), n * K), dtype=meas_cat),
    })
    flat = counts.reshape(-1, 5)
    for j, cat in enumerate(CATEGORY_NAMES):
        pairs[cat] = flat[:, j]
    pairs["n_pairs"] = flat.sum(axis=1)
    pairs["accuracy"] = accuracy.ravel()

    r_corr = np.stack([r["r_corr"] for r in records]) if n else np.zeros((0, K))
    correlation = pd.DataFrame({"trial": np.repeat(trials, K),
                                "strategy": pd.Categorical(np.tile(names, n), dtype=strat_cat),
                                "pearson": r_corr.ravel()})
    splits = pd.DataFrame({"trial": trials, "seed": [r["seed"] for r in records],
                           "runs": [" ".join(collection.run_names[r["half"]]) for r in records]})
    return {"sizes": sizes, "pairs": pairs, "r_hat": rh, "correlation": correlation, "splits": splits}


def run_experiment(
    data: Collection | Gold,
    strategies: Sequence[str | Strategy] = DEFAULT_STRATEGIES,
    trials: int = 50,
    seed: int = DEFAULT_SEED,
    alpha: float = 0.05,
    *,
    scheduler: str | None = None,
    n_jobs: int | None = None,
    progress: bool = False,
) -> Voorhees2014Result:
    """The paper's experiment: ``trials`` random half-splits of the judged runs, every strategy sampled from the
    same half, every run scored with infAP, infNDCG@100 and infP@10 (see the module docstring).

    ``data``: a collection, or a :class:`Gold` from :func:`prepare` (reuse it across calls; ``alpha`` is then
    the Gold's). ``strategies``: preset names, :class:`~evalkit.judging.stratified_sampling.Strategy` objects or strategy text.
    ``scheduler`` / ``n_jobs``: as :func:`evalkit.parallel.run_trials` (default: local processes, all CPUs).
    """
    started = time.perf_counter()
    gold = _as_gold(data, alpha)
    strats = _strategies(strategies)
    if not strats:
        raise ValueError("need at least one strategy")
    # trials read the document ids and qrels only: workers get the collection without scores or docno strings
    shipped = replace(gold, collection=trial_collection(gold.collection))
    records = run_trials(run_trial, int(trials), seed, args=(shipped, strats), scheduler=scheduler, n_jobs=n_jobs,
                         progress=progress, desc="Voorhees 2014 trials")
    frames = _frames(gold, strats, records)
    return Voorhees2014Result(
        dataset=gold.collection.name, strategies=strats, measures=gold.measures, trials=int(trials), seed=seed,
        alpha=gold.alpha, gold_R=pd.Series(gold.R, index=pd.Index(gold.collection.topics, name="topic"), name="R"),
        seconds=time.perf_counter() - started, **frames,
    )


# ----------------------------------------------------------------------------------------------- tables


def table1(result: Voorhees2014Result) -> pd.DataFrame:
    """Table 1: per strategy, the judgment-set size averaged over trials, per topic and in all (with the
    smallest and largest total over trials, and the strata for reference)."""
    total = result.sizes.groupby(["strategy", "trial"], observed=True)["judged"].sum()
    n_topics = result.sizes["topic"].nunique()
    by = total.groupby(level="strategy", observed=True)
    frame = pd.DataFrame({
        "per topic": by.mean() / n_topics,
        "total": by.mean(),
        "min total": by.min(),
        "max total": by.max(),
    })
    frame["strata"] = [" + ".join(map(str, s.strata)) for s in result.strategies if s.name in frame.index]
    frame.index = frame.index.astype(str)
    frame.index.name = "strategy"
    return frame


def table2(result: Voorhees2014Result) -> pd.DataFrame:
    """Table 2 (long): per strategy and measure, the accuracy's mean, min and max over trials and the mean count
    of each pair category (true positive, true negative, miss, false alarm, inversion)."""
    grouped = result.pairs.groupby(["strategy", "measure"], observed=True)
    frame = grouped["accuracy"].agg(["mean", "min", "max"])
    frame = frame.join(grouped[list(CATEGORY_NAMES) + ["n_pairs"]].mean())
    frame.index = frame.index.set_levels([frame.index.levels[0].astype(str), frame.index.levels[1].astype(str)])
    return frame


def table2_wide(result: Voorhees2014Result) -> pd.DataFrame:
    """Table 2 in the paper's layout: one row per strategy, (measure, mean/min/max) columns."""
    frame = table2(result)[["mean", "min", "max"]].unstack("measure")
    frame = frame.swaplevel(axis=1)
    measures = [m for m in result.measures]
    return frame.reindex(columns=pd.MultiIndex.from_product([measures, ["mean", "min", "max"]]))\
        .reindex([s.name for s in result.strategies])


def table3(result: Voorhees2014Result) -> pd.DataFrame:
    """Table 3: per strategy, the mean over trials of the Pearson correlation of R̂ with the gold R per topic (and
    its min and max)."""
    frame = result.correlation.groupby("strategy", observed=True)["pearson"].agg(["mean", "min", "max"])
    frame.index = frame.index.astype(str)
    return frame


def figure1_data(result: Voorhees2014Result, strategies: Sequence[str] = ("pool25", "2strata")) -> pd.DataFrame:
    """Figure 1: per strategy and topic, R̂ over the trials (min, max, mean) and the gold R. Topics in the
    collection's order."""
    present = [s for s in strategies if s in result.strategy_names]
    frame = result.r_hat[result.r_hat["strategy"].isin(present)]
    grouped = frame.groupby(["strategy", "topic"], observed=True, sort=False)
    out = grouped["r_hat"].agg(["min", "max", "mean"]).join(grouped["gold_R"].first().rename("gold"))
    out = out.reset_index()
    out["strategy"] = out["strategy"].astype(str)
    order = {t: i for i, t in enumerate(result.gold_R.index)}
    out["_t"] = out["topic"].map(order)
    out["_s"] = out["strategy"].map({s: i for i, s in enumerate(present)})
    return out.sort_values(["_s", "_t"]).drop(columns=["_s", "_t"]).reset_index(drop=True)


def low_estimate_topics(result: Voorhees2014Result, strategy: str = "pool25", threshold: float = 20.0
                        ) -> tuple[pd.DataFrame, float]:
    """The topics whose mean R̂ (over trials) under ``strategy`` is below ``threshold``: (topic, gold R, mean R̂)
    in topic order, and the Pearson correlation of the two columns (the paper: nine topics, r = 0.42)."""
    fig = figure1_data(result, [strategy])
    low = fig[fig["mean"] < threshold][["topic", "gold", "mean"]]
    low = low.rename(columns={"gold": "gold_R", "mean": "mean_R_hat"}).reset_index(drop=True)
    r = pearson(low["gold_R"], low["mean_R_hat"]) if len(low) >= 2 else float("nan")
    return low, r


def compare_low_r(result: Voorhees2014Result, strategy: str = "pool25") -> pd.DataFrame:
    """The paper's nine (gold R, mean R̂) pairs of Figure 1 (:data:`PAPER_LOW_R`; the paper gives no topic ids)
    beside the kit's topic with the same gold R whose mean R̂ under ``strategy`` is closest (a topic is used
    once; NaN where no topic has that gold R)."""
    fig = figure1_data(result, [strategy]).set_index("topic")
    used: set = set()
    rows = []
    for gold_r, est in PAPER_LOW_R.itertuples(index=False):
        cand = fig[(fig["gold"] == gold_r) & ~fig.index.isin(list(used))]
        if len(cand):
            topic = (cand["mean"] - est).abs().idxmin()
            used.add(topic)
            rows.append({"paper gold R": gold_r, "paper mean R̂": est, "kit topic": topic,
                         "kit gold R": fig.at[topic, "gold"], "kit mean R̂": fig.at[topic, "mean"],
                         "kit min R̂": fig.at[topic, "min"], "kit max R̂": fig.at[topic, "max"]})
        else:
            rows.append({"paper gold R": gold_r, "paper mean R̂": est, "kit topic": None})
    columns = ["paper gold R", "paper mean R̂", "kit topic", "kit gold R", "kit mean R̂", "kit min R̂", "kit max R̂"]
    return pd.DataFrame(rows).reindex(columns=columns)


def check_judgment_sizes(table: pd.DataFrame, paper_strategies: Sequence[str] = PAPER_STRATEGIES,
                         tolerance: float = 0.35) -> pd.DataFrame:
    """The issue's check of the reconstructed rates against the paper's statements on Table 1: is 1stratum the
    largest of the paper's strategies, and is every non-pool15 strategy within ``tolerance`` (relative) of
    pool25's mean size? One row per statement with the kit's numbers and a verdict."""
    sizes = table["per topic"]
    present = [s for s in paper_strategies if s in sizes.index]
    rows = []
    if "1stratum" in present:
        largest = sizes[present].idxmax()
        rows.append({"statement": "1stratum has the largest judgment set (of the paper's strategies)",
                     "kit": f"largest: {largest} ({sizes[largest]:.0f} per topic)",
                     "holds": largest == "1stratum"})
    if "pool25" in present:
        ref = sizes["pool25"]
        others = [s for s in present if s not in ("pool15", "pool25")]
        spread = {s: sizes[s] / ref - 1 for s in others}
        ok = all(abs(v) <= tolerance for v in spread.values())
        rows.append({"statement": f"sizes comparable to pool25 (within {tolerance:.0%})",
                     "kit": ", ".join(f"{s} {v:+.0%}" for s, v in spread.items()),
                     "holds": ok})
        if "pool15" in present:
            others_mean = np.mean([sizes[s] for s in others]) if others else np.nan
            closer = abs(ref - others_mean) <= abs(sizes["pool15"] - others_mean)
            rows.append({"statement": "depth 25 matches the other strategies' sizes better than depth 15",
                         "kit": f"pool15 {sizes['pool15']:.0f}, pool25 {ref:.0f}, others' mean {others_mean:.0f}",
                         "holds": bool(closer)})
    return pd.DataFrame(rows)


# -------------------------------------------------------------------------------- custom strategy (widget)


def custom_strategy(depths: Sequence[int], rates: Sequence[float], name: str = "custom") -> Strategy:
    """A strategy from stratum bottoms and rates: stratum i covers pool ranks ``depths[i-1]+1 .. depths[i]``
    (``depths`` increasing) at ``rates[i]``. A stratum with rate 0 (or an empty range) is left out: its
    documents are not pooled (a gap). E.g. ``custom_strategy([10, 100], [1, 0.15])`` is 2strata."""
    if len(depths) != len(rates):
        raise ValueError("depths and rates must have the same length")
    strata, lower = [], 0
    for depth, rate in zip(depths, rates):
        depth = int(depth)
        if depth > lower and rate > 0:
            strata.append(Stratum(lower + 1, depth, min(float(rate), 1.0)))
        lower = max(lower, depth)
    if not strata:
        raise ValueError("the custom strategy has no stratum with a positive rate")
    return Strategy(name, tuple(strata))


def custom_trial(data: Collection | Gold, strategy: Strategy | str, trial: int = 0, seed: int = DEFAULT_SEED,
                 trials: int = 50) -> pd.DataFrame:
    """One trial of one strategy, as the widget shows it: judgment-set size (per topic and total), accuracy of
    the significant pairs per measure, and the Pearson correlation of R̂ with R. ``trial`` / ``seed`` / ``trials``
    pick the same split (and, for the same strata, the same sample) as :func:`run_experiment` with that seed.
    One row per measure."""
    from evalkit.parallel import trial_seeds

    gold = _as_gold(data)
    strat = get_strategy(strategy)
    trial_seed = trial_seeds(seed, max(int(trials), int(trial) + 1))[int(trial)]
    half = split_judged_runs(gold.judged, trial_seed)
    part = evaluate_strategy(gold, strat, half, trial_seed)
    total = int(part["judged"].sum())
    frame = pd.DataFrame({
        "strategy": strat.name,
        "strata": " + ".join(map(str, strat.strata)),
        "measure": list(gold.measures),
        "judged total": total,
        "judged per topic": total / gold.collection.n_topics,
        "accuracy": part["accuracy"],
        "R̂ vs R pearson": part["r_corr"],
    })
    for j, cat in enumerate(CATEGORY_NAMES):
        frame[cat] = part["counts"][:, j]
    return frame


def _explorer_draw(gold, trial, seed, reference, **values):
    import matplotlib.pyplot as plt
    import seaborn as sns
    from IPython.display import display

    n = len(values) // 2
    try:
        strat = custom_strategy([values[f"d{i}"] for i in range(1, n + 1)], [values[f"r{i}"] for i in range(1, n + 1)])
    except ValueError as error:
        print(error)
        return
    started = time.perf_counter()
    row = custom_trial(gold, strat, trial=trial, seed=seed)
    seconds = time.perf_counter() - started
    frames = [row.assign(which="custom")]
    if reference is not None:
        frames.append(reference.assign(which=reference["strategy"]))
    both = pd.concat(frames, ignore_index=True)
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.2), gridspec_kw={"width_ratios": [3, 1]})
    sns.barplot(data=both, x="measure", y="accuracy", hue="which", ax=axes[0])
    low = max(0.0, float(both["accuracy"].min()) - 0.05)
    axes[0].set_ylim(low, 1.0)
    axes[0].set_title(f"{row['strata'].iloc[0]}: {row['judged per topic'].iloc[0]:.0f} judgments a topic "
                      f"({seconds:.1f} s)", fontsize=10)
    axes[0].legend(fontsize=8, loc="lower right")
    per = both.drop_duplicates("which")
    sns.barplot(data=per, x="which", y="R̂ vs R pearson", ax=axes[1])
    axes[1].set_ylim(max(0.0, float(per["R̂ vs R pearson"].min()) - 0.05), 1.0)
    axes[1].tick_params(axis="x", rotation=45)
    axes[1].set_xlabel("")
    plt.tight_layout()
    plt.show()
    display(row[["measure", "judged per topic", "accuracy", "R̂ vs R pearson"] + list(CATEGORY_NAMES)]
            .style.format({"judged per topic": "{:.1f}", "accuracy": "{:.3f}", "R̂ vs R pearson": "{:.3f}"}))


def strategy_explorer(data: Collection | Gold, trial: int = 0, seed: int = DEFAULT_SEED,
                      initial: Sequence[tuple[int, float]] = ((10, 1.0), (100, 0.15), (100, 0.0)),
                      reference: Sequence[str | Strategy] = ("pool25", "2strata"), max_depth: int = 200):
    """Sliders for a custom strategy of up to three strata (a depth and a rate each; stratum i covers the ranks
    below stratum i-1's depth down to its own; rate 0 leaves it out), re-running one trial live
    (:func:`custom_trial`) and plotting its accuracy and R̂ correlation beside the ``reference`` strategies on the
    same split. ``max_depth``: the sliders' deepest rank (the judged depth: see :func:`plan`); ``initial`` depths
    beyond it are cut to it."""
    import ipywidgets as widgets

    from evalkit.display.widgets import interactive_figure

    gold = _as_gold(data)
    ref = pd.concat([custom_trial(gold, r, trial=trial, seed=seed) for r in reference], ignore_index=True) \
        if reference else None
    controls = {}
    for i, (depth, rate) in enumerate(initial, start=1):
        controls[f"d{i}"] = widgets.IntSlider(value=min(int(depth), int(max_depth)), min=1, max=int(max_depth),
                                              step=1, description=f"stratum {i} to", continuous_update=False)
        controls[f"r{i}"] = widgets.FloatSlider(value=float(rate), min=0.0, max=1.0, step=0.01,
                                                description=f"rate {i}", continuous_update=False)
    from functools import partial

    draw = partial(_explorer_draw, gold, trial, seed, ref)
    # one row of sliders per stratum reads better than one long row
    rows = [[f"d{i}", f"r{i}"] for i in range(1, len(initial) + 1)]
    return interactive_figure(draw, rows=rows, **controls)


# ---------------------------------------------------------------------------------------- paper vs kit


def _rank_of(frame: pd.Series, name: str, ascending: bool = True) -> int:
    return int(frame.rank(ascending=ascending, method="min")[name])


def claims(result: Voorhees2014Result) -> list:
    """The paper's statements beside the kit's figures (:class:`evalkit.claims.Claim` rows for
    :func:`evalkit.claims.grading_claims`). Only statements whose strategies were run are included; the
    comparisons use the paper's five TREC-8 strategies (medical2012 is not one of them)."""
    from evalkit.claims import Claim

    paper = "Voorhees 2014"
    ds = result.dataset
    names = [s for s in PAPER_STRATEGIES if s in result.strategy_names]
    out = []
    t1 = table1(result)
    if "1stratum" in names and len(names) > 1:
        sizes = t1.loc[names, "per topic"]
        largest = sizes.idxmax()
        out.append(Claim(paper, "Table 1: 1stratum needs the largest judgment set", "largest (numbers not legible)",
                         ", ".join(f"{s} {v:.0f}" for s, v in sizes.items()) + " judgments/topic", ds,
                         "yes" if largest == "1stratum" else "no",
                         "strategy rates reconstructed (the paper's are cut off in our text)", kind="direction"))
    t2 = table2(result)["mean"]
    if "1stratum" in names and len(names) > 1:
        worst = {m: t2.xs(m, level="measure")[names].idxmin() for m in result.measures if m in ("NDCG", "P(10)")}
        if worst:
            acc = {m: t2.loc[("1stratum", m)] for m in worst}
            out.append(Claim(paper, "Table 2: 1stratum is consistently the worst for NDCG and P(10)", "worst",
                             "; ".join(f"{m}: worst {w} (1stratum {acc[m]:.3f})" for m, w in worst.items()), ds,
                             "yes" if all(w == "1stratum" for w in worst.values()) else "no", kind="direction"))
        if "MAP" in result.measures:
            r = _rank_of(t2.xs("MAP", level="measure")[names], "1stratum")
            out.append(Claim(paper, "Table 2: 1stratum only somewhat more competitive for MAP", "not the worst",
                             f"MAP accuracy {t2.loc[('1stratum', 'MAP')]:.3f}, rank {len(names) - r + 1} of "
                             f"{len(names)}", ds, "yes" if r > 1 else "no", kind="direction"))
    if {"3strata", "2strata"} <= set(names):
        diffs = {m: t2.loc[("3strata", m)] - t2.loc[("2strata", m)] for m in result.measures}
        below = all(d < 0 for d in diffs.values())
        out.append(Claim(paper, "Table 2: 3strata (large sparsely sampled stratum) is a poor choice", "poor",
                         "3strata - 2strata accuracy: " + ", ".join(f"{m} {d:+.3f}" for m, d in diffs.items()), ds,
                         "partly" if below else "no",
                         "below 2strata on every measure, but not the worst strategy" if below else "",
                         kind="direction"))
    pools = [s for s in ("pool15", "pool25") if s in names]
    if pools and "2strata" in names:
        parts, wins = [], 0
        for pname in pools:
            d = {m: t2.loc[(pname, m)] - t2.loc[("2strata", m)] for m in result.measures}
            wins += sum(v > 0 for v in d.values())
            parts.append(f"{pname} - 2strata: " + ", ".join(f"{m} {v:+.3f}" for m, v in d.items()))
        deeper = len(pools) == 2 and all(t2.loc[("pool25", m)] > t2.loc[("pool15", m)] for m in result.measures)
        total = len(pools) * len(result.measures)
        verdict = "yes" if wins > total / 2 and deeper else "partly" if wins or deeper else "no"
        out.append(Claim(paper, "Table 2 (TREC-8): pooling generally more accurate than 2strata, depending on depth",
                         "pool better, deeper pool better", "; ".join(parts) +
                         (f"; pool25 > pool15 on every measure: {deeper}" if len(pools) == 2 else ""), ds, verdict,
                         kind="direction"))
    t3 = table3(result)["mean"]
    if pools and len(names) > len(pools):
        others = [s for s in names if s not in pools]
        weakest = all(t3[p] < t3[o] for p in pools for o in others)
        monotone = len(pools) < 2 or t3["pool15"] < t3["pool25"]
        out.append(Claim(paper, "Table 3: pooling gives the weakest R̂ correlation, weaker as the pool gets shallower",
                         "weakest; pool15 < pool25", ", ".join(f"{s} {t3[s]:.3f}" for s in names), ds,
                         "yes" if weakest and monotone else "partly" if weakest or monotone else "no",
                         kind="direction"))
    if "pool25" in result.strategy_names:
        fig = figure1_data(result, ["pool25"])
        big = fig[fig["gold"] > 20]
        under = int((big["mean"] < 0.95 * big["gold"]).sum())
        ratio = float((big["mean"] / big["gold"]).mean()) if len(big) else float("nan")
        out.append(Claim(paper, "Figure 1: pool25 underestimates R for all but the smallest relevant sets",
                         "underestimates", f"mean R̂ < 0.95 R on {under} of {len(big)} topics with R > 20 "
                         f"(mean R̂/R = {ratio:.2f})", ds,
                         "yes" if len(big) and under >= 0.9 * len(big) else "partly" if under else "no",
                         kind="direction"))
        low, r = low_estimate_topics(result, "pool25")
        matched = compare_low_r(result, "pool25")
        close = int(((matched["kit mean R̂"] - matched["paper mean R̂"]).abs() <= 0.5).sum())
        out.append(Claim(paper, "Figure 1: topics with mean pool25 R̂ < 20 and the correlation of their R̂ with R",
                         f"{len(PAPER_LOW_R)} topics, r = {PAPER_LOW_R_CORRELATION:.2f}",
                         f"{len(low)} topics ({', '.join(map(str, low['topic']))}), r = {r:.2f}; "
                         f"{close} of the paper's 9 (R, R̂) pairs found within 0.5", ds,
                         "partly" if close >= 5 else "no",
                         "compare_low_r matches the paper's pairs to topics by gold R (the paper's topics are "
                         "TREC-8's)"))
    if "2strata" in names and len(names) > 1:
        mean_acc = t2.groupby(level="strategy").mean()[names]
        r_acc = _rank_of(mean_acc, "2strata", ascending=False)
        r_r = _rank_of(t3[names], "2strata", ascending=False)
        out.append(Claim(paper, "Conclusion: 2strata is a practical and effective strategy", "recommended",
                         f"2strata: mean accuracy rank {r_acc}/{len(names)}, R̂ correlation rank {r_r}/{len(names)}, "
                         f"{t1.loc['2strata', 'per topic']:.0f} judgments/topic", ds,
                         "yes" if r_acc <= 2 and r_r <= 2 else "partly", kind="direction"))
    return out


# ------------------------------------------------------------------------------------------ run-size presets

#: the notebook's sizes per preset (:mod:`evalkit.papers.settings`): "paper" is Sec. 2's 50 trials; "class" draws the
#: same tables from 10 trials (the strategies' order on Tables 2-3 is stable from a few trials on TREC-8; the
#: min-max spreads are narrower); "fast" is the tests'
PRESETS = {
    "paper": {"trials": 50},
    "class": {"trials": 10},
    "fast": {"trials": 3},
}


def settings(preset: str = "paper", fast: bool = False, **given):
    """The notebook's sizes: :data:`PRESETS` ``[preset]`` (``"fast"`` when ``fast``), explicit values winning
    (:func:`evalkit.papers.settings.resolve`). The strategies are then scaled to the collection by :func:`plan`."""
    from evalkit.papers.settings import resolve

    return resolve(PRESETS, preset, fast, **given)


__all__ += ["PRESETS", "settings"]
