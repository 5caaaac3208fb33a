"""The planner notebook's paper-versus-kit rows (:class:`evalkit.claims.Claim`) and its computed sentences.

No published *value* is compared: the anchors' tables are not in the kit's paper folder and their collections
are not the loaded one (:mod:`evalkit.papers.budget_planner.paper`). Their statements are checked in direction
on the loaded collection (``kind="direction"``, graded "direction only"); the identity of Sakai 2018 is the
kit's own reference (``THIS_COLLECTION``) and is rated plainly.

Every row is rated by a written rule (:mod:`evalkit.claims.rules`). The anchors' statements read figures computed
once from the full judgments or from the designs' means over their replicates: the rule reads that one value
(the ``interval`` column says "no random draw"). The validation's rows (a plan's promise against what it delivers
on a simulated population) come from random topic sets: the rule reads the realised power's and coverage's 95%
bootstrap interval over the realised topic sets (:func:`evalkit.planning.validation.realised_intervals`) against
the validation's own tolerance (within :data:`~evalkit.planning.validation.POWER_TOLERANCE` of the power
promised, :data:`~evalkit.planning.validation.COVERAGE_TOLERANCE` of the CIs' level). They check the kit's plan,
not a paper's statement, so they carry ``scope="beyond"``.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pandas as pd

from evalkit.claims import rules
from evalkit.papers.budget_planner.paper import NO_VALUES, PAPER_STATEMENTS
from evalkit.stats import Interval

__all__ = ["claims", "variance_sentence", "plan_sentence", "validation_sentence"]

#: what the ``interval`` column says for a figure read once (the full judgments, or the designs' replicate means)
EXACT = "no random draw"


def _claim(key, paper_value, kit_value, dataset, rating, note="", kind="direction", paper_dataset=None):
    from evalkit.claims import Claim

    paper, statement, collection = PAPER_STATEMENTS[key]
    return Claim(paper, statement, paper_value, kit_value, dataset, note=note,
                 paper_dataset=collection if paper_dataset is None else paper_dataset, kind=kind, **rating.fields())


def _exact(rule, value: float, *args, fmt: str = ".3f", source: str = "the full judgments", **kwargs):
    """``rule`` (a function of :mod:`evalkit.claims.rules`) on a figure computed once, without a random draw: the
    interval is the value itself, and the ``interval`` column says where it comes from."""
    value = float(value)
    rating = rule(Interval(value, value, value, method=EXACT, n=1), *args, fmt=fmt, **kwargs)
    return replace(rating, interval=f"{value:{fmt}} ({EXACT}: {source})")


def _within(interval: Interval, target: float, tolerance: float, what: str) -> rules.Rating:
    """Realised against promised: the interval of (realised - target) within +-``tolerance`` over its whole
    interval (``yes``); ``no`` when it lies entirely below -tolerance (less than promised) or above it (more:
    conservative); else ``inconclusive``."""
    shifted = Interval(interval.estimate - target, interval.low - target, interval.high - target, interval.level,
                       interval.method, interval.n)
    parts = [rules.at_least(shifted, -tolerance, f"{what} - target"),
             rules.at_most(shifted, tolerance, f"{what} - target")]
    return replace(rules.combine(parts, every=True), interval=shifted.text("+.3f"))


def claims(dataset: str, sizes: pd.DataFrame, designs: pd.DataFrame, frame: pd.DataFrame, validation=None) -> list:
    """The rows: ``sizes`` (:func:`evalkit.papers.budget_planner.tables.sizes_table`), ``designs`` (the measure's
    :func:`evalkit.planning.designs.design_variances`), ``frame`` (its t-test plan), ``validation`` (a
    :class:`evalkit.planning.validation.ValidationResult` or None)."""
    from evalkit.claims import THIS_COLLECTION
    from evalkit.planning.plan import replan

    out = []
    paired, total = sizes["paired t-test"], sizes["paired t-test, total variance"]
    out.append(_claim("within_smaller", "smaller (tables not in our copy)",
                      "; ".join(f"{m}: {p:.0f} vs {t:.0f} topics" for m, p, t in zip(sizes.index, paired, total)),
                      dataset, rules.combine([_exact(rules.direction, t - p, "total-variance topics minus "
                                                     "within-system topics", fmt=".0f", source=f"{m}, full judgments")
                                              for m, p, t in zip(sizes.index, paired, total)], every=True,
                                             rule="total-variance topics minus within-system topics > 0 for each "
                                                  "measure (reversed: no)"),
                      NO_VALUES))
    if len(sizes) >= 2:
        ratio = float(paired.max() / paired.min())
        out.append(_claim("measures_differ", "substantially different sizes",
                          ", ".join(f"{m} {p:.0f}" for m, p in paired.items()) + f" topics (max/min {ratio:.2f})",
                          dataset, _exact(rules.much_larger, ratio - 1, "relative", "most topics / fewest - 1",
                                          fmt=".2f"),
                          "substantially = the rules' 'much' on the relative scale"))
    full = frame.iloc[0]
    best = frame[frame["cheapest"]]
    replicates = designs.attrs.get("replicates", "")
    means = f"the designs' means over {replicates} replicates" if replicates else "the designs' means"
    if len(best) and np.isfinite(full["total judgments"]):
        share = float(best["total judgments"].iloc[0] / full["total judgments"])
        out.append(_claim("depth_tradeoff", "reliable and economical",
                          f"cheapest design {best['design'].iloc[0]}: {share:.0%} of the full judgments' cost for the "
                          f"same power", dataset,
                          _exact(rules.at_most, share, 0.5, "cheapest design's judgments / the full judgments'",
                                 fmt=".2f", source=means),
                          "far more cheaply = at most half the judgments"))
    equal = None
    if "ANOVA, 2 systems" in sizes:
        gap = (sizes["ANOVA, 2 systems"] - sizes["unpaired t-test"]).abs()
        equal = float(gap.max()) if np.isfinite(gap).all() else math.nan
    if equal is not None:
        out.append(_claim("anova_two_is_t", "the same size", "; ".join(
            f"{m}: {a:.0f} and {t:.0f}" for m, a, t in zip(sizes.index, sizes["ANOVA, 2 systems"],
                                                           sizes["unpaired t-test"])), dataset,
            rules.exact(equal, 0, "largest difference in topics, ANOVA over 2 systems vs unpaired t-test"),
            "an identity: computed on the loaded collection", kind="value", paper_dataset=THIS_COLLECTION))
    per_topic = float(full["judgments per topic"])
    attrs = frame.attrs
    if attrs.get("test") == "ttest" and per_topic > 0:
        fifty = replan(designs, alpha=attrs["alpha"], power=attrs["power"], delta=attrs["delta"],
                       budget=50 * per_topic)
        chosen = fifty[fifty["best"]]
        if len(chosen):
            row = chosen.iloc[0]
            full_power = float(fifty.iloc[0]["power within budget"])
            rating = rules.combine([
                _exact(rules.direction, row["affordable topics"] - 50, "topics the budget affords minus 50",
                       fmt=".0f", source=means),
                _exact(rules.direction, row["power within budget"] - full_power,
                       "best design's power minus 50 full topics'", source=means)], every=True)
            out.append(_claim("shallow_wide", "more topics, shallower", f"with the cost of 50 fully judged topics: "
                              f"{row['design']} on {row['affordable topics']:.0f} topics, power "
                              f"{row['power within budget']:.2f} (50 full: {full_power:.2f})", dataset,
                              rating, f"delta {attrs['delta']:g}"))
    if {"P@10", "AP"} <= set(sizes.index):
        p10, ap = float(paired["P@10"]), float(paired["AP"])
        rating = rules.combine([_exact(rules.direction, p10 - 50, "P@10's topics minus 50", fmt=".0f"),
                                _exact(rules.direction, p10 - ap, "P@10's topics minus AP's", fmt=".0f")])
        out.append(_claim("fifty_p10", "more than 50 topics", f"P@10 needs {p10:.0f} topics, AP {ap:.0f} (paired "
                          f"t-test, delta {sizes.attrs['delta']:g}, power {sizes.attrs['power']:g})", dataset,
                          rating, "the paper splits topics in halves; the kit asks the topic set size design"))
    if validation is not None:
        out += _validation_claims(validation)
    return out


def _validation_claims(validation) -> list:
    """The validation's rows (module docstring): per design, the realised power at delta and the CIs' coverage,
    each with its bootstrap interval over the realised topic sets, against the plan's targets."""
    from evalkit.claims import THIS_COLLECTION, Claim
    from evalkit.planning.validation import COVERAGE_TOLERANCE, POWER_TOLERANCE, realised_intervals

    out = []
    summary = validation.summary.set_index("design")
    where = validation.settings["population"]
    checks = validation.assumptions.set_index("design")
    seed = int(validation.settings.get("seed", 0))
    for design, row in summary.iterrows():
        intervals = realised_intervals(validation, design, seed=seed) if len(validation.realisations) else \
            {"power": Interval(math.nan, math.nan, math.nan), "coverage": Interval(math.nan, math.nan, math.nan)}
        realised, target = row["realised power at delta"], row["target power at these pairs"]
        ratio = checks.loc[design, "variance ratio median"] if design in checks.index and \
            "variance ratio median" in checks.columns else float("nan")
        why = (f"each pair's own variance predicts {row['predicted power (own variance)']:.3f}; the pairs at "
               f"delta vary {ratio:.2f} times the pooled 2 sigma^2 (median)")
        power = _within(intervals["power"], target, POWER_TOLERANCE, "realised power")
        if power.agrees == "no" and intervals["power"].low > target:
            why = "more than promised (conservative): " + why
        # the claim names the design's role (the one the plan chose differs with the collection and the preset's
        # grid); the design itself is in the kit's value
        role = design if design == "full judgments" else "the plan's cheapest design"
        out.append(Claim("Topic set size design (Sakai 2016)", f"a plan delivers its power at delta ({role})",
                         f"{target:.3f} (the target at the pairs' differences; {row['target power']:.2f} at "
                         f"delta; delivered: within {POWER_TOLERANCE:g})",
                         f"{design}: {realised:.3f} over {row['pairs at delta']} pairs, {row['planned topics']:.0f} "
                         f"topics planned", where, note=why, paper_dataset=THIS_COLLECTION, scope="beyond",
                         **power.fields()))
        level = row["target coverage"]
        coverage = _within(intervals["coverage"], level, COVERAGE_TOLERANCE, "realised coverage")
        out.append(Claim("Topic set size design (Sakai 2016)", f"the CIs cover at their level ({role})",
                         f"{level:.2f} (the level; delivered: within {COVERAGE_TOLERANCE:g})",
                         f"{design}: {row['realised coverage']:.3f}", where,
                         note="coverage of the design's own population difference", paper_dataset=THIS_COLLECTION,
                         scope="beyond", **coverage.fields()))
    return out


