"""Lu, Moffat and Culpepper (2017): the paper's statements beside the kit's results (:func:`claims`, rows of
:class:`evalkit.claims.Claim`), each rated by a written rule of :mod:`evalkit.claims.rules` on an interval.

Intervals (:mod:`~evalkit.papers.lu2017.uncertainty`): Table 2 and Figures 3 and 4 score every run on every topic,
so their figures are bootstrapped over topics (the same draw for every estimator and depth: differences are
paired); Table 3 is averaged over the groups left out, so its interval is over groups; Figure 6 repeats a random
two-strata sample, so its intervals are over the samples. A claim about several depths or estimators combines its
parts' ratings (:func:`evalkit.claims.rules.combine`). The paper's collections are not the kit's: every row but
Figure 6's "< 0.05" is about a direction or an ordering (``kind="direction"``).

A row is not rated where the study is degenerate on the collection (:func:`~evalkit.papers.lu2017.plan.plan`,
:func:`~evalkit.papers.lu2017.experiment.check_studies`): Eq. 3's errors when RBP keeps more than
:data:`~evalkit.papers.lu2017.plan.RBP_TAIL_BOUND` of its weight beyond d; the parts at pool depths below
:data:`~evalkit.papers.lu2017.plan.MIN_MODEL_RANKS` for the model-based estimators; the threshold's effect where no
topic lies between the thresholds; and at class size where the class preset's sizes cannot support the rule
(Figure 6 from fewer than :data:`MIN_SAMPLES` samples, Table 3 over fewer groups than the collection has).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from evalkit.claims import rules
from evalkit.estimation import DEFAULT_THETA
from evalkit.papers.lu2017.paper import CLAIM_COLLECTIONS
from evalkit.papers.lu2017.plan import MIN_MODEL_RANKS
from evalkit.papers.lu2017.uncertainty import N_RESAMPLES, interval, resampled_rmse, topic_counts
from evalkit.stats.intervals import Interval, bootstrap_interval, paired_difference_interval

PAPER = "Lu, Moffat & Culpepper 2017"
OTHER = "the paper's collections (TREC9/10, Rob04, TB04-06) are not this one"
#: Figure 6's intervals are over its samples: fewer than the paper's 10 cannot support a rating
MIN_SAMPLES = 10
#: "near theta": a cross-over within this distance of theta (a sixth of 0.018; the kit's reading, stated)
NEAR_THETA = 0.003
#: a cross-over that never happens on a resample is placed this far away
_NEVER = 1.0


# ------------------------------------------------------------------------------------------ resampled errors


class _Errors:
    """Per-topic error rows (``depth, estimator, theta, topic, sse, n_runs``) and one topic-bootstrap draw shared by
    every figure read from them, so that differences are paired."""

    def __init__(self, per_topic: pd.DataFrame, counts: np.ndarray):
        self.frame = per_topic.assign(theta=per_topic["theta"].fillna(-1.0).round(6))
        self.counts = counts
        self.n_topics = counts.shape[1]

    def rmse(self, depth: int, estimator: str, theta=None) -> tuple[float, np.ndarray]:
        f = self.frame
        rows = f[(f["depth"] == depth) & (f["estimator"] == estimator)]
        gated = (rows["theta"] >= 0).any()
        rows = rows[np.isclose(rows["theta"], round(float(theta), 6))] if gated and theta is not None else \
            rows[rows["theta"] < 0] if not gated else rows[np.isclose(rows["theta"], 0.0)]
        sse, n_runs = rows["sse"].to_numpy(), int(rows["n_runs"].iloc[0])
        return float(np.sqrt(sse.sum() / (n_runs * len(sse)))), resampled_rmse(sse, n_runs, self.counts)

    def interval(self, estimate: float, resampled) -> Interval:
        return interval(estimate, resampled, "topics", self.n_topics)


def _difference(errors: _Errors, a, b) -> Interval:
    """The interval of RMSE ``a`` minus RMSE ``b`` (each a ``(estimate, resampled)`` pair)."""
    return errors.interval(a[0] - b[0], a[1] - b[1])


def _model_depths(depths, degenerate: set) -> list:
    return [d for d in depths if not ("gain_models" in degenerate and d < MIN_MODEL_RANKS)]


def _claim(claim, paper_value, kit_value, dataset, rating=None, note="", **extra):
    from evalkit.claims import Claim

    fields = rating.fields() if rating is not None else {}
    return Claim(PAPER, claim, paper_value, kit_value, dataset, note=note, **fields, **extra)


# ------------------------------------------------------------------------------------------ Figure 3


def _figure3(dataset, gamma_topics, rmse_vs_theta, theta, theta_depth, seed, not_rated) -> list:
    out = []
    if gamma_topics is not None and gamma_topics["depth"].nunique() > 1:
        g = gamma_topics.pivot_table(index="topic", columns="depth", values="gamma", sort=False)
        first, last = g.columns.min(), g.columns.max()
        means = g.mean()
        steps = np.diff(means.sort_index().to_numpy())
        fall = paired_difference_interval(g[first], g[last], seed=seed, unit="topics")
        fall_e3 = Interval(fall.estimate * 1e3, fall.low * 1e3, fall.high * 1e3, fall.level, fall.method, fall.n)
        out.append(_claim(
            "Fig. 3 left, Hypothesis 1: mean gamma falls as the pool deepens", "falls (TREC5, Rob04, TREC10, TB06)",
            f"{means[first] * 1e3:.1f}e-3 at d'={first} -> {means[last] * 1e3:.1f}e-3 at d'={last}; falls in "
            f"{int((steps < 0).sum())} of {len(steps)} steps", dataset,
            rules.direction(fall_e3, f"mean gamma at d'={first} minus at d'={last} (1e-3)", fmt=".2f")))
    if gamma_topics is not None:
        depth = theta_depth if theta_depth in set(gamma_topics["depth"]) else int(gamma_topics["depth"].min())
        gm = gamma_topics[gamma_topics["depth"] == depth]["gamma"]
        above = (gm > theta).to_numpy(float)
        share = bootstrap_interval(above, "mean", seed=seed, unit="topics")
        below = Interval(1.0 - share.estimate, 1.0 - share.high, 1.0 - share.low, share.level, share.method, share.n)
        rating = rules.combine([rules.direction(share, "share of topics with gamma > theta"),
                                rules.direction(below, "share of topics with gamma <= theta")], every=True)
        out.append(_claim(
            f"Fig. 3 middle: at the first pool depth (here d'={depth}; the paper's 10) gamma varies by topic; not "
            "every topic needs adjusting",
            "spread 0-32e-3; some topics low, some high",
            f"d'={depth}: min {gm.min() * 1e3:.1f}e-3, median {gm.median() * 1e3:.1f}e-3, max {gm.max() * 1e3:.1f}e-3; "
            f"{int(above.sum())} of {len(gm)} topics above theta={theta:g}", dataset, rating,
            "theta = 0.018 was set on TREC5/7/8 by the authors"))
    if rmse_vs_theta is not None:
        errors = _Errors(rmse_vs_theta, topic_counts(rmse_vs_theta["topic"].nunique(), N_RESAMPLES, seed))
        depth = int(rmse_vs_theta["depth"].iloc[0])
        grid = np.sort(rmse_vs_theta["theta"].unique())
        models = [m for m in ("Lin", "Wei") if m in set(rmse_vs_theta["estimator"])]
        lb = errors.rmse(depth, "LB")
        parts, texts = [], []
        for m in models:
            curve = [errors.rmse(depth, m, t) for t in grid]
            below = np.stack([c[1] for c in curve]) < lb[1][None, :]  # (thetas, R)
            below_all = np.array([c[0] for c in curve]) < lb[0]
            first_all = grid[below_all.argmax()] if below_all.any() else np.nan
            first = np.where(below.any(axis=0), grid[below.argmax(axis=0)], np.nan)
            distance = np.where(np.isnan(first), _NEVER, np.abs(first - theta))
            distance_all = _NEVER if np.isnan(first_all) else abs(first_all - theta)
            worse = _difference(errors, curve[0], lb)
            parts.append(rules.combine([
                rules.direction(worse, f"{m} minus LB RMSE at theta=0", fmt=".4f"),
                rules.at_most(errors.interval(distance_all, distance), NEAR_THETA,
                              f"{m}'s cross-over below LB, distance from {theta:g}")], every=True))
            texts.append(f"{m}: RMSE {curve[0][0]:.4f} at theta=0 (LB {lb[0]:.4f}), " +
                         (f"first below LB at theta={first_all:g}" if np.isfinite(first_all) else "never below LB"))
        if parts:
            out.append(_claim(
                "Fig. 3 right: Lin and Wei are worse than LB at theta=0 and cross below it near theta=0.018 "
                "(TREC5; 'similar cross-overs for TREC7 and TREC8')", "cross-over near 0.018", "; ".join(texts),
                dataset, rules.combine(parts), f"d'={depth}; 'near': within {NEAR_THETA:g}",
                not_rated=not_rated("rbp_tail") or (not_rated("gain_models") if depth < MIN_MODEL_RANKS else "")))
    return out


# ------------------------------------------------------------------------------------------ Table 2


def _table2(dataset, table2_frame, theta, seed, degenerate, not_rated) -> list:
    errors = _Errors(table2_frame, topic_counts(table2_frame["topic"].nunique(), N_RESAMPLES, seed))
    all_depths = sorted(int(d) for d in table2_frame["depth"].unique())
    depths = _model_depths(all_depths, degenerate)
    thetas = set(errors.frame["theta"].round(6))
    out = []
    tail = not_rated("rbp_tail")
    models = not_rated("gain_models") if not depths else ""

    def rmse(d, name, th=0.0):
        return errors.rmse(d, name, th)

    def row(claim, paper_value, kit_value, rating, note="", extra_not_rated=""):
        out.append(_claim(claim, paper_value, kit_value, dataset, rating, note,
                          not_rated=tail or models or extra_not_rated))

    def text(parts):
        return "; ".join(parts) if parts else "no pool depth of at least 3 judged ranks"

    skipped = [d for d in all_depths if d not in depths]
    skip_note = f"; d'={', '.join(map(str, skipped))} not rated (gain models underdetermined)" if skipped else ""
    if 0.0 in thetas:
        ratings = [rules.direction(_difference(errors, rmse(d, b), rmse(d, "Lb")), f"{b} minus Lb RMSE at d'={d}",
                                   fmt=".4f") for d in depths for b in ("LB", "RM", "Lin")]
        acc = [d for d in depths if all(_acc(table2_frame, d, "Lb", 0.0) > _acc(table2_frame, d, b, 0.0)
                                        for b in ("LB", "RM", "Lin"))]
        row("Table 2, theta=0: Lb outperforms the baselines LB, RM and Lin",
            "lowest RMSE in 17 of 18 rows (tied with LB on TREC9 d'=10)",
            text([f"d'={d}: Lb {rmse(d, 'Lb')[0]:.4f}, LB {rmse(d, 'LB')[0]:.4f}, Lin {rmse(d, 'Lin')[0]:.4f}, "
                  f"RM {rmse(d, 'RM')[0]:.4f}" for d in depths]),
            rules.combine(ratings) if ratings else None,
            "RMSE; Lb also has the highest Acc% " + (f"at d'={', '.join(map(str, acc))}" if acc else "at no depth") +
            f" (the paper says 'RMSE and Acc%', but its own Acc% favours LB at d'=10 on TREC9/10 and Rob04); {OTHER}"
            + skip_note)
        ratings = [rules.direction(_difference(errors, rmse(d, "La"), rmse(d, "Lb")), f"La minus Lb RMSE at d'={d}",
                                   fmt=".4f") for d in depths]
        row("Table 2, theta=0: La has a higher RMSE than Lb", "higher (TREC9/10, Rob04; not TB04 d'=10, TB06)",
            text([f"d'={d}: La {rmse(d, 'La')[0]:.4f}, Lb {rmse(d, 'Lb')[0]:.4f}" for d in depths]),
            rules.combine(ratings) if ratings else None, skip_note.lstrip("; "))
        ratings = [rules.direction(_difference(errors, rmse(d, "La"), rmse(d, b)), f"La minus {b} RMSE at d'={d}",
                                   fmt=".4f") for d in depths for b in ("LB", "Lin")]
        row("Table 2, theta=0: on the earlier collections (TREC9/10) La is slightly worse than LB and Lin",
            "La > LB, La > Lin",
            text([f"d'={d}: La {rmse(d, 'La')[0]:.4f}, LB {rmse(d, 'LB')[0]:.4f}, Lin {rmse(d, 'Lin')[0]:.4f}"
                  for d in depths]),
            rules.combine(ratings) if ratings else None,
            "each depth and baseline a part; TREC-8 is, like TREC9/10, an early collection" + skip_note)
        ratings = []
        for d in depths:
            rm = rmse(d, "RM")
            others = [rmse(d, e) for e in ("LB", "Lin", "La", "Lb")]
            worst = (max(o[0] for o in others), np.max(np.stack([o[1] for o in others]), axis=0))
            ratings.append(rules.direction(_difference(errors, rm, worst), f"RM minus the next worst RMSE at d'={d}",
                                           fmt=".4f"))
        row("Table 2: RM performs poorly on the earlier collections (TREC9/10, Rob04)", "worst RMSE there",
            text([f"d'={d}: RM {rmse(d, 'RM')[0]:.4f}, next worst "
                  f"{max(rmse(d, e)[0] for e in ('LB', 'Lin', 'La', 'Lb')):.4f}" for d in depths]),
            rules.combine(ratings) if ratings else None, "on TB04-06 the paper finds LB worst instead" + skip_note)
    if theta in thetas and 0.0 in thetas:
        ratings = [rules.direction(_difference(errors, rmse(d, m), rmse(d, m, theta)),
                                   f"{m} RMSE at theta=0 minus at {theta:g}, d'={d}", fmt=".4f")
                   for d in depths for m in ("La", "Lin")]
        row(f"Table 2: theta={theta:g} improves La and Lin (TREC9/10, Rob04)", "lower RMSE",
            text([f"d'={d} {m}: {rmse(d, m)[0]:.4f} -> {rmse(d, m, theta)[0]:.4f}" for d in depths
                  for m in ("La", "Lin")]),
            rules.combine(ratings) if ratings else None, skip_note.lstrip("; "), not_rated("theta_gate"))
    if theta in thetas:
        ratings, orders = [], []
        for d in depths:
            scores = {e: rmse(d, e, theta) for e in ("LB", "RM", "Lin", "La", "Lb")}
            base = (min(scores[e][0] for e in ("LB", "RM", "Lin")),
                    np.min(np.stack([scores[e][1] for e in ("LB", "RM", "Lin")]), axis=0))
            frame = (min(scores[e][0] for e in ("La", "Lb")), np.min(np.stack([scores[e][1] for e in ("La", "Lb")]),
                                                                     axis=0))
            ratings.append(rules.direction(_difference(errors, base, frame),
                                           f"best baseline minus best of La, Lb RMSE at d'={d}", fmt=".4f"))
            orders.append(f"d'={d}: " + " < ".join(sorted(scores, key=lambda e: scores[e][0])))
        row(f"Table 2, theta={theta:g}: the framework (La or Lb) has the lowest RMSE",
            "La or Lb lowest (or tied) in all 18 rows", text(orders), rules.combine(ratings) if ratings else None,
            OTHER + skip_note)
    return out


def _acc(frame, depth, estimator, theta) -> float:
    rows = frame[(frame["depth"] == depth) & (frame["estimator"] == estimator)]
    if rows["theta"].notna().any():
        rows = rows[np.isclose(rows["theta"].fillna(-1), theta)]
    return 100.0 * rows["zeros"].sum() / (rows["n_runs"].iloc[0] * len(rows))


# ------------------------------------------------------------------------------------------ Table 3


def _table3(dataset, per_group, seed, not_rated, all_groups) -> list:
    means = per_group.groupby("estimator", sort=False)["rmse"].mean().sort_values(kind="stable")
    wide = per_group.pivot_table(index="group", columns="estimator", values="rmse", sort=False)
    gap = paired_difference_interval(wide["LB"], wide["Lb"], seed=seed, unit="groups")
    depth = int(per_group["depth"].iloc[0])
    n_groups = len(wide)
    class_size = "" if all_groups is None or n_groups >= all_groups else (
        f"at class size ({n_groups} of {all_groups} groups left out; the paper averages over every group)")
    return [_claim(
        f"Table 3, leave one group out (d'={depth}, theta=0): the framework corrects system bias too "
        "(Lb below LB); Rob04: Lb < LB = La < Lin < RM", "Lb .050 < LB .060 = La .060 < Lin .068 < RM .126",
        f"d'={depth}: {' < '.join(means.index)} ({', '.join(f'{e} {r:.3f}' for e, r in means.items())}; "
        f"{n_groups} groups)", dataset,
        rules.direction(gap, "LB minus Lb RMSE, mean over groups", fmt=".4f"), OTHER,
        not_rated=not_rated("rbp_tail") or (not_rated("gain_models") if depth < MIN_MODEL_RANKS else "")
        or class_size)]


# ------------------------------------------------------------------------------------------ Figure 4


def _figure4(dataset, figure4_frame, degenerate, not_rated) -> list:
    f = figure4_frame
    full, resampled = f[f["resample"] < 0], f[f["resample"] >= 0]
    n_topics = int(full["n_topics"].iloc[0])
    depths = _model_depths(sorted(int(d) for d in full["depth"].unique()), degenerate)
    theta = float(full["theta"].iloc[0])
    unit = "topics"
    out = []

    def values(measure, d, names):
        a = full[full["depth"] == d].set_index("estimator")[measure]
        b = resampled[resampled["depth"] == d].pivot_table(index="resample", columns="estimator", values=measure)
        return a[names], (b[names] if len(b) else None)

    for measure, label, fmt in (("dist", "dist", ".1f"), ("tau_distance", "tau distance", ".4f")):
        ratings, texts = [], []
        for d in depths:
            est, res = values(measure, d, ["Lin", "La", "Lb", "LB", "RM"])
            gap = min(est["LB"], est["RM"]) - max(est["Lin"], est["La"], est["Lb"])
            gap_r = (np.minimum(res["LB"], res["RM"]) - res[["Lin", "La", "Lb"]].max(axis=1)).to_numpy() \
                if res is not None else np.array([gap])
            ratings.append(rules.direction(interval(gap, gap_r, unit, n_topics),
                                           f"nearest of LB, RM minus furthest of Lin, La, Lb ({label}) at d'={d}",
                                           fmt=fmt))
            texts.append(f"d'={d}: " + ", ".join(f"{e} {v:{fmt}}" for e, v in est.sort_values().items()))
        out.append(_claim(
            f"Fig. 4: Lin, La and Lb consistently give the orderings closest to the reference ({label})",
            "consistently the highest agreement", "; ".join(texts) or "no pool depth of at least 3 judged ranks",
            dataset, rules.combine(ratings, every=True) if ratings else None,
            f"theta={theta:g}; 'consistently': at every depth",
            not_rated="" if depths else not_rated("gain_models")))
    ratings, texts = [], []
    for d in depths:
        est, res = values("discrimination", d, ["Lin", "La", "Lb"])
        ref = float(full[full["depth"] == d]["reference_discrimination"].iloc[0])
        ref_r = resampled[(resampled["depth"] == d) & (resampled["estimator"] == "Lin")].sort_values("resample")[
            "reference_discrimination"].to_numpy() if len(resampled) else np.array([ref])
        for m in ("Lin", "La", "Lb"):
            change = 100.0 * (est[m] - ref)
            change_r = 100.0 * (res[m].to_numpy() - ref_r) if res is not None else np.array([change])
            ratings.append(rules.small(interval(change, change_r, unit, n_topics), "points",
                                       f"{m} minus reference discrimination ratio (points) at d'={d}", fmt=".1f"))
        texts.append(f"d'={d}: reference {100 * ref:.1f}%, " + ", ".join(f"{m} {100 * est[m]:.1f}%"
                                                                       for m in ("Lin", "La", "Lb")))
    out.append(_claim(
        "Sec. 6 (pool depths): Lin, La and Lb have only a small effect on the discrimination ratio (pairs a paired "
        "t-test separates at p = 0.05) compared with LB at d", "only a small effect",
        "; ".join(texts) or "no pool depth of at least 3 judged ranks", dataset,
        rules.combine(ratings, every=True) if ratings else None,
        f"'small': within {rules.margin('small', 'points'):g} points; two-sided paired t-tests over topics; "
        f"theta={theta:g}", not_rated="" if depths else not_rated("gain_models")))
    return out


# ------------------------------------------------------------------------------------------ Figure 6


def _sd_gap(frame: pd.DataFrame, seed) -> Interval:
    """sd of InfAP's dist over the samples minus the largest sd of the other methods, bootstrapped over samples."""
    wide = frame.pivot_table(index="repetition", columns="method", values="dist")
    others = [m for m in wide.columns if m != "InfAP"]
    x = wide.to_numpy()
    n = len(wide)
    index = np.random.default_rng(seed).integers(0, n, size=(N_RESAMPLES, n))
    sd = x[index].std(axis=1, ddof=1)  # (R, methods)
    col = list(wide.columns).index("InfAP")
    gap_r = sd[:, col] - np.max(np.delete(sd, col, axis=1), axis=1)
    gap = float(wide["InfAP"].std() - wide[others].std().max())
    return interval(gap, gap_r, "samples", n)


