"""The judgment-budget planner: for each judging design, the topics a requirement needs and what they cost.

``plan(collection, measure, alpha, power, delta | ci_width, budget=None)`` joins the two halves of the planning
question (issue 29):

* **how many topics** (Sakai 2016, topic set size design; :mod:`evalkit.planning.topic_set_size`): the paired
  t-test's power to detect ``delta`` (or the one-way ANOVA's over ``systems`` systems, or a cap ``ci_width`` on
  the CI width), from the within-system variance of the measure;
* **how to judge each topic** (:mod:`evalkit.planning.designs`): the variance each judging design adds on the
  loaded collection, in full-judgment units (``effective variance`` = V_E / attenuation^2), its systematic
  per-run error (``bias sd``) and the judgments per topic it costs.

For every design and depth or rate: ``topics`` needed (t-test: :func:`ttest_topics_with_bias`, which is Sakai's
exact design when the bias is 0 and inf when the bias caps the power below the target; ANOVA: Sakai's design on the
unpaired effective variance, bias not modelled; CI: Sakai's expected-width design plus the design's bias band,
:func:`bias_band`), ``total judgments`` = topics x
judgments per topic, and ``cheapest``: the design meeting the requirement with the fewest total judgments (the
one a track would pick with no budget). With a ``budget`` of judgments: the topics each design affords
(``floor(budget / judgments per topic)``), the power (or CI width) it reaches with them, and ``best``: the design
giving the most power (narrowest CI) within the budget (Webber, Moffat and Zobel, CIKM 2008: at a fixed
assessment budget, the trade-off between topics and judgments per topic decides the power).

Everything the designs cost is measured on the loaded collection: a new collection with more (or fewer) runs
contributing to its pools would pool more (fewer) documents per topic at each depth; ``plan`` says nothing about
that and its ``judgments per topic`` are this collection's.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from evalkit.planning.designs import DEFAULT_REPLICATES, FAMILIES, design_variances
from evalkit.planning.topic_set_size import (
    anova_power,
    anova_topics,
    check_requirement,
    ci_topics,
    ci_width as expected_ci_width,
    ttest_power_with_bias,
    ttest_topics_with_bias,
)

__all__ = ["TESTS", "bias_band", "plan", "replan", "requirement_text", "cheapest", "best_within_budget",
           "summary_table", "recommendation"]

#: the requirement kinds: the paired (or unpaired) t-test's power, the one-way ANOVA's power, a CI width cap
TESTS = ("ttest", "anova", "ci")


def requirement_text(attrs: dict) -> str:
    """One line saying what a plan asks for (from its ``attrs``)."""
    paired = "paired" if attrs.get("paired", True) else "unpaired"
    if attrs["test"] == "ci":
        what = f"a {paired} {1 - attrs['alpha']:.0%} CI of a difference in {attrs['measure']} no wider than " \
               f"{attrs['ci_width']:g} (expected width)"
    elif attrs["test"] == "anova":
        what = f"power {attrs['power']:g} for the one-way ANOVA over {attrs['systems']} systems to detect a range " \
               f"of {attrs['delta']:g} in {attrs['measure']} at alpha = {attrs['alpha']:g}"
    else:
        what = f"power {attrs['power']:g} for the {paired} t-test to detect a difference of {attrs['delta']:g} in " \
               f"{attrs['measure']} at alpha = {attrs['alpha']:g}"
    if attrs.get("budget") is not None:
        what += f", within {attrs['budget']:,.0f} judgments"
    return what


def bias_band(bias_sd, alpha: float) -> np.ndarray:
    """The width a design's systematic error adds to a CI that must cover the full-judgment difference:
    ``2 z_{alpha/2} sqrt(2) bias_sd`` (the difference of two runs' biases, sd sqrt(2) bias_sd, covered at the same
    level). A CI-width plan asks ``E[W](n) + bias band <= ci_width`` (the kit's extension of Sakai's CI design, which
    assumes unbiased scores; 0 for an unbiased design); a band wider than the cap makes the design infeasible."""
    from scipy import stats

    return 2 * stats.norm.isf(alpha / 2) * np.sqrt(2) * np.asarray(bias_sd, float)


def plan(data, measure: str = "AP", alpha: float = 0.05, power: float = 0.8, delta: float | None = None,
         ci_width: float | None = None, budget: float | None = None, test: str | None = None, paired: bool = True,
         systems: int | None = None, judged_depth: int | None = None, replicates: int = DEFAULT_REPLICATES,
         seed: int = 0, depths: Sequence[int] | None = None, rates: Sequence[float] | None = None,
         families: Sequence[str] = FAMILIES, estimator: str = "RM") -> pd.DataFrame:
    """The plan (module docstring): one row per judging design (full judgments first), sorted as measured.

    ``data``: a collection (its designs are measured: :func:`evalkit.planning.designs.design_variances` with
    ``measure``, ``judged_depth``, ``replicates``, ``seed``, ``depths``, ``rates``, ``families``, ``estimator``)
    or a frame :func:`design_variances` returned (re-planning is then instant; ``measure`` is the frame's).
    Give ``delta`` (a difference to detect: ``test`` "ttest", the default, or "anova") or ``ci_width`` (``test``
    "ci"). ``paired``: the t-test / CI on the same topics (the two-way residual variance) or each system on its
    own topics (the one-way variance); ``systems``: the ANOVA's m (default: the collection's runs). ``budget``:
    total judgments available. ``frame.attrs`` holds the requirement (:func:`requirement_text`)."""
    if (delta is None) == (ci_width is None):
        raise ValueError("give exactly one of delta (a difference to detect) and ci_width (a cap on the CI width)")
    test = test or ("ci" if ci_width is not None else "ttest")
    if test not in TESTS:
        raise ValueError(f"test must be one of {', '.join(TESTS)}, got {test!r}")
    if (test == "ci") != (ci_width is not None):
        raise ValueError("test 'ci' takes ci_width; 'ttest' and 'anova' take delta")
    check_requirement(alpha=alpha, power=None if test == "ci" else power, delta=delta, width=ci_width)
    if budget is not None and not (np.isfinite(budget) and budget > 0):
        raise ValueError(f"budget must be a positive number of judgments, got {budget}")
    if isinstance(data, pd.DataFrame):
        variances = data
    else:
        variances = design_variances(data, measure, judged_depth, None, replicates, seed, depths, rates, families,
                                     estimator)
    attrs = dict(variances.attrs)
    if systems is None:
        systems = attrs.get("runs", 2)
    if test == "anova":
        check_requirement(systems=systems)
    frame = variances[["family", "level", "design", "scored with", "judgments per topic", "attenuation",
                       "bias sd", "kendall tau"]].copy()
    variance = variances["effective variance" if paired and test != "anova" else "effective unpaired variance"]
    frame.insert(5, "effective variance", variance)
    usable = np.isfinite(variance.to_numpy(float)) & (variance.to_numpy(float) >= 0)
    v = np.where(usable, variance.to_numpy(float), 1.0)
    bias = np.nan_to_num(frame["bias sd"].to_numpy(float), nan=0.0)
    if test == "ttest":
        topics = ttest_topics_with_bias(np.full(len(v), delta), v, bias, alpha, power, paired)
    elif test == "anova":
        topics = anova_topics(np.full(len(v), delta), v, int(systems), alpha, power)
    else:
        room = ci_width - bias_band(bias, alpha)
        topics = np.where(room > 0, ci_topics(np.full(len(v), ci_width), v, alpha, paired) if not bias.any() else
                          ci_topics(np.where(room > 0, room, ci_width), v, alpha, paired), np.inf)
    topics = np.where(usable, np.atleast_1d(topics), np.inf)
    frame["topics"] = topics
    frame["total judgments"] = topics * frame["judgments per topic"].to_numpy(float)
    frame["meets requirement"] = np.isfinite(topics)
    frame["cheapest"] = False
    if frame["meets requirement"].any():
        order = frame[frame["meets requirement"]].sort_values(["total judgments", "topics"]).index
        frame.loc[order[0], "cheapest"] = True
    if budget is not None:
        per_topic = frame["judgments per topic"].to_numpy(float)
        afford = np.floor(np.divide(budget, per_topic, out=np.zeros(len(frame)), where=per_topic > 0))
        frame["affordable topics"] = afford
        ok = (afford >= 2) & usable
        n = np.where(ok, afford, 2)
        if test == "ttest":
            reached = np.atleast_1d(ttest_power_with_bias(n, np.full(len(v), delta), v, bias, alpha, paired))
            column = "power within budget"
        elif test == "anova":
            reached = np.atleast_1d(anova_power(n, np.full(len(v), delta), v, int(systems), alpha))
            column = "power within budget"
        else:
            reached = np.atleast_1d(expected_ci_width(n, v, alpha, paired)) + bias_band(bias, alpha)
            column = "CI width within budget"
        frame[column] = np.where(ok, reached, np.nan)
        frame["within budget"] = frame["total judgments"] <= budget
        frame["best"] = False
        if ok.any():
            values = frame[column].where(ok)
            best = values.idxmin() if test == "ci" else values.idxmax()
            frame.loc[best, "best"] = True
    attrs.update(alpha=float(alpha), power=None if test == "ci" else float(power), delta=delta, ci_width=ci_width,
                 budget=budget, test=test, paired=bool(paired), systems=int(systems))
    attrs["requirement"] = requirement_text(attrs)
    frame.attrs = attrs
    return frame


def replan(variances: pd.DataFrame, **requirement) -> pd.DataFrame:
    """:func:`plan` on measured designs (a :func:`design_variances` frame): what the widgets call on every move."""
    return plan(variances, **requirement)


def cheapest(frame: pd.DataFrame) -> pd.Series | None:
    """The cheapest row meeting the requirement (None when no design meets it)."""
    rows = frame[frame["cheapest"]]
    return rows.iloc[0] if len(rows) else None


def best_within_budget(frame: pd.DataFrame) -> pd.Series | None:
    """The row giving the most power (narrowest CI) within the plan's budget (None without a budget or when no
    design affords two topics)."""
    if "best" not in frame:
        return None
    rows = frame[frame["best"]]
    return rows.iloc[0] if len(rows) else None


def summary_table(frame: pd.DataFrame) -> pd.DataFrame:
    """The plan as a committee reads it: one row per design (its label as the index), the judgments per topic,
    the effective variance and bias the design adds, the topics and total judgments the requirement needs, and,
    with a budget, the power (or CI width) the budget buys; ``choice`` marks the cheapest design and the best
    within the budget. Plain numbers (inf where a design cannot meet the requirement)."""
    columns = {"judgments per topic": "judgments/topic", "effective variance": "effective variance",
               "bias sd": "bias sd", "kendall tau": "tau vs full", "topics": "topics",
               "total judgments": "total judgments"}
    out = frame.set_index("design")[list(columns)].rename(columns=columns)
    for extra in ("affordable topics", "power within budget", "CI width within budget"):
        if extra in frame:
            out[extra] = frame[extra].to_numpy()
    choice = np.where(frame["cheapest"], "cheapest", "")
    if "best" in frame:
        best = np.where(frame["best"], "best within budget", "")
        choice = np.array([", ".join(p for p in pair if p) for pair in zip(choice, best)], dtype=object)
    out["choice"] = choice
    out.index.name = "judging design"
    return out


def recommendation(frame: pd.DataFrame) -> list[str]:
    """Sentences computed from a plan: the cheapest design meeting the requirement and, with a budget, the one
    giving the most within it (each naming the plan's collection)."""
    attrs = frame.attrs
    where = attrs.get("collection", "this collection")
    lines = []
    row = cheapest(frame)
    if row is None:
        lines.append(f"On {where}, no design meets the requirement ({attrs.get('requirement', '')}): the bias of "
                     "the cheap designs caps them, and the others would need more topics than can be searched.")
    else:
        lines.append(f"On {where}, the cheapest design meeting the requirement is {row['design']}: "
                     f"{row['topics']:.0f} topics x {row['judgments per topic']:.0f} judgments = "
                     f"{row['total judgments']:,.0f} judgments (full judgments: "
                     f"{_full(frame, 'topics')} topics, {_full(frame, 'total judgments', ',.0f')} judgments).")
    best = best_within_budget(frame)
    if best is not None:
        reached = f"power {best['power within budget']:.2f}" if "power within budget" in frame else \
            f"a CI width of {best['CI width within budget']:.3f}"
        lines.append(f"Within {attrs['budget']:,.0f} judgments the most is {reached}, with {best['design']} on "
                     f"{best['affordable topics']:.0f} topics.")
    elif attrs.get("budget") is not None:
        lines.append(f"No design affords two topics within {attrs['budget']:,.0f} judgments.")
    return lines


def _full(frame: pd.DataFrame, column: str, fmt: str = ".0f") -> str:
    value = float(frame.iloc[0][column])
    return format(value, fmt) if np.isfinite(value) else "no finite number of"
