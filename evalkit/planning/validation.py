"""Does a plan deliver what it promises? Realised power and CI coverage on a simulated population of topics.

A plan (:mod:`evalkit.planning.plan`) promises a power for the t-test at a difference ``delta``; checking that
needs more topics than any collection has. So (issue 29, item 2):

1. **population**: the simulator (:mod:`evalkit.data.simulator`) generates a collection of many topics (400+)
   with the same systems, judged like the collection it stands for (:func:`simulate_population`: ``"trec8"``, the
   parameters fitted to TREC-8, qrels = the depth-100 pool of the judged runs; ``"shallow"``, the reviewer preset
   of :func:`evalkit.data.simulator.write_collection`, qrels = the depth-7 pool of one run per group);
2. **plan** from a 50-topic draw of the population, as a track organiser would from last year's collection
   (``plan_draws`` independent draws, so one lucky draw decides nothing);
3. **realise**: draw ``draws`` topic sets of the planned size from the population (with replacement: each draw is
   an independent sample from the population's topic distribution, whose means are the truth), judge them with
   the planned design (one judging of every population topic, drawn once), and run the paired t-test and the
   100(1 - alpha)% CI on every pair of runs;
4. **report**: the realised power (significant, in the right direction) over the pairs whose true difference
   (population means under the reference judgments) is within [delta, (1 + band) delta), and over all pairs at
   least delta apart; the realised coverage of the CIs (of the design's own population difference); against the
   targets, within 5 points of the power and 3 of the coverage. The target power of the pairs at delta is what the
   plan promises for their true differences (``target power at these pairs``: the plan's power function, pooled
   variance and bias, at each pair's difference, averaged; slightly above the nominal target, since the band
   reaches above delta), so that the band's width does not pass for over-delivery.

Which assumptions the figures test (:func:`assumption_checks` puts numbers on each):

* **normality** of the per-topic differences: the t-test's size and the CI's coverage assume it; at the planned n
  the CLT mostly rescues skewed AP differences, and coverage below target shows where it does not;
* **equal variances**: the plan uses one pooled within-system variance (2 V_E for every pair); pairs whose
  difference varies more than that have less power than promised, pairs that vary less have more, and power is
  concave there, so heterogeneity lowers the average. ``predicted power (own variance)`` computes each pair's
  power with its own variance: realised power close to it and far from the target means the equal-variance
  assumption, not the t machinery, is what failed;
* **independence of topics**: the simulator draws topics independently and the draws are with replacement, so
  independence holds by construction and is *not* tested here (a collection whose topics come in related
  families would need a check on its own data).

Every random choice takes ``seed``; the same seed gives the same tables. The population is cached under
``$EVALKIT_CACHE`` (the simulation is the slow part).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats

from evalkit.data.collection import Collection
from evalkit.planning.designs import (
    DEFAULT_REPLICATES,
    Design,
    design_scores,
    design_variances,
    full_scores,
    sample_depth,
)
from evalkit.planning.plan import plan
from evalkit.planning.topic_set_size import ttest_power_with_bias

__all__ = ["POPULATIONS", "simulate_population", "ValidationResult", "validate", "realised_intervals", "pair_ttests",
           "assumption_checks", "POWER_TOLERANCE", "COVERAGE_TOLERANCE"]

#: how far from the target a realised figure may be and still count as delivered (issue 29)
POWER_TOLERANCE = 0.05
COVERAGE_TOLERANCE = 0.03

#: the populations: simulator arguments and how the collection they stand for was judged
POPULATIONS = {
    "trec8": {"simulate": {"n_runs": 129, "params": None, "graded": False}, "judged_depth": 100,
              "runs_depth": 1000, "about": "the simulator's TREC-8 fit; qrels = the depth-100 pool of the judged "
                                            "runs (TREC-8's rule)"},
    "shallow": {"simulate": {"n_runs": 143, "graded": True, "params": {
        "groups": {"size_pmf": [0.3, 0.25, 0.2, 0.15, 0.1], "judged_per_group": 1}}}, "judged_depth": 7,
                "runs_depth": 100, "about": "the reviewer preset 'shallow' (evalkit.data.simulator.write_collection: "
                                           "its 143 runs, grades 0-2); qrels = the depth-7 pool of one run per "
                                           "group"},
}


def simulate_population(kind: str = "trec8", n_topics: int = 400, seed: int = 0, runs_depth: int | None = None,
                        n_runs: int | None = None, cache: bool = True) -> Collection:
    """A population of ``n_topics`` topics (:data:`POPULATIONS`), judged like the collection it stands for: the
    simulator's complete judgments restricted to the judged runs' pool at the collection's judged depth
    (``metadata["judged_depth"]``). ``runs_depth``: how deep the runs go (default: the collection's; TREC-8's
    1000 takes about twice as long as 100); ``n_runs``: fewer runs than the collection's (the tests' sizes). The
    same arguments give the same collection; it is kept in the dataset cache (``$EVALKIT_CACHE``) unless ``cache``
    is False."""
    if kind not in POPULATIONS:
        raise ValueError(f"unknown population {kind!r}; populations: {', '.join(POPULATIONS)}")
    if int(n_topics) < 2:
        raise ValueError(f"n_topics must be at least 2, got {n_topics}")
    spec = json.loads(json.dumps(POPULATIONS[kind]))
    if n_runs is not None:
        if int(n_runs) < 2:
            raise ValueError(f"n_runs must be at least 2, got {n_runs}")
        spec["simulate"]["n_runs"] = int(n_runs)
    depth = int(runs_depth or spec["runs_depth"])
    name = f"{kind} population ({n_topics} simulated topics)"
    options = {"kind": kind, "n_topics": int(n_topics), "seed": int(seed), "depth": depth,
               "spec": hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()[:16]}
    where = None
    if cache:
        from pathlib import Path

        from evalkit.data.cache import cache_path, load_cached

        where = cache_path(f"population-{kind}", [], Path("."), options)
        cached = load_cached(where)
        if cached is not None:
            return cached
    from evalkit.data.pools import pool
    from evalkit.data.simulator import simulate_collection

    complete = simulate_collection(n_topics=int(n_topics), depth=depth, seed=int(seed), name=name, **spec["simulate"])
    judged_depth = min(int(spec["judged_depth"]), depth)
    qrels = pool(complete, judged_depth, complete.judged_runs).judged_set(complete.qrels)
    population = complete.with_qrels(qrels, name=name)
    population.metadata.update(judged_depth=judged_depth, judged_depth_source="simulator",
                               judged_depth_rule=f"the depth-{judged_depth} pool of the judged runs",
                               population=kind, population_about=spec["about"])
    if where is not None:
        from evalkit.data.cache import save_cached

        save_cached(population, where)
    return population


def pair_ttests(scores: np.ndarray, alpha: float):
    """Paired t-tests of every pair of runs of ``scores[run, topic]`` at once: (mean differences (S, S), half-widths
    of the 100(1 - alpha)% CIs (S, S)). The variance of a difference is v_i + v_j - 2 c_ij from one covariance
    matrix (equal to ``scipy.stats.ttest_rel`` pair by pair; identical rows get half-width 0)."""
    x = np.asarray(scores, float)
    n = x.shape[1]
    means = x.mean(axis=1)
    centred = x - means[:, None]
    cov = centred @ centred.T / (n - 1)
    var = np.diag(cov)
    diff_var = np.maximum(var[:, None] + var[None, :] - 2 * cov, 0.0)
    half = stats.t.isf(alpha / 2, n - 1) * np.sqrt(diff_var / n)
    return means[:, None] - means[None, :], half


@dataclass
class ValidationResult:
    """What :func:`validate` found: ``summary`` (one row per design: planned topics, target and realised power
    and coverage, verdicts), ``by_draw`` (one row per design and plan draw), ``assumptions``
    (:func:`assumption_checks`), ``settings`` and ``realisations``: one row per design, plan draw and realised
    topic set (``draw``), with its counts: ``hits`` of the ``pairs at delta`` (significant in the right
    direction), ``covered`` of the ``pairs`` (every pair's CI holding the design's population difference). The
    summary's realised power and coverage are their pooled ratios; :func:`realised_intervals` reads their
    uncertainty from them (a bootstrap over the realised topic sets)."""

    summary: pd.DataFrame
    by_draw: pd.DataFrame
    assumptions: pd.DataFrame
    settings: dict = field(default_factory=dict)
    realisations: pd.DataFrame = field(default_factory=pd.DataFrame)


def _draw_topics(rng, n_population: int, n: int) -> np.ndarray:
    return rng.integers(0, n_population, size=int(n))


def assumption_checks(reference: np.ndarray, design: np.ndarray, pairs: np.ndarray, planned_variance: float,
                      label: str) -> dict:
    """Numbers on the assumptions (module docstring) over the given pairs (k, 2) of runs, on the design's
    population scores: mean |skewness| and mean excess kurtosis of the per-topic differences (normality: 0 and 0
    for normal differences), and the 10th / 50th / 90th percentiles of each pair's difference variance over the
    plan's pooled ``2 sigma^2`` (equal variances: all 1)."""
    if len(pairs) == 0:
        return {"design": label, "pairs": 0}
    d = design[pairs[:, 0]] - design[pairs[:, 1]]
    ratio = d.var(axis=1, ddof=1) / (2 * planned_variance) if planned_variance > 0 else np.full(len(d), np.nan)
    q10, q50, q90 = np.nanpercentile(ratio, [10, 50, 90])
    return {"design": label, "pairs": int(len(pairs)),
            "mean |skewness|": float(np.nanmean(np.abs(stats.skew(d, axis=1)))),
            "mean excess kurtosis": float(np.nanmean(stats.kurtosis(d, axis=1))),
            "variance ratio p10": float(q10), "variance ratio median": float(q50), "variance ratio p90": float(q90),
            "independence": "by construction (topics drawn independently): not tested"}


