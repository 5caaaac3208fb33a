"""Voorhees (2014): pure functions from a :class:`~evalkit.papers.voorhees2014.experiment.Voorhees2014Result` to
DataFrames: the paper's Tables 1-3 and Figure 1's data reproduced, the low-R̂ topics, and the kit's numbers beside
the paper's (:func:`compare_low_r`, :func:`check_judgment_sizes`)."""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from evalkit.papers.voorhees2014.experiment import R_MEASURES, Voorhees2014Result
from evalkit.papers.voorhees2014.paper import PAPER_LOW_R, PAPER_STRATEGIES
from evalkit.stats import CATEGORY_NAMES, bootstrap_interval, pearson


def _interval_columns(frame: pd.DataFrame, keys, column: str, seed: int) -> pd.DataFrame:
    """Per group of ``keys``: the 95% bootstrap interval over trials (``low``, ``high``) of the mean of ``column``
    (one value a trial), indexed as ``frame.groupby(keys)`` is."""
    intervals = frame.groupby(keys, observed=True)[column].agg(
        lambda x: bootstrap_interval(x.to_numpy(float), seed=seed))
    return pd.DataFrame({"low": intervals.map(lambda iv: iv.low), "high": intervals.map(lambda iv: iv.high)})


def table1(result: Voorhees2014Result) -> pd.DataFrame:
    """Table 1: per strategy, the judgment-set size averaged over trials, per topic (with its 95% bootstrap interval
    over the trials, ``low`` and ``high``) and in all (with the smallest and largest total over trials, and the
    strata for reference)."""
    total = result.sizes.groupby(["strategy", "trial"], observed=True)["judged"].sum()
    n_topics = result.sizes["topic"].nunique()
    by = total.groupby(level="strategy", observed=True)
    ci = _interval_columns((total / n_topics).rename("per topic").reset_index(), "strategy", "per topic",
                           int(result.seed))
    frame = pd.DataFrame({
        "per topic": by.mean() / n_topics,
        "low": ci["low"],
        "high": ci["high"],
        "total": by.mean(),
        "min total": by.min(),
        "max total": by.max(),
    })
    frame["strata"] = [" + ".join(map(str, s.strata)) for s in result.strategies if s.name in frame.index]
    frame.index = frame.index.astype(str)
    frame.index.name = "strategy"
    return frame


def table2(result: Voorhees2014Result) -> pd.DataFrame:
    """Table 2 (long): per strategy and measure, the accuracy's mean over trials with its 95% bootstrap interval
    (``low``, ``high``), min and max over trials, and the mean count of each pair category (true positive, true
    negative, miss, false alarm, inversion)."""
    grouped = result.pairs.groupby(["strategy", "measure"], observed=True)
    frame = grouped["accuracy"].agg(["mean", "min", "max"])
    ci = _interval_columns(result.pairs, ["strategy", "measure"], "accuracy", int(result.seed))
    frame = frame.join(ci)[["mean", "low", "high", "min", "max"]]
    frame = frame.join(grouped[list(CATEGORY_NAMES) + ["n_pairs"]].mean())
    frame.index = frame.index.set_levels([frame.index.levels[0].astype(str), frame.index.levels[1].astype(str)])
    return frame


def table2_wide(result: Voorhees2014Result, columns: Sequence[str] = ("mean", "min", "max")) -> pd.DataFrame:
    """Table 2 in the paper's layout: one row per strategy, (measure, mean/min/max) columns (``columns`` may add
    ``"low"`` and ``"high"``, the 95% bootstrap interval of the mean over trials)."""
    columns = list(columns)
    frame = table2(result)[columns].unstack("measure")
    frame = frame.swaplevel(axis=1)
    measures = [m for m in result.measures]
    return frame.reindex(columns=pd.MultiIndex.from_product([measures, columns]))\
        .reindex([s.name for s in result.strategies])


def table2_text(result: Voorhees2014Result) -> pd.DataFrame:
    """Table 2 to read: per strategy and measure, ``mean [95% interval] (min-max over trials)`` as text."""
    t2 = table2(result)
    text = t2.apply(lambda r: f"{r['mean']:.3f} [{r['low']:.3f}, {r['high']:.3f}] ({r['min']:.3f}-{r['max']:.3f})",
                    axis=1)
    return text.unstack("measure").reindex(index=[s.name for s in result.strategies], columns=list(result.measures))


def table3(result: Voorhees2014Result) -> pd.DataFrame:
    """Table 3: per strategy, the mean over trials of the Pearson correlation of R̂ with the gold R per topic, its
    95% bootstrap interval over the trials (``low``, ``high``), min and max."""
    frame = result.correlation.groupby("strategy", observed=True)["pearson"].agg(["mean", "min", "max"])
    ci = _interval_columns(result.correlation, "strategy", "pearson", int(result.seed))
    frame = frame.join(ci)[["mean", "low", "high", "min", "max"]]
    frame.index = frame.index.astype(str)
    return frame


