"""The planner notebook's tables: topic set sizes per measure (Sakai's three designs), the minimum detectable
difference, and the table a track organiser pastes into a proposal. Pure functions to DataFrames."""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

__all__ = ["sizes_table", "detectable_table", "proposal_table", "proposal_markdown", "validation_table"]


def sizes_table(variances: pd.DataFrame, delta: float, ci_width: float, alpha: float = 0.05, power: float = 0.8,
                systems: Sequence[int] = (2, 10)) -> pd.DataFrame:
    """Topics each measure needs under full judgments (rows: :func:`evalkit.papers.budget_planner.experiment.
    full_variances`' measures): Sakai's paired t-test, the same with the total variance (the estimate Sakai
    corrects), the unpaired t-test, the one-way ANOVA over each number of ``systems``, the paired CI."""
    from evalkit.planning.topic_set_size import anova_topics, ci_topics, ttest_topics

    rows = {}
    for measure, row in variances.iterrows():
        out = {"paired t-test": ttest_topics(delta, row["paired"], alpha, power),
               "paired t-test, total variance": ttest_topics(delta, row["total"], alpha, power),
               "unpaired t-test": ttest_topics(delta, row["unpaired"], alpha, power, paired=False)}
        for m in systems:
            out[f"ANOVA, {m} systems"] = anova_topics(delta, row["unpaired"], int(m), alpha, power)
        out[f"paired CI width {ci_width:g}"] = ci_topics(ci_width, row["paired"], alpha)
        rows[measure] = out
    frame = pd.DataFrame(rows).T
    frame.index.name = "measure"
    frame.attrs.update(delta=delta, ci_width=ci_width, alpha=alpha, power=power)
    return frame


def detectable_table(variances: pd.DataFrame, topics: Sequence[int] = (25, 50, 100, 200), alpha: float = 0.05,
                     power: float = 0.8) -> pd.DataFrame:
    """The inverse question: per measure, the smallest difference the paired t-test detects with ``power`` on
    each number of ``topics`` (full judgments)."""
    from evalkit.planning.topic_set_size import detectable_difference

    frame = pd.DataFrame({f"{n} topics": [detectable_difference(int(n), v, alpha, power)
                                          for v in variances["paired"]] for n in topics}, index=variances.index)
    frame.attrs.update(alpha=alpha, power=power)
    return frame


def proposal_table(frame: pd.DataFrame) -> pd.DataFrame:
    """The table for a proposal: the full judgments, the cheapest design of each family that meets the
    requirement, and (with a budget) the design giving the most within it; per row the topics, judgments per
    topic, total judgments, what the design scores with, and the power (or CI width) the plan promises. Rows in
    order of total judgments."""
    from evalkit.planning.topic_set_size import ttest_power_with_bias

    attrs = frame.attrs
    picks = [frame.index[0]]
    meets = frame[frame["meets requirement"] & (frame["family"] != "full")]
    for _, part in meets.groupby("family", sort=False):
        picks.append(part.sort_values(["total judgments", "topics"]).index[0])
    if "best" in frame and frame["best"].any():
        picks.append(frame.index[frame["best"]][0])
    rows = []
    for i in dict.fromkeys(picks):
        row = frame.loc[i]
        budget_row = bool(row.get("best", False)) and not bool(row["cheapest"])
        topics = row["affordable topics"] if budget_row else row["topics"]
        total = topics * row["judgments per topic"]
        if attrs["test"] == "ci":
            promise = f"CI width {row['CI width within budget']:.3f}" if budget_row else \
                f"CI width <= {attrs['ci_width']:g}"
        elif attrs["test"] == "anova":
            promise = f"power {row['power within budget']:.2f}" if budget_row else f"power >= {attrs['power']:g}"
        else:
            value = ttest_power_with_bias(topics, attrs["delta"], row["effective variance"], row["bias sd"],
                                          attrs["alpha"], attrs["paired"]) if np.isfinite(topics) else np.nan
            promise = f"power {value:.2f}"
        role = "full judgments (the reference)" if row["family"] == "full" else \
            "most within the budget" if budget_row else "cheapest " + row["family"] + " design"
        if row["cheapest"]:
            role += "; cheapest overall"
        rows.append({"judging design": row["design"], "role": role, "topics": topics,
                     "judgments per topic": row["judgments per topic"], "total judgments": total,
                     "scored with": row["scored with"], "promise": promise})
    out = pd.DataFrame(rows).sort_values("total judgments", kind="stable").set_index("judging design")
    out.attrs.update(attrs)
    return out


def proposal_markdown(table: pd.DataFrame) -> str:
    """The proposal table as a Markdown table (numbers rounded as a committee reads them), with the requirement
    and the collection it was planned on as its caption."""
    head = "| judging design | role | topics | judgments per topic | total judgments | scored with | promise |"
    lines = [head, "|" + "---|" * 7]
    for design, row in table.iterrows():
        topics = f"{row['topics']:,.0f}" if np.isfinite(row["topics"]) else "-"
        total = f"{row['total judgments']:,.0f}" if np.isfinite(row["total judgments"]) else "-"
        lines.append(f"| {design} | {row['role']} | {topics} | {row['judgments per topic']:,.0f} | {total} | "
                     f"{row['scored with']} | {row['promise']} |")
    attrs = table.attrs
    lines.append("")
    lines.append(f"*Requirement: {attrs.get('requirement', '')}. Variances and costs measured on "
                 f"{attrs.get('collection', '?')} ({attrs.get('runs', '?')} runs, {attrs.get('topics', '?')} topics, "
                 f"judged depth {attrs.get('judged_depth', '?')}); evalkit.planning.*")
    return "\n".join(lines)


def validation_table(result) -> pd.DataFrame:
    """The validation's summary (:class:`evalkit.planning.validation.ValidationResult`) as the notebook shows it:
    one row per design."""
    columns = ["planned topics", "planned topics range", "pairs at delta", "target power",
               "target power at these pairs", "realised power at delta",
               "predicted power (own variance)", "realised power, all >= delta", "power delivered",
               "target coverage", "realised coverage", "coverage delivered"]
    return result.summary.set_index("design")[columns]
