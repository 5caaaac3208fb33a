"""Voorhees (2014): the experiment (Sec. 2) as pure functions: the gold standard (:func:`prepare`), one trial
(:func:`run_trial`, sent to the workers of :func:`evalkit.parallel.run_trials`), the trials run and gathered into
long frames (:func:`run_experiment`), and one trial of a strategy of the user's (:func:`custom_trial`). The steps,
the seeds and the reconstruction choices are described in the package docstring (:mod:`evalkit.papers.voorhees2014`).
"""

from __future__ import annotations

import time
import zlib
from dataclasses import dataclass, field, replace
from typing import Sequence

import numpy as np
import pandas as pd

from evalkit.data.collection import Collection
from evalkit.judging.stratified_sampling import Strategy, Stratum, get_strategy, sample
from evalkit.measures.evaluation import score_matrix
from evalkit.measures.inferred import estimated_relevant, ideal_dcg, inferred_measures
from evalkit.measures.judged_positions import JudgedPositions, judged_positions
from evalkit.parallel import run_trials, trial_collection
from evalkit.papers.voorhees2014.paper import DEFAULT_STRATEGIES, MEASURES
from evalkit.stats import (
    CATEGORY_NAMES,
    classify_significance,
    pearson,
    significant_pairs,
)

DEFAULT_SEED = 2014
#: NDCG's cut-off in :data:`MEASURES` (infNDCG@100 against nDCG@100)
NDCG_CUTOFF = int(MEASURES["NDCG"][0].rsplit("@", 1)[1])
#: the measures whose inferred value divides by an estimate of R (infAP by R̂, infNDCG by the ideal DCG of the
#: estimated grade counts); infP@10 does not use R̂
R_MEASURES = ("MAP", "NDCG")


# ------------------------------------------------------------------------------------------------ gold


@dataclass(frozen=True)
class Gold:
    """What every trial compares with, computed once (:func:`prepare`).

    ``scores[measure]`` (S, T) gold scores on the full qrels and ``signs[measure]`` (S, S) int8 significance
    signs, keyed by the paper's measure names (:data:`MEASURES`); ``R`` (T,) relevant documents per topic;
    ``judged`` the indices of the judged runs (the runs a trial splits in half); ``ideal`` (T,) the ideal DCG at
    NDCG's cut-off from the gold grade counts (what infNDCG's ideal list would be with R̂ exact: see
    :func:`with_gold_r`).
    """

    collection: Collection = field(repr=False)
    scores: dict
    signs: dict
    R: np.ndarray
    judged: np.ndarray
    alpha: float
    measures: tuple[str, ...]
    ideal: np.ndarray | None = None


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
    # the ideal DCG of the gold grade counts (a traditional gold's qrels are one stratum, every line judged:
    # the estimated counts are the counts); for an inferred gold, the full sample's estimate
    ideal = ideal_dcg(collection.qrels, NDCG_CUTOFF)
    return Gold(collection, scores, signs, R, judged, float(alpha), measures, ideal)



def with_gold_r(gold: Gold, measure: str, values: np.ndarray, r_hat: np.ndarray, ideal_hat: np.ndarray
                ) -> np.ndarray:
    """(S, T) scores of ``measure`` on a sample with the gold R in place of its estimate, the rest of the sample
    unchanged: what the paper's Sec. 4 remark ("the quality of the estimate of R has a bigger impact on infAP than
    it does on infNDCG") is about.

    xinfAP is a sum over the sampled relevant retrieved documents divided by R̂ (Yilmaz et al. 2008, Sec. 3;
    :mod:`evalkit.measures.inferred`), so with R it is ``infAP * R̂ / R``; infNDCG@k is the estimated DCG divided
    by the ideal DCG of the estimated grade counts, so with the gold counts it is ``infNDCG * ideal(R̂) /
    ideal(R)``. A topic whose gold R (or ideal DCG) is 0 scores 0, as it does in the gold. ``values``: the
    sample's (S, T) scores of ``measure``; ``r_hat`` / ``ideal_hat`` (T,) its estimates."""
    if measure == "MAP":
        factor = np.divide(r_hat, gold.R, out=np.zeros(len(gold.R)), where=gold.R > 0)
    elif measure == "NDCG":
        factor = np.divide(ideal_hat, gold.ideal, out=np.zeros(len(gold.R)), where=gold.ideal > 0)
    else:
        raise ValueError(f"{measure} does not use R̂; measures that do: {', '.join(R_MEASURES)}")
    return values * factor[None, :]


