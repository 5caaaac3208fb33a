"""Carterette (2007), the experiment: the data every trial needs (:class:`TrialData`), one trial of Sec. 4.3
(:func:`carterette_trial`, module-level so that workers receive it by reference), the seeded trials
(:func:`run_experiment`, through :func:`evalkit.parallel.run_trials`), the kit's default aggregation prior and the
held-out table it was chosen from, and the studies behind the notebook's explanations: RTC's first re-estimation
(:func:`reestimation_diagnostics`), the variance of AP against Monte Carlo (:func:`variance_monte_carlo`,
:func:`footnote_check`), a pair worth watching (:func:`pick_pair`) and the toy example of Sec. 2.1
(:func:`toy_distribution`, :func:`ap_moments_table`). Pure functions: results are returned, never shown."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from evalkit.confidence import (
    ExpertAggregation,
    estimate_runs,
    incremental_pooling,
    judged_map,
    mtc,
    rtc,
)
from evalkit.data.collection import Collection, JudgedSet
from evalkit.measures import average_precision
from evalkit.papers.carterette2007.paper import PAPER_TOY
from evalkit.parallel import run_trials
from evalkit.stats import kendall_tau

#: the aggregation prior Beta(a, a) of :func:`carterette_trial` when none is given (a library default for calls
#: that name no prior, not a finding). The notebook never uses it unless its ``prior`` is set so: it chooses the
#: strength at run time on the collection it studies (:func:`choose_prior_by_topic_split`).
RTC_SMOOTHED = {"prior": (1000.0, 1000.0)}

@dataclass(frozen=True)
class TrialData:
    """What every trial needs, computed once: rankings cut at ``depth``, the qrels (the oracle), the true AP."""

    docs: np.ndarray  # (S, T, depth) int32
    qrels: JudgedSet
    true_ap: np.ndarray  # (S, T)
    run_names: np.ndarray
    name: str = "collection"

    @property
    def true_map(self) -> np.ndarray:
        return self.true_ap.mean(axis=1)

    def topics(self, indices, name: str | None = None) -> "TrialData":
        """The same runs on a subset of the topics (``indices`` into the topic axis), e.g. to choose a setting on
        some topics and report on the others."""
        indices = np.asarray(indices, np.int64)
        new_index = np.full(self.docs.shape[1], -1, np.int64)
        new_index[indices] = np.arange(len(indices))
        keep = new_index[self.qrels.topic] >= 0
        qrels = JudgedSet.from_arrays(new_index[self.qrels.topic[keep]].astype(np.int32), self.qrels.doc[keep],
                                      self.qrels.grade[keep], len(indices), self.qrels.n_docs)
        return TrialData(docs=np.ascontiguousarray(self.docs[:, indices]), qrels=qrels,
                         true_ap=self.true_ap[:, indices], run_names=self.run_names,
                         name=name or f"{self.name} ({len(indices)} topics)")

    @classmethod
    def from_collection(cls, collection: Collection, depth: int = 100) -> "TrialData":
        """Truncate at ``depth`` (the paper's 100) and compute the true AP (full qrels, lists cut at depth)."""
        cut = collection.truncate(depth)
        true_ap = average_precision(cut.grades(), cut.qrels.counts())
        return cls(
            docs=np.ascontiguousarray(cut.docs),
            qrels=cut.qrels,
            true_ap=true_ap,
            run_names=np.asarray(cut.run_names),
            name=cut.name,
        )


def _overlaps(universe, pairs: np.ndarray, kind: str) -> np.ndarray:
    ranked = universe.rank[:, : universe.n] > 0
    out = np.empty(len(pairs))
    n_topics = universe.n_topics
    for row, (i, j) in enumerate(pairs):
        both = np.bincount(universe.topic, weights=ranked[i] & ranked[j], minlength=n_topics)
        if kind == "jaccard":
            either = np.bincount(universe.topic, weights=ranked[i] | ranked[j], minlength=n_topics)
            out[row] = np.mean(np.divide(both, either, out=np.zeros(n_topics), where=either > 0))
        elif kind == "fraction":
            out[row] = np.mean(both / universe.depth)
        else:
            raise ValueError(f"overlap must be 'jaccard' or 'fraction'; got {kind!r}")
    return out


def carterette_trial(
    trial_index: int,
    trial_seed: int,
    data: TrialData,
    k: int = 10,
    c: int = 2,
    alpha: float = 0.95,
    every: int = 10,
    weighting: str = "expected",
    max_judgments: int | None = None,
    model: ExpertAggregation | None = None,
    overlap: str = "jaccard",
    rtc_experts: str = "original",
    run_mtc: bool = True,
) -> dict:
    """One trial of Sec. 4.3 (see the package docstring). Returns plain arrays: ``trial`` (a dict of scalars) and
    ``pairs`` (a dict of equal-length arrays, one entry per pair of the k runs).

    ``model`` is the RTC relevance model (default ``ExpertAggregation(**RTC_SMOOTHED)``); ``weighting`` the MTC
    document weight; ``max_judgments`` an optional budget for each algorithm; ``overlap`` "jaccard" or
    "fraction"; ``rtc_experts`` "original" or "all"; ``run_mtc=False`` skips MTC and IP (their columns are NaN:
    for studies of RTC alone, e.g. :func:`rtc_sweep`). ``shortest_list`` is the fewest documents either
    original run returns for a topic (in the top 100): MTC's p = 0.5 judges short lists harshly.
    ``p_mean_rtc``, ``p_range_rtc`` and ``p_sd_rtc`` describe RTC's fitted p over the k runs' unjudged documents
    (their mean, range and standard deviation); ``tau_constant_p`` is tau when every unjudged document gets their
    mean instead: what is left of RTC when its p do not vary.
    """
    rng = np.random.default_rng(trial_seed)
    runs = rng.choice(data.docs.shape[0], size=k, replace=False)
    docs = data.docs[runs]
    original = docs[:c]
    model = ExpertAggregation(**RTC_SMOOTHED) if model is None else model

    by_mtc = mtc(original, data.qrels, alpha, weighting=weighting, max_judgments=max_judgments) if run_mtc else None
    if rtc_experts == "original":  # the researcher has only her c systems while judging
        by_rtc = rtc(original, data.qrels, alpha, every=every, model=model, weighting=weighting, max_judgments=max_judgments)
    elif rtc_experts == "all":  # all k rankings serve as experts (and universe) while the first pairs are judged
        first_pairs = np.stack(np.triu_indices(c, k=1), axis=1)
        by_rtc = rtc(docs, data.qrels, alpha, pairs=first_pairs, every=every, model=model, weighting=weighting,
                     max_judgments=max_judgments)
    else:
        raise ValueError(f"rtc_experts must be 'original' or 'all'; got {rtc_experts!r}")
    est_rtc = estimate_runs(docs, by_rtc.judged, model)
    true_map = data.true_map[runs]
    # how much the fitted p of the unjudged documents vary, and what a constant p with their mean ranks
    universe = est_rtc.universe
    judged_here = np.zeros(universe.n, bool)
    position = universe.positions(by_rtc.order_topic, by_rtc.order_doc)
    judged_here[position[position >= 0]] = True
    fitted = est_rtc.p[:universe.n][~judged_here]
    p_mean = float(fitted.mean()) if len(fitted) else np.nan
    tau_constant = (kendall_tau(estimate_runs(docs, by_rtc.judged, p_mean).expected_map, true_map)
                    if len(fitted) else np.nan)
    if run_mtc:
        est_mtc = estimate_runs(docs, by_mtc.judged, 0.5)
        ip_map = judged_map(docs, incremental_pooling(original, data.qrels, by_mtc.n_judgments))
        mtc_p, mtc_emap = est_mtc.prob_negative, est_mtc.expected_map
        mtc_judged, mtc_relevant, mtc_status = by_mtc.n_judgments, int(by_mtc.order_label.sum()), by_mtc.status
        mtc_first, tau_mtc, tau_ip = float(by_mtc.prob_negative[0]), kendall_tau(mtc_emap, true_map), kendall_tau(ip_map, true_map)
    else:
        ip_map = np.full(k, np.nan)
        mtc_p, mtc_emap = np.full((k, k), np.nan), np.full(k, np.nan)
        mtc_judged, mtc_relevant, mtc_status, mtc_first, tau_mtc, tau_ip = -1, -1, "skipped", np.nan, np.nan, np.nan
    lengths = (original >= 0).sum(axis=2)  # (c, T) documents returned in the top 100

    first, second = np.triu_indices(k, k=1)
    pairs = np.stack([first, second], axis=1)
    n_original = (first < c).astype(int) + (second < c).astype(int)
    trial = {
        "trial": trial_index,
        "trial_seed": trial_seed,
        "runs": " ".join(data.run_names[runs]),
        "judged_mtc": mtc_judged,
        "judged_rtc": by_rtc.n_judgments,
        "relevant_mtc": mtc_relevant,
        "relevant_rtc": int(by_rtc.order_label.sum()),
        "status_mtc": mtc_status,
        "status_rtc": by_rtc.status,
        "first_pair_p_mtc": mtc_first,
        "first_pair_p_rtc": float(by_rtc.prob_negative[0]),
        "first_pair_true_delta": float(true_map[0] - true_map[1]),
        "shortest_list": int(lengths.min()),
        "tau_mtc": tau_mtc,
        "tau_rtc": kendall_tau(est_rtc.expected_map, true_map),
        "tau_ip": tau_ip,
        "p_mean_rtc": p_mean,
        "p_range_rtc": float(np.ptp(fitted)) if len(fitted) else np.nan,
        "p_sd_rtc": float(fitted.std()) if len(fitted) else np.nan,
        "tau_constant_p": tau_constant,
    }
    pair_rows = {
        "trial": np.full(len(pairs), trial_index),
        "i": first,
        "j": second,
        "run_i": data.run_names[runs][first],
        "run_j": data.run_names[runs][second],
        "n_original": n_original,
        "overlap": _overlaps(est_rtc.universe, pairs, overlap),
        "true_delta": true_map[first] - true_map[second],
        "p_mtc": mtc_p[first, second],
        "p_rtc": est_rtc.prob_negative[first, second],
        "emap_i_mtc": mtc_emap[first],
        "emap_j_mtc": mtc_emap[second],
        "emap_i_rtc": est_rtc.expected_map[first],
        "emap_j_rtc": est_rtc.expected_map[second],
        "ip_delta": ip_map[first] - ip_map[second],  # judged-only dMAP from IP's judgments (unjudged = nonrelevant)
    }
    return {"trial": trial, "pairs": pair_rows}


@dataclass
class ExperimentResults:
    """``trials``: one row a trial; ``pairs``: one row a (trial, pair of runs); ``params``: the settings."""

    trials: pd.DataFrame
    pairs: pd.DataFrame
    params: dict = field(default_factory=dict)


PAIR_TYPES = {2: "two original", 1: "one original", 0: "no original"}


def run_experiment(
    data: TrialData | Collection,
    n_trials: int = 100,
    seed: int = 2007,
    *,
    scheduler: str | None = None,
    n_jobs: int | None = None,
    progress: bool = True,
    **trial_kwargs,
) -> ExperimentResults:
    """Run ``n_trials`` trials of :func:`carterette_trial` through :func:`evalkit.parallel.run_trials`."""
    if isinstance(data, Collection):
        data = TrialData.from_collection(data)
    outputs = run_trials(
        carterette_trial, n_trials, seed, args=(data,), kwargs=trial_kwargs, scheduler=scheduler, n_jobs=n_jobs,
        progress=progress, desc="carterette2007",
    )
    trials = pd.DataFrame([o["trial"] for o in outputs])
    pairs = pd.concat([pd.DataFrame(o["pairs"]) for o in outputs], ignore_index=True) if outputs else pd.DataFrame()
    if len(pairs):
        pairs["pair_type"] = pairs["n_original"].map(PAIR_TYPES)
    return ExperimentResults(trials=trials, pairs=pairs, params={"n_trials": n_trials, "seed": seed, "data": data.name, **trial_kwargs})


def _tilted(universe, judged_mask, delta: float) -> np.ndarray:
    """p = 0.5 for every unjudged document, + delta for those only the first run retrieves, - delta for those
    only the second retrieves."""
    only_a = (universe.rank[0, :universe.n] > 0) & (universe.rank[1, :universe.n] == 0)
    only_b = (universe.rank[1, :universe.n] > 0) & (universe.rank[0, :universe.n] == 0)
    return np.clip(0.5 + delta * only_a - delta * only_b, 0.0, 1.0)


def reestimation_diagnostics(data: TrialData | Collection, n_trials: int = 20, seed: int = 2007, *, k: int = 10,
                             c: int = 2, alpha: float = 0.95, every: int = 10,
                             priors=((1.0, 1.0), (100.0, 100.0)), tilts=(0.005, 0.01, 0.02),
                             model_kwargs: dict | None = None) -> pd.DataFrame:
    """What RTC's first re-estimation does to the first pair (the two original runs), trial by trial.

    The same runs as :func:`run_experiment`'s trials (same seed). MTC makes the first ``every`` judgments (RTC's
    are identical up to there); then the pair's E[dMAP], SD[dMAP] and P(dMAP < 0) are computed with the unjudged
    documents at p = 0.5 (MTC), at the expert model's p for each Beta prior in ``priors``, and at p = 0.5 tilted by
    +-delta for each delta in ``tilts`` (+delta for documents only the first run retrieves, -delta for those only
    the second retrieves). Columns: trial, setting, mean p of the unjudged documents (all, first run's, second
    run's), tilt (first - second), E, SD, P(dMAP < 0), confidence, correct (predicted sign = true sign), judgments
    made (fewer than ``every`` when MTC was already confident), true dMAP."""
    from evalkit.parallel import trial_seeds

    if isinstance(data, Collection):
        data = TrialData.from_collection(data)
    model_kwargs = dict(model_kwargs or {})
    rows = []
    for trial, trial_seed in enumerate(trial_seeds(seed, n_trials)):
        rng = np.random.default_rng(trial_seed)
        runs = rng.choice(data.docs.shape[0], size=k, replace=False)
        original = data.docs[runs[:c]][:2]
        first = mtc(original, data.qrels, alpha, max_judgments=every)
        truth = float(data.true_map[runs[0]] - data.true_map[runs[1]])
        settings = [("p = 0.5 (MTC)", 0.5)]
        settings += [(f"expert model, Beta({a:g}, {b:g})", ExpertAggregation(prior=(float(a), float(b)), **model_kwargs))
                     for a, b in priors]
        for delta in tilts:
            settings.append((f"p = 0.5 tilted by ±{delta:g}", ("tilt", float(delta))))
        universe = None
        for name, probabilities in settings:
            if isinstance(probabilities, tuple):
                delta = probabilities[1]
                probabilities = (lambda u, mask, labels, d=delta: _tilted(u, mask, d))
            est = estimate_runs(original, first.judged, probabilities)
            universe = est.universe
            judged = np.zeros(universe.n, bool)
            position = universe.positions(first.order_topic, first.order_doc)
            judged[position[position >= 0]] = True
            p = est.p[:universe.n]
            ranked_a = universe.rank[0, :universe.n] > 0
            ranked_b = universe.rank[1, :universe.n] > 0
            mean_a = float(p[~judged & ranked_a].mean()) if (~judged & ranked_a).any() else np.nan
            mean_b = float(p[~judged & ranked_b].mean()) if (~judged & ranked_b).any() else np.nan
            prob = float(est.prob_negative[0, 1])
            rows.append({"trial": trial, "setting": name, "judgments": first.n_judgments,
                         "mean p": float(p[~judged].mean()) if (~judged).any() else np.nan,
                         "mean p(1 - p)": float((p * (1 - p))[~judged].mean()) if (~judged).any() else np.nan,
                         "mean p (first run)": mean_a, "mean p (second run)": mean_b, "tilt": mean_a - mean_b,
                         "E[dMAP]": float(est.delta_mean[0, 1]), "SD[dMAP]": float(np.sqrt(est.delta_variance[0, 1])),
                         "P(dMAP < 0)": prob, "confidence": max(prob, 1.0 - prob),
                         "correct": bool((prob >= 0.5) == (truth < 0)) if truth != 0 and "tilt" not in name else np.nan,
                         "true dMAP": truth})
    return pd.DataFrame(rows)


def _numerators(x: np.ndarray, columns: np.ndarray) -> np.ndarray:
    """(n_samples,) AP numerators N = sum_r X_r (1 + sum_{s<r} X_s) / r of the ranking whose documents are the
    ``columns`` of the relevance draws ``x`` (n_samples, U), in rank order."""
    xr = x[:, columns]
    return (xr * np.cumsum(xr, axis=1) / np.arange(1, len(columns) + 1)).sum(axis=1)


def variance_monte_carlo(data: TrialData, pair, p: float = 0.5, n_samples: int = 20_000, seed: int = 0) -> pd.DataFrame:
    """Carterette 2007 Sec. 2.1's Var[AP] (the four sums over |R|^2, :func:`evalkit.confidence.ap_moments`)
    against Monte Carlo draws of relevance (every unjudged document relevant with probability ``p``) for the two
    runs ``pair`` (indices into ``data``), topic by topic, in three settings:

    * **lone ranking**: the universe is the first run's own list, |R| = sum of its p;
    * **two-run universe**: the first run's AP with |R| over both runs' documents (what MTC/RTC compute);
    * **dAP** per topic and **dMAP** over all topics (what confidence uses).

    Rows: each setting, per topic (median, min and max over topics of the formula's variance divided by the Monte
    Carlo variance) and dMAP (one ratio). A ratio of 1 means the formula is right."""
    from evalkit.confidence import Universe, ap_moments, delta_ap_moments, estimate_runs

    docs = data.docs[list(pair)]
    universe = Universe.from_docs(docs)
    est = estimate_runs(docs, None, p)
    width = max(universe.width, 1)
    local = np.where(universe.local < width, universe.local, -1)  # (2, T, D) column in the topic's universe
    p_topic = np.where(universe.padded < universe.n, p, 0.0)  # (T, W)
    delta_formula = delta_ap_moments(local[0], local[1], p_topic)[1]  # (T,) Var[dAP_t]
    rng = np.random.default_rng(seed)
    n_topics = universe.n_topics
    ratios = {"lone ranking": [], "two-run universe": [], "dAP": []}
    sums = np.zeros(n_samples)
    for t in range(n_topics):
        start, stop = universe.starts[t], universe.starts[t + 1]
        size = stop - start
        if size == 0:
            continue
        x = (rng.random((n_samples, size)) < p).astype(np.float64)
        cols = [universe.index[r, t][universe.index[r, t] < universe.n] - start for r in range(2)]
        numerators = [_numerators(x, col) for col in cols]
        total = x.sum(axis=1)
        own = x[:, cols[0]].sum(axis=1)
        lone = np.divide(numerators[0], own, out=np.zeros(n_samples), where=own > 0)
        shared = np.divide(numerators[0], total, out=np.zeros(n_samples), where=total > 0)
        delta = np.divide(numerators[0] - numerators[1], total, out=np.zeros(n_samples), where=total > 0)
        sums += delta
        lone_formula = ap_moments(np.full(len(cols[0]), p))[1]
        if lone.var() > 0:
            ratios["lone ranking"].append(lone_formula / lone.var())
        if shared.var() > 0:
            ratios["two-run universe"].append(est.variance_ap[0, t] / shared.var())
        if delta.var() > 0:
            ratios["dAP"].append(delta_formula[t] / delta.var())
    rows = []
    for name in ("lone ranking", "two-run universe", "dAP"):
        v = np.asarray(ratios[name])
        rows.append({"quantity": "Var[dAP], per topic" if name == "dAP" else f"Var[AP], {name}", "topics": len(v), "median ratio": float(np.median(v)) if len(v) else np.nan,
                     "min ratio": float(v.min()) if len(v) else np.nan, "max ratio": float(v.max()) if len(v) else np.nan})
    map_mc = (sums / n_topics).var()
    ratio = float(est.delta_variance[0, 1] / map_mc) if map_mc > 0 else np.nan
    rows.append({"quantity": "Var[dMAP] (sum of the topics' Var[dAP] / T^2)", "topics": n_topics, "median ratio": ratio,
                 "min ratio": ratio, "max ratio": ratio})
    return pd.DataFrame(rows).set_index("quantity")


def footnote_check(sizes=(10, 30, 100, 300), p: float = 0.5, n_samples: int = 20_000, seed: int = 0) -> pd.DataFrame:
    """Footnote 1 says the formulas' error is a negligible O(n 2^-n). For a lone ranking of n documents, each
    relevant with probability ``p``: Var[AP] by the formula, by Monte Carlo, and their ratio, per n (the ratio
    would shrink towards 1 if the footnote held); ``mc_relative_se`` is the Monte Carlo variance's relative standard
    error, sqrt((kurtosis - 1) / n_samples), from which the claims take the ratio's interval."""
    from evalkit.confidence import ap_moments

    rng = np.random.default_rng(seed)
    rows = []
    for n in sizes:
        x = (rng.random((n_samples, n)) < p).astype(np.float64)
        numerator = _numerators(x, np.arange(n))
        total = x.sum(axis=1)
        ap = np.divide(numerator, total, out=np.zeros(n_samples), where=total > 0)
        formula = float(ap_moments(np.full(n, p))[1])
        variance = float(ap.var())
        kurtosis = float(((ap - ap.mean()) ** 4).mean() / variance**2) if variance > 0 else np.nan
        rows.append({"n": int(n), "formula Var[AP]": formula, "Monte Carlo Var[AP]": variance,
                     "formula / Monte Carlo": formula / variance if variance > 0 else np.nan,
                     "mc_relative_se": float(np.sqrt(max(kurtosis - 1.0, 0.0) / n_samples))})
    return pd.DataFrame(rows).set_index("n")


def pick_pair(data: TrialData, seed: int = 2007, alpha: float = 0.95, max_tries: int = 200) -> np.ndarray:
    """Two runs (indices) whose sign of dMAP MTC is *not* already sure of at zero judgments (confidence < alpha
    with every document at p = 0.5), drawn with ``seed``: a pair whose confidence curve has something to show."""
    rng = np.random.default_rng(seed)
    pair = rng.choice(data.docs.shape[0], size=2, replace=False)
    for _ in range(max_tries):
        prob = estimate_runs(data.docs[pair], None, 0.5).prob_negative[0, 1]
        if max(prob, 1.0 - prob) < alpha:
            return pair
        pair = rng.choice(data.docs.shape[0], size=2, replace=False)
    return pair


def _assignment_ap(upper: np.ndarray, x: np.ndarray) -> np.ndarray:
    """AP = x' triu(a) x / sum(x) for relevance assignments ``x`` (..., n); 0 where nothing is relevant."""
    total = x.sum(axis=-1)
    numerator = np.einsum("...i,ij,...j->...", x, upper, x)
    return np.divide(numerator, total, out=np.zeros_like(numerator), where=total > 0)


def toy_distribution(p=PAPER_TOY["p"], ranks=PAPER_TOY["ranks"], names=PAPER_TOY["documents"]) -> pd.DataFrame:
    """The distribution of AP over every relevance assignment of a small ranking, by enumeration (2^n rows).

    ``p[i]`` and ``ranks[i]`` (1-based; 0 = not ranked, which still counts in the denominator) are document i's
    probability of relevance and rank; the default is the paper's toy example (:data:`PAPER_TOY`). Columns: one
    0/1 column a document, ``relevant`` (their names), ``AP``, ``AP as a fraction`` and ``probability``.
    """
    from fractions import Fraction
    from itertools import product

    from evalkit.confidence import ap_coefficients

    p = np.asarray(p, np.float64)
    n = len(p)
    if n > 16:
        raise ValueError(f"enumeration is for n <= 16 documents; got {n}")
    names = tuple(names) if names is not None else tuple(f"d{i + 1}" for i in range(n))
    x = np.array(list(product((0.0, 1.0), repeat=n)))
    ap = _assignment_ap(np.triu(ap_coefficients(ranks)), x)
    table = pd.DataFrame(x.astype(int), columns=[f"X_{name}" for name in names])
    table["relevant"] = [", ".join(name for name, bit in zip(names, row) if bit) or "none" for row in x]
    table["AP"] = ap
    table["AP as a fraction"] = [str(Fraction(float(v)).limit_denominator(10_000)) for v in ap]
    table["probability"] = np.prod(np.where(x > 0, p, 1.0 - p), axis=1)
    return table


def ap_moments_table(p=PAPER_TOY["p"], ranks=PAPER_TOY["ranks"], n_samples: int = 200_000, seed: int = 0) -> pd.DataFrame:
    """E[AP] and Var[AP] of one ranking computed five ways, to show what the paper's formulas approximate.

    * ``exact AP`` -- enumeration of all 2^n relevance assignments (n <= 16): the true moments of AP = N / sum X;
    * ``Monte Carlo AP`` -- ``n_samples`` seeded draws of relevance (any n);
    * ``N / |R| exactly`` -- the exact moments of the numerator divided by the constant |R| = sum p (n <= 16):
      what the paper's formulas compute, with no further approximation;
    * ``paper, O(n^3) loops`` -- :func:`evalkit.confidence.ap_moments_reference`, the four sums as printed;
    * ``paper, O(n) prefix sums`` -- :func:`evalkit.confidence.ap_moments`, what MTC and RTC use.

    ``p[i]``, ``ranks[i]`` as in :func:`toy_distribution`. The last column is each variance over the true one
    (exact when n <= 16, else Monte Carlo).
    """
    from evalkit.confidence import (
        ap_coefficients,
        ap_moments,
        ap_moments_reference,
        exact_numerator_moments,
    )

    p = np.asarray(p, np.float64)
    ranks = np.asarray(ranks, np.int64)
    n = len(p)
    a = ap_coefficients(ranks)
    upper = np.triu(a)
    expected_relevant = p.sum()
    rows = []
    if n <= 16:
        from itertools import product

        x = np.array(list(product((0.0, 1.0), repeat=n)))
        weight = np.prod(np.where(x > 0, p, 1.0 - p), axis=1)
        ap = _assignment_ap(upper, x)
        mean = float(weight @ ap)
        rows.append(("exact AP (enumeration)", mean, float(weight @ (ap - mean) ** 2)))
    rng = np.random.default_rng(seed)
    total = total_sq = 0.0
    chunk = max(1, min(n_samples, 2_000_000 // max(n, 1)))
    for start in range(0, n_samples, chunk):
        size = min(chunk, n_samples - start)
        sample = _assignment_ap(upper, (rng.random((size, n)) < p).astype(np.float64))
        total += sample.sum()
        total_sq += (sample * sample).sum()
    mc_mean = total / max(n_samples, 1)
    rows.append((f"Monte Carlo AP ({n_samples:,} draws)", mc_mean, total_sq / max(n_samples, 1) - mc_mean**2))
    if n <= 16:
        numerator_mean, numerator_var = exact_numerator_moments(a, p)
        rows.append(("N / |R| exactly (what the formulas compute)", numerator_mean / expected_relevant,
                     numerator_var / expected_relevant**2))
    reference = ap_moments_reference(a, p, expected_relevant)
    rows.append(("paper's formulas, O(n^3) loops", float(reference[0]), float(reference[1])))
    by_rank = np.zeros(max(int(ranks.max(initial=0)), 1))
    ranked = ranks > 0
    by_rank[ranks[ranked] - 1] = p[ranked]
    fast = ap_moments(by_rank, expected_relevant)
    rows.append(("paper's formulas, O(n) prefix sums", float(fast[0]), float(fast[1])))
    table = pd.DataFrame(rows, columns=["method", "E[AP]", "Var[AP]"]).set_index("method")
    truth = table["Var[AP]"].iloc[0]
    table["Var / true Var"] = table["Var[AP]"] / truth if truth > 0 else np.nan
    return table
