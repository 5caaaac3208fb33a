"""The planner notebook's paper-versus-kit rows (:class:`evalkit.claims.Claim`) and its computed sentences.

No published *value* is compared: the anchors' tables are not in the kit's paper folder and their collections
are not the loaded one (:mod:`evalkit.papers.budget_planner.paper`). Their statements are checked in direction
on the loaded collection (``kind="direction"``, graded "direction only"); the identity of Sakai 2018 and the
validation (a plan's promise against what it delivers on a simulated population) are the kit's own references
(``THIS_COLLECTION``) and are rated plainly.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from evalkit.papers.budget_planner.paper import NO_VALUES, PAPER_STATEMENTS

__all__ = ["claims", "variance_sentence", "plan_sentence", "validation_sentence"]


def _claim(key, paper_value, kit_value, dataset, agrees, note="", kind="direction", paper_dataset=None):
    from evalkit.claims import Claim

    paper, statement, collection = PAPER_STATEMENTS[key]
    return Claim(paper, statement, paper_value, kit_value, dataset, agrees, note,
                 paper_dataset=collection if paper_dataset is None else paper_dataset, kind=kind)


def claims(dataset: str, sizes: pd.DataFrame, designs: pd.DataFrame, frame: pd.DataFrame, validation=None) -> list:
    """The rows: ``sizes`` (:func:`evalkit.papers.budget_planner.tables.sizes_table`), ``designs`` (the measure's
    :func:`evalkit.planning.designs.design_variances`), ``frame`` (its t-test plan), ``validation`` (a
    :class:`evalkit.planning.validation.ValidationResult` or None)."""
    from evalkit.claims import THIS_COLLECTION
    from evalkit.planning.plan import replan

    out = []
    paired, total = sizes["paired t-test"], sizes["paired t-test, total variance"]
    smaller = (paired < total).all()
    out.append(_claim("within_smaller", "smaller (tables not in our copy)",
                      "; ".join(f"{m}: {p:.0f} vs {t:.0f} topics" for m, p, t in zip(sizes.index, paired, total)),
                      dataset, "yes" if smaller else "no", NO_VALUES))
    if len(sizes) >= 2:
        ratio = float(paired.max() / paired.min())
        out.append(_claim("measures_differ", "substantially different sizes",
                          ", ".join(f"{m} {p:.0f}" for m, p in paired.items()) + f" topics (max/min {ratio:.2f})",
                          dataset, "yes" if ratio >= 1.5 else "partly" if ratio > 1.1 else "no",
                          "substantially = at least 1.5 times as many topics"))
    full = frame.iloc[0]
    best = frame[frame["cheapest"]]
    if len(best) and np.isfinite(full["total judgments"]):
        share = float(best["total judgments"].iloc[0] / full["total judgments"])
        out.append(_claim("depth_tradeoff", "reliable and economical",
                          f"cheapest design {best['design'].iloc[0]}: {share:.0%} of the full judgments' cost for the "
                          f"same power", dataset, "yes" if share <= 0.5 else "partly" if share < 1 else "no",
                          "far more cheaply = at most half the judgments"))
    equal = (sizes["ANOVA, 2 systems"] == sizes["unpaired t-test"]).all() if "ANOVA, 2 systems" in sizes else None
    if equal is not None:
        out.append(_claim("anova_two_is_t", "the same size", "; ".join(
            f"{m}: {a:.0f} and {t:.0f}" for m, a, t in zip(sizes.index, sizes["ANOVA, 2 systems"],
                                                           sizes["unpaired t-test"])), dataset,
            "yes" if equal else "no", "an identity: computed on the loaded collection", kind="value",
            paper_dataset=THIS_COLLECTION))
    per_topic = float(full["judgments per topic"])
    attrs = frame.attrs
    if attrs.get("test") == "ttest" and per_topic > 0:
        fifty = replan(designs, alpha=attrs["alpha"], power=attrs["power"], delta=attrs["delta"],
                       budget=50 * per_topic)
        chosen = fifty[fifty["best"]]
        if len(chosen):
            row = chosen.iloc[0]
            full_power = float(fifty.iloc[0]["power within budget"])
            wider = row["affordable topics"] > 50 and row["power within budget"] > full_power
            out.append(_claim("shallow_wide", "more topics, shallower", f"with the cost of 50 fully judged topics: "
                              f"{row['design']} on {row['affordable topics']:.0f} topics, power "
                              f"{row['power within budget']:.2f} (50 full: {full_power:.2f})", dataset,
                              "yes" if wider else "no", f"delta {attrs['delta']:g}"))
    if {"P@10", "AP"} <= set(sizes.index):
        p10, ap = float(paired["P@10"]), float(paired["AP"])
        out.append(_claim("fifty_p10", "more than 50 topics", f"P@10 needs {p10:.0f} topics, AP {ap:.0f} (paired "
                          f"t-test, delta {sizes.attrs['delta']:g}, power {sizes.attrs['power']:g})", dataset,
                          "yes" if p10 > 50 and p10 > ap else "partly" if p10 > 50 or p10 > ap else "no",
                          "the paper splits topics in halves; the kit asks the topic set size design"))
    if validation is not None:
        from evalkit.claims import Claim

        summary = validation.summary.set_index("design")
        where = validation.settings["population"]
        checks = validation.assumptions.set_index("design")
        for design, row in summary.iterrows():
            realised = row["realised power at delta"]
            delivered = str(row["power delivered"])
            ratio = checks.loc[design, "variance ratio median"] if design in checks.index and \
                "variance ratio median" in checks.columns else float("nan")
            why = (f"each pair's own variance predicts {row['predicted power (own variance)']:.3f}; the pairs at "
                   f"delta vary {ratio:.2f} times the pooled 2 sigma^2 (median)")
            agrees = "yes" if delivered.startswith("yes") else "partly" if delivered.startswith("above") else "no"
            if agrees == "partly":
                why = "more than promised (conservative): " + why
            out.append(Claim("Topic set size design (Sakai 2016)", f"a plan delivers its power at delta ({design})",
                             f"{row['target power at these pairs']:.3f} (the target at the pairs' differences; "
                             f"{row['target power']:.2f} at delta)",
                             f"{realised:.3f} over {row['pairs at delta']} pairs, {row['planned topics']:.0f} topics "
                             f"planned", where, agrees, why, paper_dataset=THIS_COLLECTION))
            out.append(Claim("Topic set size design (Sakai 2016)", f"the CIs cover at their level ({design})",
                             f"{row['target coverage']:.2f} (the level)", f"{row['realised coverage']:.3f}", where,
                             "yes" if str(row["coverage delivered"]).startswith("yes") else "no",
                             "coverage of the design's own population difference", paper_dataset=THIS_COLLECTION))
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
