"""Lu, Moffat and Culpepper (2017): the experiment, pure functions from a collection (or the shared pieces
:func:`prepare` builds once) to results.

Figure 3 (gamma by pool depth, per topic; RMSE against theta), Tables 1, 2 and 3, Figures 4 and 6 (system-ordering
distances; Figure 6's two-strata samples seeded from one seed), and the fits the explorer draws from
(:func:`explorer_fit`, :func:`default_selection`). The computations live in :mod:`evalkit.estimation`. Nothing
here is sent to :mod:`evalkit.parallel` workers: every experiment runs in the calling process.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from evalkit.data.collection import Collection
from evalkit.estimation import (
    DEFAULT_THETA,
    ESTIMATORS,
    GATED_ESTIMATORS,
    SystemMatrix,
    WeightedPrecision,
    ap_at_k,
    contributing_runs,
    estimate_scores,
    inf_rbp,
    pool_gamma,
    pool_qrels,
    reference_scores,
    rmse_accuracy,
    run_mask,
    score_range_error,
    system_matrix,
    two_strata_qrels,
)
from evalkit.papers.lu2017.paper import TABLE2_ESTIMATORS
from evalkit.stats import dist, tau_distance


# ------------------------------------------------------------------------------------------ shared set-up


@dataclass(frozen=True)
class Lu2017Data:
    """What every experiment shares: the collection, its contributing runs, the reference (RBP(p)@depth on the
    full qrels, score and residual, of the contributing runs) and the system matrix of the contributing runs."""

    collection: Collection
    pool_runs: np.ndarray
    depth: int
    p: float
    reference: WeightedPrecision
    matrix: SystemMatrix
    #: fit depth d' -> the estimates of every estimator from the depth-d' pool (filled as the figures need them:
    #: Figure 3, Table 2, Figure 4 and the explorer share their fits)
    fits: dict = field(default_factory=dict, compare=False, repr=False)


def prepare(collection: Collection, depth: int = 100, p: float = 0.95, pool_runs=None) -> Lu2017Data:
    """Build the shared pieces once (about a second on TREC-8); every function of the package also accepts a
    Collection."""
    pool = run_mask(collection, pool_runs) if pool_runs is not None else contributing_runs(collection, depth)
    return Lu2017Data(
        collection=collection, pool_runs=pool, depth=int(depth), p=float(p),
        reference=reference_scores(collection, depth, pool, "rbp", p),
        matrix=system_matrix(collection, depth, pool),
    )


def prepared(data, depth: int = 100, p: float = 0.95) -> Lu2017Data:
    """``data`` itself when it is a :class:`Lu2017Data`, else :func:`prepare` ``(data, depth, p)`` (every function
    of the package takes either)."""
    return data if isinstance(data, Lu2017Data) else prepare(data, depth, p)


def _estimates(data: Lu2017Data, fit_depth: int, estimators, judgments=None):
    """The estimates from the depth-``fit_depth`` pool (every estimator, fitted once per depth and kept in
    ``data.fits``), or from other ``judgments`` (e.g. a two-strata sample: ``estimators`` only, not kept)."""
    if judgments is None:
        if int(fit_depth) not in data.fits:
            judgments = pool_qrels(data.collection, fit_depth, data.pool_runs)
            data.fits[int(fit_depth)] = estimate_scores(
                data.collection, judgments, fit_depth, pool_runs=data.pool_runs, depth=data.depth, p=data.p,
                estimators=ESTIMATORS, matrix=data.matrix)
        return data.fits[int(fit_depth)]
    return estimate_scores(data.collection, judgments, fit_depth, pool_runs=data.pool_runs, depth=data.depth,
                           p=data.p, estimators=tuple(estimators), matrix=data.matrix)


def _errors(estimate: np.ndarray, reference: WeightedPrecision) -> tuple[float, float]:
    return rmse_accuracy(score_range_error(estimate, reference.score, reference.residual))


def _topic_errors(estimate: np.ndarray, reference: WeightedPrecision) -> dict:
    """Per topic: the sum over runs of Eq. 3's squared errors (``sse``), how many runs' errors are 0 (``zeros``),
    and the number of runs (``n_runs``); RMSE and Acc% over runs x topics are
    :func:`~evalkit.papers.lu2017.tables.summarize_errors` of these."""
    e = score_range_error(estimate, reference.score, reference.residual)
    return {"sse": (e * e).sum(axis=0), "zeros": (e == 0.0).sum(axis=0), "n_runs": e.shape[0]}


def _steps(items, progress: bool, desc: str):
    """``items``, with a tqdm bar that moves as each one completes when ``progress``."""
    if not progress:
        return items
    from tqdm.auto import tqdm

    return tqdm(items, desc=desc)


def _per_topic_rows(keys: dict, errors: dict, topics) -> list:
    return [{**keys, "topic": topic, "sse": float(sse), "zeros": int(zeros), "n_runs": int(errors["n_runs"])}
            for topic, sse, zeros in zip(topics, errors["sse"], errors["zeros"])]


def _summary(per_topic: pd.DataFrame, keys: list) -> pd.DataFrame:
    """RMSE and Acc% over runs x topics per ``keys`` from per-topic rows (``sse``, ``zeros``, ``n_runs``)."""
    frame = per_topic.assign(theta=per_topic["theta"].fillna(-1.0)) if "theta" in keys else per_topic
    grouped = frame.groupby(keys, sort=False, dropna=False)
    out = grouped.agg(sse=("sse", "sum"), zeros=("zeros", "sum"), n=("n_runs", "sum")).reset_index()
    out["rmse"] = np.sqrt(out["sse"] / out["n"])
    out["acc"] = 100.0 * out["zeros"] / out["n"]
    if "theta" in keys:
        out["theta"] = out["theta"].where(out["theta"] >= 0, np.nan)
    return out.drop(columns=["sse", "zeros", "n"])


# ------------------------------------------------------------------------------------------ Figure 3


def figure3_gamma_by_depth(data, depths=tuple(range(10, 101, 10)), theta: float = DEFAULT_THETA,
                           per_topic: bool = False) -> pd.DataFrame:
    """Fig. 3 (left): per pool depth d', the mean over topics of gamma (Eq. 10 / number of runs), its median, and
    how many topics exceed ``theta``. Hypothesis 1 of the paper: gamma falls as d' grows. ``per_topic=True``: one
    row per depth and topic (``depth, topic, gamma``) instead, for intervals over topics."""
    data = prepared(data)
    c = data.collection
    rows = []
    for d in depths:
        gamma = pool_gamma(c, pool_qrels(c, d, data.pool_runs), d, data.pool_runs)
        if per_topic:
            rows.extend({"depth": int(d), "topic": t, "gamma": float(g)} for t, g in zip(c.topics, gamma))
        else:
            rows.append({"depth": int(d), "mean_gamma": float(gamma.mean()), "median_gamma": float(np.median(gamma)),
                         "topics_above_theta": int((gamma > theta).sum()), "n_topics": len(gamma)})
    return pd.DataFrame(rows)


def figure3_gamma_per_topic(data, depth: int = 10) -> pd.DataFrame:
    """Fig. 3 (middle): gamma of every topic for the depth-``depth`` pool."""
    data = prepared(data)
    c = data.collection
    gamma = pool_gamma(c, pool_qrels(c, depth, data.pool_runs), depth, data.pool_runs)
    return pd.DataFrame({"topic": c.topics, "depth": int(depth), "gamma": gamma})


def figure3_rmse_vs_theta(data, depth: int = 10, thetas=None, estimators=("LB", "Lin", "Wei"),
                          per_topic: bool = False) -> pd.DataFrame:
    """Fig. 3 (right): RMSE and Acc% against the threshold theta at pool depth ``depth`` (the paper: TREC-5, LB,
    Lin, Wei, d' = 10; crossing below LB near theta = 0.018). ``per_topic=True``: per topic the sum of squared
    errors over runs (``sse``, ``zeros``, ``n_runs``) instead of RMSE and Acc%, for intervals over topics."""
    data = prepared(data)
    thetas = np.round(np.arange(0.0, 0.02401, 0.001), 6) if thetas is None else np.asarray(thetas, float)
    est = _estimates(data, depth, set(estimators) | {"LB"})
    rows = []
    for theta in thetas:
        adjusted = int(est.adjusted(float(theta)).sum())
        for name in estimators:
            keys = {"depth": int(depth), "theta": float(theta), "estimator": name, "topics_adjusted": adjusted}
            if per_topic:
                rows.extend(_per_topic_rows(keys, _topic_errors(est.score(name, float(theta)), data.reference),
                                            data.collection.topics))
            else:
                rmse, acc = _errors(est.score(name, float(theta)), data.reference)
                rows.append({**keys, "rmse": rmse, "acc": acc})
    out = pd.DataFrame(rows)
    return out if per_topic else out.drop(columns="depth")


# ------------------------------------------------------------------------------------------ Table 2


def table2(data, depths=(10, 20, 30), thetas=(0.0, DEFAULT_THETA), estimators=TABLE2_ESTIMATORS,
           per_topic: bool = False, progress: bool = False) -> pd.DataFrame:
    """Table 2 on one collection: long frame ``collection, reference_depth, depth, estimator, theta, rmse, acc``
    (theta NaN for LB and RM, which the rule does not gate) plus ``seconds`` (fit time of that depth).
    ``per_topic=True``: per topic the sum of squared errors over runs (``topic, sse, zeros, n_runs``) instead of
    ``rmse, acc`` (:func:`~evalkit.papers.lu2017.tables.summarize_errors` turns it into the table; the claims read
    its intervals over topics). ``progress``: a bar over the depths."""
    data = prepared(data)
    rows = []
    for d in _steps(list(depths), progress, "Table 2 (pool depths)"):
        start = time.perf_counter()
        est = _estimates(data, d, estimators)
        seconds = time.perf_counter() - start
        for name in estimators:
            for theta in (thetas if name in GATED_ESTIMATORS else (np.nan,)):
                score = est.score(name, 0.0 if np.isnan(theta) else float(theta))
                keys = {"collection": data.collection.name, "reference_depth": data.depth, "depth": int(d),
                        "estimator": name, "theta": theta}
                if per_topic:
                    rows.extend({**r, "seconds": seconds} for r in _per_topic_rows(
                        keys, _topic_errors(score, data.reference), data.collection.topics))
                else:
                    rmse, acc = _errors(score, data.reference)
                    rows.append({**keys, "rmse": rmse, "acc": acc, "seconds": seconds})
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------------------ Table 3


def table3(data, depth: int = 10, theta: float = 0.0, estimators=TABLE2_ESTIMATORS, groups=None,
           per_group: bool = False, max_groups: int | None = None, progress: bool = False) -> pd.DataFrame:
    """Table 3: leave-one-group-out at pool depth ``depth``.

    For every group with contributing runs: the pool (and the system matrix, gain models, framework weights) is
    built from the *other* groups' contributing runs only, and the group's contributing runs are scored against
    their reference (full qrels, depth d). ``groups`` (run name -> group) defaults to ``runs_info['group']``.
    Returns the mean over groups of RMSE and Acc% per estimator (``per_group=True``: one row per group and
    estimator, with ``n_runs``). ``max_groups``: leave out only the first that many groups (in run order; quick
    runs), every group when None. ``progress``: a bar over the groups.
    """
    data = prepared(data)
    c = data.collection
    group_of = (c.runs_info["group"] if groups is None else pd.Series(groups)).reindex(c.run_names).to_numpy()
    rows = []
    for group in _steps(list(pd.unique(group_of[data.pool_runs])[:max_groups]), progress, "Table 3 (groups left out)"):
        left_out = (group_of == group) & data.pool_runs
        pool = data.pool_runs & ~left_out
        judgments = pool_qrels(c, depth, pool)
        est = estimate_scores(c, judgments, depth, pool_runs=pool, score_runs=left_out, depth=data.depth,
                              p=data.p, estimators=tuple(estimators))
        # the reference rows of the left-out runs, in the order of the collection
        ref_rows = np.flatnonzero(left_out[data.pool_runs])
        ref = WeightedPrecision(data.reference.score[ref_rows], data.reference.unjudged_residual[ref_rows],
                                data.reference.tail_residual[ref_rows])
        for name in estimators:
            rmse, acc = _errors(est.score(name, theta), ref)
            rows.append({"group": group, "n_runs": int(left_out.sum()), "estimator": name, "rmse": rmse, "acc": acc})
    per = pd.DataFrame(rows)
    if per_group:
        return per.assign(collection=c.name, depth=int(depth), theta=float(theta))
    return summarize_groups(per.assign(collection=c.name, depth=int(depth), theta=float(theta)))


def summarize_groups(per_group: pd.DataFrame) -> pd.DataFrame:
    """Table 3 from its per-group rows (:func:`table3` ``per_group=True``): RMSE and Acc% averaged over the groups
    left out (the paper: "averages across groups"), per estimator."""
    summary = per_group.groupby("estimator", sort=False).agg(rmse=("rmse", "mean"), acc=("acc", "mean"),
                                                             n_groups=("group", "nunique")).reset_index()
    summary.insert(0, "collection", per_group["collection"].iloc[0])
    summary.insert(1, "depth", int(per_group["depth"].iloc[0]))
    summary.insert(2, "theta", float(per_group["theta"].iloc[0]))
    return summary


# ------------------------------------------------------------------------------------------ Figures 4 and 6


def _ordering_distances(reference: np.ndarray, estimate: np.ndarray) -> dict:
    return {"tau_distance": tau_distance(reference.mean(axis=1), estimate.mean(axis=1)),
            "dist": dist(reference, estimate)}


def figure4(data, depths=(10, 20, 30, 40, 50, 60), theta: float = DEFAULT_THETA,
            estimators=TABLE2_ESTIMATORS, n_resamples: int = 0, seed: int = 0, progress: bool = False,
            thetas=None) -> pd.DataFrame:
    """Fig. 4: normalized Kendall tau distance and dist (Eq. 11, omega = 1) between the system ordering of each
    estimator at pool depth d' and the reference ordering (LB at d, i.e. RBP@d on the full qrels), and the
    discrimination ratio of each (the share of run pairs a two-sided paired t-test separates at 0.05; the paper's
    Sec. 6 compares it with the reference's, ``reference_discrimination``).

    Rows with ``resample = -1`` are the figure (every topic); ``n_resamples`` > 0 adds that many topic-bootstrap
    resamples (``resample = 0..``; the same draw for every depth and estimator, seeded by ``seed``,
    :mod:`~evalkit.papers.lu2017.uncertainty`). ``thetas``: several thresholds from the same fits (the
    sensitivity of the claims to theta; default ``[theta]``). ``progress``: a bar over the depths.
    """
    from evalkit.papers.lu2017.uncertainty import (
        N_ORDERING_RESAMPLES,
        discrimination_ratio,
        ordering_resamples,
        topic_counts,
    )

    data = prepared(data)
    thetas = [theta] if thetas is None else list(thetas)
    reference = data.reference.score
    reference_dr = discrimination_ratio(reference)
    counts = topic_counts(data.collection.n_topics, n_resamples or N_ORDERING_RESAMPLES, seed) if n_resamples \
        else None
    rows = []
    for d in _steps(list(depths), progress, "Figure 4 (pool depths)"):
        est = _estimates(data, d, estimators)
        for th in thetas:
            scores = {name: est.score(name, th) for name in estimators}
            for name, score in scores.items():
                rows.append({"depth": int(d), "estimator": name, "theta": th, "resample": -1,
                             "n_topics": data.collection.n_topics,
                             **_ordering_distances(reference, score),
                             "discrimination": discrimination_ratio(score),
                             "reference_discrimination": reference_dr})
            if counts is not None:
                resampled = ordering_resamples(reference, scores, counts)
                ref_dr = resampled.pop("reference")["discrimination"]
                for name, values in resampled.items():
                    rows.extend({"depth": int(d), "estimator": name, "theta": th, "resample": r,
                             "n_topics": data.collection.n_topics,
                                 "tau_distance": values["tau_distance"][r], "dist": values["dist"][r],
                                 "discrimination": values["discrimination"][r], "reference_discrimination": ref_dr[r]}
                                for r in range(len(ref_dr)))
    return pd.DataFrame(rows)


def figure6(data, n_repetitions: int = 10, seed: int = 2017, depth1: int = 10, rate: float = 0.1,
            theta: float = DEFAULT_THETA, methods=("InfAP", "InfRBP", "La", "Lb"),
            progress: bool = False) -> pd.DataFrame:
    """Fig. 6: system-ordering distances on two-strata judgments (all of the top ``depth1``, plus a ``rate`` sample
    of ranks depth1+1..d), ``n_repetitions`` samples seeded from ``seed``.

    InfAP (trec_eval's, :func:`evalkit.measures.inferred.trec_infap`) is compared with Sakai's AP@d on the full qrels;
    InfRBP (Eq. 5), La and Lb with RBP@d on the full qrels. Rows: repetition, method, tau_distance, dist,
    judgments (mean judged documents per topic). ``progress``: a bar over the samples.
    """
    data = prepared(data)
    c = data.collection
    rows = []
    ap_reference = None
    if "InfAP" in methods:
        ap_reference = ap_at_k(c.grades(depth=data.depth)[data.pool_runs], data.depth, c.qrels.counts())
    children = list(enumerate(np.random.SeedSequence(seed).spawn(n_repetitions)))
    for repetition, child in _steps(children, progress, "Figure 6 (two-strata samples)"):
        sample = two_strata_qrels(c, depth1, data.depth, rate, np.random.default_rng(child), data.pool_runs)
        judged = float((sample.grade >= 0).sum()) / c.n_topics
        scores = {}
        if "InfAP" in methods:
            scores["InfAP"] = (_trec_infap(c, sample)[data.pool_runs], ap_reference)
        if "InfRBP" in methods:
            scores["InfRBP"] = (inf_rbp(c, sample, data.depth, data.p, data.pool_runs), data.reference.score)
        framework = [m for m in ("La", "Lb") if m in methods]
        if framework:
            est = _estimates(data, depth1, framework, judgments=sample)
            for m in framework:
                scores[m] = (est.score(m, theta), data.reference.score)
        for method in methods:
            estimate, reference = scores[method]
            rows.append({"repetition": repetition, "method": method, "judgments": judged,
                         **_ordering_distances(reference, estimate)})
    return pd.DataFrame(rows)


def _trec_infap(collection: Collection, sample) -> np.ndarray:
    """trec_eval's infAP from :mod:`evalkit.measures.inferred` (unjudged documents outside the sample are nonrelevant,
    unsampled ones are inferred)."""
    from evalkit.measures.inferred import trec_infap

    return trec_infap(collection, sample)


# ------------------------------------------------------------------------------------------ Table 1


def table1(data, depths=(10, 20, 30), n_repetitions: int = 0, seed: int = 2017, depth1: int = 10,
           rate: float = 0.1) -> pd.DataFrame:
    """Table 1 for one collection: judgments per topic (mean over topics) and the percentage of them relevant,
    for the depth-d' pools of the contributing runs, the full depth-d pool (``d'=d``) and, with
    ``n_repetitions`` > 0, the two-strata samples of :func:`figure6` (same seeds; averaged, with their range
    over the samples in ``judgments_min/max``, ``relevant_pct_min/max``; ``samples`` counts them)."""
    data = prepared(data)
    c = data.collection
    pools = [(f"d'={d}", pool_qrels(c, d, data.pool_runs)) for d in depths]
    pools.append(("d'=d", pool_qrels(c, data.depth, data.pool_runs)))
    for child in np.random.SeedSequence(seed).spawn(n_repetitions):
        pools.append(("two-strata", two_strata_qrels(c, depth1, data.depth, rate, np.random.default_rng(child),
                                                     data.pool_runs)))
    rows = []
    for name, judged in pools:
        known = judged.grade >= 0
        rows.append({"pool": name, "judgments": known.sum() / c.n_topics,
                     "relevant_pct": 100.0 * (judged.grade[known] > 0).sum() / max(int(known.sum()), 1)})
    grouped = pd.DataFrame(rows).groupby("pool", sort=False)
    out = grouped.mean().reset_index()
    # the two-strata row is a mean over samples: its range over them (the pools' rows have none)
    for column in ("judgments", "relevant_pct"):
        low, high, n = grouped[column].min(), grouped[column].max(), grouped[column].count()
        out[f"{column}_min"] = np.where(n.to_numpy() > 1, low.to_numpy(), np.nan)
        out[f"{column}_max"] = np.where(n.to_numpy() > 1, high.to_numpy(), np.nan)
    out["samples"] = grouped["judgments"].count().to_numpy()
    out.insert(0, "collection", c.name)
    out.insert(1, "reference_depth", data.depth)
    out.insert(2, "n_runs", int(data.pool_runs.sum()))
    return out


# ------------------------------------------------------------------------------------------ the explorer's fits


def explorer_fit(data, fit_depth: int = 10, p: float | None = None, cache: dict | None = None) -> dict:
    """Everything the widget draws from, for one pool depth d' and RBP persistence p (cached in ``cache``):
    ``judgments`` (the depth-d' pool), ``estimates`` (all seven estimators, ungated), ``reference`` (RBP(p)@d on
    the full qrels), ``weights`` (W(1..d)) and ``observed`` ((T, d') observed gain vector)."""
    from evalkit.estimation import (
        gains,
        metric_weights,
        observed_gain_vector,
    )
    from evalkit.estimation.estimators import _grades

    data = prepared(data)
    p = data.p if p is None else float(p)
    key = (int(fit_depth), round(p, 6))
    if cache is not None and key in cache:
        return cache[key]
    c = data.collection
    judgments = pool_qrels(c, fit_depth, data.pool_runs)
    if np.isclose(p, data.p):  # the figures' fit of this depth, when they made one
        est = _estimates(data, fit_depth, ESTIMATORS)
    else:
        est = estimate_scores(c, judgments, fit_depth, pool_runs=data.pool_runs, depth=data.depth, p=p,
                              estimators=ESTIMATORS, matrix=data.matrix)
    reference = data.reference if np.isclose(p, data.p) else reference_scores(c, data.depth, data.pool_runs, "rbp", p)
    pool_grades = _grades(c, judgments, data.pool_runs, fit_depth)
    fit = {"fit_depth": int(fit_depth), "p": p, "judgments": judgments, "estimates": est, "reference": reference,
           "weights": metric_weights("rbp", data.depth, p)[0],
           "observed": observed_gain_vector(gains(pool_grades), pool_grades >= 0)}
    if cache is not None:
        cache[key] = fit
    return fit


def default_selection(data, fit_depth: int = 10, run=None, topic=None, cache: dict | None = None,
                      theta: float = DEFAULT_THETA) -> tuple:
    """``(run name, topic)`` the widget starts from: the contributing run of median mean reference score, and the
    topic where the gated estimators (Lin, Zipf, Wei, La, Lb) and LB disagree most for that run at ``theta`` (the
    largest spread of their estimates, so the first picture shows a difference: on a topic with gamma <= theta
    every gated estimator is LB, and RM alone differs); ties, and a
    collection where they never disagree, go to the topic where LB falls furthest below the reference (given
    ones are kept)."""
    from evalkit.estimation.estimators import GATED_ESTIMATORS

    data = prepared(data)
    c = data.collection
    scored = np.flatnonzero(data.pool_runs)
    if run is None:
        mean = data.reference.score.mean(axis=1)
        run = c.run_names[scored[int(np.argsort(mean)[len(mean) // 2])]]
    if topic is None:
        row = int(np.flatnonzero(scored == c.run_index(run))[0]) if isinstance(run, str) else int(
            np.flatnonzero(scored == int(run))[0])
        est = explorer_fit(data, fit_depth, data.p, cache)["estimates"]
        shortfall = data.reference.score[row] - est.lower_bound.score[row]
        shown = ["LB"] + [name for name in GATED_ESTIMATORS if name in est.scores]  # RM differs everywhere
        estimates = np.stack([est.score(name, theta)[row] for name in shown])
        spread = np.round(np.nanmax(estimates, axis=0) - np.nanmin(estimates, axis=0), 6)
        order = np.lexsort((-shortfall, -np.nan_to_num(spread)))  # largest spread first, then largest shortfall
        topic = c.topics[int(order[0])]
    return run, topic


# ------------------------------------------------------------------------------------------ degenerate studies


def check_studies(plan, data) -> None:
    """Mark on ``plan`` (:meth:`evalkit.papers.needs.Plan.mark_degenerate`) the studies that are degenerate on this
    collection, beyond those :func:`~evalkit.papers.lu2017.plan.plan` finds from the parameters alone:

    * ``theta_gate``: "theta = 0.018 improves La and Lin" needs topics the threshold leaves alone that theta = 0
      adjusts (0 < gamma <= theta) at Table 2's depths; with none, the two thresholds give the same table;
    * ``two_strata``: Figure 6 needs a second stratum to sample: ``round(0.1 x size)`` documents below the first
      stratum's depth on at least one topic.
    """
    c = data.collection
    theta = max((t for t in plan.thetas if t > 0), default=None)
    if theta is not None and 0.0 in plan.thetas:
        between = {}
        for d in plan.depths:
            gamma = pool_gamma(c, pool_qrels(c, d, data.pool_runs), d, data.pool_runs)
            between[d] = int(((gamma > 0) & (gamma <= theta)).sum())
        if not any(between.values()):
            plan.mark_degenerate(
                "theta_gate", f"no topic has 0 < gamma <= {theta:g} at d' = {', '.join(map(str, plan.depths))} "
                f"(of {c.n_topics}), so theta = 0 and {theta:g} give the same scores",
                "a theta above some topics' gamma (thetas), or other pool depths (depths)")
    if plan.two_strata_depth < data.depth:
        from evalkit.estimation.pools import pooled_keys

        first = pooled_keys(c, plan.two_strata_depth, data.pool_runs)
        deep = pooled_keys(c, data.depth, data.pool_runs)
        second = np.bincount(deep[~np.isin(deep, first)] // len(c.vocabulary), minlength=c.n_topics)
        drawn = int(np.rint(0.1 * second).sum())
        if drawn == 0:
            plan.mark_degenerate(
                "two_strata", f"the 10% sample of ranks {plan.two_strata_depth + 1}-{data.depth} draws 0 documents "
                "on every topic", "a smaller two_strata_depth")