def _figure6(dataset, figure6_frame, seed, not_rated, first_stratum) -> list:
    f6 = figure6_frame
    n = int(f6["repetition"].nunique())
    class_size = "" if n >= MIN_SAMPLES else (
        f"at class size ({n} two-strata samples; an interval over samples needs at least {MIN_SAMPLES}, the "
        "paper's number)")
    # La and Lb fit their gain curves to the fully judged first stratum
    models = not_rated("gain_models") if first_stratum is not None and first_stratum < MIN_MODEL_RANKS else ""
    skip = not_rated("two_strata") or models or class_size
    stats = f6.groupby("method")[["tau_distance", "dist"]].agg(["mean", "std"])
    out = []
    shown = [m for m in ("La", "Lb", "InfRBP") if m in stats.index]
    ratings = [rules.at_most(bootstrap_interval(f6[f6["method"] == m]["tau_distance"], "mean", seed=seed,
                                                unit="samples"), 0.05, f"{m}'s mean tau distance") for m in shown]
    out.append(_claim(
        "Fig. 6 (two strata): La, Lb and InfRBP give tau distances below 0.05", "< 0.05",
        ", ".join(f"{m} {stats.loc[m, ('tau_distance', 'mean')]:.3f}" for m in stats.index) + f" (mean of {n})",
        dataset, rules.combine(ratings, every=True) if ratings else None, not_rated=skip, kind="value"))
    if {"La", "Lb", "InfRBP"} <= set(stats.index):
        wide = f6.pivot_table(index="repetition", columns="method", values="dist")
        ratings = [rules.direction(paired_difference_interval(wide["InfRBP"], wide[m], seed=seed, unit="samples"),
                                   f"InfRBP minus {m} dist", fmt=".1f") for m in ("La", "Lb")]
        out.append(_claim(
            "Fig. 6: by dist La and Lb beat InfRBP (La: all but TREC9; Lb: all but TB05)", "La, Lb < InfRBP",
            ", ".join(f"{m} {v:.1f}" for m, v in stats[("dist", "mean")].sort_values().items()) + " (mean dist)",
            dataset, rules.combine(ratings), not_rated=skip))
    if "InfAP" in stats.index and len(stats) > 1:
        out.append(_claim(
            "Fig. 6: InfAP gives the most variable orderings", "most variable",
            ", ".join(f"{m} sd {v:.1f}" for m, v in stats[("dist", "std")].items()) + " (dist over samples)",
            dataset, rules.direction(_sd_gap(f6, seed), "InfAP's sd of dist minus the largest other's", fmt=".2f"),
            "InfAP is compared with AP@d, the others with RBP@d", not_rated=skip))
    return out


