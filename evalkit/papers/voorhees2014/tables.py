"""Voorhees (2014): pure functions from a :class:`~evalkit.papers.voorhees2014.experiment.Voorhees2014Result` to
DataFrames: the paper's Tables 1-3 and Figure 1's data reproduced, the low-R̂ topics, and the kit's numbers beside
the paper's (:func:`compare_low_r`, :func:`check_judgment_sizes`)."""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from evalkit.papers.voorhees2014.experiment import Voorhees2014Result
from evalkit.papers.voorhees2014.paper import PAPER_LOW_R, PAPER_STRATEGIES
from evalkit.stats import CATEGORY_NAMES, pearson


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