def variance_sentence(variances: pd.DataFrame, measure: str, collection: str) -> str:
    """How much smaller the within-system variance is than the total, on the named collection."""
    row = variances.loc[measure]
    return (f"On {collection}, the within-system variance of {measure} (two-way residual V_E = {row['paired']:.4f}) "
            f"is {row['paired'] / row['total']:.0%} of the total variance ({row['total']:.4f}); the one-way "
            f"(unpaired) estimate is {row['unpaired']:.4f}.")


def plan_sentence(frame: pd.DataFrame) -> str:
    """The plan's recommendation (:func:`evalkit.planning.plan.recommendation`) as one paragraph."""
    from evalkit.planning.plan import recommendation

    return " ".join(recommendation(frame))


def validation_sentence(result, collection_variance: float | None = None, collection: str = "") -> str:
    """What the validation found, computed from it: realised against target, and the assumption it points at;
    with ``collection_variance`` (the loaded collection's paired variance of the measure), how the population's
    compares with it."""
    summary = result.summary
    checks = result.assumptions.set_index("design")
    parts, machinery = [], []
    for _, row in summary.iterrows():
        design = row["design"]
        realised, own = row["realised power at delta"], row["predicted power (own variance)"]
        text = (f"{design}: {row['planned topics']:.0f} topics planned, realised power {realised:.2f} at delta "
                f"(target {row['target power at these pairs']:.2f} at the pairs' true differences, "
                f"{row['target power']:.2f} at delta: {row['power delivered']}; each pair's own variance predicts "
                f"{own:.2f}), coverage {row['realised coverage']:.3f} ({row['coverage delivered']})")
        if design in checks.index and "variance ratio median" in checks.columns:
            c = checks.loc[design]
            text += (f"; the difference variances of the pairs at delta are {c['variance ratio median']:.2f} times "
                     f"the pooled 2 sigma^2 (median; 10-90%: {c['variance ratio p10']:.2f}-"
                     f"{c['variance ratio p90']:.2f}), their skewness {c['mean |skewness|']:.2f}")
        parts.append(text)
        if np.isfinite(realised) and np.isfinite(own):
            machinery.append(abs(realised - own) <= 0.05)
    verdict = ""
    if machinery and all(machinery):
        verdict = (" On every design the realised power is within 5 points of what each pair's own variance "
                   "predicts: the t-test delivers what its variance promises, and a gap to the target comes from "
                   "the pooled (equal-variance) estimate.")
    elif machinery:
        verdict = (" On some design the realised power is more than 5 points from what each pair's own variance "
                   "predicts: there the normality of the differences or the design's bias, not only the pooled "
                   "variance, is what the plan got wrong.")
    scale = ""
    own = result.settings.get("population variance")
    if collection_variance and own:
        scale = (f" The population's within-system variance of {result.settings['measure']} is {own:.4f}, "
                 f"{own / collection_variance:.0%} of {collection}'s {collection_variance:.4f}: the simulator "
                 "reproduces the collection's structure, not this number, so the topic counts planned here are the "
                 "population's, not the collection's; what carries over is whether a plan keeps its promise.")
    return f"On {result.settings['population']}: " + "; ".join(parts) + "." + verdict + scale
