"""Voorhees (2014): the paper's statements beside the kit's figures, as :class:`evalkit.claims.Claim` rows.

This paper has no computed findings text (no ``..._markdown`` function): the kit's figures a statement is read
against are in each claim's row, and the notebook sets the rows beside the paper's conclusions."""

from __future__ import annotations

import pandas as pd

from evalkit.papers.voorhees2014.experiment import Voorhees2014Result
from evalkit.papers.voorhees2014.paper import PAPER_LOW_R, PAPER_LOW_R_CORRELATION, PAPER_STRATEGIES
from evalkit.papers.voorhees2014.tables import compare_low_r, figure1_data, low_estimate_topics, table1, table2, table3


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