def r_hat_impact(result: Voorhees2014Result) -> pd.DataFrame:
    """What R̂'s error does to each measure that uses it (infAP, infNDCG; :func:`~evalkit.papers.voorhees2014.
    experiment.with_gold_r`), per strategy: the score shift when the gold R replaces R̂ (% of the gold scores) and
    the change of the significant pairs' accuracy (points), means over trials with 95% bootstrap intervals."""
    pairs = result.pairs[result.pairs["measure"].astype(str).isin(R_MEASURES)]
    values = {"score shift (%)": pairs["score shift with gold R"] * 100,
              "accuracy change (points)": (pairs["accuracy with gold R"] - pairs["accuracy"]) * 100}
    rows = {}
    for (strategy, measure), index in pairs.groupby(["strategy", "measure"], observed=True).groups.items():
        for what, series in values.items():
            iv = bootstrap_interval(series.loc[index].to_numpy(float), seed=int(result.seed))
            rows.setdefault(str(strategy), {})[(str(measure), what)] = f"{iv.estimate:+.1f} {iv.bounds('.1f')}" \
                if what.startswith("accuracy") else f"{iv.estimate:.1f} {iv.bounds('.1f')}"
    frame = pd.DataFrame.from_dict(rows, orient="index")
    frame.columns = pd.MultiIndex.from_tuples(frame.columns, names=["measure", ""])
    frame.index.name = "strategy"
    return frame.reindex(index=[s.name for s in result.strategies if s.name in rows])


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


def deviations(result: Voorhees2014Result, plan, collection=None, claims_table: pd.DataFrame | None = None,
               sensitivity: pd.DataFrame | None = None) -> pd.DataFrame:
    """Where this replication deviates from the paper: one row per difference, with ``why`` and its ``effect``
    (computed where the run shows it: the judgment-set sizes, the scaling check of ``plan``, the claims not rated
    at class size in ``claims_table``, the verdicts the rate ``sensitivity`` sweep changes)."""
    from evalkit.papers.needs import REFERENCE_DEPTH
    from evalkit.papers.voorhees2014.presets import PRESETS

    rows = []
    sizes = table1(result)["per topic"]
    names = [s for s in PAPER_STRATEGIES if s in sizes.index]
    reconstructed = [s for s in ("1stratum", "2strata", "3strata") if s in names]
    if reconstructed:
        effect = ", ".join(f"{s} {sizes[s]:.0f}" for s in names) + " judgments/topic"
        if sensitivity is not None and "survives" in sensitivity:
            claims_rows = sensitivity[~sensitivity.index.str.contains("judgments/topic")]
            changed = claims_rows[claims_rows["survives"] == "no"]
            effect += (f"; the rate sweep ({', '.join(c for c in sensitivity.columns if c != 'survives')}) changes "
                       f"{len(changed)} of {len(claims_rows)} verdicts" +
                       (f": {'; '.join(changed.index)}" if len(changed) else ""))
        rows.append({"what differs from the paper": "the sampling rates of " + ", ".join(reconstructed),
                     "why": "cut off in our copy of the paper; reconstructed so that the sizes are comparable to "
                            "pool25's and 1stratum's is the largest (what the text says of Table 1)",
                     "effect": effect})
    rows.append({"what differs from the paper": "Tables 1-3: the paper's numbers",
                 "why": "not legible in our copy (only the captions and the text's statements survive)",
                 "effect": "the claims read the text's statements (orderings), not numbers; only Figure 1's nine "
                           "(R, R̂) pairs are numbers"})
    if "medical2012" in result.strategy_names:
        rows.append({"what differs from the paper": "medical2012 run as a sixth strategy",
                     "why": "the paper describes it for TREC 2012 Medical Records only",
                     "effect": "shown in the tables, in no claim"})
    rows.append({"what differs from the paper": "TREC 2012 Medical Records not run",
                 "why": "the collection is not available here",
                 "effect": "its statements (2strata beats pooling there; stronger R̂ correlations) are not checked"})
    judged = plan["judged_depth"]
    if judged < REFERENCE_DEPTH and plan["scaled"]:
        from evalkit.papers.voorhees2014.plan import scaling_check

        check = scaling_check(judged, plan["scaled"])
        kept = sorted(set(check["strategy"][check["kept"]]) - set(check["strategy"][~check["kept"]]))
        lost = sorted(set(check["strategy"][~check["kept"]]))
        rows.append({"what differs from the paper": f"strata scaled from pool depth {REFERENCE_DEPTH} to {judged}",
                     "why": f"the collection is judged to depth {judged} only",
                     "effect": f"the ratios are kept for {', '.join(kept) or 'no strategy'}; not for "
                               f"{', '.join(lost) or 'none'}" + (" (claims about them not rated: degenerate)"
                                                                  if plan.degenerate else "")})
        rows.append({"what differs from the paper": "P(10) and NDCG@100 keep the paper's cut-offs",
                     "why": "the measures are the paper's",
                     "effect": f"ranks below the judged depth {judged} count as not relevant in the gold and in every "
                               "sample alike"})
    paper_trials = PRESETS["paper"]["trials"]
    if result.trials != paper_trials:
        effect = "wider intervals"
        if claims_table is not None and "verdict" in claims_table:
            n = int(claims_table["verdict"].astype(str).str.startswith("not rated at class size").sum())
            effect += f"; {n} of {len(claims_table)} claims not rated at class size"
        rows.append({"what differs from the paper": f"{result.trials} trials instead of {paper_trials}",
                     "why": "a smaller preset (or a value you set)", "effect": effect})
    if collection is not None:
        rule = str(collection.metadata.get("judged_runs_rule", ""))
        if rule.startswith("derived"):
            k = int(collection.judged_runs.sum())
            rows.append({"what differs from the paper": "the judged runs are derived from the qrels",
                         "why": "the collection's files do not list the runs that contributed to the pools",
                         "effect": f"{k} of {collection.n_runs} runs ({rule}); each trial pools from {k // 2}"})
    return pd.DataFrame(rows, columns=["what differs from the paper", "why", "effect"])