def as_gold(data, alpha: float = 0.05) -> Gold:
    """``data`` as a :class:`Gold`: a Gold as it is, a collection through :func:`prepare` (with ``alpha``)."""
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
    categories, ``accuracy`` (M,), ``r_hat`` (T,), ``r_corr`` (Pearson of R̂ with the gold R), and for the
    measures that use R̂ (NaN for the others) what R̂'s error does (:func:`with_gold_r`): ``score_shift`` (M,),
    how far the scores move when the gold R replaces R̂ (sum over runs and topics of |change|, relative to the sum
    of the gold scores), and ``accuracy_gold_r`` (M,), the accuracy with the gold R in place of R̂.

    ``within``: :func:`evalkit.measures.judged_positions.judged_positions` of a sample from a pool of the same half at least
    as deep (:func:`run_trial` passes its deepest strategy's): the ranked documents are taken from it, not looked up
    again (same numbers)."""
    return _evaluate_strategy(gold, get_strategy(strategy), half, trial_seed, within)[0]


def _evaluate_strategy(gold: Gold, strategy: Strategy, half, trial_seed: int, within):
    """:func:`evaluate_strategy`, and the positions its scores used (``within`` if given, else its sample's)."""
    collection = gold.collection
    result = sample(collection, strategy, runs=half, seed=strategy_seed(trial_seed, strategy))
    if within is None:
        within = judged_positions(collection, result.qrels)
    names = [MEASURES[m][0] for m in gold.measures]
    values = inferred_measures(collection, result.qrels, names, within=within)
    r_hat = estimated_relevant(result.qrels)
    ideal_hat = ideal_dcg(result.qrels, NDCG_CUTOFF) if gold.ideal is not None else None
    counts = np.zeros((len(gold.measures), 5), np.int64)
    accuracy = np.zeros(len(gold.measures))
    accuracy_gold_r = np.full(len(gold.measures), np.nan)
    score_shift = np.full(len(gold.measures), np.nan)
    for i, m in enumerate(gold.measures):
        scores = np.nan_to_num(values[MEASURES[m][0]], nan=0.0)
        c = classify_significance(gold.signs[m], significant_pairs(scores, gold.alpha))
        counts[i] = [c.true_positive, c.true_negative, c.miss, c.false_alarm, c.inversion]
        accuracy[i] = c.accuracy
        if m in R_MEASURES and ideal_hat is not None:
            exact = with_gold_r(gold, m, scores, r_hat, ideal_hat)
            total = float(gold.scores[m].sum())
            score_shift[i] = float(np.abs(exact - scores).sum()) / total if total > 0 else np.nan
            signs = significant_pairs(exact, gold.alpha)
            accuracy_gold_r[i] = classify_significance(gold.signs[m], signs).accuracy
    return {
        "judged": _judged_per_topic(result.qrels),
        "counts": counts,
        "accuracy": accuracy,
        "accuracy_gold_r": accuracy_gold_r,
        "score_shift": score_shift,
        "r_hat": r_hat,
        "r_corr": pearson(r_hat, gold.R),
    }, within


def run_trial(trial_index: int, trial_seed: int, gold: Gold, strategies: Sequence[Strategy]) -> dict:
    """One trial (the ``fn`` of :func:`evalkit.parallel.run_trials`): split the judged runs in half, then for each
    strategy sample, score and compare. Returns arrays stacked over strategies: ``judged`` (K, T), ``counts``
    (K, M, 5), ``accuracy`` (K, M), ``r_hat`` (K, T), ``r_corr`` (K,), and the ``half`` used.

    The strategies are evaluated deepest first, and the others take the ranked documents of their samples from the
    deepest one's (:func:`evalkit.measures.judged_positions.judged_positions`: every sample of the trial is drawn from the same
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
    five category counts, n_pairs, accuracy, and for MAP and NDCG what R̂'s error does (NaN for P(10), which does
    not use R̂; :func:`evaluate_strategy`): "accuracy with gold R" and "score shift with gold R". ``r_hat``:
    trial, strategy, topic, r_hat, gold_R. ``correlation``: trial, strategy, pearson (R̂ vs R). ``splits``: trial,
    seed, runs (names of the half pooled from). ``n_runs``: the runs scored (every run of the collection).
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
    n_runs: int = 0

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
    gold_r = np.stack([r["accuracy_gold_r"] for r in records]) if n else np.zeros((0, K, M))
    shift = np.stack([r["score_shift"] for r in records]) if n else np.zeros((0, K, M))
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
    pairs["accuracy with gold R"] = gold_r.ravel()
    pairs["score shift with gold R"] = shift.ravel()

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
    desc: str = "Voorhees 2014 trials",
) -> Voorhees2014Result:
    """The paper's experiment: ``trials`` random half-splits of the judged runs, every strategy sampled from the
    same half, every run scored with infAP, infNDCG@100 and infP@10 (see the package docstring,
    :mod:`evalkit.papers.voorhees2014`).

    ``data``: a collection, or a :class:`Gold` from :func:`prepare` (reuse it across calls; ``alpha`` is then
    the Gold's). ``strategies``: preset names, :class:`~evalkit.judging.stratified_sampling.Strategy` objects or
    strategy text.
    ``scheduler`` / ``n_jobs`` / ``progress``: as :func:`evalkit.parallel.run_trials` (default: local processes,
    all CPUs, no bar; a notebook passes ``progress=True``); ``desc`` labels the progress bar.
    """
    started = time.perf_counter()
    gold = as_gold(data, alpha)
    strats = _strategies(strategies)
    if not strats:
        raise ValueError("need at least one strategy")
    # trials read the document ids and qrels only: workers get the collection without scores or docno strings
    shipped = replace(gold, collection=trial_collection(gold.collection))
    records = run_trials(run_trial, int(trials), seed, args=(shipped, strats), scheduler=scheduler, n_jobs=n_jobs,
                         progress=progress, desc=desc)
    frames = _frames(gold, strats, records)
    return Voorhees2014Result(
        dataset=gold.collection.name, strategies=strats, measures=gold.measures, trials=int(trials), seed=seed,
        alpha=gold.alpha, gold_R=pd.Series(gold.R, index=pd.Index(gold.collection.topics, name="topic"), name="R"),
        seconds=time.perf_counter() - started, n_runs=int(gold.collection.n_runs), **frames,
    )


# ----------------------------------------------------------------------- custom strategy (the explorer's)


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

    gold = as_gold(data)
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