# ------------------------------------------------------------------------------------------ all rows


def claims(dataset: str, *, plan=None, gamma_topics=None, rmse_vs_theta=None, table2_frame=None,
           table3_frame=None, figure4_frame=None, figure6_frame=None, theta: float = DEFAULT_THETA,
           theta_depth: int = 10, seed: int = 0, all_groups: int | None = None) -> list:
    """The paper's statements beside the kit's figures (:class:`evalkit.claims.Claim` rows, each rated by
    :mod:`evalkit.claims.rules` on an interval), for whichever results are passed:

    ``gamma_topics``: :func:`figure3_gamma_by_depth` with ``per_topic=True``; ``rmse_vs_theta`` and
    ``table2_frame``: :func:`figure3_rmse_vs_theta` and :func:`table2` with ``per_topic=True``; ``table3_frame``:
    :func:`table3` with ``per_group=True`` (``all_groups``: how many groups the collection has, for the class-size
    check); ``figure4_frame``: :func:`figure4` with its topic resamples; ``figure6_frame``: :func:`figure6`.
    ``plan``: the notebook's :class:`~evalkit.papers.needs.Plan`, whose degenerate studies make rows
    ``not rated: degenerate (...)``. ``seed`` seeds every bootstrap."""
    degenerate = set(plan.degenerate) if plan is not None else set()

    def not_rated(key: str) -> str:
        return plan.degenerate_reason(key) if plan is not None else ""

    out = _figure3(dataset, gamma_topics, rmse_vs_theta, theta, theta_depth, seed, not_rated)
    if table2_frame is not None:
        out += _table2(dataset, table2_frame, theta, seed, degenerate, not_rated)
    if table3_frame is not None:
        out += _table3(dataset, table3_frame, seed, not_rated, all_groups)
    if figure4_frame is not None:
        out += _figure4(dataset, figure4_frame, degenerate, not_rated)
    if figure6_frame is not None:
        out += _figure6(dataset, figure6_frame, seed, not_rated, plan.two_strata_depth if plan is not None else None)
    # the collections each figure comes from (default: Table 2's six)
    return [replace(c, paper_dataset=next((v for k, v in CLAIM_COLLECTIONS.items() if c.claim.startswith(k)), ""),
                    kind=c.kind if c.claim.startswith("Fig. 6 (two strata)") else "direction") for c in out]
