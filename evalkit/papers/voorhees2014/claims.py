"""Voorhees (2014): the paper's statements beside the kit's figures, as :class:`evalkit.claims.Claim` rows rated by
the written rules (:mod:`evalkit.claims.rules`).

Every figure a claim reads comes from the trials, so it is read on its interval over them: the difference of two
strategies' figures is the mean of their per-trial differences (every strategy of a trial samples from the same
half of the judged runs) with a paired bootstrap interval (:func:`evalkit.stats.paired_difference_interval`), and a
per-trial figure of one strategy has a bootstrap interval (:func:`evalkit.stats.bootstrap_interval`). A claim of
several parts (strategies, measures) combines its parts' ratings (:func:`evalkit.claims.rules.combine`); the
``interval`` column lists each part's estimate and interval.

Two reasons not to rate a claim, given in ``not_rated``:

* the plan found the scaling of a strategy the claim is about degenerate on this collection (the paper's ratios
  not kept after rounding: :func:`evalkit.papers.voorhees2014.plan.scaling_check`);
* fewer trials than the paper's 50 (the class preset's 10) leave a part of the claim whose interval straddles its
  threshold: the claim is ``not rated at class size`` rather than given a verdict the paper's trials might not
  give (issue 28: the class verdict equals the paper verdict, or says so).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from evalkit.claims import rules
from evalkit.papers.voorhees2014.experiment import R_MEASURES, Voorhees2014Result
from evalkit.papers.voorhees2014.paper import PAPER_LOW_R, PAPER_LOW_R_CORRELATION, PAPER_STRATEGIES
from evalkit.papers.voorhees2014.plan import degenerate_reason
from evalkit.papers.voorhees2014.presets import PRESETS
from evalkit.papers.voorhees2014.tables import compare_low_r, low_estimate_topics, table1, table3
from evalkit.stats import Interval, bootstrap_interval, paired_difference_interval

PAPER = "Voorhees 2014"
#: the trials of the paper's experiment (Sec. 2); fewer is the class preset's size
PAPER_TRIALS = PRESETS["paper"]["trials"]
#: Figure 1: a topic's relevant set is "small" up to the paper's line of 20; "underestimated" below 95% of R; "all
#: but" the small ones: at least 90% of the others
SMALL_R, UNDER, ALL_BUT = 20, 0.95, 0.90
#: "comparable" margins the conclusion's "effective" reads: within 3 accuracy points of the best other strategy,
#: within 0.02 of its R̂ correlation (a correlation coefficient, the margin of Kendall's tau)
NEAR_POINTS, NEAR_CORRELATION = rules.margin("comparable", "points"), rules.margin("comparable", "tau")


@dataclass(frozen=True)
class Part:
    """One part of a claim: a label, the interval it read and its rating."""

    label: str
    interval: Interval
    rating: rules.Rating
    fmt: str = "+.3f"

    def text(self) -> str:
        if not self.interval.finite:
            return self.label
        return f"{self.label} {self.interval.estimate:{self.fmt}} {self.interval.bounds(self.fmt.lstrip('+'))}"


class _Figures:
    """The per-trial figures of a result, as (trials x strategies) frames, and their intervals."""

    def __init__(self, result: Voorhees2014Result):
        self.result = result
        self.seed = int(result.seed)
        pairs = result.pairs.assign(strategy=result.pairs["strategy"].astype(str),
                                    measure=result.pairs["measure"].astype(str))
        self.accuracy = pairs.pivot_table(index="trial", columns=["measure", "strategy"], values="accuracy",
                                          dropna=False)  # a measure no trial could score keeps its NaN columns
        shift = pairs[pairs["measure"].isin(R_MEASURES)]
        self.shift = shift.pivot_table(index="trial", columns=["measure", "strategy"],
                                       values="score shift with gold R", dropna=False)
        self.gold_r = shift.pivot_table(index="trial", columns=["measure", "strategy"],
                                        values="accuracy with gold R", dropna=False)
        sizes = result.sizes.assign(strategy=result.sizes["strategy"].astype(str))
        n_topics = sizes["topic"].nunique()
        self.sizes = sizes.pivot_table(index="trial", columns="strategy", values="judged", aggfunc="sum") / n_topics
        corr = result.correlation.assign(strategy=result.correlation["strategy"].astype(str))
        self.correlation = corr.pivot_table(index="trial", columns="strategy", values="pearson", dropna=False)

    def acc(self, measure: str) -> pd.DataFrame:
        return self.accuracy[measure]

    def mean_accuracy(self) -> pd.DataFrame:
        """(trials x strategies) accuracy averaged over the measures."""
        return self.accuracy.T.groupby(level="strategy").mean().T

    def diff(self, a: pd.Series, b: pd.Series, scale: float = 1.0) -> Interval:
        return paired_difference_interval(np.asarray(a) * scale, np.asarray(b) * scale, seed=self.seed)

    def one(self, values, scale: float = 1.0) -> Interval:
        return bootstrap_interval(np.asarray(values, dtype=float) * scale, seed=self.seed)


def _rating(parts: list[Part], every: bool) -> rules.Rating:
    """The claim's rating from its parts' (:func:`evalkit.claims.rules.combine`), the interval listing each part."""
    combined = rules.combine([p.rating for p in parts], every=every)
    if not parts:
        return combined
    method = parts[0].interval
    how = f"{method.level:.0%} {method.method}".strip() if method.n or method.finite else method.method
    return rules.Rating(combined.agrees, "; ".join(p.text() for p in parts) + (f" ({how})" if how else ""),
                        combined.rule)


def _class_size(parts: list[Part], result: Voorhees2014Result) -> str:
    """``not_rated`` for a claim rated on fewer trials than the paper's with a part whose interval straddles its
    threshold, else ``""``; also ``""`` on a collection too small for any verdict (the grading withholds it, at any
    number of trials: :data:`evalkit.claims.grading.MIN_RUNS`, ``MIN_TOPICS``). A part with no value at all (NaN:
    e.g. a share of 0 topics) does not straddle anything and no number of trials decides it: it is never the
    reason here (the grading reads the NaN value as ``not rated: NaN`` at every preset)."""
    from evalkit.claims.grading import MIN_RUNS, MIN_TOPICS

    trials = result.trials
    if trials >= PAPER_TRIALS or 0 < result.n_runs < MIN_RUNS or len(result.gold_R) < MIN_TOPICS:
        return ""
    open_parts = [p for p in parts if p.rating.agrees == "inconclusive" and not np.isnan(p.interval.estimate)]
    if not open_parts:
        return ""
    p = open_parts[0]
    return (f"at class size ({trials} trials: {p.label} {p.interval.bounds(p.fmt.lstrip('+'))} straddles its "
            f"threshold; the paper's {PAPER_TRIALS} trials decide)")


def _best(frame: pd.DataFrame, among: list[str]) -> str:
    """The strategy of ``among`` with the highest mean over trials; the first of them when every mean is NaN (the
    claim's figures are then NaN and it reads "not rated: NaN")."""
    means = frame.reindex(columns=among).mean()
    return str(means.idxmax()) if means.notna().any() else str(among[0])


def _worst(frame: pd.DataFrame, among: list[str]) -> str:
    """The strategy of ``among`` with the lowest mean over trials (NaN: as :func:`_best`)."""
    means = frame.reindex(columns=among).mean()
    return str(means.idxmin()) if means.notna().any() else str(among[0])


class _Claims:
    """The claims of one result: each method below adds the rows of one of the paper's tables or sections."""

    def __init__(self, result: Voorhees2014Result, plan):
        self.result, self.plan = result, plan
        self.f = _Figures(result)
        self.names = [s for s in PAPER_STRATEGIES if s in result.strategy_names]
        self.pools = [s for s in ("pool15", "pool25") if s in self.names]
        self.sizes = table1(result)["per topic"]
        self.rows: list = []

    def add(self, names, claim, paper_value, kit_value, parts, every, kind="direction", note=""):
        from evalkit.claims import Claim

        rating = _rating(parts, every)
        not_rated = degenerate_reason(self.plan, names) or _class_size(parts, self.result)
        self.rows.append(Claim(PAPER, claim, paper_value, kit_value, self.result.dataset, note=note, kind=kind,
                               not_rated=not_rated, **rating.fields()))

    def others(self, strategy: str) -> list[str]:
        return [s for s in self.names if s != strategy]

    def rank(self, frame: pd.DataFrame, strategy: str) -> int | str:
        """``strategy``'s rank (1 = highest mean) among the paper's strategies; "NaN" when its mean is NaN (every
        trial's figure undefined: the claim then reads "not rated: NaN")."""
        rank = frame.reindex(columns=self.names).mean().rank(ascending=False, method="min")[strategy]
        return "NaN" if np.isnan(rank) else int(rank)

    # ------------------------------------------------------------------------------------------ Table 1

    def table1(self):
        f, names = self.f, self.names
        if "1stratum" not in names or len(names) < 2:
            return
        parts = [Part(f"1stratum - {s}", iv := f.diff(f.sizes["1stratum"], f.sizes[s]),
                      rules.direction(iv, "1stratum - each other (judgments/topic)"), "+.1f")
                 for s in self.others("1stratum")]
        self.add(names, "Table 1: 1stratum needs the largest judgment set", "largest (numbers not legible)",
                 ", ".join(f"{s} {self.sizes[s]:.0f}" for s in names) + " judgments/topic", parts, every=True,
                 note="strategy rates reconstructed (the paper's are cut off in our text)")

    # ------------------------------------------------------------------------------------------ Table 2

    def table2_1stratum(self):
        f, names = self.f, self.names
        if "1stratum" not in names or len(names) < 2:
            return
        measures = [m for m in ("NDCG", "P(10)") if m in self.result.measures]
        parts = []
        for m in measures:
            for s in self.others("1stratum"):
                iv = f.diff(f.acc(m)[s], f.acc(m)["1stratum"])
                parts.append(Part(f"{m}: {s} - 1stratum", iv, rules.direction(iv, "each other - 1stratum (accuracy)")))
        if parts:
            next_lowest = {m: _worst(f.acc(m), self.others("1stratum")) for m in measures}
            self.add(names, "Table 2: 1stratum is consistently the worst for NDCG and P(10)", "worst on both",
                     "; ".join(f"{m}: 1stratum {f.acc(m)['1stratum'].mean():.3f}, next lowest {s} "
                               f"{f.acc(m)[s].mean():.3f}" for m, s in next_lowest.items()), parts, every=True)
        if "MAP" in self.result.measures:
            acc = f.acc("MAP")
            worst, best = _worst(acc, self.others("1stratum")), _best(acc, self.others("1stratum"))
            parts = [Part(f"1stratum - {worst}", iv := f.diff(acc["1stratum"], acc[worst]),
                          rules.direction(iv, f"MAP: 1stratum - {worst} (the worst other)")),
                     Part(f"{best} - 1stratum", iv2 := f.diff(acc[best], acc["1stratum"]),
                          rules.direction(iv2, f"MAP: {best} (the best other) - 1stratum"))]
            self.add(names, "Table 2: 1stratum only somewhat more competitive for MAP", "not the worst, not the best",
                     f"MAP accuracy {acc['1stratum'].mean():.3f}, rank {self.rank(acc, '1stratum')} of {len(names)}",
                     parts, every=True)

    def table2_3strata(self):
        f, names = self.f, self.names
        if "3strata" not in names or len(names) < 2:
            return
        parts, ranks = [], []
        for m in self.result.measures:
            acc = f.acc(m)
            best = _best(acc, self.others("3strata"))
            iv = f.diff(acc[best], acc["3strata"], scale=100)
            parts.append(Part(f"{m}: {best} - 3strata (points)", iv,
                              rules.much_larger(iv, "points", "the best other - 3strata (accuracy points)", ".1f"),
                              "+.1f"))
            ranks.append(f"{m} {self.rank(acc, '3strata')}")
        self.add(names, "Table 2: 3strata (large sparsely sampled stratum) is a poor choice",
                 "poor: much less accurate than the alternatives",
                 "3strata trails the best other strategy by " + ", ".join(f"{p.interval.estimate:.1f}" for p in parts)
                 + " accuracy points (" + "/".join(self.result.measures) + f"); its rank of {len(names)}: "
                 + ", ".join(ranks) + f"; {self.sizes['3strata']:.0f} judgments/topic", parts, every=False,
                 note="'poor' read as much less accurate than the best other strategy (by more than the 'much' "
                      "margin of 5 accuracy points) on a measure")

    def table2_pools(self):
        f, pools, measures = self.f, self.pools, self.result.measures
        if pools and "2strata" in self.names:
            mean = f.mean_accuracy()
            parts = [Part(f"{p} - 2strata", iv := f.diff(mean[p], mean["2strata"]),
                          rules.direction(iv, "pool - 2strata (accuracy, mean of the measures)")) for p in pools]
            per = "; ".join(f"{p} - 2strata: " + ", ".join(
                f"{m} {f.acc(m)[p].mean() - f.acc(m)['2strata'].mean():+.3f}" for m in measures) for p in pools)
            self.add(pools + ["2strata"], "Table 2 (TREC-8): pooling generally more accurate than 2strata",
                     "pool better", per, parts, every=False,
                     note="'generally' read as: on the mean of the three measures' accuracies")
        if len(pools) == 2:
            parts = []
            for m in measures:
                iv = f.diff(f.acc(m)["pool25"], f.acc(m)["pool15"])
                parts.append(Part(f"{m}: pool25 - pool15", iv, rules.direction(iv, "pool25 - pool15 (accuracy)")))
            self.add(pools, "Table 2 (TREC-8): a clear dependency on the pool depth",
                     "pool25 more accurate than pool15",
                     ", ".join(f"{m} {f.acc(m)['pool25'].mean() - f.acc(m)['pool15'].mean():+.3f}" for m in measures)
                     + " (pool25 - pool15)", parts, every=True)

    # ------------------------------------------------------------------------------------------ Table 3

    def table3(self):
        f, names, pools = self.f, self.names, self.pools
        if not pools or len(names) <= len(pools):
            return
        corr, weakest_other = f.correlation, _worst(f.correlation, [s for s in names if s not in pools])
        parts = []
        for p in pools:
            iv = f.diff(corr[weakest_other], corr[p])
            parts.append(Part(f"{weakest_other} - {p}", iv,
                              rules.direction(iv, "R̂ correlation: the weakest other - pool")))
        if len(pools) == 2:
            iv = f.diff(corr["pool25"], corr["pool15"])
            parts.append(Part("pool25 - pool15", iv, rules.direction(iv, "R̂ correlation: pool25 - pool15")))
        t3 = table3(self.result)["mean"]
        self.add(names, "Table 3: pooling gives the weakest R̂ correlation, weaker as the pool gets shallower",
                 "weakest; pool15 < pool25", ", ".join(f"{s} {t3[s]:.3f}" for s in names), parts, every=True)

    # ------------------------------------------------------------------------------------------ Figure 1

    def figure1(self):
        result, f = self.result, self.f
        if "pool25" not in result.strategy_names:
            return
        rh = result.r_hat[result.r_hat["strategy"].astype(str) == "pool25"]
        big = rh[rh["gold_R"] > SMALL_R]
        per_trial = (big["r_hat"] < UNDER * big["gold_R"]).groupby(big["trial"]).mean()
        n_big = int((result.gold_R > SMALL_R).sum())
        claim = "Figure 1: pool25 underestimates R for all but the smallest relevant sets"
        if n_big == 0:  # a share of no topic: NaN, whatever the number of trials
            none = Interval(float("nan"), float("nan"), float("nan"), method="nothing to resample", n=0)
            part = Part(f"no topic has R > {SMALL_R}", none, rules.at_least(none, ALL_BUT), ".3f")
            self.add(["pool25"], claim, "underestimates", f"NaN: no topic has R > {SMALL_R}", [part], every=True)
        else:
            iv = f.one(per_trial)
            part = Part(f"share of the {n_big} topics with R > {SMALL_R} underestimated", iv,
                        rules.at_least(iv, ALL_BUT, f"share of topics with R > {SMALL_R} whose R̂ < {UNDER:g} R"),
                        ".3f")
            ratio = float((big["r_hat"] / big["gold_R"]).mean())
            self.add(["pool25"], claim, "underestimates", f"R̂ < {UNDER:g} R on {iv.estimate:.0%} of the {n_big} "
                                                          f"topics with R > {SMALL_R} (mean R̂/R = {ratio:.2f})",
                     [part], every=True)
        low, r = low_estimate_topics(result, "pool25")
        parts = []
        for row in compare_low_r(result, "pool25").to_dict("records"):
            label, topic = f"R {row['paper gold R']}, R̂ {row['paper mean R̂']:g}", row["kit topic"]
            if topic is None or (isinstance(topic, float) and np.isnan(topic)):
                nothing = Interval(float("nan"), float("nan"), float("nan"))
                parts.append(Part(label + ": no topic has this R", nothing,
                                  rules.Rating("no", "", "no topic has this gold R")))
                continue
            values = rh[rh["topic"] == topic]["r_hat"].to_numpy(float)
            iv = f.one(values / row["paper mean R̂"] - 1.0)
            parts.append(Part(f"{label} (topic {topic})", iv,
                              rules.comparable(iv, "relative", "kit R̂ / paper R̂ - 1"), "+.2f"))
        close = sum(p.rating.agrees == "yes" for p in parts)
        self.add(["pool25"], "Figure 1: topics with mean pool25 R̂ < 20 and the correlation of their R̂ with R",
                 f"{len(PAPER_LOW_R)} topics, r = {PAPER_LOW_R_CORRELATION:.2f}",
                 f"{len(low)} topics ({', '.join(map(str, low['topic']))}), r = {r:.2f}; {close} of the paper's "
                 f"{len(PAPER_LOW_R)} (R, R̂) pairs matched within 10%", parts, every=False, kind="value",
                 note="compare_low_r matches the paper's pairs to topics by gold R (the paper's topics are TREC-8's); "
                      "r is not rated (one number, no interval)")

    # ------------------------------------------------------------------------------- Sec. 4, conclusion

    def r_hat_impact(self):
        f, names = self.f, self.names
        if not names or not all(m in self.result.measures for m in R_MEASURES):
            return
        shift = {m: f.shift[m][names] for m in R_MEASURES}
        parts = []
        for s in names:
            iv = f.diff(shift["MAP"][s], shift["NDCG"][s], scale=100)
            parts.append(Part(f"{s} (points)", iv, rules.direction(
                iv, "infAP's score shift - infNDCG's (% of the gold scores)", fmt=".1f"), "+.1f"))
        gain = {m: float((f.gold_r[m][names] - f.acc(m)[names]).to_numpy().mean()) * 100 for m in R_MEASURES}
        self.add(names, "Sec. 4: the quality of R̂ matters more for infAP than for infNDCG", "bigger impact on infAP",
                 f"with the gold R in place of R̂ the scores move by {shift['MAP'].to_numpy().mean():.0%} (infAP) and "
                 f"{shift['NDCG'].to_numpy().mean():.0%} (infNDCG) of the gold scores, mean of the {len(names)} "
                 f"strategies; the accuracy of the significant pairs changes by {gain['MAP']:+.2f} (MAP) and "
                 f"{gain['NDCG']:+.2f} (NDCG) points", parts, every=True,
                 note="score shift: sum over runs and topics of |score with R - score with R̂| over the sum of the "
                      "gold scores (evalkit.papers.voorhees2014.experiment.with_gold_r)")

    def conclusion(self):
        f, names = self.f, self.names
        if "2strata" not in names or len(names) < 2:
            return
        mean, corr = f.mean_accuracy(), f.correlation
        best_acc, best_corr = _best(mean, self.others("2strata")), _best(corr, self.others("2strata"))
        iv = f.diff(mean["2strata"], mean[best_acc], scale=100)
        iv2 = f.diff(corr["2strata"], corr[best_corr])
        parts = [Part(f"2strata - {best_acc} (accuracy points)", iv, rules.at_least(
                     iv, -NEAR_POINTS, f"2strata - {best_acc} (the most accurate other; mean accuracy, points)",
                     ".1f"), "+.1f"),
                 Part(f"2strata - {best_corr} (R̂ correlation)", iv2, rules.at_least(
                     iv2, -NEAR_CORRELATION, f"2strata - {best_corr} (the best other R̂ correlation)"))]
        self.add(names, "Conclusion: 2strata is a practical and effective strategy", "recommended",
                 f"2strata: mean accuracy rank {self.rank(mean, '2strata')}/{len(names)}, R̂ correlation rank "
                 f"{self.rank(corr, '2strata')}/{len(names)}, {self.sizes['2strata']:.0f} judgments/topic", parts,
                 every=True, note="'effective' read as: no other strategy more accurate, or better at R̂, by more "
                                  "than the 'comparable' margin")


def claims(result: Voorhees2014Result, plan=None) -> list:
    """The paper's statements beside the kit's figures (:class:`evalkit.claims.Claim` rows for
    :func:`evalkit.claims.record_claims`), each rated by a rule of :mod:`evalkit.claims.rules` on its interval over
    the trials (module docstring). Only statements whose strategies were run are included; the comparisons use the
    paper's five TREC-8 strategies (medical2012 is not one of them). ``plan``: the
    :func:`~evalkit.papers.voorhees2014.plan.plan` the result was run with (its degenerate scalings)."""
    rows = _Claims(result, plan)
    for section in (rows.table1, rows.table2_1stratum, rows.table2_3strata, rows.table2_pools, rows.table3,
                    rows.figure1, rows.conclusion, rows.r_hat_impact):
        section()
    return rows.rows