def validate(population: Collection, measure: str = "AP", alpha: float = 0.05, power: float = 0.8,
             delta: float = 0.05, designs=None, plan_topics: int = 50, plan_draws: int = 3, draws: int = 300,
             replicates: int = DEFAULT_REPLICATES, seed: int = 0, band: float = 0.25,
             progress: bool = False) -> ValidationResult:
    """Realised power and coverage of the t-test plans for ``designs`` on ``population`` (module docstring).

    ``designs``: :class:`Design` objects (the full judgments are always included first); default: the cheapest
    design of the plan made from the first 50-topic draw. ``plan_draws`` draws of ``plan_topics`` topics are
    each planned from; each plan is realised ``draws`` times. ``band``: the pairs "at delta" are those whose true
    difference lies in [delta, (1 + band) delta). ``progress``: a tqdm bar that moves with every realised topic
    set (designs x plan draws x draws)."""
    from tqdm.auto import tqdm

    judged_depth = int(population.metadata.get("judged_depth") or 0)
    if judged_depth < 1:
        raise ValueError(f"{population.name}: the population needs metadata judged_depth (simulate_population sets it)")
    T = population.n_topics
    if plan_topics >= T:
        raise ValueError(f"plan_topics ({plan_topics}) must be fewer than the population's {T} topics")
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), 29]))
    plan_sets = [np.sort(rng.choice(T, int(plan_topics), replace=False)) for _ in range(int(plan_draws))]
    reference = full_scores(population, measure, judged_depth)
    true_diff = reference.mean(axis=1)[:, None] - reference.mean(axis=1)[None, :]
    upper = np.triu(np.ones(true_diff.shape, bool), 1)
    at_least = upper & (np.abs(true_diff) >= delta)
    near = at_least & (np.abs(true_diff) < (1 + band) * delta)

    plans = []
    for k, topics in enumerate(plan_sets):
        sub = population.subset(topics=topics)
        if designs is None and k == 0:
            first = plan(design_variances(sub, measure, judged_depth, replicates=replicates, seed=seed),
                         alpha=alpha, power=power, delta=delta)
            chosen = first[first["cheapest"]]
            designs = [] if not len(chosen) or chosen["family"].iloc[0] == "full" else \
                [_design_of(chosen.iloc[0], judged_depth, population)]
        plans.append(sub)
    full = Design("full", judged_depth, judged_depth)
    chosen_designs = [full] + [d for d in (designs or []) if d.family != "full"]

    rows, summaries, checks, realised_rows = [], [], [], []
    bar = tqdm(total=len(chosen_designs) * len(plans) * int(draws), desc="topic sets realised", unit="set",
               disable=not progress)
    for design in chosen_designs:
        if design.family == "full":
            scores = reference
        else:
            scores, _ = design_scores(population, design, measure, np.random.SeedSequence([int(seed), 2029]),
                                      metric_depth=sample_depth(population, judged_depth))
        design_diff = scores.mean(axis=1)[:, None] - scores.mean(axis=1)[None, :]
        hits = covered = tried = hit_all = tried_all = 0
        widths, predicted, promised = [], [], []
        planned, design_units = [], []
        for k, sub in enumerate(plans):
            frame = plan(design_variances(sub, measure, judged_depth, designs=[] if design.family == "full" else
                                          [design], replicates=replicates, seed=seed + k),
                         alpha=alpha, power=power, delta=delta)
            row = frame.iloc[-1]
            n = float(row["topics"])
            planned.append(n)
            design_units.append(float(row["effective variance"]) * float(row["attenuation"]) ** 2)
            if not np.isfinite(n):
                rows.append({"design": design.label, "plan draw": k, "planned topics": n})
                bar.update(int(draws))
                continue
            n = int(n)
            draw_rng = np.random.default_rng(np.random.SeedSequence([int(seed), 3029, k]))
            k_hits = k_tried = k_cov = k_all = k_all_tried = 0
            k_width = []
            for r in range(int(draws)):
                idx = _draw_topics(draw_rng, T, n)
                diff, half = pair_ttests(scores[:, idx], alpha)
                significant = np.abs(diff) > half
                right = np.sign(diff) == np.sign(true_diff)
                success = significant & right
                r_hits, r_cov = int(success[near].sum()), int((np.abs(diff - design_diff) <= half)[upper].sum())
                k_hits += r_hits
                k_tried += int(near.sum())
                k_all += int(success[at_least].sum())
                k_all_tried += int(at_least.sum())
                k_cov += r_cov
                k_width.append(float(2 * half[upper].mean()))
                realised_rows.append((design.label, k, r, n, r_hits, int(near.sum()), r_cov, int(upper.sum())))
                bar.update(1)
            hits, tried, hit_all, tried_all = hits + k_hits, tried + k_tried, hit_all + k_all, tried_all + k_all_tried
            covered += k_cov
            widths += k_width
            beta = float(row["attenuation"]) if np.isfinite(row["attenuation"]) else 1.0
            own = _own_variance_power(scores, near, true_diff, n, alpha, beta)
            predicted.append(own)
            pairs = np.argwhere(near)
            promise = float(np.mean(ttest_power_with_bias(
                n, np.abs(true_diff[pairs[:, 0], pairs[:, 1]]), float(row["effective variance"]),
                float(np.nan_to_num(row["bias sd"])), alpha))) if len(pairs) else np.nan
            promised.append(promise)
            rows.append({"design": design.label, "plan draw": k, "planned topics": n,
                         "realised power at delta": k_hits / k_tried if k_tried else np.nan,
                         "realised power, all >= delta": k_all / k_all_tried if k_all_tried else np.nan,
                         "coverage": k_cov / (int(upper.sum()) * int(draws)),
                         "target power at these pairs": promise, "predicted power (own variance)": own})
        finite = [n for n in planned if np.isfinite(n)]
        realised = hits / tried if tried else np.nan
        target_here = float(np.mean(promised)) if promised else np.nan
        coverage = covered / (int(upper.sum()) * int(draws) * len(finite)) if finite else np.nan
        summaries.append({
            "design": design.label, "planned topics": float(np.mean(finite)) if finite else np.inf,
            "planned topics range": f"{int(min(finite))}-{int(max(finite))}" if finite else "none meets it",
            "pairs at delta": int(near.sum()), "target power": power, "target power at these pairs": target_here,
            "realised power at delta": realised,
            "predicted power (own variance)": float(np.mean(predicted)) if predicted else np.nan,
            "realised power, all >= delta": hit_all / tried_all if tried_all else np.nan,
            "target coverage": 1 - alpha, "realised coverage": coverage,
            "mean CI width": float(np.mean(widths)) if widths else np.nan,
            "power delivered": _verdict(realised, target_here, POWER_TOLERANCE),
            "coverage delivered": _verdict(coverage, 1 - alpha, COVERAGE_TOLERANCE),
        })
        sigma2 = float(np.mean(design_units)) if design_units else float("nan")
        checks.append(assumption_checks(reference, scores, np.argwhere(near), sigma2, design.label))
    bar.close()
    from evalkit.planning.variance import within_system_variance

    settings = {"population": population.name, "topics": T, "runs": population.n_runs, "measure": measure,
                "population variance": within_system_variance(reference),
                "alpha": alpha, "power": power, "delta": delta, "plan_topics": plan_topics, "plan_draws": plan_draws,
                "draws": draws, "replicates": replicates, "seed": seed, "band": band,
                "about": population.metadata.get("population_about", "")}
    realisations = pd.DataFrame(realised_rows, columns=["design", "plan draw", "draw", "planned topics", "hits",
                                                        "pairs at delta", "covered", "pairs"])
    return ValidationResult(pd.DataFrame(summaries), pd.DataFrame(rows), pd.DataFrame(checks), settings,
                            realisations)


def realised_intervals(result: ValidationResult, design: str, seed: int = 0) -> dict:
    """The realised power at delta and the coverage of ``design`` with their 95% intervals: the pooled ratios of
    :attr:`ValidationResult.realisations` (equal to the summary's), with a bootstrap that resamples whole realised
    topic sets (:func:`evalkit.stats.ratio_interval`: the pairs of one topic set are tested on the same topics, so
    they are not independent). Keys ``"power"`` and ``"coverage"``, each an :class:`evalkit.stats.Interval`."""
    from evalkit.stats import ratio_interval

    part = result.realisations[result.realisations["design"] == design]
    return {"power": ratio_interval(part["hits"], part["pairs at delta"], seed=seed, unit="topic sets"),
            "coverage": ratio_interval(part["covered"], part["pairs"], seed=seed, unit="topic sets")}


def _verdict(value: float, target: float, tolerance: float) -> str:
    if not np.isfinite(value):
        return "not measured"
    gap = value - target
    if abs(gap) <= tolerance:
        return f"yes ({gap:+.3f})"
    return f"{'above' if gap > 0 else 'below'} ({gap:+.3f})"


def _own_variance_power(scores, near, true_diff, n, alpha, beta) -> float:
    """The mean over the pairs at delta of the t-test power each would have with its own difference variance
    (on the design's scale: difference beta * true difference) at n topics."""
    from evalkit.planning.topic_set_size import ttest_power

    pairs = np.argwhere(near)
    if not len(pairs):
        return float("nan")
    d = scores[pairs[:, 0]] - scores[pairs[:, 1]]
    variance = d.var(axis=1, ddof=1) / 2  # ttest_power takes the within-system variance (sigma_d^2 = 2 sigma^2)
    effect = np.abs(beta * true_diff[pairs[:, 0], pairs[:, 1]])
    return float(np.mean(ttest_power(n, effect, np.maximum(variance, 1e-12), alpha)))


def _design_of(row: pd.Series, judged_depth: int, population: Collection) -> Design:
    from evalkit.planning.designs import stratified_top

    D = sample_depth(population, judged_depth)
    family, level = row["family"], row["level"]
    if family == "pool":
        return Design("pool", int(level), int(level))
    if family == "estimated":
        return Design("estimated", int(level), D)
    return Design(family, float(level), D, stratified_top(D) if family == "stratified" else 0)
